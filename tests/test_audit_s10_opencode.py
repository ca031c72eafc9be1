"""Audit s10: OpenCode's JSON storage (seeds/by-harness/opencode.json: `storage/` is the 1.x remnant
of pre-SQLite builds, session_diff per session) generated here: a pre-SQLite install's sessions
live only in storage/session/<project>/<sid>.json + message/<sid>/ + part/<msg>/, and an upgraded
install keeps storage/session_diff/<sid>.json next to the session's rows in opencode.db."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from archiver.harnesses.base import HarnessContext
from archiver.harnesses.opencode import OpenCode
from archiver.model import DiscoveredSession, LineageEdge

OC = ".local/share/opencode"
PARENT = "ses_0a1b2c3d4eParentAAAAAAAAAA"
CHILD = "ses_0a1b2c3d4eChildBBBBBBBBBBB"
DBSES = "ses_0a1b2c3d4eInDatabaseCCCCCC"


def _write(f: Path, obj: object) -> None:
    f.parent.mkdir(parents=True, exist_ok=True)
    f.write_text(json.dumps(obj))


def _storage_home(home: Path) -> Path:
    st = home / OC / "storage"
    for sid, parent, title in ((PARENT, None, "fix the build"), (CHILD, PARENT, "explore (@explore subagent)")):
        info = {"id": sid, "projectID": "prj_1", "directory": "/home/alice/app", "title": title,
                "time": {"created": 1750000000000, "updated": 1750000005000}}
        if parent:
            info["parentID"] = parent
        _write(st / "session" / "prj_1" / f"{sid}.json", info)
        msg = f"msg_{sid[-6:]}"
        _write(st / "message" / sid / f"{msg}.json", {"id": msg, "sessionID": sid, "role": "user"})
        _write(st / "part" / msg / "prt_1.json", {"id": "prt_1", "messageID": msg, "sessionID": sid, "type": "text"})
    # a part whose message file is gone still names its session
    _write(st / "part" / "msg_gone" / "prt_9.json", {"id": "prt_9", "messageID": "msg_gone", "sessionID": PARENT})
    _write(st / "session_diff" / f"{PARENT}.json", [{"file": "a.txt", "before": "x", "after": "y"}])
    _write(st / "todo" / f"{PARENT}.json", [{"content": "x", "status": "pending"}])
    _write(st / "project" / "prj_1.json", {"id": "prj_1", "worktree": "/home/alice/app"})
    (st / "migration").write_text("2")
    return st


def _discover(home: Path) -> dict[str, DiscoveredSession]:
    harness = OpenCode(HarnessContext(home=home, env={}))
    try:
        return {s.session_id: s for s in harness.discover()}
    finally:
        harness.close()


def _paths(s: DiscoveredSession) -> list[tuple[str, str, str]]:
    return [(src.path, src.role, src.format) for src in s.sources]


def test_pre_sqlite_storage_sessions_are_sessions_with_their_files_and_lineage(tmp_path: Path) -> None:
    _storage_home(tmp_path)
    found = _discover(tmp_path)
    assert sorted(found) == sorted([PARENT, CHILD, "@host"])
    p, c = found[PARENT], found[CHILD]
    assert (p.kind, p.title, p.created_at, p.updated_at, p.cwd) == (
        "main", "fix the build", "2025-06-15T15:06:40Z", "2025-06-15T15:06:45Z", "/home/alice/app")
    assert c.kind == "subagent"
    assert c.parents == [LineageEdge(relation="subagent", parent=f"opencode:{PARENT}")]
    assert sorted(_paths(p)) == sorted([
        (f"{OC}/storage/session/prj_1/{PARENT}.json", "transcript", "json"),
        (f"{OC}/storage/message/{PARENT}/msg_AAAAAA.json", "transcript", "json"),
        (f"{OC}/storage/part/msg_AAAAAA/prt_1.json", "transcript", "json"),
        (f"{OC}/storage/part/msg_gone/prt_9.json", "transcript", "json"),
        (f"{OC}/storage/session_diff/{PARENT}.json", "sidecar", "json"),
        (f"{OC}/storage/todo/{PARENT}.json", "sidecar", "json"),
    ])
    assert sorted(_paths(c)) == sorted([
        (f"{OC}/storage/session/prj_1/{CHILD}.json", "transcript", "json"),
        (f"{OC}/storage/message/{CHILD}/msg_BBBBBB.json", "transcript", "json"),
        (f"{OC}/storage/part/msg_BBBBBB/prt_1.json", "transcript", "json"),
    ])
    assert _paths(found["@host"]) == [
        (f"{OC}/storage/migration", "sidecar", "text"),
        (f"{OC}/storage/project/prj_1.json", "sidecar", "json"),
    ]


def test_session_diff_goes_with_the_database_session_it_names(tmp_path: Path) -> None:
    db_path = tmp_path / OC / "opencode.db"
    db_path.parent.mkdir(parents=True)
    db = sqlite3.connect(str(db_path), isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("CREATE TABLE session_v2(id TEXT PRIMARY KEY, project_id TEXT, parent_id TEXT, fork_session_id TEXT, "
               "directory TEXT, title TEXT, time_created INTEGER, time_updated INTEGER)")
    db.execute("CREATE TABLE session_message(id TEXT PRIMARY KEY, session_id TEXT, type TEXT, seq INTEGER, data TEXT)")
    db.execute("INSERT INTO session_v2 VALUES(?, 'prj_1', NULL, NULL, '/home/alice/app', 'in db', 1767261600000, "
               "1767261600000)", (DBSES,))
    db.close()
    _write(tmp_path / OC / "storage" / "session_diff" / f"{DBSES}.json", [])
    found = _discover(tmp_path)
    assert sorted(found) == [DBSES]  # nothing left for @host
    assert _paths(found[DBSES]) == [
        (f"{OC}/opencode.db", "database", "sqlite"),
        (f"{OC}/storage/session_diff/{DBSES}.json", "sidecar", "json"),
    ]


def test_older_storage_layout_under_session_is_grouped_too(tmp_path: Path) -> None:
    st = tmp_path / OC / "storage"
    _write(st / "session" / "info" / f"{PARENT}.json", {"id": PARENT, "title": "old layout"})
    _write(st / "session" / "message" / PARENT / "msg_1.json", {"id": "msg_1", "sessionID": PARENT})
    _write(st / "session" / "part" / PARENT / "msg_1" / "prt_1.json", {"id": "prt_1", "type": "text"})
    _write(st / "share" / f"{CHILD}.json", {"url": "https://example.invalid/s/x"})
    found = _discover(tmp_path)
    assert sorted(found) == sorted([PARENT, CHILD])
    assert found[PARENT].title == "old layout"
    assert sorted(p for p, _r, _f in _paths(found[PARENT])) == sorted([
        f"{OC}/storage/session/info/{PARENT}.json",
        f"{OC}/storage/session/message/{PARENT}/msg_1.json",
        f"{OC}/storage/session/part/{PARENT}/msg_1/prt_1.json",
    ])
    # a session only a share file names: archived with a warning that its info is missing
    assert _paths(found[CHILD]) == [(f"{OC}/storage/share/{CHILD}.json", "sidecar", "json")]
    assert found[CHILD].warnings == [f"{OC}/storage: files of session {CHILD} but no session info file"]
