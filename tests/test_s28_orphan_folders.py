"""A cwd-named folder whose cwd no file records (a Claude Code project folder, a Cursor workspace
slug) cannot be rebuilt from a redacted cwd; its name goes through the path rules, and an
address's slug in it (`carol-vandelay-acmeclient-example`: `@` and `.` made `-`) is what no rule
can see. Such a name is archived as a keyed digest (harnesses/common.py `keyed_folder`); any other
keeps what the rules make of it. A collector's warning names the file by its archived path.
"""

from __future__ import annotations

import hashlib

import pytest

from archiver.harnesses.claude_code import project_key
from archiver.harnesses.common import address_slug, cwd_folder_relpath, keyed_folder
from archiver.harnesses.cursor_agent import slug


@pytest.mark.parametrize("cwd", [
    "/home/a/clients/bob@acme.com/app", "/home/a/x/jo.doe@corp.co.uk", "/Users/a/carol.v@acmeclient.example/app",
    "/home/a/sites/shop.example.io", "/srv/jo@mail.de/repo", "/home/a/x/jo@uni.ac.uk/thesis",
])
def test_an_address_in_the_cwd_leaves_a_slug_in_the_key(cwd: str) -> None:
    assert address_slug(project_key(cwd)) and address_slug(slug(cwd))


@pytest.mark.parametrize("cwd", [
    "/home/a/work/app", "/home/a/src/how-it-works", "/usr/local/test", "/home/a/about-us", "/home/a/com", "/home/a/io",
    "/home/a/projects/api-v2", "/home/a/code/socket", "/home/a/dev", "/home/a/x/notes-in-progress", "/home/a/web-app",
    "/home/a/my-app/dev", "/home/a/src/.cloud",
])
def test_a_cwd_of_words_leaves_no_slug(cwd: str) -> None:
    assert not address_slug(project_key(cwd)) and not address_slug(slug(cwd))


def _digest(kind: str, value: str) -> str:
    assert kind == "cwd-folder"
    return hashlib.sha256(value.encode()).hexdigest()


PREFIX = ".claude/projects/"


def _rules(path: str) -> str:  # the path rules: the user name only
    return path.replace("zqx", "user-1a2b")


def test_an_unknown_cwds_key_with_an_address_is_archived_under_a_keyed_name() -> None:
    key = project_key("/home/zqx/clients/carol.v@acmeclient.example/app")
    got = cwd_folder_relpath(f"{PREFIX}{key}/s1/tool-results/a.txt", PREFIX, None, project_key, _rules, _rules, _digest)
    assert got == f"{PREFIX}{keyed_folder(key, _digest)}/s1/tool-results/a.txt"
    assert keyed_folder(key, _digest) == "-cwd-" + _digest("cwd-folder", key)[:16]
    assert keyed_folder(slug("/home/zqx/x"), _digest).startswith("cwd-")  # a slug has no leading `-`


def test_an_unknown_cwds_key_of_words_keeps_what_the_rules_make_of_it() -> None:
    key = project_key("/home/zqx/work/app")
    got = cwd_folder_relpath(f"{PREFIX}{key}/s1.jsonl", PREFIX, None, project_key, _rules, _rules, _digest)
    assert got == f"{PREFIX}-home-user-1a2b-work-app/s1.jsonl"


def test_without_a_pseudonym_the_rules_alone_name_it() -> None:
    key = project_key("/home/zqx/clients/carol.v@acmeclient.example/app")
    got = cwd_folder_relpath(f"{PREFIX}{key}/s1.jsonl", PREFIX, None, project_key, _rules, _rules)
    assert got == f"{PREFIX}{_rules(key)}/s1.jsonl"


def test_a_known_cwd_rebuilds_the_key_and_never_takes_the_keyed_name() -> None:
    cwd = "/home/zqx/clients/carol.v@acmeclient.example/app"

    def red(path: str) -> str:
        return _rules(path).replace("carol.v@acmeclient.example", "<EMAIL:0badf00d>")

    got = cwd_folder_relpath(f"{PREFIX}{project_key(cwd)}/s1.jsonl", PREFIX, cwd, project_key, _rules, red, _digest)
    assert got == f"{PREFIX}{project_key(red(cwd))}/s1.jsonl"
