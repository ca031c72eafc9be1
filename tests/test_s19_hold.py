"""`hold` on a bucket without Object Lock: the store refuses every object, and the command says so
once instead of one line per object and manifest (s19-readme's finding)."""

from __future__ import annotations

from archiver.demo.claude_sample import make_claude_home
from tests.fx_archiver import USER, Env, env  # noqa: F401


def test_hold_without_object_lock_stops_after_two_refusals(env: Env) -> None:  # noqa: F811
    s = make_claude_home(env.home, USER)
    env.cli_json("sync", "--workers", "1")
    held = env.cli_json("hold", f"claude-code:{s.main}", identity=True, expect=1)
    assert held["objects"] == [] and held["manifests"] == [] and held["ok"] is False
    assert len(held["errors"]) == 3, held["errors"]  # two refusals and the stop, not one per object
    assert "stopped after 2 refusals and no hold set" in held["errors"][-1]
    assert "Object Lock" in held["errors"][-1]
