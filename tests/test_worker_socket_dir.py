"""The worker pool's forkserver socket lives in a short 0700 folder of ours, not in the system
temp dir (workers.pin_socket_dir). Each case runs in a fresh interpreter: multiprocessing fixes
its folder once per process."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

PROGRAM = textwrap.dedent("""
    import json, os, stat, sys, tempfile
    from pathlib import Path
    tempfile.tempdir = sys.argv[2]  # the "system" temp dir, watched by the test
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from archiver.workers import pin_socket_dir

    folder = pin_socket_dir(Path(sys.argv[1]))
    again = pin_socket_dir(Path(sys.argv[1]))
    inside, sockets, mode = [], [], None
    if folder is not None:  # (else the socket would go to the watched folder, too long a path here)
        with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("forkserver")) as pool:
            assert pool.submit(abs, -3).result() == 3
            inside = sorted(p.name for p in folder.iterdir())
            sockets = [p.name for p in folder.iterdir() if stat.S_ISSOCK(p.lstat().st_mode)]
            mode = stat.S_IMODE(folder.stat().st_mode)
    print(json.dumps({"folder": str(folder) if folder else None, "again": again is not None,
                      "inside": inside, "sockets": sockets, "mode": mode,
                      "pid": os.getpid()}))
""")


def _run(parent: Path, systmp: Path) -> dict:
    out = subprocess.run([sys.executable, "-c", PROGRAM, str(parent), str(systmp)], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_the_forkserver_socket_is_in_our_folder_and_the_folder_goes_at_exit(tmp_path: Path) -> None:
    parent = tmp_path / "st" / "tmp"
    systmp = tmp_path / "sys"
    systmp.mkdir()
    stale = parent / "mp-4194999"  # above any pid_max default: a process that cannot be alive
    stale.mkdir(parents=True)
    (stale / "listener-old").write_bytes(b"")
    keep = parent / "run-x"  # a run folder is not ours to touch here
    keep.mkdir()
    got = _run(parent, systmp)
    assert got["folder"] == str(parent / f"mp-{got['pid']}")
    assert got["again"] is False  # fixed once per process
    assert got["mode"] == 0o700
    assert len(got["sockets"]) == 1 and got["sockets"][0].startswith("listener-")
    assert got["inside"] == got["sockets"]
    assert list(systmp.iterdir()) == []  # no pymp-* folder
    assert not (parent / f"mp-{got['pid']}").exists()  # removed when the process ended
    assert not stale.exists()
    assert keep.exists()


def _without_runtime_dir(parent: Path, systmp: Path) -> dict:
    env_free = {k: v for k, v in os.environ.items() if k != "XDG_RUNTIME_DIR"}
    out = subprocess.run([sys.executable, "-c", PROGRAM, str(parent), str(systmp)], cwd=ROOT,
                         capture_output=True, text=True, timeout=120, env=env_free)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_a_path_too_long_for_a_socket_falls_back_to_our_folder_in_the_temp_dir(tmp_path: Path) -> None:
    parent = tmp_path / ("x" * 90) / "tmp"
    systmp = Path(tempfile.mkdtemp(prefix="st-", dir="/tmp"))  # short, as the system's is (not pytest's)
    try:
        got = _without_runtime_dir(parent, systmp)
        ours = systmp / f"archiver-{os.getuid()}"
        assert got["folder"] == str(ours / f"mp-{got['pid']}")
        assert got["mode"] == 0o700 and got["sockets"]
        assert [p.name for p in systmp.iterdir()] == [ours.name]  # no pymp-* folder
        assert list(ours.iterdir()) == []  # mp-<pid> went at exit
        assert not parent.exists()
    finally:
        shutil.rmtree(systmp, ignore_errors=True)


def test_a_planted_temp_folder_is_not_used(tmp_path: Path) -> None:
    parent = tmp_path / ("x" * 90) / "tmp"
    systmp = tmp_path / "sys"
    systmp.mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    (systmp / f"archiver-{os.getuid()}").symlink_to(elsewhere)  # as another user could in /tmp
    got = _without_runtime_dir(parent, systmp)
    assert got["folder"] is None
    assert list(elsewhere.iterdir()) == []
    open_folder = tmp_path / "sys2"
    open_folder.mkdir()
    (open_folder / f"archiver-{os.getuid()}").mkdir(mode=0o777)
    os.chmod(open_folder / f"archiver-{os.getuid()}", 0o777)
    assert _without_runtime_dir(parent, open_folder)["folder"] is None


def test_xdg_runtime_dir_is_the_second_choice(tmp_path: Path) -> None:
    parent = tmp_path / ("x" * 90) / "tmp"
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    systmp = tmp_path / "sys"
    systmp.mkdir()
    out = subprocess.run([sys.executable, "-c", PROGRAM, str(parent), str(systmp)], cwd=ROOT,
                         capture_output=True, text=True, timeout=120,
                         env={**os.environ, "XDG_RUNTIME_DIR": str(runtime)})
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    assert got["folder"] == str(runtime / f"mp-{got['pid']}")
    assert got["sockets"] and list(systmp.iterdir()) == []
    assert list(runtime.iterdir()) == []


REMOVED = textwrap.dedent("""
    import shutil, sys
    from pathlib import Path
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from archiver.workers import pin_socket_dir

    folder = pin_socket_dir(Path(sys.argv[1]))
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("forkserver")) as pool:
        assert pool.submit(abs, -3).result() == 3
    multiprocessing.forkserver._forkserver._stop()  # as when the fork server has gone
    shutil.rmtree(folder)  # a tmp cleaner, or a test's teardown, removes it under the process
    assert pin_socket_dir(Path(sys.argv[1])) is None  # pinned already: made again, not moved
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("forkserver")) as pool:
        assert pool.submit(abs, -4).result() == 4
    print(folder.is_dir())
""")


def test_a_socket_folder_removed_under_the_process_is_made_again(tmp_path: Path) -> None:
    out = subprocess.run([sys.executable, "-c", REMOVED, str(tmp_path / "st" / "tmp")], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "True"
