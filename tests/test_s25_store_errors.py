"""A store that holds sessions and cannot be read (OpenCode's database) fails the run (exit 1,
DESIGN: "finished but some sessions failed"), names the file and the reason, archives every
other session, and keeps what was archived from that store before."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from archiver.demo.opencode_sample import close_opencode_home, make_opencode_home
from tests.fx_archiver import Env, env  # noqa: F401
from tests.fx_s3 import s3_bucket_url, s3_server  # noqa: F401
from tests.fx_s25_unlistable import deny_listing


def _keys(env: Env) -> set[str]:
    return {s["key"] for s in env.cli_json("ls", identity=True)["sessions"]}


def test_an_unreadable_opencode_database_fails_the_run_and_loses_nothing(env: Env) -> None:  # noqa: F811
    info = make_opencode_home(env.home)
    close_opencode_home(info)
    first = env.cli_json("sync")
    assert first["errors"] == [] and first["sessions"]["failed"] == 0
    archived = _keys(env)
    db_sessions = {k for k in archived if k.startswith("opencode:ses_")}
    assert db_sessions, archived
    db = info["root"] / "opencode.db"
    for companion in (db.with_name("opencode.db-wal"), db.with_name("opencode.db-shm")):
        companion.unlink(missing_ok=True)
    db.write_bytes(b"not a database " * 512)
    code, out = env.cli("sync", "--json")
    doc = json.loads(out)
    assert code == 1
    assert doc["errors"] == ["opencode:@host: .local/share/opencode/opencode.db: not readable (DatabaseError: file is not a "
                             "database); its sessions are not archived this run"]
    assert _keys(env) == archived  # the sessions of the unreadable database are carried, not dropped


def test_an_unreadable_codex_rollout_fails_its_session_and_keeps_its_archived_state(
        env: Env, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    from archiver.demo.codex_sample import make_codex_home
    from archiver.harnesses import codex

    make_codex_home(env.home)
    first = env.cli_json("sync")
    assert first["errors"] == [] and first["sessions"]["failed"] == 0
    before = {s["key"]: s for s in env.cli_json("ls", identity=True)["sessions"]}
    victim = sorted(k for k in before if k.startswith("codex:") and not k.endswith("@host"))[0]
    real = codex.Codex._session

    def session(self, r, *args, **kwargs):  # type: ignore[no-untyped-def]
        if f"codex:{r.thread_id}" == victim or victim.endswith(str(getattr(r, "rollout_id", None))):
            raise PermissionError(13, "Permission denied", str(r.file))
        return real(self, r, *args, **kwargs)

    monkeypatch.setattr(codex.Codex, "_session", session)
    for rollout in (env.home / ".codex" / "sessions").rglob("*.jsonl"):  # a change, so nothing is skipped as unchanged
        os.utime(rollout, ns=(rollout.stat().st_atime_ns, rollout.stat().st_mtime_ns + 5_000_000_000))
    doc = env.cli_json("sync", expect=1)
    assert doc["sessions"]["failed"] == 1
    [error] = doc["errors"]
    assert error.startswith(f"{victim}: sessions/") and error.endswith(": unreadable (Permission denied)")
    after = {s["key"]: s for s in env.cli_json("ls", identity=True)["sessions"]}
    assert after[victim] == before[victim]  # its archived state, untouched
    assert set(after) == set(before)


def test_codex_rollouts_behind_a_link_or_an_unlistable_folder_are_named_on_the_host(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from archiver.demo.codex_sample import make_codex_home
    from archiver.harnesses.base import HarnessContext
    from archiver.harnesses.codex import Codex

    make_codex_home(tmp_path)
    sessions = tmp_path / ".codex" / "sessions"
    day = sorted(p for p in sessions.rglob("*") if p.is_dir())[-1]
    outside = tmp_path / "elsewhere" / "rollout-2026-01-09T00-00-00-0199b0c1-2d3e-7f40-8a1b-0000000000ff.jsonl"
    outside.parent.mkdir()
    outside.write_text('{"type":"session_meta"}\n')
    os.symlink(outside, day / outside.name)
    locked = sessions / "2026" / "02"
    locked.mkdir(parents=True)
    deny_listing(monkeypatch, locked)
    found = {s.session_id: s for s in Codex(HarnessContext(home=tmp_path, env={})).discover()}
    host = found["@host"]
    assert sorted(host.warnings) == ["sessions: 1 folder(s) not listable (permission denied)",
                                     "sessions: 1 symbolic link(s) not followed"]
    assert host.errors == ["sessions: 1 folder(s) not listable (permission denied)"]
    assert not any("elsewhere" in str(src.source) for s in found.values() for src in s.sources)


def test_an_unlistable_pi_project_folder_is_an_error_counted_without_its_name(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from archiver.demo.pi_sample import make_pi_home
    from archiver.harnesses.base import HarnessContext
    from archiver.harnesses.pi import Pi

    make_pi_home(tmp_path)
    sessions = next(p for p in tmp_path.rglob("sessions") if p.is_dir() and p.parent.name == "agent")
    before = {s.session_id for s in Pi(HarnessContext(home=tmp_path, env={})).discover()}
    locked = sessions / "--home-alice-jane.doe@acme.com-payroll--"
    locked.mkdir()
    deny_listing(monkeypatch, locked)
    found = {s.session_id: s for s in Pi(HarnessContext(home=tmp_path, env={})).discover()}
    assert set(found) == before | {"@host"}
    problem = ".pi/agent/sessions: 1 project folder(s) not listable (permission denied); their sessions are not refreshed"
    assert found["@host"].errors == [problem] and found["@host"].warnings == [problem]
    assert found["@host"].sources == []


def test_deepseek_sessions_behind_a_link_or_an_unlistable_folder_are_named_on_the_host(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from archiver.demo.deepseek_sample import make_deepseek_home
    from archiver.harnesses.base import HarnessContext
    from archiver.harnesses.deepseek_harness import DeepSeekHarness

    make_deepseek_home(tmp_path)
    root = tmp_path / ".deepseek" / "sessions"
    before = {s.session_id for s in DeepSeekHarness(HarnessContext(home=tmp_path, env={})).discover()}
    outside = tmp_path / "elsewhere" / "ds-stolen.jsonl"
    outside.parent.mkdir()
    outside.write_text('{"type":"session"}\n')
    os.symlink(outside, root / outside.name)
    locked = root / "archive"
    locked.mkdir()
    deny_listing(monkeypatch, locked)
    found = {s.session_id: s for s in DeepSeekHarness(HarnessContext(home=tmp_path, env={})).discover()}
    assert set(found) == before | {"@host"}
    host = found["@host"]
    assert sorted(host.warnings) == ["sessions: 1 folder(s) not listable (permission denied)",
                                     "sessions: 1 symbolic link(s) not followed"]
    assert host.errors == ["sessions: 1 folder(s) not listable (permission denied)"]


def test_an_unlistable_cursor_chats_folder_is_an_error_counted_on_the_host(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from archiver.demo.cursor_sample import make_cursor_home
    from archiver.harnesses.base import HarnessContext
    from archiver.harnesses.cursor_agent import CursorAgent

    make_cursor_home(tmp_path)
    before = {s.session_id for s in CursorAgent(HarnessContext(home=tmp_path, env={})).discover()}
    locked = tmp_path / ".cursor" / "chats" / ("f" * 32)
    locked.mkdir(parents=True)
    deny_listing(monkeypatch, locked)
    found = {s.session_id: s for s in CursorAgent(HarnessContext(home=tmp_path, env={})).discover()}
    assert set(found) == before | {"@host"}
    problem = ".cursor: 1 chat folder(s) not listable (permission denied); their chats are not refreshed"
    assert found["@host"].errors == [problem]
    assert problem in found["@host"].warnings
