"""OpenCode sessions (seeds/by-harness/opencode.json `linking`).

The archived database is a per-session extract of opencode.db. The transcript is the
session's `session_message` rows ordered by `seq`; a tool call and its result are one
assistant content block. 1.x installs keep `message` + `part` rows instead.
"""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path
from typing import Any

import orjson

from archiver.model import Session
from archiver.render.model import (Block, PartReader, Transcript, clip, content_blocks, flatten_text,
                                   pretty, text_block, thinking_part)


def read(session: Session, files: dict[str, Path]) -> Transcript:
    t = Transcript(session.key, session.harness)
    dbs = [files[a.path] for a in session.artifacts if a.format == "sqlite" and a.path in files]
    if not dbs:
        t.notes.append("no database in this session's archived state")
        return t
    try:
        conn = sqlite3.connect(f"{dbs[0].resolve().as_uri()}?mode=ro&immutable=1", uri=True)
    except sqlite3.Error as e:
        t.notes.append(f"database does not open ({e})")
        return t
    try:
        rows = _rows(conn, "SELECT type, seq, data FROM session_message WHERE session_id = ? ORDER BY seq", session.session_id)
        if rows:
            for typ, _seq, data in rows:
                _row(t, str(typ), _json(data))
        else:
            _legacy(t, conn, session.session_id)
    finally:
        conn.close()
    return t


def _rows(conn: sqlite3.Connection, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    try:
        return conn.execute(sql, args).fetchall()
    except sqlite3.Error:
        return []


def _json(data: Any) -> dict[str, Any]:
    try:
        v = orjson.loads(data)
    except (orjson.JSONDecodeError, TypeError):
        return {}
    return v if isinstance(v, dict) else {}


def _ts(d: dict[str, Any]) -> str | None:
    ms = (d.get("time") or {}).get("created")
    if not isinstance(ms, (int, float)):
        return None
    from datetime import datetime, timezone

    return datetime.fromtimestamp(ms / 1000, timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


def _row(t: Transcript, typ: str, d: dict[str, Any]) -> None:
    ts = _ts(d)
    if typ == "user":
        blocks = [text_block(d.get("text"))]
        blocks += [Block("text", f"[attached file {f.get('name') or ''} ({f.get('mime') or 'unknown type'})]")
                   for f in d.get("files") or [] if isinstance(f, dict)]
        t.add("user", [b for b in blocks if b], timestamp=ts)
    elif typ == "assistant":
        e = t.add("assistant", _content(d.get("content")), timestamp=ts)
        model = d.get("model") or {}
        e.label = model.get("id") if isinstance(model, dict) else None
        if not (d.get("time") or {}).get("completed") and not d.get("finish"):
            t.notes.append("an assistant step was still in flight when archived")
    elif typ == "shell":
        output = d.get("output") if isinstance(d.get("output"), dict) else {}
        call = Block("tool_call", name="shell (run by the user)", input=clip(str(d.get("command") or "")),
                     result=Block("tool_result", clip(flatten_text(output.get("output"))),
                                  is_error=d.get("exit") not in (None, 0)))
        if output.get("truncated") and isinstance(d.get("shellID"), str):
            call.result.output_ref = d["shellID"]  # its full capture: shell/<project>/<shellID>.out
        t.add("user", [call], timestamp=ts)
    elif typ == "system":
        t.add("system", [text_block(d.get("text")) or Block("text", str(d.get("description") or ""))], timestamp=ts,
              label=str(d.get("description") or "system"))
    elif typ == "synthetic":
        meta = d.get("metadata") or {}
        link = f"opencode:{meta['childID']}" if meta.get("childID") else None
        b = text_block(d.get("text"))
        if b:
            b.link = link
            t.add("system", [b], timestamp=ts, label=str(d.get("description") or "injected"))
    elif typ == "compaction":
        status = d.get("status")
        if status == "completed":
            t.add("summary", [text_block(d.get("summary")) or Block("text", "(no summary text)")], timestamp=ts,
                  label="Compaction summary")
        else:
            t.marker(f"Compaction {status or 'attempt'}", timestamp=ts)


def _tool(part: dict[str, Any]) -> Block:
    state = part.get("state")
    state = state if isinstance(state, dict) else {}
    call = Block("tool_call", name=str(part.get("name") or "tool"), call_id=part.get("id"), input=pretty(state.get("input")))
    status = state.get("status")
    if status in ("completed", "error"):
        call.result = Block("tool_result", clip(flatten_text(state.get("content") or state.get("output") or state.get("error"))),
                            is_error=status == "error")
    else:
        call.result = Block("tool_result", f"[{status or 'no result'}]")
    meta = state.get("metadata") or {}
    if isinstance(meta, dict) and meta.get("sessionID"):
        call.link = f"opencode:{meta['sessionID']}"
    call.result.output_ref = _spill_ref(meta, call.result.text)
    return call


def _spill_ref(meta: Any, text: str) -> str | None:
    """The tool-output/ file a spilled result names: metadata.outputPath, else the inline marker."""
    if not isinstance(meta, dict):
        return None
    path = meta.get("outputPath")
    if isinstance(path, str) and path:
        return path
    marker = _TOOL_OUTPUT_MARKER.search(text[:_MARKER_HEAD]) if meta.get("truncated") else None
    return marker.group(0) if marker else None


# the inline marker of a spilled result names its file (seed: "metadata.outputPath and the inline marker")
_TOOL_OUTPUT_MARKER = re.compile(r"tool-output/tool_[0-9A-Za-z]{8,64}(?:\.[0-9A-Za-z]{1,10})?")
_MARKER_HEAD = 4096


_PARTS: dict[str, PartReader] = {"reasoning": thinking_part("text"), "tool": _tool}


def _content(content: Any) -> list[Block]:
    return content_blocks(content, _PARTS)


def _legacy(t: Transcript, conn: sqlite3.Connection, sid: str) -> None:
    msgs = _rows(conn, "SELECT id, data FROM message WHERE session_id = ? ORDER BY time_created, id", sid)
    if not msgs:
        t.notes.append("no messages for this session in the database")
        return
    t.notes.append("OpenCode 1.x rows (message/part)")
    for mid, data in msgs:
        d = _json(data)
        parts = [_json(p[0]) for p in _rows(conn, "SELECT data FROM part WHERE message_id = ? ORDER BY id", mid)]
        blocks = [text_block(p.get("text")) for p in parts if p.get("type") == "text"] or [text_block(d.get("text"))]
        role = "assistant" if d.get("role") == "assistant" else "user"
        t.add(role, [b for b in blocks if b], timestamp=_ts(d))
