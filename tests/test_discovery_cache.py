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
