"""The secrets red teams' session shapes (tests/test_s32_secret_redteam.py, test_s33_*): a text
planted in a Claude Code tool_result with its toolUseResult sidecar, a Codex function_call_output,
a file-history backup, an SQLite TEXT cell, a `git diff` adding it, or a user's prose, redacted
there and read back; and the byte-for-byte check of a planted case. No tests here."""

from __future__ import annotations

import json
import os
import sqlite3
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from archiver.redact.base import RedactionReport
from archiver.redact.pseudonym import Pseudonymizer
from tests.fx_s25_recall import claude_tool_result, codex_output

CARRIERS = ("claude", "codex", "sidecar", "sqlite", "diff", "prose")


@dataclass(frozen=True)
class Case:
    name: str
    template: str  # the text, @0@, @1@ ... where the secrets go
    secrets: tuple[tuple[str, str], ...]  # (label, value) for each placeholder
    carriers: tuple[str, ...] = CARRIERS


def as_diff(text: str) -> str:
    lines = text.splitlines()
    return ("diff --git a/config/settings b/config/settings\nindex 3b18e51..a9c2f04 100644\n--- a/config/settings\n+++ b/config/settings\n"
            f"@@ -1,1 +1,{len(lines) + 1} @@\n # settings\n" + "".join(f"+{ln}\n" for ln in lines))


def redact_sqlite_cell(red: Any, text: str, report: RedactionReport | None = None) -> str:
    """`text` as a TEXT cell of a real SQLite file redacted by `red`, read back."""
    with tempfile.TemporaryDirectory(prefix="redteam-sqlite-") as d:
        os.chmod(d, 0o700)
        src, dst = Path(d, "in"), Path(d, "out")
        conn = sqlite3.connect(src)
        conn.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
        conn.execute("INSERT INTO notes VALUES (1, ?)", (text,))
        conn.commit()
        conn.close()
        red.redact_file(src, dst, "sqlite", report or RedactionReport())
        conn = sqlite3.connect(dst)
        out = conn.execute("SELECT body FROM notes").fetchone()[0]
        conn.close()
        return str(out)


def redact_in(red: Any, carrier: str, text: str) -> tuple[str, str]:
    """(the redacted text as it came back in `carrier`, the whole redacted output it sat in)."""
    report = RedactionReport()
    if carrier == "prose":
        out = red.redact_text(text, report)
        return out, out
    if carrier in ("claude", "diff"):
        body = as_diff(text) if carrier == "diff" else text
        line = red.redact_jsonl_line(claude_tool_result(body).encode(), report).decode()
        rec = json.loads(line)
        got = rec["message"]["content"][0]["content"]
        assert rec["toolUseResult"]["file"]["content"] == got
        return got, line
    if carrier == "codex":
        line = red.redact_jsonl_line(codex_output(text).encode(), report).decode()
        return json.loads(line)["payload"]["output"].split("Output:\n", 1)[1], line
    if carrier == "sidecar":  # a file-history backup: the file's bytes as they were
        with tempfile.TemporaryDirectory(prefix="redteam-sidecar-") as d:
            os.chmod(d, 0o700)
            src, dst = Path(d, "in"), Path(d, "out")
            src.write_bytes(text.encode())
            red.redact_file(src, dst, "text", report)
            out = dst.read_text()
            return out, out
    out = redact_sqlite_cell(red, text, report)
    return out, out


def expected(carrier: str, text: str) -> str:
    return as_diff(text) if carrier == "diff" else text


def check_planted(red: Any, key: bytes, case: Case, carrier: str) -> None:
    """`case` with its secrets planted, redacted in `carrier`: each secret replaced by its keyed
    token and every other byte kept; no secret anywhere in the output, raw or JSON-escaped."""
    text, want = case.template, case.template
    pseudo = Pseudonymizer(key)
    for i, (label, value) in enumerate(case.secrets):
        text = text.replace(f"@{i}@", value)
        want = want.replace(f"@{i}@", pseudo.token(label, value))
    got, whole = redact_in(red, carrier, text)
    assert got == expected(carrier, want)
    for _, v in case.secrets:
        assert v not in whole and json.dumps(v)[1:-1] not in whole
