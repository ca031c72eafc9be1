"""Codex rollouts (seeds/by-harness/codex.json `linking`).

File order is conversation order. The model view (`response_item`) is the transcript;
the display view (`event_msg` user_message/agent_message, `item_completed` items) repeats
every message, so it is used only when a file has no model-view messages (very old
rollouts), and for what only it records: spawned sub-agents and rollbacks.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from archiver.model import Session
from archiver.render.jsonl import read_transcript
from archiver.render.model import Block, Transcript, clip, flatten_text, pretty, text_block

CALLS = {"function_call", "custom_tool_call", "local_shell_call", "tool_search_call"}
OUTPUTS = {"function_call_output", "custom_tool_call_output", "tool_search_output"}
CONTEXT_PREFIXES = ("<environment_context>", "<user_instructions>", "# AGENTS.md", "<permissions", "<collaboration_mode>")


def read(session: Session, files: dict[str, Path]) -> Transcript:
    return read_transcript(session, files, lambda t, recs: _render(t, session, recs), fmt=("jsonl", "jsonl.zst"),
                           what="rollout file", skipped="skipped (Codex skips them too)")


def _render(t: Transcript, session: Session, recs: list[dict[str, Any]]) -> None:
    meta = next((r.get("payload") or {} for r in recs if r.get("type") == "session_meta"), {})
    parent = session.parents[0].parent if session.parents else None
    base = meta.get("history_base")
    if isinstance(base, dict):
        t.marker(f"History before ordinal {base.get('end_ordinal_exclusive')} is inherited from "
                 f"rollout {base.get('thread_id')} and not repeated here", link=parent)
    start = meta.get("subagent_history_start_ordinal")
    inherited = [r for r in recs if isinstance(start, int) and r.get("type") != "session_meta"
                 and isinstance(r.get("ordinal"), int) and r["ordinal"] < start]
    if inherited:
        t.marker(f"{len(inherited)} record(s) before ordinal {start} are the parent's context, not this "
                 "sub-agent's work; not repeated here", link=parent)
    model_view = any(r.get("type") == "response_item" and (r.get("payload") or {}).get("type") == "message" for r in recs)
    model: str | None = None
    for r in recs:
        typ = r.get("type")
        p = r.get("payload") or {}
        ts = r.get("timestamp")
        if typ == "turn_context" and isinstance(p.get("model"), str):
            model = p["model"]
        if isinstance(start, int) and isinstance(r.get("ordinal"), int) and r["ordinal"] < start and typ != "session_meta":
            continue
        if typ == "response_item":
            _item(t, p, ts, model)
        elif typ == "compacted":
            summary = p.get("message") or flatten_text(p.get("replacement_history"))
            t.add("summary", [text_block(summary) or Block("text", "(no summary text)")], timestamp=ts,
                  label="Compaction summary")
        elif typ == "event_msg":
            _event(t, p, ts, model_view)


def _item(t: Transcript, p: dict[str, Any], ts: str | None, model: str | None) -> None:
    kind = p.get("type")
    if kind == "message":
        role = p.get("role")
        text = flatten_text([c for c in p.get("content") or [] if isinstance(c, dict) and "text" in c])
        images = [Block("image", media_type=_data_url_type(c.get("image_url")), data=_data_url_data(c.get("image_url")))
                  for c in p.get("content") or [] if isinstance(c, dict) and c.get("type") == "input_image"
                  and _data_url_data(c.get("image_url"))]
        blocks = [b for b in [text_block(text), *images] if b]
        if role == "assistant":
            t.add("assistant", blocks, timestamp=ts, label=model)
        elif role == "user" and not text.lstrip().startswith(CONTEXT_PREFIXES):
            t.add("user", blocks, timestamp=ts)
        else:
            t.add("system", blocks, timestamp=ts, label=f"{role} context")
    elif kind == "reasoning":
        summary = flatten_text(p.get("summary"))
        if summary.strip():
            t.add("assistant", [Block("thinking", clip(summary))], timestamp=ts)
    elif kind in CALLS:
        args = p.get("arguments") if "arguments" in p else p.get("input", p.get("action"))
        t.add("assistant", [Block("tool_call", name=str(p.get("name") or kind), call_id=p.get("call_id"),
                                  input=pretty(args))], timestamp=ts)
    elif kind in OUTPUTS:
        out = p.get("output")
        if isinstance(out, dict):
            out = out.get("content") or out.get("output") or pretty(out)
        t.add("tool", [Block("tool_result", clip(flatten_text(out)), call_id=p.get("call_id"))], timestamp=ts)
    elif kind == "web_search_call":
        t.add("assistant", [Block("tool_call", name="web_search", call_id=p.get("id"), input=pretty(p.get("action")))],
              timestamp=ts)
    elif kind == "image_generation_call":
        call = Block("tool_call", name="image_generation", call_id=p.get("id"), input=clip(str(p.get("revised_prompt") or "")))
        if isinstance(p.get("result"), str) and p["result"]:
            call.result = Block("image", media_type="image/png", data=p["result"])
        t.add("assistant", [call], timestamp=ts)
    elif kind in ("compaction", "context_compaction"):
        t.marker("Earlier history replaced by an encrypted compaction item", timestamp=ts)


def _event(t: Transcript, p: dict[str, Any], ts: str | None, model_view: bool) -> None:
    kind = p.get("type")
    if kind == "thread_rolled_back":
        t.marker(f"{p.get('num_turns')} turn(s) rolled back: the model no longer sees them", timestamp=ts)
    elif kind == "item_completed":
        item = p.get("item") or {}
        if item.get("type") == "CollabAgentToolCall":
            for child in item.get("receiver_thread_ids") or []:
                t.marker(f"Sub-agent thread {child} ({item.get('tool') or 'spawn'})", link=f"codex:{child}", timestamp=ts)
    elif not model_view and kind in ("user_message", "agent_message"):
        b = text_block(p.get("message"))
        if b:
            t.add("user" if kind == "user_message" else "assistant", [b], timestamp=ts)


def _data_url_type(url: Any) -> str | None:
    if isinstance(url, str) and url.startswith("data:") and ";base64," in url:
        return url[5:url.index(";")]
    return None


def _data_url_data(url: Any) -> str | None:
    if isinstance(url, str) and url.startswith("data:") and ";base64," in url:
        return url.split(";base64,", 1)[1]
    return None
