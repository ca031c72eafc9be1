"""Text files, streamed in chunks cut at newlines; PEM blocks and secret tables are never split.

A chunk ends at its last newline. If an unterminated `-----BEGIN` remains in it,
the chunk is cut before that line and the rest waits for more data (up to
`pem_cap` bytes), so a multi-line private key is always matched whole. A chunk that
would end inside a text table with a secret column (or right after its header) ends
before the table; a table longer than a chunk has its head read again with the next
chunk (`_table_cut`, `_redact_part`), so its rows are cells under their columns. A chunk that is not
UTF-8 (Latin-1, CP1252 text) is matched as it is and again read as Latin-1
(`redact_any_encoding`); its non-ASCII bytes come back untouched.
"""

from __future__ import annotations

import re
from typing import BinaryIO, Callable

from archiver.redact import tables

CHUNK = 1 << 20
PEM_CAP = 1 << 16
# A line longer than this is cut at the last separator byte instead of waiting for a newline.
MAX_CARRY = 16 << 20
# The head of a table (its header and separator lines) carried over to the next chunk is at most this
# long; a chunk that ends inside a table starting in it is cut before the table instead
TABLE_HEAD_CAP = 64 << 10
# A psql one-column result with a secret name is a table only once its `(N rows)` footer comes: text
# from its head on is held (not redacted) until then, up to this many bytes
ONE_COLUMN_CAP = 2 << 20
# a cut inside a line is checked against this much text on each side of it (_settle_cut)
_SETTLE_WINDOW = 4096
_SEPARATORS = (b" ", b"\t", b",", b";", b'"', b"'", b">", b")", b"}", b"]")
# A .netrc entry still open at the end of a chunk (`machine HOST` / `login USER` lines, its password
# line still to come): the rules need them and the password line in one piece of text
_NETRC_OPEN = re.compile(rb"[+-]?[ \t]*(?:(?:machine[ \t]+\S+|default)(?:[ \t]+(?:login|account|port)[ \t]+\S+)*"
                         rb"|(?:login|account|port)[ \t]+\S+)[ \t]*\r?", re.I)


def _cut(buf: bytes, final: bool, max_carry: int = MAX_CARRY) -> int:
    """How much of buf can be redacted now (the rest is carried to the next chunk)."""
    if final:
        return len(buf)
    cut = buf.rfind(b"\n") + 1
    if cut == 0:
        if len(buf) < max_carry:
            return 0
        # the last _SETTLE_WINDOW bytes stay for the next piece: _settle_cut sees what follows
        limit = len(buf) - _SETTLE_WINDOW if len(buf) > 2 * _SETTLE_WINDOW else len(buf)
        return max(buf.rfind(s, 0, limit) for s in _SEPARATORS) + 1 or len(buf)
    begin = buf.rfind(b"-----BEGIN", 0, cut)
    if begin != -1 and buf.find(b"-----END", begin, cut) == -1 and len(buf) - begin < PEM_CAP:
        cut = buf.rfind(b"\n", 0, begin) + 1
    return cut


def _settle_cut(buf: bytes, cut: int, redact: Callable[[bytes], bytes]) -> int:
    """A cut inside a line (no newline within max_carry) may part a rule's context from its value
    (`aws_secret_access_key= <secret>` cut at the space): redact a window around the cut, and
    when what it replaced reaches across the cut, cut after it instead."""
    for _ in range(8):
        lo = max(0, cut - _SETTLE_WINDOW)
        window = buf[lo : cut + _SETTLE_WINDOW]
        out = redact(window)
        if out is window or out == window:
            return cut
        head = _common_prefix(out, window)
        tail = _common_prefix(out[::-1], window[::-1])
        start, end = lo + head, lo + max(len(window) - tail, head)
        if not start <= cut < end:  # a value starting right at the cut lost its name too
            return cut
        if end >= len(buf):
            return cut
        cut = end
    return cut


def _common_prefix(a: bytes, b: bytes) -> int:
    n = min(len(a), len(b))
    lo, hi = 0, n
    while lo < hi:  # bisect on slice equality: C-speed compares, log(n) of them
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def redact_any_encoding(buf: bytes, redact: Callable[[bytes], bytes]) -> bytes:
    """redact(buf); bytes that are not UTF-8 get a second pass read as Latin-1 (transcoded to
    UTF-8 and back): ASCII secrets match either way, non-ASCII ones (accented names) only so.
    Replacements are ASCII, so every byte outside a match comes back as it was."""
    if buf.isascii():
        return redact(buf)
    try:
        buf.decode("utf-8")
    except UnicodeDecodeError:
        pass
    else:
        return redact(buf)
    out = redact(buf)
    wide = out.decode("latin-1").encode("utf-8")
    again = redact(wide)
    if again is wide or again == wide:
        return out
    try:
        return again.decode("utf-8").encode("latin-1")
    except UnicodeError:  # a replacement that Latin-1 cannot hold, or a cut character
        return out


def _table_cut(buf: bytes, cut: int, head: bytes) -> tuple[int, bytes]:
    """A chunk ending at `cut` (a newline) must not part a table with a secret column from its
    head (the engine's table pass finds a column by its header): the chunk is cut before the
    table's head when the table starts in it, or (a table longer than a chunk) that head is
    returned, to be read with the next chunk. A psql one-column result is a table only once its
    `(N rows)` footer comes: all of it waits (up to ONE_COLUMN_CAP bytes) until the footer or the end
    of the text does. (cut, head for the next chunk)."""
    part = buf[:cut]
    # a header among the chunk's last three lines (under it: duckdb's row of types, a separator; a
    # psql one-column result is a table only with its footer): the table waits for the next chunk
    start = ls = cut
    for _ in range(3):
        if ls <= 0:
            break
        prev = part.rfind(b"\n", 0, ls - 1) + 1
        if tables.names_secret_column(part[prev:ls]):
            start = prev
        ls = prev
    if start < cut:  # (0: the chunk is nothing but that header: it waits for the rest)
        return start, b""
    found = tables.open_table(part, head)
    if found is None:
        return cut, b""
    hs, he = found
    if hs - len(head) > 0:  # the table starts in this chunk: all of it goes to the next one
        return hs - len(head), b""
    if not head and hs == 0 and tables.one_column_head(part[:he]) and len(buf) < ONE_COLUMN_CAP:
        return 0, b""  # a one-column result still without its footer: read on
    if he - hs > TABLE_HEAD_CAP:
        return cut, b""
    return cut, (head + part)[hs:he]


def _netrc_cut(buf: bytes, cut: int) -> int:
    """A chunk ending at `cut` (a newline) ends before a .netrc entry that its last three lines
    open (`machine h` / `login u`, the `password` line not yet there): the entry goes whole to the
    next chunk (0: the chunk is nothing but that, it waits for more)."""
    start = ls = cut
    for _ in range(3):
        if ls <= 0:
            break
        prev = buf.rfind(b"\n", 0, ls - 1) + 1
        if _NETRC_OPEN.fullmatch(buf, prev, ls - 1) is None:
            break
        start = prev
        ls = prev
    return start


def _redact_part(part: bytes, head: bytes, redact: Callable[[bytes], bytes]) -> bytes:
    """redact(part), read after the head of the table it goes on with (when it has one): the rows
    at its start are cells under that head's columns. The head itself was redacted with the chunk
    it came in: when redacting it again would change it, part is redacted alone."""
    if not head:
        return redact_any_encoding(part, redact)
    out = redact_any_encoding(head + part, redact)
    if out.startswith(head):
        return out[len(head):]
    return redact_any_encoding(part, redact)


def redact_stream(src: BinaryIO, dst: BinaryIO, redact: Callable[[bytes], bytes], chunk: int | None = None,
                  max_carry: int = MAX_CARRY) -> None:
    chunk = chunk or CHUNK
    carry = b""
    head = b""  # the head of the table with a secret column that the last chunk ended in
    # One read ahead: the last piece of data is known as the last when it comes, so a text whose
    # last line has no newline is redacted whole (its last line was once redacted alone: a
    # .netrc's `password hunter` parted from its `machine` and `login` lines).
    ahead = src.read(chunk)
    while True:
        data = ahead
        ahead = src.read(chunk) if data else b""
        final = not ahead
        buf = carry + data if carry else data
        if not buf:
            return
        cut = _cut(buf, final, max_carry)
        next_head = b""
        if cut and not final and buf[cut - 1 : cut] != b"\n":
            cut = _settle_cut(buf, cut, redact)
        elif cut and not final:
            cut, next_head = _table_cut(buf, _netrc_cut(buf, cut), head)
        if cut:
            dst.write(_redact_part(buf[:cut], head, redact))
            head = next_head
        carry = buf[cut:]
        if final:
            if carry:
                dst.write(_redact_part(carry, head, redact))
            return
