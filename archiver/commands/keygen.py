"""`archiver keygen`: write a new identity (reviewers), recipient and team key (collectors).
Argument parsing and output only (the keys are archiver.crypto.keys)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from archiver.cli import EXIT_OK, UsageError, console, emit_json
from archiver.commands import add_command


def cmd_keygen(args: argparse.Namespace) -> int:
    from archiver.crypto.keys import keygen

    try:
        files = keygen(Path(args.out), force=args.force)
    except FileExistsError as e:
        raise UsageError(f"{e}; use --force to replace") from None
    except OSError as e:  # --out under a file, or a folder this user cannot write
        raise UsageError(f"--out {args.out}: cannot write {e.filename or 'the keys'}: "
                         f"{e.strerror or type(e).__name__}") from None
    doc = {"identity": str(files.identity_file), "recipient": files.recipient,
           "recipient_file": str(files.recipient_file), "team_key": str(files.team_key_file)}
    if args.json:
        emit_json(doc)
    else:
        c = console()
        c.print(f"identity  (keep secret, reviewers only): {files.identity_file}")
        c.print(f"recipient (collectors):                  {files.recipient_file}  {files.recipient}")
        c.print(f"team key  (collectors, pseudonyms):      {files.team_key_file}")
    return EXIT_OK


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    sp = add_command(sub, common, "keygen", cmd_keygen, "write identity.txt, recipient.txt and team.key (0600)")
    sp.add_argument("--out", required=True)
    sp.add_argument("--force", action="store_true")
