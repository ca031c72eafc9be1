"""`archiver scan`: what a sync would archive (sessions, their files and lineage), from the
local harness folders only; nothing is read from the store. Argument parsing and output only."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from archiver.cli import EXIT_OK, EXIT_PARTIAL, console, emit_json, err, plain, settings_of
from archiver.commands import add_command


def cmd_scan(args: argparse.Namespace) -> int:
    from archiver import runtime
    from archiver.commands.ls import check_harnesses

    check_harnesses(args.harness)  # a misspelt --harness is an error, not "0 sessions"
    settings = settings_of(args)
    sessions = []
    errors = []
    for h in runtime.harnesses(settings, args.harness):
        try:
            sessions.extend(h.discover())
        except Exception as e:
            errors.append(f"{h.name}: {type(e).__name__}: {e}")
    doc = {
        "sessions": [
            {
                "key": s.key, "kind": s.kind, "title": s.title,
                "parents": [p.model_dump() for p in s.parents],
                "uses": list(s.uses),  # host-level sessions it needs (not lineage: FORMAT.md, Session.uses)
                "artifacts": [{"path": a.path, "role": a.role, "format": a.format, "mode": a.mode,
                               "size": _size(a.source)} for a in s.sources],
                "warnings": s.warnings,
            }
            for s in sessions
        ],
        "errors": errors,
    }
    if args.json:
        emit_json(doc)
    else:
        from rich.table import Table

        t = Table(title=f"{len(sessions)} sessions would be archived")
        for col in ("key", "kind", "files", "bytes", "parents"):
            t.add_column(col)
        for s in doc["sessions"]:
            t.add_row(plain(s["key"]), s["kind"], str(len(s["artifacts"])), str(sum(a["size"] for a in s["artifacts"])),
                      plain(", ".join(f"{p['relation']}→{p['parent']}" for p in s["parents"])))
        console().print(t)
        for e in errors:
            err(e)
    return EXIT_PARTIAL if errors else EXIT_OK


def _size(p: Path) -> int:
    try:
        return p.stat().st_size
    except OSError:
        return 0


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    sp = add_command(sub, common, "scan", cmd_scan, "what would be archived, with lineage; reads nothing remote")
    sp.add_argument("--harness", action="append")
