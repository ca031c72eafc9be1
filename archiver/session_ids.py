"""Session ids, keys and lineage references as a manifest names them (redacted; whole ids kept)."""

from __future__ import annotations

import re
import sqlite3

import orjson

from archiver.model import DiscoveredSession, LineageEdge, Session
from archiver.redact.base import RedactionReport, Redactor
from archiver.redact.engine import MODE_KEYS, whole_id
from archiver.state import State

SESSION_ID_CACHE = "session_ids"  # state meta: {"fingerprint", "map": {id as found: id as archived}}
HOST_SESSION_ID = "@host"
_AT_NAMES = frozenset({"rollout", "ordinal", "depth", "seq", "through"})  # `at` parts harnesses write
_AT_PART = re.compile(r"([a-z]+)[=:](.+)")
_ISO_TIME = re.compile(r"\d{4}-\d\d-\d\d(?:[T ]\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:Z|[+-]\d\d:?\d\d)?)?")


def _plain_id(value: str) -> bool:
    """Can value go into a manifest as it is, without asking the redactor? A whole id (UUID,
    hex digest, tool/message id: redact.engine.whole_id), ids of those joined by `_` (a Codex
    revert rollout), `@host`, a time stamp, or `at` parts like `seq=5`, `rollout=<uuid>;ordinal=3`.
    Anything else goes through the redactor (a False here costs time, never privacy)."""
    if value in ("", HOST_SESSION_ID) or whole_id(value) or _ISO_TIME.fullmatch(value):
        return True
    for piece in value.split(";"):
        m = _AT_PART.fullmatch(piece)
        if m is not None and m.group(1) in _AT_NAMES:
            piece = m.group(2)
            if piece.isdigit() and len(piece) <= 12:
                continue
        if not (whole_id(piece) or all(whole_id(part) for part in piece.split("_"))):
            return False
    return True


class SessionIds:
    """Session ids, keys and lineage references (`parent`, `at`) as the manifest, `ls`, the
    state and every message name them: redacted with the rules that rename artifact paths
    (each `/`-separated part as redact_relpath does; with a RuleRedactor, the rules for JSON
    object keys: the path and runtime-term rules plus the PII and high-confidence secret ones,
    so an e-mail address used as an id is redacted too), so a key whose id
    is a file name (`zqxcanary-notes`) reads like its redacted file (`user-5f2a-notes`) and a
    parent reference like its parent's key. Whole ids (see _plain_id) are kept byte for byte.

    Redaction is deterministic, so a parent and its children agree on every machine. What the
    redactor answered is kept in the state (per redaction fingerprint): a re-sync that finds
    every session unchanged does not build the redactor for a non-UUID id."""

    def __init__(self, redactor: Redactor, state: State | None = None, fingerprint: str | None = None) -> None:
        self.redactor = redactor
        self.state = state
        self.fingerprint = fingerprint
        self._cached: dict[str, str] = {}
        self._used: dict[str, str] = {}  # this run's answers (what the state keeps next time)
        if state is not None and fingerprint is not None:
            try:
                doc = orjson.loads(state.get_meta(SESSION_ID_CACHE) or "null")
            except (sqlite3.Error, ValueError):
                doc = None
            if isinstance(doc, dict) and doc.get("fingerprint") == fingerprint and isinstance(doc.get("map"), dict):
                self._cached = {k: v for k, v in doc["map"].items() if isinstance(k, str) and isinstance(v, str)}
        self._loaded = dict(self._cached)

    def id(self, value: str) -> str:
        if _plain_id(value):
            return value
        out = self._used.get(value)
        if out is None:
            out = self._cached.get(value)
            if out is None:
                out = self._redact(value)
            self._used[value] = out
            self._used.setdefault(out, out)  # an archived id is final: a carried session keeps it
        return out

    def key(self, key: str) -> str:
        harness, sep, sid = key.partition(":")
        return f"{harness}:{self.id(sid)}" if sep else self.id(key)

    def edges(self, edges: list[LineageEdge]) -> list[LineageEdge]:
        out = []
        for e in edges:
            parent, at = self.key(e.parent), (self.id(e.at) if e.at else e.at)
            out.append(e if (parent, at) == (e.parent, e.at) else e.model_copy(update={"parent": parent, "at": at}))
        return out

    def discovered(self, ds: DiscoveredSession) -> DiscoveredSession:
        """In place: ds.key, ds.session_id, ds.parents and ds.uses as archived. Every session passes
        through here before any collector hook runs, so hooks (redacted_relpath, producers) may
        rely on `session_id` being the archived id (pi names its transcript with it)."""
        ds.session_id = self.id(ds.session_id)
        ds.parents = self.edges(ds.parents)
        ds.uses = [self.key(k) for k in ds.uses]
        return ds

    def session(self, s: Session) -> Session:
        """A stored session (written by a version that kept ids as found) as archived now."""
        sid, key, parents = self.id(s.session_id), self.key(s.key), self.edges(s.parents)
        uses = [self.key(k) for k in s.uses]
        if (sid, key, parents, uses) == (s.session_id, s.key, s.parents, s.uses):
            return s
        return s.model_copy(update={"session_id": sid, "key": key, "parents": parents, "uses": uses})

    def _redact(self, value: str) -> str:
        report = RedactionReport()  # not counted: a cached answer would count nothing
        engine = getattr(self.redactor, "engine", None)
        if engine is not None:
            return "/".join(engine.redact(p, report, "session-id", MODE_KEYS) if p else p
                            for p in value.split("/"))
        red = self.redactor.redact_relpath(value, report)
        return "/".join(self.redactor.redact_text(p, report, "session-id") if p else p for p in red.split("/"))

    def dirty(self) -> bool:
        return self.fingerprint is not None and self._used != self._loaded

    def save(self) -> None:
        """Into the state, inside the caller's transaction (only this run's ids are kept)."""
        if self.state is not None and self.dirty():
            self.state.set_meta(SESSION_ID_CACHE, orjson.dumps(
                {"fingerprint": self.fingerprint, "map": dict(sorted(self._used.items()))}).decode())
            self._loaded = dict(self._used)
