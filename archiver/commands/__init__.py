"""Command groups beyond the core ones in cli.py. Each module defines

    def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None

adding its subcommands (each with `set_defaults(func=handler)`, where a handler takes
the parsed args and returns an exit code). Handlers may raise cli.UsageError or
config.ConfigError (exit 2). Output only through the helpers in cli.py.
"""

import importlib
import pkgutil


def register_all(sub, common) -> None:  # type: ignore[no-untyped-def]
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{__name__}.{info.name}")
        register = getattr(module, "register", None)
        if register is not None:
            register(sub, common)
