"""Restore: fetch, decrypt, verify, and place files into a HOME-like target folder.

Nothing is written outside the target: every archived path is checked (no absolute
paths, no `..`, no NUL or backslash, no symlinked parent, no device files), and what
is refused is reported. Content is verified against the manifest's sha256 before it
is moved into place.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import tempfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Sequence

import zstandard

from archiver.archive import Archive
from archiver.harnesses.base import Harness
from archiver.model import Artifact, Session
from archiver.sync import chain_digest

MAX_OBJECT_OUTPUT = 64 << 30


class UnsafePath(ValueError):
    pass


@dataclass
class RestoreResult:
    sessions: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    integrity_errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, object]:
        return {"sessions": self.sessions, "files": self.files, "refused": self.refused,
                "integrity_errors": self.integrity_errors, "warnings": self.warnings}


def safe_target(root: Path, relpath: str) -> Path:
    """root/relpath, or UnsafePath if it could land anywhere else."""
    if not relpath or "\x00" in relpath or "\\" in relpath:
        raise UnsafePath(f"{relpath!r}: empty, NUL or backslash in path")
    p = PurePosixPath(relpath)
    if p.is_absolute() or relpath.startswith("/"):
        raise UnsafePath(f"{relpath!r}: absolute path")
    if any(part in ("..", "") for part in relpath.split("/")) or any(part == "." for part in p.parts):
        raise UnsafePath(f"{relpath!r}: '..' or empty component")
    target = root.joinpath(*p.parts)
    # no component below root may be a symlink (or anything but a directory / regular file)
    cur = root
    for part in p.parts[:-1]:
        cur = cur / part
        if cur.is_symlink() or (cur.exists() and not cur.is_dir()):
            raise UnsafePath(f"{relpath!r}: {cur.relative_to(root)} is not a plain directory")
    if target.is_symlink():
        raise UnsafePath(f"{relpath!r}: target is a symlink")
    if target.exists() and not stat.S_ISREG(target.lstat().st_mode):
        raise UnsafePath(f"{relpath!r}: target exists and is not a regular file")
    return target


class Restorer:
    def __init__(self, archive: Archive, identities: Sequence[object], harnesses: dict[str, Harness] | None = None) -> None:
        self.archive = archive
        self.identities = identities
        self.harnesses = harnesses or {}

    def restore(self, sessions: list[Session], target: Path) -> RestoreResult:
        result = RestoreResult()
        target.mkdir(parents=True, exist_ok=True)
        root = target.resolve()
        placed: set[str] = set()
        with tempfile.TemporaryDirectory(prefix="archiver-restore-") as tmp:
            os.chmod(tmp, 0o700)
            for session in sessions:
                ok = True
                for art in session.artifacts:
                    if art.shared and art.path in placed:  # the same bytes as another session's
                        continue
                    try:
                        dst = safe_target(root, art.path)
                    except UnsafePath as e:
                        result.refused.append(f"{session.key}: {e}")
                        ok = False
                        continue
                    plain = Path(tmp) / "plain"
                    try:
                        self._fetch(art, plain)
                    except IntegrityError as e:
                        result.integrity_errors.append(f"{session.key}: {art.path}: {e}")
                        ok = False
                        continue
                    harness = self.harnesses.get(session.harness)
                    hook = getattr(harness, "restore_artifact", None)
                    written = hook(art, plain, root) if hook else None
                    if written is None:
                        _place(plain, dst, art)
                    placed.add(art.path)
                    result.files.append(art.path)
                if ok:
                    result.sessions.append(session.key)
            by_harness: dict[str, list[Session]] = {}
            for s in sessions:
                by_harness.setdefault(s.harness, []).append(s)
            for name, group in by_harness.items():
                hook = getattr(self.harnesses.get(name), "after_restore", None)
                if hook:
                    result.warnings.extend(hook(root, group))
        return result

    def _fetch(self, art: Artifact, dst: Path) -> None:
        """Concatenate the artifact's objects into dst and check its digest."""
        digest: str | None = None
        whole = hashlib.sha256()
        seg_path = dst.with_name("segment")
        with dst.open("wb") as out:
            for object_id in art.objects:
                try:
                    self.archive.read_object(object_id, seg_path, self.identities, max_output=MAX_OBJECT_OUTPUT)
                except Exception as e:  # missing object, bad MAC, bad frame: name it, keep going
                    raise IntegrityError(f"object {object_id[:16]}…: {type(e).__name__}: {e}") from None
                seg = hashlib.sha256()
                with seg_path.open("rb") as f:
                    while block := f.read(1 << 20):
                        seg.update(block)
                        whole.update(block)
                        out.write(block)
                digest = chain_digest(digest, seg.hexdigest())
        seg_path.unlink(missing_ok=True)
        if not art.objects:
            digest = hashlib.sha256(b"").hexdigest()
        if art.sha256 and digest != art.sha256:
            raise IntegrityError("content does not match the manifest's sha256")


class IntegrityError(Exception):
    pass


def _place(plain: Path, dst: Path, art: Artifact) -> None:
    dst.parent.mkdir(parents=True, exist_ok=True)
    tmp = dst.with_name(f".{dst.name}.restoring")
    if art.format == "jsonl.zst":
        cctx = zstandard.ZstdCompressor(level=3)
        with plain.open("rb") as fi, tmp.open("wb") as fo:
            cctx.copy_stream(fi, fo)
    else:
        shutil.copyfile(plain, tmp)
    os.chmod(tmp, 0o600)
    if art.mtime:
        os.utime(tmp, (art.mtime, art.mtime))
    os.replace(tmp, dst)
