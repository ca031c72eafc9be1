"""Five PII/secret gaps closed as data (s22): a tax column takes any country's tax number
(tables.ID_COLUMNS asks every tax identifier's validator), an Italian Partita IVA after its label
without `IT`, a UK postcode after a post town with no street word, GPS coordinates written as two
labelled values, a quoted password that starts with `$` (not a variable reference).

Through the real redactor with the built-in packs, on realistic carriers (a CSV read by Claude
Code's Read tool, psql output, a .env file and a Bash tool_use, a Codex rollout): what must go goes
and only it (asserted on the bytes), what must stay comes out byte for byte."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from archiver.redact import validators as V
from archiver.redact.base import RedactionReport
from tests.fx_redact import builtin_redactor, kept, redacted, redacted_file
from tests.test_s21_fin import _claude_tool_result, _codex_rollout

KEY = b"s22-gaps-test-key-0123456789abcdefghijklm"
TOKEN = r"<[A-Z][A-Z0-9_]*:[0-9a-f]{8}>"


@pytest.fixture(scope="module")
def red():  # noqa: ANN201
    return builtin_redactor(KEY)


# ------------------------------------------------------------------ 1. tax columns

# (the cell, the label that replaces it): one country's tax number each, all fake with valid checks
TAX_CELLS = [
    ("078-05-1120", "SSN"),           # US SSN (the EIN check, asked first, wants one dash)
    ("942-72-5850", "TAX_ID"),        # US ITIN
    ("12-3456789", "TAX_ID"),         # US EIN
    ("RSSMRA85T10A562S", "NATIONAL_ID"),  # Italy codice fiscale
    ("2309721513", "TAX_ID"),         # UK UTR
    ("2625277683364", "TAX_ID"),      # France numéro fiscal
    ("50268693747", "NATIONAL_ID"),   # Germany Steuer-ID
    ("56900620917", "TAX_ID"),        # Italy Partita IVA
    ("12345678Z", "NATIONAL_ID"),     # Spain NIF (DNI)
    ("452533624", "TAX_ID"),          # Australia TFN (also an EIN's shape: the EIN check is asked first)
]
KEPT_CELLS = ["n/a", "TBD", "0", "42", "2024-01-15", "01/15/2024", "pending", "000-00-0000", "3309721513"]


def _csv(header: str) -> str:
    rows = [f"{i},Customer {i},{cell}" for i, (cell, _) in enumerate(TAX_CELLS, 1)]
    rows += [f"{i},Customer {i},{cell}" for i, cell in enumerate(KEPT_CELLS, len(TAX_CELLS) + 1)]
    return f"id,name,{header}\n" + "\n".join(rows) + "\n"


@pytest.mark.parametrize("header", ["tax_id", "tax_number", "tin", "Tax ID", "taxpayer_id", "utr"])
def test_a_tax_column_loses_every_country_tax_number_and_keeps_the_rest(red, header: str) -> None:  # noqa: ANN001
    text = _csv(header)
    out, counts = redacted(red, text)
    lines = out.splitlines()
    assert lines[0] == f"id,name,{header}"
    for i, (cell, label) in enumerate(TAX_CELLS, 1):
        assert re.fullmatch(f"{i},Customer {i},<{label}:[0-9a-f]{{8}}>", lines[i]), (cell, lines[i])
    assert lines[len(TAX_CELLS) + 1:] == text.splitlines()[len(TAX_CELLS) + 1:]
    assert sum(counts.values()) == len(TAX_CELLS), counts


def test_a_csv_read_by_claude_code_loses_its_tax_column(red, tmp_path: Path) -> None:  # noqa: ANN001
    text = _csv("tax_id")
    out, counts = redacted_file(red, tmp_path, "claude.jsonl", _claude_tool_result(text))
    for cell, _ in TAX_CELLS:
        assert cell.encode() not in out, cell
    rec = json.loads(out)
    content = rec["message"]["content"][0]["content"]
    assert content == rec["toolUseResult"]["file"]["content"]
    assert content.splitlines()[len(TAX_CELLS) + 1:] == text.splitlines()[len(TAX_CELLS) + 1:]
    assert sum(counts.values()) == 2 * len(TAX_CELLS), counts  # the block and the sidecar field


PSQL = (" id |     name     |   tax_number   |    tin\n"
        "----+--------------+----------------+------------\n"
        "  1 | Fake Person  | 942-72-5850    | 2309721513\n"
        "  2 | Other Person | n/a            | 42\n"
        "  3 | Third Person | 56900620917    | 2024-01-15\n"
        "(3 rows)\n")


def test_psql_output_with_two_tax_columns(red) -> None:  # noqa: ANN001
    out, counts = redacted(red, PSQL)
    lines = out.splitlines()
    assert lines[:2] == PSQL.splitlines()[:2] and lines[3:4] == PSQL.splitlines()[3:4] and lines[-1] == "(3 rows)"
    assert re.fullmatch(rf"  1 \| Fake Person  \| {TOKEN} +\| {TOKEN}", lines[2]), lines[2]
    assert re.fullmatch(rf"  3 \| Third Person \| {TOKEN} +\| 2024-01-15", lines[4]), lines[4]
    assert counts == {"tax-reference-labelled": 2, "it-partita-iva-labelled": 1}, counts


def test_a_key_line_naming_a_tax_id(red) -> None:  # noqa: ANN001
    out, _ = redacted(red, "customer:\n  tax_id: 942-72-5850\n  tax_number: TBD\n")
    assert re.fullmatch(rf"customer:\n  tax_id: {TOKEN}\n  tax_number: TBD\n", out), out


@pytest.mark.parametrize("text", [
    "id,name,tax_rate\n1,Widget,2309721513\n",       # not a tax id column
    "id,name,tin_can\n1,Widget,2309721513\n",
    "id,name,attin\n1,Widget,2309721513\n",
])
def test_columns_that_only_hold_the_letters_stay(red, text: str) -> None:  # noqa: ANN001
    kept(red, text)


# ------------------------------------------------------------------ 2. Partita IVA

@pytest.mark.parametrize("line,value", [
    ("P.IVA 56900620917", "56900620917"),
    ("Partita IVA: 19925970519", "19925970519"),
    ("P. IVA: 56900620917", "56900620917"),
    ("Fattura n. 12 - Acme S.r.l. - C.F. e P.IVA n. 00743110157 - Milano", "00743110157"),
])
def test_a_partita_iva_goes_and_its_label_stays(red, line: str, value: str) -> None:  # noqa: ANN001
    out, counts = redacted(red, line)
    token = re.search(TOKEN, out)
    assert token is not None and token.group(0).startswith("<TAX_ID:")
    assert out.replace(token.group(0), value) == line
    assert counts == {"it-partita-iva-labelled": 1}, counts


@pytest.mark.parametrize("line", [
    "P.IVA 56900620918",          # wrong Luhn digit
    "P.IVA 12345678903",          # office code 890
    "Partita IVA: 00000000000",
    "la partita iva ha 11 cifre: 12345678901",
    "derivative 56900620917",
])
def test_a_wrong_partita_iva_stays(red, line: str) -> None:  # noqa: ANN001
    kept(red, line)


def one_token(red, line: str, value: str, label: str, rule: str) -> None:  # noqa: ANN001
    """`value` in `line` became one `<label:...>` token of `rule`, and nothing else changed."""
    out, counts = redacted(red, line)
    token = re.search(TOKEN, out)
    assert token is not None and token.group(0).startswith(f"<{label}:")
    assert out.replace(token.group(0), value) == line
    assert counts == {rule: 1}, counts


# ------------------------------------------------------------------ 3. UK postcodes after a town

@pytest.mark.parametrize("line,value", [
    ("Flat 2, Leeds LS1 4AP", "LS1 4AP"),
    ("Manchester M1 1AE", "M1 1AE"),
    ("London SW1A 1AA", "SW1A 1AA"),
    ("ship to: Acme Ltd\nUnit 4\nGlasgow G2 6AB\n", "G2 6AB"),
    ("Newcastle upon Tyne NE1 7RU", "NE1 7RU"),
    ("Stoke-on-Trent ST4 4DB", "ST4 4DB"),
])
def test_a_postcode_after_a_post_town_goes(red, line: str, value: str) -> None:  # noqa: ANN001
    one_token(red, line, value, "POSTCODE", "uk-postcode-after-town")


@pytest.mark.parametrize("line", [
    "M1 1AE",
    "mov r0, M1\nldr E1, [SW1]\n",
    'assert parse("A1 1AA") == ("A1", "1AA")',
    "london SW1A 1AA",                 # a town is capitalised
    "Londonderry SW1A 1AA",
    "Leeds LS1 4CP",                   # C is never in the inward code
    "Reading M1 of the manual",
    "Manchester M1 1AEX",
])
def test_postcode_shapes_in_code_stay(red, line: str) -> None:  # noqa: ANN001
    kept(red, line)


# ------------------------------------------------------------------ 4. GPS coordinates

@pytest.mark.parametrize("line,pair", [
    ("lat=51.5072 lon=-0.1276", "51.5072 lon=-0.1276"),
    ("latitude: 48.8566, longitude: 2.3522", "48.8566, longitude: 2.3522"),
    ('curl -s api.example/geo\n{"lat": 40.7128, "lng": -74.0060, "city": "x"} trailing', '40.7128, "lng": -74.0060'),
    ("GET /v1/forecast?lat=52.5200&lon=13.4050&units=metric", "52.5200&lon=13.4050"),
])
def test_two_labelled_coordinates_are_one_location(red, line: str, pair: str) -> None:  # noqa: ANN001
    one_token(red, line, pair, "LOCATION", "gps-coordinates")


@pytest.mark.parametrize("line", [
    "lat=0 lon=0",
    "lat=51.5 lon=-0.12",              # a region, not a place
    "lat: 51.50, lon: -0.13",
    "lat=91.5072 lon=-0.1276",
    "version 1.2345 lat 2.3456",
    "lat = [0.1234, 0.5678, 0.9012, 0.3456]",
    "weights = [0.1234, 0.5678]  # lat lon",
    "latent=0.1234 long=0.5678",
])
def test_regions_versions_and_float_arrays_stay(red, line: str) -> None:  # noqa: ANN001
    kept(red, line)


def test_a_codex_rollout_with_labelled_coordinates(red, tmp_path: Path) -> None:  # noqa: ANN001
    text = "Geocoded 'Baker Street':\nlat=51.5237 lon=-0.1585\nsource=osm\n"
    out, counts = redacted_file(red, tmp_path, "rollout.jsonl", _codex_rollout(text))
    assert b"51.5237" not in out and b"-0.1585" not in out
    output = json.loads(out.splitlines()[2])["payload"]["output"]
    assert re.fullmatch(rf"Process exited with code 0\nOutput:\nGeocoded 'Baker Street':\nlat={TOKEN}\nsource=osm\n", output)
    assert counts.get("gps-coordinates") == 1, counts


# ------------------------------------------------------------------ 5. passwords that start with $ or (

ENV = ("DB_HOST=db.internal\n"
       "DB_PASS='(Xy7!pq9#'\n"
       'ADMIN_PASSWORD="$ecretP4ss!"\n'
       'REPLICA_PASSWORD="$REPLICA_PASS"\n'
       'BACKUP_PASSWORD="${BACKUP_PASS}"\n'
       'ROOT_PASSWORD="$(cat /run/secrets/root)"\n'
       'SMTP_PASSWORD="$1"\n'
       'OTHER_PASSWORD="(none)"\n')


def test_an_env_file_loses_literal_passwords_and_keeps_references(red, tmp_path: Path) -> None:  # noqa: ANN001
    out, counts = redacted_file(red, tmp_path, ".env", ENV.encode(), "text")
    lines = out.decode().splitlines()
    src = ENV.splitlines()
    assert lines[0] == src[0]
    assert re.fullmatch(rf"DB_PASS='{TOKEN}'", lines[1]) and lines[1].startswith("DB_PASS='<PASSWORD:")
    assert re.fullmatch(rf'ADMIN_PASSWORD="{TOKEN}"', lines[2]) and "<PASSWORD:" in lines[2]
    assert lines[3:] == src[3:]
    assert counts == {"password-assignment-quoted": 2}, counts


def test_a_bash_tool_use_and_a_json_config(red, tmp_path: Path) -> None:  # noqa: ANN001
    rec = {"parentUuid": None, "isSidechain": False, "type": "assistant", "sessionId": "5b1e8f0c-2d3a-4c4b-9e6f-7a8b9c0d1e2f",
           "uuid": "7a1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f", "timestamp": "2026-03-02T10:11:12.345Z",
           "message": {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_01S22Gaps", "name": "Bash",
                                                         "input": {"command": "PGPASSWORD='$ecretP4ss!' psql -h db -U app"}}]}}
    out, counts = redacted_file(red, tmp_path, "claude.jsonl", json.dumps(rec).encode() + b"\n")
    cmd = json.loads(out)["message"]["content"][0]["input"]["command"]
    assert re.fullmatch(rf"PGPASSWORD='{TOKEN}' psql -h db -U app", cmd), cmd
    conf = '{"db": {"user": "app", "password": "$3cr3t-FAKE!"}, "replica": {"password": "$REPLICA_PASSWORD"}}'
    out, counts = redacted_file(red, tmp_path, "config.json", conf.encode(), "json")
    doc = json.loads(out)
    assert re.fullmatch(TOKEN, doc["db"]["password"]) and doc["replica"]["password"] == "$REPLICA_PASSWORD"
    assert counts == {"password-assignment-quoted": 1}, counts


# ------------------------------------------------------------------ validators

@pytest.mark.parametrize("name,value,ok", [
    ("tax_reference", "2309721513", True), ("tax_reference", "23097 21513K", True),
    ("tax_reference", "3309721513", False), ("tax_reference", "1111111111", False),
    ("tax_reference", "942-72-5850", True), ("tax_reference", "942-67-5850", False),
    ("tax_reference", "942-72-0000", False), ("tax_reference", "2625277683364", True),
    ("tax_reference", "26 25 277 683 364", True), ("tax_reference", "2625277683365", False),
    ("tax_reference", "5625277683364", False), ("tax_reference", "n/a", False), ("tax_reference", "0", False),
    ("it_piva", "00743110157", True), ("it_piva", "00743110158", False), ("it_piva", "12345678903", False),
    ("it_piva", "00000000000", False), ("it_piva", "0074311015", False),
])
def test_validators(name: str, value: str, ok: bool) -> None:
    assert V.VALIDATORS[name](value) is ok
