"""s24 precision audit at volume: BENIGN developer content of 40 shapes (lockfiles, source maps,
minified JS/CSS, test and build output, stack traces, git log/diff, docker/kubectl, Terraform,
CloudFormation, Prometheus, CSV, API responses full of ids, timestamps, process listings, hex dumps,
SQL, protobuf text, notebooks, versions, log lines in capitals; tests/fx_s24_precision.py) comes
out of the built-in packs byte for byte, as text and as a Claude Code tool_result. Then one test
per false-positive class this audit fixed (each fails on the rules before it), beside the real
values of the same shape that still go:

1. uk-postcode-after-town: a town in capitals after another word in capitals on a log line
   (`WARN SENSOR CHESTER M3 1AE`, `STEP READING` / `M1 1AE ENDED`);
2. phone-e164: a number no numbering plan has (`+7` and 12 digits opening a diff's CSV row, a
   `+YYYYMMDDhhmmss` migration version, an unassigned country code);
3. card rules: 64-bit numbers keyed as a fingerprint, sequence, quadkey, checksum or digest;
4. au-tfn: a nine-digit number in a list of numbers, or assigned to a one-letter name (minified
   code), in a string that names a TFN anywhere;
5. word keywords: a keyword in letters of mixed case inside a random id (`...41CpR`) arms no rule.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from archiver.redact.base import RedactionReport
from tests.fx_redact import builtin_redactor, gone, kept, redacted
from tests.fx_s24_precision import SHAPES, shapes, tool_result_line

KEY = b"s24-precision-test-key-0123456789abcdef"
SEEDS = (24, 7)


@pytest.fixture(scope="module")
def red() -> Any:
    return builtin_redactor(KEY)


@pytest.fixture(scope="module")
def texts() -> dict[int, dict[str, str]]:
    return {seed: shapes(seed) for seed in SEEDS}


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_a_benign_text_stays_byte_for_byte(red: Any, texts: dict[int, dict[str, str]], shape: str, seed: int) -> None:
    text = texts[seed][shape]
    report = RedactionReport()
    assert red.redact_text(text, report) == text
    assert report.by_rule() == {}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_a_benign_tool_result_stays_byte_for_byte(red: Any, texts: dict[int, dict[str, str]], shape: str) -> None:
    """A nested JSON document's integer is judged by its key's last word (walkers/jsondoc.py
    _NUMBER_NOT_DATA lists `sequence` since s24): api-json's sequence numbers stay too."""
    text = texts[SEEDS[0]][shape]
    line = tool_result_line(text)
    report = RedactionReport()
    assert red.redact_jsonl_line(line, report) == line
    assert report.by_rule() == {}


def test_a_sequence_number_in_a_nested_json_is_no_card(red: Any) -> None:
    text = json.dumps({"data": [{"id": "a", "sequence": 4929417783160752121}]}, indent=2)
    line = tool_result_line(text)
    assert red.redact_jsonl_line(line, RedactionReport()) == line


# ------------------------------------------------------------------ 1. postcodes in log lines
@pytest.mark.parametrize("text", [
    "2026-03-07T10:00:01.123Z WARN  SENSOR CHESTER M3 1AE\n",
    "2026-03-07T10:00:01.123Z DEBUG BUS HULL E1 1AA FROM BUS\n",
    "MAINFRAME JOB NIGHTLY STEP READING\nM1 1AE ENDED RC=0000\n",
    "JOB ETL STEP BATH\r\nBA1 1AA ENDED RC=0000\r\n",
])
def test_a_town_in_capitals_on_a_log_line_is_no_address(red: Any, text: str) -> None:
    assert kept(red, text) == {}
    line = tool_result_line(text)
    assert red.redact_jsonl_line(line, RedactionReport()) == line


@pytest.mark.parametrize("text,value", [
    ("MR J SMITH\n10 ELM GROVE\nMANCHESTER M1 1AE\n", "M1 1AE"),
    ("MR J SMITH\n10 ELM GROVE\nMANCHESTER\nM1 1AE\n", "M1 1AE"),
    ("10 ELM GROVE, LONDON SW1A 1AA", "SW1A 1AA"),
    ("10 ELM GROVE LONDON SW1A 1AA", "SW1A 1AA"),
    ("4 HIGH STREET ALTRINCHAM WA14 1AA", "WA14 1AA"),
    ("MILTON KEYNES MK9 2AB", "MK9 2AB"),
    ("ST ALBANS AL1 3JE", "AL1 3JE"),
    ("KINGSTON UPON THAMES KT1 1AA", "KT1 1AA"),
    ("Ship to: Further Reading M1 1AE", "M1 1AE"),
])
def test_an_envelope_in_capitals_still_goes(red: Any, text: str, value: str) -> None:
    out = gone(red, text, value, "uk-postcode-after-town")
    assert re.fullmatch(re.escape(text).replace(re.escape(value), "<POSTCODE:[0-9a-f]{8}>"), out), out


# ------------------------------------------------------------------ 2. numbers no numbering plan has
@pytest.mark.parametrize("text", [
    "@@ -1,3 +1,3 @@\n-2344421598103,61,4.5\n+7933403083171,3,0.25\n+7480595231307,4,0.5\n",
    "diff --git a/db/versions.txt b/db/versions.txt\n@@ -1 +1,3 @@\n+20240307140211\n+20251130235959\n",
    "+2812345678901\n+8312345678901\n+4221234567890\n",
    "+33612345678901 +3461234567890 +4470090012345 +4512345678901\n",
])
def test_a_number_no_numbering_plan_has_is_no_phone(red: Any, text: str) -> None:
    assert kept(red, text) == {}


@pytest.mark.parametrize("text,value", [
    ("+79161234567", "+79161234567"),
    ("@@ -1 +1 @@\n-old\n++79161234567\n", "+79161234567"),
    ("+33612345678,Claire", "+33612345678"),
    ("+447700900123", "+447700900123"),
    ("+4915123456789", "+4915123456789"),
    ("+393471234567", "+393471234567"),
    ("+523456789012", "+523456789012"),
    ("+2348031234567", "+2348031234567"),
])
def test_a_phone_of_a_plan_still_goes(red: Any, text: str, value: str) -> None:
    gone(red, text, value, "phone-e164")


# ------------------------------------------------------------------ 3. keyed 64-bit numbers and cards
@pytest.mark.parametrize("text", [
    "entries {\n  id: 12\n  fingerprint: 4386851233707735417\n}\n",
    '{"sequence": 4929417783160752121, "seq_no": 4111111111111111}',
    'quadkey: "2221334455667784", checksum: 5105105105105100, digest=4012888888881881',
])
def test_a_keyed_hash_or_counter_is_no_card(red: Any, text: str) -> None:
    assert kept(red, text) == {}


@pytest.mark.parametrize("text,value,rule", [
    ("fingerprint: 12\ncard: 4111 1111 1111 1111\n", "4111 1111 1111 1111", "credit-card-visa"),
    ('{"sequence": 7, "number": "5105105105105100"}', "5105105105105100", "credit-card-mastercard"),
])
def test_a_card_beside_them_still_goes(red: Any, text: str, value: str, rule: str) -> None:
    gone(red, text, value, rule)


# ------------------------------------------------------------------ 4. au-tfn in minified code
@pytest.mark.parametrize("text", [
    'o="#1075de",i="tfnHeS";t.k7=[812322234,123456782,3882494985,404543271]',
    'i="tfnHeS",a=123456782,o=1',
])
def test_a_number_of_a_list_in_code_is_no_tfn(red: Any, text: str) -> None:
    assert kept(red, text) == {}


@pytest.mark.parametrize("text", ["TFN 123 456 782", "tfn=123456782", '{"tfn": "123456782"}'])
def test_a_tfn_still_goes(red: Any, text: str) -> None:
    out, by_rule = redacted(red, text)
    assert "782" not in out and by_rule == {"au-tfn": 1}


# ------------------------------------------------------------------ 5. keywords inside random ids
def test_a_keyword_in_mixed_case_inside_an_id_arms_no_rule(red: Any) -> None:
    text = ('{"invoice": "in_1Q264zEJlbRAXNOX9WB41CpR",\n "created": 1701996998,\n "amount": 4200}\n'
            '{"request": "req_8TfNq", "n": 123456782}\n')
    assert kept(red, text) == {}


@pytest.mark.parametrize("text,value", [
    ("CPR-nr. 070761-4285", "070761-4285"),
    ('{"cpr": "1701996998"}', "1701996998"),
    ('{"customerCpr": "1701996998"}', "1701996998"),
    ('{"Cpr": "1701996998"}', "1701996998"),
])
def test_a_cpr_named_in_words_still_goes(red: Any, text: str, value: str) -> None:
    gone(red, text, value, "dk-cpr")
