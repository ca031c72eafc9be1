"""The ObjectStore contract: a flat blob store with '/'-separated keys under a prefix.

Implementations (s3.py, local.py) do only the storage calls and translate their errors
into `StoreError` / `NotFound`, with `transient` set when retrying the same call may
succeed. Retries and logging are wrappers (retry.py), never in callers or backends.

Keys are relative to the store's prefix. They never carry plaintext names (DESIGN.md,
archive format v1); stores add no metadata of their own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import BinaryIO, Iterator, Protocol, runtime_checkable
from urllib.parse import urlsplit, urlunsplit

MiB = 1024 * 1024

LOCK_MODES = ("COMPLIANCE", "GOVERNANCE")
SSE_MODES = ("AES256", "aws:kms")


class StoreError(Exception):
    """A store operation failed. `key` is the store-relative key (or prefix); the message
    names it and the reason, never object contents. `transient` means the same call may
    succeed if retried (connection reset, 5xx, throttling, timeout, truncated body)."""

    def __init__(self, key: str, reason: str, *, transient: bool = False) -> None:
        self.key = key
        self.reason = reason
        self.transient = transient
        super().__init__(f"object {key!r}: {reason}" if key else reason)


class NotFound(StoreError):
    """The object does not exist."""

    def __init__(self, key: str, reason: str = "not found") -> None:
        super().__init__(key, reason, transient=False)


@dataclass(frozen=True)
class ObjectInfo:
    key: str  # relative to the store prefix
    size: int
    last_modified: datetime  # timezone-aware, UTC
    etag: str | None = None  # without quotes; multipart uploads end in "-<parts>"; None for file://


@dataclass(frozen=True)
class Retention:
    """Object Lock state of one object. `mode`/`until` are None when only a legal hold is set."""

    mode: str | None  # "COMPLIANCE" | "GOVERNANCE" | None
    until: datetime | None
    legal_hold: bool = False

    def __post_init__(self) -> None:
        if self.mode is not None and self.mode not in LOCK_MODES:
            raise ValueError(f"retention mode must be one of {LOCK_MODES}, got {self.mode!r}")
        if (self.mode is None) != (self.until is None):
            raise ValueError("retention mode and until must be given together")
        if self.until is not None and self.until.tzinfo is None:
            raise ValueError("retention until must be timezone-aware")


@dataclass(frozen=True)
class StoreOptions:
    endpoint_url: str | None = None  # S3-compatible endpoint; None = AWS
    region: str | None = None
    sse: str | None = None  # "AES256" | "aws:kms" | None
    kms_key_id: str | None = None  # only with sse="aws:kms"
    storage_class: str | None = None  # e.g. "STANDARD_IA", "GLACIER_IR"
    object_lock_mode: str | None = None  # "COMPLIANCE" | "GOVERNANCE" | None
    object_lock_days: int | None = None  # retention applied to every object written
    multipart_threshold: int = 64 * MiB
    multipart_chunksize: int = 16 * MiB
    max_concurrency: int = 4
    max_attempts: int = 5  # per HTTP request, inside botocore (standard retry mode)
    operation_attempts: int = 3  # per store call, in RetryingStore (see retry.py)
    connect_timeout: float = 10.0
    read_timeout: float = 60.0
    list_page_size: int = 1000

    def __post_init__(self) -> None:
        if self.sse is not None and self.sse not in SSE_MODES:
            raise ValueError(f"store sse must be one of {SSE_MODES} or unset, got {self.sse!r}")
        if self.kms_key_id and self.sse != "aws:kms":
            raise ValueError("store kms_key_id needs sse = 'aws:kms'")
        if self.object_lock_mode is not None and self.object_lock_mode not in LOCK_MODES:
            raise ValueError(
                f"store object_lock_mode must be one of {LOCK_MODES} or unset, "
                f"got {self.object_lock_mode!r}"
            )
        if (self.object_lock_mode is None) != (self.object_lock_days is None):
            raise ValueError("store object_lock_mode and object_lock_days must be set together")
        if self.object_lock_days is not None and self.object_lock_days < 1:
            raise ValueError("store object_lock_days must be >= 1")
        for name in ("multipart_threshold", "multipart_chunksize", "max_concurrency",
                     "max_attempts", "operation_attempts", "list_page_size"):
            if getattr(self, name) < 1:
                raise ValueError(f"store {name} must be >= 1")

    def default_retention(self, now: datetime) -> Retention | None:
        """The retention every new object gets, from object_lock_mode/days."""
        if self.object_lock_mode is None or self.object_lock_days is None:
            return None
        return Retention(self.object_lock_mode, now + timedelta(days=self.object_lock_days))


@runtime_checkable
class ObjectStore(Protocol):
    def put_file(self, key: str, path: Path, *, content_type: str = "application/octet-stream",
                 retention: Retention | None = None) -> None:
        """Upload a local file, streaming (multipart above the threshold). Overwrites."""
        ...

    def put_bytes(self, key: str, data: bytes, *, if_absent: bool = False,
                  retention: Retention | None = None,
                  content_type: str = "application/octet-stream") -> bool:
        """Write `data`. With if_absent an existing object is left alone. Returns True when
        this call wrote the object, False when if_absent found it already there."""
        ...

    def get_file(self, key: str, path: Path) -> None:
        """Download to `path` atomically (temp file in the same directory, then rename)."""
        ...

    def get_bytes(self, key: str, max_size: int | None = None) -> bytes:
        """The whole object; StoreError if it is larger than max_size."""
        ...

    def open_read(self, key: str) -> BinaryIO:
        """A streaming reader; the caller closes it. Read errors raise StoreError."""
        ...

    def exists(self, key: str) -> bool: ...

    def head(self, key: str) -> ObjectInfo | None: ...

    def list(self, prefix: str = "") -> Iterator[ObjectInfo]:
        """Objects whose key starts with `prefix` (a plain string prefix), in key order."""
        ...

    def delete(self, key: str) -> None:
        """Remove the object; deleting a missing object is not an error."""
        ...

    def set_legal_hold(self, key: str, on: bool) -> None: ...

    def get_retention(self, key: str) -> Retention | None:
        """Object Lock state, or None when the object has neither retention nor legal hold."""
        ...

    def abort_incomplete_uploads(self, older_than: timedelta) -> int:
        """Clean up uploads that were started before now - older_than and never finished
        (S3 multipart uploads, temp files); returns how many were removed."""
        ...

    def describe(self) -> str:
        """The store's url, without credentials."""
        ...


def check_key(key: str) -> str:
    """Validate a store-relative key: non-empty '/'-separated segments, none of them
    '.' or '..', no leading '/', no backslashes or control characters."""
    _check_segments(key, key, allow_empty=False)
    return key


def check_prefix(prefix: str) -> str:
    """Like check_key, but "" and a trailing '/' are allowed."""
    if prefix:
        _check_segments(prefix, prefix.removesuffix("/"), allow_empty=False)
    return prefix


_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def _check_segments(original: str, key: str, *, allow_empty: bool) -> None:
    if not key and not allow_empty:
        raise StoreError(original, "invalid key: empty")
    if "\\" in key:
        raise StoreError(original, "invalid key: backslash")
    if key.startswith("/"):
        raise StoreError(original, "invalid key: absolute")
    if _CONTROL.search(key):
        raise StoreError(original, "invalid key: control character")
    for seg in key.split("/"):
        if seg in ("", ".", ".."):
            raise StoreError(original, f"invalid key: segment {seg!r}")


def strip_userinfo(url: str) -> str:
    """The url without user:password@, for messages."""
    parts = urlsplit(url)
    if parts.username is None and parts.password is None:
        return url
    host = parts.hostname or ""
    if parts.port is not None:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, parts.query, parts.fragment))
