"""OpenCode 2.x: ~/.local/share/opencode (XDG_DATA_HOME/opencode), per seeds/by-harness/opencode.json.

All projects share one `opencode.db` (OPENCODE_DB overrides it, relative to the data dir;
`opencode-next.db` and channel databases `opencode-<channel>.db` are read too). Each
`session_v2` row is a Session whose database artifact is a per-session SQLite extract
(mode "produced", see `extract_session`), so a restore of one session never carries
another session's rows. A database no 2.x build has upgraded yet (1.x: session / message /
part; a pre-split 2.x build) has its sessions in `session` instead (see `session_table`).
On an upgraded database the 1.x `session` rows are stale copies of imported sessions (seed
gotcha), but one session_v2 does not hold (a 1.x build run after the one-time import, or a
row the import skipped) exists only there: it is a session too, read from the 1.x tables and
warned (see `_unimported_rows`).
Its sidecars: `tool-output/tool_*` files its rows name (metadata.outputPath or the inline marker) and `shell/<project>/<sh_id>.out` of its shell
rows, both optional (OpenCode deletes them after 7 days).

Consistency: once per discover() run, each database is copied through the backup API
(one step = one read transaction on the live file, WAL frames included) into a 0700 temp
dir; discovery and every produce() of that run read that frozen copy. The temp dir goes
away with the last produce callable that needs it (weakref.finalize, also at exit) or
on `close()`. The copy gets an index on each column a session's rows are looked up by that
SQLite would otherwise scan (add_lookup_indexes): fingerprints and extracts cost the rows
read, not sessions x rows. Those indexes are left out of `_schema`, so no extract holds them
and the fingerprints are those of the database's own schema.

Corruption: what discovery read is cached under the database's identity (inode, size, mtime and
the -wal's, common.sqlite_identity), so a page broken in place with all three kept is not read:
the archived extracts stay as they are. Once a write changes the identity the database is read
again; a session whose rows sit on a broken page fails to read ("database disk image is
malformed"), is listed with that warning and no extract, and sync keeps its archived copy
(tests/test_s16_collect_opencode.py). SQLite keeps no checksums: bytes changed inside a row's
value read as an edit and are archived as the session's next state (earlier states stay in
the earlier manifests).

Lineage (session_v2 columns): `parent_id` -> subagent (`at` = the parent's subagent tool
call id whose block names the child), `fork_session_id` -> fork (`at` =
"<fork_boundary.type>:<fork_boundary.messageID>"). An assistant row without
time.completed is archived and flagged in-flight; a staged revert (session_v2.revert) is
flagged because committing it deletes rows.

Host-level sessions: `opencode:@project-<project_id>` (kind host) holds the
`snapshot/<project_id>/` git directories (the trees named by assistant snapshot.start/end
and revert.snapshot; option `include_snapshots`, default true), and a session whose rows name
such trees (or, known only from the 1.x `storage/`, whose part files do) lists that key in `uses`
(restore --with-family brings it); `opencode:@host` holds
the 1.x `storage/` remnant (but the files its keys give to a session, see
`_storage_by_session`: those go with that session, which a pre-SQLite install knows only from
storage/session/<project>/<sid>.json) and database-level warnings. Tables that belong to no
session (kv but its `migration.v1-v2` import marker, permission, credential, account*,
worktree, event rows of other aggregates) are never archived.

Restore: every extract's artifact path is the database's own native path
(`.local/share/opencode/opencode.db`, role database); `restore_artifact` merges it into
that file under the target HOME instead of overwriting it (see `merge_extract`), after
`relink_restored` made its rows' tool `metadata.outputPath` name the restored tool-output files. A database
OPENCODE_DB named outside the data dir is archived (and restored) in the data dir under its
own name, and `after_restore` says OpenCode opens it only with OPENCODE_DB. A pre-split 2.x
extract (sessions in `session`) merged into a database that has session_v2 puts its session
rows in session_v2, where migration loose_psylocke moved them (seed versioning) and where
OpenCode lists them; merged into one without, they stay in `session` (OpenCode's migration
renames it), unless a post-split extract restored later brings session_v2, when
`after_restore` moves them there. 1.x sessions are
never merged into a database that holds kv migration.v1-v2 (OpenCode imports 1.x rows once,
so they would not show): they go to `opencode.v1-sessions.db` beside it, which OpenCode 2.x
imports when opened through OPENCODE_DB, and `after_restore` says so. Discovery reads the
databases OpenCode opens (seed layout: opencode.db or OPENCODE_DB, opencode-next.db,
opencode-<channel>.db), so it reads `opencode.v1-sessions.db` only when OPENCODE_DB names it,
as OpenCode does: a sync after such a restore does not list those sessions again until then,
and their archived copies stay (they came from the archive).
"""

from __future__ import annotations

import functools
import hashlib
import logging
import re
import shutil
import sqlite3
import tempfile
import threading
import weakref
from pathlib import Path, PurePosixPath
from typing import Any, Callable, Iterator, Sequence
from urllib.parse import quote

import orjson

from archiver.harnesses.base import HarnessContext, native_path
from archiver.harnesses.common import (
    cache_get, cache_put, configured_root, index_if_scanned, iso_ms, read_regular, sniff_content, sql_ident,
    sql_value_digest, sqlite_identity, xdg_dir,
)
from archiver.harnesses.relinking import json_string, restored_path, rewrite_lines, string_field
from archiver.model import Artifact, DiscoveredSession, Format, LineageEdge, Session, SourceArtifact, session_key
from archiver.snapshot import SnapshotError, backup_into, read_live_sqlite

log = logging.getLogger(__name__)

NAME = "opencode"
MIGRATION_TABLES = ("migration", "__drizzle_migrations")
# the kv row recording the in-place 1.x -> 2.x import: without it a restored database that
# holds a session's 1.x rows would look un-imported to OpenCode
V1_IMPORT_KEY = "migration.v1-v2"
# the indexes add_lookup_indexes puts into a private snapshot (never into a live database or an extract)
LOOKUP_INDEX_PREFIX = "archiver-lookup:"
_TOOL_OUTPUT_RE = re.compile(r"tool-output/(tool_[0-9A-Za-z]{8,64}(?:\.[0-9A-Za-z]{1,10})?)")
_HEX_NAME = re.compile(r"[0-9a-f]{32,64}")  # a hash-named snapshot folder (OpenCode: sha1 of the worktree)
_SHELL_ID_RE = re.compile(r"\b(sh_[0-9A-Za-z]{8,64})\b")
_TEXT_EXT = {"", ".txt", ".log", ".md", ".json", ".jsonl", ".out", ".diff", ".patch", ".csv"}


def _uri(path: Path, **params: str) -> str:
    q = "&".join(f"{k}={v}" for k, v in params.items())
    return f"file:{quote(str(path))}" + (f"?{q}" if q else "")


# ---------------------------------------------------------------- consistent snapshot


class DbSnapshot:
    """A frozen copy of a live opencode database, taken with the backup API in one step
    (one read transaction; frames only in -wal are included; see snapshot.read_live_sqlite
    for a store that cannot be opened read-only). Lives in a 0700 temp dir removed by
    close() or when the object is garbage collected (or at interpreter exit).

    `lazy`: taken on the first use of `path` (from any thread), for a run whose discovery
    came from the cache and may need no extract at all."""

    def __init__(self, live: Path, lazy: bool = False) -> None:
        self.live = live
        self.dir = Path(tempfile.mkdtemp(prefix="archiver-opencode-"))  # mkdtemp: mode 0700
        self._finalizer = weakref.finalize(self, shutil.rmtree, str(self.dir), True)
        self._path = self.dir / "snapshot.db"
        self._lock = threading.Lock()
        self._taken = False
        if not lazy:
            self._take()

    def _take(self) -> None:
        try:
            with read_live_sqlite(self.live) as src:
                backup_into(src, self._path)
            add_lookup_indexes(self._path)
        except BaseException:
            self.close()
            raise
        self._taken = True

    @property
    def path(self) -> Path:
        with self._lock:
            if not self._taken:
                try:
                    self._take()
                except (sqlite3.Error, OSError) as e:
                    raise SnapshotError(f"{self.live}: cannot snapshot the database ({type(e).__name__}: {e})") from e
        return self._path

    def connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(_uri(self.path, mode="ro"), uri=True)
        conn.row_factory = sqlite3.Row
        return conn

    def close(self) -> None:
        self._finalizer()


# ---------------------------------------------------------------- per-session extract


def _table_role(table: str, cols: list[str]) -> tuple[str, str] | None:
    """How a table's rows relate to a session: ("owned", key column) = the session's own
    rows, replaced as a whole on merge; ("context", key) = rows a restored session needs
    (its project, instruction bodies, applied migrations, the kv row of the 1.x import),
    never overwritten on merge; None = not archived (host data: the rest of kv, credential,
    account, permission, ...)."""
    if table == "session_v2" or (table == "session" and "id" in cols):  # 2.x / 1.x session rows
        return ("owned", "id")
    if table in ("project", "workspace") and "id" in cols:
        return ("context", "id")
    if table == "instruction_blob" and "hash" in cols:
        return ("context", "hash")
    if table in MIGRATION_TABLES:
        return ("context", "")
    if table == "kv" and "key" in cols:
        return ("context", "key")
    if "session_id" in cols:
        return ("owned", "session_id")
    if "aggregate_id" in cols:
        return ("owned", "aggregate_id")
    return None


def session_table(tables: set[str] | frozenset[str]) -> str | None:
    """The table whose rows are the sessions: `session_v2`, else `session` on a database no
    2.x build has upgraded yet (a 1.x install, or a pre-split 2.x one before migration
    20260804233008_loose_psylocke renamed the table). On an upgraded database the 1.x
    `session` rows are stale copies of imported sessions (seed gotcha) and are not listed."""
    for name in ("session_v2", "session"):
        if name in tables:
            return name
    return None


def _schema(conn: sqlite3.Connection, schema: str) -> list[tuple[str, str, str, str]]:
    """(type, name, tbl_name, sql) in creation order, without SQLite's internal objects and
    the lookup indexes a snapshot got from the archiver (add_lookup_indexes): the
    database's own schema, as extracts hold it and fingerprints digest it."""
    rows = conn.execute(
        f"SELECT type, name, tbl_name, sql FROM {schema}.sqlite_master "
        "WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' ORDER BY rowid"
    ).fetchall()
    return [(r[0], r[1], r[2], r[3]) for r in rows if not _is_lookup_index(r[0], r[1])]


def _is_lookup_index(typ: str, name: str) -> bool:
    return typ == "index" and name.startswith(LOOKUP_INDEX_PREFIX)


def _lookup_columns(conn: sqlite3.Connection, rows: list[tuple[str, str, str, str]]) -> list[tuple[str, str]]:
    """(table, column) of every equality lookup _session_selects and read_facts make, in `main`."""
    tables = {name for typ, name, _t, _s in rows if typ == "table"}
    vt, shadow = _virtual(rows)
    out: list[tuple[str, str]] = []
    for typ, name, _tbl, _sql in rows:
        if typ != "table" or name in vt or name in shadow:
            continue
        cols = _columns(conn, "main", name)
        role = _table_role(name, cols)
        # not instruction_blob (hash IN (...)): through an index its rows would come in hash order,
        # not in the scan's rowid order, and be inserted into the extract in another order
        if role is not None and role[1] and name != "instruction_blob":
            out.append((name, role[1]))
        if name == "instruction_state" and "session_id" in cols:
            out.append((name, "session_id"))
    if "session" in tables and ("session", "id") not in out and "id" in _columns(conn, "main", "session"):
        out.append(("session", "id"))
    return out


def add_lookup_indexes(db: Path) -> list[str]:
    """Index, in a private snapshot `db` (never a live database), each column a session's rows are
    looked up by that SQLite would otherwise scan (1.x message, session_inbox, session_pending,
    event by aggregate_id, ...): each lookup then reads that session's rows only, not the whole
    table once per session. The indexes are named LOOKUP_INDEX_PREFIX..., which `_schema` leaves
    out, so no extract holds them and fingerprints do not change. Best effort: a table that
    cannot be indexed (a malformed page) is read as before. Returns the indexes made."""
    conn = sqlite3.connect(str(db), isolation_level=None)
    made: list[str] = []
    try:
        for table, column in _lookup_columns(conn, _schema(conn, "main")):
            name = f"{LOOKUP_INDEX_PREFIX}{table}.{column}"
            try:
                if index_if_scanned(conn, table, column, name):
                    made.append(name)
            except sqlite3.Error as e:
                log.debug("%s: no lookup index on %s.%s (%s)", db, table, column, type(e).__name__)
    finally:
        conn.close()
    return made


def _columns(conn: sqlite3.Connection, schema: str, table: str) -> list[str]:
    return [r[1] for r in conn.execute(f"PRAGMA {schema}.table_info({sql_ident(table)})").fetchall()]


def _virtual(schema_rows: list[tuple[str, str, str, str]]) -> tuple[set[str], set[str]]:
    """Virtual table names and their shadow tables (data is rebuilt, never copied)."""
    vt = {name for typ, name, _t, sql in schema_rows if typ == "table" and sql.upper().startswith("CREATE VIRTUAL")}
    shadow = {name for typ, name, _t, _s in schema_rows if typ == "table" and any(name.startswith(v + "_") for v in vt)}
    return vt, shadow


def _archived_tables(
    conn: sqlite3.Connection, rows: list[tuple[str, str, str, str]]
) -> Iterator[tuple[str, list[str], str, str]]:
    """(name, columns in src, policy, key column) of each attached `src` table whose rows
    are archived (see _table_role); virtual tables and their shadow tables are skipped."""
    vt, shadow = _virtual(rows)
    for typ, name, _tbl, _sql in rows:
        if typ != "table" or name in vt or name in shadow:
            continue
        cols = _columns(conn, "src", name)
        role = _table_role(name, cols)
        if role is not None:
            yield name, cols, role[0], role[1]


def _copy_header_pragmas(conn: sqlite3.Connection) -> None:
    """user_version and application_id of the attached `src` database onto main."""
    for pragma in ("user_version", "application_id"):
        value = int(conn.execute(f"PRAGMA src.{pragma}").fetchone()[0])
        conn.execute(f"PRAGMA main.{pragma} = {value}")


def _create(conn: sqlite3.Connection, sql: str) -> None:
    try:
        conn.execute(sql)
    except sqlite3.OperationalError as e:
        if "already exists" not in str(e):
            raise


def _instruction_hashes(conn: sqlite3.Connection, session_id: str, cols: list[str]) -> list[str]:
    hashes: set[str] = set()
    wanted = [c for c in ("initial_values", "current_values") if c in cols]
    if not wanted:
        return []
    sel = ", ".join(f"src.{sql_ident('instruction_state')}.{sql_ident(c)}" for c in wanted)
    for row in conn.execute(f"SELECT {sel} FROM src.instruction_state WHERE session_id = ?", (session_id,)):
        for value in row:
            try:
                obj = orjson.loads(value) if value else {}
            except (orjson.JSONDecodeError, TypeError):
                continue
            if isinstance(obj, dict):
                hashes.update(v for v in obj.values() if isinstance(v, str))
    return sorted(hashes)


class _SelectPlan:
    """What `_session_selects` reads of the attached `src` schema, read once for all the
    sessions of a connection (table columns and roles) rather than once per session."""

    def __init__(self, conn: sqlite3.Connection, rows: list[tuple[str, str, str, str]]) -> None:
        self.tables = {name for typ, name, _t, _s in rows if typ == "table"}
        self.sessions = session_table(self.tables)
        # a 1.x row an upgraded database never imported (see _unimported_rows)
        self.legacy_sessions = (self.sessions == "session_v2" and "session" in self.tables
                                and "id" in _columns(conn, "src", "session"))
        self.archived = list(_archived_tables(conn, rows))
        self.instruction_cols = (_columns(conn, "src", "instruction_state") if "instruction_state" in self.tables
                                 else [])


def _session_row(conn: sqlite3.Connection, table: str, session_id: str) -> dict[str, Any]:
    cur = conn.execute(f"SELECT * FROM src.{sql_ident(table)} WHERE id = ?", (session_id,))
    names = [d[0] for d in cur.description]
    row = cur.fetchone()
    return dict(zip(names, row)) if row else {}


def _session_selects(
    conn: sqlite3.Connection, session_id: str, rows: list[tuple[str, str, str, str]], plan: _SelectPlan | None = None
) -> Iterator[tuple[str, str, str, list[Any]]]:
    """(table, column list, WHERE clause, parameters) of every `src` row set a session's
    extract holds: its own rows and the context it needs (see extract_session). `plan`:
    the same `rows` read once (_SelectPlan), for a caller that selects many sessions."""
    plan = plan or _SelectPlan(conn, rows)
    info: dict[str, Any] = {}
    if plan.sessions is not None:
        info = _session_row(conn, plan.sessions, session_id)
        if not info and plan.legacy_sessions:
            info = _session_row(conn, "session", session_id)
    for name, cols, policy, key in plan.archived:
        where: str = ""
        params: list[Any] = []
        if policy == "owned":
            where, params = f"{sql_ident(key)} = ?", [session_id]
        elif name == "instruction_blob":
            hashes = _instruction_hashes(conn, session_id, plan.instruction_cols) if plan.instruction_cols else []
            if not hashes:
                continue
            where, params = f"{sql_ident(key)} IN ({','.join('?' * len(hashes))})", hashes
        elif name == "kv":
            where, params = f"{sql_ident(key)} = ?", [V1_IMPORT_KEY]
        elif name in ("project", "workspace"):
            ref = info.get("project_id" if name == "project" else "workspace_id")
            if not ref:
                continue
            where, params = f"{sql_ident(key)} = ?", [ref]
        yield name, ", ".join(sql_ident(c) for c in cols), where, params


class _Fingerprinter:
    """extract_fingerprint for many sessions of one attached `src`: the schema and header
    part of the digest, and the _SelectPlan, are computed once."""

    def __init__(self, conn: sqlite3.Connection, rows: list[tuple[str, str, str, str]]) -> None:
        self.conn, self.rows = conn, rows
        self.plan = _SelectPlan(conn, rows)
        self.prefix = hashlib.blake2b(digest_size=16)
        for typ, name, tbl, sql in rows:
            sql_value_digest(self.prefix, f"{typ}\0{name}\0{tbl}\0{sql}")
        for pragma in ("user_version", "application_id"):
            sql_value_digest(self.prefix, int(conn.execute(f"PRAGMA src.{pragma}").fetchone()[0]))

    def __call__(self, session_id: str) -> str:
        out = self.prefix.copy()
        for name, collist, where, params in _session_selects(self.conn, session_id, self.rows, self.plan):
            digests = []
            for row in self.conn.execute(
                    f"SELECT {collist} FROM src.{sql_ident(name)}" + (f" WHERE {where}" if where else ""), params):
                h = hashlib.blake2b(digest_size=16)
                for v in row:
                    sql_value_digest(h, v)
                digests.append(h.digest())
            digests.sort()
            sql_value_digest(out, f"table\0{name}\0{collist}\0{len(digests)}")
            out.update(b"".join(digests))
        return out.hexdigest()


def extract_fingerprint(conn: sqlite3.Connection, session_id: str, rows: list[tuple[str, str, str, str]]) -> str:
    """A digest of everything the session's extract would hold (schema, header pragmas and
    the rows of `_session_selects`, as multisets): equal digests, equal extracts. `conn` has
    the database attached as `src`. Lets a write to one session leave the others alone."""
    return _Fingerprinter(conn, rows)(session_id)


def extract_session(src_db: Path, session_id: str, dst: Path) -> None:
    """Write a fresh SQLite file holding one session: the source's whole schema (tables
    first, then indexes, triggers and views) and, copied row by row through SQL, only that
    session's rows (session_v2, session_message, session_inbox, instruction_*, event /
    event_sequence of its aggregate, 1.x session/message/part/todo/... rows) plus the
    context it needs to open on its own (its project and workspace rows, the instruction
    bodies its state names, the applied-migration list).

    Because the file is built by INSERTs into a new database, nothing else of the source
    file travels: free pages of opencode.db that still hold plaintext of reverted
    (deleted) rows or other sessions are never copied. `src_db` should be a frozen
    snapshot (DbSnapshot), so the rows come from one consistent state.
    """
    for suffix in ("", "-journal", "-wal", "-shm"):
        p = dst.with_name(dst.name + suffix)
        if p.exists():
            p.unlink()
    conn = sqlite3.connect(_uri(dst), uri=True, isolation_level=None)
    try:
        # a temp file, removed on failure: no rollback journal, no fsync (the COMMIT's fsyncs were
        # most of an extract's time); neither changes the file's bytes
        conn.execute("PRAGMA main.journal_mode=OFF")
        conn.execute("PRAGMA main.synchronous=OFF")
        conn.execute("ATTACH DATABASE ? AS src", (_uri(src_db, mode="ro"),))
        rows = _schema(conn, "src")
        conn.execute("BEGIN")
        for typ, _name, _tbl, sql in rows:
            if typ == "table":
                _create(conn, sql)
        _copy_header_pragmas(conn)
        for name, collist, where, params in _session_selects(conn, session_id, rows):
            sql = f"INSERT INTO main.{sql_ident(name)} ({collist}) SELECT {collist} FROM src.{sql_ident(name)}"
            conn.execute(sql + (f" WHERE {where}" if where else ""), params)
        for typ, _name, _tbl, sql in rows:
            if typ in ("index", "trigger", "view"):
                _create(conn, sql)
        conn.execute("COMMIT")
        conn.execute("DETACH DATABASE src")
    except BaseException:
        conn.close()
        dst.unlink(missing_ok=True)
        raise
    conn.close()


def merge_extract(extract: Path, target: Path, overwrite: bool = False) -> list[str]:
    """Merge one session extract into `target` (an opencode.db under a restore HOME),
    creating it with the extract's schema when absent. The extract's sessions replace
    their own rows in the target (DELETE then INSERT OR REPLACE: a later state of the same
    session wins and stale rows of it go); context rows (project, workspace, instruction
    bodies, migrations) are INSERT OR IGNORE. Columns are matched by name, so a target
    with a newer schema keeps its extra columns. Returns the merged session ids.

    Without `overwrite`, a session the target already holds with other rows (a live session,
    one edited since the last restore) is not replaced: FileExistsError, nothing written,
    as a file with other content is not replaced. The same rows again are merged (no-op)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(str(target), isolation_level=None)
    try:
        conn.execute("ATTACH DATABASE ? AS src", (_uri(extract, mode="ro"),))
        conn.execute("BEGIN IMMEDIATE")
        fresh = conn.execute("SELECT count(*) FROM main.sqlite_master").fetchone()[0] == 0
        rows = _schema(conn, "src")
        src_tables = {name for typ, name, _t, _s in rows if typ == "table"}
        sessions = session_table(src_tables)
        # a pre-split 2.x extract into a database migration loose_psylocke already split: its
        # `session` rows go where that migration moved them (seed versioning), session_v2
        renamed = _is_pre_split(src_tables) and "session_v2" in _tables(conn)
        for typ, _name, tbl, sql in rows:
            if typ == "table" and not (renamed and tbl == "session"):
                _create(conn, sql)
        if fresh:
            _copy_header_pragmas(conn)
        sids: list[str] = []
        if sessions is not None:
            sids = [r[0] for r in conn.execute(f"SELECT id FROM src.{sql_ident(sessions)}")]
        tables = []
        for name, src_cols, policy, key in _archived_tables(conn, rows):
            dest = "session_v2" if renamed and name == "session" else name
            main_cols = set(_columns(conn, "main", dest))
            cols = [c for c in src_cols if c in main_cols]
            if cols:
                tables.append((name, dest, main_cols, ", ".join(sql_ident(c) for c in cols), policy, key))
        if not overwrite and not fresh and sids:
            _refuse_other_rows(conn, tables, sids, target)
        for name, dest, main_cols, collist, policy, key in tables:
            if policy == "owned":
                if sids and key in main_cols:
                    conn.execute(
                        f"DELETE FROM main.{sql_ident(dest)} WHERE {sql_ident(key)} IN ({','.join('?' * len(sids))})", sids
                    )
                verb = "INSERT OR REPLACE"
            else:
                verb = "INSERT OR IGNORE"
            conn.execute(f"{verb} INTO main.{sql_ident(dest)} ({collist}) SELECT {collist} FROM src.{sql_ident(name)}")
        for typ, _name, tbl, sql in rows:
            if typ in ("index", "trigger", "view") and not (renamed and tbl == "session"):
                _create(conn, sql)
        conn.execute("COMMIT")
        conn.execute("DETACH DATABASE src")
        return sids
    except BaseException:
        try:
            conn.execute("ROLLBACK")
        except sqlite3.Error:
            pass
        raise
    finally:
        conn.close()


def _refuse_other_rows(conn: sqlite3.Connection, tables: list[tuple[str, str, set[str], str, str, str | None]],
                       sids: list[str], target: Path) -> None:
    """FileExistsError when the target holds rows of these sessions that the extract does not."""
    marks = ",".join("?" * len(sids))
    for name, dest, main_cols, collist, policy, key in tables:
        if policy != "owned" or not key or key not in main_cols:
            continue
        other = conn.execute(
            f"SELECT {sql_ident(key)} FROM (SELECT {collist} FROM main.{sql_ident(dest)} WHERE {sql_ident(key)} IN ({marks}) "
            f"EXCEPT SELECT {collist} FROM src.{sql_ident(name)}) LIMIT 1", sids,
        ).fetchone()
        if other is not None:
            raise FileExistsError(
                f"{target.name} already holds session {other[0]} with other content ({dest} rows); not replaced "
                "(--overwrite replaces it)")


# ---------------------------------------------------------------- restore helpers

V1_BESIDE_SUFFIX = ".v1-sessions.db"  # opencode.db -> opencode.v1-sessions.db (no channel name)
_CHANNEL_DB = re.compile(r"opencode-[^/]+\.db")


def _default_db_name(name: str) -> bool:
    """A database OpenCode opens without OPENCODE_DB: opencode.db, opencode-next.db (imported on
    first start) and opencode-<channel>.db of a channel build."""
    return name == "opencode.db" or _CHANNEL_DB.fullmatch(name) is not None


def _tables(conn: sqlite3.Connection) -> set[str]:
    return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def _is_pre_split(tables: set[str]) -> bool:
    """Tables of a pre-split 2.x database: 2.x rows (session_message) with the sessions still
    in `session`, before migration 20260804233008_loose_psylocke renamed it session_v2."""
    return session_table(tables) == "session" and "session_message" in tables


def _move_pre_split(db: Path, sids: list[str]) -> list[str]:
    """Move pre-split 2.x session rows this restore merged into `db`'s `session` table (it had
    no session_v2 then) into session_v2, which `db` now has: OpenCode lists only that table,
    and the migration that renames `session` is recorded as applied. Returns the moved ids."""
    conn = sqlite3.connect(str(db), isolation_level=None)
    try:
        tables = _tables(conn)
        if "session_v2" not in tables or "session" not in tables or not sids:
            return []
        v2_cols = set(_columns(conn, "main", "session_v2"))
        cols = [c for c in _columns(conn, "main", "session") if c in v2_cols]
        collist = ", ".join(sql_ident(c) for c in cols)
        marks = ",".join("?" * len(sids))
        moved = [r[0] for r in conn.execute(f"SELECT id FROM session WHERE id IN ({marks}) ORDER BY id", sids)]
        if not moved:
            return []
        conn.execute("BEGIN IMMEDIATE")
        # a session_v2 row of the same session (restored from a post-split extract) is kept
        conn.execute(f"INSERT OR IGNORE INTO session_v2 ({collist}) SELECT {collist} FROM session WHERE id IN ({marks})",
                     sids)
        conn.execute(f"DELETE FROM session WHERE id IN ({marks})", sids)
        conn.execute("COMMIT")
        return moved
    finally:
        conn.close()


def _extract_tables(extract: Path) -> set[str]:
    conn = sqlite3.connect(_uri(extract, mode="ro"), uri=True)
    try:
        return _tables(conn)
    finally:
        conn.close()


def _has_session_v2(db: Path) -> bool:
    if not db.is_file():
        return False
    conn = sqlite3.connect(str(db))  # read-write, as the merge: a WAL file without -shm opens
    try:
        return "session_v2" in _tables(conn)
    finally:
        conn.close()


def _is_v1_extract(extract: Path) -> bool:
    """A session extract of a 1.x database (session / message / part, no session_message)."""
    tables = _extract_tables(extract)
    return session_table(tables) == "session" and "session_message" not in tables and {"message", "part"} <= tables


def _merge_unimported(extract: Path, db: Path) -> list[str]:
    """merge_extract into a database that must stay un-imported (no kv migration.v1-v2)."""
    sids = merge_extract(extract, db)
    conn = sqlite3.connect(str(db), isolation_level=None)
    try:
        if "kv" in _tables(conn):
            conn.execute("DELETE FROM kv WHERE key = ?", (V1_IMPORT_KEY,))
    finally:
        conn.close()
    return sids


def _move_unimported(db: Path, sids: list[str], beside: Path) -> None:
    """Move 1.x sessions this restore merged into `db` (rows in `session` with no session_v2
    row, which OpenCode would skip once `db` holds the import marker) into `beside`."""
    conn = sqlite3.connect(str(db), isolation_level=None)
    try:
        tables = _tables(conn)
        known = {r[0] for r in conn.execute("SELECT id FROM session_v2")} if "session_v2" in tables else set()
    finally:
        conn.close()
    with tempfile.TemporaryDirectory(prefix="archiver-opencode-") as tmp:
        for sid in [x for x in sids if x not in known]:
            extract = Path(tmp) / "v1.db"
            extract_session(db, sid, extract)
            _merge_unimported(extract, beside)
            conn = sqlite3.connect(str(db), isolation_level=None)
            try:
                conn.execute("ATTACH DATABASE ? AS src", (_uri(db, mode="ro"),))
                rows = _schema(conn, "src")
                owned = [(name, key) for name, _c, policy, key in _archived_tables(conn, rows) if policy == "owned"]
                conn.execute("DETACH DATABASE src")
                conn.execute("BEGIN IMMEDIATE")
                for name, key in owned:
                    if name != "session_v2":
                        conn.execute(f"DELETE FROM {sql_ident(name)} WHERE {sql_ident(key)} = ?", (sid,))
                conn.execute("COMMIT")
            finally:
                conn.close()


def _imported(db: Path) -> bool:
    """Whether an existing database holds kv migration.v1-v2, the record of its 1.x import."""
    if not db.is_file():
        return False
    conn = sqlite3.connect(str(db))  # read-write, as the merge: a WAL file without -shm opens
    try:
        if "kv" not in _tables(conn):
            return False
        return conn.execute("SELECT 1 FROM kv WHERE key = ?", (V1_IMPORT_KEY,)).fetchone() is not None
    finally:
        conn.close()


# ---------------------------------------------------------------- helpers


def _sniff(path: Path) -> Format:
    if path.suffix.lower() == ".json":
        return "json"
    return sniff_content(path, unreadable="text" if path.suffix.lower() in _TEXT_EXT else "binary")


def _get(row: sqlite3.Row, col: str) -> Any:
    return row[col] if col in row.keys() else None


def _json(value: Any) -> Any:
    if value is None or isinstance(value, (dict, list)):
        return value
    try:
        return orjson.loads(value)
    except (orjson.JSONDecodeError, TypeError):
        return None


# ---------------------------------------------------------------- the collector


def worktree_hash(worktree: str) -> str:
    """The name OpenCode gives a worktree's snapshot folder, as far as it is known: SHA-1 hex."""
    return hashlib.sha1(worktree.encode("utf-8")).hexdigest()


class OpenCode:
    name = NAME
    native_root = ".local/share/opencode"

    def __init__(self, ctx: HarnessContext) -> None:
        self.ctx = ctx
        self._snapshots: list[DbSnapshot] = []
        # restore: 1.x extracts placed beside an imported database, (archived path, written path, sids)
        self._v1_beside: list[tuple[str, Path, list[str]]] = []
        # restore: 1.x sessions merged into a database with no import marker yet, (archived path, db, sids)
        self._v1_merged: list[tuple[str, Path, list[str]]] = []
        # pre-split 2.x sessions merged into a database without session_v2 (restore_artifact)
        self._pre_split_merged: list[tuple[Path, list[str]]] = []
        # sha1 hex of each session directory and its ancestors -> that path (snapshot folder names)
        self._worktrees: dict[str, str] = {}

    @classmethod
    def cwd_folders(cls) -> list[tuple[str, Callable[[str], str]]]:
        """Folders named after a path (restore --relocate renames them): a worktree's snapshot git
        dir `snapshot/<project-id>/<hash(worktree)>/`. The seed does not say which hash; sync
        names the folder after the redacted worktree only when its name is the SHA-1 hex of a
        session directory or one of its parents (redacted_relpath), so restore renames a folder
        whose name is the SHA-1 of a relocated path for the new path, and keeps (and reports)
        any other."""
        return [(f"{cls.native_root}/snapshot/*/", worktree_hash)]

    @property
    def root(self) -> Path:
        return configured_root(self.ctx) or xdg_dir(self.ctx, "XDG_DATA_HOME", ".local/share") / "opencode"

    def close(self) -> None:
        """Remove this collector's database snapshots now (produce() no longer works)."""
        for snap in self._snapshots:
            snap.close()
        self._snapshots = []

    def database_files(self) -> list[Path]:
        """The primary database (OPENCODE_DB, relative to the data dir, or opencode.db) first,
        then opencode-next.db and channel databases opencode-<channel>.db."""
        root = self.root
        env = self.ctx.env.get("OPENCODE_DB")
        primary: Path | None
        if env == ":memory:":
            primary = None
        elif env:
            p = Path(env).expanduser()
            primary = p if p.is_absolute() else root / p
        else:
            primary = root / "opencode.db"
        out = [primary] if primary is not None and primary.is_file() else []
        if root.is_dir():
            for p in sorted(root.glob("opencode-*.db")):
                if p.is_file() and p not in out:
                    out.append(p)
        return out

    def _native(self, file: Path) -> str:
        try:
            return native_path(self.native_root, self.root, file)
        except ValueError:  # OPENCODE_DB outside the data dir: archived at the default place
            return f"{self.native_root}/{file.name}"

    def _src(self, file: Path, role: str, fmt: Format, optional: bool = False) -> SourceArtifact:
        return SourceArtifact(
            source=file, path=self._native(file), role=role, format=fmt, mode="whole", optional=optional  # type: ignore[arg-type]
        )

    # ---- restore hooks ----
    @classmethod
    def relink_restored(cls, artifact: Artifact, plain: Path, root: Path, moved: dict[str, str], *,
                        session: Session | None = None, relocated: bool = True) -> str | None:
        """Every restore (relocated or not): each tool state's `metadata.outputPath` (seed: tool
        state metadata.outputPath -> tool-output file), the absolute path of a tool-output file on
        the archived host, names the restored copy (root/<its restored path>) when this restore
        holds a `tool-output/<name>` of that name, so OpenCode reads the full output there. In a
        session's database extract (before restore_artifact merges it) the values are rewritten in
        every row's `data` of every table (session_message, 1.x part, event) with sqlite3; in the
        1.x storage/ JSON files in the bytes. Only the string changes, every other byte of the
        value stays; a value naming no file of this restore is left as archived and reported."""
        prefix = f"{cls.native_root}/"
        if not artifact.path.startswith(prefix):
            return None
        if artifact.role == "database" and artifact.format == "sqlite":
            kind = "database"
        elif artifact.path.startswith(f"{prefix}storage/") and artifact.format == "json":
            kind = "json"
        else:
            return None
        outputs: dict[str, str] | None = None
        left = 0

        def swap(m: re.Match[bytes]) -> bytes:
            nonlocal outputs, left
            if outputs is None:
                outputs = _restored_tool_outputs(f"{prefix}tool-output/", root, moved)
            value = json_string(m.group(2))
            name = value.rsplit("/", 1)[-1] if value is not None else ""
            new = outputs.get(name) if value is not None and value.endswith(f"/tool-output/{name}") else None
            if new is None:
                left += 1
                return m.group(0)
            return m.group(1) + orjson.dumps(new) if new != value else m.group(0)

        def rewrite(data: bytes) -> bytes:
            return _OUTPUT_PATH_RE.sub(swap, data)

        if kind == "json":
            rewrite_lines(plain, (_OUTPUT_PATH_KEY,), rewrite)
        else:
            try:
                _rewrite_data_cells(plain, _OUTPUT_PATH_KEY, rewrite)
            except sqlite3.Error as e:
                return f"{artifact.path}: metadata.outputPath values left as archived (database not read: {e})"
        if left:
            return (f"{artifact.path}: {left} metadata.outputPath value(s) name no tool-output file of this restore; "
                    "left as archived")
        return None

    def restore_artifact(self, artifact: Artifact, plaintext_path: Path, target_home: Path,
                         overwrite: bool = False) -> Path | None:
        """Merge a per-session database extract into the target's database file (several
        restored sessions share one opencode.db); other artifacts use default placement.
        A session already there with other rows is replaced only with `overwrite`.

        The database is reached as restore places files (restore.checked_path): a symlink
        planted in the target (a folder on the way, the database or its -wal/-shm/-journal) is
        refused (UnsafePath naming it; restore reports the artifact as not written)."""
        from archiver.restore import SQLITE_BESIDE, UnsafePath, checked_path

        if not (
            artifact.role == "database"
            and artifact.format == "sqlite"
            and artifact.path.startswith(self.native_root + "/")
            and artifact.path.endswith(".db")
        ):
            return None
        if any(p in ("", ".", "..") for p in artifact.path.split("/")):
            raise UnsafePath(f"{artifact.path}: unsafe artifact path")
        target = checked_path(target_home, artifact.path, SQLITE_BESIDE)
        v1 = _is_v1_extract(plaintext_path)
        if v1 and _imported(target):
            # OpenCode 2.x imports 1.x rows once (kv migration.v1-v2 records it): merged into an
            # imported database they would never show. A database of their own, without the
            # marker, is imported on its first start; the imported one is left as it is.
            stem = artifact.path.rsplit("/", 1)[1][: -len(".db")]
            beside = checked_path(target_home, artifact.path.rsplit("/", 1)[0] + f"/{stem}{V1_BESIDE_SUFFIX}",
                                  SQLITE_BESIDE)
            self._v1_beside.append((artifact.path, beside, _merge_unimported(plaintext_path, beside)))
            return beside
        pre_split = not v1 and _is_pre_split(_extract_tables(plaintext_path)) and not _has_session_v2(target)
        sids = merge_extract(plaintext_path, target, overwrite)
        if v1:
            self._v1_merged.append((artifact.path, target, sids))
        elif pre_split:  # in `session`, where a later post-split extract would strand them
            self._pre_split_merged.append((target, sids))
        return target

    def after_restore(self, target_home: Path, sessions: list[Session], overwrite: bool = False) -> list[str]:
        """Where restored databases went when OpenCode would not open them by itself: 1.x
        sessions put beside an already-imported database (restore_artifact), and databases
        that OPENCODE_DB named on the archived host (any name but opencode.db, opencode-next.db
        and channel databases opencode-<channel>.db), which OpenCode opens only through it."""
        from archiver.restore import SQLITE_BESIDE, UnsafePath, checked_path

        out: list[str] = []
        beside_of: dict[str, Path] = {}

        def checked(db: Path) -> Path:  # (databases restore_artifact placed: checked again before each write)
            return checked_path(target_home, db.relative_to(target_home).as_posix(), SQLITE_BESIDE)

        # a 2.x extract restored after them brought the marker: move this run's 1.x sessions out
        for archived, db, sids in self._v1_merged:
            try:
                if _imported(checked(db)):
                    beside = checked(db.with_name(db.stem + V1_BESIDE_SUFFIX))
                    _move_unimported(db, sids, beside)
                    self._v1_beside.append((archived, beside, sids))
            except (UnsafePath, OSError, sqlite3.Error) as e:
                out.append(f"opencode: 1.x session(s) {', '.join(sids)} of {archived} not moved beside it ({e})")
        self._v1_merged = []
        # ... and a post-split extract restored after pre-split ones brought session_v2 (and the
        # record of the renaming migration): their rows move there, where OpenCode lists them
        for db, sids in self._pre_split_merged:
            try:
                _move_pre_split(checked(db), sids)
            except (UnsafePath, OSError, sqlite3.Error) as e:
                out.append(f"opencode: session(s) {', '.join(sids)} of {db.relative_to(target_home)} not moved "
                           f"into session_v2 ({e})")
        self._pre_split_merged = []
        for archived, beside, sids in self._v1_beside:
            beside_of[archived] = beside
            out.append(
                f"opencode: 1.x session(s) {', '.join(sids)} restored into {beside.relative_to(target_home)}, not "
                f"{archived}: that database was already imported by OpenCode 2.x (kv {V1_IMPORT_KEY}), which "
                f"imports 1.x rows once; OpenCode imports these on its first start with OPENCODE_DB={beside}"
            )
        self._v1_beside = []
        named: dict[str, list[str]] = {}
        for session in sessions:
            for art in session.artifacts:
                name = art.path.rsplit("/", 1)[-1]
                if (art.role == "database" and art.path.startswith(self.native_root + "/") and name.endswith(".db")
                        and not _default_db_name(name) and art.path not in beside_of):
                    named.setdefault(art.path, []).append(session.key)
        for path, keys in sorted(named.items()):
            out.append(
                f"opencode: {path} (sessions {', '.join(sorted(keys))}) was the database OPENCODE_DB named on the archived "
                f"host, restored into the data dir under its own name; OpenCode opens it only with "
                f"OPENCODE_DB={target_home / path}"
            )
        if any(a.path.startswith(f"{self.native_root}/snapshot/") for s in sessions for a in s.artifacts):
            out.extend(self._complete_snapshot_git_dirs(target_home))
        return out

    def _complete_snapshot_git_dirs(self, target_home: Path) -> list[str]:
        """A snapshot git dir restored from its files lacks its empty folders (archives hold
        files), and git takes a folder without `refs/` for no repository: OpenCode could not read
        the trees its diffs and reverts name. Makes `refs/` (and `objects/`) in each folder of
        snapshot/ (two levels: `<project-id>/` or `<project-id>/<worktree hash>/`) holding HEAD."""
        from archiver.restore import UnsafePath, make_folder

        out: list[str] = []
        top = target_home / self.native_root / "snapshot"
        if top.is_symlink() or not top.is_dir():
            return out
        for project in sorted(top.iterdir()):
            for git_dir in (project, *(sorted(project.iterdir()) if project.is_dir() and not project.is_symlink() else ())):
                if git_dir.is_symlink() or not (git_dir / "HEAD").is_file():
                    continue
                rel = git_dir.relative_to(target_home).as_posix()
                for folder in ("refs", "objects"):
                    if (git_dir / folder).is_dir():
                        continue
                    try:
                        make_folder(target_home, f"{rel}/{folder}")
                    except (UnsafePath, OSError) as e:
                        out.append(f"opencode: {rel}/{folder}/ not made ({e}): git will not open that snapshot folder")
        return out

    # ---- discovery ----
    def discover(self) -> Iterator[DiscoveredSession]:
        root = self.root
        # earlier runs' snapshots stay alive only while their produce callables do
        self._snapshots = []
        host_warnings: list[str] = []
        host_errors: list[str] = []  # a database whose sessions could not be listed: the run fails
        seen: dict[str, DiscoveredSession] = {}
        found: list[DiscoveredSession] = []
        for db in self.database_files():
            try:
                snap, facts = self._db_facts(db)
            except (sqlite3.Error, OSError) as e:
                host_errors.append(f"{self._native(db)}: not readable ({type(e).__name__}: {e}); "
                                   "its sessions are not archived this run")
                continue
            self._snapshots.append(snap)
            if isinstance(facts, str):
                host_errors.append(f"{self._native(db)}: sessions not listed ({facts}); "
                                   "its sessions are not archived this run")
                continue
            for f in facts:
                sid = f["id"]
                if sid in seen:
                    seen[sid].warnings.append(
                        f"{self._native(db)} also holds this session; that copy is not archived separately"
                    )
                    continue
                seen[sid] = s = self._session(db, snap, f)
                found.append(s)
                if isinstance(f.get("cwd"), str):
                    self._note_worktree(f["cwd"])
        storage = _storage_by_session(root / "storage")
        for sid, (files, info) in storage.sessions.items():
            s = seen.get(sid)
            if s is None:  # a session only the JSON storage of a pre-SQLite build holds
                seen[sid] = s = self._storage_session(sid, info)
                s.uses.extend(self._storage_uses(root / "storage", files, info))
                found.append(s)
            for f in files:  # the pre-SQLite transcript is its info, message and part files
                kind = f.relative_to(root / "storage").parts[0]
                s.sources.append(self._src(f, "transcript" if kind in ("session", "message", "part") else "sidecar",
                                           _sniff(f)))
        yield from found
        if self.ctx.options.get("include_snapshots", True):
            yield from self._snapshot_sessions(root)
        host = self._host_session(root, host_warnings + storage.warnings, storage.host, host_errors)
        if host is not None:
            yield host

    def _note_worktree(self, cwd: str) -> None:
        """Remember `cwd` and its ancestors (the worktree is the project's root, at or above
        a session's directory) under the name OpenCode gives a worktree's snapshot folder."""
        path = PurePosixPath(cwd)
        if not path.is_absolute():
            return
        for p in (path, *path.parents):
            if str(p) != "/":
                self._worktrees.setdefault(worktree_hash(str(p)), str(p))

    def redacted_relpath(
        self,
        src: SourceArtifact,
        session: DiscoveredSession,
        redact_relpath: Callable[[str], str],
        redact_text: Callable[[str], str],
        pseudonym: Callable[[str, str], str] | None = None,
    ) -> str:
        """`snapshot/<project>/<hash(worktree)>/...`: the folder name is an unkeyed hash of the
        worktree, a path under the user's home, on which anyone holding the archive could test
        guesses of user names and projects (as on Cursor's md5(cwd) folder). A folder that is
        sha1 of a known session directory (or one of its parents) becomes sha1 of that path
        redacted, where OpenCode looks for the redacted worktree's snapshots; any other
        hash-like name (32-64 hex digits) becomes the team-keyed digest of it (same length).
        The rest of the path, and every other file, goes through redact_relpath."""
        red = redact_relpath(src.path)
        prefix = f"{self.native_root}/snapshot/"
        if not src.path.startswith(prefix):
            return red
        parts, rparts = src.path.split("/"), red.split("/")
        i = len(prefix.split("/"))  # .local/share/opencode/snapshot/<project>/<hash>/...
        if len(parts) <= i + 1 or len(rparts) != len(parts) or not _HEX_NAME.fullmatch(parts[i]):
            return red
        name = parts[i]
        worktree = self._worktrees.get(name)
        if worktree is not None:
            rparts[i] = worktree_hash(redact_text(worktree))
        elif pseudonym is not None:
            rparts[i] = pseudonym("opencode-worktree", name)[: len(name)]
        return "/".join(rparts)

    def _db_facts(self, db: Path) -> tuple[DbSnapshot, list[dict[str, Any]] | str]:
        """The database's snapshot and what discovery reads from it (per session, JSON-able;
        a string: why the sessions could not be listed). The facts are cached under the
        database's identity: an unchanged database is not read again, and its snapshot is
        taken only if some session needs its extract."""
        ident = sqlite_identity(db)
        key = f"opencode:facts:v3:{db}:{ident}"
        facts = cache_get(self.ctx.cache, key)
        # facts cached before the 1.x rows an upgrade never imported were listed lack "table"
        if isinstance(facts, list) and all(isinstance(f, dict) and isinstance(f.get("id"), str)
                                           and (f.get("error") or "table" in f) for f in facts):
            return DbSnapshot(db, lazy=True), facts
        snap = DbSnapshot(db)
        conn = snap.connect()
        try:
            facts = read_facts(conn, snap.path)
        except sqlite3.Error as e:
            return snap, f"{type(e).__name__}: {e}"
        finally:
            conn.close()
        if sqlite_identity(db) == ident:  # not written to while read: the facts hold for this identity
            cache_put(self.ctx.cache, key, facts)
        return snap, facts

    def _session(self, db: Path, snap: DbSnapshot, f: dict[str, Any]) -> DiscoveredSession:
        sid = f["id"]
        if f.get("error"):
            return DiscoveredSession(
                harness=NAME, session_id=sid, warnings=[f"{self._native(db)}: session {sid} not read ({f['error']})"],
                unread=str(f["error"]),
            )
        s = DiscoveredSession(harness=NAME, session_id=sid, title=f["title"], created_at=f["created"],
                              updated_at=f["updated"], cwd=f["cwd"])
        if f["parent"]:
            s.kind = "subagent"
            s.parents.append(LineageEdge(relation="subagent", parent=session_key(NAME, f["parent"]), at=f["spawn"]))
        if f["fork"]:
            if s.kind == "main":
                s.kind = "fork"
            s.parents.append(LineageEdge(relation="fork", parent=session_key(NAME, f["fork"]), at=f["fork_at"]))
        if f["revert"]:
            s.warnings.append(f"staged revert to {f['revert']}: committing it deletes this session's later rows")
        s.uses.extend(self._used_host_sessions(f))
        if f.get("unimported"):
            s.warnings.append(f"{self._native(db)}: only in the 1.x tables of this upgraded database (session_v2 "
                              "does not hold it, so OpenCode 2.x does not list it); archived from them")
        extract = f.get("extract")
        s.sources.append(
            SourceArtifact(
                source=db,
                path=self._native(db),
                role="database",
                format="sqlite",
                mode="produced",
                produce=functools.partial(_produce, snap, sid),
                # the extract's content, not the shared file's stat, tells whether it changed
                identity=(0, 0, int(extract[:15], 16)) if isinstance(extract, str) else None,
            )
        )
        if f["messages"]:
            s.warnings.extend(f["in_flight"])
            s.sources.extend(self._sidecars(f, s))
        return s

    def _used_host_sessions(self, f: dict[str, Any]) -> list[str]:
        """`opencode:@project-<project_id>` when the session's rows name snapshot trees (assistant
        snapshot.start/end, a staged revert's snapshot: seed sidecar references), which live in
        that project's snapshot git dir, and discovery yields that host session (snapshots archived,
        the dir there; a missing one is already a warning of the session, see _sidecars)."""
        project = f.get("project")
        if not project or not (f.get("names_snapshot") or f.get("revert")) or not self._yields_snapshot_dir(project):
            return []
        return [session_key(NAME, f"@project-{project}")]

    def _yields_snapshot_dir(self, project: str) -> bool:
        """Whether discovery yields `opencode:@project-<project>`: snapshots archived, the dir there."""
        folder = self.root / "snapshot" / project
        return bool(self.ctx.options.get("include_snapshots", True)) and not folder.is_symlink() and folder.is_dir()

    def _storage_uses(self, storage: Path, files: list[Path], info: dict[str, Any]) -> list[str]:
        """Session.uses of a session only the pre-SQLite JSON storage holds, as _used_host_sessions
        for a database's: its project's snapshot dir when its info holds a staged revert or a part
        file names a snapshot tree (the 1.x step-start / step-finish / snapshot parts' `snapshot`).
        Part files are read only when the project's snapshot dir is archived."""
        project = _storage_project(storage, files, info)
        if project is None or not self._yields_snapshot_dir(project):
            return []
        if not (info.get("revert") or _storage_names_snapshot(storage, files)):
            return []
        return [session_key(NAME, f"@project-{project}")]

    def _sidecars(self, f: dict[str, Any], s: DiscoveredSession) -> list[SourceArtifact]:
        """The session's files on disk, from the names its rows hold (looked up every run:
        OpenCode deletes them after 7 days)."""
        root = self.root
        out: list[SourceArtifact] = []
        for name in f["tool_outputs"]:
            file = root / "tool-output" / name
            if file.is_symlink():  # never followed: it may lead out of HOME (a key, a system file)
                s.warnings.append(f"{self.native_root}/tool-output/{name} is a symbolic link; not archived")
                continue
            out.append(self._src(file, "sidecar", _sniff(file), optional=True))
        project = f["project"]
        for sh, certain in f["shells"]:
            file = self._shell_file(project, sh)
            if file is None:
                if certain:
                    s.warnings.append(f"shell output {sh}.out not found under {self.native_root}/shell/")
                continue
            out.append(self._src(file, "sidecar", "text", optional=True))
        if project and f["names_snapshot"] and not (root / "snapshot" / project).is_dir():
            s.warnings.append(f"names snapshot trees but {self.native_root}/snapshot/{project}/ is missing")
        return out

    def _shell_file(self, project: str | None, sh: str) -> Path | None:
        base = self.root / "shell"
        own = base / project / f"{sh}.out" if project else None
        if own is not None and own.is_file() and not own.is_symlink():
            return own
        if base.is_dir():
            for f in sorted(base.glob(f"*/{sh}.out")):
                if not f.is_symlink():  # a link is never followed (it may lead out of HOME)
                    return f
        return None

    def _snapshot_sessions(self, root: Path) -> Iterator[DiscoveredSession]:
        base = root / "snapshot"
        if not base.is_dir():
            return
        for pdir in sorted(p for p in base.iterdir() if p.is_dir() and not p.is_symlink()):
            s = DiscoveredSession(harness=NAME, session_id=f"@project-{pdir.name}", kind="host",
                                  retired=_RETIRED_PACK_FILES)
            left_out = 0
            try:
                for f in sorted(pdir.rglob("*")):
                    if f.is_file() and not f.is_symlink():
                        rel = f.relative_to(pdir).parts
                        fmt = _git_file_format(rel)
                        if fmt is None and _pack_folder_file(rel):  # derived from a pack, or a gc's leftover
                            left_out += _PACK_DERIVED.fullmatch(rel[-1]) is None
                            continue
                        s.sources.append(self._src(f, "blob", fmt or _sniff(f)))
            except OSError as e:
                s.warnings.append(f"{self._native(pdir)}: not fully listed ({e.strerror or e})")
            if left_out:
                s.warnings.append(f"{self._native(pdir)}: {left_out} files under objects/pack/ that are no pack "
                                  "(temporary files of an interrupted gc?) not archived")
            if s.sources:
                s.updated_at = iso_ms(max(src.source.stat().st_mtime for src in s.sources) * 1000)
            yield s

    def _storage_session(self, sid: str, info: dict[str, Any]) -> DiscoveredSession:
        """A session known only from storage/session/<project>/<sid>.json (pre-SQLite JSON
        storage): its info gives title, times, directory and parentID (a subagent's parent)."""
        t = info.get("time") if isinstance(info.get("time"), dict) else {}
        title, directory, parent = info.get("title"), info.get("directory"), info.get("parentID")
        s = DiscoveredSession(harness=NAME, session_id=sid, title=title if isinstance(title, str) and title else None,
                              created_at=iso_ms(t.get("created")), updated_at=iso_ms(t.get("updated")),
                              cwd=directory if isinstance(directory, str) and directory else None)
        if isinstance(parent, str) and parent:
            s.kind = "subagent"
            s.parents.append(LineageEdge(relation="subagent", parent=session_key(NAME, parent)))
        if not info:
            s.warnings.append(f"{self.native_root}/storage: files of session {sid} but no session info file")
        return s

    def _host_session(self, root: Path, warnings: list[str], storage: list[Path],
                      errors: Sequence[str] = ()) -> DiscoveredSession | None:
        s = DiscoveredSession(harness=NAME, session_id="@host", kind="host",
                              warnings=[*warnings, *errors], errors=list(errors))
        s.sources.extend(self._src(f, "sidecar", _sniff(f)) for f in storage)
        if not s.sources and not s.warnings:
            return None
        return s



class _Storage:
    def __init__(self) -> None:
        self.sessions: dict[str, tuple[list[Path], dict[str, Any]]] = {}  # sid -> (files, session info)
        self.host: list[Path] = []  # files of no session (migration marker, project/, ...)
        self.warnings: list[str] = []  # info or part files refused (no regular file any more)

    def add(self, sid: str, f: Path) -> None:
        self.sessions.setdefault(sid, ([], {}))[0].append(f)


_SESSION_ID = re.compile(r"ses_[0-9A-Za-z]{1,64}")


def _storage_by_session(storage: Path) -> _Storage:
    """The JSON storage of pre-SQLite builds (1.x remnant), file by file, grouped by the session
    its key names: a file with a session id among its folder names or as its name
    (session/<project>/<sid>.json, the info; message/<sid>/<msg>.json; session_diff/, todo/,
    share/<sid>.json; the older session/info|message|part/<sid>/... layout), and
    part/<msg>/<part>.json by its message's session, else by the part's sessionID. Anything
    else (migration marker, project/) is host data. A session's files go with it, so restoring
    or forgetting one session takes them too."""
    out = _Storage()
    if not storage.is_dir():
        return out
    files = [f for f in sorted(storage.rglob("*")) if f.is_file() and not f.is_symlink()]
    keyed: list[tuple[Path, tuple[str, ...], str, str | None]] = []
    msg_session: dict[str, str] = {}
    for f in files:
        rel = f.relative_to(storage).parts
        stem = rel[-1].removesuffix(".json")
        sid = next((p for p in (*rel[1:-1], stem) if _SESSION_ID.fullmatch(p)), None)
        if sid is not None and sid != stem and "message" in rel[:-1]:
            msg_session[stem] = sid
        keyed.append((f, rel, stem, sid))
    for f, rel, stem, sid in keyed:
        if sid is None and rel[0] == "part" and len(rel) == 3:
            sid = msg_session.get(rel[1])
            if sid is None:
                part = _json_file(f, out.warnings, storage)
                ref = part.get("sessionID") if isinstance(part, dict) else None
                sid = ref if isinstance(ref, str) and _SESSION_ID.fullmatch(ref) else None
        if sid is None:
            out.host.append(f)
            continue
        out.add(sid, f)
        if rel[0] == "session" and stem == sid and len(rel) == 3:  # the session's info
            info = _json_file(f, out.warnings, storage)
            if isinstance(info, dict) and info.get("id") in (None, sid):
                out.sessions[sid][1].update(info)
    return out


_PROJECT_ID = re.compile(r"[0-9A-Za-z_-]{1,128}")  # a folder name under snapshot/, nothing that climbs out


def _storage_project(storage: Path, files: list[Path], info: dict[str, Any]) -> str | None:
    """A pre-SQLite session's project: its info's projectID, else the folder of its info file
    (session/<project>/<sid>.json); None when neither is a plain folder name."""
    ref = info.get("projectID")
    if isinstance(ref, str) and _PROJECT_ID.fullmatch(ref):
        return ref
    for f in files:
        rel = f.relative_to(storage).parts
        if len(rel) == 3 and rel[0] == "session" and rel[1] not in ("info", "message", "part") \
                and _PROJECT_ID.fullmatch(rel[1]):
            return rel[1]
    return None


def _storage_names_snapshot(storage: Path, files: list[Path]) -> bool:
    """Whether one of the session's part files (part/<msg>/<prt>.json, or the older
    session/part/<sid>/<msg>/<prt>.json) names a snapshot tree: a 1.x part's `snapshot`."""
    for f in files:
        rel = f.relative_to(storage).parts
        if rel[0] != "part" and rel[:2] != ("session", "part"):
            continue
        part = _json_file(f)
        if isinstance(part, dict) and isinstance(part.get("snapshot"), str) and part["snapshot"]:
            return True
    return False


def _json_file(f: Path, warnings: list[str] | None = None, storage: Path | None = None) -> Any:
    """An info or part file's JSON; None when unreadable, no regular file (a symlink or FIFO
    swapped in since the listing: refused, not followed, named in `warnings`), not JSON, or
    over 1 MB (an info or part file is small; a huge one is archived as data only)."""
    try:
        raw = read_regular(f, 1 << 20)
        return orjson.loads(raw) if raw is not None else None
    except SnapshotError as e:
        if warnings is not None:
            name = f.relative_to(storage).as_posix() if storage is not None else f.name
            warnings.append(f"storage/{name}: {e.strerror or 'not a regular file'}")
        return None
    except (OSError, orjson.JSONDecodeError):
        return None


_LOOSE_OBJECT = re.compile(r"[0-9a-f]{38}(?:[0-9a-f]{24})?")  # SHA-1 or SHA-256 object names, less 2
_PACK = re.compile(r"pack-[0-9a-f]{40}(?:[0-9a-f]{24})?\.pack")
# what git derives from a pack (index, reverse index, cruft mtimes, bitmap) or marks it with
_PACK_DERIVED = re.compile(r"pack-[0-9a-f]{40}(?:[0-9a-f]{24})?\.(?:idx|rev|mtimes|bitmap|keep|promisor)")
# what archives made before packs became git-pack artifacts (s24) hold of them: left out now
_RETIRED_PACK_FILES = r".*/objects/pack/" + _PACK_DERIVED.pattern


def _pack_folder_file(rel: tuple[str, ...]) -> bool:
    """Is rel (relative to a snapshot git dir or its project folder) a file of objects/pack/?"""
    return len(rel) >= 3 and rel[-3:-1] == ("objects", "pack")


def _git_file_format(rel: tuple[str, ...]) -> Format | None:
    """How a file of a snapshot git dir is archived: loose objects redacted inside their zlib
    stream, packs as a tar of their objects each redacted as a loose object (walkers/gitpack);
    None for the rest (config, refs, logs, index, info/*: sniffed as text or binary). The other
    files of objects/pack/ (a pack's .idx and the like, derived from it; an interrupted gc's
    temporary files) are not archived: `_snapshot_sessions` leaves them out."""
    for i, part in enumerate(rel):
        if part == "objects":
            below = rel[i + 1:]
            if len(below) == 2 and len(below[0]) == 2 and _LOOSE_OBJECT.fullmatch(below[1]) is not None \
                    and all(c in "0123456789abcdef" for c in below[0]):
                return "git-object"
            if len(below) == 2 and below[0] == "pack" and _PACK.fullmatch(below[1]) is not None:
                return "git-pack"
            return None
    return None


# ---------------------------------------------------------------- facts read from a snapshot


def read_facts(conn: sqlite3.Connection, db: Path | None = None) -> list[dict[str, Any]]:
    """Per session row (see session_table), in creation order, what discovery needs
    (JSON-able). A row that cannot be read gives {"id", "error"}. With `db` (the file conn
    reads), each session also gets the fingerprint of its extract ("extract", see
    extract_fingerprint)."""
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    sessions = session_table(tables)
    if sessions is None:
        return []
    fp = None
    if db is not None:
        fp = sqlite3.connect(":memory:")
        fp.execute("ATTACH DATABASE ? AS src", (_uri(db, mode="ro"),))
    try:
        fingerprint = _Fingerprinter(fp, _schema(fp, "src")) if fp is not None else None
        out = []
        rows = [(sessions, r) for r in conn.execute(f"SELECT * FROM {sql_ident(sessions)} ORDER BY time_created, id")]
        rows += [("session", r) for r in _unimported_rows(conn, tables)]
        for table, row in rows:
            sid = str(row["id"])
            try:
                f = _session_facts(conn, tables, row, unimported=table != sessions)
                f["table"] = table
                if fingerprint is not None:
                    f["extract"] = fingerprint(sid)
                out.append(f)
            except (sqlite3.Error, ValueError, TypeError, KeyError) as e:
                out.append({"id": sid, "error": f"{type(e).__name__}: {e}"})
        return out
    finally:
        if fp is not None:
            fp.close()


def _unimported_rows(conn: sqlite3.Connection, tables: set[str]) -> list[sqlite3.Row]:
    """1.x `session` rows of an upgraded database (sessions in session_v2) that session_v2 does
    not hold: written by a 1.x build after the import (OpenCode imports once) or skipped by it.
    Their rows live only in the 1.x tables; a backup keeps them (never drops a session)."""
    if session_table(tables) != "session_v2" or "session" not in tables:
        return []
    cols = _columns(conn, "main", "session")
    if "id" not in cols:
        return []
    order = "time_created, id" if "time_created" in cols else "id"
    return conn.execute(
        f"SELECT * FROM session WHERE id NOT IN (SELECT id FROM session_v2 WHERE id IS NOT NULL) ORDER BY {order}"
    ).fetchall()


def _session_facts(
    conn: sqlite3.Connection, tables: set[str], row: sqlite3.Row, unimported: bool = False
) -> dict[str, Any]:
    sid = str(row["id"])
    # a 1.x database (never opened by 2.x), or a 1.x row an upgraded one never imported:
    # role+parts rows in `message` / `part`
    legacy = (unimported or "session_message" not in tables) and {"message", "part"} <= tables
    messages = legacy or (not unimported and "session_message" in tables)
    title = _get(row, "title")
    directory = _get(row, "directory")
    parent = _get(row, "parent_id")
    fork = _get(row, "fork_session_id")
    fork_at = None
    if fork:
        boundary = _json(_get(row, "fork_boundary"))
        if isinstance(boundary, dict) and boundary.get("messageID"):
            fork_at = f"{boundary.get('type') or 'through'}:{boundary['messageID']}"
    revert = _json(_get(row, "revert"))
    project = _get(row, "project_id")
    f: dict[str, Any] = {
        "id": sid,
        "title": str(title) if title else None,
        "created": iso_ms(_get(row, "time_created")),
        "updated": iso_ms(_get(row, "time_updated")),
        "cwd": str(directory) if directory else None,
        "parent": str(parent) if parent else None,
        "spawn": (_legacy_spawn_call if legacy else _spawn_call)(conn, str(parent), sid) if parent else None,
        "fork": str(fork) if fork else None,
        "fork_at": fork_at,
        "revert": str(revert["messageID"]) if isinstance(revert, dict) and revert.get("messageID") else None,
        "messages": messages,
        "project": str(project) if project else None,
        "unimported": unimported,
    }
    if legacy:
        f["in_flight"] = _legacy_in_flight(conn, sid)
        f.update(_legacy_sidecar_names(conn, sid))
    elif messages:
        f["in_flight"] = _in_flight(conn, sid)
        f.update(_sidecar_names(conn, sid))
    return f


def _spawn_call(conn: sqlite3.Connection, parent: str, child: str) -> str | None:
    """The parent's tool call whose block names the child session (subagent tool)."""
    try:
        cur = conn.execute(
            "SELECT data FROM session_message WHERE session_id = ? AND type = 'assistant' "
            "AND instr(CAST(data AS TEXT), ?) > 0 ORDER BY seq",
            (parent, child),
        )
        for (data,) in cur:
            obj = _json(data)
            content = obj.get("content") if isinstance(obj, dict) else None
            for block in content if isinstance(content, list) else []:
                if isinstance(block, dict) and block.get("type") == "tool" and block.get("id"):
                    if child in orjson.dumps(block).decode():
                        return str(block["id"])
    except sqlite3.Error:
        return None
    return None


def _in_flight(conn: sqlite3.Connection, sid: str) -> list[str]:
    """Rows still being rewritten in place (seed gotcha): assistant rows without
    time.completed, shell and compaction rows whose status is still running."""
    out = []
    for what, cond in (
        ("assistant row(s) without time.completed", "type = 'assistant' AND json_extract(data, '$.time.completed') IS NULL"),
        ("shell row(s) still running", "type = 'shell' AND json_extract(data, '$.status') = 'running'"),
        ("compaction row(s) still running", "type = 'compaction' AND json_extract(data, '$.status') = 'running'"),
    ):
        rows = conn.execute(
            f"SELECT id, seq FROM session_message WHERE session_id = ? AND json_valid(data) AND {cond} ORDER BY seq",
            (sid,),
        ).fetchall()
        if rows:
            out.append(_in_flight_note(what, [f"{r['id']} (seq {r['seq']})" for r in rows]))
    return out


def _in_flight_note(what: str, rows: list[str]) -> str:
    """The warning for rows archived while still being written (the first five named)."""
    return f"in-flight: {len(rows)} {what} archived as-is: " + ", ".join(rows[:5]) + (" ..." if len(rows) > 5 else "")


def _sidecar_names(conn: sqlite3.Connection, sid: str) -> dict[str, Any]:
    """tool-output/ file names and shell ids (with whether a shell row names it, or only a
    mention) the session's rows hold; whether an assistant row names snapshot trees."""
    names: set[str] = set()
    for (data,) in conn.execute(
        "SELECT CAST(data AS TEXT) FROM session_message WHERE session_id = ? "
        "AND instr(CAST(data AS TEXT), 'tool-output/') > 0 ORDER BY seq",
        (sid,),
    ):
        names.update(m.group(1) for m in _TOOL_OUTPUT_RE.finditer(data or ""))
    shells: dict[str, bool] = {}
    for r in conn.execute(
        "SELECT json_extract(data, '$.shellID') FROM session_message WHERE session_id = ? "
        "AND type = 'shell' AND json_valid(data)",
        (sid,),
    ):
        if r[0]:
            shells[str(r[0])] = True
    for (data,) in conn.execute(
        "SELECT CAST(data AS TEXT) FROM session_message WHERE session_id = ? AND type != 'shell' "
        "AND instr(CAST(data AS TEXT), 'sh_') > 0",
        (sid,),
    ):
        for m in _SHELL_ID_RE.finditer(data or ""):
            shells.setdefault(m.group(1), False)
    named = conn.execute(
        "SELECT 1 FROM session_message WHERE session_id = ? AND type = 'assistant' AND json_valid(data) "
        "AND (json_extract(data, '$.snapshot.start') IS NOT NULL OR json_extract(data, '$.snapshot.end') IS NOT NULL) "
        "LIMIT 1",
        (sid,),
    ).fetchone()
    return {"tool_outputs": sorted(names), "shells": sorted([sh, c] for sh, c in shells.items()),
            "names_snapshot": named is not None}


def _legacy_spawn_call(conn: sqlite3.Connection, parent: str, child: str) -> str | None:
    """1.x: the parent's task tool part (data.callID) whose state names the child session."""
    try:
        for (call,) in conn.execute(
            "SELECT json_extract(data, '$.callID') FROM part WHERE session_id = ? AND json_valid(data) "
            "AND json_extract(data, '$.type') = 'tool' AND instr(CAST(data AS TEXT), ?) > 0 ORDER BY id",
            (parent, child),
        ):
            if call:
                return str(call)
    except sqlite3.Error:
        return None
    return None


def _legacy_in_flight(conn: sqlite3.Connection, sid: str) -> list[str]:
    rows = conn.execute(
        "SELECT id FROM message WHERE session_id = ? AND json_valid(data) "
        "AND json_extract(data, '$.role') = 'assistant' AND json_extract(data, '$.time.completed') IS NULL ORDER BY id",
        (sid,),
    ).fetchall()
    if not rows:
        return []
    return [_in_flight_note("1.x assistant message(s) without time.completed", [str(r[0]) for r in rows])]


def _legacy_sidecar_names(conn: sqlite3.Connection, sid: str) -> dict[str, Any]:
    """1.x: tool-output/ names in the session's parts (tool state metadata/output); whether a
    step-start / step-finish / snapshot part names a snapshot tree. 1.x has no shell rows."""
    names: set[str] = set()
    for (data,) in conn.execute(
        "SELECT CAST(data AS TEXT) FROM part WHERE session_id = ? AND instr(CAST(data AS TEXT), 'tool-output/') > 0",
        (sid,),
    ):
        names.update(m.group(1) for m in _TOOL_OUTPUT_RE.finditer(data or ""))
    named = conn.execute(
        "SELECT 1 FROM part WHERE session_id = ? AND json_valid(data) "
        "AND json_extract(data, '$.snapshot') IS NOT NULL LIMIT 1",
        (sid,),
    ).fetchone()
    return {"tool_outputs": sorted(names), "shells": [], "names_snapshot": named is not None}


_OUTPUT_PATH_KEY = b'"outputPath"'
_OUTPUT_PATH_RE = string_field("outputPath")


def _restored_tool_outputs(folder: str, root: Path, moved: dict[str, str]) -> dict[str, str]:
    """File name -> absolute restored path of each `tool-output/<name>` file of the restore."""
    out: dict[str, str] = {}
    for archived, to in moved.items():
        name = archived[len(folder):]
        if archived.startswith(folder) and "/" not in name:
            new = restored_path(root, to)
            if new is not None:
                out[name] = new
    return out


def _rewrite_data_cells(db: Path, needle: bytes, rewrite: Callable[[bytes], bytes]) -> int:
    """Pass each `data` cell of every ordinary table of `db` whose text holds `needle` through
    `rewrite`, writing back the cells that changed (same storage class: TEXT or BLOB) in one
    transaction; a database with nothing to change is not written. Returns the cells written."""
    conn = sqlite3.connect(_uri(db), uri=True, isolation_level=None)
    try:
        tables = [r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' "
            "AND sql NOT LIKE 'CREATE VIRTUAL%'")]
        changes: list[tuple[str, int, bool, bytes]] = []
        for table in tables:
            if "data" not in _columns(conn, "main", table):
                continue
            try:  # as bytes: a TEXT cell is never decoded (nor refused for bytes that are not UTF-8)
                rows = conn.execute(f"SELECT rowid, typeof(data) = 'text', CAST(data AS BLOB) FROM "
                                    f"main.{sql_ident(table)} WHERE instr(CAST(data AS BLOB), ?) > 0",
                                    (needle,))
            except sqlite3.OperationalError:  # a WITHOUT ROWID table: OpenCode has none
                continue
            for rowid, text, data in rows:  # streamed: only the cells that change are kept
                new = rewrite(bytes(data))
                if new != data:
                    changes.append((table, rowid, bool(text), new))
        if changes:
            conn.execute("BEGIN IMMEDIATE")
            for table, rowid, text, value in changes:
                cell = "CAST(? AS TEXT)" if text else "?"
                conn.execute(f"UPDATE main.{sql_ident(table)} SET data = {cell} WHERE rowid = ?", (value, rowid))
            conn.execute("COMMIT")
        return len(changes)
    finally:
        conn.close()


def _produce(snap: DbSnapshot, session_id: str, dst: Path) -> None:
    extract_session(snap.path, session_id, dst)


HARNESS = OpenCode
