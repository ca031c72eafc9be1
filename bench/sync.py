#!/usr/bin/env python3
"""Sync benchmark: `archiver sync` against restic and the zstd floor, on one corpus.

    python bench/sync.py                          # 300 MB corpus, moto S3 on 127.0.0.1, 10,000-session scan test
    python bench/sync.py --mb 100 --sessions 2000 # smaller
    python bench/sync.py --corpus DIR             # reuse a corpus from bench/corpus.py (the 1% append grows it!)
    python bench/sync.py --store file             # file:// store instead of moto
    python bench/sync.py --mb 1200 --big-transcript-mb 1000 --huge-line-mb 100 --skip-restic --sessions 0
                                                  # the memory case: 1 GB transcript, one 100 MB line

Runs, in this order and on the same bytes:
  zstd -3 (tar | zstd -3, one thread and all threads): the floor
  archiver sync cold, archiver sync again (nothing changed)
  archiver sync cold with redaction replaced by a copy (bench/sync_without_redaction.py, its own
  store and state; `--skip-floor` skips it): what the rest of the pipeline costs on its own
  restic backup cold and warm (Debian `restic`, a local repository, compression auto)
  append 1% to the transcripts, then archiver sync and restic backup again
  unchanged re-sync of many tiny sessions at N/4 and N (`--sessions N`): time must grow no
  faster than the number of sessions, and stay under 2 s at 10,000

Each archiver/restic run is its own subprocess; peak memory is read two ways: the largest
single process's RSS (GNU time %M; pool workers included) and the whole process tree's
PSS (sampled from /proc every 50 ms; shared pages counted once). MB are 10^6 bytes; MB/s is corpus bytes over wall time. Files
are read from the page cache in every run (the corpus was just written), for all tools alike.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import corpus as corpus_mod  # noqa: E402  (bench/corpus.py)

MB = 1_000_000
PAGE = os.sysconf("SC_PAGE_SIZE")
_HARNESS_ENV = ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "CURSOR_CONFIG_DIR", "CURSOR_DATA_DIR", "PI_CODING_AGENT_DIR",
                "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "ARCHIVER_CONFIG", "ARCHIVER_TEAM_KEY",
                "ARCHIVER_IDENTITY_FILE", "AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_ENDPOINT_URL")


@dataclass
class Run:
    name: str
    seconds: float
    input_bytes: int
    rc: int = 0
    uploaded: int | None = None  # bytes sent (archiver) / repository growth (restic) / compressed size (zstd)
    rss_max_process: int | None = None  # bytes
    rss_max_tree: int | None = None  # bytes
    cpu_seconds: float | None = None
    note: str = ""
    detail: dict[str, Any] = field(default_factory=dict)
    # at the whole tree's peak: (role, pid, PSS bytes) per process, largest first
    peak_parts: list[tuple[str, int, int]] = field(default_factory=list)

    @property
    def mbps(self) -> float:
        return self.input_bytes / MB / self.seconds if self.seconds > 0 else float("inf")


# ================================================================ process measurement
def _pss(pid: int) -> int:
    """Proportional set size (shared pages split between their users), falling back to RSS."""
    try:
        with open(f"/proc/{pid}/smaps_rollup", "rb") as f:
            for line in f:
                if line.startswith(b"Pss:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError):
        pass
    try:
        with open(f"/proc/{pid}/statm", "rb") as f:
            return int(f.read().split()[1]) * PAGE
    except (OSError, ValueError, IndexError):
        return 0


TICK = os.sysconf("SC_CLK_TCK")


def _tree_sample(root: int, cpu: dict[int, float], rss: dict[int, int],
                 parts: dict[int, int] | None = None) -> int:
    """Memory of `root` and all its descendants (sum of PSS), from /proc; records each
    process's CPU seconds so far in `cpu` and its largest RSS in `rss` (pool workers are not
    reaped by our child, so neither would show in its rusage), and, given `parts`, each
    process's PSS in this sample."""
    children: dict[int, list[int]] = {}
    times: dict[int, float] = {}
    resident: dict[int, int] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as f:
                stat = f.read()
            fields = stat[stat.rindex(b")") + 2:].split()
            pid = int(entry.name)
            children.setdefault(int(fields[1]), []).append(pid)
            times[pid] = (int(fields[11]) + int(fields[12])) / TICK
            resident[pid] = int(fields[21]) * PAGE
        except (OSError, ValueError, IndexError):
            continue
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        pss = _pss(pid)
        total += pss
        if parts is not None:
            parts[pid] = pss
        cpu[pid] = max(cpu.get(pid, 0.0), times.get(pid, 0.0))
        rss[pid] = max(rss.get(pid, 0), resident.get(pid, 0))
        todo.extend(children.get(pid, ()))
    return total


def _roles(pids: Iterable[int]) -> dict[int, str]:
    """What each process of an archiver run is, from its command line and parent: `time`,
    parent (the archiver itself), resource tracker, worker (a spawned pool process, or a forkserver
    child), forkserver."""
    roles: dict[int, str] = {}
    ppid: dict[int, int] = {}
    for pid in pids:
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
            stat = Path(f"/proc/{pid}/stat").read_bytes()
            ppid[pid] = int(stat[stat.rindex(b")") + 2:].split()[1])
        except (OSError, ValueError, IndexError):
            roles[pid] = "gone"
            continue
        roles[pid] = ("forkserver" if b"multiprocessing.forkserver" in cmd
                      else "resource tracker" if b"resource_tracker" in cmd
                      else "worker" if b"multiprocessing.spawn" in cmd
                      else "time" if cmd.startswith(b"/usr/bin/time")
                      else "parent")
    for pid, role in roles.items():
        if role == "forkserver" and roles.get(ppid.get(pid, 0)) == "forkserver":
            roles[pid] = "worker"
    return roles


TIME = "/usr/bin/time" if os.access("/usr/bin/time", os.X_OK) else None


def measure(name: str, argv: list[str], input_bytes: int, env: dict[str, str], cwd: Path | None = None) -> tuple[Run, str, str]:
    """Run argv; wall time, exit code, peak memory (largest process; whole tree), CPU time.

    The largest-process figure is the larger of GNU time's %M (a child forked from this
    Python process would inherit its high-water mark across exec, so wait4 here would
    overstate it) and the RSS sampled per process (pool workers, reaped by no one we wait for)."""
    out_f = tempfile.TemporaryFile()
    err_f = tempfile.TemporaryFile()
    tfile = tempfile.NamedTemporaryFile(prefix="bench-time-", delete=False)
    tfile.close()
    cmd = [TIME, "-f", "%M %U %S", "-o", tfile.name, *argv] if TIME else argv
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=out_f, stderr=err_f, env=env, cwd=cwd)
    peak = [0]
    cpu_seen: dict[int, float] = {}
    rss_seen: dict[int, int] = {}
    peak_parts: dict[int, int] = {}
    roles: dict[int, str] = {}
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            parts: dict[int, int] = {}
            total = _tree_sample(proc.pid, cpu_seen, rss_seen, parts)
            if total > peak[0]:
                peak[0] = total
                peak_parts.clear()
                peak_parts.update(parts)
                # while they live, and again at each new peak: a pid first seen before its exec, or
                # a worker born after its fork server was read, would keep a wrong role
                roles.update(_roles(parts))
            done.wait(0.05)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    done.set()
    sampler.join()
    proc.returncode = os.waitstatus_to_exitcode(status)
    maxrss, cpu = None, usage.ru_utime + usage.ru_stime
    try:
        fields = Path(tfile.name).read_text().split()
        maxrss, cpu = int(fields[-3]) * 1024, float(fields[-2]) + float(fields[-1])
    except (OSError, ValueError, IndexError):
        pass
    finally:
        os.unlink(tfile.name)
    cpu = max(cpu, sum(cpu_seen.values()))
    maxrss = max(maxrss or 0, max(rss_seen.values(), default=0)) or None
    out_f.seek(0)
    err_f.seek(0)
    stdout, stderr = out_f.read().decode(errors="replace"), err_f.read().decode(errors="replace")
    run = Run(name, seconds, input_bytes, rc=proc.returncode, rss_max_process=maxrss,
              rss_max_tree=peak[0] or None, cpu_seconds=cpu,
              peak_parts=sorted(((roles.get(p, "?"), p, n) for p, n in peak_parts.items()), key=lambda x: -x[2]))
    return run, stdout, stderr


def zstd_floor(home: Path, input_bytes: int, threads: int) -> Run:
    """tar | zstd -3: the same bytes through the compressor alone."""
    start = time.perf_counter()
    tar = subprocess.Popen(["tar", "-C", str(home), "-cf", "-", "."], stdout=subprocess.PIPE)
    z = subprocess.Popen(["zstd", "-3", f"-T{threads}", "-q", "-c"], stdin=tar.stdout, stdout=subprocess.PIPE)
    assert tar.stdout is not None and z.stdout is not None
    tar.stdout.close()
    size = 0
    while chunk := z.stdout.read(1 << 20):
        size += len(chunk)
    z.wait()
    tar.wait()
    return Run(f"zstd -3 -T{threads}", time.perf_counter() - start, input_bytes, rc=z.returncode, uploaded=size,
               note=f"ratio {input_bytes / max(1, size):.2f}x")


# ================================================================ the archiver set-up
def child_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _HARNESS_ENV and not k.startswith("ARCHIVER_")}
    env.update({"AWS_ACCESS_KEY_ID": "bench", "AWS_SECRET_ACCESS_KEY": "bench", "AWS_DEFAULT_REGION": "us-east-1",
                "AWS_CONFIG_FILE": "/nonexistent/aws-config", "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent/aws-credentials",
                "AWS_EC2_METADATA_DISABLED": "true", "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost",
                "PYTHONPATH": str(ROOT) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")})
    env.update(extra or {})
    return env


@contextmanager
def store(kind: str, work: Path) -> Iterator[tuple[str, str | None, str]]:
    """Yields (url_base, endpoint, description). url_base + '/<name>' is a fresh archive."""
    if kind == "file":
        base = work / "store"
        base.mkdir(mode=0o700)
        yield f"file://{base}", None, f"file:// store in {base}"
        return
    for k, v in child_env().items():  # the moto server and boto3 in this process too
        if k.startswith("AWS_") or k.lower() == "no_proxy":
            os.environ[k] = v
    from archiver.demo.run import embedded_s3

    with embedded_s3() as endpoint:
        import boto3

        boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1").create_bucket(Bucket="archiver-bench")
        yield "s3://archiver-bench", endpoint, f"S3: moto ThreadedMotoServer on {endpoint} (in the bench process, HTTP on loopback)"


def write_config(path: Path, home: Path, users: list[str], keys: Path, url: str, endpoint: str | None, state: Path) -> None:
    store = f'url = "{url}"\n' + (f'endpoint_url = "{endpoint}"\nregion = "us-east-1"\n' if endpoint else "")
    path.write_text(
        f'home = "{home}"\nhost = "bench-host"\n\n'
        f'[redaction]\nteam_key_file = "{keys / "team.key"}"\nusernames = {json.dumps(users)}\n\n'
        f'[encryption]\nrecipients_file = "{keys / "recipient.txt"}"\n\n'
        f"[store]\n{store}\n"
        f'[state]\ndir = "{state}"\n'
    )


def archiver_sync(name: str, config: Path, input_bytes: int, env: dict[str, str], redaction: bool = True) -> Run:
    cmd = ([sys.executable, "-m", "archiver", "sync", "--config", str(config), "--json"] if redaction
           else [sys.executable, str(ROOT / "bench" / "sync_without_redaction.py"), str(config)])
    run, out, err = measure(name, cmd, input_bytes, env, cwd=ROOT)
    try:
        doc = json.loads(out)
    except ValueError:
        run.note = f"no JSON result (rc {run.rc}): {err.strip()[-300:]}"
        return run
    run.uploaded = int(doc.get("bytes", {}).get("uploaded", 0))
    s = doc.get("sessions", {})
    run.detail = {"sessions": s, "bytes": doc.get("bytes"), "objects_uploaded": doc.get("objects_uploaded"),
                  "errors": len(doc.get("errors") or []), "snapshot": doc.get("snapshot")}
    run.note = (f"{s.get('total', 0)} sessions: {s.get('uploaded', 0)} up, {s.get('unchanged', 0)} same, "
                f"{s.get('failed', 0)} failed")
    if doc.get("errors"):
        run.note += f"; {len(doc['errors'])} errors (first: {str(doc['errors'][0])[:120]})"
    return run


def du(path: Path) -> int:
    return corpus_mod.du(path)[0]


def restic_backup(name: str, repo: Path, home: Path, input_bytes: int, env: dict[str, str]) -> Run:
    before = du(repo)
    run, _, err = measure(name, ["restic", "-r", str(repo), "backup", "--quiet", str(home)], input_bytes, env)
    run.uploaded = du(repo) - before
    if run.rc != 0:
        run.note = f"restic failed: {err.strip()[-300:]}"
    return run


# ================================================================ report
def _mb(n: int | None) -> str:
    return "-" if n is None else f"{n / MB:,.1f}"


def table(runs: list[Run], restic_cold: Run | None, zstd: Run | None) -> str:
    head = ("run", "wall s", "MB/s", "vs restic", "vs zstd-3", "out MB", "RSS MB (max proc)", "PSS MB (tree)", "CPU s", "notes")
    rows = []
    for r in runs:
        main = r.name.startswith(("archiver sync", "restic backup"))
        vs_restic = f"{r.mbps / restic_cold.mbps:.2f}x" if restic_cold and main else ""
        vs_zstd = f"{r.mbps / zstd.mbps:.2f}x" if zstd and (main or r.name.startswith("zstd")) else ""
        rows.append((r.name, f"{r.seconds:.2f}", f"{r.mbps:,.1f}", vs_restic, vs_zstd, _mb(r.uploaded),
                     _mb(r.rss_max_process), _mb(r.rss_max_tree),
                     "-" if r.cpu_seconds is None else f"{r.cpu_seconds:.1f}", r.note))
    widths = [max(len(h), *(len(row[i]) for row in rows)) for i, h in enumerate(head)]
    widths[-1] = len(head[-1])
    fmt = lambda cells: "  ".join(c.ljust(w) if i in (0, 9) else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths)))  # noqa: E731
    lines = [fmt(head), fmt(tuple("-" * w for w in widths))]
    lines += [fmt(row) for row in rows]
    return "\n".join(lines)


# ================================================================ main
def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="archiver sync vs restic vs zstd -3, on one generated corpus")
    p.add_argument("--mb", type=float, default=300, help="corpus size in MB (default 300)")
    p.add_argument("--corpus", help="reuse a corpus made by bench/corpus.py (made there if empty)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--store", choices=("s3", "file"), default="s3", help="s3 = moto on 127.0.0.1 (default), file = file://")
    p.add_argument("--sessions", type=int, default=10_000, help="tiny sessions for the unchanged re-sync test (0: skip)")
    p.add_argument("--skip-restic", action="store_true")
    p.add_argument("--skip-floor", action="store_true",
                   help="skip the cold sync with redaction replaced by a copy (the pipeline's own floor)")
    p.add_argument("--append", type=float, default=0.01, help="fraction appended to transcripts (default 0.01)")
    p.add_argument("--big-transcript-mb", type=float, default=0)
    p.add_argument("--huge-line-mb", type=float, default=0)
    p.add_argument("--workdir", help="parent of the temporary folder (default: system temp)")
    p.add_argument("--keep", action="store_true", help="keep the temporary folder")
    p.add_argument("--json-out", help="also write all figures as JSON here")
    args = p.parse_args(argv)

    work = Path(tempfile.mkdtemp(prefix="archiver-bench-", dir=args.workdir))
    os.chmod(work, 0o700)
    log = lambda m: print(m, flush=True)  # noqa: E731
    results: dict[str, Any] = {"runs": [], "checks": {}}
    try:
        cdir = Path(args.corpus) if args.corpus else work / "corpus"
        if not (cdir / "corpus.json").exists():
            cdir.mkdir(parents=True, exist_ok=True)
            corpus_mod.generate(cdir, args.mb, seed=args.seed, big_transcript_mb=args.big_transcript_mb,
                                huge_line_mb=args.huge_line_mb, log=log)
        info = corpus_mod.load(cdir)
        home = cdir / info["home"]
        total = corpus_mod.du(home)[0]
        log(f"corpus: {cdir} — {total / MB:.1f} MB, {info['files']} files, harnesses: "
            + ", ".join(f"{h} {v['bytes'] / MB:.0f} MB" for h, v in info["harnesses"].items()))
        results["corpus"] = {"dir": str(cdir), "bytes": total, "files": info["files"]}
        env = child_env()
        # An installed archiver (pip, the Docker image) has its bytecode; a checkout run with
        # PYTHONDONTWRITEBYTECODE=1 would compile every module on every run (~0.4 CPU-s, a quarter
        # of an unchanged re-sync of 10,000 sessions). Compiled once here, as an install would.
        compiled = subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "archiver")],
                                  capture_output=True, text=True)
        log("bytecode: " + ("archiver/ compiled, as an installed package has it" if compiled.returncode == 0
                            else f"not compiled ({compiled.stderr.strip()[-200:]})"))
        runs: list[Run] = []

        def show(r: Run) -> Run:
            runs.append(r)
            log(f"  {r.name:<28} {r.seconds:7.2f} s  {r.mbps:8.1f} MB/s  out {_mb(r.uploaded)} MB  "
                f"RSS {_mb(r.rss_max_process)}/{_mb(r.rss_max_tree)} MB  {r.note}")
            if r.peak_parts:
                log("    at the tree's peak (PSS MB): " + ", ".join(f"{role} {_mb(n)}" for role, _, n in r.peak_parts))
            return r

        have_zstd = shutil.which("zstd") is not None
        z1 = show(zstd_floor(home, total, 1)) if have_zstd else None
        if have_zstd:
            show(zstd_floor(home, total, 0))

        with store(args.store, work) as (url_base, endpoint, desc):
            log(f"store: {desc}")
            results["store"] = desc
            keys = work / "keys"
            from archiver.crypto.keys import keygen

            keygen(keys)
            cfg = work / "config.toml"
            write_config(cfg, home, info["users"], keys, f"{url_base}/size", endpoint, work / "state")
            cold = show(archiver_sync("archiver sync cold", cfg, total, env))
            warm = show(archiver_sync("archiver sync unchanged", cfg, total, env))
            floor = None
            if not args.skip_floor:
                fcfg = work / "config-floor.toml"
                write_config(fcfg, home, info["users"], keys, f"{url_base}/floor", endpoint, work / "state-floor")
                floor = show(archiver_sync("archiver sync cold, no redaction", fcfg, total, env, redaction=False))

            restic_cold = None
            renv = child_env({"RESTIC_PASSWORD": "bench", "RESTIC_CACHE_DIR": str(work / "restic-cache")})
            repo = work / "restic-repo"
            if not args.skip_restic and shutil.which("restic"):
                subprocess.run(["restic", "-r", str(repo), "init", "--repository-version", "2"], env=renv,
                               check=True, capture_output=True)
                restic_cold = show(restic_backup("restic backup cold", repo, home, total, renv))
                show(restic_backup("restic backup unchanged", repo, home, total, renv))
            elif not args.skip_restic:
                log("restic: not installed (apt-get install -y restic); skipped")

            grown = corpus_mod.append(cdir, args.append, seed=args.seed + 1)
            total2 = corpus_mod.du(home)[0]
            log(f"appended {grown['bytes'] / MB:.2f} MB ({args.append:.0%}) to {grown['files']} transcripts; "
                f"zstd -3 of the appended bytes: {grown['compressed'] / MB:.2f} MB")
            app = show(archiver_sync("archiver sync after append", cfg, total2, env))
            if restic_cold is not None:
                show(restic_backup("restic backup after append", repo, home, total2, renv))
            ratio = (app.uploaded or 0) / max(1, grown["compressed"])
            results["checks"]["append_upload_vs_compressed_appended"] = {
                "appended": grown["bytes"], "appended_zstd3": grown["compressed"], "uploaded": app.uploaded,
                "ratio": round(ratio, 2), "target": "< 2.0", "ok": ratio < 2.0}

            scaling: list[dict[str, Any]] = []
            if args.sessions:
                for n in sorted({max(1, args.sessions // 4), args.sessions}):
                    tdir = work / f"tiny-{n}"
                    tdir.mkdir()
                    tinfo = corpus_mod.generate_tiny(tdir, n, seed=args.seed, log=lambda m: None)
                    tbytes = tinfo["bytes"]
                    tcfg = work / f"config-tiny-{n}.toml"
                    write_config(tcfg, tdir / "home", tinfo["users"], keys, f"{url_base}/tiny-{n}", endpoint, work / f"state-tiny-{n}")
                    c = show(archiver_sync(f"{n} sessions cold", tcfg, tbytes, env))
                    w = show(archiver_sync(f"{n} sessions unchanged", tcfg, tbytes, env))
                    scaling.append({"sessions": n, "cold_seconds": round(c.seconds, 3), "unchanged_seconds": round(w.seconds, 3),
                                    "found": (w.detail.get("sessions") or {}).get("total")})
                    shutil.rmtree(tdir / "home", ignore_errors=True)
                results["checks"]["unchanged_resync_scaling"] = scaling

        restic_warm = next((r for r in runs if r.name == "restic backup unchanged"), None)
        log("")
        log(f"store: {results['store']}")
        log(table(runs, restic_cold, z1))
        log("")
        if restic_cold:
            rr = cold.mbps / restic_cold.mbps
            results["checks"]["cold_vs_restic"] = {"ratio": round(rr, 2), "target": ">= 0.5", "ok": rr >= 0.5}
            log(f"cold sync vs restic cold: {rr:.2f}x restic's throughput (target >= 0.5x)"
                f"{'' if rr >= 0.5 else '  MISSED'}")
            if cold.cpu_seconds and restic_cold.cpu_seconds:
                # wall time on a shared 2-core machine swings with load; CPU seconds much less
                a_cpu = cold.input_bytes / MB / cold.cpu_seconds
                r_cpu = restic_cold.input_bytes / MB / restic_cold.cpu_seconds
                results["checks"]["cold_vs_restic_per_cpu_second"] = {"archiver": round(a_cpu, 2),
                                                                      "restic": round(r_cpu, 2),
                                                                      "ratio": round(a_cpu / r_cpu, 3)}
                log(f"cold sync per CPU-second: archiver {a_cpu:.1f} MB, restic {r_cpu:.1f} MB ({a_cpu / r_cpu:.2f}x); "
                    f"archiver used {cold.cpu_seconds / cold.seconds:.2f} cores on average")
            if restic_warm:
                log(f"unchanged: archiver {warm.seconds:.2f} s, restic {restic_warm.seconds:.2f} s")
        if floor is not None:
            share = 1 - floor.seconds / cold.seconds if cold.seconds else 0.0
            results["checks"]["pipeline_floor"] = {"seconds": round(floor.seconds, 2), "cpu_seconds": floor.cpu_seconds,
                                                   "redaction_share_of_cold_wall": round(share, 3)}
            log(f"pipeline floor (cold sync, redaction replaced by a copy; bench only): {floor.seconds:.2f} s, "
                f"{floor.mbps:.1f} MB/s" + (f", {floor.mbps / restic_cold.mbps:.2f}x restic" if restic_cold else "")
                + f"; redaction and its re-scan are {share:.0%} of the cold sync's wall time")
        if z1:
            log(f"cold sync vs zstd -3 (one thread): {cold.mbps / z1.mbps:.2f}x")
        chk = results["checks"]["append_upload_vs_compressed_appended"]
        log(f"append 1%: uploaded {_mb(chk['uploaded'])} MB for {_mb(chk['appended'])} MB appended "
            f"({_mb(chk['appended_zstd3'])} MB at zstd -3): {chk['ratio']:.2f}x the compressed bytes (target < 2x)"
            f"{'' if chk['ok'] else '  MISSED'}")
        peak = max((r.rss_max_tree or 0) for r in runs if r.name.startswith("archiver"))
        results["checks"]["archiver_peak_rss_tree"] = peak
        log(f"archiver peak RSS: {_mb(max((r.rss_max_process or 0) for r in runs if r.name.startswith('archiver')))} MB "
            f"largest process, {_mb(peak)} MB whole tree (target < 300 MB with a 1 GB transcript and a 100 MB line)")
        if len(scaling) == 2:
            a, b = scaling
            t_ratio = b["unchanged_seconds"] / max(1e-9, a["unchanged_seconds"])
            n_ratio = b["sessions"] / a["sessions"]
            ok_time = b["unchanged_seconds"] < 2.0 if b["sessions"] >= 10_000 else None
            results["checks"]["unchanged_resync_ratio"] = {"time_ratio": round(t_ratio, 2), "sessions_ratio": n_ratio,
                                                           "ok": t_ratio <= n_ratio * 1.1, "under_2s_at_10k": ok_time}
            log(f"unchanged re-sync: {a['sessions']} sessions {a['unchanged_seconds']:.2f} s, {b['sessions']} sessions "
                f"{b['unchanged_seconds']:.2f} s: time x{t_ratio:.2f} for sessions x{n_ratio:.0f} "
                f"({'no faster than sessions' if t_ratio <= n_ratio * 1.1 else 'GROWS FASTER than sessions'})"
                + ("" if ok_time is None else f"; {'under' if ok_time else 'OVER'} 2 s at {b['sessions']}"))
        results["runs"] = [dict(asdict(r), mbps=round(r.mbps, 2)) for r in runs]
        if args.json_out:
            Path(args.json_out).write_text(json.dumps(results, indent=1, default=str))
    finally:
        if args.keep:
            log(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
