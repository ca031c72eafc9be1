"""The fail-closed verify alone, over the redacted outputs of every artifact of a sync.

    python bench/verify_corpus.py CONFIG SNAPSHOT_JSON OUT_JSON [--only jsonl,...] [--repeat N] [--profile FILE]

Same inputs as bench/redact_corpus.py. Every artifact is redacted once (untimed) into a private
scratch folder; then `verify_file` runs over each output, timed (process CPU) per format, and the
raw-bytes half (rawcheck.raw_leftovers) timed apart. OUT_JSON holds the findings per artifact, so
two source trees can be compared: run with PYTHONPATH set to each and diff the files. With
--profile, the verify passes run under cProfile and the stats go to FILE (pstats format).
"""

from __future__ import annotations

import argparse
import cProfile
import json
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from redact_corpus import snapshot_artifacts  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("config", type=Path)
    ap.add_argument("snapshot", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("--only", default="")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--profile", type=Path)
    a = ap.parse_args()
    from archiver import runtime
    from archiver.config import load_settings
    from archiver.redact import rawcheck, redactor
    from archiver.redact.base import RedactionReport

    settings = load_settings(a.config, required=True)
    keys = runtime.team_keys(settings)
    arts = snapshot_artifacts(settings, keys, a.snapshot, set(filter(None, a.only.split(","))))
    raw_cpu = [0.0]
    real_raw = rawcheck.raw_leftovers

    def timed_raw(*args: Any, **kw: Any) -> set[str]:
        t = time.process_time()
        try:
            return real_raw(*args, **kw)
        finally:
            raw_cpu[0] += time.process_time() - t

    redactor.rawcheck.raw_leftovers = timed_raw  # type: ignore[attr-defined]
    tmp = Path(tempfile.mkdtemp(prefix="bench-verify-"))
    best: Counter[str] = Counter()
    found: dict[str, list[str]] = {}
    try:
        red = runtime.redactor(settings, keys)
        outs = []
        for n, (rel, fmt) in enumerate(arts):
            dst = tmp / f"{n}.out"
            red.redact_file(settings.home_dir / rel, dst, fmt, RedactionReport())
            outs.append((rel, fmt, dst))
        prof = cProfile.Profile() if a.profile else None
        for _ in range(a.repeat):
            ver = runtime.redactor(settings, keys)  # fresh memos every repeat
            cpu: Counter[str] = Counter()
            for rel, fmt, dst in outs:
                raw_cpu[0] = 0.0
                t0 = time.process_time()
                if prof is not None:
                    prof.enable()
                found[rel] = ver.verify_file(dst, fmt)
                if prof is not None:
                    prof.disable()
                t1 = time.process_time()
                cpu[fmt + " verify"] += t1 - t0
                cpu[fmt + "  (raw half)"] += raw_cpu[0]
            for k, v in cpu.items():
                best[k] = min(best[k], v) if k in best else v
        if prof is not None:
            prof.dump_stats(str(a.profile))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    a.out.write_text(json.dumps(found, indent=0, sort_keys=True))
    for k in sorted(best):
        print(f"{k:24s} {best[k]:7.2f} CPU-s")
    total = sum(v for k, v in best.items() if k.endswith(" verify"))
    print(f"{'total verify':24s} {total:7.2f} CPU-s  ({len(found)} artifacts, best of {a.repeat})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
