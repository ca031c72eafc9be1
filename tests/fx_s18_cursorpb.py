"""Cursor edit steps whose result is a message of printable bytes, for tests/test_s18_cursorpb.py.

Seed (cursor-agent.json, "blob: agent.v1.ConversationStep / tool_call"): a step is
{2 tool_call: ToolCall {<case>: <Name>ToolCall {1 args, 2 result: {<case> success|error|...}},
57 tool_call_id}}, and "Edit results carry before_full_file_content and after_full_file_content
(whole files)". The seed names no field numbers below the case: `edit_step` takes them
(edit_tool_call 12; EditSuccess {4 before, 5 after} as tests/test_s17_e2eco_findings.py had it,
or {6 before, 7 after, 8 message} as Cursor's own descriptor numbers them).
`build_chat` writes one chat (store.db in WAL mode, left with a live -wal by build_in_child)
whose turn holds such steps."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from archiver.redact.base import RedactionReport
from archiver.redact.redactor import RuleRedactor, build_redactor
from archiver.redact.rules import RuntimeTerms
from tests.fx_s11_e2e import KEEP_OPEN, Canaries
from tests.fx_s17_e2eco import Store, f_int, f_len, j, md5_dir, parse_pb
from tests.test_redact_blob_text import KEY

EDIT_CASE = 12  # ToolCall.edit_tool_call
MESSAGE = "Edited the file: one line changed, one added"  # EditSuccess.message, printable length
CHAT = "5a5a5a5a-1818-4818-8818-181818181818"
GHP = "ghp_R8fJ2kLm9QwErTyUiOpAsDfGhJkLzXcVbN12"
GHP2 = "ghp_Q1wE2rT3yU4iO5pA6sD7fG8hJ9kL0zX1cV2b"
BLOBS = "sqlite:blobs.data"


def blob_redactor() -> RuleRedactor:
    """The built-in rules, as the Cursor blob tests redact with."""
    return build_redactor(["builtin:secrets", "builtin:pii", "builtin:paths"], KEY,
                          RuntimeTerms(usernames=["alice"], names=["Zelda Quixote"]))


def cell(red: RuleRedactor, value: bytes, carrier: str = BLOBS) -> bytes:
    """A blobs.data cell as the sqlite walker redacts it."""
    out = red._cell(value, carrier, RedactionReport())
    assert type(out) is bytes
    return out


def as_text(red: RuleRedactor, value: bytes) -> bytes:
    """The cell redacted as text, as the heuristics alone would."""
    return red.redact_bytes(value, RedactionReport(), BLOBS)


def leaf(b: bytes) -> bytes:
    """A walker leaf function that swaps the two planted tokens."""
    return b.replace(GHP.encode(), b"<T1>").replace(GHP2.encode(), b"<T2>")


def edit_step(path: str, before: bytes, after: bytes, call_id: str | None = None,
              numbers: tuple[int, int] = (4, 5), extra: bytes = b"") -> bytes:
    """A ConversationStep whose tool call is an edit of `path` with its whole file before and after."""
    success = f_len(numbers[0], before) + f_len(numbers[1], after) + extra
    case = f_len(1, f_len(1, path) + f_len(2, after)) + f_len(2, f_len(1, success))
    tool_call = f_len(EDIT_CASE, case) + (f_len(57, call_id) if call_id else b"")
    return f_len(2, tool_call)


def field(data: bytes, *path: int) -> bytes:
    """The value at `path` (first occurrence of each field number); KeyError when absent."""
    for fno in path:
        data = next(v for f, wt, v in parse_pb(data) if f == fno and wt == 2)
    return data


def edit_files(step: bytes, numbers: tuple[int, int] = (4, 5)) -> tuple[bytes, bytes]:
    """(before, after) of an edit step."""
    success = field(step, 2, EDIT_CASE, 2, 1)
    return field(success, numbers[0]), field(success, numbers[1])


def one_line(token: str, note: str = "") -> bytes:
    """A one-line file holding `token`: 33-126 bytes, so its length prefix is printable."""
    line = f"TOKEN = '{token}'{note}\n".encode()
    assert 32 < len(line) < 127, len(line)
    return line


def build_chat(home: Path, can: Canaries) -> dict[str, Any]:
    """A chat with a one-line edit (both field numberings) and a multi-line edit; the facts name
    the step blobs (id -> hex bytes, numbering) and the secrets they hold."""
    cwd = f"{home}/src/app"
    s = Store()
    secrets: dict[str, str] = {}

    def token(tag: str) -> str:
        secrets[tag] = can.parts(tag)["ghp"]
        return secrets[tag]

    steps: dict[str, tuple[bytes, tuple[int, int]]] = {
        "one_line": (edit_step("config.py", one_line(token("one.before")), one_line(token("one.after"), "  # new"),
                               "tool_edit_1"), (4, 5)),
        "one_line_descriptor": (edit_step("settings.py", one_line(token("desc.before")), one_line(token("desc.after")),
                                          "tool_edit_2", (6, 7), f_len(8, MESSAGE)), (6, 7)),
        "multi_line": (edit_step(f"{cwd}/deploy.sh", b"#!/bin/sh\n" + one_line(token("multi.before")) * 3,
                                 b"#!/bin/sh\n" + one_line(token("multi.after")) + b"echo done\n" * 20,
                                 "tool_edit_3"), (4, 5)),
    }
    ids = {name: s.put(data) for name, (data, _n) in steps.items()}
    sysmsg = s.put(j({"role": "system", "content": f"You are an agent. Workspace {cwd}"}))
    query = s.put(j({"role": "user",
                     "content": [{"type": "text", "text": "<user_query>rotate the token</user_query>"}]}))
    root0 = s.put(f_len(1, bytes.fromhex(sysmsg)) + f_len(22, "default"))
    um = s.put(f_len(1, "rotate the token") + f_len(2, "00000000-0000-4000-8000-000000000003") + f_int(4, 1)
               + f_len(10, bytes.fromhex(root0)))
    turn = s.put(f_len(1, f_len(1, bytes.fromhex(um)) + b"".join(f_len(2, bytes.fromhex(i)) for i in ids.values())))
    root = s.put(f_len(1, bytes.fromhex(sysmsg)) + f_len(1, bytes.fromhex(query)) + f_len(8, bytes.fromhex(turn))
                 + f_int(10, 1) + f_len(22, "default"))
    meta = {"agentId": CHAT, "latestRootBlobId": root, "name": "Token rotation", "createdAt": 1_767_261_600_000,
            "mode": "default", "isRunEverything": False}
    folder = home / ".cursor" / "chats" / md5_dir(cwd) / CHAT
    KEEP_OPEN.append(s.write(folder / "store.db", meta))  # never closed: its rows stay in the live -wal
    (folder / "meta.json").write_bytes(j({"schemaVersion": 1, "createdAtMs": meta["createdAt"],
                                          "hasConversation": True, "title": meta["name"], "cwd": cwd}))
    return {"steps": {name: {"id": ids[name], "data": data.hex(), "numbers": list(numbers)}
                      for name, (data, numbers) in steps.items()},
            "secrets": secrets, "root": root}
