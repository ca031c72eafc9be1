"""DeepSeek harness sessions (seeds/003: persistence catalog).

A header line (`type: "session"`) then events in `seq` order. Events with a `surfaceOp`
are the model history (user, assistant, tool results, system); a
`session/end-seed {inherited: true}` ends the prefix a fork inherited from its parent.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from archiver.model import Session
from archiver.render.jsonl import read_transcript
from archiver.render.model import (Block, PartReader, Transcript, clip, content_blocks, flatten_text,
                                   text_block, thinking_part, tool_call_part)


def read(session: Session, files: dict[str, Path]) -> Transcript:
    return read_transcript(session, files, lambda t, recs: _render(t, session, recs), what="session file")


def _render(t: Transcript, session: Session, recs: list[dict[str, Any]]) -> None:
    events = [r for r in recs if r.get("type") != "session"]
    events.sort(key=lambda r: r.get("seq") if isinstance(r.get("seq"), int) else 0)
    parent = session.parents[0].parent if session.parents else None
    for ev in events:
        typ = ev.get("type")
        data = ev.get("data")
        data = data if isinstance(data, dict) else {}
        ts = _ts(ev.get("time"))
        if typ == "user/message":
            t.add("user", _parts(data.get("content")), timestamp=ts)
        elif typ == "assistant/message":
            msg = data.get("message") or {}
            e = t.add("assistant", _parts(msg.get("content")), timestamp=ts)
            e.label = (msg.get("source") or {}).get("model")
        elif typ == "tool/result":
            msg = data.get("message") or {}
            t.add("tool", _parts(msg.get("content")), timestamp=ts)
        elif typ == "system/message":
            msg = data.get("message") or {}
            t.add("system", _parts(msg.get("content")), timestamp=ts, label="system")
        elif typ == "compaction/summary":
            t.add("summary", [text_block(data.get("summary")) or Block("text", "(no summary text)")], timestamp=ts,
                  label="Compaction summary")
        elif typ == "session/end-seed" and data.get("inherited"):
            t.marker("Everything above was inherited from the parent session when this one was forked", link=parent,
                     timestamp=ts)
        elif typ == "subagent/catalog" and data.get("childId"):
            label = f" ({data['label']})" if data.get("label") else ""
            t.marker(f"Sub-agent session {data['childId']}{label}", link=f"deepseek-harness:{data['childId']}", timestamp=ts)


def _tool_result(part: dict[str, Any]) -> Block:
    return Block("tool_result", clip(flatten_text(part.get("content"))), call_id=part.get("toolCallId"),
                 is_error=bool(part.get("isError")))


_PARTS: dict[str, PartReader] = {
    "reasoning": thinking_part("text"),
    "tool-call": tool_call_part("arguments"),
    "tool-result": _tool_result,
}


def _parts(content: Any) -> list[Block]:
    return content_blocks(content, _PARTS)


def _ts(ms: Any) -> str | None:
    if not isinstance(ms, (int, float)):
        return None
    from datetime import datetime, timezone

    return datetime.fromtimestamp(ms / 1000, timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")
