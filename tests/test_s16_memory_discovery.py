"""The collectors' discovery cache is written to the state as soon as discovery is over and is
not held through the sessions (the parent's memory at the redaction peak); what the table
holds is what flushing at the end of the run gave."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from archiver.state import DiscoveryCache, State
from tests.test_s15_parent_memory import tiny_home  # noqa: F401  (a fixture)


def _rows(db: Path) -> dict[str, str]:
    return dict(State(db).db.execute("SELECT key, value FROM discovery_cache").fetchall())


def test_release_writes_the_used_entries_and_holds_none(tmp_path: Path) -> None:
    db = tmp_path / "state.db"
    first = DiscoveryCache(State(db))
    first["a"], first["b"] = "1", "2"
    first.flush()
    cache = DiscoveryCache(State(db))
    assert cache.get("a") == "1"  # used this run; "b" is not
    cache["c"] = "3"
    cache.release()
    assert len(cache) == 0 and cache._data == {} and cache._used == set()
    assert _rows(db) == {"a": "1", "c": "3"}
    assert cache.get("a") is None  # a miss now: the collector reads its file again
    cache["d"] = "4"  # learnt after the release: added by the flush, the rows written stay
    cache.flush()
    assert _rows(db) == {"a": "1", "c": "3", "d": "4"}
    assert len(cache) == 0
    cache.release()  # once only
    cache.flush()
    assert _rows(db) == {"a": "1", "c": "3", "d": "4"}


def test_release_keeps_the_entries_when_the_state_cannot_be_written(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    import sqlite3

    cache = DiscoveryCache(State(tmp_path / "state.db"))
    cache["a"] = "1"

    def locked(self: DiscoveryCache) -> None:
        raise sqlite3.OperationalError("database is locked")

    monkeypatch.setattr(DiscoveryCache, "flush", locked)
    cache.release()
    assert dict(cache._data) == {"a": "1"} and not cache._released
    monkeypatch.undo()
    cache.flush()  # the end of the run writes them, as before
    assert _rows(tmp_path / "state.db") == {"a": "1"}


def _syncer(cfg: Path, db: Path, cache: DiscoveryCache, dry_run: bool = False) -> Any:
    from archiver import runtime
    from archiver.archive import Archive
    from archiver.config import load_settings
    from archiver.sync import Syncer, SyncOptions

    settings = load_settings(cfg)
    keys = runtime.team_keys(settings)
    return Syncer(harnesses=runtime.harnesses(settings, cache=cache), redactor=runtime.redactor(settings, keys),
                  archive=Archive(runtime.store(settings)), state=cache.state,
                  recipients=runtime.recipients(settings), object_id_key=keys.object_id,
                  host_id="d" * 16, workdir_parent=db.parent / "tmp",
                  options=SyncOptions(workers=1, dry_run=dry_run), discovery_cache=cache)


def _held_at_first_session(monkeypatch: pytest.MonkeyPatch, cache: DiscoveryCache, db: Path) -> list[tuple[int, int]]:
    from archiver.sync import Syncer

    seen: list[tuple[int, int]] = []
    real = Syncer._session

    def spy(self: Any, ds: Any, work: Any) -> Any:
        if not seen:
            seen.append((len(cache._data), len(_rows(db))))
        return real(self, ds, work)

    monkeypatch.setattr(Syncer, "_session", spy)
    return seen


def test_a_sync_writes_the_cache_before_its_sessions(tiny_home: Path, tmp_path: Path,  # noqa: F811
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "st.db"
    cache = DiscoveryCache(State(db))
    seen = _held_at_first_session(monkeypatch, cache, db)
    result = _syncer(tiny_home, db, cache).run()
    assert result.failed == 0 and result.uploaded > 0
    held, written = seen[0]
    assert held == 0 and written > 50  # the sessions start with the cache in the table, none held
    rows = _rows(db)
    cache.flush()  # what commands/sync.py does at the end: the table stays as written
    assert _rows(db) == rows

    # the next run finds every entry (nothing unused is dropped) and writes the same table
    again = DiscoveryCache(State(db))
    assert len(again) == len(rows)
    result = _syncer(tiny_home, db, again).run()
    assert result.unchanged == result.total > 0
    again.flush()
    assert _rows(db) == rows


def test_a_dry_run_writes_no_cache(tiny_home: Path, tmp_path: Path,  # noqa: F811
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "st.db"
    cache = DiscoveryCache(State(db))
    seen = _held_at_first_session(monkeypatch, cache, db)
    _syncer(tiny_home, db, cache, dry_run=True).run()
    held, written = seen[0]
    assert held > 50 and written == 0
    assert _rows(db) == {}
