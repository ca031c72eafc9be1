"""s18 `archiver doctor` and `archiver status` after the failures an operator meets on a new
collector: no state yet, a stale lock file, an endpoint on 127.0.0.1 whose port is closed, a key
file with mode 0644, a bucket without versioning, Object Lock configured on a bucket without it,
a bucket that does not exist. Each says what is wrong and what to do; doctor exits 2 on a failure
(deploy/README.md), status exits 0 and reports. Buckets are moto's server on 127.0.0.1."""

from __future__ import annotations

import fcntl
import os
import socket
from pathlib import Path
from typing import Any

from tests.fx_archiver import Env, env  # noqa: F401
from tests.fx_s3 import make_bucket, s3_bucket_url, s3_server, unique_bucket_name  # noqa: F401


def _doctor(e: Env) -> tuple[int, dict[str, dict[str, Any]]]:
    code, out = e.cli("doctor", "--json", "--timeout", "2")
    import json

    return code, {c["check"]: c for c in json.loads(out)["checks"]}


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])  # closed again when the block ends: nothing listens there


def test_a_fresh_collector_status_and_doctor(env: Env) -> None:  # noqa: F811
    e = env
    e.config.chmod(0o600)
    code, out = e.cli("status")
    assert code == 0 and "no sync has run yet" in out and "next due: now" in out
    doc = e.cli_json("status")
    assert doc["last_run"] is None and doc["running"] is False and doc["runs_recorded"] == 0
    code, checks = _doctor(e)
    assert code == 0, checks
    assert checks["state dir"]["status"] == "ok" and "created on first sync" in checks["state dir"]["detail"]
    assert checks["bucket"]["status"] == "ok" and checks["archive marker"]["status"] == "ok"
    # moto's new bucket is not versioned: a warning that names the fix
    assert checks["versioning"]["status"] == "warn"
    assert "archiver bucket init" in checks["versioning"]["detail"]


def test_a_stale_lock_file_blocks_nothing_and_a_held_one_shows(env: Env) -> None:  # noqa: F811
    e = env
    state = e.base / "state"
    state.mkdir(mode=0o700)
    (state / "lock").write_text("4242\n")  # left by a killed run: nobody holds the flock
    doc = e.cli_json("status")
    assert doc["running"] is False
    code, checks = _doctor(e)
    assert "running" not in checks["state dir"]["detail"]
    fd = os.open(state / "lock", os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # a live sync holds it
        doc = e.cli_json("status")
        assert doc["running"] is True and doc["running_pid"] == "4242"
        _, checks = _doctor(e)
        assert "a sync is running (pid 4242)" in checks["state dir"]["detail"]
    finally:
        os.close(fd)


def test_an_unreachable_endpoint_fails_doctor_with_what_to_check(env: Env) -> None:  # noqa: F811
    e = env
    e.endpoint = f"http://127.0.0.1:{_closed_port()}"
    e.write_config()
    e.config.chmod(0o600)
    code, checks = _doctor(e)
    assert code == 2
    detail = checks["bucket"]["detail"]
    assert checks["bucket"]["status"] == "fail" and "unreachable" in detail
    assert "store.endpoint_url" in detail and "NO_PROXY" in detail
    assert checks["clock"]["status"] == "skip"


def test_a_key_file_readable_by_others_fails_doctor_naming_the_fix(env: Env) -> None:  # noqa: F811
    e = env
    e.config.chmod(0o600)
    key = e.keys / "team.key"
    key.chmod(0o644)
    code, checks = _doctor(e)
    assert code == 2
    assert checks["team key"]["status"] == "fail"
    assert checks["team key"]["detail"] == f"{key}: mode 0644 lets group/others access it; chmod 600 {key}"
    key.chmod(0o600)
    code, checks = _doctor(e)
    assert checks["team key"]["status"] == "ok"


def test_an_identity_on_the_collector_is_warned_about(env: Env) -> None:  # noqa: F811
    e = env
    e.config.chmod(0o600)
    assert e.identity.exists()  # keygen wrote it next to team.key
    _, checks = _doctor(e)
    warn = checks["identity not on collector"]
    assert warn["status"] in ("warn", "fail") and str(e.identity) in warn["detail"]
    e.identity.unlink()
    _, checks = _doctor(e)
    assert checks["identity not on collector"]["status"] == "ok"


def test_object_lock_configured_on_a_bucket_without_it_fails(env: Env) -> None:  # noqa: F811
    e = env
    text = e.config.read_text().replace('[state]', 'object_lock_mode = "GOVERNANCE"\nobject_lock_days = 1\n\n[state]')
    e.config.write_text(text)
    e.config.chmod(0o600)
    code, checks = _doctor(e)
    assert code == 2
    assert checks["object lock"]["status"] == "fail"
    assert "archiver bucket init --object-lock" in checks["object lock"]["detail"]
    assert checks["versioning"]["status"] == "fail" and "Object Lock needs it" in checks["versioning"]["detail"]

    locked = unique_bucket_name()
    make_bucket(e.endpoint, locked, object_lock=True)
    e.config.write_text(text.replace(f"s3://{e.bucket}/", f"s3://{locked}/"))
    code, checks = _doctor(e)
    assert checks["object lock"]["status"] == "ok" and checks["versioning"]["status"] == "ok"


def test_a_missing_bucket_fails_doctor_naming_bucket_init(env: Env) -> None:  # noqa: F811
    e = env
    e.config.write_text(e.config.read_text().replace(f"s3://{e.bucket}/", "s3://no-such-bucket-s18/"))
    e.config.chmod(0o600)
    code, checks = _doctor(e)
    assert code == 2
    assert checks["bucket"]["status"] == "fail"
    assert "no such bucket" in checks["bucket"]["detail"] and "archiver bucket init" in checks["bucket"]["detail"]


def test_status_after_a_failed_start_says_what_failed_and_exits_0(env: Env) -> None:  # noqa: F811
    from archiver.demo.claude_sample import make_claude_home

    e = env
    make_claude_home(e.home, "alice")
    e.endpoint = f"http://127.0.0.1:{_closed_port()}"
    e.write_config()
    e.config.write_text(e.config.read_text().replace("[state]", "max_attempts = 1\n\n[state]"))
    code, _ = e.cli("sync", "--json")
    assert code == 1
    doc = e.cli_json("status")
    last = doc["last_run"]
    assert last["result"] == "failed" and last["aborted"] is True
    assert any("archiver.json" in x and "EndpointConnectionError" in x for x in last["errors"])
    assert doc["last_success"] is None
    code, out = e.cli("status")
    assert code == 0 and "result: failed" in out and "last success: never" in out
