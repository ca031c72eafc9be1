"""Consistent copies of files that harnesses are writing while we read.

- JSONL is taken up to its last complete line; a torn final line waits for the next run.
- SQLite goes through the backup API on a connection to the live file, so committed
  rows that live only in the -wal are included (copy_sqlite, backup_into); collectors that
  read a live database in place use read_live_sqlite.
- Any other file is copied and re-checked; a file that changes during the copy is
  retried, then reported.
Nothing here reads a whole file into memory.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sqlite3
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Iterator, NamedTuple
from urllib.parse import quote

import orjson

from archiver.pack import RATIO_FLOOR

COPY_RETRIES = 3
FINGERPRINT_SPAN = 64 * 1024
_BLOCK = 1024 * 1024
LONG_LINE = 1 << 20  # iter_lines hands longer lines over as spans (redacted from the file)
SNIFF_BYTES = 8192  # what looks_binary needs to see of a file
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
    """What tells us cheaply whether a file changed since we last archived it."""

    inode: int
    size: int
    mtime_ns: int

    @classmethod
    def of(cls, path: Path) -> "FileIdentity":
        st = path.stat()
        return cls(st.st_ino, st.st_size, st.st_mtime_ns)


def complete_length(path: Path, size: int | None = None) -> int:
    """Bytes up to and including the last newline: the part of a JSONL file safe to read."""
    with path.open("rb") as f:
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


def whole_jsonl_length(path: Path) -> int:
    """The part of a JSONL file snapshotted whole worth archiving: all of it, unless its final
    line has no newline and is not JSON (torn, or still being written: archived once complete).
    A writer that ends its last complete line without a newline (a rewritten mirror) keeps it.
    A final line longer than _TAIL_PARSE_MAX is judged by its shape (ends with `}` or `]`)."""
    with path.open("rb") as f:
        size = os.fstat(f.fileno()).st_size
    end = complete_length(path, size)
    if end == size:
        return size
    with path.open("rb") as f:
        if size - end <= _TAIL_PARSE_MAX:
            f.seek(end)
            try:
                orjson.loads(f.read(size - end))
                return size
            except orjson.JSONDecodeError:
                return end
        f.seek(max(end, size - 64))
        return size if f.read().rstrip().endswith((b"}", b"]")) else end


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


def copy_whole(src: Path, dst: Path) -> FileIdentity:
    """Copy a file that may be rewritten; retried while it changes under us."""
    last_error = ""
    for _ in range(COPY_RETRIES):
        before = FileIdentity.of(src)
        with src.open("rb") as fi, dst.open("wb") as fo:
            shutil.copyfileobj(fi, fo, _BLOCK)
        after = FileIdentity.of(src)
        if before == after and dst.stat().st_size == after.size:
            return after
        last_error = "changed during copy"
    raise SnapshotError(f"{src}: {last_error} ({COPY_RETRIES} attempts)")


def copy_sqlite(src: Path, dst: Path) -> None:
    """A consistent copy of a live SQLite database, WAL content included.

    A read-only connection to a WAL database needs its -shm; when that is missing
    (or the folder is read-only) we copy db, -wal and -shm together, check nothing
    moved, and back up from the copy.
    """
    first_error = "not opened live: a WAL database without its -shm (opening it would create -wal and -shm)"
    if not wal_index_missing(src):
        try:
            _backup(f"file:{_uri_path(src)}?mode=ro", dst)
            _check_copy(src, dst)
            return
        except sqlite3.Error as first:
            first_error = str(first)
    with tempfile.TemporaryDirectory(prefix="archiver-sqlite-") as tmp:
        os.chmod(tmp, 0o700)
        for _ in range(COPY_RETRIES):
            ids = {}
            for suffix in ("", "-wal", "-shm"):
                part = Path(str(src) + suffix)
                if part.exists():
                    ids[suffix] = FileIdentity.of(part)
                    shutil.copyfile(part, Path(tmp) / ("db" + suffix))
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


def wal_index_missing(db: Path) -> bool:
    """Is `db` in WAL mode (header bytes 18-19 are 2) with no -shm beside it? Such a file has
    no connection open (the last one removes -wal and -shm), and a read-only open would create
    -wal and -shm next to it, files of ours in the harness's folder: we never open it live."""
    try:
        with db.open("rb") as f:
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
    if [r[0] for r in rows] != ["ok"]:
        raise SnapshotError(f"{src}: damaged SQLite database ({len(rows)} problem(s) found by quick_check)")


def _uri_path(p: Path) -> str:
    return quote(str(p.resolve()))


def _backup(uri: str, dst: Path) -> None:
    if dst.exists():
        dst.unlink()
    src_conn = sqlite3.connect(uri, uri=True, timeout=10)
    try:
        src_conn.execute("PRAGMA schema_version").fetchone()  # fails fast on a non-database
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
    try:
        try:
            if wal_index_missing(db):
                raise sqlite3.OperationalError("WAL database without -shm: not opened live")
            conn = sqlite3.connect(f"file:{quote(str(db))}?mode=ro", uri=True, isolation_level=None)
            conn.execute("BEGIN")
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        except sqlite3.OperationalError:
            if conn is not None:
                conn.close()
            wal = db.with_name(db.name + "-wal")
            if wal.exists():
                tmp = tempfile.mkdtemp(prefix="archiver-sqlite-")  # mkdtemp is 0700
                copy = Path(tmp) / db.name
                shutil.copyfile(db, copy)
                shutil.copyfile(wal, copy.with_name(copy.name + "-wal"))
                conn = sqlite3.connect(str(copy), isolation_level=None)
            else:
                conn = sqlite3.connect(f"file:{quote(str(db))}?immutable=1", uri=True, isolation_level=None)
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
        with src.open("rb") as fi, dst.open("wb") as fo:
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
