"""A long transcript of an older Claude Code build keeps its legacy `summary` title.

Older builds wrote `{"type":"summary","summary","leafUuid"}` at the top of the file (seed
claude-code.json, record `summary`: the pre-compact_boundary era), while current ones re-append
their title records to the tail. A transcript longer than the tail window with only a head
summary used to get no title at all."""

from __future__ import annotations

import json
from pathlib import Path

from archiver.harnesses.claude_code import ClaudeCode
from tests.fx_s19_versions import Plain, cc_envelope, cc_old_session

SID = "0a0a0a0a-1111-4111-8111-000000000001"
CWD = "/home/user/proj"


def _write(path: Path, recs: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    return path


def _long_tail(n: int) -> list[dict]:
    """n ordinary user lines of ~1 KB after the head: the summary ends far before the tail window."""
    return [{**cc_envelope(SID, CWD, "1.0.51", f"0a0a0a0a-2222-4222-8222-{i:012d}", None, type="user"),
             "message": {"role": "user", "content": "x" * 1000}} for i in range(n)]


def test_head_summary_is_the_title_of_a_long_legacy_transcript(tmp_path: Path) -> None:
    recs = cc_old_session(Plain(), SID, CWD, "1.0.51", "old") + _long_tail(400)
    f = _write(tmp_path / f"{SID}.jsonl", recs)
    assert f.stat().st_size > 300 * 1024
    assert ClaudeCode.transcript_facts(f)["title"] == "Summary of old"


def test_a_tail_title_still_wins_over_a_head_summary(tmp_path: Path) -> None:
    recs = cc_old_session(Plain(), SID, CWD, "1.0.51", "old") + _long_tail(400)
    recs.append({"type": "ai-title", "aiTitle": "Tail title", "sessionId": SID})
    f = _write(tmp_path / f"{SID}.jsonl", recs)
    assert ClaudeCode.transcript_facts(f)["title"] == "Tail title"


def test_an_empty_custom_title_falls_back_to_the_summary(tmp_path: Path) -> None:
    recs = cc_old_session(Plain(), SID, CWD, "1.0.51", "old") + _long_tail(10)
    recs.append({"type": "custom-title", "customTitle": "", "sessionId": SID})
    f = _write(tmp_path / f"{SID}.jsonl", recs)
    # a cleared custom title shows what it had hidden
    assert ClaudeCode.transcript_facts(f)["title"] == "Summary of old"
