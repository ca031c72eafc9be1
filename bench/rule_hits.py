"""The values one rule takes over folders of text, most frequent first: a probe for false positives.

    python bench/rule_hits.py RULE_ID DIR [DIR ...] [--top N]

Searches every file (its first 200 KB, decoded as UTF-8 with replacement) with the rule's regex and
drops what its allowlist allows; no keyword gate, no validator, no carrier walkers, so it lists a
superset of what the engine would replace. Run it over text that holds no secrets or people of
yours, such as site-packages and /usr/share/doc: every value listed is then a false positive or a
public name. Prints `<count> <value>` lines and a last line `<distinct> distinct <hits>`.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import Counter
from pathlib import Path

import re2

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from archiver.redact.rules import load_rules  # noqa: E402

PACKS = ["builtin:secrets", "builtin:pii", "builtin:paths", "builtin:names"]


def rule_hits(rule_id: str, roots: list[str], max_bytes: int = 200_000) -> Counter[str]:
    rules = {r.id: r for r in load_rules(PACKS)}
    if rule_id not in rules:
        raise SystemExit(f"rule_hits: no built-in rule {rule_id!r}")
    rule = rules[rule_id]
    rx = re2.compile(rule.regex)
    allow = re2.compile("|".join(f"(?:{a})" for a in rule.allowlist)) if rule.allowlist else None
    hits: Counter[str] = Counter()
    for root in roots:
        for folder, _dirs, files in os.walk(root):
            for name in files:
                try:
                    with open(os.path.join(folder, name), "rb") as f:
                        text = f.read(max_bytes).decode("utf-8", "replace")
                except OSError:
                    continue
                for m in rx.finditer(text):
                    value = m.group(rule.secret_group)
                    if value and not (allow and allow.search(value)):
                        hits[value] += 1
    return hits


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("rule_id")
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--top", type=int, default=200)
    a = ap.parse_args()
    hits = rule_hits(a.rule_id, a.dirs)
    for value, n in hits.most_common(a.top):
        print(n, value)
    print(len(hits), "distinct", sum(hits.values()))


if __name__ == "__main__":
    main()
