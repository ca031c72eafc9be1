"""Session 36, an independent seed audit of the Codex collector (seeds/by-harness/codex.json).
Each test is one gap a seed-shaped home triggers, run through the real pipeline (the CLI in
process on a file:// store, tests/fx_home.py) or the collector itself.

- linking "subagents": "In the parent, CollabAgentToolCall (receiver_thread_ids) ... point to
  children"; the record's fields give the children twice: receiver_thread_ids and
  receiver_agents [{thread_id, agent_nickname?, agent_role?}]. A spawn whose child is named only
  by receiver_agents (receiver_thread_ids empty) must still link a child whose own session_meta
  names no parent (no state_5 edge either): on main it was a root thread.
"""

from __future__ import annotations

from typing import Any

from tests.fx_home import Box, box  # noqa: F401
from tests.fx_s36_codex import CHILD2_T, CHILD_T, ROOT_T, session_meta, spawn_item, write_rollout


def _edges(ls: dict[str, dict[str, Any]]) -> dict[str, list[tuple[str, str, Any, bool]]]:
    return {k: [(e["relation"], e["parent"], e["at"], e["inferred"]) for e in s["parents"]] for k, s in ls.items()}


def test_codex_spawn_naming_its_child_by_receiver_agents_only(box: Box) -> None:
    box.only("codex")
    d = box.home / ".codex" / "sessions" / "2026" / "01" / "02"
    write_rollout(d, "03-04-05", ROOT_T, session_meta(ROOT_T),
                  spawn_item(1, ROOT_T, [], [{"thread_id": CHILD_T, "agent_nickname": "Ada", "agent_role": "worker"}]),
                  spawn_item(2, ROOT_T, [CHILD2_T], [{"thread_id": CHILD2_T}]))
    write_rollout(d, "03-04-06", CHILD_T, session_meta(CHILD_T))
    write_rollout(d, "03-04-07", CHILD2_T, session_meta(CHILD2_T))
    sync = box.sync()
    assert sync["errors"] == [] and sync["sessions"]["failed"] == 0, sync
    ls = box.ls()
    edges = _edges(ls)
    assert edges[f"codex:{CHILD_T}"] == [("subagent", f"codex:{ROOT_T}", "call_spawn", False)]
    assert edges[f"codex:{CHILD2_T}"] == [("subagent", f"codex:{ROOT_T}", "call_spawn", False)]
    assert edges[f"codex:{ROOT_T}"] == []
    assert ls[f"codex:{CHILD_T}"]["kind"] == "subagent"
