"""One module per command (or small group of commands); cli.py only builds the parser and
dispatches. Each command module defines

    def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None

adding its subcommands (each with `set_defaults(func=handler)`, where a handler takes
the parsed args and returns an exit code). Handlers may raise cli.UsageError,
cli.IntegrityFailure or config.ConfigError. Output only through the helpers in cli.py.
Modules without `register` are shared helpers (reading.py: what the readers share).
"""

import importlib
import pkgutil

# registered by cli.py right after `sync`, in this order (the order `archiver --help` lists)
READERS = ("ls", "lineage", "restore", "verify")
# then, after `rules`: these first, in this order, then any other module by name
LATER = ("ops", "export", "review", "snapshots")


def register_all(sub, common, only=None) -> None:  # type: ignore[no-untyped-def]
    """Register the commands of the modules named in `only`, or of every module not in
    READERS (LATER first)."""
    if only is None:
        found = sorted(m.name for m in pkgutil.iter_modules(__path__))
        only = [*LATER, *(n for n in found if n not in LATER and n not in READERS)]
    for name in only:
        module = importlib.import_module(f"{__name__}.{name}")
        register = getattr(module, "register", None)
        if register is not None:
            register(sub, common)
