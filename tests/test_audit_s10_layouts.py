"""Three text layouts that hid secrets from the redactor (audit s10): a CSV/TSV file with a secret
column read by an agent (the table pass's list mode, delimited), `cat -n` numbered output hiding a line's
start from the rules (linenumbers.blank_line_numbers), and a .pgpass line at the very end of a string
(rule pgpass-line). Each case asserts the exact redacted text (tokens' digests aside): the secret is
gone and its neighbours stay; and ordinary CSV, prose with commas and `git shortlog -s` stay as
they were."""

from __future__ import annotations

import json
import re

import pytest

from archiver.redact import tables
from archiver.redact.base import RedactionReport
from archiver.redact.linenumbers import blank_line_numbers
from tests.fx_redact import builtin_redactor

_TOKEN = re.compile(r"<([A-Z][A-Z0-9_]*):[0-9a-f]{8}>")


@pytest.fixture(scope="module")
def red():
    return builtin_redactor(b"L" * 32)


def _red(red, text: str) -> str:
    """The redacted text with each token's digest left out (`<PASSWORD>`)."""
    return _TOKEN.sub(r"<\1>", red.redact_text(text, RedactionReport()))


def _jsonl_outputs(red, text: str) -> list[str]:
    """text as a Bash tool_result and as a Read tool's file content, redacted, decoded back."""
    recs = [
        {"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_01x", "content": text}]}},
        {"type": "user", "toolUseResult": {"type": "text", "file": {"filePath": "/srv/app/users.csv", "content": text}}},
    ]
    out = [json.loads(red.redact_jsonl_line(json.dumps(r).encode(), RedactionReport())) for r in recs]
    return [out[0]["message"]["content"][0]["content"], out[1]["toolUseResult"]["file"]["content"]]


# ---------------------------------------------------------------- 1. CSV and TSV with a secret column

CSV_CASES = [
    ("$ cat users.csv\nemail,password\nbob@x.io,Hunter-FAKE-22\n",
     "$ cat users.csv\nemail,password\n<EMAIL>,<PASSWORD>\n"),
    # quoted cells with commas (a quoted secret keeps its quotes), CRLF
    ('id,name,password\r\n1,"Bob, Q",Hunter-FAKE-22\r\n2,"a,b","Pw,FAKE-33"\r\n3,carol,NULL\r\n',
     'id,name,password\r\n1,"Bob, Q",<PASSWORD>\r\n2,"a,b","<PASSWORD>"\r\n3,carol,NULL\r\n'),
    ("username,api_key,created_at\nzed,sk9fake0key1234abcd,2025-01-01\nyul,,2025-01-02\n",
     "username,api_key,created_at\nzed,<SECRET>,2025-01-01\nyul,,2025-01-02\n"),
    ("$ head -5 creds.tsv\nuser\tpassword\tnote\nbob\tHunter-FAKE-22\tlab box\ncarol\tTr0ub4dor&3x\t\n",
     "$ head -5 creds.tsv\nuser\tpassword\tnote\nbob\t<PASSWORD>\tlab box\ncarol\t<PASSWORD>\t\n"),
    # psql --csv, header names quoted (KeePass export), a quoted note over two lines after the secret
    ('"Account","Login Name","Password","Web Site","Comments"\n'
     '"Mail","bob","Kp-FAKE-4455","https://mail.example.com","first line\nsecond, line"\n'
     '"Bank","carol","Kp-FAKE-6677","https://bank.example.com",""\n',
     '"Account","Login Name","Password","Web Site","Comments"\n'
     '"Mail","bob","<PASSWORD>","https://mail.example.com","first line\nsecond, line"\n'
     '"Bank","carol","<PASSWORD>","https://bank.example.com",""\n'),
    # a quoted secret over two lines, `""` in it, a backtick in an unquoted one
    ('name,password,notes\nbob,"Ml-FAKE\nsecond ""half""",x\ncarol,Bt`FAKE-99,y\n',
     'name,password,notes\nbob,"<PASSWORD>",x\ncarol,<PASSWORD>,y\n'),
    # a Read tool result (Claude's line numbers) and `cat -n`: the header is found after the number
    ("     1\u2192email,password\n     2\u2192bob@x.io,Hunter-FAKE-22\n",
     "     1\u2192email,password\n     2\u2192<EMAIL>,<PASSWORD>\n"),
    ("$ cat -n creds.tsv\n     1\tuser\tpassword\n     2\tbob\tHunter-FAKE-22\n",
     "$ cat -n creds.tsv\n     1\tuser\tpassword\n     2\tbob\t<PASSWORD>\n"),
    # list mode behind Claude's line numbers, which it did not read before either
    ("     1\u2192user|password\n     2\u2192bob|Hunter-FAKE-22\n",
     "     1\u2192user|password\n     2\u2192bob|<PASSWORD>\n"),
]


@pytest.mark.parametrize("text,expected", CSV_CASES,
                         ids=["csv", "csv-quoted-crlf", "csv-api-key", "tsv", "keepass-quoted-header",
                              "csv-multiline-secret", "read-tool-csv", "cat-n-tsv", "read-tool-list-mode"])
def test_delimited_secret_column_is_redacted(red, text: str, expected: str) -> None:
    assert _red(red, text) == expected


@pytest.mark.parametrize("text,expected", CSV_CASES[:4], ids=["csv", "csv-quoted-crlf", "csv-api-key", "tsv"])
def test_delimited_secret_column_is_redacted_in_session_records(red, text: str, expected: str) -> None:
    for got in _jsonl_outputs(red, text):
        assert _TOKEN.sub(r"<\1>", got) == expected


def test_the_same_password_gets_the_same_token(red) -> None:
    out = red.redact_text("user,password\nbob,Same-FAKE-01\ncarol,Same-FAKE-01\ndan,Other-FAKE-02\n", RedactionReport())
    rows = out.splitlines()[1:]
    tokens = [r.split(",")[1] for r in rows]
    assert tokens[0] == tokens[1] != tokens[2] and all(_TOKEN.fullmatch(t) for t in tokens)


def test_a_csv_longer_than_a_chunk_keeps_its_header(red) -> None:
    """Text is redacted in 1 MiB chunks (walkers/text.py): the rows after the first chunk are read
    under the header carried over from it."""
    rows = [f"{i},user{i},Pw-FAKE-{i:07d}x,2025-01-01" for i in range(45_000)]
    text = "id,login,password,created\n" + "\n".join(rows) + "\n"
    assert len(text) > (1 << 20) + (512 << 10)
    out = _red(red, text)
    assert out == "id,login,password,created\n" + "".join(f"{i},user{i},<PASSWORD>,2025-01-01\n" for i in range(45_000))


def test_secret_cells_spans(red) -> None:
    buf = b'id,"user",pass_hash\n1,bob,"$2b$12$FAKEfakeFAKEfake"\n2,"x,y",plain-FAKE-3\n\nafter,blank\n'
    cells = tables.secret_cells(buf)
    assert [(buf[a:b], kind) for a, b, kind in cells] == [
        (b"$2b$12$FAKEfakeFAKEfake", tables.PASSWORD), (b"plain-FAKE-3", tables.PASSWORD)]


@pytest.mark.parametrize("text", [
    # ordinary CSV and TSV: no secret column
    "date,amount,description\n2024-01-01,12.50,\"coffee, beans\"\n2024-01-02,3.00,tea\n",
    "key,value\nretries,3\ntimeout,30s\n",
    "token,count\nthe,1203\nand,988\n",  # a token/secret column holds words, not secrets
    "id\tname\tpassword_changed_at\n1\tbob\t2025-01-01 10:00\n",
    # a secret column whose cells hold nothing secret
    "user,password\nbob,\ncarol,NULL\ndan,********\n",
    # prose with commas and secret words
    "I rotated the password, the token and the api key, then restarted it.\nIt works, thanks.\n",
    "Password, token, secret\nare all, in the vault\n",
    # code
    "    return user,password\n        f(x, bar_baz)\n",
    "def f(key,secret):\n    return key,secret\n",
    # a CSV header with a secret column and rows of another width
    "email,password\nsee the docs, the wiki, or ask\n",
])
def test_ordinary_csv_prose_and_code_unchanged(red, text: str) -> None:
    assert red.redact_text(text, RedactionReport()) == text


@pytest.mark.parametrize("text", [
    "I rotated the password, the token and the api key, then restarted it.",
    "Secrets, tokens, keys: see the vault, or ask, please.",
    "password,\ttoken, and key are words",  # no name right after the comma
])
def test_prose_with_commas_does_not_open_the_gate(text: str) -> None:
    assert not tables.may_hold_table(text.encode())


@pytest.mark.parametrize("text", ["email,password\nx,y\n", '"Login","Password"\n', "user\tapi_key\n", "Api Key,Name\n"])
def test_delimited_headers_open_the_gate(text: str) -> None:
    assert tables.may_hold_table(text.encode())


# ---------------------------------------------------------------- 2. `cat -n` numbered output


def test_cat_n_prefixes_are_blanked_for_scanning() -> None:
    assert blank_line_numbers(b"     1\tHost bastion\n     2\t  User alice\n") == b"       Host bastion\n         User alice\n"
    # `cat -b`: blank lines between numbered lines; CRLF; numbers past 999999 fill the column
    assert blank_line_numbers(b"     9\ta\r\n\r\n    10\tb\r\n    11\tc\r\n") == b"       a\r\n\r\n       b\r\n       c\r\n"
    assert blank_line_numbers(b"999999\tx\n1000000\ty\n1000001\tz\n") == b"       x\n        y\n        z\n"
    # a JSON string's escaped lines
    assert (blank_line_numbers(b'{"output": "     1\\tHost h\\n     2\\t  User u\\n"}')
            == b'{"output": "' + b" " * 8 + b"Host h\\n" + b" " * 8 + b'  User u\\n"}')


@pytest.mark.parametrize("text", [
    b"   120\tIgnatia Fakename\n    40\tBob Q. Example\n     3\tCarol Dee\n",  # shortlog -sn: counts go down
    b"     3\tAlice Able\n     4\tBob Baker\n",  # shortlog -s (by name): two counts up by one, not from 1
    b"     1\tAlice Able\n     1\tBob Baker\n     2\tCarol Dee\n",  # not by one
    b"     1\tonly one line\n",
    b"     1\ta\nprose between\n     2\tb\n     3\tc\n",  # not consecutive lines
    b"1\tid\n2\tid\n3\tid\n",  # a TSV id column: not six wide
])
def test_other_numbered_lines_are_not_blanked(text: bytes) -> None:
    assert blank_line_numbers(text) is text or blank_line_numbers(text) == text


def test_git_shortlog_names_are_still_found(red) -> None:
    text = "$ git shortlog -s\n     3\tIgnatia Fakename\n     4\tBertram Quux\n    12\tCassia Zorn\n"
    assert _red(red, text) == "$ git shortlog -s\n     3\t<PERSON>\n     4\t<PERSON>\n    12\t<PERSON>\n"


CAT_N_CASES = [
    ("$ cat -n ~/.ssh/config\n     1\tHost bastion\n     2\t  HostName 10.0.0.5\n     3\t  User alice\n",
     re.compile(r"\$ cat -n ~/\.ssh/config\n     1\tHost bastion\n     2\t  HostName 10\.0\.0\.5\n     3\t  User (?!alice)\S+\n")),
    ("$ cat -n ~/.netrc\n     1\tmachine api.example.com\n     2\t  login bob\n     3\t  password N3trc-FAKE-pw\n",
     # the login is an account (s33: .netrc logins are usernames, as ssh's User is)
     re.compile(r"\$ cat -n ~/\.netrc\n     1\tmachine api\.example\.com\n     2\t  login (?!bob)\S+\n     3\t  password <NETRC_PASSWORD>\n")),
    ("$ cat -n dump.txt\n     1\t username | password \n     2\t----------+----------\n     3\t bob      | Ps-FAKE-77\n",
     re.compile(r"\$ cat -n dump\.txt\n     1\t username \| password \n     2\t----------\+----------\n     3\t bob      \| <PASSWORD>\n")),
]


@pytest.mark.parametrize("text,expected", CAT_N_CASES, ids=["ssh-config", "netrc", "psql"])
def test_cat_n_output_is_read_as_the_file(red, text: str, expected: re.Pattern[str]) -> None:
    assert expected.fullmatch(_red(red, text)), _red(red, text)
    for got in _jsonl_outputs(red, text):
        assert expected.fullmatch(_TOKEN.sub(r"<\1>", got)), got


# ---------------------------------------------------------------- 3. .pgpass at the end of a string


@pytest.mark.parametrize("text,expected", [
    ("localhost:5432:app:app_user:Hq7vT2mZp9Lx4RkW", "localhost:5432:app:app_user:<DB_PASSWORD>"),
    ("$ cat ~/.pgpass\n*:*:*:postgres:Jd8sK3nQ5wPz\ndb.internal:5432:*:replicator:Rp4wFAKEx9Lq",
     "$ cat ~/.pgpass\n*:*:*:postgres:<DB_PASSWORD>\ndb.internal:5432:*:replicator:<DB_PASSWORD>"),
    ("localhost:5432:app:app_user:Hq7vT2mZp9Lx4RkW\n", "localhost:5432:app:app_user:<DB_PASSWORD>\n"),
])
def test_pgpass_line_at_the_end_of_a_string(red, text: str, expected: str) -> None:
    assert _red(red, text) == expected
    for got in _jsonl_outputs(red, text):
        assert _TOKEN.sub(r"<\1>", got) == expected


@pytest.mark.parametrize("text", [
    "host:5432:db:user:pass9word:extra",
    "see db:5432:app:bob:path/to/file",
    "www-data:x:33:33:www-data:/var/www:/usr/sbin/nologin",
    "sun:05:00-sun:09:00</code>",
])
def test_pgpass_like_lines_that_are_not_pgpass(red, text: str) -> None:
    assert red.redact_text(text, RedactionReport()) == text


def test_mysql_authentication_string_column_is_a_password_column() -> None:
    from archiver.redact.base import RedactionReport
    red = builtin_redactor(b"k" * 32, ["zed"])
    native = "*6BB4837EB74329105EE4568DDA7DC67ED2CA2AD9"
    sha2 = "$A$005$Xj3kL9mNp2QrStUvWxYz0123456789abcdefGHIJ"
    bordered = ("+------+-------------------------------------------+\n"
                "| user | authentication_string                     |\n"
                "+------+-------------------------------------------+\n"
                f"| app  | {native} |\n"
                "+------+-------------------------------------------+\n")
    out = red.redact_text(bordered, RedactionReport())
    assert native not in out and "| app  | <PASSWORD:" in out
    batch = f"user\tauthentication_string\napp\t{sha2}\n"  # mysql -B
    out = red.redact_text(batch, RedactionReport())
    assert sha2 not in out and out.startswith("user\tauthentication_string\napp\t<PASSWORD:")
