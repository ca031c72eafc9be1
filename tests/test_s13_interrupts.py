"""SIGTERM or Ctrl-C while a worker process starts: the exception comes out once the pool has
recorded the process, so shutdown joins it. Cut in between (as before), the parent exited without
it and the starting worker died on the unlinked semaphores, with a traceback on the shared stderr
(a non-JSON line under --log-format json; seen in test_s12_ops_status under load)."""

from __future__ import annotations

import importlib
import multiprocessing
import os
import signal
import time
from typing import Iterator

import pytest

from archiver import interrupts
from archiver.workers import POOL_START_METHOD, _Pool


class Stop(Exception):
    pass


@pytest.fixture
def sigterm_raises() -> Iterator[None]:
    def stop(signum: int, frame: object) -> None:
        raise Stop()

    # SIGINT as from a terminal: delivered and raising (in the full suite a pytest worker was once
    # found with it ignored or blocked by an earlier test; see the session-22 note)
    mask = signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGINT, signal.SIGTERM])
    previous_int = signal.signal(signal.SIGINT, signal.default_int_handler)
    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
        signal.signal(signal.SIGINT, previous_int)
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)


def _signal_self(signum: int = signal.SIGTERM) -> None:
    os.kill(os.getpid(), signum)
    time.sleep(0.05)  # the handler runs here, at the next bytecode, if nothing holds it


def test_a_signal_inside_the_block_is_raised_right_after_it(sigterm_raises: None) -> None:
    done = []
    with pytest.raises(Stop):
        with interrupts.deferred():
            _signal_self()
            done.append("rest of the block")
    assert done == ["rest of the block"]
    with pytest.raises(KeyboardInterrupt):
        with interrupts.deferred():
            _signal_self(signal.SIGINT)
            done.append("again")
    assert done == ["rest of the block", "again"]
    with interrupts.deferred():
        pass  # nothing held: nothing raised, handlers as they were
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


_POPEN = {"spawn": "multiprocessing.popen_spawn_posix", "forkserver": "multiprocessing.popen_forkserver"}


def test_sigterm_while_a_worker_starts_leaves_it_recorded(sigterm_raises: None, monkeypatch: pytest.MonkeyPatch) -> None:
    ctx = multiprocessing.get_context(POOL_START_METHOD)
    popen = importlib.import_module(_POPEN[POOL_START_METHOD]).Popen
    launch = popen._launch

    def launch_then_signal(self, process_obj):  # type: ignore[no-untyped-def]
        launch(self, process_obj)  # started and handed its pickled state: not yet in the pool
        _signal_self()

    monkeypatch.setattr(popen, "_launch", launch_then_signal)
    pool = _Pool(1, mp_context=ctx)
    try:
        with pytest.raises(Stop):
            pool.submit(os.getpid)
        processes = dict(pool._processes)  # noqa: SLF001
        assert len(processes) == 1  # recorded, so shutdown joins it
    finally:
        monkeypatch.undo()
        pool.shutdown(wait=True, cancel_futures=True)
    assert all(p.exitcode is not None for p in processes.values())
