"""Data for `archiver rules list` and `archiver rules test FILE` (the CLI prints it).

Findings say which rule fired where (line number or table.column, carrier, count),
never the matched value.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from archiver.model import Format
from archiver.redact.base import RedactionReport
from archiver.redact.engine import Engine
from archiver.redact.pseudonym import Pseudonymizer
from archiver.redact.redactor import RuleRedactor, _discard, _jsonl_items, _text_kind
from archiver.redact.rules import Rule


TEXT_WHOLE_MAX = 16 << 20  # a larger text file is scanned line by line (rules spanning lines not seen)


@dataclass(frozen=True)
class Finding:
    where: str  # "line 12", "sqlite", "file"
    rule_id: str
    carrier: str
    count: int


def list_rules(rules: list[Rule]) -> list[dict[str, Any]]:
    return [
        {"id": r.id, "pack": r.pack, "source": r.source, "label": r.label, "replace": r.replace,
         "confidence": r.confidence, "keywords": list(r.keywords), "validator": r.validator,
         "description": r.description}
        for r in rules
    ]


def _findings(where: str, report: RedactionReport) -> list[Finding]:
    return [Finding(where, rule, carrier, n) for (rule, carrier), n in sorted(report.counts.items())]


def scan_file(redactor: RuleRedactor, path: Path, fmt: Format) -> list[Finding]:
    """What the redactor would replace in `path`, per line for JSONL and text."""
    out: list[Finding] = []
    if fmt in ("jsonl", "jsonl.zst"):
        with _jsonl_items(path) as lines:
            for no, line in enumerate(lines, 1):
                rep = RedactionReport()
                if type(line) is bytes:
                    redactor.redact_jsonl_line(line.rstrip(b"\n"), rep)
                else:  # a line too long to hold: (file, start, end)
                    f, a, b = line
                    f.seek(max(a, b - 1))
                    redactor.redact_jsonl_span(f, a, b - (f.read(1) == b"\n"), _discard, rep)
                out += _findings(f"line {no}", rep)
    elif fmt == "text":
        kind = _text_kind(path)
        if kind != "text":  # redacted by the JSON walker, as sync does
            return scan_file(redactor, path, "jsonl") if kind == "jsonl" else _findings("file", redactor.scan_file(path, fmt))
        if path.stat().st_size <= TEXT_WHOLE_MAX:
            # the whole text at once: rules that span lines (PEM blocks, YAML block scalars, .netrc)
            data = path.read_bytes()
            counts: dict[tuple[int, str], int] = {}
            for m in redactor.engine.scan(data):
                key = (data.count(b"\n", 0, m.start) + 1, m.rule_id)
                counts[key] = counts.get(key, 0) + 1
            out += [Finding(f"line {no}", rule, "text", n) for (no, rule), n in sorted(counts.items())]
        else:
            with path.open("rb") as f:
                for no, line in enumerate(f, 1):
                    rep = RedactionReport()
                    redactor.engine.redact_bytes(line, rep, "text")
                    out += _findings(f"line {no}", rep)
    else:
        out += _findings(fmt, redactor.scan_file(path, fmt))
    return out


def check_examples(rules: list[Rule], pseudonyms: Pseudonymizer | None = None) -> list[str]:
    """Problems with the rules' own `positive` / `negative` / `expect` examples (empty: all good).

    Each rule is checked alone: every positive must be matched by it, no negative may be,
    and every `expect` string must be one of the parts the positives would replace.
    """
    p = pseudonyms or Pseudonymizer(b"rules-self-test-key-0000")
    problems: list[str] = []
    for r in rules:
        eng = Engine([r], p)
        got: list[str] = []
        for i, ex in enumerate(r.positive):
            ms = eng.scan(ex)
            if not ms:
                problems.append(f"{r.source}: rule {r.id!r}: positive example {i + 1} is not matched")
            got += [ex[m.start:m.end] for m in ms]
        for i, ex in enumerate(r.negative):
            if eng.scan(ex):
                problems.append(f"{r.source}: rule {r.id!r}: negative example {i + 1} is matched")
        for i, want in enumerate(r.expect):
            if want not in got:
                problems.append(f"{r.source}: rule {r.id!r}: expect {i + 1} is not what the positives yield")
    return problems
