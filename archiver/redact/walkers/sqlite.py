"""SQLite databases: redact every text value (and text-like BLOB), then `VACUUM INTO` dst.

The pipeline hands us a consistent snapshot (backup API). We work on a private
copy (in memory for a small rollback-journal file with no `-wal`, else in a 0700
temp dir, where a `-wal` next to the snapshot is copied too and recovered),
update only the cells that change, and write the result with `VACUUM INTO`, so
no free page, WAL frame or journal of dst keeps old plaintext.
dst has journal_mode DELETE and must pass `PRAGMA integrity_check`. The schema
(table, index, trigger names and their SQL) is never changed.

CHECK constraints are not enforced during the walk (a replacement need not meet a column's
CHECK: `<EMAIL:...>` under `CHECK (email LIKE '%@%')`); unmet ones are counted as the warning
`sqlite-check-constraint-unmet`, every other integrity finding fails the file.

Triggers do not fire during the walk: they are dropped in the private copy's transaction and
created again, from their own SQL, before it commits. A redacting UPDATE is no edit of the
session: firing `AFTER UPDATE` triggers would add rows that were never in the source (an audit
table given the OLD value, plaintext, after that table was walked) or change columns
(`updated_at`) the source holds.

FTS virtual tables are updated through the table itself and then optimised (or
rebuilt from external content); their shadow tables are never written directly.
Other virtual tables are skipped, and their shadow tables (R*Tree's `_rowid` with its `+aux`
text columns, ...) are walked as the ordinary tables they are. The planner's samples of index
keys (`sqlite_stat2/3/4`: copies of indexed values) are emptied; ANALYZE makes them again.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import sqlite3
import tempfile
from collections import Counter
from pathlib import Path
from typing import Callable, Iterator, NamedTuple

from archiver import sqlite_checks
from archiver.redact.walkers import PERSON_KEY, SECRET_NAME, SECRET_NAME_MAX

log = logging.getLogger(__name__)

# cell(value, carrier, key): key is the name a value is scanned under (as `"key": "value"`)
# when its column name, or the name of its row's name/value pair, is secret-like; else None
CellFn = Callable[[object, str, "str | None"], object]
# the same for all text cells of a batch of rows at once: [(value, carrier, key)] -> new values
CellsFn = Callable[[list[tuple[object, str, "str | None"]]], list[object]]
_PAIRS = (("name", "value"), ("key", "value"))
BATCH = 500
BATCH_BYTES = 4 << 20  # a batch also ends after about this many bytes of cells
# a database up to this size is redacted in a private in-memory copy (its bytes held twice at most)
MEMORY_MAX = 16 << 20
_MAGIC = b"SQLite format 3\x00"
_HEADER_BYTES = 100
_NAMES_PER_STATEMENT = 200  # tables whose columns one statement reads (well below SQLite's 999 parameters)
# the shadow tables of FTS3/4/5, written only through their table; those of other modules (R*Tree
# `_rowid` with its `+aux` text columns, sqlite-vec's `_auxiliary`) are ordinary tables to the walk
_FTS_SHADOW_SUFFIXES = ("_content", "_data", "_idx", "_docsize", "_config", "_segments", "_segdir", "_stat")
# the query planner's samples of index keys (ANALYZE under SQLITE_ENABLE_STAT4, which Node's
# better-sqlite3 builds with): copies of indexed column values, plaintext, in a record format
_SAMPLE_TABLES = ("sqlite_stat2", "sqlite_stat3", "sqlite_stat4")
_FTS_RE = re.compile(r"\bUSING\s+(fts[345])\b", re.I)


class SqliteRedactionError(RuntimeError):
    """The database could not be redacted safely; the message names the file."""


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


class _Table(NamedTuple):
    """An ordinary (or FTS) table as the walk reads it: its name, its CREATE sql, its columns
    that hold data (no generated or hidden ones) and the key a row is read and updated by
    (the primary key in key order for a WITHOUT ROWID table, else a rowid alias)."""
    name: str
    sql: str
    cols: list[str]
    keys: list[str]
    without_rowid: bool


def _master(conn: sqlite3.Connection) -> list[tuple[str, str]]:
    return conn.execute("SELECT name, COALESCE(sql, '') FROM sqlite_master WHERE type = 'table'").fetchall()


def _set_triggers_aside(conn: sqlite3.Connection) -> list[str]:
    """Drop every trigger of the main schema; returns their CREATE statements, in schema order."""
    rows = conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND sql IS NOT NULL "
                        "ORDER BY rowid").fetchall()
    for name, _sql in rows:
        conn.execute(f"DROP TRIGGER {_q(name)}")
    return [sql for _name, sql in rows]


def _split(rows: list[tuple[str, str]]) -> tuple[list[tuple[str, str]], dict[str, str]]:
    """(ordinary tables with their CREATE sql, {fts table: module}) of sqlite_master's tables."""
    virtual = {n: s for n, s in rows if s.upper().lstrip().startswith("CREATE VIRTUAL TABLE")}
    fts: dict[str, str] = {}
    for name, sql in virtual.items():
        m = _FTS_RE.search(sql)
        if m:
            fts[name] = m.group(1).lower()
    plain = []
    for name, sql in rows:
        if name.startswith("sqlite_") or name in virtual:
            continue
        if any(name == v + suf for v in fts for suf in _FTS_SHADOW_SUFFIXES):
            continue
        plain.append((name, sql))
    return plain, fts


def _table(name: str, sql: str, info: list[tuple[str, int, int]]) -> _Table:
    """`info`: (column, pk position, hidden) of each column, as PRAGMA table_xinfo lists them."""
    cols = [c for c, _pk, hidden in info if not hidden]  # generated columns cannot be written;
    without_rowid = "WITHOUT ROWID" in sql.upper()       # virtual tables' hidden columns are not data
    if without_rowid:  # the primary key, in key order (row values compare)
        keys = [_q(c) for c, pk, _h in sorted(info, key=lambda r: r[1]) if pk]
    else:
        keys = [next(r for r in ("rowid", "_rowid_", "oid") if r not in cols)]
    return _Table(name, sql, cols, keys, without_rowid)


def _plain_tables(conn: sqlite3.Connection, plain: list[tuple[str, str]]) -> list[_Table]:
    """The ordinary tables' columns and keys, read for all of them in a few statements
    (pragma_table_xinfo joined to a list of names) rather than one PRAGMA per table."""
    info: dict[str, list[tuple[str, int, int]]] = {name: [] for name, _sql in plain}
    names = list(info)
    for k in range(0, len(names), _NAMES_PER_STATEMENT):
        chunk = names[k:k + _NAMES_PER_STATEMENT]
        rows = conn.execute(
            "SELECT m.name, p.name, p.pk, p.hidden FROM sqlite_master AS m, pragma_table_xinfo(m.name) AS p "
            f"WHERE m.type = 'table' AND m.name IN ({', '.join('?' * len(chunk))}) ORDER BY m.name, p.cid", chunk)
        for table, col, pk, hidden in rows:
            info[table].append((col, pk, hidden))
    return [_table(name, sql, info[name]) for name, sql in plain]


def _columns(conn: sqlite3.Connection, table: str) -> list[tuple[str, int, int]]:
    return [(r[1], r[5], r[6] if len(r) > 6 else 0) for r in conn.execute(f"PRAGMA table_xinfo({_q(table)})")]


def _rows(conn: sqlite3.Connection, t: _Table) -> Iterator[tuple[tuple, tuple] | None]:
    """(key values, column values) per row, read in batches of at most BATCH rows and about
    BATCH_BYTES of cells, one row at a time; None after each batch, when no cursor is open (so
    pending updates can be written without racing one). A batch that ran out of rows is the
    last unless something was written after it (an UPDATE that moved a key, or a trigger's
    row): then one more query looks for rows past it, as after a full batch."""
    sel = ", ".join(_q(c) for c in t.cols)
    width = len(t.keys)
    key_sel = ", ".join(t.keys)
    order = f"ORDER BY {key_sel} LIMIT {BATCH}"
    after = f"WHERE ({key_sel}) > ({', '.join('?' * width)})" if width > 1 else f"WHERE {key_sel} > ?"
    last: tuple | None = None
    while True:
        if last is None:
            cur = conn.execute(f"SELECT {key_sel}, {sel} FROM {_q(t.name)} {order}")
        else:
            cur = conn.execute(f"SELECT {key_sel}, {sel} FROM {_q(t.name)} {after} {order}", last)
        n = size = 0
        ran_out = True
        try:
            for row in cur:
                n += 1
                last = row[:width]
                size += sum(len(v) for v in row if type(v) is str or type(v) is bytes)
                yield last, row[width:]
                if size >= BATCH_BYTES:
                    ran_out = False
                    break
        finally:
            cur.close()
        if not n:
            return
        written = conn.total_changes
        yield None
        if ran_out and n < BATCH and conn.total_changes == written:
            return


def _key_clause(t: _Table) -> str:
    if t.without_rowid:
        return " AND ".join(f"{k} = ?" for k in t.keys)
    return f"{t.keys[0]} = ?"


def _walk_table(conn: sqlite3.Connection, t: _Table, cell: CellFn, write: bool,
                cells: CellsFn | None = None) -> int:
    """Every text cell of `table` through `cells` (a batch of rows at once: one engine pass over
    many small JSON cells), else through `cell` one by one in the same order; the cells that
    change are updated by key. Returns the number of rows changed."""
    if cells is None:
        cells = lambda items: [cell(v, carrier, key) for v, carrier, key in items]  # noqa: E731
    table, cols = t.name, t.cols
    if not cols:
        return 0
    carriers = [f"sqlite:{table}.{c}" for c in cols]
    keys: list[str | None] = [c if len(c) <= SECRET_NAME_MAX and (SECRET_NAME.search(c) or PERSON_KEY.search(c))
                              else None for c in cols]
    lower = [c.lower() for c in cols]
    pair = next(((lower.index(n), lower.index(v)) for n, v in _PAIRS if n in lower and v in lower), None)
    where = _key_clause(t)
    changed_rows = 0
    pending: list[tuple[str, tuple]] = []
    rows: list[tuple[tuple, tuple]] = []

    def run_batch() -> int:
        items: list[tuple[object, str, str | None]] = []
        at: list[list[int]] = []  # per row: the columns handed over
        for _key, values in rows:
            row_keys = keys
            if pair is not None:  # a kv row: its value is scanned under its name ({"name": "DB_PASSWORD", ...})
                name = values[pair[0]]
                if type(name) is str and len(name) <= SECRET_NAME_MAX and SECRET_NAME.search(name):
                    row_keys = list(keys)
                    row_keys[pair[1]] = name
            cols_here = []
            for k, (carrier, v, name_of) in enumerate(zip(carriers, values, row_keys)):
                if type(v) is str or type(v) is bytes:
                    items.append((v, carrier, name_of))
                    cols_here.append(k)
            at.append(cols_here)
        news = cells(items) if items else []
        n = changed = 0
        for (key, values), cols_here in zip(rows, at):
            sets: list[str] = []
            params: list[object] = []
            for k in cols_here:
                new, v = news[n], values[k]
                n += 1
                if new is not v and new != v:
                    sets.append(f"{_q(cols[k])} = ?")
                    params.append(new)
            if sets and write:
                pending.append((f"UPDATE {_q(table)} SET {', '.join(sets)} WHERE {where}", (*params, *key)))
                changed += 1
        rows.clear()
        return changed

    for item in _rows(conn, t):
        if item is None:  # between batches: no cursor open
            changed_rows += run_batch()
            if write:
                _flush(conn, pending)
            continue
        rows.append(item)
    changed_rows += run_batch()
    if write:
        _flush(conn, pending)
    return changed_rows


def _flush(conn: sqlite3.Connection, pending: list[tuple[str, tuple]]) -> None:
    for stmt, params in pending:
        conn.execute(stmt, params)
    pending.clear()


def _fts(conn: sqlite3.Connection, table: str, module: str, sql: str, cell: CellFn, write: bool,
         warnings: Counter[str], cells: CellsFn | None = None) -> None:
    opts = sql.replace(" ", "").lower()
    if "content=''" in opts or 'content=""' in opts:
        # Contentless: the index holds plaintext terms we cannot rewrite; empty it (derived data).
        if write:
            if module == "fts5":
                conn.execute(f"INSERT INTO {_q(table)}({_q(table)}) VALUES('delete-all')")
            warnings["sqlite-contentless-fts-emptied"] += 1
        return
    if "content=" in opts:
        # External content: the content table is redacted like any other; rebuild the index from it.
        if write:
            conn.execute(f"INSERT INTO {_q(table)}({_q(table)}) VALUES('rebuild')")
        return
    _walk_table(conn, _table(table, sql, _columns(conn, table)), cell, write, cells)
    if write:
        conn.execute(f"INSERT INTO {_q(table)}({_q(table)}) VALUES('optimize')")


def redact_sqlite(src: Path, dst: Path, cell: CellFn, warnings: Counter[str] | None = None,
                  cells: CellsFn | None = None) -> None:
    """Redact the snapshot `src` into a fresh, vacuumed database `dst` (`cells`, when given, takes
    the text cells of a batch of rows at once; `cell` one at a time)."""
    warnings = warnings if warnings is not None else Counter()
    tmp: str | None = None
    try:
        conn = _in_memory(src)
        if conn is None:
            tmp = tempfile.mkdtemp(prefix="archiver-sqlite-")  # mode 0700
            conn = _file_copy(src, Path(tmp) / "work.db")
        try:
            if tmp is not None:
                conn.execute("PRAGMA journal_mode=DELETE")
            # a private copy and a temp output (uploaded, then removed): no fsyncs, which
            # also makes VACUUM INTO skip them (SQLite >= 3.38 honours synchronous=OFF there)
            conn.execute("PRAGMA synchronous=OFF")
            conn.execute("PRAGMA ignore_check_constraints=ON")  # see _finish
            conn.execute("BEGIN")
            triggers = _set_triggers_aside(conn)
            master = _master(conn)
            plain, fts = _split(master)
            sqls = dict(master)
            for t in _plain_tables(conn, plain):
                _walk_table(conn, t, cell, True, cells)
            for table, module in fts.items():
                try:
                    _fts(conn, table, module, sqls[table], cell, True, warnings, cells)
                except sqlite3.DatabaseError as e:
                    log.warning("an FTS table of a database was not redacted: %s", type(e).__name__)
                    warnings["sqlite-fts-skipped"] += 1
            for name in _SAMPLE_TABLES:
                if name in sqls and conn.execute(f"DELETE FROM {name}").rowcount:
                    warnings["sqlite-index-samples-dropped"] += 1
            for sql in triggers:
                conn.execute(sql)
            conn.execute("COMMIT")
            if dst.exists():
                dst.unlink()
            conn.execute("VACUUM INTO ?", (str(dst),))
        except sqlite3.DatabaseError as e:
            raise SqliteRedactionError(f"{src}: cannot redact SQLite database: {e}") from e
        finally:
            conn.close()
        unmet = _finish(dst)
        if unmet:
            log.warning("a redacted database no longer meets %d of its CHECK constraints", len(unmet))
            warnings["sqlite-check-constraint-unmet"] += len(unmet)
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


def _in_memory(src: Path) -> sqlite3.Connection | None:
    """A private in-memory copy of a small rollback-journal database with no -wal beside it
    (no temp file, no journal on disk); None for any other (see _file_copy). VACUUM INTO writes
    the same bytes from either copy: it rebuilds dst from the rows and schema alone."""
    if not hasattr(sqlite3.Connection, "deserialize") or Path(f"{src}-wal").exists():
        return None
    with open(src, "rb") as f:
        head = f.read(_HEADER_BYTES)
        if (len(head) < _HEADER_BYTES or not head.startswith(_MAGIC) or head[18:20] != b"\x01\x01"
                or os.fstat(f.fileno()).st_size > MEMORY_MAX):
            return None
        data = head + f.read()
    conn = sqlite3.connect(":memory:", isolation_level=None)
    try:
        conn.deserialize(data)
        conn.execute("PRAGMA temp_store=MEMORY")  # its sorts and temp b-trees never reach a temp dir either
    except sqlite3.DatabaseError as e:
        conn.close()
        raise SqliteRedactionError(f"{src}: cannot redact SQLite database: {e}") from e
    return conn


def _file_copy(src: Path, work: Path) -> sqlite3.Connection:
    """A private file copy of src (its -wal copied too, and recovered on open)."""
    shutil.copyfile(src, work)
    wal = Path(f"{src}-wal")
    if wal.exists():
        shutil.copyfile(wal, Path(f"{work}-wal"))
    return sqlite3.connect(work, isolation_level=None)


def _finish(dst: Path) -> list[str]:
    """Check dst (journal mode DELETE, integrity); returns the tables whose CHECK constraints a
    redacted value no longer meets. A replacement is longer or shaped unlike the value (an
    e-mail column under `CHECK (email LIKE '%@%')` holds `<EMAIL:...>`): the walk ignores CHECK
    constraints, or such a database could never be archived. Every other finding fails."""
    conn = sqlite3.connect(dst, isolation_level=None)
    try:
        mode = conn.execute("PRAGMA journal_mode=DELETE").fetchone()[0]
        check = [r[0] for r in conn.execute("PRAGMA integrity_check")]
    finally:
        conn.close()
    for suffix in ("-wal", "-shm", "-journal"):
        p = Path(str(dst) + suffix)
        if p.exists():
            p.unlink()
    if mode.lower() != "delete" or sqlite_checks.damage(check):
        raise SqliteRedactionError(f"{dst}: redacted database failed its check: journal_mode={mode}, "
                                   f"integrity_check={'; '.join(check)[:200]}")
    return sqlite_checks.unmet_checks(check)


def scan_sqlite(path: Path, cell: CellFn, cells: CellsFn | None = None) -> None:
    """Run `cell` (or `cells`, a batch of rows at a time) over every text value of a (redacted)
    database without writing anything."""
    conn = sqlite3.connect(Path(path).resolve().as_uri() + "?mode=ro", uri=True)
    try:
        master = _master(conn)
        plain, fts = _split(master)
        for t in _plain_tables(conn, plain):
            _walk_table(conn, t, cell, False, cells)
        sqls = dict(master)
        for table, module in fts.items():
            try:
                _fts(conn, table, module, sqls[table], cell, False, Counter(), cells)
            except sqlite3.DatabaseError as e:
                log.warning("an FTS table of a database was not scanned: %s", type(e).__name__)
    finally:
        conn.close()
