"""PII red team, round 2 (s34): host names, short logins and accounts outside home paths, in every
session shape of tests/fx_redteam.py (prose, a Claude Code tool_result with its toolUseResult
sidecar, a Codex function_call_output, a file-history backup, an SQLite TEXT cell, a `git diff`
adding the text where its lines keep their shape), compared byte for byte.

Two set-ups: *configured* (the collector's own user: login `jo`, two characters, and `mfernandez`,
name `Maria Fernandez`, host `build-box-07`) and *other user* (no terms: only the packs and the
echoes of what they found).

Leaks fixed here (each failed on main e462190):
- another machine's name: the host of a shell prompt (`qvothurl@mbp-qv:~/src$`, `[u@web-07 src]$`),
  the output of `hostname` / `uname -n` after its command, `hostnamectl`'s `Static hostname:`, an
  mDNS `name.local` (and the bare name beside it in a hosts line, echoed), `Last login: ... from
  host`: all labelled HOST, as the configured hosts are;
- an e-mail whose `@` is the hex HTML entity `&#x40;`;
- accounts outside home paths: `su - user`, `passwd user`, `/var/mail/user`,
  `/var/spool/cron/crontabs/user`, `/tmp/pytest-of-user/`, and chown's group when it is the
  owner's own name however short (`chown jo:jo`: the two-letter group was left, the echo needs 3).
What must stay: container ids in prompts, `localhost`, `~/.local`, `.env.local`,
`settings.local.json`, `svc.cluster.local`, git SHAs, UUIDs, base64 images, prose around `su`,
`passwd` and `hostname`, and the short login inside other words.
"""

from __future__ import annotations

import base64

import pytest

from archiver.redact.base import RedactionReport
from archiver.redact.pseudonym import Pseudonymizer
from archiver.redact.redactor import build_redactor
from archiver.redact.rules import RuntimeTerms
from tests.fx_redteam import CARRIERS, expected, redact_in

KEY = b"team-key-for-tests-0123456789abcdef"
PACKS = ["builtin:secrets", "builtin:pii", "builtin:paths", "builtin:names"]
P = Pseudonymizer(KEY)
LINES = tuple(c for c in CARRIERS if c != "diff")  # a terminal's lines: a diff's `+` breaks them


def U(login: str) -> str:  # noqa: N802
    return P.username(login)


def H(host: str) -> str:  # noqa: N802
    return P.token("HOST", host)


@pytest.fixture(scope="module")
def conf():  # noqa: ANN201
    return build_redactor(PACKS, KEY, RuntimeTerms(usernames=["jo", "mfernandez"], names=["Maria Fernandez"],
                                                   home_dirs=["/home/jo"], hosts=["build-box-07"]))


@pytest.fixture(scope="module")
def other():  # noqa: ANN201
    return build_redactor(PACKS, KEY, RuntimeTerms())


def _check(red, text: str, want: str, carriers: tuple[str, ...]) -> None:  # noqa: ANN001
    for carrier in carriers:
        got, _ = redact_in(red, carrier, text)
        assert got == expected(carrier, want), carrier


# (name, text, want, carriers): another user's, found by the packs alone
OTHER = [
    ("hostname", "$ hostname\nmbp-qv\n$ ls\n", f"$ hostname\n{H('mbp-qv')}\n$ ls\n", LINES),
    ("hostname-f", "$ hostname -f\nmbp-qv.corp.example.org\n", f"$ hostname -f\n{H('mbp-qv.corp.example.org')}\n",
     LINES),
    ("uname-n", "$ uname -n\nmbp-qv\n", f"$ uname -n\n{H('mbp-qv')}\n",
     LINES),
    ("hostnamectl", "   Static hostname: mbp-qv\n         Icon name: computer-laptop\n",
     f"   Static hostname: {H('mbp-qv')}\n         Icon name: computer-laptop\n", CARRIERS),
    ("last-login", "Last login: Tue Mar  3 10:00:00 2026 from qv-laptop.lan\n",
     f"Last login: Tue Mar  3 10:00:00 2026 from {H('qv-laptop')}.lan\n", CARRIERS),
    ("email-hex-entity", "mail: zorblat&#x40;corp.com\n", f"mail: {P.token('EMAIL', 'zorblat&#x40;corp.com')}\n",
     CARRIERS),
    ("su", "$ su - qvothurl\nPassword:\n", f"$ su - {U('qvothurl')}\nPassword:\n", CARRIERS),
    ("su-c", "$ su qvothurl -c 'make deploy'\n", f"$ su {U('qvothurl')} -c 'make deploy'\n", CARRIERS),
    ("passwd", "sudo passwd wren.k\n", f"sudo passwd {U('wren.k')}\n", CARRIERS),
    ("mailbox", "cat /var/mail/qvothurl | tail\n", f"cat /var/mail/{U('qvothurl')} | tail\n", CARRIERS),
    ("crontab", "sudo cat /var/spool/cron/crontabs/qvothurl\n", f"sudo cat /var/spool/cron/crontabs/{U('qvothurl')}\n",
     CARRIERS),
    ("pytest-tmp", "E   /tmp/pytest-of-qvothurl/pytest-3/test_x0/a.txt\n",
     f"E   /tmp/pytest-of-{U('qvothurl')}/pytest-3/test_x0/a.txt\n", CARRIERS),
]


@pytest.mark.parametrize("name,text,want,carriers", OTHER, ids=[c[0] for c in OTHER])
def test_another_users_host_and_account(other, name: str, text: str, want: str, carriers) -> None:  # noqa: ANN001
    _check(other, text, want, carriers)


CONFIGURED = [
    # the configured host: the pack rules give the token the configured rule gives
    ("own-hostname", "$ hostname\nbuild-box-07\n", f"$ hostname\n{H('build-box-07')}\n", LINES),
    # the two-letter login where an account shows
    ("short-chown", "sudo chown -R jo:jo /srv/app\n", f"sudo chown -R {U('jo')}:{U('jo')} /srv/app\n", CARRIERS),
    ("short-chown-staff", "chown -R jo:staff /srv\n", f"chown -R {U('jo')}:staff /srv\n", CARRIERS),
    ("short-su", "ok\n$ su - jo\n", f"ok\n$ su - {U('jo')}\n", CARRIERS),
    ("short-whoami", "$ whoami\njo\n$ ls\n", f"$ whoami\n{U('jo')}\n$ ls\n", LINES),
    ("short-id", "uid=1000(jo) gid=1000(jo) groups=1000(jo),27(sudo)\n",
     f"uid=1000({U('jo')}) gid=1000({U('jo')}) groups=1000({U('jo')}),27(sudo)\n", CARRIERS),
    ("short-user-env", "USER=jo\nLOGNAME=jo\n", f"USER={U('jo')}\nLOGNAME={U('jo')}\n", CARRIERS),
]


@pytest.mark.parametrize("name,text,want,carriers", CONFIGURED, ids=[c[0] for c in CONFIGURED])
def test_the_configured_host_and_short_login(conf, name: str, text: str, want: str, carriers) -> None:  # noqa: ANN001
    _check(conf, text, want, carriers)


_PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4 + b"mbp-qv.local jo:jo").decode()
STAYS = [
    "root@a3f2b9c1d0e4:/app# ls\nroot@localhost:~# exit\n",
    "ls ~/.local/bin && cp .env.local .env && cat .claude/settings.local.json\n",
    "curl http://api.svc.cluster.local:8080 http://host.docker.internal\n",
    "export PATH=$HOME/.local/bin:$PATH\n",
    "see the passwd file\nUse the su command, or sudo su root\nsudo passwd $USER\n",
    "El pingüino incuba en su nido.\nstia stiamo sto su sua\n",
    "from werkzeug.local import LocalProxy\nclass _Ctx(threading.local):\nif version.local is None:\n",
    "socket.gethostname()\nfoo\nSet the hostname\n42 times\n",
    "chown www-data:www-data /var/www\nchown -R root:root /etc/x\n",
    "Join the jolly jobs, Jo. JSON join(), major, enjoy, jo-jo, banjo\n",
    "commit 3f786850e387550fdab836ed7e6dc881de23001b\nid 0d4f5b8e-9c3a-4e7b-8f21-6a5d3c2b1e0f\n",
    f"![shot](data:image/png;base64,{_PNG})\n",
    "Last login: Tue Mar  3 10:00:00 2026 from 10.1.2.3\nssh root@localhost\nscp a root@10.0.0.5:/tmp\n",
    "open mail.google.com/mail/u/0/#inbox and https://example.org/mail/inbox\n",
    "vscode-remote://ssh-remote+7b22686f73744e616d65223a226275696c64626f78227d/x\n",
]


@pytest.mark.parametrize("text", STAYS)
@pytest.mark.parametrize("setup", ["conf", "other"])
def test_what_must_stay(request, setup: str, text: str) -> None:  # noqa: ANN001
    red = request.getfixturevalue(setup)
    for carrier in CARRIERS:
        if carrier == "diff" and "\n" in text.rstrip("\n"):
            continue
        got, _ = redact_in(red, carrier, text)
        if "vscode-remote://ssh-remote+7b22" in text:  # the hex authority is vscode-remote-hex-authority's
            assert "7b22686f73744e616d65" not in got
            continue
        assert got == expected(carrier, text), carrier


def test_the_new_rules_fire(other) -> None:  # noqa: ANN001
    report = RedactionReport()
    other.redact_text("$ uname -n\nmbp-qv\n Static hostname: web-07\n"
                      "Last login: Mon Dec  1 09:12:44 from build-box-07\n$ su - wren\n$ passwd zeph\n"
                      "cat /var/mail/zeph\nchown ab:ab x\n", report)
    fired = report.by_rule()
    for rid in ("hostname-output", "hostnamectl-hostname", "last-login-host",
                "su-passwd-user-arg", "system-user-path", "chown-group-user"):
        assert fired.get(rid, 0) >= 1, (rid, fired)
