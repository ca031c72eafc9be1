"""Claude Code discovery of entries that are not what the layout expects: a transcript name that
is a folder or a symbolic link, symbolic links among a session's sidecars, and a project folder
that cannot be listed. Each is named on its session (or the host) and never followed, and a
project folder's name (its cwd as a slug) never appears in a message."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from archiver.demo.claude_sample import make_claude_home
from archiver.harnesses.base import HarnessContext
from archiver.harnesses.claude_code import ClaudeCode
from archiver.model import DiscoveredSession
from tests.fx_s25_unlistable import deny_listing


def _discover(home: Path) -> dict[str, DiscoveredSession]:
    found = list(ClaudeCode(HarnessContext(home=home, env={})).discover())
    ids = [s.session_id for s in found]
    assert len(ids) == len(set(ids)), "one session per id"
    return {s.session_id: s for s in found}


def test_a_folder_named_like_a_transcript_is_named_on_its_session(tmp_path: Path) -> None:
    s = make_claude_home(tmp_path)
    pdir = s.root / "projects" / s.project_key
    lone = "0f0e0d0c-0000-4000-8000-000000000001"
    (pdir / f"{lone}.jsonl").mkdir()
    (pdir / f"{lone}.jsonl" / "x").write_text("{}")
    before = {k: len(v.sources) for k, v in _discover(tmp_path).items() if k != lone}
    found = _discover(tmp_path)
    assert found[lone].warnings == [f"{lone}.jsonl: a folder where a transcript belongs; skipped"]
    assert found[lone].sources == []
    assert {k: len(v.sources) for k, v in found.items() if k != lone} == before


def test_a_transcript_folder_beside_a_session_folder_gives_one_session(tmp_path: Path) -> None:
    s = make_claude_home(tmp_path)
    pdir = s.root / "projects" / s.project_key
    sid = "0f0e0d0c-0000-4000-8000-000000000002"
    (pdir / f"{sid}.jsonl").mkdir()
    (pdir / sid / "tool-results").mkdir(parents=True)
    (pdir / sid / "tool-results" / "t1.txt").write_text("output")
    found = _discover(tmp_path)[sid]
    assert f"{sid}.jsonl: a folder where a transcript belongs; skipped" in found.warnings
    assert f"{sid}/: session folder without its transcript {sid}.jsonl" in found.warnings
    assert [src.path.rsplit("/", 1)[1] for src in found.sources] == ["t1.txt"]


def test_symbolic_links_in_a_session_folder_are_named_and_not_followed(tmp_path: Path) -> None:
    s = make_claude_home(tmp_path)
    secret = tmp_path / "outside" / "id_ed25519"
    secret.parent.mkdir()
    secret.write_text("-----BEGIN OPENSSH PRIVATE KEY-----\n")
    sdir = s.root / "projects" / s.project_key / s.main
    (sdir / "tool-results").mkdir(exist_ok=True)
    os.symlink(secret, sdir / "tool-results" / "linked.txt")
    os.symlink(secret, sdir / "stray-link")
    os.symlink(secret.parent, sdir / "stray-dir-link")
    main = _discover(tmp_path)[s.main]
    assert not any(src.source.resolve() == secret.resolve() for src in main.sources)
    assert not any("outside" in str(src.source) for src in main.sources)
    assert "tool-results: 1 symbolic link(s) not followed" in main.warnings
    assert f"{s.main}/: 2 symbolic link(s) not followed" in main.warnings
    assert not any("linked" in w or "stray" in w for w in main.warnings)  # names below a folder are not shown


def test_an_unlistable_project_folder_is_counted_without_its_name(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    s = make_claude_home(tmp_path)
    secret_key = "-home-alice-jane-doe-acme-com-payroll"
    (s.root / "projects" / secret_key).mkdir()
    deny_listing(monkeypatch, s.root / "projects" / secret_key)
    found = _discover(tmp_path)
    assert s.main in found  # the other project is still read
    host = found["@host"]
    assert host.warnings.count(".claude/projects: 1 project folder(s) not listable (permission denied); "
                               "their sessions are not refreshed") == 1
    assert not any("jane" in w or "acme" in w for s_ in found.values() for w in s_.warnings)


def test_an_unlistable_project_folder_is_an_error_of_the_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    s = make_claude_home(tmp_path)
    secret_key = "-home-alice-jane-doe-acme-com-payroll"
    (s.root / "projects" / secret_key).mkdir()
    deny_listing(monkeypatch, s.root / "projects" / secret_key)
    host = _discover(tmp_path)["@host"]
    assert host.errors == [".claude/projects: 1 project folder(s) not listable (permission denied); "
                           "their sessions are not refreshed"]
