"""Terminal escape sequences in scanned text: blanked to spaces (offsets kept), and the colour
codes glued inside one displayed token deleted for a second scan (the text as a terminal shows it)."""

from __future__ import annotations

from bisect import bisect_right
from typing import NamedTuple

import re2

from archiver.redact.re2scan import UNANCHORED, first_span


# Terminal escape sequences: CSI (colours, cursor moves), a two-byte one, and the opening and
# closing of OSC (titles, hyperlinks: their text stays and is scanned). grep --color and PTY
# captures put them right before a token.
# RE2, not re: the alternatives share no first byte, so re tries each at every position (7 ms/MB)
_ANSI_RX = re2.compile(rb"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][0-9]*;?|\x1b\\\\|\x07|\x1b[@-Z\\-_]"
                       # the same CSI spelled as text: a JSONL log read back, `cat -v`, a repr, a script
                       rb"|(?:\\u001[bB]|\\x1[bB]|\\033|\\e|\^\[)\[[0-?]*[ -/]*[@-~]")._regexp  # noqa: SLF001
# one search for the textual introducers (five `in` tests cost more on text full of backslashes)
ANSI_TEXT = re2.compile(rb"\\(?:u001[bB]|x1[bB]|033|e)\[|\^\[\[")._regexp  # noqa: SLF001


def blank_ansi(buf: bytes, text_forms: bool = True) -> bytes:
    """buf with every terminal escape sequence turned into as many spaces: offsets stay, and
    a token right after a colour code (`\\x1b[31mghp_...`) starts at a word boundary. With
    `text_forms`, also the sequences spelled as text (`\\u001b[31m`, `^[[31m`)."""
    return blank_with_runs(buf, text_forms)[0]


# A CSI sequence (a colour code) between two token characters splits one displayed word in two:
# `grep --color` highlights only the matched part of a token (`ghp_\x1b[m\x1b[K<body>`). The
# terminal shows both sides side by side, so such a run of codes is deleted for a second scan (the
# text as displayed, the text the command prints without colour). Token characters: what keys and
# their prefixes, base64, e-mails, URLs with credentials (`user:pass@`), paths and percent escapes
# are made of, and every non-ASCII byte (names, IDN domains). Blanked sequences, whitespace, quotes
# and brackets end a token anyway: a code next to them joins nothing.
_TOKEN_BYTE = bytes(1 if b >= 0x80 or chr(b).isalnum() or b in b"_-+/=.@:%" else 0 for b in range(256))


def blank_with_runs(buf: bytes, text_forms: bool) -> tuple[bytes, list[tuple[int, int]]]:
    """blank_ansi(buf, text_forms), and the runs of adjacent CSI sequences of buf that lie between
    two token characters (found in the same pass: texts of colour codes hold hundreds of thousands)."""
    if b"\x1b" not in buf and not (text_forms and first_span(ANSI_TEXT, buf)[0] >= 0):
        return buf, _NO_RUNS
    pieces: list[bytes] = []
    runs: list[tuple[int, int]] = []
    tok = _TOKEN_BYTE
    match = _ANSI_RX.Match  # type: ignore[attr-defined]
    n = len(buf)
    last = 0
    run = -1  # start of the open run: CSI sequences, adjacent, right after a token character
    while last < n:
        s, e = match(UNANCHORED, buf, last, n)[0]
        if s < 0:
            break
        if s != last:  # characters before s: the open run ends before one
            pieces.append(buf[last:s])
            if run >= 0 and tok[buf[last]]:
                runs.append((run, last))
            run = s if tok[buf[s - 1]] and _is_csi(buf, s) else -1
        elif run >= 0 and not _is_csi(buf, s):
            run = -1  # another kind of sequence right after the run: no character follows it
        pieces.append(b" " * (e - s))
        last = e
    if not pieces:
        return buf, _NO_RUNS
    if run >= 0 and last < n and tok[buf[last]]:
        runs.append((run, last))
    pieces.append(buf[last:])
    return b"".join(pieces), runs


_NO_RUNS: list[tuple[int, int]] = []


def _is_csi(buf: bytes, s: int) -> bool:
    """Is the escape sequence at s (a match of _ANSI_RX) a CSI?"""
    if buf[s] == 0x1B:
        return buf[s + 1] == 0x5B
    return buf[s] != 0x07  # a text form (`\u001b[`, `^[[`): only CSI is spelled as text


def _cut(buf: bytes, runs: list[tuple[int, int]]) -> bytes:
    pieces = []
    last = 0
    for s, e in runs:
        pieces.append(buf[last:s])
        last = e
    pieces.append(buf[last:])
    return b"".join(pieces)


class GluedView(NamedTuple):
    """A text as displayed: blank_ansi's text with the glued CSI runs deleted, and where they were."""

    text: bytes
    cuts: list[int]  # positions in text where a run was deleted, ascending
    shifts: list[int]  # bytes deleted up to each cut, that cut's run included

    def crosses(self, s: int, e: int) -> bool:
        """Does [s, e) of text hold a deleted run strictly inside (a token the blanked scan split)?"""
        k = bisect_right(self.cuts, s)
        return k < len(self.cuts) and self.cuts[k] < e

    def original(self, s: int, e: int) -> tuple[int, int]:
        """[s, e) of text in the original buffer: from its first to its last character, the runs
        between them included."""
        cuts, shifts = self.cuts, self.shifts
        k = bisect_right(cuts, s)
        j = bisect_right(cuts, e - 1)
        return s + (shifts[k - 1] if k else 0), e + (shifts[j - 1] if j else 0)


def glued_view(blanked: bytes, runs: list[tuple[int, int]]) -> GluedView:
    """The text as displayed: blanked (blank_ansi's text) with the glued runs (blank_with_runs's) deleted."""
    cuts: list[int] = []
    shifts: list[int] = []
    removed = 0
    for s, e in runs:
        cuts.append(s - removed)
        removed += e - s
        shifts.append(removed)
    return GluedView(_cut(blanked, runs), cuts, shifts)


def without_glued_codes(value: bytes) -> bytes:
    """value with its colour codes between token characters deleted: a token found across them
    is keyed (its pseudonym) as the same token without colour."""
    runs = blank_with_runs(value, True)[1]
    return _cut(value, runs) if runs else value
