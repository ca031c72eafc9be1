"""Collectors read small harness files by name at discovery (a transcript's first lines, a
meta.json, an index, an info file). Each read goes through snapshot.open_regular: a file
swapped for a symlink (to a file outside the home) or a FIFO between the collector's check
and its open is refused with a warning naming it, never followed, never blocked on; the
canary's facts (a title, a cwd) reach neither `archiver scan --json` nor the manifest.

The race is made deterministic by swapping the victim right after the first stat of its name
(pathlib's stat, which is_file() uses, or os.path.lexists): the check the collector makes."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import pathlib
import threading
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

from archiver.cli import main
from archiver.harnesses.base import HarnessContext
from archiver.redact.base import RedactionReport
from tests.fx_home import USER, Box, box  # noqa: F401
from tests.test_s15_harden_snapshot import _to_symlink

CANARY = "s15dreadcanary"  # in every fact the canary files would give (title, cwd, name)
CANARY_CWD = f"/srv/{CANARY}-cwd"

# the victim (home-relative glob) each harness reads at discovery, and a canary file of its shape
VICTIMS = {
    "claude-code": ".claude/projects/*/d23f0824-128b-4f33-8c5c-7fd0a6a3a450.jsonl",
    "claude-code-meta": ".claude/projects/*/6513270e-269e-4d37-b2a7-4de452e6b438/subagents/agent-a8555b07f0d820fa7.meta.json",
    "codex": ".codex/sessions/2026/01/05/rollout-*-0199b0c1-2d3e-7f40-8a1b-000000000010.jsonl",
    "codex-index": ".codex/session_index.jsonl",
    "pi": ".pi/agent/sessions/*/2026-01-02T09-00-00-000Z_01890a5d-ac96-774b-bcce-b302099a8058.jsonl",
    "deepseek-harness": ".deepseek/sessions/ds-01J9Z8K7M6N5P4Q3R2S1T0V9F2.jsonl",
    "cursor-agent": ".cursor/chats/*/22222222-2222-4222-8222-222222222222/meta.json",
    "opencode": ".local/share/opencode/storage/session/proj_s15/ses_s15dreadinfo.json",
}
HARNESS_OF = {v: v.split("-meta")[0].split("-index")[0] for v in VICTIMS}


def _line(obj: Any) -> bytes:
    return json.dumps(obj, separators=(",", ":")).encode() + b"\n"


def _canary_bytes(victim: str) -> bytes:
    """A file of the victim's shape whose facts are all the canary."""
    if victim == "claude-code":
        return (_line({"type": "user", "uuid": "u1", "sessionId": "x", "cwd": CANARY_CWD, "timestamp": "2026-01-01T00:00:00Z",
                       "message": {"role": "user", "content": CANARY}})
                + _line({"type": "custom-title", "customTitle": CANARY, "sessionId": "x"}))
    if victim == "claude-code-meta":
        return _line({"agentType": "general-purpose", "description": CANARY, "toolUseId": "toolu_canary"})
    if victim == "codex":
        return _line({"timestamp": "2026-01-05T08:00:00Z", "type": "session_meta",
                      "payload": {"id": "0199b0c1-2d3e-7f40-8a1b-000000000010", "cwd": CANARY_CWD, "timestamp": "2026-01-05T08:00:00Z",
                                  "forked_from_id": f"{CANARY}-parent"}})  # scan shows parents
    if victim == "codex-index":
        return b"".join(_line({"id": f"0199b0c1-2d3e-7f40-8a1b-0000000000{n}", "thread_name": CANARY,
                               "updated_at": "2026-01-05T08:00:00Z"}) for n in ("0a", "0c", "0e", "0f", "10", "0b", "0d"))
    if victim == "pi":
        return (_line({"type": "session", "version": 3, "id": "01890a5d-ac96-774b-bcce-b302099a8058",
                       "timestamp": "2026-01-02T09:00:00.000Z", "cwd": CANARY_CWD})
                + _line({"type": "session_info", "id": "e1", "parentId": None, "timestamp": "2026-01-02T09:00:01.000Z",
                         "name": CANARY}))
    if victim == "deepseek-harness":
        return (_line({"type": "session", "v": 1, "id": "ds-01J9Z8K7M6N5P4Q3R2S1T0V9F2", "cwd": CANARY_CWD,
                       "createdAt": "2026-01-01T00:00:00Z"})
                + _line({"type": "session/title", "seq": 1, "data": {"title": CANARY}}))
    if victim == "cursor-agent":
        return json.dumps({"schemaVersion": 1, "title": CANARY, "cwd": CANARY_CWD, "createdAtMs": 1760000000000}).encode()
    if victim == "opencode":
        return json.dumps({"id": "ses_s15dreadinfo", "title": CANARY, "directory": CANARY_CWD,
                           "time": {"created": 1760000000000, "updated": 1760000000000}}).encode()
    raise AssertionError(victim)


@pytest.fixture
def home(box: Box) -> Box:  # noqa: F811
    from archiver.demo.run import make_sample_home

    make_sample_home(box.home, USER)
    info = box.home / VICTIMS["opencode"]  # an OpenCode storage info file (older layout), read at discovery
    info.parent.mkdir(parents=True)
    info.write_text(json.dumps({"id": "ses_s15dreadinfo", "title": "storage info", "directory": "/srv/app",
                                "time": {"created": 1760000000000, "updated": 1760000000000}}))
    return box


def _victim(box: Box, victim: str) -> Path:
    [p] = sorted(box.home.glob(VICTIMS[victim]))
    return p


def _canary(box: Box, victim: str) -> Path:
    out = box.base / "elsewhere"
    out.mkdir(exist_ok=True, mode=0o700)
    p = out / Path(VICTIMS[victim]).name
    p.write_bytes(_canary_bytes(victim))
    return p


def _to_fifo(p: Path) -> None:
    p.unlink()
    os.mkfifo(p)


@contextlib.contextmanager
def _swap_after_check(victim: Path, swap: Callable[[Path], None], nth: int = 1) -> Iterator[list[str]]:
    """Swap `victim` right after the `nth` stat, lstat or lexists of its name (the collector's
    check: is_file() is a stat, is_symlink() an lstat)."""
    real_stat, real_lexists = pathlib.Path.stat, os.path.lexists
    done: list[str] = []
    seen = [0]

    def after(p: Any) -> None:
        if not done and os.fspath(p) == str(victim):
            seen[0] += 1
            if seen[0] == nth:
                done.append(str(victim))
                swap(victim)

    def stat(self: Path, *, follow_symlinks: bool = True) -> os.stat_result:
        st = real_stat(self, follow_symlinks=follow_symlinks)
        after(self)
        return st

    def lexists(p: Any) -> bool:
        out = real_lexists(p)
        after(p)
        return out

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(pathlib.Path, "stat", stat)
        mp.setattr(os.path, "lexists", lexists)
        yield done


def _cli(box: Box, *args: str) -> tuple[int, dict[str, Any]]:
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(io.StringIO()):
        code = main([args[0], "--config", str(box.config), *args[1:], "--json"])
    return code, json.loads(buf.getvalue())


def _in_thread(fn: Callable[[], Any], fifo: Path, timeout: float = 20) -> Any:
    """fn() in a thread: fails when it blocks (a reader stuck on the FIFO is released first so
    the thread ends, as on the old code)."""
    out: dict[str, Any] = {}

    def run() -> None:
        try:
            out["r"] = fn()
        except BaseException as e:  # noqa: BLE001 - reported below
            out["e"] = e

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(timeout)
    blocked = t.is_alive()
    while t.is_alive():
        with contextlib.suppress(OSError):
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        t.join(0.5)
    assert not blocked, f"discovery blocked on the FIFO {fifo.name}"
    if "e" in out:
        raise out["e"]
    return out["r"]


def _warnings(scan: dict[str, Any]) -> str:
    return "\n".join([*scan["errors"], *(w for s in scan["sessions"] for w in s["warnings"])])


# the races: each victim swapped after the check made right before its read (the check's stat
# calls, counted): Codex checks session_index.jsonl once for the run, then again before reading
# it; OpenCode lists storage files by is_file() and not is_symlink(). (A Claude Code
# .meta.json is read with no check before it: the planted tests below cover it.)
RACES = {"claude-code": 1, "codex": 1, "codex-index": 2, "pi": 1, "deepseek-harness": 1, "cursor-agent": 1, "opencode": 2}


@pytest.mark.parametrize("victim", sorted(RACES))
def test_a_fifo_swapped_in_after_the_check_never_blocks_discovery_and_is_reported(home: Box, victim: str) -> None:
    home.only(HARNESS_OF[victim])
    p = _victim(home, victim)
    with _swap_after_check(p, _to_fifo, RACES[victim]) as done:
        code, scan = _in_thread(lambda: _cli(home, "scan"), p)
    assert done == [str(p)]
    text = _warnings(scan)
    assert p.name in text and "fifo" in text.lower(), text
    assert scan["sessions"], scan  # the harness's other sessions are still found


@pytest.mark.parametrize("victim", sorted(RACES))
def test_a_symlink_swapped_in_after_the_check_is_never_followed(home: Box, victim: str) -> None:
    home.only(HARNESS_OF[victim])
    p = _victim(home, victim)
    with _swap_after_check(p, _to_symlink(_canary(home, victim)), RACES[victim]) as done:
        code, scan = _cli(home, "scan")
    assert done == [str(p)]
    assert CANARY not in json.dumps(scan), [s for s in scan["sessions"] if CANARY in json.dumps(s)]
    text = _warnings(scan)
    assert p.name in text and "symlink" in text, text


@pytest.mark.parametrize("victim", ["claude-code-meta", "cursor-agent", "codex-index", "pi"])
def test_a_planted_symlink_reaches_neither_scan_nor_the_manifest(home: Box, victim: str) -> None:
    """A symlink at a read site (no race: there before the run) to a canary outside the home:
    refused and named; the canary's title/cwd is in neither scan's output nor, after a sync, the
    manifest (`ls`); the harness's other sessions are archived."""
    home.only(HARNESS_OF[victim])
    p = _victim(home, victim)
    _to_symlink(_canary(home, victim))(p)
    code, scan = _cli(home, "scan")
    assert CANARY not in json.dumps(scan)
    assert p.name in _warnings(scan) and "symlink" in _warnings(scan), _warnings(scan)
    home.sync(expect=None)
    listed = home.ls()
    assert listed and CANARY not in json.dumps(listed)


@pytest.mark.parametrize("victim", ["claude-code-meta", "cursor-agent"])
def test_a_planted_fifo_meta_file_is_reported_and_its_session_still_found(home: Box, victim: str) -> None:
    home.only(HARNESS_OF[victim])
    p = _victim(home, victim)
    _to_fifo(p)
    code, scan = _in_thread(lambda: _cli(home, "scan"), p)
    text = _warnings(scan)
    assert p.name in text and "fifo" in text.lower(), text
    chat = "cursor-agent:22222222-2222-4222-8222-222222222222" if victim == "cursor-agent" else "claude-code:a8555b07f0d820fa7"
    assert chat in {s["key"] for s in scan["sessions"]}


def test_a_cursor_store_swapped_for_a_symlink_is_refused_and_the_chat_keeps_its_meta(home: Box) -> None:
    """store.db checked as a regular file, then a symlink to another store (the canary's): the
    store is refused by check_sqlite_files, named in a warning, and the chat's facts from its
    meta.json (its title) are still there."""
    from archiver.harnesses.cursor_agent import CursorAgent

    store = _victim(home, "cursor-agent").with_name("store.db")
    title = json.loads(store.with_name("meta.json").read_bytes())["title"]
    other = home.base / "elsewhere-store.db"
    other.write_bytes(store.read_bytes())
    with _swap_after_check(store, _to_symlink(other), nth=2) as done:  # after is_file() and is_symlink()
        found = {s.key: s for s in CursorAgent(HarnessContext(home=home.home, env={})).discover()}
    assert done == [str(store)]
    s = found["cursor-agent:22222222-2222-4222-8222-222222222222"]
    assert s.title == title
    assert any("store.db" in w and "symlink" in w for w in s.warnings), s.warnings


# ---------------------------------------------------------------- Cursor: a chat without cwd


def _lone_chat(home: Path, cwd: str, chat: str, meta: bool) -> Path:
    from tests.test_harness_cursor import _seed_store

    from archiver.harnesses.cursor_agent import md5_dir

    folder = home / ".cursor" / "chats" / md5_dir(cwd) / chat
    _seed_store(folder / "store.db", {"agentId": chat, "latestRootBlobId": "", "name": "New Agent",
                                      "createdAt": 1760000000000, "mode": "default", "isRunEverything": False})
    if meta:
        (folder / "meta.json").write_text(json.dumps({"schemaVersion": 1, "cwd": cwd, "createdAtMs": 1760000000000}))
    return folder


def test_a_cursor_chat_without_cwd_is_archived_under_a_keyed_folder(box: Box) -> None:  # noqa: F811
    """No meta.json, no sibling: the archived path holds no md5 of the real cwd (an unkeyed hash
    anyone can test guesses on), but a keyed name, the same on every run; a chat whose cwd is
    known is archived under md5 of its redacted cwd, as before."""
    from archiver.harnesses.cursor_agent import md5_dir

    box.only("cursor-agent")
    lost_cwd, known_cwd = f"/home/{USER}/secretproject", f"/home/{USER}/work/app"
    lost, known = "d0000000-0000-4000-8000-000000000001", "d0000000-0000-4000-8000-000000000002"
    _lone_chat(box.home, lost_cwd, lost, meta=False)
    _lone_chat(box.home, known_cwd, known, meta=True)
    box.sync(expect=None)
    paths = {k: [a["path"] for a in s["artifacts"]] for k, s in box.ls().items()}
    lost_paths, known_paths = paths[f"cursor-agent:{lost}"], paths[f"cursor-agent:{known}"]
    real = hashlib.md5(lost_cwd.encode()).hexdigest()
    assert real == md5_dir(lost_cwd)
    assert not [p for p in lost_paths if real in p], lost_paths
    [store] = [p for p in lost_paths if p.endswith("/store.db")]
    parts = store.split("/")
    assert parts[:2] == [".cursor", "chats"] and len(parts[2]) == 32 and all(c in "0123456789abcdef" for c in parts[2])
    # the known chat: md5 of the redacted cwd (the user name is replaced), not of the real one
    red_cwd = box.redactor().redact_text(known_cwd, RedactionReport(), "path")
    assert f".cursor/chats/{md5_dir(red_cwd)}/{known}/store.db" in known_paths, known_paths
    # stable: the keyed digest of the md5 under the team key, the same when computed again
    from archiver.harnesses.cursor_agent import CursorAgent, keyed_workspace

    pseudonyms = box.redactor().pseudonyms
    assert parts[2] == keyed_workspace(real, pseudonyms.digest)
    harness = CursorAgent(HarnessContext(home=box.home, env={}))
    [s] = [s for s in harness.discover() if s.session_id == lost]
    again = harness.redacted_relpath(s.sources[0], s, lambda p: p, lambda t: t, pseudonym=pseudonyms.digest)
    assert again == store
    assert harness.redacted_relpath(s.sources[0], s, lambda p: p, lambda t: t) == f".cursor/chats/{real}/{lost}/store.db"
    assert any("cwd not recorded" in w and "keyed" in w for w in s.warnings), s.warnings
