"""s26 secrets sweep (tests/fx_s26_secrets.py): LaunchDarkly keys alone, Sentry DSNs and tokens, a
UUID used as a credential, and the providers of gitleaks' and detect-secrets' lists session 25 did
not plant are gone (not 8 characters of a random run left) from every shape, as text and as
harness records; UUIDs that are ids come out byte for byte; a DSN keeps its host and project."""

from __future__ import annotations

import json

import pytest

from tests.fx_redact import builtin_redactor
from tests.fx_s16_tokens import redact_as
from tests.fx_s25_recall import claude_tool_result, codex_output, survivors
from tests.fx_s26_secrets import BY_NAME, CREDS, UUID_IDS, sample, sentry_texts, shapes

KEY = b"s26-secrets-sweep-test-key-0123456789abcdef"
SEEDS = (5, 26)

# shapes the sweep found leaking and left, with the reason
KNOWN_LEAKS: dict[str, dict[str, str]] = {
    # 17 characters (`key` and 14 base62) under the generic ?access_token= of a URL: one value in ten
    # scores under the generic rules' 3.5 bar, and nothing names Airtable there (deprecated in 2024)
    "airtable-legacy-key": {"url": "17 characters under a generic URL parameter, entropy under 3.5"},
}


@pytest.fixture(scope="module")
def red():  # noqa: ANN201
    return builtin_redactor(KEY)


def _leaks(red, name: str, seed: int) -> dict[str, list[str]]:  # noqa: ANN001
    value, cores = sample(BY_NAME[name], seed)
    assert cores, f"{name}: a credential without a secret core tests nothing"
    leaked = {}
    for shape, kind, text in shapes(BY_NAME[name], value):
        out, _ = redact_as(red, kind, text)
        if bad := survivors(cores, out):
            leaked[shape] = bad
    return leaked


@pytest.mark.parametrize("name", [c.name for c in CREDS])
def test_credential_is_gone_from_every_shape(red, name: str) -> None:  # noqa: ANN001
    for seed in SEEDS:
        leaked = _leaks(red, name, seed)
        unexplained = {s: v for s, v in leaked.items() if s not in KNOWN_LEAKS.get(name, {})}
        assert not unexplained, (name, seed, sorted(unexplained))


def test_known_leaks_still_leak(red) -> None:  # noqa: ANN001
    """A known leak that stops leaking is taken off the list."""
    for name, leaks in KNOWN_LEAKS.items():
        for shape in leaks:
            assert any(shape in _leaks(red, name, seed) for seed in SEEDS), (name, shape)


def test_every_shape_is_planted() -> None:
    assert len(CREDS) >= 85
    got = {s for c in CREDS for s, _, _ in shapes(c, sample(c, 1)[0])}
    assert {"dotenv", "json-config", "k8s-env", "prose", "url", "header", "record-field", "k8s-json", "claude-cat-env",
            "codex-env", "pi-bash", "deepseek-json"} <= got


def test_the_check_finds_a_leak() -> None:
    """Without the secrets pack every value is left whole in its text shapes."""
    from archiver.redact.redactor import build_redactor
    from archiver.redact.rules import RuntimeTerms

    bare = build_redactor(["builtin:paths"], KEY, RuntimeTerms())
    for name in ("launchdarkly-sdk-bare", "uuid-license-key", "aiven-token"):
        value, cores = sample(BY_NAME[name], SEEDS[0])
        for shape, kind, text in shapes(BY_NAME[name], value):
            assert survivors(cores, redact_as(bare, kind, text)[0]), (name, shape)


@pytest.mark.parametrize("name", sorted(UUID_IDS))
def test_uuids_that_are_ids_are_kept_byte_for_byte(red, name: str) -> None:  # noqa: ANN001
    text = UUID_IDS[name]
    out, report = redact_as(red, "text", text)
    assert out == text, report.by_rule()
    for record in (claude_tool_result(text, "/srv/app/notes.txt"), codex_output(text)):
        out, report = redact_as(red, "jsonl", record)
        assert json.loads(out) == json.loads(record), (name, report.by_rule())


@pytest.mark.parametrize("seed", SEEDS)
def test_sentry_dsn_keys_are_gone(red, seed: int) -> None:  # noqa: ANN001
    for text, _, keys in sentry_texts(seed):
        out, _ = redact_as(red, "text", text)
        assert not survivors(keys, out), out


def test_sentry_dsn_keeps_host_and_project_under_the_secrets_pack() -> None:
    """The sentry-dsn rule takes the public key (and the URL rule the old secret key) alone."""
    from archiver.redact.redactor import build_redactor
    from archiver.redact.rules import RuntimeTerms

    red = build_redactor(["builtin:secrets"], KEY, RuntimeTerms())
    for seed in SEEDS:
        for text, keep, keys in sentry_texts(seed):
            out, report = redact_as(red, "text", text)
            assert keep in out and not survivors(keys, out), out
            assert "sentry-dsn" in report.by_rule(), report.by_rule()


def test_sentry_dsn_keeps_host_and_project_under_every_pack(red) -> None:  # noqa: ANN001
    for text, keep, _ in sentry_texts(SEEDS[0]):
        out, _ = redact_as(red, "text", text)
        assert keep in out, out
