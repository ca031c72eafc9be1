"""PII red team, round 4 (s39): the host of another machine's shell prompt, and a person's name
before an e-mail address in parentheses, in every session shape of tests/fx_redteam.py, compared
byte for byte, with no configured terms (the packs and the echoes of what they found).

Leaks fixed here (42 of the 48 planted cases failed on main 24b8145; the POD AUTHOR section's
name was already found there, by its own rule):
- the host of a prompt (`[carol@db-prod-07 /var/lib]$`, `bob@build-box:~/src$`, Git Bash's
  `gina@DESKTOP-4F2K1 MINGW64`): the login was replaced, the machine's name kept, and with it every
  later mention (`ssh db-prod-07`). The host rules share their user rule's regex, so a prompt is
  matched once for both and the weak prefilter holds one piece for the two (sessions 34 and 36 took
  out host rules of their own regex: ~3 MB of DFA in each worker at the memory case's peak);
- `Name (x@y)`: credits, `__author__`: the address was replaced, the name kept.
What must stay: a container's hex id, `localhost` and a cloud VM named by its private address
(`ip-10-0-1-5`, as SECURITY.md keeps private addresses) in a prompt, `git@host:repo` and `scp`/`rsync`
targets, a mailbox named by what it is for (`Contact Support (support@...)`), and a name whose
parentheses hold more than an address.
"""

from __future__ import annotations

import pytest

from archiver.redact.pseudonym import Pseudonymizer
from archiver.redact.redactor import build_redactor
from archiver.redact.rules import RuntimeTerms, load_rules
from tests.fx_redteam import CARRIERS, check_kept, check_replaced

KEY = b"team-key-for-tests-0123456789abcdef"
PACKS = ["builtin:secrets", "builtin:pii", "builtin:paths", "builtin:names"]
P = Pseudonymizer(KEY)


def U(login: str) -> str:  # noqa: N802
    return P.username(login)


def T(label: str, value: str) -> str:  # noqa: N802
    return P.token(label, value)


@pytest.fixture(scope="module")
def red():  # noqa: ANN201
    return build_redactor(PACKS, KEY, RuntimeTerms())


# (name, text, want)
PLANTED = [
    ("redhat-prompt-and-a-later-ssh", "[carol@db-prod-07 /var/lib]$ ls\n$ ssh db-prod-07 uptime\n",
     f"[{U('carol')}@{T('HOST', 'db-prod-07')} /var/lib]$ ls\n$ ssh {T('HOST', 'db-prod-07')} uptime\n"),
    ("bash-prompt", "bob@build-box:~/src$ make test\n",
     f"{U('bob')}@{T('HOST', 'build-box')}:~/src$ make test\n"),
    ("root-prompt-host", "root@db-primary-3:/var/lib# systemctl status\n",
     f"root@{T('HOST', 'db-primary-3')}:/var/lib# systemctl status\n"),
    ("zsh-prompt", "quinn@qv-workstation ~ % git status\n",
     f"{U('quinn')}@{T('HOST', 'qv-workstation')} ~ % git status\n"),
    ("git-bash-prompt", "gina@DESKTOP-4F2K1 MINGW64 ~/source/repos/app (main)\n$ ls\n",
     f"{U('gina')}@{T('HOST', 'DESKTOP-4F2K1')} MINGW64 ~/source/repos/app (main)\n$ ls\n"),
    ("credits-name-in-parentheses", "Thanks to Quillon Fakeworth (qf@corpmail.io) for the patch.\n",
     f"Thanks to {T('PERSON', 'Quillon Fakeworth')} ({T('EMAIL', 'qf@corpmail.io')}) for the patch.\n"),
    ("python-author", "__author__ = 'Ysolde Pemberton (ysolde@corpmail.io)'\n",
     f"__author__ = '{T('PERSON', 'Ysolde Pemberton')} ({T('EMAIL', 'ysolde@corpmail.io')})'\n"),
    ("pod-author", "=head1 AUTHOR\n\nBob van der Fakename (bobvdf@corpmail.io)\n\n=cut\n",
     f"=head1 AUTHOR\n\n{T('PERSON', 'Bob van der Fakename')} ({T('EMAIL', 'bobvdf@corpmail.io')})\n\n=cut\n"),
]

KEPT = {
    "container-prompt": "root@a3f2b9c1d0e4:/app# ls\n",
    "localhost-prompt": "root@localhost:~# ls\n",
    "private-address-vm-prompt": "ubuntu@ip-10-0-1-5:~$ ls\n",
    "git-remote": "git clone git@github.com:org/repo.git && cd repo\n",
    "scp-target": "scp build.tgz root@buildhost:/tmp/build.tgz\n",
    "npm-versions": "npm i lodash@4.17.21 @types/node@20 % done\n",
    "support-mailbox": "Contact Support (support@corp.test) for access\n",
    "name-and-more-in-parentheses": "Ysolde Pemberton (see ysolde@corp.test)\n",
    "git-sha": "3f786850e387550fdab836ed7e6dc881de23001b\n",
}


@pytest.mark.parametrize("carrier", CARRIERS)
@pytest.mark.parametrize("name,text,want", PLANTED, ids=[p[0] for p in PLANTED])
def test_host_and_name_are_replaced_and_the_rest_kept(red, name: str, text: str, want: str,  # noqa: ANN001
                                                       carrier: str) -> None:
    check_replaced(red, carrier, text, want,
                   ("db-prod-07", "build-box", "DESKTOP-4F2K1", "Quillon", "Ysolde", "Fakename"))


@pytest.mark.parametrize("carrier", CARRIERS)
@pytest.mark.parametrize("name", sorted(KEPT))
def test_text_without_pii_is_kept_byte_for_byte(red, name: str, carrier: str) -> None:  # noqa: ANN001
    check_kept(red, carrier, KEPT[name])


def test_host_rules_share_their_user_rules_regex_and_prefilter_piece(red) -> None:  # noqa: ANN001
    """A host rule matched once with its user rule: the same regex (one program) and one piece of
    the weak prefilter for both, so the host costs no DFA of its own."""
    rules = {r.id: r for r in load_rules(["builtin:pii"])}
    for host, user in (("shell-prompt-host", "shell-prompt-user"), ("shell-prompt-host-msys", "shell-prompt-user-msys")):
        assert rules[host].regex == rules[user].regex
        assert (rules[host].secret_group, rules[user].secret_group) == (2, 1)
    engine = red.engine
    idx = {c.rule.id: c.idx for c in engine._c}  # noqa: SLF001
    chunks = [ch for g in engine._weak.values() for ch in g]  # noqa: SLF001
    together = [ch for ch in chunks if idx["shell-prompt-host"] in ch.members]
    assert len(together) == 1 and idx["shell-prompt-user"] in together[0].members
    assert (idx["shell-prompt-user"], idx["shell-prompt-host"]) in together[0].piece_rules
    assert len(together[0].piece_rules) == len(together[0].idxs) - 1
