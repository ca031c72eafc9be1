"""Configured people and other accounts: usernames that are ordinary words, short and first
names, decomposed Unicode and JSON escapes, and the login names of other accounts in shell
prompts, `id` and `ls -l` output."""

from __future__ import annotations

import json
import random
import unicodedata

import pytest

from archiver.redact.base import RedactionReport
from archiver.redact.engine import Engine
from archiver.redact.pseudonym import Pseudonymizer
from archiver.redact.redactor import build_redactor
from archiver.redact.rules import RuntimeTerms, load_rules

KEY = b"team-key-for-tests-0123456789abcdef"
BUILTIN = ["builtin:secrets", "builtin:pii", "builtin:paths"]
P = Pseudonymizer(KEY)

# account names that are also words of code and prose
WORD_USERS = ("max", "will", "mark", "bill", "grant", "case", "page")


def _redactor(**terms: list[str]):  # noqa: ANN202
    return build_redactor(BUILTIN, KEY, RuntimeTerms(**terms))


def _line(rng: random.Random, word: str) -> dict:
    """A Claude-Code-like assistant record whose keys and code use `word` as identifiers."""
    return {
        "type": "assistant", "uuid": "0d4f5b8e-9c3a-4e7b-8f21-6a5d3c2b1e0f",
        "message": {
            "model": "claude-sonnet-4", f"{word}_tokens": rng.randint(1000, 64000),
            "content": [{"type": "text", "text": f"const n = Math.{word}(a, b); if (opts.{word}_retry) "
                                                 f"{word}_total += n; self.{word}({word}_count)"}],
            "usage": {"input_tokens": rng.randint(1, 999), f"cache_{word}": 0},
        },
    }


@pytest.mark.parametrize("user", WORD_USERS)
def test_a_username_that_is_a_word_leaves_identifiers_alone(user: str) -> None:
    rng = random.Random(user)
    red = _redactor(usernames=[user])
    line = json.dumps(_line(rng, user)).encode()
    assert red.redact_jsonl_line(line, RedactionReport()) == line
    pseudo = P.username(user)
    # ... and it is still replaced as a word, in home paths, e-mail-like and prompt forms
    for text, want in (
        (f"cd /home/{user}/src/app", f"cd /home/{pseudo}/src/app"),
        (f'{{"cwd": "/Users/{user}/code"}}', f'{{"cwd": "/Users/{pseudo}/code"}}'),
        (f"ssh {user}@build-box", f"ssh {pseudo}@build-box"),
        (f"thanks {user}!", f"thanks {pseudo}!"),
        (f"-home-{user}-proj", f"-home-{pseudo}-proj"),
        (f"www.{user}.dev", f"www.{pseudo}.dev"),
        (f"{user}2024", f"{pseudo}2024"),
    ):
        assert red.redact_text(text, RedactionReport()) == want, text
    rec = {"type": "user", "cwd": f"/home/{user}/work", "message": {"content": f"{user}_tokens and /home/{user}/"}}
    out = json.loads(red.redact_jsonl_line(json.dumps(rec).encode(), RedactionReport()))
    assert out["cwd"] == f"/home/{pseudo}/work"
    assert out["message"]["content"] == f"{user}_tokens and /home/{pseudo}/"


def test_a_username_in_an_identifier_non_ascii_and_after_a_json_escape() -> None:
    eng = Engine(load_rules([], RuntimeTerms(usernames=["jörg", "zqxcanary"])), P)
    j, z = P.username("jörg"), P.username("zqxcanary")
    assert eng.redact("jörg_count = obj.jörg(x)", None) == "jörg_count = obj.jörg(x)"
    assert eng.redact("by jörg.", None) == f"by {j}."
    # JSON inside a text: `\n` before the name is an escape, not a letter of a longer word
    assert eng.redact('{"out": "a\\nzqxcanary\\tjörg"}', None) == f'{{"out": "a\\n{z}\\t{j}"}}'
