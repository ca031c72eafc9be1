"""What an export holds: one or more sessions (a session and its subagents, or a whole
family), each with its transcript, and the lineage links between them. Both writers
(HTML, Markdown) read this; links to a session outside the export are shown as text."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field

from archiver.lineage import used_host_purpose
from archiver.model import Session
from archiver.render.model import Transcript

# the redactor's replacement shapes (redact/engine.py): <EMAIL:3f9a2c1b>, <REDACTED:X>, user-5f2a
TOKEN_RX = re.compile(r"<[A-Z][A-Z0-9_]*:[0-9a-f]{8}>|<REDACTED:[A-Z0-9_]+>|\buser-[0-9a-f]{4}\b")


@dataclass
class DocSession:
    session: Session
    transcript: Transcript
    children: list[tuple[str, str, str | None]] = field(default_factory=list)  # (relation, child key, at)
    uses: list[tuple[str, str]] = field(default_factory=list)  # (host-level session's key, what it is)


def uses_note(harness: str, archived: bool) -> str:
    """The words after a used host-level session's key in an export: what it is, and how a
    reviewer gets it (it has no conversation, so the export names it instead of showing it)."""
    what = used_host_purpose(harness)
    return f"{what}, restored with --with-family" if archived else f"{what}, not in the archive"


@dataclass
class ExportDoc:
    title: str
    generated_at: str
    sessions: list[DocSession]
    anchors: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        used: set[str] = set()
        for ds in self.sessions:
            base = "s-" + re.sub(r"[^A-Za-z0-9_-]+", "-", ds.session.key).strip("-")[:80]
            anchor = base if base not in used else f"{base}-{hashlib.sha256(ds.session.key.encode()).hexdigest()[:8]}"
            used.add(anchor)
            self.anchors[ds.session.key] = anchor

    def anchor(self, key: str | None) -> str | None:
        return self.anchors.get(key) if key else None


def split_tokens(text: str) -> list[tuple[bool, str]]:
    """[(is_token, piece)] covering text, in order."""
    out: list[tuple[bool, str]] = []
    pos = 0
    for m in TOKEN_RX.finditer(text):
        if m.start() > pos:
            out.append((False, text[pos:m.start()]))
        out.append((True, m.group(0)))
        pos = m.end()
    if pos < len(text):
        out.append((False, text[pos:]))
    return out


def token_kind(token: str) -> str:
    if token.startswith("user-"):
        return "USERNAME"
    return token[1:].split(":", 1)[0].rstrip(">") if token.startswith("<") else "REDACTED"


def count_tokens(t: Transcript) -> int:
    n = 0
    for e in t.entries:
        for b in e.blocks:
            res = b.result
            for s in (b.text, b.input or "", b.full_output or "", res.text if res else "", res.full_output or "" if res else ""):
                n += len(TOKEN_RX.findall(s))
    return n
