"""Helpers shared by the harness collectors (harness modules never import each other).

Where each collector finds its root, how it lists files, stamps times and guesses a file's
format. JSONL reading lives in jsonl_probe.py, consistent SQLite reads in archiver/snapshot.py.

Every read of a harness file at discovery (a transcript's first lines, a meta.json, an index)
opens it with `open_file` (snapshot.open_regular): a name checked as a regular file may be a
symlink, a FIFO or a device by the time it is opened, and is then refused, never followed,
never blocked on.
"""

from __future__ import annotations

import os
import re
import sqlite3
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, BinaryIO, Callable, Generic, Iterable, Iterator, MutableMapping, TypeVar

import orjson

from archiver.harnesses.base import HarnessContext
from archiver.model import Format, is_utf8
from archiver.snapshot import SNIFF_BYTES, SnapshotError, looks_binary, open_regular

T = TypeVar("T")



def configured_root(ctx: HarnessContext, env_var: str | None = None, *, tilde_home: Path | None = None) -> Path | None:
    """The root the user chose: `env_var` in ctx.env when set and non-empty, else the
    configured root, else None (the caller falls back to its default).

    `~` is expanded against `tilde_home` when given (only `~` and `~/...`, as the harness
    itself does against its HOME), else with Path.expanduser (the process user's home).
    """
    value = ctx.env.get(env_var) if env_var else None
    if not value and ctx.root:
        value = str(ctx.root)
    if not value:
        return None
    return expand_home(value, tilde_home) if tilde_home is not None else Path(value).expanduser()


def expand_home(value: str, home: Path) -> Path:
    """`~` or `~/x` resolved against `home` (the harness context's HOME); anything else as is."""
    if value == "~" or value.startswith("~/"):
        return home / value[2:]
    return Path(value)


def xdg_dir(ctx: HarnessContext, var: str, fallback: str) -> Path:
    """An XDG base directory: `$var` (e.g. XDG_DATA_HOME) when set, else HOME/`fallback`."""
    value = ctx.env.get(var)
    return Path(value).expanduser() if value else ctx.home / fallback


class Unlistable:
    """Folders that could not be listed, counted by reason. Messages name only where they are,
    never the folders: a folder's own name can hold what no rule recognises (Claude's and pi's
    project folders are the cwd as a slug: an e-mail as `jane-doe-acme-com`)."""

    def __init__(self) -> None:
        self.by_reason: dict[str, int] = {}

    def add(self, e: OSError) -> None:
        reason = (e.strerror or type(e).__name__).lower()
        self.by_reason[reason] = self.by_reason.get(reason, 0) + 1

    def problems(self, where: str, what: str = "folder(s)", consequence: str = "") -> list[str]:
        return [f"{where}: {n} {what} not listable ({reason}){consequence}" for reason, n in sorted(self.by_reason.items())]


def regular_files(d: Path, problems: list[str] | None = None, label: str | None = None,
                  errors: list[str] | None = None) -> Iterator[Path]:
    """Regular files below d, not following symlinks; folder by folder (depth first, a
    folder's files before its subfolders), names sorted. Unlistable folders and symbolic links
    are skipped; with `problems`, they are counted there under `label` (d's name), with the reason (a
    session's warnings: its files archived before are kept, and the reader is told why they
    are not refreshed). Counted, not named: a name below d can hold what no rule recognises
    (a national id in a file name, the cwd as a slug in Claude's project key). With `errors`, the
    unlistable folders go there too: where they hold sessions, the run has failed."""
    unlistable = Unlistable()
    links = 0
    stack = [d]
    while stack:
        folder = stack.pop()
        try:
            with os.scandir(folder) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as e:
            if not isinstance(e, FileNotFoundError):
                unlistable.add(e)
            continue
        subdirs = []
        for e in entries:  # the entry's type comes from the listing: no stat per file
            try:
                if e.is_symlink():  # may lead out of HOME: never followed
                    links += 1
                    continue
                if e.is_file(follow_symlinks=False):
                    yield folder / e.name
                elif e.is_dir(follow_symlinks=False):
                    subdirs.append(folder / e.name)
            except OSError:
                continue
        stack.extend(reversed(subdirs))  # the first subfolder is walked next, wholly
    where = d.name if label is None else label
    if problems is not None:
        problems.extend(unlistable.problems(where))
        if links:
            problems.append(f"{where}: {links} symbolic link(s) not followed")
    if errors is not None:
        errors.extend(unlistable.problems(where))


def sorted_paths(paths: Iterable[Path]) -> list[Path]:
    """sorted(paths), comparing each path's parts as a tuple (the order of PurePosixPath,
    without a Python-level comparison per pair: thousands of files are sorted each run)."""
    return sorted(paths, key=lambda p: p.parts)


def relative_or_absolute(file: Path, root: Path) -> str:
    """`file` relative to `root` for messages, or the full path when it lies elsewhere."""
    try:
        return file.relative_to(root).as_posix()
    except ValueError:
        return str(file)


# what reading a file of a shape no seed describes raises (a list where an object was, a
# number as a string, nesting too deep): per session, never past it
SHAPE_ERRORS = (TypeError, ValueError, KeyError, IndexError, AttributeError, RecursionError, OverflowError)


def unexpected_shape(name: str, e: BaseException) -> str:
    """The warning for a file whose records are not of the expected shape: the file and the
    kind of problem, never the exception's text (it may quote session content)."""
    return (f"{name}: a record is not of the shape the harness writes ({type(e).__name__}); "
            "its facts (title, times, lineage) may be incomplete, the file is archived as it is")


def iso(ts: float) -> str:
    """POSIX seconds -> ISO 8601 UTC with a `Z` suffix."""
    return datetime.fromtimestamp(ts, timezone.utc).isoformat().replace("+00:00", "Z")


def iso_ms(v: Any, guess_unit: bool = False) -> str | None:
    """Epoch milliseconds -> ISO 8601 UTC, or None for anything that is not a positive,
    representable number. With `guess_unit`, values that look like seconds, microseconds
    or nanoseconds (by magnitude) are scaled to milliseconds first."""
    if not isinstance(v, (int, float)) or isinstance(v, bool) or v <= 0:
        return None
    if guess_unit:
        if v > 1e17:
            v = v / 1e6  # ns
        elif v > 1e14:
            v = v / 1e3  # us
        elif v < 1e11:
            v = v * 1e3  # s
    try:
        return iso(v / 1000)
    except (OverflowError, OSError, ValueError):
        return None


def open_file(path: Path) -> BinaryIO:
    """A harness file opened for reading at discovery, through snapshot.open_regular: a symlink
    is refused (never followed), a FIFO, socket, device or directory is refused without
    blocking, with a SnapshotError (an OSError) naming the file; its `strerror` is the reason
    alone ("a FIFO; not read"), for the messages that name the file themselves. A missing
    file raises FileNotFoundError."""
    try:
        return open_regular(path)
    except SnapshotError as e:
        msg = str(e)
        err = SnapshotError(msg)
        err.strerror = msg[len(f"{path}: "):] if msg.startswith(f"{path}: ") else msg
        raise err from None


def read_regular(path: Path, limit: int) -> bytes | None:
    """The bytes of a small harness file (a meta.json, settings, an info file) opened with
    open_file; None when it is longer than `limit` (by fstat at open; a file growing while it
    is read is not read past `limit`). OSError as open_file."""
    with open_file(path) as f:
        if os.fstat(f.fileno()).st_size > limit:
            return None
        data = f.read(limit + 1)
    return None if len(data) > limit else data


def read_problem(e: OSError) -> str:
    """The reason of a failed read for a message that names the file: "a fifo; not read",
    "permission denied"."""
    return (e.strerror or str(e)).lower()


def sniff_content(path: Path, unreadable: Format = "binary") -> Format:
    """"text" or "binary" from a file's first bytes (snapshot.looks_binary); `unreadable` when
    the file cannot be opened (or is no regular file). Callers decide by name first."""
    try:
        with open_file(path) as f:
            head = f.read(SNIFF_BYTES)
    except OSError:
        return unreadable
    return "binary" if looks_binary(head) else "text"


def sql_ident(name: str) -> str:
    """A SQLite identifier, double-quoted."""
    return '"' + name.replace('"', '""') + '"'


def sqlite_identity(db: Path) -> str:
    """A key for the state of a SQLite file: (inode, size, mtime_ns) of the database and
    (size, mtime_ns) of its -wal, where committed writes live until a checkpoint touches the
    main file. An empty -wal holds no frames and counts as none: a read-only open creates
    one next to a closed database. Raises OSError when the database cannot be stat'ed."""
    st = db.stat()
    try:
        w = os.stat(f"{db}-wal")
    except FileNotFoundError:
        w = None
    wal = f"{w.st_size}:{w.st_mtime_ns}" if w is not None and w.st_size else "nowal"
    return f"{st.st_ino}:{st.st_size}:{st.st_mtime_ns}:{wal}"


# ---------------------------------------------------------------- the discovery cache
# What a collector learnt from a file, kept between runs in HarnessContext.cache (the state's
# discovery_cache) under a key naming the file's state: read again only when it changes.


def file_state_key(kind: str, path: Path, st: os.stat_result) -> str:
    """The cache key of what `kind` learnt from `path` in this state of it."""
    return f"{kind}:{path}:{st.st_ino}:{st.st_size}:{st.st_mtime_ns}"


def cache_get(cache: MutableMapping[str, str], key: str) -> Any:
    """The JSON value cached under `key`, or None: absent, or not JSON (a miss, read again).
    The caller still checks the value's shape."""
    value = cache.get(key)
    if value is None:
        return None
    try:
        return orjson.loads(value)
    except orjson.JSONDecodeError:
        return None


def cache_put(cache: MutableMapping[str, str], key: str, value: Any, limit: int | None = None) -> None:
    """Cache `value` as JSON, unless JSON cannot hold it (an integer over 64 bits), the key is
    not UTF-8 or the value is longer than `limit` bytes: then it is read again next run."""
    try:
        data = orjson.dumps(value)
    except TypeError:  # orjson.JSONEncodeError included
        return
    if not is_utf8(key):  # a path of bytes that are not UTF-8 (a Linux file name)
        return
    if limit is None or len(data) <= limit:
        cache[key] = data.decode()


class LazyByPath(Generic[T]):
    """Items (with a `.file`) by resolved file path, resolved on first use: a resolve is a
    system call per path component, and most runs never look one up."""

    def __init__(self, items: list[T]) -> None:
        self._items = items
        self._map: dict[str, T] | None = None

    def get(self, key: str) -> T | None:
        if self._map is None:
            self._map = {str(item.file.resolve()): item for item in self._items}  # type: ignore[attr-defined]
        return self._map.get(key)


def cwd_folder_relpath(
    path: str, prefix: str, cwd: str | None, encode: Callable[[str], str],
    redact_relpath: Callable[[str], str], redact_text: Callable[[str], str],
    pseudonym: Callable[[str, str], str] | None = None,
) -> str:
    """The archived form of `path` when its folder under `prefix` is `encode(cwd)` (a Claude Code
    project key, a pi session folder): the folder is rebuilt from the redacted cwd, so it matches
    the cwd inside and no part of a user name the path rules cannot see in it survives; the rest
    goes through redact_relpath. Any other path (no cwd, a folder that is not the cwd's plain
    encoding: truncated, overridden) goes through redact_relpath whole; then a folder name that
    still holds an address's slug (address_slug: `bob-corp-com`, an e-mail or a domain whose
    `@` and `.` the encoding made `-`, which no rule can tell from words) is archived as
    keyed_folder's name when `pseudonym` is given."""
    if path.startswith(prefix) and cwd:
        folder, _, rest = path[len(prefix) :].partition("/")
        if rest and folder == encode(cwd):
            return f"{prefix}{encode(redact_text(cwd))}/{redact_relpath(rest)}"
    red = redact_relpath(path)
    if pseudonym is None or not path.startswith(prefix) or not red.startswith(prefix):
        return red
    folder = path[len(prefix):].partition("/")[0]
    red_folder, sep, red_rest = red[len(prefix):].partition("/")
    if not address_slug(red_folder):
        return red
    return f"{prefix}{keyed_folder(folder, pseudonym)}{sep}{red_rest}"


# An address in a folder name encoded as words (Claude Code's key, Cursor's slug): a domain's last
# labels at a word's end. Top-level domains that are English words or common path words (`in`,
# `us`, `it`, `no`, `app`, `dev`, `test`, `local`) are left out: a key holding one is left to the rules.
_ADDRESS_SLUG = re.compile(
    r"(?:^|-)[A-Za-z0-9]{2,}-(?:com|org|net|edu|gov|io|ai|co|biz|example"
    r"|de|fr|uk|nl|ch|se|dk|fi|pl|jp|cn|br|au|ca|eu|ru|nz|za|ie|mx|ar|kr|tw|hk|sg"
    r"|co-uk|ac-uk|org-uk|com-au|co-jp|co-nz|com-br|co-za|co-in|com-mx|co-kr)(?:-|$)", re.I)


def address_slug(name: str) -> bool:
    """Does a folder name hold what reads as a domain's end (`...-acme-com-...`), the trace of an
    address whose `@` and `.` the encoding turned into `-`?"""
    return _ADDRESS_SLUG.search(name) is not None


def keyed_folder(folder: str, pseudonym: Callable[[str, str], str]) -> str:
    """The archived name of a cwd-named folder whose cwd is unknown and whose name holds an
    address's slug: `cwd-` and 16 hex digits of the team-keyed digest of the native name (the
    same for every run and machine; only team-key holders can test a guess), `-` first as in
    the native name."""
    return ("-" if folder.startswith("-") else "") + "cwd-" + pseudonym("cwd-folder", folder)[:16]


def index_if_scanned(con: sqlite3.Connection, table: str, column: str, index: str) -> bool:
    """In a private snapshot (never a live database: collectors open those read-only), index
    `table.column` as `index` when SQLite would read the whole table to find the rows with
    `column = ?` (no index leads with it). Per-session or per-thread extracts of a shared store
    look rows up that way, once per session: without the index, sessions x rows. The caller keeps
    such indexes out of every extract and digest (its schema reader skips their name prefix).
    Returns whether it made the index; sqlite3.Error propagates."""
    plan = con.execute(f"EXPLAIN QUERY PLAN SELECT * FROM main.{sql_ident(table)} WHERE {sql_ident(column)} = ?",
                       ("",)).fetchall()
    if not any(str(row[-1]).startswith("SCAN") for row in plan):
        return False
    con.execute(f"CREATE INDEX {sql_ident(index)} ON {sql_ident(table)} ({sql_ident(column)})")
    return True


def sql_value_digest(h: Any, v: Any) -> None:
    """Feed one SQLite value to hash `h`, typed and length-prefixed (NULL, BLOB, TEXT, number),
    so that no two different rows hash alike by running into each other."""
    if v is None:
        h.update(b"N")
    elif isinstance(v, bytes):
        h.update(b"B%d:" % len(v))
        h.update(v)
    elif isinstance(v, str):
        b = v.encode("utf-8", "surrogatepass")
        h.update(b"S%d:" % len(b))
        h.update(b)
    else:
        r = repr(v).encode()
        h.update(b"V%d:" % len(r))
        h.update(r)
