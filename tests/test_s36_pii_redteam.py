"""PII red team, round 3 (s36): logins, hosts and names the packs still let through, planted in the
session shapes of tests/fx_redteam.py (prose, a Claude Code tool_result with its toolUseResult
sidecar, a Codex function_call_output, a file-history backup, an SQLite TEXT cell, a `git diff`
adding the text) and compared byte for byte; another user's (no configured terms: the packs alone).

Leaks fixed here (each planted case failed on main dc3b943: 205 of the 313 tests, the 108 others are
what must stay):
- logins: `su bob` / `passwd bob` as the text's last word, `sudo -iu bob`, `mysql -u bob` / `--user=bob`
  / `-ubob`, `docker login -u bob`, `podman login --username bob`, `ssh` / `scp -o User=bob`, an http(s)
  URL's user (`git clone https://bob@git.example.com/...`, `git remote -v`), a WSL home over
  `//wsl$/...`, an NFS home under `/net/<host>/home/`, a spaced profile under `/mnt/c/Users/`, and the
  output of `echo %USERNAME%` / `$env:USERNAME` / `[Environment]::UserName` in a later record;
- hosts (HOST, their first label, as a configured host): a shell prompt's in the home folder
  (`bob@devbox:~$`, `[bob@devbox ~]$`; a prompt in another folder is not looked for, its keywords
  would be too short), the bare names ssh and ping print (`connect to host devbox-12 port 22`,
  `PING buildhost-3 (10.0.0.5)`), names under `.lan`, `.internal`, `.corp`, `.home.arpa`;
- e-mails written quoted-printable (`bob=40acme-corp.io`); names: MIME encoded-words before an
  address, the author of `git log` one-line formats with relative dates, `Copyright (c) 2024 Bob
  Smith`, `@author Bob Smith`.
What must stay: git SHAs, UUIDs, base64 images, localhost, container ids in prompts, the platforms'
own private names (`host.docker.internal`, `svc.cluster.local`), public hosts, prose using `su`,
`user`, `author` and `copyright`, organisations as copyright holders, generic accounts.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from archiver.redact.base import RedactionReport
from archiver.redact.pseudonym import Pseudonymizer
from archiver.redact.redactor import build_redactor
from archiver.redact.rules import RuntimeTerms
from tests.fx_redact import redacted_file
from tests.fx_redteam import CARRIERS, Case, check_kept, claude_pair, codex_pair, expected, planted_params, redact_in

KEY = b"team-key-for-tests-0123456789abcdef"
PACKS = ["builtin:secrets", "builtin:pii", "builtin:paths", "builtin:names"]
P = Pseudonymizer(KEY)
NO_DIFF = tuple(c for c in CARRIERS if c != "diff")  # a diff's lines end in a newline: the text's end is gone


@pytest.fixture(scope="module")
def other():  # noqa: ANN201
    return build_redactor(PACKS, KEY, RuntimeTerms())


def _replacement(label: str, value: str) -> str:
    return P.username(value.lower()) if label == "USERNAME" else P.token(label, value)


def check_planted_pii(red, case: Case, carrier: str) -> None:  # noqa: ANN001
    """fx_redteam.check_planted with a login replaced as a login (`user-1a2b` of the lower-cased
    login, keeping a path's shape) and anything else by its keyed token."""
    text, want = case.template, case.template
    for i, (label, value) in enumerate(case.secrets):
        text = text.replace(f"@{i}@", value)
        want = want.replace(f"@{i}@", _replacement(label, value))
    got, whole = redact_in(red, carrier, text)
    assert got == expected(carrier, want)
    for _, v in case.secrets:
        assert v not in whole and json.dumps(v)[1:-1] not in whole


def U(login: str) -> tuple[str, str]:  # noqa: N802
    return ("USERNAME", login)


def H(host: str) -> tuple[str, str]:  # noqa: N802
    return ("HOST", host)


def N(name: str) -> tuple[str, str]:  # noqa: N802
    return ("PERSON", name)


CASES = [
    # logins
    Case("su-last-word", "ok\n$ su @0@", (U("qvothurl"),), NO_DIFF),
    Case("passwd-last-word", "sudo passwd @0@", (U("wren.k"),), NO_DIFF),
    Case("sudo-iu", "$ sudo -iu @0@\n", (U("qvothurl"),)),
    Case("sudo-Hu", "sudo -Hu @0@ make deploy\n", (U("zeph_k"),)),
    Case("mysql-u", "mysql -h db.example.com -u @0@ -p shop\n", (U("qvothurl"),)),
    Case("mysql-user-eq", "mysql --user=@0@ shop < dump.sql\n", (U("marlo.v"),)),
    Case("mysqldump-glued", "mysqldump -u@0@ app > app.sql\n", (U("quillon"),)),
    Case("docker-login", "docker login -u @0@ registry.example.com\n", (U("olek.f"),)),
    Case("podman-login", "podman login --username @0@ quay.io\n", (U("sven_t"),)),
    Case("ssh-o-user", "ssh -o User=@0@ build.example.com uptime\n", (U("qvothurl"),)),
    Case("scp-o-user", "scp -P 2222 -o User=@0@ a.txt build.example.com:/tmp\n", (U("wren.k"),)),
    Case("url-user-clone", "git clone https://@0@@git.example.com/team/app.git\n", (U("qvothurl"),)),
    Case("url-user-remote-v", "origin\thttps://@0@@gitserver:3000/team/app.git (fetch)\n", (U("zeph_k"),)),
    Case("url-user-pip", "pip install git+https://@0@@git.example.com/team/lib.git\n", (U("marlo.v"),)),
    Case("wsl-unc-forward", "cd //wsl$/Ubuntu/home/@0@/src\n", (U("qvothurl"),)),
    Case("nfs-net-home", "ls /net/fileserver/home/@0@/projects\n", (U("wren.k"),)),
    Case("wsl-spaced-profile", 'ls "/mnt/c/Users/@0@/Documents"\n', (U("Zorblat Quenby"),)),
    # hosts
    Case("prompt-host-bash", "@0@@@1@:~$ ls\n", (U("qvothurl"), H("devbox"))),
    Case("prompt-host-redhat", "[@0@@@1@ ~]$ make\n", (U("qvothurl"), H("web-07"))),
    Case("prompt-host-root", "root@@0@:~# apt update\n", (H("build-box-07"),)),
    Case("ssh-connect-host", "ssh: connect to host @0@ port 22: Connection refused\n", (H("devbox-12"),)),
    Case("ssh-resolve-host", "ssh: Could not resolve hostname @0@: Name or service not known\n", (H("nas-02"),)),
    Case("ping-host", "PING @0@ (10.0.0.5) 56(84) bytes of data.\n64 bytes from @0@ (10.0.0.5): icmp_seq=1 ttl=64\n",
         (H("buildhost-3"),)),
    Case("dns-lan", "curl http://@0@.lan:8080/job/app/\n", (H("qv-laptop"),)),
    Case("dns-internal", "DB_HOST=@0@.internal\n", (H("db1"),)),
    Case("dns-corp", "open http://@0@.acme.corp/wiki\n", (H("zq-desk"),)),
    Case("dns-home-arpa", "ping -c1 @0@.home.arpa\n", (H("nas"),)),
    # e-mails and names
    Case("email-quoted-printable",
         "Content-Transfer-Encoding: quoted-printable\n\nplease write to @0@=2C thanks\n",
         (("EMAIL", "zorblat=40acme-corp.io"),)),
    Case("mime-encoded-name", "From: @0@ <@1@>\n", (N("=?UTF-8?Q?Zorblat_Quenby?="), ("EMAIL", "zq@acme-corp.io"))),
    Case("git-lg-author", "* 3f78685 - fix the build (2 days ago) <@0@>\n", (N("Zorblat Quenby"),)),
    Case("git-log-ar-author", "3f78685 fix the build - @0@, 3 weeks ago\n", (N("Zorblat Quenby"),)),
    Case("copyright-holder", "// Copyright (c) 2024 @0@\n", (N("Zorblat Quenby"),)),
    Case("javadoc-author", "/**\n * Parser.\n * @author @0@\n */\n", (N("Zorblat Quenby"),)),
]
PLANTED, PLANTED_IDS = planted_params(CASES)


@pytest.mark.parametrize("case,carrier", PLANTED, ids=PLANTED_IDS)
def test_planted(other, case: Case, carrier: str) -> None:  # noqa: ANN001
    check_planted_pii(other, case, carrier)


# the Windows login variable printed by a command of an earlier record (walkers/toolpair.py)
WINDOWS_LOGIN = ["echo %USERNAME%", "$env:USERNAME", "echo $env:USERNAME", "[Environment]::UserName"]


@pytest.mark.parametrize("pair", [codex_pair, claude_pair])
@pytest.mark.parametrize("cmd", WINDOWS_LOGIN)
def test_the_windows_login_printed_in_a_later_record(other, tmp_path: Path, cmd: str, pair) -> None:  # noqa: ANN001
    tmp_path.chmod(0o700)
    src = pair(cmd, "qvothurl\r\n")
    assert redacted_file(other, tmp_path, "s.jsonl", src)[0] == src.replace(b"qvothurl", P.username("qvothurl").encode())


_PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4 + b"devbox.lan su qvothurl").decode()
KEPT = [
    "commit 3f786850e387550fdab836ed7e6dc881de23001b\nid 0d4f5b8e-9c3a-4e7b-8f21-6a5d3c2b1e0f\n",
    f"![shot](data:image/png;base64,{_PNG})\n",
    "curl http://localhost:8080 http://api.svc.cluster.local:8080 http://host.docker.internal:3000\n",
    "curl -H 'Metadata-Flavor: Google' http://metadata.google.internal/computeMetadata/v1/\n",
    "El pingüino incuba en su nido y su pareja\nUse the su command, or sudo su root\n$ su -\n",
    "Each user has an author, and the copyright notice says who.\nCopyright (c) Microsoft Corporation.\n",
    "Copyright 2020 The Kubernetes Authors.\nCopyright (c) 2015-present, Facebook, Inc.\nCopyright 2019 Google LLC\n",
    "root@a3f2b9c1d0e4:~# ls\nroot@localhost:~# exit\n",
    "mysql -u root -p\nsudo -u postgres psql\ndocker login -u $REGISTRY_USER --password-stdin ghcr.io\n",
    "ssh -o UserKnownHostsFile=/dev/null -o StrictHostKeyChecking=no build.example.com\n",
    "git clone https://github.com/org/app.git\norigin\thttps://github.com/org/app.git (fetch)\n",
    "ssh: connect to host github.com port 22: Connection timed out\n",
    "PING localhost (127.0.0.1) 56(84) bytes of data.\n",
    "import com.acme.internal.util.Parser;\nsee x.lan.example.com and the acme.corporate site\n",
    "width=40px; margin=40.5em\nSubject: =?UTF-8?Q?Build_failed?=\n",
    "* 3f78685 - bump deps (2 days ago) <dependabot[bot]>\nreleased 2 days ago - see the notes\n",
    "ls /mnt/data/users.csv /net/\nimport golang.org/x/net/http2\n",
    "sudo rsync -au src/ dst/\nHostName db.internal\n",
]


@pytest.mark.parametrize("carrier", CARRIERS)
@pytest.mark.parametrize("text", KEPT)
def test_kept(other, text: str, carrier: str) -> None:  # noqa: ANN001
    check_kept(other, carrier, text)


def test_the_new_rules_fire(other) -> None:  # noqa: ANN001
    report = RedactionReport()
    other.redact_text("ok\n$ su wren\n[ab@devbox ~]$ ls\nPING buildhost-3 (10.0.0.5) 56(84) bytes\n"
                      "curl http://qv-nas.lan/\ngit clone https://wren@git.example.com/a.git\n"
                      "cd //wsl$/Ubuntu/home/wren/x\nls '/mnt/c/Users/Ab Cd/x'\n"
                      "From: =?UTF-8?Q?Ab_Cd?= <ab@acme-corp.io>\n* 3f78685 - x (2 days ago) <Ab Cd>\n"
                      "// Copyright (c) 2024 Ab Cdef\n$ su wren", report)
    fired = report.by_rule()
    for rid in ("su-passwd-user-last", "shell-prompt-host", "network-message-host", "private-dns-host",
                "url-userinfo-login", "unc-home-user", "home-wsl-spaced", "mime-encoded-word-name",
                "git-log-relative-author", "copyright-author-name"):
        assert fired.get(rid, 0) >= 1, (rid, fired)
