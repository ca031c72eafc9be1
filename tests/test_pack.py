"""pack.py: objects are age(zstd(payload)), readable with `age -d | zstd -d`."""

from __future__ import annotations

import hashlib
import hmac
import io
import os
import shutil
import subprocess
import tempfile
import tracemalloc
from pathlib import Path

import pytest
import zstandard

from archiver.crypto.age import (
    AgeDecryptError,
    EncryptWriter,
    NoIdentityMatched,
    X25519Identity,
    decrypt_stream,
)
from archiver.crypto.keys import TeamKeys
from archiver.pack import (
    RATIO_FLOOR,
    ObjectHasher,
    UnpackError,
    object_id,
    pack_bytes,
    pack_file,
    pack_stream,
    unpack_bytes,
    unpack_stream,
)

AGE = shutil.which("age")
ZSTD = shutil.which("zstd")
needs_cli = pytest.mark.skipif(not (AGE and ZSTD), reason="age / zstd CLI not installed")


@pytest.fixture
def tmp() -> Path:
    with tempfile.TemporaryDirectory(prefix="test-pack-") as d:
        yield Path(d)


@pytest.fixture(scope="module")
def ident() -> X25519Identity:
    return X25519Identity.generate()


def _text(n: int) -> bytes:
    line = b'{"type":"message","role":"assistant","text":"hello world %d"}\n'
    out = bytearray()
    i = 0
    while len(out) < n:
        out += line % i
        i += 1
    return bytes(out[:n])


def _age_zstd_cli(obj: Path, identity_file: Path) -> bytes:
    """`age -d -i identity.txt OBJ | zstd -d`"""
    age = subprocess.Popen([AGE, "-d", "-i", str(identity_file), str(obj)], stdout=subprocess.PIPE)
    out = subprocess.run([ZSTD, "-d", "-c"], stdin=age.stdout, capture_output=True)
    age.stdout.close()
    assert age.wait() == 0
    assert out.returncode == 0, out.stderr
    return out.stdout


# ---------------------------------------------------------------- object ids

def test_object_id_known_answer() -> None:
    key = bytes(range(32))
    # pinned value, cross-checked with `openssl dgst -sha256 -mac HMAC -macopt hexkey:0001..1f`
    expected = "53c40272a70c15ca4ee0af4df1f155fd6c41e00ce2307d8987ecd4bb36a7e990"
    assert object_id(key, b"hello") == expected
    assert hmac.new(key, b"hello", hashlib.sha256).hexdigest() == expected
    assert len(expected) == 64 and all(c in "0123456789abcdef" for c in expected)
    assert object_id(key, b"hello!") != expected
    assert object_id(bytes(32), b"hello") != expected


def test_object_hasher_incremental() -> None:
    keys = TeamKeys.from_team_key(b"\x11" * 32)
    data = os.urandom(300_000)
    h = ObjectHasher(keys.object_id)
    for i in range(0, len(data), 7777):
        h.update(memoryview(data)[i : i + 7777])
    assert h.hexdigest() == object_id(keys.object_id, data)
    # keyed: the plain sha256 and another team's id differ
    assert h.hexdigest() != hashlib.sha256(data).hexdigest()
    other = TeamKeys.from_team_key(b"\x22" * 32)
    assert object_id(other.object_id, data) != h.hexdigest()


# ---------------------------------------------------------------- CLI interop

@needs_cli
@pytest.mark.parametrize("kind,size", [("random", 0), ("random", 1), ("random", 65537),
                                       ("random", 1_000_003), ("text", 3_000_000)])
def test_pack_file_reads_with_cli(tmp: Path, ident: X25519Identity, kind: str, size: int) -> None:
    data = os.urandom(size) if kind == "random" else _text(size)
    (tmp / "src").write_bytes(data)
    (tmp / "identity.txt").write_text(ident.encode() + "\n")
    n = pack_file(tmp / "src", tmp / "obj", [ident.recipient])
    obj = (tmp / "obj").read_bytes()
    assert n == len(obj)
    assert obj.startswith(b"age-encryption.org/v1\n")
    assert sorted(p.name for p in tmp.iterdir()) == ["identity.txt", "obj", "src"]  # no temp left
    assert (tmp / "obj").stat().st_mode & 0o777 == 0o600
    assert _age_zstd_cli(tmp / "obj", tmp / "identity.txt") == data
    assert unpack_bytes(obj, [ident]) == data
    # the inner zstd frame carries a checksum
    inner = io.BytesIO()
    decrypt_stream(io.BytesIO(obj), inner, [ident])
    assert zstandard.get_frame_parameters(inner.getvalue()).has_checksum
    if kind == "text":
        assert len(obj) < size // 5  # actually compressed


@needs_cli
def test_pack_bytes_reads_with_cli(tmp: Path, ident: X25519Identity) -> None:
    data = _text(200_000)
    blob = pack_bytes(data, [str(ident.recipient)], level=9)
    (tmp / "obj").write_bytes(blob)
    (tmp / "identity.txt").write_text(ident.encode() + "\n")
    assert _age_zstd_cli(tmp / "obj", tmp / "identity.txt") == data
    inner = io.BytesIO()
    decrypt_stream(io.BytesIO(blob), inner, [ident])
    params = zstandard.get_frame_parameters(inner.getvalue())
    assert params.has_checksum and params.content_size == len(data)
    assert unpack_bytes(blob, [ident]) == data
    assert unpack_bytes(pack_bytes(b"", [ident.recipient]), [ident]) == b""


@needs_cli
@pytest.mark.parametrize("zstd_args", [[], ["--no-check"], ["-19", "--long=27"]])
def test_cli_made_object_unpacks(tmp: Path, ident: X25519Identity, zstd_args: list[str]) -> None:
    data = _text(500_000) + os.urandom(100_000)
    z = subprocess.run([ZSTD, "-c", "-q", *zstd_args], input=data, capture_output=True, check=True)
    a = subprocess.run([AGE, "-r", str(ident.recipient)], input=z.stdout, capture_output=True, check=True)
    out = io.BytesIO()
    assert unpack_stream(io.BytesIO(a.stdout), out, [ident]) == len(data)
    assert out.getvalue() == data


def test_concatenated_frames(ident: X25519Identity) -> None:
    c = zstandard.ZstdCompressor(write_checksum=True)
    out = io.BytesIO()
    with EncryptWriter(out, [ident.recipient]) as w:
        w.write(c.compress(b"first\n") + c.compress(b"second\n"))
    assert unpack_bytes(out.getvalue(), [ident]) == b"first\nsecond\n"


def test_pack_file_failure_leaves_nothing(tmp: Path, ident: X25519Identity) -> None:
    with pytest.raises(FileNotFoundError):
        pack_file(tmp / "missing", tmp / "obj", [ident.recipient])
    assert list(tmp.iterdir()) == []
    (tmp / "src").write_bytes(b"x")
    (tmp / "obj").write_bytes(b"old")
    with pytest.raises(ValueError):
        pack_file(tmp / "src", tmp / "obj", [ident.recipient], level=99)
    assert sorted(p.name for p in tmp.iterdir()) == ["obj", "src"]
    assert (tmp / "obj").read_bytes() == b"old"


# ---------------------------------------------------------------- corrupt objects

def _age_of(inner: bytes, ident: X25519Identity) -> bytes:
    out = io.BytesIO()
    with EncryptWriter(out, [ident.recipient]) as w:
        w.write(inner)
    return out.getvalue()


def test_corrupt_zstd_inside_valid_age(ident: X25519Identity) -> None:
    frame = zstandard.ZstdCompressor(write_checksum=True).compress(os.urandom(1000) * 200)
    flipped = bytearray(frame)
    flipped[len(frame) // 2] ^= 0x01
    cases = {
        "not-zstd": b"plain text, not a zstd frame",
        "truncated": frame[:-10],
        "trailing": frame + b"garbage",
        "flipped": bytes(flipped),
        "empty": b"",
    }
    for name, inner in cases.items():
        with pytest.raises(UnpackError):
            unpack_bytes(_age_of(inner, ident), [ident])
        assert name


def test_age_errors_pass_through(ident: X25519Identity) -> None:
    blob = pack_bytes(os.urandom(100_000), [ident.recipient])
    bad = bytearray(blob)
    bad[-5] ^= 0x01
    with pytest.raises(AgeDecryptError):
        unpack_bytes(bytes(bad), [ident])
    with pytest.raises(NoIdentityMatched):
        unpack_bytes(blob, [X25519Identity.generate()])


# ---------------------------------------------------------------- zip-bomb guard

class _Zeros(io.RawIOBase):
    def __init__(self, n: int) -> None:
        self.left = n

    def readable(self) -> bool:
        return True

    def readinto(self, b) -> int:
        n = min(len(b), self.left)
        b[:n] = bytes(n)
        self.left -= n
        return n


class _CountingSink:
    def __init__(self) -> None:
        self.n = 0

    def write(self, b) -> int:
        self.n += len(b)
        return len(b)


@pytest.fixture(scope="module")
def bomb(ident: X25519Identity) -> bytes:
    """200 MB of zeros, packed streaming (never held in memory)."""
    out = io.BytesIO()
    pack_stream(_Zeros(200_000_000), out, [ident.recipient])
    assert len(out.getvalue()) < 100_000
    return out.getvalue()


def test_bomb_stopped_by_max_output(bomb: bytes, ident: X25519Identity) -> None:
    sink = _CountingSink()
    tracemalloc.start()
    try:
        with pytest.raises(UnpackError, match="limit of 10485760"):
            unpack_stream(io.BytesIO(bomb), sink, [ident], max_output=10 << 20)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert sink.n <= 10 << 20
    assert peak < 40 << 20, peak
    with pytest.raises(UnpackError):
        unpack_bytes(bomb, [ident], max_output=1 << 20)


def test_bomb_stopped_by_max_ratio(bomb: bytes, ident: X25519Identity) -> None:
    sink = _CountingSink()
    tracemalloc.start()
    try:
        with pytest.raises(UnpackError, match="ratio"):
            unpack_stream(io.BytesIO(bomb), sink, [ident], max_ratio=100)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert sink.n < RATIO_FLOOR + (20 << 20)  # the ratio counts past RATIO_FLOOR of output
    assert peak < 40 << 20, peak


def test_limits_allow_legitimate_data(bomb: bytes, ident: X25519Identity) -> None:
    data = _text(5_000_000)  # JSONL-like, compresses ~20-50x
    blob = pack_bytes(data, [ident.recipient])
    out = io.BytesIO()
    assert unpack_stream(io.BytesIO(blob), out, [ident], max_output=len(data), max_ratio=1000) == len(data)
    assert out.getvalue() == data
    with pytest.raises(UnpackError):
        unpack_stream(io.BytesIO(blob), io.BytesIO(), [ident], max_output=len(data) - 1)
    # without limits the bomb streams through in bounded memory
    sink = _CountingSink()
    tracemalloc.start()
    try:
        assert unpack_stream(io.BytesIO(bomb), sink, [ident]) == 200_000_000
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert sink.n == 200_000_000 and peak < 40 << 20, peak
