#!/usr/bin/env python3
"""OpenCode at scale: discovery (fingerprints) and extracts must grow with the rows, not sessions x rows.

    python bench/opencode_scale.py                 # N = 2,000 sessions (and N/4 = 500 for the ratio)
    python bench/opencode_scale.py --sessions 4000 --messages 20
    python bench/opencode_scale.py --skip-sync     # discovery and extraction only
    python bench/opencode_scale.py --digests OUT.json   # also write every session's fingerprint and
                                                        # extract sha256 (compare two builds with diff)

Generates, with the OpenCode fixture's schema and row writers (archiver/demo/opencode_sample.py,
which follows seeds/by-harness/opencode.json), a WAL-mode opencode.db of an upgraded install with
N sessions, each with rows in every session-keyed table: session_v2, session_message (user /
assistant-with-tool / assistant rows, --messages of them), session_inbox, session_pending,
instruction_entry / instruction_state (+ shared instruction_blob bodies), event (by aggregate_id)
and event_sequence, and 1.x leftovers (session, message, part, todo) for every other session.

Times, for N/4 and N: discovery (`OpenCode(...).discover()`, cold cache: the snapshot and every
session's fingerprint) and the extraction of every session (extract_session from one snapshot),
and prints the N : N/4 ratio of CPU seconds (the machine may be shared; linear work gives ~4x; per-session table scans gave ~16x). Then one
`archiver sync` of the N home to a file:// store, cold, and again after one session changed.
Scratch goes to a 0700 temp dir (--work to keep it), removed at the end.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from archiver.demo.opencode_sample import P1, P2, T0, Db, _assistant, _j  # noqa: E402
from archiver.harnesses import opencode  # noqa: E402
from archiver.harnesses.base import HarnessContext  # noqa: E402

WORDS = ("login", "config", "handler", "retry", "cache", "schema", "parser", "token", "route", "build",
         "test", "deploy", "query", "index", "layout", "render", "session", "worker", "limit", "stream")


def _text(r: random.Random, n: int) -> str:
    return " ".join(r.choice(WORDS) for _ in range(n))


def session_id(i: int) -> str:
    return f"ses_{i:012x}" + "Ab" * 7


def make_db(root: Path, sessions: int, messages: int, seed: int = 7) -> Path:
    """A WAL opencode.db under `root` (the data dir) with `sessions` sessions; returns its path."""
    r = random.Random(seed)
    db = Db(root / "opencode.db")
    c = db.conn
    dirs = {P1: "/home/alice/work/app", P2: "/home/alice/src/api"}
    db.project(P1, dirs[P1])
    db.project(P2, dirs[P2])
    c.execute("INSERT INTO kv VALUES ('migration.v1-v2', ?, ?, ?)", (_j({"done": True}), T0, T0))
    blobs = [hashlib.sha256(f"rule {k}".encode()).hexdigest() for k in range(8)]
    for k, h in enumerate(blobs):
        c.execute("INSERT INTO instruction_blob VALUES (?, ?)", (h, _j(f"rule {k}: {_text(r, 30)}")))
    for i in range(sessions):
        c.execute("BEGIN")
        _session(c, db, r, i, messages, dirs, blobs)
        c.execute("COMMIT")
    c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    c.close()
    return root / "opencode.db"


def _session(c: Any, db: Db, r: random.Random, i: int, messages: int, dirs: dict[str, str],
             blobs: list[str]) -> None:
    sid = session_id(i)
    project = P1 if i % 2 else P2
    t = T0 + i * 60_000
    parent = session_id(i - 1) if i % 10 == 9 else None
    db.session(sid, project, dirs[project], _text(r, 5), t, parent_id=parent)
    for seq in range(1, messages + 1):
        mid = f"msg_{i:08x}{seq:06d}" + "Cd" * 6
        now = t + seq * 1000
        if seq % 3 == 1:
            typ, data = "user", {"text": _text(r, 40), "time": {"created": now}}
        elif seq % 3 == 2:
            typ = "assistant"
            data = _assistant("", now, content=[
                {"type": "reasoning", "text": _text(r, 30), "time": {"created": now, "completed": now + 300}},
                {"type": "tool", "id": f"call_{i:06x}{seq:04d}", "name": "read", "executed": True,
                 "state": {"status": "completed", "input": {"path": f"{dirs[project]}/src/{r.choice(WORDS)}.py"},
                           "content": [{"type": "text", "text": _text(r, 120)}], "metadata": {}},
                 "time": {"created": now, "ran": now + 100, "completed": now + 200}}])
        else:
            typ, data = "assistant", _assistant(_text(r, 60), now)
        db.msg(mid, sid, typ, seq, data)
        if seq <= 4:  # persisted events of the session aggregate (a host with events.persist)
            c.execute("INSERT INTO event VALUES (?, ?, ?, ?, ?, ?)",
                      (f"evt_{i:08x}{seq:04d}", sid, seq, now, "session.message", _j({"seq": seq, "type": typ})))
    c.execute("INSERT INTO event_sequence VALUES (?, ?, NULL)", (sid, messages))
    for k in range(2):
        c.execute("INSERT INTO session_inbox VALUES (?, ?, 'user', ?, 'queue', ?, ?)",
                  (f"inb_{i:08x}{k}", sid, _j({"text": _text(r, 12)}), messages, t + 500 + k))
    c.execute("INSERT INTO session_pending VALUES (?, ?, ?)", (f"pnd_{i:08x}", sid, _j({"text": _text(r, 8)})))
    h = r.sample(blobs, 2)
    c.execute("INSERT INTO instruction_state VALUES (?, 0, ?, ?, ?)",
              (sid, messages, _j({"agents.md": h[0]}), _j({"agents.md": h[0], "style.md": h[1]})))
    for k in range(2):
        c.execute("INSERT INTO instruction_entry VALUES (?, ?, ?, 0)", (sid, f"key{k}", _j(_text(r, 4))))
    if i % 2 == 0:  # 1.x leftovers of an upgraded install
        c.execute("INSERT INTO session VALUES (?, ?, ?, 'quiet-river', ?, ?, '1.4.0', ?, ?)",
                  (sid, project, parent, dirs[project], _text(r, 5), t, t))
        for k in range(3):
            c.execute("INSERT INTO message VALUES (?, ?, ?, ?, ?)", (f"msg_l{i:08x}{k}", sid, t, t, _j(
                {"role": "user" if k % 2 == 0 else "assistant", "text": _text(r, 30), "time": {"created": t, "completed": t}})))
            c.execute("INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)",
                      (f"prt_l{i:08x}{k}", f"msg_l{i:08x}{k}", sid, t, t, _j({"type": "text", "text": _text(r, 30)})))
        c.execute("INSERT INTO todo VALUES (?, ?, 'pending', 'high', 0, ?, ?)", (sid, _text(r, 4), t, t))


def time_discovery(home: Path) -> tuple[float, float, dict[str, str]]:
    """Wall and CPU seconds of one cold discovery; each session's extract fingerprint."""
    harness = opencode.OpenCode(HarnessContext(home=home, env={}))
    t0, c0 = time.perf_counter(), time.process_time()
    found = [s for s in harness.discover() if s.kind != "host"]
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    fps = {}
    for s in found:
        src = next(a for a in s.sources if a.role == "database")
        fps[s.session_id] = f"{src.identity[2]:x}" if src.identity else ""
    harness.close()
    return seconds, cpu, fps


def time_extracts(db: Path, out: Path) -> tuple[float, float, dict[str, str]]:
    """Wall and CPU seconds to snapshot `db` and extract every session; sha256 of each extract."""
    out.mkdir(parents=True, exist_ok=True)
    t0, c0 = time.perf_counter(), time.process_time()
    snap = opencode.DbSnapshot(db)
    conn = snap.connect()
    sids = [r[0] for r in conn.execute("SELECT id FROM session_v2 ORDER BY id")]
    conn.close()
    digests = {}
    dst = out / "extract.db"
    for sid in sids:
        opencode.extract_session(snap.path, sid, dst)
        digests[sid] = hashlib.sha256(dst.read_bytes()).hexdigest()
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    snap.close()
    dst.unlink(missing_ok=True)
    return seconds, cpu, digests


def sync_runs(work: Path, home: Path, db: Path) -> list[tuple[str, float, str]]:
    """`archiver sync` cold, then after one session changed (file:// store)."""
    from archiver.crypto.keys import keygen

    keys = work / "keys"
    keygen(keys)
    cfg = work / "config.toml"
    cfg.write_text(
        f'home = "{home}"\nhost = "bench-host"\n\n'
        f'[redaction]\nteam_key_file = "{keys / "team.key"}"\nusernames = ["alice"]\n\n'
        f'[encryption]\nrecipients_file = "{keys / "recipient.txt"}"\n\n'
        f'[store]\nurl = "file://{work / "store"}"\n\n[state]\ndir = "{work / "state"}"\n')
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "OPENCODE_", "ARCHIVER_", "AWS_"))}
    env.update(HOME=str(home), PYTHONPATH=str(ROOT))
    out = []
    for name in ("cold", "one session changed"):
        if name != "cold":
            import sqlite3

            c = sqlite3.connect(str(db))
            c.execute("UPDATE session_v2 SET title = 'renamed by the bench' WHERE id = ?", (session_id(3),))
            c.commit()
            c.close()
        t0 = time.perf_counter()
        p = subprocess.run([sys.executable, "-m", "archiver", "sync", "--config", str(cfg), "--json"],
                           capture_output=True, text=True, env=env, cwd=str(ROOT))
        seconds = time.perf_counter() - t0
        try:
            s = json.loads(p.stdout).get("sessions", {})
            note = f"{s.get('total', 0)} sessions: {s.get('uploaded', 0)} up, {s.get('unchanged', 0)} same"
        except ValueError:
            note = f"rc {p.returncode}: {p.stderr.strip()[-300:]}"
        out.append((name, seconds, note))
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sessions", type=int, default=2000)
    p.add_argument("--messages", type=int, default=12, help="session_message rows per session")
    p.add_argument("--skip-sync", action="store_true")
    p.add_argument("--digests", type=Path, help="write {sid: [fingerprint, extract sha256]} of the N database")
    p.add_argument("--work", type=Path, help="scratch dir (kept); default a 0700 temp dir, removed")
    args = p.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="oc-scale-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        timings = {}
        for n in (args.sessions // 4, args.sessions):
            home = work / f"home-{n}"
            db = make_db(home / ".local" / "share" / "opencode", n, args.messages)
            size = db.stat().st_size
            disc, disc_cpu, fps = time_discovery(home)
            ext, ext_cpu, sums = time_extracts(db, work / f"x-{n}")
            timings[n] = (disc_cpu, ext_cpu)
            print(f"N={n:>6}: db {size / 1e6:6.1f} MB  discovery {disc:6.2f} s (cpu {disc_cpu:6.2f} s)  "
                  f"extract all {ext:6.2f} s (cpu {ext_cpu:6.2f} s, {1000 * ext_cpu / max(n, 1):.2f} ms/session)",
                  flush=True)
            if n == args.sessions and args.digests:
                args.digests.write_text(json.dumps({sid: [fps.get(sid), sums[sid]] for sid in sorted(sums)}, indent=0))
        q, n = args.sessions // 4, args.sessions
        print(f"cpu ratio N/(N/4) (linear = 4): discovery {timings[n][0] / timings[q][0]:.1f}x, "
              f"extract all {timings[n][1] / timings[q][1]:.1f}x")
        if not args.skip_sync:
            home = work / f"home-{n}"
            for name, seconds, note in sync_runs(work, home, home / ".local/share/opencode/opencode.db"):
                print(f"archiver sync N={n} {name}: {seconds:.2f} s ({note})", flush=True)
    finally:
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
