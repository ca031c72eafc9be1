"""Readable export of archived (redacted) sessions: Markdown or one self-contained HTML file.

    result = export(archive, identities, catalog.sessions, "claude-code:<sid>", fmt="html")

The session's artifacts are fetched and verified (Restorer) into a 0700 temp folder that
is removed afterwards; a per-harness reader turns them into a Transcript in conversation
order; a writer renders the document. An export holds the session and its subagents (all
descendants through `subagent` edges), or with `with_family` the whole lineage family; links
to sessions in the export are anchors, others are shown as text. Full tool outputs the
transcript names (render/outputs.py) are then fetched the same way and shown under their result.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Literal, Sequence

from archiver.archive import Archive
from archiver.lineage import Lineage
from archiver.model import Artifact, Session
from archiver.render import claude, codex, cursor, deepseek, opencode, outputs, pi
from archiver.render.doc import DocSession, ExportDoc, uses_note
from archiver.render.html import render_html
from archiver.render.markdown import render_markdown
from archiver.render.model import Transcript, link_subagents, merge_assistant_runs, pair_tools
from archiver.restore import Restorer

Reader = Callable[[Session, dict[str, Path]], Transcript]
READERS: dict[str, Reader] = {
    "claude-code": claude.read,
    "codex": codex.read,
    "cursor-agent": cursor.read,
    "opencode": opencode.read,
    "pi": pi.read,
    "deepseek-harness": deepseek.read,
}
# which artifact roles a reader needs (the rest is not fetched)
NEEDS: dict[str, tuple[str, ...]] = {"opencode": ("database",), "cursor-agent": ("transcript", "database")}

__all__ = ["ExportResult", "export", "export_keys", "render_html", "render_markdown", "transcript_of"]


@dataclass
class ExportResult:
    document: str
    sessions: list[str]
    entries: int
    integrity_errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def export_keys(sessions: dict[str, Session], key: str, with_family: bool = False) -> list[str]:
    """The sessions an export of `key` holds, in reading order: the session, then its
    subagent descendants (depth first); with_family, then the rest of its family."""
    lin = Lineage(sessions)
    order: list[str] = []

    def visit(k: str) -> None:
        if k in order or k not in sessions:
            return
        order.append(k)
        for e in lin.children(k):
            if e.relation == "subagent":
                visit(e.child)

    visit(key)
    if with_family:
        rest = sorted(lin.family(key) - set(order), key=lambda k: (sessions[k].created_at or "", k) if k in sessions else ("", k))
        for k in rest:
            visit(k)
    return order


def transcript_of(session: Session, files: dict[str, Path], sessions: dict[str, Session] | None = None) -> Transcript:
    reader = READERS.get(session.harness)
    if reader is None:
        t = Transcript(session.key, session.harness)
        t.notes.append(f"no reader for harness {session.harness!r}")
        return t
    try:
        t = reader(session, files)
    except Exception as e:  # a malformed file must not sink the whole export
        t = Transcript(session.key, session.harness)
        t.notes.append(f"could not read the transcript ({type(e).__name__}: {e})")
        return t
    pair_tools(t)
    merge_assistant_runs(t)
    if sessions is not None:
        kids = [s for s in sessions.values() if any(p.parent == session.key for p in s.parents)]
        by_call = {p.at: s.key for s in kids for p in s.parents if p.parent == session.key and p.at}
        link_subagents(t, {s.session_id: s.key for s in kids}, by_call)
    return t


def export(
    archive: Archive,
    identities: Sequence[object],
    sessions: dict[str, Session],
    key: str,
    *,
    fmt: Literal["html", "md"] = "html",
    with_family: bool = False,
    tmp_parent: Path | None = None,
) -> ExportResult:
    keys = export_keys(sessions, key, with_family)
    if not keys:
        raise KeyError(key)
    lin = Lineage(sessions)
    named_only = lin.named_host_sessions(keys)
    doc_sessions: list[DocSession] = []
    errors: list[str] = []
    warnings: list[str] = []
    with tempfile.TemporaryDirectory(prefix="archiver-export-", dir=tmp_parent) as tmp:
        os.chmod(tmp, 0o700)
        for i, k in enumerate(keys):
            if k in named_only:
                continue
            s = sessions[k]
            needed = NEEDS.get(s.harness, ("transcript",))
            slim = s.model_copy(update={"artifacts": [a for a in s.artifacts if a.role in needed]})
            target = Path(tmp) / str(i)
            res = Restorer(archive, identities, {}, relink=False).restore([slim], target)
            errors += res.integrity_errors + [f"refused: {r}" for r in res.refused]
            warnings += res.warnings
            files = {p: target / p for p in res.files}
            t = transcript_of(s, files, sessions)
            out_errors, out_warnings = _add_outputs(archive, identities, t, s, sessions, Path(tmp) / f"{i}-out")
            errors += out_errors
            warnings += out_warnings
            children = [(e.relation, e.child, e.at) for e in lin.children(k)]
            uses = [(lin.archive_key(u), uses_note(s.harness, u in sessions)) for u in lin.used(k)]
            doc_sessions.append(DocSession(s, t, children, uses))
    first = sessions[keys[0]]
    title = f"{first.title or first.key} — {first.harness} session"
    doc = ExportDoc(title=title, generated_at=_now(), sessions=doc_sessions)
    text = render_html(doc) if fmt == "html" else render_markdown(doc)
    return ExportResult(document=text, sessions=keys, entries=sum(len(d.transcript.entries) for d in doc_sessions),
                        integrity_errors=errors, warnings=warnings)


def _add_outputs(archive: Archive, identities: Sequence[object], t: Transcript, session: Session,
                 sessions: dict[str, Session], target: Path) -> tuple[list[str], list[str]]:
    """Fetch the output files `t` references (only those) and attach them; (errors, warnings)."""
    found = outputs.wanted(t, session, sessions)
    restored: dict[str, Path] = {}
    errors: list[str] = []
    warnings: list[str] = []
    if found:
        by_owner: dict[str, list[Artifact]] = {}
        for owner, art in found.values():
            by_owner.setdefault(owner.key, []).append(art)
        slims = [sessions[k].model_copy(update={"artifacts": arts}) for k, arts in by_owner.items()]
        res = Restorer(archive, identities, {}, relink=False).restore(slims, target)
        errors += res.integrity_errors + [f"refused: {r}" for r in res.refused]
        warnings += res.warnings
        placed = set(res.files)
        restored = {k: target / a.path for k, (_o, a) in found.items() if a.path in placed}
    outputs.attach(t, session.harness, set(found), restored)
    return errors, warnings


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")
