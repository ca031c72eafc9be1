"""A/B of cold `archiver sync` CPU between source trees, with a byte-identical check.

    python bench/ab_sync.py --corpus DIR --work DIR [--runs 3] TREE_A TREE_B

Each run makes a fresh state and file:// store under WORK, with one keys dir (made once, under
WORK/keys) shared by every run, so object ids (keyed hashes of the redacted plaintext) and
pseudonyms are comparable across trees. The trees run alternately (A B A B ...) with
PYTHONPATH set to the tree; the figure is the whole process tree's CPU seconds (bench/sync.py
`measure`), compared by median: other jobs on the machine move wall time more than CPU time.
After the runs: the set of object ids in each tree's last store, and its snapshot's sessions
and redaction counts (decrypted with the `age` and `zstd` CLIs), must be equal. Keep the
corpus read-only (a copy: bench/sync.py appends to the corpus it writes).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import corpus as C  # noqa: E402
import sync as B  # noqa: E402


def _fresh(work: Path, keys: Path, home: Path, users: list[str]) -> Path:
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    os.chmod(work, 0o700)
    (work / "store").mkdir(mode=0o700)
    cfg = work / "config.toml"
    B.write_config(cfg, home, users, keys, f"file://{work}/store/x", None, work / "state")
    return cfg


def _objects(work: Path) -> set[str]:
    return {p.name for p in (work / "store" / "x" / "objects").rglob("*") if p.is_file()}


def _snapshot(work: Path, keys: Path) -> dict[str, object]:
    snap = next((work / "store" / "x" / "snapshots").rglob("*.age"))
    plain = subprocess.run(["age", "-d", "-i", str(keys / "identity.txt"), str(snap)], capture_output=True,
                           check=True).stdout
    doc = json.loads(subprocess.run(["zstd", "-dc"], input=plain, capture_output=True, check=True).stdout)
    sessions = [{k: v for k, v in s.items() if k != "archived_at"} for s in doc["sessions"]]  # the run's time
    return {"sessions": sessions, "redactions": doc["redactions"], "errors": doc["errors"]}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", type=Path, required=True)
    ap.add_argument("--work", type=Path, required=True)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("trees", nargs=2, type=Path)
    a = ap.parse_args()
    info = C.load(a.corpus)
    home = a.corpus / info["home"]
    size = sum(p.stat().st_size for p in home.rglob("*") if p.is_file())
    keys = a.work / "keys"
    if not (keys / "team.key").exists():
        from archiver.crypto.keys import keygen

        keygen(keys)
    cpu: dict[int, list[float]] = {0: [], 1: []}
    for r in range(a.runs):
        for t, tree in enumerate(a.trees):
            work = a.work / f"run{t}"
            cfg = _fresh(work, keys, home, info["users"])
            env = {**os.environ, "PYTHONPATH": str(tree.resolve())}
            py = str(Path("/work/main/.venv/bin/python"))
            run, out, err = B.measure(f"{'AB'[t]}{r}", [py, "-m", "archiver", "sync", "--config", str(cfg), "--json"],
                                      size, env, cwd=tree)
            if run.rc != 0:
                print(f"{'AB'[t]} run {r}: rc {run.rc}: {err[-500:]}")
                return 1
            cpu[t].append(run.cpu_seconds or 0.0)
            print(f"{'AB'[t]} run {r}: {run.seconds:6.2f} s wall {run.cpu_seconds:6.2f} CPU-s "
                  f"RSS {(run.rss_max_process or 0) / 1e6:.0f}/{(run.rss_max_tree or 0) / 1e6:.0f} MB", flush=True)
    for t, tree in enumerate(a.trees):
        print(f"{'AB'[t]} {tree}: median {statistics.median(cpu[t]):.2f} CPU-s  ({', '.join(f'{c:.2f}' for c in cpu[t])})")
    oa, ob = _objects(a.work / "run0"), _objects(a.work / "run1")
    sa, sb = _snapshot(a.work / "run0", keys), _snapshot(a.work / "run1", keys)
    same = oa == ob and sa == sb
    print(f"objects: A {len(oa)} B {len(ob)} only-A {len(oa - ob)} only-B {len(ob - oa)}; "
          f"snapshot sessions/redactions equal: {sa == sb}; IDENTICAL: {same}")
    return 0 if same else 2


if __name__ == "__main__":
    sys.exit(main())
