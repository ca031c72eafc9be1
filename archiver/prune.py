"""prune: drop old manifests per host by a keep policy, then delete objects that no
remaining manifest references.

Keep policies follow restic's `forget` (internal/restic/snapshot_policy.go, 0.16+):
snapshots of one host, newest first; `last` keeps the n newest; `hourly/daily/weekly/
monthly/yearly` keep the newest snapshot of each of the last n hours/days/ISO weeks/...
that have one, and the oldest snapshot while a rule still has counts left. A snapshot is
kept when any rule keeps it. n = -1 means unlimited. Times are UTC (manifest key stamps).

Safety (never negotiable):
- the newest manifest of every host is kept, whatever the policy says;
- so is the newest manifest naming a session that no kept manifest names: a session's last
  archived state goes only with forget-session;
- nothing is deleted when a manifest cannot be read (its references are unknown);
- an object or manifest under Object Lock retention or legal hold is not deleted (reported);
- an object modified within `grace` is not deleted: a sync on another machine may have
  uploaded it and not yet written the manifest naming it. Its age is read again just before
  the delete, because a sync that finds an old object stored writes it anew before naming it
  (archive.REFRESH_AFTER, 1 h). A grace period shorter than that plus the longest sync run
  gives this protection up; `--grace 0` does so on purpose;
- just before deleting objects the manifest list is read again, and objects named by a
  manifest that appeared meanwhile are spared.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Callable, Iterable, Sequence

from archiver.archive import Archive, ArchiveFormatError, ManifestRef, parse_utc, stamp_time
from archiver.model import Manifest
from archiver.store.base import NotFound, Retention, StoreError

log = logging.getLogger(__name__)

DEFAULT_GRACE = timedelta(hours=6)


@dataclass(frozen=True)
class KeepPolicy:
    last: int = 0
    hourly: int = 0
    daily: int = 0
    weekly: int = 0
    monthly: int = 0
    yearly: int = 0

    def empty(self) -> bool:
        return not any((self.last, self.hourly, self.daily, self.weekly, self.monthly, self.yearly))

    def to_json(self) -> dict[str, int]:
        return {k: getattr(self, k) for k in ("last", "hourly", "daily", "weekly", "monthly", "yearly") if getattr(self, k)}


def _bucketers() -> list[tuple[str, Callable[[datetime, int], int]]]:
    return [
        ("last", lambda t, nr: nr),
        ("hourly", lambda t, nr: t.year * 1_000_000 + t.month * 10_000 + t.day * 100 + t.hour),
        ("daily", lambda t, nr: t.year * 10_000 + t.month * 100 + t.day),
        ("weekly", lambda t, nr: t.isocalendar()[0] * 100 + t.isocalendar()[1]),
        ("monthly", lambda t, nr: t.year * 100 + t.month),
        ("yearly", lambda t, nr: t.year),
    ]


@dataclass
class Decision:
    when: datetime
    item: object
    keep: bool
    reasons: list[str]


def apply_policy(items: Iterable[tuple[datetime, object]], policy: KeepPolicy) -> list[Decision]:
    """Decide, restic-style, which (time, item) pairs to keep. Returns decisions newest first.
    An empty policy keeps everything."""
    ordered = sorted(items, key=lambda p: p[0], reverse=True)
    if policy.empty():
        return [Decision(t, it, True, ["no policy"]) for t, it in ordered]
    buckets = [[name, getattr(policy, name), fn, None] for name, fn in _bucketers()]
    out = []
    for nr, (t, it) in enumerate(ordered):
        t = t.astimezone(timezone.utc)
        reasons = []
        for b in buckets:
            name, count, fn, last = b
            if count == 0:
                continue
            val = fn(t, nr)
            # restic >= 0.16 also keeps the oldest snapshot while a rule has counts left
            if val != last or nr == len(ordered) - 1:
                reasons.append(name)
                b[3] = val
                if count > 0:
                    b[1] = count - 1
        out.append(Decision(t, it, bool(reasons), reasons))
    return out


@dataclass
class PruneResult:
    dry_run: bool
    policy: dict[str, int]
    manifests_kept: list[str] = field(default_factory=list)
    manifests_removed: list[str] = field(default_factory=list)
    objects_total: int = 0
    objects_referenced: int = 0
    objects_removed: list[str] = field(default_factory=list)
    bytes_removed: int = 0
    locked: list[str] = field(default_factory=list)  # "key: retention until ... / legal hold"
    recent: list[str] = field(default_factory=list)  # unreferenced but within the grace period
    spared: list[str] = field(default_factory=list)  # dropped by the policy, kept: a session's last state
    errors: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, object]:
        return {
            "dry_run": self.dry_run, "policy": self.policy,
            "manifests": {"kept": self.manifests_kept, "removed": self.manifests_removed},
            "objects": {"total": self.objects_total, "referenced": self.objects_referenced,
                        "removed": len(self.objects_removed), "bytes_removed": self.bytes_removed,
                        "removed_keys": self.objects_removed},
            "locked": self.locked, "recent": self.recent, "spared": self.spared,
            "errors": self.errors, "ok": not self.errors,
        }


def lock_state(archive: Archive, key: str, now: datetime) -> str | None:
    """Why `key` must not be deleted now (retention in force, legal hold), or None."""
    try:
        ret: Retention | None = archive.store.get_retention(key)
    except NotFound:
        return None
    if ret is None:
        return None
    why = []
    if ret.mode and ret.until and ret.until > now:
        why.append(f"{ret.mode} retention until {ret.until.isoformat(timespec='seconds')}")
    if ret.legal_hold:
        why.append("legal hold")
    return ", ".join(why) or None


def load_all(archive: Archive, identities: Sequence[object]) -> tuple[list[ManifestRef], dict[str, Manifest], list[str]]:
    refs = archive.manifests()
    loaded: dict[str, Manifest] = {}
    errors: list[str] = []
    for ref in refs:
        try:
            loaded[ref.key] = archive.load_manifest(ref.key, identities)
        except (ArchiveFormatError, NotFound, StoreError) as e:
            errors.append(str(e))
    return refs, loaded, errors


def referenced(manifests: Iterable[Manifest]) -> set[str]:
    return {oid for m in manifests for s in m.sessions for a in s.artifacts for oid in a.objects}


def collect_garbage(
    archive: Archive,
    identities: Sequence[object],
    candidates: dict[str, tuple[int, datetime]] | None,
    keep_refs: set[str],
    known_manifests: set[str],
    result: PruneResult,
    *,
    grace: timedelta,
    dry_run: bool,
    now: datetime,
    delete: Callable[[str], None] | None = None,
) -> None:
    """Delete unreferenced objects. `candidates` (object id -> (size, last_modified)) limits
    the sweep (forget-session); None sweeps every object under objects/. `delete` replaces
    the store's delete (forget-session purges every version)."""
    from archiver.archive import object_key

    if candidates is None:
        candidates = {}
        for info in archive.store.list("objects/"):
            oid = info.key.rsplit("/", 1)[-1]
            try:
                if object_key(oid) != info.key:
                    raise ArchiveFormatError(info.key)
            except ArchiveFormatError:
                result.errors.append(f"{info.key}: not an object key; left alone")
                continue
            candidates[oid] = (info.size, info.last_modified)
        result.objects_total = len(candidates)
    garbage = {oid: v for oid, v in candidates.items() if oid not in keep_refs}
    result.objects_referenced = len(candidates) - len(garbage)
    if not garbage:
        return
    # a concurrent sync may have written a manifest since we listed: spare what it names
    for ref in archive.manifests():
        if ref.key in known_manifests:
            continue
        try:
            m = archive.load_manifest(ref.key, identities)
        except (ArchiveFormatError, NotFound, StoreError) as e:
            result.errors.append(f"{e}; no object deleted")
            return
        for oid in referenced([m]):
            garbage.pop(oid, None)
    for oid, (size, modified) in sorted(garbage.items()):
        key = object_key(oid)
        if modified is not None and now - modified < grace:
            result.recent.append(key)
            continue
        # looked at again just before the delete: a sync that found this object stored and old
        # writes it anew before naming it (Archive.put_object, REFRESH_AFTER), after our listing
        try:
            info = archive.store.head(key)
        except StoreError as e:
            result.errors.append(str(e))
            continue
        if info is None:
            continue  # gone meanwhile
        if now - info.last_modified < grace:
            result.recent.append(key)
            continue
        why = lock_state(archive, key, now)
        if why:
            result.locked.append(f"{key}: {why}")
            continue
        if not dry_run:
            try:
                (delete or archive.store.delete)(key)
            except StoreError as e:
                result.errors.append(str(e))
                continue
        result.objects_removed.append(key)
        result.bytes_removed += size


def prune(
    archive: Archive,
    identities: Sequence[object],
    policy: KeepPolicy,
    *,
    grace: timedelta = DEFAULT_GRACE,
    dry_run: bool = False,
    now: datetime | None = None,
) -> PruneResult:
    now = now or datetime.now(timezone.utc)
    result = PruneResult(dry_run=dry_run, policy=policy.to_json())
    refs, loaded, errors = load_all(archive, identities)
    if errors:
        result.errors += errors + ["some manifests cannot be read: nothing was deleted"]
        return result
    by_host: dict[str, list[ManifestRef]] = {}
    for ref in refs:
        by_host.setdefault(ref.host_id, []).append(ref)
    drop: list[ManifestRef] = []
    def when(r: ManifestRef) -> datetime:
        # the manifest's own created_at (ms); the key's stamp has whole seconds only
        m = loaded.get(r.key)
        if m is not None:
            try:
                return parse_utc(m.created_at)
            except ValueError:
                pass
        return stamp_time(r)

    for host_refs in by_host.values():
        decisions = apply_policy([(when(r), r) for r in host_refs], policy)
        newest = max(host_refs, key=lambda r: (when(r), r.key))
        for d in decisions:
            ref = d.item
            assert isinstance(ref, ManifestRef)
            if d.keep or ref is newest:
                result.manifests_kept.append(ref.key)
            else:
                drop.append(ref)
    drop = _spare_last_states(drop, loaded, result)
    remaining = dict(loaded)
    for ref in drop:
        why = lock_state(archive, ref.key, now)
        if why:
            result.locked.append(f"{ref.key}: {why}")
            result.manifests_kept.append(ref.key)
            continue
        if not dry_run:
            try:
                archive.store.delete(ref.key)
            except StoreError as e:
                result.errors.append(str(e))
                result.manifests_kept.append(ref.key)
                continue
        result.manifests_removed.append(ref.key)
        remaining.pop(ref.key, None)
    collect_garbage(archive, identities, None, referenced(remaining.values()), {r.key for r in refs}, result,
                    grace=grace, dry_run=dry_run, now=now)
    result.manifests_kept.sort()
    return result


def _spare_last_states(drop: list[ManifestRef], loaded: dict[str, Manifest], result: PruneResult) -> list[ManifestRef]:
    """Keep, of the manifests the policy drops, the newest one naming a session that no kept
    manifest names: a session's last archived state is removed only by forget-session. (A
    collector whose local state was wiped, or two machines sharing a host name, write manifests
    that no longer name every session the host archived before.)"""
    dropping = {r.key for r in drop}
    kept_sessions = {s.key for k, m in loaded.items() if k not in dropping for s in m.sessions}
    spare: dict[str, ManifestRef] = {}  # session key -> newest dropped manifest naming it
    for ref in drop:
        m = loaded.get(ref.key)
        if m is None:
            continue
        for sess in m.sessions:
            if sess.key in kept_sessions:
                continue
            other = spare.get(sess.key)
            if other is None or (m.created_at, ref.key) > (loaded[other.key].created_at, other.key):
                spare[sess.key] = ref
    if not spare:
        return drop
    keep = {r.key for r in spare.values()}
    for key in sorted(keep):
        result.manifests_kept.append(key)
        result.spared.append(key)
    return [r for r in drop if r.key not in keep]


def parse_duration(text: str) -> timedelta:
    """'6h', '30m', '2d', '90s', '0' -> timedelta."""
    text = text.strip().lower()
    if text in ("0", "0s", "0m", "0h", "0d"):
        return timedelta(0)
    units = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days", "w": "weeks"}
    if len(text) >= 2 and text[-1] in units:
        try:
            n = float(text[:-1])
        except ValueError:
            n = -1
        if n >= 0:
            return timedelta(**{units[text[-1]]: n})
    raise ValueError(f"not a duration: {text!r} (use e.g. 6h, 30m, 2d, 0)")
