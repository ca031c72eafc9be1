"""Outsider end-to-end audit of the DeepSeek harness collector (seeds/003, the persistence catalog).

A home built by this file's own generator under ~/.deepseek/sessions: JSONL sessions (header line
then events) in a unicode project folder: a main session, a subagent whose header names its
parent by file path, a child named only by its parent's `subagent/catalog` record (no origin, no
parentSession), a fork with an inherited prefix and its `session/end-seed {inherited: true}`
marker, a session still being written (torn last line), a header without optional fields and
createdAt in seconds, a 300 KB line, an event type outside the catalog, an empty file, and a file
with a truncated JSON line. A canary sits in every string field. The real CLI syncs it to a
file:// store; the objects are read back with `age` and `zstd` only.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.fx_s11_e2e import (
    OTHER, Canaries, build_in_child, decrypt_all, edges, latest_manifest, leaks, sessions_by_key, setup, tree_leaks,
)

H = "deepseek-harness"
MAIN, SUB, NAMED, FORK, LIVE, ODD, BAD = (
    "ses-main-0001", "ses-sub-0002", "ses-named-0003", "ses-fork-0004", "ses-live-0005", "ses-odd-0006", "ses-bad-0007")
PROJ = "proj-ünï"


def line(o: Any) -> bytes:
    return json.dumps(o, ensure_ascii=False).encode() + b"\n"


def header(k: Canaries, sid: str, created: int, **kw: Any) -> dict[str, Any]:
    return {"type": "session", "version": 3, "id": sid, "createdAt": created, "cwd": k.path(f"{sid}.cwd", "app ü"),
            "isSeeded": False, "delegationDepth": 0, **kw}


def ev(seq: int, typ: str, data: Any, **kw: Any) -> dict[str, Any]:
    return {"type": typ, "seq": seq, "time": 1767261600000 + seq * 1000, "data": data, **kw}


def events(k: Canaries, tag: str) -> list[dict[str, Any]]:
    c = k.c
    return [
        ev(1, "session/title", {"title": c(f"{tag}.title")}),
        ev(2, "system/message", {"turn": 0, "step": 0, "message": {"role": "system", "content": c(f"{tag}.system")}},
           surfaceOp="append"),
        ev(3, "user/message", {"role": "user", "content": [{"type": "text", "text": c(f"{tag}.user")},
                                                           {"type": "image", "attachmentId": "att_1", "alt": c(f"{tag}.alt")}]},
           surfaceOp="append"),
        ev(4, "turn/start", {"turn": 1}),
        ev(5, "tool/call", {"turn": 1, "step": 1, "callId": "call_1", "name": "bash",
                            "arguments": json.dumps({"command": f"cat {k.path(tag + '.arg')}/x", "env": c(f"{tag}.env")})}),
        ev(6, "tool/result", {"turn": 1, "step": 1, "callId": "call_1", "output": c(f"{tag}.out"),
                              "metadata": {"cwd": k.path(f"{tag}.toolcwd")}}, surfaceOp="append", sourceEventSeqs=[5]),
        ev(7, "assistant/message", {"turn": 1, "step": 2, "message": {"role": "assistant", "content": c(f"{tag}.asst"),
                                                                       "reasoning": c(f"{tag}.reason")}}, surfaceOp="append"),
        ev(8, "todo/write", {"todos": [{"id": "t1", "content": c(f"{tag}.todo"), "status": "pending"}]}),
        ev(9, "command/run", {"commandId": "cmd1", "name": "review", "args": c(f"{tag}.cmdargs"), "source": "user"}),
        ev(10, "compaction/summary", {"summary": c(f"{tag}.summary")}, surfaceOp={"op": "replace", "startSeq": 3, "endSeq": 7},
           sourceEventSeqs=[3, 6, 7]),
        ev(11, "hook/result", {"hook": "post", "stdout": c(f"{tag}.hook")}),
        ev(12, "x-plugin/unknown-thing", {"note": c(f"{tag}.unknown")}, ignorable=True),
        ev(13, "turn/end", {"turn": 1}),
    ]


def build(home: Path, k: Canaries) -> dict[str, Any]:
    root = home / ".deepseek" / "sessions"
    (root / PROJ).mkdir(parents=True)
    (root / "old").mkdir()
    main = events(k, "main") + [
        ev(14, "subagent/catalog", {"version": 0, "mode": "one-shot", "childId": NAMED, "childCreatedAt": 1767261750000,
                                    "label": k.c("main.label")}),
        ev(15, "user/message", {"role": "user", "content": [{"type": "text", "text": "Ω" * 50 + k.c("main.long") + " " + "x" * 300_000}]},
           surfaceOp="append"),
    ]
    (root / PROJ / f"{MAIN}.jsonl").write_bytes(b"".join(map(line, [header(k, MAIN, 1767261600000, agentPreset=k.c("preset")), *main])))
    (root / PROJ / f"{SUB}.jsonl").write_bytes(b"".join(map(line, [
        header(k, SUB, 1767261700000, origin="subagent", parentSession=str(root / PROJ / f"{MAIN}.jsonl"), delegationDepth=1),
        *events(k, "sub")])))
    (root / PROJ / f"{NAMED}.jsonl").write_bytes(b"".join(map(line, [header(k, NAMED, 1767261750000), *events(k, "named")[:4]])))
    (root / PROJ / f"{FORK}.jsonl").write_bytes(b"".join(map(line, [
        header(k, FORK, 1767261800000, isSeeded=True), *main[:5], ev(6, "session/end-seed", {"inherited": True}),
        ev(7, "user/message", {"role": "user", "content": [{"type": "text", "text": k.c("fork.user")}]}, surfaceOp="append")])))
    torn = line(ev(5, "assistant/message", {"message": {"content": k.c("live.torn")}}))[:70]
    (root / f"{LIVE}.jsonl").write_bytes(b"".join(map(line, [header(k, LIVE, 1767261900000), *events(k, "live")[:4]])) + torn)
    (root / "old" / f"{ODD}.jsonl").write_bytes(b"".join(map(line, [
        {"type": "session", "version": 1, "id": ODD, "createdAt": 1767261600, "isSeeded": False, "delegationDepth": 0},
        *events(k, "odd")[:3]])))
    (root / "empty.jsonl").write_bytes(b"")
    (root / f"{BAD}.jsonl").write_bytes(line(header(k, BAD, 1767262000000)) + line(ev(1, "user/message", {"content": k.c("bad.user")}))[:40]
                                        + b"\n" + line(ev(2, "assistant/message", {"message": {"content": k.c("bad.asst")}})))
    return {}


@pytest.fixture(scope="module")
def synced(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, dict[str, Any], dict[str, bytes], dict[str, Any]]:
    tmp_path = tmp_path_factory.mktemp("deepseek")
    s = setup(tmp_path, H)
    built = build_in_child(build, s.home, tmp_path / "built.json")
    r = s.cli("sync")
    plain = decrypt_all(s)
    return s, built, plain, {"rc": r.returncode, "stderr": r.stderr, "manifest": latest_manifest(plain)}


def test_sync_archives_every_session_with_its_lineage_and_no_canary_left(synced: Any) -> None:
    s, built, plain, run = synced
    assert run["rc"] == 0, run["stderr"][-2000:]
    assert leaks(plain, built["needles"]) == []
    by = sessions_by_key(run["manifest"])
    assert set(by) == {f"{H}:{x}" for x in (MAIN, SUB, NAMED, FORK, LIVE, ODD, BAD, "empty")}
    paths = {key: [a["path"] for a in ses["artifacts"]] for key, ses in by.items()}
    base = ".deepseek/sessions"
    assert paths[f"{H}:{MAIN}"] == [f"{base}/{PROJ}/{MAIN}.jsonl"]
    assert paths[f"{H}:{ODD}"] == [f"{base}/old/{ODD}.jsonl"]
    assert paths[f"{H}:{LIVE}"] == [f"{base}/{LIVE}.jsonl"]
    assert edges(by[f"{H}:{SUB}"]) == [("subagent", f"{H}:{MAIN}", None)]  # MAIN names it nowhere
    assert edges(by[f"{H}:{NAMED}"]) == [("subagent", f"{H}:{MAIN}", "seq=14")]  # its subagent/catalog entry
    assert edges(by[f"{H}:{FORK}"]) == [("fork", f"{H}:{MAIN}", "seq=6")]
    assert by[f"{H}:{FORK}"]["parents"][0]["inferred"] is True
    assert [by[f"{H}:{x}"]["kind"] for x in (MAIN, SUB, NAMED, FORK, LIVE, ODD)] == [
        "main", "subagent", "subagent", "fork", "main", "main"]
    assert by[f"{H}:{ODD}"]["created_at"] == "2026-01-01T10:00:00Z"  # seconds read as such
    # the truncated line fails only its own file, named with the line
    assert f"{BAD}.jsonl: 1 unparseable line(s) kept as they are (line 2)" in by[f"{H}:{BAD}"]["warnings"]
    assert any("x-plugin/unknown-thing x1" in w for w in by[f"{H}:{MAIN}"]["warnings"])
    title = by[f"{H}:{MAIN}"]["title"]
    assert title.startswith("[main.title] see ") and "<EMAIL:" in title and "<GITHUB_TOKEN:" in title


def test_restore_into_another_home_then_a_live_session_grows(synced: Any, tmp_path: Path) -> None:
    s, built, plain, run = synced
    other = tmp_path / OTHER
    got = s.restore(other, f"{H}:{FORK}", family=True)
    assert set(got["sessions"]) == {f"{H}:{x}" for x in (MAIN, SUB, NAMED, FORK)}
    root = other / ".deepseek" / "sessions"
    assert sorted(p.name for p in (root / PROJ).iterdir()) == sorted(f"{x}.jsonl" for x in (MAIN, SUB, NAMED, FORK))
    assert tree_leaks(other, built["needles"]) == []
    for f in (root / PROJ).iterdir():  # every line still JSON, the header first
        rows = [json.loads(x) for x in f.read_bytes().splitlines()]
        assert rows[0]["type"] == "session" and rows[0]["id"] == f.stem
    big = (root / PROJ / f"{MAIN}.jsonl").read_bytes().splitlines()[15]
    assert len(big) > 300_000 and b"<EMAIL:" in big and b"<CREDIT_CARD:" in big

    # the torn line of the live session is completed and the session grows: the next sync and a
    # restore give every line whole
    live = s.home / ".deepseek" / "sessions" / f"{LIVE}.jsonl"
    data = live.read_bytes()
    k = Canaries(str(s.home))
    k.n = 900
    more = [ev(5, "assistant/message", {"message": {"content": k.c("live.done")}}), ev(6, "turn/end", {"turn": 1})]
    live.write_bytes(data[: data.rfind(b"\n") + 1] + b"".join(map(line, more)))
    r = s.cli("sync")
    assert r.returncode == 0, r.stderr[-2000:]
    assert leaks(decrypt_all(s), k.needles()) == []
    again = s.restore(tmp_path / "again", f"{H}:{LIVE}")
    rows = [json.loads(x) for x in (tmp_path / "again" / ".deepseek/sessions" / f"{LIVE}.jsonl").read_bytes().splitlines()]
    assert [r.get("seq") for r in rows] == [None, 1, 2, 3, 4, 5, 6]
    assert again["errors"] == [] and "<EMAIL:" in rows[5]["data"]["message"]["content"]
