"""Command line: the parser, main() and the output helpers every command uses; each command
is a module in archiver/commands/ (argument parsing and output only; the work happens in the
services).

Exit codes: 0 ok; 1 finished but some sessions failed; 2 usage or config error;
3 integrity failure (verify, restore).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import re
import sys
from pathlib import Path
from typing import Any, NoReturn

from archiver import __version__



def _no_pydantic_plugins() -> None:
    """The archiver uses no pydantic plugin. pydantic looks for them in every installed
    distribution's entry points, through importlib.metadata, whose import alone (the email
    package) is ~0.2 s of a run that finds nothing changed. With plugins disabled (the default
    here) its loader is replaced by one that finds none, which is what the real one answers then."""
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    if os.environ["PYDANTIC_DISABLE_PLUGINS"] != "__all__" or "pydantic.plugin._loader" in sys.modules:
        return
    import types

    loader = types.ModuleType("pydantic.plugin._loader")
    loader.get_plugins = lambda: ()  # type: ignore[attr-defined]
    sys.modules["pydantic.plugin._loader"] = loader


_no_pydantic_plugins()

EXIT_OK, EXIT_PARTIAL, EXIT_USAGE, EXIT_INTEGRITY = 0, 1, 2, 3


class UsageError(Exception):
    pass


class IntegrityFailure(Exception):
    """A reader cannot answer because part of the archive cannot be read (exit 3)."""


class Terminated(KeyboardInterrupt):
    """SIGTERM (systemctl stop, a unit's or a Job's deadline) during sync (commands.sync installs the
    handler): unwound like Ctrl-C, so the run's temp folder and worker pool go, and metrics and
    `status` say it stopped (exit 143)."""


# ---------------------------------------------------------------- output helpers
def emit_json(doc: Any) -> None:
    sys.stdout.write(json.dumps(doc, indent=2, sort_keys=False, default=str) + "\n")


def console():  # type: ignore[no-untyped-def]
    from rich.console import Console

    # piped output: wide lines rather than wrapped cells, so greps and diffs see whole values
    # markup off: titles, keys and paths come from the archive and are shown literally
    return Console(highlight=False, markup=False, width=None if sys.stdout.isatty() else 240)


_CONTROL = {c: None for c in list(range(0, 9)) + list(range(11, 32)) + [127] + list(range(0x80, 0xA0))}


def plain(text: object) -> str:
    """Text from the archive (titles, keys, paths, errors) as the terminal should show it:
    no control characters, so no escape sequences reach the reviewer's terminal."""
    return str(text).translate(_CONTROL)


_json_errors = False  # --log-format json: errors are log records too, so a collector's stderr parses


def err(msg: str) -> None:
    if _json_errors:
        logging.getLogger("archiver").error(str(msg).translate(_CONTROL))
        return
    sys.stderr.write(f"archiver: {str(msg).translate(_CONTROL)}\n")


# ---------------------------------------------------------------- shared plumbing
_store_url = ""  # the configured store, named by main() when a StoreError ends a command
_config_file: Path | None = None  # the config file read, named by main() when a setting is refused later

# A ConfigError raised once the settings are read names a setting first ("redaction.rules: ...");
# main() puts the file in front, as the settings' own validation does.
_SETTING_FIRST = re.compile(r"(?:host|home|harnesses|redaction|encryption|store|state)(?:[.:]| is )")


def settings_of(args: argparse.Namespace):  # type: ignore[no-untyped-def]
    from archiver.config import default_config_path, load_settings

    global _store_url, _config_file
    path = Path(args.config) if args.config else None
    settings = load_settings(path)
    _store_url = settings.store.url
    read = path or default_config_path()
    _config_file = read if read.is_file() else None
    return settings


def config_error_line(message: str) -> str:
    """A refused setting, with the config file it was read from in front (when one was)."""
    if _config_file is not None and _SETTING_FIRST.match(message):
        return f"{_config_file}: {message}"
    return message


# ---------------------------------------------------------------- parser
class _Parser(argparse.ArgumentParser):
    """A usage error is one line on stderr, as README promises (argparse would print the whole
    usage block first); `--help` still shows it. Subcommand parsers are of this class too."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {plain(message)}\n")


def _add_common_options(parser: argparse.ArgumentParser, *, defaults: bool) -> None:
    """The options every command takes. They may come before the command (`archiver --config F
    sync`) or after it (`archiver sync --config F`): the top-level parser holds the defaults and
    each subcommand's copy adds a value only when given (a subparser's defaults would otherwise
    overwrite what was given before the command)."""
    def d(value: object) -> object:
        return value if defaults else argparse.SUPPRESS

    parser.add_argument("--config", default=d(None),
                        help="config file (default $ARCHIVER_CONFIG, then ~/.config/archiver/config.toml)")
    parser.add_argument("--json", action="store_true", default=d(False), help="print one JSON document on stdout")
    parser.add_argument("-v", "--verbose", action="store_true", default=d(False), help="debug logs, the libraries' too")
    parser.add_argument("-q", "--quiet", action="store_true", default=d(False),
                        help="warnings and errors only; no progress bar")
    parser.add_argument("--log-format", choices=["auto", "human", "json"], default=d("auto"),
                        help="stderr logs: human on a terminal, JSON lines otherwise (auto, the default)")


def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    _add_common_options(common, defaults=False)

    p = _Parser(prog="archiver", description="Archive coding-agent sessions: redacted, compressed, encrypted, with lineage.")
    p.add_argument("--version", action="version", version=f"archiver {__version__}")
    _add_common_options(p, defaults=True)
    sub = p.add_subparsers(dest="command", required=True)

    from archiver.commands import register_all

    register_all(sub, common)
    return p


def main(argv: list[str] | None = None) -> int:
    from archiver.errors import ConfigError

    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:
        return EXIT_USAGE if e.code not in (0, None) else EXIT_OK
    from archiver.logs import setup_logging

    setup_logging(getattr(args, "log_format", "auto"), quiet=getattr(args, "quiet", False),
                  verbose=getattr(args, "verbose", False),
                  default_level=logging.INFO if args.command == "sync" else logging.WARNING)
    global _json_errors, _store_url, _config_file
    _store_url = ""
    _config_file = None
    _json_errors = getattr(args, "log_format", "auto") == "json"
    from archiver.store.base import StoreError

    try:
        return int(args.func(args))
    except UsageError as e:
        err(str(e))
        return EXIT_USAGE
    except ConfigError as e:
        err(config_error_line(str(e)))
        return EXIT_USAGE
    except IntegrityFailure as e:
        err(str(e))
        return EXIT_INTEGRITY
    except StoreError as e:  # the store unreachable or refusing where a command cannot go on
        if args.command in READER_COMMANDS:
            err(unreadable_store(_store_url, e))
            return EXIT_USAGE
        err(f"store {_store_url}: {e}" if _store_url else f"store: {e}")
        return EXIT_PARTIAL
    except Terminated:
        err("terminated (SIGTERM)")
        return 143
    except KeyboardInterrupt:
        err("interrupted")
        return 130
    except Exception as e:  # a bug: one line, not a traceback (-v shows it)
        if getattr(args, "verbose", False):
            raise
        err(f"internal error: {type(e).__name__} at {_where(e)} (run with -v for the traceback)")
        return EXIT_PARTIAL


# Commands that only read the archive. A store they cannot read is no session failing (exit 1
# means a sync finished with some sessions failed): it is exit 2, the configuration (bucket, url,
# endpoint, credentials) or, for an endpoint that does not answer, where it points; a reader
# cannot tell a service that is down from an endpoint_url naming the wrong host or port.
READER_COMMANDS = frozenset({"ls", "lineage", "verify", "restore", "export", "snapshots"})


def unreadable_store(url: str, exc: BaseException) -> str:
    """One line for a reader that cannot read the store: the url, the reason and what to check.
    No userinfo of any URL in the reason reaches the terminal."""
    reason = _URL_QUERY.sub(r"\1", _USERINFO.sub("://", str(exc)))
    code = reason.lower()
    if "nosuchbucket" in code:
        hint = "the bucket does not exist (store.url)"
    elif "accessdenied" in code or "http 403" in code or "credentials" in code:
        hint = "access denied (the credentials in the AWS chain, or the bucket policy)"
    elif getattr(exc, "transient", False):
        hint = "the store is unreachable or failing (is store.endpoint_url right, the service up? retry later)"
    else:
        hint = "check store.url, store.endpoint_url and the credentials"
    return f"cannot read the store {url or '(store.url)'}: {hint}: {reason}"


_USERINFO = re.compile(r"://[^/\s@]*@")
_URL_QUERY = re.compile(r"(https?://[^\s\"?]*)\?[^\s\"]*")  # botocore quotes the request's whole url


def _where(exc: BaseException) -> str:
    """The innermost archiver source line of `exc`'s traceback (file:line): where to look, with
    no value in it, since an exception's own message may quote session content."""
    import traceback

    root = Path(__file__).resolve().parent
    where = "?"
    for frame in traceback.extract_tb(exc.__traceback__):
        path = Path(frame.filename).resolve()
        if path.is_relative_to(root):
            where = f"archiver/{path.relative_to(root).as_posix()}:{frame.lineno}"
    return where


if __name__ == "__main__":
    # `python -m archiver.cli`: the command modules import archiver.cli, whose exception classes
    # main() must catch, so run that module's main, not this __main__ copy's
    from archiver.cli import main as _main

    raise SystemExit(_main())
