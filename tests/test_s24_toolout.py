"""s24 recall audit: every tool-output shape of tests/fx_s24_toolout.py (curl -v, HAR, httpie,
docker, kubectl, helm, terraform, aws, gcloud, az, vault, heroku, vercel, supabase, firebase,
stripe, env dumps, git/npm/pip config, .netrc, .pgpass, ps, /proc cmdlines, CI logs, openssl,
JDBC/ODBC, stack traces, requests logs, Postman, Insomnia, Playwright, .http files), drawn under two
seeds, loses every planted secret and keeps the words around it (hosts, service users, header
names), redacted as plain text and as a Claude Code tool_result (the block and its toolUseResult
sidecar); the look-alikes of KEPT come out byte for byte; and the shapes the probe found leaking
are found by the rule that now reads them."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fx_redact import builtin_redactor, claude_tool_result_redacted, redacted
from tests.fx_s16_tokens import survivors
from tests.fx_s24_toolout import KEPT, Shape, shapes

KEY = b"s24-toolout-audit-test-key-0123456789abcdef"
SEEDS = (24, 4242)
CARRIERS = ("text", "claude")

# (shape, carrier): why it still leaks (the fix is outside this task's files; see the s24 report)
GAPS: dict[tuple[str, str], str] = {}  # terraform show -json's random_password `values`: read since s24 (lead)

# shapes the s24 probe found leaking, and the rule that finds them now in plain text
FIXED = {
    "har-cookie-header": "cookie-session",
    "har-cookie-header-h2": "cookie-session",
    "har-set-cookie": "cookie-session",
    "har-set-cookie-opaque-name": "set-cookie-httponly",
    "har-proxy-authorization": "json-name-value-secret",
    "har-cookies-array": "json-cookie-value",
    "har-cookies-array-opaque": "json-cookie-value",
    "httpie-session-file": "json-cookie-value",
    "har-query-string": "url-query-api-key",
    "query-appid": "url-query-api-key",
    "query-key-hex": "url-query-api-key",
    "docker-inspect-cmd": "argv-secret-flag",
    "proc-cmdline-nul": "argv-secret-flag",
    "terraform-output-json": "json-secret-object-value",
    "aws-ssm-get-parameters-by-path": "aws-securestring-value",
    "redis-config-get": "redis-config-get-password",
    "openssl-pass": "openssl-k-password",
    "postman-collection": "json-name-value-secret",
    "postman-apikey-auth": "json-secret-object-value",
}
# ... and those that leaked only inside a transcript (the JSON walker's name/value pairs)
FIXED_IN_JSON = ("har-cookies-array", "har-cookies-array-opaque", "har-cookie-header-h2", "har-query-string",
                 "aws-ssm-get-parameters-by-path", "az-storage-account-keys", "postman-apikey-auth",
                 "playwright-storage-state", "httpie-session-file")


@pytest.fixture(scope="module")
def red():  # noqa: ANN201
    return builtin_redactor(KEY, usernames=["dev"])


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    d = tmp_path_factory.mktemp("s24toolout")
    os.chmod(d, 0o700)
    yield d


CASES = [(seed, s) for seed in SEEDS for s in shapes(seed)]


def _outputs(red, folder: Path, carrier: str, text: str) -> list[str]:  # noqa: ANN001
    """What a reviewer reads back: the text, or the tool_result block, its sidecar and the raw line."""
    if carrier == "text":
        return [redacted(red, text)[0]]
    line, block, side, _ = claude_tool_result_redacted(red, folder, text)
    return [block, side, line.decode()]


def test_the_generator_covers_sixty_shapes_with_fresh_secrets() -> None:
    a, b = shapes(SEEDS[0]), shapes(SEEDS[1])
    assert len(a) >= 60 and len({s.name for s in a}) == len(a)
    assert all(s.secrets and all(len(x) >= 12 for x in s.secrets) for s in a)
    assert all(x not in t.text for s, t in zip(a, b) for x in s.secrets)  # bodies drawn, not literals


@pytest.mark.parametrize("carrier", CARRIERS)
@pytest.mark.parametrize("seed,shape", CASES, ids=[f"{seed}-{s.name}" for seed, s in CASES])
def test_no_planted_secret_survives_and_the_context_stays(red, folder: Path, seed: int, shape: Shape,  # noqa: ANN001
                                                          carrier: str) -> None:
    gap = GAPS.get((shape.name, carrier))
    outs = _outputs(red, folder, carrier, shape.text)
    leaked = sorted({b[:4] + "..." for out in outs for b in survivors(shape.secrets, out)})
    if gap is not None:
        assert leaked, f"{shape.name} in {carrier} no longer leaks: drop it from GAPS"
        pytest.xfail(gap)
    assert not leaked, (shape.name, carrier, leaked)
    lost = [w for w in shape.keep if w not in outs[0]]
    assert not lost, (shape.name, carrier, lost)


@pytest.mark.parametrize("carrier", CARRIERS)
@pytest.mark.parametrize("name,text", KEPT, ids=[n for n, _ in KEPT])
def test_look_alikes_come_out_byte_for_byte(red, folder: Path, name: str, text: str, carrier: str) -> None:  # noqa: ANN001
    outs = _outputs(red, folder, carrier, text)
    assert outs[0] == text, (name, carrier, outs[0])
    if carrier == "claude":
        assert outs[1] == text


BY_NAME = {s.name: s for s in shapes(SEEDS[0])}


@pytest.mark.parametrize("name,rule", sorted(FIXED.items()))
def test_a_shape_that_leaked_is_found_by_its_rule(red, name: str, rule: str) -> None:  # noqa: ANN001
    _, by_rule = redacted(red, BY_NAME[name].text)
    assert by_rule.get(rule, 0) >= 1, (name, by_rule)


@pytest.mark.parametrize("name", FIXED_IN_JSON)
def test_a_shape_that_leaked_in_a_transcript_is_gone_there(red, folder: Path, name: str) -> None:  # noqa: ANN001
    s = BY_NAME[name]
    _, block, side, by_rule = claude_tool_result_redacted(red, folder, s.text)
    assert not survivors(s.secrets, block) and not survivors(s.secrets, side), (name, by_rule)
    assert set(by_rule) & {"json-cookie-value", "url-query-api-key", "aws-securestring-value", "cookie-session",
                           "azure-storage-key-list", "secret-assignment-quoted", "api-key-header"}, by_rule
