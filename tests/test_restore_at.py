"""Point-in-time reads: `--at TIME` on ls, lineage, restore and export, and `archiver snapshots`,
on a file:// store with real age keys. A Claude Code transcript is archived, rewritten shorter
(as compaction does) and archived again: `--at` between the two syncs gives the first state
byte for byte. Prune, missing objects and forget-session tombstones are respected."""

from __future__ import annotations

import contextlib
import io
import json
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from archiver.cli import main
from archiver.commands.reading import iso_utc, parse_at
from archiver.demo.claude_sample import ClaudeSample, make_claude_home
from tests.fx_home import USER, Box, box  # noqa: F401
from tests.fx_s32_relinks import rooted

UTC = timezone.utc


def _cli(box: Box, *args: str, expect: int | None = 0) -> Any:  # noqa: F811
    """A command with --json; all but sync with the reviewer's identity."""
    buf = io.StringIO()
    argv = [args[0], "--config", str(box.config), *args[1:], "--json"]
    if args[0] != "sync":
        argv += ["--identity", str(box.base / "keys" / "identity.txt")]
    with contextlib.redirect_stdout(buf):
        code = main(argv)
    if expect is not None:
        assert code == expect, (code, buf.getvalue()[:3000])
    return json.loads(buf.getvalue()) if buf.getvalue() else None


def _tree(root: Path) -> dict[str, bytes]:
    """The files under root, its own path in them (a path restore names a restored file by) as <ROOT>."""
    return {str(p.relative_to(root)): rooted(p.read_bytes(), root) for p in sorted(root.rglob("*")) if p.is_file()}


def _transcript(s: ClaudeSample) -> Path:
    return s.root / "projects" / s.project_key / f"{s.main}.jsonl"


def _between(a: str, b: str) -> str:
    ta, tb = (datetime.fromisoformat(x.replace("Z", "+00:00")) for x in (a, b))
    mid = ta + (tb - ta) / 2
    assert ta < mid < tb
    return mid.isoformat().replace("+00:00", "Z")


def _two_states(box: Box) -> tuple[ClaudeSample, str, str]:  # noqa: F811
    """Sync, rewrite the main transcript shorter, sync again: the two manifests' created_at."""
    box.only("claude-code")
    s = make_claude_home(box.home, USER)
    assert box.sync()["snapshot"]
    lines = _transcript(s).read_bytes().splitlines(keepends=True)
    _transcript(s).write_bytes(b"".join(lines[: len(lines) // 2]))  # compacted: the first half stays
    time.sleep(0.01)
    assert box.sync()["snapshot"]
    snaps = _cli(box, "snapshots")["snapshots"]
    assert len(snaps) == 2 and len({x["host_id"] for x in snaps}) == 1
    first, second = (x["created_at"] for x in snaps)
    assert first < second
    return s, first, second


# ---------------------------------------------------------------- TIME
def test_parse_at_forms() -> None:
    now = datetime(2026, 11, 30, 12, 0, 0, tzinfo=UTC)
    assert parse_at("2026-11-30T12:00:00Z") == datetime(2026, 11, 30, 12, tzinfo=UTC)
    assert parse_at("2026-11-30T13:00+01:00") == datetime(2026, 11, 30, 12, tzinfo=UTC)
    assert parse_at("2026-11-30T12:00") == datetime(2026, 11, 30, 12, tzinfo=UTC)  # naive is UTC
    assert parse_at("2026-11-30T12:00:00.250Z") == datetime(2026, 11, 30, 12, 0, 0, 250000, tzinfo=UTC)
    # a date is the end of that day, UTC: everything archived that day counts
    assert parse_at("2026-11-29") == datetime(2026, 11, 29, 23, 59, 59, 999999, tzinfo=UTC)
    assert parse_at("3d", now) == datetime(2026, 11, 27, 12, tzinfo=UTC)
    assert parse_at("12h", now) == datetime(2026, 11, 30, 0, tzinfo=UTC)
    assert parse_at("90m", now) == datetime(2026, 11, 30, 10, 30, tzinfo=UTC)
    assert parse_at(" 2w ", now) == datetime(2026, 11, 16, 12, tzinfo=UTC)


@pytest.mark.parametrize("bad", ["yesterday", "2026-13-01", "3x", "", "-3d", "2026-11-30T25:00", "1e400d"])
def test_bad_at_is_a_usage_error_naming_the_value(box: Box, bad: str,  # noqa: F811
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    ident = str(box.base / "keys" / "identity.txt")
    for argv in (["ls"], ["lineage"], ["restore", "--all", "--to", str(box.base / "r")], ["export", "claude-code:x"],
                 ["snapshots"]):
        code = main([*argv, "--config", str(box.config), "--identity", ident, f"--at={bad}"])
        assert code == 2, (argv, bad)
        assert f"--at: cannot read {bad!r} as a time" in capsys.readouterr().err
    assert not (box.base / "r").exists()


# ---------------------------------------------------------------- the two states
def test_restore_at_gives_the_earlier_state_byte_for_byte(box: Box) -> None:  # noqa: F811
    box.only("claude-code")
    s = make_claude_home(box.home, USER)
    before_first = (datetime.now(UTC) - timedelta(seconds=1)).isoformat()
    assert box.sync()["snapshot"]
    first_restore = box.base / "r1"
    assert _cli(box, "restore", "--all", "--to", str(first_restore))["integrity_errors"] == []
    state1 = _tree(first_restore)
    rel = next(k for k in state1 if k.endswith(f"{s.main}.jsonl"))
    lines = _transcript(s).read_bytes().splitlines(keepends=True)
    keep = len(lines) // 2
    _transcript(s).write_bytes(b"".join(lines[:keep]))  # rewritten shorter, as compaction does
    time.sleep(0.01)
    assert box.sync()["snapshot"]
    snaps = _cli(box, "snapshots")["snapshots"]
    first, second = (x["created_at"] for x in snaps)
    assert [x["sessions"] for x in snaps] == [len(box.ls())] * 2
    assert snaps[0]["bytes"] > snaps[1]["bytes"] and snaps[1]["bytes"] > 0

    for at in (first, _between(first, second)):  # at the first manifest's own time, and after it
        out = box.base / f"r-{at.replace(':', '')}"
        r = _cli(box, "restore", "--all", "--at", at, "--to", str(out))
        assert r["integrity_errors"] == [] and r["at"] == iso_utc(parse_at(at))
        assert _tree(out) == state1

    latest = box.base / "r-latest"
    _cli(box, "restore", "--all", "--to", str(latest))
    now_tree = _tree(latest)
    redacted_lines = state1[rel].splitlines(keepends=True)
    assert now_tree[rel] == b"".join(redacted_lines[:keep]) and now_tree[rel] != state1[rel]
    later = box.base / "r-later"
    _cli(box, "restore", "--all", "--at", second, "--to", str(later))
    assert _tree(later) == now_tree

    # one session, by key, as of the first state
    one = box.base / "r-one"
    _cli(box, "restore", f"claude-code:{s.main}", "--at", first, "--to", str(one))
    assert rooted((one / rel).read_bytes(), one) == state1[rel]

    # ls, lineage and export read the same past
    at_first = {x["key"]: x for x in _cli(box, "ls", "--at", first)["sessions"]}
    now_ls = box.ls()
    assert set(at_first) == set(now_ls)
    main_key = f"claude-code:{s.main}"
    assert at_first[main_key]["artifacts"] != now_ls[main_key]["artifacts"]
    assert sum(a["size"] for a in at_first[main_key]["artifacts"]) > sum(a["size"] for a in now_ls[main_key]["artifacts"])
    lin = _cli(box, "lineage", "--at", first)
    assert lin["nodes"] == _cli(box, "lineage")["nodes"] and main_key in lin["nodes"] and lin["at"]
    old_doc = _cli(box, "export", main_key, "--format", "md", "--at", first)
    new_doc = _cli(box, "export", main_key, "--format", "md")
    assert old_doc["entries"] > new_doc["entries"] and old_doc["document"] != new_doc["document"]

    # before the first sync the host had nothing: ls is empty and says which host and why
    empty = _cli(box, "ls", "--at", before_first)
    host = snaps[0]["host_id"]
    assert empty["sessions"] == [] and [h["host_id"] for h in empty["hosts_without_state"]] == [host]
    assert empty["hosts_without_state"][0]["first_snapshot"] == first[:19] + "Z"
    assert _cli(box, "ls")["hosts_without_state"] == [] and _cli(box, "ls")["at"] is None
    assert _cli(box, "snapshots", "--at", before_first)["snapshots"] == []
    assert [x["created_at"] for x in _cli(box, "snapshots", "--at", first)["snapshots"]] == [first]
    code = main(["restore", main_key, "--at", before_first, "--to", str(box.base / "r-none"), "--config",
                 str(box.config), "--identity", str(box.base / "keys" / "identity.txt")])
    assert code == 2 and not (box.base / "r-none").exists()
    # a date before the first sync: that day's end is before it too
    yesterday = (datetime.fromisoformat(first.replace("Z", "+00:00")) - timedelta(days=1)).date().isoformat()
    assert _cli(box, "ls", "--at", yesterday)["sessions"] == []
    assert set(x["key"] for x in _cli(box, "ls", "--at", "0m")["sessions"]) == set(now_ls)


# ---------------------------------------------------------------- prune and missing objects
def test_a_pruned_state_is_gone_and_a_state_missing_objects_fails_per_session(box: Box,  # noqa: F811
                                                                             capsys: pytest.CaptureFixture[str]) -> None:
    s, first, second = _two_states(box)
    main_key = f"claude-code:{s.main}"
    old = {x["key"]: x for x in _cli(box, "ls", "--at", first)["sessions"]}
    new = {x["key"]: x for x in _cli(box, "ls")["sessions"]}
    named_now = {o for x in new.values() for a in x["artifacts"] for o in a["objects"]}
    only_old = {o for a in old[main_key]["artifacts"] for o in a["objects"]} - named_now
    assert only_old

    # an object of the older state deleted behind the archive's back (by hand, a lifecycle rule):
    # restore of that state reports the session (exit 3), restores the others, and does not crash
    for oid in only_old:
        (box.base / "store" / "objects" / oid[:2] / oid).unlink()
    r = _cli(box, "restore", "--all", "--at", first, "--to", str(box.base / "r-old"), expect=3)
    assert r["integrity_errors"] and all(e.startswith(f"{main_key}: ") for e in r["integrity_errors"])
    assert any("missing from the store" in e for e in r["integrity_errors"])
    assert main_key not in r["sessions"] and set(r["sessions"]) == set(old) - {main_key}
    assert not any(f.endswith(f"{s.main}.jsonl") for f in r["files"])
    e = _cli(box, "export", main_key, "--at", first, "--format", "md", expect=3)
    assert any("missing from the store" in x for x in e["integrity_errors"])
    assert _cli(box, "restore", "--all", "--to", str(box.base / "r-new"))["integrity_errors"] == []

    # prune drops the older manifest and what only it named: that time now has no state of this host
    pr = _cli(box, "prune", "--keep-last", "1", "--grace", "0")
    assert len(pr["manifests"]["removed"]) == 1
    listed = _cli(box, "ls", "--at", first)
    assert listed["sessions"] == [] and listed["hosts_without_state"][0]["first_snapshot"] == second[:19] + "Z"
    capsys.readouterr()
    code = main(["restore", main_key, "--at", first, "--to", str(box.base / "r-pruned"), "--config",
                 str(box.config), "--identity", str(box.base / "keys" / "identity.txt")])
    assert code == 2 and f"no session {main_key!r} in the archive as of " in capsys.readouterr().err
    # what prune kept still has every object
    r = _cli(box, "restore", "--all", "--at", second, "--to", str(box.base / "r-kept"))
    assert r["integrity_errors"] == [] and main_key in r["sessions"]
    assert _cli(box, "verify", "--read-data")["ok"] is True


# ---------------------------------------------------------------- forget-session
def test_a_forgotten_session_never_comes_back_through_an_older_manifest(box: Box) -> None:  # noqa: F811
    s, first, second = _two_states(box)
    fork = f"claude-code:{s.fork}"
    assert fork in {x["key"] for x in _cli(box, "ls", "--at", first)["sessions"]}
    manifests = sorted((box.base / "store" / "snapshots").rglob("*.json.age"))
    kept = {p: p.read_bytes() for p in manifests}
    out = _cli(box, "forget-session", fork, "--grace", "0")
    assert out["complete"] is True and len(out["manifests"]["rewritten"]) == 2
    # the old manifests come back, as when forget-session could not delete them after writing their
    # replacements (it reports that) or a versioned bucket's old version is restored
    for p, blob in kept.items():
        p.write_bytes(blob)
    snaps = _cli(box, "snapshots")["snapshots"]
    assert len(snaps) == 4  # each time twice: the original and its rewrite
    for args in ((), ("--at", first), ("--at", _between(first, second)), ("--at", second)):
        listed = {x["key"] for x in _cli(box, "ls", *args)["sessions"]}
        assert fork not in listed and f"claude-code:{s.main}" in listed, args
        assert fork not in _cli(box, "lineage", *args)["nodes"], args
        code = main(["restore", fork, *args, "--to", str(box.base / "r-fork"), "--config", str(box.config),
                     "--identity", str(box.base / "keys" / "identity.txt")])
        assert code == 2 and not (box.base / "r-fork").exists(), args
    r = _cli(box, "restore", "--all", "--at", first, "--to", str(box.base / "r-all"))
    assert fork not in r["sessions"] and not any(s.fork in f for f in r["files"])
    # the session counts of the restored old manifests leave it out too
    assert {x["sessions"] for x in snaps} == {len(box.ls())}


def test_without_the_team_key_a_reader_says_it_cannot_apply_tombstones(box: Box) -> None:  # noqa: F811
    s, first, _ = _two_states(box)
    _cli(box, "forget-session", f"claude-code:{s.fork}", "--grace", "0")
    assert _cli(box, "ls", "--at", first)["notes"] == []
    box.config.write_text("\n".join(line for line in box.config.read_text().splitlines()
                                    if not line.startswith("team_key_file")) + "\n")
    listed = _cli(box, "ls", "--at", first)
    assert len(listed["notes"]) == 1 and "erased by forget-session" in listed["notes"][0]
    assert f"claude-code:{s.fork}" not in {x["key"] for x in listed["sessions"]}  # the rewrite removed it


def test_restore_and_export_open_the_store_once(box: Box, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    from archiver import runtime

    box.only("claude-code")
    s = make_claude_home(box.home, USER)
    assert box.sync()["snapshot"]
    opened: list[int] = []
    real = runtime.store

    def counting_store(settings: Any, **kw: Any) -> Any:
        opened.append(1)
        return real(settings, **kw)

    monkeypatch.setattr(runtime, "store", counting_store)
    assert _cli(box, "restore", "--all", "--to", str(box.base / "r"))["integrity_errors"] == []
    assert len(opened) == 1
    opened.clear()
    key = next(x["key"] for x in _cli(box, "ls")["sessions"] if x["session_id"] == s.main)
    opened.clear()
    assert _cli(box, "export", key)["integrity_errors"] == []
    assert len(opened) == 1
