"""s31: a login name a rule read from its account context (a home folder, an ssh login) is
echoed through the rest of its unit (one JSONL line, one text buffer) even when it is short and
not configured: the collector may run as another user than the one who wrote the sessions (a
container reading mounted homes), and "Hi alice," beside `/home/alice` names the same person.
Generic accounts and names that are everyday words stay where they are not an account."""

from __future__ import annotations

import json

import pytest

from archiver.redact.base import RedactionReport
from archiver.redact.pseudonym import Pseudonymizer
from tests.fx_redact import builtin_redactor

KEY = b"s31-username-echo-test-key-0123456789abcdef"


@pytest.fixture(scope="module")
def red():  # noqa: ANN201
    return builtin_redactor(KEY)


def _user(name: str) -> str:
    return Pseudonymizer(KEY).username(name)


@pytest.mark.parametrize("text, name, want", [
    ("cd /home/alice/src && echo Hi alice, owner: alice", "alice",
     "cd /home/{u}/src && echo Hi {u}, owner: {u}"),
    ("branch alice/fix-login checked out in /Users/alice/proj", "alice",
     "branch {u}/fix-login checked out in /Users/{u}/proj"),
    ("C:\\Users\\kenji\\repo> whoami\ndesktop-7\\kenji", "kenji",
     "C:\\Users\\{u}\\repo> whoami\ndesktop-7\\{u}"),
    ("ssh lena@build-07.example.net 'ls ~' -- lena said it is fine", "lena",
     "ssh {u}@build-07.example.net 'ls ~' -- {u} said it is fine"),
])
def test_found_login_name_is_echoed_in_its_text(red, text: str, name: str, want: str) -> None:  # noqa: ANN001
    got = red.redact_text(text, RedactionReport())
    assert got == want.format(u=_user(name))
    assert name not in got


def test_found_login_name_is_echoed_across_a_json_line(red) -> None:  # noqa: ANN001
    rec = {"cwd": "/Users/alice/proj", "gitBranch": "alice/hotfix",
           "message": {"role": "user", "content": "Thanks alice! run git log --author=alice"}}
    line = red.redact_jsonl_line(json.dumps(rec).encode(), RedactionReport()).decode()
    u = _user("alice")
    assert json.loads(line) == {"cwd": f"/Users/{u}/proj", "gitBranch": f"{u}/hotfix",
                                "message": {"role": "user", "content": f"Thanks {u}! run git log --author={u}"}}


@pytest.mark.parametrize("text", [
    "/home/max/x: the max value is 10",  # an everyday word: only its account contexts
    "/home/runner/work: runner up",  # a generic account
    "/home/alice/x: malice and alicex are other words",  # glued to letters: another word
])
def test_word_and_generic_names_are_not_echoed(red, text: str) -> None:  # noqa: ANN001
    got = red.redact_text(text, RedactionReport())
    path, rest = text.split(": ", 1)
    assert got.split(": ", 1)[1] == rest
    assert got.split(": ", 1)[0] != path  # the home folder itself is still redacted


def test_a_name_in_another_line_is_not_echoed(red) -> None:  # noqa: ANN001
    """The unit is one JSONL line: an appended segment comes out as it would in the whole file."""
    other = {"message": {"role": "user", "content": "Thanks alice!"}}
    line = red.redact_jsonl_line(json.dumps(other).encode(), RedactionReport()).decode()
    assert json.loads(line) == other


def _naive_echo_matches(text: bytes, values: dict, taken: list, lo: int = 0, hi: int | None = None) -> list:
    """The reference: every occurrence checked against every span taken so far."""
    from archiver.redact.echoes import _word_byte

    hi = len(text) if hi is None else hi
    spans = [(m.start, m.end) for m in taken]
    out = []
    for value, m in values.items():
        pos = text.find(value, lo, hi)
        while pos >= 0:
            end = pos + len(value)
            glued = ((pos > 0 and _word_byte(text[pos - 1]) and _word_byte(value[0]))
                     or (end < len(text) and _word_byte(text[end]) and _word_byte(value[-1])))
            if not glued and all(end <= s or e <= pos for s, e in spans):
                out.append(m._replace(start=pos, end=end))
                spans.append((pos, end))
                pos = text.find(value, end, hi)
            else:
                pos = text.find(value, pos + 1, hi)
    return out


def test_echo_overlap_test_by_bisection_equals_the_naive_one() -> None:
    """echo_matches bisects the taken intervals (a name said thousands of times in a long line
    beside thousands of findings was quadratic); its answer is the naive walk's, zero-length and
    overlapping taken spans included."""
    import random

    from archiver.redact.echoes import echo_matches
    from archiver.redact.engine import Match

    rnd = random.Random(31)
    for _ in range(5000):
        n = rnd.randint(0, 60)
        text = bytes(rnd.choice(b"ab .-x") for _ in range(n))
        taken = []
        for _ in range(rnd.randint(0, 6)):
            s = rnd.randint(0, n)
            taken.append(Match("r", s, min(n, s + rnd.randint(0, 5)), "L", "x"))
        values = {bytes(rnd.choice(b"ab .-x") for _ in range(rnd.randint(1, 4))): Match("v", 0, 0, "L", "x")
                  for _ in range(rnd.randint(1, 3))}
        lo = rnd.randint(0, n)
        hi = rnd.choice([None, rnd.randint(lo, n)])
        assert echo_matches(text, values, taken, lo, hi) == _naive_echo_matches(text, values, taken, lo, hi)
