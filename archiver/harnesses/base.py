"""The Harness contract: which files make up a session, its lineage, where files go back.

A collector only reads. It never loads a whole large file into memory (lines of
tens of MB exist); it yields `DiscoveredSession`s whose `sources` name the files
and how to snapshot them. Redaction, packing and upload happen later, in sync.py.
"""

from __future__ import annotations

import importlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator, MutableMapping, Protocol

from archiver.model import DiscoveredSession

# harness name -> module under archiver.harnesses
MODULES = {
    "claude-code": "claude_code",
    "codex": "codex",
    "cursor-agent": "cursor_agent",
    "opencode": "opencode",
    "pi": "pi",
    "deepseek-harness": "deepseek_harness",
}


@dataclass
class HarnessContext:
    """What a collector needs from the outside world."""

    home: Path  # the user's HOME (for default roots and for native relative paths)
    root: Path | None = None  # configured root; None = the harness default / env override
    env: dict[str, str] = field(default_factory=lambda: dict(os.environ))
    options: dict[str, object] = field(default_factory=dict)  # harness-specific config keys
    # facts a collector derived from a file, kept between runs (keyed by the collector;
    # include the file's identity in the key). A plain dict when nothing persists it.
    cache: MutableMapping[str, str] = field(default_factory=dict)


class Harness(Protocol):
    name: str
    # where the harness's root lives by default, relative to HOME (".claude", ".codex", ...);
    # artifact paths are written relative to HOME as if the root were there.
    native_root: str

    def __init__(self, ctx: HarnessContext) -> None: ...

    @property
    def root(self) -> Path:
        """The directory actually read (after env overrides and config)."""
        ...

    def discover(self) -> Iterator[DiscoveredSession]:
        """Every session found under root, host-level sessions included. Must not raise
        for one bad session: put the problem in that session's `warnings` instead."""
        ...

    # Optional hooks (the pipeline uses getattr; a harness defines only what it needs):
    #
    # def redacted_relpath(self, src: SourceArtifact, session: DiscoveredSession,
    #                      redact_relpath: Callable[[str], str],
    #                      redact_text: Callable[[str], str],
    #                      pseudonym: Callable[[str, str], str] | None = None) -> str:
    #     """Archive path for a file whose name is derived from private data in a way
    #     component-wise redaction cannot follow (Cursor's md5(cwd) folder: compute
    #     md5 of the *redacted* cwd). `pseudonym(kind, value)` is the team-keyed digest, for a
    #     name that can be neither redacted nor kept (an md5 of an unknown cwd); the pipeline
    #     passes it whenever its redactor has one, so every hook must accept it.
    #     Default: redact_relpath(src.path)."""
    #
    # @classmethod
    # def cwd_folders(cls) -> list[tuple[str, Callable[[str], str]]]:
    #     """(path prefix, cwd -> folder name) of each folder of the layout named after a cwd
    #     (Claude's projects/<key>): restore --relocate renames them for the new cwd."""
    #
    # @classmethod
    # def relink_restored(cls, artifact: Artifact, plain: Path, root: Path, moved: dict[str, str], *,
    #                     session: Session | None = None, relocated: bool = True) -> str | None:
    #     """On every restore, after the digest check (and --relocate's rewrite): rewrite in `plain`
    #     the absolute paths that name another restored file to root/<its restored path> (`moved`:
    #     archived path -> restored path of every artifact of the restore): pi's fullOutputPath,
    #     and a fork's parentSession; Claude's sessions-index.json fullPath.
    #     Returns a note for the restore's warnings, or None."""
    #
    # def restore_artifact(self, artifact: Artifact, plaintext_path: Path,
    #                      target_home: Path, overwrite: bool = False) -> Path | None:
    #     """Place one restored artifact specially (OpenCode merges per-session extracts
    #     into one opencode.db). Return the written path, or None for default placement.
    #     What is there with other content is replaced only with `overwrite` (else an
    #     OSError naming it, e.g. FileExistsError)."""
    #
    # def after_restore(self, target_home: Path, sessions: list[Session],
    #                   overwrite: bool = False) -> list[str]:
    #     """Fix-ups after files were placed under target_home (e.g. rebuild an index
    #     so the harness lists the restored sessions). Returns warnings. Rows of the
    #     target's own databases with other content are replaced only with `overwrite`."""


def load_harness(name: str, ctx: HarnessContext) -> Harness:
    if name not in MODULES:
        raise KeyError(f"unknown harness {name!r}; known: {', '.join(MODULES)}")
    module = importlib.import_module(f"archiver.harnesses.{MODULES[name]}")
    return module.HARNESS(ctx)  # type: ignore[no-any-return]


def available_harnesses() -> list[str]:
    out = []
    for name, mod in MODULES.items():
        try:
            importlib.import_module(f"archiver.harnesses.{mod}")
        except ModuleNotFoundError:
            continue
        out.append(name)
    return out


def native_path(native_root: str, root: Path, file: Path) -> str:
    """The default-layout path relative to HOME of `file` found under `root`."""
    r, f = str(root), str(file)
    # str() of a path is normalised, so a prefix ending at a separator is relative_to (fast)
    if r != "/" and len(f) > len(r) + 1 and f[len(r)] == "/" and f.startswith(r):
        rel = f[len(r) + 1:]
    else:
        rel = file.relative_to(root).as_posix()
    return f"{native_root}/{rel}" if native_root else rel
