"""s18 false-positive sweep: ordinary developer content that names secrets without holding one
(locale files, OpenAPI examples, CI workflows, env listings and .env.example placeholders, masked
keys, IaC templates), build and test logs, cluster and cloud output, numbers in code, versions,
documentation addresses and every harness's image blocks (tests/fx_s18_fp.py) comes out of the real
redactor byte for byte, as a file's text and as a Claude Code tool result. The few spans RULES.md
takes on purpose (DEBATABLE, card numbers of test fixtures) are asserted exactly; beside each shape
this sweep un-redacted, the real secret of the same shape still goes."""

from __future__ import annotations

import json
import re

import pytest

from archiver.redact.base import RedactionReport
from tests.fx_redact import builtin_redactor, gone, kept
from tests.fx_s18_fp import CARD_FIXTURE, DEBATABLE, image_lines, kinds, transcript_line

KEY = b"s18-fp-test-key-0123456789abcdefgh"
SEEDS = (18, 3)
CASES = [(seed, kind, text) for seed in SEEDS for kind, text in kinds(seed)]
IDS = [f"{seed}-{kind}" for seed, kind, _ in CASES]


@pytest.fixture(scope="module")
def red():  # noqa: ANN201
    return builtin_redactor(KEY, ["zelda"])


def _same_but(out: str, text: str, spans: str) -> None:
    """out is text byte for byte except that every match of `spans` was replaced by a token."""
    parts = re.split(spans, text)
    assert len(parts) > 1, "the debatable span is not in the text"
    token = r"(?:<[A-Z_]+:[0-9a-f]{4,16}>|user-[0-9a-f]{4,16})"
    pattern = token.join(re.escape(p) for p in parts)
    assert re.fullmatch(pattern, out, re.S), out


@pytest.mark.parametrize("seed,kind,text", CASES, ids=IDS)
def test_a_file_of_this_kind_stays(red, seed: int, kind: str, text: str) -> None:  # noqa: ANN001
    report = RedactionReport()
    out = red.redact_text(text, report)
    if kind in DEBATABLE:
        spans, rules = DEBATABLE[kind]
        _same_but(out, text, spans)
        assert report.by_rule() == rules
        return
    assert out == text
    assert report.by_rule() == {}


@pytest.mark.parametrize("seed,kind,text", CASES, ids=IDS)
def test_a_tool_result_of_this_kind_stays(red, seed: int, kind: str, text: str) -> None:  # noqa: ANN001
    line = transcript_line(text)
    report = RedactionReport()
    out = red.redact_jsonl_line(line, report)
    if kind in DEBATABLE:
        spans, rules = DEBATABLE[kind]
        rec = json.loads(out)
        _same_but(rec["message"]["content"][0]["content"], text, spans)
        _same_but(rec["toolUseResult"]["stdout"], text, spans)
        assert report.by_rule() == {r: 2 * n for r, n in rules.items()}
        return
    assert out == line
    assert report.by_rule() == {}


@pytest.mark.parametrize("harness", sorted(image_lines()))
def test_an_image_block_stays(red, harness: str) -> None:  # noqa: ANN001
    line = image_lines()[harness]
    report = RedactionReport()
    assert red.redact_jsonl_line(line, report) == line
    assert report.by_rule() == {}


def test_the_cards_of_a_test_fixture_are_taken(red) -> None:  # noqa: ANN001
    # RULES.md: an unlabelled card-shaped number with a valid Luhn digit is taken (recall over
    # precision); a comment calling them test cards does not change that
    report = RedactionReport()
    out = red.redact_text(CARD_FIXTURE, report)
    for card in ("4242424242424242", "5555555555554444", "378282246310005", "4000000000000002"):
        assert card not in out
    _same_but(out, CARD_FIXTURE, r"4242424242424242|5555555555554444|378282246310005|4000000000000002")
    assert report.by_rule() == {"credit-card-amex": 1, "credit-card-mastercard": 1, "credit-card-visa": 2}


# --- the shapes this sweep un-redacted, one by one, and the real values beside them -------------
@pytest.mark.parametrize("text", [
    '{"auth": {"password": "Passwort", "forgot_password": "Passwort vergessen?"}}',
    '{"password": "Contraseña", "forgot_password": "¿Olvidaste tu contraseña?"}',
    '"forgot_password": "Forgot your password?",',
    "nl:\n  auth:\n    password: Wachtwoord\nsv:\n  auth:\n    password: Lösenord\n",
    '{"username": "string", "password": "string"}',
    "permissions:\n  id-token: write\n  contents: read\n",
    "OPENAI_API_KEY=sk-proj-...XyZ9 (masked)\nexport AWS_SECRET_ACCESS_KEY=****************abcd\n",
    "JWT_SECRET=replace-with-a-long-random-string\n",
    "    Signed-off-by: dependabot[bot] <support@github.com>\n",
])
def test_a_label_placeholder_or_bot_stays(red, text: str) -> None:  # noqa: ANN001
    assert kept(red, text) == {}


@pytest.mark.parametrize("text,value,rule", [
    ('{"password": "Senha2024!"}', "Senha2024!", "password-assignment-quoted"),
    ('{"password": "what is 2 plus 2?"}', "what is 2 plus 2?", "password-assignment-quoted"),
    ('{"password": "Strings4ever"}', "Strings4ever", "password-assignment-quoted"),
    ("password: Lösenord2024\n", "Lösenord2024", "password-assignment-unquoted"),
    ("services:\n  api:\n    environment:\n      id_token: Quibblemarsh\n", "Quibblemarsh", "yaml-password-letters"),
    ("OPENAI_API_KEY=sk-proj-FAKEexample0123456789XyZ9\n", "sk-proj-FAKEexample0123456789XyZ9", None),
    ("API_TOKEN=FAKEtok3nValue0123...\n", "FAKEtok3nValue0123...", None),
    ("JWT_SECRET=replaceable-FAKE-9x\n", "replaceable-FAKE-9x", None),
    ("    Signed-off-by: Ignatia Fakename <ignatia@acme-corp.io>\n", "ignatia@acme-corp.io", "email"),
    ("Signed-off-by: support bot <support@github.com.acme-corp.io>\n", "support@github.com.acme-corp.io", "email"),
])
def test_the_real_value_beside_it_still_goes(red, text: str, value: str, rule: str | None) -> None:  # noqa: ANN001
    if rule is None:  # the token's own rule or an assignment rule, whichever wins the span
        out = red.redact_text(text, RedactionReport())
        assert value not in out and out.startswith(text.split("=")[0] + "=")
        return
    gone(red, text, value, rule)
