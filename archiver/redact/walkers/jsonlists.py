"""Lists of strings that stand for one text: a command's argv, the lines of a text, a model's
streamed pieces. The walker also scans each such list as the text it stands for, so a value that
spans items (a flag and its value, a private key's lines, a token streamed in pieces) is found."""

from __future__ import annotations

import re
from typing import Any

import re2

# argv lists (`"command": ["mysql", "-uroot", "-pSECRET"]`: Codex, MCP servers, subprocess calls): a
# list of strings whose first item is a program name or path is also scanned as the one shell line it
# stands for, so the command-line rules see the program, its flags and the value together; a match that
# lies inside one item is applied to that item (each item is still scanned alone too).
ARGV_PROGRAM = re.compile(r"(?:[\w.+~-]*/)*[A-Za-z_][\w.+-]*")
# an item is quoted only where the command-line rules' values stop (blanks, quotes, ;&|<>$\\ and `)
SHELL_SAFE = re.compile(r"[^\s\"'`;&|<>$\\]+")
# a match of the argv line that is only a reference to a value set elsewhere ($NAME, ${NAME},
# ${{ secrets.NAME }}: an MCP or CI config expands it, `git config user.name "$GIT_USER_NAME"`) names
# the value, it is none: the item stays as it is (a default, ${NAME:-x}, may be a value: it is kept)
VALUE_REFERENCE = re.compile(rb"\$(?:[A-Za-z_][A-Za-z0-9_]*|\{[A-Za-z_][A-Za-z0-9_]*\}|\{\{[^{}]*\}\})")
ARGV_MAX_ITEMS = 256
ARGV_MAX_BYTES = 16 << 10
# programs whose name holds a secret-like word (pass, key, ...): as an argv's first item no secret's name,
# so the item after it (wpa_passphrase's SSID, htpasswd's flags) is not scanned as that secret's value
PROGRAMS = frozenset({
    "wpa_passphrase", "htpasswd", "sshpass", "passwd", "chpasswd", "gpasswd", "kpasswd", "smbpasswd", "mkpasswd",
    "keytool", "ssh-keygen", "ssh-keyscan", "ssh-add", "apt-key", "pass", "gopass", "keepassxc-cli", "secret-tool",
    "keyctl", "xauth", "authbind", "pwgen", "ldappasswd", "rabbitmqctl", "htdigest",
})


def argv_like(node: list[Any]) -> bool:
    """Is this list a command's argv: 2+ strings only, the first a program name or path?"""
    if not 2 <= len(node) <= ARGV_MAX_ITEMS:
        return False
    first = node[0]
    if type(first) is not str or len(first) > 200 or ARGV_PROGRAM.fullmatch(first) is None:
        return False
    total = 0
    for v in node:
        if type(v) is not str:
            return False
        total += len(v) + 3
    return total <= ARGV_MAX_BYTES


# lists of text lines (Claude's structuredPatch `lines`, a file read as an array of lines): a private
# key, a YAML block value or a table row is split over items, each of which alone matches nothing, so the
# list is also scanned as the text it stands for (joined by newlines, a diff marker taken off every line
# when all have one); a match over several items redacts its part of each.
# Only lists whose text has a mark of a value that rules find over several lines are joined: the items
# of a joined list are scanned without the memo of short strings (their matches depend on neighbours),
# which tripled the cost of a transcript of edits when every list was joined.
LINES_MAX_ITEMS = 4096
LINES_MAX_BYTES = 1 << 20
DIFF_MARKS = frozenset(" +-\\")
MULTILINE_HINT = re2.compile(
    r"(?m)-----BEGIN|PuTTY-User-Key-File|:[ \t]*[|>][-+0-9]*[ \t]*$|\|[ \t]*:?-{3}|-{3,}\+-|%CPU"
    r"|^[ \t+-]?[ \t]*(?:Host|Match|machine)[ \t]|whoami|\[user\]")


# a model's streamed output kept in pieces (DeepSeek `{"type": "text-chunks", "texts": [...]}`,
# `tool-call-chunks` `args`): a secret the model wrote spans pieces that match nothing alone, so the
# list is also scanned as the text it stands for, joined with nothing between
CHUNK_LISTS = frozenset({"texts", "args"})
PIECES = -2  # the `split` of a joined list of stream pieces in JsonStrings.argv
CHUNKS_MARK = b'-chunks"'  # the end of such a record's `type` in a raw line
# a stream kept as one record per delta (DeepSeek `assistant/attempt`: {"type": "chunk", "chunk":
# {"type": "text-delta", "index": 0, "text": ...}}): the deltas of one index are pieces too
DELTA_MARK = b'-delta"'
DELTA_KEYS = ("text", "argumentsDelta")


def chunk_list(node: dict[str, Any], k: str, v: list[Any]) -> bool:
    kind = node.get("type")
    return k in CHUNK_LISTS and type(kind) is str and kind.endswith("-chunks") and 2 <= len(v) <= LINES_MAX_ITEMS


def delta_records(node: list[Any]) -> list[dict[str, Any]]:
    """The inner deltas of a stream kept one record per delta (`{"type": "chunk", "chunk": {...}}`
    items of a list), in order; [] for any other list."""
    return [x["chunk"] for x in node
            if type(x) is dict and x.get("type") == "chunk" and type(x.get("chunk")) is dict
            and str(x["chunk"].get("type", "")).endswith("-delta")]


def lines_like(node: list[Any]) -> bool:
    """Is this list 2+ strings only, none with a newline (the lines of a text), whose text holds a mark
    of a multi-line value (MULTILINE_HINT)?"""
    if not 2 <= len(node) <= LINES_MAX_ITEMS:
        return False
    total = 0
    for v in node:
        if type(v) is not str or "\n" in v:
            return False
        total += len(v) + 1
    return total <= LINES_MAX_BYTES and MULTILINE_HINT.search("\n".join(node)) is not None


def listed_program(v: str) -> bool:
    return v.rsplit("/", 1)[-1] in PROGRAMS


def shell_word(v: str) -> tuple[bytes, int]:
    """An argv item as a word of a shell line (quoted when it must be) and where its text starts in it."""
    b = v.encode("utf-8", "surrogatepass")
    if v and SHELL_SAFE.fullmatch(v) is not None:
        return b, 0
    q = b"'" if "'" not in v else b'"'
    return q + b + q, 1
