"""The CLI contract of /work/shared/DESIGN.md, README.md and docs/FORMAT.md checked from
outside: every command runs as `python -m archiver ...` in a subprocess against moto's S3
server on 127.0.0.1 or a file:// store, and the archive is read back with only `age`, `zstd`
and FORMAT.md (the reader below imports nothing from `archiver`)."""

from __future__ import annotations

import fcntl
import hashlib
import hmac
import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.fx_s3 import make_bucket, s3_client, s3_server, unique_bucket_name  # noqa: F401  (fixture)
from tests.fx_s25_contract import HARNESSES, HOST, Arch, Ran, build_arch, toml_dumps, tree_bytes
from tests.fx_s32_relinks import claude_relinked

KINDS = {"main", "subagent", "fork", "revert", "host"}
RELATIONS = {"subagent", "fork", "revert", "continuation"}
ROLES = {"transcript", "sidecar", "database", "blob", "index", "history"}
FORMATS = {"jsonl", "jsonl.zst", "sqlite", "json", "text", "git-object", "git-pack", "binary"}
HEX64 = re.compile(r"[0-9a-f]{64}")
MANIFEST_KEY = re.compile(r"snapshots/([0-9a-f]{16})/(\d{8}T\d{6}Z)-[0-9a-f]{8}\.json\.age")
CREATED_AT = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")
ANSI = "\x1b"


# ---------------------------------------------------------------- fixtures

@pytest.fixture(scope="module")
def s3arch(s3_server: str, tmp_path_factory: pytest.TempPathFactory) -> Arch:  # noqa: F811
    """Six harnesses synced once to a fresh moto bucket."""
    bucket = unique_bucket_name()
    make_bucket(s3_server, bucket)
    arch = build_arch(tmp_path_factory.mktemp("s25s3"), f"s3://{bucket}/team/arch", s3_server)
    arch.made["sync1"] = arch.run("sync", "--json")
    return arch


@pytest.fixture(scope="module")
def filearch(tmp_path_factory: pytest.TempPathFactory) -> Arch:
    """Claude Code and Codex synced once to a file:// store (damaged by the tests that use it
    only in copies)."""
    arch = build_arch(tmp_path_factory.mktemp("s25file"), harnesses=("claude-code", "codex"))
    ran = arch.run("sync", "--json")
    assert ran.code == 0, ran
    return arch


def bucket_and_prefix(arch: Arch) -> tuple[str, str]:
    bucket, prefix = arch.store_url[len("s3://"):].split("/", 1)
    return bucket, prefix.rstrip("/") + "/"


def bucket_objects(arch: Arch) -> dict[str, bytes]:
    """Every key under the archive's prefix (relative to it) with its stored bytes."""
    assert arch.endpoint
    client = s3_client(arch.endpoint)
    bucket, prefix = bucket_and_prefix(arch)
    out = {}
    for page in client.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix):
        for o in page.get("Contents", ()):
            out[o["Key"][len(prefix):]] = client.get_object(Bucket=bucket, Key=o["Key"])["Body"].read()
    return out


def folder_objects(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def one_line_error(ran: Ran, *needles: str) -> None:
    """A usage or config error: exit 2, nothing on stdout (even with --json), one line on stderr."""
    assert ran.code == 2, ran
    assert ran.out == "", ran
    lines = [ln for ln in ran.err.splitlines() if ln.strip()]
    assert len(lines) == 1, ran.err
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])


# ---------------------------------------------------------------- a reader that follows FORMAT.md

def age_zstd_decrypt(identity: Path, blob: bytes) -> bytes:
    """FORMAT.md §2: `age -d -i identity.txt OBJ | zstd -d`."""
    age = subprocess.run(["age", "-d", "-i", str(identity)], input=blob, capture_output=True, check=True)
    return subprocess.run(["zstd", "-d", "-c"], input=age.stdout, capture_output=True, check=True).stdout


def derived_key(team_key_file: Path, purpose: str) -> bytes:
    """FORMAT.md §4: HMAC-SHA256(hex-decoded team key, "archiver/v1/" + purpose)."""
    text = team_key_file.read_text()
    assert re.fullmatch(r"[0-9a-f]{64}\n", text), "team.key: 64 lowercase hex chars + newline"
    return hmac.new(bytes.fromhex(text.strip()), f"archiver/v1/{purpose}".encode(), hashlib.sha256).digest()


def sha256_chain(segments: list[bytes]) -> str:
    """FORMAT.md §5: one segment -> sha256; several -> d = sha256(hex(d) || hex(sha256(seg_i)))."""
    if not segments:
        return hashlib.sha256(b"").hexdigest()
    d = hashlib.sha256(segments[0]).hexdigest()
    for seg in segments[1:]:
        d = hashlib.sha256((d + hashlib.sha256(seg).hexdigest()).encode()).hexdigest()
    return d


def zstd_frame_flags(frame: bytes) -> tuple[bool, bool]:
    """(content checksum flag, decompressed size in the header) of one zstd frame (RFC 8878)."""
    assert frame[:4] == b"\x28\xb5\x2f\xfd", "not a zstd frame"
    fhd = frame[4]
    return bool(fhd & 0x04), bool(fhd >> 6) or bool(fhd & 0x20)


def read_archive(stored: dict[str, bytes], identity: Path, team_key: Path) -> dict[str, Any]:
    """List and decrypt everything by FORMAT.md; return the manifests and object plaintexts."""
    marker = json.loads(stored["archiver.json"])
    assert marker["format"] == "archiver/1"
    k_obj, k_host = derived_key(team_key, "object-id"), derived_key(team_key, "host-id")
    manifests, objects = {}, {}
    for key, blob in stored.items():
        if key == "archiver.json":
            continue
        if key.startswith("objects/"):
            _, aa, oid = key.split("/")
            assert HEX64.fullmatch(oid) and aa == oid[:2], key
            assert blob.startswith(b"age-encryption.org/v1\n-> X25519 "), f"{key}: not binary age with X25519"
            age_plain = subprocess.run(["age", "-d", "-i", str(identity)], input=blob, capture_output=True,
                                       check=True).stdout
            assert zstd_frame_flags(age_plain) == (True, True), f"{key}: zstd frame without checksum or size"
            plain = age_zstd_decrypt(identity, blob)
            assert hmac.new(k_obj, plain, hashlib.sha256).hexdigest() == oid, f"{key}: id is not HMAC(K_obj)"
            objects[oid] = plain
        elif key.startswith("snapshots/"):
            m = MANIFEST_KEY.fullmatch(key)
            assert m, key
            doc = json.loads(age_zstd_decrypt(identity, blob).decode("utf-8"))
            assert doc["host_id"] == m.group(1), key
            assert CREATED_AT.fullmatch(doc["created_at"]), doc["created_at"]
            stamp = doc["created_at"][:19].replace("-", "").replace(":", "") + "Z"
            assert stamp == m.group(2), (stamp, key)
            assert hmac.new(k_host, HOST.encode(), hashlib.sha256).hexdigest()[:16] == doc["host_id"]
            manifests[key] = doc
        else:
            assert re.fullmatch(r"tombstones/[0-9a-f]{64}", key) and blob == b"", key
    return {"manifests": manifests, "objects": objects}


def check_manifest(doc: dict[str, Any], objects: dict[str, bytes]) -> set[str]:
    """Every field FORMAT.md §5 promises; every file rebuilt and checked. Returns the ids named."""
    assert doc["format"] == "archiver/1"
    assert re.fullmatch(r"[0-9a-f]{16}", doc["run_id"]) and doc["tool_version"]
    assert isinstance(doc["redactions"], dict) and isinstance(doc["errors"], list)
    named: set[str] = set()
    for s in doc["sessions"]:
        assert s["key"] == f"{s['harness']}:{s['session_id']}"
        assert s["harness"] in HARNESSES and s["kind"] in KINDS
        assert (s["kind"] == "host") == s["session_id"].startswith("@"), s["key"]
        assert s["host_id"] == doc["host_id"] and s["archived_at"]
        assert isinstance(s["redactions"], dict) and isinstance(s["warnings"], list)
        assert all(u.split(":", 1)[1].startswith("@") for u in s.get("uses", []))
        for e in s["parents"]:
            assert e["relation"] in RELATIONS and isinstance(e["inferred"], bool) and "at" in e
        for a in s["artifacts"]:
            assert a["role"] in ROLES and a["format"] in FORMATS, a
            parts = a["path"].split("/")
            assert not a["path"].startswith("/") and ".." not in parts and "" not in parts, a["path"]
            segments = [objects[oid] for oid in a["objects"]]
            assert sum(map(len, segments)) == a["size"], a["path"]
            assert sha256_chain(segments) == a["sha256"], a["path"]
            assert isinstance(a["mtime"], (int, float)) and "shared" in a
            named.update(a["objects"])
    return named


def test_archive_reads_with_age_zstd_and_format_md_alone(s3arch: Arch) -> None:
    assert s3arch.made["sync1"].code == 0, s3arch.made["sync1"]
    stored = bucket_objects(s3arch)
    read = read_archive(stored, s3arch.identity, s3arch.keys / "team.key")
    assert len(read["manifests"]) == 1
    doc = next(iter(read["manifests"].values()))
    named = check_manifest(doc, read["objects"])
    assert named == set(read["objects"]), "a fresh archive holds exactly the objects its manifest names"
    assert {s["harness"] for s in doc["sessions"]} == set(HARNESSES)
    # no plaintext names in keys or metadata (FORMAT.md §1)
    for key in stored:
        assert "alice" not in key and HOST not in key
    client = s3_client(s3arch.endpoint)
    bucket, prefix = bucket_and_prefix(s3arch)
    for key in list(stored)[:20]:
        assert client.head_object(Bucket=bucket, Key=prefix + key).get("Metadata", {}) == {}, key
    # a transcript rebuilt by hand matches the session the CLI restores
    sid = s3arch.made["claude-code"].main
    session = next(s for s in doc["sessions"] if s["key"] == f"claude-code:{sid}")
    art = next(a for a in session["artifacts"] if a["role"] == "transcript")
    by_hand = b"".join(read["objects"][o] for o in art["objects"])
    hand = s3arch.base / "r-hand"
    ran = s3arch.run("restore", f"claude-code:{sid}", "--to", str(hand), identity=True)
    assert ran.code == 0, ran
    wrote = [p.relative_to(hand).as_posix() for p in hand.rglob("*") if p.is_file()]
    # (restore names the tool-results files it wrote with the transcript under its target)
    assert (hand / art["path"]).read_bytes() == claude_relinked(by_hand, hand, wrote)
    assert b"alice" not in by_hand


# ---------------------------------------------------------------- sync

def test_sync_json_document(s3arch: Arch) -> None:
    ran = s3arch.made["sync1"]
    assert ran.code == 0, ran
    doc = ran.json()
    for k in ("snapshot", "sessions", "bytes", "redactions", "errors", "forgotten", "objects_uploaded",
              "warnings", "session_warnings"):
        assert k in doc, k
    s = doc["sessions"]
    assert s["total"] == s["uploaded"] + s["unchanged"] + s["failed"] and s["uploaded"] > 0 and s["failed"] == 0
    assert set(doc["bytes"]) >= {"read", "uploaded"} and doc["bytes"]["uploaded"] > 0
    assert MANIFEST_KEY.fullmatch(doc["snapshot"]), doc["snapshot"]
    assert all(isinstance(n, int) and n > 0 for n in doc["redactions"].values())
    assert doc["errors"] == []


def test_second_sync_uploads_nothing(s3arch: Arch) -> None:
    before = bucket_objects(s3arch)
    ran = s3arch.run("sync", "--json")
    assert ran.code == 0, ran
    doc = ran.json()
    assert doc["snapshot"] is None and doc["bytes"]["uploaded"] == 0 and doc["objects_uploaded"] == 0
    assert doc["sessions"]["uploaded"] == 0 and doc["sessions"]["unchanged"] == doc["sessions"]["total"] > 0
    assert bucket_objects(s3arch) == before


def test_sync_dry_run_writes_nothing_and_previews_the_next_sync(filearch: Arch, tmp_path: Path) -> None:
    # cold: a state dir and a store that do not exist yet stay so
    cold = merged(filearch.settings, {"store": {"url": f"file://{tmp_path / 'store'}"},
                                      "state": {"dir": str(tmp_path / "state")}})
    cfg = filearch.write_config(cold, tmp_path / "cold.toml")
    before = tree_bytes(tmp_path)
    ran = filearch.run("sync", "--dry-run", "--json", config=cfg)
    assert ran.code == 0, ran
    assert ran.json()["sessions"]["uploaded"] == ran.json()["sessions"]["total"] > 0
    assert tree_bytes(tmp_path) == before, "a cold --dry-run wrote files"
    # after a sync and one appended line: nothing written, and the preview names the one change
    transcript = next((filearch.home / ".claude" / "projects").glob(f"*/{filearch.made['claude-code'].main}.jsonl"))
    with transcript.open("ab") as f:
        f.write(json.dumps({"type": "user", "uuid": "u-s25", "message": {"role": "user", "content": "more"}},
                           separators=(",", ":")).encode() + b"\n")
    before = tree_bytes(filearch.base)
    dry = filearch.run("sync", "--dry-run", "--json")
    assert dry.code == 0, dry
    assert tree_bytes(filearch.base) == before, "a --dry-run after an append wrote files"
    s = dry.json()["sessions"]
    assert (s["uploaded"], s["unchanged"]) == (1, s["total"] - 1), s


def test_lock_held_exits_0_skipped(filearch: Arch) -> None:
    filearch.state.mkdir(exist_ok=True)
    with open(filearch.state / "lock", "a+") as held:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        ran = filearch.run("sync", "--json")
    assert ran.code == 0, ran
    doc = ran.json()
    assert doc["skipped"] is True and doc["reason"]


def test_sync_store_unreachable_is_a_failed_run(filearch: Arch) -> None:
    settings = json.loads(json.dumps(filearch.settings))
    settings["store"] = {"url": "s3://nobucket/p", "endpoint_url": "http://127.0.0.1:9", "region": "us-east-1",
                         "max_attempts": 1}
    settings["state"]["dir"] = str(filearch.base / "state-unreachable")
    cfg = filearch.write_config(settings, filearch.base / "unreachable.toml")
    ran = filearch.run("sync", "--json", config=cfg)
    assert ran.code == 1, ran
    # scan reads nothing remote: the same config scans fine
    scan = filearch.run("scan", "--json", config=cfg)
    assert scan.code == 0, scan
    keys = [s["key"] for s in scan.json()["sessions"]]
    assert any(k.startswith("claude-code:") for k in keys) and any(k.startswith("codex:") for k in keys)


# ---------------------------------------------------------------- readers

def test_ls_json_and_plain_text(s3arch: Arch) -> None:
    ran = s3arch.run("ls", "--json", identity=True)
    assert ran.code == 0, ran
    doc = ran.json()
    assert set(doc) >= {"sessions", "errors", "at", "hosts_without_state", "notes"}
    keys = {s["key"] for s in doc["sessions"]}
    assert {k.split(":")[0] for k in keys} == set(HARNESSES)
    assert f"claude-code:{s3arch.made['claude-code'].main}" in keys
    for s in doc["sessions"]:
        assert set(s) >= {"key", "harness", "session_id", "kind", "title", "created_at", "updated_at",
                          "artifacts", "parents", "redactions", "warnings", "cwd", "host_id"}
    human = s3arch.run("ls", identity=True)
    assert human.code == 0 and ANSI not in human.out, human
    assert f"claude-code:{s3arch.made['claude-code'].main}" in human.out


def test_lineage_json_and_family(s3arch: Arch) -> None:
    doc = s3arch.run("lineage", "--json", identity=True).json()
    assert set(doc) >= {"nodes", "edges", "host_sessions", "uses", "errors"}
    nodes = set(doc["nodes"])
    for e in doc["edges"]:
        assert set(e) >= {"child", "parent", "relation", "inferred", "at"}
        assert e["relation"] in RELATIONS and e["child"] in nodes
    c = s3arch.made["claude-code"]
    got = {(e["child"], e["relation"]) for e in doc["edges"] if e["parent"] == f"claude-code:{c.main}"}
    assert got >= {(f"claude-code:{c.fork}", "fork"), (f"claude-code:{c.continuation}", "continuation"),
                   (f"claude-code:{c.subagent}", "subagent")}
    fam = s3arch.run("lineage", c.main[:8], identity=True)
    assert fam.code == 0 and ANSI not in fam.out and c.fork in fam.out and "codex:" not in fam.out, fam


def test_verify_and_snapshots(s3arch: Arch) -> None:
    ran = s3arch.run("verify", "--read-data", "--json", identity=True)
    assert ran.code == 0, ran
    doc = ran.json()
    assert set(doc) >= {"manifests", "objects", "objects_read", "tombstones", "ok", "errors", "notes"}
    assert doc["ok"] is True and doc["objects_read"] == doc["objects"] > 0 and doc["manifests"] >= 1
    snaps = s3arch.run("snapshots", "--json", identity=True).json()["snapshots"]
    assert snaps and all(set(s) >= {"host_id", "created_at", "sessions", "bytes", "key", "manifest_bytes"}
                         for s in snaps)


def test_verify_missing_object_exits_3_naming_the_session(filearch: Arch, tmp_path: Path) -> None:
    store = tmp_path / "store"
    shutil.copytree(Path(filearch.store_url[len("file://"):]), store)
    settings = json.loads(json.dumps(filearch.settings))
    settings["store"]["url"] = f"file://{store}"
    cfg = filearch.write_config(settings, tmp_path / "c.toml")
    manifest = json.loads(age_zstd_decrypt(filearch.identity, next(store.glob("snapshots/*/*.json.age")).read_bytes()))
    victim = next(s for s in manifest["sessions"] if s["key"].startswith("codex:") and s["artifacts"][0]["objects"])
    oid = victim["artifacts"][0]["objects"][0]
    (store / "objects" / oid[:2] / oid).unlink()
    ran = filearch.run("verify", "--json", config=cfg, identity=True)
    assert ran.code == 3, ran
    doc = ran.json()
    assert doc["ok"] is False and any(victim["key"] in e for e in doc["errors"]), doc["errors"]


def test_export_md_json(s3arch: Arch) -> None:
    sid = s3arch.made["claude-code"].main
    out = s3arch.base / "review.md"
    ran = s3arch.run("export", f"claude-code:{sid}", "--format", "md", "--out", str(out), "--json", identity=True)
    assert ran.code == 0, ran
    doc = ran.json()
    assert set(doc) >= {"out", "format", "sessions", "uses", "entries", "bytes", "integrity_errors", "warnings",
                        "errors"}
    assert doc["format"] == "md" and doc["out"] == str(out) and doc["bytes"] == out.stat().st_size
    text = out.read_text()
    assert sid in text and "alice" not in text
    inline = s3arch.run("export", f"claude-code:{sid}", "--format", "md", "--json", identity=True).json()
    stamp = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")  # when the document was made
    assert stamp.sub("T", inline["document"]) == stamp.sub("T", text)


# ---------------------------------------------------------------- restore

def test_restore_relocated_to_another_project_path(s3arch: Arch) -> None:
    c = s3arch.made["claude-code"]
    ls = s3arch.run("ls", "--json", identity=True).json()
    cwd = next(s["cwd"] for s in ls["sessions"] if s["key"] == f"claude-code:{c.main}")
    assert cwd and "alice" not in cwd and cwd.endswith("/work/app")
    target = s3arch.base / "r-reloc"
    new = "/home/bob/src/app"
    ran = s3arch.run("restore", f"claude-code:{c.main}", "--to", str(target), "--relocate", f"{cwd}={new}",
                     "--json", identity=True)
    assert ran.code == 0, ran
    projects = target / ".claude" / "projects"
    assert sorted(p.name for p in projects.iterdir()) == ["-home-bob-src-app"]
    body = (projects / "-home-bob-src-app" / f"{c.main}.jsonl").read_bytes()
    assert f'"cwd":"{new}"'.encode() in body and cwd.encode() not in body


def test_restore_refuses_target_escape(filearch: Arch, tmp_path: Path) -> None:
    """A crafted manifest (written with only age and zstd) naming paths out of the target."""
    store = tmp_path / "store"
    shutil.copytree(Path(filearch.store_url[len("file://"):]), store)
    old = next(store.glob("snapshots/*/*.json.age"))
    doc = json.loads(age_zstd_decrypt(filearch.identity, old.read_bytes()))
    victim = next(s for s in doc["sessions"] if s["key"].startswith("claude-code:") and s["kind"] == "main")
    good = victim["artifacts"][0]
    victim["artifacts"] += [dict(good, path="../escaped.jsonl"), dict(good, path=".claude/../../escaped2.jsonl"),
                            dict(good, path=".bashrc"), dict(good, path="/tmp/abs-escape.jsonl")]
    doc["created_at"] = "2999" + doc["created_at"][4:]  # a later year: the newest manifest
    stamp = doc["created_at"][:19].replace("-", "").replace(":", "") + "Z"
    plain = json.dumps(doc).encode()
    zst = subprocess.run(["zstd", "-c", "-q"], input=plain, capture_output=True, check=True).stdout
    recipient = (filearch.keys / "recipient.txt").read_text().split()[0]
    enc = subprocess.run(["age", "-r", recipient], input=zst, capture_output=True, check=True).stdout
    (old.parent / f"{stamp}-0badc0de.json.age").write_bytes(enc)
    settings = json.loads(json.dumps(filearch.settings))
    settings["store"]["url"] = f"file://{store}"
    cfg = filearch.write_config(settings, tmp_path / "c.toml")
    target = tmp_path / "t" / "home"
    target.mkdir(parents=True)
    ran = filearch.run("restore", victim["key"], "--to", str(target), "--json", config=cfg, identity=True)
    assert ran.code == 3, ran
    assert sorted(p.name for p in (tmp_path / "t").iterdir()) == ["home"]
    assert not (target / ".bashrc").exists() and not Path("/tmp/abs-escape.jsonl").exists()
    out = ran.json()
    assert len(out["refused"]) >= 4, out["refused"]
    assert (target / good["path"]).is_file()  # the session's own files are restored


def test_restore_conflict_needs_overwrite_and_dry_tree_is_kept(filearch: Arch, tmp_path: Path) -> None:
    target = tmp_path / "home"
    sid = filearch.made["claude-code"].main
    assert filearch.run("restore", f"claude-code:{sid}", "--to", str(target), identity=True).code == 0
    transcript = next(target.glob(f".claude/projects/*/{sid}.jsonl"))
    restored = transcript.read_bytes()
    transcript.write_bytes(b'{"edited":true}\n')
    ran = filearch.run("restore", f"claude-code:{sid}", "--to", str(target), "--json", identity=True)
    assert ran.code == 3, ran
    assert transcript.read_bytes() == b'{"edited":true}\n'
    ran = filearch.run("restore", f"claude-code:{sid}", "--to", str(target), "--overwrite", identity=True)
    assert ran.code == 0 and transcript.read_bytes() == restored, ran


# ---------------------------------------------------------------- usage, config, keys, env

def test_keygen_files_and_refusal(tmp_path: Path, filearch: Arch) -> None:
    out = tmp_path / "k"
    ran = filearch.run("keygen", "--out", str(out), "--json", config=False)
    assert ran.code == 0, ran
    doc = ran.json()
    assert doc["recipient"].startswith("age1")
    assert re.fullmatch(r"AGE-SECRET-KEY-1[0-9A-Z]+", [ln for ln in (out / "identity.txt").read_text().splitlines()
                                                       if not ln.startswith("#")][0])
    assert (out / "recipient.txt").read_text().split()[0] == doc["recipient"]
    assert re.fullmatch(r"[0-9a-f]{64}\n", (out / "team.key").read_text())
    for name in ("identity.txt", "recipient.txt", "team.key"):
        assert (out / name).stat().st_mode & 0o777 == 0o600, name
    before = tree_bytes(out)
    again = filearch.run("keygen", "--out", str(out), "--json", config=False)
    one_line_error(again, "--force")
    assert tree_bytes(out) == before


@pytest.mark.parametrize("args", [["bogus"], ["ls", "--nope"], ["restore", "x"], ["export"]])
def test_usage_errors_exit_2_without_json(filearch: Arch, args: list[str]) -> None:
    ran = filearch.run(*args, "--json", identity=args[0] != "bogus")
    assert ran.code == 2 and ran.out == "", ran


BAD_VALUES = [
    ({"bogus_key": 1}, "bogus_key"),
    ({"harnesses": {"claude-code": {"enabled": "maybe"}}}, "harnesses.claude-code.enabled"),
    ({"redaction": {"fail_closed": "perhaps"}}, "redaction.fail_closed"),
    ({"redaction": {"presidio": {"score_threshold": "high"}}}, "redaction.presidio.score_threshold"),
    ({"store": {"url": "ftp://x/y"}}, "store.url"),
    ({"store": {"sse": "rot13"}}, "store.sse"),
    ({"store": {"object_lock_mode": "FOREVER"}}, "store.object_lock_mode"),
    ({"state": {"dir": 5}}, "state.dir"),
    ({"redaction": {"rules": ["builtin:nosuch"]}}, "redaction.rules"),
]
# checked when the run starts, after the file loaded: the key is named, the file is not
# (README: "exits 2 with a message naming it"; existing tests pin these messages)
KEY_ONLY = {"redaction.rules"}


def merged(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = json.loads(json.dumps(base))
    for k, v in over.items():
        out[k] = merged(out.get(k, {}), v) if isinstance(v, dict) else v
    return out


def test_bad_config_values_name_key_and_file(filearch: Arch, tmp_path: Path) -> None:
    """Each wrong value: exit 2, one stderr line naming the key and the file, no JSON on stdout."""
    failures = []
    for i, (over, needle) in enumerate(BAD_VALUES):
        cfg = filearch.write_config(merged(filearch.settings, over), tmp_path / f"bad{i}.toml")
        ran = filearch.run("sync", "--json", config=cfg)
        try:
            one_line_error(ran, needle, *(() if needle in KEY_ONLY else (str(cfg),)))
        except AssertionError:
            failures.append((needle, ran.code, ran.out[:200], ran.err[-300:]))
    assert not failures, failures


def test_bad_inline_recipient_is_a_config_error(filearch: Arch, tmp_path: Path) -> None:
    cfg = filearch.write_config(merged(filearch.settings, {"encryption": {"recipients": ["age1notakey"]}}),
                                tmp_path / "badrcpt.toml")
    one_line_error(filearch.run("sync", "--json", config=cfg), "encryption.recipients")


def test_every_documented_key_accepted_with_its_default(filearch: Arch, tmp_path: Path) -> None:
    """config.example.toml, as shipped plus the paths of this set-up, is a working config."""
    example = (Path(__file__).resolve().parent.parent / "config.example.toml").read_text()
    example = example.replace('url = ""', f'url = "{filearch.store_url}"')
    example = example.replace('team_key_file = "keys/team.key"', f'team_key_file = "{filearch.keys / "team.key"}"')
    example = example.replace('recipients_file = "keys/recipient.txt"',
                              f'recipients_file = "{filearch.keys / "recipient.txt"}"')
    example = f'home = "{filearch.home}"\nhost = "{HOST}"\n' + example
    example = example.replace("# dir = \"~/.local/state/archiver\"", f'dir = "{tmp_path / "state"}"')
    cfg = tmp_path / "example.toml"
    cfg.write_text(example)
    ran = filearch.run("doctor", "--json", config=cfg)
    assert ran.code == 0, ran
    checks = {c["check"]: c for c in ran.json()["checks"]}
    assert checks["config"]["status"] == "ok"
    scan = filearch.run("scan", "--json", config=cfg)  # every harness enabled by default
    assert scan.code == 0 and {s["key"].split(":")[0] for s in scan.json()["sessions"]} == set(HARNESSES), scan


def test_missing_team_key_and_recipients_exit_2(filearch: Arch, tmp_path: Path) -> None:
    for section, key, name in (("redaction", "team_key_file", "team.key"),
                               ("encryption", "recipients_file", "recipient.txt")):
        missing = tmp_path / f"gone-{name}"
        cfg = filearch.write_config(merged(filearch.settings, {section: {key: str(missing)}}), tmp_path / f"{name}.toml")
        ran = filearch.run("sync", "--json", config=cfg)
        one_line_error(ran, str(missing))
    one_line_error(filearch.run("ls", "--json"), "--identity")
    one_line_error(filearch.run("ls", "--json", "--identity", str(tmp_path / "nope.txt")), "nope.txt")


def test_environment_overrides(filearch: Arch, tmp_path: Path) -> None:
    # ARCHIVER_CONFIG names the config when --config is absent; ARCHIVER_IDENTITY_FILE the identity
    env = {"ARCHIVER_CONFIG": str(filearch.config), "ARCHIVER_IDENTITY_FILE": str(filearch.identity)}
    ran = filearch.run("ls", "--json", config=False, env=env)
    assert ran.code == 0 and ran.json()["sessions"], ran
    # ARCHIVER_STORE__URL wins over the file: an empty folder holds no archive -> exit 2 naming it
    empty = tmp_path / "empty"
    empty.mkdir()
    ran = filearch.run("ls", "--json", identity=True, env={"ARCHIVER_STORE__URL": f"file://{empty}"})
    one_line_error(ran, "no archive", str(empty))
    assert list(empty.iterdir()) == []
    # a wrong value from the environment names the variable's key
    ran = filearch.run("sync", "--json", env={"ARCHIVER_REDACTION__FAIL_CLOSED": "perhaps"})
    one_line_error(ran, "fail_closed")


def test_config_before_and_after_the_command(filearch: Arch, tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    other = filearch.write_config(merged(filearch.settings, {"store": {"url": f"file://{empty}"}}), tmp_path / "o.toml")
    # given on both sides, the one after the command wins
    after_wins = filearch.run("--config", str(other), "ls", "--json", config=filearch.config, identity=True)
    assert after_wins.code == 0, after_wins
    before_only = filearch.run("--config", str(other), "ls", "--json", config=False, identity=True)
    assert before_only.code == 2 and before_only.out == "", before_only


def test_redact_file_json(filearch: Arch) -> None:
    history = filearch.home / ".claude" / "history.jsonl"
    ran = filearch.run("redact", str(history), "--json")
    assert ran.code == 0, ran
    doc = ran.json()
    assert set(doc) >= {"file", "format", "redactions", "output", "output_base64"}
    assert doc["format"] == "jsonl" and doc["output_base64"] is None
    assert "/home/alice" in history.read_text() and "alice" not in doc["output"]
    assert all(json.loads(line) for line in doc["output"].splitlines())


def test_status_and_doctor(filearch: Arch) -> None:
    st = filearch.run("status", "--json")
    assert st.code == 0, st
    doc = st.json()
    # (the bad configs above name this state dir: their aborted runs are the last ones)
    assert doc["running"] is False and doc["last_success"] and doc["runs_recorded"] >= 1
    dr = filearch.run("doctor", "--json")
    assert dr.code == 0 and dr.json()["ok"] is True, dr
    bad = filearch.write_config(merged(filearch.settings, {"store": {"url": f"file://{filearch.config}/x"}}),
                                filearch.base / "doctor-bad.toml")
    assert filearch.run("doctor", "--json", config=bad).code == 2
    human = filearch.run("doctor")
    assert ANSI not in human.out


def test_prune_dry_run_changes_nothing(filearch: Arch) -> None:
    store = Path(filearch.store_url[len("file://"):])
    before = folder_objects(store)
    one_line_error(filearch.run("prune", "--json", identity=True), "--keep")
    ran = filearch.run("prune", "--keep-last", "1", "--dry-run", "--json", identity=True)
    assert ran.code == 0, ran
    assert ran.json()["dry_run"] is True
    assert folder_objects(store) == before
