"""bench/redact_corpus.py with a timer around every RE2 search the engine makes, by pattern.

    python bench/regex_time.py CONFIG SNAPSHOT_JSON OUT_JSON [redact_corpus options]

CONFIG and SNAPSHOT_JSON as for bench/redact_corpus.py; OUT_JSON is the FILE that
redact_corpus.py writes its output hashes to (e.g. /tmp/me-scratch/rt.json), not a folder: the
arguments are checked before the run, which takes minutes, rather than failing at its end.
Runs bench/redact_corpus.py in this process with the two search helpers (`re2scan.iter_spans`,
`re2scan.first_span`) wrapped in every module that calls them, and prints (stderr) the 40 patterns that took the most wall time, with their
calls: a rule's own regex (`<rule id>.rx`, `.allow[i]`), an engine prefilter (`engine._gate`,
`engine._weak[2][i].alt`: COMMON's chunk i, `[1][0]`: ALWAYS) or a module-level one (`module._DECODE_GATE`).
The verifier's engine holds the same rules: its patterns are listed again under the same
names. A pattern far slower per megabyte than the rest is a DFA that ran out of its budget or
builds states without end: that is how the weak groups' counted repeats were found
(`regex_rewrite.capped_repeats`; 5.05 s of 9.6 s of regex time on the 103 MB corpus before).
Wall time inside the wrappers (perf_counter): run it on a quiet machine.
"""

from __future__ import annotations

import atexit
import runpy
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Iterator

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from archiver.redact import ansi, decoded, linenumbers, re2scan  # noqa: E402
from archiver.redact import engine as E  # noqa: E402

SECONDS: Counter[int] = Counter()
CALLS: Counter[int] = Counter()
NAMES: dict[int, str] = {}
_spans, _first = re2scan.iter_spans, re2scan.first_span
CALLERS = (E, ansi, decoded, linenumbers)  # the modules that import the two helpers


def timed_spans(rx: object, buf: bytes, pos: int = 0, end: int | None = None) -> Iterator[list[tuple[int, int]]]:
    t = time.perf_counter()
    for spans in _spans(rx, buf, pos, end):
        SECONDS[id(rx)] += time.perf_counter() - t
        yield spans
        t = time.perf_counter()
    SECONDS[id(rx)] += time.perf_counter() - t
    CALLS[id(rx)] += 1


def timed_first(rx: object, buf: bytes, pos: int = 0, end: int | None = None) -> tuple[int, int]:
    t = time.perf_counter()
    found = _first(rx, buf, pos, end)
    SECONDS[id(rx)] += time.perf_counter() - t
    CALLS[id(rx)] += 1
    return found


def _name_patterns(engine: E.Engine) -> None:
    for c in engine._c:
        if c.rx is not None:
            NAMES.setdefault(id(c.rx), f"{c.rule.id}.rx")
        for i, rx in enumerate(c.allow or ()):  # (a word list's program is shared: named by its first rule)
            NAMES.setdefault(id(rx), f"{c.rule.id}.allow[{i}]")
    for g, chunks in getattr(engine, "_weak", {}).items():  # the weak groups' prefilters, in chunks
        for i, chunk in enumerate(chunks):
            NAMES.setdefault(id(chunk.alt), f"engine._weak[{g}][{i}].alt")
    for key, value in vars(engine).items():
        items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
        if hasattr(value, "Match"):
            NAMES.setdefault(id(value), f"engine.{key}")
        for i, v in items:
            if hasattr(v, "Match"):
                NAMES.setdefault(id(v), f"engine.{key}[{i}]")


_init = E.Engine.__init__


def _named_init(self: E.Engine, *args: object, **kwargs: object) -> None:
    _init(self, *args, **kwargs)  # type: ignore[arg-type]
    _name_patterns(self)


def _report() -> None:
    print(f"regex time {sum(SECONDS.values()):.2f} s", file=sys.stderr)
    for key, seconds in SECONDS.most_common(40):
        print(f"{seconds:7.2f} s {CALLS[key]:8d} calls  {NAMES.get(key, '?')}", file=sys.stderr)


USAGE = "usage: python bench/regex_time.py CONFIG SNAPSHOT_JSON OUT_JSON [redact_corpus options]"


def _usage_error(argv: list[str]) -> str | None:
    """Why the arguments cannot make a run, or None."""
    if any(a in ("-h", "--help") for a in argv):
        return __doc__
    positional, skip = [], False
    for a in argv:
        if skip:
            skip = False
        elif a in ("--only", "--repeat"):  # redact_corpus options that take a value
            skip = True
        elif not a.startswith("-"):
            positional.append(a)
    if len(positional) < 3:
        return f"{USAGE}\n(CONFIG, SNAPSHOT_JSON and OUT_JSON are required)"
    config, snapshot, out = (Path(a) for a in positional[:3])
    for what, path in (("CONFIG", config), ("SNAPSHOT_JSON", snapshot)):
        if not path.is_file():
            return f"{USAGE}\n{what} {path}: not a file"
    if out.is_dir():
        return f"{USAGE}\nOUT_JSON {out}: is a directory; give a file path in it, e.g. {out / 'regex_time.json'}"
    if not out.parent.is_dir():
        return f"{USAGE}\nOUT_JSON {out}: folder {out.parent} does not exist"
    return None


if (problem := _usage_error(sys.argv[1:])) is not None:
    asked = problem is __doc__
    print(problem, file=sys.stdout if asked else sys.stderr)
    sys.exit(0 if asked else 2)
for name, value in vars(E).items():
    if hasattr(value, "Match"):
        NAMES.setdefault(id(value), f"module.{name}")
for module in CALLERS:
    for name, timed in (("iter_spans", timed_spans), ("first_span", timed_first)):
        if hasattr(module, name):
            setattr(module, name, timed)
E.Engine.__init__ = _named_init  # type: ignore[method-assign]
atexit.register(_report)
sys.argv = [str(HERE / "redact_corpus.py"), *sys.argv[1:]]
runpy.run_path(str(HERE / "redact_corpus.py"), run_name="__main__")
