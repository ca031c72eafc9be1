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
_SEPARATORS = (b" ", b"\t", b",", b";", b'"', b"'", b">", b")", b"}", b"]")


def _cut(buf: bytes, final: bool, max_carry: int = MAX_CARRY) -> int:
    """How much of buf can be redacted now (the rest is carried to the next chunk)."""
    if final:
        return len(buf)
    cut = buf.rfind(b"\n") + 1
    if cut == 0:
        if len(buf) < max_carry:
            return 0
        return max(buf.rfind(s) for s in _SEPARATORS) + 1 or len(buf)
    begin = buf.rfind(b"-----BEGIN", 0, cut)
    if begin != -1 and buf.find(b"-----END", begin, cut) == -1 and len(buf) - begin < PEM_CAP:
        cut = buf.rfind(b"\n", 0, begin) + 1
    return cut


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
        if cut:
            dst.write(redact_any_encoding(buf[:cut], redact))
        carry = buf[cut:]
        if final:
            if carry:
                dst.write(redact_any_encoding(carry, redact))
            return
