"""Black-box audit of the operator contract (DESIGN.md "CLI contract", README "Scheduling and
operations", issue 7's Operations list): every check runs the real CLI in a subprocess
(`python -m archiver`) against moto's S3 on 127.0.0.1 and asserts on bytes and values.

Sessions are Claude Code transcripts generated here from seeds/by-harness/claude-code.json
(user/assistant records with the envelope fields, a custom-title record)."""

from __future__ import annotations

import json
import math
import os
import pty
import re
import select
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.fx_archiver import USER, Env, env  # noqa: F401  (fixture)
from tests.fx_s3 import s3_bucket_url, s3_server  # noqa: F401  (fixtures)

REPO = Path(__file__).resolve().parent.parent
CANARY = "ZEBRAQUOKKA7391canary"  # session plaintext that must never reach a log line
CWD = f"/home/{USER}/work/app"
PROJECT_KEY = re.sub(r"[^A-Za-z0-9]", "-", CWD)
MAIN_SID = "6f1c2a9e-3b4d-4e5f-8a7b-1c2d3e4f5a6b"


# ---------------------------------------------------------------- fixtures built from the seeds
def write_claude_session(home: Path, sid: str, prompt: str, title: str | None = None) -> Path:
    """~/.claude/projects/<project-key>/<sid>.jsonl: a user prompt and an assistant answer."""
    folder = home / ".claude" / "projects" / PROJECT_KEY
    folder.mkdir(parents=True, exist_ok=True)
    user_uuid, assistant_uuid = str(uuid.uuid4()), str(uuid.uuid4())
    envelope = {"isSidechain": False, "sessionId": sid, "cwd": CWD, "version": "2.1.0",
                "entrypoint": "cli", "gitBranch": "main", "userType": "external"}
    records: list[dict[str, Any]] = [
        {**envelope, "type": "user", "uuid": user_uuid, "parentUuid": None,
         "timestamp": "2026-01-01T00:00:00.000Z", "message": {"role": "user", "content": prompt}},
        {**envelope, "type": "assistant", "uuid": assistant_uuid, "parentUuid": user_uuid,
         "timestamp": "2026-01-01T00:00:01.000Z",
         "message": {"id": "msg_01", "type": "message", "role": "assistant", "model": "claude-sonnet-4",
                     "content": [{"type": "text", "text": f"Looked at {CWD}/main.py: {prompt}"}],
                     "stop_reason": "end_turn", "usage": {"input_tokens": 10, "output_tokens": 5}}},
    ]
    if title is not None:
        records.append({"type": "custom-title", "customTitle": title, "sessionId": sid})
    path = folder / f"{sid}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


@pytest.fixture
def ops(env: Env) -> Env:  # noqa: F811
    write_claude_session(env.home, MAIN_SID, f"please fix the parser {CANARY}", title=f"parser {CANARY}")
    return env


# ---------------------------------------------------------------- the CLI as a subprocess
def cli(*args: str, preexec: list[str] | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """`python -m archiver ARGS` with stdout and stderr as pipes (not a terminal)."""
    return subprocess.run([*(preexec or []), sys.executable, "-m", "archiver", *args],
                          capture_output=True, text=True, timeout=timeout, env=child_env(), cwd=REPO)


def child_env() -> dict[str, str]:
    e = dict(os.environ)
    e["PYTHONPATH"] = str(REPO)
    e.pop("ARCHIVER_CONFIG", None)
    return e


def cfg(e: Env) -> list[str]:
    return ["--config", str(e.config)]


def ident(e: Env) -> list[str]:
    return ["--identity", str(e.identity)]


def one_json(proc: subprocess.CompletedProcess[str]) -> Any:
    """stdout holds exactly one JSON document and nothing else."""
    assert proc.stdout.strip(), f"nothing on stdout; rc={proc.returncode} stderr={proc.stderr[-400:]!r}"
    doc, end = json.JSONDecoder().raw_decode(proc.stdout.lstrip())
    assert proc.stdout.lstrip()[end:].strip() == "", f"more than one document on stdout: {proc.stdout[:300]!r}"
    return doc


def json_lines(stderr: str) -> list[dict[str, Any]]:
    records = []
    for line in stderr.splitlines():
        try:
            rec = json.loads(line)
        except ValueError:
            raise AssertionError(f"stderr line is not JSON: {line[:200]!r}") from None
        assert isinstance(rec, dict) and isinstance(rec.get("level"), str) and isinstance(rec.get("msg"), str), line
        records.append(rec)
    return records


def no_dac_override() -> list[str]:
    """As root, a mode-000 file is readable anyway: run the child without the DAC capabilities."""
    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv") is None:
        pytest.skip("running as root without setpriv: cannot make a file unreadable")
    return ["setpriv", "--bounding-set", "-dac_override,-dac_read_search"]


def unreadable_session(home: Path) -> str:
    sid = "0b9e8d7c-6a5f-4e3d-9c2b-1a0f9e8d7c6b"
    path = write_claude_session(home, sid, "second session")
    path.chmod(0)
    return f"claude-code:{sid}"


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ---------------------------------------------------------------- Prometheus text format
_METRIC = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
_LABELS = r'\{(?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\[\\"n])*"(?:,[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\[\\"n])*")*,?)?\}'
_SAMPLE = re.compile(rf"({_METRIC})({_LABELS})? (\S+)(?: (-?\d+))?")
_LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def parse_prometheus(text: str) -> tuple[dict[str, str], dict[tuple[str, frozenset[tuple[str, str]]], float]]:
    """(types by family, samples by (name, labels)) of a text exposition; raises on anything the
    format does not allow: a sample before its family's TYPE, a bad line, a missing final newline."""
    assert text.endswith("\n"), "exposition must end with a newline"
    types: dict[str, str] = {}
    helps: set[str] = set()
    samples: dict[tuple[str, frozenset[tuple[str, str]]], float] = {}
    for line in text[:-1].split("\n"):
        if line.startswith("# HELP "):
            name = line[7:].split(" ", 1)[0]
            assert re.fullmatch(_METRIC, name) and name not in helps, line
            helps.add(name)
        elif line.startswith("# TYPE "):
            name, kind = line[7:].split(" ")
            assert kind in ("counter", "gauge", "histogram", "summary", "untyped") and name not in types, line
            types[name] = kind
        elif line.startswith("#") or line == "":
            continue
        else:
            m = _SAMPLE.fullmatch(line)
            assert m, f"not a sample line: {line!r}"
            name, labels, value = m.group(1), m.group(2) or "", m.group(3)
            assert name in types, f"{name}: sample before its # TYPE"
            number = float(value)  # also NaN, +Inf, -Inf
            assert not math.isnan(number), line
            key = (name, frozenset(_LABEL.findall(labels)))
            assert key not in samples, f"duplicate sample {line!r}"
            samples[key] = number
    assert helps == set(types), f"HELP without TYPE or the reverse: {helps ^ set(types)}"
    return types, samples


def sample(samples: dict[tuple[str, frozenset[tuple[str, str]]], float], name: str, **labels: str) -> float:
    return samples[(name, frozenset(labels.items()))]


def by_label(samples: dict[tuple[str, frozenset[tuple[str, str]]], float], name: str, label: str) -> dict[str, float]:
    return {dict(k[1])[label]: v for k, v in samples.items() if k[0] == name}


def test_prometheus_parser_rejects_a_half_written_file() -> None:
    good = "# HELP a_total x\n# TYPE a_total counter\na_total{rule=\"r\"} 3\n"
    assert sample(parse_prometheus(good)[1], "a_total", rule="r") == 3
    for bad in (good[:-1], good[: good.index("{") + 4] + "\n", "a_total 1\n"):
        with pytest.raises((AssertionError, ValueError)):
            parse_prometheus(bad)


# ================================================================ 1. --json documents, exit codes
SYNC_KEYS = {"snapshot", "sessions", "bytes", "redactions", "errors"}


def test_every_command_prints_one_json_document_with_the_designed_keys(ops: Env, tmp_path: Path) -> None:
    e = ops
    keygen = one_json(cli("keygen", "--out", str(tmp_path / "k2"), "--json"))
    assert keygen["recipient"].startswith("age1") and (tmp_path / "k2" / "identity.txt").is_file()
    assert "AGE-SECRET-KEY" not in json.dumps(keygen), "keygen --json printed the secret key"

    proc = cli("scan", *cfg(e), "--json")
    assert proc.returncode == 0, proc.stderr
    assert [s["key"] for s in one_json(proc)["sessions"]] == [f"claude-code:{MAIN_SID}"]

    proc = cli("sync", *cfg(e), "--json")
    assert proc.returncode == 0, proc.stderr
    sync = one_json(proc)
    assert SYNC_KEYS <= set(sync), sync.keys()
    assert sync["sessions"] == {"total": 1, "uploaded": 1, "unchanged": 0, "failed": 0}
    assert set(sync["bytes"]) == {"read", "uploaded"} and sync["bytes"]["read"] == (
        e.home / ".claude/projects" / PROJECT_KEY / f"{MAIN_SID}.jsonl").stat().st_size
    assert sync["snapshot"].startswith("snapshots/") and sync["errors"] == []
    assert sync["redactions"].get("home-linux", 0) >= 1, sync["redactions"]

    proc = cli("ls", *cfg(e), *ident(e), "--json")
    assert proc.returncode == 0, proc.stderr
    ls = one_json(proc)
    assert [s["key"] for s in ls["sessions"]] == [f"claude-code:{MAIN_SID}"]
    assert ls["sessions"][0]["harness"] == "claude-code" and ls["sessions"][0]["session_id"] == MAIN_SID

    proc = cli("lineage", *cfg(e), *ident(e), "--json")
    assert proc.returncode == 0, proc.stderr
    lineage = one_json(proc)
    assert lineage["nodes"] == [f"claude-code:{MAIN_SID}"] and lineage["edges"] == []

    proc = cli("verify", *cfg(e), *ident(e), "--read-data", "--json")
    assert proc.returncode == 0, proc.stderr
    verify = one_json(proc)
    assert verify["ok"] is True and verify["errors"] == [] and verify["manifests"] == 1

    out = tmp_path / "restored"
    proc = cli("restore", f"claude-code:{MAIN_SID}", "--to", str(out), *cfg(e), *ident(e), "--json")
    assert proc.returncode == 0, proc.stderr
    assert one_json(proc)["integrity_errors"] == []
    restored = list(out.glob(f".claude/projects/*/{MAIN_SID}.jsonl"))
    assert len(restored) == 1 and CANARY.encode() in restored[0].read_bytes()

    proc = cli("export", f"claude-code:{MAIN_SID}", "--format", "md", *cfg(e), *ident(e), "--json")
    assert proc.returncode == 0, proc.stderr
    export = one_json(proc)
    assert export["format"] == "md" and CANARY in export["document"]

    proc = cli("prune", "--keep-daily", "1", "--dry-run", *cfg(e), *ident(e), "--json")
    assert proc.returncode == 0, proc.stderr
    assert one_json(proc)["errors"] == []


def test_redact_json_is_one_document(ops: Env) -> None:
    """(was a gap: the redacted file itself, one document per JSONL line)"""
    src = ops.home / ".claude/projects" / PROJECT_KEY / f"{MAIN_SID}.jsonl"
    proc = cli("redact", str(src), *cfg(ops), "--json")
    assert proc.returncode == 0, proc.stderr
    doc = one_json(proc)
    assert doc["file"] == str(src) and doc["format"] == "jsonl" and doc["output_base64"] is None
    plain = cli("redact", str(src), *cfg(ops))
    assert doc["output"] == plain.stdout and doc["redactions"] and proc.stderr == ""


def test_demo_json_is_one_document(tmp_path: Path) -> None:
    proc = cli("demo", "--dir", str(tmp_path / "demo"), "--json", timeout=180)
    assert proc.returncode == 0, proc.stderr[-500:]
    doc = one_json(proc)
    assert doc.get("ok") is True


# was a gap: a sync that stops before it starts printed {snapshot, errors, failed} only
def test_sync_json_of_a_run_that_could_not_start_keeps_the_designed_keys(ops: Env) -> None:
    (ops.base / "state").write_text("a file where the state dir should be")
    proc = cli("sync", *cfg(ops), "--json")
    assert proc.returncode == 1, proc.stderr
    doc = one_json(proc)
    assert doc["errors"] and "state dir" in doc["errors"][0]
    assert SYNC_KEYS <= set(doc), sorted(doc)
    assert doc["sessions"] == {"total": 0, "uploaded": 0, "unchanged": 0, "failed": 0} and doc["failed"] is True


@pytest.mark.parametrize("args", [
    ("sync", "--no-such-flag"),
    ("export", "--format", "md"),  # KEY missing
    ("lineage", "--at"),  # an option without its value
])
def test_usage_error_is_exit_2_one_line_on_stderr_nothing_on_stdout(ops: Env, args: tuple[str, ...]) -> None:
    proc = cli(*args, *cfg(ops), "--json")
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert len(proc.stderr.splitlines()) == 1, proc.stderr


def test_restore_without_key_is_a_usage_error(ops: Env, tmp_path: Path) -> None:
    proc = cli("restore", "--to", str(tmp_path / "r"), *cfg(ops), *ident(ops), "--json")
    assert (proc.returncode, proc.stdout, len(proc.stderr.splitlines())) == (2, "", 1), proc.stderr


def test_config_errors_exit_2_naming_file_and_reason(ops: Env) -> None:
    base = ops.config.read_text()
    secret = next(line for line in ops.identity.read_text().splitlines() if line.startswith("AGE-SECRET-KEY-"))
    cases = {
        "bad-toml.toml": (base + "[store\n", ["TOML"]),
        "unknown-key.toml": (base.replace("[state]", "[state]\nbogus_key = 1"), ["bogus_key", "unknown"]),
        "secret-recipient.toml": (base.replace(f'recipients_file = "{ops.keys / "recipient.txt"}"',
                                               f'recipients = ["{secret}"]'), ["identity", "recipient"]),
    }
    for name, (text, reason_words) in cases.items():
        path = ops.base / name
        path.write_text(text)
        proc = cli("sync", "--config", str(path), "--json")
        assert proc.returncode == 2, (name, proc.returncode, proc.stderr)
        assert proc.stdout == "", name
        lines = proc.stderr.splitlines()
        assert len(lines) == 1, (name, proc.stderr)
        assert name in lines[0], (name, lines[0])
        for word in reason_words:
            assert word.lower() in lines[0].lower(), (name, lines[0])
        assert secret not in proc.stderr, "the secret key was echoed"
    # the identity file named as recipients_file: named, refused, not echoed
    path = ops.base / "identity-as-recipients.toml"
    path.write_text(base.replace("recipient.txt", "identity.txt"))
    proc = cli("sync", "--config", str(path), "--json")
    assert (proc.returncode, proc.stdout) == (2, ""), proc.stderr
    assert "identity.txt" in proc.stderr and "secret" in proc.stderr and secret not in proc.stderr


def test_tampered_object_is_exit_3_for_verify_read_data_and_restore(ops: Env, tmp_path: Path) -> None:
    e = ops
    assert cli("sync", *cfg(e), "-q").returncode == 0
    (obj,) = [k for k in e.keys_in_bucket() if "/objects/" in k]
    blob = bytearray(e.raw_object(obj))
    blob[-20] ^= 0x01
    e.s3().put_object(Bucket=e.bucket, Key=obj, Body=bytes(blob))

    assert cli("verify", *cfg(e), *ident(e), "--json").returncode == 0  # no data read: nothing to see

    proc = cli("verify", "--read-data", *cfg(e), *ident(e), "--json")
    assert proc.returncode == 3, proc.stderr
    doc = one_json(proc)
    assert doc["ok"] is False and len(doc["errors"]) == 1 and obj.split("/")[-1] in doc["errors"][0]

    out = tmp_path / "r"
    proc = cli("restore", "--all", "--to", str(out), *cfg(e), *ident(e), "--json")
    assert proc.returncode == 3, proc.stderr
    doc = one_json(proc)
    assert len(doc["integrity_errors"]) == 1 and MAIN_SID in doc["integrity_errors"][0]
    assert not list(out.glob("**/*.jsonl")), "a tampered transcript was written"


# ================================================================ 2. logs
def test_json_logs_errors_included_quiet_and_verbose_never_show_session_text(ops: Env) -> None:
    e = ops
    failed_key = unreadable_session(e.home)
    proc = cli("sync", *cfg(e), "--log-format", "json", preexec=no_dac_override())
    assert proc.returncode == 1, proc.stderr
    records = json_lines(proc.stderr)
    assert CANARY not in proc.stderr and CANARY not in proc.stdout
    errors = [r for r in records if r["level"] == "error"]
    assert len(errors) == 1 and failed_key in errors[0]["msg"] and "permission denied" in errors[0]["msg"], records
    (finished,) = [r for r in records if r["msg"] == "sync finished"]
    assert finished["level"] == "info" and finished["sessions"]["failed"] == 1

    # --quiet: warnings and errors only
    write_claude_session(e.home, str(uuid.uuid4()), f"third {CANARY}")
    proc = cli("sync", *cfg(e), "--quiet", "--log-format", "json", preexec=no_dac_override())
    assert proc.returncode == 1, proc.stderr
    records = json_lines(proc.stderr)
    assert [r["level"] for r in records] == ["error"], records
    assert proc.stdout == "" and CANARY not in proc.stderr

    # -v: the libraries' debug logs too; still no session text
    write_claude_session(e.home, str(uuid.uuid4()), f"fourth {CANARY}")
    proc = cli("sync", *cfg(e), "-v", "--log-format", "json", preexec=no_dac_override())
    assert proc.returncode == 1
    records = json_lines(proc.stderr)
    assert any(r["level"] == "debug" for r in records)
    assert CANARY not in proc.stderr


def test_default_logs_off_a_terminal_are_json_records_and_the_error_lines_plain(ops: Env) -> None:
    """README: off a terminal (auto) the log records are JSON lines, and a command's own error
    stays one plain `archiver: ...` line (a script reads it as it is); `--log-format json` makes
    the errors records too (test above)."""
    unreadable_session(ops.home)
    proc = cli("sync", *cfg(ops), preexec=no_dac_override())
    assert proc.returncode == 1
    lines = proc.stderr.splitlines()
    plain_errors = [ln for ln in lines if ln.startswith("archiver: ")]
    assert plain_errors and all("permission denied" in ln for ln in plain_errors), proc.stderr
    records = [json.loads(ln) for ln in lines if not ln.startswith("archiver: ")]
    assert records and all("level" in r for r in records)


# ================================================================ 3. lock
def _wait_for_lock_holder(state_dir: Path, pid: int, deadline: float) -> None:
    """Until some file in the state dir names `pid` (the run lock): the run holds the lock."""
    while time.monotonic() < deadline:
        for p in state_dir.glob("*") if state_dir.is_dir() else ():
            try:
                if p.is_file() and p.stat().st_size < 64 and p.read_text().strip() == str(pid):
                    return
            except (OSError, UnicodeDecodeError):
                pass
        time.sleep(0.01)
    raise AssertionError("the sync never took its lock")


def test_second_sync_exits_0_saying_another_holds_the_lock_and_a_dead_holder_is_recovered(ops: Env) -> None:
    e = ops
    state_dir = e.base / "state"
    # a state database exists already (during the very first run `status` waits ~10 s on its creation)
    assert cli("sync", *cfg(e), "-q").returncode == 0
    write_claude_session(e.home, str(uuid.uuid4()), "second session")
    first = subprocess.Popen([sys.executable, "-m", "archiver", "sync", *cfg(e), "--json"], env=child_env(), cwd=REPO,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        _wait_for_lock_holder(state_dir, first.pid, time.monotonic() + 30)
        os.kill(first.pid, signal.SIGSTOP)

        status = one_json(cli("status", *cfg(e), "--json"))
        # status gives the pid as the lock file's text, the skipped run's record as a number
        assert status["running"] is True and str(status["running_pid"]) == str(first.pid), status

        second = cli("sync", *cfg(e), "--json")
        assert second.returncode == 0, second.stderr
        doc = one_json(second)
        assert doc["skipped"] is True and f"pid {first.pid} holds " in doc["reason"], doc
        (warning,) = json_lines(second.stderr)
        assert warning["level"] == "warning" and warning["skipped"] is True
        assert warning["msg"] == "another sync is running; nothing to do" and warning["running_pid"] == first.pid
        lock = Path(warning["lock"])
        assert lock.parent == state_dir and doc["reason"].endswith(str(lock))

        # the holder dies: its pid stays in the lock file, the lock itself goes with it
        os.kill(first.pid, signal.SIGKILL)
        first.wait(10)
        assert lock.read_text().strip() == str(first.pid)
        third = cli("sync", *cfg(e), "--json")
        assert third.returncode == 0, third.stderr
        doc = one_json(third)
        assert "skipped" not in doc and doc["errors"] == [], doc
        assert doc["sessions"] == {"total": 2, "uploaded": 1, "unchanged": 1, "failed": 0}, doc
        assert one_json(cli("status", *cfg(e), "--json"))["running"] is False

        # a lock file naming a pid that does not exist
        lock.write_text("999999999")
        write_claude_session(e.home, str(uuid.uuid4()), "another")
        fourth = cli("sync", *cfg(e), "--json")
        assert fourth.returncode == 0 and one_json(fourth)["sessions"]["uploaded"] == 1, fourth.stderr
    finally:
        if first.poll() is None:
            os.kill(first.pid, signal.SIGKILL)
            first.wait(10)
        for stream in (first.stdout, first.stderr):
            if stream:
                stream.close()


# ================================================================ 4. status, metrics
def test_status_before_any_run(ops: Env) -> None:
    proc = cli("status", *cfg(ops), "--json")
    assert proc.returncode == 0, proc.stderr
    doc = one_json(proc)
    assert doc["last_run"] is None and doc["last_success"] is None and doc["runs_recorded"] == 0
    assert doc["running"] is False and doc["next_due"]


def _read_while_running(path: Path, proc: subprocess.Popen[str], seen: list[bytes]) -> None:
    while proc.poll() is None:
        try:
            seen.append(path.read_bytes())
        except FileNotFoundError:
            pass
        time.sleep(0.001)


def test_status_and_metrics_after_a_good_and_a_failed_run(ops: Env) -> None:
    e = ops
    metrics = e.base / "prom" / "sub" / "archiver.prom"  # its folder is created if missing

    proc = cli("sync", *cfg(e), "--json", "--metrics-file", str(metrics))
    assert proc.returncode == 0, proc.stderr
    good = one_json(proc)
    before = time.time()
    status = one_json(cli("status", *cfg(e), "--json"))
    last = status["last_run"]
    assert last["result"] == "ok" and last["errors"] == [] and status["runs_recorded"] == 1
    assert last["sessions"] == good["sessions"] and last["bytes"] == good["bytes"]
    assert status["last_success"] == last["finished"]
    finished = time.mktime(time.strptime(last["finished"], "%Y-%m-%dT%H:%M:%SZ")) - time.timezone
    due = time.mktime(time.strptime(status["next_due"], "%Y-%m-%dT%H:%M:%SZ")) - time.timezone
    assert abs(due - finished - 3600) <= 1 and abs(before - finished) < 60

    types, samples = parse_prometheus(metrics.read_text())
    last_success = sample(samples, "archiver_last_success_timestamp_seconds")
    assert abs(last_success - finished) < 2
    assert by_label(samples, "archiver_sessions", "state") == {k: float(v) for k, v in good["sessions"].items()}
    assert by_label(samples, "archiver_bytes", "kind") == {k: float(v) for k, v in good["bytes"].items()}
    assert by_label(samples, "archiver_redactions_total", "rule") == {k: float(v) for k, v in good["redactions"].items()}
    assert sample(samples, "archiver_failures_total") == 0
    assert types["archiver_failures_total"] == "counter" and types["archiver_redactions_total"] == "counter"

    # a run in which one session fails (an unreadable file); the metrics file read all along
    failed_key = unreadable_session(e.home)
    inode = metrics.stat().st_ino
    seen: list[bytes] = []
    run = subprocess.Popen([*no_dac_override(), sys.executable, "-m", "archiver", "sync", *cfg(e), "--json",
                            "--metrics-file", str(metrics)], env=child_env(), cwd=REPO,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    reader = threading.Thread(target=_read_while_running, args=(metrics, run, seen))
    reader.start()
    out, _ = run.communicate(timeout=120)
    reader.join()
    assert run.returncode == 1
    partial = json.loads(out)
    assert partial["sessions"]["failed"] == 1 and failed_key in partial["errors"][0]
    for text in seen:  # every read, before or after the replace, is a whole exposition
        parse_prometheus(text.decode())
    assert metrics.stat().st_ino != inode, "metrics file rewritten in place, not replaced"
    assert sorted(p.name for p in metrics.parent.iterdir()) == ["archiver.prom"], "a temp file was left"

    _, samples = parse_prometheus(metrics.read_text())
    assert sample(samples, "archiver_failures_total") == 1
    assert sample(samples, "archiver_sessions", state="failed") == 1
    assert sample(samples, "archiver_last_success_timestamp_seconds") == last_success
    assert sample(samples, "archiver_last_run_success") == 0

    status = one_json(cli("status", *cfg(e), "--json"))
    last = status["last_run"]
    assert last["result"] != "ok" and last["sessions"]["failed"] == 1 and status["runs_recorded"] == 2
    assert len(last["errors"]) == 1 and failed_key in last["errors"][0]
    assert status["last_success"] != last["finished"]
    assert abs(time.mktime(time.strptime(status["last_success"], "%Y-%m-%dT%H:%M:%SZ")) - time.timezone
               - finished) < 1


# ================================================================ 5. doctor
def _doctor(e: Env, config: Path | None = None) -> tuple[int, dict[str, Any]]:
    proc = cli("doctor", "--config", str(config or e.config), "--json", "--timeout", "2")
    doc = one_json(proc)
    assert proc.returncode == (0 if doc["ok"] else 2), (proc.returncode, doc)
    return proc.returncode, {c["check"]: c for c in doc["checks"]}


def test_doctor_json_green_then_each_check_red_for_its_cause(ops: Env) -> None:
    e = ops
    e.identity.rename(e.base / "identity.txt")  # off the collector, as README says
    rc, checks = _doctor(e)
    assert rc == 0, checks
    assert checks["config"]["status"] == "ok" and checks["team key"]["status"] == "ok"
    assert checks["bucket"]["status"] == "ok" and checks["harness claude-code"]["status"] == "ok"
    assert checks["harness codex"]["status"] != "fail"  # not installed here, not configured: nothing to archive

    (e.keys / "team.key").chmod(0o644)
    rc, checks = _doctor(e)
    assert rc == 2 and checks["team key"]["status"] == "fail" and "0644" in checks["team key"]["detail"]
    (e.keys / "team.key").chmod(0o600)

    unreachable = e.base / "unreachable.toml"
    unreachable.write_text(e.config.read_text().replace(e.endpoint, f"http://127.0.0.1:{closed_port()}"))
    rc, checks = _doctor(e, unreachable)
    assert rc == 2 and checks["bucket"]["status"] == "fail" and "unreachable" in checks["bucket"]["detail"]

    missing_root = e.base / "missing-root.toml"
    missing_root.write_text(e.config.read_text() + f'\n[harnesses.codex]\nroot = "{e.base / "no-codex-here"}"\n')
    rc, checks = _doctor(e, missing_root)
    assert checks["harness codex"]["status"] == "fail", checks["harness codex"]
    assert rc == 2

    bad = e.base / "bad.toml"
    bad.write_text(e.config.read_text() + "[store\n")
    rc, checks = _doctor(e, bad)
    assert rc == 2 and checks["config"]["status"] == "fail" and "bad.toml" in checks["config"]["detail"]


def test_doctor_on_a_terminal_prints_a_table(ops: Env) -> None:
    master, slave = pty.openpty()
    environ = child_env() | {"COLUMNS": "160", "LINES": "50", "TERM": "xterm"}
    proc = subprocess.Popen([sys.executable, "-m", "archiver", "doctor", *cfg(ops), "--timeout", "2"],
                            stdin=slave, stdout=slave, stderr=slave, env=environ, cwd=REPO)
    os.close(slave)
    chunks = []
    try:
        while True:
            ready, _, _ = select.select([master], [], [], 60)
            if not ready:
                raise AssertionError("doctor hung")
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: the child closed the terminal
                break
            if not data:
                break
            chunks.append(data)
    finally:
        os.close(master)
        proc.wait(30)
    screen = re.sub(r"\x1b\[[0-9;]*m", "", b"".join(chunks).decode())
    rows = {m.group(1).strip(): m.group(2).strip() for m in re.finditer(r"│ ([^│]+?) +│ (\w+) +│", screen)}
    assert rows.get("config") == "ok" and rows.get("bucket") == "ok" and rows.get("harness claude-code") == "ok", screen
    assert "┏" in screen and "┃ check" in screen, screen


# ================================================================ 6. deploy/
def test_systemd_units_verify() -> None:
    if shutil.which("systemd-analyze") is None:
        pytest.skip("systemd-analyze not installed")
    work = Path(os.environ.get("TMPDIR", "/tmp")) / f"s21-bbops-units-{os.getpid()}"
    work.mkdir(mode=0o700)
    try:
        # ExecStart names where the package installs; verify needs an executable there
        exe = shutil.which("true") or "/bin/true"
        for unit in ("archiver.service", "archiver.timer"):
            text = (REPO / "deploy/systemd" / unit).read_text().replace("/usr/local/bin/archiver", exe)
            (work / unit).write_text(text)
        proc = subprocess.run(["systemd-analyze", "verify", "--man=no", "archiver.service", "archiver.timer"],
                              cwd=work, capture_output=True, text=True, timeout=60)
        assert proc.returncode == 0 and proc.stderr.strip() == "", proc.stderr
        # the check can fail: an unknown key is reported
        (work / "archiver.service").write_text((work / "archiver.service").read_text() + "NoSuchKey=1\n")
        proc = subprocess.run(["systemd-analyze", "verify", "--man=no", "archiver.service"],
                              cwd=work, capture_output=True, text=True, timeout=60)
        assert "NoSuchKey" in proc.stderr
    finally:
        shutil.rmtree(work)


def test_dockerfile_runs_as_non_root() -> None:
    lines = [line.strip() for line in (REPO / "deploy/Dockerfile").read_text().splitlines()]
    users = [line.split(None, 1)[1] for line in lines if line.upper().startswith("USER ")]
    assert users, "no USER directive: the image runs as root"
    user = users[-1].split(":")[0]
    assert user not in ("root", "0"), users
    entry = max(i for i, line in enumerate(lines) if line.upper().startswith(("ENTRYPOINT", "CMD")))
    last_user = max(i for i, line in enumerate(lines) if line.upper().startswith("USER "))
    assert last_user < entry


def _actions(statement: dict[str, Any]) -> list[str]:
    action = statement.get("Action", [])
    return [action] if isinstance(action, str) else list(action)


def test_iam_policies_parse_and_the_collector_cannot_delete() -> None:
    policies = {p.name: json.loads(p.read_text()) for p in sorted((REPO / "deploy/iam").glob("*.json"))}
    assert {"collector-policy.json", "reviewer-policy.json", "operator-policy.json"} <= set(policies)
    for name, doc in policies.items():
        assert doc["Version"] == "2012-10-17" and doc["Statement"], name
    collector = policies["collector-policy.json"]["Statement"]
    allowed = [a for s in collector if s["Effect"] == "Allow" for a in _actions(s)]
    assert allowed and not [a for a in allowed if "delete" in a.lower() or a.endswith("*")], allowed
    assert not [s for s in collector if "NotAction" in s and s["Effect"] == "Allow"]
    denied = {a for s in collector if s["Effect"] == "Deny" for a in _actions(s)}
    assert {"s3:DeleteObject", "s3:DeleteObjectVersion"} <= denied
    reviewer = [a for s in policies["reviewer-policy.json"]["Statement"] if s["Effect"] == "Allow" for a in _actions(s)]
    assert not [a for a in reviewer if "delete" in a.lower() or a.lower().startswith("s3:put")], reviewer
