"""The pipeline's floor made cheaper (issue 7): what each change keeps.

- an OpenCode session extract is built without a rollback journal or fsyncs: same bytes;
- the run's temp files are spread over 0700 subfolders of the run folder, all removed;
- the redactor recipe's rule packs are parsed before the worker pool starts, so workers
  receive them parsed; a bad pack still fails every job (fail closed)."""

from __future__ import annotations

import hashlib
import sqlite3
import stat
from pathlib import Path
from typing import Any, Iterator

import pytest

import archiver.harnesses.opencode as opencode
from archiver.demo.opencode_sample import SES_A, SES_B, SES_F, close_opencode_home, make_opencode_home
from archiver.harnesses.base import HarnessContext
from archiver.redact.redactor import RedactorRecipe
from archiver.redact.rules import RuntimeTerms
from archiver.sync import Workdir
from archiver.workers import Jobs, WorkerCrashed

KEY = b"k" * 32
TERMS = RuntimeTerms(usernames=["alice"], home_dirs=["/home/alice"])


# ---- OpenCode extracts ----

class _DefaultJournal:
    """A connection that ignores the extract's journal/sync PRAGMAs: the extract as built before."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def execute(self, sql: str, *args: Any) -> Any:
        if sql.startswith(("PRAGMA main.journal_mode", "PRAGMA main.synchronous")):
            return self._conn.execute("SELECT 1")
        return self._conn.execute(sql, *args)

    def close(self) -> None:
        self._conn.close()


@pytest.fixture(scope="module")
def opencode_db(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    home = tmp_path_factory.mktemp("oc-home")
    info = make_opencode_home(home)
    harness = opencode.OpenCode(HarnessContext(home=home, env={}))
    snap = opencode.DbSnapshot(home / ".local/share/opencode/opencode.db")
    yield snap.path
    snap.close()
    harness.close()
    close_opencode_home(info)


@pytest.mark.parametrize("sid", [SES_A, SES_B, SES_F, "no-such-session"])
def test_extract_bytes_are_those_of_a_journaled_build(opencode_db: Path, sid: str, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    fast = tmp_path / "fast.db"
    opencode.extract_session(opencode_db, sid, fast)
    connect = sqlite3.connect
    monkeypatch.setattr(opencode.sqlite3, "connect", lambda *a, **k: _DefaultJournal(connect(*a, **k)))
    journaled = tmp_path / "journaled.db"
    opencode.extract_session(opencode_db, sid, journaled)
    monkeypatch.undo()
    assert hashlib.sha256(fast.read_bytes()).hexdigest() == hashlib.sha256(journaled.read_bytes()).hexdigest()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fast.db", "journaled.db"]  # no journal left
    conn = sqlite3.connect(str(fast))
    try:  # an ordinary rollback-journal database to whoever opens it (the mode is not stored)
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        ids = [r[0] for r in conn.execute("SELECT id FROM session_v2")]
    finally:
        conn.close()
    assert ids == ([] if sid == "no-such-session" else [sid])


# ---- the run's temp folder ----

def test_workdir_spreads_files_over_private_subfolders_and_removes_them(tmp_path: Path) -> None:
    work = Workdir(tmp_path / "tmp")
    files = [work.file("snap") for _ in range(3 * Workdir.SHARDS)]
    assert len(set(files)) == len(files)
    folders = {f.parent for f in files}
    assert len(folders) == Workdir.SHARDS
    for folder in folders:
        assert folder.parent == work.path
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE(work.path.stat().st_mode) == 0o700
    for f in files:
        f.write_bytes(b"plaintext")
    work.cleanup()
    assert not work.path.exists()
    assert list((tmp_path / "tmp").iterdir()) == []


# ---- workers receive the rules parsed ----

def test_pool_start_parses_the_recipes_packs_once(tmp_path: Path) -> None:
    recipe = RedactorRecipe(["builtin:secrets"], KEY, TERMS)
    assert recipe._rules is None  # noqa: SLF001
    jobs = Jobs(recipe(), KEY, True, workers=2, factory=RedactorRecipe(["builtin:secrets"], KEY, TERMS))
    factory = jobs._factory  # noqa: SLF001
    assert factory._rules is None  # type: ignore[union-attr]  # noqa: SLF001
    try:
        jobs.warm()
        assert factory._rules is not None  # type: ignore[union-attr]  # noqa: SLF001
        src = tmp_path / "t.jsonl"
        src.write_bytes(b'{"msg": "token ghp_' + b"A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8" + b'"}\n')
        result = jobs.segment(src, 0, src.stat().st_size, tmp_path / "out")
        out = (tmp_path / "out").read_bytes()
    finally:
        jobs.close()
    assert b"ghp_A1b2" not in out and out.endswith(b"\n")
    assert result.size == len(out) and result.lines == 1 and not result.leftovers


def test_a_bad_pack_still_fails_every_pooled_job(tmp_path: Path) -> None:
    missing = str(tmp_path / "no-such-pack.toml")
    jobs = Jobs(RedactorRecipe(["builtin:secrets"], KEY, TERMS)(), KEY, True, workers=2,
                factory=RedactorRecipe([missing], KEY, TERMS))
    src = tmp_path / "t.jsonl"
    src.write_bytes(b'{"a": 1}\n')
    try:
        jobs.warm()  # the pack error is left to the redactor's build: nothing raised here
        with pytest.raises(WorkerCrashed):
            jobs.segment(src, 0, src.stat().st_size, tmp_path / "out")
    finally:
        jobs.close()
    assert not (tmp_path / "out").exists()
