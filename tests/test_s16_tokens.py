"""s16 provider-token coverage: every family of tests/fx_s16_tokens.py (the formats the s16 probe
found leaking, and the ones it found covered) is gone from a bare tool-output line, a `.env` read
and a Claude Code tool_result, with the built-in packs; the negatives (ids, digests, base64 data
next to the same keywords) stay byte for byte."""

from __future__ import annotations

import pytest

from archiver.redact.redactor import build_redactor
from archiver.redact.rules import BUILTIN_PACKS, RuntimeTerms
from tests.fx_s16_tokens import COVERED, FAMILIES, NEW, carriers, negatives, redact_as, samples, survivors

KEY = b"s16-provider-token-test-key-0123456789"
SEEDS = (16, 61)


@pytest.fixture(scope="module")
def red():  # noqa: ANN201
    return build_redactor([f"builtin:{p}" for p in BUILTIN_PACKS], KEY, RuntimeTerms())


CASES = [(seed, fam, tok, cores) for seed in SEEDS for fam, tok, cores in samples(seed)]


@pytest.mark.parametrize("seed,family,tok,cores", CASES, ids=[f"{s}-{f}-{i % 3}" for i, (s, f, _, _) in enumerate(CASES)])
def test_token_core_is_gone_in_every_carrier(red, seed: int, family: str, tok: str, cores: list[str]) -> None:  # noqa: ANN001
    leaked = {}
    for name, (kind, text) in carriers(family, tok).items():
        out, report = redact_as(red, kind, text)
        assert report.by_rule(), (family, name)
        if bad := survivors(cores, out):
            leaked[name] = bad
    assert not leaked, (family, tok)


@pytest.mark.parametrize("family,text", negatives(16), ids=[f for f, _ in negatives(16)])
def test_negative_stays_byte_for_byte(red, family: str, text: str) -> None:  # noqa: ANN001
    out, report = redact_as(red, "text", text)
    assert out == text, report.by_rule()
    import json
    line = json.dumps({"type": "user", "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_01S16neg", "content": text}]}})
    out, report = redact_as(red, "jsonl", line)
    assert out == line, report.by_rule()


def test_the_families_are_many_and_distinct() -> None:
    assert len(NEW) >= 14 and len(COVERED) >= 80
    assert not set(NEW) & set(COVERED)
    for seed in SEEDS:
        for fam, tok, cores in samples(seed):
            assert cores and all(c in tok for c in cores), fam
    # the seeds draw different tokens
    assert {t for _, t, _ in samples(SEEDS[0])}.isdisjoint({t for _, t, _ in samples(SEEDS[1])})
    assert set(FAMILIES) == {f for f, _, _ in samples(1, 1)}
