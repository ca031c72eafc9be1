"""Session 33: a private key written as a list of its bytes inside a parsed JSON document.

A Solana keypair (`[12,200,...]`, 64 values 0..255) or an ed25519 seed (32) under a field of a
JSON document the walker parses (a transcript record's field, JSON inside a tool result, an SQLite
JSON cell, a JSON sidecar file) was never scanned: the walker hands strings to the rules, and
integers only when they are long. Now such a list is scanned as the text solana-keygen writes
(`[12,200,...]`) and, when `byte-array-private-key` takes it, replaced by the string redaction makes
of it; lists that are no key (few distinct values, no three-digit value, another length) stay
lists, byte for byte.
"""

from __future__ import annotations

import json
import os
import random
import tempfile
from pathlib import Path
from typing import Any

import pytest

from archiver.redact.base import RedactionReport
from archiver.redact.pseudonym import Pseudonymizer
from tests.fx_redact import builtin_redactor
from tests.fx_redteam import redact_sqlite_cell
from tests.fx_s25_recall import claude_tool_result

KEY = b"s33-nested-byte-keys-team-key-012345"
_rng = random.Random(33)
SOL = [_rng.randrange(256) for _ in range(64)]
SEED = [_rng.randrange(256) for _ in range(32)]
TEXT_SOL = "[" + ",".join(map(str, SOL)) + "]"
TEXT_SEED = "[" + ",".join(map(str, SEED)) + "]"


@pytest.fixture(scope="module")
def red():  # noqa: ANN201
    return builtin_redactor(KEY)


def _token(values: list[int]) -> str:
    return "[" + Pseudonymizer(KEY).token("PRIVATE_KEY", ",".join(map(str, values))) + "]"


def _redacted_doc(red: Any, carrier: str, doc: Any) -> Any:
    """`doc` after a trip through `carrier`, parsed back."""
    report = RedactionReport()
    text = json.dumps(doc)
    if carrier == "record":  # a field of a transcript record
        line = red.redact_jsonl_line(json.dumps({"type": "user", "toolUseResult": doc}).encode(), report)
        return json.loads(line)["toolUseResult"]
    if carrier == "json-in-string":  # a Read result showing the JSON file
        rec = json.loads(red.redact_jsonl_line(claude_tool_result(text).encode(), report))
        return json.loads(rec["message"]["content"][0]["content"])
    if carrier == "json-file":
        with tempfile.TemporaryDirectory(prefix="s33-bytes-") as d:
            os.chmod(d, 0o700)
            src, dst = Path(d, "in"), Path(d, "out")
            src.write_text(json.dumps(doc, indent=2))
            red.redact_file(src, dst, "json", report)
            return json.loads(dst.read_text())
    return json.loads(redact_sqlite_cell(red, text, report))

CARRIERS = ("record", "json-in-string", "json-file", "sqlite")


@pytest.mark.parametrize("carrier", CARRIERS)
def test_key_bytes_under_a_field_are_replaced(red: Any, carrier: str) -> None:
    doc = {"wallet": {"publicKey": "7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU", "secretKey": SOL},
           "seed": SEED, "label": "devnet"}
    got = _redacted_doc(red, carrier, doc)
    assert got == {"wallet": {"publicKey": "7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU", "secretKey": _token(SOL)},
                   "seed": _token(SEED), "label": "devnet"}


@pytest.mark.parametrize("carrier", CARRIERS)
def test_key_bytes_in_a_list_of_keys_are_replaced(red: Any, carrier: str) -> None:
    got = _redacted_doc(red, carrier, {"signers": [SOL, SEED]})
    assert got == {"signers": [_token(SOL), _token(SEED)]}


NOT_KEYS = {
    "counting": list(range(32)),  # no three-digit value
    "few values": [200, 201] * 32,  # two distinct values: no entropy
    "another length": SOL[:48],
    "not bytes": [*SOL[:63], 256],
    "floats": [float(b) for b in SEED],
}


@pytest.mark.parametrize("carrier", CARRIERS)
@pytest.mark.parametrize("name", sorted(NOT_KEYS))
def test_lists_that_are_no_key_stay_lists(red: Any, carrier: str, name: str) -> None:
    doc = {"values": NOT_KEYS[name], "n": 1}
    assert _redacted_doc(red, carrier, doc) == doc
