"""Session 32: a plain `archiver sync` names a session's warnings when the run archives it anew
(or its warnings changed), not on every run after: a session carried unchanged into the new
manifest keeps the warnings an earlier run printed, and the run counts it instead. `sync --json`
still lists every warning of the run's sessions under session_warnings.

Real runs of the CLI in process against moto's S3 server (tests/fx_archiver.py), pi sessions
generated after the pi seed's layout (`~/.pi/agent/sessions/--<cwd>--/<ts>_<id>.jsonl`), a
corrupt complete line being the warning.
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

import pytest

from archiver.cli import main
from tests.fx_archiver import Env, env  # noqa: F401  (fixture)

CWD = "/srv/app"
T0 = 1767323040000
SID = {name: f"0b0e5f4e-aaaa-4bbb-8ccc-3200000000{i:02d}" for i, name in enumerate("abc", 1)}
WARNED = {name: f"pi:{SID[name]}" for name in "ab"}
CLEAN = f"pi:{SID['c']}"
HINT = "archiver: (`archiver sync --json` lists every session's warnings under session_warnings)"


def _line(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":")) + "\n"


def _entry(eid: str, parent: str | None, s: int, text: str) -> str:
    return _line({"type": "message", "id": eid, "parentId": parent, "timestamp": f"2026-01-02T03:04:{s:02d}.000Z",
                  "message": {"role": "user", "content": text, "timestamp": T0 + s * 1000}})


def _sessions(home: Path) -> dict[str, Path]:
    """a and b each with one corrupt complete line (line 2), c clean."""
    folder = home / ".pi" / "agent" / "sessions" / ("--" + CWD[1:].replace("/", "-") + "--")
    folder.mkdir(parents=True)
    files = {}
    for name, sid in SID.items():
        path = files[name] = folder / f"2026-01-02T03-04-00-000Z_{sid}.jsonl"
        head = _line({"type": "session", "version": 3, "id": sid, "timestamp": "2026-01-02T03:04:00.000Z",
                      "cwd": CWD})
        path.write_text(head + ("not json\n" if name != "c" else "") + _entry("e0000001", None, 1, "first"))
        files[name] = path
    return files


def _plain(env: Env, capsys: pytest.CaptureFixture[str]) -> tuple[str, str]:
    """(stdout, stderr) of a plain `archiver sync`; it exits 0."""
    capsys.readouterr()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["sync", "--config", str(env.config), "--workers", "1"])
    err = capsys.readouterr().err
    assert code == 0, err
    return out.getvalue(), err


def _named(err: str) -> list[str]:
    return [ln for ln in err.splitlines() if ln.startswith("archiver: warning: pi:")]


def _warning(sid: str, lines: str, n: int = 1) -> str:
    return (f"archiver: warning: pi:{sid}: 2026-01-02T03-04-00-000Z_{sid}.jsonl: "
            f"{n} unparseable line(s) kept as they are ({lines})")


def test_plain_sync_names_warnings_once(env: Env, capsys: pytest.CaptureFixture[str]) -> None:  # noqa: F811
    files = _sessions(env.home)
    first_a, first_b = _warning(SID["a"], "line 2"), _warning(SID["b"], "line 2")
    # run 1 archives all three: both warned sessions named, one line each, nothing counted
    out, err = _plain(env, capsys)
    assert _named(err) == [first_a, first_b], err
    assert "keep warnings from earlier runs" not in err and HINT not in err
    assert "pi:" not in out  # the summary on stdout names no session
    # run 2 finds nothing changed: no manifest, nothing to say about the sessions
    out, err = _plain(env, capsys)
    assert "pi:" not in err and "keep warnings" not in err, err
    # run 3: the clean session changes, a manifest is written and a and b are carried into it
    # with their stored warnings: counted, not named again
    with files["c"].open("a") as f:
        f.write(_entry("e0000002", "e0000001", 2, "more"))
    out, err = _plain(env, capsys)
    assert _named(err) == [], err
    assert err.splitlines()[-2:] == ["archiver: 2 unchanged session(s) keep warnings from earlier runs", HINT], err
    assert first_a not in err + out and first_b not in err + out
    # --json keeps the contract: every warning of every session in the manifest, nothing on stderr
    with files["c"].open("a") as f:
        f.write(_entry("e0000003", "e0000002", 3, "again"))
    capsys.readouterr()
    doc = env.cli_json("sync", "--workers", "1")
    prefix = "2026-01-02T03-04-00-000Z_"
    assert doc["session_warnings"] == {
        WARNED[n]: [f"{prefix}{SID[n]}.jsonl: 1 unparseable line(s) kept as they are (line 2)"] for n in "ab"}
    assert doc["sessions"] == {"total": 3, "uploaded": 1, "unchanged": 2, "failed": 0}
    assert "warning" not in capsys.readouterr().err
    # run 5: a gets a second corrupt line, a new warning: named again (the whole of it), b counted
    with files["a"].open("a") as f:
        f.write('{"type":"message","id":"e0000002",\n')
    out, err = _plain(env, capsys)
    assert _named(err) == [_warning(SID["a"], "lines 2, 4", 2)], err
    assert err.splitlines()[-2:] == ["archiver: 1 unchanged session(s) keep warnings from earlier runs", HINT], err
    assert first_b not in err
