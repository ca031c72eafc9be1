"""What SQLite's `PRAGMA integrity_check` / `quick_check` findings mean for us.

Both pragmas also report rows that do not meet their table's CHECK constraints ("CHECK
constraint failed in t"). That is no damage to the file: an application may have written the
row with `PRAGMA ignore_check_constraints`, and a redacted value (`<EMAIL:...>` under
`CHECK (email LIKE '%@%')`) need not meet it. Every other finding is damage.
"""

from __future__ import annotations

import re

_UNMET_CHECK = re.compile(r"CHECK constraint failed in \S+")


def damage(findings: list[str]) -> list[str]:
    """The findings of an integrity or quick check that are damage ([] for ["ok"])."""
    return [f for f in findings if f != "ok" and _UNMET_CHECK.fullmatch(f) is None]


def unmet_checks(findings: list[str]) -> list[str]:
    """The findings that are rows not meeting a CHECK constraint."""
    return [f for f in findings if _UNMET_CHECK.fullmatch(f) is not None]
