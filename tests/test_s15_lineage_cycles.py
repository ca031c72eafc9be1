"""Records may name each other as parents (A parent of B parent of A): such sessions have no
parentless ancestor, and a tree drawn from the roots used to leave them out entirely."""

from __future__ import annotations

from archiver.lineage import Lineage
from archiver.model import LineageEdge, Session


def _s(key: str, *parents: str) -> Session:
    harness, _, sid = key.partition(":")
    return Session(key=key, harness=harness, session_id=sid,
                   parents=[LineageEdge(relation="fork", parent=p) for p in parents])


def test_a_cycle_gets_its_smallest_key_as_a_root_and_every_session_is_under_one() -> None:
    sessions = {s.key: s for s in [_s("pi:b", "pi:a"), _s("pi:a", "pi:c"), _s("pi:c", "pi:b"),
                                   _s("pi:root"), _s("pi:kid", "pi:root"), _s("pi:x", "pi:y"), _s("pi:y", "pi:x")]}
    lin = Lineage(sessions)
    roots = lin.roots()
    assert roots == ["pi:root", "pi:a", "pi:x"]
    shown = set(roots)
    for r in roots:
        shown |= lin.descendants(r)
    assert shown == set(sessions)


def test_without_cycles_the_roots_are_the_parentless_sessions_as_before() -> None:
    sessions = {s.key: s for s in [_s("cc:m"), _s("cc:sub", "cc:m"), _s("cc:fork", "cc:m"), _s("cc:other")]}
    assert Lineage(sessions).roots() == ["cc:m", "cc:other"]
    # a parent named by a record but not archived is a root of its own (shown "not archived")
    assert Lineage({"cc:c": _s("cc:c", "cc:gone")}).roots() == ["cc:gone"]
