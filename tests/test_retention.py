"""Object Lock retention on uploads, legal holds (hold / release) and the right-to-erasure
path (forget-session), against moto over HTTP."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

from archiver.demo.claude_sample import ClaudeSample, make_claude_home
from tests.fx_archiver import USER, Env, env  # noqa: F401
from tests.fx_s3 import make_bucket, unique_bucket_name


def _locked_bucket(env: Env, retention: bool) -> None:  # noqa: F811
    env.bucket = unique_bucket_name()
    make_bucket(env.endpoint, env.bucket, object_lock=True)
    env.write_config()
    if retention:
        env.config.write_text(env.config.read_text().replace(
            "[state]", 'object_lock_mode = "GOVERNANCE"\nobject_lock_days = 1\n\n[state]'))


def _session(env: Env, key: str) -> dict:  # noqa: F811
    return next(s for s in env.cli_json("ls", identity=True)["sessions"] if s["key"] == key)


def _object_keys(env: Env, session: dict) -> set[str]:  # noqa: F811
    return {f"{env.prefix}/objects/{o[:2]}/{o}" for a in session["artifacts"] for o in a["objects"]}


def _hold(env: Env, key: str) -> str:  # noqa: F811
    return env.s3().head_object(Bucket=env.bucket, Key=key).get("ObjectLockLegalHoldStatus", "OFF")


def _two_states(env: Env) -> ClaudeSample:  # noqa: F811
    s = make_claude_home(env.home, USER)
    env.cli_json("sync", "--workers", "1")
    tip = s.root / "projects" / s.project_key / f"{s.main}.ccr-tip.json"
    tip.write_text(json.dumps({"tip": "changed"}))
    assert env.cli_json("sync", "--workers", "1")["snapshot"]
    return s


def test_hold_and_release_a_session(env: Env) -> None:  # noqa: F811
    _locked_bucket(env, retention=False)
    s = _two_states(env)
    main = f"claude-code:{s.main}"
    held = env.cli_json("hold", main, identity=True)
    assert held["errors"] == [] and held["legal_hold"] == "ON"
    latest = _object_keys(env, _session(env, main))
    mine = {f"{env.prefix}/{k}" for k in held["objects"]}
    # every state's objects: the older manifest stays restorable, and release clears all it set
    assert latest < mine
    manifests = [k for k in env.keys_in_bucket() if "/snapshots/" in k]
    assert sorted(f"{env.prefix}/{k}" for k in held["manifests"]) == sorted(manifests) and len(manifests) == 2
    for k in mine | set(manifests):
        assert _hold(env, k) == "ON", k
    other = _object_keys(env, _session(env, f"claude-code:{s.subagent}")) - mine
    assert other and all(_hold(env, k) == "OFF" for k in other)

    # prune cannot drop a held manifest, so the object only it names stays too
    pr = env.cli_json("prune", "--keep-last", "1", "--grace", "0", identity=True)
    assert pr["manifests"]["removed"] == [] and pr["objects"]["removed"] == 0
    assert any(x.endswith("legal hold") for x in pr["locked"])

    # an unreferenced object under a hold is reported, never deleted
    orphan = f"{env.prefix}/objects/ab/{'ab' * 32}"
    env.s3().put_object(Bucket=env.bucket, Key=orphan, Body=b"x", ObjectLockLegalHoldStatus="ON")
    pr = env.cli_json("prune", "--keep-last", "1", "--grace", "0", identity=True)
    assert f"{orphan.removeprefix(env.prefix + '/')}: legal hold" in pr["locked"]
    assert orphan in env.keys_in_bucket()

    released = env.cli_json("release", main, identity=True)
    assert released["legal_hold"] == "OFF" and released["errors"] == []
    assert all(_hold(env, k) == "OFF" for k in mine | set(manifests))
    pr = env.cli_json("prune", "--keep-last", "1", "--grace", "0", identity=True)
    assert len(pr["manifests"]["removed"]) == 1 and pr["objects"]["removed"] == 1  # the old sidecar state


def test_unknown_session_is_a_usage_error(env: Env) -> None:  # noqa: F811
    for cmd in ("hold", "release", "forget-session"):
        code, _ = env.cli(cmd, "claude-code:nope", identity=True)
        assert code == 2, cmd


def test_a_mistyped_key_leaves_no_tombstone(env: Env) -> None:  # noqa: F811
    """A tombstone for a key no manifest names would keep a later session of that key out of the
    archive for good: forget-session refuses before writing one."""
    make_claude_home(env.home, USER)
    env.cli_json("sync", "--workers", "1")
    code, _ = env.cli("forget-session", "claude-code:00000000-0000-4000-8000-000000000000", "--grace", "0",
                      identity=True)
    assert code == 2
    assert not [k for k in env.keys_in_bucket() if "/tombstones/" in k]


def test_forget_session_erases_it(env: Env) -> None:  # noqa: F811
    env.s3().put_bucket_versioning(Bucket=env.bucket, VersioningConfiguration={"Status": "Enabled"})
    s = _two_states(env)
    main = f"claude-code:{s.main}"
    before = {x["key"]: x for x in env.cli_json("ls", identity=True)["sessions"]}
    others = set().union(*(_object_keys(env, x) for k, x in before.items() if k != main))
    mine = _object_keys(env, before[main]) - others
    old_manifests = sorted(k for k in env.keys_in_bucket() if "/snapshots/" in k)

    out = env.cli_json("forget-session", main, "--grace", "0", identity=True)
    assert out["complete"] is True and out["errors"] == []
    assert sorted(f"{env.prefix}/{m['old']}" for m in out["manifests"]["rewritten"]) == old_manifests
    # the rewritten manifests keep their time stamps, so ordering is unchanged
    for m in out["manifests"]["rewritten"]:
        assert m["new"].split("-")[0] == m["old"].split("-")[0] and m["new"] != m["old"]
    # the old state's sidecar object is erased too, not only the latest state's
    assert {f"{env.prefix}/{k}" for k in out["objects"]["removed"]} >= mine and len(mine) >= 5

    after = {x["key"] for x in env.cli_json("ls", identity=True)["sessions"]}
    assert after == set(before) - {main}
    keys = set(env.keys_in_bucket())
    assert not (mine & keys) and not (set(old_manifests) & keys)
    # erasure removed every version, not just the current one (the bucket is versioned)
    versions = env.s3().list_object_versions(Bucket=env.bucket, Prefix=env.prefix)
    held = {v["Key"] for v in versions.get("Versions", []) + versions.get("DeleteMarkers", [])}
    assert not (held & (mine | set(old_manifests)))
    # the rest of the archive is intact
    assert env.cli_json("verify", "--read-data", identity=True)["ok"] is True
    r = env.cli_json("restore", "--all", "--to", str(env.base / "r"), identity=True)
    assert r["integrity_errors"] == [] and main not in r["sessions"]


def test_retention_on_uploads_and_what_forget_session_cannot_erase(env: Env) -> None:  # noqa: F811
    _locked_bucket(env, retention=True)
    s = make_claude_home(env.home, USER)
    env.cli_json("sync", "--workers", "1")
    s3 = env.s3()
    keys = [k for k in env.keys_in_bucket() if "/objects/" in k or "/snapshots/" in k]
    assert keys
    soon = datetime.now(timezone.utc) + timedelta(days=1)
    for k in keys:
        head = s3.head_object(Bucket=env.bucket, Key=k)
        assert head["ObjectLockMode"] == "GOVERNANCE", k
        assert abs((head["ObjectLockRetainUntilDate"] - soon).total_seconds()) < 600

    main = f"claude-code:{s.main}"
    mine = _object_keys(env, _session(env, main))
    out = env.cli_json("forget-session", main, "--grace", "0", identity=True, expect=1)
    assert out["complete"] is False
    assert len(out["manifests"]["locked"]) == 1 and "GOVERNANCE retention until" in out["manifests"]["locked"][0]
    assert out["manifests"]["rewritten"] == [] and out["objects"]["removed"] == []
    assert mine <= set(env.keys_in_bucket())
    # its tombstone hides it from readers although the locked manifest still names it; forget-session
    # still finds it, to finish the erasure once the retention ends
    assert main not in {x["key"] for x in env.cli_json("ls", identity=True)["sessions"]}
    assert env.cli_json("forget-session", main, "--dry-run", identity=True, expect=1)["manifests"]["locked"]

    # rekey cannot replace a locked manifest: it writes a new version of it in place
    manifests = [k for k in env.keys_in_bucket() if "/snapshots/" in k]
    rk = env.cli_json("rekey", identity=True)
    assert rk["manifests"]["rewritten"] == [] and len(rk["manifests"]["rewritten_in_place_locked"]) == 1
    assert [k for k in env.keys_in_bucket() if "/snapshots/" in k] == manifests
    versions = s3.list_object_versions(Bucket=env.bucket, Prefix=manifests[0])["Versions"]
    assert len(versions) == 2  # the old version stays, locked, until its retention ends
    assert len(env.cli_json("ls", identity=True)["sessions"]) == 5  # the forgotten one stays hidden
