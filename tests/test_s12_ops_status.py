"""`archiver status` and --metrics-file after runs that fail before they start (bad key file,
unusable state database, store unreachable at start), and the "another sync is running" exit as
a structured log record. The real CLI, a generated home (the Claude sample, which follows the
seeds) and a file:// store."""

from __future__ import annotations

import contextlib
import io
import json
import os
import socket
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from archiver.cli import main
from archiver.demo.claude_sample import make_claude_home
from archiver.lock import RunLock
from archiver.metrics import parse
from tests.fx_home import isolate_env

ROOT = Path(__file__).resolve().parent.parent
USER = "alice"


@dataclass
class Box:
    base: Path
    home: Path
    keys: Path
    state: Path
    store: Path
    metrics: Path

    def config(self, name: str = "config.toml", *, team_key: Path | None = None, store_url: str | None = None,
               store_extra: str = "") -> Path:
        path = self.base / name
        path.write_text(
            f'home = "{self.home}"\nhost = "ops-box"\n\n'
            f'[redaction]\nteam_key_file = "{team_key or self.keys / "team.key"}"\nusernames = ["{USER}"]\n\n'
            f'[encryption]\nrecipients_file = "{self.keys / "recipient.txt"}"\n\n'
            f'[store]\nurl = "{store_url or f"file://{self.store}"}"\n{store_extra}\n'
            f'[state]\ndir = "{self.state}"\n')
        return path

    def cli(self, *argv: str) -> tuple[int, Any]:
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            code = main([*argv, "--json"])
        out = buf.getvalue()
        return code, json.loads(out) if out.strip() else None

    def metric(self, name: str) -> float | None:
        values = [v for n, _, v in parse(self.metrics.read_text()) if n == name]
        return values[0] if values else None


@pytest.fixture
def box(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Box:
    isolate_env(monkeypatch)
    b = Box(tmp_path, tmp_path / "home", tmp_path / "keys", tmp_path / "state", tmp_path / "store",
            tmp_path / "metrics" / "archiver.prom")
    b.home.mkdir()
    make_claude_home(b.home, USER)
    assert main(["keygen", "--out", str(b.keys)]) == 0
    return b


def _good_run(box: Box, cfg: Path) -> dict:
    code, doc = box.cli("sync", "--config", str(cfg), "--workers", "1", "--metrics-file", str(box.metrics))
    assert code == 0, doc
    status = box.cli("status", "--config", str(cfg))[1]
    assert status["last_run"]["result"] == "ok" and status["last_run"]["aborted"] is False
    assert not (box.state / "last-failure.json").exists()
    return status


def test_a_run_that_fails_on_its_key_file_shows_in_status_and_metrics(box: Box) -> None:
    good = box.config()
    first = _good_run(box, good)
    assert box.metric("archiver_failures_total") == 0 and box.metric("archiver_last_run_success") == 1

    missing = box.keys / "team.key.gone"
    bad = box.config("bad.toml", team_key=missing)
    code, _ = box.cli("sync", "--config", str(bad), "--metrics-file", str(box.metrics))
    assert code == 2

    doc = box.cli("status", "--config", str(bad))[1]
    last = doc["last_run"]
    assert last["result"] == "failed" and last["aborted"] is True, doc
    assert last["run_id"] is None and last["snapshot"] is None
    assert len(last["errors"]) == 1 and str(missing) in last["errors"][0]
    assert last["finished"] >= first["last_run"]["finished"]
    assert doc["last_success"] == first["last_success"]  # the good run is still the last success
    assert doc["runs_recorded"] == 1
    note = json.loads((box.state / "last-failure.json").read_text())
    assert note["result"] == "failed" and note["errors"] == last["errors"]
    assert oct((box.state / "last-failure.json").stat().st_mode & 0o777) == "0o600"
    # the metrics agree: one failure, last run not a success, last success carried forward
    assert box.metric("archiver_failures_total") == 1 and box.metric("archiver_last_run_success") == 0
    assert box.metric("archiver_last_success_timestamp_seconds") is not None

    code, text = _human(["status", "--config", str(bad)])
    assert code == 0 and "result: failed" in text and "before it could record" in text

    after = _good_run(box, good)  # the next good run supersedes the note
    assert after["last_run"]["run_id"] and after["runs_recorded"] == 2
    assert box.metric("archiver_failures_total") == 1 and box.metric("archiver_last_run_success") == 1


def test_a_store_unreachable_at_start_shows_in_status(box: Box, monkeypatch: pytest.MonkeyPatch) -> None:
    good = box.config()
    _good_run(box, good)
    for p in sorted((box.home / ".claude" / "projects").rglob("*.jsonl"))[:1]:
        with p.open("a") as f:  # a change, so the run has to open the store
            f.write('{"type":"user","message":{"role":"user","content":"more"}}\n')
    with socket.socket() as s:  # a loopback port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    bad = box.config("unreachable.toml", store_url="s3://no-bucket/p",
                     store_extra=f'endpoint_url = "http://127.0.0.1:{port}"\nregion = "us-east-1"\n')
    code, _ = box.cli("sync", "--config", str(bad), "--workers", "1", "--metrics-file", str(box.metrics))
    assert code == 1
    last = box.cli("status", "--config", str(bad))[1]["last_run"]
    assert last["result"] == "failed" and last["aborted"] is True
    assert last["errors"] and last["errors"][0].startswith("store: "), last
    assert f"127.0.0.1:{port}" in last["errors"][0]
    assert box.metric("archiver_failures_total") == 1 and box.metric("archiver_last_run_success") == 0


def test_an_unreadable_state_database_shows_in_status(box: Box) -> None:
    good = box.config()
    _good_run(box, good)
    db = box.state / "state.db"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    db.mkdir()  # SQLite cannot open it: an environment error, not a cache to rebuild
    code, doc = box.cli("sync", "--config", str(good), "--workers", "1")
    assert code == 1 and doc["failed"] is True
    status = box.cli("status", "--config", str(good))[1]  # status does not crash on it either
    assert status["last_run"]["result"] == "failed" and status["last_run"]["aborted"] is True
    assert str(db) in status["last_run"]["errors"][0]
    assert "state_error" in status and db.is_dir()  # reported, and nothing moved by status


def _human(argv: list[str]) -> tuple[int, str]:
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        code = main(argv)
    return code, buf.getvalue()


# ---------------------------------------------------------------- another sync running
def _sync_proc(cfg: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "archiver", "sync", "--config", str(cfg), *extra],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("fmt", ["json", "auto"])  # auto: stderr is a pipe here, so JSON too
def test_another_sync_running_is_one_json_log_record(box: Box, fmt: str) -> None:
    cfg = box.config()
    box.state.mkdir(mode=0o700)
    lock = RunLock(box.state / "lock")
    lock.acquire()
    try:
        out = _sync_proc(cfg, "--log-format", fmt)
        quiet = _sync_proc(cfg, "--log-format", fmt, "--quiet")
    finally:
        lock.release()
    for run in (out, quiet):
        assert run.returncode == 0, run.stderr
        assert run.stdout == ""  # stdout carries no plain text
        lines = run.stderr.splitlines()
        assert len(lines) == 1, run.stderr
        rec = json.loads(lines[0])
        assert rec["level"] == "warning" and rec["logger"] == "archiver.sync"
        assert rec["msg"] == "another sync is running; nothing to do"
        assert rec["skipped"] is True and rec["running_pid"] == os.getpid()
        assert rec["lock"] == str(box.state / "lock")
    assert not (box.state / "state.db").exists()  # nothing else happened


def test_another_sync_running_human_and_json_output(box: Box) -> None:
    cfg = box.config()
    box.state.mkdir(mode=0o700)
    lock = RunLock(box.state / "lock")
    lock.acquire()
    try:
        human = _sync_proc(cfg, "--log-format", "human")
        doc = _sync_proc(cfg, "--json", "--log-format", "json")
    finally:
        lock.release()
    assert human.returncode == 0 and human.stdout.startswith("another sync is running (pid ")
    assert human.stderr == ""
    assert doc.returncode == 0 and json.loads(doc.stdout) == {
        "skipped": True, "reason": f"pid {os.getpid()} holds {box.state / 'lock'}"}
    assert json.loads(doc.stderr)["skipped"] is True


# ---------------------------------------------------------------- SIGTERM
def _bigger_home(home: Path, sessions: int = 16, lines: int = 2500) -> None:
    for seed in range(1, sessions + 1):
        s = make_claude_home(home, USER, seed=seed)
        with (s.root / "projects" / s.project_key / f"{s.main}.jsonl").open("a") as f:
            for i in range(lines):
                f.write(json.dumps({"type": "user", "uuid": f"{seed}-{i}", "message": {
                    "role": "user", "content": f"line {i} in /home/{USER}/work " + os.urandom(300).hex()}}) + "\n")


def test_sigterm_stops_a_sync_cleanly_and_status_and_metrics_say_so(box: Box) -> None:
    """systemctl stop, TimeoutStartSec= or a Job's activeDeadlineSeconds send SIGTERM: the run
    unwinds (temp folder gone), exits 143, and is a failed run to status and the metrics."""
    _bigger_home(box.home)
    cfg = box.config()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "archiver", "sync", "--config", str(cfg), "--workers", "2",
                             "--log-format", "json", "--metrics-file", str(box.metrics)],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while not list((box.state / "tmp").glob("run-*")) and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert proc.poll() is None, "the sync ended before it could be stopped"
        time.sleep(0.5)  # into the sessions
        proc.send_signal(signal.SIGTERM)
        out, errs = proc.communicate(timeout=60)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 143, errs
    records = [json.loads(line) for line in errs.splitlines()]
    assert records[-1]["level"] == "error" and records[-1]["msg"] == "terminated (SIGTERM)"
    assert not list((box.state / "tmp").glob("run-*"))  # the run's temp folder (plaintext) is gone
    last = box.cli("status", "--config", str(cfg))[1]["last_run"]
    assert last["result"] == "failed" and last["aborted"] and last["errors"] == ["terminated (SIGTERM)"]
    assert box.metric("archiver_failures_total") == 1 and box.metric("archiver_last_run_success") == 0


def test_a_metrics_file_that_cannot_be_written_after_a_good_run(box: Box, capsys: pytest.CaptureFixture[str]) -> None:
    """The run archived and recorded itself; only the monitoring is broken: exit 1 in one line,
    and status still shows the good run (not a failure note)."""
    cfg = box.config()
    blocker = box.base / "blocker"
    blocker.write_bytes(b"")
    code, doc = box.cli("sync", "--config", str(cfg), "--workers", "1", "--metrics-file", str(blocker / "a.prom"))
    assert code == 1 and doc["snapshot"] and doc["sessions"]["failed"] == 0
    assert f"--metrics-file {blocker / 'a.prom'}: cannot write it" in capsys.readouterr().err
    status = box.cli("status", "--config", str(cfg))[1]
    assert status["last_run"]["result"] == "ok" and status["last_run"]["aborted"] is False
    assert not (box.state / "last-failure.json").exists()


def test_a_state_dir_that_is_a_file_shows_in_status(box: Box) -> None:
    """Nothing can be noted in a state dir that is not a folder: status says why instead of
    'no sync has run yet'."""
    box.state.write_bytes(b"")
    cfg = box.config()
    code, doc = box.cli("sync", "--config", str(cfg), "--workers", "1")
    assert code == 1 and doc["failed"] is True and str(box.state) in doc["errors"][0]
    status = box.cli("status", "--config", str(cfg))[1]
    assert status["state_error"] == f"{box.state}: not a folder; sync cannot run"
    code, text = _human(["status", "--config", str(cfg)])
    assert code == 0 and "no sync has run yet" in text


def test_a_metrics_file_the_textfile_collector_would_not_read_is_warned_about(box: Box) -> None:
    cfg = box.config()
    target = box.base / "metrics" / "archiver.txt"
    run = _sync_proc(cfg, "--workers", "1", "--log-format", "json", "--metrics-file", str(target))
    assert run.returncode == 0, run.stderr
    records = [json.loads(line) for line in run.stderr.splitlines()]
    assert records[0]["level"] == "warning"
    assert records[0]["msg"] == f"--metrics-file {target}: node_exporter's textfile collector reads only *.prom files"
    assert "archiver_last_run_success 1" in target.read_text()  # written all the same
