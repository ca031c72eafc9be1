"""An archiver set-up for end-to-end tests: a generated HOME, keys, a config
pointing at a fresh moto bucket over HTTP on 127.0.0.1, and a CLI runner.

Import explicitly:  from tests.fx_archiver import env  (it pulls in the S3 fixtures)
"""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

import boto3
import pytest

from archiver.cli import main
from tests.fx_s3 import REGION, s3_bucket_url, s3_server  # noqa: F401  (fixtures)

USER = "alice"


@dataclass
class Env:
    base: Path
    home: Path
    keys: Path
    config: Path
    endpoint: str
    bucket: str
    prefix: str
    extra_config: str = ""
    samples: dict[str, Any] = field(default_factory=dict)

    @property
    def identity(self) -> Path:
        return self.keys / "identity.txt"

    def cli(self, *args: str, identity: bool = False) -> tuple[int, str]:
        argv = [args[0], "--config", str(self.config), *args[1:]]
        if identity:
            argv += ["--identity", str(self.identity)]
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            code = main(argv)
        return code, buf.getvalue()

    def cli_json(self, *args: str, identity: bool = False, expect: int | None = 0) -> Any:
        code, out = self.cli(*args, "--json", identity=identity)
        if expect is not None:
            assert code == expect, (code, out)
        return json.loads(out)

    def s3(self) -> Any:
        return boto3.client("s3", endpoint_url=self.endpoint, region_name=REGION)

    def keys_in_bucket(self) -> list[str]:
        out = []
        for page in self.s3().get_paginator("list_objects_v2").paginate(Bucket=self.bucket):
            out += [o["Key"] for o in page.get("Contents", ())]
        return out

    def raw_object(self, key: str) -> bytes:
        return self.s3().get_object(Bucket=self.bucket, Key=key)["Body"].read()

    def write_config(self, extra: str = "") -> None:
        self.extra_config = extra
        self.config.write_text(
            f'home = "{self.home}"\nhost = "laptop-of-{USER}"\n\n'
            f'[redaction]\nteam_key_file = "{self.keys / "team.key"}"\nusernames = ["{USER}"]\n\n'
            f'[encryption]\nrecipients_file = "{self.keys / "recipient.txt"}"\n\n'
            f'[store]\nurl = "s3://{self.bucket}/{self.prefix}"\nendpoint_url = "{self.endpoint}"\nregion = "{REGION}"\n\n'
            f'[state]\ndir = "{self.base / "state"}"\n' + extra
        )


def decrypt_with_cli(identity: Path, blob: bytes) -> bytes:
    """`age -d -i identity | zstd -d`: the archive read without this project."""
    age = subprocess.run(["age", "-d", "-i", str(identity)], input=blob, capture_output=True, check=True)
    return subprocess.run(["zstd", "-d", "-c"], input=age.stdout, capture_output=True, check=True).stdout


@pytest.fixture
def env(tmp_path: Path, s3_bucket_url: tuple[str, Any], monkeypatch: pytest.MonkeyPatch) -> Iterator[Env]:  # noqa: F811
    url, options = s3_bucket_url
    bucket, prefix = url[len("s3://"):].split("/", 1)
    monkeypatch.delenv("ARCHIVER_CONFIG", raising=False)
    monkeypatch.delenv("ARCHIVER_TEAM_KEY", raising=False)
    for var in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "CURSOR_CONFIG_DIR", "CURSOR_DATA_DIR", "PI_CODING_AGENT_DIR",
                "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "ARCHIVER_IDENTITY_FILE"):
        monkeypatch.delenv(var, raising=False)
    e = Env(base=tmp_path, home=tmp_path / "home", keys=tmp_path / "keys", config=tmp_path / "config.toml",
            endpoint=options.endpoint_url, bucket=bucket, prefix=prefix)
    e.home.mkdir()
    assert main(["keygen", "--out", str(e.keys)]) == 0
    e.write_config()
    yield e
