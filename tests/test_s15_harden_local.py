"""What a sync leaves on the local disk, run as a service would be, under umask 000: every
folder it makes under the state dir is 0700 and every file in it 0600; the run's temp folder is
gone after success, after SIGTERM and after SIGINT mid-run; and no canary (username, host name,
planted secret, canary line, title) reaches stdout/stderr (-v, --log-format json), the metrics
file, the lock or the failure note. The state database holds native paths and titles by design
(docs/SECURITY.md §2): its folder must be 0700 and the file 0600, whatever the umask."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from tests.fx_archiver import Env, env  # noqa: F401
from tests.test_no_plaintext_leaks import _forbidden, _plant

# Runs the CLI with umask 000 under an audit hook recording the mode of each file and folder
# created under the state dir (looked at on the next audited event, before the run removes it),
# and, when asked, signals itself in the middle of the run (at the 3rd object put).
RUNNER = textwrap.dedent("""
    import json, os, signal, stat, sys
    log, watch, interrupt, argv = sys.argv[1], os.path.abspath(sys.argv[2]), sys.argv[3], sys.argv[4:]
    # as from a terminal: SIGINT delivered and raising (a test process may pass it on ignored or blocked)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGINT, signal.SIGTERM])
    os.umask(0)
    out = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    busy, pending = [False], set()

    def hook(event, args):
        if busy[0]:
            return
        busy[0] = True
        try:
            for p in list(pending):
                try:
                    st = os.lstat(p)
                except OSError:
                    continue
                pending.discard(p)
                kind = "dir" if stat.S_ISDIR(st.st_mode) else "file" if stat.S_ISREG(st.st_mode) else "other"
                os.write(out, (json.dumps([kind, p, stat.S_IMODE(st.st_mode)]) + "\\n").encode())
            if event in ("open", "os.mkdir") and args and isinstance(args[0], (str, os.PathLike)):
                p = os.path.abspath(os.fspath(args[0]))
                if event == "open":
                    mode, flags = args[1], args[2] or 0
                    if not ((isinstance(mode, str) and any(c in mode for c in "wax+"))
                            or (mode is None and flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT))):
                        return
                if p == watch or p.startswith(watch + "/"):
                    pending.add(p)
        finally:
            busy[0] = False

    sys.addaudithook(hook)
    if interrupt != "none":
        from archiver.archive import Archive
        real, calls = Archive.put_object, [0]

        def put(self, *a, **kw):
            calls[0] += 1
            if calls[0] == 3:
                os.kill(os.getpid(), signal.SIGTERM if interrupt == "term" else signal.SIGINT)
            return real(self, *a, **kw)

        Archive.put_object = put
    from archiver.cli import main
    sys.exit(main(argv))
""")


def _run(e: Env, interrupt: str, *extra: str) -> tuple[subprocess.CompletedProcess[str], list[Any]]:
    log = e.base / f"modes-{interrupt}.jsonl"
    log.unlink(missing_ok=True)
    env_ = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    proc = subprocess.run([sys.executable, "-c", RUNNER, str(log), str(e.base / "state"), interrupt,
                           "sync", "--config", str(e.config), "--workers", "1", *extra],
                          capture_output=True, text=True, timeout=180, env=env_)
    seen = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    return proc, seen


def _loose(seen: list[Any], kinds: tuple[str, ...]) -> list[tuple[str, str, str]]:
    return [(k, p, oct(m)) for k, p, m in seen if k in kinds and m & 0o077]


def _check_private(e: Env, seen: list[Any]) -> None:
    """Folders 0700 while the run lives, the run folder gone, and what is left private. (The
    files inside the run folder: test_temp_files_inside_the_run_folder_are_0600_under_umask_000.)"""
    state = e.base / "state"
    assert stat.S_IMODE(state.stat().st_mode) == 0o700
    assert stat.S_IMODE((state / "tmp").stat().st_mode) == 0o700
    assert [p.name for p in (state / "tmp").glob("run-*")] == []  # removed
    assert seen, "nothing was recorded"
    assert any("/run-" in p for _, p, _ in seen)
    assert _loose(seen, ("dir", "other")) == []
    assert _loose([x for x in seen if "/run-" not in x[1]], ("file",)) == []  # state.db, lock, notes
    for p in state.rglob("*"):  # what is left
        if not p.is_socket():
            assert stat.S_IMODE(p.lstat().st_mode) & 0o077 == 0, (p, oct(p.lstat().st_mode))


def test_a_service_run_with_umask_000_leaves_only_private_files_and_no_plaintext(env: Env) -> None:  # noqa: F811
    s = _plant(env)
    metrics = env.base / "metrics" / "archiver.prom"
    proc, seen = _run(env, "none", "-v", "--log-format", "json", "--metrics-file", str(metrics))
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "DEBUG" in proc.stderr or '"debug"' in proc.stderr.lower()  # it did log
    _check_private(env, seen)
    state = env.base / "state"
    # the state database holds native paths and titles (documented, §2): private, checked above
    outside_db = {"stdout": proc.stdout, "stderr": proc.stderr, "metrics": metrics.read_text()}
    for p in state.rglob("*"):
        if p.is_file() and not p.name.startswith("state.db"):
            outside_db[str(p)] = p.read_bytes().decode("utf-8", "replace")
    for name, text in outside_db.items():
        for word in _forbidden(s):
            assert word not in text, (name, word)


@pytest.mark.parametrize("signal_name", ["term", "int"])
def test_a_run_interrupted_mid_way_leaves_no_temp_files(env: Env, signal_name: str) -> None:  # noqa: F811
    _plant(env)
    proc, seen = _run(env, signal_name)
    assert proc.returncode == (143 if signal_name == "term" else 130), (proc.returncode, proc.stderr[-3000:])
    _check_private(env, seen)


def test_temp_files_inside_the_run_folder_are_0600_under_umask_000(env: Env) -> None:  # noqa: F811
    _plant(env)
    proc, seen = _run(env, "none")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert any("/run-" in p for k, p, _ in seen if k == "file")
    assert _loose(seen, ("file",)) == []


def test_a_loose_state_dir_of_ours_is_tightened_before_the_run_uses_it(env: Env) -> None:  # noqa: F811
    _plant(env)
    state = env.base / "state"
    state.mkdir()
    os.chmod(state, 0o777)  # made by hand, or by a run under umask 000 of an older version
    proc, seen = _run(env, "none")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "0o777" in {oct(m) for k, p, m in seen if p == str(state)}  # as found (mkdir exist_ok)
    assert stat.S_IMODE(state.stat().st_mode) == 0o700  # tightened before the lock is taken in it
    _check_private(env, [x for x in seen if x[1] != str(state)])  # and 0700 from then on


def test_a_state_db_planted_as_a_symlink_or_a_foreign_state_dir_is_refused(tmp_path: Path) -> None:
    from archiver.state import State, StateError

    victim = tmp_path / "victim.txt"
    victim.write_bytes(b"precious\n")
    d = tmp_path / "state"
    d.mkdir(mode=0o700)
    os.symlink(victim, d / "state.db")
    with pytest.raises(StateError, match="not a regular file"):
        State(d / "state.db")
    assert victim.read_bytes() == b"precious\n"
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o1777)
    with pytest.raises(StateError, match="sticky"):
        State(shared / "state.db")
    assert stat.S_IMODE(shared.stat().st_mode) == 0o1777 and not (shared / "state.db").exists()
    if os.geteuid() == 0:  # only root can give a folder to another user
        foreign = tmp_path / "foreign"
        foreign.mkdir(mode=0o755)
        os.chown(foreign, 54321, -1)
        with pytest.raises(StateError, match="another user"):
            State(foreign / "state.db")
        assert not (foreign / "state.db").exists()
