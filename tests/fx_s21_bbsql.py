"""Unseen Cursor agent and OpenCode sessions, written from the seeds alone.

Every string field the seeds mark as user data or free text gets its own canary
(e-mail, home path with the username, GitHub token, AWS key id, password
assignment, the username in prose); ids (uuids, tool-call ids, blob hashes, git
SHAs, ses_/msg_ ids) are realistic and must survive. The builder returns what it
planted so the checks can compare: sessions, canaries, ids, lineage edges and
the files each family must restore to.
"""
from __future__ import annotations

import base64
import hashlib
import json
import random
import re
import sqlite3
import string
import subprocess
import uuid
from dataclasses import dataclass, field
from pathlib import Path

USER = "zoltanvek"
B62 = string.ascii_letters + string.digits


@dataclass
class Canary:
    tag: str
    email: str
    path: str
    ghp: str
    akia: str
    password: str

    def text(self) -> str:
        return (f"[{self.tag}] mail {self.email} about {self.path} token {self.ghp} "
                f"key {self.akia} password={self.password} and ask {USER} later")

    def secrets(self) -> dict[str, str]:
        return {"email": self.email, "ghp": self.ghp, "akia": self.akia,
                "password": self.password, "path": self.path}


@dataclass
class Planted:
    home: Path
    sessions: set[str] = field(default_factory=set)
    canaries: list[Canary] = field(default_factory=list)
    ids: dict[str, str] = field(default_factory=dict)  # id -> where planted
    edges: set[tuple[str, str, str]] = field(default_factory=set)  # child, parent, relation
    families: dict[str, set[str]] = field(default_factory=dict)  # top key -> member keys
    cursor_chats: dict[str, dict] = field(default_factory=dict)  # chat id -> layout facts
    opencode: dict[str, dict] = field(default_factory=dict)  # ses id -> facts
    open_connections: list[sqlite3.Connection] = field(default_factory=list)
    snapshot_dirs: set[str] = field(default_factory=set)  # relative to the OpenCode data dir
    snapshot_users: set[str] = field(default_factory=set)  # OpenCode sessions whose rows name snapshot trees
    encoded: dict[str, str] = field(default_factory=dict)  # base64/hex form of planted text -> tag

    def close(self) -> None:
        for con in self.open_connections:
            con.close()
        self.open_connections.clear()


class Gen:
    def __init__(self, home: Path, seed: int = 2121) -> None:
        self.rng = random.Random(seed)
        self.out = Planted(home=home)
        self.n = 0
        self.sub_mirrors: dict[str, list[dict]] = {}

    def canary(self, tag: str) -> str:
        self.n += 1
        r = self.rng
        c = Canary(
            tag=tag,
            email=f"{r.choice(['vera', 'ilse', 'otto', 'mika'])}.q{self.n}x@nordwind-labs.io",
            path=f"/home/{USER}/work/cnr{self.n}/notes.md",
            ghp="ghp_" + "".join(r.choice(B62) for _ in range(36)),
            akia="AKIA" + "".join(r.choice(string.ascii_uppercase + "234567") for _ in range(16)),
            password="".join(r.choice(B62) for _ in range(10)) + str(r.randint(10, 99)) + "Qz",
        )
        self.out.canaries.append(c)
        return c.text()

    def uuid(self, where: str) -> str:
        u = str(uuid.UUID(int=self.rng.getrandbits(128), version=4))
        self.out.ids[u] = where
        return u

    def hexid(self, n: int, where: str) -> str:
        h = "".join(self.rng.choice("0123456789abcdef") for _ in range(n))
        self.out.ids[h] = where
        return h

    def b62(self, n: int) -> str:
        return "".join(self.rng.choice(B62) for _ in range(n))

    def oc_id(self, prefix: str, where: str) -> str:
        i = f"{prefix}_{self.hexid(12, where)[:12]}{self.b62(14)}"
        self.out.ids.pop(i[len(prefix) + 1:len(prefix) + 13], None)
        self.out.ids[i] = where
        return i


# ---------------------------------------------------------------- protobuf
def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def pb_bytes(num: int, data: bytes) -> bytes:
    return _varint(num << 3 | 2) + _varint(len(data)) + data


def pb_str(num: int, s: str) -> bytes:
    return pb_bytes(num, s.encode())


def pb_int(num: int, n: int) -> bytes:
    return _varint(num << 3) + _varint(n)


def pb_map(num: int, key: str, value: bytes) -> bytes:
    return pb_bytes(num, pb_str(1, key) + pb_bytes(2, value))


def _planted_hex(g: Gen, tag: str) -> str:
    h = g.canary(tag).encode().hex()
    g.out.encoded[h] = tag
    return h


def _planted_b64(g: Gen, tag: str) -> str:
    b = base64.b64encode(g.canary(tag).encode()).decode()
    g.out.encoded[b] = tag
    return b


# ---------------------------------------------------------------- cursor
def cursor_slug(cwd: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", cwd).strip("-")


def cursor_md5(cwd: str) -> str:
    return hashlib.md5(cwd.encode()).hexdigest()


class CursorStore:
    """One store.db being written: blobs keyed by sha256, meta row as hex JSON."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.con = sqlite3.connect(path)
        self.con.execute("PRAGMA journal_mode=WAL")
        self.con.execute("PRAGMA wal_autocheckpoint=0")
        self.con.execute("PRAGMA user_version=1")
        self.con.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)")
        self.con.execute("CREATE TABLE IF NOT EXISTS blobs (id TEXT PRIMARY KEY, data BLOB)")
        self.con.commit()

    def put(self, data: bytes) -> bytes:
        digest = hashlib.sha256(data).digest()
        self.con.execute("INSERT OR REPLACE INTO blobs VALUES (?, ?)", (digest.hex(), data))
        return digest

    def put_json(self, obj: dict) -> bytes:
        return self.put(json.dumps(obj).encode())

    def set_meta(self, meta: dict) -> None:
        value = json.dumps(meta).encode().hex()
        self.con.execute("INSERT OR REPLACE INTO meta VALUES ('0', ?)", (value,))
        self.con.commit()


def _cursor_prompt_messages(g: Gen, st: CursorStore, chat: str, tcid: str, rid: str,
                            with_media: bool) -> tuple[list[bytes], list[dict]]:
    """JSON prompt-message blobs and the JSONL mirror lines derived from them."""
    user_query = g.canary(f"cursor.{chat}.json.user_query")
    assistant_text = g.canary(f"cursor.{chat}.json.assistant.text")
    msgs = [
        {"role": "system", "content": "You are an AI coding assistant. " + g.canary(f"cursor.{chat}.json.system")},
        {"role": "user", "content": "<user_info>\n" + g.canary(f"cursor.{chat}.json.user_info") + "\n</user_info>",
         "providerOptions": {"cursor": {"requestContextCompleteness": {"env": True, "gitRepos": True}}}},
        {"role": "user", "content": [{"type": "text", "text": f"<user_query>\n{user_query}\n</user_query>"}],
         "providerOptions": {"cursor": {"requestId": rid}}},
        {"role": "assistant", "id": "1", "content": [
            {"type": "redacted-reasoning", "data": base64.b64encode(g.rng.randbytes(48)).decode(),
             "providerOptions": {"cursor": {"modelName": "claude-4.5-sonnet"}}},
            {"type": "reasoning", "text": g.canary(f"cursor.{chat}.json.reasoning")},
            {"type": "text", "text": assistant_text},
            {"type": "tool-call", "toolCallId": tcid, "toolName": "Shell",
             "args": {"command": "cat ~/.netrc # " + g.canary(f"cursor.{chat}.json.tool_call.args"),
                      "working_directory": f"/home/{USER}/src/orbit"}}],
         "providerOptions": {"cursor": {"pendingToolCallStartedAtMs": 1760000001000}}},
        {"role": "tool", "id": tcid, "content": [
            {"type": "tool-result", "toolCallId": tcid, "toolName": "Shell",
             "result": g.canary(f"cursor.{chat}.json.tool_result.result"),
             "experimental_content": [{"type": "text", "text": g.canary(f"cursor.{chat}.json.tool_result.experimental")}]}],
         "providerOptions": {"cursor": {"highLevelToolCallResult": {
             "output": {"success": {"stdout": g.canary(f"cursor.{chat}.json.hltcr.stdout"), "exitCode": 0},
                        "isBackground": False, "terminalsFolder": f"/home/{USER}/.cursor/projects/x/terminals"},
             "isError": False, "rawErrorMessages": [g.canary(f"cursor.{chat}.json.hltcr.raw_error")]}}}},
    ]
    if with_media:
        msgs.append({"role": "user", "content": [
            {"type": "text", "text": "<user_query>\n" + g.canary(f"cursor.{chat}.json.user2") + "\n</user_query>"},
            {"type": "image", "image": {"__type": "Uint8Array", "hex": "89504e470d0a1a0a"}, "mimeType": "image/png"},
            {"type": "file", "filename": f"/home/{USER}/Documents/q{g.n}-payroll.pdf",
             "mimeType": "application/pdf", "data": {"__type": "Uint8Array", "hex": "255044462d312e34"}},
            {"type": "file", "filename": "creds.env", "mimeType": "text/plain",
             "data": {"__type": "Uint8Array", "hex": _planted_hex(g, f"cursor.{chat}.json.file.hex_data")}}]})
    ids = [st.put_json(m) for m in msgs]
    jsonl = [
        {"role": "user", "message": {"content": [{"type": "text", "text": f"<user_query>\n{user_query}\n</user_query>"}]}},
        {"role": "assistant", "message": {"content": [
            {"type": "text", "text": "[REDACTED]\n\n" + assistant_text},
            {"type": "tool_use", "name": "Shell", "input": {"command": g.canary(f"cursor.{chat}.jsonl.tool_use.input")}}]}},
    ]
    return ids, jsonl


def _cursor_turn(g: Gen, st: CursorStore, chat: str, prev_root: bytes, tcid: str, rid: str,
                 terminal: str | None) -> bytes:
    image = st.put(b"\x89PNG\r\n\x1a\n" + g.rng.randbytes(32))
    user_msg = (pb_str(1, g.canary(f"cursor.{chat}.pb.user.text"))
                + pb_str(2, g.uuid(f"cursor {chat} UserMessage.message_id"))
                + pb_bytes(3, pb_bytes(1, pb_bytes(1, image) + pb_str(2, g.uuid(f"cursor {chat} SelectedImage.uuid"))
                                       + pb_str(3, f"/home/{USER}/Pictures/shot{g.n}.png") + pb_str(5, "image/png")))
                + pb_int(4, 1) + pb_bytes(10, prev_root)
                + pb_str(17, g.uuid(f"cursor {chat} thread_id"))
                + pb_str(8, g.canary(f"cursor.{chat}.pb.user.rich_text"))
                + pb_bytes(21, pb_str(1, "sessionStart") + pb_str(2, g.canary(f"cursor.{chat}.pb.user.hook_ctx")))
                + pb_int(25, 1760000000500) + pb_int(26, 1760000009000))
    assistant = pb_bytes(1, pb_str(1, g.canary(f"cursor.{chat}.pb.assistant")) + pb_int(2, 1760000001000))
    thinking = pb_bytes(3, pb_str(1, g.canary(f"cursor.{chat}.pb.thinking")) + pb_int(2, 1200))
    shell_args = pb_str(1, "printenv | grep " + g.canary(f"cursor.{chat}.pb.shell.args")) + pb_str(2, f"/home/{USER}/src/orbit")
    shell_result = pb_bytes(1, pb_str(1, g.canary(f"cursor.{chat}.pb.shell.stdout")) + pb_int(2, 0)
                            + (pb_str(3, terminal) if terminal else b""))
    tool = pb_bytes(2, pb_bytes(1, pb_bytes(1, shell_args) + pb_bytes(2, shell_result))
                    + pb_str(57, tcid) + pb_int(59, 1760000002000) + pb_int(60, 1760000003000))
    edit = pb_bytes(2, pb_bytes(12, pb_bytes(1, pb_str(1, f"/home/{USER}/src/orbit/config.py"))
                                + pb_bytes(2, pb_bytes(1, pb_str(1, g.canary(f"cursor.{chat}.pb.edit.before"))
                                                       + pb_str(2, g.canary(f"cursor.{chat}.pb.edit.after")))))
                    + pb_str(57, "tool_" + g.uuid(f"cursor {chat} edit tool_call_id")))
    steps = [st.put(s) for s in (thinking, assistant, tool, edit)]
    turn = pb_bytes(1, pb_bytes(1, st.put(user_msg)) + b"".join(pb_bytes(2, s) for s in steps)
                    + pb_str(3, rid) + pb_str(4, base64.b64encode(g.rng.randbytes(30)).decode())
                    + pb_str(7, "Auto (sonnet)") + pb_str(10, g.uuid(f"cursor {chat} user_message_id")))
    return st.put(turn)


def _cursor_shell_turn(g: Gen, st: CursorStore, chat: str) -> bytes:
    cmd = st.put(pb_str(1, "export GH=" + g.canary(f"cursor.{chat}.pb.shellturn.command")))
    out = st.put(pb_str(1, g.canary(f"cursor.{chat}.pb.shellturn.stdout"))
                 + pb_str(2, g.canary(f"cursor.{chat}.pb.shellturn.stderr")) + pb_int(3, 1))
    return st.put(pb_bytes(2, pb_bytes(1, cmd) + pb_bytes(2, out)))


def _cursor_subagent_state(g: Gen, st: CursorStore, sub: str, parent_tc: str) -> bytes:
    rid = g.uuid(f"cursor subagent {sub} request_id")
    tcid = "tool_" + g.uuid(f"cursor subagent {sub} tool call")
    msgs, mirror = _cursor_prompt_messages(g, st, sub, tcid, rid, with_media=False)
    g.sub_mirrors[sub] = mirror
    inner = b"".join(pb_bytes(1, m) for m in msgs) + pb_str(22, "explore")
    return (pb_bytes(1, inner) + pb_int(2, 1760000002000) + pb_int(3, 1760000004000)
            + pb_bytes(4, pb_bytes(2, pb_str(1, "explore-" + g.canary(f"cursor.{sub}.pb.subagent_type"))))
            + pb_str(5, "gpt-5") + pb_bytes(6, b"")
            + pb_bytes(7, pb_str(1, "bc-" + g.hexid(16, f"cursor {sub} bc_id"))
                       + pb_str(2, f"/home/{USER}/.cursor/cloud/{sub}.jsonl")))


def _cursor_chat(g: Gen, cwd: str, chat: str, *, subagents: list[str], name: str | None = None,
                 separate_parent: dict | None = None) -> tuple[CursorStore, dict]:
    home = g.out.home
    folder = home / ".cursor" / "chats" / cursor_md5(cwd) / chat
    st = CursorStore(folder / "store.db")
    tcid = "tool_" + g.uuid(f"cursor {chat} toolCallId")
    rid = g.uuid(f"cursor {chat} requestId")
    term_name = f"{g.n}.txt"
    terminal = f"/home/{USER}/.cursor/projects/{cursor_slug(cwd)}/terminals/{term_name}"

    old_root = st.put(pb_str(2, "removed-field " + g.canary(f"cursor.{chat}.pb.old_root.field2"))
                      + pb_str(18, f"/home/{USER}/src/stale{g.n}.py"))
    rewound = st.put(pb_bytes(1, pb_str(1, g.canary(f"cursor.{chat}.pb.rewound_step"))))
    msgs, jsonl = _cursor_prompt_messages(g, st, chat, tcid, rid, with_media=True)
    turn = _cursor_turn(g, st, chat, old_root, tcid, rid, terminal)
    shell_turn = _cursor_shell_turn(g, st, chat)
    todo = st.put(pb_str(1, "1") + pb_str(2, g.canary(f"cursor.{chat}.pb.todo")) + pb_int(3, 2)
                  + pb_int(4, 1760000000000) + pb_int(5, 1760000001000) + pb_str(6, "0"))
    summary = st.put(pb_str(1, g.canary(f"cursor.{chat}.pb.summary")))
    compacted = st.put_json({"role": "user", "content": [{"type": "text", "text": g.canary(f"cursor.{chat}.json.compacted")}]})
    summary_msg = st.put_json({"role": "user", "content": [{"type": "text", "text": g.canary(f"cursor.{chat}.json.summary_msg")}],
                               "providerOptions": {"cursor": {"isSummary": True}}})
    archive = st.put(pb_bytes(1, compacted) + pb_str(2, g.canary(f"cursor.{chat}.pb.archive.summary"))
                     + pb_int(3, 4) + pb_bytes(4, summary_msg))
    file_now = st.put(json.dumps({"name": "orbit", "author": g.canary(f"cursor.{chat}.raw.package_json")}).encode())
    file_before = st.put(("API_KEY = '" + g.canary(f"cursor.{chat}.raw.file_before") + "'\n").encode())
    sha = g.hexid(40, f"cursor {chat} git sha")
    root = (b"".join(pb_bytes(1, m) for m in msgs) + pb_bytes(8, turn) + pb_bytes(8, shell_turn)
            + pb_bytes(3, todo) + pb_str(4, tcid)
            + pb_bytes(5, pb_int(1, 12000) + pb_int(2, 200000))
            + pb_bytes(6, summary) + pb_str(9, f"file:///home/{USER}/src/orbit-old") + pb_int(10, 1)
            + pb_bytes(13, archive) + pb_bytes(14, pb_int(1, 900) + pb_int(2, 1760000003000))
            + pb_map(15, f"/home/{USER}/src/orbit/package.json", pb_bytes(1, file_now) + pb_bytes(2, file_before))
            + pb_str(18, f"/home/{USER}/src/orbit/.env")
            + pb_str(19, f"fix/{USER}-{sha}")
            + pb_bytes(21, pb_str(1, f"/home/{USER}/src/orbit") + pb_str(2, "main"))
            + pb_str(22, "agent") + pb_int(26, 1760000000000) + pb_str(27, "Europe/Berlin")
            + pb_str(38, g.uuid(f"cursor {chat} recent_user_message_id")))
    sub_jsonl: dict[str, list[dict]] = {}
    for i, sub in enumerate(subagents):
        parent_tc = "tool_" + g.uuid(f"cursor {chat} Task call for {sub}")
        state = _cursor_subagent_state(g, st, sub, parent_tc)
        if i % 2 == 0:
            root += pb_map(16, sub, state)
        else:
            root += pb_map(31, sub, st.put(state))
        run = (pb_str(1, parent_tc) + pb_str(2, sub) + pb_int(4, 4)
               + pb_str(5, g.canary(f"cursor.{sub}.pb.run.title")) + pb_str(6, g.canary(f"cursor.{sub}.pb.run.detail"))
               + pb_str(7, f"/home/{USER}/.cursor/projects/{cursor_slug(cwd)}/agent-transcripts/{chat}/subagents/{sub}.jsonl"))
        root += pb_map(30, parent_tc, run)
        sub_jsonl[sub] = [{"role": "user", "message": {"content": [{"type": "text", "text": "<user_query>\n"
                          + g.canary(f"cursor.{sub}.jsonl.user") + "\n</user_query>"}]}},
                          {"role": "assistant", "message": {"content": [{"type": "text", "text": g.canary(f"cursor.{sub}.jsonl.assistant")}]}}]
        sub_jsonl[sub] += g.sub_mirrors.pop(sub)
    root_id = st.put(root)
    meta = {"agentId": chat, "latestRootBlobId": root_id.hex(),
            "name": name or g.canary(f"cursor.{chat}.meta.name"), "createdAt": 1760000000000,
            "mode": "default", "isRunEverything": False, "approvalMode": "unrestricted",
            "lastUsedModel": "claude-4.5-sonnet", "lastDebugServerPort": 41999,
            "currentPlanUri": f"file:///home/{USER}/.cursor/plans/p{g.n}.md",
            # a random key of unknown purpose: a secret to redact, not an id to keep
            "blobEncryptionKey": "".join(g.rng.choice("0123456789abcdef") for _ in range(64))}
    if separate_parent:
        meta["subagentInfo"] = separate_parent
    st.set_meta(meta)
    g.out.ids[root_id.hex()] = f"cursor {chat} latestRootBlobId"
    del rewound
    sidecar = {"schemaVersion": 1, "createdAtMs": 1760000000000, "updatedAtMs": 1760000300000,
               "hasConversation": True, "title": meta["name"], "cwd": cwd}
    if separate_parent:
        sidecar["isSubagent"] = True
    (folder / "meta.json").write_text(json.dumps(sidecar))
    (folder / "prompt_history.json").write_text(json.dumps(
        [g.canary(f"cursor.{chat}.prompt_history.0"), g.canary(f"cursor.{chat}.prompt_history.1")]))
    proj = home / ".cursor" / "projects" / cursor_slug(cwd)
    tdir = proj / "agent-transcripts" / chat
    tdir.mkdir(parents=True, exist_ok=True)
    lines = [{"type": "metadata", "metadata": {"overview": g.canary(f"cursor.{chat}.jsonl.metadata.overview")}}]
    lines += jsonl + [{"type": "turn_ended", "status": "error", "error": g.canary(f"cursor.{chat}.jsonl.turn_ended.error")}]
    (tdir / f"{chat}.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    for sub, sl in sub_jsonl.items():
        (tdir / "subagents").mkdir(exist_ok=True)
        (tdir / "subagents" / f"{sub}.jsonl").write_text("".join(json.dumps(x) + "\n" for x in sl))
    (proj / "terminals").mkdir(exist_ok=True)
    (proj / "terminals" / term_name).write_text("$ env\n" + g.canary(f"cursor.{chat}.terminal") + "\n")
    facts = {"cwd": cwd, "store": True, "jsonl": True, "subagents": list(subagents), "terminal": term_name}
    return st, facts


def build_cursor(g: Gen) -> None:
    out = g.out
    cwd_a = f"/home/{USER}/src/orbit"
    cwd_b = f"/home/{USER}/clients/acme corp/api"
    main = g.uuid("cursor main chat id")
    subs = [g.uuid("cursor inline subagent id"), g.uuid("cursor ref subagent id")]
    st, facts = _cursor_chat(g, cwd_a, main, subagents=subs)
    # a row that only lives in the -wal: the store stays open while sync runs
    st.put(("late " + g.canary(f"cursor.{main}.wal_only_blob")).encode())
    st.con.commit()
    out.open_connections.append(st.con)
    out.cursor_chats[main] = facts

    sep = g.uuid("cursor separate-store subagent id")
    sst, sfacts = _cursor_chat(g, cwd_a, sep, subagents=[], separate_parent={
        "parentAgentId": main, "rootParentAgentId": main,
        "toolCallId": "tool_" + g.uuid("cursor separate subagent toolCallId"), "typeName": "explore"})
    sst.con.close()
    out.cursor_chats[sep] = sfacts

    src = g.uuid("cursor fork source chat id")
    fst, ffacts = _cursor_chat(g, cwd_b, src, subagents=[], name="Refactor " + g.canary("cursor.forksrc.meta.name"))
    fst.con.commit()
    out.cursor_chats[src] = ffacts
    fork = g.uuid("cursor fork chat id")
    fork_dir = g.out.home / ".cursor" / "chats" / cursor_md5(cwd_b) / fork
    fork_dir.mkdir(parents=True)
    fcon = sqlite3.connect(fork_dir / "store.db")
    fst.con.backup(fcon)
    fst.con.close()
    meta = json.loads(bytes.fromhex(fcon.execute("SELECT value FROM meta WHERE key='0'").fetchone()[0]))
    meta.update(agentId=fork, name=meta["name"] + " (forked)", createdAt=1760000500000)
    fcon.execute("UPDATE meta SET value=? WHERE key='0'", (json.dumps(meta).encode().hex(),))
    fcon.commit()
    fcon.execute("PRAGMA journal_mode=WAL")
    fcon.close()
    (fork_dir / "meta.json").write_text(json.dumps({"schemaVersion": 1, "createdAtMs": 1760000500000,
                                                    "hasConversation": True, "title": meta["name"], "cwd": cwd_b}))
    out.cursor_chats[fork] = {"cwd": cwd_b, "store": True, "jsonl": False, "subagents": [], "terminal": None}

    empty = g.uuid("cursor chat without checkpoint")
    est = CursorStore(g.out.home / ".cursor" / "chats" / cursor_md5(cwd_b) / empty / "store.db")
    est.set_meta({"agentId": empty, "latestRootBlobId": "", "name": g.canary(f"cursor.{empty}.meta.name"),
                  "createdAt": 1760000600000, "mode": "plan", "isRunEverything": False})
    est.con.close()
    out.cursor_chats[empty] = {"cwd": cwd_b, "store": True, "jsonl": False, "subagents": [], "terminal": None}

    acp = g.uuid("cursor acp session id")
    ast = CursorStore(g.out.home / ".cursor" / "acp-sessions" / acp / "store.db")
    root = ast.put(pb_bytes(1, ast.put_json({"role": "user", "content": [
        {"type": "text", "text": "<user_query>\n" + g.canary(f"cursor.{acp}.acp.user") + "\n</user_query>"}]})))
    ast.set_meta({"agentId": acp, "latestRootBlobId": root.hex(), "name": g.canary(f"cursor.{acp}.acp.meta.name"),
                  "createdAt": 1760000700000, "mode": "default", "isRunEverything": True})
    ast.con.close()
    (g.out.home / ".cursor" / "acp-sessions" / acp / "meta.json").write_text(json.dumps(
        {"schemaVersion": 1, "cwd": cwd_a, "title": g.canary(f"cursor.{acp}.acp.meta_json.title")}))
    out.cursor_chats[acp] = {"cwd": cwd_a, "store": True, "jsonl": False, "subagents": [], "terminal": None, "acp": True}

    orphan = g.uuid("cursor legacy flat transcript chat id")
    flat = g.out.home / ".cursor" / "projects" / cursor_slug(cwd_b) / "agent-transcripts" / f"{orphan}.jsonl"
    flat.write_text(json.dumps({"role": "user", "message": {"content": [{"type": "text", "text": "<user_query>\n"
                    + g.canary(f"cursor.{orphan}.flat.user") + "\n</user_query>"}]}}) + "\n"
                    + json.dumps({"type": "turn_ended", "status": "success"}) + "\n")
    out.cursor_chats[orphan] = {"cwd": cwd_b, "store": False, "jsonl": "flat", "subagents": [], "terminal": None}
    # a non-ASCII cwd: md5 over its UTF-8 bytes, and the slug turns each non-alphanumeric run into '-'
    cwd_u = f"/home/{USER}/Projekte/Übung – Straße 2"
    uni = g.uuid("cursor chat in a non-ASCII cwd")
    ust, ufacts = _cursor_chat(g, cwd_u, uni, subagents=[])
    ust.con.close()
    out.cursor_chats[uni] = ufacts
    out.families["cursor-agent:" + uni] = {"cursor-agent:" + uni}
    out.sessions.add("cursor-agent:" + uni)

    gone = g.uuid("cursor transcript whose chat folder was deleted")
    gdir = g.out.home / ".cursor" / "projects" / cursor_slug(cwd_a) / "agent-transcripts" / gone
    gdir.mkdir(parents=True)
    (gdir / f"{gone}.jsonl").write_text(json.dumps({"role": "user", "message": {"content": [{"type": "text",
                                        "text": "<user_query>\n" + g.canary(f"cursor.{gone}.orphan.user") + "\n</user_query>"}]}}) + "\n")
    out.cursor_chats[gone] = {"cwd": cwd_a, "store": False, "jsonl": True, "subagents": [], "terminal": None}
    out.families["cursor-agent:" + gone] = {"cursor-agent:" + gone}
    out.sessions.add("cursor-agent:" + gone)
    (g.out.home / ".cursor" / "prompt_history.json").write_text(json.dumps([g.canary("cursor.global_prompt_history")]))

    key = "cursor-agent:{}".format
    out.sessions |= {key(c) for c in (main, sep, src, fork, empty, acp, orphan)} | {key(s) for s in subs}
    out.edges |= {(key(s), key(main), "subagent") for s in subs}
    out.edges |= {(key(sep), key(main), "subagent"), (key(fork), key(src), "fork")}
    out.families[key(main)] = {key(main), key(sep)} | {key(s) for s in subs}
    out.families[key(src)] = {key(src), key(fork)}
    for c in (empty, acp, orphan):
        out.families[key(c)] = {key(c)}


# ---------------------------------------------------------------- opencode
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
CREATE TABLE session_inbox (id TEXT PRIMARY KEY, session_id TEXT, type TEXT, payload TEXT, delivery TEXT,
  enqueued_seq INTEGER, time_created INTEGER);
CREATE TABLE instruction_entry (session_id TEXT, key TEXT, value TEXT, removed INTEGER, PRIMARY KEY (session_id, key));
CREATE TABLE instruction_state (session_id TEXT PRIMARY KEY, epoch_start INTEGER, through_seq INTEGER,
  initial_values TEXT, current_values TEXT);
CREATE TABLE instruction_blob (hash TEXT PRIMARY KEY, value TEXT);
CREATE TABLE event (id TEXT PRIMARY KEY, aggregate_id TEXT, seq INTEGER, created INTEGER, type TEXT, data TEXT);
CREATE TABLE event_sequence (aggregate_id TEXT PRIMARY KEY, seq INTEGER, owner_id TEXT);
CREATE TABLE kv (key TEXT PRIMARY KEY, value TEXT, time_created INTEGER, time_updated INTEGER);
CREATE TABLE migration (id TEXT PRIMARY KEY, time_created INTEGER);
CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT, parent_id TEXT, slug TEXT, directory TEXT, title TEXT,
  version TEXT, time_created INTEGER, time_updated INTEGER);
CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT, time_created INTEGER, time_updated INTEGER, data TEXT);
CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT, session_id TEXT, time_created INTEGER, time_updated INTEGER, data TEXT);
"""


class OcWriter:
    def __init__(self, g: Gen, con: sqlite3.Connection) -> None:
        self.g, self.con = g, con
        self.seq: dict[str, int] = {}

    def row(self, sid: str, typ: str, data: dict, *, mid: str | None = None, gap: int = 1) -> str:
        seq = self.seq.get(sid, 0) + gap
        self.seq[sid] = seq
        mid = mid or self.g.oc_id("msg", f"opencode {sid} message id")
        t = 1767261600000 + seq * 1000
        data.setdefault("time", {"created": t})
        self.con.execute("INSERT INTO session_message VALUES (?,?,?,?,?,?,?)",
                         (mid, sid, typ, seq, t, t + 5, json.dumps(data)))
        self.con.execute("INSERT OR REPLACE INTO event_sequence VALUES (?,?,NULL)", (sid, seq))
        return mid

    def session(self, sid: str, project: str, directory: str, **cols: object) -> None:
        base = {"id": sid, "project_id": project, "workspace_id": None, "parent_id": None, "fork_session_id": None,
                "fork_boundary": None, "slug": "quiet-river", "directory": directory, "path": "api",
                "title": cols.get("title") or self.g.canary(f"opencode.{sid}.title"), "version": "2.1.4",
                "share_url": f"https://opncd.ai/s/{self.g.b62(8)}",
                "summary_diffs": json.dumps([{"file": f"/home/{USER}/src/lighthouse/x.py",
                                              "before": self.g.canary(f"opencode.{sid}.summary_diffs"), "after": ""}]),
                "metadata": json.dumps({"host": self.g.canary(f"opencode.{sid}.session.metadata")}),
                "cost": 0.0123, "tokens_input": 1200, "tokens_output": 300, "agent": "build",
                "model": json.dumps({"id": "claude-sonnet-4-5", "providerID": "anthropic"}),
                "permission": json.dumps([{"permission": "bash", "pattern": f"/home/{USER}/**", "action": "allow"}]),
                "time_created": 1767261600000, "time_updated": 1767261660000, "idle_outcome": "succeeded"}
        base.update(cols)
        names = ",".join(base)
        self.con.execute(f"INSERT INTO session_v2 ({names}) VALUES ({','.join('?' * len(base))})", list(base.values()))


def _git(gitdir: Path, *args: str, stdin: bytes = b"") -> str:
    env = {"GIT_DIR": str(gitdir), "PATH": "/usr/bin:/bin", "HOME": str(gitdir)}
    return subprocess.run(["git", *args], input=stdin, env=env, capture_output=True, check=True).stdout.decode().strip()


def _git_snapshots(g: Gen, data_dir: Path, project: str, worktree: str, sid: str) -> tuple[str, str]:
    """OpenCode's private snapshot git dir; returns two real tree hashes (start, end)."""
    gitdir = data_dir / "snapshot" / project / hashlib.sha1(worktree.encode()).hexdigest()
    if not gitdir.exists():
        gitdir.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "init", "-q", "--bare", str(gitdir)], check=True, capture_output=True,
                       env={"PATH": "/usr/bin:/bin", "HOME": str(gitdir.parent)})
    trees = []
    for label in ("start", "end"):
        blob = _git(gitdir, "hash-object", "-w", "--stdin",
                    stdin=("SECRET = '" + g.canary(f"opencode.{sid}.snapshot.{label}.blob") + "'\n").encode())
        trees.append(_git(gitdir, "mktree", stdin=f"100644 blob {blob}\tsettings.py\n".encode()))
    for t in trees:
        g.out.ids[t] = f"opencode {sid} snapshot tree"
    g.out.snapshot_dirs.add(str(gitdir.relative_to(data_dir)))
    g.out.snapshot_users.add(sid)
    return trees[0], trees[1]


def _oc_full_session(g: Gen, w: OcWriter, sid: str, child: str | None, data_dir: Path, project: str) -> dict:
    c = g.canary
    w.row(sid, "agent-switched", {"agent": "plan", "previous": "build", "metadata": {"note": c(f"opencode.{sid}.agent_switched.metadata")}})
    w.row(sid, "model-switched", {"model": {"id": "gpt-5", "providerID": "openai"},
                                  "previous": {"id": "claude-sonnet-4-5", "providerID": "anthropic"}}, gap=2)
    w.row(sid, "system", {"text": "<instructions>" + c(f"opencode.{sid}.system.text") + "</instructions>",
                          "description": "Instructions updated: " + c(f"opencode.{sid}.system.description"),
                          "metadata": {"notice": "instructions", "instructionSources": [f"/home/{USER}/src/lighthouse/AGENTS.md"]}})
    att = base64.b64encode(b"\x89PNG\r\n\x1a\n" + g.rng.randbytes(24)).decode()
    w.row(sid, "user", {"text": c(f"opencode.{sid}.user.text"),
                        "files": [{"data": att, "mime": "image/png", "source": {"type": "uri", "uri": f"file:///home/{USER}/Desktop/scan{g.n}.png"},
                                   "name": f"scan-{USER}.png", "description": c(f"opencode.{sid}.user.files.description"),
                                   "mention": {"start": 0, "end": 9, "text": c(f"opencode.{sid}.user.files.mention")}},
                                  {"data": _planted_b64(g, f"opencode.{sid}.user.files.text_b64"), "mime": "text/plain",
                                   "source": {"type": "inline"}, "name": "deploy.env"}],
                        "agents": [{"name": "explore", "mention": {"start": 10, "end": 18, "text": "@explore"}}],
                        "skills": [{"id": "skill_" + g.b62(12), "name": "deploy", "text": c(f"opencode.{sid}.user.skills.text")}],
                        "metadata": {"source": c(f"opencode.{sid}.user.metadata")}})
    w.row(sid, "skill", {"skill": "skill_" + g.b62(12), "name": "deploy", "text": "# Deploy\n" + c(f"opencode.{sid}.skill.text")})
    sh_id = g.oc_id("sh", f"opencode {sid} shellID")
    w.row(sid, "shell", {"shellID": sh_id, "command": "curl -H 'Authorization: token " + c(f"opencode.{sid}.shell.command") + "'",
                         "status": "exited", "exit": 0, "metadata": {"background": False},
                         "output": {"output": c(f"opencode.{sid}.shell.output"), "cursor": 10, "size": 10, "truncated": True},
                         "time": {"created": 1767261800000, "completed": 1767261800200}})
    shell_file = data_dir / "shell" / project / f"{sh_id}.out"
    shell_file.parent.mkdir(parents=True, exist_ok=True)
    shell_file.write_text("$ curl\n" + c(f"opencode.{sid}.shell_file") + "\n")
    tool_out_id = "tool_" + g.b62(26)
    g.out.ids[tool_out_id] = f"opencode {sid} tool-output file id"
    tool_out = data_dir / "tool-output" / tool_out_id
    tool_out.parent.mkdir(parents=True, exist_ok=True)
    tool_out.write_text("line\n" * 3 + c(f"opencode.{sid}.tool_output_file") + "\n")
    snap_start, snap_end = _git_snapshots(g, data_dir, project, f"/home/{USER}/src/lighthouse", sid)
    call_ids = [f"toolu_{g.b62(24)}" for _ in range(5 if child else 4)]
    for i in call_ids:
        g.out.ids[i] = f"opencode {sid} tool call id"
    content = [
        {"type": "reasoning", "text": c(f"opencode.{sid}.assistant.reasoning"),
         "native": {"signature": base64.b64encode(g.rng.randbytes(64)).decode()},
         "time": {"created": 1767261602100, "completed": 1767261602500}},
        {"type": "text", "text": c(f"opencode.{sid}.assistant.text")},
        {"type": "tool", "id": call_ids[0], "name": "shell", "executed": True,
         "state": {"status": "completed", "input": {"command": "cat " + c(f"opencode.{sid}.tool.completed.input")},
                   "content": [{"type": "text", "text": c(f"opencode.{sid}.tool.completed.content")},
                               {"type": "file", "uri": "data:image/png;base64," + att, "mime": "image/png",
                                "name": f"/home/{USER}/shot.png"},
                               {"type": "file", "uri": "data:text/plain;base64," + _planted_b64(g, f"opencode.{sid}.tool.content.file_b64"),
                                "mime": "text/plain", "name": "out.txt"}],
                   "metadata": {"truncated": True, "outputPath": str(tool_out).replace(str(g.out.home), f"/home/{USER}")}},
         "time": {"created": 1767261602600, "ran": 1767261602700, "completed": 1767261602900}},
        {"type": "tool", "id": call_ids[1], "name": "edit", "executed": True,
         "state": {"status": "error", "input": {"filePath": f"/home/{USER}/src/lighthouse/.env"},
                   "error": {"type": "tool.execution", "message": c(f"opencode.{sid}.tool.error.message")},
                   "content": [{"type": "text", "text": c(f"opencode.{sid}.tool.error.content")}], "metadata": {}}},
        {"type": "tool", "id": call_ids[2], "name": "read", "executed": True,
         "state": {"status": "running", "input": {"path": c(f"opencode.{sid}.tool.running.input")}, "metadata": {}}},
        {"type": "tool", "id": call_ids[3], "name": "write", "executed": False,
         "state": {"status": "streaming", "input": "{\"content\":\"" + c(f"opencode.{sid}.tool.streaming.input")}},
    ]
    if child:
        content.append({"type": "tool", "id": call_ids[4], "name": "subagent", "executed": True,
                        "state": {"status": "completed", "input": {"prompt": c(f"opencode.{sid}.tool.subagent.prompt"), "agent": "explore"},
                                  "content": [{"type": "text", "text": f"task_id: {child}\n" + c(f"opencode.{sid}.tool.subagent.result")}],
                                  "metadata": {"sessionID": child}}})
    w.row(sid, "assistant", {"agent": "build", "model": {"id": "gpt-5", "providerID": "openai"}, "content": content,
                             "snapshot": {"start": snap_start, "end": snap_end, "files": [f"/home/{USER}/src/lighthouse/app.py"]},
                             "finish": "tool-calls", "rawFinish": "tool_use", "native": {"itemId": c(f"opencode.{sid}.assistant.native")},
                             "cost": 0.0004, "tokens": {"input": 100, "output": 5, "reasoning": 0, "cache": {"read": 0, "write": 0}},
                             "error": {"type": "provider", "message": c(f"opencode.{sid}.assistant.error"),
                                       "status": 529, "response": {"body": c(f"opencode.{sid}.assistant.error.body")}},
                             "retry": {"attempt": 1, "at": 1767261602000, "error": c(f"opencode.{sid}.assistant.retry.error")},
                             "metadata": {"k": c(f"opencode.{sid}.assistant.metadata")},
                             "time": {"created": 1767261602000, "streamed": 1767261603000, "completed": 1767261603000}}, gap=3)
    if child:
        w.row(sid, "synthetic", {"text": f'<subagent sessionID="{child}" state="completed" description="scan">'
                                         + c(f"opencode.{sid}.synthetic.text") + "</subagent>",
                                 "description": c(f"opencode.{sid}.synthetic.description"),
                                 "metadata": {"source": "subagent", "childID": child, "agent": "explore", "state": "completed"}})
    keep = w.row(sid, "idle", {"outcome": "failed", "error": {"type": "provider", "message": c(f"opencode.{sid}.idle.error")}})
    w.row(sid, "compaction", {"status": "running", "reason": "auto", "summary": "", "metadata": {}})
    w.row(sid, "compaction", {"status": "failed", "reason": "manual", "error": {"type": "provider", "message": c(f"opencode.{sid}.compaction.failed")},
                              "cost": 0, "tokens": {"input": 0, "output": 0, "reasoning": 0, "cache": {"read": 0, "write": 0}}})
    w.row(sid, "compaction", {"status": "completed", "reason": "auto", "model": {"id": "gpt-5", "providerID": "openai"},
                              "summary": "Goal: " + c(f"opencode.{sid}.compaction.summary"),
                              "native": {"messages": [{"role": "user", "content": c(f"opencode.{sid}.compaction.native")}]},
                              "cost": 0.002, "tokens": {"input": 9000, "output": 400, "reasoning": 0, "cache": {"read": 0, "write": 0}},
                              "metadata": {"keepID": keep, "recent": c(f"opencode.{sid}.compaction.recent")}}, gap=4)
    w.row(sid, "assistant", {"agent": "build", "model": {"id": "gpt-5", "providerID": "openai"},
                             "providerState": {"note": c(f"opencode.{sid}.legacy2x.providerState")},
                             "content": [{"type": "text", "text": c(f"opencode.{sid}.legacy2x.text"),
                                          "state": {"id": c(f"opencode.{sid}.legacy2x.content.state")}}],
                             "finish": "stop", "time": {"created": 1767261900000}})
    w.row(sid, "compaction", {"status": "completed", "reason": "manual", "summary": c(f"opencode.{sid}.legacy2x.summary"),
                              "recent": c(f"opencode.{sid}.legacy2x.recent"),
                              "providerContext": {"messages": [c(f"opencode.{sid}.legacy2x.providerContext")]}})
    w.con.execute("INSERT INTO event VALUES (?,?,?,?,?,?)", (g.oc_id("evt", f"opencode {sid} event id"), sid, 6, 1767261602000,
                  "session.synthetic.1", json.dumps({"sessionID": sid, "text": c(f"opencode.{sid}.event.data")})))
    w.row(sid, "location-switched", {"location": {"directory": f"/home/{USER}/src/lighthouse-2", "workspaceID": "wrk_" + g.b62(20)},
                                     "projectID": project, "subpath": "svc",
                                     "previous": {"location": {"directory": f"/home/{USER}/src/lighthouse"}, "projectID": project}})
    w.con.execute("INSERT INTO session_inbox VALUES (?,?,?,?,?,?,?)",
                  (g.oc_id("msg", f"opencode {sid} inbox id"), sid, "user",
                   json.dumps({"text": c(f"opencode.{sid}.inbox.payload")}), "queue", w.seq[sid] + 1, 1767261650000))
    w.con.execute("INSERT INTO instruction_entry VALUES (?,?,?,0)",
                  (sid, "project/agents.md", json.dumps(c(f"opencode.{sid}.instruction_entry"))))
    h = hashlib.sha256(sid.encode()).hexdigest()
    g.out.ids[h] = f"opencode {sid} instruction hash"
    w.con.execute("INSERT INTO instruction_state VALUES (?,?,?,?,?)",
                  (sid, 0, 2, json.dumps({"project/agents.md": h}), json.dumps({"project/agents.md": h})))
    w.con.execute("INSERT INTO instruction_blob VALUES (?,?)", (h, json.dumps(c(f"opencode.{sid}.instruction_blob"))))
    return {"shell": f"shell/{project}/{sh_id}.out", "tool_output": f"tool-output/{tool_out_id}",
            "keep": keep}


def build_opencode(g: Gen) -> None:
    out = g.out
    data_dir = out.home / ".local" / "share" / "opencode"
    data_dir.mkdir(parents=True)
    con = sqlite3.connect(data_dir / "opencode.db")
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("PRAGMA wal_autocheckpoint=0")
    con.executescript(OC_SCHEMA)
    w = OcWriter(g, con)
    project = "prj_" + g.hexid(40, "opencode project id (git root commit)")
    directory = f"/home/{USER}/src/lighthouse"
    con.execute("INSERT INTO project VALUES (?,?,?,?,?,?)",
                (project, directory, "git", "lighthouse-" + USER, 1767261600000, 1767261600000))
    for m in ("20260730195856_optional_session_title", "20260804233008_loose_psylocke"):
        con.execute("INSERT INTO migration VALUES (?, 1767261600000)", (m,))
    con.execute("INSERT INTO kv VALUES ('migration.v1-v2', ?, 1, 1)", (json.dumps({"imported": 1, "at": 1767261600000}),))

    main, child, fork, reverted, legacy = (g.oc_id("ses", f"opencode session {n}")
                                           for n in ("main", "child", "fork", "reverted", "legacy"))
    w.session(main, project, directory)
    w.session(child, project, directory, parent_id=main, title="explore: " + g.canary(f"opencode.{child}.title.child"))
    facts = {main: _oc_full_session(g, w, main, child, data_dir, project)}
    w.row(child, "user", {"text": g.canary(f"opencode.{child}.user.text")})
    ext_out = "tool_" + g.b62(26)
    g.out.ids[ext_out] = f"opencode {child} tool-output file id (.json)"
    (data_dir / "tool-output" / f"{ext_out}.json").write_text(json.dumps({"rows": [g.canary(f"opencode.{child}.tool_output_json")]}))
    child_call = f"toolu_{g.b62(24)}"
    g.out.ids[child_call] = f"opencode {child} tool call id"
    w.row(child, "assistant", {"agent": "explore", "model": {"id": "gpt-5", "providerID": "openai"},
                               "content": [{"type": "text", "text": g.canary(f"opencode.{child}.assistant.text")},
                                           {"type": "tool", "id": child_call, "name": "webfetch", "executed": True,
                                            "state": {"status": "completed", "input": {"url": "https://example.org/api"},
                                                      "content": [{"type": "text", "text": "(truncated)"}],
                                                      "metadata": {"truncated": True, "outputPath":
                                                                   f"/home/{USER}/.local/share/opencode/tool-output/{ext_out}.json"}}}],
                               "finish": "stop", "time": {"created": 1767261700000, "completed": 1767261701000}})
    w.row(child, "idle", {"outcome": "succeeded"})
    facts[child] = {"tool_output": f"tool-output/{ext_out}.json"}

    # fork of main through the third row: copies get msg_<forkEventSuffix>_<seq> ids and the same seq
    boundary = con.execute("SELECT id, seq FROM session_message WHERE session_id=? ORDER BY seq LIMIT 1 OFFSET 3",
                           (main,)).fetchone()
    w.session(fork, project, directory, fork_session_id=main,
              fork_boundary=json.dumps({"type": "through", "messageID": boundary[0]}),
              title=g.canary(f"opencode.{fork}.title.fork"))
    suffix = g.b62(26)
    for mid, typ, seq, tc, tu, data in con.execute(
            "SELECT id, type, seq, time_created, time_updated, data FROM session_message WHERE session_id=? AND seq<=? ORDER BY seq",
            (main, boundary[1])).fetchall():
        con.execute("INSERT INTO session_message VALUES (?,?,?,?,?,?,?)", (f"msg_{suffix}_{seq}", fork, typ, seq, tc, tu, data))
    w.seq[fork] = boundary[1]
    w.row(fork, "user", {"text": g.canary(f"opencode.{fork}.user.after_fork")})
    facts[fork] = {}

    w.session(reverted, project, directory, revert=json.dumps({
        "messageID": g.oc_id("msg", "opencode revert target"), "snapshot": g.hexid(40, "opencode revert.snapshot"),
        "files": [f"/home/{USER}/src/lighthouse/db.py"]}),
        title=g.canary(f"opencode.{reverted}.title.revert"))
    w.row(reverted, "user", {"text": g.canary(f"opencode.{reverted}.user.text")})
    w.row(reverted, "idle", {"outcome": "interrupted"})
    facts[reverted] = {}

    # 1.x rows left behind after the in-place import, plus the imported 2.x session
    w.session(legacy, project, directory, version="1.0.150", title=g.canary(f"opencode.{legacy}.title.legacy"))
    w.row(legacy, "user", {"text": g.canary(f"opencode.{legacy}.user.imported")})
    con.execute("INSERT INTO session VALUES (?,?,?,?,?,?,?,?,?)", (legacy, project, None, "old-slug", directory,
                g.canary(f"opencode.{legacy}.legacy_session.title"), "1.0.150", 1, 2))
    umsg, amsg = g.oc_id("msg", "opencode legacy user msg"), g.oc_id("msg", "opencode legacy assistant msg")
    con.execute("INSERT INTO message VALUES (?,?,?,?,?)", (umsg, legacy, 1, 1, json.dumps(
        {"role": "user", "time": {"created": 1}, "agent": "build", "model": {"providerID": "anthropic", "modelID": "claude"},
         "system": g.canary(f"opencode.{legacy}.legacy_message.system"),
         "summary": {"title": g.canary(f"opencode.{legacy}.legacy_message.summary_title"), "diffs": []}})))
    con.execute("INSERT INTO message VALUES (?,?,?,?,?)", (amsg, legacy, 2, 2, json.dumps(
        {"role": "assistant", "parentID": umsg, "modelID": "claude", "providerID": "anthropic", "mode": "build", "agent": "build",
         "path": {"cwd": directory, "root": directory}, "cost": 0,
         "tokens": {"input": 1, "output": 1, "reasoning": 0, "cache": {"read": 0, "write": 0}}, "time": {"created": 2},
         "error": {"name": "APIError", "data": {"message": g.canary(f"opencode.{legacy}.legacy_message.error")}}})))
    legacy_call = f"toolu_{g.b62(24)}"
    g.out.ids[legacy_call] = "opencode legacy part callID"
    parts = [
        (umsg, {"type": "text", "text": g.canary(f"opencode.{legacy}.part.text")}),
        (umsg, {"type": "file", "mime": "text/plain", "filename": f"{USER}-notes.txt", "url": f"file:///home/{USER}/notes.txt"}),
        (umsg, {"type": "agent", "name": "explore", "source": {"value": g.canary(f"opencode.{legacy}.part.agent"), "start": 0, "end": 8}}),
        (amsg, {"type": "step-start", "snapshot": g.hexid(40, "opencode legacy step-start snapshot")}),
        (amsg, {"type": "reasoning", "text": g.canary(f"opencode.{legacy}.part.reasoning"), "time": {"start": 1}}),
        (amsg, {"type": "tool", "callID": legacy_call, "tool": "bash",
                "state": {"status": "completed", "input": {"command": g.canary(f"opencode.{legacy}.part.tool.input")},
                          "output": g.canary(f"opencode.{legacy}.part.tool.output"), "title": "bash", "metadata": {},
                          "time": {"start": 1, "end": 2}}}),
        (amsg, {"type": "patch", "hash": g.hexid(40, "opencode legacy patch hash"), "files": [f"/home/{USER}/src/lighthouse/a.py"]}),
        (amsg, {"type": "snapshot", "snapshot": g.hexid(40, "opencode legacy snapshot")}),
        (amsg, {"type": "subtask", "prompt": g.canary(f"opencode.{legacy}.part.subtask.prompt"), "description": "scan", "agent": "explore"}),
        (amsg, {"type": "retry", "attempt": 1, "error": {"name": "APIError", "data": {"message": g.canary(f"opencode.{legacy}.part.retry")}},
                "time": {"created": 2}}),
        (amsg, {"type": "compaction", "auto": True}),
        (amsg, {"type": "step-finish", "reason": "stop", "cost": 0, "tokens": {"input": 1, "output": 1, "reasoning": 0, "cache": {"read": 0, "write": 0}}}),
    ]
    for mid, pdata in parts:
        con.execute("INSERT INTO part VALUES (?,?,?,?,?,?)", (g.oc_id("prt", "opencode legacy part id"), mid, legacy, 1, 1, json.dumps(pdata)))
    facts[legacy] = {}
    con.commit()
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    # a session committed only to the -wal (the connection stays open, nothing checkpoints it)
    walonly = g.oc_id("ses", "opencode session wal-only")
    w.session(walonly, project, directory, title=g.canary(f"opencode.{walonly}.title.wal"))
    w.row(walonly, "user", {"text": g.canary(f"opencode.{walonly}.user.text")})
    con.commit()
    facts[walonly] = {}
    out.open_connections.append(con)

    beta_con = sqlite3.connect(data_dir / "opencode-beta.db")
    beta_con.execute("PRAGMA journal_mode=WAL")
    beta_con.executescript(OC_SCHEMA)
    bw = OcWriter(g, beta_con)
    beta = g.oc_id("ses", "opencode session in the beta channel db")
    beta_con.execute("INSERT INTO project VALUES (?,?,?,?,?,?)", (project, directory, "git", "lighthouse", 1, 1))
    bw.session(beta, project, directory, title=g.canary(f"opencode.{beta}.title.beta_channel"))
    bw.row(beta, "user", {"text": g.canary(f"opencode.{beta}.user.text")})
    bw.row(beta, "idle", {"outcome": "succeeded"})
    beta_con.commit()
    beta_con.close()
    facts[beta] = {"db": "opencode-beta.db"}

    storage = data_dir / "storage"
    (storage / "session_diff").mkdir(parents=True)
    (storage / "migration").write_text("2")
    (storage / "session_diff" / f"{legacy}.json").write_text(json.dumps(
        [{"file": f"/home/{USER}/src/lighthouse/a.py", "before": g.canary(f"opencode.{legacy}.storage.session_diff"), "after": ""}]))

    key = "opencode:{}".format
    out.opencode = facts
    out.sessions |= {key(s) for s in facts}
    out.edges |= {(key(child), key(main), "subagent"), (key(fork), key(main), "fork")}
    out.families[key(main)] = {key(main), key(child), key(fork)}
    for s in (reverted, legacy, walonly, beta):
        out.families[key(s)] = {key(s)}


def build_home(home: Path) -> Planted:
    g = Gen(home)
    build_cursor(g)
    build_opencode(g)
    return g.out
