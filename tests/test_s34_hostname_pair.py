"""`hostname` / `uname -n` / `hostnamectl hostname` run as a tool call whose output is in a later
record (a Claude tool_result, a Codex function_call_output): the printed host name is the machine's
(HOST token), as whoami's output is the login (s33). Output of other commands, and generic names,
stay."""

from __future__ import annotations

from pathlib import Path

import pytest

from archiver.redact.pseudonym import Pseudonymizer
from archiver.redact.redactor import build_redactor
from archiver.redact.rules import RuntimeTerms
from tests.fx_redact import redacted_file
from tests.fx_redteam import claude_pair, codex_pair

KEY = b"team-key-for-tests-0123456789abcdef"
PACKS = ["builtin:secrets", "builtin:pii", "builtin:paths"]
HOST = Pseudonymizer(KEY).token("HOST", b"qv-thinkpad-07")


@pytest.fixture(scope="module")
def red():  # noqa: ANN201
    return build_redactor(PACKS, KEY, RuntimeTerms())


@pytest.fixture()
def folder(tmp_path: Path) -> Path:
    tmp_path.chmod(0o700)
    return tmp_path


@pytest.mark.parametrize("cmd", ["hostname", "hostname -f", "uname -n", "hostnamectl hostname", "cd /srv && hostname"])
@pytest.mark.parametrize("pair", [codex_pair, claude_pair])
def test_the_host_printed_by_a_command_in_an_earlier_record(red, folder: Path, cmd: str, pair) -> None:  # noqa: ANN001
    src = pair(cmd, "qv-thinkpad-07\n")
    out, by_rule = redacted_file(red, folder, "s.jsonl", src)
    assert out == src.replace(b"qv-thinkpad-07", HOST.encode())
    assert by_rule.get("hostname-output", 0) >= 1


@pytest.mark.parametrize("pair", [codex_pair, claude_pair])
@pytest.mark.parametrize(("cmd", "output"), [("hostname", "localhost\n"), ("ls", "qv-thinkpad-07\n"),
                                             ("echo hostname", "hostname\n"), ("git log -1 --format=%h", "3f2a9c1\n")])
def test_other_output_and_generic_hosts_stay(red, folder: Path, pair, cmd: str, output: str) -> None:  # noqa: ANN001
    src = pair(cmd, output)
    assert redacted_file(red, folder, "s.jsonl", src)[0] == src
