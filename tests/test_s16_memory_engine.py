"""The weak groups' combined alternations run under a bounded RE2 budget (engine.WEAK_ALT_MAX_MEM):
their DFA states no longer pile up for a worker's life. A program too large for the budget
compiles under the old one, and an engine whose DFAs run out of budget finds exactly what one
with the big budget finds."""

from __future__ import annotations

import functools
import random

import pytest

import archiver.redact.engine as engine_mod
from archiver.redact.engine import ALWAYS, COMMON, MODE_ALL, MODE_KEYS, MODE_PATHS, Engine
from archiver.redact.pseudonym import Pseudonymizer
from archiver.redact.re2scan import UNANCHORED
from archiver.redact.rules import RuntimeTerms, load_rules
from tests.fx_redact import same_segment_findings
from tests.test_engine_gates import _FRAGS

KEY = b"team-key-for-tests-0123456789abcdef"
BUILTIN = ["builtin:secrets", "builtin:pii", "builtin:paths"]
TERMS = RuntimeTerms(usernames=["alice"], names=["Bob Stone"])


@functools.cache
def _rules() -> tuple:
    return tuple(load_rules(BUILTIN, TERMS))


def _engine() -> Engine:
    return Engine(list(_rules()), Pseudonymizer(KEY))


def _alternations(eng: Engine) -> list:
    """The weak groups' prefilter alternations (COMMON's in chunks, engine.WEAK_CHUNK)."""
    return [chunk.alt for g in (ALWAYS, COMMON) for chunk in eng._weak[g]]


def test_the_weak_alternations_have_the_bounded_budget() -> None:
    eng = _engine()
    assert engine_mod.WEAK_ALT_MAX_MEM == 32 << 20
    assert eng._weak[ALWAYS] and eng._weak[COMMON]
    for rx in [*_alternations(eng), eng._always_gate]:
        assert rx.options().max_mem == 32 << 20
        assert rx.options().never_capture
    # the other prefilters keep theirs (a Set out of memory gives up)
    assert eng._gate.options().max_mem == 256 << 20


def test_a_program_too_large_for_the_budget_gets_the_big_one(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(engine_mod, "WEAK_ALT_MAX_MEM", 64 << 10)
    pattern = "|".join(f"(?:{chr(97 + i % 26)}[a-z]{{3,40}}@x{i})" for i in range(300))
    rx = engine_mod._weak_compile(pattern)
    assert rx.options().max_mem == 256 << 20
    assert rx.Match(UNANCHORED, b"zz aabcdef@x0 zz", 0, 16)[0] == (3, 13)
    small = engine_mod._weak_compile("(?:ab+c)")
    assert small.options().max_mem == 64 << 10


@pytest.fixture(scope="module")
def engines() -> tuple[Engine, Engine]:
    """(an engine whose weak alternations have a tiny DFA budget, one with the big budget)"""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(engine_mod, "WEAK_ALT_MAX_MEM", 2 << 20)
        tiny = _engine()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(engine_mod, "WEAK_ALT_MAX_MEM", 256 << 20)
        big = _engine()
    for rx in _alternations(tiny):
        assert rx.options().max_mem == 2 << 20  # compiled, with little room left for DFA states
    assert all(rx.options().max_mem == 256 << 20 for rx in _alternations(big))
    return tiny, big


def test_a_spent_dfa_budget_finds_the_same(engines: tuple[Engine, Engine]) -> None:
    tiny, big = engines
    assert same_segment_findings(tiny, big, _FRAGS, 20261201, 400, (MODE_ALL, MODE_ALL, MODE_KEYS, MODE_PATHS)) > 500
    rng = random.Random(20261201)
    # one long, varied text: many DFA states, far more than 2 MB leaves room for
    text = "\n".join("".join(rng.choice(_FRAGS) for _ in range(12)) + f" row {i}" for i in range(3000)).encode()
    got = tiny.scan_bytes(text)
    assert got == big.scan_bytes(text)
    assert len(got) > 1000
    assert tiny.redact_bytes(text, None) == big.redact_bytes(text, None)
