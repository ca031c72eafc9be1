"""Black-box HOME for Claude Code and Codex, written from the seeds alone
(/work/shared/seeds/by-harness/claude-code.json and codex.json), not from the project's
own fixtures: shapes the project's authors may not have thought of.

`build_home(root)` writes <root>/home/<USER>/.claude and .codex and returns a `Planted`:
every canary it put in a user-data field (value -> where), every id that must survive
(value -> where), the session keys and lineage edges the seeds' `linking` rules imply, and
what a restore must lay out.
"""

from __future__ import annotations

import base64
import json
import random
import shutil
import sqlite3
import string
import struct
import subprocess
import uuid
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

USER = "zorvanek"            # the account name; must never come out
REAL_HOME = f"/home/{USER}"  # the machine's home as the harness recorded it in cwd fields
B62 = string.ascii_letters + string.digits
B32 = string.ascii_uppercase + "234567"
LETTERS_ONLY = "[password letters-only]"  # the kind a known gap still lets through


@dataclass
class Planted:
    home: Path
    canaries: dict[str, str] = field(default_factory=dict)   # secret value -> where
    ids: dict[str, str] = field(default_factory=dict)        # id value -> where
    sessions: set[str] = field(default_factory=set)          # expected session keys
    edges: set[tuple[str, str, str]] = field(default_factory=set)  # (child, parent, relation)
    top_level: list[str] = field(default_factory=list)       # keys restored --with-family
    # key -> files (relative to the restored HOME, username unknown) a restore must produce
    claude_sidecars: dict[str, list[str]] = field(default_factory=dict)
    codex_rows: set[str] = field(default_factory=set)         # thread ids state_5 must hold
    wal_only_thread: str = ""


class Canaries:
    """Makes distinct, registered secrets of each kind the checker plants."""

    def __init__(self, planted: Planted, rng: random.Random) -> None:
        self.p = planted
        self.rng = rng
        self.n = 0

    def _rand(self, alphabet: str, k: int) -> str:
        return "".join(self.rng.choice(alphabet) for _ in range(k))

    def email(self, where: str) -> str:
        self.n += 1
        first = self.rng.choice(["mira", "tomasz", "leila", "okafor", "hanne", "ravi"])
        value = f"{first}.{self._rand(string.ascii_lowercase, 5)}{self.n}@northwind-{self._rand(string.ascii_lowercase, 4)}.io"
        self.p.canaries[value] = f"{where} [email]"
        return value

    def ghp(self, where: str) -> str:
        body = self._rand(B62, 30)
        crc = zlib.crc32(body.encode())
        check = ""
        for _ in range(6):
            crc, r = divmod(crc, 62)
            check = B62[r] + check
        value = "ghp_" + body + check
        self.p.canaries[value] = f"{where} [github token]"
        return value

    def akia(self, where: str) -> str:
        value = "AKIA" + self._rand(B32, 16)
        self.p.canaries[value] = f"{where} [aws key id]"
        return value

    def password(self, where: str) -> str:
        value = self._rand(B62, 6) + self.rng.choice("!%*-_") + self._rand(B62, 6) + self.rng.choice(string.digits)
        self.p.canaries[value] = f"{where} [password]"
        return value

    def passphrase(self, where: str) -> str:
        """Letters only (a diceware/xkcd passphrase or a random letters-only password)."""
        value = "-".join(self._rand(string.ascii_letters, 6) for _ in range(3))
        self.p.canaries[value] = f"{where} {LETTERS_ONLY}"
        return value

    def path(self, where: str, rest: str) -> str:
        value = f"{REAL_HOME}/{rest}"
        self.p.canaries[value] = f"{where} [home path]"
        return value

    def prose(self, where: str) -> str:
        """A sentence carrying one of each kind, in one of a few shapes."""
        self.n += 1
        e, g, a, pw = self.email(where), self.ghp(where), self.akia(where), self.password(where)
        path = self.path(where, f"work/notes-{self.n}/todo.md")
        forms = [
            f"{USER} asked: mail {e} about {path}; token {g} aws {a}; password={pw}",
            f"Look at {path} (owner {USER}, {e}). export GITHUB_TOKEN={g}\nAWS_ACCESS_KEY_ID={a} DB_PASSWORD=\"{pw}\"",
            f"note for {USER}: creds {a} / {g}, login with password: {pw}, contact <{e}>, file {path}",
        ]
        return forms[self.n % len(forms)]

    def keep(self, value: str, where: str) -> str:
        self.p.ids[value] = where
        return value


# ---------------------------------------------------------------- id makers

def uuid4(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def uuid7(rng: random.Random, ms: int) -> str:
    raw = (ms << 80) | (0x7 << 76) | (rng.getrandbits(12) << 64) | (0b10 << 62) | rng.getrandbits(62)
    return str(uuid.UUID(int=raw))


def tool_id(rng: random.Random, prefix: str = "toolu_01") -> str:
    return prefix + "".join(rng.choice(B62) for _ in range(22))


def hexid(rng: random.Random, n: int) -> str:
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


def png_b64(rng: random.Random, side: int = 24) -> str:
    """A valid PNG of random pixels (poorly compressible, like a screenshot's noise)."""
    raw = b"".join(b"\x00" + bytes(rng.getrandbits(8) for _ in range(side * 3)) for _ in range(side))

    def chunk(tag: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data))

    png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", side, side, 8, 2, 0, 0, 0))
           + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
    return base64.b64encode(png).decode()


def opaque_b64(rng: random.Random, n: int, prefix: str = "") -> str:
    return prefix + base64.b64encode(bytes(rng.getrandbits(8) for _ in range(n))).decode()


def project_key(cwd: str) -> str:
    return "".join(ch if ch.isascii() and ch.isalnum() else "-" for ch in cwd)


def write_jsonl(path: Path, records: list[dict[str, Any]], torn_tail: str = "") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
    path.write_text(text + torn_tail, encoding="utf-8")


# ---------------------------------------------------------------- Claude Code

class ClaudeSession:
    """Appends records with the conversation envelope to one transcript."""

    def __init__(self, gen: "Gen", sid: str, cwd: str, branch: str, *, agent: str | None = None,
                 session_of_file: str | None = None) -> None:
        self.g, self.sid, self.cwd, self.branch, self.agent = gen, sid, cwd, branch, agent
        self.records: list[dict[str, Any]] = []
        self.last: str | None = None
        self.file_session = session_of_file or sid
        self.clock = 0

    def ts(self) -> str:
        self.clock += 7
        return f"2026-03-14T09:{self.clock // 60 % 60:02d}:{self.clock % 60:02d}.{self.clock % 1000:03d}Z"

    def node(self, rtype: str, parent: str | None = "auto", **fields: Any) -> str:
        u = self.g.keep(uuid4(self.g.rng), f"claude {self.file_session} uuid")
        rec = {"parentUuid": self.last if parent == "auto" else parent,
               "isSidechain": self.agent is not None, "userType": "external", "cwd": self.cwd,
               "sessionId": self.sid, "version": "2.1.310", "gitBranch": self.branch,
               "entrypoint": "cli", "timestamp": self.ts(), "uuid": u, "type": rtype}
        if self.agent:
            rec["agentId"] = self.agent
        rec.update(fields)
        self.records.append(rec)
        self.last = u
        return u

    def meta(self, rtype: str, **fields: Any) -> None:
        self.records.append({"type": rtype, **fields, "sessionId": self.sid})

    def assistant_lines(self, blocks: list[dict[str, Any]], stop: str = "end_turn") -> list[str]:
        mid = self.g.keep("msg_01" + "".join(self.g.rng.choice(B62) for _ in range(22)), "claude message.id")
        req = self.g.keep("req_011" + "".join(self.g.rng.choice(B62) for _ in range(21)), "claude requestId")
        usage = {"input_tokens": 12, "output_tokens": 40, "cache_creation_input_tokens": 0,
                 "cache_read_input_tokens": 9000, "service_tier": "standard"}
        out = []
        for i, block in enumerate(blocks):
            out.append(self.node("assistant", requestId=req, apiBlockIndex=i, message={
                "id": mid, "type": "message", "role": "assistant", "model": "claude-opus-5-5",
                "content": [block], "stop_reason": stop, "stop_sequence": None, "usage": usage,
                "container": None, "context_management": None, "stop_details": None, "diagnostics": None}))
        return out


class Gen:
    def __init__(self, root: Path, seed: int = 2121) -> None:
        self.rng = random.Random(seed)
        self.home = root / "home" / USER
        self.p = Planted(home=self.home)
        self.c = Canaries(self.p, self.rng)

    def keep(self, value: str, where: str) -> str:
        return self.c.keep(value, where)

    # ---- Claude ------------------------------------------------------------
    @property
    def claude(self) -> Path:
        return self.home / ".claude"

    def claude_main(self) -> None:
        g, c, rng = self, self.c, self.rng
        cwd = c.path("claude A cwd", "work/orbit-api")
        sid_a, sid_b, sid_c = (g.keep(uuid4(rng), "claude session id") for _ in range(3))
        pdir = self.claude / "projects" / project_key(cwd)
        branch = f"{USER}/fix-login"
        s = ClaudeSession(g, sid_a, cwd, branch)
        s.node("attachment", parent=None, attachment={
            "type": "hook_success", "hookName": "SessionStart:startup", "hookEvent": "SessionStart",
            "toolUseID": g.keep(uuid4(rng), "claude hook toolUseID"),
            "command": c.path("claude A hook_success.command", ".claude/hooks/start.sh") + " --verbose",
            "stdout": c.prose("claude A hook_success.stdout"), "stderr": "", "exitCode": 0,
            "durationMs": 33, "content": c.prose("claude A hook_success.content")})
        s.node("attachment", attachment={"type": "session_context", "context": {
            "userEmail": c.email("claude A session_context.userEmail"),
            "gitStatus": c.prose("claude A session_context.gitStatus")}},
            rendered=[{"content": c.prose("claude A attachment.rendered[].content")}], renderedRole="user")
        prompt_id = g.keep(uuid4(rng), "claude promptId")
        prompt_uuid = s.node("user", promptId=prompt_id, permissionMode="default", promptSource="typed", turnOrigin="human",
               message={"role": "user", "content": c.prose("claude A user prompt (string content)")})
        sig = g.keep(opaque_b64(rng, 240, "Eq"), "claude thinking signature")
        s.assistant_lines([{"type": "thinking", "thinking": "", "signature": sig},
                           {"type": "text", "text": c.prose("claude A assistant text")}], stop="tool_use")
        # Bash tool call whose large output went to tool-results/
        bash_id = g.keep(tool_id(rng), "claude tool_use id (Bash)")
        a_bash = s.assistant_lines([{"type": "tool_use", "id": bash_id, "name": "Bash", "caller": {"type": "direct"},
                                     "input": {"command": f"psql postgres://app:{c.password('claude A Bash input.command')}@db.internal/app -c 'select 1'",
                                               "description": c.prose("claude A Bash input.description")}}], stop="tool_use")[0]
        out_id = g.keep("b" + hexid(rng, 8), "claude tool-results id")
        result_rel = f"projects/{project_key(cwd)}/{sid_a}/tool-results/{out_id}.txt"
        persisted = f"{self.home}/.claude/{result_rel}"
        (self.claude / result_rel).parent.mkdir(parents=True, exist_ok=True)
        (self.claude / result_rel).write_text(c.prose("claude A tool-results/<id>.txt") + "\n" * 3 + "row 1\n" * 200)
        s.node("user", sourceToolAssistantUUID=a_bash, promptId=prompt_id,
               permissionDecision={"decision": "accept", "source": "config", "reasonType": "rule"},
               message={"role": "user", "content": [{"type": "tool_result", "tool_use_id": bash_id, "is_error": False,
                        "content": f"<persisted-output>\nOutput too large. Full output saved to: {persisted}\n"
                                   f"Preview: {c.prose('claude A persisted-output preview')}\n</persisted-output>"}]},
               toolUseResult={"stdout": c.prose("claude A toolUseResult.stdout"), "stderr": "", "interrupted": False,
                              "persistedOutputPath": persisted, "persistedOutputSize": 4321})
        # Read returning text + an image block
        read_id = g.keep(tool_id(rng), "claude tool_use id (Read)")
        a_read = s.assistant_lines([{"type": "tool_use", "id": read_id, "name": "Read", "caller": {"type": "direct"},
                                     "input": {"file_path": c.path("claude A Read input.file_path", "work/orbit-api/shot.png")}}],
                                   stop="tool_use")[0]
        img = g.keep(png_b64(rng), "claude image base64 (tool_result)")
        s.node("user", sourceToolAssistantUUID=a_read, message={"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": read_id, "content": [
                {"type": "text", "text": c.prose("claude A tool_result.content[].text")},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": img}}]}]},
            toolUseResult={"type": "image", "file": {"base64": "", "type": "image/png",
                                                     "filePath": c.path("claude A toolUseResult.file.filePath", "work/orbit-api/shot.png")}})
        img2 = g.keep(png_b64(rng, 16), "claude image base64 (user paste)")
        s.node("user", imagePasteIds=[1], promptSource="typed", message={"role": "user", "content": [
            {"type": "text", "text": c.prose("claude A user content[].text with image")},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": img2}}]})
        # subagent via the Agent tool
        agent_tool = g.keep(tool_id(rng), "claude tool_use id (Agent)")
        agent_id = g.keep("a" + hexid(rng, 16), "claude agentId")
        a_agent = s.assistant_lines([{"type": "tool_use", "id": agent_tool, "name": "Agent", "caller": {"type": "direct"},
                                      "input": {"description": c.prose("claude A Agent input.description"),
                                                "prompt": c.prose("claude A Agent input.prompt"),
                                                "subagent_type": "general-purpose"}}], stop="tool_use")[0]
        sub_dir = pdir / sid_a / "subagents"
        self.claude_subagent(sid_a, cwd, branch, agent_id, sub_dir / f"agent-{agent_id}.jsonl")
        (sub_dir / f"agent-{agent_id}.meta.json").write_text(json.dumps({
            "agentType": "general-purpose", "description": c.prose("claude A subagent meta.description"),
            "toolUseId": agent_tool, "spawnDepth": 1, "requestShape": "agent", "requestNonInteractive": False,
            "worktreePath": c.path("claude A subagent meta.worktreePath", "work/orbit-api/.claude/worktrees/w1"),
            "worktreeBranch": f"{USER}-scratch"}))
        s.node("user", sourceToolAssistantUUID=a_agent, message={"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": agent_tool, "content": [{"type": "text", "text": c.prose("claude A Agent tool_result text")}]}]},
            toolUseResult={"agentId": agent_id, "status": "completed",
                           "outputFile": c.path("claude A toolUseResult.outputFile", f".claude/tasks/{agent_id}.output"),
                           "content": [{"type": "text", "text": c.prose("claude A Agent toolUseResult.content")}]})
        # file history
        fh_hash = g.keep(hexid(rng, 16), "claude file-history hash")
        fh_dir = self.claude / "file-history" / sid_a
        fh_dir.mkdir(parents=True)
        for v in (1, 2):
            (fh_dir / f"{fh_hash}@v{v}").write_text(f"# v{v}\n" + c.prose(f"claude A file-history backup v{v}") + "\n")
        tracked = c.path("claude A trackedFileBackups key", "work/orbit-api/src/login.py")
        self.p.ids[f"{fh_hash}@v1"] = "claude backupFileName"
        s.meta("file-history-snapshot", messageId=prompt_uuid, isSnapshotUpdate=False, snapshot={
            "messageId": prompt_uuid, "timestamp": s.ts(), "trackedFileBackups": {tracked: {
                "backupFileName": f"{fh_hash}@v1", "version": 1, "backupTime": s.ts(),
                "realParentDir": c.path("claude A realParentDir", "work/orbit-api/src")}}})
        s.meta("file-history-delta", messageId=prompt_uuid, snapshotMessageId=prompt_uuid, timestamp=s.ts(),
               trackingPath=tracked, backup={"backupFileName": f"{fh_hash}@v2", "version": 2, "backupTime": s.ts(),
                                             "realParentDir": c.path("claude A delta realParentDir", "work/orbit-api/src/")})
        # legacy progress, system lines, compaction
        s.node("progress", toolUseID=bash_id, parentToolUseID=bash_id,
               data={"type": "bash_progress", "output": c.prose("claude A progress data.output"), "elapsedTimeSeconds": 3})
        s.node("system", subtype="local_command", level="info", isMeta=False,
               content=c.prose("claude A system/local_command content"))
        s.node("system", subtype="stop_hook_summary", hookCount=1, level="suggestion", hasOutput=True,
               hookInfos=[{"command": c.path("claude A stop hook command", "bin/notify.sh") + f" --to {c.email('claude A stop hook command email')}", "durationMs": 12}],
               hookErrors=[c.prose("claude A stop_hook_summary.hookErrors[]")], preventedContinuation=False, stopReason="")
        s.node("system", subtype="turn_duration", durationMs=42000, messageCount=12, isMeta=False)
        before_compact = s.last
        s.node("system", parent=None, subtype="compact_boundary", logicalParentUuid=before_compact,
               content="Conversation compacted", level="info",
               compactMetadata={"trigger": "manual", "preTokens": 180000, "postTokens": 22000, "durationMs": 30000})
        s.node("user", isCompactSummary=True, isVisibleInTranscriptOnly=True,
               message={"role": "user", "content": c.prose("claude A compact summary")})
        s.node("attachment", attachment={"type": "file", "filename": c.path("claude A attachment/file filename", "work/orbit-api/.env"),
                                         "displayPath": ".env", "content": {"type": "text", "file": {
                                             "filePath": c.path("claude A attachment/file content.file.filePath", "work/orbit-api/.env"),
                                             "content": c.prose("claude A attachment/file content")}}})
        s.node("attachment", attachment={"type": "queued_command", "commandMode": "prompt",
                                         "prompt": c.prose("claude A queued_command.prompt"),
                                         "origin": {"kind": "human", "body": c.prose("claude A queued_command.origin.body")}})
        s.node("attachment", attachment={"type": "task_status", "taskId": "b" + hexid(rng, 8), "status": "running",
                                         "description": c.prose("claude A task_status.description"),
                                         "outputFilePath": c.path("claude A task_status.outputFilePath", "tmp/task.out"),
                                         "shell": {"kind": "monitor", "command": c.prose("claude A task_status.shell.command")}})
        s.node("attachment", attachment={"type": "environment", "snapshot": {
            "workingDirectory": c.path("claude A environment.workingDirectory", "work/orbit-api"),
            "platform": "linux", "shell": "zsh", "isGitRepo": True,
            "additionalWorkingDirectories": [c.path("claude A environment.additionalWorkingDirectories", "work/shared-lib")]}})
        final = s.assistant_lines([{"type": "text", "text": c.prose("claude A final assistant text")}])[-1]
        s.node("system", subtype="api_error", level="error", content=c.prose("claude A system/api_error content"))
        # metadata records re-appended at the tail
        for _ in range(2):
            s.meta("ai-title", aiTitle=c.prose("claude A ai-title"))
            s.meta("last-prompt", lastPrompt=c.prose("claude A last-prompt"), leafUuid=final)
        s.meta("custom-title", customTitle=f"{USER} login fix")
        s.meta("queue-operation", operation="enqueue", timestamp=s.ts(),
               content=f"deploy with password={c.passphrase('claude A queue-operation unquoted assignment')}")
        s.meta("tag", tag=f"{USER}-q1")
        s.meta("pr-link", prNumber=42, prRepository=f"{USER}/orbit-api", timestamp=s.ts(),
               prUrl=f"https://github.com/{USER}/orbit-api/pull/42")
        s.meta("queue-operation", operation="enqueue", timestamp=s.ts(), content=c.prose("claude A queue-operation.content"))
        s.meta("worktree-state", worktreeSession={"worktreePath": c.path("claude A worktree-state", "work/orbit-api/.claude/worktrees/x"),
                                                  "worktreeBranch": "x"})
        s.meta("relocated", relocatedCwd=c.path("claude A relocated.relocatedCwd", "work/orbit-api-2"))
        s.meta("dev-mods", folder=c.path("claude A dev-mods.folder", ".claude/mods/dev"))
        s.meta("api-request-blob", hash=hexid(rng, 12), message={"role": "user", "content": [{"type": "text", "text": c.prose("claude A api-request-blob text")}]})
        s.meta("api-request-shape", shapeHash=hexid(rng, 12), timestamp=s.ts(), version=1, shape={
            "system": [{"type": "text", "text": c.prose("claude A api-request-shape system text")}], "tools": []})
        s.meta("cost-state", totalCostUSD=1.23, totalAPIDuration=60000, totalDuration=300000, startTime=1760000000000,
               modelUsage={"claude-opus-5-5": {"inputTokens": 100, "outputTokens": 50}})
        s.meta("continued-in", timestamp=s.ts(), continuedInSessionId=sid_c)
        write_jsonl(pdir / f"{sid_a}.jsonl", s.records)
        self.p.claude_sidecars[f"claude-code:{sid_a}"] = [
            f"projects/<key>/{sid_a}/tool-results/{out_id}.txt",
            f"projects/<key>/{sid_a}/subagents/agent-{agent_id}.jsonl",
            f"projects/<key>/{sid_a}/subagents/agent-{agent_id}.meta.json",
            f"file-history/{sid_a}/{fh_hash}@v1", f"file-history/{sid_a}/{fh_hash}@v2"]

        # B: /branch fork of A (original uuids, new sessionId, forkedFrom)
        fork_from = s.records[3]["uuid"]
        b_recs = []
        prev = None
        for rec in s.records[:4]:
            if "uuid" not in rec:
                continue
            copy = dict(rec, sessionId=sid_b, parentUuid=prev, forkedFrom={"sessionId": sid_a, "messageUuid": rec["uuid"]})
            b_recs.append(copy)
            prev = rec["uuid"]
        sb = ClaudeSession(g, sid_b, cwd, branch)
        sb.records, sb.last = b_recs, prev
        sb.node("user", promptSource="typed", message={"role": "user", "content": c.prose("claude B new prompt after fork")})
        sb.assistant_lines([{"type": "text", "text": c.prose("claude B assistant text")}])
        sb.meta("history-suppression", cause="fork_inherit", ts=sb.ts())
        sb.meta("custom-title", customTitle=c.prose("claude B custom-title"))
        write_jsonl(pdir / f"{sid_b}.jsonl", sb.records)
        self.p.ids[fork_from] = "claude B forkedFrom.messageUuid"

        # C: the session A continued in; resumed once (hook SessionStart:resume)
        sc = ClaudeSession(g, sid_c, cwd, branch)
        sc.node("attachment", parent=None, attachment={"type": "hook_success", "hookName": "SessionStart:startup",
                                                       "hookEvent": "SessionStart", "stdout": c.prose("claude C hook stdout")})
        sc.node("user", promptSource="typed", message={"role": "user", "content": c.prose("claude C prompt")})
        sc.assistant_lines([{"type": "text", "text": c.prose("claude C assistant")}])
        sc.node("attachment", attachment={"type": "hook_success", "hookName": "SessionStart:resume",
                                          "hookEvent": "SessionStart", "stdout": c.prose("claude C resume hook stdout")})
        sc.node("user", promptSource="typed", message={"role": "user", "content": c.prose("claude C prompt after resume")})
        write_jsonl(pdir / f"{sid_c}.jsonl", sc.records)

        self.p.sessions |= {f"claude-code:{x}" for x in (sid_a, sid_b, sid_c, agent_id)}
        self.p.edges |= {(f"claude-code:{agent_id}", f"claude-code:{sid_a}", "subagent"),
                         (f"claude-code:{sid_b}", f"claude-code:{sid_a}", "fork"),
                         (f"claude-code:{sid_c}", f"claude-code:{sid_a}", "continuation")}
        self.p.top_level.append(f"claude-code:{sid_a}")

        # global files: prompt history with a paste-cache body, shell snapshot, todos, plans, session-env
        paste_hash = hexid(rng, 16)
        (self.claude / "paste-cache").mkdir(parents=True)
        (self.claude / "paste-cache" / f"{paste_hash}.txt").write_text(c.prose("claude paste-cache body"))
        hist = [{"display": c.prose("claude history.display"), "pastedContents": {}, "project": cwd,
                 "sessionId": sid_a, "timestamp": 1773479702000},
                {"display": "[Pasted text #1 +40 lines]", "project": cwd, "sessionId": sid_a, "timestamp": 1773479709000,
                 "pastedContents": {"1": {"id": 1, "type": "text", "contentHash": paste_hash}}},
                {"display": "short", "project": cwd, "sessionId": sid_c, "timestamp": 1773479719000,
                 "pastedContents": {"2": {"id": 2, "type": "text", "content": c.prose("claude history pastedContents.content")}}}]
        write_jsonl(self.claude / "history.jsonl", hist)
        snap = self.claude / "shell-snapshots" / f"snapshot-zsh-1773479702000-{hexid(rng, 6)}.sh"
        snap.parent.mkdir(parents=True)
        snap.write_text(f"# shell snapshot\nexport HOME={REAL_HOME}\nexport GITHUB_TOKEN={c.ghp('claude shell-snapshot')}\n"
                        f"alias deploy='AWS_ACCESS_KEY_ID={c.akia('claude shell-snapshot')} ./deploy.sh'\n")
        todos = self.claude / "todos" / f"{sid_a}-agent-{sid_a}.json"
        todos.parent.mkdir(parents=True)
        todos.write_text(json.dumps([{"content": c.prose("claude todos content"), "status": "pending",
                                      "activeForm": "Fixing login", "id": "1"}]))
        plan = self.claude / "plans" / "quiet-running-otter.md"
        plan.parent.mkdir(parents=True)
        plan.write_text("# Plan\n\n" + c.prose("claude plans/*.md") + "\n")
        env = self.claude / "session-env" / sid_a / "sessionstart-hook-1.sh"
        env.parent.mkdir(parents=True)
        env.write_text(f"export PGPASSWORD={c.password('claude session-env hook')}\n"
                       f"export REDIS_PASSWORD={c.passphrase('claude session-env hook')}\ncd {c.path('claude session-env cd', 'work/orbit-api')}\n")
        self.p.sessions.add("claude-code:@host")

    def claude_subagent(self, parent_sid: str, cwd: str, branch: str, agent_id: str, path: Path,
                        fork_ref: str | None = None) -> None:
        g, c = self, self.c
        sa = ClaudeSession(g, parent_sid, cwd, branch, agent=agent_id, session_of_file=agent_id)
        if fork_ref:
            sa.records.append({"type": "fork-context-ref", "agentId": agent_id, "parentSessionId": parent_sid,
                               "parentLastUuid": fork_ref, "contextLength": 12})
        sa.node("user", parent=None, message={"role": "user", "content": c.prose(f"claude subagent {agent_id} prompt")})
        tid = g.keep(tool_id(g.rng), "claude subagent tool_use id")
        a = sa.assistant_lines([{"type": "tool_use", "id": tid, "name": "Grep", "caller": {"type": "direct"},
                                 "input": {"pattern": "password", "path": c.path(f"claude subagent {agent_id} Grep path", "work")}}],
                               stop="tool_use")[0]
        sa.node("user", sourceToolAssistantUUID=a, message={"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": tid, "content": c.prose(f"claude subagent {agent_id} tool_result")}]},
            toolUseResult={"mode": "content", "content": c.prose(f"claude subagent {agent_id} toolUseResult.content"),
                           "filenames": [c.path(f"claude subagent {agent_id} toolUseResult.filenames[]", "work/x.py")]})
        sa.assistant_lines([{"type": "text", "text": c.prose(f"claude subagent {agent_id} final")}])
        sa.records.append({"type": "content-replacement", "sessionId": parent_sid, "agentId": agent_id,
                           "replacements": [{"kind": "tool-result", "toolUseId": tid, "replacement": c.prose(f"claude subagent {agent_id} content-replacement")}]})
        write_jsonl(path, sa.records)

    def claude_second_project(self) -> None:
        """A project whose cwd has spaces and non-ASCII, a forked-skill subagent and one
        nested a level below subagents/, and a third session torn mid-write."""
        g, c, rng = self, self.c, self.rng
        cwd = c.path("claude D cwd", "Mes Projets/café-app")
        sid_d, sid_e = g.keep(uuid4(rng), "claude session id"), g.keep(uuid4(rng), "claude session id")
        pdir = self.claude / "projects" / project_key(cwd)
        s = ClaudeSession(g, sid_d, cwd, "main")
        s.node("attachment", parent=None, attachment={"type": "nested_memory", "path": c.path("claude D nested_memory.path", "Mes Projets/café-app/CLAUDE.md"),
                                                      "displayPath": "CLAUDE.md", "content": {"type": "Project", "path": c.path("claude D nested_memory.content.path", "Mes Projets/café-app/CLAUDE.md"),
                                                                                              "content": c.prose("claude D nested_memory.content.content")}})
        s.node("user", promptSource="typed", message={"role": "user", "content": c.prose("claude D prompt")})
        skill_tool = g.keep(tool_id(rng), "claude tool_use id (Skill)")
        last = s.assistant_lines([{"type": "tool_use", "id": skill_tool, "name": "Skill", "caller": {"type": "direct"},
                                   "input": {"skill": "review", "args": c.prose("claude D Skill args")}}], stop="tool_use")[0]
        ag1, ag2 = g.keep("a" + hexid(rng, 16), "claude agentId"), g.keep("a" + hexid(rng, 16), "claude agentId")
        sub = pdir / sid_d / "subagents"
        self.claude_subagent(sid_d, cwd, "main", ag1, sub / f"agent-{ag1}.jsonl", fork_ref=last)
        (sub / f"agent-{ag1}.meta.json").write_text(json.dumps({"agentType": "fork", "description": c.prose("claude D forked meta.description"),
                                                                "toolUseId": skill_tool, "spawnDepth": 1, "isFork": True}))
        (sub / f"agent-{ag1}.forked-skill.json").write_text(json.dumps({"skillName": "review", "attributionName": f"{USER}:review"}))
        (sub / f"agent-{ag1}.forked-skill.marker.json").write_text(json.dumps({"forkedSkill": True, "skillName": "review"}))
        s.node("user", sourceToolAssistantUUID=last, message={"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": skill_tool, "content": c.prose("claude D Skill result")}]})
        wf_tool = g.keep(tool_id(rng), "claude tool_use id (Task)")
        last = s.assistant_lines([{"type": "tool_use", "id": wf_tool, "name": "Task", "caller": {"type": "direct"},
                                   "input": {"description": "scan", "prompt": c.prose("claude D Task prompt"), "subagent_type": "Explore"}}],
                                 stop="tool_use")[0]
        nested = sub / "workflows" / "run-1" / f"agent-{ag2}.jsonl"
        nested.parent.mkdir(parents=True)
        self.claude_subagent(sid_d, cwd, "main", ag2, nested)
        (nested.parent / f"agent-{ag2}.meta.json").write_text(json.dumps({"agentType": "Explore", "toolUseId": wf_tool, "spawnDepth": 1,
                                                                          "description": c.prose("claude D nested meta.description")}))
        s.node("user", sourceToolAssistantUUID=last, message={"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": wf_tool, "content": c.prose("claude D Task result")}]},
            toolUseResult={"agentId": ag2, "status": "completed", "content": [{"type": "text", "text": "ok"}]})
        s.meta("ai-title", aiTitle=c.prose("claude D ai-title"))
        write_jsonl(pdir / f"{sid_d}.jsonl", s.records)
        self.p.claude_sidecars[f"claude-code:{sid_d}"] = [
            f"projects/<key>/{sid_d}/subagents/agent-{ag1}.jsonl",
            f"projects/<key>/{sid_d}/subagents/agent-{ag1}.meta.json",
            f"projects/<key>/{sid_d}/subagents/agent-{ag1}.forked-skill.json",
            f"projects/<key>/{sid_d}/subagents/workflows/run-1/agent-{ag2}.jsonl"]

        se = ClaudeSession(g, sid_e, cwd, "main")
        se.node("attachment", parent=None, attachment={"type": "date", "date": "2026-03-14"})
        se.node("user", promptSource="typed", message={"role": "user", "content": c.prose("claude E prompt (still writing)")})
        torn = json.dumps({"type": "assistant", "message": {"content": [{"type": "text", "text": "partial "}]}})[:40]
        write_jsonl(pdir / f"{sid_e}.jsonl", se.records, torn_tail=torn)
        # the legacy per-project index
        (pdir / "sessions-index.json").write_text(json.dumps({"version": 1, "originalPath": cwd, "entries": [
            {"sessionId": sid_d, "fullPath": str(pdir / f"{sid_d}.jsonl"), "fileMtime": 1773479702000,
             "firstPrompt": c.prose("claude sessions-index firstPrompt"), "summary": c.prose("claude sessions-index summary"),
             "messageCount": 6, "created": "2026-03-14T09:00:00Z", "modified": "2026-03-14T09:30:00Z",
             "gitBranch": "main", "projectPath": cwd, "isSidechain": False}]}))
        self.p.sessions |= {f"claude-code:{x}" for x in (sid_d, sid_e, ag1, ag2)}
        self.p.edges |= {(f"claude-code:{ag1}", f"claude-code:{sid_d}", "subagent"),
                         (f"claude-code:{ag2}", f"claude-code:{sid_d}", "subagent")}
        self.p.top_level += [f"claude-code:{sid_d}", f"claude-code:{sid_e}"]

    # ---- Codex -------------------------------------------------------------
    @property
    def codex(self) -> Path:
        return self.home / ".codex"

    def codex_line(self, rtype: str, payload: dict[str, Any], ordinal: int | None, sec: int, **extra: Any) -> dict[str, Any]:
        rec: dict[str, Any] = {"timestamp": f"2026-03-14T08:15:{sec % 60:02d}.{sec * 37 % 1000:03d}Z"}
        if ordinal is not None:
            rec["ordinal"] = ordinal
        rec.update({"type": rtype, "payload": payload, **extra})
        return rec

    def codex_meta(self, tid: str, cwd: str, *, paginated: bool, root: str | None = None, **more: Any) -> dict[str, Any]:
        sha = self.keep(hexid(self.rng, 40), "codex git.commit_hash")
        meta = {"id": tid, "session_id": root or tid, "timestamp": "2026-03-14T08:15:02.600Z", "cwd": cwd,
                "originator": "codex_cli_rs", "cli_version": "0.164.0", "source": "cli", "thread_source": "user",
                "model_provider": "openai", "creator_user_id": self.c.email(f"codex {tid} creator_user_id"),
                "base_instructions": {"text": "You are a coding agent."},
                "context_window": {"window_id": self.keep(uuid7(self.rng, 1773476102000), "codex window_id")},
                "git": {"commit_hash": sha, "branch": f"{USER}/perf",
                        "repository_url": f"https://github.com/{USER}/ledger-svc.git"}}
        if paginated:
            meta["history_mode"] = "paginated"
        meta.update(more)
        return meta

    def codex_turn(self, tid: str, cwd: str, start_ord: int | None, *, rich: bool) -> list[dict[str, Any]]:
        """One turn: both views (response_item and item_completed) as paginated files hold."""
        g, c, rng = self, self.c, self.rng
        paginated = start_ord is not None
        o = [start_ord] if paginated else [None]
        recs: list[dict[str, Any]] = []

        def add(rtype: str, payload: dict[str, Any], **extra: Any) -> None:
            recs.append(self.codex_line(rtype, payload, o[0], len(recs) + 3, **extra))
            if o[0] is not None:
                o[0] += 1

        turn = g.keep(uuid7(rng, 1773476103000), "codex turn_id")
        add("event_msg", {"type": "task_started", "turn_id": turn, "started_at": 1773476103, "model_context_window": 258400})
        add("turn_context", {"turn_id": turn, "cwd": cwd, "approval_policy": "on-request", "model": "gpt-5-codex",
                             "sandbox_policy": {"type": "workspace-write", "writable_roots": [c.path(f"codex {tid} writable_roots", "work/ledger-svc/tmp")],
                                                "network_access": False}, "effort": "medium", "summary": "none"})
        add("response_item", {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": c.prose(f"codex {tid} developer message")}]},
            metadata={"client_authored": False})
        img = g.keep(png_b64(rng, 12), "codex input_image base64")
        add("response_item", {"type": "message", "role": "user", "content": [
            {"type": "input_text", "text": c.prose(f"codex {tid} user input_text")},
            {"type": "input_image", "image_url": "data:image/png;base64," + img, "detail": "high"}]},
            metadata={"client_authored": True, "user_input_order": 1})
        if paginated:
            add("event_msg", {"type": "item_completed", "thread_id": tid, "turn_id": turn,
                              "item": {"type": "UserMessage", "id": g.keep(uuid7(rng, 1773476103500), "codex item id"),
                                       "content": [{"type": "text", "text": c.prose(f"codex {tid} item_completed UserMessage"), "text_elements": []}]},
                              "started_at_ms": 1773476103000, "completed_at_ms": 1773476103500})
        else:
            add("event_msg", {"type": "user_message", "message": c.prose(f"codex {tid} event_msg user_message"),
                              "local_images": [c.path(f"codex {tid} local_images[]", "Pictures/bug.png")], "text_elements": []})
        rs = g.keep("rs_" + hexid(rng, 48), "codex reasoning id")
        enc = g.keep(opaque_b64(rng, 480, "gAAAAAB"), "codex encrypted_content")
        add("response_item", {"type": "reasoning", "id": rs, "summary": [{"type": "summary_text", "text": c.prose(f"codex {tid} reasoning summary")}],
                              "encrypted_content": enc})
        call = g.keep("call_" + "".join(rng.choice(B62) for _ in range(24)), "codex call_id")
        cmd = f"PGPASSWORD={c.password(f'codex {tid} exec_command cmd')} psql -h db -U {USER} -c 'select 1'"
        add("response_item", {"type": "function_call", "name": "exec_command", "call_id": call,
                              "arguments": json.dumps({"cmd": cmd, "workdir": c.path(f"codex {tid} exec workdir", "work/ledger-svc")})})
        add("response_item", {"type": "function_call_output", "call_id": call,
                              "output": "Process exited with code 0\nOutput:\n" + c.prose(f"codex {tid} function_call_output")
                              + f"\nDB_PASSWORD={c.passphrase(f'codex {tid} function_call_output .env line')}\n"})
        if paginated:
            add("event_msg", {"type": "item_completed", "thread_id": tid, "turn_id": turn, "item": {
                "type": "CommandExecution", "id": call, "command": ["/bin/zsh", "-lc", cmd], "cwd": "file://" + cwd,
                "source": "agent", "status": "completed", "aggregated_output": c.prose(f"codex {tid} CommandExecution.aggregated_output"),
                "exit_code": 0, "duration": {"secs": 0, "nanos": 120000000}}})
        if rich:
            patch_call = g.keep("call_" + "".join(rng.choice(B62) for _ in range(24)), "codex call_id (apply_patch)")
            target = c.path(f"codex {tid} apply_patch path", "work/ledger-svc/.env")
            add("response_item", {"type": "custom_tool_call", "status": "completed", "call_id": patch_call, "name": "apply_patch",
                                  "input": f"*** Begin Patch\n*** Update File: {target}\n@@\n-API_KEY=old\n+AWS_ACCESS_KEY_ID={c.akia(f'codex {tid} apply_patch input')}\n*** End Patch"})
            add("response_item", {"type": "custom_tool_call_output", "call_id": patch_call,
                                  "output": [{"type": "input_text", "text": c.prose(f"codex {tid} custom_tool_call_output")}]})
            add("event_msg", {"type": "item_completed", "thread_id": tid, "turn_id": turn, "item": {
                "type": "FileChange", "id": patch_call, "status": "completed", "stdout": "Success.",
                "changes": {c.path(f"codex {tid} FileChange.changes key", "work/ledger-svc/config.toml"): {
                    "type": "update", "unified_diff": "@@ -1 +1 @@\n-a\n+" + c.prose(f"codex {tid} FileChange diff"), "move_path": None}}}})
            shell_call = g.keep("call_" + "".join(rng.choice(B62) for _ in range(24)), "codex call_id (local_shell)")
            add("response_item", {"type": "local_shell_call", "call_id": shell_call, "status": "completed", "action": {
                "type": "exec", "command": ["git", "log", f"--author={c.email(f'codex {tid} local_shell_call author')}"],
                "timeout_ms": None, "working_directory": c.path(f"codex {tid} local_shell working_directory", "work/ledger-svc"),
                "env": {"GITHUB_TOKEN": c.ghp(f"codex {tid} local_shell env")}, "user": None}})
            add("response_item", {"type": "function_call_output", "call_id": shell_call, "output": c.prose(f"codex {tid} local_shell output")})
            add("response_item", {"type": "web_search_call", "status": "completed", "action": {"type": "search", "query": c.prose(f"codex {tid} web_search query")}})
            ig = g.keep("ig_" + hexid(rng, 32), "codex image_generation id")
            gen_png = png_b64(rng, 10)
            g.keep(gen_png, "codex image_generation_call.result")
            saved = self.codex / "generated_images" / tid / f"{ig}.png"
            saved.parent.mkdir(parents=True, exist_ok=True)
            saved.write_bytes(base64.b64decode(gen_png))
            add("response_item", {"type": "image_generation_call", "id": ig, "status": "completed",
                                  "revised_prompt": c.prose(f"codex {tid} revised_prompt"), "result": gen_png})
            add("event_msg", {"type": "item_completed", "thread_id": tid, "turn_id": turn, "item": {
                "type": "ImageGeneration", "id": ig, "status": "completed", "result": gen_png,
                "revised_prompt": c.prose(f"codex {tid} ImageGeneration.revised_prompt"), "saved_path": str(saved)}})
            mcp = g.keep("call_" + "".join(rng.choice(B62) for _ in range(24)), "codex call_id (mcp)")
            add("event_msg", {"type": "item_completed", "thread_id": tid, "turn_id": turn, "item": {
                "type": "McpToolCall", "id": mcp, "server": "crm", "tool": "lookup",
                "arguments": {"email": c.email(f"codex {tid} McpToolCall.arguments")}, "status": "completed",
                "result": {"content": [{"type": "text", "text": c.prose(f"codex {tid} McpToolCall.result")}]},
                "duration": {"secs": 1, "nanos": 0}}})
            add("event_msg", {"type": "thread_goal_updated", "threadId": tid, "turnId": turn, "goal": {
                "threadId": tid, "objective": c.prose(f"codex {tid} goal.objective"), "status": "active",
                "tokensUsed": 0, "timeUsedSeconds": 0, "createdAt": 1773476103, "updatedAt": 1773476103}})
            add("compacted", {"message": c.prose(f"codex {tid} compacted.message"), "replacement_history": [
                {"type": "message", "role": "user", "content": [{"type": "input_text", "text": c.prose(f"codex {tid} replacement_history text")}]},
                {"type": "compaction", "encrypted_content": g.keep(opaque_b64(rng, 300, "gAAAAAB"), "codex compaction encrypted_content")}],
                "window_number": 2, "window_id": g.keep(uuid7(rng, 1773476104000), "codex window_id")})
            add("inter_agent_communication", {"author": "/root", "recipient": "/root/worker", "other_recipients": [],
                                              "content": c.prose(f"codex {tid} inter_agent_communication.content"), "trigger_turn": True})
        add("response_item", {"type": "message", "role": "assistant", "id": g.keep("msg_" + hexid(rng, 48), "codex assistant msg id"),
                              "content": [{"type": "output_text", "text": c.prose(f"codex {tid} assistant output_text")}], "phase": "final_answer"})
        add("token_usage_record", {"thread_id": tid, "turn_id": turn, "session_id": tid, "response_id": "resp_" + hexid(rng, 32),
                                   "usage": {"input_tokens": 1200, "cached_input_tokens": 1000, "output_tokens": 80, "total_tokens": 1280}})
        add("event_msg", {"type": "task_complete", "turn_id": turn, "last_agent_message": c.prose(f"codex {tid} task_complete.last_agent_message"),
                          "started_at": 1773476103, "completed_at": 1773476160, "duration_ms": 57000})
        return recs

    def codex_all(self) -> None:
        g, c, rng = self, self.c, self.rng
        cwd = c.path("codex cwd", "work/ledger-svc")
        day = self.codex / "sessions" / "2026" / "03" / "14"
        ms = 1773476102000
        t1, t2, t3, t4, t5, t7 = (g.keep(uuid7(rng, ms + i * 1000), "codex thread id") for i in range(6))
        rid = g.keep(uuid7(rng, ms + 9000), "codex revert rollout id")

        def fname(tid: str, hhmmss: str, suffix: str = "", date: str = "2026-03-14") -> str:
            return f"rollout-{date}T{hhmmss}-{tid}{suffix}.jsonl"

        # T1 root, paginated, with a subagent, a fork and a revert
        r1 = [self.codex_line("session_meta", self.codex_meta(t1, cwd, paginated=True), 0, 2)]
        r1 += self.codex_turn(t1, cwd, 1, rich=True)
        collab = g.keep("call_" + "".join(rng.choice(B62) for _ in range(24)), "codex call_id (spawn_agent)")
        n = len(r1)
        r1.append(self.codex_line("event_msg", {"type": "item_completed", "thread_id": t1, "turn_id": "t2", "item": {
            "type": "CollabAgentToolCall", "id": collab, "tool": "spawn_agent", "status": "completed", "sender_thread_id": t1,
            "receiver_thread_ids": [t2], "receiver_agents": [], "prompt": c.prose("codex T1 CollabAgentToolCall.prompt"), "agents_states": {}}}, n, 50))
        r1.append(self.codex_line("event_msg", {"type": "item_completed", "thread_id": t1, "turn_id": "t2", "item": {
            "type": "SubAgentActivity", "id": "a1", "kind": "completed", "agent_thread_id": t2, "agent_path": "/root/worker",
            "model": None, "reasoning_effort": None}}, n + 1, 51))
        f1 = day / fname(t1, "09-15-02")
        write_jsonl(f1, r1)
        end1 = len(r1)

        # T2 spawned sub-agent (session_id = root thread)
        meta2 = self.codex_meta(t2, cwd, paginated=True, root=t1, parent_thread_id=t1, thread_source="subagent",
                                source={"subagent": {"thread_spawn": {"parent_thread_id": t1, "depth": 1, "agent_path": "/root/worker",
                                                                      "agent_nickname": f"{USER}-helper", "agent_role": "worker"}}},
                                agent_nickname=f"{USER}-helper", agent_role="worker", agent_path="/root/worker",
                                subagent_history_start_ordinal=1)
        r2 = [self.codex_line("session_meta", meta2, 0, 2)] + self.codex_turn(t2, cwd, 1, rich=False)
        write_jsonl(day / fname(t2, "09-16-10"), r2)

        # T3 paginated fork of T1: history_base points at T1's rollout prefix
        meta3 = self.codex_meta(t3, cwd, paginated=True, forked_from_id=t1, forked_from_ordinal_exclusive=end1,
                                history_base={"thread_id": t1, "end_ordinal_exclusive": end1, "end_byte_offset": f1.stat().st_size})
        r3 = [self.codex_line("session_meta", meta3, end1, 2)] + self.codex_turn(t3, cwd, end1 + 1, rich=False)
        write_jsonl(day / fname(t3, "09-20-00"), r3)

        # T1 reverted: a new rollout <T1>_<rollout-id> with history_base on the old file
        meta_r = self.codex_meta(t1, cwd, paginated=True, history_base={"thread_id": t1, "end_ordinal_exclusive": 5, "end_byte_offset": 1000})
        rr = [self.codex_line("session_meta", meta_r, 5, 2)] + self.codex_turn(t1, cwd, 6, rich=False)
        f_rev = day / fname(t1, "09-25-00", f"_{rid}")
        write_jsonl(f_rev, rr)

        # T5 legacy root, compressed after 7 idle days; T4 legacy fork of T5 with copied records
        r5 = [self.codex_line("session_meta", self.codex_meta(t5, cwd, paginated=False), None, 2)] + self.codex_turn(t5, cwd, None, rich=False)
        old_day = self.codex / "sessions" / "2026" / "03" / "01"
        f5 = old_day / fname(t5, "22-01-09", date="2026-03-01")
        write_jsonl(f5, r5)
        subprocess.run(["zstd", "-q", "-3", "--rm", str(f5), "-o", str(f5) + ".zst"], check=True)
        r4 = [self.codex_line("session_meta", self.codex_meta(t4, cwd, paginated=False, forked_from_id=t5), None, 2)]
        r4 += r5 + self.codex_turn(t4, cwd, None, rich=False)
        write_jsonl(day / fname(t4, "10-02-30"), r4)

        # T7 archived (flat folder)
        r7 = [self.codex_line("session_meta", self.codex_meta(t7, cwd, paginated=True), 0, 2)] + self.codex_turn(t7, cwd, 1, rich=False)
        write_jsonl(self.codex / "archived_sessions" / fname(t7, "07-00-00"), r7)

        # sidecars and host files
        write_jsonl(self.codex / "session_index.jsonl", [
            {"id": t1, "thread_name": c.prose("codex session_index thread_name"), "updated_at": "2026-03-14T08:20:00Z"},
            {"id": t1, "thread_name": f"{USER}'s ledger perf", "updated_at": "2026-03-14T08:30:00Z"},
            {"id": t5, "thread_name": c.prose("codex session_index thread_name T5"), "updated_at": "2026-03-01T21:00:00Z"}])
        write_jsonl(self.codex / "history.jsonl", [
            {"session_id": t1, "ts": 1773476103, "text": c.prose("codex history.text")},
            {"session_id": t5, "ts": 1772398869, "text": c.prose("codex history.text T5")}])
        snap = self.codex / "shell_snapshots" / f"{t1}.{hexid(rng, 8)}.sh"
        snap.parent.mkdir(parents=True)
        snap.write_text(f"export HOME={REAL_HOME}\nexport GH_TOKEN={c.ghp('codex shell_snapshot')}\n"
                        f"export AWS_ACCESS_KEY_ID={c.akia('codex shell_snapshot')}\nexport MAIL={c.email('codex shell_snapshot')}\n")
        self.codex_state(cwd, {t1: f_rev, t2: day / fname(t2, "09-16-10"), t3: day / fname(t3, "09-20-00"),
                               t4: day / fname(t4, "10-02-30"), t5: Path(str(f5) + ".zst"),
                               t7: self.codex / "archived_sessions" / fname(t7, "07-00-00")}, t1, t2, t7)

        k = lambda x: f"codex:{x}"  # noqa: E731
        self.p.sessions |= {k(t1), k(t2), k(t3), k(t4), k(t5), k(t7), k(f"{t1}_{rid}"), "codex:@host"}
        self.p.edges |= {(k(t2), k(t1), "subagent"), (k(t3), k(t1), "fork"), (k(t4), k(t5), "fork"),
                         (k(f"{t1}_{rid}"), k(t1), "revert")}
        self.p.top_level += [k(t1), k(t5), k(t7)]
        self.p.codex_rows |= {t1, t2, t3, t4, t5, t7}

    def codex_state(self, cwd: str, paths: dict[str, Path], root: str, child: str, archived: str) -> None:
        """state_5.sqlite in WAL mode, the sub-agent's row and spawn edge committed only in -wal."""
        c = self.c
        work = self.home.parent.parent / "wal-work"
        work.mkdir()
        db = work / "state_5.sqlite"
        con = sqlite3.connect(db, isolation_level=None)
        con.execute("PRAGMA journal_mode=WAL")
        con.execute("PRAGMA wal_autocheckpoint=0")
        con.execute("""CREATE TABLE threads (id TEXT PRIMARY KEY, rollout_path TEXT NOT NULL, created_at INTEGER,
            updated_at INTEGER, source TEXT, model_provider TEXT, model TEXT, cwd TEXT, title TEXT, name TEXT,
            preview TEXT, first_user_message TEXT, tokens_used INTEGER, archived INTEGER DEFAULT 0,
            git_sha TEXT, git_branch TEXT, git_origin_url TEXT, cli_version TEXT, agent_nickname TEXT,
            agent_role TEXT, history_mode TEXT, thread_source TEXT)""")
        con.execute("CREATE TABLE thread_spawn_edges (parent_thread_id TEXT, child_thread_id TEXT, status TEXT, "
                    "PRIMARY KEY (parent_thread_id, child_thread_id))")

        def row(tid: str) -> tuple[Any, ...]:
            return (tid, str(paths[tid]), 1773476102, 1773476160, "cli", "openai", "gpt-5-codex", cwd,
                    c.prose(f"codex state_5 threads.title {tid}"), f"{USER} thread",
                    c.prose(f"codex state_5 threads.preview {tid}"), c.prose(f"codex state_5 first_user_message {tid}"),
                    1280, int(tid == archived), self.keep(hexid(self.rng, 40), "codex state git_sha"),
                    f"{USER}/perf", f"https://{USER}:{c.ghp(f'codex state_5 git_origin_url {tid}')}@github.com/acme/ledger.git",
                    "0.164.0", None, None, "paginated", "user")

        ins = "INSERT INTO threads VALUES (" + ",".join("?" * 22) + ")"
        for tid in paths:
            if tid != child:
                con.execute(ins, row(tid))
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        con.execute(ins, row(child))
        con.execute("INSERT INTO thread_spawn_edges VALUES (?,?,?)", (root, child, "completed"))
        target = self.codex
        target.mkdir(parents=True, exist_ok=True)
        for suffix in ("", "-wal", "-shm"):
            shutil.copyfile(str(db) + suffix, str(target / "state_5.sqlite") + suffix)
        con.close()
        shutil.rmtree(work)
        # prove the row lives only in the -wal: the main file alone lacks it
        alone = self.home.parent.parent / "wal-proof.sqlite"
        shutil.copyfile(target / "state_5.sqlite", alone)
        with sqlite3.connect(alone) as probe:
            assert probe.execute("SELECT count(*) FROM threads WHERE id=?", (child,)).fetchone()[0] == 0
        for suffix in ("", "-wal", "-shm"):
            Path(str(alone) + suffix).unlink(missing_ok=True)
        self.p.wal_only_thread = child

        logs = sqlite3.connect(target / "logs_2.sqlite")
        logs.execute("CREATE TABLE logs (id INTEGER PRIMARY KEY, ts INTEGER, level TEXT, target TEXT, message TEXT, thread_id TEXT)")
        logs.execute("INSERT INTO logs (ts, level, target, message, thread_id) VALUES (?,?,?,?,?)",
                     (1773476103, "INFO", "codex_core::exec", c.prose("codex logs_2 message"), root))
        logs.commit()
        logs.close()


def build_home(root: Path) -> Planted:
    gen = Gen(root)
    gen.claude_main()
    gen.claude_second_project()
    gen.codex_all()
    return gen.p
