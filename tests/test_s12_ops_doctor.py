"""`archiver doctor` fails the set-ups that make every sync fail (a file where the store or state
folder should be made, a state database SQLite cannot open) instead of passing them; and with
JSON logs, a crash is a JSON record, not a bare traceback. Real CLI, generated home (the Claude
sample, following the seeds), file:// store."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from archiver.cli import main
from archiver.demo.claude_sample import make_claude_home
from tests.fx_home import isolate_env

ROOT = Path(__file__).resolve().parent.parent
USER = "alice"


class Box:
    def __init__(self, base: Path) -> None:
        self.base, self.home, self.keys = base, base / "home", base / "keys"
        self.state, self.store = base / "state", base / "store"

    def config(self, *, state: Path | None = None, store: Path | None = None) -> Path:
        path = self.base / "config.toml"
        path.write_text(
            f'home = "{self.home}"\nhost = "doc-box"\n\n'
            f'[redaction]\nteam_key_file = "{self.keys / "team.key"}"\nusernames = ["{USER}"]\n\n'
            f'[encryption]\nrecipients_file = "{self.keys / "recipient.txt"}"\n\n'
            f'[store]\nurl = "file://{store or self.store}"\n\n[state]\ndir = "{state or self.state}"\n')
        path.chmod(0o600)
        return path

    def doctor(self, cfg: Path) -> tuple[int, dict[str, dict[str, Any]]]:
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            code = main(["doctor", "--config", str(cfg), "--json"])
        return code, {c["check"]: c for c in json.loads(buf.getvalue())["checks"]}


@pytest.fixture
def box(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Box:
    isolate_env(monkeypatch)
    b = Box(tmp_path)
    b.home.mkdir()
    make_claude_home(b.home, USER)
    assert main(["keygen", "--out", str(b.keys)]) == 0
    (b.keys / "identity.txt").unlink()  # a collector keeps no identity
    return b


def test_a_good_setup_passes_and_its_state_database_is_checked(box: Box) -> None:
    cfg = box.config()
    code, checks = box.doctor(cfg)
    assert code == 0, checks
    assert checks["store"]["status"] == "ok" and "created on first sync" in checks["store"]["detail"]
    assert checks["state dir"]["status"] == "ok" and "state database" not in checks  # nothing to check yet
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["sync", "--config", str(cfg), "--workers", "1", "-q"]) == 0
    code, checks = box.doctor(cfg)
    assert code == 0
    assert checks["state database"] == {"check": "state database", "status": "ok",
                                        "detail": f"{box.state / 'state.db'} (1 run(s) recorded)"}


def test_a_file_where_the_store_folder_would_be_made_fails(box: Box) -> None:
    blocker = box.base / "blocker"
    blocker.write_bytes(b"")
    code, checks = box.doctor(box.config(store=blocker / "store"))
    assert code == 2
    assert checks["store"]["status"] == "fail" and f"{blocker} is not a folder" in checks["store"]["detail"]


def test_a_file_where_the_state_dir_would_be_made_fails(box: Box) -> None:
    blocker = box.base / "blocker"
    blocker.write_bytes(b"")
    code, checks = box.doctor(box.config(state=blocker / "state"))
    assert code == 2
    assert checks["state dir"]["status"] == "fail" and f"{blocker} is not a folder" in checks["state dir"]["detail"]
    code, checks = box.doctor(box.config(state=blocker))
    assert code == 2 and checks["state dir"] == {"check": "state dir", "status": "fail",
                                                 "detail": f"{blocker}: not a folder"}


def test_a_state_database_sync_cannot_open_fails_and_a_damaged_one_warns(box: Box) -> None:
    cfg = box.config()
    box.state.mkdir(mode=0o700)
    db = box.state / "state.db"
    db.mkdir()
    code, checks = box.doctor(cfg)
    assert code == 2 and checks["state database"]["status"] == "fail"
    assert checks["state database"]["detail"].startswith(f"{db}: not a regular file")
    db.rmdir()
    db.write_bytes(b"this is not SQLite" * 100)
    code, checks = box.doctor(cfg)
    assert code == 0 and checks["state database"]["status"] == "warn", checks["state database"]
    assert "moves it aside" in checks["state database"]["detail"]
    assert db.read_bytes() == b"this is not SQLite" * 100  # doctor changed nothing


def test_with_json_logs_a_crash_is_one_json_record(box: Box) -> None:
    """A failure the CLI has no message for still reaches a log collector as JSON."""
    blocker = box.base / "blocker"
    blocker.write_bytes(b"")
    cfg = box.config(store=blocker / "store")  # the file:// store raises a bare OSError here
    out = subprocess.run([sys.executable, "-m", "archiver", "sync", "--config", str(cfg), "--workers", "1",
                          "--log-format", "json"], cwd=ROOT, capture_output=True, text=True, timeout=120,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert out.returncode == 1 and out.stdout == ""
    records = [json.loads(line) for line in out.stderr.splitlines()]  # every line parses
    assert records and records[-1]["level"] in ("critical", "error")
    if records[-1]["level"] == "critical":  # (until the file:// store says it as a StoreError)
        assert records[-1]["exc_type"] == "NotADirectoryError" and "Traceback" in records[-1]["exc"]


def test_with_json_logs_thread_and_finalizer_exceptions_are_json_records() -> None:
    program = (
        "import threading\n"
        "from archiver.logs import setup_logging\n"
        "setup_logging('json')\n"
        "def boom(): raise ValueError('in a thread')\n"
        "t = threading.Thread(target=boom, name='worker-x'); t.start(); t.join()\n"
        "class Bad:\n"
        "    def __del__(self): raise RuntimeError('in a finalizer')\n"
        "Bad()\n"
    )
    out = subprocess.run([sys.executable, "-c", program], cwd=ROOT, capture_output=True, text=True, timeout=60,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert out.returncode == 0, out.stderr
    records = [json.loads(line) for line in out.stderr.splitlines()]
    assert [(r["level"], r["exc_type"]) for r in records] == [("error", "ValueError"), ("warning", "RuntimeError")]
    assert records[0]["msg"] == "uncaught exception in thread worker-x: ValueError"
    assert records[1]["msg"] == "Exception ignored in Bad.__del__: RuntimeError"


def test_doctor_quiet_shows_only_problems(box: Box) -> None:
    cfg = box.config()
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert main(["doctor", "--config", str(cfg), "--quiet"]) == 0
    text = buf.getvalue()
    assert "team key" not in text and "recipients" not in text  # ok rows are left out
    assert "harness codex" not in text  # and skipped ones
    assert text.rstrip().endswith("0 failed, 6 skipped") and " ok, " in text
    (box.keys / "team.key").chmod(0o644)
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert main(["doctor", "--config", str(cfg), "--quiet"]) == 2
    assert "team key" in buf.getvalue() and "recipients" not in buf.getvalue()
