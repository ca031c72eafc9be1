"""Log records never name a file under the user's home: logs go to collectors unredacted
(docs/SECURITY.md, 'No plaintext reaches logs'). Here: a pi session dir holding another program's
JSONL, skipped without its path in any record, at any level."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from archiver.harnesses.base import HarnessContext, load_harness


def test_a_foreign_jsonl_in_a_pi_session_dir_is_skipped_without_its_path(tmp_path: Path,
                                                                        caplog: pytest.LogCaptureFixture) -> None:
    home = tmp_path / "home" / "wanda"
    flat = home / "pi-sessions"
    flat.mkdir(parents=True)
    (flat / "wanda-notes.jsonl").write_text(json.dumps({"event": "build", "ok": True}) + "\n")
    harness = load_harness("pi", HarnessContext(home=home, env={"PI_CODING_AGENT_SESSION_DIR": str(flat)}))
    with caplog.at_level(logging.DEBUG):
        sessions = list(harness.discover())
    assert sessions == [] or all("wanda-notes" not in s.session_id for s in sessions)
    assert any("not a pi session" in r.getMessage() for r in caplog.records)
    for r in caplog.records:
        assert "wanda" not in r.getMessage(), r.getMessage()
