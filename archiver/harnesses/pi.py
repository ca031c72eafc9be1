"""pi: $PI_CODING_AGENT_DIR (default ~/.pi/agent), per seeds/by-harness/pi.json.

Sessions: every `sessions/--<cwd>--/<ts>_<id>.jsonl` (header line `type: "session"` then
an append-only tree of entries; branches stay inside the one file), plus the flat custom
session dirs (config `session_dir`, env PI_CODING_AGENT_SESSION_DIR, settings.json
`sessionDir`). Files found in a custom dir are archived at their default-layout path
`.pi/agent/sessions/--<cwd>--/<file>` computed from the header cwd. A relative dir given to pi
(env or settings.json) is reported and skipped: pi resolves it against the folder it was started
in, which nothing records. pi lists such a flat dir by its headers ("filtered by header cwd"), so a
JSONL file there whose complete first line is no session header belongs to another program and is
skipped (an empty or torn first line is a pi session being started, archived with a warning).

Snapshot modes: a version-3 file (the current format) is append-only -> `append`. An older
version (or none) is rewritten in place by pi's migration the next time it is opened, and
an unknown newer one may be too -> `whole`.

Sidecars: `fullOutputPath` temp files (toolResult.details.fullOutputPath,
bashExecution.fullOutputPath) that still exist are archived (role sidecar, optional) at a
synthetic path inside the session's folder: `.pi/agent/sessions/--<cwd>--/<id>.tmp/<basename>`
(pi never looks there; restore rewrites the fullOutputPath values naming them to where it put
them: relink_restored).
Missing ones are reported as warnings; a symbolic link there is reported and never followed (the
temp dir is shared with every local user; other collectors never follow links either).

Lineage: header.parentSession is the absolute path of the source file (/fork, /clone,
forkFrom, newSession({parentSession})) -> edge `fork` to that file's header id. When the
file is gone the id is taken from its file name `<ts>_<id>.jsonl`, the edge is kept
(inferred=False) and a warning says so. `at` = the fork point: /fork and /clone copy the
root->leaf path and forkFrom() every entry, ids kept (seed linking "forks"), ahead of the
fork's own entries, so it is the id of the last entry of the fork file's leading run of
entries whose ids the parent file also holds; a label there (a bookmark, which /fork
re-emits after the path and forkFrom copies) gives the entry it hangs under (parentId).
None when the parent file is not readable, or nothing was copied
(newSession({parentSession}), a fork before the first message).
Title: the last session_info `name` (one without a name, or an empty one, clears it).
"""

from __future__ import annotations

import json
import logging
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

import orjson

from archiver.harnesses.base import HarnessContext, native_path
from archiver.harnesses.common import (
    SHAPE_ERRORS, LazyByPath, cache_get, cache_put, configured_root, cwd_folder_relpath, expand_home, file_state_key,
    iso, open_file, read_problem, read_regular, unexpected_shape, Unlistable,
)
from archiver.harnesses.jsonl_probe import parse_line, scan_lines, unparseable_warning
from archiver.harnesses.relinking import header_parent_path, write_first_line
from archiver.model import Artifact, DiscoveredSession, LineageEdge, Session, SourceArtifact, is_utf8, session_key

log = logging.getLogger(__name__)

NAME = "pi"
CURRENT_VERSION = 3
MAX_LINE = 8 * 1024 * 1024
# a JSON string value of "fullOutputPath" in raw bytes (used only on oversized lines)
_FULL_OUTPUT_RE = re.compile(rb'(?<!\\)"fullOutputPath"\s*:\s*"((?:[^"\\]|\\.){1,4096})"')
_OVERLAP = 4200


def cwd_dir_name(cwd: str) -> str:
    """pi's per-cwd folder: leading separator removed, / \\ : replaced by -, wrapped in --."""
    return "--" + re.sub(r"[/\\:]", "-", re.sub(r"^[/\\]", "", cwd)) + "--"


def id_from_filename(name: str) -> str:
    """`<ISO ts with : and . as ->_<id>.jsonl` -> id (the whole stem when there is no `_`)."""
    stem = name[: -len(".jsonl")] if name.endswith(".jsonl") else name
    return stem.split("_", 1)[1] if "_" in stem else stem


def _restored_parent(parent: str, prefix: str, moved: dict[str, str]) -> str | None:
    """The restored path of the file a (relocated) parentSession names: the artifact of this
    restore with its file name (the one in the folder it names, if several), else the
    default-layout path of the folder and name it gives, else None."""
    parts = parent.split("/")
    name, folder = parts[-1], parts[-2] if len(parts) > 2 else ""
    here = sorted({to for archived, to in moved.items()
                   if archived.startswith(prefix) and archived.rsplit("/", 1)[-1] == name})
    same = [to for to in here if to.split("/")[-2] == folder]
    if same or len(here) == 1:
        return (same or here)[0]
    if len(parts) >= 4 and parts[-3] == "sessions" and folder.startswith("--") and folder.endswith("--"):
        return f"{prefix}{folder}/{name}"
    return None


def _restored_outputs(transcript: str, session: Session, root: Path, moved: dict[str, str]) -> dict[str, str]:
    """File name -> absolute restored path of each temp output file archived with the session
    beside `transcript` (`<folder>/<id>.tmp/<name>`); a name two of them share is left out."""
    folder = transcript.rsplit("/", 1)[0]
    out: dict[str, str] = {}
    seen: set[str] = set()
    for art in session.artifacts:
        parts = art.path.rsplit("/", 2)
        if art.role != "sidecar" or len(parts) != 3 or parts[0] != folder or not parts[1].endswith(".tmp"):
            continue
        name, to = parts[2], moved.get(art.path, art.path)
        if name in seen:
            out.pop(name, None)
            continue
        seen.add(name)
        if _plain_relpath(to) and is_utf8(str(root / to)):  # (one that is not is refused by restore, never written)
            out[name] = str(root / to)
    return out


def _plain_relpath(path: str) -> bool:
    """A relative path of plain names: nothing a restore would refuse as leaving its target."""
    return bool(path) and "\0" not in path and "\\" not in path and not path.startswith("/") \
        and all(part not in ("", ".", "..") for part in path.split("/"))


# a fullOutputPath key and its JSON string value, in raw bytes (an escaped quote is inside a string)
_FULL_OUTPUT_VALUE_RE = re.compile(rb'(?<!\\)("fullOutputPath"\s*:\s*)"((?:[^"\\]|\\.)*)"')


def _relink_full_outputs(plain: Path, outputs: dict[str, str]) -> None:
    """plain with each fullOutputPath whose file name is in `outputs` naming that path instead,
    every other byte kept (written only when something changed)."""
    def swap(m: re.Match[bytes]) -> bytes:
        try:
            value = orjson.loads(b'"' + m.group(2) + b'"')
        except orjson.JSONDecodeError:
            return m.group(0)
        new = outputs.get(value.rsplit("/", 1)[-1]) if isinstance(value, str) else None
        return m.group(1) + orjson.dumps(new) if new is not None and new != value else m.group(0)

    tmp = plain.with_name(plain.name + ".relinking")
    changed = False
    with plain.open("rb") as fi, tmp.open("wb") as fo:
        for line in fi:
            if b'"fullOutputPath"' in line:
                new_line = _FULL_OUTPUT_VALUE_RE.sub(swap, line)
                changed = changed or new_line != line
                line = new_line
            fo.write(line)
    if changed:
        tmp.replace(plain)
    else:
        tmp.unlink()


def _replace_header_value(plain: Path, first: bytes, header: dict[str, Any], key: str, old: str, new: str) -> None:
    """plain with `key`'s string value in its first line replaced, the rest of the line's bytes
    kept (JSON.stringify's compact form); a line spelled otherwise is written anew."""
    line = None
    for spell in (orjson.dumps(old), json.dumps(old).encode()):  # as JSON.stringify writes it, or ASCII-escaped
        needle = b'"' + key.encode() + b'":' + spell
        if first.count(needle) == 1:
            line = first.replace(needle, b'"' + key.encode() + b'":' + orjson.dumps(new))
            break
    if line is None:
        eol = first[len(first.rstrip(b"\r\n")):]
        line = orjson.dumps({**header, key: new}) + eol
    write_first_line(plain, first, line)


@dataclass
class _Found:
    file: Path
    native: str  # default-layout path relative to HOME
    header: dict[str, Any] | None
    warnings: list[str] = field(default_factory=list)
    st: os.stat_result | None = None  # as stat'ed when its header was read

    @property
    def session_id(self) -> str:
        hid = (self.header or {}).get("id")
        return str(hid) if isinstance(hid, str) and hid else id_from_filename(self.file.name)


class Pi:
    name = NAME
    native_root = ".pi/agent"

    @classmethod
    def cwd_folders(cls) -> list[tuple[str, Callable[[str], str]]]:
        """Folders named after a cwd (restore --relocate renames them)."""
        return [(f"{cls.native_root}/sessions/", cwd_dir_name)]

    @classmethod
    def relink_restored(cls, artifact: Artifact, plain: Path, root: Path, moved: dict[str, str], *,
                        session: Session | None = None, relocated: bool = True) -> str | None:
        """A restored transcript's absolute paths to other restored files, rewritten in the plaintext.

        Every restore: a fullOutputPath value (toolResult.details, bashExecution) whose file name
        is that of a temp file archived with the session (`<id>.tmp/<name>` beside the transcript)
        names the restored copy (root/<its restored path>), so pi opens the full output there.

        Every restore too (relocated or not, like fullOutputPath): a fork's header.parentSession,
        the absolute path of its parent's file on the archived host (redacted, and maybe in a flat
        custom session dir the archive folds into the default layout), names the parent where this
        restore put it (root/<its restored path>), so pi opens the parent and a later sync links
        the fork to it. A parent this restore does not hold is named where a restore into the same
        root puts it (`.pi/agent/sessions/--<cwd>--/<file>`: archives use the default layout); one in
        a flat custom session dir, whose folder only its own header knows, is left as archived and
        reported. Rewrites the plaintext's first line."""
        prefix = f"{cls.native_root}/sessions/"
        if artifact.role != "transcript" or artifact.format != "jsonl" or not artifact.path.startswith(prefix):
            return None
        if session is not None:
            outputs = _restored_outputs(artifact.path, session, root, moved)
            if outputs:
                _relink_full_outputs(plain, outputs)
        found = header_parent_path(plain, MAX_LINE)
        if found is None:
            return None
        first, header, parent = found
        target = _restored_parent(parent, prefix, moved)
        if target is None:
            return (f"header.parentSession of {artifact.path} is left as archived: its parent file is not in this "
                    "restore and lies in no sessions/--<cwd>--/ folder")
        new = str(root / target)
        if new != parent:
            _replace_header_value(plain, first, header, "parentSession", parent, new)
        return None

    def __init__(self, ctx: HarnessContext) -> None:
        self.ctx = ctx
        # native path of a transcript or sidecar -> the session id its name holds (as discovery
        # gave it, before the archive redacts ids), so redacted_relpath names it after the id as archived
        self._ids: dict[str, str] = {}
        # sessions/ folder name -> the cwd a header in it gives, when the folder is that cwd's: a
        # session without a readable header (empty, torn, corrupt) is archived in the same folder
        self._folder_cwds: dict[str, str] = {}

    @property
    def root(self) -> Path:
        return configured_root(self.ctx, "PI_CODING_AGENT_DIR", tilde_home=self.ctx.home) or self.ctx.home / ".pi" / "agent"

    def custom_session_dirs(self) -> list[Path]:
        """Flat session dirs besides <root>/sessions: config, env, settings.json sessionDir."""
        out: list[Path] = []
        opt = self.ctx.options.get("session_dir")
        if isinstance(opt, (str, Path)) and str(opt):
            d = expand_home(str(opt), self.ctx.home)
            out.append(d if d.is_absolute() else self.ctx.home / d)  # config.py made it absolute (config's folder)
        env = self.ctx.env.get("PI_CODING_AGENT_SESSION_DIR")
        if env:
            out.extend(self._pi_session_dir(env, "PI_CODING_AGENT_SESSION_DIR"))
        settings = self.root / "settings.json"
        try:
            raw = read_regular(settings, 1024 * 1024 - 1)
            data = orjson.loads(raw) if raw is not None else None
            if isinstance(data, dict) and isinstance(data.get("sessionDir"), str) and data["sessionDir"]:
                out.extend(self._pi_session_dir(data["sessionDir"], "sessionDir in pi's settings.json"))
        except FileNotFoundError:
            pass
        except OSError as e:  # a symlink or a FIFO is refused (not followed, not waited on)
            log.warning("pi: settings.json not read (%s)", read_problem(e))
        except orjson.JSONDecodeError:
            pass
        default = (self.root / "sessions").resolve()
        uniq: list[Path] = []
        for d in out:
            if d.resolve() != default and d.resolve() not in {u.resolve() for u in uniq}:
                uniq.append(d)
        return uniq

    def _pi_session_dir(self, value: str, source: str) -> list[Path]:
        """A session dir pi itself was given: pi resolves a relative one against the folder it
        was started in, which nothing on disk records; the archiver's own cwd would be a guess."""
        d = expand_home(value, self.ctx.home)
        if d.is_absolute():
            return [d]
        # neither the settings file's path nor the value: both may name the user (logs reach
        # collectors unredacted)
        log.warning("pi: %s is a relative path: pi resolves it against the folder it was started in, "
                    "which the archiver cannot know; its sessions are not collected (set the archiver's "
                    "[harnesses.pi] session_dir to where they are)", source)
        return []

    # ---- discovery ----

    def discover(self) -> Iterator[DiscoveredSession]:
        found: list[_Found] = []
        sessions_dir = self.root / "sessions"
        unlistable = Unlistable()
        if sessions_dir.is_dir():
            for d in sorted(p for p in sessions_dir.iterdir() if p.is_dir() and not p.is_symlink()):
                try:
                    with os.scandir(d) as entries:  # (Path.glob would skip an unlistable folder silently)
                        names = sorted(e.name for e in entries if e.name.endswith(".jsonl"))
                except OSError as e:
                    unlistable.add(e)
                    continue
                for f in (d / n for n in names):
                    if f.is_file():
                        found.append(self._found(f, native_path(self.native_root, self.root, f)))
        for d in self.custom_session_dirs():
            if not d.is_dir():
                continue
            for f in sorted(d.glob("*.jsonl")):
                if not f.is_file():
                    continue
                item = self._found(f, "")
                if item.header is None and _foreign_jsonl(f):
                    # pi lists a flat dir by its headers: another program's JSONL there is no session
                    # (no path in the log: it holds the user's home; logs reach collectors unredacted)
                    log.debug("pi: a .jsonl file in a session dir is not a pi session (no session header); skipped")
                    continue
                cwd = (item.header or {}).get("cwd")
                folder = cwd_dir_name(cwd) if isinstance(cwd, str) else "--unknown-cwd--"
                item.native = f"{self.native_root}/sessions/{folder}/{f.name}"
                found.append(item)

        self._folder_cwds = {}
        for item in found:
            cwd = (item.header or {}).get("cwd")
            folder = item.native.rsplit("/", 2)[-2] if item.native.count("/") >= 2 else ""
            if isinstance(cwd, str) and cwd and cwd_dir_name(cwd) == folder:
                self._folder_cwds.setdefault(folder, cwd)
        by_id: dict[str, _Found] = {}
        by_path = LazyByPath(found)  # resolved paths: computed only when a parentSession needs them
        by_name: dict[str, _Found] = {}
        for item in found:
            sid = item.session_id
            if sid in by_id:
                other = by_id[sid]
                item.warnings.append(f"{item.file.name}: session id {sid} also used by {other.file.name}; "
                                     "archived under its file name")
                item.header = dict(item.header or {}, id=item.file.name[: -len(".jsonl")])
            by_id[item.session_id] = item
            by_name.setdefault(item.file.name, item)
        for item in found:
            try:
                yield self._session(item, by_path, by_name)
            except OSError as e:
                why = f"unreadable ({e.strerror or e})"
                yield DiscoveredSession(harness=NAME, session_id=item.session_id, unread=why,
                                        warnings=[f"{item.file.name}: {why}"])
            except SHAPE_ERRORS as e:  # never past this session: its file is still archived as is
                yield DiscoveredSession(
                    harness=NAME, session_id=item.session_id, warnings=[*item.warnings, unexpected_shape(item.file.name, e)],
                    sources=[SourceArtifact(source=item.file, path=item.native, role="transcript", format="jsonl",
                                            mode="whole")])
        problems = unlistable.problems(f"{self.native_root}/sessions", "project folder(s)",
                                       "; their sessions are not refreshed")
        if problems:
            yield DiscoveredSession(harness=NAME, session_id="@host", kind="host", title="pi host files",
                                    warnings=list(problems), errors=list(problems))

    def _found(self, f: Path, native: str) -> _Found:
        item = _Found(file=f, native=native, header=None)
        try:
            item.st = f.stat()
            header = self._header(f, item.st)
            if header is not None:
                item.header = header
            else:
                item.warnings.append(f"{f.name}: first line is not a session header; id taken from the file name")
        except OSError as e:
            item.warnings.append(f"{f.name}: unreadable header ({e.strerror or e})")
        return item

    def _header(self, f: Path, st: os.stat_result) -> dict[str, Any] | None:
        """The session header (first line), read once per file state."""
        key = file_state_key("pi:header", f, st)
        hit = cache_get(self.ctx.cache, key)
        if isinstance(hit, list) and len(hit) == 1 and (hit[0] is None or isinstance(hit[0], dict)):
            return hit[0]  # type: ignore[no-any-return]
        with open_file(f) as stream:
            first = next(scan_lines(stream, 1024 * 1024), None)
        ok, rec = parse_line(first) if first is not None else (False, None)
        header = rec if isinstance(rec, dict) and rec.get("type") == "session" else None
        cache_put(self.ctx.cache, key, [header], _CACHE_LIMIT)
        return header

    def _session(self, item: _Found, by_path: LazyByPath[_Found], by_name: dict[str, _Found]) -> DiscoveredSession:
        header = item.header or {}
        s = DiscoveredSession(harness=NAME, session_id=item.session_id, warnings=list(item.warnings))
        s.created_at = header.get("timestamp") if isinstance(header.get("timestamp"), str) else None
        s.cwd = header.get("cwd") if isinstance(header.get("cwd"), str) else None
        version = header.get("version", 1) if item.header is not None else None
        mode = "append" if version == CURRENT_VERSION else "whole"
        s.sources.append(SourceArtifact(source=item.file, path=item.native, role="transcript", format="jsonl", mode=mode))
        self._ids[item.native] = s.session_id
        s.updated_at = iso((item.st or item.file.stat()).st_mtime)

        title, outputs, bad = self._scan(item.file, item.st)
        s.title = title
        if bad:
            s.warnings.append(unparseable_warning(item.file.name, bad))
        folder = item.native.rsplit("/", 1)[0]
        for out in outputs:
            p = Path(out)
            if not _pi_temp_output(out):  # a record may name any file (/etc/passwd, ~/.ssh/...): only pi's own
                s.warnings.append(f"{item.file.name}: fullOutputPath {out!r} is not a pi-bash-*.log temporary "
                                  "file at an absolute path; not archived")
            elif p.is_symlink():  # never followed: os.tmpdir() is shared, the link may lead to a key
                s.warnings.append(f"{item.file.name}: fullOutputPath {out} is a symbolic link; not archived")
            elif p.is_file():
                s.sources.append(
                    SourceArtifact(
                        source=p, path=f"{folder}/{s.session_id}.tmp/{p.name}", role="sidecar", format="text",
                        mode="whole", optional=True,
                    )
                )
                self._ids[s.sources[-1].path] = s.session_id
            else:
                s.warnings.append(f"{item.file.name}: fullOutputPath {out} no longer exists (temporary file)")

        parent = header.get("parentSession")
        if isinstance(parent, str) and parent:
            s.kind = "fork"
            s.parents.append(self._parent_edge(parent, item, by_path, by_name, s))
        return s

    def _parent_edge(
        self, parent: str, item: _Found, by_path: LazyByPath[_Found], by_name: dict[str, _Found], s: DiscoveredSession
    ) -> LineageEdge:
        p = Path(parent)
        known = by_path.get(str(p.resolve())) if p.is_absolute() else None
        if known is not None:
            return self._fork_edge(item, known)
        if p.is_file():
            other = self._found(p, "")
            if other.header is not None:
                return self._fork_edge(item, other)
        if p.name in by_name:  # same file under another root (moved agent dir)
            s.warnings.append(f"parentSession {parent} not found there; matched by file name {by_name[p.name].file}")
            return self._fork_edge(item, by_name[p.name])
        pid = id_from_filename(p.name)
        s.warnings.append(f"parentSession {parent} is gone; parent id {pid} taken from its file name")
        return LineageEdge(relation="fork", parent=session_key(NAME, pid))

    def _fork_edge(self, item: _Found, parent: _Found) -> LineageEdge:
        return LineageEdge(relation="fork", parent=session_key(NAME, parent.session_id), at=self._fork_point(item, parent))

    def _fork_point(self, item: _Found, parent: _Found) -> str | None:
        """The last entry of the fork's leading copied run (see the module doc), read once per
        state of the two files."""
        try:
            st, pst = item.st or item.file.stat(), parent.st or parent.file.stat()
        except OSError:
            return None
        key = file_state_key("pi:fork-point", item.file, st) + "|" + file_state_key("of", parent.file, pst)
        hit = cache_get(self.ctx.cache, key)
        if isinstance(hit, list) and len(hit) == 1 and (hit[0] is None or isinstance(hit[0], str)):
            return hit[0]  # type: ignore[no-any-return]
        last: str | None = None
        up: dict[str, str | None] = {}  # label id -> its parentId, in the copied run
        try:
            theirs: set[str] | None = None
            for eid, kind, parent_id in entries(item.file):
                if theirs is None:  # read only when the fork has an entry at all
                    theirs = {e[0] for e in entries(parent.file)}
                if eid not in theirs:
                    break
                last = eid
                if kind == "label":
                    up[eid] = parent_id
        except OSError:
            return None
        at, seen = last, set()
        while at in up and at not in seen:  # a bookmark is no point of the conversation
            seen.add(at)
            at = up[at]
        cache_put(self.ctx.cache, key, [at])
        return at

    def _scan(self, f: Path, st: os.stat_result | None = None) -> tuple[str | None, list[str], list[int]]:
        """(last session_info name, fullOutputPath values in order, unparseable complete lines),
        read once per file state."""
        st = st or f.stat()
        key = file_state_key("pi:scan:v2", f, st)
        hit = cache_get(self.ctx.cache, key)
        if isinstance(hit, list) and len(hit) == 3:
            return hit[0], list(hit[1]), list(hit[2])
        found = self.scan_file(f)
        cache_put(self.ctx.cache, key, list(found), _CACHE_LIMIT)
        return found

    @staticmethod
    def scan_file(f: Path) -> tuple[str | None, list[str], list[int]]:
        title: str | None = None
        outputs: list[str] = []
        bad: list[int] = []
        with open_file(f) as stream:
            for line in scan_lines(stream, MAX_LINE, needle=_FULL_OUTPUT_RE, overlap=_OVERLAP):
                if not line.terminated:
                    break  # torn tail being written
                ok, rec = parse_line(line)
                if not ok:
                    bad.append(line.no)
                    continue
                if line.data is None:
                    for raw in sorted(line.found):
                        try:
                            val = orjson.loads(b'"' + raw + b'"')
                        except orjson.JSONDecodeError:
                            continue
                        if isinstance(val, str) and val not in outputs:
                            outputs.append(val)
                    continue
                if not isinstance(rec, dict):
                    continue
                if rec.get("type") == "session_info":  # the latest wins; an empty or absent name clears
                    name = rec.get("name")
                    title = name if isinstance(name, str) and name.strip() else None
                elif rec.get("type") == "message" and b"fullOutputPath" in line.data:
                    msg = rec.get("message") if isinstance(rec.get("message"), dict) else {}
                    details = msg.get("details") if isinstance(msg.get("details"), dict) else {}
                    for val in (details.get("fullOutputPath"), msg.get("fullOutputPath")):
                        if isinstance(val, str) and val and val not in outputs:
                            outputs.append(val)
        return title, outputs, bad

    # ---- redaction of the path-derived folder name ----

    def redacted_relpath(
        self,
        src: SourceArtifact,
        session: DiscoveredSession,
        redact_relpath: Callable[[str], str],
        redact_text: Callable[[str], str],
        pseudonym: Callable[[str, str], str] | None = None,  # (the pipeline passes it; no hash-named folder here)
    ) -> str:
        """`--<cwd>--` is derived from the cwd: rebuild it from the redacted cwd. The session id
        in the transcript's name `<ts>_<id>.jsonl` and in a sidecar's folder `<id>.tmp/` is the
        id as the archive names the session (`session.session_id`, redacted like any key, before
        this hook runs): a caller-supplied id may hold a user name (`pi --session-id
        alice-refactor`), which the path rules keep in `<ts>_alice-refactor.jsonl`, joined to the
        time stamp by `_`; so name, key and the header's id agree. Every other component (a
        sidecar's basename, which may carry a user name: `pi-bash-alice-1a2b.log`) goes
        through redact_relpath like any path. A session whose header gives no cwd of its folder
        (an empty or corrupt first line) takes the cwd another header in that folder gives, so it
        is archived beside its siblings, not under the rules' reading of the folder name."""
        prefix = f"{self.native_root}/sessions/"
        cwd = session.cwd
        if src.path.startswith(prefix):
            folder = src.path[len(prefix):].partition("/")[0]
            if not cwd or cwd_dir_name(cwd) != folder:
                cwd = self._folder_cwds.get(folder, cwd)
        out = cwd_folder_relpath(src.path, prefix, cwd, cwd_dir_name, redact_relpath, redact_text)
        orig = self._ids.get(src.path)
        if not orig:
            return out
        folder, base = out.rsplit("/", 1)
        if src.role == "transcript" and src.path.endswith(f"_{orig}.jsonl"):
            stem = src.path.rsplit("/", 1)[1][: -len(f"_{orig}.jsonl")]  # the time stamp
            return f"{folder}/{redact_relpath(stem)}_{session.session_id}.jsonl"
        if src.role == "sidecar" and src.path.rsplit("/", 2)[1] == f"{orig}.tmp":
            return f"{folder.rsplit('/', 1)[0]}/{session.session_id}.tmp/{base}"
        return out


# the envelope's first keys of an entry too long to parse (pi writes type, id first)
_HEAD_ID_RE = re.compile(rb'^\s*\{\s*"type"\s*:\s*"([^"\\]*)"\s*,\s*"id"\s*:\s*"([^"\\]+)"')


def entries(f: Path) -> Iterator[tuple[str, str, str | None]]:
    """(id, type, parentId) of a session file's tree entries in file order; the header,
    unparseable lines and a torn last line give none (an entry too long to parse gives its id
    and type from its first bytes, parentId None)."""
    with open_file(f) as stream:
        for line in scan_lines(stream, MAX_LINE):
            if not line.terminated:
                break
            if line.data is None:
                m = _HEAD_ID_RE.match(line.head)
                if m and m.group(1) != b"session":
                    yield m.group(2).decode("utf-8", "replace"), m.group(1).decode("utf-8", "replace"), None
                continue
            rec = parse_line(line)[1]
            if isinstance(rec, dict) and rec.get("type") != "session":
                eid, kind, parent = rec.get("id"), rec.get("type"), rec.get("parentId")
                if isinstance(eid, str) and eid:
                    yield eid, str(kind), parent if isinstance(parent, str) else None


def _foreign_jsonl(f: Path) -> bool:
    """True when the file's first line is complete JSON that is not a session header (another
    program's file); False for an empty or torn first line, which a pi being started writes."""
    try:
        with open_file(f) as stream:
            first = next(scan_lines(stream, 1024 * 1024), None)
    except OSError:
        return False
    if first is None or not first.terminated:
        return False
    ok, rec = parse_line(first)
    return ok and not (isinstance(rec, dict) and rec.get("type") == "session")


_CACHE_LIMIT = 256 * 1024  # a scan's facts longer than this are read again each run


HARNESS = Pi


def _pi_temp_output(value: str) -> bool:
    """pi's temp output files: `<os.tmpdir()>/pi-bash-<hex>.log` (the seed), so an absolute path
    to a file of that name, without NUL (which no file name holds) or `..` parts."""
    name = value.rsplit("/", 1)[-1]
    return (value.startswith("/") and "\0" not in value and "/../" not in value + "/"
            and name.startswith("pi-bash-") and name.endswith(".log"))
