"""Packs with objects over gitpack.BIG, and the reference they are checked against.

- `write_pack`: a pack written by hand following gitformat-pack (object header varint, OFS_DELTA
  negative offset, REF_DELTA base id, zlib streams, the trailer), so shapes git seldom makes are
  there on purpose: a big result from a small base, a small result from a big base, a delta whose
  own data is big, a REF_DELTA to a base stored later, an object packed twice, SHA-256.
- `reference_pack`: gitpack.redact_pack as it was up to s25 (the pack read with dulwich's
  PackStreamReader and UnpackedObjectIterator, every object whole in memory): the bytes the code
  before s26 wrote, the reference for every tar here.
- `build_big_snapshot`: an OpenCode snapshot git dir (the real git CLI, as tests/fx_s24_gitpack.py
  makes one) whose project holds big text files, repacked with a low core.bigFileThreshold so one
  file's versions are stored whole and another's as deltas of a big base.
Text is generated from a seeded RNG; secrets are planted as tests/fx_s24_gitpack.py plants them.
"""

from __future__ import annotations

import hashlib
import random
import struct
import tarfile
import tempfile
import zlib
from pathlib import Path
from typing import Any, BinaryIO, Callable, Iterator

from tests.fx_s24_gitpack import Snapshot, planted, run_git

KINDS = {b"commit": 1, b"tree": 2, b"blob": 3, b"tag": 4}
OFS, REF = 6, 7
USER = "zorbloff"


# ---------------------------------------------------------------- text and deltas


def text(size: int, seed: int, secrets_every: int = 0, user: str = USER) -> tuple[bytes, list[str]]:
    """Lines of words, `size` bytes; every `secrets_every`-th line a planted token and e-mail.
    (The needles: what must not be left in the archive.)"""
    rng = random.Random(seed)
    words = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(2, 9))) for _ in range(400)]
    out, needles, n = bytearray(), [], 0
    while len(out) < size:
        if secrets_every and n % secrets_every == secrets_every // 2:
            p = planted(seed * 1000 + n, user)
            line = f"GITHUB_TOKEN={p['ghp']} contact {p['email']} log {p['path']}"
            needles += [p["ghp"][4:], p["email"].split("@")[0], user]
        else:
            line = " ".join(rng.choices(words, k=10))
        out += line.encode() + b"\n"
        n += 1
    return bytes(out[:size - 1]) + b"\n", needles


def _size_varint(n: int) -> bytes:
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def copy_op(offset: int, size: int) -> bytes:
    """A copy op; size 0x10000 is written as no size bytes at all (git's encoding)."""
    cmd, args = 0x80, bytearray()
    for k in range(4):
        if (offset >> (8 * k)) & 0xFF:
            cmd |= 1 << k
            args.append((offset >> (8 * k)) & 0xFF)
    if size != 0x10000:
        for k in range(3):
            if (size >> (8 * k)) & 0xFF:
                cmd |= 0x10 << k
                args.append((size >> (8 * k)) & 0xFF)
    return bytes([cmd]) + bytes(args)


def insert_ops(data: bytes) -> bytes:
    return b"".join(bytes([len(data[i:i + 127])]) + data[i:i + 127] for i in range(0, len(data), 127))


def delta(base: bytes, pieces: list[tuple[int, int] | bytes]) -> tuple[bytes, bytes]:
    """(delta data, result): each piece a (offset, size) copied from base or bytes inserted.
    A copy longer than 0x10000 is one op while its size fits 24 bits (git writes at most
    0x10000; the format allows more)."""
    ops, result = bytearray(), bytearray()
    for p in pieces:
        if isinstance(p, bytes):
            ops += insert_ops(p)
            result += p
        else:
            assert p[0] + p[1] <= len(base), p
            for at in range(p[0], p[0] + p[1], 0xFFFFFF):  # a copy's size has 24 bits
                ops += copy_op(at, min(0xFFFFFF, p[0] + p[1] - at))
            result += base[p[0]:p[0] + p[1]]
    return _size_varint(len(base)) + _size_varint(len(result)) + bytes(ops), bytes(result)


def object_id(kind: bytes, body: bytes, hash_func: Callable[[], Any] = hashlib.sha1) -> bytes:
    return hash_func(b"%s %d\0" % (kind, len(body)) + body).digest()


# ---------------------------------------------------------------- writing a pack


def _obj_header(kind: int, size: int) -> bytes:
    out = bytearray([(kind << 4) | (size & 0x0F)])
    size >>= 4
    while size:
        out[-1] |= 0x80
        out.append(size & 0x7F)
        size >>= 7
    return bytes(out)


def _ofs(back: int) -> bytes:
    out = [back & 0x7F]
    back >>= 7
    while back:
        back -= 1
        out.insert(0, 0x80 | (back & 0x7F))
        back >>= 7
    return bytes(out)


Entry = tuple  # ("whole", kind, body) | ("ofs", base index, delta) | ("ref", base raw id, delta) | ("raw", bytes)


def write_pack(entries: list[Entry], hash_func: Callable[[], Any] = hashlib.sha1, version: int = 2,
               level: int = 1) -> bytes:
    out = bytearray(b"PACK" + struct.pack(">II", version, len(entries)))
    offsets: list[int] = []
    for e in entries:
        offsets.append(len(out))
        if e[0] == "whole":
            out += _obj_header(KINDS[e[1]], len(e[2])) + zlib.compress(e[2], level)
        elif e[0] == "ofs":
            out += _obj_header(OFS, len(e[2])) + _ofs(offsets[-1] - offsets[e[1]]) + zlib.compress(e[2], level)
        elif e[0] == "ref":
            out += _obj_header(REF, len(e[2])) + e[1] + zlib.compress(e[2], level)
        else:
            out += e[1]
    return bytes(out) + hash_func(bytes(out)).digest()


# ---------------------------------------------------------------- the reference reader


def reference_pack(src: Path, dst: Path, redact_bytes: Any, redact_stream: Any) -> int:
    """gitpack.redact_pack as it was up to s25, reading with dulwich (every object whole)."""
    from archiver.redact.walkers import gitpack

    with src.open("rb") as f, tempfile.TemporaryFile() as spool:
        members: dict[str, tuple[int, int]] = {}
        for kind, oid, chunks in _dulwich_objects(f):
            name = f"objects/{oid[:2]}/{oid[2:]}"
            if name in members:
                continue
            start = spool.tell()
            _write_loose(kind, chunks, spool, redact_bytes, redact_stream, gitpack.IN_MEMORY)
            members[name] = (start, spool.tell() - start)
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
    return len(members)


def _dulwich_objects(f: BinaryIO) -> Iterator[tuple[bytes, str, list[bytes]]]:
    from dulwich.pack import PackStreamReader, UnpackedObjectIterator

    hash_func = _trailer_hash(f)
    f.seek(0)
    walker: Any = UnpackedObjectIterator(f, hash_func)
    reader = PackStreamReader(hash_func, f.read)
    for unpacked in reader.read_objects():
        walker.record(unpacked)
    for unpacked in walker:
        yield {1: b"commit", 2: b"tree", 3: b"blob", 4: b"tag"}[unpacked.obj_type_num], unpacked.sha().hex(), \
            unpacked.obj_chunks


def _write_loose(kind: bytes, chunks: list[bytes], spool: BinaryIO, redact_bytes: Any, redact_stream: Any,
                 in_memory: int) -> None:
    from archiver.redact.walkers.gitobject import compress_object, redact_body, redact_spooled_body, write_object

    size = sum(len(c) for c in chunks)
    if size <= in_memory:
        body = b"".join(chunks)
        out = redact_body(kind, body, redact_bytes)
        spool.write(compress_object(kind, body if out is None else out))
        return
    with tempfile.TemporaryFile() as plain, tempfile.TemporaryFile() as red:
        for c in chunks:
            plain.write(c)
        out_size = redact_spooled_body(kind, plain, size, redact_stream, red)
        if out_size is None:
            plain.seek(0)
            write_object(kind, size, plain, spool)
        else:
            write_object(kind, out_size, red, spool)


def _trailer_hash(f: BinaryIO) -> Callable[[], Any]:
    for hash_func in (hashlib.sha1, hashlib.sha256):
        h, n = hash_func(), f.seek(0, 2) - hash_func().digest_size
        f.seek(0)
        while n > 0 and (data := f.read(min(n, 1 << 20))):
            h.update(data)
            n -= len(data)
        if f.read() == h.digest():
            return hash_func
    raise ValueError("not a complete pack")


# ---------------------------------------------------------------- a snapshot git dir with big files


def build_big_snapshot(base: Path, plain_size: int, delta_size: int, threshold: int) -> Snapshot:
    """base/work and base/snapshot/<hash>: three snapshots of a project holding `whole.txt`
    (plain_size bytes, over core.bigFileThreshold=threshold: each version stored whole) and
    `data.txt` (delta_size bytes, under it: later versions stored as deltas), both with planted
    secrets, edited in every round; then gc'd and packed again into one pack with deltas found
    anew (as the s24 repack variants)."""
    work = base / "work"
    git_dir = base / "snapshot" / hashlib.sha1(str(work).encode()).hexdigest()
    work.mkdir(parents=True)
    git_dir.parent.mkdir(parents=True)
    snap = Snapshot(git_dir=git_dir, work=work)
    run_git(git_dir, work, "init", "-q")
    snap.git("config", "core.autocrlf", "false")
    big, needles = text(plain_size, 1, secrets_every=97)
    data, more = text(delta_size, 2, secrets_every=89)
    snap.needles = needles + more
    for i in range(3):
        p = planted(500 + i)
        edit = f"round {i}: GITHUB_TOKEN={p['ghp']} by {p['email']}\n".encode()
        snap.needles += [p["ghp"][4:], p["email"].split("@")[0]]
        (work / "whole.txt").write_bytes(big[:1000 * (i + 1)] + edit + big[1000 * (i + 1):])
        (work / "data.txt").write_bytes(data[:7000 * (i + 1)] + edit + data[7000 * (i + 1):])
        (work / "small.txt").write_bytes(b"round %d\n" % i)
        snap.git("add", ".")
        snap.trees.append(snap.git("write-tree").decode().strip())
    snap.git("gc", "-q", "--cruft", "--prune=7.days")
    snap.git("-c", f"core.bigFileThreshold={threshold}", "repack", "-q", "-a", "-d", "-f", "-k", "--depth=50",
             "--window=50")
    return snap
