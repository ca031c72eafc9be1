"""The wheel carries every package and the built-in rule packs."""

from __future__ import annotations

import shutil
import tomllib
import zipfile
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_every_package_is_listed() -> None:
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {
        ".".join(p.parent.relative_to(ROOT).parts)
        for p in (ROOT / "archiver").rglob("__init__.py")
    }
    assert found <= listed, found - listed


def test_wheel_contains_rule_packs(tmp_path: Path) -> None:
    src = tmp_path / "src"  # build from a copy: an in-tree build would litter the checkout
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    for name in ("archiver", "rules"):
        shutil.copytree(ROOT / name, src / name, ignore=shutil.ignore_patterns("__pycache__"))
    out = tmp_path / "dist"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                    "-w", str(out), str(src)], check=True, capture_output=True)
    (wheel,) = out.glob("archiver-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for pack in ("secrets", "pii", "paths", "words"):
        assert f"archiver/rules/{pack}.toml" in names
    assert "archiver/cli.py" in names and "archiver/demo/claude_sample.py" in names
