"""Three detection gaps closed as data (s23-rules2), through the real redactor with the built-in packs:

1. An assignment whose `=` is itself URL-encoded (`next=%2Flogin%3Fuser%3Dbob%26password%3DHunt3r-2Xq%2521`):
   `%3D` is the operator, the value runs to `%26` (an encoded `&`) or to a character no URL holds;
   `%21`, `%2521` inside it belong to it. An encoded `${...}`, an empty value, base64 padding stay.
2. A `${NAME:-value}` / `${NAME:=value}` default of a secret-named variable is the value alone for
   env-secret-assignment (the lower bar: `API_TOKEN=${API_TOKEN:-abc123def456}`); a default of
   lower-case or CamelCase words (`postgres`, `postgres_dev`) is a development fallback, as in the
   password rules (s22); `${NAME}`, `${NAME:?msg}`, `${NAME:+x}`, `${NAME:N}` stay byte for byte.
3. A UK postcode on its own line after its post town (the envelope layout), with a raw line break,
   CRLF, or a JSON `\\n` escape between them; a sentence ending in a town (`Reading.`), two line
   breaks, and codes the validator refuses stay.

Carriers follow the seeds (claude-code.json tool_result records with their toolUseResult sidecar
field); assertions are on the output bytes."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.fx_redact import builtin_redactor, claude_tool_result_redacted, kept, redacted, redacted_file
from tests.test_s22_gaps import one_token

KEY = b"s23-rules2-test-key-0123456789abcdefghijk"
TOKEN = re.compile(r"<([A-Z][A-Z0-9_]*):[0-9a-f]{8}>")


@pytest.fixture(scope="module")
def red() -> Any:
    return builtin_redactor(KEY)


def _token_of(red: Any, text: str) -> str:
    m = TOKEN.search(redacted(red, text)[0])
    assert m is not None, text
    return m.group(0)


# ------------------------------------------------------------------ 1. URL-encoded assignments

@pytest.mark.parametrize("line,value,label,rule", [
    ("next=%2Flogin%3Fuser%3Dbob%26password%3DHunt3r-2Xq%2521", "Hunt3r-2Xq%2521", "PASSWORD",
     "password-assignment-urlencoded"),
    ("next=%2Flogin%3Fuser%3Dbob%26password%3DHunt3r-2Xq%2521%26remember%3D1", "Hunt3r-2Xq%2521", "PASSWORD",
     "password-assignment-urlencoded"),
    ("GET /sso?return=%2Fapp%3Fdb_pass%3dS3cr3t%21Pa55%2Bx HTTP/1.1", "S3cr3t%21Pa55%2Bx", "PASSWORD",
     "password-assignment-urlencoded"),
    ("r=%2Fjoin%3Fpassphrase%3Dcorrect+horse+battery+staple%26go%3D1", "correct+horse+battery+staple", "PASSWORD",
     "password-assignment-urlencoded"),
    ("redirect_uri=%2Fcb%3Fapi_token%3DZk8xQ2vLm9PwR4tY7uIo%26state%3Dabc", "Zk8xQ2vLm9PwR4tY7uIo", "SECRET",
     "secret-assignment-urlencoded"),
    ("u=https%3A%2F%2Fapi.example.com%2Fv1%3Fclient_secret%3DFAKEexample789abcdef%2F%2B%3D%3D",
     "FAKEexample789abcdef%2F%2B%3D%3D", "SECRET", "secret-assignment-urlencoded"),
])
def test_an_url_encoded_assignment_loses_the_value_alone(red: Any, line: str, value: str, label: str,
                                                         rule: str) -> None:
    one_token(red, line, value, label, rule)


def test_the_encoded_value_gets_the_token_of_the_plain_one(red: Any) -> None:
    """The pseudonym is of the value as written: `password%3DX` and `password=X` give one token."""
    assert (_token_of(red, "next=%2Flogin%3Fpassword%3DHunt3r-2Xq%2521")
            == _token_of(red, "https://app.example.com/login?password=Hunt3r-2Xq%2521"))


@pytest.mark.parametrize("line", [
    "next=%2Flogin%3Fuser%3Dbob%26password%3D",                              # nothing assigned
    "next=%2Flogin%3Fpassword%3D%26user%3Dbob",
    "next=%2Flogin%3Fpassword%3D%24%7BDB_PASSWORD%7D",                      # an encoded ${DB_PASSWORD}
    "next=%2Fcb%3Fapi_token%3D%24%7BAPI_TOKEN%7D%26x%3D1",
    "q=how+to+reset+password%3D+in+django",                                # `=` then a space: prose
    "cursor=c2Vzc2lvbl9wYXNzd29yZF9yZXNldF9w_pw%3D%3D&limit=20",          # base64 padding
    "sig=YWJjZGVmZ2hpams-bGFzdF9wYXNz%3D%3D",
    "next=%2Fcb%3Fnext_page_token%3DZk8xQ2vLm9PwR4tY7uIo%26n%3D2",          # a pagination token
    "next=%2Flogin%3Fpassword%3Dchangeme",
    "next=%2Fcb%3Fapi_token%3Daaaaaaaaaaaaaaaaaaaaaaaa",                     # no entropy
])
def test_encoded_text_that_assigns_no_secret_stays(red: Any, line: str) -> None:
    assert kept(red, line) == {}


def test_an_encoded_login_url_in_a_claude_tool_result(red: Any, tmp_path: Path) -> None:
    text = ("302 Found\nLocation: https://sso.example.com/authorize?client_id=web&next=%2Flogin%3Fuser%3Dops"
            "%26password%3DHunt3r-2Xq%2521%26remember%3D1\n")
    out, content, sidecar, by_rule = claude_tool_result_redacted(red, tmp_path, text)
    assert b"Hunt3r" not in out
    assert re.fullmatch(r"302 Found\nLocation: https://sso\.example\.com/authorize\?client_id=web&next=%2Flogin"
                        r"%3Fuser%3Dops%26password%3D<PASSWORD:[0-9a-f]{8}>%26remember%3D1\n", content), content
    assert content == sidecar
    assert by_rule == {"password-assignment-urlencoded": 2}, by_rule


# ------------------------------------------------------------------ 2. env defaults

@pytest.mark.parametrize("line,value", [
    ("API_TOKEN=${API_TOKEN:-abc123def456}", "abc123def456"),
    ("export API_TOKEN=${API_TOKEN:=abc123def456}", "abc123def456"),
    ('SIGNING_SECRET="${SIGNING_SECRET:-sig2024dev}"', "sig2024dev"),
    ("      - SSHPASS=${SSHPASS:-Ssh-Pw-2024x}", "Ssh-Pw-2024x"),
    ("      WEBHOOK_SECRET: ${WEBHOOK_SECRET:-wh5ecret99}", "wh5ecret99"),
])
def test_a_default_is_the_value_for_env_secret_assignment(red: Any, line: str, value: str) -> None:
    one_token(red, line, value, "SECRET", "env-secret-assignment")


def test_the_default_gets_the_token_of_the_value_assigned_directly(red: Any) -> None:
    tokens = {_token_of(red, line) for line in ("API_TOKEN=abc123def456", "API_TOKEN=${API_TOKEN:-abc123def456}",
                                                "API_TOKEN=${API_TOKEN:=abc123def456}")}
    assert len(tokens) == 1, tokens


@pytest.mark.parametrize("line", [
    "API_TOKEN=${API_TOKEN}",
    "API_TOKEN=${API_TOKEN:?API_TOKEN must be set}",
    "API_TOKEN=${API_TOKEN:+abc123def456}",                  # an alternate word, used when the variable is set
    'echo "${API_TOKEN:0:12}..."',
    "echo ${API_TOKEN: -4}",
    "API_TOKEN=${API_TOKEN:-}",
    "API_TOKEN=${API_TOKEN:-${FALLBACK_TOKEN}}",
    "      - POSTGRES_PASSWORD=${POSTGRES_PASSWORD:-postgres}",     # a well-known default word (tests/test_s22_shell.py)
    "    POSTGRES_PASSWORD: ${POSTGRES_PASSWORD:-postgres}",
    "DB_PASSWORD=${DB_PASSWORD:-postgres_dev}",
    "SESSION_SECRET=${SESSION_SECRET:-DevelopmentSecret}",
    "password: ${DB_PASSWORD:-hunter}\n",                         # yaml-password-letters: see its comment
    "    MYSQL_ROOT_PASSWORD: ${MYSQL_ROOT_PASSWORD:-sunflowerfield}\n",
])
def test_expansions_and_word_defaults_stay(red: Any, line: str) -> None:
    assert kept(red, line) == {}


COMPOSE = b"""services:
  db:
    image: postgres:16
    environment:
      POSTGRES_PASSWORD: ${POSTGRES_PASSWORD:-postgres}
      - API_TOKEN=${API_TOKEN:-abc123def456}
      - GITHUB_TOKEN=${GITHUB_TOKEN:?run gh auth token}
      - WEBHOOK_SECRET=${WEBHOOK_SECRET:+wh5ecret99}
      - CACHE_TTL=${CACHE_TTL:-3600}
"""


def test_compose_file_loses_the_secret_default_alone(red: Any, tmp_path: Path) -> None:
    out, by_rule = redacted_file(red, tmp_path, "docker-compose.yml", COMPOSE, fmt="text")
    pattern = re.escape(COMPOSE).replace(b"abc123def456", rb"<SECRET:[0-9a-f]{8}>")
    assert re.fullmatch(pattern, out, re.DOTALL), out.decode()
    assert by_rule == {"env-secret-assignment": 1}, by_rule


# ------------------------------------------------------------------ 3. a postcode on the line after the town

@pytest.mark.parametrize("text,value", [
    ("MR J SMITH\n10 ELM GROVE\nMANCHESTER\nM1 1AE", "M1 1AE"),
    ("MR J SMITH\r\n10 ELM GROVE\r\nMANCHESTER\r\nM1 1AE\r\nUNITED KINGDOM\r\n", "M1 1AE"),
    ('{"address": "10 Elm Grove\\nManchester\\nM1 1AE"}', "M1 1AE"),        # JSON in text: escapes
    ('{"address": "10 Elm Grove\\r\\nManchester\\r\\nM1 1AE"}', "M1 1AE"),
    ("Acme Ltd\nUnit 4, 10 Elm Grove, Leeds\nLS1 4AP\n", "LS1 4AP"),
    ("The Old Mill\nSTOKE-ON-TRENT  \nST4 4DB\n", "ST4 4DB"),
    ("Further Reading\nM1 1AE", "M1 1AE"),                # no full stop: a town line (rule comment)
])
def test_a_postcode_on_the_line_after_its_town_goes(red: Any, text: str, value: str) -> None:
    one_token(red, text, value, "POSTCODE", "uk-postcode-after-town")


@pytest.mark.parametrize("text", [
    "LEEDS\nLS1 4CP",                                     # C is never in the inward code
    "2026-01-15T10:00:01Z INFO synced LONDON\nQW1 6XP parity check",   # Q never starts an area
    "2026-01-15T10:00:01Z INFO synced LONDON\\nM1 1AEX parity check",
    "I grew up near Reading.\nM1 1AE is the code we used at the Manchester office",
    "MANCHESTER\n\nM1 1AE",                               # two line breaks: not one address block
    "london\nSW1A 1AA",
    "READING\nM1 OF THE MANUAL",
    "LONDONDERRY\nSW1A 1AA",
])
def test_a_town_at_a_line_end_and_no_postcode_after_stays(red: Any, text: str) -> None:
    assert kept(red, text) == {}


def test_an_envelope_read_by_claude_code(red: Any, tmp_path: Path) -> None:
    """The JSON record's strings are decoded before the scan: the break is a raw newline there."""
    text = "Ship to:\nMR J SMITH\n10 ELM GROVE\nMANCHESTER\nM1 1AE\nUNITED KINGDOM\n"
    out, content, sidecar, by_rule = claude_tool_result_redacted(red, tmp_path, text)
    assert b"M1 1AE" not in out
    assert re.fullmatch(r"Ship to:\nMR J SMITH\n10 ELM GROVE\nMANCHESTER\n<POSTCODE:[0-9a-f]{8}>\nUNITED KINGDOM\n",
                        content), content
    assert content == sidecar
    assert by_rule == {"uk-postcode-after-town": 2}, by_rule


def test_the_line_break_gives_the_token_of_the_same_line_form(red: Any) -> None:
    assert _token_of(red, "MANCHESTER\nM1 1AE") == _token_of(red, "MANCHESTER M1 1AE")
