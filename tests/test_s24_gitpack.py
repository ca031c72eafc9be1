"""OpenCode snapshot packs (`git-pack`): every object of a pack, deltas resolved, archived as a
loose object redacted as the git-object walker redacts one, in a deterministic tar; verify scans
each member; restore extracts the members into the git dir and nothing else. The snapshot dirs
are made by the real git CLI as OpenCode makes them (tests/fx_s24_gitpack.py)."""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import struct
import subprocess
import sys
import tarfile
import zlib
from pathlib import Path

import pytest

from archiver.redact.base import RedactionReport
from archiver.redact.redactor import RuleRedactor, build_redactor
from archiver.redact.rules import RuntimeTerms
from archiver.redact.walkers.gitpack import PackUnreadable
from archiver.restore import UnsafePath, place_git_pack
from tests.fx_s24_gitpack import GIT, USER, VARIANTS, build_snapshot, loose_objects, pack_contents, run_git

pytestmark = pytest.mark.skipif(GIT is None, reason="needs the git CLI")
KEY = b"team-key-for-tests-0123456789abcdef"
SNAP = ".local/share/opencode/snapshot"
GITHUB_RULE = "github-pat"


@pytest.fixture(scope="module")
def red() -> RuleRedactor:
    return build_redactor(["builtin:secrets", "builtin:pii", "builtin:paths"], KEY,
                          RuntimeTerms(usernames=[USER], home_dirs=[f"/home/{USER}"]))


@pytest.fixture(scope="module", params=VARIANTS)
def packed(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, red: RuleRedactor) -> dict:
    """A snapshot git dir packed by one variant, each of its packs redacted to a tar."""
    base = tmp_path_factory.mktemp(request.param)
    snap = build_snapshot(base, request.param)
    assert loose_objects(snap.git_dir) == []  # everything is in packs
    packs = sorted((snap.git_dir / "objects" / "pack").glob("pack-*.pack"))
    tars = {}
    for pack in packs:
        out = base / f"{pack.stem}.tar"
        red.redact_file(pack, out, "git-pack", RedactionReport())
        tars[pack] = out
    return {"snap": snap, "tars": tars, "base": base}


def _members(tar_path: Path) -> list[tuple[tarfile.TarInfo, bytes]]:
    with tarfile.open(tar_path, "r:") as tar:
        return [(m, tar.extractfile(m).read()) for m in tar]  # type: ignore[union-attr]


def _original(snap, oid: str) -> bytes:
    kind = snap.git("cat-file", "-t", oid).strip()
    return b"%s %d\0" % (kind, len(body := snap.git("cat-file", kind.decode(), oid))) + body


# ---------------------------------------------------------------- walker level


def test_every_object_of_the_pack_is_a_redacted_loose_object_under_its_original_name(packed: dict,
                                                                                     red: RuleRedactor) -> None:
    snap, deltas = packed["snap"], 0
    for pack, tar_path in packed["tars"].items():
        listed = pack_contents(snap.git_dir, pack)
        deltas += sum(d for _, d in listed.values())
        members = _members(tar_path)
        names = [m.name for m, _ in members]
        assert names == sorted(f"objects/{o[:2]}/{o[2:]}" for o in listed)  # all of them, sorted
        for m, data in members:
            oid = m.name[8:10] + m.name[11:]
            raw = zlib.decompress(data)
            assert not [n for n in snap.needles if n.encode() in raw], m.name
            original = _original(snap, oid)
            kind = listed[oid][0]
            if kind == "tree" or original.startswith(b"blob 3010\0"):  # trees and the binary logo: as they are
                assert raw == original
            # exactly what the git-object walker stores for the loose object git would write
            loose, out = packed["base"] / "loose.in", packed["base"] / "loose.out"
            loose.write_bytes(zlib.compress(original, 1))
            red.redact_file(loose, out, "git-object", RedactionReport())
            assert data == out.read_bytes(), m.name
    assert deltas >= 3  # the edits were stored as deltas: chains were resolved


def test_tar_is_ustar_deterministic_and_read_by_git(packed: dict, red: RuleRedactor, tmp_path: Path) -> None:
    snap = packed["snap"]
    repo = tmp_path / "extracted.git"
    run_git(repo, None, "init", "-q", "--bare")
    for pack, tar_path in packed["tars"].items():
        data = tar_path.read_bytes()
        again = tmp_path / "again.tar"
        red.redact_file(pack, again, "git-pack", RedactionReport())
        assert again.read_bytes() == data  # same pack, same bytes
        for m, _ in _members(tar_path):
            assert (m.mode, m.mtime, m.uid, m.gid, m.uname, m.gname, m.type) == (0o444, 0, 0, 0, "", "", tarfile.REGTYPE)
        assert data[257:265] == b"ustar\x0000"  # POSIX ustar, no GNU or pax headers
        r = subprocess.run(["tar", "-x", "-C", str(repo), "-f", str(tar_path)], capture_output=True)
        assert r.returncode == 0, r.stderr
    # every snapshot tree lists as before; its files hold the redacted text under the original ids
    for tree in snap.trees:
        assert run_git(repo, None, "cat-file", "-p", tree) == snap.git("cat-file", "-p", tree)
    last = snap.git("cat-file", "-p", snap.trees[-1]).decode()
    env_blob = next(line.split()[2] for line in last.splitlines() if line.endswith("\t.env"))
    env = run_git(repo, None, "cat-file", "-p", env_blob).decode()
    assert "GITHUB_TOKEN=<GITHUB_TOKEN:" in env and "AWS_ACCESS_KEY_ID=<AWS_ACCESS_KEY:" in env and "DEBUG=1" in env
    assert run_git(repo, None, "cat-file", "-t", env_blob) == b"blob\n"
    commit = run_git(repo, None, "cat-file", "-p", snap.commit).decode()
    assert commit.startswith(f"tree {snap.trees[-1]}\nauthor Dev <") and "<EMAIL:" in commit
    assert not [n for n in snap.needles if n in commit]


def test_verify_passes_the_redacted_tar_and_catches_a_member_left_unredacted(packed: dict, red: RuleRedactor,
                                                                            tmp_path: Path) -> None:
    for tar_path in packed["tars"].values():
        assert red.verify_file(tar_path, "git-pack") == []
    token = "ghp_" + "R8fJ2kLm9QwErTyUiOpAsDfGhJkLzXcVbN12"
    raw = b"blob %d\0" % len(b"T=" + token.encode()) + b"T=" + token.encode()
    oid = hashlib.sha1(raw).hexdigest()
    bad = tmp_path / "bad.tar"  # a redacted tar with one member left as it was
    with tarfile.open(next(iter(packed["tars"].values()))) as tar:
        members = {m.name: tar.extractfile(m).read() for m in tar}  # type: ignore[union-attr]
    members[f"objects/{oid[:2]}/{oid[2:]}"] = zlib.compress(raw, 1)
    _tar(bad, dict(sorted(members.items())))
    assert red.verify_file(bad, "git-pack") == [GITHUB_RULE]
    assert red.scan_file(bad, "git-pack").by_rule() == {GITHUB_RULE: 1}
    not_tar = tmp_path / "not.tar"
    not_tar.write_bytes(b"PACK" + bytes(600))
    with pytest.raises(PackUnreadable):
        red.verify_file(not_tar, "git-pack")


def _tar(path: Path, members: dict[str, bytes], kinds: dict[str, bytes] | None = None) -> None:
    with tarfile.open(path, "w", format=tarfile.USTAR_FORMAT) as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        for name, target in (kinds or {}).items():
            info = tarfile.TarInfo(name)
            info.type, info.linkname = tarfile.SYMTYPE, target.decode()
            tar.addfile(info)


def _pack(objects: list[bytes]) -> bytes:
    data = b"PACK" + struct.pack(">II", 2, len(objects)) + b"".join(objects)
    return data + hashlib.sha1(data).digest()


def test_a_pack_that_cannot_be_read_fails_closed_naming_the_file(packed: dict, red: RuleRedactor,
                                                                tmp_path: Path) -> None:
    pack = next(iter(packed["tars"]))
    cases = {
        "truncated.pack": pack.read_bytes()[:-200],
        "garbage.pack": b"GITPACK?" + b"x" * 500,
        # a REF_DELTA whose base is not in the pack (a thin pack): insert "abc" into a 5-byte base
        "thin.pack": _pack([bytes([0x70 | 6]) + bytes(range(1, 21)) + zlib.compress(bytes([5, 3, 3]) + b"abc")]),
        # an OFS_DELTA pointing before the first object
        "ofs.pack": _pack([bytes([0x60 | 6, 0x7f]) + zlib.compress(bytes([5, 3, 3]) + b"abc")]),
    }
    for name, data in cases.items():
        src, dst = tmp_path / name, tmp_path / f"{name}.tar"
        src.write_bytes(data)
        with pytest.raises(PackUnreadable) as e:
            red.redact_file(src, dst, "git-pack", RedactionReport())
        assert e.value.filename == str(src) and name in str(e.value)
        assert not dst.exists()  # nothing written in its place
        if name == "thin.pack":
            assert e.value.strerror == f"thin pack: delta base {bytes(range(1, 21)).hex()} is not in the pack"


# ---------------------------------------------------------------- restore


def test_restore_extracts_the_members_into_the_git_dir_and_leaves_existing_objects(packed: dict,
                                                                                    tmp_path: Path) -> None:
    tar_path = next(iter(packed["tars"].values()))
    root = tmp_path / "home"
    rel = f"{SNAP}/p1/abc/objects/pack/pack-{'1' * 40}.pack"
    names = [m.name for m, _ in _members(tar_path)]
    kept = root / SNAP / "p1/abc" / names[0]
    kept.parent.mkdir(parents=True)
    kept.write_bytes(b"already here")
    assert place_git_pack(tar_path, root, rel) == len(names) - 1
    assert kept.read_bytes() == b"already here"
    for name, data in _members(tar_path)[1:]:
        f = root / SNAP / "p1/abc" / name.name
        assert f.read_bytes() == data and (f.stat().st_mode & 0o777) == 0o444
    assert not (root / SNAP / "p1/abc/objects/pack").exists()  # the pack itself is not written
    assert place_git_pack(tar_path, root, rel) == 0  # a second restore: all there, left alone


@pytest.mark.parametrize("hostile", ["../../../escape", "/tmp/abs-escape", "objects/ab/../../../x",
                                     "objects/zz/" + "0" * 38, "config", "symlink"])
def test_restore_refuses_a_hostile_tar_and_writes_nothing(hostile: str, tmp_path: Path) -> None:
    good = "objects/ab/" + "c" * 38
    path = tmp_path / "hostile.tar"
    if hostile == "symlink":
        _tar(path, {good: zlib.compress(b"blob 0\0")}, {"objects/cd/" + "e" * 38: b"/etc/passwd"})
    else:
        _tar(path, {good: zlib.compress(b"blob 0\0"), hostile: b"pwned"})
    root = tmp_path / "home"
    root.mkdir()
    with pytest.raises(UnsafePath) as e:
        place_git_pack(path, root, f"{SNAP}/p1/abc/objects/pack/pack-{'1' * 40}.pack")
    assert "not a git loose object" in str(e.value)
    assert [p for p in tmp_path.rglob("*") if p != path and p != root] == []  # not even the good member
    with pytest.raises(UnsafePath):  # an artifact path not in objects/pack/ is no git dir's pack
        place_git_pack(path, root, f"{SNAP}/p1/pack-{'1' * 40}.pack")


# ---------------------------------------------------------------- end to end, through the CLI


def test_sync_redacts_a_snapshot_pack_and_restore_gives_git_the_objects(tmp_path: Path) -> None:
    from archiver.demo.opencode_sample import P1, close_opencode_home, make_opencode_home
    from tests.fx_s11_e2e import decrypt_all, latest_manifest, sessions_by_key, setup

    s = setup(tmp_path, "opencode")
    s.home.mkdir(parents=True)
    info = make_opencode_home(s.home, user=USER)
    close_opencode_home(info)
    snap = build_snapshot(tmp_path / "built", "cruft")
    git_dir = s.home / SNAP / P1 / snap.git_dir.name
    shutil.copytree(snap.git_dir, git_dir)
    leftover = git_dir / "objects" / "pack" / ".tmp-1234-pack-deadbeef.pack"
    leftover.write_bytes(b"half-written " + snap.needles[0].encode())
    broken = git_dir / "objects" / "pack" / f"pack-{'e' * 40}.pack"  # unreadable: not archived at all
    broken.write_bytes(b"PACK\0\0\0\2\0\0\0\1" + f"GITHUB_TOKEN=ghp_{snap.needles[0]}".encode())
    s.cli("sync", expect=0)
    plain = decrypt_all(s)
    session = sessions_by_key(latest_manifest(plain))[f"opencode:@project-{P1}"]
    # (the folder's name is the hash of the worktree path: archived as the hash of the redacted path)
    arts = [a for a in session["artifacts"] if "/objects/pack/" in a["path"]]
    packs = sorted(p.name for p in (snap.git_dir / "objects" / "pack").glob("pack-*.pack"))
    assert sorted(a["path"].rsplit("/", 1)[1] for a in arts) == packs  # no .idx, .mtimes, leftover or broken
    assert {a["format"] for a in arts} == {"git-pack"}
    git_rel = arts[0]["path"].rsplit("/objects/pack/", 1)[0]
    assert session["warnings"] == [
        f"{SNAP}/{P1}: 1 files under objects/pack/ that are no pack (temporary files of an interrupted gc?) "
        "not archived",
        f"{git_rel}/objects/pack/{broken.name}: not archived (not a complete git pack (its checksum does not match))"]
    # no planted value in any object, nor in any git object inside an archived pack
    needles = [n.encode() for n in snap.needles]
    assert [k for k, data in plain.items() if any(n in data for n in needles)] == []
    for a in arts:
        (obj,) = a["objects"]
        with tarfile.open(fileobj=io.BytesIO(plain[f"objects/{obj[:2]}/{obj}"]), mode="r:") as tar:
            for m in tar:
                raw = zlib.decompress(tar.extractfile(m).read())  # type: ignore[union-attr]
                assert not [n for n in needles if n in raw], m.name
    got = s.restore(tmp_path / "restored", f"opencode:@project-{P1}")
    assert got["refused"] == [] and got["errors"] == [], got
    restored = tmp_path / "restored" / git_rel
    assert not (restored / "objects" / "pack").exists()
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_CONFIG_NOSYSTEM="1", HOME=str(tmp_path))

    def git(*args: str) -> str:
        r = subprocess.run(["git", "--git-dir", str(restored), *args], capture_output=True, text=True, env=env)
        assert r.returncode == 0, r.stderr
        return r.stdout

    tree = git("cat-file", "-p", snap.trees[-1])
    assert tree == snap.git("cat-file", "-p", snap.trees[-1]).decode()
    config_blob = next(line.split()[2] for line in tree.splitlines() if line.endswith("\tconfig.json"))
    config = json.loads(git("cat-file", "-p", config_blob))
    assert config["token"].startswith("<GITHUB_TOKEN:") and config["round"] == 4
    assert config["log"].startswith("/home/user-") and USER not in config["log"]


def test_bodies_past_the_in_memory_limit_are_streamed_to_the_same_bytes(packed: dict, red: RuleRedactor,
                                                                        tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from archiver.redact.walkers import gitpack

    monkeypatch.setattr(gitpack, "IN_MEMORY", 64)  # every blob body through the temp-file path
    for pack, tar_path in packed["tars"].items():
        streamed = tmp_path / "streamed.tar"
        red.redact_file(pack, streamed, "git-pack", RedactionReport())
        assert streamed.read_bytes() == tar_path.read_bytes()


OLD_WRITER = """import sys
import archiver.harnesses.opencode as o
_format = o._git_file_format
o._git_file_format = lambda rel: "binary" if _format(rel) == "git-pack" else _format(rel)  # before s24
from archiver.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_a_pack_archived_as_binary_before_is_archived_again_as_git_pack(tmp_path: Path) -> None:
    """An archive written before git-pack existed holds the pack as `binary` (plaintext inside the
    encryption). The pack file itself is unchanged on the next run, but its archived format is not
    the one it is archived in now: it is archived again, redacted (sync._artifact)."""
    from archiver.demo.opencode_sample import P1, close_opencode_home, make_opencode_home
    from tests.fx_s11_e2e import REPO, decrypt_all, latest_manifest, sessions_by_key, setup

    s = setup(tmp_path, "opencode")
    s.home.mkdir(parents=True)
    close_opencode_home(make_opencode_home(s.home, user=USER))
    snap = build_snapshot(tmp_path / "built", "cruft")
    git_dir = s.home / SNAP / P1 / snap.git_dir.name
    shutil.copytree(snap.git_dir, git_dir)
    old = tmp_path / "old_writer.py"
    old.write_text(OLD_WRITER)
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("ARCHIVER")}, **s.env, "PYTHONPATH": str(REPO)}
    r = subprocess.run([sys.executable, str(old), "sync", "--config", str(s.config)], env=env,
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]

    def pack_formats() -> set[str]:
        session = sessions_by_key(latest_manifest(decrypt_all(s)))[f"opencode:@project-{P1}"]
        return {a["format"] for a in session["artifacts"] if a["path"].endswith(".pack")}

    assert pack_formats() == {"binary"}
    (git_dir / "info" / "note").write_text("the session changes: a new file in its git dir\n")
    s.cli("sync", expect=0)
    assert pack_formats() == {"git-pack"}
    plain = decrypt_all(s)
    latest = latest_manifest(plain)
    ids = {o for sess in latest["sessions"] for a in sess["artifacts"] for o in a["objects"]}
    needles = [n.encode() for n in snap.needles]
    assert [o for o in ids if any(n in plain[f"objects/{o[:2]}/{o}"] for n in needles)] == []
