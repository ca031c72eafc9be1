"""`archiver sync` with every redaction step replaced by a copy: the pipeline's own floor.

Bench only (run by bench/sync.py --floor, in its own process, on its own store and state).
It answers one planning question: how fast would a cold sync be if redaction and its
fail-closed re-scan cost nothing? Discovery, snapshots, hashing, packing (zstd + age), the
store and the state database all still run for real. There is deliberately no such switch in
the product: an archive written this way holds plaintext secrets.

    python bench/sync_without_redaction.py CONFIG [sync options...]
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def _disable_redaction() -> None:
    from archiver.redact.redactor import RuleRedactor

    RuleRedactor.redact_text = lambda self, text, report, carrier="text": text  # type: ignore[method-assign]
    RuleRedactor.redact_jsonl_line = lambda self, line, report, carrier="jsonl": line  # type: ignore[method-assign]
    RuleRedactor.redact_jsonl_lines = lambda self, lines, report, carrier="jsonl": list(lines)  # type: ignore[method-assign]
    RuleRedactor.redact_file = lambda self, src, dst, fmt, report: shutil.copyfile(src, dst)  # type: ignore[method-assign]
    RuleRedactor.redact_relpath = lambda self, relpath, report: relpath  # type: ignore[method-assign]
    RuleRedactor.verify_file = lambda self, path, fmt: []  # type: ignore[method-assign]


# Pool workers start from the forkserver, which imports this module as __mp_main__: the patch
# runs there too.
_disable_redaction()

if __name__ == "__main__":
    from archiver.cli import main

    sys.exit(main(["sync", "--config", sys.argv[1], "--json", *sys.argv[2:]]))
