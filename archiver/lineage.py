"""The lineage forest: sessions as nodes, edges from child to parent.

Readers hold sessions by catalog key: the archive's key (`<harness>:<session id>`, FORMAT.md §5),
except for host-level sessions (`<harness>:@host`, one per host), held as `<key>/<host id>`
(FORMAT.md §6.3: identified by `(key, host_id)`). Commands print the archive's key, with the
host id beside it where it matters; `catalog_key` is the internal name only."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from archiver.model import Session

# what a harness's host-level session holds for a session that uses it (Session.uses): restore's
# warning for one left behind and export's line naming one both say it in these words
USED_HOST_SESSION: dict[str, str] = {"opencode": "the project's snapshot git dir that diff and revert read"}


def used_host_purpose(harness: str) -> str:
    """What the host-level session a `harness` session uses is for (USED_HOST_SESSION)."""
    return USED_HOST_SESSION.get(harness, "the host-level session whose files it reads")


@dataclass(frozen=True)
class Edge:
    child: str
    parent: str
    relation: str
    inferred: bool
    at: str | None = None


def catalog_key(session: Session) -> str:
    """How readers hold `session`: its key, or for a host-level one `<key>/<host id>`."""
    return f"{session.key}/{session.host_id}" if session.kind == "host" else session.key


class Lineage:
    def __init__(self, sessions: dict[str, Session]) -> None:
        self.sessions = sessions
        self.edges: list[Edge] = [
            Edge(s.key, e.parent, e.relation, e.inferred, e.at) for s in sessions.values() for e in s.parents
        ]
        self._children: dict[str, list[Edge]] = {}
        self._parents: dict[str, list[Edge]] = {}
        for e in self.edges:
            self._children.setdefault(e.parent, []).append(e)
            self._parents.setdefault(e.child, []).append(e)

    def children(self, key: str) -> list[Edge]:
        return sorted(self._children.get(key, []), key=lambda e: (e.relation, e.child))

    def parents(self, key: str) -> list[Edge]:
        return self._parents.get(key, [])

    def ancestors(self, key: str) -> set[str]:
        out: set[str] = set()
        todo = [key]
        while todo:
            for e in self.parents(todo.pop()):
                if e.parent not in out:
                    out.add(e.parent)
                    todo.append(e.parent)
        return out

    def descendants(self, key: str) -> set[str]:
        out: set[str] = set()
        todo = [key]
        while todo:
            for e in self.children(todo.pop()):
                if e.child not in out:
                    out.add(e.child)
                    todo.append(e.child)
        return out

    def family(self, key: str) -> set[str]:
        """The session, its ancestors and descendants, the descendants of its ancestors
        (siblings, forks of the parent), and the host-level sessions any of them uses (see
        `used`): everything a reviewer restores together."""
        roots = {k for k in self.ancestors(key) | {key} if not self.parents(k)} or {key}
        out = set(roots)
        for r in roots:
            out |= self.descendants(r)
        out |= {key} | self.ancestors(key)
        return out | {u for k in out for u in self.used(k)}

    def used(self, key: str) -> list[str]:
        """The host-level sessions session `key` names in `uses`, as keys of `sessions`: the copy
        its own host archived (a catalog keeps host sessions per host as `<key>/<host_id>`, and
        another machine's snapshot dir holds other trees), or the key as written when no session
        holds it: a missing node, as a parent never archived is."""
        s = self.sessions.get(key)
        if s is None:
            return []
        return [f"{u}/{s.host_id}" if f"{u}/{s.host_id}" in self.sessions else u for u in s.uses]

    def roots(self, keys: set[str] | None = None) -> list[str]:
        """The sessions with no parent among `keys`, and, for sessions that only a cycle of
        parents reaches (records naming each other: A parent of B parent of A), the smallest key
        of each such cycle: every session is under some root, so a tree drawn from them shows it."""
        keys = keys if keys is not None else set(self.sessions) | {e.parent for e in self.edges}
        roots = sorted(k for k in keys if not any(e.parent in keys for e in self.parents(k)))
        reached = set(roots)
        for r in roots:
            reached |= self.descendants(r)
        for k in sorted(keys):
            if k not in reached:
                roots.append(k)
                reached |= {k} | self.descendants(k)
        return roots

    def archive_key(self, key: str) -> str:
        """The archive's key of catalog key `key` (a parent no manifest holds is named by its key)."""
        s = self.sessions.get(key)
        return s.key if s is not None else key

    def named_host_sessions(self, keys: Sequence[str]) -> set[str]:
        """The host-level sessions among `keys` (an export's, in reading order) that another of
        them uses: no conversation, so an export names them in a line under their users instead
        of showing them as sessions. The first key, the one asked for, is shown whatever it is."""
        used = {u for k in keys for u in self.used(k)}
        return {k for k in keys[1:] if k in used and k in self.sessions and self.sessions[k].kind == "host"}

    def export_json(self, keys: Sequence[str]) -> dict[str, object]:
        """`export --json`'s view of the sessions an export holds (`keys`, in reading order):
        `sessions`, the archive keys of those shown as sessions, and `uses`, which host-level
        session each of them uses, as `lineage --json` has it (the document's `uses` lines)."""
        named = self.named_host_sessions(keys)
        shown = [k for k in keys if k not in named]
        return {"sessions": [self.archive_key(k) for k in shown], "uses": self.uses_json(set(shown))}

    def uses_json(self, keys: set[str]) -> list[dict[str, str | None]]:
        """Which host-level session each session of `keys` uses (Session.uses), by archive key with
        the used copy's host id (None when no manifest holds it): beside the edges, not one of them."""
        out: list[dict[str, str | None]] = []
        for k in sorted(keys):
            for u in self.used(k):
                held = self.sessions.get(u)
                out.append({"session": self.archive_key(k), "uses": self.archive_key(u),
                            "host_id": held.host_id if held is not None else None})
        return out

    def to_json(self, keys: set[str] | None = None) -> dict[str, object]:
        """`nodes` are archive keys (a host-level key once, however many hosts hold one);
        `host_sessions` says which host ids hold each host-level node."""
        keys = keys if keys is not None else set(self.sessions)
        hosts: dict[str, list[str]] = {}
        for k in keys:
            s = self.sessions.get(k)
            if s is not None and s.kind == "host":
                hosts.setdefault(s.key, []).append(s.host_id or "")
        return {
            "nodes": sorted({self.archive_key(k) for k in keys}),
            "host_sessions": [{"key": k, "host_ids": sorted(h)} for k, h in sorted(hosts.items())],
            "uses": self.uses_json(keys),
            "edges": [
                {"child": e.child, "parent": e.parent, "relation": e.relation, "inferred": e.inferred, "at": e.at}
                for e in sorted(self.edges, key=lambda e: (e.parent, e.child))
                if e.child in keys or e.parent in keys
            ],
        }
