"""Claude Code: ~/.claude (or CLAUDE_CONFIG_DIR), per seeds/by-harness/claude-code.json.

One session per projects/<key>/<sid>.jsonl, with every sidecar: subagent transcripts
(each its own session) and their .meta.json / .forked-skill*.json, tool-results/,
remote-agents/, the sibling .ccr-tip/.precompact/.dir-sync files, file-history/<sid>/,
session-env/<sid>/, tasks/<sid>/ and todos/<sid>-agent-*.json (task state the seed lists as
swept by cleanupPeriodDays). Those files of a session whose transcript is gone (pruned)
are still archived under its key, with a warning. A file under subagents/ that no subagent transcript claims (a
.meta.json written before its transcript) stays with the session whose folder holds it.
history.jsonl, paste-cache/ and the per-project files that belong to no one session
(projects/<key>/sessions-index.json, projects/<key>/memory/) form the host session. On restore
the legacy sessions-index.json's entries name the restored transcripts (`fullPath`:
relink_restored); its `projectPath` / `originalPath`, the project's cwd, move with --relocate.
So do a restored transcript's toolUseResult.persistedOutputPath and `<persisted-output>` preview
path name the restored tool-results/ file, and an Agent result's outputFile a restored file of
projects/ it names (a subagent transcript).

Complete transcript lines (main and subagent) that are not JSON are kept as they are and
counted in a session warning naming the file and the line numbers, never their content, as
Codex and pi do; a final line without its newline (torn by a crash, or being written) is not.

Lineage:
- subagent: agent-<id>.meta.json toolUseId names the Agent tool_use in the parent;
  the older layout's projects/<key>/agent-<id>.jsonl (sidechain lines whose sessionId names the
  parent) is that parent's subagent, `at` the tool_use whose toolUseResult.agentId is <id>;
  forked subagents start with a fork-context-ref (parentSessionId, parentLastUuid).
  The parent is the subagent whose file holds that tool_use when one does (a nested spawn),
  whatever spawnDepth says (the seed gives it no base, older metas lack it), else the session.
- fork: the new transcript's copied lines carry forkedFrom {sessionId, messageUuid}, each
  with its own uuid in the source: the fork point is the last copied line's messageUuid.
- continuation: a continued-in record in A (continuedInSessionId = B) makes B continue A.

A session whose transcript /cd relocated into another project folder (a `relocated` record) keeps
the session folder and sibling files it left in the old one: one session (_merge_moved_pieces).
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path
from typing import Any, Callable, Iterator

import orjson

from archiver.harnesses.base import HarnessContext, native_path
from archiver.harnesses.common import (
    SHAPE_ERRORS, cache_get, cache_put, configured_root, cwd_folder_relpath, file_state_key, iso, open_file,
    read_problem, read_regular, regular_files, sniff_content, unexpected_shape, Unlistable,
)
from archiver.harnesses.jsonl_probe import (
    MAX_PROBE_LINE, head_records, looks_like_json, parse_line, records_containing, scan_lines, tail_records,
    unparseable_warning,
)
from archiver.harnesses.relinking import json_string, restored_path, rewrite_lines, string_field
from archiver.model import Artifact, DiscoveredSession, Format, LineageEdge, Session, SourceArtifact, is_utf8, session_key

NAME = "claude-code"
SIBLING_SUFFIXES = (".ccr-tip.json", ".precompact.json", ".dir-sync.json")
PROJECT_INDEX = "sessions-index.json"  # legacy per-project index: host files, as memory/
# folders named by a session id outside its project folder, with the role their files get
PER_SESSION_DIRS = (("file-history", "blob"), ("session-env", "sidecar"), ("tasks", "sidecar"))
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_TOOL_USE_IDS_CACHE_LIMIT = 256 << 10  # a subagent with more tool uses than fit is read again next run


def sniff_format(path: Path) -> Format:
    """json/text/binary by name and first bytes: file backups may be images."""
    name = path.name
    if name.endswith(".json"):
        return "json"
    if name.endswith(".jsonl"):
        return "jsonl"
    return sniff_content(path)


class ClaudeCode:
    name = NAME
    native_root = ".claude"

    @classmethod
    def cwd_folders(cls) -> list[tuple[str, Callable[[str], str]]]:
        """Folders named after a cwd (restore --relocate renames them)."""
        return [(f"{cls.native_root}/projects/", project_key)]

    @classmethod
    def relink_restored(cls, artifact: Artifact, plain: Path, root: Path, moved: dict[str, str], *,
                        session: Session | None = None, relocated: bool = True) -> str | None:
        """A restored legacy `projects/<key>/sessions-index.json` (seed: {version, originalPath,
        entries[{sessionId, fullPath, ..., projectPath}]}): each entry's fullPath, the absolute
        path of a transcript on the archived host, names it where this restore put it (root/<its
        restored path>: the `.../projects/<folder>/<rest>` it names, else that file in the
        index's own folder), or where a restore into the same root puts it when this one does
        not hold it (a pruned transcript). projectPath and originalPath are the project's cwd:
        --relocate rewrites them as every cwd (relocate.py); a plain restore keeps the archived
        one, as in the transcripts. Every other byte is kept; a value that names no transcript
        path is left as archived and reported.

        A restored transcript (main or subagent, `projects/<key>/...jsonl`): see
        `_relink_transcript` (toolUseResult.persistedOutputPath, the `<persisted-output>`
        preview's path, toolUseResult.outputFile)."""
        prefix = f"{cls.native_root}/projects/"
        if artifact.role == "transcript":
            if artifact.format != "jsonl" or not artifact.path.startswith(prefix):
                return None
            return _relink_transcript(artifact.path, plain, root, moved, prefix)
        parts = artifact.path.split("/")
        if artifact.role != "index" or not artifact.path.startswith(prefix) or len(parts) != 4 \
                or parts[-1] != PROJECT_INDEX:
            return None
        if plain.stat().st_size > _INDEX_RELINK_MAX:
            return f"{artifact.path}: larger than {_INDEX_RELINK_MAX} bytes; its fullPath values are left as archived"
        own = moved.get(artifact.path, artifact.path).rsplit("/", 1)[0]  # the index's restored folder
        restored = set(moved.values())
        left = 0

        def swap(m: re.Match[bytes]) -> bytes:
            nonlocal left
            try:
                value = orjson.loads(b'"' + m.group(2) + b'"')
            except orjson.JSONDecodeError:
                value = None
            to = _index_transcript(value, prefix, own, restored) if isinstance(value, str) else None
            new = str(root / to) if to is not None else None
            if new is None or not is_utf8(new):
                left += 1
                return m.group(0)
            return m.group(1) + orjson.dumps(new)

        data = plain.read_bytes()
        out = _FULL_PATH_RE.sub(swap, data)
        if out != data:
            tmp = plain.with_name(plain.name + ".relinking")
            tmp.write_bytes(out)
            tmp.replace(plain)
        if left:
            return (f"{artifact.path}: {left} fullPath value(s) name no transcript under a projects/ folder; "
                    "left as archived")
        return None

    def after_restore(self, target_home: Path, sessions: list[Session], overwrite: bool = False) -> list[str]:
        """One warning when restored transcripts carry archived mtimes older than the target's
        `cleanupPeriodDays` (its .claude/settings.json; Claude Code's default is 30 days):
        Claude Code deletes such transcripts when it next starts, so a reviewer opening the
        restored sessions there would lose the copies (the archive keeps them)."""
        days = _cleanup_period_days(target_home / self.native_root / "settings.json")
        if days is None:
            return []
        cutoff = time.time() - days * 86400
        old = sorted(s.key for s in sessions if s.harness == NAME and any(
            a.role == "transcript" and a.mtime and a.mtime < cutoff for a in s.artifacts))
        if not old:
            return []
        return [f"{len(old)} Claude Code session(s) restored with transcripts last written over {days} "
                f"day{'' if days == 1 else 's'} ago "
                f"(cleanupPeriodDays): Claude Code deletes them when it starts; raise cleanupPeriodDays in "
                f"{self.native_root}/settings.json under the restore's target first (first: {old[0]})"]

    def __init__(self, ctx: HarnessContext) -> None:
        self.ctx = ctx
        self._per_session_dirs: dict[str, set[str]] = {}  # PER_SESSION_DIRS' tops -> folder names
        self._todos: dict[str, list[str]] | None = None  # session id -> its todos/ file names, this discover()
        self._root: Path | None = None  # fixed for the length of one discover()
        self._stats: dict[str, os.stat_result] = {}  # transcripts stat'ed this discover()
        self._project_files: list[SourceArtifact] = []  # per-project host files found this discover()
        # project folder -> the cwd it encodes, from the sessions found there (kept after discover():
        # the archived paths of a run's sessions are computed while and after they are yielded)
        self._project_cwds: dict[str, str] = {}
        # session key -> later cwds of its transcript (relocated records, the tail's): a /cd moves
        # the transcript into the new cwd's project folder while its first lines keep the old cwd
        self._cwd_hints: dict[str, list[str]] = {}

    @property
    def root(self) -> Path:
        if self._root is not None:
            return self._root
        return configured_root(self.ctx, "CLAUDE_CONFIG_DIR") or self.ctx.home / ".claude"

    # ---- discovery ----
    def discover(self) -> Iterator[DiscoveredSession]:
        self._root = None
        self._root = self.root
        try:
            yield from self._discover(self._root)
        finally:
            self._root, self._per_session_dirs, self._stats, self._project_files = None, {}, {}, []
            self._todos = None

    def _discover(self, root: Path) -> Iterator[DiscoveredSession]:
        projects = root / "projects"
        # listed once a run, not probed once a session
        self._per_session_dirs = {top: _dir_names(root / top) for top, _ in PER_SESSION_DIRS}
        self._todos = _todo_files(root / "todos")
        self._project_files = []
        found: list[DiscoveredSession] = []
        problems: list[str] = []
        if projects.is_dir():
            try:
                project_dirs = sorted(p for p in projects.iterdir() if p.is_dir() and not p.is_symlink())
            except OSError as e:
                project_dirs = []
                problems.append(f"{self.native_root}/projects: not listable ({(e.strerror or str(e)).lower()})")
            unlistable = Unlistable()
            for project in project_dirs:
                try:
                    found.extend(self._project_sessions(project))
                except OSError as e:  # one unreadable project never hides the others
                    unlistable.add(e)
            problems += unlistable.problems(f"{self.native_root}/projects", "project folder(s)",
                                            "; their sessions are not refreshed")
        found = _merge_moved_pieces(found)
        self._attach_continuations(found)
        self._project_cwds = {}
        for s in found:
            if s.sources and s.sources[0].role == "transcript":
                folder = s.sources[0].path[len(f"{self.native_root}/projects/"):].partition("/")[0]
                for candidate in (s.cwd, *self._cwd_hints.get(s.key, ())):
                    cwd = _folder_cwd(folder, candidate)
                    if cwd is not None:
                        self._project_cwds.setdefault(folder, cwd)
                        break
        self._cwd_hints = {}
        yield from found
        yield from self._leftover_sessions({s.session_id for s in found})
        host = self._host_session()
        if problems:  # each hides sessions: the run reports them as errors
            host = host or DiscoveredSession(harness=NAME, session_id="@host", kind="host",
                                             title="Claude Code host files")
            host.warnings.extend(problems)
            host.errors.extend(problems)
        if host is not None:
            yield host

    def _src(self, file: Path, role: str, fmt: Format | None = None, mode: str = "whole") -> SourceArtifact:
        return SourceArtifact(
            source=file,
            path=native_path(self.native_root, self.root, file),
            role=role,  # type: ignore[arg-type]
            format=fmt or sniff_format(file),
            mode=mode,  # type: ignore[arg-type]
        )

    def _project_sessions(self, project: Path) -> Iterator[DiscoveredSession]:
        files: set[str] = set()
        dirs: set[str] = set()
        links: list[str] = []
        with os.scandir(project) as entries:  # one listing: transcripts, session folders, siblings
            for e in entries:
                if e.is_symlink():  # not followed, as in every other collector: it may lead out of HOME
                    if e.name.endswith(".jsonl"):
                        links.append(e.name)
                elif e.is_dir(follow_symlinks=False):
                    dirs.add(e.name)
                elif e.is_file(follow_symlinks=False):
                    files.add(e.name)
        # a transcript name that is not a regular file: said on its session (one session per id)
        notes: dict[str, list[str]] = {}
        for name in links:
            notes.setdefault(name[: -len(".jsonl")], []).append(f"{name}: a symbolic link; not followed")
        for name in dirs:
            if name.endswith(".jsonl"):
                notes.setdefault(name[: -len(".jsonl")], []).append(
                    f"{name}: a folder where a transcript belongs; skipped")
        if PROJECT_INDEX in files:
            self._project_files.append(self._src(project / PROJECT_INDEX, "index", "json"))
        if "memory" in dirs:
            self._project_files.extend(self._src(f, "sidecar") for f in sorted(regular_files(project / "memory")))
        transcripts = {n[: -len(".jsonl")]: project / n for n in files if n.endswith(".jsonl")}
        session_dirs = {n: project / n for n in dirs if _looks_like_session_id(n)}
        # a cloud session can leave only its sibling files (.ccr-tip.json, ...) here
        siblings = {n[: -len(x)] for n in files for x in SIBLING_SUFFIXES if n.endswith(x)}
        for stem in sorted(s for s in transcripts if s.startswith("agent-") and s not in session_dirs):
            legacy = self._legacy_subagent(transcripts[stem], transcripts)
            if legacy is not None:
                del transcripts[stem]
                yield legacy
        # a warning names a file by its name: the project folder (a cwd turned into a key) can hold
        # what the error redaction cannot rewrite (an e-mail as `name-acme-com`), and the key says where
        for sid in sorted(notes.keys() - transcripts.keys() - session_dirs.keys() - siblings):
            yield DiscoveredSession(harness=NAME, session_id=sid, warnings=sorted(notes[sid]))
        for sid in sorted(set(transcripts) | set(session_dirs) | siblings):
            try:
                for i, found in enumerate(self._session(project, sid, transcripts.get(sid), session_dirs.get(sid), files)):
                    if i == 0:
                        found.warnings.extend(sorted(notes.get(sid, ())))
                    yield found
            except OSError as e:
                yield DiscoveredSession(
                    harness=NAME, session_id=sid, warnings=[f"{sid}: unreadable ({e.strerror or e})"]
                )
            except SHAPE_ERRORS as e:  # never past this session: its transcript is still archived as is
                t = transcripts.get(sid)
                yield DiscoveredSession(harness=NAME, session_id=sid, warnings=[unexpected_shape(sid, e)],
                                        sources=[self._src(t, "transcript", "jsonl", "append")] if t else [])

    def _session(
        self, project: Path, sid: str, transcript: Path | None, sdir: Path | None, files: set[str] | None = None
    ) -> Iterator[DiscoveredSession]:
        session = DiscoveredSession(harness=NAME, session_id=sid)
        if transcript is not None:
            session.sources.append(self._src(transcript, "transcript", "jsonl", "append"))
            try:
                self._read_transcript_facts(transcript, session)
            except OSError as e:
                # kept as a source: the snapshot fails it, so the session counts as failed
                # and its archived state stays, rather than an empty session replacing it
                session.warnings.append(f"{transcript.name}: unreadable ({(e.strerror or str(e)).lower()})")
            except SHAPE_ERRORS as e:
                # a record of a shape no seed describes: the file is still archived as it is
                session.warnings.append(unexpected_shape(transcript.name, e))
        elif sdir is not None:
            session.warnings.append(f"{sid}/: session folder without its transcript {sid}.jsonl")
        else:
            session.warnings.append(f"{sid}.*: session files without its transcript {sid}.jsonl")
        for suffix in SIBLING_SUFFIXES:
            name = f"{sid}{suffix}"
            if (name in files) if files is not None else (project / name).is_file():
                session.sources.append(self._src(project / name, "sidecar", "json"))
        subagents: list[DiscoveredSession] = []
        if sdir is not None:
            for sub in ("tool-results", "remote-agents"):
                d = sdir / sub
                if d.is_dir():
                    for f in sorted(regular_files(d, session.warnings)):
                        role = "blob" if sub == "tool-results" else "sidecar"
                        session.sources.append(self._src(f, role))
            subagents = list(self._subagents(sdir, sid))
            claimed = {src.source for sub in subagents for src in sub.sources}
            for f in sorted(regular_files(sdir / "subagents", session.warnings)):
                if f not in claimed:  # e.g. a .meta.json whose transcript is not written yet
                    session.sources.append(self._src(f, "sidecar"))
            # anything else in the session folder is kept too (unknown sidecars are data)
            known = {"tool-results", "remote-agents", "subagents"}
            links = 0
            for child in sorted(sdir.iterdir()):
                if child.name in known:
                    continue
                if child.is_symlink():  # is_dir/is_file below follow links: one could lead out of HOME
                    links += 1
                    continue
                for f in sorted(regular_files(child, session.warnings, label=f"{sid}/")) if child.is_dir() \
                        else ([child] if child.is_file() else []):
                    session.sources.append(self._src(f, "sidecar"))
            if links:
                session.warnings.append(f"{sid}/: {links} symbolic link(s) not followed")
        session.sources.extend(self._state_sources(sid, session.warnings)[0])
        if session.updated_at is None and session.sources:
            session.updated_at = iso(max(s.source.stat().st_mtime for s in session.sources))
        yield session
        yield from subagents

    def _legacy_subagent(self, f: Path, transcripts: dict[str, Path]) -> DiscoveredSession | None:
        """A subagent transcript of the older layout, `projects/<key>/agent-<id>.jsonl` beside its
        parent's transcript rather than under `<session-id>/subagents/`: recognised by its records
        (seed envelope: isSidechain true, agentId = the file name's id, sessionId = the PARENT
        session id; gotcha: "use agentId / filename", not the stem). It is that parent's subagent,
        `at` the Agent/Task tool_use whose toolUseResult names its agentId. None: a main session
        whose file merely starts with "agent-"."""
        agent_id = f.name[len("agent-"): -len(".jsonl")]
        st = self._stats[str(f)] = f.stat()
        key = file_state_key("claude-code:legacy-agent:v1", f, st)
        facts = cache_get(self.ctx.cache, key)
        if not isinstance(facts, dict) or not isinstance(facts.get("bad"), list):
            facts = {"created_at": None, "cwd": None, "parent": None, "sidechain": False}
            for rec in head_records(f, max_records=5):
                if rec.get("type") not in _CONVERSATION:
                    continue
                if facts["created_at"] is None and isinstance(rec.get("timestamp"), str):
                    facts["created_at"] = rec["timestamp"]
                if facts["cwd"] is None and isinstance(rec.get("cwd"), str):
                    facts["cwd"] = rec["cwd"]
                if rec.get("isSidechain") is True or rec.get("agentId") == agent_id:
                    facts["sidechain"] = True
                if facts["parent"] is None and isinstance(rec.get("sessionId"), str) and rec["sessionId"]:
                    facts["parent"] = rec["sessionId"]
            facts["bad"] = unparseable_lines(f)
            cache_put(self.ctx.cache, key, facts)
        parent = facts["parent"]
        if not facts["sidechain"] or not parent or parent == f.name[: -len(".jsonl")]:
            return None
        s = DiscoveredSession(harness=NAME, session_id=agent_id, kind="subagent")
        s.sources.append(self._src(f, "transcript", "jsonl", "append"))
        s.created_at, s.cwd, s.updated_at = facts["created_at"], facts["cwd"], iso(st.st_mtime)
        if facts["bad"]:
            s.warnings.append(unparseable_warning(f.name, [int(n) for n in facts["bad"]]))
        at = None
        parent_file = transcripts.get(parent)
        if parent_file is not None:
            try:
                at = self._agent_tool_use(parent_file, agent_id)
            except OSError as e:
                s.warnings.append(f"{parent_file.name}: unreadable while looking for the tool_use of agent "
                                  f"{agent_id} ({(e.strerror or str(e)).lower()})")
        s.parents.append(LineageEdge(relation="subagent", parent=session_key(NAME, parent), at=at))
        return s

    def _agent_tool_use(self, parent_file: Path, agent_id: str) -> str | None:
        """The tool_use id whose result (toolUseResult.agentId) names `agent_id` in the parent's
        transcript, read once per state of that file."""
        key = file_state_key("claude-code:agent-tool-use:v1", parent_file, parent_file.stat()) + "|" + agent_id
        hit = cache_get(self.ctx.cache, key)
        if isinstance(hit, list) and len(hit) == 1 and (hit[0] is None or isinstance(hit[0], str)):
            return hit[0]  # type: ignore[no-any-return]
        found = None
        for rec in records_containing(parent_file, orjson.dumps(agent_id)):
            result = rec.get("toolUseResult")
            content = (rec.get("message") or {}).get("content") if isinstance(rec.get("message"), dict) else None
            if isinstance(result, dict) and result.get("agentId") == agent_id and isinstance(content, list):
                ids = [b.get("tool_use_id") for b in content if isinstance(b, dict) and b.get("type") == "tool_result"]
                if ids and isinstance(ids[0], str):
                    found = ids[0]
                    break
        cache_put(self.ctx.cache, key, [found])
        return found

    def _state_sources(self, sid: str, warnings: list[str]) -> tuple[list[SourceArtifact], list[str]]:
        """A session's files outside its project folder: file-history/<sid>/, session-env/<sid>/,
        tasks/<sid>/ (the task list Claude Code keys by the session id unless a team names it) and
        todos/<sid>-agent-<agent id>.json (the TodoWrite lists of the session and its subagents).
        Claude Code sweeps them with its transcripts (cleanupPeriodDays). Also the names of the
        places that held some, for a warning."""
        sources: list[SourceArtifact] = []
        places: list[str] = []
        for top, role in PER_SESSION_DIRS:
            listed = self._per_session_dirs.get(top)
            d = self.root / top / sid
            if not ((sid in listed) if listed is not None else d.is_dir()) or d.is_symlink():
                continue
            places.append(f"{top}/{sid}/")
            sources.extend(self._src(f, role) for f in sorted(regular_files(d, warnings)))
        todos = self._todos if self._todos is not None else _todo_files(self.root / "todos", sid)
        names = todos.get(sid, [])
        if names:
            places.append(f"todos/{sid}-agent-*.json")
            sources.extend(self._src(self.root / "todos" / name, "sidecar", "json") for name in names)
        return sources, places

    def _leftover_sessions(self, seen: set[str]) -> Iterator[DiscoveredSession]:
        """The files of _state_sources of a session no project holds any more (Claude Code pruned
        its transcript, or it was never on this machine): still that session's files, archived
        under its key, as sibling files without a transcript are. A tasks/ folder counts only
        under a session id (a team's task list has a name of its own). A session archived before
        keeps its archived transcript (sync keeps what is gone)."""
        names = self._per_session_dirs
        candidates = set(names.get("file-history", set()) | names.get("session-env", set()))
        candidates |= {n for n in names.get("tasks", set()) | set(self._todos or {}) if _is_uuid(n)}
        for sid in sorted(candidates - seen):
            session = DiscoveredSession(harness=NAME, session_id=sid)
            session.sources, places = self._state_sources(sid, session.warnings)
            if not places:
                continue
            session.warnings.insert(0, f"{', '.join(places)}: session files without its transcript {sid}.jsonl")
            if session.sources:
                session.updated_at = iso(max(s.source.stat().st_mtime for s in session.sources))
            yield session

    def _read_transcript_facts(self, transcript: Path, session: DiscoveredSession) -> None:
        st = self._stats[str(transcript)] = transcript.stat()
        key = file_state_key("claude-code:facts:v6", transcript, st)
        facts = cache_get(self.ctx.cache, key)
        if not isinstance(facts, dict):  # read once per file state, not on every run
            facts = self.transcript_facts(transcript)
            cache_put(self.ctx.cache, key, facts)
        session.created_at, session.cwd, session.title = facts["created_at"], facts["cwd"], facts["title"]
        if isinstance(facts.get("cwds"), list) and facts["cwds"]:
            self._cwd_hints[session.key] = [c for c in facts["cwds"] if isinstance(c, str)]
        fork = facts["fork"]
        if fork is not None:
            session.kind = "fork"
            session.parents.append(LineageEdge(relation="fork", parent=session_key(NAME, fork[0]), at=fork[1]))
        session.updated_at = iso(st.st_mtime)

    @staticmethod
    def transcript_facts(transcript: Path) -> dict[str, Any]:
        """created_at, cwd and fork origin from the first records, title from the last ones."""
        facts: dict[str, Any] = {"created_at": None, "cwd": None, "fork": None, "title": None, "cwds": []}
        head = head_records(transcript)
        if not any(_is_conversation(rec) for rec in head):
            # a /branch copy may open with more carried-forward metadata (content-replacement,
            # relocated, memory-mode, atis-latch, history-suppression) than the head window holds
            first = _first_conversation(transcript)
            head = head + ([first] if first is not None else [])
        for rec in head:
            if facts["created_at"] is None and isinstance(rec.get("timestamp"), str):
                facts["created_at"] = rec["timestamp"]
            if facts["cwd"] is None and isinstance(rec.get("cwd"), str):
                facts["cwd"] = rec["cwd"]
            forked = rec.get("forkedFrom")
            if isinstance(forked, dict) and forked.get("sessionId") and facts["fork"] is None:
                source = str(forked["sessionId"])
                facts["fork"] = [source, fork_point(transcript, source)]
        custom = ai = None
        tail = tail_records(transcript)
        # where the transcript may have moved to (seed: relocated {relocatedCwd}, carried into forks)
        later: list[str] = []
        for rec in [*head, *tail]:
            where = rec.get("relocatedCwd") if rec.get("type") == "relocated" else None
            if isinstance(where, str) and where and where not in later:
                later.append(where)
        last_cwd = next((r["cwd"] for r in reversed(tail) if _is_conversation(r) and isinstance(r.get("cwd"), str)), None)
        if last_cwd and last_cwd not in later:
            later.append(last_cwd)
        facts["cwds"] = [c for c in reversed(later) if c != facts["cwd"]][:4]
        for rec in tail:
            if rec.get("type") == "custom-title" and isinstance(rec.get("customTitle"), str):
                custom = rec["customTitle"] or None  # an empty customTitle clears the title
            elif rec.get("type") == "ai-title" and rec.get("aiTitle"):
                ai = str(rec["aiTitle"])
            elif rec.get("type") == "summary" and rec.get("summary") and not ai:
                ai = str(rec["summary"])
        if not custom and not ai:
            # older builds wrote their legacy `summary` records at the top of the file, out of
            # reach of the tail window in a long transcript
            ai = next((str(r["summary"]) for r in head if r.get("type") == "summary" and r.get("summary")), None)
        facts["title"] = custom or ai
        return facts

    def _subagents(self, sdir: Path, parent_sid: str) -> Iterator[DiscoveredSession]:
        subdir = sdir / "subagents"
        if not subdir.is_dir():
            return
        files = sorted(p for p in regular_files(subdir) if p.name.startswith("agent-") and p.name.endswith(".jsonl"))
        metas: dict[str, dict[str, Any]] = {}
        meta_problems: dict[str, str] = {}
        for f in files:
            agent_id = f.name[len("agent-") : -len(".jsonl")]
            meta_file = f.with_name(f"agent-{agent_id}.meta.json")
            meta_doc = _read_json(meta_file)
            metas[agent_id] = meta_doc or {}
            if meta_doc is None:
                problem = _json_problem(meta_file)
                if problem:
                    meta_problems[agent_id] = f"{meta_file.name}: {problem}"
        listings: dict[Path, dict[str, list[str]]] = {}  # folder -> agent id -> its file names
        owners: dict[str, str] | None = None  # tool_use id -> the subagent holding it, read when first needed
        for f in files:
            agent_id = f.name[len("agent-") : -len(".jsonl")]
            s = DiscoveredSession(harness=NAME, session_id=agent_id, kind="subagent")
            s.sources.append(self._src(f, "transcript", "jsonl", "append"))
            if f.parent not in listings:
                here = {g.name[len("agent-") : -len(".jsonl")] for g in files if g.parent == f.parent}
                listings[f.parent] = _names_by_agent(f.parent, here)
            for name in listings[f.parent].get(agent_id, ()):
                side = f.parent / name
                if name != f.name and side.is_file() and not side.is_symlink():  # a link is not followed
                    s.sources.append(self._src(side, "sidecar", "json" if side.suffix == ".json" else None))
            meta = metas[agent_id]
            st = f.stat()
            key = file_state_key("claude-code:subagent-head:v2", f, st)
            head_facts = cache_get(self.ctx.cache, key)
            if not isinstance(head_facts, dict) or not isinstance(head_facts.get("bad"), list):
                head_facts = _subagent_head(f)  # read once per file state
                head_facts["bad"] = unparseable_lines(f)
                cache_put(self.ctx.cache, key, head_facts)
            if head_facts["bad"]:
                s.warnings.append(unparseable_warning(f.name, [int(n) for n in head_facts["bad"]]))
            s.created_at, s.cwd = head_facts["created_at"], head_facts["cwd"]
            s.title = meta.get("description") if isinstance(meta.get("description"), str) else None
            s.updated_at = iso(st.st_mtime)
            ref = head_facts["ref"]
            tool_use_id = meta.get("toolUseId")
            parent_key = session_key(NAME, parent_sid)
            depth = meta.get("spawnDepth")
            if tool_use_id and len(files) > 1:
                # the spawner is the transcript holding the tool_use (seed), whatever spawnDepth says:
                # the seed gives no base for it (0 or 1 for a child of the session) and older metas lack it
                if owners is None:
                    owners = self._tool_use_owners(files)
                owner = owners.get(str(tool_use_id))
                if owner and owner != agent_id:
                    parent_key = session_key(NAME, owner)
                elif isinstance(depth, int) and depth > 1:
                    s.warnings.append(f"{f.name}: spawnDepth {depth} but no subagent holds tool_use {tool_use_id}")
            if ref is not None:
                # parentSessionId names the containing session: a nested spawn (spawnDepth > 1)
                # hangs off the subagent holding its tool_use, as any other subagent does
                if parent_key == session_key(NAME, parent_sid) and ref.get("parentSessionId"):
                    parent_key = session_key(NAME, str(ref["parentSessionId"]))
                s.parents.append(
                    LineageEdge(relation="subagent", parent=parent_key, at=ref.get("parentLastUuid") or tool_use_id)
                )
            else:
                why = meta_problems.get(agent_id) or (None if tool_use_id else f"{f.name}: no toolUseId in its .meta.json")
                if why:
                    # the spawning side names the agent too (seed: the Agent toolUseResult has agentId)
                    found = self._spawning_tool_use(sdir.parent / f"{parent_sid}.jsonl",
                                                     files, f, agent_id)
                    if found is not None:
                        owner, tool_use_id = found
                        parent_key = session_key(NAME, owner) if owner else parent_key
                        s.warnings.append(f"{why}; its Agent tool_use {tool_use_id} found by the agentId of its result")
                    else:
                        s.warnings.append(f"{why}; parent taken from the folder")
                s.parents.append(LineageEdge(relation="subagent", parent=parent_key, at=tool_use_id))
            yield s

    def _spawning_tool_use(self, parent_file: Path, files: list[Path], f: Path, agent_id: str) -> tuple[str | None, str] | None:
        """(None for the session itself, or the subagent id holding it; the tool_use id) of the
        Agent tool_use whose result names `agent_id`: in the session's transcript, else in one of
        its other subagents' (a nested spawn). None when no transcript names it."""
        candidates: list[tuple[str | None, Path]] = [(None, parent_file)]
        candidates += [(o.name[len("agent-"): -len(".jsonl")], o) for o in files if o != f]
        for owner, transcript in candidates:
            try:
                if transcript.is_file() and (at := self._agent_tool_use(transcript, agent_id)) is not None:
                    return owner, at
            except OSError:
                continue
        return None

    def _tool_use_owners(self, files: list[Path]) -> dict[str, str]:
        """tool_use id -> the subagent (of `files`, one session's) whose transcript holds it: one
        map per session, not a pass over its other subagents per spawn (folders of thousands)."""
        owners: dict[str, str] = {}
        for f in files:
            agent_id = f.name[len("agent-") : -len(".jsonl")]
            for tool_use_id in self._tool_use_ids(f):
                owners.setdefault(tool_use_id, agent_id)
        return owners

    def _tool_use_ids(self, transcript: Path) -> frozenset[str]:
        """The ids of the tool_use blocks of a subagent transcript, read once per file state (the
        cache persists between runs)."""
        try:
            st = transcript.stat()
        except OSError:
            return frozenset()
        key = file_state_key("claude-code:tool-use-ids:v1", transcript, st)
        hit = cache_get(self.ctx.cache, key)
        if isinstance(hit, list) and all(isinstance(i, str) for i in hit):
            ids = frozenset(hit)
        else:
            found: set[str] = set()
            for rec in records_containing(transcript, b'"tool_use"'):
                message = rec.get("message")
                content = message.get("content") if isinstance(message, dict) else None
                if isinstance(content, list):
                    found.update(b["id"] for b in content if isinstance(b, dict) and b.get("type") == "tool_use"
                                 and isinstance(b.get("id"), str))
            ids = frozenset(found)
            cache_put(self.ctx.cache, key, sorted(ids), limit=_TOOL_USE_IDS_CACHE_LIMIT)
        return ids

    def _attach_continuations(self, sessions: list[DiscoveredSession]) -> None:
        by_id = {s.session_id: s for s in sessions if s.kind != "subagent"}
        for s in sessions:
            if s.kind == "subagent" or not s.sources or s.sources[0].role != "transcript":
                continue
            try:
                edges, bad = self._cached_continuations(s.sources[0].source)
            except OSError as e:
                s.warnings.append(f"{s.sources[0].source.name}: unreadable while looking for continued-in ({e.strerror})")
                continue
            if bad:
                s.warnings.append(unparseable_warning(s.sources[0].source.name, bad))
            for successor, ts in edges:
                target = by_id.get(successor)
                if target is None:
                    s.warnings.append(f"continued in session {successor}, which is not on this machine")
                    continue
                edge = LineageEdge(relation="continuation", parent=s.key, at=ts)
                if edge not in target.parents:
                    target.parents.append(edge)

    def _cached_continuations(self, transcript: Path) -> tuple[list[tuple[str, str | None]], list[int]]:
        """(continued-in edges, unparseable lines): continued-in records can sit anywhere in a
        transcript and so can lines that are not JSON, so finding them reads the whole file:
        do it once per file state, not on every run."""
        st = self._stats.get(str(transcript)) or transcript.stat()
        key = file_state_key("claude-code:continued-in:v2", transcript, st)
        hit = cache_get(self.ctx.cache, key)
        if (isinstance(hit, dict) and isinstance(hit.get("edges"), list) and isinstance(hit.get("bad"), list)
                and all(isinstance(e, list) and len(e) == 2 for e in hit["edges"])):
            return [(str(a), b) for a, b in hit["edges"]], [int(n) for n in hit["bad"]]
        edges = self.continuation_edges(transcript)
        bad = unparseable_lines(transcript)
        cache_put(self.ctx.cache, key, {"edges": edges, "bad": bad})
        return edges, bad

    def continuation_edges(self, transcript: Path) -> list[tuple[str, str | None]]:
        """(successor session id, timestamp) for each continued-in record of a transcript."""
        out = []
        for rec in records_containing(transcript, b'"continued-in"'):
            if rec.get("type") == "continued-in" and rec.get("continuedInSessionId"):
                out.append((str(rec["continuedInSessionId"]), rec.get("timestamp")))
        return out

    def redacted_relpath(
        self,
        src: SourceArtifact,
        session: DiscoveredSession,
        redact_relpath: Callable[[str], str],
        redact_text: Callable[[str], str],
        pseudonym: Callable[[str, str], str] | None = None,
    ) -> str:
        """The project key is derived from the cwd: rebuild it from the redacted cwd, so a user
        name the path rules cannot see in a key (`zq.canary` became `zq-canary`, `/export/home`)
        is gone and the key matches the cwd inside. A key that is not the cwd's plain encoding
        (a truncated long key, a CLAUDE_CODE_PROJECT_DIR_NAME override) goes through the rules.

        The cwd the key encodes is the project's, not always the session's own first cwd: a
        subagent started after a `cd` or in a worktree (meta.json worktreePath) has a cwd below
        the project's, and host files (memory/, sessions-index.json) and a session folder without
        its transcript have none. Those use the ancestor of their cwd that encodes to the key, else
        the cwd of a session found in that project folder, so every file of a project is restored
        into the one folder Claude Code reads, whatever the rules make of the raw key. A key whose
        cwd no file records and that holds an address's slug is archived under a keyed name
        (common.keyed_folder)."""
        prefix = f"{self.native_root}/projects/"
        cwd = session.cwd
        if src.path.startswith(prefix):
            folder = src.path[len(prefix):].partition("/")[0]
            cwd = _folder_cwd(folder, session.cwd) or self._project_cwds.get(folder) or cwd
        return cwd_folder_relpath(src.path, prefix, cwd, project_key, redact_relpath, redact_text, pseudonym)

    def _host_session(self) -> DiscoveredSession | None:
        host = DiscoveredSession(harness=NAME, session_id="@host", kind="host", title="Claude Code host files")
        hist = self.root / "history.jsonl"
        if hist.is_file():
            host.sources.append(self._src(hist, "history", "jsonl", "append"))
        paste = self.root / "paste-cache"
        if paste.is_dir():
            for f in sorted(regular_files(paste)):
                host.sources.append(self._src(f, "blob"))
        host.sources.extend(self._project_files)
        return host if host.sources else None


def _merge_moved_pieces(found: list[DiscoveredSession]) -> list[DiscoveredSession]:
    """A session's files left in another project folder go with its transcript. /cd relocates the
    transcript into the new cwd's project folder (seed record `relocated` {relocatedCwd}: "the
    session transcript was relocated to another cwd/project directory"); its session folder
    (tool-results/, subagents/, remote-agents/) and sibling files written before stay in the old
    one, where they read as a session without its transcript under the same id. Session ids are
    uuids, so those pieces are that session's: one session, not a second one that sync would
    rename. Several transcripts of one id (a copied project) stay apart, as before."""
    groups: dict[str, list[DiscoveredSession]] = {}
    for s in found:
        if s.kind != "subagent":
            groups.setdefault(s.session_id, []).append(s)
    drop: set[int] = set()
    for group in groups.values():
        if len(group) < 2:
            continue
        owners = [s for s in group if s.sources and s.sources[0].role == "transcript"]
        if len(owners) != 1:
            continue
        owner = owners[0]
        for piece in group:
            if piece is owner:
                continue
            drop.add(id(piece))
            owner.sources.extend(piece.sources)
            owner.warnings.extend(w for w in piece.warnings if "without its transcript" not in w)
            if piece.updated_at and (owner.updated_at is None or piece.updated_at > owner.updated_at):
                owner.updated_at = piece.updated_at
    return [s for s in found if id(s) not in drop]


_KEY_CHAR = re.compile(r"[^A-Za-z0-9]")
_INDEX_RELINK_MAX = 64 << 20  # a legacy sessions-index.json is relinked in memory up to this size
# a fullPath key and its JSON string value, in raw bytes (an escaped quote is inside a string)
_FULL_PATH_RE = re.compile(rb'(?<!\\)("fullPath"\s*:\s*)"((?:[^"\\]|\\.)*)"')


def _index_transcript(value: str, prefix: str, own: str, restored: set[str]) -> str | None:
    """The restored path (relative to the root) a sessions-index.json fullPath names: the
    `<folder>/<rest>` after its last `/projects/` under `prefix` when this restore put a file
    there, else `<rest>` in the index's own restored folder `own` (its project's), restored or
    not. None for a value that is not such a path (no `/projects/<folder>/`, odd components)."""
    if not value.startswith("/") or "/projects/" not in value or "\0" in value or "\\" in value:
        return None
    folder, _, rest = value.rsplit("/projects/", 1)[1].partition("/")
    names = [folder, *rest.split("/")]
    if not rest or any(n in ("", ".", "..") for n in names):
        return None
    named = f"{prefix}{folder}/{rest}"
    return named if named in restored else f"{own}/{rest}"


# toolUseResult fields naming a file by absolute path: the tool-results/ file a large result was
# moved to (seed sidecar references) and an Agent call's outputFile (seed subagents: a temp file,
# unless it names a file of the projects/ layout, which the archive may hold)
_PERSISTED_RE = string_field("persistedOutputPath")
_OUTPUT_FILE_RE = string_field("outputFile")
_PERSISTED_TAG = b"<persisted-output>"
# a tool result's <persisted-output> preview (a JSON string that starts with the tag) and the path of
# its "Full output saved to: <path>" line (group 1): raw up to the line's end (an escaped newline),
# the closing tag or the string's end, with no escape inside (a path spelled with one is left as archived)
_PREVIEW_RE = re.compile(rb'(?<!\\)"<persisted-output>(?:[^"\\]|\\.){0,1024}?Full output saved to: '
                         rb'([^"\\]+?)(?=\\n|"|</persisted-output>)')


def _relink_transcript(path: str, plain: Path, root: Path, moved: dict[str, str], prefix: str) -> str | None:
    """A restored transcript's absolute paths to files of this restore under projects/, named where
    it put them (root/<restored path>), every other byte as archived, streamed line by line:
    each toolUseResult.persistedOutputPath (the `<session-id>/tool-results/<id>.txt` file), the
    path a `<persisted-output>` preview gives after "Full output saved to: ", and an outputFile
    that names a file of the layout (a subagent transcript). A file is found by its path after
    `projects/<folder>/` (the folder may differ: a relocated restore renames it), in that folder
    when several have it. A persistedOutputPath or preview path naming no file of this restore
    is left as archived and reported; so is an outputFile into a projects/ folder, but not one
    naming a temp file (Claude Code's tasks/<id>.output), which no archive holds."""
    by_rest: dict[str, list[tuple[str, str]]] | None = None
    persisted, preview, output_file = ("toolUseResult.persistedOutputPath value(s)",
                                       "<persisted-output> preview path(s)", "outputFile value(s) into a projects/ folder")
    left = dict.fromkeys((persisted, preview, output_file), 0)  # what names no file of the restore, by kind

    def target(value: str | None) -> tuple[str | None, bool]:
        """(the absolute restored path `value` names, whether it names a file of the layout)."""
        nonlocal by_rest
        if value is None or not value.startswith("/") or "\0" in value or "\\" in value \
                or "/projects/" not in value:
            return None, False
        folder, _, rest = value.rsplit("/projects/", 1)[1].partition("/")
        if not rest or any(n in ("", ".", "..") for n in (folder, *rest.split("/"))):
            return None, False
        to = moved.get(f"{prefix}{folder}/{rest}")
        if to is None:
            if by_rest is None:
                by_rest = _files_by_rest(prefix, moved)
            found = by_rest.get(rest, [])
            same = {t for f, t in found if folder in (f, t[len(prefix):].split("/", 1)[0])}
            pick = same or {t for _f, t in found}
            to = next(iter(pick)) if len(pick) == 1 else None
        return (restored_path(root, to) if to is not None else None), True

    def field(kind: str) -> Callable[[re.Match[bytes]], bytes]:
        def swap(m: re.Match[bytes]) -> bytes:
            value = json_string(m.group(2))
            new, layout = target(value)
            if new is None:
                if kind == persisted or layout:
                    left[kind] += 1
                return m.group(0)
            return m.group(1) + orjson.dumps(new) if new != value else m.group(0)
        return swap

    def in_preview(m: re.Match[bytes]) -> bytes:
        try:
            value: str | None = m.group(1).decode()
        except UnicodeDecodeError:
            value = None
        new, _layout = target(value)
        if new is None:
            left[preview] += 1
            return m.group(0)
        return m.group(0)[: m.start(1) - m.start()] + orjson.dumps(new)[1:-1]

    swaps = ((b'"persistedOutputPath"', _PERSISTED_RE, field(persisted)),
             (b'"outputFile"', _OUTPUT_FILE_RE, field(output_file)))

    def rewrite(line: bytes) -> bytes:
        for needle, rx, swap in swaps:
            if needle in line:
                line = rx.sub(swap, line)
        return _PREVIEW_RE.sub(in_preview, line) if _PERSISTED_TAG in line else line

    rewrite_lines(plain, (b'"persistedOutputPath"', b'"outputFile"', _PERSISTED_TAG), rewrite)
    counts = [f"{n} {what}" for what, n in left.items() if n]
    return f"{path}: {', '.join(counts)} name no file of this restore; left as archived" if counts else None


def _files_by_rest(prefix: str, moved: dict[str, str]) -> dict[str, list[tuple[str, str]]]:
    """The path after `projects/<folder>/` of each archived file of the restore under `prefix`
    -> [(that folder, its restored path)]."""
    out: dict[str, list[tuple[str, str]]] = {}
    for archived, to in moved.items():
        if archived.startswith(prefix):
            folder, _, rest = archived[len(prefix):].partition("/")
            if rest:
                out.setdefault(rest, []).append((folder, to))
    return out


CLEANUP_PERIOD_DAYS = 30  # Claude Code's default transcript retention (DESIGN.md: "prunes after 30 days")


def _cleanup_period_days(settings: Path) -> int | None:
    """The retention Claude Code applies under a home: `cleanupPeriodDays` of its settings.json
    when that is a positive number, the default when the file or key is absent or unreadable, and
    None (no warning) when it is 0 or less, which builds read differently (some keep every
    transcript, some write none), or beyond a century."""
    try:
        value = orjson.loads(settings.read_bytes()).get("cleanupPeriodDays", CLEANUP_PERIOD_DAYS)
    except (OSError, orjson.JSONDecodeError, AttributeError):
        return CLEANUP_PERIOD_DAYS
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return CLEANUP_PERIOD_DAYS
    if value <= 0 or value > 100 * 365:
        return None
    return int(value)


def project_key(cwd: str) -> str:
    """projects/<key>: the absolute cwd with every non-alphanumeric character replaced by '-'.
    Claude Code does it with a JavaScript regex (`/[^a-zA-Z0-9]/g`), which sees UTF-16 code
    units: a character outside the BMP (an emoji) is two units, so two dashes. A key longer than
    200 characters is cut there and given `-` and a hash of the cwd (seed layout: "long names
    truncated + hash"): Claude Code's djb2 in base 36 (its Bun builds use another hash, and find a
    long project's folder by the `<200 characters>-` prefix), so the name stays under the 255
    bytes a filesystem allows and Claude Code finds the folder."""
    key = _KEY_CHAR.sub(_key_dashes, cwd)
    if len(key) <= _KEY_MAX:
        return key
    return f"{key[:_KEY_MAX]}-{_base36(abs(_djb2(cwd)))}"


_KEY_MAX = 200


def _djb2(text: str) -> int:
    """Claude Code's djb2Hash: `hash = ((hash << 5) - hash + charCodeAt(i)) | 0` from 0, over
    UTF-16 code units, as a signed 32-bit integer."""
    units = text.encode("utf-16-le", "surrogatepass")
    h = 0
    for i in range(0, len(units), 2):
        h = ((h << 5) - h + (units[i] | units[i + 1] << 8)) & 0xFFFFFFFF
    return h - (1 << 32) if h & 0x80000000 else h


def _base36(n: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        n, r = divmod(n, 36)
        out = digits[r] + out
        if not n:
            return out


def _key_dashes(m: re.Match[str]) -> str:
    return "--" if ord(m.group()) > 0xFFFF else "-"


def _folder_cwd(folder: str, cwd: str | None) -> str | None:
    """`cwd` or the nearest of its ancestors whose project key is `folder` (None: no such)."""
    if not cwd:
        return None
    candidate = cwd
    while candidate:
        if project_key(candidate) == folder:
            return candidate
        cut = max(candidate.rfind("/"), candidate.rfind("\\"))
        if cut <= 0:
            return None
        candidate = candidate[:cut]
    return None


def _json_problem(path: Path, limit: int = 4 * 1024 * 1024) -> str | None:
    """Why _read_json gave nothing for a file that is there (None: there is no such file)."""
    try:
        data = read_regular(path, limit)
    except FileNotFoundError:
        return None
    except OSError as e:  # a symlink, a FIFO, a folder named like the file: refused, not followed
        return f"unreadable ({read_problem(e)})"
    if data is None:
        return f"not read (over {limit} bytes)"
    if not data.strip():
        return "empty"
    try:
        doc = orjson.loads(data)
    except orjson.JSONDecodeError as e:
        return f"not valid JSON ({e}; cut short while being written?)"
    return None if isinstance(doc, dict) else "not a JSON object"


def _read_json(path: Path, limit: int = 4 * 1024 * 1024) -> dict[str, Any] | None:
    try:
        raw = read_regular(path, limit)
        data = orjson.loads(raw) if raw is not None else None
        return data if isinstance(data, dict) else None
    except (OSError, orjson.JSONDecodeError):
        return None


def _names_by_agent(folder: Path, agents: set[str]) -> dict[str, list[str]]:
    """The folder's file names (sorted) per subagent: `agent-<id>.<rest>` belongs to the
    longest id of `agents` it starts with (so agent-a.b.jsonl is agent a.b's, not a's). One
    listing for all the folder's subagents, not a pass over it per subagent (folders with
    thousands exist)."""
    out: dict[str, list[str]] = {}
    for name in sorted(os.listdir(folder)):
        if not name.startswith("agent-"):
            continue
        owner = None
        dot = name.find(".", len("agent-"))
        while dot != -1:
            if name[len("agent-"):dot] in agents:
                owner = name[len("agent-"):dot]
            dot = name.find(".", dot + 1)
        if owner is not None:
            out.setdefault(owner, []).append(name)
    return out


def unparseable_lines(transcript: Path) -> list[int]:
    """Numbers of the complete lines that are not JSON objects by their shape (a torn write, text
    that is no record), kept as they are and reported as Codex's and pi's are; a final line
    without its newline is a torn or still-written tail (seed gotcha: tolerate an unparsable
    final line), not counted. Shape only: parsing a 1 GB transcript at discovery, in the parent
    and again after every append, cost seconds and the parent's memory; a line of the right shape
    that still fails to parse is counted by the redaction pass (`jsonl-unparsable-line`)."""
    bad: list[int] = []
    with open_file(transcript) as f:
        for line in scan_lines(f, MAX_PROBE_LINE - 1):
            if not line.terminated:
                break
            if not looks_like_json(line):
                bad.append(line.no)
    return bad


def _subagent_head(f: Path) -> dict[str, Any]:
    """created_at, cwd and the fork-context-ref record (parentSessionId, parentLastUuid) of a
    subagent transcript's first records."""
    facts: dict[str, Any] = {"created_at": None, "cwd": None, "ref": None}
    for rec in head_records(f, max_records=5):
        if facts["created_at"] is None and isinstance(rec.get("timestamp"), str):
            facts["created_at"] = rec["timestamp"]
        if facts["cwd"] is None and isinstance(rec.get("cwd"), str):
            facts["cwd"] = rec["cwd"]
        if facts["ref"] is None and rec.get("type") == "fork-context-ref":
            facts["ref"] = {k: rec.get(k) for k in ("parentSessionId", "parentLastUuid")}
    return facts


_FORKED_FROM = b'"forkedFrom"'
# forkedFrom's messageUuid inside a line too long to parse
_FORKED_FROM_UUID = re.compile(rb'"forkedFrom"\s*:\s*\{[^{}]*?"messageUuid"\s*:\s*"([^"\\]+)"')
_CONVERSATION = frozenset(("user", "assistant", "system", "attachment", "progress"))


def _is_conversation(rec: dict[str, Any]) -> bool:
    kind = rec.get("type")  # any JSON value in a broken file: a list or object is not hashable
    return isinstance(kind, str) and kind in _CONVERSATION


def fork_point(transcript: Path, source: str) -> str | None:
    """The message of `source` a /branch copy was taken at: each copied record carries
    forkedFrom {sessionId, messageUuid} with its *own* uuid in the source (the first one names
    the source's root), so it is the messageUuid of the last record of the copied run, which
    starts the file (after an optional history-suppression line) and ends at the first
    conversation record of the fork's own."""
    point: str | None = None
    with open_file(transcript) as f:
        for line in scan_lines(f, MAX_PROBE_LINE - 1, needle=_FORKED_FROM_UUID):
            if not line.terminated:
                break
            if line.data is None:  # too long to parse (an image): its forkedFrom by pattern
                if len(line.found) == 1:
                    point = next(iter(line.found)).decode("utf-8", "replace")
                elif point is not None and not line.found:
                    break
                continue
            if point is None and _FORKED_FROM not in line.data:
                continue  # before the copied run (history-suppression): not parsed
            rec = parse_line(line)[1]
            if not isinstance(rec, dict):
                continue
            forked = rec.get("forkedFrom")
            if isinstance(forked, dict) and str(forked.get("sessionId")) == source:
                uuid = forked.get("messageUuid")
                point = uuid if isinstance(uuid, str) else point
            elif point is not None and _is_conversation(rec):
                break
    return point


def _first_conversation(transcript: Path) -> dict[str, Any] | None:
    """The first conversation record (user/assistant/system/attachment/progress) of a
    transcript, past any number of metadata records (lines too long to parse are passed)."""
    with open_file(transcript) as f:
        for line in scan_lines(f, MAX_PROBE_LINE - 1):
            if not line.terminated:
                return None
            if line.data is None:
                continue
            rec = parse_line(line)[1]
            if isinstance(rec, dict) and _is_conversation(rec):
                return rec
    return None


def _todo_files(d: Path, only: str | None = None) -> dict[str, list[str]]:
    """todos/<session id>-agent-<agent id>.json by session id (`only`: that session's alone),
    regular files only, sorted by name."""
    found: dict[str, list[str]] = {}
    try:
        with os.scandir(d) as entries:
            for e in entries:
                sid, sep, rest = e.name.partition("-agent-")
                if not sep or not rest.endswith(".json") or (only is not None and sid != only):
                    continue
                if e.is_file(follow_symlinks=False):
                    found.setdefault(sid, []).append(e.name)
    except OSError:
        return {}
    return {sid: sorted(names) for sid, names in found.items()}


def _is_uuid(name: str) -> bool:
    return _UUID.fullmatch(name) is not None


def _dir_names(d: Path) -> set[str]:
    """Names of the folders (symlinks to folders included, as Path.is_dir) directly in d."""
    try:
        with os.scandir(d) as entries:
            return {e.name for e in entries if e.is_dir()}
    except OSError:
        return set()


def _looks_like_session_id(name: str) -> bool:
    return len(name) >= 8 and all(c.isalnum() or c == "-" for c in name) and name != "memory"


HARNESS = ClaudeCode
