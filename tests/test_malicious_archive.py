"""Restore of a malicious archive: manifests and objects crafted by hand (with the test
keys, as anyone holding a recipient and write access to the bucket could) must not make
restore write outside its target, overwrite one file with another, follow planted
symlinks, write into device files, or decompress a bomb; everything refused is reported
and the exit code is 3."""

from __future__ import annotations

import io
import os
import stat
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

import pytest

from archiver.crypto.age import EncryptWriter
from archiver.model import Artifact, Manifest, Session
from archiver.pack import pack_bytes
from tests import fx_crafter
from tests.fx_archiver import Env, env  # noqa: F401

HOST = "0123456789abcdef"


class Crafter(fx_crafter.Crafter):
    """Writes hand-made objects and manifests into the env's bucket."""

    def __init__(self, e: Env) -> None:
        super().__init__(e.config)

    def manifest(self, sessions: dict[str, list[Artifact]], host: str = HOST, title: str | None = None) -> str:
        now = datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        m = Manifest(host_id=host, created_at=now, run_id="r" * 16, tool_version="0.1.0", sessions=[
            Session(key=f"claude-code:{sid}", harness="claude-code", session_id=sid, title=title,
                    artifacts=arts, host_id=host)
            for sid, arts in sessions.items()])
        return self.archive.put_manifest(m, self.recipients)


def _tree(root: Path, skip: Path) -> dict[str, tuple[int, bytes | str]]:
    """Every entry under root except `skip`: (mode, content or link target)."""
    out: dict[str, tuple[int, bytes | str]] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        d = Path(dirpath)
        if d == skip or skip in d.parents:
            dirnames[:] = []
            continue
        for name in dirnames + filenames:
            p = d / name
            if p == skip:
                continue
            st = p.lstat()
            if stat.S_ISLNK(st.st_mode):
                out[str(p)] = (st.st_mode, os.readlink(p))
            elif stat.S_ISREG(st.st_mode):
                out[str(p)] = (st.st_mode, p.read_bytes())
            else:
                out[str(p)] = (st.st_mode, "")
    return out


def _restore(e: Env, target: Path, expect: int | None = 3) -> dict:
    return e.cli_json("restore", "--all", "--to", str(target), identity=True, expect=expect)


def test_paths_escaping_the_target_are_refused_and_nothing_is_written_outside(env: Env) -> None:  # noqa: F811
    c = Crafter(env)
    good = b'{"type":"user","n":1}\n'
    bad_paths = ["../escape.jsonl", "../../escape2.jsonl", str(env.base / "abs.jsonl"), "/etc/archiver-pwned",
                 ".claude/../../up.jsonl", ".claude//x.jsonl", ".claude/./x.jsonl", "..\\win.jsonl",
                 ".claude/nul\x00.jsonl", "", ".claude/projects/k/"]
    c.manifest({"good": [c.artifact(".claude/projects/k/good.jsonl", good)],
                "evil": [c.artifact(p, b"pwned\n") for p in bad_paths]})
    target = env.base / "target"
    before = _tree(env.base, target)
    doc = _restore(env, target)
    assert _tree(env.base, target) == before  # not one byte outside the target
    assert not Path("/etc/archiver-pwned").exists()
    assert (target / ".claude/projects/k/good.jsonl").read_bytes() == good
    assert doc["sessions"] == ["claude-code:good"]
    assert len(doc["refused"]) == len(bad_paths)
    for p in bad_paths:
        assert any(repr(p) in r for r in doc["refused"]), p
    written = sorted(str(p.relative_to(target)) for p in target.rglob("*") if p.is_file())
    assert written == [".claude/projects/k/good.jsonl"]


def test_symlinks_planted_in_the_target_are_not_followed(env: Env) -> None:  # noqa: F811
    c = Crafter(env)
    outside = env.base / "outside"
    outside.mkdir()
    victim = outside / "victim.txt"
    victim.write_bytes(b"precious\n")
    os.chmod(victim, 0o644)
    target = env.base / "target"
    (target / ".claude" / "projects" / "k").mkdir(parents=True)
    # a directory component that is a symlink out of the target
    os.symlink(outside, target / ".claude" / "projects" / "linkdir")
    # the final file is a symlink to a file outside
    os.symlink(victim, target / ".claude" / "projects" / "k" / "final.jsonl")
    # a symlink at the temp name the old restore wrote through before renaming
    os.symlink(victim, target / ".claude" / "projects" / "k" / ".planted.jsonl.restoring")
    data = b'{"type":"user","text":"restored"}\n'
    c.manifest({"s": [c.artifact(".claude/projects/linkdir/victim.txt", b"pwned1\n"),
                      c.artifact(".claude/projects/k/final.jsonl", b"pwned2\n"),
                      c.artifact(".claude/projects/k/planted.jsonl", data)]})
    before = _tree(env.base, target)
    doc = _restore(env, target)
    assert victim.read_bytes() == b"precious\n"
    assert stat.S_IMODE(victim.stat().st_mode) == 0o644
    assert _tree(env.base, target) == before
    refused = "\n".join(doc["refused"])
    assert "linkdir" in refused and "not a plain directory" in refused
    assert "final.jsonl" in refused and "symlink" in refused
    planted = target / ".claude/projects/k/planted.jsonl"
    assert not planted.is_symlink() and planted.read_bytes() == data
    assert stat.S_IMODE(planted.stat().st_mode) == 0o600
    assert doc["files"] == [".claude/projects/k/planted.jsonl"]


def test_device_files_and_fifos_in_the_target_are_refused_without_blocking(env: Env) -> None:  # noqa: F811
    c = Crafter(env)
    target = env.base / "target"
    k = target / ".claude" / "projects" / "k"
    k.mkdir(parents=True)
    os.mkfifo(k / "fifo.jsonl")  # opening it for writing would block forever
    os.mkfifo(k / "fifodir")
    made_device = True
    try:
        os.mknod(k / "null.jsonl", stat.S_IFCHR | 0o666, os.makedev(1, 3))  # like /dev/null
    except (PermissionError, OSError):
        made_device = False
    c.manifest({"s": [c.artifact(".claude/projects/k/fifo.jsonl", b"x\n"),
                      c.artifact(".claude/projects/k/fifodir/child.jsonl", b"y\n"),
                      c.artifact(".claude/projects/k/null.jsonl", b"z\n"),
                      c.artifact(".claude/projects/k/ok.jsonl", b"ok\n")]})
    # a subprocess with a timeout: a restore that opened the FIFO would hang, not fail
    proc = subprocess.run([sys.executable, "-m", "archiver", "restore", "--all", "--to", str(target), "--json",
                           "--config", str(env.config), "--identity", str(env.identity)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 3, proc.stderr
    import json

    doc = json.loads(proc.stdout)
    refused = "\n".join(doc["refused"])
    assert "fifo.jsonl" in refused and "not a regular file" in refused
    assert "fifodir" in refused and "not a plain directory" in refused
    if made_device:
        assert "null.jsonl" in refused
        assert stat.S_ISCHR((k / "null.jsonl").lstat().st_mode)
    assert stat.S_ISFIFO((k / "fifo.jsonl").lstat().st_mode)
    assert (k / "ok.jsonl").read_bytes() == b"ok\n"


def test_names_that_collide_on_case_insensitive_filesystems_are_reported(env: Env) -> None:  # noqa: F811
    c = Crafter(env)
    upper, lower = b'{"who":"upper"}\n', b'{"who":"lower"}\n'
    nfc, nfd = "caf\u00e9.jsonl", "cafe\u0301.jsonl"
    c.manifest({
        "s1": [c.artifact(".claude/projects/k/A.jsonl", upper), c.artifact(f".claude/projects/k/{nfc}", b"nfc\n")],
        "s2": [c.artifact(".claude/projects/k/a.jsonl", lower), c.artifact(f".claude/projects/k/{nfd}", b"nfd\n"),
               c.artifact(".claude/projects/K/other.jsonl", b"dirs merge, files do not collide\n")],
    })
    target = env.base / "target"
    doc = _restore(env, target)
    k = target / ".claude/projects/k"
    assert (k / "A.jsonl").read_bytes() == upper  # the first one stays, untouched
    assert not (k / "a.jsonl").exists()  # the second was refused, not written over it
    assert (k / nfc).read_bytes() == b"nfc\n" and not (k / nfd).exists()
    assert (target / ".claude/projects/K/other.jsonl").exists()
    assert len(doc["refused"]) == 2
    assert all("collides with" in r and r.startswith("claude-code:s2") for r in doc["refused"])
    assert "A.jsonl" in doc["refused"][0] and "a.jsonl" in doc["refused"][0]
    assert doc["sessions"] == ["claude-code:s1"]


def _zstd_rle_bomb(total: int) -> bytes:
    """A valid zstd frame of `total` zero bytes made of RLE blocks (4 bytes per 128 KiB),
    built without ever holding the output: ~32000:1."""
    frame = bytearray((0xFD2FB528).to_bytes(4, "little"))
    frame += bytes([0x00, 7 << 3])  # descriptor: no content size, one window descriptor (128 KiB)
    block = 128 * 1024
    left = total
    while left:
        n = min(block, left)
        left -= n
        header = (1 if not left else 0) | (1 << 1) | (n << 3)  # last flag, type RLE, size
        frame += header.to_bytes(3, "little") + b"\x00"
    return bytes(frame)


def _age(data: bytes, recipients: list) -> bytes:  # type: ignore[type-arg]
    out = io.BytesIO()
    with EncryptWriter(out, recipients) as w:
        w.write(data)
    return out.getvalue()


def test_zstd_bomb_is_stopped_at_the_configured_ratio_and_size(env: Env, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    import zstandard

    c = Crafter(env)
    bomb_size = 8 << 30  # 8 GiB of zeros from ~256 KiB
    frame = _zstd_rle_bomb(bomb_size)
    assert len(frame) < 300_000
    assert zstandard.ZstdDecompressor().decompressobj().decompress(frame[:4096])[:4] == b"\0\0\0\0"
    oid = c.put_raw("b" * 64, _age(frame, c.recipients))
    # an honest-looking manifest: the size and a (made-up) digest of the full output
    c.manifest({"bomb": [Artifact(path=".claude/projects/k/bomb.jsonl", role="transcript", format="jsonl",
                                  size=bomb_size, sha256="0" * 64, objects=[oid])],
                "fine": [c.artifact(".claude/projects/k/fine.jsonl", b"fine\n")]})
    target = env.base / "target"
    doc = _restore(env, target)
    [err] = doc["integrity_errors"]
    assert "bomb.jsonl" in err and "ratio exceeds 1000" in err and "ARCHIVER_RESTORE_MAX_RATIO" in err
    assert not (target / ".claude/projects/k/bomb.jsonl").exists()
    assert (target / ".claude/projects/k/fine.jsonl").read_bytes() == b"fine\n"
    # the same with the ratio raised: now the absolute size limit stops it
    monkeypatch.setenv("ARCHIVER_RESTORE_MAX_RATIO", "1000000")
    monkeypatch.setenv("ARCHIVER_RESTORE_MAX_BYTES", str(4 << 20))
    doc = _restore(env, env.base / "target2")
    [err] = doc["integrity_errors"]
    assert "exceeds the limit of 4194304 bytes" in err
    # verify --read-data is bounded by the same limits
    code, out = env.cli("verify", "--read-data", "--json", identity=True)
    assert code == 3 and "exceeds the limit" in out


def test_object_larger_than_its_manifest_records_is_stopped_there(env: Env) -> None:  # noqa: F811
    c = Crafter(env)
    data = b'{"line":"' + b"x" * 5000 + b'"}\n'
    art = c.artifact(".claude/projects/k/lies.jsonl", data, size=100)
    c.manifest({"s": [art]})
    doc = _restore(env, env.base / "target")
    [err] = doc["integrity_errors"]
    assert "larger than the 100 bytes the manifest records" in err


def test_content_that_does_not_match_the_manifest_sha256_exits_3(env: Env) -> None:  # noqa: F811
    c = Crafter(env)
    target = env.base / "target"
    (target / ".claude/projects/k").mkdir(parents=True)
    (target / ".claude/projects/k/tampered.jsonl").write_bytes(b"the reviewer's own copy\n")
    c.manifest({"s": [c.artifact(".claude/projects/k/tampered.jsonl", b"swapped content\n", sha256="1" * 64),
                      c.artifact(".claude/projects/k/bad-id.jsonl", b"x\n", objects=["../../etc/passwd"]),
                      c.artifact(".claude/projects/k/missing.jsonl", b"y\n", objects=["c" * 64])]})
    doc = _restore(env, target)
    errors = "\n".join(doc["integrity_errors"])
    assert "tampered.jsonl: content does not match the manifest's sha256" in errors
    assert "bad-id.jsonl" in errors and "not an object id" in errors
    assert "missing.jsonl" in errors
    # the file already there is untouched: nothing unverified is moved into place
    assert (target / ".claude/projects/k/tampered.jsonl").read_bytes() == b"the reviewer's own copy\n"
    assert not (target / ".claude/projects/k/bad-id.jsonl").exists()
    assert doc["files"] == []
    leftovers = [p.name for p in target.rglob("*") if ".restoring" in p.name]
    assert leftovers == []


def test_unwritable_names_are_refused_not_a_crash(env: Env) -> None:  # noqa: F811
    c = Crafter(env)
    long = "x" * 300 + ".jsonl"  # beyond NAME_MAX
    c.manifest({"s": [c.artifact(f".claude/projects/k/{long}", b"a\n"),
                      c.artifact(".claude/projects/k/ok.jsonl", b"b\n")]})
    target = env.base / "target"
    doc = _restore(env, target)
    assert len(doc["refused"]) == 1 and "file name too long" in doc["refused"][0]
    assert (target / ".claude/projects/k/ok.jsonl").read_bytes() == b"b\n"


def test_garbage_in_the_snapshots_prefix_is_reported_and_the_rest_still_lists(env: Env) -> None:  # noqa: F811
    c = Crafter(env)
    c.manifest({"real": [c.artifact(".claude/projects/k/real.jsonl", b"r\n")]})
    store = c.archive.store
    store.put_bytes(f"snapshots/{HOST}/20260101T000000Z-00000000.json.age", b"not age at all")
    store.put_bytes(f"snapshots/{HOST}/20260101T000001Z-00000001.json.age",
                    pack_bytes(b'{"format": "archiver/1", "sessions": "nope"}', c.recipients))
    store.put_bytes(f"snapshots/{HOST}/20260101T000002Z-00000002.json.age",
                    pack_bytes(b'{"format": "archiver/99", "host_id": "x", "created_at": "x", "run_id": "x",'
                               b' "tool_version": "x"}', c.recipients))
    code, out = env.cli("ls", "--json", identity=True)
    assert code == 3
    import json

    doc = json.loads(out)
    assert [s["key"] for s in doc["sessions"]] == ["claude-code:real"]
    assert len(doc["errors"]) == 3
    assert all(f"snapshots/{HOST}/2026" in e for e in doc["errors"])


def test_titles_from_the_bucket_cannot_inject_markup_or_escape_sequences(env: Env) -> None:  # noqa: F811
    c = Crafter(env)
    c.manifest({"s": [c.artifact(".claude/projects/k/s.jsonl", b"s\n")]},
               title="fix [/] parsing \x1b]8;;http://evil.example\x1b\\click\x1b]8;;\x1b\\ [link=http://evil.example]x[/link]")
    code, out = env.cli("ls", identity=True)
    assert code == 0
    assert "\x1b" not in out
    assert "[/]" in out and "[link=http://evil.example]" in out  # shown literally


def test_manifest_bomb_is_stopped_before_it_fills_memory(env: Env) -> None:  # noqa: F811
    import time
    import tracemalloc

    c = Crafter(env)
    c.manifest({"real": [c.artifact(".claude/projects/k/real.jsonl", b"r\n")]})
    c.archive.store.put_bytes(f"snapshots/{HOST}/20260101T000000Z-0000bomb.json.age",
                              _age(_zstd_rle_bomb(8 << 30), c.recipients))
    tracemalloc.start()
    try:
        started = time.monotonic()
        code, out = env.cli("ls", "--json", identity=True)
        elapsed = time.monotonic() - started
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert code == 3
    import json

    doc = json.loads(out)
    assert [s["key"] for s in doc["sessions"]] == ["claude-code:real"]
    [err] = doc["errors"]
    assert "0000bomb" in err and "ratio exceeds" in err
    assert peak < 64 << 20, peak  # not 512 MiB, let alone 8 GiB
    assert elapsed < 30
