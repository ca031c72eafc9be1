"""The run lock is a file in the state dir: a symlink planted at its name must not make a sync
truncate and write what it points to, and the state dir is checked before the lock is taken."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from archiver.lock import RunLock
from archiver.state import StateError, private_dir


def test_a_lock_planted_as_a_symlink_is_refused_and_its_target_untouched(tmp_path: Path) -> None:
    victim = tmp_path / "precious.txt"
    victim.write_bytes(b"do not truncate\n")
    state = tmp_path / "state"
    state.mkdir(mode=0o700)
    os.symlink(victim, state / "lock")
    with pytest.raises(OSError):
        RunLock(state / "lock").acquire()
    assert victim.read_bytes() == b"do not truncate\n"


def test_a_lock_that_is_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "lock")
    with pytest.raises(OSError, match="not a regular file"):
        RunLock(tmp_path / "lock").acquire()


def test_an_ordinary_lock_is_taken_and_holds_the_pid(tmp_path: Path) -> None:
    lock = RunLock(tmp_path / "lock")
    lock.acquire()
    try:
        assert (tmp_path / "lock").read_text() == str(os.getpid())
    finally:
        lock.release()


def test_a_state_dir_of_ours_is_tightened_and_a_sticky_one_refused(tmp_path: Path) -> None:
    mine = tmp_path / "mine"
    mine.mkdir()
    os.chmod(mine, 0o755)
    private_dir(mine)
    assert (mine.stat().st_mode & 0o777) == 0o700
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o1777)
    with pytest.raises(StateError, match="sticky"):
        private_dir(shared)


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="chown needs root")
def test_a_folder_of_another_user_is_refused_and_roots_own_is_not(tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir(mode=0o700)
    os.chown(other, 54321, -1)
    with pytest.raises(StateError, match="another user"):
        private_dir(other)
    rooted = tmp_path / "rooted"  # a volume's root owned by root (Kubernetes fsGroup, Docker)
    rooted.mkdir(mode=0o770)
    os.chown(rooted, 0, 54321)
    private_dir(rooted)  # running as root: root's own folder, tightened
    assert (rooted.stat().st_mode & 0o777) == 0o700
