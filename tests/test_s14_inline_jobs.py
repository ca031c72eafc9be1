"""A run with little to redact does it in the main process instead of starting the worker pool
(workers.INLINE_BYTES): the same bytes, ids and counts as the pool gives, the pool started as soon
as the work is known to be larger, and never more than the budget redacted here."""

from __future__ import annotations

import functools
import json
import os
from pathlib import Path
from typing import Any

import pytest

import archiver.workers as workers_mod
from archiver.crypto.age import X25519Identity
from archiver.pack import unpack_bytes
from archiver.redact.redactor import build_redactor
from archiver.redact.rules import RuntimeTerms
from archiver.state import Known
from archiver.sync import _bytes_to_redact
from archiver.workers import JobResult, Jobs
from tests.fx_home import USER, Box, box  # noqa: F401

KEY = b"i" * 32
RULES = ["builtin:secrets", "builtin:pii", "builtin:paths"]
TERMS = RuntimeTerms(usernames=["alice"], home_dirs=["/home/alice"])
SECRET = "ghp_" + "R8x2Kq7Lm4Vt9Zp3Wc6Ya1Nd5Hs0Jf2Gb8Tq"


def _transcript(path: Path, lines: int, tag: str = "") -> bytes:
    rows = [json.dumps({"uuid": f"{tag}{i:06d}", "cwd": "/home/alice/work/app",
                        "message": {"content": f"step {i}: {SECRET} to dev{i}@corp.example in /home/alice/src/{i}.py"}})
            for i in range(lines)]
    data = ("\n".join(rows) + "\n").encode()
    path.write_bytes(data)
    return data


def _jobs(budget: int, ident: X25519Identity) -> Jobs:
    return Jobs(build_redactor(RULES, KEY, TERMS), KEY, verify=True, workers=2,
                factory=functools.partial(build_redactor, RULES, KEY, TERMS),
                recipients=[ident.recipient], inline_bytes=budget)


def _plain(result: JobResult, ident: X25519Identity) -> bytes:
    packed = result.packed if result.packed is not None else Path(result.packed_path or "").read_bytes()
    return unpack_bytes(packed, [ident])


def test_a_small_job_runs_here_and_gives_what_the_pool_gives(tmp_path: Path) -> None:
    src = tmp_path / "t.jsonl"
    data = _transcript(src, 300)
    start = data.index(b"\n", len(data) // 2) + 1  # an append: a segment from the middle
    ident = X25519Identity.generate()
    here, pool = _jobs(1 << 20, ident), _jobs(0, ident)
    try:
        w_here = here.whole(src, tmp_path / "w1", "jsonl")
        s_here = here.segment(src, start, len(data), tmp_path / "s1")
        assert here.pool is None and here.inline_jobs == 2  # no worker was started
        w_pool = pool.whole(src, tmp_path / "w2", "jsonl")
        s_pool = pool.segment(src, start, len(data), tmp_path / "s2")
        assert pool.pool is not None and pool.inline_jobs == 0
    finally:
        here.close()
        pool.close()
    for a, b in ((w_here, w_pool), (s_here, s_pool)):
        assert (a.object_id, a.sha256, a.size, a.counts, a.leftovers) == (b.object_id, b.sha256, b.size, b.counts, b.leftovers)
        assert _plain(a, ident) == _plain(b, ident)
    whole = _plain(w_here, ident)
    assert SECRET.encode() not in whole and b"/home/alice" not in whole and b"corp.example" not in whole
    assert whole.count(b"\n") == 300 and _plain(s_here, ident) == whole[len(whole) - s_here.size:]


def test_the_job_that_does_not_fit_starts_the_pool_and_the_rest_stays_there(tmp_path: Path) -> None:
    src = tmp_path / "t.jsonl"
    size = len(_transcript(src, 100))
    small = tmp_path / "small.jsonl"
    _transcript(small, 3)
    jobs = _jobs(size + 10, X25519Identity.generate())
    try:
        jobs.whole(src, tmp_path / "a", "jsonl")  # fits: here
        assert jobs.pool is None and jobs.inline_jobs == 1
        jobs.whole(src, tmp_path / "b", "jsonl")  # 10 bytes left: the pool
        assert jobs.pool is not None
        jobs.whole(small, tmp_path / "c", "jsonl")  # would fit, but the run is known to be large
        assert jobs.inline_jobs == 1
    finally:
        jobs.close()


def test_warm_means_every_job_goes_to_the_pool(tmp_path: Path) -> None:
    src = tmp_path / "t.jsonl"
    _transcript(src, 5)
    jobs = _jobs(1 << 30, X25519Identity.generate())
    try:
        jobs.warm()
        jobs.whole(src, tmp_path / "a", "jsonl")
        assert jobs.pool is not None and jobs.inline_jobs == 0
    finally:
        jobs.close()


def test_one_worker_or_no_factory_is_always_here(tmp_path: Path) -> None:
    src = tmp_path / "t.jsonl"
    _transcript(src, 5)
    redactor = build_redactor(RULES, KEY, TERMS)
    for jobs in (Jobs(redactor, KEY, verify=True, workers=1, inline_bytes=0), Jobs(redactor, KEY, verify=True, workers=2)):
        try:
            jobs.warm()
            jobs.whole(src, tmp_path / "a", "jsonl")
            assert jobs.pool is None and jobs.inline_bytes == 0
        finally:
            jobs.close()


class _Src:
    def __init__(self, path: str) -> None:
        self.path = path


class _DS:
    def __init__(self, *paths: str) -> None:
        self.sources = [_Src(p) for p in paths]


def test_bytes_to_redact_counts_new_files_whole_and_grown_ones_by_their_growth() -> None:
    ds = _DS("/a.jsonl", "/b.jsonl", "/c.db", "/d.json", "/e.jsonl.zst", "/gone")
    now = [(1, 1000, 5), (2, 700, 6), (3, 4096, 7), (4, 50, 8), (5, 300, 9), OSError(2, "gone")]
    assert _bytes_to_redact(ds, None, now) == 1000 + 700 + 4096 + 50 + 300  # not archived yet: all of it
    known = Known("k", "sig", {"/a.jsonl": (1, 1000, 5),  # as stored: nothing
                               "/b.jsonl": (2, 400, 1),  # grew in place: the 300 new bytes
                               "/c.db": (99, 4000, 1),  # replaced (another inode): all of it
                               "/d.json": (4, 80, 1),  # shrank: all of it
                               "/e.jsonl": (5, 100, 1)})  # compressed rollout, stored under its logical name
    assert _bytes_to_redact(ds, known, now) == 300 + 4096 + 50 + 200


def _claude_session(home: Path, sid: str, lines: int, pad: int = 0) -> Path:
    project = home / ".claude" / "projects" / "-home-zqxcanary-work-app"
    project.mkdir(parents=True, exist_ok=True)
    path = project / f"{sid}.jsonl"
    rows = [{"type": "user", "uuid": f"{sid[:8]}-{i:04d}-4000-8000-000000000000", "sessionId": sid,
             "cwd": f"/home/{USER}/work/app", "timestamp": "2026-11-01T10:00:00.000Z",
             "message": {"role": "user", "content": f"line {i} by {USER} with {SECRET} " + "z" * pad}}
            for i in range(lines)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


@pytest.fixture
def starts(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The number of jobs run here when each pool started (the pool is real)."""
    seen: list[int] = []
    real = Jobs._start_pool

    def start(self: Jobs) -> None:
        seen.append(self.inline_jobs)
        real(self)

    monkeypatch.setattr(Jobs, "_start_pool", start)
    return seen


def _sync(b: Box) -> dict[str, Any]:
    return b.cli("sync", "--workers", "2")


def test_sync_with_little_to_do_starts_no_worker_and_archives_all(box: Box, starts: list[int]) -> None:  # noqa: F811
    box.only("claude-code")
    ids = [f"{n:08x}-aaaa-4bbb-8ccc-dddddddddddd" for n in range(3)]
    for sid in ids:
        _claude_session(box.home, sid, 40)
    out = _sync(box)
    assert out["sessions"]["uploaded"] == 3 and out["sessions"]["failed"] == 0
    assert starts == []  # no pool, no worker process
    assert out["redactions"]  # redacted all the same
    listed = box.ls()
    assert len(listed) == 3 and all(s["artifacts"] for s in listed.values())


def test_sync_with_more_than_the_budget_starts_the_pool_before_any_job(box: Box, starts: list[int],  # noqa: F811
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    box.only("claude-code")
    paths = [_claude_session(box.home, f"{n:08x}-aaaa-4bbb-8ccc-dddddddddddd", 40) for n in range(4)]
    monkeypatch.setattr(workers_mod, "INLINE_BYTES", sum(p.stat().st_size for p in paths[:2]))
    out = _sync(box)
    assert out["sessions"]["uploaded"] == 4
    assert starts == [0]  # started while the sessions were being found, before any job


def test_an_append_to_a_big_transcript_is_counted_by_what_it_grew(box: Box, starts: list[int],  # noqa: F811
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    box.only("claude-code")
    sid = "0000beef-aaaa-4bbb-8ccc-dddddddddddd"
    path = _claude_session(box.home, sid, 200, pad=200)
    monkeypatch.setattr(workers_mod, "INLINE_BYTES", path.stat().st_size // 2)
    assert _sync(box)["sessions"]["uploaded"] == 1
    assert starts == [0]  # the first run: the whole file, over the budget
    starts.clear()
    with path.open("a") as f:
        f.write(json.dumps({"type": "user", "uuid": "0000beef-9999-4000-8000-000000000000", "sessionId": sid,
                            "message": {"role": "user", "content": f"appended {SECRET}"}}) + "\n")
    ino = os.stat(path).st_ino
    out = _sync(box)
    assert os.stat(path).st_ino == ino
    assert out["sessions"]["uploaded"] == 1 and starts == []  # a few hundred bytes: here
