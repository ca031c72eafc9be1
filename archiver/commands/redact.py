"""`archiver redact`: one file through the configured rules, the redacted bytes to stdout and
the counts per rule to stderr (with --json one document holding both). Argument parsing and output only (the rules are archiver.redact)."""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import sys
from pathlib import Path
from typing import Any, Iterator

from archiver.cli import EXIT_OK, UsageError, emit_json, err, settings_of
from archiver.commands import add_command


def cmd_redact(args: argparse.Namespace) -> int:
    import shutil
    import tempfile

    from archiver import runtime
    from archiver.redact.base import RedactionReport

    settings = settings_of(args)
    keys = runtime.team_keys(settings)
    redactor = runtime.redactor(settings, keys)
    src = Path(args.file)
    if not src.is_file():
        raise UsageError(f"{src}: not a file")
    fmt = args.format or guess_format(src)
    report = RedactionReport()
    with tempfile.TemporaryDirectory(prefix="archiver-redact-") as tmp:
        os.chmod(tmp, 0o700)
        out = Path(tmp) / "out"
        with unreadable_as(src, fmt):
            redactor.redact_file(src, out, fmt, report)  # type: ignore[arg-type]
        counts = report.by_rule()
        if args.json:  # one document: the output as text, or as base64 when it is no UTF-8 (SQLite, binary)
            emit_json(_json_document(src, fmt, counts, out.read_bytes()))
            return EXIT_OK
        with out.open("rb") as f:
            shutil.copyfileobj(f, sys.stdout.buffer)
    sys.stdout.flush()
    if counts:
        err("redactions: " + ", ".join(f"{k}={v}" for k, v in counts.items()))
    return EXIT_OK


def _json_document(src: Path, fmt: str, counts: dict[str, int], output: bytes) -> dict[str, object]:
    """`redact --json`: {file, format, redactions, output, output_base64}; exactly one of the
    two outputs is set."""
    import base64

    try:
        text: str | None = output.decode("utf-8")
    except UnicodeDecodeError:
        text = None
    return {"file": str(src), "format": fmt, "redactions": counts, "output": text,
            "output_base64": None if text is not None else base64.b64encode(output).decode("ascii")}


@contextlib.contextmanager
def unreadable_as(src: Path, fmt: str) -> Iterator[None]:
    """A FILE the chosen walker cannot read (not SQLite after all, a broken git object, a read
    error) exits 2 with one line naming it and why; the reason is the library's or the OS's,
    which hold no content of the file."""
    import sqlite3

    from archiver.redact.walkers.gitobject import Malformed
    from archiver.redact.walkers.sqlite import SqliteRedactionError

    try:
        yield
    except (sqlite3.Error, SqliteRedactionError, Malformed, OSError) as e:
        cause = e.__cause__ if isinstance(e.__cause__, sqlite3.Error) else e
        reason = (cause.strerror or type(cause).__name__) if isinstance(cause, OSError) else str(cause)
        raise UsageError(f"{src}: cannot read it as {fmt}: {reason}") from None


def guess_format(p: Path) -> str:
    """A file's format from its name, else its first bytes (also `rules test`'s guess)."""
    name = p.name.lower()
    if name.endswith(".jsonl"):
        return "jsonl"
    if name.endswith(".json"):
        return "json"
    with p.open("rb") as f:
        head = f.read(16)
    if head.startswith(b"SQLite format 3\x00"):
        return "sqlite"
    if head[:8] in (b"PACK\x00\x00\x00\x02", b"PACK\x00\x00\x00\x03"):  # git pack, versions 2 and 3
        return "git-pack"
    if _LOOSE_OBJECT.search(p.as_posix()) and _zlib_header(head):
        return "git-object"
    return "text"


# objects/<2 hex>/<38 or 62 hex>: git's loose object names (SHA-1, SHA-256)
_LOOSE_OBJECT = re.compile(r"(?:^|/)objects/[0-9a-f]{2}/(?:[0-9a-f]{38}|[0-9a-f]{62})$")


def _zlib_header(head: bytes) -> bool:
    """A zlib stream's first two bytes (deflate, window <= 32K, check bits)."""
    return len(head) >= 2 and head[0] & 0x0F == 8 and head[0] >> 4 <= 7 and (head[0] << 8 | head[1]) % 31 == 0


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    sp = add_command(sub, common, "redact", cmd_redact, "redact one file to stdout with the configured rules")
    sp.add_argument("file")
    sp.add_argument("--format", choices=["jsonl", "json", "text", "sqlite", "git-object", "git-pack", "binary"])
