"""Restore into another project path: `archiver restore --relocate OLD=NEW`.

A session's cwd is in its records (Claude Code's `cwd`, Codex's `session_meta`, pi's header,
OpenCode's `directory`) and in folder names derived from it (Claude Code's `projects/<key>`, pi's
`sessions/--<cwd>--`, Cursor's `chats/<md5(cwd)>` and `projects/<slug>`). The archive holds the
*redacted* cwd (`/home/user-5f2a/work/app`); a reviewer who wants to resume the session in their
own checkout (`/home/bob/src/app`) maps one onto the other. Relocation runs on restored plaintext
after its digest was checked against the manifest, so what is verified is always the archived
bytes; what is written is the relocated form.

What is rewritten:
- folder names derived from a cwd under OLD (each harness lists its own in `cwd_folders`; a
  `*` in its prefix stands for any one name: OpenCode's `snapshot/<project-id>/<sha1>/`), the
  cwd being any the session recorded (a Claude Code transcript moved by `/cd` lies in the
  folder of its last cwd);
- in JSONL, JSON and text artifacts, every occurrence of OLD at path boundaries (not `/oldx`,
  not `/mnt/old`, not `/old.bak`; a sentence's full stop after it is no name: `in /old.`), raw,
  as JSON writes a non-ASCII path with `\\u` escapes and with `\\/` escapes;
- in the same files, the cwd-derived folder names inside paths (`.claude/projects/<key>/`, a pi
  fork's `parentSession` naming `sessions/--<cwd>--/`), so what points at a restored file
  points where it now is (a harness's `relink_restored` then makes an absolute path to another
  restored file name it under the restore root: pi's `parentSession`);
- in SQLite artifacts, every cell of an ordinary table the same way: TEXT, hex-encoded JSON
  (Cursor's meta), and BLOBs that are text or protobuf messages (walked field by field, so the
  length prefixes follow a longer path; other binary is left alone); then the database is
  vacuumed, so no free page keeps the old form.
"""

from __future__ import annotations

import json
import posixpath
import re
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Sequence

from archiver.redact.walkers import protobuf

# Characters that continue a path component: an occurrence of OLD followed or preceded by one of
# them is part of another name. Bytes >= 0x80 are UTF-8 of non-ASCII letters.
_NAME_CHARS = rb"A-Za-z0-9._~+@%\x80-\xff-"

# after OLD: not a name character, or a run of dots that ends the sentence (`see /w/app.`)
_AFTER = rb"(?![" + _NAME_CHARS + rb"])|(?=\.+(?![" + _NAME_CHARS + rb"]))"
# a NEW written as is into JSON strings and SQL text: nothing there may need escaping
_UNSAFE_NEW = re.compile(r'["\\\x00-\x1f\x7f]')

_HEX_JSON = re.compile(r"(?:7[bB]|5[bB])(?:[0-9a-fA-F]{2})+")  # hex of `{...` / `[...`: Cursor's meta

CwdFolder = tuple[str, Callable[[str], str]]  # (path prefix under HOME, cwd -> folder name)


class RelocationError(ValueError):
    pass


@dataclass(frozen=True)
class Relocation:
    old: str
    new: str

    @classmethod
    def parse(cls, spec: str) -> "Relocation":
        """`OLD=NEW`, both absolute POSIX paths (trailing slashes dropped)."""
        old, sep, new = spec.partition("=")
        if not sep or not old or not new:
            raise RelocationError(f"--relocate {spec!r}: expected OLD=NEW")
        for what, p in (("OLD", old), ("NEW", new)):
            if not p.startswith("/") or "\x00" in p or "\n" in p:
                raise RelocationError(f"--relocate {spec!r}: {what} must be an absolute path")
        if _UNSAFE_NEW.search(new):
            raise RelocationError(f"--relocate {spec!r}: NEW may not hold a quote, a backslash or a control "
                                  "character (it is written as is inside JSON strings)")
        # POSIX normalisation: `//x` is `/x` here as it is to the harnesses (path.resolve)
        old, new = _normpath(old), _normpath(new)
        for what, p in (("OLD", old), ("NEW", new)):
            if p == "/":
                raise RelocationError(f"--relocate {spec!r}: {what} may not be /")
        return cls(old, new)

    def path(self, p: str) -> str | None:
        """p moved from under OLD to under NEW, or None when p is not OLD or below it."""
        if p == self.old:
            return self.new
        if p.startswith(self.old + "/"):
            return self.new + p[len(self.old):]
        return None


@dataclass(frozen=True)
class FolderMatch:
    prefix: str  # as the harness lists it (`*`: any name)
    head: str  # the folder's prefix, as the path spells it
    folder: str
    rest: str
    encode: Callable[[str], str]
    named_after: str | None  # the candidate path whose encoding the folder is


class Relocator:
    def __init__(self, relocations: Sequence[Relocation], folder_names: Iterable[tuple[str, str]] = ()) -> None:
        # the longest OLD first: /home/u/work/app wins over /home/u
        self.relocations = sorted(relocations, key=lambda r: len(r.old), reverse=True)
        forms: dict[bytes, bytes] = {}
        for r in self.relocations:
            for old, new in ((r.old, r.new), (_json_ascii(r.old), _json_ascii(r.new)),
                             (_json_text(r.old), _json_text(r.new)),
                             (r.old.replace("/", "\\/"), r.new.replace("/", "\\/"))):
                forms.setdefault(_b(old), _b(new))
        # `<prefix><folder>/` of a cwd-derived folder, as paths inside the files name it; the
        # longest first, as alternatives are tried in order
        self.folder_names = sorted(set(folder_names), key=lambda f: len(f[0]), reverse=True)
        folder_forms = {_b(o): _b(n) for o, n in self.folder_names if o != n}
        self._forms = {**forms, **folder_forms}
        alternatives = []
        if forms:
            alternatives.append(b"(?:" + b"|".join(re.escape(o) for o in forms) + b")(?:" + _AFTER + b")")
        if folder_forms:
            alternatives.append(b"(?:" + b"|".join(re.escape(o) for o in folder_forms) + b")")
        self._rx = re.compile(rb"(?<![" + _NAME_CHARS + rb"])(?:" + b"|".join(alternatives) + rb")"
                              ) if alternatives else None

    def with_folders(self, folders: Iterable[CwdFolder], cwds: Iterable[str | None]) -> "Relocator":
        """This relocator that also rewrites, inside files, the folder names derived from these
        sessions' cwds (and their ancestors, and each OLD) that it renames."""
        names = set(self.folder_names)
        folders = [f for f in folders if "*" not in f[0].split("/")]  # a hash-named folder: no path names it
        kept: set[str] = set()  # folders of the sessions' paths that do not move
        for cwd in set(cwds):
            for candidate in self._candidates(cwd):
                moved = self.cwd(candidate)
                for prefix, encode in folders:
                    if moved is None:
                        kept.add(f"{prefix}{encode(candidate)}/")
                    else:
                        names.add((f"{prefix}{encode(candidate)}/", f"{prefix}{encode(moved)}/"))
        # a name that is also a staying project's folder is ambiguous: left as it is
        return Relocator(self.relocations, [(o, n) for o, n in names if o not in kept])

    def __bool__(self) -> bool:
        return bool(self.relocations)

    def cwd(self, cwd: str | None) -> str | None:
        """The relocated cwd, or None when no relocation applies to it."""
        if not cwd:
            return None
        for r in self.relocations:
            moved = r.path(posixpath.normpath(cwd))
            if moved is not None:
                return moved
        return None

    def relpath(self, relpath: str, cwd: str | None | Sequence[str], folders: Iterable[CwdFolder]) -> str:
        """An archived path with its cwd-derived folder renamed for the relocated cwd. The folder
        encodes one of the session's cwds (`cwd`: the first, or each it recorded: a Claude Code
        transcript moved by `/cd` lies in its last cwd's folder) or one of their ancestors (a
        project's folder, entered below it), or an OLD itself (a project's host files, which
        belong to no session's cwd). A `*` component of a folder's prefix matches any name
        (OpenCode's `snapshot/<project-id>/<hash(worktree)>/`)."""
        match = self.folder_match(relpath, cwd, folders)
        if match is None or match.named_after is None:
            return relpath
        # the nearest path the folder is named after decides; a project whose name encodes
        # alike (Claude: `/w-app` and `/w/app` are both `-w-app`) stays
        moved = self.cwd(match.named_after)
        return f"{match.head}{match.encode(moved)}/{match.rest}" if moved is not None else relpath

    def folder_match(self, relpath: str, cwd: str | None | Sequence[str],
                     folders: Iterable[CwdFolder]) -> "FolderMatch | None":
        """The cwd-named folder relpath lies in and the first of the candidate paths (see
        `relpath`) it is named after (None: none of them); None outside such folders."""
        cwds = [cwd] if cwd is None or isinstance(cwd, str) else list(cwd)
        for prefix, encode in folders:
            split = split_folder(relpath, prefix)
            if split is None:
                continue
            head, folder, rest = split
            named = next((c for c in self._candidates(*cwds) if encode(c) == folder), None)
            return FolderMatch(prefix, head, folder, rest, encode, named)
        return None

    def _candidates(self, *cwds: str | None) -> list[str]:
        out: list[str] = []
        for cwd in cwds:
            if cwd and cwd.startswith("/"):
                p = posixpath.normpath(cwd)
                while p != "/":
                    if p not in out:
                        out.append(p)
                    p = posixpath.dirname(p)
        out.extend(r.old for r in self.relocations if r.old not in out)
        return out

    def rewrite(self, data: bytes) -> bytes:
        if self._rx is None:
            return data
        forms = self._forms
        return self._rx.sub(lambda m: forms[m.group(0)], data)

    def rewrite_text(self, value: str) -> str:
        data = value.encode("utf-8", "surrogatepass")
        out = self.rewrite(data)
        return value if out == data else out.decode("utf-8", "surrogatepass")

    def rewrite_file(self, path: Path, fmt: str) -> None:
        """Relocate the paths inside a restored plaintext file, in place."""
        if not self:
            return
        if fmt in ("jsonl", "jsonl.zst", "json", "text"):
            self._rewrite_lines(path)
        elif fmt == "sqlite":
            self._rewrite_sqlite(path)

    def _rewrite_lines(self, path: Path) -> None:
        tmp = path.with_name(path.name + ".relocating")
        with path.open("rb") as fi, tmp.open("wb") as fo:
            for line in fi:  # one record per line; OLD never spans a newline
                fo.write(self.rewrite(line))
        tmp.replace(path)

    def _rewrite_sqlite(self, path: Path) -> None:
        con = sqlite3.connect(str(path), isolation_level=None)
        try:
            con.create_function("archiver_relocate", 2, self._cell, deterministic=True)
            tables = _ordinary_tables(con)
            con.execute("BEGIN")
            changed = 0
            for table in tables:
                names = [r[1] for r in con.execute(f"PRAGMA table_info({_quote(table)})")]
                if not names:
                    continue
                # each cell with its carrier, as redaction names it: which BLOB schema holds
                calls = [(_quote(c), f"archiver_relocate({_quote(c)}, {_literal(f'sqlite:{table}.{c}')})")
                         for c in names]
                # one statement per table: a row's triggers fire once, as for one edit of the row
                changed += con.execute(
                    f"UPDATE {_quote(table)} SET " + ", ".join(f"{c} = {call}" for c, call in calls)
                    + " WHERE " + " OR ".join(f"{c} IS NOT {call}" for c, call in calls)).rowcount
            con.execute("COMMIT")
            if changed:
                con.execute("VACUUM")
        except sqlite3.Error as e:
            raise RelocationError(f"{path.name}: cannot relocate paths in this database: {e}") from None
        finally:
            con.close()

    def _cell(self, value: object, carrier: str = "") -> object:
        if type(value) is str:
            if _HEX_JSON.fullmatch(value):
                raw = bytes.fromhex(value)
                out = self.rewrite(raw)
                return value if out == raw else (out.hex().upper() if value.isupper() else out.hex())
            return self.rewrite_text(value)
        if type(value) is bytes:
            schema = protobuf.BLOB_SCHEMAS.get(carrier)  # what redaction walked as messages, walked alike
            what, fields = protobuf.kind(value, schema)
            if what == "message":
                return protobuf.redact_message(value, self.rewrite, fields=fields, schema=schema) or value
            if what == "text":
                return self.rewrite(value)
        return value


def split_folder(relpath: str, prefix: str) -> tuple[str, str, str] | None:
    """(the prefix as relpath spells it, the folder name below it, the rest) when relpath lies in
    a folder directly below `prefix` (whose `*` components match any one name), else None."""
    parts, want = relpath.split("/"), prefix.rstrip("/").split("/")
    if len(parts) < len(want) + 2 or any(w not in ("*", p) for w, p in zip(want, parts)):
        return None
    n = len(want)
    return "/".join(parts[:n]) + "/", parts[n], "/".join(parts[n + 1:])


def _ordinary_tables(con: sqlite3.Connection) -> list[str]:
    """Tables whose rows are data: not SQLite's own, not virtual tables (FTS) nor their shadow
    tables, which the virtual table keeps consistent itself."""
    rows = con.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table'").fetchall()
    virtual = [name for name, sql in rows if (sql or "").upper().startswith("CREATE VIRTUAL")]
    return [name for name, _sql in rows
            if not name.startswith("sqlite_") and name not in virtual
            and not any(name.startswith(v + "_") for v in virtual)]


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _b(s: str) -> bytes:
    return s.encode("utf-8", "surrogateescape")


def _normpath(p: str) -> str:
    p = posixpath.normpath(p)
    return "/" + p.lstrip("/")  # normpath keeps a leading `//`


def _json_ascii(p: str) -> str:
    """p as JSON writers with ASCII output spell it inside a string (`\\u00e9`)."""
    return json.dumps(p)[1:-1]


def _json_text(p: str) -> str:
    """p as JSON writers with UTF-8 output spell it inside a string (JSON.stringify: `\\\\` escaped,
    `é` raw): differs from p and from _json_ascii(p) for a path holding a backslash and non-ASCII."""
    return json.dumps(p, ensure_ascii=False)[1:-1]
