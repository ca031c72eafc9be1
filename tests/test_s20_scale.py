"""Work that must grow no faster than the number of sessions (bench/scale.py measures the time).

Not timed: each test counts work at N and 4N sessions (Python lines run in the collector, SQLite
virtual-machine steps, query plans) and fails when it grows like N², as it did for
- DeepSeek fork-parent inference: every session compared with every fork (forks x sessions);
- Codex per-thread extracts of a table no index leads with by its thread column: the whole table
  read once per thread (threads x rows).
Fixtures follow the seeds (DeepSeek catalog 003_*.txt; Codex state_5 / thread_history_1).
"""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path
from types import FrameType
from typing import Any, Callable

import pytest

from archiver.demo.deepseek_sample import _assistant, _ev, _header, _user
from archiver.harnesses import codex as codex_mod
from archiver.harnesses import deepseek_harness
from archiver.harnesses.base import HarnessContext, load_harness

T0 = 1767225600000


def lines_run(files: set[str], fn: Callable[[], Any]) -> int:
    """Python lines executed in `files` while fn() runs (the collector's own work)."""
    count = 0

    def local(frame: FrameType, event: str, arg: Any) -> Any:
        nonlocal count
        if event == "line":
            count += 1
        return local

    def on_call(frame: FrameType, event: str, arg: Any) -> Any:
        return local if frame.f_code.co_filename in files else None

    sys.settrace(on_call)
    try:
        fn()
    finally:
        sys.settrace(None)
    return count


# ---------------------------------------------------------------- DeepSeek fork inference


def _deepseek_home(home: Path, mains: int) -> int:
    """`mains` sessions of 3 turns and as many forks (inherited prefix of 5 events, end-seed
    marker, no parentSession: the parent is inferred). Returns the number of forks."""
    root = home / ".deepseek" / "sessions"
    root.mkdir(parents=True)
    for i in range(mains):
        sid = f"ds-main-{i:05d}"
        events = [_header(sid, T0 + i * 1000, "/home/alice/work/app")]
        seq = 0
        for turn in range(3):
            seq += 1
            events.append(_ev(seq, "turn/start", {"turn": turn}))
            seq += 1
            events.append(_user(seq, f"m-{i}-{turn}", f"question {i} {turn}"))
            seq += 1
            events.append(_assistant(seq, turn, 1, f"a-{i}-{turn}", [{"type": "text", "text": f"answer {i} {turn}"}]))
        (root / f"{sid}.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))
        fid = f"ds-fork-{i:05d}"
        fork = [_header(fid, T0 + i * 1000 + 500, "/home/alice/work/app", seeded=True), *events[1:6],
                _ev(6, "session/end-seed", {"inherited": True}), _ev(7, "turn/start", {"turn": 9})]
        (root / f"{fid}.jsonl").write_text("".join(json.dumps(e) + "\n" for e in fork))
    return mains


def _deepseek_work(tmp: Path, mains: int) -> int:
    home = tmp / f"ds-{mains}"
    _deepseek_home(home, mains)
    cache: dict[str, str] = {}
    found = list(load_harness("deepseek-harness", HarnessContext(home=home, env={}, cache=cache)).discover())
    forks = {s.session_id: s for s in found if s.kind == "fork"}
    assert len(forks) == mains
    for sid, s in forks.items():  # every fork's parent found, from its prefix alone
        (edge,) = s.parents
        assert (edge.relation, edge.parent, edge.inferred) == ("fork", f"deepseek-harness:ds-main-{sid[-5:]}", True)
    warm = load_harness("deepseek-harness", HarnessContext(home=home, env={}, cache=cache))
    return lines_run({deepseek_harness.__file__}, lambda: list(warm.discover()))


def test_deepseek_fork_inference_work_grows_linearly(tmp_path: Path) -> None:
    small, big = _deepseek_work(tmp_path, 50), _deepseek_work(tmp_path, 200)
    # forks x sessions comparisons made this ~9x at 4x the sessions (a list comprehension's line per pair)
    assert big / small < 5.0, (small, big)


# ---------------------------------------------------------------- Codex per-thread extracts

STATE_DDL = """
CREATE TABLE _sqlx_migrations (version BIGINT PRIMARY KEY, description TEXT NOT NULL, success BOOLEAN NOT NULL);
CREATE TABLE threads (id TEXT PRIMARY KEY, rollout_path TEXT NOT NULL, cwd TEXT NOT NULL, title TEXT NOT NULL);
CREATE TABLE thread_dynamic_tools (thread_id TEXT NOT NULL, position INTEGER NOT NULL, name TEXT NOT NULL);
"""
HISTORY_DDL = """
CREATE TABLE thread_items (item_pk INTEGER PRIMARY KEY, thread_id TEXT NOT NULL, turn_id TEXT NOT NULL,
    item_id TEXT NOT NULL, rollout_ordinal INTEGER NOT NULL, item_json TEXT NOT NULL);
CREATE TABLE thread_history_projection_state (thread_id TEXT PRIMARY KEY, next_rollout_byte_offset INTEGER NOT NULL,
    next_rollout_ordinal INTEGER NOT NULL);
"""


def _tid(i: int) -> str:
    return f"0199aaaa-bbbb-7ccc-8ddd-{i:012d}"


def _codex_home(home: Path, threads: int) -> Path:
    """A Codex root whose thread_dynamic_tools and thread_items have no index on thread_id (the
    seed names the tables, not their indexes), WAL mode, with a rollout per thread."""
    root = home / ".codex"
    day = root / "sessions" / "2026" / "01" / "01"
    day.mkdir(parents=True)
    state = sqlite3.connect(str(root / "state_5.sqlite"), isolation_level=None)
    hist = sqlite3.connect(str(root / "thread_history_1.sqlite"), isolation_level=None)
    for con, ddl in ((state, STATE_DDL), (hist, HISTORY_DDL)):
        con.execute("PRAGMA journal_mode=WAL")
        con.executescript(ddl)
        con.execute("BEGIN")
    state.execute("INSERT INTO _sqlx_migrations VALUES (1, 'threads', 1)")
    for i in range(threads):
        tid = _tid(i)
        rollout = day / f"rollout-2026-01-01T00-00-00-{tid}.jsonl"
        meta = {"id": tid, "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/home/alice/work/app", "source": "cli"}
        rollout.write_text(json.dumps({"timestamp": "2026-01-01T00:00:00.000Z", "type": "session_meta", "payload": meta}) + "\n")
        state.execute("INSERT INTO threads VALUES (?, ?, '/home/alice/work/app', ?)", (tid, str(rollout), f"thread {i}"))
        for pos in range(2):
            state.execute("INSERT INTO thread_dynamic_tools VALUES (?, ?, 'deploy')", (tid, pos))
        for k in range(10):
            hist.execute("INSERT INTO thread_items (thread_id, turn_id, item_id, rollout_ordinal, item_json) "
                         "VALUES (?, 't1', ?, ?, '{}')", (tid, f"i{k}", k))
        hist.execute("INSERT INTO thread_history_projection_state VALUES (?, 4096, 10)", (tid,))
    for con in (state, hist):
        con.execute("COMMIT")
        con.close()
    return root


class _CountingSqlite:
    """`sqlite3` for the codex module, counting the virtual-machine steps of its connections
    (a progress handler called every STEP instructions)."""

    STEP = 100

    def __init__(self) -> None:
        self.steps = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(sqlite3, name)

    def connect(self, *args: Any, **kw: Any) -> sqlite3.Connection:
        con = sqlite3.connect(*args, **kw)
        con.set_progress_handler(self._tick, self.STEP)
        return con

    def _tick(self) -> int:
        self.steps += 1
        return 0


def _codex_extract_steps(tmp: Path, threads: int, monkeypatch: pytest.MonkeyPatch) -> int:
    home = tmp / f"codex-{threads}"
    _codex_home(home, threads)
    harness = load_harness("codex", HarnessContext(home=home, env={}))
    sessions = list(harness.discover())
    produced = [(s, src) for s in sessions for src in s.sources if src.mode == "produced" and src.role == "database"]
    assert len(produced) == 2 * threads  # a state_5 and a thread_history extract per thread
    counter = _CountingSqlite()
    monkeypatch.setattr(codex_mod, "sqlite3", counter)
    out = tmp / "extract.sqlite"
    try:
        for s, src in produced:
            src.produce(out)
            con = sqlite3.connect(str(out))
            tids = {r[0] for t in ("thread_dynamic_tools", "thread_items") if _has(con, t)
                    for r in con.execute(f"SELECT DISTINCT thread_id FROM {t}")}
            n_idx = con.execute("SELECT count(*) FROM sqlite_master WHERE name GLOB 'archiver_*'").fetchone()[0]
            con.close()
            assert tids == {s.session_id}, "an extract holds its thread's rows and no other's"
            assert n_idx == 0, "the snapshot's own index never travels in an extract"
    finally:
        monkeypatch.setattr(codex_mod, "sqlite3", sqlite3)
        harness.close()  # type: ignore[attr-defined]
    return counter.steps


def _has(con: sqlite3.Connection, table: str) -> bool:
    return con.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (table,)).fetchone() is not None


def test_codex_extracts_work_grows_linearly_without_a_thread_index(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    small = _codex_extract_steps(tmp_path, 40, monkeypatch)
    big = _codex_extract_steps(tmp_path, 160, monkeypatch)
    # reading thread_items once per thread made this ~10x at 4x the threads
    assert big / small < 5.5, (small, big)


def test_codex_snapshot_finds_a_threads_rows_by_index(tmp_path: Path) -> None:
    root = _codex_home(tmp_path / "home", 5)
    harness = load_harness("codex", HarnessContext(home=tmp_path / "home", env={}))
    try:
        for live in (root / "state_5.sqlite", root / "thread_history_1.sqlite"):
            snap = harness.db_snapshot(live)  # type: ignore[attr-defined]
            con = sqlite3.connect(str(snap))
            plans = {}
            for (table,) in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall():
                cols = [r[1] for r in con.execute(f'PRAGMA table_info("{table}")')]
                picked = codex_mod._thread_filter(table, cols)
                if picked and picked[0]:
                    plan = con.execute(f'EXPLAIN QUERY PLAN SELECT * FROM "{table}" WHERE {picked[0]}', {"tid": _tid(1)})
                    plans[table] = " ".join(str(r[-1]) for r in plan)
            con.close()
            assert plans and all(p.startswith("SEARCH") for p in plans.values()), plans
            # the live database is left as it was: no index added there
            live_con = sqlite3.connect(f"file:{live}?mode=ro", uri=True)
            assert live_con.execute("SELECT count(*) FROM sqlite_master WHERE name GLOB 'archiver_*'").fetchone()[0] == 0
            live_con.close()
    finally:
        harness.close()  # type: ignore[attr-defined]


def test_codex_digests_ignore_the_snapshot_index(tmp_path: Path) -> None:
    """thread_digests of an indexed snapshot equal those of a plain copy: the change identity of
    each thread's extract is the same as before the index was added."""
    root = _codex_home(tmp_path / "home", 4)
    from archiver.snapshot import copy_sqlite

    plain = tmp_path / "plain.sqlite"
    copy_sqlite(root / "thread_history_1.sqlite", plain)
    before = codex_mod.thread_digests(plain)
    assert codex_mod.index_thread_columns(plain) == ["thread_items"]
    assert codex_mod.thread_digests(plain) == before
    assert set(before) == {_tid(i) for i in range(4)}
