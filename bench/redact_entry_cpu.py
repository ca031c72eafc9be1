"""bench/redact_corpus.py with CPU timers around the engine's entry points.

    python bench/redact_entry_cpu.py CONFIG SNAPSHOT_JSON OUT_JSON [redact_corpus options]

Runs bench/redact_corpus.py in this process, with Engine.scan_segments, scan_bytes, any_keyword,
ids_may_match and always_hit wrapped: at exit, prints (stderr) the CPU seconds and the megabytes
each was handed. A scan_bytes inside scan_segments (a string redone alone) counts in both.
"""

from __future__ import annotations

import atexit
import runpy
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Callable

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from archiver.redact import engine as E  # noqa: E402

CPU: Counter[str] = Counter()
SIZE: Counter[str] = Counter()


def _wrap(name: str) -> None:
    f: Callable[..., object] = getattr(E.Engine, name)

    def timed(self: E.Engine, data: bytes | list[bytes], *a: object, **k: object) -> object:
        t = time.process_time()
        try:
            return f(self, data, *a, **k)
        finally:
            CPU[name] += time.process_time() - t
            SIZE[name] += len(data) if isinstance(data, bytes) else sum(map(len, data))

    setattr(E.Engine, name, timed)


def _report() -> None:
    for k, v in CPU.most_common():
        print(f"{k:16s} {v:7.2f} CPU-s {SIZE[k] / 1e6:8.1f} MB", file=sys.stderr)


def main() -> None:
    for name in ("scan_segments", "scan_bytes", "any_keyword", "ids_may_match", "always_hit"):
        _wrap(name)
    atexit.register(_report)
    sys.argv = [str(HERE / "redact_corpus.py"), *sys.argv[1:]]
    runpy.run_path(str(HERE / "redact_corpus.py"), run_name="__main__")


if __name__ == "__main__":
    main()
