"""Text files, streamed in chunks cut at newlines; PEM blocks are never split.

A chunk ends at its last newline. If an unterminated `-----BEGIN` remains in it,
the chunk is cut before that line and the rest waits for more data (up to
`pem_cap` bytes), so a multi-line private key is always matched whole. Bytes are
matched as they are: invalid UTF-8 passes through untouched.
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
            dst.write(redact(buf[:cut]))
        carry = buf[cut:]
        if final:
            if carry:
                dst.write(redact(carry))
            return
