"""The age v1 file format (https://age-encryption.org/v1), streaming.

X25519 and scrypt recipients, built on `cryptography`. Files written here decrypt
with the `age` CLI and vice versa. Everything read from a file is bounded: header
size, stanza count, line length and scrypt work factor.
"""

from __future__ import annotations

import base64
import binascii
import hmac
import io
import os
import re
from dataclasses import dataclass, field
from hashlib import sha256
from pathlib import Path
from typing import BinaryIO, Iterable, Protocol, Sequence, runtime_checkable

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography.hazmat.primitives.kdf.scrypt import Scrypt

__all__ = [
    "AgeError",
    "AgeHeaderError",
    "AgeDecryptError",
    "AgeKeyError",
    "NoIdentityMatched",
    "Stanza",
    "Recipient",
    "Identity",
    "X25519Recipient",
    "X25519Identity",
    "ScryptRecipient",
    "ScryptIdentity",
    "generate_x25519",
    "parse_recipient",
    "parse_identity",
    "load_recipients",
    "load_identities",
    "EncryptWriter",
    "DecryptReader",
    "encrypt_stream",
    "decrypt_stream",
    "bech32_encode",
    "bech32_decode",
    "MAX_HEADER_SIZE",
    "CHUNK_SIZE",
]

VERSION_LINE = b"age-encryption.org/v1"
CHUNK_SIZE = 64 * 1024
TAG_SIZE = 16
ENC_CHUNK_SIZE = CHUNK_SIZE + TAG_SIZE
FILE_KEY_SIZE = 16
NONCE_SIZE = 16
COLUMNS = 64

MAX_HEADER_SIZE = 1 << 20
MAX_STANZAS = 1024
MAX_LINE = 4096
MAX_SCRYPT_WORK_FACTOR = 22
_MAX_COUNTER = 1 << 88

_X25519_LABEL = b"age-encryption.org/v1/X25519"
_SCRYPT_LABEL = b"age-encryption.org/v1/scrypt"


class AgeError(Exception):
    """Base class for every age error."""


class AgeHeaderError(AgeError):
    """The header is malformed, unsupported, oversized or its MAC does not verify."""


class NoIdentityMatched(AgeError):
    """None of the given identities can unwrap the file key."""


class AgeDecryptError(AgeError):
    """The payload fails authentication, is truncated or has trailing data."""


class AgeKeyError(AgeError, ValueError):
    """A recipient or identity string/file is malformed."""


# ---------------------------------------------------------------- bech32 (BIP-173, no length limit)

_CHARSET = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
_CHARSET_REV = {c: i for i, c in enumerate(_CHARSET)}
_GEN = (0x3B6A57B2, 0x26508E6D, 0x1EA119FA, 0x3D4233DD, 0x2A1462B3)


def _polymod(values: Iterable[int]) -> int:
    chk = 1
    for v in values:
        top = chk >> 25
        chk = ((chk & 0x1FFFFFF) << 5) ^ v
        for i in range(5):
            if (top >> i) & 1:
                chk ^= _GEN[i]
    return chk


def _hrp_expand(hrp: str) -> list[int]:
    return [ord(c) >> 5 for c in hrp] + [0] + [ord(c) & 31 for c in hrp]


def _convert_bits(data: Iterable[int], frm: int, to: int, pad: bool) -> list[int]:
    acc = 0
    bits = 0
    out: list[int] = []
    maxv = (1 << to) - 1
    for v in data:
        acc = (acc << frm) | v
        bits += frm
        while bits >= to:
            bits -= to
            out.append((acc >> bits) & maxv)
    if pad:
        if bits:
            out.append((acc << (to - bits)) & maxv)
    elif bits >= frm or (acc << (to - bits)) & maxv:
        raise ValueError("invalid bech32 padding")
    return out


def bech32_encode(hrp: str, data: bytes) -> str:
    """Bech32 (not bech32m) as age uses it; an upper-case hrp gives an upper-case string."""
    if not hrp or any(not 33 <= ord(c) <= 126 for c in hrp):
        raise ValueError("invalid bech32 human-readable part")
    if hrp.lower() != hrp and hrp.upper() != hrp:
        raise ValueError("mixed-case bech32 human-readable part")
    upper = hrp.lower() != hrp
    low = hrp.lower()
    values = _convert_bits(data, 8, 5, True)
    poly = _polymod(_hrp_expand(low) + values + [0] * 6) ^ 1
    checksum = [(poly >> (5 * (5 - i))) & 31 for i in range(6)]
    s = low + "1" + "".join(_CHARSET[v] for v in values + checksum)
    return s.upper() if upper else s


def bech32_decode(s: str) -> tuple[str, bytes]:
    """Return (hrp as written, data). Raises ValueError on any malformation."""
    if s.lower() != s and s.upper() != s:
        raise ValueError("mixed-case bech32 string")
    pos = s.rfind("1")
    if pos < 1 or pos + 7 > len(s):
        raise ValueError("bech32 separator at invalid position")
    hrp = s[:pos]
    if any(not 33 <= ord(c) <= 126 for c in hrp):
        raise ValueError("invalid bech32 human-readable part")
    try:
        values = [_CHARSET_REV[c] for c in s[pos + 1 :].lower()]
    except KeyError:
        raise ValueError("invalid bech32 character") from None
    if _polymod(_hrp_expand(hrp.lower()) + values) != 1:
        raise ValueError("invalid bech32 checksum")
    return hrp, bytes(_convert_bits(values[:-6], 5, 8, False))


# ---------------------------------------------------------------- primitives

def _b64encode(data: bytes) -> bytes:
    return base64.b64encode(data).rstrip(b"=")


def _b64decode(s: bytes) -> bytes:
    """Strict unpadded standard base64: canonical encodings only."""
    if b"=" in s or len(s) % 4 == 1:
        raise ValueError("invalid base64")
    try:
        data = base64.b64decode(s + b"=" * (-len(s) % 4), validate=True)
    except binascii.Error:
        raise ValueError("invalid base64") from None
    if _b64encode(data) != s:
        raise ValueError("non-canonical base64")
    return data


def _hkdf(ikm: bytes, salt: bytes, info: bytes, length: int = 32) -> bytes:
    return HKDF(algorithm=hashes.SHA256(), length=length, salt=salt, info=info).derive(ikm)


def _aead_encrypt(key: bytes, plaintext: bytes) -> bytes:
    return ChaCha20Poly1305(key).encrypt(bytes(12), plaintext, None)


def _aead_decrypt(key: bytes, size: int, ciphertext: bytes) -> bytes | None:
    """None when the tag does not verify; raises AgeHeaderError on a wrong size."""
    if len(ciphertext) != size + TAG_SIZE:
        raise AgeHeaderError("stanza body has the wrong size for a wrapped file key")
    try:
        return ChaCha20Poly1305(key).decrypt(bytes(12), ciphertext, None)
    except InvalidTag:
        return None


# ---------------------------------------------------------------- stanzas, recipients, identities

_ARG_RE = re.compile(rb"[\x21-\x7e]+")


@dataclass
class Stanza:
    """One recipient stanza of the header."""

    type: str
    args: list[str]
    body: bytes = field(repr=False)

    def marshal(self) -> bytes:
        out = bytearray(b"-> " + " ".join([self.type, *self.args]).encode("ascii") + b"\n")
        enc = _b64encode(self.body)
        for i in range(0, len(enc), COLUMNS):
            out += enc[i : i + COLUMNS] + b"\n"
        if len(enc) % COLUMNS == 0:
            out += b"\n"
        return bytes(out)


@runtime_checkable
class Recipient(Protocol):
    def wrap(self, file_key: bytes) -> list[Stanza]: ...


@runtime_checkable
class Identity(Protocol):
    def unwrap(self, stanzas: Sequence[Stanza]) -> bytes | None:
        """The file key, or None when this identity matches no stanza."""
        ...


class X25519Recipient:
    """An `age1...` public key."""

    def __init__(self, public_key: bytes) -> None:
        if len(public_key) != 32:
            raise AgeKeyError("X25519 public key must be 32 bytes")
        self.public_key = bytes(public_key)

    def __str__(self) -> str:
        return bech32_encode("age", self.public_key)

    def __repr__(self) -> str:
        return f"X25519Recipient({self})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, X25519Recipient) and other.public_key == self.public_key

    def __hash__(self) -> int:
        return hash(self.public_key)

    def wrap(self, file_key: bytes) -> list[Stanza]:
        eph = X25519PrivateKey.generate()
        share = eph.public_key().public_bytes_raw()
        try:
            shared = eph.exchange(X25519PublicKey.from_public_bytes(self.public_key))
        except ValueError:
            raise AgeKeyError("X25519 recipient is a low-order point") from None
        key = _hkdf(shared, share + self.public_key, _X25519_LABEL)
        return [Stanza("X25519", [_b64encode(share).decode()], _aead_encrypt(key, file_key))]


class X25519Identity:
    """An `AGE-SECRET-KEY-1...` secret key. Its repr shows only the public key."""

    def __init__(self, secret_key: bytes) -> None:
        if len(secret_key) != 32:
            raise AgeKeyError("X25519 secret key must be 32 bytes")
        self._secret = bytes(secret_key)
        self._priv = X25519PrivateKey.from_private_bytes(self._secret)
        self.recipient = X25519Recipient(self._priv.public_key().public_bytes_raw())

    @classmethod
    def generate(cls) -> X25519Identity:
        return cls(os.urandom(32))

    def encode(self) -> str:
        """The secret key string (AGE-SECRET-KEY-1...)."""
        return bech32_encode("AGE-SECRET-KEY-", self._secret)

    def __repr__(self) -> str:
        return f"X25519Identity(recipient={self.recipient})"

    def unwrap(self, stanzas: Sequence[Stanza]) -> bytes | None:
        for s in stanzas:
            if s.type != "X25519":
                continue
            if len(s.args) != 1:
                raise AgeHeaderError("invalid X25519 stanza: expected one argument")
            try:
                share = _b64decode(s.args[0].encode())
            except ValueError:
                raise AgeHeaderError("invalid X25519 stanza: bad base64 share") from None
            if len(share) != 32:
                raise AgeHeaderError("invalid X25519 stanza: share is not 32 bytes")
            try:
                shared = self._priv.exchange(X25519PublicKey.from_public_bytes(share))
            except ValueError:
                raise AgeHeaderError("invalid X25519 stanza: low-order share") from None
            key = _hkdf(shared, share + self.recipient.public_key, _X25519_LABEL)
            file_key = _aead_decrypt(key, FILE_KEY_SIZE, s.body)
            if file_key is not None:
                return file_key
        return None


def _check_work_factor(wf: int, maximum: int = 30) -> None:
    if not 1 <= wf <= maximum:
        raise ValueError(f"scrypt work factor must be in 1..{maximum}, got {wf}")


def _scrypt_key(passphrase: bytes, salt: bytes, work_factor: int) -> bytes:
    kdf = Scrypt(salt=_SCRYPT_LABEL + salt, length=32, n=1 << work_factor, r=8, p=1)
    return kdf.derive(passphrase)


class ScryptRecipient:
    """Passphrase encryption. Must be the only recipient of a file."""

    only_recipient = True

    def __init__(self, passphrase: bytes, work_factor: int = 18) -> None:
        if not passphrase:
            raise ValueError("empty passphrase")
        _check_work_factor(work_factor)
        self._passphrase = bytes(passphrase)
        self.work_factor = work_factor

    def __repr__(self) -> str:
        return f"ScryptRecipient(work_factor={self.work_factor})"

    def wrap(self, file_key: bytes) -> list[Stanza]:
        salt = os.urandom(16)
        key = _scrypt_key(self._passphrase, salt, self.work_factor)
        args = [_b64encode(salt).decode(), str(self.work_factor)]
        return [Stanza("scrypt", args, _aead_encrypt(key, file_key))]


class ScryptIdentity:
    """Passphrase decryption; refuses work factors above max_work_factor."""

    def __init__(self, passphrase: bytes, max_work_factor: int = MAX_SCRYPT_WORK_FACTOR) -> None:
        _check_work_factor(max_work_factor)
        self._passphrase = bytes(passphrase)
        self.max_work_factor = max_work_factor

    def __repr__(self) -> str:
        return f"ScryptIdentity(max_work_factor={self.max_work_factor})"

    def unwrap(self, stanzas: Sequence[Stanza]) -> bytes | None:
        for s in stanzas:
            if s.type != "scrypt":
                continue
            if len(stanzas) != 1:
                raise AgeHeaderError("an scrypt stanza must be the only stanza")
            if len(s.args) != 2:
                raise AgeHeaderError("invalid scrypt stanza: expected two arguments")
            try:
                salt = _b64decode(s.args[0].encode())
            except ValueError:
                raise AgeHeaderError("invalid scrypt stanza: bad base64 salt") from None
            if len(salt) != 16:
                raise AgeHeaderError("invalid scrypt stanza: salt is not 16 bytes")
            w = s.args[1]
            if not w.isascii() or not w.isdigit() or w.startswith("0") or len(w) > 3:
                raise AgeHeaderError("invalid scrypt stanza: bad work factor encoding")
            wf = int(w)
            if wf > self.max_work_factor:
                raise AgeHeaderError(
                    f"scrypt work factor {wf} exceeds the maximum {self.max_work_factor}"
                )
            file_key = _aead_decrypt(_scrypt_key(self._passphrase, salt, wf), FILE_KEY_SIZE, s.body)
            if file_key is not None:
                return file_key
        return None


def generate_x25519() -> tuple[str, str]:
    """A new key pair as (identity "AGE-SECRET-KEY-1...", recipient "age1...")."""
    ident = X25519Identity.generate()
    return ident.encode(), str(ident.recipient)


def parse_recipient(s: str) -> X25519Recipient:
    """Parse an `age1...` recipient."""
    s = s.strip()
    try:
        hrp, data = bech32_decode(s)
    except ValueError as e:
        raise AgeKeyError(f"malformed age recipient: {e}") from None
    if hrp == "AGE-SECRET-KEY-":  # an identity file given where recipients belong
        raise AgeKeyError("an age identity (secret key), not a recipient: collectors hold only recipients (age1...)")
    if hrp != "age":
        raise AgeKeyError("malformed age recipient: expected an age1... public key")
    if len(data) != 32:
        raise AgeKeyError("malformed age recipient: wrong key length")
    return X25519Recipient(data)


def parse_identity(s: str) -> X25519Identity:
    """Parse an `AGE-SECRET-KEY-1...` identity. Errors never echo the input."""
    s = s.strip()
    try:
        hrp, data = bech32_decode(s)
    except ValueError as e:
        raise AgeKeyError(f"malformed age identity: {e}") from None
    if hrp == "age":  # a recipient file given where the identity belongs
        raise AgeKeyError("an age recipient (public key), not an identity: reading needs the identity (AGE-SECRET-KEY-1...)")
    if hrp != "AGE-SECRET-KEY-":
        raise AgeKeyError("malformed age identity: expected an AGE-SECRET-KEY-1... string")
    if len(data) != 32:
        raise AgeKeyError("malformed age identity: wrong key length")
    return X25519Identity(data)


_MAX_KEY_FILE = 1 << 20


def _key_lines(path: Path) -> Iterable[tuple[int, str]]:
    with open(path, "rb") as f:
        raw = f.read(_MAX_KEY_FILE + 1)
    if len(raw) > _MAX_KEY_FILE:
        raise AgeKeyError(f"{path}: key file larger than {_MAX_KEY_FILE} bytes")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise AgeKeyError(f"{path}: key file is not UTF-8 text") from None
    for n, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if line and not line.startswith("#"):
            yield n, line


def load_recipients(path: Path) -> list[X25519Recipient]:
    """Recipients from a file like `age -R`: one per line, `#` comments and blanks ignored."""
    out = []
    for n, line in _key_lines(Path(path)):
        try:
            out.append(parse_recipient(line))
        except AgeKeyError as e:
            raise AgeKeyError(f"{path}:{n}: {e}") from None
    if not out:
        raise AgeKeyError(f"{path}: no recipients found")
    return out


def load_identities(path: Path) -> list[X25519Identity]:
    """Identities from a file like `age -i` (e.g. age-keygen output)."""
    out = []
    for n, line in _key_lines(Path(path)):
        try:
            out.append(parse_identity(line))
        except AgeKeyError as e:
            raise AgeKeyError(f"{path}:{n}: {e}") from None
    if not out:
        raise AgeKeyError(f"{path}: no identities found")
    return out


def _coerce_recipients(recipients: Sequence[Recipient | str]) -> list[Recipient]:
    if isinstance(recipients, (str, bytes)) or not isinstance(recipients, Iterable):
        recipients = [recipients]  # type: ignore[list-item]
    out = [parse_recipient(r) if isinstance(r, str) else r for r in recipients]
    if not out:
        raise AgeError("no recipients given")
    if len(out) > 1 and any(getattr(r, "only_recipient", False) for r in out):
        raise AgeError("an scrypt recipient must be the only recipient")
    return out


def _coerce_identities(identities: Sequence[Identity | str]) -> list[Identity]:
    if isinstance(identities, (str, bytes)) or not isinstance(identities, Iterable):
        identities = [identities]  # type: ignore[list-item]
    out = [parse_identity(i) if isinstance(i, str) else i for i in identities]
    if not out:
        raise AgeError("no identities given")
    return out


# ---------------------------------------------------------------- header

def _header_mac(file_key: bytes, header_without_mac: bytes) -> bytes:
    key = _hkdf(file_key, b"", b"header")
    return hmac.new(key, header_without_mac, sha256).digest()


def _payload_key(file_key: bytes, nonce: bytes) -> bytes:
    return _hkdf(file_key, nonce, b"payload")


def _stream_nonce(counter: int, last: bool) -> bytes:
    return counter.to_bytes(11, "big") + (b"\x01" if last else b"\x00")


class _Source:
    """Read-ahead buffer over a source stream."""

    def __init__(self, src: BinaryIO) -> None:
        self._src = src
        self.buf = bytearray()
        self.eof = False

    def fill(self, n: int, block: int = 64 * 1024) -> None:
        while len(self.buf) < n and not self.eof:
            data = self._src.read(max(n - len(self.buf), block))
            if not data:
                self.eof = True
            else:
                self.buf += data

    def take(self, n: int) -> bytes:
        out = bytes(self.buf[:n])
        del self.buf[:n]
        return out


def _read_line(source: _Source, limit: int, max_line: int) -> bytes:
    """One header line without its newline; `limit` bounds the bytes this may consume."""
    start = 0
    while True:
        i = source.buf.find(b"\n", start)
        if i >= 0:
            if i + 1 > limit:
                raise AgeHeaderError("header exceeds the size limit")
            if i > max_line:
                raise AgeHeaderError("header line too long")
            line = source.take(i + 1)[:-1]
            return line
        start = len(source.buf)
        if start > limit:
            raise AgeHeaderError("header exceeds the size limit")
        if start > max_line:
            raise AgeHeaderError("header line too long")
        if source.eof:
            raise AgeHeaderError("header truncated")
        source.fill(start + 1, block=4096)


def _parse_header(source: _Source, max_header_size: int) -> tuple[list[Stanza], bytes, bytes]:
    """Return (stanzas, header bytes covered by the MAC, mac)."""
    raw = bytearray()

    def line() -> bytes:
        ln = _read_line(source, max_header_size - len(raw), MAX_LINE)
        raw.extend(ln + b"\n")
        return ln

    source.fill(len(VERSION_LINE) + 1, block=4096)
    if source.buf.startswith(b"-----BEGIN AGE ENCRYPTED FILE-----"):
        raise AgeHeaderError("ASCII-armored age files are not supported")
    if line() != VERSION_LINE:
        raise AgeHeaderError("not an age v1 file (bad version line)")
    stanzas: list[Stanza] = []
    while True:
        ln = line()
        if ln.startswith(b"---"):
            parts = ln.split(b" ")
            if len(parts) != 2 or parts[0] != b"---":
                raise AgeHeaderError("malformed header MAC line")
            try:
                mac = _b64decode(parts[1])
            except ValueError:
                raise AgeHeaderError("malformed header MAC line") from None
            if len(mac) != 32:
                raise AgeHeaderError("header MAC has the wrong length")
            if not stanzas:
                raise AgeHeaderError("header has no recipient stanzas")
            covered = bytes(raw[: len(raw) - len(ln) - 1]) + b"---"
            return stanzas, covered, mac
        if not ln.startswith(b"-> "):
            raise AgeHeaderError("unexpected line in header")
        if len(stanzas) >= MAX_STANZAS:
            raise AgeHeaderError(f"header has more than {MAX_STANZAS} stanzas")
        args = ln[3:].split(b" ")
        if any(not _ARG_RE.fullmatch(a) for a in args):
            raise AgeHeaderError("malformed stanza line")
        body = bytearray()
        while True:
            bl = line()
            if len(bl) > COLUMNS:
                raise AgeHeaderError("stanza body line too long")
            try:
                body += _b64decode(bl)
            except ValueError:
                raise AgeHeaderError("stanza body is not valid base64") from None
            if len(bl) < COLUMNS:
                break
        decoded = [a.decode("ascii") for a in args]
        stanzas.append(Stanza(decoded[0], decoded[1:], bytes(body)))


# ---------------------------------------------------------------- streaming

def _write_all(dst: BinaryIO, data: bytes | memoryview) -> None:
    """Write everything, looping on short writes (a None return counts as all written)."""
    mv = memoryview(data)
    while mv:
        n = dst.write(mv)
        mv = mv[len(mv) if n is None else n :]


class EncryptWriter:
    """Writable file-like that age-encrypts to dst. close() finishes the file, not dst.

    Leaving a `with` block by an exception does not write the final chunk, so a
    failed write never yields a valid (truncated) file.
    """

    def __init__(self, dst: BinaryIO, recipients: Sequence[Recipient | str]) -> None:
        self._dst = dst
        file_key = os.urandom(FILE_KEY_SIZE)
        stanzas: list[Stanza] = []
        for r in _coerce_recipients(recipients):
            stanzas.extend(r.wrap(file_key))
        if any(s.type == "scrypt" for s in stanzas) and len(stanzas) != 1:
            raise AgeError("an scrypt stanza must be the only stanza")
        head = VERSION_LINE + b"\n" + b"".join(s.marshal() for s in stanzas) + b"---"
        nonce = os.urandom(NONCE_SIZE)
        self._header = head + b" " + _b64encode(_header_mac(file_key, head)) + b"\n" + nonce
        self._aead = ChaCha20Poly1305(_payload_key(file_key, nonce))
        self._counter = 0
        self._buf = bytearray()
        self._header_written = False
        self.closed = False
        self.bytes_written = 0

    def _write_header(self) -> None:
        if not self._header_written:
            _write_all(self._dst, self._header)
            self.bytes_written += len(self._header)
            self._header_written = True

    def _emit(self, data: bytes | bytearray | memoryview, last: bool) -> None:
        self._write_header()
        if self._counter >= _MAX_COUNTER:
            raise AgeError("payload too large for the STREAM counter")
        ct = self._aead.encrypt(_stream_nonce(self._counter, last), data, None)
        self._counter += 1
        _write_all(self._dst, ct)
        self.bytes_written += len(ct)

    def writable(self) -> bool:
        return True

    def write(self, data: bytes | bytearray | memoryview) -> int:
        if self.closed:
            raise ValueError("write to a closed EncryptWriter")
        mv = memoryview(data).cast("B")
        n = len(mv)
        off = 0
        self._write_header()
        while off < n:
            if len(self._buf) == CHUNK_SIZE:  # full and more data follows: not the last chunk
                self._emit(self._buf, last=False)
                self._buf.clear()
            if not self._buf and n - off > CHUNK_SIZE:
                self._emit(mv[off : off + CHUNK_SIZE], last=False)
                off += CHUNK_SIZE
                continue
            take = min(CHUNK_SIZE - len(self._buf), n - off)
            self._buf += mv[off : off + take]
            off += take
        return n

    def flush(self) -> None:
        """Flush dst; a partial chunk stays buffered (STREAM chunks are fixed-size)."""
        if hasattr(self._dst, "flush"):
            self._dst.flush()

    def close(self) -> None:
        """Write the final chunk. Does not close dst."""
        if self.closed:
            return
        self._emit(self._buf, last=True)
        self._buf.clear()
        self.closed = True

    def abort(self) -> None:
        """Stop without writing the final chunk (the output is left invalid)."""
        self._buf.clear()
        self.closed = True

    def __enter__(self) -> EncryptWriter:
        return self

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        if exc_type is None:
            self.close()
        else:
            self.abort()


class DecryptReader(io.RawIOBase):
    """Readable file-like that decrypts an age file from src (src is not closed).

    The header is parsed, unwrapped and MAC-checked in the constructor; payload
    chunks are verified as they are read.
    """

    def __init__(
        self,
        src: BinaryIO,
        identities: Sequence[Identity | str],
        max_header_size: int = MAX_HEADER_SIZE,
    ) -> None:
        super().__init__()
        idents = _coerce_identities(identities)
        self._source = _Source(src)
        stanzas, covered, mac = _parse_header(self._source, max_header_size)
        if any(s.type == "scrypt" for s in stanzas) and len(stanzas) != 1:
            raise AgeHeaderError("an scrypt stanza must be the only stanza")
        file_key = None
        for ident in idents:
            file_key = ident.unwrap(stanzas)
            if file_key is not None:
                break
        if file_key is None:
            types = sorted({s.type for s in stanzas})
            raise NoIdentityMatched(
                f"no identity matched any of the {len(stanzas)} recipient stanza(s)"
                f" (types: {', '.join(types)})"
            )
        if len(file_key) != FILE_KEY_SIZE:
            raise AgeHeaderError("unwrapped file key has the wrong size")
        if not hmac.compare_digest(_header_mac(file_key, covered), mac):
            raise AgeHeaderError("header MAC does not verify (header modified or corrupt)")
        self._source.fill(NONCE_SIZE)
        if len(self._source.buf) < NONCE_SIZE:
            raise AgeDecryptError("file truncated: missing payload nonce")
        nonce = self._source.take(NONCE_SIZE)
        self._aead = ChaCha20Poly1305(_payload_key(file_key, nonce))
        self._counter = 0
        self._plain = memoryview(b"")
        self._pos = 0
        self._done = False

    def readable(self) -> bool:
        return True

    def _next_chunk(self) -> None:
        src = self._source
        src.fill(ENC_CHUNK_SIZE + 1)
        n = len(src.buf)
        full_follows = n > ENC_CHUNK_SIZE
        ct = src.take(ENC_CHUNK_SIZE if full_follows else n)
        idx = self._counter
        if len(ct) < TAG_SIZE:
            if idx == 0 and not ct:
                raise AgeDecryptError("file truncated: no payload chunks")
            raise AgeDecryptError(f"file truncated: chunk {idx} is shorter than its tag")
        if self._counter >= _MAX_COUNTER:
            raise AgeDecryptError("payload exceeds the STREAM counter")
        last = not full_follows
        try:
            pt = self._aead.decrypt(_stream_nonce(idx, last), ct, None)
        except InvalidTag:
            raise self._diagnose(ct, idx, last) from None
        if last and not pt and idx > 0:
            raise AgeDecryptError(f"final chunk {idx} is empty (only an empty payload may be)")
        self._counter += 1
        self._plain = memoryview(pt)
        self._pos = 0
        self._done = last

    def _diagnose(self, ct: bytes, idx: int, last: bool) -> AgeDecryptError:
        try:
            self._aead.decrypt(_stream_nonce(idx, not last), ct, None)
        except InvalidTag:
            return AgeDecryptError(f"payload chunk {idx} failed authentication (corrupt or modified)")
        if last:
            return AgeDecryptError(f"file truncated after chunk {idx} (chunk not marked final)")
        return AgeDecryptError(f"trailing data after the final chunk {idx}")

    def _available(self) -> memoryview | None:
        """Unread plaintext of the current chunk, loading the next one; None at the end."""
        while self._pos >= len(self._plain):
            if self._done:
                return None
            self._next_chunk()
        return self._plain[self._pos :]

    def readinto(self, b: bytearray | memoryview) -> int:  # type: ignore[override]
        """Fill b completely unless the payload ends first."""
        if self.closed:
            raise ValueError("read from a closed DecryptReader")
        mv = memoryview(b).cast("B")
        got = 0
        while got < len(mv) and (avail := self._available()) is not None:
            n = min(len(mv) - got, len(avail))
            mv[got : got + n] = avail[:n]
            self._pos += n
            got += n
        return got

    def read(self, size: int | None = -1) -> bytes:
        """Up to size bytes (all remaining if size < 0); short only at the end."""
        if self.closed:
            raise ValueError("read from a closed DecryptReader")
        limit = -1 if size is None else size
        out = bytearray()
        while (limit < 0 or len(out) < limit) and (avail := self._available()) is not None:
            n = len(avail) if limit < 0 else min(limit - len(out), len(avail))
            out += avail[:n]
            self._pos += n
        return bytes(out)

    def __enter__(self) -> DecryptReader:
        return self


def encrypt_stream(src: BinaryIO, dst: BinaryIO, recipients: Sequence[Recipient | str]) -> int:
    """Encrypt all of src to dst; returns bytes written."""
    w = EncryptWriter(dst, recipients)
    while data := src.read(CHUNK_SIZE):
        w.write(data)
    w.close()
    return w.bytes_written


def decrypt_stream(
    src: BinaryIO,
    dst: BinaryIO,
    identities: Sequence[Identity | str],
    max_output: int | None = None,
) -> int:
    """Decrypt src to dst; returns plaintext bytes written. AgeDecryptError past max_output."""
    r = DecryptReader(src, identities)
    total = 0
    while data := r.read(CHUNK_SIZE):
        total += len(data)
        if max_output is not None and total > max_output:
            raise AgeDecryptError(f"plaintext exceeds the limit of {max_output} bytes")
        _write_all(dst, data)
    return total
