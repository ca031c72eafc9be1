"""s10 collector audit, Codex and pi: a final line still being written in a file the collector
snapshots whole (a legacy Codex rollout, seed versioning: no history_mode; a pi file of an
older version) is left out until complete, as in append mode (FORMAT §6 invariant 5; seed
container: "appended as the session runs"; Codex linking: a torn line is the writer's)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.fx_home import USER, Box, _line, box  # noqa: F401

TID = "0199cccc-0000-7000-8000-000000000001"
PID = "0189cccc-0000-7000-8000-000000000001"


def test_whole_mode_jsonl_leaves_out_a_torn_last_line(box: Box) -> None:  # noqa: F811
    box.only("codex", "pi")
    day = box.home / ".codex" / "sessions" / "2026" / "02" / "03"
    day.mkdir(parents=True)
    meta = {"timestamp": "2026-02-03T05:00:00.000Z", "type": "session_meta",
            "payload": {"id": TID, "session_id": TID, "timestamp": "2026-02-03T05:00:00.000Z", "cwd": "/srv/app",
                        "originator": "codex_cli_rs", "cli_version": "0.30.0", "model_provider": "openai"}}
    item = {"timestamp": "2026-02-03T05:00:01.000Z", "type": "response_item",
            "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "legacy"}]}}
    complete = _line(meta) + _line(item)
    rollout = day / f"rollout-2026-02-03T05-00-00-{TID}.jsonl"
    rollout.write_text(complete + '{"timestamp":"2026-02-03T05:00:02.000Z","type":"resp')
    pi_dir = box.home / ".pi" / "agent" / "sessions" / "--srv-app--"
    pi_dir.mkdir(parents=True)
    pi_complete = _line({"type": "session", "version": 2, "id": PID, "timestamp": "2026-03-02T10:00:00.000Z",
                         "cwd": "/srv/app"})
    pi_file = pi_dir / f"2026-03-02T10-00-00-000Z_{PID}.jsonl"
    pi_file.write_text(pi_complete + '{"type":"message","id":"bb00')

    box.sync()
    sessions = box.ls()
    codex_art = next(a for a in sessions[f"codex:{TID}"]["artifacts"] if a["role"] == "transcript")
    pi_art = next(a for a in sessions[f"pi:{PID}"]["artifacts"] if a["role"] == "transcript")
    assert codex_art["size"] == len(complete.encode())
    assert pi_art["size"] == len(pi_complete.encode())
    out = box.base / "out"
    box.cli("restore", f"codex:{TID}", f"pi:{PID}", "--to", str(out))
    assert (out / ".codex/sessions/2026/02/03" / rollout.name).read_bytes() == complete.encode()
    assert (out / ".pi/agent/sessions/--srv-app--" / pi_file.name).read_bytes() == pi_complete.encode()

    # the line completes (and the writer goes on): the next run archives it
    rollout.write_text(complete + _line({**item, "timestamp": "2026-02-03T05:00:02.000Z"}))
    box.sync()
    codex_art = next(a for a in box.ls()[f"codex:{TID}"]["artifacts"] if a["role"] == "transcript")
    assert codex_art["size"] == rollout.stat().st_size
    lines = [json.loads(x) for x in rollout.read_bytes().splitlines()]
    assert len(lines) == 3 and USER not in rollout.read_text()


def test_whole_mode_jsonl_keeps_a_complete_last_line_without_newline(tmp_path: Path) -> None:
    """A writer that rewrites its JSONL whole may end the last (complete) line without a newline
    (the seed does not say Cursor's mirror ends in one): that line is archived, not held back."""
    from archiver.snapshot import whole_jsonl_length

    complete = b'{"role":"user","message":{"content":[]}}\n{"role":"assistant","message":{"content":[]}}'
    f = tmp_path / "mirror.jsonl"
    f.write_bytes(complete)
    assert whole_jsonl_length(f) == len(complete)
    f.write_bytes(complete + b'\n{"role":"assist')
    assert whole_jsonl_length(f) == len(complete) + 1
    f.write_bytes(complete + b"\n")
    assert whole_jsonl_length(f) == len(complete) + 1
    f.write_bytes(b'{"torn": tr')
    assert whole_jsonl_length(f) == 0
    f.write_bytes(b"")
    assert whole_jsonl_length(f) == 0
