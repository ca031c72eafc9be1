"""Operations commands: `archiver status` (the last run, from the local state) and
`archiver doctor` (is this collector set up right: config, key files, store, roots, clock)."""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import re
import stat
import time
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta, timezone
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Any, Callable, Iterator

from archiver.commands import add_command

DEFAULT_INTERVAL = "1h"
CLOCK_SKEW_LIMIT = 300.0  # seconds: S3 signatures fail beyond 15 min; we complain at 5
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhd]?)\s*$", re.IGNORECASE)
_UNITS = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:  # type: ignore[type-arg]
    sp = add_command(sub, common, "status", cmd_status, "the last sync run: time, result, counts, bytes, next due",
                     "The last sync run recorded in the local state: time, result, counts, bytes, "
                     "errors and when the next run is due.")
    sp.add_argument("--interval", default=DEFAULT_INTERVAL,
                    help="schedule interval for 'next due' (e.g. 1h, 30m, 86400; default 1h)")

    sp = add_command(sub, common, "doctor", cmd_doctor, "check config, key files, bucket, harness roots and clock",
                     "Check that this collector is set up right; exit 2 if any check fails.")
    sp.add_argument("--timeout", type=float, default=5.0, help="seconds per store request (default 5)")


def parse_duration(text: str) -> float:
    """'90', '90s', '30m', '1h', '1.5d' -> seconds."""
    m = _DURATION.match(str(text))
    if not m or float(m.group(1)) <= 0:
        from archiver.cli import UsageError

        raise UsageError(f"--interval: not a duration: {text!r} (use e.g. 1h, 30m, 3600)")
    return float(m.group(1)) * _UNITS[m.group(2).lower()]


# ================================================================ status
def _parse_ts(value: Any) -> datetime | None:
    if not isinstance(value, str) or not value:
        return None
    try:
        dt = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return dt if dt.tzinfo else dt.replace(tzinfo=timezone.utc)


def _iso(dt: datetime | None) -> str | None:
    return dt.astimezone(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z") if dt else None


def running_pid(lock_path: Path) -> tuple[bool, str | None]:
    """Whether a sync holds the state dir's lock, without taking or touching it."""
    try:
        fd = os.open(lock_path, os.O_RDONLY)
    except OSError:
        return False, None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.read(fd, 64).decode(errors="replace").strip()
            return True, holder or None
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False, None
    finally:
        os.close(fd)


def _outcome(result: dict[str, Any]) -> str:
    sessions = result.get("sessions") or {}
    if result.get("skipped"):
        return "skipped"
    if sessions.get("failed") or result.get("errors"):
        return "partial" if (sessions.get("total") or 0) > (sessions.get("failed") or 0) else "failed"
    return "ok"


_BUSY_NOTE = "a sync is running: no result until it lets go of the state database"


def status_doc(state_dir: Path, interval: float, now: datetime | None = None) -> dict[str, Any]:
    """What `status` reports, from the state dir alone (never the store)."""
    now = now or datetime.now(timezone.utc)
    running, pid = running_pid(state_dir / "lock")
    doc: dict[str, Any] = {
        "state_dir": str(state_dir), "running": running, "running_pid": pid, "interval_seconds": interval,
        "runs_recorded": 0, "last_run": None, "last_success": None, "next_due": _iso(now), "overdue": False,
    }
    from archiver.state import read_failure

    if state_dir.exists() or state_dir.is_symlink():  # where sync cannot even note its failure
        if not state_dir.is_dir():
            doc["state_error"] = f"{state_dir}: not a folder; sync cannot run"
        elif not os.access(state_dir, os.W_OK | os.X_OK):
            doc["state_error"] = f"{state_dir}: not writable; sync cannot run"
    aborted = read_failure(state_dir)  # a run that ended before it could record itself (commands.sync._note_failure)
    db = state_dir / "state.db"
    last: dict[str, Any] | None = None
    last_ok = None
    if db.exists():
        from archiver.state import StateBusy, StateError, read_runs

        try:
            doc["runs_recorded"], rows = read_runs(db)
        except StateBusy as e:  # a sync creating the database, or moving it to WAL: no result yet
            rows = []
            if running:
                doc["note"] = _BUSY_NOTE
            else:
                doc["state_error"] = str(e)
        except StateError as e:
            rows = []
            doc["state_error"] = str(e)  # the next sync rebuilds a damaged cache; say so meanwhile
        for run_id, run_started, finished, raw in rows:
            try:
                result = json.loads(raw)
            except (TypeError, ValueError):
                continue
            if last is None:
                last = {"run_id": run_id, "started": run_started, "finished": finished, "result": result}
            if _outcome(result) == "ok":
                last_ok = finished
                break
    if aborted is not None and (last is None or _later(aborted["finished"], last["finished"])):
        last = {"run_id": None, "started": aborted.get("started"), "finished": aborted["finished"],
                "result": {"errors": aborted["errors"], "aborted": True}}
    if last is None:
        doc.setdefault("note", "no sync has run with this state dir yet")
        return doc
    result = last["result"] or {}
    started, finished = _parse_ts(last["started"]), _parse_ts(last["finished"])
    doc["last_run"] = {
        "run_id": last["run_id"],
        "started": _iso(started) or last["started"],
        "finished": _iso(finished) or last["finished"],
        "duration_seconds": round((finished - started).total_seconds(), 3) if started and finished else None,
        "result": "failed" if result.get("aborted") else _outcome(result),
        # aborted: the run stopped before it could record counts (config, keys, state dir, store at start)
        "aborted": bool(result.get("aborted")),
        "snapshot": result.get("snapshot"),
        "sessions": result.get("sessions") or {},
        "bytes": result.get("bytes") or {},
        "objects_uploaded": result.get("objects_uploaded"),
        "redactions": sum(int(v) for v in (result.get("redactions") or {}).values()),
        "errors": list(result.get("errors") or []),
        "warnings": len(result.get("warnings") or []),
    }
    doc["last_success"] = _iso(_parse_ts(last_ok)) if last_ok else None
    if finished:
        due = finished + timedelta(seconds=interval)
        doc["next_due"] = _iso(max(due, now) if running else due)
        doc["overdue"] = (now - finished).total_seconds() > 2 * interval and not running
    return doc


def _later(a: str, b: str) -> bool:
    ta, tb = _parse_ts(a), _parse_ts(b)
    return ta is not None and (tb is None or ta > tb)


def cmd_status(args: argparse.Namespace) -> int:
    from archiver.cli import EXIT_OK, console, emit_json, err, settings_of

    interval = parse_duration(args.interval)
    settings = settings_of(args)
    doc = status_doc(settings.state_dir, interval)
    if args.json:
        emit_json(doc)
        return EXIT_OK
    c = console()
    last = doc["last_run"]
    if doc["running"]:
        c.print(f"a sync is running now (pid {doc['running_pid'] or '?'})")
    if doc.get("note") == _BUSY_NOTE:
        c.print(_BUSY_NOTE)
    if doc.get("state_error"):
        err(f"state database unreadable: {doc['state_error']}")
    if last is None:
        c.print(f"no sync has run yet (state dir {doc['state_dir']}); next due: now")
        return EXIT_OK
    s, b = last["sessions"], last["bytes"]
    c.print(f"last run:     {last['finished']} ({last['duration_seconds']} s), result: {last['result']}"
            + ("  (it stopped before it could record its counts)" if last["aborted"] else ""))
    if not last["aborted"]:
        c.print(f"sessions:     {s.get('total', 0)} total, {s.get('uploaded', 0)} uploaded, "
                f"{s.get('unchanged', 0)} unchanged, {s.get('failed', 0)} failed")
        c.print(f"bytes:        {b.get('read', 0)} read, {b.get('uploaded', 0)} uploaded")
    if last["snapshot"]:
        c.print(f"snapshot:     {last['snapshot']}")
    c.print(f"last success: {doc['last_success'] or 'never'}")
    c.print(f"next due:     {doc['next_due']}" + ("  (OVERDUE)" if doc["overdue"] else ""))
    for e in last["errors"]:
        err(e)
    return EXIT_OK


# ================================================================ doctor
@dataclass
class Check:
    check: str
    status: str  # ok | warn | fail | skip
    detail: str


class Doctor:
    """Runs the checks; each appends Check rows and never raises."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.checks: list[Check] = []
        self.settings: Any = None

    def add(self, check: str, status: str, detail: str) -> None:
        self.checks.append(Check(check, status, detail))

    def run(self) -> list[Check]:
        self._guard("config", self.config)
        if self.settings is None:
            return self.checks
        for name, step in (("team key", self.team_key), ("recipients", self.recipients),
                           ("identity", self.identity_absent), ("redaction terms", self.redaction_terms),
                           ("discovered identities", self.discovered_identities), ("state dir", self.state_dir),
                           ("store", self.store), ("harnesses", self.harness_roots)):
            self._guard(name, step)
        return self.checks

    def _guard(self, name: str, step: Callable[[], None]) -> None:
        try:
            step()
        except Exception as e:  # a check that crashes is a failed check, not a crashed doctor
            self.add(name, "fail", f"{type(e).__name__}: {e}")

    # ---- config ----
    def config(self) -> None:
        from archiver.config import ConfigError, default_config_path, load_settings

        path = Path(self.args.config) if self.args.config else default_config_path()
        try:
            self.settings = load_settings(Path(self.args.config) if self.args.config else None)
        except ConfigError as e:
            self.add("config", "fail", str(e))
            return
        if path.exists():
            self.add("config", "ok", f"{path} loads")
            mode = stat.S_IMODE(path.stat().st_mode)
            if mode & 0o022:
                self.add("config permissions", "fail", f"{path} is writable by group/others (mode {mode:o})")
        else:
            self.add("config", "warn", f"no config file at {path}; using ARCHIVER_* environment and defaults")

    # ---- redaction ----
    def redaction_terms(self) -> None:
        """Configured usernames and names the generated rules will not match as words (the values
        are the operator's own config, printed back on the operator's terminal only)."""
        from archiver.redact.rules import (GENERIC_ACCOUNTS, SHORT_NAME, first_name_is_a_word, short_name,
                                           word_username)

        red = self.settings.redaction
        generic = [u for u in red.usernames if u.strip().lower() in GENERIC_ACCOUNTS]
        short = [u for u in red.usernames if 0 < len(u.strip()) < 3]
        short_names = [n for n in red.names if len(n.strip()) >= 2 and short_name(n)]
        words = [u for u in red.usernames if len(u.strip()) >= 3 and u.strip().lower() not in GENERIC_ACCOUNTS
                 and word_username(u)]
        word_firsts = [n for n in red.names if first_name_is_a_word(n)]
        notes = [
            (generic, f"usernames {generic} are generic account names: replaced in home paths only, not as words "
                      "(add a distinctive term to extra_terms)"),
            (short, f"usernames {short} are shorter than 3 characters: replaced in home paths only"),
            (words, f"usernames {words} are everyday words: replaced where an account shows (home paths, user@host, "
                    "uid=N(user), passwd, ls -l, ps, who, sudo -u), not as words in text"),
            (short_names, f"names {short_names} have {SHORT_NAME} letters or fewer: replaced only as written "
                          "(case-sensitive) and as a whole word"),
            (word_firsts, f"names {word_firsts} start with an everyday word: that first name is replaced only with "
                          "the last name, never alone"),
        ]
        for found, message in notes:
            if found:
                self.add("redaction terms", "warn", message)
        if not any(found for found, _ in notes):
            self.add("redaction terms", "ok", f"{len(red.usernames)} username(s), {len(red.names)} name(s), "
                                              f"{len(red.extra_terms)} extra term(s)")

    def discovered_identities(self) -> None:
        """How many logins and names the home records (redact/identities.py): counts, never the values,
        since doctor's output may end in a log."""
        from archiver.redact.identities import discover_identities

        if not self.settings.redaction.discover_identities:
            self.add("discovered identities", "skip", "redaction.discover_identities is off")
            return
        found = discover_identities(self.settings.home_dir)
        self.add("discovered identities", "ok", f"{len(found.usernames)} login(s), {len(found.names)} name(s) "
                                                "from git, the GitHub CLI and passwd, replaced as configured terms are")

    # ---- keys ----
    def team_key(self) -> None:
        from archiver import runtime

        if os.environ.get("ARCHIVER_TEAM_KEY"):
            runtime.team_keys(self.settings)
            self.add("team key", "ok", "from ARCHIVER_TEAM_KEY")
            return
        path = self.settings.redaction.team_key_file
        if not path:
            self.add("team key", "fail", "redaction.team_key_file is not set (nor ARCHIVER_TEAM_KEY)")
            return
        if not self._private_file("team key", Path(path)):
            return
        try:
            runtime.team_keys(self.settings)
        except Exception as e:
            self.add("team key", "fail", str(e))
            return
        self.add("team key", "ok", f"{path} (0600, parses)")

    def _private_file(self, name: str, path: Path) -> bool:
        """Exists, is a regular file, owned by us, and not readable by group/others."""
        try:
            st = path.lstat()
        except FileNotFoundError:
            self.add(name, "fail", f"{path}: not found")
            return False
        except OSError as e:
            self.add(name, "fail", f"{path}: {e.strerror}")
            return False
        if stat.S_ISLNK(st.st_mode):
            st = path.stat()
        if not stat.S_ISREG(st.st_mode):
            self.add(name, "fail", f"{path}: not a regular file")
            return False
        mode = stat.S_IMODE(st.st_mode)
        if mode & 0o077:
            self.add(name, "fail", f"{path}: mode {mode:04o} lets group/others access it; chmod 600 {path}")
            return False
        if hasattr(os, "getuid") and st.st_uid != os.getuid():
            self.add(name, "warn", f"{path}: owned by uid {st.st_uid}, not by the collector (uid {os.getuid()})")
        return True

    def recipients(self) -> None:
        from archiver import runtime

        try:
            recips = runtime.recipients(self.settings)
        except Exception as e:
            self.add("recipients", "fail", str(e))
            return
        rf = self.settings.encryption.recipients_file
        if rf:
            mode = stat.S_IMODE(Path(rf).stat().st_mode)
            if mode & 0o022:  # whoever can write it can swap in their own key
                self.add("recipients", "fail", f"{rf}: writable by group/others (mode {mode:04o}); chmod 600 {rf}")
                return
            if mode & 0o044:
                self.add("recipients", "warn", f"{rf}: mode {mode:04o}; 0600 is expected (public keys, but keep them tidy)")
                return
        self.add("recipients", "ok", f"{len(recips)} age recipient(s)" + (f" from {rf}" if rf else ""))

    def identity_absent(self) -> None:
        """Collectors hold recipients only: an identity here would let a thief decrypt the archive."""
        found: list[str] = []
        if os.environ.get("ARCHIVER_IDENTITY_FILE"):
            found.append("ARCHIVER_IDENTITY_FILE is set in the environment")
        dirs: list[Path] = []
        cfg = Path(self.args.config) if self.args.config else None
        if cfg is None:
            from archiver.config import default_config_path

            cfg = default_config_path()
        for p in (cfg, self.settings.redaction.team_key_file, self.settings.encryption.recipients_file):
            if p:
                d = Path(p).expanduser().resolve().parent
                if d not in dirs and d.is_dir():
                    dirs.append(d)
        for d in dirs:
            for f in _identity_files(d):
                found.append(str(f))
        if found:
            self.add("identity not on collector", "warn",
                     "age identity found next to the collector config: " + ", ".join(found)
                     + " — reviewers keep it; remove it from this machine")
        else:
            self.add("identity not on collector", "ok", "no age identity next to the config or keys")

    # ---- local state ----
    def state_dir(self) -> None:
        d = Path(self.settings.state_dir)
        if not d.exists():
            why = _why_not_creatable(d)
            if why is None:
                self.add("state dir", "ok", f"{d} (created on first sync)")
            else:
                self.add("state dir", "fail", f"{d} does not exist and {why}")
            return
        if not d.is_dir():
            self.add("state dir", "fail", f"{d}: not a folder")
            return
        if not os.access(d, os.W_OK | os.X_OK):
            self.add("state dir", "fail", f"{d}: not writable")
            return
        mode = stat.S_IMODE(d.stat().st_mode)
        running, pid = running_pid(d / "lock")
        extra = f"; a sync is running (pid {pid or '?'})" if running else ""
        if mode & 0o077:
            self.add("state dir", "warn", f"{d}: mode {mode:04o}; 0700 expected (temp plaintext lives here){extra}")
        else:
            self.add("state dir", "ok", f"{d}{extra}")
        self._state_db(d / "state.db")

    def _state_db(self, db: Path) -> None:
        """The state database sync opens: one it cannot open stops every run (a damaged one is
        only rebuilt, at the cost of re-reading and HEAD requests)."""
        from archiver.state import StateError, _is_environment, read_runs

        if not db.exists() and not db.is_symlink():
            return
        if not db.is_file():
            self.add("state database", "fail", f"{db}: not a regular file; sync cannot open it")
            return
        try:
            runs, _ = read_runs(db, limit=1)
        except StateError as e:
            if _is_environment(e):
                self.add("state database", "fail", f"{e}; sync cannot open it")
            else:
                self.add("state database", "warn", f"{e}; the next sync moves it aside and starts a fresh one "
                                                   "(every file is read again)")
            return
        self.add("state database", "ok", f"{db} ({runs} run(s) recorded)")

    # ---- store ----
    def store(self) -> None:
        s = self.settings.store
        if not s.url:
            self.add("store", "fail", "store.url is not set (s3://bucket/prefix or file:///path)")
            return
        if s.url.startswith("file://"):
            from urllib.parse import unquote, urlsplit

            path = Path(unquote(urlsplit(s.url).path))
            if not path.exists():
                why = _why_not_creatable(path)
                self.add("store", "ok" if why is None else "fail", f"{s.url}: {why or 'created on first sync'}")
            elif not path.is_dir() or not os.access(path, os.W_OK | os.X_OK):
                self.add("store", "fail", f"{s.url}: not a writable folder")
            else:
                self.add("store", "ok", f"{s.url}: writable folder")
            self.add("clock", "skip", "file:// store: no server clock to compare with")
            return
        self._s3()

    def _s3(self) -> None:
        import boto3
        from botocore.config import Config
        from botocore.exceptions import BotoCoreError, ClientError

        s = self.settings.store
        from archiver.store import strip_userinfo

        rest = s.url[len("s3://"):]
        bucket, _, prefix = rest.partition("/")
        prefix = prefix.strip("/")
        shown = strip_userinfo(s.url)
        session = boto3.session.Session()
        creds = session.get_credentials()
        if creds is None:
            self.add("aws credentials", "fail", "no AWS credentials found (env, shared files, SSO or instance role)")
            return
        self.add("aws credentials", "ok", f"found (source: {getattr(creds, 'method', None) or 'unknown'})")
        timeout = float(getattr(self.args, "timeout", 5.0) or 5.0)
        client = session.client(
            "s3", endpoint_url=s.endpoint_url, region_name=s.region,
            config=Config(connect_timeout=timeout, read_timeout=timeout, retries={"total_max_attempts": 1}),
        )

        def code_of(e: Exception) -> str:
            if isinstance(e, ClientError):
                err = e.response.get("Error", {})
                return str(err.get("Code") or e.response.get("ResponseMetadata", {}).get("HTTPStatusCode", "?"))
            return type(e).__name__

        server_date: str | None = None
        try:
            resp = client.head_bucket(Bucket=bucket)
            server_date = resp.get("ResponseMetadata", {}).get("HTTPHeaders", {}).get("date")
            self.add("bucket", "ok", f"{shown}: reachable")
        except ClientError as e:
            server_date = e.response.get("ResponseMetadata", {}).get("HTTPHeaders", {}).get("date")
            code = code_of(e)
            missing = "no such bucket: fix store.url, or create it with `archiver bucket init`"
            why = {"404": missing, "NoSuchBucket": missing,
                   "403": "access denied: HeadBucket needs s3:ListBucket on the bucket "
                          "(deploy/iam/collector-policy.json, statement ListOwnPrefixes)"}.get(code, code)
            self.add("bucket", "fail", f"{shown}: {why}")
        except (BotoCoreError, OSError) as e:
            self.add("bucket", "fail", f"{shown}: unreachable ({type(e).__name__}: {e}); check store.endpoint_url "
                     "and store.region, the network, and HTTPS_PROXY/NO_PROXY")
            self.add("clock", "skip", "no answer from the store")
            return
        key_prefix = f"{prefix}/" if prefix else ""
        try:  # objects/ is what the collector policy lets it list
            resp = client.list_objects_v2(Bucket=bucket, Prefix=f"{key_prefix}objects/", MaxKeys=1)
            server_date = server_date or resp.get("ResponseMetadata", {}).get("HTTPHeaders", {}).get("date")
            self.add("list prefix", "ok", f"{key_prefix}objects/: listable")
        except (ClientError, BotoCoreError, OSError) as e:
            self.add("list prefix", "fail", f"{key_prefix}objects/: {code_of(e)}")
        try:
            body = client.get_object(Bucket=bucket, Key=f"{key_prefix}archiver.json")["Body"].read(65536)
            fmt = json.loads(body).get("format")
            if fmt == "archiver/1":
                self.add("archive marker", "ok", "archiver.json: format archiver/1")
            else:
                self.add("archive marker", "fail", f"archiver.json names format {fmt!r}; this writer needs archiver/1")
        except ClientError as e:
            code = code_of(e)
            if code in ("NoSuchKey", "404"):
                self.add("archive marker", "ok", "absent: the first sync writes archiver.json")
            else:
                self.add("archive marker", "warn", f"archiver.json: {code}")
        except (BotoCoreError, OSError, ValueError) as e:
            self.add("archive marker", "warn", f"archiver.json: {type(e).__name__}")
        self._bucket_settings(client, bucket, code_of)
        self._clock(server_date)

    def _bucket_settings(self, client: Any, bucket: str, code_of: Callable[[Exception], str]) -> None:
        from botocore.exceptions import BotoCoreError, ClientError

        s = self.settings.store
        denied = ("AccessDenied", "403", "AllAccessDisabled")
        # default encryption
        try:
            rules = client.get_bucket_encryption(Bucket=bucket)["ServerSideEncryptionConfiguration"]["Rules"]
            algos = sorted({r.get("ApplyServerSideEncryptionByDefault", {}).get("SSEAlgorithm", "?") for r in rules})
            bucket_sse: str | None = ", ".join(algos)
        except ClientError as e:
            code = code_of(e)
            if code in denied:
                bucket_sse = "unknown"
            elif code in ("ServerSideEncryptionConfigurationNotFoundError", "404"):
                bucket_sse = None
            else:
                bucket_sse = f"unknown ({code})"
        except (BotoCoreError, OSError) as e:
            bucket_sse = f"unknown ({type(e).__name__})"
        if s.sse:
            self.add("encryption (SSE)", "ok", f"objects are sent with SSE {s.sse}" + (f"; bucket default: {bucket_sse}" if bucket_sse else ""))
        elif bucket_sse and not bucket_sse.startswith("unknown"):
            self.add("encryption (SSE)", "ok", f"bucket default encryption: {bucket_sse}")
        else:
            self.add("encryption (SSE)", "warn", f"store.sse is not set and the bucket default is {bucket_sse or 'none'} "
                     "(objects are age-encrypted anyway)")
        # versioning and object lock
        try:
            versioning = client.get_bucket_versioning(Bucket=bucket).get("Status") or "Disabled"
        except ClientError as e:
            versioning = "unknown" if code_of(e) in denied else f"unknown ({code_of(e)})"
        except (BotoCoreError, OSError) as e:
            versioning = f"unknown ({type(e).__name__})"
        try:
            cfg = client.get_object_lock_configuration(Bucket=bucket).get("ObjectLockConfiguration", {})
            lock = cfg.get("ObjectLockEnabled") == "Enabled"
            lock_detail = "enabled" if lock else "disabled"
            rule = cfg.get("Rule", {}).get("DefaultRetention")
            if rule:
                lock_detail += f", default {rule.get('Mode')} {rule.get('Days') or rule.get('Years')} {'days' if rule.get('Days') else 'years'}"
        except ClientError as e:
            code = code_of(e)
            lock = False if code in ("ObjectLockConfigurationNotFoundError", "404") else None
            lock_detail = "disabled" if lock is False else f"unknown ({code})"
        except (BotoCoreError, OSError) as e:
            lock, lock_detail = None, f"unknown ({type(e).__name__})"
        if versioning == "Enabled":
            self.add("versioning", "ok", "enabled")
        elif versioning.startswith("unknown"):
            self.add("versioning", "skip", f"{versioning}: the collector policy need not read it")
        else:
            self.add("versioning", "fail" if s.object_lock_mode else "warn",
                     f"{versioning}" + ("; Object Lock needs it" if s.object_lock_mode else "; recommended so an overwrite or delete can be undone")
                     + "; an operator enables it with `archiver bucket init`")
        if s.object_lock_mode:
            if lock is True:
                self.add("object lock", "ok", f"bucket {lock_detail}; writes use {s.object_lock_mode} {s.object_lock_days} days")
            elif lock is False:
                self.add("object lock", "fail", f"store.object_lock_mode is {s.object_lock_mode} but the bucket has no "
                         "Object Lock (every write would be refused): unset store.object_lock_mode/object_lock_days, "
                         "or use a bucket created with `archiver bucket init --object-lock`")
            else:
                self.add("object lock", "skip", f"bucket: {lock_detail}")
        else:
            self.add("object lock", "ok" if lock is not None else "skip", f"not configured (bucket: {lock_detail})")

    def _clock(self, server_date: str | None) -> None:
        if not server_date:
            self.add("clock", "skip", "the store sent no Date header")
            return
        try:
            server = parsedate_to_datetime(server_date)
        except (TypeError, ValueError):
            self.add("clock", "skip", f"unparsable Date header {server_date!r}")
            return
        skew = time.time() - server.timestamp()
        detail = f"local clock is {abs(skew):.0f} s {'ahead of' if skew > 0 else 'behind'} the store"
        if abs(skew) > CLOCK_SKEW_LIMIT:
            self.add("clock", "fail", detail + " (more than 5 min: signed requests and retention dates go wrong)")
        else:
            self.add("clock", "ok", detail if abs(skew) >= 2 else "in sync with the store")

    # ---- harness roots ----
    def harness_roots(self) -> None:
        from archiver import runtime
        from archiver.model import HARNESS_NAMES

        enabled = {name for name, cfg in self.settings.harnesses.items() if cfg.enabled}
        present = 0
        for name in HARNESS_NAMES:
            if name not in enabled:
                self.add(f"harness {name}", "skip", "disabled in config")
                continue
            try:
                (h,) = runtime.harnesses(self.settings, [name])
                root = Path(h.root)
            except Exception as e:
                self.add(f"harness {name}", "fail", f"{type(e).__name__}: {e}")
                continue
            if root.is_dir():
                present += 1
                readable = os.access(root, os.R_OK | os.X_OK)
                self.add(f"harness {name}", "ok" if readable else "fail", f"{root}" + ("" if readable else ": not readable"))
            elif self.settings.harnesses[name].root is not None:  # a root the config names: a typo archives nothing
                self.add(f"harness {name}", "fail", f"{root}: not found (harnesses.{name}.root in the config)")
            else:
                self.add(f"harness {name}", "skip", f"{root}: not found (nothing to archive)")
            close = getattr(h, "close", None)
            if callable(close):
                close()
        if enabled and not present:
            self.add("harnesses", "warn", "no harness root exists under "
                     f"{self.settings.home_dir}: sync would archive nothing")


def _why_not_creatable(path: Path) -> str | None:
    """Why a missing folder could not be made by the first sync, or None if it can: its nearest
    existing ancestor must be a folder this user may write (a file there blocks everything below)."""
    parent = next((p for p in path.parents if p.exists()), None)
    if parent is not None and not parent.is_dir():
        return f"{parent} is not a folder"
    if parent is None or not os.access(parent, os.W_OK | os.X_OK):
        return "cannot be created"
    return None


def _identity_files(folder: Path) -> Iterator[Path]:
    try:
        entries = sorted(folder.iterdir())
    except OSError:
        return
    for f in entries:
        try:
            if not f.is_file() or f.stat().st_size > 65536:
                continue
            with f.open("rb") as fh:
                if b"AGE-SECRET-KEY-1" in fh.read(65536):
                    yield f
        except OSError:
            continue


def cmd_doctor(args: argparse.Namespace) -> int:
    from archiver.cli import EXIT_OK, EXIT_USAGE, console, emit_json

    checks = Doctor(args).run()
    counts = {k: sum(1 for c in checks if c.status == k) for k in ("ok", "warn", "fail", "skip")}
    failed = counts["fail"] > 0
    if args.json:
        emit_json({"ok": not failed, "summary": counts, "checks": [asdict(c) for c in checks]})
    else:
        from rich.table import Table
        from rich.text import Text

        from archiver.cli import plain

        style = {"ok": "green", "warn": "yellow", "fail": "bold red", "skip": "dim"}
        t = Table(title="archiver doctor")
        for col in ("check", "status", "detail"):
            t.add_column(col, overflow="fold")
        shown = [c for c in checks if c.status in ("warn", "fail")] if args.quiet else checks  # --quiet: problems only
        for c in shown:
            t.add_row(plain(c.check), Text(c.status, style=style[c.status]), plain(c.detail))
        con = console()
        if shown:
            con.print(t)
        con.print(f"{counts['ok']} ok, {counts['warn']} warnings, {counts['fail']} failed, {counts['skip']} skipped")
    return EXIT_USAGE if failed else EXIT_OK
