"""Three detection gaps closed as data (s23), through the real redactor with the built-in packs:

1. A shell default of a secret-named variable (`JWT_SECRET=${JWT_SECRET:-Zk8x...}`) loses the value
   alone (it lost the `-` with it); `${NAME}`, `${NAME:?msg}`, `${NAME:+word}`, `${NAME:N}` stay byte
   for byte. In .env lines, `export`, docker-compose `environment:` entries (list and map), YAML.
2. A UK postcode after a post town written in capitals as on an envelope (`LONDON SW1A 1AA`) goes;
   capitals in log lines and code (`ERROR E1 1AA`, `READING M1 OF THE MANUAL`) stay.
3. A labelled lat/lng pair whose serialiser dropped trailing zeros (`{"lat": 40.71, "lng": -74.006}`)
   is a place: two or more decimals each and five or more together (docs/RULES.md); region pairs
   (`40.7, -74.0`, `51.50, -0.13`), versions and scores stay. In text, a .json file, a Claude Code
   tool_result and a Codex function_call_output.

Carriers follow the seeds (claude-code.json tool_use/tool_result records, codex.json rollouts);
assertions are on the output bytes."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.fx_redact import builtin_redactor, claude_tool_result_redacted, kept, redacted, redacted_file
from tests.test_s22_gaps import one_token
from tests.test_s22_geo import _check_place, _claude_block_result, _codex_geocode

KEY = b"s23-rules-test-key-0123456789abcdefghijklm"
SECRET = "Zk8xQ2vLm9PwR4tY7uIo"
TOKEN = re.compile(r"<([A-Z][A-Z0-9_]*):[0-9a-f]{8}>")


@pytest.fixture(scope="module")
def red() -> Any:
    return builtin_redactor(KEY)


def _only_replaced(data: bytes, out: bytes, values: list[bytes], label: bytes) -> None:
    """`out` is `data` with each of `values` (in order) replaced by a `label` token, nothing else."""
    pattern = re.escape(data)
    for v in values:
        pattern = pattern.replace(re.escape(v), b"<" + label + b":[0-9a-f]{8}>", 1)
    assert re.fullmatch(pattern, out, re.DOTALL), out.decode()
    for v in values:
        assert v not in out


# ------------------------------------------------------------------ 1. shell defaults of secrets

@pytest.mark.parametrize("line,value,rule", [
    (f"JWT_SECRET=${{JWT_SECRET:-{SECRET}}}", SECRET, "secret-assignment-unquoted"),                 # .env
    (f'export JWT_SECRET="${{JWT_SECRET:-{SECRET}}}"', SECRET, "secret-assignment-unquoted"),        # shell
    (f"      - JWT_SECRET=${{JWT_SECRET:-{SECRET}}}", SECRET, "secret-assignment-unquoted"),         # compose list
    (f"      JWT_SECRET: ${{JWT_SECRET:-{SECRET}}}", SECRET, "secret-assignment-unquoted"),          # compose map
    (f'      JWT_SECRET: "${{JWT_SECRET:-{SECRET}}}"', SECRET, "secret-assignment-unquoted"),
    (f": \"${{API_TOKEN:-{SECRET}}}\"", SECRET, "secret-assignment-unquoted"),
    (f"api_key: ${{API_KEY:={SECRET}}}", SECRET, "secret-assignment-unquoted"),
    ("PAYMENTS_KEY=${PAYMENTS_KEY:-Pk7rT2mQ9xLs4vBn8cZe1wYh}", "Pk7rT2mQ9xLs4vBn8cZe1wYh", "named-key-assignment"),
    ("stripe_key: ${STRIPE_KEY:-Pk7rT2mQ9xLs4vBn8cZe1wYh}", "Pk7rT2mQ9xLs4vBn8cZe1wYh", "named-key-assignment"),
    ("KEY=${KEY:-Pk7rT2mQ9xLs4vBn8cZe1wYhA3dF6gJ0}", "Pk7rT2mQ9xLs4vBn8cZe1wYhA3dF6gJ0", "bare-key-assignment"),
])
def test_a_shell_default_of_a_secret_loses_the_value_alone(red: Any, line: str, value: str, rule: str) -> None:
    one_token(red, line, value, "SECRET", rule)


def test_the_default_gets_the_token_of_the_value_assigned_directly(red: Any) -> None:
    """The value alone is replaced: the `:-` default, the `:=` default and `X=value` get one token."""
    tokens = {TOKEN.search(redacted(red, line)[0]).group(0) for line in (  # type: ignore[union-attr]
        f"JWT_SECRET={SECRET}", f"JWT_SECRET=${{JWT_SECRET:-{SECRET}}}", f"JWT_SECRET=${{JWT_SECRET:={SECRET}}}")}
    assert len(tokens) == 1, tokens


@pytest.mark.parametrize("line", [
    "JWT_SECRET=${JWT_SECRET}",
    "JWT_SECRET=${JWT_SECRET:?JWT_SECRET must be set}",
    "      - API_TOKEN=${API_TOKEN:?API_TOKEN is required for the webhook}",
    f"API_TOKEN=${{API_TOKEN:+{SECRET}Abc}}",                # an alternate word, used when the variable is set
    "STRIPE_KEY=${STRIPE_KEY:+Pk7rT2mQ9xLs4vBn8cZe1wYh}",
    "KEY=${KEY:+Pk7rT2mQ9xLs4vBn8cZe1wYhA3dF6gJ0}",
    'echo "${SECRET_KEY:0:12345678901234567}..."',           # a substring
    "echo ${SECRET_KEY: -4}",
    "JWT_SECRET=${JWT_SECRET:-changeme}",
    "JWT_SECRET=${JWT_SECRET:-replace-with-a-long-random-string}",
    "API_TOKEN=${API_TOKEN:-$(cat /run/secrets/api-token)}",
    "CACHE_KEY=${CACHE_KEY:-Pk7rT2mQ9xLs4vBn8cZe1wYh}",      # a cache key's default is no secret
])
def test_expansions_that_hold_no_secret_stay(red: Any, line: str) -> None:
    assert kept(red, line) == {}


COMPOSE = f"""services:
  api:
    image: ghcr.io/acme/api:2.3
    environment:
      JWT_SECRET: ${{JWT_SECRET:-{SECRET}}}
      SESSION_SECRET: ${{SESSION_SECRET:?set SESSION_SECRET}}
      - API_TOKEN=${{API_TOKEN:=Hq7vT2mZp9Lx4RkWb3Nc}}
      - WEBHOOK_SECRET=${{WEBHOOK_SECRET}}
      - "SIGNING_SECRET=${{SIGNING_SECRET:-changeme}}"
""".encode()

DOTENV = f"""APP_ENV=production
JWT_SECRET=${{JWT_SECRET:-{SECRET}}}
export API_KEY="${{API_KEY:=Hq7vT2mZp9Lx4RkWb3Nc}}"
GITHUB_TOKEN=${{GITHUB_TOKEN:?run gh auth token}}
""".encode()


@pytest.mark.parametrize("name,data", [("docker-compose.yml", COMPOSE), (".env", DOTENV)])
def test_compose_and_env_files_keep_every_expansion_but_the_defaults(red: Any, tmp_path: Path, name: str,
                                                                     data: bytes) -> None:
    out, by_rule = redacted_file(red, tmp_path, name, data, fmt="text")
    _only_replaced(data, out, [SECRET.encode(), b"Hq7vT2mZp9Lx4RkWb3Nc"], b"SECRET")
    assert by_rule == {"secret-assignment-unquoted": 2}, by_rule


def test_a_claude_bash_tool_use_keeps_the_braces(red: Any, tmp_path: Path) -> None:
    command = f'JWT_SECRET="${{JWT_SECRET:-{SECRET}}}" ./run-api --port 8080'
    rec = {"parentUuid": "0b1e6f1e-3c2a-4d55-9e0b-0c7e2b9d4a11", "isSidechain": False, "userType": "external",
           "cwd": "/work/app", "sessionId": "5c0d3e0a-93f4-4b9e-a0a2-7a6f0e7d1c22", "version": "2.1.4",
           "type": "assistant", "message": {"id": "msg_011CUsS23rules", "type": "message", "role": "assistant",
                                            "model": "claude-opus-5-5", "content": [
               {"type": "tool_use", "id": "toolu_01S23rulesAbCdEfGhIjKl", "name": "Bash",
                "input": {"command": command, "description": "Start the API"}}]},
           "uuid": "7f3a2b1c-0d4e-4f5a-8b6c-9d0e1f2a3b4c", "timestamp": "2026-01-01T10:00:00.000Z"}
    src = json.dumps(rec, separators=(",", ":")).encode() + b"\n"
    out, by_rule = redacted_file(red, tmp_path, "claude.jsonl", src)
    got = json.loads(out)["message"]["content"][0]["input"]["command"]
    assert re.fullmatch(r'JWT_SECRET="\$\{JWT_SECRET:-<SECRET:[0-9a-f]{8}>\}" \./run-api --port 8080', got), got
    assert SECRET.encode() not in out and by_rule == {"secret-assignment-unquoted": 1}, by_rule


# ------------------------------------------------------------------ 2. postcodes after a town in capitals

@pytest.mark.parametrize("line,value", [
    ("LONDON SW1A 1AA", "SW1A 1AA"),
    ("MANCHESTER M1 1AE", "M1 1AE"),
    ("LEEDS LS1 4AP", "LS1 4AP"),
    ("Leeds LS1 4AP", "LS1 4AP"),
    ("NEWCASTLE UPON TYNE NE1 7RU", "NE1 7RU"),
    ("STOKE-ON-TRENT ST4 4DB", "ST4 4DB"),
    ("ACME LTD\nUNIT 4\n10 ELM GROVE\nGLASGOW G2 6AB\nUNITED KINGDOM\n", "G2 6AB"),
])
def test_a_postcode_after_a_town_in_capitals_goes(red: Any, line: str, value: str) -> None:
    one_token(red, line, value, "POSTCODE", "uk-postcode-after-town")


def test_capitals_and_title_case_give_one_token(red: Any) -> None:
    assert redacted(red, "LONDON SW1A 1AA")[0][len("LONDON "):] == redacted(red, "London SW1A 1AA")[0][len("London "):]


@pytest.mark.parametrize("line", [
    "ERROR E1 1AA",
    "2026-01-15T10:00:01Z WARN  [worker-3] M1 1AE rejected",
    "FATAL SW1A 1AA",
    "READING M1 OF THE MANUAL",
    "READINGS M1 1AE",
    "LONDONDERRY SW1A 1AA",
    "lONDON SW1A 1AA",
    "london SW1A 1AA",
    "LONDON_SW1A_1AA",
    'HULL = "E1 1AA"',
    "LEEDS LS1 4CP",                  # C is never in the inward code
    "MANCHESTER M1 1AEX",
])
def test_capitals_in_logs_and_code_stay(red: Any, line: str) -> None:
    assert kept(red, line) == {}


def test_a_shipping_label_read_by_claude_code(red: Any, tmp_path: Path) -> None:
    text = "Ship to:\nACME LTD\nUNIT 4, 10 ELM GROVE\nMANCHESTER M1 1AE\nUNITED KINGDOM\n"
    out, content, sidecar, by_rule = claude_tool_result_redacted(red, tmp_path, text)
    assert b"M1 1AE" not in out
    assert re.fullmatch(r"Ship to:\nACME LTD\nUNIT 4, 10 ELM GROVE\nMANCHESTER <POSTCODE:[0-9a-f]{8}>\nUNITED KINGDOM\n",
                        content), content
    assert content == sidecar
    assert by_rule == {"uk-postcode-after-town": 2}, by_rule  # the block and the sidecar field


# ------------------------------------------------------------------ 3. labelled lat/lng of fewer decimals

@pytest.mark.parametrize("line,pair", [
    ('Found: {"lat": 40.71, "lng": -74.006}', '40.71, "lng": -74.006'),
    ('"lat": 51.507, "lng": -0.128', '51.507, "lng": -0.128'),
    ("lat=51.5070&lon=-0.12", "51.5070&lon=-0.12"),
    ("https://api.example.com/nearby?lat=48.86&lng=2.352&radius=50", "48.86&lng=2.352"),
    ("latitude: 35.659, longitude: 139.70", "35.659, longitude: 139.70"),
])
def test_a_labelled_pair_of_five_decimals_together_goes(red: Any, line: str, pair: str) -> None:
    one_token(red, line, pair, "LOCATION", "gps-coordinates")


REGIONS = [
    '{"lat": 40.7, "lng": -74.0}',
    '{"lat": 40.71, "lng": -74.01}',          # 2+2: about 1 km square, a district
    '{"lat": 51.50, "lng": -0.13}',
    '{"lat": 40.7, "lng": -74.0060}',         # one decimal: an 11 km band whatever the partner
    '{"lat": 51.5, "lng": -0.128}',
    '{"version": 40.71, "lng": -74.006}',
    '{"latency": 40.71, "long": 74.006}',
    '{"precision": 0.71, "recall": 0.806, "f1": 0.7543}',
    '{"lat_ms": 40.71, "lng": -74.006}',
]


@pytest.mark.parametrize("text", REGIONS + ["location 48.858, 2.294", "version 1.23 lat 2.345", "v1.23 lat: 2.345 lng: 0.5"])
def test_regions_versions_and_scores_stay_as_text(red: Any, text: str) -> None:
    assert kept(red, text) == {}


@pytest.mark.parametrize("doc", REGIONS)
def test_regions_versions_and_scores_stay_in_a_json_file(red: Any, tmp_path: Path, doc: str) -> None:
    out, by_rule = redacted_file(red, tmp_path, "place.json", doc.encode(), "json")
    assert out == doc.encode() and by_rule == {}, (out, by_rule)


# (JSON as a tool wrote it, the same with the redacted values as "T", the literals that must go, places)
SHORT_PLACES = [
    ('{"lat": 40.71, "lng": -74.006}', '{"lat": "T", "lng": "T"}', ["40.71", "74.006"], 1),
    ('{"latitude": 51.507, "longitude": -0.128, "name": "office"}',
     '{"latitude": "T", "longitude": "T", "name": "office"}', ["51.507", "0.128"], 1),
    ('{"lat": "48.86", "lon": "2.352"}', '{"lat": "T", "lon": "T"}', ["48.86", "2.352"], 1),
    ('{"type": "Point", "coordinates": [-74.006, 40.71]}', '{"type": "Point", "coordinates": ["T", "T"]}',
     ["40.71", "74.006"], 1),
]
SHORT_IDS = ["lat-lng", "latitude-longitude", "numeric-strings", "geojson-point"]


@pytest.mark.parametrize("before,after,literals,places", SHORT_PLACES, ids=SHORT_IDS)
def test_a_json_file_loses_a_short_place(red: Any, tmp_path: Path, before: str, after: str,
                                         literals: list[str], places: int) -> None:
    out, by_rule = redacted_file(red, tmp_path, "place.json", before.encode(), "json")
    assert TOKEN.sub("T", out.decode()) == after  # byte for byte but the values
    _check_place(out.decode(), after, places)
    for lit in literals:
        assert lit.encode() not in out, lit
    assert by_rule == {"gps-coordinates": places}, by_rule


@pytest.mark.parametrize("before,after,literals,places", SHORT_PLACES, ids=SHORT_IDS)
def test_a_claude_result_and_a_codex_output_lose_a_short_place(red: Any, tmp_path: Path, before: str, after: str,
                                                               literals: list[str], places: int) -> None:
    claude, claude_rules = redacted_file(red, tmp_path, "claude.jsonl", _claude_block_result(before, json.loads(before)))
    codex, codex_rules = redacted_file(red, tmp_path, "rollout.jsonl", _codex_geocode(before))
    for lit in literals:
        assert lit.encode() not in claude and lit.encode() not in codex, lit
    rec = json.loads(claude)
    _check_place(rec["message"]["content"][0]["content"][0]["text"], after, places)
    _check_place(json.dumps(rec["toolUseResult"][1]["structuredContent"]), after, places)
    _check_place(json.loads(codex.splitlines()[2])["payload"]["output"], after, places)
    assert claude_rules == {"gps-coordinates": 3 * places} and codex_rules == {"gps-coordinates": places}
