"""s26 PII: customer data left in structured text after s25.

1. mysqldump's `INSERT INTO `t` VALUES (...),(...);` with no column list: the columns of its CREATE TABLE,
   else (no CREATE TABLE in sight) a row holding an e-mail whose cells are a given name and a surname;
2. a diff's row of numbers held alone in a string (a structuredPatch line) keeps its numbers, and a
   card under a `card_number` header of a diffed CSV still goes;
3. a single logfmt pair mid-line (`signup for first_name=Jane done`);
4. names the format says are names: vCard N:/FN:, a quoted or `Last, First` display name before an
   e-mail, HTML author markup, package metadata's author/maintainer;
5. INSERT and COPY rows past a 1 MiB text chunk, and one-row INSERTs whose CREATE TABLE is a chunk back.

Each positive came out unchanged before s26 (names chosen outside words.toml given_names where the
format must tell); each negative must come out byte for byte."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from archiver.redact.base import RedactionReport
from archiver.redact.redactor import build_redactor
from archiver.redact.rules import RuntimeTerms
from tests.fx_redact import redacted_file
from tests.fx_s24_precision import corpus
from tests.fx_s26_pii import shapes

KEY = b"s26-pii-test-key-0123456789abcdef"
PACKS = ["builtin:secrets", "builtin:pii", "builtin:paths", "builtin:names"]


@pytest.fixture(scope="module")
def red() -> Any:
    return build_redactor(PACKS, KEY, RuntimeTerms(usernames=["alice"]))


def _redact(red: Any, text: str) -> tuple[str, dict[str, int]]:
    report = RedactionReport()
    return red.redact_text(text, report), report.by_rule()


def _kept(red: Any, text: str) -> None:
    out, by_rule = _redact(red, text)
    assert out == text and by_rule == {}, (out, by_rule)


# ---------------------------------------------------------------- 1. mysqldump

CREATE = ("CREATE TABLE `customers` (\n  `id` int(11) NOT NULL AUTO_INCREMENT,\n  `first_name` varchar(50) DEFAULT NULL,\n"
          "  `last_name` varchar(50) DEFAULT NULL,\n  `note` varchar(200) DEFAULT 'a, b',\n  `dob` date DEFAULT NULL,\n"
          "  PRIMARY KEY (`id`),\n  KEY `idx_name` (`last_name`,`first_name`)\n) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;\n\n")


def test_an_insert_without_columns_reads_its_create_table(red: Any) -> None:
    text = CREATE + ("LOCK TABLES `customers` WRITE;\nINSERT INTO `customers` VALUES "
                     "(1,'Zephyrine','O\\'Quillfeather','call back, please','1984-03-12'),"
                     "(2,'string','Doe','Ottilie','1971-12-03');\nUNLOCK TABLES;\n")
    out, by_rule = _redact(red, text)
    for v in ("Zephyrine", "Quillfeather", "1984-03-12", "1971-12-03"):
        assert v not in out, v
    assert out.startswith(CREATE + "LOCK TABLES `customers` WRITE;\nINSERT INTO `customers` VALUES (1,'<PERSON:")
    assert "'call back, please'" in out and ",'string','Doe','Ottilie','<DATE_OF_BIRTH:" in out
    assert by_rule == {"person-name-keyed": 2, "date-of-birth-keyed": 2}


def test_the_create_table_of_another_table_names_no_column(red: Any) -> None:
    _kept(red, CREATE + "INSERT INTO `orders` VALUES (1,'Zephyrine','Quillfeather','x','Pro');\n")


def test_without_a_create_table_a_row_with_an_email_loses_its_given_name_and_surname(red: Any) -> None:
    out, by_rule = _redact(red, "INSERT INTO `users` VALUES (1,'Tomasz','Quillfeather','tq.1@web.de','Pro'),"
                                "(2,'Jordan','Air','Sneaker','Pro');")
    assert out.startswith("INSERT INTO `users` VALUES (1,'<PERSON:") and "Tomasz" not in out and "Quillfeather" not in out
    assert out.endswith(",'Pro'),(2,'Jordan','Air','Sneaker','Pro');")  # no e-mail: no person's record
    assert by_rule["person-name-keyed"] == 2


@pytest.mark.parametrize("text", [
    "INSERT INTO `products` VALUES (1,'Jordan','Air','sneaker'),(2,'Victoria','Falls','tour');",
    "INSERT INTO t VALUES (1, 'string', 'text');",
    "CREATE TABLE t (id int, first_name text);\nINSERT INTO t VALUES (1, 'null'), (2, 'Test');",
])
def test_inserts_without_a_person_value_stay(red: Any, text: str) -> None:
    _kept(red, text)


# ---------------------------------------------------------------- 2. numeric rows

ROWS = ["+680622582197,9,4784755578311799,-469.380159812,8975727264",
        "-4322531975076,24,6445133349471515,2202.713085395,7187213132",
        "+8153117093578\t23\t1524467743461787\t-3281.668910531\t8786199536"]


@pytest.mark.parametrize("row", ROWS)
def test_a_row_of_numbers_alone_in_a_string_keeps_every_number(red: Any, row: str) -> None:
    _kept(red, row)


def test_a_structured_patch_of_numbers_keeps_every_number(red: Any, tmp_path: Path) -> None:
    rec = {"type": "user", "uuid": "u1", "sessionId": "s1", "timestamp": "2025-01-01T00:00:00Z",
           "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}]},
           "toolUseResult": {"filePath": "/tmp/runs.csv", "structuredPatch": [
               {"oldStart": 1, "oldLines": 2, "newStart": 1, "newLines": 2, "lines": ROWS + ["++14155550123,3,1,0"]}]}}
    out, by_rule = redacted_file(red, tmp_path, "c.jsonl", (json.dumps(rec) + "\n").encode())
    lines = json.loads(out)["toolUseResult"]["structuredPatch"][0]["lines"]
    assert lines[:3] == ROWS and lines[3].startswith("+<PHONE:") and by_rule == {"phone-e164": 1}


def test_a_card_under_a_card_number_header_of_a_diffed_csv_goes(red: Any) -> None:
    text = ("@@ -1,3 +1,3 @@\n order_id,qty,card_number,amount\n-1042,12,4012888888881881,99.50\n"
            "+1042,12,5105105105105100,99.50\n 1043,1,1234567890123,12.00\n")
    out, by_rule = _redact(red, text)
    assert "4012888888881881" not in out and "5105105105105100" not in out
    assert out.endswith(",99.50\n 1043,1,1234567890123,12.00\n")  # no valid check digit: no card
    assert by_rule == {"credit-card-visa": 2}


# ---------------------------------------------------------------- 3. a single logfmt pair

@pytest.mark.parametrize(("text", "value", "rule"), [
    ("2025-03-01 10:00:00 INFO signup for first_name=Zephyrine done", "Zephyrine", "person-name-keyed"),
    ("INFO saved last_name=Quillfeather in 3ms", "Quillfeather", "person-name-keyed"),
    ("WARN retry for user_first_name=Ottilie (attempt 2)", "Ottilie", "person-name-keyed"),
])
def test_a_single_keyed_pair_mid_line_goes(red: Any, text: str, value: str, rule: str) -> None:
    out, by_rule = _redact(red, text)
    assert value not in out and by_rule == {rule: 1}, (out, by_rule)
    assert out[:out.index("<")] == text[:text.index(value)]


@pytest.mark.parametrize("text", [
    "ERROR validation failed field=first_name value=None in form",
    "Usage: script --first_name=NAME --last_name=NAME",
    "user last_name=Test status=200 ok",
    "log: dob=2024-13-45 rejected",
    "set first_name=jane in lower case",
])
def test_ordinary_pairs_stay(red: Any, text: str) -> None:
    _kept(red, text)


# ---------------------------------------------------------------- 4. names the format names

@pytest.mark.parametrize(("text", "values"), [
    ("BEGIN:VCARD\nVERSION:3.0\nN:Quillfeather;Zephyrine;;;\nFN:Zephyrine Quillfeather\nEND:VCARD\n",
     ["Quillfeather", "Zephyrine"]),
    ("BEGIN:VCARD\r\nN;CHARSET=UTF-8:Szalontai;Benedek;Ottó;Dr.;\r\nEND:VCARD\r\n", ["Szalontai", "Benedek", "Ottó"]),
    ('From: "Ysolde Pemberton" <ysolde@corp-mail.net>\n', ["Ysolde Pemberton"]),
    ('To: "Pemberton, Ysolde" <ysolde@corp-mail.net>\n', ["Pemberton", "Ysolde"]),
    ('<span class="author">Thaddeus Ashdown</span> wrote', ["Thaddeus Ashdown"]),
    ('<span itemprop="name">Thaddeus Ashdown</span>', ["Thaddeus Ashdown"]),
    ('<meta name="author" content="Thaddeus Ashdown">', ["Thaddeus Ashdown"]),
    ('<span class="p-name">Thaddeus Ashdown</span>', ["Thaddeus Ashdown"]),
    ('setup(name="x", author="Xiomara Brackenridge", maintainer="Leocadia Ashdown")', ["Xiomara", "Leocadia"]),
    ('maintainers = [{name = "Xiomara Brackenridge"}]', ["Xiomara Brackenridge"]),
    ('{"contributors": [{"name": "Xiomara Brackenridge"}]}', ["Xiomara Brackenridge"]),
    ('__author__ = "Xiomara Brackenridge"\n', ["Xiomara Brackenridge"]),
    ("Author: Benedek Szalontai\nLicense: MIT\n", ["Benedek Szalontai"]),
])
def test_a_name_the_format_names_goes(red: Any, text: str, values: list[str]) -> None:
    out, by_rule = _redact(red, text)
    for v in values:
        assert v not in out, (v, out)
    assert "<PERSON:" in out and set(by_rule) <= {"person-name-keyed", "person-name-keyed-full",
                                                 "person-name-before-email", "person-name-titled", "email"}


@pytest.mark.parametrize("text", [
    '{"author": "Anthropic", "license": "MIT"}',
    'author = "The Pallets Team"',
    '{"author": "Python Packaging Authority"}',
    'Author: Claude Code\n',
    '<span class="author">GitHub Actions</span>',
    'maintainer="Acme Developers"',
    "N:3;4;5\n",
    "BEGIN:VCARD\nN:;;;;\nEND:VCARD\n",
    '<span itemprop="name">Acme Corp</span>',
    "class Post:\n    author: User\n    maintainer: Optional[str]\n",
])
def test_no_person_behind_the_format_stays(red: Any, text: str) -> None:
    _kept(red, text)


# ---------------------------------------------------------------- 5. past a text chunk

def _sql_file(red: Any, tmp_path: Path, text: str) -> tuple[bytes, dict[str, int]]:
    data = text.encode()
    assert len(data) > (1 << 20) + (1 << 18)  # more than one chunk of the text walker
    return redacted_file(red, tmp_path, "dump.sql", data, fmt="text")


N_ROWS = 17_000


@pytest.mark.parametrize("shape", ["copy", "insert", "one-row-inserts"])
def test_rows_past_a_chunk_are_still_under_their_columns(red: Any, tmp_path: Path, shape: str) -> None:
    pad = "x" * 40
    if shape == "copy":
        text = ("COPY public.customers (id, first_name, last_name, note) FROM stdin;\n"
                + "".join(f"{i}\tZephyrine\tQuillfeather\tnote {pad} {i:06d}\n" for i in range(N_ROWS)) + "\\.\n")
    elif shape == "insert":
        text = ("INSERT INTO customers (id, first_name, last_name, note) VALUES\n"
                + ",\n".join(f"  ({i}, 'Zephyrine', 'Quillfeather', 'note {pad} {i:06d}')" for i in range(N_ROWS)) + ";\n")
    else:
        text = CREATE + "".join(f"INSERT INTO `customers` VALUES ({i},'Zephyrine','Quillfeather','{pad}','1984-03-12');\n"
                                for i in range(N_ROWS))
    out, by_rule = _sql_file(red, tmp_path, text)
    assert out.count(b"Zephyrine") == 0 and out.count(b"Quillfeather") == 0
    assert by_rule["person-name-keyed"] == 2 * N_ROWS
    assert out.count(b"note " + pad.encode()) == (N_ROWS if shape != "one-row-inserts" else 0)


# ---------------------------------------------------------------- the sweep

@pytest.mark.parametrize("seed", (26, 27))
def test_s26_shapes_lose_every_planted_value(red: Any, seed: int) -> None:
    survivors: list[tuple[str, str]] = []
    for name, (text, planted) in shapes(seed).items():
        out, _ = _redact(red, text)
        survivors += [(name, kind) for kind, values in planted.items() for v in values if v in out]
    assert survivors == [], Counter(survivors)


def test_the_benign_corpus_keeps_every_byte(red: Any) -> None:
    """fx_s24_precision's shapes and its audit-only ones: as in s25, only the five by-design titled
    names of the pytest shape are taken."""
    taken: Counter[tuple[str, str]] = Counter()
    for shape, _seed, text in corpus((24, 26), audit=True):
        _, by_rule = _redact(red, text)
        taken.update({(shape, rule): n for rule, n in by_rule.items()})
    assert set(taken) <= {("pytest", "person-name-titled")}, taken
