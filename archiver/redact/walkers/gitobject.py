"""Git loose objects (OpenCode's `snapshot/<project>/` git dirs hold copies of the project's
files, `.env` included): a zlib stream of `<type> <size>\\0<body>`.

Blob, commit and tag bodies are redacted: a body up to IN_MEMORY as one document (JSON
keeps its structure, other text as text), a larger one streamed as text through a temp
file in the run's private folder. A binary blob (NUL or invalid UTF-8 in its first 8 KiB)
and a tree (file names and binary hashes) are kept. A changed object gets its header's
size rewritten and is compressed again; an unchanged one is copied byte for byte.

The object keeps its file name, the hash of the original content. git reads it as it is
(cat-file, checkout, diff: what OpenCode's revert and diff views run); only `git fsck`
reports the mismatch. A file that is not a loose object is copied and counted as the
warning "git-object-malformed". Decompression is bounded: the body is read in pieces.
The body's redaction (redact_body, redact_spooled_body) and the loose form (compress_object,
write_object) are shared with the objects of pack files (walkers/gitpack.py).
"""

from __future__ import annotations

import itertools
import shutil
import tempfile
import zlib
from pathlib import Path
from typing import BinaryIO, Callable, Iterator

from archiver.snapshot import SNIFF_BYTES, looks_binary

IN_MEMORY = 8 << 20
_PIECE = 1 << 20
_HEADER_MAX = 32  # "commit 18446744073709551615\0" and shorter
_KINDS = frozenset({b"blob", b"commit", b"tag", b"tree"})
_LEVEL = 1  # git's core.looseCompression default

RedactBytes = Callable[[bytes], bytes]
RedactStream = Callable[[BinaryIO, BinaryIO], None]


class Malformed(ValueError):
    pass


def _inflate(f: BinaryIO) -> Iterator[bytes]:
    """The decompressed stream in pieces of at most _PIECE bytes."""
    d = zlib.decompressobj()
    while True:
        data = f.read(_PIECE)
        if not data:
            break
        while data:
            try:
                out = d.decompress(data, _PIECE)
            except zlib.error as e:
                raise Malformed(f"zlib: {e}") from None
            if out:
                yield out
            data = d.unconsumed_tail
        if d.eof:
            break
    if not d.eof:
        raise Malformed("truncated zlib stream")
    if d.unused_data or f.read(1):
        raise Malformed("data after the zlib stream")


def _header(pieces: Iterator[bytes]) -> tuple[bytes, int, bytes]:
    """(type, size, the first bytes of the body) from the start of the stream."""
    head = b""
    for piece in pieces:
        head += piece
        nul = head.find(b"\0")
        if nul != -1:
            break
        if len(head) > _HEADER_MAX:
            break
    nul = head.find(b"\0")
    if nul == -1 or nul > _HEADER_MAX:
        raise Malformed("no object header")
    kind, _, size = head[:nul].partition(b" ")
    if kind not in _KINDS or not size.isdigit() or (len(size) > 1 and size[:1] == b"0"):
        raise Malformed("not a git object header")
    return kind, int(size), head[nul + 1:]


def redact_loose_object(src: Path, dst: Path | None, redact_bytes: RedactBytes, redact_stream: RedactStream,
                        warnings: dict[str, int]) -> None:
    """Write src redacted to dst (None: only scan, for the counts)."""
    with src.open("rb") as f:
        try:
            _redact(f, src, dst, redact_bytes, redact_stream)
            return
        except Malformed:
            warnings["git-object-malformed"] = warnings.get("git-object-malformed", 0) + 1
    if dst is not None:
        shutil.copyfile(src, dst)


def scan_loose_object(f: BinaryIO, redact_bytes: RedactBytes, redact_stream: RedactStream,
                      warnings: dict[str, int]) -> None:
    """The loose object read from f through the callbacks (for their counts); nothing is written."""
    try:
        _redact(f, None, None, redact_bytes, redact_stream)
    except Malformed:
        warnings["git-object-malformed"] = warnings.get("git-object-malformed", 0) + 1


def _redact(f: BinaryIO, src: Path | None, dst: Path | None, redact_bytes: RedactBytes,
            redact_stream: RedactStream) -> None:
    pieces = _inflate(f)
    kind, size, first = _header(pieces)
    if kind == b"tree":
        for _ in pieces:  # validated whole before it is kept
            pass
        _copy(src, dst)
        return
    if size <= IN_MEMORY:
        body = b"".join([first, *pieces])
        if len(body) != size:
            raise Malformed("size differs from the header")
        out = redact_body(kind, body, redact_bytes)
        if out is None:
            _copy(src, dst)
        elif dst is not None:
            dst.write_bytes(compress_object(kind, out))
        return
    with tempfile.TemporaryFile(prefix="archiver-gitobj-") as plain, \
            tempfile.TemporaryFile(prefix="archiver-gitobj-") as red:
        n = 0
        for piece in itertools.chain([first], pieces):
            plain.write(piece)
            n += len(piece)
        if n != size:
            raise Malformed("size differs from the header")
        out_size = redact_spooled_body(kind, plain, size, redact_stream, red)  # type: ignore[arg-type]
        if out_size is None:
            _copy(src, dst)
        elif dst is not None:
            with dst.open("wb") as fo:
                write_object(kind, out_size, red, fo)  # type: ignore[arg-type]


def redact_body(kind: bytes, body: bytes, redact_bytes: RedactBytes) -> bytes | None:
    """The redacted body of an object held whole (at most IN_MEMORY bytes), or None when the
    object is kept as it is: a tree, a binary blob, or nothing replaced."""
    if kind == b"tree" or looks_binary(body):
        return None
    out = redact_bytes(body)
    return None if out == body else out


def redact_spooled_body(kind: bytes, plain: BinaryIO, size: int, redact_stream: RedactStream,
                        red: BinaryIO) -> int | None:
    """A body of `size` bytes spooled in `plain`, redacted as a stream into `red` (left
    positioned at its start); the redacted size, or None when the object is kept as it is."""
    if kind == b"tree":
        return None
    plain.seek(0)
    if looks_binary(plain.read(SNIFF_BYTES)):
        return None
    plain.seek(0)
    redact_stream(plain, red)
    out_size = red.tell()
    red.seek(0)
    plain.seek(0)
    if out_size == size and _same(plain, red):
        return None
    red.seek(0)
    return out_size


def object_header(kind: bytes, size: int) -> bytes:
    return b"%s %d\0" % (kind, size)


def compress_object(kind: bytes, body: bytes) -> bytes:
    """A loose object's bytes for a body held whole."""
    return zlib.compress(object_header(kind, len(body)) + body, _LEVEL)


def write_object(kind: bytes, size: int, body: BinaryIO, fo: BinaryIO) -> None:
    """A loose object's bytes for a body of `size` bytes read from `body`, written to fo."""
    z = zlib.compressobj(_LEVEL)
    fo.write(z.compress(object_header(kind, size)))
    while data := body.read(_PIECE):
        fo.write(z.compress(data))
    fo.write(z.flush())


def _same(a: BinaryIO, b: BinaryIO) -> bool:
    while True:
        x, y = a.read(_PIECE), b.read(_PIECE)
        if x != y:
            return False
        if not x:
            return True


def _copy(src: Path | None, dst: Path | None) -> None:
    if src is not None and dst is not None:
        shutil.copyfile(src, dst)
