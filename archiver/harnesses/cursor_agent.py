"""Cursor agent CLI: ~/.cursor (or CURSOR_CONFIG_DIR), per seeds/by-harness/cursor-agent.json.

One session per `chats/<md5(cwd)>/<chatId>/` and per `acp-sessions/<id>/`: store.db
(mode "sqlite": the pipeline copies it through the backup API, so frames that only live
in -wal are kept; -wal/-shm are never archived on their own), meta.json,
prompt_history.json and any other file in that folder; the JSONL mirrors under
`projects/<slug>/agent-transcripts/` (nested `<chatId>/<chatId>.jsonl`, legacy flat
`<chatId>.jsonl|.txt`; mode "whole": the writer rewrites them) and the
`projects/<slug>/terminals/*.txt` files that the chat's blobs name (optional: they may be
gone), reachable or not: a rewound-away turn's shell result is still in the archived store.
A terminals/ file no blob of any store names is not archived: the seed lists terminals/
among the project dir's editor/CLI data "unrelated to transcripts" (shared with the Cursor
editor), linked to a chat only by a shell tool result naming it; one archived while named
keeps its archived copy when the name goes (sync keeps what a session no longer lists). A global `prompt_history.json` of older builds forms the `cursor-agent:@host`
session, one artifact per root holding one (`_host_session`: the XDG config dir's and ~/.cursor's
never share an archive path; restore puts each back where it came from). JSONL mirrors whose chat folder was deleted are archived as their own sessions.
A cloud / background subagent's transcript, named by a `transcript_path` string (its
CloudSubagentReference, or field 7 of its SubagentRunState in the seed's field order), goes
with that subagent's session, or with the calling chat when the run names no subagent; so does
the file a run's `output_path` (field 8 of its SubagentRunState) names, as a sidecar; only
a file under a Cursor folder is archived (optional), any other path is reported.

The blob graph (read through one consistent read of the live store, see `open_store`) is
walked from `meta.latestRootBlobId`, typed by graph position (never by first byte).
UserMessage.conversation_state_blob_id (the rewind anchor) is followed, so the roots a
rewind can return to count as reachable; everything else is reported as unreachable
(superseded checkpoints, rewound-away turns) and archived anyway, inside store.db.

Lineage:
- subagent (shared store): root field 16 `subagent_states` (inline) and field 31
  `subagent_state_refs` (blob) name subagents; each is its own Session whose store.db
  artifact is the parent's (shared=True). `at` = the parent tool call id from field 30
  `subagent_runs_by_parent_tool_call_id`. A subagent also copied into a fork belongs to
  the earliest-created chat that holds it.
- subagent (own store): meta.subagentInfo.parentAgentId, `at` = subagentInfo.toolCallId.
- fork (inferred=True): forks copy every blob and record no parent. A chat C is a fork of
  P when P holds one of C's roots that already has a turn, or (no turns) a user query,
  assistant or tool message in its prompt list (a root without either is the same bytes in
  unrelated chats), P was created before C; the latest such root in C's history is
  the fork point (`at`). Ties prefer P whose name + " (forked)" is C's name. Creation times
  are compared in milliseconds: a createdAt in seconds, micro- or nanoseconds is scaled first.
  A chat named '<name> (forked)' that no older chat's reachable roots explain may come from a
  source rewound past the fork point since (its copied roots are unreachable rows there): then
  the older chat of the same workspace whose blobs table holds the latest of its turned roots
  is the parent (same `at`, inferred=True, with a warning); cached per state of both stores.
  One with no conversation root at all (forked before its source had one, or from a source
  rewound to its turn-less first checkpoint) is the fork of the one older chat of its workspace
  named '<name>' whose latest root is its own (`at` = that root; inferred, with a warning).

Environment: CURSOR_CONFIG_DIR moves the root, else XDG_CONFIG_HOME does
(`$XDG_CONFIG_HOME/cursor`; chats older builds left in ~/.cursor are read too);
CURSOR_DATA_DIR moves `projects/` (read as `$CURSOR_DATA_DIR/projects`), which otherwise
is read under the root and under ~/.cursor, where it stays when the config dir moves.
Archived paths stay in the default layout (`.cursor/...`); `redacted_relpath` renames the md5 folder
to md5 of the redacted cwd and the projects/<slug> folder to slug of the redacted cwd.
"""

from __future__ import annotations

import hashlib
import logging
import os
import posixpath
import re
import sqlite3
from collections import deque
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator
from urllib.parse import quote

import orjson

from archiver.harnesses.base import HarnessContext
from archiver.harnesses.common import (
    Unlistable, configured_root, cwd_folder_relpath, iso_ms, read_regular, relative_or_absolute, sniff_content,
    sqlite_identity, xdg_dir,
)
from archiver.model import Artifact, DiscoveredSession, Format, LineageEdge, SourceArtifact, session_key
from archiver.snapshot import SnapshotError, read_live_sqlite

log = logging.getLogger(__name__)

NAME = "cursor-agent"
FORKED_SUFFIX = " (forked)"
STORE_NAMES = {"store.db", "store.db-wal", "store.db-shm", "store.db-journal"}
_TERMINAL_RE = re.compile(rb"/projects/([^/\s\"'\\<>]+)/terminals/([^/\s\"'\\<>]+?\.txt)")
_MAX_NEST = 12
# a prompt message of the model's side of a conversation
_ROLE_EXCHANGE_RE = re.compile(rb'"role"\s*:\s*"(?:assistant|tool)"')
# a global prompt_history.json of the XDG config dir when ~/.cursor holds one too (archive-only
# path, like Codex's archiver-extracts/), and where restore puts it back
HOST_HISTORY_XDG = ".cursor/archiver-extracts/xdg-config-cursor/prompt_history.json"
HOST_HISTORY_XDG_RESTORED = ".config/cursor/prompt_history.json"


# ---------------------------------------------------------------- protobuf wire format


def _varint(buf: bytes, pos: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        if pos >= len(buf) or shift > 63:
            raise ValueError("truncated varint")
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7


def pb_fields(buf: bytes) -> list[tuple[int, int, Any]]:
    """(field number, wire type, value) of one protobuf message; ValueError if it is not one.
    Length-delimited values are bytes, varints ints, fixed ones raw bytes."""
    out: list[tuple[int, int, Any]] = []
    pos, n = 0, len(buf)
    while pos < n:
        key, pos = _varint(buf, pos)
        fno, wt = key >> 3, key & 7
        if fno == 0:
            raise ValueError("field number 0")
        if wt == 0:
            val, pos = _varint(buf, pos)
        elif wt == 1:
            val, pos = buf[pos : pos + 8], pos + 8
        elif wt == 2:
            ln, pos = _varint(buf, pos)
            if pos + ln > n:
                raise ValueError("truncated length-delimited field")
            val, pos = buf[pos : pos + ln], pos + ln
        elif wt == 5:
            val, pos = buf[pos : pos + 4], pos + 4
        else:
            raise ValueError(f"unsupported wire type {wt}")
        if pos > n:
            raise ValueError("truncated fixed field")
        out.append((fno, wt, val))
    return out


def _map_entries(fields: list[tuple[int, int, Any]], fno: int) -> list[tuple[str, bytes]]:
    """Entries (key string, value bytes) of a protobuf map field."""
    out = []
    for f, wt, val in fields:
        if f != fno or wt != 2:
            continue
        try:
            entry = pb_fields(val)
        except ValueError:
            continue
        key = next((v for k, w, v in entry if k == 1 and w == 2), b"")
        value = next((v for k, w, v in entry if k == 2 and w == 2), b"")
        try:
            out.append((key.decode("utf-8"), value))
        except UnicodeDecodeError:
            continue
    return out


def _ids(fields: list[tuple[int, int, Any]], fno: int) -> list[str]:
    """Blob ids (32 raw bytes -> lowercase hex) of a bytes field."""
    return [val.hex() for f, wt, val in fields if f == fno and wt == 2 and len(val) == 32]


def _strings(fields: list[tuple[int, int, Any]]) -> list[str]:
    out = []
    for _f, wt, val in fields:
        if wt == 2:
            try:
                out.append(val.decode("utf-8"))
            except UnicodeDecodeError:
                pass
    return out


# SubagentRunState's fields in the seed's order: 1 parent_tool_call_id, 2 subagent_id,
# 3 environment, 4 status, 5 title, 6 detail, 7 transcript_path, 8 output_path, ...
_RUN_TRANSCRIPT_PATH = 7
_RUN_OUTPUT_PATH = 8


def _path_like(s: str) -> bool:
    return s.startswith(("/", "~/", "file:///")) and "\n" not in s and "\x00" not in s


def _run_path(run: list[tuple[int, int, Any]], fno: int) -> str | None:
    """A path field of a SubagentRunState (transcript_path, output_path) when path-like."""
    for f, wt, val in run:
        if f == fno and wt == 2:
            try:
                text = val.decode("utf-8")
            except UnicodeDecodeError:
                return None
            return text if _path_like(text) else None
    return None


# ---------------------------------------------------------------- consistent store reads


# store.db is a live WAL store: one read transaction on a consistent view of it, with a
# copy fallback where it cannot be opened read-only (DESIGN known traps)
open_store = read_live_sqlite


def decode_meta(value: str | bytes) -> dict[str, Any]:
    """meta.value is hex of UTF-8 JSON (seed gotcha), not JSON."""
    if isinstance(value, bytes):
        value = value.decode("ascii")
    obj = orjson.loads(bytes.fromhex(value.strip()))
    if not isinstance(obj, dict):
        raise ValueError("meta is not a JSON object")
    return obj


def read_store_meta(conn: sqlite3.Connection) -> dict[str, Any]:
    row = conn.execute("SELECT value FROM meta WHERE key = '0'").fetchone()
    if row is None:
        raise ValueError("meta row '0' missing")
    return decode_meta(row[0])


@dataclass
class SubagentRef:
    subagent_id: str
    parent_owner: str  # chat id or subagent id that holds it
    via: str  # "subagent_states" | "subagent_state_refs"
    created_ms: int | None = None
    last_used_ms: int | None = None
    tool_call_id: str | None = None
    transcript_path: str | None = None  # a cloud subagent's transcript (CloudSubagentReference / run state)


@dataclass
class StoreGraph:
    """What the walk from latestRootBlobId found in one store.db."""

    meta: dict[str, Any]
    latest_root: str
    reachable: set[str] = field(default_factory=set)
    # roots with >= 1 turn, or (no turns) a user query / assistant / tool message in their prompt list
    turned_roots: set[str] = field(default_factory=set)
    root_order: list[str] = field(default_factory=list)  # rewind anchors of the latest root's turns, then it
    subagents: dict[str, SubagentRef] = field(default_factory=dict)
    terminal_refs: dict[str, set[tuple[str, str]]] = field(default_factory=dict)  # owner -> {(slug, file)}
    # owner -> transcript_path of subagent runs that name no subagent of this store (cloud runs)
    run_transcripts: dict[str, set[str]] = field(default_factory=dict)
    # owner (the run's subagent, else its caller) -> output_path of its subagent runs
    run_outputs: dict[str, set[str]] = field(default_factory=dict)
    workspace_uris: list[str] = field(default_factory=list)
    total_blobs: int = 0
    unreachable: int = 0
    missing: int = 0

    @property
    def has_root(self) -> bool:
        return bool(self.latest_root) and self.latest_root in self.reachable


class _Walker:
    """Typed walk of the blob graph. Blob types follow from the referencing field."""

    def __init__(self, conn: sqlite3.Connection, owner: str) -> None:
        self.conn = conn
        self.owner = owner
        self.queue: deque[tuple[str, str, str]] = deque()  # (blob id, type, owner)
        self.seen: set[str] = set()
        self.reachable: set[str] = set()
        self.missing = 0
        self.turned_roots: set[str] = set()
        self.root_turns: dict[str, list[str]] = {}
        self.turn_user: dict[str, str] = {}
        self.user_anchor: dict[str, str] = {}
        self.subagents: dict[str, SubagentRef] = {}
        self.runs: dict[str, str] = {}  # string found in a SubagentRunState -> parent tool call id
        self.run_paths: dict[str, tuple[str, str]] = {}  # parent tool call id -> (owner, transcript_path)
        self.run_outputs: dict[str, tuple[str, str]] = {}  # parent tool call id -> (owner, output_path)
        self.terminals: dict[str, set[tuple[str, str]]] = {}
        self.workspace_uris: list[str] = []

    # -- blob access --
    def _data(self, blob_id: str) -> bytes | None:
        row = self.conn.execute("SELECT data FROM blobs WHERE id = ?", (blob_id,)).fetchone()
        return None if row is None else bytes(row[0] or b"")

    def _exists(self, blob_id: str) -> bool:
        return self.conn.execute("SELECT 1 FROM blobs WHERE id = ?", (blob_id,)).fetchone() is not None

    def _scan_terminals(self, blob_id: str, owner: str) -> None:
        row = self.conn.execute("SELECT instr(data, ?) FROM blobs WHERE id = ?", (b"/terminals/", blob_id)).fetchone()
        if not row or not row[0]:
            return
        data = self._data(blob_id) or b""
        for m in _TERMINAL_RE.finditer(data):
            try:
                self.terminals.setdefault(owner, set()).add((m.group(1).decode(), m.group(2).decode()))
            except UnicodeDecodeError:
                continue

    def push(self, blob_id: str, kind: str, owner: str) -> None:
        if blob_id and blob_id not in self.seen:
            self.seen.add(blob_id)
            self.queue.append((blob_id, kind, owner))

    # -- the walk --
    def run(self, root: str) -> None:
        self.push(root, "root", self.owner)
        while self.queue:
            blob_id, kind, owner = self.queue.popleft()
            if kind in ("json", "leaf"):
                if not self._exists(blob_id):
                    self.missing += 1
                    continue
                self.reachable.add(blob_id)
                if kind == "json":
                    self._scan_terminals(blob_id, owner)
                continue
            data = self._data(blob_id)
            if data is None:
                self.missing += 1
                continue
            self.reachable.add(blob_id)
            try:
                fields = pb_fields(data)
            except ValueError:
                log.debug("blob %s (%s) is not protobuf", blob_id, kind)
                continue
            if kind == "root":
                self._state(fields, owner, blob_id)
            elif kind == "turn":
                self._turn(fields, owner, blob_id)
            elif kind == "user":
                self._user(fields, owner, blob_id)
            elif kind == "step":
                self._scan_terminals(blob_id, owner)
                self._nested_refs(fields, owner, 0)
            elif kind == "archive":
                for i in _ids(fields, 1) + _ids(fields, 4):
                    self.push(i, "json", owner)
            elif kind == "substate":
                self._subagent_state(fields, owner)

    def _state(self, fields: list[tuple[int, int, Any]], owner: str, blob_id: str | None) -> None:
        """agent.v1.ConversationStateStructure (a root blob or an inline subagent state)."""
        turns = _ids(fields, 8)
        if blob_id is not None:
            self.root_turns[blob_id] = turns
            if turns or self._has_exchange(_ids(fields, 1)):
                self.turned_roots.add(blob_id)
        for i in _ids(fields, 1):
            self.push(i, "json", owner)
        for i in turns:
            self.push(i, "turn", owner)
        for fno in (3, 6, 7):  # todos, summary, plan
            for i in _ids(fields, fno):
                self.push(i, "leaf", owner)
        for fno in (11, 13):  # summary archive(s)
            for i in _ids(fields, fno):
                self.push(i, "archive", owner)
        for _path, value in _map_entries(fields, 12):  # legacy file_states: path -> blob id
            if len(value) == 32:
                self.push(value.hex(), "leaf", owner)
        for _path, value in _map_entries(fields, 15):  # file_states_v2: path -> FileStateStructure
            try:
                fs = pb_fields(value)
            except ValueError:
                continue
            for i in _ids(fs, 1) + _ids(fs, 2):
                self.push(i, "leaf", owner)
        if owner == self.owner:
            for _f, wt, val in fields:
                if _f == 9 and wt == 2:
                    try:
                        self.workspace_uris.append(val.decode("utf-8"))
                    except UnicodeDecodeError:
                        pass
        for tool_call_id, value in _map_entries(fields, 30):  # subagent_runs_by_parent_tool_call_id
            try:
                run = pb_fields(value)
            except ValueError:
                continue
            for s in _strings(run):
                self.runs.setdefault(s, tool_call_id)
            path = _run_path(run, _RUN_TRANSCRIPT_PATH)
            if path is not None:
                self.run_paths.setdefault(tool_call_id, (owner, path))
            out = _run_path(run, _RUN_OUTPUT_PATH)
            if out is not None:
                self.run_outputs.setdefault(tool_call_id, (owner, out))
        for sub_id, value in _map_entries(fields, 16):  # subagent_states (inline)
            ref = self._add_subagent(sub_id, owner, "subagent_states")
            try:
                self._subagent_state(pb_fields(value), sub_id, ref)
            except ValueError:
                continue
        for sub_id, value in _map_entries(fields, 31):  # subagent_state_refs (blob ids)
            self._add_subagent(sub_id, owner, "subagent_state_refs")
            if len(value) == 32:
                self.push(value.hex(), "substate", sub_id)

    def _has_exchange(self, prompt_ids: list[str]) -> bool:
        """A root without turns whose model context (root_prompt_messages_json) holds a user query,
        an assistant or a tool message: a conversation, so no two unrelated chats share its bytes
        (the turn-less first checkpoint, or one of only the system prompt and <user_info>, may).
        Read only for roots without turns (a build or host that keeps no UI turns)."""
        for i in prompt_ids:
            data = self._data(i)
            if data and (b"<user_query>" in data or _ROLE_EXCHANGE_RE.search(data)):
                return True
        return False

    def _add_subagent(self, sub_id: str, parent: str, via: str) -> SubagentRef | None:
        if not sub_id or sub_id in self.subagents:
            return None
        ref = SubagentRef(subagent_id=sub_id, parent_owner=parent, via=via)
        self.subagents[sub_id] = ref
        return ref

    def _subagent_state(self, fields: list[tuple[int, int, Any]], sub_id: str, ref: SubagentRef | None = None) -> None:
        """agent.v1.SubagentPersistedState: 1 conversation_state, 2 created ms, 3 last used ms,
        7 cloud_subagent (CloudSubagentReference {bc_id, transcript_path?})."""
        ref = ref or self.subagents.get(sub_id)
        for f, wt, val in fields:
            if f == 1 and wt == 2:
                try:
                    self._state(pb_fields(val), sub_id, None)
                except ValueError:
                    pass
            elif ref is not None and f == 7 and wt == 2 and ref.transcript_path is None:
                try:
                    # its only other field is bc_id, an id: the one path-like string is transcript_path
                    ref.transcript_path = next((x for x in _strings(pb_fields(val)) if _path_like(x)), None)
                except ValueError:
                    pass
            elif ref is not None and f == 2 and wt == 0 and ref.created_ms is None:
                ref.created_ms = val
            elif ref is not None and f == 3 and wt == 0 and ref.last_used_ms is None:
                ref.last_used_ms = val

    def _turn(self, fields: list[tuple[int, int, Any]], owner: str, blob_id: str) -> None:
        for f, wt, val in fields:
            if wt != 2:
                continue
            try:
                inner = pb_fields(val)
            except ValueError:
                continue
            if f == 1:  # agent_conversation_turn: 1 user_message, 2 steps
                users = _ids(inner, 1)
                if users:
                    self.turn_user[blob_id] = users[0]
                for i in users:
                    self.push(i, "user", owner)
                for i in _ids(inner, 2):
                    self.push(i, "step", owner)
            elif f == 2:  # shell_conversation_turn: 1 command, 2 output
                for i in _ids(inner, 1) + _ids(inner, 2):
                    self.push(i, "leaf", owner)

    def _user(self, fields: list[tuple[int, int, Any]], owner: str, blob_id: str) -> None:
        for i in _ids(fields, 10):  # conversation_state_blob_id: the root before this turn
            self.user_anchor[blob_id] = i
            self.push(i, "root", owner)
        for i in _ids(fields, 18) + _ids(fields, 19):
            self.push(i, "leaf", owner)
        self._nested_refs([x for x in fields if x[0] not in (10, 18, 19)], owner, 0)

    def _nested_refs(self, fields: list[tuple[int, int, Any]], owner: str, depth: int) -> None:
        """Raw blobs referenced deep inside a step or user message (read content_blob_id,
        selected image blob_id...): 32-byte values that are ids present in this store."""
        if depth > _MAX_NEST:
            return
        for _f, wt, val in fields:
            if wt != 2:
                continue
            if len(val) == 32:
                hexid = val.hex()
                if hexid not in self.seen and self._exists(hexid):
                    self.push(hexid, "leaf", owner)
                    continue
            if len(val) >= 2:
                try:
                    inner = pb_fields(val)
                except ValueError:
                    continue
                self._nested_refs(inner, owner, depth + 1)


def _unreachable_terminals(conn: sqlite3.Connection, w: _Walker, owner: str) -> None:
    """terminals/ files named only by rows the walk did not reach (a rewound-away turn's shell
    result, a superseded checkpoint): those rows are archived inside store.db, so the output
    files their tool results name (seed: sidecars referenced from shell tool results) go with
    the store's chat. Blob types are unknown there: the path pattern is the only test."""
    named = {ref for refs in w.terminals.values() for ref in refs}
    for blob_id, data in conn.execute("SELECT id, data FROM blobs WHERE instr(data, ?) > 0", (b"/terminals/",)):
        if blob_id in w.reachable or not isinstance(data, (bytes, str)):
            continue
        raw = data.encode("utf-8", "surrogateescape") if isinstance(data, str) else data
        for m in _TERMINAL_RE.finditer(raw):
            try:
                ref = (m.group(1).decode(), m.group(2).decode())
            except UnicodeDecodeError:
                continue
            if ref not in named:
                named.add(ref)
                w.terminals.setdefault(owner, set()).add(ref)


def walk_store(conn: sqlite3.Connection, owner: str) -> StoreGraph:
    """Walk the blob graph of an open store (inside one read transaction)."""
    meta = read_store_meta(conn)
    root = str(meta.get("latestRootBlobId") or "").lower()
    graph = StoreGraph(meta=meta, latest_root=root)
    w = _Walker(conn, owner)
    if root:
        w.run(root)
    for ref in w.subagents.values():
        ref.tool_call_id = w.runs.get(ref.subagent_id)
    for tool_call_id, (run_owner, path) in w.run_paths.items():
        sub = next((r for r in w.subagents.values() if r.tool_call_id == tool_call_id), None)
        if sub is not None:
            sub.transcript_path = sub.transcript_path or path
        else:  # a cloud / background run that names no subagent of this store: its caller's
            graph.run_transcripts.setdefault(run_owner, set()).add(path)
    for tool_call_id, (run_owner, path) in w.run_outputs.items():
        # a run's output file goes with its subagent, else (a run naming no subagent here) its caller
        sub = next((r for r in w.subagents.values() if r.tool_call_id == tool_call_id), None)
        graph.run_outputs.setdefault(sub.subagent_id if sub is not None else run_owner, set()).add(path)
    graph.reachable = w.reachable
    graph.turned_roots = w.turned_roots
    graph.subagents = w.subagents
    graph.terminal_refs = w.terminals
    _unreachable_terminals(conn, w, owner)
    graph.workspace_uris = w.workspace_uris
    graph.missing = w.missing
    order = []
    for turn in w.root_turns.get(root, []):
        anchor = w.user_anchor.get(w.turn_user.get(turn, ""), "")
        if anchor and (not order or order[-1] != anchor):
            order.append(anchor)
    if root:
        order.append(root)
    graph.root_order = order
    total = unreachable = 0
    for (blob_id,) in conn.execute("SELECT id FROM blobs"):
        total += 1
        if str(blob_id).lower() not in w.reachable:
            unreachable += 1
    graph.total_blobs, graph.unreachable = total, unreachable
    return graph


def read_store(db: Path, owner: str | None = None) -> StoreGraph:
    """Consistent read + blob walk of one store.db (live or restored)."""
    with open_store(db) as conn:
        return walk_store(conn, owner or db.parent.name)


# ---------------------------------------------------------------- the graph between runs

# v2: terminals named by unreachable rows. A v2 entry written before run_outputs existed lacks
# that key: _graph_from_json reads it as a miss, so the store is walked again and re-cached.
_GRAPH_CACHE = "cursor-agent:graph:v2"
# child store + state, source store + state -> the fork point found among the source's rows ("": none)
_FORK_ROWS_CACHE = "cursor-agent:fork-rows:v1"


def _store_identity(db: Path) -> str | None:
    """The store's state (store.db and its -wal); None when a stat fails (then no caching)."""
    try:
        return sqlite_identity(db)
    except OSError:
        return None


def _graph_to_json(g: StoreGraph) -> str | None:
    """StoreGraph as JSON, or None when some value (in meta, say) is not serializable.
    Of `reachable` only the latest root is kept (discovery asks nothing else of it:
    `has_root`); the full set would cost ~70 bytes per blob in every run's state."""
    try:
        return orjson.dumps(
            {
                "meta": g.meta,
                "latest_root": g.latest_root,
                "reachable": [g.latest_root] if g.has_root else [],
                # (named anew when turn-less roots holding an exchange began to count: an entry of
                # before is a miss, read again)
                "conversation_roots": sorted(g.turned_roots),
                "root_order": g.root_order,
                "subagents": {k: asdict(v) for k, v in g.subagents.items()},
                "terminal_refs": {k: sorted(v) for k, v in g.terminal_refs.items()},
                "run_transcripts": {k: sorted(v) for k, v in g.run_transcripts.items()},
                "run_outputs": {k: sorted(v) for k, v in g.run_outputs.items()},
                "workspace_uris": g.workspace_uris,
                "total_blobs": g.total_blobs,
                "unreachable": g.unreachable,
                "missing": g.missing,
            }
        ).decode()
    except TypeError:  # orjson.JSONEncodeError included
        return None


def _strs(v: Any) -> list[str]:
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        raise TypeError("not a list of strings")
    return v


def _count(v: Any) -> int:
    if not isinstance(v, int) or isinstance(v, bool) or v < 0:
        raise TypeError("not a count")
    return v


def _ref_from_json(v: Any) -> SubagentRef:
    ref = SubagentRef(**v)  # TypeError on a non-dict or on missing / unknown keys
    _strs([ref.subagent_id, ref.parent_owner, ref.via])
    for opt in (ref.tool_call_id, ref.transcript_path):
        if opt is not None:
            _strs([opt])
    for n in (ref.created_ms, ref.last_used_ms):
        if n is not None:
            _count(n)
    return ref


def _terminals_from_json(v: Any) -> set[tuple[str, str]]:
    if not isinstance(v, list) or not all(isinstance(p, list) and len(p) == 2 for p in v):
        raise TypeError("not a list of pairs")
    return {(a, b) for a, b in (_strs(p) for p in v)}


def _graph_from_json(value: str) -> StoreGraph | None:
    """The StoreGraph `_graph_to_json` wrote, or None for anything else (a cache miss)."""
    try:
        d = orjson.loads(value)
        meta, latest_root = d["meta"], d["latest_root"]
        if not isinstance(meta, dict) or not isinstance(latest_root, str):
            raise TypeError("meta / latest_root")
        subagents, terminals, runs, outputs = d["subagents"], d["terminal_refs"], d["run_transcripts"], d["run_outputs"]
        if not all(isinstance(x, dict) for x in (subagents, terminals, runs, outputs)):
            raise TypeError("subagents / terminal_refs / run_transcripts / run_outputs")
        return StoreGraph(
            meta=meta,
            latest_root=latest_root,
            reachable=set(_strs(d["reachable"])),
            turned_roots=set(_strs(d["conversation_roots"])),
            root_order=_strs(d["root_order"]),
            subagents={k: _ref_from_json(v) for k, v in subagents.items()},
            terminal_refs={k: _terminals_from_json(v) for k, v in terminals.items()},
            run_transcripts={k: set(_strs(v)) for k, v in runs.items()},
            run_outputs={k: set(_strs(v)) for k, v in outputs.items()},
            workspace_uris=_strs(d["workspace_uris"]),
            total_blobs=_count(d["total_blobs"]),
            unreachable=_count(d["unreachable"]),
            missing=_count(d["missing"]),
        )
    except (orjson.JSONDecodeError, TypeError, KeyError, ValueError):
        return None


# ---------------------------------------------------------------- helpers


def keyed_workspace(md5: str, pseudonym: Callable[[str, str], str]) -> str:
    """The archived name of a chats/<md5>/ folder whose cwd is unknown: a keyed digest of the
    md5 (32 hex digits), which cannot be tested against guessed paths without the team key."""
    return pseudonym("cursor-workspace", md5)[:32]


def md5_dir(cwd: str) -> str:
    """The chats/ folder name: lowercase hex MD5 of path.resolve(cwd) (normalised, no fs access)."""
    return hashlib.md5(posixpath.normpath(cwd).encode("utf-8")).hexdigest()


def slug(cwd: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", cwd).strip("-")


def encode_chat_id(chat_id: str) -> str:
    """Mirror file names: encodeURIComponent, '%' -> '_', at most 200 chars."""
    return quote(chat_id, safe="-_.!~*'()").replace("%", "_")[:200]


def _ms(v: Any) -> float | None:
    """A time as epoch milliseconds. meta.createdAt is ms, but its readers normalise seconds,
    micro- and nanoseconds too (seed), so a value is scaled by its magnitude (as iso_ms's
    guess_unit): lineage compares creation times of different chats and sources."""
    if not isinstance(v, (int, float)) or isinstance(v, bool) or v != v or v <= 0:
        return None
    if v > 1e17:
        return v / 1e6  # ns
    if v > 1e14:
        return v / 1e3  # us
    if v < 1e11:
        return v * 1e3  # s
    return float(v)


def _read_json(path: Path, limit: int = 16 * 1024 * 1024) -> Any:
    """A small JSON file (meta.json); None when unreadable, not JSON or over `limit`. A symlink
    or FIFO swapped in after the caller's check raises (SnapshotError naming it): refused."""
    try:
        raw = read_regular(path, limit)
        return orjson.loads(raw) if raw is not None else None
    except FileNotFoundError:
        return None
    except SnapshotError:
        raise
    except (OSError, orjson.JSONDecodeError):
        return None


def _entries(d: Path, unlistable: Unlistable | None = None) -> list[Path]:
    """Sorted entries of a directory; [] when it is missing or unreadable (logged, and
    counted in `unlistable`)."""
    try:
        return sorted(d.iterdir()) if d.is_dir() else []
    except OSError as e:
        log.warning("cursor-agent: cannot list a directory (%s)", (e.strerror or type(e).__name__).lower())
        if unlistable is not None:
            unlistable.add(e)
        return []


def _plain_file(p: Path) -> bool:
    """A regular file that is not a symlink: a link is never followed (it may lead out of HOME,
    to a key or a system file), as in every other collector."""
    return p.is_file() and not p.is_symlink()


def _subdirs(d: Path, unlistable: Unlistable | None = None) -> list[Path]:
    return [p for p in _entries(d, unlistable) if p.is_dir() and not p.is_symlink()]


def _fork_depth(name: str) -> int:
    n = 0
    while name.endswith(FORKED_SUFFIX):
        n += 1
        name = name[: -len(FORKED_SUFFIX)]
    return n


@dataclass
class _Chat:
    chat_id: str
    folder: Path
    area: str  # "chats" | "acp-sessions"
    md5: str | None = None
    meta_json: dict[str, Any] | None = None
    graph: StoreGraph | None = None
    warnings: list[str] = field(default_factory=list)
    cwd: str | None = None
    name: str | None = None
    created_ms: float | None = None
    updated_ms: float | None = None
    subagent_info: dict[str, Any] | None = None
    fork_edge: LineageEdge | None = None


@dataclass
class _Mirrors:
    nested: dict[str, list[Path]] = field(default_factory=dict)  # enc chat id -> files in <id>/
    flat: dict[str, list[Path]] = field(default_factory=dict)  # enc chat id -> legacy flat files
    subs: dict[str, list[tuple[str, Path]]] = field(default_factory=dict)  # subagent id -> [(parent enc, file)]


# ---------------------------------------------------------------- the collector


class CursorAgent:
    name = NAME
    native_root = ".cursor"

    @classmethod
    def cwd_folders(cls) -> list[tuple[str, Callable[[str], str]]]:
        """Folders named after a cwd (restore --relocate renames them)."""
        return [(f"{cls.native_root}/chats/", md5_dir), (f"{cls.native_root}/projects/", slug)]

    def __init__(self, ctx: HarnessContext) -> None:
        self.ctx = ctx
        # projects/<slug> folder -> the cwd it is slug(cwd) of, from the chats discovered (for
        # files of sessions that record no cwd: orphan mirrors, chats without meta.json)
        self._slug_cwds: dict[str, str] = {}
        self._unlistable: list[str] = []  # a run's chat folders that could not be listed (discover)

    @property
    def root(self) -> Path:
        """Cursor's config dir, where chats/ live: CURSOR_CONFIG_DIR (or the configured root),
        else $XDG_CONFIG_HOME/cursor when XDG_CONFIG_HOME is set (even if ~/.cursor exists:
        the editor and projects/ keep that one alive), else ~/.cursor."""
        chosen = configured_root(self.ctx, "CURSOR_CONFIG_DIR")
        if chosen is not None:
            return chosen
        if self.ctx.env.get("XDG_CONFIG_HOME", "").strip():
            return xdg_dir(self.ctx, "XDG_CONFIG_HOME", ".config") / "cursor"
        default = self.ctx.home / ".cursor"
        return default if default.exists() else xdg_dir(self.ctx, "XDG_CONFIG_HOME", ".config") / "cursor"

    @property
    def roots(self) -> list[Path]:
        """Where chats/ and acp-sessions/ are read: the root, then ~/.cursor when the root
        was moved by XDG_CONFIG_HOME (builds from before the move wrote there)."""
        root, home = self.root, self.ctx.home / ".cursor"
        if configured_root(self.ctx, "CURSOR_CONFIG_DIR") is None and home != root and home.is_dir():
            return [root, home]
        return [root]

    @property
    def projects_dir(self) -> Path:
        data = self.ctx.env.get("CURSOR_DATA_DIR")
        return (Path(data).expanduser() if data else self.root) / "projects"

    @property
    def projects_dirs(self) -> list[Path]:
        """projects_dir, then ~/.cursor/projects: without CURSOR_DATA_DIR the project data dir
        stays there when CURSOR_CONFIG_DIR or XDG_CONFIG_HOME moves the config dir."""
        first, home = self.projects_dir, self.ctx.home / ".cursor" / "projects"
        if self.ctx.env.get("CURSOR_DATA_DIR") or home == first:
            return [first]
        return [first, home]

    # ---- paths ----
    def _native(self, file: Path) -> str:
        for projects in self.projects_dirs:
            if file.is_relative_to(projects):
                return f"{self.native_root}/projects/{file.relative_to(projects).as_posix()}"
        for root in self.roots:
            if file.is_relative_to(root):
                return f"{self.native_root}/{file.relative_to(root).as_posix()}"
        raise ValueError(f"{file} is under no Cursor root")

    def _src(
        self, file: Path, role: str, fmt: Format, mode: str = "whole", shared: bool = False, optional: bool = False
    ) -> SourceArtifact:
        return SourceArtifact(
            source=file,
            path=self._native(file),
            role=role,  # type: ignore[arg-type]
            format=fmt,
            mode=mode,  # type: ignore[arg-type]
            shared=shared,
            optional=optional,
        )

    def redacted_relpath(
        self,
        src: SourceArtifact,
        session: DiscoveredSession,
        redact_relpath: Callable[[str], str],
        redact_text: Callable[[str], str],
        pseudonym: Callable[[str, str], str] | None = None,
    ) -> str:
        """`.cursor/chats/<md5(cwd)>/...` -> `.cursor/chats/<md5(redact_text(cwd))>/...` and
        `.cursor/projects/<slug(cwd)>/...` -> `.cursor/projects/<slug(redact_text(cwd))>/...`, so
        a restored chat, its mirrors and terminals sit where Cursor looks for the redacted cwd
        (the slug turns every non-alphanumeric run into '-': a user name such as `a_b` or
        `a.b` is `a-b` there, which the path rules cannot see); the rest of the path goes
        through redact_relpath.

        A chat whose cwd is unknown (no meta.json, no sibling recorded it) cannot have its md5
        folder rebuilt; the native name is an unkeyed md5 of a home path, on which anyone could
        test guesses of user names and projects. With `pseudonym` (the redactor's keyed digest,
        `Pseudonymizer.digest(kind, value)`: the pipeline passes it) the folder is archived as
        that digest of the md5 (32 hex digits, the same for every run, machine and chat of the
        folder; only team-key holders can test a guess); without it, unchanged."""
        prefix = f"{self.native_root}/projects/"
        if src.path.startswith(prefix):
            folder = src.path[len(prefix):].partition("/")[0]
            cwd = session.cwd if session.cwd and slug(session.cwd) == folder else self._slug_cwds.get(folder)
            return cwd_folder_relpath(src.path, prefix, cwd, slug, redact_relpath, redact_text, pseudonym)
        red = redact_relpath(src.path)
        parts = src.path.split("/")
        if len(parts) >= 4 and parts[0] == self.native_root and parts[1] == "chats":
            if session.cwd:
                new = md5_dir(redact_text(session.cwd))
            elif pseudonym is not None:
                new = keyed_workspace(parts[2], pseudonym)
            else:
                return red
            rparts = red.split("/")
            if len(rparts) == len(parts):
                rparts[2] = new
                return "/".join(rparts)
            return "/".join([parts[0], "chats", new, *parts[3:]])
        return red

    # ---- discovery ----
    def discover(self) -> Iterator[DiscoveredSession]:
        chats: list[_Chat] = []
        seen: dict[str, _Chat] = {}
        self._unlistable = []
        for root in self.roots:
            for chat in self._chat_folders(root):
                if chat.chat_id in seen:
                    seen[chat.chat_id].warnings.append(f"another copy of this chat under {root} is not archived")
                    continue
                seen[chat.chat_id] = chat
                chats.append(chat)
        for chat in chats:
            try:
                self._load_chat(chat)
            except Exception as e:  # one bad chat never stops discovery
                chat.warnings.append(f"{self._native(chat.folder)}: unreadable ({type(e).__name__}: {e})")
        self._workspace_cwds(chats)
        self._slug_cwds = {}
        for c in chats:
            if c.cwd:
                self._slug_cwds.setdefault(slug(c.cwd), c.cwd)
        mirrors = self._index_mirrors()
        self._infer_forks(chats)
        owner_of = self._assign_subagents(chats)
        chat_ids = {c.chat_id for c in chats}
        claimed_chats: set[str] = set()
        claimed_subs: set[str] = set(chat_ids)  # a subagent with its own store is its chat's session
        claimed_files: set[Path] = set()  # files a transcript_path names: no orphan mirror sessions
        for chat in chats:
            claimed_chats.add(encode_chat_id(chat.chat_id))
            try:
                yield self._chat_session(chat, mirrors, claimed_files)
            except Exception as e:
                yield DiscoveredSession(
                    harness=NAME,
                    session_id=chat.chat_id,
                    warnings=[f"{self._native(chat.folder)}: {type(e).__name__}: {e}"],
                )
                continue
            if chat.graph is None:
                continue
            for sub_id, ref in chat.graph.subagents.items():
                if owner_of.get(sub_id) is not chat or sub_id in chat_ids:
                    continue
                claimed_subs.add(sub_id)
                yield self._subagent_session(chat, ref, mirrors, claimed_files)
        yield from self._orphan_mirrors(mirrors, claimed_chats, claimed_subs, claimed_files)
        host = self._host_session()
        if host is not None:
            yield host

    def _chat_folders(self, root: Path) -> list[_Chat]:
        out: list[_Chat] = []
        unlistable = Unlistable()  # where chats are but cannot be listed
        for ws in _subdirs(root / "chats", unlistable):
            for folder in _subdirs(ws, unlistable):
                out.append(_Chat(chat_id=folder.name, folder=folder, area="chats", md5=ws.name))
        for folder in _subdirs(root / "acp-sessions", unlistable):
            out.append(_Chat(chat_id=folder.name, folder=folder, area="acp-sessions"))
        where = relative_or_absolute(root, self.ctx.home)
        self._unlistable += unlistable.problems(where, "chat folder(s)", "; their chats are not refreshed")
        return out

    def _load_chat(self, chat: _Chat) -> None:
        folder_rel = self._native(chat.folder)
        if chat.md5:  # an unkeyed hash of the original cwd: a guessed user name could be tested on it
            folder_rel = folder_rel.replace(f"/{chat.md5}/", "/<workspace>/")
        meta_path = chat.folder / "meta.json"
        if os.path.lexists(meta_path):
            try:
                mj = _read_json(meta_path)
            except SnapshotError as e:  # a symlink, FIFO or folder: refused (never followed, never waited on)
                chat.warnings.append(f"{folder_rel}/meta.json: {e.strerror or 'not a regular file'}")
            else:
                if isinstance(mj, dict):
                    chat.meta_json = mj
                else:
                    chat.warnings.append(f"{folder_rel}/meta.json: not a JSON object")
        store = chat.folder / "store.db"
        store_rel = f"{folder_rel}/store.db"
        if _plain_file(store):
            try:
                chat.graph = self._read_graph(store, chat.chat_id)
            except SnapshotError as e:  # swapped for a symlink since the check (snapshot.check_sqlite_files)
                chat.warnings.append(f"{store_rel}: not read ({str(e).replace(str(chat.folder), folder_rel)})")
            except (sqlite3.Error, ValueError, UnicodeDecodeError, orjson.JSONDecodeError) as e:
                chat.warnings.append(f"{store_rel}: blob graph not read ({type(e).__name__}: {e})")
        else:
            chat.warnings.append(f"{folder_rel}: no store.db")
        mj = chat.meta_json or {}
        sm = chat.graph.meta if chat.graph else {}
        agent_id = sm.get("agentId")
        if agent_id and str(agent_id) != chat.chat_id:
            chat.warnings.append(f"{store_rel}: meta.agentId {agent_id} differs from its folder name")
        title = mj.get("title") if isinstance(mj.get("title"), str) else None
        chat.name = title or (sm.get("name") if isinstance(sm.get("name"), str) else None)
        chat.created_ms = _ms(sm.get("createdAt")) or _ms(mj.get("createdAtMs"))
        chat.updated_ms = _ms(mj.get("updatedAtMs"))
        info = sm.get("subagentInfo")
        chat.subagent_info = info if isinstance(info, dict) and info.get("parentAgentId") else None
        cwd = mj.get("cwd") if isinstance(mj.get("cwd"), str) else None
        if cwd is None and chat.md5 and chat.graph:
            for uri in chat.graph.workspace_uris:  # previous_workspace_uris, file:// URIs
                path = uri[len("file://") :] if uri.startswith("file://") else uri
                if path.startswith("/") and md5_dir(path) == chat.md5:
                    cwd = path
                    break
        chat.cwd = cwd
        if chat.md5 and cwd is not None and md5_dir(cwd) != chat.md5:
            chat.warnings.append(f"{folder_rel}: md5 of the recorded cwd does not match the folder name")
        g = chat.graph
        if g is not None:
            if g.latest_root and not g.has_root:
                chat.warnings.append(f"{store_rel}: latestRootBlobId {g.latest_root} not in blobs")
            if g.unreachable:
                chat.warnings.append(
                    f"{g.unreachable} unreachable blobs archived (superseded or rewound-away: "
                    f"in {store_rel} but not reachable from latestRootBlobId)"
                )
            if g.missing:
                chat.warnings.append(f"{store_rel}: {g.missing} referenced blobs missing from the store")

    def _workspace_cwds(self, chats: list[_Chat]) -> None:
        """The chats/<md5>/ folder is md5(cwd) of every chat in it (seed layout): a chat that
        records no cwd (no meta.json yet, a subagent's store, a chat without a checkpoint) takes
        the cwd a sibling recorded whose md5 is the folder name. Without it, its archived path
        would keep the md5 of the unredacted cwd and a restore would put it in another folder
        than its siblings (md5 of the redacted cwd), where Cursor does not list it."""
        known: dict[str, str] = {}
        for c in chats:
            if c.md5 and c.cwd is not None and md5_dir(c.cwd) == c.md5:
                known.setdefault(c.md5, c.cwd)
        for c in chats:
            if not c.md5 or c.cwd is not None:
                continue
            c.cwd = known.get(c.md5)
            if c.cwd is None:
                folder_rel = self._native(c.folder).replace(f"/{c.md5}/", "/<workspace>/")
                c.warnings.append(f"{folder_rel}: cwd not recorded; the md5 folder (an unkeyed hash of the cwd) is "
                                  "archived under a keyed name, so a restore cannot put the chat where Cursor lists "
                                  "it (move it into chats/<md5 of its cwd>/)")

    def _read_graph(self, store: Path, owner: str) -> StoreGraph:
        """read_store, through ctx.cache when store.db and its -wal are unchanged."""
        before = _store_identity(store)
        if before is None:
            return read_store(store, owner)
        key = f"{_GRAPH_CACHE}:{store}:{owner}:{before}"
        cached = self.ctx.cache.get(key)
        graph = _graph_from_json(cached) if cached is not None else None
        if graph is not None:
            return graph
        graph = read_store(store, owner)  # errors propagate uncached
        # identity taken before the read: a write during it can only make the next run miss
        if _store_identity(store) == before:
            value = _graph_to_json(graph)
            if value is not None:
                self.ctx.cache[key] = value
        return graph

    def _index_mirrors(self) -> _Mirrors:
        m = _Mirrors()
        for proj in [p for projects in self.projects_dirs for p in _subdirs(projects)]:
            at = proj / "agent-transcripts"
            for entry in _entries(at):
                if entry.is_dir() and not entry.is_symlink():
                    files = [f for f in _entries(entry) if _plain_file(f)]
                    m.nested.setdefault(entry.name, []).extend(files)
                    for f in _entries(entry / "subagents"):
                        if _plain_file(f) and f.suffix in (".jsonl", ".txt"):
                            m.subs.setdefault(f.stem, []).append((entry.name, f))
                elif _plain_file(entry) and entry.suffix in (".jsonl", ".txt"):
                    m.flat.setdefault(entry.stem, []).append(entry)
        return m

    def _mirror_sources(self, files: list[Path]) -> list[SourceArtifact]:
        out = []
        for f in files:
            fmt: Format = "jsonl" if f.suffix == ".jsonl" else "text"
            out.append(self._src(f, "transcript", fmt, "whole"))
        return out

    def _terminal_sources(self, refs: set[tuple[str, str]]) -> list[SourceArtifact]:
        out = []
        for proj, name in sorted(refs):
            files = [d / proj / "terminals" / name for d in self.projects_dirs]
            if any(x.is_symlink() for x in files):
                continue  # a link named like a terminal file is not followed
            f = next((x for x in files if x.is_file()), files[0])
            out.append(self._src(f, "sidecar", "text", "whole", optional=True))
        return out

    def _infer_forks(self, chats: list[_Chat]) -> None:
        index: dict[str, list[_Chat]] = {}
        for c in chats:
            if c.graph is not None and c.subagent_info is None:
                for r in c.graph.turned_roots:
                    index.setdefault(r, []).append(c)
        for child in chats:
            g = child.graph
            if g is None or child.subagent_info is not None:
                continue
            for r in reversed(g.root_order):
                if r not in g.turned_roots:
                    continue
                cands = [p for p in index.get(r, []) if p is not child and self._older(p, child)]
                if not cands:
                    continue
                cname = child.name or ""
                cands.sort(
                    key=lambda p: (
                        (p.name or "") + FORKED_SUFFIX == cname,
                        p.created_ms or 0,
                        p.chat_id,
                    )
                )
                parent = cands[-1]
                child.fork_edge = LineageEdge(relation="fork", parent=session_key(NAME, parent.chat_id), at=r, inferred=True)
                break
            if child.fork_edge is None and (child.name or "").endswith(FORKED_SUFFIX):
                self._fork_from_rows(child, chats)
            if child.fork_edge is None and (child.name or "").endswith(FORKED_SUFFIX) and not g.turned_roots:
                self._fork_by_name(child, chats)

    def _fork_by_name(self, child: _Chat, chats: list[_Chat]) -> None:
        """A '<name> (forked)' chat without a conversation root (its source had none yet, or was
        rewound to its turn-less first checkpoint): /fork set the same latestRootBlobId, but such
        a root is the same bytes in unrelated chats, so the source is the older chat of the same
        workspace named '<name>' whose latest root is the child's (both '' when neither has a
        checkpoint), when exactly one is. at = that root (None when empty); inferred, warned."""
        g = child.graph
        if g is None:
            return
        name = (child.name or "")[: -len(FORKED_SUFFIX)]
        cands = [
            p for p in chats
            if p is not child and p.graph is not None and p.subagent_info is None and p.md5 == child.md5
            and p.area == child.area and (p.name or "") == name and p.graph.latest_root == g.latest_root
            and self._older(p, child)
        ]
        if len(cands) > 1:
            child.warnings.append(f"named as a fork of one of {len(cands)} older chats of its workspace that share "
                                  "its turn-less latest root; none linked")
        if len(cands) != 1:
            return
        child.fork_edge = LineageEdge(relation="fork", parent=session_key(NAME, cands[0].chat_id),
                                      at=g.latest_root or None, inferred=True)
        child.warnings.append("no conversation root to match: fork source inferred from its name and their shared "
                              "latest root")

    def _fork_from_rows(self, child: _Chat, chats: list[_Chat]) -> None:
        """A chat named '<name> (forked)' whose roots no older chat reaches: its source may have
        been rewound (or resumed from an earlier root) past the fork point since, so the roots
        /fork copied are rewound-away rows of the source's store (seed: rewind keeps them as
        unreachable rows), which the walk does not reach. The source is then the older chat of
        the same workspace whose store holds the latest of the child's turned roots as a row;
        one whose name + ' (forked)' is the child's is asked first. Only such chats are looked
        at (each lookup opens another store); the answer is cached per state of both stores."""
        g = child.graph
        if g is None:
            return
        roots = [r for r in reversed(g.root_order) if r in g.turned_roots]
        if not roots:
            return
        cname = child.name or ""
        cands = [
            p for p in chats
            if p is not child and p.graph is not None and p.subagent_info is None and p.md5 == child.md5
            and p.area == child.area and self._older(p, child)
        ]
        cands.sort(key=lambda p: ((p.name or "") + FORKED_SUFFIX == cname, p.created_ms or 0, p.chat_id), reverse=True)
        for parent in cands:
            at = self._root_row(parent.folder / "store.db", child.folder / "store.db", roots)
            if at:
                child.fork_edge = LineageEdge(relation="fork", parent=session_key(NAME, parent.chat_id), at=at, inferred=True)
                child.warnings.append(
                    f"fork point {at} is no longer reachable in its source's store (rewound away there); "
                    "source inferred from the rows /fork copied"
                )
                return

    def _root_row(self, store: Path, child_store: Path, roots: list[str]) -> str | None:
        """The first of `roots` that `store` holds as a blobs row (reachable or not)."""
        ident, cident = _store_identity(store), _store_identity(child_store)
        key = f"{_FORK_ROWS_CACHE}:{child_store}:{cident}:{store}:{ident}"
        if ident is not None and cident is not None:
            hit = self.ctx.cache.get(key)
            if hit is not None:
                return hit or None
        try:
            with open_store(store) as conn:
                have = {
                    str(r[0]).lower()
                    for r in conn.execute(f"SELECT id FROM blobs WHERE id IN ({','.join('?' * len(roots))})", roots)
                }
        except (sqlite3.Error, OSError):
            return None
        found = next((r for r in roots if r in have), None)
        if ident is not None and ident == _store_identity(store) and cident is not None:
            self.ctx.cache[key] = found or ""
        return found

    @staticmethod
    def _older(p: _Chat, c: _Chat) -> bool:
        if p.created_ms is not None and c.created_ms is not None and p.created_ms != c.created_ms:
            return p.created_ms < c.created_ms
        return _fork_depth(p.name or "") < _fork_depth(c.name or "")

    def _assign_subagents(self, chats: list[_Chat]) -> dict[str, _Chat]:
        """A fork copies its source's subagents: each id goes to the earliest chat holding it."""
        owner: dict[str, _Chat] = {}
        for c in sorted(chats, key=lambda c: (c.created_ms is None, c.created_ms or 0, c.chat_id)):
            if c.graph is None:
                continue
            for sub_id in c.graph.subagents:
                owner.setdefault(sub_id, c)
        return owner

    def _cloud_transcripts(
        self, paths: list[str], s: DiscoveredSession, claimed: set[Path], output: bool = False
    ) -> list[SourceArtifact]:
        """Files that transcript_path strings name (a cloud / background subagent's transcript,
        seed 'sidecar references'): archived when they lie under a Cursor folder (config root,
        projects/, ~/.cursor), in that layout; a path elsewhere (any file of HOME could be named)
        or not on this machine is reported, never followed. With `output`, the paths are the
        runs' output_path (what a background run wrote), archived the same way as sidecars."""
        field_name, role = ("output_path", "sidecar") if output else ("transcript_path", "transcript")
        out: list[SourceArtifact] = []
        have = {src.source for src in s.sources}
        for raw in sorted(set(paths)):
            text = raw[len("file://") :] if raw.startswith("file://") else raw
            text = posixpath.normpath(text)
            file = self.ctx.home / text[2:] if text.startswith("~/") else Path(text)
            try:
                self._native(file)
            except ValueError:
                s.warnings.append(f"{field_name} {raw}: not under a Cursor folder; not archived")
                continue
            if file.is_symlink() or not file.is_file():
                s.warnings.append(f"{field_name} {raw}: no such file on this machine")
                continue
            if file in have:
                continue
            have.add(file)
            claimed.add(file)
            fmt: Format = {".jsonl": "jsonl", ".json": "json"}.get(file.suffix, "")  # type: ignore[assignment]
            out.append(self._src(file, role, fmt or sniff_content(file), "whole", optional=True))
        return out

    def _chat_session(self, chat: _Chat, mirrors: _Mirrors, claimed: set[Path] | None = None) -> DiscoveredSession:
        s = DiscoveredSession(harness=NAME, session_id=chat.chat_id, cwd=chat.cwd, warnings=list(chat.warnings))
        s.title = chat.name
        s.created_at = iso_ms(chat.created_ms, guess_unit=True)
        if chat.subagent_info is not None:
            s.kind = "subagent"
            info = chat.subagent_info
            s.parents.append(
                LineageEdge(
                    relation="subagent",
                    parent=session_key(NAME, str(info["parentAgentId"])),
                    at=str(info["toolCallId"]) if info.get("toolCallId") else None,
                )
            )
        elif chat.fork_edge is not None:
            s.kind = "fork"
            s.parents.append(chat.fork_edge)
        folder = chat.folder
        store = folder / "store.db"
        if _plain_file(store):
            s.sources.append(self._src(store, "database", "sqlite", "sqlite"))
        for name, role in (("meta.json", "sidecar"), ("prompt_history.json", "history")):
            f = folder / name
            if _plain_file(f):
                s.sources.append(self._src(f, role, "json"))
        known = STORE_NAMES | {"meta.json", "prompt_history.json"}
        try:
            extra = sorted(folder.rglob("*"))  # unknown files in the chat folder are data too
        except OSError as e:
            extra = []
            s.warnings.append(f"{self._native(folder)}: not fully listed ({e.strerror or type(e).__name__})")
        for f in extra:
            if f.is_file() and not f.is_symlink() and not (f.parent == folder and f.name in known):
                # text (notes, logs) is redacted as text; only what is not text stays as it is
                s.sources.append(self._src(f, "sidecar", "json" if f.suffix == ".json" else sniff_content(f)))
        enc = encode_chat_id(chat.chat_id)
        s.sources.extend(self._mirror_sources(mirrors.nested.get(enc, []) + mirrors.flat.get(enc, [])))
        if chat.subagent_info is not None:
            s.sources.extend(self._mirror_sources([f for _p, f in mirrors.subs.get(chat.chat_id, [])]))
        if chat.graph is not None:
            s.sources.extend(self._terminal_sources(chat.graph.terminal_refs.get(chat.chat_id, set())))
            runs = sorted(chat.graph.run_transcripts.get(chat.chat_id, set()))
            s.sources.extend(self._cloud_transcripts(runs, s, claimed if claimed is not None else set()))
            outs = sorted(chat.graph.run_outputs.get(chat.chat_id, set()))
            s.sources.extend(self._cloud_transcripts(outs, s, claimed if claimed is not None else set(), output=True))
        s.updated_at = iso_ms(chat.updated_ms, guess_unit=True) or self._mtime_iso(s.sources)
        return s

    def _subagent_session(
        self, chat: _Chat, ref: SubagentRef, mirrors: _Mirrors, claimed: set[Path] | None = None
    ) -> DiscoveredSession:
        s = DiscoveredSession(harness=NAME, session_id=ref.subagent_id, kind="subagent", cwd=chat.cwd)
        s.parents.append(LineageEdge(relation="subagent", parent=session_key(NAME, ref.parent_owner), at=ref.tool_call_id))
        s.created_at = iso_ms(ref.created_ms, guess_unit=True)
        s.updated_at = iso_ms(ref.last_used_ms, guess_unit=True)
        store = chat.folder / "store.db"
        s.sources.append(self._src(store, "database", "sqlite", "sqlite", shared=True))
        s.sources.extend(self._mirror_sources([f for _p, f in mirrors.subs.get(ref.subagent_id, [])]))
        if chat.graph is not None:
            s.sources.extend(self._terminal_sources(chat.graph.terminal_refs.get(ref.subagent_id, set())))
            paths = sorted(chat.graph.run_transcripts.get(ref.subagent_id, set()))
            if ref.transcript_path:
                paths.insert(0, ref.transcript_path)
            s.sources.extend(self._cloud_transcripts(paths, s, claimed if claimed is not None else set()))
            outs = sorted(chat.graph.run_outputs.get(ref.subagent_id, set()))
            s.sources.extend(self._cloud_transcripts(outs, s, claimed if claimed is not None else set(), output=True))
        return s

    def _orphan_mirrors(
        self, mirrors: _Mirrors, claimed_chats: set[str], claimed_subs: set[str], claimed_files: set[Path] | None = None
    ) -> Iterator[DiscoveredSession]:
        taken = claimed_files or set()
        for enc in sorted(set(mirrors.nested) | set(mirrors.flat)):
            if enc in claimed_chats:
                continue
            files = [f for f in mirrors.nested.get(enc, []) + mirrors.flat.get(enc, []) if f not in taken]
            if not files:
                continue
            s = DiscoveredSession(harness=NAME, session_id=enc)
            s.sources = self._mirror_sources(files)
            s.warnings.append(f"{self._native(files[0])}: chat folder gone; only the JSONL mirror remains")
            s.updated_at = self._mtime_iso(s.sources)
            yield s
        for sub_id in sorted(mirrors.subs):
            entries = [(p, f) for p, f in mirrors.subs[sub_id] if f not in taken]
            if sub_id in claimed_subs or not entries:
                continue
            s = DiscoveredSession(harness=NAME, session_id=sub_id, kind="subagent")
            s.parents.append(LineageEdge(relation="subagent", parent=session_key(NAME, entries[0][0])))
            s.sources = self._mirror_sources([f for _p, f in entries])
            s.warnings.append(
                f"{self._native(entries[0][1])}: subagent not found in its parent's store; only the JSONL mirror remains"
            )
            s.updated_at = self._mtime_iso(s.sources)
            yield s

    def _host_session(self) -> DiscoveredSession | None:
        """The global prompt_history.json of older builds, from every root that holds one.
        Alone it is `.cursor/prompt_history.json` (the default layout, wherever the root is).
        When XDG_CONFIG_HOME moved the config dir and both it and ~/.cursor hold one, the one in
        ~/.cursor keeps that path (it is where it lives) and the moved root's goes to
        HOST_HISTORY_XDG, which restore_artifact puts at `.config/cursor/prompt_history.json`."""
        files = [r / "prompt_history.json" for r in self.roots if _plain_file(r / "prompt_history.json")]
        problems = self._unlistable
        if not files and not problems:
            return None
        # a chats folder that cannot be listed hides chats: an error of the run
        s = DiscoveredSession(harness=NAME, session_id="@host", kind="host", warnings=list(problems),
                              errors=list(problems))
        home_file = self.ctx.home / self.native_root / "prompt_history.json"
        for f in files:
            src = self._src(f, "history", "json")
            if len(files) > 1 and f != home_file:
                src.path = HOST_HISTORY_XDG
            s.sources.append(src)
        s.updated_at = self._mtime_iso(s.sources)
        return s

    def restore_artifact(self, artifact: Artifact, plaintext_path: Path, target_home: Path,
                         overwrite: bool = False) -> Path | None:
        """HOST_HISTORY_XDG back where it came from: `$XDG_CONFIG_HOME/cursor` at its default,
        `.config/cursor/`, under the target (written as restore writes any file: never over
        other bytes without `overwrite`, never through a symlink). Anything else: default."""
        if artifact.path != HOST_HISTORY_XDG:
            return None
        from archiver.restore import place_file, safe_target  # (restore imports the harnesses)

        dst = safe_target(target_home, HOST_HISTORY_XDG_RESTORED)
        place_file(plaintext_path, dst, artifact, overwrite, target_home)
        return dst

    @staticmethod
    def _mtime_iso(sources: list[SourceArtifact]) -> str | None:
        times = []
        for src in sources:
            try:
                times.append(src.source.stat().st_mtime)
            except OSError:
                continue
        return iso_ms(max(times) * 1000, guess_unit=True) if times else None


HARNESS = CursorAgent
