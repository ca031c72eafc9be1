"""Redaction workers are replaced by fresh ones after JOBS_PER_WORKER jobs or BYTES_PER_WORKER bytes (their memory grows
with the jobs they ran), and the replacement never stalls the pool (CPython gh-115634)."""

from __future__ import annotations

import functools
import multiprocessing
import os
import threading
from pathlib import Path

import pytest

import archiver.workers as workers_mod
from archiver.redact.redactor import build_redactor
from archiver.workers import Jobs, _Pool, line_cuts

from tests.test_pipeline_parallel import KEY, RULES, TERMS, _transcript


def _in_time(fn, seconds: float = 240.0):  # type: ignore[no-untyped-def]
    """fn() run in a thread: its result, or a failure (not a hung test) if it takes longer."""
    out: list[object] = []
    t = threading.Thread(target=lambda: out.append(fn()), daemon=True)
    t.start()
    t.join(seconds)
    assert out, f"no result after {seconds} s: the pool stalled"
    return out[0]


def test_a_backlog_is_served_while_workers_are_replaced() -> None:
    """One worker, replaced every 2 jobs, 10 jobs queued at once: the stock executor of Python
    3.11-3.13 runs 2 and then waits forever (the replacement is skipped on a stale idle token)."""
    ctx = multiprocessing.get_context(workers_mod.POOL_START_METHOD)
    pool = _Pool(1, mp_context=ctx, max_tasks_per_child=2)
    try:
        pids = _in_time(lambda: [f.result() for f in [pool.submit(os.getpid) for _ in range(10)]])
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    assert len(pids) == 10
    assert len(set(pids)) == 5  # 2 jobs each, then a fresh process
    assert os.getpid() not in pids


def test_jobs_replace_their_workers_and_results_do_not_change(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    src = tmp_path / "t.jsonl"
    data = _transcript(src, 600)
    redactor = build_redactor(RULES, KEY, TERMS)
    inline = Jobs(redactor, KEY, verify=True, workers=1)
    one = inline.segment(src, 0, len(data), tmp_path / "one")

    monkeypatch.setattr(workers_mod, "SPLIT_BYTES", 25_000)  # a few pieces, all queued at once
    factory = functools.partial(build_redactor, RULES, KEY, TERMS)
    jobs = Jobs(redactor, KEY, verify=True, workers=2, factory=factory, jobs_per_worker=2)
    assert workers_mod.JOBS_PER_WORKER >= 100 and Jobs(redactor, KEY, True)._jobs_per_worker == workers_mod.JOBS_PER_WORKER  # noqa: SLF001
    try:
        split = _in_time(lambda: jobs.segment(src, 0, len(data), tmp_path / "split"))
        pool = jobs.pool
        assert pool is not None
        assert len(line_cuts(src, 0, len(data), 25_000)) > 4
        seen = _in_time(lambda: {pool.submit(os.getpid).result() for _ in range(6)})
        assert len(seen) >= 3  # 6 jobs, at most 2 per process
        assert len(pool._processes) <= 2  # noqa: SLF001 - never more than the pool's size
        whole = _in_time(lambda: jobs.whole(src, tmp_path / "whole", "jsonl"))
    finally:
        jobs.close()
    out = (tmp_path / "split").read_bytes()
    assert out == (tmp_path / "one").read_bytes() == (tmp_path / "whole").read_bytes()
    assert b"/home/alice" not in out and b"ghp_" not in out and b"@corp.example" not in out
    assert (split.object_id, split.sha256, split.size, split.lines) == (one.object_id, one.sha256, one.size, one.lines)
    assert split.counts == one.counts and split.notes == one.notes
    assert (whole.object_id, whole.sha256) == (one.object_id, one.sha256)
