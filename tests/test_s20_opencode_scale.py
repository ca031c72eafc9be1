"""OpenCode at scale: per-session lookups through an index in the private snapshot.

The snapshot a run takes of opencode.db gets an index on each column a session's rows are
looked up by that SQLite would otherwise scan (1.x message, session_inbox, session_pending,
event by aggregate_id, ...). What each test holds:
- fingerprints (read_facts) and extract bytes equal a straightforward per-session reference
  read from a copy without those indexes (full scans), on a database with 1.x and 2.x tables,
  sessions with no rows in some tables, NULL / BLOB / other-case keys, a session id that is
  also another table's key, a NOCASE key column;
- no extract holds the archiver's index, and each extract's schema is the database's own;
- every statement a session's extract and fingerprint run reads through an index (EXPLAIN
  QUERY PLAN: SEARCH), but the whole-table context (migrations);
- the live database is not written."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path
from typing import Any, Iterator

import pytest

import archiver.harnesses.opencode as opencode
from archiver.demo.opencode_sample import P1, P2, T0, Db, _assistant, _j
from archiver.harnesses.base import HarnessContext
from archiver.harnesses.common import sql_ident, sql_value_digest

S_FULL = "ses_0000000000aaFullFullFullFu"
S_BARE = "ses_0000000000bbBareBareBareBa"  # a session_v2 row and nothing else
S_SUB = "ses_0000000000ccSubSubSubSubSu"  # some tables only; its id is also a kv key and a blob hash
S_CASE = "ses_0000000000ddCaseCaseCaseCa"  # rows keyed by its id in other case / as a BLOB elsewhere
S_OLD = "ses_0000000000ee1xOnly1xOnly1x"  # a 1.x row session_v2 never imported
SESSIONS = (S_FULL, S_BARE, S_SUB, S_CASE, S_OLD)

EXTRA_SCHEMA = """
CREATE TABLE session_note (session_id TEXT COLLATE NOCASE, body TEXT);
CREATE TABLE session_diff (session_id, data BLOB);
"""


def _make_db(root: Path) -> Path:
    db = Db(root / "opencode.db")
    c = db.conn
    c.executescript(EXTRA_SCHEMA)
    db.project(P1, "/home/alice/work/app")
    db.project(P2, "/home/alice/src/api")
    db.project(S_SUB, "/home/alice/odd")  # a project whose id is a session id
    c.execute("INSERT INTO workspace VALUES ('wrk_a', ?, '/home/alice/work/app', ?)", (P1, T0))
    c.execute("INSERT INTO kv VALUES ('migration.v1-v2', ?, ?, ?)", (_j({"done": True}), T0, T0))
    c.execute("INSERT INTO kv VALUES (?, 'not a session row', ?, ?)", (S_SUB, T0, T0))
    c.execute("INSERT INTO instruction_blob VALUES (?, ?)", (S_SUB, _j("a body whose hash is a session id")))
    c.execute("INSERT INTO instruction_blob VALUES ('h1', ?)", (_j("Use pytest."),))
    c.execute("INSERT INTO credential VALUES ('cred_1', 'anthropic', 'never archived')")
    db.session(S_FULL, P1, "/home/alice/work/app", "full", T0, workspace_id="wrk_a")
    db.session(S_BARE, P2, "/home/alice/src/api", "bare", T0 + 1)
    db.session(S_SUB, S_SUB, "/home/alice/odd", "sub", T0 + 2, parent_id=S_FULL)
    db.session(S_CASE, P2, "/home/alice/src/api", "case", T0 + 3)
    for sid, n in ((S_FULL, 5), (S_SUB, 2), (S_CASE, 1)):
        for seq in range(1, n + 1):
            db.msg(f"msg_{sid[-6:]}{seq:04d}", sid, "assistant" if seq % 2 == 0 else "user", seq,
                   _assistant(f"answer {seq}", T0 + seq, completed=seq != 4) if seq % 2 == 0
                   else {"text": f"prompt {seq} of {sid}", "time": {"created": T0 + seq}})
    for k, sid in enumerate((S_FULL, S_FULL, S_SUB)):
        c.execute("INSERT INTO session_inbox VALUES (?, ?, 'user', ?, 'queue', 1, ?)",
                  (f"inb_{k}", sid, _j({"text": f"queued {k}"}), T0 + k))
    c.execute("INSERT INTO session_pending VALUES ('pnd_1', ?, ?)", (S_FULL, _j({"text": "pending"})))
    c.execute("INSERT INTO instruction_state VALUES (?, 0, 2, ?, ?)",
              (S_FULL, _j({"agents.md": "h1"}), _j({"agents.md": "h1", "odd.md": S_SUB})))
    c.execute("INSERT INTO instruction_state VALUES (?, 0, 1, '{}', '{}')", (S_SUB,))
    c.execute("INSERT INTO instruction_entry VALUES (?, 'style', ?, 0)", (S_FULL, _j("black")))
    for k, agg in enumerate((S_FULL, S_FULL, S_SUB, "prj_other_aggregate", S_CASE.upper())):
        c.execute("INSERT INTO event VALUES (?, ?, ?, ?, 'session.message', ?)", (f"evt_{k}", agg, k, T0 + k, _j({"k": k})))
    c.execute("INSERT INTO event_sequence VALUES (?, 2, NULL)", (S_FULL,))
    # 1.x leftovers: S_FULL imported, S_OLD never
    c.execute("INSERT INTO session VALUES (?, ?, NULL, 'r', '/home/alice/work/app', 'full', '1.4.0', ?, ?)", (S_FULL, P1, T0, T0))
    c.execute("INSERT INTO session VALUES (?, ?, NULL, 'r', '/home/alice/src/api', 'old', '1.4.0', ?, ?)", (S_OLD, P2, T0, T0))
    for k, sid in enumerate((S_FULL, S_OLD, S_OLD)):
        c.execute("INSERT INTO message VALUES (?, ?, ?, ?, ?)",
                  (f"msg_l{k}", sid, T0, T0, _j({"role": "assistant", "time": {"created": T0}})))
        c.execute("INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)",
                  (f"prt_l{k}", f"msg_l{k}", sid, T0, T0, _j({"type": "text", "text": f"legacy {k}"})))
    c.execute("INSERT INTO todo VALUES (?, 'write tests', 'pending', 'high', 0, ?, ?)", (S_OLD, T0, T0))
    c.execute("INSERT INTO session_share VALUES (NULL, 'shr_null', 's', 'https://example.invalid', ?, ?)", (T0, T0))
    # NULL keys, a key in other case (matches only under NOCASE), a BLOB key equal to an id's bytes
    for sid, body in ((None, "no session"), (S_CASE, "own note"), (S_CASE.upper(), "upper-case key"),
                      (S_FULL, "full note")):
        c.execute("INSERT INTO session_note VALUES (?, ?)", (sid, body))
    for sid, data in ((None, b"\x00null"), (S_CASE.encode(), b"blob key"), (S_CASE, b"text key"), (7, b"int")):
        c.execute("INSERT INTO session_diff VALUES (?, ?)", (sid, data))
    c.close()
    return root / "opencode.db"


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("oc-scale-home")
    _make_db(home / ".local" / "share" / "opencode")
    return home


@pytest.fixture(scope="module")
def live(home: Path) -> Path:
    return home / ".local" / "share" / "opencode" / "opencode.db"


@pytest.fixture(scope="module")
def plain(live: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the database without the archiver's indexes: the reference reads scan it."""
    out = tmp_path_factory.mktemp("oc-plain") / "plain.db"
    src = sqlite3.connect(f"file:{live}?mode=ro", uri=True)
    dst = sqlite3.connect(str(out))
    src.backup(dst)
    src.close()
    dst.close()
    return out


@pytest.fixture(scope="module")
def snap(live: Path) -> Iterator[opencode.DbSnapshot]:
    s = opencode.DbSnapshot(live)
    yield s
    s.close()


# ---- the reference: each session's row sets selected one by one from the plain copy ----

def _ref_selects(conn: sqlite3.Connection, sid: str) -> Iterator[tuple[str, list[str], str, list[Any]]]:
    schema = conn.execute("SELECT type, name FROM src.sqlite_master WHERE sql IS NOT NULL "
                          "AND name NOT LIKE 'sqlite_%' ORDER BY rowid").fetchall()
    tables = [n for t, n in schema if t == "table"]
    info: dict[str, Any] = {}
    for table in ("session_v2", "session"):
        row = conn.execute(f"SELECT project_id, {'workspace_id' if table == 'session_v2' else 'NULL'} "
                           f"FROM src.{table} WHERE id = ?", (sid,)).fetchone()
        if row is not None:
            info = {"project_id": row[0], "workspace_id": row[1]}
            break
    hashes: set[str] = set()
    for values in conn.execute("SELECT initial_values, current_values FROM src.instruction_state WHERE session_id = ?",
                               (sid,)):
        for v in values:
            hashes.update(x for x in opencode._json(v).values() if isinstance(x, str))  # noqa: SLF001
    for name in tables:
        cols = [r[1] for r in conn.execute(f"PRAGMA src.table_info({sql_ident(name)})")]
        role = opencode._table_role(name, cols)  # noqa: SLF001
        if role is None:
            continue
        policy, key = role
        if policy == "owned":
            yield name, cols, f"{sql_ident(key)} = ?", [sid]
        elif name == "instruction_blob" and hashes:
            yield name, cols, f"hash IN ({','.join('?' * len(hashes))})", sorted(hashes)
        elif name == "kv":
            yield name, cols, "key = ?", [opencode.V1_IMPORT_KEY]
        elif name in ("project", "workspace") and info.get(f"{name}_id"):
            yield name, cols, "id = ?", [info[f"{name}_id"]]
        elif not key:
            yield name, cols, "", []


def _ref_fingerprint(db: Path, sid: str) -> str:
    conn = sqlite3.connect(":memory:")
    conn.execute("ATTACH DATABASE ? AS src", (f"file:{db}?mode=ro",))
    out = hashlib.blake2b(digest_size=16)
    for typ, name, tbl, sql in conn.execute("SELECT type, name, tbl_name, sql FROM src.sqlite_master "
                                            "WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' ORDER BY rowid"):
        sql_value_digest(out, f"{typ}\0{name}\0{tbl}\0{sql}")
    for pragma in ("user_version", "application_id"):
        sql_value_digest(out, int(conn.execute(f"PRAGMA src.{pragma}").fetchone()[0]))
    for name, cols, where, params in list(_ref_selects(conn, sid)):
        collist = ", ".join(sql_ident(c) for c in cols)
        digests = []
        for row in conn.execute(f"SELECT {collist} FROM src.{sql_ident(name)}" + (f" WHERE {where}" if where else ""),
                                params):
            h = hashlib.blake2b(digest_size=16)
            for v in row:
                sql_value_digest(h, v)
            digests.append(h.digest())
        sql_value_digest(out, f"table\0{name}\0{collist}\0{len(digests)}")
        out.update(b"".join(sorted(digests)))
    conn.close()
    return out.hexdigest()


def _facts(snap: opencode.DbSnapshot) -> dict[str, dict[str, Any]]:
    conn = snap.connect()
    try:
        return {f["id"]: f for f in opencode.read_facts(conn, snap.path)}
    finally:
        conn.close()


def _master(db: Path) -> list[tuple[str, str, str]]:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return conn.execute("SELECT type, name, sql FROM sqlite_master ORDER BY rowid").fetchall()
    finally:
        conn.close()


# ---- tests ----

def test_the_snapshot_indexes_exactly_the_scanned_lookups(snap: opencode.DbSnapshot, plain: Path) -> None:
    made = sorted(n for t, n, _s in _master(snap.path) if t == "index" and n.startswith(opencode.LOOKUP_INDEX_PREFIX))
    assert made == sorted(opencode.LOOKUP_INDEX_PREFIX + x for x in (
        "event.aggregate_id", "message.session_id", "session_diff.session_id", "session_inbox.session_id",
        "session_note.session_id", "session_pending.session_id"))
    assert not [n for t, n, _s in _master(plain) if n.startswith(opencode.LOOKUP_INDEX_PREFIX)]


def test_fingerprints_equal_the_per_session_reference(snap: opencode.DbSnapshot, plain: Path) -> None:
    facts = _facts(snap)
    assert sorted(facts) == sorted(SESSIONS)
    for sid in SESSIONS:
        assert facts[sid]["extract"] == _ref_fingerprint(plain, sid), sid
    assert len({facts[sid]["extract"] for sid in SESSIONS}) == len(SESSIONS)
    # the fingerprint of the plain copy (no lookup index, every lookup a scan) is the same
    conn = sqlite3.connect(f"file:{plain}?mode=ro", uri=True)
    conn.row_factory = sqlite3.Row
    try:
        assert {f["id"]: f["extract"] for f in opencode.read_facts(conn, plain)} == \
            {sid: facts[sid]["extract"] for sid in SESSIONS}
    finally:
        conn.close()


def _rows(db: Path, table: str) -> list[tuple[Any, ...]]:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return sorted(conn.execute(f"SELECT * FROM {sql_ident(table)}").fetchall(), key=repr)
    finally:
        conn.close()


@pytest.mark.parametrize("sid", SESSIONS)
def test_extract_bytes_equal_the_scan_build_and_hold_the_own_schema(
        snap: opencode.DbSnapshot, plain: Path, sid: str, tmp_path: Path) -> None:
    fast, ref = tmp_path / "fast.db", tmp_path / "ref.db"
    opencode.extract_session(snap.path, sid, fast)
    opencode.extract_session(plain, sid, ref)  # no lookup index: every WHERE a full scan
    assert hashlib.sha256(fast.read_bytes()).hexdigest() == hashlib.sha256(ref.read_bytes()).hexdigest()
    own = sorted(r for r in _master(plain) if r[2] is not None)  # the database's own schema (no autoindexes)
    assert sorted(r for r in _master(fast) if r[2] is not None) == own
    assert not [n for _t, n, _s in _master(fast) if n.startswith(opencode.LOOKUP_INDEX_PREFIX)]
    # the rows are the reference's selection
    conn = sqlite3.connect(":memory:")
    conn.execute("ATTACH DATABASE ? AS src", (f"file:{plain}?mode=ro",))
    try:
        expected = {name: sorted(conn.execute(f"SELECT * FROM src.{sql_ident(name)}" + (f" WHERE {w}" if w else ""),
                                              p).fetchall(), key=repr) for name, _c, w, p in _ref_selects(conn, sid)}
    finally:
        conn.close()
    got = {name: _rows(fast, name) for name in expected}
    assert got == expected
    held = {n for t, n, _s in _master(fast) if t == "table"}
    for name in held - set(expected):
        assert _rows(fast, name) == [], name


def test_case_null_and_blob_keys_go_where_sqlite_equality_puts_them(snap: opencode.DbSnapshot, tmp_path: Path) -> None:
    out = tmp_path / "case.db"
    opencode.extract_session(snap.path, S_CASE, out)
    assert sorted(r[1] for r in _rows(out, "session_note")) == ["own note", "upper-case key"]  # NOCASE column
    assert [r[1] for r in _rows(out, "session_diff")] == [b"text key"]  # not the BLOB, NULL or 7
    assert _rows(out, "event") == []  # the upper-case aggregate is another aggregate (BINARY column)
    opencode.extract_session(snap.path, S_SUB, out)
    assert _rows(out, "kv") == [("migration.v1-v2", _j({"done": True}), T0, T0)]
    assert [r[0] for r in _rows(out, "project")] == [S_SUB]
    assert _rows(out, "instruction_blob") == []  # its state names no body
    opencode.extract_session(snap.path, S_FULL, out)
    assert sorted(r[0] for r in _rows(out, "instruction_blob")) == sorted(["h1", S_SUB])
    assert [r[0] for r in _rows(out, "event")] == ["evt_0", "evt_1"]


def _plan(conn: sqlite3.Connection, sql: str, params: list[Any]) -> list[str]:
    return [str(r[-1]) for r in conn.execute("EXPLAIN QUERY PLAN " + sql, params)]


@pytest.mark.parametrize("sid", SESSIONS)
def test_every_session_lookup_reads_through_an_index(snap: opencode.DbSnapshot, plain: Path, sid: str) -> None:
    scanned_before: set[str] = set()
    for db, checked in ((plain, False), (snap.path, True)):
        conn = sqlite3.connect(":memory:")
        conn.execute("ATTACH DATABASE ? AS src", (f"file:{db}?mode=ro",))
        try:
            rows = opencode._schema(conn, "src")  # noqa: SLF001
            selects = list(opencode._session_selects(conn, sid, rows))  # noqa: SLF001
            assert selects
            extra = [("session_v2", "*", "id = ?", [sid]), ("session", "*", "id = ?", [sid]),
                     ("instruction_state", "*", "session_id = ?", [sid])]
            for name, collist, where, params in selects + extra:
                plan = _plan(conn, f"SELECT {collist} FROM src.{sql_ident(name)}" + (f" WHERE {where}" if where else ""),
                             params)
                if not where:  # context read whole, once: the migration list
                    assert name in opencode.MIGRATION_TABLES
                elif checked:
                    assert len(plan) == 1 and plan[0].startswith("SEARCH"), (name, plan)
                elif not plan[0].startswith("SEARCH"):
                    scanned_before.add(name)
        finally:
            conn.close()
    # what the plain copy scans (sessions x rows) is what the snapshot's indexes serve
    assert {"event", "message", "session_inbox", "session_pending", "session_note", "session_diff"} <= scanned_before


def test_legacy_facts_lookups_use_the_index(snap: opencode.DbSnapshot) -> None:
    conn = snap.connect()
    try:
        for sql in ("SELECT id FROM message WHERE session_id = ? AND json_valid(data) ORDER BY id",
                    "SELECT CAST(data AS TEXT) FROM part WHERE session_id = ?",
                    "SELECT id, seq FROM session_message WHERE session_id = ? ORDER BY seq"):
            assert all(p.startswith(("SEARCH", "USE TEMP B-TREE")) for p in _plan(conn, sql, [S_OLD])), sql
    finally:
        conn.close()


def test_discovery_leaves_the_live_database_untouched(home: Path, live: Path) -> None:
    before = {p.name: p.read_bytes() for p in live.parent.glob("opencode.db*")}
    harness = opencode.OpenCode(HarnessContext(home=home, env={}))
    try:
        found = {s.session_id: s for s in harness.discover() if s.kind != "host"}
    finally:
        harness.close()
    assert sorted(found) == sorted(SESSIONS)
    assert {p.name: p.read_bytes() for p in live.parent.glob("opencode.db*")} == before
    assert not [n for _t, n, _s in _master(live) if n.startswith(opencode.LOOKUP_INDEX_PREFIX)]


def test_bodies_without_an_index_keep_their_row_order(tmp_path: Path) -> None:
    """instruction_blob is read by `hash IN (...)`: an index would return the bodies in hash
    order and the extract would hold them in another order, so it gets none."""
    live = tmp_path / "opencode.db"
    c = sqlite3.connect(str(live), isolation_level=None)
    c.execute("PRAGMA journal_mode=WAL")
    c.executescript("""
        CREATE TABLE session_v2 (id TEXT PRIMARY KEY, project_id TEXT, time_created INTEGER, time_updated INTEGER);
        CREATE TABLE instruction_state (session_id TEXT, initial_values TEXT, current_values TEXT);
        CREATE TABLE instruction_blob (hash TEXT, value TEXT);
    """)
    c.execute("INSERT INTO session_v2 VALUES (?, 'prj', ?, ?)", (S_FULL, T0, T0))
    c.execute("INSERT INTO instruction_state VALUES (?, ?, '{}')", (S_FULL, _j({"b": "h9", "a": "h1"})))
    for h in ("h9", "h5", "h1"):
        c.execute("INSERT INTO instruction_blob VALUES (?, ?)", (h, f"body {h}"))
    c.close()
    snap = opencode.DbSnapshot(live)
    try:
        made = [n for t, n, _s in _master(snap.path) if n.startswith(opencode.LOOKUP_INDEX_PREFIX)]
        assert made == [opencode.LOOKUP_INDEX_PREFIX + "instruction_state.session_id"]
        fast, ref = tmp_path / "fast.db", tmp_path / "ref.db"
        opencode.extract_session(snap.path, S_FULL, fast)
        opencode.extract_session(live, S_FULL, ref)
    finally:
        snap.close()
    assert fast.read_bytes() == ref.read_bytes()
    conn = sqlite3.connect(str(fast))
    try:
        assert conn.execute("SELECT hash FROM instruction_blob ORDER BY rowid").fetchall() == [("h9",), ("h1",)]
    finally:
        conn.close()
