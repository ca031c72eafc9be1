"""s3:// store on boto3.

- Credentials come only from the standard AWS chain (env, shared config/credentials,
  SSO, container/instance roles); nothing here accepts keys.
- Per-request retries are botocore's "standard" mode (`max_attempts`): it retries each
  HTTP request, so a failed part of a multipart upload is retried alone. RetryingStore
  (retry.py) retries whole operations on top, for what botocore cannot (truncated bodies,
  a multipart upload that failed as a whole).
- Files go through boto3's transfer manager: multipart above `multipart_threshold`,
  `max_concurrency` parts in flight; it aborts the multipart upload when one fails.
  `abort_incomplete_uploads` cleans up after processes that died mid-upload.
- No user metadata is ever written: names, paths and titles must not reach S3.
- Every botocore/boto3 error is translated to StoreError (NotFound for a missing key),
  with `transient` set for 5xx, throttling, timeouts, connection errors, truncated bodies.
"""

from __future__ import annotations

import http.client
import io
import logging
import os
import tempfile
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, BinaryIO, Iterator, cast

import boto3
import boto3.exceptions
import botocore.exceptions
import s3transfer.exceptions
import urllib3.exceptions
from boto3.s3.transfer import TransferConfig
from botocore.config import Config
from botocore.exceptions import ClientError

from archiver.store.base import (
    NotFound,
    ObjectInfo,
    Retention,
    StoreError,
    StoreOptions,
    check_key,
    check_prefix,
    strip_userinfo,
)

log = logging.getLogger(__name__)

_NOT_FOUND_CODES = {"NoSuchKey", "404", "NotFound"}
# 404s that are configuration errors, not a missing object
_NOT_FOUND_EXCLUDED = {"NoSuchBucket", "NoSuchUpload", "NoSuchVersion", "NoSuchLifecycleConfiguration"}
_TRANSIENT_CODES = {
    "SlowDown", "Throttling", "ThrottlingException", "ThrottledException", "RequestThrottled",
    "RequestThrottledException", "TooManyRequestsException", "RequestLimitExceeded",
    "ProvisionedThroughputExceededException", "BandwidthLimitExceeded", "EC2ThrottledException",
    "RequestTimeout", "RequestTimeoutException", "PriorRequestNotComplete", "InternalError",
    "ServiceUnavailable", "OperationAborted", "ConditionalRequestConflict",
}
_TRANSIENT_TYPES: tuple[type[BaseException], ...] = (
    botocore.exceptions.ConnectionError,  # endpoint unreachable, connect timeout, proxy, TLS
    botocore.exceptions.HTTPClientError,  # connection closed, read timeout, body stream broken
    botocore.exceptions.IncompleteReadError,
    botocore.exceptions.FlexibleChecksumError,  # body corrupted in transit
    urllib3.exceptions.HTTPError,
    http.client.IncompleteRead,
    ConnectionError,
    TimeoutError,
)
# what the store catches and translates; anything else is a programming error and propagates
_STORE_ERRORS: tuple[type[BaseException], ...] = (
    botocore.exceptions.BotoCoreError,
    ClientError,
    boto3.exceptions.Boto3Error,
    s3transfer.exceptions.RetriesExceededError,
    s3transfer.exceptions.S3UploadFailedError,
    urllib3.exceptions.HTTPError,
    http.client.HTTPException,
    OSError,
)


class S3Store:
    def __init__(self, bucket: str, prefix: str, options: StoreOptions, *,
                 client: Any | None = None) -> None:
        if not bucket:
            raise ValueError("s3 store needs a bucket name")
        prefix = prefix.strip("/")
        if prefix:
            try:
                check_prefix(prefix)
            except StoreError as e:
                raise ValueError(f"invalid s3 prefix {prefix!r}: {e.reason}") from None
        self.bucket = bucket
        self.prefix = f"{prefix}/" if prefix else ""
        self.options = options
        self._client = client if client is not None else make_client(options)
        self._transfer = TransferConfig(
            multipart_threshold=options.multipart_threshold,
            multipart_chunksize=options.multipart_chunksize,
            max_concurrency=options.max_concurrency,
            use_threads=True,
            preferred_transfer_client="classic",  # behaviour must not depend on awscrt being installed
        )
        # cleared when the endpoint rejects If-None-Match; put_bytes then uses head + put
        self._conditional_writes = True

    @property
    def client(self) -> Any:
        """The boto3 S3 client (for tests and maintenance commands)."""
        return self._client

    def _full(self, key: str) -> str:
        return self.prefix + check_key(key)

    def _put_args(self, content_type: str, retention: Retention | None) -> dict[str, Any]:
        o = self.options
        args: dict[str, Any] = {"ContentType": content_type}
        if o.sse:
            args["ServerSideEncryption"] = o.sse
            if o.kms_key_id:
                args["SSEKMSKeyId"] = o.kms_key_id
        if o.storage_class:
            args["StorageClass"] = o.storage_class
        ret = retention if retention is not None else o.default_retention(datetime.now(timezone.utc))
        if ret is not None:
            if ret.mode is not None:
                args["ObjectLockMode"] = ret.mode
                args["ObjectLockRetainUntilDate"] = ret.until
            if ret.legal_hold:
                args["ObjectLockLegalHoldStatus"] = "ON"
        return args

    # -- writes -----------------------------------------------------------------------------

    def put_file(self, key: str, path: Path, *, content_type: str = "application/octet-stream",
                 retention: Retention | None = None) -> None:
        full = self._full(key)
        try:
            if not path.is_file():
                raise StoreError(key, "source file is missing or not a regular file")
        except OSError as e:
            raise StoreError(key, f"cannot read source file: {e.strerror or type(e).__name__}") from e
        args = self._put_args(content_type, retention)
        try:
            self._client.upload_file(str(path), self.bucket, full, ExtraArgs=args, Config=self._transfer)
        except _STORE_ERRORS as e:
            raise map_error(key, e, "upload") from e

    def put_bytes(self, key: str, data: bytes, *, if_absent: bool = False,
                  retention: Retention | None = None,
                  content_type: str = "application/octet-stream") -> bool:
        full = self._full(key)
        args = self._put_args(content_type, retention)
        if if_absent and self._conditional_writes:
            try:
                self._client.put_object(Bucket=self.bucket, Key=full, Body=data, IfNoneMatch="*", **args)
                return True
            except ClientError as e:
                code, status, message = _error_fields(e)
                if code == "PreconditionFailed" or status == 412:
                    return False
                if not _conditional_unsupported(code, status, message):
                    raise map_error(key, e, "put") from e
                log.info("%s does not support conditional writes; using head + put",
                         self.describe())
                self._conditional_writes = False
            except _STORE_ERRORS as e:
                raise map_error(key, e, "put") from e
        if if_absent and self.head(key) is not None:
            return False
        try:
            self._client.put_object(Bucket=self.bucket, Key=full, Body=data, **args)
        except _STORE_ERRORS as e:
            raise map_error(key, e, "put") from e
        return True

    # -- reads ------------------------------------------------------------------------------

    def get_file(self, key: str, path: Path) -> None:
        full = self._full(key)
        tmp: str | None = None
        try:
            fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)  # 0600
            with os.fdopen(fd, "wb") as f:
                self._client.download_fileobj(self.bucket, full, f, Config=self._transfer)
            os.replace(tmp, path)
        except _STORE_ERRORS as e:
            raise map_error(key, e, "download") from e
        finally:
            if tmp is not None and os.path.lexists(tmp):
                os.unlink(tmp)

    def get_bytes(self, key: str, max_size: int | None = None) -> bytes:
        full = self._full(key)
        try:
            resp = self._client.get_object(Bucket=self.bucket, Key=full)
        except _STORE_ERRORS as e:
            raise map_error(key, e, "get") from e
        body = resp["Body"]
        try:
            size = resp.get("ContentLength")
            if max_size is not None and size is not None and size > max_size:
                raise StoreError(key, f"object is {size} bytes, larger than the limit {max_size}")
            data = cast(bytes, body.read())  # read() without amt verifies Content-Length
            if max_size is not None and len(data) > max_size:
                raise StoreError(key, f"object is larger than the limit {max_size}")
            return data
        except _STORE_ERRORS as e:
            raise map_error(key, e, "read") from e
        finally:
            body.close()

    def open_read(self, key: str) -> BinaryIO:
        full = self._full(key)
        try:
            resp = self._client.get_object(Bucket=self.bucket, Key=full)
        except _STORE_ERRORS as e:
            raise map_error(key, e, "get") from e
        return cast(BinaryIO, io.BufferedReader(_Body(resp["Body"], key), buffer_size=1024 * 1024))

    def exists(self, key: str) -> bool:
        return self.head(key) is not None

    def head(self, key: str) -> ObjectInfo | None:
        resp = self._head(key)
        if resp is None:
            return None
        return ObjectInfo(key, resp["ContentLength"], resp["LastModified"], _etag(resp.get("ETag")))

    def _head(self, key: str) -> dict[str, Any] | None:
        full = self._full(key)
        try:
            return cast(dict[str, Any], self._client.head_object(Bucket=self.bucket, Key=full))
        except _STORE_ERRORS as e:
            err = map_error(key, e, "head")
            if isinstance(err, NotFound):
                return None
            raise err from e

    def list(self, prefix: str = "") -> Iterator[ObjectInfo]:
        check_prefix(prefix)
        pages = self._client.get_paginator("list_objects_v2").paginate(
            Bucket=self.bucket, Prefix=self.prefix + prefix,
            PaginationConfig={"PageSize": self.options.list_page_size},
        )
        it = iter(pages)
        strip = len(self.prefix)
        while True:
            try:
                page = next(it)
            except StopIteration:
                return
            except _STORE_ERRORS as e:
                raise map_error(prefix, e, "list") from e
            for obj in page.get("Contents", ()):
                yield ObjectInfo(obj["Key"][strip:], obj["Size"], obj["LastModified"],
                                 _etag(obj.get("ETag")))

    # -- deletes, Object Lock, maintenance --------------------------------------------------

    def delete(self, key: str) -> None:
        """Delete the current version. On a versioned (Object Lock) bucket this adds a delete
        marker; locked versions stay until their retention ends."""
        full = self._full(key)
        try:
            self._client.delete_object(Bucket=self.bucket, Key=full)
        except _STORE_ERRORS as e:
            err = map_error(key, e, "delete")
            if not isinstance(err, NotFound):
                raise err from e

    def set_legal_hold(self, key: str, on: bool) -> None:
        full = self._full(key)
        try:
            self._client.put_object_legal_hold(
                Bucket=self.bucket, Key=full, LegalHold={"Status": "ON" if on else "OFF"})
        except _STORE_ERRORS as e:
            raise map_error(key, e, "set legal hold") from e

    def get_retention(self, key: str) -> Retention | None:
        """From HEAD, which reports lock headers only with s3:GetObjectRetention and
        s3:GetObjectLegalHold permissions (without them an object looks unlocked)."""
        resp = self._head(key)
        if resp is None:
            raise NotFound(key)
        mode = resp.get("ObjectLockMode")
        until = resp.get("ObjectLockRetainUntilDate")
        hold = resp.get("ObjectLockLegalHoldStatus") == "ON"
        if not mode and not hold:
            return None
        if mode and until is not None:
            return Retention(mode, until, hold)
        return Retention(None, None, hold)

    def abort_incomplete_uploads(self, older_than: timedelta) -> int:
        """Abort multipart uploads under the prefix started before now - older_than."""
        cutoff = datetime.now(timezone.utc) - older_than
        aborted = 0
        pages = self._client.get_paginator("list_multipart_uploads").paginate(
            Bucket=self.bucket, Prefix=self.prefix)
        try:
            for page in pages:
                for up in page.get("Uploads", ()):
                    if up["Initiated"] > cutoff:
                        continue
                    try:
                        self._client.abort_multipart_upload(
                            Bucket=self.bucket, Key=up["Key"], UploadId=up["UploadId"])
                    except ClientError as e:
                        if _error_fields(e)[0] == "NoSuchUpload":  # finished or aborted meanwhile
                            continue
                        raise
                    aborted += 1
        except _STORE_ERRORS as e:
            raise map_error(self.prefix, e, "abort incomplete uploads") from e
        return aborted

    def describe(self) -> str:
        url = f"s3://{self.bucket}/{self.prefix.rstrip('/')}".rstrip("/")
        if self.options.endpoint_url:
            url += f" (endpoint {strip_userinfo(self.options.endpoint_url)})"
        return url


def make_client(options: StoreOptions) -> Any:
    config = Config(
        retries={"mode": "standard", "total_max_attempts": options.max_attempts},
        connect_timeout=options.connect_timeout,
        read_timeout=options.read_timeout,
        max_pool_connections=max(10, options.max_concurrency * 2),
    )
    # a Session per store: boto3's default session is not thread-safe to create clients from
    session = boto3.session.Session()
    return session.client("s3", endpoint_url=options.endpoint_url, region_name=options.region,
                          config=config)


def map_error(key: str, exc: BaseException, op: str) -> StoreError:
    """Translate a boto3/botocore/OS error into StoreError (NotFound for a missing key)."""
    if isinstance(exc, StoreError):
        return exc
    if isinstance(exc, boto3.exceptions.S3UploadFailedError) and isinstance(exc.__context__, Exception):
        # boto3 re-raises the ClientError of a failed upload as S3UploadFailedError (implicit
        # chaining), with the local file name in the message: use the original instead
        return map_error(key, exc.__context__, op)
    if isinstance(exc, (boto3.exceptions.RetriesExceededError, s3transfer.exceptions.RetriesExceededError)):
        last = exc.last_exception
        inner = map_error(key, last, op) if isinstance(last, BaseException) else None
        reason = f"{op}: retries exhausted" + (f" ({inner.reason})" if inner else "")
        return StoreError(key, reason, transient=True)
    if isinstance(exc, ClientError):
        code, status, message = _error_fields(exc)
        reason = f"{op}: {code or 'error'} (HTTP {status})" + (f": {message}" if message else "")
        if code in _NOT_FOUND_CODES or (status == 404 and code not in _NOT_FOUND_EXCLUDED):
            return NotFound(key, reason)
        transient = (code in _TRANSIENT_CODES or status == 429
                     or (status is not None and status >= 500 and status != 501))
        return StoreError(key, reason, transient=transient)
    if isinstance(exc, (botocore.exceptions.NoCredentialsError,
                        botocore.exceptions.PartialCredentialsError)):
        return StoreError(key, f"{op}: no usable AWS credentials in the standard chain")
    if isinstance(exc, _TRANSIENT_TYPES):
        return StoreError(key, f"{op}: {type(exc).__name__}: {_short(exc)}", transient=True)
    if isinstance(exc, OSError):
        return StoreError(key, f"{op}: local file error: {exc.strerror or type(exc).__name__}")
    return StoreError(key, f"{op}: {type(exc).__name__}: {_short(exc)}")


class _Body(io.RawIOBase):
    """A botocore StreamingBody as a raw stream whose read errors are StoreErrors."""

    def __init__(self, body: Any, key: str) -> None:
        self._body = body
        self._key = key

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        try:
            data = self._body.read(len(b))
        except _STORE_ERRORS as e:
            raise map_error(self._key, e, "read") from e
        n = len(data)
        b[:n] = data
        return n

    def close(self) -> None:
        if not self.closed:
            self._body.close()
        super().close()


def _error_fields(exc: ClientError) -> tuple[str, int | None, str]:
    err = exc.response.get("Error", {}) or {}
    status = (exc.response.get("ResponseMetadata", {}) or {}).get("HTTPStatusCode")
    return str(err.get("Code", "")), status, str(err.get("Message", "") or "")[:300]


def _conditional_unsupported(code: str, status: int | None, message: str) -> bool:
    if code == "NotImplemented" or status == 501:
        return True
    return code in ("InvalidArgument", "InvalidRequest") and "if-none-match" in message.lower()


def _etag(value: str | None) -> str | None:
    return value.strip('"') if value else None


def _short(exc: BaseException) -> str:
    return str(exc)[:300]
