"""Line-number prefixes of a numbered file read (Claude's `N→`, `cat -n`), blanked so a file's
content is scanned as in the file itself."""

from __future__ import annotations

import re2

from archiver.redact.re2scan import first_span, iter_spans


# Claude Code's Read results number every line (`     2→MIIEow...`): the number and arrow at a line's
# start (also after a JSON `\n` escape, the arrow also as `\u2192`) are scanned as spaces, so a private
# key, a table or a config block read from a file is found as in the file itself.
_NUMBERED_LINE = re2.compile("(?m)(?:^|\\\\n)([ \\t]*[0-9]{1,9}(?:\u2192|\\\\u2192))".encode())._regexp  # noqa: SLF001
# `cat -n` (and `nl`): the number right-aligned in six columns (wider past 999999), then a tab (also
# as a JSON `\t` escape, the first line then right after the string's opening quote). `git shortlog -s` prints its counts the same way, and its rule needs them, so
# these are blanked only in a block of numbered lines (blank lines between them allowed: `cat -b`)
# that counts up by one from its first line to its last, and is 3+ lines long or starts at 1.
_CAT_NUMBERED = re2.compile(rb"(?m)(?:^|\\n|\")( {5}[1-9]| {4}[1-9][0-9]| {3}[1-9][0-9]{2}|  [1-9][0-9]{3}"
                            rb"| [1-9][0-9]{4}|[1-9][0-9]{5,8})(?:\t|\\t)")._regexp  # noqa: SLF001
# what either holds: one pass over every text (four `in` tests cost twice as much)
_NUMBER_MARKS = re2.compile("\u2192|\\\\u2192|\t|\\\\t".encode())._regexp  # noqa: SLF001


def _next_line(buf: bytes, prev: int, s: int) -> bool:
    """Is the line starting at s the one after the line holding prev, blank lines between allowed?"""
    if s > 0 and buf[s - 1] == 0x0A:
        k = buf.find(b"\n", prev, s)
        return k >= 0 and not buf[k + 1:s].strip()
    k = buf.find(b"\\n", prev, s)  # a JSON string's escaped lines
    return k >= 0 and not buf[k + 2:s].replace(b"\\n", b"").replace(b"\\r", b"").strip()


def _cat_numbers(buf: bytes) -> list[tuple[int, int]]:
    """Spans of the `cat -n` prefixes (number and tab) of buf's counting blocks of numbered lines."""
    out: list[tuple[int, int]] = []
    block: list[tuple[int, int, int]] = []  # (start, end, number) of each line's prefix
    for spans in [*iter_spans(_CAT_NUMBERED, buf), None]:
        if spans is not None:
            s, e = spans[1][0], spans[0][1]
            num = int(buf[s:spans[1][1]])
            if block and _next_line(buf, block[-1][1], s):
                block.append((s, e, num))
                continue
        if (len(block) >= 3 or (len(block) == 2 and block[0][2] == 1)) and all(
                b[2] == a[2] + 1 for a, b in zip(block, block[1:])):
            out.extend((a, b) for a, b, _ in block)
        if spans is not None:
            block = [(s, e, num)]
    return out


def blank_line_numbers(buf: bytes) -> bytes:
    """buf with the line-number prefixes of a numbered file read (Claude's `N→`, `cat -n`'s `N<tab>`)
    turned into as many spaces."""
    if first_span(_NUMBER_MARKS, buf)[0] < 0:
        return buf
    found = _cat_numbers(buf)
    if b"\xe2\x86\x92" in buf or b"\\u2192" in buf:
        found.extend(spans[1] for spans in iter_spans(_NUMBERED_LINE, buf))
        found.sort()
    if not found:
        return buf
    pieces: list[bytes] = []
    last = 0
    for s, e in found:
        if s < last:
            continue
        pieces.append(buf[last:s])
        pieces.append(b" " * (e - s))
        last = e
    pieces.append(buf[last:])
    return b"".join(pieces)


def has_line_numbers(buf: bytes) -> bool:
    """Might blank_line_numbers change buf, or a string that buf joins with newlines?"""
    if first_span(_NUMBER_MARKS, buf)[0] < 0:
        return False
    return b"\xe2\x86\x92" in buf or b"\\u2192" in buf or bool(_cat_numbers(buf))
