"""s12: secrets under generic key names (stripe_key, mapboxKey, Stripe_Key, a bare key, {"stripe": {"key":
...}}, {"Jwt": {"Key": ...}}) are gone in every syntax and every place a session carries them (plain text,
a JSONL record, a Claude tool_result, a Codex function_call_output holding JSON), and the negative twins
(SHAs, UUIDs, S3 object keys, i18n keys, enum names, sort/primary/cache keys...) stay byte for byte."""

from __future__ import annotations

import json

import pytest

from archiver.redact.base import RedactionReport
from tests.fx_redact import builtin_redactor
from tests.fx_s12_keys import negatives, positives
from tests.test_s11_leak_gen import carriers, decoded_views

KEY = b"s12-keys-test-key-0123456789abcdef"
POS = positives(12)
NEG = negatives(12)


@pytest.fixture(scope="module")
def red():  # noqa: ANN201
    return builtin_redactor(KEY, ["zelda"], ["Zelda Quixote"])


def _views(red, text: str) -> dict[str, str]:  # noqa: ANN001
    views = {"text": red.redact_text(text, RedactionReport())}
    try:
        doc = json.loads(text)
    except ValueError:
        doc = None
    if isinstance(doc, dict):
        line = json.dumps(doc).encode()
        out = red.redact_jsonl_line(line, RedactionReport())
        json.loads(out)
        views["jsonl"] = decoded_views(out)
    for name, line in carriers(text).items():
        out = red.redact_jsonl_line(line, RedactionReport())
        json.loads(out)
        views[name] = decoded_views(out)
    return views


def test_the_generator_covers_the_syntaxes() -> None:
    fams = {f for f, _, _ in POS}
    assert len(fams) == len(POS) >= 200
    for stem in ("json-snake", "json-camel", "json-parent-jwt", "json-parent-stripe-key", "yaml", "toml", "ini-bare",
                 "properties", "hcl", "xml-attr", "xml-element", "js-const", "ts-typed", "py-kwarg-bare", "py-assign-bare",
                 "py-dict", "go-struct", "ruby-hash", "php-array", "java", "kotlin", "csharp", "swift"):
        assert any(f.startswith(stem + "-") for f in fams), stem
    assert len(NEG) >= 40


@pytest.mark.parametrize("family,text,values", POS, ids=[f for f, _, _ in POS])
def test_secret_under_a_key_name_is_gone_everywhere(red, family: str, text: str, values: list[str]) -> None:  # noqa: ANN001
    leaked = {name: out for name, out in _views(red, text).items() if any(v in out for v in values)}
    assert not leaked, (family, sorted(leaked))


@pytest.mark.parametrize("family,text", NEG, ids=[f for f, _ in NEG])
def test_negative_twin_stays(red, family: str, text: str) -> None:  # noqa: ANN001
    report = RedactionReport()
    assert red.redact_text(text, report) == text, report.by_rule()
    try:
        doc = json.loads(text)
    except ValueError:
        return
    line = json.dumps(doc).encode()
    report = RedactionReport()
    assert red.redact_jsonl_line(line, report) == line, report.by_rule()


# --- the JSON walker scans a key/secret value with its object's key ---------------------------------

def _jsonl(red, doc: object) -> tuple[bytes, dict[str, int]]:  # noqa: ANN001
    report = RedactionReport()
    out = red.redact_jsonl_line(json.dumps(doc).encode(), report)
    return out, report.by_rule()


def test_jwt_key_passphrase_in_a_record_as_in_text(red) -> None:  # noqa: ANN001
    # a passphrase-like signing key: only the Jwt object says it is one (no random-value rule takes it)
    v = "my-jwt-signing-key-for-dev-2024"
    out, rules = _jsonl(red, {"Jwt": {"Key": v, "Issuer": "acme"}})
    assert v.encode() not in out and rules.get("jwt-config-signing-key") == 1, rules
    assert json.loads(out)["Jwt"]["Issuer"] == "acme"
    text = json.dumps({"Jwt": {"Key": v, "Issuer": "acme"}}, indent=2)
    assert v not in red.redact_text(text, RedactionReport())
    # pretty-printed appsettings.json inside a tool_result and inside a Codex function_call_output
    for line in (carriers(text)["cc-tool_result"], carriers(text)["codex-fco"]):
        red_line = red.redact_jsonl_line(line, RedactionReport())
        assert v not in decoded_views(red_line)


def test_hex_key_under_a_purpose_object(red) -> None:  # noqa: ANN001
    v = "7ea17e4503844fd7db077dfe70928f78"
    out, rules = _jsonl(red, {"hmac": {"algo": "sha256", "key": v}})
    assert v.encode() not in out and rules.get("purpose-object-key") == 1, rules
    assert json.loads(out)["hmac"]["algo"] == "sha256"
    # the same hex under a bare key of an object that names no purpose is an MD5-shaped id: kept
    line = json.dumps({"thumbnail": {"key": v}}).encode()
    assert red.redact_jsonl_line(line, RedactionReport()) == line
    # and a key beside (not inside) a purpose object is not that object's key
    line = json.dumps({"encryption": {"enabled": True}, "key": v}).encode()
    assert red.redact_jsonl_line(line, RedactionReport()) == line


def test_terraform_random_password_result_in_a_record(red) -> None:  # noqa: ANN001
    pw = "vEjuQ7597Cmjn-xK"
    state = {"version": 4, "resources": [
        {"mode": "managed", "type": "random_id", "name": "suffix", "instances": [{"attributes": {"result": "3f786850", "hex": "3f786850"}}]},
        {"mode": "managed", "type": "random_password", "name": "db", "instances": [{"attributes": {"length": 16, "result": pw}}]},
    ]}
    out, rules = _jsonl(red, state)
    assert pw.encode() not in out and rules.get("terraform-random-password-result") == 1, rules
    back = json.loads(out)
    assert back["resources"][0]["instances"][0]["attributes"]["result"] == "3f786850"
    assert back["resources"][1]["instances"][0]["attributes"]["length"] == 16
