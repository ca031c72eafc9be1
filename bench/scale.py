#!/usr/bin/env python3
"""Scale audit: does discovery, or the re-sync after one session changed, grow faster than the
number of sessions when sessions share a store or need cross-session inference?

    python bench/scale.py                              # every harness, N = 500 and 2000
    python bench/scale.py --harness codex --sizes 250,1000
    python bench/scale.py --skip-sync                  # discovery (`archiver scan --json`) only

Per harness and N, a HOME of its own is generated (seed shapes, /work/shared/seeds):
  claude-code   tiny transcripts (bench/corpus.py), a quarter with 3 subagents (one nested,
                spawnDepth 2), file-history backups from their Edit calls
  codex         tiny rollouts, a fifth forks and a tenth subagents (session_meta), a twentieth
                with a revert rollout; state_5.sqlite (threads, thread_spawn_edges,
                thread_dynamic_tools) and thread_history_1.sqlite (turns and items of every
                thread), both WAL; session_index.jsonl
  cursor-agent  chats with two turns in one store.db each; a fifth are forks (every blob of
                an older chat copied, a new turn from its first root, "<name> (forked)")
  pi            tiny sessions, a fifth forks (parentSession = the source's path, entries copied)
  deepseek      tiny sessions, a quarter forks with an inherited prefix and no parentSession
                (the parent is inferred from the prefix)
and timed, each run its own process (file:// store): `archiver scan --json`, a cold
`archiver sync`, the unchanged re-sync, and the re-sync after one session changed (a line
appended; for Codex also its thread's state_5 row, for Cursor a blob added to its store).
The table gives seconds and the 2000/500 ratio (linear = 4.0; N², 16).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
for p in (str(ROOT), str(ROOT / "bench")):
    if p not in sys.path:
        sys.path.insert(0, p)

import corpus as C  # noqa: E402  (bench/corpus.py)
from sync import child_env, write_config  # noqa: E402  (bench/sync.py)

HARNESSES = ("claude-code", "codex", "cursor-agent", "pi", "deepseek-harness")
PROJECTS = [f"{p}-{i}" for i in range(7) for p in C.PROJECTS][:50]


def _ctx(home: Path, seed: int) -> C.Ctx:
    return C.Ctx(home=home, user="alice", rng=random.Random(seed),
                 text=C.Text(random.Random(seed * 7919 + 1), "alice", pool=200, tiny=True))


# ================================================================ generators
def gen_claude(home: Path, n: int, seed: int) -> None:
    ctx = _ctx(home, seed)
    r = ctx.rng
    for _ in range(n):
        C.claude_session(ctx, r.choice(PROJECTS), r.randint(1_000, 4_000), [], subagents=False)
        last = ctx.appendable[-1]
        if r.random() < 0.25:
            _claude_subagents(ctx, home / last["path"], last["session"], last["cwd"])


def _claude_subagents(ctx: C.Ctx, transcript: Path, sid: str, cwd: str) -> None:
    r = ctx.rng
    sub = transcript.parent / sid / "subagents"
    first_tool: str | None = None
    for depth in (1, 1, 2):
        agent = "a" + C.hexid(r, 16)
        tool_id = "toolu_01" + C.hexid(r, 22)
        out = C.Jsonl(sub / f"agent-{agent}.jsonl")
        s = C.ClaudeSession(ctx, out, sid, cwd, agent_id=agent)
        s.turn(None)
        if depth == 1 and first_tool is None:  # the nested one's Agent tool_use is in this subagent
            s.assistant([{"type": "tool_use", "id": tool_id, "name": "Agent",
                          "input": {"description": "Nested", "prompt": "look", "subagent_type": "general-purpose"}}],
                        "tool_use")
            first_tool = tool_id
        out.close()
        meta = {"agentType": "general-purpose", "description": "Investigate",
                "toolUseId": first_tool if depth == 2 else tool_id, "spawnDepth": depth}
        (sub / f"agent-{agent}.meta.json").write_text(json.dumps(meta))


def gen_codex(home: Path, n: int, seed: int) -> None:
    from archiver.demo.codex_sample import STATE_DDL, _line, _meta

    ctx = _ctx(home, seed)
    r = ctx.rng
    threads: list[tuple[str, Path, str]] = []
    for i in range(n):
        C.codex_session(ctx, r.choice(PROJECTS), r.randint(1_000, 4_000))
        last = ctx.appendable[-1]
        path, tid = home / last["path"], last["session"]
        lines = path.read_bytes().splitlines(keepends=True)
        first = json.loads(lines[0])
        meta = first["payload"]
        if threads and i % 5 == 1:
            meta["forked_from_id"] = r.choice(threads)[0]
            meta["forked_from_ordinal_exclusive"] = 3
        elif threads and i % 10 == 2:
            meta["source"] = {"subagent": {"thread_spawn": {"parent_thread_id": r.choice(threads)[0], "depth": 1}}}
        lines[0] = _line(first["timestamp"], "session_meta", meta, 0)
        path.write_bytes(b"".join(lines))
        if i % 20 == 3:  # a revert rollout beside the thread's first one
            rid = "r" + C.hexid(r, 8)
            rev = _meta(tid, first["timestamp"], meta["cwd"], history_mode="paginated")
            rev["history_base"] = {"thread_id": tid, "end_ordinal_exclusive": 3}
            (path.parent / path.name.replace(".jsonl", f"_{rid}.jsonl")).write_bytes(
                _line(first["timestamp"], "session_meta", rev, 0) + b"".join(lines[1:4]))
        threads.append((tid, path, meta["cwd"]))
    _codex_state(home / ".codex", threads, STATE_DDL, r)


def _codex_state(root: Path, threads: list[tuple[str, Path, str]], ddl: str, r: random.Random) -> None:
    from archiver.demo.codex_sample import THREAD_HISTORY_SCHEMA

    con = sqlite3.connect(str(root / "state_5.sqlite"), isolation_level=None)
    con.execute("PRAGMA journal_mode=WAL")
    con.executescript(ddl)
    con.execute("BEGIN")
    con.execute("INSERT INTO _sqlx_migrations VALUES (1, 'threads', '2026-01-01 00:00:00', 1, x'00', 1)")
    con.execute("INSERT INTO rollout_migration_state VALUES (1, 'done')")
    for k, (tid, path, cwd) in enumerate(threads):
        con.execute(
            "INSERT INTO threads (id, rollout_path, created_at, updated_at, source, model_provider, cwd, title,"
            " sandbox_policy, approval_mode, history_mode, preview) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
            (tid, f"/home/alice/.codex/{path.relative_to(root).as_posix()}", 1767323045 + k, 1767323100 + k, "cli",
             "openai", cwd, f"thread {k}", "workspace-write", "on-request", "legacy", f"thread {k}"))
        for pos in range(2):
            con.execute("INSERT INTO thread_dynamic_tools VALUES (?, ?, ?, 'a tool', '{}', 0, NULL)", (tid, pos, f"t{pos}"))
        if k % 10 == 2 and k:
            con.execute("INSERT INTO thread_spawn_edges VALUES (?, ?, 'completed')", (threads[k - 1][0], tid))
    con.execute("COMMIT")
    con.close()
    con = sqlite3.connect(str(root / "thread_history_1.sqlite"), isolation_level=None)
    con.execute("PRAGMA journal_mode=WAL")
    con.executescript(THREAD_HISTORY_SCHEMA)
    con.execute("BEGIN")
    for tid, _path, _cwd in threads:
        for t in range(2):
            con.execute("INSERT INTO thread_turns VALUES (?, ?, 1, 'completed')", (tid, f"t{t}"))
            for it in range(5):
                con.execute("INSERT INTO thread_items VALUES (?, ?, ?, ?, 1767323050000, ?, 'userMessage', 3)",
                            (tid, f"t{t}", f"i{it}", it, json.dumps({"type": "userMessage", "id": f"i{it}",
                                                                     "content": [{"type": "text", "text": "hello"}]})))
        con.execute("INSERT INTO thread_history_projection_state VALUES (?, 4096, 14)", (tid,))
    con.execute("COMMIT")
    con.close()


def gen_cursor(home: Path, n: int, seed: int) -> None:
    from archiver.demo.cursor_sample import Store, _meta, _write_json, fb, fid, fs, fv, jb, md5_dir

    ctx = _ctx(home, seed)
    r, t = ctx.rng, ctx.text
    root = home / ".cursor"
    made: list[dict[str, Any]] = []
    for i in range(n):
        chat = C.rid(r)
        created = ctx.tick(3_600_000, 30_000_000)
        source = made[r.randrange(len(made))] if made and i % 5 == 1 else None
        cwd = source["cwd"] if source else f"/home/alice/work/{r.choice(C.PROJECTS)}"
        store = Store(root / "chats" / md5_dir(cwd) / chat / "store.db")
        store.conn.execute("BEGIN")
        if source is None:
            root0 = store.put(fs(22, "agent"))
            msgs = store.put(jb({"role": "system", "content": "You are an AI coding assistant."}))
            q1 = t.prompt()
            j_q1 = store.put(jb({"role": "user", "content": [{"type": "text", "text": f"<user_query>\n{q1}\n</user_query>"}]}))
            user1 = store.put(fs(1, q1) + fs(2, C.rid(r)) + fv(4, 1) + fid(10, root0))
            step1 = store.put(fb(1, fs(1, t.answer())))
            turn1 = store.put(fb(1, fid(1, user1) + fid(2, step1)))
            root1_fields = fid(1, msgs) + fid(1, j_q1) + fid(8, turn1) + fs(9, f"file://{cwd}") + fs(22, "agent")
            root1 = store.put(root1_fields)
            name = t.prompt()[:40].strip() or f"chat {i}"
        else:
            src = sqlite3.connect(str(source["store"]))
            for (bid, data) in src.execute("SELECT id, data FROM blobs"):
                store.conn.execute("INSERT INTO blobs (id, data) VALUES (?, ?)", (bid, data))
            src.close()
            root1, root1_fields = source["root1"], source["root1_fields"]
            name = source["name"] + " (forked)"
        q2 = t.prompt()
        j_q2 = store.put(jb({"role": "user", "content": [{"type": "text", "text": f"<user_query>\n{q2}\n</user_query>"}]}))
        user2 = store.put(fs(1, q2) + fs(2, C.rid(r)) + fv(4, 1) + fid(10, root1))
        step2 = store.put(fb(1, fs(1, t.answer())))
        turn2 = store.put(fb(1, fid(1, user2) + fid(2, step2)))
        root2 = store.put(root1_fields + fid(1, j_q2) + fid(8, turn2))
        store.set_meta(_meta(chat, root2, name, created))
        store.conn.execute("COMMIT")
        store.close()
        _write_json(store.path.parent / "meta.json", {"schemaVersion": 1, "createdAtMs": created,
                                                      "updatedAtMs": created + 1000, "hasConversation": True,
                                                      "title": name, "cwd": cwd})
        if source is None:
            made.append({"store": store.path, "cwd": cwd, "root1": root1, "root1_fields": root1_fields, "name": name})


def gen_pi(home: Path, n: int, seed: int) -> None:
    from archiver.demo.pi_sample import _file_name

    ctx = _ctx(home, seed)
    r = ctx.rng
    mains: list[Path] = []
    for i in range(n):
        if mains and i % 5 == 1:
            parent = r.choice(mains)
            lines = parent.read_bytes().splitlines(keepends=True)
            head = json.loads(lines[0])
            sid = C.rid(r)
            ts = C.iso(ctx.tick())
            fork = parent.parent / _file_name(ts, sid)
            fork.write_bytes(json.dumps({"type": "session", "version": 3, "id": sid, "timestamp": ts, "cwd": head["cwd"],
                                         "parentSession": str(parent)}).encode() + b"\n" + b"".join(lines[1:]))
            continue
        C.pi_session(ctx, r.choice(PROJECTS), r.randint(1_000, 4_000))
        mains.append(home / ctx.appendable[-1]["path"])


def gen_deepseek(home: Path, n: int, seed: int) -> None:
    from archiver.demo.deepseek_sample import _ev, _header

    ctx = _ctx(home, seed)
    r = ctx.rng
    mains: list[Path] = []
    for i in range(n):
        if mains and i % 4 == 1:
            parent = r.choice(mains)
            events = parent.read_bytes().splitlines(keepends=True)[1:]
            k = r.randint(2, max(2, len(events) - 1))
            sid = "ds-01" + "".join(r.choice("0123456789ABCDEFGHJKMNPQRSTVWXYZ") for _ in range(24))
            head = json.loads(parent.read_bytes().split(b"\n", 1)[0])
            path = parent.parent / f"{sid}.jsonl"
            with path.open("wb") as f:
                f.write(json.dumps(_header(sid, ctx.tick(), head["cwd"], seeded=True)).encode() + b"\n")
                f.write(b"".join(events[:k]))
                f.write(json.dumps(_ev(k + 1, "session/end-seed", {"inherited": True})).encode() + b"\n")
                f.write(json.dumps(_ev(k + 2, "turn/start", {"turn": 99})).encode() + b"\n")
            continue
        C.deepseek_session(ctx, r.choice(PROJECTS), r.randint(1_000, 4_000))
        mains.append(home / ctx.appendable[-1]["path"])


GENERATORS: dict[str, Callable[[Path, int, int], None]] = {
    "claude-code": gen_claude, "codex": gen_codex, "cursor-agent": gen_cursor, "pi": gen_pi,
    "deepseek-harness": gen_deepseek,
}


# ================================================================ one session changed
def change_one(harness: str, home: Path) -> str:
    """Change one session as its harness would; returns what was changed (for the log)."""
    if harness == "cursor-agent":
        store = sorted((home / ".cursor" / "chats").glob("*/*/store.db"))[0]
        con = sqlite3.connect(str(store))
        con.execute("INSERT INTO blobs (id, data) VALUES (?, ?)", ("f" * 64, b"\x0a\x03new"))
        con.commit()
        con.close()
        return str(store.relative_to(home))
    pattern = {"claude-code": ".claude/projects/*/*.jsonl", "codex": ".codex/sessions/*/*/*/rollout-*.jsonl",
               "pi": ".pi/agent/sessions/*/*.jsonl", "deepseek-harness": ".deepseek/sessions/*.jsonl"}[harness]
    f = sorted(home.glob(pattern))[0]
    last = f.read_bytes().splitlines()[-1]
    with f.open("ab") as out:
        out.write(last + b"\n")
    if harness == "codex":
        from archiver.harnesses.codex import ROLLOUT_RE

        m = ROLLOUT_RE.match(f.name)
        assert m is not None, f.name
        tid = m.group("tid")
        con = sqlite3.connect(str(home / ".codex" / "state_5.sqlite"))
        con.execute("UPDATE threads SET updated_at = updated_at + 60 WHERE id = ?", (tid,))
        con.commit()
        con.close()
    return str(f.relative_to(home))


# ================================================================ runs
def run(args: list[str], env: dict[str, str]) -> tuple[float, dict[str, Any]]:
    t0 = time.perf_counter()
    p = subprocess.run([sys.executable, "-m", "archiver", *args], env=env, cwd=ROOT, capture_output=True, text=True)
    dt = time.perf_counter() - t0
    if p.returncode not in (0, 1):
        raise RuntimeError(f"archiver {' '.join(args)}: rc {p.returncode}: {p.stderr[-800:]}")
    try:
        doc = json.loads(p.stdout)
    except ValueError:
        doc = {}
    return dt, doc


def measure(harness: str, n: int, work: Path, keys: Path, seed: int, sync: bool, log: Callable[[str], None]) -> dict[str, float]:
    base = work / f"{harness}-{n}"
    home = base / "home"
    home.mkdir(parents=True)
    t0 = time.perf_counter()
    GENERATORS[harness](home, n, seed)
    log(f"  {harness} N={n}: generated in {time.perf_counter() - t0:.1f} s")
    store = base / "store"
    store.mkdir()
    cfg = base / "config.toml"
    write_config(cfg, home, ["alice"], keys, f"file://{store}", None, base / "state")
    env = child_env({"HOME": str(home)})
    common = ["--config", str(cfg), "--json", "-q", "--harness", harness]
    out: dict[str, float] = {}
    out["scan"], doc = run(["scan", *common], env)
    found = len(doc.get("sessions", [])) if isinstance(doc.get("sessions"), list) else doc.get("total")
    if sync:
        out["cold"], doc = run(["sync", *common], env)
        out["unchanged"], _ = run(["sync", *common], env)
        what = change_one(harness, home)
        out["one_changed"], doc2 = run(["sync", *common], env)
        log(f"    changed {what}: uploaded {(doc2.get('sessions') or {}).get('uploaded')} session(s)")
    out["rescan"], _ = run(["scan", *common], env)
    log(f"    {found} sessions; " + ", ".join(f"{k} {v:.2f} s" for k, v in out.items()))
    shutil.rmtree(base, ignore_errors=True)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--harness", action="append", choices=HARNESSES, help="repeatable; default: all")
    p.add_argument("--sizes", default="500,2000", help="two session counts (default 500,2000)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--skip-sync", action="store_true", help="time discovery (`archiver scan`) only")
    p.add_argument("--work", type=Path, help="scratch folder (default: a new temp folder, removed)")
    p.add_argument("--json", type=Path, help="also write the figures here")
    args = p.parse_args(argv)
    small, big = (int(x) for x in args.sizes.split(","))
    work = args.work or Path(tempfile.mkdtemp(prefix="archiver-scale-"))
    work.mkdir(parents=True, exist_ok=True)
    os.chmod(work, 0o700)

    def log(msg: str) -> None:
        print(msg, flush=True)

    from archiver.crypto.keys import keygen

    keys = work / "keys"
    keygen(keys)
    results: dict[str, dict[int, dict[str, float]]] = {}
    try:
        for h in args.harness or HARNESSES:
            results[h] = {n: measure(h, n, work, keys, args.seed, not args.skip_sync, log) for n in (small, big)}
    finally:
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)
    cols = ["scan", "rescan"] + ([] if args.skip_sync else ["cold", "unchanged", "one_changed"])
    log("")
    log(f"{'harness':<18}" + "".join(f"{c + f' {small}':>18}{c + f' {big}':>18}{'ratio':>7}" for c in cols))
    for h, by_n in results.items():
        row = f"{h:<18}"
        for c in cols:
            a, b = by_n[small][c], by_n[big][c]
            row += f"{a:>18.2f}{b:>18.2f}{b / a:>7.1f}"
        log(row)
    log(f"(seconds; ratio = {big}/{small} time, linear = {big / small:.1f})")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
