"""A reviewer's day, end to end against moto with Object Lock: keygen, `bucket init
--object-lock`, two machines (two HOMEs, state dirs and host ids) syncing into one bucket
(one of them uploading with GOVERNANCE retention), `ls` across hosts, an HTML export
checked in headless Chromium, `verify --read-data`, and `prune` leaving locked objects alone."""

from __future__ import annotations

import contextlib
import io
import json
import shutil
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from archiver.cli import main
from archiver.demo.claude_sample import make_claude_home
from tests.fx_archiver import USER, Env, env  # noqa: F401
from tests.fx_s3 import unique_bucket_name


def _run(config: Path, *args: str, expect: int = 0) -> Any:
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        code = main([args[0], "--config", str(config), *args[1:], "--json"])
    assert code == expect, (code, buf.getvalue()[:2000])
    return json.loads(buf.getvalue())


def _machine_b(env: Env) -> Path:  # noqa: F811
    """Same bucket and keys; its own HOME, state dir, host name, and no retention."""
    cfg = env.base / "config-b.toml"
    text = env.config.read_text()
    text = text.replace(f'home = "{env.home}"', f'home = "{env.base / "home-b"}"')
    text = text.replace(f'host = "laptop-of-{USER}"', 'host = "desktop-of-bob"').replace('usernames = ["alice"]', 'usernames = ["bob"]')
    text = text.replace(f'dir = "{env.base / "state"}"', f'dir = "{env.base / "state-b"}"')
    text = text.replace('object_lock_mode = "GOVERNANCE"\nobject_lock_days = 1\n', "")
    cfg.write_text(text)
    return cfg


def test_reviewer_flow(env: Env, tmp_path: Path) -> None:  # noqa: F811
    # an Object Lock bucket made by `bucket init`; machine A uploads with retention
    env.bucket = unique_bucket_name()
    env.write_config()
    env.config.write_text(env.config.read_text().replace(
        "[state]", 'object_lock_mode = "GOVERNANCE"\nobject_lock_days = 1\n\n[state]'))
    init = env.cli_json("bucket", "init", "--object-lock")
    assert init["created"] is True and init["state"]["object_lock"] is True
    cfg_b = _machine_b(env)

    a = make_claude_home(env.home, USER)
    b = make_claude_home(env.base / "home-b", "bob", seed=11)
    assert a.main != b.main
    for cfg in (env.config, cfg_b):
        assert _run(cfg, "sync", "--workers", "1")["sessions"]["failed"] == 0
    # a second run on each machine after a sidecar was rewritten: two manifests per host
    for s in (a, b):
        (s.root / "projects" / s.project_key / f"{s.main}.ccr-tip.json").write_text('{"tip": "moved"}')
    for cfg in (env.config, cfg_b):
        assert _run(cfg, "sync", "--workers", "1")["snapshot"]

    # ls across hosts
    listed = env.cli_json("ls", identity=True)["sessions"]
    hosts = {x["host_id"] for x in listed}
    assert len(hosts) == 2
    keys = {x["key"] for x in listed}
    assert {f"claude-code:{a.main}", f"claude-code:{b.main}"} <= keys
    assert sum(1 for x in listed if x["key"] == "claude-code:@host") == 2  # one per host
    host_b = next(x["host_id"] for x in listed if x["key"] == f"claude-code:{b.main}")
    only_b = env.cli_json("ls", "--host", host_b, identity=True)["sessions"]
    assert {x["host_id"] for x in only_b} == {host_b} and f"claude-code:{b.main}" in {x["key"] for x in only_b}
    assert "bob" not in json.dumps(listed) and USER not in json.dumps(listed)

    # the reviewer reads machine B's session in a browser
    page = env.base / "review.html"
    doc = env.cli_json("export", f"claude-code:{b.main}", "--out", str(page), identity=True)
    assert doc["integrity_errors"] == [] and f"claude-code:{b.subagent}" in doc["sessions"]
    if shutil.which("chromium"):
        from tests.test_render_chromium import _chromium, _png_size, _text

        text = _text(_chromium(tmp_path, "--dump-dom", page.as_uri()).stdout.decode())
        assert "Fix the deploy script in /home/user-" in text and "Tool call: Agent" in text and "bob" not in text
        shot = tmp_path / "review.png"
        _chromium(tmp_path, f"--screenshot={shot}", "--window-size=1200,2000", page.as_uri())
        assert _png_size(shot.read_bytes()) == (1200, 2000) and shot.stat().st_size > 10_000

    assert env.cli_json("verify", "--read-data", identity=True)["ok"] is True

    # a crashed upload of machine A left a locked object no manifest names
    s3 = env.s3()
    orphan = f"{env.prefix}/objects/cd/{'cd' * 32}"
    s3.put_object(Bucket=env.bucket, Key=orphan, Body=b"partial", ObjectLockMode="GOVERNANCE",
                  ObjectLockRetainUntilDate=datetime.now(timezone.utc) + timedelta(days=1))
    locked_a = {k for k in env.keys_in_bucket()
                if s3.head_object(Bucket=env.bucket, Key=k).get("ObjectLockMode") == "GOVERNANCE"}
    assert orphan in locked_a and len(locked_a) > 5

    pr = env.cli_json("prune", "--keep-last", "1", "--grace", "0", identity=True)
    assert pr["errors"] == []
    # machine B's older manifest and the sidecar state only it named are gone ...
    assert len(pr["manifests"]["removed"]) == 1 and pr["objects"]["removed"] == 1
    # ... machine A's older manifest and the orphan are locked: reported, kept
    locked = {x.split(":", 1)[0] for x in pr["locked"]}
    assert f"{orphan.removeprefix(env.prefix + '/')}" in locked
    assert any(k.startswith("snapshots/") for k in locked)
    assert all("GOVERNANCE retention until" in x for x in pr["locked"])
    assert locked_a <= set(env.keys_in_bucket())

    # the archive is still whole for both machines
    assert env.cli_json("verify", "--read-data", identity=True)["ok"] is True
    # both hosts have a `.claude/history.jsonl`: one restore per host, or the second is refused
    code, out = env.cli("restore", "--all", "--to", str(env.base / "restored-all"), "--json", identity=True)
    refused = json.loads(out)["refused"]
    assert code == 3 and any("'.claude/history.jsonl': not written (another session of this restore" in r for r in refused)
    assert all(r.startswith("claude-code:@host: ") and "another session of this restore" in r for r in refused)
    for host in hosts:
        restored = env.cli_json("restore", "--all", "--host", host, "--to", str(env.base / f"restored-{host}"),
                                identity=True)
        assert restored["integrity_errors"] == [] and restored["refused"] == []
        assert (f"claude-code:{b.main}" in restored["sessions"]) == (host == host_b)
