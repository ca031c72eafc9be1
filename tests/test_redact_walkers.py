"""Format walkers: JSONL/JSON (escapes, JSON-in-strings, keys, skipped opaque fields), text, paths, protobuf."""

from __future__ import annotations

import base64
import hashlib
import io
import json
from pathlib import Path
from typing import Any

import orjson
import pytest
import zstandard

from archiver.redact import walkers
from archiver.redact.base import RedactionReport
from archiver.redact.pseudonym import Pseudonymizer
from archiver.redact.redactor import RuleRedactor, build_redactor
from archiver.redact.rules import RuntimeTerms
from archiver.redact.walkers import protobuf, text

KEY = b"team-key-for-tests-0123456789abcdef"
AWS = "AKIAQYLPMN5HHHFPZAM2"
GHP = "ghp_R8fJ2kLm9QwErTyUiOpAsDfGhJkLzXcVbN12"
UUID = "0d4f5b8e-9c3a-4e7b-8f21-6a5d3c2b1e0f"
GIT_SHA = "3f786850e387550fdab836ed7e6dc881de23001b"
SHA256 = hashlib.sha256(b"x").hexdigest()
# Opaque values that happen to contain things rules would match: they must survive untouched.
SIGNATURE = base64.b64encode(b"sig" * 40).decode() + "/home/alice/" + "Ew" * 20
ENCRYPTED = "gAAAAABo" + base64.urlsafe_b64encode(bytes(range(200))).decode() + "/home/alice/x"
PNG = "iVBORw0KGgoAAAANSUhEUgAA" + "/home/alice/" + base64.b64encode(bytes(range(256)) * 3).decode()
PEM_BODY = "\n".join(["MIIEowIBAAKCAQEAq7BFUpkGp3LQmlQZx1Yc8vR2nT0kL3mW9pQ4sX7uE5aB6dCq"] * 4)
PEM = f"-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY}\n-----END RSA PRIVATE KEY-----"
USER = Pseudonymizer(KEY).username("alice")


@pytest.fixture(scope="module")
def red() -> RuleRedactor:
    return build_redactor(["builtin:secrets", "builtin:pii", "builtin:paths"], KEY,
                          RuntimeTerms(usernames=["alice"], home_dirs=["/home/alice"]))


def _shape(obj: Any) -> Any:
    """Structure with keys but no string values (path-like keys collapsed)."""
    if isinstance(obj, dict):
        return {("<path>" if k.startswith("/home/") else k): _shape(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_shape(v) for v in obj]
    return type(obj).__name__


CLAUDE_LINE = {
    "parentUuid": UUID, "isSidechain": False, "cwd": "/home/alice/app", "sessionId": UUID,
    "gitBranch": "main", "type": "assistant", "requestId": "req_011CWd7pYxQzN1a2B3c4D5e6",
    "message": {"id": "msg_01XyZ123abcDEF456ghiJK", "role": "assistant", "content": [
        {"type": "thinking", "thinking": "read /home/alice/app/.env first", "signature": SIGNATURE},
        {"type": "text", "text": f"Found {AWS} and {GHP} in commit {GIT_SHA} (sha256 {SHA256})"},
        {"type": "tool_use", "id": "toolu_01ABCdefGHIjklMNOpqrSTUv", "name": "Read",
         "input": {"file_path": "/home/alice/app/.env"}},
    ]},
}
IMAGE_LINE = {"type": "user", "uuid": UUID, "message": {"role": "user", "content": [
    {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}},
    {"type": "text", "text": "screenshot from /home/alice/Desktop"}]}}
CODEX_LINES = [
    {"type": "response_item", "payload": {"type": "reasoning", "summary": [], "encrypted_content": ENCRYPTED}},
    {"type": "response_item", "payload": {
        "type": "function_call", "name": "shell", "call_id": "call_Zx81mK2Jq9LmW3nT7bR4cV5d",
        "arguments": json.dumps({"command": ["bash", "-lc", f"cat /home/alice/.env; echo {GHP}"],
                                 "workdir": "/home/alice/app"}, separators=(",", ":"))}},
    {"type": "response_item", "payload": {"type": "message", "role": "user", "content": [
        {"type": "input_image", "image_url": "data:image/png;base64," + PNG}]}},
]
SNAPSHOT_LINE = {"type": "file-history-snapshot", "messageId": UUID, "snapshot": {"trackedFileBackups": {
    "/home/alice/app/a.py": {"backupFileName": f"{GIT_SHA[:16]}@v2", "version": 2},
    "/home/alice/app/b.py": {"backupFileName": f"{SHA256[:16]}@v1", "version": 1}}}}


def test_jsonl_lines_keep_structure_and_decoys(red: RuleRedactor) -> None:
    rep = RedactionReport()
    for obj in [CLAUDE_LINE, IMAGE_LINE, *CODEX_LINES, SNAPSHOT_LINE]:
        raw = orjson.dumps(obj)
        out = red.redact_jsonl_line(raw, rep)
        parsed = orjson.loads(out)
        assert _shape(parsed) == _shape(obj)
        for secret in (AWS, GHP, "alice/app", "alice/.env", "alice/Desktop"):
            assert secret.encode() not in out.replace(SIGNATURE.encode(), b"").replace(
                ENCRYPTED.encode(), b"").replace(PNG.encode(), b"")
        for decoy in (UUID, GIT_SHA, SHA256, SIGNATURE, ENCRYPTED, PNG, "toolu_01ABCdefGHIjklMNOpqrSTUv",
                      "msg_01XyZ123abcDEF456ghiJK", "req_011CWd7pYxQzN1a2B3c4D5e6", "call_Zx81mK2Jq9LmW3nT7bR4cV5d"):
            assert raw.count(decoy.encode()) == out.count(decoy.encode()), decoy
    args = json.loads(orjson.loads(red.redact_jsonl_line(orjson.dumps(CODEX_LINES[1]), rep))["payload"]["arguments"])
    assert args["workdir"] == f"/home/{USER}/app" and GHP not in args["command"][2]
    snap = orjson.loads(red.redact_jsonl_line(orjson.dumps(SNAPSHOT_LINE), rep))
    assert sorted(snap["snapshot"]["trackedFileBackups"]) == [f"/home/{USER}/app/a.py", f"/home/{USER}/app/b.py"]
    carriers = rep.by_carrier()
    assert {"jsonl", "jsonl:key", "json-in-string"} <= set(carriers)
    assert "home-linux" in carriers["jsonl:key"]


def test_escaped_secrets_are_found_and_clean_lines_untouched(red: RuleRedactor) -> None:
    rep = RedactionReport()
    raw = (b'{"a":"key \\u0041KIAQYLPMN5HHHFPZAM2","b":"mail bob.stone\\u0040northwind-traders.com",'
           b'"c":"\\/home\\/alice\\/x","n":1.5}')
    out = red.redact_jsonl_line(raw, rep)
    parsed = orjson.loads(out)
    assert AWS[1:] not in parsed["a"] and "northwind" not in parsed["b"] and parsed["c"] == f"/home/{USER}/x"
    assert b"KIAQYLPMN5HHHFPZAM2" not in out and b"northwind" not in out and parsed["n"] == 1.5
    clean = b'{"type":"user","uuid":"' + UUID.encode() + b'","message":{"content":"hello \\u001b[1mworld\\u001b[0m"}}'
    assert red.redact_jsonl_line(clean, rep) is clean


def test_private_key_inside_json_string(red: RuleRedactor) -> None:
    raw = orjson.dumps({"type": "user", "toolUseResult": {"stdout": f"$ cat id_rsa\n{PEM}\n$ "}})
    out = red.redact_jsonl_line(raw, RedactionReport())
    stdout = orjson.loads(out)["toolUseResult"]["stdout"]
    assert "MIIEowIBAAKCAQEA" not in stdout and "<PRIVATE_KEY:" in stdout and stdout.startswith("$ cat id_rsa\n")


def test_unparsable_lines_are_redacted_as_text(red: RuleRedactor) -> None:
    rep = RedactionReport()
    before = red.warnings["jsonl-unparsable-line"]
    torn = b'{"cwd":"/home/alice/app","text":"key ' + AWS.encode()
    out = red.redact_jsonl_line(torn, rep)
    assert b"alice" not in out and AWS.encode() not in out and out.startswith(b'{"cwd":"/home/user-')
    bad_utf8 = b'{"a":"\xff\xfe /home/alice/x"}'
    assert red.redact_jsonl_line(bad_utf8, rep) == b'{"a":"\xff\xfe /home/' + USER.encode() + b'/x"}'
    assert red.warnings["jsonl-unparsable-line"] == before + 2
    assert "jsonl:raw" in rep.by_carrier()
    lone = b'{"a":"\\ud800 /home/alice/x"}'  # valid JSON that orjson refuses
    out = red.redact_jsonl_line(lone, rep)
    assert json.loads(out) == {"a": f"\ud800 /home/{USER}/x"}


def test_redact_files_jsonl_zst_json_text_binary(red: RuleRedactor, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    lines = [orjson.dumps(o) for o in [CLAUDE_LINE, IMAGE_LINE, *CODEX_LINES, SNAPSHOT_LINE]]
    src = tmp_path / "s.jsonl"
    src.write_bytes(b"\n".join(lines) + b"\n" + b'{"torn":"/home/alice')
    rep = RedactionReport()
    red.redact_file(src, tmp_path / "o.jsonl", "jsonl", rep)
    out_lines = (tmp_path / "o.jsonl").read_bytes().split(b"\n")
    assert len(out_lines) == len(lines) + 1 and b"alice" not in out_lines[-1]
    assert [_shape(orjson.loads(x)) for x in out_lines[:-1]] == [_shape(orjson.loads(x)) for x in lines]
    assert red.verify_file(src, "jsonl") and red.verify_file(tmp_path / "o.jsonl", "jsonl") == []

    zsrc = tmp_path / "r.jsonl.zst"
    zsrc.write_bytes(zstandard.ZstdCompressor().compress(b"\n".join(lines) + b"\n"))
    red.redact_file(zsrc, tmp_path / "r.out.zst", "jsonl.zst", rep)
    plain = zstandard.ZstdDecompressor().decompressobj().decompress((tmp_path / "r.out.zst").read_bytes())
    assert plain == (tmp_path / "o.jsonl").read_bytes().rsplit(b"\n", 1)[0] + b"\n"
    assert red.verify_file(tmp_path / "r.out.zst", "jsonl.zst") == []

    meta = tmp_path / "meta.json"
    meta.write_text(json.dumps({"cwd": "/home/alice/app", "id": UUID, "nested": {"token": GHP}}, indent=2))
    red.redact_file(meta, tmp_path / "meta.out.json", "json", rep)
    out = (tmp_path / "meta.out.json").read_text()
    assert out.splitlines()[1] == f'  "cwd": "/home/{USER}/app",' and GHP not in out and UUID in out

    monkeypatch.setattr(text, "CHUNK", 97)  # force the PEM block across chunk boundaries
    body = "x" * 60 + "\nlog line by alice\n" + PEM + "\nafter " + AWS + "\n" + "é" * 30 + "\n"
    (tmp_path / "t.txt").write_bytes(body.encode() + b"\xff\n")
    red.redact_file(tmp_path / "t.txt", tmp_path / "t.out", "text", rep)
    tout = (tmp_path / "t.out").read_bytes()
    assert b"MIIEowIBAAKCAQEA" not in tout and AWS.encode() not in tout and b"alice" not in tout
    assert tout.endswith(("é" * 30).encode() + b"\n\xff\n") and b"-----BEGIN RSA PRIVATE KEY-----" in tout
    assert red.verify_file(tmp_path / "t.txt", "text") and red.verify_file(tmp_path / "t.out", "text") == []

    blob = bytes(range(256)) + b"/home/alice/" + AWS.encode()
    (tmp_path / "b.bin").write_bytes(blob)
    red.redact_file(tmp_path / "b.bin", tmp_path / "b.out", "binary", rep)
    assert (tmp_path / "b.out").read_bytes() == blob


def test_redact_relpath(red: RuleRedactor) -> None:
    rep = RedactionReport()
    assert red.redact_relpath(".claude/projects/-home-alice-work-app/x.jsonl", rep) == \
        f".claude/projects/-home-{USER}-work-app/x.jsonl"
    assert red.redact_relpath(".pi/agent/sessions/--home-alice-proj--/s.jsonl", rep) == \
        f".pi/agent/sessions/--home-{USER}-proj--/s.jsonl"
    assert red.redact_relpath(f".codex/sessions/2026/11/29/rollout-{UUID}.jsonl", rep).endswith(f"{UUID}.jsonl")
    assert set(rep.by_carrier()) == {"path"}


def _field(no: int, wire: int, payload: bytes) -> bytes:
    head = protobuf._encode_varint(no << 3 | wire)
    return head + (protobuf._encode_varint(len(payload)) + payload if wire == 2 else payload)


def test_protobuf_strings_are_redacted_and_lengths_rewritten(red: RuleRedactor) -> None:
    inner = _field(1, 2, f"run cat /home/alice/.env, token {GHP}".encode()) + _field(2, 0, b"\x96\x01")
    msg = (_field(1, 0, b"\x05") + _field(3, 2, inner) + _field(4, 2, bytes(range(16)))
           + _field(5, 5, b"abcd") + _field(6, 1, b"12345678") + _field(7, 2, b'{"cwd":"/home/alice/x"}'))
    rep = RedactionReport()
    out = red.redact_protobuf(msg, rep)
    assert b"alice" not in out and GHP.encode() not in out
    fields = protobuf.parse(out)
    assert fields is not None and [f[4] for f in fields] == [0, 2, 2, 5, 1, 2]
    nested = out[fields[1][2]:fields[1][3]]
    assert protobuf.parse(nested) is not None and USER.encode() in nested
    assert out[fields[2][2]:fields[2][3]] == bytes(range(16))
    assert json.loads(out[fields[5][2]:fields[5][3]]) == {"cwd": f"/home/{USER}/x"}
    assert red.redact_protobuf(out, RedactionReport()) == out
    before = red.warnings["protobuf-malformed"]
    for bad in (msg[:-3], b"\x0b\x01\x0c", b"\x0a\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"):
        assert red.redact_protobuf(bad, RedactionReport()) is bad
    assert red.warnings["protobuf-malformed"] == before + 3
    assert walkers.protobuf.redact_message(b"", lambda b: b) is None


def test_raw_line_gate_never_hides_an_anchored_always_on_rule(tmp_path: Path) -> None:
    pack = tmp_path / "mine.toml"
    pack.write_text("""[pack]
name = "mine"
version = 1
[[rules]]
id = "whole-token"
regex = '''^(tok[0-9]{4})$'''
label = "TOK"
""", "utf-8")
    red = build_redactor([str(pack)], KEY, RuntimeTerms())
    rep = RedactionReport()
    out = red.redact_jsonl_line(b'{"a":"tok1234","b":"x tok5678"}', rep)
    assert orjson.loads(out) == {"a": Pseudonymizer(KEY).token("TOK", b"tok1234"), "b": "x tok5678"}
    clean = b'{"a":"nothing here","n":[1,2,3]}'
    assert red.redact_jsonl_line(clean, rep) is clean
    assert red.redact_jsonl_lines([clean, b'{"a":"tok1234"}'], rep)[0] is clean


def test_scan_report_names_lines_and_rules_never_values(red: RuleRedactor, tmp_path: Path) -> None:
    from archiver.redact.scan_report import scan_file

    src = tmp_path / "s.jsonl"
    src.write_bytes(b'{"a":"clean"}\n' + orjson.dumps({"cwd": "/home/alice/x", "t": f"key {AWS}"}) + b"\n")
    findings = scan_file(red, src, "jsonl")
    assert {(f.where, f.rule_id, f.carrier) for f in findings} == {
        ("line 2", "home-linux", "jsonl"), ("line 2", "aws-access-key-id", "jsonl")}
    assert not any(AWS in str(f) or "alice" in str(f) for f in findings)
    txt = tmp_path / "t.txt"
    txt.write_text(f"ok\nsee {AWS}\n")
    assert [(f.where, f.rule_id) for f in scan_file(red, txt, "text")] == [("line 2", "aws-access-key-id")]
    # rules that span lines are seen (a PEM block, a YAML block scalar), at the line where the
    # replaced part starts: the key's body under its header, the value under `db_password: |`
    multi = tmp_path / "m.txt"
    multi.write_text(f"x\n{PEM}\ndb_password: |\n    Hq7vT2mZp9Lx4RkW\n")
    found = {(f.where, f.rule_id) for f in scan_file(red, multi, "text")}
    assert ("line 9", "yaml-block-secret") in found and any(w == "line 3" and "private-key" in r for w, r in found)


# ---------------------------------------------------------------- repeated keys, secrets as keys
REPEATED = [
    # (line, what must be gone, what must stay)
    (f'{{"a": "{GHP}", "a": "x"}}', [GHP], ['"a":', '"x"']),
    (f'{{"a": {{"k": "{GHP}"}}, "a": 1}}', [GHP], ['"k":', '"a":1']),
    (f'{{"a" : "{AWS}", "a" : "/home/alice/y", "n": [1, {{"b": 2, "b": "/home/alice/z"}}]}}',
     [AWS, "alice"], ['"n":[1,{"b":2,"b":"/home/']),
    (f'[{{"cwd": "/home/alice", "cwd": "/home/alice/w"}}, {{"t": "{GHP}"}}]', ["alice", GHP], ['"cwd":"/home/']),
]


@pytest.mark.parametrize("line,gone,kept", REPEATED, ids=range(len(REPEATED)))
def test_every_value_of_a_repeated_key_is_redacted_and_kept(red: RuleRedactor, line: str, gone: list[str],
                                                           kept: list[str]) -> None:
    for out in (red.redact_jsonl_line(line.encode(), RedactionReport()),
                red.redact_jsonl_lines([line.encode(), b'{"x": 1}'], RedactionReport())[0]):
        text = out.decode()
        for g in gone:
            assert g not in text
        for k in kept:
            assert k in text, text
        # every key written in the input is written in the output, in order
        def keys(s: str) -> list[str]:
            pairs: list[str] = []
            json.loads(s, object_pairs_hook=lambda p: pairs.extend(k for k, _ in p) or {})
            return pairs
        assert keys(text) == keys(line)


def test_a_quote_colon_inside_a_string_is_not_taken_for_a_repeated_key(red: RuleRedactor) -> None:
    # escaped quote-colon pairs (JSON quoted in a string) and a key ending in a backslash
    line = json.dumps({"x": 'say "a": 1 and "b" : 2', "a\\": "/home/alice/p", "c": "\\\":"}).encode()
    assert line.count(b'":') > 3
    before = red.warnings["json-repeated-keys"]
    out = red.redact_jsonl_line(line, RedactionReport())
    assert out == orjson.dumps({"x": 'say "a": 1 and "b" : 2', "a\\": f"/home/{USER}/p", "c": "\\\":"})
    assert red.warnings["json-repeated-keys"] == before


def test_a_high_confidence_secret_used_as_a_key_is_redacted(red: RuleRedactor) -> None:
    report = RedactionReport()
    out = red.redact_jsonl_line(json.dumps({GHP: {"scope": "repo"}, "password": "x", "api_key": 1}).encode(), report)
    doc = json.loads(out)
    assert GHP not in out.decode()
    assert "password" in doc and "api_key" in doc  # schema words are not secrets
    assert report.counts == {("github-pat", "jsonl:key"): 1}


# ---------------------------------------------------------------- ids and signatures: secrets only
def test_a_secret_under_an_id_or_signature_key_is_redacted(red: RuleRedactor) -> None:
    line = json.dumps({
        "id": GHP, "uuid": UUID, "tool_use_id": "toolu_01ABCdefGHIjkl", "signature": f"Ew+{GHP}==",
        "requestId": f"alice-{AWS}", "sessionId": "/home/alice/x",
        "content": json.dumps({"id": GHP, "request_id": AWS}),  # a tool's JSON output
    }).encode()
    report = RedactionReport()
    doc = json.loads(red.redact_jsonl_line(line, report))
    assert doc["id"].startswith("<GITHUB_TOKEN:") and doc["signature"].startswith("Ew+<GITHUB_TOKEN:")
    assert doc["uuid"] == UUID and doc["tool_use_id"] == "toolu_01ABCdefGHIjkl"
    # ids meet token shapes and the configured names, not paths or generic rules
    assert doc["requestId"] == f"{USER}-" + doc["requestId"].split("-", 2)[2] and "<AWS_ACCESS_KEY:" in doc["requestId"]
    assert "alice" not in doc["sessionId"]  # not id-like (a path): every rule
    assert GHP not in doc["content"] and AWS not in doc["content"]
    assert report.counts[("github-pat", "jsonl")] == 2 and report.counts[("github-pat", "json-in-string")] == 1


def test_a_secret_in_a_long_signature_is_redacted_from_the_file(red: RuleRedactor) -> None:
    sig = base64.b64encode(bytes(range(256)) * 20_000).decode()  # ~6.8 MB: streamed
    line = json.dumps({"type": "thinking", "signature": sig[:1000] + f"+{GHP}+" + sig + "/home/alice/"}).encode()
    out: list[bytes] = []
    rep = RedactionReport()
    red.redact_jsonl_span(io.BytesIO(line), 0, len(line), out.append, rep)
    got = b"".join(out)
    assert GHP.encode() not in got and got.endswith(b'/home/alice/"}')  # only the token's shape
    assert rep.counts == {("github-pat", "jsonl"): 1}


def test_a_base64_blob_under_a_signature_key_is_never_changed(red: RuleRedactor) -> None:
    # a chance token shape inside a real signature or encrypted content must not corrupt it
    blob = base64.b64encode(bytes(range(200))).decode() + AWS + base64.urlsafe_b64encode(b"x" * 90).decode()
    line = json.dumps({"signature": blob, "encrypted_content": "gAAAAAB" + blob, "id": AWS}).encode()
    doc = json.loads(red.redact_jsonl_line(line, RedactionReport()))
    assert doc["signature"] == blob and doc["encrypted_content"] == "gAAAAAB" + blob
    assert doc["id"].startswith("<AWS_ACCESS_KEY:")  # a bare token is no blob


def test_a_bare_token_as_opaque_data_is_redacted_and_images_are_not(red: RuleRedactor) -> None:
    png = "iVBORw0KGgo" + base64.b64encode(bytes(range(256))).decode()
    line = json.dumps({"content": [{"type": "base64", "data": GHP},
                                   {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                                                "data": png}}]}).encode()
    doc = json.loads(red.redact_jsonl_line(line, RedactionReport()))
    assert doc["content"][0]["data"].startswith("<GITHUB_TOKEN:")
    assert doc["content"][1]["source"]["data"] == png


# ---------------------------------------------------------------- card numbers written as JSON numbers
CARD = 4111111111111111  # Visa test number (Luhn-valid)
AMEX = 378282246310005


def test_a_card_number_written_as_a_json_number_is_redacted(red: RuleRedactor) -> None:
    rows = json.dumps([{"id": 1, "card": CARD, "ts": 1760954400000, "amount": 12.5, "ok": True}])
    line = json.dumps({"type": "user", "message": {"content": [{"type": "tool_result", "content": rows}]},
                      "n": [AMEX, -CARD], "timestamp": 1760954400000, "seconds": 1760954400,
                      "micros": 1760954400000000, "id": CARD, "requestId": AMEX}).encode()
    report = RedactionReport()
    out = red.redact_jsonl_line(line, report)
    doc = json.loads(out)
    inner = json.loads(doc["message"]["content"][0]["content"])
    assert inner[0]["card"].startswith("<CREDIT_CARD:") and inner[0]["ts"] == 1760954400000
    assert inner[0]["amount"] == 12.5 and inner[0]["ok"] is True and inner[0]["id"] == 1
    assert doc["n"][0].startswith("<CREDIT_CARD:") and doc["n"][1].startswith("-<CREDIT_CARD:")
    # timestamps and other long numbers keep their type and value; ids are ids
    assert (doc["timestamp"], doc["seconds"], doc["micros"]) == (1760954400000, 1760954400, 1760954400000000)
    assert doc["id"] == CARD and doc["requestId"] == AMEX
    assert report.counts == {("credit-card-visa", "json-in-string"): 1, ("credit-card-visa", "jsonl"): 1,
                             ("credit-card-amex", "jsonl"): 1}
    # the batch path (JSONL files) gives the same bytes
    assert red.redact_jsonl_lines([line], RedactionReport()) == [out]


def test_a_card_number_in_a_json_file_is_patched_in_place(red: RuleRedactor) -> None:
    doc = (b'{\n  "rows": [\n    {"card": 4111111111111111, "ts": 1760954400000, "note": "4111111111111111"},\n'
           b'    {"n": 41111111111111110, "neg": -4111111111111111}\n  ]\n}\n')
    out = red.redact_bytes(doc, RedactionReport())
    token = json.loads(out)["rows"][0]["card"]
    assert token.startswith("<CREDIT_CARD:")
    # layout kept byte for byte: only the literals changed (a longer number is another number)
    assert out == doc.replace(b'"card": 4111111111111111', f'"card": "{token}"'.encode()).replace(
        b'"note": "4111111111111111"', f'"note": "{token}"'.encode()).replace(
        b'"neg": -4111111111111111', f'"neg": "-{token}"'.encode())
    # the same digits kept elsewhere (under an id key) make patching inexact: re-serialised, still right
    doc2 = b'{\n  "card": 4111111111111111,\n  "id": 4111111111111111\n}'
    got = json.loads(red.redact_bytes(doc2, RedactionReport()))
    assert got["card"].startswith("<CREDIT_CARD:") and got["id"] == CARD


def test_a_card_number_in_a_long_line_is_redacted(red: RuleRedactor) -> None:
    line = json.dumps({"a": CARD, "big": "y" * 3_000_000, "b": [AMEX], "t": 1760954400000}).encode()
    out: list[bytes] = []
    red.redact_jsonl_span(io.BytesIO(line), 0, len(line), out.append, RedactionReport())
    doc = json.loads(b"".join(out))
    assert doc["a"].startswith("<CREDIT_CARD:") and doc["b"][0].startswith("<CREDIT_CARD:")
    assert doc["t"] == 1760954400000 and doc["big"] == "y" * 3_000_000


# ---------------------------------------------------------------- text that starts like an image
@pytest.mark.parametrize("head", [
    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk\n",
    "data:text/plain;base64,aGVsbG8gd29ybGQgaGVsbG8gd29ybGQgaGVsbG8gd29ybGQ=\n",
    "iVBORw0KGgo" + "A" * 300 + "\n",
])
def test_text_after_an_image_or_data_uri_is_redacted(red: RuleRedactor, head: str) -> None:
    value = head + f"export GITHUB_TOKEN={GHP} mail bob@corp.example /home/alice/app"
    line = json.dumps({"type": "function_call_output", "output": value}).encode()
    out = red.redact_jsonl_line(line, RedactionReport()).decode()
    assert GHP not in out and "bob@corp.example" not in out and "/home/alice" not in out
    assert json.loads(out)["output"].startswith(head)  # the payload itself is kept
    # the same from a line too long to hold (streamed walker), and as a >16 KiB literal
    big = json.dumps({"output": value + " " + "y" * 40_000, "pad": "z" * 1_200_000}).encode()
    parts: list[bytes] = []
    red.redact_jsonl_span(io.BytesIO(big), 0, len(big), parts.append, RedactionReport())
    got = b"".join(parts).decode()
    assert GHP not in got and "/home/alice" not in got and json.loads(got)["output"].startswith(head)


def test_a_long_image_payload_is_kept_byte_for_byte_and_text_under_image_data_is_scanned(red: RuleRedactor) -> None:
    png = "iVBORw0KGgo" + base64.b64encode(bytes(range(256)) * 200).decode()  # ~68 KB
    doc = {"content": [{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": png}},
                       {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                                    "data": png + f" {GHP}"}}],
           "url": "data:image/png;base64," + png, "pad": "z" * 1_200_000}
    line = json.dumps(doc).encode()
    parts: list[bytes] = []
    red.redact_jsonl_span(io.BytesIO(line), 0, len(line), parts.append, RedactionReport())
    got = json.loads(b"".join(parts))
    assert got["content"][0]["source"]["data"] == png and got["url"] == doc["url"]
    assert got["content"][1]["source"]["data"].startswith(png) and GHP not in got["content"][1]["source"]["data"]


# ---------------------------------------------------------------- secrets known by their key
def test_a_secret_known_only_by_its_json_key_is_redacted(red: RuleRedactor) -> None:
    env = {"PGPASSWORD": "S3cr3tPassw0rd", "AWS_SECRET_ACCESS_KEY": "ifZ6CJAqS8wVGJ+UJbSDsOSn6F1jFWiTmT7Fxs+r",
           "API_TOKEN": "Zq8kP2mX9vL4nR7tW1yB3cF6", "password": "hunter2-zq",
           # schema values under key-like names stay
           "cacheKey": GIT_SHA, "next_page_token": "abcdefghijklmnopqrstuvwxyz", "keywords": "alpha beta",
           "tokenType": "Bearer", "apiKeySource": "none", "auth": "oauth", "author": "Dana"}
    line = json.dumps({"type": "local_shell_call", "action": {"env": env},
                       "arguments": json.dumps({"env": {"PGPASSWORD": "S3cr3tPassw0rd"}})}).encode()
    report = RedactionReport()
    out = red.redact_jsonl_line(line, report)
    doc = json.loads(out)
    got = doc["action"]["env"]
    for k in ("PGPASSWORD", "AWS_SECRET_ACCESS_KEY", "API_TOKEN", "password"):
        assert got[k].startswith("<") and env[k] not in out.decode(), k
    assert {k: v for k, v in got.items() if not v.startswith("<")} == {
        k: env[k] for k in ("cacheKey", "next_page_token", "keywords", "tokenType", "apiKeySource", "auth", "author")}
    assert "S3cr3tPassw0rd" not in doc["arguments"] and list(got) == list(env)  # keys kept, in order
    assert report.counts[("aws-secret-access-key", "jsonl")] == 1
    assert red.redact_jsonl_lines([line], RedactionReport()) == [out]  # the batch path agrees


# ---------------------------------------------------------------- terminal colour codes
def test_a_token_right_after_a_terminal_colour_code_is_redacted(red: RuleRedactor) -> None:
    tty = (f"GITHUB_TOKEN=\x1b[01;31m\x1b[K{GHP}\x1b[m\x1b[K\n\x1b[32m{AWS}\x1b[0m 4111111111111111\x1bM\n"
           "\x1b]0;alice@host\x07 \x1b]8;;file:///home/alice/x\x1b\\link\x1b]8;;\x1b\\ \x1b[1malice\x1b[0m\n").encode()
    out = red.engine.redact_bytes(tty, RedactionReport())
    assert GHP.encode() not in out and AWS.encode() not in out and b"4111111111111111" not in out
    assert b"alice" not in out  # in a window title, a hyperlink and bold text
    # every escape sequence is kept byte for byte, in order
    seqs = [b"\x1b[01;31m", b"\x1b[K", b"\x1b[m", b"\x1b[32m", b"\x1b[0m", b"\x1bM", b"\x1b]0;", b"\x07", b"\x1b]8;;"]
    assert all(s in out for s in seqs) and out.count(b"\x1b") == tty.count(b"\x1b")
    # the same text as a JSON string (a tool's output) and a PTY capture file
    doc = json.loads(red.redact_jsonl_line(json.dumps({"output": tty.decode()}).encode(), RedactionReport()))
    assert doc["output"].encode() == out


# ---------------------------------------------------------------- encoded text attachments
ENV_FILE = f"GITHUB_TOKEN={GHP}\nowner=bob@corp.example\ncd /home/alice/app\n".encode()
PNG_BYTES = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) + GHP.encode()


@pytest.mark.parametrize("compact", [True, False])
def test_text_attachments_are_decoded_redacted_and_encoded_again(red: RuleRedactor, compact: bool) -> None:
    doc = {"content": [{"type": "file", "data": {"__type": "Uint8Array", "hex": ENV_FILE.hex()}, "mimeType": "text/plain"},
                       {"type": "file", "data": {"__type": "Uint8Array", "hex": ENV_FILE.hex().upper()}},
                       {"type": "image", "image": {"__type": "Uint8Array", "hex": PNG_BYTES.hex()}}],
           "files": [{"data": base64.b64encode(ENV_FILE).decode(), "mime": "text/plain", "name": "a.env"},
                     {"data": base64.urlsafe_b64encode(b'{"k": "' + GHP.encode() + b'"}').decode(),
                      "mime": "application/json"},
                     {"data": base64.b64encode(PNG_BYTES).decode(), "mime": "image/png"}],
           "url": "data:text/plain;charset=utf-8;base64," + base64.b64encode(ENV_FILE).decode()}
    raw = json.dumps(doc, separators=(",", ":") if compact else None).encode()
    report = RedactionReport()
    out = red.redact_jsonl_line(raw, report) if compact else red.redact_bytes(raw, report)
    got = json.loads(out)
    texts = [bytes.fromhex(got["content"][0]["data"]["hex"]), bytes.fromhex(got["content"][1]["data"]["hex"]),
             base64.b64decode(got["files"][0]["data"]), base64.urlsafe_b64decode(got["files"][1]["data"]),
             base64.b64decode(got["url"].split(",", 1)[1])]
    for t in texts:
        assert GHP.encode() not in t and b"bob@corp.example" not in t and b"/home/alice" not in t
    assert texts[0].startswith(b"GITHUB_TOKEN=<GITHUB_TOKEN:") and json.loads(texts[3])["k"].startswith("<GITHUB")
    assert got["content"][1]["data"]["hex"].isupper()  # encoded again the same way
    assert got["url"].startswith("data:text/plain;charset=utf-8;base64,")
    # binary payloads are left alone, even with a token's shape inside
    assert got["content"][2]["image"]["hex"] == PNG_BYTES.hex()
    assert got["files"][2]["data"] == base64.b64encode(PNG_BYTES).decode()
    assert report.counts[("github-pat", "attachment")] == 5


def test_attachments_and_keyed_secrets_in_a_line_too_long_to_hold(red: RuleRedactor) -> None:
    big_env = ENV_FILE + b"# " + b"x" * 40_000 + b"\n"  # > 16 KiB: leaves the skeleton
    secret = hashlib.sha512(b"k").hexdigest() * 300  # ~38 KB: leaves the skeleton
    doc = {"content": [{"type": "file", "data": {"__type": "Uint8Array", "hex": big_env.hex()}}],
           "files": [{"data": base64.b64encode(big_env).decode(), "mime": "text/x-shellscript"}],
           "url": "data:text/plain;base64," + base64.b64encode(big_env).decode(),
           "env": {"API_TOKEN": secret}, "pad": "z" * 1_200_000}
    line = json.dumps(doc).encode()
    parts: list[bytes] = []
    red.redact_jsonl_span(io.BytesIO(line), 0, len(line), parts.append, RedactionReport())
    got = json.loads(b"".join(parts))
    for payload in (bytes.fromhex(got["content"][0]["data"]["hex"]), base64.b64decode(got["files"][0]["data"]),
                    base64.b64decode(got["url"].split(",", 1)[1])):
        assert GHP.encode() not in payload and b"bob@corp.example" not in payload and payload.endswith(b"x\n")
    assert secret not in got["env"]["API_TOKEN"]
    # the same bytes as the in-memory walker gives
    assert got == json.loads(red.redact_jsonl_line(line, RedactionReport()))


def test_a_private_key_printed_by_grep_color_is_redacted(red: RuleRedactor) -> None:
    hit = "\x1b[01;31m\x1b[KPRIVATE\x1b[m\x1b[K"
    tty = f"$ grep --color=always -A9 PRIVATE id_rsa\n{PEM.replace('PRIVATE', hit)}\n".encode()
    out = red.engine.redact_bytes(tty, RedactionReport())
    assert PEM_BODY.splitlines()[0].encode() not in out and b"<PRIVATE_KEY:" in out
    assert out.count(hit.encode()) == 2  # the colour codes of both header lines are kept


# ---------------------------------------------------------------- second audit
def test_secrets_named_by_a_sibling_are_redacted(red: RuleRedactor) -> None:
    doc = {"environment": [{"name": "DB_PASSWORD", "value": "S3cr3tPassw0rd"}, {"name": "LOG_LEVEL", "value": "debug"}],
           "Parameters": [{"ParameterKey": "DbPassword", "ParameterValue": "hunter2-zq"}],
           "ssm": {"Name": "/prod/db/password", "Value": "Zq8kP2mX9vL4"},
           "headers": [{"name": "X-Api-Key", "value": "k8sZq8kP2mX9vL4nR7tW1yB3"}, {"name": "Accept", "value": "*/*"}],
           "pairs": [["Authorization", "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abcDEFghiJKLmnoPQRstuVWXyz012345"],
                     ["Accept", "application/json"]]}
    raw = json.dumps(doc).encode()
    out = red.redact_jsonl_line(raw, RedactionReport())
    got = json.loads(out)
    for secret in ("S3cr3tPassw0rd", "hunter2-zq", "Zq8kP2mX9vL4", "k8sZq8kP2mX9vL4nR7tW1yB3", "eyJhbGciOiJIUzI1NiJ9"):
        assert secret not in out.decode(), secret
    assert got["environment"][1] == {"name": "LOG_LEVEL", "value": "debug"} and got["headers"][1]["value"] == "*/*"
    assert got["pairs"][1] == ["Accept", "application/json"] and got["pairs"][0][0] == "Authorization"
    assert [e["name"] for e in got["environment"]] == ["DB_PASSWORD", "LOG_LEVEL"]



def test_values_and_items_under_a_secret_like_key_are_scanned_with_it(red: RuleRedactor) -> None:
    """terraform output -json nests the value ({"db_password": {"sensitive": true, "value": ...}});
    a plural key holds a list ({"passwords": [...]}); a bare "pass" key in a credentials map."""
    doc = {"db_password": {"sensitive": True, "type": "string", "value": "Hq7vT2mZp9Lx4RkW"},
           "credentials": {"user": "app", "pass": "Jd8sK3nQ5wPzQ"},
           "passwords": ["Xk2mV9qL7wPzR4", "Zt5nB8cJ3hDf"],
           "sort_keys": ["created_at_desc_order"], "settings": {"value": "plain-setting-value"}}
    out = red.redact_jsonl_line(json.dumps(doc).encode(), RedactionReport())
    got = json.loads(out)
    for secret in ("Hq7vT2mZp9Lx4RkW", "Jd8sK3nQ5wPzQ", "Xk2mV9qL7wPzR4", "Zt5nB8cJ3hDf"):
        assert secret not in out.decode(), secret
    assert got["db_password"]["value"].startswith("<PASSWORD:") and got["db_password"]["sensitive"] is True
    assert got["credentials"]["user"] == "app" and got["passwords"][1].startswith("<PASSWORD:")
    assert got["sort_keys"] == ["created_at_desc_order"] and got["settings"] == {"value": "plain-setting-value"}


def test_a_list_of_field_names_is_no_name_and_its_value(red: RuleRedactor) -> None:
    """JSON Schema `required`, column lists: the item after "password" is the next field's name."""
    doc = {"required": ["username", "password", "email"], "cols": ["USERNAME", "PASSWORD", "DRIVER_ID"],
           "camel": ["apiKey", "displayName"], "argv": ["--password", "hunter2x"]}
    got = json.loads(red.redact_jsonl_line(json.dumps(doc).encode(), RedactionReport()))
    assert got["required"] == doc["required"] and got["cols"] == doc["cols"] and got["camel"] == doc["camel"]
    assert got["argv"][1].startswith("<PASSWORD:")

def test_base64_content_beside_an_encoding_or_a_non_media_type_is_decoded(red: RuleRedactor) -> None:
    env = ENV_FILE
    doc = {"mcp": {"uri": "file:///x", "mimeType": "text/plain", "blob": base64.b64encode(env).decode()},
           "github": {"encoding": "base64", "content": base64.encodebytes(env).decode()},
           "har": {"mimeType": "text/plain", "text": base64.b64encode(env).decode(), "encoding": "base64"},
           "octet": {"mime": "application/octet-stream", "data": base64.b64encode(env).decode()},
           "claude": {"type": "document", "source": {"type": "base64", "media_type": "text/plain",
                                                     "data": base64.b64encode(env).decode()}},
           "pdf": {"mime": "application/pdf", "data": base64.b64encode(PNG_BYTES).decode()}}
    got = json.loads(red.redact_jsonl_line(json.dumps(doc).encode(), RedactionReport()))
    for payload in (got["mcp"]["blob"], got["github"]["content"], got["har"]["text"], got["octet"]["data"],
                    got["claude"]["source"]["data"]):
        text = base64.b64decode(payload)
        assert GHP.encode() not in text and b"<GITHUB_TOKEN:" in text
    assert got["pdf"]["data"] == doc["pdf"]["data"]  # binary after decoding: kept


def test_a_signature_that_is_json_or_text_is_redacted_as_text_and_ids_lose_names(red: RuleRedactor) -> None:
    item = {"type": "reasoning", "summary": [{"text": "look in /home/alice/app, PGPASSWORD=S3cr3tPassw0rd"}],
            "encrypted_content": ENCRYPTED}
    doc = {"thinkingSignature": json.dumps(item),  # pi stores JSON.stringify(item) there
           "lsp": {"name": "connect", "signature": "connect(owner='bob@corp.example', path='/home/alice/x')"},
           "real": {"signature": SIGNATURE}, "session": {"type": "session", "id": "alice-main"}, "agentId": "alice",
           "tool": {"product_id": 4012888888881, "order_ids": [4111111111111111]}}
    got = json.loads(red.redact_jsonl_line(json.dumps(doc).encode(), RedactionReport()))
    inner = json.loads(got["thinkingSignature"])
    assert "/home/alice" not in inner["summary"][0]["text"] and "S3cr3tPassw0rd" not in inner["summary"][0]["text"]
    assert inner["encrypted_content"] == ENCRYPTED  # still opaque inside
    assert "bob@corp.example" not in got["lsp"]["signature"] and "/home/alice" not in got["lsp"]["signature"]
    assert got["real"]["signature"] == SIGNATURE  # base64: opaque, its decoy path kept
    assert got["session"]["id"] == f"{USER}-main" and got["agentId"] == USER
    assert got["tool"]["product_id"] == 4012888888881  # a number under an *_id key is an id


@pytest.mark.parametrize("code", ["\\u001b[01;31m\\u001b[K", "^[[01;31m^[[K", "\\x1b[31m", "\\033[1;32m", "\\e[31m"])
def test_colour_codes_written_as_text_do_not_hide_a_token(red: RuleRedactor, code: str) -> None:
    text = f"line 3: export GITHUB_TOKEN={code}{GHP}{code}\n".encode()
    out = red.engine.redact_bytes(text, RedactionReport())
    assert GHP.encode() not in out and code.encode() in out


def test_a_secret_after_its_name_in_an_argv_list_is_redacted(red: RuleRedactor) -> None:
    aws_secret = "FAKEexample9/rfiCYK7MDENGbPx+wJalr012345"
    doc = {"type": "local_shell_call", "action": {"command": [
        "aws", "configure", "set", "aws_secret_access_key", aws_secret],
        "other": ["gh", "auth", "login", "--with-token", "Zq8kP2mX9vL4nR7tW1yB3cF6hJ0sD5aQ"],
        "plain": ["git", "commit", "-m", "fix the token refresh"]},
        "text": f"aws configure set aws_secret_access_key {aws_secret}"}
    got = json.loads(red.redact_jsonl_line(json.dumps(doc).encode(), RedactionReport()))
    assert got["action"]["command"][:4] == ["aws", "configure", "set", "aws_secret_access_key"]
    assert got["action"]["command"][4].startswith("<AWS_SECRET_KEY:") and aws_secret not in got["text"]
    assert got["action"]["other"][4].startswith("<") and got["action"]["other"][:4] == ["gh", "auth", "login",
                                                                                         "--with-token"]
    assert got["action"]["plain"] == doc["action"]["plain"]


def test_a_key_attachment_redacted_and_encoded_again_is_not_held_back(red: RuleRedactor, tmp_path: Path) -> None:
    """A PEM key attached as base64 text is decoded, redacted (`-----BEGIN ...-----` stays around
    the placeholder) and encoded again; the base64 of that header is no key, so fail_closed must
    not hold the session back on every run."""
    doc = {"files": [{"mime": "text/plain", "data": base64.b64encode(PEM.encode()).decode()}]}
    out = red.redact_jsonl_line(json.dumps(doc).encode(), RedactionReport())
    text = base64.b64decode(json.loads(out)["files"][0]["data"]).decode()
    assert text.startswith("-----BEGIN RSA PRIVATE KEY-----") and "MIIEowIBAAK" not in text and "<PRIVATE_KEY:" in text
    path = tmp_path / "s.jsonl"
    path.write_bytes(out + b"\n")
    assert red.verify_file(path, "jsonl") == []
    raw = tmp_path / "raw.jsonl"  # the same key, not redacted: held back
    raw.write_bytes(json.dumps(doc).encode() + b"\n")
    assert red.verify_file(raw, "jsonl") != []


def test_data_uris_of_any_non_media_type_and_any_length_are_decoded(red: RuleRedactor) -> None:
    """An attached `.env` is `application/octet-stream`; a short `data:text/plain` URI is still
    an attachment. Binary payloads under such types, and images, come back as they were."""
    env = b"AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq8Vd3Lk2P\n"
    short = "data:text/plain;base64," + base64.b64encode(b"DB_PASS='Wq7rT2vX9zK4mN8p'").decode()
    octet = "data:application/octet-stream;base64," + base64.b64encode(env).decode()
    binary = "data:application/octet-stream;base64," + base64.b64encode(bytes(range(256))).decode()
    image = "data:image/png;base64," + base64.b64encode(PNG_BYTES).decode()
    doc = {"parts": [{"url": short}, {"url": octet}, {"url": binary}, {"url": image}]}
    got = json.loads(red.redact_jsonl_line(json.dumps(doc).encode(), RedactionReport()))["parts"]
    assert len(short) < 64
    assert base64.b64decode(got[0]["url"].split(",", 1)[1]).startswith(b"DB_PASS='<PASSWORD:")
    text = base64.b64decode(got[1]["url"].split(",", 1)[1])
    assert text.startswith(b"AWS_SECRET_ACCESS_KEY=<AWS_SECRET_KEY:") and b"wJalrXUtnFEMI" not in text
    assert got[2]["url"] == binary and got[3]["url"] == image


def test_a_text_sidecar_that_is_json_or_jsonl_goes_through_the_json_walker(red: RuleRedactor, tmp_path: Path) -> None:
    """Tool output files and shell logs often hold JSON: escapes (`\\u0076`) and name/value pairs
    hide secrets from text rules. Text that only starts like JSON stays text."""
    cases = {
        "out.json": b'{\n  "password": "Q\\u0076Ti6o4UQa61ufZA2l",\n  "cwd": "/home/alice/x"\n}\n',
        "out.jsonl": b'{"name": "DB_PASSWORD", "value": "Hq7vT2mZp9Lx4RkW"}\n{"ok": true}\n',
        "out.txt": b'{not json} PASSWORD=Hq7vT2mZp9Lx4RkW\n',
    }
    for name, data in cases.items():
        src, dst = tmp_path / name, tmp_path / (name + ".red")
        src.write_bytes(data)
        rep = RedactionReport()
        red.redact_file(src, dst, "text", rep)
        out = dst.read_bytes()
        assert b"Q\\u0076Ti6o4UQa61ufZA2l" not in out and b"Hq7vT2mZp9Lx4RkW" not in out, (name, out)
        assert sum(rep.counts.values()) == sum(red.scan_file(src, "text").counts.values())
    assert (tmp_path / "out.json.red").read_bytes().startswith(b'{\n  "password": "<PASSWORD:')  # layout kept
