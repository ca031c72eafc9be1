"""Operations: `status` after a real sync, the Prometheus textfile, `doctor` on good and
bad set-ups, JSON log lines, and the progress callback."""

from __future__ import annotations

import io
import json
import logging
import os
import shutil
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from archiver.demo.claude_sample import make_claude_home
from archiver.lock import RunLock
from archiver.metrics import parse, read_previous, render, write_metrics
from tests.fx_archiver import USER, Env, env  # noqa: F401  (fixture)


def _iso(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def _checks(doc: dict) -> dict[str, dict]:
    return {c["check"]: c for c in doc["checks"]}


def _reviewer_keys_away(env: Env) -> None:  # noqa: F811
    """keygen writes identity.txt next to team.key; a collector must not keep it."""
    away = env.base / "reviewer"
    away.mkdir()
    shutil.move(str(env.identity), str(away / "identity.txt"))


# ---------------------------------------------------------------- status
def test_status_before_and_after_sync(env: Env) -> None:  # noqa: F811
    before = env.cli_json("status")
    assert before["last_run"] is None and before["running"] is False
    assert before["runs_recorded"] == 0

    make_claude_home(env.home, USER)
    sync = env.cli_json("sync")
    doc = env.cli_json("status")
    last = doc["last_run"]
    assert last["result"] == "ok"
    assert last["sessions"] == sync["sessions"]
    assert last["bytes"] == sync["bytes"]
    assert last["snapshot"] == sync["snapshot"]
    assert last["errors"] == []
    assert doc["last_success"] == last["finished"]
    assert _iso(doc["next_due"]) - _iso(last["finished"]) == timedelta(hours=1)
    assert doc["overdue"] is False and doc["runs_recorded"] == 1

    env.cli_json("sync")  # nothing changed: still recorded as a run
    doc2 = env.cli_json("status", "--interval", "30m")
    assert doc2["runs_recorded"] == 2
    assert doc2["last_run"]["sessions"]["unchanged"] == sync["sessions"]["total"]
    assert doc2["last_run"]["bytes"]["uploaded"] == 0
    assert _iso(doc2["next_due"]) - _iso(doc2["last_run"]["finished"]) == timedelta(minutes=30)

    code, text = env.cli("status")
    assert code == 0 and "last run:" in text and "next due:" in text
    assert env.cli("status", "--interval", "soon")[0] == 2


def test_status_sees_a_running_sync(env: Env) -> None:  # noqa: F811
    state = env.base / "state"
    state.mkdir(mode=0o700)
    lock = RunLock(state / "lock")
    lock.acquire()
    try:
        doc = env.cli_json("status")
        assert doc["running"] is True and doc["running_pid"] == str(os.getpid())
    finally:
        lock.release()
    assert env.cli_json("status")["running"] is False


# ---------------------------------------------------------------- metrics
def _samples(text: str) -> dict[tuple[str, tuple], float]:
    return {(n, tuple(sorted(labels.items()))): v for n, labels, v in parse(text)}


def test_metrics_file_from_a_sync(env: Env) -> None:  # noqa: F811
    make_claude_home(env.home, USER)
    started = time.time()
    result = env.cli_json("sync")
    finished = time.time()
    prom = env.base / "textfile" / "archiver.prom"
    write_metrics(prom, result, started=started, finished=finished)
    assert oct(prom.stat().st_mode & 0o777) == "0o644"
    assert [p.name for p in prom.parent.iterdir()] == ["archiver.prom"]  # no temp file left
    s = _samples(prom.read_text())
    assert s[("archiver_last_success_timestamp_seconds", ())] == pytest.approx(finished, abs=1e-3)
    assert s[("archiver_last_run_timestamp_seconds", ())] == pytest.approx(finished, abs=1e-3)
    assert s[("archiver_run_duration_seconds", ())] == pytest.approx(finished - started, abs=1e-3)
    for state in ("total", "uploaded", "unchanged", "failed"):
        assert s[("archiver_sessions", (("state", state),))] == result["sessions"][state]
    assert s[("archiver_bytes", (("kind", "read"),))] == result["bytes"]["read"]
    assert s[("archiver_bytes", (("kind", "uploaded"),))] == result["bytes"]["uploaded"] > 0
    assert result["redactions"]
    for rule, n in result["redactions"].items():
        assert s[("archiver_redactions_total", (("rule", rule),))] == n
    assert s[("archiver_failures_total", ())] == 0
    assert s[("archiver_last_run_success", ())] == 1

    # a failing run: counters go on, the last success time is kept
    bad = {"sessions": {"total": 3, "uploaded": 0, "unchanged": 2, "failed": 1}, "bytes": {"read": 10, "uploaded": 0},
           "redactions": {next(iter(result["redactions"])): 2}, "errors": ["claude-code:x: held back"]}
    write_metrics(prom, bad, started=finished + 10, finished=finished + 20)
    s2 = _samples(prom.read_text())
    assert s2[("archiver_last_success_timestamp_seconds", ())] == pytest.approx(finished, abs=1e-3)
    assert s2[("archiver_last_run_timestamp_seconds", ())] == pytest.approx(finished + 20, abs=1e-3)
    assert s2[("archiver_failures_total", ())] == 1
    assert s2[("archiver_last_run_success", ())] == 0
    assert s2[("archiver_sessions", (("state", "failed"),))] == 1
    rule = next(iter(result["redactions"]))
    assert s2[("archiver_redactions_total", (("rule", rule),))] == result["redactions"][rule] + 2


def test_metrics_text_format() -> None:
    text = render({"sessions": {"total": 1}, "bytes": {}, "redactions": {'we"ird\\rule\n': 1}, "errors": []},
                  started=100.0, finished=101.5)
    lines = text.splitlines()
    names = {ln.split()[2] for ln in lines if ln.startswith("# TYPE")}
    assert {"archiver_sessions", "archiver_bytes", "archiver_redactions_total", "archiver_failures_total",
            "archiver_run_duration_seconds", "archiver_last_success_timestamp_seconds",
            "archiver_last_run_timestamp_seconds"} <= names
    assert 'archiver_redactions_total{rule="we\\"ird\\\\rule\\n"} 1' in lines
    assert "archiver_run_duration_seconds 1.5" in lines
    assert [v for n, lab, v in parse(text) if n == "archiver_redactions_total"] == [1.0]
    assert read_previous(Path("/nonexistent/x.prom")).last_success is None
    # a run that died before a result: timestamps and failure only
    died = render(None, started=1.0, finished=2.0)
    assert "archiver_sessions" not in died and "archiver_failures_total 1" in died.splitlines()


# ---------------------------------------------------------------- doctor
def test_doctor_good_setup(env: Env) -> None:  # noqa: F811
    _reviewer_keys_away(env)
    make_claude_home(env.home, USER)
    doc = env.cli_json("doctor")
    checks = _checks(doc)
    assert doc["ok"] is True, doc
    for name in ("config", "team key", "recipients", "identity not on collector", "bucket", "list prefix",
                 "archive marker", "harness claude-code", "redaction terms"):
        assert checks[name]["status"] == "ok", checks[name]
    assert checks["clock"]["status"] in ("ok", "skip")
    assert checks["harness codex"]["status"] == "skip"  # no ~/.codex in this home
    code, text = env.cli("doctor")
    assert code == 0 and "archiver doctor" in text


def test_doctor_bad_setup(env: Env) -> None:  # noqa: F811
    (env.keys / "team.key").chmod(0o644)  # world-readable team key
    doc = env.cli_json("doctor", expect=2)
    checks = _checks(doc)
    assert doc["ok"] is False
    assert checks["team key"]["status"] == "fail" and "0644" in checks["team key"]["detail"]
    assert checks["identity not on collector"]["status"] == "warn"  # keygen left identity.txt here
    assert "identity.txt" in checks["identity not on collector"]["detail"]
    assert checks["harnesses"]["status"] == "warn"  # empty home
    assert checks["redaction terms"]["status"] == "ok"

    # a generic or very short username is matched in home paths only: the operator is told
    env.config.write_text(env.config.read_text().replace(f'usernames = ["{USER}"]', 'usernames = ["admin", "al"]'))
    terms = [c for c in env.cli_json("doctor", expect=2)["checks"] if c["check"] == "redaction terms"]
    assert [c["status"] for c in terms] == ["warn", "warn"]
    assert "['admin']" in terms[0]["detail"] and "['al']" in terms[1]["detail"]
    env.config.write_text(env.config.read_text().replace('usernames = ["admin", "al"]', f'usernames = ["{USER}"]'))
    # a username that is an everyday word is matched where an account shows, not as a word
    env.config.write_text(env.config.read_text().replace(f'usernames = ["{USER}"]', 'usernames = ["max"]'))
    terms = [c for c in env.cli_json("doctor", expect=2)["checks"] if c["check"] == "redaction terms"]
    assert [c["status"] for c in terms] == ["warn"] and "['max']" in terms[0]["detail"], terms
    env.config.write_text(env.config.read_text().replace('usernames = ["max"]', f'usernames = ["{USER}"]'))
    # so is a short real name (matched as written) and a first name that is a word (never alone)
    env.config.write_text(env.config.read_text().replace(f'usernames = ["{USER}"]',
                                                         f'usernames = ["{USER}"]\nnames = ["Al", "Will Sorensen"]'))
    terms = [c for c in env.cli_json("doctor", expect=2)["checks"] if c["check"] == "redaction terms"]
    assert [c["status"] for c in terms] == ["warn", "warn"]
    assert "['Al']" in terms[0]["detail"] and "['Will Sorensen']" in terms[1]["detail"]
    env.config.write_text(env.config.read_text().replace('\nnames = ["Al", "Will Sorensen"]', ""))

    (env.keys / "team.key").chmod(0o600)
    env.config.write_text(env.config.read_text().replace(f"s3://{env.bucket}/", "s3://no-such-bucket-xyz/"))
    checks = _checks(env.cli_json("doctor", expect=2))
    assert checks["team key"]["status"] == "ok"
    assert checks["bucket"]["status"] == "fail" and "no such bucket" in checks["bucket"]["detail"]


def test_doctor_object_lock_and_clock(env: Env, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    _reviewer_keys_away(env)
    env.write_config()
    env.config.write_text(env.config.read_text().replace(
        "[state]", 'object_lock_mode = "GOVERNANCE"\nobject_lock_days = 30\n\n[state]'))
    checks = _checks(env.cli_json("doctor", expect=2))
    assert checks["object lock"]["status"] == "fail"
    assert checks["versioning"]["status"] == "fail"

    env.write_config()
    import archiver.commands.ops as ops

    real = time.time
    monkeypatch.setattr(ops, "time", type("T", (), {"time": staticmethod(lambda: real() + 3600)}))
    checks = _checks(env.cli_json("doctor", expect=2))
    if checks["clock"]["status"] != "skip":  # the server sent a Date header
        assert checks["clock"]["status"] == "fail" and "ahead" in checks["clock"]["detail"]


def test_doctor_broken_config(tmp_path: Path) -> None:
    from tests.fx_archiver import main

    cfg = tmp_path / "config.toml"
    cfg.write_text("[store]\nnot_a_key = 1\n")
    buf = io.StringIO()
    import contextlib

    with contextlib.redirect_stdout(buf):
        code = main(["doctor", "--config", str(cfg), "--json"])
    doc = json.loads(buf.getvalue())
    assert code == 2 and doc["checks"][0]["check"] == "config" and doc["checks"][0]["status"] == "fail"
    assert "not_a_key" in doc["checks"][0]["detail"]


# ---------------------------------------------------------------- logs
@pytest.fixture
def restore_logging():
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)


def test_json_log_lines(restore_logging: None) -> None:
    from archiver.logs import MAX_MESSAGE_CHARS, setup_logging

    out = io.StringIO()
    setup_logging("json", stream=out)
    log = logging.getLogger("archiver.sync")
    log.info("uploaded %d objects", 3, extra={"session": "claude-code:abc", "bytes": 1234})
    log.warning("x" * (MAX_MESSAGE_CHARS + 500))
    try:
        raise ValueError("boom")
    except ValueError:
        log.exception("upload failed")
    logging.getLogger("botocore").info("chatter")  # libraries stay quiet
    lines = [json.loads(ln) for ln in out.getvalue().splitlines()]
    assert len(lines) == 3
    first = lines[0]
    assert first["level"] == "info" and first["logger"] == "archiver.sync" and first["msg"] == "uploaded 3 objects"
    assert first["session"] == "claude-code:abc" and first["bytes"] == 1234
    assert _iso(first["ts"]).tzinfo is not None
    assert len(lines[1]["msg"]) < MAX_MESSAGE_CHARS + 50 and lines[1]["msg"].endswith("(500 more chars)")
    assert lines[2]["exc_type"] == "ValueError" and "boom" in lines[2]["exc"]

    quiet = io.StringIO()
    setup_logging("json", quiet=True, stream=quiet)  # replaces the handler installed above
    log.info("not shown")
    log.warning("shown")
    assert [json.loads(ln)["msg"] for ln in quiet.getvalue().splitlines()] == ["shown"]
    assert out.getvalue().count("\n") == 3  # the old handler is gone

    human = io.StringIO()
    setup_logging("human", stream=human)
    log.info("hello")
    assert "INFO" in human.getvalue() and "archiver.sync: hello" in human.getvalue()

    auto = io.StringIO()  # not a TTY -> JSON
    setup_logging("auto", stream=auto)
    log.info("auto")
    assert json.loads(auto.getvalue())["msg"] == "auto"



def test_errors_are_json_records_with_log_format_json(tmp_path: Path, restore_logging: None,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """A collector run by a scheduler with `--log-format json`: its stderr parses line by line,
    errors included; without the flag an error is one plain `archiver: ...` line."""
    from tests.fx_archiver import main

    cfg = tmp_path / "config.toml"
    cfg.write_text("[store]\nnot_a_key = 1\n")
    assert main(["sync", "--config", str(cfg), "--log-format", "json"]) == 2
    lines = [json.loads(ln) for ln in capsys.readouterr().err.splitlines()]
    assert lines and lines[-1]["level"] == "error" and "not_a_key" in lines[-1]["msg"]
    assert main(["sync", "--config", str(cfg), "--log-format", "human"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("archiver: ") and "not_a_key" in err

# ---------------------------------------------------------------- progress
def test_progress_callback() -> None:
    from rich.console import Console

    from archiver.progress import NullProgress, SyncProgress, make_progress

    assert isinstance(make_progress(stream=io.StringIO()), NullProgress)  # not a TTY
    assert isinstance(make_progress(quiet=True, force=True), NullProgress)
    assert isinstance(make_progress(json_output=True, force=True), NullProgress)
    NullProgress()("session", 1)

    sink = io.StringIO()
    p = SyncProgress(console=Console(file=sink, force_terminal=True, width=120))
    with p:
        p("total_sessions", 4)
        for _ in range(3):
            p("session", 1)
        p("bytes", 2_500_000)
        p("bytes_read", 10_000_000)
        p("something_new", 7)  # unknown events are ignored
    task = p.progress.tasks[0]
    assert (task.total, task.completed) == (4, 3)
    assert p.bytes_uploaded == 2_500_000 and "uploaded 2.5 MB" in task.fields["extra"]
    assert "3/4" in sink.getvalue()


def test_demo_with_a_relative_dir_writes_a_config_that_loads(tmp_path: Path) -> None:
    """`archiver demo --dir demo`: the config it writes names absolute paths (a relative one was
    resolved again from the config's own folder: demo/demo/keys/team.key)."""
    import subprocess
    import sys

    from archiver.config import load_settings

    env = {k: v for k, v in os.environ.items() if not k.startswith(("ARCHIVER_", "AWS_"))}
    env["PYTHONPATH"] = str(Path(__file__).resolve().parent.parent)
    proc = subprocess.run([sys.executable, "-m", "archiver", "demo", "--dir", "demo", "--json"], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    settings = load_settings(tmp_path / "demo" / "config.toml")
    assert settings.redaction.team_key_file == tmp_path / "demo" / "keys" / "team.key"
    assert settings.redaction.team_key_file.is_file()
