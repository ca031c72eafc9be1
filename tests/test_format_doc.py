"""docs/FORMAT.md's derivations, checked from outside: a store written by `archiver sync`
and `forget-session` is read back with hmac/hashlib and the real `age` and `zstd` CLIs only,
never with the project's own key or manifest code."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(*args: str, cwd: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    p = subprocess.run([sys.executable, "-m", "archiver", *args, "--json"], cwd=cwd, env=env,
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, (args, p.returncode, p.stderr[-2000:])
    return json.loads(p.stdout)


def decrypt(path: Path, identity: Path) -> bytes:
    a = subprocess.run(["age", "-d", "-i", str(identity), str(path)], capture_output=True, check=True)
    return subprocess.run(["zstd", "-d", "-q", "-c"], input=a.stdout, capture_output=True, check=True).stdout


def chain(segments: list[bytes]) -> str:
    if len(segments) <= 1:
        return hashlib.sha256(b"".join(segments)).hexdigest()
    d = hashlib.sha256(segments[0]).hexdigest()
    for seg in segments[1:]:
        d = hashlib.sha256((d + hashlib.sha256(seg).hexdigest()).encode()).hexdigest()
    return d


def test_store_matches_the_documented_derivations(tmp_path: Path) -> None:
    tmp_path.chmod(0o700)
    subprocess.run([sys.executable, str(ROOT / "bench" / "corpus.py"), "--out", str(tmp_path / "c"),
                    "--sessions", "12", "--seed", "3"], check=True, capture_output=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    home, keys, store = tmp_path / "c" / "home", tmp_path / "keys", tmp_path / "store"
    run("keygen", "--out", str(keys), cwd=tmp_path)
    cfg = tmp_path / "config.toml"
    cfg.write_text(f'home = "{home}"\nhost = "fmt-doc-host"\n\n[redaction]\nteam_key_file = "{keys / "team.key"}"\n'
                   f'usernames = ["alice"]\n\n[encryption]\nrecipients_file = "{keys / "recipient.txt"}"\n\n'
                   f'[store]\nurl = "file://{store}"\n\n[state]\ndir = "{tmp_path / "state"}"\n')
    run("sync", "--config", str(cfg), cwd=tmp_path)
    ds = sorted((home / ".claude" / "projects").glob("*/*.jsonl"))
    grown, forgotten = ds[0], ds[1]
    with grown.open("ab") as f:
        f.write(grown.read_bytes().splitlines(keepends=True)[-1])
    os.utime(grown, (os.stat(grown).st_mtime + 5,) * 2)
    run("sync", "--config", str(cfg), cwd=tmp_path)

    identity = keys / "identity.txt"
    team = bytes.fromhex((keys / "team.key").read_text().strip())  # §4: the hex-decoded 32 bytes
    k_obj = hmac.new(team, b"archiver/v1/object-id", hashlib.sha256).digest()
    k_host = hmac.new(team, b"archiver/v1/host-id", hashlib.sha256).digest()
    host_id = hmac.new(k_host, "fmt-doc-host".encode(), hashlib.sha256).hexdigest()[:16]

    assert [p.name for p in (store / "snapshots").iterdir()] == [host_id]
    keys_ = sorted((store / "snapshots" / host_id).iterdir())
    assert len(keys_) == 2
    manifests = [json.loads(decrypt(k, identity)) for k in keys_]
    for k, m in zip(keys_, manifests):
        assert m["format"] == "archiver/1" and m["host_id"] == host_id
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", m["created_at"])
        stamp = m["created_at"][:19].replace("-", "").replace(":", "") + "Z"
        assert re.fullmatch(re.escape(stamp) + r"-[0-9a-f]{8}\.json\.age", k.name)
    assert manifests[0]["created_at"] < manifests[1]["created_at"]

    segmented = 0
    for s in manifests[1]["sessions"]:
        assert s["host_id"] == host_id
        for a in s["artifacts"]:
            segs = []
            for oid in a["objects"]:
                pt = decrypt(store / "objects" / oid[:2] / oid, identity)
                assert hmac.new(k_obj, pt, hashlib.sha256).hexdigest() == oid
                if a["format"] == "jsonl":
                    assert pt.endswith(b"\n")  # §6.5
                segs.append(pt)
            assert len(b"".join(segs)) == a["size"]
            assert chain(segs) == a["sha256"]
            segmented += len(segs) > 1
    assert segmented >= 1  # the append became a second segment: the chain was exercised
    old = {(s["key"], a["path"]): a["objects"] for s in manifests[0]["sessions"] for a in s["artifacts"]}
    for s in manifests[1]["sessions"]:
        for a in s["artifacts"]:
            if a["format"] == "jsonl" and (s["key"], a["path"]) in old:
                assert a["objects"][:len(old[s["key"], a["path"]])] == old[s["key"], a["path"]]  # §6.4

    key = next(s["key"] for s in manifests[1]["sessions"] if s["key"].endswith(forgotten.stem))
    run("forget-session", key, "--grace", "0s", "--config", str(cfg), "--identity", str(identity), cwd=tmp_path)
    tomb = hmac.new(k_obj, b"tombstone\x00" + key.encode(), hashlib.sha256).hexdigest()
    tombs = list((store / "tombstones").iterdir())
    assert [t.name for t in tombs] == [tomb] and tombs[0].stat().st_size == 0  # §7: zero bytes
    for k in sorted((store / "snapshots" / host_id).iterdir()):
        assert key not in {s["key"] for s in json.loads(decrypt(k, identity))["sessions"]}
