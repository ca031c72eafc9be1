"""Configured people and other accounts: usernames that are ordinary words, short and first
names, decomposed Unicode and JSON escapes, and the login names of other accounts in shell
prompts, `id` and `ls -l` output."""

from __future__ import annotations

import json
import random
import re
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
# a shell prompt's host is a HOST token (s39: shell-prompt-host; container ids and localhost stay)
_PROMPT_HOST = re.compile(r"@([A-Za-z][A-Za-z0-9._-]*)(?=:[~/][^\s$#%]*[$#%](?:\s|$)| ~ %| [^\s\]]+\][$#%])")


def _hosts(text: str) -> str:
    return _PROMPT_HOST.sub(lambda m: "@" + P.token("HOST", m.group(1)), text)

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
    # ... and it is still replaced where an account shows: home paths, prompts, ssh, project keys
    for text, want in (
        (f"cd /home/{user}/src/app", f"cd /home/{pseudo}/src/app"),
        (f'{{"cwd": "/Users/{user}/code"}}', f'{{"cwd": "/Users/{pseudo}/code"}}'),
        (f"ssh {user}@build-box", f"ssh {pseudo}@build-box"),
        (f"{user}@build-box:~/src$ make", f"{pseudo}@{P.token('HOST', 'build-box')}:~/src$ make"),
        (f"-home-{user}-proj", f"-home-{pseudo}-proj"),
    ):
        assert red.redact_text(text, RedactionReport()) == want, text
    rec = {"type": "user", "cwd": f"/home/{user}/work", "message": {"content": f"{user}_tokens and /home/{user}/"}}
    out = json.loads(red.redact_jsonl_line(json.dumps(rec).encode(), RedactionReport()))
    assert out["cwd"] == f"/home/{pseudo}/work"
    assert out["message"]["content"] == f"{user}_tokens and /home/{pseudo}/"


# where an account shows (the name must go) and where the word is only a word (it must stay)
ACCOUNT_PLACES = [
    "cd /home/{u}/src/app", '{{"cwd": "/Users/{u}/code"}}', "C:\\\\Users\\\\{u}\\\\src", '{{"c": "\\/home\\/{u}\\/x"}}',
    "~/.claude/projects/-home-{u}-proj/x.jsonl", "{u}@build-box:~/src$ make", "[{u}@web01 app]$ ls",
    "ssh -p 2222 {u}@10.0.0.5", "git clone {u}@git.internal:team/app.git", "{u}@build-box's password: ",
    "uid=1000({u}) gid=1000({u}) groups=1000({u}),27(sudo),998(docker)", "{u}:x:1000:1000::/home/{u}:/bin/bash",
    "sudo -u {u} psql app", "su - {u}", "sudo chown -R {u}:staff /srv/app", "USER={u} make", "mail {u}@corp-mail.io",
]
# ... found by the built-in packs' rules, which show any account there (not by the generated rules alone)
PACK_ACCOUNT_PLACES = [
    "cp ~{u}/notes.txt .", "-rw-r--r-- 1 {u} {u} 1234 Jan  1 12:00 notes.txt",
    "drwxr-xr-x  5 {u}  staff  160 Mar  3 09:12 app", "{u:<8} pts/0        2025-10-26 09:12 (10.0.0.5)",
    "{u:<8}  4242  0.3  1.2 123456  7890 pts/0    Ss   10:00   0:01 -bash",
]
WORD_PLACES = [
    ".sidebar {{ {u}-width: 40rem; {u}-height: 2em }}", '{{"{u}": 10, "min": 1}}', '{{"key": "{u}"}}',
    "the {u} value", "thanks {u}!", "{U} this work? {U} it done. I {u} do it.", "www.{u}.dev", "{u}2024",
    "john.{u}@example.org", "npm i {u}-lib@2.0.0", "see {u}.md and {u}/index.ts", "--{u} 5 -{u}=3",
    "@{U}(10) private int n;", "@{u}.parametrize", "cc @{u}: ~{u} throughput", "ORDER BY {u} DESC",
]


@pytest.mark.parametrize("user", WORD_USERS)
def test_a_username_that_is_a_word_is_replaced_where_an_account_shows_and_kept_as_a_word(user: str) -> None:
    u = P.username(user)
    for packs in (BUILTIN, []):  # the generated rules alone, or with the built-in packs
        red = build_redactor(packs, KEY, RuntimeTerms(usernames=[user]))
        for place in ACCOUNT_PLACES + (PACK_ACCOUNT_PLACES if packs else []):
            text = place.format(u=user)
            out = red.redact_text(text, RedactionReport())
            assert user not in out.lower().replace(u, ""), (packs, text, out)
            if not packs or "<EMAIL:" not in out:  # `name@host.domain` may be the e-mail rule's
                assert out == _hosts(text.replace(user, u)) if packs else out == text.replace(user, u), (packs, text, out)
        for place in WORD_PLACES:
            text = place.format(u=user, U=user.capitalize())
            assert red.redact_text(text, RedactionReport()) == text, (packs, text)
    # a Claude Code record: the cwd and the prompt in a tool result go, the CSS and the JSON key stay
    red = _redactor(usernames=[user])
    rec = {"type": "user", "cwd": f"/home/{user}/app", "message": {"content": [{
        "type": "tool_result", "tool_use_id": "toolu_01A09q90qw90lq917835lq9X",
        "content": f"{user}@devbox:~/app$ grep -rn {user}-width src\nsrc/a.css:3:  {user}-width: 40rem;\n"
                   f'src/cfg.json:1:{{"{user}": 3}}'}]}}
    out = json.loads(red.redact_jsonl_line(json.dumps(rec).encode(), RedactionReport()))
    assert out["cwd"] == f"/home/{u}/app"
    assert out["message"]["content"][0]["content"] == rec["message"]["content"][0]["content"].replace(
        f"{user}@devbox", f"{u}@{P.token('HOST', 'devbox')}")


def test_a_username_that_is_no_word_is_still_replaced_as_a_word() -> None:
    red = _redactor(usernames=["zqxcanary", "alice"])
    for user in ("zqxcanary", "alice"):
        u = P.username(user)
        for text, want in ((f"thanks {user}!", f"thanks {u}!"), (f"www.{user}.dev", f"www.{u}.dev"),
                           (f"{user}2024", f"{u}2024"), (f'{{"{user}": 1}}', f'{{"{u}": 1}}')):
            assert red.redact_text(text, RedactionReport()) == want, text


def test_a_username_in_an_identifier_non_ascii_and_after_a_json_escape() -> None:
    eng = Engine(load_rules([], RuntimeTerms(usernames=["jörg", "zqxcanary"])), P)
    j, z = P.username("jörg"), P.username("zqxcanary")
    # a name that is no everyday word is replaced in identifiers too (`jörg_backup/`, `JÖRG_HOME`)
    out = eng.redact("jörg_count = obj.jörg(x)", None)
    assert "jörg" not in out.lower() and out.lower() == f"{j}_count = obj.{j}(x)".lower()
    assert eng.redact("by jörg.", None) == f"by {j}."
    # JSON inside a text: `\n` before the name is an escape, not a letter of a longer word
    assert eng.redact('{"out": "a\\nzqxcanary\\tjörg"}', None) == f'{{"out": "a\\n{z}\\t{j}"}}'


# ---------------------------------------------------------------- short and first names


@pytest.mark.parametrize("name", ["Al", "Bo", "Ed", "Cy", "Liv"])
def test_a_short_real_name_is_matched_as_written_and_as_a_word(name: str) -> None:
    eng = Engine(load_rules([], RuntimeTerms(names=[name])), P)
    tok = P.token("NAME", name.lower().encode())
    assert eng.redact(f"Thanks {name}, see you. {name}'s PR", None) == f"Thanks {tok}, see you. {tok}'s PR"
    for text in (f"et {name.lower()}. (2019)", f"state: {name.upper()}", f"{name}pha and {name.lower()}so",
                 f"x{name} {name}x"):
        assert eng.redact(text, None) == text
    # configured in lower case: still only with a capital
    eng = Engine(load_rules([], RuntimeTerms(names=[name.lower()])), P)
    assert eng.redact(f"{name} and et {name.lower()}.", None) == f"{tok} and et {name.lower()}."


FULL_NAMES = [("Zelda", "Quixote"), ("Marguerite", "Okonkwo"), ("Ingrid", "Falkenrath"), ("Théo", "Lefèvre")]


@pytest.mark.parametrize("first, last", FULL_NAMES)
def test_the_first_name_alone_is_matched_as_written_with_the_full_names_pseudonym(first: str, last: str) -> None:
    eng = Engine(load_rules([], RuntimeTerms(names=[f"{first} {last}"])), P)
    tok = P.token("NAME", f"{first} {last}".lower().encode())
    assert eng.redact(f"Thanks, {first}! -- {first} {last}", None) == f"Thanks, {tok}! -- {tok}"
    assert eng.redact(f'{{"to": "{first}"}}', None) == f'{{"to": "{tok}"}}'
    # not lowercased, not inside a longer word
    for text in (f"{first.lower()} mode", f"{first.upper()}_HOME", f"{first}s", f"Mc{first}"):
        assert eng.redact(text, None) == text, text


@pytest.mark.parametrize("name", ["Will Sorensen", "Mark Abernathy", "Grace Whitfield", "Eva Lindqvist"])
def test_a_first_name_that_is_a_word_or_short_is_not_matched_alone(name: str) -> None:
    eng = Engine(load_rules([], RuntimeTerms(names=[name])), P)
    first = name.split()[0]
    text = f"{first} this work? {first} it done."
    assert eng.redact(text, None) == text
    assert eng.redact(f"by {name}", None) == f"by {P.token('NAME', name.lower().encode())}"


# ---------------------------------------------------------------- decomposed Unicode and escapes


def _escaped(text: str) -> str:
    """text as json.dumps writes it (\\uXXXX for every non-ASCII character), without the quotes."""
    return json.dumps(text)[1:-1]


@pytest.mark.parametrize("first, last", [("José", "García"), ("Chloé", "Müller"), ("Zoë", "Ångström"),
                                         ("Théo", "Lefèvre")])
def test_names_in_decomposed_unicode_and_as_json_escapes_in_text(first: str, last: str) -> None:
    name = f"{first} {last}"
    red = _redactor(names=[name], usernames=["zqxcanary"])
    tok = P.token("NAME", name.lower().encode())
    nfd = unicodedata.normalize("NFD", name)
    assert nfd != name
    for form in (name, nfd, _escaped(name), _escaped(nfd), f"{last}, {first}",
                 unicodedata.normalize("NFD", f"{last}, {first}")):
        for text, want in ((f"signed: {form}.", f"signed: {tok}."),
                           (f"/Users/zqxcanary/Documents/{form} CV.pdf",
                            f"/Users/{P.username('zqxcanary')}/Documents/{tok} CV.pdf")):
            assert red.redact_text(text, RedactionReport()) == want, (form, text)
    # JSON inside a tool's output: the name and the home path as escapes, each found
    inner = json.dumps({"author": name, "cwd": "/home/zqxcanary/src", "note": "\n" + name})
    inner = inner.replace("/", "\\/")
    out = red.redact_jsonl_line(json.dumps({"type": "tool_result", "content": inner}).encode(), RedactionReport())
    text = json.loads(out)["content"]
    assert "zqxcanary" not in text and _escaped(first) not in text and tok in text
    doubled = red.redact_text('{"cwd": "C:\\\\Users\\\\zqxcanary\\\\src"}', RedactionReport())
    assert doubled == f'{{"cwd": "C:\\\\Users\\\\{P.username("zqxcanary")}\\\\src"}}'
    # the configured name written decomposed finds the composed one
    eng = Engine(load_rules([], RuntimeTerms(names=[nfd])), P)
    assert eng.redact(f"by {name}", None) == f"by {tok}"


def test_a_username_in_decomposed_unicode_or_escaped_and_a_home_path_in_nfd() -> None:
    eng = Engine(load_rules(["builtin:paths"], RuntimeTerms(usernames=["jörg"])), P)
    j = P.username("jörg")
    nfd = unicodedata.normalize("NFD", "jörg")
    for form in ("jörg", nfd, "j\\u00f6rg", "J\\u00d6RG"):
        assert eng.redact(f"ssh {form}@build-box", None) == f"ssh {j}@build-box", form
    # a home folder written decomposed: no combining mark is left on the pseudonym
    for folder in ("José", unicodedata.normalize("NFD", "José"), "Zoë.Åberg"):
        out = eng.redact(f"/Users/{folder}/x and C:\\Users\\{folder}\\y", None)
        want = P.username(unicodedata.normalize("NFC", folder).lower())
        assert out == f"/Users/{want}/x and C:\\Users\\{want}\\y", folder


# ---------------------------------------------------------------- other accounts outside home paths


def _logins(seed: int, n: int = 6) -> list[str]:
    """Login names as admins make them: jdoe, maria.k, t_nguyen, olek93."""
    rng = random.Random(seed)
    firsts = ["maria", "tomasz", "aiko", "devon", "farah", "lucas", "ngozi", "pavel", "ines", "kwame"]
    lasts = ["kowalski", "nguyen", "okafor", "lindgren", "haddad", "moreau", "tanaka", "silva"]
    out: set[str] = set()
    while len(out) < n:
        f, last = rng.choice(firsts), rng.choice(lasts)
        out.add(rng.choice((f[0] + last, f"{f}.{last[0]}", f"{f[0]}_{last}", f"{f}{rng.randint(1, 99)}")))
    return sorted(out)


def _listings(user: str, host: str) -> list[tuple[str, str]]:
    """(text, what it must become) for a login name `user` that the config does not know."""
    u = P.username(user)
    return [
        (f"{user}@{host}:~/src$ make", f"{u}@{host}:~/src$ make"),
        (f"[{user}@{host} app]$ ls", f"[{u}@{host} app]$ ls"),
        (f"{user}@{host} ~ % git status", f"{u}@{host} ~ % git status"),
        (f"uid=1001({user}) gid=1001({user}) groups=1001({user}),27(sudo),998(docker)",
         f"uid=1001({u}) gid=1001({u}) groups=1001({u}),27(sudo),998(docker)"),
        (f"uid=501({user}) gid=20(staff) groups=20(staff),12(everyone)",
         f"uid=501({u}) gid=20(staff) groups=20(staff),12(everyone)"),
        (f"total 8\n-rw-r--r-- 1 {user} {user} 1234 Jan  1 12:00 notes.txt",
         f"total 8\n-rw-r--r-- 1 {u} {u} 1234 Jan  1 12:00 notes.txt"),
        (f"drwxr-xr-x  5 {user}  staff  160 Mar  3 09:12 app", f"drwxr-xr-x  5 {u}  staff  160 Mar  3 09:12 app"),
        (f"-rw-r-----  1 {user}  developers  10 Mar  3 09:12 x", f"-rw-r-----  1 {u}  developers  10 Mar  3 09:12 x"),
        (f"{user}:x:1001:1001::/home/{user}:/bin/bash", f"{u}:x:1001:1001::/home/{u}:/bin/bash"),
        (f"USER PID %CPU %MEM VSZ RSS TTY STAT START TIME COMMAND\n{user} 4242 0.3 1.2 123456 7890 pts/0 Ss 10:00 0:01 -bash",
         f"USER PID %CPU %MEM VSZ RSS TTY STAT START TIME COMMAND\n{u} 4242 0.3 1.2 123456 7890 pts/0 Ss 10:00 0:01 -bash"),
        *_sessions(user, host),
    ]


def _sessions(user: str, host: str) -> list[tuple[str, str]]:
    """(text, what it must become): ssh command lines, who / w / last output, and `ps aux` lines
    without their header (`ps aux | grep node`)."""
    u = P.username(user)
    out = []
    for t in (
        "ssh {0}@{1}",
        "$ ssh -i ~/.ssh/id_ed25519 -p 2222 {0}@{1} 'uptime'",
        "sftp -P 2222 {0}@{1}:/srv/data",
        "ssh-copy-id -i ~/.ssh/id_ed25519.pub {0}@{1}",
        "mosh {0}@{1} -- tmux attach",
        "ssh -l {0} {1} -t htop",
        "{0}@{1}'s password: ",
        "$ who\n{0:<8} pts/0        2025-10-26 09:12 (10.0.0.5)\n{0:<8} tty7         2025-10-26 08:00 (:0)",
        "{0:<8} console  Oct 26 09:10 \n{0:<8} ttys000  Oct 26 09:15 ",
        "{0:<8} pts/1        192.168.1.20     Sat Oct 25 14:02 - 18:45  (04:42)\n"
        "{0:<8} pts/0        10.0.0.5         Sun Oct 26 09:12   still logged in\n\nwtmp begins Sun Oct  1 00:00:01 2025",
        " 09:30:01 up 3 days,  2:04,  2 users,  load average: 0.00, 0.01, 0.05\n"
        "USER     TTY      FROM             LOGIN@   IDLE   JCPU   PCPU WHAT\n"
        "{0:<8} pts/0    10.0.0.5         09:12    0.00s  0.03s  0.00s w",
        "{0:<8}  4242  0.3  1.2 123456  7890 pts/0    Ss   10:00   0:01 -bash\n"
        "{0:<8}  4311  0.0  0.1  45848 13928 ?        Sl   Nov29   6:21 node server.js",
        "{0}  4242  0.0  0.1 408628368  6144 s000  S+  9:12AM  0:00.02 -zsh",
    ):
        out.append((t.format(user, host), t.format(user, host).replace(user, u)))
    return out


@pytest.mark.parametrize("user", _logins(20261130))
def test_other_accounts_in_prompts_id_and_ls_get_their_home_path_pseudonym(user: str) -> None:
    red = _redactor(usernames=["zqxcanary"])
    host = "build-box-" + str(len(user))
    for text, want in _listings(user, host):
        assert red.redact_text(text, RedactionReport()) == _hosts(want), text
    # the pseudonym is the one the home path of that account gets
    assert red.redact_text(f"/home/{user}/x", RedactionReport()) == f"/home/{P.username(user)}/x"
    # inside a transcript line, as a tool result
    text = "\n".join(t for t, _ in _listings(user, host))
    line = json.dumps({"type": "user", "message": {"content": [{"type": "tool_result", "content": text}]}})
    out = red.redact_jsonl_line(line.encode(), RedactionReport())
    assert user.encode() not in out and P.username(user).encode() in out


def test_system_and_generic_accounts_and_lookalikes_stay() -> None:
    from archiver.redact.rules import GENERIC_ACCOUNTS

    red = _redactor(usernames=["zqxcanary"])
    system = ["root", "nobody", "daemon", "www-data", "_www", "_postgres", "systemd-resolve", "sshd", "postgres"]
    for name in sorted(GENERIC_ACCOUNTS) + system:
        for text, _ in _listings(name, "web01"):
            if "/home/" in text:  # a home path is replaced whoever it is (CI accounts too)
                continue
            assert red.redact_text(text, RedactionReport()) == _hosts(text), text
    for text in ("git@github.com:org/repo.git", "git clone git@gitlab.com:group/app.git && cd app",
                 "scp build.tgz deploy@host:/tmp/build.tgz", "rsync -av ci@host:~/src/ ./dst",
                 "const f = a@b:c", "npm i lodash@4.17.21 @types/node@20", "uses: actions/checkout@v4",
                 "-rw-r--r-- 1 1001 1001 1234 Jan  1 12:00 f", "os.setuid(uid)", "see user@example.com",
                 "ssh -T git@github.com", "ssh $USER@host", "ssh ${REMOTE_USER}@${HOST} ls", "ssh <user>@<host>",
                 "ssh -l $USER host", "ssh host -L 8080:localhost:80",
                 "reboot   system boot  6.1.0-13-amd64   Sun Oct 26 08:59   still running",
                 "USER       PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND\n"
                 "root         1  0.5  0.0  45848 13928 ?        SLl  Nov29   6:21 /sbin/init",
                 "Run the tty 12 times in the console 3 times a day", "see ssh(1) and the ssh_config man page"):
        assert red.redact_text(text, RedactionReport()) == text, text


# ---------------------------------------------------------------- non-ASCII accounts in JSON-escaped paths


@pytest.mark.parametrize("user", ["jörg", "Zoë", "søren.k", "łukasz", "ŝelo"])
def test_an_unconfigured_non_ascii_user_in_a_json_escaped_path_is_hidden(user: str) -> None:
    """JSON printed by a tool (PHP's `\\/`, Python's `ensure_ascii`): the account in a home path
    written with `\\u00f6` escapes gets the pseudonym `/home/jörg/src` gets, escapes or not."""
    red = _redactor(usernames=["zqxcanary"])
    u = P.username(user.lower())
    esc = _escaped(user)
    assert esc != user
    assert red.redact_text(f"cd /home/{user}/src", RedactionReport()) == f"cd /home/{u}/src"
    for text, want in (
        (f'{{"cwd": "\\/home\\/{esc}\\/src"}}', f'{{"cwd": "\\/home\\/{u}\\/src"}}'),
        (f'{{"cwd": "/home/{esc}/src"}}', f'{{"cwd": "/home/{u}/src"}}'),
        (f'{{"cwd": "\\/Users\\/{esc}\\/code"}}', f'{{"cwd": "\\/Users\\/{u}\\/code"}}'),
        (f'{{"cwd": "C:\\\\Users\\\\{esc}\\\\src"}}', f'{{"cwd": "C:\\\\Users\\\\{u}\\\\src"}}'),
        (f'{{"cwd": "/var/home/{esc}/src"}}', f'{{"cwd": "/var/home/{u}/src"}}'),
    ):
        assert red.redact_text(text, RedactionReport()) == want, text
    # a Claude Code tool result holding that JSON after a command line (text, not a JSON document)
    stdout = "$ php bin/info.php\n" + json.dumps({"cwd": f"/home/{user}/src", "files": ["a.py"]}).replace("/", "\\/")
    assert esc in stdout
    line = json.dumps({"type": "user", "message": {"content": [
        {"type": "tool_result", "tool_use_id": "toolu_01A09q90qw90lq917835lq9X", "content": stdout}]}})
    out = json.loads(red.redact_jsonl_line(line.encode(), RedactionReport()))["message"]["content"][0]["content"]
    assert out == stdout.replace(esc, u), out
    # an escape of an ASCII character is no part of a name: `\u002f` is `/`
    assert red.redact_text('"\\/home\\/bob\\u002fx"', RedactionReport()) == f'"\\/home\\/{P.username("bob")}\\u002fx"'


@pytest.mark.parametrize("user", _logins(20261201, 4))
def test_every_login_of_an_ssh_jump_line_is_replaced(user: str) -> None:
    """`ssh -J jump@bastion bob@host`: the jump hosts' logins (up to three hops, -J, -o ProxyJump=,
    ssh_config's ProxyJump) and the target's are all replaced, in text and in an argv list."""
    red = _redactor(usernames=["zqxcanary"])
    other = _logins(20261202, 8)
    jump, hop2, hop3, target = [o for o in other if o != user][:4]
    p = P.username
    for text, want in (
        (f"ssh -J {jump}@bastion.example.com {user}@db01 uptime",
         f"ssh -J {p(jump)}@bastion.example.com {p(user)}@db01 uptime"),
        (f"ssh -J {jump}@gw1,{hop2}@gw2:2222,{hop3}@gw3 -p 2222 {user}@10.0.0.9",
         f"ssh -J {p(jump)}@gw1,{p(hop2)}@gw2:2222,{p(hop3)}@gw3 -p 2222 {p(user)}@10.0.0.9"),
        (f"ssh -o ProxyJump={jump}@bastion {user}@host", f"ssh -o ProxyJump={p(jump)}@bastion {p(user)}@host"),
        (f"scp -J {jump}@bastion build.tgz host:/tmp/", f"scp -J {p(jump)}@bastion build.tgz host:/tmp/"),
        (f"Host db\n  HostName db.internal\n  User app\n  ProxyJump {user}@bastion.example.com,{target}@gw2\n",
         f"Host db\n  HostName db.internal\n  User app\n  ProxyJump {p(user)}@bastion.example.com,{p(target)}@gw2\n"),
    ):
        assert red.redact_text(text, RedactionReport()) == want, text
    argv = ["ssh", "-J", f"{jump}@bastion", f"{user}@db01", "uptime"]
    out = json.loads(red.redact_jsonl_line(json.dumps({"command": argv}).encode(), RedactionReport()))
    assert out == {"command": ["ssh", "-J", f"{p(jump)}@bastion", f"{p(user)}@db01", "uptime"]}


def test_ssh_jump_lines_without_another_login_stay() -> None:
    red = _redactor(usernames=["zqxcanary"])
    for text in ("ssh -J bastion host", "ssh -J root@bastion deploy@host", "ssh -J $JUMP@bastion ${USER}@host",
                 "ProxyJump none", "ProxyJump bastion.example.com:2222", "ssh -J <user>@<bastion> <user>@<host>",
                 "Use -J to jump through a bastion, then mail the admins.", "ssh -J git@gw -T git@github.com"):
        assert red.redact_text(text, RedactionReport()) == text, text
