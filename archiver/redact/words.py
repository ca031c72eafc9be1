"""Where a word starts and ends in UTF-8 bytes: boundaries of literal terms (usernames, extra
terms), identifiers in code, and keywords that count only as words."""

from __future__ import annotations


_ASCII_ALNUM = bytes(1 if chr(b).isalnum() else 0 for b in range(128))
_IDENT = bytes(1 if b < 0x80 and (chr(b).isalnum() or b == 0x5F) else 0 for b in range(256))  # [A-Za-z0-9_]


def _alnum_at(buf: bytes, i: int) -> bool:
    """Is the (possibly multi-byte) character starting at byte i a letter or digit?"""
    b = buf[i]
    if b < 0x80:
        return bool(_ASCII_ALNUM[b])
    return buf[i:i + 4].decode("utf-8", "ignore")[:1].isalnum()


def _alnum_ending_at(buf: bytes, i: int) -> bool:
    """Is the character whose last byte is at i a letter or digit?"""
    b = buf[i]
    if b < 0x80:
        return bool(_ASCII_ALNUM[b])
    start = i
    while start > 0 and i - start < 3 and (buf[start] & 0xC0) == 0x80:
        start -= 1
    return buf[start:i + 1].decode("utf-8", "ignore")[-1:].isalnum()


_HEX_DIGITS = frozenset(b"0123456789abcdefABCDEF")


def escaped_separator_before(buf: bytes, p: int) -> bool:
    """Does buf[:p] end with an ASCII character that is no letter or digit written as an escape:
    percent-encoded (`%2F`, `%20`, `%3D` of a URL or a query) or a JSON `\\u0040` in JSON held as
    text? Its last hex digit is a letter or digit, yet the term after it starts a word."""
    if p >= 3 and buf[p - 3] == 0x25 and buf[p - 2] in _HEX_DIGITS and buf[p - 1] in _HEX_DIGITS:
        c = int(buf[p - 2:p], 16)
        return c < 0x80 and not _ASCII_ALNUM[c]
    if p >= 6 and buf[p - 6] == 0x5C and buf[p - 5] == 0x75 and all(b in _HEX_DIGITS for b in buf[p - 4:p]):
        c = int(buf[p - 4:p], 16)
        return c < 0x80 and not _ASCII_ALNUM[c]
    return False


def in_identifier(buf: bytes, s: int, e: int) -> bool:
    """Is the word buf[s:e] (its digits included) part of a code identifier: joined by `_` to
    identifier characters (`max_tokens`, `use_max`), an attribute (`Math.max`, `self.will`; not
    inside a dotted name, `www.alice.dev`), or called (`max(`)?"""
    n = len(buf)
    if e < n:
        b = buf[e]
        if b == 0x28:  # (
            return True
        if b == 0x5F and e + 1 < n and _IDENT[buf[e + 1]]:
            return True
    if s >= 2:
        b = buf[s - 1]
        if b == 0x5F:
            return bool(_IDENT[buf[s - 2]])
        if b == 0x2E and (_IDENT[buf[s - 2]] or buf[s - 2] in b")]"):
            return not (e + 1 < n and buf[e] == 0x2E and _IDENT[buf[e + 1]])
    return False


def term_spans(terms: tuple[bytes, ...], buf: bytes, low: bytes, digits_after: bool = False,
               word_only: bool = False) -> list[tuple[int, int]]:
    """Occurrences of literal terms (case-insensitive, ASCII) bounded by non-alphanumerics (a
    JSON escape `\\n` before one is a boundary too); with `digits_after`, digits may follow a
    term (`alice2024`: the term alone is the span); with `word_only`, not inside an identifier."""
    out = []
    n = len(buf)
    find = low.find
    table = _ASCII_ALNUM
    for t in terms:
        k = len(t)
        p = find(t)
        while p != -1:
            e = p + k
            if p:
                b = buf[p - 1]
                before = table[b] if b < 0x80 else _alnum_ending_at(buf, p - 1)
                if before and b in b"nrt" and p >= 2 and buf[p - 2] == 0x5C:  # `\nalice` in JSON text
                    before = False
                elif before and b in _HEX_DIGITS and escaped_separator_before(buf, p):  # `%2Falice`
                    before = False
            else:
                before = False
            if not before:
                j = e
                if digits_after:
                    while j < n and 0x30 <= buf[j] <= 0x39:
                        j += 1
                if j < n:
                    b = buf[j]
                    after = table[b] if b < 0x80 else _alnum_at(buf, j)
                else:
                    after = False
                if not after and not (word_only and in_identifier(buf, p, j)):
                    out.append((p, e))
                    p = find(t, e)
                    continue
            p = find(t, p + 1)
    if len(terms) > 1:
        out.sort()
    return out


def _letter_at(buf: bytes, i: int) -> bool:
    b = buf[i]
    if b < 0x80:
        return 0x41 <= b <= 0x5A or 0x61 <= b <= 0x7A
    return buf[i:i + 4].decode("utf-8", "ignore")[:1].isalpha()


def _letter_ending_at(buf: bytes, i: int) -> bool:
    b = buf[i]
    if b < 0x80:
        return 0x41 <= b <= 0x5A or 0x61 <= b <= 0x7A
    start = i
    while start > 0 and i - start < 3 and (buf[start] & 0xC0) == 0x80:
        start -= 1
    return buf[start:i + 1].decode("utf-8", "ignore")[-1:].isalpha()


def _is_upper(b: int) -> bool:
    return 0x41 <= b <= 0x5A


def _is_lower(b: int) -> bool:
    return 0x61 <= b <= 0x7A


def _one_case(word: bytes) -> bool:
    """Is the word written as words are: all lower case, all capitals (a plural `DNIs` too), or a
    capital then lower case?"""
    return (word.islower() or word.isupper() or word.istitle() or not any(map(_is_upper, word))
            or word.endswith(b"s") and word[:-1].isupper())


def _word_at(part: bytes, p: int, e: int) -> bool:
    """Is part[p:e] (a keyword found there) a word of its own, as word_in says?"""
    if not _one_case(part[p:e]):
        return False
    before = p > 0 and _letter_ending_at(part, p - 1)
    if before and (part[p - 1] in b"nrt" and p >= 2 and part[p - 2] == 0x5C
                   or _is_lower(part[p - 1]) and _is_upper(part[p])):
        before = False
    after = e < len(part) and _letter_at(part, e)
    if after and _is_upper(part[e]) and _is_lower(part[e - 1]):
        after = False
    return not before and not after


def word_in(part: bytes, low: bytes, k: bytes) -> bool:
    """Does the (ASCII, lower-case) keyword k occur in part as a word of its own: no letter right
    before or after it (`NIE:`, `"nie"`, `nie_number`, `dni2`, a JSON `\\n` before it), or at a
    camelCase edge (`customerNie`, `dniNumber`); never inside a word (`companies`, `unified`), nor
    in letters of mixed case (`CpR`, `tFn`), which no one writes a word in: a piece of a random id
    (`in_1Q264zEJlbRAXNOX9WB41CpR`). `low` is part.lower()."""
    n = len(k)
    p = low.find(k)
    while p >= 0:
        if _word_at(part, p, p + n):
            return True
        p = low.find(k, p + 1)
    return False


def word_starts_in(part: bytes, k: bytes, a: int, b: int) -> bool:
    """Does the keyword k occur as a word of part (word_in's sense) starting in part[a:b]? The
    letters around it are read in part itself, so a cut at a or b makes no word of a piece."""
    n = len(k)
    low = part[a:b + n - 1].lower()
    p = low.find(k)
    while p >= 0:
        if _word_at(part, a + p, a + p + n):
            return True
        p = low.find(k, p + 1)
    return False
