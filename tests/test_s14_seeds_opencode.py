"""s14 seed-conformance audit, OpenCode (seeds/by-harness/opencode.json; map in
docs/seeds/opencode.md): the items no earlier test exercised.

Gotcha "User attachments are stored as base64 in the row": session_message / user
data.files[] = FileAttachment {data (base64), mime, source: {type: inline} | {type: uri, uri},
name?}. A text file attached that way carries whatever the file held (e-mail addresses, home
paths): the archived per-session extract must hold neither, in the base64 or decoded.
"""

from __future__ import annotations

import base64
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from tests.fx_s11_e2e import KEEP_OPEN, Canaries, build_in_child, decrypt_all, latest_manifest, leaks, sessions_by_key, setup

H = "opencode"
PRJ = "prj_0123456789abcdef0123456789abcdef01234567"
SID = "ses_0001ZZabcdefghijklmnopqrst"
SCHEMA = """
CREATE TABLE project (id TEXT PRIMARY KEY, worktree TEXT NOT NULL, vcs TEXT, name TEXT, time_created INTEGER,
  time_updated INTEGER);
CREATE TABLE session_v2 (id TEXT PRIMARY KEY, project_id TEXT NOT NULL, workspace_id TEXT, parent_id TEXT,
  fork_session_id TEXT, fork_boundary TEXT, slug TEXT, directory TEXT, path TEXT, title TEXT, version TEXT, revert TEXT,
  agent TEXT, model TEXT, time_created INTEGER, time_updated INTEGER);
CREATE TABLE session_message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, type TEXT NOT NULL, seq INTEGER NOT NULL,
  time_created INTEGER, time_updated INTEGER, data TEXT NOT NULL);
CREATE INDEX session_message_seq ON session_message(session_id, seq);
CREATE TABLE migration (id TEXT PRIMARY KEY, time INTEGER);
"""


def _home(home: Path, k: Canaries) -> dict[str, Any]:
    root = home / ".local" / "share" / "opencode"
    root.mkdir(parents=True)
    conn = sqlite3.connect(root / "opencode.db", isolation_level=None)
    KEEP_OPEN.append(conn)  # the WAL stays live: build_in_child exits without closing it
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA wal_autocheckpoint=0")
    conn.executescript(SCHEMA)
    cwd = k.path("cwd", "shop")
    conn.execute("INSERT INTO project VALUES (?,?,?,?,?,?)", (PRJ, cwd, "git", "shop", 1, 2))
    conn.execute("INSERT INTO migration VALUES ('20260804233008_loose_psylocke', 1)")
    conn.execute("INSERT INTO session_v2 (id, project_id, directory, title, version, agent, time_created, time_updated) "
                 "VALUES (?,?,?,?,?,?,?,?)", (SID, PRJ, cwd, "attachments", "2.1.4", "build", 1767261600000, 1767261660000))
    notes = f"owner: {k.parts('inline.email')['email']}\nlog: {k.path('inline.path', 'run.log')}\n".encode()
    csv = f"name,mail\nq,{k.parts('uri.email')['email']}\n".encode()
    files = [
        {"data": base64.b64encode(notes).decode(), "mime": "text/plain", "source": {"type": "inline"}, "name": "notes.txt"},
        {"data": base64.b64encode(csv).decode(), "mime": "text/csv",
         "source": {"type": "uri", "uri": "data:text/csv;base64," + base64.b64encode(csv).decode()}, "name": "people.csv"},
    ]
    conn.execute("INSERT INTO session_message VALUES (?,?,?,?,?,?,?)",
                 ("msg_0001", SID, "user", 1, 1767261600001, 1767261600001,
                  json.dumps({"text": "read these", "files": files, "time": {"created": 1767261600001}})))
    conn.execute("INSERT INTO session_message VALUES (?,?,?,?,?,?,?)",
                 ("msg_0002", SID, "assistant", 2, 1767261600002, 1767261600002,
                  json.dumps({"agent": "build", "content": [{"type": "text", "text": "done"}],
                              "time": {"created": 1767261600002, "completed": 1767261600003}})))
    return {"b64": [f["data"] for f in files]}


@pytest.fixture(scope="module")
def synced(tmp_path_factory: pytest.TempPathFactory) -> Any:
    tmp = tmp_path_factory.mktemp("opencode-attach")
    s = setup(tmp, H)
    built = build_in_child(_home, s.home, tmp / "built.json")
    assert (s.home / ".local/share/opencode/opencode.db-wal").stat().st_size > 0
    r = s.cli("sync")
    assert r.returncode == 0, r.stderr[-2000:]
    return built, decrypt_all(s)


def test_base64_text_attachments_are_redacted_in_the_archived_extract(synced: Any) -> None:
    built, plain = synced
    assert f"{H}:{SID}" in sessions_by_key(latest_manifest(plain))
    assert leaks(plain, built["needles"]) == []
    for b64 in built["facts"]["b64"]:  # the attachment as written is not in the archive
        assert not any(b64.encode() in data for data in plain.values())


def test_the_archived_attachments_decode_to_text_without_the_private_data(synced: Any, tmp_path: Path) -> None:
    """The redacted attachments are still base64 of text (OpenCode decodes them on resume), and
    the decoded text holds no canary."""
    built, plain = synced
    dbs = [data for data in plain.values() if data.startswith(b"SQLite format 3\x00")]
    assert len(dbs) == 1
    (tmp_path / "x.db").write_bytes(dbs[0])
    with sqlite3.connect(tmp_path / "x.db") as conn:
        (data,) = conn.execute("SELECT data FROM session_message WHERE type = 'user'").fetchone()
    files = json.loads(data)["files"]
    decoded = [base64.b64decode(f["data"]) for f in files]
    assert [f["mime"] for f in files] == ["text/plain", "text/csv"]
    assert decoded[0].startswith(b"owner: ") and decoded[1].startswith(b"name,mail\n")
    for text in decoded:
        assert [n for n, v in built["needles"] if v.encode() in text] == []


# ---------------------------------------------------------------- 1.x rows an upgrade never imported

V1_SCHEMA = """
CREATE TABLE project (id TEXT PRIMARY KEY, worktree TEXT NOT NULL, name TEXT);
CREATE TABLE session_v2 (id TEXT PRIMARY KEY, project_id TEXT NOT NULL, parent_id TEXT, directory TEXT, title TEXT,
  time_created INTEGER, time_updated INTEGER);
CREATE TABLE session_message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, type TEXT NOT NULL, seq INTEGER NOT NULL,
  data TEXT NOT NULL);
CREATE TABLE kv (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT, parent_id TEXT, title TEXT, directory TEXT,
  time_created INTEGER, time_updated INTEGER);
CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT, time_created INTEGER, data TEXT);
CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT, session_id TEXT, time_created INTEGER, data TEXT);
"""
IMPORTED, LATE, LATE_CHILD = "ses_0imported000000000000000", "ses_0late1x00000000000000000", "ses_0latechild0000000000000"


def _upgraded_db(root: Path) -> Path:
    """An upgraded database (seed gotcha: the 1.x session / message / part tables stay): IMPORTED
    is in session_v2 and, stale, in `session`; LATE and its subagent LATE_CHILD were written by a
    1.x build after the one-time import (kv migration.v1-v2 set), so only the 1.x tables hold them."""
    root.mkdir(parents=True)
    db = root / "opencode.db"
    with sqlite3.connect(db) as conn:
        conn.executescript(V1_SCHEMA)
        conn.execute("INSERT INTO project VALUES ('prj_1', '/home/alice/app', 'app')")
        conn.execute("INSERT INTO kv VALUES ('migration.v1-v2', '{}')")
        conn.execute("INSERT INTO session_v2 VALUES (?, 'prj_1', NULL, '/home/alice/app', 'imported', 1767261600000, 1767261600001)",
                     (IMPORTED,))
        conn.execute("INSERT INTO session_message VALUES ('msg_i1', ?, 'user', 1, ?)", (IMPORTED, json.dumps({"text": "hi"})))
        rows = [(IMPORTED, None, "imported (stale 1.x copy)", 1767261600000),
                (LATE, None, "written by 1.x after the import", 1767261700000),
                (LATE_CHILD, LATE, "its subagent", 1767261700500)]
        for sid, parent, title, t in rows:
            conn.execute("INSERT INTO session VALUES (?, 'prj_1', ?, ?, '/home/alice/app', ?, ?)", (sid, parent, title, t, t + 1))
        conn.execute("INSERT INTO message VALUES ('msg_l1', ?, 1, ?)", (LATE, json.dumps({"role": "user"})))
        conn.execute("INSERT INTO message VALUES ('msg_l2', ?, 2, ?)", (LATE, json.dumps({"role": "assistant", "time": {"created": 2}})))
        conn.execute("INSERT INTO part VALUES ('prt_l1', 'msg_l1', ?, 1, ?)", (LATE, json.dumps({"type": "text", "text": "late hello"})))
        conn.execute("INSERT INTO part VALUES ('prt_l2', 'msg_l2', ?, 2, ?)",
                     (LATE, json.dumps({"type": "tool", "callID": "call_task", "tool": "task",
                                        "state": {"status": "completed", "metadata": {"sessionId": LATE_CHILD}}})))
    return db


def _oc_discover(home: Path, cache: dict[str, str] | None = None) -> dict[str, Any]:
    from archiver.harnesses.base import HarnessContext
    from archiver.harnesses.opencode import OpenCode
    h = OpenCode(HarnessContext(home=home, env={}, cache=cache if cache is not None else {}))
    try:
        return {s.key: s for s in h.discover()}
    finally:
        h.close()


def test_a_1x_session_an_upgraded_database_never_imported_is_archived(tmp_path: Path) -> None:
    """Ambiguous in the seed (the 1.x tables of an upgraded database are "stale pre-import data"),
    resolved as a backup must: a session only those tables hold is no stale copy of anything, so
    it is a session, with its 1.x lineage, archived from them; the stale copy of an imported
    session is not listed twice."""
    from archiver.harnesses.base import HarnessContext
    from archiver.harnesses.opencode import OpenCode

    home = tmp_path / "home"
    _upgraded_db(home / ".local" / "share" / "opencode")
    h = OpenCode(HarnessContext(home=home, env={}))
    try:
        found = {s.key: s for s in h.discover()}
        assert sorted(k for k in found if not k.startswith(f"{H}:@")) == sorted(f"{H}:{x}" for x in (IMPORTED, LATE, LATE_CHILD))
        late = found[f"{H}:{LATE}"]
        assert (late.kind, late.title, late.cwd) == ("main", "written by 1.x after the import", "/home/alice/app")
        assert any("only in the 1.x tables" in w for w in late.warnings)
        assert not any("only in the 1.x tables" in w for w in found[f"{H}:{IMPORTED}"].warnings)
        assert found[f"{H}:{IMPORTED}"].title == "imported"  # from session_v2, not the stale copy
        child = found[f"{H}:{LATE_CHILD}"]
        assert [(e.relation, e.parent, e.at) for e in child.parents] == [("subagent", f"{H}:{LATE}", "call_task")]
        # its extract holds its 1.x rows and the project it needs, nothing of the others
        dst = tmp_path / "late.db"
        late.sources[0].produce(dst)  # type: ignore[misc]
        with sqlite3.connect(dst) as conn:
            assert conn.execute("SELECT id, title FROM session").fetchall() == [(LATE, "written by 1.x after the import")]
            assert conn.execute("SELECT count(*) FROM session_v2").fetchone() == (0,)
            assert sorted(conn.execute("SELECT id FROM message")) == [("msg_l1",), ("msg_l2",)]
            assert sorted(conn.execute("SELECT id FROM part")) == [("prt_l1",), ("prt_l2",)]
            assert conn.execute("SELECT id FROM project").fetchall() == [("prj_1",)]
    finally:
        h.close()


def test_facts_cached_before_unimported_rows_were_listed_are_read_again(tmp_path: Path) -> None:
    """The facts cache key is unchanged (opencode:facts:v3): an entry written by the older
    collector (no "table" in its facts) must not hide the 1.x-only sessions."""
    home = tmp_path / "home"
    _upgraded_db(home / ".local" / "share" / "opencode")
    cache: dict[str, str] = {}
    _oc_discover(home, cache)
    (key,) = [k for k in cache if k.startswith("opencode:facts:")]
    facts = [f for f in json.loads(cache[key]) if f.get("table") == "session_v2"]
    for f in facts:
        del f["table"]
    cache[key] = json.dumps(facts)  # what the older collector cached: session_v2 rows only
    assert f"{H}:{LATE}" in _oc_discover(home, cache)
    assert all("table" in f for f in json.loads(cache[key]))
