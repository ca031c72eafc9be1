"""A `.jsonl.zst` rollout may hold several zstd frames (a writer that flushes a frame per
batch; `cat a.zst b.zst`). Every reader of such a file reads all of them: the collector's
stream, the export's record reader and the raw check ask for it (`read_across_frames=True`)
rather than rely on how a zstandard release reads past a frame's end."""
from __future__ import annotations

import json
from pathlib import Path

import zstandard

from archiver.harnesses.codex import _open_stream
from archiver.render.jsonl import records


def _three_frames(path: Path) -> list[dict[str, object]]:
    recs = [{"type": "session_meta", "payload": {"id": "t1"}}] + [
        {"type": "response_item", "payload": {"n": i, "text": f"line {i}"}} for i in range(1, 7)]
    lines = [json.dumps(r).encode() + b"\n" for r in recs]
    c = zstandard.ZstdCompressor()
    path.write_bytes(b"".join(c.compress(b"".join(lines[i:i + 3])) for i in (0, 3, 6)))
    return recs


def test_the_collector_stream_reads_every_frame(tmp_path: Path) -> None:
    f = tmp_path / "rollout-2026-01-02T03-04-05-t1.jsonl.zst"
    recs = _three_frames(f)
    with _open_stream(f) as s:
        got = [json.loads(line) for line in s.read().splitlines()]
    assert got == recs


def test_the_export_reads_every_frame(tmp_path: Path) -> None:
    f = tmp_path / "rollout.jsonl.zst"
    recs = _three_frames(f)
    assert list(records(f)) == recs
