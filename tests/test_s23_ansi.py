"""Colour codes inside a token: `grep --color` highlights only the matched part of a line, so a
code lands between two characters of one token (`ghp_\\x1b[m\\x1b[K<body>`). The engine scans the
text as displayed too (those codes deleted) and replaces the whole original span, codes included,
with the token the uncoloured secret gets."""

from __future__ import annotations

import json
import random
import re

import pytest

from archiver.redact.base import RedactionReport
from archiver.redact.engine import MODE_ALL, MODE_KEYS, MODE_PATHS, Engine
from archiver.redact.redactor import RuleRedactor
from tests.fx_redact import builtin_redactor

KEY = b"s23-ansi-team-key-0123456789abcdef"
GHP_BODY = "R8fJ2kLm9QwErTyUiOpAsDfGhJkLzXcVbN12"
GHP = "ghp_" + GHP_BODY
AWS = "AKIAQYLPMN5HHHFPZAM2"
ANT = "sk-ant-api03-" + "Zq8Xw2Lm4Nv6Bc1Df3Gh5Jk7Lp9Qr0St2Uv4Wx6Yz8Ab1Cd3Ef5Gh7Ij9Kl1Mn3Op5Qr7St9Uv1Wx3Yz5A-_bCdEfGhAA"
EMAIL = "bob.stone@northwind.io"
HL = "\x1b[01;31m\x1b[K"  # grep --color=always: start of the highlighted match
END = "\x1b[m\x1b[K"  # and its end
TOKEN = re.compile(rb"<[A-Z_]+:[0-9a-f]{8}>")
CODE = re.compile(rb"\x1b|\\u001b|\^\[")


@pytest.fixture(scope="module")
def red() -> RuleRedactor:
    return builtin_redactor(KEY, usernames=["alice"])


@pytest.fixture(scope="module")
def eng(red: RuleRedactor) -> Engine:
    return red.engine


def redact(eng: Engine, text: str) -> bytes:
    return eng.redact_bytes(text.encode(), RedactionReport())


def token_of(eng: Engine, secret: str) -> bytes:
    """The token the uncoloured secret gets, alone on a line."""
    out = redact(eng, f"x {secret} x")
    found = TOKEN.findall(out)
    assert len(found) == 1, out
    return found[0]


# ------------------------------------------------------------------ grep --color inside a token

@pytest.mark.parametrize(("line", "secret", "head", "tail"), [
    # the prefix highlighted (grep --color ghp_ .env)
    (f"GITHUB_TOKEN={HL}ghp_{END}{GHP_BODY}\n", GHP, f"GITHUB_TOKEN={HL}", "\n"),
    # with grep -n's coloured file name and line number before it
    (f"\x1b[35m\x1b[K.env\x1b[m\x1b[K\x1b[36m\x1b[K:\x1b[m\x1b[K\x1b[32m\x1b[K3\x1b[m\x1b[K\x1b[36m\x1b[K:\x1b[m\x1b[K"
     f"GITHUB_TOKEN={HL}ghp_{END}{GHP_BODY}\n", GHP,
     f"\x1b[35m\x1b[K.env\x1b[m\x1b[K\x1b[36m\x1b[K:\x1b[m\x1b[K\x1b[32m\x1b[K3\x1b[m\x1b[K\x1b[36m\x1b[K:\x1b[m\x1b[K"
     f"GITHUB_TOKEN={HL}", "\n"),
    # the middle of a token highlighted
    (f"token {GHP[:10]}{HL}{GHP[10:20]}{END}{GHP[20:]} ok", GHP, "token ", " ok"),
    (f"export ANTHROPIC_API_KEY={HL}sk-ant-api03-{END}{ANT[13:]}\n", ANT, f"export ANTHROPIC_API_KEY={HL}", "\n"),
    (f"aws_access_key_id = {HL}AKIA{END}{AWS[4:]}\n", AWS, f"aws_access_key_id = {HL}", "\n"),
    # an e-mail's domain highlighted: the code after it is followed by a space, it stays
    (f"reply to <bob.stone@{HL}northwind.io{END}>", EMAIL, "reply to <", f"{END}>"),
])
def test_grep_colour_inside_a_token_is_replaced_whole(eng: Engine, line: str, secret: str, head: str,
                                                      tail: str) -> None:
    out = redact(eng, line)
    assert out == head.encode() + token_of(eng, secret) + tail.encode()


@pytest.mark.parametrize("spelling", ["\\u001b", "\\u001B", "\\x1b", "\\033", "^["])
def test_colour_codes_spelled_as_text_inside_a_token(eng: Engine, spelling: str) -> None:
    """A JSON log read as text, `cat -v`, a repr: the same codes as text (`\\u001b[01;31m`)."""
    hl, end = (c.replace("\x1b", spelling) for c in (HL, END))
    line = f'"output": "GITHUB_TOKEN={hl}ghp_{end}{GHP_BODY}\\n"'
    out = redact(eng, line)
    assert out == f'"output": "GITHUB_TOKEN={hl}'.encode() + token_of(eng, GHP) + b'\\n"'


def test_jsonl_record_with_json_escaped_codes(red: RuleRedactor, eng: Engine) -> None:
    """A Claude Code tool_result holding grep --color output: json.dumps writes ESC as \\u001b."""
    stdout = f".env:3:GITHUB_TOKEN={HL}ghp_{END}{GHP_BODY}\n"
    record = {"type": "user", "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_01ABCDEFGHJKLMNPQRSTUVWX", "content": stdout}]},
        "toolUseResult": {"stdout": stdout, "stderr": ""}}
    line = json.dumps(record).encode()
    assert b"\\u001b[01;31m\\u001b[Kghp_\\u001b[m\\u001b[K" + GHP_BODY.encode() in line
    out = red.redact_jsonl_line(line, RedactionReport())
    assert GHP_BODY[:12].encode() not in out and GHP_BODY[-12:].encode() not in out
    doc = json.loads(out)
    want = f".env:3:GITHUB_TOKEN={HL}" + token_of(eng, GHP).decode() + "\n"
    assert doc["toolUseResult"]["stdout"] == want
    assert doc["message"]["content"][0]["content"] == want
    assert doc["message"]["content"][0]["tool_use_id"] == "toolu_01ABCDEFGHJKLMNPQRSTUVWX"


def test_several_codes_inside_one_token(eng: Engine) -> None:
    line = f"key={GHP[:6]}\x1b[1m{GHP[6:9]}\x1b[0m\x1b[4m{GHP[9:30]}\x1b[24m{GHP[30:]}\x1b[0m;"
    assert redact(eng, line) == b"key=" + token_of(eng, GHP) + b"\x1b[0m;"


def test_the_replaced_span_is_the_token_in_the_original(eng: Engine) -> None:
    """Starts at the token's first character, ends after its last, the codes between inside."""
    line = f"x \x1b[1m{HL}ghp_{END}{GHP_BODY}\x1b[0m y".encode()
    (m,) = eng.scan_bytes(line)
    assert m.rule_id == "github-pat"
    assert line[:m.start] == f"x \x1b[1m{HL}".encode()
    assert line[m.end:] == b"\x1b[0m y"
    assert line[m.start:m.end].replace(END.encode(), b"") == GHP.encode()


def test_offsets_in_characters_for_str_input(eng: Engine) -> None:
    text = f"café ☕ {HL}AKIA{END}{AWS[4:]} fin"
    (m,) = eng.scan(text)
    assert text[m.start:m.end] == f"AKIA{END}{AWS[4:]}"
    assert eng.redact(text, None) == f"café ☕ {HL}" + token_of(eng, AWS).decode() + " fin"


# ------------------------------------------------------------------ what stays as it was

@pytest.mark.parametrize(("line", "spans"), [
    # codes around the token (already found by the blanked scan): the same span as without codes
    (f"GITHUB_TOKEN=\x1b[31m{GHP}\x1b[0m\n", [("github-pat", 18, 58)]),
    (f"GITHUB_TOKEN={HL}{GHP}{END}\n", [("github-pat", 24, 64)]),
    ("password=\x1b[1mhunter2xyz", [("password-assignment-unquoted", 13, 23)]),
    ("\x1b[01;31m\x1b[Kpassword\x1b[m\x1b[K: Sup3rS3cretPw!", [("password-assignment-unquoted", 27, 41)]),
    ("/home/alice/\x1b[01;34mdir\x1b[0m", [("home-linux", 6, 11)]),
])
def test_codes_around_a_token_keep_todays_spans(eng: Engine, line: str, spans: list[tuple[str, int, int]]) -> None:
    assert [(m.rule_id, m.start, m.end) for m in eng.scan_bytes(line.encode())] == spans


def test_codes_around_a_token_keep_todays_token(eng: Engine) -> None:
    assert redact(eng, f"t=\x1b[31m{GHP}\x1b[0m") == b"t=\x1b[31m" + token_of(eng, GHP) + b"\x1b[0m"


@pytest.mark.parametrize("line", [
    "ERROR\x1b[0m: failed",
    "\x1b[31mERROR\x1b[0m: build\x1b[1m-\x1b[0mstep failed at src/main.rs\x1b[2m:\x1b[0m12",
    # pytest -v output, dots glued to each other
    "tests/test_x.py \x1b[32m.\x1b[0m\x1b[32m.\x1b[0m\x1b[31mF\x1b[0m\x1b[32m.\x1b[0m [100%]",
    # ls --color
    "\x1b[0m\x1b[01;34mbuild\x1b[0m  \x1b[01;32mrun.sh\x1b[0m  README\x1b[01;31m.md\x1b[0m",
    "\\u001b[1mWarning\\u001b[0m: unused variable `x`",
])
def test_colour_between_ordinary_words_changes_nothing(eng: Engine, line: str) -> None:
    assert eng.scan_bytes(line.encode()) == []
    assert redact(eng, line) == line.encode()


def test_coloured_git_log_keeps_its_shas(eng: Engine) -> None:
    rng = random.Random(23)
    shas = ["".join(rng.choice("0123456789abcdef") for _ in range(7)) + "f" for _ in range(4)]
    full = "".join(rng.choice("0123456789abcdef") for _ in range(39)) + "e"
    log = (f"\x1b[33m{shas[0]}\x1b[m\x1b[33m (\x1b[m\x1b[1;36mHEAD -> \x1b[m\x1b[1;32mmain\x1b[m\x1b[33m)\x1b[m Fix x\n"
           f"\x1b[33m{shas[1]}\x1b[m Merge branch '\x1b[1mfeat\x1b[m'\n"
           f"\x1b[33m{shas[2][:3]}\x1b[1m{shas[2][3:]}\x1b[m glued sha\n"
           f"\x1b[33mcommit {full}\x1b[m\n{shas[3]}\x1b[31m{shas[3]}\x1b[m\n")
    assert redact(eng, log) == log.encode()


# ------------------------------------------------------------------ one string or many

FRAGS = [GHP[:9], GHP[9:], "ghp_", GHP_BODY, AWS[:4], AWS[4:], ANT[:13], ANT[13:], "bob.stone@", "northwind.io",
         "\x1b[01;31m\x1b[K", "\x1b[m\x1b[K", "\x1b[0m", "\\u001b[1m", "^[[m", " ", "=", "\n", "ERROR", ": ",
         "/home/alice/", "password=", "token ", "3f786850e387550fdab836ed7e6dc881de23001b", "\x07", "\x1b]0;t"]
FRAGS += [GHP[:4], GHP[4:], "\x1b[m\x1b[K", "\x1b[1m"] * 2  # more tokens cut by codes


def test_scan_segments_equals_each_string_scanned_alone(eng: Engine) -> None:
    rng = random.Random(20260323)
    found = glued = 0
    for _ in range(600):
        parts = ["".join(rng.choice(FRAGS) for _ in range(rng.randint(0, 9))).encode() for _ in range(rng.randint(1, 5))]
        modes = [rng.choice((MODE_ALL, MODE_ALL, MODE_KEYS, MODE_PATHS)) for _ in parts]
        expected = {i: ms for i, p in enumerate(parts) if (ms := eng.scan_bytes(p, modes[i]))}
        assert eng.scan_segments(parts, modes) == expected, parts
        found += sum(len(v) for v in expected.values())
        glued += sum(1 for i, ms in expected.items() for m in ms if CODE.search(parts[i][m.start:m.end]))
    assert found > 300 and glued > 25, (found, glued)


def test_replacements_never_overlap_and_leave_no_secret_piece(eng: Engine) -> None:
    rng = random.Random(7)
    pieces = [GHP[:4], GHP[4:20], GHP[20:]]
    for _ in range(200):
        codes = [rng.choice(["", "\x1b[1m", "\x1b[m\x1b[K", "\\u001b[31m"]) for _ in pieces]
        line = "v=" + "".join(c + p for c, p in zip(codes, pieces)) + " " + rng.choice(["", EMAIL, AWS])
        ms = eng.scan_bytes(line.encode())
        assert all(a.end <= b.start for a, b in zip(ms, ms[1:])), line
        out = redact(eng, line)
        assert GHP_BODY[:8].encode() not in out and GHP_BODY[-8:].encode() not in out, out
