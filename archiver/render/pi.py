"""pi sessions (seeds/by-harness/pi.json `linking`).

Line 1 is the header; every other entry is a tree node (`id`, `parentId`). The active
leaf is the last entry in the file; walk `parentId` to the root for the active branch, shown
first; the entries it does not reach follow under "Other branches", in file order.
Version-1 files have no ids: they are linear, in file order.
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
    header = recs[0] if recs and recs[0].get("type") == "session" else {}
    entries = recs[1:] if header else recs
    if header.get("parentSession"):
        parent = session.parents[0].parent if session.parents else None
        t.marker("Forked from another session; the copied branch is shown as it was copied", link=parent)
    nodes = {e["id"]: e for e in entries if isinstance(e.get("id"), str)}
    if not nodes:  # version 1: linear
        for e in entries:
            _emit(t, e)
        return
    leaf = next((e["id"] for e in reversed(entries) if isinstance(e.get("id"), str)), None)
    path: list[dict[str, Any]] = []
    seen: set[str] = set()
    cur = leaf
    while isinstance(cur, str) and cur in nodes and cur not in seen:
        seen.add(cur)
        path.append(nodes[cur])
        cur = nodes[cur].get("parentId")
    path.reverse()
    for e in path:
        _emit(t, e)
    _other_branches(t, [e for e in entries if isinstance(e.get("id"), str) and e["id"] not in seen])


def _other_branches(t: Transcript, off: list[dict[str, Any]]) -> None:
    """The entries the active branch does not reach (left by /tree navigation or a fork), after
    it, in file order: a reviewer sees what was tried there too. Each branch starts with a
    marker naming the entry it grew from."""
    if not any(e.get("type") == "message" for e in off):
        return
    ids = {e["id"] for e in off}
    t.marker(f"Other branches: {len(off)} entr{'y' if len(off) == 1 else 'ies'} the active branch (the last "
             "entry's) does not reach, in file order")
    for e in off:
        parent = e.get("parentId")
        if parent not in ids:
            t.marker(f"Branch from entry {parent}" if isinstance(parent, str) else "Branch from the start",
                     timestamp=e.get("timestamp"))
        _emit(t, e)


def _emit(t: Transcript, e: dict[str, Any]) -> None:
    typ = e.get("type")
    ts = e.get("timestamp")
    if typ == "branch_summary":
        t.add("summary", [text_block(e.get("summary")) or Block("text", "(empty)")], timestamp=ts, label="Branch summary")
    elif typ == "compaction":
        t.add("summary", [text_block(e.get("summary")) or Block("text", "(empty)")], timestamp=ts, label="Compaction summary")
    elif typ == "model_change":
        t.marker(f"Model changed to {e.get('provider')}/{e.get('modelId')}", timestamp=ts)
    elif typ in ("custom_message",) and e.get("display", True):
        b = text_block(e.get("content"))
        if b:
            t.add("system", [b], timestamp=ts, label=str(e.get("customType") or "extension message"))
    elif typ == "message":
        _message(t, e.get("message") or {}, ts)


def _message(t: Transcript, m: dict[str, Any], ts: str | None) -> None:
    role = m.get("role")
    content = m.get("content")
    if role == "user":
        t.add("user", _parts(content), timestamp=ts)
    elif role == "assistant":
        e = t.add("assistant", _parts(content), timestamp=ts)
        e.label = m.get("model")
    elif role == "toolResult":
        details = m.get("details")
        ref = details.get("fullOutputPath") if isinstance(details, dict) else None
        t.add("tool", [Block("tool_result", clip(flatten_text(content)), call_id=m.get("toolCallId"),
                             is_error=bool(m.get("isError")), output_ref=ref or None)], timestamp=ts)
    elif role == "bashExecution":
        out = str(m.get("output") or "")
        if m.get("exitCode") not in (None, 0):
            out += f"\n(exit code {m.get('exitCode')})"
        call = Block("tool_call", name="bash (run by the user)", input=clip(str(m.get("command") or "")),
                     result=Block("tool_result", clip(out), is_error=m.get("exitCode") not in (None, 0),
                                  output_ref=m.get("fullOutputPath") or None))
        t.add("user", [call], timestamp=ts)
    elif role == "system":
        b = text_block(content) or text_block("\n".join(f"{k}: {v}" for k, v in (m.get("sections") or {}).items()))
        if b:
            t.add("system", [b], timestamp=ts, label="system prompt")
    elif role in ("compactionSummary", "branchSummary"):
        t.add("summary", [text_block(m.get("summary") or content) or Block("text", "(empty)")], timestamp=ts,
              label="Compaction summary" if role == "compactionSummary" else "Branch summary")
    elif m.get("display", True):
        b = text_block(content)
        if b:
            t.add("system", [b], timestamp=ts, label=str(m.get("customType") or role or "message"))


def _image(part: dict[str, Any]) -> Block | None:
    if not isinstance(part.get("data"), str):
        return None
    return Block("image", media_type=str(part.get("mimeType") or ""), data=part["data"])


_PARTS: dict[str, PartReader] = {
    "thinking": thinking_part("thinking"),
    "toolCall": tool_call_part("arguments"),
    "image": _image,
}


def _parts(content: Any) -> list[Block]:
    return content_blocks(content, _PARTS)
