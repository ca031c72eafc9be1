"""Reading restored JSONL transcripts: one dict per parseable line, bad lines counted."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any, Callable, Iterator

import orjson
import zstandard

from archiver.harnesses.jsonl_probe import BOM
from archiver.model import Artifact, Session
from archiver.render.model import Transcript
from archiver.snapshot import ZSTD_MAGIC

MAX_LINE = 64 << 20


def records(path: Path, bad: list[int] | None = None) -> Iterator[dict[str, Any]]:
    """Dicts from a JSONL file (restore recompresses `jsonl.zst` artifacts: read through)."""
    with path.open("rb") as raw:
        f: Any = raw
        if raw.read(4) == ZSTD_MAGIC:
            raw.seek(0)
            f = io.BufferedReader(zstandard.ZstdDecompressor().stream_reader(raw, read_across_frames=True))  # type: ignore[arg-type]
        else:
            raw.seek(0)
        for n, line in enumerate(f, 1):
            if n == 1 and line.startswith(BOM):
                line = line[3:]
            if not line.strip() or len(line) > MAX_LINE:
                continue
            try:
                rec = orjson.loads(line)
            except orjson.JSONDecodeError:
                if bad is not None:
                    bad.append(n)
                continue
            if isinstance(rec, dict):
                yield rec


def transcript_files(session: Session, files: dict[str, Path], fmt: tuple[str, ...] = ("jsonl", "jsonl.zst")) -> list[tuple[Artifact, Path]]:
    """The session's own transcript artifacts that were restored, in manifest order."""
    out = []
    for a in session.artifacts:
        if a.role == "transcript" and a.format in fmt and a.path in files:
            out.append((a, files[a.path]))
    return out


def read_transcript(session: Session, files: dict[str, Path], render: Callable[[Transcript, list[dict[str, Any]]], None],
                    *, fmt: tuple[str, ...] = ("jsonl",), what: str = "transcript file", skipped: str = "skipped") -> Transcript:
    """A JSONL harness's transcript: each restored transcript file's records through `render`,
    with notes for a session that has none and for lines that do not parse."""
    t = Transcript(session.key, session.harness)
    found = transcript_files(session, files, fmt)
    if not found:
        t.notes.append(f"no {what} in this session's archived state")
        return t
    for _art, path in found:
        bad: list[int] = []
        recs = list(records(path, bad))
        if bad:
            t.notes.append(f"{len(bad)} unparseable line(s) {skipped}")
        render(t, recs)
    return t
