"""A person's attributes named by their key or column, not by their shape (s24-piicols).

`Margaret` alone under `firstName` is no "given name + surname" for person-name-given, and a
`dob` cell of a psql table has no label next to it: rules/names.toml's person-name-keyed and
person-name-keyed-full and pii.toml's date-of-birth-keyed read the key, the table pass
(tables.NAME_COLUMNS) the column. Each positive here came out unchanged before; each negative
must come out byte for byte."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from archiver.redact import tables
from archiver.redact.base import RedactionReport
from archiver.redact.redactor import build_redactor
from archiver.redact.rules import RuntimeTerms, load_rules
from tests.fx_redact import claude_tool_result_redacted

KEY = b"s24-piicols-test-key-0123456789abcdef"
PACKS = ["builtin:secrets", "builtin:pii", "builtin:paths", "builtin:names"]
NAME_RULES = {"person-name-keyed", "person-name-keyed-full"}


@pytest.fixture(scope="module")
def red():  # noqa: ANN201
    return build_redactor(PACKS, KEY, RuntimeTerms(usernames=["alice"]))


def _redact(red, text: str) -> tuple[str, dict[str, int]]:  # noqa: ANN001
    report = RedactionReport()
    return red.redact_text(text, report), report.by_rule()


# ---------------------------------------------------------------- keys (the rules)

USERS_API = json.dumps({"data": [{"id": 4711, "firstName": "Margaret", "lastName": "Thornton",
                                  "middleName": "Ólöf", "email": "m.thornton@corp-mail.net",
                                  "dateOfBirth": "1984-03-12", "customerDob": "12/03/1984"}]}, ensure_ascii=False)


def _gone_from_tool_result(red, folder: Path, text: str) -> dict[str, int]:  # noqa: ANN001
    line, content, sidecar, by_rule = claude_tool_result_redacted(red, folder, text)
    for out in (content, sidecar):
        for value in ("Margaret", "Thornton", "Ólöf", "1984-03-12", "12/03/1984", "m.thornton@corp-mail.net"):
            assert value not in out, (value, out)
        assert '"firstName": "<PERSON:' in out and '"customerDob": "<DATE_OF_BIRTH:' in out
    assert b"Thornton" not in line and "Ólöf".encode() not in line
    return by_rule


def test_a_users_api_response_printed_by_curl_in_a_claude_tool_result_loses_every_attribute(red, tmp_path: Path) -> None:  # noqa: ANN001
    by_rule = _gone_from_tool_result(red, tmp_path, "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n\r\n" + USERS_API)
    assert by_rule.get("person-name-keyed", 0) >= 6  # three names, in the block and in the sidecar
    assert by_rule.get("date-of-birth-keyed", 0) >= 2


def test_a_users_api_response_that_is_the_whole_tool_result_loses_every_attribute(red, tmp_path: Path) -> None:  # noqa: ANN001
    _gone_from_tool_result(red, tmp_path, USERS_API)


@pytest.mark.parametrize(("text", "values", "rule"), [
    ("customer:\n  first_name: Margaret\n  last_name: Thornton\n  birth_date: 1984-03-12\n",
     ["Margaret", "Thornton"], "person-name-keyed"),
    ("FIRST_NAME=Margaret\nLAST_NAME=Thornton\nCUSTOMER_DOB=1984-03-12\n",
     ["Margaret", "Thornton", "1984-03-12"], None),
    ("[billing]\nbilling_first_name = Margaret\nbilling_surname = Thornton\n", ["Margaret", "Thornton"],
     "person-name-keyed"),
    ("fixture = {'given_name': 'Jean-Luc', 'family_name': \"O'Neil\", 'patientDob': '19840312'}",
     ["Jean-Luc", "O'Neil", "19840312"], None),
    ("const customer = { firstName: 'Lars', lastName: 'Øberg', mothersMaidenName: 'Ólafsdóttir' };",
     ["Lars", "Øberg", "Ólafsdóttir"], "person-name-keyed"),
    ("UPDATE customers SET last_name = 'Thornton' WHERE first_name = 'Margaret';", ["Margaret", "Thornton"],
     "person-name-keyed"),
    ("<customer><firstName>Margaret</firstName><lastName>THORNTON</lastName></customer>",
     ["Margaret", "THORNTON"], "person-name-keyed"),
    ('{"object": "customer", "name": null, "fullName": "Margaret Thornton", "contactName": "Priya Raghunathan"}',
     ["Margaret Thornton", "Priya Raghunathan"], None),
    ("account_holder_name: MARGARET THORNTON\nlegal_name = 'ÓLAFUR Øberg'\n", ["MARGARET THORNTON", "ÓLAFUR Øberg"],
     "person-name-keyed-full"),
    ("?first_name=Margaret&last_name=Thornton&plan=pro", ["Margaret", "Thornton"], "person-name-keyed"),
])
def test_key_named_values_go(red, text: str, values: list[str], rule: str | None) -> None:  # noqa: ANN001
    out, by_rule = _redact(red, text)
    for v in values:
        assert v not in out, (v, out)
    if rule:
        assert by_rule.get(rule, 0) >= 1, by_rule
    # the keys stay: a reviewer still sees what the record held
    for key in ("first_name", "firstName", "last_name", "fullName", "given_name", "billing_surname"):
        assert text.count(key) == out.count(key)


NEGATIVES = [
    '"firstName": {"type": "string", "maxLength": 50},\n"lastName": {"type": "string"}',
    "class Customer(BaseModel):\n    first_name: str\n    last_name: Optional[str] = None\n",
    "CREATE TABLE customers (first_name VARCHAR(50), last_name VARCHAR(50), dob DATE NOT NULL);",
    "interface Customer { firstName: string; lastName?: string; }",
    "type Customer { firstName: String! lastName: String }",
    "first_name = Column(String(50), nullable=False)",
    "Hello {{firstName}} {{lastName}}, see ${user.lastName}",
    '{"firstName": "<first name>", "lastName": "string", "middleName": "null"}',
    '{"firstNameLabel": "First name", "lastNamePlaceholder": "Thornton"}',
    '{"firstName": "First Name", "lastName": "Nachname", "surname": "Apellidos"}',
    '{"name": "flask", "version": "3.0.0"}\nname: web-frontend\nkind: Deployment',
    '{"userName": "Thornton", "username": "margaret"}',
    '{"displayName": "GitHub Actions", "login": "github-actions[bot]"}',
    '{"displayName": "Python", "publisher": "ms-python"}',
    '{"id": "claude-opus-4", "displayName": "Claude Opus"}',
    '{"theme": {"displayName": "Night Owl"}}',
    " display_name | id\n--------------+-------------\n Claude Opus  | opus-4\n Night Owl    | night-owl\n(2 rows)\n",
    "customer_name: Acme Corp\ncontact_name: Support Team",
    '{"birthDate": "YYYY-MM-DD", "dob": {"type": "string", "format": "date"}}',
    '"lastName": "Last name is required"',
]


@pytest.mark.parametrize("text", NEGATIVES)
def test_schemas_types_templates_labels_and_accounts_stay_byte_for_byte(red, text: str) -> None:  # noqa: ANN001
    out, by_rule = _redact(red, text)
    assert out == text, by_rule


def test_the_rules_are_in_the_names_and_pii_packs() -> None:
    rules = {r.id: r for r in load_rules(PACKS)}
    assert {rules[i].pack for i in NAME_RULES} == {"names"} and rules["date-of-birth-keyed"].pack == "pii"
    assert {rules[i].label for i in NAME_RULES} == {"PERSON"} and rules["date-of-birth-keyed"].label == "DATE_OF_BIRTH"
    # a team that drops the names pack drops the names, not the date of birth
    ids = {r.id for r in load_rules(PACKS[:3])}
    assert not ids & NAME_RULES and "date-of-birth-keyed" in ids


# ---------------------------------------------------------------- columns (the table pass)

PSQL = (" id | first_name | last_name |        email        |    phone     |    dob     \n"
        "----+------------+-----------+---------------------+--------------+------------\n"
        "  1 | Margaret   | Thornton  | mt@corp-mail.net    | 555-867-5309 | 1984-03-12\n"
        "  2 | Li         | Wu        |                     |              | \n"
        "  3 | NULL       | test      | x@corp-mail.net     |              | 2099-99-99\n"
        "(3 rows)\n")
TABLES = {
    "psql": (PSQL, ["Margaret", "Li", "Thornton", "Wu", "1984-03-12", "555-867-5309"]),  # (s26: and the phone)
    "csv": ("first_name,last_name,dob\nMargaret,Thornton,1984-03-12\n\"Jean-Luc\",\"O'Neil\",12/03/1984\n",
            ["Margaret", "Jean-Luc", "Thornton", "O'Neil", "1984-03-12", "12/03/1984"]),
    "tsv": ("id\tfirstName\tlastName\tbirthDate\n1\tMargaret\tThornton\t1984-03-12\n",
            ["Margaret", "Thornton", "1984-03-12"]),
    "markdown": ("| First Name | Surname | DOB |\n|---|---|---|\n| Margaret | Thornton | 1984-03-12 |\n",
                 ["Margaret", "Thornton", "1984-03-12"]),
    "bordered": ("+----+------------+-----------+\n| id | first_name | last_name |\n"
                 "+----+------------+-----------+\n|  1 | Margaret   | Thornton  |\n+----+------------+-----------+\n",
                 ["Margaret", "Thornton"]),
    "box": ("┌────┬────────────┬───────────┐\n│ id │ first_name │ last_name │\n"
            "├────┼────────────┼───────────┤\n│ 1  │ Margaret   │ Thornton  │\n└────┴────────────┴───────────┘\n",
            ["Margaret", "Thornton"]),
    "psql-expanded": ("-[ RECORD 1 ]+-----------\nfirst_name   | Margaret\nlast_name    | Thornton\n"
                      "date_of_birth| 1984-03-12\n", ["Margaret", "Thornton", "1984-03-12"]),
    "mysql-G": ("*************************** 1. row ***************************\n"
                "first_name: Margaret\n last_name: Thornton\n       dob: 1984-03-12\n",
                ["Margaret", "Thornton", "1984-03-12"]),
    "full-name": (" full_name         | login\n-------------------+-------\n Margaret Thornton | mt\n"
                     " GitHub Actions    | gha\n Python            | py\n(3 rows)\n", ["Margaret Thornton"]),
}


@pytest.mark.parametrize("name", sorted(TABLES))
def test_name_and_birth_date_columns_are_read_as_cells(name: str) -> None:
    text, values = TABLES[name]
    buf = text.encode()
    assert tables.may_hold_table(buf)
    cells = tables.secret_cells(buf)
    assert sorted(buf[a:b].decode() for a, b, _ in cells) == sorted(values)
    kinds = {buf[a:b].decode(): k for a, b, k in cells}
    for v, k in kinds.items():
        want = (tables.PHONE_KIND if v.count("-") == 2 and len(v) == 12 else
                tables.BIRTH_KIND if v[0].isdigit() else
                tables.FULL_NAME_KIND if " " in v else tables.NAME_KIND)
        assert k == want, (v, k)


@pytest.mark.parametrize("text", [
    # a schema listing: the names are the rows, the cells types
    " column_name | data_type \n-------------+-----------\n first_name  | varchar\n dob         | date\n(2 rows)\n",
    # `name` and `username` columns are no person's name
    " name  | username | version \n-------+----------+---------\n Flask | Margaret | 3.0.0\n(1 row)\n",
    "name,username\nFlask,Margaret\n",
    # a label column and a docs table of the fields
    "| Field | Label |\n|---|---|\n| first_name | First name |\n| dob | Date of birth |\n",
    # cells that look like no name or date
    "first_name,last_name,dob\nNULL,string,unknown\nR2D2,margaret,1984-13-45\n",
])
def test_columns_without_names_or_dates_give_no_cells(text: str) -> None:
    assert tables.secret_cells(text.encode()) == []


def test_the_cell_shapes() -> None:
    for v in ("Margaret", "THORNTON", "Jean-Luc", "O'Neil", "Ana de la Cruz", "John F. Kennedy", "Li", "Øberg"):
        assert tables.person_name_cell(v), v
    for v in ("margaret", "R2D2", "null", "String", "Margaret_Thornton", "First name", "a b c d e f"):
        assert not tables.person_name_cell(v), v
    assert tables.person_name_cell("Margaret Thornton", 2) and not tables.person_name_cell("Python", 2)
    for v in ("1984-03-12", "19840312", "12/03/1984", "03.12.84", "March 12, 1984", "1984-03-12T00:00:00Z"):
        assert tables.birth_date_cell(v), v
    for v in ("1984-13-01", "1984312", "13/13/1984", "YYYY-MM-DD", "2024", "n/a"):
        assert not tables.birth_date_cell(v), v


def test_the_gate_stays_shut_on_text_without_such_a_column() -> None:
    for text in ("| a | b |\n|---|---|\n| 1 | 2 |\n", "name,email\nflask,x@y.z\n", "just prose, with commas, here"):
        assert not tables.may_hold_table(text.encode()), text


def test_each_keyed_rule_has_its_validator() -> None:
    """The engine keeps a table column's cell only when the column's rule has a validator."""
    got = {r.id: r.validator for r in load_rules(PACKS) if r.id in (*NAME_RULES, "date-of-birth-keyed")}
    assert got == {**{rid: "person_name" for rid in NAME_RULES}, "date-of-birth-keyed": "birth_date"}


@pytest.mark.parametrize("name", sorted(TABLES))
def test_the_cells_go_through_the_engine(red, name: str) -> None:  # noqa: ANN001
    text, values = TABLES[name]
    out, by_rule = _redact(red, text)
    for v in values:
        assert v not in out, (v, out)
    assert out.count("|") == text.count("|") and out.count("\n") == text.count("\n")
