"""metrics.write_atomic sets the file's mode on the temp file's descriptor (fchmod) before the
rename, not by name: the final mode is the documented one whatever the umask (0644 for the
metrics file node_exporter reads as another user, 0600 for the failure note), and a temp name
swapped for a symlink before the mode is set cannot change another file's mode."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from archiver import metrics


@pytest.mark.parametrize("umask", [0o077, 0o000, 0o022])
@pytest.mark.parametrize("mode", [0o644, 0o600])
def test_the_written_file_has_the_requested_mode_whatever_the_umask(tmp_path: Path, umask: int, mode: int) -> None:
    old = os.umask(umask)
    try:
        metrics.write_atomic(tmp_path / "m" / "archiver.prom", "archiver_info 1\n", mode=mode)
    finally:
        os.umask(old)
    p = tmp_path / "m" / "archiver.prom"
    assert stat.S_IMODE(p.lstat().st_mode) == mode and stat.S_ISREG(p.lstat().st_mode)
    assert p.read_bytes() == b"archiver_info 1\n"
    assert sorted(x.name for x in p.parent.iterdir()) == ["archiver.prom"]  # no temp file left


def test_the_default_mode_of_write_metrics_is_0644(tmp_path: Path) -> None:
    old = os.umask(0o077)
    try:
        metrics.write_metrics(tmp_path / "archiver.prom", None, started=1.0, finished=2.0, success=False)
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "archiver.prom").stat().st_mode) == 0o644


def test_a_temp_name_swapped_for_a_symlink_does_not_change_another_files_mode(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    victim = tmp_path / "victim.key"
    victim.write_bytes(b"secret\n")
    victim.chmod(0o600)
    folder = tmp_path / "metrics"
    folder.mkdir()
    real_fsync = os.fsync

    def fsync_then_swap(fd: int) -> None:  # another writer of the folder, between the write and the rename
        real_fsync(fd)
        (tmp,) = [p for p in folder.iterdir() if p.name.endswith(".tmp")]
        tmp.unlink()
        tmp.symlink_to(victim)

    monkeypatch.setattr(os, "fsync", fsync_then_swap)
    metrics.write_atomic(folder / "archiver.prom", "archiver_info 1\n")
    assert stat.S_IMODE(victim.stat().st_mode) == 0o600  # by name, chmod would have made it 0644
    assert victim.read_bytes() == b"secret\n"
