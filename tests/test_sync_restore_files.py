"""Sync and restore around files that move, collide or are not what they seem, end to end with
the CLI on a file:// store (tests/fx_home.py): a rollout moved to a new path is named once, a
transcript that is a symbolic link is not followed, restore never replaces a file with other
content, and two machines under one host name are told."""

from __future__ import annotations

import json
import time

from tests.fx_home import UUID_A, Box, _line, box, write_rollout  # noqa: F401


def test_two_machines_with_one_host_name_are_told(box: Box) -> None:
    """A second collector writing under the same host id (same `host`, its own state): both are
    warned, since readers take a host's newest manifest and one machine would hide the other."""
    rec = {"type": "user", "sessionId": UUID_A, "uuid": "11111111-2222-4333-8444-555555555555",
           "cwd": "/srv/app", "message": {"role": "user", "content": "hi"}}
    (box.home / ".claude" / "projects" / "-srv-app").mkdir(parents=True)
    (box.home / ".claude" / "projects" / "-srv-app" / f"{UUID_A}.jsonl").write_text(_line(rec))
    box.only("claude-code")
    assert box.sync()["warnings"] == []
    time.sleep(1.1)
    first = box.config.read_text()
    other = first.replace(f'dir = "{box.base / "state"}"', f'dir = "{box.base / "state-b"}"')
    assert other != first
    box.config.write_text(other)
    (box.home / ".claude" / "projects" / "-srv-app" / f"{UUID_A}.jsonl").write_text(_line(rec) + _line(rec))
    out = box.sync()
    assert any("not written by this collector's state" in w for w in out["warnings"]), out["warnings"]
    box.config.write_text(first)
    time.sleep(1.1)  # manifest keys are stamped to the second
    (box.home / ".claude" / "projects" / "-srv-app" / f"{UUID_A}.jsonl").write_text(_line(rec) * 3)
    out = box.sync()
    assert any("another machine uses the same host name" in w for w in out["warnings"]), out["warnings"]


def test_a_claude_transcript_that_is_a_symlink_is_not_followed(box: Box) -> None:
    """A link in a project folder may lead out of HOME (~/.ssh/...): it is reported, not read."""
    outside = box.base / "outside.jsonl"
    outside.write_text(_line({"type": "user", "message": {"role": "user", "content": "OUTSIDE-HOME"}}))
    project = box.home / ".claude" / "projects" / "-srv-app"
    project.mkdir(parents=True)
    (project / f"{UUID_A}.jsonl").symlink_to(outside)
    box.only("claude-code")
    box.sync()
    listed = box.ls()
    assert "OUTSIDE-HOME" not in json.dumps(listed)
    assert any("a symbolic link; not followed" in w for w in listed[f"claude-code:{UUID_A}"]["warnings"])
    assert listed[f"claude-code:{UUID_A}"]["artifacts"] == []
    for f in (box.base / "store").rglob("*"):
        assert b"OUTSIDE-HOME" not in f.read_bytes() if f.is_file() else True


def test_restore_never_replaces_a_file_that_holds_other_content(box: Box) -> None:
    """Restoring into a HOME again: identical files are left alone, a file edited since (or a
    live session) is refused and reported, and replaced only with --overwrite."""
    rec = {"type": "user", "sessionId": UUID_A, "uuid": "11111111-2222-4333-8444-555555555555",
           "cwd": "/srv/app", "message": {"role": "user", "content": "hi"}}
    (box.home / ".claude" / "projects" / "-srv-app").mkdir(parents=True)
    (box.home / ".claude" / "projects" / "-srv-app" / f"{UUID_A}.jsonl").write_text(_line(rec))
    box.only("claude-code")
    box.sync()
    target = box.base / "restored"
    first = box.cli("restore", "--all", "--to", str(target))
    assert first["refused"] == []
    restored = target / ".claude" / "projects" / "-srv-app" / f"{UUID_A}.jsonl"
    assert box.cli("restore", "--all", "--to", str(target))["refused"] == []  # same bytes: fine
    restored.write_text(_line(rec) + "LOCAL EDIT\n")
    again = box.cli("restore", "--all", "--to", str(target), expect=3)
    assert len(again["refused"]) == 1 and "a file with other content is there" in again["refused"][0]
    assert restored.read_text().endswith("LOCAL EDIT\n")
    assert box.cli("restore", "--all", "--to", str(target), "--overwrite")["refused"] == []
    assert restored.read_text() == _line(rec)


def test_a_moved_rollout_replaces_its_old_path(box: Box) -> None:
    """Codex moves an idle thread's rollout to archived_sessions/; a renamed file is the same
    file: the manifest names it once, at its new path, and restore writes one rollout."""
    d = box.home / ".codex" / "sessions" / "2026" / "01" / "02"
    d.mkdir(parents=True)
    tid = "0199cccc-0000-7000-8000-000000000001"
    write_rollout(d, tid, "03-04-05")
    box.only("codex")
    box.sync()
    [old] = d.glob("rollout-*.jsonl")
    moved = box.home / ".codex" / "archived_sessions" / old.name
    moved.parent.mkdir(parents=True)
    old.rename(moved)
    out = box.sync()
    assert out["sessions"]["failed"] == 0, out["errors"]
    paths = [a["path"] for a in box.ls()[f"codex:{tid}"]["artifacts"] if a["role"] == "transcript"]
    assert paths == [f".codex/archived_sessions/{old.name}"]
    target = box.base / "restored"
    box.cli("restore", f"codex:{tid}", "--to", str(target))
    assert [p.relative_to(target).as_posix() for p in target.rglob("rollout-*")] == [
        f".codex/archived_sessions/{old.name}"]
