"""Hostile input: fuzzed and pathological files on the collector side (JSONL, SQLite, zstd)
and objects that lie on the reader side (zstd bombs, age headers). Property: no crash,
no hang, bounded memory, and a clear error naming the file (or the right answer).

Hypothesis runs with a fixed example budget and per-example deadlines; every file it
writes lives in a private temp folder."""

from __future__ import annotations

import io
import json
import os
import random
import sqlite3
import subprocess
import sys
import tempfile
import time
import tracemalloc
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator
from unittest import mock

import orjson
import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from archiver.crypto import age
from archiver.demo.claude_sample import make_claude_home
from archiver.harnesses import jsonl_probe
from archiver.harnesses.base import HarnessContext
from archiver.harnesses.claude_code import ClaudeCode
from archiver.model import DiscoveredSession, SourceArtifact
from archiver.pack import RATIO_FLOOR, UnpackError, pack_bytes, unpack_stream
from archiver.snapshot import SnapshotError, complete_length, copy_sqlite, decompress_zst, fingerprint
from tests.fx_archiver import USER, Env, env  # noqa: F401

FUZZ = settings(max_examples=150, deadline=2000, suppress_health_check=[HealthCheck.too_slow],
                derandomize=True)


@contextmanager
def scratch() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="archiver-fuzz-") as d:
        os.chmod(d, 0o700)
        yield Path(d)


# ---------------------------------------------------------------- JSONL lines
NEEDLE = b'"continued-in"'
_junk = st.binary(max_size=40).map(lambda b: b.replace(b"\n", b" "))
_line = st.one_of(
    st.dictionaries(st.sampled_from(["type", "a", "uuid", "x"]),
                    st.one_of(st.integers(-2**63, 2**63 - 1), st.text(max_size=20), st.sampled_from(["continued-in", "user"])),
                    max_size=4).map(lambda d: orjson.dumps(d)),
    _junk,  # invalid UTF-8, control bytes, half JSON
    st.integers(1, 2000).map(lambda n: b"[" * n + b"]" * n),  # deep nesting
    st.integers(1, 400).map(lambda n: b'{"n": 1' + b"0" * n + b"}"),  # huge numbers
    st.sampled_from([b"", b"{", b'{"type":"continued-in"', b'{"type": "continued-in"} trailing', b"null",
                     b'[{"type":"continued-in"}]', b'{"type":"continued-in","a":NaN}', b"\xff\xfe{}",
                     b'{"type":"continued-in","s":"\\ud800"}', b'{"type":"continued-in"}\r']),
)


def _expected_lines(content: bytes) -> list[tuple[bytes, bool]]:
    """Physical lines as the probe counts them: (line with its newline, complete?)."""
    parts = content.split(b"\n")
    out = [(p + b"\n", True) for p in parts[:-1]]
    if parts[-1]:
        out.append((parts[-1], False))
    return out


def _as_dict(line: bytes) -> dict[str, Any] | None:
    try:
        rec = orjson.loads(line)
    except orjson.JSONDecodeError:
        return None
    return rec if isinstance(rec, dict) else None


@FUZZ
@given(lines=st.lists(_line, max_size=25), trailing=st.booleans(), block=st.integers(8, 96),
       max_line=st.integers(16, 256), max_records=st.integers(0, 30), window=st.integers(1, 400))
@example(lines=[b'{"type":"continued-in"}'] * 3, trailing=True, block=13, max_line=64, max_records=5, window=30)
def test_jsonl_probes_answer_exactly_on_any_bytes(lines: list[bytes], trailing: bool, block: int, max_line: int,
                                                  max_records: int, window: int) -> None:
    content = b"\n".join(lines) + (b"\n" if trailing and lines else b"")
    with scratch() as d, mock.patch.object(jsonl_probe, "_BLOCK", block), \
            mock.patch.object(jsonl_probe, "_TAIL_BLOCK", block):
        path = d / "t.jsonl"
        path.write_bytes(content)
        phys = _expected_lines(content)
        # records_containing: every complete, bounded line with the needle that is a JSON object
        want = [_as_dict(ln) for ln, complete in phys
                if complete and NEEDLE in ln and len(ln) <= max_line and _as_dict(ln) is not None]
        assert list(jsonl_probe.records_containing(path, NEEDLE, max_line=max_line)) == want
        # head_records: the same rule over the first max_records physical lines
        want = [_as_dict(ln) for ln, complete in phys[:max_records]
                if complete and len(ln) <= max_line and _as_dict(ln) is not None]
        assert jsonl_probe.head_records(path, max_records=max_records, max_line=max_line) == want
        # tail_records: going back from the end, the lines no longer than max_line (the last one
        # without its newline too) until `window` bytes of them are taken
        pieces = content.split(b"\n") if content else []
        kept, taken = 0, []
        for ln in reversed(pieces):
            if kept >= window:
                break
            if len(ln) <= max_line:
                taken.append(ln)
                kept += len(ln) + 1
        want = [_as_dict(ln) for ln in reversed(taken) if ln.strip() and _as_dict(ln) is not None]
        assert jsonl_probe.tail_records(path, window=window, max_line=max_line) == want


@pytest.fixture(scope="module")
def huge_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Any]]:
    """A Claude home whose main transcript holds one 100 MB line (written in 1 MiB pieces,
    never held whole), with the continued-in needle deep inside it, then normal lines."""
    home = tmp_path_factory.mktemp("huge") / "home"
    home.mkdir()
    s = make_claude_home(home, USER)
    path = home / ".claude" / "projects" / s.project_key / f"{s.main}.jsonl"
    tail = path.read_bytes()
    chunk = b"a" * (1 << 20)
    with path.open("wb") as f:
        f.write(b'{"type":"user","message":{"role":"user","content":"')
        for _ in range(100):
            f.write(chunk)
        f.write(b'"},"continued-in":true}\n')  # the needle at the far end of the line
        f.write(tail)
    assert path.stat().st_size > 100 << 20
    yield home, s


def test_collector_reads_a_100_mb_line_in_bounded_memory(huge_home: tuple[Path, Any]) -> None:
    home, s = huge_home
    harness = ClaudeCode(HarnessContext(home=home, env={}))
    tracemalloc.start()
    try:
        found = list(harness.discover())
        path = home / ".claude" / "projects" / s.project_key / f"{s.main}.jsonl"
        end = complete_length(path)
        with path.open("rb") as f:
            fp = fingerprint(f, end)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 24 << 20, f"peak {peak >> 20} MiB"
    main = next(d for d in found if d.session_id == s.main)
    assert main.title == f"Deploy fixes for {USER}"  # the metadata after the huge line is still read
    assert any(e.relation == "continuation" for d in found for e in d.parents)
    assert end == path.stat().st_size and len(fp) == 64


def test_scan_of_a_100_mb_line_stays_small_in_a_real_process(huge_home: tuple[Path, Any], tmp_path: Path) -> None:
    home, _ = huge_home
    cfg = tmp_path / "c.toml"
    cfg.write_text(f'home = "{home}"\n')
    probe = ("import resource, subprocess, sys, json; "
             "p = subprocess.run([sys.executable, '-m', 'archiver', 'scan', '--json', '--config', sys.argv[1]], "
             "capture_output=True); "
             "print(json.dumps({'rc': p.returncode, 'n': len(json.loads(p.stdout)['sessions']), "
             "'rss_kib': resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}))")
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("ARCHIVER_", "CLAUDE_", "CODEX_", "CURSOR_",
                                                                          "PI_", "XDG_"))}
    out = json.loads(subprocess.run([sys.executable, "-c", probe, str(cfg)], capture_output=True, text=True,
                                    timeout=120, check=True, env=environ).stdout)
    assert out["rc"] == 0 and out["n"] == 6
    assert out["rss_kib"] < 200 * 1024, out  # a Python process with its imports; the file is > 100 MB


def test_collector_and_sync_survive_hostile_lines(env: Env) -> None:  # noqa: F811
    s = make_claude_home(env.home, USER)
    transcript = s.root / "projects" / s.project_key / f"{s.main}.jsonl"
    hostile = [
        b'{"type":"user","bad":"\xff\xfe\xc3\x28"}',  # invalid UTF-8
        b"[" * 100_000 + b"]" * 100_000,  # 100k nested arrays
        b'{"a":' * 50_000 + b"1" + b"}" * 50_000,  # 50k nested objects
        b'{"n": 1' + b"0" * 100_000 + b"}",  # a 100k-digit number
        b'{"n": 1e999999, "m": -1e-99999, "k": NaN}',
        bytes(b for b in range(256) if b != 10),  # every byte but newline
        b'{"type":"continued-in","continuedInSessionId":' + b"[" * 5000 + b"]" * 5000 + b"}",
    ]
    with transcript.open("ab") as f:
        f.write(b"\n".join(hostile) + b"\n")
    meta = next((s.root / "projects" / s.project_key / s.main / "subagents").glob("*.meta.json"))
    meta.write_bytes(b'{"toolUseId":' + b"[" * 100_000 + b"]" * 100_000 + b"}")
    found = list(ClaudeCode(HarnessContext(home=env.home, env={})).discover())
    assert len(found) == 6
    out = env.cli_json("sync", "--workers", "1")
    assert out["sessions"]["failed"] == 0, out["errors"]
    target = env.base / "r"
    env.cli_json("restore", f"claude-code:{s.main}", "--to", str(target), identity=True)
    restored = next(target.rglob(f"{s.main}.jsonl")).read_bytes().split(b"\n")
    for line in hostile:  # none holds anything to redact: every byte comes back
        assert line in restored


# ---------------------------------------------------------------- SQLite
def _good_db(path: Path) -> bytes:
    c = sqlite3.connect(path)
    c.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT)")
    c.executemany("INSERT INTO t (body) VALUES (?)", [(f"/home/{USER}/file-{i} " * 8,) for i in range(300)])
    c.commit()
    c.close()
    return path.read_bytes()


@pytest.mark.parametrize("kind", ["random", "text", "truncated", "header-only", "zero-pages", "empty"])
def test_copy_sqlite_names_the_file_on_anything_that_is_not_a_database(kind: str, tmp_path: Path) -> None:
    good = _good_db(tmp_path / "good.db")
    src = tmp_path / f"{kind}.db"
    src.write_bytes({
        "random": random.Random(1).randbytes(20_000),
        "text": b"this is not a database\n" * 100,
        "truncated": good[: len(good) // 3],
        "header-only": good[:100],
        "zero-pages": good[:4096] + b"\0" * (len(good) - 4096),
        "empty": b"",
    }[kind])
    dst = tmp_path / "copy.db"
    if kind == "empty":  # SQLite takes an empty file for an empty database
        copy_sqlite(src, dst)
        return
    with pytest.raises(SnapshotError) as info:
        copy_sqlite(src, dst)
    message = str(info.value)
    assert str(src) in message
    assert "not a readable SQLite database" in message or "damaged SQLite database" in message


@FUZZ
@given(cuts=st.lists(st.tuples(st.integers(0, 40_000), st.binary(min_size=1, max_size=16)), max_size=6),
       truncate=st.one_of(st.none(), st.integers(0, 40_000)))
def test_copy_sqlite_on_damaged_databases_copies_or_names_the_file(cuts: list[tuple[int, bytes]],
                                                                  truncate: int | None) -> None:
    with scratch() as d:
        data = bytearray(_good_db(d / "good.db"))
        for at, junk in cuts:
            at = at % len(data)
            data[at:at + len(junk)] = junk
        if truncate is not None:
            del data[truncate:]
        src = d / "damaged.db"
        src.write_bytes(bytes(data))
        try:
            copy_sqlite(src, d / "copy.db")
        except SnapshotError as e:
            assert str(src) in str(e)


class _Databases:
    """A collector whose sessions are single SQLite databases (any valid harness name)."""

    name = "opencode"
    native_root = ".local/share/opencode"

    def __init__(self, files: list[Path]) -> None:
        self.files = files

    def discover(self) -> Iterator[DiscoveredSession]:
        for f in self.files:
            yield DiscoveredSession(harness="opencode", session_id=f.stem, sources=[SourceArtifact(
                source=f, path=f".local/share/opencode/{f.name}", role="database", format="sqlite", mode="sqlite")])


def _damaged_databases(d: Path) -> list[Path]:
    good = _good_db(d / "good.db")
    (d / "garbage.db").write_bytes(random.Random(2).randbytes(5000))
    (d / "cut.db").write_bytes(good[: len(good) // 2])
    return sorted(d.glob("*.db"))


def test_unreadable_databases_fail_only_their_sessions(env: Env) -> None:  # noqa: F811
    from tests.test_disk_faults import make_syncer

    d = env.base / "dbs"
    d.mkdir()
    result = make_syncer(env, _Databases(_damaged_databases(d))).run()
    assert result.total == 3 and result.failed == 2 and result.snapshot
    by_key = {e.split(":")[1]: e for e in result.errors}
    assert set(by_key) == {"garbage", "cut"}
    assert "garbage.db" in by_key["garbage"] and "not a readable SQLite database" in by_key["garbage"]
    assert USER not in " ".join(result.errors)


def test_database_with_a_rotten_page_fails_only_its_session(env: Env) -> None:  # noqa: F811
    from tests.test_disk_faults import make_syncer

    d = env.base / "dbs"
    d.mkdir()
    files = _damaged_databases(d)
    rot = bytearray((d / "good.db").read_bytes())
    rot[8192:16384] = b"\xff" * 8192
    (d / "rot.db").write_bytes(bytes(rot))
    result = make_syncer(env, _Databases(files + [d / "rot.db"])).run()
    assert result.failed == 3 and result.snapshot
    assert any("rot.db" in e for e in result.errors)


# ---------------------------------------------------------------- zstd
def _rle_bomb(total: int) -> bytes:
    from tests.test_malicious_archive import _zstd_rle_bomb

    return _zstd_rle_bomb(total)


class _Counting(io.RawIOBase):
    def __init__(self) -> None:
        self.n = 0

    def writable(self) -> bool:
        return True

    def write(self, b: Any) -> int:
        self.n += len(b)
        return len(b)


def test_zstd_bomb_in_an_object_stops_at_the_ratio_and_size_limits() -> None:
    from archiver.crypto.age import X25519Identity

    ident = X25519Identity.generate()
    bomb = io.BytesIO()
    with age.EncryptWriter(bomb, [ident.recipient]) as w:
        w.write(_rle_bomb(64 << 30))  # 64 GiB of zeros in ~2 MiB
    for limits, message in (({"max_ratio": 100.0}, "ratio exceeds 100"),
                            ({"max_output": 8 << 20}, "exceeds the limit of 8388608")):
        sink = _Counting()
        tracemalloc.start()
        started = time.monotonic()
        try:
            with pytest.raises(UnpackError, match=message):
                unpack_stream(io.BytesIO(bomb.getvalue()), sink, [ident], **limits)  # type: ignore[arg-type]
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        # the ratio counts past RATIO_FLOOR of output (a real repetitive file passes): bounded all the same
        assert sink.n <= RATIO_FLOOR + (9 << 20) and peak < 16 << 20 and time.monotonic() - started < 10


def test_codex_zst_rollout_that_decompresses_too_far_or_is_corrupt_names_the_file(tmp_path: Path) -> None:
    bomb = tmp_path / "rollout.jsonl.zst"
    bomb.write_bytes(_rle_bomb(1 << 30))
    with pytest.raises(SnapshotError, match=r"rollout\.jsonl\.zst: decompresses beyond 4194304 bytes"):
        decompress_zst(bomb, tmp_path / "out", max_output=4 << 20)
    assert (tmp_path / "out").stat().st_size <= 4 << 20
    bad = tmp_path / "bad.jsonl.zst"
    bad.write_bytes(b"\x28\xb5\x2f\xfd" + random.Random(3).randbytes(300))
    with pytest.raises(SnapshotError, match=r"bad\.jsonl\.zst: not a valid zstd file"):
        decompress_zst(bad, tmp_path / "out2")


def test_codex_zst_rollout_cut_short_is_an_error_and_whole_frames_are_read(tmp_path: Path) -> None:
    """A rollout cut inside its frame is no rollout: its readable prefix must not be archived as
    the session. Several frames one after the other are all read; an empty file is empty."""
    import zstandard

    text = b"".join(b'{"type":"event_msg","n":%d,"pad":"%s"}\n' % (i, b"x" * (i % 97)) for i in range(20_000))
    whole = zstandard.ZstdCompressor(level=3).compress(text)
    cut = tmp_path / "rollout-cut.jsonl.zst"
    cut.write_bytes(whole[: len(whole) // 2])
    with pytest.raises(SnapshotError, match=r"rollout-cut\.jsonl\.zst: truncated zstd frame"):
        decompress_zst(cut, tmp_path / "out")
    frames = tmp_path / "rollout-frames.jsonl.zst"
    half = len(text) // 2
    frames.write_bytes(zstandard.ZstdCompressor().compress(text[:half]) + zstandard.ZstdCompressor().compress(text[half:]))
    decompress_zst(frames, tmp_path / "out2")
    assert (tmp_path / "out2").read_bytes() == text
    empty = tmp_path / "rollout-empty.jsonl.zst"
    empty.write_bytes(b"")
    decompress_zst(empty, tmp_path / "out3")
    assert (tmp_path / "out3").read_bytes() == b""


# ---------------------------------------------------------------- age headers that lie
class _Endless(io.RawIOBase):
    """A stream that never ends: whatever a reader does, it must stop on its own."""

    def __init__(self, head: bytes, fill: bytes) -> None:
        self.head, self.fill, self.read_bytes = head, fill, 0

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        n = len(b)
        out = bytearray()
        while len(out) < n:
            pos = self.read_bytes + len(out)
            if pos < len(self.head):
                out += self.head[pos:]
            else:
                k = (pos - len(self.head)) % len(self.fill)
                out += self.fill[k:] + self.fill * (n // len(self.fill) + 1)
        b[:n] = out[:n]
        self.read_bytes += n
        return n


_IDENT = age.X25519Identity.generate()


@pytest.mark.parametrize("head,fill,error", [
    (b"", b"A", "not an age v1 file|header line too long"),
    (b"age-encryption.org/v1\n-> X25519 ", b"A", "header line too long|malformed"),
    (b"age-encryption.org/v1\n", b"-> X25519 AAAA\n" + b"A" * 43 + b"\n", "more than 1024 stanzas|size limit"),
    (b"age-encryption.org/v1\n-> X25519 AAAA\n", b"B" * 64 + b"\n", "header exceeds the size limit"),
])
def test_age_header_that_never_ends_is_refused_after_bounded_reading(head: bytes, fill: bytes, error: str) -> None:
    src = _Endless(head, fill)
    with pytest.raises(age.AgeHeaderError, match=error):
        age.DecryptReader(io.BufferedReader(src, 4096), [_IDENT])
    assert src.read_bytes <= age.MAX_HEADER_SIZE + (1 << 16)


def test_scrypt_stanza_with_a_huge_work_factor_is_refused_before_any_work() -> None:
    stanza = age.Stanza("scrypt", [age._b64encode(os.urandom(16)).decode(), "40"], os.urandom(32))
    head = age.VERSION_LINE + b"\n" + stanza.marshal() + b"--- " + age._b64encode(os.urandom(32)) + b"\n"
    started = time.monotonic()
    with pytest.raises(age.AgeHeaderError, match="work factor 40 exceeds the maximum"):
        age.DecryptReader(io.BytesIO(head + os.urandom(64)), [age.ScryptIdentity(b"pw")])
    assert time.monotonic() - started < 1


_VALID = pack_bytes(b'{"type":"user"}\n' * 50, [_IDENT.recipient])


@FUZZ
@given(edits=st.lists(st.tuples(st.integers(0, len(_VALID) - 1), st.binary(max_size=8)), min_size=1, max_size=4),
       cut=st.one_of(st.none(), st.integers(0, len(_VALID))))
def test_tampered_objects_fail_with_age_or_unpack_errors_only(edits: list[tuple[int, bytes]], cut: int | None) -> None:
    data = bytearray(_VALID)
    for at, junk in edits:
        data[at:at + len(junk)] = junk
    if cut is not None:
        del data[cut:]
    assume(bytes(data) != _VALID)
    try:
        unpack_stream(io.BytesIO(bytes(data)), _Counting(), [_IDENT], max_output=1 << 20, max_ratio=1000)
    except (age.AgeError, UnpackError):
        return
    # an edit that kept the file valid can only be one that changed nothing the MACs cover
    raise AssertionError("a modified object decrypted without an error")


# ---------------------------------------------------------------- protobuf blobs
try:
    from archiver.redact.walkers import protobuf as pb
except ImportError:  # pragma: no cover - the walker is part of the redaction work
    pb = None  # type: ignore[assignment]

needs_pb = pytest.mark.skipif(pb is None, reason="archiver.redact.walkers.protobuf is not there yet")


def _pb_field(no: int, payload: bytes) -> bytes:
    return bytes([(no << 3) | 2]) + _varint(len(payload)) + payload


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        out.append((n & 0x7F) | (0x80 if n > 0x7F else 0))
        n >>= 7
        if not n:
            return bytes(out)


@needs_pb
@FUZZ
@given(blob=st.one_of(
    st.binary(max_size=300),
    st.lists(st.tuples(st.integers(1, 20), st.binary(max_size=40)), max_size=8)
      .map(lambda fs: b"".join(_pb_field(n, p) for n, p in fs)),
    st.tuples(st.integers(1, 15), st.integers(0, 2**70), st.binary(max_size=20))  # lengths that lie
      .map(lambda t: bytes([(t[0] << 3) | 2]) + _varint(t[1]) + t[2]),
))
def test_protobuf_walker_on_any_bytes_returns_a_message_or_none(blob: bytes) -> None:
    same = pb.redact_message(blob, lambda b: b)
    assert same is None or same == blob  # nothing to change: byte-identical
    grown = pb.redact_message(blob, lambda b: b.replace(b"a", b"<REDACTED>"))
    if grown is not None:
        assert pb.parse(grown) is not None
        assert len(pb.parse(grown) or []) == len(pb.parse(blob) or [])


@needs_pb
def test_protobuf_walker_stops_at_its_depth_limit_on_deep_nesting() -> None:
    blob = b"/home/alice/secret"
    for _ in range(5000):
        blob = _pb_field(1, blob)
    started = time.monotonic()
    out = pb.redact_message(blob, lambda b: b.replace(b"alice", b"user-1"))
    assert time.monotonic() - started < 5
    assert out is None or pb.parse(out) is not None
