"""s25 PII recall and precision: a person's attribute named by its key where no regex can read it,
and numbers of data that were taken for phones, cards and postcodes.

1. a keyed name or birth date that ends the text with nothing after it (a tool output cut after
   `first_name: Jane`, a JSON value cut before its closing quote);
2. SQL: INSERT's values under their columns (multi-row too), pg_dump COPY rows, UPDATE ... SET and WHERE;
3. logfmt: every `key=value` pair of a line, not only the last;
4. precision: a diff's line of a CSV/TSV row of numbers holds no phone or card; a log word in capitals
   after a comma is no town (`BATH, STATUS E4 2QA`); a one-line envelope label is an address.

Each positive came out unchanged on the rules and the table pass before s25; each negative must come out
byte for byte. Then the sweep: tests/fx_s25_pii.py's customer-data shapes lose every planted value,
and tests/fx_s24_precision.py's benign corpus (its audit-only shapes too) keeps every byte."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from archiver.redact.base import RedactionReport
from archiver.redact.redactor import build_redactor
from archiver.redact.rules import RuntimeTerms
from tests.fx_redact import claude_tool_result_redacted, redacted_file
from tests.fx_s24_precision import corpus
from tests.fx_s25_pii import shapes

KEY = b"s25-pii-test-key-0123456789abcdef"
PACKS = ["builtin:secrets", "builtin:pii", "builtin:paths", "builtin:names"]


@pytest.fixture(scope="module")
def red() -> Any:
    return build_redactor(PACKS, KEY, RuntimeTerms(usernames=["alice"]))


def _redact(red: Any, text: str) -> tuple[str, dict[str, int]]:
    report = RedactionReport()
    return red.redact_text(text, report), report.by_rule()


# the rules that may take a value of each kind (a name in two cells of a TSV row is also a given name
# and surname, a date under `dob=` also a labelled date of birth)
NAMES = {"person-name-keyed", "person-name-keyed-full", "person-name-given"}
BIRTH = {"date-of-birth-keyed", "date-of-birth-labelled"}


def _gone(red: Any, text: str, values: list[str], rule: str) -> str:
    """Each value gone, and `rule` (or a rule of its kind) counted at least once."""
    out, by_rule = _redact(red, text)
    for v in values:
        assert v not in out, (v, out)
    kind = NAMES if rule in NAMES else BIRTH if rule in BIRTH else {rule}
    assert kind & set(by_rule), by_rule
    return out


def _kept(red: Any, text: str) -> None:
    out, by_rule = _redact(red, text)
    assert out == text and by_rule == {}, (out, by_rule)


# ---------------------------------------------------------------- 1. the end of the text

@pytest.mark.parametrize(("text", "value", "rule"), [
    ("id: 7\nemail_verified: true\nfirst_name: Jane", "Jane", "person-name-keyed"),
    ('{"id": 4711, "lastName": "Okafor', "Okafor", "person-name-keyed"),
    ("CUSTOMER_SURNAME=Wiśniewski", "Wiśniewski", "person-name-keyed"),
    ("row 3\n  contact_name: Priya Raghunathan", "Priya Raghunathan", "person-name-keyed-full"),
    ("patient:\n  dob: 1984-03-12", "1984-03-12", "date-of-birth-keyed"),
])
def test_a_keyed_value_that_ends_the_text_goes(red: Any, text: str, value: str, rule: str) -> None:
    out = _gone(red, text, [value], rule)
    assert out[:-1].startswith(text[:text.rindex(value)])  # the key and everything before it stay


def test_a_cut_tool_output_ending_in_a_keyed_name_loses_it_in_a_claude_transcript(red: Any, tmp_path: Path) -> None:
    line, content, sidecar, by_rule = claude_tool_result_redacted(red, tmp_path, "id: 1\nfirst_name: Jane")
    assert content.startswith("id: 1\nfirst_name: <PERSON:") and sidecar == content
    assert b"Jane" not in line and by_rule.get("person-name-keyed", 0) >= 2


def test_a_text_file_whose_last_line_is_a_keyed_name_without_a_newline_loses_it(red: Any, tmp_path: Path) -> None:
    data = b"customer:\n  first_name: Margaret\n  last_name: Thornton"
    out, by_rule = redacted_file(red, tmp_path, "fixture.yaml", data, fmt="text")
    assert b"Margaret" not in out and b"Thornton" not in out and out.startswith(b"customer:\n  first_name: <PERSON:")
    assert by_rule.get("person-name-keyed") == 2


@pytest.mark.parametrize("text", [
    "class User:\n    first_name: str",
    "interface User {\n  firstName: string",
    '{"lastName": "Last name is required',
    "first_name = Column(String(50)",
    "Hello {{firstName",
    "first_name: null",
    "lastName: Joi.string",
    "  last_name: TODO",
    "first_name: jane",
    "birth_date: unknown",
    "date_of_birth: 2024-13-45",
])
def test_a_type_label_or_placeholder_that_ends_the_text_stays(red: Any, text: str) -> None:
    _kept(red, text)


# ---------------------------------------------------------------- 2. SQL

def test_insert_values_under_person_columns_go_and_the_others_stay(red: Any) -> None:
    text = ("INSERT INTO customers (first_name, last_name, email, dob, plan) "
            "VALUES ('Jane', 'Okafor', 'jane.o@corp-mail.net', '1984-03-12', 'Pro');")
    out, by_rule = _redact(red, text)
    for v in ("'Jane'", "'Okafor'", "jane.o@corp-mail.net", "1984-03-12"):
        assert v not in out
    assert out.startswith("INSERT INTO customers (first_name, last_name, email, dob, plan) VALUES ('<PERSON:")
    assert out.endswith("', 'Pro');")
    assert by_rule["person-name-keyed"] == 2 and by_rule["date-of-birth-keyed"] == 1


def test_a_multi_row_insert_maps_each_row_to_its_columns(red: Any) -> None:
    text = ("INSERT INTO `customers` (`id`, `first_name`, `last_name`, `middle_name`, `note`, `birth_date`) VALUES\n"
            "  (1, 'Jane', 'O''Sullivan', NULL, 'call back (urgent), please', '1984-03-12'),\n"
            "  (2, 'Tomasz', 'Wiśniewski', 'Piotr', concat('a', 'b'), '12/03/1971'),\n"
            "  (3, 'string', 'Doe', NULL, 'Jane', NULL);\n")
    out, by_rule = _redact(red, text)
    for v in ("Jane', 'O", "O''Sullivan", "Tomasz", "Wiśniewski", "Piotr", "1984-03-12", "12/03/1971"):
        assert v not in out, v
    assert "'call back (urgent), please'" in out and "concat('a', 'b')" in out
    assert "(3, 'string', 'Doe', NULL, 'Jane', NULL);" in out  # a type, a placeholder, a note column
    assert by_rule["person-name-keyed"] >= 4 and sum(by_rule.get(r, 0) for r in BIRTH) == 2


def test_pg_dump_copy_rows_lose_their_person_columns(red: Any) -> None:
    text = ("COPY public.customers (id, first_name, last_name, date_of_birth, city) FROM stdin;\n"
            "1\tJane\tOkafor\t1984-03-12\tLeeds\n2\tTomasz\t\\N\t\\N\tPorto\n\\.\n\nSELECT 1;\n")
    out = _gone(red, text, ["Jane", "Okafor", "Tomasz", "1984-03-12"], "person-name-keyed")
    assert "\tLeeds\n" in out and "\t\\N\t\\N\tPorto\n\\.\n\nSELECT 1;\n" in out


@pytest.mark.parametrize("text", [
    "UPDATE customers SET first_name = 'Jane', last_name = 'Okafor' WHERE id = 7;",
    "SELECT * FROM customers WHERE last_name = 'Okafor' AND first_name = 'Jane'",
])
def test_update_set_and_where_lose_person_values(red: Any, text: str) -> None:
    _gone(red, text, ["Jane", "Okafor"], "person-name-keyed")


@pytest.mark.parametrize("text", [
    "INSERT INTO users (name, username, city) VALUES ('Margaret', 'mthornton', 'Leeds');",
    "INSERT INTO t (first_name, last_name) VALUES ('string', 'text'), (NULL, NULL);",
    "INSERT INTO t (first_name) SELECT given FROM staging;",
    "COPY t (first_name, last_name) FROM '/tmp/x.csv' WITH CSV;",
])
def test_sql_without_a_person_value_stays(red: Any, text: str) -> None:
    _kept(red, text)


# ---------------------------------------------------------------- 3. logfmt

def test_every_pair_of_a_logfmt_line_is_read(red: Any) -> None:
    text = ("ts=2025-03-01T10:00:00Z level=info user_first_name=Jane user_last_name=Okafor "
            "email=jane.o@corp-mail.net dob=1984-03-12 req=8812\n")
    out, by_rule = _redact(red, text)
    for v in ("Jane", "Okafor", "jane.o@corp-mail.net", "1984-03-12"):
        assert v not in out, v
    assert out.startswith("ts=2025-03-01T10:00:00Z level=info user_first_name=<PERSON:") and out.endswith(" req=8812\n")
    assert by_rule["person-name-keyed"] == 2 and sum(by_rule.get(r, 0) for r in BIRTH) == 1


def test_a_quoted_logfmt_full_name_goes(red: Any) -> None:
    _gone(red, 'level=warn customer_name="Priya Raghunathan" plan=pro attempts=3', ["Priya Raghunathan"],
          "person-name-keyed-full")


@pytest.mark.parametrize("text", [
    "level=info first_name=null last_name=string msg=ok\n",
    "level=info first_name= last_name= msg=validation\n",
    "level=debug field=first_name rule=required\n",
    "level=info customer_name=Acme_Corp contact_name=\"Support Team\" n=2\n",
])
def test_logfmt_pairs_without_a_person_value_stay(red: Any, text: str) -> None:
    _kept(red, text)


# ---------------------------------------------------------------- 4. precision

NUMERIC_DIFF = ("diff --git a/data/runs.csv b/data/runs.csv\n--- a/data/runs.csv\n+++ b/data/runs.csv\n"
                "@@ -1,4 +1,4 @@\n run_id,step,key,energy_j,count\n"
                "+680622582197,9,4784755578311799,-469.380159812,8975727264\n"
                "-4322531975076,24,6445133349471515,2202.713085395,7187213132\n"
                "+8153117093578\t23\t1524467743461787\t-3281.668910531\t8786199536\n")


def test_a_diff_of_a_csv_of_numbers_keeps_every_number(red: Any) -> None:
    _kept(red, NUMERIC_DIFF)


@pytest.mark.parametrize(("text", "value", "rule"), [
    ("@@ -1 +1 @@\n-14155550123,3,1,0\n++14155550123,3,1,0\n", "+14155550123", "phone-e164"),
    ("+33612345678,Claire,Lyon\n", "+33612345678", "phone-e164"),
    ("card,exp\n4012888888881881,12/29\n", "4012888888881881", "credit-card-visa"),
    ("diff\n+ card 4012888888881881 exp 04/29\n", "4012888888881881", "credit-card-visa"),
])
def test_phones_and_cards_beside_numbers_still_go(red: Any, text: str, value: str, rule: str) -> None:
    _gone(red, text, [value], rule)


def test_a_log_word_after_a_town_and_a_comma_is_no_address(red: Any) -> None:
    _kept(red, "BATH, STATUS E4 2QA\nYORK, STATUS D2 6UX\nPOOLE, STATUS Y7 1LW\n")


@pytest.mark.parametrize(("text", "value"), [
    ("MR J SMITH LONDON SW1A 1AA", "SW1A 1AA"),
    ("MRS A B JONES 10 ELM GROVE ALTRINCHAM WA14 1AA", "WA14 1AA"),
    ("10 ELM GROVE, ALTRINCHAM WA14 1AA", "WA14 1AA"),
    ("Flat 2, 10 Elm Grove, Altrincham WA14 1AA", "WA14 1AA"),
])
def test_an_address_label_in_capitals_still_loses_its_postcode(red: Any, text: str, value: str) -> None:
    _gone(red, text, [value], "uk-postcode-after-town")


# ---------------------------------------------------------------- the sweep

@pytest.mark.parametrize("seed", (25, 26))
def test_customer_data_shapes_lose_every_planted_value(red: Any, seed: int) -> None:
    survivors: list[tuple[str, str]] = []
    for name, (text, planted) in shapes(seed).items():
        out, _ = _redact(red, text)
        survivors += [(name, kind) for kind, values in planted.items() for v in values if v in out]
    assert survivors == [], Counter(survivors)


def test_the_benign_corpus_and_its_audit_only_shapes_keep_every_byte(red: Any) -> None:
    """fx_s24_precision's 40 shapes and its two audit-only ones (random integers in a diffed CSV, a
    log word after a town and a comma), with the names pack: only the five by-design titled names of
    the pytest shape (RULES.md) are taken."""
    taken: Counter[tuple[str, str]] = Counter()
    for shape, _seed, text in corpus((24,), audit=True):
        _, by_rule = _redact(red, text)
        taken.update({(shape, rule): n for rule, n in by_rule.items()})
    assert set(taken) <= {("pytest", "person-name-titled")}, taken
