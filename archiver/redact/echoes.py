"""A value a rule found, redacted wherever else it appears in the same unit of redaction.

A rule finds a value by its context: a phone number after `Phone:`, an SSN after `SSN:`, a
password after `IDENTIFIED BY`. The same value elsewhere in the text has no such context (the
number said again later in the message, the value echoed in a stack trace
`validate('030 90182736')`), and the placeholder beside the clear copy would point right at it.
So each value found is also replaced where else it occurs in the same unit: one buffer
(`Engine.redact_bytes`), or the strings of one JSON document (one JSONL line,
`JsonRedactor._finish`). Never across the lines of a JSONL file: its lines are redacted one by
one, and an appended segment must come out as it would in the whole file.

Only a value that is no ordinary word is echoed: ECHO_MIN bytes or more and holding a digit or
a separator between two letters or digits (`Marcus Okafor`, `0170 4829137`, `a.b@c.io`), or
ECHO_WORD_MIN bytes or more; an occurrence glued to a letter or digit on either side is part of
another token (`x0170 4829137` is not the number), while one after an escaped separator
(`%20alice`, `%2Falice`, `\\u0040alice`) starts a word. A login name a rule read from its account
context (a home folder, `ssh alice@host`, `whoami`) is echoed from USERNAME_ECHO_MIN bytes: the
collector's user is not always the one the sessions were written by (a container reading mounted
homes), and the name said again in the same record ("Hi alice,", `owner: alice`, a branch
`alice/fix`) is that user's. Generic accounts (`root`, `runner`) and names that are everyday words
(`max`, `will`) are not echoed: their context is what makes them accounts.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from typing import TYPE_CHECKING, Iterable

from archiver.redact.rules import GENERIC_ACCOUNTS, word_username
from archiver.redact.words import escaped_separator_before

if TYPE_CHECKING:  # engine.py imports this module
    from archiver.redact.engine import Match

ECHO_MIN = 6
ECHO_WORD_MIN = 12
USERNAME_ECHO_MIN = 3
MAX_VALUES = 64  # per unit: a text with more findings than this is a dump, echoed for its first ones
_DIGIT = re.compile(rb"[0-9]")
_JOINED_WORDS = re.compile(rb"[A-Za-z0-9\x80-\xff][^A-Za-z0-9\x80-\xff]+[A-Za-z0-9\x80-\xff]")


def echoable(value: bytes) -> bool:
    """Is this found value worth looking for elsewhere (no ordinary word)?"""
    if len(value) < ECHO_MIN:
        return False
    if len(value) >= ECHO_WORD_MIN:
        return True
    return _DIGIT.search(value) is not None or _JOINED_WORDS.search(value) is not None


def _account_name(m: Match, value: bytes) -> bool:
    """Is this a login name a rule found (label USERNAME), long enough and no generic account or
    everyday word?"""
    if m.label != "USERNAME" or len(value) < USERNAME_ECHO_MIN:
        return False
    try:
        name = value.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return name.lower() not in GENERIC_ACCOUNTS and not word_username(name)


def found_values(found: Iterable[tuple[bytes, list[Match]]]) -> dict[bytes, Match]:
    """{value: the match that found it} of the echoable values of (text, its matches) pairs, the
    first MAX_VALUES in order."""
    out: dict[bytes, Match] = {}
    for text, ms in found:
        for m in ms:
            value = text[m.start:m.end]
            if value not in out and (echoable(value) or _account_name(m, value)):
                out[value] = m
                if len(out) >= MAX_VALUES:
                    return out
    return out


def _word_byte(b: int) -> bool:
    return b >= 0x80 or 48 <= b <= 57 or 65 <= b <= 90 or 97 <= b <= 122


def _disjoint(spans: Iterable[tuple[int, int]]) -> tuple[list[int], list[int]]:
    """The spans' union as disjoint intervals: their starts and ends, both ascending."""
    starts: list[int] = []
    ends: list[int] = []
    for s, e in sorted(spans):
        if ends and s < ends[-1]:
            if e > ends[-1]:
                ends[-1] = e
        else:
            starts.append(s)
            ends.append(e)
    return starts, ends


def echo_matches(text: bytes, values: dict[bytes, Match], taken: list[Match], lo: int = 0,
                 hi: int | None = None) -> list[Match]:
    """Matches (each a copy of its value's, moved) for the occurrences of `values` in text[lo:hi]
    that overlap no match of `taken` nor each other and are not glued to a letter or digit."""
    hi = len(text) if hi is None else hi
    # a name said thousands of times in a long line beside thousands of findings: each overlap
    # test is a bisection of the taken intervals, not a walk over all of them
    starts, ends = _disjoint((m.start, m.end) for m in taken)
    out: list[Match] = []
    for value, m in values.items():
        pos = text.find(value, lo, hi)
        while pos >= 0:
            end = pos + len(value)
            glued = ((pos > 0 and _word_byte(text[pos - 1]) and _word_byte(value[0])
                      and not escaped_separator_before(text, pos))  # `%20alice`, `\\u0040alice`
                     or (end < len(text) and _word_byte(text[end]) and _word_byte(value[-1])))
            i = bisect_left(starts, end)  # the intervals before i start before this occurrence ends
            if not glued and (i == 0 or ends[i - 1] <= pos):
                out.append(m._replace(start=pos, end=end))
                starts.insert(i, pos)
                ends.insert(i, end)
                pos = text.find(value, end, hi)
            else:
                pos = text.find(value, pos + 1, hi)
    return out


def merged(ms: list[Match], echoed: list[Match]) -> list[Match]:
    """ms and the echoes found beside them (none overlapping), in order."""
    return sorted(ms + echoed, key=lambda m: m.start) if echoed else ms


def with_echoes(text: bytes, ms: list[Match]) -> list[Match]:
    """ms and the echoes of their values in text, in order (ms itself when there are none)."""
    values = found_values([(text, ms)])
    return merged(ms, echo_matches(text, values, ms)) if values else ms
