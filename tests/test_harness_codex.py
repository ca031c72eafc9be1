"""Codex collector on a generated ~/.codex (archiver/demo/codex_sample.py)."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest
import zstandard

from archiver.harnesses.base import HarnessContext, load_harness
from archiver.model import Artifact, DiscoveredSession, LineageEdge, Session
from archiver.demo.codex_sample import make_codex_home


def discover(home: Path, env: dict[str, str] | None = None, root: Path | None = None) -> dict[str, DiscoveredSession]:
    h = load_harness("codex", HarnessContext(home=home, env=env or {}, root=root))
    return {s.key: s for s in h.discover()}


def k(sid: str) -> str:
    return f"codex:{sid}"


def srcs(s: DiscoveredSession) -> set[tuple[str, str, str, str]]:
    return {(a.path, a.role, a.format, a.mode) for a in s.sources}


def rollout_rel(path: Path, home: Path) -> str:
    return path.relative_to(home).as_posix()


@pytest.fixture()
def codex(tmp_path: Path) -> tuple[Path, dict]:
    home = tmp_path / "home"
    return home, make_codex_home(home)


def test_sessions_kinds_titles_lineage(codex: tuple[Path, dict]) -> None:
    home, info = codex
    t = info["threads"]
    found = discover(home)
    revert_sid = f"{t['revert']}_{t['revert_rollout']}"
    assert set(found) == {
        "codex:@host", k(t["main"]), k(t["compressed"]), k(t["subagent"]), k(t["archived"]),
        k(t["revert"]), k(revert_sid), k(t["fork"]), k(t["fork_of_revert"]),
    }
    kinds = {key: s.kind for key, s in found.items()}
    assert kinds == {
        "codex:@host": "host", k(t["main"]): "main", k(t["compressed"]): "main", k(t["subagent"]): "subagent",
        k(t["archived"]): "main", k(t["revert"]): "main", k(revert_sid): "revert", k(t["fork"]): "fork",
        k(t["fork_of_revert"]): "fork",
    }
    parents = {key: s.parents for key, s in found.items() if s.parents}
    assert parents == {
        k(t["subagent"]): [LineageEdge(relation="subagent", parent=k(t["main"]), at="depth=1", inferred=False)],
        k(revert_sid): [LineageEdge(relation="revert", parent=k(t["revert"]),
                                    at=f"rollout={t['revert']};ordinal=5", inferred=False)],
        k(t["fork"]): [LineageEdge(relation="fork", parent=k(t["main"]), at=f"rollout={t['main']};ordinal=6")],
        # history_base names the revert rollout, so the fork hangs off that rollout's session
        k(t["fork_of_revert"]): [LineageEdge(relation="fork", parent=k(revert_sid),
                                             at=f"rollout={t['revert_rollout']};ordinal=7")],
    }
    titles = {key: s.title for key, s in found.items()}
    assert titles[k(t["main"])] == "Fix login test (v2)"  # last session_index entry wins
    assert titles[k(t["revert"])] == titles[k(revert_sid)] == "Approaches A/B/C"
    assert titles[k(t["fork"])] == "Login fix, old API"
    assert titles[k(t["archived"])] == "Clean up the old branch."  # state threads.title
    assert titles[k(t["fork_of_revert"])] == "Branch off approach C (state only)"  # row only in the -wal
    assert found[k(t["main"])].created_at == "2026-01-02T03:04:05.600Z"
    assert found[k(t["main"])].cwd == "/home/alice/work/webapp"
    assert all(not s.warnings for key, s in found.items() if key != k(t["main"]))


def test_sources_per_session(codex: tuple[Path, dict]) -> None:
    home, info = codex
    t, f = info["threads"], info["files"]
    found = discover(home)
    main = t["main"]
    ex = ".codex/archiver-extracts"
    assert srcs(found[k(main)]) == {
        (rollout_rel(f["main"], home), "transcript", "jsonl", "append"),
        (f"{ex}/state_5/{main}.sqlite", "database", "sqlite", "produced"),
        (f"{ex}/thread_history_1/{main}.sqlite", "database", "sqlite", "produced"),
        (f"{ex}/session_index/{main}.jsonl", "index", "jsonl", "produced"),
        (f".codex/shell_snapshots/{main}.1767323045000000000.sh", "sidecar", "text", "whole"),
        (f".codex/generated_images/{main}/ig_1.png", "blob", "binary", "whole"),
    }
    assert srcs(found[k(t["compressed"])]) == {
        (rollout_rel(f["compressed"], home), "transcript", "jsonl.zst", "zst"),
        (f"{ex}/state_5/{t['compressed']}.sqlite", "database", "sqlite", "produced"),
    }
    assert rollout_rel(f["compressed"], home).endswith(".jsonl.zst")
    assert srcs(found[k(t["archived"])]) == {  # legacy rollouts are migrated in place: whole
        (rollout_rel(f["archived"], home), "transcript", "jsonl", "whole"),
        (f"{ex}/state_5/{t['archived']}.sqlite", "database", "sqlite", "produced"),
    }
    assert rollout_rel(f["archived"], home).startswith(".codex/archived_sessions/")
    assert srcs(found[k(f"{t['revert']}_{t['revert_rollout']}")]) == {
        (rollout_rel(f["revert_rollout"], home), "transcript", "jsonl", "append"),
    }
    assert srcs(found[k(t["revert"])]) == {
        (rollout_rel(f["revert"], home), "transcript", "jsonl", "append"),
        (f"{ex}/state_5/{t['revert']}.sqlite", "database", "sqlite", "produced"),
        (f"{ex}/thread_history_1/{t['revert']}.sqlite", "database", "sqlite", "produced"),
        (f"{ex}/session_index/{t['revert']}.jsonl", "index", "jsonl", "produced"),
    }
    assert srcs(found["codex:@host"]) == {
        (".codex/history.jsonl", "history", "jsonl", "append"),
        (".codex/logs_2.sqlite", "database", "sqlite", "sqlite"),
        (".codex/goals_1.sqlite", "database", "sqlite", "sqlite"),
        (".codex/memories_1.sqlite", "database", "sqlite", "sqlite"),
    }
    assert found["codex:@host"].warnings == []
    for s in found.values():  # source paths are real files (produced ones: their live DB / index)
        assert all(a.source.is_file() for a in s.sources)


def test_bad_line_is_counted_and_reported(codex: tuple[Path, dict]) -> None:
    home, info = codex
    path, line_no = info["bad_line"]
    found = discover(home)
    rel = path.relative_to(info["root"]).as_posix()
    assert found[k(info["threads"]["main"])].warnings == [f"{rel}: 1 unparseable line(s) kept as they are (line {line_no})"]


def test_wal_only_row_is_in_the_produced_extract(codex: tuple[Path, dict], tmp_path: Path) -> None:
    home, info = codex
    t = info["threads"]
    state = info["root"] / "state_5.sqlite"
    # the fixture really has the row only in the WAL: the main file alone lacks it
    alone = tmp_path / "alone.sqlite"
    shutil.copyfile(state, alone)
    con = sqlite3.connect(alone)
    assert con.execute("SELECT count(*) FROM threads WHERE id=?", (t["fork_of_revert"],)).fetchone() == (0,)
    con.close()

    h = load_harness("codex", HarnessContext(home=home, env={}))
    found = {s.key: s for s in h.discover()}
    extract = next(a for a in found[k(t["fork_of_revert"])].sources if a.path.endswith(f"state_5/{t['fork_of_revert']}.sqlite"))
    dst = tmp_path / "extract.sqlite"
    extract.produce(dst)  # type: ignore[misc]
    con = sqlite3.connect(dst)
    assert con.execute("SELECT id, title FROM threads").fetchall() == [
        (t["fork_of_revert"], "Branch off approach C (state only)")
    ]
    assert con.execute("SELECT version FROM _sqlx_migrations").fetchall() == [(1,)]
    assert con.execute("SELECT count(*) FROM rollout_migration_state").fetchone() == (0,)  # not per-thread: schema only
    con.close()

    # the main thread's extract: its row, its dynamic tools, not its child's spawn edge
    main_ex = next(a for a in found[k(t["main"])].sources if a.path.endswith(f"state_5/{t['main']}.sqlite"))
    main_ex.produce(dst)  # type: ignore[misc]
    con = sqlite3.connect(dst)
    assert [r[0] for r in con.execute("SELECT id FROM threads")] == [t["main"]]
    assert con.execute("SELECT thread_id, name FROM thread_dynamic_tools").fetchall() == [(t["main"], "deploy")]
    assert con.execute("SELECT count(*) FROM thread_spawn_edges").fetchone() == (0,)
    assert {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='index'")} >= {
        "idx_threads_updated_at", "idx_thread_spawn_edges_parent_child"
    }
    con.close()
    sub_ex = next(a for a in found[k(t["subagent"])].sources if a.mode == "produced")
    sub_ex.produce(dst)  # type: ignore[misc]
    con = sqlite3.connect(dst)
    assert con.execute("SELECT parent_thread_id, child_thread_id FROM thread_spawn_edges").fetchall() == [
        (t["main"], t["subagent"])
    ]
    con.close()

    hist_ex = next(a for a in found[k(t["main"])].sources if "thread_history_1/" in a.path)
    hist_ex.produce(dst)  # type: ignore[misc]
    con = sqlite3.connect(dst)
    assert con.execute("SELECT thread_id, next_rollout_ordinal FROM thread_history_projection_state").fetchall() == [
        (t["main"], 14)
    ]
    assert {r[0] for r in con.execute("SELECT DISTINCT thread_id FROM thread_items")} == {t["main"]}
    con.close()

    idx_ex = next(a for a in found[k(t["main"])].sources if a.role == "index")
    idx_ex.produce(dst)  # type: ignore[misc]
    lines = dst.read_bytes().splitlines()
    assert [b'"Fix login test"' in lines[0], b'"Fix login test (v2)"' in lines[1], len(lines)] == [True, True, 2]
    tmp = h._tmp  # type: ignore[attr-defined]
    assert tmp is not None and tmp.is_dir() and (tmp.stat().st_mode & 0o777) == 0o700
    h.close()  # type: ignore[attr-defined]
    assert not tmp.exists()

    # the live files were not checkpointed by us: the row is still only in the WAL
    shutil.copyfile(state, alone)
    con = sqlite3.connect(alone)
    assert con.execute("SELECT count(*) FROM threads WHERE id=?", (t["fork_of_revert"],)).fetchone() == (0,)
    con.close()


def test_jsonl_to_zst_move_keeps_the_session_key(codex: tuple[Path, dict]) -> None:
    home, info = codex
    t, f = info["threads"], info["files"]
    before = discover(home)[k(t["fork"])]
    plain = f["fork"]
    zst = plain.with_name(plain.name + ".zst")
    zst.write_bytes(zstandard.ZstdCompressor(level=3).compress(plain.read_bytes()))
    # mid-move both exist: still one session, the plain file is kept, the copy reported
    mid = discover(home)[k(t["fork"])]
    assert [a.path for a in mid.sources if a.role == "transcript"] == [rollout_rel(plain, home)]
    assert any("second copy" in w for w in mid.warnings)
    plain.unlink()
    after = discover(home)
    s = after[k(t["fork"])]
    assert s.key == before.key and s.kind == "fork" and s.parents == before.parents and s.title == before.title
    assert [(a.path, a.format, a.mode) for a in s.sources if a.role == "transcript"] == [
        (rollout_rel(zst, home), "jsonl.zst", "zst")
    ]
    assert not s.warnings


def test_codex_home_env_override(codex: tuple[Path, dict], tmp_path: Path) -> None:
    home, info = codex
    elsewhere = tmp_path / "somewhere" / "codex-data"
    shutil.copytree(info["root"], elsewhere)
    shutil.rmtree(info["root"])
    assert discover(home) == {}
    h = load_harness("codex", HarnessContext(home=home, env={"CODEX_HOME": str(elsewhere)}, root=tmp_path / "ignored"))
    assert h.root == elsewhere
    found = {s.key: s for s in h.discover()}
    main = found[k(info["threads"]["main"])]
    paths = {a.path for a in main.sources}
    assert f".codex/shell_snapshots/{info['threads']['main']}.1767323045000000000.sh" in paths
    assert all(a.source.is_relative_to(elsewhere) for a in main.sources)
    # config root used when no env override
    h2 = load_harness("codex", HarnessContext(home=home, env={}, root=elsewhere))
    assert {s.key for s in h2.discover()} == set(found)


def test_bad_files_never_stop_discovery(codex: tuple[Path, dict]) -> None:
    home, info = codex
    day = info["root"] / "sessions" / "2026" / "01" / "06"
    day.mkdir(parents=True)
    broken_tid = "0199b0c1-2d3e-7f40-8a1b-0000000000bb"
    (day / f"rollout-2026-01-06T10-00-00-{broken_tid}.jsonl.zst").write_bytes(b"not zstd at all")
    (day / "notes.jsonl").write_bytes(b"garbage\n")
    found = discover(home)
    assert len(found) == 10
    broken = found[k(broken_tid)]
    assert broken.sources[0].path.endswith(".jsonl.zst")
    assert any("unreadable" in w for w in broken.warnings)
    host = found["codex:@host"]
    assert host.warnings == ["sessions/2026/01/06/notes.jsonl: not a recognisable rollout (no thread id); kept in the host session"]
    assert ".codex/sessions/2026/01/06/notes.jsonl" in {a.path for a in host.sources}


def test_after_restore_merges_state_and_index(codex: tuple[Path, dict], tmp_path: Path) -> None:
    home, info = codex
    t, f = info["threads"], info["files"]
    h = load_harness("codex", HarnessContext(home=home, env={}))
    found = {s.key: s for s in h.discover()}
    target = tmp_path / "restored"

    def place(ds: DiscoveredSession) -> Session:
        arts = []
        for a in ds.sources:
            dst = target / a.path
            dst.parent.mkdir(parents=True, exist_ok=True)
            if a.mode == "produced":
                a.produce(dst)  # type: ignore[misc]
            else:
                shutil.copyfile(a.source, dst)
            arts.append(Artifact(path=a.path, role=a.role, format=a.format))
        return Session(key=ds.key, harness="codex", session_id=ds.session_id, kind=ds.kind, artifacts=arts)

    revert_sid = f"{t['revert']}_{t['revert_rollout']}"
    sessions = [place(found[k(t["revert"])]), place(found[k(revert_sid)])]
    warnings = h.after_restore(target, sessions)  # type: ignore[attr-defined]
    assert warnings == []
    con = sqlite3.connect(target / ".codex/state_5.sqlite")
    (rollout_path,) = con.execute("SELECT rollout_path FROM threads WHERE id=?", (t["revert"],)).fetchone()
    con.close()
    # the current rollout (the one revert wrote) now points inside the restored home
    assert rollout_path == str((target / rollout_rel(f["revert_rollout"], home)).resolve())
    assert (target / ".codex/session_index.jsonl").read_bytes().count(t["revert"].encode()) == 1

    # a second thread merges into the now existing DB; re-running is idempotent
    main = place(found[k(t["main"])])
    assert h.after_restore(target, [main]) == []  # type: ignore[attr-defined]
    assert h.after_restore(target, [main]) == []  # type: ignore[attr-defined]
    con = sqlite3.connect(target / ".codex/state_5.sqlite")
    assert sorted(r[0] for r in con.execute("SELECT id FROM threads")) == sorted([t["revert"], t["main"]])
    assert con.execute("SELECT count(*) FROM _sqlx_migrations").fetchone() == (1,)
    (main_path,) = con.execute("SELECT rollout_path FROM threads WHERE id=?", (t["main"],)).fetchone()
    con.close()
    assert main_path == str((target / rollout_rel(f["main"], home)).resolve())
    index = (target / ".codex/session_index.jsonl").read_bytes().splitlines()
    assert len(index) == 3  # revert's one entry + main's two, no duplicates

    # an extract whose rollout was not restored is reported, not fatal
    fork = found[k(t["fork"])]
    only_state = [a for a in fork.sources if a.mode == "produced"]
    fork_sess = place(DiscoveredSession(harness="codex", session_id=fork.session_id, sources=only_state))
    w = h.after_restore(target, [fork_sess])  # type: ignore[attr-defined]
    assert len(w) == 1 and t["fork"] in w[0] and "not restored" in w[0]
    h.close()  # type: ignore[attr-defined]


def test_unreadable_state_db_is_a_host_warning(codex: tuple[Path, dict]) -> None:
    home, info = codex
    root = info["root"]
    for suffix in ("-wal", "-shm"):
        Path(str(root / "state_5.sqlite") + suffix).unlink()
    (root / "state_5.sqlite").write_bytes(b"this is not a database" * 10)
    found = discover(home)
    assert len(found) == 9
    host = found["codex:@host"]
    assert len(host.warnings) == 1 and host.warnings[0].startswith("state_5.sqlite: unreadable")
    main = found[k(info["threads"]["main"])]
    assert not any("/state_5/" in a.path for a in main.sources)
    assert main.title == "Fix login test (v2)"
    assert found[k(info["threads"]["archived"])].title is None


def test_session_index_extracts_come_from_one_pass_over_the_index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each thread's extract holds its session_index.jsonl lines in file order, as a scan of the
    whole file for it would give; all the threads of a run share one pass (it was one pass per
    thread: a cold sync quadratic in threads), and a change to the file is picked up."""
    import json
    import random

    import archiver.harnesses.codex as codex_mod

    rng = random.Random(7)
    tids = [f"019a{i:04x}-0000-7000-8000-{rng.getrandbits(48):012x}" for i in range(300)]
    lines = [json.dumps({"id": tid, "thread_name": f"task {i}", "updated_at": "2026-11-30T10:00:00Z"})
             for i, tid in enumerate(tids)]
    for _ in range(200):  # renames append another line for a thread
        tid = rng.choice(tids)
        lines.insert(rng.randrange(len(lines) + 1), json.dumps({"id": tid, "thread_name": f"renamed {rng.random()}"}))
    lines.insert(50, "{not json")
    index = tmp_path / "session_index.jsonl"
    index.write_text("\n".join(lines) + "\n" + json.dumps({"id": tids[0], "thread_name": "torn"}))  # last line torn

    def expected(tid: str) -> bytes:
        complete = index.read_bytes().split(b"\n")[:-1]
        return b"".join(x + b"\n" for x in complete if x.startswith(b"{\"id\"") and json.loads(x)["id"] == tid)

    scans = []
    real_scan = codex_mod._IndexLines._scan
    monkeypatch.setattr(codex_mod._IndexLines, "_scan", staticmethod(lambda p: scans.append(p) or real_scan(p)))
    shared = codex_mod._IndexLines()
    for i, tid in enumerate(tids):
        out = tmp_path / f"x{i}.jsonl"
        codex_mod._index_producer(shared, index, tid)(out)
        assert out.read_bytes() == expected(tid) and out.read_bytes().count(b"\n") >= 1
    assert len(scans) == 1
    assert b"torn" not in (tmp_path / "x0.jsonl").read_bytes()

    with index.open("ab") as f:  # the torn line completes, and a rename of another thread arrives
        f.write(b"\n" + json.dumps({"id": tids[5], "thread_name": "late"}).encode() + b"\n")
    for i in (0, 5):
        out = tmp_path / f"y{i}.jsonl"
        codex_mod._index_producer(shared, index, tids[i])(out)
        assert out.read_bytes() == expected(tids[i])
    assert b"torn" in (tmp_path / "y0.jsonl").read_bytes() and b"late" in (tmp_path / "y5.jsonl").read_bytes()
    assert len(scans) == 2


def test_shell_snapshots_of_a_thread_whose_rollout_is_gone_are_still_archived(codex: tuple[Path, dict]) -> None:
    """shell_snapshots/<id>.<nonce>.sh and generated_images/<id>/ outlive a deleted rollout: they
    form the thread's session (its other sidecars with them), with a warning; an id never seen
    with a rollout gets one too; a temp file alone makes none."""
    home, info = codex
    t, f = info["threads"], info["files"]
    main = t["main"]
    f["main"].unlink()
    snaps = home / ".codex" / "shell_snapshots"
    never = "019b0000-0000-7000-8000-00000000abcd"
    (snaps / f"{never}.1767323099000000000.sh").write_text("export AWS_SECRET_ACCESS_KEY=abc\n")
    (snaps / "019b0000-0000-7000-8000-00000000ffff.tmp-1767323099000000000").write_text("# partial\n")
    found = discover(home)
    ex = ".codex/archiver-extracts"
    s = found[k(main)]
    assert srcs(s) == {
        (f"{ex}/state_5/{main}.sqlite", "database", "sqlite", "produced"),
        (f"{ex}/thread_history_1/{main}.sqlite", "database", "sqlite", "produced"),
        (f"{ex}/session_index/{main}.jsonl", "index", "jsonl", "produced"),
        (f".codex/shell_snapshots/{main}.1767323045000000000.sh", "sidecar", "text", "whole"),
        (f".codex/generated_images/{main}/ig_1.png", "blob", "binary", "whole"),
    }
    assert s.warnings == [f"thread {main}: no rollout on disk; its shell_snapshots/ and generated_images/ files "
                          "are archived without it"]
    assert s.title == "Fix login test (v2)" and s.updated_at is not None
    lone = found[k(never)]
    assert srcs(lone) == {(f".codex/shell_snapshots/{never}.1767323099000000000.sh", "sidecar", "text", "whole")}
    assert (lone.kind, lone.parents) == ("main", [])
    assert k("019b0000-0000-7000-8000-00000000ffff") not in found
    every = [a.path for x in found.values() for a in x.sources]
    assert every.count(f".codex/shell_snapshots/{main}.1767323045000000000.sh") == 1


def test_a_state_row_without_rollout_path_merges_without_a_bogus_warning(tmp_path: Path) -> None:
    """state_5 threads.rollout_path is the only pointer to the current rollout; a row that names
    none (NULL, as a sub-agent row written before its rollout) has nothing to re-point: merging
    its extract warns of nothing (it used to say "its current rollout  was not restored")."""
    from archiver.harnesses.codex import merge_state_extract

    tid = "0199aaaa-0000-7000-8000-000000000002"
    extract = tmp_path / "extract.sqlite"
    con = sqlite3.connect(extract)
    con.execute("CREATE TABLE threads (id TEXT PRIMARY KEY, rollout_path TEXT, cwd TEXT, title TEXT)")
    con.execute("INSERT INTO threads VALUES (?, NULL, '/work/app', 'worker')", (tid,))
    con.commit()
    con.close()
    codex_root = tmp_path / "restored" / ".codex"
    warnings: list[str] = []
    merge_state_extract(extract, codex_root / "state_5.sqlite", codex_root, warnings)
    assert warnings == []
    con = sqlite3.connect(codex_root / "state_5.sqlite")
    assert con.execute("SELECT id, rollout_path, title FROM threads").fetchall() == [(tid, None, "worker")]
    con.close()
