"""Session 30: spans of secret and PII rules that took bytes that were no secret, byte for byte.

1. A shell expansion keeps its syntax: `${NAME:-`, `${NAME:=`, `${NAME-`, `${NAME:+` and the closing
   `}` stay; only a default (or an alternate word) that is a secret itself is replaced. Before, a
   default the rule did not take left `PASSWORD:` to be read as `password: -dev`, and a default
   followed by `};` ended after the `;`.
2. A forge URL's credential goes, its user part (`gitlab-ci-token`, `oauth2`, `x-access-token`) and
   host stay: `prose-secret` read `token:` in `gitlab-ci-token:` as a sentence and took the rest of
   the URL, and `email` took `<token>@github.com` as an address.
3. A JSON integer under a key naming a count, a size, a duration or a build/run number (`bytes`,
   `elapsed_ns`, `inode`, `build_number`) is no card; one under `card_number`, `cc` or `pan` is.
4. A national-id label at the top of a long tool output arms no number far below it
   (`keyword_window`); the number next to its label, and the rows of a CSV under its header, still go.
5. The public resolvers are no one's address (already allowlisted; kept here as a check).

Lines are redacted as the workers redact them (text and Claude Code JSONL records,
seeds/by-harness/claude-code.json: a Bash `tool_use` input.command, a `tool_result` content).
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from archiver.redact.base import RedactionReport
from archiver.redact.pseudonym import Pseudonymizer
from tests.fx_redact import builtin_redactor

KEY = b"s30-span-fps-team-key-0123456789"
_SLOT = re.compile(r"⟨([A-Z_]+)\|([^⟩]*)⟩")


@pytest.fixture(scope="module")
def red() -> Any:
    return builtin_redactor(KEY)


def want(template: str) -> str:
    """`template` with each `⟨LABEL|value⟩` as the value's token under that label."""
    p = Pseudonymizer(KEY)
    return _SLOT.sub(lambda m: p.token(m.group(1), m.group(2)), template)


def plain(template: str) -> str:
    """The input a template describes: each slot as its value."""
    return _SLOT.sub(lambda m: m.group(2), template)


def text_out(red: Any, text: str) -> tuple[str, dict[str, int]]:
    report = RedactionReport()
    return red.redact_text(text, report), report.by_rule()


def bash_line(command: str) -> bytes:
    """A Claude Code assistant record running `command` in its Bash tool."""
    return json.dumps({"type": "assistant", "message": {"role": "assistant", "content": [
        {"type": "tool_use", "id": "toolu_01S30SpanFps", "name": "Bash", "input": {"command": command}}]}}).encode()


def command_out(red: Any, command: str) -> str:
    out = red.redact_jsonl_line(bash_line(command), RedactionReport())
    return json.loads(out)["message"]["content"][0]["input"]["command"]


# ---------------------------------------------------------------- 1. shell parameter expansions

SHELL = [
    # the testers' lines: no secret in them, nothing changes
    "export API_KEY=${API_KEY:-sk-live-abc}",
    'TOKEN="${GITHUB_TOKEN:-}"',
    # a default the password rules do not take: `:-`/`:=` and the name stay, no `-dev` / `=$VAR` value
    "export PASSWORD=${PASSWORD:-dev}",
    "export DB_PASSWORD=${DB_PASSWORD:=dev}",
    "  MYSQL_PASSWORD: ${MYSQL_PASSWORD:=$VAULT_SECRET}",
    'PASSWORD="${PASSWORD:-$DB_SECRET_VALUE}"',
    "export DB_PASSWORD=${DB_PASSWORD:-${VAULT_DB_PASSWORD}}",
    # a default that is a secret: the value alone, the syntax byte for byte
    "set DB_PASSWORD=${DB_PASSWORD:-⟨PASSWORD|Xk9$mQ2!pL#a⟩}; ./run.sh",
    "set DB_PASSWORD=${DB_PASSWORD:=⟨PASSWORD|C1b(gq3-j;2<H[*s⟩}; ./run.sh",
    "export DB_PASSWORD=${DB_PASSWORD-⟨PASSWORD|Hunt3r2Xq9⟩}",
    "export DB_PASSWORD=${DB_PASSWORD:-${VAULT_DB_PW:-⟨PASSWORD|Hunt3r2Xq9⟩}}",
    "export GITHUB_TOKEN=${GITHUB_TOKEN:=⟨GITHUB_TOKEN|ghp_FAKEexample0123456789abcdefghijklmno⟩}",
    'TOKEN="${GITHUB_TOKEN:-⟨GITHUB_TOKEN|ghp_FAKEexample0123456789abcdefghijklmno⟩}"',
    "export AWS_SECRET_ACCESS_KEY=${AWS_SECRET_ACCESS_KEY:+⟨AWS_SECRET_KEY|wJalrEXAMPLEfake/K7MDENG+bPxRfiCY012345Z⟩}",
    "export AWS_SECRET_ACCESS_KEY=${AWS_SECRET_ACCESS_KEY:-⟨AWS_SECRET_KEY|wJalrEXAMPLEfake/K7MDENG+bPxRfiCY012345Z⟩}",
    # the true positives beside them: a password with a brace in it, an inline map's value
    "DB_PASSWORD=⟨PASSWORD|Xk9}mQ2!pL#a⟩",
    "{user: app, password: ⟨PASSWORD|Xk9$mQ2!pL#a⟩}, next",
]


@pytest.mark.parametrize("template", SHELL)
def test_a_shell_expansion_keeps_its_syntax(red: Any, template: str) -> None:
    line = plain(template)
    assert text_out(red, line)[0] == want(template)
    assert command_out(red, line) == want(template)


def test_a_script_of_expansions(red: Any) -> None:
    script = "#!/usr/bin/env bash\n" + "\n".join(SHELL) + "\n"
    assert text_out(red, plain(script))[0] == want(script)


# ---------------------------------------------------------------- 2. credentials in forge URLs

URLS = [
    "git clone https://gitlab-ci-token:⟨GITLAB_TOKEN|glcbt-64_FAKEexample0123456789ab⟩@gitlab.example.com/group/repo.git",
    "git clone https://oauth2:⟨GITLAB_TOKEN|glpat-FAKEexample0123456789⟩@gitlab.example.com/group/repo.git",
    "git clone https://oauth2:⟨URL_PASSWORD|Xk9f2LmQ8vR3tZ7wYp4sQ⟩@gitlab.example.com/group/repo.git",
    "git push https://x-access-token:⟨GITHUB_TOKEN|ghs_FAKEexample0123456789abcdefghijklmno⟩@github.com/o/r.git",
    "remote: https://api-key:⟨URL_PASSWORD|Xk9f2LmQ8vR3tZ7w⟩@host.acme-corp.io/x",
    # a token as the URL's user: the token's own rule, the host stays
    "git clone https://⟨GITHUB_TOKEN|ghp_FAKEexample0123456789abcdefghijklmno⟩@github.com/o/r.git",
    "git clone https://⟨GITLAB_TOKEN|glpat-FAKEexample0123456789⟩@gitlab.acme-corp.io/g/r.git",
    # the true positives beside them: a token stated in a sentence after a URL, an e-mail address
    "curl https://api.acme.io:8443/v1 then the token: ⟨SECRET|Hq7vT2mZp9Lx4RkW⟩",
    "mail ⟨EMAIL|jo.doe@acme-corp.io⟩ about https://oauth2:⟨URL_PASSWORD|Xk9f2LmQ8vR3tZ7wYp4sQ⟩@gitlab.acme-corp.io/g",
]


@pytest.mark.parametrize("template", URLS)
def test_a_forge_url_keeps_its_user_and_host(red: Any, template: str) -> None:
    line = plain(template)
    assert text_out(red, line)[0] == want(template)
    assert command_out(red, line) == want(template)


def test_a_forge_url_in_json_held_as_text(red: Any) -> None:
    """JSON held as text writes the slashes as `\\/` (a log line's payload)."""
    template = ('level=info payload={"url":"https:\\/\\/gitlab-ci-token:⟨GITLAB_TOKEN|glcbt-64_FAKEexample0123456789ab⟩'
                '@gitlab.acme-corp.io\\/g\\/r.git"}')
    assert text_out(red, plain(template))[0] == want(template)


# ---------------------------------------------------------------- 3. JSON numbers that are counters


def _record(output: dict[str, Any]) -> bytes:
    return json.dumps({"type": "user", "toolUseResult": {"stdout": "", "output": output}}).encode()


@pytest.mark.parametrize("key,number", [
    ("build_number", 4111111111111111), ("buildNumber", 4111111111111111), ("elapsed_ns", 5105105105105100),
    ("elapsedNs", 5105105105105100), ("bytes", 4012888888881881), ("total_bytes", 4012888888881881),
    ("file_size", 4012888888881881), ("inode", 378282246310005), ("st_ino", 378282246310005),
    ("count", 4111111111111111), ("duration", 4111111111111111), ("run_no", 4111111111111111),
])
def test_a_counter_number_is_no_card(red: Any, key: str, number: int) -> None:
    line = _record({key: number, "card_number": 4111111111111111})
    out = red.redact_jsonl_line(line, RedactionReport())
    card = want("⟨CREDIT_CARD|4111111111111111⟩")
    assert out == (b'{"type":"user","toolUseResult":{"stdout":"","output":{"%s":%d,"card_number":"%s"}}}'
                   % (key.encode(), number, card.encode()))


@pytest.mark.parametrize("key", ["card_number", "cc", "pan", "cardNumber", "number", "value"])
def test_a_card_under_a_card_key_goes_as_number_and_as_string(red: Any, key: str) -> None:
    card = want("⟨CREDIT_CARD|4111111111111111⟩").encode()
    for value in (4111111111111111, "4111111111111111"):
        report = RedactionReport()
        out = red.redact_jsonl_line(_record({key: value}), report)
        assert out == b'{"type":"user","toolUseResult":{"stdout":"","output":{"%s":"%s"}}}' % (key.encode(), card)
        assert report.by_rule() == {"credit-card-visa": 1}


# ---------------------------------------------------------------- 4. a label far from the number

_FILLER = "".join(f"step {i:02d}: fetched the next page of results, nothing unusual to report\n" for i in range(28))


def _tool_output(head: str, tail: str) -> str:
    """A ~2,000-character tool output: `head` on its first line, `tail` on its last."""
    text = f"{head}\n{_FILLER}{tail}\n"
    assert len(text) > 1900
    return text


@pytest.mark.parametrize("head,tail", [
    ("Columns checked: name, SSN, dob", "order id 123456789 shipped, build 123456789 passed"),
    ("Validating PESEL numbers", "build 44051401359 passed"),
    ("TFN lookup enabled", "build 123456782 passed"),
    ("Aadhaar e-KYC service v2", "order 997543231948 shipped"),
    ("CPF validation on", "build 61558847146 passed"),
    ("DNI checks: on", "artifact 79542205V uploaded"),
    ("Steuer-ID module loaded", "job 65929970489 done"),
    ("the BSNs are validated below", "build 945807302 passed"),
    ("personnummer parser ready", "ticket 811218-9876 closed"),
    ("CPR service up", "build 070761-4285 passed"),
    ("My Number field added", "order 197100201184 shipped"),
    ("RRN masking enabled", "build 6711041250392 passed"),
    ("resident ID parser", "trace 510107199109099173 sampled"),
    ("NINO format check", "image JK846319B pushed"),
    ("NIR validation", "build 184127645108946 passed"),
    ("income tax module", "build AFKPT7731Q passed"),
])
def test_a_label_far_up_arms_no_number_below(red: Any, head: str, tail: str) -> None:
    text = _tool_output(head, tail)
    assert text_out(red, text) == (text, {})
    record = json.dumps({"type": "user", "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_01S30SpanFps", "content": text}]}}).encode()
    assert red.redact_jsonl_line(record, RedactionReport()) == record


@pytest.mark.parametrize("tail", [
    "patient PESEL: ⟨NATIONAL_ID|44051401359⟩",
    "Jan Kowalski, ⟨NATIONAL_ID|44051401359⟩ (PESEL)",
    "payroll: TFN ⟨NATIONAL_ID|123 456 782⟩",
    "SSN: ⟨SSN|123-45-6789⟩",
    "the BSNs ⟨NATIONAL_ID|945807302⟩ and ⟨NATIONAL_ID|111222333⟩",
    "DNIs: ⟨NATIONAL_ID|79542205V⟩, ⟨NATIONAL_ID|12345678Z⟩",
])
def test_a_number_next_to_its_label_still_goes(red: Any, tail: str) -> None:
    text = _tool_output("nightly export", tail)
    assert text_out(red, plain(text))[0] == want(text)


def test_a_csv_under_an_id_header_loses_every_row(red: Any) -> None:
    pesels = ["44051401359", "94110424810", "51081269000", "02070803628"]
    rows = "".join(f"{i},Customer Number {i} With A Long Name,{p},Warszawa\n" for i, p in enumerate(pesels * 3))
    csv = "id,name,pesel,city\n" + rows
    out = text_out(red, csv)[0]
    assert out == "id,name,pesel,city\n" + "".join(
        f"{i},Customer Number {i} With A Long Name,{want(f'⟨NATIONAL_ID|{p}⟩')},Warszawa\n"
        for i, p in enumerate(pesels * 3))


# ---------------------------------------------------------------- 5. documentation values


@pytest.mark.parametrize("ip", ["8.8.8.8", "8.8.4.4", "1.1.1.1", "1.0.0.1", "9.9.9.9"])
def test_a_public_resolver_is_no_ones_address(red: Any, ip: str) -> None:
    line = f"nameserver {ip}\nssh admin@93.184.216.34"
    assert text_out(red, line)[0] == f"nameserver {ip}\nssh admin@{want('⟨IP|93.184.216.34⟩')}"
