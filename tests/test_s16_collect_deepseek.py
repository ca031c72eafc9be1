"""DeepSeek harness: a subagent's parent recovered from the parent's records when the header names
none (persistence catalog, seeds/003_37255de69aaa2bf4.txt: HeaderLine.parentSession is optional;
a UserMessage's `source` may be a SubagentSettledMessageSource {form: "notice", kind:
"subagent-settled", senderSessionId, summary}, the notice a settled child delivers to its parent,
in the parent's `user/message` or `agent/inbox/spliced` data.inserted[])."""

from __future__ import annotations

from pathlib import Path

from archiver.harnesses.base import HarnessContext, load_harness
from archiver.model import LineageEdge
from tests.test_harness_deepseek import H, _ev, _hdr, _jsonl, discover, k

T0 = 1767261600000


def _msg(mid: str, source: dict) -> dict:
    """A UserMessage {id, role: "user", content: ContentBlock[], source: MessageSource}."""
    return {"id": mid, "role": "user", "content": [{"type": "text", "text": "done: 3 files reviewed"}], "source": source}


def _settled(child: str) -> dict:
    return {"form": "notice", "kind": "subagent-settled", "senderSessionId": child, "summary": "reviewed"}


def _home(root: Path) -> None:
    parent_events = [
        _ev("turn/start", 1, {"turn": 1}),
        _ev("user/message", 2, _msg("u1", {"kind": "user"}), surfaceOp="append"),
        # the settled notice delivered straight into history
        _ev("user/message", 3, _msg("u2", _settled("kid-1")), surfaceOp="append"),
        # and one still pending in the inbox
        _ev("agent/inbox/spliced", 4, {"target": "next-turn", "start": 0,
                                       "inserted": [_msg("u3", {"kind": "user"}), _msg("u4", _settled("kid-2"))]}),
        # a relay names a session on either side: not a parent link
        _ev("agent/inbox/spliced", 5, {"target": "next-step", "start": 0,
                                       "inserted": [_msg("u5", {"form": "relay", "kind": "agent-message",
                                                                "senderSessionId": "peer"})]}),
        _ev("turn/end", 6, {"turn": 1, "reason": "completed"}),
    ]
    _jsonl(root / "parent.jsonl", [_hdr("parent", T0)] + parent_events)
    # a fork inherits the notices with the rest of the prefix: it is not their parent
    _jsonl(root / "fork.jsonl", [_hdr("fork", T0 + 500_000, isSeeded=True)] + parent_events
           + [_ev("session/end-seed", 7, {"inherited": True})])
    _jsonl(root / "kid-1.jsonl", [_hdr("kid-1", T0 + 1000, origin="subagent", delegationDepth=1),
                                  _ev("subagent/descriptor", 1, {"mode": "one-shot", "provider": "p", "version": 1})])
    _jsonl(root / "kid-2.jsonl", [_hdr("kid-2", T0 + 2000, delegationDepth=1)])
    _jsonl(root / "peer.jsonl", [_hdr("peer", T0 + 3000)])


def test_subagent_settled_notices_name_the_real_parent(tmp_path: Path) -> None:
    _home(tmp_path / ".deepseek" / "sessions")
    found = discover(tmp_path)
    assert found[k("kid-1")].kind == "subagent"
    # a settled notice marks where the child ended, not where it started: no `at`
    assert found[k("kid-1")].parents == [LineageEdge(relation="subagent", parent=k("parent"), at=None)]
    assert found[k("kid-1")].warnings == []
    assert found[k("kid-2")].kind == "subagent"
    assert found[k("kid-2")].parents == [LineageEdge(relation="subagent", parent=k("parent"), at=None)]
    assert found[k("peer")].kind == "main" and found[k("peer")].parents == []
    assert found[k("fork")].parents == [LineageEdge(relation="fork", parent=k("parent"), at="seq=7", inferred=True)]
    assert found[k("parent")].parents == []


def test_the_discovery_cache_keeps_the_notice_children(tmp_path: Path) -> None:
    _home(tmp_path / ".deepseek" / "sessions")
    cache: dict[str, str] = {}
    for _ in range(2):  # the second run reads every scan from the cache
        found = {s.key: s for s in load_harness(H, HarnessContext(home=tmp_path, env={}, cache=cache)).discover()}
        assert found[k("kid-2")].parents == [LineageEdge(relation="subagent", parent=k("parent"), at=None)]
    assert any(key.startswith("deepseek-harness:scan3:") for key in cache)


def test_a_scan_cached_before_notices_counted_is_not_reused(tmp_path: Path) -> None:
    """A cache entry from the previous collector (key "deepseek-harness:scan:", children from
    catalog records only) must not hide the notice children after an upgrade."""
    _home(tmp_path / ".deepseek" / "sessions")
    cache: dict[str, str] = {}
    list(load_harness(H, HarnessContext(home=tmp_path, env={}, cache=cache)).discover())
    old = {key.replace(":scan3:", ":scan:", 1): value.replace('"kid-1"', '"x"').replace('"kid-2"', '"x"')
           for key, value in cache.items()}
    found = {s.key: s for s in load_harness(H, HarnessContext(home=tmp_path, env={}, cache=old)).discover()}
    assert found[k("kid-2")].parents == [LineageEdge(relation="subagent", parent=k("parent"), at=None)]
