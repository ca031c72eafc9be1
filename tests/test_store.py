"""The blob-store layer against moto's S3 server over HTTP (127.0.0.1) and file://."""

from __future__ import annotations

import hashlib
import http.client
import logging
import os
import random
import shutil
import stat
import tempfile
import time
from dataclasses import replace
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Iterator, cast

import pytest
from botocore.exceptions import ClientError

from archiver.store import (
    LocalStore,
    LoggingStore,
    NotFound,
    ObjectInfo,
    ObjectStore,
    Retention,
    RetryingStore,
    S3Store,
    StoreError,
    StoreOptions,
    open_backend,
    open_store,
)
from tests.fx_s3 import (  # noqa: F401  (fixtures)
    REGION,
    make_bucket,
    s3_bucket_url,
    s3_client,
    s3_server,
    unique_bucket_name,
)

MiB = 1024 * 1024


# -- fixtures -------------------------------------------------------------------------------


@pytest.fixture
def private_dir() -> Iterator[Path]:
    d = Path(tempfile.mkdtemp(prefix="archiver-test-store-"))  # mode 0700
    try:
        yield d
    finally:
        shutil.rmtree(d)


@pytest.fixture(params=["s3", "file"])
def store(request: pytest.FixtureRequest, private_dir: Path) -> ObjectStore:
    if request.param == "s3":
        url, opts = request.getfixturevalue("s3_bucket_url")
        return open_store(url, opts)
    return open_store((private_dir / "store").as_uri())


@pytest.fixture
def s3(s3_bucket_url: tuple[str, StoreOptions]) -> ObjectStore:
    url, opts = s3_bucket_url
    return open_store(url, opts)


def backend(store: ObjectStore) -> Any:
    while hasattr(store, "inner"):
        store = store.inner  # type: ignore[attr-defined]
    return store


def raw_head(store: ObjectStore, key: str) -> dict[str, Any]:
    b = backend(store)
    return cast(dict[str, Any], b.client.head_object(Bucket=b.bucket, Key=b.prefix + key))


def write_random(path: Path, size: int, seed: int = 1) -> bytes:
    data = random.Random(seed).randbytes(size)
    path.write_bytes(data)
    return data


def client_error(code: str, status: int, op: str = "PutObject") -> ClientError:
    return ClientError({"Error": {"Code": code, "Message": f"injected {code}"},
                        "ResponseMetadata": {"HTTPStatusCode": status}}, op)


# -- round trips (both backends) ------------------------------------------------------------


def test_bytes_round_trip(store: ObjectStore) -> None:
    data = b"\x00secret-ish payload\xff" * 1000
    assert store.put_bytes("objects/ab/abcdef", data) is True
    assert store.get_bytes("objects/ab/abcdef") == data
    assert store.get_bytes("objects/ab/abcdef", max_size=len(data)) == data
    with store.open_read("objects/ab/abcdef") as f:
        chunks = iter(lambda: f.read(777), b"")
        assert b"".join(chunks) == data
    info = store.head("objects/ab/abcdef")
    assert info is not None
    assert (info.key, info.size) == ("objects/ab/abcdef", len(data))
    assert info.last_modified.tzinfo is not None
    assert abs(info.last_modified - datetime.now(timezone.utc)) < timedelta(minutes=5)
    if isinstance(backend(store), S3Store):
        assert info.etag == hashlib.md5(data).hexdigest()


def test_get_bytes_over_limit_is_not_found_nor_transient(store: ObjectStore) -> None:
    store.put_bytes("big", b"x" * 100)
    with pytest.raises(StoreError) as ei:
        store.get_bytes("big", max_size=99)
    assert not isinstance(ei.value, NotFound)
    assert not ei.value.transient
    assert ei.value.key == "big" and "'big'" in str(ei.value)


def test_file_round_trip(store: ObjectStore, private_dir: Path) -> None:
    src = private_dir / "src.bin"
    data = write_random(src, 300_000)
    store.put_file("objects/cd/cdef", src, content_type="application/age")
    dst = private_dir / "out" / "dst.bin"
    dst.parent.mkdir()
    store.get_file("objects/cd/cdef", dst)
    assert dst.read_bytes() == data
    assert stat.S_IMODE(dst.stat().st_mode) == 0o600
    assert sorted(p.name for p in dst.parent.iterdir()) == ["dst.bin"]  # no temp left
    store.put_file("objects/cd/cdef", src)  # overwrite is fine
    assert store.get_bytes("objects/cd/cdef") == data


def test_exists_head_list(store: ObjectStore) -> None:
    keys = [f"objects/{i % 4:02x}/{i:04d}" for i in range(26)] + [
        "snapshots/h1/a.json.age", "snapshots/h1/b.json.age", "snapshots/h2/c.json.age",
        "archiver.json"]
    for k in reversed(keys):
        store.put_bytes(k, k.encode())
    assert store.exists("archiver.json") and not store.exists("archiver.jso")
    assert store.head("objects") is None  # a "directory" is not an object
    listed = list(store.list())
    assert [i.key for i in listed] == sorted(keys)
    assert all(i.size == len(i.key) for i in listed)
    assert [i.key for i in store.list("snapshots/")] == [
        "snapshots/h1/a.json.age", "snapshots/h1/b.json.age", "snapshots/h2/c.json.age"]
    assert [i.key for i in store.list("snapshots/h1/b")] == ["snapshots/h1/b.json.age"]
    assert len(list(store.list("objects/01/"))) == 7
    assert list(store.list("nothing/")) == []


def test_delete_and_not_found(store: ObjectStore, private_dir: Path) -> None:
    store.put_bytes("objects/ef/ef01", b"data")
    store.delete("objects/ef/ef01")
    store.delete("objects/ef/ef01")  # idempotent
    assert not store.exists("objects/ef/ef01")
    assert store.head("objects/ef/ef01") is None
    for call in (lambda: store.get_bytes("objects/ef/ef01"),
                 lambda: store.open_read("objects/ef/ef01"),
                 lambda: store.get_retention("objects/ef/ef01"),
                 lambda: store.get_file("objects/ef/ef01", private_dir / "never")):
        with pytest.raises(NotFound) as ei:
            call()
        assert ei.value.key == "objects/ef/ef01" and "objects/ef/ef01" in str(ei.value)
        assert not ei.value.transient
    assert [p.name for p in private_dir.iterdir() if p.name != "store"] == []  # no temp left


def test_if_absent(store: ObjectStore) -> None:
    assert store.put_bytes("archiver.json", b"first", if_absent=True) is True
    assert store.put_bytes("archiver.json", b"second", if_absent=True) is False
    assert store.get_bytes("archiver.json") == b"first"
    assert store.put_bytes("archiver.json", b"third") is True
    assert store.get_bytes("archiver.json") == b"third"


@pytest.mark.parametrize("bad", ["", "../x", "a/../../x", "/etc/passwd", "a\\b", "a//b", "./a",
                                 "a/", "a/.", "line\nbreak"])
def test_invalid_keys_rejected(store: ObjectStore, bad: str) -> None:
    with pytest.raises(StoreError) as ei:
        store.put_bytes(bad, b"x")
    assert ei.value.key == bad and not ei.value.transient
    with pytest.raises(StoreError):
        store.get_bytes(bad)


def test_no_retention_on_plain_object(store: ObjectStore) -> None:
    store.put_bytes("k", b"v")
    assert store.get_retention("k") is None


def test_open_store_is_an_object_store(store: ObjectStore) -> None:
    assert isinstance(store, ObjectStore)
    assert isinstance(store, RetryingStore) and isinstance(store.inner, LoggingStore)
    assert "://" in store.describe()


# -- S3 specifics ---------------------------------------------------------------------------


def test_multipart_upload_and_download(s3_bucket_url: tuple[str, StoreOptions],
                                       private_dir: Path) -> None:
    url, opts = s3_bucket_url
    store = open_store(url, replace(opts, multipart_threshold=5 * MiB, multipart_chunksize=5 * MiB))
    src = private_dir / "big.bin"
    data = write_random(src, 12 * MiB, seed=7)
    store.put_file("objects/12/big", src)
    info = store.head("objects/12/big")
    assert info is not None and info.size == 12 * MiB
    assert info.etag is not None and info.etag.endswith("-3")  # 5 + 5 + 2 MiB parts
    dst = private_dir / "big.out"
    store.get_file("objects/12/big", dst)
    assert hashlib.sha256(dst.read_bytes()).digest() == hashlib.sha256(data).digest()

    small = private_dir / "small.bin"
    write_random(small, MiB)
    store.put_file("objects/01/small", small)
    small_info = store.head("objects/01/small")
    assert small_info is not None and small_info.etag is not None and "-" not in small_info.etag


def test_no_metadata_written(s3: ObjectStore, private_dir: Path) -> None:
    src = private_dir / "alice-secret-project.jsonl"
    src.write_bytes(b"{}\n")
    s3.put_file("objects/aa/1", src)
    s3.put_bytes("objects/aa/2", b"x")
    for key in ("objects/aa/1", "objects/aa/2"):
        h = raw_head(s3, key)
        assert h["Metadata"] == {}
        assert "alice" not in repr(h)


def test_list_pagination(s3_bucket_url: tuple[str, StoreOptions]) -> None:
    url, opts = s3_bucket_url
    store = open_store(url, replace(opts, list_page_size=7))
    b = backend(store)
    keys = [f"objects/{i:02x}/{i:08x}" for i in range(30)]
    for k in keys:
        store.put_bytes(k, b"")
    b.client.put_object(Bucket=b.bucket, Key="outside-prefix", Body=b"")
    b.client.put_object(Bucket=b.bucket, Key="archx/not-ours", Body=b"")
    calls: list[dict[str, Any]] = []
    store.client.meta.events.register(  # forwarded to the backend through the wrappers
        "before-parameter-build.s3.ListObjectsV2", lambda params, **_: calls.append(dict(params)))
    assert [i.key for i in store.list()] == keys
    assert len(calls) == 5  # ceil(30 / 7)
    assert all(c["MaxKeys"] == 7 and c["Prefix"] == "arch/" for c in calls)


def test_not_found_mapping_and_missing_bucket(s3_server: str) -> None:
    opts = StoreOptions(endpoint_url=s3_server, region=REGION)
    store = open_store(f"s3://{unique_bucket_name()}/p", opts)
    with pytest.raises(StoreError) as ei:
        store.get_bytes("k")
    assert not isinstance(ei.value, NotFound)  # NoSuchBucket is a config error, not "missing"
    assert "NoSuchBucket" in str(ei.value) and ei.value.key == "k" and not ei.value.transient


def test_sse_aes256(s3_bucket_url: tuple[str, StoreOptions], private_dir: Path) -> None:
    url, opts = s3_bucket_url
    store = open_store(url, replace(opts, sse="AES256"))
    store.put_bytes("a", b"x")
    src = private_dir / "f"
    src.write_bytes(b"y" * 1000)
    store.put_file("b", src)
    for key in ("a", "b"):
        assert raw_head(store, key)["ServerSideEncryption"] == "AES256"


def test_sse_kms(s3_server: str, s3_bucket_url: tuple[str, StoreOptions]) -> None:
    import boto3

    kms = boto3.session.Session().client("kms", endpoint_url=s3_server, region_name=REGION)
    key_id = kms.create_key()["KeyMetadata"]["KeyId"]
    url, opts = s3_bucket_url
    store = open_store(url, replace(opts, sse="aws:kms", kms_key_id=key_id))
    store.put_bytes("a", b"x")
    h = raw_head(store, "a")
    assert h["ServerSideEncryption"] == "aws:kms"
    assert key_id in h["SSEKMSKeyId"]


def test_storage_class(s3_bucket_url: tuple[str, StoreOptions], private_dir: Path) -> None:
    url, opts = s3_bucket_url
    store = open_store(url, replace(opts, storage_class="STANDARD_IA",
                                    multipart_threshold=5 * MiB, multipart_chunksize=5 * MiB))
    store.put_bytes("a", b"x")
    src = private_dir / "f"
    write_random(src, 6 * MiB)
    store.put_file("b", src)  # multipart: the class goes on CreateMultipartUpload
    for key in ("a", "b"):
        assert raw_head(store, key)["StorageClass"] == "STANDARD_IA"


def test_object_lock_retention_and_legal_hold(s3_server: str, private_dir: Path) -> None:
    bucket = unique_bucket_name()
    make_bucket(s3_server, bucket, object_lock=True)
    opts = StoreOptions(endpoint_url=s3_server, region=REGION, object_lock_mode="GOVERNANCE",
                        object_lock_days=2, multipart_threshold=5 * MiB,
                        multipart_chunksize=5 * MiB)
    store = open_store(f"s3://{bucket}/locked", opts)
    before = datetime.now(timezone.utc)
    store.put_bytes("objects/aa/1", b"x")
    ret = store.get_retention("objects/aa/1")
    assert ret is not None and ret.mode == "GOVERNANCE" and ret.legal_hold is False
    assert ret.until is not None
    assert before + timedelta(days=2) - timedelta(minutes=5) <= ret.until
    assert ret.until <= datetime.now(timezone.utc) + timedelta(days=2, minutes=5)
    client = s3_client(s3_server)
    # (moto's server does not implement GetObjectRetention; HEAD carries the same state)
    raw = client.head_object(Bucket=bucket, Key="locked/objects/aa/1")
    assert raw["ObjectLockMode"] == "GOVERNANCE"
    assert raw["ObjectLockRetainUntilDate"] == ret.until

    store.set_legal_hold("objects/aa/1", True)
    ret = store.get_retention("objects/aa/1")
    assert ret is not None and ret.legal_hold is True
    assert client.get_object_legal_hold(
        Bucket=bucket, Key="locked/objects/aa/1")["LegalHold"]["Status"] == "ON"
    store.set_legal_hold("objects/aa/1", False)
    ret = store.get_retention("objects/aa/1")
    assert ret is not None and ret.legal_hold is False and ret.mode == "GOVERNANCE"

    # an explicit retention overrides the configured one
    until = (datetime.now(timezone.utc) + timedelta(days=3)).replace(microsecond=0)
    explicit = Retention("COMPLIANCE", until, legal_hold=True)
    store.put_bytes("objects/bb/2", b"y", retention=explicit)
    assert store.get_retention("objects/bb/2") == explicit

    # a multipart upload asks for the lock on CreateMultipartUpload (moto accepts the
    # headers there but does not apply them, so check the request itself)
    sent: list[dict[str, Any]] = []
    store.client.meta.events.register("before-parameter-build.s3.CreateMultipartUpload",
                                      lambda params, **_: sent.append(dict(params)))
    src = private_dir / "f"
    write_random(src, 6 * MiB)
    store.put_file("objects/bb/3", src, retention=explicit)
    assert len(sent) == 1
    assert sent[0]["ObjectLockMode"] == "COMPLIANCE"
    assert sent[0]["ObjectLockRetainUntilDate"] == until
    assert sent[0]["ObjectLockLegalHoldStatus"] == "ON"
    assert "Metadata" not in sent[0]



def test_object_lock_on_unlocked_bucket_is_a_clear_error(
        s3_bucket_url: tuple[str, StoreOptions]) -> None:
    url, opts = s3_bucket_url
    store = open_store(url, replace(opts, object_lock_mode="COMPLIANCE", object_lock_days=1))
    with pytest.raises(StoreError) as ei:
        store.put_bytes("objects/aa/1", b"x")
    assert ei.value.key == "objects/aa/1" and not ei.value.transient


def test_if_absent_falls_back_when_endpoint_lacks_conditional_writes(
        s3: ObjectStore, monkeypatch: pytest.MonkeyPatch) -> None:
    b = backend(s3)
    real_put = b.client.put_object
    conditional_calls = []

    def put_object(**kw: Any) -> Any:
        if "IfNoneMatch" in kw:
            conditional_calls.append(kw["Key"])
            raise client_error("NotImplemented", 501)
        return real_put(**kw)

    monkeypatch.setattr(b.client, "put_object", put_object)
    assert s3.put_bytes("archiver.json", b"first", if_absent=True) is True
    assert s3.put_bytes("archiver.json", b"second", if_absent=True) is False
    assert s3.get_bytes("archiver.json") == b"first"
    assert conditional_calls == ["arch/archiver.json"]  # remembered after the first refusal


def test_failed_multipart_upload_is_aborted(s3_bucket_url: tuple[str, StoreOptions],
                                            private_dir: Path) -> None:
    url, opts = s3_bucket_url
    store = open_store(url, replace(opts, multipart_threshold=5 * MiB, multipart_chunksize=5 * MiB))
    b = backend(store)
    parts: list[int] = []

    def fail_second_part(params: dict[str, Any], **_: Any) -> None:
        part = int(params["query_string"]["partNumber"])
        parts.append(part)
        if part == 2:
            raise client_error("AccessDenied", 403, "UploadPart")

    b.client.meta.events.register("before-call.s3.UploadPart", fail_second_part)
    src = private_dir / "f"
    write_random(src, 12 * MiB)
    with pytest.raises(StoreError) as ei:
        store.put_file("objects/ff/big", src)
    assert ei.value.key == "objects/ff/big" and "AccessDenied" in ei.value.reason
    assert str(src) not in str(ei.value)
    assert not store.exists("objects/ff/big")
    assert b.client.list_multipart_uploads(Bucket=b.bucket).get("Uploads", []) == []


def test_abort_incomplete_uploads(s3: ObjectStore) -> None:
    b = backend(s3)
    b.client.create_multipart_upload(Bucket=b.bucket, Key="arch/objects/aa/stale")
    b.client.create_multipart_upload(Bucket=b.bucket, Key="elsewhere/keep")
    # moto reports every upload as initiated on 2010-11-10, so "young" means < 100 years here
    assert s3.abort_incomplete_uploads(timedelta(days=36500)) == 0
    assert s3.abort_incomplete_uploads(timedelta(hours=1)) == 1
    assert s3.abort_incomplete_uploads(timedelta(0)) == 0
    left = b.client.list_multipart_uploads(Bucket=b.bucket).get("Uploads", [])
    assert [u["Key"] for u in left] == ["elsewhere/keep"]


def test_s3_transient_errors_are_retried_and_logged(
        s3_bucket_url: tuple[str, StoreOptions], caplog: pytest.LogCaptureFixture) -> None:
    url, opts = s3_bucket_url
    store = open_store(url, replace(opts, operation_attempts=3))
    b = backend(store)
    throttled: list[str] = []
    gets: list[str] = []

    def slow_down(params: dict[str, Any], **_: Any) -> None:
        if len(throttled) < 2:
            throttled.append(params["url_path"])
            raise client_error("SlowDown", 503)

    b.client.meta.events.register("before-call.s3.PutObject", slow_down)
    b.client.meta.events.register("before-call.s3.GetObject",
                                  lambda params, **_: gets.append(params["url_path"]))
    caplog.set_level(logging.WARNING, logger="archiver.store.retry")
    store.put_bytes("objects/aa/1", b"payload-not-for-logs")
    assert len(throttled) == 2
    assert store.get_bytes("objects/aa/1") == b"payload-not-for-logs"
    retries = [r for r in caplog.records if r.name == "archiver.store.retry"]
    assert len(retries) == 2
    assert all("objects/aa/1" in r.getMessage() and "SlowDown" in r.getMessage() for r in retries)
    assert "payload-not-for-logs" not in caplog.text

    gets.clear()
    with pytest.raises(NotFound):
        store.get_bytes("objects/aa/missing")
    assert len(gets) == 1  # NotFound is never retried


def _upload_failed() -> Exception:
    import boto3.exceptions

    try:
        try:
            raise client_error("AccessDenied", 403)
        except ClientError:
            raise boto3.exceptions.S3UploadFailedError("Failed to upload /home/alice/x to b/k")
    except Exception as e:
        return e


@pytest.mark.parametrize("exc, kind", [
    (client_error("NoSuchKey", 404, "GetObject"), "notfound"),
    (client_error("404", 404, "HeadObject"), "notfound"),
    (client_error("NoSuchBucket", 404, "GetObject"), "permanent"),
    (client_error("AccessDenied", 403), "permanent"),
    (client_error("NotImplemented", 501), "permanent"),
    (client_error("SlowDown", 503), "transient"),
    (client_error("InternalError", 500), "transient"),
    (client_error("RequestTimeout", 400), "transient"),
    (client_error("TooManyRequests", 429), "transient"),
    ("EndpointConnectionError", "transient"),
    ("ReadTimeoutError", "transient"),
    ("IncompleteReadError", "transient"),
    ("NoCredentialsError", "permanent"),
    (_upload_failed(), "permanent"),
])
def test_s3_error_mapping(exc: Any, kind: str) -> None:
    import botocore.exceptions as bex

    from archiver.store.s3 import map_error

    if isinstance(exc, str):
        exc = {
            "EndpointConnectionError": lambda: bex.EndpointConnectionError(endpoint_url="http://h"),
            "ReadTimeoutError": lambda: bex.ReadTimeoutError(endpoint_url="http://h"),
            "IncompleteReadError": lambda: bex.IncompleteReadError(actual_bytes=1, expected_bytes=9),
            "NoCredentialsError": lambda: bex.NoCredentialsError(),
        }[exc]()
    err = map_error("objects/aa/1", exc, "get")
    assert err.key == "objects/aa/1" and "objects/aa/1" in str(err)
    assert isinstance(err, NotFound) == (kind == "notfound")
    assert err.transient == (kind == "transient")
    assert "alice" not in str(err)


def test_unreachable_endpoint_is_transient(s3_server: str) -> None:
    opts = StoreOptions(endpoint_url="http://127.0.0.1:1", region=REGION, max_attempts=1,
                        operation_attempts=1, connect_timeout=2)
    with pytest.raises(StoreError) as ei:
        open_store("s3://bkt/p", opts).get_bytes("objects/aa/1")
    assert ei.value.transient and "objects/aa/1" in str(ei.value)


def test_describe_has_no_credentials() -> None:
    opts = StoreOptions(endpoint_url="http://user:pw@127.0.0.1:9", region=REGION)
    assert open_store("s3://bkt/a/b/", opts).describe() == "s3://bkt/a/b (endpoint http://127.0.0.1:9)"
    assert open_store("s3://bkt", StoreOptions(region=REGION)).describe() == "s3://bkt"


# -- file:// specifics -----------------------------------------------------------------------


def test_local_modes_and_atomic_writes(private_dir: Path) -> None:
    old = os.umask(0)  # modes must not depend on the umask
    try:
        store = open_store((private_dir / "root").as_uri())
        store.put_bytes("objects/aa/1", b"x")
        src = private_dir / "src"
        src.write_bytes(b"y")
        store.put_file("snapshots/h/2", src)
    finally:
        os.umask(old)
    root = private_dir / "root"
    for d in (root, root / "objects", root / "objects/aa", root / "snapshots/h"):
        assert stat.S_IMODE(d.stat().st_mode) == 0o700, d
    for f in (root / "objects/aa/1", root / "snapshots/h/2"):
        assert stat.S_IMODE(f.stat().st_mode) == 0o600, f
    all_files = sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())
    assert all_files == ["objects/aa/1", "snapshots/h/2"]  # no temp files left

    with pytest.raises(StoreError) as ei:
        store.put_file("objects/aa/3", private_dir / "missing-source")
    assert ei.value.key == "objects/aa/3" and "missing-source" not in str(ei.value)
    assert sorted(p.name for p in (root / "objects/aa").iterdir()) == ["1"]


def test_local_rejects_symlink_escape_and_reserved_names(private_dir: Path) -> None:
    outside = private_dir / "outside"
    outside.mkdir()
    store = open_store((private_dir / "root").as_uri())
    (private_dir / "root" / "link").symlink_to(outside)
    with pytest.raises(StoreError, match="outside the store root"):
        store.put_bytes("link/x", b"x")
    with pytest.raises(StoreError):
        store.get_bytes("link/x")
    assert list(outside.iterdir()) == []
    with pytest.raises(StoreError, match="reserved"):
        store.put_bytes("objects/.tmp-abc", b"x")


def test_local_retention_is_unsupported(private_dir: Path) -> None:
    store = open_store((private_dir / "root").as_uri())
    store.put_bytes("k", b"v")
    until = datetime.now(timezone.utc) + timedelta(days=1)
    with pytest.raises(NotImplementedError):
        store.put_bytes("k2", b"v", retention=Retention("COMPLIANCE", until))
    with pytest.raises(NotImplementedError):
        store.set_legal_hold("k", True)
    assert not store.exists("k2")


def test_local_abort_incomplete_uploads(private_dir: Path) -> None:
    store = open_store((private_dir / "root").as_uri())
    store.put_bytes("objects/aa/1", b"x")
    stale = private_dir / "root/objects/aa/.tmp-dead"
    fresh = private_dir / "root/objects/aa/.tmp-live"
    stale.write_bytes(b"partial")
    fresh.write_bytes(b"partial")
    old = time.time() - 7200
    os.utime(stale, (old, old))
    assert [i.key for i in store.list()] == ["objects/aa/1"]  # temp files are not objects
    assert store.abort_incomplete_uploads(timedelta(hours=1)) == 1
    assert not stale.exists() and fresh.exists()


def test_local_delete_prunes_empty_dirs(private_dir: Path) -> None:
    store = open_store((private_dir / "root").as_uri())
    store.put_bytes("objects/aa/1", b"x")
    store.put_bytes("objects/bb/2", b"x")
    store.delete("objects/aa/1")
    assert not (private_dir / "root/objects/aa").exists()
    assert (private_dir / "root/objects/bb/2").exists()
    assert (private_dir / "root").is_dir()


# -- open_store / options --------------------------------------------------------------------


def test_open_store_dispatch(private_dir: Path) -> None:
    s3_backend = open_backend("s3://bkt/some/prefix/", StoreOptions(region=REGION))
    assert isinstance(s3_backend, S3Store)
    assert (s3_backend.bucket, s3_backend.prefix) == ("bkt", "some/prefix/")
    root = private_dir / "with space"
    local = open_backend(root.as_uri())
    assert isinstance(local, LocalStore) and local.root == root
    assert open_backend("file://localhost" + str(root)).root == root  # type: ignore[union-attr]


@pytest.mark.parametrize("url", [
    "http://example.com/x", "ftp://h/x", "/abs/path", "relative", "s3://", "s3:///prefix",
    "file://relative/path", "file:///", "file:", "s3://bkt/a/../b", "s3://bkt/p?x=1",
])
def test_open_store_rejects_bad_urls(url: str) -> None:
    with pytest.raises(ValueError) as ei:
        open_store(url, StoreOptions(region=REGION))
    assert url in str(ei.value)


def test_open_store_never_echoes_credentials() -> None:
    with pytest.raises(ValueError) as ei:
        open_store("s3://AKIAEXAMPLE:hunter2@bkt/p", StoreOptions(region=REGION))
    assert "hunter2" not in str(ei.value) and "bkt" in str(ei.value)


def test_open_store_refuses_object_lock_on_file(private_dir: Path) -> None:
    with pytest.raises(ValueError, match="object_lock_mode"):
        open_store((private_dir / "r").as_uri(),
                   StoreOptions(object_lock_mode="GOVERNANCE", object_lock_days=1))


@pytest.mark.parametrize("kwargs", [
    {"sse": "aes256"}, {"kms_key_id": "k"}, {"object_lock_mode": "GOVERNANCE"},
    {"object_lock_days": 3}, {"object_lock_mode": "LOCKED", "object_lock_days": 1},
    {"max_attempts": 0}, {"multipart_chunksize": 0},
])
def test_store_options_validation(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        StoreOptions(**kwargs)


# -- RetryingStore with a fake inner store ---------------------------------------------------


class FlakyStore:
    """Fails the first calls with the given errors, then behaves like a dict."""

    def __init__(self, failures: list[Exception], fail_list_after: int | None = None) -> None:
        self.failures = failures
        self.fail_list_after = fail_list_after
        self.calls = 0
        self.data: dict[str, bytes] = {}
        self.marker = "inner-attribute"

    def _maybe_fail(self) -> None:
        self.calls += 1
        if self.failures:
            raise self.failures.pop(0)

    def put_bytes(self, key: str, data: bytes, *, if_absent: bool = False,
                  retention: Retention | None = None,
                  content_type: str = "application/octet-stream") -> bool:
        self._maybe_fail()
        if if_absent and key in self.data:
            return False
        self.data[key] = data
        return True

    def get_bytes(self, key: str, max_size: int | None = None) -> bytes:
        self._maybe_fail()
        if key not in self.data:
            raise NotFound(key)
        return self.data[key]

    def list(self, prefix: str = "") -> Iterator[ObjectInfo]:
        self.calls += 1
        now = datetime.now(timezone.utc)
        for n, key in enumerate(sorted(self.data)):
            if self.fail_list_after is not None and n == self.fail_list_after:
                self.fail_list_after = None
                raise ConnectionResetError("connection reset by peer")
            yield ObjectInfo(key, len(self.data[key]), now)

    def describe(self) -> str:
        return "fake://"


def retrying(inner: FlakyStore, attempts: int = 5) -> tuple[RetryingStore, list[float]]:
    sleeps: list[float] = []
    store = RetryingStore(cast(ObjectStore, inner), attempts=attempts, base_delay=0.2,
                          max_delay=1.0, sleep=sleeps.append, rng=random.Random(3))
    return store, sleeps


@pytest.mark.parametrize("error", [
    ConnectionResetError("reset"), TimeoutError("timed out"), http.client.IncompleteRead(b"ab", 10),
    StoreError("k", "S3 get: SlowDown (HTTP 503)", transient=True),
])
def test_retry_recovers_from_transient_errors(error: Exception) -> None:
    inner = FlakyStore([error, error])
    inner.data["k"] = b"v"
    store, sleeps = retrying(inner)
    assert store.get_bytes("k") == b"v"
    assert inner.calls == 3
    assert len(sleeps) == 2
    assert 0.1 <= sleeps[0] <= 0.2 and 0.2 <= sleeps[1] <= 0.4  # d/2 + jitter(0..d/2)


def test_retry_gives_up_after_attempts() -> None:
    errors: list[Exception] = [StoreError("k", f"HTTP 500 #{i}", transient=True) for i in range(5)]
    inner = FlakyStore(errors)
    store, sleeps = retrying(inner, attempts=3)
    with pytest.raises(StoreError, match="#2"):
        store.get_bytes("k")
    assert inner.calls == 3 and len(sleeps) == 2


@pytest.mark.parametrize("error", [
    NotFound("k"), StoreError("k", "AccessDenied (HTTP 403)"), ValueError("bug"),
])
def test_retry_never_retries_permanent_errors(error: Exception) -> None:
    inner = FlakyStore([error])
    store, sleeps = retrying(inner)
    with pytest.raises(type(error)):
        store.get_bytes("k")
    assert inner.calls == 1 and sleeps == []


def test_retry_backoff_is_capped() -> None:
    store, _ = retrying(FlakyStore([]))
    assert all(0.5 <= store.delay(n) <= 1.0 for n in range(4, 30))


def test_retry_list_resumes_without_duplicates() -> None:
    inner = FlakyStore([], fail_list_after=3)
    for i in range(6):
        inner.data[f"k{i}"] = b"x"
    store, sleeps = retrying(inner)
    assert [i.key for i in store.list()] == [f"k{i}" for i in range(6)]
    assert inner.calls == 2 and len(sleeps) == 1


def test_retry_logs_key_and_reason_only(caplog: pytest.LogCaptureFixture) -> None:
    inner = FlakyStore([StoreError("objects/aa/1", "RequestTimeout (HTTP 400)", transient=True)])
    store, _ = retrying(inner)
    caplog.set_level(logging.WARNING, logger="archiver.store.retry")
    assert store.put_bytes("objects/aa/1", b"TOP-SECRET-CONTENT") is True
    assert len(caplog.records) == 1
    msg = caplog.records[0].getMessage()
    assert "objects/aa/1" in msg and "RequestTimeout" in msg and "attempt 1/5" in msg
    assert "TOP-SECRET-CONTENT" not in caplog.text


def test_wrappers_forward_other_attributes() -> None:
    inner = FlakyStore([])
    store = RetryingStore(cast(ObjectStore, LoggingStore(cast(ObjectStore, inner))))
    assert store.marker == "inner-attribute"  # type: ignore[attr-defined]
    assert store.describe() == "fake://"


def test_a_lazy_s3_store_checks_its_url_at_once_and_connects_on_first_use() -> None:
    from archiver.store import open_store as open_lazy

    with pytest.raises(ValueError, match="invalid s3 prefix"):
        open_lazy("s3://bucket/a/../b", StoreOptions(), lazy=True)
    with pytest.raises(ValueError, match="no bucket"):
        open_lazy("s3:///prefix", StoreOptions(), lazy=True)
    store = open_lazy("s3://bucket/prefix", StoreOptions(region="us-east-1"), lazy=True)
    backend = store.inner.inner  # type: ignore[attr-defined]
    assert backend._inner is None  # nothing made yet
    assert store.describe().startswith("s3://bucket/prefix")
    assert backend._inner is not None
