"""DeepSeek harness: configured root (default ~/.deepseek/sessions), per the persistence catalog
(seeds/003_37255de69aaa2bf4.txt).

The catalog fixes the file format, not the layout: every `*.jsonl` below the root is a session;
its first line is a header `{type: "session", version, id, createdAt (ms), cwd?, isSeeded, origin?,
parentSession?, delegationDepth, agentPreset?}`. Each is archived at its path relative
to the root under `.deepseek/sessions/`. Events `{type, seq, time, data, ignorable?,
surfaceOp?, sourceEventSeqs?}` are immutable and appended -> mode `append`. The whole file
is archived untouched: an event type not in the catalog is kept (and reported), never dropped.
A `*.jsonl` whose first line is no header (a session whose header was lost, or a file of the
harness the catalog does not describe) is archived too, as a session named by its file name,
with a warning: nothing below the root is left out because it does not parse.

Lineage
- subagent: header `origin: "subagent"` + `parentSession` -> edge `subagent` to that parent.
  When the header names no parentSession (it is optional), the parent is the session whose own
  events name this one: as `data.childId` of a `subagent/catalog` or `tool-workflow/agent-start`
  record, as a teammate (below), or as `senderSessionId` of a subagent-settled notice (a
  UserMessage `source` {kind: "subagent-settled"}, in a `user/message` or in
  `agent/inbox/spliced` data.inserted[]: what a child delivers to its parent when it settles; an
  `agent-message` relay is not used: its sender may be either side). A fork's inherited copies
  of such records do not count; a session so named is a subagent even without `origin`, and so
  is one whose own events hold a `subagent/descriptor` (appended "inside the child's initial
  turn"; an inherited one leaves a fork a fork). The catalog names no on-disk layout, so no
  parent is read from paths.
  `at` = "seq=<n>", the seq of the parent's first own record that names the child where it
  starts (catalog entry, workflow agent-start, team/member); a settled notice marks where the
  child ended, so a child named only by one, or by nothing in its parent, has no `at`. The
  header's delegationDepth is not a position in the parent, and the edge has no field for it:
  it stays readable in the archived header.
- agent team: "stored only in the Team Lead Session", `team/member` {version: 2, teamId,
  member: TeamMemberSnapshot {id, name, description, context: "fork" | "fresh", phase,
  provider, error?}}. The catalog types member.id as a string; messages are addressed to
  members by `targetId: SessionId` (team/message/delivered: "the target Session recorded the
  message"), so member.id is read as the teammate's session id. The lead's own team/member
  records name its teammates: context "fresh" is a delegated agent started without the lead's
  history -> `subagent` (so is a context outside the catalog's two values); context "fork"
  starts from the lead's history -> `fork` (kind fork),
  never inferred, `at` = its own inherited cut "seq=<marker seq>" when it has one, else the
  team/member record's seq. A header `origin: "subagent"` still makes it a subagent. Neither
  team message records (their sender or target may be the lead or a peer, and the catalog does
  not say which log keeps them) nor a teammate's `team-message` sources (senderId is any
  member) name a parent, so a teammate whose lead is not on this machine has no edge.
- fork: a `session/end-seed` event with `data.inherited: true`; the last such marker is the
  session's cut and `at` = "seq=<marker seq>". The parent is header.parentSession when present
  (not a subagent); otherwise it is inferred (inferred=True) from the inherited prefix: the
  session whose first N events equal the N events before the cut and whose own cut lies
  before N (so siblings that merely inherited the same prefix are not taken for the parent).
  The prefix also names the parent: its `session-log-deepseek/delivery-accepted` records keep
  the id of the session that made them ("inherited fork markers retain the parent's id"), and
  the ones after the prefix's own last inherited marker (an ancestor's cut) are the parent's
  own. That id picks the parent among several matching sessions, and gives the (inferred)
  edge when no session on this machine matches (the parent's file is gone or elsewhere).
- parentSession may be a session id or a file path; both are resolved to a header id. On restore
  an absolute path names the parent's restored transcript (relink_restored).
Title: the last `session/title` event's data.title.
Created: header.createdAt. The catalog types it only as a number (event `time` is epoch ms), so a
value that reads as seconds, micro- or nanoseconds by its magnitude is scaled to ms (as Cursor's
readers do) for the session's date and for every creation-time order between sessions.
Attachments: events name them by `attachmentId` (ImageAttachmentRef / FileAttachmentRef); the
catalog gives no on-disk location for their bytes, so none is guessed or collected.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, NamedTuple

import orjson

from archiver.harnesses.base import HarnessContext, native_path
from archiver.harnesses.common import (
    SHAPE_ERRORS, LazyByPath, cache_get, cache_put, file_state_key, iso, iso_ms, open_file, regular_files,
    relative_or_absolute, sorted_paths, unexpected_shape,
)
from archiver.harnesses.jsonl_probe import Line, parse_line, scan_lines, unparseable_warning
from archiver.harnesses.relinking import header_parent_path, replace_first_line_value, restored_path
from archiver.model import Artifact, DiscoveredSession, LineageEdge, Session, SourceArtifact, session_key

NAME = "deepseek-harness"
MAX_LINE = 8 * 1024 * 1024
CACHED_EVENTS = 4096  # longer prefix chains are not kept in the discovery cache

# every durable event type the catalog declares (its "Persistence type fingerprints" table)
KNOWN_EVENTS = frozenset(
    """
    agent-preset/selected agent/inbox/spliced approval/asked approval/decided approval/policy
    assistant/attempt assistant/message command/done command/run compaction/end compaction/prune
    compaction/start compaction/summary deliverables/presented feedback/message-delete
    feedback/message-put feedback/record goal/change hook/invoked hook/result image/offload
    llm/retry llm/retry-started model/selection permission/preset plan/mode request/context
    request/header sandbox/mode schedule/change session-log-deepseek/delivery-accepted
    session/end-seed session/title session/title-llm-request step/end step/start
    subagent/catalog subagent/descriptor subagent/model-selection-policy system/message
    team/member team/message/delivered team/message/queued team/task todo/write
    tool-workflow/agent-end tool-workflow/agent-start tool-workflow/run-end tool-workflow/run-start
    tool/call tool/ptc-dispatch tool/ptc-dispatch-start tool/result turn/end turn/start
    user/message web/deepseek-search-llm-request
    """.split()
)


# parent-side records naming a child session where it starts (data.childId): subagent/catalog ("a
# direct child's complete discovery fact") and tool-workflow/agent-start (a workflow member's child Session)
_CHILD_EVENTS = frozenset({"subagent/catalog", "tool-workflow/agent-start"})


# events carrying UserMessages (`user/message` one, `agent/inbox/spliced` data.inserted[]): a message
# whose `source` is a SubagentSettledMessageSource {form: "notice", kind: "subagent-settled",
# senderSessionId} is the notice a child delivers to its parent when it settles
_MESSAGE_EVENTS = frozenset({"user/message", "agent/inbox/spliced"})


class _Named(NamedTuple):
    """One own record of a session naming a child session."""

    child: str
    seq: int | None  # the naming record's seq when it marks where the child starts
    relation: str  # "subagent" or "fork"


class _Naming(NamedTuple):
    """How a session is named by its parent: the parent's id, where it starts, the relation."""

    parent: str
    seq: int | None
    relation: str


def _settled_children(typ: str, data: dict[str, Any]) -> list[str]:
    """The child session ids the subagent-settled notices of one message event name."""
    msgs = [data] if typ == "user/message" else data.get("inserted")
    out = []
    for m in msgs if isinstance(msgs, list) else []:
        src = m.get("source") if isinstance(m, dict) else None
        if isinstance(src, dict) and src.get("kind") == "subagent-settled":
            sender = src.get("senderSessionId")
            if isinstance(sender, str) and sender:
                out.append(sender)
    return out


def _teammate(data: dict[str, Any]) -> tuple[str, str] | None:
    """(teammate session id, relation) of a `team/member` record, or None when it names none."""
    member = data.get("member")
    mid = member.get("id") if isinstance(member, dict) else None
    if not isinstance(mid, str) or not mid:
        return None
    return mid, "fork" if member.get("context") == "fork" else "subagent"


def _seq(rec: dict[str, Any]) -> int | None:
    v = rec.get("seq")
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def _namings(parent: str, named: list[_Named]) -> dict[str, _Naming]:
    """Per child, what one parent's own records say: the first start seq, fork if a team record says so."""
    out: dict[str, _Naming] = {}
    for n in named:
        was = out.get(n.child)
        seq = was.seq if was and was.seq is not None else n.seq
        relation = "fork" if n.relation == "fork" or (was and was.relation == "fork") else "subagent"
        out[n.child] = _Naming(parent, seq, relation)
    return out


def _created_ms(header: dict[str, Any] | None) -> float | None:
    """header.createdAt as epoch ms (seconds, micro- and nanoseconds scaled by magnitude), or None."""
    v = (header or {}).get("createdAt")
    if not isinstance(v, (int, float)) or isinstance(v, bool) or v != v or v <= 0:
        return None
    if v > 1e17:
        return v / 1e6
    if v > 1e14:
        return v / 1e3
    if v < 1e11:
        return v * 1e3
    return float(v)


def _event_digest(line: Line, rec: Any) -> bytes:
    """Identity of one event for prefix comparison: canonical JSON when parsed, else raw bytes."""
    if isinstance(rec, dict):
        return hashlib.blake2b(orjson.dumps(rec, option=orjson.OPT_SORT_KEYS), digest_size=16).digest()
    return line.digest


@dataclass
class _Scanned:
    file: Path
    header: dict[str, Any] | None
    warnings: list[str] = field(default_factory=list)
    title: str | None = None
    chain: list[bytes] = field(default_factory=list)  # cumulative prefix digest after each event
    cut: int | None = None  # index (0-based, among events) of the last inherited end-seed marker
    cut_seq: Any = None
    unknown: dict[str, list[int]] = field(default_factory=dict)  # type -> [count, required count]
    children: list[_Named] = field(default_factory=list)  # what its own (not inherited) events name
    delivered_by: str | None = None  # the parent's id, from the inherited prefix's delivery records
    descriptor: bool = False  # its own (not inherited) events hold a subagent/descriptor
    st: os.stat_result | None = None  # as stat'ed before it was read

    @property
    def session_id(self) -> str:
        hid = (self.header or {}).get("id")
        return str(hid) if isinstance(hid, (str, int)) and str(hid) else self.file.name.removesuffix(".jsonl")


class _PrefixIndex:
    """The sessions whose event chain holds a digest, for the digests that end an inherited
    prefix (each fork's chain[cut - 1]): built on the first lookup, in one pass over the chains,
    so inferring every fork's parent costs the events read, not forks x sessions."""

    def __init__(self, scanned: list[_Scanned]) -> None:
        self._scanned = scanned
        self._holders: dict[bytes, list[_Scanned]] | None = None

    def holding(self, digest: bytes) -> list[_Scanned]:
        """The sessions with `digest` somewhere in their chain, in discovery order."""
        if self._holders is None:
            self._holders = self._build()
        return self._holders.get(digest, [])

    def _build(self) -> dict[bytes, list[_Scanned]]:
        wanted = {sc.chain[sc.cut - 1] for sc in self._scanned if sc.cut and len(sc.chain) >= sc.cut}
        holders: dict[bytes, list[_Scanned]] = {}
        for sc in self._scanned:
            for d in wanted.intersection(sc.chain):  # a set operation: no Python loop per event
                holders.setdefault(d, []).append(sc)
        return holders


class DeepSeekHarness:
    name = NAME
    native_root = ".deepseek/sessions"

    @classmethod
    def relink_restored(cls, artifact: Artifact, plain: Path, root: Path, moved: dict[str, str], *,
                        session: Session | None = None, relocated: bool = True) -> str | None:
        """Every restore (relocated or not): a header `parentSession` given as an absolute path (the
        parent's file on the archived host, under a sessions root the archive does not record)
        names the parent where this restore put it (root/<its restored path>) when the restore
        holds it: the transcript archived at `.deepseek/sessions/<rel>` for the `<rel>` after the
        value's last `/.deepseek/sessions/` (the default root), else the one whose `<rel>` is the
        longest tail of the value. Only that string of the first line changes. A parentSession
        that is a session id or a relative path (read against the sessions root, which a restore
        keeps) is left alone; an absolute one naming no file of this restore is left as archived
        and reported."""
        prefix = f"{cls.native_root}/"
        if artifact.role != "transcript" or artifact.format != "jsonl" or not artifact.path.startswith(prefix):
            return None
        found = header_parent_path(plain, MAX_LINE)
        if found is None:
            return None
        first, _header, parent = found
        to = _restored_parent(parent, artifact.path, prefix, moved)
        new = restored_path(root, to) if to is not None else None
        if new is None:
            return (f"header.parentSession of {artifact.path} is left as archived: its parent file is not in this "
                    "restore")
        if new != parent and not replace_first_line_value(plain, first, "parentSession", parent, new):
            return (f"header.parentSession of {artifact.path} is left as archived: its header line does not hold "
                    "that value once as a plain string field")
        return None

    def __init__(self, ctx: HarnessContext) -> None:
        self.ctx = ctx

    @property
    def root(self) -> Path:
        if self.ctx.root:
            value = str(self.ctx.root)
            return self.ctx.home / value[2:] if value.startswith("~/") else Path(value)
        return self.ctx.home / ".deepseek" / "sessions"

    # ---- discovery ----

    def discover(self) -> Iterator[DiscoveredSession]:
        root = self.root
        if not root.is_dir():
            return
        scanned: list[_Scanned] = []
        problems: list[str] = []  # unlistable folders and symbolic links, never followed
        errors: list[str] = []  # the unlistable folders: they hide sessions
        for f in sorted_paths(regular_files(root, problems, errors=errors)):
            if f.name.endswith(".jsonl"):
                try:
                    scanned.append(self._scan(f, root))
                except SHAPE_ERRORS as e:  # one odd file never stops the others: archived as it is
                    sc = _Scanned(file=f, header=None)
                    sc.warnings.append(unexpected_shape(self._rel(f), e))
                    scanned.append(sc)
        by_id: dict[str, _Scanned] = {}
        by_path = LazyByPath(scanned)  # resolved only when a parentSession path needs it
        by_stem: dict[str, _Scanned] = {}
        for sc in scanned:
            if sc.session_id in by_id:
                sc.warnings.append(
                    f"{self._rel(sc.file)}: header id {sc.session_id} also used by {self._rel(by_id[sc.session_id].file)}; "
                    "archived under its file name"
                )
                sc.header = dict(sc.header or {}, id=f"{sc.session_id}~{sc.file.name.removesuffix('.jsonl')}")
            by_id[sc.session_id] = sc
            by_stem.setdefault(sc.file.name.removesuffix(".jsonl"), sc)
        child_of: dict[str, _Naming] = {}

        def created(sc: _Scanned) -> float:
            v = _created_ms(sc.header)
            return v if v is not None else float("inf")

        # a seeded copy without an inherited marker repeats its source's records: the oldest wins
        for sc in sorted(scanned, key=lambda sc: (created(sc), sc.session_id)):
            for child, naming in _namings(sc.session_id, sc.children).items():
                child_of.setdefault(child, naming)
        prefixes = _PrefixIndex(scanned)
        for sc in scanned:
            try:
                yield self._session(sc, prefixes, by_id, by_path, by_stem, child_of)
            except Exception as e:  # one odd header never stops the other sessions
                yield DiscoveredSession(
                    harness=NAME, session_id=sc.session_id, sources=[self._transcript(sc.file)],
                    warnings=[*sc.warnings, f"{self._rel(sc.file)}: lineage not read ({type(e).__name__}: {e})"])
        if problems:
            yield DiscoveredSession(harness=NAME, session_id="@host", kind="host", title="DeepSeek harness host files",
                                    warnings=problems, errors=errors)

    def _transcript(self, f: Path) -> SourceArtifact:
        return SourceArtifact(source=f, path=native_path(self.native_root, self.root, f), role="transcript",
                              format="jsonl", mode="append")

    def _rel(self, f: Path) -> str:
        return relative_or_absolute(f, self.root)

    def _scan(self, f: Path, root: Path | None = None) -> _Scanned:
        """A file's header, title, prefix chain, fork cut and warnings, read once per file
        state (a chain of more than CACHED_EVENTS events is not kept: read again each run)."""
        try:
            st = f.stat()
        except OSError:
            return self.scan_file(f)
        # "scan3": scans cached before children kept the naming record's seq and relation (and
        # before team/member records named teammates) are read again
        key = file_state_key(f"deepseek-harness:scan3:{root or self.root}", f, st)
        d = cache_get(self.ctx.cache, key)
        if isinstance(d, dict) and "descriptor" in d:
            try:
                return _Scanned(file=f, header=d["header"], warnings=d["warnings"], title=d["title"],
                                chain=[bytes.fromhex(c) for c in d["chain"]], cut=d["cut"], cut_seq=d["cut_seq"],
                                unknown=d["unknown"], children=[_Named(*c) for c in d["children"]],
                                delivered_by=d["delivered_by"], descriptor=d["descriptor"] is True, st=st)
            except (KeyError, TypeError, ValueError):
                pass
        sc = self.scan_file(f)
        sc.st = st
        if len(sc.chain) <= CACHED_EVENTS and not any("unreadable" in w for w in sc.warnings):
            cache_put(self.ctx.cache, key, {
                "header": sc.header, "warnings": sc.warnings, "title": sc.title,
                "chain": [c.hex() for c in sc.chain], "cut": sc.cut, "cut_seq": sc.cut_seq,
                "unknown": sc.unknown, "children": sc.children, "delivered_by": sc.delivered_by,
                "descriptor": sc.descriptor})
        return sc

    def scan_file(self, f: Path) -> _Scanned:
        sc = _Scanned(file=f, header=None)
        bad: list[int] = []
        named: list[tuple[int, _Named]] = []  # (event index, what it names)
        marks: list[int] = []  # event indexes of the inherited end-seed markers
        descriptors: list[int] = []  # event indexes of subagent/descriptor records
        delivered: list[tuple[int, str]] = []  # (event index, sessionId of a delivery-accepted record)
        running = hashlib.blake2b(digest_size=16)
        try:
            with open_file(f) as stream:
                for line in scan_lines(stream, MAX_LINE, digest=True):
                    if not line.terminated:
                        break  # a torn final line is the writer's
                    ok, rec = parse_line(line)
                    if line.no == 1:
                        if isinstance(rec, dict) and rec.get("type") == "session":
                            sc.header = rec
                            continue
                        sc.warnings.append(f"{self._rel(f)}: first line is not a session header; id taken from the file name")
                    if not ok:
                        bad.append(line.no)
                    elif line.data is not None and not line.data.strip():
                        continue
                    running.update(_event_digest(line, rec))
                    sc.chain.append(running.copy().digest())
                    if not isinstance(rec, dict):
                        continue
                    typ = rec.get("type")
                    data = rec.get("data") if isinstance(rec.get("data"), dict) else {}
                    if typ == "session/title" and isinstance(data.get("title"), str):
                        sc.title = data["title"]
                    elif typ == "session/end-seed" and data.get("inherited") is True:
                        sc.cut, sc.cut_seq = len(sc.chain) - 1, rec.get("seq")
                        marks.append(sc.cut)
                    elif typ == "subagent/descriptor":
                        descriptors.append(len(sc.chain) - 1)
                    elif typ == "session-log-deepseek/delivery-accepted":
                        if isinstance(data.get("sessionId"), str) and data["sessionId"]:
                            delivered.append((len(sc.chain) - 1, data["sessionId"]))
                    elif not isinstance(typ, str):  # (a list or object is not hashable)
                        continue
                    elif typ in _CHILD_EVENTS and isinstance(data.get("childId"), str) and data["childId"]:
                        named.append((len(sc.chain) - 1, _Named(data["childId"], _seq(rec), "subagent")))
                    elif typ == "team/member" and (mate := _teammate(data)):
                        named.append((len(sc.chain) - 1, _Named(mate[0], _seq(rec), mate[1])))
                    elif typ in _MESSAGE_EVENTS:  # a settled notice says where the child ended: no seq
                        named.extend((len(sc.chain) - 1, _Named(c, None, "subagent")) for c in _settled_children(typ, data))
                    elif isinstance(typ, str) and typ not in KNOWN_EVENTS:
                        counts = sc.unknown.setdefault(typ, [0, 0])
                        counts[0] += 1
                        counts[1] += rec.get("ignorable") is not True
        except OSError as e:
            sc.warnings.append(f"{self._rel(f)}: unreadable ({e.strerror or e})")
        # a fork's inherited prefix repeats its parent's records: only its own events name its children
        sc.children = [c for i, c in named if sc.cut is None or i > sc.cut]
        sc.descriptor = any(sc.cut is None or i > sc.cut for i in descriptors)
        if sc.cut is not None:  # the parent's own records: after the prefix's last ancestor cut, before ours
            since = max((m for m in marks if m < sc.cut), default=-1)
            own = str((sc.header or {}).get("id") or "")
            by = [sid for i, sid in delivered if since < i < sc.cut and sid != own]
            sc.delivered_by = by[-1] if by else None
        if bad:
            sc.warnings.append(unparseable_warning(self._rel(f), bad))
        if sc.unknown:
            desc = ", ".join(
                f"{t} x{n}" + (f" ({req} without ignorable)" if req else "") for t, (n, req) in sorted(sc.unknown.items())
            )
            sc.warnings.append(f"{self._rel(f)}: event types not in the catalog kept untouched: {desc}")
        return sc

    def _session(
        self,
        sc: _Scanned,
        prefixes: _PrefixIndex,
        by_id: dict[str, _Scanned],
        by_path: LazyByPath[_Scanned],
        by_stem: dict[str, _Scanned],
        child_of: dict[str, _Naming] | None = None,
    ) -> DiscoveredSession:
        header = sc.header or {}
        naming = (child_of or {}).get(sc.session_id)
        if naming and naming.parent == sc.session_id:
            naming = None
        named_by = naming.parent if naming else None
        named_fork = naming is not None and naming.relation == "fork"

        def named_at(parent: str) -> str | None:
            """seq=<n> of the record in `parent` that names this session where it starts."""
            return f"seq={naming.seq}" if naming and naming.parent == parent and naming.seq is not None else None

        s = DiscoveredSession(harness=NAME, session_id=sc.session_id, warnings=list(sc.warnings), title=sc.title)
        s.created_at = iso_ms(_created_ms(header))  # None for a value no date can hold
        s.cwd = header.get("cwd") if isinstance(header.get("cwd"), str) else None
        s.sources.append(self._transcript(sc.file))
        try:
            s.updated_at = iso((sc.st or sc.file.stat()).st_mtime)
        except OSError:
            pass
        parent_ref = header.get("parentSession")
        parent = self._resolve(str(parent_ref), by_id, by_path, by_stem, s) if parent_ref else None
        # a child's own subagent/descriptor ("appended once by the establishing provider inside the
        # child's initial turn") makes it a subagent without origin too; a fork inherits its parent's
        if (header.get("origin") == "subagent" or (not parent and sc.cut is None and named_by and not named_fork)
                or (sc.descriptor and (parent or named_by or sc.cut is None))):
            s.kind = "subagent"
            parent = parent or named_by
            if parent:
                s.parents.append(LineageEdge(relation="subagent", parent=session_key(NAME, parent), at=named_at(parent)))
            else:
                s.warnings.append("origin is subagent but the header names no parentSession"
                                  if header.get("origin") == "subagent" else
                                  "a subagent (it holds a subagent/descriptor) whose parent nothing here names")
        elif sc.cut is not None or named_fork:
            s.kind = "fork"
            at = f"seq={sc.cut_seq}" if sc.cut is not None and sc.cut_seq is not None else None
            parent = parent or (named_by if named_fork else None)
            if parent:
                s.parents.append(LineageEdge(relation="fork", parent=session_key(NAME, parent), at=at or named_at(parent)))
            else:
                inferred = self._infer_fork_parent(sc, prefixes, s)
                if inferred:
                    s.parents.append(LineageEdge(relation="fork", parent=session_key(NAME, inferred), at=at, inferred=True))
        elif parent:
            # a parentSession without subagent origin or inherited marker: seeded from another session
            s.kind = "fork"
            s.parents.append(LineageEdge(relation="fork", parent=session_key(NAME, parent)))
        return s

    def _resolve(
        self, ref: str, by_id: dict[str, _Scanned], by_path: LazyByPath[_Scanned], by_stem: dict[str, _Scanned],
        s: DiscoveredSession,
    ) -> str:
        if ref in by_id:
            return ref
        if "/" in ref or "\\" in ref or ref.endswith(".jsonl"):
            p = Path(ref)
            if not p.is_absolute():
                p = self.root / p
            hit = by_path.get(str(p.resolve()))
            if hit is not None:
                return hit.session_id
            stem = p.name.removesuffix(".jsonl")
            if stem in by_stem:
                return by_stem[stem].session_id
            s.warnings.append(f"parentSession {ref} is not on this machine; parent id taken from its file name")
            return stem
        s.warnings.append(f"parentSession {ref} is not on this machine")
        return ref

    def _infer_fork_parent(self, sc: _Scanned, prefixes: _PrefixIndex, s: DiscoveredSession) -> str | None:
        n = sc.cut or 0  # events before the cut
        if n == 0:
            s.warnings.append("fork marker with an empty inherited prefix: parent unknown")
            return None
        want = sc.chain[n - 1]
        candidates = [
            o for o in prefixes.holding(want)
            if o is not sc and len(o.chain) >= n and o.chain[n - 1] == want and (o.cut is None or o.cut < n)
        ]
        named = [o for o in candidates if o.session_id == sc.delivered_by]
        if named:
            return named[0].session_id
        if not candidates:
            if sc.delivered_by:
                s.warnings.append(f"fork parent {sc.delivered_by} is not on this machine; its id is taken from the "
                                  "inherited prefix's delivery records")
                return sc.delivered_by
            s.warnings.append(f"fork parent not found: no session on this machine starts with the {n} inherited events")
            return None
        if len(candidates) > 1:
            candidates.sort(key=lambda o: (_created_ms(o.header) or 0, o.session_id))
            s.warnings.append(
                "fork parent ambiguous between " + ", ".join(o.session_id for o in candidates) + "; the oldest is used"
            )
        return candidates[0].session_id


def _restored_parent(parent: str, own: str, prefix: str, moved: dict[str, str]) -> str | None:
    """The restored path of the transcript an absolute parentSession names (see relink_restored),
    `own` (the child's archived path) never; None when this restore holds none."""
    if "\0" in parent or "\\" in parent:
        return None
    marker = f"/{prefix}"
    named = prefix + parent.rsplit(marker, 1)[1] if marker in parent else None
    if named is not None and named != own and named in moved:
        return moved[named]
    best: tuple[int, str] | None = None
    for archived, to in moved.items():
        rel = archived[len(prefix):]
        if archived.startswith(prefix) and archived != own and rel and parent.endswith("/" + rel) \
                and (best is None or len(rel) > best[0]):
            best = (len(rel), to)
    return best[1] if best else None


HARNESS = DeepSeekHarness
