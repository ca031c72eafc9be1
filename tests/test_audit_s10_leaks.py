"""Audit s10: secrets and people that left generated sessions in plaintext (values built here from the
providers' public formats, placed where sessions hold them), and what the new rules must leave alone."""

from __future__ import annotations

import base64
import hashlib
import json
import random
import string
import uuid

import pytest

from archiver.redact.base import RedactionReport
from tests.fx_redact import builtin_redactor

_R = random.Random(1010)
_ALNUM = string.ascii_letters + string.digits


def _rs(alphabet: str, n: int) -> str:
    return "".join(_R.choice(alphabet) for _ in range(n))


def _pem(kind: str) -> str:
    body = base64.b64encode(bytes(_R.getrandbits(8) for _ in range(600))).decode()
    return f"-----BEGIN {kind}-----\n" + "\n".join(body[i:i + 64] for i in range(0, len(body), 64)) + f"\n-----END {kind}-----"


ATLASSIAN_ADMIN = "ATCTT3xFfGN0" + _rs(_ALNUM + "-_", 170) + "=" + _rs("0123456789ABCDEF", 8)
RETOOL = "retool_01" + _rs("0123456789abcdefghjkmnpqrstvwxyz", 26)
NGROK = "2" + _rs(_ALNUM, 26) + "_" + _rs(_ALNUM, 21)
ETSY = _rs(string.ascii_lowercase + string.digits, 24)
TELEGRAM = "7012345678:AA" + _rs(_ALNUM + "-_", 33)
MAILGUN = "key-" + _rs("0123456789abcdef", 32)
DOCKER_PW = _rs(_ALNUM, 20)
DSN = f"postgres://app:{_rs(_ALNUM, 16)}@db.internal:5432/app"
GH_TOKEN = "ghp_" + _rs(_ALNUM, 36)


@pytest.fixture(scope="module")
def red():
    return builtin_redactor(b"k" * 32, ["zelda"], ["Zelda Quixote"])


def _carriers(text: str) -> list[bytes]:
    """The text in the places a session holds it: Bash input, tool_result string and blocks, toolUseResult
    stdout, a Read tool's file content, a Codex function_call (JSON in a string) and its output."""
    recs = [
        {"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "tool_use", "id": "toolu_01x", "name": "Bash", "input": {"command": text}}]}},
        {"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_01x", "content": text}]}},
        {"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_01x", "content": [{"type": "text", "text": text}]}]}},
        {"type": "user", "toolUseResult": {"stdout": text, "stderr": "", "interrupted": False}},
        {"type": "user", "toolUseResult": {"type": "text", "file": {"filePath": "/srv/app/notes.txt", "content": text}}},
        {"timestamp": "t", "type": "response_item", "payload": {"type": "function_call", "name": "shell", "call_id": "c1",
                                                                "arguments": json.dumps({"command": ["bash", "-lc", text]})}},
        {"timestamp": "t", "type": "response_item", "payload": {"type": "function_call_output", "call_id": "c1",
                                                                "output": json.dumps({"output": text})}},
    ]
    return [json.dumps(r).encode() for r in recs]


def _assert_gone(red, text: str, values: list[str]) -> None:
    out = red.redact_text(text, RedactionReport())
    for v in values:
        assert v not in out, (v, out)
    for line in _carriers(text):
        got = red.redact_jsonl_line(line, RedactionReport())
        flat = json.dumps(json.loads(got))  # JSON in a string decoded once more by the dump's escapes
        for v in values:
            assert v.encode() not in got and json.dumps(v)[1:-1] not in flat, (v, got[:300])


@pytest.mark.parametrize("text,values", [
    (f"export ATLASSIAN_ORG_KEY={ATLASSIAN_ADMIN}", [ATLASSIAN_ADMIN]),
    (f"curl -H 'Authorization: Bearer {ATLASSIAN_ADMIN}' https://api.atlassian.com/admin/v1/orgs", [ATLASSIAN_ADMIN]),
    (f"npx retool-ccl login --token {RETOOL} --domain acme.retool.com", [RETOOL]),
    (f"the Retool RPC key is {RETOOL}, keep it out of git", [RETOOL]),
    (f"the ngrok token is {NGROK} keep it", [NGROK]),
    (f"ETSY_KEYSTRING={ETSY}\nETSY_SHOP_ID=123", [ETSY]),
    (json.dumps({"etsy": {"keystring": ETSY, "app": "shop-sync"}}), [ETSY]),
    (f"curl https://api.telegram.org/bot{TELEGRAM}/getMe", [TELEGRAM]),
    (f"curl -s --user 'api:{MAILGUN}' https://api.mailgun.net/v3/mg.acme.io/messages", [MAILGUN]),
    (f"echo {DOCKER_PW} | docker login -u zelda --password-stdin registry.acme.io", [DOCKER_PW]),
    (f"$ kubectl get secret app -o yaml\napiVersion: v1\ndata:\n  DATABASE_URL: {base64.b64encode(DSN.encode()).decode()}\n"
     f"  GH: {base64.b64encode(GH_TOKEN.encode()).decode()}\nkind: Secret\n",
     [base64.b64encode(DSN.encode()).decode(), base64.b64encode(GH_TOKEN.encode()).decode()]),
], ids=["atlassian-admin-env", "atlassian-admin-bearer", "retool-cli", "retool-prose", "ngrok-bare", "etsy-env",
        "etsy-json", "telegram-url", "mailgun-basic", "password-stdin", "k8s-secret-base64"])
def test_new_secret_shapes_are_redacted_everywhere(red, text: str, values: list[str]) -> None:
    _assert_gone(red, text, values)


@pytest.mark.parametrize("text,values", [
    ("Host bastion\n    HostName bastion.acme-internal.net\n    User wojtekz\n    IdentityFile ~/.ssh/id_ed25519\n",
     ["wojtekz"]),
    ("scp build.tar.gz rfitzgerald@10.0.0.5:/srv/", ["rfitzgerald"]),
    ("^3f2a1bc (Ignatius Farquharson 2026-01-05 10:00:00 +0100  1) import os", ["Farquharson"]),
    ("$ git log --format='%h %an %s' -3\n3f2a1bc Margarethe Vollstedt fix flaky test\n"
     "9e8d7c6 Bartholomew Okonkwo bump deps\n", ["Vollstedt", "Okonkwo"]),
    ("ca82a6d - Ignatius Farquharson, 6 years ago : changed the version number", ["Farquharson"]),
    ("$ git shortlog -sne\n   120\tIgnatius Farquharson <ifarq@acme.io>\n", ["Farquharson", "ifarq@acme.io"]),
    ("$ git shortlog -sn\n   120\tIgnatius Farquharson\n    40\tZelda Quixote\n", ["Farquharson", "Quixote"]),
    ("$ whoami\nlmoreau\n$ pwd\n/srv/app\n", ["lmoreau"]),
    ("Jan  5 10:00:00 box sudo:   lmoreau : TTY=pts/0 ; PWD=/srv ; USER=root ; COMMAND=/bin/ls", ["lmoreau"]),
    ('203.0.113.9 - rfitzgerald [10/Oct/2025:13:55:36 -0700] "GET / HTTP/1.1" 200 512', ["rfitzgerald"]),
    ("lmoreau:x:1000:1000:Louise Moreau,,,:/home/lmoreau:/bin/bash", ["Louise Moreau", "lmoreau"]),
], ids=["ssh-config", "scp", "git-blame", "git-log-format", "git-log-ago", "shortlog-email", "shortlog", "whoami",
        "sudo-log", "access-log", "passwd-gecos"])
def test_new_people_and_accounts_are_pseudonymised(red, text: str, values: list[str]) -> None:
    _assert_gone(red, text, values)


# ------------------------------------------------------------------ lists of lines (jsondoc walker)

def _patch_record(lines: list[str]) -> bytes:
    return json.dumps({"type": "user", "toolUseResult": {
        "filePath": "/srv/app/k", "oldString": "x", "newString": "y",
        "structuredPatch": [{"oldStart": 1, "oldLines": 1, "newStart": 1, "newLines": len(lines), "lines": lines}]}}).encode()


@pytest.mark.parametrize("marker", ["+", " ", ""], ids=["added", "context", "plain-list"])
def test_private_key_split_over_list_items_is_redacted(red, marker: str) -> None:
    key = _pem("RSA PRIVATE KEY")
    body = key.splitlines()[1:-1]
    out = red.redact_jsonl_line(_patch_record([marker + ln for ln in key.splitlines()]), RedactionReport())
    for ln in body:
        assert ln.encode() not in out
    lines = json.loads(out)["toolUseResult"]["structuredPatch"][0]["lines"]
    assert len(lines) == len(key.splitlines())
    assert all(ln.startswith(marker) for ln in lines)  # diff markers kept, one item per line
    assert lines[0] == marker + "-----BEGIN RSA PRIVATE KEY-----" or "<" in lines[0]


def test_yaml_block_secret_split_over_patch_lines_is_redacted(red) -> None:
    value = _rs(_ALNUM, 24)
    out = red.redact_jsonl_line(_patch_record([" spring:", "-  api_token: |", "+  api_token: |", "+    " + value]),
                                RedactionReport())
    assert value.encode() not in out
    assert b'" spring:"' in out and b'"-  api_token: |"' in out


def test_git_config_name_split_over_patch_lines_is_redacted(red) -> None:
    out = red.redact_jsonl_line(_patch_record([" [core]", " \tbare = false", "+[user]", "+\tname = Ignatius Farquharson",
                                               "+\temail = ifarq@acme.io"]), RedactionReport())
    assert b"Farquharson" not in out and b"ifarq@acme.io" not in out


def test_ordinary_string_lists_are_unchanged(red) -> None:
    sha = hashlib.sha1(b"x").hexdigest()
    png = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4).decode()
    rec = {"type": "user", "toolUseResult": {
        "filenames": ["src/app.py", "src/util.py", "README.md"],
        "lines": [" def main():", "-    return 1", "+    return 2"],
        "ids": [str(uuid.UUID(int=_R.getrandbits(128), version=4)) for _ in range(3)],
        "shas": [sha, hashlib.sha256(b"y").hexdigest(), "sha512-" + base64.b64encode(hashlib.sha512(b"z").digest()).decode()],
        "images": [png, png[::-1]],
        "css": ["a{color:#fff}", ".b{margin:0 auto;background:url(data:image/gif;base64,R0lGODlhAQABAAAAACw=)}"],
    }}
    line = json.dumps(rec).encode()
    assert red.redact_jsonl_line(line, RedactionReport()) == line


def test_argv_lists_still_redact_inside_one_item(red) -> None:
    pw = _rs(_ALNUM, 16)
    line = json.dumps({"payload": {"type": "function_call", "arguments": json.dumps(
        {"command": ["mysql", "-uroot", f"-p{pw}", "-h", "db"]})}}).encode()
    out = red.redact_jsonl_line(line, RedactionReport())
    assert pw.encode() not in out
    assert json.loads(json.loads(out)["payload"]["arguments"])["command"][:2] == ["mysql", "-uroot"]


# ------------------------------------------------------------------ what the new rules leave alone

@pytest.mark.parametrize("text", [
    "3f2a1bc Fix Flaky Test in the parser\n9e8d7c6 (HEAD -> main) Add README\n31a9cf64 Speedup WebP lossless compression",
    "b7b0017 JNI Remove commented out code",
    "Host github.com\n  HostName github.com\n  User git\n",
    "    host = None\n    user = None\n",
    "1.0\tGeneral Concepts\n1.1\tLsof -- what is it?\n",
    "import retool_01 from '@site/static/images/retool/retool_01.png';",
    "echo \"$CR_PAT\" | docker login ghcr.io -u x --password-stdin",
    "lockfile: sha512-" + base64.b64encode(hashlib.sha512(b"lock").digest()).decode(),
    "uuid " + str(uuid.UUID(int=42, version=4)) + " commit " + hashlib.sha1(b"c").hexdigest(),
], ids=["git-subjects", "acronym-subject", "ssh-git-user", "python-host-user", "toc", "retool-image", "cr-pat-ref",
        "lockfile-hash", "uuid-sha"])
def test_new_rules_leave_ordinary_text_alone(red, text: str) -> None:
    assert red.redact_text(text, RedactionReport()) == text


# ------------------------------------------------------------------ {"name", "email"} objects (jsondoc walker)

@pytest.mark.parametrize("doc,name", [
    ({"sha": hashlib.sha1(b"c").hexdigest(), "commit": {"author": {"name": "Ignatius Farquharson", "email": "ifarq@acme.io",
                                                                   "date": "2026-01-05T10:00:00Z"}}}, "Ignatius Farquharson"),
    ({"name": "acme-tool", "authors": [{"name": "Sun-Hee Park", "email": "sh.park@acme.io"}]}, "Sun-Hee Park"),
], ids=["github-api-commit", "package-authors"])
def test_name_beside_an_email_in_json_is_pseudonymised(red, doc: dict, name: str) -> None:
    out = red.redact_jsonl_line(json.dumps(doc).encode(), RedactionReport())
    assert name.encode() not in out
    assert b"acme-tool" in out or b"2026-01-05T10:00:00Z" in out


@pytest.mark.parametrize("doc", [
    {"author": {"name": "dependabot[bot]", "email": "49699333+dependabot[bot]@users.noreply.github.com"}},
    {"name": "release", "email": "not an email"},
    {"name": "my-package", "version": "1.0.0", "license": "MIT"},
], ids=["bot", "no-email", "package"])
def test_other_name_objects_are_left_alone(red, doc: dict) -> None:
    line = json.dumps(doc).encode()
    assert red.redact_jsonl_line(line, RedactionReport()) == line


# ------------------------------------------------------------------ Claude Read results: `     N→line` (engine)

def _numbered(text: str) -> str:
    return "\n".join(f"{i + 1:>6}\u2192{line}" for i, line in enumerate(text.split("\n")))


def _read_result(text: str) -> bytes:
    return json.dumps({"type": "user", "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_01r", "content": _numbered(text)}]}}, ensure_ascii=False).encode()


@pytest.mark.parametrize("kind", ["RSA PRIVATE KEY", "OPENSSH PRIVATE KEY", "EC PRIVATE KEY"])
def test_private_key_read_with_line_numbers_is_redacted(red, kind: str) -> None:
    key = _pem(kind)
    for line in (_read_result(key), _read_result(key).decode().encode("ascii", "backslashreplace")):
        out = red.redact_jsonl_line(line, RedactionReport())
        for body in key.splitlines()[1:-1]:
            assert body.encode() not in out
    text = red.redact_text(_numbered(key), RedactionReport())
    assert all(body not in text for body in key.splitlines()[1:-1])


@pytest.mark.parametrize("text,values", [
    ("machine api.heroku.com\n  login zelda@acme.io\n  password Hq7vT2mZp9Lx4RkW\n", ["Hq7vT2mZp9Lx4RkW"]),
    ("Host gpu\n  HostName 10.1.2.3\n  User wojtekz\n", ["wojtekz"]),
    ("[user]\n\tname = Ignatius Farquharson\n\temail = ifarq@acme.io\n", ["Farquharson"]),
], ids=["netrc", "ssh-config", "gitconfig"])
def test_config_files_read_with_line_numbers_are_redacted(red, text: str, values: list[str]) -> None:
    out = red.redact_jsonl_line(_read_result(text), RedactionReport())
    for v in values:
        assert v.encode() not in out


def test_numbered_code_keeps_its_numbers(red) -> None:
    code = "def main() -> int:\n    x = compute(1, 2)\n    return x  # see step 2 \u2192 3\n"
    line = _read_result(code)
    assert red.redact_jsonl_line(line, RedactionReport()) == line
