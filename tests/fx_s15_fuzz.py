"""Seed-shaped robustness fuzzing of the six collectors and the sync pipeline (no tests here).

One home holds all six harnesses, written by the demo generators the e2e tests use
(archiver/demo/*_sample.py, which follow the seeds). A `Mutation` breaks ONE victim file (or
folder, or database) of one harness the way a home the product never saw may be broken: fields
missing or of the wrong JSON type, unknown records, a header that is not first or comes twice,
torn lines, bad UTF-8, NULs, CRLF, a BOM, an empty file, a file that is a folder, a symlink loop,
timestamps in other forms, ids with path characters, parents that do not exist or loop, sidecars
missing or pointing outside the root, SQLite stores with a table/column missing, a cell of the
wrong type, a rotten page, a held write lock, an empty -wal, a .jsonl.zst that is cut or no zstd.
Every mutation undoes itself (`revert`), so one home serves a whole module.

`Fuzz.check(m)` runs the real CLI (`archiver.cli.main`, file:// store) and returns what broke
the rules: bad input gets a clear error naming the file and the reason; one bad session never
stops the others; nothing already archived is lost; no traceback reaches the user; a second sync
after the revert archives the victim again.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import shutil
import sqlite3
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from archiver.cli import main
from tests.fx_home import HARNESSES, USER, Box

SEED = 1515


def make_home(base: Path) -> Box:
    """Keys, config and a home with all six harnesses (the demo generators, seed-shaped)."""
    from archiver.demo.run import make_sample_home

    base.mkdir(parents=True, exist_ok=True, mode=0o700)
    box = Box(base=base, home=base / "home", config=base / "config.toml")
    box.home.mkdir()
    (base / "store").mkdir()
    make_sample_home(box.home, USER)
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["keygen", "--out", str(base / "keys")]) == 0
    box.only(*HARNESSES)
    return box


# ---------------------------------------------------------------- the victims


@dataclass(frozen=True)
class Victim:
    """One session's file of one harness, home-relative (a glob: the folders carry the user)."""

    harness: str
    key: str
    glob: str

    def path(self, home: Path) -> Path:
        found = sorted(home.glob(self.glob))
        assert len(found) == 1, (self.glob, found)
        return found[0]


VICTIMS = {
    "claude-code": Victim("claude-code", "claude-code:d23f0824-128b-4f33-8c5c-7fd0a6a3a450",
                          ".claude/projects/*/d23f0824-128b-4f33-8c5c-7fd0a6a3a450.jsonl"),
    "codex": Victim("codex", "codex:0199b0c1-2d3e-7f40-8a1b-000000000010",
                    ".codex/sessions/2026/01/05/rollout-*-0199b0c1-2d3e-7f40-8a1b-000000000010.jsonl"),
    "pi": Victim("pi", "pi:01890a5d-ac96-774b-bcce-b302099a8058",
                 ".pi/agent/sessions/*/2026-01-02T09-00-00-000Z_01890a5d-ac96-774b-bcce-b302099a8058.jsonl"),
    "deepseek-harness": Victim("deepseek-harness", "deepseek-harness:ds-01J9Z8K7M6N5P4Q3R2S1T0V9F2",
                               ".deepseek/sessions/ds-01J9Z8K7M6N5P4Q3R2S1T0V9F2.jsonl"),
    # (Cursor's JSONL mirror is lossy and has no header: its store.db is the session)
    "cursor-agent": Victim("cursor-agent", "cursor-agent:22222222-2222-4222-8222-222222222222",
                           ".cursor/chats/*/22222222-2222-4222-8222-222222222222/store.db"),
    "opencode": Victim("opencode", "opencode:ses_8f3a2b1c0d9dSSSSSSSSSSSSSS", ".local/share/opencode/opencode.db"),
}
CODEX_ZST = Victim("codex", "codex:0199b0c1-2d3e-7f40-8a1b-00000000000b",
                   ".codex/sessions/2025/12/20/rollout-*-0199b0c1-2d3e-7f40-8a1b-00000000000b.jsonl.zst")
CODEX_STATE = ".codex/state_5.sqlite"
CURSOR_META = ".cursor/chats/*/22222222-2222-4222-8222-222222222222/meta.json"
PI_SIDECAR_SESSION = ".pi/agent/sessions/*/2026-01-01T10-00-00-000Z_01890a5d-ac96-774b-bcce-b302099a8057.jsonl"
CLAUDE_SESSION_DIR = ".claude/projects/*/6513270e-269e-4d37-b2a7-4de452e6b438"


# ---------------------------------------------------------------- mutations


@dataclass
class Mutation:
    """`apply(home)` breaks the home; `revert()` puts back every byte it touched. `victims`:
    the session keys it may fail or warn; `files`: a part of the file path every error about it
    names; `must_archive`: the victim must still be archived (the break is optional data);
    `keeps`: after the run the previous archived copy of the victim is still listed."""

    name: str
    harness: str
    victims: tuple[str, ...]
    files: tuple[str, ...]
    apply: Callable[[Path], None]
    must_archive: bool = False
    extra_victims_ok: bool = False  # a shared database: every session in it may warn or fail
    after_run: Callable[[], None] | None = None  # e.g. release a held lock
    revert: Callable[[], None] = lambda: None  # puts back what apply() changed (set by all_mutations)

    def __post_init__(self) -> None:
        self.id = f"{self.harness}:{self.name}"


class Backup:
    """Saves files and folders before a mutation, puts them back (bytes and modes) after."""

    def __init__(self, scratch: Path) -> None:
        self.scratch = scratch
        self.items: list[tuple[Path, Path | None]] = []
        self.n = 0

    def save(self, *paths: Path) -> None:
        for p in paths:
            if any(p == q for q, _ in self.items):
                continue
            if os.path.lexists(p):
                self.n += 1
                copy = self.scratch / f"bak-{self.n}"
                if p.is_dir() and not p.is_symlink():
                    shutil.copytree(p, copy, symlinks=True)
                else:
                    shutil.copy2(p, copy, follow_symlinks=False)
                self.items.append((p, copy))
            else:
                self.items.append((p, None))

    def restore(self) -> None:
        for p, copy in reversed(self.items):
            _remove(p)
            if copy is None:
                continue
            if copy.is_dir() and not copy.is_symlink():
                shutil.copytree(copy, p, symlinks=True)
                shutil.rmtree(copy)
            else:
                shutil.copy2(copy, p, follow_symlinks=False)
                copy.unlink()
        self.items.clear()


def _remove(p: Path) -> None:
    if p.is_symlink() or p.is_file():
        p.unlink()
    elif p.is_dir():
        for sub in p.rglob("*"):
            with contextlib.suppress(OSError):
                os.chmod(sub, 0o700, follow_symlinks=False)
        shutil.rmtree(p)
    elif os.path.lexists(p):
        p.unlink()


def _lines(data: bytes) -> list[bytes]:
    return data.split(b"\n")[:-1] if data.endswith(b"\n") else data.split(b"\n")


def _join(lines: list[bytes]) -> bytes:
    return b"".join(line + b"\n" for line in lines)


def _edit_json(path: Path, index: int, edit: Callable[[dict[str, Any]], None]) -> None:
    lines = _lines(path.read_bytes())
    rec = json.loads(lines[index])
    edit(rec)
    lines[index] = json.dumps(rec, separators=(",", ":")).encode()
    path.write_bytes(_join(lines))


def _set(rec: dict[str, Any], dotted: str, value: Any) -> None:
    """Set (or, for MISSING, remove) a dotted field; a missing parent is left alone."""
    *up, last = dotted.split(".")
    cur: Any = rec
    for k in up:
        if not isinstance(cur, dict) or not isinstance(cur.get(k), dict):
            return
        cur = cur[k]
    if value is MISSING:
        cur.pop(last, None)
    else:
        cur[last] = value


def _get(rec: dict[str, Any], dotted: str) -> Any:
    cur: Any = rec
    for k in dotted.split("."):
        if not isinstance(cur, dict):
            return None
        cur = cur.get(k)
    return cur


MISSING = object()
# mutations the sync's JSON must name the file for (a failed session or a session warning): the
# data is unusable or left out; the other mutations may pass silently (the file is archived as is)
MUST_WARN = {"not-json-first-line", "header-not-first", "scalar-first-line", "sidecar-etc-passwd",
             "sidecar-outside-dotdot", "sidecar-missing", "not-a-database", "db-is-a-directory",
             "missing-table-threads", "missing-table-session_v2", "missing-table-meta", "missing-table-blobs",
             "zst-truncated", "zst-not-zstd", "zst-empty", "corrupt-page", "invalid-utf8-in-string"}
# Claude Code has no header line (metadata records may come first) and reads only a transcript's
# head and tail: a bad line mid-file is the redaction pipeline's (archived as text: test_sync_faults)
SILENT_OK = {"claude-code:header-not-first", "claude-code:invalid-utf8-in-string",
             "opencode:corrupt-page"}  # (its header unchanged, the database is taken as unchanged, not read)


def wrong_types(value: Any) -> list[tuple[str, Any]]:
    """The wrong JSON types a field may turn up as: absent, null, a string where an object or list
    is, a number as a string, a nested list, an object where a scalar is."""
    return [("missing", MISSING), ("null", None), ("nested-list", [[1, ["x"]]]), ("object", {"v": value}),
            ("string", "not-an-object"), ("number-as-string", "1767323045123"), ("number", 12345)]


# the fields of a record a collector reads: per harness, (line index, dotted field)
HEADER_FIELDS = {
    "claude-code": [(0, "type"), (0, "sessionId"), (0, "uuid"), (0, "parentUuid"), (0, "message"),
                    (0, "message.content"), (0, "cwd"), (0, "timestamp"), (1, "message.content"), (1, "type")],
    "codex": [(0, "type"), (0, "payload"), (0, "payload.id"), (0, "payload.cwd"), (0, "payload.timestamp"),
              (0, "payload.source"), (0, "timestamp"), (1, "payload"), (1, "type")],
    "pi": [(0, "type"), (0, "id"), (0, "cwd"), (0, "timestamp"), (0, "version"), (1, "message"), (1, "parentId"),
           (1, "id"), (1, "message.content")],
    "deepseek-harness": [(0, "type"), (0, "id"), (0, "createdAt"), (0, "cwd"), (0, "version"), (0, "parentSession"),
                         (0, "origin"), (0, "delegationDepth"), (1, "data"), (1, "seq"), (1, "type")],
}
# fields that are strings in the seed
_SCALARS = {"claude-code": [(0, "sessionId"), (0, "uuid"), (0, "cwd"), (0, "timestamp"), (0, "type"), (1, "type")],
            "codex": [(0, "type"), (0, "payload.id"), (0, "payload.cwd"), (0, "payload.timestamp"), (0, "timestamp"),
                      (1, "type")],
            "pi": [(0, "type"), (0, "id"), (0, "cwd"), (0, "timestamp"), (1, "parentId"), (1, "id")],
            "deepseek-harness": [(0, "type"), (0, "id"), (0, "cwd"), (0, "parentSession"), (0, "origin"), (1, "type")]}
ID_FIELD = {"claude-code": "sessionId", "codex": "payload.id", "pi": "id", "deepseek-harness": "id"}
ODD_IDS = [("dotdot", "../x"), ("slash", "a/b"), ("long", "L" * 5000), ("unicode", "séssion-ü-会話"),
           ("nfd", unicodedata.normalize("NFD", "séssion-é")), ("empty", "")]
ODD_TIMES = [("epoch-s", 1767323045), ("epoch-ms", 1767323045123), ("epoch-us", 1767323045123456),
             ("no-tz", "2026-01-02T03:04:05"), ("garbage", "yesterday-ish"), ("huge", 10**30), ("negative", -5)]
TIME_KEYS = ("timestamp", "createdAt", "time", "created_at", "updated_at")


def _retime(value: Any) -> Callable[[Path], None]:
    def edit(path: Path) -> None:
        _set_keys(path, TIME_KEYS, value, keep_unparsed=True)
    return edit


def jsonl_mutations(harness: str) -> list[tuple[str, Callable[[Path], None], bool]]:
    """(name, edit of the victim file, must the victim still archive) for a JSONL transcript."""
    def bytes_edit(f: Callable[[bytes], bytes]) -> Callable[[Path], None]:
        return lambda p: p.write_bytes(f(p.read_bytes()))

    def first_string_edit(raw: bytes) -> Callable[[bytes], bytes]:
        def f(data: bytes) -> bytes:
            lines = _lines(data)
            i = min(1, len(lines) - 1)
            q = lines[i].rfind(b'":"') + 3  # inside the last string value of line 1
            lines[i] = lines[i][:q] + raw + lines[i][q:]
            return _join(lines)
        return f

    out: list[tuple[str, Callable[[Path], None], bool]] = [
        ("empty-file", bytes_edit(lambda d: b""), False),
        ("bom", bytes_edit(lambda d: b"\xef\xbb\xbf" + d), True),
        ("crlf", bytes_edit(lambda d: d.replace(b"\n", b"\r\n")), True),
        ("torn-last-line", bytes_edit(lambda d: d + d.split(b"\n")[0][:37]), True),
        ("half-utf8-tail", bytes_edit(lambda d: d + b'{"type":"x","t":"\xe2\x82'), True),
        ("invalid-utf8-in-string", bytes_edit(first_string_edit(b"\xff\xfe\xc3")), True),
        ("nul-byte-in-string", bytes_edit(first_string_edit(b"\x00")), True),
        ("escaped-nul-in-string", bytes_edit(first_string_edit(b"\\u0000")), True),
        ("lone-surrogate-in-string", bytes_edit(first_string_edit(b"\\ud800")), True),
        ("unknown-record-type", bytes_edit(lambda d: d + b'{"type":"zz_never_seen","zz":{"a":[1,2]}}\n'), True),
        ("extra-fields", bytes_edit(lambda d: _join([ln[:-1] + b',"zz_extra":{"k":[null,1]}}' if ln.endswith(b"}") else ln
                                                     for ln in _lines(d)])), True),
        ("not-json-first-line", bytes_edit(lambda d: b"garbage line\n" + d), False),
        ("header-not-first", bytes_edit(lambda d: _join(_lines(d)[1:] + _lines(d)[:1])), False),
        ("header-duplicated-mid-file", bytes_edit(lambda d: _join(_lines(d)[:2] + _lines(d)[:1] + _lines(d)[2:])), True),
        ("array-line", bytes_edit(lambda d: d + b"[1,2,3]\n"), True),
        ("scalar-first-line", bytes_edit(lambda d: b"42\n" + d), False),
        ("deep-nesting", bytes_edit(lambda d: d + b'{"type":"x","z":' + b"[" * 5000 + b"]" * 5000 + b"}\n"), True),
    ]
    for i, dotted in HEADER_FIELDS.get(harness, []):
        for tname, value in wrong_types(None):
            if tname in ("string", "number-as-string", "number") and (i, dotted) in _SCALARS.get(harness, ()):
                continue  # (a string where a string is: not a wrong type)
            out.append((f"line{i}.{dotted}={tname}", _field_edit(i, dotted, value), False))
    for tname, value in ODD_TIMES:
        out.append((f"time={tname}", _retime(value), True))
    if harness in ID_FIELD:
        for iname, value in ODD_IDS:
            out.append((f"id={iname}", _field_edit(0, ID_FIELD[harness], value), False))
    return out


def _field_edit(index: int, dotted: str, value: Any) -> Callable[[Path], None]:
    def edit(path: Path) -> None:
        lines = _lines(path.read_bytes())
        if index >= len(lines):
            return
        _edit_json(path, index, lambda rec: _set(rec, dotted, value))
    return edit


def _sqlite(path: Path, *sql: str) -> None:
    con = sqlite3.connect(path, isolation_level=None)
    try:
        for s in sql:
            if s.startswith("ALTER TABLE") and " DROP COLUMN " in s:
                table, column = s.split()[2], s.split()[-1]
                for (name,) in con.execute("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? "
                                           "AND sql LIKE ?", (table, f"%{column}%")).fetchall():
                    con.execute(f'DROP INDEX "{name}"')  # (an index on the column forbids the drop)
            con.execute(s)
    finally:
        con.close()


def _corrupt_middle(path: Path) -> None:
    """Garbage over the header of the first b-tree page from the middle of the file on (a page
    whose bytes are only cell content may rot unnoticed: no reader can tell)."""
    data = bytearray(path.read_bytes())
    size = int.from_bytes(data[16:18], "big") or 65536
    pages = len(data) // size
    for n in list(range(pages // 2, pages)) + list(range(1, pages // 2)):
        if data[n * size] in (0x02, 0x05, 0x0A, 0x0D):  # interior/leaf, index/table
            data[n * size: n * size + 64] = bytes(random.Random(SEED).randrange(256) for _ in range(64))
            break
    path.write_bytes(bytes(data))


class HeldLock:
    """Another connection in BEGIN EXCLUSIVE (WAL mode) for the length of the sync."""

    def __init__(self) -> None:
        self.con: sqlite3.Connection | None = None

    def take(self, path: Path) -> None:
        self.con = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self.con.execute("PRAGMA journal_mode=WAL")
        self.con.execute("BEGIN EXCLUSIVE")
        self.con.execute("CREATE TABLE IF NOT EXISTS zz_held (x)")

    def release(self) -> None:
        if self.con is not None:
            self.con.execute("ROLLBACK")
            self.con.close()
            self.con = None


def sqlite_mutations(db: str) -> list[tuple[str, list[str]]]:
    """(name, SQL) per database kind: a missing table, a missing column, wrong cell types."""
    if db == "cursor":
        return [("missing-table-blobs", ["DROP TABLE blobs"]), ("missing-table-meta", ["DROP TABLE meta"]),
                ("missing-column-meta.value", ["ALTER TABLE meta DROP COLUMN value"]),
                ("wrong-type-meta.value-int", ["UPDATE meta SET value = 12345"]),
                ("wrong-type-meta.value-blob", ["UPDATE meta SET value = X'00ff10'"]),
                ("wrong-type-meta.value-not-hex", ["UPDATE meta SET value = 'zz-not-hex'"]),
                ("wrong-type-meta.value-hex-of-list", [f"UPDATE meta SET value = '{b'[1,2]'.hex()}'"]),
                ("wrong-type-blobs.data-text", ["UPDATE blobs SET data = 'text, not bytes'"]),
                ("wrong-type-blobs.data-null", ["UPDATE blobs SET data = NULL"])]
    if db == "opencode":
        return [("missing-table-session_message", ["DROP TABLE session_message"]),
                ("missing-table-session_v2", ["DROP TABLE session_v2"]),
                ("missing-column-session_v2.parent_id", ["ALTER TABLE session_v2 DROP COLUMN parent_id"]),
                ("wrong-type-session_message.data-int", ["UPDATE session_message SET data = 42"]),
                ("wrong-type-session_message.data-list", ["UPDATE session_message SET data = '[[1]]'"]),
                ("wrong-type-session_message.data-blob", ["UPDATE session_message SET data = X'ff00fe'"]),
                ("parent-missing", ["UPDATE session_v2 SET parent_id = 'ses_nonexistentXXXXXXXXXXXXX' "
                                    "WHERE id = 'ses_8f3a2b1c0d9dSSSSSSSSSSSSSS'"]),
                ("parent-self", ["UPDATE session_v2 SET parent_id = id WHERE id = 'ses_8f3a2b1c0d9dSSSSSSSSSSSSSS'"]),
                ("parent-cycle", ["UPDATE session_v2 SET parent_id = 'ses_8f3a2b1c0d9eAAAAAAAAAAAAAA' "
                                  "WHERE id = 'ses_8f3a2b1c0d9dSSSSSSSSSSSSSS'",
                                  "UPDATE session_v2 SET parent_id = 'ses_8f3a2b1c0d9dSSSSSSSSSSSSSS' "
                                  "WHERE id = 'ses_8f3a2b1c0d9eAAAAAAAAAAAAAA'"]),
                ("wrong-type-time-text", ["UPDATE session_v2 SET time_created = 'garbage'"])]
    if db == "codex":
        return [("missing-table-threads", ["DROP TABLE threads"]),
                ("missing-column-threads.rollout_path", ["ALTER TABLE threads DROP COLUMN rollout_path"]),
                ("wrong-type-threads.rollout_path-int", ["UPDATE threads SET rollout_path = 7"]),
                ("wrong-type-threads.rollout_path-outside", ["UPDATE threads SET rollout_path = '/etc/passwd'"]),
                ("wrong-type-threads.created_at-text", ["UPDATE threads SET created_at = 'garbage'"])]
    raise KeyError(db)


def all_mutations(scratch: Path) -> list[Mutation]:
    """Every mutation of every harness (seeded: the same list on every run)."""
    out: list[Mutation] = []
    bak = Backup(scratch)

    def m(name: str, harness: str, victims: tuple[str, ...], files: tuple[str, ...], saves: list[str],
          edit: Callable[[Path], None], must: bool = False, shared: bool = False) -> Mutation:
        def apply(home: Path) -> None:
            targets = [p for g in saves for p in (sorted(home.glob(g)) or [home / g])]
            bak.save(*targets)
            edit(home)
        mu = Mutation(name, harness, victims, files, apply, must_archive=must, extra_victims_ok=shared)
        mu.revert = bak.restore
        return mu

    # JSONL transcripts: Claude Code, Codex, pi, DeepSeek
    for h in ("claude-code", "codex", "pi", "deepseek-harness"):
        v = VICTIMS[h]
        name = v.glob.rsplit("/", 1)[-1].replace("*", "")
        stem = name.split("-0199")[-1] if h == "codex" else name
        for mname, edit, must in jsonl_mutations(h):
            out.append(m(mname, h, (v.key,), (stem.removesuffix(".jsonl"),), [v.glob],
                         lambda home, e=edit, v=v: e(v.path(home)), must))
        out.append(m("file-is-a-directory", h, (v.key,), (stem.removesuffix(".jsonl"),), [v.glob],
                     lambda home, v=v: _file_to_dir(v.path(home))))
        out.append(m("symlink-loop", h, (v.key,), (stem.removesuffix(".jsonl"),), [v.glob],
                     lambda home, v=v: _symlink_loop(v.path(home))))
    # file names with odd ids: NFD unicode, 200 characters, a space and a quote
    for h in ("claude-code", "pi", "deepseek-harness", "codex"):
        v = VICTIMS[h]
        for rname, new_stem in (("nfd", unicodedata.normalize("NFD", "sé-ssion-é")), ("long", "L" * 200),
                                ("odd-chars", "a b'c\"d")):
            def rename(home: Path, v: Victim = v, new_stem: str = new_stem) -> None:
                old = v.path(home)
                stem = old.name.removesuffix(".jsonl")
                cut = stem.rsplit("-", 5)[0] + "-" if h == "codex" else ""  # keep Codex's rollout-<time>- prefix
                new = old.with_name(f"{cut}{new_stem}.jsonl")
                bak.save(old, new)
                old.rename(new)
            mu = Mutation(f"file-name-{rname}", h, (v.key,), ("",), rename, must_archive=True)
            mu.revert = bak.restore
            mu.extra_victims_ok = True  # (the session is found under its new id: a new key)
            out.append(mu)
    # lineage: parents that do not exist, itself, a cycle
    pv = VICTIMS["pi"]
    out += [m("parent-missing", "pi", (pv.key,), ("01890a5d",), [pv.glob],
              lambda home: _edit_json(pv.path(home), 0, lambda r: _set(r, "parentSession", str(home / "nowhere.jsonl"))), True),
            m("parent-self", "pi", (pv.key,), ("01890a5d",), [pv.glob],
              lambda home: _edit_json(pv.path(home), 0, lambda r: _set(r, "parentSession", str(pv.path(home)))), True),
            m("parent-relative-dotdot", "pi", (pv.key,), ("01890a5d",), [pv.glob],
              lambda home: _edit_json(pv.path(home), 0, lambda r: _set(r, "parentSession", "../../../../etc/passwd")), True)]
    other_pi = ".pi/agent/sessions/*/2026-01-03T09-00-00-000Z_01890a5d-ac96-774b-bcce-b302099a8059.jsonl"
    out.append(m("parent-cycle", "pi", (pv.key, "pi:01890a5d-ac96-774b-bcce-b302099a8059"), ("01890a5d",),
                 [pv.glob, other_pi],
                 lambda home: (_edit_json(pv.path(home), 0, lambda r: _set(r, "parentSession", str(next(home.glob(other_pi))))),
                               _edit_json(next(home.glob(other_pi)), 0, lambda r: _set(r, "parentSession", str(pv.path(home))))),
                 True))
    dv = VICTIMS["deepseek-harness"]
    other_ds = ".deepseek/sessions/ds-01J9Z8K7M6N5P4Q3R2S1T0V9F3.jsonl"
    out += [m("parent-missing", "deepseek-harness", (dv.key,), ("ds-01J9",), [dv.glob],
              lambda home: _edit_json(dv.path(home), 0, lambda r: r.update(origin="subagent", parentSession="ds-NOPE")), True),
            m("parent-self", "deepseek-harness", (dv.key,), ("ds-01J9",), [dv.glob],
              lambda home: _edit_json(dv.path(home), 0, lambda r: r.update(origin="subagent", parentSession=r["id"])), True),
            m("parent-path-outside", "deepseek-harness", (dv.key,), ("ds-01J9",), [dv.glob],
              lambda home: _edit_json(dv.path(home), 0, lambda r: r.update(parentSession="/etc/passwd")), True),
            m("parent-cycle", "deepseek-harness", (dv.key, "deepseek-harness:ds-01J9Z8K7M6N5P4Q3R2S1T0V9F3"), ("ds-01J9",),
              [dv.glob, other_ds],
              lambda home: (_edit_json(dv.path(home), 0, lambda r: r.update(origin="subagent", parentSession="ds-01J9Z8K7M6N5P4Q3R2S1T0V9F3")),
                            _edit_json(home / other_ds, 0, lambda r: r.update(origin="subagent", parentSession="ds-01J9Z8K7M6N5P4Q3R2S1T0V9F2"))),
              True)]
    cv = VICTIMS["codex"]
    out += [m("parent-missing", "codex", (cv.key,), ("000000000010",), [cv.glob],
              lambda home: _edit_json(cv.path(home), 0, lambda r: _set(r, "payload.forked_from_id", "0199b0c1-0000-7000-8000-nonexistent")), True),
            m("parent-self", "codex", (cv.key,), ("000000000010",), [cv.glob],
              lambda home: _edit_json(cv.path(home), 0, lambda r: _set(r, "payload.forked_from_id", r["payload"]["id"])), True),
            m("parent-subagent-self", "codex", (cv.key,), ("000000000010",), [cv.glob],
              lambda home: _edit_json(cv.path(home), 0, lambda r: _set(r, "payload.parent_thread_id", r["payload"]["id"])), True)]
    # sidecars named by a record: missing, outside the root, /etc/passwd
    pis = PI_SIDECAR_SESSION
    pkey = "pi:01890a5d-ac96-774b-bcce-b302099a8057"
    for sname, target in (("missing", "{home}/nope/pi-bash-ffffffffffffffff.log"), ("etc-passwd", "/etc/passwd"),
                          ("outside-dotdot", "../../../../../../etc/passwd"), ("a-directory", "{home}"),
                          ("not-a-string", 17)):
        out.append(m(f"sidecar-{sname}", "pi", (pkey,), ("01890a5d",), [pis],
                     lambda home, t=target: _set_all(next(home.glob(pis)), "fullOutputPath",
                                                     t.format(home=home) if isinstance(t, str) else t), True))
    cd = CLAUDE_SESSION_DIR
    ckey = "claude-code:6513270e-269e-4d37-b2a7-4de452e6b438"
    out += [m("sidecar-dir-is-a-file", "claude-code", (ckey, "claude-code:a8555b07f0d820fa7", "claude-code:add4fde8f30cd0293"),
              ("6513270e",), [cd], lambda home: _dir_to_file(next(home.glob(cd))), True),
            m("sidecar-tool-result-missing", "claude-code", (ckey,), ("6513270e",), [cd + "/tool-results/b1c2d3e4f.txt"],
              lambda home: next(home.glob(cd + "/tool-results/b1c2d3e4f.txt")).unlink(), True),
            m("sidecar-tool-result-symlink-passwd", "claude-code", (ckey,), ("6513270e",), [cd + "/tool-results/b1c2d3e4f.txt"],
              lambda home: _symlink_to(next(home.glob(cd + "/tool-results/b1c2d3e4f.txt")), "/etc/passwd"), True),
            m("sidecar-meta-json-wrong-type", "claude-code", ("claude-code:a8555b07f0d820fa7",), ("a8555b07",),
              [cd + "/subagents/agent-a8555b07f0d820fa7.meta.json"],
              lambda home: next(home.glob(cd + "/subagents/agent-a8555b07f0d820fa7.meta.json")).write_text('[1, "x", null]'), True),
            m("sidecar-meta-json-torn", "claude-code", ("claude-code:a8555b07f0d820fa7",), ("a8555b07",),
              [cd + "/subagents/agent-a8555b07f0d820fa7.meta.json"],
              lambda home: next(home.glob(cd + "/subagents/agent-a8555b07f0d820fa7.meta.json")).write_bytes(b'{"agentType": "gen')),
            # (the folder's file is a file of the session folder: the parent session archives it)
            m("sidecar-meta-json-is-a-dir", "claude-code", ("claude-code:a8555b07f0d820fa7", ckey), ("a8555b07",),
              [cd + "/subagents/agent-a8555b07f0d820fa7.meta.json"],
              lambda home: _file_to_dir(next(home.glob(cd + "/subagents/agent-a8555b07f0d820fa7.meta.json"))), True)]
    # Cursor: the chat's meta.json sidecar and its store.db
    cuv = VICTIMS["cursor-agent"]
    for sname, body in (("wrong-type-list", b"[1,2]"), ("torn", b'{"schemaVersion": 1, "creat'), ("empty", b""),
                        ("bom", b'\xef\xbb\xbf{"schemaVersion": 1, "createdAtMs": 1760000001000}'),
                        ("created-as-string", b'{"schemaVersion": 1, "createdAtMs": "1760000001000", "title": 5}'),
                        ("created-garbage", b'{"schemaVersion": 1, "createdAtMs": "yesterday", "title": ["x"]}'),
                        ("created-huge", b'{"schemaVersion": 1, "createdAtMs": 1e300}')):
        out.append(m(f"meta-json-{sname}", "cursor-agent", (cuv.key,), ("22222222",), [CURSOR_META],
                     lambda home, b=body: next(home.glob(CURSOR_META)).write_bytes(b), True))
    out.append(m("meta-json-is-a-dir", "cursor-agent", (cuv.key,), ("22222222",), [CURSOR_META],
                 lambda home: _file_to_dir(next(home.glob(CURSOR_META))), True))
    out.append(m("meta-json-missing", "cursor-agent", (cuv.key,), ("22222222",), [CURSOR_META],
                 lambda home: next(home.glob(CURSOR_META)).unlink(), True))
    for dbname, victim, glob, key_files, shared in (
            ("cursor", cuv, cuv.glob, ("22222222",), False),
            ("opencode", VICTIMS["opencode"], VICTIMS["opencode"].glob, ("opencode.db",), True),
            ("codex", cv, CODEX_STATE, ("state_5",), True)):
        vkeys = (victim.key,)
        h = victim.harness
        for sname, sql in sqlite_mutations(dbname):
            out.append(m(sname, h, vkeys, key_files, [glob, glob + "-wal", glob + "-shm"],
                         lambda home, g=glob, s=sql: _sqlite(next(home.glob(g)), *s), False, shared))
        out.append(m("corrupt-page", h, vkeys, key_files, [glob, glob + "-wal", glob + "-shm"],
                     lambda home, g=glob: _corrupt_middle(next(home.glob(g))), False, shared))
        # (a write first, so that the sync reads the database again rather than taking it unchanged)
        out.append(m("empty-wal", h, vkeys, key_files, [glob, glob + "-wal", glob + "-shm"],
                     lambda home, g=glob: (_touch_db(next(home.glob(g))), _empty_wal(next(home.glob(g)))), True, shared))
        out.append(m("garbage-wal", h, vkeys, key_files, [glob, glob + "-wal", glob + "-shm"],
                     lambda home, g=glob: Path(str(next(home.glob(g))) + "-wal").write_bytes(b"\x00junk" * 1000), True, shared))
        out.append(m("not-a-database", h, vkeys, key_files, [glob, glob + "-wal", glob + "-shm"],
                     lambda home, g=glob: next(home.glob(g)).write_bytes(b"SQLite format 2\x00" + b"x" * 3000), False, shared))
        out.append(m("db-is-a-directory", h, vkeys, key_files, [glob, glob + "-wal", glob + "-shm"],
                     lambda home, g=glob: _file_to_dir(next(home.glob(g))), False, shared))
        lock = HeldLock()
        hm = m("held-write-lock", h, vkeys, key_files, [glob, glob + "-wal", glob + "-shm"],
               lambda home, g=glob, lk=lock: (_touch_db(next(home.glob(g))), lk.take(next(home.glob(g)))), True, shared)
        hm.after_run = lock.release
        out.append(hm)
    # Codex .jsonl.zst rollout: cut short, not zstd at all
    zv = CODEX_ZST
    out += [m("zst-truncated", "codex", (zv.key,), ("00000000000b",), [zv.glob],
              lambda home: zv.path(home).write_bytes(zv.path(home).read_bytes()[:40])),
            m("zst-not-zstd", "codex", (zv.key,), ("00000000000b",), [zv.glob],
              lambda home: zv.path(home).write_bytes(b'{"type":"session_meta"}\n' * 5)),
            m("zst-empty", "codex", (zv.key,), ("00000000000b",), [zv.glob], lambda home: zv.path(home).write_bytes(b""))]
    return out


def _set_all(path: Path, key: str, value: Any) -> None:
    _set_keys(path, (key,), value, keep_unparsed=False)


def _set_keys(path: Path, keys: tuple[str, ...], value: Any, keep_unparsed: bool) -> None:
    """Every field named in `keys`, at any depth of every JSONL record, set to `value`; a line
    that is not JSON is kept as it is, or raises, as asked."""
    out = []
    for line in _lines(path.read_bytes()):
        try:
            rec = json.loads(line)
        except ValueError:
            if not keep_unparsed:
                raise
            out.append(line)
            continue
        stack = [rec]
        while stack:
            cur = stack.pop()
            if isinstance(cur, dict):
                for k in list(cur):
                    if k in keys:
                        cur[k] = value
                    else:
                        stack.append(cur[k])
            elif isinstance(cur, list):
                stack.extend(cur)
        out.append(json.dumps(rec, separators=(",", ":")).encode())
    path.write_bytes(_join(out))


def _file_to_dir(p: Path) -> None:
    _remove(p)
    p.mkdir()
    (p / "inside.txt").write_text("a file inside a folder named like a file\n")


def _dir_to_file(p: Path) -> None:
    _remove(p)
    p.write_text("a file named like a folder\n")


def _symlink_loop(p: Path) -> None:
    _remove(p)
    p.symlink_to(p.name)


def _symlink_to(p: Path, target: str) -> None:
    _remove(p)
    p.symlink_to(target)


def _touch_db(db: Path) -> None:
    """A harmless committed write (a table no collector reads)."""
    _sqlite(db, "PRAGMA journal_mode=WAL", "CREATE TABLE IF NOT EXISTS zz_fuzz_touch (x)", "INSERT INTO zz_fuzz_touch VALUES (1)")


def _empty_wal(db: Path) -> None:
    for suffix in ("-wal", "-shm"):
        Path(str(db) + suffix).unlink(missing_ok=True)
    Path(str(db) + "-wal").write_bytes(b"")


# ---------------------------------------------------------------- the checks


@dataclass
class Outcome:
    code: int
    result: dict[str, Any]
    stderr: str
    problems: list[str]


class Fuzz:
    """A synced home; `check(mutation)` applies it, syncs, judges, reverts, syncs again."""

    def __init__(self, base: Path) -> None:
        self.box = make_home(base)
        self.base = base
        self.scratch = base / "scratch"
        self.scratch.mkdir(mode=0o700)
        first, err = self.sync()
        assert first["sessions"]["failed"] == 0 and not first["errors"], first
        self.baseline = self.box.ls()  # as the last run left it (rolled on by finish)
        self.first = dict(self.baseline)  # as first archived
        self.restored_n = 0

    def sync(self) -> tuple[dict[str, Any], str]:
        out, errbuf = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(errbuf):
            code = main(["sync", "--config", str(self.box.config), "--workers", "1", "--json",
                         "--log-format", "json"])
        try:
            res = json.loads(out.getvalue())
        except ValueError:
            raise AssertionError(f"sync exit {code} printed no JSON: {out.getvalue()[-500:]!r} "
                                 f"stderr {errbuf.getvalue()[-1500:]!r}") from None
        res["_code"] = code
        return res, errbuf.getvalue()

    def run(self, mu: Mutation) -> Outcome:
        """Apply, sync once; the problems found (the revert is `finish`)."""
        problems: list[str] = []
        mu.apply(self.box.home)
        try:
            try:
                res, err = self.sync()
            except BaseException as e:  # the traceback a user would see
                return Outcome(-1, {}, "", [f"sync raised {type(e).__name__}: {e}"])
        finally:
            if mu.after_run:
                mu.after_run()
        code = res.pop("_code")
        if "Traceback" in err:
            problems.append("a traceback on stderr")
        if code not in (0, 1):
            problems.append(f"exit {code}")
        if res["sessions"]["failed"] and code != 1:
            problems.append(f"failed sessions but exit {code}")
        after = self.box.ls()
        victims = set(mu.victims)
        vis = {k: after.get(k) for k in victims}
        # errors: each names a victim and its file, and gives a reason
        for e in res["errors"]:
            if not any(e.startswith(k + ":") for k in victims) and not mu.extra_victims_ok:
                problems.append(f"error about a non-victim: {e[:300]}")
            if not any(f in e for f in mu.files):
                problems.append(f"error does not name the file {mu.files}: {e[:300]}")
            if "internal error" in e or "Traceback" in e or " object at 0x" in e:
                problems.append(f"error is not a reason: {e[:300]}")
        for k in victims:
            if k not in self.baseline:
                continue
            if vis[k] is None:
                problems.append(f"{k}: the archived copy is gone from ls")
        for k, s in after.items():
            if any(p["parent"] == k for p in s.get("parents", [])):
                problems.append(f"{k}: archived as its own parent")
        for k, s in after.items():  # a record naming /etc/passwd never gets it archived
            for a in s.get("artifacts", []):
                if a["path"].endswith("passwd") or "/etc/" in a["path"]:
                    problems.append(f"{k}: archived a file from outside the harness: {a['path']}")
        said = [e for e in res["errors"]] + [w for k, ws in res.get("session_warnings", {}).items()
                                              if k.startswith(mu.harness + ":") for w in ws]
        if mu.name in MUST_WARN and mu.id not in SILENT_OK and not any(f in w for w in said for f in mu.files):
            problems.append(f"nothing in the sync's JSON names {mu.files} (errors or session_warnings)")
        failed_keys = {k for k in victims if any(e.startswith(k + ":") for e in res["errors"])}
        if mu.must_archive:
            for k in failed_keys:
                problems.append(f"{k}: failed, but the break is in optional data")
        # every other session: as archived before (same objects), no error about it
        for k, s in self.baseline.items():
            if k in victims:
                continue
            now = after.get(k)
            if now is None:
                problems.append(f"{k}: not in ls after the run")
                continue
            if mu.extra_victims_ok and s["harness"] == mu.harness:
                continue
            if _arts(now) != _arts(s):
                problems.append(f"{k}: artifacts changed: {sorted(set(_arts(now)) ^ set(_arts(s)))[:3]}")
        return Outcome(code, res, err, problems)

    def finish(self, mu: Mutation) -> list[str]:
        """Revert the mutation and sync: the victim archives again, with no error."""
        mu.revert()
        res, err = self.sync()
        problems = []
        if res["errors"] or res["_code"] != 0:
            problems.append(f"after the revert: exit {res['_code']}, errors {res['errors'][:2]}")
        after = self.box.ls()
        for k in mu.victims:
            # (a file the mutation made, archived then, stays archived as gone from the machine)
            if k in self.first and not set(_arts(self.first[k])) <= set(_arts(after.get(k) or {})):
                problems.append(f"after the revert {k} is not archived as first: "
                                f"{sorted(set(_arts(self.first[k])) - set(_arts(after.get(k) or {})))[:2]}")
        self.baseline = after
        return problems

    def restore(self, keys: list[str]) -> dict[str, bytes]:
        """Restore `keys` (latest snapshot) into a fresh folder: {relative path: bytes}."""
        self.restored_n += 1
        to = self.scratch / f"restored-{self.restored_n}"
        self.box.cli("restore", "--to", str(to), *keys)
        return {p.relative_to(to).as_posix(): p.read_bytes() for p in sorted(to.rglob("*")) if p.is_file()}


def _arts(s: dict[str, Any]) -> list[tuple[str, str]]:
    return sorted((a["path"], a.get("sha256") or "") for a in s.get("artifacts", []))
