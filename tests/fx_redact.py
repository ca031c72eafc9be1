"""A redactor with the built-in rule packs, the two checks the rule-by-rule tests make on its
text output (a text kept as it is, a value gone by the named rule), and a table of texts redacted
as a real SQLite file."""

from __future__ import annotations

import os
import random
import sqlite3
import tempfile
from pathlib import Path
from typing import Any

from archiver.redact.base import RedactionReport
from archiver.redact.rules import RuntimeTerms

BUILTIN_PACKS = ["builtin:secrets", "builtin:pii", "builtin:paths"]


def builtin_redactor(key: bytes, usernames: list[str] | None = None, names: list[str] | None = None) -> Any:
    from archiver.redact.redactor import build_redactor

    return build_redactor(BUILTIN_PACKS, key, RuntimeTerms(usernames=usernames or [], names=names or []))


def redacted_table(red: Any, table: str, columns: str, rows: list[tuple[Any, str]],
                   folder: Path | None = None) -> dict[Any, str]:
    """rows as a SQLite table (`columns`: its key column, then one TEXT column, as SQL), the file
    redacted as the sqlite format; {key: the cell after}."""
    with tempfile.TemporaryDirectory(prefix="redacted-table-", dir=folder) as d:
        os.chmod(d, 0o700)
        src, dst = Path(d, "in.db"), Path(d, "out.db")
        conn = sqlite3.connect(src)
        conn.execute(f"CREATE TABLE {table} ({columns})")
        conn.executemany(f"INSERT INTO {table} VALUES (?, ?)", rows)
        conn.commit()
        conn.close()
        red.redact_file(src, dst, "sqlite", RedactionReport())
        conn = sqlite3.connect(dst)
        out = dict(conn.execute(f"SELECT * FROM {table}").fetchall())
        conn.close()
    return out


def redacted(red: Any, text: str) -> tuple[str, dict[str, int]]:
    """The redacted text and its report's counts by rule."""
    report = RedactionReport()
    return red.redact_text(text, report), report.by_rule()


def redacted_file(red: Any, folder: Path, name: str, data: bytes, fmt: str = "jsonl") -> tuple[bytes, dict[str, int]]:
    """`data` written to folder/name and redacted as a worker redacts a file: (output bytes, counts by rule)."""
    src, dst = folder / name, folder / f"out-{name}"
    src.write_bytes(data)
    report = RedactionReport()
    red.redact_file(src, dst, fmt, report)
    return dst.read_bytes(), report.by_rule()


def claude_tool_result_redacted(red: Any, folder: Path, text: str) -> tuple[bytes, str, str, dict[str, int]]:
    """A Claude Code user record whose tool_result is `text` (also in toolUseResult.file.content)
    redacted as a transcript: (the line out, the block's content, the sidecar field's, counts by rule)."""
    import json

    from tests.test_s21_fin import _claude_tool_result

    out, by_rule = redacted_file(red, folder, "claude.jsonl", _claude_tool_result(text))
    rec = json.loads(out)
    return out, rec["message"]["content"][0]["content"], rec["toolUseResult"]["file"]["content"], by_rule


def kept(red: Any, text: str) -> dict[str, int]:
    """Assert the text comes out as it went in; its report's counts by rule."""
    report = RedactionReport()
    assert red.redact_text(text, report) == text
    return report.by_rule()


def gone(red: Any, text: str, value: str, rule: str) -> str:
    """Assert `value` is gone and `rule` counted at least once; the redacted text."""
    report = RedactionReport()
    out = red.redact_text(text, report)
    assert value not in out, (rule, out)
    assert report.by_rule().get(rule, 0) >= 1, report.by_rule()
    return out


def random_segments(rng: Any, frags: list[str], max_parts: int, max_frags: int,
                    modes: tuple[int, ...]) -> tuple[list[bytes], list[int]]:
    """1..max_parts strings, each 0..max_frags fragments glued together, with a mode each: the
    input two engines that must agree are compared on (tests of the engine's prefilters)."""
    parts = ["".join(rng.choice(frags) for _ in range(rng.randint(0, max_frags))).encode()
             for _ in range(rng.randint(1, max_parts))]
    return parts, [rng.choice(modes) for _ in parts]


def same_segment_findings(a: Any, b: Any, frags: list[str], seed: int, rounds: int,
                          modes: tuple[int, ...], each_alone: bool = False) -> int:
    """Two engines' scan_segments agree on `rounds` seeded random inputs (and, with `each_alone`,
    their scan_bytes on every string); returns how many findings there were, for the caller to
    check the inputs were not trivial."""
    rng = random.Random(seed)
    found = 0
    for _ in range(rounds):
        parts, part_modes = random_segments(rng, frags, 5, 7, modes)
        got = a.scan_segments(parts, part_modes)
        assert got == b.scan_segments(parts, part_modes), parts
        found += sum(len(v) for v in got.values())
        for p in parts if each_alone else ():
            assert a.scan_bytes(p) == b.scan_bytes(p), p
    return found


def luhn_complete(digits: str) -> str:
    """`digits` with the Luhn check digit appended: a card number the card rules accept."""
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch) * (2 if i % 2 == 0 else 1)
        total += d - 9 if d > 9 else d
    return digits + str((10 - total % 10) % 10)
