"""`archiver rules list` (every rule, and rule packs whose own examples fail) and
`archiver rules test FILE` (which rules fire where in a file: ids, counts and places, never
the values). Argument parsing and output only (archiver.redact.scan_report)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from archiver.cli import EXIT_OK, EXIT_USAGE, UsageError, console, emit_json, err, settings_of
from archiver.commands.redact import guess_format, unreadable_as
from archiver.commands import add_command


def cmd_rules(args: argparse.Namespace) -> int:
    from archiver.redact.factory import runtime_terms
    from archiver.redact.redactor import build_redactor
    from archiver.redact.rules import RuleError
    from archiver.redact.scan_report import check_examples, list_rules, scan_file

    settings = settings_of(args)
    try:
        # rule ids, counts and places only: a throwaway pseudonym key is enough
        redactor = build_redactor(settings.redaction.rules, b"archiver-rules-cli-0000000000000",
                                  runtime_terms(settings), None)
    except RuleError as e:
        raise UsageError(str(e)) from None
    if args.rules_cmd == "list":
        rules = list_rules([*redactor.rules, *redactor.engine.pass_rules])
        problems = check_examples(redactor.rules)
        if args.json:
            emit_json({"rules": rules, "example_problems": problems})
        else:
            from rich.table import Table

            t = Table(title=f"{len(rules)} rules")
            for col in ("id", "pack", "label", "confidence", "description"):
                t.add_column(col)
            for r in rules:
                t.add_row(r["id"], r["pack"], r["label"], r["confidence"], r["description"])
            console().print(t)
            for p in problems:
                err(p)
        return EXIT_USAGE if problems else EXIT_OK
    path = Path(args.file)
    if not path.is_file():
        raise UsageError(f"{path}: not a file")
    fmt = guess_format(path)
    with unreadable_as(path, fmt):
        findings = scan_file(redactor, path, fmt)  # type: ignore[arg-type]
    doc = {"file": str(path), "format": fmt,
           "hits": [{"where": f.where, "rule": f.rule_id, "carrier": f.carrier, "count": f.count} for f in findings]}
    if args.json:
        emit_json(doc)
    else:
        c = console()
        for f in findings:
            c.print(f"{path}: {f.where}: {f.rule_id} ({f.carrier}) x{f.count}")
        c.print(f"{sum(f.count for f in findings)} matches")
    return EXIT_OK


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    sp = add_command(sub, common, "rules", cmd_rules, "list rules, or show which rules fire in a file (never the values)")
    rsub = sp.add_subparsers(dest="rules_cmd", required=True)
    # the common options may come before or after the subcommand too (they set a value only when given)
    rl = rsub.add_parser("list", parents=[common])
    rl.set_defaults(func=cmd_rules)
    rt = rsub.add_parser("test", parents=[common])
    rt.add_argument("file")
    rt.set_defaults(func=cmd_rules)
