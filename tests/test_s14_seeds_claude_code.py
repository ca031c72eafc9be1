"""s14 seed-conformance gaps of the Claude Code collector (docs/seeds/claude-code.md): items of
seeds/by-harness/claude-code.json no earlier test pinned. Fixtures are written here, following
the seed's layout and records."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from archiver.harnesses.base import HarnessContext, load_harness
from archiver.redact.base import RedactionReport
from tests.fx_home import USER, Box, _line, _no_canary, box  # noqa: F401

A = "0b0e5f4e-1111-4222-8333-00000000000a"
B = "0b0e5f4e-1111-4222-8333-00000000000b"
AGENT = "a0123456789abcdef"


def key_of(cwd: str) -> str:
    return "".join(c if c.isascii() and c.isalnum() else "-" for c in cwd)


def rec(sid: str, n: int, parent: str | None, cwd: str | None, text: str, **extra: Any) -> dict[str, Any]:
    """A user line; with cwd None, the envelope as storage-backed transcripts leave it (gotcha:
    cwd, gitBranch, version, userType, entrypoint, promptId stripped)."""
    r: dict[str, Any] = {"parentUuid": parent, "isSidechain": False, "sessionId": sid, "type": "user",
                         "uuid": f"0b0e5f4e-2222-4333-8444-{n:012d}", "timestamp": f"2026-10-20T10:00:{n:02d}.000Z",
                         "message": {"role": "user", "content": text}, **extra}
    if cwd is not None:
        r.update(cwd=cwd, gitBranch="main", version="2.1.310", userType="external", entrypoint="cli")
    return r


def write_session(project: Path, sid: str, cwd: str | None, text: str) -> None:
    """A transcript, a persisted tool result and a subagent (transcript + meta) in its folder."""
    project.mkdir(parents=True, exist_ok=True)
    (project / f"{sid}.jsonl").write_text(_line(rec(sid, 1, None, cwd, text)))
    (project / sid / "tool-results").mkdir(parents=True)
    (project / sid / "tool-results" / "b8f3k2m9q.txt").write_text(f"output of {text}\n")
    if sid == A:
        sub = project / sid / "subagents"
        sub.mkdir()
        (sub / f"agent-{AGENT}.jsonl").write_text(_line(rec(sid, 2, None, cwd, f"agent of {text}", isSidechain=True,
                                                            agentId=AGENT)))
        (sub / f"agent-{AGENT}.meta.json").write_text(json.dumps({"agentType": "general", "toolUseId": "toolu_1",
                                                                  "spawnDepth": 1}))


def test_transcripts_without_cwd_keep_their_project_folder_without_the_user_name(box: Box) -> None:  # noqa: F811
    """gotcha: envelope fields (cwd ...) are stripped for some storage paths, so a transcript may
    carry no cwd at all, and the project key is then the only place the cwd survives.
    - A project whose every transcript lacks a cwd: all its files (transcript, subagent, tool
      result) are archived and restored in one folder, the path rules' form of the key: no user
      name, and never split from one another.
    - A cwd-less transcript beside one that has a cwd (`zq.<user>`: the rules cannot see the user
      in the key's `zq-<user>`): it goes to the folder rebuilt from that cwd, where Claude Code
      looks for the whole project, not to one the rules make of the raw key."""
    projects = box.home / ".claude" / "projects"
    bare = projects / key_of(f"/home/{USER}/work/app")
    write_session(bare, A, None, "bare project")
    cwd = f"/home/zq.{USER}/proj"
    mixed = projects / key_of(cwd)
    write_session(mixed, B, None, "stripped envelope")
    other = "0b0e5f4e-1111-4222-8333-00000000000c"
    mixed.joinpath(f"{other}.jsonl").write_text(_line(rec(other, 3, None, cwd, "full envelope")))
    box.only("claude-code")
    out = box.sync()
    assert out["sessions"]["failed"] == 0, out["errors"]
    listed = box.ls()
    _no_canary(listed)
    folders: dict[str, set[str]] = {}
    for s in listed.values():
        for a in s["artifacts"]:
            folders.setdefault(s["session_id"], set()).add(a["path"].split("/")[2])
    bare_folder = box.relpath(bare.name)
    assert USER not in bare_folder
    assert folders[A] == folders[AGENT] == {bare_folder}, folders
    red_cwd = box.redactor().redact_text(cwd, RedactionReport())
    assert folders[B] == folders[other] == {key_of(red_cwd)}, folders
    assert listed[f"claude-code:{AGENT}"]["parents"][0]["parent"] == f"claude-code:{A}"
    target = box.base / "restored"
    box.cli("restore", "--all", "--to", str(target))
    got = sorted(p.relative_to(target).as_posix() for p in target.rglob("*") if p.is_file())
    assert got == sorted([
        f".claude/projects/{bare_folder}/{A}.jsonl",
        f".claude/projects/{bare_folder}/{A}/tool-results/b8f3k2m9q.txt",
        f".claude/projects/{bare_folder}/{A}/subagents/agent-{AGENT}.jsonl",
        f".claude/projects/{bare_folder}/{A}/subagents/agent-{AGENT}.meta.json",
        f".claude/projects/{key_of(red_cwd)}/{B}.jsonl",
        f".claude/projects/{key_of(red_cwd)}/{B}/tool-results/b8f3k2m9q.txt",
        f".claude/projects/{key_of(red_cwd)}/{other}.jsonl",
    ])
    assert (target / f".claude/projects/{bare_folder}/{A}.jsonl").read_text() == _line(rec(A, 1, None, None, "bare project"))


def test_live_process_registry_and_its_key_are_not_archived(tmp_path: Path) -> None:
    """layout: sessions/<pid>.json (+ <pid>.<hex>.key) is a live-process registry, "not a
    transcript", and its key must never leave the machine; shell-snapshots/, debug/ and backups/
    are "not part of the transcript format" and name no session by their path: none of them is
    archived, while the session they name is. (todos/<sid>-agent-*.json, task state of that
    session, is its sidecar since s34: tests/test_s34_claude_task_state.py.)"""
    root = tmp_path / ".claude"
    write_session(root / "projects" / key_of("/srv/app"), A, "/srv/app", "hi")
    (root / "sessions").mkdir()
    (root / "sessions" / "4242.json").write_text(json.dumps({"pid": 4242, "sessionId": A, "cwd": "/srv/app",
                                                             "startedAt": 1, "version": "2.1.310", "kind": "cli"}))
    (root / "sessions" / "4242.9f3a.key").write_bytes(b"\x01" * 32)
    for d, name in (("shell-snapshots", "snapshot-zsh-1.sh"), ("debug", f"{A}.txt"), ("backups", ".claude.json.backup")):
        (root / d).mkdir()
        (root / d / name).write_text("x\n")
    found = list(load_harness("claude-code", HarnessContext(home=tmp_path, env={})).discover())
    paths = sorted(a.path for s in found for a in s.sources)
    assert paths == sorted([
        f".claude/projects/-srv-app/{A}.jsonl",
        f".claude/projects/-srv-app/{A}/tool-results/b8f3k2m9q.txt",
        f".claude/projects/-srv-app/{A}/subagents/agent-{AGENT}.jsonl",
        f".claude/projects/-srv-app/{A}/subagents/agent-{AGENT}.meta.json",
    ])
