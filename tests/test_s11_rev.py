"""Readers never create anything in a store (a mistyped file:// url stays absent), `verify --at`
(the archive as a reader with --at saw it), and the reader commands living in archiver/commands/.
A file:// store and real age keys; the Claude Code sample home follows the seeds."""

from __future__ import annotations

import contextlib
import io
import json
import stat
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from archiver.cli import build_parser, main
from archiver.demo.claude_sample import ClaudeSample, make_claude_home
from archiver.store import LocalStore, ReadOnlyStore, StoreError, as_read_only, open_store
from tests.fx_home import USER, Box, box  # noqa: F401

UTC = timezone.utc


def _run(box: Box, *args: str, identity: bool = True) -> tuple[int, str, str]:  # noqa: F811
    out, errs = io.StringIO(), io.StringIO()
    argv = [args[0], "--config", str(box.config), *args[1:]]
    if identity and args[0] not in ("sync",):
        argv += ["--identity", str(box.base / "keys" / "identity.txt")]
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(errs):
        code = main(argv)
    return code, out.getvalue(), errs.getvalue()


def _json(box: Box, *args: str, expect: int = 0) -> Any:  # noqa: F811
    code, out, errs = _run(box, *args, "--json")
    assert code == expect, (args, code, out[:2000], errs[:2000])
    return json.loads(out)


def _point_store_at(box: Box, root: Path) -> None:  # noqa: F811
    text = box.config.read_text()
    box.config.write_text(text.replace(f'url = "file://{box.base / "store"}"', f'url = "file://{root}"'))
    assert f'url = "file://{root}"' in box.config.read_text()


# ---------------------------------------------------------------- 1. readers open read-only
READERS = (("ls",), ("lineage",), ("verify",), ("verify", "--read-data"), ("snapshots",),
           ("export", "claude-code:x"), ("ls", "--at", "2026-01-01"), ("verify", "--at", "1d"))


def test_a_reader_given_a_mistyped_file_url_creates_nothing(box: Box) -> None:  # noqa: F811
    typo = box.base / "stroe" / "archive"  # neither it nor its parent exists
    _point_store_at(box, typo)
    for argv in (*READERS, ("restore", "--all", "--to", str(box.base / "out"))):
        code, out, errs = _run(box, *argv)
        assert code == 2, (argv, code, out, errs)
        assert f"no archive at file://{typo}: it holds neither archiver.json nor snapshots/" in errs, (argv, errs)
        assert not (box.base / "stroe").exists(), argv
    assert not (box.base / "out").exists()
    # the writer creates it, 0700 down from the first missing folder, and readers then find the archive
    box.only("claude-code")
    _point_store_at(box, typo)
    make_claude_home(box.home, USER)
    assert box.sync()["snapshot"]
    for d in (box.base / "stroe", typo, typo / "snapshots"):
        assert stat.S_IMODE(d.stat().st_mode) == 0o700, d
    assert _json(box, "verify")["ok"] is True


def test_only_a_writer_makes_the_root(tmp_path: Path) -> None:
    root = tmp_path / "a" / "b"
    for ro in (LocalStore(root, read_only=True), open_store(root.as_uri(), read_only=True)):
        assert list(ro.list("")) == [] and ro.head("objects/aa/x") is None and not ro.exists("x")
        with pytest.raises(StoreError):
            ro.get_bytes("archiver.json")
    ro = open_store(root.as_uri(), read_only=True)
    assert isinstance(ro, ReadOnlyStore) and list(ro.list("")) == []
    with pytest.raises(StoreError):
        ro.put_bytes("archiver.json", b"{}")
    assert not (tmp_path / "a").exists()
    store = open_store(root.as_uri())  # a writer makes its root, as before
    assert not isinstance(store, ReadOnlyStore) and stat.S_IMODE((tmp_path / "a").stat().st_mode) == 0o700
    (tmp_path / "a" / "b").rmdir()
    (tmp_path / "a").rmdir()
    assert store.put_bytes("objects/aa/x", b"data") is True  # a root gone since is made again on a write
    assert (root / "objects" / "aa" / "x").read_bytes() == b"data"
    assert stat.S_IMODE((tmp_path / "a").stat().st_mode) == 0o700


def test_a_read_only_store_refuses_every_write_and_reads_as_before(tmp_path: Path) -> None:
    root = tmp_path / "store"
    src = tmp_path / "src"
    src.write_bytes(b"file body")
    open_store(root.as_uri()).put_bytes("objects/aa/x", b"data")
    before = sorted((p.relative_to(root), p.read_bytes()) for p in root.rglob("*") if p.is_file())

    for ro in (open_store(root.as_uri(), read_only=True), as_read_only(open_store(root.as_uri())),
               LocalStore(root, read_only=True)):
        assert ro.get_bytes("objects/aa/x") == b"data"
        assert [i.key for i in ro.list("objects/")] == ["objects/aa/x"]
        assert ro.head("objects/aa/x").size == 4  # type: ignore[union-attr]
        with ro.open_read("objects/aa/x") as f:
            assert f.read() == b"data"
        writes = (lambda: ro.put_bytes("objects/bb/y", b"new"), lambda: ro.put_bytes("objects/aa/x", b"over"),
                  lambda: ro.put_bytes("archiver.json", b"{}", if_absent=True),
                  lambda: ro.put_file("objects/cc/z", src), lambda: ro.delete("objects/aa/x"),
                  lambda: ro.abort_incomplete_uploads(timedelta(0)))
        for write in writes:
            with pytest.raises(StoreError) as ei:
                write()
            assert "read-only" in str(ei.value)
        after = sorted((p.relative_to(root), p.read_bytes()) for p in root.rglob("*") if p.is_file())
        assert after == before

    # a read-only store never creates its missing root, however it is used
    missing = tmp_path / "missing"
    ro = open_store(missing.as_uri(), read_only=True)
    with pytest.raises(StoreError):
        ro.put_bytes("objects/aa/x", b"x")
    assert list(ro.list("")) == [] and not missing.exists()


def test_the_read_only_guard_never_calls_the_inner_store() -> None:
    calls: list[str] = []

    class Inner:
        def __getattr__(self, name: str) -> Any:
            def record(*a: Any, **k: Any) -> Any:
                calls.append(name)
                return b"x" if name == "get_bytes" else "s3://bucket/p"
            return record

    ro = ReadOnlyStore(Inner())  # type: ignore[arg-type]
    assert as_read_only(ro) is ro
    for op in (lambda: ro.put_bytes("k", b""), lambda: ro.put_file("k", Path("/x")), lambda: ro.delete("k"),
               lambda: ro.set_legal_hold("k", True), lambda: ro.abort_incomplete_uploads(timedelta(0))):
        with pytest.raises(StoreError):
            op()
    assert set(calls) <= {"describe"}
    assert ro.get_bytes("k") == b"x" and calls[-1] == "get_bytes"


# ---------------------------------------------------------------- 2. verify --at
def _transcript(s: ClaudeSample) -> Path:
    return s.root / "projects" / s.project_key / f"{s.main}.jsonl"


def _two_states(box: Box) -> tuple[ClaudeSample, str, str]:  # noqa: F811
    box.only("claude-code")
    s = make_claude_home(box.home, USER)
    assert box.sync()["snapshot"]
    lines = _transcript(s).read_bytes().splitlines(keepends=True)
    _transcript(s).write_bytes(b"".join(lines[: len(lines) // 2]))  # rewritten shorter: stored whole, anew
    time.sleep(0.01)
    assert box.sync()["snapshot"]
    first, second = (x["created_at"] for x in _json(box, "snapshots")["snapshots"])
    return s, first, second


def _between(a: str, b: str) -> str:
    ta, tb = (datetime.fromisoformat(x.replace("Z", "+00:00")) for x in (a, b))
    return (ta + (tb - ta) / 2).isoformat().replace("+00:00", "Z")


def test_verify_at_checks_what_restore_at_reads(box: Box) -> None:  # noqa: F811
    s, first, second = _two_states(box)
    main_key = f"claude-code:{s.main}"
    old = {x["key"]: x for x in _json(box, "ls", "--at", first)["sessions"]}
    new = {x["key"]: x for x in _json(box, "ls")["sessions"]}
    named_old = {o for x in old.values() for a in x["artifacts"] for o in a["objects"]}
    named_new = {o for x in new.values() for a in x["artifacts"] for o in a["objects"]}
    only_new = named_new - named_old
    assert only_new and named_old

    full = _json(box, "verify", "--read-data")
    assert full["ok"] is True and full["manifests"] == 2 and "at" not in full and "manifests_later" not in full
    for at in (first, _between(first, second)):
        v = _json(box, "verify", "--read-data", "--at", at)
        assert v["ok"] is True and v["manifests"] == 1 and v["manifests_later"] == 1
        assert v["objects"] == len(named_old) == v["objects_read"]
        assert v["at"].startswith(at[:19])

    # an object only the second state names goes: verify (now) and verify --at second fail on it,
    # verify --at first does not, exactly as restore --at does
    for oid in only_new:
        (box.base / "store" / "objects" / oid[:2] / oid).unlink()
    bad = _json(box, "verify", expect=3)
    assert any("missing" in e and main_key in e for e in bad["errors"])
    assert _json(box, "verify", "--at", second, expect=3)["errors"] == bad["errors"]
    assert _json(box, "verify", "--at", first)["ok"] is True
    assert _json(box, "restore", "--all", "--at", first, "--to", str(box.base / "r1"))["integrity_errors"] == []
    r = _json(box, "restore", "--all", "--at", second, "--to", str(box.base / "r2"), expect=3)
    assert any(e.startswith(f"{main_key}: ") for e in r["integrity_errors"])

    # text output says the time, and notes what it left out
    code, out, errs = _run(box, "verify", "--at", first)
    iso = _json(box, "verify", "--at", first)["at"]
    assert code == 0 and out == f"1 manifests, {len(named_old)} objects, 0 read as of {iso}: ok\n"
    assert f"note: 1 manifest(s) created after {iso} not checked" in errs
    code, out, _ = _run(box, "verify")
    assert code == 3 and out.startswith(f"2 manifests, {len(named_old | named_new)} objects, 0 read: ")


def test_verify_at_before_the_first_snapshot_and_a_bad_time(box: Box) -> None:  # noqa: F811
    box.only("claude-code")
    make_claude_home(box.home, USER)
    assert box.sync()["snapshot"]
    v = _json(box, "verify", "--at", "2020-01-01")
    assert v["ok"] is True and v["manifests"] == 0 and v["objects"] == 0 and v["manifests_later"] == 1
    assert v["at"] == "2020-01-01T23:59:59.999Z"
    for bad in ("yesterday", "2026-13-01", "-3d"):
        code, out, errs = _run(box, "verify", f"--at={bad}")
        assert code == 2 and out == "" and f"--at: cannot read {bad!r} as a time" in errs


def test_a_manifest_whose_created_at_is_later_than_its_key_is_left_out(box: Box) -> None:  # noqa: F811
    """The key stamp is the whole second; created_at decides, to the millisecond (load_catalog's rule)."""
    box.only("claude-code")
    make_claude_home(box.home, USER)
    assert box.sync()["snapshot"]
    created = _json(box, "snapshots")["snapshots"][0]["created_at"]
    when = datetime.fromisoformat(created.replace("Z", "+00:00"))
    second_start = when.replace(microsecond=0)
    if second_start == when:
        pytest.skip("created exactly on a whole second")
    at = second_start.isoformat().replace("+00:00", "Z")
    v = _json(box, "verify", "--at", at)
    assert v["manifests"] == 0 and v["manifests_later"] == 1
    assert _json(box, "ls", "--at", at)["sessions"] == []


# ---------------------------------------------------------------- 3. one module per reader command
def test_reader_commands_live_in_archiver_commands() -> None:
    import archiver.cli as cli

    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    where = {name: p.get_default("func").__module__ for name, p in sub.choices.items()}  # type: ignore[attr-defined]
    for name in ("ls", "lineage", "restore", "verify", "export", "snapshots"):
        assert where[name] == f"archiver.commands.{name}", (name, where[name])
    assert list(sub.choices)[:9] == ["keygen", "scan", "sync", "ls", "lineage", "restore", "verify", "redact", "rules"]
    assert list(sub.choices)[9:] == ["status", "doctor", "export", "bucket", "hold", "release", "prune",
                                     "forget-session", "rekey", "recovery-key", "snapshots", "demo"]
    source = Path(cli.__file__).read_text()
    for name in ("def cmd_ls", "def cmd_verify", "def catalog_of", "def resolve_key", "def parse_since",
                 "def require_archive"):
        assert name not in source
