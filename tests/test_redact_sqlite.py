"""SQLite redaction: WAL-only rows, deleted rows, every kind of cell, schema and integrity kept."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from archiver.redact.base import RedactionReport
from archiver.redact.pseudonym import Pseudonymizer
from archiver.redact.redactor import RuleRedactor, build_redactor
from archiver.redact.rules import RuntimeTerms
from archiver.redact.walkers import protobuf

KEY = b"team-key-for-tests-0123456789abcdef"
AWS = "AKIAQYLPMN5HHHFPZAM2"
GHP = "ghp_R8fJ2kLm9QwErTyUiOpAsDfGhJkLzXcVbN12"
UUID = "0d4f5b8e-9c3a-4e7b-8f21-6a5d3c2b1e0f"
USER = Pseudonymizer(KEY).username("alice")


@pytest.fixture(scope="module")
def red() -> RuleRedactor:
    return build_redactor(["builtin:secrets", "builtin:pii", "builtin:paths"], KEY, RuntimeTerms(usernames=["alice"]))


def _snapshot(live: Path, snap: Path) -> None:
    """What the pipeline does: the backup API on a connection to the live file (WAL included)."""
    src = sqlite3.connect(f"file:{live}?mode=ro", uri=True)
    dst = sqlite3.connect(snap)
    try:
        src.backup(dst)
    finally:
        dst.close()
        src.close()


def _schema(path: Path) -> list[tuple[str, str]]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute("SELECT type, name FROM sqlite_master ORDER BY type, name").fetchall()
    finally:
        conn.close()


def _field(no: int, payload: bytes) -> bytes:
    return protobuf._encode_varint(no << 3 | 2) + protobuf._encode_varint(len(payload)) + payload


def test_wal_only_secret_is_redacted(red: RuleRedactor, tmp_path: Path) -> None:
    live = tmp_path / "store.db"
    writer = sqlite3.connect(live)
    writer.execute("PRAGMA journal_mode=WAL")
    writer.execute("PRAGMA wal_autocheckpoint=0")
    writer.execute("CREATE TABLE msg (id TEXT PRIMARY KEY, body TEXT)")
    writer.commit()
    writer.execute("INSERT INTO msg VALUES (?, ?)", (UUID, f"deploy key {AWS} from /home/alice/infra"))
    writer.commit()
    try:  # the row lives only in the -wal while the writer stays open
        assert AWS.encode() not in live.read_bytes()
        assert AWS.encode() in Path(f"{live}-wal").read_bytes()
        snap = tmp_path / "snap.db"
        _snapshot(live, snap)
    finally:
        writer.close()
    out = tmp_path / "out.db"
    rep = RedactionReport()
    red.redact_file(snap, out, "sqlite", rep)
    data = out.read_bytes()
    assert AWS.encode() not in data and b"alice" not in data
    conn = sqlite3.connect(out)
    ((rid, body),) = conn.execute("SELECT id, body FROM msg").fetchall()
    conn.close()
    assert rid == UUID and body.startswith("deploy key <AWS_ACCESS_KEY:") and body.endswith(f"/home/{USER}/infra")
    assert rep.by_carrier()["sqlite:msg.body"] == {"aws-access-key-id": 1, "home-linux": 1}


def test_deleted_rows_leave_no_plaintext(red: RuleRedactor, tmp_path: Path) -> None:
    live = tmp_path / "notes.db"
    conn = sqlite3.connect(live)
    conn.execute("PRAGMA secure_delete=OFF")
    conn.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
    conn.executemany("INSERT INTO notes (body) VALUES (?)",
                     [(f"old {GHP} {i} " + "x" * 1500,) for i in range(30)] + [("kept note",)])
    conn.commit()
    conn.execute("DELETE FROM notes WHERE body LIKE 'old%'")
    conn.commit()
    conn.close()
    snap = tmp_path / "snap.db"
    _snapshot(live, snap)
    assert GHP.encode() in snap.read_bytes()  # free pages of the snapshot still hold it
    out = tmp_path / "out.db"
    red.redact_file(snap, out, "sqlite", RedactionReport())
    assert GHP.encode() not in out.read_bytes()
    check = sqlite3.connect(out)
    assert check.execute("SELECT body FROM notes").fetchall() == [("kept note",)]
    check.close()


def test_every_cell_kind_schema_and_integrity(red: RuleRedactor, tmp_path: Path) -> None:
    live = tmp_path / "state.db"
    conn = sqlite3.connect(live)
    conn.executescript("""
        PRAGMA journal_mode=WAL;
        CREATE TABLE threads (id TEXT PRIMARY KEY, cwd TEXT, meta TEXT, blob BLOB, proto BLOB, raw BLOB, n INTEGER);
        CREATE INDEX idx_threads_cwd ON threads(cwd);
        CREATE TABLE files (path TEXT PRIMARY KEY, hash TEXT) WITHOUT ROWID;
        CREATE TABLE kv (key TEXT, value TEXT);
        CREATE VIRTUAL TABLE search USING fts5(body);
        CREATE TRIGGER t_touch AFTER UPDATE ON threads BEGIN SELECT 1; END;
    """)
    meta = json.dumps({"cwd": "/home/alice/app", "env": {"GITHUB_TOKEN": GHP}, "id": UUID}, indent=2)
    proto = _field(1, b"/home/alice/app/main.py") + _field(2, _field(1, f"token {GHP}".encode()))
    raw = bytes(range(256)) * 2
    conn.execute("INSERT INTO threads VALUES (?,?,?,?,?,?,?)",
                 (UUID, "/home/alice/app", meta, json.dumps({"path": "/home/alice/x"}).encode(), proto, raw, 7))
    conn.execute("INSERT INTO files VALUES (?, ?)", ("/home/alice/app/a.py", "3f786850e387550fdab836ed7e6dc881de23001b"))
    conn.execute("INSERT INTO kv VALUES ('latestRootBlobId', ?)", (json.dumps({"cwd": "/home/alice/z"}).encode().hex(),))
    conn.execute("INSERT INTO search (body) VALUES (?)", (f"grep found {AWS} in /home/alice/app",))
    conn.commit()
    conn.close()
    snap = tmp_path / "snap.db"
    _snapshot(live, snap)
    out = tmp_path / "out.db"
    rep = RedactionReport()
    red.redact_file(snap, out, "sqlite", rep)

    data = out.read_bytes()
    for secret in (GHP, AWS, "alice"):
        assert secret.encode() not in data, secret
    assert _schema(out) == _schema(snap)
    for suffix in ("-wal", "-shm", "-journal"):
        assert not Path(f"{out}{suffix}").exists()
    conn = sqlite3.connect(out)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("delete",)
        rid, cwd, meta_out, blob, proto_out, raw_out, n = conn.execute("SELECT * FROM threads").fetchone()
        assert (rid, cwd, raw_out, n) == (UUID, f"/home/{USER}/app", raw, 7)
        assert meta_out.splitlines()[1] == f'  "cwd": "/home/{USER}/app",'  # layout kept
        assert json.loads(meta_out)["env"]["GITHUB_TOKEN"].startswith("<GITHUB")
        assert json.loads(blob) == {"path": f"/home/{USER}/x"}
        fields = protobuf.parse(proto_out)
        assert fields is not None and proto_out[fields[0][2]:fields[0][3]] == f"/home/{USER}/app/main.py".encode()
        assert conn.execute("SELECT * FROM files").fetchall() == [(f"/home/{USER}/app/a.py",
                                                                    "3f786850e387550fdab836ed7e6dc881de23001b")]
        (hexed,) = conn.execute("SELECT value FROM kv").fetchone()
        assert json.loads(bytes.fromhex(hexed)) == {"cwd": f"/home/{USER}/z"}
        (body,) = conn.execute("SELECT body FROM search WHERE search MATCH 'grep'").fetchone()
        assert "alice" not in body and AWS not in body
    finally:
        conn.close()
    carriers = rep.by_carrier()
    assert {"sqlite:threads.cwd", "sqlite:threads.meta", "sqlite:threads.blob", "sqlite:threads.proto:protobuf",
            "sqlite:files.path", "sqlite:kv.value", "sqlite:search.body"} <= set(carriers)
    assert red.verify_file(out, "sqlite") == []
    assert {"aws-access-key-id", "github-pat"} <= set(red.verify_file(snap, "sqlite"))
