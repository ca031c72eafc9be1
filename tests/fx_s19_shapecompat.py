"""Cursor steps whose messages hold fields the seed does not name, for tests/test_s19_shapecompat.py.

Seed (cursor-agent.json `versioning`): "Protobuf is forward/backward compatible by field number",
and the server authors the step blobs, so a newer Cursor may add a field to a ToolCall (beside
the oneof case and 54/57/59/60), to a result oneof message or to a ConversationStep, of any wire
type. `EXTRAS` are such fields; `with_extra` puts one at a level of a step (a ToolCall, its
result, the step itself). `tree` reads every wire type (fx_s19_cursorsteps's reads 0 and 2 only),
independently of the walker under test."""

from __future__ import annotations

import struct
from typing import Any

from tests.fx_s17_e2eco import f_int, f_len, varint
from tests.fx_s18_cursorpb import EDIT_CASE

def fixed64(fno: int, n: int) -> bytes:
    return varint(fno << 3 | 1) + struct.pack("<Q", n)


def fixed32(fno: int, n: int) -> bytes:
    return varint(fno << 3 | 5) + struct.pack("<I", n)


EXTRAS: dict[str, bytes] = {
    "string61": f_len(61, "future"),
    "varint62": f_int(62, 7),
    "fixed64_63": fixed64(63, 1_767_261_600_000),
    "fixed32_64": fixed32(64, 0x3F000000),
    "bytes65": f_len(65, bytes(range(0, 256, 7))),  # binary, does not parse
    "small_varint13": f_int(13, 3),  # a one-byte tag: a number the seed's 68 cases may also use
}


def edit_step_x(before: bytes, after: bytes, where: str = "", extra: bytes = b"",
                call_id: str | None = None) -> bytes:
    """tests/fx_s18_cursorpb.py's edit step (edit_tool_call 12, EditSuccess {4 before, 5 after}) with
    `extra` appended to the level `where` names: "call" (ToolCall), "result" (the result oneof
    message), "step" (ConversationStep), "" (none)."""
    success = f_len(4, before) + f_len(5, after)
    result = f_len(1, success) + (extra if where == "result" else b"")
    case = f_len(1, f_len(1, "config.py") + f_len(2, after)) + f_len(2, result)
    tool_call = f_len(EDIT_CASE, case) + (f_len(57, call_id) if call_id else b"")
    tool_call += extra if where == "call" else b""
    return f_len(2, tool_call) + (extra if where == "step" else b"")


def _read_varint(buf: bytes, pos: int) -> tuple[int, int]:
    n = shift = 0
    while True:
        if pos >= len(buf) or shift > 63:
            raise ValueError("truncated varint")
        b = buf[pos]
        pos += 1
        n |= (b & 0x7F) << shift
        if b < 0x80:
            return n, pos
        shift += 7


def fields(buf: bytes) -> list[tuple[int, int, bytes]]:
    """(field, wire type, raw value) of a message of any wire type but groups; ValueError if not one."""
    out = []
    pos = 0
    while pos < len(buf):
        key, pos = _read_varint(buf, pos)
        fno, wt = key >> 3, key & 7
        if fno == 0:
            raise ValueError("field 0")
        if wt == 0:
            start = pos
            _n, pos = _read_varint(buf, pos)
            out.append((fno, wt, buf[start:pos]))
            continue
        if wt == 2:
            size, pos = _read_varint(buf, pos)
        elif wt in (1, 5):
            size = 8 if wt == 1 else 4
        else:
            raise ValueError(f"wire type {wt}")
        if pos + size > len(buf):
            raise ValueError("truncated value")
        out.append((fno, wt, buf[pos:pos + size]))
        pos += size
    return out


def tree(data: bytes, depth: int = 0) -> list[Any] | None:
    """Every level's (field number, wire type, sub-tree or raw scalar) of a message; None for a
    value that is not one (a string that happens to parse counts as one)."""
    try:
        parsed = fields(data)
    except ValueError:
        return None
    if not parsed or depth > 40:
        return None
    return [(f, wt, tree(v, depth + 1) if wt == 2 else v) for f, wt, v in parsed]


def get(data: bytes, *path: int) -> bytes:
    """The length-delimited value at `path` (first occurrence of each field number)."""
    for fno in path:
        data = next(v for f, wt, v in fields(data) if f == fno and wt == 2)
    return data


def all_of(data: bytes, fno: int) -> list[bytes]:
    return [v for f, wt, v in fields(data) if f == fno and wt == 2]
