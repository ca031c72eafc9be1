"""Operations, as a scheduler runs the collector: one run at a time (a second one exits 0 saying
so; a holder that died blocks nothing), JSON logs with no progress bar drawn into them, failed
runs counted in the metrics even when they stop before they start, and a state dir that
cannot be used reported in one line. A file:// store; the Claude Code sample home follows the seeds."""

from __future__ import annotations

import contextlib
import io
import json
import logging
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import pytest

from archiver.cli import main
from archiver.demo.claude_sample import make_claude_home
from archiver.lock import RunLock
from archiver.metrics import parse
from tests.fx_home import USER, Box, box  # noqa: F401


class FakeTTY(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture
def keep_logging() -> Iterator[None]:
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)


def _run(box: Box, *args: str, stdout: io.StringIO | None = None,  # noqa: F811
         stderr: io.StringIO | None = None) -> tuple[int, str, str]:
    out, errs = stdout or io.StringIO(), stderr or io.StringIO()
    argv = [args[0], "--config", str(box.config), *args[1:]]
    if args[0] not in ("sync", "status"):
        argv += ["--identity", str(box.base / "keys" / "identity.txt")]
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(errs):
        code = main(argv)
    return code, out.getvalue(), errs.getvalue()


def _metrics(path: Path) -> dict[str, float]:
    return {n + (json.dumps(lab, sort_keys=True) if lab else ""): v for n, lab, v in parse(path.read_text())}


def _snapshots(box: Box) -> list[Path]:  # noqa: F811
    return sorted((box.base / "store").rglob("*.json.age"))


# ---------------------------------------------------------------- one run at a time
def test_a_second_run_exits_0_saying_so_and_a_dead_holder_blocks_nothing(box: Box) -> None:  # noqa: F811
    box.only("claude-code")
    make_claude_home(box.home, USER)
    state = box.base / "state"
    state.mkdir(mode=0o700)
    lock = RunLock(state / "lock")
    lock.acquire()
    try:
        code, out, errs = _run(box, "sync", "--workers", "1", "--log-format", "human")
        assert (code, out) == (0, f"another sync is running (pid {os.getpid()} holds {state / 'lock'}); nothing to do\n")
        code, out, errs = _run(box, "sync", "--workers", "1")  # stderr is no terminal: one JSON record, no text
        assert (code, out) == (0, "") and json.loads(errs)["skipped"] is True
        code, out, _ = _run(box, "sync", "--json", "--workers", "1")
        assert code == 0 and json.loads(out) == {"skipped": True, "reason": f"pid {os.getpid()} holds {state / 'lock'}"}
        assert _snapshots(box) == []
    finally:
        lock.release()

    # a run killed while holding the lock (SIGKILL: no clean-up) leaves its pid in the file, not a lock
    holder = subprocess.run(
        [sys.executable, "-c", "import os, signal, sys; from pathlib import Path; from archiver.lock import RunLock; "
         "RunLock(Path(sys.argv[1])).acquire(); os.kill(os.getpid(), signal.SIGKILL)", str(state / "lock")],
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}, check=False)
    assert holder.returncode == -signal.SIGKILL
    assert (state / "lock").read_text().strip().isdigit() and (state / "lock").read_text() != str(os.getpid())
    code, out, _ = _run(box, "sync", "--json", "--workers", "1")
    assert code == 0 and json.loads(out)["snapshot"] and len(_snapshots(box)) == 1
    assert (state / "lock").read_text() == str(os.getpid())  # this run held it
    status = json.loads(_run(box, "status", "--json")[1])
    assert status["running"] is False and status["last_run"]["result"] == "ok"


# ---------------------------------------------------------------- logs and progress
def test_json_logs_on_a_terminal_get_no_progress_bar(box: Box, keep_logging: None,  # noqa: F811
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    box.only("claude-code")
    make_claude_home(box.home, USER)
    monkeypatch.setenv("TERM", "xterm-256color")
    for var in ("NO_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "FORCE_COLOR"):
        monkeypatch.delenv(var, raising=False)
    tty = FakeTTY()
    monkeypatch.setattr(sys, "stderr", tty)
    code, out, _ = _run(box, "sync", "--log-format", "json", "--workers", "1", stderr=tty)
    assert code == 0 and out.startswith("sessions: ")
    lines = tty.getvalue().splitlines()
    assert lines and "\x1b" not in tty.getvalue()
    records = [json.loads(line) for line in lines]  # every line a record: nothing else on stderr
    assert any(r["msg"] == "sync finished" for r in records)

    # verify's bar too: never with JSON logs, and never on stdout
    tty2, out_tty = FakeTTY(), FakeTTY()
    monkeypatch.setattr(sys, "stderr", tty2)
    code, out, errs = _run(box, "verify", "--read-data", "--log-format", "json", stdout=out_tty, stderr=tty2)
    assert code == 0 and errs == "" and out.endswith(" read: ok\n") and "\x1b" not in out
    tty3, out_tty3 = FakeTTY(), FakeTTY()
    monkeypatch.setattr(sys, "stderr", tty3)
    code, out, errs = _run(box, "verify", "--read-data", "--log-format", "human", stdout=out_tty3, stderr=tty3)
    assert code == 0 and "\x1b" not in out and out.count("\n") == 1 and out.endswith(" read: ok\n")


# ---------------------------------------------------------------- metrics of runs that fail early
def test_a_run_that_stops_before_it_starts_is_a_failure_in_the_metrics(box: Box) -> None:  # noqa: F811
    box.only("claude-code")
    make_claude_home(box.home, USER)
    prom = box.base / "metrics" / "archiver.prom"
    recipient = box.base / "keys" / "recipient.txt"
    saved = recipient.read_bytes()
    recipient.unlink()  # e.g. a config management run that has not placed the key yet
    code, _, errs = _run(box, "sync", "--metrics-file", str(prom), "--workers", "1")
    assert code == 2 and "recipient" in errs
    m = _metrics(prom)
    assert m["archiver_last_run_success"] == 0 and m["archiver_failures_total"] == 1
    assert m["archiver_last_success_timestamp_seconds"] == 0  # present: a staleness alert fires for it
    recipient.write_bytes(saved)
    code, _, errs = _run(box, "sync", "--metrics-file", str(prom), "--workers", "0")
    assert code == 2 and "--workers" in errs and _metrics(prom)["archiver_failures_total"] == 2
    code, _, _ = _run(box, "sync", "--metrics-file", str(prom), "--workers", "1")
    m = _metrics(prom)
    assert code == 0 and m["archiver_last_run_success"] == 1 and m["archiver_failures_total"] == 2
    assert m["archiver_last_success_timestamp_seconds"] > 0 and m['archiver_sessions{"state": "failed"}'] == 0
    # a skipped run (another holds the lock) is no failure and leaves the file as it was
    before = prom.read_bytes()
    lock = RunLock(box.base / "state" / "lock")
    lock.acquire()
    try:
        assert _run(box, "sync", "--metrics-file", str(prom), "--workers", "1")[0] == 0
    finally:
        lock.release()
    assert prom.read_bytes() == before


def test_a_state_dir_that_cannot_be_used_is_one_line(box: Box) -> None:  # noqa: F811
    box.only("claude-code")
    make_claude_home(box.home, USER)
    (box.base / "state").write_text("not a folder\n")
    prom = box.base / "archiver.prom"
    code, out, errs = _run(box, "sync", "--metrics-file", str(prom), "--json", "--workers", "1")
    assert code == 1 and json.loads(out)["failed"] is True
    assert errs.startswith(f"archiver: state dir {box.base / 'state'}: ") and errs.count("\n") == 1
    assert "Traceback" not in errs and _metrics(prom)["archiver_failures_total"] == 1
    assert _snapshots(box) == []
