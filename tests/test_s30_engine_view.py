"""Engine.only: a view of an engine that finds what an engine of just those rules finds, while
sharing the first engine's automata. fail_closed's verifier is such a view (it built an engine
of its own: ~3 MB of DFA states in every worker for rules the redaction engine already gates)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from archiver.redact import rawcheck
from archiver.redact.base import RedactionReport
from archiver.redact.engine import MODE_ALL, MODE_IDS, MODE_KEYS, MODE_OPAQUE, MODE_PATHS, TABLE_RULES, Engine
from archiver.redact.redactor import RuleRedactor
from tests.fx_redact import builtin_redactor

KEY = b"s30-engine-view-team-key-0123456789"
MODES = (MODE_ALL, MODE_KEYS, MODE_PATHS, MODE_IDS, MODE_OPAQUE)


@pytest.fixture(scope="module")
def red() -> RuleRedactor:
    return builtin_redactor(KEY, usernames=["alice"])


def _examples(red: RuleRedactor) -> list[bytes]:
    return [p.encode("utf-8", "surrogatepass") for r in red.rules for p in (*r.positive, *r.negative)]


def _generic_secret(r: object) -> bool:
    return r.pack == "secrets" and r.confidence != "high" and not r.generated  # type: ignore[attr-defined]


def _subsets(red: RuleRedactor) -> dict[str, set[str]]:
    ids = [r.id for r in red.rules]
    first_generic = next(r.id for r in red.rules if _generic_secret(r))
    subsets = {
        "high confidence (the verifier)": set(red.high_confidence),
        "secret shapes (the raw check)": {r.id for r in red.rules if r.secret_shape and r.decode is None},
        "every third rule": set(ids[::3]),
        "one PII rule of the always-on group": {"email"},
        "the table pass and the national ids": {first_generic, *(i for i in ids if i.startswith(("us-ssn", "br-cpf")))},
        "decode rules and what they count": {r.id for r in red.rules if r.decode is not None or r.pack == "secrets"},
    }
    # an engine holding a generic secrets rule runs the table pass as two rules of its own
    # (engine.TABLE_RULES): a view of the same rules names them
    for sub in subsets.values():
        if any(_generic_secret(r) for r in red.rules if r.id in sub):
            sub.update(t.id for t in TABLE_RULES)
    return subsets


def _fresh(red: RuleRedactor, ids: set[str]) -> Engine:
    return Engine([r for r in red.rules if r.id in ids], red.pseudonyms)


@pytest.mark.parametrize("name", list(_subsets(builtin_redactor(KEY, usernames=["alice"]))))
def test_a_view_finds_what_an_engine_of_its_rules_finds(red: RuleRedactor, name: str) -> None:
    ids = _subsets(red)[name]
    view, fresh = red.engine.only(ids), _fresh(red, ids)
    assert {r.id for r in view.rules} == {r.id for r in red.rules if r.id in ids}
    assert [r.id for r in view.pass_rules] == [r.id for r in fresh.pass_rules]
    examples = _examples(red)
    found: dict[int, int] = {}
    for mode in MODES:
        for k in range(0, len(examples), 40):  # every rule's examples beside each other's
            block = b"\n".join(examples[k:k + 40])
            a = fresh.scan_bytes(block, mode)
            assert view.scan_bytes(block, mode) == a, (name, mode, k)
            assert {m.rule_id for m in a} <= ids
            found[mode] = found.get(mode, 0) + len(a)
        for k in range(0, len(examples), 200):  # and as the strings of one JSON document
            parts = examples[k:k + 200]
            modes = [mode] * len(parts)
            assert view.scan_segments(parts, modes) == fresh.scan_segments(parts, modes), (name, mode, k)
    assert found[MODE_ALL] > 0  # each subset's rules do find something in the examples
    for p in examples:  # and each example alone, redacted
        ra, rb = RedactionReport(), RedactionReport()
        assert view.redact_bytes(p, ra) == fresh.redact_bytes(p, rb)
        assert ra.counts == rb.counts


def test_a_view_shares_the_engines_automata(red: RuleRedactor) -> None:
    view = red.engine.only(red.high_confidence)
    assert view._set is red.engine._set and view._head_sets is red.engine._head_sets  # noqa: SLF001
    assert view._gate is red.engine._gate and view._ids_gate is red.engine._ids_gate  # noqa: SLF001
    assert view._weak is not red.engine._weak  # (its own: see Engine.only)
    # ... and not its rule lists: the engine still finds what the view leaves out
    text = b"mail jo.doe@corp.example or call +44 20 7946 0958"
    assert {m.rule_id for m in red.engine.scan_bytes(text)} >= {"email", "phone-international"}
    assert {m.rule_id for m in view.scan_bytes(text)} == {"email"}  # the one high-confidence rule here


def test_the_verifier_builds_no_engine_of_its_rules(red: RuleRedactor, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[int] = []
    real = Engine.__init__

    def counting(self: Engine, *args: object, **kw: object) -> None:
        built.append(len(args[0]))  # type: ignore[arg-type]
        real(self, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(Engine, "__init__", counting)
    red = builtin_redactor(KEY, usernames=["alice"])
    built.clear()
    out = tmp_path / "o.jsonl"
    out.write_text(json.dumps({"text": "token ghp_R8fJ2kLm9QwErTyUiOpAsDfGhJkLzXcVbN12 mail jo@corp.example"}) + "\n"
                   + json.dumps({"text": "nothing here"}) + "\n")
    assert red.verify_file(out, "jsonl") == ["email", "github-pat"]
    assert red._verifier is not None and red._verifier.engine._set is red.engine._set  # noqa: SLF001
    assert all(n < 50 for n in built), built  # the verifier's path-id scanner, of a handful of rules
    # the raw half keeps an engine of the secret shapes alone (rawcheck.shape_engine: a view would
    # search raw blocks with the redaction engine's Sets, whose DFAs grow several times over)
    clean = tmp_path / "c.jsonl"
    clean.write_text(json.dumps({"text": "ok"}) + "\n")
    assert red.verify_file(clean, "jsonl") == []
    shapes = {r.id for r in red.rules if r.secret_shape and r.decode is None}
    assert red._shapes is not None and {r.id for r in red._shapes.rules} == shapes  # noqa: SLF001
    assert red._shapes._set is not red.engine._set and len(built) == 2 and built[-1] == len(shapes)  # noqa: SLF001


def test_the_verifier_view_holds_back_what_an_own_engine_held_back(red: RuleRedactor, tmp_path: Path) -> None:
    own = RuleRedactor([r for r in red.rules if r.id in red.high_confidence], red.pseudonyms)
    lines = [
        {"a": "/home/alice/x jo.doe@corp.example 4111111111111111"},
        {"cmd": ["gh", "secret", "set", "FOO", "--body", "Zq9xV3mT7pLr2Ks8Wd"]},
        {"b": "AKIAQYLPMN5HHHFPZAM2 and sk-ant-api03-" + "Ab3" * 30 + "AA"},
        {"t": "| user | password |\n|------|----------|\n| bob  | hunter2x9 |"},
        {"plain": "no finding in this line at all"},
    ]
    for i, line in enumerate(lines):
        p = tmp_path / f"{i}.jsonl"
        p.write_text(json.dumps(line) + "\n")
        mine = red.verify_file(p, "jsonl")
        theirs = sorted({rule for rule, _c in own.scan_file(p, "jsonl").counts if rule in red.high_confidence}
                        or rawcheck.raw_leftovers(own.engine, p))
        assert mine == theirs, (line, mine, theirs)
    assert red.verify_file(tmp_path / "4.jsonl", "jsonl") == []
    assert "email" in red.verify_file(tmp_path / "0.jsonl", "jsonl")
