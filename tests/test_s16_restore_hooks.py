"""The Codex and OpenCode restore hooks write files restore's own placement never names: Codex
merges a thread's extracts into `.codex/state_5.sqlite` and `.codex/session_index.jsonl`,
OpenCode merges per-session extracts into `opencode.db`, where SQLite also opens `-journal`,
`-wal` and `-shm` by name. A symlink planted in the restore target at any of those names (or a
folder on the way) must not send a write outside the target: refused, the warning or refusal
names the path, nothing outside changes. Archives crafted with the project's writer
(tests/fx_crafter.py) in the layouts of the seeds (codex.json, opencode.json); the real CLI
restores them."""

from __future__ import annotations

import json
import os
import sqlite3
import stat
from datetime import datetime, timezone
from pathlib import Path

import pytest

from archiver.model import Artifact, Manifest, Session
from tests import fx_crafter
from tests.fx_home import Box, box  # noqa: F401

TID = "019a2b3c-4d5e-7f60-8172-93a4b5c6d7e8"
SES = "ses_01JABCDEFGHJKMNPQRSTVWXYZ0"


class _Crafter(fx_crafter.Crafter):
    def manifest(self, harness: str, sid: str, arts: list[Artifact]) -> None:
        now = datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        self.archive.put_manifest(Manifest(host_id="laptop", created_at=now, run_id="r" * 16, tool_version="0.1.0",
                                           sessions=[Session(key=f"{harness}:{sid}", harness=harness, session_id=sid,
                                                             artifacts=arts, host_id="laptop")]), self.recipients)


def _db_bytes(tmp: Path, *sql: str) -> bytes:
    p = tmp / "extract.sqlite"
    p.unlink(missing_ok=True)
    con = sqlite3.connect(str(p))
    for s in sql:
        con.execute(s)
    con.commit()
    con.close()
    data = p.read_bytes()
    p.unlink()
    return data


def _outside(box: Box) -> Path:  # noqa: F811
    d = box.base / "elsewhere"
    d.mkdir()
    (d / "precious.txt").write_bytes(b"precious\n")
    return d


def _snap(d: Path) -> dict[str, tuple[int, bytes]]:
    return {p.name: (stat.S_IFMT(p.lstat().st_mode), p.read_bytes()) for p in sorted(d.iterdir())}


def _codex_archive(box: Box, tmp: Path) -> None:  # noqa: F811
    c = _Crafter(box.config)
    state = _db_bytes(tmp, "CREATE TABLE threads (id TEXT PRIMARY KEY, rollout_path TEXT, title TEXT)",
                      f"INSERT INTO threads VALUES ('{TID}', NULL, 'restored thread')")
    index = (json.dumps({"id": TID, "thread_name": "restored thread", "updated_at": "2026-01-02T03:04:05Z"}) + "\n").encode()
    c.manifest("codex", TID, [
        c.artifact(f".codex/archiver-extracts/state_5/{TID}.sqlite", state, role="database", format="sqlite"),
        c.artifact(f".codex/archiver-extracts/session_index/{TID}.jsonl", index, role="index", format="jsonl"),
    ])


@pytest.mark.parametrize("planted", ["state_5.sqlite", "state_5.sqlite-journal", "session_index.jsonl"])
@pytest.mark.parametrize("dangling", [False, True])
def test_codex_merges_never_follow_a_symlink_planted_in_the_target(box: Box, tmp_path: Path, planted: str,  # noqa: F811
                                                                   dangling: bool) -> None:
    _codex_archive(box, tmp_path)
    outside = _outside(box)
    target = box.base / "target"
    (target / ".codex").mkdir(parents=True)
    (target / ".codex" / planted).symlink_to(outside / ("new" if dangling else "precious.txt"))
    before = _snap(outside)
    out = box.cli("restore", "--all", "--to", str(target))  # the extracts themselves are written: exit 0
    assert _snap(outside) == before  # not one byte outside, no new file
    assert (target / ".codex" / planted).is_symlink()  # left as it is
    said = [w for w in out["warnings"] if f".codex/{planted}" in w]
    assert said and all("symlink" in w and "not merged" in w for w in said), out["warnings"]
    # what was not refused is merged
    if planted == "session_index.jsonl":
        assert sqlite3.connect(str(target / ".codex/state_5.sqlite")).execute("SELECT id FROM threads").fetchall() == [(TID,)]
    else:
        assert TID.encode() in (target / ".codex/session_index.jsonl").read_bytes()
    if planted == "state_5.sqlite-journal":
        assert not os.path.lexists(target / ".codex/state_5.sqlite")


def test_codex_merges_refuse_a_symlinked_codex_folder_even_pointing_inside(box: Box, tmp_path: Path) -> None:  # noqa: F811
    """`.codex` is walked by descriptor for the merges as for the files restore places: a
    symlink there is refused whether it leads outside or elsewhere in the target."""
    _codex_archive(box, tmp_path)
    target = box.base / "target"
    (target / "elsewhere").mkdir(parents=True)
    (target / ".codex").symlink_to(target / "elsewhere")
    out = box.cli("restore", "--all", "--to", str(target), expect=3)
    assert list((target / "elsewhere").iterdir()) == []
    assert out["refused"] and all("not a plain directory" in r for r in out["refused"])


def _opencode_archive(box: Box, tmp: Path) -> bytes:  # noqa: F811
    c = _Crafter(box.config)
    extract = _db_bytes(tmp, "CREATE TABLE session_v2 (id TEXT PRIMARY KEY, project_id TEXT NOT NULL, title TEXT)",
                        "CREATE TABLE session_message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, type TEXT NOT NULL, "
                        "seq INTEGER NOT NULL, data TEXT NOT NULL)",
                        f"INSERT INTO session_v2 VALUES ('{SES}', 'prj', 'restored session')",
                        f"INSERT INTO session_message VALUES ('msg_1', '{SES}', 'user', 1, '{{}}')")
    c.manifest("opencode", SES, [c.artifact(".local/share/opencode/opencode.db", extract, role="database",
                                            format="sqlite")])
    return extract


@pytest.mark.parametrize("planted", ["opencode.db-journal", "opencode.db-wal", "opencode.db-shm"])
def test_opencode_merge_never_follows_a_symlink_beside_the_database(box: Box, tmp_path: Path,  # noqa: F811
                                                                    planted: str) -> None:
    _opencode_archive(box, tmp_path)
    outside = _outside(box)
    data = box.base / "target" / ".local/share/opencode"
    data.mkdir(parents=True)
    (data / planted).symlink_to(outside / "precious.txt")
    before = _snap(outside)
    out = box.cli("restore", "--all", "--to", str(box.base / "target"), expect=3)
    assert _snap(outside) == before
    (refused,) = out["refused"]
    assert f"opencode:{SES}" in refused and ".local/share/opencode/opencode.db" in refused
    assert planted in refused and "symlink" in refused
    assert not (data / "opencode.db").exists() and (data / planted).is_symlink()


def test_opencode_merge_without_a_planted_symlink_still_writes_the_database(box: Box, tmp_path: Path) -> None:  # noqa: F811
    _opencode_archive(box, tmp_path)
    out = box.cli("restore", "--all", "--to", str(box.base / "target"))
    assert out["refused"] == [] and out["sessions"] == [f"opencode:{SES}"]
    con = sqlite3.connect(str(box.base / "target/.local/share/opencode/opencode.db"))
    assert con.execute("SELECT id, title FROM session_v2").fetchall() == [(SES, "restored session")]
