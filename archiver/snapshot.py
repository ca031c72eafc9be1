"""Consistent copies of files that harnesses are writing while we read.

- JSONL is taken up to its last complete line; a torn final line waits for the next run (one
  unchanged for TORN_TAIL_STALE is reported, still held back: torn_tail).
- SQLite goes through the backup API on a connection to the live file, so committed
  rows that live only in the -wal are included (copy_sqlite, backup_into); collectors that
  read a live database in place use read_live_sqlite.
- Any other file is copied and re-checked; a file that changes during the copy is
  retried, then reported.
Nothing here reads a whole file into memory.

Harness folders are writable by the user's agents (and some by any local user, /tmp), so a
file found regular may be something else by the time it is read. Every harness file is opened
through open_regular: O_NOFOLLOW (a symlink is refused, never followed), O_NONBLOCK (a FIFO
swapped in cannot block the run) and fstat on the opened descriptor (only a regular file is
read, and only the one expected). A copy stops at the size fstat gave at open. SQLite stores
are refused when the database, its -wal or its -shm is a symlink or not a regular file, and a
name is checked again after SQLite opened it (still the regular file checked).
"""

from __future__ import annotations

import errno
import hashlib
import os
import shutil
import sqlite3
import stat
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Iterator, NamedTuple
from urllib.parse import quote

import orjson

from archiver import sqlite_checks
from archiver.pack import RATIO_FLOOR

COPY_RETRIES = 3
FINGERPRINT_SPAN = 64 * 1024
_BLOCK = 1024 * 1024
LONG_LINE = 1 << 20  # iter_lines hands longer lines over as spans (redacted from the file)
SNIFF_BYTES = 8192  # what looks_binary needs to see of a file
# a final JSONL line without its newline is held back as still being written; a file unchanged
# this long (seconds) with one is reported, once (the harness crashed mid-write, the disk filled;
# sync._signed_as): the line is still held back, as it may yet be completed
TORN_TAIL_STALE = 600
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"  # the start of a zstd frame


# Controls that text carries (BEL, BS, TAB, LF, VT, FF, CR and ESC of terminal colour codes);
# the others, and DEL, mark binary.
BINARY_CONTROLS = bytes(b for b in range(32) if b not in (7, 8, 9, 10, 11, 12, 13, 27)) + b"\x7f"
# Below this length a few bytes say little: random bytes (hashes) without a control byte are
# common, so short single-byte text must also be mostly ASCII.
SHORT_TEXT = 256
_HIGH = bytes(range(0x80, 0x100))


def single_byte_text(data: bytes) -> bool:
    """Text in a single-byte encoding (Latin-1, CP1252, ...): no NUL, no UTF-16 byte-order mark,
    at most 1% binary control bytes, and when shorter than SHORT_TEXT at most 30% bytes >= 0x80."""
    if not data or b"\x00" in data or data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return False
    if (len(data) - len(data.translate(None, BINARY_CONTROLS))) * 100 > len(data):
        return False
    return len(data) >= SHORT_TEXT or (len(data) - len(data.translate(None, _HIGH))) * 10 <= len(data) * 3


def nul_separated_text(data: bytes) -> bool:
    """Text whose records end in NUL (`env -0`, `find -print0`, /proc/<pid>/environ): single
    NULs between printable records. UTF-16 (a NUL every other byte) and binary formats are not."""
    n = data.count(b"\x00")
    if n * 4 > len(data) or b"\x00\x00" in data:
        return False
    rest = data.replace(b"\x00", b"")
    if len(rest) - len(rest.translate(None, BINARY_CONTROLS)):
        return False
    try:
        rest.decode("utf-8")
    except UnicodeDecodeError as e:
        return e.start >= len(rest) - 4 or single_byte_text(rest)
    return True


def looks_binary(head: bytes) -> bool:
    """Binary rather than text, judged from a file's first SNIFF_BYTES: a NUL (but for
    NUL-separated records), or bytes that
    are neither UTF-8 (a multi-byte character cut at the end of `head` does not count) nor
    single-byte text (Latin-1, CP1252: `single_byte_text`)."""
    head = head[:SNIFF_BYTES]
    if b"\x00" in head:
        return not nul_separated_text(head)
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as e:
        return e.start < len(head) - 4 and not single_byte_text(head)
    return False


class SnapshotError(OSError):
    """A file could not be copied consistently; the message names it and why."""


@dataclass(frozen=True)
class FileIdentity:
    """What tells us cheaply whether a file changed since we last archived it (and, with
    `dev`, which file it is: 0 when unknown)."""

    inode: int
    size: int
    mtime_ns: int
    dev: int = 0

    @classmethod
    def of(cls, path: Path) -> "FileIdentity":
        """The identity of the name itself: a symlink is not followed (reading it is refused)."""
        return cls.from_stat(os.lstat(path))

    @classmethod
    def from_stat(cls, st: os.stat_result) -> "FileIdentity":
        return cls(st.st_ino, st.st_size, st.st_mtime_ns, st.st_dev)


_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISLNK, "a symlink"), (stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"),
                       (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device")):
        if test(mode):
            return name
    return "not a regular file"


def open_regular(path: Path, expect: FileIdentity | None = None) -> BinaryIO:
    """`path` opened for reading, refused (SnapshotError naming it) unless the opened descriptor
    is a regular file, and, with `expect`, the very file expected (same device and inode).
    Never follows a symlink in the last component, never blocks on a FIFO, never opens a
    device. A missing file raises FileNotFoundError, as open() does."""
    try:
        f = open(os.fspath(path), "rb", opener=lambda p, _flags: os.open(p, _OPEN_FLAGS))
    except OSError as e:
        if e.errno == errno.ELOOP:
            raise SnapshotError(f"{path}: is a symlink; not followed") from None
        if e.errno in (errno.EISDIR, errno.ENXIO, errno.ENODEV):  # a directory; a socket; a device
            try:
                kind = _kind(os.lstat(path).st_mode)
            except OSError:
                kind = "not a regular file"
            raise SnapshotError(f"{path}: {kind}; not read") from None
        raise
    try:
        st = os.fstat(f.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise SnapshotError(f"{path}: {_kind(st.st_mode)}; not read")
        if expect is not None and (st.st_ino != expect.inode or (expect.dev and st.st_dev != expect.dev)):
            raise SnapshotError(f"{path}: replaced by another file since it was checked; not read")
    except BaseException:
        f.close()
        raise
    return f


class _Bounded:
    """At most `limit` bytes of `f` (what fstat said at open: a file that grows while read, or
    never ends, is not read past it). Keeps `name` for messages."""

    def __init__(self, f: BinaryIO, limit: int) -> None:
        self.f, self.left, self.name = f, limit, getattr(f, "name", "?")

    def read(self, n: int = -1) -> bytes:
        if self.left <= 0:
            return b""
        data = self.f.read(self.left if n is None or n < 0 else min(n, self.left))
        self.left -= len(data)
        return data


def _create_private(dst: Path) -> BinaryIO:
    """A new file of ours (0600 whatever the umask; replaced if there)."""
    return open(os.fspath(dst), "wb", opener=lambda p, flags: os.open(p, flags | getattr(os, "O_NOFOLLOW", 0), 0o600))


def copy_regular(src: Path, dst: Path, expect: FileIdentity | None = None) -> FileIdentity:
    """One copy of a regular file as it is at open (open_regular), up to its size then; returns
    the identity read through the descriptor after the copy (compare it with what you expect)."""
    with open_regular(src, expect) as fi:
        st = os.fstat(fi.fileno())
        with _create_private(dst) as fo:
            shutil.copyfileobj(_Bounded(fi, st.st_size), fo, _BLOCK)  # type: ignore[arg-type]
        after = FileIdentity.from_stat(os.fstat(fi.fileno()))
    if after != FileIdentity.from_stat(st) or dst.stat().st_size != st.st_size:
        raise _Changed()
    return after


class _Changed(Exception):
    pass


def complete_length(path: Path, size: int | None = None) -> int:
    """Bytes up to and including the last newline: the part of a JSONL file safe to read."""
    with open_regular(path) as f:
        end = size if size is not None else os.fstat(f.fileno()).st_size
        pos = end
        while pos > 0:
            step = min(_BLOCK, pos)
            pos -= step
            f.seek(pos)
            block = f.read(step)
            idx = block.rfind(b"\n")
            if idx >= 0:
                return pos + idx + 1
        return 0


_TAIL_PARSE_MAX = 4 * 1024 * 1024


def whole_jsonl_length(path: Path, size: int | None = None) -> int:
    """The part of a JSONL file snapshotted whole worth archiving: all of it (its first `size`
    bytes, when given), unless its final line has no newline and is not JSON (torn, or still
    being written: archived once complete).
    A writer that ends its last complete line without a newline (a rewritten mirror) keeps it.
    A final line longer than _TAIL_PARSE_MAX is judged by its shape (ends with `}` or `]`)."""
    if size is None:
        with open_regular(path) as f:
            size = os.fstat(f.fileno()).st_size
    end = complete_length(path, size)
    if end == size:
        return size
    with open_regular(path) as f:
        if size - end <= _TAIL_PARSE_MAX:
            f.seek(end)
            try:
                orjson.loads(f.read(size - end))
                return size
            except orjson.JSONDecodeError:
                return end
        f.seek(max(end, size - 64))
        return size if f.read(size - max(end, size - 64)).rstrip().endswith((b"}", b"]")) else end


def torn_tail(path: Path, whole: bool = False) -> tuple[int, FileIdentity]:
    """(bytes of `path` a snapshot leaves out as a final line still being written, the identity of
    the file read). `whole`: as whole_jsonl_length judges them (a final line that is JSON is kept),
    else as complete_length (append mode: up to the last newline). A file ending in a newline costs
    one byte's read. Used to tell a writer that stopped mid-line (TORN_TAIL_STALE)."""
    with open_regular(path) as f:
        st = os.fstat(f.fileno())
        ident = FileIdentity.from_stat(st)
        if st.st_size == 0:
            return 0, ident
        f.seek(st.st_size - 1)
        if f.read(1) == b"\n":
            return 0, ident
    end = whole_jsonl_length(path, st.st_size) if whole else complete_length(path, st.st_size)
    return max(0, st.st_size - end), ident


def fingerprint(f: BinaryIO, offset: int) -> str:
    """sha256 of the head and of the bytes just before `offset`.

    Used to decide that an append-only file's archived prefix is unchanged without
    re-reading it. A rewrite that keeps the length, the head and the last 64 KiB
    identical is not detected: harnesses that rewrite files are archived whole.
    """
    h = hashlib.sha256()
    f.seek(0)
    h.update(f.read(min(4096, offset)))
    start = max(0, offset - FINGERPRINT_SPAN)
    f.seek(start)
    h.update(f.read(offset - start))
    h.update(str(offset).encode())
    return h.hexdigest()


class LineSpan(NamedTuple):
    """A line too long to hold in memory: bytes [start, end) of the file, newline included."""

    start: int
    end: int


def iter_lines(f: BinaryIO, start: int, end: int, long_line: int | None = None) -> Iterator[bytes | LineSpan]:
    """Complete lines (with their newline) in [start, end), one at a time; a line longer than
    `long_line` bytes (LONG_LINE) comes as a LineSpan instead, never read whole. The caller
    may move the file position between items."""
    limit = LONG_LINE if long_line is None else long_line
    pos = start
    f.seek(pos)
    while pos < end:
        line = f.readline(min(end - pos, limit + 1))
        if not line:
            raise SnapshotError(f"{getattr(f, 'name', '?')}: file shrank while reading")
        if len(line) <= limit or line.endswith(b"\n"):
            pos += len(line)
            yield line
            continue
        stop = pos + len(line)  # a long line: find its end, a block at a time
        del line
        while stop < end:
            block = f.read(min(_BLOCK, end - stop))
            if not block:
                raise SnapshotError(f"{getattr(f, 'name', '?')}: file shrank while reading")
            nl = block.find(b"\n")
            if nl >= 0:
                stop += nl + 1
                break
            stop += len(block)
        yield LineSpan(pos, stop)
        pos = stop
        f.seek(pos)


def copy_whole(src: Path, dst: Path, expect: FileIdentity | None = None) -> FileIdentity:
    """Copy a file that may be rewritten; retried while it changes under us. Only a regular
    file is read (open_regular; with `expect`, only that file), up to its size at open."""
    for _ in range(COPY_RETRIES):
        try:
            return copy_regular(src, dst, expect)
        except _Changed:
            continue
    raise SnapshotError(f"{src}: changed during copy ({COPY_RETRIES} attempts)")


def copy_sqlite(src: Path, dst: Path) -> None:
    """A consistent copy of a live SQLite database, WAL content included.

    A read-only connection to a WAL database needs its -shm; when that is missing
    (or the folder is read-only) we copy db, -wal and -shm together, check nothing
    moved, and back up from the copy. A database, -wal or -shm that is a symlink or not a
    regular file is refused (check_sqlite_files), and the live open must be that file.
    """
    expect = check_sqlite_files(src)
    first_error = "not opened live: a WAL database without its -shm (opening it would create -wal and -shm)"
    if not wal_index_missing(src):
        try:
            _backup(f"file:{_uri_path(src)}?mode=ro", dst, src, expect)
            _check_copy(src, dst)
            return
        except sqlite3.Error as first:
            first_error = str(first)
    with tempfile.TemporaryDirectory(prefix="archiver-sqlite-") as tmp:
        os.chmod(tmp, 0o700)
        for _ in range(COPY_RETRIES):
            ids = {}
            try:
                for suffix in ("", "-wal", "-shm"):
                    part = Path(str(src) + suffix)
                    if part.exists() or part.is_symlink():
                        ids[suffix] = copy_regular(part, Path(tmp) / ("db" + suffix))
            except _Changed:
                continue
            same = all(FileIdentity.of(Path(str(src) + s)) == i for s, i in ids.items() if Path(str(src) + s).exists())
            if not same:
                continue
            try:
                _backup(f"file:{_uri_path(Path(tmp) / 'db')}", dst)
                _check_copy(src, dst)
                return
            except sqlite3.Error as e:
                raise SnapshotError(f"{src}: not a readable SQLite database ({e}; live open: {first_error})") from None
    raise SnapshotError(f"{src}: kept changing while copied ({COPY_RETRIES} attempts)")


def check_sqlite_files(db: Path) -> FileIdentity:
    """SQLite opens a database, its -wal and its -shm by name and follows symlinks: a store
    that is a symlink (to another user's file, to a key) would be read through. Refused here,
    as anything that is not a regular file; returns the database's identity."""
    st = os.lstat(db)  # FileNotFoundError as for any vanished file
    if not stat.S_ISREG(st.st_mode):
        raise SnapshotError(f"{db}: {_kind(st.st_mode)}; not opened as a SQLite database")
    for suffix in ("-wal", "-shm", "-journal"):
        try:
            side = os.lstat(str(db) + suffix)
        except FileNotFoundError:
            continue
        if not stat.S_ISREG(side.st_mode):
            raise SnapshotError(f"{db}{suffix}: {_kind(side.st_mode)}; the database is not opened")
    return FileIdentity.from_stat(st)


def _check_opened(db: Path, expect: FileIdentity) -> None:
    """After SQLite opened `db` by name: the name is still the regular file checked (same device
    and inode), and its -wal/-shm still regular files. A symlink swapped in before SQLite's open
    and left there is caught; one swapped in and back around the open call is not (the open's
    descriptor is SQLite's own: a process-wide look at new descriptors, tried first, refused
    good stores when other threads opened files at the same moment)."""
    try:
        now = check_sqlite_files(db)
    except FileNotFoundError:
        raise SnapshotError(f"{db}: replaced by another file while opened; not read") from None
    if (now.inode, now.dev) != (expect.inode, expect.dev):
        raise SnapshotError(f"{db}: replaced by another file while opened; not read")


def wal_index_missing(db: Path) -> bool:
    """Is `db` in WAL mode (header bytes 18-19 are 2) with no -shm beside it? Such a file has
    no connection open (the last one removes -wal and -shm), and a read-only open would create
    -wal and -shm next to it, files of ours in the harness's folder: we never open it live."""
    try:
        with open_regular(db) as f:
            header = f.read(20)
    except OSError:
        return False
    if len(header) < 20 or not header.startswith(b"SQLite format 3\x00") or header[18:20] != b"\x02\x02":
        return False
    return not db.with_name(db.name + "-shm").exists()


def _check_copy(src: Path, dst: Path) -> None:
    """The backup API copies pages as they are: a source with damaged pages gives a damaged
    copy. Say so here, naming the source, rather than deep inside redaction."""
    conn = sqlite3.connect(str(dst))
    try:
        rows = conn.execute("PRAGMA quick_check").fetchall()
    except sqlite3.Error as e:
        raise SnapshotError(f"{src}: damaged SQLite database ({e})") from None
    finally:
        conn.close()
    damage = sqlite_checks.damage([r[0] for r in rows])
    if damage:
        raise SnapshotError(f"{src}: damaged SQLite database ({len(damage)} problem(s) found by quick_check)")


def _uri_path(p: Path) -> str:
    # absolute, not resolve(): resolving would follow a symlink in the last component
    return quote(os.path.abspath(p))


def _backup(uri: str, dst: Path, live: Path | None = None, expect: FileIdentity | None = None) -> None:
    if dst.exists():
        dst.unlink()
    src_conn = sqlite3.connect(uri, uri=True, timeout=10)
    try:
        src_conn.execute("PRAGMA schema_version").fetchone()  # fails fast on a non-database
        if live is not None and expect is not None:
            _check_opened(live, expect)
        backup_into(src_conn, dst)
    finally:
        src_conn.close()


def backup_into(src: sqlite3.Connection, dst: Path) -> None:
    """Write an open database to a new file `dst` (replaced if present) with the backup API
    in one step, so the copy is one consistent state (WAL frames included). The copy is
    left in rollback-journal mode: it needs no -wal or -shm of its own."""
    if dst.exists():
        dst.unlink()
    out = sqlite3.connect(str(dst))
    try:
        src.backup(out)  # pages=-1: the whole database in one step
        out.execute("PRAGMA journal_mode=DELETE")
    finally:
        out.close()


@contextmanager
def read_live_sqlite(db: Path) -> Iterator[sqlite3.Connection]:
    """A connection inside one read transaction on a consistent view of a live database,
    never writing next to it. Closed (and its temp copy removed) on exit.

    mode=ro on the live file sees the committed WAL frames. A WAL database without its -shm
    is not opened live (mode=ro would create -wal and -shm beside it), and opening read-only
    fails where -shm is missing and cannot be created: then, with a -wal present, db + -wal are copied
    into a 0700 temp dir and the copy is opened (SQLite replays the WAL into it); without a
    -wal there is nothing to miss, so the live file is opened immutable=1. Only an
    OperationalError on the read-only open leads to that fallback: a file that is not a
    database raises. The connection is in autocommit mode (isolation_level=None) with a
    BEGIN issued, so every read until exit sees the same state.
    """
    tmp: str | None = None
    conn: sqlite3.Connection | None = None
    expect = check_sqlite_files(db)  # no symlinked or special store, -wal or -shm
    try:
        try:
            if wal_index_missing(db):
                raise sqlite3.OperationalError("WAL database without -shm: not opened live")
            conn = sqlite3.connect(f"file:{quote(str(db))}?mode=ro", uri=True, isolation_level=None)
            conn.execute("BEGIN")
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            _check_opened(db, expect)
        except sqlite3.OperationalError:
            if conn is not None:
                conn.close()
            wal = db.with_name(db.name + "-wal")
            if wal.exists():
                tmp = tempfile.mkdtemp(prefix="archiver-sqlite-")  # mkdtemp is 0700
                copy = Path(tmp) / db.name
                try:
                    copy_regular(db, copy, expect)
                    copy_regular(wal, copy.with_name(copy.name + "-wal"))
                except _Changed:
                    raise SnapshotError(f"{db}: changed while copied") from None
                conn = sqlite3.connect(str(copy), isolation_level=None)
            else:
                conn = sqlite3.connect(f"file:{quote(str(db))}?immutable=1", uri=True, isolation_level=None)
                conn.execute("BEGIN")
                conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
                _check_opened(db, expect)
                conn.execute("COMMIT")
            conn.execute("BEGIN")
        yield conn
    finally:
        if conn is not None:
            try:
                conn.execute("COMMIT")
            except sqlite3.Error:
                pass
            conn.close()
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


_ZST_SLICE = 128  # one call yields at most ~4 MiB


def decompress_zst(src: Path, dst: Path, max_output: int = 64 << 30, max_ratio: float = 1000.0,
                   ratio_floor: int = RATIO_FLOOR) -> None:
    """Codex's idle rollouts: one zstd frame, stored decompressed (so moves dedup).

    Bomb guard: output stops past max_output bytes, and past ratio_floor bytes when it is
    more than max_ratio times the compressed bytes read so far. The ratio alone would refuse,
    on every run, a real rollout of a few MB that repeats itself (a long run of one character
    compresses beyond 10000:1); output below the floor is harmless whatever its ratio. Restore
    reads objects by the same rule, so what is archived here can be restored."""
    import zstandard

    from archiver.pack import ZstdStreamError, zstd_output

    written = 0
    try:
        with open_regular(src) as fi, _create_private(dst) as fo:
            for consumed, chunk in zstd_output(iter(lambda: fi.read(_BLOCK), b""), _ZST_SLICE):
                written += len(chunk)
                if written > max_output:
                    raise SnapshotError(f"{src}: decompresses beyond {max_output} bytes")
                if written > ratio_floor and written > max_ratio * consumed:
                    raise SnapshotError(f"{src}: decompression ratio above {max_ratio:g} past "
                                        f"{ratio_floor} bytes (a zstd bomb?)")
                fo.write(chunk)
                del chunk
    except ZstdStreamError as e:
        if e.frames:  # the harness is still writing it, or it was cut short; an empty file is empty
            raise SnapshotError(f"{src}: {e}") from None
    except zstandard.ZstdError as e:
        raise SnapshotError(f"{src}: not a valid zstd file ({e})") from None
