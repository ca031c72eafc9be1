"""`archiver restore`: sessions (by KEY, with their family, or --all) written into a folder
laid out like a HOME, as of --at. Argument parsing and output only."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from archiver.cli import EXIT_INTEGRITY, EXIT_OK, UsageError, console, emit_json, err, plain, settings_of
from archiver.commands.reading import add_at, add_identity, as_of, catalog_of, iso_utc, open_archive, resolve_key
from archiver.commands import add_command


def cmd_restore(args: argparse.Namespace) -> int:
    from archiver.lineage import Lineage
    from archiver.relocate import Relocation, RelocationError, Relocator
    from archiver.restore import Restorer

    if not args.keys and not args.all:
        raise UsageError("restore needs KEY... or --all")
    try:
        relocator = Relocator([Relocation.parse(spec) for spec in args.relocate or ()])
    except RelocationError as e:
        raise UsageError(str(e)) from None
    target = Path(args.to)
    if target.exists() and not target.is_dir():
        raise UsageError(f"--to {args.to}: exists and is not a directory")
    settings = settings_of(args)
    archive = open_archive(settings)
    # --host reads only that host's manifests (see cmd_ls)
    catalog, ids = catalog_of(args, settings, host_id=args.host, archive=archive)
    lin = Lineage(catalog.sessions)
    if args.all:
        wanted = set(catalog.sessions)
    else:
        wanted = set()
        for key in args.keys:
            for k in resolve_key(catalog, key, many=True):
                wanted |= lin.family(k) if args.with_family else {k}
    chosen = [k for k in sorted(wanted) if k in catalog.sessions
              and (not args.host or catalog.sessions[k].host_id == args.host)]
    sessions = [catalog.sessions[k] for k in chosen]
    harnesses = _restore_hooks(settings)
    try:
        target.mkdir(parents=True, exist_ok=True)
    except OSError as e:  # a file's own errors are in the result; the target itself must exist
        raise UsageError(f"--to {args.to}: {e.strerror or type(e).__name__}") from None
    result = Restorer(archive, ids, harnesses, overwrite=args.overwrite, relocator=relocator).restore(sessions, target)
    result.warnings.extend(_uses_left_out(lin, chosen))
    if args.json:
        doc = result.to_json()
        if catalog.at is not None:
            doc["at"] = iso_utc(catalog.at)
        doc["errors"] = catalog.errors
        emit_json(doc)
    else:
        c = console()
        c.print(plain(f"restored {len(result.sessions)} sessions, {len(result.files)} files into {args.to}"
                      f"{as_of(catalog)}"))
        for r in result.refused:
            err(f"refused: {r}")
        for e in result.integrity_errors:
            err(f"integrity: {e}")
        for w in result.warnings:
            err(f"warning: {w}")
        for e in catalog.errors:  # an unreadable manifest: what was restored may be an older state
            err(e)
    if result.integrity_errors or result.refused or catalog.errors:
        return EXIT_INTEGRITY
    return EXIT_OK


def _uses_left_out(lin: Any, chosen: list[str]) -> list[str]:
    """A warning for each host-level session a restored session uses (Session.uses) that this
    restore did not bring: left out (no --with-family, or --host another host) or in no manifest read."""
    from archiver.lineage import used_host_purpose

    out: list[str] = []
    restored = set(chosen)
    for k in chosen:
        for used in lin.used(k):
            if used in restored:
                continue
            session = lin.sessions[k]
            purpose = used_host_purpose(session.harness)
            if used in lin.sessions:
                out.append(f"{session.key}: restored alone, without {lin.sessions[used].key}, {purpose}; "
                           "restore it --with-family")
            else:
                out.append(f"{session.key}: uses {used}, {purpose}, which no manifest read holds (never archived "
                           "or on another machine): restored without it")
    return out


def _restore_hooks(settings: Any) -> dict[str, Any]:
    """Every harness's collector, for its restore hooks (Codex merging its state_5 and
    session_index extracts, OpenCode its database extracts): what a restore writes must not
    depend on which harnesses this machine's config collects. Enabled ones keep their config."""
    from archiver import runtime
    from archiver.harnesses.base import HarnessContext, available_harnesses, load_harness

    out = {h.name: h for h in runtime.harnesses(settings)}
    for name in available_harnesses():
        if name not in out:
            out[name] = load_harness(name, HarnessContext(home=settings.home_dir))
    return out


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    sp = add_command(sub, common, "restore", cmd_restore, "restore sessions into DIR laid out like a HOME")
    sp.add_argument("keys", nargs="*")
    sp.add_argument("--all", action="store_true")
    sp.add_argument("--to", required=True)
    add_identity(sp)
    add_at(sp)
    sp.add_argument("--with-family", action="store_true")
    sp.add_argument("--relocate", action="append", metavar="OLD=NEW",
                    help="restore sessions whose project was at OLD (the archived, redacted path that `ls "
                         "--json` shows as cwd) as if it were at NEW: folder names derived from it or from a "
                         "cwd the session moved to below it (Claude Code's projects/<key>, pi's "
                         "sessions/--<cwd>--, Cursor's chats/<md5>, OpenCode's snapshot/<project>/<sha1>) and "
                         "the paths inside transcripts and databases; repeatable, the longest OLD wins. On "
                         "every restore, relocated or not, paths naming another restored file name it under "
                         "--to: pi's parentSession and fullOutputPath, Claude Code's persistedOutputPath, "
                         "<persisted-output> preview, Agent outputFile and sessions-index fullPath, "
                         "OpenCode's metadata.outputPath, a DeepSeek parentSession path, Codex's saved_path/savedPath")
    sp.add_argument("--overwrite", action="store_true",
                    help="replace files of the target that hold other content (default: refuse and report them)")
    sp.add_argument("--host", help="only sessions last archived by this host id (hosts share paths such as "
                                   ".claude/history.jsonl: restore one host at a time)")
