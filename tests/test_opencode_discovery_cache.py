"""OpenCode discovery facts cached per database identity (db + -wal): an unchanged database
is neither snapshotted nor queried again; any committed write makes the next run read it."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any, Iterator

import pytest

from archiver.harnesses import opencode
from archiver.harnesses.base import HarnessContext
from archiver.harnesses.opencode import OpenCode
from archiver.demo.opencode_sample import SES_A, SES_S, close_opencode_home, make_opencode_home
from archiver.model import DiscoveredSession

K = "opencode:"


@pytest.fixture()
def home(tmp_path: Path) -> Iterator[tuple[Path, dict[str, Any]]]:
    info = make_opencode_home(tmp_path)
    yield tmp_path, info
    close_opencode_home(info)


def _view(found: list[DiscoveredSession]) -> list[tuple[Any, ...]]:
    """Everything discovery says, but the produce callables (compared by their output)."""
    return [
        (s.key, s.kind, s.title, s.created_at, s.updated_at, s.cwd, s.parents, s.warnings,
         [(a.source, a.path, a.role, a.format, a.mode, a.optional) for a in s.sources])
        for s in found
    ]


def _discover(home: Path, cache: dict[str, str]) -> tuple[OpenCode, list[DiscoveredSession]]:
    h = OpenCode(HarnessContext(home=home, env={}, cache=cache))
    return h, list(h.discover())


def _extract_rows(s: DiscoveredSession, dst: Path) -> list[tuple[Any, ...]]:
    src = s.sources[0]
    assert src.mode == "produced" and src.produce is not None
    src.produce(dst)
    conn = sqlite3.connect(dst)
    try:
        return [tuple(r) for r in conn.execute("SELECT id, session_id, seq, data FROM session_message ORDER BY id")]
    finally:
        conn.close()


def test_warm_discovery_equals_cold_without_reading_the_database(
    home: tuple[Path, dict[str, Any]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache: dict[str, str] = {}
    cold_h, cold = _discover(home[0], cache)
    assert sorted(k for k in cache if k.startswith("opencode:facts:v3:")) == sorted(
        f"opencode:facts:v3:{db}:{opencode.sqlite_identity(db)}" for db in cold_h.database_files()
    )
    cold_rows = _extract_rows(next(s for s in cold if s.key == K + SES_A), tmp_path / "cold.db")
    cold_h.close()

    def no_read(conn: sqlite3.Connection, db: Path | None = None) -> list[dict[str, Any]]:
        raise AssertionError("the database was read although its facts are cached")

    monkeypatch.setattr(opencode, "read_facts", no_read)
    warm_h, warm = _discover(home[0], cache)
    assert _view(warm) == _view(cold)
    assert K + SES_A in {s.key for s in warm} and any(s.parents for s in warm)  # lineage came back too
    assert warm_h._snapshots and not any(snap._taken for snap in warm_h._snapshots)  # noqa: SLF001
    warm_rows = _extract_rows(next(s for s in warm if s.key == K + SES_A), tmp_path / "warm.db")
    assert warm_rows == cold_rows and warm_rows  # the lazy snapshot holds the same rows, WAL ones included
    dirs = [snap.dir for snap in warm_h._snapshots]  # noqa: SLF001
    warm_h.close()
    assert not any(d.exists() for d in dirs)


def test_a_committed_write_invalidates_the_facts(home: tuple[Path, dict[str, Any]]) -> None:
    root, info = home
    cache: dict[str, str] = {}
    h, before = _discover(root, cache)
    h.close()
    assert next(s for s in before if s.key == K + SES_S).title != "renamed while idle"
    conn = sqlite3.connect(info["db"])  # the harness keeps its WAL: the write stays in -wal
    try:
        conn.execute("UPDATE session_v2 SET title = ? WHERE id = ?", ("renamed while idle", SES_S))
        conn.commit()
    finally:
        conn.close()
    h, after = _discover(root, cache)
    h.close()
    assert next(s for s in after if s.key == K + SES_S).title == "renamed while idle"
    assert len([k for k in cache if k.startswith(f"opencode:facts:v3:{info['db']}:")]) == 2


@pytest.mark.parametrize("bad", ["not json", "{}", "[1, 2]", '[{"title": "no id"}]'])
def test_a_corrupt_entry_is_read_again_and_replaced(home: tuple[Path, dict[str, Any]], bad: str) -> None:
    root, info = home
    h, cold = _discover(root, {})
    h.close()
    key = f"opencode:facts:v3:{info['db']}:{opencode.sqlite_identity(info['db'])}"
    cache = {key: bad}
    h, again = _discover(root, cache)
    h.close()
    assert _view(again) == _view(cold)
    assert cache[key] != bad and cache[key].startswith("[{")


def test_facts_of_a_database_written_while_read_are_not_cached(
    home: tuple[Path, dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    root, info = home
    real = opencode.sqlite_identity
    calls: list[Path] = []

    def moving(db: Path) -> str:
        calls.append(db)
        return real(db) + f":{len(calls)}"  # a different identity after the read than before

    monkeypatch.setattr(opencode, "sqlite_identity", moving)
    cache: dict[str, str] = {}
    h, found = _discover(root, cache)
    h.close()
    assert K + SES_A in {s.key for s in found}
    assert calls and not cache


def test_an_unreadable_database_is_reported_and_not_cached(tmp_path: Path) -> None:
    root = tmp_path / ".local" / "share" / "opencode"
    root.mkdir(parents=True)
    (root / "opencode.db").write_bytes(b"garbage" * 1000)
    cache: dict[str, str] = {}
    for _ in range(2):
        h, found = _discover(tmp_path, cache)
        h.close()
        assert [s.key for s in found] == [K + "@host"]
        assert found[0].warnings[0].startswith(".local/share/opencode/opencode.db: not readable")
    assert cache == {}


def test_a_lazy_snapshot_that_fails_names_the_database(home: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    root, info = home
    cache: dict[str, str] = {}
    h, _ = _discover(root, cache)
    h.close()
    h, warm = _discover(root, cache)
    try:
        for snap in h._snapshots:  # noqa: SLF001
            snap.close()  # its folder is gone: the snapshot cannot be written
        with pytest.raises(opencode.SnapshotError, match=str(info["db"])):
            next(s for s in warm if s.key == K + SES_A).sources[0].produce(tmp_path / "x.db")  # type: ignore[misc]
    finally:
        h.close()
