"""PII red team, round 5 (s40): people named where the format says so but the packs missed them,
in every session shape of tests/fx_redteam.py, compared byte for byte, with no configured terms.

Leaks and damage fixed here (on main 6aa268b):
- `x@y (Name)`, the RFC 822 form (an RSS `<author>`, an old `From:` line, a ChangeLog credit): the
  address was replaced, the name kept. person-name-after-email is the regex of
  person-name-before-email with the name after the address as group 2: one program for the two;
- `MAINTAINER Name <x@y>` came out as `<PERSON:...> <...>`: the upper-case keyword was taken for the
  first word of the name, lost, and the name got another token than everywhere else. A name's first
  word now holds a lower-case letter or is an initial;
- a Javadoc/JSDoc `@author Name` and a Dockerfile's `MAINTAINER Name` without an address: kept unless
  the given name was a common one (person-name-keyed-full now knows both);
- a GitHub account as `gh ... --json author` and the REST API print it, `{"login": ..., "name": ...}`:
  its name was kept (the JSON walker knew a person by `name` beside `email` only).
What must stay: a mailbox named by its use (`ops@x (Ops Team)`, `(Google Workspace)`), a bot
(`is_bot: true`), an organisation (`"type": "Organization"`, `The Octocat`), `@author` of a foundation.
"""

from __future__ import annotations

import json

import pytest

from archiver.redact.base import RedactionReport
from archiver.redact.pseudonym import Pseudonymizer
from archiver.redact.redactor import build_redactor
from archiver.redact.rules import RuntimeTerms, load_rules
from tests.fx_redteam import CARRIERS, check_kept, check_replaced

KEY = b"team-key-for-tests-0123456789abcdef"
PACKS = ["builtin:secrets", "builtin:pii", "builtin:paths", "builtin:names"]
P = Pseudonymizer(KEY)


def T(label: str, value: str) -> str:  # noqa: N802
    return P.token(label, value)


@pytest.fixture(scope="module")
def red():  # noqa: ANN201
    return build_redactor(PACKS, KEY, RuntimeTerms())


QF, YP = "Quillon Fakeworth", "Ysolde Pemberton"

# (name, text, want)
PLANTED = [
    ("rss-author", "<item><title>Release</title><author>qf@corpmail.io (Quillon Fakeworth)</author></item>\n",
     f"<item><title>Release</title><author>{T('EMAIL', 'qf@corpmail.io')} ({T('PERSON', QF)})</author></item>\n"),
    ("rfc822-from", "From: ysolde.pemberton@corpmail.io (Ysolde Pemberton)\nSubject: re: build\n",
     f"From: {T('EMAIL', 'ysolde.pemberton@corpmail.io')} ({T('PERSON', YP)})\nSubject: re: build\n"),
    ("dockerfile-maintainer-with-address", "FROM python:3.12-slim\nMAINTAINER Quillon Fakeworth <qf@corpmail.io>\n",
     f"FROM python:3.12-slim\nMAINTAINER {T('PERSON', QF)} <{T('EMAIL', 'qf@corpmail.io')}>\n"),
    ("dockerfile-maintainer", "FROM alpine:3.20\nMAINTAINER Ysolde Pemberton\nRUN apk add git\n",
     f"FROM alpine:3.20\nMAINTAINER {T('PERSON', YP)}\nRUN apk add git\n"),
    ("javadoc-author", "/**\n * Retries the upload.\n * @author Quillon Fakeworth\n */\npublic class Uploader {}\n",
     f"/**\n * Retries the upload.\n * @author {T('PERSON', QF)}\n */\npublic class Uploader {{}}\n"),
    ("gh-json-author-in-text", 'gh says: [{"author":{"is_bot":false,"login":"qfake","name":"Quillon Fakeworth"},"number":42}]\n',
     f'gh says: [{{"author":{{"is_bot":false,"login":"qfake","name":"{T("PERSON", QF)}"}},"number":42}}]\n'),
]

KEPT = {
    "team-mailbox": "ops@corp.test (Ops Team) owns the pager\n",
    "workspace-mailbox": "me@corp.test (Google Workspace) is the admin\n",
    "one-word": "bob@corp.test (Bob) approved\n",
    "foundation-author": " * @author Apache Software Foundation\n",
    "handle-author": " * @author qfake\n",
    "gh-bot-in-text": 'gh says: [{"author":{"is_bot":true,"login":"app/renovate","name":"Renovate Bot"},"number":7}]\n',
    "upper-case-words": "SEE THE README FIRST\n",
    "git-sha": "3f786850e387550fdab836ed7e6dc881de23001b\n",
}


@pytest.mark.parametrize("carrier", CARRIERS)
@pytest.mark.parametrize("name,text,want", PLANTED, ids=[p[0] for p in PLANTED])
def test_the_name_is_replaced_and_the_rest_kept(red, name: str, text: str, want: str, carrier: str) -> None:  # noqa: ANN001
    check_replaced(red, carrier, text, want, ("Quillon", "Ysolde", "Fakeworth", "Pemberton"))


@pytest.mark.parametrize("carrier", CARRIERS)
@pytest.mark.parametrize("name", sorted(KEPT))
def test_text_without_a_person_is_kept_byte_for_byte(red, name: str, carrier: str) -> None:  # noqa: ANN001
    check_kept(red, carrier, KEPT[name])


GH_PR_LIST = [
    {"author": {"id": "MDQ6VXNlcjU4MzIzMQ==", "is_bot": False, "login": "qfake", "name": QF}, "number": 42},
    {"author": {"id": "MDM6Qm90NDk2OTky", "is_bot": True, "login": "app/dependabot", "name": ""}, "number": 43},
]
REST_USERS = [
    {"login": "qfake", "id": 1, "type": "User", "name": QF, "company": "Acme", "email": None},
    {"login": "octocat", "id": 583231, "type": "User", "name": "The Octocat", "email": None},
    {"login": "acme-widgets", "id": 9, "type": "Organization", "name": "Acme Widgets"},
]


@pytest.mark.parametrize("doc", [GH_PR_LIST, REST_USERS], ids=["gh-pr-list-json", "rest-users"])
def test_a_github_accounts_name_is_replaced_in_json_and_a_bot_or_organisation_kept(red, doc: list) -> None:  # noqa: ANN001
    raw = json.dumps(doc).encode()
    got = json.loads(red.redact_bytes(raw, RedactionReport(), "text"))
    want = json.loads(json.dumps(doc).replace(f'"{QF}"', f'"{T("PERSON", QF)}"'))
    assert got == want
    assert QF.encode() not in json.dumps(got).encode()


def test_the_after_email_rule_shares_the_before_email_rules_regex(red) -> None:  # noqa: ANN001
    """One program for both forms, searched once per text: the name after an address is group 2 of
    the same regex. Each rule keeps its own piece of the weak prefilter, the alternative that holds
    its group (the gate drops the other), so text with neither form costs one piece each."""
    rules = {r.id: r for r in load_rules(["builtin:pii"])}
    after, before = rules["person-name-after-email"], rules["person-name-before-email"]
    assert after.regex == before.regex
    assert (after.secret_group, before.secret_group) == (2, 1)
    compiled = {c.rule.id: c for c in red.engine._c}  # noqa: SLF001
    a, b = compiled["person-name-after-email"], compiled["person-name-before-email"]
    assert a.shared and b.shared and a.rx is b.rx
