"""verify: every manifest decrypts and parses, every object it names exists;
with read_data, every object is downloaded, decrypted and its content checked.

Tombstones (FORMAT.md §7) are checked too: `tombstones/` can be listed, each entry is a
zero-byte object named by 64 lowercase hex characters (readers and collectors take the last
part of any key under `tombstones/` as a tomb-id, so a stray key there would hide sessions),
and, with the team key, no manifest the store received after a tombstone names the session it
erased (a collector that did not honour it put the session back). A manifest older than the
tombstone still naming it is one forget-session could not rewrite (retention): a note.

With `at`, the archive as a reader with `--at` saw it then (archive.load_catalog): only
manifests whose key stamp and `created_at` are at or before `at`, and the objects they
name. Objects pruned since are missing: a restore --at that time would fail on them."""

from __future__ import annotations

import hashlib
import os
import random
import re
import tempfile
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Callable, Sequence

from archiver.archive import TOMBSTONES, Archive, ArchiveFormatError, object_key, parse_utc, stamp_of, tombstone_id
from archiver.pack import ObjectHasher
from archiver.store.base import NotFound, StoreError

_TOMB_ID = re.compile(r"[0-9a-f]{64}")


@dataclass
class VerifyResult:
    manifests: int = 0
    objects: int = 0
    objects_read: int = 0
    errors: list[str] = field(default_factory=list)
    later: int = 0  # with `at`: manifests created after it, not checked
    tombstones: int = 0  # well-formed tombstones (as of `at`)
    notes: list[str] = field(default_factory=list)  # worth knowing, not damage

    def to_json(self) -> dict[str, object]:
        return {"manifests": self.manifests, "objects": self.objects, "objects_read": self.objects_read,
                "tombstones": self.tombstones, "ok": not self.errors, "errors": self.errors, "notes": self.notes}


def verify(
    archive: Archive,
    identities: Sequence[object],
    *,
    read_data: bool = False,
    subset: float = 1.0,
    object_id_key: bytes | None = None,
    progress: Callable[[str, int], None] | None = None,
    seed: int | None = None,
    at: datetime | None = None,
) -> VerifyResult:
    result = VerifyResult()
    # object id -> digest of its plaintext as recorded (single-object artifacts only)
    expected: dict[str, str | None] = {}
    # object id -> where it is named: {session key: (artifact path, newest manifest naming it)}
    named: dict[str, dict[str, tuple[str, str]]] = {}
    naming: dict[str, list[str]] = {}  # session key -> manifests naming it
    refs = archive.manifests()
    if at is not None:  # a key stamp already later: not even fetched (as load_catalog)
        result.later = sum((stamp_of(r) or at) > at for r in refs)
        refs = [r for r in refs if (stamp_of(r) or at) <= at]
    for ref in refs:
        try:
            manifest = archive.load_manifest(ref.key, identities)
        except (ArchiveFormatError, NotFound) as e:
            result.errors.append(str(e))
            continue
        if at is not None and not _at_or_before(manifest.created_at, manifest.host_id, at, result):
            continue
        result.manifests += 1
        for s in manifest.sessions:
            naming.setdefault(s.key, []).append(ref.key)
            for a in s.artifacts:
                for oid in a.objects:
                    expected.setdefault(oid, a.sha256 if len(a.objects) == 1 else None)
                    named.setdefault(oid, {})[s.key] = (a.path, ref.key)  # refs come oldest first
    result.objects = len(expected)
    ids = sorted(expected)
    missing: set[str] = set()
    for oid in ids:
        try:
            if not archive.has_object(oid):
                missing.add(oid)
                result.errors.append(f"{object_key(oid)}: missing{_where(named[oid])}")
        except ArchiveFormatError as e:
            result.errors.append(str(e))
    check_tombstones(archive, naming, result, object_id_key=object_id_key, at=at)
    if not read_data:
        return result
    sample = [oid for oid in ids if oid not in missing]
    if subset < 1.0:
        rng = random.Random(seed)
        sample = rng.sample(sample, max(1, round(len(sample) * subset))) if sample else []
    if progress:
        progress("total_objects", len(sample))
    with tempfile.TemporaryDirectory(prefix="archiver-verify-") as tmp:
        os.chmod(tmp, 0o700)
        plain = Path(tmp) / "plain"
        for oid in sample:
            try:
                archive.read_object(oid, plain, identities)
            except Exception as e:
                result.errors.append(f"{object_key(oid)}: unreadable ({type(e).__name__}: {e}){_where(named[oid])}")
                continue
            finally:
                if progress:
                    progress("object", 1)
            result.objects_read += 1
            sha = hashlib.sha256()
            hasher = ObjectHasher(object_id_key) if object_id_key else None
            with plain.open("rb") as f:
                while block := f.read(1 << 20):
                    sha.update(block)
                    if hasher:
                        hasher.update(block)
            if hasher and hasher.hexdigest() != oid:
                result.errors.append(f"{object_key(oid)}: content does not match its id{_where(named[oid])}")
            elif expected[oid] and sha.hexdigest() != expected[oid]:
                result.errors.append(f"{object_key(oid)}: content does not match the manifest's sha256"
                                     f"{_where(named[oid])}")
            plain.unlink(missing_ok=True)
    return result


def check_tombstones(archive: Archive, naming: dict[str, list[str]], result: VerifyResult, *,
                     object_id_key: bytes | None = None, at: datetime | None = None) -> None:
    """The checks on `tombstones/` (see the module's doc); `naming` is {session key: keys of the
    manifests that name it}."""
    try:
        infos = list(archive.store.list(TOMBSTONES))
    except StoreError as e:
        result.errors.append(f"{TOMBSTONES}: cannot list ({e}); sessions erased by forget-session could show "
                             "and be archived again")
        return
    written: dict[str, datetime] = {}  # tomb-id -> when the store received it
    for info in infos:
        if at is not None and info.last_modified > at:
            continue  # not yet written at `at`
        name = info.key[len(TOMBSTONES):]
        if not _TOMB_ID.fullmatch(name):
            result.errors.append(f"{info.key}: not a tombstone (FORMAT.md §7: {TOMBSTONES}<64 lowercase hex>); "
                                 "readers and collectors still take it for one")
            continue
        if info.size:
            result.errors.append(f"{info.key}: {info.size} bytes; a tombstone is a zero-byte object")
            continue
        result.tombstones += 1
        written[name] = info.last_modified
    if not written or object_id_key is None:
        if written:
            result.notes.append(f"{len(written)} tombstone(s): without the team key verify cannot tell which "
                                "sessions they erased, nor check that none came back")
        return
    erased = {key: tombstone_id(object_id_key, key) for key in naming}
    erased = {key: tid for key, tid in erased.items() if tid in written}
    if not erased:
        return
    received = {info.key: info.last_modified for info in archive.store.list("snapshots/")}
    for key, tid in sorted(erased.items()):
        for manifest in naming[key]:
            when = received.get(manifest)
            if when is not None and when > written[tid]:
                result.errors.append(f"{manifest}: names session {key}, erased by forget-session before the store "
                                     f"received this manifest ({TOMBSTONES}{tid}): a collector archived it again")
            else:
                result.notes.append(f"{manifest}: still names session {key}, erased by forget-session "
                                    "(a manifest it could not rewrite); readers leave the session out")


def _at_or_before(created_at: str, host_id: str, at: datetime, result: VerifyResult) -> bool:
    """Whether a manifest counts as of `at` (its created_at, to the millisecond: the key stamp
    is only the whole second); one whose created_at is no time is an error, left out."""
    try:
        if parse_utc(created_at) <= at:
            return True
    except ValueError:
        result.errors.append(f"manifest of host {host_id}: created_at {created_at[:40]!r} is not a time; left out")
        return False
    result.later += 1
    return False


def _where(refs: dict[str, tuple[str, str]], limit: int = 3) -> str:
    """'; named by <session> (<path>, in <manifest>), ...': what a damaged object takes with it."""
    items = [f"{key} ({path}, in {manifest})" for key, (path, manifest) in sorted(refs.items())]
    more = f", and {len(items) - limit} more session(s)" if len(items) > limit else ""
    return "; named by " + ", ".join(items[:limit]) + more if items else ""
