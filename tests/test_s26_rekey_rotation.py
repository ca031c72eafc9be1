"""README's key rotation: the old recipient left out of the config, a plain `rekey` re-encrypts
the manifests only, so `rekey --all` afterwards needs an identity file holding both keys."""

from __future__ import annotations

from pathlib import Path

from archiver.cli import main
from archiver.demo.claude_sample import make_claude_home
from tests.fx_archiver import USER, Env, env  # noqa: F401


def _as(env: Env, identity: Path, *args: str, expect: int | None = 0) -> dict:  # noqa: F811
    return env.cli_json(*args, "--identity", str(identity), expect=expect)


def test_rotation_after_a_plain_rekey_needs_both_keys(env: Env) -> None:  # noqa: F811
    make_claude_home(env.home, USER)
    env.cli_json("sync", "--workers", "1")
    old = env.keys / "identity.txt"
    assert main(["keygen", "--out", str(env.base / "new")]) == 0
    new = env.base / "new" / "identity.txt"
    # the new recipient replaces the old one in the config
    text = env.config.read_text().replace(f'recipients_file = "{env.keys / "recipient.txt"}"\n',
                                          f'recipients_file = "{env.base / "new" / "recipient.txt"}"\n')
    assert text != env.config.read_text()
    env.config.write_text(text)

    out = _as(env, old, "rekey")
    assert out["errors"] == [] and out["objects"]["rewritten"] == 0 and out["objects"]["not_rewritten"] > 0
    # manifests now for the new key only, objects for the old only: neither key alone restores
    assert _as(env, old, "ls", expect=3)["sessions"] == []
    assert _as(env, new, "restore", "--all", "--to", str(env.base / "r1"), expect=3)["integrity_errors"]
    # and neither alone finishes the rotation
    assert _as(env, old, "rekey", "--all", expect=None)["objects"]["rewritten"] == 0
    assert _as(env, new, "rekey", "--all", expect=None)["objects"]["rewritten"] == 0

    both = env.base / "both.txt"
    both.write_bytes(old.read_bytes() + new.read_bytes())
    both.chmod(0o600)
    full = _as(env, both, "rekey", "--all")
    assert full["errors"] == [] and full["objects"]["rewritten"] > 0
    # the new key alone reads everything; the old one reads nothing
    assert _as(env, new, "restore", "--all", "--to", str(env.base / "r2"))["integrity_errors"] == []
    assert _as(env, new, "verify", "--read-data")["ok"] is True
    assert _as(env, old, "ls", expect=3)["sessions"] == []
