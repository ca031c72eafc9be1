"""The unchanged-session fast path (Syncer._take_unchanged): a re-sync takes a session as
stored when its discovered metadata and every file's stat identity are as when it was
archived. These tests prove it still notices every kind of change, for Claude Code (JSONL
files) and OpenCode (one SQLite database shared by its sessions, optional sidecars).

Each test: a cold sync, a second sync that takes every session the fast path (no session
goes the long way, no manifest), then one change, then a sync that must archive it."""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from archiver.cli import main
from archiver.model import Session
from archiver.state import State
from archiver.sync import Syncer

SID = "5e55a1b2-0000-4000-8000-000000000001"
OTHER = "5e55a1b2-0000-4000-8000-000000000002"
PROJECT = "-home-alice-app"
TITLE = "Fix the login form"


# ---------------------------------------------------------------- set-up
@dataclass
class Box:
    base: Path
    home: Path
    config: Path
    calls: list[str]  # session keys that went the long way (Syncer._session), this run

    def sync(self, *extra: str) -> dict[str, Any]:
        self.calls.clear()
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            code = main(["sync", "--config", str(self.config), "--json", "--workers", "1", *extra])
        out = json.loads(buf.getvalue())
        assert code == 0, out
        return out

    def stored(self, key: str) -> Session:
        """The session as the last manifest names it (the state is written with it)."""
        state = State(self.base / "state" / "state.db")
        try:
            s = state.get_session(key)
        finally:
            state.close()
        assert s is not None, key
        return s

    def write_config(self, extra: str = "") -> None:
        keys = self.base / "keys"
        self.config.write_text(
            f'home = "{self.home}"\nhost = "laptop"\n'
            f'[redaction]\nteam_key_file = "{keys / "team.key"}"\nusernames = ["alice"]\n{extra}\n'
            f'[encryption]\nrecipients_file = "{keys / "recipient.txt"}"\n'
            f'[store]\nurl = "file://{self.base / "store"}"\n'
            f'[state]\ndir = "{self.base / "state"}"\n'
        )


@pytest.fixture
def box(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Box:
    for var in ("ARCHIVER_CONFIG", "ARCHIVER_TEAM_KEY", "CLAUDE_CONFIG_DIR", "CODEX_HOME", "CURSOR_CONFIG_DIR",
                "CURSOR_DATA_DIR", "PI_CODING_AGENT_DIR", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME",
                "ARCHIVER_IDENTITY_FILE", "OPENCODE_DB"):
        monkeypatch.delenv(var, raising=False)
    b = Box(base=tmp_path, home=tmp_path / "home", config=tmp_path / "config.toml", calls=[])
    b.home.mkdir()
    (tmp_path / "store").mkdir()
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["keygen", "--out", str(tmp_path / "keys")]) == 0
    b.write_config()
    real = Syncer._session

    def spy(self: Syncer, ds: Any, work: Any) -> Any:
        b.calls.append(ds.key)
        return real(self, ds, work)

    monkeypatch.setattr(Syncer, "_session", spy)
    return b


def settle(box: Box) -> dict[str, Any]:
    """Cold sync, then a re-sync that must take every session unchanged, the fast way."""
    first = box.sync()
    assert first["sessions"]["failed"] == 0 and first["snapshot"] is not None
    again = box.sync()
    assert again["sessions"]["unchanged"] == again["sessions"]["total"] == first["sessions"]["total"]
    assert again["snapshot"] is None and again["bytes"]["read"] == 0
    assert box.calls == []  # not one session went the long way
    return again


def same_identity_rewrite(path: Path, data: bytes) -> None:
    """New bytes in place (same inode), same size; then a different mtime."""
    st = path.stat()
    assert len(data) == st.st_size
    with path.open("r+b") as f:
        f.write(data)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 7_000_000_000))
    after = path.stat()
    assert (after.st_ino, after.st_size) == (st.st_ino, st.st_size) and after.st_mtime_ns != st.st_mtime_ns


def new_inode_same_bytes(path: Path) -> None:
    """The same bytes and mtime under a new inode (a copy renamed over it)."""
    st = path.stat()
    tmp = path.with_name(path.name + ".tmp")
    shutil.copyfile(path, tmp)
    os.utime(tmp, ns=(st.st_atime_ns, st.st_mtime_ns))
    os.replace(tmp, path)
    after = path.stat()
    assert after.st_ino != st.st_ino and (after.st_size, after.st_mtime_ns) == (st.st_size, st.st_mtime_ns)


# ---------------------------------------------------------------- Claude Code
def _rec(sid: str, i: int, **kw: Any) -> str:
    rec = {"type": "user", "sessionId": sid, "uuid": f"u-{sid[-4:]}-{i}", "timestamp": f"2026-01-01T00:00:{i:02d}Z",
           "cwd": "/home/alice/app", "message": {"role": "user", "content": f"step {i} of the work"}}
    rec.update(kw)
    return json.dumps(rec) + "\n"


def claude_home(home: Path) -> dict[str, Path]:
    proj = home / ".claude" / "projects" / PROJECT
    (proj / SID / "tool-results").mkdir(parents=True)
    t = proj / f"{SID}.jsonl"
    t.write_text(_rec(SID, 1) + _rec(SID, 2) + json.dumps({"type": "custom-title", "customTitle": TITLE}) + "\n")
    side = proj / SID / "tool-results" / "out-1.txt"
    side.write_text("tool output number one\n")
    other = proj / f"{OTHER}.jsonl"
    other.write_text(_rec(OTHER, 1))
    return {"transcript": t, "sidecar": side, "other": other, "project": proj}


def paths_of(s: Session) -> list[str]:
    return sorted(a.path.rsplit("/", 1)[-1] for a in s.artifacts)


KEY = f"claude-code:{SID}"


def test_claude_append_is_archived(box: Box) -> None:
    f = claude_home(box.home)
    settle(box)
    before = box.stored(KEY).artifacts[0]
    with f["transcript"].open("a") as fh:
        fh.write(_rec(SID, 3))
    out = box.sync()
    assert box.calls == [KEY]  # only the changed session went the long way
    assert out["sessions"]["uploaded"] == 1 and out["snapshot"] is not None
    after = box.stored(KEY).artifacts[0]
    assert after.path == before.path and len(after.objects) == 2 and after.objects[0] == before.objects[0]
    assert after.size > before.size


def test_claude_same_size_rewrite_with_new_mtime_is_archived(box: Box) -> None:
    f = claude_home(box.home)
    settle(box)
    old = {a.path: a for a in box.stored(KEY).artifacts}
    same_identity_rewrite(f["sidecar"], b"TOOL OUTPUT NUMBER ONE\n")
    out = box.sync()
    assert box.calls == [KEY]
    assert out["sessions"]["uploaded"] == 1 and out["bytes"]["read"] == len(b"TOOL OUTPUT NUMBER ONE\n")
    new = {a.path: a for a in box.stored(KEY).artifacts}
    side = next(p for p in new if p.endswith("out-1.txt"))
    assert new[side].sha256 != old[side].sha256 and new[side].objects != old[side].objects


def test_claude_inode_change_is_noticed(box: Box) -> None:
    f = claude_home(box.home)
    settle(box)
    new_inode_same_bytes(f["transcript"])
    out = box.sync()
    assert box.calls == [KEY]  # the new inode sent it the long way: the file was read again
    assert out["bytes"]["read"] == f["transcript"].stat().st_size
    assert out["sessions"]["failed"] == 0


def test_claude_new_sidecar_is_archived(box: Box) -> None:
    f = claude_home(box.home)
    settle(box)
    (f["sidecar"].parent / "out-2.txt").write_text("a second tool output\n")
    out = box.sync()
    assert box.calls == [KEY]
    assert out["sessions"]["uploaded"] == 1 and out["snapshot"] is not None
    assert paths_of(box.stored(KEY)) == sorted(["out-1.txt", "out-2.txt", f"{SID}.jsonl"])


def test_claude_removed_sidecar_is_kept_and_reported(box: Box) -> None:
    f = claude_home(box.home)
    settle(box)
    f["sidecar"].unlink()
    out = box.sync()
    assert box.calls == [KEY]
    assert out["snapshot"] is not None  # the session changed: its warning says the file is gone
    s = box.stored(KEY)
    assert paths_of(s) == sorted(["out-1.txt", f"{SID}.jsonl"])  # the archived copy stays
    assert any("out-1.txt: gone from the machine" in w for w in s.warnings)
    box.sync()  # and from then on it is settled again
    assert box.calls == [] and box.stored(KEY).warnings == s.warnings


def test_claude_title_change_is_archived(box: Box) -> None:
    f = claude_home(box.home)
    settle(box)
    assert box.stored(KEY).title == TITLE
    with f["transcript"].open("a") as fh:
        fh.write(json.dumps({"type": "custom-title", "customTitle": "Fix the signup form"}) + "\n")
    out = box.sync()
    assert box.calls == [KEY] and out["snapshot"] is not None
    assert box.stored(KEY).title == "Fix the signup form"


def test_claude_lineage_from_another_file_is_noticed(box: Box) -> None:
    """OTHER's own file does not change; a continued-in record in SID makes it SID's
    continuation. Only the signature (parents) can tell."""
    f = claude_home(box.home)
    settle(box)
    other_key = f"claude-code:{OTHER}"
    assert box.stored(other_key).parents == []
    with f["transcript"].open("a") as fh:
        fh.write(json.dumps({"type": "continued-in", "sessionId": SID, "continuedInSessionId": OTHER,
                             "timestamp": "2026-01-01T00:01:00Z"}) + "\n")
    out = box.sync()
    assert sorted(box.calls) == sorted([KEY, other_key])
    assert out["snapshot"] is not None
    edges = box.stored(other_key).parents
    assert [(e.relation, e.parent) for e in edges] == [("continuation", KEY)]


def test_claude_redaction_change_redacts_titles_again(box: Box) -> None:
    f = claude_home(box.home)
    with f["transcript"].open("a") as fh:
        fh.write(json.dumps({"type": "custom-title", "customTitle": "Ask Zebulon about the login form"}) + "\n")
    settle(box)
    assert "Zebulon" in (box.stored(KEY).title or "")
    box.write_config('names = ["Zebulon"]')  # a new term to redact: stored titles must follow
    out = box.sync()
    assert KEY in box.calls and out["snapshot"] is not None
    title = box.stored(KEY).title or ""
    assert "Zebulon" not in title and "login form" in title


def test_claude_vanished_session_is_carried_and_new_one_archived(box: Box) -> None:
    f = claude_home(box.home)
    settle(box)
    f["other"].unlink()
    third = f["project"] / "5e55a1b2-0000-4000-8000-000000000003.jsonl"
    third.write_text(_rec("5e55a1b2-0000-4000-8000-000000000003", 1))
    out = box.sync()
    assert box.calls == ["claude-code:5e55a1b2-0000-4000-8000-000000000003"]
    assert out["sessions"]["uploaded"] == 1 and out["snapshot"] is not None
    assert box.stored(f"claude-code:{OTHER}").artifacts  # still named by the new manifest
    assert box.stored(KEY).title == TITLE  # the unchanged one too, as stored


# ---------------------------------------------------------------- OpenCode
OC_A, OC_B = "ses_fa57a000000000AAAAAAAAAAAA", "ses_fa57b000000000BBBBBBBBBBBB"
TOOL = "tool_fa57c0ffee00AbCdEfGhIjKl"
T0 = 1767261600000


@dataclass
class OpenCode:
    root: Path
    db: Path

    def sql(self, *statements: tuple[str, tuple[Any, ...]]) -> None:
        con = sqlite3.connect(str(self.db), isolation_level=None)
        try:
            for stmt, args in statements:
                con.execute(stmt, args)
        finally:
            con.close()  # the last connection checkpoints the WAL away

    @property
    def tool(self) -> Path:
        return self.root / "tool-output" / TOOL


def opencode_home(home: Path) -> OpenCode:
    from archiver.demo.opencode_sample import Db, _assistant

    root = home / ".local" / "share" / "opencode"
    db = Db(root / "opencode.db")
    db.project("prj_fa57", "/home/alice/app")
    for sid, title, t in ((OC_A, "Fix login", T0), (OC_B, "API docs", T0 + 100_000)):
        db.session(sid, "prj_fa57", "/home/alice/app", title, t)
        db.msg(f"msg_{sid[-12:]}u1", sid, "user", 1, {"text": f"{title} please", "time": {"created": t + 1}})
    out_path = f"/home/alice/.local/share/opencode/tool-output/{TOOL}"
    db.msg(f"msg_{OC_A[-12:]}a2", OC_A, "assistant", 2, _assistant("", T0 + 2000, content=[
        {"type": "tool", "id": "call_read1", "name": "read", "executed": True,
         "state": {"status": "completed", "input": {"path": "src/login.py"},
                   "content": [{"type": "text", "text": f"full output saved to {out_path}"}],
                   "metadata": {"truncated": True, "outputPath": out_path}},
         "time": {"created": T0 + 2100, "completed": T0 + 2200}}]))
    db.conn.close()
    (root / "tool-output").mkdir(parents=True)
    oc = OpenCode(root=root, db=root / "opencode.db")
    oc.tool.write_text("full read output of src/login.py\n")
    return oc


A_KEY, B_KEY = f"opencode:{OC_A}", f"opencode:{OC_B}"


def _by_role(s: Session, role: str) -> Any:
    return next(a for a in s.artifacts if a.role == role)


def test_opencode_new_row_is_archived(box: Box) -> None:
    oc = opencode_home(box.home)
    settle(box)
    before_a, before_b = _by_role(box.stored(A_KEY), "database"), _by_role(box.stored(B_KEY), "database")
    oc.sql(("INSERT INTO session_message VALUES (?, ?, 'user', 3, ?, ?, ?)",
            (f"msg_{OC_A[-12:]}u3", OC_A, T0 + 3000, T0 + 3000, json.dumps({"text": "and the tests"}))))
    out = box.sync()
    # the database both share changed, but only A's extract did: B is not read again
    assert box.calls == [A_KEY]
    assert out["snapshot"] is not None and out["objects_uploaded"] == 1  # A's new extract only
    assert _by_role(box.stored(A_KEY), "database").objects != before_a.objects
    assert _by_role(box.stored(B_KEY), "database").objects == before_b.objects  # B's extract is the same


def test_opencode_title_change_is_archived(box: Box) -> None:
    oc = opencode_home(box.home)
    settle(box)
    oc.sql(("UPDATE session_v2 SET title = ? WHERE id = ?", ("Fix signup", OC_B)))
    out = box.sync()
    assert box.calls == [B_KEY] and out["snapshot"] is not None
    assert box.stored(B_KEY).title == "Fix signup" and box.stored(A_KEY).title == "Fix login"


def test_opencode_change_to_shared_context_reextracts_every_session_holding_it(box: Box) -> None:
    """An extract also carries context rows (its project): a change there is in every extract
    that holds them, so the per-session fingerprint must see it."""
    oc = opencode_home(box.home)
    settle(box)
    before = {k: _by_role(box.stored(k), "database").objects for k in (A_KEY, B_KEY)}
    oc.sql(("UPDATE project SET worktree = ? WHERE id = ?", ("/home/alice/app-renamed", "prj_fa57")))
    out = box.sync()
    assert sorted(box.calls) == sorted([A_KEY, B_KEY]) and out["objects_uploaded"] == 2
    assert all(_by_role(box.stored(k), "database").objects != before[k] for k in (A_KEY, B_KEY))


def test_opencode_same_size_sidecar_rewrite_is_archived(box: Box) -> None:
    oc = opencode_home(box.home)
    settle(box)
    before = _by_role(box.stored(A_KEY), "sidecar")
    same_identity_rewrite(oc.tool, b"FULL READ OUTPUT OF SRC/LOGIN.PY\n")
    out = box.sync()
    assert box.calls == [A_KEY]
    assert out["sessions"]["uploaded"] == 1
    assert _by_role(box.stored(A_KEY), "sidecar").sha256 != before.sha256


def test_opencode_database_inode_change_is_noticed(box: Box) -> None:
    oc = opencode_home(box.home)
    settle(box)
    new_inode_same_bytes(oc.db)
    out = box.sync()
    # the file is read again (its facts and each extract's fingerprint), but no extract changed
    assert box.calls == [] and out["snapshot"] is None and out["sessions"]["failed"] == 0


def test_opencode_sidecar_appearing_then_removed(box: Box) -> None:
    """A row names a tool-output file that is not there yet (an optional source): the same
    file list, only its presence differs."""
    oc = opencode_home(box.home)
    data = oc.tool.read_bytes()
    oc.tool.unlink()
    settle(box)
    s = box.stored(A_KEY)
    assert [a.role for a in s.artifacts] == ["database"]
    assert any(f"{TOOL}: referenced file is missing" in w for w in s.warnings)

    oc.tool.write_bytes(data)  # it appears
    out = box.sync()
    assert box.calls == [A_KEY] and out["snapshot"] is not None
    s = box.stored(A_KEY)
    assert sorted(a.role for a in s.artifacts) == ["database", "sidecar"]
    assert _by_role(s, "sidecar").size == len(data)
    assert not any("referenced file is missing" in w for w in s.warnings)
    box.sync()
    assert box.calls == []  # settled

    oc.tool.unlink()  # and goes again: the archived copy is kept, with a note
    out = box.sync()
    assert box.calls == [A_KEY] and out["snapshot"] is not None
    s = box.stored(A_KEY)
    assert sorted(a.role for a in s.artifacts) == ["database", "sidecar"]
    assert any(f"{TOOL}: gone from the machine" in w for w in s.warnings)


def test_unreadable_stored_row_goes_the_long_way_when_a_manifest_is_written(box: Box) -> None:
    """A session taken unchanged is parsed only if a manifest is written; if its stored row
    rotted meanwhile, it is archived again rather than left out of that manifest."""
    f = claude_home(box.home)
    settle(box)
    con = sqlite3.connect(str(box.base / "state" / "state.db"))
    con.execute("UPDATE sessions SET session = '[]' WHERE key = ?", (f"claude-code:{OTHER}",))
    con.commit()
    con.close()
    with f["transcript"].open("a") as fh:  # another session changes: a manifest is written
        fh.write(_rec(SID, 3))
    out = box.sync()
    assert sorted(box.calls) == sorted([KEY, f"claude-code:{OTHER}"])
    assert out["sessions"]["failed"] == 0 and out["snapshot"] is not None
    assert box.stored(f"claude-code:{OTHER}").artifacts[0].path.endswith(f"{OTHER}.jsonl")



def test_signatures_are_recorded_by_a_run_that_writes_no_manifest(box: Box) -> None:
    """A state from before signatures (or one that lost them): the next run checks every
    session the long way, changes nothing, writes no manifest, yet records the signatures,
    so the run after it is fast again."""
    claude_home(box.home)
    opencode_home(box.home)
    settle(box)
    con = sqlite3.connect(str(box.base / "state" / "state.db"))
    con.execute("DELETE FROM signatures")
    con.commit()
    con.close()
    out = box.sync()
    assert sorted(box.calls) == sorted([KEY, f"claude-code:{OTHER}", A_KEY, B_KEY])
    assert out["snapshot"] is None and out["sessions"]["unchanged"] == out["sessions"]["total"] == 4
    box.sync()
    assert box.calls == []


def test_opencode_unchanged_database_is_not_read_again(box: Box, monkeypatch: pytest.MonkeyPatch) -> None:
    from archiver.harnesses import opencode

    oc = opencode_home(box.home)
    real = opencode.read_facts
    reads: list[int] = []

    def counting(conn: sqlite3.Connection, db: Path | None = None) -> list[dict[str, Any]]:
        reads.append(1)
        return real(conn, db)

    monkeypatch.setattr(opencode, "read_facts", counting)
    settle(box)
    assert len(reads) == 1  # the cold run read the database; the re-sync took its facts from the state
    # an empty -wal (readers create and remove one) with a new mtime is not a change
    wal = Path(str(oc.db) + "-wal")
    wal.write_bytes(b"")
    os.utime(wal, ns=(1, oc.db.stat().st_mtime_ns + 5_000_000_000))
    out = box.sync()
    assert box.calls == [] and out["snapshot"] is None and len(reads) == 1
    wal.unlink()
    oc.sql(("UPDATE session_v2 SET title = ? WHERE id = ?", ("Fix signup", OC_B)))
    box.sync()
    assert len(reads) == 2 and box.stored(B_KEY).title == "Fix signup"


def test_a_file_with_a_new_identity_but_the_same_content_takes_the_long_way_once(box: Box) -> None:
    """Same bytes and mtime under a new inode: one long-way run finds the session as stored
    (no manifest), records the file's new identity, and the next run takes the fast path."""
    files = claude_home(box.home)
    settle(box)
    new_inode_same_bytes(files["sidecar"])  # a whole-file artifact: archived again, same object
    out = box.sync()
    assert box.calls == [KEY] and out["snapshot"] is None and out["sessions"]["unchanged"] == 2
    again = box.sync()
    assert box.calls == [] and again["snapshot"] is None


def test_codex_index_line_of_one_thread_sends_only_that_thread_the_long_way(box: Box) -> None:
    from archiver.demo.codex_sample import make_codex_home

    info = make_codex_home(box.home, "alice")
    main_tid, fork_tid = info["threads"]["main"], info["threads"]["fork"]
    settle(box)
    index = info["root"] / "session_index.jsonl"
    with index.open("ab") as f:  # the fork is renamed; a brand-new thread gets its first line
        f.write(json.dumps({"id": fork_tid, "thread_name": "Login fix, renamed"}).encode() + b"\n")
        f.write(json.dumps({"id": "019a0000-0000-7000-8000-00000000ffff", "thread_name": "new"}).encode() + b"\n")
    out = box.sync()
    assert out["sessions"]["failed"] == 0
    assert box.calls == [f"codex:{fork_tid}"]  # before: every named thread (the file's stat changed)
    assert box.stored(f"codex:{fork_tid}").title == "Login fix, renamed"
    assert box.stored(f"codex:{main_tid}").title == "Fix login test (v2)"
    again = box.sync()
    assert box.calls == [] and again["snapshot"] is None
