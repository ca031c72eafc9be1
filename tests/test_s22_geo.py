"""A place held as JSON members (s22): `{"lat": 40.7128, "lng": -74.0060}`, `latitude`/`longitude`,
`{"location": {"lat", "lon"}}`, GeoJSON `coordinates` and `{"coords": "48.858370, 2.294481"}` lose both
values to one LOCATION token (the gps-coordinates rule, as it takes the pair in text), wherever the JSON
sits: a Claude Code tool_result (JSON text, a text block, a structured toolUseResult), a Codex
function_call_output (a string, a list of input_text items), a .json file. Regions, null island,
out-of-range pairs and float arrays come out byte for byte.

Through the real redactor with the built-in packs and real files (tests/fx_redact.py); asserted on the
output bytes and on the documents they parse to."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.fx_redact import builtin_redactor, redacted_file, redacted_table
from tests.test_s21_fin import _claude_tool_result

KEY = b"s22-geo-test-key-0123456789abcdefghijklmnop"
TOKEN = re.compile(r"<LOCATION:[0-9a-f]{8}>")
RULE = "gps-coordinates"


@pytest.fixture(scope="module")
def red():  # noqa: ANN201
    return builtin_redactor(KEY)


# (the JSON as a tool wrote it, the same with every redacted value as "T", the literals that must go,
# how many places)
SHAPES = [
    ('{"lat": 40.7128, "lng": -74.0060}', '{"lat": "T", "lng": "T"}', ["40.7128", "74.006"], 1),
    ('{"latitude": 48.8566, "longitude": 2.3522, "name": "Paris"}',
     '{"latitude": "T", "longitude": "T", "name": "Paris"}', ["48.8566", "2.3522"], 1),
    ('{"location": {"lat": 51.5072, "lon": -0.1276}, "accuracy_m": 12}',
     '{"location": {"lat": "T", "lon": "T"}, "accuracy_m": 12}', ["51.5072", "0.1276"], 1),
    ('{"type": "Point", "coordinates": [-0.1276, 51.5072]}',
     '{"type": "Point", "coordinates": ["T", "T"]}', ["51.5072", "0.1276"], 1),
    ('{"lat": "40.7128", "lng": "-74.0060"}', '{"lat": "T", "lng": "T"}', ["40.7128", "74.006"], 1),
    ('{"coords": "48.858370, 2.294481"}', '{"coords": "T"}', ["48.85837", "2.294481"], 1),
    ('{"type": "Feature", "geometry": {"type": "LineString", "coordinates": [[2.2945, 48.8584], '
     '[2.3522, 48.8566, 35.0]]}, "properties": {"name": "walk"}}',
     '{"type": "Feature", "geometry": {"type": "LineString", "coordinates": [["T", "T"], ["T", "T", 35.0]]}, '
     '"properties": {"name": "walk"}}', ["2.2945", "48.8584", "2.3522", "48.8566"], 2),
    # trailing zeros: as written in the file (40.7100), as a serialiser writes it (40.71) beside a partner of 4
    ('{"lat": 40.7100, "lng": -74.0060, "src": "gps"}', '{"lat": "T", "lng": "T", "src": "gps"}', ["40.71", "74.006"], 1),
]
SHAPE_IDS = ["lat-lng", "latitude-longitude", "nested-location", "geojson-point", "numeric-strings",
             "coords-string", "geojson-linestring", "trailing-zeros"]

KEPT = [
    '{"lat": 0, "lng": 0}',
    '{"lat": 0.000000, "lng": 0.000000}',
    '{"lat": 51.5, "lng": -0.12}',
    '{"lat": 51.51, "lng": -0.13}',
    '{"lat": 51.5, "lng": -0.1276}',
    '{"lat": 91.5072, "lng": -0.1276}',
    '{"lat": 51.5072, "lng": -190.1276}',
    '{"lat": 51.5072, "zoom": 12.5}',
    '{"lat": 1' + "0" * 400 + ', "lng": -74.0060}',
    '{"type": "Point", "coordinates": [-0.1276, 1' + "0" * 400 + ']}',
    '{"latitude": "n/a", "longitude": "n/a"}',
    '{"coordinates": [[0.1234, 0.5678], [0.9012, 0.3456]], "location": "layer 3"}',
    '{"type": "Tensor", "coordinates": [0.1234, 0.5678]}',
    '{"coords": "0.1234, 0.5678, 0.9012, 0.3456"}',
    '{"location": "embeddings", "vectors": [[0.1234, 0.5678, 0.9012], [0.3456, 0.7890, 0.1234]]}',
]


def _unredacted(doc: Any, tokens: list[str]) -> Any:
    """doc with every LOCATION token (collected in `tokens`) as "T"."""
    if isinstance(doc, dict):
        return {k: _unredacted(v, tokens) for k, v in doc.items()}
    if isinstance(doc, list):
        return [_unredacted(v, tokens) for v in doc]
    if isinstance(doc, str) and TOKEN.fullmatch(doc):
        tokens.append(doc)
        return "T"
    return doc


def _check_place(text: str, after: str, places: int) -> None:
    """text parses to `after` once its tokens are "T"; the two values of a pair hold one token."""
    tokens: list[str] = []
    assert _unredacted(json.loads(text), tokens) == json.loads(after)
    assert len(tokens) == after.count('"T"') and len(set(tokens)) == places, tokens


def _gone(out: bytes, literals: list[str]) -> None:
    for lit in literals:
        assert lit.encode() not in out, lit


# ------------------------------------------------------------------ Claude Code

def _claude_block_result(text: str, structured: Any) -> bytes:
    """A Claude Code user record whose tool_result content is an array of text blocks (claude-code.json
    contentBlocks `tool_result`), with the tool's structured result as toolUseResult (an MCP tool)."""
    return json.dumps({
        "parentUuid": "11111111-1111-4111-8111-111111111111", "isSidechain": False, "userType": "external",
        "cwd": "/srv/app", "sessionId": "5b1e8f0c-2d3a-4c4b-9e6f-7a8b9c0d1e2f", "version": "2.1.310",
        "gitBranch": "main", "entrypoint": "cli", "type": "user",
        "message": {"role": "user", "content": [{"tool_use_id": "toolu_01S22GeoGeocodeAddress", "type": "tool_result",
                                                 "content": [{"type": "text", "text": text}], "is_error": False}]},
        "uuid": "6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f", "timestamp": "2026-03-02T10:11:12.345Z",
        "toolUseResult": [{"type": "text", "text": text}, {"structuredContent": structured}],
        "sourceToolAssistantUUID": "22222222-2222-4222-8222-222222222222",
    }).encode() + b"\n"


@pytest.mark.parametrize("before,after,literals,places", SHAPES, ids=SHAPE_IDS)
def test_a_claude_tool_result_of_json_text_loses_the_place(red, tmp_path: Path, before: str, after: str,  # noqa: ANN001
                                                           literals: list[str], places: int) -> None:
    src = _claude_tool_result(before)
    out, counts = redacted_file(red, tmp_path, "claude.jsonl", src)
    _gone(out, literals)
    rec = json.loads(out)
    _check_place(rec["message"]["content"][0]["content"], after, places)
    _check_place(rec["toolUseResult"]["file"]["content"], after, places)
    assert counts == {RULE: 2 * places}, counts
    # the rest of the record is untouched
    orig = json.loads(src)
    for k in ("parentUuid", "cwd", "sessionId", "uuid", "timestamp", "sourceToolAssistantUUID"):
        assert rec[k] == orig[k]


# (not the trailing-zeros shape: serialised, 40.7100 and -74.0060 are 40.71 and -74.006, a place too
# (2+3 decimals, see RULES.md Locations) but not the token of the 4+4 text form)
@pytest.mark.parametrize("before,after,literals,places", SHAPES[:-1], ids=SHAPE_IDS[:-1])
def test_a_claude_text_block_and_structured_result_lose_the_place(red, tmp_path: Path, before: str,  # noqa: ANN001
                                                                  after: str, literals: list[str],
                                                                  places: int) -> None:
    src = _claude_block_result(before, json.loads(before))
    out, counts = redacted_file(red, tmp_path, "claude.jsonl", src)
    _gone(out, literals)
    rec = json.loads(out)
    _check_place(rec["message"]["content"][0]["content"][0]["text"], after, places)
    _check_place(rec["toolUseResult"][0]["text"], after, places)
    _check_place(json.dumps(rec["toolUseResult"][1]["structuredContent"]), after, places)
    assert counts == {RULE: 3 * places}, counts


def test_a_pair_has_the_token_the_text_form_gets(red, tmp_path: Path) -> None:  # noqa: ANN001
    """The same place written as JSON members and in prose: one token (the rule sees the same pair)."""
    out, _ = redacted_file(red, tmp_path, "claude.jsonl",
                           _claude_block_result('{"lat": 40.7128, "lng": -74.0060}', {"lat": 40.7128, "lng": -74.006}))
    prose = red.redact_text('Found: {"lat": 40.7128, "lng": -74.0060} (text)', None)
    (token,) = set(TOKEN.findall(prose))
    rec = json.loads(out)
    assert rec["toolUseResult"][1]["structuredContent"] == {"lat": token, "lng": token}


# ------------------------------------------------------------------ Codex

def _codex_geocode(output: Any) -> bytes:
    """A Codex rollout (codex.json): session_meta, an MCP function_call (namespace) and its output."""
    recs = [
        {"type": "session_meta", "payload": {"id": "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b",
                                             "timestamp": "2026-03-01T10:00:00.000Z", "cwd": "/srv/app",
                                             "originator": "codex_cli_rs", "cli_version": "0.150.0", "source": "cli",
                                             "model_provider": "openai"}},
        {"type": "response_item", "payload": {"type": "function_call", "name": "geocode", "namespace": "maps",
                                              "call_id": "call_s22geo",
                                              "arguments": json.dumps({"query": "the office"})}},
        {"type": "response_item", "payload": {"type": "function_call_output", "call_id": "call_s22geo",
                                              "output": output}},
    ]
    return b"".join(json.dumps({"timestamp": "2026-03-01T10:01:00.000Z", **r}).encode() + b"\n" for r in recs)


@pytest.mark.parametrize("before,after,literals,places", SHAPES, ids=SHAPE_IDS)
@pytest.mark.parametrize("as_items", [False, True], ids=["string", "input_text"])
def test_a_codex_function_call_output_loses_the_place(red, tmp_path: Path, before: str, after: str,  # noqa: ANN001
                                                      literals: list[str], places: int, as_items: bool) -> None:
    output = [{"type": "input_text", "text": before}] if as_items else before
    src = _codex_geocode(output)
    out, counts = redacted_file(red, tmp_path, "rollout.jsonl", src)
    _gone(out, literals)
    lines = out.splitlines()
    assert lines[:2] == src.splitlines()[:2]
    payload = json.loads(lines[2])["payload"]
    _check_place(payload["output"][0]["text"] if as_items else payload["output"], after, places)
    assert counts == {RULE: places}, counts


# ------------------------------------------------------------------ .json files

@pytest.mark.parametrize("before,after,literals,places", SHAPES, ids=SHAPE_IDS)
def test_a_json_file_loses_the_place_and_keeps_its_layout(red, tmp_path: Path, before: str, after: str,  # noqa: ANN001
                                                          literals: list[str], places: int) -> None:
    out, counts = redacted_file(red, tmp_path, "place.json", before.encode(), "json")
    assert TOKEN.sub("T", out.decode()) == after  # byte for byte but the values
    _check_place(out.decode(), after, places)
    assert counts == {RULE: places}, counts


FEATURES = """{
  "type": "FeatureCollection",
  "features": [
    {
      "type": "Feature",
      "geometry": {
        "type": "Point",
        "coordinates": [
          -73.9857,
          40.7484
        ]
      },
      "properties": {"name": "office", "lat_hint": 40.7484}
    },
    {
      "type": "Feature",
      "geometry": {"type": "Polygon", "coordinates": [[[2.2940, 48.8580], [2.2950, 48.8590], [2.2960, 48.8581],
                                                        [2.2940, 48.8580]]]},
      "properties": {"name": "park", "area_km2": 0.2500}
    }
  ]
}
"""


def test_a_geojson_file_loses_every_position_and_keeps_the_rest(red, tmp_path: Path) -> None:  # noqa: ANN001
    out, counts = redacted_file(red, tmp_path, "places.geojson.json", FEATURES.encode(), "json")
    doc = json.loads(out)
    for lit in ("73.9857", "2.2940", "48.8580", "2.2950", "48.8590", "2.2960", "48.8581"):
        assert lit.encode() not in out, lit
    point = doc["features"][0]["geometry"]["coordinates"]
    assert point[0] == point[1] and TOKEN.fullmatch(point[0])
    ring = doc["features"][1]["geometry"]["coordinates"][0]
    assert all(TOKEN.fullmatch(p[0]) and p[0] == p[1] for p in ring)
    assert ring[0] == ring[3] and len({p[0] for p in ring}) == 3  # the closed ring: one place twice
    # what is no coordinate pair stays as it was: a lone number under a key, another number
    assert doc["features"][0]["properties"] == {"name": "office", "lat_hint": 40.7484}
    assert doc["features"][1]["properties"] == {"name": "park", "area_km2": 0.25}
    assert counts == {RULE: 5}, counts


# ------------------------------------------------------------------ what stays

@pytest.mark.parametrize("doc", KEPT)
def test_regions_null_island_and_float_arrays_stay_byte_for_byte(red, tmp_path: Path, doc: str) -> None:  # noqa: ANN001
    for name, data, fmt in (("kept.json", doc.encode(), "json"),
                            ("claude.jsonl", _claude_tool_result(doc), "jsonl"),
                            ("claude2.jsonl", _claude_block_result(doc, json.loads(doc)), "jsonl"),
                            ("rollout.jsonl", _codex_geocode(doc), "jsonl")):
        out, counts = redacted_file(red, tmp_path, name, data, fmt)
        assert out == data, (name, out)
        assert counts == {}, (name, counts)


# ------------------------------------------------------------------ SQLite cells (OpenCode parts)

def test_opencode_part_cells_lose_the_place_and_keep_the_rest(red, tmp_path: Path) -> None:  # noqa: ANN001
    """OpenCode keeps a tool part as one JSON cell (opencode.json `part.data`): cells are redacted as a
    batch of JSON documents, one engine pass for all (JsonRedactor.redact_docs)."""
    def part(output: str) -> str:
        return json.dumps({"type": "tool", "tool": "maps_geocode", "callID": "call_s22geo",
                           "state": {"status": "completed", "input": {"query": "the office"}, "output": output}})
    rows = [(f"prt_{n}", part(before)) for n, (before, _, _, _) in enumerate(SHAPES)]
    rows += [(f"prt_kept_{n}", part(doc)) for n, doc in enumerate(KEPT)]
    out = redacted_table(red, "part", "id TEXT PRIMARY KEY, data TEXT", rows, tmp_path)
    for n, (_before, after, literals, places) in enumerate(SHAPES):
        _gone(out[f"prt_{n}"].encode(), literals)
        _check_place(json.loads(out[f"prt_{n}"])["state"]["output"], after, places)
    for n, doc in enumerate(KEPT):
        assert out[f"prt_kept_{n}"] == part(doc)
