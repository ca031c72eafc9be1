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
    (b"abc\x00\x00def", True),  # one NUL between records is text (env -0), a run of them is not
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


def test_nul_separated_records_are_text_and_each_record_is_redacted() -> None:
    """`env -0`, `find -print0`, /proc/<pid>/environ: text whose records end in NUL. UTF-16 and
    binary data stay binary."""
    from archiver.redact.base import RedactionReport
    from archiver.redact.redactor import build_redactor
    from archiver.redact.rules import RuntimeTerms

    env = (b"HOME=/home/alice\0AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq8Vd3Lk2P\0"
           b"DB_PASSWORD=Hq7vT2mZp9Lx4RkW\0PATH=/usr/bin\0")
    assert not looks_binary(env)
    assert looks_binary("HOME=/home/alice".encode("utf-16-le")) and looks_binary(bytes(range(256)))
    assert looks_binary(b"\x00\x00\x00\x01ftypisom" + b"x" * 100)
    red = build_redactor(["builtin:secrets", "builtin:pii", "builtin:paths"], b"k" * 32, RuntimeTerms(usernames=["alice"]))
    out = red.engine.redact_bytes(env, RedactionReport())
    records = out.split(b"\0")
    assert len(records) == 5 and records[-1] == b"" and records[3] == b"PATH=/usr/bin"
    assert records[1].startswith(b"AWS_SECRET_ACCESS_KEY=<AWS_SECRET_KEY:") and records[2].startswith(b"DB_PASSWORD=<")
    assert b"alice" not in out


def test_an_unlistable_folder_is_named_with_its_reason(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A sidecar folder the collector cannot list (mode 000, another owner): its files are not
    found, and the session says why instead of calling them gone."""
    import os

    from archiver.harnesses.common import regular_files

    (tmp_path / "ok").mkdir()
    (tmp_path / "ok" / "a.txt").write_text("a")
    (tmp_path / "locked").mkdir()
    (tmp_path / "locked" / "b.txt").write_text("b")
    real = os.scandir

    def scandir(path):  # type: ignore[no-untyped-def]  # the tests run as root: chmod 000 would not stop them
        if str(path).endswith("locked"):
            raise PermissionError(13, "Permission denied", str(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)
    problems: list[str] = []
    assert [p.name for p in regular_files(tmp_path, problems)] == ["a.txt"]
    assert problems == [f"{tmp_path.name}: 1 folder(s) not listable (permission denied)"]
    assert [p.name for p in regular_files(tmp_path / "missing", problems)] == [] and len(problems) == 1
