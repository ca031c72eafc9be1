"""Key rotation, recipients, and passphrase-protected (offline recovery) identities.

rekey: re-encrypt every manifest to the currently configured recipients (new manifest
under the same time stamp first, then the old one is deleted; a manifest under retention
or hold is rewritten in place instead, as a new version, and reported). With `objects`,
every object is re-encrypted in place (same key: the id is over the plaintext). Objects
not rewritten stay readable by the identities they were encrypted to, and an old version
kept by bucket versioning or Object Lock stays readable by the old identities until it
expires.

Recovery identities: an identity file may itself be age-encrypted with a passphrase
(scrypt), exactly as `age -p` writes it and `age -d -i` reads it. Its recipient goes into
`encryption.recipients` like any other; the file and its passphrase are kept offline.
"""

from __future__ import annotations

import io
import logging
import os
import tempfile
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Sequence

from archiver.archive import Archive, ArchiveFormatError, object_key
from archiver.crypto import age
from archiver.pack import pack_bytes, pack_file
from archiver.prune import load_all, lock_state
from archiver.store.base import NotFound, StoreError

log = logging.getLogger(__name__)

AGE_MAGIC = b"age-encryption.org/v1\n"
MAX_IDENTITY_FILE = 1 << 20
PASSPHRASE_ENV = "ARCHIVER_PASSPHRASE"


class IdentityError(ValueError):
    """An identity file cannot be used; the message names the file and the reason."""


def read_passphrase(path: Path | None) -> bytes | None:
    """The passphrase from a file (first line) or ARCHIVER_PASSPHRASE, or None."""
    if path is not None:
        try:
            data = Path(path).read_bytes()[:4096]
        except OSError as e:
            raise IdentityError(f"{path}: cannot read passphrase ({e.strerror})") from None
        line = data.splitlines()[0] if data.splitlines() else b""
        if not line:
            raise IdentityError(f"{path}: empty passphrase file")
        return line
    env = os.environ.get(PASSPHRASE_ENV)
    return env.encode() if env else None


def load_identity_file(path: Path, passphrase: bytes | None = None) -> list[age.X25519Identity]:
    """Identities from an age-keygen file, or from one encrypted with a passphrase."""
    try:
        raw = Path(path).read_bytes()[: MAX_IDENTITY_FILE + 1]
    except OSError as e:
        raise IdentityError(f"{path}: cannot read identity ({e.strerror})") from None
    if len(raw) > MAX_IDENTITY_FILE:
        raise IdentityError(f"{path}: identity file too large")
    if raw.startswith(AGE_MAGIC) or raw.startswith(b"-----BEGIN AGE ENCRYPTED FILE-----"):
        if passphrase is None:
            raise IdentityError(f"{path}: the identity is passphrase-protected; give --identity-passphrase-file "
                                f"or set {PASSPHRASE_ENV}")
        out = io.BytesIO()
        try:
            age.decrypt_stream(io.BytesIO(raw), out, [age.ScryptIdentity(passphrase)], max_output=MAX_IDENTITY_FILE)
        except age.NoIdentityMatched:
            raise IdentityError(f"{path}: wrong passphrase (or not a passphrase-encrypted file)") from None
        except age.AgeError as e:
            raise IdentityError(f"{path}: cannot decrypt identity ({e})") from None
        raw = out.getvalue()
    try:
        text = raw.decode("ascii")
    except UnicodeDecodeError:
        raise IdentityError(f"{path}: not an age identity file") from None
    found = []
    for n, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        try:
            found.append(age.parse_identity(line))
        except age.AgeKeyError as e:
            raise IdentityError(f"{path}:{n}: {e}") from None
    if not found:
        raise IdentityError(f"{path}: no identities found")
    return found


def make_recovery_identity(out: Path, passphrase: bytes, work_factor: int = 18, force: bool = False) -> str:
    """Write a new X25519 identity encrypted with `passphrase` (0600); return its recipient."""
    if len(passphrase) < 12:
        raise IdentityError("a recovery passphrase needs at least 12 characters")
    if out.exists() and not force:
        raise FileExistsError(f"{out} already exists")
    ident = age.X25519Identity.generate()
    created = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    plain = f"# created: {created}\n# public key: {ident.recipient}\n{ident.encode()}\n".encode()
    enc = io.BytesIO()
    age.encrypt_stream(io.BytesIO(plain), enc, [age.ScryptRecipient(passphrase, work_factor)])
    flags = os.O_WRONLY | os.O_CREAT | (os.O_TRUNC if force else os.O_EXCL) | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(out, flags, 0o600)
    with os.fdopen(fd, "wb") as f:
        os.fchmod(f.fileno(), 0o600)
        f.write(enc.getvalue())
    return str(ident.recipient)


@dataclass
class RekeyResult:
    manifests_rewritten: list[dict[str, str]] = field(default_factory=list)
    manifests_in_place: list[str] = field(default_factory=list)  # locked: new version, old kept
    objects_rewritten: int = 0
    objects_locked: list[str] = field(default_factory=list)  # rewritten; an old version stays locked
    objects_skipped: int = 0
    errors: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, object]:
        return {
            "manifests": {"rewritten": self.manifests_rewritten, "rewritten_in_place_locked": self.manifests_in_place},
            "objects": {"rewritten": self.objects_rewritten, "old_versions_locked": self.objects_locked,
                        "not_rewritten": self.objects_skipped},
            "errors": self.errors, "ok": not self.errors,
        }


def rekey(
    archive: Archive,
    identities: Sequence[object],
    recipients: Sequence[object],
    *,
    objects: bool = False,
    tmp_parent: Path | None = None,
    progress: Callable[[int], None] | None = None,
) -> RekeyResult:
    now = datetime.now(timezone.utc)
    result = RekeyResult()
    refs, loaded, errors = load_all(archive, identities)
    if errors:
        result.errors += errors + ["some manifests cannot be read with the given identity: nothing was changed"]
        return result
    for ref in refs:
        m = loaded[ref.key]
        locked = lock_state(archive, ref.key, now)
        try:
            if locked:
                archive.store.put_bytes(ref.key, pack_bytes(m.model_dump_json().encode(), recipients))  # type: ignore[arg-type]
                result.manifests_in_place.append(f"{ref.key}: {locked}")
                continue
            new_key = archive.put_manifest(m, recipients)
            archive.store.delete(ref.key)
            result.manifests_rewritten.append({"old": ref.key, "new": new_key})
        except StoreError as e:
            result.errors.append(f"{ref.key}: {e}")
    ids = sorted({oid for m in loaded.values() for s in m.sessions for a in s.artifacts for oid in a.objects})
    if not objects:
        result.objects_skipped = len(ids)
        return result
    with tempfile.TemporaryDirectory(prefix="archiver-rekey-", dir=tmp_parent) as tmp:
        os.chmod(tmp, 0o700)
        plain, packed = Path(tmp) / "plain", Path(tmp) / "packed"
        for oid in ids:
            key = object_key(oid)
            try:
                archive.read_object(oid, plain, identities)
                pack_file(plain, packed, recipients)  # type: ignore[arg-type]
                archive.store.put_file(key, packed)
                result.objects_rewritten += 1
                why = lock_state(archive, key, now)
                if why:
                    result.objects_locked.append(f"{key}: {why}")
            except NotFound:
                result.errors.append(f"{key}: missing")
            except (StoreError, age.AgeError, ArchiveFormatError, ValueError) as e:
                result.errors.append(f"{key}: {type(e).__name__}: {e}")
            finally:
                plain.unlink(missing_ok=True)
                packed.unlink(missing_ok=True)
                if progress:
                    progress(1)
    return result
