"""A file replaced by a folder of the same name (or the reverse) leaves both `X` and `X/inside`
among its session's artifacts: sync keeps what a session no longer lists. No filesystem holds
both, so restore places the one on disk most recently (the other is noted "gone from the
machine" in the session's warnings; else the later mtime) and skips the other with a warning
naming both, exit 0; the archive keeps both (verify checks both objects, `restore --at` a time
before the change gives the other). Real CLI, a file:// store, fixtures from the seeds' layout."""

from __future__ import annotations

import os
import shutil
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from archiver.demo.claude_sample import ClaudeSample, make_claude_home
from archiver.model import Artifact, Manifest, Session
from tests import fx_crafter
from tests.fx_home import USER, Box, box  # noqa: F401

NAME = "b1c2d3e4f.txt"  # a tool-results file of the sample's main session (a file of its session folder)


def _setup(box: Box) -> tuple[ClaudeSample, Path, str]:  # noqa: F811
    box.only("claude-code")
    s = make_claude_home(box.home, USER)
    return s, s.root / "projects" / s.project_key / s.main / "tool-results" / NAME, f"claude-code:{s.main}"


def _arts(box: Box, key: str) -> dict[str, dict[str, Any]]:  # noqa: F811
    return {a["path"].rsplit("tool-results/", 1)[1]: a for a in box.ls()[key]["artifacts"] if NAME in a["path"]}


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix().rsplit("tool-results/", 1)[1]: p.read_bytes()
            for p in root.rglob("*") if p.is_file() and "tool-results/" + NAME in p.as_posix()}


def _snapshot_times(box: Box) -> list[str]:  # noqa: F811
    return [x["created_at"] for x in box.cli("snapshots", "--identity", str(box.base / "keys" / "identity.txt"))["snapshots"]]


def test_a_file_replaced_by_a_folder_restores_the_folder_and_names_the_skipped_file(box: Box) -> None:  # noqa: F811
    s, x, key = _setup(box)
    first = x.read_bytes()
    box.sync()
    x.unlink()
    x.mkdir()
    (x / "inside.txt").write_bytes(b"now a folder\n")
    time.sleep(0.01)
    box.sync()
    arts = _arts(box, key)
    assert set(arts) == {NAME, NAME + "/inside.txt"}  # nothing archived is dropped
    out = box.cli("restore", "--to", str(box.base / "r"), key)  # exit 0 (was 3: "not a plain directory")
    assert out["refused"] == [] and out["integrity_errors"] == []
    assert out["sessions"] == [key]
    assert _files(box.base / "r") == {NAME + "/inside.txt": b"now a folder\n"}
    (skip,) = out["skipped"]
    assert skip["session"] == key and skip["instead_session"] == key
    assert skip["path"] == arts[NAME]["path"] and skip["instead"] == arts[NAME + "/inside.txt"]["path"]
    (warning,) = [w for w in out["warnings"] if "skipped" in w]
    assert repr(arts[NAME]["path"]) in warning and repr(arts[NAME + "/inside.txt"]["path"]) in warning
    # the skipped copy is the current file of the earlier snapshot
    then = box.cli("restore", "--to", str(box.base / "then"), key, "--at", _snapshot_times(box)[0])
    assert _files(box.base / "then")[NAME] != b"" and then["skipped"] == []
    assert len(_files(box.base / "then")[NAME]) == arts[NAME]["size"] and arts[NAME]["size"] > 0
    assert first.startswith(b"GITHUB_TOKEN=")  # (redacted in the archive: compared by size)


def test_a_folder_put_back_as_a_file_restores_the_file_even_with_an_older_mtime(box: Box) -> None:  # noqa: F811
    s, x, key = _setup(box)
    box.sync()
    x.unlink()
    x.mkdir()
    (x / "inside.txt").write_bytes(b"a folder for a while\n")
    time.sleep(0.01)
    box.sync()
    shutil.rmtree(x)
    x.write_bytes(b"back as a file\n")
    os.utime(x, (1_700_000_000, 1_700_000_000))  # put back with an old mtime (cp -p, tar): older than inside.txt
    box.sync()
    arts = _arts(box, key)
    assert set(arts) == {NAME, NAME + "/inside.txt"}
    assert arts[NAME]["mtime"] < arts[NAME + "/inside.txt"]["mtime"]  # the mtime alone would pick the folder
    out = box.cli("restore", "--to", str(box.base / "r"), key)
    assert out["refused"] == [] and out["sessions"] == [key]
    assert _files(box.base / "r") == {NAME: b"back as a file\n"}
    assert [(k["path"], k["instead"]) for k in out["skipped"]] == [(arts[NAME + "/inside.txt"]["path"], arts[NAME]["path"])]
    # the folder's state is the snapshot before: restore --at gives it
    box.cli("restore", "--to", str(box.base / "then"), key, "--at", _snapshot_times(box)[1])
    assert _files(box.base / "then") == {NAME + "/inside.txt": b"a folder for a while\n"}
    # verify still checks both objects: remove the skipped one's object, verify names it
    oid = arts[NAME + "/inside.txt"]["objects"][0]
    (box.base / "store" / "objects" / oid[:2] / oid).unlink()
    doc = box.cli("verify", "--identity", str(box.base / "keys" / "identity.txt"), expect=3)
    assert any(oid[:16] in e for e in doc["errors"]), doc["errors"]


class _Crafter(fx_crafter.Crafter):
    def manifest(self, sessions: dict[str, list[Artifact]]) -> None:
        now = datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        self.archive.put_manifest(Manifest(host_id="laptop", created_at=now, run_id="r" * 16, tool_version="0.1.0",
                                           sessions=[Session(key=f"claude-code:{sid}", harness="claude-code",
                                                             session_id=sid, artifacts=arts, host_id="laptop")
                                                     for sid, arts in sessions.items()]), self.recipients)


def test_without_a_gone_note_the_later_mtime_wins_across_sessions_and_the_rest_restores(box: Box) -> None:  # noqa: F811
    c = _Crafter(box.config)
    d = ".claude/projects/k/a/d"
    c.manifest({
        "a": [c.artifact(d, b"d as a file\n", mtime=2_000.0),  # newer than every file of the folder d/
              c.artifact(".claude/projects/k/a/other.jsonl", b"{}\n")],
        "b": [c.artifact(d + "/one.txt", b"one\n", mtime=1_000.0, role="sidecar", format="text"),
              c.artifact(d + "/deep/two.txt", b"two\n", mtime=1_500.0, role="sidecar", format="text"),
              c.artifact(".claude/projects/k/a/g/h/i.txt", b"i\n", mtime=5_000.0, role="sidecar", format="text"),
              c.artifact(".claude/projects/k/a/e", b"e, a file\n", mtime=1_000.0),
              c.artifact(".claude/projects/k/a/e/f.txt", b"f\n", mtime=3_000.0, role="sidecar", format="text")],
        "c": [c.artifact(".claude/projects/k/a/g", b"g, a file two levels above a file\n", mtime=1_000.0)],
    })
    target = box.base / "r"
    out = box.cli("restore", "--all", "--to", str(target))
    assert out["refused"] == [] and out["sessions"] == ["claude-code:a", "claude-code:b", "claude-code:c"]
    got = {p.relative_to(target).as_posix(): p.read_bytes() for p in target.rglob("*") if p.is_file()}
    assert got == {d: b"d as a file\n", ".claude/projects/k/a/other.jsonl": b"{}\n",
                   ".claude/projects/k/a/e/f.txt": b"f\n", ".claude/projects/k/a/g/h/i.txt": b"i\n"}
    assert sorted((k["session"], k["path"], k["instead"], k["instead_session"]) for k in out["skipped"]) == [
        ("claude-code:b", d + "/deep/two.txt", d, "claude-code:a"),
        ("claude-code:b", d + "/one.txt", d, "claude-code:a"),
        ("claude-code:b", ".claude/projects/k/a/e", ".claude/projects/k/a/e/f.txt", "claude-code:b"),
        ("claude-code:c", ".claude/projects/k/a/g", ".claude/projects/k/a/g/h/i.txt", "claude-code:b"),
    ]
    assert any(f"{d + '/one.txt'!r}: skipped, {d!r} (of claude-code:a)" in w for w in out["warnings"]), out["warnings"]


def test_a_file_two_folders_above_another_is_a_conflict_too(box: Box) -> None:  # noqa: F811
    c = _Crafter(box.config)
    c.manifest({"c": [c.artifact(".claude/projects/k/a/g", b"g\n", mtime=1_000.0),
                      c.artifact(".claude/projects/k/a/g/h/i.txt", b"i\n", mtime=5_000.0, role="sidecar", format="text")]})
    target = box.base / "r"
    out = box.cli("restore", "--all", "--to", str(target))
    assert out["refused"] == [] and out["sessions"] == ["claude-code:c"]
    assert (target / ".claude/projects/k/a/g/h/i.txt").read_bytes() == b"i\n"
    assert [(k["path"], k["instead"]) for k in out["skipped"]] == [
        (".claude/projects/k/a/g", ".claude/projects/k/a/g/h/i.txt")]
