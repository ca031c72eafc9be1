"""Go/no-go probe: could one Hyperscan database over every rule replace the engine's RE2 gating?

    python bench/hs_prefilter_probe.py CONFIG SNAPSHOT_JSON [--mb 40] [--db-cache FILE]

CONFIG and SNAPSHOT_JSON as for bench/redact_corpus.py. The artifacts of the snapshot are
redacted as a worker does (`redact_file`) until --mb of source bytes are read, and every batch
the walkers hand to `Engine.scan_segments` is kept. Then, on those same batches, one process,
CPU seconds (process time):

* `scan_segments` as it is (the whole call: gates, passes, filters, overlap resolution);
* its replaceable regex work: the keyword Set pass, the weak groups' combined passes
  (`_weak_segments`) and the STRONG rules' passes over the joined batch;
* Hyperscan: compile time of one block-mode database over every rule's gate form (as the weak
  groups build them: `gate_form`, `cheap_unicode`, `multiline` (regex_rewrite.py); HS_FLAG_UTF8, and
  HS_FLAG_PREFILTER for a pattern Hyperscan cannot take exactly), its serialized size, the raw
  scan (HS_FLAG_SINGLEMATCH: almost no callbacks), the scan reporting every match end (what
  telling which strings a rule touches needs), and RE2 then running each touched rule on each
  touched string alone (`_collect`, exact by construction).

The database is compiled once and kept in --db-cache (keyed by a hash of the patterns), since
compiling ~440 patterns takes tens of CPU seconds. Needs the `hyperscan` wheel.

Measured (hyperscan 0.9.1, 439 rules, the 100 MB bench corpus /tmp/s11/c100ro, --mb 40: 14.1 MB
joined in 252 batches; two runs): scan_segments 1.51-1.69 CPU-s, of which the replaceable
passes 0.57-0.73; the Hyperscan raw scan alone 0.30 (47 MB/s: the database is large, with
bounded repeats); every match end 0.54-0.66 (300,000 ends, 239,000 of them home-linux) and RE2
on the 14,788 touched pairs 0.36-0.39. Ceiling 16-28% of scan_segments, the design 3-8%;
scan_segments is 42% of redaction+verify CPU (bench/redact_entry_cpu.py: 6.3 of 15.0 CPU-s), so
1-3% of it, far under the 20% bar. Compile 34-37 CPU-s (three rules take 30 s:
jwt-config-signing-key, terraform-random-password-result, azure-storage-key-list), 6 MB
serialized. No-go.
"""

from __future__ import annotations

import argparse
import bisect
import hashlib
import pickle
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cands_replay import capture_batches  # noqa: E402


def _database(eng: object, cache: Path | None) -> tuple[object, list[bytes], list[int], list[int], float, int]:
    import hyperscan as hs

    from archiver.redact.regex_rewrite import cheap_unicode, gate_form, multiline

    exprs: list[bytes] = []
    ids: list[int] = []
    for c in eng._c:  # type: ignore[attr-defined]
        if c.rx is None or c.terms:
            continue
        exprs.append(multiline(cheap_unicode(gate_form(c.rule.regex, c.sgroup))).encode())
        ids.append(c.idx)
    key = hashlib.sha256(b"\0".join(exprs)).hexdigest()
    if cache is not None and cache.exists():
        saved = pickle.loads(cache.read_bytes())
        if saved["key"] == key:
            db = hs.loadb(saved["db"], hs.HS_MODE_BLOCK)
            db.scratch = hs.Scratch(db)  # a loaded database has none
            return db, saved["exprs"], saved["ids"], saved["flags"], saved["compile_s"], len(saved["db"])
    flags: list[int] = []
    kept: list[int] = []
    for k, ex in enumerate(exprs):  # one by one first: a pattern refused exactly is tried as a prefilter,
        for fl in (hs.HS_FLAG_UTF8 | hs.HS_FLAG_ALLOWEMPTY,  # then left to RE2 (dropped here)
                   hs.HS_FLAG_UTF8 | hs.HS_FLAG_ALLOWEMPTY | hs.HS_FLAG_PREFILTER):
            try:
                hs.Database().compile(expressions=[ex], ids=[0], flags=[fl])
            except hs.error:
                continue
            flags.append(fl)
            kept.append(k)
            break
    if len(kept) < len(exprs):
        print(f"{len(exprs) - len(kept)} patterns Hyperscan refuses even as prefilters: left to RE2")
    exprs = [exprs[k] for k in kept]
    ids = [ids[k] for k in kept]
    t = time.process_time()
    db = hs.Database(mode=hs.HS_MODE_BLOCK)
    db.compile(expressions=exprs, ids=ids, flags=flags)
    compile_s = time.process_time() - t
    raw = hs.dumpb(db)
    if cache is not None:
        cache.write_bytes(pickle.dumps({"key": key, "db": raw, "exprs": exprs, "ids": ids, "flags": flags,
                                        "compile_s": compile_s}))
    return db, exprs, ids, flags, compile_s, len(raw)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("config", type=Path)
    ap.add_argument("snapshot", type=Path)
    ap.add_argument("--mb", type=float, default=40)
    ap.add_argument("--db-cache", type=Path)
    a = ap.parse_args()
    try:
        import hyperscan as hs
    except ImportError:
        print("the hyperscan wheel is not installed: nothing to probe")
        return 2
    from archiver.redact import engine as E
    from archiver.redact.re2scan import iter_spans

    eng, batches, read = capture_batches(a.config, a.snapshot, a.mb, verify=False)
    data = []
    for parts, _modes in batches:
        starts, pos = [], 0
        for p in parts:
            starts.append(pos)
            pos += len(p) + 1
        data.append((parts, b"\n".join(parts), starts))
    nbytes = sum(len(j) for _, j, _ in data)
    print(f"{read / 1e6:.1f} MB of artifacts, {len(batches)} batches, {sum(len(p) for p, _ in batches)} strings, "
          f"{nbytes / 1e6:.1f} MB joined")
    comp = eng._c  # type: ignore[attr-defined]

    t = time.process_time()
    for parts, modes in batches:
        eng.scan_segments(parts, modes)  # type: ignore[attr-defined]
    as_is = time.process_time() - t
    print(f"{'scan_segments (as is)':44s} {as_is:7.3f} CPU-s")
    t = time.process_time()
    for _parts, j, starts in data:
        kw, _images, _table = eng._keyword_hits(j)  # type: ignore[attr-defined]
        for g in (E.ALWAYS, E.COMMON):
            members = eng._groups[g]  # type: ignore[attr-defined]
            if members:
                eng._weak_segments(g, members, _parts, j, starts)  # type: ignore[attr-defined]
        for idx in kw:
            c = comp[idx]
            if c.group == E.STRONG and not c.terms:
                for _sp in iter_spans(c.rx_joined, j):
                    pass
    old = time.process_time() - t
    print(f"{'  of it: Set + weak passes + STRONG passes':44s} {old:7.3f} CPU-s")
    t = time.process_time()
    for parts, j, starts in data:
        kw, _images, _table = eng._keyword_hits(j)  # type: ignore[attr-defined]
        groups = eng._groups  # type: ignore[attr-defined]
        for g, members in ((E.COMMON, [i for i in groups[E.COMMON] if i in kw]), (E.ALWAYS, groups[E.ALWAYS])):
            if not members:
                continue
            for i, run in eng._weak_segments(g, members, parts, j, starts).items():  # type: ignore[attr-defined]
                eng._collect(parts[i], run)  # type: ignore[attr-defined]
    weak = time.process_time() - t
    print(f"{'  and the weak rules on their strings':44s} {weak:7.3f} CPU-s  (Set + weak passes again included)")

    db, exprs, ids, flags, compile_s, size = _database(eng, a.db_cache)
    pre = sum(1 for f in flags if f & hs.HS_FLAG_PREFILTER)
    print(f"hyperscan: {len(exprs)} patterns ({pre} as prefilters), compile {compile_s:.1f} CPU-s, "
          f"serialized {size / 1e6:.1f} MB")
    single = hs.Database(mode=hs.HS_MODE_BLOCK)
    t = time.process_time()
    single.compile(expressions=exprs, ids=ids, flags=[f | hs.HS_FLAG_SINGLEMATCH for f in flags])
    print(f"{'  compile (SINGLEMATCH)':44s} {time.process_time() - t:7.3f} CPU-s")
    n = [0]

    def count(*_a: object) -> None:
        n[0] += 1

    t = time.process_time()
    for _parts, j, _starts in data:
        single.scan(j, match_event_handler=count)
    raw = time.process_time() - t
    print(f"{'  raw scan (SINGLEMATCH)':44s} {raw:7.3f} CPU-s  {n[0]} events")
    t = time.process_time()
    touched: list[dict[int, list[int]]] = []
    events = 0
    for _parts, j, starts in data:
        ends: dict[int, set[int]] = defaultdict(set)

        def note(i: int, _f: int, to: int, _fl: int, _ctx: object, ends: dict[int, set[int]] = ends) -> None:
            ends[i].add(to)

        db.scan(j, match_event_handler=note)
        per: dict[int, list[int]] = defaultdict(list)
        for i, tos in ends.items():
            events += len(tos)
            for s in {bisect.bisect_right(starts, to - 1) - 1 for to in tos}:
                per[s].append(i)
        touched.append(per)
    ends_s = time.process_time() - t
    print(f"{'  scan, every match end, mapped to strings':44s} {ends_s:7.3f} CPU-s  {events} ends")
    t = time.process_time()
    pairs = 0
    for (parts, _j, _starts), per in zip(data, touched):
        for s, rules in per.items():
            pairs += len(rules)
            eng._collect(parts[s], sorted(rules))  # type: ignore[attr-defined]
    exact = time.process_time() - t
    print(f"{'  RE2 on touched (rule, string) pairs':44s} {exact:7.3f} CPU-s  {pairs} pairs")
    # the ceiling: the replaceable RE2 work gone, only the raw scan paid (no callbacks, no exact pass)
    print(f"ceiling of the saving on scan_segments (replaceable work gone, only the raw scan paid): "
          f"{(old - raw) / as_is:.0%}")
    print(f"this design, saved on scan_segments: {(old + weak - ends_s - exact) / as_is:.0%} "
          f"(old: Set, weak and STRONG passes, weak rules on their strings; new: scan with every match end, "
          f"RE2 on touched pairs; an overestimate: the old weak figure counts the Set and weak passes twice)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
