"""Outsider end-to-end audit of the OpenCode collector (seeds/by-harness/opencode.json).

A home built by this file's own generator: opencode.db in WAL mode with a live -wal holding
session_v2 rows (a main session, a subagent, a fork with copied rows and a staged revert, a
session whose optional columns are NULL), every session_message kind (system, agent-switched,
user with an inline attachment and mentions, skill, assistant with reasoning / text / tool
blocks and snapshots, shell, synthetic subagent notice, location-switched, compaction, idle, an
in-flight assistant row), session_inbox, instruction_*, event / event_sequence, kv, project,
workspace, permission, credential, migration and the untouched 1.x tables; tool-output/ and
shell/ sidecars, a snapshot/ git dir, the 1.x storage/ JSON remnant, and a channel database that
is not SQLite. A canary sits in every string field. The real CLI syncs it to a file:// store; the
objects are read back with `age` and `zstd` only.
"""

from __future__ import annotations

import base64
import hashlib
import json
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.fx_s11_e2e import (
    KEEP_OPEN, OTHER, Canaries, build_in_child, decrypt_all, edges, latest_manifest, leaks, sessions_by_key, setup,
    tree_leaks,
)

H = "opencode"
SCHEMA = """
CREATE TABLE project (id TEXT PRIMARY KEY, worktree TEXT NOT NULL, vcs TEXT, name TEXT, icon_url TEXT, time_created INTEGER,
  time_updated INTEGER, sandboxes TEXT);
CREATE TABLE workspace (id TEXT PRIMARY KEY, project_id TEXT, directory TEXT, branch TEXT, name TEXT);
CREATE TABLE session_v2 (id TEXT PRIMARY KEY, project_id TEXT NOT NULL, workspace_id TEXT, parent_id TEXT, fork_session_id TEXT,
  fork_boundary TEXT, slug TEXT, directory TEXT, path TEXT, title TEXT, version TEXT, share_url TEXT, summary_additions INTEGER,
  summary_deletions INTEGER, summary_files INTEGER, summary_diffs TEXT, metadata TEXT, cost REAL, tokens_input INTEGER,
  tokens_output INTEGER, tokens_reasoning INTEGER, tokens_cache_read INTEGER, tokens_cache_write INTEGER, revert TEXT,
  permission TEXT, agent TEXT, model TEXT, time_created INTEGER, time_updated INTEGER, time_idle INTEGER, idle_outcome TEXT,
  time_viewed INTEGER, time_compacting INTEGER, time_archived INTEGER, time_suspended INTEGER, resume_attempts INTEGER);
CREATE INDEX session_v2_parent ON session_v2(parent_id);
CREATE TABLE session_message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, type TEXT NOT NULL, seq INTEGER NOT NULL,
  time_created INTEGER, time_updated INTEGER, data TEXT NOT NULL);
CREATE INDEX session_message_seq ON session_message(session_id, seq);
CREATE TABLE session_inbox (id TEXT PRIMARY KEY, session_id TEXT, type TEXT, payload TEXT, delivery TEXT, enqueued_seq INTEGER,
  time_created INTEGER);
CREATE TABLE instruction_entry (session_id TEXT, key TEXT, value TEXT, removed INTEGER, PRIMARY KEY(session_id, key));
CREATE TABLE instruction_state (session_id TEXT PRIMARY KEY, epoch_start INTEGER, through_seq INTEGER, initial_values TEXT,
  current_values TEXT);
CREATE TABLE instruction_blob (hash TEXT PRIMARY KEY, value TEXT);
CREATE TABLE event (id TEXT PRIMARY KEY, aggregate_id TEXT, seq INTEGER, created INTEGER, type TEXT, data TEXT);
CREATE TABLE event_sequence (aggregate_id TEXT PRIMARY KEY, seq INTEGER, owner_id TEXT);
CREATE TABLE kv (key TEXT PRIMARY KEY, value TEXT, time_created INTEGER, time_updated INTEGER);
CREATE TABLE permission (project_id TEXT PRIMARY KEY, data TEXT);
CREATE TABLE credential (id TEXT PRIMARY KEY, data TEXT);
CREATE TABLE migration (id TEXT PRIMARY KEY, time INTEGER);
CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT, parent_id TEXT, title TEXT, directory TEXT, time_created INTEGER,
  time_updated INTEGER);
CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT, time_created INTEGER, time_updated INTEGER, data TEXT);
CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT, session_id TEXT, time_created INTEGER, time_updated INTEGER, data TEXT);
"""
PRJ = "prj_0123456789abcdef0123456789abcdef01234567"
MAIN, CHILD, FORK, BARE = (f"ses_{n:04d}ZZabcdefghijklmnopqrst" for n in (1, 2, 3, 4))
OLD = "ses_0old0000000000000000000000"  # known only from storage/ JSON
TOOL_OUT = "tool_0123456789ABCDEFGHIJKLMNOP"
SH = "sh_0a1b2c3d4e5fAbCdEfGhIjKlMn"


def J(o: Any) -> str:
    return json.dumps(o, ensure_ascii=False)


def mid(sid: str, n: int) -> str:
    return f"msg_{sid[4:10]}{n:04d}abcdefghijklmnop"


def build(home: Path, k: Canaries) -> dict[str, Any]:
    c, path = k.c, k.path
    root = home / ".local" / "share" / "opencode"
    root.mkdir(parents=True)
    conn = sqlite3.connect(root / "opencode.db", isolation_level=None)
    KEEP_OPEN.append(conn)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA wal_autocheckpoint=0")
    conn.executescript(SCHEMA)
    cwd = path("cwd", "app-ü")
    conn.execute("INSERT INTO project VALUES (?,?,?,?,?,?,?,?)",
                 (PRJ, cwd, "git", c("project.name"), None, 1, 2, J([path("sandbox")])))
    conn.execute("INSERT INTO workspace VALUES (?,?,?,?,?)", ("wrk_1", PRJ, path("ws.dir"), c("ws.branch"), c("ws.name")))
    conn.execute("INSERT INTO kv VALUES ('migration.v1-v2', ?, 1, 2)", (J({"note": c("kv.mig")}),))
    conn.execute("INSERT INTO kv VALUES ('other', ?, 1, 2)", (c("kv.other"),))
    conn.execute("INSERT INTO credential VALUES ('c1', ?)", (c("credential"),))
    conn.execute("INSERT INTO permission VALUES (?, ?)", (PRJ, c("permission")))
    conn.execute("INSERT INTO migration VALUES ('20260804233008_loose_psylocke', 1)")
    gitdir = root / "snapshot" / PRJ / "0d3e4f"
    subprocess.run(["git", "init", "-q", "--bare", str(gitdir)], check=True)
    snap = subprocess.run(["git", "--git-dir", str(gitdir), "hash-object", "-w", "--stdin"],
                          input=c("snapshot.blob").encode(), capture_output=True, check=True).stdout.decode().strip()
    blob_sha = hashlib.sha256(b"agents").hexdigest()

    def session(sid: str, n: int, **kw: Any) -> None:
        row: dict[str, Any] = dict(
            id=sid, project_id=PRJ, workspace_id="wrk_1", parent_id=None, fork_session_id=None, fork_boundary=None,
            slug=c(f"{n}.slug"), directory=cwd, path="sub/dir", title=c(f"{n}.title"), version="2.1.4",
            share_url="https://opncd.ai/s/" + k.parts(f"{n}.share")["email"], summary_additions=1, summary_deletions=0,
            summary_files=1, summary_diffs=J([{"file": path(f"{n}.diff", "a.py"), "before": c(f"{n}.before"), "after": c(f"{n}.after")}]),
            metadata=J({"host": c(f"{n}.meta")}), cost=0.01, tokens_input=1, tokens_output=1, tokens_reasoning=0,
            tokens_cache_read=0, tokens_cache_write=0, revert=None,
            permission=J([{"pattern": path(f"{n}.perm") + "/*", "action": "allow"}]), agent="build",
            model=J({"id": "m", "providerID": "p"}), time_created=1767261600000 + n, time_updated=1767261660000 + n,
            time_idle=None, idle_outcome=None, time_viewed=None, time_compacting=None, time_archived=None,
            time_suspended=None, resume_attempts=0)
        row.update(kw)
        conn.execute(f"INSERT INTO session_v2 ({','.join(row)}) VALUES ({','.join('?' * len(row))})", list(row.values()))

    def msg(sid: str, n: int, typ: str, data: dict[str, Any]) -> None:
        conn.execute("INSERT INTO session_message VALUES (?,?,?,?,?,?,?)",
                     (mid(sid, n), sid, typ, n, 1767261600000 + n, 1767261600000 + n, J(data)))

    tm = {"created": 1767261600000}
    session(MAIN, 1)
    msg(MAIN, 1, "system", {"text": c("system"), "description": c("sysdesc"), "time": tm,
                            "metadata": {"notice": "instructions", "instructionSources": [path("src", "AGENTS.md")]}})
    msg(MAIN, 2, "agent-switched", {"agent": "plan", "previous": "build", "time": tm})
    msg(MAIN, 3, "user", {"text": c("user"), "time": tm, "metadata": {"src": c("user.meta")},
                          "files": [{"data": base64.b64encode(b"attached bytes").decode(), "mime": "text/plain",
                                     "source": {"type": "uri", "uri": "file://" + path("attachuri", "n.txt")},
                                     "name": c("attachname"), "description": c("attachdesc")}],
                          "agents": [{"name": "explore", "mention": {"start": 0, "end": 8, "text": "@explore"}}],
                          "skills": [{"id": "sk1", "name": "x", "text": c("skilltext")}]})
    msg(MAIN, 4, "skill", {"skill": "sk1", "name": c("skillname"), "text": c("skill"), "time": tm})
    msg(MAIN, 5, "assistant", {
        "agent": "build", "model": {"id": "m", "providerID": "p"},
        "content": [{"type": "reasoning", "text": c("reason"), "native": {"sig": c("sig")}},
                    {"type": "text", "text": c("text")},
                    {"type": "tool", "id": "call_read", "name": "read", "executed": True,
                     "state": {"status": "completed", "input": {"path": path("readpath", "f.py")},
                               "content": [{"type": "text", "text": c("toolres")},
                                           {"type": "file", "uri": "data:image/png;base64,iVBORw0KGgo=", "mime": "image/png",
                                            "name": c("imgname")}],
                               "metadata": {"truncated": True, "outputPath": str(root / "tool-output" / TOOL_OUT)}}},
                    {"type": "tool", "id": "call_sub", "name": "subagent", "executed": True,
                     "state": {"status": "completed", "input": {"prompt": c("subprompt"), "description": c("subdesc")},
                               "content": [{"type": "text", "text": f"sessionID {CHILD}"}], "metadata": {"sessionID": CHILD}}}],
        "snapshot": {"start": snap, "end": snap, "files": [path("snapfile", "g.py")]},
        "finish": "tool-calls", "cost": 0.1, "tokens": {"input": 1, "output": 1, "reasoning": 0, "cache": {"read": 0, "write": 0}},
        "error": {"type": "x", "message": c("err")}, "time": {"created": 1, "completed": 2}})
    msg(MAIN, 6, "shell", {"shellID": SH, "command": c("shellcmd"), "status": "exited", "exit": 0,
                           "output": {"output": c("shellout"), "cursor": 1, "size": 1, "truncated": True},
                           "time": {"created": 1, "completed": 2}})
    msg(MAIN, 7, "synthetic", {"text": f'<subagent sessionID="{CHILD}">' + c("synth") + "</subagent>", "description": c("synthdesc"),
                               "metadata": {"source": "subagent", "childID": CHILD, "agent": "explore", "state": "completed"},
                               "time": tm})
    msg(MAIN, 8, "location-switched", {"location": {"directory": path("loc")}, "projectID": PRJ, "subpath": c("subpath"),
                                       "previous": {"location": {"directory": cwd}}, "time": tm})
    msg(MAIN, 9, "compaction", {"status": "completed", "reason": "auto", "summary": c("compsum"),
                                "metadata": {"keepID": mid(MAIN, 7), "recent": c("recent")},
                                "native": {"messages": [c("native")]}, "time": tm})
    msg(MAIN, 10, "idle", {"outcome": "failed", "time": tm,
                           "error": {"type": "provider", "message": c("idleerr"), "response": {"body": c("body")}}})
    msg(MAIN, 12, "assistant", {"agent": "build", "content": [{"type": "text", "text": c("inflight")}], "time": {"created": 5}})
    conn.execute("INSERT INTO session_inbox VALUES (?,?,?,?,?,?,?)", (mid(MAIN, 99), MAIN, "user", J({"text": c("inbox")}), "queue", 12, 1))
    conn.execute("INSERT INTO instruction_entry VALUES (?,?,?,0)", (MAIN, k.parts("ikey")["email"], J(c("ival"))))
    conn.execute("INSERT INTO instruction_state VALUES (?,0,2,?,?)", (MAIN, J({"project/agents.md": blob_sha}), J({"project/agents.md": blob_sha})))
    conn.execute("INSERT INTO instruction_blob VALUES (?,?)", (blob_sha, J(c("iblob"))))
    conn.execute("INSERT INTO event VALUES ('evt_1', ?, 1, 1, 'session.step.started.1', ?)", (MAIN, J({"x": c("event")})))
    conn.execute("INSERT INTO event_sequence VALUES (?, 12, NULL)", (MAIN,))
    session(CHILD, 2, parent_id=MAIN)
    msg(CHILD, 1, "user", {"text": c("child.user"), "time": tm})
    msg(CHILD, 2, "assistant", {"content": [{"type": "text", "text": c("child.text")}], "time": {"created": 1, "completed": 2}})
    session(FORK, 3, fork_session_id=MAIN, fork_boundary=J({"type": "through", "messageID": mid(MAIN, 3)}),
            revert=J({"messageID": mid(FORK, 2), "snapshot": snap, "files": [path("revertfile")]}))
    for n in (1, 2, 3):  # settled rows up to the boundary, copied with new ids and the same seq
        conn.execute("INSERT INTO session_message VALUES (?,?,?,?,?,?,?)",
                     (f"msg_evt{n}_{n}", FORK, "user", n, 1, 1, J({"text": c(f"fork.copy{n}")})))
    session(BARE, 4, title=None, slug=None, path=None, metadata=None, summary_diffs=None, permission=None, workspace_id=None)
    conn.execute("INSERT INTO session VALUES (?,?,?,?,?,1,2)", (MAIN, PRJ, None, c("v1.title"), cwd))
    conn.execute("INSERT INTO message VALUES ('msg_v1', ?, 1, 2, ?)", (MAIN, J({"role": "user", "system": c("v1.sys")})))
    conn.execute("INSERT INTO part VALUES ('prt_v1', 'msg_v1', ?, 1, 2, ?)", (MAIN, J({"type": "text", "text": c("v1.part")})))
    (root / "tool-output").mkdir()
    (root / "tool-output" / TOOL_OUT).write_text(c("tooloutput.file") + "\n" + "line\n" * 3000)
    (root / "shell" / PRJ).mkdir(parents=True)
    (root / "shell" / PRJ / f"{SH}.out").write_text(c("shell.file"))
    st = root / "storage"
    st.mkdir()
    (st / "migration").write_text("7")
    (st / "session_diff").mkdir()
    (st / "session_diff" / f"{MAIN}.json").write_text(J([{"file": path("sdiff", "z.py"), "before": c("sdiff.before"), "after": c("sdiff.after")}]))
    (st / "session" / PRJ).mkdir(parents=True)
    (st / "session" / PRJ / f"{OLD}.json").write_text(J({"id": OLD, "title": c("st.title"), "directory": path("st.dir"),
                                                         "time": {"created": 1767000000000, "updated": 1767000001000}}))
    (st / "message" / OLD).mkdir(parents=True)
    (st / "message" / OLD / "msg_old1.json").write_text(J({"id": "msg_old1", "sessionID": OLD, "role": "user", "path": {"cwd": path("st.msgcwd")}}))
    (st / "part" / "msg_old1").mkdir(parents=True)
    (st / "part" / "msg_old1" / "prt_old1.json").write_text(J({"id": "prt_old1", "messageID": "msg_old1", "sessionID": OLD,
                                                              "type": "text", "text": c("st.part")}))
    (root / "opencode-beta.db").write_bytes(b"SQLite format 3\x00" + b"garbage" * 100)  # a channel database, corrupt
    return {"cwd": cwd}


@pytest.fixture(scope="module")
def synced(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, dict[str, Any], dict[str, bytes], dict[str, Any]]:
    tmp_path = tmp_path_factory.mktemp("opencode")
    s = setup(tmp_path, H)
    built = build_in_child(build, s.home, tmp_path / "built.json")
    assert (s.home / ".local/share/opencode/opencode.db-wal").stat().st_size > 0
    r = s.cli("sync")
    plain = decrypt_all(s)
    return s, built, plain, {"rc": r.returncode, "stderr": r.stderr, "manifest": latest_manifest(plain)}


def test_sync_archives_every_session_and_sidecar_with_no_canary_left(synced: Any) -> None:
    s, built, plain, run = synced
    # the corrupt channel database holds sessions that are not archived: the run says so (exit 1)
    assert run["rc"] == 1, run["stderr"][-2000:]
    assert "opencode:@host: .local/share/opencode/opencode-beta.db: not readable" in run["stderr"]
    assert leaks(plain, built["needles"]) == []
    by = sessions_by_key(run["manifest"])
    assert set(by) == {f"{H}:{x}" for x in (MAIN, CHILD, FORK, BARE, OLD, "@host", f"@project-{PRJ}")}
    # the corrupt channel database fails only itself: named, with the reason, on the host session
    assert by[f"{H}:@host"]["warnings"] == [
        ".local/share/opencode/opencode-beta.db: not readable (DatabaseError: file is not a database); "
        "its sessions are not archived this run"]
    paths = {key: {a["path"] for a in ses["artifacts"]} for key, ses in by.items()}
    db = ".local/share/opencode/opencode.db"
    assert paths[f"{H}:{MAIN}"] == {db, f".local/share/opencode/tool-output/{TOOL_OUT}",
                                     f".local/share/opencode/shell/{PRJ}/{SH}.out",
                                     f".local/share/opencode/storage/session_diff/{MAIN}.json"}
    assert paths[f"{H}:{CHILD}"] == paths[f"{H}:{FORK}"] == paths[f"{H}:{BARE}"] == {db}
    assert paths[f"{H}:{OLD}"] == {f".local/share/opencode/storage/message/{OLD}/msg_old1.json",
                                    ".local/share/opencode/storage/part/msg_old1/prt_old1.json",
                                    f".local/share/opencode/storage/session/{PRJ}/{OLD}.json"}
    assert paths[f"{H}:@host"] == {".local/share/opencode/storage/migration"}
    snap = paths[f"{H}:@project-{PRJ}"]  # the snapshot git dir, its loose object included
    assert f".local/share/opencode/snapshot/{PRJ}/0d3e4f/HEAD" in snap
    assert any(p.startswith(f".local/share/opencode/snapshot/{PRJ}/0d3e4f/objects/") for p in snap)
    assert edges(by[f"{H}:{CHILD}"]) == [("subagent", f"{H}:{MAIN}", "call_sub")]
    assert edges(by[f"{H}:{FORK}"]) == [("fork", f"{H}:{MAIN}", f"through:{mid(MAIN, 3)}")]
    assert [by[f"{H}:{x}"]["kind"] for x in (MAIN, CHILD, FORK, BARE)] == ["main", "subagent", "fork", "main"]
    assert any("in-flight: 1 assistant row" in w for w in by[f"{H}:{MAIN}"]["warnings"])
    assert any("staged revert" in w for w in by[f"{H}:{FORK}"]["warnings"])

    # each session's database object holds that session's rows only, redacted; no host secrets
    (obj,) = next(a["objects"] for a in by[f"{H}:{CHILD}"]["artifacts"] if a["path"] == db)
    f = s.base / "child.db"
    f.write_bytes(plain[f"objects/{obj[:2]}/{obj}"])
    conn = sqlite3.connect(f)
    assert conn.execute("SELECT id FROM session_v2").fetchall() == [(CHILD,)]
    assert {r[0] for r in conn.execute("SELECT session_id FROM session_message")} == {CHILD}
    assert conn.execute("SELECT count(*) FROM credential").fetchone() == (0,)
    assert conn.execute("SELECT count(*) FROM permission").fetchone() == (0,)
    assert conn.execute("SELECT key FROM kv").fetchall() == [("migration.v1-v2",)]
    title = conn.execute("SELECT title FROM session_v2").fetchone()[0]
    assert "<EMAIL:" in title and "<GITHUB_TOKEN:" in title and "<AWS_ACCESS_KEY:" in title and "<CREDIT_CARD:" in title
    conn.close()


def test_restore_the_family_into_another_users_opencode_db(synced: Any, tmp_path: Path) -> None:
    """Into a home whose OpenCode already has its own project and session: merged, theirs kept."""
    s, built, plain, run = synced
    other = tmp_path / OTHER
    data = other / ".local/share/opencode"
    data.mkdir(parents=True)
    conn = sqlite3.connect(data / "opencode.db", isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.executescript(SCHEMA)
    conn.execute(f"INSERT INTO project (id, worktree) VALUES ('prj_q', '/home/{OTHER}/app')")
    conn.execute(f"INSERT INTO session_v2 (id, project_id, directory, title, time_created, time_updated) "
                 f"VALUES ('ses_q1', 'prj_q', '/home/{OTHER}/app', 'theirs', 1, 2)")
    conn.execute("INSERT INTO session_message VALUES ('msg_q1', 'ses_q1', 'user', 1, 1, 1, '{\"text\": \"theirs\"}')")
    conn.execute("INSERT INTO credential VALUES ('q', 'their credential')")
    conn.execute("INSERT INTO kv VALUES ('migration.v1-v2', '{}', 1, 1)")
    conn.close()
    got = s.restore(other, f"{H}:{FORK}", family=True)
    # with the project's snapshot dir the sessions' snapshot trees live in (Session.uses)
    assert set(got["sessions"]) == {f"{H}:{x}" for x in (MAIN, CHILD, FORK, f"@project-{PRJ}")}
    assert got["refused"] == [] and got["errors"] == []
    conn = sqlite3.connect(data / "opencode.db")
    assert sorted(r[0] for r in conn.execute("SELECT id FROM session_v2")) == sorted(["ses_q1", MAIN, CHILD, FORK])
    assert conn.execute("SELECT data FROM credential").fetchall() == [("their credential",)]
    assert conn.execute("SELECT count(*) FROM session_message WHERE session_id = 'ses_q1'").fetchone() == (1,)
    assert conn.execute("SELECT count(*) FROM session_message WHERE session_id = ?", (MAIN,)).fetchone() == (11,)
    assert conn.execute("SELECT count(*) FROM session_message WHERE session_id = ?", (FORK,)).fetchone() == (3,)
    assert conn.execute("SELECT parent_id FROM session_v2 WHERE id = ?", (CHILD,)).fetchone() == (MAIN,)
    assert conn.execute("SELECT fork_session_id FROM session_v2 WHERE id = ?", (FORK,)).fetchone() == (MAIN,)
    assert {r[0] for r in conn.execute("SELECT id FROM project")} == {"prj_q", PRJ}
    assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    conn.close()
    assert (data / "tool-output" / TOOL_OUT).is_file() and (data / "shell" / PRJ / f"{SH}.out").is_file()
    assert (data / "storage" / "session_diff" / f"{MAIN}.json").is_file()
    assert tree_leaks(other, built["needles"]) == []
    # the storage-only session alone: its JSON files in the 1.x layout
    old = s.restore(tmp_path / "old", f"{H}:{OLD}")
    assert sorted(old["files"]) == sorted([f".local/share/opencode/storage/message/{OLD}/msg_old1.json",
                                           ".local/share/opencode/storage/part/msg_old1/prt_old1.json",
                                           f".local/share/opencode/storage/session/{PRJ}/{OLD}.json"])


def test_symlinked_sidecars_are_not_followed(tmp_path: Path) -> None:
    """A tool-output/ or shell/ file a row names that is a symlink (to a key, say) is never read:
    the old collector followed it and archived the file it points at."""
    from archiver.harnesses.base import HarnessContext, load_harness

    home = tmp_path / "h"
    root = home / ".local/share/opencode"
    (root / "tool-output").mkdir(parents=True)
    (root / "shell" / PRJ).mkdir(parents=True)
    key = tmp_path / "id_ed25519"
    key.write_text("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\n")
    (root / "tool-output" / TOOL_OUT).symlink_to(key)
    (root / "shell" / PRJ / f"{SH}.out").symlink_to(key)
    conn = sqlite3.connect(root / "opencode.db")
    conn.executescript(SCHEMA)
    conn.execute("INSERT INTO project (id, worktree) VALUES (?, '/p')", (PRJ,))
    conn.execute("INSERT INTO session_v2 (id, project_id, time_created, time_updated) VALUES (?, ?, 1, 2)", (MAIN, PRJ))
    conn.execute("INSERT INTO session_message VALUES (?,?,?,?,?,?,?)", (mid(MAIN, 1), MAIN, "assistant", 1, 1, 1, J({
        "content": [{"type": "tool", "id": "c", "name": "read", "state": {"status": "completed", "input": {},
                     "content": [{"type": "text", "text": "x"}], "metadata": {"outputPath": f"/x/tool-output/{TOOL_OUT}"}}}],
        "time": {"created": 1, "completed": 2}})))
    conn.execute("INSERT INTO session_message VALUES (?,?,?,?,?,?,?)", (mid(MAIN, 2), MAIN, "shell", 2, 1, 1, J({
        "shellID": SH, "command": "ls", "status": "exited", "time": {"created": 1, "completed": 2}})))
    conn.commit()
    conn.close()
    h = load_harness(H, HarnessContext(home=home, env={}))
    try:
        (s,) = [x for x in h.discover() if x.session_id == MAIN]
    finally:
        h.close()  # type: ignore[attr-defined]
    assert [src.path for src in s.sources] == [".local/share/opencode/opencode.db"]
    assert f".local/share/opencode/tool-output/{TOOL_OUT} is a symbolic link; not archived" in s.warnings
