"""s26 national identifiers and phone numbers of countries the PII pack did not cover.

1. validators: each country's check (validators.no_fnr ... th_tnin, pt_nif) takes the values
   tests/fx_s26_ids.py generates with their check digits computed on their own, refuses each wrong-check
   twin, and national_id dispatches on the value's shape;
2. national-id-labelled: a value right after one of thirteen countries' labels goes; without a label,
   after a word that only contains one (`circuit`, `visa id`), or after `run`/`fin`/`tz`/`avs`, it stays;
3. tables: a column named for one of them (CSV, SQL INSERT) loses its valid cells, a `run` column its none;
   Portugal's NIF under `NIF:`/`contribuinte` and in a `nif` column;
4. phone-labelled-national: labels of more languages and national forms without a trunk 0;
5. the sweep: the s25/s26 PII shapes with planted ids (prose, .env, JSON, CSV, SQL INSERT, a Claude Code
   and a Codex record) lose every one (415 of 420 leaked before s26), and tests/fx_s24_precision.py's
   benign corpus keeps every byte.

Each positive came out unchanged before s26; each negative must come out byte for byte."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path
from typing import Any, Callable

import pytest

from archiver.redact import validators as V
from archiver.redact.base import RedactionReport
from archiver.redact.redactor import build_redactor
from archiver.redact.rules import RuntimeTerms
from tests import fx_s26_ids as F
from tests.fx_redact import redacted_file
from tests.fx_s24_precision import corpus

KEY = b"s26-ids-test-key-0123456789abcdef"
PACKS = ["builtin:secrets", "builtin:pii", "builtin:paths", "builtin:names"]
RULE = "national-id-labelled"


@pytest.fixture(scope="module")
def red() -> Any:
    return build_redactor(PACKS, KEY, RuntimeTerms(usernames=["alice"]))


def _redact(red: Any, text: str) -> tuple[str, dict[str, int]]:
    report = RedactionReport()
    return red.redact_text(text, report), report.by_rule()


def _kept(red: Any, text: str) -> None:
    out, by_rule = _redact(red, text)
    assert out == text and by_rule == {}, (out, by_rule)


# ---------------------------------------------------------------- 1. validators

CHECKS: dict[str, Callable[[str], bool]] = {
    "no": V.no_fnr, "fi": V.fi_hetu, "be": V.be_nn, "ch": V.ch_ahv, "tr": V.tr_tckn, "za": V.za_id, "il": V.il_tz,
    "sg": V.sg_nric, "nhs": V.uk_nhs, "medicare": V.au_medicare, "ar": V.ar_cuit, "cl": V.cl_rut, "th": V.th_tnin,
    "pt": V.pt_nif,
}


@pytest.mark.parametrize("country", sorted(CHECKS))
def test_each_check_takes_generated_values_and_refuses_their_wrong_check_twins(country: str) -> None:
    rng = random.Random(f"s26-ids-{country}")
    gen, check = F.IDS[country][0], CHECKS[country]
    for _ in range(300):
        good, bad = gen(rng)
        assert check(good), good
        assert not check(bad), bad
        if country != "pt":
            assert V.national_id(good), good
        else:
            assert V.tax_reference(good), good


@pytest.mark.parametrize(("name", "value", "ok"), [
    # published or hand-checked examples
    ("uk_nhs", "943 476 5919", True), ("uk_nhs", "943 476 5918", False), ("uk_nhs", "0000000000", False),
    ("sg_nric", "S1234567D", True), ("sg_nric", "S1234567A", False), ("sg_nric", "X1234567D", False),
    ("tr_tckn", "10000000146", True), ("tr_tckn", "10000000147", False), ("tr_tckn", "01234567890", False),
    ("za_id", "8001015009087", True), ("za_id", "8013015009087", False), ("za_id", "8001015009088", False),
    ("il_tz", "000000018", True), ("il_tz", "000000019", False), ("il_tz", "000000000", False),
    ("fi_hetu", "131052-308T", True), ("fi_hetu", "131052-308U", False), ("fi_hetu", "131352-308T", False),
    ("fi_hetu", "131052Z308T", False), ("fi_hetu", "131052-001T", False),
    ("no_fnr", "15076500565", True), ("no_fnr", "15076500566", False), ("no_fnr", "15136500565", False),
    ("be_nn", "85.07.30-033.28", True), ("be_nn", "85.07.30-033.29", False), ("be_nn", "85.13.30-033.28", False),
    ("ch_ahv", "756.9217.0769.85", True), ("ch_ahv", "756.9217.0769.86", False), ("ch_ahv", "757.9217.0769.85", False),
    ("au_medicare", "2123 45670 1", True), ("au_medicare", "1123 45670 1", False), ("au_medicare", "2123 45671 1", False),
    ("ar_cuit", "20-12345678-6", True), ("ar_cuit", "20-12345678-7", False), ("ar_cuit", "21-12345678-6", False),
    ("cl_rut", "12.345.678-5", True), ("cl_rut", "12.345.678-K", False), ("cl_rut", "12345678-5", True),
    ("cl_rut", "1.345.678-5", False),
    ("th_tnin", "1-1017-00230-70-8", True), ("th_tnin", "1-1017-00230-70-9", False), ("th_tnin", "9101700230708", False),
    ("pt_nif", "123456789", True), ("pt_nif", "123456788", False), ("pt_nif", "403504564", False),
    ("national_id", "131052-308T", True), ("national_id", "S1234567D", True), ("national_id", "12.345.678-5", True),
    ("national_id", "1234567890", False), ("national_id", "1718035200123", False), ("national_id", "11111111111", False),
    ("national_id", "123456789012", False), ("national_id", "", False), ("national_id", "ab", False),
])
def test_validator_examples(name: str, value: str, ok: bool) -> None:
    assert getattr(V, name)(value) is ok


# ---------------------------------------------------------------- 2. the labelled rule

LABELLED = [
    ("Fødselsnummer: 15076500565", "15076500565"),
    ("kundens fodselsnummer er oppdatert; FNR: 15076500565", "15076500565"),
    ('{"fnr": "15076500565"}', "15076500565"),
    ("henkilötunnus 131052-308T", "131052-308T"),
    ("HETU: 131052-308T", "131052-308T"),
    ("Rijksregisternummer: 85.07.30-033.28", "85.07.30-033.28"),
    ("numéro de registre national : 85073003328", "85073003328"),
    ("INSZ 85.07.30-033.28", "85.07.30-033.28"),
    ("AHV-Nr. 756.9217.0769.85", "756.9217.0769.85"),
    ("numéro AVS : 756.9217.0769.85", "756.9217.0769.85"),
    ("T.C. Kimlik No: 10000000146", "10000000146"),
    ("MUSTERI_TCKN=10000000146", "10000000146"),
    ("SA ID number: 8001015009087", "8001015009087"),
    ("Teudat Zehut: 000000018", "000000018"),
    ("תעודת זהות: 000000018", "000000018"),
    ("NRIC: S1234567D", "S1234567D"),
    ("NRIC/FIN no. T0066846F", "T0066846F"),
    ("NHS number: 943 476 5919", "943 476 5919"),
    ("NHS No. 4505577104", "4505577104"),
    ("patient_nhs_number=9434765919", "9434765919"),
    ("Medicare number: 2123 45670 1", "2123 45670 1"),
    ("CUIT: 20-12345678-6", "20-12345678-6"),
    ("C.U.I.L. 20123456786", "20123456786"),
    ("RUT: 12.345.678-5", "12.345.678-5"),
    ("rut: 12345678-5", "12345678-5"),
    ("Thai ID: 1-1017-00230-70-8", "1-1017-00230-70-8"),
    ("เลขประจำตัวประชาชน 1101700230708", "1101700230708"),
]


@pytest.mark.parametrize(("text", "value"), LABELLED)
def test_a_labelled_national_id_goes(red: Any, text: str, value: str) -> None:
    out, by_rule = _redact(red, text)
    assert value not in out and by_rule.get(RULE, 0) == 1, (out, by_rule)
    assert out.startswith(text[:text.index(value)]) and "<NATIONAL_ID:" in out  # the label stays


@pytest.mark.parametrize("text", [
    "15076500565",  # no label: a bare number is an id, a count, a timestamp
    "order 10000000146 shipped",
    "S1234567D",
    "Fødselsnummer: 15076500566",
    "NHS number: 943 476 5918",
    "NHS England 2024 report 9434765919",
    "nhs_number = 1718035200",
    "NHS number: 9434765919.5",
    "circuit: 20-12345678-6",
    "visa id: 8001015009087",
    "brut: 12.345.678-5",
    "run: 12.345.678-5",
    "=== RUN   12345678-5",
    "fin: S1234567D",
    "AVS: 756.9217.0769.85",
    "TZ: 000000018",
    "Medicare number: 1123 45670 1",
    "personnummer 0d4f5b8e-9c3a-4e7b-8f21-6a5d3c2b1e0f",
    "hetu: 9fceb02d0ae598e95dc970b74767f19372d61af8",
    "NRIC lookup took 1718035200123 ms",
])
def test_without_a_label_or_a_valid_check_it_stays(red: Any, text: str) -> None:
    _kept(red, text)


# ---------------------------------------------------------------- 3. tables and Portugal's NIF

def test_a_csv_column_named_for_a_national_id_loses_its_valid_cells(red: Any) -> None:
    text = ("id,name,nhs_number,run,tckn\n1,Ottilie Quillfeather,9434765919,123456782,10000000146\n"
            "2,Benedek Szalontai,n/a,9434765927,10000000147\n")
    out, by_rule = _redact(red, text)
    assert out.startswith("id,name,nhs_number,run,tckn\n1,<PERSON:") or out.startswith("id,name,nhs_number,run,tckn\n1,Ottilie")
    line1, line2 = out.splitlines()[1:3]
    assert "9434765919" not in line1 and "10000000146" not in line1 and ",123456782," in line1
    # n/a, a run id (another number: the NHS number of row 1 would be its echo, echoes.py), a wrong check digit
    assert line2.endswith(",n/a,9434765927,10000000147")
    assert by_rule.get(RULE) == 2


def test_an_insert_naming_a_national_id_column_loses_its_value(red: Any) -> None:
    text = ("INSERT INTO clientes (id, plan, cliente_rut) VALUES (1, 'Pro', '12.345.678-5'), (2, 'Free', '12.345.678-K');\n")
    out, by_rule = _redact(red, text)
    assert "12.345.678-5" not in out and "'12.345.678-K');" in out and by_rule.get(RULE) == 1, (out, by_rule)


@pytest.mark.parametrize(("text", "value"), [
    ("NIF: 123456789", "123456789"),
    ("número de contribuinte: 503 504 564", "503 504 564"),
    ("nome;nif\nOttilie Quillfeather;503504564\n", "503504564"),
    ("id,contribuinte\n7,123456789\n", "123456789"),
])
def test_a_portuguese_nif_goes(red: Any, text: str, value: str) -> None:
    out, by_rule = _redact(red, text)
    assert value not in out and by_rule.get("tax-reference-labelled") == 1, (out, by_rule)


@pytest.mark.parametrize("text", ["NIF: 123456788", "id,contribuinte\n7,n/a\n", "nome;nif\nA;123456788\n"])
def test_a_nif_with_a_wrong_check_digit_stays(red: Any, text: str) -> None:
    _kept(red, text)


# ---------------------------------------------------------------- 4. phones

@pytest.mark.parametrize(("text", "value"), [
    ("Mobile No: 9876543210", "9876543210"),
    ("Mobile No: 0917-123-4567", "0917-123-4567"),
    ("手机: 13812345678", "13812345678"),
    ("手机号 138 1234 5678", "138 1234 5678"),
    ("携帯: 090-1234-5678", "090-1234-5678"),
    ("電話番号: 03-1234-5678", "03-1234-5678"),
    ("전화: 010-1234-5678", "010-1234-5678"),
    ("mobiel: 06-12345678", "06-12345678"),
    ("mobil: 412 34 567", "412 34 567"),
    ("телефон: 8 (912) 345-67-89", "8 (912) 345-67-89"),
    ("טלפון: 052-1234567", "052-1234567"),
    ("phone: 98765 43210", "98765 43210"),
    ("móvil: 612 34 56 78", "612 34 56 78"),
    ("teléfono: 612345678", "612345678"),
    ("cellulare: 347 123 4567", "347 123 4567"),
    ("tlf. 412 34 567 (hverdager)", "412 34 567"),
])
def test_a_labelled_national_phone_goes(red: Any, text: str, value: str) -> None:
    out, by_rule = _redact(red, text)
    assert value not in out and by_rule.get("phone-labelled-national") == 1, (out, by_rule)


@pytest.mark.parametrize("text", [
    "tel: 20240115", "phone_count: 4155550123", "mobile 4155550123.5", "telemetry 4155550123", "contact: 4155550123",
    "Telefon: 2024-01-15", "mob spawn 2024 01 15", "автомобиль 4155550123", "Mobile 01/15",
])
def test_a_number_that_is_no_phone_stays(red: Any, text: str) -> None:
    _kept(red, text)


# ---------------------------------------------------------------- 5. the sweep

def _leaks(red: Any, folder: Path, seed: int) -> list[tuple[str, str]]:
    survivors: list[tuple[str, str]] = []
    for name, (text, planted) in F.shapes(seed).items():
        if name.endswith("-record"):
            raw, _ = redacted_file(red, folder, f"{name}.jsonl", text.encode() + b"\n")
            out = json.dumps(json.loads(raw), ensure_ascii=False)  # the record still parses
            out += raw.decode()
        else:
            out, _ = _redact(red, text)
        survivors += [(name, c) for c, values in planted.items() for v in values if v in out]
    return survivors


@pytest.mark.parametrize("seed", (26, 27))
def test_planted_ids_in_every_shape_are_gone(red: Any, tmp_path: Path, seed: int) -> None:
    assert _leaks(red, tmp_path, seed) == []


def test_the_claude_record_keeps_its_envelope(red: Any, tmp_path: Path) -> None:
    text, planted = F.shapes(26)["claude-record"]
    raw, by_rule = redacted_file(red, tmp_path, "c.jsonl", text.encode() + b"\n")
    rec = json.loads(raw)
    assert rec["uuid"] == "2f1c3a4e-8b7d-4c1e-9a0b-5d6e7f8a9b0c" and rec["message"]["content"][0]["tool_use_id"] == "toolu_01ABCDEF"
    content = rec["message"]["content"][0]["content"]
    assert content.count("<NATIONAL_ID:") == 13 and content.count("<TAX_ID:") == 1, content
    assert by_rule.get(RULE) == 13


def test_the_benign_corpus_keeps_every_byte(red: Any) -> None:
    """fx_s24_precision's shapes and its audit-only ones: only the by-design titled names of the pytest
    shape are taken (as in test_s25_pii), nothing by a rule s26 widened."""
    taken: Counter[tuple[str, str]] = Counter()
    for shape, _seed, text in corpus((24,), audit=True):
        _, by_rule = _redact(red, text)
        taken.update({(shape, rule): n for rule, n in by_rule.items()})
    assert set(taken) <= {("pytest", "person-name-titled")}, taken
