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

import re
import unicodedata
from typing import Iterator, NamedTuple

import re2

from archiver.redact import rules as _rules

# Names of national identifiers (rules/pii.toml) in a header: the long ones anywhere, the short
# ones (sin, pan, bsn...) as words of their own (`sin`, `SIN`, `sin_number`, `customerSin`), never
# inside a word (`using`, `span`, `basin`).
_ID_LONG = ("aadhaa?r|uidai|passport|passeport|reisepass|pasaporte|passaporto|paspoort|insee|steuer|idnr|"
            "identifikationsnummer|burgerservicenummer|sofi.?nummer|national.?insurance|social.?insurance|"
            "social.?security|assurance.?sociale|s.curit..?sociale|num(?:ero)?.?secu|carte.?vitale|tax.?id|"
            "permanent.?account|iban|(?:account|acct).?n(?:umber|um|o|r)|bank.?account|kontonummer|routing|"
            "sort.?code|vat.?(?:id|n(?:umber|um|o|r)|reg)|ust.?id|umsatzsteuer|employer.?identification|"
            "tax.?(?:n(?:umber|um|o|r)|ref|code)|taxpayer|credit.?card|card.?n(?:umber|um|o|r)|cc.?n(?:umber|um|o)|"
            # (s26) national-id-labelled's columns, and Portugal's número de contribuinte
            "f.{1,2}dsels|henkil.{1,2}tunnus|sosiaaliturva|personbeteckning|identity.?code|rijksregister|"
            "national.?register|ahvn?13|ahv.?n(?:r|ummer)|avs.?(?:13|nr|number)|kimlik|zehut|nric|medicare|"
            "cuit|cuil|thai.?(?:national.?)?id|(?:sa|rsa|african).?id|contribuinte")
_ID_SHORT_WORDS = ("sin", "nas", "pan", "cpf", "dni", "nie", "nif", "bsn", "nir", "nino", "ssn", "vat", "ein", "tin",
                   "itin", "utr", "fnr", "hetu", "sotu", "insz", "niss", "ahv", "tckn", "nhs", "rut")
_ID_SHORT = "|".join(_ID_SHORT_WORDS)
_ID_CAMEL = "|".join(f"{w.capitalize()}|{w.upper()}" for w in _ID_SHORT_WORDS)
# in a gate after a name's own characters: the short words start the name or follow `_`, a digit or a space
_ID_AFTER = f"(?:[a-z0-9_ ]*[_ 0-9])?(?:{_ID_LONG}|{_ID_SHORT})"
_ID_FIRST = f"(?:{_ID_LONG}|(?:^|[^a-z])(?:{_ID_SHORT}))"

# A person's name or birth date column (NAME_COLUMNS): the words a header holds, for the gate
_BIRTH = "birth_?(?:date|day)|date_?of_?birth"
_PERSON_WORDS = (f"(?:first|last|given|family|middle|maiden|sur|fore|full|legal|customer|contact|billing"
                 f"|shipping|holder)[_ -]?name|dob|{_BIRTH}")

# A phone number's column (PHONE_COLUMNS): the words a header holds, for the gate
_PHONE_WORDS = "phone|mobile|telephone|tel|fax|msisdn"

# the key of a `key: value` line that names an identifier (column_kind judges it whole): a long name
# anywhere in it, a short one as a word of its own (`customer_bsn`, `customerBsn`; not `Processing`)
_KEY_NAMING_ID = ("(?:- )?(?:[A-Za-z0-9_.-]*"
                  f"(?i:{_ID_LONG})[A-Za-z0-9_.-]*"
                  f"|(?:[A-Za-z0-9.-]*[_.-])?(?i:{_ID_SHORT})(?:[_.-][A-Za-z0-9_.-]*)?"
                  f"|[A-Za-z0-9_.-]*[a-z0-9](?:{_ID_CAMEL})(?:[A-Z_.-][A-Za-z0-9_.-]*)?)")

# an INSERT with no column list: `INSERT INTO `t` VALUES (`
_NO_COLUMNS = "(?i:(?:insert|replace)[ \t\r\n]+(?:ignore[ \t\r\n]+)?into[ \t\r\n]+[`\"\\[\\]A-Za-z0-9_.$]+[ \t\r\n]+values[ \t\r\n]*\\()"

# a vCard's N property: family name, given name(s) and more, `;` between them (its parameters before the `:`)
_VCARD_N = "(?m:^)N(?:;[A-Za-z-]+=[^:;\\r\\n]*)*:[^;:\\r\\n]*;"

# What every table this module reads holds: a `|`/`+` next to a dash (its separator) or psql's
# `(N rows)` footer (one column), and a secret word (its header). The engine adds the first
# pattern to its one literal pass over the text; `may_hold_table` is the same test alone.
MARK_PATTERN = ("[|+][ \t]*:?-|-:?[ \t]*[|+]|--[ \t]+--|rows?\\)|[\u251c-\u254b\u2552-\u256c]"
                # a list-mode header: a secret word next to a `|` between names; a CSV/TSV header: next
                # to a `,` or tab with no space after it (`a, b` in prose never), quotes around names
                "|(?i:(?:pass|pw|secret|token|key|psk|authentication_str)[a-z0-9_]*(?:\\||\"?[,;\t]\"?)[a-z_]"
                "|[a-z0-9_](?:\\||\"?[,;\t]\"?)[a-z0-9_]*(?:pass|pw|secret|token|key|psk|authentication_str))"
                # the same with a national identifier's name (words with a space between them too), and
                # an aligned header (`column -t`: names two spaces or more apart) naming one
                f"|(?i:{_ID_FIRST}[a-z0-9_ .#-]*(?:\\||\"?[,;\t]\"?|  )[a-z_]"
                f"|[a-z0-9_.#-](?:\\||\"?[,;\t]\"?|  +){_ID_AFTER})"
                # (camelCase: `customerSin`)
                f"|[a-z0-9](?:{_ID_CAMEL})[A-Za-z0-9_ .#-]*(?:\\||\"?[,;\t]\"?|  )[A-Za-z_]"
                f"|[A-Za-z0-9_.#-](?:\\||\"?[,;\t]\"?|  +)[A-Za-z0-9_]*[a-z0-9](?:{_ID_CAMEL})"
                # a vertical listing: MySQL's `\G` row header (psql's `-[ RECORD 1 ]---+---` is a
                # dash before a `+` above), a `key: value` line whose key holds an identifier's name
                # a CSV/TSV or list-mode header with a person's name or birth date column (column_kind
                # judges the name: `name,email` passes this gate only)
                f"|(?i:(?:name|dob|{_BIRTH})(?:\\||\"?[,;\t]\"?)[a-z_]|[a-z0-9_](?:\\||\"?[,;\t]\"?)[a-z0-9_]*(?:name|dob|{_BIRTH}))"
                # (s26) a CSV/TSV or list-mode header with a phone number's column
                f"|(?i:(?:{_PHONE_WORDS})(?:_?(?:number|num|no|nr))?(?:\\||\"?[,;\t]\"?)[a-z_]"
                f"|[a-z0-9_](?:\\||\"?[,;\t]\"?)[a-z0-9_]*(?:{_PHONE_WORDS})(?:_?(?:number|num|no|nr))?(?:[^a-z0-9_]|$))"
                "|[0-9]\\. row \\*\\*"
                # a vCard's structured name (`N:Family;Given;Middle;Prefix;Suffix`: _vcard_name)
                f"|{_VCARD_N}"
                f"|(?m:^)[ \t]*{_KEY_NAMING_ID}[ \t]*[:=|]"
                # a person's name or birth date named by its key where its rule cannot read it (_person_pairs,
                # _sql_rows): a value with nothing after it to the line's end (a text cut after it), a
                # logfmt pair with another pair after it, a SQL INSERT or COPY naming such a column
                f"|(?i:{_PERSON_WORDS})[\"'`]?[ \t]*(?::=|=>|[:=>])[ \t]*[\"'`]?[^ \t\r\n\"'`,;&)}}\\]|<>#][^\r\n\"'`,;&)}}\\]|<>#]*(?m:$)"
                f"|(?i:{_PERSON_WORDS})=(?:\"[^\"\r\n]*\"|[^ \t\r\n\"'`]+)[ \t]"
                f"|(?i:(?:insert|replace)[ \t\r\n]+(?:ignore[ \t\r\n]+)?into[ \t\r\n]|copy[ \t]+)[^(;]*\\([^);]*(?i:{_PERSON_WORDS})"
                # (s26) an INSERT with no column list (mysqldump): its CREATE TABLE or its values tell
                f"|{_NO_COLUMNS}"
                ).encode()
WORD_PATTERN = ("(?i:pass|pw|secret|token|key|psk|authentication_str|" + _ID_LONG + "|" + _PERSON_WORDS
                + "|" + _PHONE_WORDS
                + f"|(?:^|[^a-z])(?:{_ID_SHORT})(?:[^a-z]|$))|[a-z0-9](?:{_ID_CAMEL})(?:[^a-z]|$)|{_NO_COLUMNS}|{_VCARD_N}").encode()
_MARK = re2.compile(MARK_PATTERN)
_WORDS = re2.compile(WORD_PATTERN)
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
_ANAME = rb"[A-Za-z_#][A-Za-z0-9_.#()/-]*(?: [A-Za-z0-9_.#()/-]+)*"
_ANAME_RX = re.compile(_ANAME)
_FIELD = re.compile(rb"[^ \t\r]+(?: [^ \t\r]+)*")  # a cell of an aligned row: single spaces inside it
_ALIGNED_HEADER_RX = re2.compile(rb"(?m)^ *" + _ANAME + rb"(?:  +" + _ANAME + rb")+ *\r?$")
# vertical listings: a record's header, then its fields one a line (psql `name | value`, MySQL
# `name: value`); a `key: value` line of its own whose key names an identifier
_RECORD_HEAD_RX = re2.compile(rb"(?m)^(?:-\[ RECORD [0-9]+ \][-+ ]*|\*{5,} [0-9]+\. row \*{5,})\r?$")
_PSQL_FIELD = re.compile(rb" *(" + _ANAME + rb") *\| ?(.*?)\r?")
_MYSQL_FIELD = re.compile(rb" *(" + _ANAME + rb"): (.*?)\r?")
_KEY_LINE_RX = re2.compile(rb"(?m)^[ \t]*" + _KEY_NAMING_ID.encode() + rb"[ \t]*[:=|][^\r\n]*\r?$")
_KEY_LINE = re.compile(rb"[ \t]*(?:- )?([A-Za-z0-9_.-]+)[ \t]*[:=|][ \t]*(.*?)[ \t]*\r?")
_RECORD_CAP = 1 << 16  # a quoted CSV value over several lines: up to this many bytes
# s25: a person's attribute named by its key where person-name-keyed* and date-of-birth-keyed cannot
# read it. A rule ends a value at a quote, a bracket or a line end, never at the end of the text (built-in
# rules hold no `$`), and a logfmt value at none of them (`first_name=Jane last_name=Okafor`); a SQL
# statement names its columns apart from its values.
_PERSON_LINE_RX = re2.compile(rb"(?m)^[^\r\n]*(?i:" + _PERSON_WORDS.encode() + rb")[^\r\n]*$")
# the last key and value of a line, the value running to its end (its opening quote, if any, unclosed)
_TAIL_PAIR = re.compile(rb"(?:^|[^A-Za-z0-9_.-])([A-Za-z0-9_.-]*(?i:" + _PERSON_WORDS.encode()
                        + rb"))(?:\\?[\"'`])?[ \t]*(?::=|=>|[:=>])[ \t]*(?:\\?[\"'`])?([^\r\n\"'`,;&)}\]|<>#\\]*)")
_LOGFMT_PAIR = re.compile(rb'(?:^|(?<=[ \t]))([A-Za-z_][A-Za-z0-9_.-]*)=("(?:[^"\\\r\n]|\\.)*"|[^ \t\r\n"]*)')
# INSERT INTO t (a, b) VALUES (...), (...); COPY t (a, b) FROM stdin; (pg_dump: tab-separated rows up to `\.`)
# (s26: the column list may be missing, as in mysqldump's `INSERT INTO `t` VALUES (...),(...);`: the columns
# are then those of the `CREATE TABLE` of the same name earlier in the text, else read from the values)
_SQL_HEAD_RX = re2.compile(rb"(?i)\b(?:(?:insert|replace)[ \t\r\n]+(?:ignore[ \t\r\n]+)?into|copy)[ \t\r\n]+"
                           rb"([`\"\[\]A-Za-z0-9_.$]+)"
                           rb"[ \t\r\n]*(?:\(([^();]+)\)[ \t\r\n]*)?(values|from[ \t]+stdin[ \t]*;[ \t]*\r?\n)[ \t\r\n]*")
_CREATE_RX = re.compile(rb"(?i)\bcreate[ \t\r\n]+(?:(?:global[ \t\r\n]+|local[ \t\r\n]+)?(?:temporary|temp|unlogged)[ \t\r\n]+)?"
                        rb"table[ \t\r\n]+(?:if[ \t\r\n]+not[ \t\r\n]+exists[ \t\r\n]+)?([`\"\[\]A-Za-z0-9_.$]+)[ \t\r\n]*\(")
# the items of a CREATE TABLE that are no column
_NOT_A_COLUMN = re.compile(rb"(?i)(?:primary|key|unique|index|constraint|foreign|check|fulltext|spatial|exclude|period|like)\b")
_CREATE_CAP = 1 << 16  # a CREATE TABLE's body is read up to this many bytes
_SQL_CAP = 64 << 20  # the values of one statement are read up to this many bytes
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
_CAMEL = re.compile(r"([a-z0-9])([A-Z])")
_NON_WORD = re.compile(r"[^a-z0-9]+")
_PASSWORD_NAME = re.compile(
    r"(?:[a-z0-9]*(?:password|passwd|passphrase)|(?:^|_)(?:pass|pwd|pw)|^authentication_string)"
    r"(?:_(?:hash|digest|enc|encrypted|plain|plaintext|clear|cleartext|value|text))?$")
_SECRET_NAME = re.compile(
    r"(?:[a-z0-9]*(?:secret|token|apikey|secretkey|privatekey|accesskey)"
    r"|(?:^|_)(?:api_key|private_key|access_key|secret_key|auth_key|signing_key|encryption_key|master_key|psk))"
    r"(?:_(?:hash|digest|enc|encrypted|plain|plaintext|clear|cleartext|value|text))?$")
_NOT_A_SECRET = frozenset({
    "", "null", "(null)", "<null>", "[null]", "none", "nil", "undefined", "true", "false", "t", "f", "yes", "no",
    "y", "n", "on", "off", "n/a", "na", "-", "--", "...", "set", "unset", "empty", "(empty)", "hidden", "redacted",
    "[redacted]", "<redacted>",
})
# (no `$VAR` placeholders: a table shows data, and a crypt hash starts with `$`)
_PLACEHOLDER = re.compile(r"^(?:\*+|x{3,}|\.{3,}|-+|_+|#+|•+|<[^>]*>)$")

PASSWORD, SECRET = 0, 1  # kinds of column: the engine maps them to its two table rules
ID_BASE = 2  # and kind ID_BASE + i to ID_COLUMNS[i]
# A kind with this bit: a piece of an identifier over several lines (psql's wrapped or multi-line
# cells) whose value goes on in the next cell of the list; the value is the pieces joined
MORE = 1 << 16

# Columns named for a national identifier: (the rules of rules/pii.toml that own the number, each
# loaded one tried in turn, the first whose validator takes the cell owns it; the names, matched whole on the name in lower case with accents dropped
# and `_` between its words, after any prefix of words: `customer_sin`). Kept here, not as a field of
# the rule packs: a header name is this pass's input, as `_PASSWORD_NAME` is; the engine takes the
# validator and the label from the loaded rule, so a cell is that rule's finding (`n/a`, `TBD` or a
# wrong check digit under a `sin` header fails ca_sin and stays) and a pack without the rule has no
# such column.
_ID_NUMBER = r"(?:_(?:number|num|no|nr|n|nummer|numero|id))?"
ID_COLUMNS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("uk-nino", "uk-nino-spaced"), r"nino|ni_(?:number|num|no|nr)|national_insurance" + _ID_NUMBER),
    (("ca-sin",), r"(?:sin|nas|social_insurance|assurance_sociale)" + _ID_NUMBER),
    (("in-aadhaar",), r"(?:aadhaa?r|uidai)(?:_uid)?" + _ID_NUMBER),
    (("in-pan", "in-pan-in-context"), r"(?:pan|permanent_account(?:_number)?)(?:_card)?" + _ID_NUMBER),
    (("br-cpf-in-context", "br-cpf"), r"cpf" + _ID_NUMBER),
    # (s26: NIF is also Portugal's número de contribuinte, tax-reference-labelled's pt_nif)
    (("es-dni-nie", "tax-reference-labelled"), r"(?:dni|nie|nif)" + _ID_NUMBER),
    # (before the Steuer-ID: `USt-IdNr` ends in `id_nr`, a VAT number, not a person's IdNr)
    (("eu-vat-number-labelled",), r"(?:vat(?:_reg(?:istration)?)?|ust_?id(?:_?nr)?|umsatzsteuer_?id(?:_?nr)?)" + _ID_NUMBER),
    (("de-steuer-id",), r"(?:steuer_?(?:id|id_?nr|identifikationsnummer)|id_?nr|identifikationsnummer)" + _ID_NUMBER),
    # a tax column holds whichever country's tax number: every tax identifier's validator is asked
    # (the strongest checks first; `n/a`, `0`, a short id or a date fails them all)
    (("de-steuer-id", "it-codice-fiscale", "tax-reference-labelled", "it-partita-iva-labelled", "us-ein-labelled",
      "us-ssn-labelled", "es-dni-nie", "au-tfn", "br-cpf", "in-pan"),
     r"(?:tax(?:payer)?_?(?:id(?:entification)?|n(?:umber|um|o|r)|ref(?:erence)?|code)|tin|itin|utr"
     r"|unique_tax(?:payer)?_ref(?:erence)?|(?:numero_(?:de_)?)?contribuinte)" + _ID_NUMBER),
    (("nl-bsn",), r"(?:bsn|burgerservicenummer|sofi_?nummer)" + _ID_NUMBER),
    (("fr-nir",), r"(?:nir|insee|num(?:ero)?_secu|(?:numero_)?securite_sociale|carte_vitale)" + _ID_NUMBER),
    (("us-ssn-labelled", "us-ssn"), r"(?:ssn|social_security)" + _ID_NUMBER),
    # (s26) national-id-labelled's thirteen countries: its validator (national_id) lets the cell's shape
    # pick the format; no `run`, `fin`, `tz`, `chi` or bare `avs` column (a run id, a finance field, a
    # time zone, a card payment's address check)
    (("national-id-labelled",),
     r"(?:f(?:o|oe)?dsels(?:nummer|nr)|fnr|hetu|henkilotunnus|sotu|sosiaaliturvatunnus|personbeteckning"
     r"|personal_identity_code|rijksregister(?:nummer)?|insz|niss|national_register|ahv(?:n13|_?nr|_?nummer)?"
     r"|avs(?:13|_?nr|_number)|tckn|tc_?kimlik(?:_no)?|kimlik_no|(?:sa|rsa|south_african)_id(?:entity)?"
     r"|teudat_zehut|mispar_zehut|nric(?:_fin)?|nhs|medicare(?:_card)?|cuit|cuil|rut|thai_(?:national_)?id)"
     + _ID_NUMBER),
    (("passport-labelled",), r"(?:passport|passeport|reisepass|pasaporte|passaporto|paspoort)" + _ID_NUMBER),
    # bank and tax numbers (the s21-fin rules): a bare `account` column is an account id, never taken
    (("iban",), r"iban" + _ID_NUMBER),
    (("bank-account-number-labelled",), r"(?:bank_)?(?:account|acct)_?(?:number|num|no|nr)|bank_account|kontonummer"),
    (("us-routing-number-labelled",), r"(?:aba_)?routing(?:_transit)?" + _ID_NUMBER),
    (("uk-sort-code-labelled",), r"sort_?code"),
    (("us-ein-labelled",), r"(?:ein|employer_identification)" + _ID_NUMBER),
    # (s26) a card number's column: a diff's row of numbers under it (whose numbers the card rules leave
    # alone) still loses its card; luhn takes 12-19 digits with a valid check digit, nothing else
    (("credit-card-visa", "credit-card-mastercard", "credit-card-amex", "credit-card-discover", "credit-card-diners",
      "credit-card-jcb", "credit-card-unionpay", "credit-card-maestro"),
     r"(?:credit_?)?card(?:_?(?:number|num|no|nr))?|cc_?(?:number|num|no)"),
)
# A person's name and date of birth (s24): read as the identifiers above, after them so their kinds
# stay; a cell must look like a name or a date (person_name_cell, birth_date_cell) before the rule's
# validator is asked. `name`, `username` and `display_name` are no person's name column (a package,
# an account, a model, a theme).
NAME_COLUMNS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("person-name-keyed",), r"(?:first|last|given|family|middle|maiden|sur|fore)_?name"),
    (("person-name-keyed-full",), r"(?:full|legal|customer|contact|billing|shipping|holder)_?name"),
    (("date-of-birth-keyed", "date-of-birth-labelled"), r"dob|birth_?(?:date|day)|date_of_birth"),
)
# A phone number's column (s26): the phone rules have no validator, so a cell is theirs when it is
# written as a phone number and nothing else (phone_cell); a count, an id or `true` under a
# `mobile` header is not. Without this, a CSV of customers keeps `4155550123` under `phone`.
PHONE_COLUMNS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("phone-e164", "phone-nanp", "phone-international", "phone-uk-national", "phone-fr-national",
      "phone-international-trunk-zero", "phone-labelled-national"),
     r"(?:phone|mobile|telephone|tel|fax|msisdn|cell_?phone)(?:_?(?:number|num|no|nr))?"),
)
ID_COLUMNS = ID_COLUMNS + NAME_COLUMNS + PHONE_COLUMNS
_ID_NAMES = [re.compile(r"(?:[a-z0-9]+_)*(?:" + names + ")") for _, names in ID_COLUMNS]
NAME_KIND = ID_BASE + len(ID_COLUMNS) - 4  # a first, last, ... name column
FULL_NAME_KIND = NAME_KIND + 1  # a full, display, customer ... name column: two words or more
BIRTH_KIND = NAME_KIND + 2
PHONE_KIND = NAME_KIND + 3

# a cell of a name column: 1-4 capitalised words (letters with accents, `'`, `-`; ALL-CAPS too; a
# middle initial and lower-case particles between them), never a digit
_NAME_WORD = r"[^\W\d_a-z](?:[^\W\d_]|['’-][^\W\d_])+"
_PARTICLES = r"(?:van|von|de|der|den|da|di|du|le|la|del|della|dos|das|do|ter|ten|bin|ibn|el|al)"
_NAME_CELL = re.compile(_NAME_WORD + r"(?: (?:[^\W\d_a-z]\. )?(?:" + _PARTICLES + " ){0,2}" + _NAME_WORD + "){0,3}")
# what a name column holds that is no one's name: types, placeholders, NULL-likes, labels
_NOT_A_NAME = frozenset({
    "string", "str", "text", "varchar", "char", "none", "null", "nil", "undefined", "unknown", "any", "true",
    "false", "yes", "no", "default", "empty", "test", "demo", "example", "sample", "placeholder", "anonymous",
    "guest", "user", "customer", "admin", "name", "first", "last", "surname", "todo", "tbd", "doe", "roe",
    "first name", "last name", "full name", "display name", "john doe", "jane doe",
})
_MONTH = (r"(?i:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?"
          r"|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?")
_DAY = r"(?:0?[1-9]|[12][0-9]|3[01])"
# the dates date-of-birth-keyed and -labelled take (their validator may be this), a time after them
_BIRTH_CELL = re.compile(
    r"(?:(?P<y1>(?:19|20)[0-9]{2})([-/.]?)(?P<m1>0?[1-9]|1[0-2])\2(?P<d1>" + _DAY + ")"
    r"|(?P<a>" + _DAY + r")([-/.])(?P<b>" + _DAY + r")\6(?:19|20)?[0-9]{2}"
    r"|" + _MONTH + r"[ \t]+" + _DAY + r"(?i:st|nd|rd|th)?,?[ \t]+(?:19|20)[0-9]{2}"
    r"|" + _DAY + r"(?i:st|nd|rd|th)?[ \t]+(?i:of[ \t]+)?" + _MONTH + r",?[ \t]+(?:19|20)[0-9]{2})"
    r"(?:[T ][0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:\.[0-9]+)?)?(?:Z|[+-][0-9]{2}:?[0-9]{2})?)?")


# a word of a product's, a team's, a company's or a bot's name (`GitHub Actions`, `Acme Corp`)
# (the lists rules.py loaded once for the whole process: no second copy here)
_NOT_SURNAMES = _rules.BUILTIN_WORDS["not_surnames"]
_GIVEN_NAMES = _rules.BUILTIN_WORDS["given_names"]


def person_name_cell(value: str, words: int = 1) -> bool:
    """Does a cell of a name column look like a person's name (`words`: at least that many, none of
    them a product's, team's or company's word then)?"""
    v = value.strip().replace("''", "'").replace("\\'", "'")  # (a SQL string's quote: 'O''Sullivan', mysqldump's 'O\\'Sullivan')
    if not _NAME_CELL.fullmatch(v) or v.lower() in _NOT_A_NAME:
        return False
    parts = v.lower().split(" ")
    return len(parts) >= words and (words < 2 or not any(p in _NOT_SURNAMES for p in parts))


def birth_date_cell(value: str) -> bool:
    """Does a cell of a date-of-birth column hold a date (ISO, compact, d/m/y, m/d/y, March 12, 1984; a
    time after it)?"""
    m = _BIRTH_CELL.fullmatch(value.strip())
    if m is None:
        return False
    if m.group("y1") is not None:
        return not (m.group(2) == "" and (len(m.group("m1")) < 2 or len(m.group("d1")) < 2))
    if m.group("a") is not None:
        return int(m.group("a")) <= 12 or int(m.group("b")) <= 12
    return True
MAX_ROWS = 1 << 18  # per table: more than a 2 MiB chunk (text.ONE_COLUMN_CAP) holds of rows of 8+ bytes


def has_secret_word(buf: bytes) -> bool:
    return _WORDS.search(buf) is not None


def may_hold_table(buf: bytes) -> bool:
    """Cheap superset test: False means `secret_cells(buf)` is empty."""
    return _MARK.search(buf) is not None and _WORDS.search(buf) is not None


def column_kind(name: str) -> int | None:
    """PASSWORD or SECRET for a header naming a secret column, ID_BASE + i for one naming the
    national identifier of ID_COLUMNS[i], else None."""
    name = name.strip()
    if not name.isascii():
        name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    n = _NON_WORD.sub("_", _CAMEL.sub(r"\1_\2", name).lower()).strip("_")
    if not n or len(n) > 64:
        return None
    if _PASSWORD_NAME.search(n):
        return PASSWORD
    if _SECRET_NAME.search(n):
        return SECRET
    for i, rx in enumerate(_ID_NAMES):
        if rx.fullmatch(n):
            return ID_BASE + i
    return None


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
        v = _value(line, *cells[j], kd, code=code)
        if v is not None:
            out.append((pos + v[0], pos + v[1], kd))


def _value(line: bytes, a: int, b: int, kind: int = PASSWORD, code: bool = True) -> tuple[int, int] | None:
    """The stripped span of a cell's value, unless it is empty, NULL-like or a placeholder; under
    a token/secret/key header only a value that could be one (8+ characters with a digit, no space):
    a docs table about lexer tokens lists words. `code`: a table that may be markdown (a cell of
    one code span is its value, a cell with other code spans is prose)."""
    while a < b and line[a] in b" \t":
        a += 1
    while b > a and line[b - 1] in b" \t\r":
        b -= 1
    if not code:
        pass  # CSV, TSV: a backtick is a character of the value
    elif b - a >= 2 and line[a] == 0x60 and line[b - 1] == 0x60 and line.count(b"`", a, b) == 2:
        a, b = a + 1, b - 1  # a markdown code span: `hunter2`
    elif line.find(b"`", a, b) >= 0:
        return None  # markdown prose about a secret, not one
    if b - a < (2 if NAME_KIND <= kind < BIRTH_KIND else 3):  # (a surname of two letters: Li, Ng, Wu)
        return None
    v = line[a:b].decode("utf-8", "replace")
    if v.lower() in _NOT_A_SECRET or _PLACEHOLDER.match(v):
        return None
    if kind == SECRET and (len(v) < 8 or " " in v or not any(c.isdigit() for c in v)):
        return None
    if NAME_KIND <= kind <= BIRTH_KIND and not _person_cell(v, kind):
        return None
    if kind == PHONE_KIND and not phone_cell(v):
        return None
    return a, b


_PHONE_CELL = re.compile(r"\+?[0-9][0-9 ().-]*[0-9]")


def phone_cell(value: str) -> bool:
    """A cell written as a phone number and nothing else: digits with the usual separators
    (`+1 (415) 555-0123`, `07700 900123`, `4155550123`), 7 to 15 digits, not all one digit."""
    if _PHONE_CELL.fullmatch(value) is None:
        return False
    digits = [c for c in value if c.isdigit()]
    return 7 <= len(digits) <= 15 and len(set(digits)) > 1


def _person_cell(value: str, kind: int) -> bool:
    if kind == BIRTH_KIND:
        return birth_date_cell(value)
    return person_name_cell(value, 2 if kind == FULL_NAME_KIND else 1)


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
    a value alone is taken as _value takes it; a value of several pieces when all of them joined
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
                v = _value(g.line, g.a, g.b, kind)
            if v is not None:
                out.append((g.at + v[0], g.at + v[1], kind))
        elif group:
            spans = [(g.at, *_stripped(g.line, g.a, _marker_off(g) if kind >= ID_BASE else g.b), g.line)
                     for g in group]
            joined = b"".join(line[a:b] for _, a, b, line in spans)
            v = joined.decode("utf-8", "replace")
            ok = len(v) >= 3 and v.lower() not in _NOT_A_SECRET and not _PLACEHOLDER.match(v)
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
        for m in _RECORD_HEAD_RX.finditer(buf):
            yield m.start(), m.end(), _RECORD
    for m in _KEY_LINE_RX.finditer(buf):
        yield m.start(), m.end(), _KEY
    for m in _PERSON_LINE_RX.finditer(buf):
        yield m.start(), m.end(), _PAIRS
    for m in _SQL_HEAD_RX.finditer(buf):
        yield m.start(), m.end(), _SQL
    if b"N:" in buf or b"N;" in buf:
        for m in _VCARD_N_RX.finditer(buf):
            yield m.start(), m.end(), _VCARD


# (the "delimiters" of a vertical record's header, a key line, a line of person-keyed pairs, a SQL statement)
_RECORD, _KEY, _PAIRS, _SQL, _VCARD = b"RECORD", b"KEY", b"PAIRS", b"SQL", b"VCARD"
_VCARD_N_RX = re2.compile(_VCARD_N.encode() + rb"[^\r\n]*")


def _vcard_name(buf: bytes, a: int, b: int, out: list[tuple[int, int, int]]) -> None:
    """A vCard's `N:Family;Given;Additional;Prefix;Suffix` (RFC 6350 6.2.2): the family, given and
    additional names, each a name's cell (a value list's `,` between several; `\\,` escapes one)."""
    line = buf[a:b]
    colon = line.find(b":")
    pos = colon + 1
    for k, part in enumerate(line[pos:].rstrip(b"\r").split(b";")[:3]):
        p = pos
        for piece in part.split(b","):
            _add_value(line, a, p, p + len(piece), NAME_KIND, out)
            p += len(piece) + 1
        pos += len(part) + 1


def _record_fields(buf: bytes, ha: int, hb: int, out: list[tuple[int, int, int]],
                   heads: list[tuple[int, int, bool]] | None = None) -> int:
    """The fields under a record's header (psql `\\x`: `name | value`; MySQL `\\G`: `name: value`)
    up to a line of another shape. Appends the cells of the id fields, and under MySQL's header of
    the secret ones too (psql's are the `psql-expanded-secret-field` rule's); returns where the
    record ends."""
    mysql = buf[ha:ha + 1] == b"*"
    field = _MYSQL_FIELD if mysql else _PSQL_FIELD
    pos, end, n, rows = hb + 1, ha, len(buf), 0
    while pos < n and rows < MAX_ROWS:
        line, nxt = _line_at(buf, pos)
        m = field.fullmatch(line)
        if m is None:
            break
        kind = column_kind(m.group(1).decode("ascii", "replace"))
        if kind is not None and (kind >= ID_BASE or mysql):
            v = _field_value(line, *m.span(2), kind)
            if v is not None:
                out.append((pos + v[0], pos + v[1], kind))
        rows += 1
        end = pos
        pos = nxt
    if heads is not None and rows:
        heads.append((ha, hb + 1, pos >= n))
    return end


def _key_line(buf: bytes, a: int, b: int, out: list[tuple[int, int, int]]) -> None:
    """A `key: value` (`=`, `|`) line of its own whose key names a national identifier: its value is
    a cell of that identifier (the rule's validator judges it)."""
    line = buf[a:b]
    m = _KEY_LINE.fullmatch(line)
    if m is None:
        return
    kind = column_kind(m.group(1).decode("ascii", "replace"))
    if kind is not None and kind >= ID_BASE:
        v = _field_value(line, *m.span(2), kind)
        if v is not None:
            out.append((a + v[0], a + v[1], kind))


def _field_value(line: bytes, a: int, b: int, kind: int) -> tuple[int, int] | None:
    """A field's value without its quotes and a `,`/`;` after it (YAML, an .env line), and
    without the generic empty and NULL-like values."""
    while a < b and line[b - 1] in b" \t\r":
        b -= 1
    if b - a >= 1 and line[b - 1] in b",;":
        b -= 1
    if b - a >= 2 and line[a] in b"'\"" and line[b - 1] == line[a]:
        a, b = a + 1, b - 1
    return _value(line, a, b, kind, code=False)


def _person_pairs(buf: bytes, a: int, b: int, out: list[tuple[int, int, int]]) -> None:
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
            _add_value(line, a, *m.span(2), kind, out)
    if b < len(buf):
        return
    tail = None
    for tail in _TAIL_PAIR.finditer(line):
        pass
    if tail is not None and tail.end() == len(line) and tail.end(2) > tail.start(2):
        kind = column_kind(tail.group(1).decode("ascii", "replace"))
        if kind is not None and kind >= NAME_KIND:
            _add_value(line, a, *tail.span(2), kind, out)


def _add_value(line: bytes, at: int, a: int, b: int, kind: int, out: list[tuple[int, int, int]]) -> None:
    v = _field_value(line, a, b, kind)
    if v is not None:
        out.append((at + v[0], at + v[1], kind))


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


def _sql_rows(buf: bytes, sa: int, sb: int, out: list[tuple[int, int, int]],
              heads: list[tuple[int, int, bool]] | None = None, creates: list[list] | None = None) -> int:
    """The values of an INSERT's rows (`VALUES (...), (...)`) or of a COPY's (pg_dump: a row a line,
    tab-separated, up to `\\.`) under their columns. With no column list (mysqldump), the columns are
    those of the last `CREATE TABLE` of that name before the statement (`creates`: a cache of them for
    buf, filled on first use), else an INSERT's rows are read by their values' shapes (_shaped_rows).
    Appends the cells of identifier and person columns; returns where the statement's values end (sa
    when it is none of ours). `heads` gets the statement's head when its rows may go on after buf (a
    chunk of a long dump): the statement's own head, or the CREATE TABLE that names its columns."""
    m = _SQL_HEAD_RX.match(buf, sa)
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
        line, nxt = _line_at(buf, pos)
        if line.rstrip(b"\r") == b"\\.":
            return pos + len(line), False
        cells, p = [], 0
        for cell in line.rstrip(b"\r").split(b"\t"):
            cells.append((p, p + len(cell)))
            p += len(cell) + 1
        for j, kind in kinds.items():
            if j < len(cells) and line[cells[j][0]:cells[j][1]] != b"\\N":
                _add_value(line, pos, *cells[j], kind, out)
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
            _add_value(buf, 0, a, b, kinds[j], out)
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
            if first not in _GIVEN_NAMES or not person_name_cell(v):
                continue
            if " " in v:
                _add_value(buf, 0, *at[j], FULL_NAME_KIND, out)
                continue
            _add_value(buf, 0, *at[j], NAME_KIND, out)
            nxt = values.get(j + 1)
            if nxt is not None and " " not in nxt.strip() and person_name_cell(nxt):
                _add_value(buf, 0, *at[j + 1], NAME_KIND, out)
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
        line, nxt = _line_at(buf, pos)
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
        line, nxt = _line_at(buf, pos)
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
        line, nxt = _line_at(buf, pos)
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


def _line_at(buf: bytes, start: int) -> tuple[bytes, int]:
    """The line starting at `start` (without its newline) and where the next one starts."""
    e = buf.find(b"\n", start)
    if e < 0:
        return buf[start:], len(buf) + 1
    return buf[start:e], e + 1


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
            done = max(done, _record_fields(buf, sa, sb, out, heads))
            continue
        if delim == _KEY:
            _key_line(buf, sa, sb, out)
            continue
        if delim == _PAIRS:
            _person_pairs(buf, sa, sb, out)
            continue
        if delim == _VCARD:
            _vcard_name(buf, sa, sb, out)
            continue
        if delim == _SQL:
            done = max(done, _sql_rows(buf, sa, sb, out, heads, creates))
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
            line, nxt = _line_at(buf, pos)
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
