"""One module per command (archiver/commands/, as borgbackup does): cli.py keeps the parser,
main(), the exit codes and the output helpers. The move changes nothing a user sees: the
help text, the options, sync's JSON document, log record, exit codes, failure notes and
SIGTERM handling are pinned here as they were before it (values taken from a run on main)."""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import archiver.cli as cli
from archiver.cli import build_parser, main
from tests.fx_home import EMAIL, USER, UUID_A, UUID_F, Box, box, write_rollout  # noqa: F401

COMMANDS = ["keygen", "scan", "sync", "ls", "lineage", "restore", "verify", "redact", "rules", "status", "doctor",
            "export", "bucket", "hold", "release", "prune", "forget-session", "rekey", "recovery-key", "snapshots",
            "demo"]
MOVED = {"keygen": "keygen", "scan": "scan", "sync": "sync", "redact": "redact", "rules": "rules", "demo": "demo"}

# `archiver --help` at 100 columns, as main printed it before the move
HELP = (
    "usage: archiver [-h] [--version] [--config CONFIG] [--json] [-v] [-q]\n"
    "                [--log-format {auto,human,json}]\n"
    "                {keygen,scan,sync,ls,lineage,restore,verify,redact,rules,status,doctor,export,bucket,hold,"
    "release,prune,forget-session,rekey,recovery-key,snapshots,demo}\n"
    "                ...\n\n"
    "Archive coding-agent sessions: redacted, compressed, encrypted, with lineage.\n\n"
    "positional arguments:\n"
    "  {keygen,scan,sync,ls,lineage,restore,verify,redact,rules,status,doctor,export,bucket,hold,release,"
    "prune,forget-session,rekey,recovery-key,snapshots,demo}\n"
    "    keygen              write identity.txt, recipient.txt and team.key (0600)\n"
    "    scan                what would be archived, with lineage; reads nothing remote\n"
    "    sync                discover, redact, pack and upload; write a manifest\n"
    "    ls                  sessions in the archive (latest state per session, or as of --at)\n"
    "    lineage             the lineage forest, or one family, as a tree\n"
    "    restore             restore sessions into DIR laid out like a HOME\n"
    "    verify              check manifests, objects and tombstones (--read-data downloads and checks\n"
    "                        content)\n"
    "    redact              redact one file to stdout with the configured rules\n"
    "    rules               list rules, or show which rules fire in a file (never the values)\n"
    "    status              the last sync run: time, result, counts, bytes, next due\n"
    "    doctor              check config, key files, bucket, harness roots and clock\n"
    "    export              a readable transcript (HTML or Markdown) of an archived session and its\n"
    "                        subagents\n"
    "    bucket              bucket set-up\n"
    "    hold                set a legal hold on a session's objects and the manifests naming it\n"
    "    release             clear the legal hold on a session's objects and the manifests naming it\n"
    "    prune               drop old manifests per host by policy, then delete unreferenced objects\n"
    "                        (never objects under Object Lock or legal hold)\n"
    "    forget-session      right to erasure: remove a session from every manifest and delete its\n"
    "                        objects where retention allows; reports what it could not\n"
    "    rekey               re-encrypt manifests (and with --all every object) to the configured\n"
    "                        recipients\n"
    "    recovery-key        create a passphrase-protected identity for offline recovery\n"
    "    snapshots           each host's snapshots (manifests): when, how many sessions, how many\n"
    "                        bytes; pick a time for --at\n"
    "    demo                the whole job on bundled sample sessions against an embedded S3\n\n"
    "options:\n"
    "  -h, --help            show this help message and exit\n"
    "  --version             show program's version number and exit\n"
    "  --config CONFIG       config file (default $ARCHIVER_CONFIG, then\n"
    "                        ~/.config/archiver/config.toml)\n"
    "  --json                print one JSON document on stdout\n"
    "  -v, --verbose         debug logs, the libraries' too\n"
    "  -q, --quiet           warnings and errors only; no progress bar\n"
    "  --log-format {auto,human,json}\n"
    "                        stderr logs: human on a terminal, JSON lines otherwise (auto, the default)\n"
)

# a subcommand's copy of the common options sets a value only when given (the top-level parser,
# which takes them before the command too, holds the defaults: test_s21_cli_options.py)
S = "==SUPPRESS=="
COMMON = [(["-h", "--help"], "help", S, False), (["--config"], "config", S, False),
          (["--json"], "json", S, False), (["-v", "--verbose"], "verbose", S, False),
          (["-q", "--quiet"], "quiet", S, False), (["--log-format"], "log_format", S, False)]
# each moved command's options (option strings, dest, default, required), as on main
OPTIONS = {
    "keygen": [(["--out"], "out", None, True), (["--force"], "force", False, False)],
    "scan": [(["--harness"], "harness", None, False)],
    "sync": [(["--dry-run"], "dry_run", False, False), (["--metrics-file"], "metrics_file", None, False),
             (["--workers"], "workers", min(4, os.cpu_count() or 1), False), (["--harness"], "harness", None, False)],
    "redact": [([], "file", None, True), (["--format"], "format", None, False)],
    "rules": [([], "rules_cmd", None, True)],
    "demo": [(["--dir"], "dir", None, False)],
}

# `sync --json` on the home below, as main printed it (the snapshot name and the ciphertext
# size depend on the random keys)
SYNC_KEYS = ["snapshot", "sessions", "forgotten", "bytes", "objects_uploaded", "redactions", "errors", "warnings",
             "session_warnings"]
FIRST = {"sessions": {"total": 2, "uploaded": 2, "unchanged": 0, "failed": 0}, "forgotten": 0,
         "objects_uploaded": 2, "redactions": {"email": 1, "home-linux": 1}, "errors": [], "warnings": [],
         "session_warnings": {}}
AGAIN = {"snapshot": None, "sessions": {"total": 2, "uploaded": 0, "unchanged": 2, "failed": 0}, "forgotten": 0,
         "bytes": {"read": 0, "uploaded": 0}, "objects_uploaded": 0, "redactions": {}, "errors": [], "warnings": [],
         "session_warnings": {}}
LOG_KEYS = ["ts", "level", "logger", "msg", "sessions", "bytes_uploaded", "snapshot", "errors"]
SNAPSHOT = re.compile(r"^snapshots/[0-9a-f]{16}/\d{8}T\d{6}Z-[0-9a-f]{8}\.json\.age$")


def _subparsers(parser: Any) -> dict[str, Any]:
    return next(a for a in parser._actions if a.dest in ("command", "rules_cmd", "bucket_cmd")
                and hasattr(a, "choices") and isinstance(a.choices, dict)).choices


def _handlers(parser: Any, prefix: str = "") -> dict[str, Any]:
    """Every (sub)command's handler, nested subcommands (rules list, bucket init) included."""
    out: dict[str, Any] = {}
    for name, sp in _subparsers(parser).items():
        if sp.get_default("func") is not None:
            out[prefix + name] = sp.get_default("func")
        if any(getattr(a, "choices", None) and isinstance(a.choices, dict) for a in sp._actions):
            out.update(_handlers(sp, prefix + name + " "))
    return out


# ---------------------------------------------------------------- layout
def test_every_command_handler_lives_in_archiver_commands() -> None:
    handlers = _handlers(build_parser())
    assert {"rules list", "rules test", "bucket init"} <= set(handlers)
    for name, func in handlers.items():
        assert func.__module__.startswith("archiver.commands."), (name, func.__module__)
        assert func.__name__.startswith("cmd_"), (name, func.__name__)
    for name, module in MOVED.items():
        assert handlers[name].__module__ == f"archiver.commands.{module}", name
    assert handlers["rules list"] is handlers["rules test"] is handlers["rules"]
    source = Path(cli.__file__).read_text()
    assert "def cmd_" not in source
    for gone in ("def _sync", "class LazyRedactor", "def redaction_fingerprint", "def _note_failure",
                 "def _failure_reason", "def _guess_format", "def _terminate_on_sigterm", "add_parser("):
        assert gone not in source, gone
    # what cli.py keeps: parser, main, exit codes, the exceptions main maps, the output helpers
    for kept in ("build_parser", "main", "emit_json", "console", "plain", "err", "settings_of", "UsageError",
                 "IntegrityFailure", "Terminated"):
        assert callable(getattr(cli, kept)), kept
    assert (cli.EXIT_OK, cli.EXIT_PARTIAL, cli.EXIT_USAGE, cli.EXIT_INTEGRITY) == (0, 1, 2, 3)


def test_help_lists_the_same_commands_in_the_same_order(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "100")
    assert list(_subparsers(build_parser())) == COMMANDS
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert main(["--help"]) == 0
    assert buf.getvalue() == HELP


def test_moved_commands_take_the_same_options() -> None:
    choices = _subparsers(build_parser())
    for name, own in OPTIONS.items():
        got = [(a.option_strings, a.dest, a.default, a.required) for a in choices[name]._actions]
        assert got == COMMON + own, name
    rules = _subparsers(choices["rules"])
    assert list(rules) == ["list", "test"]
    assert [a.dest for a in rules["test"]._actions] == ["help", "config", "json", "verbose", "quiet", "log_format", "file"]


# ---------------------------------------------------------------- sync, as before
def _home(box: Box) -> None:
    """One Claude Code session (an e-mail and a home path to redact) and one Codex rollout."""
    d = box.home / ".claude" / "projects" / "-srv-app"
    d.mkdir(parents=True)
    rec = {"type": "user", "sessionId": UUID_A, "uuid": "11111111-1111-4111-8111-111111111111", "parentUuid": None,
           "timestamp": "2026-01-02T03:04:05.000Z", "cwd": "/srv/app",
           "message": {"role": "user", "content": f"mail {EMAIL} from /home/{USER}/x"}}
    (d / f"{UUID_A}.jsonl").write_text(json.dumps(rec) + "\n")
    cx = box.home / ".codex" / "sessions" / "2026" / "01" / "02"
    cx.mkdir(parents=True)
    write_rollout(cx, UUID_F, "03-04-05")


def _run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def test_sync_prints_the_same_document_and_log_record(box: Box) -> None:
    _home(box)
    cfg = ["--config", str(box.config)]
    code, out, err = _run(["sync", *cfg, "--json", "--workers", "1"])
    assert code == 0, err
    doc = json.loads(out)
    assert list(doc) == SYNC_KEYS
    assert SNAPSHOT.match(doc["snapshot"]), doc["snapshot"]
    assert list(doc["bytes"]) == ["read", "uploaded"] and doc["bytes"]["read"] == 705 and doc["bytes"]["uploaded"] > 0
    assert {k: v for k, v in doc.items() if k not in ("snapshot", "bytes")} == FIRST
    record = json.loads(err)  # the one log line (stderr is not a terminal: JSON)
    assert list(record) == LOG_KEYS
    assert (record["level"], record["logger"], record["msg"]) == ("info", "archiver.sync", "sync finished")
    assert record["sessions"] == FIRST["sessions"] and record["snapshot"] == doc["snapshot"]
    assert (record["bytes_uploaded"], record["errors"]) == (doc["bytes"]["uploaded"], 0)

    code, out, err = _run(["sync", *cfg, "--json", "--workers", "1"])
    assert code == 0 and json.loads(out) == AGAIN
    code, out, _ = _run(["sync", *cfg, "--workers", "1"])
    assert (code, out) == (0, "sessions: 2 total, 0 uploaded, 2 unchanged, 0 failed\n"
                              "bytes: 0 read, 0 uploaded (0 objects)\n")


def test_a_sync_that_stops_early_exits_2_and_status_shows_it(box: Box) -> None:
    _home(box)
    cfg = ["--config", str(box.config)]
    assert _run(["sync", *cfg, "--json", "--workers", "1"])[0] == 0
    assert _run(["sync", *cfg, "--json", "--workers", "0"]) == (2, "", "archiver: --workers must be at least 1\n")
    code, out, _ = _run(["status", *cfg, "--json"])
    last = json.loads(out)["last_run"]
    assert code == 0 and last["result"] == "failed" and last["aborted"] is True
    assert last["errors"] == ["--workers must be at least 1"]
    # a dry run reads a copy of the state and neither clears nor notes a failure
    code, out, err = _run(["sync", *cfg, "--json", "--dry-run", "--workers", "1"])
    assert code == 0 and json.loads(out)["sessions"] == {"total": 2, "uploaded": 0, "unchanged": 2, "failed": 0}
    assert _run(["sync", *cfg, "--json", "--dry-run", "--workers", "0"])[0] == 2
    assert json.loads(_run(["status", *cfg, "--json"])[1])["last_run"] == last


def test_sigterm_during_sync_exits_143_and_puts_the_handler_back(box: Box, monkeypatch: pytest.MonkeyPatch) -> None:
    from archiver.sync import Syncer

    _home(box)

    def killed(self: Syncer) -> Any:
        os.kill(os.getpid(), signal.SIGTERM)
        raise AssertionError("SIGTERM did not stop the run")

    monkeypatch.setattr(Syncer, "run", killed)
    before = signal.getsignal(signal.SIGTERM)
    code, out, err = _run(["sync", "--config", str(box.config), "--json", "--workers", "1"])
    assert (code, out) == (143, "")
    assert err.endswith("archiver: terminated (SIGTERM)\n"), err
    assert signal.getsignal(signal.SIGTERM) is before
    last = json.loads(_run(["status", "--config", str(box.config), "--json"])[1])["last_run"]
    assert last["aborted"] is True and last["errors"] == ["terminated (SIGTERM)"]


def test_a_sync_that_finds_nothing_changed_imports_no_rich_boto3_or_presidio(box: Box) -> None:
    _home(box)
    assert _run(["sync", "--config", str(box.config), "--json", "--workers", "1"])[0] == 0
    probe = ("import sys; from archiver.cli import main; "
             f"code = main(['sync', '--config', {str(box.config)!r}, '--quiet', '--workers', '1']); "
             "print(code, *(any(m == p or m.startswith(p + '.') for m in sys.modules) "
             "for p in ('boto3', 'rich', 'presidio_analyzer', 'importlib.metadata')), "
             "'archiver.commands.sync' in sys.modules)")
    env = {k: v for k, v in os.environ.items() if k not in ("ARCHIVER_CONFIG", "COLUMNS")}
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, env=env)
    assert out.stdout.split() == ["0", "False", "False", "False", "False", "True"], out.stderr


def test_python_m_archiver_cli_maps_command_errors_to_exit_codes(tmp_path: Path) -> None:
    """Run as `python -m archiver.cli`, the commands (which import archiver.cli) raise that
    module's UsageError: main must be that module's too, so a usage error is exit 2, not a crash."""
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["keygen", "--out", str(tmp_path / "keys")]) == 0
    env = {k: v for k, v in os.environ.items() if k != "ARCHIVER_CONFIG"}
    for argv, message in ((["ls", "--at", "not-a-time"], "archiver: --at: cannot read 'not-a-time' as a time"),
                          (["keygen", "--out", str(tmp_path / "keys")],
                           f"archiver: {tmp_path / 'keys' / 'identity.txt'} already exists")):
        out = subprocess.run([sys.executable, "-m", "archiver.cli", *argv, "--log-format", "human"],
                             capture_output=True, text=True, timeout=60, env=env, cwd=tmp_path)
        assert (out.returncode, out.stdout) == (2, ""), (argv, out.stderr)
        assert out.stderr.startswith(message) and out.stderr.count("\n") == 1, out.stderr
