"""Lines and JSON documents too long to hold in memory (walkers/longjson): still redacted, the
opaque parts (base64 images, signatures) byte for byte, in bounded memory."""

from __future__ import annotations

import base64
import io
import json
import random
import tracemalloc
from pathlib import Path

import orjson
import pytest
import zstandard

from archiver.redact.base import RedactionReport
from archiver.redact.pseudonym import Pseudonymizer
from archiver.redact.redactor import RuleRedactor, build_redactor
from archiver.redact.rules import RuntimeTerms
from archiver.redact.walkers import longjson
from archiver.redact.walkers import text as text_mod
from archiver.snapshot import LineSpan, iter_lines
from archiver.workers import redact_segment, redact_whole

KEY = b"team-key-for-tests-0123456789abcdef"
OID_KEY = b"object-id-key-0123456789abcdef01"
GHP = "ghp_R8fJ2kLm9QwErTyUiOpAsDfGhJkLzXcVbN12"
AWS = "AKIAQYLPMN5HHHFPZAM2"
USER = Pseudonymizer(KEY).username("alice")
MB = 1 << 20


@pytest.fixture(scope="module")
def red() -> RuleRedactor:
    return build_redactor(["builtin:secrets", "builtin:pii", "builtin:paths"], KEY,
                          RuntimeTerms(usernames=["alice"], home_dirs=["/home/alice"]))


PNG_HEAD = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"  # base64: iVBORw0KGgoAAAANSUhEUg


def _image(nbytes: int, seed: int = 1, prefix: bytes = PNG_HEAD) -> str:
    """Base64 of an 'image' with a home path and a token-like run inside the payload: bytes the
    walker must leave alone (they are base64 characters, not text)."""
    raw = prefix + random.Random(seed).randbytes(nbytes)
    b64 = base64.b64encode(raw).decode()
    mid = len(b64) // 2
    return b64[:mid] + "/home/alice/" + GHP.replace("_", "A") + b64[mid:]


def _doc(image: str, jpeg: str, long_text: str, mid_text: str) -> dict:
    return {
        "type": "user", "cwd": "/home/alice/app", "uuid": "0d4f5b8e-9c3a-4e7b-8f21-6a5d3c2b1e0f",
        "message": {"role": "user", "content": [
            {"type": "text", "text": f"deploy with {GHP} from /home/alice/app"},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": image}},
            {"type": "text", "text": f"right after the image: {AWS} in /home/alice/z"},
            {"type": "tool_result", "tool_use_id": "toolu_01ABCdefGHIjklMNOpqrSTUv", "content": long_text},
            {"type": "text", "text": mid_text},
            {"type": "thinking", "thinking": "ok", "signature": "c2ln" * 30_000 + "/home/alice/"},
        ]},
        "screenshot": jpeg,  # a bare base64 JPEG under an ordinary key: a media string, skipped
    }


def _expected(red: RuleRedactor, doc: dict) -> bytes:
    """The line with every text field redacted on its own; images and the signature untouched."""
    out = json.loads(json.dumps(doc))
    t = lambda s: red.redact_text(s, RedactionReport())  # noqa: E731
    out["cwd"] = t(out["cwd"])
    content = out["message"]["content"]
    for i in (0, 2, 4):
        content[i]["text"] = t(content[i]["text"])
    content[3]["content"] = t(content[3]["content"])
    return orjson.dumps(out)


@pytest.fixture(scope="module")
def huge_line(red: RuleRedactor) -> tuple[bytes, bytes]:
    """(a ~14 MB JSONL line, its expected redaction): a 9 MB PNG, a 600 KB JPEG, a 5 MB tool
    output (longer than STRING_IN_MEMORY: redacted as streamed text) and a 200 KB text."""
    long_text = "".join(f"step {i}: wrote /home/alice/build/out{i}.o\n" for i in range(120_000))
    long_text += f"then exported AWS key {AWS} and {GHP}\n" + "tail\n" * 1000
    assert len(long_text) > longjson.STRING_IN_MEMORY
    mid_text = "x " * 100_000 + f"{GHP} /home/alice/y"
    assert longjson.SPAN_STRING < len(mid_text) < longjson.STRING_IN_MEMORY
    doc = _doc(_image(9 * MB), _image(600_000, 2, b"\xff\xd8\xff\xe0"), long_text, mid_text)
    line = orjson.dumps(doc)
    assert len(line) > 8 * MB
    return line, _expected(red, doc)


def test_huge_line_is_redacted_around_a_base64_image(red: RuleRedactor, huge_line: tuple[bytes, bytes]) -> None:
    line, want = huge_line
    out: list[bytes] = []
    rep = RedactionReport()
    red.redact_jsonl_span(io.BytesIO(b"x\n" + line + b"\n"), 2, 2 + len(line), out.append, rep)
    got = b"".join(out)
    assert got == want
    assert GHP.encode() not in got and AWS.encode() not in got
    assert got.count(b"/home/alice/") == 3  # only inside the two images and the signature
    assert f"/home/{USER}/app".encode() in got and f"/home/{USER}/build/out7.o".encode() in got
    # the same bytes and counts as the in-memory walker
    rep2 = RedactionReport()
    assert red.redact_jsonl_line(line, rep2) == want
    assert rep.counts == rep2.counts
    assert rep.counts[("github-pat", "jsonl")] == 3 and rep.counts[("aws-access-key-id", "jsonl")] == 2


def test_segment_with_a_huge_line_redacts_it_from_the_file(red: RuleRedactor, huge_line: tuple[bytes, bytes],
                                                           tmp_path: Path) -> None:
    line, want = huge_line
    before = orjson.dumps({"type": "user", "cwd": "/home/alice/app", "text": f"{GHP}"})
    after = b'{"type":"summary","text":"done in /home/alice/app"}'
    src = tmp_path / "t.jsonl"
    src.write_bytes(before + b"\n" + line + b"\r\n" + after + b"\n")
    dst = tmp_path / "out.jsonl"
    job = redact_segment(red, OID_KEY, True, str(src), 0, src.stat().st_size, str(dst))
    rep = RedactionReport()
    expect = (red.redact_jsonl_line(before, rep) + b"\n" + want + b"\r\n"
              + red.redact_jsonl_line(after, rep) + b"\n")
    assert dst.read_bytes() == expect
    assert job.lines == 3 and job.size == len(expect) and job.leftovers == []
    # the whole-file job gives the same bytes, plain and zstd-compressed
    for data in (src.read_bytes(), zstandard.ZstdCompressor().compress(src.read_bytes())):
        src.write_bytes(data)
        redact_whole(red, OID_KEY, False, str(src), str(dst), "jsonl")
        got = dst.read_bytes()
        if data[:4] == b"\x28\xb5\x2f\xfd":
            got = zstandard.ZstdDecompressor().stream_reader(io.BytesIO(got)).read()
        assert got == expect


def test_verify_finds_a_secret_left_inside_a_huge_line(red: RuleRedactor, tmp_path: Path) -> None:
    path = tmp_path / "left.jsonl"
    big = {"type": "user", "image": {"type": "base64", "media_type": "image/png", "data": _image(10 * MB)},
           "text": f"oops {AWS}"}
    path.write_bytes(b'{"a":1}\n' + orjson.dumps(big) + b"\n")
    assert red.verify_file(path, "jsonl") == ["aws-access-key-id"]
    clean = tmp_path / "clean.jsonl"
    redact_whole(red, OID_KEY, False, str(path), str(clean), "jsonl")
    assert red.verify_file(clean, "jsonl") == []


def test_a_100_mb_line_is_redacted_in_bounded_memory(red: RuleRedactor, tmp_path: Path) -> None:
    src = tmp_path / "huge.jsonl"
    with src.open("wb") as f:
        f.write(b'{"type":"user","message":{"content":[{"type":"text","text":"see ' + GHP.encode()
                + b' /home/alice/shot.png"},{"type":"image","source":{"type":"base64","media_type":"image/png",'
                + b'"data":"iVBORw0KGgoAAAANSUhEUg')
        block = base64.b64encode(random.Random(3).randbytes(3 * MB // 4 * 4))
        for _ in range(100 * MB // len(block)):
            f.write(block)
        f.write(b'"}},{"type":"text","text":"' + b"log /home/alice/x\\n" * 50_000 + b'"}]}}\n')
    size = src.stat().st_size
    assert size > 100 * MB
    dst = tmp_path / "out.jsonl"
    tracemalloc.start()
    try:
        job = redact_segment(red, OID_KEY, True, str(src), 0, size, str(dst))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    print(f"traced peak {peak / MB:.1f} MiB")
    assert peak < 40 * MB, f"peak {peak / MB:.1f} MiB"
    assert job.leftovers == [] and job.lines == 1
    with dst.open("rb") as f:
        head = f.read(400)
        f.seek(-(20 << 20), 2)
        tail = f.read()
    assert GHP.encode() not in head and f"/home/{USER}/shot.png".encode() in head
    assert tail.count(f"log /home/{USER}/x\\n".encode()) == 50_000 and b"/home/alice" not in tail
    assert dst.stat().st_size == size + 50_001 * (len(USER) - len("alice")) + len(red.redact_text(GHP, RedactionReport())) - len(GHP)


def test_unparsable_huge_line_is_redacted_as_text(red: RuleRedactor) -> None:
    line = b'{"type":"user","text":"' + (b"word /home/alice/dir " * 120_000) + f"{GHP}".encode()  # torn: no end
    out: list[bytes] = []
    rep = RedactionReport()
    before = red.warnings["jsonl-unparsable-line"]
    red.redact_jsonl_span(io.BytesIO(line), 0, len(line), out.append, rep)
    got = b"".join(out)
    assert red.warnings["jsonl-unparsable-line"] == before + 1
    assert b"/home/alice" not in got and GHP.encode() not in got
    assert got == red.engine.redact_bytes(line, RedactionReport(), "jsonl:raw")
    assert set(c for _r, c in rep.counts) == {"jsonl:raw"}


def test_long_strings_with_escapes_and_json_inside(red: RuleRedactor) -> None:
    """Escapes (quotes, backslashes, \\u, surrogate pairs) across block and piece boundaries, and
    a long JSON-in-string (Codex function_call arguments): as the in-memory walker does it."""
    args = json.dumps({"cmd": f"cat /home/alice/.env # {GHP}", "pad": "é😀\"\\ " * 20_000,
                       "patch": "+ /home/alice/src/a.py\n" * 60_000}, ensure_ascii=False)
    assert len(args) > longjson.STRING_IN_MEMORY
    text = ("line \"quoted\" \\ back \u00e9 😀 /home/alice/q\n" * 150_000) + f"{AWS}\n"
    doc = {"type": "response_item", "payload": {"type": "function_call", "arguments": args},
           "out": text, "ascii": text[:200_000]}
    for line in (orjson.dumps(doc), json.dumps(doc, ensure_ascii=True, separators=(",", ":")).encode()):
        want = red.redact_jsonl_line(line, RedactionReport())
        out: list[bytes] = []
        red.redact_jsonl_span(io.BytesIO(line), 0, len(line), out.append, RedactionReport())
        got = b"".join(out)
        assert orjson.loads(got) == orjson.loads(want)
        if line == orjson.dumps(doc):
            assert got == want
        assert GHP.encode() not in got and AWS.encode() not in got and b"/home/alice" not in got


def test_large_json_file_keeps_layout_and_streams_its_long_strings(red: RuleRedactor, tmp_path: Path) -> None:
    doc = {"sessions": [{"cwd": "/home/alice/app", "token": GHP, "image": _image(9 * MB)},
                        {"log": "built /home/alice/app\n" * 300_000}]}
    src = tmp_path / "big.json"
    src.write_bytes(json.dumps(doc, indent=2, ensure_ascii=False).encode())
    dst = tmp_path / "out.json"
    rep = RedactionReport()
    red.redact_file(src, dst, "json", rep)
    want = red.json.redact_doc(src.read_bytes(), RedactionReport(), "json", keep_layout=True)
    assert dst.read_bytes() == want
    assert b'\n  "sessions": [\n' in want and GHP.encode() not in want
    assert rep.counts[("github-pat", "json")] == 1


def test_iter_lines_hands_long_lines_over_as_spans(tmp_path: Path) -> None:
    p = tmp_path / "x.jsonl"
    p.write_bytes(b"a\n" + b"b" * 100 + b"\n" + b"c" * 10 + b"\n" + b"d" * 50)
    with p.open("rb") as f:
        items = list(iter_lines(f, 0, p.stat().st_size, long_line=20))
    assert items == [b"a\n", LineSpan(2, 103), b"c" * 10 + b"\n", LineSpan(114, 164)]


def test_sqlite_tables_are_read_in_bounded_batches(red: RuleRedactor, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    import sqlite3

    from archiver.redact.walkers import sqlite as sqlite_walker

    monkeypatch.setattr(sqlite_walker, "BATCH", 7)
    monkeypatch.setattr(sqlite_walker, "BATCH_BYTES", 3000)
    src = tmp_path / "db.sqlite"
    conn = sqlite3.connect(src)
    conn.execute("CREATE TABLE blobs (id TEXT PRIMARY KEY, data TEXT)")
    conn.execute("CREATE TABLE kv (a TEXT, b INTEGER, v TEXT, PRIMARY KEY (a, b)) WITHOUT ROWID")
    for i in range(60):
        conn.execute("INSERT INTO blobs VALUES (?, ?)", (f"k{i}", f"/home/alice/{i} " + "x" * (i * 40)))
        conn.execute("INSERT INTO kv VALUES (?, ?, ?)", (f"a{i % 4}", i, f"{GHP} {i}"))
    conn.commit()
    conn.close()
    dst = tmp_path / "out.sqlite"
    rep = RedactionReport()
    red.redact_file(src, dst, "sqlite", rep)
    conn = sqlite3.connect(dst)
    blobs = conn.execute("SELECT id, data FROM blobs ORDER BY rowid").fetchall()
    kv = conn.execute("SELECT a, b, v FROM kv ORDER BY b").fetchall()
    conn.close()
    assert [d for _, d in blobs] == [f"/home/{USER}/{i} " + "x" * (i * 40) for i in range(60)]
    token = red.redact_text(GHP, RedactionReport())
    assert kv == [(f"a{i % 4}", i, f"{token} {i}") for i in range(60)]
    assert rep.by_rule() == {"home-linux": 60, "github-pat": 60}


AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq8Vd3Lk2P"


def test_a_cut_inside_a_line_never_parts_a_name_from_its_secret(red: RuleRedactor) -> None:
    """Text without newlines is cut at a separator once the carry is full. The pair
    `aws_secret_access_key= <secret>` is placed at every offset around one piece's end, so some
    cut falls on the space between name and value: the piece is extended past the secret."""
    piece = 32768
    pair = f"aws_secret_access_key= {AWS_SECRET} "
    for shift in range(0, 64):
        text = ("word " * ((piece - text_mod._SETTLE_WINDOW - 40 + shift) // 5)) + pair + ("tail " * 20000)
        out = io.BytesIO()
        text_mod.redact_stream(io.BytesIO(text.encode()), out, lambda b: red.engine.redact_bytes(b, None),
                               piece, max_carry=piece)
        got = out.getvalue()
        assert AWS_SECRET.encode() not in got, shift
        assert got.count(b"<AWS_SECRET_KEY:") == 1


def test_a_long_json_string_cut_in_pieces_keeps_the_pair_whole(red: RuleRedactor) -> None:
    """The same inside a JSON string longer than STRING_IN_MEMORY (walkers/longjson): the only
    separators near the first block's cut are the pair's own spaces, so without the check the
    cut falls right after `= `."""
    pair = f"aws_secret_access_key= {AWS_SECRET} "
    limit = longjson.BLOCK - 1 - text_mod._SETTLE_WINDOW
    for shift in (-20, -5, 0, 5):
        prefix = b'{"type":"tool_result","content":"'
        at = limit - 30 + shift  # the pair's offset in the string: its `= ` ends before limit
        body = "a" * (at - 1) + " " + pair + ("tail " * ((longjson.STRING_IN_MEMORY + MB) // 5))
        line = prefix + body.encode() + b'"}'
        out: list[bytes] = []
        red.redact_jsonl_span(io.BytesIO(line), 0, len(line), out.append, RedactionReport())
        got = b"".join(out)
        assert AWS_SECRET.encode() not in got, shift
        assert orjson.loads(got)["content"].count("<AWS_SECRET_KEY:") == 1
