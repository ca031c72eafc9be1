"""A command that prints a secret (op read, gh auth token, echo $DB_PASSWORD, ...) and its output in a
later record linked by an id: the bare secret in the result is gone, for each harness's call/result
shape (records generated following /work/shared/seeds/by-harness/*.json `linking` and the DeepSeek
catalog 003_*.txt), while the records stay valid JSON with the same keys, the command line stays as it
is, and the output of a command that prints no secret is kept byte for byte."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

import pytest

from archiver.redact.base import RedactionReport
from tests.fx_redact import builtin_redactor, redacted_table

KEY = b"s14-toolpair-test-key-0123456789abc"
RULE = "secret-printing-command-output"


@pytest.fixture(scope="module")
def red():  # noqa: ANN201
    return builtin_redactor(KEY, ["zelda"], ["Zelda Quixote"])


def fake(n: int) -> str:
    """A password-like value no rule knows by its shape."""
    return f"Vq{n}x-FAKE.pw!{n * 7 % 97}k"


def line(obj: Any) -> bytes:
    return json.dumps(obj, separators=(",", ":")).encode()


def shape(v: Any) -> Any:
    """The structure of a JSON value, strings left out (JSON inside a string included)."""
    if isinstance(v, dict):
        return {k: shape(x) for k, x in v.items()}
    if isinstance(v, list):
        return [shape(x) for x in v]
    if isinstance(v, str) and v[:1] == "{":
        try:
            return ("json", shape(json.loads(v)))
        except ValueError:
            return str
    return type(v).__name__


# ---------------------------------------------------------------- harness shapes
# each: (call id, command, output) -> the JSONL records of the call and of its result(s)

def claude(cid: str, cmd: str, out: str) -> list[bytes]:
    use = {"type": "assistant", "uuid": "a1", "message": {"role": "assistant", "content": [
        {"type": "tool_use", "id": cid, "name": "Bash", "input": {"command": cmd, "description": "run"}}]}}
    res = {"type": "user", "uuid": "u1", "parentUuid": "a1", "sourceToolAssistantUUID": "a1",
           "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": cid, "content": out}]},
           "toolUseResult": {"stdout": out.rstrip("\n"), "stderr": "", "interrupted": False, "isImage": False}}
    return [line(use), line(res)]


def claude_blocks(cid: str, cmd: str, out: str) -> list[bytes]:
    use = {"type": "assistant", "message": {"role": "assistant", "content": [
        {"type": "tool_use", "id": cid, "name": "Bash", "input": {"command": cmd}}]}}
    res = {"type": "user", "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": cid, "content": [{"type": "text", "text": out}]}]}}
    return [line(use), line(res)]


def codex_function_call(cid: str, cmd: str, out: str) -> list[bytes]:
    args = json.dumps({"command": ["bash", "-lc", cmd], "workdir": "/work/app", "timeout_ms": 10000})
    call = {"timestamp": "2026-01-02T03:04:05.678Z", "type": "response_item",
            "payload": {"type": "function_call", "name": "shell", "arguments": args, "call_id": cid}}
    res = {"timestamp": "2026-01-02T03:04:06.000Z", "type": "response_item",
           "payload": {"type": "function_call_output", "call_id": cid,
                       "output": f"Exit code: 0\nWall time: 0.2 seconds\nOutput:\n{out}"}}
    return [line(call), line(res)]


def codex_json_output(cid: str, cmd: str, out: str) -> list[bytes]:
    args = json.dumps({"command": ["bash", "-lc", cmd]})
    call = {"type": "response_item", "payload": {"type": "function_call", "name": "shell", "arguments": args,
                                                 "call_id": cid}}
    inner = json.dumps({"output": out, "metadata": {"exit_code": 0, "duration_seconds": 0.1}},
                       separators=(",", ":"))
    res = {"type": "response_item", "payload": {"type": "function_call_output", "call_id": cid, "output": inner}}
    return [line(call), line(res)]


def codex_local_shell(cid: str, cmd: str, out: str) -> list[bytes]:
    call = {"type": "response_item", "payload": {"type": "local_shell_call", "call_id": cid, "status": "completed",
                                                 "action": {"type": "exec", "command": ["bash", "-lc", cmd],
                                                            "timeout_ms": None, "working_directory": None}}}
    res = {"type": "response_item", "payload": {"type": "function_call_output", "call_id": cid,
                                                "output": f"Process exited with code 0\nOutput:\n{out}"}}
    return [line(call), line(res)]


def codex_exec_events(cid: str, cmd: str, out: str) -> list[bytes]:
    begin = {"type": "event_msg", "payload": {"type": "exec_command_begin", "call_id": cid,
                                              "command": ["bash", "-lc", cmd], "cwd": "/work/app"}}
    end = {"type": "event_msg", "payload": {"type": "exec_command_end", "call_id": cid, "stdout": out, "stderr": "",
                                            "aggregated_output": out, "exit_code": 0, "formatted_output": out}}
    return [line(begin), line(end)]


def codex_command_execution(cid: str, cmd: str, out: str) -> list[bytes]:
    item = {"type": "event_msg", "payload": {"type": "item_completed", "thread_id": "t", "turn_id": "t1", "item": {
        "type": "CommandExecution", "id": cid, "command": ["/bin/zsh", "-lc", cmd], "cwd": "file:///work/app",
        "parsed_cmd": [{"type": "unknown", "cmd": cmd}], "source": "agent", "status": "completed",
        "aggregated_output": out, "exit_code": 0}}}
    return [line(item)]


def pi(cid: str, cmd: str, out: str) -> list[bytes]:
    call = {"type": "message", "id": "e1", "parentId": "e0", "message": {"role": "assistant", "content": [
        {"type": "toolCall", "id": cid, "name": "bash", "arguments": {"command": cmd}}], "stopReason": "toolUse"}}
    res = {"type": "message", "id": "e2", "parentId": "e1", "message": {
        "role": "toolResult", "toolCallId": cid, "toolName": "bash", "content": [{"type": "text", "text": out}],
        "isError": False}}
    return [line(call), line(res)]


def opencode(cid: str, cmd: str, out: str) -> list[bytes]:
    part = {"id": "prt_01", "messageID": "msg_01", "sessionID": "ses_01", "type": "tool", "callID": cid,
            "tool": "bash", "state": {"status": "completed", "input": {"command": cmd, "description": "run"},
                                      "output": out, "title": cmd, "metadata": {"output": out, "exit": 0},
                                      "time": {"start": 1, "end": 2}}}
    return [line(part)]


def deepseek(cid: str, cmd: str, out: str) -> list[bytes]:
    call = {"type": "tool/call", "seq": 7, "time": 1767323045678,
            "data": {"turn": 1, "step": 1, "callId": cid, "name": "bash", "arguments": json.dumps({"command": cmd})}}
    res = {"type": "tool/result", "seq": 8, "time": 1767323046000, "data": {"turn": 1, "step": 1, "message": {
        "id": "m8", "role": "user", "source": {"kind": "tool", "callId": cid},
        "content": [{"type": "tool-result", "toolCallId": cid, "content": [{"type": "text", "text": out}]}]}}}
    return [line(call), line(res)]


SHAPES: dict[str, Callable[[str, str, str], list[bytes]]] = {
    "claude": claude, "claude-blocks": claude_blocks, "codex-function-call": codex_function_call,
    "codex-json-output": codex_json_output, "codex-local-shell": codex_local_shell,
    "codex-exec-events": codex_exec_events, "codex-command-execution": codex_command_execution,
    "pi": pi, "opencode": opencode, "deepseek": deepseek,
}
SECRET_COMMANDS = [
    "op read op://Private/prod-db/password",
    "op item get prod-db --fields password --reveal",
    "bw get password github.com",
    "pass show acme/smtp",
    "gh auth token",
    "printenv GITHUB_TOKEN",
    "echo $DB_PASSWORD",
    "aws configure get aws_secret_access_key --profile prod",
    "security find-generic-password -a deploy -s acme -w",
    "vault kv get -field=password secret/prod/db",
    "doppler secrets get DB_PASSWORD --plain",
    "kubectl get secret db-creds -o jsonpath='{.data.password}' | base64 -d",
    "gcloud auth print-access-token",
    "az account get-access-token --resource https://vault.azure.net --query accessToken -o tsv",
    "cd /work/app && op read op://Private/prod-db/password",
]
PLAIN_COMMANDS = ["ls", "git status", "echo hello", "op whoami", "gh auth status", "bw get item github.com"]


def redact(red, lines: list[bytes], report: RedactionReport | None = None) -> list[bytes]:  # noqa: ANN001
    return red.redact_jsonl_lines(list(lines), report or RedactionReport())


def command_of(obj: Any) -> list[str]:
    """The command strings inside a record (as the walk of toolpair finds them)."""
    found: list[str] = []

    def walk(v: Any) -> None:
        if isinstance(v, dict):
            for k, x in v.items():
                if k in ("command", "cmd") and isinstance(x, str):
                    found.append(x)
                elif k in ("command", "cmd") and isinstance(x, list):
                    found.append(" ".join(x))
                elif k == "arguments" and isinstance(x, str):
                    walk(json.loads(x))
                else:
                    walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)
    walk(obj)
    return found


@pytest.mark.parametrize("harness", list(SHAPES))
def test_each_harness_shape_loses_the_printed_secret(red, harness: str) -> None:  # noqa: ANN001
    pw = fake(1)
    cmd = "op read op://Private/prod-db/password"
    lines = SHAPES[harness]("call_Xy12ab", cmd, pw + "\n")
    report = RedactionReport()
    out = redact(red, lines, report)
    assert pw.encode() not in b"".join(out)
    assert report.by_rule().get(RULE, 0) >= 1
    for a, b in zip(lines, out):
        before, after = json.loads(a), json.loads(b)
        assert shape(before) == shape(after)
        assert command_of(after) == command_of(before)  # the command line is unchanged
    assert b"<SECRET:" in b"".join(out)


@pytest.mark.parametrize("cmd", SECRET_COMMANDS)
def test_each_secret_printing_command_is_recognised(red, cmd: str) -> None:  # noqa: ANN001
    pw = fake(len(cmd))
    lines = claude("toolu_01Abc", cmd, pw + "\n")
    out = redact(red, lines)
    assert out[0] == lines[0]  # the call record: byte for byte
    assert pw.encode() not in out[1]
    after = json.loads(out[1])
    assert shape(after) == shape(json.loads(lines[1]))
    assert after["message"]["content"][0]["content"].endswith("\n")  # only the token went


def test_plain_commands_keep_their_output_beside_a_secret_one(red) -> None:  # noqa: ANN001
    """In one batch: a secret-printing call and calls that print nothing secret, their outputs as
    token-like as a secret; only the first is touched."""
    pw = fake(2)
    lines = claude("toolu_secret1", "gh auth token", pw + "\n")
    plain: list[bytes] = []
    for n, cmd in enumerate(PLAIN_COMMANDS):
        plain += claude(f"toolu_plain{n}", cmd, fake(100 + n) + "\n")
        plain += codex_function_call(f"call_plain{n}", cmd, fake(200 + n) + "\n")
    bw_item = '{\n  "object": "item",\n  "name": "github.com"\n}\n'
    plain += claude("toolu_bwitem", "bw get item github.com", bw_item)
    out = redact(red, lines + plain)
    assert pw.encode() not in out[1]
    assert out[2:] == plain


def test_a_result_whose_call_prints_no_secret_is_untouched(red) -> None:  # noqa: ANN001
    """The same id naming: only the id of the secret-printing call links; a result with another id,
    or one with no call seen, is kept as it is."""
    pw, other = fake(3), fake(4)
    call = claude("toolu_A", "op read op://Private/a/password", "")[0]
    call_b = claude("toolu_B", "git status", "")[0]
    res_a = claude("toolu_A", "x", pw + "\n")[1]
    res_b = claude("toolu_B", "x", other + "\n")[1]
    res_c = claude("toolu_C", "x", other + "\n")[1]  # no call seen
    out = redact(red, [call, call_b, res_b, res_c, res_a])
    assert out[:4] == [call, call_b, res_b, res_c]
    assert pw.encode() not in out[4]


def test_only_the_first_token_of_a_multiline_output_goes(red) -> None:  # noqa: ANN001
    """`pass show` prints the password, then fields: the password goes, the rest is the other rules'."""
    pw = fake(5)
    out_text = f"{pw}\nurl: https://smtp.example.net\nnote: rotate in March\n"
    lines = claude("toolu_pass", "pass show acme/smtp", out_text)
    out = redact(red, lines)
    got = json.loads(out[1])["message"]["content"][0]["content"]
    assert pw not in got
    assert got.endswith("\nurl: https://smtp.example.net\nnote: rotate in March\n")
    assert got.startswith("<SECRET:")


def test_an_error_result_and_an_error_word_are_kept(red) -> None:  # noqa: ANN001
    pw = fake(6)
    err = "[ERROR] 2026/11/30 10:00:00 could not read secret\n"
    lines = claude("toolu_e1", "op read op://Private/x/password", err)
    flagged = claude("toolu_e2", "op read op://Private/y/password", "Exit code 1\nnot signed in\n")
    res = json.loads(flagged[1])
    res["message"]["content"][0]["is_error"] = True
    flagged[1] = line(res)
    good = claude("toolu_ok", "op read op://Private/z/password", pw + "\n")
    out = redact(red, lines + flagged + good)
    assert out[:4] == lines + flagged
    assert pw.encode() not in out[5]


def test_the_pending_ids_are_bounded(red) -> None:  # noqa: ANN001
    """100k secret-printing calls never answered: the memory stays at PENDING_MAX ids, and the
    latest call still links."""
    from archiver.redact.walkers import toolpair

    report = RedactionReport()
    pairs = red.json.pairs
    batch: list[bytes] = []
    for n in range(100_000):
        batch.append(line({"type": "tool_use", "id": f"toolu_{n:06d}", "input": {"command": "gh auth token"}}))
        if len(batch) == 1000:
            redact(red, batch, report)
            batch = []
            assert len(pairs.pending) <= toolpair.PENDING_MAX
    assert len(pairs.pending) == toolpair.PENDING_MAX
    pw = fake(7)
    res = line({"type": "tool_result", "tool_use_id": "toolu_099999", "content": pw})
    assert pw.encode() not in redact(red, [res], report)[0]
    old = line({"type": "tool_result", "tool_use_id": "toolu_000001", "content": pw})
    assert redact(red, [old], report)[0] == old  # forgotten: the oldest go first


def test_pairing_spans_batches_of_one_job_but_not_two_jobs(red, tmp_path: Path) -> None:  # noqa: ANN001
    """A JSONL file redacted in batches (redact_file) and a worker segment (redact_segment): the
    call in the first batch, its result 300 lines later. A new report is a new job: no link."""
    from archiver.workers import redact_segment

    pw = fake(8)
    call, res = claude("toolu_far", "vault kv get -field=password secret/db", pw + "\n")
    filler = [line({"type": "progress", "n": n, "text": f"step {n} ok"}) for n in range(300)]
    src = tmp_path / "in.jsonl"
    src.write_bytes(b"\n".join([call, *filler, res]) + b"\n")
    dst = tmp_path / "out.jsonl"
    red.redact_file(src, dst, "jsonl", RedactionReport())
    data = dst.read_bytes()
    assert pw.encode() not in data
    assert data.split(b"\n")[:301] == [call, *filler]
    seg = tmp_path / "seg.jsonl"
    redact_segment(red, b"k" * 32, False, str(src), 0, src.stat().st_size, str(seg))
    assert pw.encode() not in seg.read_bytes()
    assert redact(red, [call], RedactionReport()) == [call]
    assert redact(red, [res], RedactionReport()) == [res]  # another job: the call is not known


def test_opencode_sqlite_cell_and_storage_file(red, tmp_path: Path) -> None:  # noqa: ANN001
    """OpenCode keeps the call and its output in one part: a SQLite JSON cell and a storage JSON file
    (pretty-printed, its layout kept)."""
    pw = fake(9)
    part = json.loads(opencode("call_oc1", "doppler secrets get DB_PASSWORD --plain", pw + "\n")[0])
    plain = json.loads(opencode("call_oc2", "ls", fake(10) + "\n")[0])
    rows = redacted_table(red, "part", "id TEXT PRIMARY KEY, data TEXT",
                          [("p1", json.dumps(part)), ("p2", json.dumps(plain))], tmp_path)
    assert pw not in rows["p1"]
    assert shape(json.loads(rows["p1"])) == shape(part)
    assert rows["p2"] == json.dumps(plain)
    f, g = tmp_path / "prt.json", tmp_path / "prt.out.json"
    text = json.dumps(part, indent=2) + "\n"
    f.write_text(text)
    red.redact_file(f, g, "json", RedactionReport())
    got = g.read_text()
    assert pw not in got
    assert got.replace(json.loads(got)["state"]["output"].rstrip("\n"), pw) == text


def test_the_command_pattern_is_the_rule(red) -> None:  # noqa: ANN001
    """The command side is the rule secret-printing-command-output itself: every secret command above
    is recognised, none of the plain ones, and a rule set without that rule pairs nothing."""
    pairs = red.json.pairs
    for cmd in SECRET_COMMANDS:
        assert pairs._prints_secret(cmd) is not None, cmd  # noqa: SLF001
    for cmd in PLAIN_COMMANDS + ["echo $PATH", "echo $GITHUB_TOKEN | gh auth login --with-token", "kubectl get secrets"]:
        assert pairs._prints_secret(cmd) is None, cmd  # noqa: SLF001
    assert pairs._prints_secret("cd /app\nop read op://a/b/password\necho done") == "op read op://a/b/password\n"  # noqa: SLF001
    from archiver.redact.redactor import RuleRedactor

    other = RuleRedactor([r for r in red.rules if r.id != RULE], red.pseudonyms)
    assert other.json.pairs is None
