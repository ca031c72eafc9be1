"""A redaction worker is replaced after the bytes it redacted (workers.BYTES_PER_WORKER), not
after a number of jobs: its memory grows with what it redacted, while a run of many tiny sessions
replacing workers every few hundred jobs spent a fifth of its CPU starting them."""

from __future__ import annotations

import functools
import pickle
from pathlib import Path

import pytest

import archiver.workers as workers_mod
from archiver.redact.redactor import build_redactor
from archiver.workers import Jobs, _Retirement

from tests.test_pipeline_parallel import KEY, RULES, TERMS, _transcript
from tests.test_s11_mem_workers import _in_time


def test_retirement_compares_as_the_worker_loop_asks_and_survives_pickling(monkeypatch: pytest.MonkeyPatch) -> None:
    limit = pickle.loads(pickle.dumps(_Retirement(5, 1000)))
    assert type(limit) is _Retirement and int(limit) == 5 and limit.bytes_limit == 1000
    monkeypatch.setattr(workers_mod, "_worker_bytes", 999)
    assert [n >= limit for n in (1, 4, 5, 6)] == [False, False, True, True]  # the stock loop's test
    monkeypatch.setattr(workers_mod, "_worker_bytes", 1000)
    assert (1 >= limit) is True
    assert workers_mod.JOBS_PER_WORKER >= 10_000 and 32 << 20 <= workers_mod.BYTES_PER_WORKER <= 256 << 20


def _pids_over(jobs: Jobs, run) -> set[int]:  # type: ignore[no-untyped-def]
    seen: set[int] = set()
    for step in run:
        _in_time(step)
        assert jobs.pool is not None
        seen |= set(jobs.pool._processes)  # noqa: SLF001 - the pool's live workers
    return seen


@pytest.mark.parametrize("limit,replaced", [(None, False), (2, True)])
def test_a_worker_leaves_after_the_bytes_it_redacted_and_results_do_not_change(
        tmp_path: Path, limit: int | None, replaced: bool) -> None:
    src = tmp_path / "t.jsonl"
    data = _transcript(src, 300)
    start = data.index(b"\n", len(data) // 2) + 1
    factory = functools.partial(build_redactor, RULES, KEY, TERMS)
    inline = Jobs(factory(), KEY, verify=True, workers=1)
    want_whole = inline.whole(src, tmp_path / "w", "jsonl")
    want_tail = inline.segment(src, start, len(data), tmp_path / "s")
    jobs = Jobs(factory(), KEY, verify=True, workers=2, factory=factory, jobs_per_worker=10_000,
                bytes_per_worker=(limit or 10_000) * len(data), inline_bytes=0)
    got = []
    try:
        steps = [lambda i=i: got.append(jobs.whole(src, tmp_path / f"w{i}", "jsonl")) for i in range(6)]
        steps += [lambda i=i: got.append(jobs.segment(src, start, len(data), tmp_path / f"s{i}")) for i in range(4)]
        pids = _pids_over(jobs, steps)
    finally:
        jobs.close()
    # 2 workers; with a limit of two files' bytes each leaves after its third job
    assert (len(pids) > 2) is replaced and len(pids) >= 2
    for r in got[:6]:
        assert (r.object_id, r.sha256, r.counts) == (want_whole.object_id, want_whole.sha256, want_whole.counts)
    for r in got[6:]:
        assert (r.object_id, r.sha256, r.counts) == (want_tail.object_id, want_tail.sha256, want_tail.counts)
