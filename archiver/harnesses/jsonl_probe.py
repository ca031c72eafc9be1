"""Cheap, bounded reads of JSONL files for collectors: first records, tail records,
and a streaming search for one record type. Never holds more than one capped line."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Iterator

import orjson

MAX_PROBE_LINE = 4 * 1024 * 1024
_BLOCK = 1024 * 1024


def _bounded_lines(f: Any, max_line: int) -> Iterator[bytes | None]:
    """Lines of f; a line longer than max_line is consumed and yielded as None."""
    while True:
        line = f.readline(max_line)
        if not line:
            return
        if not line.endswith(b"\n") and len(line) >= max_line:
            while True:  # skip the rest of the oversized line
                rest = f.readline(_BLOCK)
                if not rest or rest.endswith(b"\n"):
                    break
            yield None
            continue
        yield line


def head_records(path: Path, max_records: int = 20, max_line: int = MAX_PROBE_LINE) -> list[dict[str, Any]]:
    """Parsed JSON objects among the first lines; unparsable or oversized lines are skipped."""
    out: list[dict[str, Any]] = []
    with path.open("rb") as f:
        for i, line in enumerate(_bounded_lines(f, max_line)):
            if i >= max_records:
                break
            if line is None or not line.endswith(b"\n"):
                continue
            try:
                rec = orjson.loads(line)
            except orjson.JSONDecodeError:
                continue
            if isinstance(rec, dict):
                out.append(rec)
    return out


def tail_records(path: Path, window: int = 256 * 1024) -> list[dict[str, Any]]:
    """Parsed complete JSON objects within the last `window` bytes (metadata lives there)."""
    size = path.stat().st_size
    with path.open("rb") as f:
        start = max(0, size - window)
        f.seek(start)
        data = f.read(size - start)
    if start > 0:
        nl = data.find(b"\n")
        data = data[nl + 1 :] if nl >= 0 else b""
    out = []
    for line in data.split(b"\n"):
        if not line.strip():
            continue
        try:
            rec = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        if isinstance(rec, dict):
            out.append(rec)
    return out


def records_containing(path: Path, needle: bytes, max_line: int = MAX_PROBE_LINE) -> Iterator[dict[str, Any]]:
    """Records whose raw line contains `needle`, scanning the file block by block.

    The search is a plain bytes find per block, so most of a large file is never parsed.
    """
    keep = max(len(needle) - 1, 0)
    with path.open("rb") as f:
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
            line = next(_bounded_lines(f, max_line), None)
            if line is not None and needle in line and line.endswith(b"\n"):
                try:
                    rec = orjson.loads(line)
                except orjson.JSONDecodeError:
                    rec = None
                if isinstance(rec, dict):
                    yield rec
            pos = f.tell()
            line_start = pos
            carry = b""
