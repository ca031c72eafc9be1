"""A folder that cannot be listed, for tests that run as root (chmod 000 would not stop them):
os.scandir and Path.iterdir of that one path raise PermissionError, as for another user's folder."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest


def deny_listing(monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    real_scandir, real_iterdir = os.scandir, Path.iterdir
    denied = str(folder)

    def scandir(path: Any = ".") -> Any:
        if not isinstance(path, int) and os.fspath(path) == denied:  # (scandir also takes a descriptor)
            raise PermissionError(13, "Permission denied", denied)
        return real_scandir(path)

    def iterdir(self: Path) -> Any:
        if str(self) == denied:
            raise PermissionError(13, "Permission denied", denied)
        return real_iterdir(self)

    monkeypatch.setattr(os, "scandir", scandir)
    monkeypatch.setattr(Path, "iterdir", iterdir)
