"""Home folders in layouts the paths pack did not know (s30 red-team): NFS and NAS homes
(/u/<user>, /homes/<user>, /volume1/homes/<user>), Active Directory homes (/home/CORP/<user>,
/home/corp.example.com/<user>, /home/<user>@corp.example.com), VS Code remote and file URIs
(percent-encoded too, and the hex authority of a dev container) and UNC home shares
(\\\\fs01\\home$\\<user>, a DFS namespace's users folder), as text and JSON-escaped in text.

The user name is replaced by the same `user-xxxx` as in /home/<user>, whether the configuration
names the user or not; the folders around it are kept."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from archiver.redact.base import RedactionReport
from archiver.redact.pseudonym import Pseudonymizer
from tests.fx_redact import builtin_redactor, redacted_file

KEY = b"team-key-for-tests-0123456789abcdef"
P = Pseudonymizer(KEY)
A = P.username("alice")  # /home/alice's token
CORP = P.username("corp")  # a domain folder is replaced as home-linux takes it (the first folder after /home/)
FQDN = P.username("corp.example.com")
HEX = "7b22686f737450617468223a222f686f6d652f616c6963652f78227d"  # {"hostPath":"/home/alice/x"}
HEX_TOKEN = P.token("VSCODE_REMOTE", HEX)

# (text, the redacted text): each as a line of text and as a JSON string
LAYOUTS = [
    # 1. NFS and NAS homes
    ("cd /u/alice/projects/x", f"cd /u/{A}/projects/x"),
    ("mount nfs01:/u/alice /mnt/nfs", f"mount nfs01:/u/{A} /mnt/nfs"),
    ("open file:///u/alice/notes.txt", f"open file:///u/{A}/notes.txt"),
    ("ls /homes/alice/docs", f"ls /homes/{A}/docs"),
    ("cp /volume1/homes/alice/photos/a.jpg .", f"cp /volume1/homes/{A}/photos/a.jpg ."),
    ("ls /share/homes/alice/x", f"ls /share/homes/{A}/x"),
    # 2. Active Directory homes (winbind /home/%D/%U, sssd /home/%d/%u and %u@%d)
    ("cd /home/CORP/alice/work", f"cd /home/{CORP}/{A}/work"),
    ("cd /home/corp.example.com/alice/work", f"cd /home/{FQDN}/{A}/work"),
    ("cd /home/alice@corp.example.com/work", f"cd /home/{A}@corp.example.com/work"),
    # 3. VS Code remote and file URIs
    ("vscode-remote://ssh-remote+buildbox/home/alice/src", f"vscode-remote://ssh-remote+buildbox/home/{A}/src"),
    ("vscode-remote://ssh-remote%2Bbuildbox/home/alice/src", f"vscode-remote://ssh-remote%2Bbuildbox/home/{A}/src"),
    ("vscode-remote://wsl+Ubuntu/home/alice/x", f"vscode-remote://wsl+Ubuntu/home/{A}/x"),
    ("vscode://vscode-remote/ssh-remote+buildbox/home/alice/src", f"vscode://vscode-remote/ssh-remote+buildbox/home/{A}/src"),
    (f"vscode-remote://dev-container+{HEX}/workspaces/x", f"vscode-remote://dev-container+{HEX_TOKEN}/workspaces/x"),
    ("file:///home/alice/x", f"file:///home/{A}/x"),
    ("file:///C:/Users/alice/x", f"file:///C:/Users/{A}/x"),
    ("file:///c%3A/Users/alice/x", f"file:///c%3A/Users/{A}/x"),
    ("file:///c%3A/users/alice/x", f"file:///c%3A/users/{A}/x"),
    # 4. UNC home shares
    ("dir \\\\fs01\\home$\\alice\\docs", f"dir \\\\fs01\\home$\\{A}\\docs"),
    ("dir \\\\nas\\homes\\alice\\docs", f"dir \\\\nas\\homes\\{A}\\docs"),
    ("dir \\\\corp.example.com\\dfs\\users\\alice\\docs", f"dir \\\\corp.example.com\\dfs\\users\\{A}\\docs"),
]

# JSON read as text (a tool's output, a pasted settings file): backslashes doubled, `\/` slashes
ESCAPED = [
    ('{"cwd": "\\\\\\\\fs01\\\\home$\\\\alice\\\\docs"}', f'{{"cwd": "\\\\\\\\fs01\\\\home$\\\\{A}\\\\docs"}}'),
    ('{"cwd": "\\\\\\\\nas\\\\homes\\\\alice"}', f'{{"cwd": "\\\\\\\\nas\\\\homes\\\\{A}"}}'),
    ('{"cwd": "\\\\\\\\corp.example.com\\\\dfs\\\\users\\\\alice\\\\x"}',
     f'{{"cwd": "\\\\\\\\corp.example.com\\\\dfs\\\\users\\\\{A}\\\\x"}}'),
    ('{"cwd": "\\/home\\/CORP\\/alice\\/work"}', f'{{"cwd": "\\/home\\/{CORP}\\/{A}\\/work"}}'),
    ('{"cwd": "\\/homes\\/alice"}', f'{{"cwd": "\\/homes\\/{A}"}}'),
    ('{"cwd": "\\/volume1\\/homes\\/alice\\/x"}', f'{{"cwd": "\\/volume1\\/homes\\/{A}\\/x"}}'),
    ('{"uri": "vscode-remote:\\/\\/ssh-remote+buildbox\\/home\\/alice\\/src"}',
     f'{{"uri": "vscode-remote:\\/\\/ssh-remote+buildbox\\/home\\/{A}\\/src"}}'),
    ('{"uri": "file:\\/\\/\\/home\\/alice\\/x"}', f'{{"uri": "file:\\/\\/\\/home\\/{A}\\/x"}}'),
    ('{"uri": "file:\\/\\/\\/c%3A\\/Users\\/alice\\/x"}', f'{{"uri": "file:\\/\\/\\/c%3A\\/Users\\/{A}\\/x"}}'),
]

# kept as they are
NEGATIVES = [
    "https://example.com/u/123/profile",
    "https://drive.google.com/drive/u/0/",
    "open mail.google.com/mail/u/0/#inbox",
    "sed -e 's/u/U/g' x.txt",
    "see /home/<user>/.config, /homes/<user>/ and /u/<user>/",
    "fallback_homedir = /home/%d/%u",
    "template homedir = /home/%D/%U",
    "https://www.zillow.com/homes/for_sale/",
    "https://example.com/home/EN/index.html",
    "boost/spirit/home/qi.hpp",
    "vscode-remote://codespaces+fluffy-train/workspaces/app",
    "vscode-remote://dev-container+<VSCODE_REMOTE:1a2b3c4d>/workspaces/x",
    ".flex-container+.sidebar { margin: 0 }",
    "commit 3f786850e387550fdab836ed7e6dc881de23001b",
    "request 7b2e4c1a-9f3d-4e8b-a6c5-2d1f0e9b8a7c",
    "\\\\server\\projects\\build\\out.log",
]


@pytest.fixture(scope="module")
def red():  # noqa: ANN201 - the configuration names no user
    return builtin_redactor(KEY)


@pytest.fixture(scope="module")
def red_known():  # noqa: ANN201 - the configuration names alice
    return builtin_redactor(KEY, usernames=["alice"])


def _text(red, text: str) -> str:  # noqa: ANN001
    return red.redact_text(text, RedactionReport())


@pytest.mark.parametrize("text,want", LAYOUTS + ESCAPED)
def test_the_user_in_every_home_layout_is_the_same_token(red, red_known, text: str, want: str) -> None:  # noqa: ANN001
    out = _text(red, text)
    assert out == want
    assert "alice" not in out.lower()
    assert _text(red_known, text) == want  # a configured name changes nothing
    assert _text(red, out) == out  # the output is found no more


@pytest.mark.parametrize("text,want", LAYOUTS)
def test_every_home_layout_as_a_json_string(red, text: str, want: str) -> None:  # noqa: ANN001
    line = json.dumps({"type": "tool_result", "content": text}).encode()
    out = red.redact_jsonl_line(line, RedactionReport())
    assert out == json.dumps({"type": "tool_result", "content": want}, separators=(",", ":")).encode()


def test_a_json_document_and_a_jsonl_file(red, tmp_path: Path) -> None:  # noqa: ANN001
    texts = [t for t, _ in LAYOUTS]
    wants = [w for _, w in LAYOUTS]
    out, by_rule = redacted_file(red, tmp_path, "settings.json", json.dumps({"history": texts}).encode(), "json")
    # one document: the domain found as /home/corp.example.com/ is echoed in its other strings
    assert json.loads(out) == {"history": [w.replace("corp.example.com", FQDN) for w in wants]}
    assert by_rule["home-share"] == 6 and by_rule["home-linux-prefixed"] == 4
    assert by_rule["vscode-remote-hex-authority"] == 1
    jsonl = b"".join(json.dumps({"content": t}).encode() + b"\n" for t in texts)
    out, _ = redacted_file(red, tmp_path, "s.jsonl", jsonl, "jsonl")
    assert out == b"".join(json.dumps({"content": w}, separators=(",", ":")).encode() + b"\n" for w in wants)


@pytest.mark.parametrize("text", NEGATIVES)
def test_what_is_no_home_folder_is_kept(red, text: str) -> None:  # noqa: ANN001
    assert _text(red, text) == text


def test_a_folder_after_a_user_is_no_domain(red) -> None:  # noqa: ANN001
    """bob.smith and wei.xu are user names, not domains: the folder after them is kept. A user
    folder in capitals is read as a domain: its next folder is replaced too, the user still is."""
    bob, wei, upper = P.username("bob.smith"), P.username("wei.xu"), P.username("alice")
    assert _text(red, "/home/bob.smith/src/app") == f"/home/{bob}/src/app"
    assert _text(red, "/home/wei.xu/src/app") == f"/home/{wei}/src/app"
    assert _text(red, "/home/ALICE/src") == f"/home/{upper}/{P.username('src')}"
    assert _text(red, "/home/ad.example.de/alice/x") == f"/home/{P.username('ad.example.de')}/{A}/x"
    assert _text(red, "/home/AD/alice/x") == f"/home/{P.username('ad')}/{A}/x"


def test_a_percent_encoded_name_is_the_same_token_as_the_name(red) -> None:  # noqa: ANN001
    jorg = P.username("jörg")
    assert _text(red, "cd /home/jörg/x") == f"cd /home/{jorg}/x"
    assert _text(red, "file:///home/j%C3%B6rg/x") == f"file:///home/{jorg}/x"
    assert _text(red, "file:///Users/J%C3%B6rg/x") == f"file:///Users/{jorg}/x"
    assert (_text(red, "vscode-remote://ssh-remote%2Bbuildbox/home/j%C3%B6rg/src")
            == f"vscode-remote://ssh-remote%2Bbuildbox/home/{jorg}/src")
    john = P.username("john smith")
    assert _text(red, "file:///c%3A/Users/John%20Smith/x") == f"file:///c%3A/Users/{john}/x"
    assert _text(red, "C:\\Users\\John Smith\\Desktop") == f"C:\\Users\\{john}\\Desktop"
