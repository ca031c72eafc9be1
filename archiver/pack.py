"""Object packing: every stored object is age(zstd(payload)).

`age -d -i identity.txt OBJ | zstd -d` reads any object without this project.
"""

from __future__ import annotations

import hashlib
import hmac
import io
import os
import tempfile
from pathlib import Path
from typing import BinaryIO, Iterable, Iterator, Sequence

import zstandard

from archiver.crypto.age import DecryptReader, EncryptWriter, Identity, Recipient

__all__ = [
    "UnpackError",
    "ObjectHasher",
    "object_id",
    "pack_stream",
    "pack_file",
    "pack_bytes",
    "pack_file_bytes",
    "unpack_stream",
    "unpack_bytes",
]

SMALL_OBJECT = 1 << 20  # plaintext up to this is packed in memory and put conditionally (a few MB per thread at most)
_READ_SIZE = 64 * 1024
# Input fed to zstd per call. A zstd block (<=128 KiB out) needs >=4 bytes in, so
# one call yields at most ~32768x its input: 256 bytes bound a call to ~8 MiB.
_ZSTD_SLICE = 256
# Ratio checks start only once this much was produced: a genuine file of a few MB that repeats
# itself (a tool output of one character) compresses far beyond 1000:1, and sync archives it
# (snapshot.decompress_zst reads Codex rollouts by the same floor); a bomb stops here.
RATIO_FLOOR = 64 << 20


def _write_all(dst: BinaryIO, data: bytes) -> None:
    view = memoryview(data)
    while view:
        n = dst.write(view)
        view = view[len(view) if n is None else n :]


class UnpackError(ValueError):
    """An object is corrupt or exceeds the output / ratio limits."""


class ObjectHasher:
    """Incremental object id: HMAC-SHA256(object-id key, plaintext)."""

    def __init__(self, key: bytes) -> None:
        self._h = hmac.new(key, digestmod=hashlib.sha256)

    def update(self, data: bytes | bytearray | memoryview) -> None:
        self._h.update(data)

    def hexdigest(self) -> str:
        return self._h.hexdigest()


def object_id(key: bytes, data: bytes) -> str:
    """64 hex chars: HMAC-SHA256(object-id key, data)."""
    return hmac.new(key, data, hashlib.sha256).hexdigest()


def _compressor(level: int) -> zstandard.ZstdCompressor:
    return zstandard.ZstdCompressor(level=level, write_checksum=True)


def pack_stream(
    src: BinaryIO, dst: BinaryIO, recipients: Sequence[Recipient | str], level: int = 3
) -> int:
    """Compress and encrypt src into dst (dst stays open); returns bytes written."""
    enc = EncryptWriter(dst, recipients)
    _compressor(level).copy_stream(src, enc, read_size=_READ_SIZE, write_size=_READ_SIZE)
    enc.close()
    return enc.bytes_written


def pack_file(src: Path, dst: Path, recipients: Sequence[Recipient | str], level: int = 3,
              durable: bool = True) -> int:
    """Pack src into dst atomically (temp file + rename, mode 0600); returns bytes written.
    `durable=False` skips the fsync: for a temp file that is uploaded and deleted."""
    dst = Path(dst)
    fd, tmp = tempfile.mkstemp(dir=dst.parent, prefix=f".{dst.name}.", suffix=".tmp")
    try:
        with open(src, "rb") as fin, os.fdopen(fd, "wb") as fout:
            n = pack_stream(fin, fout, recipients, level)
            if durable:
                fout.flush()
                os.fsync(fout.fileno())
        os.replace(tmp, dst)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    return n


def pack_bytes(data: bytes, recipients: Sequence[Recipient | str], level: int = 3) -> bytes:
    """age(zstd(data)) in memory; the zstd frame records the content size."""
    out = io.BytesIO()
    with EncryptWriter(out, recipients) as enc:
        enc.write(_compressor(level).compress(data))
    return out.getvalue()


def pack_file_bytes(src: Path, recipients: Sequence[Recipient | str], level: int = 3) -> bytes:
    """age(zstd(file)) in memory, the file read in blocks: for a payload whose packed form is
    small but whose plaintext need not be held (a manifest). Like pack_bytes, one frame that
    records the content size."""
    out = io.BytesIO()
    with open(src, "rb") as fin:
        size = os.fstat(fin.fileno()).st_size
        with EncryptWriter(out, recipients) as enc:
            _compressor(level).copy_stream(fin, enc, size=size, read_size=_READ_SIZE, write_size=_READ_SIZE)
    return out.getvalue()


def unpack_stream(
    src: BinaryIO,
    dst: BinaryIO,
    identities: Sequence[Identity | str],
    max_output: int | None = None,
    max_ratio: float | None = None,
    ratio_floor: int = RATIO_FLOOR,
) -> int:
    """Decrypt and decompress src into dst; returns bytes written.

    Raises UnpackError past max_output bytes or a decompressed/compressed ratio of
    max_ratio (checked past ratio_floor bytes of output), and on corrupt, truncated or trailing
    zstd data; age errors (AgeError subclasses) pass through. Memory stays bounded.
    """
    reader = DecryptReader(src, identities)
    total_out = 0
    try:
        for total_in, out in zstd_output(iter(lambda: reader.read(_READ_SIZE), b"")):
            if max_output is not None and total_out + len(out) > max_output:
                raise UnpackError(f"decompressed object exceeds the limit of {max_output} bytes")
            total_out += len(out)
            if max_ratio is not None and total_out > ratio_floor and total_out > max_ratio * total_in:
                raise UnpackError(
                    f"decompression ratio exceeds {max_ratio} ({total_out} bytes from {total_in})"
                )
            _write_all(dst, out)
            del out
    except zstandard.ZstdError as e:
        raise UnpackError(f"corrupt zstd data: {e}") from None
    except ZstdStreamError as e:
        raise UnpackError(str(e) if e.frames else "object holds no zstd frame (empty payload)") from None
    return total_out


class ZstdStreamError(ValueError):
    """The zstd data ends inside a frame, or holds none (`frames` == 0)."""

    def __init__(self, message: str, frames: int) -> None:
        super().__init__(message)
        self.frames = frames


def zstd_output(blocks: Iterable[bytes], slice_size: int = _ZSTD_SLICE) -> Iterator[tuple[int, bytes]]:
    """(compressed bytes consumed so far, output) of zstd frames one after another, fed in
    slices small enough that one call yields a bounded amount (a bomb is stopped by the caller
    within a few MiB of its limits). Raises ZstdStreamError when the data ends inside a frame or
    holds none, zstandard.ZstdError on corrupt data."""
    dctx = zstandard.ZstdDecompressor()
    dobj = None
    total_in = frames = 0
    for block in blocks:
        mv = memoryview(block)
        for off in range(0, len(mv), slice_size):
            piece: bytes | memoryview = mv[off : off + slice_size]
            total_in += len(piece)
            while piece:
                if dobj is None or dobj.eof:
                    dobj = dctx.decompressobj()
                    frames += 1
                out = dobj.decompress(piece)
                piece = dobj.unused_data if dobj.eof else b""
                if out:
                    yield total_in, out
                out = b""  # one output chunk alive at a time (callers drop theirs too)
    if dobj is None:
        raise ZstdStreamError("no zstd frame", 0)
    if not dobj.eof:
        raise ZstdStreamError(f"truncated zstd frame ({total_in} bytes read)", frames)


def unpack_bytes(
    blob: bytes, identities: Sequence[Identity | str], max_output: int = 1 << 30
) -> bytes:
    """Decrypt and decompress an object held in memory."""
    out = io.BytesIO()
    unpack_stream(io.BytesIO(blob), out, identities, max_output=max_output)
    return out.getvalue()
