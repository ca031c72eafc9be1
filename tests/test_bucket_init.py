"""`archiver bucket init` against moto: creates or fixes the bucket, reports each change,
and a second run changes nothing."""

from __future__ import annotations

from tests.fx_archiver import Env, env  # noqa: F401
from tests.fx_s3 import unique_bucket_name


def _settings(e: Env) -> dict[str, object]:  # noqa: F811
    s3 = e.s3()
    rules = s3.get_bucket_lifecycle_configuration(Bucket=e.bucket)["Rules"]
    return {
        "versioning": s3.get_bucket_versioning(Bucket=e.bucket).get("Status"),
        "encryption": s3.get_bucket_encryption(Bucket=e.bucket)["ServerSideEncryptionConfiguration"]["Rules"][0]
        ["ApplyServerSideEncryptionByDefault"]["SSEAlgorithm"],
        "public": s3.get_public_access_block(Bucket=e.bucket)["PublicAccessBlockConfiguration"],
        "rules": {r["ID"]: r for r in rules},
    }


def test_creates_a_locked_bucket_and_is_idempotent(env: Env) -> None:  # noqa: F811
    env.bucket = unique_bucket_name()
    env.write_config()
    text = env.config.read_text().replace("[state]", 'object_lock_mode = "GOVERNANCE"\nobject_lock_days = 2\n\n[state]')
    env.config.write_text(text)

    first = env.cli_json("bucket", "init", "--object-lock", "--default-retention")
    assert first["created"] is True and first["changed"] is True
    changed = {c["setting"] for c in first["changes"]}
    assert {"bucket", "default_encryption", "public_access_block", "object_lock.default_retention",
            "lifecycle.archiver-objects-tiering", "lifecycle.archiver-abort-incomplete-multipart",
            "lifecycle.archiver-noncurrent-versions"} <= changed

    got = _settings(env)
    assert got["versioning"] == "Enabled" and got["encryption"] == "AES256"
    assert got["public"] == {"BlockPublicAcls": True, "IgnorePublicAcls": True, "BlockPublicPolicy": True,
                             "RestrictPublicBuckets": True}
    rules = got["rules"]
    assert isinstance(rules, dict)
    tier = rules["archiver-objects-tiering"]
    assert tier["Filter"]["Prefix"] == f"{env.prefix}/objects/"
    assert tier["Transitions"][0]["StorageClass"] == "STANDARD_IA" and tier["Transitions"][0]["Days"] == 30
    assert rules["archiver-abort-incomplete-multipart"]["AbortIncompleteMultipartUpload"]["DaysAfterInitiation"] == 7
    assert rules["archiver-noncurrent-versions"]["NoncurrentVersionExpiration"]["NoncurrentDays"] == 30
    lock = env.s3().get_object_lock_configuration(Bucket=env.bucket)["ObjectLockConfiguration"]
    assert lock["ObjectLockEnabled"] == "Enabled"
    retention = lock["Rule"]["DefaultRetention"]
    assert (retention["Mode"], retention["Days"]) == ("GOVERNANCE", 2)

    second = env.cli_json("bucket", "init", "--object-lock", "--default-retention")
    assert second["created"] is False and second["changes"] == [] and second["changed"] is False
    code, out = env.cli("bucket", "init", "--object-lock", "--default-retention")
    assert code == 0 and "nothing changed" in out


def test_fixes_an_existing_bucket_and_keeps_foreign_rules(env: Env) -> None:  # noqa: F811
    s3 = env.s3()
    s3.put_bucket_lifecycle_configuration(Bucket=env.bucket, LifecycleConfiguration={"Rules": [
        {"ID": "keep-me", "Status": "Enabled", "Filter": {"Prefix": "logs/"}, "Expiration": {"Days": 90}},
        {"ID": "archiver-abort-incomplete-multipart", "Status": "Enabled", "Filter": {"Prefix": ""},
         "AbortIncompleteMultipartUpload": {"DaysAfterInitiation": 30}},
    ]})
    s3.put_public_access_block(Bucket=env.bucket, PublicAccessBlockConfiguration={
        "BlockPublicAcls": True, "IgnorePublicAcls": True, "BlockPublicPolicy": False, "RestrictPublicBuckets": True})

    out = env.cli_json("bucket", "init", "--transition-days", "60", "--storage-class", "GLACIER_IR")
    actions = {c["setting"]: c["action"] for c in out["changes"]}
    assert out["created"] is False
    assert actions["versioning"] == "enabled"
    assert actions["public_access_block"] == "all public access blocked"
    assert actions["lifecycle.archiver-abort-incomplete-multipart"] == "updated"
    assert actions["lifecycle.archiver-objects-tiering"] == "set"
    assert "bucket" not in actions and not any(k.startswith("object_lock") for k in actions)

    rules = _settings(env)["rules"]
    assert isinstance(rules, dict)
    assert rules["keep-me"]["Expiration"]["Days"] == 90 and rules["keep-me"]["Filter"]["Prefix"] == "logs/"
    assert rules["archiver-objects-tiering"]["Transitions"][0] == {"Days": 60, "StorageClass": "GLACIER_IR"}
    assert rules["archiver-abort-incomplete-multipart"]["Filter"]["Prefix"] == f"{env.prefix}/"

    again = env.cli_json("bucket", "init", "--transition-days", "60", "--storage-class", "GLACIER_IR")
    assert again["changes"] == []


def test_needs_an_s3_store(env: Env) -> None:  # noqa: F811
    env.config.write_text(env.config.read_text().replace(
        f's3://{env.bucket}/{env.prefix}', f'file://{env.base}/store').replace(f'endpoint_url = "{env.endpoint}"\n', ""))
    code, _ = env.cli("bucket", "init")
    assert code == 2
