"""Day-2 operations: many scheduled runs over one home of every harness, the home changing
between runs as the seeds say the harnesses change it, checked after every run from the outside
(ls, lineage, restore, restore --at, verify --read-data, status, the metrics file), then prune.

Promises checked: nothing archived is ever lost; a session the harness deletes, moves or
rewrites stays restorable (its latest archived state; earlier ones with --at); one bad session
fails alone (exit 1, named in --json) and the others are archived; prune keeps every object a
kept snapshot names and every session's latest state, and removes the rest."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any, Iterator

import pytest

from archiver.demo import cursor_sample, opencode_sample
from tests.fx_s19_day2 import (Claude, Codex, Pi, World, live, make_world, prom, tree, unzst, wal_frames)
from tests.fx_s3 import make_bucket, s3_client, s3_server, unique_bucket_name  # noqa: F401

ROOT = os.geteuid() == 0  # root reads a chmod 000 file: the unreadable transcript is then a corrupt database


class Day2:
    """The world plus what the test knows must hold: every key ever listed, the neutral files'
    bytes at their last archived state, and the previous run's restored tree."""

    def __init__(self, w: World, mp: pytest.MonkeyPatch) -> None:
        self.w, self.mp = w, mp
        self.seen: set[str] = set()
        self.expect: dict[str, bytes] = {}  # restored path -> bytes (.zst: decompressed)
        self.prev: dict[str, bytes] = {}
        self.n = 0
        self.verify_every_run = not w.bucket
        self.c1, self.c2, self.c3 = Claude(w.home, "c1"), Claude(w.home, "c2"), Claude(w.home, "c3")
        self.x, self.p = Codex(w.home, "x1"), Pi(w.home, "p1")

    def rel(self, p: Path) -> str:
        return p.relative_to(self.w.home).as_posix()

    def note(self, *paths: Path) -> None:
        """These files' current bytes are what the next run archives."""
        for p in paths:
            self.expect[self.rel(p)] = unzst(p.read_bytes()) if p.name.endswith(".zst") else p.read_bytes()

    def run(self, expect: int = 0, changing: tuple[str, ...] = (), moved: tuple[str, ...] = ()) -> dict[str, Any]:
        """A scheduled run, then the outside checks. `changing`: parts of restored paths whose bytes
        may differ from the last run's; `moved`: restored paths that may disappear (moved by the harness)."""
        out = self.w.sync(self.mp, expect=expect)
        self.n += 1
        listed = self.w.ls()
        assert self.seen <= set(listed), f"run {self.n}: sessions no longer listed: {sorted(self.seen - set(listed))}"
        self.seen |= set(listed)
        dst = self.w.base / "restored"  # one place: restore writes its own path into Codex's state_5.sqlite
        shutil.rmtree(dst, ignore_errors=True)
        r = self.w.restore(dst)
        assert r["integrity_errors"] == [] and set(r["sessions"]) == set(listed)
        now = tree(dst)
        for path, data in self.expect.items():
            got = now.get(path)
            assert got is not None, f"run {self.n}: {path} not restored"
            assert (unzst(got) if path.endswith(".zst") else got) == data, f"run {self.n}: {path} is not its last state"
        lost = set(self.prev) - set(now) - set(moved)
        assert not lost, f"run {self.n}: files no longer restorable: {sorted(lost)}"
        drift = [p for p in set(self.prev) & set(now)
                 if self.prev[p] != now[p] and not any(c in p for c in changing) and p not in self.expect]
        assert not drift, f"run {self.n}: restored bytes changed for files nobody touched: {sorted(drift)}"
        self.prev = now
        if self.verify_every_run:  # over S3 every object is read: the last runs only, to stay in the time box
            v = self.w.cli("verify", "--read-data", identity=True)
            assert v["ok"] is True, v
        nodes = set(self.w.cli("lineage", identity=True)["nodes"])
        assert {k for k in listed if "@" not in k} <= nodes
        return out


@pytest.fixture(params=["file", "s3-lock"])
def world(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[World]:
    for var in ("ARCHIVER_CONFIG", "ARCHIVER_TEAM_KEY", "ARCHIVER_IDENTITY_FILE", "CLAUDE_CONFIG_DIR", "CODEX_HOME",
                "CURSOR_CONFIG_DIR", "CURSOR_DATA_DIR", "PI_CODING_AGENT_DIR", "PI_CODING_AGENT_SESSION_DIR",
                "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "OPENCODE_DB"):
        os.environ.pop(var, None)
    if request.param == "file":
        w = make_world(tmp_path, f"file://{tmp_path / 'store'}")
    else:
        endpoint = request.getfixturevalue("s3_server")
        bucket = unique_bucket_name()
        make_bucket(endpoint, bucket, object_lock=True)  # versioned, no default retention: prune may delete
        w = make_world(tmp_path, f"s3://{bucket}/arch", f'endpoint_url = "{endpoint}"\nregion = "us-east-1"\n')
        w.bucket, w.endpoint = bucket, endpoint
    yield w
    for con in w.keep_open:
        con.close()


def _stored_objects(w: World) -> set[str]:
    if not w.bucket:
        root = w.base / "store" / "objects"
        return {f.name for f in root.rglob("*") if f.is_file()}
    s3 = s3_client(w.endpoint)
    out: set[str] = set()
    for page in s3.get_paginator("list_objects_v2").paginate(Bucket=w.bucket, Prefix="arch/objects/"):
        out |= {o["Key"].rsplit("/", 1)[-1] for o in page.get("Contents", ())}
    return out


def _referenced(w: World, at: str | None = None) -> set[str]:
    sessions = w.cli("ls", *(["--at", at] if at else []), identity=True)["sessions"]
    return {o for s in sessions for a in s["artifacts"] for o in a["objects"]}


def test_hourly_runs_keep_everything_restorable(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    d = Day2(world, monkeypatch)
    w = world
    home = w.home
    # ---- run 1: the home as generated, plus neutral sessions (one with a torn last line)
    d.c1.append("hello")
    d.c2.append("torn", torn=True)
    d.c3.append("victim")
    d.x.start()
    d.p.write(version=2)
    d.note(d.c1.path, d.c3.path, d.x.path, d.p.path)
    # a line still being written is not archived: the complete lines are (the next run has the rest)
    d.expect[d.rel(d.c2.path)] = d.c2.path.read_bytes().rsplit(b"\n", 1)[0] + b"\n"
    first = d.run()
    assert first["sessions"]["failed"] == 0 and first["snapshot"]

    # ---- run 2: appends, rows in live WAL stores, a subagent appears; one session unreadable
    d.c1.append("second")
    sub = d.c1.subagent("a0123456789abcdef")
    d.x.turn("second")
    oc = live(w, home / ".local" / "share" / "opencode" / "opencode.db")
    oc.execute("INSERT INTO session_message VALUES (?, ?, ?, ?, ?, ?, ?)",
               ("msg_day2000000000000000000001", opencode_sample.SES_A, "user", 99, 1767261700000, 1767261700000,
                '{"role":"user","parts":[{"type":"text","text":"one more thing"}]}'))
    chat1 = next((home / ".cursor" / "chats").rglob(f"{cursor_sample.CHAT1}/store.db"))
    cur = live(w, chat1)
    cur.execute("INSERT INTO blobs (id, data) VALUES (?, ?)", ("f" * 64, b"a new blob the agent wrote"))
    assert wal_frames(chat1) and wal_frames(home / ".local" / "share" / "opencode" / "opencode.db")
    chat2 = next((home / ".cursor" / "chats").rglob(f"{cursor_sample.CHAT2}/store.db"))
    saved = chat2.read_bytes()
    chat2.write_bytes(b"\0garbage, not a database\0" * (len(saved) // 26 + 1))  # torn copy / bad sector
    if not ROOT:
        d.c3.append("unreadable now")
        d.c3.path.chmod(0)
    d.note(d.c1.path, sub, d.x.path)
    second = d.run(expect=1, changing=(".local/share/opencode/", f"/{cursor_sample.CHAT1}/"))
    failed = {f"cursor-agent:{cursor_sample.CHAT2}"} | (set() if ROOT else {d.c3.key})
    assert second["sessions"]["failed"] == len(failed), second
    assert all(any(k.split(":", 1)[1] in e or "store.db" in e for e in second["errors"]) for k in failed), second["errors"]
    assert d.c1.key in d.w.ls() and "claude-code:a0123456789abcdef" in d.w.ls()
    at_run2 = second["_clock"]
    c1_at_run2 = d.c1.path.read_bytes()

    # ---- run 3: the unreadable session recovers, the torn line is completed, pi migrates in place
    chat2.write_bytes(saved)
    if not ROOT:
        d.c3.path.chmod(0o600)
        d.note(d.c3.path)
    d.c2.complete()
    d.p.write(version=3)  # rewritten in place with the current version
    revert = d.x.revert("0199d2d2-0000-7000-8000-00000000ee01")
    d.note(d.c2.path, d.p.path, revert)
    third = d.run()
    assert third["sessions"]["failed"] == 0

    # ---- run 4: Claude's cleanup deletes a transcript; Codex moves an idle rollout to .zst; rows go
    old_codex = d.rel(d.x.path)
    d.c1.append("last words")
    d.note(d.c1.path)
    d.run()
    d.c1.cleanup()
    d.expect.pop(old_codex)
    d.x.archive_idle()
    d.note(d.x.path)
    oc.execute("DELETE FROM session_message WHERE session_id = ?", (opencode_sample.SES_N,))
    oc.execute("DELETE FROM session_v2 WHERE id = ?", (opencode_sample.SES_N,))
    fifth = d.run(changing=(".local/share/opencode/",), moved=(old_codex,))
    assert fifth["sessions"]["failed"] == 0
    listed = d.w.ls()
    assert d.c1.key in listed and f"opencode:{opencode_sample.SES_N}" in listed

    # ---- run 6: nothing changed
    sixth = d.run()
    assert sixth["snapshot"] is None and sixth["sessions"]["uploaded"] == 0

    # ---- restore --at: the deleted session as it was at run 2
    w.restore(w.base / "at2", d.c1.key, at=at_run2)
    assert (w.base / "at2" / d.rel(d.c1.path)).read_bytes() == c1_at_run2

    # ---- status and metrics agree with the runs
    st = w.cli("status")
    assert st["runs_recorded"] == len(w.runs)
    last = st["last_run"]
    assert last["sessions"] == sixth["sessions"] and last["result"] == "ok"
    m = prom(w.metrics)
    for state, n in sixth["sessions"].items():
        assert m[f'archiver_sessions{{"state": "{state}"}}'] == n, (state, m)
    assert m["archiver_failures_total"] == sum(1 for x in w.runs if x["_exit"] != 0)

    # ---- prune: keep the last 2 snapshots; what they name stays, the rest goes
    snaps = {s["key"]: s for s in w.cli("snapshots", identity=True)["snapshots"]}
    before_objects = _stored_objects(w)
    latest_refs = _referenced(w)
    pr = w.cli("prune", "--keep-last", "2", "--grace", "0", identity=True)
    kept = set(pr["manifests"]["kept"])
    assert len(kept) >= 2 and kept | set(pr["manifests"]["removed"]) == set(snaps)
    assert set(pr["manifests"]["removed"]), "nothing pruned: the policy did not apply"
    after_objects = _stored_objects(w)
    named_by_kept = set().union(*(_referenced(w, at=snaps[k]["created_at"]) for k in kept))
    assert named_by_kept <= after_objects, "an object a kept snapshot names was deleted"
    assert after_objects == named_by_kept, "unreferenced objects were left"
    assert after_objects < before_objects  # the superseded states' objects went
    assert _referenced(w) == latest_refs
    d.prev, d.verify_every_run = {}, True
    d.run()  # the checks again: every session's latest state restorable, verify --read-data ok
    assert set(w.ls()) >= d.seen
