"""Wrappers around an ObjectStore: retries (RetryingStore), call logging (LoggingStore) and
a guard for readers (ReadOnlyStore).

Both are `StoreWrapper`s: every protocol method goes through one `_call`, so policy lives
here and neither backends nor callers retry or log on their own. Attributes a wrapper
does not define (e.g. S3Store.client) are forwarded to the inner store.

Logs name the operation, the key and the reason; never object contents.
"""

from __future__ import annotations

import http.client
import logging
import random
import time
from datetime import timedelta
from pathlib import Path
from typing import Any, BinaryIO, Callable, Iterator, TypeVar

from archiver.store.base import ObjectInfo, ObjectStore, Retention, StoreError

log = logging.getLogger(__name__)

T = TypeVar("T")


def is_transient(exc: BaseException) -> bool:
    """True when the same call may succeed if repeated. Backends mark their own errors
    (StoreError.transient); NotFound and other 4xx-class errors are never transient."""
    if isinstance(exc, StoreError):
        return exc.transient
    return isinstance(exc, (ConnectionError, TimeoutError, http.client.IncompleteRead))


def _reason(exc: BaseException) -> str:
    if isinstance(exc, StoreError):
        return exc.reason
    return f"{type(exc).__name__}: {str(exc)[:200]}"


class StoreWrapper:
    """Delegates every ObjectStore method to `inner` through `_call(op, key, fn)`."""

    def __init__(self, inner: ObjectStore) -> None:
        self.inner = inner

    def _call(self, op: str, key: str, fn: Callable[[], T]) -> T:
        return fn()

    def __getattr__(self, name: str) -> Any:
        # only reached for attributes not found normally; guard against recursion before
        # __init__ has set `inner` (copy/pickle)
        if name == "inner":
            raise AttributeError(name)
        return getattr(self.inner, name)

    def put_file(self, key: str, path: Path, *, content_type: str = "application/octet-stream",
                 retention: Retention | None = None) -> None:
        self._call("put_file", key, lambda: self.inner.put_file(
            key, path, content_type=content_type, retention=retention))

    def put_bytes(self, key: str, data: bytes, *, if_absent: bool = False,
                  retention: Retention | None = None,
                  content_type: str = "application/octet-stream") -> bool:
        return self._call("put_bytes", key, lambda: self.inner.put_bytes(
            key, data, if_absent=if_absent, retention=retention, content_type=content_type))

    def get_file(self, key: str, path: Path) -> None:
        self._call("get_file", key, lambda: self.inner.get_file(key, path))

    def get_bytes(self, key: str, max_size: int | None = None) -> bytes:
        return self._call("get_bytes", key, lambda: self.inner.get_bytes(key, max_size))

    def open_read(self, key: str) -> BinaryIO:
        return self._call("open_read", key, lambda: self.inner.open_read(key))

    def exists(self, key: str) -> bool:
        return self._call("exists", key, lambda: self.inner.exists(key))

    def head(self, key: str) -> ObjectInfo | None:
        return self._call("head", key, lambda: self.inner.head(key))

    def list(self, prefix: str = "") -> Iterator[ObjectInfo]:
        return self.inner.list(prefix)

    def delete(self, key: str) -> None:
        self._call("delete", key, lambda: self.inner.delete(key))

    def set_legal_hold(self, key: str, on: bool) -> None:
        self._call("set_legal_hold", key, lambda: self.inner.set_legal_hold(key, on))

    def get_retention(self, key: str) -> Retention | None:
        return self._call("get_retention", key, lambda: self.inner.get_retention(key))

    def abort_incomplete_uploads(self, older_than: timedelta) -> int:
        return self._call("abort_incomplete_uploads", "",
                          lambda: self.inner.abort_incomplete_uploads(older_than))

    def describe(self) -> str:
        return self.inner.describe()


class RetryingStore(StoreWrapper):
    """Retries transient failures with exponential backoff and jitter.

    Attempt n waits d/2 + uniform(0, d/2) with d = min(max_delay, base_delay * 2**(n-1)).
    Not retried: NotFound, non-transient StoreErrors (4xx, invalid keys), anything else.

    Notes on semantics under retry:
    - put_bytes(if_absent=True) may return False when an earlier attempt did write the
      object but its response was lost (the object is there either way).
    - list() resumes after the last key it yielded (inner listings are in key order), so a
      failure mid-listing neither repeats nor skips keys; progress resets the attempt count.
    - open_read() retries opening only; errors while reading the stream reach the caller.
    """

    def __init__(self, inner: ObjectStore, attempts: int = 5, base_delay: float = 0.2,
                 max_delay: float = 5.0, *, sleep: Callable[[float], None] = time.sleep,
                 rng: random.Random | None = None) -> None:
        if attempts < 1:
            raise ValueError("attempts must be >= 1")
        super().__init__(inner)
        self.attempts = attempts
        self.base_delay = base_delay
        self.max_delay = max_delay
        self._sleep = sleep
        self._rng = rng or random.Random()

    def delay(self, attempt: int) -> float:
        d = min(self.max_delay, self.base_delay * 2 ** (attempt - 1))
        return d / 2 + self._rng.uniform(0, d / 2)

    def _retry_or_raise(self, op: str, key: str, attempt: int, exc: Exception) -> None:
        if attempt >= self.attempts or not is_transient(exc):
            raise exc
        wait = self.delay(attempt)
        log.warning("store %s %r failed (attempt %d/%d), retrying in %.2fs: %s",
                    op, key, attempt, self.attempts, wait, _reason(exc))
        self._sleep(wait)

    def _call(self, op: str, key: str, fn: Callable[[], T]) -> T:
        attempt = 1
        while True:
            try:
                return fn()
            except Exception as e:
                self._retry_or_raise(op, key, attempt, e)
            attempt += 1

    def list(self, prefix: str = "") -> Iterator[ObjectInfo]:
        last: str | None = None
        attempt = 1
        while True:
            try:
                for info in self.inner.list(prefix):
                    if last is not None and info.key <= last:
                        continue
                    last = info.key
                    attempt = 1
                    yield info
                return
            except Exception as e:
                self._retry_or_raise("list", prefix, attempt, e)
            attempt += 1


class LoggingStore(StoreWrapper):
    """Logs every call at DEBUG: operation, key, duration, and the error reason if any.
    Under RetryingStore this logs each attempt."""

    def __init__(self, inner: ObjectStore, logger: logging.Logger | None = None) -> None:
        super().__init__(inner)
        self._log = logger or log

    def _call(self, op: str, key: str, fn: Callable[[], T]) -> T:
        if not self._log.isEnabledFor(logging.DEBUG):
            return fn()
        start = time.monotonic()
        try:
            result = fn()
        except Exception as e:
            self._log.debug("store %s %r failed after %.3fs: %s", op, key,
                            time.monotonic() - start, _reason(e))
            raise
        self._log.debug("store %s %r ok in %.3fs", op, key, time.monotonic() - start)
        return result

    def list(self, prefix: str = "") -> Iterator[ObjectInfo]:
        start = time.monotonic()
        n = 0
        try:
            for info in self.inner.list(prefix):
                n += 1
                yield info
        except Exception as e:
            self._log.debug("store list %r failed after %d objects: %s", prefix, n, _reason(e))
            raise
        self._log.debug("store list %r: %d objects in %.3fs", prefix, n, time.monotonic() - start)


class ReadOnlyStore(StoreWrapper):
    """What a reader (ls, lineage, verify, restore, export, snapshots) holds: reads pass
    through, every write (put, delete, legal hold, upload clean-up) raises StoreError before
    the inner store is called, so a reader can never create, change or remove anything in a
    store. Attributes the guard does not define are forwarded as usual."""

    read_only = True

    def _refuse(self, op: str, key: str) -> StoreError:
        return StoreError(key, f"{op} refused: {self.inner.describe()} was opened read-only")

    def put_file(self, key: str, path: Path, *, content_type: str = "application/octet-stream",
                 retention: Retention | None = None) -> None:
        raise self._refuse("put_file", key)

    def put_bytes(self, key: str, data: bytes, *, if_absent: bool = False,
                  retention: Retention | None = None,
                  content_type: str = "application/octet-stream") -> bool:
        raise self._refuse("put_bytes", key)

    def delete(self, key: str) -> None:
        raise self._refuse("delete", key)

    def set_legal_hold(self, key: str, on: bool) -> None:
        raise self._refuse("set_legal_hold", key)

    def abort_incomplete_uploads(self, older_than: timedelta) -> int:
        raise self._refuse("abort_incomplete_uploads", "")

    def defer_dir_sync(self, prefix: str) -> None:
        raise self._refuse("defer_dir_sync", prefix)

    def sync_dirs(self) -> int:
        return 0  # nothing was written through this store
