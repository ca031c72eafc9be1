"""A secrets file read in one record, its entries in a later one (archiver/redact/walkers/toolpair.py):
`cat /etc/pgbouncer/userlist.txt` in a tool call, or a read tool's call on that path (Claude Code's
`Read`, OpenCode's `read`, pi's `read`), and the file's lines in the result, where no line names the
file. The entries' shape (`"user" "password"`, `user * secret *`, `user:password`) is a secret only
near the file's name (service-secrets-file-line), so the result alone kept every password (red team
s42, left open by round 10). Now every line of such an output is scanned after the command line, for
each harness's call/result shape (tests/test_s14_toolpair.py's, records following
/work/shared/seeds/by-harness/*.json), compared byte for byte. What must stay: the same shapes in a
file of another name, the output of `ls -l` on the secrets file, an error result."""

from __future__ import annotations

import json
from typing import Any

import pytest

from archiver.redact.base import RedactionReport
from archiver.redact.pseudonym import Pseudonymizer
from archiver.redact.walkers import toolpair
from tests.fx_redact import builtin_redactor
from tests.test_s14_toolpair import SHAPES, redact

KEY = b"s42-file-reads-test-key-0123456789abcd"
P = Pseudonymizer(KEY)
RULE = "service-secrets-file-line"

PW1, PW2, PW3 = "Wq8zLk3Tr9vXm2", "Zp4#mN7qRt2x", "hT6vR1qZ8mWc"
USERLIST = f'"pgb_admin" "{PW1}"\n"stats_ro" "{PW2}"\n' + "".join(f'"svc{n}" "{PW3}{n}"\n' for n in range(40))
CHAP = f"alice\t*\t{PW1}\t*\nbob * {PW2} 10.0.0.7\n"
RSYNC = f"backup:{PW1}\nmirror:{PW2}\n"


@pytest.fixture(scope="module")
def red():  # noqa: ANN201
    return builtin_redactor(KEY, ["zelda"], ["Zelda Quixote"])


def pw(value: str) -> str:
    return P.token("PASSWORD", value)


def redacted_text(text: str) -> str:
    """text with each planted password replaced by its token (the longest first: `...1` is in `...10`)."""
    for value in sorted((PW1, PW2, *(f"{PW3}{n}" for n in range(40))), key=len, reverse=True):
        text = text.replace(value, pw(value))
    return text


def line(obj: Any) -> bytes:
    """A record as the harnesses write it: compact, UTF-8 as is (`→` of Claude's line numbers)."""
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode()


def as_records(lines: list[bytes]) -> list[Any]:
    return [json.loads(x) for x in lines]


@pytest.mark.parametrize("harness", sorted(SHAPES))
def test_cat_of_a_secrets_file_in_every_harness_shape(red, harness: str) -> None:  # noqa: ANN001
    src = SHAPES[harness]("call_s42cat", "sudo cat /etc/pgbouncer/userlist.txt", USERLIST)
    report = RedactionReport()
    out = redact(red, src, report)
    assert out == [redacted_text(x.decode()).encode() for x in src]  # byte for byte
    assert report.by_rule()[RULE] >= 42


def claude_read(path: str, content: str, is_error: bool = False) -> list[bytes]:
    numbered = "".join(f"{i + 1:>6}\u2192{t}\n" for i, t in enumerate(content.splitlines()))
    use = {"type": "assistant", "message": {"role": "assistant", "content": [
        {"type": "tool_use", "id": "toolu_01S42Read", "name": "Read", "input": {"file_path": path}}]}}
    res = {"type": "user", "message": {"role": "user", "content": [
        {"tool_use_id": "toolu_01S42Read", "type": "tool_result", "content": numbered, "is_error": is_error}]},
        "toolUseResult": {"type": "text", "file": {"filePath": path, "content": content,
                                                   "numLines": content.count("\n"), "startLine": 1,
                                                   "totalLines": content.count("\n")}}}
    return [line(use), line(res)]


def opencode_read(path: str, content: str) -> list[bytes]:
    out = "<file>\n" + "".join(f"{i + 1:05d}| {t}\n" for i, t in enumerate(content.splitlines())) + "</file>"
    return [line({"id": "prt_01", "messageID": "msg_01", "sessionID": "ses_01", "type": "tool", "callID": "call_oc",
                  "tool": "read", "state": {"status": "completed", "input": {"filePath": path}, "output": out,
                                            "title": path, "metadata": {}, "time": {"start": 1, "end": 2}}})]


def pi_read(path: str, content: str) -> list[bytes]:
    call = {"type": "message", "id": "e1", "parentId": "e0", "message": {"role": "assistant", "content": [
        {"type": "toolCall", "id": "call_pi", "name": "read", "arguments": {"path": path}}], "stopReason": "toolUse"}}
    res = {"type": "message", "id": "e2", "parentId": "e1", "message": {
        "role": "toolResult", "toolCallId": "call_pi", "toolName": "read", "content": [{"type": "text", "text": content}],
        "isError": False}}
    return [line(call), line(res)]


READS = {"claude-read": claude_read, "opencode-read": opencode_read, "pi-read": pi_read}
FILES = [("/etc/pgbouncer/userlist.txt", USERLIST), ("/etc/ppp/chap-secrets", CHAP), ("/etc/rsyncd.secrets", RSYNC)]


@pytest.mark.parametrize(("path", "content"), FILES, ids=["userlist", "chap-secrets", "rsyncd"])
@pytest.mark.parametrize("tool", sorted(READS))
def test_a_read_tool_on_a_secrets_file(red, tool: str, path: str, content: str) -> None:  # noqa: ANN001
    src = READS[tool](path, content)
    out = redact(red, src, RedactionReport())
    assert out[:-1] == src[:-1]  # the call record is kept as it was
    assert out[-1] == redacted_text(src[-1].decode()).encode()
    rec = as_records(out)[-1]
    if tool == "claude-read":  # the structured copy, without line numbers, took the same tokens
        assert rec["toolUseResult"]["file"]["content"] == redacted_text(content)


def test_cat_n_numbers_are_no_part_of_an_entry(red) -> None:  # noqa: ANN001
    numbered = "".join(f"{i + 1:>6}\t{t}\n" for i, t in enumerate(RSYNC.splitlines()))
    src = SHAPES["claude"]("toolu_catn", "cat -n /etc/rsyncd.secrets", numbered)
    out = redact(red, src, RedactionReport())
    res = as_records(out)[1]
    assert res["message"]["content"][0]["content"] == (f"     1\tbackup:{pw(PW1)}\n     2\tmirror:{pw(PW2)}\n")


@pytest.mark.parametrize("tool", sorted(READS))
def test_the_same_shapes_in_a_file_of_another_name_are_kept(red, tool: str) -> None:  # noqa: ANN001
    content = f'Set "user" "{PW1}" in the list\nalice * {PW2} *\nbackup:{PW1}\n'
    src = READS[tool]("/srv/app/docs/README.md", content)
    assert redact(red, src, RedactionReport()) == src


def test_ls_of_the_secrets_file_and_an_error_result_are_kept(red) -> None:  # noqa: ANN001
    ls = "-rw-r----- 1 postgres postgres 1204 Mar  3 10:12 /etc/pgbouncer/userlist.txt\n"
    src = SHAPES["claude"]("toolu_ls", "ls -l /etc/pgbouncer/userlist.txt", ls)
    assert redact(red, src, RedactionReport()) == src
    # an error result is left to the ordinary rules (a Read's error text is no file content)
    err = claude_read("/etc/pgbouncer/userlist.txt", f'"x" "{PW1}"\n', is_error=True)
    assert as_records(redact(red, err, RedactionReport()))[-1]["message"]["content"][0]["content"] == \
        f'     1\u2192"x" "{PW1}"\n'


def test_a_long_read_is_scanned_to_its_last_line(red) -> None:  # noqa: ANN001
    content = "".join(f'"user{n}" "{PW3}{n % 40}"\n' for n in range(3000))
    src = claude_read("/etc/pgbouncer/userlist.txt", content)
    got = as_records(redact(red, src, RedactionReport()))[-1]["toolUseResult"]["file"]["content"]
    assert got.splitlines()[-1] == f'"user2999" "{pw(f"{PW3}39")}"'
    assert PW3 not in got


def test_only_a_read_of_a_secrets_file_is_looked_at(red) -> None:  # noqa: ANN001
    """A read names its file by a path key, so the pairing looks for a read where a secrets file's name
    is (the whole-output rules' keywords), not in every record holding a path."""
    pairs = red.json.pairs
    assert pairs.wants(line({"name": "Read", "id": "t1", "input": {"file_path": "/etc/pgbouncer/userlist.txt"}}), True)
    assert not pairs.wants(line({"name": "Read", "id": "t2", "input": {"file_path": "/srv/app/README.md"}}), True)
    assert not pairs.wants(line({"type": "text", "file": {"filePath": "/srv/a.py", "content": "echo x"}}), True)
    assert toolpair._command({"name": "Read", "input": {"file_path": "/etc/ppp/chap-secrets"}}) == \
        "cat /etc/ppp/chap-secrets"  # noqa: SLF001
    assert toolpair._command({"name": "Edit", "input": {"file_path": "/etc/ppp/chap-secrets"}}) is None  # noqa: SLF001


# ---------------------------------------------------------------- a folder read: ls /home, ls /Users

LOGINS = ("qvothurl", "wren.k", "marlo-v")
LISTING = "".join(f"{x}\n" for x in (LOGINS[0], "lost+found", LOGINS[1], "ubuntu", "Shared", LOGINS[2], "linuxbrew"))


def with_users(text: str) -> str:
    for login in LOGINS:
        text = text.replace(login, P.username(login))
    return text


@pytest.mark.parametrize("cmd", ["ls /home", "ls -1 /Users/", "cd / && ls -a /home"])
@pytest.mark.parametrize("harness", sorted(SHAPES))
def test_ls_of_the_home_root_loses_every_login(red, harness: str, cmd: str) -> None:  # noqa: ANN001
    """Each entry of `ls /home` (one a line, as ls prints to an agent's tool) is an account: every line
    of the output is read after the command, the system's and macOS's own entries stay."""
    src = SHAPES[harness]("call_s42ls", cmd, LISTING)
    report = RedactionReport()
    assert redact(red, src, report) == [with_users(x.decode()).encode() for x in src]
    assert report.by_rule()["home-listing-user"] >= 3


def test_ls_of_a_home_folder_and_a_command_naming_no_home_root_are_kept(red) -> None:  # noqa: ANN001
    # (the command's own /home/<login> is the paths pack's, as ever: the output is what is judged here)
    for cmd, out in (("ls /home/qvothurl", "src\nREADME.md\n"), ("ls /srv", "qvothurl\nwww\n"),
                     ("ls /home", "ubuntu\nlost+found\nShared\n")):
        src = SHAPES["claude"]("toolu_ls2", cmd, out)
        res = as_records(redact(red, src, RedactionReport()))[1]
        assert res["message"]["content"][0]["content"] == out, cmd
