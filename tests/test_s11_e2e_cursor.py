"""Outsider end-to-end audit of the Cursor agent CLI collector (seeds/by-harness/cursor-agent.json).

A home built by this file's own generator (not tests/fx_home.py): store.db blob graphs in WAL
mode with a live -wal (prompt JSON, protobuf roots, turns, user messages with an image, steps,
shell turns, todos, summaries and compaction archives, file_states / file_states_v2 with a raw
file that is JSON, inline and by-reference subagents with run states, an older root as rewind
anchor, a superseded step), meta.json, prompt_history.json, the JSONL mirrors (nested,
subagents/, legacy flat with its chat folder gone), terminals/ output, a cloud transcript, a
run's output file, a fork with '(forked)', an own-store subagent, a chat without checkpoint or
meta.json (createdAt in seconds, legacy mode), an ACP session, the global prompt history, and
a chat whose store.db is not a database. A canary sits in every string field.

The real CLI syncs it to a file:// store; the objects are read back with `age` and `zstd` only.
"""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from tests.fx_s11_e2e import (
    KEEP_OPEN, OTHER, USER, Canaries, build_in_child, decrypt_all, edges, latest_manifest, leaks, sessions_by_key, setup,
    tree_leaks,
)

H = "cursor-agent"
A = "11111111-1111-4111-8111-111111111111"  # main chat
S1 = "22222222-2222-4222-8222-222222222222"  # inline subagent (field 16), run tool_task1
S2 = "33333333-3333-4333-8333-333333333333"  # subagent by reference (field 31), cloud transcript
B = "44444444-4444-4444-8444-444444444444"  # fork of A
C = "55555555-5555-4555-8555-555555555555"  # subagent with its own store (meta.subagentInfo)
D = "66666666-6666-4666-8666-666666666666"  # no checkpoint, no meta.json
E = "77777777-7777-4777-8777-777777777777"  # ACP session
O = "88888888-8888-4888-8888-888888888888"  # legacy flat mirror whose chat folder is gone
X = "99999999-9999-4999-8999-999999999999"  # store.db that is not a database


# ---------------------------------------------------------------- protobuf writer


def _vi(n: int) -> bytes:
    out = bytearray()
    while True:
        b, n = n & 0x7F, n >> 7
        if not n:
            out.append(b)
            return bytes(out)
        out.append(b | 0x80)


def ld(f: int, b: bytes | str) -> bytes:
    raw = b.encode() if isinstance(b, str) else b
    return _vi(f << 3 | 2) + _vi(len(raw)) + raw


def u(f: int, n: int) -> bytes:
    return _vi(f << 3) + _vi(n)


def mapent(f: int, k: str, v: bytes) -> bytes:
    return ld(f, ld(1, k) + ld(2, v))


def md5(cwd: str) -> str:
    return hashlib.md5(cwd.encode()).hexdigest()


def slug(cwd: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", cwd).strip("-")


def J(o: Any) -> str:
    return json.dumps(o, ensure_ascii=False)


class Store:
    """A chat's store.db: meta(key, value hex JSON) + blobs(id = sha256, data), WAL, never closed."""

    def __init__(self, f: Path, meta: dict[str, Any]) -> None:
        f.parent.mkdir(parents=True, exist_ok=True)
        self.conn = sqlite3.connect(f, isolation_level=None)
        KEEP_OPEN.append(self.conn)
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.execute("PRAGMA wal_autocheckpoint=0")
        self.conn.execute("PRAGMA user_version=1")
        self.conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
        self.conn.execute("CREATE TABLE blobs (id TEXT PRIMARY KEY, data BLOB)")
        self.blobs: dict[str, bytes] = {}
        self.set_meta(meta)

    def set_meta(self, meta: dict[str, Any]) -> None:
        self.meta = meta
        self.conn.execute("INSERT OR REPLACE INTO meta VALUES ('0', ?)", (J(meta).encode().hex(),))

    def put(self, data: bytes | str) -> bytes:
        raw = data.encode() if isinstance(data, str) else data
        h = hashlib.sha256(raw).digest()
        self.conn.execute("INSERT OR REPLACE INTO blobs VALUES (?, ?)", (h.hex(), raw))
        self.blobs[h.hex()] = raw
        return h

    def put_json(self, o: Any) -> bytes:
        return self.put(J(o))


def conversation(st: Store, k: Canaries, tag: str, cwd: str, term: str, prev_root: bytes | None,
                 extra: bytes = b"") -> bytes:
    """One checkpoint: prompt JSON + a turn (user message, text/thinking/tool steps) + a shell
    turn + todo, summary, compaction archive, file states, read paths, branches, plans."""
    c = k.c
    sysm = st.put_json({"role": "system", "content": c(f"{tag}.system")})
    info = st.put_json({"role": "user", "content": f"<user_info>workspace {cwd} {c(tag + '.userinfo')}</user_info>",
                        "providerOptions": {"cursor": {"requestContextCompleteness": {"env": True}}}})
    q = st.put_json({"role": "user", "content": [{"type": "text", "text": f"<user_query>\n{c(tag + '.query')}\n</user_query>"}],
                     "providerOptions": {"cursor": {"requestId": "00000000-0000-4000-8000-000000000002"}}})
    a = st.put_json({"role": "assistant", "id": "1", "content": [
        {"type": "redacted-reasoning", "data": "ZXhhbXBsZQ==", "providerOptions": {"cursor": {"modelName": "m"}}},
        {"type": "reasoning", "text": c(f"{tag}.reasoning")},
        {"type": "text", "text": c(f"{tag}.asst")},
        {"type": "tool-call", "toolCallId": "tool_1", "toolName": "Shell",
         "args": {"command": f"ls {k.path(tag + '.shellarg')}", "cwd": cwd}}]})
    t = st.put_json({"role": "tool", "id": "tool_1", "content": [{
        "type": "tool-result", "toolCallId": "tool_1", "toolName": "Shell", "result": c(f"{tag}.toolresult"),
        "experimental_content": [{"type": "text", "text": c(f"{tag}.toolexp")}]}],
        "providerOptions": {"cursor": {"highLevelToolCallResult": {"output": {"success": {
            "stdout": c(f"{tag}.hl"), "outputLocation": {"filePath": term}}, "terminalsFolder": str(Path(term).parent)},
            "isError": False, "rawErrorMessages": [c(f"{tag}.rawerr")]}}}})
    summ = st.put_json({"role": "user", "content": c(f"{tag}.summarymsg"), "providerOptions": {"cursor": {"isSummary": True}}})
    old = st.put_json({"role": "user", "content": c(f"{tag}.archivedmsg")})
    archive = st.put(ld(1, old) + ld(2, c(f"{tag}.archivesummary")) + u(3, 4) + ld(4, summ))
    img = st.put(b"\x89PNG\r\n\x1a\n" + c(f"{tag}.imagebytes").encode())
    pkg = st.put(J({"name": "pkg", "author": c(f"{tag}.pkgjson")}))  # a raw file snapshot that is JSON
    usr = st.put(ld(1, c(f"{tag}.usertext")) + ld(2, "00000000-0000-4000-8000-0000000000aa")
                 + ld(3, ld(1, ld(1, img) + ld(2, "uuid") + ld(3, k.path(tag + ".imgpath", "shot.png")) + ld(5, "image/png")))
                 + u(4, 1) + (ld(10, prev_root) if prev_root else b"") + ld(8, c(f"{tag}.richtext"))
                 + ld(21, ld(1, "sessionStart") + ld(2, c(f"{tag}.hook"))))
    step_a = st.put(ld(1, ld(1, c(f"{tag}.step.asst"))))
    step_t = st.put(ld(3, ld(1, c(f"{tag}.step.think")) + u(2, 1200)))
    shell = ld(1, ld(1, f"ls {k.path(tag + '.pbshell')}") + ld(2, cwd)) + ld(2, ld(1, ld(1, c(f"{tag}.pbstdout")) + ld(7, term)))
    step_tool = st.put(ld(2, ld(1, shell) + ld(57, "tool_1")))
    turn = st.put(ld(1, ld(1, usr) + ld(2, step_a) + ld(2, step_t) + ld(2, step_tool)
                       + ld(3, "00000000-0000-4000-8000-000000000002") + ld(7, c(f"{tag}.routed"))))
    shcmd = st.put(ld(1, c(f"{tag}.usershell")))
    shout = st.put(ld(1, c(f"{tag}.usershellout")) + ld(2, c(f"{tag}.usershellerr")))
    turn2 = st.put(ld(2, ld(1, shcmd) + ld(2, shout)))
    todo = st.put(ld(1, "1") + ld(2, c(f"{tag}.todo")) + u(3, 1))
    summary = st.put(ld(1, c(f"{tag}.convsummary")))
    content = st.put(c(f"{tag}.filecontent"))
    root = (ld(1, sysm) + ld(1, info) + ld(1, q) + ld(1, a) + ld(1, t) + ld(8, turn) + ld(8, turn2) + ld(3, todo)
            + ld(6, summary) + ld(9, "file://" + cwd) + ld(13, archive)
            + ld(15, ld(1, k.path(tag + ".fsv2", "src/a.ts")) + ld(2, ld(1, content) + ld(2, pkg)))
            + mapent(12, k.path(tag + ".fs1", "b.ts"), content)
            + ld(18, k.path(tag + ".readpath", "c.ts")) + ld(19, "feat-" + k.parts(tag + ".branch")["email"])
            + ld(21, ld(1, k.path(tag + ".repo")) + ld(2, "feature/" + k.parts(tag + ".gitbranch")["email"]))
            + ld(20, ld(1, "p1") + ld(2, ld(1, "p1") + ld(2, k.path(tag + ".plan", "plan.md"))))
            + ld(27, "Europe/Berlin") + extra)
    return st.put(root)


def build(home: Path, k: Canaries) -> dict[str, Any]:
    cur = home / ".cursor"
    cwd = k.path("cwd", "proj ü")
    wdir = cur / "chats" / md5(cwd)
    proj = cur / "projects" / slug(cwd)
    (proj / "terminals").mkdir(parents=True)
    term = proj / "terminals" / "3.txt"
    term.write_text(k.c("terminal.file"))
    at = proj / "agent-transcripts"
    (at / "cloud").mkdir(parents=True)
    (at / "cloud" / "bc_1.jsonl").write_text(J({"role": "user", "message": {"content": [{"type": "text", "text": k.c("cloud")}]}}) + "\n")
    (proj / "subagent-output").mkdir()
    (proj / "subagent-output" / "run1.txt").write_text(k.c("run.output"))

    st = Store(wdir / A / "store.db", {"agentId": A, "latestRootBlobId": "", "name": k.c("A.name"), "createdAt": 1767261600000,
                                       "mode": "default", "isRunEverything": False, "lastUsedModel": "m",
                                       "currentPlanUri": "file://" + k.path("planuri", "p.md"), "blobEncryptionKey": "ab" * 32})
    r0 = conversation(st, k, "A0", cwd, str(term), None)
    s1_root = st.blobs.pop(conversation(st, k, "S1", cwd, str(term), None).hex())
    s2_root = st.blobs.pop(conversation(st, k, "S2", cwd, str(term), None).hex())
    st.conn.execute("DELETE FROM blobs WHERE data IN (?, ?)", (s1_root, s2_root))  # inline only
    sub1 = ld(1, s1_root) + u(2, 1767261610000) + u(3, 1767261620000) + ld(4, ld(1, b"")) + ld(5, "m")
    sub2 = st.put(ld(1, s2_root) + u(2, 1767261610000) + u(3, 1767261620000) + ld(4, ld(2, ld(1, k.c("S2.typename"))))
                  + ld(7, ld(1, "bc_1") + ld(2, str(at / "cloud" / "bc_1.jsonl"))))
    run = (ld(1, "tool_task1") + ld(2, S1) + ld(5, k.c("run.title")) + ld(6, k.c("run.detail"))
           + ld(8, str(proj / "subagent-output" / "run1.txt")))
    subs = ld(16, ld(1, S1) + ld(2, sub1)) + mapent(31, S2, sub2) + mapent(30, "tool_task1", run)
    r1 = conversation(st, k, "A1", cwd, str(term), r0, subs)
    st.put(ld(1, ld(1, k.c("A.superseded.step"))))  # unreachable: a step re-written since
    st.set_meta(dict(st.meta, latestRootBlobId=r1.hex()))
    (wdir / A / "meta.json").write_text(J({"schemaVersion": 1, "createdAtMs": 1767261600000, "updatedAtMs": 1767261700000,
                                           "hasConversation": True, "title": k.c("A.metatitle"), "cwd": cwd}))
    (wdir / A / "prompt_history.json").write_text(J([k.c("A.hist2"), k.c("A.hist1")]))
    (at / A / "subagents").mkdir(parents=True)
    (at / A / f"{A}.jsonl").write_text(
        J({"role": "user", "message": {"content": [{"type": "text", "text": k.c("A.mirror")}]}}) + "\n"
        + J({"role": "assistant", "message": {"content": [{"type": "text", "text": "[REDACTED]\n\nok"},
                                                          {"type": "tool_use", "name": "Read", "input": {"path": k.path("A.mirrortool")}}]}}) + "\n"
        + J({"type": "turn_ended", "status": "error", "error": k.c("A.turnerr")}) + "\n")
    (at / A / "subagents" / f"{S1}.jsonl").write_text(J({"role": "user", "message": {"content": [{"type": "text", "text": k.c("S1.mirror")}]}}) + "\n")
    (at / A / "subagents" / f"{C}.jsonl").write_text(J({"role": "user", "message": {"content": [{"type": "text", "text": k.c("C.mirror")}]}}) + "\n")

    # B: /fork copies every blob, same root, '<name> (forked)', later createdAt, then a turn of its own
    sb = Store(wdir / B / "store.db", dict(st.meta, agentId=B, name=st.meta["name"] + " (forked)", createdAt=1767261800000))
    for v in st.blobs.values():
        sb.put(v)
    sb.set_meta(dict(sb.meta, latestRootBlobId=conversation(sb, k, "B", cwd, str(term), r1).hex()))
    (wdir / B / "meta.json").write_text(J({"schemaVersion": 1, "createdAtMs": 1767261800000, "hasConversation": True,
                                           "title": sb.meta["name"], "cwd": cwd}))
    (at / B).mkdir()
    (at / B / f"{B}.jsonl").write_text(J({"role": "user", "message": {"content": [{"type": "text", "text": k.c("B.mirror")}]}}) + "\n")

    sc = Store(wdir / C / "store.db", {"agentId": C, "latestRootBlobId": "", "name": k.c("C.name"), "createdAt": 1767261900000,
                                       "mode": "default", "isRunEverything": True,
                                       "subagentInfo": {"parentAgentId": A, "rootParentAgentId": A, "toolCallId": "tool_c",
                                                        "typeName": k.c("C.type")}})
    sc.set_meta(dict(sc.meta, latestRootBlobId=conversation(sc, k, "C", cwd, str(term), None).hex()))
    (wdir / C / "meta.json").write_text(J({"schemaVersion": 1, "createdAtMs": 1767261900000, "hasConversation": True,
                                           "isSubagent": True, "cwd": cwd}))

    Store(wdir / D / "store.db", {"agentId": D, "latestRootBlobId": "", "name": "New Agent", "createdAt": 1767262000,
                                  "mode": "auto-run", "isRunEverything": False})

    se = Store(cur / "acp-sessions" / E / "store.db", {"agentId": E, "latestRootBlobId": "", "name": k.c("E.name"),
                                                       "createdAt": 1767262100000, "mode": "plan", "isRunEverything": False})
    se.set_meta(dict(se.meta, latestRootBlobId=conversation(se, k, "E", cwd, str(term), None).hex()))
    (cur / "acp-sessions" / E / "meta.json").write_text(J({"schemaVersion": 1, "cwd": cwd, "title": k.c("E.metatitle")}))

    (at / f"{O}.jsonl").write_text(J({"role": "user", "message": {"content": [{"type": "text", "text": k.c("O.mirror")}]}}) + "\n")
    (cur / "prompt_history.json").write_text(J([k.c("globalhist")]))
    (wdir / X).mkdir()
    (wdir / X / "store.db").write_bytes(b"this is not a database " + k.c("X.bad").encode() * 20)
    (wdir / X / "meta.json").write_text(J({"schemaVersion": 1, "createdAtMs": 1, "hasConversation": True,
                                           "title": k.c("X.title"), "cwd": cwd}))
    return {"cwd": cwd, "roots": {A: r1.hex()}}


# ---------------------------------------------------------------- the audit


@pytest.fixture(scope="module")
def synced(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, dict[str, Any], dict[str, bytes], dict[str, Any]]:
    """One home, one `archiver sync` (the CLI in its own process), the store decrypted by CLIs."""
    tmp_path = tmp_path_factory.mktemp("cursor")
    s = setup(tmp_path, H)
    built = build_in_child(build, s.home, tmp_path / "built.json")
    assert list(s.home.rglob("store.db-wal")), "the generator left no live -wal"
    r = s.cli("sync")
    plain = decrypt_all(s)
    return s, built, plain, {"rc": r.returncode, "stderr": r.stderr, "manifest": latest_manifest(plain)}


def test_sync_archives_every_chat_and_sidecar_with_no_canary_left(synced: Any, tmp_path: Path) -> None:
    s, built, plain, run = synced
    # the one corrupt store fails only its own chat, with the file and the reason
    assert run["rc"] == 1
    bad = [line for line in run["stderr"].splitlines() if line.startswith("archiver: ") and ":" + X in line]
    assert len(bad) == 1 and f"{X}/store.db" in bad[0] and "not a readable SQLite database" in bad[0], run["stderr"][-2000:]
    assert "file is not a database" in bad[0]
    assert leaks(plain, built["needles"]) == []

    by = sessions_by_key(run["manifest"])
    assert set(by) == {f"{H}:{x}" for x in (A, S1, S2, B, C, D, E, O, "@host")}
    paths = {key: {a["path"] for a in ses["artifacts"]} for key, ses in by.items()}
    chats = {p.split("/")[2] for ps in paths.values() for p in ps if p.startswith(".cursor/chats/")}
    assert len(chats) == 1  # every chat of the workspace in one md5 folder, md5 of the redacted cwd
    (ws,) = chats
    projects = {p.split("/")[2] for ps in paths.values() for p in ps if p.startswith(".cursor/projects/")}
    assert len(projects) == 1
    (proj,) = projects
    meta_json = next(plain[f"objects/{o[:2]}/{o}"] for a in by[f"{H}:{A}"]["artifacts"]
                     if a["path"].endswith("/meta.json") for o in a["objects"])
    red_cwd = json.loads(meta_json)["cwd"]
    assert USER not in red_cwd and md5(red_cwd) == ws and slug(red_cwd) == proj
    assert paths[f"{H}:{A}"] == {
        f".cursor/chats/{ws}/{A}/store.db", f".cursor/chats/{ws}/{A}/meta.json", f".cursor/chats/{ws}/{A}/prompt_history.json",
        f".cursor/projects/{proj}/agent-transcripts/{A}/{A}.jsonl", f".cursor/projects/{proj}/terminals/3.txt"}
    assert paths[f"{H}:{S1}"] == {
        f".cursor/chats/{ws}/{A}/store.db", f".cursor/projects/{proj}/agent-transcripts/{A}/subagents/{S1}.jsonl",
        f".cursor/projects/{proj}/terminals/3.txt", f".cursor/projects/{proj}/subagent-output/run1.txt"}
    assert paths[f"{H}:{S2}"] == {
        f".cursor/chats/{ws}/{A}/store.db", f".cursor/projects/{proj}/agent-transcripts/cloud/bc_1.jsonl",
        f".cursor/projects/{proj}/terminals/3.txt"}
    assert paths[f"{H}:{B}"] == {f".cursor/chats/{ws}/{B}/store.db", f".cursor/chats/{ws}/{B}/meta.json",
                                 f".cursor/projects/{proj}/agent-transcripts/{B}/{B}.jsonl",
                                 f".cursor/projects/{proj}/terminals/3.txt"}
    assert paths[f"{H}:{C}"] == {f".cursor/chats/{ws}/{C}/store.db", f".cursor/chats/{ws}/{C}/meta.json",
                                 f".cursor/projects/{proj}/agent-transcripts/{A}/subagents/{C}.jsonl",
                                 f".cursor/projects/{proj}/terminals/3.txt"}
    assert paths[f"{H}:{D}"] == {f".cursor/chats/{ws}/{D}/store.db"}
    assert paths[f"{H}:{E}"] == {f".cursor/acp-sessions/{E}/store.db", f".cursor/acp-sessions/{E}/meta.json",
                                 f".cursor/projects/{proj}/terminals/3.txt"}
    assert paths[f"{H}:{O}"] == {f".cursor/projects/{proj}/agent-transcripts/{O}.jsonl"}
    assert paths[f"{H}:@host"] == {".cursor/prompt_history.json"}
    # the shared store is one object for the chat and its two subagents
    objs = {key: {a["path"]: a["objects"] for a in ses["artifacts"]} for key, ses in by.items()}
    store_a = f".cursor/chats/{ws}/{A}/store.db"
    assert objs[f"{H}:{A}"][store_a] == objs[f"{H}:{S1}"][store_a] == objs[f"{H}:{S2}"][store_a]

    # lineage as the seed encodes it
    assert edges(by[f"{H}:{S1}"]) == [("subagent", f"{H}:{A}", "tool_task1")]
    assert edges(by[f"{H}:{S2}"]) == [("subagent", f"{H}:{A}", None)]
    assert edges(by[f"{H}:{C}"]) == [("subagent", f"{H}:{A}", "tool_c")]
    assert edges(by[f"{H}:{B}"]) == [("fork", f"{H}:{A}", built["facts"]["roots"][A])]
    assert by[f"{H}:{B}"]["parents"][0]["inferred"] is True
    assert [by[f"{H}:{x}"]["kind"] for x in (A, S1, S2, B, C, D, E)] == ["main", "subagent", "subagent", "fork",
                                                                         "subagent", "main", "main"]

    # the archived store is the redacted one, blob graph intact and its meta still hex JSON
    db = tmp_path / "a.db"
    db.write_bytes(plain[f"objects/{objs[f'{H}:{A}'][store_a][0][:2]}/{objs[f'{H}:{A}'][store_a][0]}"])
    conn = sqlite3.connect(db)
    meta = json.loads(bytes.fromhex(conn.execute("SELECT value FROM meta WHERE key = '0'").fetchone()[0]))
    assert meta["latestRootBlobId"] == built["facts"]["roots"][A]
    assert conn.execute("SELECT 1 FROM blobs WHERE id = ?", (meta["latestRootBlobId"],)).fetchone()
    assert "<GITHUB_TOKEN:" in meta["name"] and "<EMAIL:" in meta["name"]
    texts = b"".join(bytes(d) for (d,) in conn.execute("SELECT data FROM blobs"))
    assert b"<CREDIT_CARD:" in texts and b"<AWS_ACCESS_KEY:" in texts
    conn.close()


def test_restore_each_session_and_family_into_another_home(synced: Any, tmp_path: Path) -> None:
    s, built, plain, run = synced
    needles = built["needles"]
    # every session into a home of another user
    other = tmp_path / OTHER
    got = s.restore(other)
    assert set(got["sessions"]) == {f"{H}:{x}" for x in (A, S1, S2, B, C, D, E, O, "@host")}
    assert got["refused"] == [] and got["errors"] == []
    assert tree_leaks(other, needles) == []
    cur = other / ".cursor"
    (ws,) = [p.name for p in (cur / "chats").iterdir()]
    (proj,) = [p.name for p in (cur / "projects").iterdir()]
    for chat in (A, B, C):  # where Cursor looks: chats/<md5(cwd)>/<id>/ and projects/<slug(cwd)>/
        mj = json.loads((cur / "chats" / ws / chat / "meta.json").read_text())
        assert md5(mj["cwd"]) == ws and slug(mj["cwd"]) == proj and USER not in mj["cwd"]
    for store in [*(cur / "chats" / ws).glob("*/store.db"), cur / "acp-sessions" / E / "store.db"]:
        conn = sqlite3.connect(store)
        meta = json.loads(bytes.fromhex(conn.execute("SELECT value FROM meta WHERE key = '0'").fetchone()[0]))
        assert meta["agentId"] == store.parent.name
        if meta["latestRootBlobId"]:
            assert conn.execute("SELECT 1 FROM blobs WHERE id = ?", (meta["latestRootBlobId"],)).fetchone()
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 1
        conn.close()
    assert (cur / "projects" / proj / "agent-transcripts" / A / "subagents" / f"{S1}.jsonl").is_file()
    assert (cur / "projects" / proj / "agent-transcripts" / f"{O}.jsonl").is_file()
    assert (cur / "prompt_history.json").is_file()
    assert "<EMAIL:" in (cur / "projects" / proj / "terminals" / "3.txt").read_text()

    # a subagent alone brings the store it lives in, not the parent's other files
    one = s.restore(tmp_path / "one", f"{H}:{S1}")
    assert sorted(one["files"]) == sorted([
        f".cursor/chats/{ws}/{A}/store.db", f".cursor/projects/{proj}/agent-transcripts/{A}/subagents/{S1}.jsonl",
        f".cursor/projects/{proj}/terminals/3.txt", f".cursor/projects/{proj}/subagent-output/run1.txt"])
    # the family of the fork: A, its subagents, the fork
    fam = s.restore(tmp_path / "fam", f"{H}:{B}", family=True)
    assert {f"{H}:{x}" for x in (A, S1, S2, B, C)} <= set(fam["sessions"]) and fam["errors"] == []
    assert (tmp_path / "fam" / ".cursor" / "chats" / ws / B / "store.db").is_file()
    assert tree_leaks(tmp_path / "fam", needles) == []


def test_a_runs_output_path_goes_with_its_subagent(tmp_path: Path) -> None:
    """SubagentRunState.output_path (field 8, seed order) names the file a subagent run wrote:
    archived with the run's subagent like its transcript_path; outside Cursor folders, reported.
    The old collector read transcript_path only: the output file was never archived."""
    from archiver.harnesses.base import HarnessContext, load_harness

    home = tmp_path / "h"
    k = Canaries(str(home))
    cwd = k.path("cwd")
    out = home / ".cursor" / "projects" / slug(cwd) / "subagent-output" / "r.txt"
    out.parent.mkdir(parents=True)
    out.write_text("output of the run")
    elsewhere = tmp_path / "elsewhere.txt"
    elsewhere.write_text("x")
    st = Store(home / ".cursor" / "chats" / md5(cwd) / A / "store.db",
               {"agentId": A, "latestRootBlobId": "", "name": "n", "createdAt": 1767261600000, "mode": "default",
                "isRunEverything": False})
    sub = ld(1, ld(1, b"")) + u(2, 1767261610000)
    runs = (mapent(30, "tool_a", ld(1, "tool_a") + ld(2, S1) + ld(8, str(out)))
            + mapent(30, "tool_b", ld(1, "tool_b") + ld(8, str(elsewhere))))
    root = conversation(st, k, "A", cwd, str(home / "t.txt"), None, ld(16, ld(1, S1) + ld(2, sub)) + runs)
    st.set_meta(dict(st.meta, latestRootBlobId=root.hex()))
    st.conn.close()
    found = {s.session_id: s for s in load_harness(H, HarnessContext(home=home, env={})).discover()}
    s1 = {src.source: src for src in found[S1].sources}
    assert out in s1 and s1[out].role == "sidecar" and s1[out].optional
    assert s1[out].path == f".cursor/projects/{slug(cwd)}/subagent-output/r.txt"
    assert out not in {src.source for src in found[A].sources}
    assert f"output_path {elsewhere}: not under a Cursor folder; not archived" in found[A].warnings


def test_symlinks_named_like_chat_files_are_not_followed(tmp_path: Path) -> None:
    """A terminals/ file, a JSONL mirror, meta.json or the global prompt history that is a
    symlink (to a key, say) is never read: the old collector followed them and archived the
    file they point at (redacted, but it left HOME)."""
    from archiver.harnesses.base import HarnessContext, load_harness

    home = tmp_path / "h"
    k = Canaries(str(home))
    cwd = k.path("cwd")
    key = tmp_path / "id_ed25519"
    key.write_text("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\n")
    proj = home / ".cursor" / "projects" / slug(cwd)
    (proj / "terminals").mkdir(parents=True)
    (proj / "terminals" / "3.txt").symlink_to(key)
    (proj / "agent-transcripts" / A).mkdir(parents=True)
    (proj / "agent-transcripts" / A / f"{A}.jsonl").symlink_to(key)
    (proj / "agent-transcripts" / f"{O}.jsonl").symlink_to(key)
    chat = home / ".cursor" / "chats" / md5(cwd) / A
    st = Store(chat / "store.db", {"agentId": A, "latestRootBlobId": "", "name": "n", "createdAt": 1767261600000,
                                   "mode": "default", "isRunEverything": False})
    st.set_meta(dict(st.meta, latestRootBlobId=conversation(st, k, "A", cwd, str(proj / "terminals" / "3.txt"), None).hex()))
    st.conn.close()
    (chat / "meta.json").symlink_to(key)
    (chat / "prompt_history.json").symlink_to(key)
    (home / ".cursor" / "prompt_history.json").symlink_to(key)
    found = list(load_harness(H, HarnessContext(home=home, env={})).discover())
    read = {src.source.resolve() for s in found for src in s.sources}
    assert key.resolve() not in read
    assert [s.session_id for s in found] == [A]
    assert [src.path.rsplit("/", 1)[-1] for src in found[0].sources] == ["store.db"]
