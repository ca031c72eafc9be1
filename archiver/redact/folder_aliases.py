"""Folder names derived from a session's cwd, rewritten inside the session's text files as the
archive names those folders.

A harness names some folders after the cwd (Claude Code's `projects/<key>`, pi's
`sessions/--<cwd>--`, Cursor's `chats/<md5(cwd)>` and `projects/<slug>`: each harness's
`cwd_folders`). The archive names them from the *redacted* cwd (harnesses/common.py
`cwd_folder_relpath`), because an encoding can hide what the rules look for: Claude Code's key
turns `bob@example.com` into `bob-example-com`, which no e-mail rule can see. A transcript names
the same folders in its own paths (a persisted tool result, a memory file), so before its text is
redacted each such name is replaced by the archived one: nothing the key hid survives, and what
points at an archived file points where it is (restore --relocate then maps it like the folder).

Only a name right after its folder (`projects/`, also with `\\` or a JSON-escaped `\\\\`) and
not followed by a letter or digit is replaced (`-home-a-app2` is another project than
`-home-a-app`); a name followed by `-` is a folder of a cwd below (Claude Code's key of
`/home/a/app/sub` starts with the key of `/home/a/app`), so the cwd's ancestors are aliased too,
the longest first. Names and replacements hold no quote, backslash or control character (any
other is left to the rules): the same bytes inside a JSON string and in text. A name is looked for
as UTF-8; a file that escapes its letters outside ASCII (`\\u00e9`) is left to the rules.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import BinaryIO, Callable, Iterable

# (anchor, name in the harness's layout, name in the archive), anchor being the folder's own name
Aliases = tuple[tuple[bytes, bytes, bytes], ...]
RULE_ID = "cwd-folder-name"  # how a replacement is counted in a session's redaction report
TEXT_FORMATS = frozenset({"jsonl", "json", "text"})
_BLOCK = 1 << 20
_SEPARATOR = rb"(/|\\\\|\\)"  # `/`, a JSON-escaped backslash, a raw one
# a name written as it is in JSON (raw UTF-8, as Node and Rust write it) and in text alike: no quote,
# backslash or control character, which JSON escapes (pi's folder keeps a cwd's quotes: such a name is
# left to the rules); spaces and letters outside ASCII are kept as they are (`--home-a-My Projects-café--`)
_PLAIN = re.compile(r'[^"\\/\x00-\x1f\x7f]+')


def cwd_folder_aliases(folders: Iterable[tuple[str, Callable[[str], str]]], cwd: str | None,
                       redact_text: Callable[[str], str]) -> Aliases:
    """The aliases of a session whose cwd is `cwd`, for a harness whose `cwd_folders` are
    `folders` ((path prefix, cwd -> folder name)); () when the cwd is unknown, or when the rules
    make of the cwd's folder name what the archive names it (a user name is a word in the key
    as in the path: `-home-ann-app` is `-home-user-1a2b-app` either way), so the text keeps its
    findings as the rules count them. The cwd is redacted once and its ancestors are its redacted
    form's (the rules keep a path's separators: a user name, an e-mail, a term is one component
    before and after)."""
    if not cwd:
        return ()
    anchors = [(prefix.rstrip("/").rpartition("/")[2], encode) for prefix, encode in folders if "*" not in prefix]
    anchors = [(a, encode) for a, encode in anchors if a]
    if not anchors:
        return ()
    paths = _self_and_ancestors(cwd)
    redacted = _self_and_ancestors(redact_text(cwd))
    if len(redacted) != len(paths):  # a replacement took or made a separator: each path on its own
        redacted = [redact_text(path) for path in paths]
    out: dict[tuple[bytes, bytes], bytes] = {}
    for anchor, encode in anchors:
        raw, red = encode(paths[0]), encode(redacted[0])
        if raw == red or redact_text(raw) == red:
            continue
        for path, red_path in zip(paths, redacted):
            raw, red = encode(path), encode(red_path)
            if raw and raw != red and _PLAIN.fullmatch(raw) and _PLAIN.fullmatch(red):
                out.setdefault((anchor.encode(), raw.encode()), red.encode())
    return tuple(sorted(((a, raw, red) for (a, raw), red in out.items()), key=lambda t: -len(t[1])))


def _self_and_ancestors(cwd: str) -> list[str]:
    out = []
    path = cwd.rstrip("/\\") or cwd
    while path:
        out.append(path)
        cut = max(path.rfind("/"), path.rfind("\\"))
        if cut <= 0:
            break
        path = path[:cut]
    return out


class FolderAliasRewriter:
    """One session's aliases, compiled: `line` for a line of JSONL, `copy` for a whole file."""

    def __init__(self, aliases: Aliases) -> None:
        self._names = {(a, raw): red for a, raw, red in aliases}
        anchors = sorted({a for a, _, _ in aliases})
        raws = sorted({raw for _, raw, _ in aliases}, key=lambda r: (-len(r), r))
        self._anchors = tuple(anchors)
        self._rx = re.compile(b"(" + b"|".join(map(re.escape, anchors)) + b")" + _SEPARATOR
                              + b"(" + b"|".join(map(re.escape, raws)) + b")(?![A-Za-z0-9])")
        self._reach = max(len(a) for a in anchors) + 2 + max(len(r) for r in raws) + 1

    def _replacement(self, m: re.Match[bytes]) -> bytes | None:
        red = self._names.get((m.group(1), m.group(3)))
        return None if red is None else m.group(1) + m.group(2) + red

    def line(self, buf: bytes) -> tuple[bytes, int]:
        """buf with every alias replaced, and how many were."""
        if not any(a in buf for a in self._anchors):
            return buf, 0
        n = 0

        def replace(m: re.Match[bytes]) -> bytes:
            nonlocal n
            red = self._replacement(m)
            if red is None:
                return m.group(0)
            n += 1
            return red

        return self._rx.sub(replace, buf), n

    def copy(self, src: BinaryIO, dst: BinaryIO) -> int:
        """src into dst with every alias replaced, block by block (a match is only taken where
        the bytes after it are read, so none is cut at a block's end); how many were."""
        carry = b""
        total = 0
        while True:
            block = src.read(_BLOCK)
            buf = carry + block
            if not block:
                out, n = self.line(buf)
                dst.write(out)
                return total + n
            final = len(buf) - self._reach  # a match starting before this ends inside buf
            pos = 0
            for m in self._rx.finditer(buf):
                if m.start() >= final:
                    break
                red = self._replacement(m)
                if red is not None:
                    dst.write(buf[pos:m.start()])
                    dst.write(red)
                    pos = m.end()
                    total += 1
            keep = max(pos, final)
            dst.write(buf[pos:keep])
            carry = buf[keep:]


@lru_cache(maxsize=32)
def rewriter(aliases: Aliases) -> FolderAliasRewriter | None:
    """The compiled rewriter of `aliases` (cached: a worker sees the same session's many times)."""
    return FolderAliasRewriter(aliases) if aliases else None


def rewrite_file(aliases: Aliases, src: Path, dst: Path) -> int:
    """src copied into dst with the aliases replaced; how many were. dst is left only when one
    was (else the caller reads src itself)."""
    rw = rewriter(aliases)
    if rw is None:
        return 0
    with src.open("rb") as fi, dst.open("wb") as fo:
        n = rw.copy(fi, fo)
    if not n:
        dst.unlink()
    return n
