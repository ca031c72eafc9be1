"""False positives of the s9 rules and of the argv-list pass, found by running the redactor over
this machine's real text (man pages, /usr/share/doc, site-packages, node_modules, Maven POMs,
/usr/include, git history, SVG icon sets, shell scripts split into argv lists): each case is the
shape that was found, written again with made-up names; beside each, the real leak of the same
shape that must still go."""

from __future__ import annotations

import json

import pytest

from archiver.redact.base import RedactionReport
from tests.fx_redact import builtin_redactor, kept

KEY = b"fp-s9-real-text-test-key-0123456789"


@pytest.fixture(scope="module")
def red():  # noqa: ANN201
    return builtin_redactor(KEY, ["zelda"])


def _argv_doc(argv: list[str]) -> bytes:
    return json.dumps({"type": "tool_use", "name": "Bash", "input": {"command": argv}}).encode()


# --- argv lists: an item that only refers to a value (git config user.name "$GIT_USER_NAME" in a
# script of ajv's, split into its argv) is no name; read as the shell line, git-config-user-name took it
ARGV_KEPT = [
    ["git", "config", "user.name", "$GIT_USER_NAME"],
    ["git", "config", "--global", "user.name", "${GIT_USER_NAME}"],
    ["git", "config", "user.name", "${{ secrets.BOT_NAME }}"],
]


@pytest.mark.parametrize("argv", ARGV_KEPT, ids=["dollar", "braces", "ci-expression"])
def test_an_argv_item_that_refers_to_a_variable_stays(red, argv: list[str]) -> None:  # noqa: ANN001
    line = _argv_doc(argv)
    report = RedactionReport()
    assert red.redact_jsonl_line(line, report) == line
    assert report.by_rule() == {}


def test_an_argv_item_with_a_name_or_a_password_still_goes(red) -> None:  # noqa: ANN001
    for argv, secret in ((["git", "config", "user.name", "Dana Fakename"], "Dana Fakename"),
                         (["openssl", "rsa", "-in", "k.pem", "-passin", "pass:Qz8-FAKE-pw1"], "Qz8-FAKE-pw1"),
                         (["mysql", "-uroot", "-pMy5-FAKE-pw2"], "My5-FAKE-pw2")):
        line = _argv_doc(argv)
        out = red.redact_jsonl_line(line, RedactionReport())
        items = json.loads(out)["input"]["command"]
        assert secret not in out.decode(), argv
        assert items[0] == argv[0] and len(items) == len(argv)


# --- home-share: URLs of other schemes (Maven POMs' scp://host/home/projects/...), protocol-relative
# links of web pages, Bazel labels, Perforce depots and escaped PHP namespaces are no network home share
HOME_SHARE_KEPT = [
    "<url>scp://repo1.maven.org/home/projects/maven/repository-staging/to-ibiblio/maven2</url>",
    "<jgit.website.url>scp://build.example.org/home/data/httpd/download/site/</jgit.website.url>",
    "<url>scpexe://shell.sourceforge.net/home/project-web/joda-time/htdocs</url>",
    '<img src="//www.gravatar.com/users/4f2a9c/avatar.png">',
    '<a href="//gitlab.com/users/sign_in">Sign in</a>',
    "bazel build //services/users/api:server",
    "p4 sync //depot/users/main/...",
    "'use google\\\\appengine\\\\api\\\\users\\\\UserService;\\n' +",
]


@pytest.mark.parametrize("text", HOME_SHARE_KEPT)
def test_text_that_is_no_home_share_stays(red, text: str) -> None:  # noqa: ANN001
    assert "home-share" not in kept(red, text)


@pytest.mark.parametrize("text,name", [
    ("copy \\\\fileserver01\\home$\\frankl\\budget.xlsx .", "frankl"),
    ("net use Z: \\\\fs01\\Users\\gretel", "gretel"),
    ("mount -t cifs //nas.local/homes/hansel /mnt/h", "hansel"),
    ("sudo mount -t cifs //fs01.corp.example/users/judy /mnt/share -o credentials=/root/.smbcred", "judy"),
    ("open smb://nas.local/homes/heidi/notes", "heidi"),
    ("open file://fileserver/users/carol/report.docx", "carol"),
])
def test_a_home_share_still_loses_its_user(red, text: str, name: str) -> None:  # noqa: ANN001
    report = RedactionReport()
    out = red.redact_text(text, report)
    assert name not in out
    assert report.by_rule().get("home-share") == 1


def test_a_home_share_in_a_json_value_loses_its_user(red) -> None:  # noqa: ANN001
    line = json.dumps({"cwd": "\\\\corp-fs\\profiles$\\ivan\\Desktop",
                       "ns": "App\\Http\\Users\\UserController"}).encode()
    out = json.loads(red.redact_jsonl_line(line, RedactionReport()))
    assert "ivan" not in out["cwd"] and out["cwd"].startswith("\\\\corp-fs\\profiles$\\")
    assert out["ns"] == "App\\Http\\Users\\UserController"


# --- git-env-person-name: a format string's slot (git's contrib/hg-to-git.py) and a script's
# sentinel (git-quiltimport's "dry-run-not-found") are no one's name
@pytest.mark.parametrize("text", [
    "        env += 'export GIT_AUTHOR_NAME=\"%s\" ;' % elems.group(1)",
    "        env += 'export GIT_COMMITTER_NAME=\"%s\" ;' % user",
    '\t\t\tGIT_AUTHOR_NAME="dry-run-not-found";',
])
def test_a_git_env_slot_or_sentinel_stays(red, text: str) -> None:  # noqa: ANN001
    report = RedactionReport()
    assert red.redact_text(text, report) == text
    assert report.by_rule() == {}


def test_a_git_env_person_name_still_goes(red) -> None:  # noqa: ANN001
    out = red.redact_text("GIT_AUTHOR_NAME='Gail Fakename' git commit -m wip", RedactionReport())
    assert "Gail Fakename" not in out and out.endswith("git commit -m wip")
