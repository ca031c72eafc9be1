"""Redaction throughput: this engine vs presidio's pattern recognizers vs detect-secrets.

    .venv/bin/python bench/redact.py [--mb 200] [--sample-mb 2] [--rules builtin:secrets,...]

Generates Claude-Code-like JSONL in memory (prompts, thinking blocks with signatures,
tool calls, Read/Bash/Grep/Edit results with code and home paths, file-history
snapshots, base64 screenshots, a few planted secrets), then measures on one core:

1. this engine's JSONL redaction (`RuleRedactor.redact_jsonl_line`) on all of it;
2. presidio AnalyzerEngine with pattern recognizers only (offline, blank spaCy) on
   the decoded strings of a sample, extrapolated to MB/s of JSONL;
3. detect-secrets (`scan_line` with its default plugins) on the lines of a sample.

Prints the three figures (best of --repeat runs for the engine; CPU time of this process, so other load on the machine
does not count), the engine/presidio ratio (target >= 100x) and whether
the 60 MB/s target is met. Nothing is written outside a private temp dir.
"""

from __future__ import annotations

import argparse
import base64
import gc
import hashlib
import random
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any, Iterator

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from archiver.redact.base import RedactionReport  # noqa: E402
from archiver.redact.redactor import build_redactor  # noqa: E402
from archiver.redact.rules import RuntimeTerms  # noqa: E402

USER = "alice"
CWD = f"/home/{USER}/work/shop-api"
WORDS = ("the function returns a list of items when the cache is warm otherwise it falls back to "
         "reading the file from disk we should add a test for this case and refactor the parser "
         "config handler request response error retry timeout value order customer invoice").split()
IDENT = ("order", "customer", "invoice", "cache", "config", "parser", "handler", "session", "item", "price",
         "total", "user_id", "request", "response", "retry", "timeout", "payload", "result", "value")
SECRETS = (
    "AWS_ACCESS_KEY_ID=AKIAQYLPMN5HHHFPZAM2",
    "GITHUB_TOKEN=ghp_R8fJ2kLm9QwErTyUiOpAsDfGhJkLzXcVbN12",
    'OPENAI_API_KEY="sk-proj-Xk29fLmQ83nZpW0vTr7yUe4iOa1sDg6hJkLq2wErTy8uIo0pAs"',
    "SLACK_BOT_TOKEN=xoxb-2918374650-1029384756102-AbCdEfGhIjKlMnOpQrStUvWx",
    "contact billing: maria.gonzalez@northwind-traders.com",
    "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAq7BFUpkGp3+LQmlQ\nZx1Yc8vR2nT0kL3mW9pQ4sX7uE5aB6dC\n"
    "-----END RSA PRIVATE KEY-----",
)


def _id(rng: random.Random, prefix: str, n: int = 24) -> str:
    return prefix + base64.b32encode(rng.randbytes(n * 5 // 8 + 1)).decode().lower()[:n]


def _prose(rng: random.Random, lo: int, hi: int) -> str:
    return " ".join(rng.choices(WORDS, k=rng.randint(lo, hi)))


def _code_line(rng: random.Random, i: int) -> str:
    ind = "    " * rng.randint(0, 3)
    a, b = rng.choice(IDENT), rng.choice(IDENT)
    k = rng.random()
    if k < 0.15:
        return f"{ind}def {a}_{i}(self, {b}: str, limit: int = {rng.randint(1, 500)}) -> dict[str, Any]:"
    if k < 0.3:
        return f'{ind}return {{"{a}": self.{b}, "count": {rng.randint(0, 9999)}, "ok": True}}'
    if k < 0.38:
        return f"{ind}# {_prose(rng, 4, 12)}"
    if k < 0.45:
        return f'{ind}logger.info("{a} %s took %.2fms", {b}, elapsed * 1000)'
    if k < 0.5:
        return f"{ind}if {a} is None or len({b}) > {rng.randint(2, 64)}:"
    if k < 0.505:
        return f'{ind}DATA_DIR = Path("{CWD}/data/{a}")'
    return f"{ind}{a} = self.{b}({rng.choice(IDENT)}, timeout={rng.randint(1, 30)})"


def _read_result(rng: random.Random) -> str:
    return "\n".join(f"{i + 1:6}\u2192{_code_line(rng, i)}" for i in range(rng.randint(15, 350)))


def _bash_result(rng: random.Random) -> str:
    out = []
    for _ in range(rng.randint(5, 120)):
        k = rng.random()
        if k < 0.08:
            out.append(f'  File "{CWD}/src/{rng.choice(IDENT)}.py", line {rng.randint(1, 900)}, in {rng.choice(IDENT)}')
        elif k < 0.12:
            out.append(f"\x1b[32mPASSED\x1b[0m tests/test_{rng.choice(IDENT)}.py::test_{rng.choice(IDENT)}")
        elif k < 0.15:
            out.append(f"-rw-r--r-- 1 {USER} {USER} {rng.randint(100, 99999)} Nov 29 12:00 {rng.choice(IDENT)}.py")
        else:
            out.append(f"tests/test_{rng.choice(IDENT)}.py::test_{rng.choice(IDENT)}_{rng.randint(1, 99)} PASSED"
                       f" [{rng.randint(1, 100)}%]")
    return "\n".join(out)


def _grep_result(rng: random.Random) -> str:
    return "\n".join(f"{CWD}/src/{rng.choice(IDENT)}/{rng.choice(IDENT)}.py:{rng.randint(1, 800)}:"
                     f"    {_code_line(rng, 0).strip()}" for _ in range(rng.randint(3, 40)))


def _envelope(rng: random.Random, sid: str, typ: str) -> dict[str, Any]:
    return {"parentUuid": str(uuid.UUID(int=rng.getrandbits(128))), "isSidechain": False, "userType": "external",
            "cwd": CWD, "sessionId": sid, "version": "2.1.300", "gitBranch": "feature/invoices", "type": typ,
            "uuid": str(uuid.UUID(int=rng.getrandbits(128))), "timestamp": "2026-11-29T12:00:00.000Z"}


def _line(rng: random.Random, sid: str) -> dict[str, Any]:
    k = rng.random()
    if k < 0.12:
        d = _envelope(rng, sid, "user")
        d["message"] = {"role": "user", "content": _prose(rng, 5, 80)}
        return d
    if k < 0.47:
        d = _envelope(rng, sid, "assistant")
        d["requestId"] = _id(rng, "req_011C", 20)
        content: list[dict[str, Any]] = []
        if rng.random() < 0.4:
            content.append({"type": "thinking", "thinking": _prose(rng, 10, 250),
                            "signature": base64.b64encode(rng.randbytes(rng.randint(300, 1200))).decode()})
        content.append({"type": "text", "text": _prose(rng, 5, 200)})
        if rng.random() < 0.7:
            tool = rng.choice(("Read", "Bash", "Grep", "Edit"))
            inp: dict[str, Any] = {"file_path": f"{CWD}/src/{rng.choice(IDENT)}.py"}
            if tool == "Bash":
                inp = {"command": f"cd {CWD} && python -m pytest -q tests/", "description": "Run tests"}
            elif tool == "Grep":
                inp = {"pattern": rng.choice(IDENT), "path": CWD, "output_mode": "content"}
            elif tool == "Edit":
                inp["old_string"] = "\n".join(_code_line(rng, i) for i in range(rng.randint(2, 20)))
                inp["new_string"] = "\n".join(_code_line(rng, i) for i in range(rng.randint(2, 20)))
            content.append({"type": "tool_use", "id": _id(rng, "toolu_01"), "name": tool, "input": inp})
        d["message"] = {"id": _id(rng, "msg_01"), "type": "message", "role": "assistant",
                        "model": "claude-opus-4-5", "content": content, "stop_reason": None,
                        "usage": {"input_tokens": rng.randint(1, 9999), "output_tokens": rng.randint(1, 999),
                                  "cache_read_input_tokens": rng.randint(0, 99999)}}
        return d
    if k < 0.87:
        d = _envelope(rng, sid, "user")
        kind = rng.random()
        body = (_read_result(rng) if kind < 0.5 else _bash_result(rng) if kind < 0.75
                else _grep_result(rng) if kind < 0.9 else f"The file {CWD}/src/{rng.choice(IDENT)}.py has been "
                f"updated. Here's the result of running `cat -n`:\n{_read_result(rng)[:3000]}")
        if rng.random() < 0.02:
            body += "\n" + rng.choice(SECRETS)
        d["message"] = {"role": "user", "content": [{"tool_use_id": _id(rng, "toolu_01"), "type": "tool_result",
                                                     "content": body}]}
        d["toolUseResult"] = {"stdout": body[: len(body) // 3], "stderr": "", "interrupted": False}
        return d
    if k < 0.89:
        d = _envelope(rng, sid, "user")
        png = base64.b64encode(b"\x89PNG\r\n\x1a\n" + rng.randbytes(rng.randint(15_000, 110_000))).decode()
        d["message"] = {"role": "user", "content": [
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": png}},
            {"type": "text", "text": "here is a screenshot of the error"}]}
        return d
    if k < 0.94:
        return {"type": "file-history-snapshot", "messageId": str(uuid.UUID(int=rng.getrandbits(128))),
                "snapshot": {"messageId": str(uuid.UUID(int=rng.getrandbits(128))), "trackedFileBackups": {
                    f"{CWD}/src/{w}.py": {"backupFileName": hashlib.sha256(w.encode()).hexdigest()[:16] + "@v2",
                                         "version": 2, "backupTime": "2026-11-29T12:00:00.000Z"}
                    for w in rng.sample(IDENT, rng.randint(1, 8))}, "timestamp": "2026-11-29T12:00:00.000Z"},
                "isSnapshotUpdate": False}
    d = _envelope(rng, sid, "system")
    d["subtype"] = "informational"
    d["content"] = f"Running \x1b[1mnpm test\x1b[0m in {CWD}"
    return d


def generate(total_bytes: int, seed: int = 7) -> Iterator[bytes]:
    rng = random.Random(seed)
    sid = str(uuid.UUID(int=rng.getrandbits(128)))
    size = 0
    while size < total_bytes:
        line = orjson.dumps(_line(rng, sid))
        size += len(line) + 1
        yield line


def _strings(obj: Any, out: list[str]) -> None:
    if isinstance(obj, str):
        out.append(obj)
    elif isinstance(obj, dict):
        for k, v in obj.items():
            if k not in ("signature", "data"):
                _strings(v, out)
    elif isinstance(obj, list):
        for v in obj:
            _strings(v, out)


def bench_engine(lines: list[bytes], rules: list[str], tmp: Path, repeat: int
                 ) -> tuple[list[float], list[float], RedactionReport]:
    """MB/s of redact_file on a JSONL file and of redact_jsonl_line line by line, `repeat` times each
    (CPU time of this process: other load on a shared machine is not counted, though it still slows
    the caches), and the report of one run."""
    terms = RuntimeTerms(usernames=[USER], home_dirs=[f"/home/{USER}"])
    size = sum(len(x) + 1 for x in lines)
    src, dst = tmp / "session.jsonl", tmp / "session.out.jsonl"
    src.write_bytes(b"\n".join(lines) + b"\n")
    red = build_redactor(rules, b"bench-team-key-0123456789abcdef", terms)
    red.redact_jsonl_lines(lines[: max(1, len(lines) // 50)], RedactionReport())  # RE2 builds DFAs lazily
    file_runs: list[float] = []
    line_runs: list[float] = []
    report = line_report = RedactionReport()
    for _ in range(repeat):
        red.json._memo = ({}, {}, {})  # every run starts without remembered strings
        report = RedactionReport()
        gc.collect()
        t0 = time.process_time()
        red.redact_file(src, dst, "jsonl", report)
        file_runs.append(size / 1e6 / (time.process_time() - t0))
        red.json._memo = ({}, {}, {})
        line_report = RedactionReport()
        redact = red.redact_jsonl_line
        gc.collect()
        t0 = time.process_time()
        for line in lines:
            redact(line, line_report)
        line_runs.append(size / 1e6 / (time.process_time() - t0))
    if line_report.counts != report.counts:
        raise SystemExit("bench: line-by-line and file redaction disagree")
    return file_runs, line_runs, report


def bench_presidio(sample: list[bytes]) -> float:
    from archiver.redact.presidio_engine import DEFAULT_BUILTINS, PresidioOptions, build_analyzer

    analyzer, entities = build_analyzer(PresidioOptions(enabled=True, builtin=list(DEFAULT_BUILTINS),
                                                        entities=["EMAIL_ADDRESS", "PHONE_NUMBER", "CREDIT_CARD",
                                                                  "IBAN_CODE", "IP_ADDRESS"]))
    strings: list[str] = []
    for line in sample:
        _strings(orjson.loads(line), strings)
    size = sum(len(x) + 1 for x in sample)
    t0 = time.process_time()
    for s in strings:
        if s:
            analyzer.analyze(text=s, language="en", entities=entities)
    return size / 1e6 / (time.process_time() - t0)


def bench_detect_secrets(sample: list[bytes]) -> float:
    from detect_secrets.core.scan import scan_line
    from detect_secrets.settings import default_settings

    size = sum(len(x) + 1 for x in sample)
    with default_settings():
        t0 = time.process_time()
        for line in sample:
            for _ in scan_line(line.decode("utf-8", "replace")):
                pass
        return size / 1e6 / (time.process_time() - t0)


def _size(lines: list[bytes]) -> int:
    return sum(len(x) + 1 for x in lines)


def _prefix(lines: list[bytes], mb: float) -> list[bytes]:
    out: list[bytes] = []
    size = 0
    for line in lines:
        if size >= mb * 1e6:
            break
        out.append(line)
        size += len(line) + 1
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=float, default=200.0, help="MB of generated JSONL for the engine (default 200)")
    ap.add_argument("--sample-mb", type=float, default=2.0, help="MB given to presidio")
    ap.add_argument("--ds-sample-mb", type=float, default=0.5,
                    help="MB given to detect-secrets (it runs at ~0.1 MB/s on this data)")
    ap.add_argument("--rules", default="builtin:secrets,builtin:pii,builtin:paths")
    ap.add_argument("--repeat", type=int, default=3, help="engine runs (best and median are printed)")
    ap.add_argument("--skip-others", action="store_true", help="only measure this engine")
    args = ap.parse_args(argv)
    lines = list(generate(int(args.mb * 1e6)))
    size = sum(len(x) + 1 for x in lines)
    sample = _prefix(lines, args.sample_mb)
    s = _size(sample)
    with tempfile.TemporaryDirectory(prefix="archiver-bench-") as tmp:  # created 0700
        file_runs, line_runs, report = bench_engine(lines, args.rules.split(","), Path(tmp), args.repeat)
    engine_mbs, line_mbs = max(file_runs), max(line_runs)
    found = sum(report.by_rule().values())
    n_rules = len(build_redactor(args.rules.split(","), b"x" * 16, RuntimeTerms(usernames=[USER])).rules)
    print(f"generated: {size / 1e6:.1f} MB, {len(lines)} lines; rules: {args.rules} ({n_rules} rules)")
    print(f"engine, JSONL file redaction (redact_file, one core): {engine_mbs:8.1f} MB/s best of {args.repeat} "
          f"(median {statistics.median(file_runs):.1f})   "
          f"[{found} replacements, {found / (size / 1e6):.0f}/MB; top: "
          f"{', '.join(f'{k}={v}' for k, v in sorted(report.by_rule().items(), key=lambda kv: -kv[1])[:4])}]")
    print(f"engine, line by line (redact_jsonl_line):             {line_mbs:8.1f} MB/s best of {args.repeat} "
          f"(median {statistics.median(line_runs):.1f})")
    if args.skip_others:
        print(f"60 MB/s target: {'met' if engine_mbs >= 60 else 'NOT met'}")
        return 0
    presidio_mbs = bench_presidio(sample)
    print(f"presidio pattern recognizers (blank spaCy, {s / 1e6:.1f} MB sample): {presidio_mbs:8.3f} MB/s")
    ds_sample = _prefix(lines, args.ds_sample_mb)
    ds_mbs = bench_detect_secrets(ds_sample)
    print(f"detect-secrets scan_line (default plugins, {_size(ds_sample) / 1e6:.1f} MB sample): {ds_mbs:8.3f} MB/s")
    ratio = engine_mbs / presidio_mbs if presidio_mbs else float("inf")
    print(f"engine / presidio: {ratio:.0f}x (target >= 100x: {'met' if ratio >= 100 else 'NOT met'}); "
          f"engine / detect-secrets: {engine_mbs / ds_mbs:.0f}x")
    print(f"60 MB/s target: {'met' if engine_mbs >= 60 else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
