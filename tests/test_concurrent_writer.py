"""A harness writing its SQLite store (WAL mode) while `sync` reads it: the run succeeds,
every archived database passes integrity_check, and rows committed before the run are in."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from pathlib import Path

from archiver.demo.opencode_sample import make_opencode_home
from tests.fx_archiver import USER, Env, env  # noqa: F401


def _writer(db: Path, session_id: str, stop: threading.Event, written: list[int]) -> None:
    conn = sqlite3.connect(db, timeout=30)
    conn.execute("PRAGMA journal_mode=WAL")
    seq = 10_000
    while not stop.is_set():
        seq += 1
        data = json.dumps({"role": "assistant", "text": f"streamed {seq} from /home/{USER}/work/app",
                           "time": {"created": seq, "completed": seq}})
        conn.execute("INSERT INTO session_message VALUES (?, ?, 'message', ?, ?, ?, ?)",
                     (f"msg_live_{seq}", session_id, seq, seq, seq, data))
        conn.commit()
        written.append(seq)
        time.sleep(0.002)
    conn.close()


def test_sync_while_opencode_writes(env: Env) -> None:  # noqa: F811
    made = make_opencode_home(env.home, USER)
    db = made["root"] / "opencode.db"
    session_id = sqlite3.connect(db).execute("SELECT id FROM session_v2 ORDER BY id LIMIT 1").fetchone()[0]
    stop, written = threading.Event(), []
    t = threading.Thread(target=_writer, args=(db, session_id, stop, written), daemon=True)
    t.start()
    try:
        while len(written) < 20:
            time.sleep(0.01)
        committed_before = written[-1]
        out = env.cli_json("sync", "--workers", "1", expect=None)
    finally:
        stop.set()
        t.join(10)
    assert out["sessions"]["failed"] == 0, out["errors"]
    target = env.base / "restored"
    rest = env.cli_json("restore", f"opencode:{session_id}", "--to", str(target), identity=True)
    assert rest["integrity_errors"] == []
    restored = sqlite3.connect(target / ".local/share/opencode/opencode.db")
    assert restored.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    ids = {r[0] for r in restored.execute("SELECT id FROM session_message WHERE session_id=?", (session_id,))}
    assert f"msg_live_{committed_before}" in ids  # committed before the run started: archived
    rows = restored.execute("SELECT data FROM session_message WHERE id LIKE 'msg_live_%'").fetchall()
    assert rows and all(USER not in r[0] for r in rows)  # and redacted
    assert {r[0] for r in restored.execute("SELECT DISTINCT session_id FROM session_message")} == {session_id}
