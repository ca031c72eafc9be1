"""Black-box generator for pi and the DeepSeek harness, written from the seeds alone
(/work/shared/seeds/by-harness/pi.json and the DeepSeek persistence catalog
003_37255de69aaa2bf4.txt), not from the project's fixtures.

`build_home(base)` writes a HOME with several sessions per harness that use every record type,
content block and sidecar the seeds list, plants a distinct canary (e-mail, /home/<user> path,
GitHub token, AWS key id, password assignment, the username in prose) in every string field the
seeds mark as user data or free text, and plants realistic ids (uuids, entry ids, tool-call ids,
git SHAs, signatures, base64 media) that must come through intact. It returns what it planted:
the sessions, the lineage edges the seeds' linking rules imply, and the files a restore must lay
out.
"""

from __future__ import annotations

import base64
import json
import random
import string
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

USER = "quintrell"
BASE62 = string.ascii_letters + string.digits
PNG_1PX = base64.b64encode(bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360f8ffff3f0005fe02fea7d6a4f90000000049454e44ae426082")).decode()
FIRST = ("marguerite", "oskar", "tamsin", "bertrand", "yolanda", "ignatius", "philippa", "casimir")
LAST = ("vandermolen", "achterberg", "okonkwo", "lindqvist", "barraclough", "fitzwarren")
DOMAINS = ("gmail.com", "fastmail.fm", "proton.me", "northwind-logistics.de", "acmecorp.co.uk")
PROJECTS = ("atlas", "borealis", "cygnus", "dorado", "eridanus")


@dataclass
class Planted:
    home: Path
    sessions: set[str] = field(default_factory=set)            # every session key generated
    top_level: list[str] = field(default_factory=list)         # keys whose parent is not archived
    edges: set[tuple[str, str]] = field(default_factory=set)   # (child, parent)
    relations: dict[tuple[str, str], set[str]] = field(default_factory=dict)  # edge -> relations the seed allows
    canaries: dict[str, str] = field(default_factory=dict)     # value -> where planted
    ids: dict[str, str] = field(default_factory=dict)          # value -> where planted (must survive)
    split_secrets: list[tuple[str, list[str]]] = field(default_factory=list)  # secret, stream pieces
    # session key -> files (relative to HOME, USER standing for the username) a restore must lay out
    layout: dict[str, list[str]] = field(default_factory=dict)
    families: dict[str, list[str]] = field(default_factory=dict)  # top-level key -> its family
    torn: list[str] = field(default_factory=list)              # canaries only in a torn last line


class Planter:
    """Makes canaries and ids, remembering where each went."""

    def __init__(self, planted: Planted, seed: int) -> None:
        self.p = planted
        self.rng = random.Random(seed)
        self.n = 0

    def rand(self, n: int, alphabet: str = BASE62) -> str:
        return "".join(self.rng.choice(alphabet) for _ in range(n))

    def email(self, where: str) -> str:
        value = f"{self.rng.choice(FIRST)}.{self.rng.choice(LAST)}{self.rng.randint(10, 99)}@{self.rng.choice(DOMAINS)}"
        return self._canary(value, where, "email")

    def home_path(self, where: str) -> str:
        value = f"/home/{USER}/work/{self.rng.choice(PROJECTS)}/{self.rand(6, string.ascii_lowercase)}.py"
        return self._canary(value, where, "path")

    def github(self, where: str) -> str:
        return self._canary("ghp_" + self.rand(36), where, "github")

    def aws(self, where: str) -> str:
        return self._canary("AKIA" + self.rand(16, string.ascii_uppercase + "234567"), where, "aws")

    def password(self, where: str) -> str:
        secret = self.rand(5, string.ascii_letters) + self.rand(3, string.digits) + self.rand(6)
        self._canary(secret, where, "password")
        return self.rng.choice((f"password={secret}", f'DB_PASSWORD="{secret}"', f"password: {secret}",
                                f"export PGPASSWORD={secret}"))

    def _canary(self, value: str, where: str, kind: str) -> str:
        self.p.canaries[value] = f"{where} [{kind}]"
        return value

    def text(self, where: str) -> str:
        """One free-text value carrying every canary kind."""
        self.n += 1
        return (f"Note {self.n}: mail {self.email(where)} about {self.home_path(where)}; token "
                f"{self.github(where)}, key id {self.aws(where)}, {self.password(where)}. "
                f"Ask {USER} before merging.")

    def id(self, value: str, where: str) -> str:
        self.p.ids[value] = where
        return value

    def uuid4(self, where: str) -> str:
        return self.id(str(uuid.UUID(int=self.rng.getrandbits(128), version=4)), where)

    def uuid7(self, ms: int, where: str) -> str:
        rand = self.rng.getrandbits(74)
        value = (ms << 80) | (0x7 << 76) | ((rand >> 62) << 64) | (0b10 << 62) | (rand & ((1 << 62) - 1))
        return self.id(str(uuid.UUID(int=value)), where)

    def sha(self, where: str) -> str:
        return self.id(self.rand(40, "0123456789abcdef"), where)

    def call_id(self, prefix: str, where: str) -> str:
        return self.id(prefix + self.rand(24), where)


def iso(ms: int) -> str:
    from datetime import datetime, timezone
    return datetime.fromtimestamp(ms / 1000, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def write_jsonl(path: Path, rows: list[dict[str, Any]], torn: str = "") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    body = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    path.write_text(body + torn, encoding="utf-8")


# ============================================================================ pi

def pi_dir_name(cwd: str) -> str:
    """--<cwd with leading separator removed and / \\ : replaced by ->--"""
    inner = cwd.lstrip("/\\")
    for ch in "/\\:":
        inner = inner.replace(ch, "-")
    return f"--{inner}--"


def pi_file_name(header_ts: str, sid: str) -> str:
    return f"{header_ts.replace(':', '-').replace('.', '-')}_{sid}.jsonl"


def usage(n: int) -> dict[str, Any]:
    return {"input": 100 + n, "output": 20 + n, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 120 + 2 * n,
            "cost": {"input": 0.0003, "output": 0.0004, "cacheRead": 0, "cacheWrite": 0, "total": 0.0007}}


class PiSession:
    """One pi transcript: a header plus an append-only tree of entries."""

    def __init__(self, pl: Planter, cwd: str, start_ms: int, *, version: int | None = 3,
                 sid: str | None = None, parent_session: str | None = None, label: str = "") -> None:
        self.pl, self.cwd, self.ms, self.version = pl, cwd, start_ms, version
        self.sid = sid or pl.uuid7(start_ms, f"pi {label} header.id")
        self.header: dict[str, Any] = {"type": "session"}
        if version is not None:
            self.header["version"] = version
        self.header |= {"id": self.sid, "timestamp": iso(start_ms), "cwd": cwd}
        if parent_session:
            self.header["parentSession"] = parent_session
        self.entries: list[dict[str, Any]] = []
        self.leaf: str | None = None
        self.label = label
        self.ids: set[str] = set()

    @property
    def file_name(self) -> str:
        return pi_file_name(self.header["timestamp"], self.sid)

    @property
    def rel_path(self) -> str:
        return f".pi/agent/sessions/{pi_dir_name(self.cwd)}/{self.file_name}"

    def new_id(self) -> str:
        while True:
            value = self.pl.rand(8, "0123456789abcdef")
            if value not in self.ids and not value.isdigit():
                self.ids.add(value)
                return self.pl.id(value, f"pi {self.label} entry id")

    def tick(self, step: int = 1500) -> int:
        self.ms += step
        return self.ms

    def add(self, etype: str, parent: str | None | bool = True, **fields: Any) -> str:
        """Append an entry; parent True means the current leaf."""
        eid = self.new_id()
        parent_id = self.leaf if parent is True else parent
        entry: dict[str, Any] = {"type": etype, "id": eid, "parentId": parent_id, "timestamp": iso(self.tick())}
        entry |= fields
        self.entries.append(entry)
        self.leaf = eid
        return eid

    def message(self, parent: str | None | bool = True, **msg: Any) -> str:
        msg.setdefault("timestamp", self.ms + 500)
        return self.add("message", parent, message=msg)

    def rows(self) -> list[dict[str, Any]]:
        return [self.header, *self.entries]


def pi_assistant(pl: Planter, s: PiSession, content: list[dict[str, Any]], stop: str = "stop",
                 **extra: Any) -> dict[str, Any]:
    msg: dict[str, Any] = {"role": "assistant", "content": content, "api": "anthropic-messages",
                           "provider": "anthropic", "model": "claude-sonnet-4-5",
                           "responseId": pl.call_id("msg_01", f"pi {s.label} responseId"),
                           "usage": usage(len(s.entries)), "stopReason": stop, "durationMs": 812}
    return msg | extra


def pi_tool_call(pl: Planter, s: PiSession, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"type": "toolCall", "id": pl.call_id("toolu_01", f"pi {s.label} toolCall.id"), "name": name,
            "arguments": arguments}


def pi_thinking(pl: Planter, s: PiSession, where: str) -> dict[str, Any]:
    sig = pl.id(base64.b64encode(pl.rng.randbytes(96)).decode(), f"pi {s.label} thinkingSignature")
    return {"type": "thinking", "thinking": pl.text(where), "thinkingSignature": sig}


def pi_bash_log(pl: Planter, tmpdir: Path, where: str, exists: bool = True) -> Path:
    path = tmpdir / f"pi-bash-{pl.rand(16, '0123456789abcdef')}.log"
    if exists:
        path.write_text("line 1\n" + pl.text(f"{where} (temp file content)") + "\n" * 3, encoding="utf-8")
    return path


def build_pi_main(pl: Planter, tmpdir: Path) -> tuple[PiSession, list[str]]:
    """v3 session with every entry type, content block, tree branches, compaction and two temp
    files (one gone). Returns the session and the sidecar names a restore must lay out."""
    s = PiSession(pl, f"/home/{USER}/work/atlas", 1767261600000, label="P1")
    L = "pi P1"
    sys_id = s.message(None, role="system", content=pl.text(f"{L} system.content"),
                       sections={"preamble": "You are a coding assistant.", "cwd": f"/home/{USER}/work/atlas",
                                 "agents": pl.text(f"{L} system.sections.agents")},
                       toolsAdded=[{"name": "bash", "description": pl.text(f"{L} system.toolsAdded.description"),
                                    "parameters": {"type": "object", "properties": {"command": {"type": "string"}}}}])
    s.add("model_change", provider="anthropic", modelId="claude-sonnet-4-5")
    s.add("thinking_level_change", thinkingLevel="high")
    u1 = s.message(role="user", content=pl.text(f"{L} user.content(string)"))
    sha = pl.sha(f"{L} git sha in assistant text")
    call1 = pi_tool_call(pl, s, "bash", {"command": f"cd /home/{USER}/work/atlas && git show {sha} # " +
                                                    pl.text(f"{L} toolCall.arguments.command")})
    s.message(**pi_assistant(pl, s, [
        pi_thinking(pl, s, f"{L} thinking.thinking"),
        {"type": "text", "text": f"Checking commit {sha}. " + pl.text(f"{L} assistant text"),
         "textSignature": json.dumps({"v": 1, "id": pl.call_id("msg_", f"{L} textSignature.id"), "phase": "commentary"})},
        call1], stop="toolUse", thinkingLevel="high", providerThinkingLevel="high"))
    log1 = pi_bash_log(pl, tmpdir, f"{L} toolResult.details.fullOutputPath")
    s.message(role="toolResult", toolCallId=call1["id"], toolName="bash",
              content=[{"type": "text", "text": pl.text(f"{L} toolResult.content.text")},
                       {"type": "image", "data": pl.id(PNG_1PX, f"{L} toolResult image base64"), "mimeType": "image/png"}],
              details={"truncation": {"truncated": True, "outputLines": 2000}, "fullOutputPath": str(log1)},
              isError=False, durationMs=40)
    call2 = pi_tool_call(pl, s, "edit", {"path": pl.home_path(f"{L} toolCall.arguments.path"),
                                         "oldText": pl.text(f"{L} edit.oldText"), "newText": pl.text(f"{L} edit.newText")})
    call3 = pi_tool_call(pl, s, "codemode", {})
    call3["argumentsError"] = '{"code": "' + pl.text(f"{L} toolCall.argumentsError") + '  <- Unexpected end of JSON'
    s.message(**pi_assistant(pl, s, [call2, call3], stop="toolUse"))
    s.message(role="toolResult", toolCallId=call2["id"], toolName="edit",
              content=[{"type": "text", "text": "Applied 1 edit."}],
              details={"diff": pl.text(f"{L} edit.details.diff"), "patch": pl.text(f"{L} edit.details.patch"),
                       "firstChangedLine": 12}, isError=False)
    s.message(role="toolResult", toolCallId=call3["id"], toolName="codemode",
              content=[{"type": "text", "text": pl.text(f"{L} toolResult(codemode).content")}], isError=True,
              usage=usage(3),
              nestedCalls={"complete": True, "calls": [
                  {"id": pl.call_id("nc_", f"{L} nestedCalls.id"), "name": "read",
                   "arguments": {"path": pl.home_path(f"{L} nestedCalls.arguments.path")}, "status": "error",
                   "durationMs": 3, "error": pl.text(f"{L} nestedCalls.error")}]})
    err_id = s.message(**pi_assistant(pl, s, [{"type": "text", "text": pl.text(f"{L} aborted assistant text")}],
                                      stop="error", errorMessage=pl.text(f"{L} assistant.errorMessage"),
                                      rawStopReason="overloaded_error",
                                      diagnostics=[{"type": "provider_transport_failure", "timestamp": s.ms,
                                                    "error": {"name": "FetchError", "message": pl.text(f"{L} diagnostics.error.message"),
                                                              "stack": pl.text(f"{L} diagnostics.error.stack"), "code": "ECONNRESET"},
                                                    "details": {"url": "https://api.anthropic.com/v1/messages"}}]))
    s.add("context_edit", targetId=err_id, replacement=None)
    s.add("context_edit", targetId=u1, replacement={"content": pl.text(f"{L} context_edit.replacement.content")})
    s.message(role="user", content=[{"type": "text", "text": pl.text(f"{L} user.content[text]")},
                                    {"type": "image", "data": PNG_1PX, "mimeType": "image/png"}])
    s.message(**pi_assistant(pl, s, [{"type": "text", "text": pl.text(f"{L} assistant deferred text")}],
                             stop="deferred", endTurn=True,
                             deferred={"provider": "openai", "modelId": "gpt-5", "api": "openai-responses",
                                       "id": pl.call_id("resp_", f"{L} deferred.id"), "expiresAt": s.ms + 3600000,
                                       "pollAfterMs": 2000, "data": {"note": pl.text(f"{L} deferred.data.note")}}))
    log2 = pi_bash_log(pl, tmpdir, f"{L} bashExecution.fullOutputPath (gone)", exists=False)
    s.message(role="bashExecution", command=f"grep -r TODO /home/{USER}/work/atlas # " + pl.text(f"{L} bashExecution.command"),
              output=pl.text(f"{L} bashExecution.output"), exitCode=0, cancelled=False, truncated=True,
              fullOutputPath=str(log2))
    s.message(role="bashExecution", command="sleep 100", output="", cancelled=True, truncated=False,
              excludeFromContext=True)
    log3 = pi_bash_log(pl, tmpdir, f"{L} bashExecution.fullOutputPath")
    s.message(role="bashExecution", command="cat big.log", output=pl.text(f"{L} bashExecution(2).output"), exitCode=1,
              cancelled=False, truncated=True, fullOutputPath=str(log3))
    s.message(role="custom", customType="my-ext", content=pl.text(f"{L} message.custom.content"), display=True,
              details={"note": pl.text(f"{L} message.custom.details")})
    s.add("custom_message", customType="my-extension",
          content=[{"type": "text", "text": pl.text(f"{L} custom_message.content")}], display=False,
          details={"why": pl.text(f"{L} custom_message.details")})
    s.add("custom", customType="pi.bug-report",
          data={"id": pl.uuid4(f"{L} bug-report id"), "createdAt": s.ms, "hint": pl.text(f"{L} custom.data.hint"),
                "sessionIncluded": True, "summaryIncluded": False, "delivery": "file",
                "path": pl.home_path(f"{L} custom.data.path")})
    s.add("custom", customType="pi.virtual-model-state",
          data={"provider": "anthropic", "modelId": "claude-sonnet-4-5", "state": {"memo": pl.text(f"{L} custom.state")}})
    s.add("usage", kind="cache_warm", provider="anthropic", model="claude-sonnet-4-5", usage=usage(0),
          note=pl.text(f"{L} usage.note"))
    s.add("label", targetId=u1, label=pl.text(f"{L} label.label"))
    s.add("label", targetId=u1)   # clear: no label key
    kept = s.leaf
    s.add("compaction", summary=pl.text(f"{L} compaction.summary"), firstKeptEntryId=kept, tokensBefore=120000,
          details={"readFiles": [pl.home_path(f"{L} compaction.details.readFiles")],
                   "modifiedFiles": [pl.home_path(f"{L} compaction.details.modifiedFiles")]},
          usage=usage(5), fromHook=False,
          systemMessage={"role": "system", "content": pl.text(f"{L} compaction.systemMessage.content"),
                         "sections": {"preamble": "You are a coding assistant."}, "timestamp": s.ms})
    old_leaf = s.message(role="user", content=pl.text(f"{L} user after compaction"))
    s.message(**pi_assistant(pl, s, [{"type": "text", "text": pl.text(f"{L} assistant branch A")}]))
    branch_a_leaf = s.leaf
    # non-summarised branch switch: next append gets an earlier parentId
    s.message(parent=u1, role="user", content=pl.text(f"{L} user on branch B"))
    s.message(**pi_assistant(pl, s, [{"type": "text", "text": pl.text(f"{L} assistant branch B")}],
                             responseModel="claude-sonnet-4-5-20250929"))
    s.add("branch_summary", parent=old_leaf, fromId=branch_a_leaf, summary=pl.text(f"{L} branch_summary.summary"),
          details={"readFiles": [pl.home_path(f"{L} branch_summary.details.readFiles")], "modifiedFiles": []},
          usage=usage(2), fromHook=False)
    # resetLeaf + branchWithSummary(null): an extra root, fromId the literal "root"
    s.add("branch_summary", parent=None, fromId="root", summary=pl.text(f"{L} branch_summary(root).summary"))
    s.message(role="user", content=pl.text(f"{L} user on second root"))
    s.add("session_info", name=pl.text(f"{L} session_info.name").replace("\n", " "))
    s.message(role="system", content="", sections={"cwd": None, "extra": pl.text(f"{L} system delta sections")},
              toolsRemoved=[{"name": "bash"}])
    _ = sys_id
    return s, [log1.name, log3.name]


def build_pi_fork(pl: Planter, src: PiSession, parent_path: str, *, cwd: str | None, label: str,
                  start_ms: int, verbatim: bool) -> PiSession:
    """/fork (createBranchedSession): root->leaf path, labels dropped and re-emitted, parentIds
    rechained; forkFrom(): all entries verbatim into another cwd. Entry ids preserved in both."""
    s = PiSession(pl, cwd or src.cwd, start_ms, parent_session=parent_path, label=label)
    if verbatim:
        s.entries = [dict(e) for e in src.entries]
    else:
        by_id = {e["id"]: e for e in src.entries}
        path, cur = [], src.leaf
        while cur is not None:
            path.append(by_id[cur])
            cur = by_id[cur]["parentId"]
        prev = None
        for e in reversed(path):
            if e["type"] == "label":
                continue
            s.entries.append(dict(e) | {"parentId": prev})
            prev = e["id"]
    s.ids = {e["id"] for e in s.entries}
    s.leaf = s.entries[-1]["id"]
    s.ms = start_ms
    if not verbatim:
        s.add("label", targetId=s.entries[0]["id"], label=pl.text(f"pi {label} re-emitted label"))
    s.message(role="user", content=pl.text(f"pi {label} user after fork"))
    s.message(**pi_assistant(pl, s, [{"type": "text", "text": pl.text(f"pi {label} assistant after fork")}]))
    return s


def build_pi_v1(pl: Planter, cwd: str, start_ms: int, label: str) -> PiSession:
    """Version 1 (header without version): linear, no id/parentId; compaction uses
    firstKeptEntryIndex; session id a UUIDv4."""
    s = PiSession(pl, cwd, start_ms, version=None, sid=pl.uuid4(f"pi {label} header.id (v1 uuid4)"), label=label)
    rows: list[dict[str, Any]] = []
    def add(etype: str, **fields: Any) -> None:
        rows.append({"type": etype, "timestamp": iso(s.tick())} | fields)
    add("message", message={"role": "user", "content": pl.text(f"pi {label} v1 user"), "timestamp": s.ms})
    call = pi_tool_call(pl, s, "read", {"path": pl.home_path(f"pi {label} v1 toolCall.arguments.path")})
    add("message", message=pi_assistant(pl, s, [call], stop="toolUse") | {"timestamp": s.ms})
    add("message", message={"role": "toolResult", "toolCallId": call["id"], "toolName": "read",
                            "content": [{"type": "text", "text": pl.text(f"pi {label} v1 toolResult")}],
                            "isError": False, "timestamp": s.ms})
    add("message", message={"role": "hookMessage", "customType": "legacy-hook",
                            "content": pl.text(f"pi {label} v1 hookMessage.content"), "display": True, "timestamp": s.ms})
    add("compaction", summary=pl.text(f"pi {label} v1 compaction.summary"), firstKeptEntryIndex=2, tokensBefore=90000)
    add("message", message=pi_assistant(pl, s, [{"type": "text", "text": pl.text(f"pi {label} v1 assistant")}])
        | {"timestamp": s.ms})
    s.entries = rows
    return s


def build_pi_v2(pl: Planter, cwd: str, start_ms: int, label: str) -> PiSession:
    """Version 2: id/parentId tree, custom messages still under role hookMessage."""
    s = PiSession(pl, cwd, start_ms, version=2, sid=pl.uuid4(f"pi {label} header.id (v2 uuid4)"), label=label)
    s.message(None, role="user", content=[{"type": "text", "text": pl.text(f"pi {label} v2 user")}])
    s.message(role="hookMessage", customType="old-hook", content=pl.text(f"pi {label} v2 hookMessage"), display=False)
    s.add("label", targetId=s.entries[0]["id"], label=pl.text(f"pi {label} v2 label"))
    s.message(**pi_assistant(pl, s, [{"type": "text", "text": pl.text(f"pi {label} v2 assistant")}]))
    return s


def build_pi_small(pl: Planter, cwd: str, start_ms: int, label: str, *, sid: str | None = None,
                   parent_session: str | None = None) -> PiSession:
    s = PiSession(pl, cwd, start_ms, sid=sid, parent_session=parent_session, label=label)
    s.add("model_change", parent=None, provider="openai", modelId="gpt-5")
    s.message(role="user", content=pl.text(f"pi {label} user"))
    s.message(**pi_assistant(pl, s, [{"type": "text", "text": pl.text(f"pi {label} assistant")}]))
    return s


def add_pi(planted: Planted, home: Path, s: PiSession, sessions_root: Path | None = None,
           sidecars: list[str] = ()) -> str:
    root = sessions_root or home / ".pi/agent/sessions" / pi_dir_name(s.cwd)
    write_jsonl(root / s.file_name, s.rows())
    key = f"pi:{s.sid}"
    planted.sessions.add(key)
    rel = f".pi/agent/sessions/{pi_dir_name(s.cwd)}"
    planted.layout[key] = [f"{rel}/{s.file_name}"] + [f"{rel}/{s.sid}.tmp/{n}" for n in sidecars]
    return key


def build_pi(planted: Planted, pl: Planter, home: Path, tmpdir: Path) -> None:
    p1, logs = build_pi_main(pl, tmpdir)
    k1 = add_pi(planted, home, p1, sidecars=logs)
    p1_logical = f"/home/{USER}/.pi/agent/sessions/{pi_dir_name(p1.cwd)}/{p1.file_name}"
    p1_real = str(home / p1.rel_path)
    # /fork in the same cwd; the header names the source by its real absolute path
    p2 = build_pi_fork(pl, p1, p1_real, cwd=None, label="P2", start_ms=1767265200000, verbatim=False)
    k2 = add_pi(planted, home, p2)
    # forkFrom() into another cwd, parentSession as pi wrote it on the user's machine (/home/<user>/...)
    p3 = build_pi_fork(pl, p1, p1_logical, cwd=f"/home/{USER}/work/borealis", label="P3",
                       start_ms=1767268800000, verbatim=True)
    k3 = add_pi(planted, home, p3)
    p4 = build_pi_v1(pl, f"/home/{USER}/work/cygnus", 1735725600000, "P4")
    k4 = add_pi(planted, home, p4)
    # newSession({parentSession}): fresh entries, header names P4 (fork or continuation)
    p6 = build_pi_small(pl, p4.cwd, 1767272400000, "P6", parent_session=f"/home/{USER}/.pi/agent/sessions/"
                        f"{pi_dir_name(p4.cwd)}/{p4.file_name}")
    k6 = add_pi(planted, home, p6)
    p5 = build_pi_v2(pl, f"/home/{USER}/work/dorado", 1740000000000, "P5")
    k5 = add_pi(planted, home, p5)
    # caller-supplied id; a cwd with a colon (replaced by - in the folder name)
    p8 = build_pi_small(pl, f"/home/{USER}/work/eridanus:v2", 1767276000000, "P8",
                        sid=pl.id("nightly.build-42", "pi P8 caller-supplied session id"))
    k8 = add_pi(planted, home, p8)
    # fork whose source file is gone (deleted): the parent id is still in its file name
    gone_sid = pl.uuid7(1767000000000, "pi gone-source id (in parentSession file name)")
    gone_path = f"/home/{USER}/.pi/agent/sessions/{pi_dir_name(p8.cwd)}/{pi_file_name(iso(1767000000000), gone_sid)}"
    p7 = build_pi_small(pl, f"/home/{USER}/work/atlas", 1767279600000, "P7", parent_session=gone_path)
    k7 = add_pi(planted, home, p7)
    # a custom session dir (settings.json sessionDir): flat, the cwd is only in the header
    custom = home / "pi-sessions"
    (home / ".pi/agent").mkdir(parents=True, exist_ok=True)
    (home / ".pi/agent/settings.json").write_text(json.dumps({"sessionDir": str(custom)}), encoding="utf-8")
    p9 = build_pi_small(pl, f"/home/{USER}/work/fornax", 1767283200000, "P9")
    k9 = add_pi(planted, home, p9, sessions_root=custom)
    for child, parent, rels in ((k2, k1, {"fork"}), (k3, k1, {"fork"}), (k6, k4, {"fork", "continuation"}),
                                (k7, f"pi:{gone_sid}", {"fork"})):
        planted.edges.add((child, parent))
        planted.relations[(child, parent)] = rels
    planted.families |= {k1: [k1, k2, k3], k4: [k4, k6], k5: [k5], k8: [k8], k7: [k7], k9: [k9]}
    planted.top_level += [k1, k4, k5, k8, k7, k9]


# ============================================================================ DeepSeek harness

class DsSession:
    """One DeepSeek JSONL log: a header line, then events {type, seq, time, data, ...}."""

    def __init__(self, pl: Planter, label: str, created_ms: int, cwd: str | None = f"/home/{USER}/work/atlas",
                 **header: Any) -> None:
        self.pl, self.label, self.time, self.seq = pl, label, created_ms, 0
        self.sid = pl.uuid7(created_ms, f"ds {label} header.id")
        self.header: dict[str, Any] = {"type": "session", "version": 3, "id": self.sid, "createdAt": created_ms}
        if cwd is not None:
            self.header["cwd"] = cwd
        self.header |= {"isSeeded": False, "delegationDepth": 0} | header
        self.events: list[dict[str, Any]] = []

    def ev(self, etype: str, data: Any, **envelope: Any) -> int:
        self.time += 700
        row = {"type": etype, "seq": self.seq, "time": self.time, "data": data} | envelope
        self.events.append(row)
        self.seq += 1
        return row["seq"]

    def rows(self) -> list[dict[str, Any]]:
        return [self.header, *self.events]

    def t(self, where: str) -> str:
        return self.pl.text(f"ds {self.label} {where}")

    def mid(self, where: str) -> str:
        return self.pl.uuid4(f"ds {self.label} {where} id")


def ds_text(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def ds_user(s: DsSession, where: str, source: dict[str, Any] | None = None, extra: list[dict] = ()) -> dict[str, Any]:
    return {"id": s.mid(where), "role": "user", "content": [ds_text(s.t(where)), *extra],
            "source": source or {"kind": "user"}}


def chunks(text: str, size: int = 5) -> list[str]:
    """Stream deltas as a model sends them: a few characters each, boundaries anywhere."""
    return [text[i:i + size] for i in range(0, len(text), size)]


def ds_tokens() -> dict[str, int]:
    return {"inputTokens": 1200, "outputTokens": 80, "cacheReadTokens": 1000, "reasoningTokens": 20, "totalTokens": 1280}


def ds_turn(s: DsSession, turn: int, *, tools: bool = True) -> None:
    """turn/start, user/message, step with request header, assistant (text, reasoning, tool-call),
    tool/call, tool/result, turn/end."""
    pl = s.pl
    s.ev("turn/start", {"turn": turn})
    s.ev("user/message", ds_user(s, f"turn{turn} user/message"), surfaceOp="append")
    s.ev("step/start", {"turn": turn, "step": 0})
    s.ev("request/header", {"header": {"config": {"provider": "deepseek", "model": "deepseek-v4", "maxTokens": 8192,
                                                  "stop": [s.t(f"turn{turn} request/header.config.stop")]},
                                       "tools": [{"name": "bash", "description": s.t(f"turn{turn} tool description"),
                                                  "parameters": {"type": "object"}}]},
                            "reason": "initial" if turn == 0 else "change", "startsSeries": True})
    call_id = pl.call_id("call_", f"ds {s.label} turn{turn} tool-call id") if tools else ""
    args = json.dumps({"command": f"ls /home/{USER}/work && echo " + s.t(f"turn{turn} tool-call arguments (JSON string)")})
    text = s.t(f"turn{turn} assistant text")
    content = [{"type": "reasoning", "text": s.t(f"turn{turn} reasoning")}, ds_text(text)]
    if tools:
        content.append({"type": "tool-call", "id": call_id, "name": "bash", "arguments": args})
    reasoning = chunks(content[0]["text"], 7)
    stream = [{"type": "text-chunks", "index": 1, "time0": s.time, "dt": [3] * len(chunks(text)), "texts": chunks(text)},
              {"type": "reasoning-chunks", "index": 0, "time0": s.time, "dt": [2] * len(reasoning), "texts": reasoning}]
    if tools:
        stream.append({"type": "tool-call-chunks", "index": 2, "time0": s.time, "dt": [1] * len(chunks(args, 6)),
                       "id": call_id, "name": "bash", "args": chunks(args, 6)})
    s.ev("assistant/message", {"turn": turn, "step": 0, "usage": ds_tokens(), "stream": stream,
                               "message": {"id": s.mid(f"turn{turn} assistant"), "role": "assistant", "content": content,
                                           "source": {"kind": "model", "provider": "deepseek", "model": "deepseek-v4",
                                                      "replayState": {"response": {"id": pl.call_id("chatcmpl-", f"ds {s.label} replay id")}}}}},
         surfaceOp="append")
    if tools:
        s.ev("tool/call", {"turn": turn, "step": 0, "callId": call_id, "name": "bash", "arguments": args})
        s.ev("tool/result", {"turn": turn, "step": 0,
                             "message": {"id": s.mid(f"turn{turn} tool/result"), "role": "user",
                                         "source": {"kind": "tool", "callId": call_id},
                                         "content": [{"type": "tool-result", "toolCallId": call_id, "isError": True,
                                                      "content": [ds_text(s.t(f"turn{turn} tool-result text"))]}]},
                             "error": {"name": "ExitError", "code": "exit_1", "reason": s.t(f"turn{turn} tool/result.error.reason")},
                             "meta": {"diff": s.t(f"turn{turn} tool/result.meta.diff"), "lines": [1, 2],
                                      "nested": [{"file": pl.home_path(f"ds {s.label} meta.nested.file")}]}},
             surfaceOp="append")
    s.ev("step/end", {"turn": turn, "step": 0})
    s.ev("turn/end", {"turn": turn, "reason": {"kind": "completed"}})


def ds_every_event(s: DsSession, child_ids: dict[str, str]) -> None:
    """Every event type of the catalog not already written by ds_turn."""
    pl, L = s.pl, s.label
    sys_seq = s.ev("system/message", {"turn": 0, "step": 0, "message": {
        "id": s.mid("system"), "role": "system", "content": [ds_text(s.t("system/message content"))],
        "source": {"kind": "plugin", "form": "snapshot", "plugin": "context",
                   "sections": [{"name": "env", "text": s.t("system source.sections.text")}]}}}, surfaceOp="append")
    s.ev("request/context", {"provider": "deepseek", "model": "deepseek-v4", "contextWindow": 128000,
                             "systemPromptUpdate": "in-history"}, ignorable=True)
    s.ev("model/selection", {"provider": "deepseek", "model": "deepseek-v4", "reasoningEffort": "high"}, ignorable=True)
    s.ev("agent-preset/selected", {"agentPreset": "coder"})
    s.ev("permission/preset", {"preset": "workspace"})
    s.ev("approval/policy", {"policy": "ask"})
    s.ev("sandbox/mode", {"mode": "workspace-write"})
    s.ev("plan/mode", {"active": True})
    s.ev("subagent/model-selection-policy", {"allowedModels": [{"provider": "deepseek", "model": "deepseek-v4-lite"}]})
    ds_turn(s, 0)
    # a user message with image + file attachments and a non-user source
    att_img = pl.id("att_" + pl.rand(20), f"ds {L} image attachmentId")
    att_file = pl.id("att_" + pl.rand(20), f"ds {L} file attachmentId")
    s.ev("turn/start", {"turn": 1})
    u_seq = s.ev("user/message", ds_user(s, "turn1 user with attachments", extra=[
        {"type": "image", "attachment": {"attachmentId": att_img, "bytes": 68, "width": 1, "height": 1,
                                         "mediaType": "image/png", "name": f"screenshot-{USER}.png",
                                         "originalDimensions": {"width": 2, "height": 2}}},
        {"type": "file", "attachment": {"attachmentId": att_file, "bytes": 512, "name": f"notes-{USER}.txt"}}]),
        surfaceOp="append")
    s.ev("image/offload", {"targets": [{"seq": u_seq, "imageIndexes": [0]}]})
    s.ev("step/start", {"turn": 1, "step": 0})
    cmd_id = pl.id("cmd_" + pl.rand(12), f"ds {L} commandId")
    s.ev("command/run", {"commandId": cmd_id, "name": "review", "args": " " + s.t("command/run.args"),
                         "source": {"kind": "user"}})
    s.ev("command/done", {"commandId": cmd_id, "kind": "error", "text": s.t("command/done.text"), "sourceEventSeq": u_seq})
    retry_id = pl.id("rty_" + pl.rand(12), f"ds {L} retryId")
    failure = {"code": "overloaded", "message": s.t("llm/retry.failure.message"), "status": 529,
               "requestId": pl.id("req_" + pl.rand(24), f"ds {L} failure.requestId")}
    s.ev("llm/retry", {"turn": 1, "step": 0, "retry": 1, "retryId": retry_id, "mode": "normal", "maxRetries": 3,
                       "delayMs": 500, "policyKey": "default", "provider": "deepseek", "failure": failure})
    s.ev("llm/retry-started", {"turn": 1, "step": 0, "retry": 1, "retryId": retry_id})
    attempt_call = pl.call_id("call_", f"ds {L} attempt tool-call id")
    s.ev("assistant/attempt", {"turn": 1, "step": 0, "stream": [
        {"type": "chunk", "time": s.time, "chunk": {"type": "block-start", "index": 0, "blockType": "text"}},
        *[{"type": "chunk", "time": s.time + n, "chunk": {"type": "text-delta", "index": 0, "text": piece}}
          for n, piece in enumerate(chunks(s.t("attempt text-delta (split over chunk records)"), 6))],
        {"type": "chunk", "time": s.time, "chunk": {"type": "reasoning-delta", "index": 1, "text": s.t("attempt reasoning-delta")}},
        {"type": "chunk", "time": s.time, "chunk": {"type": "tool-call-delta", "index": 2, "id": attempt_call, "name": "bash",
                                                    "argumentsDelta": '{"command": "' + s.t("attempt argumentsDelta")}},
        {"type": "chunk", "time": s.time, "chunk": {"type": "block-end", "index": 0, "block": ds_text(s.t("attempt block-end text"))}},
        {"type": "chunk", "time": s.time, "chunk": {"type": "usage", "usage": ds_tokens()}},
        {"type": "chunk", "time": s.time, "chunk": {"type": "finish", "reason": {"kind": "error", "failure": failure | {
            "message": s.t("attempt finish.failure.message")}}, "replayState": {"response": {"raw": s.t("attempt replayState")}}}}]})
    approval = pl.id("apr_" + pl.rand(12), f"ds {L} approval id")
    s.ev("approval/asked", {"id": approval, "toolName": "bash", "callId": attempt_call, "reason": s.t("approval/asked.reason")})
    s.ev("approval/decided", {"id": approval, "outcome": "rejected"})
    handler = pl.id("hk_" + pl.rand(10), f"ds {L} handlerId")
    s.ev("hook/invoked", {"turn": 1, "point": "PreToolUse", "dialect": "claude-code", "matcher": "Bash(rm:*)", "handlerId": handler})
    s.ev("hook/result", {"turn": 1, "point": "PreToolUse", "handlerId": handler, "decision": "deny", "exitCode": 2,
                         "stderrSummary": s.t("hook/result.stderrSummary"), "durationMs": 31})
    # run_code with bridged sub-dispatches
    root_call = pl.call_id("call_", f"ds {L} run_code call id")
    sub = pl.id(f"{root_call}:ptc:1", f"ds {L} ptc subCallId")
    s.ev("tool/ptc-dispatch-start", {"parentCallId": root_call, "rootCallId": root_call, "subCallId": sub, "name": "read",
                                     "arguments": {"path": pl.home_path(f"ds {L} ptc arguments.path")}})
    s.ev("tool/ptc-dispatch", {"parentCallId": root_call, "rootCallId": root_call, "subCallId": sub, "name": "read",
                               "arguments": {"path": pl.home_path(f"ds {L} ptc(2) arguments.path")},
                               "content": [ds_text(s.t("ptc-dispatch content"))], "isError": True,
                               "error": {"name": "ENOENT", "code": "not_found", "reason": s.t("ptc-dispatch error.reason")}})
    s.ev("deliverables/presented", {"turn": 1, "callId": root_call,
                                    "files": [{"path": pl.home_path(f"ds {L} deliverables.files.path"),
                                               "description": s.t("deliverables.files.description")}]})
    s.ev("todo/write", {"todos": [{"content": s.t("todo content"), "status": "in_progress"}]}, ignorable=True)
    goal_id = pl.id("goal_" + pl.rand(10), f"ds {L} goal id")
    s.ev("goal/change", {"kind": "goal/change", "version": 1, "operation": "block", "createdAt": s.time, "updatedAt": s.time,
                         "roundsStarted": 2, "goal": {"id": goal_id, "revision": 3, "maxGoalRounds": 10,
                                                       "objective": s.t("goal.objective"), "phase": "blocked",
                                                       "blockedReason": {"code": "needs_input", "message": s.t("goal.blockedReason.message")}}})
    s.ev("goal/change", {"kind": "goal/change", "version": 1, "operation": "clear", "clearedAt": s.time,
                         "cleared": {"id": goal_id, "revision": 3}})
    s.ev("schedule/change", {"version": 1, "operation": "create", "schedule": {
        "kind": "every", "id": pl.id("sch_" + pl.rand(10), f"ds {L} schedule id"), "everySeconds": 3600,
        "prompt": s.t("schedule.prompt"), "scheduledAt": "2026-01-01T10:00:00Z"}})
    s.ev("feedback/record", {"category": "task-result", "text": s.t("feedback/record.text")}, ignorable=True)
    fb_msg = pl.uuid4(f"ds {L} feedback messageId")
    s.ev("feedback/message-put", {"sessionId": s.sid, "item": {"version": "1", "messageId": fb_msg, "rating": "negative",
                                                                 "category": "security-privacy-permission",
                                                                 "note": s.t("feedback/message-put.item.note"),
                                                                 "createdAt": s.time, "updatedAt": s.time}}, ignorable=True)
    s.ev("feedback/message-delete", {"sessionId": s.sid, "messageId": fb_msg}, ignorable=True)
    s.ev("web/deepseek-search-llm-request", {"apiVersion": "2025-01-01", "endpoint": "https://api.deepseek.com/search",
                                             "body": {"model": "deepseek-search", "max_tokens": 1024,
                                                      "messages": [{"role": "user", "content": [ds_text(s.t("web search query"))]}],
                                                      "tools": [{"type": "web_search_20250305", "name": "web_search", "max_uses": 3}]}})
    s.ev("session/title-llm-request", {"titleProvider": "deepseek", "maxTokens": 32, "messageSeqs": [u_seq],
                                       "route": {"provider": "deepseek", "model": "deepseek-v4-lite"},
                                       "system": s.t("title-llm-request.system"),
                                       "messages": [{"id": s.mid("title msg"), "role": "user", "content": [ds_text(s.t("title-llm-request.messages"))],
                                                     "source": {"kind": "user"}}]})
    s.ev("session/title", {"title": s.t("session/title.title"), "messageSeqs": [u_seq],
                           "source": {"kind": "provider", "provider": "deepseek", "model": {"provider": "deepseek", "model": "deepseek-v4-lite"}}})
    # the inbox with inserted messages of many sources
    s.ev("agent/inbox/spliced", {"target": "next-turn", "start": 0, "removedCount": 0, "inserted": [
        ds_user(s, "inbox webhook", {"kind": "webhook", "form": "notice", "provider": "github",
                                     "deliveryId": pl.uuid4(f"ds {L} webhook deliveryId"), "ruleId": "r1",
                                     "source": "github", "summary": s.t("webhook source.summary")}),
        ds_user(s, "inbox session-reference", {"kind": "session-reference", "form": "recall", "version": 1, "references": [
            {"sessionId": child_ids.get("sub", s.sid), "label": s.t("session-reference label"), "inputIndex": 0,
             "capturedThroughSeq": 3, "compacted": False, "truncated": False, "omittedBytes": 0, "omittedMessages": 0,
             "originalMessages": 4, "retainedMessages": 4}]}),
        ds_user(s, "inbox agent-instructions", {"kind": "agent-instructions", "form": "instructions", "changes": [
            {"action": "set", "path": pl.home_path(f"ds {L} agent-instructions changes.path"), "scope": "project"}]}),
        ds_user(s, "inbox skill-catalog", {"kind": "skill-catalog", "form": "catalog", "entries": [
            {"name": "deploy", "description": s.t("skill-catalog entries.description")}]}),
        ds_user(s, "inbox skill-invocation", {"kind": "skill-invocation", "form": "instructions", "name": "deploy"}),
        ds_user(s, "inbox plugin notice", {"kind": "plugin", "form": "notice", "plugin": "fswatch",
                                           "summary": s.t("plugin notice summary")}),
        ds_user(s, "inbox api user", {"kind": "user", "rpcId": pl.uuid4(f"ds {L} rpcId"), "clientTimeZone": "Europe/Berlin"}),
        ds_user(s, "inbox goal", {"kind": "goal", "goalId": goal_id, "revision": 3, "round": 2}),
    ]})
    comp = pl.id("cmp_" + pl.rand(12), f"ds {L} compactionId")
    s.ev("compaction/start", {"compactionId": comp, "turn": None})
    s.ev("compaction/summary", {"compactionId": comp, "summary": [ds_text(s.t("compaction/summary.summary"))],
                                "rawOutput": [ds_text(s.t("compaction/summary.rawOutput"))], "llmStreamCall": True,
                                "shadowedRange": {"start": 1, "end": u_seq}, "shadowedSeqs": [1, u_seq],
                                "shadowedTokenCount": 4000, "provider": "deepseek", "model": "deepseek-v4", "usage": ds_tokens()})
    s.ev("user/message", ds_user(s, "compaction replacement"), surfaceOp={"op": "replace", "startSeq": 1, "endSeq": u_seq},
         sourceEventSeqs=[1, u_seq])
    s.ev("compaction/prune", {"shadowedRange": {"start": sys_seq, "end": sys_seq}, "shadowedSeqs": [sys_seq],
                              "shadowedTokenCount": 100})
    s.ev("system/message", {"turn": 1, "step": 0, "message": {"id": s.mid("system pruned"), "role": "system",
                                                              "content": [ds_text("")], "source": {"kind": "plugin", "plugin": "context"}}},
         surfaceOp={"op": "replace", "startSeq": sys_seq, "endSeq": sys_seq}, sourceEventSeqs=[sys_seq])
    s.ev("compaction/end", {"compactionId": comp, "turn": None, "error": s.t("compaction/end.error")})
    s.ev("step/end", {"turn": 1, "step": 0})
    s.ev("turn/end", {"turn": 1, "reason": {"kind": "aborted", "reason": {"kind": "hook", "reason": s.t("turn/end hook reason")}}})
    s.ev("turn/start", {"turn": 2})
    s.ev("turn/end", {"turn": 2, "reason": {"kind": "error", "error": failure | {"message": s.t("turn/end error.message")}}})
    s.ev("session-log-deepseek/delivery-accepted", {"sessionId": s.sid, "sessionFormatVersion": 3, "throughSeq": s.seq - 1})
    # unknown event types: one marked ignorable, one required; both still carry user data
    s.ev("x-acme/audit-note", {"note": s.t("unknown ignorable event data.note"), "ref": pl.uuid4(f"ds {L} unknown ref")},
         ignorable=True)
    s.ev("x-acme/required-thing", {"payload": {"deep": [s.t("unknown required event data.payload")]}})
    # a known event with a field the catalog does not list
    s.ev("plan/mode", {"active": False, "x-reason": s.t("unlisted field on plan/mode")})


def ds_team(s: DsSession, members: list[tuple[str, str]], workflow_child: str, sub_child: str, sub_ms: int) -> None:
    pl, L = s.pl, s.label
    team = pl.id("team_" + pl.rand(10), f"ds {L} teamId")
    for member_id, context in members:
        s.ev("team/member", {"version": 2, "teamId": team, "member": {
            "id": member_id, "name": s.t(f"team/member({context}).name"), "description": s.t(f"team/member({context}).description"),
            "phase": "active", "provider": "deepseek", "context": context}})
    s.ev("team/member", {"version": 2, "teamId": team, "member": {
        "id": pl.uuid4(f"ds {L} failed member id"), "name": "ghost", "description": s.t("failed member description"),
        "phase": "failed", "provider": "deepseek", "context": "fresh", "error": s.t("team/member.error")}})
    msg_id = pl.id("tm_" + pl.rand(12), f"ds {L} team messageId")
    s.ev("team/message/queued", {"version": 2, "teamId": team, "message": {
        "id": msg_id, "senderId": s.sid, "senderName": s.t("team message senderName"), "targetId": members[0][0],
        "content": [ds_text(s.t("team/message/queued content"))]}})
    s.ev("team/message/delivered", {"version": 2, "teamId": team, "messageId": msg_id, "targetId": members[0][0]})
    s.ev("team/task", {"version": 2, "teamId": team, "task": {
        "id": pl.id("task_" + pl.rand(8), f"ds {L} task id"), "subject": s.t("team/task.subject"),
        "description": s.t("team/task.description"), "status": "in_progress", "revision": 1, "ownerId": members[0][0],
        "blockedBy": [], "writeScopes": [pl.home_path(f"ds {L} team/task.writeScopes")]}})
    run = pl.id("run_" + pl.rand(10), f"ds {L} workflow runId")
    s.ev("tool-workflow/run-start", {"runId": run, "name": s.t("tool-workflow/run-start.name")})
    s.ev("tool-workflow/agent-start", {"runId": run, "seq": 0, "label": s.t("tool-workflow/agent-start.label"),
                                       "childId": workflow_child, "phase": "analyse"})
    s.ev("tool-workflow/agent-end", {"runId": run, "seq": 0, "outcome": "completed"})
    s.ev("tool-workflow/run-end", {"runId": run, "stopReason": "completed"})
    s.ev("subagent/catalog", {"version": 0, "mode": "one-shot", "childId": sub_child, "childCreatedAt": sub_ms,
                              "label": s.t("subagent/catalog.label")})
    s.ev("user/message", ds_user(s, "subagent-settled notice", {"kind": "subagent-settled", "form": "notice",
                                                               "senderSessionId": sub_child,
                                                               "summary": s.t("subagent-settled summary")}),
         surfaceOp="append")
    s.ev("user/message", ds_user(s, "team-message source", {"kind": "team-message", "teamId": team, "messageId": msg_id,
                                                           "senderId": members[0][0], "senderName": s.t("team-message source senderName")}),
         surfaceOp="append")
    s.ev("user/message", ds_user(s, "agent-message relay", {"kind": "agent-message", "form": "relay",
                                                           "senderSessionId": members[0][0]}), surfaceOp="append")


def ds_child(pl: Planter, label: str, ms: int, parent: DsSession, depth: int, *, origin: bool = True,
             continuable: bool = False, cwd: str | None = None) -> DsSession:
    header: dict[str, Any] = {"delegationDepth": depth, "parentSession": parent.sid}
    if origin:
        header["origin"] = "subagent"
    header["agentPreset"] = "reviewer"
    s = DsSession(pl, label, ms, cwd=cwd or parent.header.get("cwd"), **header)
    s.ev("approval/policy", {"policy": "never", "source": "delegation"})
    s.ev("sandbox/mode", {"mode": "read-only", "source": "delegation"})
    if continuable:
        s.ev("subagent/descriptor", {"version": 1, "mode": "continuable", "provider": "deepseek", "label": s.t("descriptor.label"),
                                     "persona": s.t("descriptor.persona"), "agentModel": "deepseek-v4-lite",
                                     "toolFilter": {"allow": ["read", "grep"], "deny": ["bash"]}})
    else:
        s.ev("subagent/descriptor", {"version": 1, "mode": "one-shot", "provider": "deepseek", "label": s.t("descriptor.label")})
    ds_turn(s, 0)
    return s


def ds_fork(pl: Planter, label: str, ms: int, src: DsSession, cut: int) -> DsSession:
    """A fork child: header names the parent, isSeeded; the inherited prefix is copied with its
    seqs, then one session/end-seed {inherited: true} marks the cut."""
    s = DsSession(pl, label, ms, cwd=src.header.get("cwd"), isSeeded=True, parentSession=src.sid)
    s.events = [dict(e) for e in src.events[:cut]]
    s.seq = cut
    # an inherited delivery marker keeps the parent's id
    s.ev("session-log-deepseek/delivery-accepted", {"sessionId": src.sid, "sessionFormatVersion": 3, "throughSeq": cut - 1})
    s.ev("session/end-seed", {"inherited": True})
    ds_turn(s, 5)
    return s


def add_ds(planted: Planted, home: Path, s: DsSession, rel_dir: str, torn: str = "") -> str:
    rel = f".deepseek/sessions/{rel_dir}{s.sid}.jsonl"
    write_jsonl(home / rel, s.rows(), torn=torn)
    key = f"deepseek-harness:{s.sid}"
    planted.sessions.add(key)
    planted.layout[key] = [rel]
    return key


def build_deepseek(planted: Planted, pl: Planter, home: Path) -> None:
    base = 1767600000000
    lead = DsSession(pl, "D1", base, agentPreset="coder")
    sub = ds_child(pl, "D2", base + 60000, lead, 1)
    grand = ds_child(pl, "D3", base + 90000, sub, 2, continuable=True)
    wf = ds_child(pl, "D6", base + 120000, lead, 1)
    # teammates: session ids the lead's team/member records name; their own headers do not
    mate_fresh = DsSession(pl, "D4", base + 150000)
    mate_fork = DsSession(pl, "D5", base + 160000, isSeeded=True)
    ds_every_event(lead, {"sub": sub.sid})
    ds_team(lead, [(mate_fresh.sid, "fresh"), (mate_fork.sid, "fork")], wf.sid, sub.sid, base + 60000)
    ds_turn(mate_fresh, 0)
    mate_fork.events = [dict(e) for e in lead.events[:12]]
    mate_fork.seq = 12
    mate_fork.ev("session/end-seed", {"inherited": True})
    ds_turn(mate_fork, 3)
    fork = ds_fork(pl, "D7", base + 200000, lead, cut=20)
    # resumed in place: an untagged end-seed marker, then more turns; no header change
    resumed = DsSession(pl, "D8", base + 300000, cwd=None)
    ds_turn(resumed, 0)
    resumed.ev("session/end-seed", {})
    ds_turn(resumed, 1, tools=False)
    # a split secret in a streamed assistant message: the whole value in content, pieces in stream texts
    secret = "ghp_" + pl.rand(36)
    pieces = [secret[:17], secret[17:]]
    planted.split_secrets.append((secret, pieces))
    pl._canary(secret, "ds D8 assistant content (also split over stream texts)", "github")
    text = f"The token is {secret} for {USER}"
    resumed.ev("assistant/message", {"turn": 1, "step": 1, "interrupted": True, "stream": [
        {"type": "text-chunks", "index": 0, "time0": resumed.time, "dt": [0, 9], "texts": [f"The token is {pieces[0]}", f"{pieces[1]} for {USER}"]}],
        "message": {"id": resumed.mid("split"), "role": "assistant", "content": [ds_text(text)],
                    "source": {"kind": "model", "provider": "deepseek", "model": "deepseek-v4"}}}, surfaceOp="append")
    torn_text = pl.text("ds D8 torn last line")
    planted.torn += [v for v, w in planted.canaries.items() if w.startswith("ds D8 torn last line")]
    torn = json.dumps({"type": "user/message", "seq": resumed.seq, "time": resumed.time, "data": {"content": torn_text}})[:-9]
    keys = {
        "D1": add_ds(planted, home, lead, ""),
        "D2": add_ds(planted, home, sub, f"{lead.sid}/subagents/"),
        "D3": add_ds(planted, home, grand, f"{lead.sid}/subagents/"),
        "D4": add_ds(planted, home, mate_fresh, "team/"),
        "D5": add_ds(planted, home, mate_fork, "team/"),
        "D6": add_ds(planted, home, wf, "2026/01/"),
        "D7": add_ds(planted, home, fork, "2026/01/"),
        "D8": add_ds(planted, home, resumed, "2026/01/", torn=torn),
    }
    for child, parent, rels in (("D2", "D1", {"subagent"}), ("D3", "D2", {"subagent"}), ("D6", "D1", {"subagent"}),
                                ("D4", "D1", {"subagent"}), ("D5", "D1", {"subagent", "fork"}), ("D7", "D1", {"fork"})):
        edge = (keys[child], keys[parent])
        planted.edges.add(edge)
        planted.relations[edge] = rels
    planted.families |= {keys["D1"]: [keys[k] for k in ("D1", "D2", "D3", "D4", "D5", "D6", "D7")],
                         keys["D8"]: [keys["D8"]]}
    planted.top_level += [keys["D1"], keys["D8"]]


def build_home(base: Path, seed: int = 2121) -> Planted:
    home = base / "home"
    tmpdir = base / "ostmp"        # os.tmpdir() of the pi process: outside HOME
    home.mkdir(parents=True)
    tmpdir.mkdir()
    planted = Planted(home=home)
    pl = Planter(planted, seed)
    build_pi(planted, pl, home, tmpdir)
    build_deepseek(planted, pl, home)
    return planted
