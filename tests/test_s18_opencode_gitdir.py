"""A restored OpenCode snapshot git dir gets back the empty folders an archive cannot hold
(`refs/`, `objects/`): without `refs/` git takes the folder for no repository, and OpenCode
could not read the trees its diffs and reverts name."""

from __future__ import annotations

import hashlib
import os
import stat
import subprocess
import zlib
from pathlib import Path

from archiver.harnesses.base import HarnessContext
from archiver.harnesses.opencode import OpenCode
from archiver.model import Artifact, Session

SNAP = ".local/share/opencode/snapshot"


def _loose_blob(git_dir: Path, body: bytes) -> str:
    raw = b"blob %d\0" % len(body) + body
    oid = hashlib.sha1(raw).hexdigest()
    obj = git_dir / "objects" / oid[:2] / oid[2:]
    obj.parent.mkdir(parents=True)
    obj.write_bytes(zlib.compress(raw))
    return oid


def _session(path: str) -> Session:
    art = Artifact(path=path, role="sidecar", format="binary", size=1, sha256="0" * 64)
    return Session(key="opencode:@project-p1", harness="opencode", session_id="@project-p1", artifacts=[art])


def test_a_restored_snapshot_git_dir_opens_in_git(tmp_path: Path) -> None:
    home = tmp_path / "home"
    git_dir = home / SNAP / "p1" / ("ab" * 20)
    git_dir.mkdir(parents=True)
    (git_dir / "HEAD").write_text("ref: refs/heads/main\n")
    oid = _loose_blob(git_dir, b"print('hi')\n")
    legacy = home / SNAP / "p0"  # a pre-worktree layout: the project folder is the git dir
    legacy.mkdir()
    (legacy / "HEAD").write_text("ref: refs/heads/main\n")
    h = OpenCode(HarnessContext(home=home, env={}))
    notes = h.after_restore(home, [_session(f"{SNAP}/p1/{'ab' * 20}/HEAD")])
    assert notes == []
    for d in (git_dir, legacy):
        assert (d / "refs").is_dir() and (d / "objects").is_dir()
        assert stat.S_IMODE((d / "refs").stat().st_mode) == 0o700
    env = {"GIT_DIR": str(git_dir), "HOME": str(tmp_path), "GIT_CONFIG_NOSYSTEM": "1", "PATH": os.environ["PATH"]}
    r = subprocess.run(["git", "cat-file", "-p", oid], env=env, capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout == "print('hi')\n", r.stderr


def test_nothing_is_made_when_no_snapshot_was_restored_or_through_a_symlink(tmp_path: Path) -> None:
    home = tmp_path / "home"
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "HEAD").write_text("ref: refs/heads/main\n")
    (home / SNAP).mkdir(parents=True)
    (home / SNAP / "p1").symlink_to(outside)
    h = OpenCode(HarnessContext(home=home, env={}))
    assert h.after_restore(home, [_session(f"{SNAP}/p1/HEAD")]) == []
    assert sorted(p.name for p in outside.iterdir()) == ["HEAD"]
    other = home / SNAP / "p2"
    other.mkdir()
    (other / "HEAD").write_text("ref: refs/heads/main\n")
    assert h.after_restore(home, [_session(".local/share/opencode/opencode.db")]) == []
    assert sorted(p.name for p in other.iterdir()) == ["HEAD"]  # no snapshot in this restore: left alone


def test_make_folder_refuses_a_symlinked_component(tmp_path: Path) -> None:
    import pytest

    from archiver.restore import UnsafePath, make_folder

    home, outside = tmp_path / "home", tmp_path / "outside"
    outside.mkdir()
    (home / "snapshot").mkdir(parents=True)
    (home / "snapshot" / "p1").symlink_to(outside)
    with pytest.raises(UnsafePath):
        make_folder(home, "snapshot/p1/refs")
    assert list(outside.iterdir()) == []
    make_folder(home, "snapshot/p2/refs")
    assert stat.S_IMODE((home / "snapshot" / "p2" / "refs").stat().st_mode) == 0o700
