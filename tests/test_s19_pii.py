"""National identifiers (rules/pii.toml, the validators of archiver/redact/validators.py): each
format's validator alone on known-good and known-bad values; generated valid numbers (check digit
computed by tests/fx_s19_pii.py) in a CSV, a JSON fixture read as text, a log line, a labelled
sentence and a Claude Code tool_result are gone after the real redactor, found by the format's
rule; the same contexts with a wrong check digit, and ordinary ids in strings that name every
identifier, come out byte for byte."""

from __future__ import annotations

import json
import random

import pytest

from archiver.redact.base import RedactionReport
from archiver.redact.validators import VALIDATORS
from tests.fx_redact import builtin_redactor
from tests.fx_s19_pii import (FORMATS, LOOKALIKES, NATIONAL, Format, csv_text, json_fixture, log_line, prose,
                              tool_result_line)

KEY = b"s19-pii-test-key-0123456789abcdefgh"
SEEDS = (19, 7, 2026)


@pytest.fixture(scope="module")
def red():  # noqa: ANN201
    return builtin_redactor(KEY, ["zelda"])


# ------------------------------------------------------------------ validators alone

GOOD_BAD = [
    ("uk_nino", "AB 12 34 56 C", True), ("uk_nino", "JK846319B", True), ("uk_nino", "QQ123456C", False),
    ("uk_nino", "GB123456A", False), ("uk_nino", "AO123456A", False), ("uk_nino", "AB123456E", False),
    ("uk_nino", "AB 123456 C", False), ("uk_nino", "ab123456c", False),
    ("ca_sin", "291 417 772", True), ("ca_sin", "663-170-660", True), ("ca_sin", "291 417 773", False),
    ("ca_sin", "046 454 286", False), ("ca_sin", "891 417 772", False), ("ca_sin", "29141777", False),
    ("aadhaar", "7181 9093 7865", True), ("aadhaar", "997543231948", True), ("aadhaar", "7181 9093 7866", False),
    ("aadhaar", "1181 9093 7865", False), ("aadhaar", "23456789012", False), ("aadhaar", "2345x6789012", False),
    ("in_pan", "BNZPM2501F", True), ("in_pan", "ABCDE1234F", False), ("in_pan", "BNZPM0000F", False),
    ("in_pan", "bnzpm2501f", False), ("in_pan", "AAAAA1234A", False),
    ("br_cpf", "529.982.247-25", True), ("br_cpf", "61558847146", True), ("br_cpf", "529.982.247-26", False),
    ("br_cpf", "111.111.111-11", False), ("br_cpf", "5299822472", False),
    ("es_dni", "12345678Z", True), ("es_dni", "X1234567L", True), ("es_dni", "Y1289161W", True),
    ("es_dni", "87915890-T", True), ("es_dni", "12345678A", False), ("es_dni", "X1234567M", False),
    ("es_dni", "00000000T", False),
    ("de_idnr", "86095742719", True), ("de_idnr", "65929970489", True), ("de_idnr", "86 095 742 719", True),
    ("de_idnr", "86095742710", False), ("de_idnr", "12345678901", False), ("de_idnr", "31114052968", False),
    ("de_idnr", "06095742719", False),
    ("nl_bsn", "111222333", True), ("nl_bsn", "123456782", True), ("nl_bsn", "5922.63.800", True),
    ("nl_bsn", "111222334", False), ("nl_bsn", "000000000", False), ("nl_bsn", "12345678", False),
    ("fr_nir", "2 69 05 49 588 157 80", True), ("fr_nir", "184127645108946", True),
    ("fr_nir", "1 84 12 2A 451 089 33", True), ("fr_nir", "2 69 05 49 588 157 81", False),
    ("fr_nir", "5 69 05 49 588 157 80", False), ("fr_nir", "18412764510894", False),
    ("passport", "C01X00T47", True), ("passport", "K7492051", True), ("passport", "123456789", False),
    ("passport", "AAAAAAAA", False), ("passport", "C0000000", False), ("passport", "c01x00t47", False),
    ("passport", "ABC123", False),
]


@pytest.mark.parametrize("name,value,ok", GOOD_BAD, ids=[f"{n}-{v}" for n, v, _ in GOOD_BAD])
def test_validator_alone(name: str, value: str, ok: bool) -> None:
    assert VALIDATORS[name](value) is ok


@pytest.mark.parametrize("f", FORMATS, ids=[f.name for f in FORMATS])
def test_generated_values_pass_their_validator_and_twins_fail(f: Format) -> None:
    validator = {"uk-nino": "uk_nino", "ca-sin": "ca_sin", "in-aadhaar": "aadhaar", "in-pan": "in_pan",
                 "br-cpf": "br_cpf", "es-dni": "es_dni", "es-nie": "es_dni", "de-steuer-id": "de_idnr",
                 "nl-bsn": "nl_bsn", "fr-nir": "fr_nir", "passport": "passport"}[f.name]
    rng = random.Random(f.name)
    for _ in range(200):
        good, bad = f.gen(rng)
        assert VALIDATORS[validator](good), good
        assert not VALIDATORS[validator](bad), bad


# ------------------------------------------------------------------ through the redactor

def _contexts(f: Format, value: str, other: str) -> dict[str, str]:
    out = {"json-fixture": json_fixture(f, value), "log": log_line(f, value), "prose": prose(f, value)}
    if f.column:
        out["csv"] = csv_text(f, value, other)
    return out


CASES = [(f, seed) for f in FORMATS for seed in SEEDS]
CASE_IDS = [f"{f.name}-{seed}" for f, seed in CASES]


@pytest.mark.parametrize("f,seed", CASES, ids=CASE_IDS)
def test_valid_numbers_are_gone(red, f: Format, seed: int) -> None:  # noqa: ANN001
    rng = random.Random(seed)
    (value, _), (other, _) = f.gen(rng), f.gen(rng)
    for where, text in _contexts(f, value, other).items():
        report = RedactionReport()
        out = red.redact_text(text, report)
        assert value not in out, (where, out)
        if where == "csv":
            assert other not in out, (where, out)
        found = report.by_rule()
        assert set(found) & f.rules, (where, found)
        assert set(found) <= f.rules | {"email"}, (where, found)  # nothing else of the line is taken
        line = tool_result_line(text)
        out_line = red.redact_jsonl_line(line, RedactionReport())
        assert value.encode() not in out_line, where
        rec = json.loads(out_line)
        assert rec["toolUseResult"]["stdout"] == rec["message"]["content"][0]["content"]


@pytest.mark.parametrize("f,seed", CASES, ids=CASE_IDS)
def test_wrong_check_digits_stay(red, f: Format, seed: int) -> None:  # noqa: ANN001
    rng = random.Random(seed)
    (_, bad), (_, bad2) = f.gen(rng), f.gen(rng)
    for where, text in _contexts(f, bad, bad2).items():
        report = RedactionReport()
        assert red.redact_text(text, report) == text, where
        assert not set(report.by_rule()) & NATIONAL, (where, report.by_rule())
        line = tool_result_line(text)
        assert red.redact_jsonl_line(line, RedactionReport()) == line, where


def test_lookalikes_stay_byte_for_byte(red) -> None:  # noqa: ANN001
    report = RedactionReport()
    assert red.redact_text(LOOKALIKES, report) == LOOKALIKES
    assert report.by_rule() == {}
    line = tool_result_line(LOOKALIKES)
    assert red.redact_jsonl_line(line, RedactionReport()) == line


def test_lookalikes_line_by_line_stay(red) -> None:  # noqa: ANN001
    """Each line alone (a string of its own in a JSON record) opens only its own keyword gates."""
    for text in LOOKALIKES.splitlines():
        assert red.redact_text(text, RedactionReport()) == text, text


def test_a_value_next_to_a_lookalike_goes_alone(red) -> None:  # noqa: ANN001
    text = ("aadhaar verify: uid=7181 9093 7865 aws_account=123456789012 epoch_ms=1718035200123 "
            "request_id=0d4f5b8e-9c3a-4e7b-8f21-6a5d3c2b1e0f")
    report = RedactionReport()
    out = red.redact_text(text, report)
    assert report.by_rule() == {"in-aadhaar": 1}
    head, tail = text.split("7181 9093 7865")
    assert out.startswith(head) and out.endswith(tail)
    assert out[len(head):len(out) - len(tail)].startswith("<NATIONAL_ID:")


def test_the_same_number_gets_the_same_token(red) -> None:  # noqa: ANN001
    a = red.redact_text("CPF: 529.982.247-25", RedactionReport())
    b = red.redact_text("cliente 529.982.247-25 ok", RedactionReport())
    token = a.split("CPF: ", 1)[1]
    assert token.startswith("<NATIONAL_ID:") and token in b
