"""Right to erasure holds against collectors: a forgotten session that is still on a
machine is not archived again, and prune-deleted objects are not trusted from cache."""

from __future__ import annotations

from archiver.demo.claude_sample import make_claude_home
from tests.fx_archiver import USER, Env, env  # noqa: F401


def test_forgotten_session_is_not_rearchived(env: Env) -> None:  # noqa: F811
    s = make_claude_home(env.home, USER)
    env.cli_json("sync", "--workers", "1")
    key = f"claude-code:{s.fork}"
    out = env.cli_json("forget-session", key, "--grace", "0", identity=True, expect=None)
    assert out["manifests"]["rewritten"], out
    assert any(k.startswith(f"{env.prefix}/tombstones/") for k in env.keys_in_bucket())
    assert key not in {x["key"] for x in env.cli_json("ls", identity=True)["sessions"]}
    # the files are still on the machine: the next sync skips them and drops them from its state
    (s.root / "projects" / s.project_key / f"{s.fork}.jsonl").open("a").write('{"type":"user"}\n')
    again = env.cli_json("sync", "--workers", "1")
    assert again["forgotten"] == 1
    assert key not in {x["key"] for x in env.cli_json("ls", identity=True)["sessions"]}
    # an unrelated change later does not carry it back from the local state either
    (s.root / "projects" / s.project_key / f"{s.main}.jsonl").open("a").write('{"type":"user"}\n')
    env.cli_json("sync", "--workers", "1")
    assert key not in {x["key"] for x in env.cli_json("ls", identity=True)["sessions"]}
    code, out_v = env.cli("verify", "--read-data", "--json", identity=True)
    assert code == 0, out_v


def test_uncommitted_objects_are_rechecked(env: Env) -> None:  # noqa: F811
    from archiver.state import State

    make_claude_home(env.home, USER)
    env.cli_json("sync", "--workers", "1")
    state = State(env.base / "state" / "state.db")
    state.add_object("ab" * 32)  # uploaded by a run that died before its manifest
    assert state.has_object("ab" * 32)
    assert state.forget_unreferenced_objects() == 1
    assert not state.has_object("ab" * 32)
    assert state.db.execute("SELECT count(*) FROM objects").fetchone()[0] > 0  # referenced ones stay


def test_a_forgotten_session_left_as_it_was_is_dropped_once_the_archive_is_opened(env: Env) -> None:  # noqa: F811
    s = make_claude_home(env.home, USER)
    first = env.cli_json("sync", "--workers", "1")
    key = f"claude-code:{s.fork}"
    env.cli_json("forget-session", key, "--grace", "0", identity=True, expect=None)
    # nothing changed: the run opens no archive, so it neither sees the tombstone nor writes
    quiet = env.cli_json("sync", "--workers", "1")
    assert quiet["snapshot"] is None and quiet["forgotten"] == 0
    # another session grows (the forgotten one is untouched, so it would be taken as stored)
    (s.root / "projects" / s.project_key / f"{s.main}.jsonl").open("a").write('{"type":"user"}\n')
    again = env.cli_json("sync", "--workers", "1")
    assert again["forgotten"] == 1
    assert again["sessions"]["total"] == first["sessions"]["total"] - 1
    assert again["sessions"]["unchanged"] == again["sessions"]["total"] - again["sessions"]["uploaded"]
    assert key not in {x["key"] for x in env.cli_json("ls", identity=True)["sessions"]}
