"""`archiver --help` and a usage error answer without importing pydantic (archiver.errors holds
ConfigError apart from the settings), and archiver.config.ConfigError is still that class."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

PROBE = """
import contextlib, io, sys
from archiver.cli import main
with contextlib.redirect_stdout(io.StringIO()) as out, contextlib.redirect_stderr(io.StringIO()):
    code = main(sys.argv[1:])
heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('pydantic', 'pydantic_settings', 'pydantic_core')
               and m != 'pydantic.plugin._loader')  # cli.py's own stub, not pydantic
print(code, len(out.getvalue()), ','.join(heavy) or '-')
"""


def _probe(*argv: str) -> list[str]:
    done = subprocess.run([sys.executable, "-c", PROBE, *argv], cwd=ROOT, capture_output=True, text=True,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_help_and_a_usage_error_import_no_pydantic() -> None:
    code, printed, heavy = _probe("--help")
    assert (code, heavy) == ("0", "-") and int(printed) > 500  # the whole help, and nothing heavy
    code, _, heavy = _probe("sync", "--no-such-option")
    assert (code, heavy) == ("2", "-")


def test_config_error_is_one_class() -> None:
    from archiver import config, errors

    assert config.ConfigError is errors.ConfigError
