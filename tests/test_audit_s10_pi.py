"""s10 collector audit, pi: a custom flat session dir (settings.json sessionDir) is "filtered by
header cwd" (seed layout), so only files with a session header are pi's; another program's
JSONL kept there is not archived as a pi session."""

from __future__ import annotations

import json
from pathlib import Path

from archiver.harnesses.base import HarnessContext, load_harness
from tests.fx_home import USER, _line

SID = "0189dddd-0000-7000-8000-000000000001"
CWD = f"/home/{USER}/work/app"


def test_custom_session_dir_skips_foreign_jsonl_keeps_sessions_being_started(tmp_path: Path) -> None:
    custom = tmp_path / "shared-logs"
    custom.mkdir()
    agent = tmp_path / ".pi" / "agent"
    agent.mkdir(parents=True)
    (agent / "settings.json").write_text(json.dumps({"sessionDir": str(custom)}))
    header = {"type": "session", "version": 3, "id": SID, "timestamp": "2026-01-03T10:00:00.000Z", "cwd": CWD}
    (custom / f"2026-01-03T10-00-00-000Z_{SID}.jsonl").write_text(_line(header))
    (custom / "events.jsonl").write_text(_line({"event": "deploy", "user": USER}))  # another program's
    (custom / "2026-01-04T10-00-00-000Z_0189dddd-0000-7000-8000-000000000002.jsonl").write_text("")  # being started
    (custom / "2026-01-05T10-00-00-000Z_0189dddd-0000-7000-8000-000000000003.jsonl").write_text('{"type":"sess')
    found = {s.key: s for s in load_harness("pi", HarnessContext(home=tmp_path, env={})).discover()}
    assert sorted(found) == [f"pi:{SID}", "pi:0189dddd-0000-7000-8000-000000000002",
                             "pi:0189dddd-0000-7000-8000-000000000003"]
    folder = "--" + CWD.lstrip("/").replace("/", "-") + "--"
    assert [s.path for s in found[f"pi:{SID}"].sources] == [
        f".pi/agent/sessions/{folder}/2026-01-03T10-00-00-000Z_{SID}.jsonl"]
    assert found["pi:0189dddd-0000-7000-8000-000000000002"].warnings == [
        "2026-01-04T10-00-00-000Z_0189dddd-0000-7000-8000-000000000002.jsonl: first line is not a session header; "
        "id taken from the file name"]
