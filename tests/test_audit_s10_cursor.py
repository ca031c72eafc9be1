"""Audit s10: Cursor agent collector against homes generated here from the seed
(seeds/by-harness/cursor-agent.json): chats/<md5(cwd)>/<chatId>/store.db (WAL, meta '0' = hex
of JSON, blobs), meta.json, projects/<slug(cwd)>/agent-transcripts and terminals."""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
from pathlib import Path

from archiver.harnesses.base import HarnessContext
from archiver.harnesses.cursor_agent import CursorAgent
from archiver.model import DiscoveredSession

CWD = "/home/a_b/work/app"  # a user name the slug spells `a-b`
CHAT = "6f1c2a3b-0000-4000-8000-000000000001"
BARE = "6f1c2a3b-0000-4000-8000-000000000002"  # no meta.json: cwd from its workspace folder
GONE = "6f1c2a3b-0000-4000-8000-000000000003"  # chat folder deleted, JSONL mirror left
SUB = "6f1c2a3b-0000-4000-8000-0000000000aa"


def _md5(cwd: str) -> str:
    return hashlib.md5(cwd.encode()).hexdigest()


def _slug(cwd: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", cwd).strip("-")


def _store(path: Path, chat_id: str, blobs: list[bytes]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(str(path), isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA user_version=1")
    conn.execute("CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT)")
    conn.execute("CREATE TABLE blobs(id TEXT PRIMARY KEY, data BLOB)")
    meta = {"agentId": chat_id, "latestRootBlobId": "", "name": "New Agent", "createdAt": 1760000000000,
            "mode": "default", "isRunEverything": False}
    conn.execute("INSERT INTO meta VALUES('0', ?)", (json.dumps(meta).encode().hex(),))
    for data in blobs:
        conn.execute("INSERT INTO blobs VALUES(?, ?)", (hashlib.sha256(data).hexdigest(), data))
    conn.close()


def _home(home: Path) -> Path:
    cur = home / ".cursor"
    ws = cur / "chats" / _md5(CWD)
    proj = cur / "projects" / _slug(CWD)
    term = proj / "terminals" / "4.txt"
    term.parent.mkdir(parents=True)
    term.write_text("$ make\n")
    tool = json.dumps({"role": "tool", "id": "tool_1", "content": [{"type": "tool-result", "toolCallId": "tool_1",
                       "toolName": "Shell", "result": "ok"}], "providerOptions": {"cursor": {"highLevelToolCallResult": {
                       "output": {"success": {}, "terminalsFolder": str(proj / "terminals"),
                                  "outputLocation": {"filePath": str(term)}}}}}}).encode()
    _store(ws / CHAT / "store.db", CHAT, [tool])
    (ws / CHAT / "meta.json").write_text(json.dumps({"schemaVersion": 1, "createdAtMs": 1760000000000,
                                                     "hasConversation": False, "cwd": CWD}))
    _store(ws / BARE / "store.db", BARE, [])
    line = json.dumps({"role": "user", "message": {"content": [{"type": "text", "text": "<user_query>hi</user_query>"}]}})
    for folder, name in ((CHAT, CHAT), (CHAT + "/subagents", SUB), (GONE, GONE)):
        f = proj / "agent-transcripts" / folder / f"{name}.jsonl"
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(line + "\n")
    return proj


def _redact_text(t: str) -> str:
    return t.replace("/home/a_b", "/home/user-1234")


def _redact_relpath(p: str) -> str:  # component-wise: sees `a_b`, never the slug's `a-b`
    return "/".join(c.replace("a_b", "user-1234") for c in p.split("/"))


def test_project_slug_folder_is_the_slug_of_the_redacted_cwd(tmp_path: Path) -> None:
    proj = _home(tmp_path)
    harness = CursorAgent(HarnessContext(home=tmp_path, env={}))
    found: dict[str, DiscoveredSession] = {s.session_id: s for s in harness.discover()}
    red = _slug(_redact_text(CWD))
    assert red == "home-user-1234-work-app"

    def archived(sid: str) -> list[str]:
        s = found[sid]
        return sorted(harness.redacted_relpath(src, s, _redact_relpath, _redact_text) for src in s.sources)

    assert archived(CHAT) == sorted([
        f".cursor/chats/{_md5(_redact_text(CWD))}/{CHAT}/meta.json",
        f".cursor/chats/{_md5(_redact_text(CWD))}/{CHAT}/store.db",
        f".cursor/projects/{red}/agent-transcripts/{CHAT}/{CHAT}.jsonl",
        f".cursor/projects/{red}/terminals/4.txt",
    ])
    # the orphan mirrors record no cwd: the project folder's cwd comes from a chat of it
    assert found[GONE].cwd is None
    assert archived(GONE) == [f".cursor/projects/{red}/agent-transcripts/{GONE}/{GONE}.jsonl"]
    assert archived(SUB) == [f".cursor/projects/{red}/agent-transcripts/{CHAT}/subagents/{SUB}.jsonl"]
    every = [p for sid in found for p in archived(sid)]
    assert not [p for p in every if "a-b" in p or "a_b" in p]
    # a project folder that is no chat's slug(cwd) keeps the component-wise rule
    other = proj.parent / "home-a-b-elsewhere" / "terminals" / "1.txt"
    other.parent.mkdir(parents=True)
    src = harness._src(other, "sidecar", "text")
    assert harness.redacted_relpath(src, found[CHAT], _redact_relpath, _redact_text) == (
        ".cursor/projects/home-a-b-elsewhere/terminals/1.txt"
    )
