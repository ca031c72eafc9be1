"""Legal holds and right-to-erasure for one session.

hold / release: set or clear an S3 Object Lock legal hold on every object of every
artifact of the session's latest state, and on every manifest that names the session.

forget_session: rewrite each manifest naming the session without it (the new manifest is
written first, under the same time stamp, then the old one is deleted; a manifest under
retention or hold cannot be rewritten and is reported), then delete the session's objects
that no remaining manifest references, with prune's safety rules (grace period, locks,
a second look at the manifest list). On a versioned bucket erasure removes every version
of the deleted keys, not just the current one (a plain delete would only hide them).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any, Sequence

from archiver.archive import tombstone_id, Archive, object_key
from archiver.model import Manifest
from archiver.prune import DEFAULT_GRACE, PruneResult, collect_garbage, load_all, lock_state, referenced
from archiver.store.base import StoreError

log = logging.getLogger(__name__)


class SessionNotFound(KeyError):
    pass


def _names(m: Manifest, key: str) -> bool:
    return any(s.key == key for s in m.sessions)


@dataclass
class HoldResult:
    key: str
    on: bool
    objects: list[str] = field(default_factory=list)
    manifests: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, object]:
        return {"session": self.key, "legal_hold": "ON" if self.on else "OFF", "objects": self.objects,
                "manifests": self.manifests, "errors": self.errors, "ok": not self.errors}


def set_hold(archive: Archive, identities: Sequence[object], key: str, on: bool, host_id: str | None = None) -> HoldResult:
    """Legal hold on (or off) for the manifests naming a session and the objects of every state of
    it they hold: a held manifest must stay restorable, and a release must clear what an earlier
    hold set on objects of a state that has since been replaced."""
    refs, loaded, errors = load_all(archive, identities)
    result = HoldResult(key, on, errors=list(errors))
    naming = {k: m for k, m in loaded.items() if _names(m, key) and (host_id is None or m.host_id == host_id)}
    if not naming:
        raise SessionNotFound(key)
    oids = sorted({oid for m in naming.values() for s in m.sessions if s.key == key
                   for a in s.artifacts for oid in a.objects})
    keys = [(object_key(oid), result.objects) for oid in oids] + [(m, result.manifests) for m in sorted(naming)]
    for i, (k, done) in enumerate(keys):
        _hold(archive, k, on, result, done)
        if i == 1 and not result.objects and not result.manifests:
            # the store refused the first two and took none (a bucket without Object Lock refuses
            # every one): one reason, not one line per object; holds are idempotent, run it again
            result.errors.append(f"stopped after {i + 1} refusals and no hold {'set' if on else 'cleared'}: "
                                 f"legal holds need a bucket with Object Lock (`archiver bucket init`)")
            break
    return result


def _hold(archive: Archive, key: str, on: bool, result: HoldResult, done: list[str]) -> None:
    try:
        archive.store.set_legal_hold(key, on)
    except (StoreError, NotImplementedError) as e:
        result.errors.append(str(e))
        return
    done.append(key)


@dataclass
class ForgetResult:
    key: str
    dry_run: bool
    manifests_rewritten: list[dict[str, str]] = field(default_factory=list)  # {"old", "new"}
    manifests_locked: list[str] = field(default_factory=list)
    gc: PruneResult | None = None
    errors: list[str] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        gc = self.gc
        return not (self.errors or self.manifests_locked or (gc and (gc.locked or gc.recent or gc.errors)))

    def to_json(self) -> dict[str, object]:
        gc = self.gc
        return {
            "session": self.key, "dry_run": self.dry_run,
            "manifests": {"rewritten": self.manifests_rewritten, "locked": self.manifests_locked},
            "objects": {"candidates": gc.objects_total if gc else 0, "still_referenced": gc.objects_referenced if gc else 0,
                        "removed": gc.objects_removed if gc else [], "locked": gc.locked if gc else [],
                        "recent": gc.recent if gc else []},
            "errors": self.errors + (gc.errors if gc else []),
            "complete": self.complete,
        }


def forget_session(
    archive: Archive,
    identities: Sequence[object],
    recipients: Sequence[object],
    key: str,
    *,
    grace: timedelta = DEFAULT_GRACE,
    dry_run: bool = False,
    now: datetime | None = None,
    object_id_key: bytes | None = None,
) -> ForgetResult:
    now = now or datetime.now(timezone.utc)
    result = ForgetResult(key, dry_run)
    refs, loaded, errors = load_all(archive, identities)
    if errors:
        result.errors += errors + ["some manifests cannot be read: nothing was changed"]
        return result
    if not any(_names(m, key) for m in loaded.values()):
        raise SessionNotFound(key)  # before the tombstone: a mistyped key must not block a session to come
    if object_id_key is None:
        result.errors.append("no team key: no tombstone written, a collector that still has the session "
                             "will archive it again")
    elif not dry_run:
        # before anything is deleted, so collectors stop re-archiving it; then the manifests are read
        # again, so one a collector wrote meanwhile is rewritten too
        archive.put_tombstone(tombstone_id(object_id_key, key))
        refs, loaded, errors = load_all(archive, identities)
        if errors:
            result.errors += errors + ["some manifests cannot be read: the tombstone is written, no manifest "
                                       "was changed; run forget-session again"]
            return result
    naming = {k: m for k, m in loaded.items() if _names(m, key)}
    if not naming:
        raise SessionNotFound(key)
    # every object any state of the session ever used
    candidates = {oid for m in naming.values() for s in m.sessions if s.key == key for a in s.artifacts for oid in a.objects}
    remaining = dict(loaded)
    for mkey in sorted(naming):
        why = lock_state(archive, mkey, now)
        if why:
            result.manifests_locked.append(f"{mkey}: {why}")
            continue
        m = naming[mkey]
        new = m.model_copy(update={"sessions": [s for s in m.sessions if s.key != key]})
        if dry_run:
            result.manifests_rewritten.append({"old": mkey, "new": "(dry run)"})
            remaining[mkey] = new
            continue
        try:
            new_key = archive.put_manifest(new, recipients)
        except StoreError as e:
            result.errors.append(f"{mkey}: rewrite failed, left as is ({e})")
            continue
        try:
            purge(archive, mkey)
        except StoreError as e:
            result.errors.append(f"{mkey}: rewritten as {new_key} but the old manifest was not deleted ({e})")
            continue
        result.manifests_rewritten.append({"old": mkey, "new": new_key})
        remaining.pop(mkey)
        remaining[new_key] = new
    gc = PruneResult(dry_run=dry_run, policy={})
    sizes = {}
    for oid in sorted(candidates):
        try:
            info = archive.store.head(object_key(oid))
        except StoreError as e:
            gc.errors.append(str(e))
            continue
        if info is not None:
            sizes[oid] = (info.size, info.last_modified)
    gc.objects_total = len(candidates)
    known = {r.key for r in refs} | {k for k in remaining}
    collect_garbage(archive, identities, sizes, referenced(remaining.values()), known, gc,
                    grace=grace, dry_run=dry_run, now=now, delete=None if dry_run else (lambda k: purge(archive, k)))
    result.gc = gc
    return result


def purge(archive: Archive, key: str) -> None:
    """Delete `key`; on a versioned S3 bucket, every version and delete marker of it."""
    client, bucket, prefix = _s3(archive)
    if client is None:
        archive.store.delete(key)
        return
    full = prefix + key
    try:
        pages = client.get_paginator("list_object_versions").paginate(Bucket=bucket, Prefix=full)
        versions = []
        for page in pages:
            for v in list(page.get("Versions", ())) + list(page.get("DeleteMarkers", ())):
                if v["Key"] == full:
                    versions.append(v["VersionId"])
    except Exception as e:  # botocore errors: report through StoreError
        raise StoreError(key, f"list versions: {type(e).__name__}: {e}") from None
    for vid in versions:
        try:
            client.delete_object(Bucket=bucket, Key=full, VersionId=vid)
        except Exception as e:
            raise StoreError(key, f"delete version {vid}: {type(e).__name__}: {e}") from None


def _s3(archive: Archive) -> tuple[Any, str, str]:
    store = archive.store
    try:
        client = getattr(store, "client")
        return client, str(getattr(store, "bucket")), str(getattr(store, "prefix"))
    except AttributeError:
        return None, "", ""
