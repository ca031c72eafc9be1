"""The weak groups' combined prefilters leave out the alternatives a rule only uses to consume
text (they hold no secret group, so they never yield a candidate): same findings, and a plain
URL no longer wakes the COMMON group (home-share's `https?://...` did: its DFA cache grew in every
worker and the group's rules ran on every string holding a link)."""

from __future__ import annotations

import functools

import pytest
import re2

import archiver.redact.engine as engine_mod
from archiver.redact.engine import (ALWAYS, COMMON, MODE_ALL, MODE_KEYS, MODE_PATHS, STRONG, Engine,
                                    _group)
from archiver.redact.pseudonym import Pseudonymizer
from archiver.redact.re2scan import first_span
from archiver.redact.regex_rewrite import cheap_unicode, gate_form
from archiver.redact.rules import Rule, RuntimeTerms, load_rules
from tests.fx_redact import same_segment_findings

KEY = b"team-key-for-tests-0123456789abcdef"
BUILTIN = ["builtin:secrets", "builtin:pii", "builtin:paths"]
TERMS = RuntimeTerms(usernames=["alice"], names=["Bob Stone"])


@pytest.mark.parametrize("regex, group, expected", [
    # a consuming alternative first, last, or both sides of the one holding the group
    (r"https?://\S*|//nas/homes/(\w+)", 1, r"//nas/homes/(\w+)"),
    (r"\b(4[0-9]{12})\b|\.[0-9]{12,}", 1, r"\b(4[0-9]{12})\b"),
    (r"a+|b(c)|d|e(f)", 1, r"b(c)"),
    (r"a+|b(c)|d|e(f)", 2, r"e(f)"),
    # the leading flags stay with what is kept
    (r"(?i)https?://\S*|(?:\\{2}|//)\w+\\?/homes?/(\w+)", 1, r"(?i)(?:\\{2}|//)\w+\\?/homes?/(\w+)"),
    # `|` and `(` inside classes, escapes and non-capturing groups do not split or count
    (r"[(|]x|(?:a|b)\(|(y)", 1, r"(y)"),
    (r"[\]|(]z|\|(w)", 1, r"\|(w)"),
    (r"[[:alpha:]|(]+|(v)", 1, r"(v)"),
    (r"(?i:to|from) [0-9.]+|(?P<ip>[0-9.]+)", 1, r"(?P<ip>[0-9.]+)"),
    # the group nested deeper in its alternative
    (r"x[0-9]+|(?:a|(b(c)))d", 2, r"(?:a|(b(c)))d"),
    (r"(a)|(a)b", 1, r"(a)"),
    (r"(a|b)|(c)", 1, r"(a|b)"),
    (r"(x)|y(z)|(w)", 2, r"y(z)"),
])
def test_gate_form_keeps_only_the_alternatives_with_the_group(regex: str, group: int, expected: str) -> None:
    assert gate_form(regex, group) == expected
    re2.compile(expected)


@pytest.mark.parametrize("regex, group", [
    (r"https?://\S*|(x)", 0),            # the whole match is the candidate
    (r"a(b)c", 1),                       # one alternative
    (r"a|(?i)(b)", 1),                   # flags set mid-pattern reach the alternatives after them
    (r"\Qa|b\E|(c)", 1),                 # quoting: not parsed
    (r"(?-i)a|(b)", 1),                  # a flag prefix the helper does not read
    (r"a|(b", 1),                        # unbalanced
])
def test_gate_form_when_unsure_or_nothing_to_drop(regex: str, group: int) -> None:
    assert gate_form(regex, group) == regex


@functools.cache
def _rules() -> tuple[Rule, ...]:
    return tuple(load_rules(BUILTIN, TERMS))


@pytest.fixture(scope="module")
def engines() -> tuple[Engine, Engine]:
    """(the engine as built, one whose prefilters hold every rule's whole pattern)."""
    pruned = Engine(list(_rules()), Pseudonymizer(KEY))
    keep = engine_mod.gate_form
    engine_mod.gate_form = lambda regex, group: regex
    try:
        whole = Engine(list(_rules()), Pseudonymizer(KEY))
    finally:
        engine_mod.gate_form = keep
    return pruned, whole


def _examples(groups: tuple[int, ...] = (STRONG, ALWAYS, COMMON)) -> list[bytes]:
    out: list[bytes] = []
    for r in _rules():
        if _group(r) in groups:
            out.extend(s.encode() for s in r.positive + r.negative)
    return out


def test_every_builtin_example_finds_the_same_with_pruned_prefilters(engines: tuple[Engine, Engine]) -> None:
    pruned, whole = engines
    examples = _examples()
    assert len(examples) > 2000
    found = 0
    # one by one: the examples of the weak groups' rules (the prefilters gate only those)
    for ex in _examples((ALWAYS, COMMON)):
        got = pruned.scan_bytes(ex)
        assert got == whole.scan_bytes(ex), ex
        found += len(got)
    assert found > 300
    # the same examples as the strings of one document (in every mode), and joined into one text
    modes = [(MODE_ALL, MODE_ALL, MODE_KEYS, MODE_PATHS)[i % 4] for i in range(len(examples))]
    assert pruned.scan_segments(examples, modes) == whole.scan_segments(examples, modes)
    text = b"\n".join(examples)
    assert pruned.redact_bytes(text, None) == whole.redact_bytes(text, None)


_FRAGS = ["https://example.com/users/octocat", "http://intranet/home/", "smb://nas.local/homes/heidi/notes",
          "\\\\fileserver01\\home$\\frankl\\x", "mount -t cifs //nas/homes/grace /mnt", "//nas/homes/user-5f2a/x",
          "bob.stone@northwind.io", "mailto:bob@northwind.io", "postgres://u:pw1234567@db/x", "v1.2.3.4",
          "81.2.69.160", "to 10.0.0.1", "4111 1111 1111 1111", "x.411111111111111", "+14155550123", "~bob/",
          "/~bob/x", "(415) 555-0123", "d=\"M10 20-30\"", "api_key = \"Zx9Qw8Er7Ty6Ui5Op4\"", "next_token=abc",
          "PGP_PUBLIC_KEY=abcdefghij0123456789xyz", "SECRET_KEY=abcdefghij0123456789xyz", "/home/alice/p",
          "-home-alice-proj", "--home-alice-x--", " ", "\n", "\"", "'", "<", "é", "token", "users", "home"]


def test_random_texts_find_the_same_with_pruned_prefilters(engines: tuple[Engine, Engine]) -> None:
    pruned, whole = engines
    found = same_segment_findings(pruned, whole, _FRAGS, 20261130, 600, (MODE_ALL, MODE_ALL, MODE_KEYS, MODE_PATHS),
                                  each_alone=True)
    assert found > 1000


def _alt_hit(eng: Engine, group: int, buf: bytes) -> bool:
    """Does any of the group's prefilter alternations match in buf?"""
    return any(first_span(chunk.alt, buf)[0] >= 0 for chunk in eng._weak[group])


def test_a_plain_url_no_longer_wakes_the_common_group(engines: tuple[Engine, Engine]) -> None:
    pruned, whole = engines
    lines = [b'{"url": "https://github.com/users/octocat/repos?page=%d"}' % i for i in range(2000)]
    links = b"\n".join(lines)
    starts = [sum(len(x) + 1 for x in lines[:i]) for i in range(len(lines))]
    common = list(pruned._groups[COMMON])
    assert _alt_hit(whole, COMMON, links)  # the old prefilter: every link a hit
    assert len(whole._weak_segments(COMMON, common, lines, links, starts)) == 2000
    assert not _alt_hit(pruned, COMMON, links) and not _alt_hit(pruned, ALWAYS, links)
    assert pruned._weak_segments(COMMON, common, lines, links, starts) == {}
    share = b"mount -t cifs //nas.local/homes/grace /mnt/x"
    assert _alt_hit(pruned, COMMON, share)
    assert [m.rule_id for m in pruned.scan_bytes(share)] == ["home-share"]
    assert pruned.redact_bytes(share, None) == whole.redact_bytes(share, None) != share


def test_cheap_unicode_widens_property_classes_and_keeps_negations() -> None:
    import re2


    name = r"(\p{Lu}[\pL\pM'’.-]*(?:[ \t]+\p{Lu}[\pL\pM'’.-]*){1,3}) <"
    cheap = cheap_unicode(name)
    assert "\\p" not in cheap
    for text in ("Zoë Ångström <", "Łukasz Nowak <", "Priya Natarajan <", "Ólafur Arnalds <"):
        assert re2.search(name, text) and re2.search(cheap, text)  # a superset: never misses
    for negated in (r"[^\pL]x", r"\P{Lu}y", r"[^a\p{Lu}]"):
        assert cheap_unicode(negated) == negated
    assert cheap_unicode(r"\p{Greek}") == r"\p{Greek}"  # no ASCII form known: unchanged
    assert cheap_unicode(r"[]\pL]") == r"[]A-Za-z\x{80}-\x{10FFFF}]"
