"""`archiver snapshots`: each host's manifests (time, sessions, bytes), so a reviewer can pick
a time for `--at` on ls, lineage, restore and export. Argument parsing and output only."""

from __future__ import annotations

import argparse
from typing import Any

from archiver.cli import EXIT_INTEGRITY, EXIT_OK, console, emit_json, err, plain, settings_of
from archiver.commands.reading import add_at, add_identity, as_of, catalog_of, iso_utc
from archiver.commands import add_command


def cmd_snapshots(args: argparse.Namespace) -> int:
    settings = settings_of(args)
    catalog, _ = catalog_of(args, settings, host_id=args.host)
    rows = sorted(catalog.snapshots, key=lambda s: (s.host_id, s.created_at, s.key))
    if args.json:
        emit_json({"snapshots": [r.to_json() for r in rows], "at": iso_utc(catalog.at) if catalog.at else None,
                   "errors": catalog.errors, "notes": catalog.notes})
    else:
        from rich.table import Table

        hosts = len({r.host_id for r in rows})
        t = Table(title=f"{len(rows)} snapshots of {hosts} hosts{as_of(catalog)}")
        for col in ("host", "created (UTC)", "sessions", "bytes"):
            t.add_column(col)
        for r in rows:
            t.add_row(plain(r.host_id), plain(r.created_at), str(r.sessions), str(r.bytes))
        console().print(t)
        for n in catalog.notes:
            err(f"note: {n}")
        for e in catalog.errors:
            err(e)
    return EXIT_INTEGRITY if catalog.errors else EXIT_OK


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    sp = add_command(sub, common, "snapshots", cmd_snapshots, "each host's snapshots (manifests): when, how many sessions, how many bytes; pick a time for --at")
    sp.add_argument("--host", help="only this host id")
    add_identity(sp)
    add_at(sp, "only snapshots created at or before TIME (the forms of ls --at: 2026-11-30T12:00:00Z, "
               "2026-11-30, 3d)")
