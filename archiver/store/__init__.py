"""Blob stores: the ObjectStore protocol, s3:// and file:// backends, retry/logging wrappers.

    store = open_store("s3://bucket/prefix", StoreOptions(sse="AES256"))
    store.put_file("objects/ab/abcdef", path)

open_store returns RetryingStore(LoggingStore(backend)); backend-specific attributes
(S3Store.client, .bucket, .prefix) are reachable through the wrappers. Readers open with
`read_only=True` (runtime.store passes it on): every write is refused, and a file:// root
that does not exist is not created.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlsplit

from archiver.store.base import (
    NotFound,
    ObjectInfo,
    ObjectStore,
    Retention,
    StoreError,
    StoreOptions,
    check_key,
    check_prefix,
    strip_userinfo,
)
from archiver.store.local import LocalStore
from archiver.store.retry import LoggingStore, ReadOnlyStore, RetryingStore, StoreWrapper, is_transient

if TYPE_CHECKING:
    from archiver.store.s3 import S3Store

__all__ = [
    "LocalStore",
    "LoggingStore",
    "NotFound",
    "ObjectInfo",
    "ObjectStore",
    "ReadOnlyStore",
    "Retention",
    "RetryingStore",
    "S3Store",
    "StoreError",
    "StoreOptions",
    "StoreWrapper",
    "check_key",
    "check_prefix",
    "is_transient",
    "open_backend",
    "strip_userinfo",
    "open_store",
    "as_read_only",
]



def __getattr__(name: str) -> Any:
    # boto3 costs ~0.3 s to import: only runs that use an s3:// store pay for it
    if name == "S3Store":
        from archiver.store.s3 import S3Store

        return S3Store
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_EXPECTED = "expected s3://bucket/prefix or file:///absolute/path"


def open_backend(url: str, options: StoreOptions | None = None, *, lazy: bool = False,
                 read_only: bool = False) -> S3Store | LocalStore:
    """The bare backend for `url`, without wrappers. Raises ValueError naming the url. With
    `lazy`, an S3 backend (boto3 and its client) is made on first use: a sync that finds
    nothing changed never makes one."""
    options = options or StoreOptions()
    shown = strip_userinfo(url)
    try:
        parts = urlsplit(url)
    except ValueError:
        raise ValueError(f"invalid store url {shown!r}: {_EXPECTED}") from None
    if parts.query or parts.fragment:
        raise ValueError(f"invalid store url {shown!r}: no query or fragment allowed")
    if parts.scheme == "s3":
        if parts.username is not None or parts.password is not None:
            raise ValueError(f"invalid store url {shown!r}: credentials do not belong in the "
                             "url; they come from the standard AWS chain")
        if not parts.netloc:
            raise ValueError(f"invalid store url {shown!r}: no bucket; {_EXPECTED}")
        prefix = parts.path.strip("/")
        if prefix:  # checked here too, so that a lazy store fails at once on a bad url
            try:
                check_prefix(prefix)
            except StoreError as e:
                raise ValueError(f"invalid store url {shown!r}: invalid s3 prefix {prefix!r}: {e.reason}") from None
        if lazy:
            return _LazyBackend(lambda: open_backend(url, options, read_only=read_only))  # type: ignore[return-value]
        from archiver.store.s3 import S3Store

        try:
            return S3Store(parts.netloc, parts.path, options)
        except ValueError as e:
            raise ValueError(f"invalid store url {shown!r}: {e}") from None
    if parts.scheme == "file":
        if parts.netloc not in ("", "localhost"):
            raise ValueError(f"invalid store url {shown!r}: file urls need an absolute path "
                             "(file:///path)")
        path = Path(unquote(parts.path))
        if not path.is_absolute() or not parts.path.strip("/"):
            raise ValueError(f"invalid store url {shown!r}: {_EXPECTED}")
        if options.object_lock_mode is not None:
            raise ValueError(f"store url {shown!r}: object_lock_mode needs an s3:// store")
        return LocalStore(path, read_only=read_only)
    raise ValueError(f"unsupported store url {shown!r}: {_EXPECTED}")


def open_store(url: str, options: StoreOptions | None = None, *, lazy: bool = False,
               read_only: bool = False) -> ObjectStore:
    """`s3://bucket/prefix` -> S3Store, `file:///abs/path` -> LocalStore, wrapped in
    RetryingStore(LoggingStore(...)) with options.operation_attempts attempts; with
    `read_only`, in a ReadOnlyStore too."""
    options = options or StoreOptions()
    backend = open_backend(url, options, lazy=lazy, read_only=read_only)
    store = RetryingStore(LoggingStore(backend), attempts=options.operation_attempts)
    return as_read_only(store) if read_only else store


def as_read_only(store: ObjectStore) -> ObjectStore:
    """`store` behind a ReadOnlyStore (once): for a reader given a store opened elsewhere."""
    return store if isinstance(store, ReadOnlyStore) else ReadOnlyStore(store)



class _LazyBackend:
    """A backend made on first use (once, whichever thread asks first)."""

    def __init__(self, make: Any) -> None:
        import threading

        self._make = make
        self._inner: Any = None
        self._lock = threading.Lock()

    def __getattr__(self, name: str) -> Any:
        inner = self._inner
        if inner is None:
            with self._lock:
                if self._inner is None:
                    self._inner = self._make()
                inner = self._inner
        return getattr(inner, name)
