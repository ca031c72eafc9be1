"""Seed-conformance homes for pi, the DeepSeek harness, OpenCode and Cursor agent, written from the
seeds alone (/work/shared/seeds/by-harness/{pi,opencode,cursor-agent}.json, /work/shared/seeds/003_*.txt),
not from the other fixtures.

`build_pi`, `build_deepseek`, `build_opencode` and `build_cursor` plant one harness root each and return
a `Planted` (tests/fx_s25_seeds.py): every session key with the files (relative to the root) the
seeds say belong to it, every lineage edge the seeds define, the noise that is no session.

Private data: the user's home `/home/alice` in cwds and paths, and one `Secret` per session
(an e-mail, a GitHub token, an AWS key id, a home path) planted in every kind of field.

Import explicitly:  from tests.fx_s26_seeds import build_pi, build_deepseek, build_opencode, build_cursor, Secrets
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import json
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.fx_s25_seeds import USER_HOME, Planted, _line, _text, _uuid, _write


@dataclass
class Secrets:
    """Private values planted in the homes; none may reach the store in clear."""
    values: list[str] = field(default_factory=list)
    markers: list[str] = field(default_factory=list)  # public words beside each, that must survive
    where: list[str] = field(default_factory=list)  # what each marker's field is

    def new(self, where: str) -> str:
        n = len(self.markers)
        h = hashlib.sha256(f"{where}{n}".encode()).hexdigest()
        marker = f"SEEDMARK{n:03d}Q"
        token = "ghp_" + "".join(c for c in (h + h.upper()) if c.isalnum())[:36]
        aws = "AKIA" + "".join("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"[int(h[i:i + 2], 16) % 32] for i in range(0, 32, 2))
        mail = f"dev.{marker.lower()}@mailbox-corp.io"
        path = f"{USER_HOME}/src/{marker.lower()}/notes.md"
        self.values += [token, aws, mail, path]
        self.markers.append(marker)
        self.where.append(where)
        return f"{marker} see {path} or mail {mail} token {token} aws {aws}"


# ============================================================== pi


def pi_folder(cwd: str) -> str:
    """Seed: `--<cwd with leading separator removed and / \\ : replaced by ->--`."""
    return "--" + cwd.lstrip("/\\").replace("/", "-").replace("\\", "-").replace(":", "-") + "--"


class _Pi:
    def __init__(self, rng: random.Random, secrets: Secrets) -> None:
        self.rng, self.s, self.clock = rng, secrets, 1767261600

    def ts(self) -> tuple[str, int]:
        self.clock += self.rng.randint(1, 30)
        s = self.clock
        return f"2026-01-01T{s // 3600 % 24:02d}:{s // 60 % 60:02d}:{s % 60:02d}.{s % 1000:03d}Z", s * 1000

    def eid(self) -> str:
        return f"{self.rng.getrandbits(32):08x}"

    def header(self, sid: str, cwd: str, parent: str | None = None, version: int | None = 3) -> dict[str, Any]:
        h: dict[str, Any] = {"type": "session"}
        if version is not None:
            h["version"] = version
        h |= {"id": sid, "timestamp": self.ts()[0], "cwd": cwd}
        if parent is not None:
            h["parentSession"] = parent
        return h

    def entry(self, parent: str | None, type_: str, **body: Any) -> dict[str, Any]:
        iso, _ms = self.ts()
        return {"type": type_, "id": self.eid(), "parentId": parent, "timestamp": iso, **body}

    def msg(self, parent: str | None, role: str, **body: Any) -> dict[str, Any]:
        return self.entry(parent, "message", message={"role": role, **body, "timestamp": self.ts()[1]})


def build_pi(agent: Path, tmp: Path, rng: random.Random, secrets: Secrets,
             custom_dir: Path | None = None) -> Planted:
    """A pi agent dir (~/.pi/agent or PI_CODING_AGENT_DIR): every entry kind of the seed on a
    tree with branches, every fork shape, the three format versions, temp sidecars, a flat custom
    session dir. Files are keyed by their path relative to `agent` (`custom:`-prefixed for the
    custom dir, `tmp:` for temp files)."""
    pl = Planted(root=agent)
    p = _Pi(rng, secrets)
    app, lib = f"{USER_HOME}/work/app", f"{USER_HOME}/work/lib:v2"
    ids = {n: _uuid(rng) for n in ("P1", "P2", "P3", "P4", "P5", "P6", "GONE", "V1", "V2", "C1")}
    key = {n: f"pi:{v}" for n, v in ids.items()}
    paths: dict[str, str] = {}

    def put(name: str, cwd: str, recs: list[dict[str, Any]], when: str) -> str:
        rel = f"sessions/{pi_folder(cwd)}/{when}_{ids[name]}.jsonl"
        _write(agent, rel, b"".join(_line(r) for r in recs), pl, key[name])
        paths[name] = str(agent / rel)
        return rel

    # ---- P1: every entry kind, a branch, a summarised branch switch, labels, temp sidecars
    log1, log2 = tmp / f"pi-bash-{rng.getrandbits(64):016x}.log", tmp / f"pi-bash-{rng.getrandbits(64):016x}.log"
    log1.write_bytes(("tool output " + secrets.new("pi fullOutput tool") + "\n").encode() * 50)
    log2.write_bytes(("bash output " + secrets.new("pi fullOutput bash") + "\n").encode() * 50)
    pl.add(key["P1"], f"tmp:{log1.name}")
    pl.add(key["P1"], f"tmp:{log2.name}")
    recs: list[dict[str, Any]] = [p.header(ids["P1"], app)]
    sysm = p.msg(None, "system", content="", sections={"preamble": "You are a coding assistant.", "cwd": app},
                 toolsAdded=[{"name": "read", "description": "Read a file", "parameters": {"type": "object"}}])
    u1 = p.msg(sysm["id"], "user", content=secrets.new("pi user string"))
    a1 = p.msg(u1["id"], "assistant", content=[
        {"type": "thinking", "thinking": secrets.new("pi thinking")},
        {"type": "text", "text": secrets.new("pi assistant text")},
        {"type": "toolCall", "id": "call_1", "name": "bash", "arguments": {"command": f"cat {USER_HOME}/.netrc"}}],
        api="anthropic-messages", provider="anthropic", model="example-model", stopReason="toolUse",
        usage={"input": 10, "output": 3, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 13})
    r1 = p.msg(a1["id"], "toolResult", toolCallId="call_1", toolName="bash", isError=False,
               content=[{"type": "text", "text": secrets.new("pi tool result")}],
               details={"fullOutputPath": str(log1), "truncation": {"truncated": True}})
    a2 = p.msg(r1["id"], "assistant", content=[{"type": "text", "text": "done " + _text(rng)}], stopReason="stop",
               api="anthropic-messages", provider="anthropic", model="example-model")
    bash = p.msg(a2["id"], "bashExecution", command=f"ls {USER_HOME}", output=secrets.new("pi bash output"),
                 exitCode=0, cancelled=False, truncated=True, fullOutputPath=str(log2))
    mc = p.entry(bash["id"], "model_change", provider="openai", modelId="example-model")
    tl = p.entry(mc["id"], "thinking_level_change", thinkingLevel="high")
    us = p.entry(tl["id"], "usage", kind="cache_warm", provider="anthropic", model="example-model",
                 usage={"input": 0, "output": 1, "cacheRead": 5, "cacheWrite": 0, "totalTokens": 6})
    cm = p.entry(us["id"], "custom_message", customType="ext", content=secrets.new("pi custom_message"), display=True)
    cu = p.entry(cm["id"], "custom", customType="ext", data={"note": secrets.new("pi custom data")})
    ce = p.entry(cu["id"], "context_edit", targetId=a1["id"], replacement=None)
    comp = p.entry(ce["id"], "compaction", summary=secrets.new("pi compaction summary"), firstKeptEntryId=u1["id"],
                   tokensBefore=120000, details={"readFiles": [f"{USER_HOME}/work/app/a.py"], "modifiedFiles": []},
                   systemMessage={"role": "system", "content": "sys", "timestamp": 1})
    # branch: back to u1, a new assistant answer; then a summarised switch whose fromId is "root"
    b1 = p.msg(u1["id"], "assistant", content=[{"type": "text", "text": "other way " + _text(rng)}], stopReason="stop")
    bs = p.entry(None, "branch_summary", fromId="root", summary=secrets.new("pi branch_summary active"))
    lab = p.entry(bs["id"], "label", targetId=u1["id"], label="checkpoint-1")
    clear = p.entry(lab["id"], "label", targetId=u1["id"])  # a label clear: no label key
    info0 = p.entry(clear["id"], "session_info", name="first name")
    u2 = p.msg(info0["id"], "user", content=[{"type": "text", "text": secrets.new("pi user blocks active")},
                                              {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}])
    info = p.entry(u2["id"], "session_info", name="Seeds pi main")
    recs += [sysm, u1, a1, r1, a2, bash, mc, tl, us, cm, cu, ce, comp, b1, bs, lab, clear, info0, u2, info]
    put("P1", app, recs, "2026-01-01T10-00-00-000Z")
    pl.titles[key["P1"]] = "Seeds pi main"
    p1_path = [sysm, u1, a1, r1, a2, bash]  # a root->leaf path of P1

    # ---- P2: /fork of P1: only the root->leaf path, labels re-emitted at the end, ids kept
    relabel = p.entry(p1_path[-1]["id"], "label", targetId=u1["id"], label="checkpoint-1")
    p2_own = p.msg(relabel["id"], "user", content="after the fork " + _text(rng))
    put("P2", app, [p.header(ids["P2"], app, paths["P1"])] + p1_path + [relabel, p2_own], "2026-01-01T11-00-00-000Z")
    # ---- P3: forkFrom(): every entry of P1 verbatim into another cwd (a colon in it)
    p3_own = p.msg(info["id"], "user", content="in lib " + _text(rng))
    put("P3", lib, [p.header(ids["P3"], lib, paths["P1"])] + recs[1:] + [p3_own], "2026-01-01T11-10-00-000Z")
    # ---- P4: /fork of the fork P2
    put("P4", app, [p.header(ids["P4"], app, paths["P2"])] + p1_path[:3] + [p.msg(p1_path[2]["id"], "user", content="x")],
        "2026-01-01T11-20-00-000Z")
    # ---- P5: newSession({parentSession}): nothing copied
    put("P5", app, [p.header(ids["P5"], app, paths["P1"]), p.msg(None, "user", content="fresh " + _text(rng))],
        "2026-01-01T11-30-00-000Z")
    # ---- P6: a fork whose source file is gone (its id read from the file name)
    gone = str(agent / "sessions" / pi_folder(app) / f"2025-12-31T09-00-00-000Z_{ids['GONE']}.jsonl")
    put("P6", app, [p.header(ids["P6"], app, gone), p.msg(None, "user", content="orphan " + _text(rng))],
        "2026-01-01T11-40-00-000Z")
    for name in ("P2", "P3"):  # their copies of P1's entries name the same temp files
        pl.add(key[name], f"tmp:{log1.name}")
        pl.add(key[name], f"tmp:{log2.name}")
    pl.edges |= {(key["P2"], key["P1"], "fork"), (key["P3"], key["P1"], "fork"), (key["P4"], key["P2"], "fork"),
                 (key["P5"], key["P1"], "fork"), (key["P6"], key["GONE"], "fork")}

    # ---- older versions: v1 (no version, no ids, firstKeptEntryIndex), v2 (hookMessage role)
    v1 = [{"type": "session", "id": ids["V1"], "timestamp": p.ts()[0], "cwd": app},
          {"type": "message", "timestamp": p.ts()[0], "message": {"role": "user", "content": secrets.new("pi v1 user"),
                                                                  "timestamp": 1}},
          {"type": "message", "timestamp": p.ts()[0], "message": {"role": "assistant", "content": [
              {"type": "text", "text": "v1 answer"}], "timestamp": 2}},
          {"type": "compaction", "timestamp": p.ts()[0], "summary": "v1 summary", "firstKeptEntryIndex": 1,
           "tokensBefore": 10}]
    put("V1", app, v1, "2025-06-01T10-00-00-000Z")
    v2u = p.msg(None, "user", content="v2 " + _text(rng))
    v2 = [p.header(ids["V2"], app, version=2), v2u,
          p.entry(v2u["id"], "message", message={"role": "hookMessage", "customType": "hook",
                                                 "content": secrets.new("pi v2 hookMessage"), "display": True,
                                                 "timestamp": 3})]
    put("V2", app, v2, "2025-07-01T10-00-00-000Z")

    # ---- a flat custom session dir, filtered by header cwd; archived at the default layout
    if custom_dir is not None:
        c1 = [p.header(ids["C1"], lib), p.msg(None, "user", content=secrets.new("pi custom dir user"))]
        name = f"2026-01-02T10-00-00-000Z_{ids['C1']}.jsonl"
        _write(custom_dir, name, b"".join(_line(r) for r in c1))
        pl.add(key["C1"], f"custom:{name}")
        pl.expected[f"custom:{name}"] = b"".join(_line(r) for r in c1)
        (custom_dir / "notes.jsonl").write_bytes(b'{"kind":"not a pi header"}\n')  # another program's file

    # ---- the agent dir's other files: none session-scoped
    for rel, data in (("settings.json", b'{"defaultProvider":"anthropic"}'), ("auth.json", b'{"anthropic":{}}'),
                      ("models.json", b"{}"), ("pi-debug.log", b"debug\n"), ("prompts/review.md", b"# review\n"),
                      ("mcp.json", b"{}")):
        _write(agent, rel, data)
        pl.noise.add(rel)
    return pl


# ============================================================== DeepSeek harness


class _Ds:
    def __init__(self, rng: random.Random, secrets: Secrets) -> None:
        self.rng, self.s, self.time = rng, secrets, 1767261600000

    def header(self, sid: str, cwd: str | None, **extra: Any) -> dict[str, Any]:
        h: dict[str, Any] = {"type": "session", "version": 3, "id": sid, "createdAt": self.time, "isSeeded": False,
                             "delegationDepth": 0}
        if cwd is not None:
            h["cwd"] = cwd
        h.update(extra)
        return h

    def ev(self, seq: int, kind: str, data: Any, **extra: Any) -> dict[str, Any]:
        self.time += self.rng.randint(10, 900)
        return {"type": kind, "seq": seq, "time": self.time, "data": data, **extra}

    def turn(self, start: int, turn: int, where: str) -> list[dict[str, Any]]:
        s, n = self.s, start
        call = f"call_{self.rng.getrandbits(32):08x}"
        return [
            self.ev(n, "turn/start", {"turn": turn}),
            self.ev(n + 1, "user/message", {"id": f"u{n}", "role": "user", "source": {"kind": "user"},
                                             "content": [{"type": "text", "text": s.new(f"ds user {where}")}]},
                    surfaceOp="append"),
            self.ev(n + 2, "step/start", {"turn": turn, "step": 0}),
            self.ev(n + 3, "assistant/message", {"turn": turn, "step": 0, "stream": [], "message": {
                "id": f"a{n}", "role": "assistant", "source": {"kind": "model", "model": "deepseek-x", "provider": "ds"},
                "content": [{"type": "text", "text": s.new(f"ds assistant {where}")},
                            {"type": "tool-call", "id": call, "name": "read",
                             "arguments": json.dumps({"path": f"{USER_HOME}/work/app/main.py"})}]}},
                    surfaceOp="append"),
            self.ev(n + 4, "tool/call", {"turn": turn, "step": 0, "callId": call, "name": "read",
                                         "arguments": json.dumps({"path": f"{USER_HOME}/.ssh/config"})}),
            self.ev(n + 5, "tool/result", {"turn": turn, "step": 0, "message": {
                "id": f"t{n}", "role": "user", "source": {"kind": "tool", "callId": call},
                "content": [{"type": "tool-result", "toolCallId": call,
                             "content": [{"type": "text", "text": s.new(f"ds tool result {where}")}]}]}},
                    surfaceOp="append"),
            self.ev(n + 6, "step/end", {"turn": turn, "step": 0}),
            self.ev(n + 7, "turn/end", {"turn": turn, "reason": {"kind": "completed"}}),
        ]


def build_deepseek(root: Path, rng: random.Random, secrets: Secrets) -> Planted:
    """A DeepSeek sessions root: a main session with subagents (parentSession as id and as a path,
    and one named only by the parent's catalog), forks (declared, inferred, of a fork), a team
    lead's fresh and fork teammates, createdAt in seconds, an unknown ignorable event type."""
    pl = Planted(root=root)
    d = _Ds(rng, secrets)
    app = f"{USER_HOME}/work/app"
    ids = {n: _uuid(rng) for n in ("D1", "S1", "S2", "S3", "F1", "F2", "F3", "T1", "T2")}
    key = {n: f"deepseek-harness:{v}" for n, v in ids.items()}

    def put(name: str, rel: str, recs: list[dict[str, Any]]) -> None:
        _write(root, rel, b"".join(_line(r) for r in recs), pl, key[name])

    # D1: the lead/parent; its own records name S3 (catalog), T1/T2 (team/member)
    d1 = [d.header(ids["D1"], app)] + d.turn(1, 1, "D1")
    d1.append(d.ev(9, "session/title", {"title": "Seeds deepseek main", "source": {"kind": "user"},
                                        "messageSeqs": [2]}))
    d1.append(d.ev(10, "subagent/catalog", {"version": 0, "childId": ids["S3"], "childCreatedAt": d.time,
                                            "mode": "one-shot"}))
    for n, (t, ctx) in enumerate((("T1", "fresh"), ("T2", "fork"))):
        d1.append(d.ev(11 + n, "team/member", {"version": 2, "teamId": "team-1", "member": {
            "id": ids[t], "name": t.lower(), "description": secrets.new(f"ds team {t}"), "context": ctx,
            "phase": "running", "provider": "ds"}}))
    d1.append(d.ev(13, "future/unknown-kind", {"words": secrets.new("ds unknown event")}, ignorable=True))
    d1 += d.turn(14, 2, "D1b")
    put("D1", f"{ids['D1']}.jsonl", d1)
    pl.titles[key["D1"]] = "Seeds deepseek main"

    # S1: subagent, parentSession = id; S2: subagent, parentSession = the parent's file path, nested folder
    put("S1", f"{ids['S1']}.jsonl", [d.header(ids["S1"], app, origin="subagent", parentSession=ids["D1"],
                                               delegationDepth=1)] + d.turn(1, 1, "S1"))
    put("S2", f"sub/{ids['S2']}.jsonl", [d.header(ids["S2"], None, origin="subagent",
                                                   parentSession=str(root / f"{ids['D1']}.jsonl"),
                                                   delegationDepth=1)] + d.turn(1, 1, "S2"))
    # S3: origin subagent, no parentSession: named by D1's subagent/catalog; createdAt in seconds
    s3 = d.header(ids["S3"], app, origin="subagent", delegationDepth=1)
    s3["createdAt"] = d.time // 1000
    put("S3", f"{ids['S3']}.jsonl", [s3] + d.turn(1, 1, "S3"))
    pl.edges |= {(key["S1"], key["D1"], "subagent"), (key["S2"], key["D1"], "subagent"),
                 (key["S3"], key["D1"], "subagent")}

    # F1: fork of D1 declared by parentSession; F2: fork of D1 inferred from the prefix; F3: fork of F1
    prefix = d1[1:9]
    put("F1", f"{ids['F1']}.jsonl", [d.header(ids["F1"], app, parentSession=ids["D1"], isSeeded=True)] + prefix
        + [d.ev(9, "session/end-seed", {"inherited": True})] + d.turn(10, 2, "F1"))
    put("F2", f"{ids['F2']}.jsonl", [d.header(ids["F2"], app, isSeeded=True)] + prefix
        + [d.ev(9, "session/end-seed", {"inherited": True})] + d.turn(10, 2, "F2"))
    f1 = [json.loads(x) for x in (root / f"{ids['F1']}.jsonl").read_bytes().splitlines()[1:]]
    put("F3", f"{ids['F3']}.jsonl", [d.header(ids["F3"], app, parentSession=ids["F1"], isSeeded=True)] + f1[:17]
        + [d.ev(18, "session/end-seed", {"inherited": True})] + d.turn(19, 3, "F3"))
    pl.edges |= {(key["F1"], key["D1"], "fork"), (key["F2"], key["D1"], "fork"), (key["F3"], key["F1"], "fork")}

    # T1 fresh teammate (subagent), T2 fork teammate (fork, its own inherited cut)
    put("T1", f"team-1/{ids['T1']}.jsonl", [d.header(ids["T1"], app)] + d.turn(1, 1, "T1"))
    put("T2", f"team-1/{ids['T2']}.jsonl", [d.header(ids["T2"], app, isSeeded=True)] + prefix
        + [d.ev(9, "session/end-seed", {"inherited": True})] + d.turn(10, 2, "T2"))
    pl.edges |= {(key["T1"], key["D1"], "subagent"), (key["T2"], key["D1"], "fork")}

    _write(root, "README.txt", b"not a session\n")
    pl.noise.add("README.txt")
    return pl


# ============================================================== OpenCode

OC_SCHEMA = """
CREATE TABLE migration (id TEXT PRIMARY KEY, time_applied INTEGER);
CREATE TABLE project (id TEXT PRIMARY KEY, worktree TEXT, vcs TEXT, time_created INTEGER, time_updated INTEGER);
CREATE TABLE session_v2 (id TEXT PRIMARY KEY, project_id TEXT, workspace_id TEXT, parent_id TEXT, fork_session_id TEXT,
    fork_boundary TEXT, slug TEXT, directory TEXT, path TEXT, title TEXT, version TEXT, share_url TEXT, metadata TEXT,
    cost REAL, tokens_input INTEGER, tokens_output INTEGER, revert TEXT, permission TEXT, agent TEXT, model TEXT,
    time_created INTEGER, time_updated INTEGER, time_idle INTEGER, idle_outcome TEXT, time_archived INTEGER);
CREATE TABLE session_message (id TEXT PRIMARY KEY, session_id TEXT REFERENCES session_v2(id) ON DELETE CASCADE,
    type TEXT, seq INTEGER, time_created INTEGER, time_updated INTEGER, data TEXT);
CREATE TABLE session_inbox (id TEXT PRIMARY KEY, session_id TEXT, type TEXT, payload TEXT, delivery TEXT,
    enqueued_seq INTEGER, time_created INTEGER);
CREATE TABLE instruction_entry (session_id TEXT, key TEXT, value TEXT, removed INTEGER, PRIMARY KEY (session_id, key));
CREATE TABLE instruction_state (session_id TEXT PRIMARY KEY, epoch_start INTEGER, through_seq INTEGER,
    initial_values TEXT, current_values TEXT);
CREATE TABLE instruction_blob (hash TEXT PRIMARY KEY, value TEXT);
CREATE TABLE event (id TEXT PRIMARY KEY, aggregate_id TEXT, seq INTEGER, created INTEGER, type TEXT, data TEXT);
CREATE TABLE event_sequence (aggregate_id TEXT PRIMARY KEY, seq INTEGER, owner_id TEXT);
CREATE TABLE kv (key TEXT PRIMARY KEY, value TEXT, time_created INTEGER, time_updated INTEGER);
CREATE TABLE permission (id TEXT PRIMARY KEY, data TEXT);
CREATE TABLE credential (id TEXT PRIMARY KEY, data TEXT);
"""
OC_V1_SCHEMA = """
CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT, parent_id TEXT, slug TEXT, directory TEXT, title TEXT,
    version TEXT, time_created INTEGER, time_updated INTEGER);
CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT, time_created INTEGER, time_updated INTEGER, data TEXT);
CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT, session_id TEXT, time_created INTEGER, time_updated INTEGER,
    data TEXT);
"""
B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


@dataclass
class OcPlanted(Planted):
    # session key -> (database file name, number of session_message rows, directory)
    rows: dict[str, tuple[str, int, str]] = field(default_factory=dict)
    project_worktree: str = ""
    snapshot_dir: str = ""  # relative to the data dir


def _oc_id(rng: random.Random, prefix: str, n: int = 26) -> str:
    return prefix + "".join(rng.choice(B62) for _ in range(n))


def build_opencode(data: Path, rng: random.Random, secrets: Secrets) -> OcPlanted:
    """An OpenCode data dir (XDG_DATA_HOME/opencode): opencode.db (WAL) with a main session, a
    subagent, a fork (through) and a fork of it (before), a compaction, a staged revert, an
    in-flight step, tool-output and shell sidecars, a snapshot git dir, untouched 1.x tables of
    the imported session, the kv import marker; opencode-next.db and a channel database with one
    session each; the 1.x storage/ remnant."""
    import subprocess

    pl = OcPlanted(root=data)
    data.mkdir(parents=True, exist_ok=True)
    app = f"{USER_HOME}/work/app"
    pl.project_worktree = app
    prj = "prj_" + hashlib.sha1(b"root-commit").hexdigest()[:16]
    ids = {n: _oc_id(rng, "ses_") for n in ("M", "SUB", "F1", "F2", "NEXT", "CHAN")}
    key = {n: f"opencode:{v}" for n, v in ids.items()}
    clock = [1767261600000]

    def now() -> int:
        clock[0] += rng.randint(100, 5000)
        return clock[0]

    def mid() -> str:
        return f"msg_{clock[0]:012x}{''.join(rng.choice(B62) for _ in range(14))}"

    # sidecars: a tool-output file (named by metadata.outputPath and the inline marker), a shell capture
    tool_out = f"tool_{''.join(rng.choice(B62) for _ in range(26))}"
    _write(data, f"tool-output/{tool_out}", ("full output " + secrets.new("oc tool-output file") + "\n").encode() * 40,
           pl, key["M"])
    sh_id = _oc_id(rng, "sh_")
    _write(data, f"shell/{prj}/{sh_id}.out", ("shell capture " + secrets.new("oc shell file") + "\n").encode(),
           pl, key["M"])
    # a snapshot git dir named by the SHA-1 of the worktree, holding one tree
    snap = f"snapshot/{prj}/{hashlib.sha1(app.encode()).hexdigest()}"
    pl.snapshot_dir = snap
    (data / snap).mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "--bare", str(data / snap)], check=True)
    env = {"GIT_DIR": str(data / snap), "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    blob = subprocess.run(["git", "hash-object", "-w", "--stdin"], input=b"print('snap')\n", env=env,
                          capture_output=True, check=True).stdout.decode().strip()
    tree = subprocess.run(["git", "mktree"], input=f"100644 blob {blob}\tmain.py\n".encode(), env=env,
                          capture_output=True, check=True).stdout.decode().strip()

    def rows_main(sid: str) -> list[tuple[str, str, int, dict[str, Any]]]:
        call_sub, call_sh = f"call_{rng.getrandbits(40):x}", f"call_{rng.getrandbits(40):x}"
        t = now()
        return [
            (mid(), "system", 1, {"text": "You are opencode.", "time": {"created": t}}),
            (mid(), "user", 3, {"text": secrets.new("oc user text"), "time": {"created": now()},
                                "files": [{"data": base64_text(secrets.new("oc user file")), "mime": "text/plain",
                                           "source": {"type": "inline"}, "name": "notes.txt"}],
                                "agents": [{"name": "explore", "mention": {"start": 0, "end": 8, "text": "@explore"}}]}),
            (mid(), "assistant", 6, {"agent": "build", "model": {"id": "m", "providerID": "p"}, "finish": "tool-calls",
                                     "snapshot": {"start": tree, "end": tree, "files": [f"{app}/main.py"]},
                                     "content": [
                                         {"type": "reasoning", "text": secrets.new("oc reasoning")},
                                         {"type": "text", "text": secrets.new("oc assistant text")},
                                         {"type": "tool", "id": call_sh, "name": "shell", "executed": True, "state": {
                                             "status": "completed", "input": {"command": f"cat {USER_HOME}/.aws/config"},
                                             "content": [{"type": "text", "text": secrets.new("oc tool result") +
                                                          f"\n...truncated, full output in tool-output/{tool_out}"}],
                                             "metadata": {"truncated": True,
                                                          "outputPath": str(data / "tool-output" / tool_out)}}},
                                         {"type": "tool", "id": call_sub, "name": "task", "executed": True, "state": {
                                             "status": "completed", "input": {"description": "scan", "prompt": "look"},
                                             "content": [{"type": "text", "text": f"task_id: {ids['SUB']}"}],
                                             "metadata": {"sessionId": ids["SUB"]}}}],
                                     "tokens": {"input": 1, "output": 2, "reasoning": 0, "cache": {"read": 0, "write": 0}},
                                     "time": {"created": now(), "completed": now()}}),
            (mid(), "shell", 9, {"shellID": sh_id, "command": "make test", "status": "exited", "exit": 0,
                                 "output": {"output": secrets.new("oc shell row"), "cursor": 10, "size": 10,
                                            "truncated": True}, "time": {"created": now(), "completed": now()}}),
            (mid(), "synthetic", 10, {"text": f'<subagent sessionID="{ids["SUB"]}" state="completed">done</subagent>',
                                      "description": "scan", "time": {"created": now()},
                                      "metadata": {"source": "subagent", "childID": ids["SUB"], "agent": "explore",
                                                   "state": "completed"}}),
            (mid(), "idle", 11, {"outcome": "succeeded", "time": {"created": now()}}),
            (mid(), "compaction", 14, {"status": "completed", "reason": "auto", "summary": secrets.new("oc compaction"),
                                       "metadata": {"keepID": "msg_x"}, "time": {"created": now()}}),
            (mid(), "model-switched", 15, {"model": {"id": "m2", "providerID": "p"}, "previous": {"id": "m"},
                                           "time": {"created": now()}}),
            (mid(), "user", 17, {"text": secrets.new("oc user second"), "time": {"created": now()}}),
            (mid(), "assistant", 18, {"agent": "build", "model": {"id": "m2", "providerID": "p"},  # in flight
                                      "content": [{"type": "text", "text": "partial " + _text(rng)}],
                                      "time": {"created": now()}}),
        ]

    db = data / "opencode.db"
    con = sqlite3.connect(db)
    con.execute("PRAGMA journal_mode=WAL")
    con.executescript(OC_SCHEMA + OC_V1_SCHEMA)
    con.execute("INSERT INTO migration VALUES ('20260804233008_loose_psylocke', 1)")
    con.execute("INSERT INTO project VALUES (?,?,?,?,?)", (prj, app, "git", clock[0], clock[0]))
    con.execute("INSERT INTO kv VALUES ('migration.v1-v2', '{\"done\":true}', 1, 1)")
    con.execute("INSERT INTO credential VALUES ('c1', ?)", (json.dumps({"token": secrets.new("oc credential")}),))

    def session(con: sqlite3.Connection, name: str, rows: list[tuple[str, str, int, dict[str, Any]]], dbname: str,
                directory: str = app, **cols: Any) -> None:
        base_cols = {"id": ids[name], "project_id": prj, "slug": "quiet-river", "directory": directory,
                     "title": cols.pop("title", None), "version": "2.1.4", "agent": "build",
                     "model": json.dumps({"id": "m", "providerID": "p"}), "time_created": now(),
                     "time_updated": now(), "metadata": json.dumps({"host": "cli"})}
        base_cols.update(cols)
        con.execute(f"INSERT INTO session_v2 ({','.join(base_cols)}) VALUES ({','.join('?' * len(base_cols))})",
                    tuple(base_cols.values()))
        for rid, typ, seq, d in rows:
            tc = d.get("time", {}).get("created", clock[0])
            con.execute("INSERT INTO session_message VALUES (?,?,?,?,?,?,?)",
                        (rid, ids[name], typ, seq, tc, tc, json.dumps(d)))
        con.execute("INSERT INTO event_sequence VALUES (?,?,NULL)", (ids[name], max(r[2] for r in rows)))
        pl.rows[key[name]] = (dbname, len(rows), directory)

    m_rows = rows_main(ids["M"])
    session(con, "M", m_rows, "opencode.db", title="Seeds opencode main",
            revert=json.dumps({"messageID": m_rows[-2][0], "snapshot": tree}))
    pl.titles[key["M"]] = "Seeds opencode main"
    con.execute("INSERT INTO instruction_entry VALUES (?,?,?,0)", (ids["M"], "project/agents.md",
                                                                    json.dumps(secrets.new("oc instruction"))))
    con.execute("INSERT INTO session_inbox VALUES (?,?,?,?,?,?,?)", (_oc_id(rng, "inb_"), ids["M"], "prompt",
                                                                      json.dumps({"text": secrets.new("oc inbox")}),
                                                                      "queued", 12, now()))
    sub_rows = [(mid(), "user", 1, {"text": "look " + _text(rng), "time": {"created": now()}}),
                (mid(), "assistant", 2, {"agent": "explore", "content": [{"type": "text", "text": secrets.new("oc sub")}],
                                         "finish": "stop", "time": {"created": now(), "completed": now()}})]
    session(con, "SUB", sub_rows, "opencode.db", parent_id=ids["M"])
    # F1: fork through the 3rd row; copies get ids msg_<forkEventSuffix>_<seq> and the same seq
    evt = "".join(rng.choice(B62) for _ in range(26))
    f1_rows = [(f"msg_{evt}_{seq}", typ, seq, d) for _rid, typ, seq, d in m_rows[:3]]
    f1_rows.append((mid(), "user", 20, {"text": "in the fork " + _text(rng), "time": {"created": now()}}))
    session(con, "F1", f1_rows, "opencode.db", fork_session_id=ids["M"],
            fork_boundary=json.dumps({"type": "through", "messageID": m_rows[2][0]}))
    evt2 = "".join(rng.choice(B62) for _ in range(26))
    f2_rows = [(f"msg_{evt2}_{seq}", typ, seq, d) for _rid, typ, seq, d in f1_rows[:2]]
    f2_rows.append((mid(), "user", 21, {"text": "fork of fork " + _text(rng), "time": {"created": now()}}))
    session(con, "F2", f2_rows, "opencode.db", fork_session_id=ids["F1"],
            fork_boundary=json.dumps({"type": "before", "messageID": f1_rows[2][0]}))
    pl.edges |= {(key["SUB"], key["M"], "subagent"), (key["F1"], key["M"], "fork"), (key["F2"], key["F1"], "fork")}
    # the untouched 1.x rows of the imported main session: stale copies, no session of their own
    con.execute("INSERT INTO session VALUES (?,?,NULL,?,?,?,?,?,?)", (ids["M"], prj, "quiet-river", app, "old title",
                                                                      "1.9.0", 1, 1))
    con.execute("INSERT INTO message VALUES (?,?,1,1,?)", ("msg_old1", ids["M"], json.dumps(
        {"role": "user", "time": {"created": 1}, "agent": "build", "model": {"providerID": "p", "modelID": "m"}})))
    con.execute("INSERT INTO part VALUES (?,?,?,1,1,?)", ("prt_old1", "msg_old1", ids["M"],
                                                          json.dumps({"type": "text", "text": secrets.new("oc 1.x part")})))
    con.commit()
    con.close()
    for name in ("M", "SUB", "F1", "F2"):
        pl.add(key[name], "opencode.db")
    pl.add(key["F1"], f"tool-output/{tool_out}")  # its copy of the assistant row names it

    # opencode-next.db (pre-release import source) and a channel database, one session each
    for name, dbname in (("NEXT", "opencode-next.db"), ("CHAN", "opencode-beta.db")):
        c2 = sqlite3.connect(data / dbname)
        c2.execute("PRAGMA journal_mode=WAL")
        c2.executescript(OC_SCHEMA)
        c2.execute("INSERT INTO project VALUES (?,?,?,?,?)", (prj, app, "git", 1, 1))
        session(c2, name, [(mid(), "user", 1, {"text": secrets.new(f"oc user {dbname}"), "time": {"created": now()}})],
                dbname)
        c2.commit()
        c2.close()
        pl.add(key[name], dbname)

    # the 1.x storage/ remnant (migration marker, session_diff)
    _write(data, "storage/migration", b"2")
    _write(data, f"storage/session_diff/{ids['M']}.json", b"[]")
    return pl


def base64_text(text: str) -> str:
    import base64

    return base64.b64encode(text.encode()).decode()


# ============================================================== Cursor agent


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        b, n = n & 0x7F, n >> 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def pb(*fields: tuple[int, Any]) -> bytes:
    """A protobuf message: (field number, int | bytes | str | list of those | dict map)."""
    out = bytearray()
    for num, val in fields:
        vals = val if isinstance(val, list) else [val]
        for v in vals:
            if isinstance(v, dict):  # a map: one entry message {1: key, 2: value} each
                for k, mv in v.items():
                    entry = pb((1, k), (2, mv))
                    out += _varint(num << 3 | 2) + _varint(len(entry)) + entry
                continue
            if isinstance(v, bool) or isinstance(v, int):
                out += _varint(num << 3) + _varint(int(v))
                continue
            data = v.encode() if isinstance(v, str) else v
            out += _varint(num << 3 | 2) + _varint(len(data)) + data
    return bytes(out)


def md5_folder(cwd: str) -> str:
    return hashlib.md5(cwd.encode()).hexdigest()


def cursor_slug(cwd: str) -> str:
    import re

    return re.sub(r"[^A-Za-z0-9]+", "-", cwd).strip("-")


class _Store:
    """One store.db: blobs by sha256, meta '0' as hex JSON."""

    def __init__(self) -> None:
        self.blobs: dict[str, bytes] = {}

    def put(self, data: bytes) -> bytes:
        h = hashlib.sha256(data).digest()
        self.blobs[h.hex()] = data
        return h

    def js(self, doc: dict[str, Any]) -> bytes:
        return self.put(json.dumps(doc, separators=(",", ":")).encode())

    def write(self, folder: Path, meta: dict[str, Any]) -> Path:
        folder.mkdir(parents=True, exist_ok=True)
        con = sqlite3.connect(folder / "store.db")
        con.execute("PRAGMA journal_mode=WAL")
        con.execute("PRAGMA user_version=1")
        con.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
        con.execute("CREATE TABLE blobs (id TEXT PRIMARY KEY, data BLOB)")
        con.execute("INSERT INTO meta VALUES ('0', ?)", (json.dumps(meta).encode().hex(),))
        con.executemany("INSERT INTO blobs VALUES (?, ?)", sorted(self.blobs.items()))
        con.commit()
        con.close()
        return folder / "store.db"


def build_cursor(root: Path, rng: random.Random, secrets: Secrets) -> Planted:
    """A Cursor agent config dir (~/.cursor): a chat with every root field that names blobs or
    paths (prompt messages, turns, a rewind anchor, a compaction archive, file snapshots, inline and
    out-of-line subagents with their runs, the removed field 2), its sidecars (meta.json,
    prompt_history.json), JSONL mirrors (nested, subagent, legacy flat), a terminals/ file a
    shell result names; a /fork copy; a subagent with its own store; an acp session; a chat with
    no checkpoint and no meta.json; a mirror whose chat folder was deleted; the global history."""
    pl = Planted(root=root)
    app = f"{USER_HOME}/work/app"
    md5, slug = md5_folder(app), cursor_slug(app)
    ids = {n: _uuid(rng) for n in ("C1", "FORK", "OWN", "ACP", "EMPTY", "GONE", "SA", "SB")}
    key = {n: f"cursor-agent:{v}" for n, v in ids.items()}
    st = _Store()
    tool_read, tool_shell, tool_task = (f"tool_{_uuid(rng)}" for _ in range(3))
    term = f"{USER_HOME}/.cursor/projects/{slug}/terminals/1.txt"
    req = _uuid(rng)

    def user_json(text: str, request: str) -> bytes:
        return st.js({"role": "user", "content": [{"type": "text", "text": f"<user_query>\n{text}\n</user_query>"}],
                      "providerOptions": {"cursor": {"requestId": request}}})

    sys_m = st.js({"role": "system", "content": "You are an AI coding assistant."})
    info_m = st.js({"role": "user", "content": f"<user_info>OS linux, workspace {app}</user_info>"})
    first_text = secrets.new("cursor user query")
    u1 = user_json(first_text, req)
    a1 = st.js({"role": "assistant", "id": "1", "content": [
        {"type": "redacted-reasoning", "data": "ZXhhbXBsZQ=="},
        {"type": "text", "text": secrets.new("cursor assistant text")},
        {"type": "tool-call", "toolCallId": tool_read, "toolName": "Read", "args": {"path": f"{app}/main.py"}},
        {"type": "tool-call", "toolCallId": tool_shell, "toolName": "Shell", "args": {"command": "make"}},
        {"type": "tool-call", "toolCallId": tool_task, "toolName": "Task", "args": {"prompt": "scan"}}]})
    t1 = st.js({"role": "tool", "id": tool_read, "content": [
        {"type": "tool-result", "toolCallId": tool_read, "toolName": "Read", "result": secrets.new("cursor read result")}]})
    t2 = st.js({"role": "tool", "id": tool_shell, "content": [
        {"type": "tool-result", "toolCallId": tool_shell, "toolName": "Shell", "result": "see terminal"}],
        "providerOptions": {"cursor": {"highLevelToolCallResult": {"output": {
            "success": {"exitCode": 0}, "terminalsFolder": f"{USER_HOME}/.cursor/projects/{slug}/terminals",
            "outputLocation": {"filePath": term}}, "isError": False}}}})
    a2 = st.js({"role": "assistant", "id": "2", "content": [{"type": "text", "text": "done " + _text(rng)}]})
    # compaction: older messages archived, a summary message flagged isSummary heads the list
    old = user_json(secrets.new("cursor compacted away"), _uuid(rng))
    summ = st.js({"role": "user", "content": [{"type": "text", "text": "summary " + _text(rng)}],
                  "providerOptions": {"cursor": {"isSummary": True}}})
    archive = st.put(pb((1, [old]), (2, "summary words"), (3, 4), (4, summ)))
    # file snapshots (raw blobs, one of them JSON) and a todo
    snap_a = st.put(b"print('before')\n")
    snap_b = st.put(json.dumps({"name": "pkg", "author": secrets.new("cursor file snapshot")}).encode())
    todo = st.put(pb((1, "1"), (2, "write tests"), (3, 1)))
    # subagents: inline (field 16) and out of line (field 31), with a run for the Task call
    sa_msg = st.js({"role": "user", "content": [{"type": "text", "text": secrets.new("cursor subagent inline")}]})
    sb_msg = st.js({"role": "user", "content": [{"type": "text", "text": secrets.new("cursor subagent ref")}]})
    sa_state = pb((1, pb((1, [sa_msg]))), (2, 1767261600000), (5, "example-model"))
    sb_ref = st.put(pb((1, pb((1, [sb_msg]))), (2, 1767261600500)))
    run_state = pb((1, tool_task), (2, ids["SA"]), (4, 3))
    # the root before this turn (the rewind anchor) and the UI turn
    r0 = st.put(pb((1, [sys_m, info_m]), (22, "agent")))
    um = st.put(pb((1, first_text), (2, _uuid(rng)), (4, 1), (10, r0)))
    step_a = st.put(pb((1, pb((1, "done")))))
    step_t = st.put(pb((2, pb((1, pb((1, pb((1, f"{app}/main.py"))))))), (57, tool_read)))
    turn = st.put(pb((1, pb((1, um), (2, [step_t, step_a]), (3, req)))))
    top = st.put(pb(
        (1, [summ, sys_m, info_m, u1, a1, t1, t2, a2]), (2, b"removed-field"), (3, [todo]), (8, [turn]),
        (5, pb((1, 12000), (2, 200000))), (10, 1), (13, [archive]), (14, [pb((1, 900), (2, 1767261600000))]),
        (15, {f"{app}/main.py": pb((1, snap_a), (2, snap_a)), f"{app}/package.json": pb((1, snap_b))}),
        (16, {ids["SA"]: sa_state}), (18, [f"{app}/main.py", f"{USER_HOME}/.gitconfig"]), (22, "agent"),
        (27, "Europe/Paris"), (30, {tool_task: run_state}), (31, {ids["SB"]: sb_ref})))
    st.put(pb((1, [sys_m]), (2, b"an older superseded root")))  # unreachable row
    created = 1767261600000
    meta = {"agentId": ids["C1"], "latestRootBlobId": top.hex(), "name": "Seeds cursor main", "createdAt": created,
            "mode": "default", "isRunEverything": False, "lastUsedModel": "example-model",
            "blobEncryptionKey": hashlib.sha256(b"k").hexdigest()}
    chat = f"chats/{md5}/{ids['C1']}"
    st.write(root / chat, meta)
    pl.add(key["C1"], f"{chat}/store.db")
    pl.titles[key["C1"]] = "Seeds cursor main"
    _write(root, f"{chat}/meta.json", json.dumps({"schemaVersion": 1, "createdAtMs": created, "hasConversation": True,
                                                  "title": "Seeds cursor main", "cwd": app}).encode(), pl, key["C1"])
    _write(root, f"{chat}/prompt_history.json", json.dumps([secrets.new("cursor prompt history"), "first"]).encode(),
           pl, key["C1"])
    mirror = f"projects/{slug}/agent-transcripts/{ids['C1']}"
    _write(root, f"{mirror}/{ids['C1']}.jsonl", b"".join(_line(r) for r in (
        {"role": "user", "message": {"content": [{"type": "text", "text": f"<user_query>\n{first_text}\n</user_query>"}]}},
        {"role": "assistant", "message": {"content": [{"type": "text", "text": "[REDACTED]\n\nreading"},
                                                      {"type": "tool_use", "name": "Read", "input": {"path": "main.py"}}]}},
        {"type": "turn_ended", "status": "success"})), pl, key["C1"])
    _write(root, f"{mirror}/subagents/{ids['SA']}.jsonl", _line(
        {"role": "user", "message": {"content": [{"type": "text", "text": "scan"}]}}), pl, key["SA"])
    _write(root, f"projects/{slug}/terminals/1.txt", ("$ make\n" + secrets.new("cursor terminal") + "\n").encode(),
           pl, key["C1"])
    pl.add(key["SA"], f"{chat}/store.db")
    pl.add(key["SB"], f"{chat}/store.db")
    pl.edges |= {(key["SA"], key["C1"], "subagent"), (key["SB"], key["C1"], "subagent")}

    # /fork: every blob copied into a new chat folder, same root, '<name> (forked)', later createdAt
    fork = f"chats/{md5}/{ids['FORK']}"
    st.write(root / fork, dict(meta, agentId=ids["FORK"], name="Seeds cursor main (forked)", createdAt=created + 60000))
    pl.add(key["FORK"], f"{fork}/store.db")
    pl.add(key["FORK"], f"projects/{slug}/terminals/1.txt")  # its copied shell result names it
    pl.edges.add((key["FORK"], key["C1"], "fork"))

    # a subagent run with its own store (meta.subagentInfo); no meta.json (older build)
    own = _Store()
    own_root = own.put(pb((1, [own.js({"role": "user", "content": [{"type": "text", "text": "own " + _text(rng)}]})])))
    own.write(root / f"chats/{md5}/{ids['OWN']}", {
        "agentId": ids["OWN"], "latestRootBlobId": own_root.hex(), "name": "New Agent", "createdAt": created + 1000,
        "mode": "default", "isRunEverything": False, "subagentInfo": {
            "parentAgentId": ids["C1"], "rootParentAgentId": ids["C1"], "toolCallId": tool_task,
            "typeName": "explore"}})
    pl.add(key["OWN"], f"chats/{md5}/{ids['OWN']}/store.db")
    pl.edges.add((key["OWN"], key["C1"], "subagent"))

    # an acp session, a chat without a checkpoint (no meta.json), a mirror whose chat was deleted
    acp = _Store()
    acp_root = acp.put(pb((1, [acp.js({"role": "user", "content": [{"type": "text",
                                                                    "text": secrets.new("cursor acp")}]})])))
    acp.write(root / f"acp-sessions/{ids['ACP']}", {"agentId": ids["ACP"], "latestRootBlobId": acp_root.hex(),
                                                    "name": "acp chat", "createdAt": created, "mode": "default",
                                                    "isRunEverything": True})
    _write(root, f"acp-sessions/{ids['ACP']}/meta.json", json.dumps({"schemaVersion": 1, "cwd": app,
                                                                     "title": "acp chat"}).encode(), pl, key["ACP"])
    pl.add(key["ACP"], f"acp-sessions/{ids['ACP']}/store.db")
    _Store().write(root / f"chats/{md5}/{ids['EMPTY']}", {"agentId": ids["EMPTY"], "latestRootBlobId": "",
                                                          "name": "New Agent", "createdAt": created, "mode": "auto-run",
                                                          "isRunEverything": False})
    pl.add(key["EMPTY"], f"chats/{md5}/{ids['EMPTY']}/store.db")
    _write(root, f"projects/{slug}/agent-transcripts/{ids['GONE']}.jsonl", _line(
        {"role": "user", "message": {"content": [{"type": "text", "text": secrets.new("cursor orphan mirror")}]}}),
        pl, key["GONE"])
    _write(root, "prompt_history.json", json.dumps(["global " + _text(rng)]).encode(), pl, "cursor-agent:@host")
    for rel, data in ((f"projects/{slug}/repo.json", b"{}"), (f"projects/{slug}/worker.log", b"log\n"),
                      (f"projects/{slug}/mcps/x.json", b"{}"), ("cli-config.json", b"{}")):
        _write(root, rel, data)
        pl.noise.add(rel)
    return pl
