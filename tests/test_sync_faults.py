"""Bad input and faults: each problem is named, the other sessions still archive,
exit code 1, and the archive never holds a manifest that points at nothing."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable

import pytest

from archiver.demo.claude_sample import make_claude_home
from tests.fx_archiver import USER, Env, env  # noqa: F401


def test_malformed_line_mid_file_is_kept_and_session_archives(env: Env) -> None:  # noqa: F811
    s = make_claude_home(env.home, USER)
    path = s.root / "projects" / s.project_key / f"{s.fork}.jsonl"
    lines = path.read_bytes().split(b"\n")
    lines.insert(1, b'{"type":"user", this is not json, cwd /home/alice/x')
    path.write_bytes(b"\n".join(lines))
    out = env.cli_json("sync")
    assert out["sessions"]["failed"] == 0
    target = env.base / "r"
    env.cli_json("restore", f"claude-code:{s.fork}", "--to", str(target), identity=True)
    restored = next(target.rglob(f"{s.fork}.jsonl")).read_bytes().split(b"\n")
    assert restored[1].startswith(b'{"type":"user", this is not json, cwd /home/user-')
    assert b"alice" not in restored[1]
    fork = next(x for x in env.cli_json("ls", identity=True)["sessions"] if x["key"] == f"claude-code:{s.fork}")
    assert "jsonl-unparsable-line: 1" in fork["warnings"]


def test_session_folder_without_transcript(env: Env) -> None:  # noqa: F811
    s = make_claude_home(env.home, USER)
    (s.root / "projects" / s.project_key / f"{s.main}.jsonl").unlink()
    out = env.cli_json("sync")
    assert out["sessions"]["failed"] == 0
    main = next(x for x in env.cli_json("ls", identity=True)["sessions"] if x["key"] == f"claude-code:{s.main}")
    assert any("without its transcript" in w for w in main["warnings"])
    assert any(a["path"].endswith("tool-results/b1c2d3e4f.txt") for a in main["artifacts"])


def test_a_file_name_that_is_not_utf8_is_named_and_the_rest_archives(env: Env) -> None:  # noqa: F811
    """Linux file names are bytes; manifests and the state are UTF-8. A sidecar with such a name is
    left out with a warning (the session archives); a transcript with one fails only its session."""
    s = make_claude_home(env.home, USER)
    folder = s.root / "projects" / s.project_key
    results = folder / s.main / "tool-results"
    results.mkdir(parents=True, exist_ok=True)
    (results / os.fsdecode(b"caf\xe9.txt")).write_bytes(b"output\n")
    bad_id = os.fsdecode(b"0badf11e-\xff\xfe-4000-8000-000000000000")
    (folder / f"{bad_id}.jsonl").write_bytes((folder / f"{s.fork}.jsonl").read_bytes())
    out = env.cli_json("sync", expect=1)
    assert out["sessions"]["failed"] == 1
    [err] = out["errors"]
    assert "0badf11e-\\udcff\\udcfe" in err and "not valid UTF-8" in err and "internal error" not in err
    main = next(x for x in env.cli_json("ls", identity=True)["sessions"] if x["key"] == f"claude-code:{s.main}")
    assert any("caf\\udce9.txt: file name is not valid UTF-8" in w for w in main["warnings"]), main["warnings"]
    assert not any("caf" in a["path"] for a in main["artifacts"])
    assert any(a["role"] == "transcript" for a in main["artifacts"])


def test_vanished_transcript_fails_only_that_session(env: Env) -> None:  # noqa: F811
    from archiver import runtime
    from archiver.archive import Archive
    from archiver.config import load_settings
    from archiver.harnesses.claude_code import ClaudeCode
    from archiver.state import State
    from archiver.sync import Syncer, SyncOptions

    s = make_claude_home(env.home, USER)
    settings = load_settings(env.config)
    keys = runtime.team_keys(settings)
    [harness] = runtime.harnesses(settings, ["claude-code"])
    victim = s.root / "projects" / s.project_key / f"{s.fork}.jsonl"

    class Vanishing(ClaudeCode):
        def discover(self):  # type: ignore[no-untyped-def]
            found = list(super().discover())
            victim.unlink()  # deleted by the harness between discovery and snapshot
            yield from found

    syncer = Syncer(harnesses=[Vanishing(harness.ctx)], redactor=runtime.redactor(settings, keys),
                    archive=Archive(runtime.store(settings)), state=State(env.base / "st.db"),
                    recipients=runtime.recipients(settings), object_id_key=keys.object_id,
                    host_id="h" * 16, workdir_parent=env.base / "tmp", options=SyncOptions())
    result = syncer.run()
    assert result.failed == 1 and result.total == 6
    assert len(result.errors) == 1
    assert s.fork in result.errors[0] and "vanished" in result.errors[0]
    assert "alice" not in result.errors[0]  # errors are redacted too
    assert result.snapshot is not None
    assert not list((env.base / "tmp").glob("run-*"))  # temp files removed


def _syncer_on(env: Env, wrap: Callable[[Any], Any], state_db: Path) -> Any:  # noqa: F811
    """A Syncer on the env's config whose store is `wrap(real store)` (a store that fails on purpose)."""
    from archiver import runtime
    from archiver.archive import Archive
    from archiver.config import load_settings
    from archiver.state import State
    from archiver.sync import Syncer, SyncOptions

    settings = load_settings(env.config)
    keys = runtime.team_keys(settings)
    return Syncer(harnesses=runtime.harnesses(settings), redactor=runtime.redactor(settings, keys),
                  archive=Archive(wrap(runtime.store(settings))), state=State(state_db),
                  recipients=runtime.recipients(settings), object_id_key=keys.object_id,
                  host_id="h" * 16, workdir_parent=env.base / "tmp", options=SyncOptions())


def test_store_failure_names_object_and_keeps_archive_consistent(env: Env) -> None:  # noqa: F811
    from archiver.store.base import StoreError

    make_claude_home(env.home, USER)

    class Failing:
        def __init__(self, real: Any) -> None:
            self.real = real
            self.puts = 0

        def __getattr__(self, name):  # type: ignore[no-untyped-def]
            return getattr(self.real, name)

        def _fail_third_object(self, key: str) -> None:
            if key.startswith("objects/"):
                self.puts += 1
                if self.puts == 3:
                    raise StoreError(key, "SlowDown: please reduce your request rate (after retries)")

        def put_file(self, key, path, **kw):  # type: ignore[no-untyped-def]
            self._fail_third_object(key)
            return self.real.put_file(key, path, **kw)

        def put_bytes(self, key, data, **kw):  # type: ignore[no-untyped-def]  (small objects)
            self._fail_third_object(key)
            return self.real.put_bytes(key, data, **kw)

    result = _syncer_on(env, Failing, env.base / "st.db").run()
    assert result.failed == 1
    assert "objects/" in result.errors[0] and "SlowDown" in result.errors[0]
    assert result.total - result.failed == 5 and result.snapshot
    code, out = env.cli("verify", "--json", identity=True)
    assert code == 0, out
    # the next run (real store) finishes the work
    rerun = env.cli_json("sync")
    assert rerun["sessions"]["failed"] == 0


def _big_home(home: Path, lines: int = 400) -> None:
    for seed in range(12):
        s = make_claude_home(home, USER, seed=seed)
        p = s.root / "projects" / s.project_key / f"{s.main}.jsonl"
        with p.open("a") as f:
            for i in range(lines):
                f.write(json.dumps({"type": "user", "uuid": f"{seed}-{i}", "message": {"role": "user",
                        "content": f"line {i} in /home/{USER}/work " + os.urandom(300).hex()}}) + "\n")


def test_killed_sync_leaves_archive_consistent(env: Env) -> None:  # noqa: F811
    _big_home(env.home)
    rng = random.Random(1234)
    cmd = [sys.executable, "-m", "archiver", "sync", "--config", str(env.config), "--json"]
    environment = dict(os.environ)
    for trial in range(5):
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=environment)
        time.sleep(rng.uniform(0.3, 2.5))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        code, out = env.cli("verify", "--json", identity=True)
        if code == 2 and not _stored_keys(env):
            continue  # killed before it wrote anything: "no archive at URL" is the right answer then
        assert code == 0, (trial, out)
    final = subprocess.run(cmd, capture_output=True, env=environment, timeout=300)
    assert final.returncode == 0, final.stderr
    code, out = env.cli("verify", "--read-data", "--json", identity=True)
    assert code == 0, out
    listed = env.cli_json("ls", identity=True)["sessions"]
    assert len(listed) == 12 * 5 + 1


def _stored_keys(env: Env) -> list[str]:
    return [k for k in env.keys_in_bucket() if k.startswith(f"{env.prefix}/")]


def _marked_pids(mark: str) -> list[int]:
    """Processes whose environment holds mark (a sync and everything it started)."""
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as f:
                if mark.encode() in f.read():
                    out.append(int(entry))
        except OSError:
            continue
    return out


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs /proc")
def test_a_killed_sync_leaves_no_worker_processes_behind(env: Env) -> None:  # noqa: F811
    """SIGKILL (the OOM killer, a scheduler's timeout) gives the run no chance to stop its pool:
    the workers, the forkserver and the resource tracker must still go, not wait forever."""
    _big_home(env.home, lines=1300)  # more than workers.INLINE_BYTES: the run starts its pool
    mark = f"ARCHIVER_TEST_MARK=orphan-{os.getpid()}-{time.monotonic_ns()}"
    environment = {**os.environ, mark.split("=")[0]: mark.split("=")[1]}
    cmd = [sys.executable, "-m", "archiver", "sync", "--config", str(env.config), "--workers", "2"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=environment)
    try:
        deadline = time.monotonic() + 60
        while len(_marked_pids(mark)) < 4 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)  # the run, its forkserver and at least two workers
        assert proc.poll() is None, "the sync ended before its pool could be seen"
        assert len(_marked_pids(mark)) >= 4
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        deadline = time.monotonic() + 20
        while _marked_pids(mark) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _marked_pids(mark) == []
    finally:
        for pid in _marked_pids(mark):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass


def test_config_errors_exit_2_naming_the_key(env: Env, capsys) -> None:  # noqa: F811,ANN001
    env.config.write_text(env.config.read_text() + "\n[bogus]\nx = 1\n")
    code, _ = env.cli("scan")
    assert code == 2
    assert "bogus" in capsys.readouterr().err
    env.write_config('\n[harnesses.claude-code]\nenabled = "perhaps"\n')
    code, _ = env.cli("scan")
    assert code == 2
    assert "harnesses.claude-code.enabled" in capsys.readouterr().err
    env.write_config()
    os.environ["ARCHIVER_STORE__SSE"] = "rot13"
    try:
        code, _ = env.cli("sync")
    finally:
        del os.environ["ARCHIVER_STORE__SSE"]
    assert code == 2 and "store.sse" in capsys.readouterr().err


def test_restore_refuses_paths_outside_target(tmp_path: Path) -> None:
    from archiver.restore import UnsafePath, safe_target

    root = tmp_path / "t"
    root.mkdir()
    (tmp_path / "outside").mkdir()
    os.symlink(tmp_path / "outside", root / "link")
    for bad in ("../x", "/etc/passwd", "a/../../x", "a\\..\\x", "link/x", "a//b", "", "a/\x00"):
        try:
            safe_target(root, bad)
        except UnsafePath:
            continue
        raise AssertionError(f"accepted {bad!r}")
    assert safe_target(root, ".claude/projects/k/s.jsonl") == root / ".claude/projects/k/s.jsonl"


def test_a_run_killed_between_state_and_manifest_leaves_the_manifest_to_the_next_run(env: Env, monkeypatch) -> None:  # noqa: F811,ANN001
    """The state is stored flagged "manifest pending" before the manifest: a run that dies in
    between (here: its manifest upload fails) leaves the next run, with nothing new to
    archive, a manifest to write, one naming what the state holds."""
    from archiver.archive import Archive
    from archiver.store.base import StoreError

    _big_home(env.home)
    real = Archive.put_manifest

    def broken(self, manifest, recipients):  # noqa: ANN001, ANN202
        raise StoreError("snapshots/x.json.age", "injected: connection reset")

    monkeypatch.setattr(Archive, "put_manifest", broken)
    code, out = env.cli("sync", "--json")
    first = json.loads(out)
    assert first["snapshot"] is None and first["sessions"]["uploaded"] > 0
    monkeypatch.setattr(Archive, "put_manifest", real)
    code, out = env.cli("sync", "--json")
    second = json.loads(out)
    assert code == 0 and second["snapshot"] is not None and second["sessions"]["uploaded"] == 0
    listed = env.cli_json("ls", identity=True)["sessions"]
    assert len(listed) == first["sessions"]["total"]
    code, out = env.cli("sync", "--json")
    third = json.loads(out)
    assert code == 0 and third["snapshot"] is None  # the flag is gone once the manifest is stored


def test_a_clock_that_ran_ahead_never_leaves_a_stale_state_on_top(env: Env, monkeypatch) -> None:  # noqa: F811,ANN001
    """One run with the clock a year ahead, then the clock is right again: the next manifest is
    dated after the skewed one, so the session's newest state is the one with the new line, and
    `status` reports the run whose manifest could not be written."""
    import archiver.sync as sync_mod

    s = make_claude_home(env.home, USER)
    env.cli_json("sync")
    real_now = sync_mod._now
    monkeypatch.setattr(sync_mod, "_now", lambda: "2027-11-30T12:00:00.000Z")
    path = s.root / "projects" / s.project_key / f"{s.main}.jsonl"
    with path.open("a") as f:
        f.write(json.dumps({"type": "user", "uuid": "skew-1", "message": {"role": "user", "content": "SKEWED"}}) + "\n")
    env.cli_json("sync")
    monkeypatch.setattr(sync_mod, "_now", real_now)
    with path.open("a") as f:
        f.write(json.dumps({"type": "user", "uuid": "after-1", "message": {"role": "user", "content": "AFTER-FIX"}}) + "\n")
    env.cli_json("sync")
    manifests = sorted(k for k in env.keys_in_bucket() if "/snapshots/" in f"/{k}")
    assert len(manifests) == 3
    target = env.base / "r"
    env.cli_json("restore", f"claude-code:{s.main}", "--to", str(target), identity=True)
    text = next(target.rglob(f"{s.main}.jsonl")).read_text()
    assert "SKEWED" in text and "AFTER-FIX" in text
    from archiver.state import State

    # the skewed run dated its manifest 12:00:00.000; the next one comes 1 ms after it
    assert State(env.base / "state" / "state.db").get_meta("last_manifest_at") == "2027-11-30T12:00:00.001Z"


def test_a_manifest_that_could_not_be_written_is_the_run_status_reports(env: Env) -> None:  # noqa: F811
    from archiver.store.base import StoreError

    make_claude_home(env.home, USER)

    class NoManifests:
        def __init__(self, real: Any) -> None:
            self.real = real

        def __getattr__(self, name):  # type: ignore[no-untyped-def]
            return getattr(self.real, name)

        def put_bytes(self, key, data, **kw):  # type: ignore[no-untyped-def]
            if key.startswith("snapshots/"):
                raise StoreError(key, "AccessDenied (after retries)")
            return self.real.put_bytes(key, data, **kw)

    syncer = _syncer_on(env, NoManifests, env.base / "st.db")
    result = syncer.run()
    state = syncer.state
    assert any("manifest not written" in e for e in result.errors)
    last = state.last_run()
    assert last is not None and any("manifest not written" in e for e in last["result"]["errors"])
