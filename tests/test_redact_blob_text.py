"""Text or protobuf in BLOBs and sidecar files: printable messages, terminal colour codes, Latin-1."""

from __future__ import annotations

import gzip
import hashlib
import random
import sqlite3
import struct
import zlib
from pathlib import Path

import pytest
import zstandard

from archiver.harnesses.common import sniff_content
from archiver.redact.base import RedactionReport
from archiver.redact.pseudonym import Pseudonymizer
from archiver.redact.redactor import RuleRedactor, build_redactor
from archiver.redact.rules import RuntimeTerms
from archiver.redact.walkers import protobuf
from archiver.snapshot import looks_binary

KEY = b"team-key-for-tests-0123456789abcdef"
GHP = "ghp_R8fJ2kLm9QwErTyUiOpAsDfGhJkLzXcVbN12"
EMAIL = "zelda.quixote@zqxcorp.example"
USER = Pseudonymizer(KEY).username("alice")
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def red() -> RuleRedactor:
    return build_redactor(["builtin:secrets", "builtin:pii", "builtin:paths"], KEY,
                          RuntimeTerms(usernames=["alice"], names=["Zelda Quixote", "Zoë Núñez"]))


def _field(no: int, payload: bytes) -> bytes:
    return protobuf._encode_varint(no << 3 | 2) + protobuf._encode_varint(len(payload)) + payload


def _cell(red: RuleRedactor, value: bytes) -> bytes:
    out = red._cell(value, "sqlite:t.c", RedactionReport())
    assert type(out) is bytes
    return out


def _as_text(red: RuleRedactor, value: bytes) -> bytes:
    return red.redact_bytes(value, RedactionReport(), "sqlite:t.c")


def _strings(msg: bytes) -> list[bytes]:
    fields = protobuf.parse(msg)
    assert fields is not None, msg
    assert all(f[4] == 2 for f in fields)
    return [msg[f[2]:f[3]] for f in fields]


# ---------------------------------------------------------------- 1. printable protobuf messages

def test_a_printable_message_is_redacted_inside_and_keeps_parsing(red: RuleRedactor) -> None:
    summary = f"Sum Zelda Quixote {GHP}".encode()
    msg = b"\n" + bytes([len(summary)]) + summary  # tag "\n", printable length: all bytes are text
    assert protobuf.is_text(msg, strict=True)
    out = _cell(red, msg)
    (inner,) = _strings(out)
    assert inner == _as_text(red, summary)
    assert GHP.encode() not in out and b"Zelda" not in out
    assert red.redact_protobuf(msg, RedactionReport()) == out


def test_a_printable_message_nested_in_a_field_keeps_parsing(red: RuleRedactor) -> None:
    line = f"token {GHP} in /home/alice/app".encode()
    printable = _field(1, line) + _field(4, b"x" * 40)
    assert protobuf.is_text(printable, strict=True)
    msg = _field(2, printable) + b"\x18\x01"
    out = red.redact_protobuf(msg, RedactionReport())
    fields = protobuf.parse(out)
    assert fields is not None and out.endswith(b"\x18\x01")
    assert _strings(out[fields[0][2]:fields[0][3]]) == [_as_text(red, line), b"x" * 40]
    assert GHP.encode() not in out and b"alice" not in out


def test_random_printable_messages_keep_parsing_with_the_secret_gone(red: RuleRedactor) -> None:
    rng = random.Random(7)
    words = b"the cat ran over some text near a tree while path build run zone".split()
    for _ in range(300):
        payloads = []
        for _ in range(rng.randint(1, 3)):
            n = rng.randint(33, 126 - len(GHP) - 1)
            filler = b" ".join(rng.choice(words) for _ in range(40))[:n].strip() or b"x"
            cut = rng.randint(0, len(filler))
            payloads.append((filler[:cut] + b" " + GHP.encode() + b" " + filler[cut:])[:126])
        numbers = [1] + sorted(rng.sample(range(4, 16), len(payloads) - 1))
        msg = b"".join(_field(no, p) for no, p in zip(numbers, payloads))
        if not protobuf.is_text(msg, strict=True) or b"\n " in msg[:2]:
            continue
        out = _cell(red, msg)
        assert GHP.encode() not in out
        assert _strings(out) == [_as_text(red, p) for p in payloads]


TEXTS = [
    "Hi", "OK", "yes", "Run the tests", "Build failed", "hello world", "x", "42", "3.14",
    "The quick brown fox jumps over the lazy dog. " * 3,
    "Please fix the failing test in tests/test_api.py and push.",
    "/home/alice/projects/app/src/main.py", "~/.config/app/settings.json", "C:\\Users\\alice\\x.txt",
    '{"cwd": "/home/alice/app", "n": 1}', '["a", "b"]', '"a json string of some length here"',
    "def main() -> None:\n    print('hi')\n", "import os\nimport sys\n", "    return x + 1\n",
    "\n    indented = True\n    more = False", "\n\n    Workaround for the bug below", "\n\tline\n",
    "\nfoo = 1\n", "\n# a comment line\n", "\r\nwindows line\r\n", "\n" + " " * 40,
    # a newline, then whitespace whose code is the length of the rest: the shape of a message
    "\n    value = compute(alpha, beta, gamma)"[:34], "\n\nWorkaround", "\n\treturn x;", "\n\r" + "x" * 13,
    "#!/bin/sh\nset -eu\nexport GITHUB_TOKEN=x\n", "$ ls -la\ntotal 8\ndrwxr-xr-x 2 alice alice 4096 .\n",
    "SELECT * FROM users WHERE id = 1;", "<html><body>hi</body></html>", "- item one\n- item two\n",
    "Bonjour, ça va ? Très bien.", "日本語のテキスト", "Zoë Núñez wrote this",
    "BEGIN: deploy\nstep 1 ok\nstep 2 ok\nEND\n", "Error: ENOENT: no such file or directory, open 'x'",
    "bar baz qux " * 10, "AAAA", "Hello, world!", "Just a sentence with a period at the end.",
    "*bold* and _italic_", "2024-05-01T12:00:00Z", "a" * 200, "bz", "zb" * 60,
]


@pytest.mark.parametrize("text", TEXTS)
def test_ordinary_text_blobs_are_redacted_as_text(red: RuleRedactor, text: str) -> None:
    for value in (text.encode(), f"{text} {GHP} {EMAIL}".encode(), f"{GHP} {text}".encode()):
        assert protobuf.kind(value)[0] == "text", value
        assert _cell(red, value) == _as_text(red, value)


def test_random_slices_of_real_text_are_redacted_as_text(red: RuleRedactor) -> None:
    docs = [p.read_bytes() for p in sorted([*ROOT.glob("archiver/**/*.py"), *ROOT.glob("docs/*.md")])]
    rng = random.Random(11)
    seen = 0
    for _ in range(20000):
        doc = rng.choice(docs)
        start = rng.randrange(len(doc))
        value = doc[start:start + rng.choice((rng.randint(1, 40), rng.randint(1, 400)))]
        if value[:1] == b"\n" or not protobuf.is_text(value, strict=True):
            continue  # text that starts with a newline: test_ordinary_text_blobs_are_redacted_as_text
        seen += 1
        assert protobuf.kind(value)[0] == "text", value
    assert seen > 15000


# ---------------------------------------------------------------- 2. terminal colour codes

ANSI = f"\x1b[01;31m\x1b[K.env\x1b[m\x1b[K:\x1b[32m\x1b[KGITHUB_TOKEN\x1b[m\x1b[K={GHP} \x1b[1m{EMAIL}\x1b[0m\r\n"


def test_terminal_output_with_colour_codes_is_redacted_in_blobs(red: RuleRedactor) -> None:
    value = ANSI.encode()
    assert value.count(b"\x1b") * 100 > len(value)  # well over 1% control bytes
    out = _cell(red, value)
    assert GHP.encode() not in out and EMAIL.encode() not in out
    assert out.count(b"\x1b[") == value.count(b"\x1b[")
    assert out == _as_text(red, value)


def test_terminal_output_in_a_protobuf_string_is_redacted(red: RuleRedactor) -> None:
    value = ANSI.encode()
    msg = _field(1, value) + b"\x10\x01"
    out = _cell(red, msg)
    fields = protobuf.parse(out)
    assert fields is not None and out.endswith(b"\x10\x01")
    assert out[fields[0][2]:fields[0][3]] == _as_text(red, value)
    assert GHP.encode() not in out


# ---------------------------------------------------------------- 3. Latin-1 / CP1252 text

LATIN1 = f"# caf\xe9 \x93r\xe9sum\xe9\x94\nGITHUB_TOKEN={GHP}\nowner={EMAIL}\ncd /home/alice/x\nby Zo\xeb N\xfa\xf1ez\n"


def _latin1_expected(red: RuleRedactor, text: str) -> bytes:
    """What the same text redacts to as UTF-8, written back as Latin-1."""
    return _as_text(red, text.encode("utf-8")).decode("utf-8").encode("latin-1")


def test_latin1_blob_is_redacted_and_keeps_its_bytes(red: RuleRedactor) -> None:
    value = LATIN1.encode("latin-1")
    out = _cell(red, value)
    assert out == _latin1_expected(red, LATIN1)
    for gone in (GHP.encode(), EMAIL.encode(), b"/home/alice", "Zo\xeb".encode("latin-1")):
        assert gone not in out
    assert out.startswith(b"# caf\xe9 \x93r\xe9sum\xe9\x94\n") and f"/home/{USER}/x".encode() in out


def test_latin1_string_in_a_protobuf_field_is_redacted(red: RuleRedactor) -> None:
    value = LATIN1.encode("latin-1")
    msg = _field(1, value) + _field(2, b"\x08\x01")
    out = _cell(red, msg)
    fields = protobuf.parse(out)
    assert fields is not None and out[fields[0][2]:fields[0][3]] == _latin1_expected(red, LATIN1)


def test_latin1_sidecar_file_is_text_and_redacted(red: RuleRedactor, tmp_path: Path) -> None:
    src = tmp_path / "tool-result.txt"
    src.write_bytes(LATIN1.encode("latin-1") * 300)  # invalid UTF-8 in the first 8 KiB
    assert sniff_content(src) == "text"
    dst = tmp_path / "out.txt"
    red.redact_file(src, dst, "text", RedactionReport())
    assert dst.read_bytes() == _latin1_expected(red, LATIN1) * 300
    assert "github-pat" in red.verify_file(src, "text") and red.verify_file(dst, "text") == []


def test_non_ascii_secret_in_latin1_text_is_redacted(red: RuleRedactor) -> None:
    value = "password=h\xe9llo-w\xf6rld-s3cr3t-\xe4\xe4\n".encode("latin-1")
    out = _cell(red, value)
    assert "h\xe9llo".encode("latin-1") not in out and out == _latin1_expected(red, value.decode("latin-1"))


# ---------------------------------------------------------------- real binary stays binary

def _png() -> bytes:
    ihdr = struct.pack(">IIBBBBB", 4, 4, 8, 2, 0, 0, 0)
    chunk = b"IHDR" + ihdr
    return b"\x89PNG\r\n\x1a\n" + struct.pack(">I", len(ihdr)) + chunk + struct.pack(">I", zlib.crc32(chunk))


def _binaries() -> list[bytes]:
    rng = random.Random(3)
    text = (LATIN1 * 50).encode("latin-1")
    sqlite_header = b"SQLite format 3\x00" + bytes(rng.randrange(256) for _ in range(84))
    elf = b"\x7fELF\x02\x01\x01\x00" + bytes(8) + struct.pack("<HHI", 2, 62, 1)
    return [_png(), gzip.compress(text), zstandard.ZstdCompressor().compress(text), zlib.compress(text),
            sqlite_header, elf, rng.randbytes(8192)]


@pytest.mark.parametrize("i", range(7))
def test_binary_files_stay_binary(i: int, tmp_path: Path) -> None:
    data = _binaries()[i]
    assert looks_binary(data)
    (tmp_path / "f").write_bytes(data)
    assert sniff_content(tmp_path / "f") == "binary"


def test_hashes_packed_numbers_and_random_bytes_are_not_text(red: RuleRedactor) -> None:
    rng = random.Random(5)
    values = [hashlib.sha256(str(i).encode()).digest() for i in range(2000)]
    values += [hashlib.sha512(str(i).encode()).digest() for i in range(500)]
    values += [rng.randbytes(rng.randint(32, 600)) for _ in range(2000)]
    values += [b"".join(protobuf._encode_varint(rng.randint(0, 1 << 20)) for _ in range(rng.randint(4, 60)))
               for _ in range(500)]
    values += [struct.pack(f"<{n}d", *(rng.random() for _ in range(n))) for n in range(1, 40)]
    values += _binaries()
    for v in values:
        assert not protobuf.is_text(v, strict=False), v[:40]
        assert protobuf.kind(v)[0] != "text"
    # a few bytes say little: short ones may read as text, and redacting them changes nothing
    short = [hashlib.new(h, str(i).encode()).digest() for i in range(1000) for h in ("md5", "sha1")]
    short += [rng.randbytes(rng.randint(1, 31)) for _ in range(2000)]
    for v in short:
        assert _cell(red, v) == v


HEX_JSON = '{"note": "caf\xe9", "token": "%s", "cwd": "/home/alice/x"}' % GHP


def test_sqlite_file_with_every_kind_of_blob(red: RuleRedactor, tmp_path: Path) -> None:
    summary = f"Sum Zelda Quixote {GHP}".encode()
    blobs = {
        "printable_message": b"\n" + bytes([len(summary)]) + summary,
        "ansi": ANSI.encode(),
        "latin1": LATIN1.encode("latin-1"),
        "png": _png(),
    }
    src = tmp_path / "store.db"
    conn = sqlite3.connect(src)
    conn.execute("CREATE TABLE blobs (id TEXT PRIMARY KEY, data BLOB)")
    conn.executemany("INSERT INTO blobs VALUES (?, ?)", blobs.items())
    conn.execute("CREATE TABLE meta (key TEXT, value TEXT)")
    conn.execute("INSERT INTO meta VALUES ('k', ?)", (HEX_JSON.encode("latin-1").hex(),))
    conn.commit()
    conn.close()
    dst = tmp_path / "out.db"
    red.redact_file(src, dst, "sqlite", RedactionReport())
    raw = dst.read_bytes()
    assert GHP.encode() not in raw and EMAIL.encode() not in raw
    conn = sqlite3.connect(dst)
    try:
        out = dict(conn.execute("SELECT id, data FROM blobs"))
        (hexed,) = conn.execute("SELECT value FROM meta").fetchone()
    finally:
        conn.close()
    assert _strings(out["printable_message"]) == [_as_text(red, summary)]
    assert out["latin1"] == _latin1_expected(red, LATIN1)
    assert bytes.fromhex(hexed) == _latin1_expected(red, HEX_JSON) and GHP not in HEX_JSON.replace(GHP, "")
    assert out["png"] == blobs["png"]
    assert red.verify_file(dst, "sqlite") == []
