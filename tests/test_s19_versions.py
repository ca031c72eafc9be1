"""s19: sessions written by OLDER releases of every harness, mixed with current ones in one home
(tests/fx_s19_versions.py, from each seed's `versioning` section), through the real CLI: sync to a
file:// store, the store read back with `age` + `zstd` only, `ls --json`, `restore --all --to`.

For each harness: every session discovered with the kind, title, cwd and lineage edges the seed
says that version encoded; no planted secret, e-mail or home path in any object; the restored
files in the harness's own layout, parseable (JSONL lines parse, SQLite opens), ids untouched,
byte-identical where nothing was redacted.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any, Callable

import pytest

from tests import fx_s19_versions as fx
from tests.fx_s11_e2e import (
    USER, Setup, build_in_child, decrypt_all, edges, latest_manifest, leaks, sessions_by_key, setup, tree_leaks,
)


class World:
    def __init__(self, base: Path, harness: str, builder: Callable[[Path, Any], dict[str, Any]], extra: str = "") -> None:
        self.s: Setup = setup(base, harness, extra)
        built = build_in_child(builder, self.s.home, base / "facts.json")
        self.facts: dict[str, Any] = built["facts"]
        self.needles = [tuple(n) for n in built["needles"]]
        self.sync = self.s.json("sync")
        self.plain = decrypt_all(self.s)
        self.manifest = latest_manifest(self.plain)
        self.by_key = sessions_by_key(self.manifest)
        self.to = base / "restored"
        self.restored = self.s.restore(self.to)


def world(tmp_path_factory: pytest.TempPathFactory, harness: str, builder: Callable[..., dict[str, Any]],
          extra: str = "") -> Any:
    base = tmp_path_factory.mktemp(f"s19{harness}")
    base.chmod(0o700)
    w = World(base, harness, builder, extra)
    yield w
    shutil.rmtree(base, ignore_errors=True)


def check_discovery(w: World) -> None:
    """Kind, title, cwd and edges of every expected session."""
    for key, f in w.facts["sessions"].items():
        assert key in w.by_key, (key, sorted(w.by_key))
        got = w.by_key[key]
        assert got["kind"] == f["kind"], (key, got["kind"], got["warnings"])
        assert got["title"] == f["title"], (key, got["title"])
        assert sorted(map(list, edges(got)), key=str) == sorted(f["edges"], key=str), (key, edges(got), got["warnings"])
        if f["cwd"] is None:
            assert got["cwd"] is None, (key, got["cwd"])
        else:  # redacted: the user's name gone, the rest of the path kept
            assert got["cwd"] and USER not in got["cwd"], (key, got["cwd"])
            assert got["cwd"].endswith(f["cwd"].rsplit("/", 1)[1]), (key, got["cwd"], f["cwd"])


def check_no_leaks(w: World) -> None:
    assert leaks(w.plain, w.needles) == []
    assert tree_leaks(w.to, w.needles) == []


def _pi_parent_session(key: str, data: bytes) -> str | None:
    """A pi transcript's header.parentSession, if it has one."""
    if not key.startswith("pi:"):
        return None
    try:
        head = json.loads(data.split(b"\n", 1)[0])
    except ValueError:
        return None
    parent = head.get("parentSession") if isinstance(head, dict) and head.get("type") == "session" else None
    return parent if isinstance(parent, str) else None


def check_restored(w: World) -> None:
    """Every artifact written where the manifest says, its bytes what it says, parseable by its format;
    the ids of the session (its key's id) present in its transcript."""
    assert not w.restored.get("refused"), w.restored.get("refused")
    assert not w.restored.get("integrity_errors"), w.restored.get("integrity_errors")
    for key in w.facts["sessions"]:
        for a in w.by_key[key]["artifacts"]:
            f = w.to / a["path"]
            assert f.is_file(), (key, a["path"])
            data = f.read_bytes()
            if a["format"] == "jsonl":
                parent = _pi_parent_session(key, data)
                if parent is None:
                    assert hashlib.sha256(data).hexdigest() == a["sha256"], (key, a["path"])
                else:  # restore points a pi fork's header at its parent's restored file
                    named = [str(w.to.resolve() / b["path"]) for s in w.by_key.values() for b in s["artifacts"]
                             if b["path"].rsplit("/", 1)[-1] == parent.rsplit("/", 1)[-1]]
                    assert [parent] == named, (key, a["path"])
                for line in data.splitlines():
                    json.loads(line)
            elif a["format"] == "sqlite":
                con = sqlite3.connect(f"file:{f}?mode=ro", uri=True)
                assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
                con.close()
            elif a["format"] == "json":
                json.loads(data)
    for key, f in w.facts["sessions"].items():
        for rel in f["clean"]:
            assert (w.to / rel).read_bytes() == (w.s.home / rel).read_bytes(), (key, rel)


# ------------------------------------------------------------------------------------------ pi

@pytest.fixture(scope="module")
def pi(tmp_path_factory: pytest.TempPathFactory) -> Any:
    yield from world(tmp_path_factory, "pi", fx.build_pi)


def test_pi_sessions_of_every_version_discovered(pi: World) -> None:
    check_discovery(pi)


def test_pi_no_planted_value_archived(pi: World) -> None:
    check_no_leaks(pi)


def test_pi_restored_parseable_ids_kept(pi: World) -> None:
    check_restored(pi)
    for key in pi.facts["sessions"]:
        [a] = [a for a in pi.by_key[key]["artifacts"] if a["role"] == "transcript"]
        src = (pi.s.home / pi.facts["sessions"][key]["files"][0]).read_bytes().splitlines()
        got = (pi.to / a["path"]).read_bytes().splitlines()
        assert len(src) == len(got)
        for x, y in zip(src, got):
            x, y = json.loads(x), json.loads(y)
            assert (x.get("id"), x.get("parentId"), x.get("version"), x.get("type")) == \
                   (y.get("id"), y.get("parentId"), y.get("version"), y.get("type"))
            assert x.get("firstKeptEntryIndex") == y.get("firstKeptEntryIndex")
            assert (x.get("message") or {}).get("role") == (y.get("message") or {}).get("role")


def test_pi_v1_file_migrated_in_place_between_syncs(tmp_path: Path) -> None:
    """pi rewrites a version-1 file as version 3 the next time it opens it (seed gotcha), then
    appends to it: the next sync archives the rewritten file, and a restore gives its bytes back
    (the archived v1 prefix no longer holds)."""
    s = setup(tmp_path, "pi")
    build_in_child(fx.build_pi, s.home, tmp_path / "facts.json")
    s.json("sync")
    rel = next(p for p in s.home.rglob(f"*_{fx.PI_V1_CLEAN}.jsonl")).relative_to(s.home)
    migrated = fx.pi_migrate_v1(s.home / rel)
    last = json.loads(migrated.splitlines()[-1])["id"]
    more = fx.jl({"type": "message", "id": "77aa77aa", "parentId": last, "timestamp": "2025-03-01T10:00:00.000Z",
                  "message": {"role": "user", "content": "after the migration", "timestamp": 1740823200000}})
    with (s.home / rel).open("ab") as f:
        f.write(more)
    s.json("sync")
    out = tmp_path / "restored"
    s.restore(out, f"pi:{fx.PI_V1_CLEAN}")
    assert (out / rel).read_bytes() == migrated + more
    first = json.loads((out / rel).read_bytes().splitlines()[0])
    assert first["version"] == 3 and first["id"] == fx.PI_V1_CLEAN


# --------------------------------------------------------------------------------------- codex

@pytest.fixture(scope="module")
def codex(tmp_path_factory: pytest.TempPathFactory) -> Any:
    yield from world(tmp_path_factory, "codex", fx.build_codex)


def test_codex_sessions_of_every_version_discovered(codex: World) -> None:
    check_discovery(codex)


def test_codex_no_planted_value_archived(codex: World) -> None:
    check_no_leaks(codex)


def test_codex_restored_parseable_ids_kept(codex: World) -> None:
    check_restored(codex)
    zst = [a for a in codex.by_key[f"codex:{fx.CX_LEGACY_ZST}"]["artifacts"] if a["role"] == "transcript"]
    assert [a["format"] for a in zst] == ["jsonl.zst"]
    import subprocess
    data = subprocess.run(["zstd", "-d", "-c", str(codex.to / zst[0]["path"])], capture_output=True, check=True).stdout
    first = json.loads(data.splitlines()[0])
    assert first["payload"]["id"] == fx.CX_LEGACY_ZST and "history_mode" not in first["payload"]
    fork = [a for a in codex.by_key[f"codex:{fx.CX_LEGACY_FORK}"]["artifacts"] if a["role"] == "transcript"][0]
    metas = [json.loads(x)["payload"]["id"] for x in (codex.to / fork["path"]).read_bytes().splitlines()
             if json.loads(x)["type"] == "session_meta"]
    assert metas == [fx.CX_LEGACY_FORK, fx.CX_LEGACY]


def test_codex_legacy_rollout_migrated_in_place_between_syncs(tmp_path: Path) -> None:
    """Codex's startup migration rewrites a legacy rollout as paginated in place (ordinals added,
    history_mode set, cli_version kept), then appends: the next sync archives the rewritten file."""
    s = setup(tmp_path, "codex")
    build_in_child(fx.build_codex, s.home, tmp_path / "facts.json")
    s.json("sync")
    rel = next(p for p in s.home.rglob(f"rollout-*-{fx.CX_LEGACY_CLEAN}.jsonl")).relative_to(s.home)
    migrated = fx.cx_migrate(s.home / rel)
    n = len(migrated.splitlines())
    more = fx.jl({"timestamp": "2026-01-02T03:04:05.678Z", "ordinal": n, "type": "event_msg",
                  "payload": {"type": "task_started", "turn_id": "t9", "model_context_window": 1}})
    with (s.home / rel).open("ab") as f:
        f.write(more)
    s.json("sync")
    out = tmp_path / "restored"
    s.restore(out, f"codex:{fx.CX_LEGACY_CLEAN}")
    assert (out / rel).read_bytes() == migrated + more


# --------------------------------------------------------------------------------- claude-code

@pytest.fixture(scope="module")
def claude(tmp_path_factory: pytest.TempPathFactory) -> Any:
    yield from world(tmp_path_factory, "claude-code", fx.build_claude)


def test_claude_sessions_of_every_version_discovered(claude: World) -> None:
    check_discovery(claude)
    host = claude.by_key["claude-code:@host"]
    assert [a["path"].rsplit("/", 1)[1] for a in host["artifacts"] if a["role"] == "index"] == ["sessions-index.json"]


def test_claude_no_planted_value_archived(claude: World) -> None:
    check_no_leaks(claude)


def test_claude_restored_parseable_ids_kept(claude: World) -> None:
    check_restored(claude)
    for key in claude.facts["sessions"]:
        [a] = [a for a in claude.by_key[key]["artifacts"] if a["role"] == "transcript"]
        src = [json.loads(x) for x in (claude.s.home / claude.facts["sessions"][key]["files"][0]).read_bytes().splitlines()]
        got = [json.loads(x) for x in (claude.to / a["path"]).read_bytes().splitlines()]
        ids = ("type", "uuid", "parentUuid", "sessionId", "version", "requestRef", "id", "hash", "shapeHash",
               "agentId", "leafUuid", "continuedInSessionId")
        assert [[r.get(k) for k in ids] for r in src] == [[r.get(k) for k in ids] for r in got]


# ------------------------------------------------------------------------------------ opencode

@pytest.fixture(scope="module")
def opencode(tmp_path_factory: pytest.TempPathFactory) -> Any:
    yield from world(tmp_path_factory, "opencode", fx.build_opencode)


def test_opencode_sessions_of_every_version_discovered(opencode: World) -> None:
    check_discovery(opencode)


def test_opencode_no_planted_value_archived(opencode: World) -> None:
    check_no_leaks(opencode)


def test_opencode_restored_parseable_ids_kept(opencode: World) -> None:
    check_restored(opencode)
    data = opencode.to / ".local" / "share" / "opencode"
    con = sqlite3.connect(f"file:{data / 'opencode.db'}?mode=ro", uri=True)
    assert sorted(r[0] for r in con.execute("SELECT id FROM session")) == [fx.OC_V1, fx.OC_V1_CHILD]
    assert "session_v2" not in {r[0] for r in con.execute("SELECT name FROM sqlite_master")}
    assert con.execute("SELECT count(*) FROM part").fetchone()[0] == 4
    con.close()
    con = sqlite3.connect(f"file:{data / 'opencode-next.db'}?mode=ro", uri=True)
    rows = {r[0]: json.loads(r[1]) for r in con.execute("SELECT id, data FROM session_message")}
    assert len(rows) == 6
    for d in rows.values():  # the legacy key names kept for OpenCode's SessionLegacy decoder
        assert set(d) & {"providerState", "recent", "providerContext", "text"}
    con.close()


# -------------------------------------------------------------------------------- cursor-agent

@pytest.fixture(scope="module")
def cursor(tmp_path_factory: pytest.TempPathFactory) -> Any:
    yield from world(tmp_path_factory, "cursor-agent", fx.build_cursor)


def test_cursor_sessions_of_every_version_discovered(cursor: World) -> None:
    check_discovery(cursor)
    old = cursor.by_key[f"cursor-agent:{fx.CU_OLD}"]
    assert [a["path"].rsplit("/", 1)[1] for a in old["artifacts"] if a["role"] == "transcript"] == [f"{fx.CU_OLD}.jsonl"]


def test_cursor_no_planted_value_archived(cursor: World) -> None:
    check_no_leaks(cursor)


def test_cursor_restored_parseable_ids_kept(cursor: World) -> None:
    check_restored(cursor)
    [db] = [a for a in cursor.by_key[f"cursor-agent:{fx.CU_OLD}"]["artifacts"] if a["path"].endswith("store.db")]
    con = sqlite3.connect(f"file:{cursor.to / db['path']}?mode=ro", uri=True)
    meta = json.loads(bytes.fromhex(con.execute("SELECT value FROM meta WHERE key = '0'").fetchone()[0]))
    assert (meta["agentId"], meta["mode"], meta["name"]) == (fx.CU_OLD, "auto-run", "Old chat")
    assert con.execute("SELECT count(*) FROM blobs WHERE id = ?", (meta["latestRootBlobId"],)).fetchone()[0] == 1
    con.close()
