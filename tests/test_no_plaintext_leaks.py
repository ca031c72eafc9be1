"""No plaintext leaves through the side doors: logs (even with -v), temp files (only in a
0700 run folder under the state dir, removed after the run, also after a failure), S3 keys
and object metadata, and crash dumps (a traceback must not print session content)."""

from __future__ import annotations

import atexit
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import textwrap
import threading
from pathlib import Path
from typing import Any, Iterator

import pytest

from archiver.demo.claude_sample import FAKE_AWS_KEY, FAKE_GITHUB_TOKEN, make_claude_home
from tests.faultproxy import FaultProxy
from tests.fx_archiver import USER, Env, env  # noqa: F401
from tests.fx_s3 import s3_client

CANARY = "PLAINTEXT-CANARY-7f3a9"
HOSTNAME = f"laptop-of-{USER}"


def _plant(e: Env) -> Any:
    """The sample home plus a canary line, a canary title and a canary in a sidecar."""
    s = make_claude_home(e.home, USER)
    main = s.root / "projects" / s.project_key / f"{s.main}.jsonl"
    with main.open("a") as f:
        f.write('{"type":"user","message":{"role":"user","content":"' + CANARY + ' in /home/' + USER + '/x"}}\n')
        f.write('{"type":"custom-title","customTitle":"' + CANARY + ' title","sessionId":"' + s.main + '"}\n')
    (s.root / "projects" / s.project_key / s.main / "tool-results" / "canary.txt").write_text(CANARY + "\n")
    return s


def _forbidden(s: Any) -> list[str]:
    return [USER, CANARY, HOSTNAME, FAKE_AWS_KEY, FAKE_GITHUB_TOKEN, "alice.smith@example-corp.com", "hunter2",
            "Deploy fixes"]


# ---------------------------------------------------------------- logs
def test_verbose_sync_logs_no_plaintext_even_on_failures(env: Env, s3_server: str) -> None:  # noqa: F811
    s = _plant(env)
    env.cli_json("sync", "--workers", "1")  # first run direct; the second goes through faults
    with (s.root / "projects" / s.project_key / f"{s.main}.jsonl").open("a") as f:
        f.write('{"type":"user","message":{"role":"user","content":"more ' + CANARY + '"}}\n')
    (s.root / "projects" / s.project_key / s.main / "tool-results" / "new.txt").write_text(f"{CANARY} {USER}\n")
    with FaultProxy(s3_server, max_lifetime=60) as proxy:
        env.endpoint = proxy.url
        env.write_config()
        proxy.add("503", method="PUT", path="/objects/", times=1)  # retried: a warning with the key
        proxy.add("403", method="PUT", path="/objects/", after=1, times=None, sticky=True)  # an error
        proc = subprocess.run([sys.executable, "-m", "archiver", "sync", "-v", "--workers", "2",
                               "--config", str(env.config)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1
    text = proc.stdout + proc.stderr
    lowered = text.lower()
    assert "debug" in lowered and "retrying" in lowered and "accessdenied" in lowered  # it did log, a lot
    for word in _forbidden(s):
        assert word not in text, word


def test_errors_and_warnings_in_the_result_are_redacted(env: Env) -> None:  # noqa: F811
    from tests.test_disk_faults import Meddling, claude, make_syncer

    s = _plant(env)
    victim = s.root / "projects" / s.project_key / f"{s.fork}.jsonl"
    sidecar = s.root / "projects" / s.project_key / s.main / "tool-results" / "canary.txt"

    def meddle() -> None:
        victim.unlink()
        sidecar.unlink()

    result = make_syncer(env, Meddling(claude(env).ctx, meddle)).run()
    assert result.failed == 1
    manifest_text = " ".join(result.errors + [w for x in result.sessions for w in x.warnings])
    assert "vanished" in manifest_text and "canary.txt" in manifest_text
    for word in _forbidden(s):
        assert word not in manifest_text, word


# ---------------------------------------------------------------- temp files
class _Writes:
    """An audit hook (once installed it stays; `active` switches it) that records every path the
    run opens for writing, creates, or opens as SQLite, from the run's own threads."""

    _installed: "_Writes | None" = None

    def __init__(self) -> None:
        self.active = False
        self.paths: list[tuple[str, str]] = []
        self.dirs: list[tuple[str, int]] = []

    @classmethod
    def get(cls) -> "_Writes":
        if cls._installed is None:
            cls._installed = cls()
            sys.addaudithook(cls._installed.hook)
        return cls._installed

    def hook(self, event: str, args: tuple[Any, ...]) -> None:
        if not self.active:
            return
        name = threading.current_thread().name
        if "process_request" in name or name.startswith(("faultproxy", "Thread-")):
            return  # moto's and the proxy's server threads
        if event == "open" and len(args) >= 3 and isinstance(args[0], (str, os.PathLike)):
            mode, flags = args[1], args[2] or 0
            writes = (isinstance(mode, str) and any(c in mode for c in "wax+")) or (
                mode is None and flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT))
            if writes:
                self.paths.append((event, os.fspath(args[0])))
        elif event == "sqlite3.connect" and args and isinstance(args[0], (str, os.PathLike)):
            db = os.fspath(args[0])
            if db.startswith("file:"):  # a URI: read-only opens write nothing
                from urllib.parse import unquote, urlsplit

                uri = urlsplit(db)
                if "mode=ro" in uri.query:
                    return
                db = unquote(uri.path)
            self.paths.append((event, db))
        elif event == "os.mkdir" and isinstance(args[0], (str, os.PathLike)):
            self.dirs.append((os.fspath(args[0]), args[1]))
            self.paths.append((event, os.fspath(args[0])))


@pytest.fixture
def watched(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[_Writes, Path]]:
    """Record the run's writes; the system temp dir is a fresh folder that must stay empty."""
    systmp = tmp_path / "systmp"
    systmp.mkdir()
    # a short runtime dir for the worker pool's socket folder, in case the state dir's path under
    # pytest is too long for a socket (workers.pin_socket_dir): made before the watch starts
    runtime = Path(tempfile.mkdtemp(prefix="xdg-", dir="/tmp"))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    monkeypatch.setattr(tempfile, "tempdir", str(systmp))
    w = _Writes.get()
    w.paths.clear()
    w.dirs.clear()
    yield w, systmp
    w.active = False
    if (runtime / f"mp-{os.getpid()}").exists():
        # this process's socket folder, pinned for its lifetime (workers.pin_socket_dir): removing
        # it now would leave the next test's worker pool without a place for its socket
        atexit.register(shutil.rmtree, runtime, True)
    else:
        shutil.rmtree(runtime, ignore_errors=True)


def _check_writes(w: _Writes, state_dir: Path, systmp: Path) -> None:
    # mp-<pid>: the worker pool's socket folder, kept while this process lives (workers.pin_socket_dir)
    socket_dirs = {Path(p) for p, mode in w.dirs if Path(p).name == f"mp-{os.getpid()}"
                   and Path(p).parent in (state_dir / "tmp", Path(os.environ["XDG_RUNTIME_DIR"]))}
    assert all(mode == 0o700 for p, mode in w.dirs if Path(p) in socket_dirs)
    for d in socket_dirs:
        assert all(stat.S_ISSOCK(f.lstat().st_mode) for f in d.iterdir()), list(d.iterdir())
    w.dirs = [(p, mode) for p, mode in w.dirs if Path(p) not in socket_dirs]
    w.paths = [(e, p) for e, p in w.paths if not any(d == Path(p) or d in Path(p).parents for d in socket_dirs)]
    run_dirs = {Path(p) for p, mode in w.dirs if Path(p).parent == state_dir / "tmp"}
    assert run_dirs, "the run made no private folder"
    assert all(mode == 0o700 for p, mode in w.dirs if Path(p) in run_dirs)
    outside = []
    for event, p in w.paths:
        if event == "sqlite3.connect" and p == ":memory:":
            continue  # a small database redacted in memory (walkers/sqlite.py _in_memory): no file, temp_store memory
        path = Path(p)
        if any(d == path or d in path.parents for d in run_dirs):
            continue
        if path.parent == state_dir and (path.name.startswith("st.db") or path.name == "lock"):
            continue
        if event == "os.mkdir" and path in (state_dir, state_dir / "tmp"):
            continue
        outside.append((event, p))
    assert outside == [], outside
    assert list(systmp.iterdir()) == []
    assert not [d for d in run_dirs if d.exists()]  # removed after the run
    assert stat.S_IMODE((state_dir / "tmp").stat().st_mode) == 0o700


def test_temp_files_only_in_a_private_run_folder_removed_after_the_run(
        env: Env, watched: tuple[_Writes, Path]) -> None:  # noqa: F811
    from tests.test_disk_faults import claude, make_syncer

    w, systmp = watched
    _plant(env)
    state_dir = env.base / "state"
    syncer = make_syncer(env, claude(env), state=state_dir / "st.db")
    syncer.workdir_parent = state_dir / "tmp"
    w.active = True
    result = syncer.run()
    w.active = False
    assert result.failed == 0 and result.snapshot
    assert any("/run-" in p for _, p in w.paths)
    _check_writes(w, state_dir, systmp)
    assert stat.S_IMODE((state_dir / "st.db").stat().st_mode) == 0o600


def test_temp_files_are_removed_after_a_failure_mid_run(env: Env, watched: tuple[_Writes, Path]) -> None:  # noqa: F811
    from tests.test_disk_faults import claude, make_syncer

    w, systmp = watched
    _plant(env)
    state_dir = env.base / "state"
    syncer = make_syncer(env, claude(env), state=state_dir / "st.db")
    syncer.workdir_parent = state_dir / "tmp"
    real_put = syncer.archive.put_object
    calls = {"n": 0}

    def put_then_crash(*args: Any, **kw: Any) -> int:
        calls["n"] += 1
        if calls["n"] == 4:
            raise RuntimeError("unexpected failure in the middle of the run")
        return real_put(*args, **kw)

    syncer.archive.put_object = put_then_crash  # type: ignore[method-assign]
    w.active = True
    result = syncer.run()  # an unexpected error fails its session, not the run
    w.active = False
    assert result.failed == 1 and "internal error (RuntimeError)" in result.errors[0]
    assert "unexpected failure" not in result.errors[0]  # its message could quote content
    _check_writes(w, state_dir, systmp)


def test_sqlite_harness_temp_files_stay_in_the_run_folder(env: Env, watched: tuple[_Writes, Path]) -> None:  # noqa: F811
    from archiver import runtime
    from archiver.config import load_settings
    from archiver.demo.codex_sample import make_codex_home
    from tests.test_disk_faults import make_syncer

    w, systmp = watched
    make_codex_home(env.home, USER)
    [codex] = runtime.harnesses(load_settings(env.config), ["codex"])
    state_dir = env.base / "state"
    syncer = make_syncer(env, codex, state=state_dir / "st.db")
    syncer.workdir_parent = state_dir / "tmp"
    w.active = True
    result = syncer.run()
    w.active = False
    assert result.snapshot
    _check_writes(w, state_dir, systmp)


# ---------------------------------------------------------------- S3 keys and metadata
KEY_FORMS = [
    re.compile(r"arch/archiver\.json"),
    re.compile(r"arch/objects/([0-9a-f]{2})/\1[0-9a-f]{62}"),
    re.compile(r"arch/snapshots/[0-9a-f]{16}/\d{8}T\d{6}Z-[0-9a-f]{8}\.json\.age"),
]


def test_s3_keys_metadata_and_bytes_carry_no_plaintext(env: Env) -> None:  # noqa: F811
    s = _plant(env)
    out = env.cli_json("sync", "--workers", "1")
    assert out["sessions"]["failed"] == 0
    client = s3_client(env.endpoint)
    keys = env.keys_in_bucket()
    assert len(keys) > 10
    ids = [s.main, s.fork, s.continuation, s.subagent, s.project_key]
    for key in keys:
        assert any(f.fullmatch(key) for f in KEY_FORMS), key
        head = client.head_object(Bucket=env.bucket, Key=key)
        assert head.get("Metadata") == {}, key
        assert head["ContentType"] in ("application/octet-stream", "application/json"), key
        assert client.get_object_tagging(Bucket=env.bucket, Key=key)["TagSet"] == []
        body = env.raw_object(key)
        if key.endswith("archiver.json"):
            assert b'"format": "archiver/1"' in body
        else:
            assert body.startswith(b"age-encryption.org/v1\n")
        for word in _forbidden(s) + ids:
            assert word.encode() not in body, (key, word)


# ---------------------------------------------------------------- crash dumps
def test_a_crash_in_the_pipeline_prints_no_session_content(env: Env) -> None:  # noqa: F811
    import sqlite3

    make_claude_home(env.home, USER)
    db = env.base / "conv.db"
    c = sqlite3.connect(db)
    c.execute("CREATE TABLE m (id INTEGER PRIMARY KEY, body TEXT)")
    c.execute("INSERT INTO m (body) VALUES (CAST(? AS TEXT))",
              (f"{CANARY} token={FAKE_GITHUB_TOKEN} \xff\xfe /home/{USER}/notes".encode("latin-1"),))
    c.commit()
    c.close()
    script = textwrap.dedent(f"""
        import sys
        from pathlib import Path
        import archiver.runtime as runtime
        from tests.test_hostile_input import _Databases
        claude = runtime.harnesses
        runtime.harnesses = lambda settings, only=None, **kw: claude(settings, ["claude-code"], **kw) + [
            _Databases([Path({str(db)!r})])]
        from archiver.cli import main
        sys.exit(main(["sync", "--config", {str(env.config)!r}, "--workers", "1"]))
    """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                          cwd=str(Path(__file__).resolve().parents[1]))
    text = proc.stdout + proc.stderr
    assert CANARY not in text and FAKE_GITHUB_TOKEN not in text and USER not in text
    assert "Traceback" not in text
    assert proc.returncode == 1 and "conv" in text  # the failure is reported, naming the file
