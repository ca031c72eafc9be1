"""Generator of identities where coding-agent sessions show them (s15 outside-in leak audit: PII).

s11 and s14 covered secrets and a few home-path / e-mail spellings; tests/test_redact_people.py the
configured people and other accounts in prompts, `id`, `ls -l`, `ps`, `who`. This one adds what a
transcript shows around a person: shell prompts of more shells, `whoami`/`echo $USER`/`npm whoami`
output, git author lines and trailers, forge and cloud CLI identity output (`gh api user`, `docker
info`, `kubectl config view`, `aws sts get-caller-identity`, `gcloud config list`), tracebacks and
paths in every OS spelling, host names, e-mails in odd forms, SSH/GPG key comments, system config
(crontab, sudoers, systemd, Dockerfile) and package manifests (package.json, Cargo.toml, pyproject).

Who: every seed draws a *profile*: the configured user (a login that is no everyday word, a real
name, a host name), a configured login that is an everyday word (docs/SECURITY.md: replaced only
where an account shows), and another person the config does not know (login, name, e-mail).
`samples(seed)` gives (family, text, values): each value must be gone from the redacted text.
A family's suffix says whose identity it holds: `-cfg` the configured user, `-word` the configured
word login, `-other` someone else. `negatives(seed)` gives texts that must stay byte for byte.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass

from tests.fx_s14_leak_gen import Gen as S14Gen

# configured logins that are no everyday word, and real names
FREE_LOGINS = ("qorvath", "tmarsh", "bellamyk", "ivo.petrov", "s_okafor", "lindqvist", "dzhukova")
FIRSTS = ("Ingrid", "Tobias", "Marguerite", "Anselm", "Priyanka", "Oluwaseun", "Henrike", "Casimir")
LASTS = ("Falkenrath", "Okonkwo", "Lindqvist", "Abernathy", "Vasquez-Ruiz", "Thornquist", "Marchetti")
# configured logins that are words (rules/words.toml common_word_usernames): none is part of a word the
# templates use, so a plain substring check of the output means what it says
WORD_LOGINS = ("grant", "river", "stone", "amber", "cliff", "brook", "sunny")
# other people: logins as admins make them, and names
OTHER_LOGINS = ("mkowalski", "farah.h", "t_nguyen", "devon42", "pmoreau", "aiko.t", "lsilva")
OTHER_FIRSTS = ("Farah", "Tomasz", "Ngozi", "Lucas", "Aiko", "Pavel", "Inès")
OTHER_LASTS = ("Haddad", "Kowalczyk", "Okafor", "Moreau", "Tanaka", "Lindgren", "Silva")
HOSTS = ("kestrel-ws", "orca-dev-03", "tern-laptop", "pelican-build", "heron-box")
DOMAINS = ("acme-corp.com", "globex.io", "initech.dev", "umbrella-labs.net")

Sample = tuple[str, str, list[str]]


@dataclass(frozen=True)
class Profile:
    login: str  # configured, no everyday word
    name: str  # configured real name
    host: str  # configured host name
    word: str  # configured login that is an everyday word
    other: str  # a login the config does not know
    other_name: str
    domain: str

    @property
    def first(self) -> str:
        return self.name.split()[0]

    @property
    def last(self) -> str:
        return self.name.split()[-1]


class Gen(S14Gen):
    """s14's generator (s, mixed, b64, pw, uuid, ...), plus the profile of a seed."""

    def profile(self) -> Profile:
        c = self.r.choice
        return Profile(c(FREE_LOGINS), f"{c(FIRSTS)} {c(LASTS)}", c(HOSTS), c(WORD_LOGINS), c(OTHER_LOGINS),
                       f"{c(OTHER_FIRSTS)} {c(OTHER_LASTS)}", c(DOMAINS))


def profile(seed: int) -> Profile:
    return Gen(seed).profile()


def samples(seed: int = 15) -> list[Sample]:  # noqa: C901, PLR0915
    g = Gen(seed)
    p = g.profile()
    u, w, o = p.login, p.word, p.other
    name, oname, host, dom = p.name, p.other_name, p.host, p.domain
    mail = f"{u.replace('_', '.')}@{dom}"
    omail = f"{o}@{dom}"
    sha = g.s("0123456789abcdef", 40)
    out: list[Sample] = []

    def add(family: str, text: str, *values: str) -> None:
        out.append((family, text, list(values)))

    # ---- shell prompts (more shells than the people tests: git branch, PowerShell, fish, root #)
    for who, login in (("cfg", u), ("word", w), ("other", o)):
        add(f"prompt-ps1-git-branch-{who}", f"{login}@{host}:~/src/api (feature/x)$ git status\nOn branch feature/x\n",
            login)
        add(f"prompt-rhel-root-hash-{who}", f"[{login}@{host} api]# systemctl restart api\n", login)
        add(f"prompt-zsh-macbook-{who}", f"{login}@MacBook-Pro ~ % npm test\n", login)
        add(f"prompt-powershell-{who}", f"PS C:\\Users\\{login}\\source\\repos\\api> dotnet build\n", login)
    add("prompt-fish-cfg", f"{u}@{host} ~/s/api (main)> ls\n", u, host)
    add("prompt-oh-my-zsh-user-host", f"➜  api git:(main) ✗ echo done\n{u}@{host} api % exit\n", u, host)
    add("prompt-starship-cfg", f"{u} in 🌐 {host} in ~/src/api on  main\n❯ cargo build\n", u, host)

    # ---- identity commands
    for who, login in (("cfg", u), ("word", w), ("other", o)):
        add(f"whoami-{who}", f"$ whoami\n{login}\n$ hostname\nbuild-07\n", login)
        add(f"echo-user-{who}", f"$ echo $USER\n{login}\n", login)
        add(f"id-un-{who}", f"$ id -un\n{login}\n", login)
        add(f"npm-whoami-{who}", f"$ npm whoami\n{login}\n", login)
        add(f"getent-passwd-{who}", f"$ getent passwd {login}\n{login}:x:1000:1000:,,,:/home/{login}:/bin/zsh\n", login)
        add(f"id-full-{who}", f"$ id\nuid=1000({login}) gid=1000({login}) groups=1000({login}),4(adm),27(sudo),999(docker)\n",
            login)
        add(f"echo-home-{who}", f"$ echo $HOME\n/home/{login}\n$ pwd\n/home/{login}/src/api\n", login)
        add(f"stat-owner-{who}",
            f"$ stat main.py\n  File: main.py\n  Size: 220       \tBlocks: 8          IO Block: 4096   regular file\n"
            f"Access: (0644/-rw-r--r--)  Uid: ( 1000/{login:>8})   Gid: ( 1000/{login:>8})\n", login)
    add("ls-l-numeric-size-cfg", f"$ ls -la\ntotal 16\ndrwxr-x---  4 {u} {u} 4096 Nov 30 10:00 .\n"
        f"-rw-r--r--  1 {u} {u}  220 Nov 30 09:58 .bashrc\n", u)
    add("ps-aux-other", f"$ ps aux | grep python\n{o:<9} 31337  2.1  0.9 412340 76100 pts/3    Sl+  10:02   0:04 python manage.py runserver\n", o)
    add("top-user-other", f"    PID USER      PR  NI    VIRT    RES    SHR S  %CPU  %MEM     TIME+ COMMAND\n"
        f"  31337 {o:<9} 20   0  412340  76100  12800 S   2.1   0.9   0:04.11 python\n", o)
    add("last-other", f"$ last -n 2\n{o:<8} pts/0        10.0.0.5         Mon Nov 30 09:12   still logged in\n", o)
    add("passwd-line-gecos-other", f"{o}:x:1002:1002:{oname},,,:/home/{o}:/bin/bash\n", o, oname)

    # ---- git
    add("git-log-author-cfg", f"commit {sha}\nAuthor: {name} <{mail}>\nDate:   Mon Nov 30 10:00:00 2026 +0100\n\n    fix flaky test\n",
        name, mail)
    add("git-log-author-other", f"commit {sha}\nAuthor: {oname} <{omail}>\nDate:   Mon Nov 30 10:00:00 2026 +0100\n", oname, omail)
    add("git-log-committer-fuller-other", f"commit {sha}\nAuthor:     {oname} <{omail}>\nAuthorDate: Mon Nov 30 10:00:00 2026 +0100\n"
        f"Commit:     {oname} <{omail}>\nCommitDate: Mon Nov 30 10:00:00 2026 +0100\n", oname, omail)
    add("git-blame-other", f"{sha[:8]} ({oname} 2026-11-30 10:00:00 +0100 12)     return x\n", oname)
    add("git-shortlog-other", f"$ git shortlog -sn\n    42\t{oname}\n    12\t{name}\n", oname, name)
    add("git-config-user-other", f"$ git config user.name\n{oname}\n$ git config user.email\n{omail}\n", oname, omail)
    add("git-config-get-list-other", f"$ git config --list | grep user\nuser.name={oname}\nuser.email={omail}\n", oname, omail)
    add("co-authored-by-other", f"    feat: add export\n\n    Co-authored-by: {oname} <{omail}>\n", oname, omail)
    add("git-log-format-an-ae-other", f"$ git log --format='%an <%ae>' -1\n{oname} <{omail}>\n", oname, omail)

    # ---- forge and cloud CLIs
    gid = str(g.r.randint(1_000_000, 99_999_999))
    add("gh-api-user-cfg", json.dumps({"login": u, "id": int(gid), "name": name, "email": mail, "company": "@acme"}, indent=2),
        u, name, mail)
    gh_other = json.dumps({"login": o, "id": int(gid), "name": oname, "email": omail}, indent=2)
    add("gh-api-user-other", gh_other, omail)
    add("gh-api-user-login-other", gh_other, o)
    add("gh-auth-status-other", f"github.com\n  ✓ Logged in to github.com account {o} (keyring)\n  - Active account: true\n", o)
    add("docker-info-username-other", f"$ docker info | grep -i user\n Username: {o}\n Registry: https://index.docker.io/v1/\n", o)
    add("kubectl-config-view-word", f"users:\n- name: {w}@prod-cluster\n  user:\n    client-certificate-data: DATA+OMITTED\n", w)
    add("kubectl-config-view-cfg", f"contexts:\n- context:\n    cluster: prod\n    user: {u}@corp\n  name: prod\n", u)
    acct = g.s("0123456789", 12)
    aida = "AIDA" + g.s("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 17)
    add("aws-sts-caller-identity-other",
        json.dumps({"UserId": aida, "Account": acct, "Arn": f"arn:aws:iam::{acct}:user/{o}"}, indent=4), f"user/{o}")
    add("aws-sts-assumed-role-other",
        json.dumps({"UserId": f"AROA{g.s('ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', 17)}:{omail}", "Account": acct,
                    "Arn": f"arn:aws:sts::{acct}:assumed-role/AWSReservedSSO_Dev_abc/{omail}"}, indent=4), omail)
    add("gcloud-config-list-other", f"[core]\naccount = {omail}\ndisable_usage_reporting = True\nproject = acme-prod\n", omail)
    add("az-account-show-other", json.dumps({"user": {"name": omail, "type": "user"}, "tenantId": g.uuid()}, indent=2), omail)

    # ---- paths in every spelling
    add("traceback-local-lib-other", f"Traceback (most recent call last):\n  File \"/home/{o}/.local/lib/python3.11/site-packages/requests/api.py\", line 59, in request\n", o)
    add("macos-library-word", f"  File \"/Users/{w}/Library/Caches/pypoetry/virtualenvs/api-x/lib/python3.11/site.py\", line 3\n", w)
    add("win-appdata-word", f"Error: EPERM: operation not permitted, open 'C:\\Users\\{w}\\AppData\\Roaming\\npm-cache\\_logs'\n", w)
    add("wsl-dollar-unc-other", f"\\\\wsl$\\Ubuntu\\home\\{o}\\src\\api\\.env\n", o)
    add("mnt-c-users-word", f"cd /mnt/c/Users/{w}/Documents\n", w)
    add("tilde-user-other", f"$ ls ~{o}/projects\napi  web\n", o)
    add("userprofile-expanded-other", f"> echo %USERPROFILE%\nC:\\Users\\{o}\n", o)
    add("url-encoded-home-other", f"GET /open?path=%2Fhome%2F{o}%2Fsrc%2Fapi HTTP/1.1\n", o)
    add("file-uri-macos-other", f"Opening file:///Users/{o}/Desktop/report.html\n", o)
    add("json-escaped-slash-word", f"{{\"cwd\":\"\\/home\\/{w}\\/src\"}}\n", w)
    add("json-double-backslash-other", f"{{\"path\": \"C:\\\\Users\\\\{o}\\\\repo\"}}\n", o)
    short = (u.replace(".", "").replace("_", "")[:6]).upper() + "~1"
    add("win-short-name-cfg", f"C:\\Users\\{short}\\AppData\\Local\\Temp\\pip-req-build-x\n", short[:-2])
    oshort = (o.replace(".", "").replace("_", "")[:6]).upper() + "~1"
    add("win-short-name-other", f"TEMP=C:\\Users\\{oshort}\\AppData\\Local\\Temp\n", oshort[:-2])
    b64 = base64.b64encode(f"HOME=/home/{u}\nUSER={u}\nSHELL=/bin/zsh\n".encode()).decode()
    add("base64-env-cfg", f"$ base64 -w0 env.txt\n{b64}\n", b64)

    # ---- host names
    add("host-configured-fqdn", f"ssh: connect to host {host}.corp.{dom} port 22: Connection refused\n", host)
    add("host-macos-owner-other", f"Last login: Mon Nov 30 09:12 from {o.split('.')[0].replace('_', '')}s-MacBook-Air.local\n",
        f"{o.split('.')[0].replace('_', '')}s-MacBook-Air")
    add("host-mbp-local-cfg", f"PING {u}-mbp.local (192.168.1.23): 56 data bytes\n", f"{u}-mbp")

    # ---- e-mails in odd forms
    q = f"\"{name.lower()}\"@{dom}"
    add("email-quoted-local-space", f"To: {q}\n", q)
    q2 = f"\"{o}.x\"@{dom}"
    add("email-quoted-local-dot", f"RCPT TO:<{q2}>\n", q2)
    add("email-angle-upper-other", f"To: <{omail.upper()}>\n", omail.upper())
    at = f"{o}(at){dom}"
    add("email-paren-at", f"Contact: {at}\n", at)
    at2 = f"{o}[at]{dom.replace('.', '[dot]')}"
    add("email-bracket-at-dot", f"mail {at2} for access\n", at2)
    add("email-pct-encoded-other", f"?redirect=mailto%3A{o}%40{dom}\n", f"{o}%40{dom}")
    add("email-mailto-subject-other", f"<a href=\"mailto:{omail}?subject=Hi\">mail</a>\n", omail)

    # ---- keys, system configuration, manifests
    add("authorized-keys-other", f"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{g.b64(32)[:43]} {o}@{o.split('.')[0]}-laptop\n", f"{o}@")
    add("gpg-uid-other", f"pub   ed25519 2026-01-01 [SC]\n      {g.s('0123456789ABCDEF', 40)}\nuid           [ultimate] {oname} <{omail}>\n",
        oname, omail)
    add("crontab-system-other", f"# m h dom mon dow user  command\n17 *    * * *   {o}    cd /srv/api && ./backup.sh\n", o)
    add("sudoers-other", f"$ sudo cat /etc/sudoers.d/90-users\n{o} ALL=(ALL:ALL) NOPASSWD: ALL\n", o)
    add("systemd-user-other", f"[Service]\nUser={o}\nGroup={o}\nExecStart=/usr/bin/node server.js\n", o)
    add("dockerfile-user-other", f"FROM python:3.11-slim\nRUN useradd -m {o}\nUSER {o}\nWORKDIR /app\n", o)
    add("package-json-author-other", json.dumps({"name": "api", "version": "1.0.0", "author": f"{oname} <{omail}>"}, indent=2),
        oname, omail)
    add("package-json-author-object-other",
        json.dumps({"name": "api", "author": {"name": oname, "email": omail, "url": "https://x.dev"}}, indent=2), oname, omail)
    add("cargo-authors-other", f"[package]\nname = \"api\"\nauthors = [\"{oname} <{omail}>\"]\n", oname, omail)
    add("pyproject-authors-other", f"[project]\nname = \"api\"\nauthors = [{{name = \"{oname}\", email = \"{omail}\"}}]\n",
        oname, omail)
    add("license-copyright-cfg", f"MIT License\n\nCopyright (c) 2026 {name}\n", name)
    add("license-copyright-reversed-cfg", f"Copyright (c) 2026 {p.last}, {p.first}\n", p.last)
    return out


def negatives(seed: int = 15) -> list[tuple[str, str]]:
    """Shapes near the positives that must stay byte for byte: system accounts, placeholders,
    documentation, words."""
    return [
        ("sudoers-groups", "%sudo   ALL=(ALL:ALL) ALL\nroot    ALL=(ALL:ALL) ALL\n"),
        ("sudoers-defaults", "Defaults\tenv_reset\nDefaults\tsecure_path=\"/usr/sbin:/usr/bin\"\n"),
        ("systemd-user-system", "[Service]\nUser=www-data\nGroup=www-data\nDynamicUser=yes\n"),
        ("systemd-user-var", "[Service]\nUser=%i\nUser=${APP_USER}\n"),
        ("dockerfile-user-root", "FROM node:20\nUSER node\nUSER root\nUSER 1001\nUSER $APP_USER\nUSER nobody:nogroup\n"),
        ("crontab-root", "17 *    * * *   root    cd / && run-parts --report /etc/cron.hourly\n"),
        ("crontab-user-crontab", "*/5 * * * * /usr/local/bin/backup.sh >> /var/log/backup.log 2>&1\n"),
        ("whoami-root", "$ whoami\nroot\n"),
        ("echo-user-unset", "$ echo $USER\n\n$ ls\n"),
        ("docker-info-no-user", " Registry: https://index.docker.io/v1/\n Labels:\n Experimental: false\n"),
        ("aws-arn-role", "arn:aws:iam::123456789012:role/ci-deployer\n"),
        ("aws-arn-user-generic", "arn:aws:iam::123456789012:user/ci\n"),
        ("email-paren-at-code", "x = f(at)\nfoo(at) bar.baz\n"),
        ("email-quoted-string-concat", "print(\"done\"@decorator)\n'\"a\"@b'\n"),
        ("copyright-company", "Copyright (c) 2026 Acme Corporation\nCopyright 2019 The Go Authors. All rights reserved.\n"),
        ("pyproject-name-only", "[project]\nname = \"api\"\nversion = \"1.0\"\n"),
    ]
