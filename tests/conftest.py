pytest_plugins = ["tests.fx_s3", "tests.fx_archiver"]


import os as _os
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
