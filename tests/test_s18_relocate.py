"""restore --relocate loose ends, end to end through the CLI (fx_s11_e2e's kit): a generated home
(tests/fx_s18_relocate.py) synced, restored with --relocate into another root, then the restored
bytes and what each harness would read checked.

- pi: a fork's header.parentSession names the parent file where the restore put it (not the
  archived home);
- OpenCode: the snapshot folder `snapshot/<project>/<sha1(worktree)>/` is renamed to the SHA-1 of
  the relocated worktree (the project row's worktree, as OpenCode computes it); a name restore
  cannot tie to a relocated path is kept and reported;
- Claude Code: a transcript moved by `/cd` below the cwd `ls` shows moves with it; one moved
  outside every OLD keeps its folder, and the report says which --relocate would move it;
- the same relocated restore twice writes the same bytes; nothing lands outside the root.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.fx_s11_e2e import OTHER, Setup, configure
from tests.fx_s18_relocate import build_claude, build_opencode, build_pi, claude_key, pi_dir_name
from archiver.harnesses.opencode import worktree_hash

NEW = f"/home/{OTHER}/src/app"


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    base = tmp_path_factory.mktemp("s18reloc")
    s = Setup(base=base, home=base / "zorbloff")
    configure(s, ("pi", "claude-code", "opencode"))
    s.home.mkdir()
    facts = {"pi": build_pi(s.home), "cc": build_claude(s.home), "oc": build_opencode(s.home)}
    sync = s.json("sync")
    assert sync["sessions"]["failed"] == 0 and sync["sessions"]["total"] == 7, sync
    ls = {x["key"]: x for x in s.read("ls")["sessions"]}
    return {"s": s, "facts": facts, "ls": ls}


def _restore(w: dict[str, Any], to: Path, *args: str, expect: int = 0) -> dict[str, Any]:
    s: Setup = w["s"]
    out = s.json("restore", "--identity", str(s.identity), "--to", str(to), *args, expect=expect)
    return out  # type: ignore[no-any-return]


def _shown_cwd(w: dict[str, Any], key: str) -> str:
    cwd = w["ls"][key]["cwd"]
    assert isinstance(cwd, str) and cwd.startswith("/") and "zorbloff" not in cwd  # the redacted form
    return cwd


def _header(path: Path) -> dict[str, Any]:
    return json.loads(path.read_bytes().split(b"\n", 1)[0])  # type: ignore[no-any-return]


def _tree(root: Path) -> dict[str, object]:
    """Every file's bytes; a database's rows (a merge that changes nothing still bumps its header's
    change counter)."""
    out: dict[str, object] = {}
    for p in sorted(root.rglob("*")):
        if p.is_file() and p.suffix == ".db":
            con = sqlite3.connect(p)
            try:
                out[p.relative_to(root).as_posix()] = list(con.iterdump())
            finally:
                con.close()
        elif p.is_file():
            out[p.relative_to(root).as_posix()] = p.read_bytes()
    return out


# ---- pi ----

def test_pi_fork_names_its_parent_where_the_relocated_restore_put_it(world: dict[str, Any], tmp_path: Path) -> None:
    f = world["facts"]["pi"]
    old = _shown_cwd(world, f"pi:{f['ids']['main']}")
    to = tmp_path / "to"
    out = _restore(world, to, "--all", "--relocate", f"{old}={NEW}")
    assert out["refused"] == out["integrity_errors"] == [] and not [w for w in out["warnings"] if "pi:" in w]
    here = to / ".pi/agent/sessions" / pi_dir_name(NEW)
    parent = here / f["names"]["main"]
    fork = here / f["names"]["fork"]
    lib = _shown_cwd(world, f"pi:{f['ids']['copy']}")  # forkFrom() into another cwd, not relocated
    copy = to / ".pi/agent/sessions" / pi_dir_name(lib) / f["names"]["copy"]
    for child in (fork, copy):
        ref = _header(child)["parentSession"]
        # what pi opens: the restored parent file, whose header is the parent's
        assert ref == str(to.resolve() / parent.relative_to(to)), ref
        assert _header(Path(ref))["id"] == f["ids"]["main"]
    # only the value changed: the rest of the fork's bytes are the relocated archive's
    plain = _restore(world, tmp_path / "plain", f"pi:{f['ids']['fork']}")
    [rel] = plain["files"]
    archived = (tmp_path / "plain" / rel).read_bytes()
    old_ref = _header(tmp_path / "plain" / rel)["parentSession"]
    assert old_ref.endswith(f"/.pi/agent/sessions/{pi_dir_name(old)}/{f['names']['main']}")
    expect = archived.replace(json.dumps(old_ref).encode(), json.dumps(_header(fork)["parentSession"]).encode())
    assert fork.read_bytes() == expect.replace(old.encode(), NEW.encode())


def test_pi_fork_restored_without_its_parent_names_where_the_parent_goes(world: dict[str, Any],
                                                                         tmp_path: Path) -> None:
    f = world["facts"]["pi"]
    old = _shown_cwd(world, f"pi:{f['ids']['main']}")
    to = tmp_path / "to"
    _restore(world, to, f"pi:{f['ids']['fork']}", "--relocate", f"{old}={NEW}")
    fork = to / ".pi/agent/sessions" / pi_dir_name(NEW) / f["names"]["fork"]
    ref = Path(_header(fork)["parentSession"])
    assert ref == to.resolve() / ".pi/agent/sessions" / pi_dir_name(NEW) / f["names"]["main"]
    assert not ref.exists()
    _restore(world, to, f"pi:{f['ids']['main']}", "--relocate", f"{old}={NEW}")
    assert _header(ref)["id"] == f["ids"]["main"]


# ---- Claude Code ----

def test_claude_transcript_moved_below_the_shown_cwd_moves_with_it(world: dict[str, Any], tmp_path: Path) -> None:
    sids = world["facts"]["cc"]["sids"]
    key = f"claude-code:{sids['below']}"
    old = _shown_cwd(world, key)  # its first cwd; its folder is named after the last one (old/sub)
    [art] = [a["path"] for a in world["ls"][key]["artifacts"]]
    assert art.split("/")[2] == claude_key(old + "/sub")
    to = tmp_path / "to"
    out = _restore(world, to, key, "--relocate", f"{old}={NEW}")
    assert out["refused"] == [] and out["warnings"] == []
    moved = to / ".claude/projects" / claude_key(NEW + "/sub") / f"{sids['below']}.jsonl"
    assert out["files"] == [moved.relative_to(to).as_posix()]
    recs = [json.loads(x) for x in moved.read_bytes().splitlines()]
    assert [r.get("cwd") for r in recs] == [NEW, NEW, None, NEW + "/sub", NEW + "/sub"]
    assert recs[2] == {"type": "relocated", "relocatedCwd": NEW + "/sub", "sessionId": sids["below"]}
    # Claude Code resumes from the folder of the cwd it is started in: the last one's
    assert moved.parent.name == claude_key(recs[-1]["cwd"])


def test_claude_transcript_moved_outside_old_keeps_its_folder_and_says_so(world: dict[str, Any],
                                                                          tmp_path: Path) -> None:
    sids = world["facts"]["cc"]["sids"]
    key = f"claude-code:{sids['sibling']}"
    old = _shown_cwd(world, key)
    other = old.rsplit("/", 1)[0] + "/other"
    to = tmp_path / "to"
    out = _restore(world, to, key, "--relocate", f"{old}={NEW}")
    kept = f".claude/projects/{claude_key(other)}/{sids['sibling']}.jsonl"
    assert out["files"] == [kept]
    [warning] = out["warnings"]
    assert warning.startswith(f"{key}: .claude/projects/{claude_key(other)}/ keeps its name")
    assert f"--relocate {other}=NEW" in warning
    # what the warning says to add moves it
    to2 = tmp_path / "to2"
    out = _restore(world, to2, key, "--relocate", f"{old}={NEW}", "--relocate", f"{other}=/home/{OTHER}/src/other")
    assert out["warnings"] == []
    assert out["files"] == [f".claude/projects/{claude_key(f'/home/{OTHER}/src/other')}/{sids['sibling']}.jsonl"]


# ---- OpenCode ----

def test_opencode_snapshot_folder_follows_the_relocated_worktree(world: dict[str, Any], tmp_path: Path) -> None:
    f = world["facts"]["oc"]
    old = _shown_cwd(world, f"opencode:{f['sid']}")
    to = tmp_path / "to"
    out = _restore(world, to, "--all", "--relocate", f"{old}={NEW}")
    assert out["refused"] == [] and not [w for w in out["warnings"] if w.startswith("opencode:")]
    db = to / ".local/share/opencode/opencode.db"
    con = sqlite3.connect(db)
    try:
        [(worktree,)] = con.execute("SELECT worktree FROM project WHERE id = ?", (f["project"],)).fetchall()
        [(directory,)] = con.execute("SELECT directory FROM session_v2 WHERE id = ?", (f["sid"],)).fetchall()
    finally:
        con.close()
    assert worktree == directory == NEW
    snap = to / ".local/share/opencode/snapshot" / f["project"]
    assert [p.name for p in snap.iterdir()] == [worktree_hash(worktree)]
    # the git dir OpenCode opens for that worktree holds the snapshot's blob; its empty refs/
    # folder (archives hold files) is made again by the restore: git wants it to call the
    # folder a repository
    assert (snap / worktree_hash(worktree) / "refs").is_dir()
    env = {"GIT_DIR": str(snap / worktree_hash(worktree)), "HOME": str(tmp_path), "GIT_CONFIG_NOSYSTEM": "1",
           "PATH": os.environ.get("PATH", "")}
    r = subprocess.run(["git", "cat-file", "-p", f["blob"]], env=env, capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout == "def login():\n    return True\n", r.stderr


def test_opencode_snapshot_folder_restore_cannot_tie_to_a_path_is_kept_and_reported(world: dict[str, Any],
                                                                                     tmp_path: Path) -> None:
    f = world["facts"]["oc"]
    old = _shown_cwd(world, f"opencode:{f['sid']}")
    parent = old.rsplit("/", 1)[0]  # OLD above the worktree, and no session to say which path below it
    key = f"opencode:@project-{f['project']}"
    [archived] = {a["path"].split("/")[5] for a in world["ls"][key]["artifacts"]}
    assert archived == worktree_hash(old)
    to = tmp_path / "to"
    out = _restore(world, to, key, "--relocate", f"{parent}=/home/{OTHER}/src")
    assert {p.split("/")[5] for p in out["files"]} == {archived}
    [warning] = out["warnings"]
    assert warning.startswith(f"{key}: .local/share/opencode/snapshot/{f['project']}/{archived}/ keeps its name")
    assert "SHA-1 of the new worktree" in warning
    # with the session, whose directory is the worktree, it moves
    out = _restore(world, tmp_path / "to2", key, f"opencode:{f['sid']}", "--relocate", f"{parent}=/home/{OTHER}/src")
    assert out["warnings"] == []
    assert {p.split("/")[5] for p in out["files"] if "/snapshot/" in p} == {worktree_hash(f"/home/{OTHER}/src/app")}


# ---- twice, and inside the root ----

@pytest.mark.parametrize("new", [NEW, "below"])
def test_relocated_restore_twice_writes_the_same_bytes(world: dict[str, Any], tmp_path: Path, new: str) -> None:
    old = _shown_cwd(world, f"opencode:{world['facts']['oc']['sid']}")
    new = old + "/v2" if new == "below" else new  # NEW below OLD: not relocated twice over
    to = tmp_path / "to"
    first = _restore(world, to, "--all", "--relocate", f"{old}={new}")
    assert first["refused"] == first["integrity_errors"] == []
    tree = _tree(to)
    pi = world["facts"]["pi"]
    fork = to / ".pi/agent/sessions" / pi_dir_name(new) / pi["names"]["fork"]
    assert _header(fork)["cwd"] == new
    again = _restore(world, to, "--all", "--relocate", f"{old}={new}")
    assert again["refused"] == again["integrity_errors"] == [] and again["warnings"] == first["warnings"]
    assert _tree(to) == tree
    assert _header(fork)["cwd"] == new and (new + "/v2/v2") not in fork.read_text()


def test_relocation_targets_stay_inside_the_restore_root(world: dict[str, Any], tmp_path: Path) -> None:
    old = _shown_cwd(world, f"opencode:{world['facts']['oc']['sid']}")
    box = tmp_path / "box"
    to = box / "to"
    to.mkdir(parents=True)
    out = _restore(world, to, "--all", "--relocate", f"{old}=/../../..{NEW}/../app")
    assert out["refused"] == []
    assert [p.name for p in box.iterdir()] == ["to"]
    for rel in out["files"]:
        assert (to / rel).resolve().is_relative_to(to.resolve()) and ".." not in rel.split("/")
    assert (to / ".pi/agent/sessions" / pi_dir_name(NEW)).is_dir()  # normalised: /home/<other>/src/app
    s: Setup = world["s"]
    r = s.cli("restore", "--identity", str(s.identity), "--to", str(tmp_path / "x"), "--all",
              "--relocate", f"{old}=/a/../..", expect=2)
    assert "NEW may not be /" in r.stderr
