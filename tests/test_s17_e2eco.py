"""End to end, Cursor agent and OpenCode, on a HOME written from the seeds alone
(tests/fx_s17_e2eco.py: WAL databases with rows only in the live -wal, a store with -wal and no
-shm, unknown tables/columns/part types/fields, a corrupt store and a corrupt channel database),
through the real CLI in its own process against a file:// store: sync, ls, lineage,
verify --read-data, restore (one session; a family relocated to another home), export, a re-sync
while a store is being written. The archive is read with the `age` and `zstd` CLIs."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import sqlite3
import subprocess
import threading
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

from tests.fx_s11_e2e import Setup, artifact_bytes, configure, decrypt_all, latest_manifest
from tests.fx_s17_e2eco import Plan, build, md5_dir, parse_pb, shape_of, slug

USER = "zq.canary"
OC_DB = ".local/share/opencode/opencode.db"


@dataclass
class Box(Setup):
    """fx_s11_e2e's CLI kit with every command's exit code checked (0 unless told), the plan of
    the home build() wrote and the first sync's report."""
    plan: Plan = None  # type: ignore[assignment]  # set by the fixture
    first: dict[str, Any] = field(default_factory=dict)  # the first sync's JSON report

    def cli(self, *args: str, expect: int | None = 0) -> subprocess.CompletedProcess[str]:
        return super().cli(*args, expect=expect)


def sessions(plain: dict[str, bytes], index: int = -1) -> dict[str, dict[str, Any]]:
    return {s["key"]: s for s in latest_manifest(plain, index)["sessions"]}


def shape(path: str) -> str:
    """A path with the cwd-derived folders (md5 / slug of the cwd, sha1 of the worktree: redaction
    renames them) blanked."""
    path = re.sub(r"^(\.local/share/opencode/snapshot/[^/]+/)[^/]+/", r"\1*/", path)
    return re.sub(r"^\.cursor/(chats|projects)/[^/]+/", r".cursor/\1/*/", path)


def refs(data: bytes, depth: int = 0) -> list[str]:
    """Blob ids (raw 32 bytes) anywhere in a protobuf message, nested messages included."""
    out: list[str] = []
    try:
        fields = parse_pb(data)
    except ValueError:  # a string or raw bytes, not a message
        return out
    for _f, wt, v in fields:
        if wt == 2 and len(v) == 32:
            out.append(v.hex())
        elif wt == 2 and depth < 6:
            out += refs(v, depth + 1)
    return out


def sync_while(write: Callable[[], None], stop: threading.Event, box: Box) -> Any:
    """`sync --workers 1` (exit 1: the corrupt store) while `write` runs on a thread until `stop`."""
    t = threading.Thread(target=write)
    t.start()
    try:
        return box.json("sync", "--workers", "1", expect=1)
    finally:
        stop.set()
        t.join()


def sqlite_of(data: bytes, where: Path) -> sqlite3.Connection:
    where.write_bytes(data)
    return sqlite3.connect(f"file:{where}?mode=ro", uri=True)


@pytest.fixture(scope="module")
def box(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Box]:
    base = tmp_path_factory.mktemp("s17e2eco")
    base.chmod(0o700)
    home = base / "home" / USER
    home.mkdir(parents=True)
    plan = build(home, USER)
    b = Box(base=base, home=home, plan=plan)
    try:
        configure(b, ("cursor-agent", "opencode"), user=USER, host="laptop-of-zq")
        # the rows the test put in the -wal are not in the main files yet (no checkpoint ran)
        assert (home / ".local/share/opencode/opencode.db-wal").stat().st_size > 0
        assert b"WALMARK-opencode" not in (home / OC_DB).read_bytes()
        b.first = b.json("sync", "--workers", "1", expect=1)  # 1: the corrupt store
        yield b
    finally:
        plan.close()
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(scope="module")
def plain(box: Box) -> dict[str, bytes]:
    return decrypt_all(box)


def test_sync_reports_the_broken_stores_by_name_and_archives_the_rest(box: Box) -> None:
    first = box.first
    corrupt = box.plan.notes["corrupt"]
    # the broken Cursor store and the OpenCode session on a broken page each fail, named
    [cursor_error] = [e for e in first["errors"] if e.startswith(corrupt + ": ")]
    assert "malformed" in cursor_error
    assert [e for e in first["errors"] if e != cursor_error] == [
        "opencode:ses_beta: .local/share/opencode/opencode-beta.db: session ses_beta not read "
        "(DatabaseError: database disk image is malformed)"]
    assert first["sessions"] == {"total": 21, "uploaded": 19, "unchanged": 0, "failed": 2}
    assert "opencode:ses_beta" not in first["session_warnings"]


def test_every_file_of_every_session_is_archived(box: Box, plain: dict[str, bytes]) -> None:
    got = sessions(plain)
    assert set(got) == set(box.plan.files)  # the session on a broken page failed: never archived
    for key, files in box.plan.files.items():
        assert sorted(shape(a["path"]) for a in got[key]["artifacts"]) == sorted(shape(f) for f in files), key
        for a in got[key]["artifacts"]:
            data = artifact_bytes(plain, a)
            assert len(data) == a["size"] and hashlib.sha256(data).hexdigest() == a["sha256"], a["path"]
    fmt = {shape(a["path"]).rpartition("/")[2]: a["format"] for a in got[f"cursor-agent:{box.plan.ids['c_main']}"]["artifacts"]}
    assert fmt["store.db"] == "sqlite" and fmt["future-blob.bin"] == "binary" and fmt["future-notes.txt"] == "text"


def test_cursor_store_has_the_wal_rows_the_unknown_table_and_a_walkable_graph(
        box: Box, plain: dict[str, bytes], tmp_path: Path) -> None:
    got = sessions(plain)
    main = got[f"cursor-agent:{box.plan.ids['c_main']}"]
    db = next(a for a in main["artifacts"] if a["path"].endswith("/store.db"))
    conn = sqlite_of(artifact_bytes(plain, db), tmp_path / "main.db")
    blobs = dict(conn.execute("SELECT id, data FROM blobs"))
    assert len(blobs) == box.plan.notes["blobs_main"]
    assert any(d.startswith(b"WALMARK-cursor ") for d in blobs.values())  # only in -wal at sync time
    assert conn.execute("SELECT id, weight FROM future_index").fetchall() == [("x", 1.5)]
    meta = json.loads(bytes.fromhex(conn.execute("SELECT value FROM meta WHERE key = '0'").fetchone()[0]))
    assert meta["latestRootBlobId"] == box.plan.notes["root1"] and meta["futureKey"] == {"x": 1}
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 1
    # every id reachable from the root is still there and every protobuf still parses
    seen, todo = set(), [meta["latestRootBlobId"]]
    while todo:
        bid = todo.pop()
        if bid in seen:
            continue
        seen.add(bid)
        data = blobs[bid]
        if data[:1] == b"{":
            json.loads(data)
            continue
        todo += [r for r in refs(data) if r in blobs]
    assert len(seen) >= 28
    # redaction kept every protobuf blob a message of the same shape (length prefixes rewritten)
    orig: dict[str, bytes] = box.plan.notes["cursor_blobs"]
    assert set(orig) <= set(blobs)
    changed = 0
    for bid, data in orig.items():
        if data[:1] != b"{" and shape_of(data) is not None:
            assert shape_of(blobs[bid]) == shape_of(data), bid
            changed += blobs[bid] != data
    assert changed >= 8
    fork = got[f"cursor-agent:{box.plan.ids['c_fork']}"]
    fdb = next(a for a in fork["artifacts"] if a["path"].endswith("/store.db"))
    fconn = sqlite_of(artifact_bytes(plain, fdb), tmp_path / "fork.db")  # db + -wal, no -shm at sync time
    assert [d[:13] for (d,) in fconn.execute("SELECT data FROM blobs") if d.startswith(b"WALMARK-")] == [b"WALMARK-fork "]


def test_opencode_extracts_hold_every_row_of_their_session_and_no_host_secrets(
        box: Box, plain: dict[str, bytes], tmp_path: Path) -> None:
    live = sqlite3.connect(f"file:{box.home / OC_DB}?mode=ro", uri=True)
    got = sessions(plain)
    for role in ("o_main", "o_child", "o_fork", "o_staged", "o_empty"):
        sid = box.plan.ids[role]
        a = next(x for x in got[f"opencode:{sid}"]["artifacts"] if x["path"] == OC_DB)
        ex = sqlite_of(artifact_bytes(plain, a), tmp_path / f"{role}.db")
        want = live.execute("SELECT id, seq, type FROM session_message WHERE session_id = ? ORDER BY seq", (sid,)).fetchall()
        have = ex.execute("SELECT id, seq, type FROM session_message ORDER BY seq").fetchall()
        assert have == want, role
        assert ex.execute("SELECT count(*) FROM session_message WHERE session_id != ?", (sid,)).fetchone()[0] == 0
        tables = {r[0] for r in ex.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        for host in ("credential", "account", "permission", "worktree"):  # the schema, never the rows
            assert host not in tables or ex.execute(f"SELECT count(*) FROM {host}").fetchone()[0] == 0, (role, host)
        assert ex.execute("SELECT key FROM kv").fetchall() == [("migration.v1-v2",)]
        assert ex.execute("SELECT id FROM session_v2").fetchall() == [(sid,)]
        if role == "o_main":
            types = {t for (_i, _s, t) in have}
            assert {"user", "system", "skill", "assistant", "shell", "synthetic", "compaction", "idle", "agent-switched",
                    "model-switched", "location-switched", "future-kind"} <= types
            last = ex.execute("SELECT data FROM session_message ORDER BY seq DESC LIMIT 1").fetchone()[0]
            assert "WALMARK-opencode" in last  # only in the -wal at sync time
            assert ex.execute("SELECT count(*) FROM session_future_notes").fetchone()[0] == 1
            assert ex.execute("SELECT count(*) FROM session_inbox").fetchone()[0] == 1
            assert ex.execute("SELECT count(*) FROM instruction_blob").fetchone()[0] == 1
            assert ex.execute("SELECT future_col FROM session_v2").fetchone()[0].startswith("future user-")


def test_no_secret_user_name_or_home_in_any_object_but_binaries(box: Box, plain: dict[str, bytes]) -> None:
    binaries = {o for s in latest_manifest(plain)["sessions"] for a in s["artifacts"] if a["format"] == "binary"
                for o in a["objects"]}
    needles = {**box.plan.secrets, "home": str(box.home), "user": USER, "user-dash": "zq-canary", "domain": "qxmail"}
    assert len(box.plan.secrets) >= 35
    leaks = []
    for rel, data in plain.items():
        if rel.rpartition("/")[2] in binaries:
            continue
        low = data.lower()
        leaks += [(label, rel) for label, v in needles.items() if v.lower().encode() in low or v.lower() in rel.lower()]
    assert leaks == []
    assert not [k for k in (f.relative_to(box.store).as_posix() for f in box.store.rglob("*")) if "zq" in k]


def test_snapshot_git_dir_is_archived_redacted_under_the_hash_of_the_redacted_worktree(
        box: Box, plain: dict[str, bytes]) -> None:
    proj = box.plan.ids["o_project"]
    got = sessions(plain)[f"opencode:@project-{proj}"]
    cwd = box.plan.cwds["opencode"]
    native = hashlib.sha1(cwd.encode()).hexdigest()  # the folder OpenCode made: an unkeyed hash of a home path
    red_cwd = sessions(plain)[f"opencode:{box.plan.ids['o_main']}"]["cwd"]
    assert USER not in red_cwd and red_cwd != cwd
    folder = hashlib.sha1(red_cwd.encode()).hexdigest()
    paths = {a["path"] for a in got["artifacts"]}
    prefix = f".local/share/opencode/snapshot/{proj}/"
    assert {p[len(prefix):].partition("/")[0] for p in paths} == {folder}
    assert len(paths) == len(box.plan.files[f"opencode:@project-{proj}"])
    assert not [k for k, v in plain.items() if native.encode() in v]
    objs = [a for a in got["artifacts"] if a["format"] == "git-object"]
    assert len(objs) == 2
    bodies = b"".join(zlib.decompress(artifact_bytes(plain, a)) for a in objs)
    assert b"PASSWORD=<" in bodies and b"login.py" in bodies
    assert not [label for label, v in box.plan.secrets.items() if v.encode() in bodies]
    assert USER.encode() not in bodies and str(box.home).encode() not in bodies


def test_lineage_edges_follow_the_seed(box: Box, plain: dict[str, bytes]) -> None:
    got = sessions(plain)
    for child, (relation, parent, at) in box.plan.edges.items():
        assert [(p["relation"], p["parent"], p["at"]) for p in got[child]["parents"]] == [(relation, parent, at)], child
    fork = got[f"cursor-agent:{box.plan.ids['c_fork']}"]
    assert fork["kind"] == "fork" and fork["parents"][0]["inferred"] is True  # forks record no parent id
    assert got[f"opencode:{box.plan.ids['o_fork']}"]["parents"][0]["inferred"] is False
    for main in (f"cursor-agent:{box.plan.ids['c_main']}", f"opencode:{box.plan.ids['o_main']}"):
        assert got[main]["parents"] == [] and got[main]["kind"] == "main"
        tree = box.read("lineage", main)
        edges = {(e["child"], e["relation"], e["parent"], e["at"]) for e in tree["edges"]}
        family = {main}
        while grown := {c for c, (_r, p, _a) in box.plan.edges.items() if p in family} - family:
            family |= grown
        assert edges == {(c, r, p, a) for c, (r, p, a) in box.plan.edges.items() if p in family}
        # and the host-level sessions they use (Session.uses: OpenCode's project snapshot dir)
        used = {u for k in family for u in got[k].get("uses", [])}
        assert set(tree["nodes"]) == family | used


def test_restore_one_session_byte_equal_in_the_harness_layout(box: Box, plain: dict[str, bytes]) -> None:
    key = f"cursor-agent:{box.plan.ids['c_main']}"
    target = box.base / "restore-one"
    out = box.read("restore", "--to", str(target), key)
    assert out["errors"] == [] and out["refused"] == [] and out["integrity_errors"] == []
    s = sessions(plain)[key]
    restored = sorted(f.relative_to(target).as_posix() for f in target.rglob("*") if f.is_file())
    assert restored == sorted(a["path"] for a in s["artifacts"])
    for a in s["artifacts"]:
        assert (target / a["path"]).read_bytes() == artifact_bytes(plain, a), a["path"]
    cid = box.plan.ids["c_main"]
    assert any(re.fullmatch(rf"\.cursor/chats/[0-9a-f]{{32}}/{cid}/store\.db", p) for p in restored)
    assert any(re.fullmatch(rf"\.cursor/projects/[^/]+/agent-transcripts/{cid}/{cid}\.jsonl", p) for p in restored)


def test_restore_family_relocated_to_another_home(box: Box, plain: dict[str, bytes], tmp_path: Path) -> None:
    got = sessions(plain)
    ckey = f"cursor-agent:{box.plan.ids['c_main']}"
    okey = f"opencode:{box.plan.ids['o_main']}"
    cold, oold = got[ckey]["cwd"], got[okey]["cwd"]
    cnew, onew = "/srv/other-person/nëw 🚀/app", "/srv/other-person/svc"
    target = box.base / "restore-family"
    out = box.read("restore", "--to", str(target), "--with-family", "--relocate", f"{cold}={cnew}",
                   "--relocate", f"{oold}={onew}", ckey, okey)
    assert out["errors"] == [] and out["refused"] == [] and out["integrity_errors"] == []
    cid = box.plan.ids["c_main"]
    chat = target / ".cursor/chats" / md5_dir(cnew) / cid
    assert (chat / "store.db").is_file(), sorted(p.name for p in (target / ".cursor/chats").iterdir())
    assert json.loads((chat / "meta.json").read_bytes())["cwd"] == cnew
    mirror = target / ".cursor/projects" / slug(cnew) / "agent-transcripts" / cid
    assert {p.name for p in (mirror / "subagents").iterdir()} >= {
        f"{box.plan.ids['c_sub_inline']}.jsonl", f"{box.plan.ids['c_sub_ref']}.jsonl"}
    for sub in ("c_fork", "c_sub_own"):
        assert (target / ".cursor/chats" / md5_dir(cnew) / box.plan.ids[sub] / "store.db").is_file(), sub
    assert cold.encode() not in (chat / "store.db").read_bytes()
    oc = sqlite3.connect(f"file:{target / OC_DB}?mode=ro", uri=True)
    rows = dict(oc.execute("SELECT id, directory FROM session_v2"))
    fam = {box.plan.ids[r] for r in ("o_main", "o_child", "o_fork")}
    assert rows == {sid: onew for sid in fam}
    for sid in fam:
        n = oc.execute("SELECT count(*) FROM session_message WHERE session_id = ?", (sid,)).fetchone()[0]
        assert n > 0, sid
    assert (target / ".local/share/opencode/tool-output").is_dir()


def test_ls_verify_export(box: Box, plain: dict[str, bytes]) -> None:
    listed = {s["key"] for s in box.read("ls")["sessions"]}
    assert listed == set(box.plan.files)
    v = box.read("verify", "--read-data")
    assert v["ok"] is True and v["errors"] == [] and v["objects_read"] == v["objects"] > 0
    for main, subs in ((f"cursor-agent:{box.plan.ids['c_main']}", ("c_sub_inline", "c_sub_ref", "c_sub_own", "c_nested")),
                       (f"opencode:{box.plan.ids['o_main']}", ("o_child",))):
        md = box.cli("export", main, "--format", "md", "--identity", str(box.identity)).stdout
        for sub in subs:
            assert box.plan.ids[sub] in md, (main, sub)
        assert not [label for label, val in box.plan.secrets.items() if val in md]
        assert USER not in md and str(box.home) not in md
        if main.startswith("opencode:"):  # seq order (with gaps); the row only the -wal held comes last
            assert 0 < md.index("log in with") < md.index("Running.") < md.index("WALMARK-opencode")


def test_export_of_a_compacted_cursor_chat_shows_its_full_history(box: Box) -> None:
    # seed linking/compaction: full history = concat(archives[].summarized_messages) + current
    # root_prompt_messages_json minus system and isSummary messages
    md = box.cli("export", f"cursor-agent:{box.plan.ids['c_main']}", "--format", "md",
                 "--identity", str(box.identity)).stdout
    assert "and now?" in md  # the current window is there
    assert "fix the deploy, token" in md and "Running the deploy script." in md  # the summarized part


def test_resync_while_a_store_is_written_uploads_only_what_changed(box: Box, plain: dict[str, bytes]) -> None:
    before = sessions(plain)
    conn = box.plan.keep[-1]  # the open opencode connection
    child = box.plan.ids["o_child"]
    conn.execute("INSERT INTO session_message VALUES ('msg_more', ?, 'user', 50, 1, 1, ?)",
                 (child, json.dumps({"text": "one more", "time": {"created": 1}})))
    legacy = box.plan.ids["c_legacy"]
    ldb = next(box.home.glob(f".cursor/chats/*/{legacy}/store.db"))
    lc = sqlite3.connect(ldb)
    lc.execute("INSERT INTO blobs VALUES (?, ?)", ("ab" * 32, b'{"role":"user","content":"resumed"}'))
    lc.commit()
    lc.close()
    stop = threading.Event()

    def writer() -> None:  # the main session keeps streaming during the sync
        n = 0
        while not stop.is_set() and n < 400:
            n += 1
            conn.execute("INSERT INTO event_sequence VALUES (?, ?, NULL) ON CONFLICT(aggregate_id) DO UPDATE "
                         "SET seq = excluded.seq", (box.plan.ids["o_main"], 1000 + n))
            stop.wait(0.01)

    out = sync_while(writer, stop, box)
    assert out["sessions"]["failed"] == 2 and len(out["errors"]) == 2  # the broken store and ses_beta's page
    after = sessions(decrypt_all(box))
    changed = {k for k in after if k in before and [a["objects"] for a in after[k]["artifacts"]]
               != [a["objects"] for a in before[k]["artifacts"]]}
    assert {f"opencode:{child}", f"cursor-agent:{legacy}"} <= changed
    assert changed <= {f"opencode:{child}", f"opencode:{box.plan.ids['o_main']}", f"cursor-agent:{legacy}"}
    assert out["sessions"]["uploaded"] == len(changed)
    assert out["sessions"]["unchanged"] == 19 - len(changed)  # 21 sessions, 2 failing each run


def test_a_sync_while_both_stores_stream_archives_one_consistent_state_of_each(box: Box, tmp_path: Path) -> None:
    """Each write is one transaction that changes two places (OpenCode: a new row and the
    in-flight assistant row rewritten in place; Cursor: a new message blob, a new root naming
    it, meta pointed at it). Whatever the sync read, both places must be from the same write."""
    from tests.fx_s17_e2eco import f_len, j, sha

    oc, cur = box.plan.keep[-1], box.plan.keep[0]
    main, inflight = box.plan.ids["o_main"], box.plan.notes["o_inflight"]
    meta0 = json.loads(bytes.fromhex(cur.execute("SELECT value FROM meta WHERE key = '0'").fetchone()[0]))
    stop = threading.Event()
    done = {"oc": 0, "cur": 0}

    def stream() -> None:
        n = 0
        while not stop.is_set() and n < 300:
            n += 1
            oc.execute("BEGIN IMMEDIATE")
            oc.execute("INSERT INTO session_message VALUES (?, ?, 'synthetic', ?, 1, 1, ?)",
                       (f"msg_stream{n:04d}", main, 5000 + n, json.dumps({"text": f"stream {n}", "time": {"created": 1}})))
            oc.execute("UPDATE session_message SET data = json_set(data, '$.content[0].text', ?) WHERE id = ?",
                       (f"stream {n}", inflight))
            oc.execute("COMMIT")
            done["oc"] = n
            msg = j({"role": "assistant", "id": f"a{n}", "content": [{"type": "text", "text": f"stream {n}"}]})
            root = f_len(1, bytes.fromhex(sha(msg))) + f_len(22, f"stream {n}")
            cur.execute("BEGIN IMMEDIATE")
            cur.execute("INSERT OR REPLACE INTO blobs VALUES (?, ?)", (sha(msg), msg))
            cur.execute("INSERT OR REPLACE INTO blobs VALUES (?, ?)", (sha(root), root))
            cur.execute("INSERT OR REPLACE INTO meta VALUES ('0', ?)",
                        (j({**meta0, "latestRootBlobId": sha(root)}).hex(),))
            cur.execute("COMMIT")
            done["cur"] = n
            stop.wait(0.005)

    out = sync_while(stream, stop, box)
    assert out["sessions"]["failed"] == 2 and len(out["errors"]) == 2 and done["oc"] > 0
    plain = decrypt_all(box)
    got = sessions(plain)
    a = next(x for x in got[f"opencode:{main}"]["artifacts"] if x["path"] == OC_DB)
    ex = sqlite_of(artifact_bytes(plain, a), tmp_path / "oc.db")
    streamed = [int(d.rpartition(" ")[2]) for (d,) in ex.execute(
        "SELECT json_extract(data, '$.text') FROM session_message WHERE id LIKE 'msg_stream%' ORDER BY seq")]
    k = len(streamed)
    assert streamed == list(range(1, k + 1))
    text = ex.execute("SELECT json_extract(data, '$.content[0].text') FROM session_message WHERE id = ?",
                      (inflight,)).fetchone()[0]
    assert text == (f"stream {k}" if k else "still stream")
    c = got[f"cursor-agent:{box.plan.ids['c_main']}"]
    db = next(x for x in c["artifacts"] if x["path"].endswith("/store.db"))
    st = sqlite_of(artifact_bytes(plain, db), tmp_path / "cur.db")
    blobs = dict(st.execute("SELECT id, data FROM blobs"))
    meta = json.loads(bytes.fromhex(st.execute("SELECT value FROM meta WHERE key = '0'").fetchone()[0]))
    root = meta["latestRootBlobId"]
    assert root in blobs and all(r in blobs for r in refs(blobs[root]))
    n_blobs = sum(1 for d in blobs.values() if d.startswith(b'{"role":"assistant","id":"a'))
    if root != box.plan.notes["root1"]:
        assert blobs[root].endswith(f"stream {n_blobs}".encode())
