"""s18 IAM least privilege, measured: the real CLI (its own process) against moto's S3 server on
127.0.0.1, every request recorded server-side and mapped to the IAM authorizations AWS checks;
then each deploy/iam policy evaluated against the calls of its role's commands.

- every call a role makes is allowed by its policy (no command dies of AccessDenied in prod);
- every action a policy grants is used by some command of the role, or is on a short, explained
  list of grants the test setup cannot exercise (SSE-KMS multipart, a stale upload to abort);
- the collector never reads a manifest (snapshots/), never deletes, writes only its own host's
  manifests, and its format marker only with If-None-Match.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

import boto3
import pytest

from archiver.demo.claude_sample import append_turn, make_claude_home
from tests.fx_s11_e2e import Setup
from tests.fx_s18_iam import KMS_ARN, ACCOUNT, Call, Policy, Recorder, iam_calls, recording_s3  # noqa: F401

DEPLOY = Path(__file__).resolve().parent.parent / "deploy" / "iam"
USER = "alice"
PREFIX = "team"
REGION = "us-east-1"
AWS_ENV = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_DEFAULT_REGION": REGION,
           "AWS_CONFIG_FILE": "/nonexistent/aws-config", "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent/aws-credentials",
           "AWS_EC2_METADATA_DISABLED": "true", "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost"}
AWS_UNSET = ("AWS_SESSION_TOKEN", "AWS_SECURITY_TOKEN", "AWS_PROFILE", "AWS_DEFAULT_PROFILE", "AWS_ROLE_ARN",
             "AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3")


@dataclass
class Measured:
    endpoint: str
    host_id: dict[str, str] = field(default_factory=dict)  # bucket -> the collector's host pseudonym
    calls: dict[str, dict[str, list[tuple[str, Call]]]] = field(default_factory=dict)  # role -> command -> (bucket, call)
    exits: dict[str, int] = field(default_factory=dict)

    def of(self, role: str) -> list[tuple[str, str, Call]]:
        return [(cmd, b, c) for cmd, cs in self.calls.get(role, {}).items() for b, c in cs]


class Box:
    """One bucket, one collector set-up (keys, config, a Claude home) and the recorder."""

    def __init__(self, base: Path, endpoint: str, rec: Recorder, measured: Measured, bucket: str, extra: str = "") -> None:
        self.s = Setup(base=base, home=base / "home")
        self.rec, self.m, self.bucket = rec, measured, bucket
        base.mkdir(mode=0o700, exist_ok=True)
        self.s.home.mkdir(parents=True)
        self.sample = make_claude_home(self.s.home, USER)
        self.s.config.write_text("")
        self.s.cli("keygen", "--out", str(base / "keys"), expect=0)
        self.s.config.write_text(
            f'home = "{self.s.home}"\nhost = "laptop-of-{USER}"\n'
            f'[redaction]\nteam_key_file = "{base / "keys" / "team.key"}"\nusernames = ["{USER}"]\n'
            f'[encryption]\nrecipients_file = "{base / "keys" / "recipient.txt"}"\n'
            f'[store]\nurl = "s3://{bucket}/{PREFIX}"\nendpoint_url = "{endpoint}"\nregion = "{REGION}"\n{extra}'
            f'[state]\ndir = "{base / "state"}"\n')

    def run(self, role: str, name: str, *args: str, expect: int = 0, identity: bool = False) -> str:
        start = self.rec.mark()
        r = self.s.cli(*args, *(["--identity", str(self.s.identity)] if identity else []))
        assert r.returncode == expect, (name, r.returncode, r.stdout[-1500:], r.stderr[-2500:])
        self.m.exits[name] = r.returncode
        calls = [(self.bucket, c) for req in self.rec.since(start) for c in iam_calls(req, KMS_ARN)]
        self.m.calls.setdefault(role, {}).setdefault(name, []).extend(calls)
        return r.stdout


def _client(endpoint: str) -> Any:
    return boto3.session.Session().client("s3", endpoint_url=endpoint, region_name=REGION)


def _host_id(endpoint: str, bucket: str) -> str:
    keys = [o["Key"] for o in _client(endpoint).list_objects_v2(Bucket=bucket, Prefix=f"{PREFIX}/snapshots/")["Contents"]]
    hosts = {k.split("/")[2] for k in keys}
    assert len(hosts) == 1, hosts
    return hosts.pop()


@pytest.fixture(scope="module")
def measured(tmp_path_factory: pytest.TempPathFactory, recording_s3: tuple[str, Recorder]) -> Iterator[Measured]:
    endpoint, rec = recording_s3
    with pytest.MonkeyPatch.context() as mp:
        for k, v in AWS_ENV.items():
            mp.setenv(k, v)
        for k in AWS_UNSET:
            mp.delenv(k, raising=False)
        m = Measured(endpoint)
        _plain_bucket(tmp_path_factory.mktemp("s18iam-plain"), endpoint, rec, m)
        _locked_bucket(tmp_path_factory.mktemp("s18iam-lock"), endpoint, rec, m)
        yield m


def _plain_bucket(base: Path, endpoint: str, rec: Recorder, m: Measured) -> None:
    """A versioned bucket without Object Lock: the collector's life (cold, unchanged, append, a
    failed upload and its retry), doctor and status; then the reviewer's and operator's commands."""
    base.chmod(0o700)
    bucket = "s18-iam-plain"
    c = _client(endpoint)
    c.create_bucket(Bucket=bucket)
    c.put_bucket_versioning(Bucket=bucket, VersioningConfiguration={"Status": "Enabled"})
    b = Box(base, endpoint, rec, m, bucket)
    b.run("collector", "sync cold", "sync", "--json")
    m.host_id[bucket] = _host_id(endpoint, bucket)
    b.run("collector", "sync unchanged", "sync", "--json")
    # a killed run's multipart upload (moto dates every upload 2010: stale) and a turn over 1 MiB
    # (a large object: looked up before it is streamed)
    c.create_multipart_upload(Bucket=bucket, Key=f"{PREFIX}/objects/00/{'0' * 64}")
    append_turn(b.sample, "one more turn " + " ".join(f"w{i}" for i in range(200_000)))
    b.run("collector", "sync after append", "sync", "--json")
    append_turn(b.sample, "a turn whose upload is refused")
    rec.fail = lambda req: req["method"] == "PUT" and f"/{PREFIX}/objects/" in req["path"]
    try:
        b.run("collector", "sync failing", "sync", "--json", expect=1)
    finally:
        rec.fail = None
    b.run("collector", "sync retried", "sync", "--json")
    shutil.rmtree(base / "state")  # the state is a cache: lost, every object is found stored (412, then HEAD)
    b.run("collector", "sync after state loss", "sync", "--json")
    b.run("collector", "doctor", "doctor")
    b.run("collector", "status", "status", "--json")

    key = f"claude-code:{b.sample.main}"
    b.run("reviewer", "ls", "ls", "--json", identity=True)
    b.run("reviewer", "lineage", "lineage", "--json", identity=True)
    b.run("reviewer", "verify", "verify", "--json", identity=True)
    b.run("reviewer", "verify --read-data", "verify", "--read-data", "--json", identity=True)
    b.run("reviewer", "restore", "restore", "--all", "--to", str(base / "restored"), "--json", identity=True)
    b.run("reviewer", "export", "export", key, "--out", str(base / "export.html"), identity=True)

    b.run("operator", "rekey --all", "rekey", "--all", "--json", identity=True)
    b.run("operator", "forget-session", "forget-session", f"claude-code:{b.sample.fork}", "--grace", "0s", "--json",
          identity=True)
    b.run("operator", "prune", "prune", "--keep-last", "1", "--grace", "0s", "--json", identity=True)

    # bucket init: one bucket it creates with Object Lock, one that exists without versioning
    lock = 'object_lock_mode = "GOVERNANCE"\nobject_lock_days = 1\nsse = "AES256"\n'
    init = Box(base / "init", endpoint, rec, m, "s18-iam-init", extra=lock)
    init.run("operator", "bucket init", "bucket", "init", "--object-lock", "--default-retention", "--json")
    c.create_bucket(Bucket="s18-iam-init2")
    init = Box(base / "init2", endpoint, rec, m, "s18-iam-init2")
    init.run("operator", "bucket init (existing)", "bucket", "init", "--json")


def _locked_bucket(base: Path, endpoint: str, rec: Recorder, m: Measured) -> None:
    """An Object Lock bucket, writes with GOVERNANCE retention and SSE-KMS: the collector's
    retention headers and KMS calls, the operator's legal holds."""
    base.chmod(0o700)
    bucket = "s18-iam-lock"
    _client(endpoint).create_bucket(Bucket=bucket, ObjectLockEnabledForBucket=True)
    b = Box(base, endpoint, rec, m, bucket,
            extra=f'sse = "aws:kms"\nkms_key_id = "{KMS_ARN}"\nobject_lock_mode = "GOVERNANCE"\nobject_lock_days = 1\n')
    b.run("collector", "sync locked", "sync", "--json")
    m.host_id[bucket] = _host_id(endpoint, bucket)
    b.run("collector", "doctor locked", "doctor")
    append_turn(b.sample, "a turn on the locked bucket")
    b.run("collector", "sync locked again", "sync", "--json")
    key = f"claude-code:{b.sample.main}"
    b.run("reviewer", "verify --read-data locked", "verify", "--read-data", "--json", identity=True)
    b.run("operator", "hold", "hold", key, "--json", identity=True)


    b.run("operator", "rekey locked", "rekey", "--json", identity=True)


# grants no command of the role can show server-side, each with the reason it stays
EXPLAINED: dict[str, dict[tuple[str, str], str]] = {
    "collector": {},
    "reviewer": {},
    "operator": {
        ("GovernanceBypassNeedsMfa", "s3:BypassGovernanceRetention"):
            "break-glass by a person with MFA; no archiver command sends x-amz-bypass-governance-retention",
        ("ReadArchiveAndRetention", "s3:GetObjectRetention"):
            "prune reads retention from HEAD's x-amz-object-lock-* headers, which S3 sends only with this "
            "permission (the HEAD itself is authorized as GetObject)",
        ("ReadArchiveAndRetention", "s3:GetObjectLegalHold"): "as GetObjectRetention, for the legal-hold header",
    },
}
ROLES = ("collector", "reviewer", "operator")


def _policies(m: Measured, role: str) -> dict[str, Policy]:
    return {b: Policy.load(DEPLOY / f"{role}-policy.json", _values(b, m.host_id.get(b, "0" * 16)))
            for b in ("s18-iam-plain", "s18-iam-lock", "s18-iam-init", "s18-iam-init2")}


def _values(bucket: str, host_id: str) -> dict[str, str]:
    return {"BUCKET": bucket, "PREFIX": PREFIX, "HOST_ID": host_id, "ACCOUNT_ID": ACCOUNT, "REGION": REGION,
            "KMS_KEY_ID": KMS_ARN.rsplit("/", 1)[1]}


def test_the_commands_ran_and_made_calls(measured: Measured) -> None:
    for role, cmds in (("collector", ("sync cold", "sync after append", "sync failing", "sync retried",
                                      "sync after state loss", "doctor", "sync locked again")),
                       ("reviewer", ("ls", "lineage", "verify", "verify --read-data", "restore", "export")),
                       ("operator", ("prune", "forget-session", "rekey --all", "hold", "bucket init"))):
        for cmd in cmds:
            assert measured.calls[role][cmd], (role, cmd)
    assert measured.calls["collector"]["sync unchanged"] == []  # nothing changed: not one request
    assert measured.calls["collector"]["status"] == []  # status reads the local state only
    assert measured.exits["sync failing"] == 1


@pytest.mark.parametrize("role", ROLES)
def test_every_call_of_a_role_is_allowed_by_its_policy(measured: Measured, role: str) -> None:
    pol = _policies(measured, role)
    refused = sorted({(cmd, c.action, c.resource, c.context, pol[b].decide(c)[0])
                      for cmd, b, c in measured.of(role) if pol[b].decide(c)[0] != "Allow"})
    assert not refused, "\n".join(map(str, refused[:40]))


@pytest.mark.parametrize("role", ROLES)
def test_a_policy_grants_nothing_its_role_never_uses(measured: Measured, role: str) -> None:
    pol = _policies(measured, role)
    used: set[tuple[str, str]] = set()
    for _cmd, b, c in measured.of(role):
        effect, sids = pol[b].decide(c)
        if effect == "Allow":
            used |= {(sid, a) for sid, a in pol[b].granted() if sid in sids and a.lower() == c.action.lower()}
    granted = set(pol["s18-iam-plain"].granted())
    unused = granted - used - set(EXPLAINED[role])
    assert not unused, f"{role} over-grants: {sorted(unused)}"
    assert not set(EXPLAINED[role]) & used, "an explained grant is used now: drop it from EXPLAINED"
    assert set(EXPLAINED[role]) <= granted


def test_the_collector_never_reads_a_manifest_nor_deletes(measured: Measured) -> None:
    calls = measured.of("collector")
    assert not [c for _, _, c in calls if "Delete" in c.action or "Bypass" in c.action]
    assert not [c for _, _, c in calls if c.action == "s3:GetObject" and "/snapshots/" in c.resource]
    assert not [c for _, _, c in calls if c.action == "s3:PutObject" and c.resource.endswith("/archiver.json")
                and "s3:if-none-match" not in c.ctx()]


def test_the_policies_refuse_what_a_role_must_not_do(measured: Measured) -> None:
    host = measured.host_id["s18-iam-plain"]
    col = _policies(measured, "collector")["s18-iam-plain"]
    rev = _policies(measured, "reviewer")["s18-iam-plain"]
    arn = "arn:aws:s3:::s18-iam-plain/team"
    other = "0123456789abcdef"
    for call, want in [
        (Call("s3:GetObject", f"{arn}/snapshots/{other}/20261201T000000Z-1.json.age"), "ImplicitDeny"),
        (Call("s3:GetObject", f"{arn}/snapshots/{host}/20261201T000000Z-1.json.age"), "ImplicitDeny"),
        (Call("s3:PutObject", f"{arn}/snapshots/{other}/x.json.age", (("s3:if-none-match", "*"),)), "ImplicitDeny"),
        (Call("s3:PutObject", f"{arn}/archiver.json"), "ImplicitDeny"),  # an overwrite of the marker
        (Call("s3:PutObject", f"{arn}/tombstones/{'a' * 64}", (("s3:if-none-match", "*"),)), "ImplicitDeny"),
        (Call("s3:ListBucket", "arn:aws:s3:::s18-iam-plain", (("s3:prefix", f"team/snapshots/{other}/"),)),
         "ImplicitDeny"),
        (Call("s3:DeleteObject", f"{arn}/objects/00/{'0' * 64}"), "Deny"),
        (Call("s3:DeleteObjectVersion", f"{arn}/snapshots/{host}/x.json.age"), "Deny"),
        (Call("s3:BypassGovernanceRetention", f"{arn}/objects/00/{'0' * 64}"), "Deny"),
        (Call("s3:PutObject", "arn:aws:s3:::s18-iam-plain/elsewhere/objects/x"), "ImplicitDeny"),
    ]:
        assert col.decide(call)[0] == want, (call, col.decide(call))
    assert rev.decide(Call("s3:PutObject", f"{arn}/objects/00/{'0' * 64}"))[0] == "Deny"
    assert rev.decide(Call("s3:DeleteObject", f"{arn}/snapshots/{host}/x"))[0] == "Deny"
    assert rev.decide(Call("s3:GetObject", "arn:aws:s3:::s18-iam-plain/other-team/x"))[0] == "ImplicitDeny"
    op = _policies(measured, "operator")["s18-iam-plain"]
    assert op.decide(Call("s3:BypassGovernanceRetention", f"{arn}/objects/x"))[0] == "ImplicitDeny"  # no MFA
    assert op.decide(Call("s3:BypassGovernanceRetention", f"{arn}/objects/x",
                          (("aws:MultiFactorAuthPresent", "true"),)))[0] == "Allow"
