"""Cursor task steps whose result embeds a subagent's steps, for tests/test_s19_cursorsteps.py.

Seed (cursor-agent.json, "blob: agent.v1.ConversationStep / tool_call"): a step is {2 tool_call:
ToolCall {<case>: <Name>ToolCall {1 args, 2 result: {<case> success|error|...}}, 57 tool_call_id?,
59/60 timestamps?}}, and "TaskSuccess.conversation_steps embeds the subagent's ConversationSteps
inline". The seed numbers neither task_tool_call nor conversation_steps: `task_step` takes them
(defaults TASK_CASE, STEPS_FIELD), so the tests can show the walker does not depend on them.
A subagent's edit step is tests/fx_s18_cursorpb.py's `edit_step` (edit_tool_call 12, EditSuccess
{4 before, 5 after}). `build_chat` writes one chat (store.db in WAL mode, left with a live -wal by
build_in_child) whose turn holds a task step with a subagent's one-line edit."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.fx_s11_e2e import KEEP_OPEN, Canaries
from tests.fx_s17_e2eco import Store, f_int, f_len, j, md5_dir, parse_pb
from tests.fx_s18_cursorpb import edit_step, field, one_line

TASK_CASE = 15  # ToolCall.task_tool_call (not in the seed)
STEPS_FIELD = 1  # TaskSuccess.conversation_steps (not in the seed)
READ_CASE = 8  # ToolCall.read_tool_call: ReadArgs {1 path}
CHAT = "5a5a5a5a-1919-4919-8919-191919191919"


def task_step(steps: list[bytes], call_id: str | None = "tool_task_1", case: int = TASK_CASE,
              steps_field: int = STEPS_FIELD, summary: str = "The subagent changed one file.") -> bytes:
    """A ConversationStep: a task tool call whose result (success) embeds the subagent's `steps`,
    with a summary string beside them (a TaskSuccess field the seed does not name either)."""
    success = b"".join(f_len(steps_field, s) for s in steps) + f_len(steps_field + 1, summary)
    args = f_len(1, "Update the token") + f_len(2, "Rotate the token in config.py")
    tool_call = f_len(case, f_len(1, args) + f_len(2, f_len(1, success)))
    tool_call += (f_len(57, call_id) if call_id else b"") + f_int(59, 1_767_261_600_000)
    return f_len(2, tool_call)


def pending_call(args: bytes, case: int = READ_CASE, call_id: str | None = None) -> bytes:
    """A ConversationStep whose tool call has args and no result yet (pending)."""
    return f_len(2, f_len(case, f_len(1, args)) + (f_len(57, call_id) if call_id else b""))


def sub_steps(task: bytes, case: int = TASK_CASE, steps_field: int = STEPS_FIELD) -> list[bytes]:
    """The subagent steps embedded in a task step."""
    success = field(task, 2, case, 2, 1)
    return [v for f, wt, v in parse_pb(success) if f == steps_field and wt == 2]


def tree(data: bytes, depth: int = 0) -> list[Any] | None:
    """Every level's (field number, wire type, sub-tree) of a message, down to any depth; None for
    a value that is not a message (a string that happens to parse counts as one)."""
    try:
        fields = parse_pb(data)
    except ValueError:
        return None
    if not fields or depth > 40:
        return None
    return [(f, wt, tree(v, depth + 1) if wt == 2 else None) for f, wt, v in fields]


def build_chat(home: Path, can: Canaries) -> dict[str, Any]:
    """A chat whose turn holds a task step embedding a subagent's one-line edit (with a secret in
    the file before and after) and a pending read step of all printable bytes; the facts name the
    step blobs (id -> hex bytes) and the secrets."""
    cwd = f"{home}/src/app"
    s = Store()
    secrets = {tag: can.parts(tag)["ghp"] for tag in ("sub.before", "sub.after", "pending")}
    edit = edit_step("config.py", one_line(secrets["sub.before"]), one_line(secrets["sub.after"], "  # new"))
    steps = {
        "task": task_step([f_len(1, f_len(1, "Editing config.py.")), edit]),
        "pending": pending_call(f_len(1, f"notes/{secrets['pending']}.md")),
    }
    ids = {name: s.put(data) for name, data in steps.items()}
    sysmsg = s.put(j({"role": "system", "content": f"You are an agent. Workspace {cwd}"}))
    query = s.put(j({"role": "user", "content": [{"type": "text", "text": "<user_query>delegate it</user_query>"}]}))
    root0 = s.put(f_len(1, bytes.fromhex(sysmsg)) + f_len(22, "default"))
    um = s.put(f_len(1, "delegate it") + f_len(2, "00000000-0000-4000-8000-000000000019") + f_int(4, 1)
               + f_len(10, bytes.fromhex(root0)))
    turn = s.put(f_len(1, f_len(1, bytes.fromhex(um)) + b"".join(f_len(2, bytes.fromhex(i)) for i in ids.values())))
    root = s.put(f_len(1, bytes.fromhex(sysmsg)) + f_len(1, bytes.fromhex(query)) + f_len(8, bytes.fromhex(turn))
                 + f_int(10, 1) + f_len(22, "default"))
    meta = {"agentId": CHAT, "latestRootBlobId": root, "name": "Delegated edit", "createdAt": 1_767_261_600_000,
            "mode": "default", "isRunEverything": False}
    folder = home / ".cursor" / "chats" / md5_dir(cwd) / CHAT
    KEEP_OPEN.append(s.write(folder / "store.db", meta))  # never closed: its rows stay in the live -wal
    (folder / "meta.json").write_bytes(j({"schemaVersion": 1, "createdAtMs": meta["createdAt"],
                                          "hasConversation": True, "title": meta["name"], "cwd": cwd}))
    return {"steps": {name: {"id": ids[name], "data": data.hex()} for name, data in steps.items()},
            "secrets": secrets, "root": root}
