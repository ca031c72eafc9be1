"""s14 seed-conformance audit, Cursor agent CLI (seeds/by-harness/cursor-agent.json; map in
docs/seeds/cursor-agent.md): the items no earlier test exercised.

Fixtures are written by this file's own generator, following the seed: store.db with tables
meta(key, value = hex of UTF-8 JSON) and blobs(id = sha256 hex, data), WAL mode; a root
ConversationStateStructure (1 root_prompt_messages_json, 8 turns, 16 subagent_states,
30 subagent_runs_by_parent_tool_call_id, 31 subagent_state_refs), ConversationTurnStructure
(1 agent_conversation_turn {1 user_message, 2 steps}), UserMessage (1 text,
10 conversation_state_blob_id = the root before the turn, the rewind anchor).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from archiver.harnesses.base import HarnessContext
from archiver.harnesses.cursor_agent import CursorAgent
from tests.fx_s11_e2e import KEEP_OPEN, Canaries, build_in_child, decrypt_all, latest_manifest, leaks, sessions_by_key, setup
from tests.test_s11_e2e_cursor import Store as S11Store
from tests.test_s11_e2e_cursor import ld, mapent, u  # the protobuf writer of the s11 Cursor e2e

K = "cursor-agent:"
P = "11111111-1111-4111-8111-111111111111"  # a chat
C = "22222222-2222-4222-8222-222222222222"  # its /fork
S1 = "33333333-3333-4333-8333-333333333333"  # P's subagent (subagent_state_refs)
S2 = "44444444-4444-4444-8444-444444444444"  # S1's own subagent (inline in S1's state)
CWD = "/home/alice/src/shop"
T0 = 1767261600000


class Store(S11Store):
    """A chat's store.db as the CLI writes it (the s11 e2e's writer), with turns and roots."""

    def turn(self, text: str, anchor: bytes | None) -> bytes:
        """A user turn: UserMessage (10 = the root before it) and one assistant step."""
        usr = self.put(ld(1, text) + (ld(10, anchor) if anchor else b""))
        step = self.put(ld(1, ld(1, f"answer to {text}")))
        return self.put(ld(1, ld(1, usr) + ld(2, step)))

    def root(self, turns: list[bytes], extra: bytes = b"") -> bytes:
        return self.put(b"".join(ld(8, t) for t in turns) + extra)


def _ws(home: Path) -> Path:
    return home / ".cursor" / "chats" / hashlib.md5(CWD.encode()).hexdigest()


def _meta_json(folder: Path, title: str, created: int) -> None:
    (folder / "meta.json").write_text(json.dumps({"schemaVersion": 1, "createdAtMs": created, "hasConversation": True,
                                                  "title": title, "cwd": CWD}))


def _fork_home(home: Path, rewind: bool) -> dict[str, str]:
    """P: turns q1, q2 (roots r0 empty, r1, r2); C = /fork of P at r2 (every blob copied, same
    root, '<name> (forked)', later createdAt) with a turn of its own. With `rewind`, P is then
    rewound to r0 (before q1) and asked again: r1 and r2 stay in P's table as unreachable rows."""
    sp = Store(_ws(home) / P / "store.db", {"agentId": P, "latestRootBlobId": "", "name": "Checkout bug",
                                             "createdAt": T0, "mode": "default", "isRunEverything": False})
    r0 = sp.root([])
    t1 = sp.turn("q1", r0)
    r1 = sp.root([t1])
    t2 = sp.turn("q2", r1)
    r2 = sp.root([t1, t2])
    sp.set_meta(dict(sp.meta, latestRootBlobId=r2.hex()))
    sc = Store(_ws(home) / C / "store.db", dict(sp.meta, agentId=C, name="Checkout bug (forked)", createdAt=T0 + 60_000))
    for v in list(sp.blobs.values()):
        sc.put(v)
    r3 = sc.root([t1, t2, sc.turn("q3 in the fork", r2)])
    sc.set_meta(dict(sc.meta, latestRootBlobId=r3.hex()))
    if rewind:
        again = sp.turn("q1 asked again", r0)
        sp.set_meta(dict(sp.meta, latestRootBlobId=sp.root([again]).hex()))
    _meta_json(_ws(home) / P, "Checkout bug", T0)
    _meta_json(_ws(home) / C, "Checkout bug (forked)", T0 + 60_000)
    for st in (sp, sc):
        st.conn.close()
    return {"r1": r1.hex(), "r2": r2.hex()}


def _discover(home: Path, cache: dict[str, str] | None = None) -> dict[str, Any]:
    ctx = HarnessContext(home=home, env={}, cache=cache if cache is not None else {})
    return {s.key: s for s in CursorAgent(ctx).discover()}


def _edges(s: Any) -> list[tuple[str, str, str | None, bool]]:
    return [(e.relation, e.parent, e.at, e.inferred) for e in s.parents]


def test_fork_found_from_the_shared_reachable_root(tmp_path: Path) -> None:
    """The baseline the rewind case must match: the fork point is P's r2, reachable in both."""
    roots = _fork_home(tmp_path, rewind=False)
    found = _discover(tmp_path)
    assert _edges(found[K + C]) == [("fork", K + P, roots["r2"], True)]


def test_fork_is_linked_after_its_source_rewound_past_the_fork_point(tmp_path: Path) -> None:
    """Seed linking "forks": lineage only from shared blob ids/roots; "branches/rewind": rewind
    sets the root back and the rewound-away blobs stay as unreachable rows. After P rewound to
    before the fork point, no root P still reaches is one of C's: the fork's source is then
    the older chat whose table holds C's latest turned root as a row."""
    roots = _fork_home(tmp_path, rewind=True)
    cache: dict[str, str] = {}
    found = _discover(tmp_path, cache)
    fork = found[K + C]
    assert fork.kind == "fork"
    assert _edges(fork) == [("fork", K + P, roots["r2"], True)]
    assert any("rewound away there" in w for w in fork.warnings)
    assert found[K + P].kind == "main" and found[K + P].parents == []
    # the answer is cached per state of both stores, and a warm run gives the same edge
    assert any(k.startswith("cursor-agent:fork-rows:") for k in cache)
    assert _edges(_discover(tmp_path, cache)[K + C]) == [("fork", K + P, roots["r2"], True)]


def test_a_chat_not_named_forked_is_not_linked_from_rows(tmp_path: Path) -> None:
    """Only a chat named '<name> (forked)' is looked up in other stores' rows (every lookup opens
    a store); another chat that merely shares blobs stays unlinked."""
    _fork_home(tmp_path, rewind=True)
    db = _ws(tmp_path) / C / "store.db"
    with sqlite3.connect(db) as conn:
        meta = json.loads(bytes.fromhex(conn.execute("SELECT value FROM meta").fetchone()[0]))
        conn.execute("UPDATE meta SET value = ?", (json.dumps(dict(meta, name="Renamed")).encode().hex(),))
    _meta_json(_ws(tmp_path) / C, "Renamed", T0 + 60_000)
    assert _discover(tmp_path)[K + C].parents == []


def test_subagent_of_a_subagent_is_linked_to_that_subagent(tmp_path: Path) -> None:
    """Seed linking "subagents": each SubagentPersistedState has its own
    ConversationStateStructure, which can name subagents of its own (16/31), with their run in
    its own field 30. The inner one is a session whose parent is the outer subagent, and the
    mirror under agent-transcripts/<chat>/subagents/<id>.jsonl goes with it."""
    sp = Store(_ws(tmp_path) / P / "store.db", {"agentId": P, "latestRootBlobId": "", "name": "x", "createdAt": T0})
    s2_state = sp.blobs.pop(sp.root([sp.turn("s2 task", None)]).hex())
    s1_state = (ld(8, sp.turn("s1 task", None)) + mapent(16, S2, ld(1, s2_state) + u(2, T0 + 20))
                + mapent(30, "tool_s2", ld(1, "tool_s2") + ld(2, S2)))
    s1 = sp.put(ld(1, s1_state) + u(2, T0 + 10))
    root = sp.root([sp.turn("q", None)], mapent(31, S1, s1) + mapent(30, "tool_s1", ld(1, "tool_s1") + ld(2, S1)))
    sp.set_meta(dict(sp.meta, latestRootBlobId=root.hex()))
    sp.conn.close()
    _meta_json(_ws(tmp_path) / P, "x", T0)
    mirrors = tmp_path / ".cursor" / "projects" / "home-alice-src-shop" / "agent-transcripts" / P / "subagents"
    mirrors.mkdir(parents=True)
    (mirrors / f"{S2}.jsonl").write_text(json.dumps({"role": "user", "message": {"content": []}}) + "\n")
    found = _discover(tmp_path)
    assert _edges(found[K + S1]) == [("subagent", K + P, "tool_s1", False)]
    assert _edges(found[K + S2]) == [("subagent", K + S1, "tool_s2", False)]
    assert found[K + S2].kind == "subagent"
    assert [(a.path, a.shared) for a in found[K + S2].sources] == [
        (f".cursor/chats/{_ws(tmp_path).name}/{P}/store.db", True),
        (f".cursor/projects/home-alice-src-shop/agent-transcripts/{P}/subagents/{S2}.jsonl", False),
    ]
    assert {s.session_id for s in found.values()} == {P, S1, S2}  # no orphan-mirror session


# ---------------------------------------------------------------- archived bytes


def _attachments_home(home: Path, k: Canaries) -> dict[str, Any]:
    """A chat whose user prompt message (JSON blob) carries a text file attached as
    {__type:'Uint8Array', hex} (seed contentBlocks "json part / file": byte arrays are stored
    as hex) and a user message whose turn anchors nothing. WAL left live by build_in_child."""
    cwd = k.path("cwd", "shop")
    ws = home / ".cursor" / "chats" / hashlib.md5(cwd.encode()).hexdigest()
    st = Store(ws / P / "store.db", {"agentId": P, "latestRootBlobId": "", "name": "attach", "createdAt": T0})
    KEEP_OPEN.append(st.conn)
    notes = f"contact: {k.parts('file.email')['email']}\nhome: {k.path('file.path', 'x.txt')}\n".encode()
    q = st.put(json.dumps({"role": "user", "content": [
        {"type": "text", "text": "see the attached notes"},
        {"type": "file", "filename": "notes.txt", "mimeType": "text/plain",
         "data": {"__type": "Uint8Array", "hex": notes.hex()}}]}))
    root = st.root([st.turn("see the attached notes", None)], ld(1, q))
    st.set_meta(dict(st.meta, latestRootBlobId=root.hex()))
    (ws / P / "meta.json").write_text(json.dumps({"schemaVersion": 1, "createdAtMs": T0, "hasConversation": True,
                                                  "title": "attach", "cwd": cwd}))
    return {"hex_of_notes": notes.hex()}


@pytest.fixture(scope="module")
def synced_attachments(tmp_path_factory: pytest.TempPathFactory) -> Any:
    tmp = tmp_path_factory.mktemp("cursor-attach")
    s = setup(tmp, "cursor-agent")
    built = build_in_child(_attachments_home, s.home, tmp / "built.json")
    r = s.cli("sync")
    assert r.returncode == 0, r.stderr[-2000:]
    return built, decrypt_all(s)


def test_an_attached_text_file_stored_as_hex_is_redacted_in_the_archived_store(synced_attachments: Any) -> None:
    """Seed: attachments are JSON parts whose bytes are {__type:'Uint8Array', hex}; a text file's
    e-mail and home path are private data the archive must not hold, hex-encoded or not."""
    built, plain = synced_attachments
    man = latest_manifest(plain)
    assert K + P in sessions_by_key(man)
    assert leaks(plain, built["needles"]) == []
    assert not any(built["facts"]["hex_of_notes"].encode() in data for data in plain.values())
