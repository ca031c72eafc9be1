"""Rewrites of a rule's regex source for the engine: line anchors for joined scans, and the
supersets the weak groups' combined prefilters are built from (consuming alternatives dropped,
counted repeats capped, Unicode classes widened). Pure functions of the pattern text."""

from __future__ import annotations

import re
from typing import Iterator, NamedTuple


class _Token(NamedTuple):
    start: int
    text: str
    in_class: bool  # a member of a [...] class, its closing ] included (the opener is not)
    negated: bool  # a member of a class that starts [^


_tuple_new = tuple.__new__
_ESCAPE = re.compile(r"\\(?:[pP](?:\{[^}]*\}|.)|x(?:\{[0-9A-Fa-f]*\}|[0-9A-Fa-f]{2})|.)", re.S)
_RUNS: dict[str, re.Pattern[str]] = {}  # per `keep`: a run of ordinary characters none of which it names


def _run(keep: str) -> re.Pattern[str]:
    rx = _RUNS.get(keep)
    if rx is None:
        rx = _RUNS[keep] = re.compile("[^" + re.escape("\\[" + keep) + "]+")
    return rx


def _tokens(regex: str, start: int = 0, keep: str | None = None) -> Iterator[_Token]:
    """The pattern in the pieces the rewrites below need, so each reads classes the same way:
    an escape (a Unicode property `\\p{Lu}` or a code point `\\x{80}` whole), a class opener
    (`[`, `[^`, `[]`, `[^]`: a leading ] is a member), a POSIX class `[:alpha:]` inside a class (its ] closes nothing), or
    one character. With `keep` (the characters the caller reads outside a class), the other
    ordinary characters outside a class come as runs: a word list's names are one token each,
    not one per letter (the rewrites walk every rule's pattern in every process)."""
    in_class = negated = False
    i, n = start, len(regex)
    new, tok = _tuple_new, _Token  # _Token(...) is a Python-level __new__: one frame per token saved
    run = None if keep is None else _run(keep).match
    while i < n:
        ch = regex[i]
        if ch == "\\":
            m = _ESCAPE.match(regex, i)
            j = m.end() if m else n
            yield new(tok, (i, regex[i:j], in_class, negated))
            i = j
        elif in_class:
            close = regex.find(":]", i + 2) if regex.startswith("[:", i) else -1
            j = close + 2 if close >= 0 else i + 1
            yield new(tok, (i, regex[i:j], True, negated))
            if j == i + 1 and ch == "]":
                in_class = negated = False
            i = j
        elif ch == "[":
            j = i + 1
            negated = j < n and regex[j] == "^"
            j += negated
            if j < n and regex[j] == "]":
                j += 1
            yield new(tok, (i, regex[i:j], False, False))
            in_class = True
            i = j
        elif run is not None and (m := run(regex, i)) is not None:  # (None: ch is one `keep` names)
            j = m.end()
            yield new(tok, (i, regex[i:j], False, False))
            i = j
        else:
            yield new(tok, (i, ch, False, False))
            i += 1


_ANCHORS = {"^": 0, "\\A": 0, "$": 1, "\\z": 1}


def is_anchored(regex: str) -> bool:
    """Conservative: does the pattern use ^ $ \\A \\z outside a character class?"""
    if "^" not in regex and "$" not in regex and "\\A" not in regex and "\\z" not in regex:
        return False
    return any(not t.in_class and t.text in _ANCHORS for t in _tokens(regex, keep="^$"))


def multiline(regex: str, anchor: tuple[str, str] = ("(?m:^)", "(?m:$)")) -> str:
    """The pattern with ^ $ \\A \\z (outside classes) turned into line anchors, for joined scans
    (or, with anchor=("(?:)", "(?:)"), into nothing: a superset that matches anywhere)."""
    return "".join(anchor[_ANCHORS[t.text]] if not t.in_class and t.text in _ANCHORS else t.text
                   for t in _tokens(regex, keep="^$"))


_FLAGS_PREFIX = re.compile(r"\(\?[imsU]+\)")


_PROPERTY = re.compile(r"\\p(?:\{[A-Za-z_]+\}|[A-Za-z])")
_ASCII_OF = {"Lu": "A-Z", "Lt": "A-Z", "Ll": "a-z", "L": "A-Za-z", "N": "0-9", "Nd": "0-9", "M": ""}


def cheap_unicode(regex: str) -> str:
    """The pattern with each Unicode property class (`\\p{Lu}`, `\\pL`, `\\pM`, ...) widened to its
    ASCII part plus every non-ASCII character, for the weak groups' combined prefilters only: a
    superset, whose DFA stays small. `\\p{Lu}` spelled out is hundreds of UTF-8 byte ranges, and
    the person-name rules repeat it: in one combined pattern scanned over a long run the DFA cache
    grew by tens of MB in every redacting process. Unchanged when a property sits in a negated
    class or is negated itself (`\\P`, `[^\\pL]`): widening those would narrow them."""
    if "\\p" not in regex or "\\P" in regex:
        return regex
    out: list[str] = []
    for t in _tokens(regex, keep=""):
        if _PROPERTY.fullmatch(t.text) is None:
            out.append(t.text)
            continue
        ascii_part = _ASCII_OF.get(t.text[2:].strip("{}"))
        if ascii_part is None or t.negated:
            return regex
        body = ascii_part + "\\x{80}-\\x{10FFFF}"
        out.append(body if t.in_class else f"[{body}]")
    return "".join(out)


# Counted repeats in the weak groups' prefilters are cut to at most this many (`{n,m}` with n or m
# above it becomes `{min(n, 16),}`). A DFA counts a repeat with one state per step, and in a long
# run of base64 or hex the counters of many pieces (`SG\.X{22}\.X{43}`, `sl\.X{130,}`, `fc-X{32}`,
# ...) start at different offsets and run at once: the COMMON alternation's DFA built states for
# every combination, spent its 32 MB and finished on the NFA on bench/corpus.py's 100 MB home (4.3
# CPU-s over its 53 MB of joined strings, a quarter of redaction). Cut: 0.5 CPU-s, a 7 MB cache
# instead of 12-17, the same strings touched. Not lower: at 8, `4[0-9]{12}` (a Visa number) became
# any 9 digits after a 4, and the ALWAYS gate opened on ordinary ids.
_GATE_REPEAT_CAP = 16
_REPEAT = re.compile(r"\{(\d+)(?:,(\d*))?\}")


def capped_repeats(regex: str, cap: int = _GATE_REPEAT_CAP) -> str:
    """The pattern with every counted repeat outside a class loosened to at most `cap` (a lower
    bound above it lowered to `cap`, an upper bound above it dropped), for the weak groups'
    prefilters only. A superset that matches where the pattern matches, from the same start: fewer
    repeats of the same atom, or more, is all that changes."""
    if "{" not in regex:
        return regex
    out: list[str] = []
    skip_to = -1
    for t in _tokens(regex, keep="{}"):  # (a run ends at the `}` a repeat ends with: none straddles skip_to)
        if t.start < skip_to:
            continue
        m = _REPEAT.match(regex, t.start) if t.text == "{" and not t.in_class else None
        if m is None:
            out.append(t.text)
            continue
        low, high = int(m.group(1)), m.group(2)
        loose = low > cap or (high is not None and high != "" and int(high) > cap)
        out.append("{%d,}" % min(low, cap) if loose else m.group(0))
        skip_to = m.end()
    return "".join(out)


def gate_form(regex: str, group: int) -> str:
    """The pattern without its top-level alternatives that hold no capturing group `group`, for
    the weak groups' combined prefilters. Such an alternative only consumes text so the rule
    never reports it (home-share's `https?://...` keeps a site's /users/<name> pages from being
    shares): it yields no candidate, so the prefilter stays a superset without it. Kept in, it
    made the COMMON prefilter hit every URL (324,000 spans instead of 700 on 100 MB of
    transcript, its DFA cache +3 MB in each worker) and the group's rules run on every string
    with a link. The pattern unchanged when unsure (group 0, \\Q, flags set mid-pattern)."""
    if group <= 0 or "\\Q" in regex:
        return regex
    m = _FLAGS_PREFIX.match(regex)
    prefix = m.group(0) if m else ""
    alts: list[tuple[int, int, bool]] = []  # (start, end, holds the group)
    depth = 0
    seen = 0  # capturing groups opened so far
    start, has = len(prefix), False
    n = len(regex)
    for t in _tokens(regex, len(prefix), keep="()|"):
        if t.in_class:
            continue
        i, ch = t.start, t.text
        if ch == "(":
            if i + 1 < n and regex[i + 1] == "?":
                if regex.startswith(("(?P<", "(?<"), i) and not regex.startswith(("(?<=", "(?<!"), i):
                    seen += 1
                    has = has or seen == group
                else:
                    j = i + 2
                    while j < n and regex[j] not in ":)":
                        j += 1
                    if j < n and regex[j] == ")" and depth == 0:  # flags set mid-pattern: they span alternatives
                        return regex
            else:
                seen += 1
                has = has or seen == group
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "|" and depth == 0:
            alts.append((start, i, has))
            start, has = i + 1, False
    alts.append((start, n, has))
    kept = [regex[a:b] for a, b, h in alts if h]
    if len(alts) == 1 or not kept or len(kept) == len(alts) or depth != 0:
        return regex
    return prefix + "|".join(kept)
