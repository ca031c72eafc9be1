"""The run's redactor recipe loads the rule packs once: the parent's first call reads and checks
them, and a worker process receives the parsed rules with the recipe instead of reading the
packs again (half of what starting a worker cost)."""

from __future__ import annotations

import multiprocessing
import pickle
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

from archiver import workers
from archiver.redact import rules as rules_mod
from archiver.redact.base import RedactionReport
from archiver.redact.redactor import RedactorRecipe
from archiver.redact.rules import RuleError, RuntimeTerms

from tests.fx_worker_probe import worker_view

PACK = """
[pack]
name = "team-s18"
version = 1

[[rules]]
id = 'team-s18-ticket-token'
regex = '''\\b(NJT-[0-9A-F]{12})\\b'''
keywords = ['njt-']
positive = ['token NJT-0123456789AB here']
negative = ['NJT-XYZ']
"""
TEXT = "deploy token NJT-0123456789AB for ghp_0123456789abcdefghijABCDEFGHIJ012345 in /home/quillon/src"


def _recipe(tmp_path: Path) -> tuple[RedactorRecipe, Path]:
    pack = tmp_path / "team.toml"
    pack.write_text(PACK)
    terms = RuntimeTerms(usernames=["quillon"], home_dirs=["/home/quillon"])
    return RedactorRecipe(["builtin:secrets", "builtin:paths", str(pack)], b"\x07" * 32, terms), pack


def test_a_worker_redacts_with_the_rules_the_parent_loaded_without_reading_the_packs(tmp_path: Path) -> None:
    recipe, pack = _recipe(tmp_path)
    parent = recipe().redact_text(TEXT, RedactionReport())
    assert "NJT-0123456789AB" not in parent and "ghp_" not in parent and "quillon" not in parent
    pack.unlink()  # the worker could not read it: what it redacts with came with the recipe
    ctx = multiprocessing.get_context(workers.POOL_START_METHOD)
    with ProcessPoolExecutor(1, mp_context=ctx, initializer=workers._init_worker,  # noqa: SLF001
                             initargs=(recipe, b"k" * 32, True, None)) as pool:
        loaded, in_worker = pool.submit(worker_view, TEXT).result(timeout=120)
    assert loaded == []
    assert in_worker == parent


def test_a_recipe_not_called_yet_travels_as_specs_and_loads_where_it_is_called(tmp_path: Path) -> None:
    recipe, pack = _recipe(tmp_path)
    copy = pickle.loads(pickle.dumps(recipe))
    assert copy._rules is None  # noqa: SLF001
    assert "NJT-0123456789AB" not in copy().redact_text(TEXT, RedactionReport())
    pack.unlink()
    with pytest.raises(RuleError, match="team.toml"):
        pickle.loads(pickle.dumps(recipe))()


def test_the_rules_are_loaded_once_per_recipe(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    recipe, _pack = _recipe(tmp_path)
    calls = []
    real = rules_mod.load_rules

    def counting(specs: list[str], extra: RuntimeTerms | None = None) -> list[rules_mod.Rule]:
        calls.append(list(specs))
        return real(specs, extra)

    monkeypatch.setattr("archiver.redact.redactor.load_rules", counting)
    first, second = recipe(), recipe()
    assert len(calls) == 1
    assert first.redact_text(TEXT, RedactionReport()) == second.redact_text(TEXT, RedactionReport())
    assert [r.id for r in pickle.loads(pickle.dumps(recipe)).rules()] == [r.id for r in first.rules]


def test_no_shipped_rule_matches_the_empty_string() -> None:
    """Loading checks every pack so (rules._parse_rule); here with RE2's default options too."""
    import re2

    for name in ("secrets", "pii", "paths"):
        for rule in rules_mod.load_rules([f"builtin:{name}"]):
            fresh = re2.compile(rule.regex, re2.Options())  # (default options: not the engine's cached program)
            assert fresh.search("") is None, rule.id
