"""Claude Code's continued-in search reads whole transcripts: it runs once per file state,
and the cache persists between runs in the state DB."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from archiver.demo.claude_sample import make_claude_home
from archiver.harnesses.base import HarnessContext
from archiver.harnesses.claude_code import ClaudeCode
from archiver.state import DiscoveryCache, State


def _edges(sessions: list) -> set[tuple[str, str, str]]:  # type: ignore[type-arg]
    return {(s.session_id, e.parent, e.relation) for s in sessions for e in s.parents if e.relation == "continuation"}


def test_continuations_cached_per_file_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    s = make_claude_home(tmp_path, "alice")
    state = State(tmp_path / "state.db")
    cache = DiscoveryCache(state)
    first = _edges(list(ClaudeCode(HarnessContext(home=tmp_path, env={}, cache=cache)).discover()))
    assert first == {(s.continuation, f"claude-code:{s.main}", "continuation")}
    cache.flush()

    calls: list[Path] = []
    real = ClaudeCode.continuation_edges
    monkeypatch.setattr(ClaudeCode, "continuation_edges", lambda self, p: calls.append(p) or real(self, p))
    again = DiscoveryCache(State(tmp_path / "state.db"))  # a new run reads the persisted cache
    assert _edges(list(ClaudeCode(HarnessContext(home=tmp_path, env={}, cache=again)).discover())) == first
    assert calls == []
    again.flush()

    # the fork's transcript changes: only it is searched again, and its new record is seen
    fork = s.root / "projects" / s.project_key / f"{s.fork}.jsonl"
    with fork.open("a") as f:
        f.write(json.dumps({"type": "continued-in", "sessionId": s.fork, "continuedInSessionId": s.continuation}) + "\n")
    third = DiscoveryCache(State(tmp_path / "state.db"))
    edges = _edges(list(ClaudeCode(HarnessContext(home=tmp_path, env={}, cache=third)).discover()))
    assert calls == [fork]
    assert (s.continuation, f"claude-code:{s.fork}", "continuation") in edges
    third.flush()
    rows = dict(State(tmp_path / "state.db").db.execute("SELECT key, value FROM discovery_cache").fetchall())
    # the stale entries were dropped: one per kind of fact, for the file's current state
    assert sorted(k.split(":")[1] for k in rows if str(fork) in k) == ["continued-in", "facts"]


def test_subagent_sidecars_come_from_one_listing_per_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each subagent gets exactly the files named agent-<its id>.*; the folder is listed once,
    whatever the number of subagents (a per-subagent pass over it was quadratic)."""
    import os

    from archiver.harnesses import claude_code

    sid = "5e55a1b2-0000-4000-8000-00000000000a"
    proj = tmp_path / ".claude" / "projects" / "-home-alice-app"
    sub = proj / sid / "subagents"
    sub.mkdir(parents=True)
    rec = {"type": "user", "sessionId": sid, "cwd": "/home/alice/app", "timestamp": "2026-01-01T00:00:00Z",
           "message": {"role": "user", "content": "hi"}}
    (proj / f"{sid}.jsonl").write_text(json.dumps(rec) + "\n")
    ids = ["a", "a.b", "ab"] + [f"bulk{i:04d}" for i in range(300)]
    for agent in ids:
        (sub / f"agent-{agent}.jsonl").write_text(json.dumps({**rec, "isSidechain": True, "agentId": agent}) + "\n")
    (sub / "agent-a.meta.json").write_text('{"description": "first"}')
    (sub / "agent-a.b.meta.json").write_text('{"description": "dotted id"}')
    (sub / "agent-ab.tool-1.txt").write_text("out")
    (sub / "agent-bulk0007.extra.json").write_text("{}")
    (sub / "notes.txt").write_text("not an agent file")

    listed: list[str] = []
    real = os.listdir
    monkeypatch.setattr(claude_code.os, "listdir", lambda p: listed.append(str(p)) or real(p))
    found = {s.session_id: s for s in ClaudeCode(HarnessContext(home=tmp_path, env={})).discover()}
    assert listed.count(str(sub)) == 1
    names = {agent: sorted(a.source.name for a in found[agent].sources) for agent in ("a", "a.b", "ab", "bulk0007", "bulk0008")}
    assert names == {
        "a": ["agent-a.jsonl", "agent-a.meta.json"],
        "a.b": ["agent-a.b.jsonl", "agent-a.b.meta.json"],
        "ab": ["agent-ab.jsonl", "agent-ab.tool-1.txt"],
        "bulk0007": ["agent-bulk0007.extra.json", "agent-bulk0007.jsonl"],
        "bulk0008": ["agent-bulk0008.jsonl"],
    }
    # without agent "a.b", its files would be agent a's (they start with "agent-a.")
    assert claude_code._names_by_agent(sub, {"a", "ab"})["a"] == [
        "agent-a.b.jsonl", "agent-a.b.meta.json", "agent-a.jsonl", "agent-a.meta.json"]
