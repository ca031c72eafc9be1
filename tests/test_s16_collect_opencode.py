"""OpenCode: opencode.db corrupted on disk after a good archive (seed opencode.json: one shared
SQLite database in WAL mode; discovery keys what it read on the database's identity, inode /
size / mtime and the -wal's, archiver/harnesses/common.py sqlite_identity).

A page broken in place with header, size and mtime kept is taken as unchanged: nothing is read,
the archived copies stay. A broken page that a later write makes visible (mtime changed) is read
and fails: the sessions it holds are not re-archived, and their good archived copies stay the
latest. Nothing archived is lost either way."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path
from typing import Any

from archiver.harnesses.base import HarnessContext, load_harness
from tests.fx_s11_e2e import Setup, decrypt_all, latest_manifest, sessions_by_key, setup
from tests.test_s11_e2e_opencode import PRJ, SCHEMA, mid

H = "opencode"
A, B = "ses_0001YYabcdefghijklmnopqrst", "ses_0002YYabcdefghijklmnopqrst"
N = 60  # messages per session: several leaf pages each
PAGE = 4096


def _db(home: Path, name: str = "opencode.db") -> Path:
    root = home / ".local" / "share" / "opencode"
    root.mkdir(parents=True, exist_ok=True)
    db = root / name
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute(f"PRAGMA page_size={PAGE}")
    conn.execute("PRAGMA journal_mode=WAL")
    conn.executescript(SCHEMA)
    conn.execute("INSERT INTO project (id, worktree, vcs, time_created, time_updated) VALUES (?, '/srv/app', 'git', 1, 2)",
                 (PRJ,))
    for n, sid in enumerate((A, B), 1):
        conn.execute("INSERT INTO session_v2 (id, project_id, directory, title, version, time_created, time_updated) "
                     "VALUES (?, ?, '/srv/app', ?, '2.1.4', ?, ?)", (sid, PRJ, f"session {n}", 1767261600000 + n,
                                                                     1767261660000 + n))
        for i in range(N):
            data = {"text": f"MARK-{sid}-{i:03d} " + "lorem ipsum " * 20, "time": {"created": 1767261600000 + i}}
            conn.execute("INSERT INTO session_message VALUES (?,?,?,?,?,?,?)",
                         (mid(sid, i), sid, "user", i, 1767261600000 + i, 1767261600000 + i, json.dumps(data)))
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    Path(f"{db}-wal").unlink(missing_ok=True)
    return db


def _rows(db: Path, sid: str) -> list[tuple[Any, ...]]:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return conn.execute("SELECT id, seq, data FROM session_message WHERE session_id = ? ORDER BY seq",
                            (sid,)).fetchall()
    finally:
        conn.close()


def _archived(s: Setup, tmp: Path) -> dict[str, tuple[list[str], list[tuple[Any, ...]]]]:
    """Session key -> (objects of its database artifact, the session_message rows they hold)."""
    plain = decrypt_all(s)
    out = {}
    for key, sess in sessions_by_key(latest_manifest(plain)).items():
        arts = [a for a in sess["artifacts"] if a["path"] == ".local/share/opencode/opencode.db"]
        if not arts:
            continue
        objs = arts[0]["objects"]
        assert len(objs) == 1, objs
        data = next(v for k, v in plain.items() if k.startswith("objects/") and k.endswith(objs[0]))
        f = tmp / f"{key.replace(':', '_')}.db"
        f.write_bytes(data)
        out[key] = (objs, _rows(f, key.split(":", 1)[1]))
    return out


def _break_page(db: Path, marker: bytes) -> int:
    """Overwrite the b-tree header of the leaf page holding `marker` (type byte, cell count and
    cell pointers) in place: same inode, size, and (set back) mtime; page 1 (the header) is not
    touched. Returns the page number."""
    st = db.stat()
    with open(db, "r+b") as f:
        data = f.read()
        at = data.index(marker)
        page = at // PAGE
        assert page > 0
        f.seek(page * PAGE)
        f.write(b"\xff" * 64)
    os.utime(db, ns=(st.st_atime_ns, st.st_mtime_ns))
    after = db.stat()
    assert (after.st_ino, after.st_size, after.st_mtime_ns) == (st.st_ino, st.st_size, st.st_mtime_ns)
    return page + 1


def _sync(s: Setup) -> Any:
    return s.cli("sync", "--json")


def test_a_page_broken_after_a_good_archive_never_replaces_it(tmp_path: Path) -> None:
    s = setup(tmp_path, H)
    db = _db(s.home)
    good = {f"{H}:{sid}": _rows(db, sid) for sid in (A, B)}
    r = _sync(s)
    assert r.returncode == 0, r.stderr[-2000:]
    (tmp_path / "x1").mkdir()
    first = _archived(s, tmp_path / "x1")
    assert {k: v[1] for k, v in first.items()} == good

    # 1. broken in place, identity unchanged: taken as unchanged, nothing re-archived
    page = _break_page(db, f"MARK-{A}-030".encode())
    try:  # it is broken
        assert _rows(db, A) != good[f"{H}:{A}"], page
    except sqlite3.DatabaseError as e:
        assert "malformed" in str(e)
    r = _sync(s)
    assert r.returncode == 0, r.stderr[-2000:]
    (tmp_path / "x2").mkdir()
    second = _archived(s, tmp_path / "x2")
    assert second == first

    # 2. a later write elsewhere changes the identity: the database is read again; the broken
    # session must not be archived from the broken page, the good copy stays the latest
    os.utime(db, ns=(db.stat().st_atime_ns, db.stat().st_mtime_ns + 5_000_000_000))
    r = _sync(s)
    (tmp_path / "x3").mkdir()
    third = _archived(s, tmp_path / "x3")
    assert third[f"{H}:{A}"] == first[f"{H}:{A}"], (r.returncode, r.stdout[-3000:], r.stderr[-2000:])
    assert third[f"{H}:{B}"][1] == good[f"{H}:{B}"]
    # and the run fails it (exit 1), naming the session, its database and the reason
    assert r.returncode == 1, r.stderr[-2000:]
    out = json.loads(r.stdout)
    assert out["objects_uploaded"] == 0 and out["sessions"]["failed"] == 1
    assert out["errors"] == [
        f"{H}:{A}: .local/share/opencode/opencode.db: session {A} not read (DatabaseError: database disk image is malformed)"]
    assert f"{H}:{A}" not in out["session_warnings"] and f"{H}:{B}" not in out["session_warnings"]


def test_the_v1_sessions_db_restore_writes_is_read_only_when_opencode_would(tmp_path: Path) -> None:
    """Restore puts 1.x sessions it cannot merge into an already-imported opencode.db in
    `opencode.v1-sessions.db`. OpenCode opens opencode.db, OPENCODE_DB (relative to the data
    dir), opencode-next.db and opencode-<channel>.db (seed layout), so it sees that file only
    through OPENCODE_DB; discovery reads the same files, no more."""
    home = tmp_path / "home"
    _db(home, "opencode.db")
    beside = _db(home, "opencode.v1-sessions.db")
    conn = sqlite3.connect(beside, isolation_level=None)
    conn.execute("DELETE FROM session_message WHERE session_id = ?", (B,))
    conn.execute("DELETE FROM session_v2 WHERE id = ?", (B,))
    conn.execute("UPDATE session_v2 SET id = 'ses_0003YYabcdefghijklmnopqrst' WHERE id = ?", (A,))
    conn.close()

    def found(env: dict[str, str]) -> dict[str, list[str]]:
        h = load_harness(H, HarnessContext(home=home, env=env))
        try:
            return {s.key: [a.path for a in s.sources if a.role == "database"] for s in h.discover()}
        finally:
            h.close()  # type: ignore[attr-defined]

    assert found({}) == {f"{H}:{A}": [".local/share/opencode/opencode.db"],
                         f"{H}:{B}": [".local/share/opencode/opencode.db"]}
    got = found({"OPENCODE_DB": "opencode.v1-sessions.db"})
    assert got[f"{H}:ses_0003YYabcdefghijklmnopqrst"] == [".local/share/opencode/opencode.v1-sessions.db"]
