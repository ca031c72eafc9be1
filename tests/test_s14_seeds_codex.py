"""s14 seed-conformance gaps of the Codex collector (docs/seeds/codex.md): items of
seeds/by-harness/codex.json no earlier test pinned. Fixtures are written here, following the
seed's layout and session_meta fields."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import zstandard

from archiver.harnesses.base import HarnessContext, load_harness
from archiver.model import DiscoveredSession, LineageEdge
from tests.fx_home import EMAIL, USER, Box, _line, box  # noqa: F401

ROOT = "0199aaaa-0000-7000-8000-0000000000a1"
MID = "0199aaaa-0000-7000-8000-0000000000a2"
LEAF = "0199aaaa-0000-7000-8000-0000000000a3"
REVIEW = "0199aaaa-0000-7000-8000-0000000000a4"
COMPACT = "0199aaaa-0000-7000-8000-0000000000a5"
FORK = "0199aaaa-0000-7000-8000-0000000000a6"
OTHER = "0199aaaa-0000-7000-8000-0000000000a7"
DAY = "sessions/2026/01/02"


def k(tid: str) -> str:
    return f"codex:{tid}"


def meta_line(tid: str, cwd: str, ts: str = "2026-01-02T03:04:05.600Z", ordinal: int | None = 0, **payload: Any) -> dict[str, Any]:
    rec: dict[str, Any] = {"timestamp": ts, "type": "session_meta", "payload": {
        "id": tid, "session_id": payload.pop("session_id", tid), "timestamp": ts, "cwd": cwd,
        "originator": "codex_cli_rs", "cli_version": "0.164.0", "source": "cli", "model_provider": "openai",
        **({"history_mode": "paginated"} if ordinal is not None else {}), **payload}}
    if ordinal is not None:
        rec["ordinal"] = ordinal
    return rec


def user_line(text: str, ordinal: int | None) -> dict[str, Any]:
    rec: dict[str, Any] = {"timestamp": "2026-01-02T03:04:06.000Z", "type": "response_item",
                           "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}}
    if ordinal is not None:
        rec["ordinal"] = ordinal
    return rec


def write(codex: Path, rel: str, recs: list[dict[str, Any]]) -> Path:
    p = codex / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text("".join(map(_line, recs)))
    return p


def rollout(codex: Path, tid: str, stamp: str, *recs: dict[str, Any]) -> Path:
    return write(codex, f"{DAY}/rollout-2026-01-02T{stamp}-{tid}.jsonl", list(recs))


def discover(home: Path) -> dict[str, DiscoveredSession]:
    return {s.key: s for s in load_harness("codex", HarnessContext(home=home, env={})).discover()}


# ---------------------------------------------------------------- lineage


def test_spawn_edge_in_state_alone_makes_the_subagent_edge(tmp_path: Path) -> None:
    """linking/subagents: "state_5.sqlite thread_spawn_edges indexes the edges". A grandchild whose
    session_meta names no parent (only session_id, the ROOT of the tree) hangs off the thread the
    edge names (MID), not the root that session_id would suggest."""
    codex = tmp_path / ".codex"
    rollout(codex, ROOT, "03-04-05", meta_line(ROOT, "/srv/app"), user_line("go", 1))
    rollout(codex, MID, "03-04-06", meta_line(MID, "/srv/app", session_id=ROOT, parent_thread_id=ROOT), user_line("a", 1))
    rollout(codex, LEAF, "03-04-07", meta_line(LEAF, "/srv/app", session_id=ROOT), user_line("b", 1))
    con = sqlite3.connect(codex / "state_5.sqlite")
    con.execute("CREATE TABLE threads (id TEXT PRIMARY KEY, rollout_path TEXT NOT NULL)")
    con.execute("CREATE TABLE thread_spawn_edges (parent_thread_id TEXT NOT NULL, child_thread_id TEXT NOT NULL "
                "PRIMARY KEY, status TEXT NOT NULL)")
    con.executemany("INSERT INTO thread_spawn_edges VALUES (?, ?, 'completed')", [(ROOT, MID), (MID, LEAF)])
    con.commit()
    con.close()
    found = discover(tmp_path)
    assert found[k(LEAF)].kind == "subagent"
    assert found[k(LEAF)].parents == [LineageEdge(relation="subagent", parent=k(MID), at=None, inferred=False)]
    assert found[k(MID)].parents == [LineageEdge(relation="subagent", parent=k(ROOT), at=None, inferred=False)]
    assert found[k(ROOT)].parents == []


def test_review_and_compact_subagents_hang_off_their_root(tmp_path: Path) -> None:
    """session_meta.source {"subagent": "review"} / {"subagent": "compact"}: a string, not a
    thread_spawn object, and no parent_thread_id. session_id is "the root thread id for the whole
    tree": they are the root's sub-agents (inferred), never stand-alone main sessions."""
    codex = tmp_path / ".codex"
    rollout(codex, ROOT, "03-04-05", meta_line(ROOT, "/srv/app"), user_line("go", 1))
    rollout(codex, REVIEW, "03-04-06", meta_line(REVIEW, "/srv/app", session_id=ROOT, source={"subagent": "review"}),
            user_line("review the diff", 1))
    rollout(codex, COMPACT, "03-04-07", meta_line(COMPACT, "/srv/app", session_id=ROOT, source={"subagent": "compact"}),
            user_line("summarise", 1))
    found = discover(tmp_path)
    for tid in (REVIEW, COMPACT):
        assert found[k(tid)].kind == "subagent", tid
        assert found[k(tid)].parents == [LineageEdge(relation="subagent", parent=k(ROOT), at=None, inferred=True)], tid
        assert found[k(tid)].warnings == []


def test_legacy_fork_with_copied_parent_session_meta_is_described_by_its_first_line(tmp_path: Path) -> None:
    """gotcha: "Legacy forks contain copied parent records including parent session_meta lines;
    only the first session_meta describes the file". The copied parent meta (another cwd, another
    time, a parent_thread_id of its own) must not leak into the fork's cwd, time or lineage."""
    codex = tmp_path / ".codex"
    rollout(codex, ROOT, "03-04-05", meta_line(ROOT, "/srv/root", ordinal=None), user_line("go", None))
    parent_meta = meta_line(OTHER, "/srv/parent", ts="2025-12-01T00:00:00.000Z", ordinal=None, parent_thread_id=ROOT,
                            source={"subagent": {"thread_spawn": {"parent_thread_id": ROOT, "depth": 1}}})
    f = rollout(codex, FORK, "09-00-00",
                meta_line(FORK, "/srv/fork", ts="2026-01-02T09:00:00.000Z", ordinal=None, forked_from_id=OTHER),
                parent_meta, user_line("copied parent turn", None), parent_meta, user_line("the fork's own turn", None))
    found = discover(tmp_path)
    fork = found[k(FORK)]
    assert fork.kind == "fork"
    assert fork.parents == [LineageEdge(relation="fork", parent=k(OTHER), at=None)]
    assert (fork.cwd, fork.created_at) == ("/srv/fork", "2026-01-02T09:00:00.000Z")
    assert fork.warnings == []
    assert [(a.path, a.mode) for a in fork.sources] == [(f".codex/{DAY}/{f.name}", "whole")]  # legacy: whole
    assert k(OTHER) not in found  # the copied meta names no file of its own


# ---------------------------------------------------------------- layout


def test_every_host_database_of_the_seed_is_in_the_host_session(tmp_path: Path) -> None:
    """layout: logs_2, goals_1, memories_1 and queue_1.sqlite ("queued input ... keyed by thread
    id": what the user typed ahead) are archived, as SQLite snapshots, in the host session."""
    codex = tmp_path / ".codex"
    rollout(codex, ROOT, "03-04-05", meta_line(ROOT, "/srv/app"), user_line("go", 1))
    for name, ddl in (("logs_2", "CREATE TABLE logs (id INTEGER PRIMARY KEY, thread_id TEXT, message TEXT)"),
                      ("goals_1", "CREATE TABLE thread_goals (thread_id TEXT PRIMARY KEY, objective TEXT)"),
                      ("memories_1", "CREATE TABLE memories (id TEXT PRIMARY KEY, thread_id TEXT, text TEXT)"),
                      ("queue_1", "CREATE TABLE queued_input (id INTEGER PRIMARY KEY, thread_id TEXT, text TEXT)")):
        con = sqlite3.connect(codex / f"{name}.sqlite")
        con.execute(ddl)
        con.commit()
        con.close()
    host = discover(tmp_path)["codex:@host"]
    assert sorted((a.path, a.role, a.format, a.mode) for a in host.sources) == [
        (f".codex/{n}.sqlite", "database", "sqlite", "sqlite") for n in ("goals_1", "logs_2", "memories_1", "queue_1")]


def test_path_keyed_file_changes_are_redacted_in_the_archived_bytes(box: Box) -> None:  # noqa: F811
    """records: patch_apply_end.changes and item_completed FileChange item.changes are
    object<path, FileChange>: the paths are object KEYS (the seed's s11 audit keeps keys as the
    seed example has them, /home/user/..., no configured user). Restored bytes carry no user name
    or e-mail in a key, and the diff under it is intact."""
    box.only("codex")
    home_path, mail_path = f"/home/{USER}/project/a.txt", f"/srv/{EMAIL}/b.txt"
    recs = [meta_line(ROOT, f"/home/{USER}/project"),
            {"timestamp": "2026-01-02T03:04:06.000Z", "ordinal": 1, "type": "event_msg", "payload": {
                "type": "patch_apply_end", "call_id": "call_def", "turn_id": "t1", "stdout": "Success.", "stderr": "",
                "success": True, "status": "completed",
                "changes": {home_path: {"type": "add", "content": "hi\n"}, mail_path: {"type": "delete", "content": ""}}}},
            {"timestamp": "2026-01-02T03:04:07.000Z", "ordinal": 2, "type": "event_msg", "payload": {
                "type": "item_completed", "thread_id": ROOT, "turn_id": "t1", "item": {
                    "type": "FileChange", "id": "call_def", "status": "completed",
                    "changes": {home_path: {"type": "update", "unified_diff": "@@ -1 +1 @@\n-a\n+b\n", "move_path": None}}}}}]
    rollout(box.home / ".codex", ROOT, "03-04-05", *recs)
    assert box.sync()["sessions"]["failed"] == 0
    ((_, data),) = _restored_rollouts(box, "keys").items()
    lines = [json.loads(x) for x in data.splitlines()]
    patch_keys = list(lines[1]["payload"]["changes"])
    item_keys = list(lines[2]["payload"]["item"]["changes"])
    for key in patch_keys + item_keys:
        assert USER not in key and EMAIL.split("@")[1] not in key, key
    assert patch_keys[0].endswith("/project/a.txt") and item_keys[0] == patch_keys[0]
    assert lines[2]["payload"]["item"]["changes"][item_keys[0]]["unified_diff"] == "@@ -1 +1 @@\n-a\n+b\n"


def _rollout_bytes(tid: str, turns: int) -> bytes:
    recs = [meta_line(tid, "/srv/app")] + [user_line(f"turn {i}", i) for i in range(1, turns + 1)]
    return "".join(map(_line, recs)).encode()


def _restored_rollouts(box: Box, name: str) -> dict[str, bytes]:  # noqa: F811
    target = box.base / f"restored-{name}"
    box.cli("restore", "--all", "--to", str(target))
    codex = target / ".codex"
    out = {}
    for p in sorted(codex.rglob("rollout-*")):
        data = p.read_bytes()
        out[p.relative_to(codex).as_posix()] = zstandard.ZstdDecompressor().decompressobj().decompress(data) \
            if p.name.endswith(".zst") else data
    return out


def test_resume_decompressing_a_zst_rollout_restores_one_plain_rollout(box: Box) -> None:  # noqa: F811
    """layout/resume: a rollout idle 7 days is .jsonl.zst; resume decompresses it to .jsonl, removes
    the .zst and appends. One thread, one session, and the restore holds exactly one rollout file
    ("exactly one of .jsonl/.jsonl.zst exists") with every line, the new ones included."""
    box.only("codex")
    day = box.home / ".codex" / DAY
    day.mkdir(parents=True)
    name = f"rollout-2026-01-02T03-04-05-{ROOT}.jsonl"
    (day / f"{name}.zst").write_bytes(zstandard.ZstdCompressor(level=3).compress(_rollout_bytes(ROOT, 2)))
    assert box.sync()["sessions"]["failed"] == 0
    assert _restored_rollouts(box, "zst") == {f"{DAY}/{name}.zst": _rollout_bytes(ROOT, 2)}
    (day / f"{name}.zst").unlink()  # resume: decompressed back to .jsonl, then appended to
    (day / name).write_bytes(_rollout_bytes(ROOT, 3))
    out = box.sync()
    assert out["sessions"]["failed"] == 0, out
    listed = box.ls()
    assert sorted(listed) == [k(ROOT)]
    assert [a["path"] for a in listed[k(ROOT)]["artifacts"]] == [f".codex/{DAY}/{name}"]
    assert not any("gone from the machine" in w for w in listed[k(ROOT)]["warnings"]), listed[k(ROOT)]["warnings"]
    assert _restored_rollouts(box, "plain") == {f"{DAY}/{name}": _rollout_bytes(ROOT, 3)}


def test_compressed_then_archived_rollout_restores_one_file(box: Box) -> None:  # noqa: F811
    """layout: the 7-day compression writes a new .jsonl.zst (a new inode) and archiving moves it
    flat to archived_sessions/. When both happen between two syncs, the old sessions/ path is
    not "gone from the machine": it is the same rollout. A restore must hold one file for the
    thread, not the stale .jsonl in sessions/ beside the archived .zst (Codex would list both)."""
    box.only("codex")
    day = box.home / ".codex" / DAY
    day.mkdir(parents=True)
    name = f"rollout-2026-01-02T03-04-05-{ROOT}.jsonl"
    (day / name).write_bytes(_rollout_bytes(ROOT, 2))
    assert box.sync()["sessions"]["failed"] == 0
    archived = box.home / ".codex" / "archived_sessions"
    archived.mkdir()
    (archived / f"{name}.zst").write_bytes(zstandard.ZstdCompressor(level=3).compress((day / name).read_bytes()))
    (day / name).unlink()
    assert box.sync()["sessions"]["failed"] == 0
    assert _restored_rollouts(box, "moved") == {f"archived_sessions/{name}.zst": _rollout_bytes(ROOT, 2)}
