"""Session 26's CPU savings in the redaction path, each with the same output as before.

* Engine._weak_segments: after a match of a weak chunk's alternation, the search goes on from the
  start of the string after the last one the match touched (only which strings it touches counts),
  not from the match's end: a long string with many matches costs one search, not one per match.
  The strings (and rules) it hands on must be exactly those of the old loop, every match followed.
* RuleRedactor: a hex-encoded JSON cell (Cursor meta) is told by its first two characters before
  the anchored regex, which the re2 wrapper ran on every long text cell after encoding it whole.
"""

from __future__ import annotations

import functools
import random
from bisect import bisect_right
from typing import Any

import pytest

import archiver.redact.redactor as redactor_mod
from archiver.redact.engine import ALWAYS, COMMON, Engine
from archiver.redact.pseudonym import Pseudonymizer
from archiver.redact.re2scan import iter_spans
from archiver.redact.rules import Rule, RuntimeTerms, load_rules

KEY = b"s26-perf-key-0123456789abcdef0123"
PACKS = ["builtin:secrets", "builtin:pii", "builtin:paths", "builtin:names"]
TERMS = RuntimeTerms(usernames=["alice"], names=["Grace Hopper"])

# pieces that wake the ALWAYS and COMMON prefilters, separators, and text around them
_FRAGS = ["grace@example.com", "a.b@c.de", "@", ".", "-", "(", "+1 415 555 0123", "4111 1111 1111 1111",
          "token", "token=abc123XYZ987def456", "password: hunter2hunter2", "api_key", "secret", "auth",
          "Bearer abcdefghijklmnopqrstuvwxyz012345", "users", "/home/alice/p", "user", "pass", "key",
          "DE89 3704 0044 0532 0130 00", "sk-abcdefghijklmnopqrstuvwxyz0123456789abcd", "born 1970-01-01",
          " ", "  ", "\n", "\t", '"', "'", ":", "=", ",", "é", "日本", "x", "lorem ipsum", "0123456789"]


@functools.cache
def _rules() -> tuple[Rule, ...]:
    return tuple(load_rules(PACKS, TERMS))


@pytest.fixture(scope="module")
def eng() -> Engine:
    return Engine(list(_rules()), Pseudonymizer(KEY))


def _starts(parts: list[bytes]) -> list[int]:
    out, pos = [], 0
    for p in parts:
        out.append(pos)
        pos += len(p) + 1
    return out


def _old_weak_segments(e: Engine, group: int, members: list[int], parts: list[bytes], joined: bytes,
                       starts: list[int]) -> dict[int, list[int]]:
    """Engine._weak_segments as it was before session 26: every match of the alternation followed."""
    wanted = set(members)
    can: dict[int, set[int]] = {}
    for chunk in e._weak[group]:
        if chunk.members.isdisjoint(wanted):
            continue
        touched: set[int] = set()
        for sp in iter_spans(chunk.alt, joined):
            a, b = sp[0]
            touched.update(range(max(0, bisect_right(starts, a) - 1), bisect_right(starts, b - 1)))
        for i in touched:
            found = chunk.hits(parts[i])
            can.setdefault(i, set()).update(chunk.idxs if found is None else found)
    return {i: run for i, hits in can.items() if (run := [k for k in members if k in hits])}


def _random_parts(rng: random.Random) -> list[bytes]:
    parts = []
    for _ in range(rng.randint(1, 12)):
        n = rng.choice((0, 1, 2, 5, 20, 80))
        parts.append("".join(rng.choice(_FRAGS) for _ in range(n)).encode())
    return parts


def test_weak_segments_hand_on_what_following_every_match_did(eng: Engine) -> None:
    rng = random.Random(20261203)
    nonempty = checked = 0
    for _ in range(400):
        parts = _random_parts(rng)
        joined = b"\n".join(parts)
        starts = _starts(parts)
        kw_rules = eng._keyword_hits(joined)[0]
        common = sorted(i for i in kw_rules if eng._c[i].group == COMMON)
        for group, members in ((COMMON, common), (ALWAYS, list(eng._groups[ALWAYS]))):
            if not members:
                continue
            new = eng._weak_segments(group, members, parts, joined, starts)
            assert new == _old_weak_segments(eng, group, members, parts, joined, starts), parts
            checked += 1
            nonempty += bool(new)
    assert checked > 500 and nonempty > 200  # else the comparison says little


def test_weak_segments_match_at_string_edges_and_across_separators(eng: Engine) -> None:
    """Matches that end on a separator, cross one, or sit at a string's first byte; empty strings."""
    cases = [
        [b"grace@example.com", b"a.b@c.de", b"", b"@", b"x@y.zz"],
        [b"mail grace@exam", b"ple.com and a.b@c.de", b"", b""],
        [b"", b"grace@example.com", b"grace@example.com grace@example.com", b"", b"x"],
        [b"token=abc123XYZ987def456 " * 50, b"api_key: " + b"A1b2C3d4E5f6G7h8" * 3, b"password: hunter2hunter2"],
    ]
    for parts in cases:
        joined = b"\n".join(parts)
        starts = _starts(parts)
        kw_rules = eng._keyword_hits(joined)[0]
        for group, members in ((COMMON, sorted(i for i in kw_rules if eng._c[i].group == COMMON)),
                               (ALWAYS, list(eng._groups[ALWAYS]))):
            if members:
                assert (eng._weak_segments(group, members, parts, joined, starts)
                        == _old_weak_segments(eng, group, members, parts, joined, starts))


class _Counting:
    """A chunk's alternation that counts its searches."""

    def __init__(self, rx: Any) -> None:
        self.rx = rx
        self.calls = 0

    def Match(self, *args: Any) -> Any:  # noqa: N802 - the RE2 method name
        self.calls += 1
        return self.rx.Match(*args)


def test_a_string_with_many_matches_costs_one_search(eng: Engine) -> None:
    # three long strings of e-mail addresses (the ALWAYS group's e-mail piece matches each one),
    # with plain strings between them
    mails = b" ".join(b"user%d@example.com" % k for k in range(300))
    parts = [mails, b"nothing here", mails, b"plain text", mails]
    joined = b"\n".join(parts)
    starts = _starts(parts)
    chunks = eng._weak[ALWAYS]
    counters = [_Counting(c.alt) for c in chunks]
    try:
        for c, k in zip(chunks, counters):
            c.alt = k
        found = eng._weak_segments(ALWAYS, list(eng._groups[ALWAYS]), parts, joined, starts)
    finally:
        for c, k in zip(chunks, counters):
            c.alt = k.rx
    assert sorted(found) == [0, 2, 4]
    assert any(eng._c[i].rule.id.startswith("email") for i in found[0])
    # one search per touched string, one more that finds nothing (was one per match: 900 and more)
    assert sum(k.calls for k in counters) <= len(chunks) * (len(parts) + 1)


class _CountingSearch:
    def __init__(self, rx: Any) -> None:
        self.rx = rx
        self.calls = 0

    def search(self, *args: Any) -> Any:
        self.calls += 1
        return self.rx.search(*args)


@pytest.mark.parametrize("value", ["7b22613a2231227d", "5B5D5b5d", "7B22", "7b2", "7b22zz", "7c22613a", "5a5d",
                                   "7b22613a2231227d\n", "x7b22", "{\"a\": 1}", "hello world", "7b", "", "7bé0",
                                   "5b" + "0" * 4000])
def test_is_hex_json_is_the_regex(value: str) -> None:
    assert redactor_mod._is_hex_json(value) == (len(value) >= 4 and redactor_mod._HEX_JSON.search(value) is not None)


def test_a_long_text_cell_is_not_searched_for_hex_json(monkeypatch: pytest.MonkeyPatch) -> None:
    counting = _CountingSearch(redactor_mod._HEX_JSON)
    monkeypatch.setattr(redactor_mod, "_HEX_JSON", counting)
    doc = "{\"role\": \"user\", \"text\": \"" + "lorem ipsum " * 2000 + "\"}"
    digits = "0123456789abcdef" * 64
    assert redactor_mod.RuleRedactor._text_cell(doc, None) is None
    assert redactor_mod.RuleRedactor._json_cell(doc, None) == doc.encode()
    assert redactor_mod.RuleRedactor._text_cell("a title", None) == b"a title"
    assert redactor_mod.RuleRedactor._json_cell("a title", None) is None
    assert redactor_mod.RuleRedactor._text_cell(digits, None) == digits.encode()
    assert redactor_mod.RuleRedactor._json_cell(digits, None) is None
    assert counting.calls == 0
    hexed = "7b22613a2231227d"
    assert redactor_mod.RuleRedactor._json_cell(hexed, None) is None
    assert counting.calls == 1
