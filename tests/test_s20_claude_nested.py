"""Claude Code nested subagents (spawnDepth > 1): the subagent holding each nested spawn's tool_use
is found from one read of each sibling transcript per file state, not one per nested spawn (k nested
spawns read the session's other subagent files k times before), and edges are unchanged."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from archiver.harnesses import claude_code
from archiver.harnesses.base import HarnessContext, load_harness
from archiver.model import LineageEdge
from tests.fx_home import _line
from tests.test_harness_claude import KEY, MAIN, conv, write_main

SPAWNER = "a" + "0" * 16


def _agent(i: int) -> str:
    return f"b{i:016d}"


def _call(ids: list[str]) -> dict[str, Any]:
    return {"role": "assistant", "content": [{"type": "tool_use", "id": t, "name": "Agent", "input": {}} for t in ids]}


def _home(tmp: Path, nested: int) -> Path:
    """A session whose one depth-1 subagent spawns `nested` depth-2 subagents (two tool_use blocks
    per assistant line), plus a depth-2 subagent whose tool_use no transcript holds."""
    project = tmp / ".claude" / "projects" / KEY
    write_main(project)
    sub = project / MAIN / "subagents"
    sub.mkdir(parents=True)
    calls = [f"toolu_n{i}" for i in range(nested)]
    lines = [_line(conv(MAIN, 60 + j, None, "assistant", agentId=SPAWNER, isSidechain=True, message=_call(calls[j:j + 2])))
             for j in range(0, nested, 2)]
    (sub / f"agent-{SPAWNER}.jsonl").write_text("".join(lines))
    (sub / f"agent-{SPAWNER}.meta.json").write_text(json.dumps({"toolUseId": "toolu_top", "spawnDepth": 1}))
    for i in range(nested + 1):
        a = _agent(i)
        (sub / f"agent-{a}.jsonl").write_text(_line(conv(MAIN, 200 + i, None, agentId=a, isSidechain=True,
                                                         message={"role": "user", "content": f"task {i}"})))
        tool = calls[i] if i < nested else "toolu_nowhere"
        (sub / f"agent-{a}.meta.json").write_text(json.dumps({"toolUseId": tool, "spawnDepth": 2}))
    return tmp


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    seen: Counter[str] = Counter()
    real = claude_code.records_containing

    def counting(path: Path, needle: bytes, *a: Any, **k: Any) -> Any:
        seen[path.name] += 1
        return real(path, needle, *a, **k)

    monkeypatch.setattr(claude_code, "records_containing", counting)
    return seen


def test_each_sibling_is_read_once_per_run_and_not_at_all_from_a_warm_cache(tmp_path: Path, reads: Counter[str]) -> None:
    nested = 12
    home = _home(tmp_path, nested)
    cache: dict[str, str] = {}
    ctx = HarnessContext(home=home, env={}, cache=cache)
    found = {s.key: s for s in load_harness("claude-code", ctx).discover()}
    for i in range(nested):
        assert found[f"claude-code:{_agent(i)}"].parents == [
            LineageEdge(relation="subagent", parent=f"claude-code:{SPAWNER}", at=f"toolu_n{i}")]
    lost = found[f"claude-code:{_agent(nested)}"]
    assert lost.parents == [LineageEdge(relation="subagent", parent=f"claude-code:{MAIN}", at="toolu_nowhere")]
    assert any("spawnDepth 2 but no subagent holds tool_use toolu_nowhere" in w for w in lost.warnings)
    assert found[f"claude-code:{SPAWNER}"].parents == [
        LineageEdge(relation="subagent", parent=f"claude-code:{MAIN}", at="toolu_top")]
    # before: the spawner's file was read for every nested spawn (13 times) and so were the others
    subagent_reads = {n: c for n, c in reads.items() if n.startswith("agent-")}
    assert subagent_reads and max(subagent_reads.values()) == 1, subagent_reads
    reads.clear()
    again = {s.key: s.parents for s in load_harness("claude-code", HarnessContext(home=home, env={}, cache=cache)).discover()}
    assert again == {k: s.parents for k, s in found.items()}
    assert not {n for n in reads if n.startswith("agent-")}, reads


def test_a_grown_spawner_is_read_again(tmp_path: Path, reads: Counter[str]) -> None:
    home = _home(tmp_path, 2)
    cache: dict[str, str] = {}
    list(load_harness("claude-code", HarnessContext(home=home, env={}, cache=cache)).discover())
    spawner = next(home.rglob(f"agent-{SPAWNER}.jsonl"))
    with spawner.open("a") as f:  # a third nested spawn appended while the session runs
        f.write(_line(conv(MAIN, 90, None, "assistant", agentId=SPAWNER, isSidechain=True, message=_call(["toolu_late"]))))
    late = "c" + "0" * 16
    sub = spawner.parent
    (sub / f"agent-{late}.jsonl").write_text(_line(conv(MAIN, 300, None, agentId=late, isSidechain=True,
                                                        message={"role": "user", "content": "late"})))
    (sub / f"agent-{late}.meta.json").write_text(json.dumps({"toolUseId": "toolu_late", "spawnDepth": 2}))
    found = {s.key: s for s in load_harness("claude-code", HarnessContext(home=home, env={}, cache=cache)).discover()}
    assert found[f"claude-code:{late}"].parents == [
        LineageEdge(relation="subagent", parent=f"claude-code:{SPAWNER}", at="toolu_late")]
