"""The pipeline: discover -> snapshot -> redact -> verify -> pack -> upload -> manifest.

Order of writes (the crash-safety invariant, docs/FORMAT.md): every object a
manifest names is uploaded before the manifest; local state changes only after
the manifest is stored. A run killed anywhere leaves the archive as before or
complete, and the next run finishes the work (objects already uploaded are found
by id and not sent again).
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import itertools
import logging
import marshal
import os
import re
import secrets
import shutil
import sqlite3
import sys
import tempfile
import threading
import time
import weakref
from collections import deque
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Callable, Iterable, Iterator, Mapping, NamedTuple, Sequence

import orjson

from archiver import __version__, allocator
from archiver.archive import Archive, ManifestStream, chain_digest, iso_utc, tombstone_id
from archiver.harnesses.base import Harness
from archiver.model import GONE_NOTE, Artifact, DiscoveredSession, Manifest, Session, SourceArtifact, compact, is_utf8
from archiver.redact.base import RedactionReport, Redactor
from archiver.redact.folder_aliases import Aliases, cwd_folder_aliases
from archiver.session_ids import SessionIds
from archiver.snapshot import (
    TORN_TAIL_STALE,
    FileIdentity,
    SnapshotError,
    complete_length,
    copy_sqlite,
    copy_whole,
    decompress_zst,
    fingerprint,
    open_regular,
    torn_tail,
    whole_jsonl_length,
)
from archiver.state import ArtifactState, DiscoveryCache, Known, State, StateError
from archiver.store.base import StoreError
from archiver.workers import JobResult, Jobs, WorkerCrashed, pin_socket_dir

log = logging.getLogger(__name__)
_BLOCK = 1024 * 1024
STALE_UPLOAD_AGE = timedelta(hours=1)
# what the long way checks that signatures stored before it did not cover: a stored signature
# without it sends its session the long way once ("torn-tail": a file that held back a final line
# before torn tails were checked is looked at, so one a crashed harness left is reported; _signed_as)
_SIGNATURE_TAGS: tuple[str, ...] = ("torn-tail",)


# A stored signature of a session whose JSONL file holds back a final line (no newline yet) carries
# `<sep><mtime_ns>` of the newest such file while it is fresh, `<sep>stale` once a run said it
# stopped mid-line: the fast path takes the first until TORN_TAIL_STALE has passed (then the long
# way reports it, once), the second for as long as the files are as stored.
_TORN_SEP = "+torn:"
_STALE_NOTED = "stale"


def _signed_as(stored: str, sig: str) -> bool:
    """May a session whose files are as stored take the fast path: `stored` (its stored signature)
    is `sig`, or `sig` with a held-back line that is still fresh, or one already reported?"""
    if stored == sig:
        return True
    base, sep, torn = stored.partition(_TORN_SEP)
    if not sep or base != sig:
        return False
    if torn == _STALE_NOTED:
        return True
    try:
        return time.time() - int(torn) / 1e9 <= TORN_TAIL_STALE
    except ValueError:
        return False


class HeldBack(Exception):
    """Redacted output still matches a high-confidence rule (fail_closed)."""


class SessionFailed(Exception):
    pass


@dataclass
class SyncOptions:
    dry_run: bool = False
    fail_closed: bool = True
    workers: int = 1  # sessions processed at once (threads) and redaction processes
    # with workers > 1, a run with less than this to redact does it in this process (None:
    # workers.INLINE_BYTES; 0: always in the workers)
    inline_bytes: int | None = None
    # what redacted titles, warnings and paths depend on (rules, terms, keys: commands/sync.py computes
    # it). Set, a session found exactly as last archived is taken as is, without redacting
    # anything again; None, every session goes the long way.
    redaction_fingerprint: str | None = None


class SessionNote(NamedTuple):
    """A session of the run as SyncResult lists it: its key and warnings, not the model (a run
    of thousands of sessions would keep them all alive)."""

    key: str
    warnings: tuple[str, ...]
    # archived anew by this run, or its warnings differ from the stored ones; False for a session
    # carried unchanged into the new manifest with the warnings an earlier run gave it
    changed: bool = False


# A finished session until its manifest is written: its manifest JSON and, for one that went the
# long way, its files' states (marshalled rows, each artifact by its place in the session), kept
# in the run's spill file (_Spill); the parent holds where they are: (offset, JSON length, rows
# length or -1), ~150 B a session instead of ~6 KB of models.
Held = tuple[int, int, int]


@dataclass
class SyncResult:
    snapshot: str | None = None
    total: int = 0
    uploaded: int = 0  # sessions with at least one new object
    unchanged: int = 0
    failed: int = 0
    forgotten: int = 0  # sessions skipped because an operator erased them (tombstones)
    bytes_read: int = 0
    bytes_uploaded: int = 0
    objects_uploaded: int = 0
    redactions: dict[str, int] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    sessions: list[SessionNote] = field(default_factory=list)

    def to_json(self) -> dict[str, object]:
        return {
            "snapshot": self.snapshot,
            "sessions": {"total": self.total, "uploaded": self.uploaded, "unchanged": self.unchanged,
                         "failed": self.failed},
            "forgotten": self.forgotten,
            "bytes": {"read": self.bytes_read, "uploaded": self.bytes_uploaded},
            "objects_uploaded": self.objects_uploaded,
            "redactions": dict(sorted(self.redactions.items())),
            "errors": self.errors,
            "warnings": self.warnings,
            # what the collectors noted about the sessions archived in this run (a broken file
            # archived as is, a database not readable, a sidecar left out), as the manifest keeps it
            "session_warnings": {s.key: list(s.warnings) for s in sorted(self.sessions, key=lambda s: s.key)
                                 if s.warnings},
        }


class Workdir:
    """A 0700 folder for plaintext temp files, removed at the end (and at next start).

    Its files are spread over SHARDS subfolders (0700 too), in turn: the session threads and
    the workers create and remove files all the time, and creates in one folder wait on its
    lock, spinning (measured on ext4: 0.43 ms of CPU a create with six threads in one folder,
    0.1 ms in six folders; ~2,900 creates in a cold sync of 1,300 files)."""

    SHARDS = 16

    def __init__(self, parent: Path) -> None:
        parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        os.chmod(parent, 0o700)
        for stale in parent.glob("run-*"):  # left by a killed run
            shutil.rmtree(stale, ignore_errors=True)
        self.path = Path(tempfile.mkdtemp(prefix="run-", dir=parent))
        os.chmod(self.path, 0o700)
        self._shards = [self.path / f"s{i:02d}" for i in range(self.SHARDS)]
        for shard in self._shards:
            shard.mkdir(mode=0o700)
            os.chmod(shard, 0o700)  # (mkdir's mode is masked by the umask)
        self._counter = itertools.count(1)

    def file(self, stem: str) -> Path:
        n = next(self._counter)
        return self._shards[n % self.SHARDS] / f"{n:06d}-{stem}"

    def cleanup(self) -> None:
        shutil.rmtree(self.path, ignore_errors=True)


class Syncer:
    def __init__(
        self,
        *,
        harnesses: Sequence[Harness],
        redactor: Redactor,
        archive: Archive | None,
        state: State,
        recipients: Sequence[object],
        object_id_key: bytes,
        host_id: str,
        workdir_parent: Path,
        options: SyncOptions,
        progress: Callable[[str, int], None] | None = None,
        redactor_factory: Callable[[], Redactor] | None = None,
        discovery_cache: DiscoveryCache | None = None,
    ) -> None:
        self.harnesses = {h.name: h for h in harnesses}
        self.discovery_cache = discovery_cache  # the collectors' (their HarnessContext.cache), if any
        self.redactor = redactor
        self.archive = archive
        self.state = state
        self.recipients = recipients
        self.object_id_key = object_id_key
        self.host_id = host_id
        self.workdir_parent = workdir_parent
        self.options = options
        self.progress = progress or (lambda _event, _n: None)
        self.result = SyncResult()
        self.redactor_factory = redactor_factory
        self._lock = threading.RLock()  # guards result, state and the in-flight set
        self._in_flight: dict[str, threading.Event] = {}  # object id -> set when its upload ended
        self._counts: dict[str, dict[str, int]] = {}
        self._tombstones: set[str] = set()
        self._forgotten: list[str] = []
        self.jobs: Jobs | None = None
        self._known: dict[str, Known] = {}
        self._fast: dict[str, DiscoveredSession] = {}  # taken unchanged; parsed only if a manifest needs them
        self._one: weakref.ref[Callable[[DiscoveredSession], None]] | None = None
        # id(ds) -> its signature and which of its sources stat'ed (bit i: ds.sources[i]): only that
        # much of the stats is kept for _note_signature, not a tuple a file through the run
        self._pending: dict[int, tuple[str, int]] = {}
        self._sigs: dict[str, str | None] = {}  # signatures to store with the sessions
        self.ids = SessionIds(redactor)  # replaced in run(), with the state's cache
        self._spill: _Spill | None = None  # finished sessions until the manifest (run)

    # ---- the run ----
    def run(self) -> SyncResult:
        started = _now()
        allocator.tune()  # before the session threads start
        work = Workdir(self.workdir_parent)
        # every temp file of this run (collectors' database copies, libraries, worker
        # processes started later) lands in the 0700 run folder, removed at the end
        pin_socket_dir(self.workdir_parent)  # the worker pool's socket folder, fixed before the switch
        saved_tempdir, saved_env = tempfile.tempdir, os.environ.get("TMPDIR")
        tempfile.tempdir = str(work.path)
        os.environ["TMPDIR"] = str(work.path)
        # with an archive to write, jobs pack what they redact (workers.py): no plaintext goes
        # back through the parent, which only uploads
        packing = not self.options.dry_run and self.archive is not None
        self.jobs = Jobs(self.redactor, self.object_id_key, self.options.fail_closed,
                         workers=self.options.workers, factory=self.redactor_factory,
                         recipients=self.recipients if packing else None,
                         inline_bytes=self.options.inline_bytes)
        try:
            # ids, keys and parents as archived (redacted) from here on: state, signatures,
            # tombstones, messages and the manifest all name a session by its archived key
            self.ids = SessionIds(self.redactor, self.state, self.options.redaction_fingerprint)
            discovered = self._take_unchanged(self._archived_ids(self._discover()))  # the rest: the long way
            if not self.options.dry_run:
                self._release_discovery_cache()
            # The store is first touched here, and only if something is to be written: a run that
            # finds everything as stored makes no request (and, lazily opened, imports no boto3)
            if self.archive is not None and not self.options.dry_run and (discovered or self._manifest_due()):
                self._open_archive()
                discovered = self._drop_forgotten(discovered)
            self.result.total = len(discovered) + len(self._fast)
            self.progress("total_sessions", self.result.total)
            if self._fast:
                self.progress("session", len(self._fast))
            processed: dict[str, Held] = {}
            spill = self._spill = _Spill(work.file("finished"))
            ready = getattr(self.redactor, "ready", None)  # a redactor built on first use (commands/sync.py)
            if discovered and ready is not None:
                ready()  # here, so a rules error stops the run before any session starts

            def one(ds: DiscoveredSession) -> None:
                try:
                    session, states, changed = self._session(ds, work)
                    held = spill.put(*_hold(session, states))
                except (HeldBack, SessionFailed, SnapshotError, OSError, StoreError, WorkerCrashed) as e:
                    self._fail(f"{ds.key}: {e}")
                    return
                except Exception as e:  # one bad session never stops the others
                    # the message of an unexpected error may quote file content: not shown
                    log.debug("session %s failed with %s", ds.key, type(e).__name__)
                    self._fail(f"{ds.key}: internal error ({type(e).__name__}) while archiving; "
                               "details withheld as they may quote session content")
                    return
                with self._lock:
                    processed[session.key] = held
                    self.result.sessions.append(SessionNote(session.key, tuple(session.warnings), changed))
                    if changed:
                        self.result.uploaded += 1
                    else:
                        self.result.unchanged += 1
                    for rule, n in self._counts.pop(session.key, {}).items():
                        self.result.redactions[rule] = self.result.redactions.get(rule, 0) + n
                self.progress("session", 1)

            # the long way, also for a taken-unchanged session _commit cannot read back (a weak
            # reference: the closure holds this Syncer, which must not hold it back)
            self._one = weakref.ref(one)
            # handed out one by one, so that a session's sources are freed once it is done
            todo = deque(discovered)
            del discovered
            if self.options.workers > 1:
                # more sessions in flight than redaction processes: while some sessions snapshot,
                # pack or upload (I/O, or C code that drops the GIL) the processes stay busy
                _pull(one, todo, 2 * self.options.workers + 2)
            else:
                for ds in _drain(todo):
                    one(ds)
            self.jobs.stop_workers()
            if not self.options.dry_run:
                self._commit(processed, started, work)
        finally:
            self.jobs.close()
            if self._spill is not None:
                self._spill.close()
                self._spill = None
            for h in self.harnesses.values():
                close = getattr(h, "close", None)
                if close:
                    close()
            work.cleanup()
            tempfile.tempdir = saved_tempdir
            if saved_env is None:
                os.environ.pop("TMPDIR", None)
            else:
                os.environ["TMPDIR"] = saved_env
        return self.result

    def _fail(self, message: str) -> None:
        with self._lock:
            self.result.failed += 1
            self.result.errors.append(self._safe(message))
        self.progress("session", 1)

    def _abort_stale_uploads(self) -> None:
        """Multipart uploads left by killed runs cost money until aborted. Those older than
        an hour are nobody's live upload (ours hold the run lock; others' finish sooner)."""
        assert self.archive is not None
        abort = getattr(self.archive.store, "abort_incomplete_uploads", None)
        if abort is None:
            return
        try:
            n = abort(STALE_UPLOAD_AGE)
        except (StoreError, NotImplementedError) as e:
            self.result.warnings.append(self._safe(f"could not list incomplete multipart uploads: {e}"))
            return
        if n:
            self.result.warnings.append(f"aborted {n} incomplete multipart upload(s) left by an earlier run")

    def _open_archive(self) -> None:
        """Before anything is written: the archive's format marker, its tombstones (sessions
        erased by forget-session), multipart uploads left by killed runs."""
        assert self.archive is not None
        self.state.forget_unreferenced_objects()  # (what may have been pruned is looked up again)
        self.archive.ensure_marker()
        # objects' directory entries are made durable once, before the state or a manifest
        # names them (_commit), not one fsync per object (FORMAT.md §6)
        self.archive.defer_object_sync()
        try:
            self._tombstones = self.archive.tombstones()
        except StoreError as e:
            # without the list, erased sessions might come back: say so loudly, go on
            self.result.errors.append(self._safe(f"cannot list tombstones/ ({e}); "
                                                 "sessions erased by forget-session may be archived again"))
        self._abort_stale_uploads()

    def _manifest_due(self, processed: Mapping[str, object] | None = None) -> bool:
        """Must this run write a manifest even if no session changed? When the last run stored
        its state but not its manifest, or no manifest was ever written for these sessions."""
        return (self.state.get_meta("manifest_pending") is not None
                or (self.state.get_meta("last_manifest") is None and bool(processed or self._fast)))

    def _drop_forgotten(self, rest: list[DiscoveredSession]) -> list[DiscoveredSession]:
        """Sessions erased by forget-session are neither archived nor carried on."""
        if not self._tombstones:
            return rest
        gone = [k for k in self._fast if self._is_forgotten(k)]
        for key in gone:
            del self._fast[key]
        self.result.unchanged -= len(gone)
        kept = [ds for ds in rest if not self._is_forgotten(ds.key)]
        gone += [ds.key for ds in rest if self._is_forgotten(ds.key)]
        self.result.forgotten += len(gone)
        self._forgotten.extend(gone)
        return kept

    def _is_forgotten(self, key: str) -> bool:
        return bool(self._tombstones) and tombstone_id(self.object_id_key, key) in self._tombstones

    def _archived_ids(self, found: Iterable[DiscoveredSession]) -> Iterator[DiscoveredSession]:
        """Each session under its archived (redacted) id, see SessionIds. Two ids of one harness
        that redact alike (`Alice-x`, `alice-x`) get a keyed suffix from the id as found, so
        neither overwrites the other; their references to each other cannot be told apart."""
        seen: set[str] = set()
        for ds in found:  # one by one, as discovered (_take_unchanged starts the workers early)
            raw = ds.session_id
            self.ids.discovered(ds)
            if ds.key in seen:
                base = ds.session_id
                # the id as found, then (one id in several folders: a copied Claude Code project)
                # the id with its first file's path: stable from run to run, unique in this one
                where = ds.sources[0].path if ds.sources else ""
                for salt in (raw, f"{raw}\0{where}", *(f"{raw}\0{where}\0{n}" for n in range(2, 1000))):
                    tag = hmac.new(self.object_id_key, f"session-id\0{ds.harness}\0{salt}".encode(), "sha256").hexdigest()
                    ds.session_id = f"{base}~{tag[:8]}"
                    if ds.key not in seen:
                        break
                ds.warnings.append(f"session id redacts like another one's: archived as {ds.session_id}")
            seen.add(ds.key)
            yield ds

    def _discover(self) -> Iterable[DiscoveredSession]:
        for h in self.harnesses.values():
            try:
                for ds in h.discover():
                    for problem in ds.errors:
                        self.result.errors.append(self._safe(f"{ds.key}: {problem}"))
                    if self._utf8_only(ds):
                        yield ds
            except Exception as e:  # a broken collector must not stop the others
                self.result.errors.append(self._safe(f"{h.name}: discovery failed: {type(e).__name__}: {e}"))
                self.result.failed += 1

    def _release_discovery_cache(self) -> None:
        """The collectors' discovery cache (state.DiscoveryCache) goes to the state now, not at
        the end of the run: nothing holds it through the sessions (a dry run writes none)."""
        if self.discovery_cache is not None:
            self.discovery_cache.release()
        allocator.release()  # its strings' memory, to the system or the sessions to come

    def _utf8_only(self, ds: DiscoveredSession) -> bool:
        """Manifests and the state are UTF-8, Linux file names are bytes: a session whose id is no
        UTF-8 fails (named with escapes), an edge to such an id is dropped with a warning, and a
        title keeps its escapes. (A sidecar so named is left out in _session.) An edge from a session
        to itself (a broken record) is dropped: `lineage` would show the session nowhere."""
        if not is_utf8(ds.key):
            self.result.errors.append(self._safe(
                f"{ds.key}: session id is not valid UTF-8 (FORMAT.md: keys and paths are UTF-8); not archived"))
            self.result.failed += 1
            return False
        own = [e for e in ds.parents if e.parent == ds.key]  # a record naming the session as its own parent
        if own:
            ds.parents = [e for e in ds.parents if e not in own]
            ds.warnings += [f"{e.relation} edge to itself dropped: the session names itself as its parent" for e in own]
        bad = [e for e in ds.parents if not is_utf8(e.parent) or not is_utf8(e.at or "")]
        if bad:
            ds.parents = [e for e in ds.parents if e not in bad]
            ds.warnings += [f"{e.relation} edge to {e.parent} dropped: not valid UTF-8" for e in bad]
        if ds.title is not None and not is_utf8(ds.title):
            ds.title = _printable(ds.title)
        return True

    # ---- unchanged sessions: the fast path ----
    def _take_unchanged(self, discovered: Iterable[DiscoveredSession]) -> list[DiscoveredSession]:
        """Sessions found exactly as last archived -- same signature (metadata, file list,
        redaction fingerprint) and every file stat-identical (inode, size, mtime_ns) to its
        stored state -- are taken as stored, here: no thread, no redaction, no query each,
        and their stored rows are parsed only if this run writes a manifest (_commit).
        Returns the others. A signature is stored only with the session archived under it
        (see _note_signature), so equal signatures mean the long way would change nothing.
        Once the files not as stored add up to more than the jobs' inline budget, the redaction
        workers start, and their start (imports, rules) overlaps the rest of discovery; less than
        that is redacted in this process (workers.INLINE_BYTES). The others come back largest first."""
        self._known = self.state.known()
        known_get = self._known.get
        rest: list[DiscoveredSession] = []
        sizes: dict[int, int] = {}  # id(ds) -> about how much its long way redacts
        warm = self.jobs.warm if self.jobs is not None else None
        budget = self.jobs.inline_bytes if self.jobs is not None else 0
        for ds in discovered:
            key = ds.key
            try:
                sig, stats = self._signature(ds)
            except Exception:  # noqa: BLE001 - metadata the signature cannot hold: the long way decides
                sig, stats = None, []
            if sig is not None:
                self._pending[id(ds)] = (sig, _stat_mask(stats))
            known = known_get(key)
            same = (sig is not None and known is not None and known.signature is not None
                    and _signed_as(known.signature, sig) and key not in self._fast)
            if same:
                files = known.files  # type: ignore[union-attr]
                for src, st in zip(ds.sources, stats):
                    if type(st) is tuple and files.get(_logical(src.path)) != st:
                        same = False
                        break
            if not same:
                rest.append(ds)
                size = sizes[id(ds)] = _bytes_to_redact(ds, known, stats)
                if warm is not None:
                    budget -= size
                    if budget < 0:
                        warm()
                        warm = None
                continue
            self._fast[key] = ds
            self.result.unchanged += 1
        # Largest first (stable): a session too big to split (a database, a JSON file) started
        # last would keep one worker busy alone at the end; and the biggest jobs, which bring
        # the workers' memory peak, run while this process holds few finished sessions.
        rest.sort(key=lambda ds: -sizes[id(ds)])
        return rest

    def _materialize_unchanged(self, processed: dict[str, Held]) -> None:
        """A manifest is written: the sessions taken unchanged join it as stored (held as their
        JSON; their rows stay as they are). One whose stored row no longer parses (bit rot) goes
        the long way now, as if never archived."""
        for key, ds in self._fast.items():
            if key in processed:
                continue
            session = self.state.get_session(key)  # an unreadable row is dropped: a cache miss
            if session is not None:
                processed[key] = self._put(session.model_dump_json().encode())
                self.result.sessions.append(SessionNote(key, tuple(session.warnings)))
            else:
                one = self._one() if self._one is not None else None
                if one is not None:
                    self.result.unchanged -= 1
                    one(ds)

    def _signature(self, ds: DiscoveredSession) -> tuple[str | None, list[object]]:
        """(signature, per source: (inode, size, mtime_ns) as _identity gives it, or the errno
        of its failed stat). None when there is no redaction fingerprint or a required file
        cannot be stat'ed. Runs for every file, every run: plain os.stat, no Path objects."""
        stats: list[object] = []
        files = []
        required_missing = False
        for src in ds.sources:
            source = src.file
            try:
                st = os.stat(source)
                ident: object = (st.st_ino, st.st_size, st.st_mtime_ns)
                if src.identity is not None:
                    ident = tuple(src.identity)
                elif src.mode in ("sqlite", "produced") or src.format == "sqlite":
                    try:  # committed writes live in the -wal until a checkpoint (an empty one: none)
                        w = os.stat(source + "-wal")
                        if w.st_size:
                            ident = (st.st_ino, st.st_size + w.st_size, max(st.st_mtime_ns, w.st_mtime_ns))
                    except OSError:
                        pass
                state = 0
            except OSError as e:
                ident = state = e.errno or -1
                required_missing = required_missing or not src.optional
            stats.append(ident)
            files.append((source, src.path, src.role, src.format, src.mode, src.shared, src.optional, state))
        fingerprint = self.options.redaction_fingerprint
        if fingerprint is None or required_missing:
            return None, stats
        doc = (fingerprint, __version__, self.host_id, ds.harness, ds.session_id, ds.kind, ds.title, ds.created_at,
               ds.updated_at, ds.cwd, ds.warnings, [(e.relation, e.parent, e.at, e.inferred) for e in ds.parents],
               files) + ((ds.uses,) if ds.uses else ()) + _SIGNATURE_TAGS  # (no uses: signatures from before it)
        return hashlib.blake2b(orjson.dumps(doc), digest_size=16).hexdigest(), stats

    def _note_signature(self, ds: DiscoveredSession, states: list[ArtifactState], valid: bool,
                        torn: int | str | None = None) -> None:
        """After the long way: the signature to store with the session, or None (forget the
        stored one) when the run saw its files differently than the signature did (one
        vanished, appeared or failed in between) or the state may keep another session.
        `torn`: the mtime (ns) of the newest file holding back a final line while fresh, or
        _STALE_NOTED once the run said that its files stopped mid-line (_signed_as)."""
        sig: str | None
        sig, stated = self._pending.pop(id(ds), (None, 0))
        if not valid:
            sig = None
        if sig is not None:
            want = {_logical(src.path) for i, src in enumerate(ds.sources) if stated >> i & 1}
            if {st.logical_path for st in states} != want:
                sig = None
        if sig is not None and torn is not None:
            sig += f"{_TORN_SEP}{torn}"
        known = self._known.get(ds.key)
        if sig != (known.signature if known is not None else None):
            with self._lock:
                self._sigs[ds.key] = sig

    def _safe(self, message: str) -> str:
        """Errors end up in manifests and logs: redact them like content (a file name that is not
        UTF-8 is shown with escapes: manifests are UTF-8)."""
        return self.redactor.redact_text(_printable(message), RedactionReport(), "error")

    def _named(self, ds: DiscoveredSession, src: SourceArtifact) -> str:
        """A source file as errors name it: the path it is archived under (HOME-relative, redacted
        by the collector's own rules, so a folder derived from a path, such as Claude's project
        key, is rewritten from the redacted cwd); `_safe` alone cannot undo such a slug."""
        try:
            return self._archived_path(ds, src, RedactionReport())
        except Exception:  # noqa: BLE001 - naming a file for an error must not raise another
            return src.path

    def _archived_names(self, ds: DiscoveredSession, warning: str) -> str:
        """A collector's warning with each of the session's files it names (by its HOME-relative
        path) named as errors name it (`_named`)."""
        for src in ds.sources:
            if src.path in warning:
                warning = warning.replace(src.path, self._named(ds, src))
        return warning

    # ---- one session ----
    def _session(self, ds: DiscoveredSession, work: Workdir) -> tuple[Session, list[ArtifactState], bool]:
        report = RedactionReport()
        with self._lock:
            previous = self.state.get_session(ds.key)
        artifacts: list[Artifact] = []
        states: list[ArtifactState] = []
        warnings = [self._safe(self._archived_names(ds, w)) for w in ds.warnings]
        if ds.unread is not None:  # found but not read (a broken page of its database): failed, its archived state kept
            raise SessionFailed("; ".join(warnings) or self._safe(f"not read ({ds.unread})"))
        changed = previous is None
        aliases = functools.cache(lambda: self._folder_aliases(ds))  # only for a file that is redacted
        torn_since: int | None = None  # the newest mtime (ns) of a file holding back a final line, still fresh
        stale: list[str] = []  # ... by a file unchanged for TORN_TAIL_STALE: said on the session and the run
        for src in ds.sources:
            if not is_utf8(src.path):
                note = f"{self._named(ds, src)}: file name is not valid UTF-8 (FORMAT.md: paths are UTF-8); not archived"
                if src.role in ("transcript", "database"):
                    raise SessionFailed(self._safe(note))
                warnings.append(self._safe(note))
                continue
            try:
                art_state, art_changed = self._artifact(ds, src, work, report, aliases)
            except FileNotFoundError:
                named = self._named(ds, src)
                if src.optional:
                    warnings.append(self._safe(f"{named}: referenced file is missing"))
                    continue
                if src.role in ("transcript", "database"):
                    raise SessionFailed(self._safe(f"{named}: vanished during the run")) from None
                warnings.append(self._safe(f"{named}: vanished during the run; kept the archived copy if any"))
                artifacts.extend(self._archived_copy(ds, src))
                continue
            except HeldBack as e:
                raise HeldBack(self._safe(f"{self._named(ds, src)}: held back, redacted output still matches {e}")) from None
            except (SnapshotError, OSError) as e:
                named, reason = self._named(ds, src), _reason(e, src.source)
                if src.role in ("transcript", "database"):
                    raise SessionFailed(self._safe(f"{named}: {reason}")) from None
                kept = self._archived_copy(ds, src)  # still there but unreadable: not "gone from the machine"
                warnings.append(self._safe(f"{named}: not archived ({reason})"
                                           + ("; kept the archived copy" if kept else "")))
                artifacts.extend(kept)
                continue
            artifacts.append(art_state.artifact)
            states.append(art_state)
            changed = changed or art_changed
            held = self._torn_tail(src, art_state)
            if held:
                if time.time() - art_state.mtime_ns / 1e9 <= TORN_TAIL_STALE:
                    torn_since = max(torn_since or 0, art_state.mtime_ns)
                else:
                    stale.append(self._safe(
                        f"{self._named(ds, src)}: its last line has no newline and the file has not changed for "
                        f"over {TORN_TAIL_STALE // 60} minutes (the harness stopped mid-write?): {held} byte(s) "
                        "held back, not archived until the line is complete"))
        lost_primary = False  # the transcript / database the session's facts were read from is gone
        if previous is not None:
            # files the harness deleted since (Claude prunes transcripts): keep what we archived
            now = {_logical(a.path) for a in artifacts}
            retired = re.compile(ds.retired) if ds.retired else None
            gone = [old for old in previous.artifacts if _logical(old.path) not in now
                    and (retired is None or retired.fullmatch(old.path) is None)]
            moved = self._moved(ds.key, gone, states) if gone else set()
            for old in gone:
                if old.path in moved:  # the same file under a new name (Codex archived_sessions/, a renamed project)
                    continue
                artifacts.append(old)
                lost_primary = lost_primary or old.role in ("transcript", "database")
                note = f"{old.path}{GONE_NOTE}"
                if note not in warnings:
                    warnings.append(note)
        warnings.extend(w for w in stale if w not in warnings)
        counts = report.by_rule()
        for note in [k for k in counts if k.startswith("note:")]:
            warnings.append(f"{note[5:]}: {counts.pop(note)}")
        with self._lock:
            self._counts[ds.key] = counts
        total_counts = dict(previous.redactions) if previous else {}
        for rule, n in counts.items():
            total_counts[rule] = total_counts.get(rule, 0) + n
        title = self.redactor.redact_text(ds.title, report, "title") if ds.title else None
        cwd = self.redactor.redact_text(ds.cwd, report, "path") if ds.cwd else None
        kind, created_at, parents, uses = ds.kind, ds.created_at, ds.parents, ds.uses
        if previous is not None and lost_primary:
            # what the gone (kept) transcript said stays with it: a session of leftovers (file
            # backups of a pruned transcript) has no title or lineage of its own to replace it
            title, created_at = title or previous.title, created_at or previous.created_at
            cwd = cwd or previous.cwd
            if not parents:
                kind, parents = previous.kind, previous.parents
            uses = uses or previous.uses
        session = compact(Session(
            key=ds.key, harness=ds.harness, session_id=ds.session_id, kind=kind, title=title, cwd=cwd,
            created_at=created_at, updated_at=ds.updated_at, artifacts=artifacts, parents=parents, uses=uses,
            redactions=total_counts, warnings=warnings, host_id=self.host_id,
            archived_at=previous.archived_at if previous and not changed else _now(),
        ))
        if previous is not None and not changed:
            changed = _differs(previous, session)
        # unchanged, the state may keep `previous` (no manifest): the signature goes with it only if equal
        # (its redaction counts aside: a file archived again with the same bytes counts again)
        same = previous is not None and previous.model_copy(update={"redactions": session.redactions}) == session
        # a final line held back by a file still fresh: the fast path takes the session only until
        # the file is TORN_TAIL_STALE old (a crashed writer), then the long way says so, once
        self._note_signature(ds, states, valid=changed or same,
                             torn=_STALE_NOTED if stale and torn_since is None else torn_since)
        if stale:
            with self._lock:
                self.result.warnings.extend(f"{session.key}: {w}" for w in stale)
        return session, states, changed

    @staticmethod
    def _torn_tail(src: SourceArtifact, st: ArtifactState) -> int:
        """Bytes of a JSONL source's final line a snapshot leaves out (no newline yet), read from
        the file as the run archived it (0 when it changed since, or is not read as is: a produced
        extract, a decompressed rollout)."""
        if src.format != "jsonl" or src.mode not in ("append", "whole") or src.identity is not None:
            return 0
        try:
            held, ident = torn_tail(src.source, whole=src.mode == "whole")
        except OSError:
            return 0
        if (ident.inode, ident.size, ident.mtime_ns) != (st.inode, st.size, st.mtime_ns):
            return 0  # written to since: still live, the next run looks again
        return held

    def _moved(self, key: str, gone: list[Artifact], states: list[ArtifactState]) -> set[str]:
        """Archived paths of `gone` whose file this run archived under another path: same inode,
        and at least the bytes archived before (an inode reused by a new, shorter file is not it);
        or a transcript of the same name, at least as long, under another folder: a Codex rollout
        compressed (.jsonl.zst is a new file) and archived (moved flat) between two runs."""
        with self._lock:
            before = self.state.artifact_identities(key)
        sizes = {st.inode: st.size for st in states if st.inode}
        transcripts = {_basename(st.artifact.path): st.artifact.size for st in states if st.artifact.role == "transcript"}
        out = set()
        for old in gone:
            ident = before.get(old.path)
            if ident is not None and ident[0] in sizes and sizes[ident[0]] >= ident[1]:
                out.add(old.path)
            elif old.role == "transcript" and transcripts.get(_basename(old.path), -1) >= old.size:
                out.add(old.path)
        return out

    # ---- one file ----
    def _archived_copy(self, ds: DiscoveredSession, src: SourceArtifact) -> list[Artifact]:
        """The artifact as the last run archived it (none if it never was)."""
        with self._lock:
            kept = self.state.get_artifact(ds.key, _logical(src.path))
        return [kept.artifact] if kept else []

    def _artifact(self, ds: DiscoveredSession, src: SourceArtifact, work: Workdir, report: RedactionReport,
                  aliases: Callable[[], Aliases] = lambda: ()) -> tuple[ArtifactState, bool]:
        logical = _logical(src.path)
        with self._lock:
            prev = self.state.get_artifact(ds.key, logical)
        ident = _identity(src)
        if prev and prev.artifact.format != src.format:
            # archived in another format (a pack as `binary` before git-pack existed): stale even
            # when the file is not; archived again whole, redacted the way its format now is
            prev = None
        if prev and (prev.inode, prev.size, prev.mtime_ns) == (ident.inode, ident.size, ident.mtime_ns):
            return prev, False
        archived_path = self._archived_path(ds, src, report)
        if src.mode == "append":
            return self._append(ds, src, logical, archived_path, prev, ident, work, report, aliases=aliases())
        if src.mode == "zst":
            raw = work.file("zst-raw")
            decompress_zst(src.source, raw)
            self._add_read(ident.size)
            return self._append(ds, src, logical, archived_path, prev, ident, work, report, read_from=raw,
                                aliases=aliases())
        snap = work.file("snap")
        if src.mode == "sqlite":
            copy_sqlite(src.source, snap)
        elif src.mode == "produced":
            if src.produce is None:
                raise SnapshotError(f"{src.path}: collector declared 'produced' without a producer")
            src.produce(snap)
        else:
            ident = copy_whole(src.source, snap)
            if src.format == "jsonl":
                # as in append mode (FORMAT §6 invariant 5): a final line still being written (a
                # legacy Codex rollout, an older pi file) is in no object until it is complete
                end = whole_jsonl_length(snap)
                if end < snap.stat().st_size:
                    os.truncate(snap, end)
        self._add_read(snap.stat().st_size)
        out = work.file("red")
        assert self.jobs is not None
        job = self.jobs.whole(snap, out, src.format, aliases())
        snap.unlink(missing_ok=True)
        try:
            self._absorb(job, report)
        except HeldBack:
            out.unlink(missing_ok=True)
            raise
        object_id, sha, size = job.object_id, job.sha256, job.size
        new = self._upload(object_id, out, work, job)
        out.unlink(missing_ok=True)
        mtime_ns = ident.mtime_ns if src.identity is None else src.source.stat().st_mtime_ns
        artifact = compact(Artifact(
            path=archived_path, role=src.role, format=src.format, size=size, mtime=mtime_ns / 1e9,
            sha256=sha, objects=[object_id], shared=src.shared,
        ))
        unchanged = prev is not None and prev.artifact.objects == artifact.objects and prev.artifact.path == artifact.path
        return ArtifactState(ds.key, logical, ident.inode, ident.size, ident.mtime_ns, ident.size, "", artifact), new or not unchanged

    def _append(
        self, ds: DiscoveredSession, src: SourceArtifact, logical: str, archived_path: str,
        prev: ArtifactState | None, ident: FileIdentity, work: Workdir, report: RedactionReport,
        read_from: Path | None = None, aliases: Aliases = (),
    ) -> tuple[ArtifactState, bool]:
        """Append-only JSONL: archive only the complete lines added since last time."""
        path = read_from or src.source
        # a live harness file is read only while it is the file checked (a swap for a symlink is
        # refused, here and in the job); a decompressed copy is ours
        live = (ident.inode, ident.dev) if read_from is None and src.identity is None and ident.dev else None
        with (open_regular(path, ident if live else None) if read_from is None else path.open("rb")) as f:
            size = os.fstat(f.fileno()).st_size
            end = complete_length(path, size)
            start, objects, digest, red_size = 0, [], None, 0
            if prev and prev.offset and prev.offset <= end and (read_from is not None or prev.inode == ident.inode):
                if fingerprint(f, prev.offset) == prev.fingerprint:
                    start, objects = prev.offset, list(prev.artifact.objects)
                    digest, red_size = prev.artifact.sha256 or None, prev.artifact.size
            changed = False
            if end > start:
                out = work.file("seg")
                assert self.jobs is not None
                job = self.jobs.segment(path, start, end, out, live, aliases)
                if read_from is None:
                    self._add_read(end - start)
                self._absorb(job, report)
                changed = self._upload(job.object_id, out, work, job) or True
                out.unlink(missing_ok=True)
                objects.append(job.object_id)
                digest = chain_digest(digest if start else None, job.sha256)
                red_size = (red_size if start else 0) + job.size
            elif start == 0:
                digest, red_size = hashlib.sha256(b"").hexdigest(), 0
            fp = fingerprint(f, end) if end else ""
        if prev is not None and prev.artifact.path != archived_path:
            changed = True
        artifact = compact(Artifact(
            path=archived_path, role=src.role, format=src.format, size=red_size, mtime=ident.mtime_ns / 1e9,
            sha256=digest or "", objects=objects, shared=src.shared,
        ))
        return ArtifactState(ds.key, logical, ident.inode, ident.size, ident.mtime_ns, end, fp, artifact), changed

    def _folder_aliases(self, ds: DiscoveredSession) -> Aliases:
        """The session's cwd-named folders as the archive names them (redact/folder_aliases.py),
        for its text files; the cwd's own redactions are not counted again. Not kept between sessions:
        two calls of the rules (~0.15 ms) for a session with a file to redact, none for the others, and
        no memory in the parent, whose peak is the memory case's."""
        folders = getattr(type(self.harnesses.get(ds.harness)), "cwd_folders", None)
        if folders is None or not ds.cwd:
            return ()
        scratch = RedactionReport()
        return cwd_folder_aliases(folders(), ds.cwd, lambda t: self.redactor.redact_text(t, scratch, "path"))

    def _archived_path(self, ds: DiscoveredSession, src: SourceArtifact, report: RedactionReport) -> str:
        harness = self.harnesses.get(ds.harness)
        hook = getattr(harness, "redacted_relpath", None)
        if hook is not None:
            keyed = getattr(self.redactor, "pseudonyms", None)  # for a folder named by a hash (Cursor md5)
            return hook(
                src, ds,
                lambda p: self.redactor.redact_relpath(p, report),
                lambda t: self.redactor.redact_text(t, report, "path"),
                **({"pseudonym": keyed.digest} if keyed is not None else {}),
            )
        return self.redactor.redact_relpath(src.path, report)

    def _absorb(self, job: JobResult, report: RedactionReport) -> None:
        for (rule, carrier), n in job.counts.items():
            # interned: unpickled from a worker, each job's copies would live on in the counts
            # of every session (tens of thousands of small strings in a large run)
            report.add(sys.intern(rule), sys.intern(carrier), n)
        for note, n in (job.notes or {}).items():
            report.add(f"note:{note}", "redactor", n)  # surfaced as session warnings
        if job.leftovers:
            raise HeldBack(", ".join(sorted(set(job.leftovers))))

    def _add_read(self, n: int) -> None:
        with self._lock:
            self.result.bytes_read += n

    def _upload(self, object_id: str, plaintext: Path, work: Workdir, job: JobResult | None = None) -> bool:
        """Upload unless the archive already has it. True when bytes were sent. The job's
        packed output, if any, is used (its file removed, uploaded or not)."""
        packed_file = Path(job.packed_path) if job is not None and job.packed_path else None
        if self.options.dry_run or self.archive is None:
            if packed_file is not None:
                packed_file.unlink(missing_ok=True)
            return False
        while True:
            with self._lock:
                if self.state.has_object(object_id):
                    if packed_file is not None:
                        packed_file.unlink(missing_ok=True)
                    return False
                other = self._in_flight.get(object_id)
                if other is None:
                    done = self._in_flight[object_id] = threading.Event()
                    break
            # another session is uploading the same bytes: ours may count on them only once
            # they are stored; if that upload fails, this session tries itself
            other.wait()
        try:
            if job is not None and (job.packed is not None or packed_file is not None):
                sent = self.archive.put_object(object_id, plaintext, work.file("packed"), self.recipients,
                                               size=job.size, blob=job.packed, packed_file=packed_file)
            else:
                sent = self.archive.put_object(object_id, plaintext, work.file("packed"), self.recipients)
            packed_file = None  # put_object removed it
            with self._lock:
                self.state.add_object(object_id)  # the object exists now, whatever happens next
        finally:
            if packed_file is not None:
                packed_file.unlink(missing_ok=True)
            with self._lock:
                del self._in_flight[object_id]
            done.set()
        with self._lock:
            if sent:
                self.result.bytes_uploaded += sent
                self.result.objects_uploaded += 1
        if sent:
            self.progress("bytes", sent)
        return bool(sent)

    # ---- the manifest, last ----
    def _commit(self, processed: dict[str, Held], started: str, work: Workdir) -> None:
        if self.archive is not None and self.result.objects_uploaded:
            # before the state or a manifest names them: every object of this run durable
            try:
                self.archive.sync_objects()
            except StoreError as e:
                self.result.errors.append(self._safe(f"objects not made durable, no manifest written: {e}"))
                self.state.record_run(secrets.token_hex(8), started, _now(), self.result.to_json())
                return
        keys = self.state.session_keys()  # parsed only when carried: most were just processed
        carried, renamed, moved = self._carried(keys, processed)
        dropped = [k for k in keys if self._is_forgotten(k)]
        # a run that stored its state but not the manifest (killed, or the store failed) left this
        any_change = (self.result.uploaded > 0 or bool(dropped) or bool(renamed)
                      or self._manifest_due(processed))
        if not any_change:
            with self.state.transaction():
                self.ids.save()
                # sessions that went the long way and came out as stored (a touched file, a new
                # inode, an extract with the same fingerprint): their files' new identities go in
                # too, or they would take the long way on every run until some manifest is written
                for key, held in processed.items():
                    if held[2] >= 0:
                        for st in _unhold(key, self._get(held))[1]:
                            self.state.put_artifact(st)
                self.state.put_signatures(self._sigs)  # sessions as stored: first seen the long way
            self.state.record_run(secrets.token_hex(8), started, _now(), self.result.to_json())
            return
        self._materialize_unchanged(processed)
        manifest = Manifest(
            host_id=self.host_id, created_at=self._manifest_time(), run_id=secrets.token_hex(8), tool_version=__version__,
            sessions=[], redactions=dict(sorted(self.result.redactions.items())), errors=self.result.errors,
        )

        def sessions() -> Iterator[bytes]:
            # by key, as Manifest(sessions=sorted(...)) had them (stable: processed, then carried)
            order = [*processed.items(), *carried]
            order.sort(key=lambda p: p[0])
            for _key, held in order:
                yield self._get(held)[0]

        stream = ManifestStream(manifest, sessions, work.file("manifest.json"))
        assert self.archive is not None
        # The state first, flagged "manifest pending", then the manifest. Every object it names is
        # stored already. Killed in between, the next run finds the flag and writes the manifest;
        # the other order left a state behind the archive, and the next run cut a transcript's
        # segments differently from the manifest before it.
        state_error: sqlite3.Error | None = None
        try:
            self._save_state(processed, dropped + renamed, manifest, moved)
        except sqlite3.Error as e:
            state_error = e
        self._check_host_prefix()
        try:
            key = self.archive.put_manifest(stream, self.recipients)
        except (StoreError, OSError) as e:
            # the objects are there; the next run writes the manifest (archive as before)
            self.result.errors.append(self._safe(f"manifest not written: {e}"))
            try:  # `status` must show this run, not the last good one
                self.state.record_run(manifest.run_id, started, _now(), self.result.to_json())
            except sqlite3.Error:
                pass
            return
        self.result.snapshot = key
        try:
            if state_error is not None:
                raise state_error
            with self.state.transaction():
                self.state.set_meta("last_manifest", key)
                self.state.set_meta("last_manifest_at", manifest.created_at)
                self.state.delete_meta("manifest_pending")
                self.state.record_run(manifest.run_id, started, manifest.created_at, self.result.to_json())
        except sqlite3.Error as e:
            # the archive is complete; only the local cache is behind (the next run re-checks)
            from archiver.state import _space_hint

            raise StateError(f"{self.state.path}: {e}{_space_hint(self.state.path)}; the archive is complete, "
                             "the local state was not updated (free space, then run again)") from None

    def _put(self, data: bytes) -> Held:
        assert self._spill is not None
        return self._spill.put(data, None)

    def _get(self, held: Held) -> tuple[bytes, bytes | None]:
        assert self._spill is not None
        return self._spill.get(held)

    def _check_host_prefix(self) -> None:
        """Manifests under this host id that this collector did not write (another machine with
        the same host name, or a local state that was wiped): each reader takes a host's newest
        manifest, so one machine's sessions would hide the other's. Said, not fixed: the host
        name is the operator's to change."""
        assert self.archive is not None
        try:
            refs = self.archive.manifests(self.host_id)
        except StoreError:
            return  # the manifest write will say what is wrong with the store
        last = self.state.get_meta("last_manifest")
        if last is None:
            if refs:
                self.result.warnings.append(
                    f"{len(refs)} manifest(s) under this host id were not written by this collector's state (a "
                    "wiped state dir, or another machine with the same host name; give each machine its own `host`)")
            return
        mine = next((r for r in refs if r.key == last), None)
        newer = [r for r in refs if r.key != last and (mine is None or r.created > mine.created)]
        if mine is not None and newer:
            self.result.warnings.append(
                f"{len(newer)} manifest(s) under this host id are newer than this collector's last one: another "
                "machine uses the same host name (give each machine its own `host`)")

    def _manifest_time(self) -> str:
        """Now, but never at or before this host's last manifest: readers take a session's newest
        state by this time, so a clock that once ran ahead (or was set back) must not leave a
        stale state on top."""
        now = _now()
        last = self.state.get_meta("last_manifest_at")
        if last and now <= last:
            later = datetime.fromisoformat(last.replace("Z", "+00:00")) + timedelta(milliseconds=1)
            log.warning("the clock (%s) is not after this host's last manifest (%s): this manifest is dated %s",
                        now, last, iso_utc(later))
            return iso_utc(later)
        return now

    def _carried(self, keys: list[str], processed: Mapping[str, object]
                 ) -> tuple[list[tuple[str, Held]], list[str], list[Session]]:
        """The state's sessions this run did not see (files gone, harness off): carried on as
        stored (key and manifest JSON). A row stored by a version that put ids into manifests as
        found is carried under its id as archived now, its old key dropped (returned second) and
        the session stored under the new one (returned third); when that id is a session of
        this run, the row is an older state of it and is dropped without being carried."""
        carried: list[tuple[str, Held]] = []
        renamed: list[str] = []
        moved: list[Session] = []
        present = set(keys)
        for k in keys:
            if k in processed or k in self._fast or self._is_forgotten(k):
                continue
            stored = self.state.get_session(k)
            if stored is None:
                continue
            session = self.ids.session(stored)
            if session.key != k:
                renamed.append(k)
                new = session.key
                if new in processed or new in self._fast or new in present or self._is_forgotten(new):
                    continue
                moved.append(session)
            carried.append((session.key, self._put(session.model_dump_json().encode())))
        return carried, renamed, moved

    def _save_state(self, processed: dict[str, Held], dropped: list[str],
                    manifest: Manifest, moved: Sequence[Session] = ()) -> None:
        with self.state.transaction():
            for key in dropped:
                self.state.drop_session(key)
            for session in moved:  # carried under its archived id (the old key is in dropped)
                self.state.put_session(session)
            for key, held in processed.items():
                if held[2] < 0:  # taken unchanged: its row is what it was read from
                    continue
                session, states = _unhold(key, self._get(held))
                self.state.put_session(session)
                for st in states:
                    self.state.put_artifact(st)
            self.state.put_signatures(self._sigs)
            self.ids.save()
            self.state.set_meta("manifest_pending", manifest.run_id)


class _Spill:
    """An append-only file in the run's 0700 folder (removed with it) that holds finished
    sessions' manifest JSON and file states until the manifest is written: the parent keeps
    three integers a session. (Held as bytes, ~1.3 KB each, they went to malloc, being over
    pymalloc's 512 B, and could not reuse the small-object memory that discovery's objects free
    as the sessions finish: the parent grew by all of them.)"""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        self._end = 0
        self._lock = threading.Lock()

    def put(self, data: bytes, rows: bytes | None) -> Held:
        blob = data + rows if rows is not None else data
        with self._lock:
            at = self._end
            view = memoryview(blob)
            while view:
                n = os.pwrite(self._fd, view, at + len(blob) - len(view))
                view = view[n:]
            self._end += len(blob)
        return at, len(data), -1 if rows is None else len(rows)

    def get(self, held: Held) -> tuple[bytes, bytes | None]:
        at, n, rows = held
        total = n + max(rows, 0)
        blob = os.pread(self._fd, total, at)
        while len(blob) < total:  # a short read (never on a regular file, but allowed)
            more = os.pread(self._fd, total - len(blob), at + len(blob))
            if not more:
                raise OSError(f"{self.path}: ends at {at + len(blob)}, before {at + total}")
            blob += more
        return blob[:n], (blob[n:] if rows >= 0 else None)

    def close(self) -> None:
        os.close(self._fd)


def _hold(session: Session, states: list[ArtifactState]) -> tuple[bytes, bytes]:
    """A finished session as held until its manifest: its manifest JSON and its file states
    (see Held)."""
    index = {id(a): i for i, a in enumerate(session.artifacts)}
    rows = []
    for st in states:
        i = index.get(id(st.artifact))
        rows.append((st.logical_path, st.inode, st.size, st.mtime_ns, st.offset, st.fingerprint,
                     i if i is not None else st.artifact.model_dump(mode="json")))
    # marshal, not orjson: an orjson result keeps its 4 KiB buffer (sys.getsizeof says less)
    return session.model_dump_json().encode(), marshal.dumps(rows)


def _unhold(key: str, held: tuple[bytes, bytes | None]) -> tuple[Session, list[ArtifactState]]:
    """The session and file states _hold kept, as models again (to be stored)."""
    data, rows = held
    session = Session.model_validate_json(data)
    states = []
    for logical, inode, size, mtime_ns, offset, fp, art in (marshal.loads(rows) if rows else ()):
        artifact = session.artifacts[art] if type(art) is int else Artifact.model_validate(art)
        states.append(ArtifactState(key, logical, inode, size, mtime_ns, offset, fp, artifact))
    return session, states


def _identity(src: SourceArtifact) -> FileIdentity:
    """Stat identity of a source; for SQLite it includes the -wal, where committed
    writes live until a checkpoint touches the main file (an empty -wal, which readers
    create and remove, holds none)."""
    ident = FileIdentity.of(src.source)
    if src.identity is not None:
        return FileIdentity(*src.identity)
    if src.mode in ("sqlite", "produced") or src.format == "sqlite":
        wal = Path(src.file + "-wal")
        try:
            w = FileIdentity.of(wal)
        except OSError:
            return ident
        if not w.size:
            return ident
        return FileIdentity(ident.inode, ident.size + w.size, max(ident.mtime_ns, w.mtime_ns))
    return ident


def _stat_mask(stats: list[object]) -> int:
    """Bit i set when stats[i] is a stat identity (a tuple), not the errno of a failed stat."""
    mask = 0
    for i, st in enumerate(stats):
        if type(st) is tuple:
            mask |= 1 << i
    return mask


def _bytes_to_redact(ds: DiscoveredSession, known: Known | None, stats: list[object]) -> int:
    """About how much the long way will redact: every file not as stored; of a file that only
    grew (same inode), what it grew by, as a JSONL transcript is redacted from where it was."""
    total = 0
    files = known.files if known is not None else {}
    for src, st in zip(ds.sources, stats):
        if type(st) is not tuple:
            continue
        was = files.get(_logical(src.path))
        if was == st:
            continue
        size = st[1]
        if was is not None and was[0] == st[0] and size > was[1]:
            size -= was[1]
        total += size
    return total


def _pull(one: Callable[[DiscoveredSession], None], todo: deque[DiscoveredSession], threads: int) -> None:
    """`one` on every session of `todo`, in `threads` threads that each take the next one as they
    finish theirs: nothing is queued per session (Executor.map submits them all at once, a
    Future and a work item each: ~1.8 KB a session, held from the start). The first exception
    that escapes `one` (or stops this thread: SIGTERM) ends the rest of the work and is raised
    here once the sessions in hand are done."""
    failed: list[BaseException] = []

    def loop() -> None:
        try:
            while not failed:
                try:
                    ds = todo.popleft()
                except IndexError:
                    return
                one(ds)
                del ds  # its sources are freed now, not when the next one is taken
        except BaseException as e:  # noqa: BLE001 - raised in the calling thread
            failed.append(e)
            todo.clear()

    pool = [threading.Thread(target=loop, name=f"sync-{i}") for i in range(min(threads, len(todo)))]
    for t in pool:
        t.start()
    try:
        for t in pool:
            t.join()
    except BaseException:
        todo.clear()
        for t in pool:
            t.join()
        raise
    if failed:
        raise failed[0]


def _drain(items: deque[DiscoveredSession]) -> Iterator[DiscoveredSession]:
    while items:
        yield items.popleft()


def _printable(text: str) -> str:
    return text if is_utf8(text) else text.encode("utf-8", "backslashreplace").decode("utf-8")


def _logical(path: str) -> str:
    return path[:-4] if path.endswith(".zst") else path


def _basename(path: str) -> str:
    return _logical(path).rsplit("/", 1)[-1]


def _differs(a: Session, b: Session) -> bool:
    keys = ("title", "cwd", "kind", "parents", "uses", "artifacts", "warnings")
    return any(getattr(a, k) != getattr(b, k) for k in keys)


def _reason(e: BaseException, source: Path | None = None) -> str:
    """Why a file failed, without its absolute path: the caller names the file (redacted), and
    a native path can hold folder names the error redaction cannot rewrite (a project key)."""
    if isinstance(e, OSError) and e.strerror:
        return e.strerror.lower()
    text = str(e)
    if source is not None:
        text = text.removeprefix(f"{source}: ").replace(str(source), source.name)
    return text


def _now() -> str:
    return iso_utc(datetime.now(timezone.utc))
