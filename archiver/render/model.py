"""The harness-neutral transcript a renderer produces and the writers (HTML, Markdown) read.

A per-harness reader turns restored (redacted) files into a `Transcript`: entries in
conversation order, each a list of blocks. Tool calls carry their result once
`pair_tools` has run, so a writer shows them together.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Callable, Literal, Mapping

Role = Literal["user", "assistant", "system", "tool", "summary", "marker"]
BlockKind = Literal["text", "thinking", "tool_call", "tool_result", "image", "marker"]

MAX_TEXT = 200_000  # characters per block shown; the rest is cut with a note


@dataclass
class Block:
    kind: BlockKind
    text: str = ""
    name: str | None = None  # tool name
    call_id: str | None = None
    input: str | None = None  # tool input, pretty-printed
    result: Block | None = None  # for tool_call: the paired tool_result
    is_error: bool = False
    media_type: str | None = None  # image: e.g. image/png
    data: str | None = None  # image: base64
    link: str | None = None  # a session key this block refers to (subagent, parent)
    # tool_result: the file its full output was moved to, as the (redacted) transcript names it
    output_ref: str | None = None
    full_output: str | None = None  # that file's text from the archive (capped), see render/outputs.py
    output_note: str | None = None  # why it is not shown in full (not archived, binary, cut)

    def __post_init__(self) -> None:
        # readers pass values straight from the transcript: a number or an object where text
        # belongs must reach the writers as text, not crash an escape() of the whole export
        self.text = as_text(self.text) or ""
        for name in ("name", "call_id", "input", "media_type", "data", "link", "output_ref"):
            setattr(self, name, as_text(getattr(self, name)))


@dataclass
class Entry:
    role: Role
    blocks: list[Block] = field(default_factory=list)
    timestamp: str | None = None
    label: str | None = None  # e.g. "Compaction summary", "Branch summary", "context"
    id: str | None = None

    def __post_init__(self) -> None:
        self.timestamp, self.label, self.id = as_text(self.timestamp), as_text(self.label), as_text(self.id)


def as_text(value: Any) -> str | None:
    """A transcript value as text for display: strings as they are, None stays None,
    anything else (a number, an object) as compact JSON."""
    if value is None or isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    except (TypeError, ValueError):
        return str(value)


@dataclass
class Transcript:
    key: str
    harness: str
    entries: list[Entry] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what the reader could not show, and why

    def add(self, role: Role, blocks: list[Block], **kw: Any) -> Entry:
        e = Entry(role, [b for b in blocks if b is not None], **kw)
        self.entries.append(e)
        return e

    def marker(self, text: str, link: str | None = None, timestamp: str | None = None) -> None:
        self.entries.append(Entry("marker", [Block("marker", text, link=link)], timestamp=timestamp))


def text_block(value: Any) -> Block | None:
    text = value if isinstance(value, str) else flatten_text(value)
    return Block("text", clip(text)) if text and text.strip() else None


PartReader = Callable[[dict[str, Any]], "Block | list[Block] | None"]


def content_blocks(content: Any, readers: Mapping[str, PartReader]) -> list[Block]:
    """The blocks of a message's content in the shape every harness shares: a string is one text
    block; a list holds typed parts (`{"type": ...}`), read by `readers[type]`; a `text` part is a
    text block unless the harness reads it itself. Unknown types and non-objects are skipped."""
    if isinstance(content, str):
        b = text_block(content)
        return [b] if b else []
    out: list[Block] = []
    for part in content if isinstance(content, list) else []:
        if not isinstance(part, dict):
            continue
        kind = part.get("type")
        read = readers.get(kind) if isinstance(kind, str) else None
        if read is None and kind == "text":
            read = _text_part
        got = read(part) if read is not None else None
        if isinstance(got, list):
            out.extend(got)
        elif got is not None:
            out.append(got)
    return out


def _text_part(part: dict[str, Any]) -> Block | None:
    return text_block(part.get("text"))


def thinking_part(field_name: str) -> PartReader:
    """A reasoning part whose text is in `field_name` (empty ones are dropped)."""
    def read(part: dict[str, Any]) -> Block | None:
        text = as_text(part.get(field_name)) or ""
        return Block("thinking", clip(text)) if text.strip() else None
    return read


def tool_call_part(input_field: str) -> PartReader:
    """A tool call with `name`, `id` and its input in `input_field`."""
    def read(part: dict[str, Any]) -> Block:
        return Block("tool_call", name=str(part.get("name") or "tool"), call_id=part.get("id"),
                     input=pretty(part.get(input_field)))
    return read


def flatten_text(value: Any) -> str:
    """Text out of the usual content shapes: a string, a list of parts, {text: ...}."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n\n".join(t for t in (flatten_text(v) for v in value) if t)
    if isinstance(value, dict):
        for k in ("text", "content", "output", "message"):
            if k in value and isinstance(value[k], (str, list)):
                return flatten_text(value[k])
        return ""
    return str(value)


def pretty(value: Any) -> str:
    """Tool input as readable text: JSON strings are decoded, objects indented."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return clip(value)
        if isinstance(value, str):
            return clip(value)
    try:
        return clip(json.dumps(value, indent=2, ensure_ascii=False, sort_keys=False))
    except (TypeError, ValueError):
        return clip(str(value))


def clip(text: str, limit: int = MAX_TEXT) -> str:
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n… [{len(text) - limit} more characters not shown]"


def pair_tools(t: Transcript) -> None:
    """Attach each tool_result to the tool_call with the same call id; entries left
    with nothing (results now shown with their call) are dropped."""
    calls: dict[str, Block] = {}
    for e in t.entries:
        for b in e.blocks:
            if b.kind == "tool_call" and b.call_id:
                calls.setdefault(b.call_id, b)
    kept: list[Entry] = []
    for e in t.entries:
        blocks = []
        for b in e.blocks:
            call = calls.get(b.call_id or "") if b.kind == "tool_result" else None
            if call is not None and call.result is None:
                call.result = b
                if b.link and not call.link:
                    call.link = b.link
                continue
            blocks.append(b)
        if blocks or not e.blocks:
            e.blocks = blocks
            kept.append(e)
    t.entries = kept


def link_subagents(t: Transcript, children: dict[str, str], by_call: dict[str, str]) -> None:
    """Point tool calls at the child sessions they started: `by_call` maps a tool call id
    to a child key (lineage `at`); `children` maps a child session id to its key, found
    in the call's input or result text."""
    for e in t.entries:
        for b in e.blocks:
            if b.kind != "tool_call" or b.link:
                continue
            if b.call_id and b.call_id in by_call:
                b.link = by_call[b.call_id]
                continue
            hay = (b.input or "") + "\n" + (b.result.text if b.result else "")
            for sid, key in children.items():
                if sid and sid in hay:
                    b.link = key
                    break


def merge_assistant_runs(t: Transcript) -> None:
    """Consecutive assistant entries (text, thinking, tool calls of one stretch of work)
    become one turn; the first entry's time and label stay."""
    merged: list[Entry] = []
    for e in t.entries:
        prev = merged[-1] if merged else None
        if (prev is not None and e.role == "assistant" and prev.role == "assistant"
                and (e.label is None or prev.label is None or e.label == prev.label)):
            prev.blocks.extend(e.blocks)
            prev.label = prev.label or e.label
            continue
        merged.append(e)
    t.entries = merged
