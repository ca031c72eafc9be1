"""s17: a DeepSeek fork's parent named by its inherited prefix's delivery records.

Catalog (seeds/003), `session-log-deepseek/delivery-accepted`: "Session identity the accepted
delivery carried; inherited fork markers retain the parent's id." A fork's inherited prefix thus
holds its parent's id even when the parent's file is not on this machine, and it tells the
parent from another session that starts with the same events. Homes written by
tests/fx_s17_e2e.py's helpers; the collector is called directly (no store needed).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from archiver.harnesses.base import HarnessContext
from archiver.harnesses.deepseek_harness import DeepSeekHarness
from tests.fx_s17_e2e import T0, ev, jl

H = "deepseek-harness"


def header(sid: str, created: int, **kw: Any) -> dict[str, Any]:
    return {"type": "session", "version": 3, "id": sid, "createdAt": created, "cwd": "/w/p", "isSeeded": False,
            "delegationDepth": 0, **kw}


def turn(start: int, text: str) -> list[dict[str, Any]]:
    return [ev(start, "turn/start", {"turn": 1}),
            ev(start + 1, "user/message", {"id": f"u{start}", "role": "user", "content": text, "source": {"kind": "human"}},
               surfaceOp="append"),
            ev(start + 2, "turn/end", {"turn": 1, "reason": "completed"})]


def delivered(seq: int, sid: str) -> dict[str, Any]:
    return ev(seq, "session-log-deepseek/delivery-accepted", {"sessionId": sid, "throughSeq": seq - 1}, ignorable=True)


def discover(home: Path) -> dict[str, Any]:
    return {s.session_id: s for s in DeepSeekHarness(HarnessContext(home=home, env={})).discover()}


def edges(s: Any) -> list[tuple[str, str, str | None, bool]]:
    return [(e.relation, e.parent, e.at, e.inferred) for e in s.parents]


def test_fork_of_a_parent_not_on_this_machine_keeps_its_edge(tmp_path: Path) -> None:
    root = tmp_path / ".deepseek" / "sessions"
    root.mkdir(parents=True)
    prefix = [*turn(1, "hello"), delivered(4, "ds-parent-gone")]
    (root / "fork.jsonl").write_bytes(jl(header("ds-fork", T0 + 10, isSeeded=True), *prefix,
                                         ev(5, "session/end-seed", {"inherited": True}), *turn(6, "mine")))
    s = discover(tmp_path)["ds-fork"]
    assert s.kind == "fork"
    assert edges(s) == [("fork", f"{H}:ds-parent-gone", "seq=5", True)]
    assert any("ds-parent-gone is not on this machine" in w for w in s.warnings)


def test_an_ancestors_delivery_does_not_name_the_parent(tmp_path: Path) -> None:
    """G -> F -> C, neither G nor F on this machine: G's delivery before F's cut names G, not C's parent."""
    root = tmp_path / ".deepseek" / "sessions"
    root.mkdir(parents=True)
    g_part = [*turn(1, "g"), delivered(4, "ds-g")]
    f_part = [ev(5, "session/end-seed", {"inherited": True}), *turn(6, "f")]
    (root / "c.jsonl").write_bytes(jl(header("ds-c", T0 + 30, isSeeded=True), *g_part, *f_part,
                                      ev(9, "session/end-seed", {"inherited": True}), *turn(10, "c")))
    s = discover(tmp_path)["ds-c"]
    assert s.kind == "fork" and edges(s) == []
    # once F delivered its own events, the prefix names F
    (root / "c.jsonl").write_bytes(jl(header("ds-c", T0 + 30, isSeeded=True), *g_part, *f_part, delivered(9, "ds-f"),
                                      ev(10, "session/end-seed", {"inherited": True}), *turn(11, "c")))
    assert edges(discover(tmp_path)["ds-c"]) == [("fork", f"{H}:ds-f", "seq=10", True)]


def test_delivery_record_picks_the_parent_among_sessions_with_the_same_start(tmp_path: Path) -> None:
    root = tmp_path / ".deepseek" / "sessions"
    root.mkdir(parents=True)
    prefix = [*turn(1, "same start"), delivered(4, "ds-p")]
    # an older session that starts with the very same events (a seeded copy, no marker)
    (root / "copy.jsonl").write_bytes(jl(header("ds-copy", T0, isSeeded=True), *prefix, *turn(5, "copy goes on")))
    (root / "p.jsonl").write_bytes(jl(header("ds-p", T0 + 5), *prefix, *turn(5, "parent goes on")))
    (root / "fork.jsonl").write_bytes(jl(header("ds-fork", T0 + 10, isSeeded=True), *prefix,
                                         ev(5, "session/end-seed", {"inherited": True}), *turn(6, "mine")))
    s = discover(tmp_path)["ds-fork"]
    assert edges(s) == [("fork", f"{H}:ds-p", "seq=5", True)]
    assert not any("ambiguous" in w for w in s.warnings)


def test_a_child_holding_its_own_subagent_descriptor_is_a_subagent(tmp_path: Path) -> None:
    """subagent/descriptor: "Durable identity and lifecycle mode of a session-backed subagent child,
    appended once by the establishing provider inside the child's initial turn". A header without
    `origin` (optional) but naming its parent is that parent's subagent, not a seeded copy; a fork
    that inherited a child's descriptor stays a fork."""
    root = tmp_path / ".deepseek" / "sessions"
    root.mkdir(parents=True)
    (root / "p.jsonl").write_bytes(jl(header("ds-p", T0), *turn(1, "parent")))
    kid = [ev(1, "subagent/descriptor", {"version": 0, "mode": "one-shot", "provider": "deepseek"}), *turn(2, "task")]
    (root / "kid.jsonl").write_bytes(jl(header("ds-kid", T0 + 1, parentSession="ds-p", delegationDepth=1), *kid))
    (root / "lone.jsonl").write_bytes(jl(header("ds-lone", T0 + 2, delegationDepth=1), *kid))
    (root / "fork.jsonl").write_bytes(jl(header("ds-fork", T0 + 3, isSeeded=True), *kid,
                                         ev(5, "session/end-seed", {"inherited": True})))
    cache: dict[str, str] = {}
    for _ in range(2):  # the second run reads the scans from the discovery cache
        found = {s.session_id: s for s in DeepSeekHarness(HarnessContext(home=tmp_path, env={}, cache=cache)).discover()}
        assert found["ds-kid"].kind == "subagent"
        assert edges(found["ds-kid"]) == [("subagent", f"{H}:ds-p", None, False)]  # ds-p names it nowhere
        assert found["ds-lone"].kind == "subagent" and edges(found["ds-lone"]) == []
        assert any("subagent/descriptor" in w for w in found["ds-lone"].warnings)
        assert found["ds-fork"].kind == "fork"
        assert [e[0] for e in edges(found["ds-fork"])] == ["fork"]  # (ds-kid and ds-lone start alike)
    assert cache


def test_a_scan_cached_before_this_change_is_read_again(tmp_path: Path) -> None:
    import json
    root = tmp_path / ".deepseek" / "sessions"
    root.mkdir(parents=True)
    (root / "fork.jsonl").write_bytes(jl(header("ds-fork", T0 + 10, isSeeded=True), *turn(1, "x"), delivered(4, "ds-gone"),
                                         ev(5, "session/end-seed", {"inherited": True})))
    cache: dict[str, str] = {}
    list(DeepSeekHarness(HarnessContext(home=tmp_path, env={}, cache=cache)).discover())
    assert cache
    for k, v in list(cache.items()):  # as the previous collector left them
        d = json.loads(v)
        if isinstance(d, dict) and "chain" in d:
            d.pop("descriptor"), d.pop("delivered_by")
            cache[k] = json.dumps(d)
    found = {s.session_id: s for s in DeepSeekHarness(HarnessContext(home=tmp_path, env={}, cache=cache)).discover()}
    assert edges(found["ds-fork"]) == [("fork", f"{H}:ds-gone", "seq=5", True)]
