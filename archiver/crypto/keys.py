"""Key files: the single place that creates and reads identity, recipient and team key."""

from __future__ import annotations

import hashlib
import hmac
import logging
import os
import stat
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from archiver.crypto.age import X25519Identity

__all__ = [
    "KeyFiles",
    "TeamKeys",
    "keygen",
    "load_team_key",
    "team_key_from_env",
    "derive_key",
    "host_id",
    "TEAM_KEY_MIN_BYTES",
]

log = logging.getLogger(__name__)

TEAM_KEY_MIN_BYTES = 32
_MAX_TEAM_KEY_FILE = 64 * 1024

IDENTITY_FILE = "identity.txt"
RECIPIENT_FILE = "recipient.txt"
TEAM_KEY_FILE = "team.key"


@dataclass(frozen=True)
class KeyFiles:
    """What keygen wrote."""

    identity_file: Path
    recipient_file: Path
    team_key_file: Path
    recipient: str


def _write_private(path: Path, data: bytes, force: bool) -> None:
    flags = os.O_WRONLY | os.O_CREAT | (os.O_TRUNC if force else os.O_EXCL)
    fd = os.open(path, flags | getattr(os, "O_NOFOLLOW", 0), 0o600)
    try:
        os.fchmod(fd, 0o600)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
    finally:
        os.close(fd)


def keygen(out_dir: Path, force: bool = False) -> KeyFiles:
    """Create identity.txt, recipient.txt and team.key (mode 0600) in out_dir (0700 if created)."""
    out_dir = Path(out_dir)
    if not out_dir.exists():
        out_dir.mkdir(parents=True, mode=0o700)
        os.chmod(out_dir, 0o700)
    files = KeyFiles(
        identity_file=out_dir / IDENTITY_FILE,
        recipient_file=out_dir / RECIPIENT_FILE,
        team_key_file=out_dir / TEAM_KEY_FILE,
        recipient="",
    )
    if not force:
        for p in (files.identity_file, files.recipient_file, files.team_key_file):
            if p.exists() or p.is_symlink():
                raise FileExistsError(f"{p} already exists")
    ident = X25519Identity.generate()
    recipient = str(ident.recipient)
    created = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    identity_text = (
        f"# created: {created}\n# public key: {recipient}\n{ident.encode()}\n"
    ).encode("ascii")
    _write_private(files.identity_file, identity_text, force)
    _write_private(files.recipient_file, (recipient + "\n").encode("ascii"), force)
    _write_private(files.team_key_file, (os.urandom(32).hex() + "\n").encode("ascii"), force)
    return KeyFiles(files.identity_file, files.recipient_file, files.team_key_file, recipient)


def _parse_team_key(text: str, where: str) -> bytes:
    lines = [ln.strip() for ln in text.splitlines()]
    lines = [ln for ln in lines if ln and not ln.startswith("#")]
    if len(lines) != 1:
        raise ValueError(f"{where}: expected exactly one line of hex, found {len(lines)}")
    try:
        key = bytes.fromhex(lines[0])
    except ValueError:
        raise ValueError(f"{where}: team key is not valid hex") from None
    if len(key) < TEAM_KEY_MIN_BYTES:
        raise ValueError(
            f"{where}: team key is {len(key)} bytes, at least {TEAM_KEY_MIN_BYTES} required"
        )
    return key


def load_team_key(path: Path) -> bytes:
    """Read a team key file (one line of hex, >= 32 bytes). Warns if group/world readable."""
    path = Path(path)
    try:
        st = path.stat()
        with open(path, "rb") as f:
            raw = f.read(_MAX_TEAM_KEY_FILE + 1)
    except OSError as e:
        raise ValueError(f"{path}: cannot read team key: {e.strerror}") from None
    if stat.S_IMODE(st.st_mode) & 0o077:
        log.warning("team key file %s is accessible by group/others (mode %o); chmod 600 it",
                    path, stat.S_IMODE(st.st_mode))
    if len(raw) > _MAX_TEAM_KEY_FILE:
        raise ValueError(f"{path}: team key file is too large")
    try:
        text = raw.decode("ascii")
    except UnicodeDecodeError:
        raise ValueError(f"{path}: team key file is not ASCII hex") from None
    return _parse_team_key(text, str(path))


def team_key_from_env(value: str) -> bytes:
    """Parse a team key given in an environment variable (hex)."""
    return _parse_team_key(value, "ARCHIVER_TEAM_KEY")


def derive_key(team_key: bytes, purpose: str) -> bytes:
    """HMAC-SHA256(team_key, b"archiver/v1/" + purpose)."""
    return hmac.new(team_key, b"archiver/v1/" + purpose.encode(), hashlib.sha256).digest()


@dataclass(frozen=True)
class TeamKeys:
    """Per-purpose keys derived from the team key. repr never shows them."""

    object_id: bytes = field(repr=False)
    pseudonym: bytes = field(repr=False)
    host_id: bytes = field(repr=False)

    @classmethod
    def from_team_key(cls, team_key: bytes) -> TeamKeys:
        if len(team_key) < TEAM_KEY_MIN_BYTES:
            raise ValueError(f"team key must be at least {TEAM_KEY_MIN_BYTES} bytes")
        return cls(
            object_id=derive_key(team_key, "object-id"),
            pseudonym=derive_key(team_key, "pseudonym"),
            host_id=derive_key(team_key, "host-id"),
        )


def host_id(keys: TeamKeys, hostname: str) -> str:
    """A 16-hex-char pseudonym for a host name."""
    return hmac.new(keys.host_id, hostname.encode(), hashlib.sha256).hexdigest()[:16]
