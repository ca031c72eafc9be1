"""Logging set-up for the CLI.

- On a terminal: human lines on stderr (through rich, so they print above a live progress bar).
- Not a terminal, or `--log-format json`: one JSON object per line on stderr:
  `{"ts", "level", "logger", "msg", ...extra fields}`.
- `--quiet`: warnings and errors only; `--verbose`: debug.

Callers log only redacted text; the TruncateFilter caps every message and extra string so
a mistake (a whole line, a long path list) cannot spill a transcript into the logs.
"""

from __future__ import annotations

import json
import logging
import sys
from datetime import datetime, timezone
from typing import Any, Literal, TextIO

LogFormat = Literal["auto", "human", "json"]

MAX_MESSAGE_CHARS = 2000
MAX_FIELD_CHARS = 500

# Attributes every LogRecord has; anything else on a record came from `extra=`.
_STANDARD_ATTRS = frozenset(vars(logging.LogRecord("x", logging.INFO, "x", 0, "x", None, None))) | {
    "message", "asctime", "taskName",
}
_NOISY = ("botocore", "boto3", "s3transfer", "urllib3", "werkzeug", "presidio-analyzer", "asyncio")


def _truncate(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text) - limit} more chars)"


class TruncateFilter(logging.Filter):
    """Formats the message once, caps it (and string extras) at a fixed length."""

    def __init__(self, max_chars: int = MAX_MESSAGE_CHARS, max_field_chars: int = MAX_FIELD_CHARS) -> None:
        super().__init__()
        self.max_chars = max_chars
        self.max_field_chars = max_field_chars

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception as e:  # a bad %-format must not kill the run
            message = f"{record.msg!r} (unformattable log arguments: {type(e).__name__})"
        record.msg, record.args = _truncate(message, self.max_chars), None
        for key, value in list(vars(record).items()):
            if key not in _STANDARD_ATTRS and isinstance(value, str):
                setattr(record, key, _truncate(value, self.max_field_chars))
        return True


def _extras(record: logging.LogRecord) -> dict[str, Any]:
    return {k: v for k, v in vars(record).items() if k not in _STANDARD_ATTRS and not k.startswith("_")}


class JsonFormatter(logging.Formatter):
    """One JSON object per line: ts (UTC, ms), level, logger, msg, then extra fields."""

    def format(self, record: logging.LogRecord) -> str:
        doc: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        for key, value in _extras(record).items():
            if key not in doc:
                doc[key] = value
        if record.exc_info and record.exc_info[0] is not None:
            doc["exc_type"] = record.exc_info[0].__name__
            doc["exc"] = _truncate(self.formatException(record.exc_info), MAX_MESSAGE_CHARS)
        return json.dumps(doc, default=str, ensure_ascii=False)


class HumanFormatter(logging.Formatter):
    """`logger: msg key=value ...`; with `prefix`, led by time and level (rich adds its own)."""

    def __init__(self, prefix: bool = False) -> None:
        super().__init__()
        self.prefix = prefix

    def format(self, record: logging.LogRecord) -> str:
        extras = " ".join(f"{k}={v}" for k, v in _extras(record).items())
        text = f"{record.name}: {record.getMessage()}" + (f"  {extras}" if extras else "")
        if self.prefix:
            text = f"{self.formatTime(record, '%H:%M:%S')} {record.levelname:<7} {text}"
        if record.exc_info and record.exc_info[0] is not None:
            text += "\n" + _truncate(self.formatException(record.exc_info), MAX_MESSAGE_CHARS)
        return text


def _route_uncaught_to_logging() -> None:
    """With JSON logs, what Python would print as bare text on stderr (an uncaught exception, one
    in a thread, one ignored in a finalizer, e.g. when SIGTERM lands there) is a JSON record too,
    so a collector parsing stderr never meets a line that is not JSON."""
    import threading

    log = logging.getLogger("archiver")

    def uncaught(exc_type: Any, exc: Any, tb: Any) -> None:
        if issubclass(exc_type, KeyboardInterrupt):
            sys.__excepthook__(exc_type, exc, tb)
            return
        log.critical("uncaught exception: %s", exc_type.__name__, exc_info=(exc_type, exc, tb))

    def in_thread(a: Any) -> None:
        if a.exc_type is SystemExit:
            return
        name = a.thread.name if a.thread is not None else "?"
        log.error("uncaught exception in thread %s: %s", name, a.exc_type.__name__,
                  exc_info=(a.exc_type, a.exc_value, a.exc_traceback))

    def unraisable(u: Any) -> None:
        where = getattr(u.object, "__qualname__", None) or type(u.object).__name__  # a code name, never a value
        log.warning("%s %s: %s", u.err_msg or "Exception ignored in", where, u.exc_type.__name__,
                    exc_info=(u.exc_type, u.exc_value, u.exc_traceback) if u.exc_value is not None else None)

    # only Python's own hooks are replaced: a host that installed its own (a test runner) keeps it
    if sys.excepthook is sys.__excepthook__:
        sys.excepthook = uncaught
    if threading.excepthook is threading.__excepthook__:
        threading.excepthook = in_thread
    if sys.unraisablehook is sys.__unraisablehook__:
        sys.unraisablehook = unraisable


_console = None


def stderr_console():  # type: ignore[no-untyped-def]
    """The one rich Console on stderr shared by log lines and the progress bar, so log
    lines print above the bar instead of tearing it."""
    global _console
    if _console is None:
        from rich.console import Console

        _console = Console(stderr=True, highlight=False)
    return _console


def use_json(fmt: LogFormat, stream: TextIO | None = None) -> bool:
    if fmt == "json":
        return True
    if fmt == "human":
        return False
    stream = stream or sys.stderr
    try:
        return not stream.isatty()
    except (AttributeError, ValueError):
        return True


def setup_logging(fmt: LogFormat = "auto", *, quiet: bool = False, verbose: bool = False,
                  stream: TextIO | None = None, default_level: int = logging.INFO) -> logging.Handler:
    """Install the archiver's handler on the root logger (replacing one installed earlier)
    and return it. Level: WARNING with quiet, DEBUG with verbose, else `default_level`."""
    level = logging.WARNING if quiet else logging.DEBUG if verbose else default_level
    target = stream or sys.stderr
    handler: logging.Handler
    if use_json(fmt, target):
        handler = logging.StreamHandler(target)
        handler.setFormatter(JsonFormatter())
        _route_uncaught_to_logging()
    elif stream is None:
        from rich.logging import RichHandler

        handler = RichHandler(console=stderr_console(), show_path=False, markup=False, rich_tracebacks=False,
                              log_time_format="%H:%M:%S")
        handler.setFormatter(HumanFormatter())
    else:
        handler = logging.StreamHandler(target)
        handler.setFormatter(HumanFormatter(prefix=True))
    handler.addFilter(TruncateFilter())
    handler.setLevel(level)
    handler._archiver = True  # type: ignore[attr-defined]
    root = logging.getLogger()
    for old in [h for h in root.handlers if getattr(h, "_archiver", False)]:
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
    for name in _NOISY:  # libraries' chatter only when asked for
        logging.getLogger(name).setLevel(logging.DEBUG if verbose else logging.WARNING)
    return handler

