"""A docker-compose or Ansible file read by an agent: a letters-only password under a
password-like YAML key is a string value (YAML has no variables), redacted wherever the file's
text sits in a transcript; Python and TypeScript annotations of the same shape are left alone."""

from __future__ import annotations

import json

from archiver.redact.base import RedactionReport
from tests.fx_redact import builtin_redactor

COMPOSE = ("services:\n  db:\n    image: mysql:8\n    environment:\n      MYSQL_ROOT_PASSWORD: quietlanternfield\n"
           "      MYSQL_DATABASE: shop\n")


def test_compose_password_in_a_claude_tool_result_is_redacted() -> None:
    red = builtin_redactor(b"k" * 32, ["zed"])
    line = json.dumps({"type": "user", "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_01", "content": COMPOSE}]},
        "toolUseResult": {"file": {"filePath": "/srv/shop/docker-compose.yml", "content": COMPOSE}}}).encode()
    out = red.redact_jsonl_line(line, RedactionReport())
    assert b"quietlanternfield" not in out
    doc = json.loads(out)
    assert "MYSQL_DATABASE: shop" in doc["toolUseResult"]["file"]["content"]
    code = "class Login(BaseModel):\n    password: str\n    api_token: SecretStr\n"
    assert red.redact_text(code, RedactionReport()) == code
