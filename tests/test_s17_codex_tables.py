"""state_5.sqlite tables with rows and no thread column (a table a future Codex adds) go to the
host session `codex:@host` as its state extract, redacted, with a warning naming the table and
its row count; restore merges them into <target>/.codex/state_5.sqlite beside the threads' rows.

A real sync (`python -m archiver sync`) of a generated ~/.codex (tests/fx_s17_codex.py) to a
file:// store, read back with the `age` and `zstd` CLIs and sqlite3, then `archiver restore`."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from archiver.demo.codex_sample import MAIN
from archiver.harnesses.codex import merge_state_extract
from tests.fx_s11_e2e import USER, Setup, decrypt_all, latest_manifest, setup
from tests.fx_s17_codex import EMPTY_TABLE, GOAL_TOKEN, HOST_TABLE, NOTE, THREAD_TABLE, goal_rows, make_home

HOST_EXTRACT = ".codex/archiver-extracts/state_5/@host.sqlite"
WARNING = (f"state_5.sqlite: table {HOST_TABLE} has 3 row(s) and no thread column; "
           "archived in the host session's state extract")
STATE_THREADS = 7  # the sample's threads with a state_5 row (FORK_OF_REVERT's only in the -wal)


def _sync(s: Setup) -> dict[str, Any]:
    r = s.cli("sync", "--json")
    assert r.returncode == 0, (r.returncode, r.stdout[-2000:], r.stderr[-2000:])
    return json.loads(r.stdout)  # type: ignore[no-any-return]


def _object(plain: dict[str, bytes], session: dict[str, Any], path: str) -> bytes:
    (art,) = [a for a in session["artifacts"] if a["path"] == path]
    assert art["format"] == "sqlite"
    (oid,) = art["objects"]
    return plain[f"objects/{oid[:2]}/{oid}"]


def _rows(db: Path, sql: str) -> list[tuple[Any, ...]]:
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def _check_goals(got: list[tuple[Any, ...]], home: Path) -> None:
    """The three rows, the second one's token and home path redacted, the others byte for byte."""
    want = goal_rows(home)
    assert len(got) == 3
    assert got[0] == want[0] and got[2] == want[2]
    goal, created = got[1]
    assert created == want[1][1]
    assert re.fullmatch(rf"Rotate <GITHUB_TOKEN:[0-9a-f]{{8}}> listed in {re.escape(str(home.parent))}"
                        r"/user-[0-9a-f]{4}/work/secrets/plan\.md", goal), goal


@pytest.fixture(scope="module")
def synced(tmp_path_factory: pytest.TempPathFactory) -> tuple[Setup, dict[str, Any], dict[str, bytes], dict[str, Any]]:
    s = setup(tmp_path_factory.mktemp("s17-codex"), "codex")
    make_home(s.home, USER)
    out = _sync(s)
    plain = decrypt_all(s)
    return s, out, plain, latest_manifest(plain)


def test_host_table_rows_go_redacted_into_the_host_state_extract(synced: tuple) -> None:
    s, out, plain, manifest = synced
    assert out["sessions"]["failed"] == 0, out
    sessions = {x["key"]: x for x in manifest["sessions"]}
    blob = _object(plain, sessions["codex:@host"], HOST_EXTRACT)
    for secret in (GOAL_TOKEN, str(s.home), USER):
        assert secret.encode() not in blob, secret
    db = s.base / "host-extract.sqlite"
    db.write_bytes(blob)
    _check_goals(_rows(db, f"SELECT goal, created_at FROM {HOST_TABLE} ORDER BY created_at"), s.home)
    # the schema of every table, the migration rows, and no thread's rows
    for table in ("threads", "thread_spawn_edges", "thread_dynamic_tools", THREAD_TABLE, EMPTY_TABLE,
                  "rollout_migration_state"):
        assert _rows(db, f"SELECT count(*) FROM {table}") == [(0,)], table
    assert _rows(db, "SELECT version, description FROM _sqlx_migrations") == [(1, "threads")]


def test_the_warning_names_the_table_and_its_row_count_only(synced: tuple) -> None:
    _s, out, _plain, manifest = synced
    assert out["session_warnings"]["codex:@host"] == [WARNING]
    host = next(x for x in manifest["sessions"] if x["key"] == "codex:@host")
    assert host["warnings"] == [WARNING]
    everything = json.dumps(out["session_warnings"]) + json.dumps([x["warnings"] for x in manifest["sessions"]])
    for quiet in (EMPTY_TABLE, THREAD_TABLE, "rollout_migration_state", "Ship the login fix"):
        assert quiet not in everything, quiet


def test_a_table_with_a_thread_column_stays_in_its_threads_extract(synced: tuple) -> None:
    s, _out, plain, manifest = synced
    sessions = {x["key"]: x for x in manifest["sessions"]}
    db = s.base / "main-extract.sqlite"
    db.write_bytes(_object(plain, sessions[f"codex:{MAIN}"], f".codex/archiver-extracts/state_5/{MAIN}.sqlite"))
    assert _rows(db, f"SELECT thread_id, note FROM {THREAD_TABLE}") == [(MAIN, NOTE)]
    assert _rows(db, f"SELECT count(*) FROM {HOST_TABLE}") == [(0,)]
    assert _rows(db, "SELECT id FROM threads") == [(MAIN,)]
    host = [a["path"] for a in sessions["codex:@host"]["artifacts"]]
    assert [p for p in host if "archiver-extracts" in p] == [HOST_EXTRACT]


def test_restore_merges_host_rows_beside_the_threads_rows(synced: tuple) -> None:
    s, _out, _plain, _manifest = synced
    target = s.base / "restored-all"
    s.restore(target)
    state = target / ".codex" / "state_5.sqlite"
    goals = f"SELECT goal, created_at FROM {HOST_TABLE} ORDER BY created_at"
    _check_goals(_rows(state, goals), s.home)
    assert _rows(state, "SELECT count(*) FROM threads") == [(STATE_THREADS,)]
    assert _rows(state, f"SELECT thread_id, note FROM {THREAD_TABLE}") == [(MAIN, NOTE)]
    assert _rows(state, "SELECT count(*) FROM rollout_migration_state") == [(0,)]
    first = _rows(state, goals)
    s.restore(target)  # again into the same home: the keyless rows are not added twice
    assert _rows(state, goals) == first
    assert _rows(state, "SELECT count(*) FROM threads") == [(STATE_THREADS,)]

    # the host session alone creates state_5.sqlite; a thread restored after it adds its rows
    other = s.base / "restored-host-then-main"
    s.restore(other, "codex:@host")
    state = other / ".codex" / "state_5.sqlite"
    assert _rows(state, goals) == first and _rows(state, "SELECT count(*) FROM threads") == [(0,)]
    s.restore(other, f"codex:{MAIN}")
    assert _rows(state, goals) == first
    assert _rows(state, "SELECT id FROM threads") == [(MAIN,)]
    assert _rows(state, f"SELECT thread_id, note FROM {THREAD_TABLE}") == [(MAIN, NOTE)]


def test_a_thread_write_leaves_the_host_extract_unchanged(tmp_path: Path) -> None:
    """Codex bumps a thread's row every turn: the host extract's identity is its own rows'."""
    s = setup(tmp_path, "codex")
    info = make_home(s.home, USER)
    first = _sync(s)
    assert first["sessions"]["failed"] == 0
    con = sqlite3.connect(str(info["root"] / "state_5.sqlite"))
    con.execute("UPDATE threads SET updated_at = updated_at + 60 WHERE id = ?", (MAIN,))
    con.commit()
    con.close()
    second = _sync(s)
    assert second["sessions"]["uploaded"] == 1, second["sessions"]  # MAIN only, not codex:@host
    con = sqlite3.connect(str(info["root"] / "state_5.sqlite"))
    con.execute(f"INSERT INTO {HOST_TABLE} VALUES ('Tag the release', 1767323048)")
    con.commit()
    con.close()
    third = _sync(s)
    assert third["sessions"]["uploaded"] == 1, third["sessions"]  # codex:@host only
    assert third["session_warnings"]["codex:@host"] == [WARNING.replace("3 row(s)", "4 row(s)")]


def test_merging_keyless_rows_adds_each_missing_copy_once(tmp_path: Path) -> None:
    extract, target = tmp_path / "ext.sqlite", tmp_path / "state_5.sqlite"
    for db, rows in ((extract, ["a", "a", "b", None]), (target, ["a", "c"])):
        con = sqlite3.connect(str(db))
        con.execute("CREATE TABLE notes_v9 (body TEXT)")
        con.executemany("INSERT INTO notes_v9 VALUES (?)", [(r,) for r in rows])
        con.commit()
        con.close()
    warnings: list[str] = []
    for _ in range(2):
        merge_state_extract(extract, target, tmp_path, warnings, overwrite=False)
        assert sorted(_rows(target, "SELECT body FROM notes_v9"), key=repr) == [
            ("a",), ("a",), ("b",), ("c",), (None,)]
    assert warnings == []
