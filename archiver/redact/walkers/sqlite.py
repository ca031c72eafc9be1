"""SQLite databases: redact every text value (and text-like BLOB), then `VACUUM INTO` dst.

The pipeline hands us a consistent snapshot (backup API). We work on a private
copy (a 0700 temp dir; a `-wal` next to the snapshot is copied too and
recovered), update only the cells that change, and write the result with
`VACUUM INTO`, so no free page, WAL frame or journal of dst keeps old plaintext.
dst has journal_mode DELETE and must pass `PRAGMA integrity_check`. The schema
(table, index, trigger names, sqlite_master) is never changed.

FTS virtual tables are updated through the table itself and then optimised (or
rebuilt from external content); their shadow tables are never written directly.
Other virtual tables are skipped.
"""

from __future__ import annotations

import logging
import re
import shutil
import sqlite3
import tempfile
from collections import Counter
from pathlib import Path
from typing import Callable, Iterator

from archiver.redact.walkers import SECRET_NAME, SECRET_NAME_MAX

log = logging.getLogger(__name__)

# cell(value, carrier, key): key is the name a value is scanned under (as `"key": "value"`)
# when its column name, or the name of its row's name/value pair, is secret-like; else None
CellFn = Callable[[object, str, "str | None"], object]
# the same for all text cells of a batch of rows at once: [(value, carrier, key)] -> new values
CellsFn = Callable[[list[tuple[object, str, "str | None"]]], list[object]]
_PAIRS = (("name", "value"), ("key", "value"))
BATCH = 500
BATCH_BYTES = 4 << 20  # a batch also ends after about this many bytes of cells
_SHADOW_SUFFIXES = ("_content", "_data", "_idx", "_docsize", "_config", "_segments", "_segdir", "_stat",
                    "_node", "_rowid", "_parent")
_FTS_RE = re.compile(r"\bUSING\s+(fts[345])\b", re.I)


class SqliteRedactionError(RuntimeError):
    """The database could not be redacted safely; the message names the file."""


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _tables(conn: sqlite3.Connection) -> tuple[list[tuple[str, str]], dict[str, str]]:
    """(ordinary tables with their CREATE sql, {fts table: module})."""
    rows = conn.execute("SELECT name, COALESCE(sql, '') FROM sqlite_master WHERE type = 'table'").fetchall()
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
        if any(name == v + suf for v in virtual for suf in _SHADOW_SUFFIXES):
            continue
        plain.append((name, sql))
    return plain, fts


def _columns(conn: sqlite3.Connection, table: str) -> list[str]:
    cols = []
    for row in conn.execute(f"PRAGMA table_xinfo({_q(table)})"):
        hidden = row[6] if len(row) > 6 else 0
        if hidden:  # generated columns cannot be written; virtual tables' hidden columns are not data
            continue
        cols.append(row[1])
    return cols


def _rows(conn: sqlite3.Connection, table: str, sql: str, cols: list[str]) -> Iterator[tuple[tuple, tuple] | None]:
    """(key values, column values) per row, read in batches of at most BATCH rows and about
    BATCH_BYTES of cells, one row at a time; None after each batch, when no cursor is open (so
    pending updates can be written without racing one)."""
    sel = ", ".join(_q(c) for c in cols)
    if "WITHOUT ROWID" in sql.upper():  # the primary key, in key order (row values compare)
        keys = [_q(r[1]) for r in sorted(conn.execute(f"PRAGMA table_info({_q(table)})"), key=lambda r: r[5])
                if r[5]]
    else:
        keys = [next(r for r in ("rowid", "_rowid_", "oid") if r not in cols)]
    width = len(keys)
    key_sel = ", ".join(keys)
    order = f"ORDER BY {key_sel} LIMIT {BATCH}"
    after = f"WHERE ({key_sel}) > ({', '.join('?' * width)})" if width > 1 else f"WHERE {key_sel} > ?"
    last: tuple | None = None
    while True:
        if last is None:
            cur = conn.execute(f"SELECT {key_sel}, {sel} FROM {_q(table)} {order}")
        else:
            cur = conn.execute(f"SELECT {key_sel}, {sel} FROM {_q(table)} {after} {order}", last)
        n = size = 0
        try:
            for row in cur:
                n += 1
                last = row[:width]
                size += sum(len(v) for v in row if type(v) is str or type(v) is bytes)
                yield last, row[width:]
                if size >= BATCH_BYTES:
                    break
        finally:
            cur.close()
        if not n:
            return
        yield None


def _key_clause(conn: sqlite3.Connection, table: str, sql: str, cols: list[str]) -> str:
    if "WITHOUT ROWID" in sql.upper():
        pk = [r[1] for r in sorted(conn.execute(f"PRAGMA table_info({_q(table)})"), key=lambda r: r[5]) if r[5]]
        return " AND ".join(f"{_q(c)} = ?" for c in pk)
    rid = next(r for r in ("rowid", "_rowid_", "oid") if r not in cols)
    return f"{rid} = ?"


def _walk_table(conn: sqlite3.Connection, table: str, sql: str, cell: CellFn, write: bool,
                cells: CellsFn | None = None) -> int:
    """Every text cell of `table` through `cells` (a batch of rows at once: one engine pass over
    many small JSON cells), else through `cell` one by one in the same order; the cells that
    change are updated by key. Returns the number of rows changed."""
    if cells is None:
        cells = lambda items: [cell(v, carrier, key) for v, carrier, key in items]  # noqa: E731
    cols = _columns(conn, table)
    if not cols:
        return 0
    carriers = [f"sqlite:{table}.{c}" for c in cols]
    keys: list[str | None] = [c if len(c) <= SECRET_NAME_MAX and SECRET_NAME.search(c) else None for c in cols]
    lower = [c.lower() for c in cols]
    pair = next(((lower.index(n), lower.index(v)) for n, v in _PAIRS if n in lower and v in lower), None)
    where = _key_clause(conn, table, sql, cols)
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

    for item in _rows(conn, table, sql, cols):
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
    _walk_table(conn, table, sql, cell, write, cells)
    if write:
        conn.execute(f"INSERT INTO {_q(table)}({_q(table)}) VALUES('optimize')")


def redact_sqlite(src: Path, dst: Path, cell: CellFn, warnings: Counter[str] | None = None,
                  cells: CellsFn | None = None) -> None:
    """Redact the snapshot `src` into a fresh, vacuumed database `dst` (`cells`, when given, takes
    the text cells of a batch of rows at once; `cell` one at a time)."""
    warnings = warnings if warnings is not None else Counter()
    tmp = tempfile.mkdtemp(prefix="archiver-sqlite-")  # mode 0700
    try:
        work = Path(tmp) / "work.db"
        shutil.copyfile(src, work)
        wal = Path(str(src) + "-wal")
        if wal.exists():
            shutil.copyfile(wal, Path(str(work) + "-wal"))
        conn = sqlite3.connect(work, isolation_level=None)
        try:
            conn.execute("PRAGMA journal_mode=DELETE")
            # a private temp copy and a temp output (uploaded, then removed): no fsyncs, which
            # also makes VACUUM INTO skip them (SQLite >= 3.38 honours synchronous=OFF there)
            conn.execute("PRAGMA synchronous=OFF")
            conn.execute("BEGIN")
            plain, fts = _tables(conn)
            sqls = dict(conn.execute("SELECT name, COALESCE(sql, '') FROM sqlite_master WHERE type='table'"))
            for table, sql in plain:
                _walk_table(conn, table, sql, cell, True, cells)
            for table, module in fts.items():
                try:
                    _fts(conn, table, module, sqls[table], cell, True, warnings, cells)
                except sqlite3.DatabaseError as e:
                    log.warning("an FTS table of a database was not redacted: %s", type(e).__name__)
                    warnings["sqlite-fts-skipped"] += 1
            conn.execute("COMMIT")
            if dst.exists():
                dst.unlink()
            conn.execute("VACUUM INTO ?", (str(dst),))
        except sqlite3.DatabaseError as e:
            raise SqliteRedactionError(f"{src}: cannot redact SQLite database: {e}") from e
        finally:
            conn.close()
        _finish(dst)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _finish(dst: Path) -> None:
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
    if mode.lower() != "delete" or check != ["ok"]:
        raise SqliteRedactionError(f"{dst}: redacted database failed its check: journal_mode={mode}, "
                                   f"integrity_check={'; '.join(check)[:200]}")


def scan_sqlite(path: Path, cell: CellFn, cells: CellsFn | None = None) -> None:
    """Run `cell` (or `cells`, a batch of rows at a time) over every text value of a (redacted)
    database without writing anything."""
    conn = sqlite3.connect(Path(path).resolve().as_uri() + "?mode=ro", uri=True)
    try:
        plain, fts = _tables(conn)
        for table, sql in plain:
            _walk_table(conn, table, sql, cell, False, cells)
        sqls = dict(conn.execute("SELECT name, COALESCE(sql, '') FROM sqlite_master WHERE type='table'"))
        for table, module in fts.items():
            try:
                _fts(conn, table, module, sqls[table], cell, False, Counter(), cells)
            except sqlite3.DatabaseError as e:
                log.warning("an FTS table of a database was not scanned: %s", type(e).__name__)
    finally:
        conn.close()
