"""One value to a line: psql's expanded and MySQL's `\\G` records, a `key: value` line whose key
names a national identifier, a person's attribute in a `key=value` pair, a vCard's N property."""

from __future__ import annotations

import re

import re2

from archiver.redact.tables.cells import (ANAME, ID_BASE, KEY_NAMING_ID, MAX_ROWS, NAME_KIND, PERSON_WORDS, VCARD_N,
                                          add_value, column_kind, field_value, line_at)


# vertical listings: a record's header, then its fields one a line (psql `name | value`, MySQL
# `name: value`); a `key: value` line of its own whose key names an identifier
RECORD_HEAD_RX = re2.compile(rb"(?m)^(?:-\[ RECORD [0-9]+ \][-+ ]*|\*{5,} [0-9]+\. row \*{5,})\r?$")
_PSQL_FIELD = re.compile(rb" *(" + ANAME + rb") *\| ?(.*?)\r?")
_MYSQL_FIELD = re.compile(rb" *(" + ANAME + rb"): (.*?)\r?")
KEY_LINE_RX = re2.compile(rb"(?m)^[ \t]*" + KEY_NAMING_ID.encode() + rb"[ \t]*[:=|][^\r\n]*\r?$")
_KEY_LINE = re.compile(rb"[ \t]*(?:- )?([A-Za-z0-9_.-]+)[ \t]*[:=|][ \t]*(.*?)[ \t]*\r?")


# s25: a person's attribute named by its key where person-name-keyed* and date-of-birth-keyed cannot
# read it. A rule ends a value at a quote, a bracket or a line end, not at the end of the text (of the keyed
# rules only person-name-keyed-full takes `$`, for a trailer that ends a text), and a logfmt value at none of them (`first_name=Jane last_name=Okafor`); a SQL
# statement names its columns apart from its values.
PERSON_LINE_RX = re2.compile(rb"(?m)^[^\r\n]*(?i:" + PERSON_WORDS.encode() + rb")[^\r\n]*$")
# the last key and value of a line, the value running to its end (its opening quote, if any, unclosed)
_TAIL_PAIR = re.compile(rb"(?:^|[^A-Za-z0-9_.-])([A-Za-z0-9_.-]*(?i:" + PERSON_WORDS.encode()
                        + rb"))(?:\\?[\"'`])?[ \t]*(?::=|=>|[:=>])[ \t]*(?:\\?[\"'`])?([^\r\n\"'`,;&)}\]|<>#\\]*)")
_LOGFMT_PAIR = re.compile(rb'(?:^|(?<=[ \t]))([A-Za-z_][A-Za-z0-9_.-]*)=("(?:[^"\\\r\n]|\\.)*"|[^ \t\r\n"]*)')


VCARD_N_RX = re2.compile(VCARD_N.encode() + rb"[^\r\n]*")


def vcard_name(buf: bytes, a: int, b: int, out: list[tuple[int, int, int]]) -> None:
    """A vCard's `N:Family;Given;Additional;Prefix;Suffix` (RFC 6350 6.2.2): the family, given and
    additional names, each a name's cell (a value list's `,` between several; `\\,` escapes one)."""
    line = buf[a:b]
    colon = line.find(b":")
    pos = colon + 1
    for k, part in enumerate(line[pos:].rstrip(b"\r").split(b";")[:3]):
        p = pos
        for piece in part.split(b","):
            add_value(line, a, p, p + len(piece), NAME_KIND, out)
            p += len(piece) + 1
        pos += len(part) + 1


def record_fields(buf: bytes, ha: int, hb: int, out: list[tuple[int, int, int]],
                  heads: list[tuple[int, int, bool]] | None = None) -> int:
    """The fields under a record's header (psql `\\x`: `name | value`; MySQL `\\G`: `name: value`)
    up to a line of another shape. Appends the cells of the id fields, and under MySQL's header of
    the secret ones too (psql's are the `psql-expanded-secret-field` rule's); returns where the
    record ends."""
    mysql = buf[ha:ha + 1] == b"*"
    field = _MYSQL_FIELD if mysql else _PSQL_FIELD
    pos, end, n, rows = hb + 1, ha, len(buf), 0
    while pos < n and rows < MAX_ROWS:
        line, nxt = line_at(buf, pos)
        m = field.fullmatch(line)
        if m is None:
            break
        kind = column_kind(m.group(1).decode("ascii", "replace"))
        if kind is not None and (kind >= ID_BASE or mysql):
            v = field_value(line, *m.span(2), kind)
            if v is not None:
                out.append((pos + v[0], pos + v[1], kind))
        rows += 1
        end = pos
        pos = nxt
    if heads is not None and rows:
        heads.append((ha, hb + 1, pos >= n))
    return end


def key_line(buf: bytes, a: int, b: int, out: list[tuple[int, int, int]]) -> None:
    """A `key: value` (`=`, `|`) line of its own whose key names a national identifier: its value is
    a cell of that identifier (the rule's validator judges it)."""
    line = buf[a:b]
    m = _KEY_LINE.fullmatch(line)
    if m is None:
        return
    kind = column_kind(m.group(1).decode("ascii", "replace"))
    if kind is not None and kind >= ID_BASE:
        v = field_value(line, *m.span(2), kind)
        if v is not None:
            out.append((a + v[0], a + v[1], kind))


def person_pairs(buf: bytes, a: int, b: int, out: list[tuple[int, int, int]]) -> None:
    """A line naming a person's attribute: every value of a logfmt line (two `key=value` pairs or more)
    under an identifier's or a person's key, and the last value of the text when the line ends it
    with nothing after the value (`first_name: Jane`, `"lastName": "Okafor` cut before its quote)."""
    line = buf[a:b]
    pairs = list(_LOGFMT_PAIR.finditer(line))
    for m in pairs:
        # (s26: a pair alone in prose or a log line too, `signup for first_name=Jane done`: its value
        # ends at a blank, and must still look like a name or a date, or pass the identifier's check)
        kind = column_kind(m.group(1).decode("ascii", "replace"))
        if kind is not None and kind >= ID_BASE and (len(pairs) >= 2 or m.group(2)[:1] == b'"' or kind >= NAME_KIND):
            add_value(line, a, *m.span(2), kind, out)
    if b < len(buf):
        return
    tail = None
    for tail in _TAIL_PAIR.finditer(line):
        pass
    if tail is not None and tail.end() == len(line) and tail.end(2) > tail.start(2):
        kind = column_kind(tail.group(1).decode("ascii", "replace"))
        if kind is not None and kind >= NAME_KIND:
            add_value(line, a, *tail.span(2), kind, out)
