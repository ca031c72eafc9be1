"""A national identifier stored as a JSON value or a SQLite cell under a key that names it.

The national-id rules (rules/pii.toml) know a bare number by the label beside it; a walker scans a
value alone unless its key is a secret name (walkers.SECRET_NAME), when it scans `"key": "value"`.
The identifiers' names are such names now; a key that merely holds the letters stays ordinary."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from archiver.redact.base import RedactionReport
from archiver.redact.redactor import RuleRedactor, build_redactor
from archiver.redact.rules import RuntimeTerms
from archiver.redact.walkers import SECRET_NAME

# valid numbers (check digits computed by tests/fx_s19_pii.py's generators)
VALUES = {
    "aadhaar": "7181 9093 7865",
    "sin": "291 417 772",
    "nino": "JK846319B",
    "pan": "AFZPK7190K",
    "cpf": "52998224725",
    "bsn": "111222333",
}


@pytest.fixture(scope="module")
def red() -> RuleRedactor:
    return build_redactor(["builtin:secrets", "builtin:pii", "builtin:paths"], b"k" * 32, RuntimeTerms())


@pytest.mark.parametrize("key", sorted(VALUES))
def test_a_json_value_under_its_name_is_redacted(red: RuleRedactor, key: str) -> None:
    line = json.dumps({"customer": "c-17", key: VALUES[key]}).encode()
    out = red.redact_jsonl_line(line, RedactionReport())
    doc = json.loads(out)
    assert doc["customer"] == "c-17"
    assert doc[key].startswith("<NATIONAL_ID:") and VALUES[key] not in out.decode()


@pytest.mark.parametrize("key", sorted(VALUES))
def test_a_sqlite_column_named_for_it_is_redacted(red: RuleRedactor, key: str, tmp_path: Path) -> None:
    src, dst = tmp_path / "a.db", tmp_path / "b.db"
    con = sqlite3.connect(src)
    con.execute(f"CREATE TABLE people (id INTEGER PRIMARY KEY, {key} TEXT)")
    con.execute("INSERT INTO people VALUES (1, ?)", (VALUES[key],))
    con.commit()
    con.close()
    red.redact_file(src, dst, "sqlite", RedactionReport())
    con = sqlite3.connect(dst)
    (value,) = con.execute(f"SELECT {key} FROM people").fetchone()
    con.close()
    assert value.startswith("<NATIONAL_ID:")
    assert VALUES[key].encode() not in dst.read_bytes()


@pytest.mark.parametrize("key", ["span", "sinh", "pandas", "niece", "className", "expand", "basin", "Dnio"])
def test_keys_that_only_hold_the_letters_are_no_secret_names(key: str) -> None:
    assert SECRET_NAME.search(key) is None


@pytest.mark.parametrize("key", ["aadhaar", "aadhar_no", "customer_sin", "pan_number", "CPF", "nie", "steuerId",
                                 "national_insurance", "socialInsurance", "insee_code", "bsn", "nir"])
def test_identifier_names_are_secret_names(key: str) -> None:
    assert SECRET_NAME.search(key) is not None


def test_ordinary_values_under_those_names_stay(red: RuleRedactor) -> None:
    line = b'{"pan": "left", "sin": 0.5, "nie": "n/a", "cpf": "", "bsn": "unknown"}'
    assert red.redact_jsonl_line(line, RedactionReport()) == line
