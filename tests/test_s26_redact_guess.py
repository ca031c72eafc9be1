"""`archiver redact FILE` (and `rules test FILE`) without --format: a git pack is read as
git-pack and a loose git object as git-object, from their first bytes, not redacted as text
(which would leave the compressed content as it is)."""

from __future__ import annotations

import base64
import contextlib
import io
import json
import tarfile
import zlib
from pathlib import Path

import pytest

from archiver.cli import main
from archiver.commands.redact import guess_format
from tests.fx_s24_gitpack import GIT, build_snapshot, run_git

pytestmark = pytest.mark.skipif(GIT is None, reason="git CLI not installed")


def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


@pytest.fixture()
def config(tmp_path: Path) -> Path:
    assert _run("keygen", "--out", str(tmp_path / "keys"))[0] == 0
    cfg = tmp_path / "config.toml"
    cfg.write_text(f'[redaction]\nteam_key_file = "{tmp_path / "keys" / "team.key"}"\n')
    return cfg


def test_a_pack_is_redacted_as_a_pack(tmp_path: Path, config: Path) -> None:
    snap = build_snapshot(tmp_path / "s", "cruft")
    packs = sorted((snap.git_dir / "objects" / "pack").glob("*.pack"))
    assert packs
    pack = max(packs, key=lambda p: p.stat().st_size)
    assert guess_format(pack) == "git-pack"
    code, out, _ = _run("redact", "--config", str(config), "--json", str(pack))
    assert code == 0
    doc = json.loads(out)
    assert doc["format"] == "git-pack" and doc["redactions"]
    with tarfile.open(fileobj=io.BytesIO(base64.b64decode(doc["output_base64"]))) as tar:
        members = tar.getmembers()
        assert members and all(m.name.startswith("objects/") for m in members)
        bodies = b"".join(zlib.decompress(tar.extractfile(m).read()) for m in members)  # type: ignore[union-attr]
    for needle in snap.needles:
        assert needle.encode() not in bodies, needle
    assert b"def handler_7(event)" in bodies  # the code itself is there


def test_a_loose_object_is_redacted_as_one(tmp_path: Path, config: Path) -> None:
    git_dir = tmp_path / "repo" / ".git"
    git_dir.parent.mkdir()
    run_git(git_dir, git_dir.parent, "init", "-q")
    token = "ghp_" + "Zq8Xw3Rt6Yu1Io4Pa7Sd0Fg2Hj5Kl9Mn3Bv"
    (git_dir.parent / "env").write_text(f"GITHUB_TOKEN={token}\n")
    oid = run_git(git_dir, git_dir.parent, "hash-object", "-w", "env").decode().strip()
    loose = git_dir / "objects" / oid[:2] / oid[2:]
    assert guess_format(loose) == "git-object"
    code, out, _ = _run("redact", "--config", str(config), "--json", str(loose))
    assert code == 0
    doc = json.loads(out)
    assert doc["format"] == "git-object"
    body = zlib.decompress(base64.b64decode(doc["output_base64"]))
    assert body.startswith(b"blob ") and b"GITHUB_TOKEN=" in body and token[4:].encode() not in body
    # rules test reads it the same way
    code, out, _ = _run("rules", "--config", str(config), "test", "--json", str(loose))
    assert code == 0 and "github" in out


@pytest.mark.parametrize("name, head, fmt", [
    ("objects/ab/" + "c" * 38, zlib.compress(b"blob 3\0abc"), "git-object"),
    ("objects/ab/" + "c" * 62, zlib.compress(b"blob 3\0abc"), "git-object"),
    ("objects/ab/" + "c" * 38, b"plain text, not zlib", "text"),  # the name alone is not enough
    ("notes/ab/" + "c" * 38, zlib.compress(b"blob 3\0abc"), "text"),
    ("pack-1.pack", b"PACK\0\0\0\2\0\0\0\0", "git-pack"),
    ("pack-1.pack", b"PACK\0\0\0\3\0\0\0\0", "git-pack"),
    ("notes.txt", b"PACK\0\0\0\x09 version 9", "text"),
    ("PACKING.md", b"PACKING list\n", "text"),
])
def test_guess(tmp_path: Path, name: str, head: bytes, fmt: str) -> None:
    p = tmp_path / name
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_bytes(head)
    assert guess_format(p) == fmt
