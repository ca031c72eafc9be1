"""file:// store: one file per key under a root directory.

Writes are atomic (temp file in the target directory, fsync, os.replace), directories the
store creates are 0700 and files 0600. Keys cannot escape the root: '..', absolute keys,
backslashes and symlinks pointing outside are rejected with StoreError.

A writer's store makes its root (0700, with any missing parents) when opened, and again
on a write if it has gone since. A read-only store (`read_only=True`, what readers open)
never makes anything: a reader pointed at a mistyped path finds nothing there rather than
leaving an empty folder behind, and every write raises StoreError.

Object Lock does not exist here: get_retention() returns None, and set_legal_hold() or a
put with a retention raise NotImplementedError (open_store refuses a file:// url with
object_lock_mode configured, so that mistake surfaces at startup).
"""

from __future__ import annotations

import errno
import os
import shutil
import stat
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import BinaryIO, Iterator

from archiver.store.base import NotFound, ObjectInfo, Retention, StoreError, check_key, check_prefix

TMP_PREFIX = ".tmp-"
_COPY_BUF = 1024 * 1024
_SYNC_THREADS = 8  # directory fsyncs at a flush run side by side: the journal commits them together


class LocalStore:
    def __init__(self, root: Path, *, read_only: bool = False) -> None:
        if not root.is_absolute():
            raise ValueError(f"file store root must be an absolute path, got {str(root)!r}")
        self.root = root
        self.read_only = read_only
        if not read_only:
            with _errors("", f"create the store folder {root}"):  # a file in the way: one clear error
                _makedirs(root, stop=Path(root.anchor))
        self._real_root = Path(os.path.realpath(root))
        # existing directories found to resolve inside the root: os.path.realpath of every key
        # (an lstat per path component, ~1 ms) was the main cost of a put per object
        self._inside: set[str] = set()
        self._lock = threading.Lock()
        # keys under these prefixes have their directory fsync deferred to sync_dirs()
        self._deferred: tuple[str, ...] = ()
        self._pending_dirs: set[str] = set()

    # -- paths ------------------------------------------------------------------------------

    def _path(self, key: str) -> Path:
        check_key(key)
        if any(seg.startswith(TMP_PREFIX) for seg in key.split("/")):
            raise StoreError(key, f"invalid key: segments starting {TMP_PREFIX!r} are reserved")
        path = self.root / key
        parent = os.path.dirname(path)
        if parent in self._inside and not _is_symlink(path):
            # realpath(path) == realpath(parent)/name when name is no symlink: checked already
            return path
        if not Path(os.path.realpath(path)).is_relative_to(self._real_root):
            raise StoreError(key, "invalid key: resolves outside the store root")
        if os.path.isdir(parent):  # (a missing one may yet be made a symlink: checked each time)
            with self._lock:
                self._inside.add(parent)
        return path

    # -- deferred directory fsyncs ------------------------------------------------------------

    def defer_dir_sync(self, prefix: str) -> None:
        """From now on, a put under `prefix` fsyncs its file before the rename (a name that
        survives a crash always has its bytes) but leaves the fsync of the directory entry to
        sync_dirs(): until then a crash may lose the name, never expose a partial file. The
        caller calls sync_dirs() before anything that names such a key is written (a manifest:
        docs/FORMAT.md §6)."""
        check_prefix(prefix)
        with self._lock:
            self._deferred = (*self._deferred, prefix)

    def sync_dirs(self) -> int:
        """Fsync every directory whose entries changed under a deferred prefix since the last
        call (and the parents of directories made for them). Returns how many; raises
        StoreError when one cannot be synced (the names in it may not be durable)."""
        with self._lock:
            dirs, self._pending_dirs = sorted(self._pending_dirs), set()
        if not dirs:
            return 0
        with ThreadPoolExecutor(min(_SYNC_THREADS, len(dirs))) as pool:
            failed = [d for d, ok in zip(dirs, pool.map(_fsync_dir_checked, dirs)) if not ok]
        if failed:
            with self._lock:
                self._pending_dirs.update(failed)  # a later call tries them again
            raise StoreError(os.path.relpath(failed[0], self.root), "cannot fsync the directory")
        return len(dirs)

    def _synced(self, key: str, dest: Path, made: list[Path]) -> None:
        """The directory fsync after a put: now, or (deferred prefix) at sync_dirs()."""
        if self._deferred and key.startswith(self._deferred):
            with self._lock:
                self._pending_dirs.add(str(dest.parent))
                self._pending_dirs.update(str(d.parent) for d in made)
            return
        _fsync_dir(dest.parent)

    def _info(self, key: str, st: os.stat_result) -> ObjectInfo:
        return ObjectInfo(key, st.st_size, datetime.fromtimestamp(st.st_mtime, timezone.utc), None)

    # -- writes -----------------------------------------------------------------------------

    def put_file(self, key: str, path: Path, *, content_type: str = "application/octet-stream",
                 retention: Retention | None = None) -> None:
        self._writable(key)
        _no_retention(retention)
        dest = self._path(key)
        try:
            src = open(path, "rb")
        except OSError as e:
            raise StoreError(key, f"cannot read source file: {e.strerror or type(e).__name__}") from e
        made: list[Path] = []
        with src, _errors(key, "write"), self._tempfile(dest, made) as (fd, tmp):
            with os.fdopen(os.dup(fd), "wb") as out:
                shutil.copyfileobj(src, out, _COPY_BUF)
            os.fsync(fd)
            os.replace(tmp, dest)
        self._synced(key, dest, made)

    def put_bytes(self, key: str, data: bytes, *, if_absent: bool = False,
                  retention: Retention | None = None,
                  content_type: str = "application/octet-stream") -> bool:
        self._writable(key)
        _no_retention(retention)
        dest = self._path(key)
        made: list[Path] = []
        with _errors(key, "write"), self._tempfile(dest, made) as (fd, tmp):
            _write_fd(fd, data)
            os.fsync(fd)
            if if_absent:
                if not _link_if_absent(tmp, dest):
                    return False
            else:
                os.replace(tmp, dest)
        self._synced(key, dest, made)
        return True

    def _writable(self, key: str) -> None:
        if self.read_only:
            raise StoreError(key, f"refused: {self.describe()} was opened read-only")

    def _makedirs(self, path: Path) -> list[Path]:
        """Missing directories down to `path`; the root and its missing parents too when the
        root has gone since the store was opened."""
        if not self.root.is_dir():
            return _makedirs(path, stop=Path(self.root.anchor))
        return _makedirs(path, stop=self.root)

    @contextmanager
    def _tempfile(self, dest: Path, made: list[Path] | None = None) -> Iterator[tuple[int, str]]:
        parent = str(dest.parent)
        if parent not in self._inside:  # (a directory _path found existing needs no makedirs)
            (made if made is not None else []).extend(self._makedirs(dest.parent))
        try:
            fd, tmp = tempfile.mkstemp(prefix=TMP_PREFIX, dir=parent)  # mode 0600
        except FileNotFoundError:  # removed since (delete, or a prune in another process)
            with self._lock:
                self._inside.discard(parent)
            (made if made is not None else []).extend(self._makedirs(dest.parent))
            fd, tmp = tempfile.mkstemp(prefix=TMP_PREFIX, dir=parent)
        try:
            yield fd, tmp
        finally:
            os.close(fd)
            if os.path.lexists(tmp):
                os.unlink(tmp)

    # -- reads ------------------------------------------------------------------------------

    def get_file(self, key: str, path: Path) -> None:
        with self._open(key) as src:
            tmp = None
            try:
                fd, tmp = tempfile.mkstemp(prefix=TMP_PREFIX, dir=path.parent)
                with os.fdopen(fd, "wb") as out:
                    shutil.copyfileobj(src, out, _COPY_BUF)
                os.replace(tmp, path)
            except OSError as e:
                reason = e.strerror or type(e).__name__
                raise StoreError(key, f"cannot write destination file: {reason}") from e
            finally:
                if tmp is not None and os.path.lexists(tmp):
                    os.unlink(tmp)

    def get_bytes(self, key: str, max_size: int | None = None) -> bytes:
        with self._open(key) as f, _errors(key, "read"):
            size = os.fstat(f.fileno()).st_size
            if max_size is not None and size > max_size:
                raise StoreError(key, f"object is {size} bytes, larger than the limit {max_size}")
            return f.read()

    def open_read(self, key: str) -> BinaryIO:
        return self._open(key)

    def _open(self, key: str) -> BinaryIO:
        path = self._path(key)
        try:
            return open(path, "rb")
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError) as e:
            raise NotFound(key) from e
        except OSError as e:
            raise StoreError(key, f"read: {e.strerror or type(e).__name__}") from e

    def exists(self, key: str) -> bool:
        return self.head(key) is not None

    def head(self, key: str) -> ObjectInfo | None:
        path = self._path(key)
        try:
            st = os.stat(path)
        except (FileNotFoundError, NotADirectoryError):
            return None
        except OSError as e:
            raise StoreError(key, f"stat: {e.strerror or type(e).__name__}") from e
        return self._info(key, st) if stat.S_ISREG(st.st_mode) else None

    def list(self, prefix: str = "") -> Iterator[ObjectInfo]:
        check_prefix(prefix)
        # walk only the deepest directory the prefix names, then filter by the string prefix
        base = prefix.rpartition("/")[0]
        start = self.root / base if base else self.root
        found: list[ObjectInfo] = []
        with _errors(prefix, "list"):
            for rel, st in _walk(start, base):
                if rel.startswith(prefix):
                    found.append(self._info(rel, st))
        # S3 order (UTF-8 byte order == code point order), so callers can resume by key
        found.sort(key=lambda i: i.key)
        yield from found

    # -- deletes and maintenance ------------------------------------------------------------

    def delete(self, key: str) -> None:
        self._writable(key)
        path = self._path(key)
        try:
            path.unlink()
        except (FileNotFoundError, NotADirectoryError):
            return
        except OSError as e:
            raise StoreError(key, f"delete: {e.strerror or type(e).__name__}") from e
        parent = path.parent
        while parent != self.root and parent.is_relative_to(self.root):
            try:
                parent.rmdir()  # only succeeds when empty
            except OSError:
                break
            with self._lock:
                self._inside.discard(str(parent))
            parent = parent.parent

    def abort_incomplete_uploads(self, older_than: timedelta) -> int:
        """Remove temp files left by interrupted writes that are older than `older_than`."""
        self._writable("")
        cutoff = (datetime.now(timezone.utc) - older_than).timestamp()
        removed = 0
        for dirpath, _dirs, files in os.walk(self.root):
            for name in files:
                if not name.startswith(TMP_PREFIX):
                    continue
                p = os.path.join(dirpath, name)
                try:
                    if os.lstat(p).st_mtime <= cutoff:
                        os.unlink(p)
                        removed += 1
                except FileNotFoundError:
                    pass
        return removed

    def set_legal_hold(self, key: str, on: bool) -> None:
        self._writable(key)
        raise NotImplementedError(f"object {key!r}: legal hold is not supported by file:// stores")

    def get_retention(self, key: str) -> Retention | None:
        if self.head(key) is None:
            raise NotFound(key)
        return None

    def describe(self) -> str:
        return self.root.as_uri()


def _walk(start: Path, base: str) -> Iterator[tuple[str, os.stat_result]]:
    try:
        entries = list(os.scandir(start))
    except (FileNotFoundError, NotADirectoryError):
        return
    for entry in entries:
        if entry.name.startswith(TMP_PREFIX):
            continue
        rel = f"{base}/{entry.name}" if base else entry.name
        if entry.is_dir(follow_symlinks=False):
            yield from _walk(Path(entry.path), rel)
        elif entry.is_file(follow_symlinks=False):
            yield rel, entry.stat(follow_symlinks=False)


def _makedirs(path: Path, stop: Path) -> list[Path]:
    """Create missing directories down to `path` with mode 0700 (explicitly, not via umask).
    Returns those this call made."""
    missing: list[Path] = []
    p = path
    while not p.exists() and p != stop and p != p.parent:
        missing.append(p)
        p = p.parent
    made: list[Path] = []
    for d in reversed(missing):
        try:
            os.mkdir(d, 0o700)
        except FileExistsError:
            continue
        os.chmod(d, 0o700)
        made.append(d)
    return made


def _is_symlink(path: Path) -> bool:
    try:
        return stat.S_ISLNK(os.lstat(path).st_mode)
    except FileNotFoundError:
        return False
    except OSError:
        return True  # cannot tell: the caller checks the whole path


def _write_fd(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _link_if_absent(tmp: str, dest: Path) -> bool:
    """Atomically publish tmp at dest unless dest exists; False if it already did."""
    try:
        os.link(tmp, dest)
        return True
    except FileExistsError:
        return False
    except OSError as e:
        if e.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV):
            raise
    # filesystem without hard links: not atomic against a concurrent writer, but the
    # content is immutable and content-addressed, so a lost race writes the same bytes
    if dest.exists():
        return False
    os.replace(tmp, dest)
    return True


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _fsync_dir_checked(path: str) -> bool:
    """Fsync a directory; False when it exists but cannot be synced. A directory gone since
    (a concurrent prune removed it empty) holds no name to make durable."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    try:
        os.fsync(fd)
        return True
    except OSError as e:
        return e.errno in (errno.EINVAL, errno.EROFS)  # a filesystem that does not sync directories
    finally:
        os.close(fd)


def _no_retention(retention: Retention | None) -> None:
    if retention is not None:
        raise NotImplementedError("Object Lock retention is not supported by file:// stores")


@contextmanager
def _errors(key: str, op: str) -> Iterator[None]:
    try:
        yield
    except StoreError:
        raise
    except OSError as e:
        raise StoreError(key, f"{op}: {e.strerror or type(e).__name__}") from e
