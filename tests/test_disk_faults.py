"""Disk and input faults: source files deleted, truncated or rewritten while a run reads
them; permission denied (real EACCES: the run goes into a user namespace without a uid
mapping, where root's DAC override does not reach the files); a full state dir (a real
tmpfs mounted over it); a corrupt state DB. The run names each problem, the archive stays
consistent, and nothing archived earlier disappears from what `ls` shows."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

from archiver.demo.claude_sample import ClaudeSample, append_turn, make_claude_home
from archiver.harnesses.claude_code import ClaudeCode
from tests.fx_archiver import USER, Env, env  # noqa: F401


# ---------------------------------------------------------------- helpers
def make_syncer(e: Env, harness: Any, state: Path | None = None) -> Any:
    from archiver import runtime
    from archiver.archive import Archive
    from archiver.config import load_settings
    from archiver.state import State
    from archiver.sync import Syncer, SyncOptions

    settings = load_settings(e.config)
    keys = runtime.team_keys(settings)
    return Syncer(harnesses=[harness], redactor=runtime.redactor(settings, keys),
                  archive=Archive(runtime.store(settings)), state=State(state or e.base / "st.db"),
                  recipients=runtime.recipients(settings), object_id_key=keys.object_id,
                  host_id="d" * 16, workdir_parent=e.base / "tmp", options=SyncOptions())


def claude(e: Env) -> ClaudeCode:
    from archiver import runtime
    from archiver.config import load_settings

    [h] = runtime.harnesses(load_settings(e.config), ["claude-code"])
    return h  # type: ignore[return-value]


class Meddling(ClaudeCode):
    """Claude Code collector whose files are changed by `meddle` after discovery, before
    the pipeline snapshots them (what a live harness does)."""

    def __init__(self, ctx: Any, meddle: Callable[[], None]) -> None:
        super().__init__(ctx)
        self.meddle = meddle

    def discover(self) -> Iterator[Any]:
        found = list(super().discover())
        self.meddle()
        yield from found


def transcript(s: ClaudeSample, sid: str) -> Path:
    return s.root / "projects" / s.project_key / f"{sid}.jsonl"


def listed(e: Env) -> dict[str, Any]:
    return {s["key"]: s for s in e.cli_json("ls", identity=True)["sessions"]}


def restored(e: Env, key: str, name: str) -> bytes:
    target = e.base / f"r-{len(list(e.base.glob('r-*')))}"
    e.cli_json("restore", key, "--to", str(target), identity=True)
    return next(target.rglob(name)).read_bytes()


def names(session: dict[str, Any]) -> set[str]:
    return {a["path"].rsplit("/", 1)[-1] for a in session["artifacts"]}


# ---------------------------------------------------------------- files changing under the run
def test_files_deleted_truncated_or_rewritten_between_discovery_and_snapshot(env: Env) -> None:  # noqa: F811
    s = make_claude_home(env.home, USER)
    tool_result = s.root / "projects" / s.project_key / s.main / "tool-results" / "b1c2d3e4f.txt"
    fork, cont = transcript(s, s.fork), transcript(s, s.continuation)
    fork_lines = fork.read_bytes().split(b"\n")
    new_cont = b'{"type":"user","message":{"role":"user","content":"rewritten by the harness"}}\n'

    def meddle() -> None:
        tool_result.unlink()  # a sidecar removed by the harness
        fork.write_bytes(b"\n".join(fork_lines[:1]) + b"\n" + fork_lines[1][:40])  # cut mid-line
        cont.write_bytes(new_cont)  # rewritten whole, shorter

    result = make_syncer(env, Meddling(claude(env).ctx, meddle)).run()
    assert result.failed == 0 and result.errors == [] and result.snapshot
    sessions = listed(env)
    main = sessions[f"claude-code:{s.main}"]
    assert any("b1c2d3e4f.txt" in w and "vanished" in w for w in main["warnings"])
    assert "b1c2d3e4f.txt" not in names(main)
    # the cut transcript is archived up to its last complete line; the torn rest waits
    fork_restored = restored(env, f"claude-code:{s.fork}", f"{s.fork}.jsonl")
    assert fork_restored.count(b"\n") == 1 and fork_restored.endswith(b"\n")
    assert json.loads(fork_restored)["uuid"] == json.loads(fork_lines[0])["uuid"]
    assert restored(env, f"claude-code:{s.continuation}", f"{s.continuation}.jsonl") == new_cont
    code, out = env.cli("verify", "--read-data", "--json", identity=True)
    assert code == 0, out


def test_file_that_keeps_changing_while_copied_is_retried_then_reported(env: Env, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    import archiver.snapshot as snapshot

    s = make_claude_home(env.home, USER)
    tip = s.root / "projects" / s.project_key / f"{s.main}.ccr-tip.json"
    real_copy = shutil.copyfileobj
    copies = {"n": 0}

    def copy_while_written(fi: Any, fo: Any, length: int = 0) -> None:
        real_copy(fi, fo, length)
        if getattr(fi, "name", "") == str(tip):
            copies["n"] += 1
            with tip.open("a") as f:
                f.write(" ")  # the harness writes while we copy

    monkeypatch.setattr(snapshot.shutil, "copyfileobj", copy_while_written)
    result = make_syncer(env, claude(env)).run()
    assert copies["n"] == snapshot.COPY_RETRIES
    assert result.failed == 0
    main = listed(env)[f"claude-code:{s.main}"]
    assert any("ccr-tip.json" in w and "changed during copy (3 attempts)" in w for w in main["warnings"])
    assert not any(a["path"].endswith("ccr-tip.json") for a in main["artifacts"])
    # a file that settles after one change is archived on the retry
    copies["n"] = 0

    def copy_changing_once(fi: Any, fo: Any, length: int = 0) -> None:
        real_copy(fi, fo, length)
        if getattr(fi, "name", "") == str(tip) and copies["n"] == 0:
            copies["n"] += 1
            tip.write_text('{"tip": "settled"}')

    monkeypatch.setattr(snapshot.shutil, "copyfileobj", copy_changing_once)
    result = make_syncer(env, claude(env)).run()
    assert result.failed == 0
    assert restored(env, f"claude-code:{s.main}", f"{s.main}.ccr-tip.json") == b'{"tip": "settled"}'


def test_transcript_that_shrinks_while_read_fails_that_session_and_keeps_its_archived_state(
        env: Env, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    import archiver.workers as workers

    s = make_claude_home(env.home, USER)
    first = make_syncer(env, claude(env)).run()
    assert first.failed == 0
    before = listed(env)[f"claude-code:{s.main}"]
    append_turn(s, "one more turn", n=50)
    path = transcript(s, s.main)
    real_iter = workers.iter_lines

    def shrinking(f: Any, start: int, end: int) -> Iterator[bytes]:
        for i, line in enumerate(real_iter(f, start, end)):
            if i == 1:
                os.truncate(path, start + 10)  # the harness cut the file under us
            yield line

    monkeypatch.setattr(workers, "iter_lines", shrinking)
    result = make_syncer(env, claude(env)).run()
    assert result.failed == 1
    [err] = result.errors
    assert s.main in err and "shrank while reading" in err and USER not in err
    assert listed(env)[f"claude-code:{s.main}"] == before  # the archived state is kept as it was
    code, out = env.cli("verify", "--json", identity=True)
    assert code == 0, out


# ---------------------------------------------------------------- files gone since the last run
def test_files_deleted_since_the_last_run_stay_in_the_newest_state(env: Env) -> None:  # noqa: F811
    s = make_claude_home(env.home, USER)
    assert env.cli_json("sync", "--workers", "1")["sessions"]["failed"] == 0
    before = names(listed(env)[f"claude-code:{s.main}"])
    (s.root / "projects" / s.project_key / s.main / "tool-results" / "b1c2d3e4f.txt").unlink()
    transcript(s, s.main).unlink()  # Claude Code prunes transcripts; the session folder stays
    env.cli_json("sync", "--workers", "1")
    assert names(listed(env)[f"claude-code:{s.main}"]) == before


# ---------------------------------------------------------------- permission denied
def _unshare_ok() -> bool:
    try:
        return subprocess.run(["unshare", "-U", "true"], capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


needs_unshare = pytest.mark.skipif(not _unshare_ok(), reason="user namespaces (unshare -U) not available")


def sync_unprivileged(e: Env) -> tuple[int, dict[str, Any]]:
    """`sync` in a new user namespace with no uid mapping: the files stay root's, but root's
    capabilities do not apply to them there, so mode 000 really denies (EACCES)."""
    proc = subprocess.run(["unshare", "-U", sys.executable, "-m", "archiver", "sync", "--config", str(e.config),
                           "--json", "--workers", "1"], capture_output=True, text=True, timeout=120)
    assert proc.stdout.strip(), proc.stderr
    return proc.returncode, json.loads(proc.stdout)


@needs_unshare
def test_unreadable_sidecar_is_reported_and_the_session_archives(env: Env) -> None:  # noqa: F811
    s = make_claude_home(env.home, USER)
    tool_result = s.root / "projects" / s.project_key / s.main / "tool-results" / "b1c2d3e4f.txt"
    os.chmod(tool_result, 0)
    code, out = sync_unprivileged(env)
    assert out["sessions"]["failed"] == 0 and code == 0
    main = listed(env)[f"claude-code:{s.main}"]
    assert any("b1c2d3e4f.txt" in w and "permission denied" in w for w in main["warnings"])
    assert f"{s.main}.jsonl" in names(main)
    assert len(listed(env)) == out["sessions"]["total"] == 6


@needs_unshare
def test_a_sidecar_unreadable_after_archiving_is_kept_and_not_called_gone(env: Env) -> None:  # noqa: F811
    s = make_claude_home(env.home, USER)
    sync_unprivileged(env)
    before = listed(env)[f"claude-code:{s.main}"]
    tool_result = s.root / "projects" / s.project_key / s.main / "tool-results" / "b1c2d3e4f.txt"
    with tool_result.open("a") as f:
        f.write("more output\n")  # changed since, so this run must read it
    os.chmod(tool_result, 0)
    code, out = sync_unprivileged(env)
    assert code == 0 and out["sessions"]["failed"] == 0
    main = listed(env)[f"claude-code:{s.main}"]
    assert names(main) == names(before)
    kept = [a for a in main["artifacts"] if a["path"].endswith("b1c2d3e4f.txt")]
    assert kept == [a for a in before["artifacts"] if a["path"].endswith("b1c2d3e4f.txt")] and kept
    notes = [w for w in main["warnings"] if "b1c2d3e4f.txt" in w]
    assert len(notes) == 1 and "permission denied" in notes[0] and "kept the archived copy" in notes[0], notes
    assert not any("gone from the machine" in w for w in main["warnings"])


@needs_unshare
def test_unreadable_transcript_fails_that_session_with_exit_1(env: Env) -> None:  # noqa: F811
    s = make_claude_home(env.home, USER)
    os.chmod(transcript(s, s.fork), 0)
    code, out = sync_unprivileged(env)
    assert code == 1 and out["sessions"]["failed"] == 1
    assert any(s.fork in e and "permission denied" in e for e in out["errors"])


@needs_unshare
def test_transcript_unreadable_after_archiving_keeps_its_archived_state(env: Env) -> None:  # noqa: F811
    s = make_claude_home(env.home, USER)
    sync_unprivileged(env)
    before = listed(env)
    os.chmod(transcript(s, s.main), 0)
    code, out = sync_unprivileged(env)
    after = listed(env)
    assert set(after) == set(before)
    assert names(after[f"claude-code:{s.main}"]) == names(before[f"claude-code:{s.main}"])


@needs_unshare
def test_unreadable_project_folder_does_not_stop_the_other_projects(env: Env) -> None:  # noqa: F811
    make_claude_home(env.home, USER)
    other = make_claude_home(env.home / "other", "bob", seed=5)
    blocked = env.home / ".claude" / "projects" / "-home-bob-work-app"
    shutil.move(str(other.root / "projects" / other.project_key), blocked)
    os.chmod(blocked, 0)
    try:
        code, out = sync_unprivileged(env)
    finally:
        os.chmod(blocked, 0o755)
    assert out["sessions"]["total"] == 6 and out["snapshot"]  # the readable project is archived
    # and the unreadable folder is counted (never named: its name is the cwd as a slug) as an
    # error of the run, and on the host session's warnings
    assert code == 1
    problem = ".claude/projects: 1 project folder(s) not listable (permission denied); their sessions are not refreshed"
    assert out["errors"] == [f"claude-code:@host: {problem}"]
    reported = out["errors"] + [w for s in listed(env).values() for w in s["warnings"]]
    assert problem in listed(env)["claude-code:@host"]["warnings"]
    assert not any("bob" in r or "work-app" in r for r in reported)


# ---------------------------------------------------------------- full state dir
@pytest.fixture
def tiny_state_dir(env: Env) -> Iterator[Path]:  # noqa: F811
    """The state dir on a real 512 KiB tmpfs (root may mount in this sandbox; else skip)."""
    state = env.base / "state"
    state.mkdir(mode=0o700)
    proc = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=512k,mode=0700", "tmpfs", str(state)],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {proc.stderr.strip()}")
    try:
        yield state
    finally:
        subprocess.run(["umount", "-l", str(state)], check=False)


def _fill(d: Path) -> Path:
    """Take every free block of the filesystem holding d."""
    filler = d / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        while True:
            os.write(fd, b"\0" * 4096)
    except OSError:
        pass
    finally:
        os.close(fd)
    return filler


def _sync(e: Env) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "archiver", "sync", "--config", str(e.config), "--json",
                           "--workers", "1"], capture_output=True, text=True, timeout=120)


def test_full_state_dir_fails_the_run_and_the_next_run_catches_up(env: Env, tiny_state_dir: Path) -> None:  # noqa: F811

    s = make_claude_home(env.home, USER)
    first = _sync(env)
    assert first.returncode == 0, first.stderr
    before = listed(env)
    append_turn(s, "written while the disk was full", n=20)
    make_claude_home(env.home, USER, seed=9)
    filler = _fill(tiny_state_dir)
    full = _sync(env)
    assert full.returncode != 0
    assert listed(env) == before  # the archive is as before ...
    code, out = env.cli("verify", "--json", identity=True)
    assert code == 0, out  # ... and consistent
    filler.unlink()
    again = _sync(env)
    assert again.returncode == 0, again.stderr
    assert set(listed(env)) == {x["key"] for x in env.cli_json("scan")["sessions"]}
    assert len(listed(env)) == 11
    assert b"written while the disk was full" in restored(env, f"claude-code:{s.main}", f"{s.main}.jsonl")


def test_full_state_dir_is_reported_cleanly_and_the_state_is_kept(env: Env, tiny_state_dir: Path) -> None:  # noqa: F811
    make_claude_home(env.home, USER)
    assert _sync(env).returncode == 0
    _fill(tiny_state_dir)
    full = _sync(env)
    assert full.returncode == 1
    assert "Traceback" not in full.stderr
    assert "no space" in (full.stderr + full.stdout).lower() or "disk is full" in (full.stderr + full.stdout)
    assert (tiny_state_dir / "state.db").exists() and not (tiny_state_dir / "state.db.corrupt").exists()


# ---------------------------------------------------------------- corrupt state DB
def _corrupt(db: Path, how: str) -> None:
    for side in (db.with_name(db.name + "-wal"), db.with_name(db.name + "-shm")):
        side.unlink(missing_ok=True)
    data = db.read_bytes()
    if how == "garbage":
        db.write_bytes(os.urandom(len(data)))
    elif how == "truncated":
        db.write_bytes(data[: len(data) // 3])
    elif how == "zeroed-header":
        db.write_bytes(b"\0" * 100 + data[100:])
    elif how == "rotten-row":  # bit rot inside a stored row: invalid UTF-8 in a text cell
        i = data.index(b'"role":"transcript"')
        db.write_bytes(data[:i] + b"\xff\xfe" * 8 + data[i + 16:])
    elif how == "bad-row":
        with sqlite3.connect(db) as c:
            c.execute("UPDATE sessions SET session = '[]'")
    elif how == "old-schema":
        with sqlite3.connect(db) as c:
            c.execute("DROP TABLE artifacts")
            c.execute("CREATE TABLE artifacts (session_key TEXT, logical_path TEXT)")
    else:
        raise AssertionError(how)


@pytest.mark.parametrize("how", ["garbage", "truncated", "zeroed-header",
                                 "rotten-row", "bad-row", "old-schema"])
def test_corrupt_state_db_is_rebuilt_without_uploading_twice(env: Env, how: str) -> None:  # noqa: F811
    make_claude_home(env.home, USER)
    first = env.cli_json("sync", "--workers", "1")
    assert first["sessions"]["failed"] == 0
    objects = [k for k in env.keys_in_bucket() if "/objects/" in k]
    before = listed(env)
    _corrupt(env.base / "state" / "state.db", how)
    out = env.cli_json("sync", "--workers", "1")
    assert out["sessions"]["failed"] == 0
    assert out["objects_uploaded"] == 0  # found by HEAD, not sent again
    assert [k for k in env.keys_in_bucket() if "/objects/" in k] == objects
    after = listed(env)
    assert set(after) == set(before)
    for key, s in before.items():
        assert [a["objects"] for a in after[key]["artifacts"]] == [a["objects"] for a in s["artifacts"]]
    again = env.cli_json("sync", "--workers", "1")  # and the rebuilt cache works
    assert again["sessions"]["unchanged"] == again["sessions"]["total"] and again["snapshot"] is None
