"""Audit s9: the leaks a new provider rule alone could not close (a kaggle.json inside a JSON record,
other users' folders on network home shares)."""

from __future__ import annotations

import json

import pytest

from archiver.redact.base import RedactionReport
from archiver.redact.redactor import build_redactor
from archiver.redact.rules import RuntimeTerms

KAGGLE_KEY = "0123456789abcdef" * 2


@pytest.fixture(scope="module")
def red():
    return build_redactor(["builtin:secrets", "builtin:pii", "builtin:paths"], b"k" * 32, RuntimeTerms(usernames=["zelda"]))


def test_kaggle_json_printed_in_text_is_redacted(red) -> None:
    text = '$ cat ~/.kaggle/kaggle.json\n{"username": "kagglefan", "key": "' + KAGGLE_KEY + '"}\n$ ls'
    assert KAGGLE_KEY not in red.redact_text(text, RedactionReport())


@pytest.mark.parametrize("record", [
    {"type": "user", "toolUseResult": {"file": {"filePath": "/home/zelda/.kaggle/kaggle.json",
                                                "content": json.dumps({"username": "kagglefan", "key": KAGGLE_KEY})}}},
    {"type": "user", "toolUseResult": {"username": "kagglefan", "key": KAGGLE_KEY}},
], ids=["read-tool-content", "json-object"])
def test_kaggle_json_inside_a_jsonl_record_is_redacted(red, record: dict) -> None:
    out = red.redact_jsonl_line(json.dumps(record).encode(), RedactionReport())
    assert KAGGLE_KEY.encode() not in out
    assert b"kagglefan" in out


def test_a_username_beside_an_ordinary_key_is_left_alone(red) -> None:
    line = json.dumps({"type": "cache", "entry": {"username": "kagglefan", "key": "profile:settings"}}).encode()
    assert red.redact_jsonl_line(line, RedactionReport()) == line
    # only the kaggle.json shape (those two keys alone): a row with a content hash keeps it
    row = json.dumps({"entry": {"username": "kagglefan", "key": KAGGLE_KEY, "kind": "blob"}}).encode()
    assert red.redact_jsonl_line(row, RedactionReport()) == row


@pytest.mark.parametrize("text", [
    r"copy \\fileserver01\home$\frankl\budget.xlsx",
    r"dir \\nas\Users\frankl\Documents",
    "mount -t cifs //nas.local/homes/frankl /mnt/x",
    "open smb://nas.local/homes/frankl/notes",
])
def test_other_users_on_a_home_share_are_pseudonymised(red, text: str) -> None:
    assert "frankl" not in red.redact_text(text, RedactionReport())
