"""Snapshot reads harness files the user's agents (or any local user, for /tmp) can change
under it: a file checked as regular and then swapped for a symlink to a file outside the home,
for a FIFO, or a SQLite store that is a symlink, must never be read through. The race is made
deterministic by swapping at the point between the pipeline's check (sync._identity) and the
snapshot's open; the canary's bytes must reach no object and the refusal names the file."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import textwrap
import threading
from pathlib import Path
from typing import Any, Callable

import pytest

from archiver import snapshot
from archiver.demo.claude_sample import make_claude_home
from archiver.snapshot import SnapshotError, copy_sqlite, copy_whole, read_live_sqlite
from tests.fx_archiver import USER, Env, decrypt_with_cli, env  # noqa: F401

CANARY = b"s15 canary outside the home zqxv"


def _canary_file(base: Path, name: str, jsonl: bool = False) -> Path:
    out = base / "elsewhere"
    out.mkdir(exist_ok=True)
    p = out / name
    body = (b'{"type":"user","message":{"role":"user","content":"' + CANARY + b'"}}\n') if jsonl else CANARY + b"\n"
    p.write_bytes(body * 3)
    return p


def _archived_plaintext(e: Env) -> bytes:
    return b"".join(decrypt_with_cli(e.identity, e.raw_object(k)) for k in e.keys_in_bucket() if "/objects/" in k)


def _messages(result: Any) -> str:
    out = list(result.errors) + list(result.warnings)
    for s in result.sessions:
        out += list(s.warnings)
    return "\n".join(out)


def _swap_after_check(monkeypatch: pytest.MonkeyPatch, swaps: dict[str, Callable[[Path], None]]) -> list[str]:
    """Wrap sync._identity (the pipeline's check of a source, right before its snapshot) so that
    the named files are swapped just after it; returns the names swapped."""
    import archiver.sync as sync

    real = sync._identity
    done: list[str] = []

    def check_then_swap(src: Any) -> Any:
        ident = real(src)
        swap = swaps.pop(src.source.name, None)
        if swap is not None:
            swap(src.source)
            done.append(src.source.name)
        return ident

    monkeypatch.setattr(sync, "_identity", check_then_swap)
    return done


def _to_symlink(target: Path) -> Callable[[Path], None]:
    def swap(p: Path) -> None:
        p.unlink()
        os.symlink(target, p)
    return swap


def test_files_swapped_for_symlinks_between_check_and_open_are_never_read(env: Env, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    from tests.test_disk_faults import claude, make_syncer

    s = make_claude_home(env.home, USER)
    sidecar = s.root / "projects" / s.project_key / s.main / "tool-results" / "b1c2d3e4f.txt"
    fork = s.root / "projects" / s.project_key / f"{s.fork}.jsonl"
    assert sidecar.is_file() and fork.is_file()
    done = _swap_after_check(monkeypatch, {
        sidecar.name: _to_symlink(_canary_file(env.base, "secret.txt")),  # a whole-file sidecar
        fork.name: _to_symlink(_canary_file(env.base, "other.jsonl", jsonl=True)),  # an append-only transcript
    })
    result = make_syncer(env, claude(env)).run()
    assert sorted(done) == sorted([sidecar.name, fork.name])
    assert result.snapshot  # the other sessions are archived
    assert CANARY not in _archived_plaintext(env)
    text = _messages(result)
    assert "b1c2d3e4f.txt: not archived" in text and "symlink" in text, text
    assert f"{s.fork}.jsonl" in text, text
    assert result.failed == 1  # the fork's session, reported and retried next run


def test_a_fifo_swapped_in_for_a_transcript_does_not_block_the_run(env: Env, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    from tests.test_disk_faults import claude, make_syncer

    s = make_claude_home(env.home, USER)
    main = s.root / "projects" / s.project_key / f"{s.main}.jsonl"

    def to_fifo(p: Path) -> None:
        p.unlink()
        os.mkfifo(p)

    _swap_after_check(monkeypatch, {main.name: to_fifo})
    out: dict[str, Any] = {}
    t = threading.Thread(target=lambda: out.setdefault("r", make_syncer(env, claude(env)).run()), daemon=True)
    t.start()
    t.join(60)
    blocked = t.is_alive()
    if blocked:  # release a reader stuck in open() so the thread ends (old code)
        fd = os.open(main, os.O_WRONLY | os.O_NONBLOCK)
        os.close(fd)
        t.join(30)
    assert not blocked, "the run blocked on a FIFO"
    text = _messages(out["r"])
    assert f"{s.main}.jsonl" in text and "FIFO" in text, text


@pytest.mark.parametrize("kind", ["fifo", "socket", "directory", "symlink-to-dev-zero"])
def test_copy_and_line_scans_refuse_special_files_without_blocking(tmp_path: Path, kind: str) -> None:
    """Each reader of a harness file on each kind of non-regular file, in a child process with a
    file-size limit and a timeout: refused with a SnapshotError naming the file, quickly, never
    read forever (/dev/zero) and never blocked (FIFO)."""
    p = tmp_path / "session.jsonl"
    if kind == "fifo":
        os.mkfifo(p)
    elif kind == "socket":
        import socket

        sock = socket.socket(socket.AF_UNIX)
        short = Path(os.environ.get("TMPDIR", "/tmp")) / f"s15-{os.getpid()}.sock"
        sock.bind(str(short))
        os.rename(short, p)
    elif kind == "directory":
        p.mkdir()
    else:
        os.symlink("/dev/zero", p)
    code = textwrap.dedent(f"""
        import resource, sys
        from pathlib import Path
        resource.setrlimit(resource.RLIMIT_FSIZE, (8 << 20, 8 << 20))
        from archiver import snapshot
        src, out = Path({str(p)!r}), Path({str(tmp_path / 'out')!r})
        for name, call in [("copy_whole", lambda: snapshot.copy_whole(src, out)),
                           ("complete_length", lambda: snapshot.complete_length(src)),
                           ("whole_jsonl_length", lambda: snapshot.whole_jsonl_length(src)),
                           ("decompress_zst", lambda: snapshot.decompress_zst(src, out))]:
            try:
                call()
            except snapshot.SnapshotError as e:
                assert str(src) in str(e), (name, str(e))
                print(name, "refused:", str(e).replace(str(src), "SRC"))
                continue
            except BaseException as e:
                print(name, "other error:", type(e).__name__, e)
                sys.exit(1)
            print(name, "read it")
            sys.exit(1)
    """)
    env_ = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    try:
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30, env=env_)
    except subprocess.TimeoutExpired:
        pytest.fail(f"reading a {kind} blocked or never ended")
    finally:
        if kind == "socket":
            sock.close()
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.count("refused:") == 4, proc.stdout


def _db(path: Path, text: str) -> None:
    con = sqlite3.connect(str(path))
    con.execute("CREATE TABLE t (x TEXT)")
    con.execute("INSERT INTO t VALUES (?)", (text,))
    con.commit()
    con.close()


def _rows(db: Path) -> list[Any]:
    con = sqlite3.connect(str(db))
    try:
        return con.execute("SELECT x FROM t").fetchall()
    finally:
        con.close()


def test_a_sqlite_store_that_is_a_symlink_is_refused(tmp_path: Path) -> None:
    """sqlite3 follows symlinks (and copy_sqlite resolved them): a store that is a symlink to
    another user's database, or whose -wal is one, is refused, never read through."""
    other = tmp_path / "other-user.db"
    _db(other, CANARY.decode())
    store = tmp_path / "home" / "state.sqlite"
    store.parent.mkdir()
    os.symlink(other, store)
    with pytest.raises(SnapshotError, match="symlink") as e:
        copy_sqlite(store, tmp_path / "copy.db")
    assert str(store) in str(e.value)
    assert not (tmp_path / "copy.db").exists()
    with pytest.raises(SnapshotError, match="symlink"):
        with read_live_sqlite(store) as conn:
            conn.execute("SELECT x FROM t").fetchall()
    # a regular database whose -wal is a symlink planted beside it
    real = tmp_path / "home" / "store.db"
    _db(real, "mine")
    os.symlink(other, str(real) + "-wal")
    with pytest.raises(SnapshotError, match="-wal"):
        copy_sqlite(real, tmp_path / "copy2.db")
    with pytest.raises(SnapshotError, match="-wal"):
        with read_live_sqlite(real):
            pass


def test_a_sqlite_store_swapped_while_sqlite_opens_it_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The store is checked by name, then swapped for a symlink just before SQLite opens it (and
    left so while the open is checked): the name is no longer the file checked."""
    other = tmp_path / "other-user.db"
    _db(other, CANARY.decode())
    store = tmp_path / "state.sqlite"
    _db(store, "mine")
    aside = tmp_path / "aside.sqlite"
    real_connect = sqlite3.connect

    def swapping_connect(db: Any, *a: Any, **kw: Any) -> sqlite3.Connection:
        if isinstance(db, str) and db.startswith("file:") and "state.sqlite" in db:
            os.rename(store, aside)
            os.symlink(other, store)
            swapped.append(db)
        return real_connect(db, *a, **kw)

    def put_back() -> None:
        if swapped and store.is_symlink():
            store.unlink()
            os.rename(aside, store)

    swapped: list[str] = []
    monkeypatch.setattr(snapshot.sqlite3, "connect", swapping_connect)
    with pytest.raises(SnapshotError, match="replaced|a symlink") as e:
        copy_sqlite(store, tmp_path / "copy.db")
    assert str(store) in str(e.value)
    assert not (tmp_path / "copy.db").exists() or [(CANARY.decode(),)] != _rows(tmp_path / "copy.db")
    put_back()
    with pytest.raises(SnapshotError, match="replaced|a symlink"):
        with read_live_sqlite(store) as conn:
            conn.execute("SELECT x FROM t").fetchall()
    put_back()
    monkeypatch.undo()
    copy_sqlite(store, tmp_path / "copy3.db")  # unswapped, the same store copies
    assert _rows(tmp_path / "copy3.db") == [("mine",)]
    with read_live_sqlite(store) as conn:
        assert conn.execute("SELECT x FROM t").fetchall() == [("mine",)]


def test_a_file_replaced_after_it_was_checked_is_refused_by_identity(tmp_path: Path) -> None:
    """copy_whole given the identity the pipeline checked reads only that file: one renamed
    over it in between (another inode) is refused; the copy is created 0600 whatever the umask."""
    src = tmp_path / "tip.json"
    src.write_bytes(b'{"a": 1}\n')
    ident = snapshot.FileIdentity.of(src)
    other = tmp_path / "other.json"
    other.write_bytes(CANARY)
    os.replace(other, src)
    with pytest.raises(SnapshotError, match="replaced"):
        copy_whole(src, tmp_path / "out", expect=ident)
    old = os.umask(0)
    try:
        copy_whole(src, tmp_path / "out2", expect=snapshot.FileIdentity.of(src))
    finally:
        os.umask(old)
    assert (tmp_path / "out2").read_bytes() == CANARY
    assert (tmp_path / "out2").stat().st_mode & 0o777 == 0o600


def test_stores_copied_by_many_threads_while_others_open_files_are_never_refused(tmp_path: Path) -> None:
    """A sync copies stores from several threads while others open files: no good store may be
    refused as "replaced" (a look at the process's new descriptors once did exactly that)."""
    stores = []
    for i in range(4):
        p = tmp_path / f"s{i}" / "store.db"
        p.parent.mkdir()
        _db(p, f"row {i}")
        stores.append(p)
    errors: list[BaseException] = []
    stop = threading.Event()

    def churn() -> None:  # another session's thread, opening and closing files all the time
        n = 0
        while not stop.is_set():
            f = tmp_path / f"churn-{n % 8}.txt"
            f.write_bytes(b"x" * 100)
            with f.open("rb") as fh:
                fh.read()
            n += 1

    def copier(i: int) -> None:
        try:
            for k in range(25):
                copy_sqlite(stores[i], tmp_path / f"copy-{i}-{k}.db")
                with read_live_sqlite(stores[i]) as conn:
                    assert conn.execute("SELECT x FROM t").fetchall() == [(f"row {i}",)]
        except BaseException as e:  # noqa: BLE001
            errors.append(e)

    churners = [threading.Thread(target=churn) for _ in range(2)]
    copiers = [threading.Thread(target=copier, args=(i,)) for i in range(4)]
    for t in churners + copiers:
        t.start()
    for t in copiers:
        t.join(120)
    stop.set()
    for t in churners:
        t.join(10)
    assert errors == []
