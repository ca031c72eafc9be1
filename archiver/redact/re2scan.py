"""Low-level RE2 calls shared by the matcher and its helpers: the anchors, compile options and
the span iterators over `re2.compile(...)._regexp` objects (the public wrapper converts offsets
per match, which costs more than the match)."""

from __future__ import annotations

from typing import Iterator

import re2


UNANCHORED = re2._Anchor.UNANCHORED  # noqa: SLF001 - the public wrapper has no cheaper entry point
ANCHOR_START = re2._Anchor.ANCHOR_START  # noqa: SLF001


def re2_options(max_mem: int, never_capture: bool = True) -> re2.Options:
    opts = re2.Options()
    opts.max_mem = max_mem
    opts.never_capture = never_capture
    opts.log_errors = False
    return opts


def iter_spans(rx: object, buf: bytes, pos: int = 0, end: int | None = None) -> Iterator[list[tuple[int, int]]]:
    """Non-overlapping matches of a low-level RE2 object (empty matches skipped)."""
    n = len(buf) if end is None else end
    match = rx.Match  # type: ignore[attr-defined]
    while pos <= n:
        spans = match(UNANCHORED, buf, pos, n)
        s, e = spans[0]
        if s < 0:
            return
        if e > s:
            yield spans
            pos = e
        else:
            pos = e + 1


def first_span(rx: object, buf: bytes, pos: int = 0, end: int | None = None) -> tuple[int, int]:
    return rx.Match(UNANCHORED, buf, pos, len(buf) if end is None else end)[0]  # type: ignore[attr-defined]
