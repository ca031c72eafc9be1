"""`archiver ls`: the sessions in the archive (each one's latest state, or as of --at),
filtered by harness, host, title and --since. Argument parsing and output only."""

from __future__ import annotations

import argparse
from datetime import datetime
from typing import Any

from archiver.cli import EXIT_INTEGRITY, EXIT_OK, UsageError, console, emit_json, err, plain, settings_of
from archiver.commands import add_command
from archiver.commands.reading import add_at, add_identity, as_of, catalog_of, iso_utc, parse_since


def check_harnesses(names: list[str] | None) -> None:
    from archiver.harnesses.base import MODULES

    for name in names or ():
        if name not in MODULES:
            raise UsageError(f"--harness: unknown harness {name!r}; known: {', '.join(MODULES)}")


def _session_time(s: Any) -> datetime | None:
    """When a session last changed: updated_at, else created_at, else when it was archived."""
    from archiver.archive import parse_utc

    for value in (s.updated_at, s.created_at, s.archived_at):
        if value:
            try:
                return parse_utc(value)
            except ValueError:
                continue
    return None


def _filter_sessions(sessions: list, args: argparse.Namespace) -> list:  # type: ignore[type-arg]
    since = parse_since(args.since) if getattr(args, "since", None) else None
    title = args.title.casefold() if getattr(args, "title", None) else None
    out = []
    for s in sessions:
        if getattr(args, "harness", None) and s.harness not in args.harness:
            continue
        if getattr(args, "host", None) and s.host_id != args.host:
            continue
        if title is not None and title not in (s.title or "").casefold():
            continue
        if since is not None:
            when = _session_time(s)
            if when is None or when < since:
                continue
        out.append(s)
    return out


def cmd_ls(args: argparse.Namespace) -> int:
    check_harnesses(args.harness)
    if args.since:
        parse_since(args.since)  # a TIME that does not read exits 2 before the store is read
    settings = settings_of(args)
    # --host reads only that host's manifests: another host's later copy of a session with the
    # same key must not hide this host's
    catalog, _ = catalog_of(args, settings, host_id=args.host)
    if args.host and not catalog.manifests and not catalog.hosts_later:
        catalog.notes.append(f"no snapshots of host {args.host!r} (`archiver snapshots` lists the hosts)")
    sessions = _filter_sessions(sorted(catalog.sessions.values(), key=lambda s: s.key), args)
    later = [{"host_id": h, "first_snapshot": first} for h, first in sorted(catalog.hosts_later.items())]
    if args.json:
        emit_json({"sessions": [s.model_dump() for s in sessions], "errors": catalog.errors,
                   "at": iso_utc(catalog.at) if catalog.at else None, "hosts_without_state": later,
                   "notes": catalog.notes})
    else:
        from rich.table import Table

        t = Table(title=f"{len(sessions)} sessions in {len(catalog.manifests)} snapshots{as_of(catalog)}")
        for col in ("key", "kind", "title", "updated", "files", "bytes", "host"):
            t.add_column(col)
        for s in sessions:
            t.add_row(plain(s.key), s.kind, plain(s.title or ""), plain((s.updated_at or "")[:19]),
                      str(len(s.artifacts)), str(sum(a.size for a in s.artifacts)), plain(s.host_id or ""))
        console().print(t)
        for h in later:
            err(f"note: host {h['host_id']} contributes nothing{as_of(catalog)}: its first snapshot is "
                f"from {h['first_snapshot']}")
        for n in catalog.notes:
            err(f"note: {n}")
        for e in catalog.errors:
            err(e)
    return EXIT_INTEGRITY if catalog.errors else EXIT_OK


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    sp = add_command(sub, common, "ls", cmd_ls, "sessions in the archive (latest state per session, or as of --at)")
    add_identity(sp)
    add_at(sp)
    sp.add_argument("--harness", action="append")
    sp.add_argument("--since", help="ISO date/time: sessions updated since")
    sp.add_argument("--host", help="host id")
    sp.add_argument("--title", help="substring of the (redacted) title")
