"""snapshot.looks_binary: the one text/binary sniff (harness sidecars, git blobs)."""

from __future__ import annotations

from pathlib import Path

import pytest

from archiver.harnesses.common import sniff_content
from archiver.snapshot import SNIFF_BYTES, looks_binary

TEXT = "naïve café — 日本語 ".encode()


@pytest.mark.parametrize("head,binary", [
    (b"plain ascii\n", False),
    (TEXT * 10, False),
    ((TEXT * 800)[:SNIFF_BYTES - 1] + "日".encode()[:2], False),  # a character cut at the end
    (b"abc\x00def", True),
    (b"\xff\xfe not utf-8 at all", True),
    (b"x" * SNIFF_BYTES + b"\x00", False),  # only the first SNIFF_BYTES count
    (b"", False),
])
def test_looks_binary(head: bytes, binary: bool) -> None:
    assert looks_binary(head) is binary


def test_sniff_content_reads_the_head_of_a_file(tmp_path: Path) -> None:
    (tmp_path / "t").write_bytes(TEXT)
    (tmp_path / "b").write_bytes(b"\x89PNG\r\n\x1a\n\x00")
    assert sniff_content(tmp_path / "t") == "text" and sniff_content(tmp_path / "b") == "binary"
    assert sniff_content(tmp_path / "missing") == "binary"
    assert sniff_content(tmp_path / "missing", unreadable="text") == "text"
