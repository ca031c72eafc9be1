"""The fixed cost of redacting a small SQLite file (an OpenCode session extract) in a cold sync.

What each test holds:
- a small rollback-journal database is redacted in a private in-memory copy (no temp file),
  and its output bytes equal those of the file-copy path (which a -wal, a WAL header or a
  big file still take), on every session extract of the OpenCode fixture and on a database
  with FTS5, WITHOUT ROWID, generated columns, a trigger, indexes and BLOBs;
- the walk reads every table's columns and key in one statement (no PRAGMA per table) and
  reads a table holding fewer than BATCH rows once, unless an UPDATE was written for it (a
  moved key, a trigger's row are then looked for, and redacted);
- a redaction opens two connections (the copy, the check of dst), a scan one.
"""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path
from typing import Any, Iterator

import pytest

import archiver.harnesses.opencode as opencode
from archiver.demo.opencode_sample import close_opencode_home, make_opencode_home
from archiver.redact.base import RedactionReport
from archiver.redact.pseudonym import Pseudonymizer
from archiver.redact.walkers import sqlite as walker
from tests.fx_redact import builtin_redactor

KEY = b"s20-opencode-cold-key-0123456789abcdef"
GHP = "ghp_R8fJ2kLm9QwErTyUiOpAsDfGhJkLzXcVbN12"
USER = Pseudonymizer(KEY).username("alice")
TABLES = 24  # about an OpenCode extract's


@pytest.fixture(scope="module")
def red() -> Any:
    return builtin_redactor(KEY, usernames=["alice"])


class Trace:
    """Every connection `sqlite3.connect` opens while installed (its target) and every
    statement run on them."""

    def __init__(self) -> None:
        self.targets: list[str] = []
        self.statements: list[str] = []

    def reset(self) -> None:
        self.targets.clear()
        self.statements.clear()

    def reads_of(self, table: str) -> int:
        """SELECTs that read rows of `table` (the walk's batches)."""
        return sum(1 for s in self.statements if s.startswith("SELECT ") and f' FROM "{table}" ' in s)


@pytest.fixture
def trace(monkeypatch: pytest.MonkeyPatch) -> Iterator[Trace]:
    t = Trace()
    real = sqlite3.connect

    def connect(target: Any, *args: Any, **kwargs: Any) -> sqlite3.Connection:
        conn = real(target, *args, **kwargs)
        t.targets.append(str(target))
        conn.set_trace_callback(t.statements.append)
        return conn

    monkeypatch.setattr(sqlite3, "connect", connect)
    yield t


def _redact(red: Any, src: Path, dst: Path) -> bytes:
    red.redact_file(src, dst, "sqlite", RedactionReport())
    return dst.read_bytes()


def _via_file(red: Any, src: Path, dst: Path, monkeypatch: pytest.MonkeyPatch) -> bytes:
    """The reference: the same redaction through a temp file copy (the path of big files)."""
    with monkeypatch.context() as m:
        m.setattr(walker, "MEMORY_MAX", 0)
        return _redact(red, src, dst)


def _wide_db(path: Path, secret_table: str | None = None) -> None:
    """TABLES tables shaped like an extract's (ids, JSON data, a time), a few rows in most,
    none in every fourth; `secret_table` holds a home path to redact."""
    conn = sqlite3.connect(path)
    for k in range(TABLES):
        conn.execute(f"CREATE TABLE t{k:02d} (id TEXT PRIMARY KEY, session_id TEXT, data TEXT, time INTEGER)")
        conn.execute(f"CREATE INDEX t{k:02d}_session ON t{k:02d} (session_id)")
        if k % 4 == 3:
            continue
        for i in range(3):
            conn.execute(f"INSERT INTO t{k:02d} VALUES (?, 'ses_1', ?, ?)", (f"row_{k}_{i}", f'{{"n": {i}}}', i))
    if secret_table:
        conn.execute(f"INSERT INTO {secret_table} VALUES ('row_x', 'ses_1', ?, 9)", ('{"cwd": "/home/alice/app"}',))
    conn.commit()
    conn.close()


def _kitchen_sink(path: Path) -> None:
    conn = sqlite3.connect(path)
    conn.executescript(f"""
        CREATE TABLE threads (id TEXT PRIMARY KEY, cwd TEXT, meta TEXT, blob BLOB, n INTEGER,
                              cwd_upper TEXT GENERATED ALWAYS AS (upper(cwd)) VIRTUAL);
        CREATE INDEX idx_threads_cwd ON threads(cwd);
        CREATE TABLE files (path TEXT, rev INTEGER, hash TEXT, PRIMARY KEY (path, rev)) WITHOUT ROWID;
        CREATE TABLE kv (key TEXT, value TEXT);
        CREATE TABLE log (id INTEGER PRIMARY KEY, what TEXT);
        CREATE VIRTUAL TABLE search USING fts5(body);
        CREATE TRIGGER t_log AFTER UPDATE OF cwd ON threads BEGIN INSERT INTO log (what) VALUES ('moved'); END;
        PRAGMA user_version = 42;
        INSERT INTO threads (id, cwd, meta, blob, n) VALUES
            ('a', '/home/alice/app', '{{"token": "{GHP}"}}', X'00ff10', 7),
            ('b', '/srv/plain', '{{"n": 1}}', CAST('/home/alice/b.txt' AS BLOB), 8);
        INSERT INTO files VALUES ('/home/alice/app/a.py', 1, 'h1'), ('/home/alice/app/a.py', 2, 'h2'),
                                 ('/srv/z.py', 1, 'h3');
        INSERT INTO kv VALUES ('DB_PASSWORD', 'hunter2hunter2x'), ('theme', 'dark');
        INSERT INTO search (body) VALUES ('grep found {GHP} in /home/alice/app');
    """)
    conn.commit()
    conn.close()


def test_opencode_extracts_redacted_in_memory_equal_file_path(red: Any, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    info = make_opencode_home(tmp_path / "home")
    try:
        snap = opencode.DbSnapshot(info["db"])
        conn = snap.connect()
        sids = [r[0] for r in conn.execute("SELECT id FROM session_v2 ORDER BY id")]
        conn.close()
        assert len(sids) >= 3
        digests = set()
        for n, sid in enumerate(sids):
            extract = tmp_path / f"x{n}.db"
            opencode.extract_session(snap.path, sid, extract)
            assert not Path(f"{extract}-wal").exists() and extract.read_bytes()[18:20] == b"\x01\x01"
            fast = _redact(red, extract, tmp_path / f"m{n}.db")
            ref = _via_file(red, extract, tmp_path / f"f{n}.db", monkeypatch)
            assert fast == ref, sid
            assert b"/home/alice" not in fast and f"/home/{USER}".encode() in fast
            assert red.verify_file(tmp_path / f"m{n}.db", "sqlite") == []
            digests.add(hashlib.sha256(fast).hexdigest())
        assert len(digests) == len(sids)
        snap.close()
    finally:
        close_opencode_home(info)


def test_every_kind_of_table_same_bytes_either_copy(red: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    src = tmp_path / "sink.db"
    _kitchen_sink(src)
    fast = _redact(red, src, tmp_path / "m.db")
    assert fast == _via_file(red, src, tmp_path / "f.db", monkeypatch)
    with monkeypatch.context() as m:  # batch edges (a moved WITHOUT ROWID key is read again) change nothing
        m.setattr(walker, "BATCH", 1)
        assert _redact(red, src, tmp_path / "b.db") == fast
    for value in (GHP.encode(), b"alice", b"hunter2hunter2x"):
        assert value not in fast, value
    out = sqlite3.connect(tmp_path / "m.db")
    try:
        assert out.execute("PRAGMA user_version").fetchone() == (42,)
        assert out.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        paths = sorted(out.execute("SELECT path, rev FROM files").fetchall())
        assert paths == sorted([(f"/home/{USER}/app/a.py", 1), (f"/home/{USER}/app/a.py", 2), ("/srv/z.py", 1)])
        assert out.execute("SELECT cwd, cwd_upper FROM threads WHERE id = 'a'").fetchone() == (
            f"/home/{USER}/app", f"/HOME/{USER.upper()}/APP")
        assert out.execute("SELECT what FROM log").fetchall() == []  # the source's log is empty: no trigger fired (s24)
        assert out.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'").fetchall() == [("t_log",)]
        assert out.execute("SELECT value FROM kv WHERE key = 'theme'").fetchone() == ("dark",)
    finally:
        out.close()


def test_small_database_redacted_in_memory_two_connections(red: Any, tmp_path: Path, trace: Trace) -> None:
    src, dst = tmp_path / "wide.db", tmp_path / "out.db"
    _wide_db(src)
    data = src.read_bytes()
    trace.reset()
    _redact(red, src, dst)
    assert trace.targets == [":memory:", str(dst)]  # no temp copy on disk; then the check of dst
    assert src.read_bytes() == data
    red.verify_file(dst, "sqlite")
    assert trace.targets[2:] == [dst.resolve().as_uri() + "?mode=ro"]


def test_one_read_per_table_and_no_pragma_per_table(red: Any, tmp_path: Path, trace: Trace) -> None:
    src, dst = tmp_path / "wide.db", tmp_path / "out.db"
    _wide_db(src, secret_table="t05")
    trace.reset()
    _redact(red, src, dst)
    assert not [s for s in trace.statements if "table_xinfo(" in s and "pragma_table_xinfo(m.name)" not in s]
    assert sum("pragma_table_xinfo(m.name)" in s for s in trace.statements) == 1
    # t05 had a cell rewritten: one more read looks for rows an UPDATE may have moved or added
    assert {f"t{k:02d}": trace.reads_of(f"t{k:02d}") for k in range(TABLES)} == {
        f"t{k:02d}": 2 if k == 5 else 1 for k in range(TABLES)}
    out = sqlite3.connect(dst)
    assert out.execute("SELECT data FROM t05 WHERE id = 'row_x'").fetchone() == (f'{{"cwd": "/home/{USER}/app"}}',)
    out.close()
    trace.statements.clear()
    red.verify_file(dst, "sqlite")  # the fail-closed scan reads each table once
    assert {f"t{k:02d}": trace.reads_of(f"t{k:02d}") for k in range(TABLES)} == {f"t{k:02d}": 1 for k in range(TABLES)}
    assert sum("pragma_table_xinfo(m.name)" in s for s in trace.statements) == 1


def test_a_trigger_that_would_copy_the_old_value_adds_no_row(red: Any, tmp_path: Path) -> None:
    """An UPDATE whose trigger would copy the old value into a new row of the same table: triggers
    do not fire during the walk (s24), so the output holds the source's rows, redacted, and the
    trigger itself."""
    src, dst = tmp_path / "trig.db", tmp_path / "out.db"
    conn = sqlite3.connect(src)
    conn.executescript("""
        CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT, copy INTEGER DEFAULT 0);
        CREATE TRIGGER keep_old AFTER UPDATE OF body ON notes WHEN old.copy = 0
        BEGIN INSERT INTO notes (body, copy) VALUES (old.body, 1); END;
        INSERT INTO notes (body) VALUES ('/home/alice/notes.txt'), ('nothing here');
    """)
    conn.commit()
    conn.close()
    fast = _redact(red, src, dst)
    assert b"alice" not in fast
    out = sqlite3.connect(dst)
    assert out.execute("SELECT body, copy FROM notes ORDER BY id").fetchall() == [
        (f"/home/{USER}/notes.txt", 0), ("nothing here", 0)]
    assert [n for (n,) in out.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")] == ["keep_old"]
    out.close()


def test_wal_header_and_big_files_take_the_file_copy(red: Any, tmp_path: Path, trace: Trace,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    wal_db = tmp_path / "wal.db"
    conn = sqlite3.connect(wal_db)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT)")
    conn.execute("INSERT INTO t (body) VALUES ('/home/alice/w')")
    conn.commit()
    conn.close()  # checkpointed, -wal removed; the header still says WAL
    trace.reset()
    assert not Path(f"{wal_db}-wal").exists() and wal_db.read_bytes()[18:20] == b"\x02\x02"
    out = _redact(red, wal_db, tmp_path / "wal-out.db")
    assert trace.targets[0].endswith("/work.db") and "archiver-sqlite-" in trace.targets[0]
    assert not Path(trace.targets[0]).parent.exists()  # the temp copy is gone
    assert out[18:20] == b"\x01\x01" and b"alice" not in out
    big = tmp_path / "wide.db"
    _wide_db(big, secret_table="t01")
    trace.reset()
    monkeypatch.setattr(walker, "MEMORY_MAX", big.stat().st_size - 1)
    _redact(red, big, tmp_path / "big-out.db")
    assert "archiver-sqlite-" in trace.targets[0]
    monkeypatch.setattr(walker, "MEMORY_MAX", big.stat().st_size)
    trace.reset()
    assert _redact(red, big, tmp_path / "big-mem.db") == (tmp_path / "big-out.db").read_bytes()
    assert trace.targets[0] == ":memory:"


def test_not_a_database_fails_naming_the_file(red: Any, tmp_path: Path) -> None:
    src = tmp_path / "junk.db"
    src.write_bytes(b"SQLite format 3\x00" + b"\x10\x00\x01\x01" + b"\xff" * 4000)
    with pytest.raises(walker.SqliteRedactionError, match="junk.db"):
        red.redact_file(src, tmp_path / "out.db", "sqlite", RedactionReport())
