"""What the reader commands (ls, lineage, restore, verify, export, snapshots) share: the
archive opened read-only, the catalog as readers see it (every host's newest state, or as of
--at), identities, KEY resolution and the TIME forms of --at and --since. Hold, prune,
forget-session and rekey use the same helpers with `open_archive(settings, write=True)`."""

from __future__ import annotations

import argparse
import os
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any

from archiver.cli import IntegrityFailure, UsageError, err


# ---------------------------------------------------------------- archive, identities, catalog
def open_archive(settings, *, write: bool = False):  # type: ignore[no-untyped-def]
    """The configured archive. Readers (the default) hold it read-only: a store they cannot
    find stays absent, and nothing they do can write to one (archiver.store.ReadOnlyStore).
    `write`: hold, prune, forget-session and rekey, which change the archive."""
    from archiver import runtime
    from archiver.archive import Archive

    return Archive(runtime.store(settings, read_only=not write))


def add_identity(sp: argparse.ArgumentParser) -> None:
    sp.add_argument("--identity", help="age identity file (default $ARCHIVER_IDENTITY_FILE)")
    sp.add_argument("--identity-passphrase-file",
                    help="passphrase for a passphrase-protected identity (or $ARCHIVER_PASSPHRASE)")


def identities_of(args: argparse.Namespace) -> list[Any]:
    from archiver import runtime

    ident = getattr(args, "identity", None)
    pp = getattr(args, "identity_passphrase_file", None)
    return runtime.identities(Path(ident) if ident else None, Path(pp) if pp else None)


def catalog_of(args: argparse.Namespace, settings, host_id: str | None = None, archive=None):  # type: ignore[no-untyped-def]
    """The archive as readers see it: every host's newest states, or with --at, as they were then.
    `archive`: an archive the caller already opened and goes on using (one store client)."""
    from archiver.archive import load_catalog

    at = at_of(args)
    ids = identities_of(args)
    archive = archive if archive is not None else open_archive(settings)
    catalog = load_catalog(archive, ids, host_id, at=at, object_id_key=object_id_key_of(settings))
    if not catalog.manifests and not catalog.hosts_later and host_id is None:
        require_archive(archive, settings)
    hint = wrong_identity_hint(catalog.errors, len(catalog.manifests), args)
    if hint:
        catalog.errors.insert(0, hint)
    return catalog, ids


def require_archive(archive: Any, settings: Any) -> None:
    """A store with no snapshots is an archive nothing was synced to yet only if it holds the
    archive marker; without it the url (or its prefix) is wrong, which a reader must not
    answer with an empty, successful listing ("0 sessions", "verify: ok")."""
    from archiver.archive import MARKER_KEY
    from archiver.store.base import NotFound

    try:
        archive.store.get_bytes(MARKER_KEY, max_size=1 << 20)
    except NotFound:
        raise UsageError(f"no archive at {settings.store.url}: it holds neither {MARKER_KEY} nor snapshots/ "
                         "(is store.url, or its prefix, right?)") from None


def wrong_identity_hint(errors: list[str], manifests: int, args: argparse.Namespace) -> str | None:
    """One line saying what a reader sees when every manifest refuses its identity."""
    refused = sum("NoIdentityMatched" in e for e in errors)
    if not refused or refused < manifests:
        return None
    ident = getattr(args, "identity", None) or os.environ.get("ARCHIVER_IDENTITY_FILE") or "the identity"
    return (f"{ident} matches none of the {refused} manifest(s): not an identity this archive is encrypted to "
            "(the identity.txt written beside the collectors' recipient.txt, or a recovery identity)")


def object_id_key_of(settings: Any) -> bytes | None:
    """The team's object-id key (object ids and tombstones are keyed with it), or None: reviewers
    may not hold the team key."""
    from archiver import runtime
    from archiver.config import ConfigError

    try:
        return runtime.team_keys(settings).object_id
    except ConfigError:
        return None


# ---------------------------------------------------------------- time: --at, --since
AT_HELP = ("read the archive as it was at TIME: per host, the newest snapshot created at or before it "
           "(see `archiver snapshots`). TIME is ISO 8601 in UTC unless it names an offset "
           "(2026-11-30T12:00:00Z, 2026-11-30T13:00+01:00, 2026-11-30T12:00 is UTC), a date meaning the end "
           "of that day UTC (2026-11-30), or a duration ago (90m, 12h, 3d, 2w)")


def add_at(sp: argparse.ArgumentParser, help_: str = AT_HELP) -> None:
    sp.add_argument("--at", metavar="TIME", help=help_)


def at_of(args: argparse.Namespace) -> datetime | None:
    """--at as an aware UTC datetime, or None when not given."""
    text = getattr(args, "at", None)
    return None if text is None else parse_at(text)


def parse_at(text: str, now: datetime | None = None) -> datetime:
    """A point in time from the command line: a duration ago (prune's form: 90m, 12h, 3d), a
    date (the end of that day, UTC: everything archived that day counts), or an ISO 8601 time
    (naive means UTC, as every time the archive records and prints)."""
    from archiver.prune import parse_duration

    raw = text.strip()
    now = now or datetime.now(timezone.utc)
    try:
        try:
            return now - parse_duration(raw)
        except ValueError:
            pass
        try:
            return datetime.combine(date.fromisoformat(raw), datetime.max.time(), timezone.utc)
        except ValueError:
            pass
        when = datetime.fromisoformat(raw)
        return (when if when.tzinfo else when.replace(tzinfo=timezone.utc)).astimezone(timezone.utc)
    except (ValueError, OverflowError):
        raise UsageError(f"--at: cannot read {text!r} as a time: use ISO 8601 (2026-11-30T12:00:00Z), "
                         "a date (2026-11-30, its end in UTC) or a duration ago (90m, 12h, 3d)") from None


def parse_since(text: str, now: datetime | None = None) -> datetime:
    """--since: the forms of --at, except that a date alone is the start of that day (UTC)."""
    try:
        return datetime.combine(date.fromisoformat(text.strip()), datetime.min.time(), timezone.utc)
    except ValueError:
        pass
    try:
        return parse_at(text, now)
    except UsageError:
        raise UsageError(f"--since: cannot read {text!r} as a time: use ISO 8601 (2026-11-30T12:00:00Z), "
                         "a date (2026-11-30, its start in UTC) or a duration ago (90m, 12h, 3d)") from None


# ---------------------------------------------------------------- keys and messages
def resolve_key(catalog: Any, key: str, *, many: bool = False) -> list[str]:
    """The catalog keys a KEY from the command line names: the key itself; a host-level key
    (`claude-code:@host`) names each host's (`many`: all of them, else it must be one); else a
    unique prefix of a key, or of a session id given without its harness (`6513270e`). A key
    that names nothing while manifests could not be read is an integrity failure: the session
    may be in one of them."""
    sessions = catalog.sessions
    if key in sessions:
        return [key]
    exact = sorted(k for k, s in sessions.items() if s.key == key)
    if len(exact) == 1 or (exact and many):
        return exact
    if exact:
        raise UsageError(f"{key!r} names {len(exact)} host-level sessions, one per host; use one of: {', '.join(exact)}")
    cands = sorted(k for k, s in sessions.items()
                   if key and (k.startswith(key) or (":" not in key and s.session_id.startswith(key))))
    if len(cands) == 1:
        return cands
    if cands:
        shown = ", ".join(cands[:8]) + (f", ... ({len(cands) - 8} more)" if len(cands) > 8 else "")
        raise UsageError(f"{key!r} is ambiguous: it begins {len(cands)} sessions{as_of(catalog)}: {shown}; "
                         "give more of the id")
    if catalog.errors:
        for e in catalog.errors:
            err(e)
        raise IntegrityFailure(f"no session {key!r} in the readable manifests{as_of(catalog)}; "
                               f"{len(catalog.errors)} problem(s) reading the archive (above)")
    raise UsageError(f"no session {key!r} in the archive{as_of(catalog)}")


def as_of(catalog: Any) -> str:
    """' as of <time>' for messages about a catalog read with --at, else ''."""
    return f" as of {iso_utc(catalog.at)}" if catalog.at is not None else ""


def iso_utc(when: datetime) -> str:
    """archive.iso_utc, imported when first needed (registering the commands imports this module)."""
    from archiver import archive

    return archive.iso_utc(when)
