"""`archiver sync`: discover, redact, pack, encrypt and upload; write a manifest. Argument
parsing, output, the run lock, metrics and the failure note that `status` shows for a run that
died (SIGTERM: exit 143). The work is archiver.sync.Syncer. A run that finds nothing changed
imports no boto3, rich or presidio: keep the imports here lazy."""

from __future__ import annotations

import argparse
import logging
import os
import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable

from archiver import __version__
from archiver.cli import (EXIT_OK, EXIT_PARTIAL, Terminated, UsageError, config_error_line, console, emit_json,
                          err, plain, settings_of)
from archiver.commands import add_command

if TYPE_CHECKING:  # archiver.sync imports what this command keeps lazy
    from archiver.sync import SessionNote


def _terminate_on_sigterm() -> Callable[[], None]:
    """Install a SIGTERM handler that raises cli.Terminated (main exits 143); returns what puts
    the previous one back."""
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
    from archiver.commands.ls import check_harnesses
    from archiver.lock import AlreadyRunning, RunLock
    from archiver.logs import use_json
    from archiver.progress import make_progress
    from archiver.state import DiscoveryCache, State, StateError, clear_failure, private_dir
    from archiver.sync import Syncer, SyncOptions

    try:  # a run that stops before it starts (config, keys, state dir) is a failed run to the metrics too
        check_harnesses(args.harness)  # a misspelt --harness is an error, not a run that archives nothing
        settings = settings_of(args)
        state_dir = settings.state_dir
        where["state_dir"] = state_dir
        keys = runtime.team_keys(settings)
        recipients = runtime.recipients(settings)
        recipe = runtime.redactor_factory(settings, keys)
        redactor = LazyRedactor(recipe)
        _check_rule_packs(settings)
        archive = None if args.dry_run else Archive(runtime.store(settings, lazy=True))
        if args.workers < 1:
            raise UsageError("--workers must be at least 1")
        if args.metrics_file and not args.metrics_file.endswith(".prom"):
            logging.getLogger("archiver.sync").warning(
                "--metrics-file %s: node_exporter's textfile collector reads only *.prom files", args.metrics_file)
        lock = None if args.dry_run else RunLock(state_dir / "lock")
        try:
            if lock is not None:
                state_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
                private_dir(state_dir)  # before the lock: it is a file in there
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
        except StateError as e:
            return _sync_failed(args, str(e), started, state_dir)
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
    # every file the run makes (snapshots, redacted copies, the state, workers' outputs) is the
    # user's alone, whatever umask a scheduler gave (a service under umask 000)
    saved_umask = os.umask(0o077)
    scratch = Path(tempfile.mkdtemp(prefix="archiver-dry-run-")) if args.dry_run else None
    try:
        try:
            state = State(_dry_run_state(state_dir, scratch) if scratch else state_dir / "state.db")
        except StateError as e:
            return _sync_failed(args, str(e), started, state_dir)
        host_id = runtime.host(settings, keys)
        state.bind(settings.store.url, host_id)
        cache = DiscoveryCache(state)
        harnesses = runtime.harnesses(settings, args.harness, cache=cache)
        syncer = Syncer(
            harnesses=harnesses, redactor=redactor, archive=archive, state=state, recipients=recipients,
            object_id_key=keys.object_id, host_id=host_id, workdir_parent=(scratch or state_dir) / "tmp",
            options=SyncOptions(dry_run=args.dry_run, fail_closed=settings.redaction.fail_closed,
                                workers=args.workers,
                                redaction_fingerprint=redaction_fingerprint(settings, keys)),
            redactor_factory=recipe,
            progress=progress,
            discovery_cache=cache,
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
        os.umask(saved_umask)
        gc.set_threshold(*saved_gc)
        if lock is not None:
            lock.release()
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)
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
    if not args.json and not args.quiet:
        for line in session_warning_lines(result.sessions, set(result.warnings)):
            err(line)
    for e in result.errors:
        err(e)
    return EXIT_PARTIAL if result.failed or result.errors or metrics_failed else EXIT_OK


SESSION_WARNINGS_SHOWN = 10  # sessions whose warnings a plain run names; --json lists all


def session_warning_lines(sessions: Iterable[SessionNote], shown: set[str]) -> list[str]:
    """What the collectors noted about the run's sessions (a torn tail held back, a file skipped
    as unreadable, a sidecar gone), tersely: one line a session archived anew (or whose warnings
    changed), its first warning and how many more, for the first SESSION_WARNINGS_SHOWN, then a
    count. (Redacted, as the manifest keeps them.) Sessions carried unchanged into a new manifest
    keep the warnings an earlier run printed: they are counted, not named again, so a scheduled
    run does not repeat the same lines every hour. A warning the run already printed as
    `<key>: <warning>` is not repeated."""
    noted: list[tuple[str, list[str]]] = []
    carried = 0
    for note in sessions:
        rest = [w for w in note.warnings if f"{note.key}: {w}" not in shown]
        if rest and note.changed:
            noted.append((note.key, rest))
        elif rest:
            carried += 1
    lines: list[str] = []
    for key, rest in noted[:SESSION_WARNINGS_SHOWN]:
        more = f" (+{len(rest) - 1} more)" if len(rest) > 1 else ""
        lines.append(f"warning: {key}: {rest[0]}{more}")
    if len(noted) > SESSION_WARNINGS_SHOWN:
        lines.append(f"warning: {len(noted) - SESSION_WARNINGS_SHOWN} more session(s) with warnings")
    if carried:
        lines.append(f"{carried} unchanged session(s) keep warnings from earlier runs")
    if (noted or carried) and (len(noted) > SESSION_WARNINGS_SHOWN or carried or any(len(r) > 1 for _, r in noted)):
        lines.append("(`archiver sync --json` lists every session's warnings under session_warnings)")
    return lines


class LazyRedactor:
    """The configured redactor, built (its rules compiled) on first use: a re-sync where
    nothing changed never needs it. `ready()` builds it now; Syncer calls it before it
    archives anything, so a rules error still stops the run before any session. Built from
    the run's recipe, which then hands the loaded rules on to the worker processes."""

    def __init__(self, recipe: Any) -> None:
        import threading

        self._recipe = recipe
        self._real: Any = None
        self._build_lock = threading.Lock()

    def ready(self) -> Any:
        with self._build_lock:
            if self._real is None:
                from archiver.redact.factory import build_from_recipe

                self._real = build_from_recipe(self._recipe)
            return self._real

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name in ("_recipe", "_real", "_build_lock"):
            raise AttributeError(name)
        return getattr(self.ready(), name)


def _check_rule_packs(settings: Any) -> None:
    """Refuse a bad rule pack now, as building the redactor would (the same message, exit 2),
    also on a run with nothing to redact, which never builds it. Cheap: the packs that are not
    built in are validated, the built-in ones (shipped, tested) are not compiled."""
    from archiver.config import ConfigError
    from archiver.redact.rules import RuleError, check_packs

    try:
        check_packs(list(settings.redaction.rules))
    except RuleError as e:
        raise ConfigError(f"redaction.rules: {e}") from None


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
    # the word lists (builtin:words) feed the generated rules and allowlists of every pack
    for spec in ("builtin:words", *settings.redaction.rules):
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


def _dry_run_state(state_dir: Path, scratch: Path) -> Path:
    """A dry run previews what the next sync would upload, so it needs the real state, and
    writes nothing in the state dir (no lock, no database, no temp files): it works on a copy
    taken with SQLite's backup API (consistent while a sync writes the live file; a plain
    read-write connection, since a read-only one leaves -wal and -shm files behind)."""
    import sqlite3
    import stat

    from archiver.state import StateError

    copy = scratch / "state.db"
    live = state_dir / "state.db"
    try:
        st = os.lstat(live)
    except FileNotFoundError:
        return copy  # no sync ran yet: everything is new
    if not stat.S_ISREG(st.st_mode):
        raise StateError(f"{live}: not a regular file (a symlink?); not opened")
    try:
        source = sqlite3.connect(str(live), timeout=30)
        try:
            target = sqlite3.connect(str(copy))
            try:
                source.backup(target)
            finally:
                target.close()
        finally:
            source.close()
    except sqlite3.DatabaseError as e:  # a corrupt state: the dry run previews a rebuilt one
        copy.unlink(missing_ok=True)
        logging.getLogger("archiver.sync").warning("%s: cannot read the state (%s); previewing a cold sync", live, e)
    return copy


def _sync_failed(args: argparse.Namespace, reason: str, started: float, state_dir: Path | None = None) -> int:
    """A run that could not finish (state dir full, unreadable): one clear line, exit 1."""
    _failure_metrics(args, started)
    if state_dir is not None:
        _note_failure(args, state_dir, started, reason)
    if args.json:
        # the keys of a finished run's document (DESIGN), all empty: nothing was read or uploaded
        emit_json({"snapshot": None, "sessions": {"total": 0, "uploaded": 0, "unchanged": 0, "failed": 0},
                   "bytes": {"read": 0, "uploaded": 0}, "redactions": {}, "errors": [reason], "failed": True})
    err(reason)
    return EXIT_PARTIAL


def _failure_reason(e: BaseException) -> str:
    """What main() prints for an exception that ends a run, as one line."""
    from archiver.config import ConfigError
    from archiver.store.base import StoreError

    if isinstance(e, UsageError):
        return str(e)
    if isinstance(e, ConfigError):
        return config_error_line(str(e))
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


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    sp = add_command(sub, common, "sync", cmd_sync, "discover, redact, pack and upload; write a manifest")
    sp.add_argument("--dry-run", action="store_true")
    sp.add_argument("--metrics-file", help="write Prometheus textfile-collector metrics here (atomically)")
    sp.add_argument("--workers", type=int, default=min(4, os.cpu_count() or 1),
                    help="sessions processed at once, and redaction processes, started when there is more "
                         "than 8 MB to redact (default: cores, at most 4)")
    sp.add_argument("--harness", action="append")
