pytest_plugins = ["tests.fx_s3", "tests.fx_archiver"]


import os as _os
import signal as _signal
import shutil as _shutil
import tempfile as _tempfile
from typing import Iterator as _Iterator

import pytest as _pytest


@_pytest.fixture(scope="session", autouse=True)
def _short_runtime_dir() -> _Iterator[str]:
    """A short 0700 XDG_RUNTIME_DIR for this test process and the CLIs it starts, removed at the end.

    pytest's tmp_path (with xdist's popen-gwN) makes state dirs whose `tmp/mp-<pid>` is too long
    for an AF_UNIX socket, so workers.pin_socket_dir falls back to XDG_RUNTIME_DIR and, without
    one, to multiprocessing's own `pymp-*` folder in the system temp dir. A run the tests SIGKILL
    (crash consistency, sync and storage faults) never removes that folder: 182 were left in /tmp
    in one day. Here the fallback is this folder, and whatever a killed run leaves in it goes
    with it."""
    runtime = _tempfile.mkdtemp(prefix="arx-", dir="/tmp")
    _os.chmod(runtime, 0o700)
    saved = _os.environ.get("XDG_RUNTIME_DIR")
    _os.environ["XDG_RUNTIME_DIR"] = runtime
    try:
        yield runtime
    finally:
        if saved is None:
            _os.environ.pop("XDG_RUNTIME_DIR", None)
        else:
            _os.environ["XDG_RUNTIME_DIR"] = saved
        _shutil.rmtree(runtime, ignore_errors=True)


_WATCHED_SIGNALS = (_signal.SIGINT, _signal.SIGTERM)


@_pytest.fixture(scope="session", autouse=True)
def _signals_as_from_a_terminal() -> _Iterator[None]:
    """SIGINT and SIGTERM delivered and handled as in a terminal, for this test process and the
    CLIs it starts. A non-interactive shell starts a background command (`bash .ci/run &`, a
    scheduler's wrapper) with SIGINT ignored; Python then keeps it ignored, and so do pytest's
    workers and every CLI they run: the tests that interrupt a run with SIGINT failed so in CI
    (session 22)."""
    if _signal.getsignal(_signal.SIGINT) == _signal.SIG_IGN:
        _signal.signal(_signal.SIGINT, _signal.default_int_handler)
    _signal.pthread_sigmask(_signal.SIG_UNBLOCK, _WATCHED_SIGNALS)
    yield


def _signal_state() -> tuple[object, ...]:
    blocked = _signal.pthread_sigmask(_signal.SIG_BLOCK, [])
    return tuple(_signal.getsignal(s) for s in _WATCHED_SIGNALS) + (
        frozenset(s for s in _WATCHED_SIGNALS if s in blocked),
    )


@_pytest.fixture(autouse=True)
def _signals_left_as_found(request: _pytest.FixtureRequest) -> _Iterator[None]:
    """Every test ends with SIGINT/SIGTERM handled and unblocked as it found them.

    A test that leaves the state changed fails here, by name, and the state is put back so the
    tests after it are not hit."""
    before = _signal_state()
    yield
    after = _signal_state()
    if after == before:
        return
    for signum, handler in zip(_WATCHED_SIGNALS, before[: len(_WATCHED_SIGNALS)]):
        if handler is not None:
            _signal.signal(signum, handler)
    mask = _signal.pthread_sigmask(_signal.SIG_BLOCK, [])
    _signal.pthread_sigmask(_signal.SIG_SETMASK, (mask - set(_WATCHED_SIGNALS)) | set(before[-1]))  # type: ignore[arg-type]
    _pytest.fail(f"{request.node.nodeid} left the signal state changed: {before!r} -> {after!r}")
