"""A HOME for the side-channel leak audit (tests/test_s26_leakaudit.py): the demo's sessions of
all six harnesses (archiver/demo, written from the seeds) for the user USER, plus, per harness,
the PLANTED values where a side channel could carry them rather than the content:

- session titles (Claude custom/ai titles, Codex thread titles and names in state_5.sqlite and
  session_index.jsonl, Cursor meta.json titles, OpenCode session titles, pi session names,
  DeepSeek session/title events) holding a GitHub token, an e-mail and a customer name;
- project folders whose cwd holds the e-mail and the customer (Claude's project key, pi's
  session dir name, DeepSeek's header cwd), and a macOS home (`/Users/<MACUSER>`);
- sidecar file names holding the e-mail (Claude tool-results) and references to missing files
  whose paths hold them (a Claude `persistedOutputPath`, pi `fullOutputPath` and `parentSession`,
  DeepSeek `parentSession`): the warnings name those paths;
- a git branch named after the customer's e-mail.

`build_home(base)` writes base/home and base/config.toml (file:// store, keys from keygen run by
the caller) and returns the Planted; `FORBIDDEN` lists what no channel may show.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

USER = "zqxleak"                               # configured in redaction.usernames
MACUSER = "zqxmacuser"                         # an account the config does not know
EMAIL = "carol.vandelay@acmeclient.example"
CUSTOMER = "Vandelay"                          # configured in redaction.extra_terms
TOKEN = "ghp_" + "Zq7Lk2Vx9Rt4Np6Wm8Yb1Cd3Fg5Hj7Kl9QsT"[:36]
HOST = "zqxhost-ravenwood"                      # the config's host name
CLIENT_CWD = f"/home/{USER}/clients/{CUSTOMER.lower()}/{EMAIL}/app"
MAC_CWD = f"/Users/{MACUSER}/Projects/{CUSTOMER.lower()}-portal"
TITLE = f"Invoice export for {EMAIL} ({CUSTOMER}) with {TOKEN}"

CLAUDE_SID = "7d3c1a2b-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
CLAUDE_MAC_SID = "8e4d2b3c-5f60-4b7c-9d8e-0f1a2b3c4d5e"
PI_SID = "01890a5d-ac96-774b-bcce-b302099a80aa"
CURSOR_MIRROR = "77777777-7777-4777-8777-777777777777"
PI_GONE = "01890a5d-ac96-774b-bcce-b302099a80bb"
DS_SID = "ds-01J9Z8K7M6N5P4Q3R2S1T0VZZ1"

# lower-case forms looked for (case-insensitively) in every channel: the raw values and the
# slugs harnesses make of the paths (Claude's project key replaces '.' and '@' by '-').
FORBIDDEN = (USER, MACUSER, "carol.vandelay", "carol-vandelay", "acmeclient", CUSTOMER.lower(),
             TOKEN.lower(), HOST.lower(), "ravenwood")


@dataclass
class Planted:
    base: Path
    home: Path
    config: Path
    state: Path
    store: Path
    keys: Path
    made: dict[str, Any] = field(default_factory=dict)


def jl(records: list[dict[str, Any]]) -> bytes:
    return b"".join(json.dumps(r, separators=(",", ":")).encode() + b"\n" for r in records)


def claude_key(cwd: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in cwd)


def _claude_session(pdir: Path, sid: str, cwd: str, branch: str, title: str, missing_output: str) -> None:
    def rec(i: int, typ: str, extra: dict[str, Any]) -> dict[str, Any]:
        return {"parentUuid": None if i == 0 else f"00000000-0000-4000-8000-{i - 1:012d}", "isSidechain": False,
                "userType": "external", "cwd": cwd, "sessionId": sid, "version": "2.1.310", "gitBranch": branch,
                "type": typ, "uuid": f"00000000-0000-4000-8000-{i:012d}", "timestamp": f"2026-10-20T10:00:0{i}.000Z",
                **extra}

    bash = "toolu_01" + "Bq" * 11
    records = [
        rec(0, "user", {"message": {"role": "user", "content": "Export the invoices"}}),
        rec(1, "assistant", {"message": {"id": "msg_01" + "Aa" * 11, "type": "message", "role": "assistant",
                                         "model": "claude-opus-5-5", "content": [{"type": "tool_use", "id": bash,
                                         "name": "Bash", "input": {"command": "make export"}}],
                                         "stop_reason": "tool_use", "usage": {"input_tokens": 1, "output_tokens": 1}}}),
        rec(2, "user", {"message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": bash,
                                    "content": "<persisted-output>saved</persisted-output>"}]},
                        "toolUseResult": {"stdout": "done", "persistedOutputPath": missing_output,
                                          "persistedOutputSize": 4096}}),
        {"type": "ai-title", "aiTitle": title, "sessionId": sid},
        {"type": "custom-title", "customTitle": title, "sessionId": sid},
    ]
    pdir.mkdir(parents=True, exist_ok=True)
    (pdir / f"{sid}.jsonl").write_bytes(jl(records))


def claude(p: Planted) -> None:
    root = p.home / ".claude" / "projects"
    pdir = root / claude_key(CLIENT_CWD)
    tr = f"/home/{USER}/.claude/projects/{claude_key(CLIENT_CWD)}/{CLAUDE_SID}/tool-results"
    _claude_session(pdir, CLAUDE_SID, CLIENT_CWD, f"fix/{EMAIL}", TITLE, f"{tr}/{EMAIL}-gone.txt")
    (pdir / CLAUDE_SID / "tool-results").mkdir(parents=True)
    (pdir / CLAUDE_SID / "tool-results" / f"{EMAIL}.txt").write_text("invoice rows\n")
    (pdir / CLAUDE_SID / "tool-results" / f"{CUSTOMER}-{TOKEN}.txt").write_text("more rows\n")
    mac = root / claude_key(MAC_CWD)
    _claude_session(mac, CLAUDE_MAC_SID, MAC_CWD, CUSTOMER.lower(), f"Portal in /Users/{MACUSER}/x",
                    f"/Users/{MACUSER}/.claude/projects/{claude_key(MAC_CWD)}/{CLAUDE_MAC_SID}/tool-results/x.txt")


def codex(p: Planted) -> None:
    made = p.made["codex"]
    tid = sorted(made["threads"].values())[0] if isinstance(made.get("threads"), dict) else None
    db = p.home / ".codex" / "state_5.sqlite"
    con = sqlite3.connect(str(db))
    try:
        con.execute("UPDATE threads SET title = ?, name = ?, first_user_message = ?, preview = ?, git_branch = ?",
                    (TITLE, TITLE, TITLE, TITLE, f"fix/{EMAIL}"))
        con.commit()
        rows = [r[0] for r in con.execute("SELECT id FROM threads ORDER BY id")]
    finally:
        con.close()
    with (p.home / ".codex" / "session_index.jsonl").open("a") as f:
        for t in rows or ([tid] if tid else []):
            f.write(json.dumps({"id": t, "thread_name": TITLE, "updated_at": "2026-01-06T00:00:00Z"}) + "\n")


def cursor_orphan_mirror(p: Planted) -> None:
    """A JSONL mirror whose chat folder is gone, in the workspace folder of CLIENT_CWD: nothing
    records the cwd, so its slug cannot be rebuilt from a redacted one (known leak, not planted
    by build_home)."""
    slug = "".join(c if c.isalnum() else "-" for c in CLIENT_CWD).strip("-")
    mirror = p.home / ".cursor" / "projects" / slug / "agent-transcripts" / CURSOR_MIRROR / f"{CURSOR_MIRROR}.jsonl"
    mirror.parent.mkdir(parents=True)
    mirror.write_bytes(jl([{"role": "user", "message": {"content": [{"type": "text", "text": "<user_query>\nexport\n</user_query>"}]}}]))


def cursor(p: Planted) -> None:
    for meta in sorted((p.home / ".cursor").glob("chats/*/*/meta.json")):
        doc = json.loads(meta.read_text())
        doc["title"] = TITLE
        meta.write_text(json.dumps(doc))


def opencode(p: Planted) -> None:
    root = p.home / ".local" / "share" / "opencode"
    for name in ("opencode.db", "opencode-next.db"):
        db = root / name
        if not db.exists():
            continue
        con = sqlite3.connect(str(db))
        try:
            tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            for t in ("session", "session_v2"):
                if t in tables:
                    con.execute(f"UPDATE {t} SET title = ?", (TITLE,))
            con.commit()
        finally:
            con.close()


def pi(p: Planted) -> None:
    folder = p.home / ".pi" / "agent" / "sessions" / ("--" + CLIENT_CWD.strip("/").replace("/", "-") + "--")
    folder.mkdir(parents=True)
    gone_parent = f"/home/{USER}/.pi/agent/sessions/--{EMAIL}--{TOKEN}--/2025-01-01T00-00-00-000Z_{PI_GONE}.jsonl"
    records = [
        {"type": "session", "version": 3, "id": PI_SID, "timestamp": "2026-01-05T09:00:00.000Z", "cwd": CLIENT_CWD,
         "parentSession": gone_parent},
        {"type": "message", "id": "aa00bb11", "parentId": None, "timestamp": "2026-01-05T09:00:01.000Z",
         "message": {"role": "user", "content": "Export invoices", "timestamp": 1767603601000}},
        {"type": "message", "id": "aa00bb12", "parentId": "aa00bb11", "timestamp": "2026-01-05T09:00:02.000Z",
         "message": {"role": "bashExecution", "command": "make", "output": "...", "exitCode": 0, "cancelled": False,
                     "truncated": True, "fullOutputPath": f"/home/{USER}/.cache/{EMAIL}/pi-bash-0011223344556677.log",
                     "timestamp": 1767603602000}},
        {"type": "message", "id": "aa00bb13", "parentId": "aa00bb12", "timestamp": "2026-01-05T09:00:03.000Z",
         "message": {"role": "bashExecution", "command": "make", "output": "...", "exitCode": 0, "cancelled": False,
                     "truncated": True, "fullOutputPath": f"/Users/{MACUSER}/{CUSTOMER}-{TOKEN}.log",
                     "timestamp": 1767603603000}},
        {"type": "session_info", "id": "aa00bb14", "parentId": "aa00bb13", "timestamp": "2026-01-05T09:00:04.000Z",
         "name": TITLE},
    ]
    (folder / f"2026-01-05T09-00-00-000Z_{PI_SID}.jsonl").write_bytes(jl(records))


def deepseek(p: Planted) -> None:
    root = p.home / ".deepseek" / "sessions"
    t0 = 1767261600000
    records = [
        {"type": "session", "version": 3, "id": DS_SID, "createdAt": t0, "cwd": CLIENT_CWD, "isSeeded": False,
         "delegationDepth": 1, "origin": "subagent", "parentSession": f"/home/{USER}/.deepseek/sessions/{EMAIL}.jsonl"},
        {"type": "user/message", "seq": 1, "time": t0 + 1000, "surfaceOp": "append",
         "data": {"id": "m1", "role": "user", "content": [{"type": "text", "text": "Export invoices"}],
                  "source": {"kind": "user"}}},
        {"type": "session/title", "seq": 2, "time": t0 + 2000,
         "data": {"title": TITLE, "source": {"kind": "fallback"}, "messageSeqs": [1]}},
    ]
    (root / f"{DS_SID}.jsonl").write_bytes(jl(records))


def write_config(p: Planted) -> None:
    p.config.write_text(
        f'home = "{p.home}"\nhost = "{HOST}"\n\n'
        f'[redaction]\nteam_key_file = "{p.keys / "team.key"}"\nusernames = ["{USER}"]\n'
        f'extra_terms = ["{CUSTOMER}"]\n\n'
        f'[encryption]\nrecipients_file = "{p.keys / "recipient.txt"}"\n\n'
        f'[store]\nurl = "file://{p.store}"\n\n'
        f'[state]\ndir = "{p.state}"\n'
    )


def build_home(base: Path) -> Planted:
    from archiver.demo.run import make_sample_home

    p = Planted(base=base, home=base / "home", config=base / "config.toml", state=base / "state",
                store=base / "store", keys=base / "keys")
    p.made = make_sample_home(p.home, USER)
    for harness in ("cursor-agent", "opencode"):
        for conn in p.made[harness].get("connections", []):
            conn.close()
    for plant in (claude, codex, cursor, opencode, pi, deepseek):
        plant(p)
    write_config(p)
    return p
