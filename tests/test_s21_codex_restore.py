"""`archiver restore codex:<thread>` without --with-family gives a home where Codex lists and resumes
that one thread (seeds/by-harness/codex.json): its rollout under sessions/YYYY/MM/DD (a `.jsonl.zst`
written compressed again), its state_5.sqlite `threads` row (the authority on the current rollout:
rollout_path names the restored file) with its other state rows (thread_dynamic_tools), and its
session_index.jsonl names. Into an empty target and into a Codex home that has other threads (their
rows and files stay byte for byte); with `--relocate` the rollout's and the row's cwd follow; with
Codex disabled in the restoring machine's config the state is still merged; a paginated fork restored
without the rollout its history_base names is warned about.

The source home is archiver/demo/codex_sample (after the seed), synced to a file:// store (fx_home.box)."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

import pytest

from archiver.demo.codex_sample import COMPRESSED, FORK, MAIN, STATE_DDL, make_codex_home
from tests import fx_s18_reader as reader
from tests.fx_home import USER, Box, box  # noqa: F401
from tests.fx_s32_relinks import codex_relinked

OTHER_X = "0199b0c1-2d3e-7f40-8a1b-0000000000a1"
OTHER_Y = "0199b0c1-2d3e-7f40-8a1b-0000000000a2"


def _synced(box: Box) -> dict[str, dict[str, Any]]:  # noqa: F811
    box.only("codex")
    make_codex_home(box.home, USER)
    box.sync()
    return box.ls()


def _restore(box: Box, target: Path, *args: str) -> dict[str, Any]:  # noqa: F811
    out = box.cli("restore", *args, "--to", str(target))
    assert out["refused"] == [] and out["integrity_errors"] == []
    return out  # type: ignore[no-any-return]


def _plain(path: Path) -> bytes:
    """A restored rollout's bytes, a .zst read back with the zstd CLI (it must be a zstd frame)."""
    if path.name.endswith(".zst"):
        assert path.read_bytes()[:4] == b"\x28\xb5\x2f\xfd"
        return subprocess.run(["zstd", "-d", "-c", str(path)], capture_output=True, check=True).stdout
    return path.read_bytes()


def _rows(db: Path, sql: str) -> list[tuple[Any, ...]]:
    con = sqlite3.connect(db)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def _rollout(session: dict[str, Any]) -> dict[str, Any]:
    return next(a for a in session["artifacts"] if a["role"] == "transcript")


def _index_lines(home: Path, tid: str) -> list[bytes]:
    return [ln for ln in (home / ".codex" / "session_index.jsonl").read_bytes().splitlines(keepends=True)
            if json.loads(ln)["id"] == tid]


def _archived(box: Box, art: dict[str, Any]) -> bytes:
    """An artifact's archived plaintext, read from the store without the archiver (fx_s18_reader)."""
    keys = box.base / "keys"
    arch = reader.load(reader.FileStore(box.base / "store"), keys / "identity.txt", (keys / "team.key").read_text())
    return reader.read_artifact(arch, art)


def _written(target: Path) -> set[str]:
    return {str(p.relative_to(target)) for p in target.rglob("*") if p.is_file()}


def _check_thread(box: Box, target: Path, session: dict[str, Any]) -> None:  # noqa: F811
    """The thread's rollout is the archived plaintext (its saved_path values naming the restored
    generated_images/ files, s33), its threads row is the archived one with
    rollout_path naming the restored file, and its dynamic tools are there."""
    tid = session["session_id"]
    art = _rollout(session)
    placed = target / art["path"]
    data = _plain(placed)
    archived = _archived(box, art)
    assert hashlib.sha256(archived).hexdigest() == art["sha256"] and len(archived) == art["size"]
    assert data == codex_relinked(archived, target, _written(target))
    first = json.loads(data.splitlines()[0])
    assert first["type"] == "session_meta" and first["payload"]["id"] == tid
    state = target / ".codex" / "state_5.sqlite"
    extract = target / ".codex" / "archiver-extracts" / "state_5" / f"{tid}.sqlite"
    row = _rows(state, f"SELECT * FROM threads WHERE id = '{tid}'")
    archived = _rows(extract, f"SELECT * FROM threads WHERE id = '{tid}'")
    assert len(row) == 1 and len(archived) == 1
    cols = [r[1] for r in _rows(state, "PRAGMA table_info(threads)")]
    got, want = dict(zip(cols, row[0])), dict(zip(cols, archived[0]))
    assert got["rollout_path"] == str(placed.resolve()) and Path(got["rollout_path"]).is_file()
    assert {k: v for k, v in got.items() if k != "rollout_path"} == {k: v for k, v in want.items() if k != "rollout_path"}
    assert _rows(state, f"SELECT * FROM thread_dynamic_tools WHERE thread_id = '{tid}'") == \
        _rows(extract, f"SELECT * FROM thread_dynamic_tools WHERE thread_id = '{tid}'")
    assert _rows(state, "SELECT version, description FROM _sqlx_migrations") == [(1, "threads")]
    assert _rows(state, "PRAGMA integrity_check") == [("ok",)]


@pytest.mark.parametrize("codex_enabled", [True, False], ids=["codex-enabled", "codex-disabled-in-config"])
def test_one_thread_into_an_empty_home(box: Box, codex_enabled: bool) -> None:  # noqa: F811
    listed = _synced(box)
    if not codex_enabled:  # the reviewer's machine collects other harnesses only
        box.only("claude-code")
    for tid in (MAIN, COMPRESSED):
        target = box.base / f"empty-{tid[-1]}"
        out = _restore(box, target, f"codex:{tid}")
        session = listed[f"codex:{tid}"]
        assert out["sessions"] == [f"codex:{tid}"]
        assert sorted(out["files"]) == sorted(a["path"] for a in session["artifacts"])
        assert out["warnings"] == []
        _check_thread(box, target, session)
        # only this thread: no row, file or name of another
        assert _rows(target / ".codex/state_5.sqlite", "SELECT id FROM threads") == [(tid,)]
        rollouts = [p.name for p in (target / ".codex").rglob("rollout-*")]
        assert rollouts == [_rollout(session)["path"].rsplit("/", 1)[1]]
    # MAIN's two names, as the source wrote them (the last wins); COMPRESSED has none
    main_home = box.base / f"empty-{MAIN[-1]}"
    assert _index_lines(main_home, MAIN) == _index_lines(box.home, MAIN) and len(_index_lines(box.home, MAIN)) == 2
    assert (main_home / ".codex/session_index.jsonl").read_bytes() == b"".join(_index_lines(box.home, MAIN))
    assert not (box.base / f"empty-{COMPRESSED[-1]}" / ".codex/session_index.jsonl").exists()
    assert (box.base / f"empty-{COMPRESSED[-1]}" / _rollout(listed[f"codex:{COMPRESSED}"])["path"]).name.endswith(".jsonl.zst")


def _existing_home(home: Path) -> dict[str, bytes]:
    """A Codex home with two threads of its own (X spawned Y): rollouts, state_5 in WAL mode with
    their rows, X's dynamic tool and the edge, and their session_index names."""
    codex = home / ".codex"
    files: dict[str, bytes] = {}
    for tid, hh in ((OTHER_X, "10"), (OTHER_Y, "11")):
        rel = f".codex/sessions/2026/02/10/rollout-2026-02-10T{hh}-00-00-{tid}.jsonl"
        meta = {"timestamp": "2026-02-10T09:00:00.000Z", "type": "session_meta", "ordinal": 0,
                "payload": {"id": tid, "timestamp": "2026-02-10T09:00:00.000Z", "cwd": "/home/reviewer/own",
                            "originator": "codex_cli_rs", "cli_version": "0.150.0", "history_mode": "paginated"}}
        files[rel] = json.dumps(meta).encode() + b"\n"
    files[".codex/session_index.jsonl"] = b"".join(
        json.dumps({"id": t, "thread_name": f"own {t[-2:]}", "updated_at": "2026-02-10T09:00:00Z"}).encode() + b"\n"
        for t in (OTHER_X, OTHER_Y))
    for rel, data in files.items():
        (home / rel).parent.mkdir(parents=True, exist_ok=True)
        (home / rel).write_bytes(data)
    con = sqlite3.connect(codex / "state_5.sqlite", isolation_level=None)
    con.execute("PRAGMA journal_mode=WAL")
    con.executescript(STATE_DDL)
    con.execute("INSERT INTO _sqlx_migrations VALUES (1, 'threads', '2026-01-01 00:00:00', 1, x'00', 1)")
    for tid, hh in ((OTHER_X, "10"), (OTHER_Y, "11")):
        con.execute("INSERT INTO threads (id, rollout_path, created_at, updated_at, source, model_provider, cwd, title,"
                    " sandbox_policy, approval_mode, history_mode) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                    (tid, str(home / f".codex/sessions/2026/02/10/rollout-2026-02-10T{hh}-00-00-{tid}.jsonl"),
                     1770714000, 1770714000, "cli", "openai", "/home/reviewer/own", f"own {tid[-2:]}",
                     "workspace-write", "on-request", "paginated"))
    con.execute("INSERT INTO thread_spawn_edges VALUES (?, ?, 'completed')", (OTHER_X, OTHER_Y))
    con.execute("INSERT INTO thread_dynamic_tools VALUES (?, 0, 'lint', 'Run the linter', '{}', 0, NULL)", (OTHER_X,))
    con.close()
    return files


def test_one_thread_into_a_home_with_other_threads(box: Box) -> None:  # noqa: F811
    listed = _synced(box)
    target = box.base / "reviewer"
    own = _existing_home(target)
    state = target / ".codex/state_5.sqlite"
    tables = ("threads", "thread_spawn_edges", "thread_dynamic_tools")
    before = {t: _rows(state, f"SELECT * FROM {t} ORDER BY 1, 2") for t in tables}
    assert before["threads"] and before["thread_spawn_edges"] and before["thread_dynamic_tools"]
    for tid in (MAIN, COMPRESSED):
        out = _restore(box, target, f"codex:{tid}")
        assert out["warnings"] == []
        _check_thread(box, target, listed[f"codex:{tid}"])
    # the home's own threads: rows, files and names as they were
    for t in tables:
        after = _rows(state, f"SELECT * FROM {t} WHERE {'id' if t == 'threads' else 'thread_id' if t == 'thread_dynamic_tools' else 'child_thread_id'}"
                             f" IN ('{OTHER_X}', '{OTHER_Y}') ORDER BY 1, 2")
        assert after == before[t], t
    for rel, data in own.items():
        if rel != ".codex/session_index.jsonl":
            assert (target / rel).read_bytes() == data, rel
    assert sorted(r[0] for r in _rows(state, "SELECT id FROM threads")) == sorted([OTHER_X, OTHER_Y, MAIN, COMPRESSED])
    index = (target / ".codex/session_index.jsonl").read_bytes()
    assert index == own[".codex/session_index.jsonl"] + b"".join(_index_lines(box.home, MAIN))
    # the same restore again changes nothing
    snapshot = {p: p.read_bytes() for p in (target / ".codex").rglob("*") if p.is_file() and "-wal" not in p.name
                and "-shm" not in p.name and p.name != "state_5.sqlite"}
    rows = {t: _rows(state, f"SELECT * FROM {t} ORDER BY 1, 2") for t in tables}
    _restore(box, target, f"codex:{MAIN}")
    assert {p: p.read_bytes() for p in snapshot} == snapshot
    assert {t: _rows(state, f"SELECT * FROM {t} ORDER BY 1, 2") for t in tables} == rows


def test_relocated_thread_names_the_new_project_path(box: Box) -> None:  # noqa: F811
    listed = _synced(box)
    old_home = "/" + "/".join(listed[f"codex:{MAIN}"]["cwd"].split("/")[1:3])  # the redacted /home/user-xxxx
    new_home = "/srv/review/alice-copy"
    for tid in (MAIN, COMPRESSED):
        session = listed[f"codex:{tid}"]
        target = box.base / f"moved-{tid[-1]}"
        _restore(box, target, f"codex:{tid}", "--relocate", f"{old_home}={new_home}")
        placed = target / _rollout(session)["path"]
        data = _plain(placed)
        new_cwd = new_home + session["cwd"][len(old_home):]
        assert old_home.encode() not in data
        assert json.loads(data.splitlines()[0])["payload"]["cwd"] == new_cwd
        turn_cwds = {json.loads(ln)["payload"]["cwd"] for ln in data.splitlines() if b'"turn_context"' in ln}
        assert turn_cwds and all(c.startswith(new_home + "/") for c in turn_cwds)
        # the row's own cwd, moved (read from a plain restore: the row is the state DB's, not the rollout's)
        plain = box.base / f"plain-{tid[-1]}"
        _restore(box, plain, f"codex:{tid}")
        (was,) = _rows(plain / ".codex/state_5.sqlite", f"SELECT cwd FROM threads WHERE id = '{tid}'")[0]
        assert was.startswith(old_home + "/")
        row = _rows(target / ".codex/state_5.sqlite", f"SELECT cwd, rollout_path FROM threads WHERE id = '{tid}'")
        assert row == [(new_home + was[len(old_home):], str(placed.resolve()))]
        # nothing else in the rollout changed (saved_path values name each restore's own image)
        assert data.replace(str(target.resolve()).encode(), str(plain.resolve()).encode()) \
            .replace(new_home.encode(), old_home.encode()) == _plain(plain / _rollout(session)["path"])


def test_the_sample_state_rows_name_the_project_their_rollouts_name(tmp_path: Path) -> None:
    """The demo Codex home: each `threads` row's cwd is the cwd of its rollout's session_meta
    (the compressed thread's row said work/webapp while its rollout ran in work/infra)."""
    import zstandard

    home = tmp_path / "home"
    made = make_codex_home(home)
    con = sqlite3.connect(str(made["root"] / "state_5.sqlite"))
    rows = dict(con.execute("SELECT id, cwd FROM threads").fetchall())
    con.close()
    checked = 0
    for f in sorted((made["root"] / "sessions").rglob("rollout-*")):
        data = f.read_bytes()
        if f.suffix == ".zst":
            data = zstandard.ZstdDecompressor().stream_reader(data).read()
        meta = json.loads(data.splitlines()[0])["payload"]
        if meta["id"] in rows and "forked_from_id" not in meta:
            assert rows[meta["id"]] == meta["cwd"], (f.name, rows[meta["id"]], meta["cwd"])
            checked += 1
    assert checked >= 3 and rows[COMPRESSED].endswith("/work/infra")


def test_fork_restored_without_its_base_is_warned_about(box: Box) -> None:  # noqa: F811
    """FORK's history_base names MAIN's rollout: alone, Codex would resume it without the prefix."""
    _synced(box)
    alone = box.base / "fork-alone"
    out = _restore(box, alone, f"codex:{FORK}")
    assert out["warnings"] == [f"codex:{FORK}: its history_base names rollout {MAIN}, which is not in the target: "
                               "Codex shows and resumes it without the inherited history (restore it --with-family)"]
    family = _restore(box, box.base / "fork-family", f"codex:{FORK}", "--with-family")
    assert f"codex:{MAIN}" in family["sessions"] and not any("history_base" in w for w in family["warnings"])
    # a target that holds the base already (restored before) needs nothing more
    after = box.base / "main-then-fork"
    _restore(box, after, f"codex:{MAIN}")
    assert _restore(box, after, f"codex:{FORK}")["warnings"] == []
