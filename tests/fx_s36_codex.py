"""Generated Codex homes for the s36 seed audit (seeds/by-harness/codex.json), never copied
from a real home: paginated rollouts whose lines follow the seed's record examples."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

ROOT_T = "0199cccc-0000-7000-8000-000000000001"
CHILD_T = "0199cccc-0000-7000-8000-000000000002"
CHILD2_T = "0199cccc-0000-7000-8000-000000000003"
T0 = 1767323049000


def line(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False) + "\n"


def session_meta(tid: str, **extra: Any) -> dict[str, Any]:
    """Seed record session_meta (paginated: ordinal 0, history_mode "paginated")."""
    return {"timestamp": "2026-01-02T03:04:05.678Z", "ordinal": 0, "type": "session_meta", "payload": {
        "id": tid, "session_id": extra.pop("session_id", tid), "timestamp": "2026-01-02T03:04:05.600Z",
        "cwd": "/srv/app", "originator": "codex_cli_rs", "cli_version": "0.164.0", "source": "cli",
        "thread_source": "user", "model_provider": "openai", "base_instructions": {"text": "You are a coding agent."},
        "history_mode": "paginated", **extra}}


def spawn_item(ordinal: int, sender: str, receiver_ids: list[str], agents: list[dict[str, Any]]) -> dict[str, Any]:
    """Seed record event_msg / item_completed / CollabAgentToolCall, tool spawn_agent."""
    return {"timestamp": "2026-01-02T03:04:06.000Z", "ordinal": ordinal, "type": "event_msg", "payload": {
        "type": "item_completed", "thread_id": sender, "turn_id": "t1",
        "item": {"type": "CollabAgentToolCall", "id": "call_spawn", "tool": "spawn_agent", "status": "completed",
                 "sender_thread_id": sender, "receiver_thread_ids": receiver_ids, "receiver_agents": agents,
                 "prompt": "check the tests", "agents_states": {a["thread_id"]: "running" for a in agents}},
        "started_at_ms": T0, "completed_at_ms": T0 + 1000}}


def write_rollout(day_dir: Path, stamp: str, tid: str, *records: dict[str, Any]) -> Path:
    day_dir.mkdir(parents=True, exist_ok=True)
    f = day_dir / f"rollout-2026-01-02T{stamp}-{tid}.jsonl"
    f.write_text("".join(line(r) for r in records))
    return f


def image_records(tid: str, images: Path, outside: str) -> list[dict[str, Any]]:
    """Seed records of an image generation (event_msg image_generation_end, saved to
    generated_images/<thread-id>/ig_1.png) and two edits of it: event_msg image_generation_end with
    input_images [{path, sha256}] and item_completed Extension image_gen.generation with
    inputImages; an input image outside generated_images; an ImageView of a file URI."""
    first = str(images / "ig_1.png")
    return [
        {"timestamp": "2026-01-02T03:04:07.000Z", "ordinal": 1, "type": "event_msg",
         "payload": {"type": "image_generation_end", "call_id": "ig_1", "status": "completed",
                     "revised_prompt": "A blue square", "result": "iVBORw0KGgo=", "saved_path": first}},
        {"timestamp": "2026-01-02T03:04:08.000Z", "ordinal": 2, "type": "event_msg",
         "payload": {"type": "image_generation_end", "call_id": "ig_2", "status": "completed",
                     "revised_prompt": "The square, red", "result": "iVBORw0KGgo=",
                     "saved_path": str(images / "ig_2.png"),
                     "input_images": [{"path": first, "sha256": "ab" * 32}, {"path": outside, "sha256": "cd" * 32}]}},
        {"timestamp": "2026-01-02T03:04:09.000Z", "ordinal": 3, "type": "event_msg",
         "payload": {"type": "item_completed", "thread_id": tid, "turn_id": "t1",
                     "item": {"type": "Extension", "kind": "image_gen.generation", "id": "ig_3", "status": "completed",
                              "revisedPrompt": "The square, green", "result": "iVBORw0KGgo=",
                              "transparentBackground": None, "failure": None, "savedPath": str(images / "ig_3.png"),
                              "inputImages": [{"path": first, "sha256": "ab" * 32}]},
                     "started_at_ms": T0, "completed_at_ms": T0 + 1000}},
        {"timestamp": "2026-01-02T03:04:10.000Z", "ordinal": 4, "type": "event_msg",
         "payload": {"type": "item_completed", "thread_id": tid, "turn_id": "t1",
                     "item": {"type": "ImageView", "id": "call_v", "path": "file:///srv/app/shot.png"},
                     "started_at_ms": T0, "completed_at_ms": T0 + 1000}},
    ]
