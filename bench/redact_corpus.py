"""Redaction plus its fail-closed verify over every artifact of a sync, in this one process.

    python bench/redact_corpus.py CONFIG SNAPSHOT_JSON OUT_JSON [--only jsonl,sqlite,...] [--repeat N]

CONFIG is a sync config (bench/ab_sync.py writes one per run); SNAPSHOT_JSON a decrypted,
decompressed snapshot of that sync (its sessions list the artifacts, paths relative to the
home, with their formats). Each artifact is redacted as a worker redacts a whole file
(`redact_file`, then `verify_file` on the output), one at a time. Prints CPU seconds per
format (process time: other jobs on the machine do not count) and writes OUT_JSON with the
sha256 of every output, the verify findings and the redaction counts, so two source trees
can be compared byte for byte: run it with PYTHONPATH set to each and diff the two files.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any


def snapshot_artifacts(settings: Any, keys: Any, snapshot: Path, only: set[str]) -> list[tuple[str, str]]:
    """(path relative to the home, format) of the snapshot's artifacts found in the home (the
    snapshot holds redacted paths: each file of the home is matched by its redacted path)."""
    from archiver import runtime
    from archiver.redact.base import RedactionReport

    snap = json.loads(snapshot.read_text())
    want = {x["path"]: x["format"] for s in snap["sessions"] for x in s["artifacts"]
            if not only or x["format"] in only}
    namer = runtime.redactor(settings, keys)
    home = settings.home_dir
    out = []
    for f in sorted(home.rglob("*")):
        rel = f.relative_to(home).as_posix()
        fmt = want.get(namer.redact_relpath(rel, RedactionReport())) if f.is_file() else None
        if fmt is not None:
            out.append((rel, fmt))
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("config", type=Path)
    ap.add_argument("snapshot", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("--only", default="")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--no-verify", action="store_true")
    a = ap.parse_args()
    from archiver import runtime
    from archiver.config import load_settings
    from archiver.redact.base import RedactionReport

    settings = load_settings(a.config, required=True)
    keys = runtime.team_keys(settings)
    home = settings.home_dir
    arts = snapshot_artifacts(settings, keys, a.snapshot, set(filter(None, a.only.split(","))))
    tmp = Path(tempfile.mkdtemp(prefix="bench-redact-"))
    best: Counter[str] = Counter()
    try:
        for _ in range(a.repeat):
            red = runtime.redactor(settings, keys)  # fresh memos every repeat
            cpu: Counter[str] = Counter()
            out: dict[str, object] = {}
            counts: Counter[str] = Counter()
            for rel, fmt in arts:
                src = home / rel
                dst = tmp / "out"
                t0 = time.process_time()
                report = RedactionReport()
                red.redact_file(src, dst, fmt, report)
                t1 = time.process_time()
                left = [] if a.no_verify else red.verify_file(dst, fmt)
                t2 = time.process_time()
                cpu[fmt + " redact"] += t1 - t0
                cpu[fmt + " verify"] += t2 - t1
                out[rel] = [hashlib.sha256(dst.read_bytes()).hexdigest(), left, {f"{r}|{c}": n for (r, c), n in sorted(report.counts.items())}]
                for (rid, _c), n in report.counts.items():
                    counts[rid] += n
                dst.unlink()
            for k, v in cpu.items():
                best[k] = min(best[k], v) if best[k] else v
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    a.out.write_text(json.dumps({"outputs": out, "counts": dict(sorted(counts.items()))}, indent=0, sort_keys=True))
    for k in sorted(best):
        print(f"{k:24s} {best[k]:7.2f} CPU-s")
    print(f"{'total':24s} {sum(best.values()):7.2f} CPU-s  ({len(out)} artifacts, best of {a.repeat})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
