"""Home folders and accounts the s30 layouts still let through (s31): every home layout written in
JSON held as text (`\\/` slashes, and a JSON string inside one: `\\\\/`, `\\\\\\\\` backslashes), a
Windows profile whose name is percent-encoded in a lowercase `c:/users/` path or file URI, the
account of a Windows DOMAIN\\user where one shows (whoami, runas /user:, Owner:, icacls), and what
is no home: a numeric id after /homes/ or /u/, a /u/<name> page of a web host, escaped too.

Every case goes through the real engine (the built-in packs) and is compared as exact text or
JSONL bytes; the user name becomes the same `user-xxxx` as in /home/<user>."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from archiver.redact.base import RedactionReport
from archiver.redact.pseudonym import Pseudonymizer
from tests.fx_redact import builtin_redactor, redacted_file

KEY = b"team-key-for-tests-0123456789abcdef"
P = Pseudonymizer(KEY)
A = P.username("alice")
CORP = P.username("corp")
JORG = P.username("jörg")

# A path as JSON held as text: `\/` slashes (a tool printed JSON), `\\/` (that JSON inside a JSON
# string, printed again), Windows backslashes doubled once or twice
ESCAPED = [
    # NFS homes and file URIs of them
    ('{"cwd":"\\/u\\/alice\\/proj"}', f'{{"cwd":"\\/u\\/{A}\\/proj"}}'),
    ('{\\"cwd\\":\\"\\\\/u\\\\/alice\\\\/proj\\"}', f'{{\\"cwd\\":\\"\\\\/u\\\\/{A}\\\\/proj\\"}}'),
    ('{"uri":"file:\\/\\/\\/u\\/alice\\/x"}', f'{{"uri":"file:\\/\\/\\/u\\/{A}\\/x"}}'),
    # Linux, macOS and prefixed homes, a JSON string in a JSON string too
    ('{"cwd":"\\/home\\/alice\\/x"}', f'{{"cwd":"\\/home\\/{A}\\/x"}}'),
    ('{\\"cwd\\":\\"\\\\/home\\\\/alice\\\\/x\\"}', f'{{\\"cwd\\":\\"\\\\/home\\\\/{A}\\\\/x\\"}}'),
    ('{"cwd":"\\/Users\\/alice\\/x"}', f'{{"cwd":"\\/Users\\/{A}\\/x"}}'),
    ('{\\"cwd\\":\\"\\\\/Users\\\\/alice\\\\/x\\"}', f'{{\\"cwd\\":\\"\\\\/Users\\\\/{A}\\\\/x\\"}}'),
    ('{"cwd":"\\/var\\/home\\/alice\\/x"}', f'{{"cwd":"\\/var\\/home\\/{A}\\/x"}}'),
    ('{\\"cwd\\":\\"\\\\/export\\\\/home\\\\/alice\\\\/x\\"}', f'{{\\"cwd\\":\\"\\\\/export\\\\/home\\\\/{A}\\\\/x\\"}}'),
    ('{"cwd":"\\/homes\\/alice"}', f'{{"cwd":"\\/homes\\/{A}"}}'),
    ('{\\"cwd\\":\\"\\\\/home\\\\/CORP\\\\/alice\\\\/x\\"}', f'{{\\"cwd\\":\\"\\\\/home\\\\/{CORP}\\\\/{A}\\\\/x\\"}}'),
    ('{\\"uri\\":\\"vscode-remote:\\\\/\\\\/ssh-remote+box\\\\/home\\\\/alice\\\\/w\\"}',
     f'{{\\"uri\\":\\"vscode-remote:\\\\/\\\\/ssh-remote+box\\\\/home\\\\/{A}\\\\/w\\"}}'),
    # an encoder that escapes the separators themselves
    ('{"cwd":"\\u002Fhome\\u002Falice\\u002Fx"}', f'{{"cwd":"\\u002Fhome\\u002F{A}\\u002Fx"}}'),
    ('{"cwd":"\\u002fUsers\\u002falice"}', f'{{"cwd":"\\u002fUsers\\u002f{A}"}}'),
    ('{"cwd":"C:\\u005CUsers\\u005Calice\\u005Cx"}', f'{{"cwd":"C:\\u005CUsers\\u005C{A}\\u005Cx"}}'),
    # Windows profiles, their backslashes doubled once (JSON) and twice (JSON in a JSON string)
    ('{"cwd":"C:\\\\Users\\\\alice\\\\x"}', f'{{"cwd":"C:\\\\Users\\\\{A}\\\\x"}}'),
    ('{\\"cwd\\":\\"C:\\\\\\\\Users\\\\\\\\alice\\\\\\\\x\\"}', f'{{\\"cwd\\":\\"C:\\\\\\\\Users\\\\\\\\{A}\\\\\\\\x\\"}}'),
    ('{"cwd":"C:\\\\Documents and Settings\\\\alice\\\\x"}', f'{{"cwd":"C:\\\\Documents and Settings\\\\{A}\\\\x"}}'),
    ('{"uri":"file:\\/\\/\\/c:\\/Users\\/alice\\/x"}', f'{{"uri":"file:\\/\\/\\/c:\\/Users\\/{A}\\/x"}}'),
    # WSL, Cygwin and MSYS views of a Windows profile, a WSL home from Windows
    ('{"cwd":"\\/mnt\\/c\\/users\\/alice\\/x"}', f'{{"cwd":"\\/mnt\\/c\\/users\\/{A}\\/x"}}'),
    ('{"cwd":"\\/cygdrive\\/c\\/users\\/alice\\/x"}', f'{{"cwd":"\\/cygdrive\\/c\\/users\\/{A}\\/x"}}'),
    ('{"cwd":"\\/c\\/users\\/alice\\/x"}', f'{{"cwd":"\\/c\\/users\\/{A}\\/x"}}'),
    ('{"cwd":"\\\\\\\\wsl$\\\\Ubuntu\\\\home\\\\alice\\\\x"}', f'{{"cwd":"\\\\\\\\wsl$\\\\Ubuntu\\\\home\\\\{A}\\\\x"}}'),
    # network shares and a tilde home
    ('{"p":"smb:\\/\\/nas.local\\/homes\\/alice\\/x"}', f'{{"p":"smb:\\/\\/nas.local\\/homes\\/{A}\\/x"}}'),
    ('{"p":"file:\\/\\/fileserver\\/users\\/alice\\/r.docx"}', f'{{"p":"file:\\/\\/fileserver\\/users\\/{A}\\/r.docx"}}'),
    ('{"p":"\\/\\/nas\\/homes\\/alice\\/x"}', f'{{"p":"\\/\\/nas\\/homes\\/{A}\\/x"}}'),
    ('{"cmd":"cp ~alice\\/notes.txt ."}', f'{{"cmd":"cp ~{A}\\/notes.txt ."}}'),
]

# the rest of the home layouts as plain text (most already held on main; kept here as the set)
PLAIN = [
    ("cd /mnt/c/Users/alice/Downloads", f"cd /mnt/c/Users/{A}/Downloads"),
    ("cd /cygdrive/c/Users/alice/x", f"cd /cygdrive/c/Users/{A}/x"),
    ("cd /c/Users/alice/x", f"cd /c/Users/{A}/x"),
    ("$ cd /c/users/alice/src", f"$ cd /c/users/{A}/src"),
    ("explorer.exe \\\\wsl$\\Ubuntu\\home\\alice\\proj", f"explorer.exe \\\\wsl$\\Ubuntu\\home\\{A}\\proj"),
    ("\\\\wsl.localhost\\Ubuntu\\home\\alice\\x", f"\\\\wsl.localhost\\Ubuntu\\home\\{A}\\x"),
    ("[core]\n\texcludesfile = /home/alice/.gitignore_global\n", f"[core]\n\texcludesfile = /home/{A}/.gitignore_global\n"),
    ("cp ~alice/notes.txt .", f"cp ~{A}/notes.txt ."),
    ("echo %USERPROFILE%\nC:\\Users\\alice", f"echo %USERPROFILE%\nC:\\Users\\{A}"),
    ("cd /home/alice/x && ssh alice@build-box", f"cd /home/{A}/x && ssh {A}@build-box"),
]

# a Windows profile's name percent-encoded in a lowercase path or file URI: the token of the name
PERCENT = [
    ("c:/users/j%C3%B6rg/x", f"c:/users/{JORG}/x"),
    ("file:///c:/Users/J%C3%B6rg/x", f"file:///c:/Users/{JORG}/x"),
    ("file:///c:/users/j%C3%B6rg/src/app.py", f"file:///c:/users/{JORG}/src/app.py"),
    ("D:/USERS/J%C3%B6rg/x", f"D:/USERS/{JORG}/x"),
    ("vscode-remote://wsl+Ubuntu/mnt/c/users/j%C3%B6rg/x", f"vscode-remote://wsl+Ubuntu/mnt/c/users/{JORG}/x"),
    ('{"uri":"file:\\/\\/\\/c:\\/users\\/j%C3%B6rg\\/x"}', f'{{"uri":"file:\\/\\/\\/c:\\/users\\/{JORG}\\/x"}}'),
    ("file:///c:/users/John%20Smith/x", f"file:///c:/users/{P.username('john smith')}/x"),
]

# the user of a Windows DOMAIN\user where an account shows; the domain stays
DOMAIN_USERS = [
    ("PS C:\\x> whoami\r\ncorp\\alice\r\n", f"PS C:\\x> whoami\r\ncorp\\{A}\r\n"),
    ("$ whoami\\ncorp\\alice\\n$ ls", f"$ whoami\\ncorp\\{A}\\n$ ls"),
    ("runas /user:CORP\\alice cmd.exe", f"runas /user:CORP\\{A} cmd.exe"),
    ("net use Z: \\\\fs01\\share /user:corp.example.com\\alice *", f"net use Z: \\\\fs01\\share /user:corp.example.com\\{A} *"),
    ("$c = Get-Credential -Credential CORP\\alice", f"$c = Get-Credential -Credential CORP\\{A}"),
    ("Path   : C:\\proj\nOwner  : CORP\\alice\n", f"Path   : C:\\proj\nOwner  : CORP\\{A}\n"),
    ('{"User Name": "CORP\\\\alice"}', f'{{"User Name": "CORP\\\\{A}"}}'),
    ("logged in as CORP\\alice", f"logged in as CORP\\{A}"),
    ("C:\\proj CORP\\alice:(OI)(CI)(F)\n       BUILTIN\\Administrators:(I)(F)",
     f"C:\\proj CORP\\{A}:(OI)(CI)(F)\n       BUILTIN\\Administrators:(I)(F)"),
]

# kept as they are
NEGATIVES = [
    "/homes/123",
    "ls /homes/123/x",
    '{"cwd":"\\/homes\\/123"}',
    "/home/1000/x",
    "https://reddit.com/u/spez",
    "see reddit.com/u/spez for more",
    '{"url":"https:\\/\\/www.reddit.com\\/u\\/spez"}',
    '{"url":"reddit.com\\/u\\/spez"}',
    '{"href":"\\/u\\/0\\/settings"}',
    '{"p":"src\\/u\\/alice"}',
    '{"url":"https:\\/\\/example.com\\/homes\\/alice"}',
    '{\\"url\\":\\"https:\\\\/\\\\/example.com\\\\/home\\\\/EN\\\\/index.html\\"}',
    'boost\\\\/spirit\\\\/home\\\\/qi.hpp',
    'http:\\/\\/people.freedesktop.org\\/~lennart\\/x',
    "GET /api/v/users/42",
    "https://example.com/a/users/bob",
    "%USERPROFILE%\\Desktop",
    "/var/folders/xy/abcd1234_z/T/tmp.x",
    "${PORT-8080} ${HOME-/tmp} ${PORT:-8080} ${HOME:-/tmp}",
    # DOMAIN\word without an account's context is a path or an escape; built-in principals
    "cd src\\main\\java",
    '{"content": "ERROR\\nfoo failed"}',
    "the owner: src\\main",
    "Owner  : NT AUTHORITY\\SYSTEM",
    "C:\\proj BUILTIN\\Administrators:(OI)(CI)(F)",
    "C:\\proj NT AUTHORITY\\Authenticated Users:(I)(M)",
    "C:\\proj CORP\\WS01$:(F)",
    "$ whoami\ncorp\\user-a92f\n",
]


@pytest.fixture(scope="module")
def red():  # noqa: ANN201 - the configuration names no user
    return builtin_redactor(KEY)


def _text(red, text: str) -> str:  # noqa: ANN001
    return red.redact_text(text, RedactionReport())


@pytest.mark.parametrize("text,want", ESCAPED + PLAIN + PERCENT + DOMAIN_USERS)
def test_the_user_is_the_token_of_its_name(red, text: str, want: str) -> None:  # noqa: ANN001
    out = _text(red, text)
    assert out == want
    assert "alice" not in out.lower() and "j%c3%b6rg" not in out.lower()
    assert _text(red, out) == out  # the output is found no more


@pytest.mark.parametrize("text,want", ESCAPED + PERCENT)
def test_escaped_json_text_in_a_jsonl_line(red, text: str, want: str) -> None:  # noqa: ANN001
    """The JSON text cut short (a truncated tool output), so no walker reads it as JSON: the
    engine sees the escaped slashes and doubled backslashes themselves."""
    line = json.dumps({"type": "tool_result", "content": text + ', "more": "tr'}).encode()
    out = red.redact_jsonl_line(line, RedactionReport())
    assert out == json.dumps({"type": "tool_result", "content": want + ', "more": "tr'}, separators=(",", ":")).encode()


def test_a_jsonl_file_of_escaped_paths(red, tmp_path: Path) -> None:  # noqa: ANN001
    texts = [t for t, _ in ESCAPED + DOMAIN_USERS]
    wants = [w for _, w in ESCAPED + DOMAIN_USERS]
    jsonl = b"".join(json.dumps({"content": "log: " + t}).encode() + b"\n" for t in texts)
    out, by_rule = redacted_file(red, tmp_path, "s.jsonl", jsonl, "jsonl")
    assert out == b"".join(json.dumps({"content": "log: " + w}, separators=(",", ":")).encode() + b"\n" for w in wants)
    assert by_rule["home-share"] >= 5 and by_rule["windows-domain-user"] == 8 and by_rule["icacls-grant-user"] == 1


@pytest.mark.parametrize("text", NEGATIVES)
def test_what_is_no_home_nor_account_is_kept(red, text: str) -> None:  # noqa: ANN001
    assert _text(red, text) == text


def test_a_bare_nfs_home_is_still_one(red) -> None:  # noqa: ANN001
    """/u/<name> at a path's start is an NFS home (reddit's u/<name> is written without the slash,
    or after its host); only a web host's page and a numeric account index are kept."""
    assert _text(red, "cd /u/spez/x") == f"cd /u/{P.username('spez')}/x"


def test_a_found_user_or_domain_in_an_email_is_an_email(red, tmp_path: Path) -> None:  # noqa: ANN001
    """A user name or AD domain found in a home path, then seen as an e-mail's local part or
    domain: the whole address is redacted as an address, not glued to a user token."""
    text = ("cd /home/corp.acme.io/alice.smith/x; mail bob@corp.acme.io, alice.smith@gmail.com; "
            "whoami /upn => alice@corp.acme.io")
    out = _text(red, text)
    fqdn, smith = P.username("corp.acme.io"), P.username("alice.smith")
    assert out.startswith(f"cd /home/{fqdn}/{smith}/x; mail <EMAIL:")
    emails = out.split("mail ", 1)[1]
    assert "@" not in emails and "acme" not in emails and "alice" not in emails
    assert emails.count("<EMAIL:") == 3
    # the same as one JSON document: its strings redacted together
    doc = json.dumps({"cwd": "/home/corp.acme.io/alice.smith/x", "to": ["bob@corp.acme.io", "alice.smith@gmail.com"]})
    out_doc, _ = redacted_file(red, tmp_path, "d.json", doc.encode(), "json")
    got = json.loads(out_doc)
    assert got["cwd"] == f"/home/{fqdn}/{smith}/x"
    assert all(v.startswith("<EMAIL:") and v.endswith(">") for v in got["to"])
    assert got["to"][0] == _text(red, "bob@corp.acme.io")
