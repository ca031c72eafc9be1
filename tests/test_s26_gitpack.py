"""git-pack with big objects: memory bounded whatever the size of the largest object (an object
over gitpack.BIG is never held whole: inflated, resolved and redacted through spool files),
and the tar's bytes exactly those the dulwich reader (up to s25) gave, for the s24 snapshot
variants, a git-made pack with big plain and deltified blobs, and hand-made shapes
(tests/fx_s26_gitpack.py). BIG and the read size are lowered through the module constants so
the packs stay small."""

from __future__ import annotations

import hashlib
import io
import os
import subprocess
import sys
import tarfile
import tracemalloc
import zlib
from pathlib import Path
from typing import BinaryIO

import pytest

from archiver.redact.base import RedactionReport
from archiver.redact.redactor import RuleRedactor, build_redactor
from archiver.redact.rules import RuntimeTerms
from archiver.redact.walkers import gitobject, gitpack
from archiver.redact.walkers.gitpack import PackUnreadable
from tests.fx_s24_gitpack import GIT, VARIANTS, build_snapshot, pack_contents, run_git
from tests.fx_s26_gitpack import (
    USER, build_big_snapshot, copy_op, delta, insert_ops, object_id, reference_pack, text, write_pack,
)

KEY = b"team-key-for-tests-0123456789abcdef"
needs_git = pytest.mark.skipif(GIT is None, reason="needs the git CLI")


@pytest.fixture(scope="module")
def red() -> RuleRedactor:
    return build_redactor(["builtin:secrets", "builtin:pii", "builtin:paths"], KEY,
                          RuntimeTerms(usernames=[USER], home_dirs=[f"/home/{USER}"]))


def _redact(red: RuleRedactor, pack: Path, out: Path, mp: pytest.MonkeyPatch, big: int | None = None,
            piece: int | None = None, reference: bool = False) -> bytes:
    with mp.context() as m:
        if big is not None:
            m.setattr(gitpack, "BIG", big, raising=False)
        if piece is not None:
            m.setattr(gitpack, "_PIECE", piece)
        if reference:
            m.setattr(gitpack, "redact_pack", reference_pack)
        red.redact_file(pack, out, "git-pack", RedactionReport())
    return out.read_bytes()


def _members(data: bytes) -> dict[str, bytes]:
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:") as tar:
        return {m.name: zlib.decompress(tar.extractfile(m).read()) for m in tar}  # type: ignore[union-attr]


def _fds() -> int:
    return len(os.listdir("/proc/self/fd"))


# ---------------------------------------------------------------- the s24 snapshot variants


@pytest.fixture(scope="module", params=VARIANTS)
def s24_packs(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    if GIT is None:
        pytest.skip("needs the git CLI")
    snap = build_snapshot(tmp_path_factory.mktemp(request.param), request.param)
    return sorted((snap.git_dir / "objects" / "pack").glob("pack-*.pack"))


def test_s24_variants_give_the_bytes_the_dulwich_reader_gave(s24_packs: list[Path], red: RuleRedactor,
                                                             tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for pack in s24_packs:
        want = _redact(red, pack, tmp_path / "ref.tar", monkeypatch, reference=True)
        assert _redact(red, pack, tmp_path / "now.tar", monkeypatch) == want
        # every body through the spool paths (0: even an empty tree), reads in pieces of 7 bytes
        # (zlib's output split, object headers across the buffer's end)
        assert _redact(red, pack, tmp_path / "b64.tar", monkeypatch, big=64) == want
        assert _redact(red, pack, tmp_path / "b0.tar", monkeypatch, big=0, piece=7) == want
        monkeypatch.setattr(gitpack, "IN_MEMORY", 64)  # and every body redacted as a stream
        want = _redact(red, pack, tmp_path / "ref-s.tar", monkeypatch, reference=True)
        assert _redact(red, pack, tmp_path / "b0-s.tar", monkeypatch, big=0) == want
        monkeypatch.undo()


# ---------------------------------------------------------------- git-made: big plain and deltified blobs


@needs_git
def test_big_plain_and_deltified_blobs_of_a_git_pack(red: RuleRedactor, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    big = 16 << 10
    snap = build_big_snapshot(tmp_path / "b", plain_size=150_000, delta_size=60_000, threshold=100_000)
    (pack,) = sorted((snap.git_dir / "objects" / "pack").glob("pack-*.pack"))
    listed = pack_contents(snap.git_dir, pack)
    verify = snap.git("verify-pack", "-v", str(pack.with_suffix(".idx"))).decode().splitlines()
    sizes = {cols[0]: int(cols[2]) for cols in map(str.split, verify) if len(cols) >= 5 and len(cols[0]) == 40}
    bases = {cols[6] for cols in map(str.split, verify) if len(cols) >= 7 and len(cols[0]) == 40}
    plain = [o for o, (kind, d) in listed.items() if kind == "blob" and not d and sizes[o] > 100_000]
    deltas = [o for o, (kind, d) in listed.items() if kind == "blob" and d]
    assert len(plain) == 3  # over core.bigFileThreshold: every version whole
    assert len(deltas) == 2 and len(bases) == 1 and sizes[next(iter(bases))] > big  # deltas of a big base
    assert all(len(snap.git("cat-file", "blob", o)) > big for o in deltas)  # with big results

    want = _redact(red, pack, tmp_path / "ref.tar", monkeypatch, reference=True)
    assert _redact(red, pack, tmp_path / "now.tar", monkeypatch) == want
    fds = _fds()
    got = _redact(red, pack, tmp_path / "big.tar", monkeypatch, big=big, piece=4096)
    assert got == want and _fds() == fds  # every spool closed
    members = _members(got)
    assert sorted(members) == sorted(f"objects/{o[:2]}/{o[2:]}" for o in listed)
    for name, raw in members.items():
        assert not [n for n in snap.needles if n.encode() in raw], name
    # git reads the extracted objects: trees as they were, the big files redacted
    repo = tmp_path / "extracted.git"
    run_git(repo, None, "init", "-q", "--bare")
    (tmp_path / "big.tar").write_bytes(got)
    subprocess.run(["tar", "-x", "-C", str(repo), "-f", str(tmp_path / "big.tar")], check=True)
    for tree in snap.trees:
        assert run_git(repo, None, "cat-file", "-p", tree) == snap.git("cat-file", "-p", tree)
    for oid in plain + deltas:
        body = run_git(repo, None, "cat-file", "blob", oid)
        assert len(body) > big and b"GITHUB_TOKEN=<GITHUB_TOKEN:" in body and b"<EMAIL:" in body


# ---------------------------------------------------------------- hand-made shapes


def _shapes(hash_func=hashlib.sha1) -> tuple[bytes, list[str]]:
    """Every way a body crosses BIG (4096 in the tests) in a delta chain, and objects around it."""
    a, needles = text(150_000, 3, secrets_every=40)
    b_delta, b = delta(a, [(0, 0x10000), (0x10000, 0x10000 + 7), b"GITHUB_TOKEN=" + text(60, 9)[0],
                           (100, 40_000)])  # big base, big result; a copy of size 0x10000 and one over
    c_delta, c = delta(b, [(b.index(b"GITHUB_TOKEN="), 900), b"tail\n"])  # big base, small result
    d_data, _ = text(30_000, 4, secrets_every=25)
    needles += text(30_000, 4, secrets_every=25)[1]
    d_delta, d = delta(c, [(0, 500), d_data])  # small base, big result, big delta data (inserts)
    e_delta, e = delta(d, [(5, 3000)])  # small result of a big base, by id (REF_DELTA)
    later, _ = text(9000, 5)
    f_delta, f = delta(later, [(0, 8000), b"x" * 200])  # REF_DELTA to a base stored after it
    binary = b"\x00\x01PNG" + text(20_000, 6, secrets_every=30)[0]  # binary: kept as it is
    g_delta, g = delta(binary, [(0, 15_000), b"more"])
    tree = b"100644 a.txt\0" + object_id(b"blob", a, hash_func)[:20] + b"100644 b.txt\0" + bytes(20)
    commit = b"tree " + object_id(b"tree", tree, hash_func).hex().encode() + \
        b"\nauthor Dev <dev.zorbloff@quuxmail.net> 1767261600 +0000\n\nsnapshot\n"
    h_delta, _ = delta(commit, [(0, len(commit) - 9), b"snapshot by dev.zorbloff@quuxmail.net\n"])
    needles += ["dev.zorbloff", USER]
    entries = [
        ("whole", b"blob", a),  # 0
        ("ofs", 0, b_delta),  # 1: b
        ("ofs", 1, c_delta),  # 2: c
        ("ofs", 2, d_delta),  # 3: d
        ("ref", object_id(b"blob", d, hash_func), e_delta),  # 4: e
        ("ref", object_id(b"blob", later, hash_func), f_delta),  # 5: f, its base next
        ("whole", b"blob", later),  # 6
        ("whole", b"blob", a),  # 7: packed twice
        ("whole", b"blob", binary),  # 8
        ("ofs", 8, g_delta),  # 9
        ("whole", b"tree", tree),  # 10
        ("whole", b"commit", commit),  # 11
        ("ofs", 11, h_delta),  # 12
        ("whole", b"blob", b""),  # 13
    ]
    return write_pack(entries, hash_func), needles


@pytest.mark.parametrize("hash_name", ["sha1", "sha256"])
def test_hand_made_shapes_give_the_reference_bytes(hash_name: str, red: RuleRedactor, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    data, needles = _shapes(getattr(hashlib, hash_name))
    pack = tmp_path / "shapes.pack"
    pack.write_bytes(data)
    want = _redact(red, pack, tmp_path / "ref.tar", monkeypatch, reference=True)
    members = _members(want)
    assert len(members) == 13 and all(len(n) == (49 if hash_name == "sha1" else 73) for n in members)
    for big, piece in ((4096, None), (4096, 1000), (0, 4096), (None, None)):
        fds = _fds()
        assert _redact(red, pack, tmp_path / "now.tar", monkeypatch, big=big, piece=piece) == want, (big, piece)
        assert _fds() == fds
    for name, raw in members.items():
        left = [n for n in needles if n.encode() in raw]
        assert left == [] or raw[raw.index(b"\0") + 1:].startswith(b"\x00\x01PNG"), (name, left)


# ---------------------------------------------------------------- memory


def _stream(fi: BinaryIO, fo: BinaryIO) -> None:
    while data := fi.read(64 << 10):
        fo.write(data.replace(b"ghp_", b"GHP-"))


def _big_pack(path: Path, size: int) -> None:
    blob, _ = text(size, 7, secrets_every=5000)
    d1, r1 = delta(blob, [(0, size // 2), b"GITHUB_TOKEN=ghp_" + b"A" * 36 + b"\n", (size // 2, size - size // 2)])
    d2, _ = delta(r1, [(0, 1000), text(size // 3, 8)[0]])  # a delta whose own data is big
    path.write_bytes(write_pack([("whole", b"blob", blob), ("ofs", 0, d1), ("ofs", 1, d2)]))


def test_memory_of_a_pack_with_big_objects_is_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A 12 MB blob, a 12 MB delta result and a delta of 4 MB: with BIG and IN_MEMORY at 256 KiB
    and reads of 64 KiB, the Python heap's peak stays under 3 MB (dulwich held them whole)."""
    pack = tmp_path / "big.pack"
    _big_pack(pack, 12 << 20)
    monkeypatch.setattr(gitpack, "BIG", 256 << 10, raising=False)
    monkeypatch.setattr(gitpack, "IN_MEMORY", 256 << 10)
    monkeypatch.setattr(gitpack, "_PIECE", 64 << 10)
    monkeypatch.setattr(gitobject, "_PIECE", 64 << 10)
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        before = tracemalloc.get_traced_memory()[0]
        n = gitpack.redact_pack(pack, tmp_path / "out.tar", lambda b: b, _stream)
        peak = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
    assert n == 3
    assert peak < 3 << 20, peak
    reference_pack(pack, tmp_path / "ref.tar", lambda b: b, _stream)
    assert (tmp_path / "out.tar").read_bytes() == (tmp_path / "ref.tar").read_bytes()


CHILD = """import resource, sys
from pathlib import Path
from archiver.redact.walkers import gitpack
def hwm():
    return int(next(l for l in open("/proc/self/status") if l.startswith("VmHWM")).split()[1])
def stream(fi, fo):
    while data := fi.read(1 << 20):
        fo.write(data.replace(b"ghp_", b"GHP-"))
before = hwm()
gitpack.redact_pack(Path(sys.argv[1]), Path(sys.argv[2]), lambda b: b, stream)
print(hwm() - before)
"""


def test_peak_rss_with_the_default_threshold_stays_flat(tmp_path: Path) -> None:
    """The real constants in a child process: a 48 MB blob and its 48 MB delta cost the process
    under 40 MB more than it had (dulwich: about five times the blob)."""
    pack = tmp_path / "big.pack"
    _big_pack(pack, 48 << 20)
    r = subprocess.run([sys.executable, "-c", CHILD, str(pack), str(tmp_path / "out.tar")], capture_output=True,
                       text=True, timeout=300, env={**os.environ, "PYTHONPATH": str(Path(gitpack.__file__).parents[3])})
    assert r.returncode == 0, r.stderr[-2000:]
    grew_kib = int(r.stdout.strip())
    assert grew_kib < 40 << 10, grew_kib
    with tarfile.open(tmp_path / "out.tar") as tar:
        sizes = sorted(m.size for m in tar)
    assert len(sizes) == 3 and sizes[-1] > 10 << 20  # written, compressed


# ---------------------------------------------------------------- unreadable packs


def _retrail(body: bytes) -> bytes:
    return body + hashlib.sha1(body).digest()


def _cases() -> dict[str, tuple[bytes, str]]:
    base = b"hello world\n" * 10
    whole = ("whole", b"blob", base)
    ok_delta, _ = delta(base, [(0, 10), b"abc"])
    varint = bytes([len(base)]) + bytes([13])

    def raw_obj(kind: int, size: int, payload: bytes, extra: bytes = b"") -> tuple:
        return ("raw", bytes([(kind << 4) | size]) + extra + zlib.compress(payload))

    return {
        "opcode0.pack": (write_pack([whole, ("ofs", 0, varint + b"\x00")]), "a delta holds opcode 0"),
        "copy-past.pack": (write_pack([whole, ("ofs", 0, varint + copy_op(115, 13))]),
                           "a delta copies past the end of its base"),
        "short-result.pack": (write_pack([whole, ("ofs", 0, varint + insert_ops(b"abc"))]),
                              "a delta makes less than its result's size"),
        "long-result.pack": (write_pack([whole, ("ofs", 0, varint + insert_ops(b"a" * 14))]),
                             "a delta makes more than its result's size"),
        "wrong-base.pack": (write_pack([whole, ("ofs", 0, bytes([9]) + ok_delta[1:])]), "a delta does not fit its base"),
        "truncated-delta.pack": (write_pack([whole, ("ofs", 0, varint + bytes([0x91, 0]))]), "truncated delta"),
        "empty-tree.pack": (write_pack([("whole", b"tree", base), ("ofs", 0, bytes([len(base), 0]))]),
                            "a delta resolves to an empty tree"),
        "size.pack": (write_pack([raw_obj(3, 4, b"hello")]), "an object inflates past the size in its header"),
        "junk.pack": (_retrail(write_pack([whole])[:-20] + b"junk"), "data after the last object"),
        "count.pack": (_retrail(write_pack([whole])[:8] + b"\0\0\0\2" + write_pack([whole])[12:-20]),
                       "truncated object header"),
        "version.pack": (write_pack([whole], version=4), "pack version 4"),
        "type5.pack": (write_pack([raw_obj(5, 5, b"hello")]), "object of unknown type 5"),
        "ofs-mid.pack": (write_pack([whole, raw_obj(6, 3, b"abc", bytes([2]))]), "1 of 2 objects could not be resolved"),
        "ofs-zero.pack": (write_pack([whole, raw_obj(6, 3, b"abc", bytes([0]))]), "a delta's base offset is outside"),
        "thin.pack": (write_pack([whole, ("ref", bytes(range(1, 21)), ok_delta)]),
                      f"thin pack: delta base {bytes(range(1, 21)).hex()} is not in the pack"),
        "zlib.pack": (write_pack([("raw", bytes([0x35]) + b"\x78\x9c" + b"\xff" * 20)]), "zlib:"),
    }


@pytest.mark.parametrize("big", [None, 0])
def test_an_unreadable_pack_fails_closed_naming_the_file(big: int | None, red: RuleRedactor, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    for name, (data, reason) in _cases().items():
        src, dst = tmp_path / name, tmp_path / f"{name}.tar"
        src.write_bytes(data)
        fds = _fds()
        with pytest.raises(PackUnreadable) as e:
            _redact(red, src, dst, monkeypatch, big=big)
        assert e.value.filename == str(src) and reason in e.value.strerror, (name, e.value.strerror)
        assert not dst.exists() and _fds() == fds, name
