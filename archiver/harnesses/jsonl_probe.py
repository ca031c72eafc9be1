"""Bounded reads of JSONL files for collectors: a line scanner that never holds more than
one capped line, and on top of it the first records, the tail records and a streaming
search for one record type. Files are opened with common.open_file (no symlink followed, no
FIFO blocked on)."""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Iterator

import orjson

from archiver.harnesses.common import open_file

MAX_PROBE_LINE = 4 * 1024 * 1024
_BLOCK = 1024 * 1024
_PROBE_BLOCK = 64 * 1024  # probes read a few lines: smaller reads
_EDGE = 64  # bytes kept of each end of an oversized line


# ---------------------------------------------------------------- the line scanner


@dataclass
class Line:
    """One line of a stream, as `scan_lines` yields it."""

    no: int  # 1-based line number
    data: bytes | None  # the line without its newline; None when longer than the cap
    terminated: bool  # False only for a final line without a newline (torn or still being written)
    head: bytes = b""  # first bytes of an oversized line
    tail: bytes = b""  # last bytes of an oversized line
    size: int = 0  # length of the line without its newline, also for an oversized line
    digest: bytes = b""  # blake2b-128 of the line without its newline (scan_lines(digest=True))
    found: set[bytes] = field(default_factory=set)  # needle group(1) matches inside an oversized line


def scan_lines(
    f: IO[bytes],
    cap: int,
    *,
    digest: bool = False,
    needle: re.Pattern[bytes] | None = None,
    overlap: int = 4096,
    block: int = _BLOCK,
) -> Iterator[Line]:
    """Lines of a binary stream, read `block` bytes at a time from its current position,
    holding at most `cap` bytes (plus one block) of one line in memory.

    A longer line is yielded with data None, its first and last bytes and, when `needle` is
    given, the group(1) of every match of `needle` inside it (searched block by block with
    `overlap` bytes carried over; a longer match may be missed). With `digest`, each line's
    blake2b-128 is computed incrementally, oversized lines included.
    """
    buf = bytearray()
    long_line = False
    head = tail = carry = b""
    found: set[bytes] = set()
    size = 0
    h = hashlib.blake2b(digest_size=16) if digest else None
    no = 0
    while True:
        chunk = f.read(block)
        if not chunk:
            break
        start = 0
        while True:
            nl = chunk.find(b"\n", start)
            piece = chunk[start : nl if nl >= 0 else len(chunk)]
            size += len(piece)
            if h is not None:
                h.update(piece)
            if long_line:
                tail = (tail + piece)[-_EDGE:]
                if needle is not None:
                    window = carry + piece
                    found.update(m.group(1) for m in needle.finditer(window))
                    carry = window[-overlap:]
            else:
                buf += piece
                if len(buf) > cap:
                    long_line, head, tail = True, bytes(buf[:_EDGE]), bytes(buf[-_EDGE:])
                    if needle is not None:
                        found.update(m.group(1) for m in needle.finditer(buf))
                        carry = bytes(buf[-overlap:])
                    buf = bytearray()
            if nl < 0:
                break
            no += 1
            yield Line(no, None if long_line else bytes(buf), True, head, tail, size, h.digest() if h else b"", found)
            buf, long_line, head, tail, carry, found, size = bytearray(), False, b"", b"", b"", set(), 0
            if h is not None:
                h = hashlib.blake2b(digest_size=16)
            start = nl + 1
    if buf or long_line:
        yield Line(no + 1, None if long_line else bytes(buf), False, head, tail, size, h.digest() if h else b"", found)


BOM = b"\xef\xbb\xbf"


def parse_line(line: Line) -> tuple[bool, Any]:
    """(looks valid, parsed value or None). A blank line is valid with no value; an
    oversized line is only shape-checked: it must start with `{` and end with `}`. A UTF-8
    byte order mark before the first line (an editor's or a Windows tool's) is no content."""
    if line.data is None:
        head = line.head[3:] if line.no == 1 and line.head.startswith(BOM) else line.head
        return head.lstrip().startswith(b"{") and line.tail.rstrip().endswith(b"}"), None
    data = line.data[3:] if line.no == 1 and line.data.startswith(BOM) else line.data
    if not data.strip():
        return True, None
    try:
        return True, orjson.loads(data)
    except orjson.JSONDecodeError:
        return False, None


def looks_like_json(line: Line) -> bool:
    """parse_line's shape check alone, for every line (`{` ... `}`, or blank): no JSON is built,
    so a whole transcript is checked at the speed of reading it."""
    if line.data is None:
        return parse_line(line)[0]
    data = line.data[3:] if line.no == 1 and line.data.startswith(BOM) else line.data
    data = data.strip()
    return not data or (data[:1] == b"{" and data[-1:] == b"}")


def unparseable_warning(name: str, bad: list[int]) -> str:
    """The session warning for unparseable lines `bad` (line numbers) of file `name`."""
    return (
        f"{name}: {len(bad)} unparseable line(s) kept as they are "
        f"(line{'s' if len(bad) > 1 else ''} {', '.join(map(str, bad[:10]))}{', ...' if len(bad) > 10 else ''})"
    )


# ---------------------------------------------------------------- probes


def _record(raw: bytes) -> dict[str, Any] | None:
    try:
        rec = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None
    return rec if isinstance(rec, dict) else None


def head_records(path: Path, max_records: int = 20, max_line: int = MAX_PROBE_LINE) -> list[dict[str, Any]]:
    """Parsed JSON objects among the first lines; unparsable or oversized lines are skipped.
    `max_line` counts the newline."""
    out: list[dict[str, Any]] = []
    with open_file(path) as f:
        for line in scan_lines(f, max_line - 1, block=_PROBE_BLOCK):
            if line.no > max_records:
                break
            if line.data is None or not line.terminated:
                continue
            rec = _record(line.data[3:] if line.no == 1 and line.data.startswith(BOM) else line.data)
            if rec is not None:
                out.append(rec)
    return out


_TAIL_BLOCK = 64 * 1024  # tail reads go back in these steps


def tail_records(path: Path, window: int = 256 * 1024, max_line: int = 256 * 1024,
                 max_scan: int = 64 * 1024 * 1024) -> list[dict[str, Any]]:
    """The records (in file order) of the last `window` bytes of lines no longer than
    `max_line`, reading back past longer ones without parsing them: metadata (titles) is
    re-appended to the tail, but the last lines may be multi-MB pasted images (seed container:
    "Lines can be several megabytes"), and a plain tail window then holds no record at all.
    Reads at most `max_scan` bytes; the last piece without its newline counts as a line."""
    lines: list[bytes] = []
    with open_file(path) as f:
        end = os.fstat(f.fileno()).st_size
        parts: list[bytes] = []  # the current line's pieces, right to left
        part_len, skipping, kept, scanned = 0, False, 0, 0
        while end > 0 and kept < window and scanned < max_scan:
            start = max(0, end - _TAIL_BLOCK)
            f.seek(start)
            block = f.read(end - start)
            scanned += len(block)
            stop = len(block)
            while kept < window:
                nl = block.rfind(b"\n", 0, stop)
                if not skipping:
                    parts.append(block[nl + 1:stop])
                    part_len += stop - nl - 1
                    if part_len > max_line:  # too long to be metadata: find its start only
                        parts, skipping = [], True
                if nl < 0:
                    break
                if not skipping:
                    line = b"".join(reversed(parts))
                    lines.append(line)
                    kept += len(line) + 1
                parts, part_len, skipping, stop = [], 0, False, nl
            end = start
        if end == 0 and parts and not skipping and kept < window:
            lines.append(b"".join(reversed(parts)))  # the file's first line
    out = []
    for raw in reversed(lines):
        if not raw.strip():
            continue
        rec = _record(raw)
        if rec is not None:
            out.append(rec)
    return out


def records_containing(path: Path, needle: bytes, max_line: int = MAX_PROBE_LINE) -> Iterator[dict[str, Any]]:
    """Records whose raw line contains `needle`, scanning the file block by block.

    The search is a plain bytes find per block, so most of a large file is never parsed.
    `max_line` counts the newline; longer lines are skipped.
    """
    keep = max(len(needle) - 1, 0)
    with open_file(path) as f:
        pos = 0  # file offset of the block about to be read
        line_start = 0  # file offset just after the last newline seen
        carry = b""
        while True:
            block = f.read(_BLOCK)
            if not block:
                return
            buf = carry + block
            buf_start = pos - len(carry)
            idx = buf.find(needle)
            if idx < 0:
                nl = block.rfind(b"\n")
                if nl >= 0:
                    line_start = pos + nl + 1
                carry = buf[-keep:] if keep else b""
                pos += len(block)
                continue
            nl = buf.rfind(b"\n", 0, idx)
            start = buf_start + nl + 1 if nl >= 0 else line_start
            f.seek(start)
            line = next(scan_lines(f, max_line - 1, block=_PROBE_BLOCK), None)
            if line is not None and line.terminated and line.data is not None and needle in line.data:
                rec = _record(line.data)
                if rec is not None:
                    yield rec
            pos = start + (line.size + line.terminated if line is not None else 0)
            f.seek(pos)
            line_start = pos
            carry = b""
