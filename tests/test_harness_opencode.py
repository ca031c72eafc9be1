"""OpenCode collector against a generated data dir (archiver/demo/opencode_sample.py)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any, Iterator

import pytest

from archiver.harnesses.base import HarnessContext, load_harness
from archiver.harnesses.opencode import OpenCode, merge_extract
from archiver.model import Artifact, DiscoveredSession
from tests.fx_home import Box, box  # noqa: F401
from archiver.demo.opencode_sample import (
    AWS_KEY,
    CRED_SECRET,
    GH_TOKEN,
    P1,
    P2,
    REVERTED_TEXT,
    SES_A,
    SES_B,
    SES_F,
    SES_N,
    SES_S,
    SH_A,
    SH_B,
    TOOL_A,
    TOOL_B,
    close_opencode_home,
    make_opencode_home,
)

K = "opencode:"
DB = ".local/share/opencode/opencode.db"


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, dict[str, Any]]]:
    h = tmp_path_factory.mktemp("opencode-home")
    info = make_opencode_home(h)
    yield h, info
    close_opencode_home(info)


@pytest.fixture(scope="module")
def harness(home: tuple[Path, dict[str, Any]]) -> Iterator[OpenCode]:
    h = OpenCode(HarnessContext(home=home[0], env={}))
    yield h
    h.close()


@pytest.fixture(scope="module")
def sessions(harness: OpenCode) -> dict[str, DiscoveredSession]:
    found = list(harness.discover())
    keys = [s.key for s in found]
    assert len(keys) == len(set(keys)), keys
    return {s.key: s for s in found}


def _paths(s: DiscoveredSession) -> list[tuple[str, str, str, str, bool]]:
    return [(a.path, a.role, a.format, a.mode, a.optional) for a in s.sources]


def _produce(s: DiscoveredSession, dst: Path) -> Path:
    src = s.sources[0]
    assert src.mode == "produced" and src.produce is not None
    src.produce(dst)
    return dst


def _rows(db: Path, sql: str, *params: Any) -> list[tuple[Any, ...]]:
    conn = sqlite3.connect(str(db))
    try:
        return [tuple(r) for r in conn.execute(sql, params).fetchall()]
    finally:
        conn.close()


def test_session_keys_kinds_and_edges(sessions: dict[str, DiscoveredSession], home: tuple[Path, dict[str, Any]]) -> None:
    _, info = home
    assert {k: s.kind for k, s in sessions.items()} == {
        K + SES_A: "main",
        K + SES_S: "subagent",
        K + SES_B: "main",
        K + SES_F: "fork",
        K + SES_N: "main",
        K + f"@project-{P1}": "host",
        K + "@host": "host",
    }
    edges = {k: [(e.relation, e.parent, e.at, e.inferred) for e in s.parents] for k, s in sessions.items()}
    assert edges[K + SES_S] == [("subagent", K + SES_A, "call_sub1", False)]
    assert edges[K + SES_F] == [("fork", K + SES_B, f"through:{info['b_boundary']}", False)]
    for k in (SES_A, SES_B, SES_N, "@host"):
        assert edges[K + k] == []
    a = sessions[K + SES_A]
    assert (a.title, a.cwd, a.created_at, a.updated_at) == ("Fix login", info["dir_a"], "2026-01-01T10:00:00Z", "2026-01-01T10:01:00Z")


def test_sources_roles_and_modes(sessions: dict[str, DiscoveredSession], home: tuple[Path, dict[str, Any]]) -> None:
    _, info = home
    oc = ".local/share/opencode"
    assert _paths(sessions[K + SES_A]) == [
        (DB, "database", "sqlite", "produced", False),
        (f"{oc}/tool-output/{TOOL_A}", "sidecar", "text", "whole", True),
        (f"{oc}/shell/{P1}/{SH_A}.out", "sidecar", "text", "whole", True),
        # the 1.x storage remnant's file keyed by this session goes with it (restore, forget-session)
        (f"{oc}/storage/session_diff/{SES_A}.json", "sidecar", "json", "whole", False),
    ]
    assert sessions[K + SES_A].sources[0].source == info["db"]
    assert _paths(sessions[K + SES_S]) == [(DB, "database", "sqlite", "produced", False)]
    assert _paths(sessions[K + SES_B]) == [
        (DB, "database", "sqlite", "produced", False),
        (f"{oc}/tool-output/{TOOL_B}", "sidecar", "text", "whole", True),
        (f"{oc}/shell/{P2}/{SH_B}.out", "sidecar", "text", "whole", True),
    ]
    # the fork's copied rows name B's spilled output too
    assert _paths(sessions[K + SES_F]) == [
        (DB, "database", "sqlite", "produced", False),
        (f"{oc}/tool-output/{TOOL_B}", "sidecar", "text", "whole", True),
    ]
    assert _paths(sessions[K + SES_N]) == [(f"{oc}/opencode-next.db", "database", "sqlite", "produced", False)]
    git = info["git_dir"].relative_to(info["root"]).as_posix()
    assert sorted((p, r, f, m) for p, r, f, m, _o in _paths(sessions[K + f"@project-{P1}"])) == sorted([
        (f"{oc}/{git}/HEAD", "blob", "text", "whole"),
        (f"{oc}/{git}/config", "blob", "text", "whole"),
        (f"{oc}/{git}/objects/4b/825dc642cb6eb9a060e54bf8d69288fbee4904", "blob", "git-object", "whole"),
        (f"{oc}/{git}/objects/{info['env_blob'][:2]}/{info['env_blob'][2:]}", "blob", "git-object", "whole"),
    ])
    assert _paths(sessions[K + "@host"]) == [(f"{oc}/storage/migration", "sidecar", "text", "whole", False)]
    every = {a.path for s in sessions.values() for a in s.sources}
    assert not any("tool_0a1b2c3d4e5fAbCdEfGhIjKlMz" in p for p in every)  # unreferenced tool output


def test_warnings(sessions: dict[str, DiscoveredSession]) -> None:
    assert sessions[K + SES_S].warnings == [
        "in-flight: 1 assistant row(s) without time.completed archived as-is: msg_0a0000000012SsssssssssssssS (seq 3)"
    ]
    assert sessions[K + SES_A].warnings == []
    assert sessions[K + SES_B].warnings == [
        ".local/share/opencode/opencode-next.db also holds this session; that copy is not archived separately"
    ]


def test_extract_holds_only_its_session(sessions: dict[str, DiscoveredSession], home: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    _, info = home
    a = _produce(sessions[K + SES_A], tmp_path / "a.db")
    assert _rows(a, "PRAGMA integrity_check") == [("ok",)]
    assert _rows(a, "PRAGMA user_version") == [(7,)]
    assert _rows(a, "SELECT id FROM session_v2") == [(SES_A,)]
    seqs = _rows(a, "SELECT session_id, seq FROM session_message ORDER BY seq")
    assert seqs == [(SES_A, s) for s in (2, 4, 6, 8, 9, 10, 11, 12)]  # 12 was only in -wal
    assert _rows(a, "SELECT id FROM session_message WHERE seq = 12") == [(info["wal_row"],)]
    for table in ("session_inbox", "instruction_entry", "instruction_state", "event_sequence", "session", "message", "part", "todo"):
        col = "id" if table == "session" else ("aggregate_id" if table == "event_sequence" else "session_id")
        assert _rows(a, f"SELECT DISTINCT {col} FROM {table}") == [(SES_A,)], table
    assert _rows(a, "SELECT hash FROM instruction_blob") == [(info["h1"],)]
    assert _rows(a, "SELECT id FROM project") == [(P1,)]
    assert _rows(a, "SELECT id FROM workspace") == [("wrk_a",)]
    assert len(_rows(a, "SELECT id FROM migration")) == 2
    for table in ("credential", "account", "permission", "worktree", "event"):
        assert _rows(a, f"SELECT count(*) FROM {table}") == [(0,)], table
    # of kv only the marker of the 1.x import (A's 1.x rows are here: without it they look un-imported)
    assert _rows(a, "SELECT key, value FROM kv") == [("migration.v1-v2", '{"done":true}')]
    names = {r[0] for r in _rows(a, "SELECT name FROM sqlite_master WHERE type='index'")}
    assert {"session_message_session_seq_idx", "session_v2_parent_idx", "part_session_idx"} <= names
    raw = a.read_bytes()
    assert GH_TOKEN.encode() in raw  # A's own data (redaction happens later, in the pipeline)
    # (A names S in its subagent tool call; S's own rows are not here)
    for foreign in (AWS_KEY, CRED_SECRET, SES_B, SES_F, "call_grep1", "legacy B", REVERTED_TEXT, info["h2"]):
        assert foreign.encode() not in raw, foreign
    assert REVERTED_TEXT.encode() in info["db"].read_bytes()  # ...which lingers in the source's free space


def test_extracts_of_other_sessions(sessions: dict[str, DiscoveredSession], tmp_path: Path) -> None:
    s = _produce(sessions[K + SES_S], tmp_path / "s.db")
    assert _rows(s, "PRAGMA integrity_check") == [("ok",)]
    assert _rows(s, "SELECT id, parent_id FROM session_v2") == [(SES_S, SES_A)]
    assert _rows(s, "SELECT DISTINCT session_id FROM session_message") == [(SES_S,)]
    assert _rows(s, "SELECT count(*) FROM message") == [(0,)]
    f = _produce(sessions[K + SES_F], tmp_path / "f.db")
    assert _rows(f, "SELECT seq FROM session_message ORDER BY seq") == [(3,), (5,), (8,)]
    assert AWS_KEY.encode() in f.read_bytes()  # rows copied up to the fork boundary are F's own
    assert b"make docs" not in f.read_bytes()  # B's shell row came after the boundary
    assert _rows(f, "SELECT fork_session_id FROM session_v2") == [(SES_B,)]
    n = _produce(sessions[K + SES_N], tmp_path / "n.db")
    assert _rows(n, "SELECT id FROM session_v2") == [(SES_N,)]
    assert _rows(n, "SELECT count(*) FROM session_message") == [(1,)]
    again = _produce(sessions[K + SES_S], tmp_path / "s.db")  # overwrites a previous file
    assert _rows(again, "SELECT count(*) FROM session_v2") == [(1,)]


def test_restore_merges_extracts_into_one_database(
    sessions: dict[str, DiscoveredSession], harness: OpenCode, tmp_path: Path
) -> None:
    a = _produce(sessions[K + SES_A], tmp_path / "a.db")
    b = _produce(sessions[K + SES_B], tmp_path / "b.db")
    target_home = tmp_path / "restore"
    art = Artifact(path=DB, role="database", format="sqlite")
    placed = harness.restore_artifact(art, a, target_home)
    assert placed == target_home / DB
    assert harness.restore_artifact(art, b, target_home) == placed
    assert _rows(placed, "PRAGMA integrity_check") == [("ok",)]
    assert _rows(placed, "SELECT id FROM session_v2 ORDER BY id") == sorted([(SES_A,), (SES_B,)])
    assert _rows(placed, "SELECT session_id, count(*) FROM session_message GROUP BY session_id ORDER BY session_id") == sorted(
        [(SES_A, 8), (SES_B, 4)]
    )
    assert _rows(placed, "SELECT id FROM project ORDER BY id") == sorted([(P1,), (P2,)])
    assert _rows(placed, "SELECT count(*) FROM instruction_blob") == [(2,)]
    assert _rows(placed, "SELECT count(*) FROM migration") == [(2,)]
    assert _rows(placed, "SELECT key FROM kv") == [("migration.v1-v2",)]
    assert _rows(placed, "PRAGMA user_version") == [(7,)]
    # merging A again is idempotent; a later state of A (a reverted row gone) replaces A's rows
    # only with overwrite (the target's rows of A differ from it: refused, nothing written)
    harness.restore_artifact(art, a, target_home)
    assert _rows(placed, "SELECT count(*) FROM session_message WHERE session_id = ?", SES_A) == [(8,)]
    conn = sqlite3.connect(str(a))
    conn.execute("DELETE FROM session_message WHERE seq = 12")
    conn.commit()
    conn.close()
    with pytest.raises(FileExistsError, match="--overwrite"):
        merge_extract(a, placed)
    assert _rows(placed, "SELECT count(*) FROM session_message WHERE session_id = ?", SES_A) == [(8,)]
    merge_extract(a, placed, overwrite=True)
    assert _rows(placed, "SELECT count(*) FROM session_message WHERE session_id = ?", SES_A) == [(7,)]
    assert _rows(placed, "SELECT count(*) FROM session_message WHERE session_id = ?", SES_B) == [(4,)]
    # other artifacts keep the default placement
    side = Artifact(path=f".local/share/opencode/tool-output/{TOOL_A}", role="sidecar", format="text")
    assert harness.restore_artifact(side, a, target_home) is None


def test_snapshot_is_taken_once_and_cleaned_up(home: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    h = OpenCode(HarnessContext(home=home[0], env={}))
    found = list(h.discover())
    dirs = [snap.dir for snap in h._snapshots]
    assert len(dirs) == 2 and all(d.is_dir() and (d.stat().st_mode & 0o777) == 0o700 for d in dirs)
    h.close()
    assert not any(d.exists() for d in dirs)
    with pytest.raises(sqlite3.Error):
        found[0].sources[0].produce(tmp_path / "gone.db")  # type: ignore[misc]


def test_root_and_database_env_overrides(tmp_path: Path) -> None:
    home = tmp_path / "h"
    assert OpenCode(HarnessContext(home=home, env={})).root == home / ".local" / "share" / "opencode"
    assert OpenCode(HarnessContext(home=home, env={"XDG_DATA_HOME": str(tmp_path / "xdg")})).root == tmp_path / "xdg" / "opencode"
    ctx = HarnessContext(home=home, root=tmp_path / "conf", env={"XDG_DATA_HOME": str(tmp_path / "xdg")})
    assert OpenCode(ctx).root == tmp_path / "conf"
    assert isinstance(load_harness("opencode", ctx), OpenCode)


def test_opencode_db_override_and_xdg(tmp_path: Path) -> None:
    info = make_opencode_home(tmp_path / "src")
    try:
        xdg = tmp_path / "xdg"
        (xdg / "opencode").mkdir(parents=True)
        conn = sqlite3.connect(str(xdg / "opencode" / "custom.db"))
        src = sqlite3.connect(str(info["db"]))
        src.backup(conn)
        src.close()
        conn.close()
        h = OpenCode(HarnessContext(home=tmp_path / "nohome", env={"XDG_DATA_HOME": str(xdg), "OPENCODE_DB": "custom.db"}))
        assert h.database_files() == [xdg / "opencode" / "custom.db"]
        found = {s.key: s for s in h.discover()}
        assert set(found) == {K + SES_A, K + SES_S, K + SES_B, K + SES_F}
        assert found[K + SES_A].sources[0].path == ".local/share/opencode/custom.db"
        h.close()
        mem = OpenCode(HarnessContext(home=tmp_path, env={"XDG_DATA_HOME": str(xdg), "OPENCODE_DB": ":memory:"}))
        assert mem.database_files() == []
    finally:
        close_opencode_home(info)


def test_unreadable_database_is_reported_not_raised(tmp_path: Path) -> None:
    root = tmp_path / ".local" / "share" / "opencode"
    root.mkdir(parents=True)
    (root / "opencode.db").write_bytes(b"garbage" * 1000)
    h = OpenCode(HarnessContext(home=tmp_path, env={}))
    found = list(h.discover())
    assert [s.key for s in found] == [K + "@host"]
    assert found[0].warnings and found[0].warnings[0].startswith(".local/share/opencode/opencode.db: not readable")
    h.close()


def test_snapshot_pack_files_are_archived_as_git_pack_and_their_companions_left_out(tmp_path: Path) -> None:
    info = make_opencode_home(tmp_path)
    try:
        git = info["git_dir"]
        pack = "pack-" + "1a2b" * 10
        (git / "objects" / "pack").mkdir(parents=True)
        (git / "objects" / "pack" / f"{pack}.pack").write_bytes(b"PACK\x00\x00\x00\x02" + bytes(40))
        for ext in ("idx", "rev", "mtimes", "bitmap", "keep", "promisor"):  # derived from the pack
            (git / "objects" / "pack" / f"{pack}.{ext}").write_bytes(b"\xfftOc\x00\x00\x00\x02" + bytes(40))
        (git / "objects" / "pack" / "tmp_pack_XyZ123").write_bytes(b"PACK half-written")  # a gc's leftover
        (git / "objects" / "info").mkdir(parents=True)
        (git / "objects" / "info" / "packs").write_text(f"P {pack}.pack\n")
        found = {s.key: s for s in OpenCode(HarnessContext(home=tmp_path, env={})).discover()}
        s = found[K + f"@project-{P1}"]
        fmt = {a.path.split("/objects/", 1)[-1]: a.format for a in s.sources if "/objects/" in a.path}
        assert [k for k in fmt if k.startswith("pack/")] == [f"pack/{pack}.pack"]
        assert fmt[f"pack/{pack}.pack"] == "git-pack"
        assert fmt["info/packs"] == "text"  # sniffed, redacted as text
        assert fmt[f"{info['env_blob'][:2]}/{info['env_blob'][2:]}"] == "git-object"
        assert [w for w in s.warnings if "objects/pack" in w] == [
            f".local/share/opencode/snapshot/{P1}: 1 files under objects/pack/ that are no pack "
            "(temporary files of an interrupted gc?) not archived"]
    finally:
        close_opencode_home(info)


# ---------------------------------------------------------------- databases no 2.x build upgraded

LEGACY_SCHEMA = """
CREATE TABLE project (id TEXT PRIMARY KEY, worktree TEXT NOT NULL, vcs TEXT, name TEXT,
  time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL);
CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT NOT NULL, parent_id TEXT, slug TEXT NOT NULL,
  directory TEXT NOT NULL, title TEXT NOT NULL, version TEXT NOT NULL, share_url TEXT,
  summary_additions INTEGER, summary_deletions INTEGER, summary_files INTEGER, summary_diffs TEXT,
  revert TEXT, permission TEXT, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL,
  time_compacting INTEGER, time_archived INTEGER);
CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL REFERENCES session(id) ON DELETE CASCADE,
  time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);
CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT NOT NULL, session_id TEXT NOT NULL,
  time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);
CREATE INDEX part_session_idx ON part (session_id);
CREATE TABLE todo (session_id TEXT NOT NULL, content TEXT NOT NULL, status TEXT NOT NULL, priority TEXT NOT NULL,
  position INTEGER NOT NULL, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL,
  PRIMARY KEY (session_id, position));
CREATE TABLE __drizzle_migrations (id INTEGER PRIMARY KEY, hash TEXT NOT NULL, created_at INTEGER);
"""
L_MAIN = "ses_7e1a2b3c4d5fLegacyMainAAAAA"
L_CHILD = "ses_7e1a2b3c4d5eLegacyChildBBBB"
L_TOOL = "tool_7e1a2b3c4d5fLegacyOutputAA"


def _legacy_db(home: Path) -> Path:
    """A 1.x opencode.db (role+parts tables only, WAL), per the seed's legacy records: a main
    session whose task tool part spawned a child session, and whose bash part spilled to
    tool-output/; the child's assistant message never completed."""
    root = home / ".local" / "share" / "opencode"
    root.mkdir(parents=True)
    db = root / "opencode.db"
    conn = sqlite3.connect(str(db), isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.executescript(LEGACY_SCHEMA)
    t, d = 1767261600000, "/home/alice/app"
    out = f"/home/alice/.local/share/opencode/tool-output/{L_TOOL}"
    j = lambda o: json.dumps(o, separators=(",", ":"))  # noqa: E731
    conn.execute("INSERT INTO __drizzle_migrations VALUES (1, 'abc', ?)", (t,))
    conn.execute("INSERT INTO project VALUES ('prj_l', ?, 'git', 'app', ?, ?)", (d, t, t))
    for sid, parent, title, at in ((L_MAIN, None, "Legacy main", t), (L_CHILD, L_MAIN, "scan (@explore subagent)", t + 5)):
        conn.execute("INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, time_created, "
                     "time_updated) VALUES (?, 'prj_l', ?, 'calm-lake', ?, ?, '1.14.2', ?, ?)", (sid, parent, d, title, at, at + 9))
    asst = {"role": "assistant", "parentID": "msg_lu1", "modelID": "m", "providerID": "p", "mode": "build",
            "agent": "build", "path": {"cwd": d, "root": d}, "cost": 0,
            "tokens": {"input": 1, "output": 1, "reasoning": 0, "cache": {"read": 0, "write": 0}}}
    rows = [
        ("msg_lu1", L_MAIN, {"role": "user", "time": {"created": t}, "agent": "build",
                             "model": {"providerID": "p", "modelID": "m"}}),
        ("msg_la1", L_MAIN, dict(asst, time={"created": t + 1, "completed": t + 4})),
        ("msg_la2", L_CHILD, dict(asst, parentID="msg_lu2", time={"created": t + 6})),
    ]
    for mid, sid, data in rows:
        conn.execute("INSERT INTO message VALUES (?, ?, ?, ?, ?)", (mid, sid, t, t, j(data)))
    parts = [
        ("prt_l1", "msg_lu1", L_MAIN, {"type": "text", "text": "find the callers of login()"}),
        ("prt_l2", "msg_la1", L_MAIN, {"type": "tool", "callID": "call_bash1", "tool": "bash", "state": {
            "status": "completed", "input": {"command": "grep -rn login"}, "output": "...", "title": "grep",
            "metadata": {"truncated": True, "outputPath": out}, "time": {"start": t + 2, "end": t + 3}}}),
        ("prt_l3", "msg_la1", L_MAIN, {"type": "tool", "callID": "call_task1", "tool": "task", "state": {
            "status": "completed", "input": {"prompt": "scan"}, "output": "done", "title": "scan",
            "metadata": {"sessionId": L_CHILD}, "time": {"start": t + 3, "end": t + 4}}}),
        ("prt_l4", "msg_la2", L_CHILD, {"type": "text", "text": "scanning"}),
    ]
    for pid, mid, sid, data in parts:
        conn.execute("INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)", (pid, mid, sid, t, t, j(data)))
    conn.execute("INSERT INTO todo VALUES (?, 'check callers', 'pending', 'high', 0, ?, ?)", (L_MAIN, t, t))
    conn.close()
    (root / "tool-output").mkdir()
    (root / "tool-output" / L_TOOL).write_text("src/login.py:1:def login():\n")
    return db


def test_a_1x_database_lists_its_sessions_with_lineage_and_sidecars(tmp_path: Path) -> None:
    db = _legacy_db(tmp_path)
    h = OpenCode(HarnessContext(home=tmp_path, env={}))
    try:
        found = {s.key: s for s in h.discover()}
        assert set(found) == {K + L_MAIN, K + L_CHILD}
        main, child = found[K + L_MAIN], found[K + L_CHILD]
        assert (main.kind, main.title, main.cwd, main.parents) == ("main", "Legacy main", "/home/alice/app", [])
        assert child.kind == "subagent"
        assert [(e.relation, e.parent, e.at) for e in child.parents] == [("subagent", K + L_MAIN, "call_task1")]
        assert _paths(main) == [
            (DB, "database", "sqlite", "produced", False),
            (f".local/share/opencode/tool-output/{L_TOOL}", "sidecar", "text", "whole", True),
        ]
        assert child.warnings == ["in-flight: 1 1.x assistant message(s) without time.completed archived as-is: msg_la2"]
        x = _produce(main, tmp_path / "main.db")
        assert _rows(x, "SELECT id, title FROM session") == [(L_MAIN, "Legacy main")]
        assert _rows(x, "SELECT id FROM message ORDER BY id") == [("msg_la1",), ("msg_lu1",)]
        assert _rows(x, "SELECT id FROM part ORDER BY id") == [("prt_l1",), ("prt_l2",), ("prt_l3",)]
        assert _rows(x, "SELECT content FROM todo") == [("check callers",)]
        assert _rows(x, "SELECT id FROM project") == [("prj_l",)] and _rows(x, "SELECT hash FROM __drizzle_migrations") == [("abc",)]
        # restore: both merge into one 1.x opencode.db, which a 2.x build imports on its first start
        target = tmp_path / "restore"
        art = Artifact(path=DB, role="database", format="sqlite")
        placed = h.restore_artifact(art, x, target)
        h.restore_artifact(art, _produce(child, tmp_path / "child.db"), target)
        assert placed is not None
        assert _rows(placed, "SELECT id, parent_id FROM session ORDER BY time_created") == [(L_MAIN, None), (L_CHILD, L_MAIN)]
        assert _rows(placed, "SELECT count(*) FROM part") == [(4,)]
        # a later state of the main session replaces its rows (a part gone) with overwrite, the child's stay
        conn = sqlite3.connect(str(x))
        conn.execute("DELETE FROM part WHERE id = 'prt_l1'")
        conn.commit()
        conn.close()
        merge_extract(x, placed, overwrite=True)
        assert _rows(placed, "SELECT id FROM part ORDER BY id") == [("prt_l2",), ("prt_l3",), ("prt_l4",)]
        assert db.exists()
    finally:
        h.close()


PRE_SRC, PRE_FORK = "ses_7e1a2b3c4d5fPreSplitSrcAAA", "ses_7e1a2b3c4d5ePreSplitForkBB"


def _pre_split_db(home: Path) -> tuple[str, str]:
    """A pre-split 2.x opencode.db (seed versioning: marker 20260730195856_optional_session_title,
    sessions in `session` until migration 20260804233008_loose_psylocke renames it session_v2)."""
    root = home / ".local" / "share" / "opencode"
    root.mkdir(parents=True)
    conn = sqlite3.connect(str(root / "opencode.db"), isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.executescript(
        "CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT NOT NULL, parent_id TEXT, fork_session_id TEXT, "
        "fork_boundary TEXT, slug TEXT NOT NULL, directory TEXT NOT NULL, title TEXT, version TEXT NOT NULL, "
        "time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL);"
        "CREATE INDEX session_project_idx ON session (project_id);"
        "CREATE TABLE session_message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, type TEXT NOT NULL, "
        "seq INTEGER NOT NULL, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);"
        "CREATE TABLE migration (id TEXT PRIMARY KEY, time_applied INTEGER NOT NULL);"
    )
    conn.execute("INSERT INTO migration VALUES ('20260730195856_optional_session_title', 1)")
    src, fork = PRE_SRC, PRE_FORK
    conn.execute("INSERT INTO session VALUES (?, 'prj', NULL, NULL, NULL, 's', '/w', NULL, '2.0.3', 1, 2)", (src,))
    conn.execute("INSERT INTO session VALUES (?, 'prj', NULL, ?, ?, 's', '/w', 'f', '2.0.3', 3, 4)",
                 (fork, src, json.dumps({"type": "before", "messageID": "msg_p2"})))
    for sid, mid, seq in ((src, "msg_p1", 1), (src, "msg_p2", 2), (fork, "msg_p1_1", 1)):  # a fork reuses seq
        conn.execute("INSERT INTO session_message VALUES (?, ?, 'user', ?, 1, 1, ?)", (mid, sid, seq, '{"text":"hi"}'))
    conn.close()
    return src, fork


def test_a_pre_split_2x_database_lists_the_sessions_of_its_session_table(tmp_path: Path) -> None:
    """Before migration loose_psylocke renamed it, a 2.x build kept session_v2's rows in `session`."""
    src, fork = _pre_split_db(tmp_path)
    h = OpenCode(HarnessContext(home=tmp_path, env={}))
    try:
        found = {s.key: s for s in h.discover()}
        assert set(found) == {K + src, K + fork}
        assert [(e.relation, e.parent, e.at) for e in found[K + fork].parents] == [("fork", K + src, "before:msg_p2")]
        x = _produce(found[K + src], tmp_path / "src.db")
        assert _rows(x, "SELECT id FROM session") == [(src,)]
        assert _rows(x, "SELECT id FROM session_message ORDER BY id") == [("msg_p1",), ("msg_p2",)]
    finally:
        h.close()


def test_shell_and_compaction_rows_still_running_are_flagged(tmp_path: Path) -> None:
    """Seed gotcha: shell and compaction rows are rewritten in place too (status running ->
    exited / completed); a compaction row is left behind running if the process dies."""
    info = make_opencode_home(tmp_path)
    try:
        conn = info["connections"][0]
        for mid, typ, seq, data in (
            ("msg_0b00000000r1BbbbbbbbbbbbbB", "shell", 20, {"shellID": "sh_0a1b2c3d4e5fAbCdEfGhIjKlMr",
                                                            "command": "sleep 60", "status": "running", "time": {"created": 1}}),
            ("msg_0b00000000r2BbbbbbbbbbbbbB", "compaction", 21, {"status": "running", "reason": "auto", "summary": "",
                                                                 "time": {"created": 2}}),
            ("msg_0b00000000r3BbbbbbbbbbbbbB", "compaction", 22, {"status": "completed", "reason": "auto", "summary": "s",
                                                                 "time": {"created": 3}}),
        ):
            conn.execute("INSERT INTO session_message VALUES (?, ?, ?, ?, 1, 1, ?)", (mid, SES_B, typ, seq, json.dumps(data)))
        h = OpenCode(HarnessContext(home=tmp_path, env={}))
        try:
            b = {s.key: s for s in h.discover()}[K + SES_B]
        finally:
            h.close()
        assert [w for w in b.warnings if w.startswith("in-flight")] == [
            "in-flight: 1 shell row(s) still running archived as-is: msg_0b00000000r1BbbbbbbbbbbbbB (seq 20)",
            "in-flight: 1 compaction row(s) still running archived as-is: msg_0b00000000r2BbbbbbbbbbbbbB (seq 21)",
        ]
    finally:
        close_opencode_home(info)


def test_a_1x_session_restored_into_an_imported_database_goes_beside_it(tmp_path: Path) -> None:
    """OpenCode 2.x imports 1.x rows once (kv migration.v1-v2 records it, seed): a 1.x session
    restored into a database that already holds the marker would never show. It goes into a
    database of its own beside it (no marker: imported on first start), the imported database
    and its sessions are left exactly as they were, and the restore says where and why."""
    info = make_opencode_home(tmp_path / "v2")
    h2 = OpenCode(HarnessContext(home=tmp_path / "v2", env={}))
    legacy = tmp_path / "v1"
    _legacy_db(legacy)
    h1 = OpenCode(HarnessContext(home=legacy, env={}))
    try:
        v2 = {s.key: s for s in h2.discover()}
        v1 = {s.key: s for s in h1.discover()}
        target_home = tmp_path / "restore"
        art = Artifact(path=DB, role="database", format="sqlite")
        main = h2.restore_artifact(art, _produce(v2[K + SES_A], tmp_path / "a.db"), target_home)
        assert main == target_home / DB and _rows(main, "SELECT key FROM kv") == [("migration.v1-v2",)]
        before = {t: _rows(main, f"SELECT * FROM {t} ORDER BY 1") for t in ("session_v2", "session_message", "session",
                                                                             "message", "part", "kv")}
        restorer = OpenCode(HarnessContext(home=tmp_path / "nohome", env={}))
        placed = restorer.restore_artifact(art, _produce(v1[K + L_MAIN], tmp_path / "l.db"), target_home)
        beside = target_home / ".local/share/opencode/opencode.v1-sessions.db"
        assert placed == beside
        assert {t: _rows(main, f"SELECT * FROM {t} ORDER BY 1") for t in before} == before
        assert _rows(beside, "SELECT id, title FROM session") == [(L_MAIN, "Legacy main")]
        assert _rows(beside, "SELECT count(*) FROM part") == [(3,)]
        tables = {r[0] for r in _rows(beside, "SELECT name FROM sqlite_master WHERE type = 'table'")}
        assert "session_v2" not in tables and "session_message" not in tables  # a 1.x database, to be imported
        assert "kv" not in tables or _rows(beside, "SELECT count(*) FROM kv") == [(0,)]
        # the child follows it there
        restorer.restore_artifact(art, _produce(v1[K + L_CHILD], tmp_path / "c.db"), target_home)
        assert _rows(beside, "SELECT id FROM session ORDER BY time_created") == [(L_MAIN,), (L_CHILD,)]
        warnings = restorer.after_restore(target_home, [])
        assert warnings == [
            f"opencode: 1.x session(s) {L_MAIN} restored into .local/share/opencode/opencode.v1-sessions.db, not {DB}: "
            "that database was already imported by OpenCode 2.x (kv migration.v1-v2), which imports 1.x rows once; "
            f"OpenCode imports these on its first start with OPENCODE_DB={beside}",
            f"opencode: 1.x session(s) {L_CHILD} restored into .local/share/opencode/opencode.v1-sessions.db, not {DB}: "
            "that database was already imported by OpenCode 2.x (kv migration.v1-v2), which imports 1.x rows once; "
            f"OpenCode imports these on its first start with OPENCODE_DB={beside}",
        ]
        assert restorer.after_restore(target_home, []) == []  # said once
        # into a database with no import marker (a fresh target), 1.x rows merge as before
        fresh = tmp_path / "fresh"
        assert restorer.restore_artifact(art, tmp_path / "l.db", fresh) == fresh / DB
        assert _rows(fresh / DB, "SELECT id FROM session") == [(L_MAIN,)]
        assert restorer.after_restore(fresh, []) == []
        # ... but when a 2.x session restored after them brings the marker, they move beside it
        other = tmp_path / "other"
        restorer.restore_artifact(art, tmp_path / "l.db", other)
        restorer.restore_artifact(art, tmp_path / "a.db", other)
        assert _rows(other / DB, "SELECT key FROM kv") == [("migration.v1-v2",)]
        moved = restorer.after_restore(other, [])
        assert moved == [
            f"opencode: 1.x session(s) {L_MAIN} restored into .local/share/opencode/opencode.v1-sessions.db, not {DB}: "
            "that database was already imported by OpenCode 2.x (kv migration.v1-v2), which imports 1.x rows once; "
            f"OpenCode imports these on its first start with OPENCODE_DB={other / '.local/share/opencode/opencode.v1-sessions.db'}"]
        o_beside = other / ".local/share/opencode/opencode.v1-sessions.db"
        assert _rows(o_beside, "SELECT id FROM session") == [(L_MAIN,)]
        assert _rows(o_beside, "SELECT count(*) FROM part") == [(3,)] and _rows(o_beside, "SELECT count(*) FROM kv") == [(0,)]
        assert _rows(other / DB, "SELECT id FROM session") == [(SES_A,)]  # A's own stale 1.x row stays
        assert _rows(other / DB, "SELECT count(*) FROM part WHERE session_id = ?", L_MAIN) == [(0,)]
        assert _rows(other / DB, "SELECT count(*) FROM session_message WHERE session_id = ?", SES_A) == [(8,)]
    finally:
        h1.close()
        h2.close()
        close_opencode_home(info)


def test_opencode_db_outside_the_data_dir_is_restored_and_said_where(box: Box, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    """OPENCODE_DB names a database outside the data dir (seed: an absolute path overrides it):
    restore cannot write that path outside the target, so the database goes into the target's
    data dir under its own name, and the restore says that OpenCode opens it only through
    OPENCODE_DB, with the path to give it."""
    box.only("opencode")
    info = make_opencode_home(box.base / "gen")
    try:
        outside = box.base / "elsewhere" / "work.db"
        outside.parent.mkdir()
        dst = sqlite3.connect(str(outside))
        src = sqlite3.connect(str(info["db"]))
        src.backup(dst)
        src.close()
        dst.close()
        monkeypatch.setenv("OPENCODE_DB", str(outside))
        box.sync()
        ls = box.ls()
        assert {a["path"] for a in ls[K + SES_A]["artifacts"] if a["role"] == "database"} == {
            ".local/share/opencode/work.db"}
        target = box.base / "restored"
        out = box.cli("restore", K + SES_A, K + SES_B, "--to", str(target))
        assert out["integrity_errors"] == [] and out["refused"] == []
        restored = target / ".local/share/opencode/work.db"
        assert _rows(restored, "SELECT id FROM session_v2 ORDER BY id") == sorted([(SES_A,), (SES_B,)])
        assert not (target / "elsewhere").exists() and not (target / DB).exists()
        # the tool-output files lie in a data dir this sync did not read: their metadata.outputPath
        # values name no file of the restore, left as archived and said
        left = "1 metadata.outputPath value(s) name no tool-output file of this restore; left as archived"
        notes = [w for w in out["warnings"] if w.endswith(left)]
        assert sorted(notes) == sorted(f"{K}{sid}: .local/share/opencode/work.db: {left}" for sid in (SES_A, SES_B))
        assert [w for w in out["warnings"] if w not in notes] == [
            f"opencode: .local/share/opencode/work.db (sessions {', '.join(sorted([K + SES_A, K + SES_B]))}) was the database "
            "OPENCODE_DB named on the archived host, restored into the data dir under its own name; OpenCode opens "
            f"it only with OPENCODE_DB={target.resolve() / '.local/share/opencode/work.db'}"]
    finally:
        close_opencode_home(info)


def test_restore_still_refuses_a_database_path_that_escapes(harness: OpenCode, tmp_path: Path) -> None:
    extract = tmp_path / "x.db"
    sqlite3.connect(str(extract)).close()
    art = Artifact(path=".local/share/opencode/../../../x.db", role="database", format="sqlite")
    with pytest.raises(ValueError, match="unsafe artifact path"):
        harness.restore_artifact(art, extract, tmp_path / "t")
    (tmp_path / "t" / ".local" / "share").mkdir(parents=True)
    (tmp_path / "t" / ".local" / "share" / "opencode").symlink_to(tmp_path / "out")
    with pytest.raises(ValueError, match="resolves outside the restore target"):
        harness.restore_artifact(Artifact(path=DB, role="database", format="sqlite"), extract, tmp_path / "t")
    assert not (tmp_path / "out").exists()


def test_a_pre_split_2x_session_restored_into_a_split_database_lands_in_session_v2(tmp_path: Path) -> None:
    """Seed versioning: migration loose_psylocke renamed a pre-split 2.x `session` table to
    session_v2, the table OpenCode 2.x lists. A pre-split extract merged into a database that
    has session_v2 puts its session rows there (not into `session`, which there holds only
    stale 1.x copies); into a fresh database it keeps its own schema (OpenCode's migration
    renames it), and a post-split extract restored after it moves its rows to session_v2."""
    _pre_split_db(tmp_path / "old")
    old = OpenCode(HarnessContext(home=tmp_path / "old", env={}))
    info = make_opencode_home(tmp_path / "v2")
    new = OpenCode(HarnessContext(home=tmp_path / "v2", env={}))
    try:
        pre = {s.key: s for s in old.discover()}
        post = {s.key: s for s in new.discover()}
        x_src, x_fork = _produce(pre[K + PRE_SRC], tmp_path / "ps.db"), _produce(pre[K + PRE_FORK], tmp_path / "pf.db")
        x_a = _produce(post[K + SES_A], tmp_path / "a.db")
        art = Artifact(path=DB, role="database", format="sqlite")
        restorer = OpenCode(HarnessContext(home=tmp_path / "nohome", env={}))

        split = tmp_path / "split"
        target = restorer.restore_artifact(art, x_a, split)
        assert target == split / DB
        stale = _rows(target, "SELECT * FROM session ORDER BY 1")  # A's stale 1.x copy
        assert restorer.restore_artifact(art, x_src, split) == target
        assert restorer.restore_artifact(art, x_fork, split) == target
        assert _rows(target, "SELECT id, project_id, fork_session_id, fork_boundary, slug, directory, title, version, "
                             "time_created, time_updated, cost FROM session_v2 WHERE id LIKE '%PreSplit%' ORDER BY id") == [
            (PRE_FORK, "prj", PRE_SRC, json.dumps({"type": "before", "messageID": "msg_p2"}), "s", "/w", "f", "2.0.3",
             3, 4, 0),
            (PRE_SRC, "prj", None, None, "s", "/w", None, "2.0.3", 1, 2, 0),
        ]
        assert _rows(target, "SELECT * FROM session ORDER BY 1") == stale  # nothing went into `session`
        assert _rows(target, "SELECT session_id, id FROM session_message WHERE session_id LIKE '%PreSplit%' ORDER BY 2") == [
            (PRE_SRC, "msg_p1"), (PRE_FORK, "msg_p1_1"), (PRE_SRC, "msg_p2")]
        assert _rows(target, "SELECT id FROM session_v2 ORDER BY id") == sorted([(SES_A,), (PRE_SRC,), (PRE_FORK,)])
        assert _rows(target, "PRAGMA integrity_check") == [("ok",)]
        # merging it again replaces its row, as for any session
        restorer.restore_artifact(art, x_src, split)
        assert _rows(target, "SELECT count(*) FROM session_v2 WHERE id = ?", PRE_SRC) == [(1,)]
        assert restorer.after_restore(split, []) == []

        # fresh target: the pre-split schema as it is, until a post-split extract brings session_v2
        fresh = tmp_path / "fresh"
        restorer.restore_artifact(art, x_src, fresh)
        assert _rows(fresh / DB, "SELECT id FROM session") == [(PRE_SRC,)]
        restorer.restore_artifact(art, x_a, fresh)
        assert restorer.after_restore(fresh, []) == []
        assert _rows(fresh / DB, "SELECT id FROM session_v2 ORDER BY id") == sorted([(SES_A,), (PRE_SRC,)])
        assert _rows(fresh / DB, "SELECT id, version FROM session_v2 WHERE id = ?", PRE_SRC) == [(PRE_SRC, "2.0.3")]
        assert _rows(fresh / DB, "SELECT id FROM session") == [(SES_A,)]  # A's own stale 1.x row stays
        # a fresh target that stays pre-split keeps `session` (OpenCode's migration renames it)
        alone = tmp_path / "alone"
        restorer.restore_artifact(art, x_src, alone)
        restorer.after_restore(alone, [])
        assert _rows(alone / DB, "SELECT id FROM session") == [(PRE_SRC,)]
        assert "session_v2" not in {r[0] for r in _rows(alone / DB, "SELECT name FROM sqlite_master WHERE type = 'table'")}
    finally:
        old.close()
        new.close()
        close_opencode_home(info)
