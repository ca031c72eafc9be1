"""SQL statements in text: the cells of the person, secret and identifier columns of `INSERT ...
VALUES`, `COPY ... FROM stdin` (pg_dump) and a mysqldump `INSERT` with no column list (its
columns from the `CREATE TABLE` of the same name, else read from the values)."""

from __future__ import annotations

import re
from typing import Iterator

import re2

from archiver.redact.tables.cells import (FULL_NAME_KIND, GIVEN_NAMES, ID_BASE, MAX_ROWS, NAME_KIND, add_value,
                                          column_kind, line_at, person_name_cell)


# INSERT INTO t (a, b) VALUES (...), (...); COPY t (a, b) FROM stdin; (pg_dump: tab-separated rows up to `\.`)
# (s26: the column list may be missing, as in mysqldump's `INSERT INTO `t` VALUES (...),(...);`: the columns
# are then those of the `CREATE TABLE` of the same name earlier in the text, else read from the values)
SQL_HEAD_RX = re2.compile(rb"(?i)\b(?:(?:insert|replace)[ \t\r\n]+(?:ignore[ \t\r\n]+)?into|copy)[ \t\r\n]+"
                          rb"([`\"\[\]A-Za-z0-9_.$]+)"
                          rb"[ \t\r\n]*(?:\(([^();]+)\)[ \t\r\n]*)?(values|from[ \t]+stdin[ \t]*;[ \t]*\r?\n)[ \t\r\n]*")
_CREATE_RX = re.compile(rb"(?i)\bcreate[ \t\r\n]+(?:(?:global[ \t\r\n]+|local[ \t\r\n]+)?(?:temporary|temp|unlogged)[ \t\r\n]+)?"
                        rb"table[ \t\r\n]+(?:if[ \t\r\n]+not[ \t\r\n]+exists[ \t\r\n]+)?([`\"\[\]A-Za-z0-9_.$]+)[ \t\r\n]*\(")
# the items of a CREATE TABLE that are no column
_NOT_A_COLUMN = re.compile(rb"(?i)(?:primary|key|unique|index|constraint|foreign|check|fulltext|spatial|exclude|period|like)\b")
_CREATE_CAP = 1 << 16  # a CREATE TABLE's body is read up to this many bytes
_SQL_CAP = 64 << 20  # the values of one statement are read up to this many bytes


def _sql_columns(names: bytes | list[bytes]) -> dict[int, int]:
    """{position: kind} of the identifier and person columns of a SQL column list (`a, "b", [c]`)."""
    kinds = {}
    for j, name in enumerate(names.split(b",") if isinstance(names, bytes) else names):
        kind = column_kind(name.strip(b" \t\r\n`\"[]").decode("utf-8", "replace"))
        if kind is not None and kind >= ID_BASE:
            kinds[j] = kind
    return kinds


def _table_name(name: bytes) -> bytes:
    """A SQL table name as compared: its last dotted part, unquoted, in lower case (`public."Users"`)."""
    return name.rsplit(b".", 1)[-1].strip(b"`\"[]").lower()


def _creates(buf: bytes) -> list[tuple[int, int, bytes, list[bytes]]]:
    """The CREATE TABLE statements of buf: (start, end of its line, table name, column names)."""
    out = []
    if b"reate" not in buf and b"REATE" not in buf:
        return out
    for m in _CREATE_RX.finditer(buf):
        body, close = _sql_parens(buf, m.end() - 1, min(len(buf), m.end() + _CREATE_CAP))
        if body is None:
            continue
        cols = []
        for item in body:
            word = item.strip(b" \t\r\n")
            if not word or _NOT_A_COLUMN.match(word):
                continue
            if word[:1] in b"`\"[":
                q = word.find(b"]" if word[:1] == b"[" else word[:1], 1)
                cols.append(word[1:q] if q > 0 else word[1:])
            else:
                cols.append(word.split(None, 1)[0])
        end = buf.find(b"\n", close)  # (the statement's end: its options after the `)`, its `;`)
        out.append((m.start(), len(buf) if end < 0 else end + 1, _table_name(m.group(1)), cols))
    return out


def _sql_parens(buf: bytes, pos: int, n: int) -> tuple[list[bytes] | None, int]:
    """The items (split at the commas of depth 0) of the parenthesised list opened at pos, strings
    and nested parentheses skipped over, and where it closes; None when it does not close before n."""
    items, depth, start, k = [], 0, pos + 1, pos + 1
    while k < n:
        c = buf[k]
        if c in b"'\"`":
            close = _sql_string_end(buf, k, n)
            if close < 0:
                return None, n
            k = close + 1
            continue
        if c == 0x28:
            depth += 1
        elif c == 0x29:
            if depth == 0:
                items.append(buf[start:k])
                return items, k
            depth -= 1
        elif c == 0x2C and depth == 0:
            items.append(buf[start:k])
            start = k + 1
        k += 1
    return None, n


def sql_rows(buf: bytes, sa: int, sb: int, out: list[tuple[int, int, int]],
             heads: list[tuple[int, int, bool]] | None = None, creates: list[list] | None = None) -> int:
    """The values of an INSERT's rows (`VALUES (...), (...)`) or of a COPY's (pg_dump: a row a line,
    tab-separated, up to `\\.`) under their columns. With no column list (mysqldump), the columns are
    those of the last `CREATE TABLE` of that name before the statement (`creates`: a cache of them for
    buf, filled on first use), else an INSERT's rows are read by their values' shapes (_shaped_rows).
    Appends the cells of identifier and person columns; returns where the statement's values end (sa
    when it is none of ours). `heads` gets the statement's head when its rows may go on after buf (a
    chunk of a long dump): the statement's own head, or the CREATE TABLE that names its columns."""
    m = SQL_HEAD_RX.match(buf, sa)
    if m is None:
        return sa
    copy = m.group(3)[:1] in b"Ff"
    hs = sa
    if m.group(2) is not None:
        kinds = _sql_columns(m.group(2)) if len(m.group(2)) <= 8192 else None
    else:
        if creates is not None and not creates:
            creates.append(_creates(buf))
        name, kinds, cs, ce = _table_name(m.group(1)), None, -1, -1
        for c in (creates[0] if creates else _creates(buf)):
            if c[0] >= sa:
                break
            if c[2] == name:
                cs, ce, kinds = c[0], c[1], _sql_columns(c[3])
        if cs < 0 and not copy:
            return _shaped_rows(buf, sb, out)
        hs = cs
    if not kinds:
        return sa
    end, going = _copy_rows(buf, sb, kinds, out) if copy else _insert_rows(buf, sb, kinds, out)
    if heads is not None and going:  # rows still to come (no `;` or `\\.` yet): the next chunk needs the columns
        heads.append((hs, sb, True))
    elif heads is not None and m.group(2) is None and not buf[end:].strip(b" \t\r\n;"):
        # the text ends with a statement that has no columns of its own (mysqldump --skip-extended-insert
        # writes one a row): the next chunk's statements need the CREATE TABLE
        heads.append((cs, ce, True))
    return end


def _copy_rows(buf: bytes, pos: int, kinds: dict[int, int], out: list[tuple[int, int, int]]) -> tuple[int, bool]:
    """(where the rows end, whether they run to the end of buf with no `\\.`)."""
    end, n, rows = pos, len(buf), 0
    while pos < n and rows < MAX_ROWS:
        line, nxt = line_at(buf, pos)
        if line.rstrip(b"\r") == b"\\.":
            return pos + len(line), False
        cells, p = [], 0
        for cell in line.rstrip(b"\r").split(b"\t"):
            cells.append((p, p + len(cell)))
            p += len(cell) + 1
        for j, kind in kinds.items():
            if j < len(cells) and line[cells[j][0]:cells[j][1]] != b"\\N":
                add_value(line, pos, *cells[j], kind, out)
        rows += 1
        end = pos
        pos = nxt
    return max(end, min(pos, n)), pos >= n


def _insert_rows(buf: bytes, pos: int, kinds: dict[int, int], out: list[tuple[int, int, int]]) -> tuple[int, bool]:
    """`(v, 'text', f(x)), (...)`: each row's values by position; a quoted string (`''` or `\\'`
    inside it) is a cell, anything else (numbers, NULL, a call) is skipped over. (where the rows end,
    whether they run to the end of buf with no `;`)."""
    end = pos
    for _row, j, a, b, end in _insert_cells(buf, pos):
        if j in kinds:
            add_value(buf, 0, a, b, kinds[j], out)
    return end, end >= len(buf) or (buf[end:end + 1] != b";" and not buf[end:].strip(b" \t\r\n,"))


def _insert_cells(buf: bytes, pos: int) -> Iterator[tuple[int, int, int, int, int]]:
    """The string cells of an INSERT's rows from pos: (row, column, start, end, where the rows end so far)."""
    n = min(len(buf), pos + _SQL_CAP)
    rows = 0
    while pos < n and buf[pos] == 0x28 and rows < MAX_ROWS:  # (
        pos, j, depth = pos + 1, 0, 0
        while pos < n:
            c = buf[pos]
            if c in b"'\"" and depth == 0:
                close = _sql_string_end(buf, pos, n)
                if close < 0:
                    yield rows, -1, 0, 0, n
                    return
                yield rows, j, pos + 1, close, pos
                pos = close + 1
            elif c in b"'\"":
                close = _sql_string_end(buf, pos, n)
                pos = n if close < 0 else close + 1
            elif c == 0x28:
                depth += 1
                pos += 1
            elif c == 0x29:
                pos += 1
                if depth == 0:
                    break
                depth -= 1
            else:
                if c == 0x2C and depth == 0:  # ,
                    j += 1
                pos += 1
        rows += 1
        while pos < n and buf[pos] in b" \t\r\n,":
            pos += 1
    yield rows, -1, 0, 0, pos


# an e-mail address that a whole cell is: the row is a person's record (_shaped_rows)
_EMAIL_CELL = re.compile(r"[^@\s'\"(),;<>]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}")


def _shaped_rows(buf: bytes, pos: int, out: list[tuple[int, int, int]]) -> int:
    """The rows of an INSERT with no column list and no CREATE TABLE in sight, read by their values'
    shapes: in a row that holds an e-mail address (a person's record), a cell that is a common given
    name (words.toml given_names) is a first name and a name-like cell right after it the surname; a
    cell of a given name and more capitalised words is a full name. (The e-mail, a phone, a card, an
    identifier with its check digits are their rules' by their own shapes wherever they are.)"""
    rows: dict[int, list[tuple[int, int, int]]] = {}
    end = pos
    for row, j, a, b, end in _insert_cells(buf, pos):
        if j >= 0:
            rows.setdefault(row, []).append((j, a, b))
    for cells in rows.values():
        values = {j: buf[a:b].decode("utf-8", "replace") for j, a, b in cells}
        if not any(_EMAIL_CELL.fullmatch(v) for v in values.values()):
            continue
        at = {j: (a, b) for j, a, b in cells}
        for j, v in values.items():
            first = v.split(" ", 1)[0].lower()
            if first not in GIVEN_NAMES or not person_name_cell(v):
                continue
            if " " in v:
                add_value(buf, 0, *at[j], FULL_NAME_KIND, out)
                continue
            add_value(buf, 0, *at[j], NAME_KIND, out)
            nxt = values.get(j + 1)
            if nxt is not None and " " not in nxt.strip() and person_name_cell(nxt):
                add_value(buf, 0, *at[j + 1], NAME_KIND, out)
    return end


def _sql_string_end(buf: bytes, pos: int, n: int) -> int:
    """Where the SQL string literal opened at pos closes (-1: not before n)."""
    q = buf[pos]
    k = pos + 1
    while k < n:
        c = buf[k]
        if c == 0x5C:  # MySQL's \' escape
            k += 2
            continue
        if c == q:
            if k + 1 < n and buf[k + 1] == q:
                k += 2
                continue
            return k
        k += 1
    return -1
