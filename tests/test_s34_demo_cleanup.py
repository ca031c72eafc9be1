"""`make demo` (`archiver demo` with no --dir) leaves nothing behind, as the README says: its
temp folder held the reviewer's identity, the plaintext sample home and the restore."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path


def test_demo_without_dir_removes_its_folder(tmp_path: Path) -> None:
    tmp = tmp_path / "tmp"
    tmp.mkdir(mode=0o700)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ARCHIVER_", "AWS_"))}
    env.update(PYTHONPATH=str(Path(__file__).resolve().parent.parent), TMPDIR=str(tmp))
    proc = subprocess.run([sys.executable, "-m", "archiver", "demo", "--json"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = json.loads(proc.stdout)
    assert out["ok"] is True and out["verify"]["ok"] is True
    assert (out["dir"], out["review_page"]) == (None, None)
    assert len(out["restore"]["sessions"]) == out["sync"]["sessions"]["total"] > 30
    assert sorted(p.name for p in tmp.iterdir()) == []
