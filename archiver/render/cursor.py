"""Cursor agent chats (seeds/by-harness/cursor-agent.json `linking`).

The faithful transcript is in store.db: meta.latestRootBlobId names the current root
(a protobuf ConversationStateStructure); its field 1 lists, in order, the ids of the JSON
prompt messages the model saw (system, user, assistant, tool). Subagents that live in
their parent's store (`shared` artifact), and stores without a root, are read from the
JSONL mirror instead (agent-transcripts/…jsonl: text and tool calls, no results).
"""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path
from typing import Any, Iterator

import orjson

from archiver.model import Session
from archiver.render.jsonl import records, transcript_files
from archiver.render.model import Block, Transcript, clip, flatten_text, pretty, text_block

_QUERY = re.compile(r"^\s*<user_query>\s*(.*?)\s*</user_query>\s*$", re.S)


def read(session: Session, files: dict[str, Path]) -> Transcript:
    t = Transcript(session.key, session.harness)
    # a store shared with the parent (inline subagents) holds the parent's conversation root
    store = next((files[a.path] for a in session.artifacts if a.format == "sqlite" and a.path in files and not a.shared), None)
    if store is not None and _from_store(t, store):
        return t
    mirrors = transcript_files(session, files, ("jsonl",))
    if not mirrors:
        t.notes.append("no readable transcript: the store has no conversation root and there is no JSONL mirror")
        return t
    t.notes.append("from the JSONL mirror (tool results are not recorded there)")
    for _a, path in mirrors:
        for r in records(path):
            _mirror_line(t, r)
    return t


# ---------------------------------------------------------------- store.db
def _from_store(t: Transcript, path: Path) -> bool:
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro&immutable=1", uri=True)
    except sqlite3.Error:
        return False
    try:
        meta = _meta(conn)
        root_id = meta.get("latestRootBlobId") if isinstance(meta, dict) else None
        if not isinstance(root_id, str) or not root_id:
            return False
        root = _blob(conn, root_id)
        if root is None:
            t.notes.append("the conversation root named by the store's meta is missing")
            return False
        ids = [v.hex() for f, v in _fields(root) if f == 1 and isinstance(v, bytes) and len(v) == 32]
        if not ids:
            return False
        # compaction moved the head of the conversation into root.summary_archives (field 13: ids
        # of ConversationSummaryArchive blobs, whose field 1 lists the summarized messages' ids):
        # those come first (seed linking: full history = the archives' messages + the current)
        archived = [x.hex() for f, v in _fields(root) if f == 13 and isinstance(v, bytes) and len(v) == 32
                    for g, x in _fields(_blob(conn, v.hex()) or b"") if g == 1 and isinstance(x, bytes) and len(x) == 32]
        if archived:
            t.notes.append(f"{len(archived)} messages before compaction come from the store's summary archives")
        current = set(ids)
        for bid in [*dict.fromkeys(b for b in archived if b not in current), *ids]:
            data = _blob(conn, bid)
            msg = _loads(data) if data is not None else None
            if not isinstance(msg, dict):
                t.notes.append(f"prompt message blob {bid[:12]}… is missing or not JSON")
                continue
            if bid not in current and msg.get("role") == "system":
                continue  # the current window carries the system prompt again
            _prompt_message(t, msg)
        return True
    finally:
        conn.close()


def _meta(conn: sqlite3.Connection) -> Any:
    try:
        row = conn.execute("SELECT value FROM meta WHERE key = '0'").fetchone()
    except sqlite3.Error:
        return None
    if not row:
        return None
    value = row[0]
    try:
        text = bytes.fromhex(value).decode() if isinstance(value, str) else bytes(value).decode()
    except (ValueError, UnicodeDecodeError):
        text = value if isinstance(value, str) else ""
    return _loads(text)


def _blob(conn: sqlite3.Connection, bid: str) -> bytes | None:
    try:
        row = conn.execute("SELECT data FROM blobs WHERE id = ?", (bid,)).fetchone()
    except sqlite3.Error:
        return None
    return bytes(row[0]) if row and row[0] is not None else None


def _loads(data: Any) -> Any:
    try:
        return orjson.loads(data)
    except (orjson.JSONDecodeError, TypeError):
        return None


def _fields(buf: bytes) -> Iterator[tuple[int, int | bytes]]:
    """Top-level protobuf fields (number, value); stops quietly at malformed data."""
    i, n = 0, len(buf)

    def varint() -> int:
        nonlocal i
        shift = out = 0
        while i < n:
            b = buf[i]
            i += 1
            out |= (b & 0x7F) << shift
            if not b & 0x80:
                return out
            shift += 7
            if shift > 63:
                break
        raise ValueError("bad varint")

    try:
        while i < n:
            key = varint()
            num, wt = key >> 3, key & 7
            if wt == 0:
                yield num, varint()
            elif wt == 2:
                size = varint()
                if i + size > n:
                    return
                yield num, buf[i:i + size]
                i += size
            elif wt == 1:
                i += 8
            elif wt == 5:
                i += 4
            else:
                return
    except ValueError:
        return


def _prompt_message(t: Transcript, m: dict[str, Any]) -> None:
    role = m.get("role")
    cursor = ((m.get("providerOptions") or {}).get("cursor") or {})
    content = m.get("content")
    if role == "system":
        b = text_block(content)
        if b:
            t.add("system", [b], label="system prompt")
    elif role == "user":
        text = flatten_text(content)
        if cursor.get("isSummary"):
            t.add("summary", [text_block(text) or Block("text", "(empty)")], label="Compaction summary")
            return
        q = _QUERY.match(text)
        if q:
            t.add("user", [Block("text", clip(q.group(1)))])
        elif text.strip():
            t.add("system", [Block("text", clip(text))], label="injected context")
    elif role == "assistant":
        blocks: list[Block] = []
        for p in content if isinstance(content, list) else [content]:
            if isinstance(p, str):
                b = text_block(p)
            elif not isinstance(p, dict):
                continue
            elif p.get("type") == "text":
                b = text_block(p.get("text"))
            elif p.get("type") == "reasoning":
                b = Block("thinking", clip(str(p.get("text") or ""))) if p.get("text") else None
            elif p.get("type") == "redacted-reasoning":
                b = Block("thinking", "[reasoning redacted by the provider]")
            elif p.get("type") == "tool-call":
                b = Block("tool_call", name=str(p.get("toolName") or "tool"), call_id=p.get("toolCallId"),
                          input=pretty(p.get("args")))
            else:
                b = None
            if b:
                blocks.append(b)
        t.add("assistant", blocks)
    elif role == "tool":
        capture = terminal_capture(cursor.get("highLevelToolCallResult"))
        out = []
        for p in content if isinstance(content, list) else []:
            if isinstance(p, dict) and p.get("type") == "tool-result":
                res = p.get("result")
                out.append(Block("tool_result", clip(res if isinstance(res, str) else pretty(res)),
                                 call_id=p.get("toolCallId") or m.get("id"), output_ref=capture))
        t.add("tool", out)


def terminal_capture(result: Any, depth: int = 0) -> str | None:
    """The terminals/<n>.txt a shell result names (seed: `outputLocation.filePath` inside the
    highLevelToolCallResult's output case, e.g. output.success; older shapes nest it elsewhere)."""
    if depth > 6:
        return None
    if isinstance(result, dict):
        loc = result.get("outputLocation")
        path = loc.get("filePath") if isinstance(loc, dict) else None
        if isinstance(path, str) and path:
            return path
        children: Any = result.values()
    elif isinstance(result, list):
        children = result
    else:
        return None
    return next((p for v in children if (p := terminal_capture(v, depth + 1))), None)


# ---------------------------------------------------------------- JSONL mirror
def _mirror_line(t: Transcript, r: dict[str, Any]) -> None:
    if r.get("type") == "turn_ended":
        t.marker(f"Turn ended: {r.get('status')}" + (f" ({r['error']})" if r.get("error") else ""))
        return
    if r.get("type") == "metadata":
        b = text_block((r.get("metadata") or {}).get("overview"))
        if b:
            t.add("summary", [b], label="Overview")
        return
    role = r.get("role")
    content = (r.get("message") or {}).get("content")
    blocks: list[Block] = []
    for p in content if isinstance(content, list) else []:
        if not isinstance(p, dict):
            continue
        if p.get("type") == "text":
            text = str(p.get("text") or "")
            q = _QUERY.match(text)
            b = text_block(q.group(1) if q else text)
            if b:
                blocks.append(b)
        elif p.get("type") == "tool_use":
            blocks.append(Block("tool_call", name=str(p.get("name") or "tool"), input=pretty(p.get("input"))))
    if role in ("user", "assistant"):
        t.add(role, blocks)
