"""Three operator-facing inconsistencies (session 22):

1. host-level sessions: `ls` named them `claude-code:@host`, `lineage` (and export's list)
   `claude-code:@host/<host id>`. Every command prints the archive's key (FORMAT.md §5, the
   manifest's `key`); a KEY argument takes both spellings.
2. `archiver status` during a sync that holds the state database locked (creating it, or a
   rollback-journal one being changed to WAL) waited 10 s; it answers at once.
3. a reader that cannot read the store (bucket missing, access denied, endpoint down) exited 1
   ("finished but some sessions failed"); it exits 2 with one line naming the store url.

Real components: the CLI, a generated Claude home (archiver.demo, following the seeds), moto's
server on 127.0.0.1 (the shared one, a private one that is stopped, and the fault proxy for 403s),
a real sync in a subprocess holding a real SQLite state database.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Iterator

import pytest

from archiver.cli import main
from archiver.demo.claude_sample import make_claude_home
from tests.faultproxy import FaultProxy
from tests.fx_archiver import USER, Env, env  # noqa: F401  (fixture)
from tests.fx_home import isolate_env
from tests.fx_s3 import REGION, make_bucket, s3_server, unique_bucket_name  # noqa: F401  (fixture)

ROOT = Path(__file__).resolve().parent.parent
HOST_KEY = "claude-code:@host"


def run(argv: list[str]) -> tuple[int, str, str]:
    out, errs = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(errs):
        code = main(argv)
    return code, out.getvalue(), errs.getvalue()


# ================================================================ 1. host-level keys
def second_host(e: Env) -> Path:
    """The same home archived by a second machine (its own host name and state)."""
    cfg = e.base / "desk.toml"
    cfg.write_text(e.config.read_text().replace(f'host = "laptop-of-{USER}"', f'host = "desk-of-{USER}"')
                   .replace(f'dir = "{e.base / "state"}"', f'dir = "{e.base / "state-desk"}"'))
    return cfg


@pytest.fixture
def two_hosts(env: Env) -> tuple[Env, dict[str, str]]:  # noqa: F811
    """An archive on moto where two hosts each hold a `claude-code:@host` session; returns the
    env and {host name: host id}."""
    make_claude_home(env.home, USER)
    assert env.cli("sync", "--workers", "1", "-q")[0] == 0
    desk = second_host(env)
    assert run(["sync", "--config", str(desk), "--workers", "1", "-q"])[0] == 0
    hosts = {s["host_id"] for s in env.cli_json("ls", identity=True)["sessions"] if s["kind"] == "host"}
    assert len(hosts) == 2
    snaps = env.cli_json("snapshots", identity=True)["snapshots"]
    order = [s["host_id"] for s in sorted(snaps, key=lambda s: s["created_at"])]  # the laptop synced first
    assert set(order) == hosts
    return env, {"laptop": order[0], "desk": order[-1]}


def test_host_level_keys_print_as_the_archive_key_and_both_spellings_resolve(two_hosts: tuple[Env, dict[str, str]]) -> None:
    e, ids = two_hosts
    listed = [(s["key"], s["host_id"]) for s in e.cli_json("ls", identity=True)["sessions"] if s["kind"] == "host"]
    assert sorted(listed) == sorted([(HOST_KEY, ids["laptop"]), (HOST_KEY, ids["desk"])])

    lineage = e.cli_json("lineage", identity=True)
    # was: ["claude-code:@host/<laptop id>", "claude-code:@host/<desk id>", ...]
    assert HOST_KEY in lineage["nodes"] and lineage["nodes"].count(HOST_KEY) == 1
    assert not [n for n in lineage["nodes"] if "/" in n], lineage["nodes"]
    assert lineage["host_sessions"] == [{"key": HOST_KEY, "host_ids": sorted(ids.values())}]
    code, text = e.cli("lineage", identity=True)
    assert code == 0 and "@host/" not in text
    assert f"{HOST_KEY} (host {ids['laptop']}) — Claude Code host files" in text
    assert f"{HOST_KEY} (host {ids['desk']}) — Claude Code host files" in text

    # a KEY argument takes both spellings and names what it cannot find
    qualified = f"{HOST_KEY}/{ids['laptop']}"
    # lineage KEY: the qualified spelling picks one host's session, printed by its archive key
    doc = e.cli_json("lineage", qualified, identity=True)
    assert doc["nodes"] == [HOST_KEY] and doc["host_sessions"] == [{"key": HOST_KEY, "host_ids": [ids["laptop"]]}]
    # the plain spelling with --host (restore), or the qualified one: the same files, the same bytes
    plain_doc = e.cli_json("restore", HOST_KEY, "--host", ids["laptop"], "--to", str(e.base / "r1"), identity=True)
    qual_doc = e.cli_json("restore", qualified, "--to", str(e.base / "r2"), identity=True)
    assert plain_doc["sessions"] == qual_doc["sessions"] == [HOST_KEY]
    assert plain_doc["files"] == qual_doc["files"] and ".claude/history.jsonl" in plain_doc["files"]
    for f in plain_doc["files"]:
        assert (e.base / "r1" / f).read_bytes() == (e.base / "r2" / f).read_bytes()
    assert (e.base / "r1" / ".claude/history.jsonl").stat().st_size > 0
    # export: the qualified spelling; its document names the session by the archive key
    exported = e.cli_json("export", qualified, "--format", "md", identity=True)
    assert f"- session: `{HOST_KEY}`" in exported["document"] and "@host/" not in exported["document"]
    # the plain spelling names one session per host: export needs one, and says how to name it
    code, out, errs = run(["export", HOST_KEY, "--config", str(e.config), "--identity", str(e.identity)])
    assert code == 2 and out == ""
    assert f"'{HOST_KEY}' names 2 host-level sessions, one per host; use one of: " in errs
    assert f"{HOST_KEY}/{ids['desk']}" in errs and f"{HOST_KEY}/{ids['laptop']}" in errs
    # neither spelling: exit 2 naming the key, for every command that takes one
    for argv in (["lineage", f"{HOST_KEY}/0000000000000000"], ["export", f"{HOST_KEY}/0000000000000000"],
                 ["restore", f"{HOST_KEY}/0000000000000000", "--to", str(e.base / "r3")]):
        code, out, errs = run([*argv, "--config", str(e.config), "--identity", str(e.identity)])
        assert code == 2 and f"no session '{HOST_KEY}/0000000000000000' in the archive" in errs, (argv, errs)
    assert not (e.base / "r3" / ".claude").exists()


def test_export_json_lists_the_archive_key(archived: Env) -> None:
    assert archived.cli_json("export", HOST_KEY, "--format", "md", identity=True)["sessions"] == [HOST_KEY]


# ================================================================ 2. status while a sync holds the state
# A real `archiver sync`, whose state database is held locked the way a writer that is not yet in
# WAL holds it (creating it, or changing a rollback-journal database to WAL), until told to let go.
HOLDING_SYNC = """
import os, sqlite3, sys, time
from pathlib import Path
import archiver.state as state

real_open = state.State._open

def held_open(path):
    db = sqlite3.connect(str(path), isolation_level=None)
    db.execute("BEGIN EXCLUSIVE")
    Path(os.environ["S22_HELD"]).write_text(str(os.getpid()))
    deadline = time.monotonic() + 30
    while not Path(os.environ["S22_RELEASE"]).exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    db.execute("ROLLBACK")
    db.close()
    return real_open(path)

state.State._open = staticmethod(held_open)
from archiver.cli import main
sys.exit(main(sys.argv[1:]))
"""


class Collector:
    def __init__(self, base: Path) -> None:
        self.base = base
        self.state = base / "state"
        self.config = base / "config.toml"
        keys = base / "keys"
        self.config.write_text(
            f'home = "{base / "home"}"\nhost = "ops-box"\n[redaction]\nteam_key_file = "{keys / "team.key"}"\n'
            f'usernames = ["{USER}"]\n[encryption]\nrecipients_file = "{keys / "recipient.txt"}"\n'
            f'[store]\nurl = "file://{base / "store"}"\n[state]\ndir = "{self.state}"\n')

    def status(self) -> tuple[float, dict[str, Any], str]:
        started = time.monotonic()
        code, out, errs = run(["status", "--config", str(self.config), "--json"])
        took = time.monotonic() - started
        assert code == 0, errs
        return took, json.loads(out), errs

    @contextlib.contextmanager
    def holding_sync(self) -> Iterator[subprocess.Popen]:
        held, release = self.base / "held", self.base / "release"
        held.unlink(missing_ok=True)
        release.unlink(missing_ok=True)
        env = dict(os.environ, PYTHONPATH=str(ROOT), S22_HELD=str(held), S22_RELEASE=str(release))
        proc = subprocess.Popen([sys.executable, "-c", HOLDING_SYNC, "sync", "--config", str(self.config),
                                 "--workers", "1", "-q"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            deadline = time.monotonic() + 20
            while not held.exists():
                assert proc.poll() is None, proc.communicate()
                assert time.monotonic() < deadline, "the sync never reached its state database"
                time.sleep(0.02)
            yield proc
        finally:
            release.write_text("go")
            try:
                proc.communicate(timeout=60)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.communicate()


@pytest.fixture
def collector(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Collector:
    isolate_env(monkeypatch)
    (tmp_path / "home").mkdir()
    make_claude_home(tmp_path / "home", USER)
    assert run(["keygen", "--out", str(tmp_path / "keys")])[0] == 0
    return Collector(tmp_path)


def test_status_answers_at_once_during_the_first_sync(collector: Collector) -> None:
    with collector.holding_sync() as sync:
        took, doc, errs = collector.status()
        # was: 10.0 s, then "state database unreadable: ... database is locked"
        assert took < 2.0, took
        assert doc["running"] is True and doc["running_pid"] == str(sync.pid)
        assert doc["runs_recorded"] == 0 and doc["last_run"] is None and "state_error" not in doc, doc
        assert errs == ""
    assert sync.returncode == 0
    took, doc, _ = collector.status()
    assert doc["running"] is False and doc["runs_recorded"] == 1 and doc["last_run"]["result"] == "ok"


def test_status_answers_at_once_while_a_sync_changes_an_old_database_to_wal(collector: Collector) -> None:
    assert run(["sync", "--config", str(collector.config), "--workers", "1", "-q"])[0] == 0
    first = collector.status()[1]["last_run"]
    db = collector.state / "state.db"
    con = sqlite3.connect(db)  # a state database in rollback-journal mode (older, or copied)
    assert con.execute("PRAGMA journal_mode=DELETE").fetchone() == ("delete",)
    con.close()
    (collector.base / "home" / ".claude" / "history.jsonl").open("a").write('{"display":"more"}\n')
    with collector.holding_sync() as sync:
        took, doc, _ = collector.status()
        assert took < 2.0, took  # was: 10.0 s
        assert doc["running"] is True and doc["running_pid"] == str(sync.pid)
        assert "state_error" not in doc and doc["note"] == "a sync is running: no result until it lets go of the state database", doc
    assert sync.returncode == 0
    doc = collector.status()[1]
    assert doc["runs_recorded"] == 2 and doc["last_run"]["run_id"] != first["run_id"] and "state_error" not in doc


# ================================================================ 3. a store readers cannot read
READERS = (["ls"], ["lineage"], ["verify"], ["restore", "--all", "--to", "{out}"],
           ["export", "claude-code:6513", "--format", "md"])
SECRET = "s22SecretAccessKeyCanary0123456789abcdef"


def reader_argv(e: Env, config: Path, argv: list[str]) -> list[str]:
    return [argv[0], "--config", str(config), *[a.format(out=e.base / "out") for a in argv[1:]],
            "--identity", str(e.identity), "-q"]


def store_config(e: Env, name: str, bucket: str, endpoint: str) -> Path:
    cfg = e.base / name
    cfg.write_text(e.config.read_text().replace(f"s3://{e.bucket}/", f"s3://{bucket}/")
                   .replace(f'endpoint_url = "{e.endpoint}"', f'endpoint_url = "{endpoint}"')
                   .replace("[state]", "max_attempts = 1\n\n[state]"))
    return cfg


def assert_one_line_exit_2(code: int, out: str, errs: str, url: str, reason: str, argv: list[str]) -> None:
    lines = [ln for ln in errs.splitlines() if ln.startswith("archiver: ")]
    assert code == 2 and out == "", (argv, code, out, errs)
    assert len(lines) == 1 and lines[0].startswith(f"archiver: cannot read the store {url}: "), (argv, errs)
    assert reason in lines[0], (argv, lines[0])
    assert SECRET not in errs and "testing" not in errs


@pytest.fixture
def archived(env: Env, monkeypatch: pytest.MonkeyPatch) -> Env:  # noqa: F811
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", SECRET)  # moto takes any; it must never be printed
    make_claude_home(env.home, USER)
    assert env.cli("sync", "--workers", "1", "-q")[0] == 0
    return env


def test_readers_exit_2_on_a_missing_bucket_and_on_access_denied(archived: Env, s3_server: str) -> None:  # noqa: F811
    e = archived
    missing = unique_bucket_name()
    cfg = store_config(e, "missing.toml", missing, e.endpoint)
    for argv in READERS:
        code, out, errs = run(reader_argv(e, cfg, argv))  # was: exit 1
        assert_one_line_exit_2(code, out, errs, f"s3://{missing}/{e.prefix}", "the bucket does not exist", argv)
        assert "NoSuchBucket (HTTP 404)" in errs
    with FaultProxy(s3_server, max_lifetime=60) as proxy:
        proxy.add("403", times=None)
        cfg = store_config(e, "denied.toml", e.bucket, proxy.url)
        for argv in READERS:
            code, out, errs = run(reader_argv(e, cfg, argv))  # was: exit 1
            assert_one_line_exit_2(code, out, errs, f"s3://{e.bucket}/{e.prefix}", "access denied", argv)
            assert "AccessDenied (HTTP 403)" in errs
    assert not (e.base / "out" / ".claude").exists()


def test_readers_exit_2_when_the_store_endpoint_is_down(env: Env, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    """A moto server of its own, holding the bucket, then stopped: connection refused. (Nothing
    needs archiving first: every reader's first request is the listing that fails.)"""
    from moto.server import ThreadedMotoServer

    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", SECRET)
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    endpoint = f"http://{host}:{port}"
    try:
        make_bucket(endpoint, env.bucket)
        cfg = store_config(env, "private.toml", env.bucket, endpoint)
        code, _, errs = run(reader_argv(env, cfg, ["ls"]))  # reachable: the store holds no archive yet
        assert code == 2 and "no archive at" in errs
    finally:
        server.stop()
    for argv in READERS:
        code, out, errs = run(reader_argv(env, cfg, argv))  # was: exit 1
        assert_one_line_exit_2(code, out, errs, f"s3://{env.bucket}/{env.prefix}",
                               "the store is unreachable or failing", argv)
        assert f'Could not connect to the endpoint URL: "{endpoint}/{env.bucket}"' in errs  # no query string


def test_sync_keeps_exit_1_for_a_store_it_cannot_reach(env: Env) -> None:  # noqa: F811
    """The reader mapping leaves sync alone: a scheduled run that could not reach its store is a
    failed run (status and the metrics say so), exit 1 as before."""
    make_claude_home(env.home, USER)
    cfg = store_config(env, "nobucket.toml", unique_bucket_name(), env.endpoint)
    code, _, errs = run(["sync", "--config", str(cfg), "--workers", "1", "-q"])
    assert code == 1 and "NoSuchBucket" in errs
