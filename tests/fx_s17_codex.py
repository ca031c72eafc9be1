"""A ~/.codex (archiver/demo/codex_sample.py, after seeds/by-harness/codex.json) whose
state_5.sqlite holds tables a future Codex might add (the seed's "threads, thread_spawn_edges,
thread_dynamic_tools, rollout_migration_state, etc."):

- thread_goals_v2(goal TEXT, created_at INTEGER): 3 rows, no thread column; one row names a
  GitHub token and a path under the home.
- goal_templates(name TEXT, body TEXT): no thread column, no rows.
- thread_notes_v3(thread_id TEXT, note TEXT): a thread column, one row for the main thread.

The extra tables are written in a forked child that exits without closing its connection, so
their rows (like the sample's FORK_OF_REVERT row) live only in a live state_5.sqlite-wal.
No tests here.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Any

from archiver.demo.codex_sample import MAIN, make_codex_home

HOST_TABLE = "thread_goals_v2"
EMPTY_TABLE = "goal_templates"
THREAD_TABLE = "thread_notes_v3"
# a classic GitHub PAT shape (ghp_ + 36 base62; the sample's own GITHUB_TOKEN is longer: github-pat leaves it,
# github-token-odd-length takes it)
GOAL_TOKEN = "ghp_" + "R7kLm2Qx9TbV1cN3pW5yH6jD0sA4eG2uIoZ8"
KEEP_OPEN: list[sqlite3.Connection] = []  # referenced until the child exits: no close, no checkpoint


def goal_rows(home: Path) -> list[tuple[str, int]]:
    """thread_goals_v2's rows as written (the second holds a secret and a home path)."""
    return [
        ("Ship the login fix", 1767323045),
        (f"Rotate {GOAL_TOKEN} listed in {home}/work/secrets/plan.md", 1767323046),
        ("Write the release notes", 1767323047),
    ]


NOTE = "Remember the flaky retry test"


def _add_tables(state: Path, home: Path) -> None:
    con = sqlite3.connect(str(state), isolation_level=None)
    KEEP_OPEN.append(con)
    assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    con.execute("PRAGMA wal_autocheckpoint=0")
    con.execute(f"CREATE TABLE {HOST_TABLE} (goal TEXT, created_at INTEGER)")
    con.execute(f"CREATE TABLE {EMPTY_TABLE} (name TEXT, body TEXT)")
    con.execute(f"CREATE TABLE {THREAD_TABLE} (thread_id TEXT NOT NULL, note TEXT NOT NULL)")
    con.executemany(f"INSERT INTO {HOST_TABLE} VALUES (?, ?)", goal_rows(home))
    con.execute(f"INSERT INTO {THREAD_TABLE} VALUES (?, ?)", (MAIN, NOTE))


def make_home(home: Path, user: str) -> dict[str, Any]:
    """The sample home with the extra state_5 tables committed only in the live -wal.
    Returns the sample's thread ids and the rollout_migration_state row count."""
    info = make_codex_home(home, user=user)
    state = info["root"] / "state_5.sqlite"
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        code = 1
        try:
            _add_tables(state, home)
            code = 0
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, "adding the extra state_5 tables failed"
    assert (info["root"] / "state_5.sqlite-wal").stat().st_size > 0
    return {"threads": info["threads"], "root": info["root"]}
