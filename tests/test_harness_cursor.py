"""Cursor agent collector against a generated home (archiver/demo/cursor_sample.py)."""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any, Iterator

import pytest

from archiver.harnesses import cursor_agent
from archiver.harnesses.base import HarnessContext, load_harness
from archiver.harnesses.cursor_agent import CursorAgent, decode_meta, md5_dir, open_store, read_store
from archiver.model import DiscoveredSession
from archiver.demo.cursor_sample import (
    ACP,
    CHAT1,
    CHAT2,
    FORK,
    ORPHAN,
    SUB1,
    SUB2,
    SUBSTORE,
    TC_EXPLORE,
    TC_TASK,
    TC_TASK2,
    T0,
    Store,
    _meta,
    close_cursor_home,
    fb,
    fid,
    fmap,
    fs,
    fv,
    jb,
    make_cursor_home,
)

K = "cursor-agent:"


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, dict[str, Any]]]:
    h = tmp_path_factory.mktemp("cursor-home")
    info = make_cursor_home(h)
    yield h, info
    close_cursor_home(info)


@pytest.fixture(scope="module")
def sessions(home: tuple[Path, dict[str, Any]]) -> dict[str, DiscoveredSession]:
    h, _ = home
    harness = CursorAgent(HarnessContext(home=h, env={}))
    found = list(harness.discover())
    keys = [s.key for s in found]
    assert len(keys) == len(set(keys)), keys
    return {s.key: s for s in found}


def _paths(s: DiscoveredSession) -> list[tuple[str, str, str, str, bool, bool]]:
    return [(a.path, a.role, a.format, a.mode, a.shared, a.optional) for a in s.sources]


def test_wal_only_transaction_is_really_only_in_wal(home: tuple[Path, dict[str, Any]]) -> None:
    _, info = home
    store: Path = info["chat1_store"]
    assert store.with_name("store.db-wal").stat().st_size > 0
    conn = sqlite3.connect(f"file:{store}?immutable=1", uri=True)  # main file alone, no WAL
    try:
        meta = decode_meta(conn.execute("SELECT value FROM meta WHERE key='0'").fetchone()[0])
        assert meta["latestRootBlobId"] == info["root2"]
        assert conn.execute("SELECT 1 FROM blobs WHERE id=?", (info["sub2_state"],)).fetchone() is None
    finally:
        conn.close()


def test_session_keys_and_kinds(sessions: dict[str, DiscoveredSession]) -> None:
    kinds = {k: s.kind for k, s in sessions.items()}
    assert kinds == {
        K + CHAT1: "main",
        K + CHAT2: "main",
        K + FORK: "fork",
        K + SUBSTORE: "subagent",
        K + SUB1: "subagent",
        K + SUB2: "subagent",  # its state blob is only in -wal
        K + ACP: "main",
        K + ORPHAN: "main",
        K + "@host": "host",
    }


def test_lineage_edges(sessions: dict[str, DiscoveredSession], home: tuple[Path, dict[str, Any]]) -> None:
    _, info = home
    edges = {k: [(e.relation, e.parent, e.at, e.inferred) for e in s.parents] for k, s in sessions.items()}
    assert edges[K + SUB1] == [("subagent", K + CHAT1, TC_TASK, False)]
    assert edges[K + SUB2] == [("subagent", K + CHAT1, TC_TASK2, False)]
    assert edges[K + SUBSTORE] == [("subagent", K + CHAT1, TC_EXPLORE, False)]
    assert edges[K + FORK] == [("fork", K + CHAT1, info["root1"], True)]
    # chat2's first root is byte-identical to chat1's (no turns): not a fork
    for k in (CHAT1, CHAT2, ACP, ORPHAN, "@host"):
        assert edges[K + k] == [], k


def test_chat1_sources_modes_and_warnings(sessions: dict[str, DiscoveredSession], home: tuple[Path, dict[str, Any]]) -> None:
    _, info = home
    s = sessions[K + CHAT1]
    chat = f".cursor/chats/{info['md5_a']}/{CHAT1}"
    at = f".cursor/projects/{info['slug_a']}/agent-transcripts/{CHAT1}"
    assert _paths(s) == [
        (f"{chat}/store.db", "database", "sqlite", "sqlite", False, False),
        (f"{chat}/meta.json", "sidecar", "json", "whole", False, False),
        (f"{chat}/prompt_history.json", "history", "json", "whole", False, False),
        (f"{at}/{CHAT1}.jsonl", "transcript", "jsonl", "whole", False, False),
        (f".cursor/projects/{info['slug_a']}/terminals/1.txt", "sidecar", "text", "whole", False, True),
    ]
    assert s.sources[0].source == info["chat1_store"]
    assert s.cwd == info["cwd_a"]
    assert s.title == "Fix the login bug"
    assert s.created_at == "2025-10-09T08:53:20Z"
    assert s.updated_at == "2025-10-09T08:58:20Z"
    assert info["unreachable_chat1"] == 6
    unreach = [w for w in s.warnings if "unreachable blobs archived" in w]
    assert len(unreach) == 1 and unreach[0].startswith("6 unreachable blobs archived"), s.warnings
    assert not [w for w in s.warnings if "missing" in w or "not in blobs" in w], s.warnings


def test_subagents_share_the_parent_store(sessions: dict[str, DiscoveredSession], home: tuple[Path, dict[str, Any]]) -> None:
    _, info = home
    chat = f".cursor/chats/{info['md5_a']}/{CHAT1}"
    subs = f".cursor/projects/{info['slug_a']}/agent-transcripts/{CHAT1}/subagents"
    for sub in (SUB1, SUB2):
        s = sessions[K + sub]
        assert _paths(s) == [
            (f"{chat}/store.db", "database", "sqlite", "sqlite", True, False),
            (f"{subs}/{sub}.jsonl", "transcript", "jsonl", "whole", False, False),
        ]
        assert s.sources[0].source == info["chat1_store"]
        assert s.cwd == info["cwd_a"]  # for the md5 folder of the shared store
    assert sessions[K + SUB1].created_at == "2025-10-09T08:53:30Z"
    assert sessions[K + SUB2].updated_at == "2025-10-09T08:54:00Z"
    sub_store = sessions[K + SUBSTORE]
    assert _paths(sub_store) == [
        (f".cursor/chats/{info['md5_a']}/{SUBSTORE}/store.db", "database", "sqlite", "sqlite", False, False),
        (f".cursor/chats/{info['md5_a']}/{SUBSTORE}/meta.json", "sidecar", "json", "whole", False, False),
        (f"{subs}/{SUBSTORE}.jsonl", "transcript", "jsonl", "whole", False, False),
    ]


def test_fork_chat2_acp_orphan_host(sessions: dict[str, DiscoveredSession], home: tuple[Path, dict[str, Any]]) -> None:
    _, info = home
    fork = sessions[K + FORK]
    assert fork.title == "Fix the login bug (forked)"
    assert [w for w in fork.warnings if "unreachable" in w][0].startswith("6 unreachable blobs archived")
    assert fork.sources[0].path == f".cursor/chats/{info['md5_a']}/{FORK}/store.db"
    assert not fork.sources[0].shared
    chat2 = sessions[K + CHAT2]
    assert chat2.cwd == info["cwd_b"]  # meta.json has no cwd: from previous_workspace_uris, md5-checked
    assert _paths(chat2) == [
        (f".cursor/chats/{info['md5_b']}/{CHAT2}/store.db", "database", "sqlite", "sqlite", False, False),
        (f".cursor/chats/{info['md5_b']}/{CHAT2}/meta.json", "sidecar", "json", "whole", False, False),
        (f".cursor/projects/{info['slug_b']}/agent-transcripts/{CHAT2}.jsonl", "transcript", "jsonl", "whole", False, False),
    ]
    assert chat2.warnings == []
    acp = sessions[K + ACP]
    assert acp.title == "ACP run" and acp.cwd == info["cwd_b"]
    assert [a.path for a in acp.sources] == [f".cursor/acp-sessions/{ACP}/store.db", f".cursor/acp-sessions/{ACP}/meta.json"]
    assert acp.warnings == []  # latestRootBlobId '' is a chat without a checkpoint, not an error
    orphan = sessions[K + ORPHAN]
    assert [a.path for a in orphan.sources] == [
        f".cursor/projects/{info['slug_b']}/agent-transcripts/{ORPHAN}/{ORPHAN}.jsonl"
    ]
    assert any("chat folder gone" in w for w in orphan.warnings)
    host = sessions[K + "@host"]
    assert _paths(host) == [(".cursor/prompt_history.json", "history", "json", "whole", False, False)]
    every = {a.path for s in sessions.values() for a in s.sources}
    assert f".cursor/projects/{info['slug_a']}/terminals/2.txt" not in every  # not referenced
    assert not any(p.endswith(("-wal", "-shm")) for p in every)


def test_blob_walk_reaches_typed_references(home: tuple[Path, dict[str, Any]]) -> None:
    _, info = home
    g = read_store(info["chat1_store"])
    assert g.latest_root == info["root1"] and g.has_root
    for blob in (info["root0"], info["root1"], info["turn1"], info["j_q1"], info["f_read"], info["f_after"], info["sub2_state"]):
        assert blob in g.reachable
    assert not (g.reachable & info["unreachable_ids"])
    assert g.total_blobs - len(g.reachable) == g.unreachable == 6
    assert g.root_order == [info["root0"], info["root1"]]
    assert set(g.subagents) == {SUB1, SUB2}


def test_redacted_relpath_uses_md5_of_redacted_cwd(sessions: dict[str, DiscoveredSession], home: tuple[Path, dict[str, Any]]) -> None:
    h, info = home
    harness = CursorAgent(HarnessContext(home=h, env={}))

    def redact_text(t: str) -> str:
        return t.replace("alice", "user-5f2a")

    def redact_relpath(p: str) -> str:
        return "/".join(c.replace("alice", "user-5f2a") for c in p.split("/"))

    red_md5 = hashlib.md5(b"/home/user-5f2a/work/app").hexdigest()
    assert red_md5 != info["md5_a"]
    sub = sessions[K + SUB1]
    assert harness.redacted_relpath(sub.sources[0], sub, redact_relpath, redact_text) == (
        f".cursor/chats/{red_md5}/{CHAT1}/store.db"
    )
    assert harness.redacted_relpath(sub.sources[1], sub, redact_relpath, redact_text) == (
        f".cursor/projects/home-user-5f2a-work-app/agent-transcripts/{CHAT1}/subagents/{SUB1}.jsonl"
    )
    acp = sessions[K + ACP]
    assert harness.redacted_relpath(acp.sources[0], acp, redact_relpath, redact_text) == f".cursor/acp-sessions/{ACP}/store.db"


def test_restored_store_opens_and_walks_from_its_root(
    sessions: dict[str, DiscoveredSession], home: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    """What restore places at DIR/.cursor/chats/<md5(redacted cwd)>/<chatId>/store.db: a
    backup-API copy of the live store (as the pipeline snapshots it), opened with sqlite3."""
    _, info = home
    s = sessions[K + CHAT1]
    target = tmp_path / ".cursor" / "chats" / md5_dir("/home/user-5f2a/work/app") / CHAT1 / "store.db"
    target.parent.mkdir(parents=True)
    src = sqlite3.connect(f"file:{s.sources[0].source}?mode=ro", uri=True)
    dst = sqlite3.connect(str(target))
    src.backup(dst)
    src.close()
    dst.execute("PRAGMA journal_mode=DELETE")
    assert dst.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    dst.close()
    g = read_store(target, CHAT1)
    assert g.latest_root == info["root1"] and g.has_root
    assert info["sub2_state"] in g.reachable  # the WAL-only blob made it into the copy
    assert g.unreachable == 6 and set(g.subagents) == {SUB1, SUB2}


def test_open_store_falls_back_to_a_copy_when_read_only_open_fails(
    home: tuple[Path, dict[str, Any]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, info = home
    d = tmp_path / "noshm"
    d.mkdir()
    shutil.copyfile(info["chat1_store"], d / "store.db")
    shutil.copyfile(info["chat1_store"].with_name("store.db-wal"), d / "store.db-wal")
    real = sqlite3.connect

    def fake(target: str, *a: Any, **kw: Any) -> sqlite3.Connection:
        if "mode=ro" in str(target):
            raise sqlite3.OperationalError("unable to open database file")
        return real(target, *a, **kw)

    monkeypatch.setattr(cursor_agent.sqlite3, "connect", fake)
    with open_store(d / "store.db") as conn:
        meta = decode_meta(conn.execute("SELECT value FROM meta WHERE key='0'").fetchone()[0])
    assert meta["latestRootBlobId"] == info["root1"]  # the WAL was replayed in the temp copy
    assert sorted(p.name for p in d.iterdir()) == ["store.db", "store.db-wal"]  # source untouched


def test_root_env_overrides(tmp_path: Path) -> None:
    home = tmp_path / "h"
    home.mkdir()
    ctx = HarnessContext(home=home, env={})
    assert CursorAgent(ctx).root == home / ".config" / "cursor"  # no ~/.cursor: XDG default
    assert CursorAgent(HarnessContext(home=home, env={"XDG_CONFIG_HOME": str(tmp_path / "xdg")})).root == tmp_path / "xdg" / "cursor"
    (home / ".cursor").mkdir()
    assert CursorAgent(ctx).root == home / ".cursor"
    assert CursorAgent(HarnessContext(home=home, root=tmp_path / "conf", env={})).root == tmp_path / "conf"
    env = {"CURSOR_CONFIG_DIR": str(tmp_path / "cc")}
    h = CursorAgent(HarnessContext(home=home, root=tmp_path / "conf", env=env))
    assert h.root == tmp_path / "cc"
    assert h.projects_dir == tmp_path / "cc" / "projects"
    env["CURSOR_DATA_DIR"] = str(tmp_path / "data")
    assert CursorAgent(HarnessContext(home=home, env=env)).projects_dir == tmp_path / "data" / "projects"
    assert isinstance(load_harness("cursor-agent", ctx), CursorAgent)


def test_moved_root_keeps_default_layout_paths(tmp_path: Path) -> None:
    info = make_cursor_home(tmp_path / "src")
    try:
        moved = tmp_path / "elsewhere"
        shutil.copytree(info["root"] / "chats", moved / "cfg" / "chats")
        shutil.copytree(info["root"] / "projects", moved / "data" / "projects")
        env = {"CURSOR_CONFIG_DIR": str(moved / "cfg"), "CURSOR_DATA_DIR": str(moved / "data")}
        found = {s.key: s for s in CursorAgent(HarnessContext(home=tmp_path / "nohome", env=env)).discover()}
        s = found[K + CHAT1]
        assert [a.path for a in s.sources][:1] == [f".cursor/chats/{info['md5_a']}/{CHAT1}/store.db"]
        assert f".cursor/projects/{info['slug_a']}/agent-transcripts/{CHAT1}/{CHAT1}.jsonl" in [a.path for a in s.sources]
        assert s.sources[0].source == moved / "cfg" / "chats" / info["md5_a"] / CHAT1 / "store.db"
    finally:
        close_cursor_home(info)


def test_one_bad_store_does_not_stop_discovery(tmp_path: Path) -> None:
    info = make_cursor_home(tmp_path)
    try:
        bad = info["root"] / "chats" / info["md5_b"] / "77777777-7777-4777-8777-777777777777"
        bad.mkdir()
        (bad / "store.db").write_bytes(b"this is not a database" * 100)
        found = {s.key: s for s in CursorAgent(HarnessContext(home=tmp_path, env={})).discover()}
        s = found[K + bad.name]
        assert [a.path for a in s.sources] == [f".cursor/chats/{info['md5_b']}/{bad.name}/store.db"]
        assert any("store.db: blob graph not read" in w for w in s.warnings), s.warnings
        assert K + CHAT1 in found and K + SUB2 in found
    finally:
        close_cursor_home(info)


def test_unknown_files_in_a_chat_folder_are_sniffed(tmp_path: Path) -> None:
    info = make_cursor_home(tmp_path)
    try:
        chat = info["root"] / "chats" / info["md5_a"] / CHAT1
        (chat / "notes.md").write_text("notes on /home/alice/work/app\n")
        (chat / "thumb.bin").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
        found = {s.key: s for s in CursorAgent(HarnessContext(home=tmp_path, env={})).discover()}
        fmt = {a.path.rsplit("/", 1)[-1]: a.format for a in found[K + CHAT1].sources}
        assert fmt["notes.md"] == "text"  # redacted as text, not kept as binary
        assert fmt["thumb.bin"] == "binary"
    finally:
        close_cursor_home(info)


@pytest.mark.parametrize("moved_by", ["XDG_CONFIG_HOME", "CURSOR_CONFIG_DIR"])
def test_config_dir_moved_without_data_dir_keeps_projects_under_home(tmp_path: Path, moved_by: str) -> None:
    """Cursor reads chats/ from $CURSOR_CONFIG_DIR, else $XDG_CONFIG_HOME/cursor (even when
    ~/.cursor exists), while projects/ stays in ~/.cursor unless CURSOR_DATA_DIR moves it."""
    src = tmp_path / "src"
    info = make_cursor_home(src)
    try:
        home = tmp_path / "home"
        shutil.copytree(info["root"] / "projects", home / ".cursor" / "projects")
        cfg = tmp_path / "xdg" / "cursor" if moved_by == "XDG_CONFIG_HOME" else tmp_path / "cfg"
        for area in ("chats", "acp-sessions"):
            shutil.copytree(info["root"] / area, cfg / area)
        env = {moved_by: str(cfg.parent if moved_by == "XDG_CONFIG_HOME" else cfg)}
        h = CursorAgent(HarnessContext(home=home, env=env))
        assert h.root == cfg
        found = {s.key: s for s in h.discover()}
        s = found[K + CHAT1]
        chat = f".cursor/chats/{info['md5_a']}/{CHAT1}"
        assert [(a.path, a.source) for a in s.sources] == [
            (f"{chat}/store.db", cfg / "chats" / info["md5_a"] / CHAT1 / "store.db"),
            (f"{chat}/meta.json", cfg / "chats" / info["md5_a"] / CHAT1 / "meta.json"),
            (f"{chat}/prompt_history.json", cfg / "chats" / info["md5_a"] / CHAT1 / "prompt_history.json"),
            (f".cursor/projects/{info['slug_a']}/agent-transcripts/{CHAT1}/{CHAT1}.jsonl",
             home / ".cursor" / "projects" / info["slug_a"] / "agent-transcripts" / CHAT1 / f"{CHAT1}.jsonl"),
            (f".cursor/projects/{info['slug_a']}/terminals/1.txt",
             home / ".cursor" / "projects" / info["slug_a"] / "terminals" / "1.txt"),
        ]
        assert found[K + ACP].sources[0].source == cfg / "acp-sessions" / ACP / "store.db"
        assert K + ORPHAN in found and not any("chat folder gone" in w for w in s.warnings)
        assert [a.path for a in found[K + SUB1].sources][1:] == [
            f".cursor/projects/{info['slug_a']}/agent-transcripts/{CHAT1}/subagents/{SUB1}.jsonl"]
    finally:
        close_cursor_home(info)


def test_chats_left_in_home_by_older_builds_are_read_when_xdg_moves_the_config_dir(tmp_path: Path) -> None:
    info = make_cursor_home(tmp_path / "home")
    try:
        xdg = tmp_path / "xdg"
        shutil.copytree(info["root"] / "chats" / info["md5_b"], xdg / "cursor" / "chats" / info["md5_b"])
        shutil.rmtree(info["root"] / "chats" / info["md5_b"])
        found = {s.key: s for s in CursorAgent(HarnessContext(home=tmp_path / "home", env={"XDG_CONFIG_HOME": str(xdg)})).discover()}
        assert found[K + CHAT2].sources[0].source == xdg / "cursor" / "chats" / info["md5_b"] / CHAT2 / "store.db"
        assert found[K + CHAT1].sources[0].source == info["chat1_store"]  # still in ~/.cursor/chats
        assert found[K + CHAT1].sources[0].path == f".cursor/chats/{info['md5_a']}/{CHAT1}/store.db"
        assert found[K + "@host"].sources[0].source == info["root"] / "prompt_history.json"
    finally:
        close_cursor_home(info)


def _set_created_at(store: Path, created: int) -> None:
    """Rewrite meta['0'].createdAt of a store (hex of UTF-8 JSON, as Cursor stores it)."""
    conn = sqlite3.connect(str(store), isolation_level=None)
    try:
        meta = decode_meta(conn.execute("SELECT value FROM meta WHERE key = '0'").fetchone()[0])
        meta["createdAt"] = created
        conn.execute("UPDATE meta SET value = ? WHERE key = '0'", (json.dumps(meta).encode("utf-8").hex(),))
    finally:
        conn.close()


@pytest.mark.parametrize("which", ["fork-in-seconds", "source-in-microseconds", "source-in-nanoseconds"])
def test_creation_times_in_other_units_are_compared_as_milliseconds(tmp_path: Path, which: str) -> None:
    """createdAt is ms, but readers normalise seconds / micro- / nanoseconds (seed): a fork
    stamped in seconds is still younger than its source stamped in ms, and keeps the edge."""
    info = make_cursor_home(tmp_path)
    try:
        if which == "fork-in-seconds":
            _set_created_at(info["fork_store"], (T0 + 600_000) // 1000)
        else:
            _set_created_at(info["chat1_store"], T0 * (1000 if which == "source-in-microseconds" else 1_000_000))
        found = {s.key: s for s in CursorAgent(HarnessContext(home=tmp_path, env={})).discover()}
        edges = {k: [(e.relation, e.parent, e.at, e.inferred) for e in s.parents] for k, s in found.items()}
        assert edges[K + FORK] == [("fork", K + CHAT1, info["root1"], True)]
        assert edges[K + CHAT1] == []
        assert (found[K + FORK].kind, found[K + CHAT1].kind) == ("fork", "main")
        # the fork copied chat1's subagents: they stay with the earliest-created chat
        assert edges[K + SUB1] == [("subagent", K + CHAT1, TC_TASK, False)]
        assert edges[K + SUB2] == [("subagent", K + CHAT1, TC_TASK2, False)]
        assert found[K + CHAT1].created_at == "2025-10-09T08:53:20Z"
        assert found[K + FORK].created_at == "2025-10-09T09:03:20Z"
    finally:
        close_cursor_home(info)


CLOUD_CHAT = "88888888-8888-4888-8888-888888888888"
CLOUD_SUB = "cccccccc-cccc-4ccc-8ccc-cccccccccccc"
TC_CLOUD = "tool_00000000-0000-4000-8000-000000000020"
TC_BG = "tool_00000000-0000-4000-8000-000000000021"
TC_FAR = "tool_00000000-0000-4000-8000-000000000022"


def _cloud_chat(home: Path, info: dict[str, Any]) -> dict[str, Path]:
    """A chat whose root names a cloud subagent (subagent_states entry with a
    CloudSubagentReference {bc_id, transcript_path}), a background run with no subagent id
    whose SubagentRunState carries transcript_path (field 7, the seed's order), and a run
    whose transcript_path lies outside every Cursor folder."""
    root = info["root"]
    cwd = info["cwd_a"]
    sub_file = root / "projects" / info["slug_a"] / "agent-transcripts" / "cloud" / "bc-1.jsonl"
    bg_file = root / "cloud-agents" / "bc-2" / "transcript.jsonl"
    far_file = home / "elsewhere" / "bc-3.jsonl"
    for f, text in ((sub_file, "cloud sub"), (bg_file, "background run"), (far_file, "far away")):
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(json.dumps({"role": "user", "message": {"content": [{"type": "text", "text": text}]}}) + "\n")
    st = Store(root / "chats" / info["md5_a"] / CLOUD_CHAT / "store.db")
    jq = st.put(jb({"role": "user", "content": [{"type": "text", "text": "<user_query>\ndelegate to the cloud\n</user_query>"}]}))
    sub_state = (fb(1, fs(22, "subagent")) + fv(2, T0 + 1_000) + fv(3, T0 + 2_000) + fb(4, fb(1, b""))
                 + fb(7, fs(1, "bc-00000000-0000-4000-8000-000000000001") + fs(2, str(sub_file))))
    root_blob = st.put(
        fid(1, jq) + fs(22, "agent")
        + fmap(16, CLOUD_SUB, sub_state)
        + fmap(30, TC_CLOUD, fs(1, TC_CLOUD) + fs(2, CLOUD_SUB) + fv(4, 3))
        + fmap(30, TC_BG, fs(1, TC_BG) + fv(4, 2) + fs(5, "background build") + fs(7, str(bg_file)))
        + fmap(30, TC_FAR, fs(1, TC_FAR) + fv(4, 3) + fs(7, str(far_file)))
    )
    st.set_meta(_meta(CLOUD_CHAT, root_blob, "cloud run", T0 + 900_000))
    st.close()
    (st.path.parent / "meta.json").write_text(json.dumps({"schemaVersion": 1, "createdAtMs": T0 + 900_000,
                                                          "hasConversation": True, "cwd": cwd}))
    return {"sub": sub_file, "bg": bg_file, "far": far_file}


def test_cloud_subagent_transcript_path_is_collected_and_linked(tmp_path: Path) -> None:
    info = make_cursor_home(tmp_path)
    try:
        files = _cloud_chat(tmp_path, info)
        found = {s.key: s for s in CursorAgent(HarnessContext(home=tmp_path, env={})).discover()}
        sub = found[K + CLOUD_SUB]
        assert sub.kind == "subagent"
        assert [(e.relation, e.parent, e.at) for e in sub.parents] == [("subagent", K + CLOUD_CHAT, TC_CLOUD)]
        chat = f".cursor/chats/{info['md5_a']}/{CLOUD_CHAT}"
        assert _paths(sub) == [
            (f"{chat}/store.db", "database", "sqlite", "sqlite", True, False),
            (f".cursor/projects/{info['slug_a']}/agent-transcripts/cloud/bc-1.jsonl", "transcript", "jsonl", "whole", False, True),
        ]
        assert sub.sources[1].source == files["sub"]
        parent = found[K + CLOUD_CHAT]
        # the background run names no subagent: its transcript goes with the chat that ran it
        assert (".cursor/cloud-agents/bc-2/transcript.jsonl", "transcript", "jsonl", "whole", False, True) in _paths(parent)
        assert not any("elsewhere" in a.path for s in found.values() for a in s.sources)
        assert any(w == f"transcript_path {files['far']}: not under a Cursor folder; not archived" for w in parent.warnings)
        # the file under agent-transcripts/cloud/ is the subagent's, not an orphan mirror session
        assert K + "cloud" not in found
        every = [a.source for s in found.values() for a in s.sources]
        assert every.count(files["sub"]) == 1
    finally:
        close_cursor_home(info)


def test_cloud_transcript_path_gone_from_the_machine_is_reported(tmp_path: Path) -> None:
    info = make_cursor_home(tmp_path)
    try:
        files = _cloud_chat(tmp_path, info)
        files["sub"].unlink()
        found = {s.key: s for s in CursorAgent(HarnessContext(home=tmp_path, env={})).discover()}
        sub = found[K + CLOUD_SUB]
        assert [a.path for a in sub.sources] == [f".cursor/chats/{info['md5_a']}/{CLOUD_CHAT}/store.db"]
        assert sub.warnings == [f"transcript_path {files['sub']}: no such file on this machine"]
    finally:
        close_cursor_home(info)


def test_a_graph_cached_before_run_transcripts_existed_is_read_again(tmp_path: Path) -> None:
    info = make_cursor_home(tmp_path)
    try:
        _cloud_chat(tmp_path, info)
        cache: dict[str, str] = {}
        list(CursorAgent(HarnessContext(home=tmp_path, env={}, cache=cache)).discover())
        key = next(k for k in cache if CLOUD_CHAT in k)
        old = json.loads(cache[key])
        assert old["run_transcripts"] == {CLOUD_CHAT: [str(tmp_path / ".cursor" / "cloud-agents" / "bc-2" / "transcript.jsonl"),
                                                       str(tmp_path / "elsewhere" / "bc-3.jsonl")]}
        del old["run_transcripts"]  # as an earlier version wrote it
        cache[key] = json.dumps(old)
        found = {s.key: s for s in CursorAgent(HarnessContext(home=tmp_path, env={}, cache=cache)).discover()}
        assert ".cursor/cloud-agents/bc-2/transcript.jsonl" in [a.path for a in found[K + CLOUD_CHAT].sources]
        assert "run_transcripts" in json.loads(cache[key])
    finally:
        close_cursor_home(info)


# ---- audit s9-seedB: fixtures written from seeds/by-harness/cursor-agent.json alone


def _seed_store(db: Path, meta: dict[str, Any], blobs: dict[str, bytes] | None = None) -> None:
    """store.db as the seed lays it out: WAL, user_version=1, meta(key, value = hex of the
    JSON of row '0'), blobs(id = sha256 hex of data, data)."""
    db.parent.mkdir(parents=True, exist_ok=True)
    c = sqlite3.connect(db, isolation_level=None)
    c.execute("PRAGMA journal_mode=WAL")
    c.execute("PRAGMA user_version=1")
    c.execute("CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT)")
    c.execute("CREATE TABLE blobs(id TEXT PRIMARY KEY, data BLOB)")
    c.execute("INSERT INTO meta VALUES ('0', ?)", (json.dumps(meta).encode().hex(),))
    for k, v in (blobs or {}).items():
        c.execute("INSERT INTO blobs VALUES (?, ?)", (k, v))
    c.close()


def test_chats_without_a_recorded_cwd_take_their_workspace_folders_cwd(tmp_path: Path) -> None:
    """Seed layout: chats/<md5(path.resolve(cwd))>/<chatId>/ -- every chat of one md5 folder has
    the same cwd. A chat that records none itself (no checkpoint and no meta.json yet; a
    subagent's own store, whose meta.json has no cwd) must still be archived under the md5 of
    the *redacted* cwd like its siblings, not under the md5 of the real one."""
    cwd = "/home/alice/src/app"
    ws = tmp_path / ".cursor" / "chats" / md5_dir(cwd)
    main, empty, sub = (f"{n}0000000-0000-4000-8000-000000000001" for n in "abc")
    _seed_store(ws / main / "store.db", {"agentId": main, "latestRootBlobId": "", "name": "Login bug",
                                         "createdAt": 1760000000000, "mode": "default", "isRunEverything": False})
    (ws / main / "meta.json").write_text(json.dumps({"schemaVersion": 1, "createdAtMs": 1760000000000,
                                                     "hasConversation": False, "title": "Login bug", "cwd": cwd}))
    _seed_store(ws / empty / "store.db", {"agentId": empty, "latestRootBlobId": "", "name": "New Agent",
                                          "createdAt": 1760000100000, "mode": "default", "isRunEverything": False})
    _seed_store(ws / sub / "store.db", {"agentId": sub, "latestRootBlobId": "", "name": "Sub", "createdAt": 1760000200000,
                                        "mode": "default", "isRunEverything": False,
                                        "subagentInfo": {"parentAgentId": main, "rootParentAgentId": main,
                                                         "toolCallId": "tool_1", "typeName": "explore"}})
    (ws / sub / "meta.json").write_text(json.dumps({"schemaVersion": 1, "createdAtMs": 1760000200000,
                                                    "hasConversation": False, "isSubagent": True}))
    harness = CursorAgent(HarnessContext(home=tmp_path, env={}))
    found = {s.key: s for s in harness.discover()}
    assert {found[K + i].cwd for i in (main, empty, sub)} == {cwd}
    assert not [w for i in (empty, sub) for w in found[K + i].warnings if "cwd not recorded" in w]

    def redact_text(t: str) -> str:
        return t.replace("alice", "user-5f2a")

    def redact_relpath(p: str) -> str:
        return "/".join(c.replace("alice", "user-5f2a") for c in p.split("/"))

    red = md5_dir("/home/user-5f2a/src/app")
    for i in (main, empty, sub):
        s = found[K + i]
        assert harness.redacted_relpath(s.sources[0], s, redact_relpath, redact_text) == f".cursor/chats/{red}/{i}/store.db"


def test_a_lone_chat_without_cwd_is_still_reported(tmp_path: Path) -> None:
    chat = "d0000000-0000-4000-8000-000000000001"
    _seed_store(tmp_path / ".cursor" / "chats" / md5_dir("/home/alice/x") / chat / "store.db",
                {"agentId": chat, "latestRootBlobId": "", "name": "New Agent", "createdAt": 1760000000000,
                 "mode": "default", "isRunEverything": False})
    s = {s.key: s for s in CursorAgent(HarnessContext(home=tmp_path, env={})).discover()}[K + chat]
    assert s.cwd is None
    assert len(s.warnings) == 1 and s.warnings[0].startswith(f".cursor/chats/<workspace>/{chat}: cwd not recorded; ")
    assert "keyed name" in s.warnings[0]


def test_terminal_named_only_by_a_rewound_away_result_goes_with_the_chat(tmp_path: Path) -> None:
    """Seed: terminals/<n>.txt are shell output files referenced from shell tool results;
    rewound-away blobs stay in the table as unreachable rows (archived in store.db). A file
    only such a row names is the chat's; a file no row names is not archived."""
    info = make_cursor_home(tmp_path)
    try:
        slug = info["slug_a"]
        s = Store(info["chat1_store"])
        s.put(jb({"role": "tool", "id": "toolu_rewound", "content": [{"type": "tool-result", "toolCallId": "toolu_rewound",
              "toolName": "Shell", "result": "ok"}], "providerOptions": {"cursor": {"highLevelToolCallResult": {"output": {
              "success": {"exitCode": 0, "outputLocation": {"filePath": f"/home/alice/.cursor/projects/{slug}/terminals/2.txt"}}},
              "isError": False}}}}))
        s.close()
        (tmp_path / ".cursor" / "projects" / slug / "terminals" / "3.txt").write_text("$ make\n")
        found = {x.key: x for x in CursorAgent(HarnessContext(home=tmp_path, env={})).discover()}
        terms = [(a.path, a.role, a.format, a.optional) for a in found[K + CHAT1].sources if "/terminals/" in a.path]
        assert terms == [(f".cursor/projects/{slug}/terminals/1.txt", "sidecar", "text", True),
                         (f".cursor/projects/{slug}/terminals/2.txt", "sidecar", "text", True)]
        every = {a.path for x in found.values() for a in x.sources}
        assert f".cursor/projects/{slug}/terminals/3.txt" not in every
    finally:
        close_cursor_home(info)
