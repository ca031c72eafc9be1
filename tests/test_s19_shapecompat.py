"""Cursor step shapes that hold fields the seed does not name (forward compatibility).

Protobuf is forward compatible by field number (seed cursor-agent.json `versioning`), and Cursor
adds fields over releases. A ToolCall with one (a string 61, a varint 62, a 32/64-bit value...)
failed TOOL_CALL_SHAPE (walkers/protobuf.py): the unknown string counted as a second oneof case,
the other wire types were not allowed at all. At the top level the older hints still held, but a
subagent's step (TaskSuccess.conversation_steps) got none, so its one-line edit (an all printable
EditSuccess) was redacted as text and lost its protobuf shape. The shapes now let fields not named
pass (`Shape.extra`) unless the value is plain text, which keeps today's strict rule: printable
text that merely parses is no more often a ToolCall than before."""

from __future__ import annotations

import random

import pytest

from archiver.redact.base import RedactionReport
from archiver.redact.redactor import RuleRedactor
from archiver.redact.walkers import protobuf
from archiver.redact.walkers.protobuf import ANY, Shape
from tests.fx_s17_e2eco import f_int, f_len
from tests.fx_s18_cursorpb import BLOBS, EDIT_CASE, GHP, GHP2, as_text, blob_redactor, cell, leaf, one_line
from tests.fx_s19_cursorsteps import TASK_CASE, task_step
from tests.fx_s19_shapecompat import EXTRAS, all_of, edit_step_x, fixed32, fixed64, get, tree
from tests.test_redact_blob_text import ROOT

NOTE = f_len(1, f_len(1, "Editing config.py."))  # an embedded assistant_message step
INNER = (19, 3)  # task case and steps field of a nested subagent (neither is in the seed)


@pytest.fixture(scope="module")
def red() -> RuleRedactor:
    return blob_redactor()


def _blob(step: bytes, depth: int) -> bytes:
    """The step as a blob (depth 0), in a subagent's steps (1), in a subagent's subagent (2)."""
    if depth == 0:
        return step
    if depth == 1:
        return task_step([NOTE, step])
    return task_step([NOTE, task_step([step], call_id=None, case=INNER[0], steps_field=INNER[1])])


def _step_of(blob: bytes, depth: int) -> bytes:
    """The edit step `_blob` put at `depth`."""
    if depth == 0:
        return blob
    sub = all_of(get(blob, 2, TASK_CASE, 2, 1), 1)[1]
    return sub if depth == 1 else all_of(get(sub, 2, INNER[0], 2, 1), INNER[1])[0]


def _files(step: bytes) -> tuple[bytes, bytes]:
    success = get(step, 2, EDIT_CASE, 2, 1)
    return get(success, 4), get(success, 5)


# ---------------------------------------------------------------- the trap and the walker


def test_the_trap_reproducer_from_s19_cursorsteps() -> None:
    plain = edit_step_x(one_line(GHP), one_line(GHP))
    for extra in (EXTRAS["string61"], EXTRAS["varint62"]):
        task = _blob(f_len(2, get(plain, 2) + extra), 1)
        tool_call = get(_step_of(task, 1), 2)
        assert protobuf.is_text(get(tool_call, EDIT_CASE, 2, 1), strict=True)  # the EditSuccess
        assert protobuf.TOOL_CALL_SHAPE.matches(tool_call) and protobuf.STEP_SHAPE.matches(_step_of(task, 1))
        out = protobuf.redact_message(task, leaf, schema=protobuf.CURSOR_BLOB)
        assert out is not None and tree(out) == tree(task) and GHP.encode() not in out


@pytest.mark.parametrize("name", sorted(EXTRAS))
@pytest.mark.parametrize("where", ["call", "result", "step"])
@pytest.mark.parametrize("depth", [0, 1, 2])
def test_an_unknown_field_keeps_every_level_shape(name: str, where: str, depth: int) -> None:
    extra = EXTRAS[name]
    blob = _blob(edit_step_x(one_line(GHP), one_line(GHP2, "  # rotated"), where, extra), depth)
    out = protobuf.redact_message(blob, leaf, schema=protobuf.CURSOR_BLOB)
    assert out is not None and GHP.encode() not in out and GHP2.encode() not in out
    assert tree(out) == tree(blob)  # field numbers, wire types and scalar bytes at every level
    assert _files(_step_of(out, depth)) == (b"TOKEN = '<T1>'\n", b"TOKEN = '<T2>'  # rotated\n")
    assert extra in out


@pytest.mark.parametrize("name", sorted(EXTRAS))
def test_several_unknown_fields_at_once_in_a_nested_subagent(name: str) -> None:
    extra = EXTRAS[name] + fixed64(70, 1) + f_len(71, "\x00\x01binary") + fixed32(72, 9) + f_int(73, 300)
    step = edit_step_x(one_line(GHP), one_line(GHP2), "call", extra, call_id="tool_sub_1") + f_int(74, 1)
    blob = _blob(step, 2)
    out = protobuf.redact_message(blob, leaf, schema=protobuf.CURSOR_BLOB)
    assert out is not None and tree(out) == tree(blob) and b"ghp_" not in out
    assert _files(_step_of(out, 2)) == (b"TOKEN = '<T1>'\n", b"TOKEN = '<T2>'\n")


# ---------------------------------------------------------------- with the real rules


@pytest.mark.parametrize("name", ["string61", "varint62", "fixed64_63", "fixed32_64"])
@pytest.mark.parametrize("depth", [0, 1, 2])
def test_the_redactor_keeps_a_subagent_edit_with_unknown_fields(red: RuleRedactor, name: str, depth: int) -> None:
    before, after = one_line(GHP), one_line(GHP2, "  # rotated")
    blob = _blob(edit_step_x(before, after, "call", EXTRAS[name], "tool_sub_2"), depth)
    out = cell(red, blob)
    assert GHP.encode() not in out and GHP2.encode() not in out
    assert tree(out) == tree(blob)
    assert _files(_step_of(out, depth)) == (as_text(red, before), as_text(red, after))
    assert _files(_step_of(out, depth))[0].startswith(b"TOKEN = '<GITHUB_TOKEN:")
    assert cell(red, out) == out  # stable


@pytest.mark.parametrize("name", sorted(EXTRAS))
@pytest.mark.parametrize("where", ["call", "result", "step"])
def test_clean_blobs_with_unknown_fields_come_back_byte_identical(red: RuleRedactor, name: str, where: str) -> None:
    plain = one_line("not a secret at all, just text"), one_line("still no secret here, plain")
    for depth in (0, 1, 2):
        blob = _blob(edit_step_x(*plain, where, EXTRAS[name]), depth)
        report = RedactionReport()
        assert red._cell(blob, BLOBS, report) is blob
        assert not report.counts
        assert protobuf.redact_message(blob, leaf, schema=protobuf.CURSOR_BLOB) is blob


# ---------------------------------------------------------------- text that parses stays text


def _nest(tag: bytes, value: bytes) -> bytes:
    assert 32 < len(value) < 127
    return tag + bytes([len(value)]) + value


def _junk_lookalikes() -> list[bytes]:
    """Printable texts with a secret that parse as a message whose one field reads as a tool case
    ({12: {1: {1: text}}}: "b", a length, "\\n", a length, "\\n", a length, text) beside junk
    fields of every wire type ("hA" a varint 13, "*"+length+text a string 5, "5abcd" a 32-bit 6,
    "1abcdefgh" a 64-bit 6), before or after it: the structure of a ToolCall with unknown fields."""
    out = []
    for word in ("token", "key", "export GITHUB_TOKEN="):
        body = f"{word} {GHP} here".encode()
        case = _nest(b"b", _nest(b"\n", _nest(b"\n", body)))
        for junk in (b"hA", _nest(b"*", b"see the notes of the release here"), b"5abcd", b"1abcdefgh",
                     b"hA5abcd" + _nest(b"R", b"a second string field here, longer")):
            for value in (case + junk, junk + case, junk + case + junk):
                assert protobuf.parse(value) is not None and protobuf.is_text(value, strict=True), value
                out.append(value)
    return out


def test_printable_text_with_a_tool_case_and_junk_fields_is_not_a_tool_call(red: RuleRedactor) -> None:
    tool_call = protobuf.CURSOR_BLOB.child(2)
    for value in _junk_lookalikes():
        assert not protobuf.TOOL_CALL_SHAPE.matches(value), value
        assert protobuf.kind(value, tool_call)[0] == "text"
        for blob in (f_len(2, value), f_len(1, "t1") + f_len(2, value) + f_int(3, 1)):  # a step / TodoItem
            out = cell(red, blob)
            assert get(out, 2) == as_text(red, value) and GHP.encode() not in out


def test_printable_text_with_junk_inside_a_subagent_stays_text(red: RuleRedactor) -> None:
    # a step-looking field beside the subagent's steps (its field 2 is such text, with a junk
    # field of the step level too): not a step, redacted as text as without the hint
    for value in _junk_lookalikes():
        task = task_step([NOTE, f_len(2, value) + f_int(13, 1)], summary=value.decode())
        out = cell(red, task)
        success = get(out, 2, TASK_CASE, 2, 1)
        assert get(all_of(success, 1)[1], 2) == as_text(red, value)
        assert get(success, 2) == as_text(red, value)
        assert GHP.encode() not in out


def _strict(shape: Shape | None) -> Shape | None:
    """`shape` as it was before `extra`: every level's fields must all be allowed."""
    if shape is None:
        return None
    return Shape(fields={n: (wt, _strict(sub)) for n, (wt, sub) in shape.fields.items()},
                 one=shape.one, some=shape.some)


def test_printable_values_get_exactly_the_shapes_of_before() -> None:
    """Random slices of real text, alone and wrapped into a tool case lookalike beside other
    slices (junk fields), match the shapes exactly when the shapes without `extra` do."""
    docs = [p.read_bytes() for p in sorted([*ROOT.glob("archiver/**/*.py"), *ROOT.glob("docs/*.md")])]
    rng = random.Random(1961)
    old_call, old_step = _strict(protobuf.TOOL_CALL_SHAPE), _strict(protobuf.STEP_SHAPE)
    assert old_call is not None and old_step is not None and not old_call.extra

    def piece(lo: int, hi: int) -> bytes:
        doc = rng.choice(docs)
        start = rng.randrange(len(doc))
        return doc[start:start + rng.randint(lo, hi)]

    seen = parsed = calls = 0
    for i in range(6000):
        value = piece(1, 200)
        if i % 2:  # a tool case lookalike with junk around it
            inner = piece(33, 90)
            if not 32 < len(inner) < 123:
                continue
            value = piece(0, 12) + _nest(b"b", _nest(b"\n", _nest(b"\n", inner))) + piece(0, 12)
        if not protobuf.is_text(value, strict=True):
            continue
        seen += 1
        parsed += protobuf.parse(value) is not None
        new = protobuf.TOOL_CALL_SHAPE.matches(value)
        calls += new
        assert new == old_call.matches(value), value
        assert protobuf.STEP_SHAPE.matches(value) == old_step.matches(value) is False, value
    assert seen > 3000 and parsed > 100 and calls > 5  # some have exactly a ToolCall's structure


def test_terminal_text_is_not_a_step_nor_a_tool_call() -> None:
    # not plain text (colour codes): `extra` holds, but the one tool case must still be there
    docs = [p.read_bytes() for p in sorted([*ROOT.glob("archiver/**/*.py"), *ROOT.glob("docs/*.md")])]
    rng = random.Random(62)
    seen = 0
    for _ in range(4000):
        doc = rng.choice(docs)
        start = rng.randrange(len(doc))
        value = doc[start:start + rng.randint(2, 200)]
        cut = rng.randrange(len(value))
        value = value[:cut] + b"\x1b[1;31m" + value[cut:] + b"\x1b[0m"
        if protobuf.is_text(value, strict=True) or not protobuf.is_text(value, strict=False):
            continue
        seen += 1
        assert not protobuf.TOOL_CALL_SHAPE.matches(value) and not protobuf.STEP_SHAPE.matches(value), value
    assert seen > 3000


def test_a_second_case_shaped_field_still_fails_the_shape() -> None:
    # the limit: an unknown field whose value also reads as a tool case ({1: message}) cannot be
    # told from a second oneof case, so the ToolCall keeps no shape (and gets the older hints)
    step = edit_step_x(one_line(GHP), one_line(GHP2), "call", f_len(61, f_len(1, f_len(1, "x"))))
    assert not protobuf.TOOL_CALL_SHAPE.matches(get(step, 2))
    assert protobuf.TOOL_CALL_SHAPE.matches(get(edit_step_x(one_line(GHP), one_line(GHP2)), 2))
    assert ANY not in protobuf.STEP_SHAPE.fields
