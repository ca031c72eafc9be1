"""`archiver verify`: every manifest decrypts and parses, every object it names exists, every
tombstone is well-formed and no session it erased came back; with --read-data (or a
--read-data-subset) objects are downloaded and their content checked.
Argument parsing and output only (the checks are archiver.verify)."""

from __future__ import annotations

import argparse
from typing import Any

from archiver.cli import EXIT_INTEGRITY, EXIT_OK, UsageError, console, emit_json, err, settings_of
from archiver.commands import add_command
from archiver.commands.reading import (add_at, add_identity, at_of, identities_of, iso_utc, object_id_key_of,
                                       open_archive, require_archive, wrong_identity_hint)

AT_HELP = ("verify the archive as it was at TIME: only the manifests created at or before it (those restore --at "
           "TIME reads) and the objects they name; the forms of ls --at (2026-11-30T12:00:00Z, 2026-11-30, 3d)")


def cmd_verify(args: argparse.Namespace) -> int:
    from archiver.verify import verify

    at = at_of(args)  # a TIME that does not read exits 2 before the store is read
    settings = settings_of(args)
    ids = identities_of(args)
    subset = 1.0
    if args.read_data_subset:
        text = args.read_data_subset.strip()
        try:
            subset = float(text[:-1]) / 100 if text.endswith("%") else float(text)
        except ValueError:
            raise UsageError(f"--read-data-subset: not a fraction or percentage: {text!r}") from None
        if not 0 < subset <= 1:
            raise UsageError("--read-data-subset must be in (0, 100%]")
    object_key = object_id_key_of(settings)  # without it, content is checked by sha256 only
    from archiver.progress import CountProgress

    archive = open_archive(settings)
    with CountProgress("verify", quiet=args.quiet, json_output=args.json,
                       json_logs=getattr(args, "log_format", "auto") == "json") as bar:
        result = verify(archive, ids, read_data=bool(args.read_data or args.read_data_subset),
                        subset=subset, object_id_key=object_key, progress=bar, at=at)
    if not result.manifests and not result.errors and not result.later:
        require_archive(archive, settings)  # "ok" about a store that holds no archive would mislead
    hint = wrong_identity_hint(result.errors, result.manifests + sum(".json.age: " in e for e in result.errors), args)
    if hint:
        result.errors.insert(0, hint)
    when = f" as of {iso_utc(at)}" if at is not None else ""
    if args.json:
        doc = result.to_json()
        if at is not None:
            doc["at"] = iso_utc(at)
            doc["manifests_later"] = result.later
        emit_json(doc)
    else:
        c = console()
        tombs = f", {result.tombstones} tombstones" if result.tombstones else ""
        c.print(f"{result.manifests} manifests, {result.objects} objects, {result.objects_read} read{tombs}{when}: "
                + ("ok" if not result.errors else f"{len(result.errors)} problems"))
        if at is not None and result.later:
            err(f"note: {result.later} manifest(s) created after {iso_utc(at)} not checked")
        for n in result.notes:
            err(f"note: {n}")
        for e in result.errors:
            err(e)
    return EXIT_INTEGRITY if result.errors else EXIT_OK


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    sp = add_command(sub, common, "verify", cmd_verify, "check manifests, objects and tombstones (--read-data downloads and checks content)")
    add_identity(sp)
    sp.add_argument("--read-data", action="store_true")
    sp.add_argument("--read-data-subset", help="e.g. 5%% or 0.05")
    add_at(sp, AT_HELP)
