"""The archive layout on top of an ObjectStore (docs/FORMAT.md):

    archiver.json                                   plaintext marker, no secrets
    objects/<aa>/<id>                               age(zstd(plaintext)), immutable
    snapshots/<host-id>/<utc>-<rand>.json.age       age(zstd(manifest JSON)), one per sync run

Writers put objects first and a manifest last; readers may assume every object a
manifest names was written before it.
"""

from __future__ import annotations

import hashlib
import hmac
import io
import json
import logging
import os
import secrets
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import BinaryIO, Callable, Iterable, Iterator, Sequence

from archiver import FORMAT, __version__
from archiver.lineage import catalog_key
from archiver.model import Manifest, Session
from archiver.pack import SMALL_OBJECT, pack_bytes, pack_file, pack_file_bytes
from archiver.store.base import NotFound, ObjectInfo, ObjectStore, StoreError

log = logging.getLogger(__name__)

MARKER_KEY = "archiver.json"
MAX_MANIFEST_BYTES = 512 * 1024 * 1024
MANIFEST_RATIO_FLOOR = 1 << 20  # manifests are held in memory: their ratio counts early
STAMP = "%Y%m%dT%H%M%SZ"  # the time in a manifest key (UTC, whole seconds)
# An object found already stored but written longer ago than this is written again when a run
# names it anew: prune deletes only unreferenced objects older than its grace period (6 h by
# default, always above this), so the new write protects it until the manifest naming it exists.
REFRESH_AFTER = timedelta(hours=1)
# Reading an object restarts from scratch when its stream breaks (a truncated or reset
# response): the store's retry wrapper can only retry opening a stream, not reading it.
READ_ATTEMPTS = 3
_READ_BACKOFF = 0.2

# Decompression limits for reading objects (restore, verify, export). A bucket's content is
# not trusted: an object may be a zstd bomb. Overridable from the environment.
ENV_MAX_BYTES = "ARCHIVER_RESTORE_MAX_BYTES"
ENV_MAX_RATIO = "ARCHIVER_RESTORE_MAX_RATIO"
DEFAULT_MAX_BYTES = 16 << 30
DEFAULT_MAX_RATIO = 1000.0


@dataclass(frozen=True)
class ReadLimits:
    """Stop decompressing one object past `max_bytes` of output, or past `max_ratio` times
    its compressed size (checked after the first MiB, see pack.unpack_stream)."""

    max_bytes: int = DEFAULT_MAX_BYTES
    max_ratio: float = DEFAULT_MAX_RATIO

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> "ReadLimits":
        env = dict(os.environ) if env is None else env
        out = cls()
        raw_bytes, raw_ratio = env.get(ENV_MAX_BYTES), env.get(ENV_MAX_RATIO)
        try:
            max_bytes = int(raw_bytes) if raw_bytes else out.max_bytes
            max_ratio = float(raw_ratio) if raw_ratio else out.max_ratio
        except ValueError:
            raise ValueError(f"{ENV_MAX_BYTES} must be an integer and {ENV_MAX_RATIO} a number") from None
        if max_bytes < 0 or not max_ratio > 1:
            raise ValueError(f"{ENV_MAX_BYTES} must be >= 0 and {ENV_MAX_RATIO} > 1")
        return cls(max_bytes, max_ratio)


class ArchiveFormatError(ValueError):
    """The bucket holds something this version cannot read; the message names the key."""


def object_key(object_id: str) -> str:
    if len(object_id) != 64 or not all(c in "0123456789abcdef" for c in object_id):
        raise ArchiveFormatError(f"not an object id: {object_id[:80]!r}")
    return f"objects/{object_id[:2]}/{object_id}"


TOMBSTONES = "tombstones/"  # FORMAT.md §7: <prefix>/tombstones/<tomb-id>, zero bytes


def tombstone_id(object_id_key: bytes, session_key: str) -> str:
    """Keyed id of a forgotten session: collectors (who hold the team key) can check it;
    the bucket alone does not reveal which session it names."""
    return hmac.new(object_id_key, b"tombstone\x00" + session_key.encode(), hashlib.sha256).hexdigest()


def chain_digest(previous: str | None, segment_sha256: str) -> str:
    """Artifact sha256 over segments (FORMAT.md): one object -> sha256 of its plaintext;
    more -> sha256(previous_digest_hex + segment_sha256_hex) folded left."""
    if previous is None:
        return segment_sha256
    return hashlib.sha256((previous + segment_sha256).encode()).hexdigest()


def manifest_key(host_id: str, when: datetime) -> str:
    stamp = when.astimezone(timezone.utc).strftime(STAMP)
    return f"snapshots/{host_id}/{stamp}-{secrets.token_hex(4)}.json.age"


@dataclass(frozen=True)
class ManifestStream:
    """A manifest to write that is never held whole, neither as models nor as one bytes object:
    `head` holds every field but the sessions (left empty); `sessions()` yields each session's
    JSON (Session.model_dump_json, UTF-8) in the order of the document (by key). The document
    is written to `scratch` (a file in the run's 0700 folder, removed) and packed from there.
    Its bytes are those of `head` with those sessions, dumped whole (write_manifest)."""

    head: Manifest
    sessions: Callable[[], Iterable[bytes]]
    scratch: Path


def write_manifest(head: Manifest, sessions: Iterable[bytes], dst: BinaryIO) -> None:
    """The JSON of `head` with `sessions` (each a Session's model_dump_json) as its sessions,
    byte for byte what Manifest.model_dump_json gives for them, written piece by piece: every
    field but the sessions in the model's order, dumped by pydantic as the whole would be."""
    if head.sessions:
        raise ValueError("write_manifest: the head must hold no sessions (they are streamed)")
    dst.write(b"{")
    sep = b""
    for name in type(head).model_fields:
        if name == "sessions":
            dst.write(sep + b'"sessions":[')
            comma = b""
            for data in sessions:
                dst.write(comma)
                dst.write(data)
                comma = b","
            dst.write(b"]")
        else:
            field = head.model_dump_json(include={name}).encode()[1:-1]  # '{"name":value}' -> '"name":value'
            if not field:
                continue
            dst.write(sep + field)
        sep = b","
    dst.write(b"}")


@dataclass(frozen=True)
class ManifestRef:
    key: str
    host_id: str
    created: str  # the UTC stamp in the key name
    size: int


class Archive:
    def __init__(self, store: ObjectStore) -> None:
        self.store = store

    # ---- writing ----
    def ensure_marker(self) -> None:
        marker = {
            "format": FORMAT,
            "object": "age(zstd(plaintext)); id = hex HMAC-SHA256(team-derived key, plaintext)",
            "layout": {"objects": "objects/<id[0:2]>/<id>", "manifests": "snapshots/<host-id>/<utc>-<rand>.json.age"},
            "spec": "docs/FORMAT.md",
            "created_by": f"archiver {__version__}",
        }
        try:
            existing = self.store.get_bytes(MARKER_KEY, max_size=1 << 20)
        except NotFound:
            self.store.put_bytes(MARKER_KEY, json.dumps(marker, indent=2).encode() + b"\n", if_absent=True)
            return
        try:
            fmt = json.loads(existing).get("format")
        except (ValueError, AttributeError):
            fmt = None
        if fmt != FORMAT:
            raise ArchiveFormatError(f"{MARKER_KEY}: format {fmt!r} is not {FORMAT!r}; refusing to write")

    def has_object(self, object_id: str) -> bool:
        return self.store.exists(object_key(object_id))

    def put_object(self, object_id: str, plaintext: Path, packed_tmp: Path, recipients: Sequence[object], *,
                   size: int | None = None, blob: bytes | None = None, packed_file: Path | None = None) -> int:
        """Pack and upload unless the archive already holds the object; returns the stored
        (encrypted) size sent, 0 when it was already there.

        A small object is packed in memory and written with one conditional put (no HEAD
        first: one request instead of two); a large one is looked up first, so a copy
        another host already uploaded is not sent again, then streamed from a temp file.
        A copy found stored but older than REFRESH_AFTER is written again: it may be one that
        no manifest names any more, which a prune running now could delete before this run's
        manifest names it; written anew, prune's grace period covers it.

        Packed already (a redaction worker packs what it wrote, see workers.py): `size` is the
        plaintext's, `blob` the packed bytes of a small object, `packed_file` those of a large
        one (removed here, sent or not); `plaintext` is then not read."""
        key = object_key(object_id)
        try:
            if (plaintext.stat().st_size if size is None else size) <= SMALL_OBJECT:
                if blob is None:
                    blob = pack_bytes(plaintext.read_bytes(), recipients)  # type: ignore[arg-type]
                if self.store.put_bytes(key, blob, if_absent=True):
                    return len(blob)
                if self._recent(key):
                    return 0
                self.store.put_bytes(key, blob)  # maybe old and unreferenced: written again (REFRESH_AFTER)
                return len(blob)
            if self._recent(key):
                return 0
            if packed_file is None:
                packed_file = packed_tmp
                pack_file(plaintext, packed_tmp, recipients, durable=False)  # type: ignore[arg-type]
            sent = packed_file.stat().st_size
            try:
                self.store.put_file(key, packed_file)
            finally:
                packed_tmp.unlink(missing_ok=True)
            return sent
        finally:
            if packed_file is not None:
                packed_file.unlink(missing_ok=True)

    def defer_object_sync(self) -> None:
        """Objects written from now on may have the fsync of their directory entry deferred by
        the store (file:// stores: LocalStore.defer_dir_sync) to sync_objects(), which
        put_manifest calls first. Stores whose puts are durable on return (S3) ignore it."""
        defer = getattr(self.store, "defer_dir_sync", None)
        if defer is not None:
            defer("objects/")

    def sync_objects(self) -> None:
        """Make every object written so far durable (its name included): before anything names it."""
        sync = getattr(self.store, "sync_dirs", None)
        if sync is not None:
            sync()

    def _recent(self, key: str) -> bool:
        """Is the object stored, and written within REFRESH_AFTER (or of unknown age)?"""
        info = self.store.head(key)
        if info is None:
            return False
        written = info.last_modified
        return written is None or datetime.now(timezone.utc) - written < REFRESH_AFTER

    def put_manifest(self, manifest: Manifest | ManifestStream, recipients: Sequence[object]) -> str:
        head = manifest.head if isinstance(manifest, ManifestStream) else manifest
        when = datetime.fromisoformat(head.created_at.replace("Z", "+00:00"))
        key = manifest_key(head.host_id, when)
        if isinstance(manifest, ManifestStream):
            blob = _pack_streamed(manifest, recipients)
        else:
            blob = pack_bytes(manifest.model_dump_json().encode(), recipients)  # type: ignore[arg-type]
        self.sync_objects()  # every object it names is durable first (FORMAT.md §6)
        self.store.put_bytes(key, blob, if_absent=True)
        return key

    def put_tombstone(self, tomb_id: str) -> None:
        self.store.put_bytes(f"{TOMBSTONES}{tomb_id}", b"", if_absent=True)

    def tombstones(self) -> set[str]:
        return {info.key.rsplit("/", 1)[-1] for info in self.store.list(TOMBSTONES)}

    # ---- reading ----
    def manifests(self, host_id: str | None = None) -> list[ManifestRef]:
        prefix = f"snapshots/{host_id}/" if host_id else "snapshots/"
        out = []
        for info in self.store.list(prefix):
            ref = _parse_manifest_key(info)
            if ref is not None:
                out.append(ref)
        return sorted(out, key=lambda r: (r.created, r.key))

    def load_manifest(self, key: str, identities: Sequence[object]) -> Manifest:
        from archiver.pack import unpack_stream

        blob = self.store.get_bytes(key, max_size=MAX_MANIFEST_BYTES)
        try:
            # a manifest is held in memory: bound it by size and by ratio from its first MiB
            buf = io.BytesIO()
            unpack_stream(io.BytesIO(blob), buf, identities, max_output=MAX_MANIFEST_BYTES,  # type: ignore[arg-type]
                          max_ratio=ReadLimits.from_env().max_ratio, ratio_floor=MANIFEST_RATIO_FLOOR)
            raw = buf.getvalue()
        except Exception as e:  # age/zstd errors: name the manifest, keep the reason
            raise ArchiveFormatError(f"{key}: cannot decrypt/decompress manifest ({type(e).__name__}: {e})") from None
        try:
            manifest = Manifest.model_validate_json(raw)
        except ValueError as e:
            raise ArchiveFormatError(f"{key}: manifest does not parse ({str(e).splitlines()[0]})") from None
        if manifest.format != FORMAT:
            raise ArchiveFormatError(f"{key}: manifest format {manifest.format!r} is not {FORMAT!r}")
        return manifest

    def read_object(self, object_id: str, dst: Path, identities: Sequence[object], max_output: int | None = None,
                    limits: ReadLimits | None = None) -> int:
        """Decrypt and decompress one object into dst; returns its plaintext size.

        Output stops (UnpackError) past min(max_output, limits.max_bytes) bytes or past
        limits.max_ratio (default: ReadLimits.from_env()). A stream that breaks with a
        transient store error is read again from the start, up to READ_ATTEMPTS times."""
        from archiver.pack import unpack_stream

        limits = limits or ReadLimits.from_env()
        cap = limits.max_bytes if max_output is None else min(max_output, limits.max_bytes)
        key = object_key(object_id)
        attempt = 1
        while True:
            try:
                with self.store.open_read(key) as body, dst.open("wb") as out:
                    return unpack_stream(body, out, identities, max_output=cap,  # type: ignore[arg-type]
                                         max_ratio=limits.max_ratio)
            except StoreError as e:
                if not e.transient or attempt >= READ_ATTEMPTS:
                    raise
                log.warning("reading %s broke off (attempt %d/%d), reading it again: %s",
                            key, attempt, READ_ATTEMPTS, e.reason)
                time.sleep(_READ_BACKOFF * 2 ** (attempt - 1))
                attempt += 1


def _pack_streamed(manifest: ManifestStream, recipients: Sequence[object]) -> bytes:
    """The packed manifest (compressed: a fraction of the document), its JSON going through a file."""
    path = manifest.scratch
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "wb", buffering=1 << 16) as out:
            write_manifest(manifest.head, manifest.sessions(), out)
        return pack_file_bytes(path, recipients)  # type: ignore[arg-type]
    finally:
        path.unlink(missing_ok=True)


def _parse_manifest_key(info: ObjectInfo) -> ManifestRef | None:
    parts = info.key.split("/")
    if len(parts) != 3 or parts[0] != "snapshots" or not parts[2].endswith(".json.age"):
        return None
    return ManifestRef(key=info.key, host_id=parts[1], created=parts[2].split("-")[0], size=info.size)


def latest_sessions(manifests: Iterator[Manifest] | list[Manifest]) -> dict[str, Session]:
    """The newest known state of every session across manifests (all hosts).

    A session stays listed after its files are gone from the machine: manifests
    carry every session ever archived by their host forward. Within one host the newest
    manifest holds the newest state. A session two hosts archived (one key) is taken from
    the host whose copy changed last (`archived_at`), not from whichever host synced last:
    every manifest carries its host's copy forward, however stale.
    """
    out: dict[str, Session] = {}
    stamp: dict[str, str] = {}
    for m in manifests:
        for s in m.sessions:
            if s.host_id is None:
                s.host_id = m.host_id
            k = catalog_key(s)  # host sessions share a key across machines; keep one per host
            have = out.get(k)
            if have is None or _newer(s, m.created_at, have, stamp[k]):
                out[k] = s
                stamp[k] = m.created_at
    return out


def _newer(s: Session, created_at: str, have: Session, have_created_at: str) -> bool:
    if s.host_id == have.host_id or not (s.archived_at and have.archived_at):
        return created_at >= have_created_at
    mine, theirs = _when(s.archived_at), _when(have.archived_at)
    if mine is None or theirs is None or mine == theirs:
        return created_at >= have_created_at
    return mine > theirs


def _when(stamp: str) -> datetime | None:
    try:
        when = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return None
    return when if when.tzinfo else when.replace(tzinfo=timezone.utc)


@dataclass(frozen=True)
class SnapshotInfo:
    """One manifest as `archiver snapshots` lists it (forgotten sessions left out)."""

    key: str
    host_id: str
    created_at: str
    sessions: int
    bytes: int  # the files a restore of this state writes, each path once
    stored_bytes: int  # the encrypted manifest itself

    def to_json(self) -> dict[str, object]:
        return {"host_id": self.host_id, "created_at": self.created_at, "sessions": self.sessions,
                "bytes": self.bytes, "key": self.key, "manifest_bytes": self.stored_bytes}


@dataclass
class Catalog:
    sessions: dict[str, Session]
    manifests: list[ManifestRef]  # those read: with `at`, the ones at or before it
    errors: list[str]
    snapshots: list[SnapshotInfo] = field(default_factory=list)
    at: datetime | None = None
    # with `at`: hosts whose every manifest is newer, and the stamp of their first one
    hosts_later: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def iso_utc(when: datetime) -> str:
    """A time as manifests record it (`created_at`, `archived_at`): UTC, milliseconds, `Z`."""
    return when.astimezone(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def parse_utc(text: str) -> datetime:
    """A manifest's `created_at` (ISO-8601, `Z` or an offset; naive means UTC) as an aware datetime."""
    when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return when if when.tzinfo else when.replace(tzinfo=timezone.utc)


def stamp_time(ref: ManifestRef) -> datetime:
    """The whole second in the manifest's key: its `created_at` truncated (§1); ValueError for a
    key some other writer named differently."""
    return datetime.strptime(ref.created, STAMP).replace(tzinfo=timezone.utc)


def stamp_of(ref: ManifestRef) -> datetime | None:
    """stamp_time, or None for a key some other writer named differently."""
    try:
        return stamp_time(ref)
    except ValueError:
        return None


def load_catalog(archive: Archive, identities: Sequence[object], host_id: str | None = None, *,
                 at: datetime | None = None, object_id_key: bytes | None = None) -> Catalog:
    """Decrypt every manifest (of one host, or all) and keep the newest state per session.

    With `at`, only manifests created at or before it count: the archive as it was then. A
    manifest whose key stamp is already later is not even fetched. Sessions erased by
    forget-session (a tombstone, FORMAT.md §7) are left out of every manifest, so an older one
    that forget-session could not rewrite (locked) does not bring them back; that needs the
    team key (`object_id_key`), which tombstone ids are keyed with."""
    every = archive.manifests(host_id)
    refs = every if at is None else [r for r in every if (stamp_of(r) or at) <= at]
    errors: list[str] = []
    notes: list[str] = []
    forgotten = _forgotten(archive, object_id_key, errors, notes)
    loaded: list[tuple[ManifestRef, Manifest]] = []
    read: list[ManifestRef] = []  # refs at or before `at`, readable or not
    for ref in refs:
        try:
            m = archive.load_manifest(ref.key, identities)
        except (ArchiveFormatError, NotFound) as e:
            errors.append(str(e))
            read.append(ref)
            continue
        if at is not None and not _at_or_before(m, at, errors):
            continue
        m.sessions = [s for s in m.sessions if not forgotten(s.key)]
        loaded.append((ref, m))
        read.append(ref)
    loaded.sort(key=lambda p: p[1].created_at)
    catalog = Catalog(sessions=latest_sessions([m for _, m in loaded]), manifests=read, errors=errors,
                      snapshots=[_summary(ref, m) for ref, m in loaded], at=at, notes=notes)
    if at is not None:
        catalog.hosts_later = _hosts_later(every, {r.host_id for r in read})
    return catalog


def _at_or_before(m: Manifest, at: datetime, errors: list[str]) -> bool:
    try:
        return parse_utc(m.created_at) <= at
    except ValueError:
        errors.append(f"manifest of host {m.host_id}: created_at {m.created_at[:40]!r} is not a time; left out")
        return False


def _forgotten(archive: Archive, object_id_key: bytes | None, errors: list[str],
               notes: list[str]) -> Callable[[str], bool]:
    """A test for session keys erased by forget-session (their tombstones)."""
    try:
        tombs = archive.tombstones()
    except StoreError as e:
        errors.append(f"cannot list tombstones/ ({e}): sessions erased by forget-session could show")
        return lambda key: False
    if not tombs:
        return lambda key: False
    if object_id_key is None:
        notes.append(f"{len(tombs)} session(s) were erased by forget-session; without the team key this reader "
                     "cannot tell which, so one still named by a manifest forget-session could not rewrite "
                     "(locked) would show")
        return lambda key: False
    return lambda key: tombstone_id(object_id_key, key) in tombs


def _summary(ref: ManifestRef, m: Manifest) -> SnapshotInfo:
    sizes = {a.path: a.size for s in m.sessions for a in s.artifacts}
    return SnapshotInfo(key=ref.key, host_id=m.host_id, created_at=m.created_at, sessions=len(m.sessions),
                        bytes=sum(sizes.values()), stored_bytes=ref.size)


def _hosts_later(refs: list[ManifestRef], present: set[str]) -> dict[str, str]:
    """Hosts with manifests, none of them in `present`: host id -> stamp of its first manifest."""
    out: dict[str, str] = {}
    for ref in refs:  # oldest first
        if ref.host_id not in present and ref.host_id not in out:
            when = stamp_of(ref)
            out[ref.host_id] = when.strftime("%Y-%m-%dT%H:%M:%SZ") if when else ref.created
    return out
