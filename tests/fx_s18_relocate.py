"""Generated homes for the s18 `restore --relocate` end-to-end tests (tests/test_s18_relocate.py).

No tests here. Each builder writes one harness's files under `home` following its seed
(/work/shared/seeds/by-harness/<harness>.json) and returns what the tests look for:
- pi: a session, its /fork in the same cwd and a forkFrom() copy in another cwd, both with
  header.parentSession = the absolute path of the parent's file (seed linking "forks");
- Claude Code: a session moved by `/cd` into a folder below its first cwd, and one moved to a
  sibling folder; each transcript lies in the project folder of its last cwd (seed record
  `relocated {relocatedCwd}`);
- OpenCode: one session of a git project whose snapshot folder is
  `snapshot/<project-id>/<sha1(worktree)>/` (a bare git dir holding one loose blob).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

from tests.fx_s17_e2eco import OC_SCHEMA

T0 = 1_767_261_600_000  # 2026-01-01T10:00:00Z


def _iso(ms: int) -> str:
    from datetime import datetime, timezone

    return datetime.fromtimestamp(ms / 1000, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def _line(obj: Any) -> bytes:
    # JSON.stringify's form: compact, non-ASCII raw
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"


# ------------------------------------------------------------------ pi

def pi_dir_name(cwd: str) -> str:
    return "--" + re.sub(r"[/\\:]", "-", cwd.lstrip("/")) + "--"


def _pi_file(home: Path, cwd: str, ms: int, sid: str) -> Path:
    stamp = _iso(ms).replace(":", "-").replace(".", "-")
    return home / ".pi/agent/sessions" / pi_dir_name(cwd) / f"{stamp}_{sid}.jsonl"


def _pi_header(sid: str, ms: int, cwd: str, parent: Path | None = None) -> dict[str, Any]:
    h: dict[str, Any] = {"type": "session", "version": 3, "id": sid, "timestamp": _iso(ms), "cwd": cwd}
    if parent is not None:
        h["parentSession"] = str(parent)
    return h


def _pi_msg(eid: str, parent: str | None, ms: int, role: str, text: str) -> dict[str, Any]:
    return {"type": "message", "id": eid, "parentId": parent, "timestamp": _iso(ms),
            "message": {"role": role, "content": [{"type": "text", "text": text}], "timestamp": ms}}


def build_pi(home: Path) -> dict[str, Any]:
    """A session in work/app, its /fork there and a forkFrom() copy in work/lib."""
    app, lib = f"{home}/work/app", f"{home}/work/lib"
    ids = {"main": "019b7a10-0000-7000-8000-00000000a001", "fork": "019b7a10-0000-7000-8000-00000000a002",
           "copy": "019b7a10-0000-7000-8000-00000000a003"}
    entries = [_pi_msg("a1b2c3d4", None, T0 + 1000, "user", f"open {app}/main.py"),
               _pi_msg("b2c3d4e5", "a1b2c3d4", T0 + 2000, "assistant", "done")]
    main = _pi_file(home, app, T0, ids["main"])
    fork = _pi_file(home, app, T0 + 10_000, ids["fork"])
    copy = _pi_file(home, lib, T0 + 20_000, ids["copy"])
    main.parent.mkdir(parents=True)
    copy.parent.mkdir(parents=True)
    main.write_bytes(b"".join(_line(r) for r in [_pi_header(ids["main"], T0, app), *entries]))
    fork.write_bytes(b"".join(_line(r) for r in [
        _pi_header(ids["fork"], T0 + 10_000, app, main), *entries,
        _pi_msg("c3d4e5f6", "b2c3d4e5", T0 + 11_000, "user", "and the tests?")]))
    copy.write_bytes(b"".join(_line(r) for r in [
        _pi_header(ids["copy"], T0 + 20_000, lib, main), *entries,
        _pi_msg("d4e5f6a7", "b2c3d4e5", T0 + 21_000, "user", f"now in {lib}")]))
    return {"app": app, "lib": lib, "ids": ids, "names": {k: p.name for k, p in
                                                         (("main", main), ("fork", fork), ("copy", copy))}}


# ------------------------------------------------------------------ Claude Code

def claude_key(cwd: str) -> str:
    return re.sub(r"[^A-Za-z0-9]", "-", cwd)


def _cc_rec(typ: str, uuid: str, parent: str | None, sid: str, cwd: str, ms: int, text: str) -> dict[str, Any]:
    return {"parentUuid": parent, "isSidechain": False, "userType": "external", "cwd": cwd, "sessionId": sid,
            "version": "2.1.300", "gitBranch": "main", "type": typ, "uuid": uuid, "timestamp": _iso(ms),
            "message": {"role": typ, "content": [{"type": "text", "text": text}]}}


def _cc_moved(home: Path, sid: str, first: str, last: str, n: int) -> Path:
    """A transcript started in `first`, moved by /cd to `last`: the records after the relocated
    record carry the new cwd and the file lies in the project folder of `last`."""
    u = [f"{n:08x}-0000-4000-8000-{i:012x}" for i in range(4)]
    recs = [_cc_rec("user", u[0], None, sid, first, T0 + 1000, "start here"),
            _cc_rec("assistant", u[1], u[0], sid, first, T0 + 2000, "ok"),
            {"type": "relocated", "relocatedCwd": last, "sessionId": sid},
            _cc_rec("user", u[2], u[1], sid, last, T0 + 3000, f"now in {last}"),
            _cc_rec("assistant", u[3], u[2], sid, last, T0 + 4000, "ok there")]
    f = home / ".claude/projects" / claude_key(last) / f"{sid}.jsonl"
    f.parent.mkdir(parents=True, exist_ok=True)
    f.write_bytes(b"".join(_line(r) for r in recs))
    return f


def build_claude(home: Path) -> dict[str, Any]:
    """`below`: /cd from work/app to work/app/sub; `sibling`: /cd from work/app to work/other."""
    app = f"{home}/work/app"
    sids = {"below": "5e1f0a00-0000-4000-8000-000000000001", "sibling": "5e1f0a00-0000-4000-8000-000000000002"}
    _cc_moved(home, sids["below"], app, f"{app}/sub", 1)
    _cc_moved(home, sids["sibling"], app, f"{home}/work/other", 2)
    return {"app": app, "sids": sids}


# ------------------------------------------------------------------ OpenCode

def build_opencode(home: Path) -> dict[str, Any]:
    """One session in a git project; its snapshot git dir under snapshot/<project>/<sha1(worktree)>/."""
    data = home / ".local/share/opencode"
    data.mkdir(parents=True)
    wt = f"{home}/work/app"
    proj, sid = "prj_8d7c6b5a4f3e2d1c0b9a", "ses_0a1b2c3d4e5f6A7B8C9D0E1F2G"
    con = sqlite3.connect(data / "opencode.db", isolation_level=None)
    try:
        con.execute("PRAGMA journal_mode=WAL")
        con.executescript(OC_SCHEMA)
        con.execute("INSERT INTO project VALUES (?,?,?,?,?,?)", (proj, wt, "git", "app", T0, T0))
        con.execute("INSERT INTO migration VALUES ('20260804233008_loose_psylocke', ?)", (T0,))
        con.execute("INSERT INTO kv VALUES ('migration.v1-v2', '{}', 1, 1)")
        con.execute("INSERT INTO session_v2 (id, project_id, slug, directory, title, version, agent, model, "
                    "time_created, time_updated) VALUES (?,?,?,?,?,?,?,?,?,?)",
                    (sid, proj, "quiet-river", wt, "Fix the login", "2.1.4", "build",
                     json.dumps({"id": "m", "providerID": "p"}), T0, T0 + 5000))
        rows = [("user", {"text": "fix login", "time": {"created": T0 + 1000}}),
                ("assistant", {"agent": "build", "model": {"id": "m", "providerID": "p"},
                               "content": [{"type": "text", "text": "fixed"}], "finish": "stop",
                               "snapshot": {"start": "a" * 40, "end": "b" * 40, "files": [f"{wt}/login.py"]},
                               "time": {"created": T0 + 2000, "completed": T0 + 3000}})]
        for i, (typ, d) in enumerate(rows, 1):
            con.execute("INSERT INTO session_message VALUES (?,?,?,?,?,?,?)",
                        (f"msg_{i:026d}", sid, typ, i * 2, T0 + i, T0 + i, json.dumps(d)))
    finally:
        con.close()
    gdir = data / "snapshot" / proj / hashlib.sha1(wt.encode()).hexdigest()
    gdir.mkdir(parents=True)
    env = {"GIT_DIR": str(gdir), "HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1", "PATH": os.environ.get("PATH", "")}
    subprocess.run(["git", "init", "-q", "--bare", "--template=", str(gdir)], check=True, env=env, capture_output=True)
    src = home / "snap-src.txt"
    src.write_text("def login():\n    return True\n")
    oid = subprocess.run(["git", "hash-object", "-w", str(src)], check=True, env=env, capture_output=True,
                         text=True).stdout.strip()
    src.unlink()
    return {"worktree": wt, "project": proj, "sid": sid, "blob": oid}
