"""An int64 written as a JSON string (protobuf's JSON mapping: `"sizeBytes": "4012888888881881"`,
OpenTelemetry's `"timeUnixNano": "..."`) under a key naming a count, a size, a duration or a
random/derived number is passed over as the same integer written as a number is: one such number
in ten passes Luhn. The same digits under any other key are still a card."""

from __future__ import annotations

import json
from typing import Any

import pytest

from archiver.redact.base import RedactionReport
from tests.fx_redact import builtin_redactor

KEY = b"s30-int64-strings-team-key-0123456"
# Luhn-valid numbers the card rules take (Visa, Amex, Mastercard, Discover test ranges)
CARDS = ["4012888888881881", "378282246310005", "5105105105105100", "6011111111111117"]
MEASURE_KEYS = ["sizeBytes", "bytes", "file_size", "inode", "elapsed_ns", "durationNanos", "build_number",
                "timeUnixNano", "startTimeUnixNano", "seed", "checksum", "blockCount"]


@pytest.fixture(scope="module")
def red() -> Any:
    return builtin_redactor(KEY)


def _line(red: Any, doc: dict[str, Any]) -> dict[str, Any]:
    out = red.redact_jsonl_line(json.dumps(doc).encode(), RedactionReport())
    return json.loads(out)  # type: ignore[no-any-return]


@pytest.mark.parametrize("card", CARDS)
def test_digits_under_a_measure_key_stay_as_they_are(red: Any, card: str) -> None:
    doc = {"resource": {k: card for k in MEASURE_KEYS}}
    assert _line(red, doc) == doc


@pytest.mark.parametrize("card", CARDS)
def test_the_same_digits_under_other_keys_are_still_a_card(red: Any, card: str) -> None:
    doc = {"card_number": card, "pan": card, "value": card, "note": f"charged {card}", "cardNumber": card}
    out = _line(red, doc)
    for k in doc:
        assert card not in out[k], (k, out[k])
        assert "CREDIT_CARD" in out[k] or "CARD" in out[k], (k, out[k])


def test_only_a_whole_decimal_string_is_passed_over(red: Any) -> None:
    card = CARDS[0]
    for text in (f"{card} ", f"paid with {card}", f"{card}\n", f"{card[:4]} {card[4:8]} {card[8:12]} {card[12:]}"):
        neutral = _line(red, {"note": text})["note"]
        assert card[-4:] not in neutral  # text with the digits is a card there...
        assert _line(red, {"sizeBytes": text})["sizeBytes"] == neutral  # ... and under a measure key too


def test_a_measure_string_in_an_otel_span_record(red: Any) -> None:
    span = {"traceId": "5b8efff798038103d269b633813fc60c", "spanId": "eee19b7ec3c1b174",
            "name": "charge", "startTimeUnixNano": "6011111111111117", "endTimeUnixNano": "4012888888881881",
            "attributes": [{"key": "payment.card", "value": {"stringValue": "4012888888881881"}}]}
    out = _line(red, span)
    assert out["startTimeUnixNano"] == "6011111111111117" and out["endTimeUnixNano"] == "4012888888881881"
    assert out["traceId"] == span["traceId"] and out["spanId"] == span["spanId"]
    assert "4012888888881881" not in out["attributes"][0]["value"]["stringValue"]
