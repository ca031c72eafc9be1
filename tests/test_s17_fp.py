"""s17: three false positives the s16 hunt left open, each checked through the real redactor (the
built-in packs), bytes in and bytes out, beside the real secrets of the same shape that must still go:

1. secret-printing-command-output took the short SHA on the `git log --oneline` line after a commit
   message naming `gcloud auth print-access-token`, and the line after `VAR=$(gh auth token)`;
2. person-name-before-email took the role names of signing keys in gpg uid lines (Build Key,
   Release Signing); a person's uid with a (comment) is now taken;
3. password-assignment-quoted took a README's prose (`password: 'password for user, if required'`).
"""

from __future__ import annotations

import json

import pytest

from archiver.redact.base import RedactionReport
from tests.fx_redact import builtin_redactor, gone, kept
from tests.fx_s17_fp import GPG_ROLE_NAMES, git_log_oneline, gpg_listing

KEY = b"s17-fp-test-key-0123456789abcdefgh"


@pytest.fixture(scope="module")
def red():  # noqa: ANN201
    return builtin_redactor(KEY, ["zelda"])


# --- secret-printing-command-output --------------------------------------------------------
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_git_log_after_a_commit_message_naming_a_command_is_kept(red, seed: int) -> None:  # noqa: ANN001
    text, shas = git_log_oneline(seed)
    assert kept(red, text) == {}
    # the same listing as a Claude Code tool_result
    line = json.dumps({"type": "user", "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_01", "content": text}]}}).encode()
    assert red.redact_jsonl_lines([line], RedactionReport()) == [line]


@pytest.mark.parametrize("text", [
    "TOKEN=$(gcloud auth print-access-token)\ncurl -sS -H \"Authorization: Bearer $TOKEN\" https://api.example.test\n",
    "export GH_TOKEN=\"$(gh auth token)\"\nterraform apply -auto-approve\n",
])
def test_the_line_after_a_command_substitution_is_kept(red, text: str) -> None:  # noqa: ANN001
    assert kept(red, text) == {}


@pytest.mark.parametrize("text,secret,rule", [
    ("$ gcloud auth print-access-token\nya29.FAKEexampleAccessToken0123456789\n", "ya29.FAKEexampleAccessToken0123456789",
     "google-oauth-access-token"),  # its own shape, found first
    ("$ gcloud auth print-identity-token\nFAKEidentityToken0123456789\n", "FAKEidentityToken0123456789",
     "secret-printing-command-output"),
    ("$ op read op://ci/deploy/token\n0123456789abcdef0123456789abcdef01234567\n", "0123456789abcdef0123456789abcdef01234567",
     "secret-printing-command-output"),
    ("$ echo $(gh auth token)\nFAKEghToken9876543210\n", "FAKEghToken9876543210", "secret-printing-command-output"),
    ("$ git log --oneline -1\n3f2a1bc ci: fix\n$ gh auth token\nFAKEghToken0123456789\n", "FAKEghToken0123456789",
     "secret-printing-command-output"),
])
def test_a_printed_secret_still_goes(red, text: str, secret: str, rule: str) -> None:  # noqa: ANN001
    gone(red, text, secret, rule)


# --- person-name-before-email in gpg uids ---------------------------------------------------
@pytest.mark.parametrize("name", GPG_ROLE_NAMES)
def test_a_signing_key_named_by_its_role_is_no_person(red, name: str) -> None:  # noqa: ANN001
    assert kept(red, gpg_listing(name, "release@example.com")) == {}
    assert kept(red, gpg_listing(name, "ci@example.com", "CI signing")) == {}


@pytest.mark.parametrize("name,comment", [("Ignatia Fakename", ""), ("Ignatia Fakename", "work laptop"),
                                          ("Bob van der Example", "release signing"), ("John Key", "")])
def test_a_person_in_a_gpg_uid_still_goes(red, name: str, comment: str) -> None:  # noqa: ANN001
    out = gone(red, gpg_listing(name, "someone@example.com", comment), name, "person-name-before-email")
    assert "] <PERSON:" in out and (f"({comment}) " in out if comment else True)


# --- password-assignment-quoted: prose ------------------------------------------------------
@pytest.mark.parametrize("text", [
    "## Options\n\n```yaml\nusername: 'user to log in as'\npassword: 'password for user, if required'\n```\n",
    'db_password: "The password of the database user."\n',
    "smtp_pass: 'Password used to log in to the SMTP server'\n",
    'key_passphrase = "leave empty if the key is not encrypted"\n',
    "#   proxy_password: 'Proxy password, e.g. for basic auth (optional)'\n",
])
def test_documentation_of_a_password_field_is_kept(red, text: str) -> None:  # noqa: ANN001
    assert kept(red, text) == {}


@pytest.mark.parametrize("text,secret", [
    ("password: 'correct horse battery staple'\n", "correct horse battery staple"),
    ('passphrase: "this is my password"\n', "this is my password"),
    ("password: 'used to be 4 horses, if required'\n", "used to be 4 horses, if required"),
    ('POSTGRES_PASSWORD: "Tr0ub4dor and the 3 horses"\n', "Tr0ub4dor and the 3 horses"),
])
def test_a_passphrase_with_spaces_still_goes(red, text: str, secret: str) -> None:  # noqa: ANN001
    gone(red, text, secret, "password-assignment-quoted")
