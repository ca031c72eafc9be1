"""Markdown (CommonMark/GFM). Message text is escaped so nothing in a transcript turns into
HTML or links; redaction tokens are inline code (`` `<EMAIL:3f9a2c1b>` ``); tool input
and output are fenced blocks (fences longer than any backtick run inside)."""

from __future__ import annotations

import re

from archiver.render.doc import DocSession, ExportDoc, count_tokens, split_tokens
from archiver.render.model import Block, Entry

_SPECIAL = re.compile(r"([\\`*_{}\[\]<>#|!~&])")


def render_markdown(doc: ExportDoc) -> str:
    out = [f"# {_inline(doc.title)}", "",
           f"Exported from the archive {doc.generated_at} · {len(doc.sessions)} session(s) · content is redacted; "
           "redaction tokens are shown as `<EMAIL:3f9a2c1b>`.", ""]
    if len(doc.sessions) > 1:
        out.append("Sessions in this file:")
        out.append("")
        for i, ds in enumerate(doc.sessions, 1):
            title = f" — {_inline(ds.session.title)}" if ds.session.title else ""
            out.append(f"{i}. {_link(doc, ds.session.key)} — {ds.session.kind}{title}")
        out.append("")
    for ds in doc.sessions:
        out.extend(_session(doc, ds))
    return "\n".join(out).rstrip() + "\n"


def _session(doc: ExportDoc, ds: DocSession) -> list[str]:
    s, t = ds.session, ds.transcript
    # every value below comes from the archive (ids and times are copied from the transcripts):
    # escaped, or a code span no backtick inside can close, and on one line
    out = [f'<a id="{doc.anchor(s.key)}"></a>', "", f"## {_inline(s.title) if s.title else _meta(s.key)}", "",
           f"- session: {_code(s.key)}", f"- harness / kind: {_meta(s.harness)} / {_meta(s.kind)}"]
    if s.created_at or s.updated_at:
        out.append(f"- created / updated: {_meta(s.created_at or '?')} / {_meta(s.updated_at or '?')}")
    if s.host_id:
        out.append(f"- host id: {_code(s.host_id)}")
    for p in s.parents:
        out.append(f"- {_meta(p.relation)} of: {_link(doc, p.parent)}" + (f" at {_code(p.at)}" if p.at else "")
                   + (" (inferred)" if p.inferred else ""))
    for relation, child, at in ds.children:
        out.append(f"- {_meta(relation)}: {_link(doc, child)}" + (f" via {_code(at)}" if at else ""))
    for used, note in ds.uses:
        out.append(f"- uses {_code(used)}: {_meta(note)}")
    if s.redactions:
        out.append("- redactions: " + ", ".join(f"{_meta(k)}: {v}" for k, v in sorted(s.redactions.items())))
    out.append(f"- redaction tokens shown: {count_tokens(t)}")
    out.append("")
    for n in list(s.warnings) + t.notes:
        out.append(f"> **Note:** {_inline(n)}")
    if s.warnings or t.notes:
        out.append("")
    if not t.entries:
        out += ["_No conversation to show._", ""]
    for e in t.entries:
        out.extend(_entry(doc, e))
    return out


ROLE_NAMES = {"user": "User", "assistant": "Assistant", "tool": "Tool result", "system": "System", "summary": "Summary"}


def _entry(doc: ExportDoc, e: Entry) -> list[str]:
    if e.role == "marker":
        return [f"_— {_inline(b.text)} —_{_see(doc, b.link)}" for b in e.blocks] + [""]
    name = e.label if e.role in ("summary", "system") and e.label else ROLE_NAMES.get(e.role, e.role)
    if e.role == "assistant" and e.label:
        name = f"Assistant · {e.label}"
    out = [f"### {_meta(name)}" + (f" · {_meta(e.timestamp)}" if e.timestamp else ""), ""]
    for b in e.blocks:
        out.extend(_block(doc, b))
    return out


def _block(doc: ExportDoc, b: Block) -> list[str]:
    if b.kind == "text":
        return [_inline(b.text) + _see(doc, b.link), ""]
    if b.kind == "thinking":
        return ["<details><summary>Thinking</summary>", "", _inline(b.text), "", "</details>", ""]
    if b.kind == "marker":
        return [f"_{_inline(b.text)}_{_see(doc, b.link)}", ""]
    if b.kind == "image":
        return [f"_[image: {_meta(b.media_type or 'not stored inline')}; see the HTML export]_", ""]
    if b.kind == "tool_call":
        sub = f" → subagent {_link(doc, b.link)}" if b.link else ""
        out = [f"**Tool call: {_meta(b.name or 'tool')}**" + (f" {_code(b.call_id)}" if b.call_id else "") + sub, ""]
        out += _fence(b.input or "")
        if b.result is None:
            out += ["_No result recorded_", ""]
        elif b.result.kind == "image":
            out += ["_Result: an image; see the HTML export_", ""]
        else:
            out += ["Result (error):" if b.result.is_error else "Result:", ""] + _fence(b.result.text)
            out += _full_output(b.result)
        return out
    if b.kind == "tool_result":
        head = "Tool result (error)" if b.is_error else "Tool result"
        return ([f"{head}" + (f" for {_code(b.call_id)}" if b.call_id else "") + _see(doc, b.link) + ":", ""]
                + _fence(b.text) + _full_output(b))
    return []


def _full_output(result: Block) -> list[str]:
    """The output file the transcript moved this result to (render/outputs.py), fenced."""
    note = [f"_\\[{_meta(result.output_note)}\\]_", ""] if result.output_note else []
    if result.full_output is None:
        return note
    size = len(result.full_output.encode("utf-8"))
    return [f"Full output ({size} bytes shown):", ""] + _fence(result.full_output) + note


def _fence(text: str) -> list[str]:
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return [fence + "text", text, fence, ""]


def _esc(text: str) -> str:
    return _SPECIAL.sub(r"\\\1", text)


_BREAKS = re.compile(r"[\x00-\x1f\x7f\u0085\u2028\u2029]+")


def _one_line(text: object) -> str:
    """No line break (it could end the list item or heading and start raw HTML) nor control character."""
    return _BREAKS.sub(" ", str(text))


def _meta(text: object) -> str:
    return _esc(_one_line(text))


def _code(text: object) -> str:
    """An inline code span around any text: its delimiter is longer than every backtick run inside
    (CommonMark), so the text cannot close it and is shown literally, never as HTML."""
    t = _one_line(text)
    fence = "`" * (max((len(m) for m in re.findall(r"`+", t)), default=0) + 1)
    pad = " " if t.startswith("`") or t.endswith("`") or (t.startswith(" ") and t.endswith(" ")) else ""
    return f"{fence}{pad}{t}{pad}{fence}"


def _inline(text: str | None) -> str:
    out = []
    for is_token, piece in split_tokens(text or ""):
        out.append(f"`{piece}`" if is_token else _esc(piece))
    # one paragraph: hard line breaks; no line may start a list, heading or code block
    return "  \n".join(_line_start(line) for line in "".join(out).split("\n"))


_LEAD = re.compile(r"^( *)([-+=]|\d+[.)])")


def _line_start(line: str) -> str:
    line = _LEAD.sub(lambda m: m.group(1) + "\\" + m.group(2) if not m.group(2)[0].isdigit()
                     else m.group(1) + m.group(2)[:-1] + "\\" + m.group(2)[-1], line)
    stripped = line.lstrip(" ")
    return "\u00a0" * (len(line) - len(stripped)) + stripped


def _link(doc: ExportDoc, key: str | None) -> str:
    if not key:
        return ""
    anchor = doc.anchor(key)
    return f"[{_meta(key)}](#{anchor})" if anchor else f"{_meta(key)} (not in this export)"


def _see(doc: ExportDoc, key: str | None) -> str:
    return f" → {_link(doc, key)}" if key else ""
