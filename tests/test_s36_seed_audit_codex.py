"""Session 36, an independent seed audit of the Codex collector (seeds/by-harness/codex.json).
Each test is one gap a seed-shaped home triggers, run through the real pipeline (the CLI in
process on a file:// store, tests/fx_home.py) or the collector itself.

- linking "subagents": "In the parent, CollabAgentToolCall (receiver_thread_ids) ... point to
  children"; the record's fields give the children twice: receiver_thread_ids and
  receiver_agents [{thread_id, agent_nickname?, agent_role?}]. A spawn whose child is named only
  by receiver_agents (receiver_thread_ids empty) must still link a child whose own session_meta
  names no parent (no state_5 edge either): on main it was a root thread.
- linking "sidecar references" (generated images by saved_path / savedPath) and records
  image_generation_end `input_images: [{path, sha256}]` / Extension image_gen.generation
  `inputImages`: an image edit names the generation it edits by its saved file; on main restore
  relinked saved_path / savedPath only, so the edit's input named the archived home's file.
"""

from __future__ import annotations

import json
from typing import Any

from tests.fx_home import Box, box  # noqa: F401
from tests.fx_s36_codex import CHILD2_T, CHILD_T, ROOT_T, image_records, session_meta, spawn_item, write_rollout


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


# ---------------------------------------------------------------- an image edit's input images

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(48))


def test_codex_image_edit_input_images_name_the_restored_image(box: Box) -> None:
    """Seed event_msg image_generation_end `input_images: [{path, sha256}]` and Extension
    image_gen.generation `inputImages`: an edit of an earlier generation names its saved file in
    generated_images/<thread-id>/. After restore that path names the restored image (as
    saved_path / savedPath do); an input image elsewhere and an ImageView file URI stay as they are."""
    box.only("codex")
    codex = box.home / ".codex"
    images = codex / "generated_images" / ROOT_T
    images.mkdir(parents=True)
    for n in (1, 2, 3):
        (images / f"ig_{n}.png").write_bytes(PNG + bytes([n]))
    d = codex / "sessions" / "2026" / "01" / "02"
    write_rollout(d, "03-04-05", ROOT_T, session_meta(ROOT_T), *image_records(ROOT_T, images, "/srv/app/in.png"))
    sync = box.sync()
    assert sync["sessions"]["failed"] == 0 and sync["errors"] == [], sync
    to = box.base / "restored"
    out = box.cli("restore", "--all", "--to", str(to))
    assert out["refused"] == [] and out["integrity_errors"] == [], out
    [rel] = [f for f in out["files"] if f.startswith(".codex/sessions/")]
    recs = [json.loads(x) for x in (to / rel).read_bytes().splitlines()]
    first = str(to.resolve() / ".codex" / "generated_images" / ROOT_T / "ig_1.png")
    assert (to / ".codex" / "generated_images" / ROOT_T / "ig_1.png").read_bytes() == PNG + b"\x01"
    assert recs[1]["payload"]["saved_path"] == first
    assert recs[2]["payload"]["input_images"] == [{"path": first, "sha256": "ab" * 32},
                                                  {"path": "/srv/app/in.png", "sha256": "cd" * 32}]
    assert recs[3]["payload"]["item"]["inputImages"] == [{"path": first, "sha256": "ab" * 32}]
    assert recs[3]["payload"]["item"]["savedPath"] == first.replace("ig_1", "ig_3")
    assert recs[4]["payload"]["item"]["path"] == "file:///srv/app/shot.png"
    assert not any("saved_path/savedPath" in w for w in out["warnings"]), out["warnings"]
