"""Restore: fetch, decrypt, verify, and place files into a HOME-like target folder.

Nothing is written outside the target: every archived path is checked (no absolute
paths, no `..`, no NUL or backslash, no symlinked parent, no device files, nothing outside
its harness's own folder such as `.claude/`), and what is refused is reported. Two paths that differ only in case (or Unicode normalisation)
would overwrite each other on a case-insensitive filesystem (macOS, Windows): the
second is refused and reported, never written over the first.

A session may list both `X` and `X/inside` (a file replaced by a folder of the same name, or
the reverse: sync keeps what a session no longer lists). One filesystem holds only one of
them: restore places the one on disk most recently (not noted "gone from the machine" by the
sync that archived it, else the later `mtime`) and skips the other with a warning naming both
(FORMAT.md §8); the archive keeps both, and `restore --at` a time before the change gives it.

Content is verified against the manifest's sha256 before it is moved into place, and
decompression is bounded: an artifact may not grow past the size its manifest records,
and no object past ReadLimits (a size and a ratio, from ARCHIVER_RESTORE_MAX_BYTES /
ARCHIVER_RESTORE_MAX_RATIO; the ratio counts past pack.RATIO_FLOOR bytes of output), so a
zstd bomb in a malicious bucket stops early.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import secrets
import shutil
import stat
import tarfile
import tempfile
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Callable, Sequence

import zstandard

from archiver.archive import Archive, ReadLimits, chain_digest
from archiver.harnesses.base import Harness
from archiver.model import GONE_NOTE, Artifact, Session
from archiver.pack import UnpackError
from archiver.redact.walkers.gitpack import MEMBER as LOOSE_OBJECT_MEMBER
from archiver.relocate import CwdFolder, RelocationError, Relocator, split_folder
from archiver.store.base import NotFound

MAX_OBJECT_OUTPUT = 64 << 30  # kept for callers; ReadLimits.max_bytes is the effective cap


ENV_LIMITS = "raise ARCHIVER_RESTORE_MAX_BYTES / ARCHIVER_RESTORE_MAX_RATIO if this object is genuine"


class UnsafePath(ValueError):
    pass


@dataclass
class RestoreResult:
    sessions: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    integrity_errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    # artifacts not placed because another one's path is a folder of theirs or inside theirs:
    # {"session", "path", "instead", "instead_session"} (the message is in `warnings`)
    skipped: list[dict[str, str]] = field(default_factory=list)

    def to_json(self) -> dict[str, object]:
        return {"sessions": self.sessions, "files": self.files, "refused": self.refused,
                "integrity_errors": self.integrity_errors, "warnings": self.warnings, "skipped": self.skipped}


def check_syntax(relpath: str) -> PurePosixPath:
    """relpath as a relative path of plain names, or UnsafePath (no I/O)."""
    if not relpath or "\x00" in relpath or "\\" in relpath:
        raise UnsafePath(f"{relpath!r}: empty, NUL or backslash in path")
    p = PurePosixPath(relpath)
    if p.is_absolute() or relpath.startswith("/"):
        raise UnsafePath(f"{relpath!r}: absolute path")
    # on the raw string: PurePosixPath silently drops '.' and empty components
    if any(part in ("..", ".", "") for part in relpath.split("/")):
        raise UnsafePath(f"{relpath!r}: '..', '.' or empty component")
    return p


def safe_target(root: Path, relpath: str) -> Path:
    """root/relpath, or UnsafePath if it could land anywhere else."""
    p = check_syntax(relpath)
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
    if target.exists() and target.name not in os.listdir(target.parent):
        # the filesystem matched another name (case-insensitive or normalising)
        raise UnsafePath(f"{relpath!r}: the filesystem maps it onto an existing file with another name")
    return target


def _harness_classes() -> dict[str, type]:
    """Harness name -> its collector class (a restore needs no collector configured here)."""
    import importlib

    from archiver.harnesses.base import MODULES

    out = {}
    for name, module in MODULES.items():
        try:
            out[name] = importlib.import_module(f"archiver.harnesses.{module}").HARNESS
        except (ModuleNotFoundError, AttributeError):
            continue
    return out


def native_roots() -> dict[str, str]:
    """Harness name -> the folder under HOME its archived paths live in (FORMAT.md: every path
    is in the harness's default layout: `.claude/...`, `.local/share/opencode/...`)."""
    return {name: cls.native_root for name, cls in _harness_classes().items() if hasattr(cls, "native_root")}


def cwd_folders() -> dict[str, list[CwdFolder]]:
    """Harness name -> the folders of its layout named after a cwd (for --relocate)."""
    return {name: cls.cwd_folders() for name, cls in _harness_classes().items() if hasattr(cls, "cwd_folders")}


# (artifact, its checked (and relocated) plaintext, target root, archived path -> restored path of
# every artifact of the restore; keywords: session = the artifact's session, relocated = restore
# --relocate) -> a note for the report, or None; rewrites the plaintext in place
RelinkHook = Callable[..., "str | None"]


def relink_hooks() -> dict[str, RelinkHook]:
    """Harness name -> its hook that makes a restored file name other restored files where this
    restore put them, by absolute path, on every restore (pi: a fork's header.parentSession and
    the fullOutputPath of an archived temp file; Claude Code: sessions-index.json's fullPath, a
    transcript's toolUseResult.persistedOutputPath, <persisted-output> preview path and Agent
    outputFile; OpenCode: tool state metadata.outputPath, in the extract before it is merged;
    DeepSeek: header.parentSession given as a path; Codex: a rollout's saved_path / savedPath)."""
    return {name: cls.relink_restored for name, cls in _harness_classes().items() if hasattr(cls, "relink_restored")}


def check_native(roots: dict[str, str], harness: str, relpath: str) -> None:
    """A session's file must lie under its own harness's folder. A manifest naming `.bashrc`,
    `.ssh/authorized_keys` or another harness's files stays inside the target yet, restored
    into a real HOME, would plant them there: refused."""
    root = roots.get(harness)
    if root is None:
        raise UnsafePath(f"{relpath!r}: unknown harness {harness!r}; not restored")
    if not relpath.startswith(root.rstrip("/") + "/"):
        raise UnsafePath(f"{relpath!r}: outside {root}/, the folder of {harness} sessions")


def fold_path(relpath: str) -> str:
    """The form under which case-insensitive, normalising filesystems compare names."""
    return unicodedata.normalize("NFD", unicodedata.normalize("NFD", relpath).casefold())


class Restorer:
    def __init__(self, archive: Archive, identities: Sequence[object], harnesses: dict[str, Harness] | None = None,
                 limits: ReadLimits | None = None, overwrite: bool = False,
                 relocator: Relocator | None = None, relink: bool = True) -> None:
        self.archive = archive
        self.identities = identities
        self.harnesses = harnesses or {}
        self.limits = limits or ReadLimits.from_env()
        self.overwrite = overwrite  # replace a file of the target that holds other bytes
        self.relocator = relocator if relocator else None  # restore --relocate OLD=NEW
        # paths naming other restored files rewritten to where they went (False: the archived bytes,
        # for readers of the plaintext such as export, which restore part of a session)
        self.relink = relink

    def restore(self, sessions: list[Session], target: Path) -> RestoreResult:
        result = RestoreResult()
        target.mkdir(parents=True, exist_ok=True)
        root = target.resolve()
        placed: dict[str, tuple[str, ...]] = {}  # path -> the objects written there
        folded: dict[str, str] = {}  # fold_path(path) -> the path that claimed it
        roots = native_roots()
        folders = cwd_folders() if self.relocator else {}
        relocator = self.relocator
        with tempfile.TemporaryDirectory(prefix="archiver-restore-") as tmp:
            os.chmod(tmp, 0o700)
            plan = self._plan_relocation(relocator, sessions, folders, Path(tmp)) if relocator else None
            if plan is not None:
                sessions, relocator = plan.sessions, plan.relocator
                paths = [[relocator.relpath(art.path, plan.cwds[s.key], folders.get(s.harness, ()))
                          for art in s.artifacts] for s in sessions]
                result.warnings.extend(_kept_folders(plan, paths, folders))
            else:
                paths = [[art.path for art in s.artifacts] for s in sessions]
            # archived path -> where this restore puts it (relink hooks name restored files there)
            moved = {art.path: paths[i][j] for i, s in enumerate(sessions) for j, art in enumerate(s.artifacts)}
            relinks = relink_hooks() if self.relink else {}
            shadowed = _shadowed(sessions, paths, roots)
            # paths a session of this restore holds as its own: another's shared copy of them (a
            # Cursor subagent's view of its parent's store.db, maybe of an older state) is not written
            owned = {paths[i][j] for i, s in enumerate(sessions) for j, a in enumerate(s.artifacts) if not a.shared}
            for i, session in enumerate(sessions):
                ok = True
                for j, art in enumerate(session.artifacts):
                    path = paths[i][j]
                    if art.shared and path in owned:
                        continue  # its owner's copy is written (FORMAT.md §5.1)
                    if path in placed and (art.shared or placed[path] == tuple(art.objects)):
                        continue  # the same bytes as another session's (FORMAT.md §5.1): written once
                    if (i, j) in shadowed:
                        instead, by = shadowed[i, j]
                        of = "" if by == session.key else f" (of {by})"
                        result.warnings.append(
                            f"{session.key}: {path!r}: skipped, {instead!r}{of} takes its place: one is a folder "
                            "of the other's name, and it was on disk more recently (a file replaced by a folder, "
                            "or the reverse); the archive keeps both, `restore --at` a time before the change "
                            "gives this one")
                        result.skipped.append({"session": session.key, "path": path, "instead": instead,
                                               "instead_session": by})
                        continue
                    try:
                        dst = safe_target(root, path)
                        check_native(roots, session.harness, path)
                        claimed = folded.setdefault(fold_path(path), path)
                        if claimed != path:
                            raise UnsafePath(f"{path!r}: collides with {claimed!r} on case-insensitive "
                                             "filesystems; not written over it")
                    except UnsafePath as e:
                        result.refused.append(f"{session.key}: {e}")
                        ok = False
                        continue
                    except OSError as e:  # a name the filesystem refuses (too long: a relocated folder)
                        result.refused.append(f"{session.key}: {path!r}: not written "
                                              f"({(e.strerror or type(e).__name__).lower()})")
                        ok = False
                        continue
                    plain = Path(tmp) / "plain"
                    try:
                        self._fetch(art, plain)
                    except IntegrityError as e:
                        plain.unlink(missing_ok=True)
                        result.integrity_errors.append(f"{session.key}: {art.path}: {e}")
                        ok = False
                        continue
                    relink = relinks.get(session.harness)
                    if relocator or relink is not None:  # after the digest check: what was verified is the archived bytes
                        try:
                            if relocator:
                                relocator.rewrite_file(plain, art.format)
                            if relink is not None:
                                note = relink(art, plain, root, moved, session=session, relocated=bool(relocator))
                                if note:
                                    result.warnings.append(f"{session.key}: {note}")
                        except (RelocationError, OSError) as e:
                            plain.unlink(missing_ok=True)
                            result.refused.append(f"{session.key}: {art.path!r}: not written ({e})")
                            ok = False
                            continue
                    harness = self.harnesses.get(session.harness)
                    hook = getattr(harness, "restore_artifact", None)
                    try:
                        placed_as = art if path == art.path else art.model_copy(update={"path": path})
                        if art.format == "git-pack":  # not a file of its own: its objects, into the git dir
                            place_git_pack(plain, root, path)
                        else:
                            written = hook(placed_as, plain, root, overwrite=self.overwrite) if hook else None
                            if written is None:
                                place_file(plain, dst, art, self.overwrite, root)
                    except (OSError, UnsafePath) as e:
                        reason = e.strerror.lower() if isinstance(e, OSError) and e.strerror else str(e)
                        if isinstance(e, UnsafePath) and path in placed:
                            reason = ("another session of this restore wrote other content here "
                                      "(sessions of several hosts? --host restores one)")
                        result.refused.append(f"{session.key}: {path!r}: not written ({reason})")
                        ok = False
                        continue
                    finally:
                        plain.unlink(missing_ok=True)
                    placed[path] = tuple(art.objects)
                    result.files.append(path)
                if ok:
                    result.sessions.append(session.key)
            by_harness: dict[str, list[Session]] = {}
            for s in sessions:
                by_harness.setdefault(s.harness, []).append(s)
            for name, group in by_harness.items():
                hook = getattr(self.harnesses.get(name), "after_restore", None)
                if hook:
                    result.warnings.extend(hook(root, group, overwrite=self.overwrite))
        return result

    def _plan_relocation(self, relocator: Relocator, sessions: list[Session], folders: dict[str, list[CwdFolder]],
                         tmp: Path) -> "_RelocationPlan":
        """The sessions with their cwd (one a manifest from before the field lacks: what the
        session's own files record), the cwds each folder of theirs may be named after, and the
        relocator that also follows the folders it renames where paths inside the files name them.

        A session's folder is named after its cwd or an ancestor, except when the session moved
        (Claude Code's `/cd`: the transcript follows its last cwd into that cwd's project folder
        while `cwd` is its first): then every cwd its files record is a candidate too, so
        `--relocate OLD=NEW` for the cwd `ls` shows moves a folder below OLD. Sessions without a
        cwd of their own (host files, a session folder without its transcript) take those of the
        other sessions of their harness in this restore, as sync did when it named the folder."""
        recorded = {s.key: self._recorded_cwd(s, folders.get(s.harness, ()), tmp) for s in sessions}
        sessions = [s.model_copy(update={"cwd": recorded[s.key]}) if recorded[s.key] else s for s in sessions]
        cwds: dict[str, list[str]] = {}
        for s in sessions:
            own = [s.cwd] if s.cwd else []
            if any(m is not None and m.named_after is None
                   for m in (relocator.folder_match(a.path, own, folders.get(s.harness, ())) for a in s.artifacts)):
                own += [c for c in self._recorded_cwds(s, folders.get(s.harness, ()), tmp) if c not in own]
            cwds[s.key] = own
        pooled: dict[str, list[str]] = {}
        for s in sessions:
            pool = pooled.setdefault(s.harness, [])
            pool.extend(c for c in cwds[s.key] if c not in pool)
        cwds = {s.key: cwds[s.key] + [c for c in pooled[s.harness] if c not in cwds[s.key]] for s in sessions}
        for name in sorted({s.harness for s in sessions}):
            relocator = relocator.with_folders(folders.get(name, ()),
                                               [c for s in sessions if s.harness == name for c in cwds[s.key]])
        return _RelocationPlan(sessions, relocator, cwds)

    def _recorded_cwds(self, session: Session, folders: Sequence[CwdFolder], tmp: Path) -> list[str]:
        """Every `cwd` and `relocatedCwd` (Claude Code's record of a `/cd`) the session's
        transcripts in cwd-named folders record, in order, as archived (redacted)."""
        out: list[str] = []
        for art in session.artifacts:
            if art.role != "transcript" or art.format not in ("jsonl", "jsonl.zst") or art.size > 64 << 20 \
                    or not any(split_folder(art.path, prefix) for prefix, _encode in folders):
                continue
            data = self._peek(art, tmp)
            if data is None:
                continue
            for line in data.splitlines():
                if b'"cwd"' not in line and b'"relocatedCwd"' not in line:
                    continue
                try:
                    doc = json.loads(line)
                except ValueError:
                    continue
                for field_ in ("cwd", "relocatedCwd"):
                    value = doc.get(field_) if isinstance(doc, dict) else None
                    if isinstance(value, str) and value.startswith("/") and value not in out and len(out) < 64:
                        out.append(value)
        return out

    def _recorded_cwd(self, session: Session, folders: Sequence[CwdFolder], tmp: Path) -> str | None:
        """For a session whose manifest has no `cwd` (written before the field existed) and whose
        files lie in folders named after a cwd: the top-level `cwd` its first transcript or JSON
        sidecar in such a folder records (Claude's records, pi's header, Cursor's meta.json), as
        archived (redacted). Without it only a folder named after an OLD itself could be renamed."""
        if session.cwd is not None or session.kind == "host" or not folders:
            return None
        for art in session.artifacts:
            if art.format not in ("jsonl", "jsonl.zst", "json") or art.size > 64 << 20 \
                    or not any(split_folder(art.path, prefix) for prefix, _encode in folders):
                continue
            data = self._peek(art, tmp)
            if data is None:
                continue
            for doc in _json_docs(data, art.format):
                cwd = doc.get("cwd") if isinstance(doc, dict) else None
                if isinstance(cwd, str) and cwd.startswith("/"):
                    return cwd
        return None

    def _peek(self, art: Artifact, tmp: Path) -> bytes | None:
        """The artifact's checked plaintext (callers keep to artifacts of at most 64 MB), to read
        what a plan needs from it; None when it cannot be had (restoring it reports why)."""
        plain = tmp / "peek"
        try:
            self._fetch(art, plain)
            return plain.read_bytes()
        except (IntegrityError, OSError):
            return None
        finally:
            plain.unlink(missing_ok=True)

    def _fetch(self, art: Artifact, dst: Path) -> None:
        """Concatenate the artifact's objects into dst and check its digest and size."""
        digest: str | None = None
        whole = hashlib.sha256()
        seg_path = dst.with_name("segment")
        remaining = max(art.size, 0)  # bytes the manifest says are still to come
        with open(dst, "wb", opener=lambda p, flags: os.open(p, flags, 0o600)) as out:  # 0600 whatever the umask
            for object_id in art.objects:
                try:
                    got = self.archive.read_object(object_id, seg_path, self.identities,
                                                   max_output=remaining, limits=self.limits)
                except UnpackError as e:
                    seg_path.unlink(missing_ok=True)
                    if "ratio" not in str(e) and remaining < self.limits.max_bytes:
                        raise IntegrityError(f"object {object_id[:16]}…: content is larger than the "
                                             f"{art.size} bytes the manifest records") from None
                    raise IntegrityError(f"object {object_id[:16]}…: {e} (limits: {ENV_LIMITS})") from None
                except NotFound:
                    seg_path.unlink(missing_ok=True)
                    raise IntegrityError(f"object {object_id[:16]}…: missing from the store (deleted since the "
                                         "manifest naming it was written)") from None
                except Exception as e:  # bad MAC, bad frame, store errors: name it, keep going
                    seg_path.unlink(missing_ok=True)
                    raise IntegrityError(f"object {object_id[:16]}…: {type(e).__name__}: {e}") from None
                remaining -= got
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
        if remaining != 0:
            raise IntegrityError(f"content is {art.size - remaining} bytes, the manifest records {art.size}")


class IntegrityError(Exception):
    pass


@dataclass
class _RelocationPlan:
    sessions: list[Session]
    relocator: Relocator
    cwds: dict[str, list[str]]  # session key -> the paths its cwd-named folders may be named after


def _kept_folders(plan: _RelocationPlan, paths: Sequence[Sequence[str]],
                  folders: dict[str, list[CwdFolder]]) -> list[str]:
    """Warnings for cwd-named folders a relocation leaves as they are although they may belong to
    the moved project: named after a path the session moved to outside every OLD (a `/cd`), or
    after none of the candidate paths (a hash-named folder: OpenCode's snapshot git dir)."""
    out: list[str] = []
    seen: set[tuple[str, str]] = set()
    reloc = plan.relocator
    for i, session in enumerate(plan.sessions):
        moved = reloc.cwd(session.cwd) is not None
        for j, art in enumerate(session.artifacts):
            m = reloc.folder_match(art.path, plan.cwds[session.key], folders.get(session.harness, ()))
            if m is None or paths[i][j] != art.path or (session.key, m.head + m.folder) in seen:
                continue
            where = f"{m.head}{m.folder}/"
            hashed = "*" in m.prefix.split("/")
            if m.named_after is None and hashed:
                out.append(f"{session.key}: {where} keeps its name: {session.harness} names it by a hash of the "
                           "project's path (the seed does not say which); restore renames it only when the name is "
                           "the SHA-1 of a relocated session directory, one of its parents or an OLD, and it is none "
                           "of these. If this project moved, its snapshots (diffs, reverts) are not found until the "
                           "folder is renamed to the SHA-1 of the new worktree path")
            elif m.named_after is None and moved:
                out.append(f"{session.key}: {where} keeps its name: it is named after none of the paths the "
                           "session records (a truncated or overridden name)")
            elif m.named_after is not None and moved and reloc.cwd(m.named_after) is None:
                out.append(f"{session.key}: {where} keeps its name: the session moved (Claude Code's /cd) to "
                           f"{m.named_after}, which no --relocate OLD covers, and its folder follows that path; "
                           f"add --relocate {m.named_after}=NEW to move it too")
            else:
                continue
            seen.add((session.key, m.head + m.folder))
    return out


def gone_paths(session: Session) -> set[str]:
    """Archived paths the session's last sync kept although their files were gone (its warnings
    say so, FORMAT.md §8)."""
    return {w[: -len(GONE_NOTE)] for w in session.warnings if w.endswith(GONE_NOTE)}


def _shadowed(sessions: Sequence[Session], paths: Sequence[Sequence[str]],
              roots: dict[str, str]) -> dict[tuple[int, int], tuple[str, str]]:
    """(session index, artifact index) -> (path, session key) of the artifact that takes its
    place, for each artifact whose path is a folder of another's, or lies inside another's
    (`X` and `X/inside`): no filesystem holds both. The most recent one is placed: one still on
    disk at its last sync before one kept as gone from the machine, then the later mtime, then
    the first listed; whatever conflicts with a placed one is skipped. Paths restore refuses
    anyway take part in nothing."""
    dirs = {str(a) for row in paths for p in row for a in PurePosixPath(p).parents}
    if not any(p in dirs for row in paths for p in row):
        return {}  # the usual case: no path is another's folder
    ranked: list[tuple[tuple[bool, float, int], int, int, str]] = []
    order = 0
    for i, session in enumerate(sessions):
        gone = gone_paths(session)
        for j, art in enumerate(session.artifacts):
            path = paths[i][j]
            try:
                check_syntax(path)
                check_native(roots, session.harness, path)
            except UnsafePath:
                continue
            ranked.append(((art.path not in gone, art.mtime or 0.0, -order), i, j, path))
            order += 1
    ranked.sort(key=lambda r: r[0], reverse=True)
    files: dict[str, tuple[str, str]] = {}  # a placed path -> (it, its session key)
    folders: dict[str, tuple[str, str]] = {}  # a folder of a placed path -> (that path, its session key)
    out: dict[tuple[int, int], tuple[str, str]] = {}
    for _rank, i, j, path in ranked:
        above = [str(a) for a in PurePosixPath(path).parents][:-1]  # without "."
        blocker = folders.get(path) or next((files[a] for a in above if a in files), None)
        if blocker is not None:
            out[i, j] = blocker
            continue
        files.setdefault(path, (path, sessions[i].key))
        for a in above:
            folders.setdefault(a, (path, sessions[i].key))
    return out


def _json_docs(data: bytes, fmt: str, max_lines: int = 64) -> list[object]:
    """The JSON documents of a restored file: the whole file (json), or its first lines (jsonl)."""
    chunks = [data] if fmt == "json" else data.splitlines()[:max_lines]
    out: list[object] = []
    for chunk in chunks:
        try:
            out.append(json.loads(chunk))
        except ValueError:
            continue
    return out


_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


def _open_dir(root: Path, parts: Sequence[str], relpath: str) -> int:
    """A descriptor on root/parts, walked one component at a time from root, each opened
    relative to its parent with O_NOFOLLOW (a missing one created 0700 first): a component
    swapped for a symlink or a file after safe_target checked it is refused, never followed."""
    fd = os.open(root, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        for part in parts:
            try:
                os.mkdir(part, 0o700, dir_fd=fd)
            except FileExistsError:
                pass
            try:
                nfd = os.open(part, _DIR_FLAGS, dir_fd=fd)
            except OSError as e:
                if e.errno in (errno.ELOOP, errno.ENOTDIR):
                    raise UnsafePath(f"{relpath!r}: {part} is not a plain directory (changed since it was "
                                     "checked)") from None
                raise
            os.close(fd)
            fd = nfd
    except BaseException:
        os.close(fd)
        raise
    return fd


def make_folder(root: Path, relpath: str) -> None:
    """root/relpath and its missing parents (0700), walked from root as `place_file` walks them:
    a symlinked or non-folder component is refused (UnsafePath), never followed."""
    parts = check_syntax(relpath).parts
    root.mkdir(parents=True, exist_ok=True)
    os.close(_open_dir(root, parts, relpath))


SQLITE_BESIDE = ("-wal", "-shm", "-journal")  # the names SQLite opens beside a database, by name


def checked_path(root: Path, relpath: str, beside: Sequence[str] = ()) -> Path:
    """root/relpath for a restore hook that must open it by name (SQLite opens databases and
    their -wal/-shm/-journal by name). Its folders are walked from root by descriptor as
    `place_file` walks them (a missing one created 0700, a symlinked or non-folder one refused), and
    the file and each name `beside` it (`SQLITE_BESIDE` for a database) must be absent or a
    regular file: a symlink planted in the target, even one pointing inside it, is refused
    (UnsafePath naming the path), never followed. What SQLite opens later is opened by name:
    a swap within that window is not caught (SECURITY.md §3.3, gaps)."""
    parts = check_syntax(relpath).parts
    root.mkdir(parents=True, exist_ok=True)  # (the target itself: restore made it, a hook's caller may not have)
    folder = root.joinpath(*parts[:-1])
    for here in (*(root.joinpath(*parts[:n]) for n in range(1, len(parts))),
                 *(folder / (parts[-1] + suffix) for suffix in ("", *beside))):
        if here.is_symlink():  # named for the report; the walk below refuses it anyway
            inside = Path(os.path.realpath(here)).is_relative_to(os.path.realpath(root))  # (a loop: no error)
            where = "points elsewhere in the target" if inside else "resolves outside the restore target"
            raise UnsafePath(f"{relpath!r}: {here.relative_to(root)} is a symlink that {where}; not followed")
    dir_fd = _open_dir(root, parts[:-1], relpath)
    try:
        for name in (parts[-1], *(parts[-1] + suffix for suffix in beside)):
            try:
                st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
            except FileNotFoundError:
                continue
            if not stat.S_ISREG(st.st_mode):
                raise UnsafePath(f"{relpath!r}: {name} is a symlink or not a regular file; not opened")
    finally:
        os.close(dir_fd)
    return root.joinpath(*parts)


def open_target(root: Path, relpath: str, flags: int, mode: int = 0o600) -> int:
    """A descriptor on root/relpath opened with `flags` (O_CREAT, O_APPEND...) relative to its
    folder's descriptor (walked as `place_file` walks it), never through a symlink (O_NOFOLLOW), and
    only a regular file (O_NONBLOCK: a FIFO does not block; UnsafePath otherwise)."""
    parts = check_syntax(relpath).parts
    root.mkdir(parents=True, exist_ok=True)  # (the target itself: restore made it, a hook's caller may not have)
    dir_fd = _open_dir(root, parts[:-1], relpath)
    try:
        try:
            fd = os.open(parts[-1], flags | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
                         | getattr(os, "O_NONBLOCK", 0), mode, dir_fd=dir_fd)
        except OSError as e:
            if e.errno in (errno.ELOOP, errno.EISDIR, errno.ENXIO):
                raise UnsafePath(f"{relpath!r}: a symlink or not a regular file; not opened") from None
            raise
    finally:
        os.close(dir_fd)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise UnsafePath(f"{relpath!r}: not a regular file; not opened")
    os.set_blocking(fd, True)
    return fd


def _same_bytes(dir_fd: int, a: str, b: str) -> bool:
    """Do the regular files a and b of a directory hold the same bytes? (b opened without
    following a symlink or blocking on a FIFO; anything but a regular file is UnsafePath)"""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    with open(a, "rb", opener=lambda p, _f: os.open(p, flags, dir_fd=dir_fd)) as fa, \
            open(b, "rb", opener=lambda p, _f: os.open(p, flags, dir_fd=dir_fd)) as fb:
        if not stat.S_ISREG(os.fstat(fb.fileno()).st_mode):
            raise UnsafePath(f"{b!r}: target became a symlink or special file")
        if os.fstat(fa.fileno()).st_size != os.fstat(fb.fileno()).st_size:
            return False
        while True:
            x, y = fa.read(1 << 20), fb.read(1 << 20)
            if x != y:
                return False
            if not x:
                return True


def place_file(plain: Path, dst: Path, art: Artifact, overwrite: bool = False, root: Path | None = None) -> None:
    """Write the artifact at dst. A file already there with the same bytes is left as it is; one
    with other bytes (a live session, a file edited since the last restore) only with
    `overwrite`: restoring into a HOME must not silently replace what its owner has.

    Every directory below `root` (default: dst's parent) is walked by descriptor without
    following symlinks, and the file is written and renamed relative to its parent's
    descriptor: a symlink planted anywhere in the path after safe_target's checks (by a process
    sharing the target) cannot send the write outside the target."""
    root = root if root is not None else dst.parent
    parts = dst.relative_to(root).parts
    if not parts:
        raise UnsafePath(f"{art.path!r}: no file name")
    name = parts[-1]
    dir_fd = _open_dir(root, parts[:-1], art.path)
    try:
        # a fresh, exclusively created temp file (0600): a name planted in the target beforehand
        # (e.g. a symlink pointing outside) is never opened or followed
        tmp = f".{name}.{secrets.token_hex(6)}.restoring"
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
        fd = os.open(tmp, flags, 0o600, dir_fd=dir_fd)
        try:
            with os.fdopen(fd, "wb") as fo, plain.open("rb") as fi:
                if art.format == "jsonl.zst":
                    zstandard.ZstdCompressor(level=3).copy_stream(fi, fo)
                else:
                    shutil.copyfileobj(fi, fo, 1 << 20)
                fo.flush()
                if art.mtime:
                    os.utime(fo.fileno(), (art.mtime, art.mtime))
            try:
                st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
            except FileNotFoundError:
                st = None
            if st is not None:
                if not stat.S_ISREG(st.st_mode):
                    raise UnsafePath(f"{art.path!r}: target became a symlink or special file")
                if _same_bytes(dir_fd, tmp, name):
                    os.unlink(tmp, dir_fd=dir_fd)
                    return
                if not overwrite:
                    raise UnsafePath(f"{art.path!r}: a file with other content is there; not replaced "
                                     "(--overwrite replaces it)")
            if art.format == "sqlite":
                _clear_beside(dir_fd, name, art.path, overwrite)
            os.replace(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        except BaseException:
            try:
                os.unlink(tmp, dir_fd=dir_fd)
            except FileNotFoundError:
                pass
            raise
    finally:
        os.close(dir_fd)


def _clear_beside(dir_fd: int, name: str, relpath: str, overwrite: bool) -> None:
    """Before a database is written at `name`: the -wal, -shm and -journal of the one it replaces
    (or of one removed without them) go, as they belong to that database: SQLite replays a -wal
    or rolls back a hot -journal onto whatever file has the name, so the restored database would
    read as the target's old one, or as a mix of both. A -wal or -journal with content holds the
    target's data: removed only with `overwrite`, else UnsafePath naming it."""
    there: list[str] = []
    for suffix in SQLITE_BESIDE:
        try:
            st = os.stat(name + suffix, dir_fd=dir_fd, follow_symlinks=False)
        except FileNotFoundError:
            continue
        if not stat.S_ISREG(st.st_mode):
            raise UnsafePath(f"{relpath!r}: {name}{suffix} is a symlink or not a regular file; not written beside it")
        if suffix != "-shm" and st.st_size > 0 and not overwrite:
            raise UnsafePath(f"{relpath!r}: {name}{suffix} is there, the state of a database the target held "
                             "here; not written beside it (--overwrite replaces both)")
        there.append(name + suffix)
    for stale in there:
        os.unlink(stale, dir_fd=dir_fd)


def place_git_pack(plain: Path, root: Path, relpath: str) -> int:
    """A `git-pack` artifact (FORMAT.md): its members, git loose objects, extracted into the git
    dir holding the artifact's `objects/pack/` (root/relpath's parents[2]); how many were written.
    Every member is checked before anything is written: a member that is not a regular file
    named `objects/xx/<38 or 62 hex>` refuses the whole artifact (UnsafePath), so a hostile
    archive writes nowhere else. Folders are walked from root by descriptor as `place_file`
    walks them; an object already there (whatever it is) is left alone, a new one is written
    0444 under a temporary name and linked into place."""
    parts = check_syntax(relpath).parts
    if len(parts) < 4 or parts[-3:-1] != ("objects", "pack"):
        raise UnsafePath(f"{relpath!r}: a git pack that is not in a git dir's objects/pack/; not extracted")
    gitdir = parts[:-3]
    try:
        with tarfile.open(plain, "r:") as tar:
            members = _loose_object_members(tar, relpath)
            return sum(_place_loose_object(tar, m, root, (*gitdir, *m.name.split("/")), relpath) for m in members)
    except tarfile.TarError as e:
        raise UnsafePath(f"{relpath!r}: not a tar of git loose objects ({type(e).__name__}); not extracted") from None


def _loose_object_members(tar: tarfile.TarFile, relpath: str) -> list[tarfile.TarInfo]:
    members = []
    for m in tar:
        if not m.isreg() or LOOSE_OBJECT_MEMBER.fullmatch(m.name) is None:
            what = "regular file" if m.isreg() else "symlink" if m.issym() else "link" if m.islnk() else "non-file"
            raise UnsafePath(f"{relpath!r}: member {m.name[:120]!r} ({what}) is not a git loose object; "
                             "nothing extracted")
        members.append(m)
    return members


def _place_loose_object(tar: tarfile.TarFile, member: tarfile.TarInfo, root: Path, parts: tuple[str, ...],
                        relpath: str) -> int:
    name = parts[-1]
    dir_fd = _open_dir(root, parts[:-1], relpath)
    try:
        try:
            os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
            return 0  # git objects are named by their content: the one there stands
        except FileNotFoundError:
            pass
        tmp = f".{name}.{secrets.token_hex(6)}.restoring"
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
        fd = os.open(tmp, flags, 0o444, dir_fd=dir_fd)
        try:
            data = tar.extractfile(member)
            assert data is not None  # a regular member (checked)
            with os.fdopen(fd, "wb") as fo:
                shutil.copyfileobj(data, fo, 1 << 20)
            try:
                os.link(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)  # never replaces what appeared meanwhile
            except FileExistsError:
                return 0
            return 1
        finally:
            os.unlink(tmp, dir_fd=dir_fd)
    finally:
        os.close(dir_fd)
