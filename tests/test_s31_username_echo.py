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
