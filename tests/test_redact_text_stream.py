"""Text streamed in chunks (sidecars, terminal logs, long JSON strings): the last line of a text
without a trailing newline is redacted with the lines before it, as redacting the whole text gives."""

from __future__ import annotations

import io
import random
import secrets
import string

import pytest

from archiver.redact.base import RedactionReport
from archiver.redact.redactor import build_redactor
from archiver.redact.rules import RuntimeTerms
from archiver.redact.walkers import text as text_mod

RNG = random.Random(secrets.randbits(64))


@pytest.fixture(scope="module")
def red():  # noqa: ANN201
    return build_redactor(["builtin:secrets", "builtin:pii", "builtin:paths"], b"text-stream-test-key-0123456789ab",
                          RuntimeTerms())


def _letters(n: int = 10) -> str:
    """A letters-only password: no rule takes it for one without its .netrc context."""
    return "".join(RNG.choice(string.ascii_letters) for _ in range(n))


def _stream(red, data: bytes, chunk: int | None = None) -> bytes:  # noqa: ANN001
    out = io.BytesIO()
    text_mod.redact_stream(io.BytesIO(data), out, lambda b: red.engine.redact_bytes(b, None, "text"), chunk)
    return out.getvalue()


NETRC = [
    "machine {h}\n  login {u}\n  password {p}",
    "machine {h}\nlogin {u}\npassword {p}",
    "# ~/.netrc\nmachine api.example.com login ci password Ci-FAKE-pw1\nmachine {h}\n\tlogin {u}\n\tpassword {p}",
    "default\n  login {u}\n  password {p}",
    "+machine {h}\n+  login {u}\n+  password {p}",
]


@pytest.mark.parametrize("template", NETRC)
def test_a_letters_only_netrc_password_on_the_last_line_without_a_newline(red, template: str, tmp_path) -> None:
    """A .netrc whose last line (no newline after it) holds a password of letters only: the chunker
    once redacted that line alone, apart from its `machine` and `login` lines."""
    pw = _letters()
    text = template.format(h="git.example.com", u="deploy", p=pw)
    whole = red.engine.redact_bytes(text.encode(), None)
    assert pw.encode() not in whole
    for chunk in (None, 7, 64):
        assert _stream(red, text.encode(), chunk) == whole, chunk
    src = tmp_path / ".netrc"
    src.write_bytes(text.encode())
    red.redact_file(src, tmp_path / "out", "text", RedactionReport())
    assert (tmp_path / "out").read_bytes() == whole
    assert red.scan_file(src, "text").counts  # the verification scan reads it the same way


def test_a_text_streamed_equals_the_text_redacted_whole_when_it_fits_a_chunk(red) -> None:
    """Random multi-line snippets (no trailing newline): streamed in one chunk, the output is the
    whole text's (the last line is no longer redacted on its own)."""
    lines = ["machine h{0}", "  login u{0}", "  password {1}", "- name: DB_PASSWORD", "  value: {1}",
             "export X=1", "plain prose line {0}", "$ echo done"]
    for _ in range(40):
        pw = _letters()
        text = "\n".join(RNG.choice(lines).format(RNG.randint(1, 9), pw) for _ in range(RNG.randint(2, 8)))
        assert _stream(red, text.encode()) == red.engine.redact_bytes(text.encode(), None), text


def test_reads_ahead_one_chunk_only(red) -> None:
    """The read-ahead asks for one chunk at a time and stops at the first empty read."""
    calls: list[int] = []

    class Src(io.BytesIO):
        def read(self, n: int = -1) -> bytes:  # type: ignore[override]
            calls.append(n)
            return super().read(n)

    data = b"x = 1\n" * 100
    out = io.BytesIO()
    text_mod.redact_stream(Src(data), out, lambda b: b, 64)
    assert out.getvalue() == data and set(calls) == {64} and len(calls) == len(data) // 64 + 2
