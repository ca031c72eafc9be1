"""Git pack files (OpenCode's snapshot git dirs after `git gc`: every snapshot is an unreachable
`write-tree` tree, so with cruft packs nearly all content ends up in packs).

A pack is archived as a POSIX tar of git *loose* objects: every object of the pack, deltas
resolved (OFS_DELTA and REF_DELTA within the pack; a thin pack's missing base is an error), is
written as `objects/xx/yyyy…`, named by its original id, holding exactly what the git-object
walker stores for such an object (gitobject.redact_body / redact_spooled_body: blob, commit and
tag bodies redacted, trees and binary blobs kept, zlib level 1). The tar is deterministic
(docs/FORMAT.md "git-pack"): members sorted by name, ustar headers with mtime 0, uid/gid 0, mode
0444, no user or group names, no directory members.

Memory: the pack is read twice from the file (no mapping): once for the objects' offsets and
delta bases, once resolving delta chains as dulwich's DeltaChainIterator does (each object
inflated once; held are the bases of the chain being walked). Each object's loose form goes to
a spool file as it is made; the tar is written from the spool once every id is known. A pack
that cannot be read fails with PackUnreadable (an OSError naming the file): nothing is written
in its place, as plaintext must not leave unredacted.
"""

from __future__ import annotations

import errno
import hashlib
import re
import tarfile
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, Iterator

from archiver.redact.walkers.gitobject import (
    IN_MEMORY, RedactBytes, RedactStream, compress_object, redact_body, redact_spooled_body, scan_loose_object,
    write_object,
)
from archiver.snapshot import SnapshotError

if TYPE_CHECKING:
    from dulwich.object_format import ObjectFormat

_KIND = {1: b"commit", 2: b"tree", 3: b"blob", 4: b"tag"}  # pack type numbers of whole objects
_PIECE = 1 << 20
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
        for kind, oid, chunks in _objects(f, src):
            name = f"objects/{oid[:2]}/{oid[2:]}"
            if name in members:  # git tolerates an object packed twice: one copy is enough
                continue
            start = spool.tell()
            _write_loose(kind, chunks, spool, redact_bytes, redact_stream)  # type: ignore[arg-type]
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


def _objects(f: BinaryIO, src: Path) -> Iterator[tuple[bytes, str, list[bytes]]]:
    """(type, hex id, body chunks) of every object of the pack, deltas resolved."""
    from dulwich.pack import PackStreamReader, UnpackedObjectIterator, UnresolvedDeltas

    fmt = _object_format(f, src)
    try:
        f.seek(0)
        walker: Any = UnpackedObjectIterator(f, fmt.hash_func)
        reader = PackStreamReader(fmt.hash_func, f.read)
        total = 0
        for unpacked in reader.read_objects():  # offsets and delta bases; checks the trailer
            walker.record(unpacked)
            total += 1
        done = 0
        for unpacked in walker:
            kind = _KIND.get(unpacked.obj_type_num)
            if kind is None:
                raise PackUnreadable(src, f"object of unknown type {unpacked.obj_type_num}")
            done += 1
            yield kind, unpacked.sha().hex(), unpacked.obj_chunks
    except UnresolvedDeltas as e:
        if type(e).__name__ == "DeltaCycle":  # (dulwich >= 1.x)
            raise PackUnreadable(src, "a delta chain refers to itself") from None
        shas = getattr(e, "shas", None) or [b"?"]
        name = shas[0].decode("ascii", "replace") if isinstance(shas[0], bytes) else str(shas[0])
        raise PackUnreadable(src, f"thin pack: delta base {name} is not in the pack") from None
    except PackUnreadable:
        raise
    except Exception as e:  # noqa: BLE001 - zlib, checksum, delta and header errors alike: the reason holds no content
        raise PackUnreadable(src, f"not a readable git pack ({type(e).__name__})") from None
    if done != total:  # an OFS_DELTA whose base offset holds no object
        raise PackUnreadable(src, f"{total - done} of {total} objects could not be resolved")


def _object_format(f: BinaryIO, src: Path) -> ObjectFormat:
    """SHA-1 or SHA-256, told by the trailer: the hash of everything before it."""
    from dulwich.object_format import SHA1, SHA256

    size = f.seek(0, 2)
    f.seek(0)
    if f.read(4) != b"PACK":
        raise PackUnreadable(src, "not a git pack (no PACK signature)")
    hashes = {SHA1: hashlib.sha1(), SHA256: hashlib.sha256()}
    ends = {SHA1: size - 20, SHA256: size - 32}
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


def _write_loose(kind: bytes, chunks: list[bytes], spool: BinaryIO, redact_bytes: RedactBytes,
                 redact_stream: RedactStream) -> None:
    """The object's loose form as the git-object walker would store it, appended to spool."""
    size = sum(len(c) for c in chunks)
    if size <= IN_MEMORY:
        body = b"".join(chunks)
        out = redact_body(kind, body, redact_bytes)
        spool.write(compress_object(kind, body if out is None else out))
        return
    with tempfile.TemporaryFile(prefix="archiver-gitpack-") as plain, \
            tempfile.TemporaryFile(prefix="archiver-gitpack-") as red:
        for c in chunks:
            plain.write(c)
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
