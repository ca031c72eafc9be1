"""What a table's column names and cell texts are: the header words that make a column a
secret's, a national identifier's, a person's name, birth date or phone, the gates the engine's
literal pass uses, and the test a cell's value passes to be that column's candidate."""

from __future__ import annotations

import re
import unicodedata

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
            "cuit|cuil|thai.?(?:national.?)?id|(?:sa|rsa|african).?id|contribuinte|"
            # (s30) the identifiers whose rules take a value only near their label (keyword_window)
            "pesel|personnummer|personnr|samordningsnummer|tax.?file.?number|my.?number|resident.?(?:id|registration)|"
            "id.?card|sfzh")
_ID_SHORT_WORDS = ("sin", "nas", "pan", "cpf", "dni", "nie", "nif", "bsn", "nir", "nino", "ssn", "vat", "ein", "tin",
                   "itin", "utr", "fnr", "hetu", "sotu", "insz", "niss", "ahv", "tckn", "nhs", "rut", "tfn", "cpr", "rrn")
_ID_SHORT = "|".join(_ID_SHORT_WORDS)
_ID_CAMEL = "|".join(f"{w.capitalize()}|{w.upper()}" for w in _ID_SHORT_WORDS)
# in a gate after a name's own characters: the short words start the name or follow `_`, a digit or a space
_ID_AFTER = f"(?:[a-z0-9_ ]*[_ 0-9])?(?:{_ID_LONG}|{_ID_SHORT})"
_ID_FIRST = f"(?:{_ID_LONG}|(?:^|[^a-z])(?:{_ID_SHORT}))"

# A person's name or birth date column (NAME_COLUMNS): the words a header holds, for the gate
_BIRTH = "birth_?(?:date|day)|date_?of_?birth"
PERSON_WORDS = (f"(?:first|last|given|family|middle|maiden|sur|fore|full|legal|customer|contact|billing"
                f"|shipping|holder)[_ -]?name|dob|{_BIRTH}")

# A phone number's column (PHONE_COLUMNS): the words a header holds, for the gate
_PHONE_WORDS = "phone|mobile|telephone|tel|fax|msisdn"

# the key of a `key: value` line that names an identifier (column_kind judges it whole): a long name
# anywhere in it, a short one as a word of its own (`customer_bsn`, `customerBsn`; not `Processing`)
KEY_NAMING_ID = ("(?:- )?(?:[A-Za-z0-9_.-]*"
                 f"(?i:{_ID_LONG})[A-Za-z0-9_.-]*"
                 f"|(?:[A-Za-z0-9.-]*[_.-])?(?i:{_ID_SHORT})(?:[_.-][A-Za-z0-9_.-]*)?"
                 f"|[A-Za-z0-9_.-]*[a-z0-9](?:{_ID_CAMEL})(?:[A-Z_.-][A-Za-z0-9_.-]*)?)")

# an INSERT with no column list: `INSERT INTO `t` VALUES (`
_NO_COLUMNS = "(?i:(?:insert|replace)[ \t\r\n]+(?:ignore[ \t\r\n]+)?into[ \t\r\n]+[`\"\\[\\]A-Za-z0-9_.$]+[ \t\r\n]+values[ \t\r\n]*\\()"

# a vCard's N property: family name, given name(s) and more, `;` between them (its parameters before the `:`)
VCARD_N = "(?m:^)N(?:;[A-Za-z-]+=[^:;\\r\\n]*)*:[^;:\\r\\n]*;"

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
                # a vCard's structured name (`N:Family;Given;Middle;Prefix;Suffix`: vcard_name)
                f"|{VCARD_N}"
                f"|(?m:^)[ \t]*{KEY_NAMING_ID}[ \t]*[:=|]"
                # a person's name or birth date named by its key where its rule cannot read it (person_pairs,
                # sql_rows): a value with nothing after it to the line's end (a text cut after it), a
                # logfmt pair with another pair after it, a SQL INSERT or COPY naming such a column
                f"|(?i:{PERSON_WORDS})[\"'`]?[ \t]*(?::=|=>|[:=>])[ \t]*[\"'`]?[^ \t\r\n\"'`,;&)}}\\]|<>#][^\r\n\"'`,;&)}}\\]|<>#]*(?m:$)"
                f"|(?i:{PERSON_WORDS})=(?:\"[^\"\r\n]*\"|[^ \t\r\n\"'`]+)[ \t]"
                f"|(?i:(?:insert|replace)[ \t\r\n]+(?:ignore[ \t\r\n]+)?into[ \t\r\n]|copy[ \t]+)[^(;]*\\([^);]*(?i:{PERSON_WORDS})"
                # (s26) an INSERT with no column list (mysqldump): its CREATE TABLE or its values tell
                f"|{_NO_COLUMNS}"
                ).encode()
WORD_PATTERN = ("(?i:pass|pw|secret|token|key|psk|authentication_str|" + _ID_LONG + "|" + PERSON_WORDS
                + "|" + _PHONE_WORDS
                + f"|(?:^|[^a-z])(?:{_ID_SHORT})(?:[^a-z]|$))|[a-z0-9](?:{_ID_CAMEL})(?:[^a-z]|$)|{_NO_COLUMNS}|{VCARD_N}").encode()
_MARK = re2.compile(MARK_PATTERN)
_WORDS = re2.compile(WORD_PATTERN)


# a column's name as aligned text and psql's expanded records print it: a single space inside one
ANAME = rb"[A-Za-z_#][A-Za-z0-9_.#()/-]*(?: [A-Za-z0-9_.#()/-]+)*"


_CAMEL = re.compile(r"([a-z0-9])([A-Z])")
_NON_WORD = re.compile(r"[^a-z0-9]+")
_PASSWORD_NAME = re.compile(
    r"(?:[a-z0-9]*(?:password|passwd|passphrase)|(?:^|_)(?:pass|pwd|pw)|^authentication_string)"
    r"(?:_(?:hash|digest|enc|encrypted|plain|plaintext|clear|cleartext|value|text))?$")
_SECRET_NAME = re.compile(
    r"(?:[a-z0-9]*(?:secret|token|apikey|secretkey|privatekey|accesskey)"
    r"|(?:^|_)(?:api_key|private_key|access_key|secret_key|auth_key|signing_key|encryption_key|master_key|psk))"
    r"(?:_(?:hash|digest|enc|encrypted|plain|plaintext|clear|cleartext|value|text))?$")
NOT_A_SECRET = frozenset({
    "", "null", "(null)", "<null>", "[null]", "none", "nil", "undefined", "true", "false", "t", "f", "yes", "no",
    "y", "n", "on", "off", "n/a", "na", "-", "--", "...", "set", "unset", "empty", "(empty)", "hidden", "redacted",
    "[redacted]", "<redacted>",
})
# (no `$VAR` placeholders: a table shows data, and a crypt hash starts with `$`)
PLACEHOLDER = re.compile(r"^(?:\*+|x{3,}|\.{3,}|-+|_+|#+|•+|<[^>]*>)$")
# A content digest (a lockfile's SRI `integrity`, an image's `sha256:` digest): a hash of public
# bytes under a column that says token (`integrity_token`), not a secret
CONTENT_DIGEST = re.compile(r"^sha(?:1|256|384|512)(?:-[A-Za-z0-9+/]{27,86}={0,2}|:[0-9a-f]{40,128})$")

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
    # (s30) the identifiers whose rules take a number only within 60 bytes of their label (keyword_window):
    # a CSV's rows far under a `pesel` header are this pass's
    (("pl-pesel",), r"pesel" + _ID_NUMBER),
    (("se-personnummer", "national-id-labelled"), r"(?:personnummer|personnr|person_nr|samordningsnummer)"),
    (("dk-cpr",), r"cpr" + _ID_NUMBER),
    (("kr-rrn",), r"(?:rrn|resident_registration)" + _ID_NUMBER),
    (("jp-my-number",), r"my_?number"),
    (("cn-resident-id",), r"(?:resident_?id|id_?card|sfzh)" + _ID_NUMBER),
    (("au-tfn",), r"(?:tfn|tax_?file_?number)"),
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
    # a type or a schema word where a value goes (`last_name: Optional`, `first_name: Required`)
    "int", "integer", "number", "boolean", "bool", "date", "datetime", "object", "optional", "option", "required",
    "value", "blank", "hidden", "redacted", "secret", "field", "label", "input", "column", "type", "nvarchar",
    "character",
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
GIVEN_NAMES = _rules.BUILTIN_WORDS["given_names"]


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


def cell_value(line: bytes, a: int, b: int, kind: int = PASSWORD, code: bool = True) -> tuple[int, int] | None:
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
    if v.lower() in NOT_A_SECRET or PLACEHOLDER.match(v):
        return None
    if kind == SECRET and (len(v) < 8 or " " in v or not any(c.isdigit() for c in v)):
        return None
    if kind == SECRET and CONTENT_DIGEST.match(v):
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


def field_value(line: bytes, a: int, b: int, kind: int) -> tuple[int, int] | None:
    """A field's value without its quotes and a `,`/`;` after it (YAML, an .env line), and
    without the generic empty and NULL-like values."""
    while a < b and line[b - 1] in b" \t\r":
        b -= 1
    if b - a >= 1 and line[b - 1] in b",;":
        b -= 1
    if b - a >= 2 and line[a] in b"'\"" and line[b - 1] == line[a]:
        a, b = a + 1, b - 1
    return cell_value(line, a, b, kind, code=False)


def add_value(line: bytes, at: int, a: int, b: int, kind: int, out: list[tuple[int, int, int]]) -> None:
    v = field_value(line, a, b, kind)
    if v is not None:
        out.append((at + v[0], at + v[1], kind))


def line_at(buf: bytes, start: int) -> tuple[bytes, int]:
    """The line starting at `start` (without its newline) and where the next one starts."""
    e = buf.find(b"\n", start)
    if e < 0:
        return buf[start:], len(buf) + 1
    return buf[start:e], e + 1
