"""A phone number's column (tables.PHONE_COLUMNS): a cell under a `phone`/`mobile`/`tel`/`fax`
header that is written as a phone number is the phone rules' finding even where they leave a bare
digit run alone (a CSV row of numbers, a diff's numeric row); counts, ids, booleans and
placeholders under such headers, and columns that only end in the letters, stay."""

from __future__ import annotations

import pytest

from archiver.redact import tables
from archiver.redact.base import RedactionReport
from tests.fx_redact import builtin_redactor


@pytest.fixture(scope="module")
def redactor():  # noqa: ANN201
    return builtin_redactor(b"s26-phone-columns-key-0123456789ab")


def _redact(red, text: str) -> tuple[str, dict[str, int]]:  # noqa: ANN001
    report = RedactionReport()
    out = red.redact_text(text, report)
    return out, report.by_rule()


@pytest.mark.parametrize("text, phones", [
    ("id,phone,calls\n17,4155550123,3\n18,4155550187,9\n", ["4155550123", "4155550187"]),
    ("customer_id\tmobile\n204\t07700900123\n", ["07700900123"]),
    ('"name","tel","plan"\n"A. Person","020 7946 0018","pro"\n', ["020 7946 0018"]),
    (" id,phone_number,calls\n+19,4155550199,2\n+20,07700900124,1\n", ["4155550199", "07700900124"]),
    ("| id | fax |\n|----|-----|\n| 3 | 4155550142 |\n", ["4155550142"]),
    ("id,Mobile_No\n1,+44 7700 900125\n", ["7700 900125"]),
    ("user_id,home_phone,work_phone\n9,4155550166,4155550177\n", ["4155550166", "4155550177"]),
])
def test_phones_under_a_phone_header_go(redactor, text: str, phones: list[str]) -> None:  # noqa: ANN001
    out, counts = _redact(redactor, text)
    for phone in phones:
        assert phone not in out, (phone, out)
    assert out.count("<PHONE:") >= len(phones), out
    assert all(k.startswith("phone-") for k in counts if "PHONE" in k.upper()), counts


@pytest.mark.parametrize("text", [
    "id,phone_calls,minutes\n17,4155550123,3\n",  # a count column whose name only starts with phone
    "id,is_mobile,score\n17,true,4155550123\n",
    "id,phone,calls\n17,n/a,3\n18,,4\n19,0000000000,2\n",
    "id,phone,calls\n17,42,3\n",  # too short for a phone
    "hotel,rooms,revenue\n4155550123,3,12\n",  # ends with the letters `tel`
    "telemetry,count\n4155550123,3\n",
    "id,fax,calls\n17,1234567890123456789,3\n",  # too long
    "id,phone,calls\n17,555-CALL-NOW,3\n",
])
def test_what_is_no_phone_stays(redactor, text: str) -> None:  # noqa: ANN001
    out, _ = _redact(redactor, text)
    assert out == text


@pytest.mark.parametrize("cell, ok", [
    ("4155550123", True), ("+1 (415) 555-0123", True), ("07700 900123", True), ("0033.1.23.45.67.89", True),
    ("415555", False), ("1111111111", False), ("true", False), ("n/a", False), ("12345678901234567", False),
    ("+", False), ("(415)", False), ("415-555-0123 ext 2", False),
])
def test_phone_cell(cell: str, ok: bool) -> None:
    assert tables.phone_cell(cell) is ok


@pytest.mark.parametrize("text, phone", [
    ('{"phone": "4155550123", "calls": "4155550125"}', "4155550123"),
    ('{"customerPhone": "4155550126"}', "4155550126"),
    ('{"phoneNumber": "+4930123456789"}', "+4930123456789"),
    ('{"mobile": "07700900123"}', "07700900123"),
    ("phone: 4155550123\n", "4155550123"),
    ("CUSTOMER_PHONE=4155550187\n", "4155550187"),
])
def test_a_bare_number_under_a_phone_key_goes(redactor, text: str, phone: str) -> None:  # noqa: ANN001
    report = RedactionReport()
    if text.startswith("{"):
        out = redactor.json.redact_line(text.encode(), report, "jsonl").decode()
    else:
        out = redactor.redact_text(text, report)
    assert phone not in out and "<PHONE:" in out, out
    assert "4155550125" in out or "calls" not in text  # a count beside it stays


@pytest.mark.parametrize("text", [
    '{"hotel": "4155550127", "phoneCount": "4155550128", "smartphone": "4155550129"}',
    '{"phone": "123456", "tel": "n/a"}',
])
def test_what_is_no_phone_under_a_key_stays(redactor, text: str) -> None:  # noqa: ANN001
    out = redactor.json.redact_line(text.encode(), RedactionReport(), "jsonl").decode()
    assert out == text


def test_a_phone_column_of_a_sqlite_table(redactor, tmp_path) -> None:  # noqa: ANN001
    from tests.fx_redact import redacted_table

    cells = redacted_table(redactor, "customers", "id INTEGER PRIMARY KEY, phone TEXT",
                           [(1, "4155550123"), (2, "+1 415 555 0124"), (3, "n/a")], folder=tmp_path)
    assert cells[1].startswith("<PHONE:") and cells[2].startswith("<PHONE:") and cells[3] == "n/a"
