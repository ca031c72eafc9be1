"""Rule programs are compiled when an engine first searches with them (engine._LazyProgram), not
when the pack is checked: most rules never run in a given process (their keywords never occur), and
each kept program cost its memory in the parent and in both workers (~7 MB a process for the
built-in packs). The pack check still compiles every regex, and refuses a bad one."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

import archiver.redact.engine as engine_mod
import archiver.redact.rules as rules_mod
from archiver.redact.base import RedactionReport
from archiver.redact.redactor import RedactorRecipe
from archiver.redact.rules import RuleError, RuntimeTerms, load_rules

KEY = b"s22-lazy-programs-key-0123456789abcdef"
PACKS = ["builtin:secrets", "builtin:pii", "builtin:paths", "builtin:names"]
AWS = "AKIAQYLPMN5HHHFPZAM2"


@pytest.fixture()
def fresh(monkeypatch: pytest.MonkeyPatch) -> dict[str, object]:
    """Empty program caches for the test (the process's are shared with other tests)."""
    programs: dict[str, object] = {}
    monkeypatch.setattr(rules_mod, "_PROGRAMS", programs)
    monkeypatch.setattr(engine_mod, "_LAZY", {})
    return programs


def _compiled_ids(programs: dict[str, object], rules: list[rules_mod.Rule]) -> set[str]:
    return {r.id for r in rules if r.regex in programs}


def test_loading_the_packs_keeps_no_program(fresh: dict[str, object]) -> None:
    rules = load_rules(PACKS, RuntimeTerms(usernames=["alice"]))
    assert len(rules) > 500
    assert fresh == {}


def test_an_engine_compiles_only_the_rules_it_runs(fresh: dict[str, object]) -> None:
    recipe = RedactorRecipe(PACKS, KEY, RuntimeTerms(usernames=["alice"]))
    red = recipe()
    rules = red.rules
    assert _compiled_ids(fresh, rules) == set()  # built: nothing compiled yet
    out = red.redact_text(f"deploy key {AWS} for the bucket", RedactionReport())
    assert AWS not in out
    ran = _compiled_ids(fresh, rules)
    assert "aws-access-key-id" in ran
    assert len(ran) < len(rules) // 10, sorted(ran)
    # the same program object serves every later search, and every engine of the process
    program = engine_mod._LAZY[next(r.regex for r in rules if r.id == "aws-access-key-id")]
    assert program.Match == fresh[program.pattern]._regexp.Match  # type: ignore[attr-defined]
    verifier = engine_mod.Engine([r for r in rules if r.id == "aws-access-key-id"], red.pseudonyms)
    assert verifier._c[0].rx is program
    assert [m.rule_id for m in verifier.scan_bytes(AWS.encode())] == ["aws-access-key-id"]


def test_a_lazily_compiled_engine_finds_what_an_eager_one_does(fresh: dict[str, object]) -> None:
    """Every shipped example through an engine whose programs compile on first use, and through one
    whose programs were all compiled before (as until session 22): the same findings."""
    rules = load_rules(PACKS, RuntimeTerms(usernames=["alice"]))
    examples = [s.encode() for r in rules for s in (*r.positive, *r.negative)]
    lazy = engine_mod.Engine(rules, engine_mod.Pseudonymizer(KEY))
    for r in rules:
        rules_mod.rule_program(r.regex)  # every program compiled up front
    eager = engine_mod.Engine(rules, engine_mod.Pseudonymizer(KEY))
    assert all(c.rx is lazy._c[i].rx for i, c in enumerate(eager._c))  # one program per pattern
    found = 0
    for ex in examples:
        got = lazy.scan_bytes(ex)
        found += len(got)
        assert got == eager.scan_bytes(ex), ex
    assert found > 1500


def test_a_worker_compiles_nothing_until_it_redacts(fresh: dict[str, object]) -> None:
    """A worker receives the rules parsed (RedactorRecipe pickled): it neither checks nor compiles
    them on arrival."""
    recipe = RedactorRecipe(PACKS, KEY, RuntimeTerms(usernames=["alice"]))
    recipe.rules()
    copy = pickle.loads(pickle.dumps(recipe))
    fresh.clear()
    red = copy()
    assert fresh == {}
    assert AWS not in red.redact_text(f"key {AWS}", RedactionReport())
    assert 0 < len(fresh) < 60


_PACK = """[pack]
name = "team"
version = 1

[[rules]]
id = "team-token"
regex = '{regex}'
keywords = ["x"]
"""


def test_the_pack_check_still_refuses_a_bad_regex(tmp_path: Path, fresh: dict[str, object]) -> None:
    pack = tmp_path / "team.toml"
    pack.write_text(_PACK.format(regex="(unclosed"))
    with pytest.raises(RuleError, match="team-token"):
        load_rules([str(pack)])
    pack.write_text(_PACK.format(regex="(x*)"))
    with pytest.raises(RuleError, match="empty string"):
        load_rules([str(pack)])
