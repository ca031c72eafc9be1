"""The COMMON group's prefilter in chunks (engine.WEAK_CHUNK): each chunk an alternation and a Set
of at most WEAK_CHUNK rules' pieces, searched only where a rule of it had its keyword. One
alternation of all 114 pieces spent its whole 32 MB DFA budget in every process (the memory case
went from 274 to 334 MB of tree PSS). The chunks must find exactly what the single alternation
found: the prefilter is a superset test, never a filter of its own."""

from __future__ import annotations

import functools
from typing import Any

import pytest

import archiver.redact.engine as engine_mod
from archiver.redact.engine import (ALWAYS, COMMON, MODE_ALL, MODE_IDS, MODE_KEYS, MODE_OPAQUE, MODE_PATHS,
                                    WEAK_CHUNK, Engine)
from archiver.redact.pseudonym import Pseudonymizer
from archiver.redact.rules import Rule, RuntimeTerms, load_rules
from tests.fx_redact import same_segment_findings

KEY = b"s22-weak-chunks-key-0123456789abcdef"
PACKS = ["builtin:secrets", "builtin:pii", "builtin:paths", "builtin:names"]
TERMS = RuntimeTerms(usernames=["alice"], names=["Grace Hopper"])


@functools.cache
def _rules() -> tuple[Rule, ...]:
    return tuple(load_rules(PACKS, TERMS))


@pytest.fixture(scope="module")
def engines() -> tuple[Engine, Engine]:
    """(the engine as built, one whose COMMON prefilter is a single chunk, as before session 22)."""
    chunked = Engine(list(_rules()), Pseudonymizer(KEY))
    keep = engine_mod.WEAK_CHUNK
    engine_mod.WEAK_CHUNK = 1 << 20
    try:
        single = Engine(list(_rules()), Pseudonymizer(KEY))
    finally:
        engine_mod.WEAK_CHUNK = keep
    return chunked, single


def test_every_common_rule_is_in_exactly_one_chunk_of_at_most_weak_chunk(engines: tuple[Engine, Engine]) -> None:
    chunked, single = engines
    common = chunked._groups[COMMON]
    assert len(common) > 3 * WEAK_CHUNK  # else the test says nothing
    chunks = chunked._weak[COMMON]
    assert len(chunks) == -(-len(common) // WEAK_CHUNK)
    assert all(len(c.idxs) <= WEAK_CHUNK and c.members == frozenset(c.idxs) for c in chunks)
    assert sorted(i for c in chunks for i in c.idxs) == sorted(common)
    assert [c.idxs for c in single._weak[COMMON]] == [list(common)]
    # ALWAYS has no keywords to choose chunks by: one chunk in both
    assert [c.idxs for c in chunked._weak[ALWAYS]] == [list(chunked._groups[ALWAYS])]
    # rules that share their first keyword sit in the same chunk (a keyword wakes few chunks)
    first = {i: min(chunked._c[i].kw) for i in common}
    chunk_of = {i: k for k, c in enumerate(chunks) for i in c.idxs}
    by_kw: dict[bytes, set[int]] = {}
    for i in common:
        by_kw.setdefault(first[i], set()).add(chunk_of[i])
    spread = [kw for kw, ks in by_kw.items() if len(ks) > 1]
    # a keyword's rules split only where a chunk boundary falls inside their run
    assert len(spread) <= len(chunks) - 1, spread


def _examples() -> list[bytes]:
    return [s.encode() for r in _rules() for s in (*r.positive, *r.negative)]


def test_every_builtin_example_finds_the_same_as_one_chunk(engines: tuple[Engine, Engine]) -> None:
    chunked, single = engines
    examples = _examples()
    assert len(examples) > 2000
    found = 0
    for k, ex in enumerate(examples):
        got = chunked.scan_bytes(ex)
        assert got == single.scan_bytes(ex), ex
        found += len(got)
        if k % 3 == 0:
            assert chunked.scan_bytes(ex, MODE_OPAQUE) == single.scan_bytes(ex, MODE_OPAQUE), ex
    assert found > 1500
    modes = [(MODE_ALL, MODE_ALL, MODE_KEYS, MODE_PATHS, MODE_IDS)[i % 5] for i in range(len(examples))]
    for k in range(0, len(examples), 89):  # batches as the walkers make them
        part = examples[k:k + 89]
        assert chunked.scan_segments(part, modes[k:k + 89]) == single.scan_segments(part, modes[k:k + 89])
    text = b"\n".join(examples)
    assert chunked.redact_bytes(text, None) == single.redact_bytes(text, None) != text


# fragments that wake COMMON rules of different chunks, glued at random
_FRAGS = ["api_key = \"Zx9Qw8Er7Ty6Ui5Op4\"", "AKIAQYLPMN5HHHFPZAM2", "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8t",
          "PASSWORD=hunter2hunter2x", "pa-9f8e7d6c5b4a3f2e1d0c", "3f2a9c0b1d4e5f60718293a4b5c6d7e8-us14",
          "grace-MacBook-Pro", "postgres://u:pw1234567@db/x", "ssh -l root host", "Authorization: Basic ",
          "totp secret JBSWY3DPEHPK3PXP", "bob.stone@northwind.io", "+14155550123", "token", "key", "secret",
          "/home/alice/p", " ", "\n", "\\n", "\"", ":", "=", "-", "_", "x" * 24, "0123456789abcdef" * 2]


def test_random_texts_find_the_same_as_one_chunk(engines: tuple[Engine, Engine]) -> None:
    chunked, single = engines
    found = same_segment_findings(chunked, single, _FRAGS, 20261202, 500,
                                  (MODE_ALL, MODE_ALL, MODE_KEYS, MODE_PATHS, MODE_IDS), each_alone=True)
    assert found > 800


class _Counting:
    """A chunk's alternation that counts the searches made with it."""

    def __init__(self, rx: Any) -> None:
        self.rx = rx
        self.calls = 0

    def Match(self, *args: Any) -> Any:  # noqa: N802 - the RE2 method name
        self.calls += 1
        return self.rx.Match(*args)


def test_a_keyword_wakes_only_the_chunks_of_its_rules() -> None:
    eng = Engine(list(_rules()), Pseudonymizer(KEY))
    chunks = eng._weak[COMMON]
    counters = []
    for chunk in chunks:
        chunk.alt = _Counting(chunk.alt)
        counters.append(chunk.alt)
    text = b"export MAILCHIMP=3f2a9c0b1d4e5f60718293a4b5c6d7e8-us14"
    wanted = {i for i in eng._keyword_hits(text)[0] if i in set(eng._groups[COMMON])}
    assert wanted  # the `-us` keyword of mailchimp-api-key
    owners = {k for k, c in enumerate(chunks) if not c.members.isdisjoint(wanted)}
    assert 0 < len(owners) < len(chunks)
    found = [m.rule_id for m in eng.scan_bytes(text)]
    assert "mailchimp-api-key" in found
    assert {k for k, c in enumerate(counters) if c.calls} == owners
    for c in counters:
        c.calls = 0
    assert "mailchimp-api-key" in [m.rule_id for ms in eng.scan_segments([text, b"plain"], [MODE_ALL] * 2).values()
                                    for m in ms]
    assert {k for k, c in enumerate(counters) if c.calls} == owners
