"""Which RE2 automata hold a redaction worker's native memory, and how it grows with what it redacts.

    python bench/re2_memory.py CONFIG [--mb 150] [--top 30] [--every 16]

CONFIG is a sync config over a generated home (bench/corpus.py; bench/ab_sync.py writes one, and
bench/sync.py keeps its own with --keep). The home's JSON, JSONL and text artifacts under 30 MB (a worker gets bigger ones in
segments), in path order, are redacted and verified as a worker does (`redact_file`, then
`verify_file`) in this one process until --mb have gone by. Every RE2 program and Set the engines
build is wrapped: glibc's bytes in use (mallinfo2) are read before and after each of its calls, so
what a DFA's states and a lazy compile add is charged to that automaton. Prints RSS and bytes in
use every --every MB (the growth levels off once the caches are warm: retiring a worker sooner
does not lower its peak), then the automata holding the most. Python objects (pymalloc arenas are
mmapped) are not in these figures: compare RSS. Wrapping costs time; CPU figures mean nothing here.
"""

from __future__ import annotations

import argparse
import collections
import ctypes
import sys
import tempfile
from pathlib import Path
from typing import Any


class _MallInfo2(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks",
                                                "fsmblks", "uordblks", "fordblks", "keepcost")]


_libc = ctypes.CDLL("libc.so.6")
_libc.mallinfo2.restype = _MallInfo2
growth: collections.Counter[str] = collections.Counter()  # automaton name -> bytes in use it added
calls: collections.Counter[str] = collections.Counter()
_building: list[str] = []  # the engine whose constructor is running (its automata are named after it)


def in_use() -> int:
    return _libc.mallinfo2().uordblks


def rss_mb() -> float:
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS"):
            return int(line.split()[1]) / 1024
    return 0.0


class _Charged:
    """An RE2 object whose calls are charged the bytes in use they add."""

    __slots__ = ("_obj", "name", "adds")

    def __init__(self, obj: Any, name: str) -> None:
        self._obj, self.name, self.adds = obj, name, 0

    def __getattr__(self, attr: str) -> Any:
        fn = getattr(self._obj, attr)
        if not callable(fn):
            return fn

        def charged(*args: Any, **kw: Any) -> Any:
            if attr == "Add":  # a Set: named by its first patterns
                self.adds += 1
                if self.adds <= 2:
                    p = args[0]
                    self.name += "|" + (p if isinstance(p, str) else p.decode("latin-1"))[:40]
                return fn(*args, **kw)
            before = in_use()
            out = fn(*args, **kw)
            key = f"{self.name} (+{self.adds})" if self.adds else self.name
            growth[key] += in_use() - before
            calls[key] += 0 if attr == "Compile" else 1
            return out

        return charged


def _wrap_re2() -> None:
    from re2 import _re2

    real_re2, real_set = _re2.RE2, _re2.Set

    def make_re2(pattern: Any, options: Any) -> _Charged:
        before = in_use()
        obj = real_re2(pattern, options)
        text = pattern if isinstance(pattern, str) else pattern.decode("latin-1")
        name = f"{_engine()}RE2[{len(text)}]:" + text[:100]  # the length tells prefilters apart
        growth[name] += in_use() - before
        return _Charged(obj, name)

    make_re2.QuoteMeta = real_re2.QuoteMeta  # type: ignore[attr-defined]
    make_re2.Options = real_re2.Options  # type: ignore[attr-defined]
    make_re2.Anchor = real_re2.Anchor  # type: ignore[attr-defined]
    _re2.RE2 = make_re2
    _re2.Set = lambda anchor, options: _Charged(real_set(anchor, options), f"{_engine()}Set")


def _engine() -> str:
    return f"[{_building[-1]}] " if _building else ""


def _label_engines() -> None:
    """Name each automaton an Engine builds after that engine: its rank among the engines built
    and its number of rules (the redaction engine comes first; fail_closed's verifier and raw-check
    engines when the first file is verified; rule programs compile lazily, under no engine)."""
    from archiver.redact import engine as engine_mod

    real_init = engine_mod.Engine.__init__
    built = [0]

    def init(self: Any, rules: list[Any], *args: Any, **kw: Any) -> None:
        built[0] += 1
        _building.append(f"engine {built[0]}: {len(rules)} rules")
        try:
            real_init(self, rules, *args, **kw)
        finally:
            _building.pop()

    engine_mod.Engine.__init__ = init  # type: ignore[method-assign]


def _artifacts(settings: Any) -> list[tuple[Path, str, int]]:
    """(file, format, size) of the home's JSON, JSONL and text artifacts under 30 MB, in path order."""
    from archiver import runtime

    arts: list[tuple[Path, str, int]] = []
    for h in runtime.harnesses(settings, None):
        for ds in h.discover():
            for art in ds.sources:
                if art.format in ("jsonl", "json", "text") and art.source.is_file():
                    size = art.source.stat().st_size
                    if size < 30 << 20:
                        arts.append((art.source, art.format, size))
    return sorted(arts, key=lambda x: str(x[0]))


def _print_holders(top: int) -> None:
    for key, n in sorted(growth.items(), key=lambda kv: -kv[1])[:top]:
        print(f"  {n / 2**20:6.2f} MB  {calls[key]:8d} calls  {key[:120]!r}")
    by_engine: collections.Counter[str] = collections.Counter()
    for key, n in growth.items():
        by_engine[key[1:key.index("]")] if key.startswith("[") else "outside an engine (rule programs, walkers)"] += n
    print("by engine:")
    for name, n in by_engine.most_common():
        print(f"  {n / 2**20:6.2f} MB  {name}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("config", type=Path)
    ap.add_argument("--mb", type=float, default=150)
    ap.add_argument("--top", type=int, default=30)
    ap.add_argument("--every", type=float, default=16)
    a = ap.parse_args()
    _wrap_re2()
    _label_engines()
    from archiver import runtime
    from archiver.config import load_settings
    from archiver.redact.base import RedactionReport

    settings = load_settings(a.config, required=True)
    arts = _artifacts(settings)
    redactor = runtime.redactor(settings, runtime.team_keys(settings))
    base = in_use()
    print(f"after the build: RSS {rss_mb():.1f} MB, in use {base / 2**20:.1f} MB")
    done, every = 0, int(a.every * 2**20)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out"
        for src, fmt, size in arts:
            if done >= a.mb * 2**20:
                break
            redactor.redact_file(src, out, fmt, RedactionReport())
            redactor.verify_file(out, fmt)
            before, done = done, done + size
            if done // every != before // every:
                print(f"  {done / 2**20:7.1f} MB redacted: RSS {rss_mb():6.1f} MB, in use {in_use() / 2**20:6.1f} MB")
    print(f"in use grew {(in_use() - base) / 2**20:.1f} MB over {done / 2**20:.1f} MB; the automata adding most "
          f"(their compile, lazy or at the build, included):")
    _print_holders(a.top)
    return 0


if __name__ == "__main__":
    sys.exit(main())
