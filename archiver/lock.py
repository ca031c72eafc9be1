"""One run at a time per state dir: an flock'ed file. The kernel drops the lock when
the holder dies, so a stale lock from a killed run never blocks the next one."""

from __future__ import annotations

import errno
import fcntl
import os
import stat
from pathlib import Path


class AlreadyRunning(RuntimeError):
    def __init__(self, message: str, holder: int | None = None, path: Path | None = None) -> None:
        super().__init__(message)
        self.holder = holder  # the running sync's pid, as it wrote it in the lock file
        self.path = path


class RunLock:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None

    def acquire(self) -> None:
        # never through a symlink planted at the lock's name: it would truncate what it points to
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0),
                     0o600)
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise OSError(errno.EINVAL, "the run lock is not a regular file", str(self.path))
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.read(fd, 64).decode(errors="replace").strip()
            os.close(fd)
            raise AlreadyRunning(f"pid {holder or '?'} holds {self.path}",
                                 int(holder) if holder.isdigit() else None, self.path) from None
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())
        self._fd = fd

    def release(self) -> None:
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None
