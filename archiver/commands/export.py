"""`archiver export`: a readable transcript (HTML or Markdown) of an archived session and its
subagents (or its whole family), as of --at. Argument parsing and output only."""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from archiver.cli import EXIT_INTEGRITY, EXIT_OK, UsageError, console, emit_json, err, plain, settings_of
from archiver.commands.reading import add_at, add_identity, catalog_of, iso_utc, open_archive, resolve_key
from archiver.commands import add_command


def cmd_export(args: argparse.Namespace) -> int:
    from archiver.lineage import Lineage
    from archiver.render import export

    out = Path(args.out) if args.out else None
    if out is not None and (out.is_dir() or not out.parent.is_dir()):
        # checked before the archive is read; the temp file goes beside `out`, never elsewhere
        raise UsageError(f"--out {args.out}: " + ("is a directory; name a file" if out.is_dir()
                                                  else "its folder is not a directory" if out.parent.exists()
                                                  else "its folder does not exist"))
    settings = settings_of(args)
    archive = open_archive(settings)
    catalog, ids = catalog_of(args, settings, archive=archive)
    key = resolve_key(catalog, args.key)[0]
    result = export(archive, ids, catalog.sessions, key, fmt=args.format, with_family=args.with_family)
    if out is not None:
        _write_private(out, result.document)
    shown = Lineage(catalog.sessions).export_json(result.sessions)
    doc = {"out": str(out) if out else None, "format": args.format, **shown, "entries": result.entries,
           "bytes": len(result.document.encode()), "integrity_errors": result.integrity_errors,
           "warnings": result.warnings, "errors": catalog.errors}
    if catalog.at is not None:
        doc["at"] = iso_utc(catalog.at)
    if args.json:
        if out is None:
            doc["document"] = result.document
        emit_json(doc)
    elif out is None:
        sys.stdout.write(result.document)
    elif not args.quiet:
        console().print(plain(f"wrote {out} ({_sessions_count(shown)}, {result.entries} entries)"))
    if not args.json:
        for e in result.integrity_errors:
            err(f"integrity: {e}")
        for w in result.warnings:
            err(f"warning: {w}")
        for e in catalog.errors:  # an unreadable manifest: the export may show an older state
            err(e)
    return EXIT_INTEGRITY if result.integrity_errors or catalog.errors else EXIT_OK


def _sessions_count(shown: dict[str, Any]) -> str:
    """The sessions shown, e.g. `3 session(s)`, and the host-level sessions they use (a line each
    in the document, Session.uses), e.g. `3 session(s), using 1 host-level session`."""
    used = {(u["uses"], u["host_id"]) for u in shown["uses"]}
    text = f"{len(shown['sessions'])} session(s)"
    if used:
        text += f", using {len(used)} host-level session" + ("s" if len(used) > 1 else "")
    return text


def _write_private(out: Path, text: str) -> None:
    """`text` into `out` (0600) through a temp file beside it; an OSError exits 2 naming the file."""
    fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".tmp", dir=out.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, out)
    except OSError as e:
        Path(tmp).unlink(missing_ok=True)
        raise UsageError(f"--out {out}: cannot write it ({e.strerror or type(e).__name__})") from None


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    sp = add_command(sub, common, "export", cmd_export, "a readable transcript (HTML or Markdown) of an archived session and its subagents")
    sp.add_argument("key")
    sp.add_argument("--format", choices=["html", "md"], default="html")
    sp.add_argument("--out", help="file to write (default: stdout)")
    sp.add_argument("--with-family", action="store_true", help="include the whole lineage family, not just subagents")
    add_identity(sp)
    add_at(sp)
