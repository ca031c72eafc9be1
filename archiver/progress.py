"""Progress on a terminal for `archiver sync`: sessions (with ETA) and bytes.

An instance is the Syncer's `progress(event, n)` callback:

    "total_sessions", N   once, when discovery is done (sets the bar's total)
    "session", 1          a session finished (archived, unchanged or failed)
    "bytes", n            n bytes uploaded
    "bytes_read", n       n source bytes read (optional)

Unknown events are ignored, so the pipeline can add events before this module knows them.
It draws nothing (and costs next to nothing) when stderr is not a terminal or with
--quiet / --json. Safe to call from several threads (rich's Progress takes a lock).
"""

from __future__ import annotations

import sys
from types import TracebackType
from typing import Any, TextIO


class NullProgress:
    """The do-nothing callback."""

    enabled = False

    def __call__(self, event: str, n: int) -> None:
        pass

    def __enter__(self) -> "NullProgress":
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def start(self) -> None:
        pass

    def stop(self) -> None:
        pass


class SyncProgress:
    """A rich Progress with a sessions bar (ETA) and an uploaded-bytes counter (rate)."""

    enabled = True

    def __init__(self, console: Any = None, transient: bool = False) -> None:
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        from archiver.logs import stderr_console

        self.progress = Progress(
            TextColumn("[bold]{task.description:<9}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[extra]}"),
            TimeElapsedColumn(),
            TextColumn("eta"),
            TimeRemainingColumn(),
            console=console or stderr_console(),
            transient=transient,
            refresh_per_second=8,
        )
        self.sessions = self.progress.add_task("sessions", total=None, extra="")
        self.bytes_uploaded = 0
        self.bytes_read = 0
        self._started = False

    # ---- the callback ----
    def __call__(self, event: str, n: int) -> None:
        if event == "session":
            self.progress.advance(self.sessions, n)
        elif event == "total_sessions":
            self.progress.update(self.sessions, total=n)
        elif event == "bytes":
            self.bytes_uploaded += n
            self._refresh_extra()
        elif event == "bytes_read":
            self.bytes_read += n
            self._refresh_extra()

    def _refresh_extra(self) -> None:
        parts = []
        if self.bytes_read:
            parts.append(f"read {_size(self.bytes_read)}")
        parts.append(f"uploaded {_size(self.bytes_uploaded)}")
        self.progress.update(self.sessions, extra=", ".join(parts))

    # ---- lifetime ----
    def start(self) -> None:
        if not self._started:
            self.progress.start()
            self._started = True

    def stop(self) -> None:
        if self._started:
            self.progress.stop()
            self._started = False

    def __enter__(self) -> "SyncProgress":
        self.start()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.stop()


def _size(n: int) -> str:
    value = float(n)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1000 or unit == "GB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1000
    return f"{n} B"


def make_progress(*, quiet: bool = False, json_output: bool = False, stream: TextIO | None = None,
                  force: bool | None = None, json_logs: bool = False) -> SyncProgress | NullProgress:
    """The progress callback to hand to Syncer: live on a terminal, a no-op otherwise.
    `force` overrides the terminal check (True: always draw; False: never). `json_logs`
    (--log-format json): stderr carries JSON records only, so no bar, terminal or not."""
    if quiet or json_output or json_logs or force is False:
        return NullProgress()
    if force is None:
        target = stream or sys.stderr
        try:
            if not target.isatty():
                return NullProgress()
        except (AttributeError, ValueError):
            return NullProgress()
    return SyncProgress()


class CountProgress:
    """A bar over a known number of items (verify --read-data): `("total_objects", N)`
    once, then `("object", 1)` per item. Drawn on stderr, only when it is a terminal and
    logs are not JSON (`json_logs`)."""

    def __init__(self, label: str, *, quiet: bool = False, json_output: bool = False,
                 json_logs: bool = False) -> None:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        from archiver.logs import stderr_console

        try:
            tty = sys.stderr.isatty()
        except (AttributeError, ValueError):
            tty = False
        self.live = not quiet and not json_output and not json_logs and tty
        # on stderr, as SyncProgress: stdout carries the command's output only
        self._progress = Progress(TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                                  console=stderr_console(), transient=True, disable=not self.live)
        self._task = self._progress.add_task(label, total=None)

    def __call__(self, event: str, n: int) -> None:
        if event.startswith("total"):
            self._progress.update(self._task, total=n)
        else:
            self._progress.advance(self._task, n)

    def __enter__(self) -> "CountProgress":
        self._progress.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self._progress.__exit__(*exc)  # type: ignore[arg-type]
