"""Local incremental state: what this host already archived, so a re-run is cheap.

One SQLite file in the state dir. It is a cache of the archive, never the archive:
losing it costs re-reading files and HEAD requests, not data (objects are
content-addressed, so nothing is uploaded twice). Session entries change only
after the manifest naming them was written.
"""

from __future__ import annotations

import json
import os
import sqlite3
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from archiver.model import Artifact, Session

SCHEMA_VERSION = 1


@dataclass
class ArtifactState:
    """What we knew of one source file when it was last archived."""

    session_key: str
    logical_path: str  # unredacted native path, '.zst' suffix dropped (Codex moves)
    inode: int
    size: int
    mtime_ns: int
    offset: int  # source bytes consumed (append mode: up to the last complete line)
    fingerprint: str
    artifact: Artifact  # as archived (redacted path, objects)


class StateError(RuntimeError):
    pass


class State:
    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        self.path = path
        try:
            self.db = self._open(path)
        except sqlite3.DatabaseError:
            # a corrupt cache is rebuilt, not fatal: move it aside and start fresh
            aside = path.with_name(path.name + ".corrupt")
            os.replace(path, aside)
            self.db = self._open(path)
            self.rebuilt = True
        else:
            self.rebuilt = False

    @staticmethod
    def _open(path: Path) -> sqlite3.Connection:
        db = sqlite3.connect(str(path), timeout=30, isolation_level=None, check_same_thread=False)
        os.chmod(path, 0o600)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA integrity_check").fetchone()
        db.executescript(
            """
            CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
            CREATE TABLE IF NOT EXISTS artifacts (
                session_key TEXT NOT NULL, logical_path TEXT NOT NULL,
                inode INTEGER, size INTEGER, mtime_ns INTEGER, offset INTEGER,
                fingerprint TEXT, artifact TEXT NOT NULL,
                PRIMARY KEY (session_key, logical_path));
            CREATE TABLE IF NOT EXISTS sessions (key TEXT PRIMARY KEY, session TEXT NOT NULL);
            CREATE TABLE IF NOT EXISTS objects (id TEXT PRIMARY KEY);
            CREATE TABLE IF NOT EXISTS runs (run_id TEXT PRIMARY KEY, started TEXT, finished TEXT, result TEXT);
            """
        )
        return db

    def close(self) -> None:
        self.db.close()

    # ---- binding: the cache is only valid for one store ----
    def bind(self, store_url: str, host_id: str) -> None:
        """Forget cached objects when pointed at another store (or another team key)."""
        current = self.get_meta("binding")
        binding = f"{store_url}|{host_id}"
        if current != binding:
            with self.transaction():
                self.db.execute("DELETE FROM objects")
                self.db.execute("DELETE FROM artifacts")
                self.db.execute("DELETE FROM sessions")
                self.set_meta("binding", binding)

    def get_meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return row[0] if row else None

    def set_meta(self, key: str, value: str) -> None:
        self.db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, value))

    def transaction(self) -> "_Tx":
        return _Tx(self.db)

    # ---- objects ----
    def has_object(self, object_id: str) -> bool:
        return self.db.execute("SELECT 1 FROM objects WHERE id=?", (object_id,)).fetchone() is not None

    def add_object(self, object_id: str) -> None:
        self.db.execute("INSERT OR IGNORE INTO objects(id) VALUES (?)", (object_id,))

    def forget_unreferenced_objects(self) -> int:
        """Keep only cached ids that a committed artifact names. Others (uploaded by a run
        that died before its manifest) may since have been pruned: HEAD them again."""
        referenced: set[str] = set()
        for (raw,) in self.db.execute("SELECT artifact FROM artifacts"):
            referenced.update(Artifact.model_validate_json(raw).objects)
        stale = [oid for (oid,) in self.db.execute("SELECT id FROM objects") if oid not in referenced]
        with self.transaction():
            self.db.executemany("DELETE FROM objects WHERE id=?", [(oid,) for oid in stale])
        return len(stale)

    def drop_session(self, key: str) -> None:
        self.db.execute("DELETE FROM sessions WHERE key=?", (key,))
        self.db.execute("DELETE FROM artifacts WHERE session_key=?", (key,))

    # ---- artifacts ----
    def get_artifact(self, session_key: str, logical_path: str) -> ArtifactState | None:
        row = self.db.execute(
            "SELECT inode, size, mtime_ns, offset, fingerprint, artifact FROM artifacts WHERE session_key=? AND logical_path=?",
            (session_key, logical_path),
        ).fetchone()
        if not row:
            return None
        return ArtifactState(session_key, logical_path, row[0], row[1], row[2], row[3], row[4] or "",
                             Artifact.model_validate_json(row[5]))

    def put_artifact(self, a: ArtifactState) -> None:
        self.db.execute(
            "INSERT OR REPLACE INTO artifacts VALUES (?,?,?,?,?,?,?,?)",
            (a.session_key, a.logical_path, a.inode, a.size, a.mtime_ns, a.offset, a.fingerprint, a.artifact.model_dump_json()),
        )

    # ---- sessions (as named by the last manifest) ----
    def sessions(self) -> Iterator[Session]:
        for (raw,) in self.db.execute("SELECT session FROM sessions ORDER BY key"):
            yield Session.model_validate_json(raw)

    def get_session(self, key: str) -> Session | None:
        row = self.db.execute("SELECT session FROM sessions WHERE key=?", (key,)).fetchone()
        return Session.model_validate_json(row[0]) if row else None

    def put_session(self, s: Session) -> None:
        self.db.execute("INSERT OR REPLACE INTO sessions(key, session) VALUES (?, ?)", (s.key, s.model_dump_json()))

    # ---- runs ----
    def record_run(self, run_id: str, started: str, finished: str, result: dict) -> None:
        self.db.execute("INSERT OR REPLACE INTO runs VALUES (?,?,?,?)", (run_id, started, finished, json.dumps(result)))

    def last_run(self) -> dict | None:
        row = self.db.execute("SELECT run_id, started, finished, result FROM runs ORDER BY finished DESC LIMIT 1").fetchone()
        if not row:
            return None
        return {"run_id": row[0], "started": row[1], "finished": row[2], "result": json.loads(row[3])}


class _Tx:
    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> sqlite3.Connection:
        self.db.execute("BEGIN IMMEDIATE")
        return self.db

    def __exit__(self, exc_type: object, *_: object) -> None:
        self.db.execute("COMMIT" if exc_type is None else "ROLLBACK")
