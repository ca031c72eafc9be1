"""s23 cross-product recall audit: every s21 zoo family (tests/test_s21_zoo.py) in every place a
harness keeps text, written from the seeds (/work/shared/seeds/by-harness/*.json and the DeepSeek
catalog 003_37255de69aaa2bf4.txt), for one sync through the CLI.

`build_home(base)` writes a HOME with one or two sessions per harness and returns a `Zoox`: every
plant (harness, carrier, family, the value, its needles, and an anchor). Every carrier holds the
family's s21 draw (test_s21_zoo.draw: the value its plain carriers pass with), so what leaks here
is the carrier's doing, not the rules'. Next to each value sits a plain anchor word
(`zooanchor-<carrier>-<n>`): the checker finds the anchor's record (a JSONL line, an SQLite
cell, a whole text file: each holds plants of one carrier only) and looks for the needles there,
which names the carrier of a leak; an anchor missing from the archive
means the carrier itself was not archived (a test that could not fail).

Negatives (the s21 look-alike zoo) are planted in every carrier too, each with its own anchor.

Import explicitly:  from tests.fx_s23_zoox import build_home, Zoox, USER
"""

from __future__ import annotations

import hashlib
import json
import random
import sqlite3
import subprocess
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from tests.fx_s21_bbsql import pb_bytes, pb_int, pb_str
from tests.test_s21_zoo import NEGATIVES, ZOO, draw

USER = "vexmorrow"
CWD = f"/home/{USER}/work/zoo-api"


@dataclass(frozen=True)
class Plant:
    harness: str
    carrier: str
    family: str          # a zoo family name, or "neg:<name>" for a look-alike
    value: str
    needles: tuple[str, ...]  # for a negative: the value itself (must come out unchanged)
    anchor: str

    @property
    def negative(self) -> bool:
        return self.family.startswith("neg:")


@dataclass
class Zoox:
    home: Path
    plants: list[Plant] = field(default_factory=list)
    sessions: set[str] = field(default_factory=set)

    def carriers(self) -> list[tuple[str, str]]:
        seen: dict[tuple[str, str], None] = {}
        for p in self.plants:
            seen.setdefault((p.harness, p.carrier), None)
        return list(seen)


_DRAWS: dict[str, tuple[str, list[str]]] = {}


def _draw(name: str) -> tuple[str, list[str]]:
    if not _DRAWS:
        _DRAWS.update((f.name, draw(f)) for f in ZOO)
    return _DRAWS[name]


class Planter:
    def __init__(self, z: Zoox, harness: str) -> None:
        self.z, self.h = z, harness
        self.rng = random.Random(f"s23-zoox:{harness}")

    def items(self, carrier: str) -> list[Plant]:
        """One plant per zoo family and per look-alike for this carrier: the family's own s21 draw
        (the value test_s21_zoo checks in its plain carriers), so a leak here is the carrier's."""
        out = []
        for i, fam in enumerate(ZOO):
            value, needles = _draw(fam.name)
            out.append(Plant(self.h, carrier, fam.name, value, tuple(needles), f"zooanchor-{carrier}-{i:03d}"))
        for j, (name, value) in enumerate(NEGATIVES):
            out.append(Plant(self.h, carrier, f"neg:{name}", value, (value,), f"zooanchor-{carrier}-n{j:02d}"))
        self.z.plants.extend(out)
        return out

    def uuid4(self) -> str:
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def b62(self, n: int) -> str:
        return "".join(self.rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789") for _ in range(n))

    def hexid(self, n: int) -> str:
        return "".join(self.rng.choice("0123456789abcdef") for _ in range(n))


# ---- how a value sits in a carrier (the s21 zoo's four plain carriers, with the anchor) ----------

def prose(p: Plant) -> str:
    return f"[{p.anchor}] I looked at what the customer pasted, here it is: {p.value} - can you check it is still current?"


def shell(p: Plant) -> str:
    return f"printf '%s\\n' '{p.value}' > ./conf/current.txt && wc -c ./conf/current.txt # {p.anchor}"


def logline(p: Plant) -> str:
    return f"2024-11-03T09:14:22.517Z INFO  worker-3 {p.anchor} loaded {p.value} (source=disk)"


def filebody(p: Plant) -> str:
    """A file's content: the anchor as a comment line, then the value as it would be saved."""
    return f"# {p.anchor}\n{p.value}\n"


def joined(plants: list[Plant], fmt: Callable[[Plant], str]) -> str:
    """Many values in one file or cell, a blank line and a rule between them."""
    return "\n\n----\n\n".join(fmt(p) for p in plants) + "\n"


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")


def iso(n: int) -> str:
    return f"2026-03-14T09:{n // 3600 % 60:02d}:{n // 60 % 60:02d}.{n % 1000:03d}Z"


# ---- Claude Code ---------------------------------------------------------------------------------

def project_key(cwd: str) -> str:
    return "".join(ch if ch.isascii() and ch.isalnum() else "-" for ch in cwd)


class ClaudeLog:
    def __init__(self, g: Planter, sid: str, agent: str | None = None) -> None:
        self.g, self.sid, self.agent = g, sid, agent
        self.rows: list[dict[str, Any]] = []
        self.last: str | None = None

    def node(self, rtype: str, **fields: Any) -> str:
        u = self.g.uuid4()
        rec = {"parentUuid": self.last, "isSidechain": self.agent is not None, "userType": "external", "cwd": CWD,
               "sessionId": self.sid, "version": "2.1.310", "gitBranch": "main", "entrypoint": "cli",
               "timestamp": iso(len(self.rows)), "uuid": u, "type": rtype}
        if self.agent:
            rec["agentId"] = self.agent
        rec.update(fields)
        self.rows.append(rec)
        self.last = u
        return u

    def assistant(self, block: dict[str, Any], stop: str = "end_turn") -> str:
        return self.node("assistant", requestId="req_011" + self.g.b62(21), message={
            "id": "msg_01" + self.g.b62(22), "type": "message", "role": "assistant", "model": "claude-opus-5-5",
            "content": [block], "stop_reason": stop, "stop_sequence": None,
            "usage": {"input_tokens": 12, "output_tokens": 40}})

    def user(self, content: Any, **extra: Any) -> str:
        return self.node("user", message={"role": "user", "content": content}, **extra)

    def tool(self, name: str, inp: dict[str, Any], result: Any, tur: Any) -> None:
        tid = "toolu_01" + self.g.b62(22)
        a = self.assistant({"type": "tool_use", "id": tid, "name": name, "input": inp}, stop="tool_use")
        self.user([{"type": "tool_result", "tool_use_id": tid, "content": result, "is_error": False}],
                  sourceToolAssistantUUID=a, toolUseResult=tur)


def build_claude(z: Zoox) -> None:
    g = Planter(z, "claude-code")
    claude = z.home / ".claude"
    sid = g.uuid4()
    pdir = claude / "projects" / project_key(CWD)
    log = ClaudeLog(g, sid)
    log.user("Please review the pasted configuration values one by one.", promptSource="typed")
    ok = {"type": "text", "text": "ok"}

    for p in g.items("cc-user-prompt"):
        log.user(prose(p), promptSource="typed")
    for p in g.items("cc-assistant-text"):
        log.assistant({"type": "text", "text": prose(p)})
    for p in g.items("cc-bash-command"):
        log.tool("Bash", {"command": shell(p), "description": "save the value"}, "(no output)",
                 {"stdout": "", "stderr": "", "interrupted": False})
    for p in g.items("cc-write-content"):
        path = f"{CWD}/conf/{p.anchor}.env"
        log.tool("Write", {"file_path": path, "content": filebody(p)}, f"File created successfully at: {path}",
                 {"type": "create", "filePath": path, "content": "", "structuredPatch": []})
    for p in g.items("cc-edit-old"):
        path = f"{CWD}/conf/settings.env"
        log.tool("Edit", {"file_path": path, "old_string": filebody(p), "new_string": "# moved to the vault\n"},
                 f"The file {path} has been updated.", {"filePath": path, "oldString": "", "newString": ""})
    for p in g.items("cc-edit-new"):
        path = f"{CWD}/conf/settings.env"
        log.tool("Edit", {"file_path": path, "old_string": "# placeholder\n", "new_string": filebody(p)},
                 f"The file {path} has been updated.", {"filePath": path, "oldString": "", "newString": ""})
    for p in g.items("cc-result-string"):
        log.tool("Bash", {"command": "cat ./conf/current.txt", "description": "show it"}, logline(p),
                 {"stdout": "", "stderr": "", "interrupted": False})
    for p in g.items("cc-result-blocks"):
        log.tool("Read", {"file_path": f"{CWD}/notes.md"}, [{"type": "text", "text": filebody(p)}],
                 {"type": "text", "file": {"filePath": f"{CWD}/notes.md", "content": "", "numLines": 2}})
    for p in g.items("cc-tur-stdout"):
        log.tool("Bash", {"command": "cat ./conf/current.txt", "description": "show it"}, "(see stdout)",
                 {"stdout": logline(p), "stderr": "", "interrupted": False})
    for p in g.items("cc-tur-file-content"):
        path = f"{CWD}/notes.md"
        log.tool("Read", {"file_path": path}, "(file shown)",
                 {"type": "text", "file": {"filePath": path, "content": filebody(p), "numLines": 2}})

    # a subagent transcript with the zoo in its assistant text and tool results
    agent_id = "a" + g.hexid(16)
    sub = ClaudeLog(g, sid, agent=agent_id)
    sub.user("Check the values in the attached notes.")
    for p in g.items("cc-subagent-text"):
        sub.assistant({"type": "text", "text": prose(p)})
    for p in g.items("cc-subagent-result"):
        sub.tool("Bash", {"command": "cat notes.txt", "description": "read"}, logline(p),
                 {"stdout": logline(p), "stderr": "", "interrupted": False})
    sub_dir = pdir / sid / "subagents"
    write_jsonl(sub_dir / f"agent-{agent_id}.jsonl", sub.rows)
    (sub_dir / f"agent-{agent_id}.meta.json").write_text(json.dumps({
        "agentType": "general-purpose", "description": "check values", "toolUseId": "toolu_01" + g.b62(22),
        "spawnDepth": 1, "requestShape": "agent", "requestNonInteractive": False}))

    # sidecars: a persisted tool output, file-history backups, a session-env hook script
    out_id = "b" + g.hexid(8)
    res = pdir / sid / "tool-results" / f"{out_id}.txt"
    res.parent.mkdir(parents=True, exist_ok=True)
    res.write_text(joined(g.items("cc-tool-results-file"), logline))
    persisted = f"/home/{USER}/.claude/projects/{project_key(CWD)}/{sid}/tool-results/{out_id}.txt"
    log.tool("Bash", {"command": "./scripts/dump-config.sh", "description": "dump"},
             f"<persisted-output>\nOutput too large. Full output saved to: {persisted}\n</persisted-output>",
             {"stdout": "", "stderr": "", "interrupted": False, "persistedOutputPath": persisted, "persistedOutputSize": 99})
    fh_hash = g.hexid(16)
    fh = claude / "file-history" / sid
    fh.mkdir(parents=True)
    (fh / f"{fh_hash}@v1").write_text(joined(g.items("cc-file-history"), filebody))
    prompt_uuid = log.user("thanks", promptSource="typed")
    log.rows.append({"type": "file-history-snapshot", "messageId": prompt_uuid, "isSnapshotUpdate": False, "snapshot": {
        "messageId": prompt_uuid, "timestamp": iso(9999), "trackedFileBackups": {f"{CWD}/conf/settings.env": {
            "backupFileName": f"{fh_hash}@v1", "version": 1, "backupTime": iso(9999)}}}})
    env_dir = claude / "session-env" / sid
    env_dir.mkdir(parents=True)
    (env_dir / "sessionstart-hook-0.sh").write_text(joined(g.items("cc-session-env"), shell))
    log.assistant(ok)
    write_jsonl(pdir / f"{sid}.jsonl", log.rows)

    # global prompt history and a paste-cache body it references
    paste_hash = g.hexid(16)
    hist = [{"display": prose(p), "pastedContents": {}, "project": CWD, "sessionId": sid,
             "timestamp": 1773476103000 + i} for i, p in enumerate(g.items("cc-history"))]
    hist.append({"display": "[Pasted text #1 +400 lines]", "pastedContents": {"1": {
        "id": 1, "type": "text", "contentHash": paste_hash}}, "project": CWD, "sessionId": sid, "timestamp": 1773476200000})
    write_jsonl(claude / "history.jsonl", hist)
    (claude / "paste-cache").mkdir()
    (claude / "paste-cache" / f"{paste_hash}.txt").write_text(joined(g.items("cc-paste-cache"), filebody))
    z.sessions |= {f"claude-code:{sid}", f"claude-code:{agent_id}"}


# ---- Codex ---------------------------------------------------------------------------------------

def uuid7(rng: random.Random, ms: int) -> str:
    raw = (ms << 80) | (0x7 << 76) | (rng.getrandbits(12) << 64) | (0b10 << 62) | rng.getrandbits(62)
    return str(uuid.UUID(int=raw))


def codex_rollout(g: Planter, tid: str, prefix: str, paginated: bool) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []

    def add(rtype: str, payload: dict[str, Any]) -> None:
        rec: dict[str, Any] = {"timestamp": f"2026-03-14T08:15:{len(rows) % 60:02d}.{len(rows) % 1000:03d}Z"}
        if paginated:
            rec["ordinal"] = len(rows)
        rec.update({"type": rtype, "payload": payload})
        rows.append(rec)

    meta = {"id": tid, "session_id": tid, "timestamp": "2026-03-14T08:15:02.600Z", "cwd": CWD,
            "originator": "codex_cli_rs", "cli_version": "0.164.0", "source": "cli", "thread_source": "user",
            "model_provider": "openai", "base_instructions": {"text": "You are a coding agent."},
            "git": {"commit_hash": g.hexid(40), "branch": "main"}}
    if paginated:
        meta["history_mode"] = "paginated"
    add("session_meta", meta)
    add("turn_context", {"turn_id": uuid7(g.rng, 1773476103000), "cwd": CWD, "approval_policy": "on-request",
                         "model": "gpt-5-codex", "sandbox_policy": {"type": "workspace-write"}, "effort": "medium"})
    for p in g.items(f"{prefix}-user-text"):
        add("response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": prose(p)}]})
    for p in g.items(f"{prefix}-fc-arguments"):
        call = "call_" + g.b62(24)
        add("response_item", {"type": "function_call", "name": "exec_command", "call_id": call,
                              "arguments": json.dumps({"cmd": shell(p), "workdir": CWD})})
        add("response_item", {"type": "function_call_output", "call_id": call, "output": "Process exited with code 0\nOutput:\n"})
    for p in g.items(f"{prefix}-fc-output"):
        call = "call_" + g.b62(24)
        add("response_item", {"type": "function_call", "name": "exec_command", "call_id": call,
                              "arguments": json.dumps({"cmd": "cat ./conf/current.txt", "workdir": CWD})})
        add("response_item", {"type": "function_call_output", "call_id": call,
                              "output": "Process exited with code 0\nOutput:\n" + logline(p) + "\n"})
    if paginated:
        for p in g.items(f"{prefix}-assistant-text"):
            add("response_item", {"type": "message", "role": "assistant", "id": "msg_" + g.hexid(48),
                                  "content": [{"type": "output_text", "text": prose(p)}], "phase": "final_answer"})
        for p in g.items(f"{prefix}-event-user-message"):
            add("event_msg", {"type": "user_message", "message": prose(p), "local_images": [], "text_elements": []})
        for p in g.items(f"{prefix}-apply-patch"):
            call = "call_" + g.b62(24)
            body = "\n".join("+" + line for line in filebody(p).splitlines())
            add("response_item", {"type": "custom_tool_call", "status": "completed", "call_id": call, "name": "apply_patch",
                                  "input": f"*** Begin Patch\n*** Add File: {CWD}/conf/{p.anchor}.env\n{body}\n*** End Patch"})
            add("response_item", {"type": "custom_tool_call_output", "call_id": call,
                                  "output": [{"type": "input_text", "text": "Success."}]})
    add("event_msg", {"type": "task_complete", "turn_id": "t", "last_agent_message": "done"})
    return rows


def build_codex(z: Zoox) -> None:
    g = Planter(z, "codex")
    codex = z.home / ".codex"
    t1, t2 = uuid7(g.rng, 1773476102000), uuid7(g.rng, 1772398869000)
    f1 = codex / "sessions" / "2026" / "03" / "14" / f"rollout-2026-03-14T09-15-02-{t1}.jsonl"
    write_jsonl(f1, codex_rollout(g, t1, "cx", paginated=True))
    f2 = codex / "sessions" / "2026" / "03" / "01" / f"rollout-2026-03-01T22-01-09-{t2}.jsonl"
    write_jsonl(f2, codex_rollout(g, t2, "cxzst", paginated=False))
    subprocess.run(["zstd", "-q", "-3", "--rm", str(f2), "-o", str(f2) + ".zst"], check=True)
    f2 = Path(str(f2) + ".zst")
    write_jsonl(codex / "history.jsonl", [{"session_id": t1, "ts": 1773476103 + i, "text": prose(p)}
                                          for i, p in enumerate(g.items("cx-history"))])
    snap = codex / "shell_snapshots" / f"{t1}.{g.hexid(8)}.sh"
    snap.parent.mkdir(parents=True)
    snap.write_text(joined(g.items("cx-shell-snapshot"), shell))
    # state_5.sqlite (WAL): the thread index holds the first user message and the preview as text
    con = sqlite3.connect(codex / "state_5.sqlite", isolation_level=None)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("""CREATE TABLE threads (id TEXT PRIMARY KEY, rollout_path TEXT NOT NULL, created_at INTEGER,
        updated_at INTEGER, source TEXT, model_provider TEXT, model TEXT, cwd TEXT, title TEXT, name TEXT,
        preview TEXT, first_user_message TEXT, tokens_used INTEGER, archived INTEGER DEFAULT 0,
        git_sha TEXT, git_branch TEXT, git_origin_url TEXT, cli_version TEXT, agent_nickname TEXT,
        agent_role TEXT, history_mode TEXT, thread_source TEXT)""")
    con.execute("CREATE TABLE thread_spawn_edges (parent_thread_id TEXT, child_thread_id TEXT, status TEXT, "
                "PRIMARY KEY (parent_thread_id, child_thread_id))")
    first = joined(g.items("cx-state-first-user-message"), prose)
    preview = joined(g.items("cx-state-preview"), logline)
    for tid, path, mode in ((t1, f1, "paginated"), (t2, f2, "legacy")):
        con.execute("INSERT INTO threads VALUES (" + ",".join("?" * 22) + ")",
                    (tid, str(path), 1773476102, 1773476160, "cli", "openai", "gpt-5-codex", CWD, "zoo values",
                     "zoo", preview if tid == t2 else "values", first if tid == t1 else "values", 1280, 0,
                     g.hexid(40), "main", None, "0.164.0", None, None, mode, "user"))
    con.close()
    z.sessions |= {f"codex:{t1}", f"codex:{t2}", "codex:@host"}


# ---- Cursor agent --------------------------------------------------------------------------------

# protobuf fields as Cursor's blobs hold them: tests/fx_s21_bbsql.py's builders


def build_cursor(z: Zoox) -> None:
    g = Planter(z, "cursor-agent")
    chat = g.uuid4()
    folder = z.home / ".cursor" / "chats" / hashlib.md5(CWD.encode()).hexdigest() / chat
    folder.mkdir(parents=True)
    con = sqlite3.connect(folder / "store.db")
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("PRAGMA user_version=1")
    con.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
    con.execute("CREATE TABLE blobs (id TEXT PRIMARY KEY, data BLOB)")

    def put(data: bytes) -> bytes:
        digest = hashlib.sha256(data).digest()
        con.execute("INSERT OR REPLACE INTO blobs VALUES (?, ?)", (digest.hex(), data))
        return digest

    def put_json(obj: dict[str, Any]) -> bytes:
        return put(json.dumps(obj).encode())

    msgs = [put_json({"role": "system", "content": "You are an AI coding assistant."})]
    mirror: list[dict[str, Any]] = []
    for p in g.items("cu-json-user"):
        text = f"<user_query>\n{prose(p)}\n</user_query>"
        msgs.append(put_json({"role": "user", "content": [{"type": "text", "text": text}],
                              "providerOptions": {"cursor": {"requestId": g.uuid4()}}}))
    for p in g.items("cu-json-assistant"):
        msgs.append(put_json({"role": "assistant", "id": "1", "content": [{"type": "text", "text": prose(p)}]}))
    for p in g.items("cu-json-tool-args"):
        tc = "tool_" + g.uuid4()
        msgs.append(put_json({"role": "assistant", "id": "1", "content": [
            {"type": "tool-call", "toolCallId": tc, "toolName": "Shell",
             "args": {"command": shell(p), "working_directory": CWD}}]}))
    for p in g.items("cu-json-tool-result"):
        tc = "tool_" + g.uuid4()
        msgs.append(put_json({"role": "tool", "id": tc, "content": [
            {"type": "tool-result", "toolCallId": tc, "toolName": "Shell", "result": logline(p)}]}))
    turns = []
    for p in g.items("cu-pb-user"):
        user = put(pb_str(1, prose(p)) + pb_str(2, g.uuid4()) + pb_int(4, 1) + pb_int(25, 1760000000500))
        step = put(pb_bytes(1, pb_str(1, "Noted.") + pb_int(2, 1760000001000)))
        turns.append(put(pb_bytes(1, pb_bytes(1, user) + pb_bytes(2, step) + pb_str(3, g.uuid4()))))
    for p in g.items("cu-pb-shell-output"):
        user = put(pb_str(1, "run it") + pb_str(2, g.uuid4()))
        args = pb_str(1, "cat ./conf/current.txt") + pb_str(2, CWD)
        result = pb_bytes(1, pb_str(1, logline(p)) + pb_int(2, 0))
        step = put(pb_bytes(2, pb_bytes(1, pb_bytes(1, args) + pb_bytes(2, result)) + pb_str(57, "tool_" + g.uuid4())))
        turns.append(put(pb_bytes(1, pb_bytes(1, user) + pb_bytes(2, step))))
    root = b"".join(pb_bytes(1, m) for m in msgs) + b"".join(pb_bytes(8, t) for t in turns) + pb_str(22, "agent")
    root_id = put(root)
    meta = {"agentId": chat, "latestRootBlobId": root_id.hex(), "name": "zoo values", "createdAt": 1760000000000,
            "mode": "default", "lastUsedModel": "claude-4.5-sonnet"}
    con.execute("INSERT INTO meta VALUES ('0', ?)", (json.dumps(meta).encode().hex(),))
    con.commit()
    con.close()
    (folder / "meta.json").write_text(json.dumps({"schemaVersion": 1, "createdAtMs": 1760000000000,
                                                  "hasConversation": True, "title": "zoo values", "cwd": CWD}))
    (folder / "prompt_history.json").write_text(json.dumps([prose(p) for p in g.items("cu-prompt-history")]))
    for p in g.items("cu-mirror-jsonl"):
        mirror.append({"role": "user", "message": {"content": [{"type": "text", "text": f"<user_query>\n{prose(p)}\n</user_query>"}]}})
        mirror.append({"role": "assistant", "message": {"content": [{"type": "text", "text": "ok"}]}})
    slug = "".join(ch if ch.isalnum() else "-" for ch in CWD).strip("-")
    while "--" in slug:
        slug = slug.replace("--", "-")
    tdir = z.home / ".cursor" / "projects" / slug / "agent-transcripts" / chat
    write_jsonl(tdir / f"{chat}.jsonl", mirror)
    z.sessions.add(f"cursor-agent:{chat}")


# ---- OpenCode ------------------------------------------------------------------------------------

OC_SCHEMA = """
CREATE TABLE project (id TEXT PRIMARY KEY, worktree TEXT, vcs TEXT, name TEXT, time_created INTEGER, time_updated INTEGER);
CREATE TABLE session_v2 (id TEXT PRIMARY KEY, project_id TEXT, workspace_id TEXT, parent_id TEXT, fork_session_id TEXT,
  fork_boundary TEXT, slug TEXT, directory TEXT, path TEXT, title TEXT, version TEXT, share_url TEXT,
  summary_additions INTEGER, summary_deletions INTEGER, summary_files INTEGER, summary_diffs TEXT, metadata TEXT,
  cost REAL, tokens_input INTEGER, tokens_output INTEGER, tokens_reasoning INTEGER, tokens_cache_read INTEGER,
  tokens_cache_write INTEGER, revert TEXT, permission TEXT, agent TEXT, model TEXT, time_created INTEGER,
  time_updated INTEGER, time_idle INTEGER, idle_outcome TEXT, time_viewed INTEGER, time_compacting INTEGER,
  time_archived INTEGER, time_suspended INTEGER, resume_attempts INTEGER);
CREATE TABLE session_message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL REFERENCES session_v2(id) ON DELETE CASCADE,
  type TEXT NOT NULL, seq INTEGER NOT NULL, time_created INTEGER, time_updated INTEGER, data TEXT NOT NULL);
CREATE UNIQUE INDEX session_message_seq ON session_message(session_id, seq);
CREATE TABLE event_sequence (aggregate_id TEXT PRIMARY KEY, seq INTEGER, owner_id TEXT);
CREATE TABLE migration (id TEXT PRIMARY KEY, time_created INTEGER);
CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT, parent_id TEXT, slug TEXT, directory TEXT, title TEXT,
  version TEXT, time_created INTEGER, time_updated INTEGER);
CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT, time_created INTEGER, time_updated INTEGER, data TEXT);
CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT, session_id TEXT, time_created INTEGER, time_updated INTEGER, data TEXT);
"""


def build_opencode(z: Zoox) -> None:
    g = Planter(z, "opencode")
    data = z.home / ".local" / "share" / "opencode"
    data.mkdir(parents=True)
    con = sqlite3.connect(data / "opencode.db")
    con.execute("PRAGMA journal_mode=WAL")
    con.executescript(OC_SCHEMA)
    project = "prj_" + g.hexid(40)
    con.execute("INSERT INTO project VALUES (?,?,?,?,?,?)", (project, CWD, "git", "zoo-api", 1767261600000, 1767261600000))
    oc_id = lambda prefix: f"{prefix}_{g.hexid(12)}{g.b62(14)}"  # noqa: E731
    main, legacy = oc_id("ses"), oc_id("ses")
    for sid, version in ((main, "2.1.4"), (legacy, "1.0.150")):
        con.execute("INSERT INTO session_v2 (id, project_id, slug, directory, path, title, version, agent, model, "
                    "time_created, time_updated, idle_outcome) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                    (sid, project, "quiet-river", CWD, "api", "zoo values", version, "build",
                     json.dumps({"id": "claude-sonnet-4-5", "providerID": "anthropic"}), 1767261600000, 1767261660000,
                     "succeeded"))
    seq = [0]

    def row(typ: str, body: dict[str, Any]) -> None:
        seq[0] += 1
        t = 1767261600000 + seq[0] * 1000
        body.setdefault("time", {"created": t})
        con.execute("INSERT INTO session_message VALUES (?,?,?,?,?,?,?)",
                    (oc_id("msg"), main, typ, seq[0], t, t + 5, json.dumps(body)))

    model = {"id": "claude-sonnet-4-5", "providerID": "anthropic"}
    for p in g.items("oc-user-text"):
        row("user", {"text": prose(p)})
    for p in g.items("oc-assistant-text"):
        row("assistant", {"agent": "build", "model": model, "content": [{"type": "text", "text": prose(p)}], "finish": "stop"})
    for p in g.items("oc-tool-input"):
        row("assistant", {"agent": "build", "model": model, "finish": "tool-calls", "content": [
            {"type": "tool", "id": "toolu_" + g.b62(24), "name": "shell", "executed": True,
             "state": {"status": "completed", "input": {"command": shell(p)}, "content": [{"type": "text", "text": "ok"}]}}]})
    for p in g.items("oc-tool-content"):
        row("assistant", {"agent": "build", "model": model, "finish": "tool-calls", "content": [
            {"type": "tool", "id": "toolu_" + g.b62(24), "name": "shell", "executed": True,
             "state": {"status": "completed", "input": {"command": "cat ./conf/current.txt"},
                       "content": [{"type": "text", "text": logline(p)}]}}]})
    con.execute("INSERT INTO event_sequence VALUES (?,?,NULL)", (main, seq[0]))
    # 1.x rows an upgraded install keeps: message + part tables with JSON in TEXT
    con.execute("INSERT INTO session VALUES (?,?,?,?,?,?,?,?,?)", (legacy, project, None, "old-slug", CWD, "zoo", "1.0.150", 1, 2))
    umsg, amsg = oc_id("msg"), oc_id("msg")
    con.execute("INSERT INTO message VALUES (?,?,?,?,?)", (umsg, legacy, 1, 1, json.dumps(
        {"role": "user", "time": {"created": 1}, "agent": "build", "model": {"providerID": "anthropic", "modelID": "claude"}})))
    con.execute("INSERT INTO message VALUES (?,?,?,?,?)", (amsg, legacy, 2, 2, json.dumps(
        {"role": "assistant", "parentID": umsg, "modelID": "claude", "providerID": "anthropic", "mode": "build",
         "path": {"cwd": CWD, "root": CWD}, "time": {"created": 2}})))
    for p in g.items("oc-part-text"):
        con.execute("INSERT INTO part VALUES (?,?,?,?,?,?)", (oc_id("prt"), umsg, legacy, 1, 1, json.dumps(
            {"type": "text", "text": prose(p)})))
    for p in g.items("oc-part-tool"):
        con.execute("INSERT INTO part VALUES (?,?,?,?,?,?)", (oc_id("prt"), amsg, legacy, 1, 1, json.dumps(
            {"type": "tool", "callID": "toolu_" + g.b62(24), "tool": "bash", "state": {
                "status": "completed", "input": {"command": shell(p)}, "output": logline(p), "title": "bash",
                "metadata": {}, "time": {"start": 1, "end": 2}}})))
    con.commit()
    con.close()
    # pre-SQLite JSON storage (1.x): a session known only from its info file, a message and its parts
    old = oc_id("ses")
    st = data / "storage"
    (st / "session" / project).mkdir(parents=True)
    (st / "session" / project / f"{old}.json").write_text(json.dumps(
        {"id": old, "projectID": project, "directory": CWD, "title": "zoo", "version": "0.15.0",
         "time": {"created": 1740000000000, "updated": 1740000060000}}))
    msg = oc_id("msg")
    (st / "message" / old).mkdir(parents=True)
    (st / "message" / old / f"{msg}.json").write_text(json.dumps({"id": msg, "sessionID": old, "role": "user", "time": {"created": 1}}))
    (st / "part" / msg).mkdir(parents=True)
    for p in g.items("oc-storage-part"):
        prt = oc_id("prt")
        (st / "part" / msg / f"{prt}.json").write_text(json.dumps(
            {"id": prt, "sessionID": old, "messageID": msg, "type": "text", "text": prose(p)}))
    z.sessions |= {f"opencode:{main}", f"opencode:{legacy}", f"opencode:{old}"}


# ---- pi and the DeepSeek harness -----------------------------------------------------------------

def build_pi(z: Zoox) -> None:
    g = Planter(z, "pi")
    sid = uuid7(g.rng, 1767261600000)
    rows: list[dict[str, Any]] = [{"type": "session", "version": 3, "id": sid, "timestamp": "2026-01-01T10:00:00.000Z", "cwd": CWD}]
    last: list[str | None] = [None]

    def entry(msg: dict[str, Any]) -> None:
        eid = g.hexid(8)
        rows.append({"type": "message", "id": eid, "parentId": last[0], "timestamp": iso(len(rows)),
                     "message": {"timestamp": 1767261600000 + len(rows), **msg}})
        last[0] = eid

    assistant = {"role": "assistant", "api": "anthropic-messages", "provider": "anthropic", "model": "claude-sonnet-4-5",
                 "stopReason": "stop"}
    for p in g.items("pi-user-text"):
        entry({"role": "user", "content": prose(p)})
    for p in g.items("pi-assistant-text"):
        entry({**assistant, "content": [{"type": "text", "text": prose(p)}]})
    for p in g.items("pi-toolcall-arguments"):
        call = "toolu_01" + g.b62(22)
        entry({**assistant, "stopReason": "toolUse", "content": [
            {"type": "toolCall", "id": call, "name": "bash", "arguments": {"command": shell(p)}}]})
        entry({"role": "toolResult", "toolCallId": call, "toolName": "bash", "content": [{"type": "text", "text": "ok"}],
               "isError": False})
    for p in g.items("pi-toolresult-text"):
        call = "toolu_01" + g.b62(22)
        entry({**assistant, "stopReason": "toolUse", "content": [
            {"type": "toolCall", "id": call, "name": "bash", "arguments": {"command": "cat ./conf/current.txt"}}]})
        entry({"role": "toolResult", "toolCallId": call, "toolName": "bash",
               "content": [{"type": "text", "text": logline(p)}], "isError": False})
    d = "--" + CWD.lstrip("/").replace("/", "-") + "--"
    write_jsonl(z.home / ".pi" / "agent" / "sessions" / d / f"2026-01-01T10-00-00-000Z_{sid}.jsonl", rows)
    z.sessions.add(f"pi:{sid}")


def build_deepseek(z: Zoox) -> None:
    g = Planter(z, "deepseek-harness")
    sid = uuid7(g.rng, 1767600000000)
    rows: list[dict[str, Any]] = [{"type": "session", "version": 3, "id": sid, "createdAt": 1767600000000, "cwd": CWD,
                                   "isSeeded": False, "delegationDepth": 0}]

    def ev(etype: str, data: Any, **env: Any) -> None:
        rows.append({"type": etype, "seq": len(rows) - 1, "time": 1767600000000 + 700 * len(rows), "data": data, **env})

    src = {"kind": "model", "provider": "deepseek", "model": "deepseek-v4"}
    for p in g.items("ds-user-text"):
        ev("user/message", {"id": g.uuid4(), "role": "user", "content": [{"type": "text", "text": prose(p)}],
                            "source": {"kind": "user"}}, surfaceOp="append")
    for p in g.items("ds-assistant-text"):
        ev("assistant/message", {"turn": 0, "step": 0, "message": {"id": g.uuid4(), "role": "assistant",
                                 "content": [{"type": "text", "text": prose(p)}], "source": src}}, surfaceOp="append")
    for p in g.items("ds-tool-arguments"):
        call = "call_" + g.b62(24)
        args = json.dumps({"command": shell(p)})
        ev("assistant/message", {"turn": 0, "step": 0, "message": {"id": g.uuid4(), "role": "assistant", "content": [
            {"type": "tool-call", "id": call, "name": "bash", "arguments": args}], "source": src}}, surfaceOp="append")
        ev("tool/call", {"turn": 0, "step": 0, "callId": call, "name": "bash", "arguments": args})
    for p in g.items("ds-tool-result"):
        call = "call_" + g.b62(24)
        ev("tool/result", {"turn": 0, "step": 0, "message": {"id": g.uuid4(), "role": "user",
                           "source": {"kind": "tool", "callId": call}, "content": [
                               {"type": "tool-result", "toolCallId": call, "isError": False,
                                "content": [{"type": "text", "text": logline(p)}]}]}}, surfaceOp="append")
    write_jsonl(z.home / ".deepseek" / "sessions" / f"{sid}.jsonl", rows)
    z.sessions.add(f"deepseek-harness:{sid}")


def build_home(base: Path) -> Zoox:
    home = base / "home" / USER
    home.mkdir(parents=True)
    z = Zoox(home=home)
    build_claude(z)
    build_codex(z)
    build_cursor(z)
    build_opencode(z)
    build_pi(z)
    build_deepseek(z)
    return z
