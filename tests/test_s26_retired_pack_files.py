"""An archive made before packs became git-pack artifacts (s24) holds a snapshot pack's `.idx`
(and `.mtimes`, `.rev`...) as binary files. The collector leaves them out now on purpose
(DiscoveredSession.retired): the next syncs drop them from the manifest instead of carrying them
on with "gone from the machine" on every run (restore would write them back beside no pack)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fx_s24_gitpack import GIT, USER, build_snapshot

pytestmark = pytest.mark.skipif(GIT is None, reason="needs the git CLI")
SNAP = ".local/share/opencode/snapshot"

# the collector as it was before s24: packs as binary, the files derived from them archived too
OLD_WRITER = """import sys
import archiver.harnesses.opencode as o
_format = o._git_file_format
o._git_file_format = lambda rel: "binary" if _format(rel) == "git-pack" else _format(rel)
o._pack_folder_file = lambda rel: False
o._RETIRED_PACK_FILES = None
from archiver.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_pack_files_archived_before_are_dropped_not_kept_as_gone(tmp_path: Path) -> None:
    from archiver.demo.opencode_sample import P1, close_opencode_home, make_opencode_home
    from tests.fx_s11_e2e import REPO, decrypt_all, latest_manifest, sessions_by_key, setup

    s = setup(tmp_path, "opencode")
    s.home.mkdir(parents=True)
    close_opencode_home(make_opencode_home(s.home, user=USER))
    snap = build_snapshot(tmp_path / "built", "cruft")
    git_dir = s.home / SNAP / P1 / snap.git_dir.name
    shutil.copytree(snap.git_dir, git_dir)
    derived = sorted(p.name for p in (git_dir / "objects" / "pack").iterdir() if not p.name.endswith(".pack"))
    assert any(n.endswith(".idx") for n in derived)
    old = tmp_path / "old_writer.py"
    old.write_text(OLD_WRITER)
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("ARCHIVER")}, **s.env, "PYTHONPATH": str(REPO)}
    r = subprocess.run([sys.executable, str(old), "sync", "--config", str(s.config)], env=env,
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]

    def project() -> dict:
        return sessions_by_key(latest_manifest(decrypt_all(s)))[f"opencode:@project-{P1}"]

    def pack_folder(session: dict) -> list[str]:
        return sorted(a["path"].rsplit("/", 1)[1] for a in session["artifacts"] if "/objects/pack/" in a["path"])

    assert set(derived) <= set(pack_folder(project()))  # the old writer archived them
    for run in range(2):
        if run:
            (git_dir / "info" / "note").write_text("a change, so the session is written again\n")
        s.cli("sync", expect=0)
        session = project()
        assert pack_folder(session) == sorted(p.name for p in (git_dir / "objects" / "pack").glob("*.pack"))
        assert not [w for w in session["warnings"] if "gone from the machine" in w], session["warnings"]
