"""s20: a DeepSeek agent team written from the persistence catalog (seeds/003_37255de69aaa2bf4.txt).

Catalog records used: `team/member` {version: 2, teamId, member: TeamMemberSnapshot {context:
"fork" | "fresh", description, error?, id, name, phase, provider}} ("stored only in the Team Lead
Session"), `team/task` {version: 2, teamId, task: TeamTaskSnapshot}, `team/message/queued`
{version: 2, teamId, message: TeamMessageSnapshot {content, id, senderId, senderName, targetId}},
`team/message/delivered` {version: 2, teamId, messageId, targetId: SessionId}, and the
TeamMessageSource {kind: "team-message", teamId, messageId, senderId, senderName} of a message
delivered into a session; `session/end-seed` {inherited: true} at a fork's inherited-prefix cut.

No tests here. `build_team` writes a HOME and returns the sessions' ids, files and the edges
discovery must find: (relation, parent id, at, inferred) per session.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.fx_s17_e2e import T0, ev, jl

TEAM = "team-7f3a"
LEAD, FRESH, FORKED, LEAD_FORK, STRAY, GONE, GONE_LEAD = (
    "ds-lead-01", "ds-mate-fresh-02", "ds-mate-fork-03", "ds-lead-fork-04", "ds-stray-05", "ds-mate-gone-06",
    "ds-lead-gone-07")
Edge = tuple[str, str, str | None, bool]  # (relation, parent id, at, inferred)


def header(sid: str, created: int, **kw: Any) -> dict[str, Any]:
    return {"type": "session", "version": 3, "id": sid, "createdAt": created, "cwd": "/w/team-proj",
            "isSeeded": False, "delegationDepth": 0, **kw}


def member(seq: int, mid: str, context: str, phase: str = "provisioning") -> dict[str, Any]:
    return ev(seq, "team/member", {"version": 2, "teamId": TEAM, "member": {
        "id": mid, "name": f"mate {mid[-2:]}", "description": "reviews the parser", "context": context,
        "phase": phase, "provider": "deepseek"}})


def team_source(sender: str, mid: str) -> dict[str, Any]:
    return {"kind": "team-message", "teamId": TEAM, "messageId": mid, "senderId": sender, "senderName": "lead"}


def user(seq: int, text: str, source: dict[str, Any] | None = None) -> dict[str, Any]:
    return ev(seq, "user/message", {"id": f"u{seq}", "role": "user", "content": [{"type": "text", "text": text}],
                                    "source": source or {"kind": "human"}}, surfaceOp="append")


def turn(start: int, text: str) -> list[dict[str, Any]]:
    return [ev(start, "turn/start", {"turn": 1}), user(start + 1, text),
            ev(start + 2, "turn/end", {"turn": 1, "reason": "completed"})]


def inbox(seq: int, sender: str, mid: str) -> dict[str, Any]:
    """A team message delivered into a session's inbox (agent/inbox/spliced data.inserted[])."""
    return ev(seq, "agent/inbox/spliced", {"target": "next-turn", "start": 0, "inserted": [{
        "id": f"i{seq}", "role": "user", "content": [{"type": "text", "text": "please check the tokenizer"}],
        "source": team_source(sender, mid)}]})


def lead_events() -> list[dict[str, Any]]:
    """The lead: a fresh teammate (seq 4, again at 9 when active), a fork-context one (seq 5), one
    whose file is not on this machine (seq 6), a task, a message queued and delivered, a reply."""
    return [
        *turn(1, "split the parser work"),
        member(4, FRESH, "fresh"),
        member(5, FORKED, "fork"),
        member(6, GONE, "fresh"),
        ev(7, "team/task", {"version": 2, "teamId": TEAM, "task": {
            "id": "task-1", "subject": "tokenizer", "description": "fix it", "status": "pending", "revision": 1,
            "ownerId": FRESH, "blockedBy": [], "writeScopes": ["src/tok"]}}),
        ev(8, "team/message/queued", {"version": 2, "teamId": TEAM, "message": {
            "id": "m1", "senderId": LEAD, "senderName": "lead", "targetId": FRESH,
            "content": [{"type": "text", "text": "please check the tokenizer"}]}}),
        member(9, FRESH, "fresh", "active"),
        ev(10, "team/message/delivered", {"version": 2, "teamId": TEAM, "messageId": "m1", "targetId": FRESH}),
        inbox(11, FRESH, "m2"),  # the fresh teammate's reply, delivered into the lead
        *turn(12, "thanks"),
    ]


@dataclass
class TeamHome:
    home: Path
    root: Path
    files: dict[str, Path] = field(default_factory=dict)
    edges: dict[str, list[Edge]] = field(default_factory=dict)
    kinds: dict[str, str] = field(default_factory=dict)


def build_team(home: Path) -> TeamHome:
    root = home / ".deepseek" / "sessions"
    t = TeamHome(home=home, root=root)
    lead = lead_events()

    def put(rel: str, sid: str, recs: list[dict[str, Any]], kind: str, edges: list[Edge]) -> None:
        fp = root / rel
        fp.parent.mkdir(parents=True, exist_ok=True)
        fp.write_bytes(jl(*recs))
        t.files[sid], t.kinds[sid], t.edges[sid] = fp, kind, edges

    put(f"team-proj/{LEAD}.jsonl", LEAD, [header(LEAD, T0), *lead], "main", [])
    # fresh context: its own history only, the lead's message in its inbox; named first at seq 4
    put(f"team-proj/{FRESH}.jsonl", FRESH, [header(FRESH, T0 + 1000), inbox(1, LEAD, "m1"), *turn(2, "on it")],
        "subagent", [("subagent", LEAD, "seq=4", False)])
    # fork context: the lead's first 5 events (its own member record and the fresh one's included), its cut
    put(f"team-proj/{FORKED}.jsonl", FORKED, [header(FORKED, T0 + 2000, isSeeded=True), *lead[:5],
                                              ev(6, "session/end-seed", {"inherited": True}), *turn(7, "forked")],
        "fork", [("fork", LEAD, "seq=6", False)])
    # a fork of the lead: inherits every team record, then its cut; it is nobody's lead
    put(f"{LEAD_FORK}.jsonl", LEAD_FORK, [header(LEAD_FORK, T0 + 60_000, isSeeded=True), *lead,
                                          ev(15, "session/end-seed", {"inherited": True}), *turn(16, "other way")],
        "fork", [("fork", LEAD, "seq=15", True)])
    # a teammate whose lead is not on this machine: messages from it, no edge
    put(f"elsewhere/{STRAY}.jsonl", STRAY, [header(STRAY, T0 + 3000), inbox(1, GONE_LEAD, "m9"), *turn(2, "alone")],
        "main", [])
    return t
