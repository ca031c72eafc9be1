"""Session 33: a restore warns when Claude Code would delete what it restored.

Claude Code deletes transcripts (`projects/**/*.jsonl`) last written longer ago than
`cleanupPeriodDays` of its settings.json (default 30) when it starts (DESIGN.md: "Claude Code
prunes after 30 days"), and restore gives each file its archived mtime. So a session archived
from a transcript last written 40 days ago, restored into a home whose settings keep the default,
is deleted the next time the reviewer starts Claude Code there: the restore says so, once, naming
how many sessions and where to raise the setting. A target keeping transcripts longer, or a
recent transcript, gets no such warning.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from tests.fx_home import USER, Box, _line, box  # noqa: F401

OLD_SID = "0b0e5f4e-1111-4222-8333-444455556601"
NEW_SID = "0b0e5f4e-1111-4222-8333-444455556602"
DAY = 86400


def _transcript(path: Path, sid: str, age_days: float) -> None:
    cwd = f"/home/{USER}/app"
    recs: list[dict[str, Any]] = [
        {"parentUuid": None, "isSidechain": False, "userType": "external", "cwd": cwd, "sessionId": sid,
         "version": "2.1.310", "gitBranch": "main", "type": "user", "uuid": f"{sid[:-4]}aaaa",
         "timestamp": "2026-10-20T10:00:00.000Z", "message": {"role": "user", "content": "hello"}},
    ]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(_line(r) for r in recs))
    stamp = time.time() - age_days * DAY
    os.utime(path, (stamp, stamp))


def _build(box: Box) -> None:
    folder = box.home / ".claude" / "projects" / f"-home-{USER}-app"
    _transcript(folder / f"{OLD_SID}.jsonl", OLD_SID, 40)
    _transcript(folder / f"{NEW_SID}.jsonl", NEW_SID, 2)


def _cleanup_warnings(out: dict[str, Any]) -> list[str]:
    return [w for w in out["warnings"] if "cleanupPeriodDays" in w]


def test_old_transcripts_restored_into_a_default_home_are_flagged(box: Box) -> None:
    box.only("claude-code")
    _build(box)
    sync = box.sync()
    assert sync["sessions"]["failed"] == 0
    to = box.base / "review"
    out = box.cli("restore", "--all", "--to", str(to))
    assert out["refused"] == []
    assert _cleanup_warnings(out) == [
        "1 Claude Code session(s) restored with transcripts last written over 30 days ago (cleanupPeriodDays): "
        "Claude Code deletes them when it starts; raise cleanupPeriodDays in .claude/settings.json under the "
        f"restore's target first (first: claude-code:{OLD_SID})"]
    [old] = [f for f in out["files"] if f.endswith(f"{OLD_SID}.jsonl")]
    assert (to / old).stat().st_mtime < time.time() - 39 * DAY  # the archived mtime, as the warning says


def test_target_settings_decide(box: Box) -> None:
    box.only("claude-code")
    _build(box)
    box.sync()
    for value, want in ((99999, 0), (7, 1), ("thirty", 1), (0, 0)):
        to = box.base / f"review-{value}"
        (to / ".claude").mkdir(parents=True)
        (to / ".claude" / "settings.json").write_text(json.dumps({"cleanupPeriodDays": value}))
        out = box.cli("restore", "--all", "--to", str(to))
        warnings = _cleanup_warnings(out)
        assert len(warnings) == want, (value, warnings)
    # 7 days: the 40-day-old one only; with 1 day, both
    to = box.base / "review-1"
    (to / ".claude").mkdir(parents=True)
    (to / ".claude" / "settings.json").write_text('{"cleanupPeriodDays": 1}')
    out = box.cli("restore", "--all", "--to", str(to))
    [w] = _cleanup_warnings(out)
    assert w.startswith("2 Claude Code session(s) restored with transcripts last written over 1 day ago")


def test_recent_session_alone_gets_no_warning(box: Box) -> None:
    box.only("claude-code")
    _build(box)
    box.sync()
    out = box.cli("restore", f"claude-code:{NEW_SID}", "--to", str(box.base / "review"))
    assert out["refused"] == [] and _cleanup_warnings(out) == []
