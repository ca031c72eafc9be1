"""Decompression bomb guards that do not refuse real data: a ratio counts only past a floor
of output (64 MiB), both when sync reads a Codex `.jsonl.zst` rollout
(snapshot.decompress_zst) and when restore or verify reads an object (pack.RATIO_FLOOR). A real,
very repetitive file of a few MB (a tool output of one character: far beyond 1000:1)
is archived and restored with default limits; a bomb still stops early, in bounded memory.
Fixtures follow seeds/by-harness/codex.json and claude-code.json."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import time
import tracemalloc
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
import zstandard

from archiver.archive import Archive
from archiver.cli import main
from archiver.crypto.age import EncryptWriter
from archiver.model import Artifact, Manifest, Session
from archiver.snapshot import SnapshotError, decompress_zst

FOUR_MB = 4 * 1000 * 1000
FLOOR = 64 << 20
TID = "0199dddd-0000-7000-8000-000000000001"
SID = "5e55a1b2-0000-4000-8000-0000000000aa"


def _rle_bomb(total: int) -> bytes:
    """A valid zstd frame of `total` zero bytes in RLE blocks (4 bytes per 128 KiB): ~32000:1,
    built without holding its output."""
    frame = bytearray((0xFD2FB528).to_bytes(4, "little"))
    frame += bytes([0x00, 7 << 3])  # no content size, window 128 KiB
    left = total
    while left:
        n = min(128 * 1024, left)
        left -= n
        frame += ((1 if not left else 0) | (1 << 1) | (n << 3)).to_bytes(3, "little") + b"\x00"
    return bytes(frame)


def _line(obj: Any) -> bytes:
    return json.dumps(obj, separators=(",", ":")).encode() + b"\n"


def _repetitive_rollout() -> bytes:
    meta = {"timestamp": "2026-01-02T03:04:05.678Z", "type": "session_meta",
            "payload": {"id": TID, "timestamp": "2026-01-02T03:04:05.600Z", "cwd": "/srv/app",
                        "originator": "codex_cli_rs", "cli_version": "0.164.0", "model_provider": "openai"}}
    out = {"timestamp": "2026-01-02T03:04:06.000Z", "type": "response_item",
           "payload": {"type": "function_call_output", "call_id": "call_rep1", "output": "=" * FOUR_MB}}
    return _line(meta) + _line(out)


# ---------------------------------------------------------------- sync side: decompress_zst
def test_repetitive_codex_rollout_decompresses_with_default_limits(tmp_path: Path) -> None:
    data = _repetitive_rollout()
    src = tmp_path / f"rollout-2026-01-02T03-04-05-{TID}.jsonl.zst"
    src.write_bytes(zstandard.ZstdCompressor(level=3).compress(data))
    assert len(data) > 1000 * src.stat().st_size  # beyond the ratio limit
    decompress_zst(src, tmp_path / "out")
    assert (tmp_path / "out").read_bytes() == data


def test_zstd_bomb_rollout_stops_past_the_floor_in_bounded_memory(tmp_path: Path) -> None:
    bomb = tmp_path / "rollout.jsonl.zst"
    bomb.write_bytes(_rle_bomb(1 << 30))  # 1 GiB of zeros from 32 KiB: 1000:1 is passed at 32 MB
    tracemalloc.start()
    started = time.monotonic()
    try:
        with pytest.raises(SnapshotError, match=r"rollout\.jsonl\.zst: decompression ratio above 1000"):
            decompress_zst(bomb, tmp_path / "out")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert 1000 * bomb.stat().st_size < FLOOR
    # not refused for its ratio below the floor, stopped right after it (not at 1 GiB)
    assert FLOOR - (1 << 20) <= (tmp_path / "out").stat().st_size <= FLOOR + (1 << 20)
    assert peak < 16 << 20 and time.monotonic() - started < 30


# ---------------------------------------------------------------- end to end: sync, then restore
@pytest.fixture
def setup(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    for var in ("ARCHIVER_CONFIG", "ARCHIVER_TEAM_KEY", "CLAUDE_CONFIG_DIR", "CODEX_HOME", "CURSOR_CONFIG_DIR",
                "CURSOR_DATA_DIR", "PI_CODING_AGENT_DIR", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME",
                "ARCHIVER_IDENTITY_FILE", "OPENCODE_DB", "ARCHIVER_RESTORE_MAX_BYTES", "ARCHIVER_RESTORE_MAX_RATIO"):
        monkeypatch.delenv(var, raising=False)
    home, keys, store = tmp_path / "home", tmp_path / "keys", tmp_path / "store"
    home.mkdir()
    store.mkdir()
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["keygen", "--out", str(keys)]) == 0
    config = tmp_path / "config.toml"
    config.write_text(
        f'home = "{home}"\nhost = "laptop"\n'
        f'[redaction]\nteam_key_file = "{keys / "team.key"}"\nusernames = ["alice"]\n'
        f'[encryption]\nrecipients_file = "{keys / "recipient.txt"}"\n'
        f'[store]\nurl = "file://{store}"\n[state]\ndir = "{tmp_path / "state"}"\n'
        + "".join(f"[harnesses.{h}]\nenabled = {'true' if h in ('codex', 'claude-code') else 'false'}\n"
                  for h in ("claude-code", "codex", "cursor-agent", "opencode", "pi", "deepseek-harness")))
    return {"base": tmp_path, "home": home, "keys": keys, "config": config}


def _cli(s: dict[str, Path], *args: str) -> tuple[int, dict[str, Any]]:
    argv = [args[0], "--config", str(s["config"]), *args[1:], "--json"]
    if args[0] in ("restore", "ls"):
        argv += ["--identity", str(s["keys"] / "identity.txt")]
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        code = main(argv)
    return code, json.loads(buf.getvalue())


def test_repetitive_rollout_and_sidecar_archive_and_restore_with_default_limits(setup: dict[str, Path]) -> None:
    home = setup["home"]
    rollout = _repetitive_rollout()
    d = home / ".codex" / "sessions" / "2026" / "01" / "02"
    d.mkdir(parents=True)
    (d / f"rollout-2026-01-02T03-04-05-{TID}.jsonl.zst").write_bytes(zstandard.ZstdCompressor(level=3).compress(rollout))
    project = home / ".claude" / "projects" / "-srv-app"
    (project / SID / "tool-results").mkdir(parents=True)
    rec = {"type": "user", "sessionId": SID, "uuid": "11111111-2222-4333-8444-555555555555",
           "timestamp": "2026-01-01T00:00:00Z", "cwd": "/srv/app", "message": {"role": "user", "content": "hi"}}
    (project / f"{SID}.jsonl").write_bytes(_line(rec))
    sidecar = b"a" * FOUR_MB  # a tool output of one character: ~20000:1 compressed
    (project / SID / "tool-results" / "out-1.txt").write_bytes(sidecar)

    code, out = _cli(setup, "sync", "--workers", "1")
    assert (code, out["sessions"]["failed"], out["errors"]) == (0, 0, [])
    assert out["sessions"]["total"] == 2  # the Codex thread, the Claude session

    target = setup["base"] / "restored"
    code, got = _cli(setup, "restore", "--all", "--to", str(target))
    assert (code, got["integrity_errors"], got["refused"]) == (0, [], [])
    assert (target / ".claude/projects/-srv-app" / SID / "tool-results/out-1.txt").read_bytes() == sidecar
    restored = target / f".codex/sessions/2026/01/02/rollout-2026-01-02T03-04-05-{TID}.jsonl.zst"
    assert zstandard.ZstdDecompressor().decompressobj().decompress(restored.read_bytes()) == rollout


def test_bomb_object_stops_past_the_floor_in_bounded_memory_a_repetitive_file_restores(setup: dict[str, Path],
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    from archiver import runtime
    from archiver.config import load_settings

    settings = load_settings(setup["config"])
    recipients = runtime.recipients(settings)
    archive = Archive(runtime.store(settings))
    archive.ensure_marker()
    size = 2 << 30  # 2 GiB of zeros; the manifest tells the truth about the size
    stored = io.BytesIO()
    with EncryptWriter(stored, recipients) as w:
        w.write(_rle_bomb(size))
    oid = "b" * 64
    archive.store.put_bytes(f"objects/{oid[:2]}/{oid}", stored.getvalue())
    fine = b"a" * FOUR_MB  # a genuine, repetitive file next to the bomb
    fine_oid = "f" * 64
    fine_blob = io.BytesIO()
    with EncryptWriter(fine_blob, recipients) as w:
        w.write(zstandard.ZstdCompressor().compress(fine))
    archive.store.put_bytes(f"objects/{fine_oid[:2]}/{fine_oid}", fine_blob.getvalue())
    now = datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    arts = {"bomb": Artifact(path=".claude/projects/k/bomb.jsonl", role="transcript", format="jsonl", size=size,
                             sha256="0" * 64, objects=[oid]),
            "fine": Artifact(path=".claude/projects/k/fine.jsonl", role="transcript", format="jsonl", size=len(fine),
                             sha256=hashlib.sha256(fine).hexdigest(), objects=[fine_oid])}
    archive.put_manifest(Manifest(host_id="0123456789abcdef", created_at=now, run_id="r" * 16, tool_version="0.1.0",
                                  sessions=[Session(key=f"claude-code:{k}", harness="claude-code", session_id=k,
                                                    artifacts=[a], host_id="0123456789abcdef")
                                            for k, a in arts.items()]), recipients)

    written: list[int] = []
    real = Archive.read_object

    def spy(self: Archive, object_id: str, dst: Path, *a: Any, **k: Any) -> int:
        try:
            return real(self, object_id, dst, *a, **k)
        finally:
            written.append(dst.stat().st_size)

    monkeypatch.setattr(Archive, "read_object", spy)
    target = setup["base"] / "restored"
    tracemalloc.start()
    started = time.monotonic()
    try:
        code, got = _cli(setup, "restore", "--all", "--to", str(target))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert code == 3
    [err] = got["integrity_errors"]
    assert "bomb.jsonl" in err and "ratio exceeds 1000" in err and "ARCHIVER_RESTORE_MAX_RATIO" in err
    assert not (target / ".claude/projects/k/bomb.jsonl").exists()
    assert (target / ".claude/projects/k/fine.jsonl").read_bytes() == fine
    assert max(written) <= FLOOR + (1 << 20)  # stopped just past the floor, not at the 2 GiB it claims
    assert peak < 32 << 20 and time.monotonic() - started < 60
