"""The table layouts (psql, bordered, box-drawing, column, list, CSV/TSV, markdown, aligned text,
psql's wrapped values) and `secret_cells`, the pass over a text that finds every secret, identifier,
name, birth date and phone column's cells (the package docstring has the whole list)."""

from __future__ import annotations

import re
from typing import Iterator, NamedTuple

import re2

from archiver.redact.tables.cells import (ANAME, ID_BASE, MAX_ROWS, MORE, NOT_A_SECRET, PLACEHOLDER, SECRET, cell_value,
                                          column_kind, has_secret_word, line_at, may_hold_table)
from archiver.redact.tables.records import (KEY_LINE_RX, PERSON_LINE_RX, RECORD_HEAD_RX, VCARD_N_RX, key_line,
                                            person_pairs, record_fields, vcard_name)
from archiver.redact.tables.sql import SQL_HEAD_RX, sql_rows


_SEP_PATTERN = rb"[ \t]*[|+]?[ \t]*:?-+:?[ \t]*(?:[|+][ \t]*:?-+:?[ \t]*)*[|+]?[ \t]*\r?"
_SEP = re.compile(_SEP_PATTERN)
_SEP_RX = re2.compile(rb"(?m)^" + _SEP_PATTERN + rb"$")
# sqlite `.mode column`, sqlcmd, sqlplus: dash runs under each header, spaces between
_COLSEP = re.compile(rb"[ \t]*-{2,}(?:[ \t]+-{2,})+[ \t]*\r?")
_COLSEP_RX = re2.compile(rb"(?m)^[ \t]*-{2,}(?:[ \t]+-{2,})+[ \t]*\r?$")
# psql -A, sqlite3 -header (list mode): names joined by `|` alone on a line, rows likewise
# (spaces before it: a numbered file read, its `N→` or `cat -n` prefix blanked by the engine)
_LIST_HEADER_RX = re2.compile(rb"(?m)^ *[A-Za-z_][A-Za-z0-9_]*(?:\|[A-Za-z_][A-Za-z0-9_]*)+\r?$")
# CSV / TSV: names (words with single spaces between them, or quoted) joined by `,`, `;` or by tabs,
# nothing after a `,` but the next name
_NAME = rb'(?:"[A-Za-z_][A-Za-z0-9_.,# -]{0,63}"|[A-Za-z_][A-Za-z0-9_.#-]*(?: [A-Za-z0-9_.#-]+)*)'
_DELIM_HEADER_RX = re2.compile(rb"(?m)^ *(?:" + _NAME + rb"(?:," + _NAME + rb")+|" + _NAME + rb"(?:\t" + _NAME
                               + rb")+|" + _NAME + rb"(?:;" + _NAME + rb")+) *\r?$")

# aligned text (`column -t`, `docker ps`-like listings): names, a single space inside one, two spaces
# or more between them; read only for a national identifier's column (its validator judges a cell)
_ANAME_RX = re.compile(ANAME)
_FIELD = re.compile(rb"[^ \t\r]+(?: [^ \t\r]+)*")  # a cell of an aligned row: single spaces inside it
_ALIGNED_HEADER_RX = re2.compile(rb"(?m)^ *" + ANAME + rb"(?:  +" + ANAME + rb")+ *\r?$")


_RECORD_CAP = 1 << 16  # a quoted CSV value over several lines: up to this many bytes


# a statement of code (`return user,password`, `echo key,secret`) is no header of names
_CODE_WORD = re.compile(rb" *(?:return|yield|print|echo|assert|await|raise|del|global|nonlocal|import|export|local|"
                        rb"let|var|const|set|unset|declare|typeset|read|def|lambda|case|when|for|in|if|elif|while) ")
_FOOTERS = re.compile(rb"\((?:[0-9]+ rows?(?: affected)?)\)|[0-9]+ rows? selected\.?")
# Box-drawing tables (sqlite .mode box, duckdb, psql's unicode linestyle): each 3-byte character
# becomes 3 ASCII bytes, so offsets stay and the ASCII parser reads them.
_BOX_RX = re.compile(rb"\xe2[\x94\x95][\x80-\xbf]")  # U+2500..U+257F
_BOX_VERTICAL = frozenset("\u2502\u2503\u2551\u2506\u2507\u250a\u250b".encode()[i:i + 3] for i in range(0, 21, 3))
_BOX_HORIZONTAL = frozenset("\u2500\u2501\u2550\u2504\u2505\u2508\u2509".encode()[i:i + 3] for i in range(0, 21, 3))
_FOOTER = re.compile(rb"\([0-9]+ rows?\)")


def _cells(line: bytes, lead: bool, trail: bool) -> list[tuple[int, int]] | None:
    """(start, end) of each cell of a row split at `|` (outer borders dropped), or None."""
    s, e = 0, len(line)
    while s < e and line[s] in b" \t":
        s += 1
    while e > s and line[e - 1] in b" \t\r":
        e -= 1
    if lead:
        if s >= e or line[s] != 0x7C:
            return None
        s += 1
    if trail:
        if e <= s or line[e - 1] != 0x7C:
            return None
        e -= 1
    out = []
    p = q = s
    while True:
        q = line.find(b"|", q, e)
        if q < 0:
            out.append((p, e))
            return out
        if q > p and line[q - 1] == 0x5C:  # `\|`: a pipe inside a markdown cell
            q += 1
            continue
        out.append((p, q))
        p = q = q + 1


def _aligned(line: bytes, bounds: list[int], ncols: int, lead: bool) -> list[tuple[int, int]] | None:
    """Cells cut at the separator's `+`/`|` columns (psql and mysql align them), for a row whose
    values hold a `|`. Only for ASCII rows (byte columns are character columns)."""
    if not line.isascii() or any(p < len(line) and line[p] != 0x7C for p in bounds):
        return None
    cuts = [-1, *bounds] if not lead else bounds
    out = []
    for j in range(ncols):
        a = cuts[j] + 1
        b = cuts[j + 1] if j + 1 < len(cuts) else len(line)
        out.append((min(a, len(line)), min(b, len(line))))
    return out


def _edges(cells: list[tuple[int, int]], ncols: int) -> list[tuple[int, int]]:
    """A row with more `|` than columns and no alignment (markdown, a wrapped line): the first and
    the last column still span from the edge to the pipe that leaves room for the others, so a
    password in either keeps its `|`; a middle column cannot be told and yields nothing."""
    extra = len(cells) - ncols
    out = [(0, 0)] * ncols
    out[0] = (cells[0][0], cells[extra][1])
    if ncols > 1:
        out[-1] = (cells[ncols - 1][0], cells[-1][1])
    return out


def _row_values(line: bytes, pos: int, cells: list[tuple[int, int]], kinds: dict[int, int],
                out: list[tuple[int, int, int]], code: bool = True) -> None:
    """The values of one row's secret or id columns (`kinds`: column -> kind), at `pos` + their span."""
    for j, kd in kinds.items():
        v = cell_value(line, *cells[j], kd, code=code)
        if v is not None:
            out.append((pos + v[0], pos + v[1], kd))


# psql's markers (`\\pset format wrapped`, and a newline in a value in any aligned format): a value
# wider than its column goes on in the next line with `.` (unicode `…`) in the right margin of the
# first piece and the left margin of the next; a newline in a value shows `+` (`↵`) in the right
# margin. old-ascii writes `;` (wrapped) or `:` (newline) in place of the `|` before a piece that
# goes on. The pieces of one value are one cell: all of them go when the whole value would.
_WRAP_LEFT = "\u2026".encode()
_MARKS_RIGHT = (b".", b"+", "\u2026".encode(), "\u21b5".encode())


class _Piece(NamedTuple):
    at: int  # where the line starts in buf
    line: bytes
    a: int  # the cell's value span in line, margins and markers left out
    b: int
    cont: bool  # goes on from the piece above it (a wrap marker on its left, or `;`/`:` before it)
    more: bool  # goes on in the piece below it (a marker in its right margin)


def _piece(at: int, line: bytes, a: int, b: int, last: bool, sep_before: int = -1) -> _Piece:
    """A cell of a psql-like table row as a piece of a value that may wrap over several lines (`last`:
    the table's last column with no border after it, whose right margin is the end of the line)."""
    cont = more = False
    if sep_before >= 0 and sep_before < len(line) and line[sep_before] in b";:":
        cont = True  # old-ascii
    if a < b and line[a] == 0x2E:  # `.` right after the `|`, where a value's margin is a space
        cont, a = True, a + 1
    else:
        k = a
        while k < b and line[k] == 0x20:
            k += 1
        if line.startswith(_WRAP_LEFT, k) and k + 3 <= b:
            cont, a = True, k + 3
    end = b
    while last and end > a and line[end - 1] in b"\r":
        end -= 1
    for m in _MARKS_RIGHT:
        if end - len(m) >= a and line.endswith(m, 0, end):
            more = True
            if not last or len(m) == 3:  # (a last column's `.`/`+` may be the value's own: it stays in the span)
                b = end - len(m)
            break
    return _Piece(at, line, a, b, cont, more)


def _stripped(line: bytes, a: int, b: int) -> tuple[int, int]:
    while a < b and line[a] in b" \t":
        a += 1
    while b > a and line[b - 1] in b" \t\r":
        b -= 1
    return a, b


def _wrapped_values(pieces: list[_Piece | None], kind: int, out: list[tuple[int, int, int]]) -> None:
    """The values of one column, given its piece in each row line (None: a line that is no row):
    a value alone is taken as cell_value takes it; a value of several pieces when all of them joined
    would be one, and then every non-empty piece (a piece of one or two characters too)."""
    group: list[_Piece] = []
    for p in [*pieces, None]:
        if p is not None and group and (p.cont or group[-1].more):
            group.append(p)
            continue
        if len(group) == 1:
            g = group[0]
            if g.cont:  # the rest of a value from before (a chunk of text that starts inside it)
                a, b = _stripped(g.line, g.a, g.b)
                v = (a, b) if b > a else None
            else:
                v = cell_value(g.line, g.a, g.b, kind)
            if v is not None:
                out.append((g.at + v[0], g.at + v[1], kind))
        elif group:
            spans = [(g.at, *_stripped(g.line, g.a, _marker_off(g) if kind >= ID_BASE else g.b), g.line)
                     for g in group]
            joined = b"".join(line[a:b] for _, a, b, line in spans)
            v = joined.decode("utf-8", "replace")
            ok = len(v) >= 3 and v.lower() not in NOT_A_SECRET and not PLACEHOLDER.match(v)
            if kind == SECRET and (len(v) < 8 or " " in v or not any(c.isdigit() for c in v)):
                ok = False
            if ok:
                kept = [(at + a, at + b) for at, a, b, _ in spans if b > a]
                # an identifier is validated whole: each piece but the last says that the value goes on
                more = MORE if kind >= ID_BASE else 0
                out.extend((a, b, kind | (more if k + 1 < len(kept) else 0)) for k, (a, b) in enumerate(kept))
        group = [p] if p is not None else []


def _marker_off(p: _Piece) -> int:
    """The end of an identifier's piece without the `+`/`.` that a last column keeps in its span (no
    identifier holds one where its value goes on in the next line)."""
    b = p.b
    while b > p.a and p.line[b - 1] in b" \t\r":
        b -= 1
    return b - 1 if p.more and b > p.a and p.line[b - 1] in b"+." else p.b


def _box(m: re.Match[bytes]) -> bytes:
    ch = m.group()
    if ch in _BOX_VERTICAL:
        return b"|  "
    if ch in _BOX_HORIZONTAL:
        return b"---"
    return b"+  "  # a corner or a junction


def ascii_boxes(buf: bytes) -> bytes:
    """buf with box-drawing characters as ASCII table parts of the same byte length."""
    if b"\xe2\x94" not in buf and b"\xe2\x95" not in buf:
        return buf
    return _BOX_RX.sub(_box, buf)


def separator_lines(buf: bytes) -> Iterator[tuple[int, int]]:
    """(start, end) of the lines of buf that a table is found from: separators (3+ dashes) and
    list-mode (`|`, CSV, TSV) headers."""
    for a, b, _delim in _starts(ascii_boxes(buf)):
        yield a, b


def _starts(buf: bytes) -> Iterator[tuple[int, int, bytes]]:
    """separator_lines of a buf with ASCII boxes, each with its list-mode delimiter (b"": a separator)."""
    for rx in (_SEP_RX, _COLSEP_RX):
        for m in rx.finditer(buf):
            a, b = m.span()
            if buf.count(b"-", a, b) >= 3:
                yield a, b, b""
    for m in _LIST_HEADER_RX.finditer(buf):
        yield m.start(), m.end(), b"|"
    for m in _DELIM_HEADER_RX.finditer(buf):
        a, b = m.span()
        yield a, b, _delimiter(buf, a, b)
    for m in _ALIGNED_HEADER_RX.finditer(buf):
        if has_secret_word(m.group()):
            yield m.start(), m.end(), b"  "
    if b"[ RECORD " in buf or b". row **" in buf:
        for m in RECORD_HEAD_RX.finditer(buf):
            yield m.start(), m.end(), _RECORD
    for m in KEY_LINE_RX.finditer(buf):
        yield m.start(), m.end(), _KEY
    for m in PERSON_LINE_RX.finditer(buf):
        yield m.start(), m.end(), _PAIRS
    for m in SQL_HEAD_RX.finditer(buf):
        yield m.start(), m.end(), _SQL
    if b"N:" in buf or b"N;" in buf:
        for m in VCARD_N_RX.finditer(buf):
            yield m.start(), m.end(), _VCARD


# (the "delimiters" of a vertical record's header, a key line, a line of person-keyed pairs, a SQL statement)
_RECORD, _KEY, _PAIRS, _SQL, _VCARD = b"RECORD", b"KEY", b"PAIRS", b"SQL", b"VCARD"


def _delimiter(buf: bytes, a: int, b: int) -> bytes:
    """The delimiter of a CSV/TSV header line: a tab, else `;` (a European Excel export: no name,
    quoted or not, holds one), else `,` (a quoted name may hold a `,`)."""
    if buf.find(b"\t", a, b) >= 0:
        return b"\t"
    return b";" if buf.find(b";", a, b) >= 0 else b","


def _list_mode(buf: bytes, ha: int, hb: int, out: list[tuple[int, int, int]],
               heads: list[tuple[int, int, bool]] | None = None) -> int:
    """A header of names joined by `|` (psql -A, sqlite3 -header) and the rows under it, up to a
    blank line, a footer or a line without `|`. Appends the secret cells to out; returns where
    the table ends (ha when it is no table of ours)."""
    header = buf[ha:hb].rstrip(b"\r")
    hcells = _cells(header, False, False)
    if hcells is None:
        return ha
    kinds = _kinds(header, hcells)
    ncols = len(hcells)
    if not kinds:
        return ha
    pos, end, n = hb + 1, ha, len(buf)
    first = True
    rows = 0
    while pos <= n and rows < MAX_ROWS:
        line, nxt = line_at(buf, pos)
        if first and (_SEP.fullmatch(line.rstrip(b"\r")) or _COLSEP.fullmatch(line.rstrip(b"\r"))):
            return ha  # an unbordered markdown table: read from its separator
        first = False
        if not line.strip() or b"|" not in line or _FOOTERS.fullmatch(line.strip()):
            break
        cells = _cells(line, False, False)
        if cells is None:
            break
        if len(cells) > ncols:
            cells = _edges(cells, ncols)
        if len(cells) == ncols:
            _row_values(line, pos, cells, kinds, out)
        rows += 1
        end = pos
        pos = nxt
    if heads is not None:
        heads.append((ha, hb + 1, pos >= n))
    return end


def _delimited(buf: bytes, ha: int, hb: int, delim: bytes, out: list[tuple[int, int, int]],
               heads: list[tuple[int, int, bool]] | None = None) -> int:
    """List mode with `,`, `;` or a tab between the cells (CSV, TSV): a header of names and the records
    under it that have as many cells, up to a blank line or a record with another count. Appends
    the secret cells to out; returns where the table ends (ha when it is no table of ours)."""
    if not has_secret_word(buf[ha:hb]) or _CODE_WORD.match(buf, ha, hb):
        return ha
    hcells, _ = _record(buf, ha, hb, delim)
    if hcells is None:
        return ha
    kinds = {j: kd for j, (a, b) in enumerate(hcells)
             if (kd := column_kind(buf[a:b].decode("utf-8", "replace"))) is not None}
    if not kinds:
        return ha
    ncols, n = len(hcells), len(buf)
    pos, end, rows = hb + 1, ha, 0
    while pos < n and rows < MAX_ROWS:
        eol = buf.find(b"\n", pos)
        eol = n if eol < 0 else eol
        if not buf[pos:eol].strip():
            break
        cells, nxt = _record(buf, pos, eol, delim)
        if cells is None or len(cells) != ncols:
            break
        _row_values(buf, 0, cells, kinds, out, code=False)
        rows += 1
        end = pos
        pos = nxt
    if heads is not None:
        heads.append((ha, hb + 1, pos >= n))
    return end if rows else ha


def _record(buf: bytes, pos: int, eol: int, delim: bytes) -> tuple[list[tuple[int, int]] | None, int]:
    """The cells of the CSV/TSV record starting at pos, whose first line ends at eol: (start, end) in
    buf of each value (inside its quotes when quoted; a quoted value may go on over lines, up to
    _RECORD_CAP bytes), and where the next record starts. None: no record (an unclosed quote)."""
    cells: list[tuple[int, int]] = []
    n = len(buf)
    p = pos
    while True:
        q = p
        while q < eol and buf[q] == 0x20:
            q += 1
        if q < eol and buf[q] == 0x22:  # a quoted value: `""` is a quote in it
            a = k = q + 1
            while True:
                k = buf.find(b'"', k, min(n, pos + _RECORD_CAP))
                if k < 0:
                    return None, eol + 1
                if buf[k + 1:k + 2] == b'"':
                    k += 2
                    continue
                break
            cells.append((a, k))
            if k >= eol:  # the value went on over lines: so does the record
                eol = buf.find(b"\n", k)
                eol = n if eol < 0 else eol
            d = buf.find(delim, k + 1, eol)
            if d < 0:
                return cells, eol + 1
            p = d + 1
            continue
        d = buf.find(delim, p, eol)
        if d < 0:
            cells.append((p, eol))
            return cells, eol + 1
        cells.append((p, d))
        p = d + 1


def _kinds(header: bytes, cells: list[tuple[int, int]]) -> dict[int, int]:
    return {j: kd for j, (a, b) in enumerate(cells)
            if (kd := column_kind(header[a:b].decode("utf-8", "replace"))) is not None}


def _column_mode(buf: bytes, sa: int, sep: bytes, out: list[tuple[int, int, int]],
                 heads: list[tuple[int, int, bool]] | None = None) -> int:
    """A table whose separator is dash runs and spaces (sqlite `.mode column`, sqlcmd, sqlplus):
    columns start where the runs start. Appends the secret cells to out; returns where the
    table ends (sa when it is no table of ours)."""
    runs = [m.span() for m in re.finditer(rb"-+", sep)]
    starts = [a for a, _ in runs]
    hs = buf.rfind(b"\n", 0, sa - 1) + 1
    header = buf[hs:sa - 1].rstrip(b"\r")
    if not header.isascii() or not _aligned_at(header, starts):
        return sa
    hcells = _spaced(header, starts)
    kinds = _kinds(header, hcells)
    if not kinds:
        return sa
    pos, end = sa + len(sep) + 1, sa
    n = len(buf)
    rows = 0
    pieces: dict[int, list[_Piece | None]] = {j: [] for j in kinds}
    while pos <= n and rows < MAX_ROWS:
        line, nxt = line_at(buf, pos)
        line = line.rstrip(b"\r")
        if not line.strip() or _FOOTERS.fullmatch(line.strip()) or _COLSEP.fullmatch(line):
            break
        rows += 1
        if line.isascii() and _aligned_at(line, starts, True):
            cells = _spaced(line, starts)
            for j in kinds:
                a, b = cells[j]
                # psql's `\pset border 0`: a wrap (`.`) or newline (`+`) marker right after the column,
                # where the space before the next one is
                mark = runs[j][1] if runs[j][1] < len(line) else -1
                more = mark >= 0 and line[mark] in b".+" and (j + 1 == len(runs) or mark + 1 == starts[j + 1])
                pieces[j].append(_Piece(pos, line, a, mark if more else b, False, more))
        else:
            for lst in pieces.values():
                lst.append(None)
        end = pos
        pos = nxt
    for j, kd in kinds.items():
        _wrapped_values(pieces[j], kd, out)
    if heads is not None:
        heads.append((hs, sa + len(sep) + 1, pos >= n))
    return end


def _aligned_text(buf: bytes, ha: int, hb: int, out: list[tuple[int, int, int]],
                  heads: list[tuple[int, int, bool]] | None = None) -> int:
    """Aligned text with no separator (`column -t`, `column -t -R`, a pandas DataFrame): a header of
    names two spaces or more apart, and the rows under it whose cells line up with the names, up to
    a blank or misaligned line. Only national-identifier columns are read (a cell counts once its
    rule's validator takes it, which the engine asks). A value that goes on in the next line (psql's
    `+` or `.` at its end, the line below holding only the pieces that go on) is one value of its
    pieces. Appends their cells to out; returns where the table ends (ha when it is no table of ours)."""
    header = buf[ha:hb].rstrip(b"\r")
    found = list(_ANAME_RX.finditer(header))
    names = [m.span() for m in found]
    kinds = {j: kd for j, m in enumerate(found)
             if (kd := column_kind(m.group().decode("ascii", "replace"))) is not None and kd >= ID_BASE}
    if not kinds:
        return ha
    pos, end, n, rows = hb + 1, ha, len(buf), 0
    pieces: dict[int, list[_Piece | None]] = {j: [] for j in kinds}
    going_on: set[int] = set()  # the columns whose piece in the line above ends with a marker
    while pos < n and rows < MAX_ROWS:
        line, nxt = line_at(buf, pos)
        line = line.rstrip(b"\r")
        if not rows and (_SEP.fullmatch(line) or _COLSEP.fullmatch(line)):
            return ha  # dash runs under it: a markdown or column-mode table, read from its separator
        cells = _row_cells(line, names) if line.strip() else None
        if cells is None:
            break
        cont = bool(going_on) and all(j in going_on or cells[j][0] == cells[j][1] for j in range(len(names)))
        if not cont:
            _end_values(pieces, going_on)
        going_on = set()
        for j in kinds:
            a, b = _stripped(line, *cells[j])
            if cont and a == b:
                continue
            more = b - a > 1 and line[b - 1] in b"+."
            if more:
                going_on.add(j)
            pieces[j].append(_Piece(pos, line, a, b - more, cont, more))
        rows += 1
        end = pos
        pos = nxt
    _end_values(pieces, going_on)
    for j, kd in kinds.items():
        _wrapped_values(pieces[j], kd, out)
    if heads is not None:
        heads.append((ha, hb + 1, pos >= n))
    return end if rows else ha


def _end_values(pieces: dict[int, list[_Piece | None]], going_on: set[int]) -> None:
    """The line below is no continuation: a last piece whose `+`/`.` was taken for a marker keeps it
    (the value's own, and the value ends there)."""
    for j in going_on & pieces.keys():
        p = pieces[j][-1]
        if p is not None and p.more:
            pieces[j][-1] = p._replace(b=p.b + 1, more=False)


def _row_cells(line: bytes, names: list[tuple[int, int]]) -> list[tuple[int, int]] | None:
    """Byte spans of an aligned row's cells under the header's names: its fields (text two spaces
    or more apart) each under the one name it overlaps (a value wider than its name, right-aligned
    or left-aligned; a field before the first name is an unnamed index column, pandas'), else cut
    where the names start (`_char_cells`); None when the row does not line up."""
    return _field_cells(line, names) or _char_cells(line, [a for a, _ in names])


def _field_cells(line: bytes, names: list[tuple[int, int]]) -> list[tuple[int, int]] | None:
    if not line.isascii():
        return None  # byte columns are character columns only in ASCII
    cells = [(min(a, len(line)),) * 2 for a, _ in names]
    last = -1
    for m in _FIELD.finditer(line):
        fa, fb = m.span()
        under = [j for j, (a, b) in enumerate(names) if fa < b and a < fb]
        if not under:
            if fb <= names[0][0] and last < 0:
                continue  # an unnamed index column before the first name
            return None
        if len(under) > 1 or under[0] <= last:
            return None
        last = under[0]
        cells[last] = (fa, fb)
    return cells


def _char_cells(line: bytes, starts: list[int]) -> list[tuple[int, int]] | None:
    """Byte spans of a row's cells cut at the header's columns (characters, so a `Søren` before a
    column keeps it where `column -t` put it), or None when the row does not line up: text before
    the first column, or a column that does not start after a space."""
    if line.isascii():
        s, at = line.decode("ascii"), None
    else:
        try:
            s = line.decode("utf-8")
        except UnicodeDecodeError:
            return None
        at = [0]
        for ch in s:
            at.append(at[-1] + len(ch.encode()))
    if s[:starts[0]].strip() or not all(p >= len(s) or s[p - 1] in " \t" for p in starts[1:]):
        return None
    bounds = [min(p, len(s)) for p in starts] + [len(s)]
    if at is not None:
        bounds = [at[p] for p in bounds]
    return [(bounds[j], bounds[j + 1]) for j in range(len(starts))]


def _aligned_at(line: bytes, starts: list[int], marks: bool = False) -> bool:
    """Does each column after the first begin after a space (or past the end of the line; with
    `marks`, after psql's wrap or newline marker)?"""
    after = b" \t.+" if marks else b" \t"
    return all(p >= len(line) or line[p - 1] in after for p in starts[1:])


def _spaced(line: bytes, starts: list[int]) -> list[tuple[int, int]]:
    bounds = [min(p, len(line)) for p in starts] + [len(line)]
    return [(bounds[j], bounds[j + 1]) for j in range(len(starts))]


def secret_cells(buf: bytes, gated: bool = False,
                 heads: list[tuple[int, int, bool]] | None = None) -> list[tuple[int, int, int]]:
    """(start, end, kind) of the values in secret-named columns of the text tables in buf
    (`gated`: the caller knows that may_hold_table(buf) holds). `heads` gets, for each table with a
    secret column, (start, end) of its head (the lines down to its separator) and whether its rows
    run to the end of buf (a table that may go on after it)."""
    if not gated and not may_hold_table(buf):
        return []
    buf = ascii_boxes(buf)
    out: list[tuple[int, int, int]] = []
    creates: list[list] = []  # the CREATE TABLE statements of buf, once an INSERT needs them
    done = -1  # tables already read end here: their borders are no new separators
    n = len(buf)
    for sa, sb, delim in sorted(_starts(buf)):
        if sa <= done:
            continue
        sep = buf[sa:sb].rstrip(b"\r")
        if delim == _RECORD:
            done = max(done, record_fields(buf, sa, sb, out, heads))
            continue
        if delim == _KEY:
            key_line(buf, sa, sb, out)
            continue
        if delim == _PAIRS:
            person_pairs(buf, sa, sb, out)
            continue
        if delim == _VCARD:
            vcard_name(buf, sa, sb, out)
            continue
        if delim == _SQL:
            done = max(done, sql_rows(buf, sa, sb, out, heads, creates))
            continue
        if delim == b"|":  # a list-mode header
            done = max(done, _list_mode(buf, sa, sb, out, heads))
            continue
        if delim == b"  ":
            done = max(done, _aligned_text(buf, sa, sb, out, heads))
            continue
        if delim:
            done = max(done, _delimited(buf, sa, sb, delim, out, heads))
            continue
        if sa == 0:
            continue
        if _COLSEP.fullmatch(sep):
            end = _column_mode(buf, sa, sep, out, heads)
            done = max(done, end)
            continue
        body = sep.strip(b" \t")
        lead, trail = body[:1] in (b"|", b"+"), body[-1:] in (b"|", b"+")
        if lead and trail and len(body) == 1:
            continue
        bounds = [i for i, ch in enumerate(sep) if ch in b"|+"]
        ncols = len(bounds) + 1 - lead - trail
        hs = buf.rfind(b"\n", 0, sa - 1) + 1
        header = buf[hs:sa - 1]
        hcells = _cells(header, lead, trail)
        if ncols < 1 or hcells is None or len(hcells) != ncols:
            continue
        kinds = _kinds(header, hcells)
        if not kinds and lead and hs > 0:
            # duckdb prints the column types under the names: the names are one line up
            h2s = buf.rfind(b"\n", 0, hs - 1) + 1
            h2cells = _cells(buf[h2s:hs - 1], lead, trail)
            if h2cells is not None and len(h2cells) == ncols:
                kinds = _kinds(buf[h2s:hs - 1], h2cells)
                hs = h2s
        if not kinds:
            continue
        rows: list[tuple[int, bytes]] = []
        pos = sb + 1
        footer = False
        wrap = b"+" in sep or ncols == 1  # psql (and mysql) draw `+`; psql's values may wrap (markdown's not)
        while pos <= n and len(rows) < MAX_ROWS:
            line, nxt = line_at(buf, pos)
            if ncols == 1:
                # psql's one-column result: rows up to its "(N rows)" footer
                if _FOOTER.fullmatch(line.strip()):
                    footer = True
                    break
                if not line.strip() or _SEP.fullmatch(line.rstrip(b"\r")):
                    break
            else:
                if not line.strip() or (b"|" not in line and not (wrap and _old_ascii(line, bounds))):
                    break
                if _SEP.fullmatch(line.rstrip(b"\r")):
                    if lead:  # mysql: the closing border
                        done = pos
                    break
            rows.append((pos, line))
            pos = nxt
        if heads is not None:
            heads.append((hs, sb + 1, pos >= n))
        if ncols == 1 and not footer:
            continue
        pieces: dict[int, list[_Piece | None]] = {j: [] for j in kinds}
        for at, line in rows:
            if ncols > 1:
                cells = None if b"|" in line else _cut_at(line, bounds, ncols, lead)  # old-ascii: no `|`
                cells = cells or _cells(line, lead, trail)
                if cells is None:
                    break
                if len(cells) > ncols:  # a value holds a `|`
                    cells = _aligned(line, bounds, ncols, lead) or _edges(cells, ncols)
                elif len(cells) < ncols:
                    for lst in pieces.values():
                        lst.append(None)
                    continue
            else:
                cells = [(0, len(line))]
            for j in kinds:
                a, b = cells[j]
                if wrap:
                    last = j == ncols - 1 and not trail
                    before = bounds[j - 1 + lead] if j - 1 + lead >= 0 and j - 1 + lead < len(bounds) else -1
                    pieces[j].append(_piece(at, line, a, b, last, before))
                else:
                    pieces[j].append(_Piece(at, line, a, b, False, False))
            done = at
        for j, kd in kinds.items():
            _wrapped_values(pieces[j], kd, out)
    return out


def _old_ascii(line: bytes, bounds: list[int]) -> bool:
    """A continuation line of psql's old-ascii linestyle: no `|`, and `;` (wrapped) or `:`
    (newline) where the separator has its `+`, spaces at the others."""
    marks = [line[p] for p in bounds if p < len(line)]
    return (bool(marks) and all(c in b" ;:" for c in marks) and any(c in b";:" for c in marks)
            and line.isascii())


def _cut_at(line: bytes, bounds: list[int], ncols: int, lead: bool) -> list[tuple[int, int]] | None:
    """Cells of an old-ascii continuation line, cut at the separator's `+` columns."""
    if not _old_ascii(line, bounds):
        return None
    cuts = [-1, *bounds] if not lead else bounds
    return [(min(cuts[j] + 1, len(line)), min(cuts[j + 1] if j + 1 < len(cuts) else len(line), len(line)))
            for j in range(ncols)]


def open_table(buf: bytes, head: bytes = b"") -> tuple[int, int] | None:
    """(start, end) in head + buf of the head (the lines down to its separator) of a table with a
    secret column whose rows run to the end of buf: text cut after buf (a chunk of a long file) may
    hold more of its rows, which only its head tells. `head`: such a head from before buf (the
    table buf goes on with). None when buf ends with no such table."""
    body = buf[:-1] if buf.endswith(b"\n") else buf
    last = body[body.rfind(b"\n") + 1:]
    if not last.strip():
        return None
    if not head and not may_hold_table(buf):
        return _open_one_column(buf) if b"|" not in last and has_secret_word(buf) else None
    heads: list[tuple[int, int, bool]] = []
    secret_cells(head + buf if head else buf, bool(head) and may_hold_table(head + buf), heads)
    if heads and heads[-1][2]:
        return heads[-1][0], heads[-1][1]
    return None


def _open_one_column(buf: bytes) -> tuple[int, int] | None:
    """The head of a psql one-column result with no footer yet (a table only once its `(N rows)`
    comes): a secret name over a run of dashes, and rows without blank lines to the end of buf."""
    found = None
    for m in _SEP_RX.finditer(buf):
        found = m
    if found is None or found.start() == 0 or b"|" in found.group() or b"+" in found.group():
        return None
    sa, sb = found.span()
    hs = buf.rfind(b"\n", 0, sa - 1) + 1
    if column_kind(buf[hs:sa - 1].decode("utf-8", "replace")) is None:
        return None
    rest = buf[sb + 1:].rstrip(b"\n")
    if any(not ln.strip() for ln in rest.split(b"\n")) if rest else False:
        return None
    return hs, sb + 1


def one_column_head(head: bytes) -> bool:
    """Is head (as open_table gives it) that of a psql one-column result: a name over a separator
    of dashes with no `|` or `+` (a table only once its footer comes)?"""
    lines = head.rstrip(b"\n").split(b"\n")
    return len(lines) == 2 and b"|" not in lines[1] and b"+" not in lines[1] and b"|" not in lines[0]


def names_secret_column(line: bytes) -> bool:
    """Might this line be the header of a table with a secret column (its names, split at `|`,
    box-drawing bars or blanks)?"""
    if len(line) > 4096 or not has_secret_word(line):
        return False
    return any(column_kind(w.decode("utf-8", "replace")) is not None
               for w in re.split(rb'[|,"\s]+', ascii_boxes(line)) if w)
