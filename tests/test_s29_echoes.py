"""A value a rule found by its context is also replaced where else it appears in the same unit of
redaction (archiver/redact/echoes.py): a labelled phone number said again, an SSN echoed in a
stack trace, a password repeated in the same tool output. Found by an independent red team: the
placeholder sat right beside the clear copy. The unit is one text buffer or one JSON document
(one JSONL line): never across JSONL lines, which are redacted one by one.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from archiver.redact.base import RedactionReport
from archiver.redact.echoes import ECHO_MIN, echo_matches, echoable, found_values, with_echoes
from archiver.redact.engine import Match
from tests.fx_redact import builtin_redactor

RED = builtin_redactor(b"e" * 32)


def _text(s: str) -> tuple[str, RedactionReport]:
    report = RedactionReport()
    return RED.redact_text(s, report), report


def _tokens(s: str) -> list[str]:
    import re
    return re.findall(r"<[A-Z_]+:[0-9a-f]{8}>", s)


@pytest.mark.parametrize("value,want", [
    (b"0170 4829137", True),  # digits
    (b"008129540", True),
    (b"Marcus Okafor", True),  # two words
    (b"a.b@c.io", True),
    (b"Xk30iysKxSfo8A9q", True),  # long enough to be no word
    (b"Account", False),  # one word: a person-name false positive must not spread
    (b"hunter", False),
    (b"12345", False),  # shorter than ECHO_MIN
])
def test_which_values_are_echoed(value: bytes, want: bool) -> None:
    assert echoable(value) is want
    assert ECHO_MIN == 6


def _m(start: int, end: int) -> Match:
    return Match("r", start, end, "L", "<L>")


def test_an_echo_glued_to_a_letter_or_digit_or_overlapping_a_match_is_none() -> None:
    text = b"id 123456 x123456 1234567 123456; (123456)"
    ms = [_m(3, 9)]
    values = found_values([(text, ms)])
    assert list(values) == [b"123456"]
    got = [(m.start, m.end) for m in echo_matches(text, values, ms)]
    assert got == [(26, 32), (35, 41)]  # not x123456, not 1234567, not the match itself
    assert [text[s:e] for s, e in got] == [b"123456", b"123456"]
    assert with_echoes(text, []) == []
    assert [m.start for m in with_echoes(text, ms)] == [3, 26, 35]


def test_a_labelled_phone_said_again_in_the_line_gets_the_same_token() -> None:
    out, report = _text("Phone: 0170 4829137 (mobile), or call 0170 4829137 after 6pm")
    tokens = _tokens(out)
    assert len(tokens) == 2 and tokens[0] == tokens[1] and tokens[0].startswith("<PHONE:")
    assert out == f"Phone: {tokens[0]} (mobile), or call {tokens[0]} after 6pm"
    assert sum(report.counts.values()) == 2


def test_an_ssn_echoed_in_later_lines_of_the_same_text_is_replaced() -> None:
    out, _ = _text("SSN: 008129540\nchecking...\n# mismatch with 008129540\nrow 10081295401")
    (token,) = set(_tokens(out))
    assert out == f"SSN: {token}\nchecking...\n# mismatch with {token}\nrow 10081295401"


def test_a_password_repeated_after_its_statement_is_replaced() -> None:
    out, _ = _text("ALTER USER app IDENTIFIED BY 'Xk30iysKxSfo8A9q'; -- then: mysql -p Xk30iysKxSfo8A9q")
    (token,) = set(_tokens(out))
    assert "Xk30iysKxSfo8A9q" not in out and out.count(token) == 2


def test_a_git_sha_holding_the_digits_is_left_alone() -> None:
    sha = "3f786850e387550fdab836ed7e6dc881de23001b"
    out, _ = _text(f"commit {sha} SSN: 550081295 build 550081295x {sha[:7]}")
    assert sha in out and "550081295x" in out and out.count("550081295") == 1


def _line(*strings: str) -> bytes:
    content = [{"type": "text", "text": s} for s in strings]
    return json.dumps({"type": "assistant", "message": {"role": "assistant", "content": content}},
                      separators=(",", ":")).encode()


def _texts(line: bytes) -> list[str]:
    return [c["text"] for c in json.loads(line)["message"]["content"]]


def test_a_value_found_in_one_string_of_a_json_line_is_replaced_in_its_other_strings() -> None:
    report = RedactionReport()
    first, second, third = RED.json.redact_lines(
        [_line("Phone: 0170 4829137", "I called 0170 4829137 twice"),
         _line("0170 4829137"),  # another line: its own context only
         _line("I called 0170 4829137 twice", "Phone: 0170 4829137")], report)
    a, b = _texts(first)
    (token,) = set(_tokens(a))
    assert a == f"Phone: {token}" and b == f"I called {token} twice"
    assert _texts(second) == ["0170 4829137"]
    assert _texts(third) == [b, a]


def test_the_memo_of_short_strings_does_not_change_what_is_echoed() -> None:
    """A string answered from the memo (seen on an earlier line, alone or labelled) is echoed into
    and echoes from as one scanned now: a line comes out the same whatever came before it."""
    fresh = builtin_redactor(b"e" * 32)
    target = _line("Phone: 0170 4829137", "I called 0170 4829137 twice")
    alone = fresh.json.redact_lines([target], RedactionReport())[0]
    warm = builtin_redactor(b"e" * 32)
    warm.json.redact_lines([_line("I called 0170 4829137 twice"), _line("Phone: 0170 4829137")], RedactionReport())
    report = RedactionReport()
    assert warm.json.redact_lines([target], report)[0] == alone
    assert sum(report.counts.values()) == 2
    again = warm.json.redact_lines([target], RedactionReport())[0]
    assert again == alone


def test_a_key_is_no_place_for_an_echo() -> None:
    line = json.dumps({"note": "SSN: 008129540", "008129540": "x"}, separators=(",", ":")).encode()
    doc: dict[str, Any] = json.loads(RED.json.redact_lines([line], RedactionReport())[0])
    assert "008129540" in doc and doc["note"].startswith("SSN: <SSN:")


def test_a_sqlite_text_cell_echoes_its_own_values_and_no_other_cells(tmp_path: Path) -> None:
    src, dst = tmp_path / "store.db", tmp_path / "out.db"
    conn = sqlite3.connect(src)
    assert conn.execute("PRAGMA journal_mode=WAL").fetchone()[0] == "wal"
    conn.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
    conn.executemany("INSERT INTO notes VALUES (?, ?)", [
        (1, "Phone: 0170 4829137 (mobile), or call 0170 4829137 after 6pm"),
        (2, "call 0170 4829137"),  # another cell: its own context only
    ])
    conn.commit()  # the rows live in the -wal until a checkpoint
    assert (tmp_path / "store.db-wal").stat().st_size > 0
    RED.redact_file(src, dst, "sqlite", RedactionReport())
    conn.close()
    out = sqlite3.connect(dst)
    rows = dict(out.execute("SELECT id, body FROM notes").fetchall())
    out.close()
    (token,) = set(_tokens(rows[1]))
    assert rows[1] == f"Phone: {token} (mobile), or call {token} after 6pm"
    assert rows[2] == "call 0170 4829137"
