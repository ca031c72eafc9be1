"""The CLI contract, second pass: the commands test_s25_contract.py does not cover (rules, bucket
init, hold/release, prune with a hold, forget-session, rekey, recovery-key, ls filters and --at,
snapshots, status, doctor, export of a family, restore --with-family/--all), each run only as
`python -m archiver ...` in a subprocess against a file:// store or moto's S3 server on 127.0.0.1,
checked against README.md's command reference and docs/FORMAT.md. Where a command should not
write, the bytes of the store and the home are compared before and after."""

from __future__ import annotations

import hashlib
import hmac
import json
import shutil
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

import pytest

from tests.fx_s25_contract import (HOST, Arch, ClockSkewProxy, Ran, append_claude_line, build_arch, tree_bytes)
from tests.fx_s3 import make_bucket, s3_client, s3_server, unique_bucket_name  # noqa: F401  (fixture)
from tests.fx_s32_relinks import claude_relinked, codex_relinked
from tests.test_s25_contract import age_zstd_decrypt, derived_key, folder_objects, merged, one_line_error

LOCK_LIFECYCLE = {"archiver-objects-tiering", "archiver-abort-incomplete-multipart", "archiver-noncurrent-versions"}


# ---------------------------------------------------------------- fixtures

def utc_iso(when: datetime) -> str:
    return when.astimezone(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@pytest.fixture(scope="module")
def fa(tmp_path_factory: pytest.TempPathFactory) -> Arch:
    """Claude Code and Codex synced twice to a file:// store: the second sync after one line was
    appended to the main Claude transcript. `made["between"]` is a time between the two snapshots."""
    arch = build_arch(tmp_path_factory.mktemp("s25c2file"), harnesses=("claude-code", "codex"))
    first = arch.run("sync", "--json")
    assert first.code == 0, first
    time.sleep(0.3)
    arch.made["between"] = utc_iso(datetime.now(timezone.utc))
    time.sleep(1.1)  # the second manifest's key stamp is a later second
    main = arch.made["claude-code"].main
    append_claude_line(next(arch.home.glob(f".claude/projects/*/{main}.jsonl")))
    second = arch.run("sync", "--json")
    assert second.code == 0 and second.json()["sessions"]["uploaded"] == 1, second
    arch.made["snapshots"] = [first.json()["snapshot"], second.json()["snapshot"]]
    return arch


def store_of(arch: Arch) -> Path:
    return Path(arch.store_url[len("file://"):])


def copy_arch(arch: Arch, tmp: Path, *, state: bool = False) -> tuple[Path, Path]:
    """A copy of the archive's store (and, with `state`, of its state dir) and a config naming
    them: (config, store)."""
    store = tmp / "store"
    shutil.copytree(store_of(arch), store)
    over: dict[str, Any] = {"store": {"url": f"file://{store}"}}
    if state:
        shutil.copytree(arch.state, tmp / "state")
        over["state"] = {"dir": str(tmp / "state")}
    return arch.write_config(merged(arch.settings, over), tmp / "config.toml"), store


def manifests_in(store: Path, identity: Path) -> dict[str, dict[str, Any]]:
    return {str(p.relative_to(store)): json.loads(age_zstd_decrypt(identity, p.read_bytes()))
            for p in sorted(store.glob("snapshots/*/*.json.age"))}


def ls_sessions(arch: Arch, *args: str, config: Path | None = None) -> dict[str, Any]:
    ran = arch.run("ls", "--json", *args, identity=True, **({"config": config} if config else {}))
    assert ran.code == 0, ran
    return {s["key"]: s for s in ran.json()["sessions"]}


def transcript_of(session: dict[str, Any]) -> dict[str, Any]:
    return next(a for a in session["artifacts"] if a["role"] == "transcript")


def check_restored(target: Path, sessions: list[dict[str, Any]], plaintext: Callable[[str], bytes]) -> None:
    """Every artifact of `sessions` is under `target` with its archived size (and sha256 where
    the file is one object: FORMAT.md §5), except a jsonl.zst (compressed again on restore). A
    Claude Code transcript names the tool-results files restored with it under the target (s32
    relinks): it is the archived bytes (`plaintext`: object id -> its plaintext) relinked so."""
    wrote = [p.relative_to(target).as_posix() for p in target.rglob("*") if p.is_file()]
    for s in sessions:
        for a in s["artifacts"]:
            f = target / a["path"]
            assert f.is_file(), (s["key"], a["path"])
            if a["format"] == "jsonl.zst":
                continue
            data = f.read_bytes()
            if s["harness"] == "claude-code" and a["role"] == "transcript":
                archived = b"".join(plaintext(o) for o in a["objects"])
                assert len(archived) == a["size"], a["path"]
                if len(a["objects"]) <= 1:
                    assert hashlib.sha256(archived).hexdigest() == a["sha256"], a["path"]
                assert data == claude_relinked(archived, target, wrote), a["path"]
                continue
            if s["harness"] == "codex" and a["role"] == "transcript":
                archived = b"".join(plaintext(o) for o in a["objects"])
                assert len(archived) == a["size"], a["path"]
                assert data == codex_relinked(archived, target, wrote), a["path"]
                continue
            assert len(data) == a["size"], a["path"]
            if len(a["objects"]) <= 1:
                assert hashlib.sha256(data).hexdigest() == a["sha256"], a["path"]


def plaintexts(stored: dict[str, bytes], identity: Path, prefix: str = "") -> Callable[[str], bytes]:
    """Object id -> its plaintext, from a store's files (FORMAT.md §2)."""
    return lambda oid: age_zstd_decrypt(identity, stored[f"{prefix}objects/{oid[:2]}/{oid}"])


def first_line(ran: Ran) -> str:
    return next(ln for ln in ran.err.splitlines() if ln.strip())


# ---------------------------------------------------------------- rules

PLANTED = "export AWS_ACCESS_KEY_ID={key}\ncd /home/alice/work/app\n"

BAD_REGEX_PACK = """[pack]
name = "acme"
version = 1

[[rules]]
id = "acme-broken"
regex = '''(acme_live_[0-9A-Z'''
keywords = ["acme_live_"]
"""

BAD_EXAMPLE_PACK = """[pack]
name = "acme"
version = 1

[[rules]]
id = "acme-live-token"
regex = '''(?:\\\\[nrt]|\\b)(acme_live_[0-9A-Za-z]{32})\\b'''
keywords = ["acme_live_"]
positive = ["export ACME_API_TOKEN=acme_live_FAKE4EXAMPLE9xYzAbCdEf"]
negative = ["tokens start with acme_live_"]
"""


LEAN_RULES = ["builtin:secrets", "builtin:paths"]  # fewer rules to compile: each `rules` run compiles them


def test_rules_list_and_test(fa: Arch, tmp_path: Path) -> None:
    from archiver.demo.claude_sample import FAKE_AWS_KEY

    lean = fa.write_config(merged(fa.settings, {"redaction": {"rules": LEAN_RULES}}), tmp_path / "lean.toml")
    listed = fa.run("rules", "list", "--json", config=lean)
    assert listed.code == 0, listed
    doc = listed.json()
    assert doc["example_problems"] == []
    ids = {r["id"] for r in doc["rules"]}
    assert {"aws-access-key-id", "github-pat", "home-linux", "user-username"} <= ids and "email" not in ids
    assert all(set(r) >= {"id", "pack", "label", "confidence", "description"} for r in doc["rules"])
    planted = tmp_path / "p" / "notes.txt"
    planted.parent.mkdir()
    planted.write_text(PLANTED.format(key=FAKE_AWS_KEY))
    before = tree_bytes(planted.parent)
    tested = fa.run("rules", "test", str(planted), "--json", config=lean)
    assert tested.code == 0, tested
    hits = tested.json()
    assert hits["file"] == str(planted) and hits["format"] == "text"
    assert {h["rule"] for h in hits["hits"]} >= {"aws-access-key-id", "home-linux"}
    assert all(set(h) == {"where", "rule", "carrier", "count"} for h in hits["hits"])
    human = fa.run("rules", "test", str(planted), config=lean)
    for out in (tested.out + tested.err, human.out + human.err):
        assert FAKE_AWS_KEY not in out and "alice" not in out  # never the values
    assert tree_bytes(planted.parent) == before
    one_line_error(fa.run("rules", "test", str(tmp_path / "absent.txt"), "--json", config=lean), "absent.txt",
                   "not a file")


def test_rule_pack_with_a_bad_regex_is_a_config_error(fa: Arch, tmp_path: Path) -> None:
    pack = tmp_path / "acme.toml"
    pack.write_text(BAD_REGEX_PACK)
    cfg = fa.write_config(merged(fa.settings, {"redaction": {"rules": [str(pack)]},
                                               "state": {"dir": str(tmp_path / "state")}}), tmp_path / "c.toml")
    store = folder_objects(store_of(fa))
    for args in (["rules", "list"], ["rules", "test", str(fa.home / ".claude" / "history.jsonl")],
                 ["redact", str(fa.home / ".claude" / "history.jsonl")], ["sync"]):
        one_line_error(fa.run(*args, "--json", config=cfg), str(pack), "'acme-broken'", "regex")
    assert folder_objects(store_of(fa)) == store


def test_rule_pack_with_a_failing_example_exits_2_naming_it(fa: Arch, tmp_path: Path) -> None:
    pack = tmp_path / "acme.toml"
    pack.write_text(BAD_EXAMPLE_PACK)
    cfg = fa.write_config(merged(fa.settings, {"redaction": {"rules": [str(pack)]}}),
                          tmp_path / "c.toml")
    ran = fa.run("rules", "list", "--json", config=cfg)
    assert ran.code == 2, ran
    assert ran.json()["example_problems"] == [f"{pack}: rule 'acme-live-token': positive example 1 is not matched"]
    human = fa.run("rules", "list", config=cfg)
    assert human.code == 2 and f"{pack}: rule 'acme-live-token': positive example 1" in human.err, human


# ---------------------------------------------------------------- bucket init, hold, release, prune (moto)

@pytest.fixture(scope="module")
def lockarch(s3_server: str, tmp_path_factory: pytest.TempPathFactory) -> Arch:  # noqa: F811
    """Claude Code on a bucket that `bucket init --object-lock` created (no sync yet)."""
    bucket = unique_bucket_name()
    arch = build_arch(tmp_path_factory.mktemp("s25c2lock"), f"s3://{bucket}/team/arch", s3_server,
                      harnesses=("claude-code",))
    arch.made["bucket"] = bucket
    return arch


def bucket_bytes(endpoint: str, bucket: str) -> dict[str, bytes]:
    client = s3_client(endpoint)
    out = {}
    for page in client.get_paginator("list_objects_v2").paginate(Bucket=bucket):
        for o in page.get("Contents", ()):
            out[o["Key"]] = client.get_object(Bucket=bucket, Key=o["Key"])["Body"].read()
    return out


def test_bucket_init_object_lock_sets_what_readme_says(lockarch: Arch) -> None:
    bucket, client = lockarch.made["bucket"], s3_client(lockarch.endpoint)
    ran = lockarch.run("bucket", "init", "--object-lock", "--json")
    assert ran.code == 0, ran
    doc = ran.json()
    assert doc["bucket"] == bucket and doc["created"] is True and doc["changed"] is True
    assert set(doc["state"].pop("lifecycle")) == LOCK_LIFECYCLE
    assert doc["state"] == {"versioning": "Enabled", "object_lock": True, "default_encryption": "AES256",
                            "public_access_block": True}
    # what the server now holds
    assert client.get_bucket_versioning(Bucket=bucket)["Status"] == "Enabled"
    lock = client.get_object_lock_configuration(Bucket=bucket)["ObjectLockConfiguration"]
    assert lock["ObjectLockEnabled"] == "Enabled" and "Rule" not in lock  # no default retention unless asked
    pab = client.get_public_access_block(Bucket=bucket)["PublicAccessBlockConfiguration"]
    assert all(pab[k] for k in ("BlockPublicAcls", "IgnorePublicAcls", "BlockPublicPolicy", "RestrictPublicBuckets"))
    sse = client.get_bucket_encryption(Bucket=bucket)["ServerSideEncryptionConfiguration"]["Rules"]
    assert sse[0]["ApplyServerSideEncryptionByDefault"]["SSEAlgorithm"] == "AES256"
    rules = {r["ID"]: r for r in client.get_bucket_lifecycle_configuration(Bucket=bucket)["Rules"]}
    assert set(rules) == LOCK_LIFECYCLE
    tiering = rules["archiver-objects-tiering"]
    assert tiering["Filter"]["Prefix"] == "team/arch/objects/"  # manifests are never moved
    assert tiering["Transitions"] == [{"Days": 30, "StorageClass": "STANDARD_IA"}]
    assert rules["archiver-abort-incomplete-multipart"]["AbortIncompleteMultipartUpload"] == {"DaysAfterInitiation": 7}
    assert rules["archiver-noncurrent-versions"]["NoncurrentVersionExpiration"]["NoncurrentDays"] == 30
    # again: nothing to do, nothing changed
    again = lockarch.run("bucket", "init", "--object-lock")
    assert again.code == 0 and again.out.strip() == f"bucket {bucket}: already set up; nothing changed", again
    assert bucket_bytes(lockarch.endpoint, bucket) == {}


def test_bucket_init_reports_each_setting_and_needs_s3(lockarch: Arch, tmp_path: Path) -> None:
    bucket = unique_bucket_name()
    cfg = lockarch.write_config(merged(lockarch.settings, {"store": {"url": f"s3://{bucket}/p"}}), tmp_path / "c.toml")
    ran = lockarch.run("bucket", "init", config=cfg)
    assert ran.code == 0, ran
    lines = ran.out.splitlines()
    assert f"bucket {bucket}: bucket: created" in lines and f"bucket {bucket}: versioning: enabled" in lines, ran.out
    filecfg = lockarch.write_config(merged(lockarch.settings, {"store": {"url": f"file://{tmp_path / 's'}"}}),
                                    tmp_path / "f.toml")
    one_line_error(lockarch.run("bucket", "init", "--json", config=filecfg), "s3://")
    assert not (tmp_path / "s").exists()


def ensure_locked_bucket(arch: Arch) -> None:
    """The module's bucket set up by `bucket init --object-lock` if no test in this process did
    (pytest-xdist may run a module's tests in different workers, each with its own fixture)."""
    client = s3_client(arch.endpoint)
    try:
        if client.get_bucket_versioning(Bucket=arch.made["bucket"]).get("Status"):
            return
    except client.exceptions.NoSuchBucket:
        pass
    ran = arch.run("bucket", "init", "--object-lock")
    assert ran.code == 0, ran


def rewrite_first_record(transcript: Path) -> None:
    """A rewritten (not appended) transcript: its archived prefix changes, so it is stored anew."""
    data = transcript.read_bytes()
    assert b'"userType":"external"' in data
    transcript.write_bytes(data.replace(b'"userType":"external"', b'"userType":"externaL"', 1))


def test_hold_keeps_a_session_through_prune(lockarch: Arch) -> None:
    c, bucket = lockarch.made["claude-code"], lockarch.made["bucket"]
    ensure_locked_bucket(lockarch)
    first = lockarch.run("sync", "--json")
    assert first.code == 0, first
    held, other = f"claude-code:{c.main}", f"claude-code:{c.fork}"
    old = ls_sessions(lockarch)
    one_line_error(lockarch.run("hold", held[:20], "--json", identity=True), "whole key")
    ran = lockarch.run("hold", held, "--json", identity=True)
    assert ran.code == 0, ran
    doc = ran.json()
    held_objects = {f"objects/{o[:2]}/{o}" for a in old[held]["artifacts"] for o in a["objects"]}
    assert doc["session"] == held and doc["legal_hold"] == "ON" and doc["ok"] is True and doc["errors"] == []
    assert set(doc["objects"]) == held_objects and doc["manifests"] == [first.json()["snapshot"]]
    client, prefix = s3_client(lockarch.endpoint), "team/arch/"
    for key in doc["objects"] + doc["manifests"]:
        assert client.get_object_legal_hold(Bucket=bucket, Key=prefix + key)["LegalHold"]["Status"] == "ON", key
    lockarch.made["between"] = utc_iso(datetime.now(timezone.utc))
    time.sleep(1.1)
    for sid in (c.main, c.fork):
        rewrite_first_record(next(lockarch.home.glob(f".claude/projects/*/{sid}.jsonl")))
    second = lockarch.run("sync", "--json")
    assert second.code == 0 and second.json()["sessions"]["uploaded"] == 2, second
    old_transcript = set(transcript_of(old[held])["objects"])
    assert not old_transcript & set(transcript_of(ls_sessions(lockarch)[held])["objects"])
    pruned = lockarch.run("prune", "--keep-last", "1", "--grace", "0", "--json", identity=True)
    assert pruned.code == 0, pruned
    pdoc = pruned.json()
    assert pdoc["manifests"]["removed"] == [] and first.json()["snapshot"] in pdoc["manifests"]["kept"]
    assert any(first.json()["snapshot"] in x and "legal hold" in x for x in pdoc["locked"]), pdoc["locked"]
    stored = bucket_bytes(lockarch.endpoint, bucket)
    assert all(f"{prefix}objects/{o[:2]}/{o}" in stored for o in old_transcript)
    # the held state still restores, byte for byte as archived then
    target = lockarch.base / "r-held"
    back = lockarch.run("restore", held, "--at", lockarch.made["between"], "--to", str(target), "--json", identity=True)
    assert back.code == 0, back
    check_restored(target, [old[held]], plaintexts(stored, lockarch.identity, prefix))
    lockarch.made["held"] = (held, first.json()["snapshot"], old_transcript, set(transcript_of(old[other])["objects"]))


def test_release_lets_prune_remove_what_the_hold_kept(lockarch: Arch) -> None:
    if "held" not in lockarch.made:  # the hold test ran in another worker
        test_hold_keeps_a_session_through_prune(lockarch)
    held, first_manifest, old_transcript, _ = lockarch.made["held"]
    ran = lockarch.run("release", held, "--json", identity=True)
    assert ran.code == 0 and ran.json()["legal_hold"] == "OFF", ran
    pruned = lockarch.run("prune", "--keep-last", "1", "--grace", "0", "--json", identity=True)
    assert pruned.code == 0, pruned
    doc = pruned.json()
    assert doc["manifests"]["removed"] == [first_manifest], doc
    assert doc["locked"] == [], doc["locked"]  # nothing the hold set stays held
    removed = set(doc["objects"]["removed_keys"])
    assert {f"objects/{o[:2]}/{o}" for o in old_transcript} <= removed


def test_hold_on_a_store_without_object_lock_exits_1(fa: Arch) -> None:
    key = f"claude-code:{fa.made['claude-code'].main}"
    before = folder_objects(store_of(fa))
    ran = fa.run("hold", key, "--json", identity=True)
    assert ran.code == 1, ran
    doc = ran.json()
    assert doc["ok"] is False and doc["objects"] == [] and doc["manifests"] == []
    assert any("legal hold" in e for e in doc["errors"]) and any("Object Lock" in e for e in doc["errors"])
    assert folder_objects(store_of(fa)) == before


# ---------------------------------------------------------------- forget-session

def tomb_id(arch: Arch, key: str) -> str:
    """FORMAT.md §7: hex HMAC-SHA256(K_obj, "tombstone" || 0x00 || KEY)."""
    k_obj = derived_key(arch.keys / "team.key", "object-id")
    return hmac.new(k_obj, b"tombstone\x00" + key.encode(), hashlib.sha256).hexdigest()


def test_forget_session_erases_it_everywhere(fa: Arch, tmp_path: Path) -> None:
    cfg, store = copy_arch(fa, tmp_path, state=True)
    victim = f"claude-code:{fa.made['claude-code'].fork}"
    before = ls_sessions(fa, config=cfg)
    others_objects = {o for k, s in before.items() if k != victim for a in s["artifacts"] for o in a["objects"]}
    own = {o for a in before[victim]["artifacts"] for o in a["objects"]} - others_objects
    assert own
    ran = fa.run("forget-session", victim, "--grace", "0", "--json", config=cfg, identity=True)
    assert ran.code == 0, ran
    doc = ran.json()
    assert doc["session"] == victim and doc["complete"] is True and doc["errors"] == []
    assert len(doc["manifests"]["rewritten"]) == 2 and doc["manifests"]["locked"] == []
    assert {k.rsplit("/", 1)[1] for k in doc["objects"]["removed"]} == own
    # the tombstone, as FORMAT.md §7 names it: zero bytes
    tomb = store / "tombstones" / tomb_id(fa, victim)
    assert sorted(p.name for p in (store / "tombstones").iterdir()) == [tomb.name] and tomb.read_bytes() == b""
    # gone from every manifest; every other session as it was; its own objects gone, the others' kept
    for name, m in manifests_in(store, fa.identity).items():
        assert victim not in {s["key"] for s in m["sessions"]}, name
    after = ls_sessions(fa, config=cfg)
    assert after == {k: v for k, v in before.items() if k != victim}
    present = {p.name for p in store.glob("objects/*/*")}
    assert not own & present and others_objects <= present
    # the session is still on the machine: the next sync neither archives nor carries it forward
    sync = fa.run("sync", "--json", config=cfg)
    assert sync.code == 0, sync
    assert victim not in ls_sessions(fa, config=cfg)
    for name, m in manifests_in(store, fa.identity).items():
        assert victim not in {s["key"] for s in m["sessions"]}, name
    verify = fa.run("verify", "--json", config=cfg, identity=True)
    assert verify.code == 0 and verify.json()["tombstones"] == 1, verify


def test_forget_session_within_grace_is_incomplete(fa: Arch, tmp_path: Path) -> None:
    cfg, store = copy_arch(fa, tmp_path)
    victim = f"claude-code:{fa.made['claude-code'].fork}"
    ran = fa.run("forget-session", victim, config=cfg, identity=True)  # default --grace 6h
    assert ran.code == 1, ran
    assert ran.out.splitlines()[-1] == "erasure INCOMPLETE: see above", ran.out
    assert "newer than the grace period" in ran.out
    assert (store / "tombstones" / tomb_id(fa, victim)).is_file()
    assert victim not in ls_sessions(fa, config=cfg)


def test_forget_session_run_again_finishes_the_erasure(fa: Arch, tmp_path: Path) -> None:
    """README: an erasure within the grace period "says `erasure INCOMPLETE` and exits 1 until
    then", and the command says "run again later, or --grace 0": run again, it must finish."""
    cfg, store = copy_arch(fa, tmp_path)
    victim = f"claude-code:{fa.made['claude-code'].fork}"
    before = ls_sessions(fa, config=cfg)
    shared = {o for k, s in before.items() if k != victim for a in s["artifacts"] for o in a["objects"]}
    own = {o for a in before[victim]["artifacts"] for o in a["objects"]} - shared
    assert fa.run("forget-session", victim, "--json", config=cfg, identity=True).code == 1
    again = fa.run("forget-session", victim, "--grace", "0", "--json", config=cfg, identity=True)
    assert again.code == 0, again
    doc = again.json()
    assert doc["complete"] is True and doc["manifests"]["rewritten"] == []
    assert {k.rsplit("/", 1)[1] for k in doc["objects"]["removed"]} == own
    assert not own & {p.name for p in store.glob("objects/*/*")}
    assert ls_sessions(fa, config=cfg) == {k: v for k, v in before.items() if k != victim}


def test_forget_session_unknown_or_partial_key_exits_2(fa: Arch) -> None:
    before = folder_objects(store_of(fa))
    one_line_error(fa.run("forget-session", "claude-code:nosuch", "--json", identity=True), "claude-code:nosuch")
    one_line_error(fa.run("forget-session", f"claude-code:{fa.made['claude-code'].fork[:8]}", "--json",
                          identity=True), "whole key")
    assert folder_objects(store_of(fa)) == before


# ---------------------------------------------------------------- rekey, recovery-key

def test_rekey_and_recovery_key(fa: Arch, tmp_path: Path) -> None:
    cfg, store = copy_arch(fa, tmp_path, state=True)
    new_keys = tmp_path / "new"
    assert fa.run("keygen", "--out", str(new_keys), config=False).code == 0
    pp = tmp_path / "pp"
    pp.write_text("correct horse battery\n")
    pp.chmod(0o600)
    rec = tmp_path / "recovery.age"
    made = fa.run("recovery-key", "--out", str(rec), "--passphrase-file", str(pp), "--work-factor", "10", "--json",
                  config=False)
    assert made.code == 0, made
    assert made.json()["identity"] == str(rec) and made.json()["recipient"].startswith("age1")
    assert rec.read_bytes().startswith(b"age-encryption.org/v1\n-> scrypt ")  # FORMAT.md §9: age -p
    one_line_error(fa.run("recovery-key", "--out", str(rec), "--passphrase-file", str(pp), "--json", config=False),
                   "--force")
    before = ls_sessions(fa, config=cfg)
    settings = merged(fa.settings, {"store": {"url": f"file://{store}"}, "state": {"dir": str(tmp_path / "state")}})
    settings["encryption"] = {"recipients": [(new_keys / "recipient.txt").read_text().split()[0],
                                             made.json()["recipient"]]}
    rk_cfg = fa.write_config(settings, tmp_path / "rekeyed.toml")
    ran = fa.run("rekey", "--all", "--json", config=rk_cfg, identity=True)
    assert ran.code == 0, ran
    doc = ran.json()
    assert doc["ok"] is True and len(doc["manifests"]["rewritten"]) == 2
    assert doc["objects"]["rewritten"] == len(list(store.glob("objects/*/*"))) and doc["objects"]["not_rewritten"] == 0
    # the old identity reads nothing any more: exit 3 naming it
    old = fa.run("ls", "--json", config=rk_cfg, identity=True)
    assert old.code == 3 and old.json()["sessions"] == [], old
    assert "matches none of the 2 manifest(s)" in old.json()["errors"][0]
    # the new identity and the recovery identity read everything
    new = fa.run("ls", "--json", "--identity", str(new_keys / "identity.txt"), config=rk_cfg)
    assert new.code == 0 and {s["key"]: s for s in new.json()["sessions"]} == before, new
    target = tmp_path / "r"
    back = fa.run("restore", "--all", "--to", str(target), "--json", "--identity", str(rec),
                  "--identity-passphrase-file", str(pp), config=rk_cfg)
    assert back.code == 0 and back.json()["integrity_errors"] == [], back
    check_restored(target, list(before.values()), plaintexts(folder_objects(store_of(fa)), fa.identity))
    # a wrong or missing passphrase is a clear error, not an integrity failure
    wrong = tmp_path / "wrong"
    wrong.write_text("not it\n")
    one_line_error(fa.run("ls", "--json", "--identity", str(rec), "--identity-passphrase-file", str(wrong),
                          config=rk_cfg), str(rec), "wrong passphrase")
    one_line_error(fa.run("ls", "--json", "--identity", str(rec), config=rk_cfg), "passphrase")
    # a later sync writes to the configured recipients only
    transcript = next(fa.home.glob(f".claude/projects/*/{fa.made['claude-code'].main}.jsonl"))
    original = transcript.read_bytes()
    append_claude_line(transcript)
    try:
        sync = fa.run("sync", "--json", config=rk_cfg)
        assert sync.code == 0 and sync.json()["snapshot"], sync
    finally:  # the shared home goes back to what the other tests' archive holds
        transcript.write_bytes(original)
    newest = store / sync.json()["snapshot"]
    assert json.loads(age_zstd_decrypt(new_keys / "identity.txt", newest.read_bytes()))["sessions"]
    with pytest.raises(Exception):
        age_zstd_decrypt(fa.identity, newest.read_bytes())


def test_rekey_with_an_identity_that_reads_nothing_changes_nothing(fa: Arch, tmp_path: Path) -> None:
    cfg, store = copy_arch(fa, tmp_path)
    other = tmp_path / "other"
    assert fa.run("keygen", "--out", str(other), config=False).code == 0
    before = folder_objects(store)
    ran = fa.run("rekey", "--json", "--identity", str(other / "identity.txt"), config=cfg)
    assert ran.code == 3, ran
    assert ran.json()["ok"] is False and any("nothing was changed" in e for e in ran.json()["errors"])
    assert folder_objects(store) == before


# ---------------------------------------------------------------- ls filters and --at, snapshots

def test_ls_at_before_between_and_after(fa: Arch) -> None:
    store, home = folder_objects(store_of(fa)), tree_bytes(fa.home)
    main = f"claude-code:{fa.made['claude-code'].main}"
    latest = ls_sessions(fa)
    early = fa.run("ls", "--json", "--at", "2020-01-01T00:00:00Z", identity=True)
    assert early.code == 0, early
    doc = early.json()
    assert doc["sessions"] == [] and doc["at"].startswith("2020-01-01T00:00:00")
    assert [h["host_id"] for h in doc["hosts_without_state"]] == [next(iter(latest.values()))["host_id"]]
    assert doc["hosts_without_state"][0]["first_snapshot"]
    between = fa.run("ls", "--json", "--at", fa.made["between"], identity=True).json()
    then = {s["key"]: s for s in between["sessions"]}
    assert set(then) == set(latest) and between["hosts_without_state"] == []
    assert len(transcript_of(then[main])["objects"]) + 1 == len(transcript_of(latest[main])["objects"])
    assert transcript_of(then[main])["objects"] == transcript_of(latest[main])["objects"][:-1]  # FORMAT.md §6.4
    assert all(then[k] == latest[k] for k in latest if k != main)
    after = fa.run("ls", "--json", "--at", "2999-01-01", identity=True).json()
    assert {s["key"]: s for s in after["sessions"]} == latest
    one_line_error(fa.run("ls", "--json", "--at", "yesterday-ish", identity=True), "yesterday-ish")
    assert folder_objects(store_of(fa)) == store and tree_bytes(fa.home) == home


def test_ls_filters(fa: Arch) -> None:
    latest = ls_sessions(fa)
    host_id = next(iter(latest.values()))["host_id"]
    codex = ls_sessions(fa, "--harness", "codex")
    assert codex and set(codex) == {k for k in latest if k.startswith("codex:")}
    one_line_error(fa.run("ls", "--json", "--harness", "claudecode", identity=True), "claudecode")
    assert ls_sessions(fa, "--host", host_id) == latest
    nobody = fa.run("ls", "--json", "--host", "0000000000000000", identity=True)
    assert nobody.code == 0 and nobody.json()["sessions"] == [] and "0000000000000000" in nobody.json()["notes"][0]
    title = latest[f"claude-code:{fa.made['claude-code'].main}"]["title"]
    word = title.split()[0].swapcase()  # case-insensitive substring of the redacted title
    by_title = ls_sessions(fa, "--title", word)
    assert by_title and all(word.casefold() in (s["title"] or "").casefold() for s in by_title.values())
    assert set(by_title) < set(latest)
    assert ls_sessions(fa, "--since", "2999-01-01") == {}
    assert ls_sessions(fa, "--since", "2000-01-01") == latest
    one_line_error(fa.run("ls", "--json", "--since", "someday", identity=True), "--since", "someday")


def test_snapshots(fa: Arch) -> None:
    store = folder_objects(store_of(fa))
    ran = fa.run("snapshots", "--json", identity=True)
    assert ran.code == 0, ran
    rows = ran.json()["snapshots"]
    assert [r["key"] for r in rows] == fa.made["snapshots"]
    for r in rows:
        m = json.loads(age_zstd_decrypt(fa.identity, store[r["key"]]))
        assert r["created_at"].startswith(m["created_at"][:23]) and r["host_id"] == m["host_id"]
        assert r["sessions"] == len(m["sessions"]) and r["manifest_bytes"] == len(store[r["key"]])
        assert r["bytes"] == sum(a["size"] for s in m["sessions"] for a in s["artifacts"])
    at = fa.run("snapshots", "--json", "--at", fa.made["between"], identity=True).json()
    assert [r["key"] for r in at["snapshots"]] == fa.made["snapshots"][:1] and at["at"]
    assert fa.run("snapshots", "--json", "--at", "2020-01-01", identity=True).json()["snapshots"] == []
    assert fa.run("snapshots", "--json", "--host", "0000000000000000", identity=True).json()["snapshots"] == []
    human = fa.run("snapshots", identity=True)
    assert human.code == 0 and "2 snapshots of 1 hosts" in human.out, human
    assert folder_objects(store_of(fa)) == store


# ---------------------------------------------------------------- status, doctor

def test_status_after_success_and_after_a_failed_run(fa: Arch, tmp_path: Path) -> None:
    cfg, _ = copy_arch(fa, tmp_path, state=True)
    ok = fa.run("status", "--json", config=cfg)
    assert ok.code == 0, ok
    doc = ok.json()
    assert doc["runs_recorded"] == 2 and doc["running"] is False and doc["last_run"]["result"] == "ok"
    assert doc["last_run"]["snapshot"] == fa.made["snapshots"][1] and doc["last_run"]["aborted"] is False
    last_success = doc["last_success"]
    assert last_success == doc["last_run"]["finished"]
    state = tree_bytes(tmp_path / "state")
    assert fa.run("status", config=cfg).code == 0 and tree_bytes(tmp_path / "state") == state  # status never writes
    # a run that cannot start: its team key is missing
    bad = fa.write_config(merged(json.loads(json.dumps(fa.settings)),
                                 {"store": {"url": f"file://{tmp_path / 'store'}"}, "state": {"dir": str(tmp_path / "state")},
                                  "redaction": {"team_key_file": str(tmp_path / "gone.key")}}), tmp_path / "bad.toml")
    assert fa.run("sync", config=bad).code == 2
    failed = fa.run("status", "--json", config=cfg).json()
    assert failed["last_run"]["result"] == "failed" and failed["last_run"]["aborted"] is True
    assert any("gone.key" in e for e in failed["last_run"]["errors"]) and failed["last_success"] == last_success
    assert (tmp_path / "state" / "last-failure.json").is_file()
    # the next completed run clears it
    assert fa.run("sync", config=cfg).code == 0
    again = fa.run("status", "--json", config=cfg).json()
    assert again["last_run"]["result"] == "ok" and not (tmp_path / "state" / "last-failure.json").exists()


def failing(doc: dict[str, Any]) -> dict[str, str]:
    return {c["check"]: c["detail"] for c in doc["checks"] if c["status"] == "fail"}


def test_doctor_missing_bucket_and_key_permissions(lockarch: Arch, tmp_path: Path) -> None:
    ensure_locked_bucket(lockarch)  # the module's bucket exists: only the missing one and the key fail
    missing = unique_bucket_name()
    cfg = lockarch.write_config(merged(lockarch.settings, {"store": {"url": f"s3://{missing}/p"}}), tmp_path / "m.toml")
    ran = lockarch.run("doctor", "--json", config=cfg)
    assert ran.code == 2 and ran.json()["ok"] is False, ran
    assert {"bucket"} <= set(failing(ran.json())) <= {"bucket", "list prefix"}
    assert "no such bucket" in failing(ran.json())["bucket"]
    assert missing not in {b["Name"] for b in s3_client(lockarch.endpoint).list_buckets()["Buckets"]}
    keys = tmp_path / "keys"
    shutil.copytree(lockarch.keys, keys)
    (keys / "team.key").chmod(0o644)
    cfg = lockarch.write_config(merged(lockarch.settings, {"redaction": {"team_key_file": str(keys / "team.key")}}),
                                tmp_path / "k.toml")
    ran = lockarch.run("doctor", "--json", config=cfg)
    assert ran.code == 2, ran
    fails = failing(ran.json())
    assert set(fails) == {"team key"} and "0644" in fails["team key"] and "chmod 600" in fails["team key"]


def test_doctor_clock_far_off(lockarch: Arch, tmp_path: Path) -> None:
    ensure_locked_bucket(lockarch)
    for skew, code in ((3600.0, 2), (0.0, 0)):
        with ClockSkewProxy(lockarch.endpoint or "", skew) as proxy:
            cfg = lockarch.write_config(merged(lockarch.settings, {"store": {"endpoint_url": proxy.url}}),
                                        tmp_path / "c.toml")
            ran = lockarch.run("doctor", "--json", config=cfg)
        assert ran.code == code, ran
        clock = next(c for c in ran.json()["checks"] if c["check"] == "clock")
        if skew:
            assert failing(ran.json()) == {"clock": clock["detail"]} and "behind the store" in clock["detail"]
        else:
            assert clock["status"] == "ok", clock


# ---------------------------------------------------------------- export and restore of a family

def test_export_md_and_html_of_a_session_with_subagents(fa: Arch, tmp_path: Path) -> None:
    c = fa.made["claude-code"]
    main = f"claude-code:{c.main}"
    subagents = {f"claude-code:{c.subagent}", f"claude-code:{c.forked_subagent}"}
    store, home = folder_objects(store_of(fa)), tree_bytes(fa.home)
    for fmt in ("md", "html"):
        out = tmp_path / f"review.{fmt}"
        ran = fa.run("export", main, "--format", fmt, "--out", str(out), "--json", identity=True)
        assert ran.code == 0, ran
        doc = ran.json()
        assert doc["sessions"] == sorted({main} | subagents, key=doc["sessions"].index) and doc["sessions"][0] == main
        assert set(doc["sessions"]) == {main} | subagents and doc["uses"] == []
        text = out.read_text()
        assert out.stat().st_mode & 0o777 == 0o600 and doc["bytes"] == len(text.encode())
        for key in {main} | subagents:
            anchor = "#s-" + key.replace(":", "-")
            assert key in text and anchor in text, (fmt, key)
        for leak in ("/home/alice", "alice", *c.secrets):
            assert leak not in text, (fmt, "a home path or planted secret")
        # the family outside the export is named, not linked
        assert f"claude-code:{c.fork}" in text and f"claude-code:{c.continuation}" in text
        if fmt == "html":
            assert "<script" not in text.lower() and "Content-Security-Policy" in text
        if fmt == "html":
            human = fa.run("export", main, "--format", fmt, "--out", str(out), identity=True)
            assert human.out.strip() == f"wrote {out} (3 session(s), {doc['entries']} entries)", human
    family = fa.run("export", main, "--format", "md", "--with-family", "--json", identity=True).json()
    assert set(family["sessions"]) == {main, f"claude-code:{c.fork}", f"claude-code:{c.continuation}"} | subagents
    assert folder_objects(store_of(fa)) == store and tree_bytes(fa.home) == home


def test_restore_with_family_and_all(fa: Arch, tmp_path: Path) -> None:
    c = fa.made["claude-code"]
    latest = ls_sessions(fa)
    store = folder_objects(store_of(fa))
    family = {f"claude-code:{x}" for x in (c.main, c.fork, c.continuation, c.subagent, c.forked_subagent)}
    lineage = fa.run("lineage", f"claude-code:{c.main}", "--json", identity=True).json()
    assert set(lineage["nodes"]) == family
    target = tmp_path / "fam"
    ran = fa.run("restore", f"claude-code:{c.subagent}", "--with-family", "--to", str(target), "--json", identity=True)
    assert ran.code == 0, ran
    doc = ran.json()
    assert set(doc) >= {"sessions", "files", "refused", "integrity_errors", "warnings", "skipped", "errors"}
    assert set(doc["sessions"]) == family and doc["refused"] == doc["integrity_errors"] == doc["errors"] == []
    check_restored(target, [latest[k] for k in family], plaintexts(store, fa.identity))
    assert not (target / ".codex").exists() and not (target / ".claude" / "history.jsonl").exists()
    everything = tmp_path / "all"
    ran = fa.run("restore", "--all", "--to", str(everything), "--json", identity=True)
    assert ran.code == 0, ran
    doc = ran.json()
    assert set(doc["sessions"]) == set(latest) and doc["skipped"] == [] and doc["integrity_errors"] == []
    check_restored(everything, list(latest.values()), plaintexts(store, fa.identity))
    one_line_error(fa.run("restore", "--to", str(tmp_path / "none"), "--json", identity=True), "--all")
    assert folder_objects(store_of(fa)) == store
