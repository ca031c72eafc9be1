"""Git loose objects (OpenCode snapshot dirs): bodies redacted inside the zlib stream, the
header's size rewritten, trees / binary blobs / unchanged objects kept byte for byte, and
git itself still reads the redacted object under its old name."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import zlib
from pathlib import Path

import pytest

from archiver.redact.base import RedactionReport
from archiver.redact.redactor import RuleRedactor, build_redactor
from archiver.redact.rules import RuntimeTerms
from archiver.redact.walkers import gitobject

KEY = b"team-key-for-tests-0123456789abcdef"
GHP = "ghp_" + "R8fJ2kLm9QwErTyUiOpAsDfGhJkLzXcVbN12"


@pytest.fixture
def red() -> RuleRedactor:
    return build_redactor(["builtin:secrets", "builtin:pii", "builtin:paths"], KEY,
                          RuntimeTerms(usernames=["alice"], home_dirs=["/home/alice"]))


def _object(kind: bytes, body: bytes) -> tuple[str, bytes]:
    raw = b"%s %d\0" % (kind, len(body)) + body
    return hashlib.sha1(raw).hexdigest(), zlib.compress(raw, 1)


def _inflate(data: bytes) -> tuple[bytes, bytes]:
    raw = zlib.decompress(data)
    head, _, body = raw.partition(b"\0")
    return head, body


def _redact(red: RuleRedactor, tmp_path: Path, data: bytes, name: str = "obj") -> tuple[bytes, RedactionReport]:
    src, dst = tmp_path / f"{name}.in", tmp_path / f"{name}.out"
    src.write_bytes(data)
    report = RedactionReport()
    red.redact_file(src, dst, "git-object", report)
    return dst.read_bytes(), report


def test_a_blob_is_redacted_inside_the_object(red: RuleRedactor, tmp_path: Path) -> None:
    body = f"GITHUB_TOKEN={GHP}\nLOG=/home/alice/app/logs\nmail=bob.stone@northwind.io\n".encode()
    _, data = _object(b"blob", body)
    out, report = _redact(red, tmp_path, data)
    head, new = _inflate(out)
    assert head == b"blob %d" % len(new)
    assert GHP.encode() not in new and b"alice" not in new and b"northwind" not in new
    assert new.startswith(b"GITHUB_TOKEN=<GITHUB_TOKEN:") and new.endswith(b"\n")
    assert report.counts[("github-pat", "git-object")] == 1
    # the verify pass sees the leftover before and nothing after
    src = tmp_path / "obj.in"
    assert red.scan_file(src, "git-object").counts[("github-pat", "git-object")] == 1
    (tmp_path / "red").write_bytes(out)
    assert red.verify_file(tmp_path / "red", "git-object") == []


def test_a_json_blob_keeps_its_structure(red: RuleRedactor, tmp_path: Path) -> None:
    body = b'{\n  "token": "' + GHP.encode() + b'",\n  "root": "/home/alice/x"\n}\n'
    _, data = _object(b"blob", body)
    out, _ = _redact(red, tmp_path, data)
    _, new = _inflate(out)
    assert new.startswith(b'{\n  "token": "<GITHUB_TOKEN:') and new.endswith(b'"\n}\n')


def test_a_commit_loses_its_author_email(red: RuleRedactor, tmp_path: Path) -> None:
    body = (b"tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n"
            b"author Bob Stone <bob.stone@northwind.io> 1764400000 +0000\n"
            b"committer Bob Stone <bob.stone@northwind.io> 1764400000 +0000\n\nsnapshot\n")
    _, data = _object(b"commit", body)
    out, _ = _redact(red, tmp_path, data)
    head, new = _inflate(out)
    assert head.startswith(b"commit ") and b"northwind" not in new
    assert new.startswith(b"tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n")


@pytest.mark.parametrize("kind,body", [
    (b"tree", b"100644 .env\0" + bytes(range(20)) + b"40000 home-alice-dir\0" + bytes(20)),
    (b"blob", b"\x89PNG\r\n\x1a\n\0\0\0" + GHP.encode()),  # binary: kept
    (b"blob", b"nothing to hide here\n"),
], ids=["tree", "binary-blob", "clean-blob"])
def test_objects_without_changes_are_copied_byte_for_byte(red: RuleRedactor, tmp_path: Path, kind: bytes,
                                                          body: bytes) -> None:
    _, data = _object(kind, body)
    out, report = _redact(red, tmp_path, data)
    assert out == data and not report.counts


@pytest.mark.parametrize("data", [
    b"not zlib at all " + GHP.encode(),
    zlib.compress(b"blob 5\0hello")[:-3],  # truncated
    zlib.compress(b"blob 5\0hello") + b"trailing",
    zlib.compress(b"blob 99\0short"),  # size differs from the header
    zlib.compress(b"weird 5\0hello"),
    zlib.compress(b"blob 05\0hello"),
], ids=["not-zlib", "truncated", "trailing", "size", "type", "leading-zero"])
def test_a_malformed_object_is_copied_and_counted(red: RuleRedactor, tmp_path: Path, data: bytes) -> None:
    before = red.warnings["git-object-malformed"]
    out, _ = _redact(red, tmp_path, data)
    assert out == data
    assert red.warnings["git-object-malformed"] == before + 1


def test_a_large_blob_is_streamed(red: RuleRedactor, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gitobject, "IN_MEMORY", 4096)
    monkeypatch.setattr(gitobject, "_PIECE", 1000)  # secrets cross the decompressor's pieces
    lines = [f"line {i} /home/alice/src/f{i}.py\n".encode() for i in range(3000)]
    lines[1500] = f"export GITHUB_TOKEN={GHP}\n".encode()
    body = b"".join(lines)
    _, data = _object(b"blob", body)
    out, report = _redact(red, tmp_path, data)
    head, new = _inflate(out)
    assert head == b"blob %d" % len(new)
    assert GHP.encode() not in new and b"alice" not in new
    assert new.count(b"\n") == 3000
    assert report.counts[("github-pat", "git-object")] == 1
    clean = b"x" * 10_000 + b"\n"
    _, data = _object(b"blob", clean)
    assert _redact(red, tmp_path, data, "clean")[0] == data  # unchanged: the same bytes


def test_a_highly_compressed_object_is_read_in_bounded_pieces(red: RuleRedactor, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gitobject, "IN_MEMORY", 1 << 16)
    body = b"A" * (64 << 20)  # 64 MB of one byte: ~64 KB compressed
    _, data = _object(b"blob", body)
    pieces = []
    real = zlib.decompressobj

    class Spy:
        def __init__(self) -> None:
            self.d = real()

        def decompress(self, data: bytes, max_length: int = 0) -> bytes:
            out = self.d.decompress(data, max_length)
            pieces.append(len(out))
            return out

        def __getattr__(self, name: str) -> object:
            return getattr(self.d, name)

    monkeypatch.setattr(gitobject.zlib, "decompressobj", Spy)
    out, _ = _redact(red, tmp_path, data)
    assert out == data
    assert max(pieces) <= gitobject._PIECE


@pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")
def test_git_reads_the_redacted_object_under_its_old_name(red: RuleRedactor, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    env = {**os.environ, "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run(["git", "init", "-q", "--bare", str(repo)], check=True, env=env)
    body = f"TOKEN={GHP}\n".encode()
    name, data = _object(b"blob", body)
    out, _ = _redact(red, tmp_path, data)
    (repo / "objects" / name[:2]).mkdir()
    (repo / "objects" / name[:2] / name[2:]).write_bytes(out)
    shown = subprocess.run(["git", "--git-dir", str(repo), "cat-file", "-p", name], capture_output=True, env=env)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.startswith(b"TOKEN=<GITHUB_TOKEN:") and GHP.encode() not in shown.stdout
