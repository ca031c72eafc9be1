"""prune: golden keep-policy tests (restic semantics) and object GC against moto and a
file:// store: unreferenced objects go, locked / recent / re-referenced ones stay."""

from __future__ import annotations

import hashlib
import json
import os
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

import archiver.archive as archive_mod
from archiver.archive import Archive, object_key
from archiver.crypto.age import X25519Identity
from archiver.demo.claude_sample import make_claude_home
from archiver.model import Artifact, Manifest, Session
from archiver.pack import unpack_bytes
from archiver.prune import KeepPolicy, apply_policy, parse_duration, prune
from archiver.store import open_store
from archiver.store.base import StoreOptions
from tests.fx_archiver import USER, Env, env  # noqa: F401
from tests.fx_s3 import s3_bucket_url, s3_server  # noqa: F401

# ---------------------------------------------------------------- golden policies
SNAPSHOTS = [
    "2026-11-29T10:00:00", "2026-11-29T08:00:00", "2026-11-28T22:00:00", "2026-11-28T09:30:00",
    "2026-11-27T12:00:00", "2026-11-24T12:00:00", "2026-11-23T12:00:00", "2026-11-16T12:00:00",
    "2026-11-09T12:00:00", "2026-11-01T12:00:00", "2026-10-31T12:00:00", "2026-10-15T12:00:00",
    "2026-09-30T23:59:59", "2026-09-01T00:00:00", "2026-08-15T12:00:00", "2026-06-01T12:00:00",
    "2025-12-31T12:00:00", "2025-06-01T12:00:00",
]

# Expected sets were checked against `restic forget --dry-run --json` (0.14) on a repository
# with exactly these snapshot times (TZ=UTC); restic >= 0.16 additionally keeps the oldest
# snapshot while a rule still has counts left (the daily5+yearly3 case).
GOLDEN = [
    (KeepPolicy(last=3), ["2026-11-29T10:00:00", "2026-11-29T08:00:00", "2026-11-28T22:00:00"]),
    (KeepPolicy(daily=3), ["2026-11-29T10:00:00", "2026-11-28T22:00:00", "2026-11-27T12:00:00"]),
    (KeepPolicy(weekly=3), ["2026-11-29T10:00:00", "2026-11-16T12:00:00", "2026-11-09T12:00:00"]),
    (KeepPolicy(monthly=3), ["2026-11-29T10:00:00", "2026-10-31T12:00:00", "2026-09-30T23:59:59"]),
    (KeepPolicy(hourly=3), ["2026-11-29T10:00:00", "2026-11-29T08:00:00", "2026-11-28T22:00:00"]),
    (KeepPolicy(yearly=2), ["2026-11-29T10:00:00", "2025-12-31T12:00:00"]),
    (KeepPolicy(last=2, daily=2, weekly=2, monthly=2),
     ["2026-11-29T10:00:00", "2026-11-29T08:00:00", "2026-11-28T22:00:00", "2026-11-16T12:00:00", "2026-10-31T12:00:00"]),
    (KeepPolicy(weekly=4, monthly=6),
     ["2026-11-29T10:00:00", "2026-11-16T12:00:00", "2026-11-09T12:00:00", "2026-11-01T12:00:00", "2026-10-31T12:00:00",
      "2026-09-30T23:59:59", "2026-08-15T12:00:00", "2026-06-01T12:00:00", "2025-12-31T12:00:00"]),
    (KeepPolicy(monthly=100),
     ["2026-11-29T10:00:00", "2026-10-31T12:00:00", "2026-09-30T23:59:59", "2026-08-15T12:00:00", "2026-06-01T12:00:00",
      "2025-12-31T12:00:00", "2025-06-01T12:00:00"]),
    # yearly has a count left at the oldest snapshot: kept as "oldest" (restic >= 0.16)
    (KeepPolicy(daily=5, yearly=3),
     ["2026-11-29T10:00:00", "2026-11-28T22:00:00", "2026-11-27T12:00:00", "2026-11-24T12:00:00", "2026-11-23T12:00:00",
      "2025-12-31T12:00:00", "2025-06-01T12:00:00"]),
    # -1 = unlimited: the newest snapshot of every day
    (KeepPolicy(daily=-1), [t for t in SNAPSHOTS if t not in ("2026-11-29T08:00:00", "2026-11-28T09:30:00")]),
    (KeepPolicy(last=100), SNAPSHOTS),
]


def _t(s: str) -> datetime:
    return datetime.fromisoformat(s).replace(tzinfo=timezone.utc)


@pytest.mark.parametrize("policy,expected", GOLDEN, ids=[json.dumps(p.to_json()) for p, _ in GOLDEN])
def test_keep_policy_golden(policy: KeepPolicy, expected: list[str]) -> None:
    # input order must not matter
    items = [(_t(s), s) for s in reversed(SNAPSHOTS)]
    decisions = apply_policy(items, policy)
    kept = [d.item for d in decisions if d.keep]
    assert kept == expected
    assert [d.item for d in decisions] == SNAPSHOTS  # newest first


def test_keep_policy_reasons() -> None:
    d = apply_policy([(_t(s), s) for s in SNAPSHOTS], KeepPolicy(last=1, daily=2, yearly=3))
    reasons = {x.item: x.reasons for x in d if x.keep}
    assert reasons["2026-11-29T10:00:00"] == ["last", "daily", "yearly"]
    assert reasons["2026-11-28T22:00:00"] == ["daily"]
    assert reasons["2025-12-31T12:00:00"] == ["yearly"]
    assert reasons["2025-06-01T12:00:00"] == ["yearly"]  # oldest, yearly count left


def test_weekly_uses_iso_weeks_across_new_year() -> None:
    snaps = ["2026-01-03T12:00:00", "2026-01-01T12:00:00", "2025-12-29T12:00:00", "2025-12-28T12:00:00"]
    d = apply_policy([(_t(s), s) for s in snaps], KeepPolicy(weekly=2))
    # 2025-12-29 (Mon) .. 2026-01-04 is ISO week 2026-W01; 2025-12-28 is 2025-W52
    assert [x.item for x in d if x.keep] == ["2026-01-03T12:00:00", "2025-12-28T12:00:00"]


def test_empty_policy_keeps_everything() -> None:
    assert all(d.keep for d in apply_policy([(_t(s), s) for s in SNAPSHOTS], KeepPolicy()))


def test_parse_duration() -> None:
    assert parse_duration("6h") == timedelta(hours=6)
    assert parse_duration("0") == timedelta(0)
    assert parse_duration("90s") == timedelta(seconds=90)
    assert parse_duration("2d") == timedelta(days=2)
    with pytest.raises(ValueError):
        parse_duration("soon")


# ---------------------------------------------------------------- GC on a file:// store
def _manifest(host: str, when: str, oids: list[str]) -> Manifest:
    s = Session(key="pi:x", harness="pi", session_id="x", host_id=host,
                artifacts=[Artifact(path="a.jsonl", role="transcript", format="jsonl", objects=oids)])
    return Manifest(host_id=host, created_at=when, run_id="r", tool_version="t", sessions=[s])


def _oid(n: int) -> str:
    return hashlib.sha256(str(n).encode()).hexdigest()


class RacingArchive(Archive):
    """Writes a manifest naming `racer` the second time the manifest list is read, as a
    sync on another machine would between prune's first look and its deletes."""

    def __init__(self, store, recipients, racer: str) -> None:  # type: ignore[no-untyped-def]
        super().__init__(store)
        self.calls = 0
        self.recipients = recipients
        self.racer = racer

    def manifests(self, host_id=None):  # type: ignore[no-untyped-def]
        self.calls += 1
        if self.calls == 2:
            self.put_manifest(_manifest("bbbbbbbbbbbbbbbb", "2026-11-29T12:00:00.000Z", [self.racer]), self.recipients)
        return super().manifests(host_id)


def test_gc_spares_objects_named_by_a_manifest_written_meanwhile(tmp_path: Path) -> None:
    ident = X25519Identity.generate()
    store = open_store(f"file://{tmp_path}/store")
    archive = RacingArchive(store, [ident.recipient], racer=_oid(3))
    for n in (1, 2, 3, 4):
        store.put_bytes(object_key(_oid(n)), b"x" * n)
    archive.put_manifest(_manifest("aaaaaaaaaaaaaaaa", "2026-11-01T00:00:00.000Z", [_oid(1)]), [ident.recipient])
    archive.put_manifest(_manifest("aaaaaaaaaaaaaaaa", "2026-11-02T00:00:00.000Z", [_oid(2)]), [ident.recipient])
    res = prune(archive, [ident], KeepPolicy(last=1), grace=timedelta(0))
    assert res.errors == []
    assert len(res.manifests_removed) == 1 and res.manifests_removed[0].endswith(".json.age")
    # 1: only in the dropped manifest; 4: never referenced; 3: named by the racing manifest
    assert sorted(res.objects_removed) == sorted([object_key(_oid(1)), object_key(_oid(4))])
    left = {i.key for i in store.list("objects/")}
    assert left == {object_key(_oid(2)), object_key(_oid(3))}


def test_gc_refuses_when_a_manifest_is_unreadable(tmp_path: Path) -> None:
    ident = X25519Identity.generate()
    store = open_store(f"file://{tmp_path}/store")
    archive = Archive(store)
    store.put_bytes(object_key(_oid(9)), b"orphan")
    archive.put_manifest(_manifest("aaaaaaaaaaaaaaaa", "2026-11-01T00:00:00.000Z", []), [ident.recipient])
    store.put_bytes("snapshots/aaaaaaaaaaaaaaaa/20261102T000000Z-deadbeef.json.age", b"not age at all")
    res = prune(archive, [ident], KeepPolicy(last=1), grace=timedelta(0))
    assert res.objects_removed == [] and res.manifests_removed == []
    assert any("nothing was deleted" in e for e in res.errors)
    assert store.exists(object_key(_oid(9)))


def test_newest_manifest_of_each_host_is_always_kept(tmp_path: Path) -> None:
    ident = X25519Identity.generate()
    store = open_store(f"file://{tmp_path}/store")
    archive = Archive(store)
    keys = [archive.put_manifest(_manifest(h, w, []), [ident.recipient]) for h, w in (
        ("aaaaaaaaaaaaaaaa", "2020-01-01T00:00:00.000Z"), ("aaaaaaaaaaaaaaaa", "2020-01-02T00:00:00.000Z"),
        ("bbbbbbbbbbbbbbbb", "2019-05-01T00:00:00.000Z"))]
    # a policy that keeps nothing old: hourly=1 keeps only the newest per host anyway
    res = prune(archive, [ident], KeepPolicy(hourly=1), grace=timedelta(0))
    assert sorted(res.manifests_kept) == sorted([keys[1], keys[2]])
    assert res.manifests_removed == [keys[0]]



def test_a_sessions_last_state_is_never_pruned(tmp_path: Path) -> None:
    """A collector whose local state was wiped (or a second machine with the same host name)
    writes manifests that no longer name a session archived before: the newest manifest that
    does name it is kept, and so are its objects."""
    ident = X25519Identity.generate()
    store = open_store(f"file://{tmp_path}/store")
    archive = Archive(store)
    for n in (1, 2, 3):
        store.put_bytes(object_key(_oid(n)), b"x" * n)

    def manifest(when: str, sessions: dict[str, str]) -> str:
        ss = [Session(key=f"pi:{k}", harness="pi", session_id=k, host_id="a" * 16,
                      artifacts=[Artifact(path=f"{k}.jsonl", role="transcript", format="jsonl", objects=[o])])
              for k, o in sessions.items()]
        return archive.put_manifest(Manifest(host_id="a" * 16, created_at=when, run_id="r", tool_version="t",
                                             sessions=ss), [ident.recipient])

    old_gone = manifest("2026-11-01T00:00:00.000Z", {"gone": _oid(1), "kept": _oid(2)})
    newer_gone = manifest("2026-11-02T00:00:00.000Z", {"gone": _oid(1), "kept": _oid(2)})
    newest = manifest("2026-11-03T00:00:00.000Z", {"kept": _oid(3)})  # after the state was wiped
    res = prune(archive, [ident], KeepPolicy(last=1), grace=timedelta(0))
    assert res.errors == [] and res.spared == [newer_gone]
    assert sorted(res.manifests_kept) == sorted([newer_gone, newest]) and res.manifests_removed == [old_gone]
    assert {i.key for i in store.list("objects/")} == {object_key(_oid(n)) for n in (1, 2, 3)}

# ---------------------------------------------------------------- end to end (moto)
def _two_states(env: Env) -> tuple[str, str]:  # noqa: F811
    """Sync twice with a rewritten (whole-file) sidecar in between: the first state's
    object for it is referenced only by the first manifest."""
    s = make_claude_home(env.home, USER)
    first = env.cli_json("sync", "--workers", "1")["snapshot"]
    tip = s.root / "projects" / s.project_key / f"{s.main}.ccr-tip.json"
    tip.write_text(json.dumps({"tip": "changed", "cwd": f"/home/{USER}/work/app"}))
    second = env.cli_json("sync", "--workers", "1")["snapshot"]
    assert first and second and first != second
    return first, second


def test_prune_end_to_end(env: Env, capsys: pytest.CaptureFixture[str]) -> None:  # noqa: F811
    first, second = _two_states(env)
    objects_before = {k for k in env.keys_in_bucket() if "/objects/" in k}

    dry = env.cli_json("prune", "--keep-last", "1", "--grace", "0", "--dry-run", identity=True)
    assert dry["dry_run"] and dry["manifests"]["removed"] == [first]
    assert dry["objects"]["removed"] == 1
    assert {k for k in env.keys_in_bucket() if "/objects/" in k} == objects_before

    # inside the grace period the unreferenced object stays
    recent = env.cli_json("prune", "--keep-last", "1", identity=True)
    assert recent["manifests"]["removed"] == [first] and recent["objects"]["removed"] == 0
    assert len(recent["recent"]) == 1
    gone = recent["recent"][0]

    capsys.readouterr()
    out = env.cli_json("prune", "--keep-last", "1", "--grace", "0", identity=True)
    assert "warning: --grace 0 is under 2:00:00" in capsys.readouterr().err  # a sync running now is not covered
    assert out["manifests"]["removed"] == [] and out["manifests"]["kept"] == [second]
    assert out["objects"]["removed_keys"] == [gone] and out["locked"] == []
    after = {k for k in env.keys_in_bucket() if "/objects/" in k}
    assert after == objects_before - {f"{env.prefix}/{gone}"}
    # the archive is whole: every remaining manifest's objects are there and read back
    assert env.cli_json("verify", "--read-data", identity=True)["ok"] is True
    restored = env.cli_json("restore", "--all", "--to", str(env.base / "r"), identity=True)
    assert restored["integrity_errors"] == []


def test_prune_needs_a_policy(env: Env) -> None:  # noqa: F811
    code, _ = env.cli("prune", identity=True)
    assert code == 2


# ---------------------------------------------------------------- a sync naming an old object again
class SyncingArchive(Archive):
    """Between prune's listing and its deletes, a sync elsewhere finds object `oid` stored and
    names it again (its manifest not written yet): it puts the object as a sync does."""

    def __init__(self, store, recipients, oid: str, plaintext: Path) -> None:  # type: ignore[no-untyped-def]
        super().__init__(store)
        self.calls, self.recipients, self.oid, self.plaintext = 0, recipients, oid, plaintext
        self.sent: int | None = None

    def manifests(self, host_id=None):  # type: ignore[no-untyped-def]
        self.calls += 1
        if self.calls == 2:
            self.sent = self.put_object(self.oid, self.plaintext, self.plaintext.with_suffix(".packed"),
                                        self.recipients)
        return super().manifests(host_id)


def _age(path: Path, hours: float) -> None:
    t = time.time() - hours * 3600
    os.utime(path, (t, t))


@pytest.mark.parametrize("size", [100, 3 << 20], ids=["small", "large"])
def test_an_object_found_stored_but_old_is_written_again(tmp_path: Path, size: int) -> None:
    ident = X25519Identity.generate()
    store = open_store(f"file://{tmp_path}/store")
    archive = Archive(store)
    plain = tmp_path / "plain"
    plain.write_bytes(os.urandom(size))
    oid, key = _oid(7), object_key(_oid(7))
    assert archive.put_object(oid, plain, tmp_path / "packed", [ident.recipient]) > 0
    first = store.get_bytes(key)
    assert archive.put_object(oid, plain, tmp_path / "packed", [ident.recipient]) == 0  # recent: not again
    assert store.get_bytes(key) == first
    _age(tmp_path / "store" / key, 2)
    sent = archive.put_object(oid, plain, tmp_path / "packed", [ident.recipient])
    again = store.get_bytes(key)
    assert sent == len(again) > 0 and again != first  # a new encryption of the same plaintext
    assert unpack_bytes(again, [ident]) == plain.read_bytes()
    assert datetime.now(timezone.utc) - store.head(key).last_modified < timedelta(minutes=5)  # type: ignore[union-attr]


def test_an_old_object_on_s3_is_written_again(s3_bucket_url: tuple[str, StoreOptions],
                                              tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    url, opts = s3_bucket_url
    ident = X25519Identity.generate()
    store = open_store(url, opts)
    archive = Archive(store)
    plain = tmp_path / "plain"
    plain.write_bytes(b"tool output " * 10)
    oid, key = _oid(8), object_key(_oid(8))
    archive.put_object(oid, plain, tmp_path / "packed", [ident.recipient])
    etag = store.head(key).etag  # type: ignore[union-attr]
    assert archive.put_object(oid, plain, tmp_path / "packed", [ident.recipient]) == 0
    assert store.head(key).etag == etag  # type: ignore[union-attr]
    monkeypatch.setattr(archive_mod, "REFRESH_AFTER", timedelta(0))  # moto cannot backdate: every copy is old
    assert archive.put_object(oid, plain, tmp_path / "packed", [ident.recipient]) > 0
    assert store.head(key).etag != etag  # type: ignore[union-attr]
    assert unpack_bytes(store.get_bytes(key), [ident]) == plain.read_bytes()


def test_prune_spares_an_old_object_a_running_sync_names_again(tmp_path: Path) -> None:
    ident = X25519Identity.generate()
    store = open_store(f"file://{tmp_path}/store")
    plain = tmp_path / "plain"
    plain.write_bytes(b"the same sidecar bytes as ten days ago")
    reused, orphan = _oid(11), _oid(12)
    archive = SyncingArchive(store, [ident.recipient], reused, plain)
    Archive(store).put_object(reused, plain, tmp_path / "p", [ident.recipient])
    store.put_bytes(object_key(orphan), b"orphan")
    for oid in (reused, orphan):
        _age(tmp_path / "store" / object_key(oid), 240)
    archive.put_manifest(_manifest("aaaaaaaaaaaaaaaa", "2026-11-01T00:00:00.000Z", []), [ident.recipient])
    res = prune(archive, [ident], KeepPolicy(last=1))
    assert archive.sent and archive.sent > 0  # the sync wrote it anew: it was old
    assert res.errors == []
    assert res.objects_removed == [object_key(orphan)]
    assert res.recent == [object_key(reused)]
    assert store.exists(object_key(reused)) and not store.exists(object_key(orphan))
