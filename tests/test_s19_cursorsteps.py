"""Cursor protobuf fidelity inside subagent steps and printable tool calls.

Two holes of the schema hint (walkers/protobuf.py CURSOR_BLOB) that tests/test_s18_cursorpb.py
left: (1) a task tool call's TaskSuccess embeds the subagent's ConversationSteps inline, under a
field number the seed does not give, so a subagent's one-line edit (EditSuccess of printable
bytes) got no hint and was redacted as text, its inner lengths left stale; (2) a ToolCall without
tool_call_id (field 57, whose two-byte tag is never printable) and without a result can be all
printable, and was redacted as text. The walker now recognises an embedded ConversationStep and a
ToolCall by the structure the seed guarantees (walkers/protobuf.py STEP_SHAPE, TOOL_CALL_SHAPE)."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from archiver.redact.base import RedactionReport
from archiver.redact.redactor import RuleRedactor
from archiver.redact.walkers import protobuf
from tests.fx_s11_e2e import OTHER, build_in_child, decrypt_all, leaks, setup, tree_leaks
from tests.fx_s17_e2eco import f_int, f_len, parse_pb
from tests.fx_s18_cursorpb import (
    BLOBS, EDIT_CASE, GHP, GHP2, as_text, blob_redactor, cell, edit_files, edit_step, field, leaf, one_line,
)
from tests.fx_s19_cursorsteps import CHAT, READ_CASE, TASK_CASE, build_chat, pending_call, sub_steps, task_step, tree
from tests.test_redact_blob_text import ROOT, TEXTS

NOTE = f_len(1, f_len(1, "Editing config.py."))  # an embedded assistant_message step


@pytest.fixture(scope="module")
def red() -> RuleRedactor:
    return blob_redactor()


# ---------------------------------------------------------------- 1. a subagent's steps inside a task result


def test_the_trap_a_subagent_edit_result_reads_as_text() -> None:
    edit = edit_step("config.py", one_line(GHP), one_line(GHP2))
    task = task_step([edit])
    success = field(sub_steps(task)[0], 2, EDIT_CASE, 2, 1)
    assert protobuf.is_text(success, strict=True) and protobuf.kind(success)[0] == "text"
    assert protobuf.STEP_SHAPE.matches(sub_steps(task)[0]) and not protobuf.STEP_SHAPE.matches(NOTE)


@pytest.mark.parametrize("case, steps_field", [(TASK_CASE, 1), (19, 3), (40, 2), (1, 7)])
@pytest.mark.parametrize("sub_call_id", [None, "tool_00000000-0000-4000-8000-000000000019"])
def test_a_subagent_one_line_edit_keeps_its_shape(red: RuleRedactor, case: int, steps_field: int,
                                                  sub_call_id: str | None) -> None:
    before, after = one_line(GHP), one_line(GHP2, "  # rotated")
    edit = edit_step("config.py", before, after, sub_call_id)
    task = task_step([NOTE, edit], case=case, steps_field=steps_field)
    out = cell(red, task)
    assert GHP.encode() not in out and GHP2.encode() not in out
    assert tree(out) == tree(task)
    note, new_edit = sub_steps(out, case, steps_field)
    assert note == NOTE
    assert edit_files(new_edit) == (as_text(red, before), as_text(red, after))
    assert edit_files(new_edit)[0].startswith(b"TOKEN = '<GITHUB_TOKEN:")
    assert field(new_edit, 2, EDIT_CASE, 1, 2) == as_text(red, after)  # EditArgs.stream_content
    assert field(out, 2, case, 1) == field(task, 2, case, 1)  # the task's args: nothing to redact
    assert cell(red, out) == out  # stable


def test_the_walker_with_the_schema_alone(red: RuleRedactor) -> None:
    task = task_step([edit_step("config.py", one_line(GHP), one_line(GHP2), "tool_sub_1")])
    out = protobuf.redact_message(task, leaf, schema=protobuf.CURSOR_BLOB)
    assert out is not None and tree(out) == tree(task)
    assert edit_files(sub_steps(out)[0]) == (b"TOKEN = '<T1>'\n", b"TOKEN = '<T2>'\n")
    without = protobuf.redact_message(task, leaf)  # the heuristics alone: what the hint is for
    assert without is not None and tree(without) != tree(task)


def test_a_subagent_of_a_subagent_keeps_its_shape(red: RuleRedactor) -> None:
    inner = task_step([edit_step("deep.py", one_line(GHP), one_line(GHP2))], call_id=None, case=19, steps_field=3)
    outer = task_step([NOTE, inner])
    out = cell(red, outer)
    assert tree(out) == tree(outer) and b"ghp_" not in out
    (deep,) = sub_steps(sub_steps(out)[1], 19, 3)
    assert edit_files(deep) == (as_text(red, one_line(GHP)), as_text(red, one_line(GHP2)))


def test_a_task_step_without_secrets_comes_back_byte_identical(red: RuleRedactor) -> None:
    plain = one_line("not a secret at all, just text"), one_line("still no secret here, plain")
    clean = [edit_step("config.py", *plain),
             pending_call(f_len(1, "notes/a-plain-file-name-of-some-length.md"))]
    for task in (task_step([NOTE, *clean]), *clean, task_step([task_step(clean, case=19)])):
        report = RedactionReport()
        assert red._cell(task, BLOBS, report) is task
        assert not report.counts


# ---------------------------------------------------------------- 2. a ToolCall of printable bytes


def test_the_trap_a_pending_call_without_id_is_printable() -> None:
    step = pending_call(f_len(1, f"notes/{GHP}.md"))
    tool_call = field(step, 2)
    assert protobuf.is_text(tool_call, strict=True) and protobuf.kind(tool_call)[0] == "text"
    assert protobuf.TOOL_CALL_SHAPE.matches(tool_call)


@pytest.mark.parametrize("case", [READ_CASE, 4, 5, EDIT_CASE, 15])
def test_a_pending_call_without_id_keeps_its_shape(red: RuleRedactor, case: int) -> None:
    path = f"notes/{GHP}.md".encode()
    args = f_len(1, path) + f_len(4, "abcdefghijklmnopqrstuvwxyz0123456789")  # a printable field 4 beside it
    step = pending_call(args, case)
    assert protobuf.is_text(field(step, 2), strict=True)
    out = cell(red, step)
    assert GHP.encode() not in out and tree(out) == tree(step)
    assert field(out, 2, case, 1, 1) == as_text(red, path)
    assert field(out, 2, case, 1, 4) == b"abcdefghijklmnopqrstuvwxyz0123456789"


def test_a_printable_call_inside_a_subagent_step_keeps_its_shape(red: RuleRedactor) -> None:
    pending = pending_call(f_len(1, f"notes/{GHP}.md"))
    task = task_step([NOTE, pending])
    out = cell(red, task)
    assert GHP.encode() not in out and tree(out) == tree(task)
    assert field(sub_steps(out)[1], 2, READ_CASE, 1, 1) == as_text(red, f"notes/{GHP}.md".encode())


# ---------------------------------------------------------------- text that merely parses stays text


def _lookalikes() -> list[bytes]:
    """Printable texts with a secret that parse as a message (a printable tag, then a character
    whose code is the length of the rest), down to a nested field 1 that does not parse, or with
    a second field: not the structure of a ToolCall."""
    out = []
    for word in ("token", "the key is", "export GITHUB_TOKEN=", "see"):
        body = f"{word} {GHP} here".encode()
        inner = b"\n" + bytes([len(body)]) + body  # field 1 of text: does not parse as a message
        bad = b"\n" + bytes([len(body) + 5]) + body  # a length past the end
        for value in (b'"' + bytes([len(body)]) + body, b"B" + bytes([len(inner)]) + inner,
                      b"b" + bytes([len(bad) + 2]) + b"\n" + bytes([len(bad)]) + bad,
                      b"B" + bytes([len(inner)]) + inner + b"*" + bytes([len(body)]) + body):
            assert protobuf.parse(value) is not None and protobuf.is_text(value, strict=True), value
            out.append(value)
    return out


def test_text_in_field_2_of_other_blobs_that_parses_stays_text(red: RuleRedactor) -> None:
    tool_call = protobuf.CURSOR_BLOB.child(2)
    for value in _lookalikes():
        assert not protobuf.TOOL_CALL_SHAPE.matches(value), value
        assert protobuf.kind(value, tool_call)[0] == "text"
        blobs = [f_len(1, "t1") + f_len(2, value) + f_int(3, 1),  # TodoItem.content
                 f_len(1, "/home/alice\n" * 3) + f_len(2, value) + f_int(3, 1),  # ShellOutput.stderr
                 f_len(2, value)]  # a step-looking blob
        for blob in blobs:
            out = cell(red, blob)
            (f2,) = [v for f, wt, v in parse_pb(out) if f == 2]
            assert f2 == as_text(red, value) and GHP.encode() not in out


def test_text_beside_the_subagent_steps_stays_text(red: RuleRedactor) -> None:
    # a TaskSuccess field other than the steps, and an embedded step-looking field that is not a
    # step (its field 2 is text): redacted as text, as without the hint
    for value in _lookalikes():
        task = task_step([NOTE, f_len(2, value)], summary=value.decode())
        out = cell(red, task)
        success = field(out, 2, TASK_CASE, 2, 1)
        assert field(success, 2) == as_text(red, value)
        assert field(sub_steps(out)[1], 2) == as_text(red, value)
        assert GHP.encode() not in out


def test_text_with_exactly_a_tool_call_structure_is_walked_and_still_redacted(red: RuleRedactor) -> None:
    # the limit of any recognition by structure: "b7\n5\n3token ..." IS the ToolCall
    # {12: {1 args: {1: "token ..."}}}. Walked as one, its string is redacted all the same.
    body = f"token {GHP} here".encode()
    value = b"b" + bytes([len(body) + 4]) + b"\n" + bytes([len(body) + 2]) + b"\n" + bytes([len(body)]) + body
    assert protobuf.TOOL_CALL_SHAPE.matches(value)
    out = field(cell(red, f_len(1, "t1") + f_len(2, value)), 2)
    assert GHP.encode() not in out and field(out, 12, 1, 1) == as_text(red, body)


@pytest.mark.parametrize("text", TEXTS)
def test_ordinary_texts_are_not_tool_calls(red: RuleRedactor, text: str) -> None:
    tool_call = protobuf.CURSOR_BLOB.child(2)
    for value in (text.encode(), f"{text} {GHP}".encode(), f"{GHP} {text}".encode()):
        assert protobuf.kind(value, tool_call)[0] == "text", value
        assert field(cell(red, f_len(2, value)), 2) == as_text(red, value)


def test_random_slices_of_real_text_are_not_tool_calls_nor_steps() -> None:
    docs = [p.read_bytes() for p in sorted([*ROOT.glob("archiver/**/*.py"), *ROOT.glob("docs/*.md")])]
    rng = random.Random(19)
    tool_call, result_case = protobuf.CURSOR_BLOB.child(2), protobuf.RESULT_CASE
    seen = parsed = 0
    for _ in range(6000):
        doc = rng.choice(docs)
        start = rng.randrange(len(doc))
        value = doc[start:start + rng.randint(1, 200)]
        if not protobuf.is_text(value, strict=True):
            continue
        seen += 1
        parsed += protobuf.parse(value) is not None
        assert not protobuf.TOOL_CALL_SHAPE.matches(value) and not protobuf.STEP_SHAPE.matches(value), value
        assert protobuf.kind(value, tool_call)[0] == protobuf.kind(value)[0], value
        assert protobuf.kind(value, result_case.child(1))[0] == protobuf.kind(value)[0], value
    assert seen > 4000 and parsed > 20


# ---------------------------------------------------------------- relocation and end to end


def test_relocating_a_subagent_one_line_edit_keeps_its_shape(tmp_path: Path) -> None:
    from archiver.relocate import Relocation, Relocator

    old, new = "/home/user-5f2a/work/app", "/home/bob/src/app"
    edit = edit_step("config.py", f"ROOT = '{old}/data'\n".encode(), f"ROOT = '{old}/data2'\n".encode())
    task = task_step([NOTE, edit])
    db = tmp_path / "store.db"
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE blobs (id TEXT PRIMARY KEY, data BLOB)")
    conn.execute("INSERT INTO blobs VALUES ('a', ?)", (task,))
    conn.commit()
    conn.close()
    Relocator([Relocation.parse(f"{old}={new}")]).rewrite_file(db, "sqlite")
    out = _blobs(db)["a"]
    assert tree(out) == tree(task)
    assert edit_files(sub_steps(out)[1]) == (f"ROOT = '{new}/data'\n".encode(), f"ROOT = '{new}/data2'\n".encode())


def _blobs(db: Path) -> dict[str, bytes]:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return {bid: bytes(data) for bid, data in conn.execute("SELECT id, data FROM blobs")}
    finally:
        conn.close()


def test_a_synced_and_restored_chat_keeps_its_subagent_edit(tmp_path: Path) -> None:
    s = setup(tmp_path, "cursor-agent")
    built = build_in_child(build_chat, s.home, tmp_path / "built.json")
    facts: dict[str, Any] = built["facts"]
    assert list(s.home.rglob("store.db-wal")), "the generator left no live -wal"
    s.cli("sync", expect=0)
    assert leaks(decrypt_all(s), built["needles"]) == []

    other = tmp_path / OTHER
    got = s.restore(other)
    assert set(got["sessions"]) == {f"cursor-agent:{CHAT}"}
    assert got["errors"] == [] and tree_leaks(other, built["needles"]) == []
    (db,) = (other / ".cursor" / "chats").glob(f"*/{CHAT}/store.db")
    blobs = _blobs(db)
    assert facts["root"] in blobs
    task, original = blobs[facts["steps"]["task"]["id"]], bytes.fromhex(facts["steps"]["task"]["data"])
    assert tree(task) == tree(original)
    for new, old in zip(edit_files(sub_steps(task)[1]), edit_files(sub_steps(original)[1])):
        assert b"ghp_" not in new and new.count(b"<GITHUB_TOKEN:") == old.count(b"ghp_") == 1
        assert new.startswith(b"TOKEN = '") and new.endswith(b"\n")
    pending, original = blobs[facts["steps"]["pending"]["id"]], bytes.fromhex(facts["steps"]["pending"]["data"])
    assert tree(pending) == tree(original)
    path = field(pending, 2, READ_CASE, 1, 1)
    assert path.startswith(b"notes/<GITHUB_TOKEN:") and path.endswith(b">.md")
