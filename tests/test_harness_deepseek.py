"""DeepSeek harness collector on generated sessions (archiver/demo/deepseek_sample.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from archiver.harnesses.base import HarnessContext, load_harness
from archiver.model import DiscoveredSession, LineageEdge
from archiver.demo.deepseek_sample import make_deepseek_home

H = "deepseek-harness"


def discover(home: Path, root: Path | None = None) -> dict[str, DiscoveredSession]:
    h = load_harness(H, HarnessContext(home=home, env={}, root=root))
    return {s.key: s for s in h.discover()}


def k(sid: str) -> str:
    return f"{H}:{sid}"


@pytest.fixture()
def ds(tmp_path: Path) -> tuple[Path, dict]:
    home = tmp_path / "home"
    return home, make_deepseek_home(home)


def test_sessions_lineage_titles_sources(ds: tuple[Path, dict]) -> None:
    home, info = ds
    ids, f = info["sessions"], info["files"]
    found = discover(home)
    assert set(found) == {k(i) for i in ids.values()}
    assert {key: s.kind for key, s in found.items()} == {
        k(ids["main"]): "main", k(ids["subagent"]): "subagent", k(ids["fork"]): "fork",
        k(ids["sibling_fork"]): "fork", k(ids["fork_of_fork"]): "fork",
    }
    assert {key: s.parents for key, s in found.items() if s.parents} == {
        # main names it in its own subagent/catalog record (seq 11): where it starts in main
        k(ids["subagent"]): [LineageEdge(relation="subagent", parent=k(ids["main"]), at="seq=11", inferred=False)],
        # no parentSession: parent found through the inherited prefix
        k(ids["fork"]): [LineageEdge(relation="fork", parent=k(ids["main"]), at="seq=5", inferred=True)],
        # parentSession given as a file path
        k(ids["sibling_fork"]): [LineageEdge(relation="fork", parent=k(ids["main"]), at="seq=7", inferred=False)],
        # the prefix ends after the fork's own marker: the fork, not main, nor the sibling
        k(ids["fork_of_fork"]): [LineageEdge(relation="fork", parent=k(ids["fork"]), at="seq=7", inferred=True)],
    }
    assert found[k(ids["main"])].title == "Refund failures"
    assert found[k(ids["fork"])].title == "Refund regression test"  # latest session/title wins
    assert found[k(ids["main"])].created_at == "2026-01-01T10:00:00Z"
    assert found[k(ids["main"])].cwd == "/home/alice/src/payments"
    for name, sid in ids.items():
        assert [(a.path, a.role, a.format, a.mode, a.source) for a in found[k(sid)].sources] == [
            (f".deepseek/sessions/{f[name].name}", "transcript", "jsonl", "append", f[name])
        ]


def test_unknown_event_types_are_kept_and_reported(ds: tuple[Path, dict]) -> None:
    home, info = ds
    found = discover(home)
    main = found[k(info["sessions"]["main"])]
    assert main.warnings == [
        f"{info['files']['main'].name}: event types not in the catalog kept untouched: "
        "plugin-acme/note x1, plugin-acme/telemetry x1 (1 without ignorable)"
    ]
    # the archived source is the file itself, unknown events included
    raw = main.sources[0].source.read_bytes()
    assert b'"plugin-acme/telemetry"' in raw and b'"plugin-acme/note"' in raw
    assert all(not s.warnings for key, s in found.items() if key != main.key)


def test_configured_root_and_nested_files(ds: tuple[Path, dict], tmp_path: Path) -> None:
    home, info = ds
    root = tmp_path / "ds-data"
    made = make_deepseek_home(tmp_path / "h2", root=root / "2026" / "01")
    found = discover(home, root=root)
    assert set(found) == {k(i) for i in made["sessions"].values()}
    main = found[k(made["sessions"]["main"])]
    assert main.sources[0].path == f".deepseek/sessions/2026/01/{made['files']['main'].name}"
    assert discover(home, root=tmp_path / "missing") == {}


def test_bad_lines_gone_parent_and_ambiguous_prefix(ds: tuple[Path, dict]) -> None:
    home, info = ds
    ids, f = info["sessions"], info["files"]
    root = info["root"]
    # a subagent whose parent file is gone, with a bad line mid-file and a torn tail
    orphan = root / "orphan.jsonl"
    header = {"type": "session", "version": 3, "id": "ds-orphan", "createdAt": 1767261700000, "isSeeded": False,
              "delegationDepth": 2, "origin": "subagent", "parentSession": "/old/place/ds-gone.jsonl"}
    orphan.write_bytes(json.dumps(header).encode() + b"\n{broken\n"
                       + b'{"type":"turn/start","seq":1,"time":1,"data":{"turn":1}}\n{"type":"turn/e')
    # a file without a header
    (root / "headless.jsonl").write_bytes(b'{"type":"turn/start","seq":1,"time":1,"data":{"turn":1}}\n')
    # a second copy of main's first 4 events + marker with no parentSession -> ambiguous with...
    dup_main = root / "dup.jsonl"
    lines = f["main"].read_bytes().splitlines(keepends=True)
    dup_header = {"type": "session", "version": 3, "id": "ds-dup", "createdAt": 1767261500000, "isSeeded": False,
                  "delegationDepth": 0}
    dup_main.write_bytes(json.dumps(dup_header).encode() + b"\n" + b"".join(lines[1:5]))
    found = discover(home)
    o = found[k("ds-orphan")]
    assert o.kind == "subagent"
    assert o.parents == [LineageEdge(relation="subagent", parent=k("ds-gone"), at=None)]  # no record says where
    assert o.warnings == [
        "orphan.jsonl: 1 unparseable line(s) kept as they are (line 2)",
        "parentSession /old/place/ds-gone.jsonl is not on this machine; parent id taken from its file name",
    ]
    headless = found[k("headless")]
    assert headless.kind == "main" and headless.sources[0].source == root / "headless.jsonl"
    assert headless.warnings == ["headless.jsonl: first line is not a session header; id taken from the file name"]
    fork = found[k(ids["fork"])]
    # ds-dup also starts with the same 4 events: the older one is taken, the ambiguity reported
    assert fork.parents == [LineageEdge(relation="fork", parent=k("ds-dup"), at="seq=5", inferred=True)]
    assert fork.warnings == [f"fork parent ambiguous between ds-dup, {ids['main']}; the oldest is used"]


# ---- audit s9-seedB: fixtures written from the persistence catalog (seeds/003_...) alone


def _jsonl(path: Path, rows: list[dict]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _hdr(sid: str, created: int, **kw: object) -> dict:
    """HeaderLine: {type: "session", version, id, createdAt, cwd?, isSeeded, origin?,
    parentSession?, delegationDepth, agentPreset?} -- optional keys only when given."""
    return {"type": "session", "version": 3, "id": sid, "createdAt": created, "isSeeded": False,
            "delegationDepth": 0, **kw}


def _ev(typ: str, seq: int, data: dict, **kw: object) -> dict:
    return {"type": typ, "seq": seq, "time": 1767261600000 + seq, "data": data, **kw}


def test_child_named_by_its_parents_catalog_records_is_linked_without_parent_session(tmp_path: Path) -> None:
    """parentSession is optional in the header; the parent's own `subagent/catalog` ("a direct
    child's complete discovery fact") and `tool-workflow/agent-start` (member's child Session)
    records name the child by childId. A fork inherits those records in its prefix: they do not
    make the fork the parent."""
    root = tmp_path / ".deepseek" / "sessions"
    user = {"id": "u1", "role": "user", "content": [{"type": "text", "text": "go"}], "source": {"kind": "human"}}
    parent_events = [
        _ev("turn/start", 1, {"turn": 1}),
        _ev("user/message", 2, user, surfaceOp="append"),
        _ev("subagent/catalog", 3, {"version": 0, "mode": "one-shot", "childId": "child-a", "childCreatedAt": 1767261601000}),
        _ev("tool-workflow/run-start", 4, {"runId": "r1", "name": "review"}),
        _ev("tool-workflow/agent-start", 5, {"runId": "r1", "seq": 1, "label": "w1", "childId": "child-b"}),
        _ev("turn/end", 6, {"turn": 1, "reason": "completed"}),
    ]
    _jsonl(root / "parent.jsonl", [_hdr("parent", 1767261600000)] + parent_events)
    # the fork inherits all six events (catalog records included), then its cut
    _jsonl(root / "fork.jsonl", [_hdr("fork", 1767261700000, isSeeded=True)] + parent_events
           + [_ev("session/end-seed", 7, {"inherited": True})])
    _jsonl(root / "child-a.jsonl", [_hdr("child-a", 1767261601000, origin="subagent", delegationDepth=1),
                                    _ev("subagent/descriptor", 1, {"mode": "one-shot", "provider": "p", "version": 1})])
    _jsonl(root / "child-b.jsonl", [_hdr("child-b", 1767261602000, delegationDepth=1)])
    found = discover(tmp_path)
    assert found[k("child-a")].kind == "subagent"
    assert found[k("child-a")].parents == [LineageEdge(relation="subagent", parent=k("parent"), at="seq=3")]
    assert found[k("child-a")].warnings == []
    assert found[k("child-b")].kind == "subagent"
    assert found[k("child-b")].parents == [LineageEdge(relation="subagent", parent=k("parent"), at="seq=5")]
    assert found[k("fork")].parents == [LineageEdge(relation="fork", parent=k("parent"), at="seq=7", inferred=True)]
    assert found[k("parent")].parents == [] and found[k("parent")].kind == "main"


def test_discovery_cache_keeps_the_children_a_session_names(tmp_path: Path) -> None:
    root = tmp_path / ".deepseek" / "sessions"
    _jsonl(root / "p.jsonl", [_hdr("p", 1767261600000),
                              _ev("subagent/catalog", 1, {"version": 0, "mode": "one-shot", "childId": "c", "childCreatedAt": 1})])
    _jsonl(root / "c.jsonl", [_hdr("c", 1767261601000, origin="subagent")])
    cache: dict[str, str] = {}
    for _ in range(2):  # the second run reads the scans from the cache
        h = load_harness(H, HarnessContext(home=tmp_path, env={}, cache=cache))
        found = {s.key: s for s in h.discover()}
        assert found[k("c")].parents == [LineageEdge(relation="subagent", parent=k("p"), at="seq=1")]
    assert cache


def test_a_created_at_no_date_can_hold_does_not_stop_discovery(tmp_path: Path) -> None:
    """createdAt is a `number` in HeaderLine: 1e30 (or -1, NaN-free but out of range) must not
    raise out of discover() and lose every other session of the root."""
    root = tmp_path / ".deepseek" / "sessions"
    _jsonl(root / "huge.jsonl", [_hdr("huge", 1e30)])
    _jsonl(root / "neg.jsonl", [_hdr("neg", -5)])
    _jsonl(root / "ok.jsonl", [_hdr("ok", 1767261600000)])
    found = discover(tmp_path)
    assert set(found) == {k("huge"), k("neg"), k("ok")}
    assert found[k("huge")].created_at is None and found[k("neg")].created_at is None
    assert found[k("ok")].created_at == "2026-01-01T10:00:00Z"
    assert [a.path for a in found[k("huge")].sources] == [".deepseek/sessions/huge.jsonl"]


def test_a_seeded_copy_without_marker_does_not_take_its_sources_children(tmp_path: Path) -> None:
    root = tmp_path / ".deepseek" / "sessions"
    cat = _ev("subagent/catalog", 1, {"version": 0, "mode": "one-shot", "childId": "kid", "childCreatedAt": 1})
    _jsonl(root / "zz-parent.jsonl", [_hdr("parent", 1767261600000), cat])
    _jsonl(root / "aa-copy.jsonl", [_hdr("copy", 1767261900000, isSeeded=True), cat])  # listed first by path
    _jsonl(root / "kid.jsonl", [_hdr("kid", 1767261601000, origin="subagent", delegationDepth=1)])
    assert discover(tmp_path)[k("kid")].parents == [LineageEdge(relation="subagent", parent=k("parent"), at="seq=1")]
