"""Tokens cut by a terminal's line wrap: the vendor prefixes of prefixed token rules, the search
for their heads at a line's end, and the measures (line width, break length) that decide whether
the next line continues one."""

from __future__ import annotations

import re
import re._parser as sre_parse  # Python's regex parser: a rule's literal prefix (RE2 reads these patterns alike)

import re2


# A token cut by a line break that a terminal (or tmux/screen capture) put where the line was full:
# `line[:80] + "\n" + line[80:]`. The head is a prefixed token rule's prefix and part of its body,
# the next line starts with the rest. A rule whose regex begins with the prefixed-token convention
# (rules/secrets.toml: `(?:\\[nrt]|\b)(` then the vendor prefix) is continued across such a break
# when the pieces joined make a whole high-confidence token (docs/RULES.md, "Tokens cut by a
# line wrap").
_PREFIXED = "(?:\\\\[nrt]|\\b)("
WRAP_MIN_WIDTH = 80  # a head line this wide may be a terminal's full line
WRAP_MIN_CHAIN = 20  # a token wrapped twice proves a narrower width: its middle line is full
WRAPPED = "wrapped"  # Match.replace of a token continued across a break: keyed without the breaks
WRAP_RUN_BYTE = bytes(1 if b < 0x80 and (chr(b).isalnum() or b in b"_.-") else 0 for b in range(256))
# A tail that reads as a word (`Done`, `EXPORT`, `2024`): never continues a head that is a whole token by itself
WORDLIKE = re.compile(rb"(?:[-_.]?[A-Z]?[a-z]{2,})+[A-Z]{0,3}|[A-Z]+|[0-9]{1,4}")
_JSON_ESCAPE = re.compile(rb"\\u[0-9a-fA-F]{4}|\\.")


# 4+ characters: the rules of 3-character prefixes (`pat`, `sk_`, `re_`, `st.`, `hf_`, `eyJ`) have
# keywords that ordinary text holds ("path", `re_path`), and the head search ran on a third of a
# day of transcripts for them (36 of ~100 MB, 0.13 CPU-s) without one head to continue.
_VENDOR_PREFIX = re.compile(r"[A-Za-z0-9_.-]{4,}")
_PREFIX_MAX = 16  # literal prefixes of one rule, its classes and alternatives expanded


def vendor_prefixes(regex: str) -> tuple[str, ...]:
    """The fixed prefixes a prefixed token rule's token starts with (`ghp_`, `gho_`, ... for
    `gh[pousr]_`; `AKIA`, ..., `ACCA` for `(?:AKIA|...|ACCA|A3T[A-Z0-9])`): its regex begins with the
    prefixed-token convention and its first group starts with literal text; only the alternatives
    of 4+ token characters count. () for any other rule."""
    if not regex.startswith(_PREFIXED):
        return ()
    try:
        tree = sre_parse.parse(regex)
    except Exception:  # RE2 syntax Python does not read (\\z, \\p{..}): not a prefixed token rule
        return ()
    group = _first_group(list(tree))
    found = _literal_heads(group)[0] if group else []
    return tuple(dict.fromkeys(p for p in found if _VENDOR_PREFIX.fullmatch(p)))


def _first_group(items: list) -> list | None:
    for op, av in items:
        if op is sre_parse.SUBPATTERN:
            if av[0] == 1:
                return list(av[-1])
            inner = _first_group(list(av[-1]))
            if inner is not None:
                return inner
    return None


def _literal_heads(items: list) -> tuple[list[str], bool]:
    """The literal texts items start with (classes of literals and alternatives expanded, at most
    _PREFIX_MAX), and whether items are literal to their end."""
    out = [""]
    for op, av in items:
        if op is sre_parse.LITERAL:
            out = [p + chr(av) for p in out]
        elif (op is sre_parse.IN and all(o is sre_parse.LITERAL for o, _ in av)
              and len(out) * len(av) <= _PREFIX_MAX):
            out = [p + chr(v) for p in out for _, v in av]
        elif op is sre_parse.SUBPATTERN and av[0] is None and not av[1] and not av[2]:
            tails, whole = _literal_heads(list(av[-1]))
            out = [p + t for p in out for t in tails]
            if not whole or len(out) > _PREFIX_MAX:
                return out[:_PREFIX_MAX], False
        elif op is sre_parse.BRANCH:
            alts = [_literal_heads(list(a)) for a in av[1]]
            out = [p + t for p in out for tails, _ in alts for t in tails]
            if not all(whole for _, whole in alts) or len(out) > _PREFIX_MAX:
                return out[:_PREFIX_MAX], False
        else:
            return out, False
    return out, True


def wrap_pattern(prefixes: list[str]) -> str | None:
    """One search for the heads of every prefixed token rule: a vendor prefix at a token's start,
    the token characters after it, a line break (raw, CRLF or a JSON string's escape) and a token
    character right after the break. Group 1: the head, group 2: the break."""
    if not prefixes:
        return None
    alt = "|".join(re2.escape(p) for p in prefixes)
    return "(?:\\\\[nrt]|\\b)((?:" + alt + ")[A-Za-z0-9_.-]*)(\\\\r\\\\n|\\\\n|\\r?\\n)[A-Za-z0-9_.-]"


def break_len(buf: bytes, i: int, hi: int) -> int:
    """The length of the line break at i (`\\n`, `\\r\\n`, or their JSON escapes), 0 if none."""
    if i >= hi:
        return 0
    b = buf[i]
    if b == 0x0A:
        n = 1
    elif b == 0x0D:
        n = 2 if buf.startswith(b"\r\n", i) else 0
    elif b == 0x5C:
        n = 2 if buf.startswith(b"\\n", i) else 4 if buf.startswith(b"\\r\\n", i) else 0
    else:
        n = 0
    return n if i + n <= hi else 0


def run_end(buf: bytes, i: int, hi: int) -> int:
    while i < hi and WRAP_RUN_BYTE[buf[i]]:
        i += 1
    return i


def display_width(text: bytes, escaped: bool) -> int:
    """Characters text shows as (a JSON string's escape as one)."""
    if escaped and b"\\" in text:
        text = _JSON_ESCAPE.sub(b"?", text)
    return len(text.decode("utf-8", "replace"))


def head_line_width(buf: bytes, lo: int, s: int, e: int, escaped: bool) -> int:
    """Width of the line that ends at e and holds s: from the last break before s (or a JSON
    string's opening quote, in the escaped form) to e."""
    if not escaped:
        return display_width(buf[max(lo, buf.rfind(b"\n", lo, s) + 1):e], False)
    nl = buf.rfind(b"\\n", lo, s)
    start = lo if nl < 0 else nl + 2
    q = buf.rfind(b'"', start, s)
    while q > start and buf[q - 1] == 0x5C:  # an escaped quote is text
        q = buf.rfind(b'"', start, q)
    if q >= start and (q == lo or buf[q - 1] != 0x5C):
        start = q + 1
    return display_width(buf[start:e], True)


def unwrapped(value: bytes) -> bytes:
    """A continued token without its line breaks (no token character is a break or a backslash)."""
    for brk in (b"\\r", b"\\n", b"\r", b"\n"):
        value = value.replace(brk, b"")
    return value


def joined_offset(pieces: list[tuple[int, int]], k: int) -> int:
    """Offset k of the pieces joined, in the buffer they were cut from (a piece's end at a seam)."""
    for a, b in pieces:
        if k <= b - a:
            return a + k
        k -= b - a
    return pieces[-1][1]
