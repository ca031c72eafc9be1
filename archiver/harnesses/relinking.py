"""What the harnesses' `relink_restored` hooks share: a restored file's absolute paths to other
files of the restore rewritten to where the restore put them, every other byte as archived.

A value is found in the raw bytes by its JSON key (`"key": "<string>"`; the key's quote may not
follow a backslash, so `\\"key\\"` inside a string's text is never taken for a field) and only
the string is replaced, by the JSON spelling of the new path (orjson's: UTF-8, no `\\/`). Files
are streamed line by line, and only lines holding a needle are searched.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Callable

import orjson

from archiver.model import is_utf8


def string_field(key: str) -> re.Pattern[bytes]:
    """`"key": "<value>"` in raw JSON bytes: group 1 the key and colon, group 2 the string's body."""
    return re.compile(rb'(?<!\\)("' + re.escape(key.encode()) + rb'"\s*:\s*)"((?:[^"\\]|\\.)*)"')


def json_string(body: bytes) -> str | None:
    """A JSON string's body (between its quotes) decoded, or None when it is no valid string."""
    try:
        value = orjson.loads(b'"' + body + b'"')
    except orjson.JSONDecodeError:
        return None
    return value if isinstance(value, str) else None


def plain_relpath(path: str) -> bool:
    """A relative path of plain names: nothing a restore would refuse as leaving its target."""
    return bool(path) and "\0" not in path and "\\" not in path and not path.startswith("/") \
        and all(part not in ("", ".", "..") for part in path.split("/"))


def restored_path(root: Path, relpath: str) -> str | None:
    """The absolute path a restored file is named by: root/relpath, or None for a relpath that
    could leave root (restore refuses to write there) or a root that is not UTF-8."""
    if not plain_relpath(relpath):
        return None
    out = str(root / relpath)
    return out if is_utf8(out) else None


def rewrite_lines(plain: Path, needles: tuple[bytes, ...], rewrite: Callable[[bytes], bytes]) -> bool:
    """`plain` with each line holding one of `needles` passed through `rewrite` (once per line),
    streamed. Nothing is written until a line changes (a transcript without one is only read);
    from there a sibling gets the head unchanged, then the rest, and replaces `plain`. Returns
    whether a line changed."""
    with plain.open("rb") as fi:
        head = 0
        for line in fi:
            new = rewrite(line) if any(n in line for n in needles) else line
            if new != line:
                break
            head += len(line)
        else:
            return False
        tmp = plain.with_name(plain.name + ".relinking")
        try:
            with tmp.open("wb") as fo:
                with plain.open("rb") as same:
                    while head > 0:
                        block = same.read(min(head, 1 << 20))
                        if not block:
                            break
                        fo.write(block)
                        head -= len(block)
                fo.write(new)
                for line in fi:  # the lines after the first changed one
                    fo.write(rewrite(line) if any(n in line for n in needles) else line)
            tmp.replace(plain)
        finally:
            tmp.unlink(missing_ok=True)
    return True


def replace_first_line_value(plain: Path, first: bytes, key: str, old: str, new: str) -> bool:
    """`plain` with the one string value `old` of `key` in its first line (`first`, as read)
    replaced by `new`, every other byte kept. False, and nothing written, when the line holds
    no such value or more than one."""
    hits = [m for m in string_field(key).finditer(first) if json_string(m.group(2)) == old]
    if len(hits) != 1:
        return False
    m = hits[0]
    write_first_line(plain, first, first[:m.start()] + m.group(1) + orjson.dumps(new) + first[m.end():])
    return True


def write_first_line(plain: Path, first: bytes, line: bytes) -> None:
    """`plain` with its first line (`first`, as read) replaced by `line`, the rest streamed."""
    tmp = plain.with_name(plain.name + ".relinking")
    try:
        with plain.open("rb") as fi, tmp.open("wb") as fo:
            fi.seek(len(first))
            fo.write(line)
            while block := fi.read(1 << 20):
                fo.write(block)
        tmp.replace(plain)
    finally:
        tmp.unlink(missing_ok=True)


def header_parent_path(plain: Path, max_line: int) -> tuple[bytes, dict[str, Any], str] | None:
    """A pi-style session header (first line `{"type": "session", ...}`) whose `parentSession`
    is an absolute path: (the line as read, the header, that path); None otherwise."""
    with plain.open("rb") as f:
        first = f.readline(max_line + 1)
    try:
        header = orjson.loads(first)
    except orjson.JSONDecodeError:
        return None
    parent = header.get("parentSession") if isinstance(header, dict) and header.get("type") == "session" else None
    if not isinstance(parent, str) or not parent.startswith("/"):
        return None
    return first, header, parent
