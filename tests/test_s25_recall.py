"""s25 recall sweep: every credential of tests/fx_s25_recall.py, drawn under two seeds, is gone
(not even 8 characters of its random part left) from every shape a coding agent shows it in,
redacted with the built-in packs as text and as harness JSONL records (Claude Code, Codex, pi,
DeepSeek); texts that hold no secret (git SHAs, UUIDs, lockfile integrity hashes, base64 PNG
data, digests) come out byte for byte, as text and inside a tool result."""

from __future__ import annotations

import json

import pytest

from tests.fx_redact import builtin_redactor
from tests.fx_s16_tokens import redact_as
from tests.fx_s25_recall import (BY_NAME, CREDS, NEGATIVES, claude_tool_result, codex_output, planted, sample,
                                 survivors)

KEY = b"s25-recall-sweep-test-key-0123456789abcdef"
SEEDS = (25, 52)

# shapes the sweep found leaking and left, with the reason (see the s25 report)
KNOWN_LEAKS: dict[str, dict[str, str]] = {}


@pytest.fixture(scope="module")
def red():  # noqa: ANN201
    return builtin_redactor(KEY)


def _leaks(red, name: str, seed: int) -> dict[str, list[str]]:  # noqa: ANN001
    c = BY_NAME[name]
    value, cores = sample(c, seed)
    assert cores, f"{name}: a credential without a secret core tests nothing"
    leaked = {}
    for shape, kind, text in planted(c, value):
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
    """A known leak that stops leaking is taken off the list (the list stays true; empty since
    the lead's follow-ups: 30-hex relief, `pat` as a secret name, `_PAT` in env calls)."""
    for name, shapes in KNOWN_LEAKS.items():
        for shape in shapes:
            assert any(shape in _leaks(red, name, seed) for seed in SEEDS), (name, shape)


def test_every_shape_is_planted() -> None:
    tokens = [c for c in CREDS if c.kind == "token"]
    files = [c for c in CREDS if c.kind == "file"]
    assert len(tokens) >= 200 and len(files) >= 15
    shapes = {s for c in CREDS for s, _, _ in planted(c, sample(c, 1)[0])}
    assert {"dotenv", "env", "json-config", "diff", "shell", "yaml", "toml", "url", "prose", "k8s-env", "python",
            "claude-cat-env", "codex-env", "pi-read-yaml", "pi-bash", "deepseek-json",
            "file", "file-diff", "claude-read", "codex-cat", "pi-read", "deepseek-read"} <= shapes


def test_the_check_finds_a_leak() -> None:
    """The check can fail: with no secrets pack, the values are left in every shape, and each
    text shape holds the value's random parts as written."""
    from archiver.redact.redactor import build_redactor
    from archiver.redact.rules import RuntimeTerms

    bare = build_redactor(["builtin:paths"], KEY, RuntimeTerms())
    for name in ("github-classic-pat", "postgres-url", "pem-rsa"):
        c = BY_NAME[name]
        value, cores = sample(c, SEEDS[0])
        for shape, kind, text in planted(c, value):
            if kind == "text":
                assert all(core in text for core in cores), (name, shape)
            out, _ = redact_as(bare, kind, text)
            assert survivors(cores, out), (name, shape)


@pytest.mark.parametrize("name", sorted(NEGATIVES))
def test_negative_text_is_kept_byte_for_byte(red, name: str) -> None:  # noqa: ANN001
    text = NEGATIVES[name]
    assert redact_as(red, "text", text)[0] == text
    for record in (claude_tool_result(text, "/srv/app/notes.txt"), codex_output(text)):
        out, report = redact_as(red, "jsonl", record)
        assert json.loads(out) == json.loads(record), (name, report.by_rule())
