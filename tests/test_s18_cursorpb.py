"""Cursor edit results that are all printable bytes keep their protobuf shape when redacted.

A Cursor agent edit step carries EditSuccess {before_full_file_content, after_full_file_content}:
with one-line files the whole nested message is printable, and the heuristics alone took it for
text (its inner lengths were not rewritten, Cursor could not parse the restored chat). The
protobuf walker now takes a schema hint (walkers/protobuf.py CURSOR_BLOB, for the carrier
`sqlite:blobs.data`): below a ConversationStep's tool call, the fields the seed calls messages
are walked as messages; everything else keeps the heuristics."""

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
from tests.fx_s17_e2eco import f_int, f_len, parse_pb, shape_of
from tests.fx_s18_cursorpb import (
    BLOBS, CHAT, GHP, GHP2, MESSAGE, as_text, blob_redactor, build_chat, cell, edit_files, edit_step, field, one_line,
)
from tests.test_redact_blob_text import ROOT, TEXTS

@pytest.fixture(scope="module")
def red() -> RuleRedactor:
    return blob_redactor()


# ---------------------------------------------------------------- the walker with the hint


def test_a_small_edit_result_keeps_its_protobuf_shape_when_redacted() -> None:
    # was tests/test_s17_e2eco_findings.py (strict xfail): a one-line file is a 32-126 byte
    # string, so the EditSuccess message {4: before, 5: after} (proto3 leaves an empty field 1
    # out) is all printable: tag '"' (field 4), length '*' (42), ...
    before = b"TOKEN = 'ghp_0123456789abcdefghijABCDEFGHIJ0123'\n"
    after = b"TOKEN = 'ghp_9876543210abcdefghijABCDEFGHIJ3210'\n"
    step = f_len(2, f_len(12, f_len(1, "/src/app/config.py") + f_len(2, f_len(1, f_len(4, before) + f_len(5, after)))))
    success = field(step, 2, 12, 2, 1)
    assert protobuf.is_text(success, strict=True) and protobuf.kind(success)[0] == "text"  # the trap
    leaf = lambda b: b.replace(b"ghp_0123456789abcdefghijABCDEFGHIJ0123", b"<T1>").replace(  # noqa: E731
        b"ghp_9876543210abcdefghijABCDEFGHIJ3210", b"<T2>")
    out = protobuf.redact_message(step, leaf, schema=protobuf.CURSOR_BLOB)
    assert out is not None and b"ghp_" not in out
    assert shape_of(out) == shape_of(step)
    assert edit_files(out) == (b"TOKEN = '<T1>'\n", b"TOKEN = '<T2>'\n")
    assert field(out, 2, 12, 1) == b"/src/app/config.py"


@pytest.mark.parametrize("numbers, extra", [((4, 5), b""), ((6, 7), f_len(8, MESSAGE)), ((4, 5), f_len(9, "x" * 40))])
@pytest.mark.parametrize("call_id", [None, "tool_00000000-0000-4000-8000-000000000004"])
def test_a_one_line_edit_in_a_blob_cell_is_redacted_with_its_shape(
        red: RuleRedactor, numbers: tuple[int, int], extra: bytes, call_id: str | None) -> None:
    before, after = one_line(GHP), one_line(GHP2, "  # rotated")
    step = edit_step("config.py", before, after, call_id, numbers, extra)
    assert protobuf.is_text(field(step, 2, 12, 2, 1), strict=True)
    report = RedactionReport()
    out = red._cell(step, BLOBS, report)
    assert type(out) is bytes and GHP.encode() not in out and GHP2.encode() not in out
    assert shape_of(out) == shape_of(step)
    assert edit_files(out, numbers) == (as_text(red, before), as_text(red, after))
    assert edit_files(out, numbers)[0].startswith(b"TOKEN = '<GITHUB_TOKEN:")
    assert field(out, 2, 12, 1, 2) == as_text(red, after)  # EditArgs.stream_content
    if extra:  # a printable string beside the files (EditSuccess.message): redacted as text, nothing to change
        (extra_no, _wt, extra_value), = parse_pb(extra)
        assert field(field(out, 2, 12, 2, 1), extra_no) == extra_value
    assert sum(n for (rule, _c), n in report.counts.items()) == 3  # before, after, args
    assert red.redact_protobuf(step, RedactionReport(), BLOBS, schema=protobuf.CURSOR_BLOB) == out
    assert cell(red, out) == out  # the redacted blob is stable


def test_a_multi_line_edit_still_round_trips(red: RuleRedactor) -> None:
    before = b"#!/bin/sh\n" + one_line(GHP) * 3 + b"cd /home/alice/app\n"
    after = b"#!/bin/sh\n" + one_line(GHP2) + b"echo done\n" * 20
    step = edit_step("/home/alice/app/deploy.sh", before, after, "tool_edit")
    out = cell(red, step)
    assert shape_of(out) == shape_of(step)
    assert edit_files(out) == (as_text(red, before), as_text(red, after))
    assert b"alice" not in out and b"ghp_" not in out.replace(b"<GITHUB_TOKEN:", b"")
    assert cell(red, step) == cell(red, step, "sqlite:t.c")  # not printable: the same without the hint


def test_other_carriers_keep_the_heuristics(red: RuleRedactor) -> None:
    step = edit_step("config.py", one_line(GHP), one_line(GHP2))
    leaf = red._blob_leaf(RedactionReport(), "sqlite:t.c:protobuf")
    assert cell(red, step, "sqlite:t.c") == protobuf.redact_message(step, leaf)
    assert shape_of(cell(red, step, "sqlite:t.c")) != shape_of(step)  # what the hint is for


# ---------------------------------------------------------------- text that merely looks like a message


def _printable_lookalikes() -> list[bytes]:
    """Texts with a secret that parse as a message not from field 1: a quote (field 4), then a
    character whose code is the length of the rest."""
    out = []
    for word in ("token", "the key is", "export GITHUB_TOKEN=", "see"):
        body = f"{word} {GHP} here".encode()
        value = b'"' + bytes([len(body)]) + body
        assert protobuf.parse(value) is not None and protobuf.kind(value)[0] == "text"
        out.append(value)
    return out


@pytest.mark.parametrize("text", TEXTS)
def test_ordinary_text_blobs_are_still_text(red: RuleRedactor, text: str) -> None:
    for value in (text.encode(), f"{text} {GHP}".encode(), f"{GHP} {text}".encode()):
        assert protobuf.kind(value, protobuf.CURSOR_BLOB)[0] == "text", value
        assert cell(red, value) == as_text(red, value)


def test_random_slices_of_real_text_are_still_text(red: RuleRedactor) -> None:
    docs = [p.read_bytes() for p in sorted([*ROOT.glob("archiver/**/*.py"), *ROOT.glob("docs/*.md")])]
    rng = random.Random(18)
    seen = parsed = 0
    for _ in range(4000):
        doc = rng.choice(docs)
        start = rng.randrange(len(doc))
        value = doc[start:start + rng.randint(1, 200)]
        if value[:1] == b"\n" or not protobuf.is_text(value, strict=True):
            continue
        seen += 1
        parsed += protobuf.parse(value) is not None
        assert protobuf.kind(value, protobuf.CURSOR_BLOB)[0] == "text", value
        if rng.random() < 0.05:
            assert cell(red, value) == as_text(red, value)
    assert seen > 3000 and parsed > 20  # some of them do parse as messages


def test_text_fields_of_other_blobs_that_parse_stay_text(red: RuleRedactor) -> None:
    # field 2 of a TodoItem (content), a ShellOutput (stderr), a ConversationSummaryArchive
    # (summary) is text: the hint starts below a ToolCall that the heuristics found
    for value in _printable_lookalikes():
        blobs = [f_len(1, "t1") + f_len(2, value) + f_int(3, 1),  # TodoItem
                 f_len(1, "/home/alice\n" * 3) + f_len(2, value) + f_int(3, 1),  # ShellOutput
                 f_len(1, bytes(range(32))) + f_len(2, value) + f_int(3, 4)]  # ConversationSummaryArchive
        for blob in blobs:
            out = cell(red, blob)
            (f2,) = [v for f, wt, v in parse_pb(out) if f == 2]
            assert f2 == as_text(red, value) and GHP.encode() not in out


def test_a_tool_call_id_that_parses_stays_text(red: RuleRedactor) -> None:
    # ToolCall field 57 (tool_call_id) is a string, named apart from the oneof cases
    for value in _printable_lookalikes():
        step = edit_step("config.py", one_line(GHP), one_line(GHP2), call_id=value.decode())
        out = cell(red, step)
        assert field(out, 2, 57) == as_text(red, value)
        assert shape_of(field(out, 2, 12)) == shape_of(field(step, 2, 12))


# ---------------------------------------------------------------- end to end through the CLI


def _steps_of(db: Path) -> dict[str, bytes]:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return {bid: bytes(data) for bid, data in conn.execute("SELECT id, data FROM blobs")}
    finally:
        conn.close()


def test_a_synced_and_restored_chat_keeps_its_edit_results(tmp_path: Path) -> None:
    s = setup(tmp_path, "cursor-agent")
    built = build_in_child(build_chat, s.home, tmp_path / "built.json")
    facts: dict[str, Any] = built["facts"]
    assert list(s.home.rglob("store.db-wal")), "the generator left no live -wal"
    s.cli("sync", expect=0)
    plain = decrypt_all(s)
    assert leaks(plain, built["needles"]) == []

    other = tmp_path / OTHER
    got = s.restore(other)
    assert set(got["sessions"]) == {f"cursor-agent:{CHAT}"}
    assert got["errors"] == [] and tree_leaks(other, built["needles"]) == []
    (db,) = (other / ".cursor" / "chats").glob(f"*/{CHAT}/store.db")
    blobs = _steps_of(db)
    assert facts["root"] in blobs
    for name, step in facts["steps"].items():
        original, numbers = bytes.fromhex(step["data"]), tuple(step["numbers"])
        restored = blobs[step["id"]]  # ids are SHA-256 of the original bytes: kept
        assert shape_of(restored) == shape_of(original), name
        before, after = edit_files(restored, numbers)
        old_before, old_after = edit_files(original, numbers)
        for new, old in ((before, old_before), (after, old_after)):
            assert b"ghp_" not in new and new != old, name
            assert new.count(b"<GITHUB_TOKEN:") == old.count(b"ghp_") > 0, name
            assert new.startswith(old[:old.index(b"ghp_")]) and new.endswith(b"\n"), name
        if numbers == (6, 7):
            assert field(field(restored, 2, 12, 2, 1), 8) == MESSAGE.encode()


def test_relocating_a_restored_one_line_edit_keeps_its_shape(tmp_path: Path) -> None:
    from archiver.relocate import Relocation, Relocator

    old, new = "/home/user-5f2a/work/app", "/home/bob/src/app"
    step = edit_step("config.py", f"ROOT = '{old}/data'\n".encode(), f"ROOT = '{old}/data2'\n".encode(), "tool_1")
    db = tmp_path / "store.db"
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE blobs (id TEXT PRIMARY KEY, data BLOB)")
    conn.execute("INSERT INTO blobs VALUES ('a', ?)", (step,))
    conn.commit()
    conn.close()
    Relocator([Relocation.parse(f"{old}={new}")]).rewrite_file(db, "sqlite")
    out = _steps_of(db)["a"]
    assert shape_of(out) == shape_of(step)
    assert edit_files(out) == (f"ROOT = '{new}/data'\n".encode(), f"ROOT = '{new}/data2'\n".encode())
