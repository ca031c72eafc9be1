"""Several recipients, `rekey` (manifests, then --all objects), and a passphrase-protected
recovery identity."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from archiver.cli import main
from archiver.demo.claude_sample import make_claude_home
from archiver.rekey import IdentityError, load_identity_file
from tests.fx_archiver import USER, Env, env  # noqa: F401


def _add_recipient(env: Env, recipient: str) -> None:  # noqa: F811
    text = env.config.read_text()
    if "recipients = [" in text:
        text = text.replace("recipients = [", f'recipients = ["{recipient}", ')
    else:
        text = text.replace("[encryption]\n", f'[encryption]\nrecipients = ["{recipient}"]\n')
    env.config.write_text(text)


def _as(env: Env, identity: Path, *args: str, expect: int | None = 0) -> dict:  # noqa: F811
    return env.cli_json(*args, "--identity", str(identity), expect=expect)


def _manifest_keys(env: Env) -> set[str]:  # noqa: F811
    return {k for k in env.keys_in_bucket() if "/snapshots/" in k}


def test_rekey_manifests_then_objects(env: Env) -> None:  # noqa: F811
    make_claude_home(env.home, USER)
    env.cli_json("sync", "--workers", "1")
    assert main(["keygen", "--out", str(env.base / "compliance")]) == 0
    compliance = env.base / "compliance" / "identity.txt"
    _add_recipient(env, (env.base / "compliance" / "recipient.txt").read_text().strip())
    assert _as(env, compliance, "ls", expect=3)["sessions"] == []  # nothing readable for the new key yet

    before = _manifest_keys(env)
    out = env.cli_json("rekey", identity=True)
    assert len(out["manifests"]["rewritten"]) == len(before) == 1 and out["errors"] == []
    assert out["objects"]["rewritten"] == 0 and out["objects"]["not_rewritten"] > 0
    after = _manifest_keys(env)
    assert not (after & before) and len(after) == 1
    # same time stamp, new name
    assert next(iter(after)).rsplit("/", 1)[1].split("-")[0] == next(iter(before)).rsplit("/", 1)[1].split("-")[0]

    # the new key reads the manifests (ls) but not the bulk objects yet
    listed = _as(env, compliance, "ls")["sessions"]
    assert len(listed) == 6
    assert _as(env, compliance, "restore", "--all", "--to", str(env.base / "r1"), expect=3)["integrity_errors"]
    # the old key still reads everything
    assert env.cli_json("restore", "--all", "--to", str(env.base / "r0"), identity=True)["integrity_errors"] == []

    full = env.cli_json("rekey", "--all", identity=True)
    n_objects = len({o for s in listed for a in s["artifacts"] for o in a["objects"]})
    assert full["objects"]["rewritten"] == n_objects and full["errors"] == []
    assert _as(env, compliance, "restore", "--all", "--to", str(env.base / "r2"))["integrity_errors"] == []
    assert _as(env, compliance, "verify", "--read-data")["ok"] is True

    # rotation: drop the old recipient, rekey everything with the new identity; the old key is out
    text = env.config.read_text().replace(f'recipients_file = "{env.keys / "recipient.txt"}"\n', "")
    env.config.write_text(text)
    assert _as(env, compliance, "rekey", "--all")["errors"] == []
    assert env.cli_json("ls", identity=True, expect=3)["sessions"] == []
    assert _as(env, compliance, "verify", "--read-data")["ok"] is True


def test_recovery_identity_with_a_passphrase(env: Env, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    s = make_claude_home(env.home, USER)
    env.cli_json("sync", "--workers", "1")
    pp = env.base / "passphrase.txt"
    pp.write_text("correct horse battery staple\n")
    rec = env.base / "recovery.age"
    # a low scrypt work factor keeps the test fast; the default is age's 18
    made = env.cli_json("recovery-key", "--out", str(rec), "--passphrase-file", str(pp), "--work-factor", "12")
    assert made["recipient"].startswith("age1")
    assert rec.read_bytes().startswith(b"age-encryption.org/v1\n-> scrypt ") and b" 12\n" in rec.read_bytes()[:100]
    assert stat.S_IMODE(rec.stat().st_mode) == 0o600
    assert b"AGE-SECRET-KEY" not in rec.read_bytes()
    code, _ = env.cli("recovery-key", "--out", str(rec), "--passphrase-file", str(pp))
    assert code == 2  # refuses to overwrite

    _add_recipient(env, made["recipient"])
    assert env.cli_json("rekey", "--all", identity=True)["errors"] == []

    key = f"claude-code:{s.main}"
    out = env.cli_json("export", key, "--format", "md", "--identity", str(rec), "--identity-passphrase-file", str(pp))
    assert out["integrity_errors"] == [] and "Deploy fixes for" in out["document"]

    wrong = env.base / "wrong.txt"
    wrong.write_text("not the passphrase\n")
    code, _ = env.cli("export", key, "--identity", str(rec), "--identity-passphrase-file", str(wrong))
    assert code == 2
    code, _ = env.cli("export", key, "--identity", str(rec))
    assert code == 2  # no passphrase given
    monkeypatch.setenv("ARCHIVER_PASSPHRASE", "correct horse battery staple")
    code, _ = env.cli("prune", "--keep-last", "1", "--dry-run", "--identity", str(rec))
    assert code == 0

    with pytest.raises(IdentityError, match="wrong passphrase"):
        load_identity_file(rec, b"nope")
    ids = load_identity_file(rec, b"correct horse battery staple")
    assert str(ids[0].recipient) == made["recipient"]
    # a plain identity file still loads, passphrase or not
    assert load_identity_file(env.identity, b"ignored")
