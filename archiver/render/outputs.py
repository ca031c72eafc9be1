"""Full tool outputs a harness moved out of its transcript, shown under their tool result.

A reader sets `Block.output_ref` on a tool result to the file its full output went to, as the
transcript names it: Claude Code `toolUseResult.persistedOutputPath` (<session-id>/tool-results/<id>.txt),
OpenCode a tool part's `state.metadata.outputPath` (tool-output/tool_<id>) or a truncated shell row's
shellID (shell/<project>/<sh_id>.out), pi `fullOutputPath` (a pi-bash-<16 hex>.log temp file),
Cursor a shell result's `outputLocation.filePath` (its terminal capture, projects/<slug>/terminals/<n>.txt:
the whole terminal's log, so several calls run in one terminal show the same file).
Those paths were redacted at archive time like every path, and the collectors archive the files
at their own layout (pi's under `<session-id>.tmp/`), so a reference and an artifact are matched
by the part of the name both keep: `output_key`.

Codex and the DeepSeek harness keep no such spill files for a transcript's tool result (Codex
truncates in place). Cursor's JSONL mirror records no results, so only a store-read chat shows captures.
"""

from __future__ import annotations

import codecs
import re
from pathlib import Path
from typing import Iterator

from archiver.model import Artifact, Session
from archiver.render.model import Block, Transcript

MAX_OUTPUT_BYTES = 256 << 10  # per output shown; the rest is left out with a note
_CHUNK = 1 << 20

NOT_ARCHIVED = "full output not archived"
NOT_RESTORED = "full output is in the archive but could not be restored (see the export's integrity errors)"

_KEYS: dict[str, re.Pattern[str]] = {
    # the session folder in the key keeps two sessions' outputs of the same id apart
    "claude-code": re.compile(r"(?:^|/)([^/]+/tool-results/[^/]+)$"),
    "opencode": re.compile(r"(?:^|/)(?:tool-output/(tool_[^/]+)|(?:shell/[^/]+/)?(sh_[0-9A-Za-z]+)(?:\.out)?)$"),
    "pi": re.compile(r"(?:^|/)(pi-bash-[0-9a-f]{16}\.log)$"),
    # <n> restarts in every project folder: the slug keeps two projects' terminal 1 apart
    "cursor-agent": re.compile(r"(?:^|/)projects/([^/]+/terminals/[^/]+\.txt)$"),
}


def output_key(harness: str, path: str) -> str | None:
    """What names one output file, the same for a transcript's reference and an archived path."""
    rx = _KEYS.get(harness)
    m = rx.search(path.strip().replace("\\", "/")) if rx else None
    return next((g for g in m.groups() if g), None) if m else None


def referencing(t: Transcript) -> Iterator[Block]:
    """The tool results of `t` that name an output file (paired ones sit in their call)."""
    for e in t.entries:
        for b in e.blocks:
            res = b.result if b.kind == "tool_call" else b
            if res is not None and res.kind == "tool_result" and res.output_ref:
                yield res


def wanted(t: Transcript, session: Session, sessions: dict[str, Session]) -> dict[str, tuple[Session, Artifact]]:
    """key -> (owner, artifact) for the outputs `t` references that the archive holds. A subagent's
    outputs can sit in its parent's folder (Claude Code), so ancestors' artifacts count too."""
    keys = {k for b in referencing(t) if (k := output_key(session.harness, b.output_ref or ""))}
    found: dict[str, tuple[Session, Artifact]] = {}
    for owner in _self_and_ancestors(session, sessions):
        for a in owner.artifacts:
            k = output_key(session.harness, a.path) if a.role not in ("transcript", "database") else None
            if k in keys and k not in found:
                found[k] = (owner, a)
    return found


def _self_and_ancestors(session: Session, sessions: dict[str, Session]) -> list[Session]:
    out = [session]
    seen = {session.key}
    i = 0
    while i < len(out):
        for p in out[i].parents:
            if p.relation == "subagent" and p.parent in sessions and p.parent not in seen:
                seen.add(p.parent)
                out.append(sessions[p.parent])
        i += 1
    return out


def attach(t: Transcript, harness: str, archived: set[str], restored: dict[str, Path],
           cap: int = MAX_OUTPUT_BYTES) -> None:
    """Give each referencing tool result its output's text, or a note saying why not."""
    cache: dict[str, tuple[str | None, str | None]] = {}
    for b in referencing(t):
        k = output_key(harness, b.output_ref or "")
        if k is None or k not in archived:
            b.output_note = NOT_ARCHIVED
        elif k not in restored:
            b.output_note = NOT_RESTORED
        else:
            if k not in cache:
                cache[k] = read_output(restored[k], cap)
            b.full_output, b.output_note = cache[k]


def read_output(path: Path, cap: int = MAX_OUTPUT_BYTES) -> tuple[str | None, str | None]:
    """(text of the first `cap` bytes, note) for UTF-8 text; (None, note with the size) otherwise."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    head = bytearray()
    size = 0
    try:
        with path.open("rb") as f:
            while chunk := f.read(_CHUNK):
                size += len(chunk)
                if "\x00" in decoder.decode(chunk):
                    return None, _binary(path)
                if len(head) < cap:
                    head += chunk[:cap - len(head)]
        decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        return None, _binary(path)
    # the whole file is valid UTF-8: "ignore" only drops a character the cut went through
    shown = bytes(head).decode("utf-8", errors="ignore")
    left = size - len(shown.encode("utf-8"))
    note = f"{left} more bytes not shown (the full output is {size} bytes)" if left > 0 else None
    return shown, note


def _binary(path: Path) -> str:
    return f"full output is binary or not UTF-8 text ({path.stat().st_size} bytes), not shown"
