"""SQLite cells are judged with their names, as JSON values are with their keys: a bare value in
a column named like a secret (OpenCode 1.x `session_share.secret`, a UUID) or in the value
column of a key/value row whose name is secret-like (`kv: api_secret = ...`) is redacted;
ordinary columns and names are left alone."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from archiver.redact.base import RedactionReport
from tests.fx_redact import builtin_redactor

SHARE_SECRET = "6f1c2e9a-3b7d-4c5e-9a8b-1d2e3f4a5b6c"
KV_SECRET = "Zq8sLk2Pq9vX7mN3bR5tY1wE4uI6oP0a"


def _db(path: Path) -> None:
    c = sqlite3.connect(path)
    c.execute("PRAGMA journal_mode=WAL")
    c.execute("CREATE TABLE session_share (session_id TEXT PRIMARY KEY, id TEXT NOT NULL, secret TEXT NOT NULL, "
              "url TEXT NOT NULL)")
    c.execute("INSERT INTO session_share VALUES ('ses_01J', 'shr_01J', ?, 'https://opncd.ai/s/shr_01J')", (SHARE_SECRET,))
    c.execute("CREATE TABLE kv (key TEXT PRIMARY KEY, value TEXT)")
    c.executemany("INSERT INTO kv VALUES (?, ?)", [("api_secret", KV_SECRET), ("theme", "dark-mode-2024"),
                                                   ("migration.v1-v2", '{"done":true}')])
    c.execute("CREATE TABLE issue (id TEXT, project_key TEXT, tokens TEXT, sha TEXT)")
    c.execute("INSERT INTO issue VALUES ('i1', 'PRJ-1234', '1523', '9fceb02c1b6bd4d2fd1d1c4a5c5e6f7a8b9c0d1e')")
    c.commit()
    c.close()


def test_secret_named_cells_and_kv_values_are_redacted_the_rest_kept(tmp_path: Path) -> None:
    red = builtin_redactor(b"k" * 32, ["zed"])
    src, dst = tmp_path / "src.db", tmp_path / "dst.db"
    _db(src)
    report = RedactionReport()
    red.redact_file(src, dst, "sqlite", report)
    c = sqlite3.connect(dst)
    (share_id, secret, url), = c.execute("SELECT id, secret, url FROM session_share").fetchall()
    assert secret.startswith("<SECRET:") and share_id == "shr_01J" and url == "https://opncd.ai/s/shr_01J"
    kv = dict(c.execute("SELECT key, value FROM kv").fetchall())
    assert kv["api_secret"].startswith("<SECRET:")
    assert kv["theme"] == "dark-mode-2024" and kv["migration.v1-v2"] == '{"done":true}'
    assert c.execute("SELECT * FROM issue").fetchall() == [
        ("i1", "PRJ-1234", "1523", "9fceb02c1b6bd4d2fd1d1c4a5c5e6f7a8b9c0d1e")]
    c.close()
    raw = dst.read_bytes()
    assert SHARE_SECRET.encode() not in raw and KV_SECRET.encode() not in raw
    assert red.verify_file(dst, "sqlite") == []  # the fail-closed re-scan judges cells the same way
