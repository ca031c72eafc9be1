"""Archived file paths and identifiers: an e-mail as a folder name, and a username that is no
everyday word joined by `_` (found by the s11 end-to-end audits: `memory/wanda_preferences.md`,
`generated_images/<id>/ig_wanda_logo.png` and `…/q9.zorbloff@quuxmail.net/` reached manifests)."""

from __future__ import annotations

import pytest

from archiver.redact.base import RedactionReport
from archiver.redact.pseudonym import Pseudonymizer
from archiver.redact.redactor import build_redactor
from archiver.redact.rules import RuntimeTerms

KEY = b"team-key-for-tests-0123456789abcdef"
BUILTIN = ["builtin:secrets", "builtin:pii", "builtin:paths"]


@pytest.fixture(scope="module")
def red():  # noqa: ANN201
    return build_redactor(BUILTIN, KEY, RuntimeTerms(usernames=["wanda", "max"]))


@pytest.mark.parametrize("relpath", [
    "projects/-home-wanda-app/memory/wanda_preferences.md",
    "generated_images/019a/ig_wanda_logo.png",
    "sessions/2026/wanda_refactor.jsonl",
    "env/WANDA_HOME.txt",
])
def test_username_joined_by_underscore_is_replaced_in_paths(red, relpath: str) -> None:  # noqa: ANN001
    out = red.redact_relpath(relpath, RedactionReport())
    pseudo = Pseudonymizer(KEY).username("wanda")
    assert "wanda" not in out.lower() and pseudo in out.lower()
    assert out.count("/") == relpath.count("/")


def test_an_everyday_word_username_stays_out_of_identifiers(red) -> None:  # noqa: ANN001
    text = "max_tokens = Math.max(a, b); worker_count = 2"
    assert red.redact_text(text, RedactionReport()) == text
    assert Pseudonymizer(KEY).username("max") in red.redact_text("cd /home/max/src", RedactionReport())


@pytest.mark.parametrize("component", ["q9.zorbloff@quuxmail.net", "jörg.müller@bücher.de"])
def test_an_email_as_a_path_component_is_replaced(red, component: str) -> None:  # noqa: ANN001
    out = red.redact_relpath(f"sessions/{component}/2026-11-30.jsonl", RedactionReport())
    assert component not in out and "<EMAIL:" in out and out.endswith("/2026-11-30.jsonl")


def test_retina_image_names_stay_in_paths(red) -> None:  # noqa: ANN001
    rel = "file-history/abc/icon@2x.png"
    assert red.redact_relpath(rel, RedactionReport()) == rel
