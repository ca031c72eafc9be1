"""PII red team, round 6 (s42): other people's names and logins where a format says so but the packs
missed them, in every session shape of tests/fx_redteam.py, compared byte for byte, with no configured
terms (the packs alone).

Leaks fixed here (on s42-lead f203a6b):
- a git trailer without an address (`Acked-by: Name`, `Tested-by:`, `Reported-by:`, `Suggested-by:`,
  `Signed-off-by:`, `Reviewed-by:`, `Co-authored-by:`): git-person-name wants `<x@y>` after the name;
  person-name-keyed-full now knows the trailer keys (the name is 2-4 capitalised words);
- `git blame --porcelain`'s `author Name` and `committer Name` lines (only the `author-mail` address
  was replaced): person-name-keyed-full, an `author`/`committer` key opening a line;
- an issue's people, `{"assignee": {"displayName": "Name"}}`, `"reporter"`, `"creator"` (Jira, Linear):
  person-name-keyed-full reads the object under its role's key; a JSON document's walker scans such a
  name keyed with its parent (walkers/jsonpairs.py PERSON_PARENT). A displayName alone stays no key;
- a package's `"contributors": [{"name": "Name"}]` (package.json, composer.json) without an address in
  a JSON document: the walker scans the name as `"contributors": [{"name": ...` (PERSON_LIST), as
  person-name-keyed-full read it in text already;
- a Slack export's `"real_name"`: person-name-keyed-full (and walkers PERSON_KEY) know `real_name`;
- an LDIF entry's `cn: Name` (and `cn=Name` in a DN): person-name-keyed-full; its `sn: Surname`:
  person-name-keyed;
- a group line of /etc/group or `getent group` (`docker:x:998:alice,bob,carol`): its first three
  member logins, group-entry-member, -2, -3 (new, the regex of passwd-entry-user, groups 2-4: one
  program for the four; a fourth member is left to the echo of a login replaced elsewhere);
- a `w` line idle for minutes (`07:01    5:00   0.01s`): who-last-user wanted `s`/`m`/`days` after
  the idle time;
- finger's `Login: bob   Name: Full Name`: person-name-keyed-full (the login went only by the echo of
  its home folder);
- the second and third name of an authors list without an address (Cargo.toml `authors = ["A", "B"]`,
  a gemspec's `spec.authors`): person-name-list-item and -3 (new, one regex, groups 1 and 2;
  person-name-keyed-full takes the first); in a JSON document a list of strings under `authors`,
  `contributors` or `maintainers` has each scanned as `"authors": "<value>"`;
- `sudo -l`'s `User bob may run the following commands on host` and a refused sudo's `Sorry, user bob
  may not run sudo on host`: sudo-list-user (new, the regex of sudo-prompt-user, group 2).
What must stay: placeholders and bots as trailer names (`Your Name`, `Claude`, `dependabot[bot]`,
`The Pallets Team`), a directory group's cn (`Grafana Editors`, `Jenkins Agents`), an assignee that is
no person (`Build Pipeline`), a model's displayName, `User root may run ...`, `User Story:`, system accounts in a group line (`adm:x:4:syslog,ubuntu`), git
SHAs.
"""

from __future__ import annotations

import json

import pytest

from archiver.redact.base import RedactionReport
from archiver.redact.pseudonym import Pseudonymizer
from archiver.redact.redactor import build_redactor
from archiver.redact.rules import RuntimeTerms
from tests.fx_redteam import CARRIERS, check_kept, check_replaced

KEY = b"team-key-for-tests-0123456789abcdef"
PACKS = ["builtin:secrets", "builtin:pii", "builtin:paths", "builtin:names"]
P = Pseudonymizer(KEY)


def T(label: str, value: str) -> str:  # noqa: N802
    return P.token(label, value)


def U(login: str) -> str:  # noqa: N802
    return P.username(login)


@pytest.fixture(scope="module")
def red():  # noqa: ANN201
    return build_redactor(PACKS, KEY, RuntimeTerms())


QF, YP = "Quillon Fakeworth", "Ysolde Pemberton"
SHA = "3f9a0c2e7b14d58a9c6e1f2a3b4c5d6e7f8091a2"

# (name, text, want)
PLANTED = [
    ("trailers-without-address",
     "Fix the retry loop.\n\nAcked-by: Ysolde Pemberton\nTested-by: Quillon Fakeworth\n"
     "Reported-by: Ysolde Pemberton\nSuggested-by: Quillon Fakeworth\n",
     f"Fix the retry loop.\n\nAcked-by: {T('PERSON', YP)}\nTested-by: {T('PERSON', QF)}\n"
     f"Reported-by: {T('PERSON', YP)}\nSuggested-by: {T('PERSON', QF)}\n"),
    ("git-blame-porcelain",
     f"$ git blame --porcelain src/app.py\n{SHA} 1 1 1\nauthor Quillon Fakeworth\nauthor-mail <qf@corpmail.io>\n"
     "author-time 1700000000\ncommitter Ysolde Pemberton\ncommitter-mail <ysolde@corpmail.io>\n",
     f"$ git blame --porcelain src/app.py\n{SHA} 1 1 1\nauthor {T('PERSON', QF)}\n"
     f"author-mail <{T('EMAIL', 'qf@corpmail.io')}>\nauthor-time 1700000000\ncommitter {T('PERSON', YP)}\n"
     f"committer-mail <{T('EMAIL', 'ysolde@corpmail.io')}>\n"),
    ("jira-issue-people",
     'jira says: {"fields": {"assignee": {"accountId": "5b10a2844c20165700ede21g", "displayName": "Quillon Fakeworth"}, '
     '"reporter": {"displayName": "Ysolde Pemberton"}}}\n',
     'jira says: {"fields": {"assignee": {"accountId": "5b10a2844c20165700ede21g", '
     f'"displayName": "{T("PERSON", QF)}"}}, "reporter": {{"displayName": "{T("PERSON", YP)}"}}}}}}\n'),
    ("slack-real-name",
     'users.list: {"id": "U012AB3CD", "team_id": "T0G9PQBBK", "real_name": "Quillon Fakeworth"}\n',
     f'users.list: {{"id": "U012AB3CD", "team_id": "T0G9PQBBK", "real_name": "{T("PERSON", QF)}"}}\n'),
    ("ldif-person",
     "dn: cn=Ysolde Pemberton,ou=people,dc=corp,dc=test\ncn: Ysolde Pemberton\nsn: Pemberton\n",
     f"dn: cn={T('PERSON', YP)},ou=people,dc=corp,dc=test\ncn: {T('PERSON', YP)}\nsn: {T('PERSON', 'Pemberton')}\n"),
    ("sudo-l",
     "$ sudo -l\nUser ysolde may run the following commands on buildhost:\n    (ALL : ALL) ALL\n",
     f"$ sudo -l\nUser {U('ysolde')} may run the following commands on buildhost:\n    (ALL : ALL) ALL\n"),
    ("getent-group-members",
     "$ getent group docker\ndocker:x:998:qfake,ysolde,marlo.v\nsudo:x:27:ubuntu,ysolde\n",
     f"$ getent group docker\ndocker:x:998:{U('qfake')},{U('ysolde')},{U('marlo.v')}\nsudo:x:27:ubuntu,{U('ysolde')}\n"),
    ("w-idle-minutes",
     "$ w\nUSER     TTY      FROM             LOGIN@   IDLE   JCPU   PCPU WHAT\n"
     "ysolde   pts/1    10.1.2.4         07:01    5:00   0.01s  0.01s vim\n",
     "$ w\nUSER     TTY      FROM             LOGIN@   IDLE   JCPU   PCPU WHAT\n"
     f"{U('ysolde')}   pts/1    10.1.2.4         07:01    5:00   0.01s  0.01s vim\n"),
    ("finger-name",
     "$ finger ysolde\nLogin: ysolde         \t\t\tName: Ysolde Pemberton\nDirectory: /home/ysolde\n",
     f"$ finger {U('ysolde')}\nLogin: {U('ysolde')}         \t\t\tName: {T('PERSON', YP)}\nDirectory: /home/{U('ysolde')}\n"),
    ("cargo-authors-list",
     '[package]\nname = "widget"\nauthors = ["Quillon Fakeworth", "Ysolde Pemberton", "Marlo Vantreece <mv@corpmail.io>"]\n',
     f'[package]\nname = "widget"\nauthors = ["{T("PERSON", QF)}", "{T("PERSON", YP)}", '
     f'"{T("PERSON", "Marlo Vantreece")} <{T("EMAIL", "mv@corpmail.io")}>"]\n'),
    ("gemspec-authors",
     'Gem::Specification.new do |spec|\n  spec.authors = ["Quillon Fakeworth", "Ysolde Pemberton"]\nend\n',
     f'Gem::Specification.new do |spec|\n  spec.authors = ["{T("PERSON", QF)}", "{T("PERSON", YP)}"]\nend\n'),
    ("sudo-refused",
     "$ sudo -v\nSorry, user qfake may not run sudo on buildhost.\n",
     f"$ sudo -v\nSorry, user {U('qfake')} may not run sudo on buildhost.\n"),
]

KEPT = {
    "placeholder-and-bot-trailers": "Signed-off-by: Your Name\nCo-authored-by: Claude\nCo-authored-by: dependabot[bot]\n"
                                    "Reviewed-by: The Pallets Team\n",
    "ldif-groups": "dn: cn=Grafana Editors,ou=groups,dc=corp,dc=test\ncn: Grafana Editors\ncn: Jenkins Agents\n",
    "assignee-no-person": 'jira says: {"assignee": {"displayName": "Build Pipeline"}}\n',
    "model-display-name": 'models: {"id": "claude-opus", "displayName": "Claude Opus"}\n',
    "sudo-root": "User root may run the following commands on buildhost:\n",
    "user-story": "User Story: as a user I may run it twice\n",
    "author-prose": "the author Guide covers it\n",
    "git-sha": f"commit {SHA}\n",
    "system-group-members": "adm:x:4:syslog,ubuntu\nwheel:x:10:\nroot:x:0:0:root:/root:/bin/bash\n",
    "ratio": "a:x:1:b2 in a ratio\n",
    "authors-team-and-bot": 'authors = ["Quillon", "The Pallets Team", "Acme Corp", "dependabot[bot]"]\n',
}


@pytest.mark.parametrize("carrier", CARRIERS)
@pytest.mark.parametrize("name,text,want", PLANTED, ids=[p[0] for p in PLANTED])
def test_the_person_is_replaced_and_the_rest_kept(red, name: str, text: str, want: str, carrier: str) -> None:  # noqa: ANN001
    check_replaced(red, carrier, text, want,
                   ("Quillon", "Ysolde", "Fakeworth", "Pemberton", "ysolde", "qfake", "marlo"))


@pytest.mark.parametrize("carrier", CARRIERS)
@pytest.mark.parametrize("name", sorted(KEPT))
def test_text_without_a_person_is_kept_byte_for_byte(red, name: str, carrier: str) -> None:  # noqa: ANN001
    check_kept(red, carrier, KEPT[name])


JIRA = {"key": "OPS-7", "fields": {
    "assignee": {"accountId": "5b10a2844c20165700ede21g", "displayName": QF, "active": True},
    "reporter": {"name": "ysolde", "displayName": YP},
    "creator": {"displayName": "Automation for Jira"},
    "project": {"name": "Platform Ops"},
}}
PACKAGE = {"name": "left-pad-x", "version": "1.0.0", "authors": [QF, "The Pallets Team"],
           "contributors": [{"name": YP}, {"name": "The Pallets Team"}],
           "maintainers": [{"name": QF, "url": "https://qfake.dev"}]}
SLACK = [{"id": "U012AB3CD", "name": "qfake", "real_name": QF,
          "profile": {"real_name": QF, "display_name": "Quillon", "title": "Staff Engineer"}}]


@pytest.mark.parametrize("doc", [JIRA, PACKAGE, SLACK], ids=["jira-issue", "package-json", "slack-users"])
def test_a_named_persons_object_in_a_json_document_is_replaced(red, doc) -> None:  # noqa: ANN001
    raw = json.dumps(doc, indent=2).encode()
    got = json.loads(red.redact_bytes(raw, RedactionReport(), "text"))
    want = json.loads(json.dumps(doc).replace(f'"{QF}"', f'"{T("PERSON", QF)}"').replace(f'"{YP}"', f'"{T("PERSON", YP)}"'))
    assert got == want
