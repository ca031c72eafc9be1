"""s17 fresh-eyes end-to-end check of the pi collector against seeds/by-harness/pi.json.

A HOME written by tests/fx_s17_e2e.py from the seed alone (every record type and content block,
rewind branches, compaction, context edits, labels and label clears, /fork, forkFrom() into another
cwd, a fork whose source file is gone, a caller-supplied id carrying the user name, a v1 file, a
header-only file, an empty file, a torn last line, CRLF, a 300 KB line, a corrupt file, a header
without cwd, a cwd with ':' and '\\', a flat PI_CODING_AGENT_SESSION_DIR with a foreign JSONL,
fullOutputPath temp files kept and gone), secrets in every field that can carry one. The real CLI
syncs it to a file:// store; objects are read back with `age` and `zstd` only.
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
    OTHER, PI_BAD, PI_CRLF, PI_CUSTOM, PI_EMPTY, PI_FLAT, PI_FORK, PI_FORKFROM, PI_GONE_PARENT, PI_HEADER, PI_LONG,
    PI_MAIN, PI_NOCWD, PI_SUB, PI_TORN, PI_V1, USER, Plant, build_pi, find_leaks, make_run, pi_append,
    pi_dir_name,
)

H = "pi"


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    base = tmp_path_factory.mktemp("s17pi")
    base.chmod(0o700)
    r = make_run(base, H)
    p = Plant(str(r.home))
    f = build_pi(r.home, p)
    r.env["PI_CODING_AGENT_SESSION_DIR"] = str(r.home / "pi-flat")
    sync = r.json("sync")
    plain = decrypt_all(r)
    snaps = sorted(k for k in plain if k.startswith("snapshots/"))
    manifest = json.loads(plain[snaps[-1]])
    w = {"r": r, "p": p, "f": f, "sync": sync, "plain": plain, "manifest": manifest,
         "by_key": {s["key"]: s for s in manifest["sessions"]}}
    yield w
    shutil.rmtree(base, ignore_errors=True)


def key(sid: str) -> str:
    return f"{H}:{sid}"


def archived_key(w: dict[str, Any], sid: str) -> str:
    """The id as archived: a caller-supplied id holding the user name is redacted like any key."""
    if sid == PI_CUSTOM:
        [k] = [k for k in w["by_key"] if k.endswith(".refactor_v2")]
        return k
    return key(sid)


def object_bytes(w: dict[str, Any], art: dict[str, Any]) -> bytes:
    return b"".join(w["plain"][f"objects/{o[:2]}/{o}"] for o in art["objects"])


def transcript(w: dict[str, Any], sid: str) -> dict[str, Any]:
    [art] = [a for a in w["by_key"][archived_key(w, sid)]["artifacts"] if a["role"] == "transcript"]
    return art


def test_every_session_and_file_archived_in_pi_layout(world: dict[str, Any]) -> None:
    w, f = world, world["f"]
    assert w["sync"]["sessions"] == {"total": 15, "uploaded": 15, "unchanged": 0, "failed": 0}
    assert w["sync"]["errors"] == []
    assert sorted(w["by_key"]) == sorted(archived_key(w, s) for s in f.files)
    for sid, src in f.files.items():
        s = w["by_key"][archived_key(w, sid)]
        art = transcript(w, sid)
        folder, name = art["path"].rsplit("/", 1)
        # the file name keeps pi's `<ts>_<id>.jsonl`, the id as archived
        assert name == src.name.replace(f"_{sid}.", f"_{s['key'][len(H) + 1:]}."), (sid, name)
        if s.get("cwd") is not None:  # the folder is rebuilt from the redacted cwd, as pi names it
            assert folder == f".pi/agent/sessions/{pi_dir_name(s['cwd'])}", (sid, folder)
            assert USER not in s["cwd"] and s["cwd"].endswith(f.cwd.get(sid, f.cwd[PI_MAIN]).rsplit("/", 1)[1])
        # the whole file: as many lines as the source, same entry ids and types, in order
        got = object_bytes(w, art)
        want = src.read_bytes()
        assert art["size"] == len(got), sid
        assert got.count(b"\n") == want.count(b"\n"), sid
        assert got.endswith(b"\r\n") == want.endswith(b"\r\n"), sid
        for a, b in zip(got.splitlines(), want.splitlines()):
            try:
                rb = json.loads(b)
            except ValueError:
                continue
            ra = json.loads(a)
            if rb.get("type") == "session":  # the header's id as archived (a caller's id may hold the user name)
                rb["id"] = s["key"][len(H) + 1:]
            assert (ra.get("type"), ra.get("id"), ra.get("parentId")) == (rb.get("type"), rb.get("id"), rb.get("parentId"))
    # a v1 file is rewritten by pi when opened: archived whole; the current version is appended to
    assert transcript(w, PI_V1)["objects"] and w["by_key"][key(PI_V1)]["kind"] == "main"
    # the empty and header-only files are sessions too
    assert transcript(w, PI_EMPTY)["size"] == 0 and transcript(w, PI_HEADER)["size"] > 0
    # the foreign JSONL in the flat dir is no session
    assert not any("notes" in a["path"] for s in w["manifest"]["sessions"] for a in s["artifacts"])


def test_sidecars_archived_under_the_session(world: dict[str, Any]) -> None:
    w, f = world, world["f"]
    s = w["by_key"][key(PI_MAIN)]
    side = sorted((a for a in s["artifacts"] if a["role"] == "sidecar"), key=lambda a: a["path"])
    folder = transcript(w, PI_MAIN)["path"].rsplit("/", 1)[0]
    want = sorted(f.outputs[PI_MAIN], key=lambda o: o.rsplit("/", 1)[1])
    assert [a["path"] for a in side] == sorted(f"{folder}/{PI_MAIN}.tmp/{Path(o).name}" for o in want)
    for a, o in zip(side, want):
        got = object_bytes(w, a)
        src = Path(o).read_bytes()
        assert len(got.splitlines()) == len(src.splitlines()) and got.startswith(src.split(b"\n")[0])
    # the temp file that is gone is reported, by name
    assert any("pi-bash-00000000deadbeef.log no longer exists" in x for x in w["sync"]["session_warnings"][key(PI_MAIN)])


def test_no_secret_home_or_user_in_any_object(world: dict[str, Any]) -> None:
    w = world
    assert len(w["plain"]) >= 17
    assert find_leaks(w["plain"], w["p"].needles()) == []
    # the cwd folder names, file names and the session ids of the manifest too
    assert USER not in json.dumps(w["manifest"], ensure_ascii=False)
    assert str(w["r"].home) not in json.dumps(w["manifest"], ensure_ascii=False)


def test_lineage_as_the_seed_says(world: dict[str, Any]) -> None:
    w, f = world, world["f"]
    edges = {k: [(p["relation"], p["parent"], p.get("at")) for p in s.get("parents", [])] for k, s in w["by_key"].items()}
    # /fork: the fork point is the leaf of the copied root->leaf path (labels re-emitted after it)
    assert edges[key(PI_FORK)] == [("fork", key(PI_MAIN), f.fork_at[PI_FORK])]
    # forkFrom(): every entry copied verbatim; the fork point is the source's last entry
    assert edges[key(PI_FORKFROM)] == [("fork", key(PI_MAIN), f.fork_at[PI_FORKFROM])]
    assert w["by_key"][key(PI_FORK)]["kind"] == w["by_key"][key(PI_FORKFROM)]["kind"] == "fork"
    # a gone source file: the parent id from its file name
    assert edges[key(PI_GONE_PARENT)] == [("fork", key("01890a5d-0000-7000-8000-00000000dead"), None)]
    # branches, compaction, resume and the subagent extension stay inside one session: no edges
    for sid in (PI_MAIN, PI_SUB, PI_V1, PI_CUSTOM, PI_FLAT, PI_CRLF, PI_TORN):
        assert edges[archived_key(w, sid)] == [], sid
    # titles: the last session_info name wins
    assert w["by_key"][key(PI_MAIN)]["title"] == "Final title"
    assert w["by_key"][key(PI_FORK)]["title"] == "Forked"
    assert w["by_key"][key(PI_CRLF)]["title"] == "crlf title"
    # the CLI's lineage tree shows the same family
    tree = w["r"].cli("lineage", "--identity", str(w["r"].identity)).stdout
    assert f"[fork] {key(PI_FORK)}" in tree and f"[fork] {key(PI_FORKFROM)}" in tree


def test_corrupt_and_odd_files_reported_by_name_others_archived(world: dict[str, Any]) -> None:
    w = world
    warn = w["sync"]["session_warnings"]
    bad_name = w["f"].files[PI_BAD].name
    assert warn[key(PI_BAD)] == [f"{bad_name}: 1 unparseable line(s) kept as they are (line 3)"]
    assert key(PI_BAD) in w["by_key"] and w["sync"]["sessions"]["failed"] == 0
    # the corrupt line is archived as it is (its bytes, not dropped)
    assert b"\xff\xfe garbage" in object_bytes(w, transcript(w, PI_BAD))
    assert any("first line is not a session header" in x for x in warn[key(PI_EMPTY)])
    for sid in (PI_TORN, PI_CRLF, PI_LONG, PI_NOCWD, PI_HEADER, PI_FLAT):
        assert key(sid) not in warn, (sid, warn.get(key(sid)))


def test_verify_ls_and_export(world: dict[str, Any]) -> None:
    r = world["r"]
    v = r.json("verify", "--read-data", "--identity", str(r.identity))
    assert v["ok"] is True and v["errors"] == [] and v["objects_read"] == v["objects"] >= 17
    ls = r.json("ls", "--identity", str(r.identity))
    assert len(ls["sessions"]) == 15
    x = r.cli("export", "--identity", str(r.identity), "--format", "md", "--with-family", key(PI_FORK))
    assert x.returncode == 0, x.stderr[-1000:]
    assert "3 session(s)" in x.stdout and "# Forked" in x.stdout
    assert find_leaks({"export": x.stdout.encode()}, world["p"].needles()) == []


def test_restore_family_relocated_into_another_home(world: dict[str, Any], tmp_path: Path) -> None:
    w, r = world, world["r"]
    cwd_main, cwd_ff = w["by_key"][key(PI_MAIN)]["cwd"], w["by_key"][key(PI_FORKFROM)]["cwd"]
    to = tmp_path / OTHER
    out = r.json("restore", "--identity", str(r.identity), "--to", str(to), "--with-family",
                 "--relocate", f"{cwd_main}=/home/{OTHER}/work/proj", "--relocate", f"{cwd_ff}=/home/{OTHER}/other",
                 key(PI_FORK))
    assert sorted(out["sessions"]) == sorted([key(PI_MAIN), key(PI_FORK), key(PI_FORKFROM)])
    assert out["errors"] == out["refused"] == out["integrity_errors"] == []
    files = sorted(p.relative_to(to).as_posix() for p in to.rglob("*") if p.is_file())
    d1, d2 = f".pi/agent/sessions/--home-{OTHER}-work-proj--", f".pi/agent/sessions/--home-{OTHER}-other--"
    assert len(files) == 9 and all(x.startswith((d1 + "/", d2 + "/")) for x in files), files
    for sid, d, cwd in ((PI_MAIN, d1, f"/home/{OTHER}/work/proj"), (PI_FORK, d1, f"/home/{OTHER}/work/proj"),
                        (PI_FORKFROM, d2, f"/home/{OTHER}/other")):
        name = transcript(w, sid)["path"].rsplit("/", 1)[1]
        data = (to / d / name).read_bytes()
        assert json.loads(data.split(b"\n", 1)[0])["cwd"] == cwd
        # apart from the relocated paths, the bytes are the archive's
        arch = object_bytes(w, transcript(w, sid))
        assert data.count(b"\n") == arch.count(b"\n")
        assert data.replace(cwd.encode(), b"").replace(b"--home-" + OTHER.encode(), b"") != b""
    assert find_leaks({x: (to / x).read_bytes() for x in files}, w["p"].needles()) == []


def test_restore_one_session_byte_equal_to_archive(world: dict[str, Any], tmp_path: Path) -> None:
    w, r = world, world["r"]
    for sid in (PI_MAIN, PI_CRLF, PI_TORN, PI_LONG, PI_BAD, archived_key(w, PI_CUSTOM)[3:]):
        to = tmp_path / f"r-{sid[-4:]}"
        out = r.json("restore", "--identity", str(r.identity), "--to", str(to), key(sid))
        assert out["sessions"] == [key(sid)] and out["errors"] == []
        arts = w["by_key"][key(sid)]["artifacts"]
        assert sorted(out["files"]) == sorted(a["path"] for a in arts)
        # but the fullOutputPath values naming an archived temp file: they name its restored copy
        side = {a["path"].rsplit("/", 1)[1]: str(to.resolve() / a["path"]) for a in arts if a["role"] == "sidecar"}

        def relinked(m: re.Match[bytes]) -> bytes:
            new = side.get(json.loads(b'"' + m.group(2) + b'"').rsplit("/", 1)[1])
            return m.group(1) + json.dumps(new, ensure_ascii=False).encode() if new else m.group(0)

        for a in arts:
            expect = object_bytes(w, a)
            if a["role"] == "transcript":
                expect = re.sub(rb'(?<!\\)("fullOutputPath":)"((?:[^"\\]|\\.)*)"', relinked, expect)
            assert (to / a["path"]).read_bytes() == expect, (sid, a["path"])


def test_resync_after_append_uploads_only_the_new_part(world: dict[str, Any], tmp_path: Path) -> None:
    w, r = world, world["r"]
    before = {p.relative_to(r.store).as_posix() for p in r.store.rglob("*") if p.is_file()}
    extra = pi_append(w["f"], w["p"])
    sync = r.json("sync")
    assert sync["sessions"] == {"total": 15, "uploaded": 1, "unchanged": 14, "failed": 0}
    assert sync["bytes"]["read"] == len(extra)
    new = sorted({p.relative_to(r.store).as_posix() for p in r.store.rglob("*") if p.is_file()} - before)
    objs = [n for n in new if n.startswith("objects/")]
    assert len(objs) == 1 and len(new) == 2
    part = decrypt_object(r.identity, (r.store / objs[0]).read_bytes())
    assert [json.loads(x)["id"] for x in part.splitlines()] == [json.loads(x)["id"] for x in extra.splitlines()]
    assert find_leaks({objs[0]: part}, w["p"].needles()) == []
    # the torn line being written is finished: only its rest is read, and the restored file is whole
    torn = w["f"].files[PI_TORN]
    whole = torn.read_bytes()
    head, tail = whole.rsplit(b"\n", 1)
    assert tail and not tail.endswith(b"}")
    recs = [json.loads(x) for x in head.split(b"\n")]
    done = json.dumps({"type": "message", "id": "ffff0001", "parentId": recs[-1]["id"], "timestamp": "2026-01-01T10:00:09.000Z",
                       "message": {"role": "assistant", "content": [{"type": "text", "text": "finished"}]}},
                      separators=(",", ":")).encode() + b"\n"
    torn.write_bytes(head + b"\n" + done)
    sync = r.json("sync")
    assert sync["sessions"]["uploaded"] == 1 and sync["bytes"]["read"] == len(done)
    out = r.json("restore", "--identity", str(r.identity), "--to", str(tmp_path / "torn"), key(PI_TORN))
    [rel] = out["files"]
    assert (tmp_path / "torn" / rel).read_bytes().endswith(done)


def test_relocate_rewrites_a_cwd_holding_a_backslash(world: dict[str, Any], tmp_path: Path) -> None:
    w, r = world, world["r"]
    old = w["by_key"][key(PI_SUB)]["cwd"]
    assert "\\" in old and "ü" in old
    to = tmp_path / OTHER
    out = r.json("restore", "--identity", str(r.identity), "--to", str(to), "--relocate", f"{old}=/home/{OTHER}/win",
                 key(PI_SUB))
    [rel] = out["files"]
    assert rel.startswith(f".pi/agent/sessions/--home-{OTHER}-win--/")  # the folder is renamed
    assert json.loads((to / rel).read_bytes().split(b"\n", 1)[0])["cwd"] == f"/home/{OTHER}/win"
