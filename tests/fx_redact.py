"""A redactor with the built-in rule packs, and the two checks the rule-by-rule tests make on
its text output: a text kept as it is, a value gone by the named rule."""

from __future__ import annotations

from typing import Any

from archiver.redact.base import RedactionReport
from archiver.redact.rules import RuntimeTerms

BUILTIN_PACKS = ["builtin:secrets", "builtin:pii", "builtin:paths"]


def builtin_redactor(key: bytes, usernames: list[str] | None = None, names: list[str] | None = None) -> Any:
    from archiver.redact.redactor import build_redactor

    return build_redactor(BUILTIN_PACKS, key, RuntimeTerms(usernames=usernames or [], names=names or []))


def kept(red: Any, text: str) -> dict[str, int]:
    """Assert the text comes out as it went in; its report's counts by rule."""
    report = RedactionReport()
    assert red.redact_text(text, report) == text
    return report.by_rule()


def gone(red: Any, text: str, value: str, rule: str) -> str:
    """Assert `value` is gone and `rule` counted at least once; the redacted text."""
    report = RedactionReport()
    out = red.redact_text(text, report)
    assert value not in out, (rule, out)
    assert report.by_rule().get(rule, 0) >= 1, report.by_rule()
    return out
