"""Claude Code transcripts (seeds/by-harness/claude-code.json `linking`).

File order is not conversation order: walk `parentUuid` from the active leaf (the
`leafUuid` of the last `last-prompt`, else the newest non-sidechain message) to the root,
continue across compaction through the boundary's `logicalParentUuid`, re-attach
parallel tool results that hang off an assistant line on the path, and merge the lines
of one streamed response (same `message.id`). The messages the path does not reach (rewinds,
edited prompts) follow under "Other branches", in file order.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from archiver.model import Session
from archiver.render.jsonl import read_transcript
from archiver.render.model import (Block, PartReader, Transcript, clip, content_blocks, flatten_text,
                                   thinking_part, tool_call_part)

CONVERSATION = {"user", "assistant", "system", "attachment"}


def read(session: Session, files: dict[str, Path]) -> Transcript:
    return read_transcript(session, files, _render_file, what="transcript file")


def _render_file(t: Transcript, recs: list[dict[str, Any]]) -> None:
    nodes: dict[str, dict[str, Any]] = {}
    order: dict[str, int] = {}
    children: dict[str, list[str]] = {}
    leaf: str | None = None
    leaf_withdrawn = False
    fork_ref: dict[str, Any] | None = None
    for i, r in enumerate(recs):
        typ = r.get("type")
        if typ == "last-prompt":
            if r.get("leafUuid"):
                leaf, leaf_withdrawn = str(r["leafUuid"]), False
            elif r.get("explicit"):
                leaf, leaf_withdrawn = None, True
        elif typ == "fork-context-ref" and fork_ref is None:
            fork_ref = r
        if typ in CONVERSATION and isinstance(r.get("uuid"), str):
            u = r["uuid"]
            nodes[u] = r
            order[u] = i
            p = r.get("parentUuid")
            if isinstance(p, str):
                children.setdefault(p, []).append(u)
    if leaf not in nodes:
        if leaf is not None:
            t.notes.append("the recorded active leaf is not in the file; showing the newest message's branch")
        elif leaf_withdrawn:
            t.notes.append("the active leaf was withdrawn; showing the newest message's branch")
        leaf = _newest(nodes, order)
    if fork_ref is not None:
        t.marker(
            f"Forked subagent: context inherited from the parent session up to message "
            f"{fork_ref.get('parentLastUuid')} ({fork_ref.get('contextLength')} messages), not repeated here",
            link=f"claude-code:{fork_ref['parentSessionId']}" if fork_ref.get("parentSessionId") else None,
        )
    if leaf is None:
        return
    path = _walk(leaf, nodes)
    on_path = set(path)
    shown = 0
    for u in path:
        rec = nodes[u]
        _emit(t, rec)
        shown += 1
        # parallel tool results hang off an earlier assistant line of the same response
        if rec.get("type") == "assistant":
            for c in sorted(children.get(u, []), key=lambda k: order[k]):
                if c not in on_path and _is_tool_result(nodes[c]):
                    _emit(t, nodes[c])
                    on_path.add(c)
    off = [u for u in sorted(nodes, key=order.__getitem__)
           if u not in on_path and not nodes[u].get("isSidechain")
           and (nodes[u].get("type") in ("user", "assistant") or _is_compaction(nodes[u]))]
    if any(nodes[u].get("type") in ("user", "assistant") for u in off):
        _other_branches(t, off, nodes)
    _merge_streamed(t)


def _other_branches(t: Transcript, off: list[str], nodes: dict[str, dict[str, Any]]) -> None:
    """The messages the active branch does not reach (rewinds, edited prompts), after it, in
    file order: what the agent did there happened all the same, so a reviewer sees it. Each
    branch starts with a marker naming the message it grew from."""
    n = sum(1 for u in off if nodes[u].get("type") in ("user", "assistant"))
    t.marker(f"Other branches (rewinds, edits): {n} message(s) the active conversation does not reach, "
             "in file order")
    taken = set(off)
    for u in off:
        parent = _parent(nodes[u])
        if parent not in taken:
            t.marker(f"Branch from message {parent}" if isinstance(parent, str) else "Branch from the start",
                     timestamp=nodes[u].get("timestamp"))
        _emit(t, nodes[u])


def _newest(nodes: dict[str, dict[str, Any]], order: dict[str, int]) -> str | None:
    msgs = [u for u, r in nodes.items() if r.get("type") in ("user", "assistant")]
    main = [u for u in msgs if not nodes[u].get("isSidechain")] or msgs
    if not main:
        return None
    return max(main, key=lambda u: (str(nodes[u].get("timestamp") or ""), order[u]))


def _walk(leaf: str, nodes: dict[str, dict[str, Any]]) -> list[str]:
    path: list[str] = []
    seen: set[str] = set()
    cur: str | None = leaf
    while cur and cur in nodes and cur not in seen:
        seen.add(cur)
        path.append(cur)
        cur = _parent(nodes[cur])
    path.reverse()
    return path


def _is_compaction(rec: dict[str, Any]) -> bool:
    return rec.get("type") == "system" and rec.get("subtype") == "compact_boundary"


def _parent(rec: dict[str, Any]) -> str | None:
    nxt = rec.get("parentUuid")
    if not nxt and _is_compaction(rec):
        nxt = rec.get("logicalParentUuid")  # stitch the pre-compaction history on
    return nxt if isinstance(nxt, str) else None


def _is_tool_result(rec: dict[str, Any]) -> bool:
    content = (rec.get("message") or {}).get("content")
    return rec.get("type") == "user" and isinstance(content, list) and any(
        isinstance(b, dict) and b.get("type") == "tool_result" for b in content)


def _emit(t: Transcript, rec: dict[str, Any]) -> None:
    typ = rec.get("type")
    ts = rec.get("timestamp")
    if typ == "system":
        if rec.get("subtype") == "compact_boundary":
            meta = rec.get("compactMetadata") or {}
            extra = ", ".join(f"{k} {meta[k]}" for k in ("trigger", "preTokens") if k in meta)
            t.marker("Conversation compacted" + (f" ({extra})" if extra else ""), timestamp=ts)
        return
    if typ == "attachment" or rec.get("isMeta"):
        return
    msg = rec.get("message") or {}
    content = msg.get("content")
    if typ == "user":
        blocks = _blocks(content, rec)
        if rec.get("isCompactSummary"):
            t.add("summary", blocks, timestamp=ts, label="Compaction summary", id=rec.get("uuid"))
            return
        role = "tool" if blocks and all(b.kind == "tool_result" for b in blocks) else "user"
        t.add(role, blocks, timestamp=ts, id=rec.get("uuid"))
    elif typ == "assistant":
        e = t.add("assistant", _blocks(content, rec), timestamp=ts, id=str(msg.get("id") or rec.get("uuid")))
        e.label = msg.get("model")


def _blocks(content: Any, rec: dict[str, Any]) -> list[Block]:
    def tool_result(part: dict[str, Any]) -> list[Block]:
        inner = part.get("content")
        blk = Block("tool_result", clip(flatten_text(inner)), call_id=part.get("tool_use_id"),
                    is_error=bool(part.get("is_error")))
        result = rec.get("toolUseResult")
        if isinstance(result, dict) and result.get("agentId"):
            blk.link = f"claude-code:{result['agentId']}"
        blk.output_ref = _persisted_path(blk.text, result, content)
        images = [_image(p) for p in inner if isinstance(p, dict) and p.get("type") == "image"] if isinstance(inner, list) else []
        return [blk, *images]

    return content_blocks(content, {**_PARTS, "tool_result": tool_result})


_PERSISTED_IN_PREVIEW = re.compile(r"[^\s<>\"']*/tool-results/[^\s<>\"']+")
_PREVIEW_HEAD = 2048  # where the preview names its file; bounds the search in a long result


def _persisted_path(text: str, result: Any, content: Any) -> str | None:
    """The tool-results/ file of a result moved out of the transcript: toolUseResult.persistedOutputPath
    when the line holds this one result (toolUseResult is per line), else the path in its preview."""
    path = result.get("persistedOutputPath") if isinstance(result, dict) else None
    single = sum(1 for p in content if isinstance(p, dict) and p.get("type") == "tool_result") == 1
    if isinstance(path, str) and path and single:
        return path
    start = text.find("<persisted-output>")
    m = _PERSISTED_IN_PREVIEW.search(text, start, start + _PREVIEW_HEAD) if start >= 0 else None
    return m.group(0) if m else None


def _image(part: dict[str, Any]) -> Block:
    src = part.get("source") or {}
    if src.get("type") == "base64" and isinstance(src.get("data"), str):
        return Block("image", media_type=str(src.get("media_type") or ""), data=src["data"])
    return Block("image", text="[image not stored inline]")


_PARTS: dict[str, PartReader] = {
    "thinking": thinking_part("thinking"),
    "redacted_thinking": lambda part: Block("thinking", "[thinking redacted by the provider]"),
    "tool_use": tool_call_part("input"),
    "image": _image,
}


def _merge_streamed(t: Transcript) -> None:
    """One streamed response is N assistant lines with the same message id; with parallel
    tool calls their results sit between them (they are paired with the calls later)."""
    merged: list = []
    for e in t.entries:
        if e.role == "assistant" and e.id:
            j = len(merged) - 1
            while j >= 0 and merged[j].role == "tool":
                j -= 1
            if j >= 0 and merged[j].role == "assistant" and merged[j].id == e.id:
                merged[j].blocks.extend(e.blocks)
                continue
        merged.append(e)
    t.entries = merged
