"""The archiver only reads a harness's SQLite files: a WAL database that no program holds open
(the last connection removed its -wal and -shm) must not get a -wal and -shm of ours beside it,
which a read-only open would create (and leave, owned by the archiver's user)."""

from __future__ import annotations

import os
import shutil
import sqlite3
from pathlib import Path

from archiver.demo.opencode_sample import close_opencode_home, make_opencode_home
from archiver.snapshot import copy_sqlite, read_live_sqlite, wal_index_missing
from tests.fx_home import Box, box  # noqa: F401


def _wal_db(path: Path, rows: list[str]) -> None:
    c = sqlite3.connect(path)
    c.execute("PRAGMA journal_mode=WAL")
    c.execute("CREATE TABLE t(x TEXT)")
    c.executemany("INSERT INTO t VALUES (?)", [(r,) for r in rows])
    c.commit()
    c.close()


def test_closed_wal_database_is_read_without_writing_beside_it(tmp_path: Path) -> None:
    live = tmp_path / "harness"
    live.mkdir()
    db = live / "store.db"
    _wal_db(db, ["a", "b"])
    assert sorted(os.listdir(live)) == ["store.db"] and wal_index_missing(db)
    out = tmp_path / "copy.db"
    copy_sqlite(db, out)
    assert sqlite3.connect(out).execute("SELECT x FROM t ORDER BY x").fetchall() == [("a",), ("b",)]
    with read_live_sqlite(db) as conn:
        assert conn.execute("SELECT count(*) FROM t").fetchone() == (2,)
    assert sorted(os.listdir(live)) == ["store.db"]


def test_wal_file_without_shm_is_read_from_a_copy_with_its_frames(tmp_path: Path) -> None:
    writer_dir = tmp_path / "w"
    writer_dir.mkdir()
    src = writer_dir / "a.db"
    w = sqlite3.connect(src)
    w.execute("PRAGMA journal_mode=WAL")
    w.execute("PRAGMA wal_autocheckpoint=0")
    w.execute("CREATE TABLE t(x TEXT)")
    w.execute("INSERT INTO t VALUES ('only-in-wal')")
    w.commit()
    live = tmp_path / "harness"
    live.mkdir()
    shutil.copyfile(src, live / "a.db")
    shutil.copyfile(Path(str(src) + "-wal"), live / "a.db-wal")  # a -wal left by a crash, no -shm
    w.close()
    db = live / "a.db"
    assert wal_index_missing(db)
    out = tmp_path / "copy.db"
    copy_sqlite(db, out)
    assert sqlite3.connect(out).execute("SELECT x FROM t").fetchall() == [("only-in-wal",)]
    with read_live_sqlite(db) as conn:
        assert conn.execute("SELECT x FROM t").fetchall() == [("only-in-wal",)]
    assert sorted(os.listdir(live)) == ["a.db", "a.db-wal"]


def test_open_wal_database_and_rollback_database_are_read_live(tmp_path: Path) -> None:
    db = tmp_path / "open.db"
    holder = sqlite3.connect(db)
    holder.execute("PRAGMA journal_mode=WAL")
    holder.execute("CREATE TABLE t(x)")
    holder.commit()
    assert not wal_index_missing(db)  # a connection is open: -shm exists
    holder.close()
    rollback = tmp_path / "r.db"
    c = sqlite3.connect(rollback)
    c.execute("CREATE TABLE t(x)")
    c.commit()
    c.close()
    assert not wal_index_missing(rollback)
    assert not wal_index_missing(tmp_path / "absent.db")
    (tmp_path / "text.db").write_bytes(b"not a database at all, twenty bytes+")
    assert not wal_index_missing(tmp_path / "text.db")


def test_sync_leaves_a_closed_opencode_database_folder_as_it_was(box: Box) -> None:  # noqa: F811
    box.only("opencode")
    info = make_opencode_home(box.home)
    close_opencode_home(info)
    root = Path(info["root"])
    before = sorted(p.name for p in root.iterdir())
    assert "opencode.db" in before and "opencode.db-shm" not in before
    out = box.sync()
    assert out["sessions"]["failed"] == 0 and out["sessions"]["uploaded"] > 0
    assert sorted(p.name for p in root.iterdir()) == before
