"""Day-2 kit: one generated home of every harness, archived by many scheduled (hourly) syncs
against a file:// store or moto's S3 server, with the home changed between runs as the seeds
say the harnesses change it. No tests here.

The clock: manifests are dated by `archiver.sync._now`, which the kit replaces by a fake clock
that advances one hour per run (so `restore --at` and prune's keep policy see hourly runs).
Neutral sessions (no home path, user name, e-mail or secret: nothing to redact) are written here
from the seeds' layouts, so their restored bytes must equal the bytes on disk; the demo samples
(archiver/demo/*_sample.py) bring every harness's other shapes.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import sqlite3
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
import zstandard

from archiver.archive import iso_utc
from archiver.cli import main
from archiver.demo.codex_sample import _line, _meta, _rollout_name, _turn
from archiver.demo.pi_sample import _file_name, _jl, _msg, cwd_dir
from archiver.demo.run import make_sample_home

USER = "alice"
HARNESSES = ("claude-code", "codex", "cursor-agent", "opencode", "pi", "deepseek-harness")
CWD = "/srv/day2"  # a working folder outside the home: nothing in the neutral sessions to redact


@dataclass
class World:
    base: Path
    home: Path
    store_url: str
    store_extra: str = ""
    bucket: str = ""  # S3 only: the bucket and moto's endpoint
    endpoint: str = ""
    clock: datetime = field(default_factory=lambda: datetime.now(timezone.utc).replace(minute=0, second=0, microsecond=0)
                            - timedelta(hours=30))
    keep_open: list[sqlite3.Connection] = field(default_factory=list)
    runs: list[dict[str, Any]] = field(default_factory=list)

    @property
    def config(self) -> Path:
        return self.base / "config.toml"

    @property
    def identity(self) -> Path:
        return self.base / "keys" / "identity.txt"

    @property
    def metrics(self) -> Path:
        return self.base / "metrics" / "archiver.prom"

    def write_config(self) -> None:
        keys = self.base / "keys"
        self.config.write_text(
            f'home = "{self.home}"\nhost = "laptop-of-{USER}"\n'
            f'[redaction]\nteam_key_file = "{keys / "team.key"}"\nusernames = ["{USER}"]\n'
            f'[encryption]\nrecipients_file = "{keys / "recipient.txt"}"\n'
            f'[store]\nurl = "{self.store_url}"\n{self.store_extra}'
            f'[state]\ndir = "{self.base / "state"}"\n')

    def cli(self, *args: str, identity: bool = False, expect: int | None = 0) -> Any:
        """The CLI in process, `--json`, its exit code checked against `expect` and returned
        in the document as `_exit`."""
        argv = [args[0], "--config", str(self.config), *args[1:], "--json"]
        if identity:
            argv += ["--identity", str(self.identity)]
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            code = main(argv)
        doc = json.loads(buf.getvalue())
        if expect is not None:
            assert code == expect, (argv[0], code, json.dumps(doc)[:3000])
        if isinstance(doc, dict):
            doc["_exit"] = code
        return doc

    def sync(self, monkeypatch: pytest.MonkeyPatch, expect: int = 0) -> dict[str, Any]:
        """One scheduled run, an hour after the last one."""
        import archiver.sync

        self.clock += timedelta(hours=1)
        now = self.clock
        monkeypatch.setattr(archiver.sync, "_now", lambda: iso_utc(now))
        self.metrics.parent.mkdir(exist_ok=True)
        out = self.cli("sync", "--workers", "1", "--metrics-file", str(self.metrics), expect=expect)
        out["_clock"] = iso_utc(now)
        self.runs.append(out)
        return out  # type: ignore[no-any-return]

    def ls(self, *extra: str) -> dict[str, dict[str, Any]]:
        return {s["key"]: s for s in self.cli("ls", *extra, identity=True)["sessions"]}

    def restore(self, to: Path, *keys: str, at: str | None = None) -> dict[str, Any]:
        args = ["restore", "--to", str(to), *(["--at", at] if at else []), *(keys or ["--all"])]
        return self.cli(*args, identity=True)  # type: ignore[no-any-return]


def make_world(base: Path, store_url: str, store_extra: str = "") -> World:
    w = World(base=base, home=base / "home", store_url=store_url, store_extra=store_extra)
    w.home.mkdir()
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["keygen", "--out", str(base / "keys")]) == 0
    w.write_config()
    info = make_sample_home(w.home, USER)
    for h in ("cursor-agent", "opencode"):  # the harness is running: its WAL databases stay live
        w.keep_open += info[h].get("connections", [])
    return w


# ---------------------------------------------------------------- neutral sessions (seeds' layouts)
def _uuid(tag: str) -> str:
    return str(uuid.UUID(hashlib.sha256(tag.encode()).hexdigest()[:32], version=4))


def _jline(rec: dict[str, Any]) -> bytes:
    return json.dumps(rec, separators=(",", ":")).encode() + b"\n"


class Claude:
    """A Claude Code session in ~/.claude/projects/<project-key>/<id>.jsonl: append-only JSONL."""

    def __init__(self, home: Path, tag: str) -> None:
        self.sid = _uuid(tag)
        self.dir = home / ".claude" / "projects" / CWD.replace("/", "-")
        self.path = self.dir / f"{self.sid}.jsonl"
        self.last: str | None = None
        self.n = 0

    @property
    def key(self) -> str:
        return f"claude-code:{self.sid}"

    def record(self, type_: str, text: str, sidechain: bool = False, agent: str | None = None) -> bytes:
        self.n += 1
        u = _uuid(f"{self.sid}/{agent}/{self.n}")
        rec: dict[str, Any] = {"parentUuid": self.last, "isSidechain": sidechain, "userType": "external", "cwd": CWD,
                               "sessionId": self.sid, "version": "2.1.90", "gitBranch": "main",
                               "timestamp": f"2026-11-20T10:{self.n // 60 % 60:02d}:{self.n % 60:02d}.000Z",
                               "uuid": u, "type": type_}
        if agent:
            rec["agentId"] = agent
        rec["message"] = ({"role": "user", "content": text} if type_ == "user" else
                          {"role": "assistant", "model": "example-model", "type": "message",
                           "content": [{"type": "text", "text": text}]})
        self.last = u
        return _jline(rec)

    def append(self, text: str, torn: bool = False) -> None:
        """A user turn and its answer; `torn`: the answer's line is cut short (no newline yet)."""
        self.dir.mkdir(parents=True, exist_ok=True)
        answer = self.record("assistant", f"answer to {text}")
        with self.path.open("ab") as f:
            f.write(self.record("user", text) + (answer[: len(answer) // 2] if torn else answer))
        self.pending = answer[len(answer) // 2:] if torn else b""

    def complete(self) -> None:
        """The writer finishes the torn line."""
        with self.path.open("ab") as f:
            f.write(self.pending)
        self.pending = b""

    def subagent(self, agent: str) -> Path:
        """A subagent transcript: <id>/subagents/agent-<agent-id>.jsonl (isSidechain, agentId set)."""
        p = self.dir / self.sid / "subagents" / f"agent-{agent}.jsonl"
        p.parent.mkdir(parents=True, exist_ok=True)
        saved = self.last
        self.last = None
        p.write_bytes(self.record("user", "explore the tests", True, agent)
                      + self.record("assistant", "found three", True, agent))
        self.last = saved
        return p

    def cleanup(self, days: int = 30) -> None:
        """cleanupPeriodDays: the transcript is older than the period, so Claude Code deletes it."""
        old = self.path.stat().st_mtime - (days + 1) * 86400
        os.utime(self.path, (old, old))
        self.path.unlink()


class Codex:
    """A Codex rollout sessions/YYYY/MM/DD/rollout-<ts>-<tid>.jsonl; idle, compressed to
    .jsonl.zst and moved to archived_sessions/."""

    def __init__(self, home: Path, tag: str) -> None:
        self.tid = "0199d2d2-" + _uuid(tag)[9:]
        self.root = home / ".codex"
        self.name = _rollout_name("2026-11-20T10-00-00", self.tid)
        self.path = self.root / "sessions" / "2026" / "11" / "20" / self.name
        self.turns = 0

    @property
    def key(self) -> str:
        return f"codex:{self.tid}"

    def start(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_bytes(_line("2026-11-20T10:00:00.000Z", "session_meta", _meta(self.tid, "2026-11-20T10:00:00.000Z", CWD)))
        self.turn("first")

    def turn(self, text: str) -> None:
        self.turns += 1
        lines = _turn(self.tid, f"turn-{self.turns}", "2026-11-20T10:00:01.000Z", self.turns * 10, text,
                      f"done: {text}", CWD)
        with self.path.open("ab") as f:
            f.write(b"".join(lines))

    def revert(self, rid: str) -> Path:
        """A revert writes a new rollout for the thread: rollout-<ts>-<tid>_<revert-id>.jsonl."""
        p = self.path.parent / _rollout_name("2026-11-20T11-00-00", self.tid, rid)
        p.write_bytes(self.plain().split(b"\n", 1)[0] + b"\n" + b"".join(
            _turn(self.tid, "turn-r", "2026-11-20T11:00:01.000Z", 900, "again, differently", "redone", CWD)))
        return p

    def archive_idle(self) -> Path:
        """After 7 idle days: compressed to .jsonl.zst and moved to archived_sessions/."""
        dst = self.root / "archived_sessions" / (self.name + ".zst")
        dst.parent.mkdir(parents=True, exist_ok=True)
        dst.write_bytes(zstandard.ZstdCompressor().compress(self.path.read_bytes()))
        self.path.unlink()
        self.path = dst
        return dst

    def plain(self) -> bytes:
        data = self.path.read_bytes()
        return zstandard.ZstdDecompressor().decompressobj().decompress(data) if self.path.name.endswith(".zst") else data


class Pi:
    """A pi session file sessions/--<cwd>--/<ts>_<id>.jsonl; opening an old version rewrites it
    in place with the current version."""

    def __init__(self, home: Path, tag: str) -> None:
        self.sid = _uuid(tag)
        self.path = home / ".pi" / "agent" / "sessions" / cwd_dir(CWD) / _file_name("2026-11-20T10:00:00.000Z", self.sid)

    @property
    def key(self) -> str:
        return f"pi:{self.sid}"

    def write(self, version: int) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        recs = [{"type": "session", "version": version, "id": self.sid, "timestamp": "2026-11-20T10:00:00.000Z", "cwd": CWD},
                _msg("00000001", None, "2026-11-20T10:00:01.000Z",
                     {"role": "user", "content": [{"type": "text", "text": "tidy the readme"}], "timestamp": 1795169601000}),
                _msg("00000002", "00000001", "2026-11-20T10:00:02.000Z",
                     {"role": "assistant", "content": [{"type": "text", "text": "tidied"}], "api": "anthropic-messages",
                      "provider": "anthropic", "model": "example-model", "stopReason": "stop", "timestamp": 1795169602000})]
        if version < 3:  # the v1/v2 shape: hook messages (migrated to role "custom" in v3)
            recs.append(_msg("00000003", "00000002", "2026-11-20T10:00:03.000Z",
                             {"role": "hookMessage", "content": "lint ok", "timestamp": 1795169603000}))
        else:
            recs.append(_msg("00000003", "00000002", "2026-11-20T10:00:03.000Z",
                             {"role": "custom", "customType": "hook", "content": "lint ok", "display": True,
                              "timestamp": 1795169603000}))
        self.path.write_bytes(_jl(recs))


# ---------------------------------------------------------------- SQLite stores (WAL live)
def live(w: World, db: Path) -> sqlite3.Connection:
    """A connection the "harness" keeps open: its commits stay in the -wal until the test ends."""
    con = sqlite3.connect(str(db), isolation_level=None)
    con.execute("PRAGMA journal_mode=WAL")
    w.keep_open.append(con)
    return con


def wal_frames(db: Path) -> int:
    wal = db.with_name(db.name + "-wal")
    return wal.stat().st_size if wal.exists() else 0


# ---------------------------------------------------------------- reading a restored tree
def tree(root: Path) -> dict[str, bytes]:
    return {f.relative_to(root).as_posix(): f.read_bytes() for f in sorted(root.rglob("*")) if f.is_file()}


def unzst(data: bytes) -> bytes:
    return zstandard.ZstdDecompressor().decompressobj().decompress(data)


def prom(path: Path) -> dict[str, float]:
    """The metrics file's samples, `name{labels}` -> value."""
    from archiver.metrics import parse

    return {name + (json.dumps(labels, sort_keys=True) if labels else ""): v for name, labels, v in parse(path.read_text())}
