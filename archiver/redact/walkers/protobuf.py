"""Protobuf wire format: find the strings inside, redact them, rewrite the lengths.

Fields are varint (0), 64-bit (1), length-delimited (2) or 32-bit (5); groups
(3, 4) and wire types 6, 7 make a buffer "not a message". A length-delimited
value is
  * redacted as text when it is UTF-8 with no control character but tab/CR/LF,
  * else recursed into when it parses as a nested message,
  * else redacted as text when it is UTF-8 and mostly printable (ANSI escapes...),
  * else left alone (bytes, packed numbers, hashes).
Unchanged fields keep their original bytes (non-canonical varints included), so
a message without matches comes back identical. Malformed input is never an
error: `redact_message` returns None and the caller keeps the bytes.
"""

from __future__ import annotations

from typing import Callable

MAX_DEPTH = 32
_CTRL = bytes(b for b in range(32) if b not in (9, 10, 13)) + b"\x7f"

LeafFn = Callable[[bytes], bytes]


def _varint(buf: bytes, i: int, n: int) -> tuple[int, int] | None:
    shift = 0
    value = 0
    while i < n:
        b = buf[i]
        i += 1
        value |= (b & 0x7F) << shift
        if not b & 0x80:
            return value, i
        shift += 7
        if shift > 63:
            return None
    return None


def _encode_varint(value: int) -> bytes:
    out = bytearray()
    while True:
        b = value & 0x7F
        value >>= 7
        if value:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def parse(buf: bytes) -> list[tuple[int, int, int, int, int]] | None:
    """Fields as (start, end of tag, start of value, end, wire type), or None if not a message."""
    fields: list[tuple[int, int, int, int, int]] = []
    i, n = 0, len(buf)
    while i < n:
        start = i
        tag = _varint(buf, i, n)
        if tag is None:
            return None
        key, i = tag
        field_no, wire = key >> 3, key & 7
        if field_no == 0 or field_no > 0x1FFFFFFF:
            return None
        vstart = i
        if wire == 0:
            v = _varint(buf, i, n)
            if v is None:
                return None
            end = v[1]
        elif wire == 1:
            end = i + 8
        elif wire == 5:
            end = i + 4
        elif wire == 2:
            v = _varint(buf, i, n)
            if v is None:
                return None
            length, vstart = v
            end = vstart + length
        else:
            return None  # groups and invalid wire types
        if end > n:
            return None
        fields.append((start, i, vstart, end, wire))
        i = end
    return fields


def is_text(data: bytes, strict: bool = True) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    ctrl = len(data) - len(data.translate(None, _CTRL))
    return ctrl == 0 if strict else ctrl * 100 <= len(data)


def redact_message(buf: bytes, leaf: LeafFn, depth: int = 0) -> bytes | None:
    """The message with its strings redacted (the same object if unchanged); None if not a message."""
    if depth > MAX_DEPTH:
        return None
    fields = parse(buf)
    if not fields:
        return None
    out: list[bytes] = []
    changed = False
    for start, tag_end, vstart, end, wire in fields:
        if wire == 2:
            value = buf[vstart:end]
            new = redact_value(value, leaf, depth + 1)
            if new is not value and new != value:
                changed = True
                out.append(buf[start:tag_end] + _encode_varint(len(new)) + new)
                continue
        out.append(buf[start:end])
    return b"".join(out) if changed else buf


def redact_value(value: bytes, leaf: LeafFn, depth: int) -> bytes:
    """One length-delimited payload: text, nested message, or opaque bytes."""
    if not value:
        return value
    if is_text(value, strict=True):
        return leaf(value)
    nested = redact_message(value, leaf, depth)
    if nested is not None:
        return nested
    if is_text(value, strict=False):
        return leaf(value)
    return value


def looks_like_message(buf: bytes) -> bool:
    """A first byte that is a plausible tag (field 1-15, wire type 0, 1, 2 or 5)."""
    if not buf:
        return False
    b = buf[0]
    return b < 0x80 and (b >> 3) >= 1 and (b & 7) in (0, 1, 2, 5)
