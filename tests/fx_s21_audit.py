"""The black-box audits' run (tests/test_s21_blackbox.py, test_s21_bbpi.py): a planted HOME
synced through the CLI to moto on 127.0.0.1, every object read back with the `age` and `zstd`
CLIs, and each top-level session restored with its family, as a reviewer would.

Import explicitly:  from tests.fx_s21_audit import AuditRun, audit_run
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.fx_s3 import REGION, make_bucket, s3_client, unique_bucket_name

ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
HARNESS_VARS = ("CLAUDE_CONFIG_DIR", "CLAUDE_CODE_PROJECT_DIR_NAME", "CODEX_HOME", "CURSOR_CONFIG_DIR",
                "CURSOR_DATA_DIR", "PI_CODING_AGENT_DIR", "PI_CODING_AGENT_SESSION_DIR", "XDG_DATA_HOME",
                "XDG_CONFIG_HOME", "XDG_STATE_HOME", "ARCHIVER_CONFIG", "ARCHIVER_TEAM_KEY", "ARCHIVER_IDENTITY_FILE")


@dataclass
class AuditRun:
    planted: Any  # the audit's own Planted (home, canaries, ids, sessions, top_level, ...)
    base: Path
    config: Path
    identity: Path
    bucket: str
    endpoint: str
    outputs: list[tuple[str, str]] = field(default_factory=list)  # (what, stdout+stderr)
    sync_code: int = -1
    sync_json: dict[str, Any] = field(default_factory=dict)
    ls: dict[str, Any] = field(default_factory=dict)
    lineage: dict[str, Any] = field(default_factory=dict)
    plaintexts: dict[str, bytes] = field(default_factory=dict)   # bucket key -> decrypted payload
    keys: list[str] = field(default_factory=list)
    metadata: dict[str, dict[str, str]] = field(default_factory=dict)
    restored: dict[str, Path] = field(default_factory=dict)      # top-level key -> restored HOME
    restore_codes: dict[str, int] = field(default_factory=dict)

    def cli(self, *args: str, what: str) -> subprocess.CompletedProcess[str]:
        env = {k: v for k, v in os.environ.items() if k not in HARNESS_VARS}
        env["HOME"] = str(self.planted.home)
        env["PYTHONPATH"] = str(Path(__file__).resolve().parents[1])
        proc = subprocess.run([sys.executable, "-m", "archiver", args[0], "--config", str(self.config), *args[1:]],
                              capture_output=True, text=True, env=env, timeout=120)
        self.outputs.append((what, proc.stdout + proc.stderr))
        return proc

    def object_owner(self, bucket_key: str) -> str:
        """Which session/artifact an object belongs to, for evidence."""
        oid = bucket_key.rsplit("/", 1)[-1]
        for s in self.ls.get("sessions", ()):
            for art in s.get("artifacts", ()):
                if oid in art.get("objects", ()):
                    return f"{s['key']} {art['path']}"
        return bucket_key

    def clean(self) -> None:
        if self.keys:
            s3_client(self.endpoint).delete_objects(Bucket=self.bucket,
                                                    Delete={"Objects": [{"Key": k} for k in self.keys]})


def unwrap(blob: bytes, identity: Path) -> bytes:
    """age -d | zstd -d, then zstd -d again while the payload is itself a zstd frame
    (a .jsonl.zst artifact)."""
    data = subprocess.run(["age", "-d", "-i", str(identity)], input=blob, capture_output=True, check=True).stdout
    while data[:4] == ZSTD_MAGIC:
        data = subprocess.run(["zstd", "-d", "-c", "-q"], input=data, capture_output=True, check=True).stdout
    return data


def json_or_empty(proc: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    try:
        return json.loads(proc.stdout)
    except json.JSONDecodeError:
        return {}


def audit_run(base: Path, planted: Any, user: str, s3_server: str, restore_keys: list[str]) -> AuditRun:
    """keygen, `sync --json -v`, `ls`, `lineage`, every bucket object decrypted with the CLIs, and
    `restore KEY --with-family` of each of `restore_keys` into its own folder under base/restored."""
    bucket = unique_bucket_name()
    make_bucket(s3_server, bucket)
    keys = base / "keys"
    r = AuditRun(planted=planted, base=base, config=base / "config.toml", identity=keys / "identity.txt",
                 bucket=bucket, endpoint=s3_server)
    r.config.write_text(
        f'home = "{planted.home}"\nhost = "laptop-of-{user}"\n\n'
        f'[redaction]\nteam_key_file = "{keys / "team.key"}"\nusernames = ["{user}"]\n\n'
        f'[encryption]\nrecipients_file = "{keys / "recipient.txt"}"\n\n'
        f'[store]\nurl = "s3://{bucket}/arch"\nendpoint_url = "{s3_server}"\nregion = "{REGION}"\n\n'
        f'[state]\ndir = "{base / "state"}"\n')
    assert r.cli("keygen", "--out", str(keys), what="keygen").returncode == 0

    sync = r.cli("sync", "--json", "-v", what="sync -v")
    r.sync_code = sync.returncode
    r.sync_json = json_or_empty(sync)
    r.ls = json_or_empty(r.cli("ls", "--json", "--identity", str(r.identity), what="ls"))
    r.lineage = json_or_empty(r.cli("lineage", "--json", "--identity", str(r.identity), what="lineage"))

    client = s3_client(s3_server)
    for page in client.get_paginator("list_objects_v2").paginate(Bucket=bucket):
        r.keys += [o["Key"] for o in page.get("Contents", ())]
    for key in r.keys:
        obj = client.get_object(Bucket=bucket, Key=key)
        r.metadata[key] = obj.get("Metadata", {})
        blob = obj["Body"].read()
        r.plaintexts[key] = blob if key.endswith("archiver.json") else unwrap(blob, r.identity)

    for key in restore_keys:
        to = base / "restored" / re.sub(r"[^A-Za-z0-9]", "_", key)
        proc = r.cli("restore", key, "--with-family", "--to", str(to), "--identity", str(r.identity),
                     what=f"restore {key}")
        r.restore_codes[key] = proc.returncode
        r.restored[key] = to
    return r
