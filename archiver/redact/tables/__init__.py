"""Secret columns of text tables: the cells under a `password` / `token` / `api_key` header.

A regex cannot follow a column down a table, so this is a small text pass the engine runs next
to its rules (`Engine` enables it when the built-in `secrets` pack is loaded). It finds:

* psql's aligned output: a header row, a `-----+-----` separator, rows with `|` between cells;
  a one-column result (`SELECT password FROM ...`: no `+` in the separator) only when psql's
  `(N rows)` footer closes it, so a setext heading (`Password\\n--------`) is not a table;
* bordered tables (mysql, sqlite `.mode table`, many CLIs): `+----+------+` around `| a | b |`;
* box-drawing tables (sqlite `.mode box`, duckdb with its row of types, psql's unicode
  linestyle): read as the ASCII ones, the characters mapped to ASCII of the same byte length;
* column mode (sqlite `.mode column` with headers, sqlcmd, sqlplus): dash runs under the header
  names, the columns starting where the runs start;
* list mode (psql -A, sqlite3 -header): `username|password` alone on a line, rows likewise;
  CSV and TSV the same way (`cat users.csv`, `psql --csv`, `mysql -B`, sqlite `.mode csv`, a Read
  tool's file, a European Excel export with `;`): a header of names joined by `,`, `;` or a tab
  (`"quoted"` names too), then records of as many cells (RFC 4180 quoting: `"a,b"`, `""`, a quoted
  value over several lines; CRLF); a line with no space after its commas, so prose (`, ` between
  its words) never holds such a header;
* markdown tables: `| user | password |` over `|---|---|` (a cell that is one code span is its
  value; a cell of prose with code spans is none).
* vertical record listings: psql's expanded output (`\\x`: `-[ RECORD 1 ]---+---` over `name | value`
  lines) and MySQL's `\\G` (`*** 1. row ***` over right-aligned `name: value` lines), each field a
  cell of the column its name names; and a `key: value`, `key = value` or `key | value` line of its
  own whose key names a national identifier (`customer_bsn: ...`; a secret-named key alone is the
  assignment rules' to judge: `pwd: /home/...` is a shell's working directory);
* psql's values over several lines (`\\pset format wrapped`, and a newline in a value): the pieces
  of one value, told by psql's markers (`.`/`…` wrap, `+`/`↵` newline, old-ascii's `;`/`:`; border 0
  too), are one cell: when the whole value is one, every piece goes, a piece of one character too.

A column named for a national identifier (`SIN`, `sin_number`, `Aadhaar No`, `passport_number`, `BSN`:
ID_COLUMNS) is read the same way, also in aligned text with no separator (`column -t`: names two or
more spaces apart, rows whose cells start under them); its cells are of kind ID_BASE + i, and the
engine keeps one only when the identifier's rule validates it (so no length or placeholder test here
beyond the generic one).

A column named for a person's name (`first_name`, `lastName`, `surname`, `full_name`: the keys of
rules/names.toml's person-name-keyed and person-name-keyed-full) or date of birth (`dob`, `birth_date`:
pii.toml's date-of-birth-keyed) is read as an identifier's: a cell that looks like a name (1-4
capitalised words, no digit: person_name_cell) or a date (birth_date_cell) is that rule's candidate,
which the engine keeps when the rule is loaded and its validator takes it (NAME_COLUMNS).

Only a header cell that names a secret counts (`password`, `user_password`, `passwd`, `pwd`,
`secret`, `client_secret`, `api_key`, `apiKey`, `access_token`, `password_hash`, ...: the name
ends with the secret word), never `token_type`, `max_tokens` or `password_changed_at`. Empty,
NULL-like and boolean cells are skipped; under a token/secret/key header only a value with a
digit, 8+ characters and no space counts (a docs table of lexer tokens lists words). Cost: one
pattern in the engine's literal pass over each text, then a search for a secret word; separator
lines are sought only in text holding both, and parsed only where found.
"""

from __future__ import annotations

from archiver.redact.tables.cells import (BIRTH_KIND, FULL_NAME_KIND, ID_BASE, ID_COLUMNS, MARK_PATTERN, MAX_ROWS, MORE,
                                          NAME_COLUMNS, NAME_KIND, PASSWORD, PHONE_COLUMNS, PHONE_KIND, SECRET,
                                          WORD_PATTERN, birth_date_cell, column_kind, has_secret_word, may_hold_table,
                                          person_name_cell, phone_cell)
from archiver.redact.tables.layouts import (ascii_boxes, names_secret_column, one_column_head, open_table, secret_cells,
                                            separator_lines)

__all__ = [
    "BIRTH_KIND",
    "FULL_NAME_KIND",
    "ID_BASE",
    "ID_COLUMNS",
    "MARK_PATTERN",
    "MAX_ROWS",
    "MORE",
    "NAME_COLUMNS",
    "NAME_KIND",
    "PASSWORD",
    "PHONE_COLUMNS",
    "PHONE_KIND",
    "SECRET",
    "WORD_PATTERN",
    "ascii_boxes",
    "birth_date_cell",
    "column_kind",
    "has_secret_word",
    "may_hold_table",
    "names_secret_column",
    "one_column_head",
    "open_table",
    "person_name_cell",
    "phone_cell",
    "secret_cells",
    "separator_lines",
]
