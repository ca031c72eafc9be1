"""Git pack files (OpenCode's snapshot git dirs after `git gc`: every snapshot is an unreachable
`write-tree` tree, so with cruft packs nearly all content ends up in packs).

A pack is archived as a POSIX tar of git *loose* objects: every object of the pack, deltas
resolved (OFS_DELTA and REF_DELTA within the pack; a thin pack's missing base is an error), is
written as `objects/xx/yyyy…`, named by its original id, holding exactly what the git-object
walker stores for such an object (gitobject.redact_body / redact_spooled_body: blob, commit and
tag bodies redacted, trees and binary blobs kept, zlib level 1). The tar is deterministic
(docs/FORMAT.md "git-pack"): members sorted by name, ustar headers with mtime 0, uid/gid 0, mode
0444, no user or group names, no directory members.

Memory is bounded by a constant plus BIG for each body held, whatever the size of the largest
object (a 300 MB dataset in a project is one blob of its snapshot pack). The pack is read twice
from the file, never mapped, by this module's own reader of the pack format (gitformat-pack):
1. headers: each object's type, inflated size, delta base (OFS_DELTA offset or REF_DELTA id)
   and the bounds of its zlib stream, inflated with the output dropped; the object count, the
   version (2 or 3) and the trailer (hash of all before it: SHA-1 or SHA-256) are checked, and
   nothing may lie between the last object and the trailer;
2. delta chains resolved as dulwich's DeltaChainIterator does: from each whole object in pack
   order down its deltas (OFS by offset, REF by id), each object inflated once. A body (whole
   object, delta data or delta result) up to BIG is held as bytes (deltas applied by dulwich's
   apply_delta); a larger one goes to a spool file, inflated in pieces and hashed as it
   streams, and a delta over a spooled base, or whose data or result is over BIG, is applied
   as a stream (copy ops read from the base by seek and read, never mmap, whose pages would
   count as the process's memory). Held are the bodies of the chain being walked that still
   have deltas to resolve: a base is let go before its last delta's own deltas are walked.
Each object's loose form goes to a spool file as it is made (a body over IN_MEMORY redacted as
a stream, as a big loose object is); the tar is written from the spool once every id is known.
Disk: a spooled body, its redacted copy and its loose form, per big object in the chain.
A pack that cannot be read fails with PackUnreadable (an OSError naming the file and the
reason, never content): nothing is written in its place, as plaintext must not leave unredacted.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import io
import re
import struct
import tarfile
import tempfile
import zlib
from array import array
from pathlib import Path
from typing import Any, BinaryIO, Callable, Generator, Iterable, Iterator

from archiver.redact.walkers.gitobject import (
    IN_MEMORY, RedactBytes, RedactStream, compress_object, object_header, redact_body, redact_spooled_body,
    scan_loose_object, write_object,
)
from archiver.snapshot import SnapshotError

_KIND = {1: b"commit", 2: b"tree", 3: b"blob", 4: b"tag"}  # pack type numbers of whole objects
_OFS_DELTA, _REF_DELTA = 6, 7
_PIECE = 1 << 20
BIG = 8 << 20  # a body (whole object, delta or delta result) over this is never held whole: spooled
MEMBER = re.compile(r"objects/[0-9a-f]{2}/(?:[0-9a-f]{38}|[0-9a-f]{62})")  # SHA-1 or SHA-256 names


class PackUnreadable(SnapshotError):
    """A pack (or an archived git-pack tar) that cannot be read as one; nothing was written."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(errno.EINVAL, reason, str(path))


def redact_pack(src: Path, dst: Path, redact_bytes: RedactBytes, redact_stream: RedactStream) -> int:
    """Write the objects of the pack src, each redacted as a loose object, to dst as a tar
    (module doc); the number of objects. PackUnreadable when src is no complete pack."""
    with src.open("rb") as f, tempfile.TemporaryFile(prefix="archiver-gitpack-") as spool:
        members: dict[str, tuple[int, int]] = {}  # name -> (start, length) in the spool
        for kind, oid, body in _objects(f, src):
            name = f"objects/{oid[:2]}/{oid[2:]}"
            if name in members:  # git tolerates an object packed twice: one copy is enough
                continue
            start = spool.tell()
            _write_loose(kind, body, spool, redact_bytes, redact_stream)  # type: ignore[arg-type]
            members[name] = (start, spool.tell() - start)
        _write_tar(dst, members, spool)  # type: ignore[arg-type]
    return len(members)


def scan_tar(path: Path, redact_bytes: RedactBytes, redact_stream: RedactStream, warnings: dict[str, int]) -> None:
    """Every member of an archived git-pack tar through the callbacks as a loose object (for
    their counts). A file that is no tar is PackUnreadable; a member that is not a regular
    file named as a loose object is counted as the warning "git-pack-member"."""
    try:
        with tarfile.open(path, "r:") as tar:
            for member in tar:
                if not member.isreg() or MEMBER.fullmatch(member.name) is None:
                    warnings["git-pack-member"] = warnings.get("git-pack-member", 0) + 1
                    continue
                f = tar.extractfile(member)
                assert f is not None  # a regular member always has a file
                scan_loose_object(f, redact_bytes, redact_stream, warnings)  # type: ignore[arg-type]
    except tarfile.TarError as e:
        raise PackUnreadable(path, f"not a tar of git loose objects ({type(e).__name__})") from None


# ---------------------------------------------------------------- reading the pack


class _Bad(Exception):
    """The pack cannot be read; the reason names no content."""


class _Spooled:
    """A body over BIG in a temp file, read by offset (seek and read: never mapped, so its
    pages do not count in the process's memory)."""

    def __init__(self, f: BinaryIO, size: int) -> None:
        self.f, self.size = f, size

    def read_at(self, offset: int, n: int) -> Iterator[bytes]:
        self.f.seek(offset)
        while n > 0:
            data = self.f.read(min(n, _PIECE))
            if not data:
                raise _Bad("a spooled object is shorter than written")
            n -= len(data)
            yield data


def _size(body: bytes | _Spooled) -> int:
    return len(body) if isinstance(body, bytes) else body.size


def _release(body: bytes | _Spooled) -> None:
    if isinstance(body, _Spooled):
        body.f.close()


def _inflate(more: Callable[[], bytes], size: int) -> Generator[bytes, None, bytes]:
    """The pieces (at most _PIECE bytes each) of the zlib stream whose input `more` gives,
    which must inflate to exactly `size` bytes; returns the input left after the stream."""
    d = zlib.decompressobj()
    n, data, full = 0, b"", False
    while not d.eof:
        if not data and not full:  # (a full piece may leave output in zlib: ask again with no input)
            data = more()
            if not data:
                raise _Bad("truncated zlib stream")
        try:
            out = d.decompress(data, _PIECE)
        except zlib.error as e:
            raise _Bad(f"zlib: {e}") from None
        n += len(out)
        if n > size:
            raise _Bad("an object inflates past the size in its header")
        if out:
            yield out
        full, data = len(out) == _PIECE, d.unconsumed_tail
    if n != size:
        raise _Bad("an object inflates to less than the size in its header")
    return d.unused_data


class _Reader:
    """The pack read forward through a buffer of about _PIECE bytes, up to its trailer."""

    def __init__(self, f: BinaryIO, end: int) -> None:
        self.f, self.end = f, end
        f.seek(0)
        self.fpos = 0  # the file offset just past the buffer
        self.buf, self.at = b"", 0

    @property
    def pos(self) -> int:
        return self.fpos - len(self.buf) + self.at

    def _more(self, n: int = 0) -> bytes:
        data = self.f.read(min(max(n, _PIECE), self.end - self.fpos))
        self.fpos += len(data)
        return data

    def take(self, n: int) -> bytes:
        if self.at + n > len(self.buf):
            self.buf, self.at = self.buf[self.at:] + self._more(n), 0
            if n > len(self.buf):
                raise _Bad("truncated object header")
        self.at += n
        return self.buf[self.at - n:self.at]

    def byte(self) -> int:
        return self.take(1)[0]

    def varint(self, c: int, shift: int) -> int:
        """The rest of an object header's size whose first byte was c (little-endian groups)."""
        size = c & ((1 << shift) - 1)
        while c & 0x80:
            if shift > 70:
                raise _Bad("object header too long")
            c = self.byte()
            size |= (c & 0x7F) << shift
            shift += 7
        return size

    def skip_zlib(self, size: int) -> None:
        """Past one zlib stream that must inflate to `size` bytes; the output is dropped."""
        rest = [memoryview(self.buf)[self.at:]] if self.at < len(self.buf) else []
        pieces = _inflate(lambda: rest.pop() if rest else self._more(), size)
        while True:
            try:
                next(pieces)
            except StopIteration as stop:
                self.buf, self.at = stop.value, 0
                return


class _Pack:
    """A pack's objects by index in pack order: what the first pass read of each (type, inflated
    size, where its zlib stream starts and ends) and which deltas wait for which base."""

    def __init__(self, f: BinaryIO, hash_func: Callable[[], Any]) -> None:
        self.f, self.hash_func = f, hash_func
        self.hash_len = len(hash_func().digest())
        self.offsets, self.starts, self.ends, self.sizes = array("Q"), array("Q"), array("Q"), array("Q")
        self.types = array("B")
        self.ofs_children: dict[int, list[int]] = {}  # base offset -> indices of its OFS_DELTAs
        self.ref_children: dict[bytes, list[int]] = {}  # base id -> indices of its REF_DELTAs (pack order)

    def scan(self) -> None:
        """The first pass: every object's header, delta base and the end of its zlib stream;
        nothing inflated is kept. Checks the header, the count and that the trailer follows."""
        end = self.f.seek(0, 2) - self.hash_len
        r = _Reader(self.f, end)
        head = r.take(12)
        version, count = struct.unpack(">II", head[4:])
        if version not in (2, 3):
            raise _Bad(f"pack version {version}")
        for i in range(count):
            offset = r.pos
            c = r.byte()
            kind = (c >> 4) & 7
            size = r.varint(c, 4)
            if kind == _OFS_DELTA:
                c = r.byte()
                back = c & 0x7F
                while c & 0x80:
                    if back >> 64:
                        raise _Bad("delta base offset too long")
                    c = r.byte()
                    back = ((back + 1) << 7) | (c & 0x7F)
                if back == 0 or offset - back < 12:
                    raise _Bad("a delta's base offset is outside the pack")
                self.ofs_children.setdefault(offset - back, []).append(i)
            elif kind == _REF_DELTA:
                self.ref_children.setdefault(r.take(self.hash_len), []).append(i)
            elif kind not in _KIND:
                raise _Unknown(kind)
            self.offsets.append(offset)
            self.types.append(kind)
            self.sizes.append(size)
            self.starts.append(r.pos)
            r.skip_zlib(size)
            self.ends.append(r.pos)
        if r.pos != end:
            raise _Bad("data after the last object")

    # ------------------------------------------------------------ the second pass

    def walk(self) -> Iterator[tuple[bytes, bytes, bytes | _Spooled]]:
        """(type, raw id, body) of every object, deltas resolved as dulwich's DeltaChainIterator
        does: from each whole object (pack order) down its deltas, each object inflated once.
        Held are the bodies of the chain being walked that still have deltas to resolve (a base
        is let go before its last delta's own deltas are walked). A body must not be used
        after the next object is asked for."""
        done = 0
        frames: list[tuple[bytes | _Spooled, list[int]]] = []
        try:
            for i, t in enumerate(self.types):
                if t not in _KIND:
                    continue
                kind = _KIND[t]
                body, oid = self._whole(kind, i)
                done += 1
                yield kind, oid, body
                frames.append((body, self._children(i, oid)))
                while frames:
                    base, todo = frames[-1]
                    if not todo:
                        frames.pop()
                        _release(base)
                        continue
                    j = todo.pop()
                    child, cid = self._delta(kind, base, j)
                    if not todo:
                        frames.pop()
                        _release(base)
                    done += 1
                    yield kind, cid, child
                    frames.append((child, self._children(j, cid)))
        finally:
            for body, _ in frames:
                _release(body)
        if self.ref_children:
            raise _Thin(next(iter(self.ref_children)))
        if done != len(self.types):  # an OFS_DELTA whose base offset holds no object
            raise _Bad(f"{len(self.types) - done} of {len(self.types)} objects could not be resolved")

    def _children(self, i: int, oid: bytes) -> list[int]:
        return self.ofs_children.pop(self.offsets[i], []) + self.ref_children.pop(oid, [])

    def _stream(self, i: int) -> Generator[bytes, None, bytes]:
        """The inflated pieces of object i, read from its zlib stream's bounds."""
        pos, end = self.starts[i], self.ends[i]

        def more() -> bytes:
            nonlocal pos
            self.f.seek(pos)
            data = self.f.read(min(_PIECE, end - pos))
            pos += len(data)
            return data

        unused = yield from _inflate(more, self.sizes[i])
        if unused or pos != end:
            raise _Bad("an object's zlib stream changed between the passes")
        return b""

    def _whole(self, kind: bytes, i: int) -> tuple[bytes | _Spooled, bytes]:
        h = self.hash_func()
        h.update(object_header(kind, self.sizes[i]))
        if self.sizes[i] <= BIG:
            body = b"".join(self._stream(i))
            h.update(body)
            return body, h.digest()
        spool = _Spooled(tempfile.TemporaryFile(prefix="archiver-gitpack-"), self.sizes[i])
        try:
            for piece in self._stream(i):
                h.update(piece)
                spool.f.write(piece)
        except BaseException:
            _release(spool)
            raise
        return spool, h.digest()

    def _delta(self, kind: bytes, base: bytes | _Spooled, j: int) -> tuple[bytes | _Spooled, bytes]:
        """Delta j applied to base: in memory when the delta, its base and its result are at most
        BIG; otherwise streamed (the delta inflated in pieces, copies read from the base by
        offset, the result written to a spool file as it is made)."""
        from dulwich.errors import ApplyDeltaError
        from dulwich.pack import apply_delta

        delta: bytes | None = None
        if self.sizes[j] <= BIG and isinstance(base, bytes):
            delta = b"".join(self._stream(j))
            ops = _Ops(iter([delta]))
            if ops.varint() != len(base):
                raise _Bad("a delta does not fit its base")
            if ops.varint() <= BIG:
                try:
                    body = b"".join(apply_delta(base, delta))
                except ApplyDeltaError:
                    self._apply_streaming(kind, base, _Ops(iter([delta])))  # raises, naming what is wrong
                    raise _Bad("a delta does not fit its base") from None
                if not body and kind != b"blob":
                    raise _Bad(f"a delta resolves to an empty {kind.decode()}")
                h = self.hash_func()
                h.update(object_header(kind, len(body)))
                h.update(body)
                return body, h.digest()
        return self._apply_streaming(kind, base, _Ops(iter([delta]) if delta is not None else self._stream(j)))

    def _apply_streaming(self, kind: bytes, base: bytes | _Spooled, ops: _Ops) -> tuple[bytes | _Spooled, bytes]:
        base_size = _size(base)
        if ops.varint() != base_size:
            raise _Bad("a delta does not fit its base")
        size = ops.varint()
        if size == 0 and kind != b"blob":
            raise _Bad(f"a delta resolves to an empty {kind.decode()}")
        h = self.hash_func()
        h.update(object_header(kind, size))
        out: Any = io.BytesIO() if size <= BIG else tempfile.TemporaryFile(prefix="archiver-gitpack-")
        view = memoryview(base) if isinstance(base, bytes) else None
        n = 0
        try:
            while not ops.at_end():
                c = ops.byte()
                if c & 0x80:  # copy from the base: offset and size, their bytes present by the flags
                    offset = length = 0
                    for k in range(4):
                        if c & (1 << k):
                            offset |= ops.byte() << (8 * k)
                    for k in range(3):
                        if c & (0x10 << k):
                            length |= ops.byte() << (8 * k)
                    length = length or 0x10000
                    if offset + length > base_size:
                        raise _Bad("a delta copies past the end of its base")
                    pieces: Iterable[bytes | memoryview] = (
                        [view[offset:offset + length]] if view is not None
                        else base.read_at(offset, length))  # type: ignore[union-attr]
                elif c:  # insert the next c bytes
                    length, pieces = c, [ops.take(c)]
                else:
                    raise _Bad("a delta holds opcode 0")
                n += length
                if n > size:
                    raise _Bad("a delta makes more than its result's size")
                for piece in pieces:
                    h.update(piece)
                    out.write(piece)
            if n != size:
                raise _Bad("a delta makes less than its result's size")
        except BaseException:
            out.close()
            raise
        if size <= BIG:
            return out.getvalue(), h.digest()
        return _Spooled(out, size), h.digest()


class _Ops:
    """A delta's bytes read forward from its inflated pieces."""

    def __init__(self, pieces: Iterator[bytes]) -> None:
        self.pieces, self.buf, self.at = pieces, b"", 0

    def _fill(self) -> bool:
        for piece in self.pieces:
            if piece:
                self.buf, self.at = piece, 0
                return True
        return False

    def at_end(self) -> bool:
        return self.at >= len(self.buf) and not self._fill()

    def byte(self) -> int:
        if self.at >= len(self.buf) and not self._fill():
            raise _Bad("truncated delta")
        self.at += 1
        return self.buf[self.at - 1]

    def take(self, n: int) -> bytes:
        out = self.buf[self.at:self.at + n]
        self.at += len(out)
        while len(out) < n:
            if not self._fill():
                raise _Bad("truncated delta")
            more = self.buf[:n - len(out)]
            self.at = len(more)
            out += more
        return out

    def varint(self) -> int:
        """A delta header's size: 7-bit groups, least significant first."""
        value = shift = 0
        while True:
            if shift > 70:
                raise _Bad("delta header too long")
            c = self.byte()
            value |= (c & 0x7F) << shift
            shift += 7
            if not c & 0x80:
                return value


class _Unknown(Exception):
    def __init__(self, kind: int) -> None:
        self.kind = kind


class _Thin(Exception):
    def __init__(self, base: bytes) -> None:
        self.base = base


def _objects(f: BinaryIO, src: Path) -> Iterator[tuple[bytes, str, bytes | _Spooled]]:
    """(type, hex id, body) of every object of the pack, deltas resolved (module doc)."""
    pack = _Pack(f, _object_format(f, src))
    try:
        pack.scan()
        for kind, oid, body in pack.walk():
            yield kind, oid.hex(), body
    except _Unknown as e:
        raise PackUnreadable(src, f"object of unknown type {e.kind}") from None
    except _Thin as e:
        raise PackUnreadable(src, f"thin pack: delta base {e.base.hex()} is not in the pack") from None
    except _Bad as e:
        raise PackUnreadable(src, f"not a readable git pack ({e})") from None


def _object_format(f: BinaryIO, src: Path) -> Callable[[], Any]:
    """SHA-1 or SHA-256, told by the trailer: the hash of everything before it."""
    size = f.seek(0, 2)
    f.seek(0)
    if f.read(4) != b"PACK":
        raise PackUnreadable(src, "not a git pack (no PACK signature)")
    hashes = {hashlib.sha1: hashlib.sha1(), hashlib.sha256: hashlib.sha256()}
    ends = {hashlib.sha1: size - 20, hashlib.sha256: size - 32}
    f.seek(0)
    pos = 0
    while data := f.read(_PIECE):
        for fmt, h in hashes.items():
            if pos < ends[fmt]:
                h.update(data[:max(0, ends[fmt] - pos)])
        pos += len(data)
    for fmt, h in hashes.items():
        if ends[fmt] >= 12:
            f.seek(ends[fmt])
            if f.read() == h.digest():
                return fmt
    raise PackUnreadable(src, "not a complete git pack (its checksum does not match)")


# ---------------------------------------------------------------- writing


def _write_loose(kind: bytes, body: bytes | _Spooled, spool: BinaryIO, redact_bytes: RedactBytes,
                 redact_stream: RedactStream) -> None:
    """The object's loose form as the git-object walker would store it, appended to spool."""
    size = _size(body)
    if size <= IN_MEMORY:
        if isinstance(body, _Spooled):
            body = b"".join(body.read_at(0, size))
        out = redact_body(kind, body, redact_bytes)
        spool.write(compress_object(kind, body if out is None else out))
        return
    with tempfile.TemporaryFile(prefix="archiver-gitpack-") as red, contextlib.ExitStack() as stack:
        if isinstance(body, bytes):
            plain: BinaryIO = stack.enter_context(tempfile.TemporaryFile(prefix="archiver-gitpack-"))  # type: ignore[arg-type]
            plain.write(body)
        else:
            plain = body.f  # the spool itself: redact_spooled_body only reads it
        out_size = redact_spooled_body(kind, plain, size, redact_stream, red)  # type: ignore[arg-type]
        if out_size is None:
            plain.seek(0)
            write_object(kind, size, plain, spool)  # type: ignore[arg-type]
        else:
            write_object(kind, out_size, red, spool)  # type: ignore[arg-type]


def _write_tar(dst: Path, members: dict[str, tuple[int, int]], spool: BinaryIO) -> None:
    with tarfile.open(dst, "w", format=tarfile.USTAR_FORMAT) as tar:
        for name in sorted(members):
            start, length = members[name]
            info = tarfile.TarInfo(name)
            info.size, info.mtime, info.mode = length, 0, 0o444
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            info.type = tarfile.REGTYPE
            spool.seek(start)
            tar.addfile(info, spool)
