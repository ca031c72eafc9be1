"""Triggers do not fire and CHECK constraints are not enforced while a SQLite database is
redacted (archiver/redact/walkers/sqlite.py).

A redacting UPDATE is no edit of the session. Before s24 an `AFTER UPDATE` trigger fired on every
changed row: one that logs the OLD value into a table walked earlier put the plaintext (a home
path, an address) back into the output, and the fail-closed verify then held the whole session
back on every run; one that stamps `updated_at` changed a column the source never changed. The
triggers are set aside in the private copy and created again from their own SQL, so the schema
is the source's, statement for statement.

A replacement need not meet a column's CHECK constraint (`<EMAIL:...>` under `CHECK (email LIKE
'%@%')`): before s24 such a database failed every run, so its session was never archived. Unmet
CHECK constraints are counted as a warning; a source that does not meet its own is no damaged
database either (archiver/sqlite_checks.py).

Copies of values the walk did not reach: the `+aux` text columns of an R*Tree live in its
`_rowid` shadow table, which was skipped with the FTS shadow tables (an e-mail there reached the
archive and the verify passed); the planner's index samples (`sqlite_stat4`, written by ANALYZE
in SQLite builds with STAT4, Node's better-sqlite3 among them) hold indexed values in a record
format. The first is walked now, the second emptied."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from archiver import snapshot
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


CHECKED = """
    CREATE TABLE contact (id INTEGER PRIMARY KEY, email TEXT NOT NULL CHECK (email LIKE '%_@_%.__%'),
                          home TEXT CHECK (length(home) <= 12), meta TEXT CHECK (json_valid(meta)));
"""


def _checked_source(path: Path) -> None:
    conn = sqlite3.connect(path)
    conn.executescript(CHECKED)
    conn.execute("INSERT INTO contact (email, home, meta) VALUES (?, ?, ?)",
                 ("mara.lindqvist@northwind-traders.com", "/home/alice", '{"cwd": "/home/alice/app"}'))
    conn.commit()
    conn.close()


def test_a_replacement_that_breaks_a_check_constraint_is_written_and_counted(red, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    src, dst = tmp_path / "checked.db", tmp_path / "out.db"
    _checked_source(src)
    before = red.warnings["sqlite-check-constraint-unmet"]
    red.redact_file(src, dst, "sqlite", RedactionReport())

    assert red.warnings["sqlite-check-constraint-unmet"] == before + 1  # one table
    data = dst.read_bytes()
    assert b"alice" not in data and b"lindqvist" not in data
    out = sqlite3.connect(dst)
    try:
        email, home, meta = out.execute("SELECT email, home, meta FROM contact").fetchone()
        assert email.startswith("<EMAIL:") and home == f"/home/{USER}" and meta == f'{{"cwd": "/home/{USER}/app"}}'
        assert out.execute("PRAGMA integrity_check").fetchall() == [("CHECK constraint failed in contact",)]
    finally:
        out.close()
    assert _master(dst) == _master(src)
    assert red.verify_file(dst, "sqlite") == []


def test_real_damage_still_fails_naming_the_file(red, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    src = tmp_path / "torn.db"
    _checked_source(src)
    data = bytearray(src.read_bytes())
    page = 4096
    data[page + 8: page + 40] = b"\xff" * 32  # the second page's b-tree header: damage, not a CHECK
    src.write_bytes(bytes(data))
    with pytest.raises(walker.SqliteRedactionError, match="torn.db"):
        red.redact_file(src, tmp_path / "out.db", "sqlite", RedactionReport())


def test_a_source_that_does_not_meet_its_own_check_is_snapshotted(tmp_path: Path) -> None:
    """The application wrote the row with CHECK constraints off: quick_check says so, and the
    snapshot is still taken (the file is not damaged)."""
    src, dst = tmp_path / "app.db", tmp_path / "snap.db"
    conn = sqlite3.connect(src)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.executescript("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT CHECK (length(v) <= 3));")
    conn.execute("PRAGMA ignore_check_constraints=ON")
    conn.execute("INSERT INTO t (v) VALUES ('longer than three')")
    conn.commit()
    conn.execute("PRAGMA ignore_check_constraints=OFF")
    assert conn.execute("PRAGMA quick_check").fetchall() == [("CHECK constraint failed in t",)]
    conn.close()
    snapshot.copy_sqlite(src, dst)
    out = sqlite3.connect(dst)
    assert out.execute("SELECT v FROM t").fetchall() == [("longer than three",)]
    out.close()


def test_damage_and_unmet_checks_are_told_apart() -> None:
    from archiver import sqlite_checks

    found = ["CHECK constraint failed in contact", "*** in database main ***\nPage 3: btreeInitPage() returns error code 11"]
    assert sqlite_checks.damage(["ok"]) == [] and sqlite_checks.unmet_checks(["ok"]) == []
    assert sqlite_checks.damage(found) == found[1:]
    assert sqlite_checks.unmet_checks(found) == found[:1]
    assert sqlite_checks.damage(["NULL value in t.v"]) == ["NULL value in t.v"]


def test_an_rtree_aux_column_is_redacted_and_the_index_still_answers(red, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    src, dst = tmp_path / "geo.db", tmp_path / "out.db"
    conn = sqlite3.connect(src)
    conn.execute("CREATE VIRTUAL TABLE places USING rtree(id, minx, maxx, miny, maxy, +label)")
    conn.executemany("INSERT INTO places VALUES (?, ?, ?, ?, ?, ?)", [
        (1, 0, 1, 0, 1, "met mara.lindqvist@northwind-traders.com at /home/alice/site"),
        (2, 5, 6, 5, 6, "plain label")])
    conn.commit()
    conn.close()
    red.redact_file(src, dst, "sqlite", RedactionReport())

    data = dst.read_bytes()
    assert b"alice" not in data and b"lindqvist" not in data
    out = sqlite3.connect(dst)
    try:
        hit = out.execute("SELECT id, label FROM places WHERE minx <= 0.5 AND maxx >= 0.5").fetchall()
        assert len(hit) == 1 and hit[0][0] == 1
        assert hit[0][1].startswith("met <EMAIL:") and hit[0][1].endswith(f" at /home/{USER}/site")
        assert out.execute("SELECT label FROM places WHERE id = 2").fetchone() == ("plain label",)
        assert out.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    finally:
        out.close()
    assert _master(dst) == _master(src)


def _with_stat4_samples(path: Path) -> None:
    """A database as ANALYZE leaves it in a STAT4 build. This build has no STAT4, so the table is
    made as an ordinary one and renamed in the schema, and one sample written as a record."""
    conn = sqlite3.connect(path)
    conn.executescript("""
        CREATE TABLE threads (id INTEGER PRIMARY KEY, cwd TEXT);
        CREATE INDEX threads_cwd ON threads(cwd);
        INSERT INTO threads (cwd) VALUES ('/home/alice/app'), ('/home/alice/api');
        ANALYZE;
        CREATE TABLE x_stat4 (tbl, idx, neq, nlt, ndlt, sample);
    """)
    conn.commit()
    conn.execute("PRAGMA writable_schema=ON")
    conn.execute("UPDATE sqlite_master SET name = 'sqlite_stat4', tbl_name = 'sqlite_stat4', "
                 "sql = 'CREATE TABLE sqlite_stat4(tbl,idx,neq,nlt,ndlt,sample)' WHERE name = 'x_stat4'")
    conn.commit()
    conn.close()
    conn = sqlite3.connect(path)
    key = b"/home/alice/api"
    record = bytes([3, 13 + 2 * len(key), 1]) + key + b"\x02"  # header (text, int), the key, its rowid
    conn.execute("INSERT INTO sqlite_stat4 VALUES ('threads', 'threads_cwd', '1 1', '0 0', '0 0', ?)", (record,))
    conn.commit()
    conn.close()


def test_the_planners_index_samples_are_emptied(red, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    src, dst = tmp_path / "analyzed.db", tmp_path / "out.db"
    _with_stat4_samples(src)
    assert b"/home/alice/api" in src.read_bytes()
    before = red.warnings["sqlite-index-samples-dropped"]
    red.redact_file(src, dst, "sqlite", RedactionReport())

    assert b"alice" not in dst.read_bytes()
    assert red.warnings["sqlite-index-samples-dropped"] == before + 1
    out = sqlite3.connect(dst)
    try:
        assert out.execute("SELECT count(*) FROM sqlite_stat4").fetchone() == (0,)
        assert out.execute("SELECT tbl, idx FROM sqlite_stat1").fetchall() == [("threads", "threads_cwd")]
        assert sorted(c for (c,) in out.execute("SELECT cwd FROM threads")) == [f"/home/{USER}/api", f"/home/{USER}/app"]
        assert out.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    finally:
        out.close()
