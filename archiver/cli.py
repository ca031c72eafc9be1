"""Command line: argument parsing and output only; the work happens in the services.

Exit codes: 0 ok; 1 finished but some sessions failed; 2 usage or config error;
3 integrity failure (verify, restore).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from pathlib import Path
from typing import Any, Callable

from archiver import __version__



def _no_pydantic_plugins() -> None:
    """The archiver uses no pydantic plugin. pydantic looks for them in every installed
    distribution's entry points, through importlib.metadata, whose import alone (the email
    package) is ~0.2 s of a run that finds nothing changed. With plugins disabled (the default
    here) its loader is replaced by one that finds none, which is what the real one answers then."""
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    if os.environ["PYDANTIC_DISABLE_PLUGINS"] != "__all__" or "pydantic.plugin._loader" in sys.modules:
        return
    import types

    loader = types.ModuleType("pydantic.plugin._loader")
    loader.get_plugins = lambda: ()  # type: ignore[attr-defined]
    sys.modules["pydantic.plugin._loader"] = loader


_no_pydantic_plugins()

EXIT_OK, EXIT_PARTIAL, EXIT_USAGE, EXIT_INTEGRITY = 0, 1, 2, 3


class UsageError(Exception):
    pass


class IntegrityFailure(Exception):
    """A reader cannot answer because part of the archive cannot be read (exit 3)."""


class Terminated(KeyboardInterrupt):
    """SIGTERM (systemctl stop, a unit's or a Job's deadline) during sync: unwound like Ctrl-C, so
    the run's temp folder and worker pool go, and metrics and `status` say it stopped (exit 143)."""


def _terminate_on_sigterm() -> Callable[[], None]:
    """Install the handler; returns what puts the previous one back."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    previous = signal.getsignal(signal.SIGTERM)

    def stop(signum: int, frame: object) -> None:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a second SIGTERM ends the process at once
        raise Terminated()

    signal.signal(signal.SIGTERM, stop)
    return lambda: signal.signal(signal.SIGTERM, previous)


# ---------------------------------------------------------------- output helpers
def emit_json(doc: Any) -> None:
    sys.stdout.write(json.dumps(doc, indent=2, sort_keys=False, default=str) + "\n")


def console():  # type: ignore[no-untyped-def]
    from rich.console import Console

    # piped output: wide lines rather than wrapped cells, so greps and diffs see whole values
    # markup off: titles, keys and paths come from the archive and are shown literally
    return Console(highlight=False, markup=False, width=None if sys.stdout.isatty() else 240)


_CONTROL = {c: None for c in list(range(0, 9)) + list(range(11, 32)) + [127] + list(range(0x80, 0xA0))}


def plain(text: object) -> str:
    """Text from the archive (titles, keys, paths, errors) as the terminal should show it:
    no control characters, so no escape sequences reach the reviewer's terminal."""
    return str(text).translate(_CONTROL)


_json_errors = False  # --log-format json: errors are log records too, so a collector's stderr parses


def err(msg: str) -> None:
    if _json_errors:
        logging.getLogger("archiver").error(str(msg).translate(_CONTROL))
        return
    sys.stderr.write(f"archiver: {str(msg).translate(_CONTROL)}\n")


# ---------------------------------------------------------------- shared plumbing
def settings_of(args: argparse.Namespace):  # type: ignore[no-untyped-def]
    from archiver.config import load_settings

    return load_settings(Path(args.config) if args.config else None)


# ---------------------------------------------------------------- commands
def cmd_keygen(args: argparse.Namespace) -> int:
    from archiver.crypto.keys import keygen

    try:
        files = keygen(Path(args.out), force=args.force)
    except FileExistsError as e:
        raise UsageError(f"{e}; use --force to replace") from None
    doc = {"identity": str(files.identity_file), "recipient": files.recipient,
           "recipient_file": str(files.recipient_file), "team_key": str(files.team_key_file)}
    if args.json:
        emit_json(doc)
    else:
        c = console()
        c.print(f"identity  (keep secret, reviewers only): {files.identity_file}")
        c.print(f"recipient (collectors):                  {files.recipient_file}  {files.recipient}")
        c.print(f"team key  (collectors, pseudonyms):      {files.team_key_file}")
    return EXIT_OK


def cmd_scan(args: argparse.Namespace) -> int:
    from archiver import runtime

    settings = settings_of(args)
    sessions = []
    errors = []
    for h in runtime.harnesses(settings, args.harness):
        try:
            sessions.extend(h.discover())
        except Exception as e:
            errors.append(f"{h.name}: {type(e).__name__}: {e}")
    doc = {
        "sessions": [
            {
                "key": s.key, "kind": s.kind, "title": s.title,
                "parents": [p.model_dump() for p in s.parents],
                "artifacts": [{"path": a.path, "role": a.role, "format": a.format, "mode": a.mode,
                               "size": _size(a.source)} for a in s.sources],
                "warnings": s.warnings,
            }
            for s in sessions
        ],
        "errors": errors,
    }
    if args.json:
        emit_json(doc)
    else:
        from rich.table import Table

        t = Table(title=f"{len(sessions)} sessions would be archived")
        for col in ("key", "kind", "files", "bytes", "parents"):
            t.add_column(col)
        for s in doc["sessions"]:
            t.add_row(plain(s["key"]), s["kind"], str(len(s["artifacts"])), str(sum(a["size"] for a in s["artifacts"])),
                      plain(", ".join(f"{p['relation']}→{p['parent']}" for p in s["parents"])))
        console().print(t)
        for e in errors:
            err(e)
    return EXIT_PARTIAL if errors else EXIT_OK


def _size(p: Path) -> int:
    try:
        return p.stat().st_size
    except OSError:
        return 0


def cmd_sync(args: argparse.Namespace) -> int:
    import time

    where: dict[str, Path] = {}  # the state dir, once the config names it
    started = time.time()
    restore_sigterm = _terminate_on_sigterm()
    try:
        return _sync(args, started, where)
    except BaseException as e:  # a run that died: `status` shows it, not the last good run
        if "state_dir" in where:
            _note_failure(args, where["state_dir"], started, _failure_reason(e))
        raise
    finally:
        restore_sigterm()


def _sync(args: argparse.Namespace, started: float, where: dict[str, Path]) -> int:
    import time

    from archiver import metrics, runtime
    from archiver.archive import Archive
    from archiver.lock import AlreadyRunning, RunLock
    from archiver.logs import use_json
    from archiver.progress import make_progress
    from archiver.state import DiscoveryCache, State, StateError, clear_failure
    from archiver.sync import Syncer, SyncOptions

    try:  # a run that stops before it starts (config, keys, state dir) is a failed run to the metrics too
        settings = settings_of(args)
        state_dir = settings.state_dir
        where["state_dir"] = state_dir
        keys = runtime.team_keys(settings)
        recipients = runtime.recipients(settings)
        redactor = LazyRedactor(settings, keys)
        archive = None if args.dry_run else Archive(runtime.store(settings, lazy=True))
        if args.workers < 1:
            raise UsageError("--workers must be at least 1")
        if args.metrics_file and not args.metrics_file.endswith(".prom"):
            logging.getLogger("archiver.sync").warning(
                "--metrics-file %s: node_exporter's textfile collector reads only *.prom files", args.metrics_file)
        lock = RunLock(state_dir / "lock")
        try:
            state_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
            lock.acquire()
        except AlreadyRunning as e:
            if args.json:
                emit_json({"skipped": True, "reason": str(e)})
            if use_json(args.log_format):  # a log collector parses stderr: one record, not a bare line
                logging.getLogger("archiver.sync").warning(
                    "another sync is running; nothing to do",
                    extra={"skipped": True, "running_pid": e.holder, "lock": str(e.path)})
            elif not args.json:
                console().print(f"another sync is running ({plain(e)}); nothing to do")
            return EXIT_OK
        except OSError as e:  # a state dir that cannot be made or written: one line, not a traceback
            return _sync_failed(args, f"state dir {state_dir}: {e.strerror or type(e).__name__}"
                                      f"{f' ({e.filename})' if e.filename else ''}", started, state_dir)
    except Exception:
        _failure_metrics(args, started)
        raise
    progress = make_progress(quiet=args.quiet, json_output=args.json, json_logs=args.log_format == "json")
    # tens of thousands of small objects (sessions, paths, cached rows) live for the whole run:
    # collect young garbage less often than every 700 allocations (the default)
    import gc

    saved_gc = gc.get_threshold()
    gc.set_threshold(max(saved_gc[0], 50_000), max(saved_gc[1], 20), max(saved_gc[2], 100))
    try:
        try:
            state = State(state_dir / ("state-dry.db" if args.dry_run else "state.db"))
        except StateError as e:
            return _sync_failed(args, str(e), started, state_dir)
        host_id = runtime.host(settings, keys)
        state.bind(settings.store.url, host_id)
        cache = DiscoveryCache(state)
        harnesses = runtime.harnesses(settings, args.harness, cache=cache)
        syncer = Syncer(
            harnesses=harnesses, redactor=redactor, archive=archive, state=state, recipients=recipients,
            object_id_key=keys.object_id, host_id=host_id, workdir_parent=state_dir / "tmp",
            options=SyncOptions(dry_run=args.dry_run, fail_closed=settings.redaction.fail_closed,
                                workers=args.workers,
                                redaction_fingerprint=redaction_fingerprint(settings, keys)),
            redactor_factory=runtime.redactor_factory(settings, keys),
            progress=progress,
        )
        try:
            with progress:
                result = syncer.run()
            if not args.dry_run:
                cache.flush()
        except StateError as e:
            return _sync_failed(args, str(e), started, state_dir)
        finally:
            state.close()
    except BaseException:
        _failure_metrics(args, started)  # (a metrics file it cannot write does not hide why the run failed)
        raise
    finally:
        gc.set_threshold(*saved_gc)
        lock.release()
    if not args.dry_run:
        clear_failure(state_dir)  # this run is in the state database: it is what status shows
    metrics_failed = False
    if args.metrics_file and not args.dry_run:
        try:
            metrics.write_metrics(Path(args.metrics_file), result.to_json(), started=started, finished=time.time())
        except OSError as e:  # the run is archived and recorded; the monitoring is what is broken
            err(f"--metrics-file {args.metrics_file}: cannot write it ({e.strerror or type(e).__name__})")
            metrics_failed = True
    logging.getLogger("archiver.sync").info(
        "sync finished", extra={"sessions": result.to_json()["sessions"], "bytes_uploaded": result.bytes_uploaded,
                                "snapshot": result.snapshot, "errors": len(result.errors)})
    if args.json:
        emit_json(result.to_json())
    elif not args.quiet:
        c = console()
        c.print(f"sessions: {result.total} total, {result.uploaded} uploaded, {result.unchanged} unchanged, {result.failed} failed")
        c.print(f"bytes: {result.bytes_read} read, {result.bytes_uploaded} uploaded ({result.objects_uploaded} objects)")
        if result.snapshot:
            c.print(f"snapshot: {result.snapshot}")
        if result.redactions:
            c.print("redactions: " + ", ".join(f"{k}={v}" for k, v in sorted(result.redactions.items())))
    for w in result.warnings:
        err(f"warning: {w}")
    for e in result.errors:
        err(e)
    return EXIT_PARTIAL if result.failed or result.errors or metrics_failed else EXIT_OK


class LazyRedactor:
    """The configured redactor, built (its rules compiled) on first use: a re-sync where
    nothing changed never needs it. `ready()` builds it now; Syncer calls it before it
    archives anything, so a rules error still stops the run before any session."""

    def __init__(self, settings: Any, keys: Any) -> None:
        import threading

        self._settings, self._keys = settings, keys
        self._real: Any = None
        self._build_lock = threading.Lock()

    def ready(self) -> Any:
        with self._build_lock:
            if self._real is None:
                from archiver import runtime

                self._real = runtime.redactor(self._settings, self._keys)
            return self._real

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name in ("_settings", "_keys", "_real", "_build_lock"):
            raise AttributeError(name)
        return getattr(self.ready(), name)


def redaction_fingerprint(settings: Any, keys: Any) -> str:
    """What redacted titles, warnings and paths depend on: the redaction settings, the rule
    packs' bytes, the runtime terms (OS user, HOME), the pseudonym key and this version.
    A session whose metadata is unchanged under the same fingerprint is not redacted again.
    (No redact module is imported for it: compiling the rules is what a re-sync avoids.)"""
    import getpass
    import hashlib

    import archiver

    try:
        user = getpass.getuser()
    except (KeyError, OSError):
        user = ""
    h = hashlib.sha256()
    for part in (__version__, settings.redaction.model_dump_json(), user, str(settings.home_dir)):
        h.update(part.encode() + b"\0")
    h.update(hashlib.sha256(keys.pseudonym).digest())
    package = Path(archiver.__file__).resolve().parent
    for spec in settings.redaction.rules:
        if spec.startswith("builtin:"):  # every place redact.rules.builtin_pack_path looks
            name = spec[len("builtin:"):]
            paths = [package / "rules" / f"{name}.toml", package.parent / "rules" / f"{name}.toml"]
        else:
            paths = [Path(spec).expanduser()]
        for path in paths:
            try:
                h.update(path.read_bytes())
            except (OSError, ValueError) as e:
                h.update(f"unreadable: {type(e).__name__}".encode())  # the redactor reports it when built
            h.update(b"\0")
    return h.hexdigest()


def _failure_metrics(args: argparse.Namespace, started: float) -> None:
    """--metrics-file of a run that failed as a whole; a metrics file that cannot be written
    does not hide why the run failed."""
    import time

    from archiver import metrics

    if args.metrics_file and not args.dry_run:
        try:
            metrics.write_metrics(Path(args.metrics_file), None, started=started, finished=time.time(), success=False)
        except OSError as e:
            err(f"--metrics-file {args.metrics_file}: cannot write it ({e.strerror or type(e).__name__})")


def _sync_failed(args: argparse.Namespace, reason: str, started: float, state_dir: Path | None = None) -> int:
    """A run that could not finish (state dir full, unreadable): one clear line, exit 1."""
    _failure_metrics(args, started)
    if state_dir is not None:
        _note_failure(args, state_dir, started, reason)
    if args.json:
        emit_json({"snapshot": None, "errors": [reason], "failed": True})
    err(reason)
    return EXIT_PARTIAL


def _failure_reason(e: BaseException) -> str:
    """What main() prints for an exception that ends a run, as one line."""
    from archiver.config import ConfigError
    from archiver.store.base import StoreError

    if isinstance(e, (UsageError, ConfigError)):
        return str(e)
    if isinstance(e, StoreError):
        return f"store: {e}"
    if isinstance(e, Terminated):
        return "terminated (SIGTERM)"
    if isinstance(e, KeyboardInterrupt):
        return "interrupted"
    if isinstance(e, SystemExit):
        return f"exited ({e.code})"
    return f"{type(e).__name__}: {e}"


def _note_failure(args: argparse.Namespace, state_dir: Path, started: float, reason: str) -> None:
    """Record a run that ended before it recorded itself, for `archiver status`."""
    import time
    from datetime import datetime, timezone

    from archiver.archive import iso_utc
    from archiver.state import record_failure

    if args.dry_run:
        return

    def iso(t: float) -> str:
        return iso_utc(datetime.fromtimestamp(t, timezone.utc))

    record_failure(state_dir, iso(started), iso(time.time()), plain(reason))


def cmd_redact(args: argparse.Namespace) -> int:
    import shutil
    import tempfile

    from archiver import runtime
    from archiver.redact.base import RedactionReport

    settings = settings_of(args)
    keys = runtime.team_keys(settings)
    redactor = runtime.redactor(settings, keys)
    src = Path(args.file)
    if not src.is_file():
        raise UsageError(f"{src}: not a file")
    fmt = args.format or _guess_format(src)
    report = RedactionReport()
    with tempfile.TemporaryDirectory(prefix="archiver-redact-") as tmp:
        os.chmod(tmp, 0o700)
        out = Path(tmp) / "out"
        redactor.redact_file(src, out, fmt, report)  # type: ignore[arg-type]
        with out.open("rb") as f:
            shutil.copyfileobj(f, sys.stdout.buffer)
    sys.stdout.flush()
    counts = report.by_rule()
    if counts:
        err("redactions: " + ", ".join(f"{k}={v}" for k, v in counts.items()))
    return EXIT_OK


def _guess_format(p: Path) -> str:
    name = p.name.lower()
    if name.endswith(".jsonl"):
        return "jsonl"
    if name.endswith(".json"):
        return "json"
    with p.open("rb") as f:
        head = f.read(16)
    if head.startswith(b"SQLite format 3\x00"):
        return "sqlite"
    return "text"


def cmd_rules(args: argparse.Namespace) -> int:
    from archiver.redact.factory import runtime_terms
    from archiver.redact.redactor import build_redactor
    from archiver.redact.rules import RuleError
    from archiver.redact.scan_report import check_examples, list_rules, scan_file

    settings = settings_of(args)
    try:
        # rule ids, counts and places only: a throwaway pseudonym key is enough
        redactor = build_redactor(settings.redaction.rules, b"archiver-rules-cli-0000000000000",
                                  runtime_terms(settings), None)
    except RuleError as e:
        raise UsageError(str(e)) from None
    if args.rules_cmd == "list":
        rules = list_rules([*redactor.rules, *redactor.engine.pass_rules])
        problems = check_examples(redactor.rules)
        if args.json:
            emit_json({"rules": rules, "example_problems": problems})
        else:
            from rich.table import Table

            t = Table(title=f"{len(rules)} rules")
            for col in ("id", "pack", "label", "confidence", "description"):
                t.add_column(col)
            for r in rules:
                t.add_row(r["id"], r["pack"], r["label"], r["confidence"], r["description"])
            console().print(t)
            for p in problems:
                err(p)
        return EXIT_USAGE if problems else EXIT_OK
    path = Path(args.file)
    if not path.is_file():
        raise UsageError(f"{path}: not a file")
    fmt = _guess_format(path)
    findings = scan_file(redactor, path, fmt)  # type: ignore[arg-type]
    doc = {"file": str(path), "format": fmt,
           "hits": [{"where": f.where, "rule": f.rule_id, "carrier": f.carrier, "count": f.count} for f in findings]}
    if args.json:
        emit_json(doc)
    else:
        c = console()
        for f in findings:
            c.print(f"{path}: {f.where}: {f.rule_id} ({f.carrier}) x{f.count}")
        c.print(f"{sum(f.count for f in findings)} matches")
    return EXIT_OK


def cmd_demo(args: argparse.Namespace) -> int:
    from archiver.demo.run import run_demo

    out = run_demo(Path(args.dir).absolute() if args.dir else None, log=lambda m: console().print(m))
    if args.json:
        emit_json(out)
    return EXIT_OK if out.get("ok") else EXIT_PARTIAL


# ---------------------------------------------------------------- parser
def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--config", help="config file (default $ARCHIVER_CONFIG, then ~/.config/archiver/config.toml)")
    common.add_argument("--json", action="store_true", help="print one JSON document on stdout")
    common.add_argument("-v", "--verbose", action="store_true", help="debug logs, the libraries' too")
    common.add_argument("-q", "--quiet", action="store_true", help="warnings and errors only; no progress bar")
    common.add_argument("--log-format", choices=["auto", "human", "json"], default="auto",
                        help="stderr logs: human on a terminal, JSON lines otherwise (auto, the default)")

    p = argparse.ArgumentParser(prog="archiver", description="Archive coding-agent sessions: redacted, compressed, encrypted, with lineage.")
    p.add_argument("--version", action="version", version=f"archiver {__version__}")
    sub = p.add_subparsers(dest="command", required=True)

    def add(name: str, func: Callable[[argparse.Namespace], int], help_: str) -> argparse.ArgumentParser:
        sp = sub.add_parser(name, parents=[common], help=help_, description=help_)
        sp.set_defaults(func=func)
        return sp

    sp = add("keygen", cmd_keygen, "write identity.txt, recipient.txt and team.key (0600)")
    sp.add_argument("--out", required=True)
    sp.add_argument("--force", action="store_true")

    sp = add("scan", cmd_scan, "what would be archived, with lineage; reads nothing remote")
    sp.add_argument("--harness", action="append")

    sp = add("sync", cmd_sync, "discover, redact, pack and upload; write a manifest")
    sp.add_argument("--dry-run", action="store_true")
    sp.add_argument("--metrics-file", help="write Prometheus textfile-collector metrics here (atomically)")
    sp.add_argument("--workers", type=int, default=min(4, os.cpu_count() or 1),
                    help="sessions processed at once, and redaction processes (default: cores, at most 4)")
    sp.add_argument("--harness", action="append")

    from archiver.commands import READERS, register_all

    register_all(sub, common, only=READERS)

    sp = add("redact", cmd_redact, "redact one file to stdout with the configured rules")
    sp.add_argument("file")
    sp.add_argument("--format", choices=["jsonl", "json", "text", "sqlite", "git-object", "binary"])

    sp = add("rules", cmd_rules, "list rules, or show which rules fire in a file (never the values)")
    rsub = sp.add_subparsers(dest="rules_cmd", required=True)
    # the common options may come before or after the subcommand; SUPPRESS keeps the outer value
    inner = argparse.ArgumentParser(add_help=False)
    inner.add_argument("--config", default=argparse.SUPPRESS)
    inner.add_argument("--json", action="store_true", default=argparse.SUPPRESS)
    rl = rsub.add_parser("list", parents=[inner])
    rl.set_defaults(func=cmd_rules)
    rt = rsub.add_parser("test", parents=[inner])
    rt.add_argument("file")
    rt.set_defaults(func=cmd_rules)

    register_all(sub, common)

    sp = add("demo", cmd_demo, "the whole job on bundled sample sessions against an embedded S3")
    sp.add_argument("--dir", help="keep the demo's files here (default: a temp folder)")
    return p


def main(argv: list[str] | None = None) -> int:
    from archiver.config import ConfigError

    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:
        return EXIT_USAGE if e.code not in (0, None) else EXIT_OK
    from archiver.logs import setup_logging

    setup_logging(getattr(args, "log_format", "auto"), quiet=getattr(args, "quiet", False),
                  verbose=getattr(args, "verbose", False),
                  default_level=logging.INFO if args.command == "sync" else logging.WARNING)
    global _json_errors
    _json_errors = getattr(args, "log_format", "auto") == "json"
    from archiver.store.base import StoreError

    try:
        return int(args.func(args))
    except (UsageError, ConfigError) as e:
        err(str(e))
        return EXIT_USAGE
    except IntegrityFailure as e:
        err(str(e))
        return EXIT_INTEGRITY
    except StoreError as e:  # the store unreachable or refusing where a command cannot go on
        err(f"store: {e}")
        return EXIT_PARTIAL
    except Terminated:
        err("terminated (SIGTERM)")
        return 143
    except KeyboardInterrupt:
        err("interrupted")
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
