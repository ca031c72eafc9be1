"""A JSONL file whose last line has no newline: the partial line is held back (it may still be
being written), and once the file has not changed for snapshot.TORN_TAIL_STALE the run says so,
every run, naming the session and the file by its archived path and the bytes held back.

Fixtures follow the seeds: a Claude Code transcript (append mode) under projects/<key>/, a pi
session of an older version (whole mode: pi rewrites it on open). The CLI runs in process on a
file:// store (tests/fx_home.py); a stale file is made with os.utime, never by waiting.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from archiver.snapshot import TORN_TAIL_STALE, torn_tail
from tests.fx_home import UUID_A, UUID_F, USER, Box, _line, box  # noqa: F401

CWD = f"/home/{USER}/app"
KEY = "-" + CWD[1:].replace("/", "-")
PARTIAL = '{"type":"assistant","sessionId":"' + UUID_A + '","message":{"role":"assistant","content":"half a li'


def _rec(n: int, sid: str = UUID_A) -> dict[str, Any]:
    return {"type": "user", "sessionId": sid, "uuid": f"11111111-2222-4333-8444-{n:012d}",
            "parentUuid": None if n == 0 else f"11111111-2222-4333-8444-{n - 1:012d}", "cwd": CWD,
            "timestamp": f"2026-01-02T03:04:{n:02d}.000Z", "message": {"role": "user", "content": f"line {n}"}}


def _claude(box: Box, sid: str = UUID_A, torn: bool = True) -> Path:
    project = box.home / ".claude" / "projects" / KEY
    project.mkdir(parents=True, exist_ok=True)
    f = project / f"{sid}.jsonl"
    f.write_text(_line(_rec(0, sid)) + _line(_rec(1, sid)) + (PARTIAL if torn else ""))
    return f


def _age(f: Path, seconds: float) -> None:
    t = time.time() - seconds
    os.utime(f, (t, t))


def _torn_warnings(out: dict[str, Any]) -> list[str]:
    return [w for w in out["warnings"] if "held back" in w]


def _archived(box: Box, key: str, role: str = "transcript") -> str:
    [path] = [a["path"] for a in box.ls()[key]["artifacts"] if a["role"] == role]
    return path  # type: ignore[no-any-return]


def _restored(box: Box, key: str, path: str) -> bytes:
    to = box.base / f"restored-{time.monotonic_ns()}"
    box.cli("restore", key, "--to", str(to))
    return (to / path).read_bytes()


def test_torn_tail_measures_what_a_snapshot_leaves_out(tmp_path: Path) -> None:
    f = tmp_path / "t.jsonl"
    f.write_bytes(b'{"a":1}\n{"b":')
    assert torn_tail(f)[0] == 5 and torn_tail(f, whole=True)[0] == 5
    f.write_bytes(b'{"a":1}\n{"b":2}')  # complete JSON without its newline: whole mode keeps it
    assert torn_tail(f)[0] == 7 and torn_tail(f, whole=True)[0] == 0
    f.write_bytes(b'{"a":1}\n')
    assert torn_tail(f)[0] == 0
    f.write_bytes(b"")
    assert torn_tail(f)[0] == 0


def test_a_fresh_torn_line_is_held_back_quietly_then_reported_once_stale(box: Box) -> None:
    """The harness crashed mid-write and the file never changes again: the first run (file just
    written) is quiet, a later run, with the same bytes but an old mtime, reports it: the fast path
    takes a session holding back a line only while its file is fresh (sync._signed_as), else the
    second run would take the session as stored and never say a word."""
    box.only("claude-code")
    f = _claude(box)
    key = f"claude-code:{UUID_A}"
    first = box.sync()
    assert _torn_warnings(first) == [] and not first["session_warnings"].get(key)
    archived = _archived(box, key)
    assert USER not in archived and archived.endswith(f"/{UUID_A}.jsonl")

    _age(f, TORN_TAIL_STALE + 60)  # nothing written since: only the clock moved
    second = box.sync()
    held = len(PARTIAL.encode())
    [run_warning] = _torn_warnings(second)
    assert run_warning.startswith(f"{key}: {archived}: ") and f"{held} byte(s) held back" in run_warning, run_warning
    assert USER not in run_warning and "half a li" not in run_warning  # archived path, never content
    [session_warning] = [w for w in second["session_warnings"][key] if "held back" in w]
    assert run_warning == f"{key}: {session_warning}"
    assert [w for w in box.ls()[key]["warnings"] if "held back" in w] == [session_warning]  # in the manifest
    # still held back: the archive has the two complete lines only
    restored = _restored(box, key, archived)
    assert [json.loads(x)["message"]["content"] for x in restored.splitlines()] == ["line 0", "line 1"]
    assert restored.endswith(b"\n") and b"half a li" not in restored

    status = box.cli("status")
    assert status["last_run"]["warnings"] >= 1 and status["last_run"]["result"] == "ok"

    # said once: later runs take the session as stored (its files as they were), and the manifest
    # keeps the warning; the store is not even opened for it
    third = box.sync()
    assert _torn_warnings(third) == [] and third["sessions"]["unchanged"] == 1
    assert third["sessions"]["uploaded"] == 0 and third["sessions"]["failed"] == 0 and third["snapshot"] is None
    assert [w for w in box.ls()[key]["warnings"] if "held back" in w] == [session_warning]


def test_a_stale_torn_line_completed_later_is_archived_and_the_warning_goes(box: Box) -> None:
    box.only("claude-code")
    f = _claude(box)
    _age(f, 3600)
    key = f"claude-code:{UUID_A}"
    assert len(_torn_warnings(box.sync())) == 1
    with f.open("a") as out:  # the harness came back and finished the line
        out.write('ne"}}\n')
    after = box.sync()
    assert _torn_warnings(after) == [] and not [w for w in after["session_warnings"].get(key, []) if "held back" in w]
    restored = _restored(box, key, _archived(box, key))
    assert json.loads(restored.splitlines()[-1])["message"]["content"] == "half a line"
    assert not [w for w in box.ls()[key]["warnings"] if "held back" in w]


def test_one_stale_torn_session_is_reported_and_the_others_archived(box: Box) -> None:
    box.only("claude-code")
    torn = _claude(box, UUID_A)
    whole = _claude(box, UUID_F, torn=False)
    _age(torn, 3600)
    _age(whole, 3600)
    out = box.sync()
    assert out["sessions"]["failed"] == 0 and out["errors"] == []
    assert [w.split(":", 2)[:2] for w in _torn_warnings(out)] == [["claude-code", UUID_A]]
    restored = _restored(box, f"claude-code:{UUID_F}", _archived(box, f"claude-code:{UUID_F}"))
    assert len(restored.splitlines()) == 2


def test_a_whole_mode_pi_file_with_a_stale_torn_line(box: Box) -> None:
    """pi version 2 (rewritten by pi's migration on open: snapshotted whole): the torn final line
    is left out of the object and reported the same way; a final line that parses is kept."""
    box.only("pi")
    sid = "0b0e5f4e-aaaa-4bbb-8ccc-ddddeeeeffff"
    folder = box.home / ".pi" / "agent" / "sessions" / ("--" + CWD[1:].replace("/", "-") + "--")
    folder.mkdir(parents=True)
    f = folder / f"2026-01-02T03-04-05-000Z_{sid}.jsonl"
    header = {"type": "session", "version": 2, "id": sid, "timestamp": "2026-01-02T03:04:05.000Z", "cwd": CWD}
    msg = {"type": "message", "id": "a1b2c3d4", "parentId": None, "timestamp": "2026-01-02T03:04:06.000Z",
           "message": {"role": "user", "content": "hello", "timestamp": 1767323046000}}
    tail = '{"type":"message","id":"e5f6a7b8","parentId":"a1b2c3d4","message":{"role":"assis'
    f.write_text(_line(header) + _line(msg) + tail)
    _age(f, 3600)
    key = f"pi:{sid}"
    out = box.sync()
    archived = _archived(box, key)
    [warning] = _torn_warnings(out)
    assert warning.startswith(f"{key}: {archived}: ") and f"{len(tail)} byte(s) held back" in warning
    assert USER not in warning
    restored = _restored(box, key, archived)
    assert restored.endswith(b"\n") and json.loads(restored.splitlines()[-1])["id"] == "a1b2c3d4"

    f.write_text(_line(header) + _line(msg) + json.dumps({"type": "label", "id": "c0ffee00"}))  # parses: kept
    _age(f, 3600)
    out = box.sync()
    assert _torn_warnings(out) == []
    assert json.loads(_restored(box, key, archived).splitlines()[-1])["id"] == "c0ffee00"


def test_a_session_taken_as_stored_by_an_older_version_is_looked_at_again(box: Box, monkeypatch: Any) -> None:
    """Upgrading: a session archived by a version that did not look at torn tails has a stored
    signature that took it the fast way; that signature no longer matches, so the first run
    after the upgrade goes the long way and reports a file left torn long ago."""
    from archiver import sync

    box.only("claude-code")
    f = _claude(box)
    with monkeypatch.context() as old:  # the version before: no torn-tail look, signatures without it
        old.setattr(sync, "_SIGNATURE_TAGS", ())
        old.setattr(sync.Syncer, "_torn_tail", staticmethod(lambda src, st: 0))
        _age(f, 3600)
        assert _torn_warnings(box.sync()) == []
        assert box.sync()["sessions"]["unchanged"] == 1  # taken as stored
    assert len(_torn_warnings(box.sync())) == 1
