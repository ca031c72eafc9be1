"""Seed-conformance homes for Claude Code and Codex, written from the seeds alone
(/work/shared/seeds/by-harness/claude-code.json, codex.json), not from the other fixtures.

`build_claude(root, rng)` and `build_codex(root, rng)` plant one harness root each and
return a `Planted`: every session key with the files (relative to the root) the seeds say
belong to it, every lineage edge the seeds define, the noise the seeds say is no session,
and per transcript the bytes a snapshot may take (up to its last complete line).

Private data is only the user's home `/home/alice` (in cwds and paths): everything else is
plain words and ids, so a restore with `--relocate <redacted home>=NEW` must give back the
planted bytes with `/home/alice` replaced by NEW (project keys alike).

Import explicitly:  from tests.fx_s25_seeds import build_claude, build_codex, Planted
"""

from __future__ import annotations

import base64
import json
import random
import re
import sqlite3
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import zstandard

USER_HOME = "/home/alice"
WORDS = ("alpha", "bravo", "delta", "gamma", "omega", "ridge", "maple", "cedar", "orbit", "lumen", "quartz",
         "tundra", "harbor", "fennel", "copper", "willow", "meadow", "canyon", "basalt", "prairie")


@dataclass
class Planted:
    root: Path
    # session key -> files (relative to root) the seeds give it
    sessions: dict[str, set[str]] = field(default_factory=dict)
    # (child key, parent key, relation)
    edges: set[tuple[str, str, str]] = field(default_factory=set)
    # files (relative to root) the seeds call no transcript: must be in no session but the host one
    noise: set[str] = field(default_factory=set)
    # relative path -> the bytes a snapshot keeps (plaintext; a .zst file's decompressed content)
    expected: dict[str, bytes] = field(default_factory=dict)
    # session key -> its title per the seeds
    titles: dict[str, str] = field(default_factory=dict)

    def add(self, key: str, rel: str) -> None:
        self.sessions.setdefault(key, set()).add(rel)


def _line(rec: dict[str, Any]) -> bytes:
    return json.dumps(rec, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"


def _text(rng: random.Random, n: int = 6) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def _uuid(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def _write(root: Path, rel: str, data: bytes, planted: Planted | None = None, key: str | None = None,
           expected: bytes | None = None) -> Path:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_bytes(data)
    if planted is not None and key is not None:
        planted.add(key, rel)
        planted.expected[rel] = data if expected is None else expected
    return p


def _png(rng: random.Random, n: int) -> bytes:
    return b"\x89PNG\r\n\x1a\n" + bytes(rng.getrandbits(8) for _ in range(n))


# ============================================================== Claude Code


def project_key(cwd: str) -> str:
    """Seed: the absolute cwd with every non-alphanumeric char replaced by '-' (JS UTF-16 units)."""
    return "".join(("--" if ord(c) > 0xFFFF else "-") if not (c.isascii() and c.isalnum()) else c for c in cwd)


class _Claude:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.clock = 0

    def ts(self) -> str:
        self.clock += self.rng.randint(1, 50)
        s = self.clock
        return f"2026-03-0{1 + s // 86400 % 9}T{s // 3600 % 24:02d}:{s // 60 % 60:02d}:{s % 60:02d}.{s % 1000:03d}Z"

    def env(self, sid: str, cwd: str, parent: str | None, kind: str, agent: str | None = None, **extra: Any) -> dict[str, Any]:
        rec: dict[str, Any] = {"parentUuid": parent, "isSidechain": agent is not None, "userType": "external",
                               "cwd": cwd, "sessionId": sid, "version": "2.1.307", "gitBranch": "main",
                               "entrypoint": "cli", "type": kind, "uuid": _uuid(self.rng), "timestamp": self.ts()}
        if agent is not None:
            rec["agentId"] = agent
        rec.update(extra)
        return rec

    def chain(self, sid: str, cwd: str, n: int, agent: str | None = None, start: str | None = None) -> list[dict[str, Any]]:
        """An attachment root (or a record under `start`) then n user/assistant pairs."""
        out: list[dict[str, Any]] = []
        parent = start
        if start is None:
            root = self.env(sid, cwd, None, "attachment", agent,
                            attachment={"type": "date", "date": "2026-03-01"})
            out.append(root)
            parent = root["uuid"]
        for _ in range(n):
            u = self.env(sid, cwd, parent, "user", agent, promptSource="typed",
                         message={"role": "user", "content": _text(self.rng)})
            a = self.env(sid, cwd, u["uuid"], "assistant", agent, requestId=f"req_{self.rng.getrandbits(40):x}",
                         message={"id": f"msg_{self.rng.getrandbits(40):x}", "role": "assistant", "model": "claude-x",
                                  "content": [{"type": "text", "text": _text(self.rng, 9)}],
                                  "stop_reason": "end_turn", "usage": {"input_tokens": 5, "output_tokens": 7}})
            out += [u, a]
            parent = a["uuid"]
        return out

    def spawn(self, sid: str, cwd: str, parent: str, tool_use_id: str, agent_id: str, agent: str | None = None,
              tool: str = "Agent") -> list[dict[str, Any]]:
        """An assistant tool_use that launches a subagent and the user tool_result naming it."""
        a = self.env(sid, cwd, parent, "assistant", agent,
                     message={"id": f"msg_{self.rng.getrandbits(40):x}", "role": "assistant", "model": "claude-x",
                              "content": [{"type": "tool_use", "id": tool_use_id, "name": tool,
                                           "input": {"description": _text(self.rng, 3), "prompt": _text(self.rng)}}]})
        r = self.env(sid, cwd, a["uuid"], "user", agent, sourceToolAssistantUUID=a["uuid"],
                     message={"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool_use_id,
                                                           "content": _text(self.rng)}]},
                     toolUseResult={"status": "completed", "agentId": agent_id,
                                    "outputFile": f"{USER_HOME}/.claude/tmp/{agent_id}.out"})
        return [a, r]


def build_claude(root: Path, rng: random.Random) -> Planted:
    """A Claude Code root (what ~/.claude or CLAUDE_CONFIG_DIR holds) exercising the seed's layout
    and lineage: see the module docstring of tests/test_s25_seeds.py for the list."""
    pl = Planted(root=root)
    c = _Claude(rng)
    app, lib, uni = f"{USER_HOME}/work/app", f"{USER_HOME}/work/lib", f"{USER_HOME}/projets/café-✓-🚀"
    p_app, p_lib, p_uni = (f"projects/{project_key(x)}" for x in (app, lib, uni))
    ids = {n: _uuid(rng) for n in ("S1", "S2", "S3", "S4", "S5", "S6")}
    agents = {n: "a" + "".join(rng.choice("0123456789abcdef") for _ in range(16))
              for n in ("A1", "A2", "A3", "A4", "L1")}
    key = {n: f"claude-code:{v}" for n, v in {**ids, **agents}.items()}
    s1 = ids["S1"]

    # ---- S1: main session with every per-session sidecar, odd lines, a torn tail
    recs = c.chain(s1, app, 2)
    recs += c.spawn(s1, app, recs[-1]["uuid"], "toolu_A1", agents["A1"])
    recs += c.spawn(s1, app, recs[-1]["uuid"], "toolu_A4", agents["A4"], tool="Skill")
    bash = c.env(s1, app, recs[-1]["uuid"], "assistant", message={
        "id": "msg_bash", "role": "assistant", "content": [{"type": "tool_use", "id": "toolu_B1", "name": "Bash",
                                                            "input": {"command": "ls"}}]})
    persisted = f"{USER_HOME}/.claude/projects/{project_key(app)}/{s1}/tool-results/b1x2y3z4w.txt"
    res = c.env(s1, app, bash["uuid"], "user", message={"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_B1", "content": "<persisted-output>preview</persisted-output>"}]},
        toolUseResult={"stdout": "", "persistedOutputPath": persisted, "persistedOutputSize": 5000})
    recs += [bash, res]
    image = base64.b64encode(_png(rng, 2_400_000)).decode()  # a line of ~3.2 MB
    recs.append(c.env(s1, app, res["uuid"], "user", message={"role": "user", "content": [
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": image}},
        {"type": "text", "text": "what is in this picture"}]}))
    recs.append(c.env(s1, app, recs[-1]["uuid"], "assistant", futureEnvelopeField={"nested": [1, 2]},
                      message={"id": "msg_x", "role": "assistant", "content": [{"type": "text", "text": "a graph"}]}))
    fork_point = recs[-1]["uuid"]
    recs += [
        {"type": "file-history-snapshot", "messageId": recs[3]["uuid"], "isSnapshotUpdate": False,
         "snapshot": {"messageId": recs[3]["uuid"], "timestamp": c.ts(), "trackedFileBackups": {
             f"{app}/main.py": {"backupFileName": "0123456789abcdef@v1", "version": 1, "backupTime": c.ts()}}}},
        {"type": "some-future-record", "sessionId": s1, "payload": {"words": _text(rng)}},
        {"type": "ai-title", "aiTitle": "an ai title", "sessionId": s1},
        {"type": "custom-title", "customTitle": "Seeds audit main", "sessionId": s1},
        {"type": "last-prompt", "lastPrompt": "what is in this picture", "leafUuid": fork_point, "sessionId": s1},
    ]
    body = b"".join(_line(r) for r in recs)
    torn = _line(c.env(s1, app, fork_point, "user", message={"role": "user", "content": "cut"}))[:-30]
    _write(root, f"{p_app}/{s1}.jsonl", body + torn, pl, key["S1"], expected=body)
    pl.titles[key["S1"]] = "Seeds audit main"
    sdir = f"{p_app}/{s1}"
    _write(root, f"{sdir}/tool-results/b1x2y3z4w.txt", ("output line\n" * 400).encode(), pl, key["S1"])
    _write(root, f"{sdir}/remote-agents/remote-agent-r0a1.meta.json", b'{"agentType":"remote","status":"done"}\n',
           pl, key["S1"])
    for suffix in (".ccr-tip.json", ".precompact.json", ".dir-sync.json"):
        _write(root, f"{p_app}/{s1}{suffix}", json.dumps({"sessionId": s1, "k": suffix}).encode(), pl, key["S1"])
    _write(root, f"file-history/{s1}/0123456789abcdef@v1", b"print('v1')\n", pl, key["S1"])
    _write(root, f"file-history/{s1}/0123456789abcdef@v2", b"print('v2')\n", pl, key["S1"])
    _write(root, f"session-env/{s1}/sessionstart-hook-0.sh", b"export MODE=dev\n", pl, key["S1"])

    # ---- subagents of subagents (nested folders between subagents/ and the file), a forked skill
    def subagent(name: str, rel_dir: str, tool_use_id: str, depth: int, extra: list[dict[str, Any]],
                 head: list[dict[str, Any]] | None = None) -> None:
        aid = agents[name]
        lines = (head or []) + c.chain(s1, app, 1, agent=aid)
        lines += [dict(r) for r in extra]
        _write(root, f"{rel_dir}/agent-{aid}.jsonl", b"".join(_line(r) for r in lines), pl, key[name])
        meta = {"agentType": "general-purpose", "description": f"subagent {name}", "toolUseId": tool_use_id,
                "spawnDepth": depth, "requestShape": "agent", "requestNonInteractive": True}
        _write(root, f"{rel_dir}/agent-{aid}.meta.json", json.dumps(meta).encode(), pl, key[name])

    sub = f"{sdir}/subagents"
    a1_tail = c.spawn(s1, app, None, "toolu_A2", agents["A2"], agent=agents["A1"])
    subagent("A1", sub, "toolu_A1", 1, a1_tail)
    a2_tail = c.spawn(s1, app, None, "toolu_A3", agents["A3"], agent=agents["A2"])
    subagent("A2", f"{sub}/workflows/wf-1", "toolu_A2", 2, a2_tail)
    subagent("A3", f"{sub}/workflows/wf-1/inner", "toolu_A3", 3, [])
    ref = {"type": "fork-context-ref", "agentId": agents["A4"], "parentSessionId": s1,
           "parentLastUuid": recs[5]["uuid"], "contextLength": 6}
    subagent("A4", sub, "toolu_A4", 1, [], head=[ref])
    _write(root, f"{sub}/agent-{agents['A4']}.forked-skill.json",
           b'{"skillName":"review","attributionName":"review"}', pl, key["A4"])
    _write(root, f"{sub}/agent-{agents['A4']}.forked-skill.marker.json",
           b'{"forkedSkill":true,"skillName":"review"}', pl, key["A4"])
    pl.edges |= {(key["A1"], key["S1"], "subagent"), (key["A2"], key["A1"], "subagent"),
                 (key["A3"], key["A2"], "subagent"), (key["A4"], key["S1"], "subagent")}

    # ---- older layout: projects/<key>/agent-<id>.jsonl beside its parent (sessionId = parent)
    legacy = c.chain(s1, app, 1, agent=agents["L1"])
    _write(root, f"{p_app}/agent-{agents['L1']}.jsonl", b"".join(_line(r) for r in legacy), pl, key["L1"])
    pl.edges.add((key["L1"], key["S1"], "subagent"))

    # ---- S2 = /branch of S1, S3 = /branch of S2 (fork of a fork)
    def branch(src_sid: str, src_recs: list[dict[str, Any]], new: str) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = [{"type": "history-suppression", "sessionId": ids[new], "cause": "fork_inherit",
                                      "ts": c.ts()}]
        prev = None
        for r in src_recs:
            if r.get("type") not in ("user", "assistant", "attachment") or r.get("isSidechain"):
                continue
            copy = dict(r, sessionId=ids[new], parentUuid=prev, forkedFrom={"sessionId": src_sid,
                                                                             "messageUuid": r["uuid"]})
            out.append(copy)
            prev = r["uuid"]
        return out + c.chain(ids[new], app, 1, start=prev)

    s2 = branch(s1, [r for r in recs if len(json.dumps(r)) < 100_000][:6], "S2")
    _write(root, f"{p_app}/{ids['S2']}.jsonl", b"".join(_line(r) for r in s2), pl, key["S2"])
    s3 = branch(ids["S2"], s2[:5], "S3")
    _write(root, f"{p_app}/{ids['S3']}.jsonl", b"".join(_line(r) for r in s3), pl, key["S3"])
    pl.edges |= {(key["S2"], key["S1"], "fork"), (key["S3"], key["S2"], "fork")}

    # ---- continuation chain S4 -> S5 -> S6 across project folders, S5 moved by /cd
    s4 = c.chain(ids["S4"], app, 1) + [{"type": "continued-in", "timestamp": c.ts(), "sessionId": ids["S4"],
                                         "continuedInSessionId": ids["S5"]}]
    _write(root, f"{p_app}/{ids['S4']}.jsonl", b"".join(_line(r) for r in s4), pl, key["S4"])
    s5 = c.chain(ids["S5"], app, 1)
    s5 += [{"type": "relocated", "relocatedCwd": lib, "sessionId": ids["S5"]}]
    s5 += c.chain(ids["S5"], lib, 1, start=s5[-2]["uuid"])
    s5 += [{"type": "continued-in", "timestamp": c.ts(), "sessionId": ids["S5"], "continuedInSessionId": ids["S6"]}]
    _write(root, f"{p_lib}/{ids['S5']}.jsonl", b"".join(_line(r) for r in s5), pl, key["S5"])
    s6 = c.chain(ids["S6"], uni, 2)
    _write(root, f"{p_uni}/{ids['S6']}.jsonl", b"".join(_line(r) for r in s6), pl, key["S6"])
    pl.edges |= {(key["S5"], key["S4"], "continuation"), (key["S6"], key["S5"], "continuation")}

    # ---- host files and per-project files of no session
    host = "claude-code:@host"
    hist = {"display": "fix the build", "pastedContents": {"1": {"id": 1, "type": "text", "contentHash": "ab12cd34"}},
            "project": app, "sessionId": s1, "timestamp": 1772323200000}
    _write(root, "history.jsonl", _line(hist), pl, host)
    _write(root, "paste-cache/ab12cd34.txt", b"pasted words\n", pl, host)
    _write(root, f"{p_app}/sessions-index.json", json.dumps(
        {"version": 1, "originalPath": app, "entries": [{"sessionId": s1, "fullPath": f"{USER_HOME}/x.jsonl"}]}).encode(),
        pl, host)
    _write(root, f"{p_app}/memory/MEMORY.md", b"# memory\nuse tabs\n", pl, host)

    # ---- noise: not transcripts
    for rel, data in (("sessions/4242.json", json.dumps({"pid": 4242, "sessionId": s1, "cwd": app}).encode()),
                      ("shell-snapshots/snapshot-zsh-1.sh", b"alias ll='ls -l'\n"),
                      ("debug/trace.txt", b"debug words\n"),
                      ("todos/x.json", b"[]"), ("backups/settings.json.bak", b"{}")):
        _write(root, rel, data)
        pl.noise.add(rel)
    return pl


# ============================================================== Codex


class _Codex:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.clock = 0

    def ts(self) -> str:
        self.clock += self.rng.randint(1, 40)
        s = self.clock
        return f"2026-01-02T{s // 3600 % 24:02d}:{s // 60 % 60:02d}:{s % 60:02d}.{s % 1000:03d}Z"

    def meta(self, tid: str, cwd: str, root_tid: str | None = None, **extra: Any) -> dict[str, Any]:
        payload = {"id": tid, "session_id": root_tid or tid, "timestamp": self.ts(), "cwd": cwd,
                   "originator": "codex_cli_rs", "cli_version": "0.164.0", "source": "cli", "thread_source": "user",
                   "model_provider": "openai", "base_instructions": {"text": "You are a coding agent."}}
        payload.update(extra)
        return {"timestamp": self.ts(), "type": "session_meta", "payload": payload}

    def turn(self, n: int = 1) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for _ in range(n):
            turn_id = f"turn-{self.rng.getrandbits(32):08x}"
            out += [
                {"timestamp": self.ts(), "type": "event_msg", "payload": {"type": "task_started", "turn_id": turn_id}},
                {"timestamp": self.ts(), "type": "response_item", "payload": {
                    "type": "message", "role": "user", "content": [{"type": "input_text", "text": _text(self.rng)}]},
                 "metadata": {"client_authored": True}},
                {"timestamp": self.ts(), "type": "response_item", "payload": {
                    "type": "function_call", "name": "shell", "call_id": f"call_{self.rng.getrandbits(32):x}",
                    "arguments": json.dumps({"command": ["ls"]})}},
                {"timestamp": self.ts(), "type": "response_item", "payload": {
                    "type": "message", "role": "assistant", "content": [{"type": "output_text",
                                                                         "text": _text(self.rng, 8)}]}},
                {"timestamp": self.ts(), "type": "event_msg", "payload": {"type": "task_complete", "turn_id": turn_id}},
            ]
        return out


def _number(recs: list[dict[str, Any]], start: int) -> list[dict[str, Any]]:
    """Paginated: a dense ordinal per line, after timestamp (envelope order)."""
    return [{"timestamp": r["timestamp"], "ordinal": start + i, **{k: v for k, v in r.items() if k != "timestamp"}}
            for i, r in enumerate(recs)]


def rollout_name(ts: str, tid: str, rid: str | None = None) -> str:
    return f"rollout-{ts}-{tid}{'_' + rid if rid else ''}.jsonl"


STATE_SCHEMA = """
CREATE TABLE _sqlx_migrations (version INTEGER PRIMARY KEY, description TEXT, checksum BLOB);
CREATE TABLE threads (id TEXT PRIMARY KEY, rollout_path TEXT, created_at INTEGER, updated_at INTEGER,
    source TEXT, model_provider TEXT, cwd TEXT, title TEXT, name TEXT, archived INTEGER DEFAULT 0,
    cli_version TEXT, history_mode TEXT);
CREATE TABLE thread_spawn_edges (parent_thread_id TEXT, child_thread_id TEXT PRIMARY KEY, status TEXT);
CREATE TABLE thread_dynamic_tools (thread_id TEXT, position INTEGER, name TEXT);
"""


def build_codex(root: Path, rng: random.Random) -> Planted:
    """A Codex root (what ~/.codex or CODEX_HOME holds) exercising the seed's layout and lineage."""
    pl = Planted(root=root)
    c = _Codex(rng)
    cwd = f"{USER_HOME}/work/api"
    t = {n: str(uuid.UUID(int=rng.getrandbits(128), version=4)) for n in
         ("T1", "T2", "T3", "T4", "T5", "T6", "T7", "T8", "T9", "T10")}
    r1 = str(uuid.UUID(int=rng.getrandbits(128), version=4))
    key = {n: f"codex:{v}" for n, v in t.items()}
    key["R1"] = f"codex:{t['T4']}_{r1}"
    day = "sessions/2026/01/02"
    paths: dict[str, str] = {}

    def put(name: str, rel: str, recs: list[bytes], torn: bytes = b"", compress: int = 0) -> None:
        body = b"".join(recs)
        if compress:
            cut = len(recs) // compress
            frames = [b"".join(recs[i * cut:(i + 1) * cut if i < compress - 1 else None]) for i in range(compress)]
            data = b"".join(zstandard.ZstdCompressor(level=3).compress(f) for f in frames)
            _write(root, rel, data, pl, key[name], expected=body)
        else:
            _write(root, rel, body + torn, pl, key[name], expected=body)
        paths[name] = rel

    # T1: paginated root; an unknown record type, unknown fields, a bad line mid-file, a long line, a torn tail
    recs = [c.meta(t["T1"], cwd, history_mode="paginated", future_meta_field=[1, 2])] + c.turn(2)
    recs.append({"timestamp": c.ts(), "type": "some_future_item", "payload": {"type": "x", "words": _text(rng)}})
    recs.append({"timestamp": c.ts(), "type": "response_item", "payload": {
        "type": "message", "role": "user", "content": [{"type": "input_image", "image_url":
                                                        "data:image/png;base64," + base64.b64encode(_png(rng, 1_500_000)).decode()}]}})
    recs += c.turn(1)
    lines = [_line(r) for r in _number(recs, 0)]
    lines.insert(4, b'{"timestamp":"2026-01-02T00:00:09.000Z","ordinal":4,"type":"event_msg","payl\n')
    t1_name = rollout_name("2026-01-02T10-00-00", t["T1"])
    put("T1", f"{day}/{t1_name}", lines, torn=b'{"timestamp":"2026-01-02T11:00:00.000Z","ordinal":99,"ty')
    t1_len = len(recs)

    # T2 subagent of T1, T3 subagent of T2 (session_id = root T1 for the whole tree)
    for child, parent, depth in (("T2", "T1", 1), ("T3", "T2", 2)):
        spawn = {"thread_spawn": {"parent_thread_id": t[parent], "depth": depth, "agent_path": f"/{child.lower()}",
                                  "agent_nickname": child.lower(), "agent_role": "worker"}}
        recs_c = [c.meta(t[child], cwd, t["T1"], history_mode="paginated", source={"subagent": spawn},
                         parent_thread_id=t[parent], thread_source="subagent", agent_role="worker")] + c.turn(1)
        put(child, f"{day}/{rollout_name('2026-01-02T10-05-0' + str(depth), t[child])}", [_line(r) for r in _number(recs_c, 0)])
        pl.edges.add((key[child], key[parent], "subagent"))

    # T10: a review sub-agent ({"subagent":"review"}) known only through state_5 thread_spawn_edges
    recs_r = [c.meta(t["T10"], cwd, t["T1"], history_mode="paginated", source={"subagent": "review"})] + c.turn(1)
    put("T10", f"{day}/{rollout_name('2026-01-02T10-06-00', t['T10'])}", [_line(r) for r in _number(recs_r, 0)])
    pl.edges.add((key["T10"], key["T1"], "subagent"))

    def paginated_fork(name: str, src_rollout: str, src_thread: str, end: int, when: str) -> None:
        m = c.meta(t[name], cwd, history_mode="paginated", forked_from_id=src_thread, forked_from_ordinal_exclusive=end,
                   history_base={"thread_id": src_rollout, "end_ordinal_exclusive": end, "end_byte_offset": 1000})
        put(name, f"{day}/{rollout_name(when, t[name])}", [_line(r) for r in _number([m] + c.turn(1), end)])

    paginated_fork("T4", t["T1"], t["T1"], 6, "2026-01-02T10-10-00")  # fork of T1
    paginated_fork("T5", t["T4"], t["T4"], 7, "2026-01-02T10-11-00")  # fork of a fork
    # thread/revert of the fork T4: a new rollout <T4>_<r1> whose history_base keeps a prefix of T4
    mr = c.meta(t["T4"], cwd, history_mode="paginated", forked_from_id=t["T1"],
                history_base={"thread_id": t["T4"], "end_ordinal_exclusive": 7, "end_byte_offset": 900})
    put("R1", f"{day}/{rollout_name('2026-01-02T10-12-00', t['T4'], r1)}", [_line(r) for r in _number([mr] + c.turn(1), 7)])
    pl.edges |= {(key["T4"], key["T1"], "fork"), (key["T5"], key["T4"], "fork"), (key["R1"], key["T4"], "revert")}
    # T6: fork of T4 taken after the revert: its prefix is the revert rollout r1
    paginated_fork("T6", r1, t["T4"], 8, "2026-01-02T10-13-00")
    pl.edges.add((key["T6"], key["R1"], "fork"))

    # T7: legacy fork of T1, the parent's records (its session_meta too) copied in after its own
    parent_copy = [_line(r) for r in recs[:4]]
    put("T7", f"{day}/{rollout_name('2026-01-02T10-14-00', t['T7'])}",
        [_line(c.meta(t["T7"], cwd, forked_from_id=t["T1"]))] + parent_copy + [_line(r) for r in c.turn(1)])
    pl.edges.add((key["T7"], key["T1"], "fork"))

    # T8: only in archived_sessions/ (flat); T9: compressed, several zstd frames
    put("T8", f"archived_sessions/{rollout_name('2026-01-01T09-00-00', t['T8'])}",
        [_line(r) for r in _number([c.meta(t["T8"], cwd, history_mode="paginated")] + c.turn(1), 0)])
    put("T9", f"sessions/2025/12/20/{rollout_name('2025-12-20T08-00-00', t['T9'])}.zst",
        [_line(r) for r in _number([c.meta(t["T9"], cwd, history_mode="paginated")] + c.turn(3), 0)], compress=3)

    # state_5.sqlite: every thread, the spawn edges, the current rollout of T4 = the revert's
    db = root / "state_5.sqlite"
    con = sqlite3.connect(db)
    con.execute("PRAGMA journal_mode=WAL")
    con.executescript(STATE_SCHEMA)
    con.execute("INSERT INTO _sqlx_migrations VALUES (1, 'init', x'00')")
    current = {"T4": paths["R1"]}
    for n in t:
        title = "Audit root thread" if n == "T1" else None
        con.execute("INSERT INTO threads (id, rollout_path, created_at, updated_at, source, model_provider, cwd, title,"
                    " name, archived, cli_version, history_mode) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                    (t[n], f"{USER_HOME}/.codex/{current.get(n, paths[n])}", 1767340800, 1767340900, "cli", "openai",
                     cwd, title, None, 1 if n == "T8" else 0, "0.164.0", "paginated"))
        pl.add(key[n], f"archiver-extracts/state_5/{t[n]}.sqlite")
    for child, parent in (("T2", "T1"), ("T3", "T2"), ("T10", "T1")):
        con.execute("INSERT INTO thread_spawn_edges VALUES (?,?,?)", (t[parent], t[child], "closed"))
    con.execute("INSERT INTO thread_dynamic_tools VALUES (?,?,?)", (t["T1"], 0, "lookup"))
    con.commit()
    con.close()
    hist = sqlite3.connect(root / "thread_history_1.sqlite")
    hist.executescript("CREATE TABLE thread_turns (thread_id TEXT, turn_id TEXT, rollout_ordinal INTEGER, status TEXT);")
    hist.execute("INSERT INTO thread_turns VALUES (?,?,?,?)", (t["T1"], "turn-1", 1, "completed"))
    hist.commit()
    hist.close()
    pl.add(key["T1"], f"archiver-extracts/thread_history_1/{t['T1']}.sqlite")

    # session_index.jsonl: the last entry for an id wins
    index = [{"id": t["T1"], "thread_name": "first name", "updated_at": "2026-01-02T10:00:00Z"},
             {"id": t["T5"], "thread_name": "Fork of a fork", "updated_at": "2026-01-02T10:11:00Z"},
             {"id": t["T1"], "thread_name": "Audit root thread", "updated_at": "2026-01-02T10:20:00Z"}]
    _write(root, "session_index.jsonl", b"".join(_line(r) for r in index))
    pl.titles |= {key["T1"]: "Audit root thread", key["T5"]: "Fork of a fork"}
    pl.add(key["T1"], f"archiver-extracts/session_index/{t['T1']}.jsonl")
    pl.add(key["T5"], f"archiver-extracts/session_index/{t['T5']}.jsonl")

    # per-thread sidecars, host files, noise
    _write(root, f"shell_snapshots/{t['T1']}.1767340800.sh", b"export PATH=/usr/bin\n", pl, key["T1"])
    _write(root, f"generated_images/{t['T1']}/call_img1.png", _png(rng, 300), pl, key["T1"])
    _write(root, "history.jsonl", _line({"session_id": t["T1"], "ts": 1767340800, "text": "list files"}), pl,
           "codex:@host")
    for db_name in ("logs_2.sqlite", "goals_1.sqlite", "memories_1.sqlite", "queue_1.sqlite"):
        x = sqlite3.connect(root / db_name)
        x.execute("CREATE TABLE t (thread_id TEXT, v TEXT)")
        x.execute("INSERT INTO t VALUES (?, ?)", (t["T1"], "words"))
        x.commit()
        x.close()
        pl.add("codex:@host", db_name)
    for rel in (f"rollout-migrations/{t['T1']}.pending", f"thread-writer-locks/{t['T1']}.lock"):
        _write(root, rel, b"")
        pl.noise.add(rel)
    return pl


def replace_home(data: bytes, old: str, new: str) -> bytes:
    """`old` home (and its project-key form) replaced by `new` in bytes."""
    out = data.replace(old.encode(), new.encode())
    return out.replace(project_key(old).encode() + b"-", project_key(new).encode() + b"-")


def relocated_rel(rel: str, old: str, new: str) -> str:
    """A planted path with a project key of `old` renamed for `new`."""
    return rel.replace(f"/{project_key(old)}-", f"/{project_key(new)}-")
