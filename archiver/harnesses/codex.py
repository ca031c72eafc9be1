"""Codex: $CODEX_HOME (default ~/.codex), per seeds/by-harness/codex.json.

Sessions
- `codex:<thread-id>`: the thread's rollout `rollout-<ts>-<thread-id>.jsonl[.zst]` (under
  sessions/YYYY/MM/DD/ or archived_sessions/) plus its sidecars: its rows of state_5.sqlite
  and thread_history_1.sqlite (per-thread SQLite extracts taken from one backup-API copy,
  WAL included), its session_index.jsonl entries (its name), shell_snapshots/<thread-id>.*.sh
  (exported environment: secrets) and generated_images/<thread-id>/ (on restore the rollout's
  saved_path / savedPath name the restored image: relink_restored).
- `codex:<thread-id>_<rollout-id>`: a rollout written by thread/revert, kind `revert`, edge
  `revert` to its thread. Which rollout is current lives in state_5 threads.rollout_path; it
  travels in the thread's state extract and `after_restore` re-points it at the restored file.
- `codex:<thread-id>` with no rollout: shell_snapshots/ and generated_images/ files of a thread
  whose rollouts are gone (the rest of its sidecars with them), with a warning; a thread
  archived before keeps its archived rollout.
- `codex:@host`: history.jsonl, logs_*.sqlite, goals_*.sqlite, memories_*.sqlite and
  queue_*.sqlite (cross-session files), the host state extract of state_5 (below) when there is
  one, plus discovery problems that belong to no thread.

state_5 tables (seed: threads, thread_spawn_edges, thread_dynamic_tools, rollout_migration_state,
"etc."): a thread's extract holds its rows of every table with a thread column (`_thread_column`)
and the schema of the others, plus every `_sqlx*` migration row (so Codex accepts a rebuilt file).
rollout_migration_state has no thread column. The seed names it only; by its name and the journal
beside it (rollout-migrations/<thread>.pending, "journal for the in-place legacy -> paginated
rollout migration that runs at startup", kind "other") it is the state of that migration over
this machine's files: bookkeeping, not session data. A thread's outcome of that
migration is in its own files (the rewritten rollout, threads.history_mode); restore needs no
more, and merging a source's migration state into the target would tell Codex its startup
migration is done for files it never saw (a restored legacy rollout would stay unmigrated). So
it is archived nowhere, deliberately.
Any other table with rows and no thread column (one a future Codex adds: the seed's "etc.") is
no thread's and so goes to the host session: `codex:@host` gets a host state extract
(archiver-extracts/state_5/@host.sqlite, from the same backup-API copy, WAL included) holding
the schema, the `_sqlx*` rows and every row of those tables, and a host warning names each such
table and its row count (never a value). Restore merges it into state_5.sqlite as it merges a
thread's extract; rows of those tables already in the target are not added twice (they may
have no key). A table with a thread column stays in its threads' extracts.

Compressed rollouts: a `.jsonl.zst` is declared with its real file name, format
`jsonl.zst` and mode `zst` (stored decompressed); a `.jsonl` with format `jsonl`. Both
forms of one thread carry the same session key, and the pipeline dedups their content,
so the 7-day move to `.zst` re-uploads nothing; restore writes the `.zst` compressed again.
Paginated rollouts are append-only (mode `append`); legacy ones (no history_mode) are
rewritten in place by Codex's startup migration, so they are snapshotted `whole`.

Lineage (child -> parent)
- subagent: session_meta.parent_thread_id, source.subagent.thread_spawn.parent_thread_id
  (`at` = "depth=<n>"), else state_5 thread_spawn_edges, else the parent's own pointer: a
  rollout's item_completed CollabAgentToolCall `spawn_agent` naming it in receiver_thread_ids
  (parent = its sender_thread_id, `at` = the call id), or a legacy rollout's sub-agent activity
  (event_msg sub_agent_activity, item_completed SubAgentActivity) naming it in agent_thread_id
  (parent = the rollout holding it, `at` = the item id); failing those, a thread whose
  session_id (root of the tree) differs from its id gets an inferred edge to that root.
- fork: forked_from_id. A paginated fork's history_base.thread_id is a *rollout* id; when it
  names a revert rollout the edge points at that rollout's session. `at` =
  "rollout=<rollout-id>;ordinal=<end_ordinal_exclusive>" (legacy: "ordinal=<forked_from_ordinal_exclusive>").
  history_base chains are resolved recursively and a missing link is reported.
- revert: `<thread-id>_<rollout-id>` -> `<thread-id>`, `at` as for forks.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import shutil
import sqlite3
import tempfile
import threading
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Callable, Iterator

import orjson

from archiver.harnesses.base import HarnessContext, native_path
from archiver.harnesses.common import (
    cache_get,
    cache_put,
    configured_root,
    file_state_key,
    index_if_scanned,
    iso,
    open_file,
    regular_files,
    relative_or_absolute,
    sorted_paths,
    sql_ident,
    sql_value_digest,
    sqlite_identity,
)
from archiver.harnesses.jsonl_probe import Line, parse_line, scan_lines, unparseable_warning
from archiver.harnesses.relinking import json_string, restored_path, rewrite_lines, string_field
from archiver.model import Artifact, DiscoveredSession, LineageEdge, Session, SourceArtifact, session_key
from archiver.snapshot import SnapshotError, copy_sqlite

log = logging.getLogger(__name__)

NAME = "codex"
HOST_ID = "@host"
EXTRACTS = "archiver-extracts"  # under the Codex root: per-thread extracts, merged back by after_restore
MAX_LINE = 8 * 1024 * 1024  # longer lines are not parsed, only shape-checked

_UUID = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
ROLLOUT_RE = re.compile(
    rf"^rollout-(?P<ts>\d{{4}}-\d{{2}}-\d{{2}}T\d{{2}}-\d{{2}}-\d{{2}})-(?P<tid>{_UUID})"
    r"(?:_(?P<rid>[A-Za-z0-9-]+))?\.jsonl(?P<zst>\.zst)?$"
)
HOST_DB_PREFIXES = ("logs_", "goals_", "memories_", "queue_")
# the session_meta fields discovery reads (all that the cache keeps of a rollout's first line)
META_KEYS = ("id", "timestamp", "cwd", "history_mode", "history_base", "forked_from_id",
             "forked_from_ordinal_exclusive", "source", "parent_thread_id", "session_id")
_IMAGES_DIR = "generated_images"
# the fields naming an image generation's saved file (event_msg image_generation_end, item savedPath)
_SAVED_PATH_FIELDS = tuple((f'"{k}"'.encode(), string_field(k)) for k in ("saved_path", "savedPath"))
# an image edit's input images (image_generation_end.input_images, Extension item.inputImages:
# [{path, sha256}]) name an earlier generation by its saved path: relinked the same way when it
# names a restored image, else left as it is without a note (an input may be any file)
_INPUT_PATH_FIELD = (b'"path"', string_field("path"))
_INPUT_IMAGE_KEYS = (b'"input_images"', b'"inputImages"')


# ---------------------------------------------------------------- rollout streams


def _open_stream(path: Path) -> IO[bytes]:
    f = open_file(path)  # a symlink or FIFO swapped in is refused, never followed or waited on
    if path.name.endswith(".zst"):
        import zstandard

        return zstandard.ZstdDecompressor().stream_reader(f, closefd=True, read_across_frames=True)  # type: ignore[return-value]
    return f


# ---------------------------------------------------------------- SQLite helpers


def _thread_column(table: str, columns: list[str]) -> str | None:
    """The column naming a Codex table's thread; "" = every row belongs to every extract; None = none."""
    if table == "threads" and "id" in columns:
        return "id"
    if "child_thread_id" in columns:  # thread_spawn_edges: an edge travels with its child
        return "child_thread_id"
    if "thread_id" in columns:
        return "thread_id"
    if table.startswith("_sqlx"):  # migration bookkeeping, so a rebuilt DB is accepted by Codex
        return ""
    return None


SKIPPED_TABLES = ("rollout_migration_state",)  # no thread column, archived nowhere (module docstring)


def _host_table(table: str, columns: list[str]) -> bool:
    """A table no thread's extract holds rows of (no thread column, not `_sqlx*`) and not
    skipped: its rows go to the host state extract."""
    return _thread_column(table, columns) is None and table not in SKIPPED_TABLES


def _thread_filter(table: str, columns: list[str]) -> tuple[str, bool] | None:
    """(WHERE clause selecting one thread's rows of a Codex table, "" = all rows; whether they
    count as the thread's), or None: none of its rows."""
    col = _thread_column(table, columns)
    return None if col is None else (f"{col} = :tid" if col else "", bool(col))


def _host_filter(table: str, columns: list[str]) -> tuple[str, bool] | None:
    """As _thread_filter, for the host extract: every row of a host table, the `_sqlx*` rows."""
    if _host_table(table, columns):
        return "", True
    return ("", False) if _thread_column(table, columns) == "" else None


def _is_shadow(name: str, virtual: set[str]) -> bool:
    return any(name.startswith(v + "_") for v in virtual)


def host_table_rows(con: sqlite3.Connection) -> dict[str, int]:
    """Row count of each host table (_host_table) of `con`'s main database that has rows."""
    objects, virtual = _schema_objects(con, "main")
    out: dict[str, int] = {}
    for typ, name, _sql in objects:
        if typ != "table" or name in virtual or _is_shadow(name, virtual):
            continue
        columns = [r[1] for r in con.execute(f"PRAGMA main.table_info({sql_ident(name)})")]
        if _host_table(name, columns):
            n = int(con.execute(f"SELECT count(*) FROM main.{sql_ident(name)}").fetchone()[0])
            if n:
                out[name] = n
    return out


def _schema_objects(con: sqlite3.Connection, schema: str) -> tuple[list[tuple[str, str, str]], set[str]]:
    """(type, name, sql) of a database's schema in extract order, and its virtual tables. The
    indexes index_thread_columns added to a snapshot are not the database's: left out."""
    objects = con.execute(
        f"SELECT type, name, sql FROM {schema}.sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' "
        f"AND NOT (type = 'index' AND name GLOB '{SNAPSHOT_INDEX_PREFIX}*') "
        "ORDER BY CASE type WHEN 'table' THEN 0 WHEN 'index' THEN 1 ELSE 2 END, name"
    ).fetchall()
    return objects, {n for t, n, s in objects if t == "table" and s.upper().lstrip().startswith("CREATE VIRTUAL")}


SNAPSHOT_INDEX_PREFIX = "archiver_snapshot_by_thread_"


def index_thread_columns(snapshot: Path) -> list[str]:
    """Index, in this run's private snapshot, each thread column SQLite could only find a
    thread's rows of by reading the whole table: an extract is taken per thread, so without an
    index every table is read once per thread (threads x rows). The seed gives no indexes;
    Codex's own schema may lack one for a table it adds. Returns the tables indexed. The
    indexes are the snapshot's, never an extract's or a digest's (_schema_objects skips them)."""
    con = sqlite3.connect(str(snapshot), isolation_level=None)
    indexed: list[str] = []
    try:
        objects, virtual = _schema_objects(con, "main")
        for typ, name, _sql in objects:
            if typ != "table" or name in virtual or _is_shadow(name, virtual):
                continue
            columns = [r[1] for r in con.execute(f"PRAGMA main.table_info({sql_ident(name)})")]
            col = _thread_column(name, columns)
            if col and index_if_scanned(con, name, col, SNAPSHOT_INDEX_PREFIX + name):
                indexed.append(name)
    finally:
        con.close()
    return indexed


def _identity_or_none(db: Path) -> str | None:
    try:
        return sqlite_identity(db)
    except OSError:
        return None


def thread_digests(snapshot: Path) -> dict[str, str]:
    """Per thread id, a digest of everything its extract (extract_thread_rows) holds: the schema,
    the rows every extract carries and the thread's own rows, as multisets. Equal digests, equal
    extracts: the change identity of a thread's extract, so a write to one thread's rows (Codex
    bumps updated_at of the thread it works on) sends only that thread the long way, not every
    thread of the shared database. Under HOST_ID, when a host table has rows, the same for the
    host extract (extract_host_rows). One read of the database."""
    con = sqlite3.connect(f"file:{snapshot}?mode=ro", uri=True)
    try:
        objects, virtual = _schema_objects(con, "main")
        common = hashlib.blake2b(digest_size=16)
        rows: dict[str, list[bytes]] = {}
        host_rows: list[bytes] = []
        for typ, name, sql in objects:
            sql_value_digest(common, f"{typ}\0{name}\0{sql}")
            if typ != "table" or name in virtual or _is_shadow(name, virtual):
                continue
            columns = [r[1] for r in con.execute(f"PRAGMA main.table_info({sql_ident(name)})")]
            col = _thread_column(name, columns)
            host = _host_table(name, columns)
            if col is None and not host:
                continue
            shared: list[bytes] = []
            for row in con.execute(f"SELECT * FROM main.{sql_ident(name)}"):
                h = hashlib.blake2b(digest_size=16)
                sql_value_digest(h, name)
                for v in row:
                    sql_value_digest(h, v)
                if host:
                    host_rows.append(h.digest())
                elif not col:
                    shared.append(h.digest())
                elif (tid := row[columns.index(col)]) is not None:
                    rows.setdefault(str(tid), []).append(h.digest())
            common.update(b"".join(sorted(shared)))
        base = common.digest()
        out = {tid: hashlib.blake2b(base + b"".join(sorted(ds)), digest_size=16).hexdigest() for tid, ds in rows.items()}
        if host_rows:
            out[HOST_ID] = hashlib.blake2b(b"host\0" + base + b"".join(sorted(host_rows)), digest_size=16).hexdigest()
        return out
    finally:
        con.close()


def extract_thread_rows(snapshot: Path, dst: Path, thread_id: str) -> int:
    """Write `dst`: a SQLite file with `snapshot`'s schema holding only `thread_id`'s rows.

    Virtual tables (search indexes) are created empty; their shadow tables are left to them.
    Returns the number of thread rows copied.
    """
    return _write_extract(snapshot, dst, _thread_filter, {"tid": thread_id})


def extract_host_rows(snapshot: Path, dst: Path) -> int:
    """Write `dst`: a SQLite file with `snapshot`'s schema holding the `_sqlx*` rows and every
    row of the host tables (_host_table), no thread's rows. Returns the host rows copied."""
    return _write_extract(snapshot, dst, _host_filter, {})


def _write_extract(snapshot: Path, dst: Path, pick: Callable[[str, list[str]], tuple[str, bool] | None],
                   params: dict[str, Any]) -> int:
    dst.unlink(missing_ok=True)
    out = sqlite3.connect(str(dst), isolation_level=None)
    copied = 0
    try:
        # a file of our own, written once: no rollback journal, no fsync (the COMMIT's fsyncs were
        # most of an extract's time, one extract per thread); neither changes the file's bytes
        out.execute("PRAGMA main.journal_mode=OFF")
        out.execute("PRAGMA main.synchronous=OFF")
        out.execute("ATTACH DATABASE ? AS src", (str(snapshot),))
        objects, virtual = _schema_objects(out, "src")
        out.execute("BEGIN")
        later: list[str] = []
        for typ, name, sql in objects:
            if typ != "table":
                later.append(sql)
                continue
            if _is_shadow(name, virtual):
                continue
            try:
                out.execute(sql)
            except sqlite3.Error as e:
                log.warning("%s: table %s not recreated in the extract (%s)", snapshot.name, name, e)
                continue
            if name in virtual:
                continue
            columns = [r[1] for r in out.execute(f"PRAGMA src.table_info({sql_ident(name)})")]
            picked = pick(name, columns)
            if picked is None:
                continue
            where, counted = picked
            sql_sel = f"INSERT INTO main.{sql_ident(name)} SELECT * FROM src.{sql_ident(name)}" + (f" WHERE {where}" if where else "")
            cur = out.execute(sql_sel, params if where else {})
            if counted:
                copied += max(cur.rowcount, 0)
        for sql in later:
            try:
                out.execute(sql)
            except sqlite3.Error as e:  # an index on a skipped shadow table, ...
                log.debug("%s: schema object not recreated (%s)", snapshot.name, e)
        out.execute("COMMIT")
        out.execute("DETACH DATABASE src")
    finally:
        out.close()
    return copied


# ---------------------------------------------------------------- the collector


@dataclass
class _Rollout:
    file: Path
    thread_id: str
    rollout_id: str | None  # None for the thread's first rollout (its rollout id is the thread id)
    meta: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    legacy: bool = True
    st: os.stat_result | None = None  # as stat'ed when its first line was read

    @property
    def session_id(self) -> str:
        return self.thread_id if self.rollout_id is None else f"{self.thread_id}_{self.rollout_id}"

    @property
    def zst(self) -> bool:
        return self.file.name.endswith(".zst")

    @property
    def plain_name(self) -> str:
        return self.file.name[: -len(".zst")] if self.zst else self.file.name


@dataclass
class _State:
    threads: dict[str, dict[str, Any]] = field(default_factory=dict)
    spawn_parent: dict[str, str] = field(default_factory=dict)
    # child thread -> (sender thread, spawn_agent call id) from the rollouts' CollabAgentToolCall items
    spawned: dict[str, tuple[str, str]] = field(default_factory=dict)
    history_threads: set[str] = field(default_factory=set)
    # live database path -> thread id -> digest of its extract (thread_digests), the extract's change identity
    digests: dict[str, dict[str, str]] = field(default_factory=dict)
    host_rows: dict[str, int] = field(default_factory=dict)  # state_5 host table -> its rows (host_table_rows)


class Codex:
    name = NAME
    native_root = ".codex"

    def __init__(self, ctx: HarnessContext) -> None:
        self.ctx = ctx
        self._lock = threading.Lock()
        self._tmp: Path | None = None
        self._finalizer: weakref.finalize | None = None
        self._snapshots: dict[str, Path] = {}
        # set for the length of one discover(): what would otherwise be probed per thread
        self._run: dict[str, Any] | None = None
        self._index_digests: dict[str, str] = {}  # thread id -> digest of its session_index lines
        self._index_lines = _IndexLines()  # where each thread's lines are, for its extract

    @property
    def root(self) -> Path:
        return configured_root(self.ctx, "CODEX_HOME", tilde_home=self.ctx.home) or self.ctx.home / ".codex"

    def close(self) -> None:
        """Remove the temporary database snapshots (also done when the object is collected)."""
        if self._finalizer is not None:
            self._finalizer()
        self._tmp, self._finalizer, self._snapshots = None, None, {}

    # ---- discovery ----

    def discover(self) -> Iterator[DiscoveredSession]:
        root = self.root
        if not root.is_dir():
            return
        host = DiscoveredSession(harness=NAME, session_id=HOST_ID, kind="host", title="Codex host files")
        with self._lock:  # a new run reads a new consistent copy
            for snap in self._snapshots.values():
                snap.unlink(missing_ok=True)
            self._snapshots = {}
        self._run = None
        self._run = self._listings(root)
        try:
            yield from self._discover(root, host)
        finally:
            self._run = None

    def _listings(self, root: Path) -> dict[str, Any]:
        """Per run, not per thread: the databases, the index, the shell snapshots by thread id
        and the generated_images folders."""
        snaps: dict[str, list[Path]] = {}
        try:
            with os.scandir(root / "shell_snapshots") as entries:
                for e in entries:
                    tid = e.name.split(".", 1)[0]
                    if "." in e.name:
                        snaps.setdefault(tid, []).append(Path(e.path))
        except OSError:
            pass
        try:
            with os.scandir(root / "generated_images") as entries:
                images = {e.name for e in entries if e.is_dir()}
        except OSError:
            images = set()
        return {
            "root": root,
            "index_path": root / "session_index.jsonl",
            "shell_snapshots_dir": root / "shell_snapshots",
            "generated_images_dir": root / "generated_images",
            "db:state": self._db("state"),
            "db:thread_history": self._db("thread_history"),
            "index": (root / "session_index.jsonl").is_file(),
            "shell_snapshots": snaps,
            "generated_images": images,
        }

    def _discover(self, root: Path, host: DiscoveredSession) -> Iterator[DiscoveredSession]:
        state = self._read_state(host)
        names = self._read_session_index(host)
        rollouts = self._find_rollouts(root, state, host)
        by_rollout_id: dict[str, _Rollout] = {}
        for r in rollouts.values():
            by_rollout_id[r.rollout_id or r.thread_id] = r

        # a spawn record names its sender (CollabAgentToolCall) or is the holding rollout's own
        # (sub_agent_activity: sender ""); the explicit ones first, then those of rollouts that
        # inherit no one's records before those of forks and sub-agents: a legacy fork copies its
        # parent's records, and a sub-agent may start with its parent's context (seed:
        # subagent_history_start_ordinal), activity included
        found: list[tuple[int, str, str, str]] = []
        for sid in sorted(rollouts):
            r = rollouts[sid]
            source = r.meta.get("source")
            fork = bool(r.meta.get("forked_from_id") or r.meta.get("history_base") or r.meta.get("parent_thread_id")
                        or (isinstance(source, dict) and "subagent" in source))
            try:
                for sender, child, call_id in self._scan(r.file, r.st)[2]:
                    rank = 0 if sender else (2 if fork else 1)
                    found.append((rank, sender or r.thread_id, child, call_id))
            except Exception:  # noqa: BLE001 (reported where the session is read)
                continue
        for _rank, sender, child, call_id in sorted(found, key=lambda x: x[0]):
            if child != sender:
                state.spawned.setdefault(child, (sender, call_id))
        sessions: list[DiscoveredSession] = []
        thread_ids = {r.thread_id for r in rollouts.values()}
        for sid in sorted(rollouts):
            r = rollouts[sid]
            try:
                sessions.append(self._session(r, state, names, by_rollout_id))
            except OSError as e:
                why = f"unreadable ({e.strerror or e})"
                sessions.append(DiscoveredSession(harness=NAME, session_id=sid, unread=why,
                                                  warnings=[f"{self._rel(r.file)}: {why}"]))
        # a thread whose only rollouts are revert rollouts still gets its thread session (sidecars)
        for tid in sorted(t for t in thread_ids if t not in rollouts):
            s = DiscoveredSession(harness=NAME, session_id=tid, kind="main")
            s.title = self._title(tid, state, names)
            s.warnings.append(f"thread {tid}: no first rollout on disk, only revert rollouts")
            self._add_sidecars(s, tid, state, names)
            sessions.append(s)
        # files named by a thread whose rollouts are all gone (deleted, or never on this machine)
        for tid in self._leftover_threads(thread_ids):
            s = DiscoveredSession(harness=NAME, session_id=tid, kind="main")
            s.title = self._title(tid, state, names)
            s.warnings.append(f"thread {tid}: no rollout on disk; its shell_snapshots/ and generated_images/ files "
                              "are archived without it")
            self._add_sidecars(s, tid, state, names)
            files = [src.source for src in s.sources if src.mode != "produced"]
            if files:
                s.updated_at = iso(max(f.stat().st_mtime for f in files))
                sessions.append(s)

        self._add_host_files(root, host)
        self._add_host_state(host, state)
        if host.sources or host.warnings:
            yield host
        yield from sessions

    def _leftover_threads(self, thread_ids: set[str]) -> list[str]:
        """Ids that name shell_snapshots/<id>.<nonce>.sh|.ps1 or generated_images/<id>/ but no
        rollout: the harness deleted the thread's rollout and left these behind."""
        run = self._run or self._listings(self.root)
        ids = {tid for tid, files in run["shell_snapshots"].items()
               if any(_is_shell_snapshot(f, tid) for f in files)}
        ids |= set(run["generated_images"])
        return sorted(ids - thread_ids)

    def _root(self) -> Path:
        return self._run["root"] if self._run is not None else self.root

    def _rel(self, file: Path) -> str:
        return relative_or_absolute(file, self._root())

    def _src(self, file: Path, role: str, fmt: str, mode: str, **kw: Any) -> SourceArtifact:
        return SourceArtifact(
            source=file,
            path=native_path(self.native_root, self._root(), file),
            role=role,  # type: ignore[arg-type]
            format=fmt,  # type: ignore[arg-type]
            mode=mode,  # type: ignore[arg-type]
            **kw,
        )

    # -- state_5.sqlite / thread_history_*.sqlite

    def _db(self, stem: str) -> Path | None:
        """Highest-numbered `<stem>_<n>.sqlite` under root (state_5, thread_history_1, ...)."""
        if self._run is not None and f"db:{stem}" in self._run:
            return self._run[f"db:{stem}"]  # type: ignore[no-any-return]
        best: tuple[int, Path] | None = None
        for p in self.root.glob(f"{stem}_*.sqlite"):
            m = re.fullmatch(rf"{re.escape(stem)}_(\d+)\.sqlite", p.name)
            if m and p.is_file() and (best is None or int(m.group(1)) > best[0]):
                best = (int(m.group(1)), p)
        return best[1] if best else None

    def db_snapshot(self, live: Path) -> Path:
        """This run's consistent private copy of a live database (made once per run)."""
        with self._lock:
            snap = self._snapshots.get(str(live))
            if snap is not None and snap.exists():
                return snap
            if self._tmp is None or not self._tmp.exists():
                self._tmp = Path(tempfile.mkdtemp(prefix="archiver-codex-"))  # mode 0700
                self._finalizer = weakref.finalize(self, shutil.rmtree, str(self._tmp), True)
            snap = self._tmp / f"{len(self._snapshots)}-{live.name}"
            copy_sqlite(live, snap)
            index_thread_columns(snap)
            self._snapshots[str(live)] = snap
            return snap

    def _read_state(self, host: DiscoveredSession) -> _State:
        state = _State()
        db = self._db("state")
        if db is not None:
            before = _identity_or_none(db)  # before the snapshot: what cached digests may be filed under
            try:
                con = sqlite3.connect(str(self.db_snapshot(db)))
                try:
                    con.row_factory = sqlite3.Row
                    tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
                    if "threads" in tables:
                        for row in con.execute("SELECT * FROM threads"):
                            state.threads[str(row["id"])] = dict(row)
                    if "thread_spawn_edges" in tables:
                        for row in con.execute("SELECT parent_thread_id, child_thread_id FROM thread_spawn_edges"):
                            state.spawn_parent[str(row[1])] = str(row[0])
                    state.host_rows = host_table_rows(con)
                finally:
                    con.close()
            except (sqlite3.Error, OSError) as e:
                host.warnings.append(f"{db.name}: unreadable ({e}); threads' state rows not archived")
                self._snapshots.pop(str(db), None)
            else:
                self._digests(db, state, before)
        hist = self._db("thread_history")
        if hist is not None:
            before = _identity_or_none(hist)
            try:
                con = sqlite3.connect(str(self.db_snapshot(hist)))
                try:
                    for (name,) in con.execute("SELECT name FROM sqlite_master WHERE type='table'").fetchall():
                        cols = [r[1] for r in con.execute(f"PRAGMA table_info({sql_ident(name)})")]
                        if "thread_id" in cols:
                            state.history_threads.update(
                                str(r[0]) for r in con.execute(f"SELECT DISTINCT thread_id FROM {sql_ident(name)}")
                            )
                finally:
                    con.close()
            except (sqlite3.Error, OSError) as e:
                host.warnings.append(f"{hist.name}: unreadable ({e}); threads' history rows not archived")
                self._snapshots.pop(str(hist), None)
            else:
                self._digests(hist, state, before)
        return state

    def _digests(self, live: Path, state: _State, before: str | None) -> None:
        """Each thread's extract digest of `live` (this run's snapshot of it), read once per state
        of the database (`before`: its identity before the snapshot was taken; kept only when
        nothing wrote to it since). None on a read error: the extracts are then told changed by
        the database's own stat, as before."""
        key = f"codex:thread-digests:v2|{live}|{before}"  # v2: with the host extract's digest
        hit = cache_get(self.ctx.cache, key) if before is not None else None
        if isinstance(hit, dict) and all(isinstance(v, str) for v in hit.values()):
            state.digests[str(live)] = hit
            return
        try:
            digests = thread_digests(self.db_snapshot(live))
        except (sqlite3.Error, OSError) as e:
            log.debug("%s: no per-thread digests (%s)", live.name, e)
            return
        state.digests[str(live)] = digests
        if before is not None and _identity_or_none(live) == before:
            cache_put(self.ctx.cache, key, digests)

    # -- session_index.jsonl

    def _read_session_index(self, host: DiscoveredSession) -> dict[str, str]:
        """Thread names: the last session_index.jsonl entry for an id wins. Read once per
        file state (a line per thread: every run would otherwise parse all of them)."""
        names: dict[str, str] = {}
        self._index_digests = {}
        index = self._root() / "session_index.jsonl"
        if not index.is_file():
            return names
        bad: list[int] = []
        digests: dict[str, str] = {}
        key, hit = None, None
        try:
            st = index.stat()
            key = file_state_key("codex:index:v2", index, st)
            hit = cache_get(self.ctx.cache, key)
        except OSError:
            pass
        if (isinstance(hit, list) and len(hit) == 3 and isinstance(hit[0], dict) and isinstance(hit[1], list)
                and isinstance(hit[2], dict)):
            names, bad, digests = hit
        else:
            try:
                self._index_names(index, names, bad, digests)
                if key is not None:
                    cache_put(self.ctx.cache, key, [names, bad, digests])
            except OSError as e:
                host.warnings.append(f"session_index.jsonl: unreadable ({e.strerror or e})")
        self._index_digests = digests
        if bad:
            host.warnings.append(f"session_index.jsonl: {len(bad)} unparseable line(s) (first at line {bad[0]})")
        return names

    @staticmethod
    def _index_names(index: Path, names: dict[str, str], bad: list[int], digests: dict[str, str]) -> None:
        """Names by thread; and per thread a digest of the lines its extract holds
        (_index_producer), its change identity: a new thread's line leaves the others' alone."""
        hashers: dict[str, Any] = {}
        with open_file(index) as f:
            for line in scan_lines(f, 1024 * 1024):
                ok, rec = parse_line(line)
                if not ok:
                    if line.terminated:
                        bad.append(line.no)
                    continue
                if isinstance(rec, dict) and rec.get("id") is not None:
                    tid = str(rec["id"])
                    name = rec.get("thread_name")
                    if isinstance(name, str):
                        names[tid] = name
                    if line.terminated and line.data is not None:
                        h = hashers.get(tid)
                        if h is None:
                            h = hashers[tid] = hashlib.sha256()
                        h.update(line.data + b"\n")
        digests.update({tid: h.hexdigest() for tid, h in hashers.items()})

    # -- rollouts

    def _find_rollouts(self, root: Path, state: _State, host: DiscoveredSession) -> dict[str, _Rollout]:
        candidates: dict[str, list[_Rollout]] = {}
        for top in ("sessions", "archived_sessions"):
            base = root / top
            if not base.is_dir():
                continue
            # a folder of rollouts that cannot be listed hides sessions: an error of the run
            for f in sorted_paths(regular_files(base, host.warnings, errors=host.errors)):
                if not (f.name.endswith(".jsonl") or f.name.endswith(".jsonl.zst")):
                    continue
                r = self._rollout(f, host)
                if r is not None:
                    candidates.setdefault(r.session_id, []).append(r)
        chosen: dict[str, _Rollout] = {}
        for sid, group in candidates.items():
            chosen[sid] = self._choose(group, state)
        return chosen

    def _first_record(self, f: Path) -> tuple[dict[str, Any], os.stat_result | None]:
        """({"meta": the session_meta fields discovery uses} or {"problem": "empty" | "other" |
        "unreadable (...)"}, the file's stat): a rollout's first line, read once per file state."""
        st = None
        try:
            st = f.stat()
            key = file_state_key("codex:first", f, st)
            hit = cache_get(self.ctx.cache, key)
            if isinstance(hit, dict):
                return hit, st
            with _open_stream(f) as stream:
                first = next(scan_lines(stream, MAX_LINE), None)
            ok, rec = parse_line(first) if first is not None else (False, None)
            if isinstance(rec, dict) and rec.get("type") == "session_meta" and isinstance(rec.get("payload"), dict):
                out: dict[str, Any] = {"meta": {k: rec["payload"][k] for k in META_KEYS if k in rec["payload"]}}
            else:
                out = {"problem": "empty" if first is None else "other"}
        except Exception as e:  # noqa: BLE001 - zstd and OS errors alike: one bad file never stops discovery
            # (a refused symlink or FIFO: its reason alone, the message names the file)
            why = e.strerror if isinstance(e, SnapshotError) and e.strerror else e
            return {"problem": f"unreadable ({why})"}, st  # not cached: may be passing
        cache_put(self.ctx.cache, key, out)
        return out, st

    def _rollout(self, f: Path, host: DiscoveredSession) -> _Rollout | None:
        m = ROLLOUT_RE.match(f.name)
        warnings: list[str] = []
        first, st = self._first_record(f)
        meta: dict[str, Any] = first.get("meta") or {}
        problem = first.get("problem")
        if problem == "empty":
            warnings.append(f"{self._rel(f)}: empty rollout")
        elif problem == "other":
            warnings.append(f"{self._rel(f)}: first line is not a session_meta record")
        elif problem:
            warnings.append(f"{self._rel(f)}: {problem}")
        if m:
            tid, rid = m.group("tid"), m.group("rid")
            if meta.get("id") and str(meta["id"]) != tid:
                warnings.append(f"{self._rel(f)}: session_meta.id {meta['id']} differs from the file name's thread id")
        elif meta.get("id"):
            tid, rid = str(meta["id"]), None
            warnings.append(f"{self._rel(f)}: unexpected rollout file name; thread id taken from session_meta")
        else:
            host.warnings.append(f"{self._rel(f)}: not a recognisable rollout (no thread id); kept in the host session")
            host.sources.append(self._src(f, "transcript", "jsonl.zst" if f.name.endswith(".zst") else "jsonl", "whole"))
            return None
        r = _Rollout(file=f, thread_id=tid, rollout_id=rid if rid and rid != tid else None, meta=meta, warnings=warnings,
                     st=st)
        r.legacy = meta.get("history_mode") != "paginated"
        return r

    def _choose(self, group: list[_Rollout], state: _State) -> _Rollout:
        """One file per rollout: .jsonl and .jsonl.zst (or sessions/ and archived_sessions/)
        coexist only during Codex's own move; the file state_5 names wins, then the plain one."""
        if len(group) == 1:
            return group[0]
        current = state.threads.get(group[0].thread_id, {}).get("rollout_path") or ""
        cur_name = os.path.basename(str(current))
        cur_dir = os.path.basename(os.path.dirname(str(current)))

        def rank(r: _Rollout) -> tuple[int, int, int, float]:
            named = r.file.name == cur_name or r.plain_name == cur_name
            same_dir = r.file.parent.name == cur_dir
            try:
                mtime = r.file.stat().st_mtime
            except OSError:
                mtime = 0.0
            return (not named, not same_dir, r.zst, -mtime)

        group = sorted(group, key=rank)
        keep = group[0]
        for other in group[1:]:
            keep.warnings.append(
                f"{self._rel(other.file)}: second copy of rollout {keep.session_id} (a move in progress); "
                f"{self._rel(keep.file)} archived instead"
            )
        return keep

    def _scan(self, f: Path, st: os.stat_result | None = None) -> tuple[int, list[int], list[list[str]]]:
        """(complete lines, numbers of unparseable complete lines, the spawns it records), once
        per file state (the cache persists between runs). A spawn is [sender thread, child
        thread, call id] of an item_completed CollabAgentToolCall `spawn_agent` (paginated
        rollouts persist every TurnItem): the parent's own pointer to a child (seed linking
        "subagents")."""
        st = st or f.stat()
        key = file_state_key("codex:scan:v4", f, st)  # v4: receiver_agents spawns too
        hit = cache_get(self.ctx.cache, key)
        if isinstance(hit, list) and len(hit) == 3 and isinstance(hit[2], list):
            return int(hit[0]), [int(b) for b in hit[1]], [list(map(str, x)) for x in hit[2]]
        bad: list[int] = []
        spawns: list[list[str]] = []
        n = 0
        with _open_stream(f) as stream:
            for line in scan_lines(stream, MAX_LINE):
                if not line.terminated:
                    break  # a torn final line is the writer's, not data damage
                n += 1
                ok, rec = parse_line(line)
                if not ok:
                    bad.append(line.no)
                elif line.data is not None and (b"CollabAgentToolCall" in line.data
                                                or b"ub_agent_activity" in line.data
                                                or b"SubAgentActivity" in line.data):
                    spawns.extend(_spawns(rec))
        cache_put(self.ctx.cache, key, [n, bad, spawns])
        return n, bad, spawns

    # -- one session

    def _title(self, tid: str, state: _State, names: dict[str, str]) -> str | None:
        if names.get(tid):
            return names[tid]
        row = state.threads.get(tid) or {}
        for col in ("name", "title"):
            if isinstance(row.get(col), str) and row[col]:
                return str(row[col])
        return None

    def _session(
        self, r: _Rollout, state: _State, names: dict[str, str], by_rollout_id: dict[str, _Rollout]
    ) -> DiscoveredSession:
        meta = r.meta
        s = DiscoveredSession(harness=NAME, session_id=r.session_id, warnings=list(r.warnings))
        s.created_at = meta.get("timestamp") if isinstance(meta.get("timestamp"), str) else None
        s.cwd = meta.get("cwd") if isinstance(meta.get("cwd"), str) else None
        s.title = self._title(r.thread_id, state, names)
        if r.zst:
            s.sources.append(self._src(r.file, "transcript", "jsonl.zst", "zst"))
        else:
            s.sources.append(self._src(r.file, "transcript", "jsonl", "whole" if r.legacy else "append"))
        s.updated_at = iso((r.st or r.file.stat()).st_mtime)
        try:
            lines, bad, _spawned = self._scan(r.file, r.st)
            if bad:
                s.warnings.append(unparseable_warning(self._rel(r.file), bad))
        except Exception as e:  # noqa: BLE001
            s.warnings.append(f"{self._rel(r.file)}: could not be scanned to the end ({e})")

        hb = meta.get("history_base") if isinstance(meta.get("history_base"), dict) else None
        at = _base_at(hb, meta)
        if r.rollout_id is not None:
            s.kind = "revert"
            s.parents.append(LineageEdge(relation="revert", parent=session_key(NAME, r.thread_id), at=at))
        else:
            self._add_sidecars(s, r.thread_id, state, names)
            sub = self._subagent_edge(r, state, s)
            if sub is not None:
                s.parents.append(sub)
                s.kind = "subagent"
            if meta.get("forked_from_id") or (hb and hb.get("thread_id")):
                s.parents.append(self._fork_edge(r, hb, at, by_rollout_id))
                if s.kind == "main":
                    s.kind = "fork"
        if hb:
            self._check_base_chain(r, by_rollout_id, s)
        return s

    def _subagent_edge(self, r: _Rollout, state: _State, s: DiscoveredSession) -> LineageEdge | None:
        meta = r.meta
        source = meta.get("source")
        spawn = None
        if isinstance(source, dict) and isinstance(source.get("subagent"), dict):
            spawn = source["subagent"].get("thread_spawn")
        spawn = spawn if isinstance(spawn, dict) else {}
        parent = meta.get("parent_thread_id") or spawn.get("parent_thread_id")
        depth = spawn.get("depth")
        at = f"depth={depth}" if isinstance(depth, int) else None
        if parent and spawn.get("parent_thread_id") and str(spawn["parent_thread_id"]) != str(parent):
            s.warnings.append(
                f"session_meta.parent_thread_id {parent} and source.subagent.thread_spawn.parent_thread_id "
                f"{spawn['parent_thread_id']} differ; the first is used"
            )
        if parent:
            return LineageEdge(relation="subagent", parent=session_key(NAME, str(parent)), at=at)
        if r.thread_id in state.spawn_parent:
            return LineageEdge(relation="subagent", parent=session_key(NAME, state.spawn_parent[r.thread_id]))
        if r.thread_id in state.spawned:  # the parent's rollout names it (no state_5 edge, no meta parent)
            sender, call_id = state.spawned[r.thread_id]
            return LineageEdge(relation="subagent", parent=session_key(NAME, sender), at=call_id or None)
        root_id = meta.get("session_id")
        is_fork = bool(meta.get("forked_from_id") or meta.get("history_base"))
        if root_id and str(root_id) != r.thread_id and not is_fork:
            return LineageEdge(relation="subagent", parent=session_key(NAME, str(root_id)), inferred=True)
        return None

    def _fork_edge(
        self, r: _Rollout, hb: dict[str, Any] | None, at: str | None, by_rollout_id: dict[str, _Rollout]
    ) -> LineageEdge:
        parent = str(r.meta.get("forked_from_id") or "")
        if hb and hb.get("thread_id"):
            base = by_rollout_id.get(str(hb["thread_id"]))
            if base is not None and (not parent or base.thread_id == parent):
                parent = base.session_id  # the rollout that holds the inherited prefix
            elif not parent:
                parent = str(hb["thread_id"])
        return LineageEdge(relation="fork", parent=session_key(NAME, parent), at=at)

    def _check_base_chain(self, r: _Rollout, by_rollout_id: dict[str, _Rollout], s: DiscoveredSession) -> None:
        """Follow history_base links to the root so a restored fork/revert has its whole prefix."""
        seen = {r.rollout_id or r.thread_id}
        cur = r
        while True:
            hb = cur.meta.get("history_base")
            if not isinstance(hb, dict) or not hb.get("thread_id"):
                return
            rid = str(hb["thread_id"])
            if rid in seen:
                s.warnings.append(f"history_base chain loops at rollout {rid}")
                return
            seen.add(rid)
            nxt = by_rollout_id.get(rid)
            if nxt is None:
                s.warnings.append(
                    f"history_base rollout {rid} (inherited prefix of {self._rel(cur.file)}) is not on this machine"
                )
                return
            cur = nxt

    def _add_sidecars(self, s: DiscoveredSession, tid: str, state: _State, names: dict[str, str]) -> None:
        db = self._db("state")
        if db is not None and tid in state.threads:
            s.sources.append(self._extract(db, tid, state.digests.get(str(db), {}).get(tid)))
        hist = self._db("thread_history")
        if hist is not None and tid in state.history_threads:
            s.sources.append(self._extract(hist, tid, state.digests.get(str(hist), {}).get(tid)))
        root, run = self._root(), self._run
        index = run["index_path"] if run is not None else root / "session_index.jsonl"
        if tid in names and (run["index"] if run is not None else index.is_file()):
            s.sources.append(
                SourceArtifact(
                    source=index,
                    path=f"{self.native_root}/{EXTRACTS}/session_index/{tid}.jsonl",
                    role="index",
                    format="jsonl",
                    mode="produced",
                    produce=_index_producer(self._index_lines, index, tid),
                    identity=(0, 0, int(digest[:15], 16)) if (digest := self._index_digests.get(tid)) else None,
                )
            )
        snaps = run["shell_snapshots_dir"] if run is not None else root / "shell_snapshots"
        listed = run["shell_snapshots"].get(tid, []) if run is not None else (
            snaps.glob(f"{tid}.*") if snaps.is_dir() else [])
        for f in sorted(listed):
            if _is_shell_snapshot(f, tid):
                s.sources.append(self._src(f, "sidecar", "text", "whole"))
        if (tid in run["generated_images"]) if run is not None else (root / "generated_images" / tid).is_dir():
            images = root / "generated_images" / tid
            for f in sorted(regular_files(images)):
                s.sources.append(self._src(f, "blob", "binary", "whole"))

    def _add_host_state(self, host: DiscoveredSession, state: _State) -> None:
        """state_5 rows that belong to no thread (host tables with rows): the host state extract,
        and a warning per table naming it and its row count."""
        db = self._db("state")
        if db is None or not state.host_rows:
            return
        host.sources.append(self._extract(db, HOST_ID, state.digests.get(str(db), {}).get(HOST_ID)))
        for name, n in sorted(state.host_rows.items()):
            host.warnings.append(f"{db.name}: table {name} has {n} row(s) and no thread column; "
                                 f"archived in the host session's state extract")

    def _extract(self, live: Path, tid: str, digest: str | None = None) -> SourceArtifact:
        def produce(dst: Path) -> None:
            if tid == HOST_ID:
                extract_host_rows(self.db_snapshot(live), dst)
            else:
                extract_thread_rows(self.db_snapshot(live), dst, tid)

        return SourceArtifact(
            source=live,
            path=f"{self.native_root}/{EXTRACTS}/{live.stem}/{tid}.sqlite",
            role="database",
            format="sqlite",
            mode="produced",
            produce=produce,
            # the thread's rows, not the shared database's stat, tell whether its extract changed
            identity=(0, 0, int(digest[:15], 16)) if digest else None,
        )

    def _add_host_files(self, root: Path, host: DiscoveredSession) -> None:
        hist = root / "history.jsonl"
        if hist.is_file():
            host.sources.append(self._src(hist, "history", "jsonl", "append"))
        for p in sorted(root.glob("*.sqlite")):
            if p.is_file() and p.name.startswith(HOST_DB_PREFIXES):
                host.sources.append(self._src(p, "database", "sqlite", "sqlite"))

    # ---- restore ----

    @classmethod
    def relink_restored(cls, artifact: Artifact, plain: Path, root: Path, moved: dict[str, str], *,
                        session: Session | None = None, relocated: bool = True) -> str | None:
        """Every restore (relocated or not): a rollout's `saved_path` / `savedPath` (an image
        generation's saved file, seed "sidecar references") names the restored copy of
        `generated_images/<thread-id>/<file>` (root/<its restored path>), found by the part of the
        value after its last `/generated_images/` (CODEX_HOME may have been anywhere); so does an
        image edit's input image (input_images / inputImages `path`) naming one. Only the
        string changes, streamed line by line. A value naming no file of this restore (the image
        was deleted before any sync) is left as archived and counted in the returned note."""
        if artifact.role != "transcript" or artifact.format not in ("jsonl", "jsonl.zst"):
            return None
        prefix = f"{cls.native_root}/{_IMAGES_DIR}/"
        images = {k[len(prefix):]: v for k, v in moved.items() if k.startswith(prefix)}
        left = 0

        def swap(m: re.Match[bytes], counted: bool = True) -> bytes:
            nonlocal left
            value = json_string(m.group(2))
            if value is None or not value.startswith("/") or f"/{_IMAGES_DIR}/" not in value:
                return m.group(0)
            to = images.get(value.rsplit(f"/{_IMAGES_DIR}/", 1)[1])
            new = restored_path(root, to) if to is not None else None
            if new is None:
                left += counted
                return m.group(0)
            return m.group(1) + orjson.dumps(new) if new != value else m.group(0)

        def rewrite(line: bytes) -> bytes:
            for needle, rx in _SAVED_PATH_FIELDS:
                if needle in line:
                    line = rx.sub(swap, line)
            if _INPUT_PATH_FIELD[0] in line and any(k in line for k in _INPUT_IMAGE_KEYS):
                line = _INPUT_PATH_FIELD[1].sub(lambda m: swap(m, False), line)
            return line

        rewrite_lines(plain, (*(n for n, _rx in _SAVED_PATH_FIELDS), *_INPUT_IMAGE_KEYS), rewrite)
        if left:
            return (f"{artifact.path}: {left} saved_path/savedPath value(s) name no generated image of this restore; "
                    "left as archived")
        return None

    def restore_artifact(self, artifact: Artifact, plaintext_path: Path, target_home: Path,
                         overwrite: bool = False) -> Path | None:
        """A rollout the target already holds in its other form: Codex keeps "exactly one of
        .jsonl/.jsonl.zst" per rollout (seed layout), and an archived thread's one file lies flat
        in archived_sessions/ instead of sessions/YYYY/MM/DD/. Restoring beside such a copy gives
        Codex two files of one rollout (listed twice; a resume decompresses the .zst over the
        .jsonl). The same lines there: nothing is written (that copy is the restored rollout).
        Other lines: refused (UnsafePath naming the copy) unless `overwrite`, which writes the
        archived rollout into that one file, in its form. No such copy: default placement."""
        from archiver.restore import UnsafePath, place_file, safe_target  # (restore imports the harnesses)

        name = artifact.path.rsplit("/", 1)[-1]
        m = ROLLOUT_RE.match(name)
        if artifact.role != "transcript" or artifact.format not in ("jsonl", "jsonl.zst") or m is None:
            return None
        if os.path.lexists(safe_target(target_home, artifact.path)):
            return None  # the same name: place_file compares it (and refuses other bytes)
        other = next((p for p in _rollout_copies(artifact.path, self.native_root, m)
                      if os.path.lexists(safe_target(target_home, p))), None)
        if other is None:
            return None
        dst = safe_target(target_home, other)
        if _same_lines(dst, plaintext_path):
            return dst
        if not overwrite:
            raise UnsafePath(f"{artifact.path!r}: the target holds this rollout as {other} with other content; "
                             "not written beside it: Codex keeps one file per rollout (--overwrite replaces it)")
        fmt = "jsonl.zst" if other.endswith(".zst") else "jsonl"
        place_file(plaintext_path, dst, artifact.model_copy(update={"path": other, "format": fmt}), True, target_home)
        return dst

    def after_restore(self, target_home: Path, sessions: list[Session], overwrite: bool = False) -> list[str]:
        """Merge restored per-thread extracts back so Codex lists the threads.

        - state_5 extract rows go into <target>/.codex/state_5.sqlite (created from the
          extract's schema and migration table when absent), and threads.rollout_path is
          re-pointed at the restored rollout of the same file name (.jsonl or .jsonl.zst);
          when that one was not restored (a revert rollout left out), at the thread's newest
          rollout that was (warned), so the row never names a file of the archived home.
          A row the target holds with other content is kept unless `overwrite` (warned).
          The host's state extract (state_5/@host.sqlite: rows of tables with no thread
          column) merges the same way; rows already there are not added again.
        - session_index extract lines are appended to .codex/session_index.jsonl (once).
        - thread_history extracts are left in place: the projection is rebuildable from the
          rollout and its byte offsets no longer match a redacted rollout.
        - a restored paginated rollout whose history_base names a rollout the target does not
          hold (a fork or revert restored without its family) is warned about: Codex resumes it
          without the inherited prefix.
        The extract files stay under .codex/archiver-extracts/ for reference.

        The files written are reached as restore places files (restore.checked_path,
        open_target): a symlink planted in the target (a folder on the way, the database or its
        -wal/-shm/-journal, session_index.jsonl) is refused with a warning naming it.
        """
        from archiver.restore import SQLITE_BESIDE, UnsafePath, checked_path

        warnings: list[str] = []
        codex = target_home / self.native_root
        prefix = f"{self.native_root}/{EXTRACTS}/"
        for sess in sessions:
            if sess.harness != NAME:
                continue
            for art in sess.artifacts:
                if not art.path.startswith(prefix):
                    continue
                kind = art.path[len(prefix) :].split("/", 1)[0]
                try:
                    file = checked_path(target_home, art.path, SQLITE_BESIDE if kind.startswith("state_") else ())
                    if not file.is_file():
                        warnings.append(f"{art.path}: not restored; cannot merge it")
                        continue
                    if kind.startswith("state_"):
                        db = f"{self.native_root}/{kind}.sqlite"
                        merge_state_extract(file, checked_path(target_home, db, SQLITE_BESIDE), codex, warnings,
                                            overwrite)
                    elif kind == "session_index":
                        warnings += _append_index(file, target_home, f"{self.native_root}/session_index.jsonl",
                                                  overwrite)
                except (sqlite3.Error, OSError, UnsafePath) as e:
                    warnings.append(f"{art.path}: not merged ({e})")
        warnings += _missing_bases(target_home, codex, sessions)
        return warnings


def _rollout_copies(path: str, native_root: str, m: re.Match[str]) -> list[str]:
    """The other paths under which Codex may hold the rollout at `path` (seed layout): its other
    form (.jsonl / .jsonl.zst) in the same folder, and both forms where archiving moves it
    (flat in archived_sessions/) or unarchiving puts it back (sessions/YYYY/MM/DD/ of the file
    name's local date)."""
    folder, name = path.rsplit("/", 1)
    plain = name[: -len(".zst")] if name.endswith(".zst") else name
    folders = [folder]
    archived, sessions = f"{native_root}/archived_sessions", f"{native_root}/sessions/"
    if folder.startswith(sessions):
        folders.append(archived)
    elif folder == archived:
        y, mo, d = m.group("ts")[:10].split("-")
        folders.append(f"{sessions}{y}/{mo}/{d}")
    return [f"{f}/{n}" for f in folders for n in (plain, plain + ".zst") if f"{f}/{n}" != path]


def _same_lines(rollout: Path, plain: Path) -> bool:
    """Does the rollout (.jsonl or .jsonl.zst) hold exactly the bytes of `plain`?"""
    with _open_stream(rollout) as a, plain.open("rb") as b:
        while True:
            x, y = a.read(1 << 20), b.read(1 << 20)
            if len(x) != len(y):  # a zstd stream may return short reads: compare by refilling
                while len(x) < len(y) and (more := a.read(len(y) - len(x))):
                    x += more
            if x != y:
                return False
            if not x:
                return True


def _missing_bases(target_home: Path, codex_root: Path, sessions: list[Session]) -> list[str]:
    """A warning for each restored rollout whose session_meta.history_base names a rollout id
    (a thread's, or a revert's `<thread>_<rollout-id>`) no rollout of the target carries."""
    from archiver.restore import UnsafePath, safe_target

    here: set[str] = set()
    for f in _restored_rollouts(codex_root):
        if (m := ROLLOUT_RE.match(f.name)):
            here.add(m.group("rid") or m.group("tid"))
    out: list[str] = []
    for sess in sessions:
        for art in sess.artifacts:
            if sess.harness != NAME or art.role != "transcript" or not ROLLOUT_RE.match(art.path.rsplit("/", 1)[-1]):
                continue
            try:  # read as restore placed it: never through a symlink, never outside the target
                base = _history_base_of(safe_target(target_home, art.path))
            except UnsafePath:
                continue
            if base is not None and base not in here:
                out.append(f"{sess.key}: its history_base names rollout {base}, which is not in the target: Codex "
                           "shows and resumes it without the inherited history (restore it --with-family)")
    return out


def _history_base_of(rollout: Path) -> str | None:
    """history_base.thread_id of a rollout's first line (a rollout id), or None."""
    try:
        with _open_stream(rollout) as stream:
            first = next(scan_lines(stream, MAX_LINE), None)
    except Exception:  # noqa: BLE001 - not restored, refused or not zstd: restore reported it already
        return None
    rec = parse_line(first)[1] if first is not None else None
    payload = rec.get("payload") if isinstance(rec, dict) and rec.get("type") == "session_meta" else None
    base = payload.get("history_base") if isinstance(payload, dict) else None
    tid = base.get("thread_id") if isinstance(base, dict) else None
    return str(tid) if tid else None


def merge_state_extract(extract: Path, target: Path, codex_root: Path, warnings: list[str],
                        overwrite: bool = True) -> None:
    """Merge an extract's rows into target (created from the extract when absent). A row whose
    key the target holds with other content is replaced only with `overwrite`; else it is kept
    as it is, named in a warning, and its thread's rollout_path is not re-pointed."""
    kept: set[str] = set()
    if not os.path.lexists(target):
        target.parent.mkdir(parents=True, exist_ok=True)
        _copy_new(extract, target)
    else:
        con = sqlite3.connect(str(target), isolation_level=None, timeout=10)
        try:
            con.execute("ATTACH DATABASE ? AS ext", (str(extract),))
            con.execute("BEGIN")
            have = {r[0] for r in con.execute("SELECT name FROM main.sqlite_master WHERE type='table'")}
            for name, sql in con.execute(
                "SELECT name, sql FROM ext.sqlite_master WHERE type='table' AND sql IS NOT NULL "
                "AND name NOT LIKE 'sqlite_%' AND sql NOT LIKE 'CREATE VIRTUAL%'"
            ).fetchall():
                if con.execute(f"SELECT 1 FROM ext.{sql_ident(name)} LIMIT 1").fetchone() is None:
                    continue
                if name not in have:
                    con.execute(sql)
                theirs = [r[1] for r in con.execute(f"PRAGMA ext.table_info({sql_ident(name)})")]
                ours = {r[1] for r in con.execute(f"PRAGMA main.table_info({sql_ident(name)})")}
                common = [c for c in theirs if c in ours]
                cols = ", ".join(sql_ident(c) for c in common)
                verb = "INSERT OR IGNORE" if name.startswith("_sqlx") or not overwrite else "INSERT OR REPLACE"
                rows = f"SELECT {cols} FROM ext.{sql_ident(name)}"
                if _thread_column(name, theirs) is None and con.execute(
                        f"SELECT 1 FROM main.{sql_ident(name)} LIMIT 1").fetchone() is not None:
                    rows = _rows_not_there(name, common)
                try:
                    con.execute(f"{verb} INTO main.{sql_ident(name)} ({cols}) {rows}")
                    if not overwrite and not name.startswith("_sqlx"):
                        kept |= _rows_kept(con, name, [c for c in theirs if c in ours], target, warnings)
                except sqlite3.Error as e:
                    warnings.append(f"{extract.name}: rows of {name} not merged into {target.name} ({e})")
            con.execute("COMMIT")
            con.execute("DETACH DATABASE ext")
        finally:
            con.close()
    _repoint_rollouts(extract, target, codex_root, warnings, kept)


def _rows_not_there(name: str, cols: list[str]) -> str:
    """SELECT of ext.<name>'s rows (on `cols`) that main.<name> lacks, as multisets: a row the
    extract holds k times and the target j times comes k - j times. A host table may have no key
    for INSERT OR IGNORE to stop a second restore of the same extract at."""
    q = [sql_ident(c) for c in cols]
    same = " AND ".join(f"m.{c} IS e.{c}" for c in q)
    return (f"SELECT {', '.join(f'e.{c}' for c in q)} FROM (SELECT {', '.join(q)}, row_number() OVER "
            f"(PARTITION BY {', '.join(q)}) AS archiver_copy_no FROM ext.{sql_ident(name)}) AS e "
            f"WHERE e.archiver_copy_no > (SELECT count(*) FROM main.{sql_ident(name)} AS m WHERE {same})")


def _rows_kept(con: sqlite3.Connection, name: str, cols: list[str], target: Path, warnings: list[str]) -> set[str]:
    """Rows of ext.<name> the target kept with other content (INSERT OR IGNORE left its own):
    warned; their ids returned. A thread's rollout_path is ours to re-point, so not compared."""
    same = [c for c in cols if not (name == "threads" and c == "rollout_path")]
    if not same:
        return set()
    collist = ", ".join(sql_ident(c) for c in same)
    differ = con.execute(
        f"SELECT count(*) FROM (SELECT {collist} FROM ext.{sql_ident(name)} EXCEPT SELECT {collist} FROM main.{sql_ident(name)})"
    ).fetchone()[0]
    if not differ:
        return set()
    ids: set[str] = set()
    if name == "threads" and "id" in same:
        ids = {str(r[0]) for r in con.execute(
            f"SELECT id FROM (SELECT {collist} FROM ext.threads EXCEPT SELECT {collist} FROM main.threads)")}
    warnings.append(f"{target.name}: {differ} row(s) of {name} already there with other content"
                    + (f" (thread {', '.join(sorted(ids))})" if ids else "") + "; kept as they are (--overwrite replaces them)")
    return ids


def _repoint_rollouts(extract: Path, target: Path, codex_root: Path, warnings: list[str],
                      kept: set[str] | None = None) -> None:
    ext = sqlite3.connect(str(extract))
    try:
        if ext.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name='threads'").fetchone() is None:
            return
        rows = ext.execute("SELECT id, rollout_path FROM threads").fetchall()
    finally:
        ext.close()
    rollouts = _restored_rollouts(codex_root) if any(r[1] for r in rows) else []
    con = sqlite3.connect(str(target), timeout=10)
    try:
        for tid, rollout_path in rows:
            if not rollout_path or (kept and str(tid) in kept):  # no rollout named, or the target's own row
                continue
            name = os.path.basename(str(rollout_path))
            plain = name[: -len(".zst")] if name.endswith(".zst") else name
            found = next((p for p in rollouts if p.name in (plain, plain + ".zst")), None)
            if found is None:
                # the thread's current rollout (a revert's, say) stayed behind: its newest rollout
                # here is one Codex can open; the archived path would name a file of another home
                found = _latest_rollout_of(rollouts, str(tid))
                if found is None:
                    warnings.append(f"thread {tid}: its current rollout {plain} was not restored; "
                                    "rollout_path left as archived")
                    continue
                warnings.append(f"thread {tid}: its current rollout {plain} was not restored; rollout_path "
                                f"points at {found.name}, its newest rollout restored (restore the thread's "
                                "revert sessions too for its current history)")
            con.execute("UPDATE threads SET rollout_path = ? WHERE id = ?", (str(found.resolve()), tid))
        con.commit()
    finally:
        con.close()


def _restored_rollouts(codex_root: Path) -> list[Path]:
    """The files under sessions/ then archived_sessions/ of a Codex root."""
    out: list[Path] = []
    for top in ("sessions", "archived_sessions"):
        base = codex_root / top
        if base.is_dir():
            out += list(regular_files(base))
    return out


def _latest_rollout_of(rollouts: list[Path], tid: str) -> Path | None:
    """The thread's rollout with the latest file-name timestamp (a revert's is written after
    the rollout it reverts), or None."""
    mine = [(m.group("ts"), p) for p in rollouts if (m := ROLLOUT_RE.match(p.name)) and m.group("tid") == tid]
    return max(mine, key=lambda x: x[0])[1] if mine else None


def _copy_new(src: Path, dst: Path) -> None:
    """Copy src to a new file dst (0600), never through a name already there (a symlink)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    with src.open("rb") as fi, os.fdopen(os.open(dst, flags, 0o600), "wb") as fo:
        shutil.copyfileobj(fi, fo, 1 << 20)


def _append_index(extract: Path, target_home: Path, index: str, overwrite: bool = False) -> list[str]:
    """Append the extract's lines the index (target_home/index) lacks, the index opened as
    restore opens files (restore.open_target: no symlink followed, created 0600). The last
    entry for an id wins (seed layout), so a thread the index already names with lines the
    extract does not hold (renamed in the target since) keeps the target's name: its lines
    are not appended unless `overwrite` (warned). Returns the warnings."""
    from archiver.restore import open_target

    new = [line.rstrip(b"\n") for line in extract.read_bytes().splitlines() if line.strip()]
    if not new:
        return []
    with os.fdopen(open_target(target_home, index, os.O_RDWR | os.O_CREAT | os.O_APPEND), "r+b") as f:
        have = {line.rstrip(b"\n") for line in f}
        new = [line for line in new if line not in have]
        if not new:
            return []
        warnings: list[str] = []
        if not overwrite:
            extract_lines = {line.rstrip(b"\n") for line in extract.read_bytes().splitlines()}
            own = {tid for line in have if line not in extract_lines and (tid := _index_id(line)) is not None}
            kept = sorted({tid for line in new if (tid := _index_id(line)) in own})
            if kept:
                new = [line for line in new if _index_id(line) not in own]
                warnings.append(f"{index}: thread {', '.join(kept)} already named there by other lines; its name "
                                "there stands, the archived ones not appended (--overwrite appends them)")
            if not new:
                return warnings
        size = f.seek(0, os.SEEK_END)
        if size:
            f.seek(size - 1)
            if f.read(1) != b"\n":
                new[0] = b"\n" + new[0]
        f.seek(0, os.SEEK_END)
        f.write(b"\n".join(new) + b"\n")
        return warnings


def _index_id(line: bytes) -> str | None:
    """The thread id of a session_index.jsonl line, or None."""
    try:
        rec = json.loads(line)
    except ValueError:
        return None
    tid = rec.get("id") if isinstance(rec, dict) else None
    return tid if isinstance(tid, str) and tid else None


class _IndexLines:
    """Where each thread's lines are in session_index.jsonl: found in one pass for all the
    threads of a run, again only when the file changes. (Each thread's producer scanning the
    whole file made a cold sync quadratic in the number of threads.)"""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._of: tuple[str, int, int, int] | None = None  # the file state the spans are of
        self._spans: dict[str, list[tuple[int, int]]] = {}

    def spans(self, index: Path, tid: str) -> list[tuple[int, int]]:
        """(offset, length) of the thread's complete lines, in file order."""
        st = index.stat()
        state = (str(index), st.st_ino, st.st_size, st.st_mtime_ns)
        with self._lock:
            if state != self._of:
                self._spans = self._scan(index)
                self._of = state
            return self._spans.get(tid, [])

    @staticmethod
    def _scan(index: Path) -> dict[str, list[tuple[int, int]]]:
        spans: dict[str, list[tuple[int, int]]] = {}
        offset = 0
        with open_file(index) as f:
            for line in scan_lines(f, 1024 * 1024):
                if line.terminated and line.data is not None:
                    ok, rec = parse_line(line)
                    if ok and isinstance(rec, dict) and rec.get("id") is not None:
                        spans.setdefault(str(rec["id"]), []).append((offset, line.size))
                offset += line.size + 1
        return spans


def _index_producer(lines: _IndexLines, index: Path, tid: str) -> Callable[[Path], None]:
    """The thread's session_index.jsonl entries (complete lines only), in file order."""

    def produce(dst: Path) -> None:
        spans = lines.spans(index, tid)
        with open_file(index) as f, dst.open("wb") as out:
            for offset, size in spans:
                f.seek(offset)
                data = f.read(size)
                # the file may have been rewritten since its spans were found: a line is the
                # thread's only if it still parses as one of its entries (as line 1 at offset 0,
                # where parse_line reads past a byte order mark)
                ok, rec = parse_line(Line(no=1 if offset == 0 else 2, data=data, terminated=True))
                if ok and isinstance(rec, dict) and str(rec.get("id")) == tid:
                    out.write(data + b"\n")

    return produce


def _is_shell_snapshot(f: Path, tid: str) -> bool:
    """shell_snapshots/<id>.<nonce>.sh|.ps1, not a temp file being written."""
    return f.suffix in (".sh", ".ps1") and not f.name.startswith(f"{tid}.tmp-") and f.is_file() and not f.is_symlink()


def _spawns(rec: Any) -> list[list[str]]:
    """[sender, child, call id] of each thread an item_completed CollabAgentToolCall spawn_agent
    record names (seed: sender_thread_id, receiver_thread_ids and receiver_agents[].thread_id; item.id
    is the tool call id); and [sender or "" (the rollout holding it), child, item id] of a sub-agent activity record, the
    one pointer to a child a legacy rollout keeps (seed linking "subagents": SubAgentActivity
    agent_thread_id; event_msg sub_agent_activity and item_completed SubAgentActivity
    kind=completed are what legacy rollouts persist, CollabAgentToolCall only paginated ones)."""
    payload = rec.get("payload") if isinstance(rec, dict) else None
    if isinstance(payload, dict) and payload.get("type") == "sub_agent_activity":
        child = payload.get("agent_thread_id")
        return [["", child, ""]] if isinstance(child, str) and child else []
    item = payload.get("item") if isinstance(payload, dict) and payload.get("type") == "item_completed" else None
    if isinstance(item, dict) and item.get("type") == "SubAgentActivity":
        child, sender = item.get("agent_thread_id"), payload.get("thread_id")  # type: ignore[union-attr]
        if not isinstance(child, str) or not child:
            return []
        return [[sender if isinstance(sender, str) else "", child, item.get("id") if isinstance(item.get("id"), str) else ""]]
    if not isinstance(item, dict) or item.get("type") != "CollabAgentToolCall" or item.get("tool") != "spawn_agent":
        return []
    sender = item.get("sender_thread_id")
    if not isinstance(sender, str) or not sender:
        return []
    # receiver_thread_ids, and receiver_agents [{thread_id, ...}] (seed): either may name a child alone
    ids = item.get("receiver_thread_ids")
    children = [c for c in ids if isinstance(c, str) and c] if isinstance(ids, list) else []
    agents = item.get("receiver_agents")
    for agent in agents if isinstance(agents, list) else []:
        c = agent.get("thread_id") if isinstance(agent, dict) else None
        if isinstance(c, str) and c and c not in children:
            children.append(c)
    call_id = item.get("id") if isinstance(item.get("id"), str) else ""
    return [[sender, c, call_id] for c in children]


def _base_at(hb: dict[str, Any] | None, meta: dict[str, Any]) -> str | None:
    if hb and hb.get("thread_id") is not None:
        end = hb.get("end_ordinal_exclusive")
        return f"rollout={hb['thread_id']};ordinal={end}" if end is not None else f"rollout={hb['thread_id']}"
    if meta.get("forked_from_ordinal_exclusive") is not None:
        return f"ordinal={meta['forked_from_ordinal_exclusive']}"
    return None


HARNESS = Codex
