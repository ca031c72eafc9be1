"""The secrets red teams' session shapes (tests/test_s32_secret_redteam.py, test_s33_*): a text
planted in a Claude Code tool_result with its toolUseResult sidecar, a Codex function_call_output,
a file-history backup, an SQLite TEXT cell, a `git diff` adding it, or a user's prose, redacted
there and read back; the byte-for-byte checks of a planted case and of a text kept whole; and a
command with its output in a later record (Claude Code, Codex) for the tool-pairing rules. No tests
here."""

from __future__ import annotations

import json
import os
import random
import sqlite3
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import pytest

from archiver.redact.base import RedactionReport
from archiver.redact.pseudonym import Pseudonymizer
from tests.fx_s25_recall import claude_tool_result, codex_output

CARRIERS = ("claude", "codex", "sidecar", "sqlite", "diff", "prose")
# The negative every secrets red team keeps byte for byte: a commit and a merge line, request ids, digests
# and an inline image
IDS_AND_DIGESTS = ("commit 3f9a0c2e7b14d58a9c6e1f2a3b4c5d6e7f8091a2\n"
                   "Merge: 1a2b3c4 5d6e7f8\n"
                   "request id 0d4f5b8e-9c3a-4e7b-8f21-6a5d3c2b1e0f\n"
                   "x-request-id: req_8f2a9c1d4e7b6a30\n"
                   "sha256:9e107d9d372bb6826bd81d3542a419d6e277d4d731479571562b82f74494341f\n"
                   "md5 d41d8cd98f00b204e9800998ecf8427e\n"
                   "img: data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==\n")


@dataclass(frozen=True)
class Case:
    name: str
    template: str  # the text, @0@, @1@ ... where the secrets go
    secrets: tuple[tuple[str, str], ...]  # (label, value) for each placeholder
    carriers: tuple[str, ...] = CARRIERS


def fake_value(round_: str, seed: str, alphabet: str, n: int) -> str:
    """n characters of `alphabet` from a RNG seeded by the red team's round and `seed`, with two letters and
    two digits at least, and a letter or digit first (a value that opens with `-` or `*` reads as a flag or
    a mask)."""
    rng = random.Random(f"{round_}:{seed}")
    while True:
        v = "".join(rng.choice(alphabet) for _ in range(n))
        if v[0].isalnum() and sum(ch.isalpha() for ch in v) >= 2 and sum(ch.isdigit() for ch in v) >= 2:
            return v


def case(name: str, template: str, *secrets: tuple[str, str], carriers: tuple[str, ...] = CARRIERS) -> Case:
    return Case(name, template, secrets, carriers)


def as_diff(text: str) -> str:
    lines = text.splitlines()
    return ("diff --git a/config/settings b/config/settings\nindex 3b18e51..a9c2f04 100644\n--- a/config/settings\n+++ b/config/settings\n"
            f"@@ -1,1 +1,{len(lines) + 1} @@\n # settings\n" + "".join(f"+{ln}\n" for ln in lines))


def redact_sqlite_cell(red: Any, text: str, report: RedactionReport | None = None) -> str:
    """`text` as a TEXT cell of a real SQLite file redacted by `red`, read back."""
    with tempfile.TemporaryDirectory(prefix="redteam-sqlite-") as d:
        os.chmod(d, 0o700)
        src, dst = Path(d, "in"), Path(d, "out")
        conn = sqlite3.connect(src)
        conn.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
        conn.execute("INSERT INTO notes VALUES (1, ?)", (text,))
        conn.commit()
        conn.close()
        red.redact_file(src, dst, "sqlite", report or RedactionReport())
        conn = sqlite3.connect(dst)
        out = conn.execute("SELECT body FROM notes").fetchone()[0]
        conn.close()
        return str(out)


def redact_in(red: Any, carrier: str, text: str) -> tuple[str, str]:
    """(the redacted text as it came back in `carrier`, the whole redacted output it sat in)."""
    report = RedactionReport()
    if carrier == "prose":
        out = red.redact_text(text, report)
        return out, out
    if carrier in ("claude", "diff"):
        body = as_diff(text) if carrier == "diff" else text
        line = red.redact_jsonl_line(claude_tool_result(body).encode(), report).decode()
        rec = json.loads(line)
        got = rec["message"]["content"][0]["content"]
        assert rec["toolUseResult"]["file"]["content"] == got
        return got, line
    if carrier == "codex":
        line = red.redact_jsonl_line(codex_output(text).encode(), report).decode()
        return json.loads(line)["payload"]["output"].split("Output:\n", 1)[1], line
    if carrier == "sidecar":  # a file-history backup: the file's bytes as they were
        with tempfile.TemporaryDirectory(prefix="redteam-sidecar-") as d:
            os.chmod(d, 0o700)
            src, dst = Path(d, "in"), Path(d, "out")
            src.write_bytes(text.encode())
            red.redact_file(src, dst, "text", report)
            out = dst.read_text()
            return out, out
    out = redact_sqlite_cell(red, text, report)
    return out, out


def expected(carrier: str, text: str) -> str:
    return as_diff(text) if carrier == "diff" else text


def check_planted(red: Any, key: bytes, case: Case, carrier: str) -> None:
    """`case` with its secrets planted, redacted in `carrier`: each secret replaced by its keyed
    token and every other byte kept; no secret anywhere in the output, raw or JSON-escaped."""
    text, want = case.template, case.template
    pseudo = Pseudonymizer(key)
    for i, (label, value) in enumerate(case.secrets):
        text = text.replace(f"@{i}@", value)
        want = want.replace(f"@{i}@", pseudo.token(label, value))
    got, whole = redact_in(red, carrier, text)
    assert got == expected(carrier, want)
    for _, v in case.secrets:
        assert v not in whole and json.dumps(v)[1:-1] not in whole


def planted_params(cases: list[Case]) -> tuple[list[tuple[Case, str]], list[str]]:
    """(case, carrier) pairs for pytest.mark.parametrize, and their ids."""
    params = [(case, carrier) for case in cases for carrier in case.carriers]
    return params, [f"{case.name}-{carrier}" for case, carrier in params]


def check_replaced(red: Any, carrier: str, text: str, want: str, private: tuple[str, ...]) -> None:
    """`text` redacted in `carrier` is `want` (as that carrier shows it), and none of `private` is left
    anywhere in the output (a PII red team's planted names, logins and hosts)."""
    got, whole = redact_in(red, carrier, text)
    assert got == expected(carrier, want)
    for value in private:
        assert value not in whole


def check_kept(red: Any, carrier: str, text: str) -> None:
    """A text without secrets comes back from `carrier` byte for byte."""
    got, _ = redact_in(red, carrier, text)
    assert got == expected(carrier, text)


def redteam_tests(key: bytes, cases: list[Case], negatives: dict[str, str]) -> tuple[Callable[..., Any], ...]:
    """A red team module's fixture and tests: `red` (the built-in packs under `key`), every case
    planted in each of its carriers, and every negative text kept in every carrier. A module
    binds them to these names: `red, test_secret_is_replaced_and_the_rest_kept,
    test_text_without_secrets_is_kept_byte_for_byte = redteam_tests(KEY, CASES, NEGATIVES)`."""
    from tests.fx_redact import builtin_redactor

    @pytest.fixture(scope="module")
    def red():  # noqa: ANN202
        return builtin_redactor(key)

    planted, ids = planted_params(cases)

    @pytest.mark.parametrize("case,carrier", planted, ids=ids)
    def test_secret_is_replaced_and_the_rest_kept(red, case: Case, carrier: str) -> None:  # noqa: ANN001
        check_planted(red, key, case, carrier)

    @pytest.mark.parametrize("name", sorted(negatives))
    @pytest.mark.parametrize("carrier", CARRIERS)
    def test_text_without_secrets_is_kept_byte_for_byte(red, name: str, carrier: str) -> None:  # noqa: ANN001
        check_kept(red, carrier, negatives[name])

    return red, test_secret_is_replaced_and_the_rest_kept, test_text_without_secrets_is_kept_byte_for_byte


def jsonl(*recs: dict[str, Any]) -> bytes:
    """Records as a transcript writes them (compact, as a changed line is written again)."""
    return "".join(json.dumps(x, separators=(",", ":"), ensure_ascii=False) + "\n" for x in recs).encode()


def codex_pair(cmd: str, out: str) -> bytes:
    """A Codex exec_command call and, in the next record, its function_call_output."""
    return jsonl(*[
        {"timestamp": "2026-03-02T10:11:12.345Z", "type": "response_item",
         "payload": {"type": "function_call", "name": "exec_command", "call_id": "call_s33who",
                     "arguments": json.dumps({"cmd": cmd})}},
        {"timestamp": "2026-03-02T10:11:13.345Z", "type": "response_item",
         "payload": {"type": "function_call_output", "call_id": "call_s33who",
                     "output": f"Process exited with code 0\nWall time: 0.1 seconds\nOutput:\n{out}"}},
    ])


def claude_pair(cmd: str, out: str) -> bytes:
    """A Claude Code Bash tool_use and, in the next record, its tool_result and toolUseResult."""
    return jsonl(*[
        {"type": "assistant", "cwd": "/workspace", "sessionId": "5b1e8f0c-2d3a-4c4b-9e6f-7a8b9c0d1e2f",
         "message": {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_01S33WhoAmI", "name": "Bash",
                                                       "input": {"command": cmd}}]}},
        {"type": "user", "cwd": "/workspace", "sessionId": "5b1e8f0c-2d3a-4c4b-9e6f-7a8b9c0d1e2f",
         "message": {"role": "user", "content": [{"tool_use_id": "toolu_01S33WhoAmI", "type": "tool_result",
                                                  "content": out, "is_error": False}]},
         "toolUseResult": {"stdout": out, "stderr": "", "interrupted": False}},
    ])
