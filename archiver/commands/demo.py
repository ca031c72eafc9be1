"""`archiver demo`: the whole job on generated sample sessions against an S3 endpoint started
on 127.0.0.1, then lineage, restore and verify. Argument parsing and output only (archiver.demo.run)."""

from __future__ import annotations

import argparse
import logging
from pathlib import Path
from typing import Any

from archiver.cli import EXIT_OK, EXIT_PARTIAL, console, emit_json
from archiver.commands import add_command


def cmd_demo(args: argparse.Namespace) -> int:
    from archiver.demo.run import run_demo

    # with --json stdout holds the one document: the steps are log records then (shown with -v)
    step = logging.getLogger("archiver.demo").info if args.json else (lambda m: console().print(m))
    out = run_demo(Path(args.dir).absolute() if args.dir else None, log=step)
    if args.json:
        emit_json(out)
    return EXIT_OK if out.get("ok") else EXIT_PARTIAL


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    sp = add_command(sub, common, "demo", cmd_demo, "the whole job on bundled sample sessions against an embedded S3")
    sp.add_argument("--dir", help="keep the demo's files here (default: a temp folder)")
