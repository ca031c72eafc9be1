"""s15 outside-in leak audit (PII and identity): every identity of tests/fx_s15_leak_gen.py (prompts,
identity commands, git, forge and cloud CLIs, paths in every spelling, host names, odd e-mails, key
comments, system configuration, manifests) is gone from the redacted text and from every carrier of the
s11/s14 audits (Claude Code tool_result / text block / numbered Read / Bash input, Codex
function_call_output as JSON-in-a-string and as plain text, a SQLite TEXT cell), with a redactor
configured as docs/SECURITY.md describes (a login, a real name, a host, and a login that is a word);
and the negative twins stay byte for byte."""

from __future__ import annotations

import re

import pytest

from archiver.redact.base import RedactionReport
from archiver.redact.redactor import build_redactor
from archiver.redact.rules import RuntimeTerms
from tests.fx_s15_leak_gen import negatives, profile, samples
from tests.test_s11_leak_gen import carriers
from tests.test_s14_leaks import leaked_carriers, sqlite_views

KEY = b"s15-leak-corpus-test-key-0123456789"
BUILTIN = ["builtin:secrets", "builtin:pii", "builtin:paths"]

# Left as they are, on purpose (docs/SECURITY.md, "Names and hosts" and "Other accounts"). family -> carriers
# left (None: every carrier).
GAPS: dict[str, set[str] | None] = {
    # a system crontab's user column (`17 * * * * bob cd / && ...`): without the file's name a user crontab
    # line (`0 3 * * * find /tmp ...`) has a command where the user would be; no rule can tell them apart
    "crontab-system-other": None,
    # the `login` of GitHub API JSON is anyone's public handle (issue authors, reviewers, every listing);
    # the configured user's login is replaced everywhere, and the e-mail and configured name are
    "gh-api-user-login-other": None,
}
SEEDS = (15, 3)
CASES = [(seed, fam, text, values) for seed in SEEDS for fam, text, values in samples(seed)]


def redactor_for(seed: int):  # noqa: ANN201
    p = profile(seed)
    return build_redactor(BUILTIN, KEY, RuntimeTerms(usernames=[p.login, p.word], names=[p.name], hosts=[p.host]))


_REDS: dict[int, object] = {}


def _red(seed: int):  # noqa: ANN202
    if seed not in _REDS:
        _REDS[seed] = redactor_for(seed)
    return _REDS[seed]


@pytest.fixture(scope="module")
def sqlite_out() -> dict[tuple[int, str], str]:
    out: dict[tuple[int, str], str] = {}
    for seed in SEEDS:
        cases = [c for c in CASES if c[0] == seed]
        for (_, fam, _, _), o in zip(cases, sqlite_views(_red(seed), [t for _, _, t, _ in cases])):
            out[(seed, fam)] = o
    return out


@pytest.mark.parametrize("seed,family,text,values", CASES, ids=[f"{s}-{f}" for s, f, _, _ in CASES])
def test_generated_identity_is_gone_everywhere(sqlite_out, seed: int, family: str, text: str, values: list[str]) -> None:  # noqa: ANN001
    gaps = GAPS.get(family, set())
    if gaps is None:
        pytest.skip(f"{family}: deliberate gap")
    got = leaked_carriers(_red(seed), text, values, sqlite_out[(seed, family)])
    assert not {k: v for k, v in got.items() if k not in gaps}


def test_the_corpus_is_new_and_large_enough() -> None:
    from tests.fx_s14_leak_gen import samples as s14
    from tests.test_s11_leak_gen import samples as s11

    for seed in SEEDS:
        fams = [f for f, _, _ in samples(seed)]
        assert len(set(fams)) == len(fams) >= 60
        assert not set(fams) & ({f for f, _, _ in s11(11)} | {f for f, _, _ in s14(14)})
        for fam, text, values in samples(seed):  # every value is in its text
            assert values and all(v in text for v in values), fam
    # the seeds draw different people
    assert profile(SEEDS[0]) != profile(SEEDS[1])


@pytest.mark.parametrize("family,text", negatives(15), ids=[f for f, _ in negatives(15)])
def test_negative_twin_stays(family: str, text: str) -> None:
    red = _red(15)
    report = RedactionReport()
    assert red.redact_text(text, report) == text, report.by_rule()
    for name, line in carriers(text).items():
        report = RedactionReport()
        assert red.redact_jsonl_line(line, report) == line, (name, report.by_rule())


def test_a_word_login_stays_a_word_outside_an_account() -> None:
    """The word login of the profile is matched where an account shows, not in prose or code."""
    for seed in SEEDS:
        w = profile(seed).word
        text = f"the {w} of it; {w}_count = 2; see {w}.md; \"{w}\": 1\n"
        assert _red(seed).redact_text(text, RedactionReport()) == text
        assert not re.search(rf"\b{w}\b", _red(seed).redact_text(f"$ whoami\n{w}\n", RedactionReport()))
