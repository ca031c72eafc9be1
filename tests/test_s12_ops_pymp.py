"""Test runs leave no `pymp-*` folder in the system temp dir.

The cause (found by running the suite's files one by one with TMPDIR pointed at a private folder
and counting `pymp-*` before and after): CLIs that tests start with a state dir under pytest's
tmp_path, whose `tmp/mp-<pid>` is too long for a socket, and then SIGKILL (test_crash_consistency,
test_sync_faults, test_storage_faults). workers.pin_socket_dir then falls back to multiprocessing's
own `pymp-*` folder, which only a clean exit removes. conftest's `_short_runtime_dir` gives every
test process (and what it starts) a short XDG_RUNTIME_DIR, pin_socket_dir's second choice."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

KILLED_RUN = textwrap.dedent("""
    import multiprocessing, os, signal, sys
    from concurrent.futures import ProcessPoolExecutor
    from pathlib import Path
    from archiver.workers import pin_socket_dir

    folder = pin_socket_dir(Path(sys.argv[1]))  # a state dir's tmp/ as deep as pytest makes them
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("forkserver")) as pool:
        assert pool.submit(abs, -3).result() == 3
        print(folder, flush=True)
        os.kill(os.getpid(), signal.SIGKILL)  # as the crash tests kill a sync mid-run
""")


def test_a_killed_run_under_a_deep_state_dir_leaves_no_pymp_folder(tmp_path: Path) -> None:
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    assert runtime and len(runtime) < 40 and Path(runtime).is_dir()  # conftest's, for this session
    systmp = tmp_path / "systmp"  # the system temp dir, as the killed process sees it
    systmp.mkdir()
    deep = tmp_path / ("popen-gw0-" + "x" * 60) / "state" / "tmp"
    before = sorted(p.name for p in systmp.iterdir())
    proc = subprocess.Popen([sys.executable, "-c", KILLED_RUN, str(deep)], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True,
                            env={**os.environ, "TMPDIR": str(systmp), "PYTHONPATH": str(ROOT)})
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        code = proc.wait(timeout=120)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)  # its forkserver, worker and resource tracker too
        _, errs = proc.communicate(timeout=60)
    assert code == -signal.SIGKILL, errs
    folder = Path(line.strip())
    assert folder.parent == Path(runtime) and folder.name.startswith("mp-"), (line, errs)
    after = sorted(p.name for p in systmp.iterdir())
    assert before == after == [], after  # no pymp-*: the socket folder was the runtime dir's
    assert not deep.exists()  # too long a path: not used, not made


def test_the_runtime_dir_is_private() -> None:
    runtime = Path(os.environ["XDG_RUNTIME_DIR"])
    assert runtime.stat().st_mode & 0o777 == 0o700 and runtime.stat().st_uid == os.getuid()
