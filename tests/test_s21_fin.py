"""Labelled financial and tax identifiers and postcodes (rules/pii.toml, the s21-fin block:
bank account numbers, US routing numbers, UK sort codes, EU VAT numbers, US EINs, UK postcodes,
US ZIP codes, German PLZ; archiver/redact/validators.py for their checks).

Through the real redactor with the built-in packs: each labelled value goes and only the value (the
token put back gives the line byte for byte, the label stays); a value whose check digit is wrong,
and the numbers that merely sit near such words (order and invoice numbers, ports, pids, versions,
git SHAs, UUIDs, phone numbers, timestamps, short account ids, amounts, an AWS account) come out
unchanged; a Claude Code tool_result and a Codex rollout (records shaped as in
/work/shared/seeds/by-harness) go through `redact_file`."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from archiver.redact import validators as V
from archiver.redact.base import RedactionReport
from tests.fx_redact import builtin_redactor, kept, redacted_file

KEY = b"s21-fin-test-key-0123456789abcdefghijklm"
TOKEN = re.compile(r"<[A-Z][A-Z0-9_]*:[0-9a-f]{8}>")
NEW_RULES = {
    "bank-account-number-labelled", "bank-account-number-beside-bank-code", "bank-account-number-before-bank-code",
    "us-routing-number-labelled", "uk-sort-code-labelled", "bank-code-beside-account", "uk-sort-code-beside-account",
    "eu-vat-number-labelled", "us-ein-labelled", "uk-postcode-after-town", "us-zip-code-labelled", "de-plz-labelled",
}

# (line, the values that must go, in order, with the rule that takes each)
LABELLED = [
    ("routing number 021000021 account 1234567890",
     [("021000021", "us-routing-number-labelled"), ("1234567890", "bank-account-number-beside-bank-code")]),
    ("sort code 12-34-56 account number 12345678",
     [("12-34-56", "uk-sort-code-labelled"), ("12345678", "bank-account-number-labelled")]),
    # DE123456789 fails the ISO 7064 check digit (kept, below): a valid DE number stands in for it
    ("VAT ID DE136695976 | USt-IdNr. DE 136 695 976 | TVA FR40303265045",
     [("DE136695976", "eu-vat-number-labelled"), ("DE 136 695 976", "eu-vat-number-labelled"),
      ("FR40303265045", "eu-vat-number-labelled")]),
    ("Tax ID 12-3456789 (an EIN) | EIN: 12-3456789",
     [("12-3456789", "us-ein-labelled"), ("12-3456789", "us-ein-labelled")]),
    ("ZIP 94103-1234 (a US ZIP+4 after \"ZIP\"), Postleitzahl/PLZ 10115",
     [("94103-1234", "us-zip-code-labelled"), ("10115", "de-plz-labelled")]),
    ("Acct # 9876543210", [("9876543210", "bank-account-number-labelled")]),
    ("Kontonummer: 0532013000", [("0532013000", "bank-account-number-labelled")]),
    ("numéro de compte : 12345678901", [("12345678901", "bank-account-number-labelled")]),
    ('{"routing_number": "011000015"}', [("011000015", "us-routing-number-labelled")]),
    ("ABA #: 121000358", [("121000358", "us-routing-number-labelled")]),
    ("acct 1234567890 / 021000021",
     [("1234567890", "bank-account-number-labelled"), ("021000021", "bank-code-beside-account")]),
    ("Acc No 31926819 / 60-16-13", [("31926819", "bank-account-number-labelled"), ("60-16-13", "uk-sort-code-beside-account")]),
    ("account 1234567890 routing 021000021",
     [("1234567890", "bank-account-number-before-bank-code"), ("021000021", "us-routing-number-labelled")]),
    ("VAT Reg No: GB 980 7806 84", [("GB 980 7806 84", "eu-vat-number-labelled")]),
    ('{"vat_number": "NL004495445B01"}', [("NL004495445B01", "eu-vat-number-labelled")]),
    ("Partita IVA: IT00743110157", [("IT00743110157", "eu-vat-number-labelled")]),
    ("BTW-nummer BE0403.019.261", [("BE0403.019.261", "eu-vat-number-labelled")]),
    ("VAT: ESB58378431", [("ESB58378431", "eu-vat-number-labelled")]),
    ("UID-Nr. ATU13585627", [("ATU13585627", "eu-vat-number-labelled")]),
    ('{"ein": "94-1081436"}', [("94-1081436", "us-ein-labelled")]),
    ("Postcode: SW1A 2AA", [("SW1A 2AA", "uk-postcode-after-town")]),
    ("Zip code: 60614-2201", [("60614-2201", "us-zip-code-labelled")]),
    ("PLZ/Ort: 80331 München", [("80331", "de-plz-labelled")]),
]

# a wrong check digit, an unassigned prefix or shape: the value stays
INVALID = [
    "routing number 021000022",
    "routing number 123456789",
    "VAT ID DE123456789",
    "USt-IdNr. DE 123 456 789",
    "TVA FR41303265045",
    "VAT: IT00743110158",
    "VAT number: NL123456789B01",
    "BTW BE0403019262",
    "EIN: 07-3456789",
    "EIN: 12-0000000",
    "postcode: QW1 6XP",
    "postcode: NW1 6CP",
    "sort code: 00-00-00",
    "account number: 00000000",
    "ZIP 00000",
    "PLZ 00123",
]

NEGATIVES = [
    "order number 12345678",
    "invoice no. 20240115",
    "Invoice #INV-20240115-0042 for account 42",
    "account 42 created",
    "account number 12345",
    "listening on port 8443, pid 123456",
    "server pid 4021733 (account service)",
    "upgrade to version 12.3456789 of the account module",
    "commit 3f786850e387550fdab836ed7e6dc881de23001b: fix routing",
    "request 0d4f5b8e-9c3a-4e7b-8f21-6a5d3c2b1e0f for account_id 77",
    "created at 1718035200123, sort order 3",
    "2025-10-26T12:34:56.789Z account created",
    "sort code by name, then the routing table",
    "the sort code is printed on the card",
    "transferred $1,234,567.89 from account number 1234567.89",
    "bank account balance: 123456.78 EUR",
    "aws account 123456789012 in us-east-1",
    "arn:aws:iam::123456789012:role/deploy (account 123456789012)",
    "The VAT rate is 19% on 1234567 units",
    "vat rate DE 19%, routing 3 hops",
    "private DE136695976",
    "zip -r archive.zip src/ && gzip 94103-1234",
    "zlib 1.2.11, zip64 12345",
    "Tax year 2024, tax id field missing",
    "eine Nummer 12-3456789",
    "Martin 12-3456789",
    "house rules, see RFC 1234",
    "street view, Version A1 2BC5",
    "plz 1234 thx",
    "account 31926819 / 60-16-13 (an account id and a date)",
    "uid=1000 gid=1000 ATU13585627",
]


@pytest.fixture(scope="module")
def red():  # noqa: ANN201
    return builtin_redactor(KEY)


@pytest.mark.parametrize("line,values", LABELLED, ids=[s[0][:40] for s in LABELLED])
def test_a_labelled_value_goes_and_the_label_stays(red, line: str, values: list[tuple[str, str]]) -> None:  # noqa: ANN001
    report = RedactionReport()
    out = red.redact_text(line, report)
    tokens = TOKEN.findall(out)
    for value, _rule in values:
        assert value not in out, out
    expected: dict[str, int] = {}
    for _value, rule in values:
        expected[rule] = expected.get(rule, 0) + 1
    assert {r: n for r, n in report.by_rule().items() if r in NEW_RULES} == expected, report.by_rule()
    # every token put back in order gives the line byte for byte: only the values were replaced
    back = out
    for tok, (value, _rule) in zip(tokens, [v for v in values if v[0] in line]):
        back = back.replace(tok, value, 1)
    assert back == line


def test_one_value_gets_one_token_under_two_labels(red) -> None:  # noqa: ANN001
    out = red.redact_text("Tax ID 12-3456789 (an EIN) | EIN: 12-3456789", RedactionReport())
    tokens = TOKEN.findall(out)
    assert len(tokens) == 2 and tokens[0] == tokens[1] and tokens[0].startswith("<TAX_ID:"), out
    assert out.startswith("Tax ID <TAX_ID:") and "(an EIN) | EIN: <TAX_ID:" in out


def test_the_address_loses_its_postcode_too(red) -> None:  # noqa: ANN001
    report = RedactionReport()
    out = red.redact_text("Her address: 221B Baker Street, London NW1 6XP", report)
    assert "NW1" not in out and "6XP" not in out and "Baker" not in out
    assert re.fullmatch(r"Her address: <ADDRESS:[0-9a-f]{8}>, London <POSTCODE:[0-9a-f]{8}>", out), out
    assert report.by_rule() == {"postal-address-street-number-first": 1, "uk-postcode-after-town": 1}


@pytest.mark.parametrize("text", INVALID)
def test_a_wrong_check_digit_or_shape_stays(red, text: str) -> None:  # noqa: ANN001
    assert not set(kept(red, text)) & NEW_RULES


@pytest.mark.parametrize("text", NEGATIVES)
def test_numbers_near_bank_and_tax_words_stay(red, text: str) -> None:  # noqa: ANN001
    assert not set(kept(red, text)) & NEW_RULES


@pytest.mark.parametrize("name,value,ok", [
    ("aba_routing", "021000021", True), ("aba_routing", "021000022", False), ("aba_routing", "131000021", False),
    ("aba_routing", "000000000", False), ("aba_routing", "02100002", False),
    ("sort_code", "12-34-56", True), ("sort_code", "12 34 56", True), ("sort_code", "11-11-11", False),
    ("sort_code", "12-3456", False),
    ("bank_account", "12345678", True), ("bank_account", "12345", False), ("bank_account", "1" * 18, False),
    ("bank_account", "000000", False),
    ("us_ein", "12-3456789", True), ("us_ein", "123456789", True), ("us_ein", "00-3456789", False),
    ("us_ein", "89-3456789", False), ("us_ein", "12-34-56789", False),
    ("eu_vat", "DE136695976", True), ("eu_vat", "DE123456789", False), ("eu_vat", "FR40303265045", True),
    ("eu_vat", "BE0403019261", True), ("eu_vat", "IT00743110157", True), ("eu_vat", "NL004495445B01", True),
    ("eu_vat", "ESB58378431", True), ("eu_vat", "ES54362315K", True), ("eu_vat", "ATU13585627", True),
    ("eu_vat", "DK13585628", True), ("eu_vat", "FI20774740", True), ("eu_vat", "GB980780684", True),
    ("eu_vat", "PL8567346215", True), ("eu_vat", "PT501964843", True), ("eu_vat", "SE556188840401", True),
    ("eu_vat", "IE6388047V", True), ("eu_vat", "XX136695976", False), ("eu_vat", "DE13669597", False),
    ("eu_vat", "PL8567346216", False), ("eu_vat", "SE556188840402", False),
    ("us_zip", "94103-1234", True), ("us_zip", "94103", True), ("us_zip", "00000", False),
    ("us_zip", "9410-31234", False),
    ("de_plz", "10115", True), ("de_plz", "00115", False), ("de_plz", "1011", False),
    ("uk_postcode", "NW1 6XP", True), ("uk_postcode", "SW1A 1AA", True), ("uk_postcode", "M1 1AE", True),
    ("uk_postcode", "GIR 0AA", True), ("uk_postcode", "QW1 6XP", False), ("uk_postcode", "NW1 6CP", False),
    ("uk_postcode", "NW1  6XP", False),
])
def test_validators(name: str, value: str, ok: bool) -> None:
    assert V.VALIDATORS[name](value) is ok


def test_a_phone_number_beside_bank_words_is_the_phone_rules(red) -> None:  # noqa: ANN001
    report = RedactionReport()
    out = red.redact_text("call +1 415 555 0132 about the bank account number", report)
    assert "555 0132" not in out and out.endswith(" about the bank account number")
    assert report.by_rule() and not set(report.by_rule()) & NEW_RULES, report.by_rule()


# ------------------------------------------------------------------ through redact_file

PAYMENT = (
    "Payment details from invoice.pdf (invoice no. 20240115, order number 12345678):\n"
    "  Beneficiary bank: routing number 021000021 account 1234567890\n"
    "  UK: sort code 12-34-56 account number 31926819\n"
    "  VAT ID DE136695976, EIN: 12-3456789\n"
    "  Address: 221B Baker Street, London NW1 6XP; ZIP 94103-1234; PLZ 10115\n"
    "  Amount: $1,234.56, server pid 4021733 on port 8443\n"
)
PAYMENT_VALUES = ["021000021", "1234567890", "12-34-56", "31926819", "DE136695976", "12-3456789", "NW1 6XP",
                  "94103-1234", "10115"]
PAYMENT_RULES = {"us-routing-number-labelled": 1, "bank-account-number-beside-bank-code": 1,
                 "uk-sort-code-labelled": 1, "bank-account-number-labelled": 1, "eu-vat-number-labelled": 1,
                 "us-ein-labelled": 1, "uk-postcode-after-town": 1, "us-zip-code-labelled": 1, "de-plz-labelled": 1}
PAYMENT_KEPT = ["invoice no. 20240115, order number 12345678", "routing number <BANK_ROUTING:",
                "sort code <BANK_ROUTING:", "account number <BANK_ACCOUNT:", "VAT ID <TAX_ID:", "EIN: <TAX_ID:",
                "London <POSTCODE:", "ZIP <POSTCODE:", "PLZ <POSTCODE:",
                "Amount: $1,234.56, server pid 4021733 on port 8443\n"]


def _claude_tool_result(text: str) -> bytes:
    """A Claude Code user record carrying one tool_result (claude-code.json `records`: the answer to a
    Read tool_use), with its toolUseResult sidecar field."""
    return json.dumps({
        "parentUuid": "11111111-1111-4111-8111-111111111111", "isSidechain": False, "userType": "external",
        "cwd": "/srv/app", "sessionId": "5b1e8f0c-2d3a-4c4b-9e6f-7a8b9c0d1e2f", "version": "2.1.310",
        "gitBranch": "main", "entrypoint": "cli", "type": "user",
        "message": {"role": "user", "content": [{"tool_use_id": "toolu_01S21FinReadPaymentDetails",
                                                 "type": "tool_result", "content": text, "is_error": False}]},
        "uuid": "6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f", "timestamp": "2026-03-02T10:11:12.345Z",
        "toolUseResult": {"type": "text", "file": {"filePath": "/srv/app/payment.txt", "content": text,
                                                   "numLines": text.count("\n"), "startLine": 1,
                                                   "totalLines": text.count("\n")}},
        "sourceToolAssistantUUID": "22222222-2222-4222-8222-222222222222",
    }, ensure_ascii=False).encode() + b"\n"


def _codex_rollout(text: str) -> bytes:
    """A Codex rollout (codex.json): session_meta, an exec_command function_call and its output."""
    tid = "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b"
    recs = [
        {"type": "session_meta", "payload": {"id": tid, "timestamp": "2026-03-01T10:00:00.000Z", "cwd": "/srv/app",
                                             "originator": "codex_cli_rs", "cli_version": "0.150.0", "source": "cli",
                                             "model_provider": "openai"}},
        {"type": "response_item", "payload": {"type": "function_call", "name": "exec_command", "call_id": "call_s21fin",
                                              "arguments": json.dumps({"cmd": "cat payment.txt"})}},
        {"type": "response_item", "payload": {"type": "function_call_output", "call_id": "call_s21fin",
                                              "output": "Process exited with code 0\nOutput:\n" + text}},
    ]
    return b"".join(json.dumps({"timestamp": "2026-03-01T10:01:00.000Z", **r}, ensure_ascii=False).encode() + b"\n"
                    for r in recs)


def _new(counts: dict[str, int]) -> dict[str, int]:
    return {r: n for r, n in counts.items() if r in NEW_RULES}


def test_a_claude_tool_result_loses_every_value(red, tmp_path: Path) -> None:  # noqa: ANN001
    out, counts = redacted_file(red, tmp_path, "claude.jsonl", _claude_tool_result(PAYMENT))
    for v in PAYMENT_VALUES:
        assert v.encode() not in out, v
    # the text is in the tool_result block and in toolUseResult.file.content: every count doubles
    assert _new(counts) == {r: 2 * n for r, n in PAYMENT_RULES.items()}, counts
    rec = json.loads(out)
    content = rec["message"]["content"][0]["content"]
    assert content == rec["toolUseResult"]["file"]["content"]
    for words in PAYMENT_KEPT:
        assert words in content, words
    assert rec["message"]["content"][0]["tool_use_id"] == "toolu_01S21FinReadPaymentDetails"
    assert rec["uuid"] == "6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f"


def test_a_codex_rollout_loses_every_value(red, tmp_path: Path) -> None:  # noqa: ANN001
    out, counts = redacted_file(red, tmp_path, "rollout.jsonl", _codex_rollout(PAYMENT))
    for v in PAYMENT_VALUES:
        assert v.encode() not in out, v
    assert _new(counts) == PAYMENT_RULES, counts
    lines = out.splitlines()
    assert len(lines) == 3
    output = json.loads(lines[2])["payload"]["output"]
    assert output.startswith("Process exited with code 0\nOutput:\nPayment details from invoice.pdf")
    for words in PAYMENT_KEPT:
        assert words in output, words
    assert json.loads(lines[0])["payload"]["id"] == "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b"


# ------------------------------------------------------------------ table columns (tables.ID_COLUMNS)

TABLE_CSV = ("id,name,iban,account_number,routing_number,vat_id,sort_code,ein,account\n"
             "1,Acme,de89 3704 0044 0532 0130 00,1234567890,021000021,DE136695976,12-34-56,12-3456789,42\n"
             "2,Bolt,n/a,TBD,021000022,DE123456789,00-00-00,07-3456789,1234567890\n")
TABLE_MD = ("| id | iban | account_number | routing_number | vat_id |\n|---|---|---|---|---|\n"
            "| 1 | GB82WEST12345698765432 | 31926819 | 011000015 | FR40303265045 |\n"
            "| 2 | GB82WEST12345698765433 | n/a | 123456789 | FR41303265045 |\n")


def test_a_csv_with_bank_and_tax_columns_loses_the_valid_cells_only(red) -> None:  # noqa: ANN001
    report = RedactionReport()
    out = red.redact_text(TABLE_CSV, report)
    header, row1, row2 = out.splitlines()
    assert header == TABLE_CSV.splitlines()[0]
    cells = row1.split(",")
    assert cells[:2] == ["1", "Acme"] and cells[8] == "42"
    assert [TOKEN.fullmatch(c) is not None for c in cells[2:8]] == [True] * 6, row1
    assert [c.split(":")[0] for c in cells[2:8]] == ["<IBAN", "<BANK_ACCOUNT", "<BANK_ROUTING", "<TAX_ID",
                                                      "<BANK_ROUTING", "<TAX_ID"]
    # n/a, TBD, a wrong check digit, a placeholder, an unassigned prefix, a bare `account` column: kept,
    # except the account number row 1 names, which is the same value (an echo, echoes.py)
    plain2 = TABLE_CSV.splitlines()[2].split(",")
    assert row2.split(",") == plain2[:-1] + [cells[3]] and plain2[-1] == "1234567890"
    assert {r: n for r, n in report.by_rule().items() if r in NEW_RULES} == {
        "bank-account-number-labelled": 2, "us-routing-number-labelled": 1, "eu-vat-number-labelled": 1,
        "uk-sort-code-labelled": 1, "us-ein-labelled": 1}, report.by_rule()


def test_a_markdown_table_with_bank_and_tax_columns(red) -> None:  # noqa: ANN001
    out = red.redact_text(TABLE_MD, RedactionReport())
    lines = out.splitlines()
    assert lines[:2] == TABLE_MD.splitlines()[:2] and lines[3] == TABLE_MD.splitlines()[3]
    for value in ("GB82WEST12345698765432", "31926819", "011000015", "FR40303265045"):
        assert value not in out
    assert re.fullmatch(r"\| 1 \| <IBAN:\w{8}> \| <BANK_ACCOUNT:\w{8}> \| <BANK_ROUTING:\w{8}> \| <TAX_ID:\w{8}> \|",
                        lines[2]), lines[2]
