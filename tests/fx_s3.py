"""S3 fixtures: moto's server over HTTP on 127.0.0.1, one fresh bucket per test.

Import explicitly in a test module:  from tests.fx_s3 import s3_server, s3_bucket_url

While the `s3_server` fixture is active the process environment holds dummy AWS
credentials and points the shared config files at nothing, so neither a real ~/.aws nor
the instance metadata service is ever consulted; everything is restored at session end.
"""

from __future__ import annotations

import functools
import logging
import uuid
from typing import Any, Iterator

import boto3
import pytest
from botocore.config import Config

from archiver.store import StoreOptions

REGION = "us-east-1"


@functools.lru_cache(maxsize=None)
def s3_client(endpoint: str) -> Any:
    """A plain boto3 S3 client for the moto endpoint (for setup and assertions); cached,
    since building a client costs ~0.2 s and clients are thread-safe."""
    return boto3.session.Session().client(
        "s3", endpoint_url=endpoint, region_name=REGION,
        config=Config(retries={"mode": "standard", "max_attempts": 2}),
    )


def make_bucket(endpoint: str, name: str, object_lock: bool = False) -> None:
    """Create bucket `name` on the endpoint; with object_lock it is created lock-enabled
    (which also turns on versioning)."""
    kwargs: dict[str, Any] = {"Bucket": name}
    if object_lock:
        kwargs["ObjectLockEnabledForBucket"] = True
    s3_client(endpoint).create_bucket(**kwargs)


def unique_bucket_name() -> str:
    return f"t-{uuid.uuid4().hex[:20]}"


@pytest.fixture(scope="session")
def s3_server() -> Iterator[str]:
    from moto.server import ThreadedMotoServer

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("AWS_ACCESS_KEY_ID", "testing")
        mp.setenv("AWS_SECRET_ACCESS_KEY", "testing")
        mp.setenv("AWS_DEFAULT_REGION", REGION)
        mp.setenv("AWS_CONFIG_FILE", "/nonexistent/aws-config")
        mp.setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent/aws-credentials")
        mp.setenv("AWS_EC2_METADATA_DISABLED", "true")
        for var in ("AWS_SESSION_TOKEN", "AWS_SECURITY_TOKEN", "AWS_PROFILE",
                    "AWS_DEFAULT_PROFILE", "AWS_ROLE_ARN", "AWS_WEB_IDENTITY_TOKEN_FILE",
                    "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3"):
            mp.delenv(var, raising=False)
        # never send loopback traffic through a proxy
        for var in ("NO_PROXY", "no_proxy"):
            mp.setenv(var, "127.0.0.1,localhost")
        logging.getLogger("werkzeug").setLevel(logging.WARNING)

        server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
        server.start()
        host, port = server.get_host_and_port()
        try:
            yield f"http://{host}:{port}"
        finally:
            server.stop()


@pytest.fixture
def s3_bucket_url(s3_server: str) -> Iterator[tuple[str, StoreOptions]]:
    """A fresh bucket: ("s3://<bucket>/<prefix>", StoreOptions(endpoint_url=..., region=...))."""
    name = unique_bucket_name()
    make_bucket(s3_server, name)
    yield f"s3://{name}/arch", StoreOptions(endpoint_url=s3_server, region=REGION)
    # free moto's memory; best effort (a test may have made the bucket undeletable)
    client = s3_client(s3_server)
    try:
        for page in client.get_paginator("list_objects_v2").paginate(Bucket=name):
            for obj in page.get("Contents", ()):
                client.delete_object(Bucket=name, Key=obj["Key"])
        client.delete_bucket(Bucket=name)
    except Exception:
        pass
