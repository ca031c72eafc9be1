"""The suite runs as from a terminal even when started in the background of a non-interactive
shell (`bash .ci/run &`), which hands every process below it SIGINT ignored (conftest's
_signals_as_from_a_terminal). Run this file that way to check: `bash -c 'pytest FILE & wait'`."""

from __future__ import annotations

import signal
import subprocess
import sys


def test_this_process_raises_keyboardinterrupt_on_sigint() -> None:
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    assert signal.SIGINT not in signal.pthread_sigmask(signal.SIG_BLOCK, [])


def test_a_cli_it_starts_takes_sigint_as_from_a_terminal() -> None:
    probe = ("import signal; print(signal.getsignal(signal.SIGINT) is signal.default_int_handler, "
             "signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, []))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["True", "False"]
