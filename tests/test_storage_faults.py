"""Storage faults, through a fault-injecting proxy between boto3 and moto (tests/faultproxy.py):
transient 500 / 503 SlowDown / connection resets / truncated responses / delays are retried
with backoff and the run succeeds; a permanent failure fails the run with exit 1 naming the
object; a multipart upload that fails is aborted, never left behind to accrue cost."""

from __future__ import annotations

import base64
import json
import os
import random
import signal
import subprocess
import sys
import time
from datetime import timedelta
from typing import Any, Iterator

import pytest

from archiver.demo.claude_sample import make_claude_home
from tests.faultproxy import FaultProxy
from tests.fx_archiver import USER, Env, env  # noqa: F401
from tests.fx_s3 import s3_client


@pytest.fixture
def proxied(env: Env, s3_server: str) -> Iterator[tuple[Env, FaultProxy]]:  # noqa: F811
    """The env with its store endpoint pointing at a fault proxy in front of moto."""
    with FaultProxy(s3_server, max_lifetime=120) as proxy:
        env.endpoint = proxy.url
        set_store(env)
        yield env, proxy


def set_store(e: Env, **keys: Any) -> None:
    """Rewrite the config with extra [store] keys."""
    e.write_config()
    extra = "".join(f"{k} = {json.dumps(v)}\n" for k, v in keys.items())
    text = e.config.read_text().replace(f'region = "{"us-east-1"}"\n', f'region = "us-east-1"\n{extra}', 1)
    e.config.write_text(text)


def store_key(e: Env, target: str) -> str:
    """'/bucket/prefix/objects/ab/ab12..?uploadId=..' -> 'objects/ab/ab12..'"""
    path = target.split("?", 1)[0]
    head = f"/{e.bucket}/{e.prefix}/"
    assert path.startswith(head), path
    return path[len(head):]


def discovered(e: Env) -> int:
    return len(e.cli_json("scan")["sessions"])


def test_transient_faults_are_retried_with_backoff_and_the_run_succeeds(proxied: tuple[Env, FaultProxy]) -> None:
    e, proxy = proxied
    for seed in (1, 2):
        make_claude_home(e.home, USER, seed=seed)
    proxy.add("500", method="GET", path=r"/archiver\.json$", times=1)
    proxy.add("500", method="PUT", path="/objects/", times=2)  # small objects: one conditional PUT, no HEAD
    proxy.add("503", method="PUT", path="/objects/", times=2)
    proxy.add("reset", method="PUT", path="/objects/", times=2)
    proxy.add("truncate", method="PUT", path="/objects/", times=1)
    proxy.add("delay", method="PUT", path="/objects/", times=2, delay=0.3)
    proxy.add("503", method="PUT", path="/snapshots/", times=1)
    out = e.cli_json("sync", "--workers", "1")
    assert out["sessions"]["failed"] == 0 and out["errors"] == []
    assert out["sessions"]["total"] == discovered(e) == 11
    fired = proxy.faults()
    assert sorted({f.fault for f in fired}) == ["500", "503", "delay", "reset", "truncate"]
    assert len(fired) == 11
    # every object PUT that failed was sent again and stored in the end
    for f in fired:
        if f.fault in ("500", "503", "reset") and f.method == "PUT":
            later = [r for r in proxy.seen("PUT", f.target.split("?")[0]) if r.at > f.at and r.status == 200]
            assert later, f
    # retries wait (botocore's jittered exponential backoff, then RetryingStore's): no hot loop
    gaps = []
    for f in fired:
        if f.fault in ("500", "503"):
            nxt = [r.at for r in proxy.seen(f.method, f.target.split("?")[0]) if r.at > f.at]
            gaps.append(min(nxt) - f.at)
    assert max(gaps) >= 0.05, gaps
    # everything is there and intact, read through faults as well: truncated and reset GETs
    proxy.clear()
    proxy.add("truncate", method="GET", path="/objects/", times=2)  # the same object, read 3 times
    proxy.add("reset", method="GET", path="/objects/", times=2)
    proxy.add("503", method="GET", path="/snapshots/", times=1)
    code, text = e.cli("verify", "--read-data", "--json", identity=True)
    assert code == 0, text
    doc = json.loads(text)
    assert doc["ok"] and doc["objects_read"] == doc["objects"] > 0
    assert len([f for f in proxy.faults() if f.method == "GET" and "/objects/" in f.target]) == 4
    assert len(e.cli_json("ls", identity=True)["sessions"]) == 11


def test_truncated_download_during_restore_is_read_again(proxied: tuple[Env, FaultProxy]) -> None:
    e, proxy = proxied
    s = make_claude_home(e.home, USER)
    e.cli_json("sync", "--workers", "1")
    proxy.add("truncate", method="GET", path="/objects/", times=2)
    target = e.base / "restored"
    doc = e.cli_json("restore", f"claude-code:{s.main}", "--to", str(target), identity=True)
    assert doc["integrity_errors"] == [] and doc["refused"] == []
    assert len(proxy.faults("truncate")) == 2
    restored = next(target.rglob(f"{s.main}.jsonl")).read_bytes()
    assert b"Fix the deploy script" in restored and USER.encode() not in restored


def test_permanent_refusal_fails_the_run_with_exit_1_naming_the_object(proxied: tuple[Env, FaultProxy]) -> None:
    e, proxy = proxied
    make_claude_home(e.home, USER)
    rule = proxy.add("403", method="PUT", path="/objects/", after=2, times=None, sticky=True)
    code, text = e.cli("sync", "--json", "--workers", "1")
    assert code == 1, text
    out = json.loads(text)
    assert rule.bound is not None
    refused_key = store_key(e, rule.bound)
    assert out["sessions"]["failed"] == 1 and len(out["errors"]) == 1
    assert refused_key in out["errors"][0] and "AccessDenied" in out["errors"][0]
    assert len(proxy.seen("PUT", rule.bound)) == 1  # a 403 is not retried
    assert out["snapshot"]  # the other sessions were archived ...
    assert len(e.cli_json("ls", identity=True)["sessions"]) == out["sessions"]["total"] - 1
    code, text = e.cli("verify", "--json", identity=True)  # ... and the manifest names nothing missing
    assert code == 0, text
    proxy.clear()
    again = e.cli_json("sync", "--workers", "1")  # the next run finishes the work
    assert again["sessions"]["failed"] == 0
    assert len(e.cli_json("ls", identity=True)["sessions"]) == discovered(e)


def test_persistent_5xx_gives_up_after_bounded_retries(proxied: tuple[Env, FaultProxy]) -> None:
    e, proxy = proxied
    set_store(e, max_attempts=2)
    make_claude_home(e.home, USER)
    rule = proxy.add("503", method="PUT", path="/objects/", after=1, times=None, sticky=True)
    started = time.monotonic()
    code, text = e.cli("sync", "--json", "--workers", "1")
    assert code == 1, text
    assert time.monotonic() - started < 40
    out = json.loads(text)
    key = store_key(e, rule.bound or "")
    assert key in out["errors"][0] and "SlowDown" in out["errors"][0]
    # botocore's attempts per request (max_attempts counts retries after the first: 2 -> 3
    # requests) x RetryingStore's 3 attempts, then it stops
    assert 6 <= len(proxy.seen("PUT", rule.bound or "")) <= 9


def test_refused_manifest_fails_the_run_and_leaves_the_archive_as_before(proxied: tuple[Env, FaultProxy]) -> None:
    e, proxy = proxied
    make_claude_home(e.home, USER)
    proxy.add("403", method="PUT", path="/snapshots/", times=None)
    code, text = e.cli("sync", "--json", "--workers", "1")  # the run fails, exit 1, naming the manifest ...
    assert code == 1
    assert any("snapshots/" in err and "AccessDenied" in err for err in json.loads(text)["errors"])
    keys = [o["Key"] for o in s3_client(proxy_upstream(proxy)).list_objects_v2(Bucket=e.bucket).get("Contents", [])]
    assert not [k for k in keys if "/snapshots/" in k]  # ... and the archive holds no manifest
    assert [k for k in keys if "/objects/" in k]  # (only unreferenced objects, reused next time)
    assert e.cli_json("ls", identity=True)["sessions"] == []
    proxy.clear()
    out = e.cli_json("sync", "--workers", "1")
    assert out["sessions"]["failed"] == 0 and out["objects_uploaded"] == 0
    assert len(e.cli_json("ls", identity=True)["sessions"]) == discovered(e)


def test_refused_manifest_is_reported_cleanly(proxied: tuple[Env, FaultProxy]) -> None:
    from archiver.store.base import StoreError

    e, proxy = proxied
    make_claude_home(e.home, USER)
    proxy.add("403", method="PUT", path="/snapshots/", times=None)
    try:
        code, text = e.cli("sync", "--json", "--workers", "1")
    except StoreError as err:
        raise AssertionError(f"escaped the CLI: {err}") from None
    assert code == 1
    doc = json.loads(text)
    assert any("snapshots/" in err for err in doc["errors"])


def proxy_upstream(proxy: FaultProxy) -> str:
    return f"http://{proxy.upstream_host}:{proxy.upstream_port}"


def _big_session(e: Env, mib: int = 17) -> tuple[Any, bytes]:
    """A session whose transcript holds a base64 image line of `mib` MiB of random bytes
    (x4/3 as text). 17 MiB packs to > 16 MiB: two multipart parts at the 5 MiB threshold
    and boto3's 16 MiB part size; 6 MiB packs to one part, still a multipart upload."""
    s = make_claude_home(e.home, USER)
    img = base64.b64encode(random.Random(8).randbytes(mib << 20))
    path = s.root / "projects" / s.project_key / f"{s.main}.jsonl"
    with path.open("ab") as f:
        f.write(b'{"type":"user","message":{"role":"user","content":[{"type":"image","source":'
                b'{"type":"base64","media_type":"image/png","data":"' + img + b'"}}]}}\n')
    return s, img


def test_failed_multipart_upload_is_aborted_and_a_transient_part_failure_is_retried(
        proxied: tuple[Env, FaultProxy]) -> None:
    e, proxy = proxied
    set_store(e, multipart_threshold_mb=5, max_attempts=2)
    s, img = _big_session(e)
    moto = s3_client(proxy_upstream(proxy))
    part2 = proxy.add("500", method="PUT", path=r"partNumber=2", times=None)
    code, text = e.cli("sync", "--json", "--workers", "1")
    assert code == 1, text
    out = json.loads(text)
    started = [r for r in proxy.seen("POST", r"\?uploads") if r.status == 200]
    assert started and part2.fired >= 2
    big_key = store_key(e, started[0].target)
    assert out["sessions"]["failed"] == 1 and big_key in out["errors"][0]
    aborted = proxy.seen("DELETE", r"uploadId=")
    assert len(aborted) == len(started)  # every upload started was aborted ...
    assert moto.list_multipart_uploads(Bucket=e.bucket).get("Uploads", []) == []  # ... none left behind
    proxy.clear()
    before = len(proxy.faults())
    proxy.add("reset", method="PUT", path=r"partNumber=1", times=1)
    proxy.add("503", method="PUT", path=r"partNumber=2", times=1)
    out = e.cli_json("sync", "--workers", "1")
    assert out["sessions"]["failed"] == 0
    assert len(proxy.faults()) - before == 2
    assert moto.list_multipart_uploads(Bucket=e.bucket).get("Uploads", []) == []
    target = e.base / "restored"
    e.cli_json("restore", f"claude-code:{s.main}", "--to", str(target), identity=True)
    restored = next(target.rglob(f"{s.main}.jsonl")).read_bytes()
    assert img in restored


def _kill_mid_multipart(e: Env, proxy: FaultProxy) -> None:
    """Start a sync whose part uploads hang, and SIGKILL it (and its workers) mid-upload."""
    proxy.add("delay", method="PUT", path=r"partNumber=", times=None, delay=20)
    proc = subprocess.Popen([sys.executable, "-m", "archiver", "sync", "--config", str(e.config), "--json",
                             "--workers", "1"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while not any("partNumber=" in t for _, t in list(proxy.arrived)):
            assert time.monotonic() < deadline and proc.poll() is None
            time.sleep(0.05)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    proxy.clear()


def test_multipart_upload_left_by_a_killed_run(proxied: tuple[Env, FaultProxy]) -> None:
    """A SIGKILL mid-multipart leaves an incomplete upload: the next sync must abort it or at
    least say so (never leave it to accrue cost silently); abort_incomplete_uploads removes it."""
    from archiver import runtime
    from archiver.config import load_settings

    e, proxy = proxied
    set_store(e, multipart_threshold_mb=5)
    _big_session(e, mib=6)
    _kill_mid_multipart(e, proxy)
    moto = s3_client(proxy_upstream(proxy))
    left = moto.list_multipart_uploads(Bucket=e.bucket).get("Uploads", [])
    assert len(left) == 1 and left[0]["Key"].startswith(f"{e.prefix}/objects/")
    out = e.cli_json("sync", "--workers", "1")
    assert out["sessions"]["failed"] == 0
    still = moto.list_multipart_uploads(Bucket=e.bucket).get("Uploads", [])
    reported = [w for w in out["warnings"] + out["errors"] if "multipart" in w]
    assert not still or reported  # aborted, or at least said so
    # (moto reports a fixed 2010 'Initiated' date, so sync's one-hour cut-off takes any upload
    # for stale here: the "young upload, reported not aborted" branch cannot be exercised)
    store = runtime.store(load_settings(e.config))
    assert store.abort_incomplete_uploads(timedelta(0)) == len(still)
    assert moto.list_multipart_uploads(Bucket=e.bucket).get("Uploads", []) == []


def test_an_unreachable_store_fails_the_run_with_one_line(proxied: tuple[Env, FaultProxy],
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    e, proxy = proxied
    set_store(e, max_attempts=1)
    make_claude_home(e.home, USER)
    proxy.add("403", method="GET", path="/archiver.json", times=None)  # the format marker, read first
    code, _text = e.cli("sync", "--workers", "1")
    assert code == 1
    captured = capsys.readouterr().err
    assert "Traceback" not in captured
    assert "archiver.json" in captured and "AccessDenied" in captured


def test_a_run_that_finds_nothing_changed_makes_no_request(proxied: tuple[Env, FaultProxy]) -> None:
    e, proxy = proxied
    make_claude_home(e.home, USER)
    first = e.cli_json("sync", "--workers", "1")
    assert first["snapshot"]
    before = len(proxy.seen())
    assert before
    again = e.cli_json("sync", "--workers", "1")
    assert again["sessions"]["unchanged"] == again["sessions"]["total"] == first["sessions"]["total"]
    assert again["snapshot"] is None
    assert len(proxy.seen()) == before  # no marker read, no tombstone list, no multipart listing
    # ... and in a fresh process boto3 is not even imported
    probe = ("import sys; from archiver.cli import main; "
             f"code = main(['sync', '--config', {str(e.config)!r}, '--quiet', '--workers', '1']); "
             "print(code, 'boto3' in sys.modules, 'importlib.metadata' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120,
                         env={**os.environ})
    # (nor importlib.metadata, which pydantic's plugin lookup would import: cli._no_pydantic_plugins)
    assert out.stdout.split() == ["0", "False", "False"], out.stderr
    assert len(proxy.seen()) == before
    # a change opens the store again: marker, tombstones, then the upload and a manifest
    jsonl = next((e.home / ".claude" / "projects").rglob("*.jsonl"))
    with jsonl.open("ab") as f:
        f.write(b'{"type":"user","message":{"role":"user","content":"one more"}}\n')
    changed = e.cli_json("sync", "--workers", "1")
    assert changed["snapshot"] and changed["sessions"]["uploaded"] >= 1
    later = proxy.requests[before:]
    assert any(r.method == "GET" and "archiver.json" in r.target for r in later)
    assert any(r.method == "GET" and "tombstones" in r.target for r in later)
