"""The weak groups' prefilters with their counted repeats cut to 16 (`regex_rewrite.capped_repeats`):
each piece still matches wherever its rule's pattern matches, from the same start; an engine
with cut prefilters finds exactly what one with whole prefilters finds; and the COMMON
alternation's program is a fraction of its old size. Whole, its DFA counted every repeat of
every piece at once on a run of base64 or hex, spent its 32 MB budget and finished on the NFA:
a quarter of the redaction CPU on bench/corpus.py's 100 MB home (README, "Performance")."""

from __future__ import annotations

import base64
import functools
import random

import pytest
import re2

import archiver.redact.engine as engine_mod
from archiver.redact.engine import ALWAYS, COMMON, MODE_ALL, MODE_KEYS, MODE_PATHS, Engine
from archiver.redact.re2scan import ANCHOR_START, UNANCHORED, re2_options
from archiver.redact.regex_rewrite import capped_repeats, cheap_unicode, gate_form, multiline
from archiver.redact.pseudonym import Pseudonymizer
from archiver.redact.rules import Rule, RuntimeTerms, load_rules
from tests.fx_redact import same_segment_findings

KEY = b"team-key-for-tests-0123456789abcdef"
BUILTIN = ["builtin:secrets", "builtin:pii", "builtin:paths"]
TERMS = RuntimeTerms(usernames=["alice"], names=["Bob Stone"])


@pytest.mark.parametrize("regex, expected", [
    ("a{3}", "a{3}"),                      # at or under the cap: unchanged
    ("a{16}", "a{16}"),
    ("a{2,16}", "a{2,16}"),
    ("a{3,}", "a{3,}"),
    ("4[0-9]{12}", "4[0-9]{12}"),
    ("a{17}", "a{16,}"),                   # a lower bound above the cap comes down to it
    ("a{20,}", "a{16,}"),
    ("x{22,45}", "x{16,}"),
    ("a{2,40}", "a{2,}"),                  # an upper bound above the cap goes
    ("(?:ab){0,200}c", "(?:ab){0,}c"),
    ("x{99}?y", "x{16,}?y"),               # a lazy repeat stays lazy
    ("[a{99}]b", "[a{99}]b"),              # braces in a class are members
    (r"\{99}", r"\{99}"),                  # an escaped brace is a literal
    ("a{,50}", "a{,50}"),                  # not a repeat in RE2: a literal
    (r"\x{41}{20}", r"\x{41}{16,}"),       # a code point's braces are not a repeat
    (r"[\x{80}-\x{10FFFF}]{30}", r"[\x{80}-\x{10FFFF}]{16,}"),
    (r"\p{Lu}{32}\x41{99}", r"\p{Lu}{16,}\x41{16,}"),
    (r"(SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43})", r"(SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,})"),
])
def test_capped_repeats(regex: str, expected: str) -> None:
    assert capped_repeats(regex) == expected
    re2.compile(expected)


@functools.cache
def _rules() -> tuple[Rule, ...]:
    return tuple(load_rules(BUILTIN, TERMS))


@pytest.fixture(scope="module")
def engines() -> tuple[Engine, Engine]:
    """(the engine as built, one whose prefilters keep every counted repeat whole)."""
    cut = Engine(list(_rules()), Pseudonymizer(KEY))
    keep = engine_mod.capped_repeats
    engine_mod.capped_repeats = lambda regex, cap=16: regex
    try:
        whole = Engine(list(_rules()), Pseudonymizer(KEY))
    finally:
        engine_mod.capped_repeats = keep
    return cut, whole


def _spans(rx: object, buf: bytes) -> list[tuple[int, int]]:
    out, pos = [], 0
    while pos <= len(buf):
        s, e = rx.Match(UNANCHORED, buf, pos, len(buf))[0]  # type: ignore[attr-defined]
        if s < 0:
            break
        out.append((s, e))
        pos = e if e > s else e + 1
    return out


def test_each_weak_rule_piece_matches_from_every_start_of_its_rule(engines: tuple[Engine, Engine]) -> None:
    """Rule by rule, on its own positive and negative examples and on them inside long base64 and
    hex runs: wherever the whole prefilter piece matches, the cut one matches from the same start."""
    rng = random.Random(20261201)
    checked = 0
    changed = 0
    for c in engines[0]._c:
        if c.group not in (ALWAYS, COMMON):
            continue
        r = c.rule
        whole = multiline(cheap_unicode(gate_form(r.regex, c.sgroup)))
        cut = multiline(cheap_unicode(capped_repeats(gate_form(r.regex, c.sgroup))))
        changed += whole != cut
        whole_rx = re2.compile(whole, re2_options(256 << 20))._regexp
        cut_rx = re2.compile(cut, re2_options(256 << 20))._regexp
        for ex in r.positive + r.negative:
            noise = base64.b64encode(rng.randbytes(90)) + rng.randbytes(40).hex().encode()
            for buf in (ex.encode(), noise + ex.encode() + noise, ex.encode() + b"\n" + noise):
                for s, _e in _spans(whole_rx, buf):
                    assert cut_rx.Match(ANCHOR_START, buf, s, len(buf))[0][0] == s, (r.id, buf)
                    checked += 1
    assert checked > 500
    assert changed > 30  # most token rules have a counted repeat above the cap


def test_every_builtin_example_finds_the_same_with_cut_prefilters(engines: tuple[Engine, Engine]) -> None:
    cut, whole = engines
    examples = [s.encode() for r in _rules() for s in r.positive + r.negative]
    found = 0
    for ex in examples:
        got = cut.scan_bytes(ex)
        assert got == whole.scan_bytes(ex), ex
        found += len(got)
    assert found > 1000
    modes = [(MODE_ALL, MODE_ALL, MODE_KEYS, MODE_PATHS)[i % 4] for i in range(len(examples))]
    assert cut.scan_segments(examples, modes) == whole.scan_segments(examples, modes)


_TOKEN_FRAGS = [
    "SG." + "a" * 22 + "." + "B" * 43, "sl." + "x" * 140, "fc-" + "0" * 32, "sk_" + "f" * 48,
    "K001" + "q" * 27, "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJlLXNpZ25hdHVyZQ",
    "fo1_" + "z" * 43, "00D" + "A" * 13 + "!" + "b" * 85, "123456789012345|" + "c" * 30,
    "+44 (0)20 7946 0958", "bob.stone@northwind.io", "4111 1111 1111 1111", "api_key = \"Zx9Qw8Er7Ty6Ui5Op4\"",
    "scp notes.txt heidi@build-07:/srv", "ssh -J jump@bastion host", "/home/alice/p",
]


def test_random_texts_with_tokens_in_base64_find_the_same(engines: tuple[Engine, Engine]) -> None:
    cut, whole = engines
    rng = random.Random(7)
    runs = [base64.b64encode(rng.randbytes(n)).decode() for n in (30, 120, 600)]
    frags = _TOKEN_FRAGS + runs + [r[:50] + t + r[50:] for r, t in zip(runs, _TOKEN_FRAGS)] + [" ", "\n", "\""]
    found = same_segment_findings(cut, whole, frags, 20261201, 400, (MODE_ALL, MODE_ALL, MODE_KEYS, MODE_PATHS),
                                  each_alone=True)
    assert found > 500


def test_the_common_program_is_a_fraction_of_its_whole_size(engines: tuple[Engine, Engine]) -> None:
    cut, whole = engines
    # (the COMMON prefilter in chunks since session 22: their programs added up)
    size_cut = sum(chunk.alt.ProgramSize() for chunk in cut._weak[COMMON])  # type: ignore[attr-defined]
    size_whole = sum(chunk.alt.ProgramSize() for chunk in whole._weak[COMMON])  # type: ignore[attr-defined]
    assert size_cut < 0.7 * size_whole, (size_cut, size_whole)
