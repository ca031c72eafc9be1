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
