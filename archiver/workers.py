"""The CPU-bound steps of the pipeline (redact, re-scan, hash) as plain functions,
run inline or in a process pool so both cores work: Python-level JSON walking holds
the GIL, so threads alone would not scale redaction.

Each job reads a snapshot file and writes the redacted plaintext next to it; it
returns only counts and digests, never content. Given the archive's recipients, a job also
packs what it wrote (age(zstd()), as archive.put_object would) and removes the plaintext: the
parent then only uploads, and both cores compress and encrypt.
"""

from __future__ import annotations

import hashlib
import multiprocessing
import multiprocessing.connection
import os
import stat
import threading
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Callable, Iterator, Sequence

from archiver import allocator, interrupts
from archiver.pack import SMALL_OBJECT, ObjectHasher, pack_bytes, pack_file
from archiver.redact.base import RedactionReport, Redactor
from archiver.redact.folder_aliases import RULE_ID as ALIAS_RULE
from archiver.redact.folder_aliases import TEXT_FORMATS, Aliases, rewrite_file, rewriter
from archiver.snapshot import FileIdentity, iter_lines, open_regular

_BLOCK = 1024 * 1024
BATCH_LINES = 64
# A batch never holds more than this (plus one line): redacting a batch holds several copies of
# it at once (lines, parsed strings, joined text, output). Lines longer than snapshot.LONG_LINE
# never join a batch: they are redacted from the file (redactor.redact_jsonl_span).
BATCH_BYTES = 1024 * 1024
BIG_JOB = 8 << 20  # after a job over this many bytes the allocator gives free memory back
# A run with less than this to redact does it in the main process: starting the pool costs each
# worker its imports and the rules' compilation (~0.5 CPU-s each: the rules come parsed with the
# recipe, RedactorRecipe; the parent has already paid it), more than redacting 8 MB inline takes,
# so an hourly run that finds a few appended lines would spend most of its CPU starting workers.
# Also a bound on what the parent redacts in a run.
INLINE_BYTES = 8 << 20
# How pool workers start: a fresh interpreter each, which imports what a worker needs. Not fork:
# the parent runs threads (S3 transfers, tests' moto server), and forking a threaded process can
# inherit held locks. Not forkserver (until session 30): its server process lived as long as the
# run (7.4 MB PSS in the 1 GB memory case) and saved nothing, since a worker forked from it
# imports the same modules a spawned one does (a server preloading the redaction modules held
# ~25 MB for the whole run, while each worker, touching their objects' reference counts, ended
# up with its own copy of the pages anyway). Starting two workers took 0.6-0.8 s wall either way.
POOL_START_METHOD = "spawn"


@dataclass
class JobResult:
    object_id: str
    sha256: str
    size: int
    counts: dict[tuple[str, str], int]
    leftovers: list[str]  # high-confidence rules still matching (fail_closed)
    lines: int = 0
    notes: dict[str, int] | None = None  # redactor warnings raised by this job (counts)
    # packed by the job (recipients given, nothing held back): a small object's bytes, or the
    # file holding a large one's (the plaintext file is then gone)
    packed: bytes | None = None
    packed_path: str | None = None


def _pack_output(dst: str, size: int, recipients: Sequence[object] | None,
                 result: JobResult) -> JobResult:
    """Pack the job's redacted output the way Archive.put_object would have (in memory up to
    SMALL_OBJECT, streamed above) and remove the plaintext. Nothing when held back."""
    if not recipients or result.leftovers:
        return result
    if size <= SMALL_OBJECT:
        with open(dst, "rb") as f:
            result.packed = pack_bytes(f.read(), recipients)  # type: ignore[arg-type]
    else:
        packed = f"{dst}.age"
        pack_file(Path(dst), Path(packed), recipients, durable=False)  # type: ignore[arg-type]
        result.packed_path = packed
    os.unlink(dst)
    return result


def _notes_since(redactor: Redactor, before: dict[str, int]) -> dict[str, int]:
    now = dict(getattr(redactor, "warnings", {}) or {})
    return {k: n - before.get(k, 0) for k, n in now.items() if n - before.get(k, 0) > 0}


def _release_after(nbytes: int) -> None:
    """After a big job, or small ones adding up to one: give the allocator's free memory back."""
    allocator.release_every(nbytes, BIG_JOB)


_SOCKET_DIR_MAX = 88  # an AF_UNIX path holds 107 bytes; "/listener-XXXXXXXX" takes 18 of them


def pin_socket_dir(parent: Path) -> Path | None:
    """Give multiprocessing a short 0700 folder of ours for its temp files (a forkserver's socket),
    before anything asks it for one: left alone it makes an empty `pymp-*` folder in the system
    temp dir. The pool starts its workers with spawn, which needs none; the folder is pinned
    all the same, so that nothing multiprocessing starts ever writes to the system temp dir. The folder lives as long as this process (the forkserver outlives a run), named by
    pid; it is removed at exit, and by a later run if this process was killed. Tried in order:
    `parent` (the state dir's tmp/), $XDG_RUNTIME_DIR, <system temp>/archiver-<uid>. Returns the
    folder, or None when multiprocessing already has one, or (every candidate unusable or too long
    a path for a socket) when it falls back to its own."""
    import multiprocessing.process
    import multiprocessing.util
    import shutil

    config = multiprocessing.process.current_process()._config  # type: ignore[attr-defined]  # noqa: SLF001
    pinned = config.get("tempdir")
    if pinned is not None:
        # ours, removed under a long-lived process (a tmp cleaner, a logout's XDG_RUNTIME_DIR):
        # made again, or the next pool could not bind its socket there
        if os.path.basename(pinned) == f"mp-{os.getpid()}" and not os.path.isdir(pinned):
            try:
                os.mkdir(pinned, 0o700)
            except OSError:
                pass
        return None

    def candidates() -> Iterator[Path]:
        yield parent
        runtime_dir = os.environ.get("XDG_RUNTIME_DIR")  # the user's own, made by the system
        if runtime_dir and os.path.isabs(runtime_dir) and os.path.isdir(runtime_dir):
            yield Path(runtime_dir)
        own_tmp = _own_temp_folder()  # (made only when needed) a service without XDG_RUNTIME_DIR
        if own_tmp is not None:
            yield own_tmp

    for base in candidates():
        folder = base / f"mp-{os.getpid()}"
        if len(os.fsencode(str(folder))) > _SOCKET_DIR_MAX:
            continue
        try:
            if base == parent:
                base.mkdir(parents=True, exist_ok=True, mode=0o700)
            for stale in base.glob("mp-*"):  # a killed process's: no socket listens there
                pid = stale.name[3:]
                if pid.isdigit() and int(pid) != os.getpid() and not _alive(int(pid)):
                    shutil.rmtree(stale, ignore_errors=True)
            folder.mkdir(mode=0o700, exist_ok=True)
            os.chmod(folder, 0o700)
        except OSError:
            continue
        config["tempdir"] = str(folder)
        multiprocessing.util.Finalize(None, shutil.rmtree, args=(str(folder), True), exitpriority=-100)
        return folder
    multiprocessing.util.get_temp_dir()  # Python's own pymp-* folder, fixed now, while the temp dir is the system's
    return None


def _own_temp_folder() -> Path | None:
    """<system temp>/archiver-<uid>: made 0700 if absent; used only if it is a real folder (no
    symlink) owned by this user and closed to others (anyone can plant a name in /tmp)."""
    import tempfile

    folder = Path(tempfile.gettempdir()) / f"archiver-{os.getuid()}"
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
        st = os.lstat(folder)
    except OSError:
        return None
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid() or st.st_mode & 0o077:
        return None
    return folder


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def hash_file(path: Path, object_id_key: bytes) -> tuple[str, str, int]:
    hasher = ObjectHasher(object_id_key)
    sha = hashlib.sha256()
    size = 0
    with path.open("rb") as f:
        while block := f.read(_BLOCK):
            hasher.update(block)
            sha.update(block)
            size += len(block)
    return hasher.hexdigest(), sha.hexdigest(), size


def redact_whole(redactor: Redactor, object_id_key: bytes, verify: bool, src: str, dst: str, fmt: str,
                 recipients: Sequence[object] | None = None, aliases: Aliases = ()) -> JobResult:
    """src redacted into dst; a text-like file with its session's cwd-named folders renamed first
    (folder_aliases), through a copy beside dst."""
    allocator.tune()
    report = RedactionReport()
    before = dict(getattr(redactor, "warnings", {}) or {})
    read_from = Path(src)
    if aliases and fmt in TEXT_FORMATS:
        aliased = Path(dst + ".aliased")
        renamed = rewrite_file(aliases, read_from, aliased)
        if renamed:
            read_from = aliased
            report.add(ALIAS_RULE, fmt, renamed)
    try:
        redactor.redact_file(read_from, Path(dst), fmt, report)  # type: ignore[arg-type]
    finally:
        if read_from != Path(src):
            read_from.unlink(missing_ok=True)
    notes = _notes_since(redactor, before)  # before the re-scan, which would count them again
    leftovers = redactor.verify_file(Path(dst), fmt) if verify else []  # type: ignore[arg-type]
    oid, sha, size = hash_file(Path(dst), object_id_key)
    result = _pack_output(dst, size, recipients, JobResult(oid, sha, size, dict(report.counts), leftovers, notes=notes))
    _release_after(size)
    return result


def _eol(f: BinaryIO, start: int, end: int) -> bytes:
    """The line ending of the line in [start, end) of f: \\r\\n, \\n, or none (the last line)."""
    f.seek(max(start, end - 2))
    tail = f.read(end - max(start, end - 2))
    return b"\r\n" if tail.endswith(b"\r\n") else b"\n" if tail.endswith(b"\n") else b""


def redact_segment(
    redactor: Redactor, object_id_key: bytes, verify: bool, src: str, start: int, end: int, dst: str,
    recipients: Sequence[object] | None = None, expect: tuple[int, int] | None = None, aliases: Aliases = (),
) -> JobResult:
    """Complete JSONL lines [start, end) of src, redacted line by line into dst
    (in batches when the redactor offers it: one engine pass over many lines). With `expect`
    (inode, device), src is a live harness file, read only if it is still that file. A line held
    whole has its session's cwd-named folders renamed first (folder_aliases); a line too long to
    hold (a LineSpan) does not."""
    allocator.tune()
    report = RedactionReport()
    before = dict(getattr(redactor, "warnings", {}) or {})
    hasher = ObjectHasher(object_id_key)
    sha = hashlib.sha256()
    written = lines = 0
    batch_fn = getattr(redactor, "redact_jsonl_lines", None)
    bodies: list[bytes] = []
    ends: list[bytes] = []
    batch_bytes = 0
    renamer = rewriter(aliases)
    renamed = 0

    def flush(fo: BinaryIO) -> None:
        nonlocal batch_bytes
        if not bodies:
            return
        if batch_fn is not None:
            outs = batch_fn(bodies, report)
        else:
            outs = [redactor.redact_jsonl_line(b, report) for b in bodies]
        for out, eol in zip(outs, ends):
            emit(fo, out + eol)
        bodies.clear()
        ends.clear()
        batch_bytes = 0

    def emit(fo: BinaryIO, red: bytes) -> None:
        nonlocal written
        fo.write(red)
        hasher.update(red)
        sha.update(red)
        written += len(red)

    span_fn = getattr(redactor, "redact_jsonl_span", None)
    with _open_source(src, expect) as f, open(dst, "wb") as fo:
        for line in iter_lines(f, start, end):
            if type(line) is not bytes:  # a LineSpan: too long to hold, redacted from the file
                flush(fo)
                lines += 1
                a, b = line
                eol = _eol(f, a, b)
                if span_fn is not None:
                    span_fn(f, a, b - len(eol), lambda red: emit(fo, red), report)
                    emit(fo, eol)
                    continue
                f.seek(a)
                line = f.read(b - a)
            body = line[:-1]
            if renamer is not None:
                body, n = renamer.line(body)
                renamed += n
            if body.endswith(b"\r"):
                bodies.append(body[:-1])
                ends.append(b"\r\n")
            else:
                bodies.append(body)
                ends.append(b"\n")
            lines += 1
            batch_bytes += len(body)
            if len(bodies) >= BATCH_LINES or batch_bytes >= BATCH_BYTES:
                flush(fo)
        flush(fo)
    if renamed:
        report.add(ALIAS_RULE, "jsonl", renamed)
    notes = _notes_since(redactor, before)  # before the re-scan, which would count them again
    leftovers = redactor.verify_file(Path(dst), "jsonl") if verify else []
    result = _pack_output(dst, written, recipients, JobResult(
        hasher.hexdigest(), sha.hexdigest(), written, dict(report.counts), leftovers, lines, notes=notes))
    _release_after(end - start)
    return result


# ---- process pool plumbing ----
_worker_redactor: Redactor | None = None
_worker_key: bytes = b""
_worker_verify: bool = True
_worker_recipients: Sequence[object] | None = None
_worker_bytes = 0  # what this worker redacted so far (_Retirement)


def _exit_with_parent() -> None:
    """A worker of a run that was killed (SIGKILL, OOM) would wait for jobs forever: it
    leaves as soon as the process that started it is gone."""
    parent = multiprocessing.parent_process()
    if parent is None or parent.sentinel is None:
        return
    sentinel = parent.sentinel

    def watch() -> None:
        multiprocessing.connection.wait([sentinel])
        os._exit(1)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def _init_worker(factory: Callable[[], Redactor], object_id_key: bytes, verify: bool,
                 recipients: Sequence[object] | None = None) -> None:
    global _worker_redactor, _worker_key, _worker_verify, _worker_recipients
    _exit_with_parent()
    allocator.tune()
    _worker_redactor = factory()
    _worker_key = object_id_key
    _worker_verify = verify
    _worker_recipients = recipients


def _whole_in_worker(src: str, dst: str, fmt: str, aliases: Aliases = ()) -> JobResult:
    global _worker_bytes
    assert _worker_redactor is not None
    _worker_bytes += os.stat(src).st_size
    return redact_whole(_worker_redactor, _worker_key, _worker_verify, src, dst, fmt, _worker_recipients, aliases)


def _segment_in_worker(src: str, start: int, end: int, dst: str, pack: bool = True,
                       expect: tuple[int, int] | None = None, aliases: Aliases = ()) -> JobResult:
    global _worker_bytes
    assert _worker_redactor is not None
    _worker_bytes += end - start
    return redact_segment(_worker_redactor, _worker_key, _worker_verify, src, start, end, dst,
                          _worker_recipients if pack else None, expect, aliases)


def _noop() -> None:
    pass


# A worker is replaced by a fresh one once it has redacted this many bytes (or run this many
# jobs). Its memory grows with what it redacted (RE2's DFA caches, the walkers' memos, pymalloc
# arenas: 62 -> 82 MB RSS over ~150 MB of a dense corpus), hardly with the number of jobs (two
# workers ran 6,000 tiny jobs each and grew 4 MB), and a fresh one costs about half a second of
# CPU (imports 0.1, the parsed rules unpickled 0.05, compiled 0.35; 0.7 s when it read the packs).
# Counting jobs (800, until s14) replaced workers ~16 times in a cold sync of 10,000 tiny
# sessions: 71 CPU-s against 51 without replacement.
BYTES_PER_WORKER = 96 << 20
JOBS_PER_WORKER = 20_000


class _Retirement(int):
    """max_tasks_per_child for the pool: the job count, and a byte count. The stock worker loop
    asks `num_tasks >= max_tasks` before each job and leaves after that job when it is true; the
    reflected comparison lands here (an int subclass on the right is asked first), in the worker,
    where the bytes it redacted so far are known. Pickled to the worker with both limits."""

    bytes_limit: int

    def __new__(cls, jobs: int, nbytes: int) -> "_Retirement":
        self = super().__new__(cls, jobs)
        self.bytes_limit = nbytes
        return self

    def __reduce__(self) -> tuple[type, tuple[int, int]]:
        return _Retirement, (int(self), self.bytes_limit)

    def __le__(self, num_tasks: object) -> bool:  # `num_tasks >= self`
        return int(self) <= num_tasks or _worker_bytes >= self.bytes_limit  # type: ignore[operator]


class _Pool(ProcessPoolExecutor):
    """ProcessPoolExecutor whose workers, replaced after max_tasks_per_child jobs, are replaced
    for sure: up to Python 3.13 the replacement consulted the idle-worker semaphore, which can
    hold a token of the worker that just left, so no replacement started and, the last worker
    gone, the queued jobs waited forever (CPython gh-115634). Here a worker is started whenever
    the pool has fewer than its number (on every submit too: all start with the first jobs,
    which `warm` does anyway).

    Once all have started, only the manager thread starts a replacement: it drops a retiring
    worker from the pool's table before it joins it, so a submit in between saw a free place and
    started the replacement while the old worker was still tearing down its ~85 MB, three workers
    at the run's peak memory (measured: 7 MB more on the memory case's peak). The manager thread
    starts one as soon as its join returns."""

    _all_started = False

    def _adjust_process_count(self) -> None:
        processes = self._processes  # type: ignore[attr-defined]
        if len(processes) >= self._max_workers:  # type: ignore[attr-defined]
            self._all_started = True
            return
        if self._all_started and threading.current_thread() is not self._executor_manager_thread:  # type: ignore[attr-defined]
            return
        self._spawn_process()  # type: ignore[attr-defined]
        if len(processes) >= self._max_workers:  # type: ignore[attr-defined]
            self._all_started = True

    def submit(self, fn, /, *args, **kwargs):  # type: ignore[no-untyped-def]
        # not cut between starting a worker and recording it, nor before the manager thread that
        # joins it at shutdown is started (both happen in here)
        with interrupts.deferred():
            return super().submit(fn, *args, **kwargs)


SPLIT_BYTES = 8 << 20  # a pooled segment longer than twice this is redacted in pieces of about this


def _open_source(src: str | Path, expect: tuple[int, int] | None) -> BinaryIO:
    if expect is None:
        return open(src, "rb")
    inode, dev = expect
    return open_regular(Path(src), FileIdentity(inode, 0, 0, dev))


def line_cuts(src: Path, start: int, end: int, piece: int, expect: tuple[int, int] | None = None) -> list[int]:
    """Offsets start < c1 < ... < end, each just after a newline, about `piece` apart.
    [start, end) must be whole lines."""
    cuts = [start]
    with _open_source(src, expect) as f:
        target = start + piece
        while target < end:
            f.seek(target)
            pos = target
            while pos < end:
                block = f.read(min(_BLOCK, end - pos))
                if not block:
                    pos = end
                    break
                nl = block.find(b"\n")
                if nl >= 0:
                    pos += nl + 1
                    break
                pos += len(block)
            if pos >= end:
                break
            cuts.append(pos)
            target = pos + piece
    cuts.append(end)
    return cuts


def _load_rules_once(factory: Callable[[], Redactor]) -> None:
    """Parse the recipe's rule packs here, once, before it is pickled to the workers: each then
    receives them parsed (RedactorRecipe) instead of reading and validating the TOML again
    (~40% of a worker's start). The pool starts during discovery, before the parent builds its
    own redactor from the same recipe, so without this every worker parsed the packs. A bad
    pack is left to the parent's build, which reports it before any session starts."""
    rules = getattr(factory, "rules", None)
    if callable(rules):
        try:
            rules()
        except Exception:  # noqa: BLE001 - reported by the redactor's build (commands/sync.py)
            pass


class WorkerCrashed(RuntimeError):
    """A redaction worker process died (e.g. killed for memory); the job's session fails."""


class Jobs:
    """Runs redaction jobs inline (workers=1) or in a pool of worker processes."""

    def __init__(self, redactor: Redactor, object_id_key: bytes, verify: bool, workers: int = 1,
                 factory: Callable[[], Redactor] | None = None,
                 recipients: Sequence[object] | None = None, jobs_per_worker: int | None = JOBS_PER_WORKER,
                 bytes_per_worker: int = BYTES_PER_WORKER,
                 inline_bytes: int | None = 0) -> None:
        self.redactor = redactor
        self.key = object_id_key
        self.verify = verify
        self.recipients = list(recipients) if recipients else None  # given: jobs pack their output
        self.pool: ProcessPoolExecutor | None = None
        self._workers = workers
        self._factory = factory
        self._pool_lock = threading.Lock()
        self._closed = False
        self._jobs_per_worker = jobs_per_worker
        self._bytes_per_worker = bytes_per_worker
        # pooled jobs may run in this process until the pool is wanted (warm(), or this budget of
        # inline bytes (None: INLINE_BYTES) is spent), one at a time: the redactor's warnings are
        # counted per job
        budget = INLINE_BYTES if inline_bytes is None else inline_bytes
        self.inline_bytes = budget if self.pooled else 0
        self._inline_left = self.inline_bytes
        self._pool_wanted = self.inline_bytes == 0
        self._inline_lock = threading.Lock()
        self.inline_jobs = 0

    @property
    def pooled(self) -> bool:
        return self._workers > 1 and self._factory is not None

    def _runs_inline(self, nbytes: int) -> bool:
        """Does a pooled job of nbytes run here? While the pool is not wanted and the job fits in
        what is left of the inline budget; a job that does not fit wants the pool."""
        with self._pool_lock:
            if not self._pool_wanted and nbytes <= self._inline_left:
                self._inline_left -= nbytes
                self.inline_jobs += 1
                return True
            self._pool_wanted = True
            return False

    def _get_pool(self) -> ProcessPoolExecutor:
        """Started on the first job: a run with nothing to redact never pays for it."""
        with self._pool_lock:
            if self.pool is None:
                if self._closed:
                    raise WorkerCrashed("job submitted after close")
                self._start_pool()
            assert self.pool is not None
            return self.pool

    def _start_pool(self) -> None:
        workers, factory = self._workers, self._factory
        if workers > 1 and factory is not None:
            import multiprocessing

            _load_rules_once(factory)

            ctx = multiprocessing.get_context(POOL_START_METHOD)  # the factory is picklable
            self.pool = _Pool(workers, mp_context=ctx, initializer=_init_worker,
                              initargs=(factory, self.key, self.verify, self.recipients),
                              max_tasks_per_child=None if self._jobs_per_worker is None
                              else _Retirement(self._jobs_per_worker, self._bytes_per_worker))

    def _run(self, fn: Callable[..., JobResult], *args: object) -> JobResult:
        pool = self._get_pool()
        try:
            return pool.submit(fn, *args).result()
        except BrokenProcessPool:
            with self._pool_lock:  # one thread restarts the pool; the others reuse it
                if self.pool is pool:
                    pool.shutdown(wait=False, cancel_futures=True)
                    self.pool = None  # the next job starts a fresh one
            raise WorkerCrashed("redaction worker process died") from None

    def warm(self) -> None:
        """Start the worker processes now, without waiting for them (their start: imports and
        the redactor's rules, about half a second each, overlaps what the caller does next). From
        here on every job runs in the pool."""
        if not self.pooled:
            return
        with self._pool_lock:
            self._pool_wanted = True
        try:
            pool = self._get_pool()
            for _ in range(self._workers):
                pool.submit(_noop)
        except (WorkerCrashed, BrokenProcessPool, RuntimeError):
            pass  # the first real job reports it

    def whole(self, src: Path, dst: Path, fmt: str, aliases: Aliases = ()) -> JobResult:
        """src redacted into dst; `aliases`: its session's cwd-named folders (folder_aliases)."""
        if not self.pooled or self._runs_inline(src.stat().st_size):
            with self._inline_lock:
                return redact_whole(self.redactor, self.key, self.verify, str(src), str(dst), fmt, self.recipients,
                                    aliases)
        return self._run(_whole_in_worker, str(src), str(dst), fmt, aliases)

    def segment(self, src: Path, start: int, end: int, dst: Path, expect: tuple[int, int] | None = None,
                aliases: Aliases = ()) -> JobResult:
        """Lines [start, end) of src; with `expect` (inode, device), src is read only while it
        is that file (a live harness file swapped for a symlink is refused, not followed)."""
        if not self.pooled or self._runs_inline(end - start):
            with self._inline_lock:
                return redact_segment(self.redactor, self.key, self.verify, str(src), start, end, str(dst),
                                      self.recipients, expect, aliases)
        cuts = line_cuts(src, start, end, SPLIT_BYTES, expect) if end - start > 2 * SPLIT_BYTES else [start, end]
        if len(cuts) == 2:
            return self._run(_segment_in_worker, str(src), start, end, str(dst), True, expect, aliases)
        return self._split_segment(src, cuts, dst, expect, aliases)

    def _split_segment(self, src: Path, cuts: list[int], dst: Path, expect: tuple[int, int] | None = None,
                       aliases: Aliases = ()) -> JobResult:
        """A long segment in pieces on all workers (JSONL redaction is line-local), then
        joined in order; the ids and digests are of the joined bytes (not packed here: the
        pieces are, as one object, archive.put_object's to pack)."""
        parts = [dst.with_name(f"{dst.name}.{i}") for i in range(len(cuts) - 1)]
        pool = self._get_pool()
        try:
            futures = [pool.submit(_segment_in_worker, str(src), a, b, str(part), False, expect, aliases)
                       for a, b, part in zip(cuts, cuts[1:], parts)]
            try:
                results = [f.result() for f in futures]
            except BrokenProcessPool:
                for f in futures:
                    f.cancel()
                with self._pool_lock:
                    if self.pool is pool:
                        pool.shutdown(wait=False, cancel_futures=True)
                        self.pool = None
                raise WorkerCrashed("redaction worker process died") from None
            hasher, sha, size = ObjectHasher(self.key), hashlib.sha256(), 0
            with dst.open("wb") as out:
                for part in parts:
                    with part.open("rb") as f:
                        while block := f.read(_BLOCK):
                            out.write(block)
                            hasher.update(block)
                            sha.update(block)
                            size += len(block)
                    part.unlink()
        finally:
            for part in parts:
                part.unlink(missing_ok=True)
        counts: dict[tuple[str, str], int] = {}
        notes: dict[str, int] = {}
        for r in results:
            for k, n in r.counts.items():
                counts[k] = counts.get(k, 0) + n
            for k, n in (r.notes or {}).items():
                notes[k] = notes.get(k, 0) + n
        leftovers = sorted({x for r in results for x in r.leftovers})
        return JobResult(hasher.hexdigest(), sha.hexdigest(), size, counts, leftovers,
                         sum(r.lines for r in results), notes=notes)

    def stop_workers(self) -> None:
        """Stop the worker processes, whose memory goes back to the system; a later job starts
        them again. Between the sessions and the manifest, which needs no redaction but is built
        in the parent (the peak of a long run would be the workers' memory on top of it)."""
        with self._pool_lock:
            pool, self.pool = self.pool, None
        if pool is not None:
            pool.shutdown(wait=True)

    def close(self) -> None:
        with self._pool_lock:
            self._closed = True
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)
            self.pool = None
