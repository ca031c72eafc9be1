"""Session 36, an independent seed audit of the pi collector (seeds/by-harness/pi.json). No gap
was found that fails on main; this guards what the audit checked end to end in one home: every
seed entry type archived and restored byte for byte in its `sessions/--<cwd>--/` folder, the
`fullOutputPath` temp log (layout `<os.tmpdir()>/pi-bash-<16 hex>.log`) archived and the value
relinked to the restored copy, and a /fork's parentSession relinked, its edge `at` the last
copied entry (linking "forks")."""

from __future__ import annotations

from pathlib import Path

from tests.fx_home import Box, box  # noqa: F401
from tests.fx_s36_pi import FID, LOG, SID, seed_entries, write_home


def test_pi_seed_home_round_trip(box: Box, tmp_path: Path) -> None:
    box.only("pi")
    f, fk, log = write_home(box.home, tmp_path / "tmpdir")
    sync = box.sync()
    assert sync["sessions"]["failed"] == 0 and sync["errors"] == [], sync
    ls = box.ls()
    [edge] = ls[f"pi:{FID}"]["parents"]
    assert (edge["relation"], edge["parent"], edge["at"]) == ("fork", f"pi:{SID}", seed_entries()[2]["id"])
    to = box.base / "to"
    out = box.cli("restore", "--all", "--to", str(to))
    assert out["refused"] == [] and out["integrity_errors"] == [], out
    folder = to / ".pi" / "agent" / "sessions" / "--srv-app--"
    restored_log = folder / f"{SID}.tmp" / LOG
    assert restored_log.read_bytes() == log.read_bytes()
    want = f.read_bytes().replace(str(log).encode(), str(restored_log.resolve()).encode())
    assert (folder / f.name).read_bytes() == want
    want_fork = fk.read_bytes().replace(str(f).encode(), str((folder / f.name).resolve()).encode())
    assert (folder / fk.name).read_bytes() == want_fork
