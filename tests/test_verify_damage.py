"""verify --read-data finds exactly the damage done to the bucket behind its back:
one object deleted, one byte flipped in another (boto3 directly), and nothing else."""

from __future__ import annotations

from archiver.demo.claude_sample import make_claude_home
from tests.fx_archiver import USER, Env, env  # noqa: F401


def test_verify_reports_exactly_the_deleted_and_the_corrupted_object(env: Env) -> None:  # noqa: F811
    make_claude_home(env.home, USER)
    env.cli_json("sync", "--workers", "1")
    clean = env.cli_json("verify", "--read-data", identity=True)
    assert clean["ok"] is True and clean["errors"] == []
    assert clean["objects"] == clean["objects_read"] >= 4

    objects = sorted(k for k in env.keys_in_bucket() if "/objects/" in k)
    deleted, flipped = objects[0], objects[-1]
    s3 = env.s3()
    s3.delete_object(Bucket=env.bucket, Key=deleted)
    blob = bytearray(env.raw_object(flipped))
    blob[len(blob) - 20] ^= 0x01  # inside the last payload chunk: its tag no longer verifies
    s3.put_object(Bucket=env.bucket, Key=flipped, Body=bytes(blob))

    # without --read-data only the missing object is visible
    code, _ = env.cli("verify", "--json", identity=True)
    shallow = env.cli_json("verify", identity=True, expect=3)
    assert code == 3 and len(shallow["errors"]) == 1
    assert shallow["errors"][0].startswith(f"{deleted.removeprefix(env.prefix + '/')}: missing; named by claude-code:")

    report = env.cli_json("verify", "--read-data", identity=True, expect=3)
    assert report["ok"] is False
    named = sorted(e.split(":", 1)[0] for e in report["errors"])
    assert named == sorted(k.removeprefix(env.prefix + "/") for k in (deleted, flipped))
    by_key = {e.split(":", 1)[0]: e for e in report["errors"]}
    assert ": missing; named by " in by_key[deleted.removeprefix(env.prefix + "/")]
    assert "unreadable" in by_key[flipped.removeprefix(env.prefix + "/")]
    assert report["objects_read"] == report["objects"] - 2
