"""Black-box leak hunt on encodings and nesting: secrets and PII as they appear inside agent
transcripts after encoding (JSON escapes, JSON in JSON, URL-encoding, every spelling of a home
folder, colour codes, terminal wrapping, diffs, heredocs, base64), planted by
tests/fx_s23_encodings.py from the seeds, synced with the CLI to moto on 127.0.0.1 and read back
with the `age` and `zstd` CLIs.

A needle counts as leaked when any view of an object holds it: the bytes as stored, every JSON
string (JSON inside strings walked too), and each of those with JSON escapes decoded, URL
escapes decoded twice and colour codes removed, the way a reviewer would read them.
"""

from __future__ import annotations

import json
import re
from typing import Any, Iterator
from urllib.parse import unquote

import pytest

from archiver.redact.base import RedactionReport
from tests.fx_s21_audit import AuditRun, audit_run
from tests.fx_s23_encodings import CASES, USER, build_home
from tests.fx_s3 import s3_server  # noqa: F401

ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\\u001[bB]\[[0-?]*[ -/]*[@-~]")
U_ESCAPE = re.compile(r"\\u([0-9a-fA-F]{4})")

GAPS: dict[str, str] = {}


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory, s3_server: str) -> Iterator[AuditRun]:  # noqa: F811
    base = tmp_path_factory.mktemp("s23enc")
    base.chmod(0o700)
    planted = build_home(base)
    r = audit_run(base, planted, USER, s3_server, [])
    yield r
    r.clean()


# ------------------------------------------------------------------ views

def json_strings(node: Any) -> Iterator[str]:
    """Every string of a JSON value (keys too), and those of JSON documents held in strings."""
    if isinstance(node, str):
        yield node
        if node[:1] in "{[":
            try:
                yield from json_strings(json.loads(node))
            except ValueError:
                pass
    elif isinstance(node, dict):
        for k, v in node.items():
            yield k
            yield from json_strings(v)
    elif isinstance(node, list):
        for v in node:
            yield from json_strings(v)


def decoded(text: str) -> list[str]:
    unescaped = U_ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), text.replace("\\/", "/"))
    return [text, unescaped, unquote(unquote(text)), ANSI.sub("", text), ANSI.sub("", unescaped)]


def views(data: bytes) -> str:
    text = data.decode("utf-8", "replace")
    parts = [text]
    for line in text.splitlines():
        try:
            parts += json_strings(json.loads(line))
        except ValueError:
            continue
    return "\n".join(v for p in parts for v in decoded(p))


@pytest.fixture(scope="module")
def object_views(run: AuditRun) -> dict[str, str]:
    return {key: views(data) for key, data in run.plaintexts.items()}


def leaks(run: AuditRun, object_views: dict[str, str], case: str) -> dict[str, list[str]]:
    """owner of the object -> where-labels of the case's needles found in its views."""
    out: dict[str, list[str]] = {}
    for key, text in object_views.items():
        low = text.lower()
        hits = [where for value, where in run.planted.needles[case].items() if value.lower() in low]
        if hits:
            out[run.object_owner(key)] = sorted(set(hits))
    return out


# ------------------------------------------------------------------ tests

def test_sync_archives_every_planted_session(run: AuditRun) -> None:
    assert run.sync_code == 0, run.outputs[1][1][-3000:]
    assert {s["key"] for s in run.ls["sessions"]} == run.planted.sessions
    assert run.sync_json["sessions"]["failed"] == 0


@pytest.mark.parametrize("case", [
    pytest.param(c, marks=pytest.mark.xfail(strict=True, reason=GAPS[c])) if c in GAPS else c for c in CASES])
def test_no_needle_in_any_view_of_any_object(run: AuditRun, object_views: dict[str, str], case: str) -> None:
    assert run.planted.needles[case], case
    found = leaks(run, object_views, case)
    assert not found, json.dumps(found, indent=1)


def test_no_needle_in_object_keys_metadata_or_cli_output(run: AuditRun) -> None:
    text = "\n".join(run.keys) + json.dumps(run.metadata) + "\n".join(out for _, out in run.outputs)
    every = {v: w for case in CASES for v, w in run.planted.needles[case].items()}
    assert not [w for v, w in every.items() if v.lower() in text.lower()]


def test_ids_come_out_byte_for_byte(run: AuditRun) -> None:
    """git SHAs, UUIDs, sha256 digests and base64 PNGs in the same carriers as the needles."""
    corpus = b"\n".join(run.plaintexts.values())
    missing = {v[:60]: where for v, where in run.planted.ids.items() if v.encode() not in corpus}
    assert not missing, json.dumps(missing, indent=1)
    assert len(run.planted.ids) >= 15


def test_base64_of_a_file_with_only_an_address_stays(run: AuditRun) -> None:
    """The decode pass counts the secrets, runtime and custom packs (docs/RULES.md, decode_packs):
    a run whose decoded text holds only a third party's address is kept as written."""
    corpus = b"\n".join(run.plaintexts.values())
    assert run.planted.kept_b64
    for value in run.planted.kept_b64:
        assert value.encode() in corpus


def test_a_secret_in_base64_replaces_the_whole_run(run: AuditRun) -> None:
    corpus = b"\n".join(run.plaintexts.values()).decode("utf-8", "replace")
    assert re.search(r"<BASE64_SECRET:[0-9a-f]{8}>", corpus)


def test_every_planted_file_is_archived(run: AuditRun) -> None:
    """The sidecars (tool-results, file-history) are archived, so their needles were looked for."""
    archived = {a["path"].rsplit("/", 1)[-1] for s in run.ls["sessions"] for a in s["artifacts"]}
    planted = {p.name for p in run.planted.home.rglob("*") if p.is_file()}
    assert planted <= archived, sorted(planted - archived)


# ------------------------------------------------------------------ the same carriers, in process

@pytest.fixture(scope="module")
def red() -> Any:
    from tests.fx_redact import builtin_redactor

    return builtin_redactor(b"s23-encodings-key-0123456789abcd", usernames=[USER])


@pytest.mark.parametrize("text, value", [
    # JSON held as text keeps its escapes (each was a leak before the rule change beside it)
    ('{"level":"warn","upstream":"https:\\/\\/svc:Qx7-mLp2#w9@queue:8443\\/jobs"}\n{"level":"info"}', "Qx7-mLp2#w9"),
    ('HTTP/1.1 200 OK\r\n\r\n{"dsn":"postgres:\\/\\/admin:Zt8kQw3mNp5x@db:5432\\/app"}', "Zt8kQw3mNp5x"),
    ('log {"to":"j\\u00fcrgen.\\u00f6lmann@b\\u00fccher-nord.de"}', "j\\u00fcrgen"),
    ('log {"email":"zo\\u00eb.m\\u00fcller@firma.de"}', "zo\\u00eb"),
    ("GET /cb?next=postgresql%3A%2F%2Fadmin%3Ap4Ss-w0rd%2142%40db%3A5432%2Fapp", "p4Ss-w0rd"),
    ("wss://rt.northwind.io/ws?h=Authorization%3A%20Bearer%20Zt8kQw3mNp5xLr7YqW2e", "Zt8kQw3mNp5xLr7YqW2e"),
    ("next=%2Flogin%3Fuser%3Dops%26password%3DHunt3r-2Xq%2521", "Hunt3r-2Xq"),
])
def test_encoded_value_goes_as_text_and_as_a_json_value(red: Any, text: str, value: str) -> None:
    from tests.fx_redact import redacted

    out, _ = redacted(red, text)
    assert value not in out, out
    line = json.dumps({"type": "user", "message": {"content": [{"type": "tool_result", "content": text}]}}).encode()
    assert value.encode() not in red.redact_jsonl_line(line, RedactionReport())


@pytest.mark.parametrize("text", [
    "redirect_uri=https%3A%2F%2Fapp.northwind.io%2Fcallback%3Fstate%3D6f1c2b3a-4d5e-4f60-8a7b-9c0d1e2f3a4b",
    "u=https%3A%2F%2Fhost%3A8443%2Fa%40b%3Fsha%3D3f9a2c1d4e5b6a7980b1c2d3e4f5061728394a5b",
    '{"from":"CI \\u003cci@example.com\\u003e","url":"https:\\/\\/cdn.northwind.io\\/a\\/e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855.js"}',
    "x%20bearer%20authentication%20is%20described%20in%20RFC%206750",
    '"caf\\u00e9 cr\\u00e8me" @ 3f9a2c1d4e5b6a7980b1c2d3e4f5061728394a5b',
])
def test_ids_and_prose_in_the_same_encodings_stay(red: Any, text: str) -> None:
    from tests.fx_redact import kept

    kept(red, text)
