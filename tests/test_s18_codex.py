"""s18 fresh-eyes end-to-end check of the Codex collector against seeds/by-harness/codex.json.

The home is tests/fx_s18_codex.py's (written from the seed, not from our other fixtures); the real
CLI (`python -m archiver`, TZ=Asia/Tokyo) syncs it to a file:// store that is read back with the
`age` and `zstd` CLIs only; ls / lineage / scan / restore are the CLI's too. Checked: every file
the seed lists is archived with its role, lineage (relation, parent, at), the restore puts the
files back in Codex's own layout so a scan of the restored home finds the same sessions, and no
canary is left in any object (the .jsonl.zst rollouts included)."""

from __future__ import annotations

import base64
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
import zstandard

from tests.fx_s11_e2e import (
    OTHER, Setup, build_in_child, configure, decrypt_all, edges, latest_manifest, leaks, sessions_by_key, setup,
    tree_leaks,
)
from tests.fx_s18_codex import (
    A, BIG_CALL, EDGES, KINDS, L, LF, M, M_LOCAL_DIR, M_UTC, P, PF, R1, R2, S, S2, TZ, Z, big_image, build, build_small,
)

H = "codex"


def key(sid: str) -> str:
    return f"{H}:{sid}"


def _setup(tmp: Path, builder: Any) -> tuple[Setup, dict[str, Any]]:
    s = setup(tmp, H)
    s.env["TZ"] = TZ
    built = build_in_child(builder, s.home, tmp / "built.json")
    assert (s.home / ".codex/state_5.sqlite-wal").stat().st_size > 0
    return s, built


@pytest.fixture(scope="module")
def synced(tmp_path_factory: pytest.TempPathFactory) -> tuple[Setup, dict[str, Any], dict[str, bytes], Any]:
    s, built = _setup(tmp_path_factory.mktemp("codex18"), build)
    r = s.cli("sync", "--json")
    assert r.returncode == 0, (r.stdout[-2000:], r.stderr[-3000:])
    plain = decrypt_all(s)
    return s, built, plain, latest_manifest(plain)


def test_every_file_the_seed_lists_is_archived_with_its_role(synced: Any) -> None:
    s, built, plain, man = synced
    by = sessions_by_key(man)
    files = built["facts"]["files"]
    assert set(by) == {key(sid) for sid in files} | {key("@host")}
    roles = {k: {a["path"]: a["role"] for a in ses["artifacts"]} for k, ses in by.items()}
    for sid, rel in files.items():
        assert roles[key(sid)][rel] == "transcript", (sid, roles[key(sid)])
        assert [r for r in roles[key(sid)].values()].count("transcript") == 1, (sid, roles[key(sid)])
    ext = ".codex/archiver-extracts"
    assert roles[key(P)] == {
        files[P]: "transcript", f"{ext}/state_5/{P}.sqlite": "database", f"{ext}/thread_history_1/{P}.sqlite": "database",
        f"{ext}/session_index/{P}.jsonl": "index", f".codex/shell_snapshots/{P}.1772359200123.sh": "sidecar",
        f".codex/generated_images/{P}/{BIG_CALL}.png": "blob"}
    # a revert rollout is only its file: the thread's sidecars travel with the thread's session
    assert roles[key(f"{P}_{R1}")] == {files[f"{P}_{R1}"]: "transcript"}
    assert roles[key(f"{P}_{R2}")] == {files[f"{P}_{R2}"]: "transcript"}
    assert roles[key("@host")] == {".codex/history.jsonl": "history", ".codex/logs_2.sqlite": "database"}
    for sid in (Z, S, M, L):
        assert f"{ext}/session_index/{sid}.jsonl" in roles[key(sid)], sid
    for sid in (PF, L, LF, Z, S, S2, A, M):
        assert f"{ext}/state_5/{sid}.sqlite" in roles[key(sid)], sid
    modes = {a["path"]: (a["format"], a["mode"]) for ses in s.json("scan")["sessions"] for a in ses["artifacts"]}
    assert modes[files[Z]] == modes[files[A]] == ("jsonl.zst", "zst")
    assert modes[files[L]] == modes[files[LF]] == ("jsonl", "whole")  # legacy: rewritten by the migration
    assert modes[files[P]] == modes[files[S]] == ("jsonl", "append")


def test_lineage_relations_parents_and_positions(synced: Any) -> None:
    s, built, plain, man = synced
    by = sessions_by_key(man)
    for sid in built["facts"]["files"]:
        want = [(rel, key(par), at) for rel, par, at in EDGES.get(sid, [])]
        assert edges(by[key(sid)]) == want, sid
        assert by[key(sid)]["kind"] == KINDS[sid], sid
    lin = s.read("lineage", key(S2))  # the CLI's family view: S2 -> S -> Z
    got = {(e["child"], e["relation"], e["parent"]) for e in lin["edges"]}
    assert got >= {(key(S2), "subagent", key(S)), (key(S), "subagent", key(Z))}, lin


def test_first_session_meta_describes_a_legacy_fork_and_titles_are_the_last_index_name(synced: Any) -> None:
    s, built, plain, man = synced
    by = sessions_by_key(man)
    assert by[key(LF)]["created_at"].startswith("2026-02-02T09:00:00")  # not L's copied 2026-02-01 line
    assert by[key(L)]["created_at"].startswith("2026-02-01T09:00:00")
    assert by[key(P)]["title"].startswith("renamed P ")


def test_midnight_in_tokyo_keeps_the_local_folder_and_the_utc_creation_time(synced: Any) -> None:
    s, built, plain, man = synced
    by = sessions_by_key(man)
    assert built["facts"]["files"][M].startswith(f".codex/{M_LOCAL_DIR}/rollout-2026-03-02T00-15-07-")
    assert by[key(M)]["created_at"].replace("+00:00", "Z").startswith(M_UTC[:19])
    listed = {x["key"]: x for x in s.read("ls")["sessions"]}
    assert listed[key(M)]["created_at"].replace("+00:00", "Z").startswith(M_UTC[:19])


def test_no_canary_in_any_object_zst_rollouts_included(synced: Any) -> None:
    s, built, plain, man = synced
    assert leaks(plain, built["needles"]) == []
    by = sessions_by_key(man)
    for sid in (Z, A):  # stored decompressed: the object is the redacted JSONL itself
        (art,) = [a for a in by[key(sid)]["artifacts"] if a["role"] == "transcript"]
        data = b"".join(plain[f"objects/{o[:2]}/{o}"] for o in art["objects"])
        lines = data.splitlines()
        assert json.loads(lines[0])["payload"]["id"] == sid
        assert b"<EMAIL:" in data and b"<GITHUB_TOKEN:" in data and b"<AWS_ACCESS_KEY:" in data, sid
    # the unparseable line mid-file is kept and named; the lines after it are there
    assert any("unparseable" in w and "line 4" in w for w in by[key(P)]["warnings"]), by[key(P)]["warnings"]


def _restored_line(root: Path, rel: str, call: str) -> dict[str, Any]:
    for line in (root / rel).read_bytes().splitlines():
        if call.encode() in line and b'"image_generation_call"' in line:
            return json.loads(line)  # type: ignore[no-any-return]
    raise AssertionError(f"no {call} line in {rel}")


def test_restore_all_puts_codex_layout_back_and_a_rescan_finds_the_same_sessions(synced: Any, tmp_path: Path) -> None:
    s, built, plain, man = synced
    files = built["facts"]["files"]
    other = tmp_path / OTHER
    got = s.restore(other)
    assert got["errors"] == [], got
    for sid, rel in files.items():
        assert (other / rel).is_file(), rel
        if rel.endswith(".zst"):
            assert json.loads(zstandard.ZstdDecompressor().decompressobj().decompress(
                (other / rel).read_bytes()).splitlines()[0])["payload"]["id"] == sid
    restored = sorted(f.relative_to(other).as_posix() for f in (other / ".codex").rglob("rollout-*"))
    assert restored == sorted(files.values())  # one file per rollout, no .jsonl beside a .zst
    # the multi-MB line comes back whole: the image bytes intact
    line = _restored_line(other, files[P], BIG_CALL)
    assert base64.b64decode(line["payload"]["result"]) == big_image()
    assert tree_leaks(other, built["needles"]) == []
    # Codex opens the current rollout by threads.rollout_path: P's is its second revert
    con = sqlite3.connect(other / ".codex/state_5.sqlite")
    paths = dict(con.execute("SELECT id, rollout_path FROM threads"))
    con.close()
    assert Path(paths[P]) == (other / files[f"{P}_{R2}"]).resolve()
    assert Path(paths[A]) == (other / files[A]).resolve()
    # the restored home, scanned as its own: the same sessions, kinds and parents
    t = Setup(base=tmp_path / "rescan", home=other)
    t.base.mkdir()
    configure(t, (H,), user=OTHER)
    scan = {x["key"]: x for x in t.json("scan")["sessions"]}
    assert set(scan) == {x["key"] for x in man["sessions"]}
    for sk, ses in sessions_by_key(man).items():
        assert scan[sk]["kind"] == ses["kind"], sk
        assert [(p["relation"], p["parent"], p.get("at")) for p in scan[sk]["parents"]] == edges(ses), sk
        want = {a["path"]: a["role"] for a in ses["artifacts"] if "/thread_history_1/" not in a["path"]}
        have = {a["path"]: a["role"] for a in scan[sk]["artifacts"]}
        assert have == want, sk


def _lines(f: Path) -> list[dict[str, Any]]:
    data = f.read_bytes()
    if f.name.endswith(".zst"):
        data = zstandard.ZstdDecompressor().decompressobj().decompress(data)
    return [json.loads(x) for x in data.splitlines()]


def _append(f: Path, recs: list[dict[str, Any]]) -> None:
    with f.open("ab") as out:
        out.write(b"".join(json.dumps(r).encode() + b"\n" for r in recs))


def test_zst_resume_recompress_and_legacy_migration_between_syncs(tmp_path: Path) -> None:
    """Between syncs Codex resumes Z (its .jsonl.zst decompressed to .jsonl, the .zst removed, lines
    appended), migrates legacy L in place to paginated (cli_version kept), and later compresses Z
    again. Each sync: the same sessions, one transcript per rollout, lineage kept; each restore:
    one file per rollout with every line."""
    s, built = _setup(tmp_path, build_small)
    files = built["facts"]["files"]
    assert s.json("sync")["sessions"]["failed"] == 0
    zst = s.home / files[Z]
    plain_z = zst.with_name(zst.name[: -len(".zst")])
    z_lines = _lines(zst)
    plain_z.write_bytes(zstandard.ZstdDecompressor().decompressobj().decompress(zst.read_bytes()))
    zst.unlink()
    n = len(z_lines)
    _append(plain_z, [{"timestamp": "2026-03-03T00:00:00.000Z", "ordinal": n + i, "type": "event_msg",
                       "payload": {"type": "task_started", "turn_id": f"t-resumed{i}"}} for i in range(2)])
    leg = s.home / files[L]
    migrated = []
    for i, rec in enumerate(_lines(leg)):
        rec["ordinal"] = i
        if rec["type"] == "session_meta":
            rec["payload"]["history_mode"] = "paginated"
        migrated.append(rec)
    leg.write_bytes(b"".join(json.dumps(r).encode() + b"\n" for r in migrated))
    second = s.json("sync")
    assert second["sessions"]["failed"] == 0, second
    plain = decrypt_all(s)
    man = latest_manifest(plain)
    by = sessions_by_key(man)
    assert set(by) == {key(sid) for sid in files} | {key("@host")}
    z_rel = plain_z.relative_to(s.home).as_posix()
    assert [a["path"] for a in by[key(Z)]["artifacts"] if a["role"] == "transcript"] == [z_rel]
    assert edges(by[key(S)]) == [("subagent", key(Z), "depth=1")] and edges(by[key(S2)]) == [("subagent", key(S), "depth=2")]
    assert leaks(plain, built["needles"]) == []
    back = tmp_path / "back2"
    s.restore(back)
    assert sorted(f.name for f in (back / z_rel).parent.glob(f"*{Z}*")) == [plain_z.name]
    assert [r.get("ordinal") for r in _lines(back / z_rel)] == list(range(n + 2))
    restored_l = _lines(back / files[L])
    assert [r["ordinal"] for r in restored_l] == list(range(len(migrated)))
    assert restored_l[0]["payload"]["history_mode"] == "paginated" and restored_l[0]["payload"]["cli_version"] == "0.150.0"

    # idle again: compressed to .jsonl.zst, the .jsonl removed; nothing new to upload for it
    zst.write_bytes(zstandard.ZstdCompressor(level=3).compress(plain_z.read_bytes()))
    plain_z.unlink()
    third = s.json("sync")
    assert third["sessions"]["failed"] == 0, third
    plain3 = decrypt_all(s)
    by3 = sessions_by_key(latest_manifest(plain3))
    (art2,) = [a for a in by[key(Z)]["artifacts"] if a["role"] == "transcript"]
    (art3,) = [a for a in by3[key(Z)]["artifacts"] if a["role"] == "transcript"]
    assert art3["path"] == files[Z] and art3["objects"] == art2["objects"]
    assert sorted(k for k in plain3 if k.startswith("objects/")) == sorted(k for k in plain if k.startswith("objects/"))
    back3 = tmp_path / "back3"
    s.restore(back3)
    assert sorted(f.name for f in (back3 / files[Z]).parent.glob(f"*{Z}*")) == [zst.name]
    assert [r.get("ordinal") for r in _lines(back3 / files[Z])] == list(range(n + 2))
    assert edges(by3[key(S)]) == [("subagent", key(Z), "depth=1")]


def test_restore_a_fork_with_its_family_brings_its_history_base_chain(synced: Any, tmp_path: Path) -> None:
    """PF's inherited prefix lives in P's revert rollout R1, whose own prefix is in P's first
    rollout: `--with-family` of PF must bring both files back, and P's state row must name
    a rollout that is on disk (Codex opens the thread by threads.rollout_path)."""
    s, built, plain, man = synced
    files = built["facts"]["files"]
    other = tmp_path / OTHER
    got = s.restore(other, key(PF), family=True)
    assert got["errors"] == [], got
    assert {key(PF), key(f"{P}_{R1}"), key(P)} <= set(got["sessions"]), got["sessions"]
    for sid in (PF, f"{P}_{R1}", P):
        assert (other / files[sid]).is_file(), sid
    con = sqlite3.connect(other / ".codex/state_5.sqlite")
    paths = dict(con.execute("SELECT id, rollout_path FROM threads"))
    con.close()
    assert Path(paths[PF]) == (other / files[PF]).resolve()
    assert Path(paths[P]).is_file() and Path(paths[P]).resolve().is_relative_to(other.resolve()), (paths[P], got)


def test_restoring_a_reverted_thread_alone_points_its_state_at_a_rollout_on_disk(synced: Any, tmp_path: Path) -> None:
    """`restore codex:P` brings P's first rollout, not its revert rollouts: threads.rollout_path
    (which names P_R2, the current one) must not be left naming a file of the archived home
    (Codex opens the thread by it); it names P's newest rollout restored, with a warning."""
    s, built, plain, man = synced
    files = built["facts"]["files"]
    other = tmp_path / OTHER
    got = s.restore(other, key(P))
    assert got["sessions"] == [key(P)] and got["errors"] == [], got
    con = sqlite3.connect(other / ".codex/state_5.sqlite")
    (path,) = con.execute("SELECT rollout_path FROM threads WHERE id = ?", (P,)).fetchone()
    con.close()
    assert Path(path) == (other / files[P]).resolve()
    (w,) = [w for w in got["warnings"] if w.startswith(f"thread {P}:")]
    assert f"{P}_{R2}.jsonl was not restored; rollout_path points at {Path(files[P]).name}" in w, w
    # with R1 there too, the newest restored rollout of the thread wins
    other2 = tmp_path / "two"
    got = s.restore(other2, key(P), key(f"{P}_{R1}"))
    con = sqlite3.connect(other2 / ".codex/state_5.sqlite")
    (path,) = con.execute("SELECT rollout_path FROM threads WHERE id = ?", (P,)).fetchone()
    con.close()
    assert Path(path) == (other2 / files[f"{P}_{R1}"]).resolve(), got["warnings"]
