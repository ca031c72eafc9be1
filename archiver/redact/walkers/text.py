"""Text files, streamed in chunks cut at newlines; PEM blocks are never split.

A chunk ends at its last newline. If an unterminated `-----BEGIN` remains in it,
the chunk is cut before that line and the rest waits for more data (up to
`pem_cap` bytes), so a multi-line private key is always matched whole. A chunk that is not
UTF-8 (Latin-1, CP1252 text) is matched as it is and again read as Latin-1
(`redact_any_encoding`); its non-ASCII bytes come back untouched.
"""

from __future__ import annotations

from typing import BinaryIO, Callable

CHUNK = 1 << 20
PEM_CAP = 1 << 16
# A line longer than this is cut at the last separator byte instead of waiting for a newline.
MAX_CARRY = 16 << 20
# a cut inside a line is checked against this much text on each side of it (_settle_cut)
_SETTLE_WINDOW = 4096
_SEPARATORS = (b" ", b"\t", b",", b";", b'"', b"'", b">", b")", b"}", b"]")


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


def redact_stream(src: BinaryIO, dst: BinaryIO, redact: Callable[[bytes], bytes], chunk: int | None = None,
                  max_carry: int = MAX_CARRY) -> None:
    chunk = chunk or CHUNK
    carry = b""
    while True:
        data = src.read(chunk)
        final = not data
        buf = carry + data if carry else data
        if not buf:
            return
        cut = _cut(buf, final, max_carry)
        if cut and not final and buf[cut - 1 : cut] != b"\n":
            cut = _settle_cut(buf, cut, redact)
        if cut:
            dst.write(redact_any_encoding(buf[:cut], redact))
        carry = buf[cut:]
        if final:
            if carry:
                dst.write(redact_any_encoding(carry, redact))
            return
