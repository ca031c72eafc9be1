"""Seed-shaped fuzzing of the six collectors through the real CLI sync (tests/fx_s15_fuzz.py):
one home with every harness, one victim broken at a time, the others untouched. For each
mutation: exit 0 or 1 (partial), no traceback; an error names the victim's file and a reason;
every other session is archived exactly as before; the victim's archived copy is still listed;
a victim broken only in optional data still archives; after the revert it archives again."""

from __future__ import annotations

import os
import random
from pathlib import Path
from typing import Any, Iterator

import pytest

from tests.fx_home import ISOLATED_ENV
from tests.fx_s15_fuzz import SEED, Fuzz, Mutation, all_mutations

ALL = all_mutations(Path("/nonexistent-scratch"))  # ids only; the fixture builds its own
# every kind of break the brief lists, once, on a harness it applies to (the fixes' regressions
# first); S15_FUZZ=all runs all of ALL (about 400, some 20 minutes on a loaded 2-core box)
CORE = [
    "claude-code:line0.type=object", "deepseek-harness:line1.type=nested-list", "pi:sidecar-etc-passwd",
    "pi:sidecar-outside-dotdot", "codex:not-json-first-line", "pi:header-not-first",
    "deepseek-harness:header-duplicated-mid-file", "codex:half-utf8-tail", "pi:invalid-utf8-in-string",
    "deepseek-harness:nul-byte-in-string", "codex:crlf", "pi:bom", "claude-code:empty-file",
    "codex:file-is-a-directory", "deepseek-harness:symlink-loop", "pi:time=epoch-us", "codex:time=garbage",
    "claude-code:id=dotdot", "pi:id=nfd", "claude-code:file-name-nfd", "codex:line0.payload=string", "pi:line0.version=number-as-string",
    "claude-code:unknown-record-type", "deepseek-harness:extra-fields", "pi:parent-cycle",
    "deepseek-harness:parent-self", "pi:parent-self", "opencode:parent-self", "codex:parent-missing", "claude-code:sidecar-dir-is-a-file",
    "claude-code:sidecar-tool-result-symlink-passwd", "cursor-agent:meta-json-wrong-type-list",
    "cursor-agent:missing-table-blobs", "opencode:missing-column-session_v2.parent_id",
    "codex:wrong-type-threads.rollout_path-outside", "opencode:wrong-type-session_message.data-list",
    "opencode:parent-cycle", "cursor-agent:corrupt-page", "opencode:held-write-lock", "codex:empty-wal",
    "opencode:not-a-database", "codex:zst-truncated", "codex:zst-not-zstd",
]
assert set(CORE) <= {m.id for m in ALL}, set(CORE) - {m.id for m in ALL}
SAMPLE = CORE + sorted(random.Random(SEED).sample(sorted({m.id for m in ALL} - set(CORE)), 4))
if os.environ.get("S15_FUZZ") == "all":
    SAMPLE = [m.id for m in ALL]


@pytest.fixture(scope="module")
def fuzz(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fuzz]:
    from archiver import runtime

    with pytest.MonkeyPatch.context() as mp:
        for var in ISOLATED_ENV:
            mp.delenv(var, raising=False)
        # one config for the whole module: its rules compiled once, not once a sync
        built: dict[tuple[bytes, str], object] = {}
        real = runtime.redactor

        def cached(settings: Any, keys: Any) -> Any:
            key = (keys.pseudonym, settings.redaction.model_dump_json() + str(settings.home_dir))
            if key not in built:
                built[key] = real(settings, keys)
            return built[key]

        mp.setattr(runtime, "redactor", cached)
        f = Fuzz(tmp_path_factory.mktemp("s15fuzz"))
        f.mutations = {m.id: m for m in all_mutations(f.scratch)}  # type: ignore[attr-defined]
        yield f


def _run(fuzz: Fuzz, mid: str) -> None:
    mu: Mutation = fuzz.mutations[mid]  # type: ignore[attr-defined]
    try:
        out = fuzz.run(mu)
    finally:
        problems_after = fuzz.finish(mu)
    assert out.problems + problems_after == [], (out.result.get("errors"), out.result.get("warnings"))


@pytest.mark.parametrize("mid", SAMPLE)
def test_one_broken_session_never_stops_the_others(fuzz: Fuzz, mid: str) -> None:
    _run(fuzz, mid)


@pytest.fixture
def fresh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Fuzz:
    """A home of its own (the module's has been through every mutation before it)."""
    for var in ISOLATED_ENV:
        monkeypatch.delenv(var, raising=False)
    f = Fuzz(tmp_path / "fresh")
    f.mutations = {m.id: m for m in all_mutations(f.scratch)}  # type: ignore[attr-defined]
    return f


def test_a_failed_run_loses_nothing_archived_and_the_others_restore_byte_for_byte(fresh: Fuzz) -> None:
    """sync good -> break the victim's database (not a database any more) -> sync: exit 1, the
    victim failed naming its file; the previous archived copy of the victim and every other
    session restore with the same bytes as before; after the revert it archives again."""
    mu = fresh.mutations["cursor-agent:not-a-database"]  # type: ignore[attr-defined]
    others = sorted(k for k, s in fresh.baseline.items() if s["harness"] == "cursor-agent" and k not in mu.victims)
    before_victim, before_others = fresh.restore(list(mu.victims)), fresh.restore(others)
    assert before_victim and before_others
    try:
        out = fresh.run(mu)
        assert out.code == 1 and out.result["sessions"]["failed"] == 1, out.result
        [error] = out.result["errors"]
        assert error.startswith(mu.victims[0] + ": ") and "store.db" in error and "not a readable SQLite database" in error
        assert out.problems == []
        assert fresh.restore(list(mu.victims)) == before_victim
        assert fresh.restore(others) == before_others
    finally:
        assert fresh.finish(mu) == []
    assert fresh.restore(list(mu.victims)) == before_victim
