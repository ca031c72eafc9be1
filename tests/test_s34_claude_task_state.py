"""Claude Code's per-session task state outside the project folder: tasks/<session id>/ and
todos/<session id>-agent-<agent id>.json (seed layout: "todos|tasks/ ... task state swept by
cleanupPeriodDays"). They are that session's sidecars, archived redacted and restored where they
were; a team's task list (tasks/<name>/) is no session's; a pruned session's leftovers still form
its session, as its file-history/ does."""

from __future__ import annotations

import json
import os
import random
import string
from pathlib import Path

from archiver.harnesses.base import HarnessContext, load_harness
from archiver.model import DiscoveredSession
from tests.fx_home import USER, Box, _line, box  # noqa: F401

CWD = f"/home/{USER}/work/app"
KEY = "".join(c if c.isalnum() else "-" for c in CWD)
MAIN = "5e55a0b1-1111-4222-8333-000000000001"
GONE = "5e55a0b1-1111-4222-8333-000000000009"
AGENT = "a7f3c2d1e0b9a8c7"
TOKEN = "ghp_" + "".join(random.Random(34).choices(string.ascii_letters + string.digits, k=36))  # a GitHub token's shape


def _main(home: Path) -> Path:
    project = home / ".claude" / "projects" / KEY
    project.mkdir(parents=True)
    recs = [{"type": "user", "uuid": f"5e55a0b1-2222-4333-8444-{i:012d}", "parentUuid": None, "sessionId": MAIN,
             "cwd": CWD, "isSidechain": False, "timestamp": f"2026-10-20T10:00:0{i}.000Z",
             "message": {"role": "user", "content": f"step {i}"}} for i in range(3)]
    (project / f"{MAIN}.jsonl").write_text("".join(map(_line, recs)))
    return project


def _task_state(home: Path) -> dict[str, bytes]:
    """What Claude Code writes beside the transcript, by path under home."""
    todo = [{"content": f"rotate {TOKEN} in {CWD}/.env", "status": "in_progress", "activeForm": "Rotating"},
            {"content": "run the tests", "status": "pending", "activeForm": "Running the tests"}]
    files = {
        f".claude/todos/{MAIN}-agent-{MAIN}.json": json.dumps(todo).encode(),
        f".claude/todos/{MAIN}-agent-{AGENT}.json": b"[]",
        f".claude/tasks/{MAIN}/1.json": json.dumps({"id": "1", "subject": "Fix login", "status": "pending",
                                                     "description": f"see {CWD}/src/login.ts", "blocks": []}).encode(),
        f".claude/tasks/{MAIN}/.highwatermark": b"1",
        f".claude/todos/{GONE}-agent-{GONE}.json": b'[{"content": "old", "status": "completed"}]',
        ".claude/tasks/release-team/1.json": b'{"id": "1", "subject": "team task"}',
        ".claude/todos/notes.json": b"{}",  # no -agent- in the name: no session's
    }
    for rel, data in files.items():
        (home / rel).parent.mkdir(parents=True, exist_ok=True)
        (home / rel).write_bytes(data)
    return files


def _discover(home: Path) -> dict[str, DiscoveredSession]:
    return {s.key: s for s in load_harness("claude-code", HarnessContext(home=home, env={})).discover()}


def test_tasks_and_todos_are_the_sessions_sidecars(tmp_path: Path) -> None:
    _main(tmp_path)
    _task_state(tmp_path)
    found = _discover(tmp_path)
    main = found[f"claude-code:{MAIN}"]
    assert [(a.path, a.role) for a in main.sources if "/projects/" not in a.path] == [
        (f".claude/tasks/{MAIN}/.highwatermark", "sidecar"),
        (f".claude/tasks/{MAIN}/1.json", "sidecar"),
        (f".claude/todos/{MAIN}-agent-{MAIN}.json", "sidecar"),
        (f".claude/todos/{MAIN}-agent-{AGENT}.json", "sidecar")]
    assert main.warnings == []
    gone = found[f"claude-code:{GONE}"]  # its transcript pruned: its todo list is still its own
    assert [a.path for a in gone.sources] == [f".claude/todos/{GONE}-agent-{GONE}.json"]
    assert gone.warnings == [f"todos/{GONE}-agent-*.json: session files without its transcript {GONE}.jsonl"]
    # a team's task list and a file of another name make no session
    assert sorted(found) == sorted([f"claude-code:{MAIN}", f"claude-code:{GONE}"])
    every = [a.path for s in found.values() for a in s.sources]
    assert not [p for p in every if "release-team" in p or p.endswith("/notes.json")]


def test_a_symlinked_todo_or_task_folder_is_not_followed(tmp_path: Path) -> None:
    _main(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.json").write_text('{"k": 1}')
    (tmp_path / ".claude" / "todos").mkdir(parents=True)
    os.symlink(outside / "secret.json", tmp_path / ".claude" / "todos" / f"{MAIN}-agent-{MAIN}.json")
    (tmp_path / ".claude" / "tasks").mkdir()
    os.symlink(outside, tmp_path / ".claude" / "tasks" / MAIN)
    main = _discover(tmp_path)[f"claude-code:{MAIN}"]
    assert [a.path for a in main.sources if "/projects/" not in a.path] == []


def test_task_state_is_archived_redacted_and_restored_in_place(box: Box) -> None:  # noqa: F811
    box.only("claude-code")
    _main(box.home)
    files = _task_state(box.home)
    box.sync()
    paths = {a["path"] for a in box.ls()[f"claude-code:{MAIN}"]["artifacts"]}
    assert {f".claude/todos/{MAIN}-agent-{MAIN}.json", f".claude/tasks/{MAIN}/1.json"} <= paths
    target = box.base / "restored"
    assert box.cli("restore", f"claude-code:{MAIN}", "--to", str(target))["integrity_errors"] == []
    todo = json.loads((target / f".claude/todos/{MAIN}-agent-{MAIN}.json").read_bytes())
    assert [t["status"] for t in todo] == ["in_progress", "pending"]
    assert todo[1] == {"content": "run the tests", "status": "pending", "activeForm": "Running the tests"}
    assert TOKEN not in todo[0]["content"] and USER not in todo[0]["content"]
    assert todo[0]["content"].startswith("rotate ") and todo[0]["content"].endswith("/work/app/.env")
    task = json.loads((target / f".claude/tasks/{MAIN}/1.json").read_bytes())
    assert (task["subject"], task["status"]) == ("Fix login", "pending")
    assert USER not in task["description"] and task["description"].endswith("/work/app/src/login.ts")
    assert (target / f".claude/tasks/{MAIN}/.highwatermark").read_bytes() == files[f".claude/tasks/{MAIN}/.highwatermark"]
    assert (target / f".claude/todos/{MAIN}-agent-{AGENT}.json").read_bytes() == b"[]"
    assert not (target / ".claude/tasks/release-team").exists()
