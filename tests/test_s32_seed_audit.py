"""Session 32, a seed-conformance audit of the collectors: each test is one gap found by writing
a fixture that follows the seed (/work/shared/seeds/by-harness/*.json) and running it through the
real pipeline (the CLI in process on a file:// store, tests/fx_home.py): discovery -> sync -> ls.

- Codex (seed linking "subagents": "In the parent, CollabAgentToolCall (receiver_thread_ids) and
  SubAgentActivity (agent_thread_id) point to children"; records event_msg / sub_agent_activity,
  persisted "only history_mode = legacy and kind != completed", and item_completed /
  SubAgentActivity, "legacy: kind=completed only"): a legacy parent keeps no CollabAgentToolCall
  (paginated only), so a child whose session_meta names no parent hangs off the rollout whose
  sub-agent activity names it, not off the tree's root (session_id).
- Claude Code (seed record `relocated` {relocatedCwd, sessionId}: "The session transcript was
  relocated to another cwd/project directory (/cd)"): the session folder and sibling files written
  before the move stay in the old project folder; they are that session's files (ids are uuids),
  archived with its transcript, not a second session of the same id renamed `<id>~<tag>`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.fx_home import Box, _line, box  # noqa: F401

T0 = 1767323040000


def _edges(ls: dict[str, dict[str, Any]]) -> dict[str, list[tuple[str, str, Any, bool]]]:
    return {k: [(e["relation"], e["parent"], e["at"], e["inferred"]) for e in s["parents"]] for k, s in ls.items()}


def _artifacts(session: dict[str, Any]) -> list[tuple[str, str]]:
    return sorted((a["path"], a["role"]) for a in session["artifacts"])


# ---------------------------------------------------------------- Codex: legacy sub-agent activity names the child

CX_ROOT = "0199aaaa-0000-7000-8000-000000000001"
CX_CHILD = "0199aaaa-0000-7000-8000-000000000002"
CX_GRAND = "0199aaaa-0000-7000-8000-000000000003"
CX_FORK = "0199aaaa-0000-7000-8000-000000000004"
CX_SIB = "0199aaaa-0000-7000-8000-000000000005"
CX_EARLY = "0199aaaa-0000-7000-8000-000000000000"  # sorts before its parent


def _cx_rollout(d: Path, tid: str, stamp: str, meta: dict[str, Any], *records: dict[str, Any]) -> None:
    """A legacy rollout (no history_mode): session_meta, a user message, then `records`."""
    payload = {"id": tid, "session_id": CX_ROOT, "timestamp": "2026-01-02T03:04:05.600Z", "cwd": "/srv/app",
               "originator": "codex_cli_rs", "cli_version": "0.150.0", "model_provider": "openai",
               "base_instructions": None, **meta}
    recs = [{"timestamp": "2026-01-02T03:04:05.678Z", "type": "session_meta", "payload": payload},
            {"timestamp": "2026-01-02T03:04:06.000Z", "type": "response_item",
             "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go"}]}},
            *records]
    (d / f"rollout-2026-01-02T{stamp}-{tid}.jsonl").write_text("".join(_line(r) for r in recs))


def _activity_event(child: str, kind: str = "started") -> dict[str, Any]:
    """Seed record event_msg / sub_agent_activity (legacy, kind != completed): no thread id of its own."""
    return {"timestamp": "2026-01-02T03:04:07.000Z", "type": "event_msg", "payload": {
        "type": "sub_agent_activity", "model": None, "reasoning_effort": None, "event_id": "e1",
        "occurred_at_ms": T0, "agent_thread_id": child, "agent_path": "/root/worker", "kind": kind}}


def _activity_item(tid: str, item_id: str, child: str) -> dict[str, Any]:
    """Seed record event_msg / item_completed / SubAgentActivity (legacy: kind=completed only)."""
    return {"timestamp": "2026-01-02T03:04:08.000Z", "type": "event_msg", "payload": {
        "type": "item_completed", "thread_id": tid, "turn_id": "t1",
        "item": {"type": "SubAgentActivity", "id": item_id, "kind": "completed", "agent_thread_id": child,
                 "agent_path": "/root/worker/sub", "model": None, "reasoning_effort": None},
        "started_at_ms": T0, "completed_at_ms": T0 + 1000}}


def test_codex_legacy_subagent_named_by_its_parents_sub_agent_activity(box: Box) -> None:
    box.only("codex")
    d = box.home / ".codex" / "sessions" / "2026" / "01" / "02"
    d.mkdir(parents=True)
    _cx_rollout(d, CX_ROOT, "03-04-05", {}, _activity_event(CX_CHILD), _activity_event(CX_EARLY),
                _activity_event(CX_SIB))
    # a sub-agent started with its parent's context: the copied activity names a sibling
    _cx_rollout(d, CX_EARLY, "03-04-10", {"source": {"subagent": "review"}}, _activity_event(CX_EARLY),
                _activity_event(CX_SIB))
    _cx_rollout(d, CX_SIB, "03-04-11", {"source": {"subagent": "review"}})
    _cx_rollout(d, CX_CHILD, "03-04-06", {}, _activity_item(CX_CHILD, "act_grand", CX_GRAND))
    _cx_rollout(d, CX_GRAND, "03-04-07", {"source": {"subagent": "review"}})
    # a legacy fork of the child copies its records, the activity among them: it names no child
    _cx_rollout(d, CX_FORK, "03-04-09", {"forked_from_id": CX_CHILD}, _activity_event(CX_GRAND, "interacted"))
    sync = box.sync()
    assert sync["errors"] == [] and sync["sessions"]["failed"] == 0, sync
    ls = box.ls()
    edges = _edges(ls)
    assert edges[f"codex:{CX_CHILD}"] == [("subagent", f"codex:{CX_ROOT}", None, False)]
    assert edges[f"codex:{CX_GRAND}"] == [("subagent", f"codex:{CX_CHILD}", "act_grand", False)]
    assert edges[f"codex:{CX_EARLY}"] == [("subagent", f"codex:{CX_ROOT}", None, False)]
    assert edges[f"codex:{CX_SIB}"] == [("subagent", f"codex:{CX_ROOT}", None, False)]
    assert edges[f"codex:{CX_ROOT}"] == []
    assert edges[f"codex:{CX_FORK}"] == [("fork", f"codex:{CX_CHILD}", None, False)]
    assert (ls[f"codex:{CX_CHILD}"]["kind"], ls[f"codex:{CX_GRAND}"]["kind"]) == ("subagent", "subagent")


# ---------------------------------------------------------------- Claude Code: files left behind by /cd

CC_SID = "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa"
CC_AGENT = "a0123456789abcdef"


def _cc_line(uuid: str, parent: str | None, cwd: str, **extra: Any) -> dict[str, Any]:
    return {"parentUuid": parent, "isSidechain": False, "userType": "external", "cwd": cwd, "sessionId": CC_SID,
            "version": "2.1.310", "gitBranch": "main", "entrypoint": "cli", "timestamp": "2026-10-20T10:00:00.000Z",
            "uuid": uuid, "type": "user", "message": {"role": "user", "content": "hi"}, **extra}


def test_claude_relocated_transcript_keeps_the_files_left_in_its_old_project_folder(box: Box) -> None:
    box.only("claude-code")
    projects = box.home / ".claude" / "projects"
    old, new = projects / "-srv-app", projects / "-srv-other"
    # before /cd: a persisted tool result, a subagent and the pre-compaction copy, in the old folder
    (old / CC_SID / "tool-results").mkdir(parents=True)
    (old / CC_SID / "tool-results" / "b1c2d3e4f.txt").write_text("full output\n")
    (old / f"{CC_SID}.precompact.json").write_text("{}")
    sub = old / CC_SID / "subagents"
    sub.mkdir()
    (sub / f"agent-{CC_AGENT}.jsonl").write_text(_line(
        {**_cc_line("s1", None, "/srv/app"), "isSidechain": True, "agentId": CC_AGENT}))
    (sub / f"agent-{CC_AGENT}.meta.json").write_text(json.dumps({"agentType": "general", "toolUseId": "toolu_A"}))
    # the transcript itself now lives in the new cwd's folder
    new.mkdir(parents=True)
    (new / f"{CC_SID}.jsonl").write_text("".join(_line(r) for r in [
        _cc_line("u1", None, "/srv/app"),
        {"type": "relocated", "relocatedCwd": "/srv/other", "sessionId": CC_SID},
        _cc_line("u2", "u1", "/srv/other")]))
    sync = box.sync()
    assert sync["errors"] == [] and sync["sessions"]["failed"] == 0, sync
    ls = box.ls()
    assert sorted(ls) == [f"claude-code:{CC_AGENT}", f"claude-code:{CC_SID}"]
    assert _artifacts(ls[f"claude-code:{CC_SID}"]) == [
        (f".claude/projects/-srv-app/{CC_SID}.precompact.json", "sidecar"),
        (f".claude/projects/-srv-app/{CC_SID}/tool-results/b1c2d3e4f.txt", "blob"),
        (f".claude/projects/-srv-other/{CC_SID}.jsonl", "transcript")]
    assert ls[f"claude-code:{CC_SID}"]["warnings"] == []
    assert _edges(ls)[f"claude-code:{CC_AGENT}"] == [("subagent", f"claude-code:{CC_SID}", "toolu_A", False)]
