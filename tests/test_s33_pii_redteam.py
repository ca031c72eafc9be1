"""PII red team (s33): a fake user planted in the carriers the path and PII rules still let through,
and the ordinary words a login spelled like them must not take.

The user: login `mfernandez`, home `/home/mfernandez`, real name `María Fernández`, machine
`mf-thinkpad`. Two set-ups: *configured* (the collector's own user: the login, name and host are
runtime terms, the generated rules) and *other user* (no terms: a container reading mounted homes;
only the packs and the echoes of what they found). Every case is compared as exact text, JSONL bytes
or an SQLite cell, in the shapes a session carries it: prose, a Claude Code tool_result (with its
toolUseResult sidecar), a Codex function_call_output, a plain text file (file-history backup) and
an SQLite TEXT cell.

Leaks fixed here (each failed on main 98bfe14):
- ps, top and ps -ef cut a login wider than 8 characters to 7 and `+` (`mfernan+`): configured, the
  same pseudonym as the login; a ps -ef row (no %CPU header) is an account for the packs too;
- a configured term right after a percent-encoded or JSON-escaped separator (`?q=hello%20mfernandez`,
  `%2Ftmp%2Fmfernandez`, `%7Emfernandez`, `user%3Dmfernandez`, `\\u0040mf-thinkpad`): the hex digit
  before it read as part of a word; the echoes alike;
- a configured real name with accents written without them (`maria.fernandez`, `MARIA FERNANDEZ`),
  or with its words joined by `%20`, `+`, `\\u0020` (the surname was left);
- other user: `chown -R user:user`, `git clone user@host:repo`, `git remote add ... user@host:`, a
  Cursor project slug after `.cursor/projects/` (`home-mfernandez-work-app`), a `.netrc` login, and
  the bare output of `whoami` / `id -un` / `echo $USER` (Windows: `host\\user`) in a later record
  than its command;
- false positives: a login that is a shell command or an everyday word (`echo`, `docs`, `beta`,
  `sky`, `don`) took every `echo $PATH`, `docs/`, `1.0-beta`, "the sky", "don't" (configured, and
  echoed from its home folder for another user): such logins are word usernames now, replaced where
  an account shows only.
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
from tests.fx_redact import redacted_file, redacted_table
from tests.fx_redteam import claude_pair, codex_pair, jsonl
from tests.fx_s25_recall import claude_tool_result, codex_output

KEY = b"team-key-for-tests-0123456789abcdef"
PACKS = ["builtin:secrets", "builtin:pii", "builtin:paths", "builtin:names"]
P = Pseudonymizer(KEY)
LOGIN = "mfernandez"
U = P.username(LOGIN)
HOST = P.token("HOST", b"mf-thinkpad")
NAME = P.token("NAME", "maría fernández".encode())


@pytest.fixture(scope="module")
def conf():  # noqa: ANN201
    return build_redactor(PACKS, KEY, RuntimeTerms(usernames=[LOGIN], names=["María Fernández"],
                                                   home_dirs=[f"/home/{LOGIN}"], hosts=["mf-thinkpad.lan"]))


@pytest.fixture(scope="module")
def other():  # noqa: ANN201
    return build_redactor(PACKS, KEY, RuntimeTerms())


@pytest.fixture()
def folder(tmp_path: Path) -> Path:
    tmp_path.chmod(0o700)
    return tmp_path


def _text(red, s: str) -> str:  # noqa: ANN001
    return red.redact_text(s, RedactionReport())


def _shapes(red, folder: Path, s: str) -> dict[str, str]:  # noqa: ANN001
    """s redacted in each shape, as the text the shape holds after (its JSON decoded)."""
    out: dict[str, str] = {"prose": _text(red, s)}
    line, _ = redacted_file(red, folder, "claude.jsonl", (claude_tool_result(s) + "\n").encode())
    rec = json.loads(line)
    out["claude"] = rec["message"]["content"][0]["content"]
    out["claude-sidecar"] = rec["toolUseResult"]["file"]["content"]
    line, _ = redacted_file(red, folder, "codex.jsonl", (codex_output(s) + "\n").encode())
    out["codex"] = json.loads(line)["payload"]["output"].split("Output:\n", 1)[1]
    data, _ = redacted_file(red, folder, "backup.txt", s.encode(), "text")
    out["file"] = data.decode()
    out["sqlite"] = redacted_table(red, "t", "k INTEGER PRIMARY KEY, v TEXT", [(1, s)], folder)[1]
    return out


def _same_everywhere(red, folder: Path, s: str, want: str) -> None:  # noqa: ANN001
    got = _shapes(red, folder, s)
    assert got == dict.fromkeys(got, want), got


# ---------------------------------------------------------------- configured: the generated rules

PS_CUT = [
    ("UID          PID    PPID  C STIME TTY          TIME CMD\n"
     "mfernan+    4242       1  0 10:05 pts/0    00:00:10 node server.js\n"),
    ("    PID USER      PR  NI    VIRT    RES    SHR S  %CPU  %MEM     TIME+ COMMAND\n"
     "   4242 mfernan+  20   0  900000  80000  10000 S   1.5   2.0   0:10.00 node\n"),
    "$ pgrep -a -u mfernandez node\n4242 node server.js\n$ ps -o user= -p 4242\nmfernan+\n",
]


@pytest.mark.parametrize("text", PS_CUT)
def test_a_login_cut_to_the_ps_column_gets_the_login_pseudonym(conf, folder: Path, text: str) -> None:  # noqa: ANN001
    want = text.replace("mfernandez", U).replace("mfernan+", U)
    _same_everywhere(conf, folder, text, want)


ESCAPED_SEPARATOR = [
    ("GET /search?q=hello%20mfernandez HTTP/1.1", f"GET /search?q=hello%20{U} HTTP/1.1"),
    ("GET /x?path=%2Ftmp%2Fmfernandez%2Fcache", f"GET /x?path=%2Ftmp%2F{U}%2Fcache"),
    ("https://example.org/?user%3Dmfernandez%26x%3D1", f"https://example.org/?user%3D{U}%26x%3D1"),
    ("%7Emfernandez%2Fproj", f"%7E{U}%2Fproj"),
    ("https://example.org/%40mfernandez", f"https://example.org/%40{U}"),
    ("ssh%20mfernandez%40mf-thinkpad", f"ssh%20{U}%40{HOST}"),
    ("MF-THINKPAD%5Cmfernandez", f"{HOST}%5C{U}"),
    ("host%3Dmf-thinkpad%26", f"host%3D{HOST}%26"),
    ('log: {"who":"mfernandez\\u0040mf-thinkpad"}', f'log: {{"who":"{U}\\u0040{HOST}"}}'),
]


@pytest.mark.parametrize("text,want", ESCAPED_SEPARATOR)
def test_a_term_after_an_escaped_separator_is_bounded_there(conf, folder: Path, text: str, want: str) -> None:  # noqa: ANN001
    _same_everywhere(conf, folder, text, want)


@pytest.mark.parametrize("text", ["x%41mfernandez", "%C3%A9mfernandez", "%2mfernandez"])
def test_an_escaped_letter_or_a_stray_percent_before_it_still_glues(conf, text: str) -> None:  # noqa: ANN001
    # `%41` is `A`, `%C3%A9` is `é`: part of one word, not the login (as `xmfernandez` is not)
    assert _text(conf, text) == text


NAME_FORMS = ["Maria Fernandez", "MARIA FERNANDEZ", "maria.fernandez", "maria_fernandez", "mariafernandez",
              "Fernandez, Maria", "M. Fernandez", "María Fernández", "Fernández, María", "Maria Fern\\u00e1ndez",
              "Maria%20Fernandez", "María%20Fernández", "Maria+Fernandez", "Maria\\u0020Fernandez"]


@pytest.mark.parametrize("form", NAME_FORMS)
def test_an_accented_name_is_found_without_its_accents_and_its_words_escaped_apart(conf, folder: Path,  # noqa: ANN001
                                                                                     form: str) -> None:
    _same_everywhere(conf, folder, f"Author: {form} (reviewer)", f"Author: {NAME} (reviewer)")


def test_the_first_name_alone_without_its_accent(conf) -> None:  # noqa: ANN001
    assert _text(conf, "Thanks Maria, and María too") == f"Thanks {NAME}, and {NAME} too"


# ---------------------------------------------------------------- another user: the packs and echoes

def test_a_ps_ef_row_is_an_account(other, folder: Path) -> None:  # noqa: ANN001
    text = PS_CUT[0] + "root           1       0  0 Nov29 ?        00:00:03 /sbin/init\n"
    _same_everywhere(other, folder, text, text.replace("mfernan+", P.username("mfernan+")))
    row = "$ ps -ef | grep node\nqvothurl  4311  4300  2 Nov29 ?        1-02:03:04 node worker.js"
    assert _text(other, row) == row.replace("qvothurl", P.username("qvothurl"))


OTHER_USER = [
    # chown's owner; the group of the same name is its echo
    "sudo chown -R mfernandez:mfernandez /srv/app",
    # a git remote in scp form
    "git clone mfernandez@git.example.org:team/repo.git",
    "git remote add backup mfernandez@10.0.0.5:/srv/git/app.git",
    # a Cursor project slug (no leading dash, unlike Claude Code's key)
    "ls ~/.cursor/projects/home-mfernandez-work-app/agent-transcripts/",
    "dir C:\\Users\\mfernandez\\.cursor\\projects\\C-Users-mfernandez-src",
    # a .netrc login, on one line and on three
    "machine github.com login mfernandez password <GITHUB_TOKEN:1a2b3c4d>",
    "machine api.example.org\n  login mfernandez\n  password <PASSWORD:1a2b3c4d>\n",
]


@pytest.mark.parametrize("text", OTHER_USER)
def test_another_users_login_in_an_account_context(other, folder: Path, text: str) -> None:  # noqa: ANN001
    _same_everywhere(other, folder, text, text.replace("mfernandez", U))


def test_a_netrc_login_other_than_the_configured_one(conf) -> None:  # noqa: ANN001
    # the GitHub handle is no configured term; a service account stays
    text = ("machine github.com login maria-codes password <GITHUB_TOKEN:1a2b3c4d>\n"
            "machine ci.example.org login ci-bot password <PASSWORD:1a2b3c4d>\n")
    assert _text(conf, text) == text.replace("maria-codes", P.username("maria-codes"))


def test_an_echo_after_an_escaped_separator(other) -> None:  # noqa: ANN001
    text = "cd /home/mfernandez/x\nGET /?q=hello%20mfernandez&p=%2Ftmp%2Fmfernandez&r=x%41mfernandez"
    assert _text(other, text) == (f"cd /home/{U}/x\nGET /?q=hello%20{U}&p=%2Ftmp%2F{U}&r=x%41mfernandez")


@pytest.mark.parametrize("cmd", ["whoami", "id -un", "echo $USER", "cd /srv && logname"])
@pytest.mark.parametrize("pair", [codex_pair, claude_pair])
def test_the_login_printed_by_a_command_in_an_earlier_record(other, folder: Path, cmd: str, pair) -> None:  # noqa: ANN001
    src = pair(cmd, "mfernandez\n")
    out, by_rule = redacted_file(other, folder, "s.jsonl", src)
    assert out == src.replace(b"mfernandez", U.encode())
    assert by_rule.get("whoami-output-user", 0) >= 1


@pytest.mark.parametrize("pair", [codex_pair, claude_pair])
def test_the_windows_account_printed_by_whoami_in_an_earlier_record(other, folder: Path, pair) -> None:  # noqa: ANN001
    src = pair("whoami", "corp\\mfernandez\r\n")
    assert redacted_file(other, folder, "s.jsonl", src)[0] == src.replace(b"mfernandez", U.encode())


@pytest.mark.parametrize("pair", [codex_pair, claude_pair])
def test_an_account_named_by_the_command_itself_pairs_nothing(other, folder: Path, pair) -> None:  # noqa: ANN001
    # runas names an account (replaced there, as ever); its output's first line is no login
    src = pair("runas /user:corp\\qvothurl app.exe", "corp\\ops\r\n")
    assert redacted_file(other, folder, "s.jsonl", src)[0] == src.replace(b"qvothurl", P.username("qvothurl").encode())


@pytest.mark.parametrize("pair", [codex_pair, claude_pair])
def test_a_generic_account_printed_by_whoami_stays(other, folder: Path, pair) -> None:  # noqa: ANN001
    for out in ("root\n", "runner\n"):
        src = pair("whoami", out)
        assert redacted_file(other, folder, "s.jsonl", src)[0] == src


# ---------------------------------------------------------------- what must stay

WORD_LOGINS = {
    "echo": "$ echo $PATH\n/usr/bin:/bin\nUse echo to print a line.",
    "docs": "See docs/README.md and the docs folder.",
    "beta": "version 1.2.0-beta, beta testers welcome",
    "sky": "the sky is blue",
    "don": "I don't know. Don't worry.",
    "robin": "round-robin scheduling",
    "jade": "npm install jade; jade templates",
    "kit": "SwiftUI kit, kit.json",
}


@pytest.mark.parametrize("login", sorted(WORD_LOGINS))
def test_a_login_that_is_a_word_leaves_the_word_alone(folder: Path, login: str) -> None:
    prose = WORD_LOGINS[login]
    red = build_redactor(PACKS, KEY, RuntimeTerms(usernames=[login]))
    tok = P.username(login)
    assert _text(red, prose) == prose
    # where an account shows it is still the user's
    assert _text(red, f"cd /home/{login}/x && ssh {login}@build.example.org") == \
        f"cd /home/{tok}/x && ssh {tok}@build.example.org"
    assert _text(red, f"uid=1000({login}) gid=1000({login})") == f"uid=1000({tok}) gid=1000({tok})"


@pytest.mark.parametrize("login", sorted(WORD_LOGINS))
def test_another_users_word_login_is_not_echoed_into_the_record(other, folder: Path, login: str) -> None:  # noqa: ANN001
    prose = WORD_LOGINS[login]
    src = jsonl({**json.loads(claude_tool_result(prose)), "cwd": f"/home/{login}/proj"})
    out, _ = redacted_file(other, folder, "c.jsonl", src)
    assert out == src.replace(f'"/home/{login}/proj"'.encode(), f'"/home/{P.username(login)}/proj"'.encode())


def test_ids_digests_and_images_stay(conf, folder: Path) -> None:  # noqa: ANN001
    png = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4 + b"/mfernandez/").decode()
    text = ("commit 3f786850e387550fdab836ed7e6dc881de23001b\n"
            "id 0d4f5b8e-9c3a-4e7b-8f21-6a5d3c2b1e0f toolu_01S33WhoAmI call_s33who\n"
            f"![shot](data:image/png;base64,{png})\n"
            "GET /static/app.js?v=%2F%20%3D HTTP/1.1\n")
    _same_everywhere(conf, folder, text, text)
