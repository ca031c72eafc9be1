"""Ctrl-C and SIGTERM held back over a few statements that must not be cut in two.

The sync's SIGTERM handler (commands/sync.py) and Python's SIGINT handler raise in the main
thread wherever it is. Raised while a worker process is being started, between its launch and
the pool recording it, the pool never joins that process: the parent exits, its
semaphores are unlinked, and the starting worker dies on them with a traceback on the shared
stderr (a non-JSON line under `--log-format json`). Inside `deferred()` a signal is noted and
its handler runs once the block ends, so the exception comes out right after it.
"""

from __future__ import annotations

import signal
import threading
from contextlib import contextmanager
from typing import Iterator

_SIGNALS = (signal.SIGINT, signal.SIGTERM)


@contextmanager
def deferred() -> Iterator[None]:
    """Hold SIGINT/SIGTERM handlers that are Python functions until the block ends (main thread
    only: Python runs signal handlers there and nowhere else)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held: list[tuple[int, object]] = []
    saved = {s: signal.getsignal(s) for s in _SIGNALS}
    for s, handler in saved.items():
        if callable(handler):
            signal.signal(s, lambda signum, frame: held.append((signum, frame)))
    try:
        yield
    finally:
        for s, handler in saved.items():
            if callable(handler):
                signal.signal(s, handler)
        for signum, frame in held[:1]:  # the first: a handler raises, and one exception is enough
            saved[signum](signum, frame)  # type: ignore[operator]
