"""Compliance and key commands: bucket init, hold/release, prune, forget-session, rekey,
recovery-key. Argument parsing and output only. (The reader commands have a module each:
ls, lineage, restore, verify, export, snapshots.)"""

from __future__ import annotations

import argparse
import functools
from pathlib import Path
from typing import Any

from archiver.cli import EXIT_INTEGRITY, EXIT_OK, EXIT_PARTIAL, UsageError, console, emit_json, err, settings_of
from archiver.commands import add_command
from archiver.commands.reading import add_identity, identities_of, object_id_key_of, open_archive


# ---------------------------------------------------------------- shared
def _opt_path(p: str | None) -> Path | None:
    return Path(p) if p else None


def _grace(text: str) -> Any:
    from archiver.prune import parse_duration

    try:
        return parse_duration(text)
    except ValueError as e:
        raise UsageError(f"--grace: {e}") from None


# ---------------------------------------------------------------- bucket init
def cmd_bucket_init(args: argparse.Namespace) -> int:
    from archiver import runtime
    from archiver.bucket import BucketError, BucketPlan, init_bucket

    settings = settings_of(args)
    if not settings.store.url.startswith("s3://"):
        # before the store is built: building a file:// store creates its folder
        raise UsageError("bucket init needs an s3:// store (store.url)")
    store = runtime.store(settings)
    try:
        client, bucket, prefix = store.client, store.bucket, store.prefix  # type: ignore[attr-defined]
    except AttributeError:
        raise UsageError("bucket init needs an s3:// store (store.url)") from None
    s = settings.store
    if (s.object_lock_mode or s.object_lock_days) and not args.object_lock:
        err("warning: store.object_lock_mode/days are set; uploads need a bucket with Object Lock (--object-lock)")
    plan = BucketPlan(
        bucket=bucket, prefix=prefix, region=s.region, object_lock=args.object_lock,
        lock_mode=s.object_lock_mode if args.default_retention else None,
        lock_days=s.object_lock_days if args.default_retention else None,
        sse=s.sse or "AES256", kms_key_id=s.kms_key_id,
        transition_days=args.transition_days or None, transition_class=args.storage_class,
        abort_multipart_days=args.abort_multipart_days, noncurrent_days=args.noncurrent_days or None,
    )
    try:
        result = init_bucket(client, plan)
    except BucketError as e:
        err(str(e))
        return EXIT_PARTIAL
    if args.json:
        emit_json(result.to_json())
    else:
        c = console()
        if not result.changes:
            c.print(f"bucket {bucket}: already set up; nothing changed")
        for ch in result.changes:
            c.print(f"bucket {bucket}: {ch['setting']}: {ch['action']}")
    return EXIT_OK


# ---------------------------------------------------------------- hold / release
def cmd_hold(args: argparse.Namespace) -> int:
    from archiver.retention import SessionNotFound, set_hold

    on = args.command == "hold"
    settings = settings_of(args)
    try:
        result = set_hold(open_archive(settings, write=True), identities_of(args), args.key, on, host_id=args.host)
    except SessionNotFound:
        raise UsageError(f"no session {args.key!r} in the archive ({args.command} takes the whole key, as ls prints it)") from None
    if args.json:
        emit_json(result.to_json())
    else:
        c = console()
        state = "set" if on else "cleared"
        c.print(f"legal hold {state} on {len(result.objects)} objects and {len(result.manifests)} manifests of {args.key}")
        for e in result.errors:
            err(e)
    return EXIT_PARTIAL if result.errors else EXIT_OK


# ---------------------------------------------------------------- prune
def cmd_prune(args: argparse.Namespace) -> int:
    from archiver.prune import KeepPolicy, prune

    policy = KeepPolicy(last=args.keep_last, hourly=args.keep_hourly, daily=args.keep_daily, weekly=args.keep_weekly,
                        monthly=args.keep_monthly, yearly=args.keep_yearly)
    if policy.empty():
        raise UsageError("prune needs a policy: at least one of --keep-last/--keep-hourly/--keep-daily/"
                         "--keep-weekly/--keep-monthly/--keep-yearly")
    for name, v in policy.to_json().items():
        if v < -1:
            raise UsageError(f"--keep-{name}: must be a count, or -1 for unlimited")
    settings = settings_of(args)
    grace = _grace(args.grace)
    from archiver.archive import REFRESH_AFTER

    if grace < 2 * REFRESH_AFTER and not args.dry_run:
        # a sync that names an old object writes it anew first; under this grace, a sync running
        # now might still name an object deleted here (docs/FORMAT.md §9)
        err(f"warning: --grace {args.grace} is under {2 * REFRESH_AFTER}: objects a sync running now is about "
            "to name may be deleted; run prune while no sync runs, or keep the default 6h")
    result = prune(open_archive(settings, write=True), identities_of(args), policy, grace=grace, dry_run=args.dry_run)
    if args.json:
        emit_json(result.to_json())
    else:
        c = console()
        verb = "would remove" if args.dry_run else "removed"
        c.print(f"manifests: {len(result.manifests_kept)} kept, {len(result.manifests_removed)} {verb}")
        c.print(f"objects: {result.objects_total} total, {result.objects_referenced} referenced, "
                f"{len(result.objects_removed)} {verb} ({result.bytes_removed} bytes)")
        if result.recent:
            c.print(f"{len(result.recent)} unreferenced objects are newer than the grace period; kept")
        for x in result.locked:
            c.print(f"kept (locked): {x}")
        for e in result.errors:
            err(e)
    if any("cannot be read" in e for e in result.errors):
        return EXIT_INTEGRITY
    return EXIT_PARTIAL if result.errors else EXIT_OK


# ---------------------------------------------------------------- forget-session
def cmd_forget_session(args: argparse.Namespace) -> int:
    from archiver import runtime
    from archiver.retention import SessionNotFound, forget_session

    settings = settings_of(args)
    recipients = runtime.recipients(settings)
    object_id_key = object_id_key_of(settings)  # None is reported by forget_session: no tombstone can be written
    archive, identities, grace = open_archive(settings, write=True), identities_of(args), _grace(args.grace)
    try:
        result = forget_session(archive, identities, recipients, args.key,
                                grace=grace, dry_run=args.dry_run, object_id_key=object_id_key)
    except SessionNotFound:
        result = _finish_erasure(archive, identities, args.key, object_id_key, grace, args.dry_run)
        if result is None:
            raise UsageError(f"no session {args.key!r} in the archive ({args.command} takes the whole key, "
                             "as ls prints it)") from None
    doc = result.to_json()
    if args.json:
        emit_json(doc)
    else:
        c = console()
        objs = doc["objects"]
        assert isinstance(objs, dict)
        c.print(f"{args.key}: {len(result.manifests_rewritten)} manifests rewritten without it, "
                f"{len(objs['removed'])} objects deleted")
        for x in result.manifests_locked:
            c.print(f"could not rewrite (locked): {x}")
        for x in objs["locked"]:
            c.print(f"could not delete (locked): {x}")
        if objs["recent"]:
            c.print(f"{len(objs['recent'])} objects are newer than the grace period; kept (run again later, or --grace 0)")
        for e in doc["errors"]:  # type: ignore[union-attr]
            err(e)
        c.print("erasure complete" if result.complete else "erasure INCOMPLETE: see above")
    if any("cannot be read" in e for e in result.errors):
        return EXIT_INTEGRITY
    return EXIT_OK if result.complete else EXIT_PARTIAL


def _finish_erasure(archive: Any, identities: list[Any], key: str, object_id_key: bytes | None, grace: Any,
                    dry_run: bool) -> Any:
    """A session no manifest names any more whose tombstone is present: an earlier forget-session
    rewrote the manifests but kept the objects within the grace period, which no manifest names now
    and so no longer tell whose they were. Finishing the erasure (README: INCOMPLETE "until then")
    is deleting what no manifest names past the grace period, as prune does, keeping every
    manifest. None when the key was never erased (a mistyped key must stay a usage error)."""
    from archiver.archive import tombstone_id
    from archiver.prune import KeepPolicy, prune
    from archiver.retention import ForgetResult

    if object_id_key is None or tombstone_id(object_id_key, key) not in archive.tombstones():
        return None
    return ForgetResult(key, dry_run, gc=prune(archive, identities, KeepPolicy(), grace=grace, dry_run=dry_run))


# ---------------------------------------------------------------- rekey, recovery-key
def cmd_rekey(args: argparse.Namespace) -> int:
    from archiver import runtime
    from archiver.rekey import rekey

    settings = settings_of(args)
    recipients = runtime.recipients(settings)
    result = rekey(open_archive(settings, write=True), identities_of(args), recipients, objects=args.all)
    if args.json:
        emit_json(result.to_json())
    else:
        c = console()
        c.print(f"manifests re-encrypted: {len(result.manifests_rewritten) + len(result.manifests_in_place)}; "
                f"objects re-encrypted: {result.objects_rewritten}")
        if not args.all:
            c.print(f"{result.objects_skipped} objects stay readable only by the identities they were written for "
                    "(use --all to re-encrypt them)")
        for x in result.manifests_in_place + result.objects_locked:
            c.print(f"old version kept under retention: {x}")
        for e in result.errors:
            err(e)
    if any("cannot be read" in e for e in result.errors):
        return EXIT_INTEGRITY
    return EXIT_PARTIAL if result.errors else EXIT_OK


def cmd_recovery_key(args: argparse.Namespace) -> int:
    from archiver.rekey import IdentityError, make_recovery_identity, read_passphrase

    try:
        passphrase = read_passphrase(_opt_path(args.passphrase_file))
        if passphrase is None:
            raise UsageError("recovery-key needs --passphrase-file (or $ARCHIVER_PASSPHRASE)")
        recipient = make_recovery_identity(Path(args.out), passphrase, work_factor=args.work_factor, force=args.force)
    except IdentityError as e:
        raise UsageError(str(e)) from None
    except FileExistsError as e:
        raise UsageError(f"{e}; use --force to replace") from None
    if args.json:
        emit_json({"identity": args.out, "recipient": recipient})
    else:
        c = console()
        c.print(f"passphrase-protected identity: {args.out} (keep it offline with its passphrase)")
        c.print(f"recipient (add to encryption.recipients, then run `archiver rekey --all`): {recipient}")
    return EXIT_OK


# ---------------------------------------------------------------- registration
def register(sub: Any, common: argparse.ArgumentParser) -> None:
    add = functools.partial(add_command, sub, common)

    sp = add("bucket", cmd_bucket_init, "bucket set-up")
    bsub = sp.add_subparsers(dest="bucket_cmd", required=True)
    # the common options may come before or after `init` too (they set a value only when given)
    bi = bsub.add_parser("init", parents=[common], help="create or check the bucket: versioning, Object Lock, "
                         "encryption, public access block, lifecycle; prints what changed")
    bi.set_defaults(func=cmd_bucket_init)
    bi.add_argument("--object-lock", action="store_true", help="enable Object Lock (needed for retention uploads)")
    bi.add_argument("--default-retention", action="store_true",
                    help="also set the bucket's default retention from store.object_lock_mode/days")
    bi.add_argument("--transition-days", type=int, default=30, help="move objects/ to --storage-class after N days (0: never)")
    bi.add_argument("--storage-class", default="STANDARD_IA")
    bi.add_argument("--abort-multipart-days", type=int, default=7)
    bi.add_argument("--noncurrent-days", type=int, default=30, help="expire noncurrent versions after N days (0: never)")

    for name, help_ in (("hold", "set a legal hold on a session's objects and the manifests naming it"),
                        ("release", "clear the legal hold on a session's objects and the manifests naming it")):
        sp = add(name, cmd_hold, help_)
        sp.add_argument("key")
        sp.add_argument("--host", help="only manifests of this host id")
        add_identity(sp)

    sp = add("prune", cmd_prune, "drop old manifests per host by policy, then delete unreferenced objects "
             "(never objects under Object Lock or legal hold)")
    for name in ("last", "hourly", "daily", "weekly", "monthly", "yearly"):
        sp.add_argument(f"--keep-{name}", type=int, default=0, metavar="N")
    sp.add_argument("--grace", default="6h", help="never delete objects modified within this time (default 6h; keep it above 1h plus "
                    "your longest sync run, or a sync running now may name an object just deleted)")
    sp.add_argument("--dry-run", action="store_true")
    add_identity(sp)

    sp = add("forget-session", cmd_forget_session, "right to erasure: remove a session from every manifest and "
             "delete its objects where retention allows; reports what it could not")
    sp.add_argument("key")
    sp.add_argument("--grace", default="6h")
    sp.add_argument("--dry-run", action="store_true")
    add_identity(sp)

    sp = add("rekey", cmd_rekey, "re-encrypt manifests (and with --all every object) to the configured recipients")
    sp.add_argument("--all", action="store_true", help="also re-encrypt every object")
    add_identity(sp)

    sp = add("recovery-key", cmd_recovery_key, "create a passphrase-protected identity for offline recovery")
    sp.add_argument("--out", required=True)
    sp.add_argument("--passphrase-file", help="first line is the passphrase (or $ARCHIVER_PASSPHRASE)")
    sp.add_argument("--work-factor", type=int, default=18, choices=range(10, 23), metavar="10..22",
                    help="scrypt work factor (log2 N), as age; default 18")
    sp.add_argument("--force", action="store_true")
