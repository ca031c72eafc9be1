"""The parallel pipeline: long segments split across workers, objects put once, uploads of
the same bytes by two sessions."""

from __future__ import annotations

import functools
import hashlib
import json
import threading
from pathlib import Path
from types import SimpleNamespace

import pytest

import archiver.archive as archive_mod
import archiver.workers as workers_mod
from archiver.archive import Archive, object_key
from archiver.crypto.age import X25519Identity
from archiver.pack import unpack_bytes
from archiver.redact.rules import RuntimeTerms
from archiver.redact.redactor import build_redactor
from archiver.store.local import LocalStore
from archiver.sync import SyncResult, Syncer
from archiver.workers import Jobs, line_cuts

KEY = b"k" * 32
RULES = ["builtin:secrets", "builtin:pii", "builtin:paths"]
TERMS = RuntimeTerms(usernames=["alice"], home_dirs=["/home/alice"])


def _token(i: int) -> str:
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
    digest = hashlib.sha512(str(i).encode()).digest()
    return "".join(alphabet[b % 62] for b in digest[:36])


def _transcript(path: Path, lines: int) -> bytes:
    rows = []
    for i in range(lines):
        rows.append(json.dumps({
            "uuid": f"{i:08x}-0000-4000-8000-000000000000", "cwd": "/home/alice/work/app",
            "message": {"content": f"step {i}: token ghp_{_token(i)} mailed to dev{i}@corp.example "
                                   f"from /home/alice/src/{i}.py " + "x" * (i % 300)},
        }).encode())
        if i % 50 == 0:
            rows.append(b"not json /home/alice/raw " + str(i).encode())
    data = b"\n".join(rows) + b"\n"
    path.write_bytes(data)
    return data


def test_line_cuts_fall_after_newlines_and_cover_the_range(tmp_path: Path) -> None:
    src = tmp_path / "t.jsonl"
    data = b"".join(b"y" * n + b"\n" for n in range(1, 400))
    src.write_bytes(data)
    first_line_end = data.index(b"\n") + 1
    for start in (0, first_line_end):
        for piece in (1, 100, 5000, len(data)):
            cuts = line_cuts(src, start, len(data), piece)
            assert cuts[0] == start and cuts[-1] == len(data)
            assert all(a < b for a, b in zip(cuts, cuts[1:]))
            assert all(data[c - 1:c] == b"\n" for c in cuts[1:])
    assert line_cuts(src, 0, len(data), len(data)) == [0, len(data)]


def test_a_split_segment_gives_the_bytes_ids_and_counts_of_one_job(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    src = tmp_path / "t.jsonl"
    data = _transcript(src, 2000)
    start = data.index(b"\n") + 1  # an append: not from 0
    redactor = build_redactor(RULES, KEY, TERMS)
    inline = Jobs(redactor, KEY, verify=True, workers=1)
    one = inline.segment(src, start, len(data), tmp_path / "one")

    monkeypatch.setattr(workers_mod, "SPLIT_BYTES", 20_000)
    assert len(line_cuts(src, start, len(data), 20_000)) > 5
    pooled = Jobs(redactor, KEY, verify=True, workers=2,
                  factory=functools.partial(build_redactor, RULES, KEY, TERMS))
    try:
        split = pooled.segment(src, start, len(data), tmp_path / "split")
    finally:
        pooled.close()
    out = (tmp_path / "split").read_bytes()
    assert out == (tmp_path / "one").read_bytes()
    assert b"/home/alice" not in out and b"ghp_" not in out and b"@corp.example" not in out
    assert (split.object_id, split.sha256, split.size, split.lines) == (one.object_id, one.sha256, one.size, one.lines)
    assert split.counts == one.counts and split.counts
    assert split.notes == one.notes and split.notes  # the unparsable lines are reported once each
    assert sorted(p.name for p in tmp_path.iterdir()) == ["one", "split", "t.jsonl"]  # pieces removed


def test_stopped_workers_exit_and_a_later_job_starts_new_ones(tmp_path: Path) -> None:
    """sync stops the pool before it builds the manifest (the peak memory of a long run); a
    session _commit still has to redact starts it again."""
    src = tmp_path / "t.jsonl"
    _transcript(src, 200)
    redactor = build_redactor(RULES, KEY, TERMS)
    jobs = Jobs(redactor, KEY, verify=True, workers=2, factory=functools.partial(build_redactor, RULES, KEY, TERMS))
    try:
        first = jobs.whole(src, tmp_path / "a", "jsonl")
        pool = jobs.pool
        assert pool is not None
        procs = list(pool._processes.values())  # noqa: SLF001
        assert procs and all(p.is_alive() for p in procs)
        jobs.stop_workers()
        assert jobs.pool is None and not any(p.is_alive() for p in procs)
        again = jobs.whole(src, tmp_path / "b", "jsonl")
        assert jobs.pool is not None and jobs.pool is not pool
    finally:
        jobs.close()
    assert (again.object_id, again.sha256) == (first.object_id, first.sha256)
    assert (tmp_path / "a").read_bytes() == (tmp_path / "b").read_bytes()
    assert b"/home/alice" not in (tmp_path / "b").read_bytes()


def _archive(tmp_path: Path) -> tuple[Archive, X25519Identity]:
    ident = X25519Identity.generate()
    return Archive(LocalStore(tmp_path / "store")), ident


@pytest.mark.parametrize("small", [True, False])
def test_put_object_writes_once_and_reads_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, small: bool) -> None:
    if not small:
        monkeypatch.setattr(archive_mod, "SMALL_OBJECT", 10)
    archive, ident = _archive(tmp_path)
    plain = tmp_path / "plain"
    plain.write_bytes(b"redacted bytes " * 100)
    oid = "ab" * 32
    sent = archive.put_object(oid, plain, tmp_path / "packed", [ident.recipient])
    stored = (tmp_path / "store" / object_key(oid)).read_bytes()
    assert sent == len(stored) > 0
    assert unpack_bytes(stored, [ident]) == plain.read_bytes()
    assert not (tmp_path / "packed").exists()
    mtime = (tmp_path / "store" / object_key(oid)).stat().st_mtime_ns
    assert archive.put_object(oid, plain, tmp_path / "packed", [ident.recipient]) == 0
    assert (tmp_path / "store" / object_key(oid)).stat().st_mtime_ns == mtime
    assert (tmp_path / "store" / object_key(oid)).read_bytes() == stored


def test_a_session_waits_for_an_upload_of_the_same_bytes_and_retries_if_it_failed(tmp_path: Path) -> None:
    """Two sessions with one identical file: the second must not count on an object whose
    upload is still running, nor on one whose upload failed."""
    release = threading.Event()
    calls: list[str] = []

    class FlakyArchive:
        def put_object(self, object_id: str, plaintext: Path, packed: Path, recipients: object) -> int:
            calls.append(threading.current_thread().name)
            if len(calls) == 1:
                release.wait(5)
                raise OSError("first upload fails")
            return 123

    class State:
        def __init__(self) -> None:
            self.objects: set[str] = set()

        def has_object(self, oid: str) -> bool:
            return oid in self.objects

        def add_object(self, oid: str) -> None:
            self.objects.add(oid)

    syncer = SimpleNamespace(options=SimpleNamespace(dry_run=False), archive=FlakyArchive(), state=State(),
                             _lock=threading.RLock(), _in_flight={}, result=SyncResult(),
                             progress=lambda *a: None, recipients=[])
    work = SimpleNamespace(file=lambda name: tmp_path / name)
    results: dict[str, object] = {}

    def run(name: str) -> None:
        try:
            results[name] = Syncer._upload(syncer, "cd" * 32, tmp_path / "p", work)  # type: ignore[arg-type]
        except OSError as e:
            results[name] = e

    a = threading.Thread(target=run, args=("a",), name="a")
    a.start()
    while not calls:
        threading.Event().wait(0.01)
    b = threading.Thread(target=run, args=("b",), name="b")
    b.start()
    b.join(0.3)
    assert b.is_alive() and calls == ["a"]  # b waits while a's upload runs
    release.set()
    a.join(5)
    b.join(5)
    assert isinstance(results["a"], OSError)
    assert results["b"] is True and calls == ["a", "b"]
    assert syncer.state.objects == {"cd" * 32}
    assert syncer.result.objects_uploaded == 1 and syncer.result.bytes_uploaded == 123
    assert syncer._in_flight == {}
