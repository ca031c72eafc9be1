"""s20: DeepSeek agent teams in lineage, and where in its parent a subagent starts (`at`).

Catalog (seeds/003_37255de69aaa2bf4.txt): `team/member` {version: 2, teamId, member:
TeamMemberSnapshot} is "stored only in the Team Lead Session"; member.id is the teammate's session
(messages reach members by `targetId: SessionId`); member.context "fresh" = a delegated agent
(subagent), "fork" = started from the lead's history (fork). Homes from tests/fx_s20_deepseek_team.py;
the end-to-end run syncs to moto's S3 on 127.0.0.1 with the real CLI.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any, Iterator

import pytest

from archiver.harnesses.base import HarnessContext
from archiver.harnesses.deepseek_harness import DeepSeekHarness
from tests.fx_s17_e2e import OTHER, T0, ev, jl, make_run
from tests.fx_s20_deepseek_team import (
    FORKED, FRESH, GONE, LEAD, LEAD_FORK, STRAY, TeamHome, build_team, header, member, turn,
)
from tests.fx_s3 import REGION, make_bucket, s3_client, s3_server, unique_bucket_name  # noqa: F401

H = "deepseek-harness"


def key(sid: str) -> str:
    return f"{H}:{sid}"


def discover(home: Path, cache: dict[str, str] | None = None) -> dict[str, Any]:
    ctx = HarnessContext(home=home, env={}, cache=cache if cache is not None else {})
    return {s.session_id: s for s in DeepSeekHarness(ctx).discover()}


def edges(s: Any) -> list[tuple[str, str, str | None, bool]]:
    return [(e.relation, e.parent, e.at, e.inferred) for e in s.parents]


def want(t: TeamHome, sid: str) -> list[tuple[str, str, str | None, bool]]:
    return [(rel, key(parent), at, inferred) for rel, parent, at, inferred in t.edges[sid]]


def test_lead_names_its_fresh_and_fork_teammates(tmp_path: Path) -> None:
    t = build_team(tmp_path)
    cache: dict[str, str] = {}
    for _ in range(2):  # the second run reads every scan from the discovery cache
        found = discover(tmp_path, cache)
        assert set(found) == {LEAD, FRESH, FORKED, LEAD_FORK, STRAY}  # the absent teammate is not invented
        assert {sid: s.kind for sid, s in found.items()} == t.kinds
        assert {sid: edges(s) for sid, s in found.items()} == {sid: want(t, sid) for sid in found}
        # exactly: fresh -> subagent at its first team/member record, fork -> fork at its own cut, named
        assert edges(found[FRESH]) == [("subagent", key(LEAD), "seq=4", False)]
        assert edges(found[FORKED]) == [("fork", key(LEAD), "seq=6", False)]
        assert edges(found[LEAD_FORK]) == [("fork", key(LEAD), "seq=15", True)]
        assert found[LEAD].parents == [] and found[STRAY].parents == []
        for sid in (LEAD, FRESH, FORKED, LEAD_FORK, STRAY):
            assert found[sid].warnings == [], (sid, found[sid].warnings)
    assert any(k.startswith("deepseek-harness:scan3:") for k in cache)


def test_without_the_lead_no_edge_is_invented_and_its_fork_is_no_lead(tmp_path: Path) -> None:
    t = build_team(tmp_path)
    t.files[LEAD].unlink()
    found = discover(tmp_path)
    assert set(found) == {FRESH, FORKED, LEAD_FORK, STRAY}
    # the lead's fork holds every team record, inherited: it names no teammate
    assert all(e.parent != key(LEAD_FORK) for s in found.values() for e in s.parents)
    assert found[FRESH].kind == "main" and found[FRESH].parents == []
    assert found[STRAY].kind == "main" and found[STRAY].parents == []
    # still a fork (its own cut), but nothing here starts with its prefix and is not cut after it
    assert found[FORKED].kind == "fork" and found[FORKED].parents == []
    assert found[FORKED].warnings == ["fork parent not found: no session on this machine starts with the 5 inherited events"]
    assert found[LEAD_FORK].kind == "fork" and found[LEAD_FORK].parents == []


def test_fork_teammate_without_a_cut_and_odd_member_records(tmp_path: Path) -> None:
    root = tmp_path / ".deepseek" / "sessions"
    root.mkdir(parents=True)
    no_id = ev(7, "team/member", {"version": 2, "teamId": "t", "member": {"name": "x", "context": "fresh"}})
    listed = ev(8, "team/member", {"version": 2, "teamId": "t", "member": ["ds-list"]})
    (root / "lead.jsonl").write_bytes(jl(header("ds-l", T0), *turn(1, "go"), member(4, "ds-f", "fork"),
                                         member(5, "ds-o", "fork"), member(6, "ds-odd", "someday"), no_id, listed))
    # a fork-context teammate written without an inherited marker: at = the lead's record naming it
    (root / "f.jsonl").write_bytes(jl(header("ds-f", T0 + 1, isSeeded=True), *turn(1, "seeded")))
    # the header's origin wins over the member's context
    (root / "o.jsonl").write_bytes(jl(header("ds-o", T0 + 2, origin="subagent", parentSession="ds-l",
                                             delegationDepth=1), *turn(1, "sub")))
    # a context outside the catalog's two values: a delegated agent
    (root / "odd.jsonl").write_bytes(jl(header("ds-odd", T0 + 3), *turn(1, "odd")))
    (root / "list.jsonl").write_bytes(jl(header("ds-list", T0 + 4), *turn(1, "x")))
    found = discover(tmp_path)
    assert (found["ds-f"].kind, edges(found["ds-f"])) == ("fork", [("fork", key("ds-l"), "seq=4", False)])
    assert (found["ds-o"].kind, edges(found["ds-o"])) == ("subagent", [("subagent", key("ds-l"), "seq=5", False)])
    assert (found["ds-odd"].kind, edges(found["ds-odd"])) == ("subagent", [("subagent", key("ds-l"), "seq=6", False)])
    assert (found["ds-list"].kind, edges(found["ds-list"])) == ("main", [])
    assert found["ds-l"].parents == [] and all(not s.warnings for s in found.values())


def test_subagent_at_is_the_seq_of_the_record_in_that_parent(tmp_path: Path) -> None:
    """`at` is where the child starts in the parent the edge names: a record naming the child in
    another session gives no position in this one; the header's delegationDepth gives none."""
    root = tmp_path / ".deepseek" / "sessions"
    root.mkdir(parents=True)
    cat = ev(4, "subagent/catalog", {"version": 0, "mode": "one-shot", "childId": "ds-k", "childCreatedAt": T0 + 9})
    (root / "p.jsonl").write_bytes(jl(header("ds-p", T0), *turn(1, "parent"), cat))
    (root / "q.jsonl").write_bytes(jl(header("ds-q", T0 + 1), *turn(1, "other"),
                                      ev(4, "tool-workflow/agent-start", {"runId": "r", "seq": 1, "childId": "ds-k2"})))
    (root / "k.jsonl").write_bytes(jl(header("ds-k", T0 + 9, origin="subagent", parentSession="ds-p",
                                             delegationDepth=3), *turn(1, "kid")))
    # header names ds-p, but ds-q's record names it: ds-q's seq says nothing about ds-p
    (root / "k2.jsonl").write_bytes(jl(header("ds-k2", T0 + 10, origin="subagent", parentSession="ds-p",
                                              delegationDepth=1), *turn(1, "kid2")))
    found = discover(tmp_path)
    assert edges(found["ds-k"]) == [("subagent", key("ds-p"), "seq=4", False)]
    assert edges(found["ds-k2"]) == [("subagent", key("ds-p"), None, False)]


# ---- end to end: the real CLI, moto's S3 on 127.0.0.1


@pytest.fixture(scope="module")
def synced(tmp_path_factory: pytest.TempPathFactory, s3_server: str) -> Iterator[dict[str, Any]]:  # noqa: F811
    base = tmp_path_factory.mktemp("s20team")
    base.chmod(0o700)
    r = make_run(base, H)
    bucket = unique_bucket_name()
    make_bucket(s3_server, bucket)
    cfg = r.config.read_text()
    r.config.write_text(cfg.replace(f'url = "file://{r.store}"',
                                    f'url = "s3://{bucket}/team"\nendpoint_url = "{s3_server}"\nregion = "{REGION}"'))
    t = build_team(r.home)
    yield {"r": r, "t": t, "sync": r.json("sync"), "bucket": bucket, "endpoint": s3_server}
    shutil.rmtree(base, ignore_errors=True)


def test_sync_to_s3_then_lineage_and_restore_with_family_bring_the_team(synced: dict[str, Any], tmp_path: Path) -> None:
    r, t = synced["r"], synced["t"]
    assert synced["sync"]["sessions"] == {"total": 5, "uploaded": 5, "unchanged": 0, "failed": 0}
    listed = s3_client(synced["endpoint"]).list_objects_v2(Bucket=synced["bucket"], Prefix="team/snapshots/")
    assert listed.get("KeyCount", 0) >= 1 and not (r.store.exists() and any(r.store.iterdir()))
    lin = r.json("lineage", "--identity", str(r.identity), key(LEAD))
    family = {LEAD, FRESH, FORKED, LEAD_FORK}
    assert sorted(lin["nodes"]) == sorted(key(s) for s in family) and lin["errors"] == []
    got = sorted((e["child"], e["relation"], e["parent"], e["at"], e["inferred"]) for e in lin["edges"])
    assert got == sorted((key(c), rel, key(p), at, inf) for c in family for rel, p, at, inf in t.edges[c])
    tree = r.cli("lineage", "--identity", str(r.identity), key(LEAD)).stdout
    assert f"[subagent] {key(FRESH)}" in tree and f"[fork] {key(FORKED)}" in tree
    assert f"[fork, inferred] {key(LEAD_FORK)}" in tree and key(STRAY) not in tree
    to = tmp_path / OTHER
    out = r.json("restore", "--identity", str(r.identity), "--to", str(to), "--with-family", key(LEAD))
    assert sorted(out["sessions"]) == sorted(key(s) for s in family)
    assert out["errors"] == out["refused"] == out["integrity_errors"] == []
    for sid in family:  # nothing in these files is redacted: restored byte for byte at the native place
        rel = t.files[sid].relative_to(r.home)
        assert (to / rel).read_bytes() == t.files[sid].read_bytes(), sid
    assert sorted(p.relative_to(to) for p in to.rglob("*") if p.is_file()) == sorted(
        t.files[s].relative_to(r.home) for s in family)
    assert json.loads((to / t.files[FRESH].relative_to(r.home)).read_bytes().splitlines()[0])["id"] == FRESH
