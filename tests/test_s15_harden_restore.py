"""Restore into a target another local process can write to while restore runs: a directory
of the target swapped for a symlink after restore checked the path (and before it writes)
must not send a byte outside the target. Archives crafted with the project's own writer
(tests/fx_crafter.py) with names the earlier tests do not try: Windows drive letters and
device paths, Unicode look-alikes of `.` and `/`, very deep paths."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from archiver.restore import Restorer
from tests.fx_archiver import Env, env  # noqa: F401
from tests.test_malicious_archive import Crafter, _restore, _tree


def _outside(e: Env) -> Path:
    d = e.base / "elsewhere"
    d.mkdir()
    (d / "keep.txt").write_bytes(b"precious\n")
    return d


@pytest.mark.parametrize("swapped", [".claude", ".claude/projects", ".claude/projects/k"])
def test_a_directory_swapped_for_a_symlink_after_the_check_is_not_followed(
        env: Env, monkeypatch: pytest.MonkeyPatch, swapped: str) -> None:  # noqa: F811
    c = Crafter(env)
    data = b'{"type":"user","n":1}\n'
    c.manifest({"s": [c.artifact(".claude/projects/k/s.jsonl", data),
                      c.artifact(".claude/projects/k/sub/t.jsonl", data)]})
    outside = _outside(env)
    target = env.base / "target"
    (target / ".claude" / "projects" / "k").mkdir(parents=True)
    real_fetch = Restorer._fetch
    swaps = {"n": 0}

    def fetch_then_swap(self: Restorer, art: Any, dst: Path) -> None:
        real_fetch(self, art, dst)  # safe_target has checked the path by now; the write is next
        victim = target / swapped
        if not victim.is_symlink():
            shutil.rmtree(victim)
            os.symlink(outside, victim)
            swaps["n"] += 1

    monkeypatch.setattr(Restorer, "_fetch", fetch_then_swap)
    before = _tree(env.base, target)
    doc = _restore(env, target)
    assert swaps["n"] == 1
    assert _tree(env.base, target) == before  # nothing outside the target, not even a temp file
    assert sorted(p.name for p in outside.iterdir()) == ["keep.txt"]
    refused = "\n".join(doc["refused"])
    assert "s.jsonl" in refused and "not a plain directory" in refused, refused
    assert doc["files"] == []


def test_odd_names_stay_inside_the_target_or_are_refused(env: Env) -> None:  # noqa: F811
    c = Crafter(env)
    deep = ".claude/projects/" + "/".join(["d" * 200] * 24) + "/deep.jsonl"  # > PATH_MAX in all
    names = {
        "C:/Users/alice/.claude/x.jsonl": "refused",  # a drive letter: a relative name on POSIX, outside .claude/
        "C:\\Windows\\x.jsonl": "refused",
        "\\\\?\\C:\\x.jsonl": "refused",
        ".claude/projects/C:/x.jsonl": "inside",  # a folder named C: (legal on POSIX)
        ".claude/projects/k/\uff0e\uff0e/\uff0e\uff0e/fw.jsonl": "inside",  # fullwidth full stops: names, not ..
        ".claude/projects/k/\u2025/\u2215up.jsonl": "inside",  # two-dot leader, division slash
        ".claude/projects/k/a\u2044b.jsonl": "inside",  # fraction slash
        ".claude/projects/k/\u202e.jsonl": "inside",  # right-to-left override
        deep: "refused",
    }
    c.manifest({"s": [c.artifact(n, b"odd\n") for n in names]})
    target = env.base / "target"
    before = _tree(env.base, target)
    doc = _restore(env, target)
    assert _tree(env.base, target) == before
    written = {str(p.relative_to(target)) for p in target.rglob("*") if p.is_file()}
    assert written == {n for n, where in names.items() if where == "inside"}
    refused = "\n".join(doc["refused"])
    for n, where in names.items():
        assert (repr(n) in refused) == (where == "refused"), n
