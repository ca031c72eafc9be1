"""A real name configured in ASCII (`names = ["Maria Fernandez"]`, as config files are often
written) is found where the session writes it with its accents: `María Fernández`, in capitals,
decomposed (macOS file names: `a` + U+0301), comma-inverted, with an initial, or the first name
alone; every form gets the configured name's one token. Words that only look like it stay."""

from __future__ import annotations

import unicodedata
from typing import Any

import pytest

from archiver.redact.pseudonym import Pseudonymizer
from archiver.redact.redactor import build_redactor
from archiver.redact.rules import RuntimeTerms
from tests.fx_redteam import CARRIERS, redact_in

KEY = b"team-key-for-tests-0123456789abcdef"
PACKS = ["builtin:secrets", "builtin:pii", "builtin:paths"]
NAME = Pseudonymizer(KEY).token("NAME", b"maria fernandez")

WRITTEN = ["María Fernández", "MARÍA FERNÁNDEZ", "maría fernández", "Fernández, María", "M. Fernández",
           "Maria Fernández", "Maria Fernandez", "María Fernandez",
           unicodedata.normalize("NFD", "María Fernández"), unicodedata.normalize("NFD", "Fernández, María")]
KEPT = ["Marías Fernandezes", "the marina and the fernandes", "Ángel Fernández", "Mario Fernández"]


@pytest.fixture(scope="module")
def red() -> Any:
    return build_redactor(PACKS, KEY, RuntimeTerms(usernames=["mfernandez"], names=["Maria Fernandez"]))


@pytest.mark.parametrize("carrier", CARRIERS)
@pytest.mark.parametrize("form", WRITTEN)
def test_the_configured_ascii_name_written_with_accents(red: Any, carrier: str, form: str) -> None:
    out, _ = redact_in(red, carrier, f"Reviewed-by: {form} <ops@example.org>\n")
    assert f"Reviewed-by: {NAME} <" in out and "Fern" not in out and "FERN" not in out, out


@pytest.mark.parametrize("text", ["Thanks María!", "Thanks Mari\u0301a!", "Thanks Marìa!"])
def test_the_first_name_alone_with_its_accent(red: Any, text: str) -> None:
    out, _ = redact_in(red, "prose", text)
    assert out == f"Thanks {NAME}!"


@pytest.mark.parametrize("carrier", CARRIERS)
@pytest.mark.parametrize("text", KEPT)
def test_names_that_only_look_like_it_stay(red: Any, carrier: str, text: str) -> None:
    out, _ = redact_in(red, carrier, f"Reviewed-by: {text}\n")
    assert f"Reviewed-by: {text}\n" in out and "<NAME:" not in out, out
