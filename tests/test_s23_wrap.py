"""A token cut by a terminal's line wrap (`line[:W] + "\\n" + line[W:]`): the engine continues a
prefixed token's head over the break when the head line is a plausible wrap (80+ columns, or a
narrower width proved by a full continuation line) and the pieces joined make one
high-confidence token. The replacement covers head, break and tail, with the pseudonym the
unwrapped token gets. A whole token at a line's end never takes the next line's word."""

from __future__ import annotations

import json
import re

import pytest

from archiver.redact.base import RedactionReport
from archiver.redact.engine import MODE_ALL, Engine
from archiver.redact.redactor import RuleRedactor
from tests.fx_redact import builtin_redactor

KEY = b"s23-wrap-team-key-0123456789abcdef"
GHP = "ghp_" + "R8fJ2kLm9QwErTyUiOpAsDfGhJkLzXcVbN12"
PAT = "github_pat_" + "11ABCDEFG0Qz8Xw2Lm4Nv6" + "_" + "Bc1Df3Gh5Jk7Lp9Qr0St2Uv4Wx6Yz8Ab1Cd3Ef5Gh7Ij9Kl1Mn3Op5Qr7St"
GLPAT = "glpat-" + "Zq8Xw2Lm4Nv6Bc1Df3Gh"
ANT = "sk-ant-api03-" + "Zq8Xw2Lm4Nv6Bc1Df3Gh5Jk7Lp9Qr0St2Uv4Wx6Yz8Ab1Cd3Ef5Gh7Ij9Kl1Mn3Op5Qr7St9Uv1Wx3Yz5A-_bCdEfGhAA"
AWS = "AKIAQYLPMN5HHHFPZAM2"
TOKEN = re.compile(rb"<[A-Z_]+:[0-9a-f]{8}>")
LABEL = "Using credentials from the keychain entry for github.com:"  # 57 columns


@pytest.fixture(scope="module")
def red() -> RuleRedactor:
    return builtin_redactor(KEY, usernames=["alice"])


@pytest.fixture(scope="module")
def eng(red: RuleRedactor) -> Engine:
    return red.engine


def redact(eng: Engine, text: str | bytes) -> bytes:
    return eng.redact_bytes(text.encode() if isinstance(text, str) else text, RedactionReport())


def token_of(eng: Engine, secret: str) -> bytes:
    """The token the unwrapped secret gets on a line of its own."""
    found = TOKEN.findall(redact(eng, f"x {secret} x"))
    assert len(found) == 1, found
    return found[0]


def wrapped(token: str, width: int, head: int, lead: str = "") -> str:
    """`lead` padded so that `head` characters of the token end the first line, the line
    wrapped at `width` the way a terminal capture prints it."""
    line = f"{lead:<{width - head}}{token}"
    return "\n".join(line[k:k + width] for k in range(0, len(line), width)) + "\n"


def assert_no_piece(out: bytes, secret: str, piece: int = 6) -> None:
    """No run of `piece` characters of the secret's random part is left in out."""
    body = secret.split("_")[-1] if secret.startswith("ghp_") else secret[len(secret) // 4:]
    left = [body[k:k + piece] for k in range(len(body) - piece + 1) if body[k:k + piece].encode() in out]
    assert not left, f"{len(left)} pieces of the secret left"


# ------------------------------------------------------------------ the audit's shape

def test_audit_shape_keychain_line_wrapped_at_80(eng: Engine) -> None:
    line = f"{LABEL:<56}{GHP}"
    text = line[:80] + "\n" + line[80:] + "\n"
    assert len(line[:80]) == 80 and line[80:] == GHP[23:]  # head: ghp_ + 19, too short for any rule alone
    out = redact(eng, text)
    assert out == (LABEL + "<GITHUB_TOKEN:").encode() + token_of(eng, GHP)[14:] + b"\n"
    ms = eng.scan_bytes(text.encode())
    assert [(m.rule_id, m.start, m.end) for m in ms] == [("github-pat", 57, 98)]


# ------------------------------------------------------------------ families, at 80 and 120 columns

CASES = [
    # (token, label, head lengths: characters of the token before the break; the prefix always whole)
    (GHP, "GITHUB_TOKEN", [5, 19, 24, 35]),
    (PAT, "GITHUB_TOKEN", [12, 40, 60, 92]),
    (GLPAT, "GITLAB_TOKEN", [7, 13, 25]),
    (ANT, "ANTHROPIC_API_KEY", [14, 60, 79, 100, 103]),
    (AWS, "AWS_ACCESS_KEY", [5, 12, 16, 19]),
]


@pytest.mark.parametrize("width", [80, 120])
@pytest.mark.parametrize(("secret", "label", "heads"), CASES, ids=[c[0][:6] for c in CASES])
def test_family_wrapped(eng: Engine, secret: str, label: str, heads: list[int], width: int) -> None:
    want = token_of(eng, secret)
    assert want.startswith(f"<{label}:".encode())
    for head in (h for h in heads if h < width - len("export TOKEN=")):
        text = wrapped(secret, width, head, "export TOKEN=")
        assert text.splitlines()[0].endswith(secret[:head]) and len(text.splitlines()[0]) == width
        out = redact(eng, text)
        assert out == (f"{'export TOKEN=':<{width - head}}".encode() + want + b"\n"), (head, out)
        assert_no_piece(out, secret)


@pytest.mark.parametrize(("width", "lead", "lines"), [(40, "export GH_TOKEN=", 3), (30, "T=", 4)])
def test_fine_grained_pat_wrapped_twice_or_more(eng: Engine, width: int, lead: str, lines: int) -> None:
    text = f"{lead}{PAT}"
    text = "\n".join(text[k:k + width] for k in range(0, len(text), width)) + "\nDone\n"
    assert text.count("\n") == lines + 1
    out = redact(eng, text)
    assert out == lead.encode() + token_of(eng, PAT) + b"\nDone\n"


def test_anthropic_key_wrapped_three_times_at_40(eng: Engine) -> None:
    text = wrapped(ANT, 40, 20, "key:")
    assert text.count("\n") == 4
    assert redact(eng, text) == f"{'key:':<20}".encode() + token_of(eng, ANT) + b"\n"


# ------------------------------------------------------------------ break forms

def test_json_escaped_break_in_text(eng: Engine) -> None:
    """JSON held as text (curl output, a log of records): the break is the two characters `\\n`."""
    line = f"{LABEL:<56}{GHP}"
    doc = json.dumps({"stdout": line[:80] + "\n" + line[80:] + "\n", "code": 0})
    assert "\\n" + GHP[23:] in doc
    out = redact(eng, "curl -s localhost:8080/run -> " + doc)
    assert out == ("curl -s localhost:8080/run -> " + '{"stdout": "' + LABEL).encode() + token_of(eng, GHP) \
        + b'\\n", "code": 0}'


def test_json_escaped_crlf_and_quote_starts_the_line(eng: Engine) -> None:
    """The first line of a JSON string starts after its quote; `\\r\\n` is one break."""
    doc = '{"out": "' + f"{'export TOKEN=':<64}{AWS}"[:80] + "\\r\\n" + AWS[16:] + '\\r\\n"}'
    assert redact(eng, doc) == b'{"out": "' + f"{'export TOKEN=':<64}".encode() + token_of(eng, AWS) + b'\\r\\n"}'


def test_crlf(eng: Engine) -> None:
    line = f"{LABEL:<56}{GHP}"
    text = line[:80] + "\r\n" + line[80:] + "\r\n"
    assert redact(eng, text) == LABEL.encode() + token_of(eng, GHP) + b"\r\n"


def test_jsonl_tool_result_through_redact_jsonl_line(red: RuleRedactor) -> None:
    line = f"{LABEL:<56}{GHP}"
    rec = {"type": "user", "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_01ABCDEFGHJKLMNPQRSTUVWX", "is_error": False,
         "content": line[:80] + "\n" + line[80:] + "\n"}]}}
    report = RedactionReport()
    out = red.redact_jsonl_line(json.dumps(rec).encode(), report)
    content = json.loads(out)["message"]["content"][0]
    assert content["content"] == LABEL + token_of(red.engine, GHP).decode() + "\n"
    assert content["tool_use_id"] == "toolu_01ABCDEFGHJKLMNPQRSTUVWX"
    assert GHP[23:].encode() not in out and GHP[:23].encode() not in out


def test_jsonl_lines_batch_same_as_one_by_one(red: RuleRedactor) -> None:
    """The batch path (scan_segments over many strings) continues the same tokens."""
    lines = []
    for secret, head in ((GHP, 19), (AWS, 14), (PAT, 40)):
        text = wrapped(secret, 80, head, "token:")
        lines.append(json.dumps({"type": "user", "toolUseResult": {"stdout": text, "stderr": ""}}).encode())
    lines.append(json.dumps({"type": "user", "toolUseResult": {"stdout": GHP + "\nDone\n"}}).encode())
    batch = red.redact_jsonl_lines(lines, RedactionReport())
    assert batch == [red.redact_jsonl_line(x, RedactionReport()) for x in lines]
    for (secret, out) in zip((GHP, AWS, PAT), batch):
        assert token_of(red.engine, secret) in out
        assert_no_piece(out, secret)
    assert b"\\nDone\\n" in batch[3]


def test_scan_segments_matches_scan_alone_and_a_separator_is_no_break(eng: Engine) -> None:
    line = f"{LABEL:<56}{GHP}"
    parts = [(line[:80] + "\n" + line[80:] + "\n").encode(), line[:80].encode(), line[80:].encode(),
             b"plain text", wrapped(AWS, 80, 14).encode()]
    got = eng.scan_segments(parts, [MODE_ALL] * len(parts))
    for i, p in enumerate(parts):
        assert got.get(i, []) == eng.scan_bytes(p), i
    assert [m.rule_id for m in got[0]] == ["github-pat"]
    assert 2 not in got  # the tail alone, in a string of its own, is nothing to continue
    assert 1 not in got  # (and ghp_ + 19 alone is too short for any rule)


# ------------------------------------------------------------------ negatives

@pytest.mark.parametrize("text", [
    # a whole token ends its line; the next line is a word (on a long line too)
    f"{GHP}\nDone\n",
    f"{'the token we rotated yesterday and stored in the vault for the CI runners:':<44}{GHP}\nDone\n",
    f"{'the token we rotated yesterday and stored in the vault for the CI runners:':<60}{AWS}\nEXPORT\n",
    f"{AWS}\nexport X=1\n",
    f"{'aws_access_key_id =':<60}{AWS}\nexport X=1\n",
    f"{'the gitlab token for the deploy job, rotated by the nightly pipeline:':<74}{GLPAT}\nDone\n",
    f"{'the gitlab token for the deploy job, rotated by the nightly pipeline:':<74}{GLPAT}\nREADME\n",
])
def test_whole_token_does_not_take_the_next_word(eng: Engine, text: str) -> None:
    secret = next(s for s in (GHP, AWS, GLPAT) if s in text)
    head, _, rest = text.partition(secret)
    out = redact(eng, text)
    assert out == head.encode() + token_of(eng, secret) + rest.encode()


def test_head_of_odd_length_on_a_long_line_keeps_a_word(eng: Engine) -> None:
    """`ghp_` + 25 then `Done`: joined it is no whole token (29 characters), so the word stays and
    the head alone is what github-token-odd-length takes."""
    short = GHP[:29]
    text = f"{'a line of a log that is long enough to look like a terminal line:':<60}{short}\nDone\n"
    out = redact(eng, text)
    assert out.endswith(b"\nDone\n") and short.encode() not in out
    assert [m.rule_id for m in eng.scan_bytes(text.encode())] == ["github-token-odd-length"]


def test_open_ended_whole_token_then_a_word_like_tail(eng: Engine) -> None:
    """sk-ant-api03- takes 80 or more characters: a head that long is a whole token by itself, so
    a tail that reads as a word (here the key's last `A`, a fixed suffix) is not taken: the cost
    of never swallowing `Done` after a whole glpat-/sk-ant- token. A random tail is taken."""
    text = wrapped(ANT, 120, 105, "export TOKEN=")
    assert text.endswith("\nA\n")
    assert redact(eng, text).endswith(b">\nA\n")
    assert [m.rule_id for m in eng.scan_bytes(text.encode())] == ["anthropic-api-key"]


def test_short_line_is_no_wrap(eng: Engine) -> None:
    """A line under 80 columns ends where its writer ended it: its head is not continued (the
    head `ghp_` + 24 is still taken alone, the next line stays as written)."""
    text = f"token: {GHP[:28]}\n{GHP[28:]}\n"
    out = redact(eng, text)
    assert out.endswith(f"\n{GHP[28:]}\n".encode())
    assert [m.rule_id for m in eng.scan_bytes(text.encode())] == ["github-token-odd-length"]


def test_next_line_with_a_token_of_its_own(eng: Engine) -> None:
    """Two whole tokens on consecutive full lines: each is its own token, nothing joins them."""
    text = f"{'first:':<44}{GHP}\n{AWS}\n"
    assert redact(eng, text) == f"{'first:':<44}".encode() + token_of(eng, GHP) + b"\n" + token_of(eng, AWS) + b"\n"


# ------------------------------------------------------------------ the pseudonym and the report

def test_one_pseudonym_and_one_finding(eng: Engine) -> None:
    text = wrapped(GHP, 80, 19, "a") + f"and again {GHP} here\n"
    report = RedactionReport()
    out = eng.redact_bytes(text.encode(), report)
    assert TOKEN.findall(out) == [token_of(eng, GHP)] * 2
    assert report.by_rule() == {"github-pat": 2}
    ms = eng.scan_bytes(text.encode())
    assert [m.rule_id for m in ms] == ["github-pat", "github-pat"]


# ------------------------------------------------------------------ which rules are prefixed token rules

def test_vendor_prefixes_read_from_the_regex() -> None:
    from archiver.redact.termwrap import vendor_prefixes
    assert vendor_prefixes(r"(?:\\[nrt]|\b)(gh[pousr]_(?:[A-Za-z0-9]{20,35}|[A-Za-z0-9]{37,80}))\b") == (
        "ghp_", "gho_", "ghu_", "ghs_", "ghr_")
    # the 3-character alternative is left out, the others count
    assert vendor_prefixes(r"(?:\\[nrt]|\b)((?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16})\b") == (
        "AKIA", "ASIA", "ABIA", "ACCA")
    assert vendor_prefixes(r"(?:\\[nrt]|\b)((?:glpat|gldt|glrt|glptt)-[A-Za-z0-9_-]{12,100})\b") == (
        "glpat-", "gldt-", "glrt-", "glptt-")
    assert vendor_prefixes(r"(?:\\[nrt]|\b)(hf_[A-Za-z0-9]{34})\b") == ()  # 3 characters: ordinary text has them
    assert vendor_prefixes(r"(?:\\[nrt]|\b)([A-Za-z0-9]{32})\b") == ()  # no prefix
    assert vendor_prefixes(r"(?i)\bpassword\s*=\s*(\S+)") == ()  # not the prefixed-token convention


def test_three_character_prefix_is_not_continued(eng: Engine) -> None:
    """hf_ + 34: a wrapped Hugging Face token is left to its own rules (its head and tail pieces)."""
    hf = "hf_" + "Zq8Xw2Lm4Nv6Bc1Df3Gh5Jk7Lp9Qr0St2Uv"
    text = wrapped(hf, 80, 24, "downloading the model with")
    ms = eng.scan_bytes(text.encode())
    assert [(m.rule_id, m.end) for m in ms] == [("huggingface-token-odd-length", 80)]
