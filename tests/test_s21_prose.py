"""Credentials and personal data stated in prose (rules/secrets.toml `prose-*`, rules/pii.toml
`date-of-birth-labelled`, `card-security-code`, `passport-number-prose`, `drivers-licence-number`).

Through the real redactor with the built-in packs: each sentence a user types to an agent loses
the value and only the value (the token put back gives the sentence byte for byte); ordinary prose,
placeholders and code about passwords, tokens, dates and passports come out unchanged; a Claude Code
user message and a Codex rollout (records shaped as in /work/shared/seeds/by-harness) carrying
several of them go through `redact_file`, with the report naming the new rule ids."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from archiver.redact.base import RedactionReport
from tests.fx_redact import builtin_redactor, kept

KEY = b"s21-prose-test-key-0123456789abcdefghij"
TOKEN = re.compile(r"<[A-Z][A-Z0-9_]*:[0-9a-f]{8}>")
NEW_RULES = {
    "prose-password", "prose-password-quoted", "prose-secret", "prose-secret-quoted", "prose-pin",
    "prose-login-pair", "date-of-birth-labelled", "card-security-code", "passport-number-prose",
    "drivers-licence-number",
}

# (sentence, the value that must go, the rule that takes it)
STATED = [
    ("my password is hunter2horse", "hunter2horse", "prose-password"),
    ("The password is: Tr0ub4dor&3", "Tr0ub4dor&3", "prose-password"),
    ('use password "Zx9!kLmq2" to log in', "Zx9!kLmq2", "prose-password-quoted"),
    ("the admin pw is Qwerty!2345", "Qwerty!2345", "prose-password"),
    ("login with admin / Sup3rS3cret!", "Sup3rS3cret!", "prose-login-pair"),
    ("my pin is 4821", "4821", "prose-pin"),
    ("the wifi key is CorrectHorseBattery", "CorrectHorseBattery", "prose-password"),
    ('the passphrase is "purple monkey dishwasher 42"', "purple monkey dishwasher 42", "prose-password-quoted"),
    ("my api key is 8f14e45fceea167a5a36dedd4bea2543", "8f14e45fceea167a5a36dedd4bea2543", "prose-secret"),
    ("DOB: 1984-03-12", "1984-03-12", "date-of-birth-labelled"),
    ("date of birth 12/03/1984", "12/03/1984", "date-of-birth-labelled"),
    ("born on March 12, 1984", "March 12, 1984", "date-of-birth-labelled"),
    ("cvv 123", "123", "card-security-code"),
    ("CVV: 987", "987", "card-security-code"),
    ("passport X12345678", "X12345678", "passport-number-prose"),
    ("driver's license D1234567", "D1234567", "drivers-licence-number"),
    # the same shapes inside longer sentences
    ("ok so my password is hunter2horse. can you log in now?", "hunter2horse", "prose-password"),
    ("Your new password is now **Xk9-mEq2vL** (change it after login)", "Xk9-mEq2vL", "prose-password"),
    ("the api key is \"sk-Xk9mEq2vLw7Zq8vT2mZp9L\", keep it safe", "sk-Xk9mEq2vLw7Zq8vT2mZp9L", "prose-secret-quoted"),
    ("PIN code: 0613, don't share it", "0613", "prose-pin"),
    ("Geburtsdatum: 12.03.1984, Ort: Köln", "12.03.1984", "date-of-birth-labelled"),
    ("fecha de nacimiento 03/12/1984", "03/12/1984", "date-of-birth-labelled"),
    ("Führerschein: B072RRE2I55", "B072RRE2I55", "drivers-licence-number"),
    ("my passport is AB12C3D, valid until 2031", "AB12C3D", "passport-number-prose"),
]

ORDINARY = [
    "the password is incorrect",
    "password is required",
    "the password is stored in Vault",
    "the token is expired",
    "the API key is missing",
    "your pin is not valid",
    "password is hashed with bcrypt",
    "the secret is out",
    "the token is a JWT",
    "the key is in ~/.ssh",
    "the password is base64-encoded and the token is short-lived",
    "Password is set to expire after 90 days.",
    "the passphrase \"enter again\" prompt shows up twice",
    "pin numpy to 1.26.4 and spin 1234 times",
    "released on March 12, 1984",
    "created 2024-01-01",
    "born in 1984, she moved to Leeds in 2001",
    "passport photo",
    "CVV field",
    "Fix double free (spotted by Coverity, CID #1965).",
    "driver's license photo on file",
    "log in with GitHub / Google",
    "sign in with email / password",
    "version 1.2.3 of passport 0.7.0",
    "commit 3f786850e387550fdab836ed7e6dc881de23001b: the token is rotated",
    "request 0d4f5b8e-9c3a-4e7b-8f21-6a5d3c2b1e0f: the secret is cached",
]
PLACEHOLDERS = [
    "the password is <password>",
    "the password is $PASSWORD",
    "the password is ***",
    "the password is changeme",
    'use password "<password>" to log in',
    'use password "$PASSWORD" to log in',
    "the api key is ${OPENAI_API_KEY}",
    "the token is <TOKEN>",
]
CODE = [
    "if password is None:",
    "assert token is not None",
    "key is_valid",
    "    token: EventLoopToken | None = None,",
    "token: Optional[str] = None",
    "secret = os.environ['SECRET']",
    "password is self.password",
    "the password is get_password()",
    "pw = getpass.getpass()",
    "pwd: /srv/app/work",
    "max_tokens = 4096",
    "#   token          = 1*tchar",
    "pin_memory=True",
    '"ARN": "arn:aws:secretsmanager:us-west-2:123456789012:secret:MyTestDatabaseSecret-a1b2c3",',
    "dob = date(1984, 3, 12)",
]


@pytest.fixture(scope="module")
def red():  # noqa: ANN201
    return builtin_redactor(KEY)


@pytest.mark.parametrize("text,value,rule", STATED, ids=[s[0][:40] for s in STATED])
def test_a_stated_value_goes_and_the_sentence_stays(red, text: str, value: str, rule: str) -> None:  # noqa: ANN001
    report = RedactionReport()
    out = red.redact_text(text, report)
    assert value not in out, out
    assert report.by_rule() == {rule: 1}, report.by_rule()
    tokens = TOKEN.findall(out)
    assert len(tokens) == 1, out
    assert out.replace(tokens[0], value) == text


@pytest.mark.parametrize("text", ORDINARY + PLACEHOLDERS + CODE)
def test_ordinary_prose_placeholders_and_code_stay(red, text: str) -> None:  # noqa: ANN001
    assert kept(red, text) == {}


def test_one_value_gets_one_token_in_every_sentence(red) -> None:  # noqa: ANN001
    """Keyed as written: the password stated twice, in two forms, gets the same token."""
    out = red.redact_text("my password is hunter2horse; again, the password was hunter2horse", RedactionReport())
    tokens = TOKEN.findall(out)
    assert len(tokens) == 2 and tokens[0] == tokens[1], out


# ------------------------------------------------------------------ through redact_file

PROMPT = (
    "hi! to test the staging box: my password is hunter2horse, the admin pw is Qwerty!2345 and my pin is 4821.\n"
    "the api key is \"sk-Xk9mEq2vLw7Zq8vT2mZp9L\".\n"
    "For the KYC form: DOB: 1984-03-12, passport X12345678, driver's license D1234567, card cvv 123.\n"
    "The password is required on every login, and the token is expired: please fix that."
)
PROMPT_VALUES = ["hunter2horse", "Qwerty!2345", "4821", "sk-Xk9mEq2vLw7Zq8vT2mZp9L", "1984-03-12", "X12345678",
                 "D1234567", "cvv 123"]
PROMPT_RULES = {"prose-password": 2, "prose-pin": 1, "prose-secret-quoted": 1, "date-of-birth-labelled": 1,
                "passport-number-prose": 1, "drivers-licence-number": 1, "card-security-code": 1}
KEPT_WORDS = ["my password is ", "the admin pw is ", "my pin is ", "For the KYC form: DOB: ", "card cvv ",
              "The password is required on every login, and the token is expired: please fix that."]


def _claude_user_line(text: str) -> bytes:
    """A Claude Code user record (claude-code.json `records`: a typed prompt, content a string)."""
    return json.dumps({
        "parentUuid": None, "isSidechain": False, "userType": "external", "cwd": "/srv/app", "entrypoint": "cli",
        "sessionId": "5b1e8f0c-2d3a-4c4b-9e6f-7a8b9c0d1e2f", "version": "2.1.302", "gitBranch": "main",
        "type": "user", "message": {"role": "user", "content": text},
        "uuid": "6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f", "timestamp": "2026-03-02T10:11:12.345Z",
    }, ensure_ascii=False).encode() + b"\n"


def _codex_rollout(text: str) -> bytes:
    """A legacy Codex rollout (codex.json): session_meta, the user's message as a response_item and
    as an event_msg user_message, and a function_call_output echoing it."""
    tid = "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b"
    recs = [
        {"type": "session_meta", "payload": {"id": tid, "timestamp": "2026-03-01T10:00:00.000Z", "cwd": "/srv/app",
                                             "originator": "codex_cli_rs", "cli_version": "0.150.0", "source": "cli",
                                             "model_provider": "openai"}},
        {"type": "response_item", "payload": {"type": "message", "role": "user",
                                              "content": [{"type": "input_text", "text": text}]}},
        {"type": "event_msg", "payload": {"type": "user_message", "message": text, "local_images": [],
                                          "text_elements": []}},
        {"type": "response_item", "payload": {"type": "function_call", "name": "exec_command", "call_id": "call_s21",
                                              "arguments": json.dumps({"cmd": "cat notes.txt"})}},
        {"type": "response_item", "payload": {"type": "function_call_output", "call_id": "call_s21",
                                              "output": "Process exited with code 0\nOutput:\n" + text}},
    ]
    return b"".join(json.dumps({"timestamp": "2026-03-01T10:01:00.000Z", **r}, ensure_ascii=False).encode() + b"\n"
                    for r in recs)


def _redact_file(red, tmp_path: Path, name: str, data: bytes) -> tuple[bytes, dict[str, int]]:  # noqa: ANN001
    src, dst = tmp_path / name, tmp_path / f"out-{name}"
    src.write_bytes(data)
    report = RedactionReport()
    red.redact_file(src, dst, "jsonl", report)
    return dst.read_bytes(), report.by_rule()


def _texts(out: bytes, path: list[str | int]) -> list[str]:
    found = []
    for line in out.splitlines():
        node = json.loads(line)
        try:
            for step in path:
                node = node[step]
        except (KeyError, IndexError, TypeError):
            continue
        found.append(node)
    return found


def test_a_claude_user_message_loses_every_value(red, tmp_path: Path) -> None:  # noqa: ANN001
    out, counts = _redact_file(red, tmp_path, "claude.jsonl", _claude_user_line(PROMPT))
    for v in PROMPT_VALUES:
        assert v.encode() not in out, v
    assert {r: n for r, n in counts.items() if r in NEW_RULES} == PROMPT_RULES, counts
    (content,) = _texts(out, ["message", "content"])
    for words in KEPT_WORDS:
        assert words in content, words
    assert TOKEN.sub("", content) != content
    assert json.loads(out)["uuid"] == "6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f"


def test_a_codex_rollout_loses_every_value_in_each_record(red, tmp_path: Path) -> None:  # noqa: ANN001
    out, counts = _redact_file(red, tmp_path, "rollout.jsonl", _codex_rollout(PROMPT))
    for v in PROMPT_VALUES:
        assert v.encode() not in out, v
    # the prompt is in three records: every count triples
    assert {r: n for r, n in counts.items() if r in NEW_RULES} == {r: 3 * n for r, n in PROMPT_RULES.items()}, counts
    texts = (_texts(out, ["payload", "content", 0, "text"]) + _texts(out, ["payload", "message"])
             + _texts(out, ["payload", "output"]))
    assert len(texts) == 3
    assert len({TOKEN.sub("T", t).replace("Process exited with code 0\nOutput:\n", "") for t in texts}) == 1
    assert texts[0] == texts[1] and texts[2].endswith(texts[0])
    assert len(out.splitlines()) == 5


def test_the_report_names_the_new_rules_and_never_a_value(red) -> None:  # noqa: ANN001
    report = RedactionReport()
    red.redact_text("\n".join(s[0] for s in STATED), report)
    counts = report.by_rule()
    assert set(counts) == {s[2] for s in STATED}
    assert sum(counts.values()) == len(STATED)
    assert not any(v in json.dumps(report.by_carrier()) for _, v, _ in STATED if len(v) > 3)
