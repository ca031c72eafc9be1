"""A Claude Code HOME written from /work/shared/seeds/by-harness/claude-code.json alone.

`build(home, user)` lays out ~/.claude as the seed's `layout` describes, with records shaped as
its `records`/`envelope` say, the lineage of its `linking` rules (subagents incl. nested and
forked ones, the legacy agent-<id>.jsonl beside the parent, /branch forks, continued-in,
compaction, rewind, parallel tool calls, progress parents) and its `gotchas` (metadata
re-appended, stripped envelope, torn last line, string-or-array content, empty thinking). Odd
but valid inputs: unicode and long cwds, empty/metadata-only files, CRLF, a multi-MB line,
unknown record types and fields. Every field that can carry private data gets a distinct planted
secret (returned in `Plan.secrets`, label -> value) so a leak names the field it came from.
"""

from __future__ import annotations

import base64
import json
import random
import string
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.fx_s11_e2e import planted_secret

VERSION = "2.1.310"
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)


def js_key(cwd: str) -> str:
    """projects/<key> as Claude Code (JavaScript) computes it: `/[^a-zA-Z0-9]/g` runs over UTF-16
    code units, so a character outside the BMP becomes two dashes; over 200, cut + '-' + hash."""
    out = []
    for ch in cwd:
        if ch.isascii() and ch.isalnum():
            out.append(ch)
        else:
            out.append("--" if ord(ch) > 0xFFFF else "-")
    key = "".join(out)
    if len(key) > 200:
        h = 0
        for ch in cwd:
            h = (h * 31 + ord(ch)) & 0xFFFFFFFF
        key = key[:200] + "-" + _b36(h)
    return key


def _b36(n: int) -> str:
    digits = string.digits + string.ascii_lowercase
    s = ""
    while True:
        n, r = divmod(n, 36)
        s = digits[r] + s
        if not n:
            return s


@dataclass
class Plan:
    home: Path
    user: str
    secrets: dict[str, str] = field(default_factory=dict)
    sids: dict[str, str] = field(default_factory=dict)  # role -> session id
    cwds: dict[str, str] = field(default_factory=dict)  # role -> cwd
    files: dict[str, list[str]] = field(default_factory=dict)  # session key -> paths rel. to HOME
    edges: dict[str, tuple[str, str, str | None]] = field(default_factory=dict)  # child key -> (relation, parent key, at)
    uuids: dict[str, str] = field(default_factory=dict)


class Gen:
    def __init__(self, home: Path, user: str, seed: int = 17) -> None:
        self.rng = random.Random(seed)
        self.plan = Plan(home=home, user=user)
        self.root = home / ".claude"
        self.n = 0

    # ---- values
    def uuid(self) -> str:
        h = "%032x" % self.rng.getrandbits(128)
        return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-8{h[17:20]}-{h[20:32]}"

    def hexid(self, n: int) -> str:
        return "".join(self.rng.choice("0123456789abcdef") for _ in range(n))

    def alnum(self, n: int) -> str:
        return "".join(self.rng.choice(string.ascii_letters + string.digits) for _ in range(n))

    def secret(self, label: str) -> str:
        """A distinct value the rules claim (GitHub PAT, AWS key id, Anthropic key, e-mail) per field."""
        v = planted_secret(self.rng, len(self.plan.secrets), self.plan.user, "zqcorp-mail.net")
        self.plan.secrets[label] = v
        return v

    def ts(self) -> str:
        self.n += 1
        return f"2026-10-20T10:{self.n // 60 % 60:02d}:{self.n % 60:02d}.{self.n % 1000:03d}Z"

    # ---- records
    def env(self, sid: str, cwd: str | None, parent: str | None, uid: str | None = None, *, side: bool = False,
            agent: str | None = None, strip: bool = False) -> dict[str, Any]:
        rec: dict[str, Any] = {"parentUuid": parent, "isSidechain": side, "userType": "external"}
        if not strip:
            rec.update(cwd=cwd, version=VERSION, gitBranch=f"feat/{self.plan.user}-x", entrypoint="cli",
                       slug="calm-blue-otter")
        rec.update(sessionId=sid, timestamp=self.ts(), uuid=uid or self.uuid())
        if agent:
            rec["agentId"] = agent
        return rec

    def root_attachment(self, sid: str, cwd: str | None, label: str, **kw: Any) -> dict[str, Any]:
        r = self.env(sid, cwd, None, **kw)
        r.update(type="attachment", attachment={
            "type": "hook_success", "hookName": "SessionStart:startup", "hookEvent": "SessionStart",
            "content": f"export TOKEN={self.secret(label + '.hook')}", "stdout": f"cwd={cwd}", "exitCode": 0})
        return r

    def user(self, sid: str, cwd: str | None, parent: str | None, text: Any, **kw: Any) -> dict[str, Any]:
        extra = kw.pop("extra", {})
        r = self.env(sid, cwd, parent, **kw)
        r.update(type="user", promptId=self.uuid(), message={"role": "user", "content": text},
                 permissionMode="default", promptSource="typed", turnOrigin="human", **extra)
        return r

    def assistant(self, sid: str, cwd: str | None, parent: str | None, block: dict[str, Any], mid: str,
                  **kw: Any) -> dict[str, Any]:
        r = self.env(sid, cwd, parent, **kw)
        r.update(type="assistant", requestId="req_" + mid[4:], message={
            "id": mid, "type": "message", "role": "assistant", "model": "claude-opus-5-5", "content": [block],
            "stop_reason": "tool_use" if block["type"] == "tool_use" else "end_turn", "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 5, "cache_creation_input_tokens": 0,
                      "cache_read_input_tokens": 1200}})
        return r

    def result(self, sid: str, cwd: str | None, parent: str, tool_use_id: str, content: Any, tur: Any,
               **kw: Any) -> dict[str, Any]:
        r = self.env(sid, cwd, parent, **kw)
        r.update(type="user", message={"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": tool_use_id, "content": content}]},
            toolUseResult=tur, sourceToolAssistantUUID=parent, promptId=self.uuid())
        return r

    def system(self, sid: str, cwd: str | None, parent: str | None, subtype: str, **fields: Any) -> dict[str, Any]:
        kw = {k: fields.pop(k) for k in ("side", "agent", "uid") if k in fields}
        r = self.env(sid, cwd, parent, **kw)
        r.update(type="system", subtype=subtype, level="info", isMeta=False, **fields)
        return r

    # ---- files
    def write(self, rel: str, data: bytes | str, owner: str | None = None) -> Path:
        p = self.plan.home / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data.encode() if isinstance(data, str) else data)
        if owner:
            self.plan.files.setdefault(owner, []).append(rel)
        return p

    def jsonl(self, rel: str, recs: list[Any], owner: str | None, *, eol: str = "\n", torn: str = "") -> Path:
        body = "".join((r if isinstance(r, str) else json.dumps(r, ensure_ascii=False)) + eol for r in recs) + torn
        return self.write(rel, body, owner)


def build(home: Path, user: str) -> Plan:
    g = Gen(home, user)
    p = g.plan
    H = str(home)
    s1, s2, s3, s4, s5, s6, s7, s8 = (g.uuid() for _ in range(8))
    p.sids.update(main=s1, cont=s2, fork=s3, crlf=s4, empty=s5, meta_only=s6, corrupt=s7, stripped=s8)
    cwd_u = f"{H}/code/prøjekt ü 日本 😀 {user}"  # unicode (an astral char too) and the user name
    cwd_long = f"{H}/deep/" + "/".join(["a-very-long-directory-name-" + str(i) for i in range(10)])
    cwd_plain = f"{H}/work/app"
    cwd_strip = f"{H}/work/stripped.{user}"
    p.cwds.update(main=cwd_u, long=cwd_long, plain=cwd_plain, stripped=cwd_strip)
    ku, kl, kp, ks = js_key(cwd_u), js_key(cwd_long), js_key(cwd_plain), js_key(cwd_strip)
    proj_u, proj_l, proj_p, proj_s = (f".claude/projects/{k}" for k in (ku, kl, kp, ks))
    K = lambda sid: f"claude-code:{sid}"  # noqa: E731
    a1, a2, a3, a4 = (g.hexid(17) for _ in range(4))
    p.sids.update(agent=a1, forked_agent=a2, nested_agent=a3, legacy_agent=a4)

    # ---- S1: the main session, every record kind
    c = cwd_u
    recs: list[Any] = []
    root = g.root_attachment(s1, c, "s1")
    recs.append(root)
    fh_name = g.hexid(16)
    u1 = g.user(s1, c, root["uuid"], f"fix {c}/src/app.py, token {g.secret('s1.prompt')}",
                extra={"imagePasteIds": [1], "futureField": {"note": g.secret("s1.unknown-field")}})
    recs.append(u1)
    recs.append({"type": "file-history-snapshot", "messageId": u1["uuid"], "isSnapshotUpdate": False, "snapshot": {
        "messageId": u1["uuid"], "timestamp": g.ts(), "trackedFileBackups": {
            f"{c}/src/.env": {"backupFileName": f"{fh_name}@v1", "version": 1, "backupTime": g.ts(),
                              "realParentDir": f"{c}/src"}}}})
    mid = "msg_01" + g.alnum(20)
    th = g.assistant(s1, c, u1["uuid"], {"type": "thinking", "thinking": "", "signature": g.alnum(40)}, mid)
    tx = g.assistant(s1, c, th["uuid"], {"type": "text", "text": f"Reading {c}/src/app.py"}, mid)
    tu1 = g.assistant(s1, c, tx["uuid"], {"type": "tool_use", "id": "toolu_01" + g.alnum(20), "name": "Bash", "input": {
        "command": f"cat {c}/.env # {g.secret('s1.tool_input')}", "description": "read env"}}, mid)
    tu2 = g.assistant(s1, c, tu1["uuid"], {"type": "tool_use", "id": "toolu_01" + g.alnum(20), "name": "Read",
                                           "input": {"file_path": f"{c}/src/app.py"}}, mid)
    tu2["wireIngestContext"] = {tu2["message"]["content"][0]["id"]: {"cwd": c}}
    recs += [th, tx, tu1, tu2]
    out_id = g.alnum(9).lower()
    tr_rel = f"{proj_u}/{s1}/tool-results/{out_id}.txt"
    r1 = g.result(s1, c, tu1["uuid"], tu1["message"]["content"][0]["id"],
                  f"<persisted-output>Output too large. Full output saved to: {H}/{tr_rel}</persisted-output>",
                  {"stdout": "AWS=" + g.secret("s1.tool_output"), "stderr": "", "interrupted": False,
                   "persistedOutputPath": f"{H}/{tr_rel}", "persistedOutputSize": 120000})
    # the parallel result hangs off its own assistant line: tu1 has two children (tu2 and r1)
    r2 = g.result(s1, c, tu2["uuid"], tu2["message"]["content"][0]["id"], [
        {"type": "text", "text": f"{c}/src/app.py: {g.secret('s1.result_array')}"},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": base64.b64encode(PNG).decode()}}],
        {"type": "image", "file": {"base64": "", "type": "image/png", "originalSize": len(PNG)}})
    recs += [r1, r2]
    # legacy progress whose uuid is the parent of a real message
    prog = g.env(s1, c, r2["uuid"])
    prog.update(type="progress", toolUseID="toolu_01x", parentToolUseID="toolu_01x",
                data={"type": "bash_progress", "output": f"ls {c}\n{g.secret('s1.progress')}", "elapsedTimeSeconds": 3})
    recs.append(prog)
    mid2 = "msg_01" + g.alnum(20)
    agent_tu = "toolu_01" + g.alnum(20)
    ag = g.assistant(s1, c, prog["uuid"], {"type": "tool_use", "id": agent_tu, "name": "Agent", "input": {
        "description": "explore", "prompt": f"look in {c} for {g.secret('s1.agent_prompt')}",
        "subagent_type": "Explore"}}, mid2)
    recs.append(ag)
    agr = g.result(s1, c, ag["uuid"], agent_tu, "done", {
        "agentId": a1, "outputFile": f"{H}/.claude/projects/{ku}/{s1}/subagents/agent-{a1}.jsonl",
        "status": "completed", "content": [{"type": "text", "text": "found it"}]})
    recs.append(agr)
    legacy_tu = "toolu_01" + g.alnum(20)
    lag = g.assistant(s1, c, agr["uuid"], {"type": "tool_use", "id": legacy_tu, "name": "Task",
                                           "input": {"description": "old", "prompt": "old-style task"}}, "msg_01" + g.alnum(20))
    lagr = g.result(s1, c, lag["uuid"], legacy_tu, "ok", {"agentId": a4, "status": "completed"})
    recs += [lag, lagr]
    fork_point = lagr["uuid"]
    p.uuids["s1_fork_point"] = fork_point
    p.uuids["s1_forked_agent_at"] = lagr["uuid"]
    recs.append(g.system(s1, c, lagr["uuid"], "turn_duration", durationMs=42000, messageCount=12))
    recs.append(g.system(s1, c, recs[-1]["uuid"], "stop_hook_summary", hookCount=1, hookInfos=[
        {"command": f"{H}/bin/notify --key {g.secret('s1.hook_command')}", "durationMs": 12}], hookErrors=[],
        preventedContinuation=False, stopReason="", hasOutput=False))
    pre = recs[-1]["uuid"]
    # every metadata kind, re-appended (gotcha: take the last)
    meta = [
        {"type": "ai-title", "aiTitle": f"Fix env of {user}", "sessionId": s1},
        {"type": "last-prompt", "lastPrompt": f"fix token {g.secret('s1.last_prompt')}", "leafUuid": pre, "sessionId": s1},
        {"type": "mode", "mode": "normal", "sessionId": s1},
        {"type": "permission-mode", "permissionMode": "default", "sessionId": s1},
        {"type": "atis-latch", "atis": "x1", "sessionId": s1},
        {"type": "cost-state", "sessionId": s1, "totalCostUSD": 1.23, "modelUsage": {"claude-opus-5-5": {"costUSD": 1.23}}},
        {"type": "pr-link", "sessionId": s1, "prNumber": 42, "prUrl": f"https://github.com/{user}/repo/pull/42",
         "prRepository": f"{user}/repo", "timestamp": g.ts()},
        {"type": "queue-operation", "operation": "enqueue", "timestamp": g.ts(), "sessionId": s1,
         "content": f"also {g.secret('s1.queue')}"},
        {"type": "tag", "tag": "docs", "sessionId": s1},
        {"type": "agent-name", "agentName": f"{user}-reviewer", "sessionId": s1},
        {"type": "relocated", "relocatedCwd": f"{H}/other", "sessionId": s1},
        {"type": "worktree-state", "worktreeSession": {"worktreePath": f"{c}/.claude/worktrees/x", "worktreeBranch": "x"},
         "sessionId": s1},
        {"type": "memory-mode", "mode": "off", "afterUuid": None, "timestamp": g.ts(), "reason": "paused", "sessionId": s1},
        {"type": "bridge-session", "sessionId": s1, "bridgeSessionId": "session_x", "lastSequenceNum": 0},
        {"type": "api-request", "sessionId": s1, "id": "r_1", "timestamp": g.ts(), "version": 1,
         "querySource": "repl_main_thread", "shapeHash": "ab12", "params": {"model": "claude-opus-5-5"},
         "tail": ["cd34"], "cacheControl": [], "requestDigest": "9a8b"},
        {"type": "api-request-blob", "sessionId": s1, "hash": "cd34", "message": {
            "role": "system", "content": [{"type": "text", "text": f"cwd: {c} {g.secret('s1.api_blob')}"}]}},
        {"type": "api-request-shape", "sessionId": s1, "shapeHash": "ab12", "timestamp": g.ts(), "version": 1,
         "shape": {"system": [{"type": "text", "text": f"Working directory {c}"}], "tools": []}},
        {"type": "content-replacement", "sessionId": s1, "replacements": [{"path": f"{H}/{tr_rel}"}]},
        {"type": "attribution-snapshot", "messageId": u1["uuid"], "files": {f"{c}/src/app.py": {"lines": 3}}},
        {"type": "frame-link", "sessionId": s1, "artifactCount": 1, "timestamp": g.ts(), "path": f"{c}/out.html"},
        {"type": "artifact-comment-monitor", "v": 1, "sessionId": s1, "artifacts": {"art_1": {"state": "armed",
         "title": f"by {user}", "writtenAtMs": 1760000000000}}},
        {"type": "observer-ref", "timestamp": g.ts(), "name": f"{user}-observer"},
        {"type": "summary", "summary": "Setup docs work", "leafUuid": pre},
        {"type": "custom-title", "customTitle": f"Env work {g.secret('s1.custom_title')}", "sessionId": s1},
        {"type": "future-record-kind", "sessionId": s1, "payload": {"deep": [f"{c}", g.secret("s1.unknown_record")]}},
    ]
    recs += meta
    # compaction: boundary is a new root, logicalParentUuid stitches history
    cb = g.system(s1, c, None, "compact_boundary", logicalParentUuid=pre, content="Conversation compacted",
                  compactMetadata={"trigger": "auto", "preTokens": 180000, "postTokens": 22000,
                                   "preservedSegment": {"headUuid": u1["uuid"], "anchorUuid": pre, "tailUuid": pre}})
    cs = g.user(s1, c, cb["uuid"], f"Summary: edited {c}/src/app.py", extra={"isCompactSummary": True,
                                                                          "isVisibleInTranscriptOnly": True})
    recs += [cb, cs]
    # rewind: a new branch from u1, the abandoned one stays; last-prompt names the active leaf
    rw = g.user(s1, c, u1["uuid"], "try again differently")
    recs.append(rw)
    recs += meta[:2]  # re-appended near the tail
    recs.append({"type": "last-prompt", "lastPrompt": "try again", "leafUuid": rw["uuid"], "sessionId": s1,
                 "explicit": True, "rewound": True})
    # resume: the same file keeps growing, a SessionStart:resume hook appears
    res = g.env(s1, c, rw["uuid"])
    res.update(type="attachment", attachment={"type": "hook_success", "hookName": "SessionStart:resume",
                                              "content": "", "stdout": "", "exitCode": 0})
    recs.append(res)
    cont_ts = g.ts()
    recs.append({"type": "continued-in", "timestamp": cont_ts, "sessionId": s1, "continuedInSessionId": s2})
    # a multi-MB line (a pasted image) with a secret after the base64
    big = g.user(s1, c, res["uuid"], [
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "A" * (5 * 1024 * 1024)}},
        {"type": "text", "text": f"see screenshot {g.secret('s1.long_line')}"}])
    recs.append(big)
    p.uuids["s1_last"] = big["uuid"]
    g.jsonl(f"{proj_u}/{s1}.jsonl", recs, K(s1))
    g.write(tr_rel, f"full output\nkey={g.secret('s1.tool_results_file')}\n{c}\n", K(s1))
    g.write(f"{proj_u}/{s1}/tool-results/toolu_01{g.alnum(20)}.txt", f"mcp result {c}", K(s1))
    g.write(f"{proj_u}/{s1}/remote-agents/remote-agent-r1.meta.json",
            json.dumps({"id": "r1", "cwd": c, "prompt": g.secret("s1.remote_agent")}), K(s1))
    for suffix in (".ccr-tip.json", ".precompact.json", ".dir-sync.json"):
        g.write(f"{proj_u}/{s1}{suffix}", json.dumps({"cwd": c, "note": g.secret("s1" + suffix)}), K(s1))
    g.write(f".claude/file-history/{s1}/{fh_name}@v1", f"TOKEN={g.secret('s1.file_history')}\n", K(s1))
    g.write(f".claude/file-history/{s1}/{g.hexid(16)}@v2", PNG, K(s1))
    g.write(f".claude/session-env/{s1}/sessionstart-hook-1.sh", f"export GH={g.secret('s1.session_env')}\n", K(s1))
    g.write(f"{proj_u}/{s1}/unknown-future-sidecar/x.json", json.dumps({"cwd": c}), K(s1))
    p.edges[K(s2)] = ("continuation", K(s1), cont_ts)  # `at`: the record's time

    # ---- subagents of S1: plain (a1), forked (a2), nested two deep in extra folders (a3), legacy (a4)
    sub = f"{proj_u}/{s1}/subagents"
    ar = g.user(s1, c, None, f"explore {c}", side=True, agent=a1)
    nested_tu = "toolu_01" + g.alnum(20)
    aa = g.assistant(s1, c, ar["uuid"], {"type": "tool_use", "id": nested_tu, "name": "Agent",
                                         "input": {"prompt": f"deeper {g.secret('a1.tool_input')}"}},
                     "msg_01" + g.alnum(20), side=True, agent=a1)
    aar = g.result(s1, c, aa["uuid"], nested_tu, "ok", {"agentId": a3}, side=True, agent=a1)
    g.jsonl(f"{sub}/agent-{a1}.jsonl", [ar, aa, aar], K(a1))
    g.write(f"{sub}/agent-{a1}.meta.json", json.dumps({
        "agentType": "Explore", "description": f"explore for {user}", "toolUseId": agent_tu, "spawnDepth": 1,
        "worktreePath": f"{c}/.claude/worktrees/a1", "worktreeBranch": f"{user}/a1"}), K(a1))
    p.edges[K(a1)] = ("subagent", K(s1), agent_tu)
    fref = {"type": "fork-context-ref", "agentId": a2, "parentSessionId": s1,
            "parentLastUuid": p.uuids["s1_forked_agent_at"], "contextLength": 12}
    fr = g.user(s1, c, None, f"forked skill {g.secret('a2.prompt')}", side=True, agent=a2)
    g.jsonl(f"{sub}/agent-{a2}.jsonl", [fref, fr], K(a2))
    g.write(f"{sub}/agent-{a2}.meta.json", json.dumps({"agentType": "general-purpose", "description": "skill",
                                                       "toolUseId": "toolu_01" + g.alnum(20), "spawnDepth": 1,
                                                       "isFork": True}), K(a2))
    g.write(f"{sub}/agent-{a2}.forked-skill.json", json.dumps({"skillName": "s", "attributionName": user}), K(a2))
    g.write(f"{sub}/agent-{a2}.forked-skill.marker.json", json.dumps({"forkedSkill": True, "skillName": "s"}), K(a2))
    p.edges[K(a2)] = ("subagent", K(s1), p.uuids["s1_forked_agent_at"])
    nr = g.user(s1, c, None, f"nested {g.secret('a3.prompt')}", side=True, agent=a3)
    g.jsonl(f"{sub}/workflow/run-1/agent-{a3}.jsonl", [nr], K(a3))
    g.write(f"{sub}/workflow/run-1/agent-{a3}.meta.json",
            json.dumps({"agentType": "Explore", "toolUseId": nested_tu, "spawnDepth": 2}), K(a3))
    p.edges[K(a3)] = ("subagent", K(a1), nested_tu)
    lr = g.user(s1, c, None, f"legacy {g.secret('a4.prompt')}", side=True, agent=a4)
    g.jsonl(f"{proj_u}/agent-{a4}.jsonl", [lr], K(a4))
    p.edges[K(a4)] = ("subagent", K(s1), legacy_tu)

    a5 = g.hexid(17)
    p.sids["broken_meta_agent"] = a5
    br = g.user(s1, c, None, "meta cut short", side=True, agent=a5)
    g.jsonl(f"{sub}/agent-{a5}.jsonl", [br], K(a5))
    g.write(f"{sub}/agent-{a5}.meta.json", '{"agentType": "Explore", "toolUseId": "toolu_01', K(a5))
    p.edges[K(a5)] = ("subagent", K(s1), None)

    # ---- S2: continues S1 (same project)
    r2_ = g.root_attachment(s2, c, "s2")
    g.jsonl(f"{proj_u}/{s2}.jsonl", [r2_, g.user(s2, c, r2_["uuid"], f"continue {g.secret('s2.prompt')}")], K(s2))

    # ---- S3: /branch fork of S1, torn last line (being written)
    copied = [u1, th, tx, tu1, r1, tu2, r2]
    frecs: list[Any] = [{"type": "history-suppression", "sessionId": s3, "cause": "fork_inherit", "ts": g.ts()}]
    prev = None
    for rec in copied:
        cp = dict(rec, sessionId=s3, parentUuid=prev, isSidechain=False,
                  forkedFrom={"sessionId": s1, "messageUuid": rec["uuid"]})
        frecs.append(cp)
        prev = cp["uuid"]
    own = g.user(s3, c, prev, f"on the fork {g.secret('s3.prompt')}")
    frecs.append(own)
    torn_full = json.dumps(g.user(s3, c, own["uuid"], "half written"), ensure_ascii=False) + "\n"
    p.uuids["s3_torn_rest"] = torn_full[60:]
    torn = torn_full[:60]
    g.jsonl(f"{proj_u}/{s3}.jsonl", frecs, K(s3), torn=torn)
    p.edges[K(s3)] = ("fork", K(s1), r2["uuid"])
    p.uuids["s3_torn"] = torn

    # ---- S4: CRLF line endings, long cwd (key cut + hash)
    r4 = g.root_attachment(s4, cwd_long, "s4")
    g.jsonl(f"{proj_l}/{s4}.jsonl", [r4, g.user(s4, cwd_long, r4["uuid"], f"crlf {g.secret('s4.prompt')}")], K(s4),
            eol="\r\n")
    # ---- S5 empty, S6 metadata only, S7 a garbage line mid-file, in the plain project
    g.write(f"{proj_p}/{s5}.jsonl", b"", K(s5))
    g.jsonl(f"{proj_p}/{s6}.jsonl", [{"type": "permission-mode", "permissionMode": "default", "sessionId": s6},
                                    {"type": "custom-title", "customTitle": g.secret("s6.title"), "sessionId": s6}], K(s6))
    r7 = g.root_attachment(s7, cwd_plain, "s7")
    g.jsonl(f"{proj_p}/{s7}.jsonl", [r7, "\x00\x01 not json at all {", g.user(s7, cwd_plain, r7["uuid"], "after")], K(s7))
    # ---- S8: envelope stripped (no cwd on any line), alone in its project
    r8 = g.root_attachment(s8, None, "s8", strip=True)
    g.jsonl(f"{proj_s}/{s8}.jsonl", [r8, g.user(s8, None, r8["uuid"], f"stripped {g.secret('s8.prompt')}", strip=True)], K(s8))

    # ---- S9: /cd moved the transcript into the new cwd's project folder; its first lines keep the
    # old cwd. The new cwd names a folder after an e-mail address (redacted in paths, not in a key)
    s9 = g.uuid()
    p.sids["relocated"] = s9
    old9, new9 = f"{H}/old-place", f"{H}/mail/jo.doe@corpmail-zq.net/proj"
    p.cwds["relocated"] = new9
    r9 = g.root_attachment(s9, old9, "s9")
    u9 = g.user(s9, old9, r9["uuid"], "move over there")
    g.jsonl(f".claude/projects/{js_key(new9)}/{s9}.jsonl", [
        r9, u9, {"type": "relocated", "relocatedCwd": new9, "sessionId": s9},
        g.user(s9, new9, u9["uuid"], "now here")], K(s9))

    # ---- host files
    hist = [{"display": f"fix {g.secret('host.history')}", "pastedContents": {"1": {"id": 1, "type": "text",
             "contentHash": "abc123"}}, "project": c, "sessionId": s1, "timestamp": 1760000000000}]
    g.jsonl(".claude/history.jsonl", hist, "claude-code:@host")
    g.write(".claude/paste-cache/abc123.txt", f"pasted {g.secret('host.paste')}", "claude-code:@host")
    g.write(f"{proj_u}/sessions-index.json", json.dumps({"version": 1, "originalPath": c, "entries": [
        {"sessionId": s1, "fullPath": f"{H}/{proj_u}/{s1}.jsonl", "firstPrompt": g.secret("host.index"),
         "projectPath": c, "isSidechain": False}]}), "claude-code:@host")
    g.write(f"{proj_u}/memory/MEMORY.md", f"# memory\n{user} uses {g.secret('host.memory')}\n", "claude-code:@host")
    g.write(f"{proj_s}/memory/notes.md", f"notes of {user} in {cwd_strip}\n", "claude-code:@host")
    # not archived by design (layout kind "other", README): a live-process registry
    g.write(".claude/sessions/4242.json", json.dumps({"pid": 4242, "sessionId": s1, "cwd": c}))
    return p
