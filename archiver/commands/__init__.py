"""One module per command (or small group of commands), as borgbackup does; cli.py only
builds the parser, dispatches and holds the output helpers. Each command module defines

    def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None

adding its subcommands with `add_command` (the common options, help, and a handler that takes
the parsed args and returns an exit code; nested subcommands set `func` themselves). Handlers may raise cli.UsageError,
cli.IntegrityFailure or config.ConfigError. Output only through the helpers in cli.py.
Modules without `register` are shared helpers (reading.py: what the readers share).
"""

import argparse
import importlib
import pkgutil
from typing import Any, Callable

# the order `archiver --help` lists the commands in (by module; ops is status and doctor, review
# the bucket, hold, release, prune, forget-session, rekey and recovery-key commands); a module
# not named here comes after these, by name, and before LAST
ORDER = ("keygen", "scan", "sync", "ls", "lineage", "restore", "verify", "redact", "rules",
         "ops", "export", "review", "snapshots")
LAST = ("demo",)


def add_command(sub: Any, common: argparse.ArgumentParser, name: str, func: Callable[[argparse.Namespace], int],
                help_: str, description: str | None = None) -> argparse.ArgumentParser:
    """A subcommand with the common options, its one-line help (also its description unless one is
    given) and its handler."""
    sp = sub.add_parser(name, parents=[common], help=help_, description=description or help_)
    sp.set_defaults(func=func)
    return sp


def register_all(sub, common) -> None:  # type: ignore[no-untyped-def]
    """Register every command module's commands, in ORDER, then the others by name, then LAST."""
    found = sorted(m.name for m in pkgutil.iter_modules(__path__))
    named = (*ORDER, *LAST)
    for name in (*ORDER, *(n for n in found if n not in named), *LAST):
        module = importlib.import_module(f"{__name__}.{name}")
        register = getattr(module, "register", None)
        if register is not None:
            register(sub, common)
