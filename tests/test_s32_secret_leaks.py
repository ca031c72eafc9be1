"""s32: two of the three leaks session 31 left open (the third, a hex key named only in a sentence, is
left: its rule cost the memory case more than it is worth), each in the session shape it leaked from (a Claude Code
tool_result with its toolUseResult sidecar, a Codex function_call_output, a user's prose), redacted
as a JSONL line the way a worker redacts a session and compared byte for byte:

- a 10-15 character quoted value under a secret's name (`client_secret: "Xk9#mQ2$vL7pR4w"`):
  secret-assignment-quoted needed 16 (now 10, a shorter one with letters and digits: validator
  short_secret);
- a Percy token `web_<64 hex>` under a YAML name: secret-assignment-unquoted's snake_case
  identifier allowlist took it for a name.

Texts with no secret (field names, words, versions, a git SHA after a key word, cache and object
keys, a public key's digest) come out unchanged. Values are fake, made for this file."""

from __future__ import annotations

import json

import pytest

from archiver.redact.pseudonym import Pseudonymizer
from tests.fx_redact import builtin_redactor
from tests.test_s31_secret_redteam import _redact

KEY = b"s32-secret-leaks-test-key-0123456789abcdef"
PERCY = "web_0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9"
HEX64 = "9e107d9d372bb6826bd81d3542a419d6e277d4d731479571562b82f74494341f"

CASES = [
    ("client-secret-15", "claude", 'oauth:\n  client_id: acme-cli\n  client_secret: "{0}"\n', "SECRET", "Xk9#mQ2$vL7pR4w"),
    ("api-key-14-json", "codex", '{{"provider": "maps", "api_key": "{0}", "region": "eu"}}\n', "SECRET", "Zq8wLm3nRt5vYx"),
    ("webhook-secret-python", "claude", "WEBHOOK_SECRET = '{0}'\nDEBUG = False\n", "SECRET", "aB3dE5gH7jK9mN"),
    ("auth-token-ts", "codex", 'export const AUTH_TOKEN = "{0}";\n', "SECRET", "q7Vn2Lx9Kd4Tp"),
    ("percy-yaml", "claude", "env:\n  PERCY_TOKEN: {0}\n  NODE_ENV: test\n", "SECRET", PERCY),
    ("percy-k8s", "codex", "data:\n  percy_token: {0}\n", "SECRET", PERCY),
]

KEPT = [
    ("field-names", "claude", '{"token": "refreshToken", "secret": "my-app-secret", "cacheKey": "userProfileData"}\n'),
    ("words-and-versions", "codex", 'token_type: "Bearer"\nsecret_version: "v1.24.3-rc1"\nauth: "2026-11-29T10"\n'),
    ("placeholders", "claude", 'api_key: "YOUR_API_KEY"\nsecret: "changeme12345"\ntoken: "xxxxxxxxxxxx"\n'),
    ("pagination-token", "codex", '{"nextPageToken": "Ab3dE5gH7jK9", "items": []}\n'),
    ("git-sha-after-key", "prose", "the signing key is at commit 4b825dc642cb6eb9a060e54bf8d69288fbee4904"),
    ("cache-and-object-keys", "claude", f"cache key {HEX64} missed\nobject key 9c1f0e8d7b6a5c4d3e2f1a0b9c8d7e6f not found\n"),
    ("public-key-digest", "codex", f"public key {HEX64}\nssh key SHA256:{HEX64}\n"),
    ("snake-case-name", "claude", "secret_name: prod_db_credentials_v2\ntoken_kind: service_account_key\n"),
]


@pytest.fixture(scope="module")
def red():  # noqa: ANN201
    return builtin_redactor(KEY)


@pytest.mark.parametrize("name,carrier,template,label,value", CASES, ids=[c[0] for c in CASES])
def test_secret_is_replaced_and_the_rest_kept(red, name: str, carrier: str, template: str, label: str,  # noqa: ANN001
                                              value: str) -> None:
    got, whole = _redact(red, carrier, template.format(value))
    assert got == template.format(Pseudonymizer(KEY).token(label, value))
    assert value not in whole and json.dumps(value)[1:-1] not in whole


@pytest.mark.parametrize("name,carrier,text", KEPT, ids=[k[0] for k in KEPT])
def test_text_without_secrets_is_kept_byte_for_byte(red, name: str, carrier: str, text: str) -> None:  # noqa: ANN001
    got, _whole = _redact(red, carrier, text)
    assert got == text
