"""A generated ~/.claude following seeds/by-harness/claude-code.json.

Everything is synthetic: fake secrets are well-shaped but invalid, the user is
whatever name the caller passes. Used by `archiver demo`, the tests and the benchmarks.
"""

from __future__ import annotations

import base64
import hashlib
import json
import random
import uuid
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

VERSION = "2.1.310"

# Fake, well-shaped secrets planted in the sample (none is a live credential).
FAKE_AWS_KEY = "AKIA" + "Q3EXAMPLE7SAMPLE2"[:16]
FAKE_GITHUB_TOKEN = "ghp_" + "x7Rk2mN9pQ4sT6vW8yZ1bC3dF5gH7jK9LmNp"[:36]
FAKE_EMAIL_LOCAL = "alice.smith"


def tiny_png() -> bytes:
    """A valid 2x2 PNG, generated."""
    def chunk(tag: bytes, data: bytes) -> bytes:
        return len(data).to_bytes(4, "big") + tag + data + zlib.crc32(tag + data).to_bytes(4, "big")

    raw = b"".join(b"\x00" + bytes([255, 0, 0, 0, 255, 0]) for _ in range(2))
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", (2).to_bytes(4, "big") + (2).to_bytes(4, "big") + bytes([8, 2, 0, 0, 0]))
        + chunk(b"IDAT", zlib.compress(raw))
        + chunk(b"IEND", b"")
    )


@dataclass
class ClaudeSample:
    root: Path
    user: str
    home_str: str
    project_key: str
    main: str
    fork: str
    continuation: str
    subagent: str
    forked_subagent: str
    tool_use_id: str
    fork_point: str
    secrets: list[str] = field(default_factory=list)
    decoys: list[str] = field(default_factory=list)


class _Writer:
    def __init__(self, sid: str, cwd: str, rng: random.Random) -> None:
        self.sid = sid
        self.cwd = cwd
        self.rng = rng
        self.lines: list[dict[str, Any]] = []
        self.last: str | None = None
        self.clock = 0

    def uuid(self) -> str:
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def ts(self) -> str:
        self.clock += 7
        return f"2026-10-20T10:{self.clock // 60 % 60:02d}:{self.clock % 60:02d}.000Z"

    def conv(self, type_: str, extra: dict[str, Any], parent: str | None = "__last__", sidechain: bool = False) -> str:
        u = self.uuid()
        rec = {
            "parentUuid": self.last if parent == "__last__" else parent,
            "isSidechain": sidechain,
            "userType": "external",
            "cwd": self.cwd,
            "sessionId": self.sid,
            "version": VERSION,
            "gitBranch": "main",
            "entrypoint": "cli",
            "timestamp": self.ts(),
            "uuid": u,
            "type": type_,
        }
        rec.update(extra)
        self.lines.append(rec)
        self.last = u
        return u

    def meta(self, rec: dict[str, Any]) -> None:
        self.lines.append(rec)

    def dump(self, path: Path, torn_tail: str | None = None) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("w", encoding="utf-8") as f:
            for rec in self.lines:
                f.write(json.dumps(rec, separators=(",", ":")) + "\n")
            if torn_tail:
                f.write(torn_tail)


def make_claude_home(home: Path, user: str = "alice", seed: int = 7) -> ClaudeSample:
    """Write a ~/.claude under `home` with a main session, subagents, a fork, a
    continuation, compaction, tool-results, file-history, a torn line and host files."""
    rng = random.Random(seed)
    root = home / ".claude"
    home_str = f"/home/{user}"
    cwd = f"{home_str}/work/app"
    project_key = "".join(c if c.isalnum() else "-" for c in cwd)
    pdir = root / "projects" / project_key

    def sid() -> str:
        return str(uuid.UUID(int=rng.getrandbits(128), version=4))

    main, fork, cont = sid(), sid(), sid()
    sub_id = "a" + hashlib.sha256(b"sub" + main.encode()).hexdigest()[:16]
    fsub_id = "a" + hashlib.sha256(b"fsub" + main.encode()).hexdigest()[:16]
    tool_use_id = "toolu_01" + hashlib.sha256(main.encode()).hexdigest()[:22]
    bash_id = "toolu_01" + hashlib.sha256(b"bash" + main.encode()).hexdigest()[:22]
    email = f"{FAKE_EMAIL_LOCAL}@example-corp.com"
    git_sha = hashlib.sha1(b"commit").hexdigest()
    signature = base64.b64encode(hashlib.sha512(b"sig").digest() * 6).decode()
    png_b64 = base64.b64encode(tiny_png()).decode()

    w = _Writer(main, cwd, rng)
    w.conv("attachment", {"attachment": {"type": "session_context", "context": {"userEmail": email, "gitStatus": f"On branch main\nHEAD {git_sha}"}}}, parent=None)
    first_user = w.conv("user", {"message": {"role": "user", "content": f"Fix the deploy script in {cwd}/deploy.sh, my key is {FAKE_AWS_KEY}"}, "promptSource": "typed", "promptId": w.uuid()})
    w.meta({"type": "file-history-snapshot", "messageId": first_user, "snapshot": {"messageId": first_user, "trackedFileBackups": {f"{cwd}/deploy.sh": {"backupFileName": "0123456789abcdef@v1", "version": 1, "backupTime": w.ts(), "realParentDir": f"{cwd}"}}, "timestamp": w.ts()}, "isSnapshotUpdate": False})
    msg_id = "msg_01" + hashlib.sha256(b"m1").hexdigest()[:22]
    w.conv("assistant", {"requestId": "req_011" + hashlib.sha256(b"r").hexdigest()[:20], "message": {"id": msg_id, "type": "message", "role": "assistant", "model": "claude-opus-5-5", "content": [{"type": "thinking", "thinking": "", "signature": signature}], "stop_reason": None, "usage": {"input_tokens": 10, "output_tokens": 5}}})
    a_tool = w.conv("assistant", {"message": {"id": msg_id, "type": "message", "role": "assistant", "model": "claude-opus-5-5", "content": [{"type": "tool_use", "id": bash_id, "name": "Bash", "input": {"command": f"cat {cwd}/.env", "description": "read env"}}], "stop_reason": "tool_use", "usage": {"input_tokens": 10, "output_tokens": 5}}})
    w.conv("user", {"message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": bash_id, "content": "<persisted-output>Output too large; saved</persisted-output>"}]}, "toolUseResult": {"stdout": f"GITHUB_TOKEN={FAKE_GITHUB_TOKEN}", "persistedOutputPath": f"{cwd}/../../.claude/projects/{project_key}/{main}/tool-results/b1c2d3e4f.txt", "persistedOutputSize": 4096}, "sourceToolAssistantUUID": a_tool})
    w.conv("user", {"message": {"role": "user", "content": [{"type": "text", "text": "Here is a screenshot"}, {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": png_b64}}]}, "promptSource": "typed"})
    agent_call = w.conv("assistant", {"message": {"id": "msg_01" + hashlib.sha256(b"m2").hexdigest()[:22], "type": "message", "role": "assistant", "model": "claude-opus-5-5", "content": [{"type": "tool_use", "id": tool_use_id, "name": "Agent", "input": {"description": "Audit deploy", "prompt": f"Audit {cwd}/deploy.sh", "subagent_type": "general-purpose"}}], "stop_reason": "tool_use", "usage": {"input_tokens": 1, "output_tokens": 1}}})
    w.conv("user", {"message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool_use_id, "content": "Audit done"}]}, "toolUseResult": {"agentId": sub_id, "outputFile": f"{cwd}/audit.md"}, "sourceToolAssistantUUID": agent_call})
    fork_point = w.last or ""
    w.conv("system", {"subtype": "compact_boundary", "content": "Conversation compacted", "logicalParentUuid": fork_point, "compactMetadata": {"trigger": "auto", "preTokens": 120000}}, parent=None)
    w.conv("user", {"message": {"role": "user", "content": f"Summary: worked on {cwd}; contact {email}"}, "isCompactSummary": True, "isVisibleInTranscriptOnly": True})
    w.conv("assistant", {"message": {"id": "msg_01" + hashlib.sha256(b"m3").hexdigest()[:22], "type": "message", "role": "assistant", "model": "claude-opus-5-5", "content": [{"type": "text", "text": f"Done. Commit {git_sha}."}], "stop_reason": "end_turn", "usage": {"input_tokens": 1, "output_tokens": 1}}})
    w.meta({"type": "ai-title", "aiTitle": "Fix deploy script", "sessionId": main})
    w.meta({"type": "custom-title", "customTitle": f"Deploy fixes for {user}", "sessionId": main})
    w.meta({"type": "last-prompt", "lastPrompt": "Fix the deploy script", "leafUuid": w.last, "sessionId": main})
    w.meta({"type": "continued-in", "timestamp": w.ts(), "sessionId": main, "continuedInSessionId": cont})
    w.dump(pdir / f"{main}.jsonl")

    sdir = pdir / main
    (sdir / "tool-results").mkdir(parents=True, exist_ok=True)
    (sdir / "tool-results" / "b1c2d3e4f.txt").write_text(
        f"GITHUB_TOKEN={FAKE_GITHUB_TOKEN}\nAWS_ACCESS_KEY_ID={FAKE_AWS_KEY}\nHOME={home_str}\n" + "log line\n" * 200
    )
    (sdir / "remote-agents").mkdir(exist_ok=True)
    (sdir / "remote-agents" / "remote-agent-r1.meta.json").write_text(json.dumps({"id": "r1", "cwd": cwd}))
    (pdir / f"{main}.ccr-tip.json").write_text(json.dumps({"tip": w.last, "cwd": cwd}))

    # subagent spawned by the Agent tool_use
    sw = _Writer(main, cwd, rng)
    sw.conv("user", {"agentId": sub_id, "message": {"role": "user", "content": f"Audit {cwd}/deploy.sh"}}, parent=None, sidechain=True)
    sw.conv("assistant", {"agentId": sub_id, "message": {"id": "msg_01" + hashlib.sha256(b"s1").hexdigest()[:22], "type": "message", "role": "assistant", "model": "claude-opus-5-5", "content": [{"type": "text", "text": f"Found a key {FAKE_AWS_KEY} in {home_str}/.aws/credentials"}], "stop_reason": "end_turn", "usage": {"input_tokens": 1, "output_tokens": 1}}}, sidechain=True)
    sw.dump(sdir / "subagents" / f"agent-{sub_id}.jsonl")
    (sdir / "subagents" / f"agent-{sub_id}.meta.json").write_text(json.dumps({"agentType": "general-purpose", "description": "Audit deploy", "toolUseId": tool_use_id, "spawnDepth": 1, "worktreePath": f"{cwd}/.claude/worktrees/x"}))

    # forked subagent: starts with a fork-context-ref instead of copying the prefix
    fw = _Writer(main, cwd, rng)
    fw.meta({"type": "fork-context-ref", "agentId": fsub_id, "parentSessionId": main, "parentLastUuid": fork_point, "contextLength": 9})
    fw.conv("user", {"agentId": fsub_id, "message": {"role": "user", "content": "Run the review skill"}}, parent=None, sidechain=True)
    fw.dump(sdir / "subagents" / "nested" / f"agent-{fsub_id}.jsonl")
    (sdir / "subagents" / "nested" / f"agent-{fsub_id}.meta.json").write_text(json.dumps({"agentType": "review", "description": "Review skill", "toolUseId": "toolu_01" + "f" * 22, "spawnDepth": 1, "isFork": True}))
    (sdir / "subagents" / "nested" / f"agent-{fsub_id}.forked-skill.json").write_text(json.dumps({"skillName": "review", "attributionName": "review"}))

    # file-history backups referenced by the snapshot
    fh = root / "file-history" / main
    fh.mkdir(parents=True, exist_ok=True)
    (fh / "0123456789abcdef@v1").write_text(f"#!/bin/sh\nexport AWS_ACCESS_KEY_ID={FAKE_AWS_KEY}\ncd {cwd}\n")

    # a fork (/branch): copied path with forkedFrom on each line
    fk = _Writer(fork, cwd, rng)
    fk.conv("user", {"message": {"role": "user", "content": "Try another approach"}, "forkedFrom": {"sessionId": main, "messageUuid": fork_point}}, parent=None)
    fk.conv("assistant", {"message": {"id": "msg_01" + hashlib.sha256(b"f1").hexdigest()[:22], "type": "message", "role": "assistant", "model": "claude-opus-5-5", "content": [{"type": "text", "text": "Sure."}], "stop_reason": "end_turn", "usage": {"input_tokens": 1, "output_tokens": 1}}, "forkedFrom": {"sessionId": main, "messageUuid": fork_point}})
    fk.meta({"type": "history-suppression", "sessionId": fork, "cause": "fork_inherit", "ts": fk.ts()})
    fk.dump(pdir / f"{fork}.jsonl")

    # the continuation, with a torn final line (still being written)
    cw = _Writer(cont, cwd, rng)
    cw.conv("user", {"message": {"role": "user", "content": f"Continue; mail {email} when done"}, "promptSource": "typed"}, parent=None)
    cw.conv("assistant", {"message": {"id": "msg_01" + hashlib.sha256(b"c1").hexdigest()[:22], "type": "message", "role": "assistant", "model": "claude-opus-5-5", "content": [{"type": "text", "text": "Continuing."}], "stop_reason": "end_turn", "usage": {"input_tokens": 1, "output_tokens": 1}}})
    cw.dump(pdir / f"{cont}.jsonl", torn_tail='{"parentUuid":"' + (cw.last or "") + '","type":"assistant","message":{"content":[{"type":"text","text":"half wri')

    # host files
    paste_hash = hashlib.sha256(b"paste").hexdigest()[:16]
    (root / "paste-cache").mkdir(parents=True, exist_ok=True)
    (root / "paste-cache" / f"{paste_hash}.txt").write_text(f"pasted config for {email}\npassword = hunter2-{paste_hash}\n")
    with (root / "history.jsonl").open("w") as f:
        for i, text in enumerate(["Fix the deploy script", "Try another approach"]):
            f.write(json.dumps({"display": text, "pastedContents": {"1": {"id": 1, "type": "text", "contentHash": paste_hash}}, "project": cwd, "sessionId": main, "timestamp": 1760954400000 + i}) + "\n")

    return ClaudeSample(
        root=root, user=user, home_str=home_str, project_key=project_key, main=main, fork=fork,
        continuation=cont, subagent=sub_id, forked_subagent=fsub_id, tool_use_id=tool_use_id,
        fork_point=fork_point, secrets=[FAKE_AWS_KEY, FAKE_GITHUB_TOKEN, email],
        decoys=[main, git_sha, signature, png_b64, tool_use_id],
    )


def append_turn(sample: ClaudeSample, text: str, n: int = 1) -> bytes:
    """Append n complete lines to the main transcript (a session that is still running)."""
    path = sample.root / "projects" / sample.project_key / f"{sample.main}.jsonl"
    rng = random.Random(len(text) + n)
    data = b""
    for i in range(n):
        rec = {"parentUuid": None, "isSidechain": False, "type": "user", "sessionId": sample.main,
               "uuid": str(uuid.UUID(int=rng.getrandbits(128), version=4)), "timestamp": "2026-10-21T09:00:00.000Z",
               "cwd": f"{sample.home_str}/work/app", "message": {"role": "user", "content": f"{text} #{i}"}}
        data += (json.dumps(rec, separators=(",", ":")) + "\n").encode()
    with path.open("ab") as f:
        f.write(data)
    return data
