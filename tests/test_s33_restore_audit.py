"""s33 restore audit: what `archiver restore` writes, checked against the harness format seeds
(/work/shared/seeds/by-harness/*.json): would the harness itself find, list and open the restored
session, and does a restore into a HOME that already holds the session keep what is there?
Fixtures are written here following the seeds; the CLI runs in process against a file:// store."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import zstandard

from tests.fx_home import Box, _line, box  # noqa: F401

TID = "0199bbbb-0000-7000-8000-0000000000b1"
DAY = "sessions/2026/01/02"
NAME = f"rollout-2026-01-02T03-04-05-{TID}.jsonl"


def _rollout(n: int) -> bytes:
    recs: list[dict[str, Any]] = [{"timestamp": "2026-01-02T03:04:05.600Z", "type": "session_meta", "payload": {
        "id": TID, "session_id": TID, "timestamp": "2026-01-02T03:04:05.600Z", "cwd": "/srv/app",
        "originator": "codex_cli_rs", "cli_version": "0.164.0", "source": "cli", "model_provider": "openai"}}]
    recs += [{"timestamp": "2026-01-02T03:04:06.000Z", "type": "response_item", "payload": {
        "type": "message", "role": "user", "content": [{"type": "input_text", "text": f"step {i}"}]}}
        for i in range(n)]
    return "".join(map(_line, recs)).encode()


def _zst(data: bytes) -> bytes:
    return zstandard.ZstdCompressor(level=3).compress(data)


def _unzst(data: bytes) -> bytes:
    return zstandard.ZstdDecompressor().decompressobj().decompress(data)


def _codex_rollouts(target: Path) -> dict[str, bytes]:
    codex = target / ".codex"
    return {p.relative_to(codex).as_posix(): p.read_bytes() for p in sorted(codex.rglob("rollout-*"))}


def _archive_compressed(box: Box) -> None:  # noqa: F811
    """One thread whose rollout Codex compressed after 7 idle days (layout: `.jsonl.zst`)."""
    box.only("codex")
    day = box.home / ".codex" / DAY
    day.mkdir(parents=True)
    (day / f"{NAME}.zst").write_bytes(_zst(_rollout(2)))
    assert box.sync()["sessions"]["failed"] == 0


# ---------------------------------------------------------------- codex: .jsonl / .jsonl.zst


def test_codex_restore_beside_a_resumed_plain_rollout_keeps_one_file(box: Box) -> None:  # noqa: F811
    """codex layout `rollout-...jsonl.zst`: "exactly one of .jsonl/.jsonl.zst exists"; linking
    resume: "A compressed file is first decompressed to .jsonl and the .zst removed". The target
    HOME resumed the thread since (its rollout is plain .jsonl with more lines): restoring the
    archived .jsonl.zst beside it gives Codex two files of one rollout, and its next resume
    decompresses the older .zst over the newer .jsonl. The restore must refuse it (reported,
    exit 3) and leave the target's rollout alone."""
    _archive_compressed(box)
    target = box.base / "target"
    (target / ".codex" / DAY).mkdir(parents=True)
    live = _rollout(5)
    (target / ".codex" / DAY / NAME).write_bytes(live)
    out = box.cli("restore", "--all", "--to", str(target), expect=3)
    assert any(NAME in r for r in out["refused"]), out
    assert _codex_rollouts(target) == {f"{DAY}/{NAME}": live}


def test_codex_restore_of_the_same_rollout_held_plain_writes_no_second_copy(box: Box) -> None:  # noqa: F811
    """Same layout rule: when the target holds the same rollout decompressed (same lines), the
    restore is already there: nothing is written beside it, and the restore succeeds."""
    _archive_compressed(box)
    target = box.base / "target"
    (target / ".codex" / DAY).mkdir(parents=True)
    (target / ".codex" / DAY / NAME).write_bytes(_rollout(2))
    out = box.cli("restore", "--all", "--to", str(target))
    assert f"codex:{TID}" in out["sessions"], out
    assert _codex_rollouts(target) == {f"{DAY}/{NAME}": _rollout(2)}


def test_codex_overwrite_replaces_the_rollout_in_its_one_file(box: Box) -> None:  # noqa: F811
    """--overwrite replaces the target's rollout with the archived one, still as one file."""
    _archive_compressed(box)
    target = box.base / "target"
    (target / ".codex" / DAY).mkdir(parents=True)
    (target / ".codex" / DAY / NAME).write_bytes(_rollout(5))
    box.cli("restore", "--all", "--to", str(target), "--overwrite")
    got = _codex_rollouts(target)
    assert len(got) == 1, sorted(got)
    (path, data), = got.items()
    assert (_unzst(data) if path.endswith(".zst") else data) == _rollout(2)


def test_codex_restore_beside_the_rollout_archived_in_the_target(box: Box) -> None:  # noqa: F811
    """codex layout `archived_sessions/rollout-...jsonl[.zst]`: "Archived rollouts, moved flat
    (no date folders) with the same filename". The target archived the thread (and went on
    with a different state of it): the restore must not put a second copy of the rollout back
    into sessions/YYYY/MM/DD, where Codex would list the thread again."""
    _archive_compressed(box)
    target = box.base / "target"
    (target / ".codex" / "archived_sessions").mkdir(parents=True)
    mine = _zst(_rollout(4))
    (target / ".codex" / "archived_sessions" / f"{NAME}.zst").write_bytes(mine)
    out = box.cli("restore", "--all", "--to", str(target), expect=3)
    assert any(NAME in r for r in out["refused"]), out
    assert _codex_rollouts(target) == {f"archived_sessions/{NAME}.zst": mine}


# ---------------------------------------------------------------- SQLite beside a stale -wal

CHAT = "3f1c2b4a-5d6e-4f70-8a9b-0c1d2e3f4a5b"
CWD = "/srv/app"


def _cursor_chat(home: Path, agent_name: str, blob: bytes) -> Path:
    """A chat store.db as the seed lays it out: chats/<md5(cwd)>/<chatId>/store.db, WAL mode,
    user_version 1, meta(key, value = hex JSON) and blobs(id, data)."""
    import hashlib
    import sqlite3

    db = home / ".cursor" / "chats" / hashlib.md5(CWD.encode()).hexdigest() / CHAT / "store.db"
    db.parent.mkdir(parents=True, exist_ok=True)
    con = sqlite3.connect(db, isolation_level=None)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("PRAGMA user_version=1")
    con.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
    con.execute("CREATE TABLE blobs (id TEXT PRIMARY KEY, data BLOB)")
    meta = {"agentId": CHAT, "latestRootBlobId": "", "name": agent_name, "mode": "default",
            "createdAt": 1767323045000}
    con.execute("INSERT INTO meta VALUES ('0', ?)", (json.dumps(meta).encode().hex(),))
    con.execute("INSERT INTO blobs VALUES (?, ?)", (hashlib.sha256(blob).hexdigest(), blob))
    con.close()
    return db


def _live_copy_with_wal(src: Path, dst: Path) -> None:
    """dst: src's database as a running harness leaves it (the last transactions only in
    store.db-wal, not checkpointed: the files of a process that was killed)."""
    import shutil
    import sqlite3

    dst.parent.mkdir(parents=True, exist_ok=True)
    con = sqlite3.connect(src, isolation_level=None)
    con.execute("PRAGMA wal_autocheckpoint=0")
    con.execute("UPDATE meta SET value = ? WHERE key = '0'",
                (json.dumps({"agentId": CHAT, "latestRootBlobId": "", "name": "live chat"}).encode().hex(),))
    con.execute("DELETE FROM blobs")
    for suffix in ("", "-wal", "-shm"):
        shutil.copyfile(f"{src}{suffix}", f"{dst}{suffix}")
    con.close()
    assert Path(f"{dst}-wal").stat().st_size > 0


def test_cursor_store_db_overwritten_beside_a_stale_wal_reads_as_archived(box: Box) -> None:  # noqa: F811
    """cursor-agent layout `store.db (+ store.db-wal, store.db-shm)`, "SQLite (WAL mode ...)",
    and gotcha "copy store.db + -wal + -shm together": a database's state is the file and its
    -wal. `restore --overwrite` into a HOME whose chat of the same id has un-checkpointed frames
    in store.db-wal replaced store.db alone; SQLite then replays the old -wal onto the restored
    file, and Cursor reads the target's old chat (or a mix of pages), not the restored one."""
    import sqlite3

    box.only("cursor-agent")
    _cursor_chat(box.home, "archived chat", b'{"role":"user","content":"hello"}')
    assert box.sync()["sessions"]["failed"] == 0
    (rel,) = [a["path"] for s in box.ls().values() for a in s["artifacts"] if a["path"].endswith("/store.db")]
    target = box.base / "target"
    scratch = box.base / "live"
    _live_copy_with_wal(_cursor_chat(scratch, "live chat", b'{"role":"user","content":"other"}'), target / rel)
    box.cli("restore", "--all", "--to", str(target), "--overwrite")
    con = sqlite3.connect(f"file:{target / rel}?mode=ro", uri=True)
    try:
        meta = json.loads(bytes.fromhex(con.execute("SELECT value FROM meta WHERE key = '0'").fetchone()[0]))
        blobs = con.execute("SELECT data FROM blobs").fetchall()
    finally:
        con.close()
    assert meta["name"] == "archived chat"
    assert blobs == [(b'{"role":"user","content":"hello"}',)]


def test_a_stale_wal_without_its_database_is_not_taken_over(box: Box) -> None:  # noqa: F811
    """Same layout: a store.db-wal left in the target without its store.db (its chat folder
    half removed) would be replayed onto the restored database; it holds the target's data, so
    the restore refuses to write beside it without --overwrite (reported) and keeps it."""
    box.only("cursor-agent")
    _cursor_chat(box.home, "archived chat", b'{"role":"user","content":"hello"}')
    assert box.sync()["sessions"]["failed"] == 0
    (rel,) = [a["path"] for s in box.ls().values() for a in s["artifacts"] if a["path"].endswith("/store.db")]
    target = box.base / "target"
    _live_copy_with_wal(_cursor_chat(box.base / "live", "live chat", b"x"), target / rel)
    wal = Path(f"{target / rel}-wal").read_bytes()
    (target / rel).unlink()
    out = box.cli("restore", "--all", "--to", str(target), expect=3)
    assert any(rel in r and "-wal" in r for r in out["refused"]), out
    assert not (target / rel).exists()
    assert Path(f"{target / rel}-wal").read_bytes() == wal


# ---------------------------------------------------------------- claude-code: long project keys

SID = "5a1e2b3c-4d5e-4f60-8a7b-9c0d1e2f3a4b"


def _claude_session(home: Path, cwd: str) -> None:
    key = "".join(c if c.isascii() and c.isalnum() else "-" for c in cwd)
    recs = [{"parentUuid": None, "isSidechain": False, "userType": "external", "cwd": cwd, "sessionId": SID,
             "version": "2.1.310", "gitBranch": "main", "entrypoint": "cli", "type": "user",
             "message": {"role": "user", "content": "build it"}, "uuid": "11111111-1111-4111-8111-111111111111",
             "timestamp": "2026-10-20T10:00:00.000Z"},
            {"parentUuid": "11111111-1111-4111-8111-111111111111", "isSidechain": False, "userType": "external",
             "cwd": cwd, "sessionId": SID, "version": "2.1.310", "gitBranch": "main", "type": "assistant",
             "message": {"id": "msg_1", "role": "assistant", "content": [{"type": "text", "text": "done"}]},
             "uuid": "22222222-2222-4222-8222-222222222222", "timestamp": "2026-10-20T10:00:01.000Z"}]
    folder = home / ".claude" / "projects" / key
    folder.mkdir(parents=True)
    (folder / f"{SID}.jsonl").write_text("".join(map(_line, recs)))


def _js_djb2_base36(text: str) -> str:
    """Math.abs(djb2Hash(text)).toString(36) as Claude Code computes it (JS numbers, UTF-16)."""
    h = 0
    for i in range(0, len(b := text.encode("utf-16-le")), 2):
        h = (h * 31 + int.from_bytes(b[i:i + 2], "little")) % (1 << 32)
    n = abs(h - (1 << 32) if h >= 1 << 31 else h)
    out = ""
    while True:
        n, r = divmod(n, 36)
        out = "0123456789abcdefghijklmnopqrstuvwxyz"[r] + out
        if n == 0:
            return out


def test_claude_relocated_to_a_long_path_lands_in_the_truncated_project_folder(box: Box) -> None:  # noqa: F811
    """claude-code layout `projects/<project-key>/`: "<project-key> = absolute cwd with every
    non-alphanumeric char replaced by '-' (long names truncated + hash)". Relocated to a checkout
    whose key is over 200 characters, the transcript went into a folder of the whole key, which
    Claude Code never reads (it looks for the key cut at 200 characters, `-` and a hash), or, past
    255 bytes, was refused. It must land in `<first 200>-<djb2 base 36>`."""
    box.only("claude-code")
    _claude_session(box.home, "/srv/app")
    assert box.sync()["sessions"]["failed"] == 0
    new = "/srv/" + "/".join(f"deeply-nested-workspace-{i:02d}" for i in range(9)) + "/app"
    key = "".join(c if c.isascii() and c.isalnum() else "-" for c in new)
    assert 200 < len(key) < 255
    target = box.base / "target"
    out = box.cli("restore", "--all", "--to", str(target), "--relocate", f"/srv/app={new}")
    assert out["refused"] == [], out
    folder = f"{key[:200]}-{_js_djb2_base36(new)}"
    restored = target / ".claude" / "projects" / folder / f"{SID}.jsonl"
    assert [p.relative_to(target / ".claude" / "projects").as_posix()
            for p in (target / ".claude" / "projects").rglob("*.jsonl")] == [f"{folder}/{SID}.jsonl"]
    assert [json.loads(line)["cwd"] for line in restored.read_text().splitlines()] == [new, new]


# ---------------------------------------------------------------- codex: session_index.jsonl


def _index_line(name: str, at: str) -> bytes:
    return _line({"id": TID, "thread_name": name, "updated_at": at}).encode()


def test_codex_index_keeps_the_targets_own_name_for_the_thread(box: Box) -> None:  # noqa: F811
    """codex layout `session_index.jsonl`: "Append-only thread names ... the last entry for an id
    wins". The target renamed the thread since (its own line, not in the archive): appending the
    archived line after it made the archived name win, replacing the target's in every listing.
    Without --overwrite the target's names stand (warned); with it the archived one is last."""
    box.only("codex")
    day = box.home / ".codex" / DAY
    day.mkdir(parents=True)
    (day / NAME).write_bytes(_rollout(2))
    (box.home / ".codex" / "session_index.jsonl").write_bytes(_index_line("archived name", "2026-01-02T03:05:00Z"))
    assert box.sync()["sessions"]["failed"] == 0
    target = box.base / "target"
    (target / ".codex").mkdir(parents=True)
    mine = _index_line("renamed here", "2026-02-01T09:00:00Z")
    (target / ".codex" / "session_index.jsonl").write_bytes(mine)
    out = box.cli("restore", "--all", "--to", str(target))
    assert (target / ".codex" / "session_index.jsonl").read_bytes() == mine
    assert any("session_index.jsonl" in w and TID in w for w in out["warnings"]), out
    box.cli("restore", "--all", "--to", str(target), "--overwrite")
    last = (target / ".codex" / "session_index.jsonl").read_bytes().splitlines()[-1]
    assert json.loads(last)["thread_name"] == "archived name"


def test_codex_index_takes_a_later_state_of_a_restored_thread(box: Box) -> None:  # noqa: F811
    """Same rule: a target whose lines for the thread are all the archive's (an earlier restore
    of it) takes the archive's later lines, so its newest name wins."""
    box.only("codex")
    day = box.home / ".codex" / DAY
    day.mkdir(parents=True)
    (day / NAME).write_bytes(_rollout(2))
    first = _index_line("first", "2026-01-02T03:05:00Z")
    (box.home / ".codex" / "session_index.jsonl").write_bytes(first + _index_line("second", "2026-01-03T03:05:00Z"))
    assert box.sync()["sessions"]["failed"] == 0
    target = box.base / "target"
    (target / ".codex").mkdir(parents=True)
    (target / ".codex" / "session_index.jsonl").write_bytes(first)
    out = box.cli("restore", "--all", "--to", str(target))
    assert not any("session_index" in w for w in out["warnings"]), out
    assert (target / ".codex" / "session_index.jsonl").read_bytes() == first + _index_line("second", "2026-01-03T03:05:00Z")
