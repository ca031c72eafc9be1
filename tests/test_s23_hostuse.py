"""Session 23: the host-level sessions a session uses (Session.uses, docs/FORMAT.md §5 and §6.8).

1. What a used host-level session is for is said in one place (archiver/lineage.py
   USED_HOST_SESSION): restore's warning for one left behind and export's line naming one use it.
2. `export --json`'s `sessions` are the sessions the document shows as sessions; the host-level
   sessions they use go in `uses` (as `lineage --json` has them), and the plain count says
   "N session(s), using M host-level session(s)".
3. An OpenCode session known only from the 1.x `storage/` JSON files (pre-SQLite builds) uses its
   project's snapshot dir when a part file names a snapshot tree (seeds/by-harness/opencode.json:
   the 1.x step-start / step-finish / snapshot parts' `{snapshot?}`; "assistant.snapshot.start/end
   and session_v2.revert.snapshot -> git trees in snapshot/<project>/<hash>/") or its info holds a
   staged revert (session.revert: `Revert | RevertV1`), as a database session does.

The homes are generated here following the seed: tests/test_s22_uses.py's opencode.db home (two
projects, a private bare git dir per project) plus a third project whose sessions only the
storage/ layout holds (session/<project>/<sid>.json, message/<sid>/<msg>.json,
part/<msg>/<prt>.json), synced through the real CLI to moto on 127.0.0.1.
"""

from __future__ import annotations

import json
import zlib
from pathlib import Path
from typing import Any

import pytest

from archiver.commands.restore import _uses_left_out
from archiver.harnesses.base import HarnessContext
from archiver.harnesses.opencode import OpenCode
from archiver.lineage import USED_HOST_SESSION, Lineage, used_host_purpose
from archiver.model import Session
from archiver.render.doc import uses_note
from tests.fx_archiver import Env, env  # noqa: F401  (fixture)
from tests.test_s22_uses import A_CHILD, A_MAIN, PRJ_A, PRJ_B, T0, _snapshot_repo, build_home, loose_object

OC = ".local/share/opencode"
PRJ_C, PRJ_D = "c3" * 20, "d4" * 20  # PRJ_D: a project with no snapshot dir
C_STEP, C_PLAIN, C_REVERT, C_OLD, D_STEP = (f"ses_{n:04d}StoreZZabcdefghijklmno" for n in (1, 2, 3, 4, 5))
PURPOSE = "the project's snapshot git dir that diff and revert read"


# ---- the home: pre-SQLite JSON storage beside the database --------------------------------------

def _write(f: Path, obj: object) -> None:
    f.parent.mkdir(parents=True, exist_ok=True)
    f.write_text(json.dumps(obj))


def _storage_session(st: Path, sid: str, project: str, workdir: Path, part: dict[str, Any],
                     revert: dict[str, Any] | None = None) -> None:
    """session/<project>/<sid>.json, one assistant message and its one part (1.x shapes)."""
    info: dict[str, Any] = {"id": sid, "projectID": project, "directory": str(workdir), "title": f"stored {sid[4:8]}",
                            "version": "0.15.2", "time": {"created": T0, "updated": T0 + 5000}}
    if revert is not None:
        info["revert"] = revert
    _write(st / "session" / project / f"{sid}.json", info)
    msg = f"msg_{sid[4:8]}StoreAAAAAAAAAA"
    _write(st / "message" / sid / f"{msg}.json",
           {"id": msg, "sessionID": sid, "role": "assistant", "time": {"created": T0, "completed": T0 + 4},
            "modelID": "m", "providerID": "p", "mode": "build", "path": {"cwd": str(workdir), "root": str(workdir)}})
    _write(st / "part" / msg / "prt_0001StoreAAAAAAAAAA.json", {"id": "prt_0001StoreAAAAAAAAAA", "messageID": msg,
                                                                "sessionID": sid, **part})


def build_storage(home: Path) -> dict[str, str]:
    """Project C (snapshot dir present) and D (none) known only from storage/."""
    root = home / OC
    work_c, work_d = home / "work" / "app-c", home / "work" / "app-d"
    tree, blob = _snapshot_repo(root, PRJ_C, work_c, b"project C notes\n")
    st = root / "storage"
    _storage_session(st, C_STEP, PRJ_C, work_c, {"type": "step-start", "snapshot": tree})
    _storage_session(st, C_PLAIN, PRJ_C, work_c, {"type": "text", "text": "no snapshot here"})
    _storage_session(st, C_REVERT, PRJ_C, work_c, {"type": "text", "text": "reverted"},
                     revert={"messageID": f"msg_{C_REVERT[4:8]}StoreAAAAAAAAAA", "snapshot": tree})
    _storage_session(st, D_STEP, PRJ_D, work_d, {"type": "step-finish", "reason": "stop", "snapshot": tree,
                                                 "cost": 0, "tokens": {"input": 1, "output": 1, "reasoning": 0,
                                                                       "cache": {"read": 0, "write": 0}}})
    # the older layout: session/info/<sid>.json, session/part/<sid>/<msg>/<prt>.json
    _write(st / "session" / "info" / f"{C_OLD}.json", {"id": C_OLD, "projectID": PRJ_C, "title": "old layout"})
    _write(st / "session" / "part" / C_OLD / "msg_1" / "prt_1.json",
           {"id": "prt_1", "messageID": "msg_1", "sessionID": C_OLD, "type": "snapshot", "snapshot": tree})
    (st / "migration").write_text("2")
    return {"tree_c": tree, "blob_c": blob}


def _discover(home: Path, **options: object) -> dict[str, Any]:
    harness = OpenCode(HarnessContext(home=home, env={}, options=dict(options)))
    try:
        return {s.session_id: s for s in harness.discover()}
    finally:
        harness.close()


# ---- 3. storage-only sessions: uses, found by discovery --------------------------------------------

def test_a_storage_session_naming_a_snapshot_tree_uses_its_project_snapshot_dir(tmp_path: Path) -> None:
    build_storage(tmp_path)
    found = _discover(tmp_path)
    host_c = f"opencode:@project-{PRJ_C}"
    assert f"@project-{PRJ_C}" in found and found[f"@project-{PRJ_C}"].kind == "host"
    assert found[C_STEP].uses == [host_c]  # a step-start part's snapshot
    assert found[C_REVERT].uses == [host_c]  # a staged revert in the session info
    assert found[C_OLD].uses == [host_c]  # the older session/info + session/part layout
    assert found[C_PLAIN].uses == []  # no tree named: no dependency invented
    assert found[D_STEP].uses == []  # names a tree, but no snapshot dir of project D to use
    assert not any(s.uses for k, s in found.items() if k.startswith("@"))


def test_storage_sessions_use_nothing_when_snapshots_are_not_archived(tmp_path: Path) -> None:
    build_storage(tmp_path)
    found = _discover(tmp_path, include_snapshots=False)
    assert f"@project-{PRJ_C}" not in found
    assert [k for k, s in found.items() if s.uses] == []


def test_a_project_id_that_climbs_out_is_no_snapshot_dir(tmp_path: Path) -> None:
    """The info's projectID names a folder under snapshot/; one that is no plain name is not
    looked up (the info file's folder decides, as OpenCode wrote it there)."""
    build_storage(tmp_path)
    info = tmp_path / OC / "storage" / "session" / PRJ_C / f"{C_STEP}.json"
    doc = json.loads(info.read_text())
    doc["projectID"] = f"../snapshot/{PRJ_C}"
    info.write_text(json.dumps(doc))
    assert _discover(tmp_path)[C_STEP].uses == [f"opencode:@project-{PRJ_C}"]
    doc["projectID"] = "../../elsewhere"
    info.write_text(json.dumps(doc))
    (tmp_path / OC / "storage" / "session" / PRJ_C / f"{C_STEP}.json").rename(
        tmp_path / OC / "storage" / "session" / "info" / f"{C_STEP}.json")
    assert _discover(tmp_path)[C_STEP].uses == []


# ---- 1. one table for what a used host session is for -----------------------------------------------

def _sessions() -> dict[str, Session]:
    s = Session(key="opencode:ses_x", harness="opencode", session_id="ses_x", host_id="h",
                uses=["opencode:@project-here"])
    gone = Session(key="opencode:ses_y", harness="opencode", session_id="ses_y", host_id="h",
                   uses=["opencode:@project-gone"])
    host = Session(key="opencode:@project-here", harness="opencode", session_id="@project-here", kind="host",
                   host_id="h")
    other = Session(key="pi:ses_z", harness="pi", session_id="ses_z", host_id="h", uses=["pi:@host"])
    pi_host = Session(key="pi:@host", harness="pi", session_id="@host", kind="host", host_id="h")
    return {s.key: s, gone.key: gone, f"{host.key}/h": host, other.key: other, f"{pi_host.key}/h": pi_host}


def test_restore_and_export_say_what_a_used_host_session_is_in_the_same_words() -> None:
    assert USED_HOST_SESSION == {"opencode": PURPOSE}
    lin = Lineage(_sessions())
    warnings = _uses_left_out(lin, ["opencode:ses_x", "opencode:ses_y", "pi:ses_z"])
    assert warnings == [
        f"opencode:ses_x: restored alone, without opencode:@project-here, {PURPOSE}; restore it --with-family",
        f"opencode:ses_y: uses opencode:@project-gone, {PURPOSE}, which no manifest read holds (never archived or "
        "on another machine): restored without it",
        "pi:ses_z: restored alone, without pi:@host, the host-level session whose files it reads; restore it "
        "--with-family",
    ]
    assert uses_note("opencode", True) == f"{PURPOSE}, restored with --with-family"
    assert uses_note("opencode", False) == f"{PURPOSE}, not in the archive"
    assert uses_note("pi", True) == "the host-level session whose files it reads, restored with --with-family"
    assert used_host_purpose("claude-code") == "the host-level session whose files it reads"


# ---- 2. export --json: sessions shown as sessions, uses beside them -------------------------------------

def test_export_json_lists_the_shown_sessions_and_the_used_host_session_apart() -> None:
    sessions = _sessions()
    lin = Lineage(sessions)
    doc = lin.export_json(["opencode:ses_x", "opencode:@project-here/h"])
    assert doc == {"sessions": ["opencode:ses_x"],
                   "uses": [{"session": "opencode:ses_x", "uses": "opencode:@project-here", "host_id": "h"}]}
    assert doc["uses"] == lin.to_json({"opencode:ses_x"})["uses"]  # as `lineage --json` has it
    # the host session asked for itself is the export's one session
    assert lin.export_json(["opencode:@project-here/h"]) == {"sessions": ["opencode:@project-here"], "uses": []}
    # a used key no manifest holds is named with no host id
    assert lin.export_json(["opencode:ses_y"])["uses"] == [
        {"session": "opencode:ses_y", "uses": "opencode:@project-gone", "host_id": None}]


@pytest.fixture
def synced(env: Env) -> tuple[Env, dict[str, str], dict[str, dict[str, Any]]]:  # noqa: F811
    build_home(env.home)
    facts = build_storage(env.home)
    assert env.cli_json("sync", "--workers", "1")["sessions"]["failed"] == 0
    return env, facts, {s["key"]: s for s in env.cli_json("ls", identity=True)["sessions"]}


def _host_key(listed: dict[str, dict[str, Any]], project: str) -> str:
    keys = [k for k, s in listed.items() if s["kind"] == "host" and project[:8] in k]
    assert len(keys) == 1, sorted(listed)
    return keys[0]


def test_export_counts_and_lists_what_it_shows_and_restore_brings_a_storage_session_snapshot_dir(
        synced: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    env, facts, listed = synced
    host_a, host_c = _host_key(listed, PRJ_A), _host_key(listed, PRJ_C)
    line = f"- uses `{host_a}`: {PURPOSE}, restored with --with-family"

    doc = env.cli_json("export", f"opencode:{A_MAIN}", "--with-family", "--format", "md", identity=True)
    assert doc["sessions"] == [f"opencode:{A_MAIN}", f"opencode:{A_CHILD}"]
    assert doc["uses"] == [{"session": f"opencode:{A_MAIN}", "uses": host_a, "host_id": listed[host_a]["host_id"]}]
    assert [ln for ln in doc["document"].splitlines() if ln.startswith("- uses ")] == [line]
    assert doc["document"].count('<a id="s-') == len(doc["sessions"])
    lineage = env.cli_json("lineage", f"opencode:{A_MAIN}", identity=True)
    assert doc["uses"] == lineage["uses"] and host_a in lineage["nodes"]

    out = tmp_path / "family.md"
    capsys.readouterr()
    code, printed = env.cli("export", f"opencode:{A_MAIN}", "--with-family", "--format", "md", "--out", str(out),
                            identity=True)
    said = printed + capsys.readouterr().out
    assert code == 0, said
    assert f"wrote {out} (2 session(s), using 1 host-level session, {doc['entries']} entries)" in said, said
    assert out.read_text().count("- uses ") == 1

    # a session with no host session to use: the count as before
    entries = env.cli_json("export", f"opencode:{A_CHILD}", "--format", "md", identity=True)["entries"]
    capsys.readouterr()
    code, printed = env.cli("export", f"opencode:{A_CHILD}", "--format", "md", "--out", str(out), identity=True)
    said = printed + capsys.readouterr().out
    assert code == 0 and f"wrote {out} (1 session(s), {entries} entries)" in said, said

    # storage-only sessions: the manifest names the project C dir they use, --with-family brings it
    assert listed[f"opencode:{C_STEP}"]["uses"] == [host_c] and listed[f"opencode:{C_REVERT}"]["uses"] == [host_c]
    assert listed[f"opencode:{C_PLAIN}"]["uses"] == [] and listed[f"opencode:{D_STEP}"]["uses"] == []
    assert PRJ_B[:8] not in host_c
    to = tmp_path / "c-family"
    res = env.cli_json("restore", f"opencode:{C_STEP}", "--with-family", "--to", str(to), identity=True)
    assert sorted(res["sessions"]) == sorted([f"opencode:{C_STEP}", host_c]), res
    assert res["warnings"] == [] and res["integrity_errors"] == []
    assert zlib.decompress(loose_object(to, facts["blob_c"]).read_bytes()) == b"blob 16\x00project C notes\n"
    assert [p.name for p in (to / OC / "snapshot").iterdir()] == [PRJ_C]
    assert (to / OC / "storage" / "session" / PRJ_C / f"{C_STEP}.json").is_file()

    capsys.readouterr()
    code, _ = env.cli("restore", f"opencode:{C_STEP}", "--to", str(tmp_path / "c-alone"), identity=True)
    err = capsys.readouterr().err
    assert code == 0
    assert [ln for ln in err.splitlines() if "restored alone" in ln] == [
        f"archiver: warning: opencode:{C_STEP}: restored alone, without {host_c}, {PURPOSE}; restore it --with-family"]
    assert not (tmp_path / "c-alone" / OC / "snapshot").exists()

