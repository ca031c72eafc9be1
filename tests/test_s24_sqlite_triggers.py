"""Triggers do not fire while a SQLite database is redacted (archiver/redact/walkers/sqlite.py).

A redacting UPDATE is no edit of the session. Before s24 an `AFTER UPDATE` trigger fired on every
changed row: one that logs the OLD value into a table walked earlier put the plaintext (a home
path, an address) back into the output, and the fail-closed verify then held the whole session
back on every run; one that stamps `updated_at` changed a column the source never changed. The
triggers are set aside in the private copy and created again from their own SQL, so the schema
is the source's, statement for statement."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from archiver.redact.base import RedactionReport
from archiver.redact.pseudonym import Pseudonymizer
from archiver.redact.walkers import sqlite as walker
from tests.fx_redact import builtin_redactor

KEY = b"s24-sqlite-triggers-key-01234567"
USER = Pseudonymizer(KEY).username("alice")
BODY = "/home/alice/notes.txt for mara.lindqvist@northwind-traders.com"

SCHEMA = """
    CREATE TABLE audit (id INTEGER PRIMARY KEY, old TEXT, at TEXT);
    CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT, updated TEXT DEFAULT 'source');
    CREATE INDEX notes_body ON notes(body);
    create trigger keep_old after update of body on notes
      begin insert into audit (old, at) values (old.body, 'trigger'); end;
    CREATE TRIGGER "touch it" AFTER UPDATE ON notes BEGIN UPDATE notes SET updated = 'touched' WHERE id = new.id; END;
    CREATE TRIGGER no_delete BEFORE DELETE ON notes BEGIN SELECT RAISE(ABORT, 'append only'); END;
    CREATE VIEW v AS SELECT body FROM notes;
    CREATE TRIGGER v_edit INSTEAD OF UPDATE ON v BEGIN UPDATE notes SET body = new.body WHERE body = old.body; END;
"""


@pytest.fixture(scope="module")
def red():  # type: ignore[no-untyped-def]
    return builtin_redactor(KEY, usernames=["alice"])


def _source(path: Path, wal: bool) -> None:
    conn = sqlite3.connect(path)
    if wal:
        conn.execute("PRAGMA journal_mode=WAL")
    conn.executescript(SCHEMA)
    conn.execute("INSERT INTO notes (body) VALUES (?), ('nothing here')", (BODY,))
    conn.commit()
    conn.close()


def _master(path: Path) -> list[tuple[str, str, str, str]]:
    conn = sqlite3.connect(path)
    try:
        return sorted(conn.execute("SELECT type, name, tbl_name, sql FROM sqlite_master").fetchall())
    finally:
        conn.close()


@pytest.mark.parametrize("via", ["memory", "file"])
def test_no_trigger_fires_and_the_schema_is_the_sources(red, tmp_path: Path, via: str,  # type: ignore[no-untyped-def]
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    src, dst = tmp_path / "src.db", tmp_path / "dst.db"
    _source(src, wal=via == "file")
    if via == "file":
        monkeypatch.setattr(walker, "MEMORY_MAX", 0)
    red.redact_file(src, dst, "sqlite", RedactionReport())

    data = dst.read_bytes()
    assert b"alice" not in data and b"lindqvist" not in data
    out = sqlite3.connect(dst)
    try:
        assert out.execute("SELECT * FROM audit").fetchall() == []
        notes = out.execute("SELECT id, body, updated FROM notes ORDER BY id").fetchall()
        assert [(i, u) for i, _b, u in notes] == [(1, "source"), (2, "source")]
        assert notes[0][1].startswith(f"/home/{USER}/notes.txt for <EMAIL:") and notes[1][1] == "nothing here"
        assert out.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    finally:
        out.close()
    assert _master(dst) == _master(src)
    assert red.verify_file(dst, "sqlite") == []


def test_the_restored_triggers_still_work(red, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """What the harness does with the database later is unchanged: its triggers fire as before."""
    src, dst = tmp_path / "src.db", tmp_path / "dst.db"
    _source(src, wal=False)
    red.redact_file(src, dst, "sqlite", RedactionReport())
    conn = sqlite3.connect(dst)
    try:
        conn.execute("UPDATE notes SET body = 'edited' WHERE id = 2")
        assert conn.execute("SELECT old, at FROM audit").fetchall() == [("nothing here", "trigger")]
        assert conn.execute("SELECT updated FROM notes WHERE id = 2").fetchone() == ("touched",)
        with pytest.raises(sqlite3.IntegrityError, match="append only"):
            conn.execute("DELETE FROM notes")
    finally:
        conn.close()


def test_a_database_without_triggers_is_unchanged_by_the_step(red, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    src, dst = tmp_path / "plain.db", tmp_path / "out.db"
    conn = sqlite3.connect(src)
    conn.executescript("CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO t (body) VALUES ('/home/alice/x');")
    conn.commit()
    conn.close()
    red.redact_file(src, dst, "sqlite", RedactionReport())
    assert _master(dst) == _master(src)
    out = sqlite3.connect(dst)
    assert out.execute("SELECT body FROM t").fetchall() == [(f"/home/{USER}/x",)]
    out.close()
