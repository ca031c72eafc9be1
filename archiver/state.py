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
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, MutableMapping

from archiver.model import Artifact, Session, is_utf8

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


def private_dir(d: Path) -> None:
    """The state dir holds native paths and titles (state.db) and the run's plaintext temp files:
    it must be ours and 0700. One made by someone else is refused (they could plant a symlink at
    `tmp`, `lock` or `state.db`); one of ours with a looser mode (made by hand, by an older
    version, under another umask) is tightened."""
    st = os.stat(d)
    me = os.geteuid() if hasattr(os, "geteuid") else st.st_uid
    # root's own folder is trusted as root is (a Kubernetes volume with fsGroup, a Docker volume)
    if st.st_uid not in (me, 0):
        raise StateError(f"{d}: the state dir belongs to another user (uid {st.st_uid}); not used")
    if st.st_mode & stat.S_ISVTX:  # /tmp and the like: shared by design, never ours to tighten
        raise StateError(f"{d}: a shared folder (sticky bit) cannot be the state dir; use a folder of its own")
    if st.st_uid == me and stat.S_IMODE(st.st_mode) & 0o077:
        os.chmod(d, 0o700)


@dataclass
class Known:
    """A stored session as the fast path needs it: its signature (None when it has to be
    archived the long way) and {logical path: (inode, size, mtime_ns)} of its files."""

    key: str
    signature: str | None
    files: dict[str, tuple[int, int, int]]


_EXPECTED_COLUMNS = {
    "meta": ["key", "value"],
    "artifacts": ["session_key", "logical_path", "inode", "size", "mtime_ns", "offset", "fingerprint", "artifact"],
    "sessions": ["key", "session"],
    "objects": ["id"],
    "runs": ["run_id", "started", "finished", "result"],
    "discovery_cache": ["key", "value"],
    "signatures": ["key", "value"],
}
# SQLite says these when the disk, not the file, is the problem: never a reason to rebuild
_ENVIRONMENT_ERRORS = ("disk is full", "disk i/o error", "unable to open", "readonly", "locked")


class State:
    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        private_dir(path.parent)
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            pass
        else:  # SQLite follows a symlink: a state.db planted as one would write where it points
            if not stat.S_ISREG(st.st_mode):
                raise StateError(f"{path}: not a regular file (a symlink?); not opened")
        self.path = path
        self.rebuilt = False
        try:
            self.db = self._open(path)
        except sqlite3.DatabaseError as e:
            if _is_environment(e):
                raise StateError(f"{path}: {e}{_space_hint(path)}; free space or fix permissions, then run again") from None
            # a corrupt or outdated cache is rebuilt, not fatal: move it aside, start fresh
            aside = path.with_name(path.name + ".corrupt")
            for suffix in ("-wal", "-shm"):
                Path(str(path) + suffix).unlink(missing_ok=True)
            os.replace(path, aside)
            try:
                self.db = self._open(path)
            except sqlite3.DatabaseError as e2:
                raise StateError(f"{path}: cannot create the state database: {e2}") from None
            self.rebuilt = True

    @staticmethod
    def _open(path: Path) -> sqlite3.Connection:
        db = sqlite3.connect(str(path), timeout=30, isolation_level=None, check_same_thread=False)
        try:
            os.chmod(path, 0o600)
            db.execute("PRAGMA journal_mode=WAL")
            # The state is a cache the archive can rebuild (a lost row costs a re-upload, never
            # data): with WAL, NORMAL keeps the file consistent on power loss without an fsync
            # per statement (one per uploaded object cost ~6 ms, under the run's lock).
            db.execute("PRAGMA synchronous=NORMAL")
            check = db.execute("PRAGMA integrity_check").fetchone()
            if not check or check[0] != "ok":
                raise sqlite3.DatabaseError(f"integrity check failed: {check[0] if check else '?'}")
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
                CREATE TABLE IF NOT EXISTS discovery_cache (key TEXT PRIMARY KEY, value TEXT NOT NULL);
                CREATE TABLE IF NOT EXISTS signatures (key TEXT PRIMARY KEY, value TEXT NOT NULL);
                """
            )
            for table, cols in _EXPECTED_COLUMNS.items():
                have = [r[1] for r in db.execute(f'PRAGMA table_info("{table}")')]
                if have != cols:
                    raise sqlite3.DatabaseError(f"table {table} has an unexpected schema")
            version = db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
            if version is None:
                db.execute("INSERT INTO meta(key, value) VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
            elif version[0] != str(SCHEMA_VERSION):
                raise sqlite3.DatabaseError(f"schema {version[0]} is not {SCHEMA_VERSION}")
        except BaseException:
            db.close()
            raise
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
                self.db.execute("DELETE FROM signatures")
                self.set_meta("binding", binding)

    def get_meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return row[0] if row else None

    def set_meta(self, key: str, value: str) -> None:
        self.db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, value))

    def delete_meta(self, key: str) -> None:
        self.db.execute("DELETE FROM meta WHERE key=?", (key,))

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
        try:  # in SQL (this runs on every sync); a row SQLite cannot parse: row by row below
            with self.transaction():
                return max(self.db.execute(
                    "DELETE FROM objects WHERE id NOT IN (SELECT j.value FROM artifacts, "
                    "json_each(artifacts.artifact, '$.objects') AS j WHERE j.type = 'text')").rowcount, 0)
        except sqlite3.OperationalError as e:
            if _is_environment(e):
                raise
        referenced: set[str] = set()
        bad: list[tuple[str, str]] = []
        # one query, and only the object ids parsed (not whole Artifacts): this runs every sync
        for session_key, logical_path, artifact in self.db.execute(
                "SELECT session_key, logical_path, artifact FROM artifacts").fetchall():
            try:
                objects = json.loads(artifact)["objects"]
                if not isinstance(objects, list) or not all(isinstance(o, str) for o in objects):
                    raise ValueError("objects")
            except (ValueError, TypeError, KeyError):
                bad.append((session_key, logical_path))  # as get_artifact would: a cache miss
                continue
            referenced.update(objects)
        for key in bad:
            self.get_artifact(*key)
        stale = [oid for (oid,) in self.db.execute("SELECT id FROM objects") if oid not in referenced]
        with self.transaction():
            self.db.executemany("DELETE FROM objects WHERE id=?", [(oid,) for oid in stale])
        return len(stale)

    def drop_session(self, key: str) -> None:
        self.db.execute("DELETE FROM sessions WHERE key=?", (key,))
        self.db.execute("DELETE FROM artifacts WHERE session_key=?", (key,))
        self.db.execute("DELETE FROM signatures WHERE key=?", (key,))

    # ---- artifacts ----
    def get_artifact(self, session_key: str, logical_path: str) -> ArtifactState | None:
        try:
            row = self.db.execute(
                "SELECT inode, size, mtime_ns, offset, fingerprint, artifact FROM artifacts "
                "WHERE session_key=? AND logical_path=?", (session_key, logical_path),
            ).fetchone()
            if not row:
                return None
            return ArtifactState(session_key, logical_path, int(row[0]), int(row[1]), int(row[2]), int(row[3]),
                                 row[4] or "", Artifact.model_validate_json(row[5]))
        except (sqlite3.DataError, sqlite3.OperationalError, ValueError, TypeError) as e:
            if isinstance(e, sqlite3.OperationalError) and _is_environment(e):
                raise
            self._forget_row("DELETE FROM artifacts WHERE session_key=? AND logical_path=?", (session_key, logical_path))
            return None

    def artifact_identities(self, session_key: str) -> dict[str, tuple[int, int]]:
        """Archived path -> (inode, bytes consumed) of the session's files as last archived."""
        out: dict[str, tuple[int, int]] = {}
        for inode, offset, raw in self.db.execute(
                "SELECT inode, offset, artifact FROM artifacts WHERE session_key=?", (session_key,)):
            try:
                out[Artifact.model_validate_json(raw).path] = (int(inode), int(offset))
            except (ValueError, TypeError):
                continue
        return out

    def put_artifact(self, a: ArtifactState) -> None:
        self.db.execute(
            "INSERT OR REPLACE INTO artifacts VALUES (?,?,?,?,?,?,?,?)",
            (a.session_key, a.logical_path, a.inode, a.size, a.mtime_ns, a.offset, a.fingerprint, a.artifact.model_dump_json()),
        )

    # ---- sessions (as named by the last manifest) ----
    def sessions(self) -> Iterator[Session]:
        for key in self.session_keys():
            s = self.get_session(key)
            if s is not None:
                yield s

    def session_keys(self) -> list[str]:
        return [k for (k,) in self.db.execute("SELECT key FROM sessions ORDER BY key")]

    def get_session(self, key: str) -> Session | None:
        try:
            row = self.db.execute("SELECT session FROM sessions WHERE key=?", (key,)).fetchone()
            return Session.model_validate_json(row[0]) if row else None
        except (sqlite3.DataError, sqlite3.OperationalError, ValueError, TypeError) as e:
            if isinstance(e, sqlite3.OperationalError) and _is_environment(e):
                raise
            self._forget_row("DELETE FROM sessions WHERE key=?", (key,))
            return None

    def _forget_row(self, sql: str, params: tuple[str, ...]) -> None:
        """A row that no longer parses is a cache miss: the next commit writes it again."""
        self.db.execute(sql, params)

    def put_session(self, s: Session) -> None:
        self.db.execute("INSERT OR REPLACE INTO sessions(key, session) VALUES (?, ?)", (s.key, s.model_dump_json()))

    # ---- the unchanged-session fast path ----
    def known(self) -> dict[str, "Known"]:
        """Every stored session (key only: rows are parsed when needed) with its signature and
        its files' stat identities, in three queries: a re-sync checks each discovered
        session against this, not the DB. Empty when the tables cannot be read as a whole
        (a rotten row): every session then goes the long way, which drops such rows."""
        try:
            sigs = dict(self.db.execute("SELECT key, value FROM signatures").fetchall())
            out = {key: Known(key, sigs.get(key), {}) for (key,) in self.db.execute("SELECT key FROM sessions")}
            for key, logical, inode, size, mtime_ns in self.db.execute(
                    "SELECT session_key, logical_path, inode, size, mtime_ns FROM artifacts"):
                k = out.get(key)
                if k is not None:
                    k.files[logical] = (inode, size, mtime_ns)
        except (sqlite3.DataError, sqlite3.OperationalError, ValueError) as e:
            if isinstance(e, sqlite3.OperationalError) and _is_environment(e):
                raise
            return {}
        return out

    def put_signatures(self, sigs: dict[str, str | None]) -> None:
        """Record (or, for None, forget) the discovery signature each session was archived
        under. Called in the transaction that stores those sessions (or with none, when the
        run stored nothing because nothing changed)."""
        if not sigs:
            return
        put = [(k, v) for k, v in sigs.items() if v is not None]
        drop = [(k,) for k, v in sigs.items() if v is None]
        own = not self.db.in_transaction
        if own:
            self.db.execute("BEGIN IMMEDIATE")
        try:
            self.db.executemany("INSERT OR REPLACE INTO signatures(key, value) VALUES (?, ?)", put)
            self.db.executemany("DELETE FROM signatures WHERE key=?", drop)
        except BaseException:
            if own:
                self.db.execute("ROLLBACK")
            raise
        if own:
            self.db.execute("COMMIT")

    # ---- runs ----
    def record_run(self, run_id: str, started: str, finished: str, result: dict) -> None:
        self.db.execute("INSERT OR REPLACE INTO runs VALUES (?,?,?,?)", (run_id, started, finished, json.dumps(result)))

    def last_run(self) -> dict | None:
        row = self.db.execute("SELECT run_id, started, finished, result FROM runs ORDER BY finished DESC LIMIT 1").fetchone()
        if not row:
            return None
        return {"run_id": row[0], "started": row[1], "finished": row[2], "result": json.loads(row[3])}


def _space_hint(path: Path) -> str:
    """SQLite says 'disk I/O error' when a full disk stops its WAL: say what it is."""
    import shutil

    try:
        free = shutil.disk_usage(path.parent).free
    except OSError:
        return ""
    return f" (no space left: {free} bytes free on the state dir)" if free < 1 << 20 else ""


def _is_environment(e: BaseException) -> bool:
    return any(m in str(e).lower() for m in _ENVIRONMENT_ERRORS)


class DiscoveryCache(MutableMapping[str, str]):
    """Collectors' per-file facts between runs: read once at start, written once at the end.
    Entries not used in a run are dropped when it flushes, so the table tracks the disk."""

    def __init__(self, state: State) -> None:
        self.state = state
        try:
            self._data = dict(state.db.execute("SELECT key, value FROM discovery_cache").fetchall())
        except sqlite3.Error:
            self._data = {}
        self._used: set[str] = set()
        self._dirty = False
        self._released = False  # written early (release): the table holds the entries

    def __getitem__(self, key: str) -> str:
        value = self._data[key]
        self._used.add(key)
        return value

    def get(self, key: str, default: str | None = None) -> str | None:  # type: ignore[override]
        value = self._data.get(key)
        if value is None:
            return default
        self._used.add(key)
        return value

    def __setitem__(self, key: str, value: str) -> None:
        self._data[key] = value
        self._used.add(key)
        self._dirty = True

    def __delitem__(self, key: str) -> None:
        del self._data[key]
        self._dirty = True

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def flush(self) -> None:
        keep = {k: v for k, v in self._data.items() if k in self._used and is_utf8(k) and is_utf8(v)}
        if self._released:  # the table already holds this run's entries: only those added since
            if keep:
                with self.state.transaction():
                    self.state.db.executemany(
                        "INSERT OR REPLACE INTO discovery_cache(key, value) VALUES (?, ?)", list(keep.items()))
            self._data, self._used, self._dirty = {}, set(), False
            return
        if not self._dirty and len(keep) == len(self._data):
            return
        with self.state.transaction():
            self.state.db.execute("DELETE FROM discovery_cache")
            self.state.db.executemany("INSERT INTO discovery_cache(key, value) VALUES (?, ?)", list(keep.items()))
        self._data, self._dirty = keep, False

    def release(self) -> None:
        """Discovery is over: write the entries now (as flush would at the end) and hold none
        for the rest of the run (~1.4 KB a session: 6.5 MB of strings on 4,600 sessions, held
        through the redaction peak). A later lookup misses (the collector reads its file again);
        a later entry is kept until flush, which adds it to the rows written here."""
        if self._released:
            return
        try:
            self.flush()
        except sqlite3.Error:  # held as before: the end of the run flushes (and reports) again
            return
        self._data, self._used, self._dirty, self._released = {}, set(), False, True


class _Tx:
    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> sqlite3.Connection:
        self.db.execute("BEGIN IMMEDIATE")
        return self.db

    def __exit__(self, exc_type: object, *_: object) -> None:
        self.db.execute("COMMIT" if exc_type is None else "ROLLBACK")


# ---- runs that stopped before they started ----
FAILURE_FILE = "last-failure.json"
MAX_FAILURE_CHARS = 500


def record_failure(state_dir: Path, started: str, finished: str, reason: str) -> bool:
    """Note, next to the state database, a run that failed before it could record itself there
    (config, keys, state dir, store unreachable at start), so `status` shows it rather than the
    last good run. Replaced atomically; False when the state dir cannot take it (the metrics
    file and the exit code still say so)."""
    from archiver.metrics import write_atomic

    doc = {"started": started, "finished": finished, "result": "failed",
           "errors": [reason[:MAX_FAILURE_CHARS] + ("…" if len(reason) > MAX_FAILURE_CHARS else "")]}
    try:
        if not state_dir.is_dir():
            return False
        write_atomic(state_dir / FAILURE_FILE, json.dumps(doc), mode=0o600)
    except OSError:
        return False
    return True


def read_failure(state_dir: Path) -> dict | None:
    """The failure `record_failure` noted, or None (none, or unreadable: it is only a note)."""
    try:
        doc = json.loads((state_dir / FAILURE_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(doc, dict) or not isinstance(doc.get("finished"), str):
        return None
    errors = doc.get("errors")
    doc["errors"] = [str(e) for e in errors] if isinstance(errors, list) else []
    return doc


def clear_failure(state_dir: Path) -> None:
    """A run that recorded itself in the state database supersedes the note."""
    try:
        (state_dir / FAILURE_FILE).unlink(missing_ok=True)
    except OSError:
        pass


class StateBusy(StateError):
    """The state database is locked by a writer that readers must wait for (a sync creating it,
    or moving a rollback-journal database to WAL): a run is in progress, with no result yet."""


# how long `status` waits on a locked state database: a WAL reader is never blocked by a writer,
# so only a database being created or changed to WAL locks it, for as long as that takes
STATUS_BUSY_TIMEOUT = 0.25


def read_runs(path: Path, limit: int = 500) -> tuple[int, list[tuple[str, str, str, str]]]:
    """(runs recorded, the newest `limit` runs as (run_id, started, finished, result JSON)), read
    without writing and without waiting on a writer: `status` may run while a sync holds the
    database, and must not move a damaged one aside (the next sync does that). A database being
    created (empty, or without its tables yet) has recorded no run: (0, []). StateBusy when a
    writer holds it locked; StateError when it cannot be read."""
    from urllib.parse import quote

    try:
        if os.stat(path).st_size == 0:  # created by a sync that has not written its first page yet
            return 0, []
        db = sqlite3.connect(f"file:{quote(str(path))}?mode=ro", uri=True, timeout=STATUS_BUSY_TIMEOUT)
    except FileNotFoundError:
        return 0, []
    except (OSError, sqlite3.Error) as e:
        raise StateError(f"{path}: {getattr(e, 'strerror', None) or e}") from None
    try:
        if not db.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name='runs'").fetchone():
            return 0, []  # its tables are made in the sync's first statements
        count = db.execute("SELECT count(*) FROM runs").fetchone()[0]
        rows = db.execute("SELECT run_id, started, finished, result FROM runs ORDER BY finished DESC LIMIT ?",
                          (limit,)).fetchall()
    except sqlite3.OperationalError as e:
        if _is_busy(e):
            raise StateBusy(f"{path}: busy: a sync holds it (creating it, or changing it to WAL); "
                            "no result until it lets go") from None
        raise StateError(f"{path}: {e}") from None
    except sqlite3.Error as e:
        raise StateError(f"{path}: {e}") from None
    finally:
        db.close()
    return int(count), rows


def _is_busy(e: sqlite3.Error) -> bool:
    code = getattr(e, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)
    return "locked" in str(e).lower() or "busy" in str(e).lower()
