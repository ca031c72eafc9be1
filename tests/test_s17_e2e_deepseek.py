"""s17 fresh-eyes end-to-end check of the DeepSeek collector against the persistence catalog
(seeds/003_37255de69aaa2bf4.txt).

A HOME written by tests/fx_s17_e2e.py from the catalog alone: every declared event type with a
secret in each string field, a delegated child (origin subagent, parentSession = id) and its own
child at depth 2 (parentSession = file path), children named only by the parent's
`tool-workflow/agent-start` and by a subagent-settled notice in `agent/inbox/spliced`, a fork
with an inherited prefix and its `session/end-seed {inherited: true}` cut, a fork of that fork
whose prefix ends in the ancestor marker, a fork naming its parent by path (restore names the
restored parent file there, as in the child naming its parent by path), a session resumed in
place (untagged marker), a seeded session, an empty file, a header only, a torn last line, CRLF,
a 300 KB line, a corrupt line, a minimal header with createdAt in seconds and an unknown required
event. The real CLI syncs it to a file:// store; objects are read back with `age` and `zstd`.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.fx_s11_e2e import decrypt_all, decrypt_object
from tests.fx_s17_e2e import (
    DS_BAD, DS_CHILD, DS_CRLF, DS_EMPTY, DS_FORK, DS_FORK2, DS_FORK_P, DS_GRAND, DS_HEADER, DS_LONG, DS_MAIN, DS_MIN,
    DS_NOTICE, DS_RESUMED, DS_SEEDED, DS_TORN, DS_WF, OTHER, USER, Plant, build_deepseek, ds_append,
    find_leaks, make_run,
)

H = "deepseek-harness"
# the catalog's "Persistence type fingerprints" table, event rows
CATALOG_EVENTS = """
agent-preset/selected agent/inbox/spliced approval/asked approval/decided approval/policy assistant/attempt
assistant/message command/done command/run compaction/end compaction/prune compaction/start compaction/summary
deliverables/presented feedback/message-delete feedback/message-put feedback/record goal/change hook/invoked
hook/result image/offload llm/retry llm/retry-started model/selection permission/preset plan/mode request/context
request/header sandbox/mode schedule/change session-log-deepseek/delivery-accepted session/end-seed session/title
session/title-llm-request step/end step/start subagent/catalog subagent/descriptor subagent/model-selection-policy
system/message team/member team/message/delivered team/message/queued team/task todo/write tool-workflow/agent-end
tool-workflow/agent-start tool-workflow/run-end tool-workflow/run-start tool/call tool/ptc-dispatch
tool/ptc-dispatch-start tool/result turn/end turn/start user/message web/deepseek-search-llm-request
""".split()


def key(sid: str) -> str:
    return f"{H}:{sid}"


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    base = tmp_path_factory.mktemp("s17ds")
    base.chmod(0o700)
    r = make_run(base, H)
    p = Plant(str(r.home))
    f = build_deepseek(r.home, p)
    sync = r.json("sync")
    plain = decrypt_all(r)
    snaps = sorted(k for k in plain if k.startswith("snapshots/"))
    manifest = json.loads(plain[snaps[-1]])
    yield {"r": r, "p": p, "f": f, "sync": sync, "plain": plain, "manifest": manifest,
           "by_key": {s["key"]: s for s in manifest["sessions"]}}
    shutil.rmtree(base, ignore_errors=True)


def object_bytes(w: dict[str, Any], art: dict[str, Any]) -> bytes:
    return b"".join(w["plain"][f"objects/{o[:2]}/{o}"] for o in art["objects"])


def transcript(w: dict[str, Any], sid: str) -> dict[str, Any]:
    [art] = w["by_key"][key(sid)]["artifacts"]
    assert art["role"] == "transcript"
    return art


def test_every_session_archived_whole_at_its_place(world: dict[str, Any]) -> None:
    w, f = world, world["f"]
    n = len(f.files)
    assert n == 17
    assert w["sync"]["sessions"] == {"total": n, "uploaded": n, "unchanged": 0, "failed": 0}
    assert sorted(w["by_key"]) == sorted(key(s) for s in f.files)
    for sid, src in f.files.items():
        art = transcript(w, sid)
        assert art["path"] == ".deepseek/sessions/" + src.relative_to(f.root).as_posix()
        got, want = object_bytes(w, art), src.read_bytes()
        assert art["size"] == len(got)
        assert got.count(b"\n") == want.count(b"\n"), sid
        for a, b in zip(got.splitlines(), want.splitlines()):
            try:
                rb = json.loads(b)
            except ValueError:
                assert b"\xff\xfe" in a, sid  # the corrupt line is kept as it is
                continue
            ra = json.loads(a)
            assert (ra.get("type"), ra.get("seq")) == (rb.get("type"), rb.get("seq")), sid
    # every event type the catalog declares (its 57 fingerprinted event roots) reached the archive
    types = set()
    for sid in (DS_MAIN, DS_CHILD, DS_FORK, DS_MIN):
        types |= {json.loads(x).get("type") for x in object_bytes(w, transcript(w, sid)).splitlines()[1:]}
    assert types - {"x-future/thing", "x-future/required"} == set(CATALOG_EVENTS)
    # createdAt in seconds is read as the same instant
    assert w["by_key"][key(DS_MIN)]["created_at"].startswith("2026-01-01T10:00:17")


def test_no_secret_home_or_user_in_any_object(world: dict[str, Any]) -> None:
    w = world
    assert find_leaks(w["plain"], w["p"].needles()) == []
    assert USER not in json.dumps(w["manifest"], ensure_ascii=False)


def test_lineage_as_the_catalog_says(world: dict[str, Any]) -> None:
    w, f = world, world["f"]
    got = {k: [(p["relation"], p["parent"], p.get("at")) for p in s.get("parents", [])] for k, s in w["by_key"].items()}
    for sid, want in f.edges.items():
        fixed = [(rel, key(parent), at) for rel, parent, at in want]
        assert got[key(sid)] == fixed, sid
    kinds = {k[len(H) + 1:]: s["kind"] for k, s in w["by_key"].items()}
    assert {s for s, k in kinds.items() if k == "subagent"} == {DS_CHILD, DS_GRAND, DS_WF, DS_NOTICE}
    assert {s for s, k in kinds.items() if k == "fork"} == {DS_FORK, DS_FORK2, DS_FORK_P, DS_SEEDED}
    # inferred from the inherited prefix (no parentSession) vs named
    inferred = {k: [p.get("inferred", False) for p in s.get("parents", [])] for k, s in w["by_key"].items()}
    assert inferred[key(DS_FORK)] == inferred[key(DS_FORK2)] == [True]
    assert inferred[key(DS_FORK_P)] == inferred[key(DS_CHILD)] == [False]
    # a session resumed in place has no parent
    assert got[key(DS_RESUMED)] == []
    tree = w["r"].cli("lineage", "--identity", str(w["r"].identity)).stdout
    assert f"[subagent] {key(DS_GRAND)}" in tree and f"[fork, inferred] {key(DS_FORK2)}" in tree


def test_odd_and_corrupt_files_reported_by_name(world: dict[str, Any]) -> None:
    warn = world["sync"]["session_warnings"]
    assert any(x.startswith(f"{DS_BAD}.jsonl: 1 unparseable line(s)") for x in warn[key(DS_BAD)])
    assert warn[key(DS_MIN)] == [f"{DS_MIN}.jsonl: event types not in the catalog kept untouched: "
                                 "x-future/required x1 (1 without ignorable)"]
    for sid in (DS_TORN, DS_CRLF, DS_LONG, DS_HEADER, DS_GRAND, DS_FORK, DS_FORK2):
        assert key(sid) not in warn, (sid, warn.get(key(sid)))
    assert world["sync"]["sessions"]["failed"] == 0 and world["sync"]["errors"] == []
    assert key(DS_EMPTY) in world["by_key"]


def test_verify_export_and_restore_family_elsewhere(world: dict[str, Any], tmp_path: Path) -> None:
    w, r = world, world["r"]
    v = r.json("verify", "--read-data", "--identity", str(r.identity))
    assert v["ok"] is True and v["errors"] == []
    x = r.cli("export", "--identity", str(r.identity), "--format", "md", key(DS_MAIN))
    assert x.returncode == 0 and "5 session(s)" in x.stdout  # the main session and its 4 subagents
    assert find_leaks({"export": x.stdout.encode()}, w["p"].needles()) == []
    to = tmp_path / OTHER
    out = r.json("restore", "--identity", str(r.identity), "--to", str(to), "--with-family", key(DS_GRAND))
    fam = {DS_MAIN, DS_CHILD, DS_GRAND, DS_WF, DS_NOTICE, DS_FORK, DS_FORK2, DS_FORK_P}
    assert sorted(out["sessions"]) == sorted(key(s) for s in fam)
    assert out["errors"] == out["refused"] == out["integrity_errors"] == []
    relinked = set()
    for sid in fam:
        art = transcript(w, sid)
        want, parent = object_bytes(w, art), None
        first, eol, rest = want.partition(b"\n")
        m = re.search(rb'(?<!\\)"parentSession":"((?:[^"\\]|\\.)*)"', first)
        if m and json.loads(b'"' + m.group(1) + b'"').startswith("/"):
            # a parentSession naming the parent's file by absolute path names it where this restore
            # put it (the parent is in the family); only that string differs from the archived bytes
            [(_rel, parent, _at)] = w["f"].edges[sid]
            new = json.dumps(str(to.resolve() / transcript(w, parent)["path"]), ensure_ascii=False).encode()
            want = first[:m.start(1) - 1] + new + first[m.end(1) + 1:] + eol + rest
            relinked.add(sid)
        assert (to / art["path"]).read_bytes() == want, sid
    assert relinked == {DS_GRAND, DS_FORK_P}
    assert not [x for x in out["warnings"] if "parentSession" in x], out["warnings"]
    assert len([p for p in to.rglob("*") if p.is_file()]) == len(fam)


def test_resync_after_append_uploads_only_the_new_part(world: dict[str, Any]) -> None:
    w, r = world, world["r"]
    before = {p.relative_to(r.store).as_posix() for p in r.store.rglob("*") if p.is_file()}
    extra = ds_append(w["f"], w["p"])
    sync = r.json("sync")
    assert sync["sessions"] == {"total": 17, "uploaded": 1, "unchanged": 16, "failed": 0}
    assert sync["bytes"]["read"] == len(extra)
    new = sorted({p.relative_to(r.store).as_posix() for p in r.store.rglob("*") if p.is_file()} - before)
    objs = [n for n in new if n.startswith("objects/")]
    assert len(objs) == 1 and len(new) == 2
    part = decrypt_object(r.identity, (r.store / objs[0]).read_bytes())
    assert [json.loads(x)["seq"] for x in part.splitlines()] == [json.loads(x)["seq"] for x in extra.splitlines()]
    assert find_leaks({objs[0]: part}, w["p"].needles()) == []
    # lineage unchanged by the append (the forks' prefixes still match)
    m = r.json("ls", "--identity", str(r.identity))
    assert len(m["sessions"]) == 17
