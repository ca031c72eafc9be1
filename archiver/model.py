"""The data model shared by every layer: what a session is and what the manifest records.

Everything here is serialised into manifests (archive format v1, docs/FORMAT.md):
add optional fields only; never rename or drop one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path, PurePath
from typing import Callable, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field

HARNESS_NAMES = ("claude-code", "codex", "cursor-agent", "opencode", "pi", "deepseek-harness")

Role = Literal["transcript", "sidecar", "database", "blob", "index", "history"]
Format = Literal["jsonl", "jsonl.zst", "sqlite", "json", "text", "git-object", "git-pack", "binary"]
Kind = Literal["main", "subagent", "fork", "revert", "host"]
Relation = Literal["subagent", "fork", "revert", "continuation"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="ignore")


M = TypeVar("M", bound=BaseModel)
_ALL_FIELDS: dict[type, set[str]] = {}


def compact(model: M) -> M:
    """`model` sharing one fields-set with every compacted instance of its class, holding all
    its fields. Pydantic gives each instance its own set (728 bytes: half of an Artifact), and
    sync holds every file's Artifact until its manifest is written. Only `exclude_unset` reads
    the set (this project never uses it); assigning a field adds a name it already holds."""
    cls = type(model)
    shared = _ALL_FIELDS.get(cls)
    if shared is None:
        shared = _ALL_FIELDS.setdefault(cls, set(cls.model_fields))
    object.__setattr__(model, "__pydantic_fields_set__", shared)
    return model


class Artifact(_Model):
    """One file of a session as archived.

    `path` is the native path relative to HOME after redaction, in the harness's
    default layout (`.claude/projects/<key>/<sid>.jsonl`), POSIX separators.
    `objects` lists object ids whose concatenated plaintexts are the file.
    """

    path: str
    role: Role
    format: Format | str  # a format added later reads as an unknown string: restored as its bytes
    size: int = 0
    mtime: float | None = None
    sha256: str = ""
    objects: list[str] = Field(default_factory=list)
    shared: bool = False  # bytes also belong to another session (Cursor subagents)


class LineageEdge(_Model):
    relation: Relation
    parent: str  # a session key
    at: str | None = None  # fork point, tool-call id, ordinal...: whatever the harness records
    inferred: bool = False


class Session(_Model):
    key: str  # "<harness>:<session_id>"
    harness: str
    session_id: str
    kind: Kind = "main"
    title: str | None = None  # redacted
    cwd: str | None = None  # the working directory, redacted as archived paths are (restore --relocate)
    created_at: str | None = None  # ISO-8601 UTC
    updated_at: str | None = None
    artifacts: list[Artifact] = Field(default_factory=list)
    parents: list[LineageEdge] = Field(default_factory=list)
    redactions: dict[str, int] = Field(default_factory=dict)
    warnings: list[str] = Field(default_factory=list)
    host_id: str | None = None
    archived_at: str | None = None  # when this state of the session was first archived
    # keys of the host-level sessions whose files this one needs to work in its harness (OpenCode:
    # the project's snapshot git dir), redacted as `parents[].parent` is; a key may name no session
    uses: list[str] = Field(default_factory=list)


class Manifest(_Model):
    """One sync run of one host: the complete known state of every session of that host."""

    format: str = "archiver/1"
    host_id: str
    created_at: str
    run_id: str
    tool_version: str
    sessions: list[Session] = Field(default_factory=list)
    redactions: dict[str, int] = Field(default_factory=dict)
    errors: list[str] = Field(default_factory=list)


def session_key(harness: str, session_id: str) -> str:
    return f"{harness}:{session_id}"


# ---- collector-side descriptions (never serialised into the archive) ----

SnapshotMode = Literal["append", "whole", "sqlite", "zst", "produced"]


class SourceArtifact:
    """A file on this machine that belongs to a session, as a collector found it.

    `path` is the native path relative to HOME *before* redaction (default layout).
    `mode` says how the snapshot is taken:
      append   - append-only JSONL: copied up to its last complete line, archived by segments
      whole    - any other file: copied whole, re-archived whole when it changes
      sqlite   - SQLite database (WAL included) through the backup API
      zst      - a zstd-compressed JSONL (Codex idle rollouts): stored decompressed
      produced - `produce(dst)` writes the content (e.g. a per-session SQLite extract)

    Slotted, and the file held as its str (`file`), `source` giving it as a Path: every
    discovered session's sources live in the sync process until the session is archived, the
    biggest ones first, so through the redaction workers' memory peak. A Path (its parts list, its
    cached str) and an instance dict cost ~380 B a file more: 8.6 MB of the 1 GB memory case's
    22,700 files (tracemalloc of the discovered sessions).
    """

    __slots__ = ("file", "path", "role", "format", "mode", "produce", "shared", "optional", "identity")

    def __init__(self, source: Path | str, path: str, role: Role, format: Format, mode: SnapshotMode = "whole",
                 produce: Callable[[Path], None] | None = None, shared: bool = False, optional: bool = False,
                 identity: tuple[int, int, int] | None = None) -> None:
        self.source = source
        self.path = path
        self.role = role
        self.format = format
        self.mode = mode
        self.produce = produce
        self.shared = shared
        self.optional = optional  # a referenced file that may be gone: report missing, don't fail
        # what tells a change instead of the source file's (inode, size, mtime_ns): for a
        # produced artifact of a shared file, a fingerprint of its own content
        self.identity = identity

    @property
    def source(self) -> Path:
        return Path(self.file)

    @source.setter
    def source(self, value: Path | str) -> None:
        # as str(Path) has it (normalised: no doubled or trailing separator)
        self.file = value.__fspath__() if isinstance(value, PurePath) else str(Path(value))

    def _fields(self) -> tuple[object, ...]:
        return tuple(getattr(self, name) for name in self.__slots__)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._fields() == other._fields()  # type: ignore[attr-defined]

    __hash__ = None  # type: ignore[assignment]  # mutable, as the dataclass it was

    def __repr__(self) -> str:
        return (f"SourceArtifact(source={self.source!r}, "
                + ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__[1:]) + ")")


@dataclass
class DiscoveredSession:
    """A collector's answer for one session: its metadata, lineage and files."""

    harness: str
    session_id: str
    kind: Kind = "main"
    title: str | None = None
    created_at: str | None = None
    updated_at: str | None = None
    parents: list[LineageEdge] = field(default_factory=list)
    uses: list[str] = field(default_factory=list)  # keys of host-level sessions it needs (Session.uses)
    sources: list[SourceArtifact] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    cwd: str | None = None  # unredacted working directory, for path-derived names
    # why the collector found this session but could not read it (a corrupt page of its
    # database): sync fails the session (exit 1) and keeps its archived state as it was
    unread: str | None = None
    # what the collector could not read that holds sessions (a database that does not open, a
    # project folder that cannot be listed): the sessions in it are not found, so the run reports
    # each as an error (exit 1) while this session is archived as usual and carries it as a warning
    errors: list[str] = field(default_factory=list)
    # archived paths (a regular expression matched whole) this collector no longer archives on
    # purpose: an earlier version's copy is dropped from the new manifest, not carried on as gone
    # from the machine (a git pack's .idx, archived before packs became git-pack artifacts)
    retired: str | None = None

    @property
    def key(self) -> str:
        return session_key(self.harness, self.session_id)


# the end of the warning sync writes for each artifact a session keeps although its file is gone
# from the machine (FORMAT.md §8: restore reads it to rank artifacts whose paths conflict)
GONE_NOTE = ": gone from the machine; the archived copy is kept"


def is_utf8(text: str) -> bool:
    """False for a str holding surrogates: a Linux file name of bytes that are not UTF-8, as
    os.fsdecode gives it. Keys, paths and titles of the model are UTF-8 (FORMAT.md), and so is
    SQLite TEXT."""
    try:
        text.encode("utf-8")
        return True
    except UnicodeEncodeError:
        return False
