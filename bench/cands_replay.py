"""Replay the batches a sync hands to `Engine.scan_segments`, to time its candidate work alone.

    python bench/cands_replay.py capture CONFIG SNAPSHOT_JSON BATCHES [--mb 40]
    python bench/cands_replay.py replay CONFIG BATCHES [--repeat 3] [--census]

`capture` redacts (`redact_file`) and verifies (`verify_file`) the snapshot's artifacts as
bench/redact_corpus.py does, until --mb source bytes are read, and pickles every (parts, modes)
batch `scan_segments` was handed (the file holds corpus plaintext: keep it in a 0700 folder).
`replay` builds the engine of CONFIG (PYTHONPATH picks the source tree), runs `scan_segments`
over every batch --repeat times on that one engine (the first run builds the DFA caches, as a
worker's first files do; later runs are warm) and prints the CPU seconds (process time) of each
run, the median of the warm ones, and the sha256 of every result (offsets,
rule ids, labels, replace kinds), so two trees can be compared for identical output. With
--census, counts candidates per rule (matches of the STRONG rules' joined passes) and per string.

Measured (session 12, 40 MB of the 103 MB bench corpus: 140,148 candidates, most strings with one
holding a `home-linux` + `user-username` pair): Python work on candidates is ~20% of scan_segments,
RE2 the rest (STRONG passes 21%, weak combined passes 22%, weak rules per string 13%, nearly all
`email`/`email-unicode` matches dropped by their allowlist or validator). A candidate fast path
(branch s12-cands: a per-value filter memo, inline accept, one-pass resolve) gave scan_segments
-11 to -14% here, redaction+verify -3 to -8% (callgrind: -6.4% instructions) and no visible change
in a cold sync's whole-tree CPU (bench/ab_sync.py, 33.5 vs 33.6 CPU-s): not merged.
"""

from __future__ import annotations

import argparse
import hashlib
import pickle
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path


def _engine(config: Path) -> object:
    from archiver import runtime
    from archiver.config import load_settings

    settings = load_settings(config, required=True)
    return runtime.redactor(settings, runtime.team_keys(settings)).engine, settings


def capture_batches(config: Path, snapshot: Path, mb: float, verify: bool = True
                    ) -> tuple[object, list[tuple[list[bytes], list[int]]], int]:
    """(the engine, every (parts, modes) batch `scan_segments` was handed, bytes of files read):
    the snapshot's artifacts redacted (`redact_file`, then `verify_file` when `verify`) as a
    worker does, until `mb` MB of files are read. Also bench/hs_prefilter_probe.py's input."""
    import json

    from archiver import runtime
    from archiver.config import load_settings
    from archiver.redact import engine as E
    from archiver.redact.base import RedactionReport

    settings = load_settings(config, required=True)
    red = runtime.redactor(settings, runtime.team_keys(settings))
    snap = json.loads(snapshot.read_text())
    want = {x["path"]: x["format"] for s in snap["sessions"] for x in s["artifacts"]}
    batches: list[tuple[list[bytes], list[int]]] = []
    orig = E.Engine.scan_segments

    def keep(self: object, parts: list[bytes], modes: list[int]) -> object:
        batches.append((list(parts), list(modes)))
        return orig(self, parts, modes)  # type: ignore[arg-type]

    E.Engine.scan_segments = keep  # type: ignore[method-assign]
    read = 0
    home = settings.home_dir
    try:
        with tempfile.TemporaryDirectory(prefix="cands-") as tmp:
            for f in sorted(home.rglob("*")):
                if read > mb * 1e6 or not f.is_file():
                    continue
                fmt = want.get(red.redact_relpath(f.relative_to(home).as_posix(), RedactionReport()))
                if fmt is None:
                    continue
                dst = Path(tmp) / "out"
                red.redact_file(f, dst, fmt, RedactionReport())
                if verify:
                    red.verify_file(dst, fmt)
                read += f.stat().st_size
    finally:
        E.Engine.scan_segments = orig  # type: ignore[method-assign]
    return red.engine, batches, read


def capture(config: Path, snapshot: Path, out: Path, mb: float) -> None:
    _eng, batches, read = capture_batches(config, snapshot, mb)
    out.write_bytes(pickle.dumps(batches))
    size = sum(len(p) for parts, _ in batches for p in parts)
    print(f"{len(batches)} batches, {size / 1e6:.1f} MB of strings, from {read / 1e6:.1f} MB of files")


def replay(config: Path, path: Path, repeat: int, census: bool) -> None:
    from archiver.redact import engine as E

    batches = pickle.loads(path.read_bytes())
    times = []
    digest = ""
    eng, _s = _engine(config)
    for _ in range(repeat):
        h = hashlib.sha256()
        t = time.process_time()
        res = [eng.scan_segments(parts, modes) for parts, modes in batches]
        times.append(time.process_time() - t)
        for r in res:
            for i in sorted(r):
                h.update(repr((i, [tuple(m) for m in r[i]])).encode())
        digest = h.hexdigest()
    print(" ".join(f"{x:.3f}" for x in times), f"warm median {statistics.median(times[1:] or times):.3f} CPU-s", digest)
    if census:
        eng, _s = _engine(config)
        per_rule: Counter[str] = Counter()
        per_string: Counter[int] = Counter()
        orig_keep = E.Engine._keep

        def keep(self: object, buf: bytes, lo: int, hi: int, cands: list, prot: bool) -> list:
            per_string[min(len(cands), 9)] += 1
            for c in cands:
                per_rule[eng._c[c[2]].rule.id] += 1  # type: ignore[attr-defined]
            return orig_keep(self, buf, lo, hi, cands, prot)  # type: ignore[arg-type]

        E.Engine._keep = keep  # type: ignore[method-assign]
        for parts, modes in batches:
            eng.scan_segments(parts, modes)
        E.Engine._keep = orig_keep  # type: ignore[method-assign]
        print("candidates per string (9 = 9+):", dict(sorted(per_string.items())))
        print("candidates", sum(per_rule.values()))
        for rid, n in per_rule.most_common(25):
            print(f"{n:8d} {rid}")


def main() -> int:
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("capture")
    c.add_argument("config", type=Path)
    c.add_argument("snapshot", type=Path)
    c.add_argument("out", type=Path)
    c.add_argument("--mb", type=float, default=40)
    r = sub.add_parser("replay")
    r.add_argument("config", type=Path)
    r.add_argument("batches", type=Path)
    r.add_argument("--repeat", type=int, default=3)
    r.add_argument("--census", action="store_true")
    a = ap.parse_args()
    if a.cmd == "capture":
        capture(a.config, a.snapshot, a.out, a.mb)
    else:
        replay(a.config, a.batches, a.repeat, a.census)
    return 0


if __name__ == "__main__":
    sys.exit(main())
