"""Cursor blob graphs kept in HarnessContext.cache between runs (archiver/demo/cursor_sample.py homes)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from archiver.demo.cursor_sample import (
    ACP,
    CHAT1,
    CHAT2,
    FORK,
    SUB1,
    SUBSTORE,
    T0,
    blob_id,
    close_cursor_home,
    fb,
    fmap,
    fv,
    make_cursor_home,
)
from archiver.harnesses import cursor_agent
from archiver.harnesses.base import HarnessContext
from archiver.harnesses.cursor_agent import (
    CursorAgent,
    StoreGraph,
    SubagentRef,
    _graph_from_json,
    _graph_to_json,
    decode_meta,
    read_store,
)
from archiver.model import DiscoveredSession

K = "cursor-agent:"
PREFIX = "cursor-agent:graph:v2:"
SUB3 = "cccccccc-cccc-4ccc-8ccc-cccccccccccc"
BAD = "77777777-7777-4777-8777-777777777777"


@pytest.fixture()
def home(tmp_path: Path) -> Iterator[tuple[Path, dict[str, Any]]]:
    info = make_cursor_home(tmp_path)
    yield tmp_path, info
    close_cursor_home(info)


def discover(home: Path, cache: dict[str, str]) -> list[DiscoveredSession]:
    return list(CursorAgent(HarnessContext(home=home, env={}, cache=cache)).discover())


def stores(info: dict[str, Any]) -> dict[str, Path]:
    """owner -> store.db of every chat the sample home has."""
    return {
        CHAT1: info["chat1_store"],
        FORK: info["fork_store"],
        CHAT2: info["chat2_store"],
        SUBSTORE: info["substore_store"],
        ACP: info["acp_store"],
    }


def key_of(cache: dict[str, str], store: Path, owner: str) -> str:
    keys = [k for k in cache if k.startswith(f"{PREFIX}{store}:{owner}:")]
    assert len(keys) == 1, keys
    return keys[0]


def count_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Owners read_store is called for from now on (the real read still happens)."""
    owners: list[str] = []

    def counting(db: Path, owner: str | None = None) -> StoreGraph:
        owners.append(str(owner))
        return read_store(db, owner)

    monkeypatch.setattr(cursor_agent, "read_store", counting)
    return owners


def by_key(found: list[DiscoveredSession]) -> dict[str, DiscoveredSession]:
    return {s.key: s for s in found}


def unreachable_warnings(s: DiscoveredSession) -> list[str]:
    return [w for w in s.warnings if "unreachable blobs archived" in w]


def test_cold_and_warm_discovery_are_equal(home: tuple[Path, dict[str, Any]], monkeypatch: pytest.MonkeyPatch) -> None:
    h, info = home
    uncached = discover(h, {})
    cache: dict[str, str] = {}
    reads = count_reads(monkeypatch)
    cold = discover(h, cache)
    assert sorted(reads) == sorted(stores(info))
    assert cold == uncached
    assert len(cold) == 9
    # one entry per store, keyed by path, owner and the identity of store.db + its -wal
    assert sorted(cache) == sorted(key_of(cache, p, o) for o, p in stores(info).items())
    db = info["chat1_store"]
    st, wst = db.stat(), db.with_name("store.db-wal").stat()
    assert wst.st_size > 0  # chat1's last transaction is only in -wal
    assert key_of(cache, db, CHAT1) == (
        f"{PREFIX}{db}:{CHAT1}:{st.st_ino}:{st.st_size}:{st.st_mtime_ns}:{wst.st_size}:{wst.st_mtime_ns}"
    )
    # every cached graph decodes to exactly what a fresh read gives (sets, tuples, dataclasses),
    # but for `reachable`, of which only the latest root is kept
    for owner, path in stores(info).items():
        fresh = read_store(path, owner)
        fresh.reachable &= {fresh.latest_root}
        assert _graph_from_json(cache[key_of(cache, path, owner)]) == fresh, owner
    snapshot = dict(cache)
    reads.clear()
    warm = discover(h, cache)
    assert reads == []
    assert warm == cold
    assert cache == snapshot


def test_warm_cache_does_not_open_any_store(home: tuple[Path, dict[str, Any]], monkeypatch: pytest.MonkeyPatch) -> None:
    h, info = home
    chat2_wal = info["chat2_store"].with_name("store.db-wal")
    assert not chat2_wal.exists()  # its writer closed
    cache: dict[str, str] = {}
    cold = discover(h, cache)
    # a closed WAL store is read without writing beside it: no -wal or -shm of ours appears
    assert not chat2_wal.exists() and not chat2_wal.with_name("store.db-shm").exists()
    assert key_of(cache, info["chat2_store"], CHAT2).endswith(":nowal")

    def refuse(*a: Any, **kw: Any) -> Any:
        raise AssertionError("store opened with a warm cache")

    monkeypatch.setattr(cursor_agent, "read_store", refuse)
    monkeypatch.setattr(cursor_agent, "open_store", refuse)
    warm = discover(h, cache)
    assert warm == cold
    s = by_key(warm)[K + CHAT1]
    assert unreachable_warnings(s) and unreachable_warnings(s)[0].startswith("6 unreachable blobs archived")
    assert not [w for w in s.warnings if "not read" in w or "unreadable" in w], s.warnings


def test_commit_kept_in_wal_invalidates(home: tuple[Path, dict[str, Any]], monkeypatch: pytest.MonkeyPatch) -> None:
    h, info = home
    cache: dict[str, str] = {}
    cold = by_key(discover(h, cache))
    assert K + SUB3 not in cold
    assert unreachable_warnings(cold[K + CHAT1])[0].startswith("6 unreachable")
    db: Path = info["chat1_store"]
    before = db.stat()
    # the writer (wal_autocheckpoint=0, still open) commits a new root with one more subagent
    conn: sqlite3.Connection = info["connections"][0]
    root1 = info["root1"]
    data = bytes(conn.execute("SELECT data FROM blobs WHERE id = ?", (root1,)).fetchone()[0])
    new_root = data + fmap(16, SUB3, fb(1, b"") + fv(2, T0 + 50_000) + fv(3, T0 + 60_000))
    meta = decode_meta(conn.execute("SELECT value FROM meta WHERE key = '0'").fetchone()[0])
    meta["latestRootBlobId"] = blob_id(new_root)
    conn.execute("BEGIN")
    conn.execute("INSERT INTO blobs (id, data) VALUES (?, ?)", (blob_id(new_root), new_root))
    conn.execute("UPDATE meta SET value = ? WHERE key = '0'", (orjson.dumps(meta).hex(),))
    conn.execute("COMMIT")
    after = db.stat()
    assert (after.st_ino, after.st_size, after.st_mtime_ns) == (before.st_ino, before.st_size, before.st_mtime_ns)

    reads = count_reads(monkeypatch)
    warm = by_key(discover(h, cache))
    assert reads == [CHAT1]  # only the store that changed is read again
    assert warm[K + SUB3].kind == "subagent"
    assert [(e.relation, e.parent) for e in warm[K + SUB3].parents] == [("subagent", K + CHAT1)]
    assert warm[K + SUB3].created_at == "2025-10-09T08:54:10Z"
    assert unreachable_warnings(warm[K + CHAT1])[0].startswith("7 unreachable")  # root1 is superseded
    assert warm[K + SUB1] == cold[K + SUB1]
    assert len([k for k in cache if k.startswith(f"{PREFIX}{db}:")]) == 2  # old entry kept until the sync flushes
    reads.clear()
    assert by_key(discover(h, cache)) == warm
    assert reads == []


@pytest.mark.parametrize(
    "bad",
    [
        "not json",
        "{}",
        "[]",
        "null",
        "corrupt-reachable",  # right keys, a string where the id list belongs
        "corrupt-subagent",  # a SubagentRef without its fields
        "corrupt-terminals",  # terminal refs that are not (slug, file) pairs
    ],
)
def test_corrupt_cache_value_is_a_miss(home: tuple[Path, dict[str, Any]], monkeypatch: pytest.MonkeyPatch, bad: str) -> None:
    h, info = home
    cache: dict[str, str] = {}
    cold = discover(h, cache)
    db = info["chat1_store"]
    key = key_of(cache, db, CHAT1)
    good = cache[key]
    if bad.startswith("corrupt-"):
        d = orjson.loads(good)
        if bad == "corrupt-reachable":
            d["reachable"] = info["root1"]
        elif bad == "corrupt-subagent":
            d["subagents"][SUB1] = {"subagent_id": SUB1}
        else:
            d["terminal_refs"][CHAT1] = [["only-one"]]
        bad = orjson.dumps(d).decode()
    cache[key] = bad
    reads = count_reads(monkeypatch)
    assert discover(h, cache) == cold
    assert reads == [CHAT1]
    assert cache[key] == good


def test_unreadable_store_is_reported_and_not_cached(home: tuple[Path, dict[str, Any]], monkeypatch: pytest.MonkeyPatch) -> None:
    h, info = home
    chats = info["root"] / "chats" / info["md5_b"]
    bad = chats / BAD
    bad.mkdir()
    (bad / "store.db").write_bytes(b"this is not a database" * 100)
    nometa = chats / "88888888-8888-4888-8888-888888888888"
    nometa.mkdir()
    conn = sqlite3.connect(nometa / "store.db")
    conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
    conn.execute("CREATE TABLE blobs (id TEXT PRIMARY KEY, data BLOB)")
    conn.commit()
    conn.close()
    expected = {
        K + BAD: f".cursor/chats/<workspace>/{BAD}/store.db: blob graph not read (DatabaseError: file is not a database)",
        K + nometa.name: f".cursor/chats/<workspace>/{nometa.name}/store.db: blob graph not read (ValueError: meta row '0' missing)",
    }
    cache: dict[str, str] = {}
    reads = count_reads(monkeypatch)
    for run in range(2):  # the second run reads only the failed two again: failures are not cached
        reads.clear()
        found = by_key(discover(h, cache))
        for k, warning in expected.items():
            assert warning in found[k].warnings, found[k].warnings
        assert sorted(reads) == sorted([BAD, nometa.name, *(stores(info) if run == 0 else [])])
        assert not [k for k in cache if BAD in k or nometa.name in k]
        assert len(cache) == 5  # the readable stores
        assert found[K + CHAT1].kind == "main" and K + SUB1 in found


def test_write_during_the_read_is_not_cached(home: tuple[Path, dict[str, Any]], monkeypatch: pytest.MonkeyPatch) -> None:
    h, info = home
    conn: sqlite3.Connection = info["connections"][0]

    def read_then_write(db: Path, owner: str | None = None) -> StoreGraph:
        g = read_store(db, owner)
        if owner == CHAT1:  # the agent commits right after our consistent read
            conn.execute("INSERT INTO blobs (id, data) VALUES (?, ?)", (blob_id(b"late"), b"late"))
        return g

    monkeypatch.setattr(cursor_agent, "read_store", read_then_write)
    cache: dict[str, str] = {}
    first = by_key(discover(h, cache))
    assert unreachable_warnings(first[K + CHAT1])[0].startswith("6 unreachable")
    assert not [k for k in cache if k.startswith(f"{PREFIX}{info['chat1_store']}:")]
    assert len(cache) == 4
    reads = count_reads(monkeypatch)
    second = by_key(discover(h, cache))
    assert reads == [CHAT1]
    assert unreachable_warnings(second[K + CHAT1])[0].startswith("7 unreachable")  # the late blob


def test_graph_json_round_trip() -> None:
    g = StoreGraph(
        meta={"agentId": "x", "nested": {"a": [1, 2.5, None, True]}, "big": 1.5e21},
        latest_root="r",
        reachable={"r", "a", "b"},
        turned_roots={"r"},
        root_order=["a", "r"],
        subagents={
            "s2": SubagentRef("s2", "x", "subagent_state_refs", 2, 3, "tool_1"),
            "s1": SubagentRef("s1", "x", "subagent_states"),
        },
        terminal_refs={"x": {("proj", "1.txt"), ("proj", "2.txt")}, "s1": {("p", "3.txt")}},
        workspace_uris=["file:///w"],
        total_blobs=9,
        unreachable=4,
        missing=1,
    )
    value = _graph_to_json(g)
    assert value is not None
    back = _graph_from_json(value)
    assert back is not None and back.reachable == {"r"} and back.has_root
    back.reachable = g.reachable
    assert back == g
    assert back is not None and list(back.subagents) == ["s2", "s1"]  # discovery yields in this order
    assert isinstance(back.reachable, set) and all(isinstance(t, tuple) for t in back.terminal_refs["x"])
    g.reachable = {"a"}  # the latest root unreachable: so it stays
    back = _graph_from_json(_graph_to_json(g) or "")
    assert back is not None and back.reachable == set() and not back.has_root
    g.meta["huge"] = 2**70  # orjson cannot write it: not cached rather than an error
    assert _graph_to_json(g) is None
