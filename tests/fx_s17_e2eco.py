"""A HOME with Cursor agent and OpenCode sessions written from the seeds alone
(/work/shared/seeds/by-harness/cursor-agent.json, opencode.json), for tests/test_s17_e2eco.py.

Real SQLite in WAL mode. `Plan.keep` holds connections left open so that rows stay in the
live -wal (uncheckpointed) while the CLI syncs; one Cursor store is a db + -wal with no -shm
(the seed gotcha: mode=ro fails there). Secrets and PII go into every field that can carry
them: cwd, titles, tool args/results, file paths, read_paths, file_states_v2 keys, names,
headers, attachments, shell commands, terminal files, sidecars."""

from __future__ import annotations

import base64
import hashlib
import os
import random
import shutil
import sqlite3
import string
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from tests.fx_s11_e2e import planted_secret

# ------------------------------------------------------------------ protobuf (wire format only)


def varint(n: int) -> bytes:
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def f_len(fno: int, data: bytes | str) -> bytes:
    raw = data.encode() if isinstance(data, str) else data
    return varint(fno << 3 | 2) + varint(len(raw)) + raw


def f_int(fno: int, n: int) -> bytes:
    return varint(fno << 3) + varint(n)


def f_map(fno: int, key: str, value: bytes) -> bytes:
    return f_len(fno, f_len(1, key) + f_len(2, value))


def _read_varint(buf: bytes, pos: int) -> tuple[int, int]:
    n = shift = 0
    while True:
        if pos >= len(buf) or shift > 63:
            raise ValueError("truncated varint")
        b = buf[pos]
        n |= (b & 0x7F) << shift
        pos += 1
        if not b & 0x80:
            return n, pos
        shift += 7


def parse_pb(buf: bytes) -> list[tuple[int, int, Any]]:
    """(field, wire type, value) of a message using wire types 0 and 2 only (all this generator
    writes); ValueError when `buf` is not one."""
    out: list[tuple[int, int, Any]] = []
    pos = 0
    while pos < len(buf):
        key, pos = _read_varint(buf, pos)
        fno, wt = key >> 3, key & 7
        if fno == 0 or wt not in (0, 2):
            raise ValueError("not a message")
        if wt == 0:
            v, pos = _read_varint(buf, pos)
        else:
            ln, pos = _read_varint(buf, pos)
            if pos + ln > len(buf):
                raise ValueError("truncated")
            v, pos = buf[pos:pos + ln], pos + ln
        out.append((fno, wt, v))
    return out


def shape_of(data: bytes, depth: int = 0) -> list[Any] | None:
    """The field tree of a protobuf message (field, wire type, sub-tree of a nested message);
    None when `data` is not one. A string that happens to parse counts as a message."""
    try:
        fields = parse_pb(data)
    except ValueError:
        return None
    if not fields:
        return None
    return [(f, wt, shape_of(v, depth + 1) if wt == 2 and depth < 8 and len(v) != 32 else None) for f, wt, v in fields]


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass
class Plan:
    home: Path
    user: str
    secrets: dict[str, str] = field(default_factory=dict)
    ids: dict[str, str] = field(default_factory=dict)  # role -> id
    cwds: dict[str, str] = field(default_factory=dict)
    files: dict[str, set[str]] = field(default_factory=dict)  # session key -> paths rel. to HOME
    edges: dict[str, tuple[str, str, str | None]] = field(default_factory=dict)  # child -> (relation, parent, at)
    keep: list[sqlite3.Connection] = field(default_factory=list)  # open: their rows stay in -wal
    wal_only: dict[str, str] = field(default_factory=dict)  # label -> a value only the -wal holds
    notes: dict[str, Any] = field(default_factory=dict)

    def close(self) -> None:
        for c in self.keep:
            c.close()
        self.keep.clear()


class Gen:
    def __init__(self, home: Path, user: str, seed: int = 1717) -> None:
        self.rng = random.Random(seed)
        self.plan = Plan(home=home, user=user)
        self.t = 1_767_261_600_000

    def uuid(self) -> str:
        h = "%032x" % self.rng.getrandbits(128)
        return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-8{h[17:20]}-{h[20:32]}"

    def alnum(self, n: int) -> str:
        return "".join(self.rng.choice(string.ascii_letters + string.digits) for _ in range(n))

    def ms(self) -> int:
        self.t += 1000
        return self.t

    def secret(self, label: str) -> str:
        v = planted_secret(self.rng, len(self.plan.secrets), self.plan.user, "qxmail-corp.net")
        self.plan.secrets[label] = v
        return v

    def own(self, key: str, path: Path) -> None:
        self.plan.files.setdefault(key, set()).add(path.relative_to(self.plan.home).as_posix())

    def write(self, key: str | None, path: Path, data: bytes) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        if key is not None:
            self.own(key, path)
        return path


def wal_db(path: Path) -> sqlite3.Connection:
    path.parent.mkdir(parents=True, exist_ok=True)
    c = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    c.execute("PRAGMA journal_mode=WAL")
    c.execute("PRAGMA wal_autocheckpoint=0")
    return c


def j(obj: Any) -> bytes:
    return orjson.dumps(obj)


# ================================================================== Cursor agent

CURSOR = "cursor-agent"


def md5_dir(cwd: str) -> str:
    return hashlib.md5(cwd.encode()).hexdigest()


def slug(cwd: str) -> str:
    import re
    return re.sub(r"[^A-Za-z0-9]+", "-", cwd).strip("-")


class Store:
    """One chat's blob graph under construction."""

    def __init__(self) -> None:
        self.blobs: dict[str, bytes] = {}

    def put(self, data: bytes) -> str:
        bid = sha(data)
        self.blobs[bid] = data
        return bid

    def write(self, path: Path, meta: dict[str, Any], *, extra_tables: bool = False) -> sqlite3.Connection:
        c = wal_db(path)
        c.execute("PRAGMA user_version=1")
        c.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
        c.execute("CREATE TABLE blobs (id TEXT PRIMARY KEY, data BLOB)")
        if extra_tables:  # an unknown future table
            c.execute("CREATE TABLE future_index (id TEXT PRIMARY KEY, note TEXT, weight REAL)")
        c.execute("BEGIN")
        for bid, data in self.blobs.items():
            c.execute("INSERT INTO blobs VALUES (?, ?)", (bid, data))
        c.execute("INSERT OR REPLACE INTO meta VALUES ('0', ?)", (j(meta).hex(),))
        c.execute("COMMIT")
        return c


def build_cursor(g: Gen) -> None:
    p, home, user = g.plan, g.plan.home, g.plan.user
    root = home / ".cursor"
    cwd = f"{home}/src/prøject ☃ 😀/{user}-app"
    p.cwds["cursor"] = cwd
    ws = root / "chats" / md5_dir(cwd)
    proj = root / "projects" / slug(cwd)
    chat = g.uuid()
    sub_inline, sub_ref, sub_own, fork, empty, corrupt, acp = (g.uuid() for _ in range(7))
    p.ids.update(c_main=chat, c_sub_inline=sub_inline, c_sub_ref=sub_ref, c_sub_own=sub_own, c_fork=fork,
                 c_empty=empty, c_corrupt=corrupt, c_acp=acp)
    key = f"{CURSOR}:{chat}"

    s = Store()
    # ---- prompt messages (JSON blobs)
    sysmsg = s.put(j({"role": "system", "content": f"You are an agent. Workspace {cwd}"}))
    s.put(j({"role": "user", "content": [{"type": "text", "text": f"<user_info>OS linux, shell zsh, home {home}, "
                                         f"mail {g.secret('c.user_info')}</user_info>"}]}))
    req1 = g.uuid()
    q1 = s.put(j({"role": "user", "content": [
        {"type": "text", "text": f"<user_query>fix the deploy, token {g.secret('c.query')}</user_query>"},
        {"type": "image", "image": {"__type": "Uint8Array", "hex": b"\x89PNG\r\n\x1a\nimg".hex()}, "mimeType": "image/png"},
        {"type": "file", "filename": f"{home}/Desktop/{user}-notes.pdf", "mimeType": "application/pdf",
         "data": {"__type": "Uint8Array", "hex": b"%PDF-1.4 x".hex()}},
    ], "providerOptions": {"cursor": {"requestId": req1, "requestContextCompleteness": "full"}}}))
    call_shell = f"tool_{g.uuid()}"
    call_task = f"tool_{g.uuid()}"
    call_edit = f"tool_{g.uuid()}"
    term = proj / "terminals" / "3.txt"
    a1 = s.put(j({"role": "assistant", "id": g.uuid(), "content": [
        {"type": "reasoning", "text": f"need the key {g.secret('c.reasoning')}"},
        {"type": "redacted-reasoning", "data": base64.b64encode(b"opaque").decode(),
         "providerOptions": {"cursor": {"modelName": "m-1"}}},
        {"type": "text", "text": "Running the deploy script."},
        {"type": "tool-call", "toolCallId": call_shell, "toolName": "Shell",
         "args": {"command": f"curl -H 'Authorization: Bearer {g.secret('c.shell_header')}' https://x.invalid",
                  "cwd": cwd}},
        {"type": "tool-call", "toolCallId": call_task, "toolName": "Task", "args": {"prompt": "scan"}},
        {"type": "tool-call", "toolCallId": call_edit, "toolName": "StrReplace",
         "args": {"path": f"{cwd}/.env", "old": "A=1", "new": f"A={g.secret('c.edit_arg')}"}},
        {"type": "future-part", "payload": {"whatever": 1}},
    ], "providerOptions": {"cursor": {"pendingToolCallStartedAtMs": g.ms()}}, "futureField": [1, 2]}))
    t1 = s.put(j({"role": "tool", "id": call_shell, "content": [
        {"type": "tool-result", "toolCallId": call_shell, "toolName": "Shell",
         "result": f"output in {term}\nexported {g.secret('c.shell_result')}",
         "experimental_content": [{"type": "text", "text": f"output in {term}"}]}],
        "providerOptions": {"cursor": {"highLevelToolCallResult": {"shell": {"outputLocation": {"filePath": str(term)}}}}}}))
    t2 = s.put(j({"role": "tool", "id": call_edit, "content": [
        {"type": "tool-result", "toolCallId": call_edit, "toolName": "StrReplace", "result": 42}]}))
    summary_msg = s.put(j({"role": "user", "content": [{"type": "text", "text": f"Summary: worked in {cwd}"}],
                           "providerOptions": {"cursor": {"isSummary": True}}}))
    q2 = s.put(j({"role": "user", "content": [{"type": "text", "text": "<user_query>and now?</user_query>"}],
                  "providerOptions": {"cursor": {"requestId": g.uuid()}}}))
    a2 = s.put(j({"role": "assistant", "id": g.uuid(), "content": [{"type": "text", "text": "Done."}]}))
    g.write(key, term, f"$ deploy\nAWS key {g.secret('c.terminal')} from {home}\n".encode())

    # ---- raw file blobs (JSON-looking raw file: the first-byte heuristic trap)
    pkg = s.put(j({"name": f"{user}-app", "author": g.secret("c.file_snapshot")}))
    pkg0 = s.put(b'{"name":"app"}')
    # ---- UI turn (protobuf)
    image_raw = s.put(b"\x89PNG\r\n\x1a\n" + bytes(range(256)))
    root0 = s.put(f_len(1, bytes.fromhex(sysmsg)) + f_len(22, "default"))  # root before turn 1 (rewind anchor)
    um = s.put(f_len(1, f"fix the deploy, token {g.plan.secrets['c.query']}") + f_len(2, g.uuid())
               + f_len(3, f_len(1, f_len(1, bytes.fromhex(image_raw)) + f_len(3, f"{home}/Pictures/shot.png")))
               + f_len(10, bytes.fromhex(root0)) + f_int(25, g.ms()) + f_len(99, b"future")
               + f_len(21, f_len(1, "SessionStart") + f_len(2, f"hook saw {g.secret('c.hook')}")))
    step_text = s.put(f_len(1, f_len(1, "Running the deploy script.")))
    step_think = s.put(f_len(3, f_len(1, f"thinking about {cwd}") + f_int(2, 120)))
    step_tool = s.put(f_len(2, f_len(1, f_len(1, f"cat {home}/.ssh/id_rsa") + f_len(2, f"out {g.secret('c.step_tool')}"))
                            + f_len(57, call_shell) + f_int(59, g.ms())))
    read_raw = s.put(f"API_KEY={g.secret('c.read_raw')}\nHOME={home}\n".encode())  # ReadToolSuccess.content_blob_id
    step_read = s.put(f_len(2, f_len(8, f_len(1, f"{cwd}/.env") + f_len(2, f_len(1, f_len(3, bytes.fromhex(read_raw))))))
                      + f_len(57, f"tool_{g.uuid()}"))
    # an edit: whole files before and after, nested three levels down
    step_edit = s.put(f_len(2, f_len(12, f_len(1, f"{cwd}/config.py") + f_len(2, f_len(1, f_len(
        4, f"TOKEN = '{g.secret('c.edit_before')}'\n" + "# padding line\n" * 10)
        + f_len(5, f"TOKEN = '{g.secret('c.edit_after')}'\n" + "# padding line\n" * 10)))))
        + f_len(57, call_edit))

    turn = s.put(f_len(1, f_len(1, bytes.fromhex(um)) + f_len(2, bytes.fromhex(step_text))
                       + f_len(2, bytes.fromhex(step_think)) + f_len(2, bytes.fromhex(step_tool))
                       + f_len(2, bytes.fromhex(step_read)) + f_len(2, bytes.fromhex(step_edit)) + f_len(3, req1)
                       + f_len(8, f_int(1, 2) + f_len(2, call_task))))
    sh_cmd = s.put(f_len(1, f"echo {g.secret('c.shell_turn')} > {home}/out.txt"))  # ShellCommand
    sh_out = s.put(f_len(1, f"{home}\n") + f_len(2, f"warn {g.secret('c.shell_stderr')}") + f_int(3, 0))  # ShellOutput
    shell_turn = s.put(f_len(2, f_len(1, bytes.fromhex(sh_cmd)) + f_len(2, bytes.fromhex(sh_out))))
    todo = s.put(f_len(1, "t1") + f_len(2, f"email {g.secret('c.todo')}") + f_int(3, 1))
    summ = s.put(f_len(1, f"Summary mentioning {home}/secret-dir"))
    archive = s.put(f_len(1, bytes.fromhex(q1)) + f_len(1, bytes.fromhex(a1)) + f_len(1, bytes.fromhex(t1))
                    + f_len(4, bytes.fromhex(summary_msg)))

    # ---- subagents: inline (16) and out-of-line (31), with their own conversation states
    sub_q = s.put(j({"role": "user", "content": [{"type": "text", "text": f"scan {cwd} for {g.secret('c.sub_inline')}"}]}))
    nested = g.uuid()  # a subagent of the subagent: its state lives inside the subagent's state
    call_nested = f"tool_{g.uuid()}"
    nested_q = s.put(j({"role": "user", "content": [{"type": "text", "text": f"nested {g.secret('c.nested')}"}]}))
    sub_conv = (f_len(1, bytes.fromhex(sub_q)) + f_map(16, nested, f_len(1, f_len(1, bytes.fromhex(nested_q))))
                + f_map(30, call_nested, f_len(1, call_nested) + f_len(2, nested) + f_int(4, 4)))
    sub_state_inline = f_len(1, sub_conv) + f_int(2, g.ms()) + f_len(4, f_len(2, f_len(1, "explore")))
    sub_q2 = s.put(j({"role": "user", "content": [{"type": "text", "text": f"deep scan {g.secret('c.sub_ref')}"}]}))
    sub_ref_blob = s.put(f_len(1, f_len(1, bytes.fromhex(sub_q2))) + f_len(5, "m-2"))
    call_ref = f"tool_{g.uuid()}"
    run = lambda call, sid: f_map(30, call, f_len(1, call) + f_len(2, sid) + f_int(4, 4))  # noqa: E731
    call_cloud = f"tool_{g.uuid()}"
    cloud_transcript = proj / "agent-transcripts" / chat / "subagents" / f"bc-{g.uuid()}.jsonl"
    cloud_run = f_map(30, call_cloud, f_len(1, call_cloud) + f_len(3, "cloud") + f_int(4, 3) + f_len(5, "cloud task")
                      + f_len(7, str(cloud_transcript)))

    root1 = s.put(
        f_len(1, bytes.fromhex(summary_msg)) + f_len(1, bytes.fromhex(t2)) + f_len(1, bytes.fromhex(q2))
        + f_len(1, bytes.fromhex(a2))
        + f_len(8, bytes.fromhex(turn)) + f_len(8, bytes.fromhex(shell_turn))
        + f_len(3, bytes.fromhex(todo)) + f_len(4, call_edit)
        + f_len(5, f_int(1, 1200) + f_int(2, 200000))
        + f_len(6, bytes.fromhex(summ)) + f_int(10, 1)
        + f_len(13, bytes.fromhex(archive))
        + f_map(15, f"{cwd}/package.json", f_len(1, bytes.fromhex(pkg)) + f_len(2, bytes.fromhex(pkg0)))
        + f_map(16, sub_inline, sub_state_inline)
        + f_len(18, f"{home}/.aws/credentials") + f_len(18, f"{cwd}/src/{user}.py")
        + f_len(21, f_len(1, cwd) + f_len(2, f"feat/{user}"))
        + f_len(22, "default")
        + run(call_task, sub_inline) + run(call_ref, sub_ref) + cloud_run
        + f_map(31, sub_ref, bytes.fromhex(sub_ref_blob))
        + f_int(37, 3)
        + f_len(77, b"\x08\x01future-field")
    )
    # a superseded root and a rewound-away turn: unreachable rows, archived inside store.db
    s.put(f_len(1, bytes.fromhex(sysmsg)) + f_len(1, bytes.fromhex(q1)) + f_len(22, "default"))
    s.put(j({"role": "user", "content": [{"type": "text", "text": f"rewound away {g.secret('c.rewound')}"}]}))
    meta = {"agentId": chat, "latestRootBlobId": root1, "name": f"Deploy for {user} {g.secret('c.name')}",
            "createdAt": g.ms(), "mode": "default", "isRunEverything": False, "approvalMode": "unrestricted",
            "lastUsedModel": "m-1", "blobEncryptionKey": "ab" * 32, "futureKey": {"x": 1}}
    folder = ws / chat
    c = s.write(folder / "store.db", meta, extra_tables=True)
    # rows only the -wal holds while the CLI runs (connection kept open, no checkpoint)
    late = g.secret("c.wal_only")
    c.execute("INSERT INTO blobs VALUES (?, ?)", (sha(late.encode()), f"WALMARK-cursor {late}".encode()))
    c.execute("INSERT INTO future_index VALUES ('x', ?, 1.5)", (f"note by {user}",))
    p.wal_only["cursor"] = late
    p.keep.append(c)
    for f in ("store.db", "store.db-wal", "store.db-shm"):
        if f == "store.db":
            g.own(key, folder / f)
    g.write(key, folder / "meta.json", j({"schemaVersion": 1, "createdAtMs": meta["createdAt"], "hasConversation": True,
                                          "title": meta["name"], "updatedAtMs": g.ms(), "cwd": cwd}))
    g.write(key, folder / "prompt_history.json", j([f"second {g.secret('c.history')}", "first"]))
    # JSONL mirrors
    tdir = proj / "agent-transcripts" / chat
    g.write(key, tdir / f"{chat}.jsonl", b"".join(j(x) + b"\n" for x in [
        {"type": "metadata", "metadata": {"overview": f"Deploy work by {user}"}},
        {"role": "user", "message": {"content": [{"type": "text", "text": f"fix the deploy, token {p.secrets['c.query']}"}]}},
        {"role": "assistant", "message": {"content": [{"type": "text", "text": "[REDACTED] Running"},
                                                      {"type": "tool_use", "name": "Read", "input": {"path": f"{cwd}/.env"}}]}},
        {"type": "turn_ended", "status": "success"},
    ]))
    g.write(f"{CURSOR}:{sub_inline}", tdir / "subagents" / f"{sub_inline}.jsonl",
            j({"role": "user", "message": {"content": [{"type": "text", "text": f"scan {cwd}"}]}}) + b"\n")
    g.write(f"{CURSOR}:{sub_ref}", tdir / "subagents" / f"{sub_ref}.jsonl",
            j({"role": "user", "message": {"content": [{"type": "text", "text": f"deep scan {home}"}]}}) + b"\n")
    g.write(key, folder / "future-notes.txt", f"future sidecar of {user} in {home}\n".encode())  # any other file
    g.write(key, folder / "future-blob.bin", b"\x00\x01\x02future\xff")
    g.write(key, cloud_transcript, j({"role": "user", "message": {"content": [
        {"type": "text", "text": f"cloud run {g.secret('c.cloud')}"}]}}) + b"\n")
    p.files.setdefault(f"{CURSOR}:{sub_inline}", set()).add((folder / "store.db").relative_to(home).as_posix())
    p.files.setdefault(f"{CURSOR}:{sub_ref}", set()).add((folder / "store.db").relative_to(home).as_posix())
    p.edges[f"{CURSOR}:{sub_inline}"] = ("subagent", key, call_task)
    p.edges[f"{CURSOR}:{sub_ref}"] = ("subagent", key, call_ref)
    p.ids["c_nested"] = nested
    p.files.setdefault(f"{CURSOR}:{nested}", set()).add((folder / "store.db").relative_to(home).as_posix())
    p.edges[f"{CURSOR}:{nested}"] = ("subagent", f"{CURSOR}:{sub_inline}", call_nested)

    # ---- fork: every blob copied, same root, '(forked)', later createdAt; its -wal has no -shm
    fdir = ws / fork
    fmeta = {**meta, "agentId": fork, "name": meta["name"] + " (forked)", "createdAt": g.ms()}
    fc = s.write(fdir / "store.db", fmeta)
    fc.execute("INSERT INTO blobs VALUES (?, ?)", (sha(b"fork-late"), b"WALMARK-fork " + g.secret("c.fork_wal").encode()))
    shutil.copyfile(fdir / "store.db", fdir / "store.db.tmpcopy")
    shutil.copyfile(fdir / "store.db-wal", fdir / "store.db-wal.tmpcopy")
    fc.close()  # checkpoints and removes -wal/-shm; put the copies (db + live -wal, no -shm) back
    (fdir / "store.db.tmpcopy").replace(fdir / "store.db")
    (fdir / "store.db-wal.tmpcopy").replace(fdir / "store.db-wal")
    assert not (fdir / "store.db-shm").exists()
    p.wal_only["fork"] = p.secrets["c.fork_wal"]
    # a fork of the fork, made before either went on: every blob of the fork copied again
    fork2 = g.uuid()
    p.ids["c_fork2"] = fork2
    f2 = Store()
    f2.blobs = dict(s.blobs)
    f2.put(b"WALMARK-fork " + p.secrets["c.fork_wal"].encode())
    f2.write(ws / fork2 / "store.db", {**fmeta, "agentId": fork2, "name": fmeta["name"] + " (forked)",
                                       "createdAt": g.ms()}).close()
    g.own(f"{CURSOR}:{fork2}", ws / fork2 / "store.db")
    g.own(f"{CURSOR}:{fork2}", term)
    g.own(f"{CURSOR}:{fork2}", cloud_transcript)
    p.edges[f"{CURSOR}:{fork2}"] = ("fork", f"{CURSOR}:{fork}", root1)
    g.own(f"{CURSOR}:{fork}", fdir / "store.db")
    g.own(f"{CURSOR}:{fork}", term)  # its copied blobs name the terminal file too
    g.own(f"{CURSOR}:{fork}", cloud_transcript)  # and the cloud run's transcript
    p.notes["blobs_main"] = len(s.blobs) + 1
    p.notes["root1"] = root1
    p.notes["cursor_blobs"] = dict(s.blobs)
    p.edges[f"{CURSOR}:{fork}"] = ("fork", key, root1)

    # ---- subagent with its own store (meta.subagentInfo)
    so = Store()
    oq = so.put(j({"role": "user", "content": [{"type": "text", "text": f"own-store sub {g.secret('c.sub_own')}"}]}))
    oroot = so.put(f_len(1, bytes.fromhex(oq)) + f_len(22, "explore"))
    call_own = f"tool_{g.uuid()}"
    ometa = {"agentId": sub_own, "latestRootBlobId": oroot, "name": "New Agent", "createdAt": g.ms() // 1000,  # seconds
             "mode": "default", "isRunEverything": False,
             "subagentInfo": {"parentAgentId": chat, "rootParentAgentId": chat, "toolCallId": call_own, "typeName": "explore"}}
    so.write(ws / sub_own / "store.db", ometa).close()
    g.own(f"{CURSOR}:{sub_own}", ws / sub_own / "store.db")
    g.write(f"{CURSOR}:{sub_own}", ws / sub_own / "meta.json",
            j({"schemaVersion": 1, "createdAtMs": ometa["createdAt"] * 1000, "hasConversation": True, "isSubagent": True}))
    p.edges[f"{CURSOR}:{sub_own}"] = ("subagent", key, call_own)

    # ---- empty chat: no checkpoint, no meta.json
    Store().write(ws / empty / "store.db", {"agentId": empty, "latestRootBlobId": "", "name": "New Agent",
                                            "createdAt": g.ms(), "mode": "default", "isRunEverything": False}).close()
    g.own(f"{CURSOR}:{empty}", ws / empty / "store.db")

    # ---- corrupt store: a broken b-tree page
    cs = Store()
    for i in range(60):
        cs.put(f"blob {i} ".encode() * 200)
    cdb = ws / corrupt / "store.db"
    cs.write(cdb, {"agentId": corrupt, "latestRootBlobId": "", "name": "broken", "createdAt": g.ms(),
                   "mode": "default", "isRunEverything": False}).close()
    raw = bytearray(cdb.read_bytes())
    page = 4096
    for off in range(2 * page, min(len(raw), 6 * page)):
        raw[off] = 0xFF if off % 7 else 0x00
    cdb.write_bytes(bytes(raw))
    p.notes["corrupt"] = f"{CURSOR}:{corrupt}"

    # ---- an older chat with the legacy flat mirror (.jsonl and .txt), and a mirror whose chat folder is gone
    legacy, orphan = g.uuid(), g.uuid()
    p.ids.update(c_legacy=legacy, c_orphan=orphan)
    ls_ = Store()
    lq = ls_.put(j({"role": "user", "content": [{"type": "text", "text": f"legacy {g.secret('c.legacy')}"}]}))
    ls_.write(ws / legacy / "store.db", {"agentId": legacy, "latestRootBlobId": ls_.put(f_len(1, bytes.fromhex(lq))),
                                         "name": "old", "createdAt": g.ms() * 1000, "mode": "auto-run",  # microseconds
                                         "isRunEverything": True}).close()
    g.own(f"{CURSOR}:{legacy}", ws / legacy / "store.db")
    g.write(f"{CURSOR}:{legacy}", proj / "agent-transcripts" / f"{legacy}.jsonl",
            j({"role": "user", "message": {"content": [{"type": "text", "text": f"legacy in {cwd}"}]}}) + b"\n")
    g.write(f"{CURSOR}:{legacy}", proj / "agent-transcripts" / f"{legacy}.txt", f"user: legacy in {cwd}\n".encode())
    g.write(f"{CURSOR}:{orphan}", proj / "agent-transcripts" / orphan / f"{orphan}.jsonl",
            j({"role": "user", "message": {"content": [{"type": "text", "text": f"orphan {g.secret('c.orphan')}"}]}})
            + b"\n" + j({"type": "turn_ended", "status": "error", "error": f"{home} gone"}) + b"\n")
    # ---- a global prompt history of older builds
    g.write(f"{CURSOR}:@host", root / "prompt_history.json", j([f"old {g.secret('c.global_history')}"]))

    # ---- ACP session
    acs = Store()
    aq = acs.put(j({"role": "user", "content": [{"type": "text", "text": f"acp {g.secret('c.acp')}"}]}))
    aroot = acs.put(f_len(1, bytes.fromhex(aq)))
    adir = root / "acp-sessions" / acp
    acs.write(adir / "store.db", {"agentId": acp, "latestRootBlobId": aroot, "name": "acp", "createdAt": g.ms(),
                                  "mode": "default", "isRunEverything": False}).close()
    g.own(f"{CURSOR}:{acp}", adir / "store.db")
    g.write(f"{CURSOR}:{acp}", adir / "meta.json", j({"schemaVersion": 1, "cwd": cwd, "title": f"acp {user}"}))


# ================================================================== OpenCode

OC = "opencode"

OC_SCHEMA = """
CREATE TABLE project (id TEXT PRIMARY KEY, worktree TEXT NOT NULL, vcs TEXT, name TEXT, time_created INTEGER, time_updated INTEGER);
CREATE TABLE workspace (id TEXT PRIMARY KEY, project_id TEXT, directory TEXT);
CREATE TABLE session_v2 (id TEXT PRIMARY KEY, project_id TEXT NOT NULL, workspace_id TEXT, parent_id TEXT,
  fork_session_id TEXT, fork_boundary TEXT, slug TEXT NOT NULL, directory TEXT NOT NULL, path TEXT, title TEXT,
  version TEXT NOT NULL, share_url TEXT, summary_additions INTEGER, summary_deletions INTEGER, summary_files INTEGER,
  summary_diffs TEXT, metadata TEXT, cost REAL NOT NULL DEFAULT 0, tokens_input INTEGER NOT NULL DEFAULT 0,
  tokens_output INTEGER NOT NULL DEFAULT 0, tokens_reasoning INTEGER NOT NULL DEFAULT 0,
  tokens_cache_read INTEGER NOT NULL DEFAULT 0, tokens_cache_write INTEGER NOT NULL DEFAULT 0, revert TEXT,
  permission TEXT, agent TEXT, model TEXT, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL,
  time_idle INTEGER, idle_outcome TEXT, time_viewed INTEGER, time_compacting INTEGER, time_archived INTEGER,
  time_suspended INTEGER, resume_attempts INTEGER NOT NULL DEFAULT 0, future_col TEXT);
CREATE TABLE session_message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, type TEXT NOT NULL, seq INTEGER NOT NULL,
  time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);
CREATE INDEX session_message_seq ON session_message (session_id, seq);
CREATE TABLE session_inbox (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, type TEXT, payload TEXT, delivery TEXT,
  enqueued_seq INTEGER, time_created INTEGER);
CREATE TABLE session_pending (id TEXT PRIMARY KEY, session_id TEXT);
CREATE TABLE instruction_entry (session_id TEXT, key TEXT, value TEXT, removed INTEGER, PRIMARY KEY (session_id, key));
CREATE TABLE instruction_state (session_id TEXT PRIMARY KEY, epoch_start INTEGER, through_seq INTEGER,
  initial_values TEXT, current_values TEXT);
CREATE TABLE instruction_blob (hash TEXT PRIMARY KEY, value TEXT);
CREATE TABLE event (id TEXT PRIMARY KEY, aggregate_id TEXT, seq INTEGER, created INTEGER, type TEXT, data TEXT);
CREATE TABLE event_sequence (aggregate_id TEXT PRIMARY KEY, seq INTEGER, owner_id TEXT);
CREATE TABLE kv (key TEXT PRIMARY KEY, value TEXT, time_created INTEGER, time_updated INTEGER);
CREATE TABLE permission (id TEXT PRIMARY KEY, project_id TEXT, data TEXT);
CREATE TABLE credential (id TEXT PRIMARY KEY, provider TEXT, secret TEXT);
CREATE TABLE account (id TEXT PRIMARY KEY, email TEXT, token TEXT);
CREATE TABLE worktree (id TEXT PRIMARY KEY, directory TEXT);
CREATE TABLE migration (id TEXT PRIMARY KEY, time_applied INTEGER);
CREATE TABLE session_future_notes (session_id TEXT, note TEXT);
CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT, parent_id TEXT, slug TEXT, directory TEXT, title TEXT,
  version TEXT, time_created INTEGER, time_updated INTEGER);
CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT, time_created INTEGER, time_updated INTEGER, data TEXT);
CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT, session_id TEXT, time_created INTEGER, time_updated INTEGER, data TEXT);
"""


def oc_id(g: Gen, prefix: str) -> str:
    return prefix + "_" + g.alnum(26)


def build_opencode(g: Gen) -> None:
    p, home, user = g.plan, g.plan.home, g.plan.user
    data = home / ".local" / "share" / "opencode"
    db = data / "opencode.db"
    c = wal_db(db)
    c.executescript(OC_SCHEMA)
    proj = "prj_" + g.alnum(20)
    cwd = f"{home}/code/ünïcode ✓/{user}-svc"
    p.cwds["opencode"] = cwd
    main, child, fork, staged, empty = (oc_id(g, "ses") for _ in range(5))
    p.ids.update(o_main=main, o_child=child, o_fork=fork, o_staged=staged, o_empty=empty)
    key = lambda sid: f"{OC}:{sid}"  # noqa: E731
    db_rel = ".local/share/opencode/opencode.db"
    for sid in (main, child, fork, staged, empty):
        p.files[key(sid)] = {db_rel}
    c.execute("BEGIN")
    c.execute("INSERT INTO project VALUES (?,?,?,?,?,?)", (proj, cwd, "git", f"{user}-svc", g.ms(), g.ms()))
    c.execute("INSERT INTO migration VALUES ('20260804233008_loose_psylocke', ?)", (g.ms(),))
    c.execute("INSERT INTO kv VALUES ('migration.v1-v2', '{}', 1, 1)")
    c.execute("INSERT INTO kv VALUES ('auth.token', ?, 1, 1)", (g.secret("o.kv_host"),))
    c.execute("INSERT INTO credential VALUES ('cr1', 'anthropic', ?)", (g.secret("o.credential"),))
    c.execute("INSERT INTO account VALUES ('ac1', ?, 'x')", (g.secret("o.account"),))

    def session(sid: str, **kw: Any) -> None:
        row = {"id": sid, "project_id": proj, "slug": "quiet-river", "directory": cwd, "version": "2.1.4",
               "title": f"Work for {user}", "time_created": g.ms(), "time_updated": g.ms(),
               "model": j({"id": "m", "providerID": "p"}).decode(), "agent": "build",
               "metadata": j({"host": f"{user}@laptop"}).decode(), "future_col": f"future {user}", **kw}
        cols = ",".join(row)
        c.execute(f"INSERT INTO session_v2 ({cols}) VALUES ({','.join('?' * len(row))})", list(row.values()))

    seqs: dict[str, int] = {}

    def msg(sid: str, typ: str, d: dict[str, Any], mid: str | None = None, s: int | None = None) -> str:
        mid = mid or oc_id(g, "msg")
        if s is None:
            seqs[sid] = s = seqs.get(sid, 0) + g.rng.choice((1, 2, 3))  # per-session event seq, with gaps
        t = g.ms()
        d.setdefault("time", {"created": t})
        c.execute("INSERT INTO session_message VALUES (?,?,?,?,?,?,?)", (mid, sid, typ, s, t, t, j(d).decode()))
        return mid

    session(main, title=f"Fix {user}'s login {g.secret('o.title')}",
            permission=j([{"permission": "bash", "pattern": f"{home}/*", "action": "allow"}]).decode())
    tool_out = "tool_" + g.alnum(26)
    sh = "sh_" + g.alnum(26)
    msg(main, "model-switched", {"model": {"id": "m", "providerID": "p"}, "previous": {"id": "o", "providerID": "p"}})
    msg(main, "agent-switched", {"agent": "plan", "previous": "build"})
    msg(main, "system", {"text": f"<instructions>from {cwd}/AGENTS.md</instructions>",
                         "description": "Instructions updated: project/agents.md",
                         "metadata": {"notice": "instructions", "instructionSources": [f"{cwd}/AGENTS.md"]}})
    u1 = msg(main, "user", {"text": f"log in with {g.secret('o.user_text')}",
                            "files": [{"data": base64.b64encode(f"attached {g.secret('o.attachment')}".encode()).decode(),
                                       "mime": "text/plain", "source": {"type": "uri", "uri": f"file://{cwd}/notes.txt"},
                                       "name": f"{user}-notes.txt", "mention": {"start": 0, "end": 3, "text": "@no"}}],
                            "agents": [{"name": "explore"}], "skills": [{"id": "skill_x", "name": "x", "text": "body"}],
                            "metadata": {"source": "tui"}})
    boundary_seq = seqs[main]
    msg(main, "skill", {"skill": "skill_x", "name": "x", "text": f"# skill by {g.secret('o.skill')}"})
    msg(main, "assistant", {"agent": "build", "model": {"id": "m", "providerID": "p"}, "content": [
        {"type": "reasoning", "text": f"think {g.secret('o.reasoning')}", "time": {"created": g.ms()}},
        {"type": "text", "text": "Running.", "native": {"sig": "x"}},
        {"type": "tool", "id": "call_sh", "name": "shell", "executed": True,
         "state": {"status": "completed", "input": {"command": f"cat {home}/.netrc", "env": {"TOKEN": g.secret('o.tool_input')}},
                   "content": [{"type": "text", "text": f"...truncated, see {data}/tool-output/{tool_out}"},
                               {"type": "file", "uri": "data:image/png;base64,iVBORw0KGgo=", "mime": "image/png",
                                "name": f"{user}.png"}],
                   "metadata": {"truncated": True, "outputPath": f"{data}/tool-output/{tool_out}"}},
         "time": {"created": g.ms(), "ran": g.ms(), "completed": g.ms()}},
        {"type": "tool", "id": "call_sub", "name": "subagent", "executed": True,
         "state": {"status": "completed", "input": {"prompt": "scan"},
                   "content": [{"type": "text", "text": f"<task sessionID=\"{child}\">done</task>"}],
                   "metadata": {"sessionID": child}}},
        {"type": "tool", "id": "call_err", "name": "read", "executed": True,
         "state": {"status": "error", "input": {"path": f"{cwd}/secrets.env"},
                   "error": {"type": "tool.execution", "message": f"denied for {g.secret('o.tool_error')}"}}},
        {"type": "tool", "id": "call_stream", "name": "edit", "state": {"status": "streaming", "input": "{\"path\":\"/ho"}},
        {"type": "future-block", "blob": {"k": 1}},
    ], "snapshot": {"start": "a" * 40, "end": "b" * 40, "files": [f"{cwd}/login.py"]}, "finish": "tool-calls",
        "cost": 0.01, "tokens": {"input": 10, "output": 2, "reasoning": 0, "cache": {"read": 0, "write": 0}},
        "time": {"created": g.ms(), "streamed": g.ms(), "completed": g.ms()}, "futureKey": True})
    g.write(key(main), data / "tool-output" / tool_out, f"full output {g.secret('o.tool_output_file')} {home}\n".encode())
    msg(main, "shell", {"shellID": sh, "command": f"export KEY={g.secret('o.shell_cmd')}", "status": "exited", "exit": 0,
                        "output": {"output": f"{home}\n", "cursor": 5, "size": 5, "truncated": False},
                        "metadata": {"background": False}, "time": {"created": g.ms(), "completed": g.ms()}})
    g.write(key(main), data / "shell" / proj / f"{sh}.out", f"KEY={p.secrets['o.shell_cmd']}\n{home}\n".encode())
    msg(main, "synthetic", {"text": f"<subagent sessionID=\"{child}\" state=\"completed\">done</subagent>",
                            "description": "scan", "metadata": {"source": "subagent", "childID": child,
                                                                "agent": "explore", "state": "completed"}})
    msg(main, "compaction", {"status": "failed", "reason": "manual", "error": {"type": "provider", "message": "overloaded"}})
    msg(main, "compaction", {"status": "completed", "reason": "auto", "summary": f"Goal: login as {g.secret('o.summary')}",
                             "metadata": {"keepID": u1}, "tokens": {"input": 1, "output": 1, "reasoning": 0,
                                                                    "cache": {"read": 0, "write": 0}}})
    msg(main, "location-switched", {"location": {"directory": f"{home}/other"}, "projectID": proj, "subpath": "x",
                                    "previous": {"location": {"directory": cwd}}})
    msg(main, "idle", {"outcome": "succeeded"})
    msg(main, "future-kind", {"anything": f"{g.secret('o.future_row')}"})
    inflight = msg(main, "assistant", {"agent": "build", "model": {"id": "m", "providerID": "p"},
                                       "content": [{"type": "text", "text": "still stream"}]})
    p.notes["o_inflight"] = inflight
    c.execute("INSERT INTO session_inbox VALUES (?,?,?,?,?,?,?)",
              (oc_id(g, "msg"), main, "user", j({"text": f"also {g.secret('o.inbox')}"}).decode(), "queue", 99, g.ms()))
    blob_v = j({"text": f"AGENTS by {g.secret('o.instruction')}"}).decode()
    h = sha(blob_v.encode())
    c.execute("INSERT INTO instruction_blob VALUES (?,?)", (h, blob_v))
    c.execute("INSERT INTO instruction_state VALUES (?,?,?,?,?)", (main, 0, 2, j({"p": h}).decode(), j({"p": h}).decode()))
    c.execute("INSERT INTO instruction_entry VALUES (?,?,?,0)", (main, "k", j({"v": f"{home}/x"}).decode()))
    c.execute("INSERT INTO event_sequence VALUES (?,?,NULL)", (main, seqs[main]))
    c.execute("INSERT INTO session_future_notes VALUES (?,?)", (main, f"note {g.secret('o.future_table')}"))

    # subagent child
    session(child, parent_id=main, title=f"scan (@explore) {user}")
    msg(child, "user", {"text": f"scan {cwd}"})
    msg(child, "assistant", {"agent": "explore", "model": {"id": "m", "providerID": "p"},
                             "content": [{"type": "text", "text": f"found {g.secret('o.child')}"}],
                             "finish": "stop", "time": {"created": g.ms(), "completed": g.ms()}})
    p.edges[key(child)] = ("subagent", key(main), "call_sub")
    # fork through u1: rows copied with new ids msg_<evt>_<seq>, same seq
    session(fork, fork_session_id=main, fork_boundary=j({"type": "through", "messageID": u1}).decode(),
            title=f"Fix {user}'s login (fork #1)")
    for (mid, s_, typ, d) in c.execute("SELECT id, seq, type, data FROM session_message WHERE session_id=? AND seq<=? "
                                       "ORDER BY seq", (main, boundary_seq)).fetchall():
        c.execute("INSERT INTO session_message VALUES (?,?,?,?,?,?,?)",
                  (f"msg_{g.alnum(10)}_{s_}", fork, typ, s_, g.ms(), g.ms(), d))
    p.edges[key(fork)] = ("fork", key(main), f"through:{u1}")
    # staged revert
    session(staged, revert=j({"messageID": "msg_target", "snapshot": "c" * 40, "files": [f"{cwd}/a.py"]}).decode())
    msg(staged, "user", {"text": "undo this"}, mid="msg_target")
    # a stale 1.x copy of main (imported: not a session of its own) and a 1.x session never imported
    c.execute("INSERT INTO session VALUES (?,?,NULL,'s',?,?,'1.9',1,1)", (main, proj, cwd, f"stale {user}"))
    c.execute("INSERT INTO message VALUES ('msg_stale', ?, 1, 1, ?)",
              (main, j({"role": "user", "time": {"created": 1}, "agent": "build",
                        "model": {"providerID": "p", "modelID": "m"}}).decode()))
    v1 = oc_id(g, "ses")
    p.ids["o_v1"] = v1
    p.files[key(v1)] = {db_rel}
    c.execute("INSERT INTO session VALUES (?,?,NULL,'s',?,?,'1.9',?,?)", (v1, proj, cwd, f"v1 by {user}", g.ms(), g.ms()))
    c.execute("INSERT INTO message VALUES ('msg_v1a', ?, 1, 1, ?)",
              (v1, j({"role": "assistant", "parentID": "msg_u", "modelID": "m", "providerID": "p", "mode": "build",
                      "agent": "build", "path": {"cwd": cwd, "root": cwd}, "cost": 0,
                      "tokens": {"input": 1, "output": 1, "reasoning": 0, "cache": {"read": 0, "write": 0}},
                      "time": {"created": g.ms(), "completed": g.ms()}}).decode()))
    c.execute("INSERT INTO part VALUES ('prt_1', 'msg_v1a', ?, 1, 1, ?)",
              (v1, j({"type": "text", "text": f"v1 text {g.secret('o.v1_part')}"}).decode()))
    # empty session, no rows, unicode title
    session(empty, title="пустая 🚀", directory=f"{home}/пусто")
    c.execute("COMMIT")
    # rows that only the -wal holds while the CLI runs
    late = g.secret("o.wal_only")
    msg(main, "user", {"text": f"WALMARK-opencode {late}"})
    p.wal_only["opencode"] = late
    p.keep.append(c)
    # the snapshot git dir (seed layout: snapshot/<project-id>/<hash(worktree)>/, a private git
    # directory): a loose blob of a file holding a secret, and a tree naming it
    gdir = data / "snapshot" / proj / hashlib.sha1(cwd.encode()).hexdigest()
    gdir.mkdir(parents=True)
    genv = {"GIT_DIR": str(gdir), "HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1", "PATH": os.environ.get("PATH", "")}
    subprocess.run(["git", "init", "-q", "--bare", "--template=", str(gdir)], check=True, env=genv, capture_output=True)
    blob_file = home / "snap-src.txt"
    blob_file.write_text(f"PASSWORD={g.secret('o.snapshot_blob')}\nowner {user} at {home}\n")
    oid = subprocess.run(["git", "hash-object", "-w", str(blob_file)], check=True, env=genv,
                         capture_output=True, text=True).stdout.strip()
    blob_file.unlink()
    tree = subprocess.run(["git", "mktree"], input=f"100644 blob {oid}\tlogin.py\n", check=True, env=genv,
                          capture_output=True, text=True).stdout.strip()
    p.notes["snapshot_tree"] = tree
    p.files[f"{OC}:@project-{proj}"] = {f.relative_to(home).as_posix() for f in gdir.rglob("*") if f.is_file()}
    p.ids["o_project"] = proj
    # a channel database with a broken page: reported by name, the others still archived
    beta = data / "opencode-beta.db"
    bc = sqlite3.connect(beta)
    bc.executescript(OC_SCHEMA)
    bc.execute("INSERT INTO session_v2 (id, project_id, slug, directory, version, time_created, time_updated) "
               "VALUES ('ses_beta', ?, 's', ?, '2.1.4', 1, 1)", (proj, cwd))
    bc.commit()
    bc.close()
    raw = bytearray(beta.read_bytes())
    raw[4096:4096 * 3] = b"\xa5" * (4096 * 2)
    beta.write_bytes(bytes(raw))
    p.notes["beta_db"] = ".local/share/opencode/opencode-beta.db"


def build(home: Path, user: str) -> Plan:
    g = Gen(home, user)
    build_cursor(g)
    build_opencode(g)
    return g.plan
