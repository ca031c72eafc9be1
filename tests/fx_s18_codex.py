"""A ~/.codex home written from seeds/by-harness/codex.json alone (its layout, records, linking
and gotchas), for the s18 fresh-eyes end-to-end check of the Codex collector. No tests here.

What the seed calls tricky, side by side:
- a paginated root thread P whose rollout has an unparseable line mid-file and a multi-MB
  base64 image_generation_call.result line, a generated_images/ sidecar its saved_path names,
  and two thread/revert rollouts P_R1 (history_base -> P) and P_R2 (history_base -> R1);
  state_5 threads.rollout_path names P_R2, the current one;
- a paginated fork PF whose history_base names the revert rollout R1 (a rollout id, not a thread);
- a legacy root L and a legacy fork LF carrying L's copied records, L's session_meta included;
- a paginated root Z idle 7 days (.jsonl.zst), its sub-agent S (session_meta.parent_thread_id)
  and S's sub-agent S2 (only source.subagent.thread_spawn names its parent); thread_spawn_edges;
- an archived legacy rollout A (archived_sessions/, .jsonl.zst);
- a session M started 00:15 local time in Asia/Tokyo: its folder and file name say 03/02 00-15,
  its session_meta.timestamp says 2026-03-01T15:15Z;
- session_index.jsonl (several names for P: the last wins), history.jsonl, shell_snapshots/,
  rollout-migrations/ and thread-writer-locks/ (kind "other"), state_5 / thread_history_1 /
  logs_2 SQLite in WAL mode with a live -wal (build_in_child).
A canary (home path, e-mail, secrets, card) sits in every free-text and path field.
"""

from __future__ import annotations

import base64
import json
import random
import sqlite3
from pathlib import Path
from typing import Any

import zstandard

from tests.fx_s11_e2e import KEEP_OPEN, Canaries

P = "01950000-aaaa-7000-8000-000000000001"
R1 = "01950000-bbbb-7000-8000-000000000011"  # rollout ids of P's two reverts
R2 = "01950000-bbbb-7000-8000-000000000012"
PF = "01950000-aaaa-7000-8000-000000000002"
L = "01950000-aaaa-7000-8000-000000000003"
LF = "01950000-aaaa-7000-8000-000000000004"
Z = "01950000-aaaa-7000-8000-000000000005"
S = "01950000-aaaa-7000-8000-000000000006"
S2 = "01950000-aaaa-7000-8000-000000000007"
A = "01950000-aaaa-7000-8000-000000000008"
M = "01950000-aaaa-7000-8000-000000000009"
TZ = "Asia/Tokyo"
M_LOCAL_DIR = "sessions/2026/03/02"  # local date of 2026-03-01T15:15:07Z in Tokyo
M_UTC = "2026-03-01T15:15:07.123Z"
BIG_CALL = "ig_big"
BIG_BYTES = 2 * 1024 * 1024  # the image: its base64 is a 2.7 MiB line

# session id -> (relation, parent session id, at) as the collector's contract (module docstring) says
EDGES: dict[str, list[tuple[str, str, str | None]]] = {
    f"{P}_{R1}": [("revert", P, f"rollout={P};ordinal=4")],
    f"{P}_{R2}": [("revert", P, f"rollout={R1};ordinal=6")],
    PF: [("fork", f"{P}_{R1}", f"rollout={R1};ordinal=6")],
    LF: [("fork", L, "ordinal=3")],
    S: [("subagent", Z, "depth=1")],
    S2: [("subagent", S, "depth=2")],
}
KINDS = {P: "main", f"{P}_{R1}": "revert", f"{P}_{R2}": "revert", PF: "fork", L: "main", LF: "fork", Z: "main",
         S: "subagent", S2: "subagent", A: "main", M: "main"}


def jl(rec: dict[str, Any]) -> bytes:
    return json.dumps(rec, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"


def big_image() -> bytes:
    """The generated image's bytes (deterministic): a PNG signature and noise."""
    return b"\x89PNG\r\n\x1a\n" + random.Random(18).randbytes(BIG_BYTES)


class Writer:
    """Rollout lines for one home: every free-text and path field a canary."""

    def __init__(self, home: Path, k: Canaries) -> None:
        self.home, self.k = home, k
        self.codex = home / ".codex"
        self.files: dict[str, str] = {}  # session id -> rollout path relative to the home

    def meta(self, tid: str, ts: str, paginated: bool, ordinal: int = 0, **kw: Any) -> dict[str, Any]:
        cwd = self.k.path(f"meta.cwd {tid[-2:]}", "proj")
        payload: dict[str, Any] = {
            "id": tid, "session_id": kw.pop("session_id", tid), "timestamp": ts, "cwd": cwd,
            "originator": "codex_cli_rs", "cli_version": "0.150.0", "source": kw.pop("source", "cli"),
            "model_provider": "openai", "base_instructions": {"text": self.k.c("base_instructions")},
            "runtime_workspace_roots": [cwd], "creator_user_id": self.k.c("creator_user_id"),
            "git": {"commit_hash": "0123456789abcdef0123456789abcdef01234567", "branch": "main",
                    "repository_url": f"https://github.com/{self.k.parts('repo')['email'].split('@')[0]}/p.git"},
            **kw,
        }
        if paginated:
            payload["history_mode"] = "paginated"
        rec: dict[str, Any] = {"timestamp": ts, "type": "session_meta", "payload": payload}
        if paginated:
            rec["ordinal"] = ordinal
        return rec

    def turn(self, tid: str, paginated: bool, n: int) -> list[dict[str, Any]]:
        """One turn: turn_context, the user's message, a tool call and its output, the display
        items (paginated) or legacy event_msg lines."""
        k = self.k
        t = f"t{n}"
        call = f"call_{tid[-2:]}_{n}"
        ts = f"2026-03-01T10:{n:02d}:00.000Z"
        out = [
            {"type": "event_msg", "payload": {"type": "task_started", "turn_id": t, "started_at": 1772359200 + n}},
            {"type": "turn_context", "payload": {"turn_id": t, "cwd": k.path("turn_context.cwd"), "approval_policy": "on-request",
                                                 "model": "gpt-5-codex", "effort": "medium", "summary": "none"}},
            {"type": "response_item", "payload": {"type": "message", "role": "user",
                                                  "content": [{"type": "input_text", "text": k.c("user text")}]},
             "metadata": {"client_authored": False, "user_input_order": n}},
            {"type": "response_item", "payload": {"type": "function_call", "name": "exec_command", "call_id": call,
                                                  "arguments": json.dumps({"cmd": k.c("function_call.arguments"),
                                                                           "workdir": k.path("arguments.workdir")})}},
            {"type": "response_item", "payload": {"type": "function_call_output", "call_id": call,
                                                  "output": "Process exited with code 0\nOutput:\n" + k.c("output")}},
        ]
        if paginated:
            out.append({"type": "event_msg", "payload": {
                "type": "item_completed", "thread_id": tid, "turn_id": t,
                "item": {"type": "CommandExecution", "id": call, "command": ["/bin/zsh", "-lc", k.c("command")],
                         "cwd": "file://" + k.path("CommandExecution.cwd"), "source": "agent", "status": "completed",
                         "aggregated_output": k.c("aggregated_output"), "exit_code": 0,
                         "duration": {"secs": 0, "nanos": 120000000}},
                "started_at_ms": 1772359200000, "completed_at_ms": 1772359201000}})
        else:
            out.append({"type": "event_msg", "payload": {"type": "user_message", "message": k.c("legacy user_message"),
                                                         "local_images": [], "text_elements": []}})
        out.append({"type": "event_msg", "payload": {"type": "task_complete", "turn_id": t,
                                                      "last_agent_message": k.c("last_agent_message")}})
        for rec in out:
            rec["timestamp"] = ts
        return out

    def write(self, sid: str, rel: str, recs: list[dict[str, Any] | bytes], ordinal0: int | None = None,
              zst: bool = False) -> Path:
        """Write a rollout; `ordinal0` numbers the lines densely from there (paginated)."""
        lines = []
        for i, rec in enumerate(recs):
            if isinstance(rec, dict):
                if ordinal0 is not None:
                    rec["ordinal"] = ordinal0 + i
                lines.append(jl(rec))
            else:
                lines.append(rec)
        f = self.codex / rel
        f.parent.mkdir(parents=True, exist_ok=True)
        data = b"".join(lines)
        if zst:
            f = f.with_name(f.name + ".zst")
            data = zstandard.ZstdCompressor(level=3).compress(data)
        f.write_bytes(data)
        self.files[sid] = f.relative_to(self.home).as_posix()
        return f


def rollouts(w: Writer, big: bool) -> None:
    k = w.k
    day = "sessions/2026/03/01"
    # P: paginated root, an unparseable line mid-file, the big image line
    p_recs: list[dict[str, Any] | bytes] = [w.meta(P, "2026-03-01T10:00:00.000Z", True), *w.turn(P, True, 1)]
    p_recs.insert(3, b'{"timestamp":"2026-03-01T10:01:00.000Z","ordinal":3,"type":"response_item","payload":{"ty\n')
    if big:
        result = base64.b64encode(big_image()).decode()
        saved = f"{w.home}/.codex/generated_images/{P}/{BIG_CALL}.png"
        p_recs += [
            {"timestamp": "2026-03-01T10:05:00.000Z", "type": "response_item", "payload": {
                "type": "image_generation_call", "id": BIG_CALL, "status": "completed",
                "revised_prompt": k.c("revised_prompt"), "result": result}},
            {"timestamp": "2026-03-01T10:05:01.000Z", "type": "event_msg", "payload": {
                "type": "item_completed", "thread_id": P, "turn_id": "t1",
                "item": {"type": "ImageGeneration", "id": BIG_CALL, "status": "completed",
                         "revised_prompt": k.c("ImageGeneration.revised_prompt"), "saved_path": saved},
                "started_at_ms": 1772359500000, "completed_at_ms": 1772359501000}},
        ]
    p_recs += w.turn(P, True, 2)
    # the line numbering: the torn line keeps its slot (ordinal 3)
    w.write(P, f"{day}/rollout-2026-03-01T19-00-00-{P}.jsonl", p_recs, ordinal0=0)
    # two reverts of P: each a new rollout of the same thread; the old files stay
    w.write(f"{P}_{R1}", f"{day}/rollout-2026-03-01T19-30-00-{P}_{R1}.jsonl", [
        w.meta(P, "2026-03-01T10:30:00.000Z", True, history_base={
            "thread_id": P, "end_ordinal_exclusive": 4, "end_byte_offset": 1000}), *w.turn(P, True, 3)[:2]], ordinal0=4)
    w.write(f"{P}_{R2}", f"{day}/rollout-2026-03-01T19-45-00-{P}_{R2}.jsonl", [
        w.meta(P, "2026-03-01T10:45:00.000Z", True, history_base={
            "thread_id": R1, "end_ordinal_exclusive": 6, "end_byte_offset": 900}), *w.turn(P, True, 4)], ordinal0=6)
    # PF: a paginated fork of P at its first revert rollout
    w.write(PF, f"{day}/rollout-2026-03-01T20-00-00-{PF}.jsonl", [
        w.meta(PF, "2026-03-01T11:00:00.000Z", True, forked_from_id=P, forked_from_ordinal_exclusive=6,
               history_base={"thread_id": R1, "end_ordinal_exclusive": 6, "end_byte_offset": 900}),
        *w.turn(PF, True, 5)], ordinal0=6)
    # L: legacy root; LF: legacy fork with L's records (its session_meta too) copied in
    l_meta = w.meta(L, "2026-02-01T09:00:00.000Z", False)
    l_body = w.turn(L, False, 6)
    w.write(L, f"sessions/2026/02/01/rollout-2026-02-01T18-00-00-{L}.jsonl", [l_meta, *l_body])
    w.write(LF, f"sessions/2026/02/02/rollout-2026-02-02T18-00-00-{LF}.jsonl", [
        w.meta(LF, "2026-02-02T09:00:00.000Z", False, forked_from_id=L, forked_from_ordinal_exclusive=3),
        json.loads(jl(l_meta)), *(json.loads(jl(r)) for r in l_body[:3]), *w.turn(LF, False, 7)])
    # Z: paginated, idle for 7 days: .jsonl.zst; its sub-agent S and S's sub-agent S2
    zf = f"sessions/2026/02/20/rollout-2026-02-20T18-00-00-{Z}.jsonl"
    z_body = w.turn(Z, True, 8)
    z_body.insert(4, {"timestamp": "2026-02-20T09:00:01.000Z", "type": "event_msg", "payload": {
        "type": "item_completed", "thread_id": Z, "turn_id": "t8", "item": {
            "type": "CollabAgentToolCall", "id": "call_c", "tool": "spawn_agent", "status": "completed",
            "sender_thread_id": Z, "receiver_thread_ids": [S], "prompt": k.c("spawn prompt")}}})
    w.write(Z, zf, [w.meta(Z, "2026-02-20T09:00:00.000Z", True), *z_body], ordinal0=0, zst=True)
    spawn = {"parent_thread_id": Z, "depth": 1, "agent_path": k.path("agent_path"), "agent_nickname": k.c("nick"),
             "agent_role": "explorer"}
    w.write(S, f"sessions/2026/02/20/rollout-2026-02-20T18-01-00-{S}.jsonl", [
        w.meta(S, "2026-02-20T09:01:00.000Z", True, session_id=Z, parent_thread_id=Z, thread_source="subagent",
               source={"subagent": {"thread_spawn": spawn}}, subagent_history_start_ordinal=3,
               agent_nickname=k.c("meta nick"), agent_role="explorer"),
        *z_body[:2], *w.turn(S, True, 9)], ordinal0=0)
    w.write(S2, f"sessions/2026/02/20/rollout-2026-02-20T18-02-00-{S2}.jsonl", [
        w.meta(S2, "2026-02-20T09:02:00.000Z", True, session_id=Z, thread_source="subagent",
               source={"subagent": {"thread_spawn": {**spawn, "parent_thread_id": S, "depth": 2}}}),
        *w.turn(S2, True, 10)], ordinal0=0)
    # A: archived (flat), compressed, legacy
    w.write(A, f"archived_sessions/rollout-2026-01-05T18-00-00-{A}.jsonl", [
        w.meta(A, "2026-01-05T09:00:00.000Z", False), *w.turn(A, False, 11)], zst=True)
    # M: just after local midnight in Tokyo, still the previous day in UTC
    w.write(M, f"{M_LOCAL_DIR}/rollout-2026-03-02T00-15-07-{M}.jsonl",
            [w.meta(M, M_UTC, True), *w.turn(M, True, 12)], ordinal0=0)


def sidecars(w: Writer, big: bool) -> None:
    k, codex = w.k, w.codex
    index = [{"id": tid, "thread_name": k.c(f"thread_name {tid[-2:]}"), "updated_at": "2026-03-01T10:00:00Z"}
             for tid in (P, L, Z, M, S)]
    index.append({"id": P, "thread_name": "renamed P " + k.c("thread_name P again"), "updated_at": "2026-03-01T12:00:00Z"})
    (codex / "session_index.jsonl").write_bytes(b"".join(jl(e) for e in index))
    (codex / "history.jsonl").write_bytes(b"".join(
        jl({"session_id": tid, "ts": 1772359200, "text": k.c("history text")}) for tid in (P, L, Z)))
    snaps = codex / "shell_snapshots"
    snaps.mkdir()
    p = k.parts("shell snapshot")
    (snaps / f"{P}.1772359200123.sh").write_text(
        f"# Snapshot file\nexport HOME={w.home}\nexport GITHUB_TOKEN={p['ghp']}\nexport AWS_ACCESS_KEY_ID={p['akia']}\n"
        f"export GIT_AUTHOR_EMAIL={p['email']}\nexport NOTE='{p['card']}'\nalias proj='cd {p['path']}'\n")
    if big:
        img = codex / "generated_images" / P
        img.mkdir(parents=True)
        (img / f"{BIG_CALL}.png").write_bytes(big_image()[:4096])
    (codex / "rollout-migrations").mkdir()
    (codex / "rollout-migrations" / f"{L}.pending").write_text("legacy_to_paginated_v1\n")
    (codex / "thread-writer-locks").mkdir()
    (codex / "thread-writer-locks" / f"{P}.lock").write_text("")


def _wal(path: Path) -> sqlite3.Connection:
    con = sqlite3.connect(str(path), isolation_level=None)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("PRAGMA wal_autocheckpoint=0")
    KEEP_OPEN.append(con)  # left open: the -wal stays live until the child exits
    return con


def databases(w: Writer) -> None:
    k = w.k
    st = _wal(w.codex / "state_5.sqlite")
    st.executescript("""
        CREATE TABLE _sqlx_migrations (version INTEGER PRIMARY KEY, description TEXT);
        INSERT INTO _sqlx_migrations VALUES (1, 'threads');
        CREATE TABLE threads (id TEXT PRIMARY KEY, rollout_path TEXT NOT NULL, created_at INTEGER, updated_at INTEGER,
          source TEXT, model_provider TEXT, cwd TEXT, title TEXT, name TEXT, preview TEXT, first_user_message TEXT,
          archived INTEGER NOT NULL DEFAULT 0, history_mode TEXT, agent_nickname TEXT);
        CREATE TABLE thread_spawn_edges (parent_thread_id TEXT NOT NULL, child_thread_id TEXT PRIMARY KEY, status TEXT);
        CREATE TABLE rollout_migration_state (id INTEGER PRIMARY KEY, state TEXT);
        """)
    current = {P: w.files[f"{P}_{R2}"]} | {t: w.files[t] for t in (PF, L, LF, Z, S, S2, A, M)}
    for tid, rel in current.items():
        st.execute("INSERT INTO threads VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)", (
            tid, str(w.home / rel), 1772359200, 1772359300, "cli", "openai", k.path("threads.cwd"), k.c("threads.title"),
            None, k.c("threads.preview"), k.c("threads.first_user_message"), int(tid == A),
            None if tid in (L, LF, A) else "paginated", k.c("threads.agent_nickname") if tid in (S, S2) else None))
    st.execute("INSERT INTO thread_spawn_edges VALUES (?,?,?)", (Z, S, "closed"))
    st.execute("INSERT INTO thread_spawn_edges VALUES (?,?,?)", (S, S2, "closed"))
    st.execute("INSERT INTO rollout_migration_state VALUES (1, 'done')")
    hi = _wal(w.codex / "thread_history_1.sqlite")
    hi.execute("CREATE TABLE thread_items (thread_id TEXT, rollout_ordinal INTEGER, item_type TEXT, item_json TEXT, "
               "updated_at_ordinal INTEGER, PRIMARY KEY (thread_id, rollout_ordinal))")
    hi.execute("INSERT INTO thread_items VALUES (?,?,?,?,?)", (P, 2, "userMessage", json.dumps(
        {"type": "userMessage", "content": [{"type": "text", "text": k.c("thread_items.item_json")}]}), 2))
    lg = _wal(w.codex / "logs_2.sqlite")
    lg.execute("CREATE TABLE logs (id INTEGER PRIMARY KEY, ts INTEGER, level TEXT, message TEXT, thread_id TEXT)")
    lg.execute("INSERT INTO logs (ts, level, message, thread_id) VALUES (1, 'INFO', ?, ?)", (k.c("logs.message"), P))


def build(home: Path, k: Canaries, big: bool = True) -> dict[str, Any]:
    """The home (build_in_child's builder): returns each session's rollout path (home-relative)."""
    w = Writer(home, k)
    rollouts(w, big)
    sidecars(w, big)
    databases(w)
    return {"files": w.files}


def build_small(home: Path, k: Canaries) -> dict[str, Any]:
    """The same home without the multi-MB line (tests that sync several times)."""
    return build(home, k, big=False)
