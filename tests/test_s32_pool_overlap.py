"""A retiring redaction worker is replaced only once it is gone (s32). The stock pool drops the
worker from its table and then joins it; a job submitted in between saw a free place and started
the replacement while the old worker was still freeing its memory: three workers alive at once,
the memory case's peak (bench/sync.py) one starting worker higher. Here the retiring worker's exit
is slowed down (a multiprocessing finalizer that sleeps) and the parent's live children are
sampled from /proc while jobs keep being submitted."""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
from pathlib import Path

from archiver.workers import POOL_START_METHOD, _Pool

EXIT_SECONDS = 1.0


def _slow_exit_job(n: int) -> int:
    from multiprocessing import util

    util.Finalize(None, time.sleep, args=(EXIT_SECONDS,), exitpriority=100)
    return n * 2


def _pool_children() -> set[int]:
    """The pool's worker processes among this process's children (not the resource tracker)."""
    pids: set[int] = set()
    for task in Path(f"/proc/{os.getpid()}/task").iterdir():
        try:
            children = (task / "children").read_text().split()
        except OSError:
            continue
        for pid in children:
            try:
                cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
            except OSError:
                continue
            if b"spawn_main" in cmdline and b"resource_tracker" not in cmdline:
                pids.add(int(pid))
    return pids


def test_a_replacement_starts_only_after_the_retiring_worker_is_gone() -> None:
    pool = _Pool(2, mp_context=multiprocessing.get_context(POOL_START_METHOD), max_tasks_per_child=1)
    most = 0
    seen: set[int] = set()
    stop = threading.Event()

    def sample() -> None:
        nonlocal most
        while not stop.is_set():
            alive = _pool_children()
            seen.update(alive)
            most = max(most, len(alive))
            time.sleep(0.01)

    sampler = threading.Thread(target=sample)
    sampler.start()
    try:
        results = []
        for n in range(4):
            results.append(pool.submit(_slow_exit_job, n).result(timeout=60))
            # submitted while the worker that ran the last job is still exiting
            pending = pool.submit(_slow_exit_job, 100 + n)
            results.append(pending.result(timeout=60))
    finally:
        stop.set()
        sampler.join()
        pool.shutdown(wait=True)
    assert results == [v for n in range(4) for v in (2 * n, 2 * (100 + n))]
    assert len(seen) >= 8  # every job ran in a worker of its own (one job a worker)
    assert most <= 2, f"{most} pool workers alive at once"
