"""`bucket init`: create or check the S3 bucket an archive lives in.

Brings the bucket to: versioning on; Object Lock on (when asked; with the configured
mode/days as the bucket's default retention); default encryption (SSE-S3, or SSE-KMS with
the configured key); public access blocked; lifecycle rules for the archive prefix
(objects/ move to a cheaper storage class after N days, incomplete multipart uploads are
aborted after 7 days, noncurrent versions expire after M days). Rules with other ids are
left alone. Every step reads first and writes only what differs, so a second run changes
nothing. Returns what changed.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from botocore.exceptions import ClientError

log = logging.getLogger(__name__)

RULE_TIERING = "archiver-objects-tiering"
RULE_MULTIPART = "archiver-abort-incomplete-multipart"
RULE_NONCURRENT = "archiver-noncurrent-versions"


class BucketError(Exception):
    """A bucket setting could not be read or written; the message names it."""


@dataclass(frozen=True)
class BucketPlan:
    bucket: str
    prefix: str = ""  # the archive prefix, with trailing "/" or ""
    region: str | None = None
    object_lock: bool = False
    lock_mode: str | None = None  # default retention (with lock_days)
    lock_days: int | None = None
    sse: str = "AES256"
    kms_key_id: str | None = None
    transition_days: int | None = 30
    transition_class: str = "STANDARD_IA"
    abort_multipart_days: int = 7
    noncurrent_days: int | None = 30


@dataclass
class BucketResult:
    bucket: str
    created: bool = False
    changes: list[dict[str, str]] = field(default_factory=list)
    state: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    def change(self, setting: str, action: str) -> None:
        self.changes.append({"setting": setting, "action": action})

    def to_json(self) -> dict[str, object]:
        return {"bucket": self.bucket, "created": self.created, "changed": bool(self.changes),
                "changes": self.changes, "state": self.state, "warnings": self.warnings}


def _code(e: ClientError) -> str:
    return str((e.response.get("Error") or {}).get("Code") or "")


def init_bucket(client: Any, plan: BucketPlan) -> BucketResult:
    r = BucketResult(plan.bucket)
    try:
        _ensure_exists(client, plan, r)
        _ensure_versioning(client, plan, r)
        if plan.object_lock:
            _ensure_object_lock(client, plan, r)
        else:
            r.state["object_lock"] = _lock_enabled(client, plan.bucket)
        _ensure_encryption(client, plan, r)
        _ensure_public_access_block(client, plan, r)
        _ensure_lifecycle(client, plan, r)
    except ClientError as e:
        raise BucketError(f"bucket {plan.bucket!r}: {e.operation_name}: {_code(e) or 'error'}: "
                          f"{(e.response.get('Error') or {}).get('Message', '')}") from None
    return r


def _ensure_exists(client: Any, plan: BucketPlan, r: BucketResult) -> None:
    try:
        client.head_bucket(Bucket=plan.bucket)
        return
    except ClientError as e:
        if _code(e) not in ("404", "NoSuchBucket", "NotFound"):
            raise
    args: dict[str, Any] = {"Bucket": plan.bucket}
    if plan.region and plan.region != "us-east-1":
        args["CreateBucketConfiguration"] = {"LocationConstraint": plan.region}
    if plan.object_lock:
        args["ObjectLockEnabledForBucket"] = True
    client.create_bucket(**args)
    r.created = True
    r.change("bucket", "created" + (" with Object Lock" if plan.object_lock else ""))


def _ensure_versioning(client: Any, plan: BucketPlan, r: BucketResult) -> None:
    status = client.get_bucket_versioning(Bucket=plan.bucket).get("Status")
    if status != "Enabled":
        client.put_bucket_versioning(Bucket=plan.bucket, VersioningConfiguration={"Status": "Enabled"})
        r.change("versioning", "enabled")
    r.state["versioning"] = "Enabled"


def _lock_config(client: Any, bucket: str) -> dict[str, Any] | None:
    try:
        return client.get_object_lock_configuration(Bucket=bucket).get("ObjectLockConfiguration") or {}
    except ClientError as e:
        if _code(e) in ("ObjectLockConfigurationNotFoundError", "ObjectLockConfigurationNotFound", "404"):
            return None
        raise


def _lock_enabled(client: Any, bucket: str) -> bool:
    cfg = _lock_config(client, bucket)
    return bool(cfg and cfg.get("ObjectLockEnabled") == "Enabled")


def _ensure_object_lock(client: Any, plan: BucketPlan, r: BucketResult) -> None:
    cfg = _lock_config(client, plan.bucket) or {}
    want: dict[str, Any] = {"ObjectLockEnabled": "Enabled"}
    if plan.lock_mode and plan.lock_days:
        want["Rule"] = {"DefaultRetention": {"Mode": plan.lock_mode, "Days": plan.lock_days}}
    have_rule = (cfg.get("Rule") or {}).get("DefaultRetention") or {}
    want_rule = (want.get("Rule") or {}).get("DefaultRetention") or {}
    same_rule = not want_rule or (have_rule.get("Mode") == want_rule.get("Mode") and have_rule.get("Days") == want_rule.get("Days"))
    if cfg.get("ObjectLockEnabled") != "Enabled" or not same_rule:
        if not want_rule and have_rule:
            want["Rule"] = cfg["Rule"]  # keep a default retention someone else set
        client.put_object_lock_configuration(Bucket=plan.bucket, ObjectLockConfiguration=want)
        if cfg.get("ObjectLockEnabled") != "Enabled":
            r.change("object_lock", "enabled")
        if not same_rule:
            r.change("object_lock.default_retention", f"{plan.lock_mode} {plan.lock_days} days")
    r.state["object_lock"] = True
    if want_rule or have_rule:
        rule = want_rule or have_rule
        r.state["default_retention"] = f"{rule.get('Mode')} {rule.get('Days') or rule.get('Years')} " + ("days" if rule.get("Days") else "years")


def _ensure_encryption(client: Any, plan: BucketPlan, r: BucketResult) -> None:
    try:
        rules = client.get_bucket_encryption(Bucket=plan.bucket)["ServerSideEncryptionConfiguration"]["Rules"]
    except ClientError as e:
        if _code(e) not in ("ServerSideEncryptionConfigurationNotFoundError", "404"):
            raise
        rules = []
    want: dict[str, Any] = {"SSEAlgorithm": plan.sse}
    if plan.sse == "aws:kms" and plan.kms_key_id:
        want["KMSMasterKeyID"] = plan.kms_key_id
    have = (rules[0].get("ApplyServerSideEncryptionByDefault") if rules else None) or {}
    if have.get("SSEAlgorithm") != want["SSEAlgorithm"] or have.get("KMSMasterKeyID") != want.get("KMSMasterKeyID"):
        rule: dict[str, Any] = {"ApplyServerSideEncryptionByDefault": want}
        if plan.sse == "aws:kms":
            rule["BucketKeyEnabled"] = True
        client.put_bucket_encryption(Bucket=plan.bucket, ServerSideEncryptionConfiguration={"Rules": [rule]})
        r.change("default_encryption", plan.sse + (f" ({plan.kms_key_id})" if plan.kms_key_id else ""))
    r.state["default_encryption"] = plan.sse


_BLOCK_ALL = {"BlockPublicAcls": True, "IgnorePublicAcls": True, "BlockPublicPolicy": True, "RestrictPublicBuckets": True}


def _ensure_public_access_block(client: Any, plan: BucketPlan, r: BucketResult) -> None:
    try:
        have = client.get_public_access_block(Bucket=plan.bucket)["PublicAccessBlockConfiguration"]
    except ClientError as e:
        if _code(e) not in ("NoSuchPublicAccessBlockConfiguration", "404"):
            raise
        have = {}
    if any(have.get(k) is not True for k in _BLOCK_ALL):
        client.put_public_access_block(Bucket=plan.bucket, PublicAccessBlockConfiguration=dict(_BLOCK_ALL))
        r.change("public_access_block", "all public access blocked")
    r.state["public_access_block"] = True


def wanted_rules(plan: BucketPlan) -> list[dict[str, Any]]:
    rules: list[dict[str, Any]] = []
    if plan.transition_days:
        rules.append({"ID": RULE_TIERING, "Status": "Enabled", "Filter": {"Prefix": plan.prefix + "objects/"},
                      "Transitions": [{"Days": plan.transition_days, "StorageClass": plan.transition_class}]})
    rules.append({"ID": RULE_MULTIPART, "Status": "Enabled", "Filter": {"Prefix": plan.prefix},
                  "AbortIncompleteMultipartUpload": {"DaysAfterInitiation": plan.abort_multipart_days}})
    if plan.noncurrent_days:
        rules.append({"ID": RULE_NONCURRENT, "Status": "Enabled", "Filter": {"Prefix": plan.prefix},
                      "NoncurrentVersionExpiration": {"NoncurrentDays": plan.noncurrent_days}})
    return rules


def _norm(rule: dict[str, Any]) -> dict[str, Any]:
    """The parts of a lifecycle rule we set, in a comparable form (S3 adds defaults)."""
    f = rule.get("Filter") or {}
    prefix = f.get("Prefix", (f.get("And") or {}).get("Prefix", rule.get("Prefix", "")))
    return {
        "ID": rule.get("ID"), "Status": rule.get("Status"), "Prefix": prefix or "",
        "Transitions": sorted((int(t.get("Days") or 0), t.get("StorageClass")) for t in rule.get("Transitions") or []),
        "Abort": (rule.get("AbortIncompleteMultipartUpload") or {}).get("DaysAfterInitiation"),
        "Noncurrent": (rule.get("NoncurrentVersionExpiration") or {}).get("NoncurrentDays"),
    }


def _ensure_lifecycle(client: Any, plan: BucketPlan, r: BucketResult) -> None:
    try:
        have = client.get_bucket_lifecycle_configuration(Bucket=plan.bucket).get("Rules") or []
    except ClientError as e:
        if _code(e) not in ("NoSuchLifecycleConfiguration", "404"):
            raise
        have = []
    want = wanted_rules(plan)
    ours = {RULE_TIERING, RULE_MULTIPART, RULE_NONCURRENT}
    by_id = {x.get("ID"): x for x in have}
    differing = [w["ID"] for w in want if w["ID"] not in by_id or _norm(by_id[w["ID"]]) != _norm(w)]
    stale = [i for i in by_id if i in ours and i not in {w["ID"] for w in want}]
    if differing or stale:
        others = [_clean(x) for x in have if x.get("ID") not in ours]
        client.put_bucket_lifecycle_configuration(Bucket=plan.bucket, LifecycleConfiguration={"Rules": others + want})
        for i in differing:
            r.change(f"lifecycle.{i}", "set" if i not in by_id else "updated")
        for i in stale:
            r.change(f"lifecycle.{i}", "removed")
    r.state["lifecycle"] = [w["ID"] for w in want]


def _clean(rule: dict[str, Any]) -> dict[str, Any]:
    """A rule as read back, made acceptable to put again (drop empty/None members)."""
    return {k: v for k, v in rule.items() if v not in (None, [], {})}
