"""s10 collector audit, Claude Code: cases found by generating homes from
seeds/by-harness/claude-code.json alone (envelope isSidechain / agentId / sessionId, gotcha
"In subagent files sessionId is the parent session id, not the file stem; use agentId /
filename")."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from archiver.harnesses.base import HarnessContext, load_harness
from archiver.model import DiscoveredSession, LineageEdge
from tests.fx_home import USER, Box, _line, box  # noqa: F401

CWD = f"/home/{USER}/work/app"
KEY = "".join(c if c.isalnum() else "-" for c in CWD)
MAIN = "0b0e5f4e-1111-4222-8333-000000000001"
AGENT = "a1b2c3d4"


def discover(home: Path) -> dict[str, DiscoveredSession]:
    return {s.key: s for s in load_harness("claude-code", HarnessContext(home=home, env={})).discover()}


def conv(sid: str, i: int, parent: str | None, type_: str, **extra: Any) -> dict[str, Any]:
    return {"parentUuid": parent, "isSidechain": False, "userType": "external", "cwd": CWD, "sessionId": sid,
            "version": "2.0.20", "gitBranch": "main", "entrypoint": "cli",
            "timestamp": f"2026-10-20T10:00:{i:02d}.000Z", "uuid": f"0b0e5f4e-2222-4333-8444-{i:012d}",
            "type": type_, **extra}


def write_legacy_layout(home: Path) -> Path:
    """A parent transcript whose Task tool_use toolu_T1 spawned agent a1b2c3d4, and that agent's
    transcript beside it in the project folder (no <session-id>/subagents/ folder)."""
    project = home / ".claude" / "projects" / KEY
    project.mkdir(parents=True)
    call = {"id": "msg_1", "type": "message", "role": "assistant",
            "content": [{"type": "tool_use", "id": "toolu_T1", "name": "Task", "input": {"prompt": "look"}}]}
    result = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_T1", "content": "done"}]}
    (project / f"{MAIN}.jsonl").write_text(
        _line(conv(MAIN, 1, None, "user", message={"role": "user", "content": "go"}))
        + _line(conv(MAIN, 2, "0b0e5f4e-2222-4333-8444-000000000001", "assistant", message=call))
        + _line(conv(MAIN, 3, "0b0e5f4e-2222-4333-8444-000000000002", "user", message=result,
                     toolUseResult={"agentId": AGENT, "status": "completed"})))
    (project / f"agent-{AGENT}.jsonl").write_text(
        _line(conv(MAIN, 10, None, "user", isSidechain=True, agentId=AGENT, message={"role": "user", "content": "look"}))
        + _line(conv(MAIN, 11, "0b0e5f4e-2222-4333-8444-000000000010", "assistant", isSidechain=True, agentId=AGENT,
                     message={"id": "msg_2", "role": "assistant", "type": "message", "content": [{"type": "text", "text": "ok"}]}))
        + "this line is no JSON\n")
    return project


def test_legacy_project_level_agent_file_is_its_parents_subagent(tmp_path: Path) -> None:
    project = write_legacy_layout(tmp_path)
    found = discover(tmp_path)
    assert "claude-code:agent-a1b2c3d4" not in found  # the stem is no session id (gotcha)
    sub = found[f"claude-code:{AGENT}"]
    assert sub.kind == "subagent"
    assert sub.parents == [LineageEdge(relation="subagent", parent=f"claude-code:{MAIN}", at="toolu_T1")]
    assert [(s.path, s.role, s.mode) for s in sub.sources] == [
        (f".claude/projects/{KEY}/agent-{AGENT}.jsonl", "transcript", "append")]
    assert sub.created_at == "2026-10-20T10:00:10.000Z" and sub.cwd == CWD
    assert sub.warnings == [f"agent-{AGENT}.jsonl: 1 unparseable line(s) kept as they are (line 3)"]
    assert found[f"claude-code:{MAIN}"].kind == "main"
    assert [s.path for s in found[f"claude-code:{MAIN}"].sources] == [f".claude/projects/{KEY}/{MAIN}.jsonl"]
    assert (project / f"agent-{AGENT}.jsonl").is_file()


def test_main_session_whose_file_starts_with_agent_stays_main(tmp_path: Path) -> None:
    """Only sidechain lines naming another session make an agent-*.jsonl a subagent."""
    project = tmp_path / ".claude" / "projects" / KEY
    project.mkdir(parents=True)
    sid = "agent-session"
    (project / f"{sid}.jsonl").write_text(_line(conv(sid, 1, None, "user", message={"role": "user", "content": "hi"})))
    found = discover(tmp_path)
    assert found[f"claude-code:{sid}"].kind == "main" and found[f"claude-code:{sid}"].parents == []


def test_legacy_agent_file_archived_and_restored_as_subagent(box: Box) -> None:  # noqa: F811
    box.only("claude-code")
    write_legacy_layout(box.home)
    box.sync()
    sessions = box.ls()
    sub = sessions[f"claude-code:{AGENT}"]
    assert sub["kind"] == "subagent"
    assert [(p["relation"], p["parent"], p["at"]) for p in sub["parents"]] == [
        ("subagent", f"claude-code:{MAIN}", "toolu_T1")]
    red_key = "".join(c if c.isalnum() else "-" for c in box.relpath(CWD.lstrip("/")))
    out = box.base / "out"
    box.cli("restore", f"claude-code:{MAIN}", "--with-family", "--to", str(out))
    restored = out / ".claude" / "projects" / f"-{red_key}" / f"agent-{AGENT}.jsonl"
    lines = restored.read_bytes().splitlines()
    assert len(lines) == 3 and json.loads(lines[0])["agentId"] == AGENT and json.loads(lines[0])["sessionId"] == MAIN
