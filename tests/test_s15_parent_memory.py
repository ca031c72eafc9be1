"""The sync parent's memory follows what it is doing, not how many sessions the home has: a
finished session is held as its manifest JSON until the manifest (not as models), the manifest
is streamed (never one object), and the session threads queue nothing per session. The
streamed manifest is byte for byte the model's dump; readers are unchanged."""

from __future__ import annotations

import gc
import io
import json
import sys
import threading
import tracemalloc
import types
from collections import deque
from pathlib import Path
from typing import Any

import pytest
import zstandard

from archiver.model import Artifact, LineageEdge, Manifest, Session

N_TINY = 240


# ---------------------------------------------------------------- fixtures
def _session(i: int) -> Session:
    arts = [Artifact(path=f".claude/projects/-home-user-5f2a-work-app/{i:04d}.jsonl", role="transcript",
                     format="jsonl", size=1000 + i, mtime=1764583200.123456 + i, sha256=f"{i:064x}",
                     objects=[f"{i + 1:064x}", f"{i + 2:064x}"]),
            Artifact(path=f".claude/projects/-home-user-5f2a-work-app/{i:04d}/tool-results/t.txt", role="sidecar",
                     format="text", size=3, mtime=None, sha256="", objects=[], shared=i % 2 == 0)]
    return Session(key=f"claude-code:{i:08x}", harness="claude-code", session_id=f"{i:08x}",
                   kind="subagent" if i % 3 == 0 else "main", title=f"Fix the löader № {i} \"quoted\" \\ \u2028",
                   cwd="/home/user-5f2a/work/app", created_at="2026-11-30T10:00:00.000Z", updated_at=None,
                   artifacts=arts, parents=[LineageEdge(relation="fork", parent=f"claude-code:{i - 1:08x}", at="u-1")]
                   if i % 2 else [], redactions={"home-linux": i, "email": 1}, warnings=["a ⚠ warning"] if i % 5 == 0 else [],
                   host_id="d" * 16, archived_at="2026-11-30T10:00:01.000Z")


def _head(**kw: Any) -> Manifest:
    return Manifest(host_id="d" * 16, created_at="2026-11-30T10:00:02.000Z", run_id="0123456789abcdef",
                    tool_version="0.9.0", redactions={"b": 2, "a": 1}, errors=["x: ü failed", "y"], **kw)


@pytest.fixture
def tiny_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home of N_TINY tiny sessions (bench/corpus.py's tiny mode, written after the seeds), a
    file:// store and a config; returns the config."""
    from archiver.cli import main
    from bench import corpus

    for var in ("ARCHIVER_CONFIG", "ARCHIVER_TEAM_KEY", "CLAUDE_CONFIG_DIR", "CODEX_HOME", "CURSOR_CONFIG_DIR",
                "CURSOR_DATA_DIR", "PI_CODING_AGENT_DIR", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME",
                "ARCHIVER_IDENTITY_FILE"):
        monkeypatch.delenv(var, raising=False)
    info = corpus.generate_tiny(tmp_path / "corpus", N_TINY, log=lambda m: None)
    assert main(["keygen", "--out", str(tmp_path / "keys")]) == 0
    (tmp_path / "store").mkdir(mode=0o700)
    cfg = tmp_path / "config.toml"
    cfg.write_text(f'home = "{tmp_path / "corpus" / "home"}"\nhost = "probe-host"\n\n[redaction]\n'
                   f'team_key_file = "{tmp_path / "keys" / "team.key"}"\nusernames = {json.dumps(info["users"])}\n\n'
                   f'[encryption]\nrecipients_file = "{tmp_path / "keys" / "recipient.txt"}"\n\n'
                   f'[store]\nurl = "file://{tmp_path / "store"}/a"\n\n[state]\ndir = "{tmp_path / "state"}"\n')
    return cfg


def _syncer(cfg: Path, tmp: Path) -> Any:
    from archiver import runtime
    from archiver.archive import Archive
    from archiver.config import load_settings
    from archiver.state import State
    from archiver.sync import Syncer, SyncOptions

    settings = load_settings(cfg)
    keys = runtime.team_keys(settings)
    return Syncer(harnesses=runtime.harnesses(settings), redactor=runtime.redactor(settings, keys),
                  archive=Archive(runtime.store(settings)), state=State(tmp / "st.db"),
                  recipients=runtime.recipients(settings), object_id_key=keys.object_id,
                  host_id="d" * 16, workdir_parent=tmp / "tmp", options=SyncOptions(workers=1))


def _deep_size(root: object) -> int:
    """Bytes of the objects reachable from `root` (types, modules and functions left out)."""
    seen: set[int] = set()
    todo = [root]
    total = 0
    skip = (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType, types.MethodType)
    while todo:
        obj = todo.pop()
        if id(obj) in seen or isinstance(obj, skip):
            continue
        seen.add(id(obj))
        total += sys.getsizeof(obj)
        todo.extend(gc.get_referents(obj))
    return total


# ---------------------------------------------------------------- the streamed manifest
def test_streamed_manifest_is_byte_for_byte_the_models_dump() -> None:
    from archiver.archive import write_manifest

    sessions = [_session(i) for i in (7, 3, 11, 0, 5)]
    ordered = sorted(sessions, key=lambda s: s.key)
    whole = _head(sessions=ordered).model_dump_json().encode()
    buf = io.BytesIO()
    write_manifest(_head(), (s.model_dump_json().encode() for s in ordered), buf)
    assert buf.getvalue() == whole
    assert json.loads(buf.getvalue()) == _head(sessions=ordered).model_dump(mode="json")
    assert "löader".encode() in buf.getvalue()  # UTF-8 as itself (FORMAT.md §2), as the dump has it
    empty = io.BytesIO()
    write_manifest(_head(), iter(()), empty)
    assert empty.getvalue() == _head().model_dump_json().encode()
    with pytest.raises(ValueError):
        write_manifest(_head(sessions=[sessions[0]]), iter(()), io.BytesIO())


def test_a_streamed_manifest_reads_back_as_the_model(tmp_path: Path) -> None:
    from archiver.archive import Archive, ManifestStream
    from archiver.crypto.keys import keygen
    from archiver.pack import unpack_bytes
    from archiver.store.local import LocalStore
    from archiver import runtime

    keygen(tmp_path / "keys")
    ids = runtime.identities(tmp_path / "keys" / "identity.txt")
    recipients = [i.recipient for i in ids]
    (tmp_path / "store").mkdir()
    archive = Archive(LocalStore(tmp_path / "store"))
    ordered = sorted((_session(i) for i in range(40)), key=lambda s: s.key)
    scratch = tmp_path / "run" / "manifest.json"
    scratch.parent.mkdir(mode=0o700)
    key = archive.put_manifest(ManifestStream(_head(), lambda: (s.model_dump_json().encode() for s in ordered),
                                              scratch), recipients)
    assert not scratch.exists()  # the plaintext document is gone
    assert archive.load_manifest(key, ids) == _head(sessions=ordered)
    raw = unpack_bytes((tmp_path / "store" / key).read_bytes(), ids)
    assert raw == _head(sessions=ordered).model_dump_json().encode()
    # one zstd frame recording its content size, as pack_bytes wrote the manifest (FORMAT.md §2)
    packed = (tmp_path / "store" / key).read_bytes()
    from archiver.crypto.age import DecryptReader

    frame = DecryptReader(io.BytesIO(packed), ids).read()
    assert zstandard.get_frame_parameters(frame).content_size == len(raw)


def test_pack_file_bytes_holds_the_file_and_its_size(tmp_path: Path) -> None:
    from archiver import runtime
    from archiver.crypto.keys import keygen
    from archiver.pack import pack_file_bytes, unpack_bytes

    keygen(tmp_path / "keys")
    ids = runtime.identities(tmp_path / "keys" / "identity.txt")
    data = b"".join(b"%06d some line of a manifest\n" % i for i in range(50_000))
    (tmp_path / "f").write_bytes(data)
    blob = pack_file_bytes(tmp_path / "f", [i.recipient for i in ids])
    assert unpack_bytes(blob, ids) == data and len(blob) < len(data) // 4


# ---------------------------------------------------------------- what the parent holds
def test_a_finished_session_is_held_as_a_few_integers_not_as_models(tiny_home: Path, tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """At the manifest, what the run holds in memory for its finished sessions (the `processed`
    map handed to _commit and SyncResult.sessions) is a few hundred bytes a session: their JSON
    waits in the run's spill file. Before: the pydantic Session with its Artifacts and
    ArtifactStates, ~6 KB a tiny session by this count (~9 KB in RSS)."""
    import archiver.sync as sync

    seen: dict[str, Any] = {}
    real = sync.Syncer._commit

    def commit(self: Any, processed: Any, *a: Any, **k: Any) -> Any:
        seen["held"] = _deep_size(processed) + _deep_size(self.result.sessions)
        seen["n"] = len(processed)
        seen["spill"] = self._spill.path.stat().st_size
        seen["spill_mode"] = self._spill.path.stat().st_mode & 0o777
        return real(self, processed, *a, **k)

    monkeypatch.setattr(sync.Syncer, "_commit", commit)
    result = _syncer(tiny_home, tmp_path).run()
    assert result.failed == 0 and result.uploaded == seen["n"] == N_TINY + 1  # + the host session
    per = seen["held"] / seen["n"]
    print(f"held per finished session: {per:.0f} B in memory, {seen['spill'] / seen['n']:.0f} B in the spill file")
    assert per < 800, per
    assert seen["spill"] > 500 * seen["n"] and seen["spill_mode"] == 0o600
    assert not list((tmp_path / "tmp").glob("run-*"))  # the spill file went with the run's folder
    # what tests read of SyncResult.sessions is there: keys and warnings, as plain values
    assert len(result.sessions) == N_TINY + 1
    assert all(type(s.key) is str and type(s.warnings) is tuple for s in result.sessions)
    assert not any(isinstance(s, Session) for s in result.sessions)


def test_the_spill_file_gives_back_what_it_was_given(tmp_path: Path) -> None:
    from archiver.sync import _Spill

    spill = _Spill(tmp_path / "f")
    try:
        items = [(b"{\"k\":%d}" % i * (i % 7 + 1), (b"rows%d" % i) if i % 3 else None) for i in range(200)]
        refs = [spill.put(d, r) for d, r in items]
        assert [spill.get(h) for h in reversed(refs)] == list(reversed(items))
        with pytest.raises(FileExistsError):
            _Spill(tmp_path / "f")  # never an existing file (or a planted symlink)
    finally:
        spill.close()


def test_held_rows_cost_what_they_say(tmp_path: Path) -> None:
    """The held bytes are as big as they look: a serializer that keeps a larger buffer behind a
    short result (orjson's 4 KiB) would multiply the held memory unseen by sys.getsizeof."""
    from archiver.state import ArtifactState
    from archiver.sync import _hold, _unhold

    sessions = [_session(i) for i in range(300)]
    states = [[ArtifactState(s.key, f"p/{j}", 10 + j, 20, 30, 20, "f" * 64, a) for j, a in enumerate(s.artifacts)]
              for s in sessions]
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        held = [_hold(s, st) for s, st in zip(sessions, states)]
        used = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    nominal = sum(sys.getsizeof(a) + sys.getsizeof(b) + sys.getsizeof((a, b)) for a, b in held)
    assert used < 1.3 * nominal + 20_000, (used, nominal)
    # and they come back as they went in: the state rows written from them are the same
    for s, st, h in zip(sessions, states, held):
        back, back_states = _unhold(s.key, h)
        assert back == s and back.model_dump_json() == s.model_dump_json()
        assert [(x.logical_path, x.inode, x.size, x.mtime_ns, x.offset, x.fingerprint, x.artifact.model_dump_json())
                for x in back_states] == [(x.logical_path, x.inode, x.size, x.mtime_ns, x.offset, x.fingerprint,
                                           x.artifact.model_dump_json()) for x in st]


def test_a_run_writes_the_manifest_its_state_names(tiny_home: Path, tmp_path: Path) -> None:
    """The manifest a run streams holds every session the state stores, in key order, each as
    its stored row says; a re-sync after one session changed carries the others as stored."""
    from archiver import runtime
    from archiver.archive import Archive
    from archiver.config import load_settings
    from archiver.state import State

    first = _syncer(tiny_home, tmp_path).run()
    assert first.failed == 0 and first.snapshot
    settings = load_settings(tiny_home)
    ids = runtime.identities(tmp_path / "keys" / "identity.txt")
    archive = Archive(runtime.store(settings))
    m = archive.load_manifest(first.snapshot, ids)
    keys = [s.key for s in m.sessions]
    assert keys == sorted(keys) and len(keys) == N_TINY + 1
    state = State(tmp_path / "st.db")
    rows = {k: state.get_session(k) for k in state.session_keys()}
    assert rows == {s.key: s for s in m.sessions}
    # one transcript grows: the others are taken unchanged (fast path) and join the manifest as stored
    home = Path(load_settings(tiny_home).home)
    victim = sorted(home.glob(".claude/projects/*/*.jsonl"))[0]
    with victim.open("ab") as f:
        f.write(victim.read_bytes().splitlines(keepends=True)[-1])
    from archiver.commands.sync import redaction_fingerprint

    s2 = _syncer(tiny_home, tmp_path)
    s2.options.redaction_fingerprint = redaction_fingerprint(settings, runtime.team_keys(settings))
    second = s2.run()
    assert second.failed == 0 and second.uploaded == 1 and second.snapshot
    m2 = archive.load_manifest(second.snapshot, ids)
    assert [s.key for s in m2.sessions] == keys
    changed = [a for a, b in zip(m.sessions, m2.sessions) if a != b]
    assert len(changed) == 1 and victim.stem in changed[0].key


# ---------------------------------------------------------------- the session threads
def test_threads_take_every_session_and_queue_none() -> None:
    from archiver.sync import _pull

    items: deque[Any] = deque(range(500))
    done: list[int] = []
    lock = threading.Lock()
    waiting: list[int] = []

    def one(x: Any) -> None:
        with lock:
            done.append(x)
            waiting.append(len(items))

    _pull(one, items, 6)
    assert sorted(done) == list(range(500)) and not items
    assert max(waiting) < 500  # taken from the deque as they go, not all handed out at once


def test_an_error_escaping_a_session_stops_the_rest_and_is_raised() -> None:
    from archiver.sync import _pull

    items: deque[Any] = deque(range(1000))
    done: list[int] = []

    def one(x: Any) -> None:
        if x == 10:
            raise KeyboardInterrupt  # what pool.map raised in the calling thread too
        done.append(x)

    with pytest.raises(KeyboardInterrupt):
        _pull(one, items, 4)
    assert not items and len(done) < 100
    assert threading.active_count() == 1 or all(not t.name.startswith("sync-") for t in threading.enumerate())


def test_no_threads_for_nothing() -> None:
    from archiver.sync import _pull

    before = threading.active_count()
    _pull(lambda x: None, deque(), 8)
    assert threading.active_count() == before
