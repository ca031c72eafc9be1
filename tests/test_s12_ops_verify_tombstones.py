"""`archiver verify` checks tombstones (FORMAT.md §7): the folder lists, each entry is a zero-byte
object named by 64 lowercase hex, and no manifest the store received after a tombstone names the
session it erased. The real CLI on a generated home (the Claude sample, following the seeds) and
a file:// store."""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import io
import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from archiver.cli import main
from archiver.demo.claude_sample import make_claude_home
from tests.fx_home import isolate_env

USER = "alice"


class Box:
    def __init__(self, base: Path) -> None:
        self.base, self.home, self.keys, self.store = base, base / "home", base / "keys", base / "store"
        self.config = base / "config.toml"

    def cli(self, *argv: str, identity: bool = True) -> tuple[int, Any, str]:
        args = [argv[0], "--config", str(self.config), *argv[1:], "--json"]
        if identity:
            args += ["--identity", str(self.keys / "identity.txt")]
        out, errs = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(errs):
            code = main(args)
        return code, json.loads(out.getvalue()) if out.getvalue().strip() else None, errs.getvalue()

    def tomb_id(self, key: str) -> str:
        # FORMAT.md §4: K_obj = HMAC(team key, "archiver/v1/object-id"); §7: the tomb-id
        team = bytes.fromhex((self.keys / "team.key").read_text().strip())
        k_obj = hmac.new(team, b"archiver/v1/object-id", hashlib.sha256).digest()
        return hmac.new(k_obj, b"tombstone\x00" + key.encode(), hashlib.sha256).hexdigest()


@pytest.fixture
def box(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Box:
    isolate_env(monkeypatch)
    b = Box(tmp_path)
    b.home.mkdir()
    make_claude_home(b.home, USER)
    assert main(["keygen", "--out", str(b.keys)]) == 0
    b.config.write_text(
        f'home = "{b.home}"\nhost = "tomb-box"\n\n'
        f'[redaction]\nteam_key_file = "{b.keys / "team.key"}"\nusernames = ["{USER}"]\n\n'
        f'[encryption]\nrecipients_file = "{b.keys / "recipient.txt"}"\n\n'
        f'[store]\nurl = "file://{b.store}"\n\n[state]\ndir = "{tmp_path / "state"}"\n')
    code, doc, _ = b.cli("sync", "--workers", "1", identity=False)
    assert code == 0 and doc["snapshot"], doc
    return b


def _forget_one(box: Box) -> tuple[str, Path]:
    """forget-session one session (objects kept: the default grace); returns its key and a copy
    of the manifest that named it, as it was before."""
    keys = [s["key"] for s in box.cli("ls")[1]["sessions"]]
    key = sorted(keys)[0]
    (manifest,) = sorted((box.store / "snapshots").rglob("*.json.age"))
    saved = box.base / "saved-manifest"
    shutil.copy2(manifest, saved)
    code, doc, _ = box.cli("forget-session", key)
    # exit 1: the session's objects are younger than the grace period, so they stay for now
    assert code in (0, 1) and len(doc["manifests"]["rewritten"]) == 1 and not doc["errors"], doc
    return key, saved


def test_well_formed_tombstones_verify_clean_and_are_counted(box: Box) -> None:
    code, doc, _ = box.cli("verify")
    assert code == 0 and doc["tombstones"] == 0 and doc["notes"] == []
    key, _ = _forget_one(box)
    assert [p.name for p in (box.store / "tombstones").iterdir()] == [box.tomb_id(key)]
    code, doc, _ = box.cli("verify")
    assert code == 0, doc
    assert doc["tombstones"] == 1 and doc["errors"] == [] and doc["notes"] == []


def test_malformed_tombstones_are_integrity_errors(box: Box) -> None:
    key, _ = _forget_one(box)
    tombs = box.store / "tombstones"
    (tombs / "not-a-tomb-id").write_bytes(b"")
    nested = tombs / "sub"
    nested.mkdir()
    (nested / box.tomb_id("claude-code:other")).write_bytes(b"")  # readers take the last part for an id
    (tombs / box.tomb_id(key)).write_bytes(b"not empty")
    (tombs / box.tomb_id(key).upper()).write_bytes(b"")
    code, doc, _ = box.cli("verify")
    assert code == 3 and doc["ok"] is False
    errors = doc["errors"]
    assert len(errors) == 4, errors
    assert any(e.startswith("tombstones/not-a-tomb-id: not a tombstone") for e in errors)
    assert any(e.startswith(f"tombstones/sub/{box.tomb_id('claude-code:other')}: not a tombstone") for e in errors)
    assert any(e.startswith(f"tombstones/{box.tomb_id(key).upper()}: not a tombstone") for e in errors)
    assert f"tombstones/{box.tomb_id(key)}: 9 bytes; a tombstone is a zero-byte object" in errors
    assert doc["tombstones"] == 0


def test_a_session_archived_again_after_its_tombstone_is_an_error(box: Box) -> None:
    key, saved = _forget_one(box)
    tomb = box.store / "tombstones" / box.tomb_id(key)
    host_dir = next((box.store / "snapshots").iterdir())
    back = host_dir / saved.name.replace("saved-manifest", "20991231T000000Z-0badc0de.json.age")
    shutil.copyfile(saved, back)  # a collector that ignored the tombstone wrote this, after it
    t = tomb.stat().st_mtime
    os.utime(back, (t + 60, t + 60))
    code, doc, text = box.cli("verify")
    assert code == 3, doc
    came_back = [e for e in doc["errors"] if "a collector archived it again" in e]
    assert came_back == [f"snapshots/{host_dir.name}/{back.name}: names session {key}, erased by forget-session "
                         f"before the store received this manifest (tombstones/{box.tomb_id(key)}): "
                         "a collector archived it again"], doc["errors"]

    os.utime(back, (t - 60, t - 60))  # older than the tombstone: one forget-session could not rewrite
    code, doc, _ = box.cli("verify")
    assert code == 0, doc
    assert doc["notes"] == [f"snapshots/{host_dir.name}/{back.name}: still names session {key}, erased by "
                            "forget-session (a manifest it could not rewrite); readers leave the session out"]


def test_without_the_team_key_verify_says_what_it_cannot_check(box: Box) -> None:
    _forget_one(box)
    text = box.config.read_text().replace(f'team_key_file = "{box.keys / "team.key"}"\n', "")
    box.config.write_text(text)
    code, doc, _ = box.cli("verify")
    assert code == 0 and doc["tombstones"] == 1
    assert doc["notes"] == ["1 tombstone(s): without the team key verify cannot tell which sessions they erased, "
                            "nor check that none came back"]


def test_human_output_counts_tombstones(box: Box) -> None:
    _forget_one(box)
    out, errs = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(errs):
        code = main(["verify", "--config", str(box.config), "--identity", str(box.keys / "identity.txt")])
    assert code == 0 and ", 1 tombstones: ok" in out.getvalue()
