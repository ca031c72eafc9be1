"""One self-contained HTML file: inline CSS, no scripts, no external assets (a CSP meta
tag forbids any fetch; images are data: URLs), everything escaped. Sessions are sections
with anchors; lineage and subagent links jump between them. Redaction tokens are
`<mark class="redaction">`."""

from __future__ import annotations

import re
from html import escape

from archiver.render.doc import DocSession, ExportDoc, count_tokens, split_tokens, token_kind
from archiver.render.model import Block, Entry

IMAGE_TYPES = {"image/png", "image/jpeg", "image/gif", "image/webp"}
MAX_IMAGE_B64 = 8 << 20
_B64 = re.compile(r"^[A-Za-z0-9+/]+={0,2}$")

CSS = """
:root{--fg:#1d232a;--muted:#5c6773;--line:#d9dee4;--user:#eef5ff;--asst:#f6f8fa;--tool:#fffaf0;--sys:#f4f1fb;
--sum:#effaf1;--mark:#ffe08a}
*{box-sizing:border-box}
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:#fff}
header.doc{padding:18px 28px;border-bottom:1px solid var(--line);background:#fbfcfd}
header.doc h1{margin:0 0 4px;font-size:22px}
.muted{color:var(--muted);font-size:13px}
nav.toc{padding:10px 28px;border-bottom:1px solid var(--line)}
nav.toc ol{margin:4px 0;padding-left:22px}
main{padding:8px 28px 40px;max-width:1100px}
section.session{margin:26px 0;padding-top:6px;border-top:3px solid var(--line)}
section.session h2{margin:8px 0;font-size:19px}
dl.meta{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px;margin:8px 0 14px;font-size:13px}
dl.meta dt{color:var(--muted)}dl.meta dd{margin:0}
.notes{background:#fff4f4;border:1px solid #f1c6c6;border-radius:6px;padding:6px 12px;font-size:13px}
.turn{border:1px solid var(--line);border-radius:8px;margin:10px 0;padding:8px 12px}
.turn.user{background:var(--user)}.turn.assistant{background:var(--asst)}.turn.tool{background:var(--tool)}
.turn.system{background:var(--sys)}.turn.summary{background:var(--sum);border-style:dashed}
.role{font-weight:600;font-size:13px;margin-bottom:4px}.role .ts{font-weight:400;color:var(--muted);margin-left:8px}
.text{white-space:pre-wrap;word-wrap:break-word;overflow-wrap:anywhere}
.marker{text-align:center;color:var(--muted);font-size:13px;margin:14px 0;border-top:1px dashed var(--line);
padding-top:6px}
details{margin:6px 0}summary{cursor:pointer}
details.tool{border-left:3px solid #e0a800;padding-left:8px}
details.thinking{color:var(--muted)}
details.output{border-left:3px solid var(--line);padding-left:8px}
pre{white-space:pre-wrap;word-wrap:break-word;overflow-wrap:anywhere;background:#fff;border:1px solid var(--line);
border-radius:4px;padding:6px 8px;margin:4px 0;font:12.5px/1.45 ui-monospace,SFMono-Regular,Menlo,monospace;
max-height:40em;overflow:auto}
pre.error{border-color:#e5a0a0;background:#fff6f6}
code{font:12.5px ui-monospace,SFMono-Regular,Menlo,monospace}
mark.redaction{background:var(--mark);border-radius:3px;padding:0 2px;font-family:ui-monospace,monospace;font-size:.92em}
a.session-link{font-weight:600}
.ext{color:var(--muted)}
img.inline{max-width:480px;max-height:360px;border:1px solid var(--line);display:block;margin:4px 0}
.legend mark{margin:0 4px}
"""


def render_html(doc: ExportDoc) -> str:
    out = [
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">",
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">",
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">",
        "<meta name=\"referrer\" content=\"no-referrer\">",
        f"<title>{escape(doc.title)}</title><style>{CSS}</style></head><body>",
        f"<header class=\"doc\"><h1>{_inline(doc.title)}</h1>",
        f"<div class=\"muted\">Exported from the archive {escape(doc.generated_at)} · {len(doc.sessions)} session(s) · "
        "content is redacted; <span class=\"legend\">redaction tokens look like "
        "<mark class=\"redaction\">&lt;EMAIL:3f9a2c1b&gt;</mark></span></div></header>",
    ]
    if len(doc.sessions) > 1:
        out.append("<nav class=\"toc\"><strong>Sessions in this file</strong><ol>")
        for ds in doc.sessions:
            out.append(f"<li>{_link(doc, ds.session.key)} — {escape(ds.session.kind)}"
                       f"{' — ' + _inline(ds.session.title) if ds.session.title else ''}</li>")
        out.append("</ol></nav>")
    out.append("<main>")
    for ds in doc.sessions:
        out.append(_session(doc, ds))
    out.append("</main></body></html>\n")
    return "".join(out)


def _session(doc: ExportDoc, ds: DocSession) -> str:
    s, t = ds.session, ds.transcript
    out = [f"<section class=\"session\" id=\"{doc.anchor(s.key)}\">",
           f"<h2>{_inline(s.title) if s.title else escape(s.key)}</h2><dl class=\"meta\">"]

    def row(name: str, value_html: str) -> None:
        out.append(f"<dt>{escape(name)}</dt><dd>{value_html}</dd>")

    row("session", f"<code>{escape(s.key)}</code>")
    row("harness / kind", escape(f"{s.harness} / {s.kind}"))
    if s.created_at or s.updated_at:
        row("created / updated", escape(f"{s.created_at or '?'} / {s.updated_at or '?'}"))
    if s.host_id:
        row("host id", f"<code>{escape(s.host_id)}</code>")
    for p in s.parents:
        at = f" at <code>{escape(p.at)}</code>" if p.at else ""
        row(p.relation + " of", _link(doc, p.parent) + at + (" (inferred)" if p.inferred else ""))
    for relation, child, at in ds.children:
        row(relation, _link(doc, child) + (f" via <code>{escape(at)}</code>" if at else ""))
    for used, note in ds.uses:
        row("uses", f"<code>{escape(used)}</code>: {escape(note)}")
    if s.redactions:
        row("redactions", escape(", ".join(f"{k}: {v}" for k, v in sorted(s.redactions.items()))))
    row("redaction tokens shown", str(count_tokens(t)))
    out.append("</dl>")
    notes = list(s.warnings) + t.notes
    if notes:
        out.append("<div class=\"notes\">" + "".join(f"<div>{_inline(n)}</div>" for n in notes) + "</div>")
    if not t.entries:
        out.append("<p class=\"muted\">No conversation to show.</p>")
    for e in t.entries:
        out.append(_entry(doc, e))
    out.append("</section>")
    return "".join(out)


ROLE_NAMES = {"user": "User", "assistant": "Assistant", "tool": "Tool result", "system": "System", "summary": "Summary"}


def _entry(doc: ExportDoc, e: Entry) -> str:
    if e.role == "marker":
        return "".join(f"<div class=\"marker\">{_inline(b.text)}{_see(doc, b.link)}</div>" for b in e.blocks)
    name = e.label if e.role in ("summary", "system") and e.label else ROLE_NAMES.get(e.role, e.role)
    if e.role == "assistant" and e.label:
        name = f"Assistant · {e.label}"
    ts = f"<span class=\"ts\">{escape(e.timestamp)}</span>" if e.timestamp else ""
    body = "".join(_block(doc, b) for b in e.blocks)
    return f"<div class=\"turn {e.role}\"><div class=\"role\">{escape(name)}{ts}</div>{body}</div>"


def _block(doc: ExportDoc, b: Block) -> str:
    if b.kind == "text":
        return f"<div class=\"text\">{_inline(b.text)}{_see(doc, b.link)}</div>"
    if b.kind == "thinking":
        return f"<details class=\"thinking\"><summary>Thinking</summary><div class=\"text\">{_inline(b.text)}</div></details>"
    if b.kind == "marker":
        return f"<div class=\"marker\">{_inline(b.text)}{_see(doc, b.link)}</div>"
    if b.kind == "image":
        return _image(b)
    if b.kind == "tool_call":
        cid = f" <code>{escape(b.call_id)}</code>" if b.call_id else ""
        res = ""
        if b.result is not None:
            if b.result.kind == "image":
                res = "<div class=\"muted\">Result</div>" + _image(b.result)
            else:
                cls = " class=\"error\"" if b.result.is_error else ""
                label = "Result (error)" if b.result.is_error else "Result"
                res = f"<div class=\"muted\">{label}</div><pre{cls}>{_inline(b.result.text)}</pre>{_full_output(b.result)}"
        else:
            res = "<div class=\"muted\">No result recorded</div>"
        sub = f" → subagent {_link(doc, b.link)}" if b.link else ""
        return (f"<details class=\"tool\" open><summary>Tool call: <strong>{escape(b.name or 'tool')}</strong>{cid}{sub}"
                f"</summary><div class=\"muted\">Input</div><pre>{_inline(b.input or '')}</pre>{res}</details>")
    if b.kind == "tool_result":
        cls = " class=\"error\"" if b.is_error else ""
        cid = f" for <code>{escape(b.call_id)}</code>" if b.call_id else ""
        return (f"<div class=\"muted\">Tool result{cid}{_see(doc, b.link)}</div><pre{cls}>{_inline(b.text)}</pre>"
                f"{_full_output(b)}")
    return ""


def _full_output(result: Block) -> str:
    """The output file the transcript moved this result to, collapsed under it (render/outputs.py)."""
    note = f"<div class=\"muted\">[{escape(result.output_note)}]</div>" if result.output_note else ""
    if result.full_output is None:
        return note
    return (f"<details class=\"output\"><summary>Full output ({len(result.full_output.encode('utf-8'))} bytes shown)"
            f"</summary><pre>{_inline(result.full_output)}</pre>{note}</details>")


def _image(b: Block) -> str:
    data = (b.data or "").strip()
    if b.media_type in IMAGE_TYPES and data and len(data) <= MAX_IMAGE_B64 and _B64.match(data):
        return f"<img class=\"inline\" alt=\"image\" src=\"data:{b.media_type};base64,{data}\">"
    return f"<div class=\"muted\">[{escape(b.text or 'image not shown')}]</div>"


def _inline(text: str | None) -> str:
    """Escape text, marking redaction tokens."""
    out = []
    for is_token, piece in split_tokens(text or ""):
        if is_token:
            kind = token_kind(piece)
            out.append(f"<mark class=\"redaction\" title=\"redacted {escape(kind)}\">{escape(piece)}</mark>")
        else:
            out.append(escape(piece))
    return "".join(out)


def _link(doc: ExportDoc, key: str | None) -> str:
    if not key:
        return ""
    anchor = doc.anchor(key)
    if anchor:
        return f"<a class=\"session-link\" href=\"#{anchor}\">{escape(key)}</a>"
    return f"<span class=\"ext\">{escape(key)} (not in this export)</span>"


def _see(doc: ExportDoc, key: str | None) -> str:
    return f" <span class=\"muted\">→ {_link(doc, key)}</span>" if key else ""
