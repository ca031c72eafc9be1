"""s11 end-to-end audit of Codex, as an outsider runs it: a $CODEX_HOME generated from
seeds/by-harness/codex.json (every record kind of the seed with every string field a
canary; a paginated main thread, a sub-agent, a fork, a revert rollout, a legacy .jsonl.zst,
an archived rollout, state_5 / thread_history_1 / logs_2 SQLite in WAL mode with a live -wal,
session_index, history, shell snapshots, generated images), `python -m archiver sync` to a
file:// store read with `age` + `zstd` only, then `archiver restore` into another home."""

from __future__ import annotations

import copy
import json
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import zstandard

from tests.fx_s11_e2e_claude import (
    HOME_PREFIX, USER, Canaries, cli_json, leaks, missing_markers, read_store, sqlite_text, tree_bytes, write_config,
)

SEED = Path("/work/shared/seeds/by-harness/codex.json")
CODEX_KEEP = {"type", "id", "session_id", "thread_id", "turn_id", "root_turn_id", "call_id", "role", "timestamp",
              "forked_from_id", "parent_thread_id", "history_mode", "status", "phase", "kind", "window_id",
              "first_window_id", "previous_window_id", "agent_thread_id", "sender_thread_id", "receiver_thread_ids",
              "threadId", "turnId", "client_id", "event_id", "response_id", "item_id", "trace_id"}

MAIN = "0199aaaa-0000-7000-8000-000000000001"
CHILD = "0199aaaa-0000-7000-8000-000000000002"
FORK = "0199aaaa-0000-7000-8000-000000000003"
LEGACY = "0199aaaa-0000-7000-8000-000000000004"
ARCHIVED = "0199aaaa-0000-7000-8000-000000000005"
REVERT_RID = "0199bbbb-0000-7000-8000-0000000000r1".replace("r", "e")


def seed_lines() -> list[tuple[str, dict[str, Any]]]:
    c = json.loads(SEED.read_text())
    return [(r["type"], json.loads(r["example"])) for r in c["records"]]


def jl(rec: dict[str, Any]) -> bytes:
    return json.dumps(rec, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"


@dataclass
class CodexHome:
    home: Path
    canaries: Canaries = field(default_factory=lambda: Canaries(prefix="CXC"))
    rollouts: dict[str, Path] = field(default_factory=dict)  # session id -> file
    parents: dict[str, list[tuple[str, str]]] = field(default_factory=dict)  # sid -> [(relation, parent sid)]
    sidecars: dict[str, list[str]] = field(default_factory=dict)  # sid -> codex-root-relative names

    @property
    def root(self) -> Path:
        return self.home / ".codex"

    def rollout(self, day: str, stamp: str, name_id: str, lines: list[bytes], zst: bool = False,
                archived: bool = False) -> Path:
        d = self.root / "archived_sessions" if archived else self.root / "sessions" / day
        d.mkdir(parents=True, exist_ok=True)
        f = d / f"rollout-{stamp}-{name_id}.jsonl"
        data = b"".join(lines)
        if zst:
            f = f.with_name(f.name + ".zst")
            f.write_bytes(zstandard.ZstdCompressor(level=3).compress(data))
        else:
            f.write_bytes(data)
        self.rollouts[name_id] = f
        return f


def meta(h: CodexHome, tid: str, cwd: str, **kw: Any) -> dict[str, Any]:
    c = h.canaries
    payload = {"id": tid, "session_id": kw.pop("session_id", tid), "timestamp": "2026-01-02T03:04:05.600Z", "cwd": cwd,
               "originator": "codex_cli_rs", "cli_version": "0.164.0", "source": "cli", "thread_source": "user",
               "model_provider": "openai", "base_instructions": {"text": c.text("codex base_instructions")},
               "runtime_workspace_roots": [cwd], "creator_user_id": c.text("codex creator_user_id"),
               "history_mode": "paginated",
               "git": {"commit_hash": "0123456789abcdef0123456789abcdef01234567", "branch": c.text("codex git.branch"),
                       "repository_url": f"https://github.com/{USER}/{c.new('codex git repo').marker.lower()}.git"}}
    payload.update(kw)
    return {"timestamp": "2026-01-02T03:04:05.678Z", "ordinal": 0, "type": "session_meta", "payload": payload}


def body_lines(h: CodexHome, tid: str, start: int) -> list[dict[str, Any]]:
    """One line of every seed record kind but session_meta, strings replaced by canaries."""
    c = h.canaries
    out = []
    for kind, rec in seed_lines():
        if kind == "session_meta":
            continue
        rec = copy.deepcopy(rec)
        rec["payload"] = c.fill(rec["payload"], f"codex {kind}", keep=CODEX_KEEP)
        p = rec["payload"]
        if kind.startswith("response_item / function_call") and "arguments" in p:
            p["arguments"] = json.dumps({"cmd": c.text("codex function_call.arguments")})
        if "thread_id" in p:
            p["thread_id"] = tid
        out.append(rec)
    for i, rec in enumerate(out):
        rec["ordinal"] = start + i
    return out


def make_codex_home(home: Path) -> CodexHome:
    h = CodexHome(home=home)
    c = h.canaries
    cwd = f"{HOME_PREFIX}/src/codex-{c.new('codex cwd').marker.lower()}"
    main_body = body_lines(h, MAIN, 1)
    h.rollout("2026/01/02", "2026-01-02T03-04-05", MAIN, [jl(meta(h, MAIN, cwd)), *map(jl, main_body)])
    n_main = 1 + len(main_body)

    # sub-agent spawned by MAIN: inherited context first, then its own work
    child_meta = meta(h, CHILD, cwd, session_id=MAIN, parent_thread_id=MAIN, thread_source="subagent",
                      source={"subagent": {"thread_spawn": {"parent_thread_id": MAIN, "depth": 1,
                                                            "agent_path": c.text("codex agent_path"),
                                                            "agent_nickname": c.text("codex agent_nickname"),
                                                            "agent_role": c.text("codex agent_role")}}},
                      agent_nickname=c.text("codex meta agent_nickname"), subagent_history_start_ordinal=3)
    child_body = body_lines(h, CHILD, 1)[:12]
    h.rollout("2026/01/02", "2026-01-02T03-10-00", CHILD, [jl(child_meta), *map(jl, child_body)])
    h.parents[CHILD] = [("subagent", MAIN)]

    # paginated fork of MAIN: history_base names MAIN's (first) rollout id = its thread id
    fork_meta = meta(h, FORK, cwd, forked_from_id=MAIN, forked_from_ordinal_exclusive=5,
                     history_base={"thread_id": MAIN, "end_ordinal_exclusive": 5, "end_byte_offset": 1000})
    fork_meta["ordinal"] = 5
    fork_body = body_lines(h, FORK, 6)[:6]
    h.rollout("2026/01/03", "2026-01-03T08-00-00", FORK, [jl(fork_meta), *map(jl, fork_body)])
    h.parents[FORK] = [("fork", MAIN)]

    # thread/revert of MAIN: same thread id, new rollout id; state_5 points at it
    rev_meta = meta(h, MAIN, cwd, history_base={"thread_id": MAIN, "end_ordinal_exclusive": 4, "end_byte_offset": 800})
    rev_meta["ordinal"] = 4
    rev_body = body_lines(h, MAIN, 5)[:5]
    rev = h.rollout("2026/01/02", "2026-01-02T05-00-00", f"{MAIN}_{REVERT_RID}", [jl(rev_meta), *map(jl, rev_body)])
    h.parents[f"{MAIN}_{REVERT_RID}"] = [("revert", MAIN)]

    # a legacy rollout (no history_mode, no ordinals), compressed after 7 idle days
    leg_meta = meta(h, LEGACY, cwd)
    del leg_meta["payload"]["history_mode"], leg_meta["ordinal"]
    leg_lines = [jl(leg_meta)]
    for rec in body_lines(h, LEGACY, 1)[:20]:
        rec.pop("ordinal", None)
        leg_lines.append(jl(rec))
    leg_lines.append(b'{"timestamp":"2025-12-01T00:00:00.000Z","type":"event_msg","payload":{"type":"user_mes\n')  # cut mid-file
    leg_lines.append(jl({"timestamp": "2025-12-01T00:00:01.000Z", "type": "event_msg",
                         "payload": {"type": "user_message", "message": c.text("codex legacy user_message")}}))
    h.rollout("2025/12/01", "2025-12-01T00-00-00", LEGACY, leg_lines, zst=True)

    # an archived rollout (flat folder)
    arc_body = body_lines(h, ARCHIVED, 1)[:4]
    h.rollout("", "2025-11-01T00-00-00", ARCHIVED, [jl(meta(h, ARCHIVED, cwd)), *map(jl, arc_body)], archived=True)

    # sidecars
    root = h.root
    (root / "session_index.jsonl").write_text("".join(
        json.dumps({"id": tid, "thread_name": c.text(f"codex thread_name {tid[-1]}"), "updated_at": "2026-01-02T03:04:05Z"},
                   ensure_ascii=False) + "\n" for tid in (MAIN, CHILD, FORK, LEGACY, ARCHIVED)))
    (root / "history.jsonl").write_text("".join(
        json.dumps({"session_id": tid, "ts": 1767323045, "text": c.text("codex history.text")}, ensure_ascii=False) + "\n"
        for tid in (MAIN, FORK)))
    snaps = root / "shell_snapshots"
    snaps.mkdir()
    for tid in (MAIN, CHILD):
        cn = c.new("codex shell snapshot")
        (snaps / f"{tid}.1767323045123.sh").write_text(
            f"# Snapshot file\nexport HOME={HOME_PREFIX}\nexport USER={USER}\nexport GITHUB_TOKEN={cn.secret}\n"
            f"export AWS_ACCESS_KEY_ID={cn.aws}\nexport GIT_AUTHOR_EMAIL={cn.email}\nexport NOTE='{cn.marker} {cn.card}'\n"
            f"alias proj='cd {cn.home}'\n")
        h.sidecars.setdefault(tid, []).append(f"shell_snapshots/{tid}.1767323045123.sh")
    img = root / "generated_images" / MAIN
    img.mkdir(parents=True)
    (img / "ig_1.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 64 + c.new("codex png tEXt").marker.encode() + b"\0" * 16)
    h.sidecars[MAIN].append(f"generated_images/{MAIN}/ig_1.png")
    make_state(h, cwd, rev)
    return h


def _wal(path: Path) -> sqlite3.Connection:
    con = sqlite3.connect(str(path), isolation_level=None)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("PRAGMA wal_autocheckpoint=0")
    return con


def make_state(h: CodexHome, cwd: str, current_main: Path) -> None:
    """state_5 / thread_history_1 / logs_2 in WAL mode; the last rows only in the live -wal
    (the connections stay open until the test's sync ran: kept on the home object)."""
    c = h.canaries
    st = _wal(h.root / "state_5.sqlite")
    st.execute("""CREATE TABLE threads (id TEXT PRIMARY KEY, rollout_path TEXT NOT NULL, created_at INTEGER,
        updated_at INTEGER, source TEXT, model_provider TEXT, model TEXT, cwd TEXT, title TEXT, name TEXT, preview TEXT,
        first_user_message TEXT, tokens_used INTEGER, archived INTEGER DEFAULT 0, git_sha TEXT, git_branch TEXT,
        git_origin_url TEXT, cli_version TEXT, agent_nickname TEXT, agent_role TEXT)""")
    st.execute("CREATE TABLE thread_spawn_edges (parent_thread_id TEXT, child_thread_id TEXT PRIMARY KEY, status TEXT)")
    st.execute("CREATE TABLE thread_dynamic_tools (thread_id TEXT, position INTEGER, name TEXT, description TEXT)")
    st.execute("CREATE TABLE _sqlx_migrations (version INTEGER PRIMARY KEY, description TEXT)")
    st.execute("INSERT INTO _sqlx_migrations VALUES (1, 'init')")
    for tid in (MAIN, CHILD, FORK, LEGACY, ARCHIVED):
        path = current_main if tid == MAIN else h.rollouts[tid]
        st.execute("INSERT INTO threads VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", (
            tid, str(path), 1767323045, 1767323999, "cli", "openai", "gpt-5-codex", cwd, c.text("codex threads.title"),
            c.text("codex threads.name"), c.text("codex threads.preview"), c.text("codex threads.first_user_message"),
            100, 1 if tid == ARCHIVED else 0, "abc", c.text("codex threads.git_branch"),
            f"git@github.com:{USER}/{c.new('codex threads.git_origin_url').marker.lower()}.git", "0.164.0",
            c.text("codex threads.agent_nickname"), None))
        st.execute("INSERT INTO thread_dynamic_tools VALUES (?,?,?,?)", (tid, 0, "t", c.text("codex dynamic tool")))
    st.execute("INSERT INTO thread_spawn_edges VALUES (?,?,?)", (MAIN, CHILD, "open"))
    hi = _wal(h.root / "thread_history_1.sqlite")
    hi.execute("CREATE TABLE thread_items (thread_id TEXT, rollout_ordinal INTEGER, item_type TEXT, item_json TEXT, "
               "PRIMARY KEY (thread_id, rollout_ordinal))")
    hi.execute("CREATE TABLE thread_history_projection_state (thread_id TEXT PRIMARY KEY, next_byte_offset INTEGER)")
    for tid in (MAIN, FORK):
        hi.execute("INSERT INTO thread_items VALUES (?,?,?,?)", (tid, 1, "userMessage", json.dumps(
            {"type": "userMessage", "content": [{"type": "text", "text": c.text("codex thread_items.item_json")}]},
            ensure_ascii=False)))
        hi.execute("INSERT INTO thread_history_projection_state VALUES (?, 1234)", (tid,))
    lg = _wal(h.root / "logs_2.sqlite")
    lg.execute("CREATE TABLE logs (id INTEGER PRIMARY KEY, ts INTEGER, level TEXT, target TEXT, message TEXT, thread_id TEXT)")
    lg.execute("INSERT INTO logs (ts, level, target, message, thread_id) VALUES (1, 'INFO', 'codex', ?, ?)",
               (c.text("codex logs.message"), MAIN))
    for con in (st, hi, lg):
        assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    h.__dict__["_open"] = [st, hi, lg]  # live -wal files while the sync runs


# ---------------------------------------------------------------- the audit

@pytest.fixture(scope="module")
def synced(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, CodexHome, Any]:
    base = tmp_path_factory.mktemp("codex-e2e")
    h = make_codex_home(base / USER)
    assert (h.root / "state_5.sqlite-wal").stat().st_size > 0
    write_config(base, base / USER, ["codex"])
    out, p = cli_json(base, "sync", ok=False)
    return base, h, (out, p)


def test_codex_home_archived_whole_and_private_data_gone(synced: tuple[Path, CodexHome, Any]) -> None:
    base, h, (out, p) = synced
    assert out["sessions"]["failed"] == 0, (out, p.stderr[-3000:])
    read = read_store(base)
    found = leaks(read, h.canaries.all_private())
    assert not found, "\n".join(found[:30])
    missing = missing_markers(read, h.canaries, [h.home])
    assert not missing, missing
    sessions = {s["key"]: s for s in read.latest()["sessions"]}
    assert {f"codex:{sid}" for sid in h.rollouts} | {"codex:@host"} == set(sessions)
    for sid, rels in h.parents.items():
        got = [(e["relation"], e["parent"]) for e in sessions[f"codex:{sid}"]["parents"]]
        assert got == [(r, f"codex:{p}") for r, p in rels], (sid, got)
    for sid, names in h.sidecars.items():
        paths = [a["path"] for a in sessions[f"codex:{sid}"]["artifacts"]]
        for n in names:
            assert any(p.endswith(n.rsplit("/", 1)[1]) for p in paths), (sid, n, paths)


def _restore(base: Path, target: Path, *keys: str) -> dict[str, Any]:
    args = ["restore", *(keys or ["--all"]), "--to", str(target), "--identity", str(base / "keys" / "identity.txt")]
    res, p = cli_json(base, *args, ok=False)
    assert p.returncode == 0, (p.stdout[-3000:], p.stderr[-3000:])
    return res


def _check_restored_codex(target: Path, h: CodexHome, tids: list[str]) -> None:
    root = target / ".codex"
    files = tree_bytes(target)
    private = h.canaries.all_private()
    for rel, data in files.items():
        if rel.endswith(".zst"):
            data = zstandard.ZstdDecompressor().decompressobj().decompress(data)
        for priv in private:
            assert priv.lower().encode() not in data.lower(), (rel, priv)
        assert USER not in rel
    con = sqlite3.connect(str(root / "state_5.sqlite"))
    rows = dict(con.execute("SELECT id, rollout_path FROM threads").fetchall())
    con.close()
    assert sorted(rows) == sorted(tids), rows
    for tid, path in rows.items():
        p = Path(path)
        # Codex opens the thread's current rollout by this absolute path: it must be the restored file
        assert p.is_file() and p.resolve().is_relative_to(root.resolve()), (tid, path)
        want = h.rollouts[f"{MAIN}_{REVERT_RID}"] if tid == MAIN else h.rollouts[tid]
        assert p.name == want.name, (tid, path)
    index = [json.loads(x) for x in (root / "session_index.jsonl").read_text().splitlines()]
    assert sorted({e["id"] for e in index}) == sorted(tids)
    for tid in tids:
        f = h.rollouts[tid]
        rel = f.relative_to(h.home).as_posix()
        assert rel in files, (rel, sorted(files))
        if rel.endswith(".zst"):
            zstandard.ZstdDecompressor().decompressobj().decompress(files[rel])


def test_codex_restore_all_into_another_home(synced: tuple[Path, CodexHome, Any]) -> None:
    base, h, _ = synced
    target = base / "bob-all"
    _restore(base, target)
    _check_restored_codex(target, h, [MAIN, CHILD, FORK, LEGACY, ARCHIVED])
    assert (target / ".codex" / "history.jsonl").is_file()
    # the paging projection stays an extract (rebuildable from the rollout; see Codex.after_restore)
    for tid in (MAIN, FORK):
        assert b"CXC" in sqlite_text(target / ".codex" / "archiver-extracts" / "thread_history_1" / f"{tid}.sqlite")


def test_codex_restore_one_family_into_another_home(synced: tuple[Path, CodexHome, Any]) -> None:
    base, h, _ = synced
    target = base / "bob-family"
    _restore(base, target, f"codex:{CHILD}", "--with-family")
    _check_restored_codex(target, h, [MAIN, CHILD, FORK])


def test_codex_one_thread_state_write_sends_only_that_thread(tmp_path: Path) -> None:
    """Codex rewrites state_5 on every turn (threads.updated_at of the thread it works on):
    each thread's extract must be told changed by its own rows, not by the shared file's stat,
    or every sync re-extracts and re-archives every thread of the home."""
    h = make_codex_home(tmp_path / USER)
    for con in h.__dict__.pop("_open"):
        con.close()
    write_config(tmp_path, tmp_path / USER, ["codex"])
    first, _ = cli_json(tmp_path, "sync")
    assert first["sessions"]["failed"] == 0 and first["sessions"]["uploaded"] == 7
    con = sqlite3.connect(str(h.root / "state_5.sqlite"))
    con.execute("UPDATE threads SET updated_at = updated_at + 60, tokens_used = 999 WHERE id = ?", (CHILD,))
    con.commit()
    con.close()
    second, _ = cli_json(tmp_path, "sync")
    assert second["sessions"] == {"total": 7, "uploaded": 1, "unchanged": 6, "failed": 0}, second["sessions"]
    m = read_store(tmp_path).latest()
    assert [s["key"] for s in m["sessions"] if s["archived_at"] == max(x["archived_at"] for x in m["sessions"])] == [
        f"codex:{CHILD}"]
    # the new extract holds the new row (read with sqlite3 after age + zstd, no project code)
    art = next(a for s in m["sessions"] if s["key"] == f"codex:{CHILD}" for a in s["artifacts"]
               if "/state_5/" in a["path"])
    db = tmp_path / "child-state.sqlite"
    db.write_bytes(read_store(tmp_path).plaintexts[f"objects/{art['objects'][0][:2]}/{art['objects'][0]}"])
    assert sqlite3.connect(str(db)).execute("SELECT tokens_used FROM threads").fetchall() == [(999,)]
    # a schema change (a Codex migration) reaches every thread's extract
    con = sqlite3.connect(str(h.root / "state_5.sqlite"))
    con.execute("ALTER TABLE threads ADD COLUMN memory_mode TEXT")
    con.commit()
    con.close()
    third, _ = cli_json(tmp_path, "sync")
    assert third["sessions"]["uploaded"] == 5, third["sessions"]  # the five threads with a state row


def test_codex_corrupt_files_fail_only_themselves(tmp_path: Path) -> None:
    """A .jsonl.zst cut short fails its own thread only, with an error naming the file and why;
    a state_5 that is no database leaves every rollout archived and says so on the host session;
    a transcript line cut mid-file is kept and counted."""
    h = make_codex_home(tmp_path / USER)
    for con in h.__dict__.pop("_open"):
        con.close()
    z = h.rollouts[LEGACY]
    z.write_bytes(z.read_bytes()[:200])
    (h.root / "state_5.sqlite-wal").unlink(missing_ok=True)
    (h.root / "state_5.sqlite").write_bytes(b"SQLite format 3\0" + b"\x01" * 5000)
    write_config(tmp_path, tmp_path / USER, ["codex"])
    out, p = cli_json(tmp_path, "sync", ok=False)
    assert p.returncode != 0 and out["sessions"]["failed"] == 1, out
    (err,) = out["errors"]
    assert err.startswith(f"codex:{LEGACY}: ") and z.name in err and "truncated zstd frame" in err, err
    assert USER not in err  # errors go into the manifest: the home path is redacted there too
    m = read_store(tmp_path).latest()
    sessions = {s["key"]: s for s in m["sessions"]}
    assert set(sessions) == {f"codex:{sid}" for sid in h.rollouts if sid != LEGACY} | {"codex:@host"}
    assert m["errors"] == [err]
    assert any(w.startswith("state_5.sqlite: unreadable (") and "not a readable SQLite database" in w
               for w in sessions["codex:@host"]["warnings"]), sessions["codex:@host"]["warnings"]
    assert not any("/state_5/" in a["path"] for s in m["sessions"] for a in s["artifacts"])
