"""The redactor contract the pipeline relies on, and the per-session report.

A report counts matches per (rule id, carrier). It never holds a matched value.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:  # not at run time: a redaction worker imports no pydantic (workers.py)
    from archiver.model import Format


class RedactionReport:
    def __init__(self) -> None:
        self.counts: Counter[tuple[str, str]] = Counter()

    def add(self, rule_id: str, carrier: str, n: int = 1) -> None:
        if n:
            self.counts[(rule_id, carrier)] += n

    def merge(self, other: "RedactionReport") -> None:
        self.counts.update(other.counts)

    def by_rule(self) -> dict[str, int]:
        out: Counter[str] = Counter()
        for (rule, _carrier), n in self.counts.items():
            out[rule] += n
        return dict(sorted(out.items()))

    def by_carrier(self) -> dict[str, dict[str, int]]:
        out: dict[str, dict[str, int]] = {}
        for (rule, carrier), n in sorted(self.counts.items()):
            out.setdefault(carrier, {})[rule] = n
        return out


class Redactor(Protocol):
    """What the pipeline calls on every artifact before packing.

    Implementations must be deterministic for a given team key and rule set
    (same input, same output on every machine), and line-local for JSONL so an
    appended segment redacts exactly as it would inside the whole file.
    """

    def redact_text(self, text: str, report: RedactionReport, carrier: str = "text") -> str:
        """Redact free text (also used for titles)."""
        ...

    def redact_jsonl_line(self, line: bytes, report: RedactionReport, carrier: str = "jsonl") -> bytes:
        """Redact one JSONL line (without its newline). Output must still parse when input did;
        a line that is not JSON is redacted as text."""
        ...

    def redact_file(self, src: Path, dst: Path, fmt: Format, report: RedactionReport) -> None:
        """Redact a whole file of format json | text | sqlite | binary | jsonl into dst (streaming)."""
        ...

    def redact_relpath(self, relpath: str, report: RedactionReport) -> str:
        """Redact a native relative path (directory and file names, e.g. Claude project keys)."""
        ...

    def verify_file(self, path: Path, fmt: Format) -> list[str]:
        """Re-scan redacted output; return ids of high-confidence rules that still match."""
        ...
