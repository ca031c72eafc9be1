"""An integer under a key naming a random or derived number (a seed, a nonce, a checksum, a
timestamp) is not scanned: a 16-digit seed after a card prefix passes Luhn one time in ten,
and the card rules would take it. Any other key still has its card numbers redacted."""

from __future__ import annotations

import json

import pytest

from archiver.redact.base import RedactionReport
from archiver.redact.redactor import RuleRedactor, build_redactor
from archiver.redact.rules import RuntimeTerms
from archiver.redact.walkers.jsondoc import _random_number_key

SEEDLIKE = 4539148803436467  # Visa prefix, Luhn-valid: what a card rule takes


@pytest.fixture(scope="module")
def red() -> RuleRedactor:
    r = build_redactor(["builtin:secrets", "builtin:pii", "builtin:paths"], b"\x01" * 32, RuntimeTerms())
    assert isinstance(r, RuleRedactor)
    return r


@pytest.mark.parametrize("key", ["seed", "random_seed", "torchSeed", "SEED", "nonce", "crc32", "checksum",
                                 "x-seed", "hash", "createdTs", "timestamp_ms"])
def test_a_seed_like_key_keeps_its_number(red: RuleRedactor, key: str) -> None:
    line = json.dumps({"type": "tool_result", "output": {key: SEEDLIKE, "card": SEEDLIKE}}).encode()
    report = RedactionReport()
    doc = json.loads(red.redact_jsonl_line(line, report))
    assert doc["output"][key] == SEEDLIKE
    assert doc["output"]["card"].startswith("<CREDIT_CARD:")
    assert report.counts == {("credit-card-visa", "jsonl"): 1}


@pytest.mark.parametrize("key", ["card", "cardNumber", "number", "pan", "seedling", "hashseed", "value", "n"])
def test_other_keys_have_their_card_numbers_redacted(red: RuleRedactor, key: str) -> None:
    line = json.dumps({"rows": [{key: SEEDLIKE}]}).encode()
    doc = json.loads(red.redact_jsonl_line(line, RedactionReport()))
    assert doc["rows"][0][key].startswith("<CREDIT_CARD:")


def test_a_seed_inside_a_json_string_keeps_its_number_too(red: RuleRedactor) -> None:
    inner = json.dumps({"seed": SEEDLIKE, "pan": SEEDLIKE})
    line = json.dumps({"type": "tool_result", "content": inner}).encode()
    doc = json.loads(red.redact_jsonl_line(line, RedactionReport()))
    got = json.loads(doc["content"])
    assert got["seed"] == SEEDLIKE and got["pan"].startswith("<CREDIT_CARD:")


@pytest.mark.parametrize(("key", "want"), [("seed", True), ("my_seed", True), ("mySeed", True), ("SEED_VALUE", False),
                                           ("seeds", True), ("seedling", False), ("hashseed", False), ("", False),
                                           ("Nonce", True), ("CRC32", True), ("amount", False)])
def test_the_last_word_of_the_key_decides(key: str, want: bool) -> None:
    assert _random_number_key(key) is want
