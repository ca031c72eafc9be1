"""Which copy of a session readers take when two hosts archived it (one key): the copy that
changed last (`archived_at`), not whichever host happened to sync last; within one host, the
newest manifest."""

from __future__ import annotations

from archiver.archive import latest_sessions
from archiver.model import Manifest, Session

KEY = "claude-code:0b0e5f4e-1111-4222-8333-444455556666"


def _m(host: str, created: str, title: str, archived_at: str, kind: str = "main") -> Manifest:
    s = Session(key=KEY, harness="claude-code", session_id=KEY.split(":", 1)[1], kind=kind, title=title,
                host_id=host, archived_at=archived_at)  # type: ignore[arg-type]
    return Manifest(host_id=host, created_at=created, run_id="r", tool_version="t", sessions=[s])


def test_the_copy_that_changed_last_wins_across_hosts() -> None:
    fresh = _m("aaaa000000000001", "2026-03-01T10:00:00.000Z", "fresh on A", "2026-03-01T09:59:00.000Z")
    # host B carries its stale copy (archived in January) forward in every later manifest
    stale = _m("bbbb000000000002", "2026-03-05T10:00:00.000Z", "stale on B", "2026-01-10T08:00:00.000Z")
    for order in ([fresh, stale], [stale, fresh]):
        assert latest_sessions(order)[KEY].title == "fresh on A"
    newer_b = _m("bbbb000000000002", "2026-03-06T10:00:00.000Z", "changed on B", "2026-03-06T09:00:00.000Z")
    assert latest_sessions([fresh, stale, newer_b])[KEY].title == "changed on B"


def test_within_one_host_the_newest_manifest_wins_and_ties_go_to_the_newer_manifest() -> None:
    old = _m("aaaa000000000001", "2026-03-01T10:00:00.000Z", "first", "2026-03-01T10:00:00.000Z")
    new = _m("aaaa000000000001", "2026-03-02T10:00:00.000Z", "second", "2026-03-01T10:00:00.000Z")
    assert latest_sessions([new, old])[KEY].title == "second"
    a = _m("aaaa000000000001", "2026-03-01T10:00:00.000Z", "on A", "2026-03-01T09:00:00.000Z")
    b = _m("bbbb000000000002", "2026-03-02T10:00:00.000Z", "on B", "2026-03-01T09:00:00.000Z")
    assert latest_sessions([a, b])[KEY].title == "on B"


def test_host_sessions_stay_one_per_host() -> None:
    a = _m("aaaa000000000001", "2026-03-01T10:00:00.000Z", "A files", "2026-03-01T10:00:00.000Z", kind="host")
    b = _m("bbbb000000000002", "2026-03-02T10:00:00.000Z", "B files", "2026-01-01T10:00:00.000Z", kind="host")
    got = latest_sessions([a, b])
    assert {s.title for s in got.values()} == {"A files", "B files"}
