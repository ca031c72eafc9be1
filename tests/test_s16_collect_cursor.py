"""Cursor agent: a global prompt_history.json in each of two roots (seed cursor-agent.json,
records[prompt_history.json].notes: "A global ~/.cursor/prompt_history.json from earlier builds
may also exist"; layout: the config root moves to $XDG_CONFIG_HOME/cursor, and ~/.cursor, where
earlier builds wrote, is read too). Both are archived, at distinct paths, and restore puts each
back where it came from."""

from __future__ import annotations

import json
from pathlib import Path

from archiver.harnesses.base import HarnessContext
from archiver.harnesses.cursor_agent import HOST_HISTORY_XDG, CursorAgent
from tests.fx_s11_e2e import decrypt_all, latest_manifest, sessions_by_key, setup

H = "cursor-agent"


def _two_roots(home: Path, xdg: Path) -> tuple[bytes, bytes]:
    """~/.cursor and $XDG_CONFIG_HOME/cursor, each with a global history (a JSON array of
    strings, newest first) and nothing else."""
    legacy = json.dumps(["legacy second", "legacy first"]).encode()
    moved = json.dumps(["moved second", "moved first"]).encode()
    (home / ".cursor").mkdir(parents=True)
    (home / ".cursor" / "prompt_history.json").write_bytes(legacy)
    (xdg / "cursor").mkdir(parents=True)
    (xdg / "cursor" / "prompt_history.json").write_bytes(moved)
    return legacy, moved


def test_discovery_lists_each_roots_history_at_its_own_path(tmp_path: Path) -> None:
    home, xdg = tmp_path / "home", tmp_path / "xdg"
    _two_roots(home, xdg)
    found = {s.key: s for s in CursorAgent(HarnessContext(home=home, env={"XDG_CONFIG_HOME": str(xdg)})).discover()}
    host = found[f"{H}:@host"]
    assert host.kind == "host"
    assert sorted((a.source, a.path) for a in host.sources) == sorted([
        (home / ".cursor" / "prompt_history.json", ".cursor/prompt_history.json"),
        (xdg / "cursor" / "prompt_history.json", HOST_HISTORY_XDG),
    ])


def test_one_history_keeps_the_default_layout_path(tmp_path: Path) -> None:
    home, xdg = tmp_path / "home", tmp_path / "xdg"
    _two_roots(home, xdg)
    (home / ".cursor" / "prompt_history.json").unlink()
    found = {s.key: s for s in CursorAgent(HarnessContext(home=home, env={"XDG_CONFIG_HOME": str(xdg)})).discover()}
    assert [(a.source, a.path) for a in found[f"{H}:@host"].sources] == [
        (xdg / "cursor" / "prompt_history.json", ".cursor/prompt_history.json")]


def test_sync_archives_both_and_restore_puts_each_back(tmp_path: Path) -> None:
    s = setup(tmp_path, H)
    xdg = tmp_path / "xdg"
    s.env["XDG_CONFIG_HOME"] = str(xdg)
    legacy, moved = _two_roots(s.home, xdg)
    r = s.cli("sync")
    assert r.returncode == 0, r.stderr[-2000:]
    plain = decrypt_all(s)
    host = sessions_by_key(latest_manifest(plain))[f"{H}:@host"]
    arts = {a["path"]: a for a in host["artifacts"]}
    assert set(arts) == {".cursor/prompt_history.json", HOST_HISTORY_XDG}
    assert arts[".cursor/prompt_history.json"]["objects"] != arts[HOST_HISTORY_XDG]["objects"]

    to = tmp_path / "restored"
    got = s.restore(to, f"{H}:@host")
    assert got["refused"] == [] and got["integrity_errors"] == [], got
    assert (to / ".cursor" / "prompt_history.json").read_bytes() == legacy
    assert (to / ".config" / "cursor" / "prompt_history.json").read_bytes() == moved
    assert not (to / HOST_HISTORY_XDG).exists()

    # a second restore finds the same bytes there: nothing refused, nothing changed
    again = s.restore(to, f"{H}:@host")
    assert again["refused"] == [], again
    # other bytes at the XDG place are not replaced without --overwrite
    (to / ".config" / "cursor" / "prompt_history.json").write_bytes(b'["edited since"]')
    r = s.cli("restore", "--identity", str(s.identity), "--json", "--to", str(to), f"{H}:@host")
    assert r.returncode != 0
    assert any("prompt_history.json" in x for x in json.loads(r.stdout)["refused"]), r.stdout
    assert (to / ".config" / "cursor" / "prompt_history.json").read_bytes() == b'["edited since"]'
