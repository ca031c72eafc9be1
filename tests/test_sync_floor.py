"""The pipeline's own cost (issue 7): jobs pack what they redact, the file store checks paths
once per directory and fsyncs the objects' directories once per run -- all without changing
what is stored or weakening "an object is durable before anything names it" (FORMAT.md §6)."""

from __future__ import annotations

import functools
import hashlib
import hmac
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import zstandard

import archiver.store.local as local_mod
from archiver.archive import SMALL_OBJECT, Archive, object_key
from archiver.cli import main
from archiver.crypto.age import X25519Identity
from archiver.pack import unpack_bytes
from archiver.redact.redactor import build_redactor
from archiver.redact.rules import RuntimeTerms
from archiver.store.base import StoreError
from archiver.store.local import LocalStore
from archiver.workers import Jobs

ROOT = Path(__file__).resolve().parent.parent
KEY = b"k" * 32
RULES = ["builtin:secrets", "builtin:pii", "builtin:paths"]
TERMS = RuntimeTerms(usernames=["alice"], home_dirs=["/home/alice"])


def _oid(data: bytes) -> str:
    return hmac.new(KEY, data, hashlib.sha256).hexdigest()


def _jsonl(path: Path, n: int, pad: int) -> None:
    rows = [json.dumps({"i": i, "cwd": "/home/alice/app", "text": f"line {i} " + "z" * pad}) for i in range(n)]
    path.write_bytes(("\n".join(rows) + "\n").encode())


@pytest.mark.parametrize("workers", [1, 2])
def test_jobs_pack_their_output_as_put_object_would(tmp_path: Path, workers: int) -> None:
    """Small output: packed in memory (zstd frame with its content size, as pack_bytes); large:
    streamed to a file next to it. The plaintext file is gone; ids are of the redacted bytes."""
    ident = X25519Identity.generate()
    redactor = build_redactor(RULES, KEY, TERMS)
    jobs = Jobs(redactor, KEY, verify=True, workers=workers, recipients=[ident.recipient],
                factory=functools.partial(build_redactor, RULES, KEY, TERMS))
    small, big = tmp_path / "small.jsonl", tmp_path / "big.jsonl"
    _jsonl(small, 50, 10)
    _jsonl(big, 3000, 500)
    try:
        s = jobs.whole(small, tmp_path / "s.red", "jsonl")
        b = jobs.segment(big, 0, big.stat().st_size, tmp_path / "b.red")
    finally:
        jobs.close()
    assert b.size > SMALL_OBJECT >= s.size
    assert not (tmp_path / "s.red").exists() and not (tmp_path / "b.red").exists()

    assert s.packed is not None and s.packed_path is None
    plain = unpack_bytes(s.packed, [ident])
    assert b"/home/alice" not in plain and plain.count(b"\n") == 50
    assert (_oid(plain), hashlib.sha256(plain).hexdigest(), len(plain)) == (s.object_id, s.sha256, s.size)

    assert b.packed is None and b.packed_path == str(tmp_path / "b.red") + ".age"
    plain_b = unpack_bytes(Path(b.packed_path).read_bytes(), [ident], max_output=1 << 30)
    assert (_oid(plain_b), len(plain_b)) == (b.object_id, b.size)
    assert plain_b.count(b"\n") == 3000 and b"/home/alice" not in plain_b


def test_small_packed_frame_records_its_size_like_pack_bytes(tmp_path: Path) -> None:
    from archiver.crypto.age import DecryptReader

    ident = X25519Identity.generate()
    redactor = build_redactor(RULES, KEY, TERMS)
    jobs = Jobs(redactor, KEY, verify=True, workers=1, recipients=[ident.recipient])
    src = tmp_path / "a.jsonl"
    _jsonl(src, 20, 5)
    r = jobs.whole(src, tmp_path / "a.red", "jsonl")
    assert r.packed is not None
    import io

    frame = DecryptReader(io.BytesIO(r.packed), [ident]).read()
    assert zstandard.get_frame_parameters(frame).content_size == r.size


def test_jobs_without_recipients_leave_the_plaintext(tmp_path: Path) -> None:
    """A dry run (no archive): nothing packed, the redacted file stays for the caller."""
    jobs = Jobs(build_redactor(RULES, KEY, TERMS), KEY, verify=True, workers=1)
    src = tmp_path / "a.jsonl"
    _jsonl(src, 5, 5)
    r = jobs.whole(src, tmp_path / "a.red", "jsonl")
    assert r.packed is None and r.packed_path is None
    assert _oid((tmp_path / "a.red").read_bytes()) == r.object_id


def test_put_object_with_a_packed_file_uploads_it_and_removes_it(tmp_path: Path) -> None:
    ident = X25519Identity.generate()
    store = LocalStore(tmp_path / "store")
    archive = Archive(store)
    data = os.urandom(SMALL_OBJECT + 10)
    from archiver.pack import pack_file

    plain = tmp_path / "p"
    plain.write_bytes(data)
    packed = tmp_path / "p.age"
    pack_file(plain, packed, [ident.recipient], durable=False)
    plain.unlink()  # not read: the size says it is large
    oid = _oid(data)
    sent = archive.put_object(oid, plain, tmp_path / "tmp", [ident.recipient], size=len(data), packed_file=packed)
    assert sent == (tmp_path / "store" / object_key(oid)).stat().st_size > 0
    assert not packed.exists()
    assert unpack_bytes((tmp_path / "store" / object_key(oid)).read_bytes(), [ident], max_output=1 << 30) == data
    packed.write_bytes(b"again")  # already stored (recent): not sent, still removed
    assert archive.put_object(oid, plain, tmp_path / "tmp", [ident.recipient], size=len(data), packed_file=packed) == 0
    assert not packed.exists()


def _record_fsyncs(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """(kind, path) of every fsync the file store makes, in order: 'file' (a temp file, by the
    path its descriptor has) or 'dir'."""
    events: list[tuple[str, str]] = []
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        path = os.readlink(f"/proc/self/fd/{fd}")
        events.append(("dir" if os.path.isdir(path) else "file", path))
        real_fsync(fd)

    monkeypatch.setattr(local_mod.os, "fsync", fsync)
    return events


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc")
def test_deferred_objects_fsync_their_file_now_and_their_directory_at_sync_dirs(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "store"
    store = LocalStore(root)
    events = _record_fsyncs(monkeypatch)
    store.defer_dir_sync("objects/")
    keys = [f"objects/aa/{'a' * 63}{i}" for i in range(2)] + [f"objects/bb/{'b' * 64}"]
    for k in keys:
        assert store.put_bytes(k, k.encode(), if_absent=True)
    # each file fsynced under its temp name (before it got its name), no directory yet
    assert [kind for kind, _ in events] == ["file"] * 3
    assert all(os.path.basename(p).startswith(local_mod.TMP_PREFIX) for _, p in events)
    store.put_bytes("snapshots/h/m.json.age", b"m")  # not deferred: its directory at once
    assert events[-2:] == [("file", events[-2][1]), ("dir", str(root / "snapshots" / "h"))]
    events.clear()
    assert store.sync_dirs() == 4
    # the two object directories, and the directories made for them: objects/ and the root
    assert sorted(p for _, p in events) == sorted(str(p) for p in (root, root / "objects", root / "objects" / "aa",
                                                                   root / "objects" / "bb"))
    assert {kind for kind, _ in events} == {"dir"}
    events.clear()
    assert store.sync_dirs() == 0 and events == []
    assert [store.get_bytes(k) for k in keys] == [k.encode() for k in keys]


def test_a_directory_that_cannot_be_synced_fails_sync_dirs_and_is_kept(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    store = LocalStore(tmp_path / "store")
    store.defer_dir_sync("objects/")
    store.put_bytes(f"objects/cc/{'c' * 64}", b"x")
    monkeypatch.setattr(local_mod, "_fsync_dir_checked", lambda path: False)
    with pytest.raises(StoreError, match="fsync"):
        store.sync_dirs()
    monkeypatch.undo()
    assert store.sync_dirs() == 3  # tried again, not forgotten


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc")
def test_put_manifest_makes_the_objects_durable_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from archiver.model import Manifest

    ident = X25519Identity.generate()
    root = tmp_path / "store"
    archive = Archive(LocalStore(root))
    archive.defer_object_sync()
    events = _record_fsyncs(monkeypatch)
    data = b"object bytes"
    plain = tmp_path / "p"
    plain.write_bytes(data)
    oid = _oid(data)
    archive.put_object(oid, plain, tmp_path / "tmp", [ident.recipient])
    obj_dir = str(root / "objects" / oid[:2])
    assert ("dir", obj_dir) not in events
    m = Manifest(host_id="h", created_at="2026-01-01T00:00:00.000Z", run_id="r", tool_version="t", sessions=[])
    key = archive.put_manifest(m, [ident.recipient])
    manifest_file = next(i for i, (kind, p) in enumerate(events) if kind == "file" and "/snapshots/" in p)
    assert events.index(("dir", obj_dir)) < manifest_file


def test_path_check_is_cached_per_directory_but_not_for_symlinks(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret").write_bytes(b"s")
    store = LocalStore(tmp_path / "store")
    store.put_bytes(f"objects/dd/{'d' * 64}", b"x")  # makes the directory (not cached: missing when checked)
    assert str(tmp_path / "store" / "objects" / "dd") not in store._inside  # noqa: SLF001
    assert store.get_bytes(f"objects/dd/{'d' * 64}") == b"x"  # checked again, now cached
    assert str(tmp_path / "store" / "objects" / "dd") in store._inside  # noqa: SLF001
    leaf = f"objects/dd/{'e' * 64}"
    os.symlink(outside / "secret", tmp_path / "store" / leaf)
    with pytest.raises(StoreError, match="outside"):
        store.get_bytes(leaf)
    os.symlink(outside, tmp_path / "store" / "objects" / "ee")  # a directory never checked
    with pytest.raises(StoreError, match="outside"):
        store.get_bytes("objects/ee/secret")
    os.unlink(tmp_path / "store" / leaf)
    store.delete(f"objects/dd/{'d' * 64}")
    assert not (tmp_path / "store" / "objects" / "dd").exists()  # removed empty, and forgotten
    assert str(tmp_path / "store" / "objects" / "dd") not in store._inside  # noqa: SLF001
    store.put_bytes(f"objects/dd/{'f' * 64}", b"y")  # made again
    assert store.get_bytes(f"objects/dd/{'f' * 64}") == b"y"


def test_sync_names_no_object_before_its_directory_is_synced(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A real sync into a file:// store: every objects/<aa>/ directory it wrote into is fsynced
    after its last object there and before the state names any object and before the manifest
    is written; the objects decrypt to bytes whose HMAC is their id. (Before: one fsync per
    object, right after it; with the deferral and no sync before the commit this fails.)"""
    import sqlite3

    import archiver.state as state_mod

    tmp_path.chmod(0o700)
    subprocess.run([sys.executable, str(ROOT / "bench" / "corpus.py"), "--out", str(tmp_path / "c"),
                    "--sessions", "6", "--seed", "5"], check=True, capture_output=True,
                   env={**os.environ, "PYTHONPATH": str(ROOT)})
    home, keys, store = tmp_path / "c" / "home", tmp_path / "keys", tmp_path / "store"
    for var in ("ARCHIVER_CONFIG", "ARCHIVER_TEAM_KEY", "CLAUDE_CONFIG_DIR", "CODEX_HOME", "CURSOR_CONFIG_DIR",
                "CURSOR_DATA_DIR", "PI_CODING_AGENT_DIR", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME",
                "OPENCODE_DB"):
        monkeypatch.delenv(var, raising=False)
    import contextlib
    import io

    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["keygen", "--out", str(keys)]) == 0
    cfg = tmp_path / "config.toml"
    cfg.write_text(f'home = "{home}"\nhost = "floor-host"\n\n[redaction]\nteam_key_file = "{keys / "team.key"}"\n'
                   f'usernames = ["alice"]\n\n[encryption]\nrecipients_file = "{keys / "recipient.txt"}"\n\n'
                   f'[store]\nurl = "file://{store}"\n\n[state]\ndir = "{tmp_path / "state"}"\n')

    events: list[tuple[str, str]] = []
    real_fsync_dir = local_mod._fsync_dir_checked
    real_put_bytes = local_mod.LocalStore.put_bytes
    real_put_artifact = state_mod.State.put_artifact

    def fsync_dir(path: str) -> bool:
        events.append(("dir-sync", path))
        return real_fsync_dir(path)

    def put_bytes(self: LocalStore, key: str, data: bytes, **kw: object) -> bool:
        out = real_put_bytes(self, key, data, **kw)  # type: ignore[arg-type]
        events.append(("put", key))
        return out

    def put_artifact(self: state_mod.State, a: state_mod.ArtifactState) -> None:
        events.append(("state", ",".join(a.artifact.objects)))
        real_put_artifact(self, a)

    monkeypatch.setattr(local_mod, "_fsync_dir_checked", fsync_dir)
    monkeypatch.setattr(local_mod.LocalStore, "put_bytes", put_bytes)
    monkeypatch.setattr(state_mod.State, "put_artifact", put_artifact)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["sync", "--config", str(cfg), "--workers", "1", "--json"]) == 0
    result = json.loads(out.getvalue())
    assert result["objects_uploaded"] > 5 and not result["errors"]

    puts = [i for i, (kind, key) in enumerate(events) if kind == "put" and key.startswith("objects/")]
    manifest = next(i for i, (kind, key) in enumerate(events) if kind == "put" and key.startswith("snapshots/"))
    first_state = next(i for i, (kind, _) in enumerate(events) if kind == "state")
    synced = {path: i for i, (kind, path) in enumerate(events) if kind == "dir-sync"}
    assert len(puts) == result["objects_uploaded"]
    for i in puts:
        d = str(store / os.path.dirname(events[i][1]))
        assert d in synced, d
        assert i < synced[d] < first_state < manifest
    assert str(store / "objects") in synced  # made by this run: its entries too

    ident_text = (keys / "identity.txt").read_text()
    from archiver.crypto.age import load_identities

    identities = load_identities(keys / "identity.txt") if ident_text else []
    team = bytes.fromhex((keys / "team.key").read_text().strip())
    k_obj = hmac.new(team, b"archiver/v1/object-id", hashlib.sha256).digest()
    for i in puts:
        key = events[i][1]
        plain = unpack_bytes((store / key).read_bytes(), identities, max_output=1 << 30)
        assert hmac.new(k_obj, plain, hashlib.sha256).hexdigest() == key.rsplit("/", 1)[1]
    assert not list((tmp_path / "state" / "tmp").glob("run-*/*"))  # no temp file left
    db = sqlite3.connect(tmp_path / "state" / "state.db")
    assert db.execute("SELECT value FROM meta WHERE key='manifest_pending'").fetchone() is None
