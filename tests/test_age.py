"""age v1 format: interop with the age CLI both ways, tampering, limits, streaming."""

from __future__ import annotations

import io
import os
import pty
import re
import select
import shutil
import subprocess
import tempfile
import time
import tracemalloc
from pathlib import Path

import pytest

from archiver.crypto import age as agemod
from archiver.crypto.age import (
    CHUNK_SIZE,
    AgeDecryptError,
    AgeError,
    AgeHeaderError,
    AgeKeyError,
    DecryptReader,
    EncryptWriter,
    NoIdentityMatched,
    ScryptIdentity,
    ScryptRecipient,
    Stanza,
    X25519Identity,
    bech32_decode,
    bech32_encode,
    decrypt_stream,
    encrypt_stream,
    generate_x25519,
    load_identities,
    load_recipients,
    parse_identity,
    parse_recipient,
)

AGE = shutil.which("age")
AGE_KEYGEN = shutil.which("age-keygen")
needs_cli = pytest.mark.skipif(not (AGE and AGE_KEYGEN), reason="age / age-keygen CLI not installed")

SIZES = [0, 1, 65535, 65536, 65537, 3 * 65536, 1_000_003]


@pytest.fixture
def tmp() -> Path:
    with tempfile.TemporaryDirectory(prefix="test-age-") as d:  # mkdtemp: mode 0700
        yield Path(d)


@pytest.fixture
def cli_key(tmp: Path) -> tuple[Path, str]:
    """An identity file made by age-keygen and its recipient."""
    if not AGE_KEYGEN:
        pytest.skip("age-keygen not installed")
    path = tmp / "cli-key.txt"
    subprocess.run([AGE_KEYGEN, "-o", str(path)], check=True, capture_output=True)
    rec = subprocess.run([AGE_KEYGEN, "-y", str(path)], check=True, capture_output=True, text=True)
    return path, rec.stdout.strip()


def encrypt(data: bytes, recipients) -> bytes:
    out = io.BytesIO()
    with EncryptWriter(out, recipients) as w:
        w.write(data)
    return out.getvalue()


def decrypt(blob: bytes, identities) -> bytes:
    out = io.BytesIO()
    decrypt_stream(io.BytesIO(blob), out, identities)
    return out.getvalue()


def run_tty(argv: list[str], answers: list[bytes], timeout: float = 30) -> tuple[int, bytes]:
    """Run a command on a pseudo-terminal, typing one answer per passphrase prompt."""
    pid, fd = pty.fork()
    if pid == 0:  # child
        try:
            os.execv(argv[0], argv)
        finally:
            os._exit(127)
    out = b""
    answered = 0
    deadline = time.monotonic() + timeout
    try:
        while True:
            ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                os.kill(pid, 9)
                raise TimeoutError(f"{argv[0]} did not finish: {out!r}")
            try:
                data = os.read(fd, 4096)
            except OSError:
                break
            if not data:
                break
            out += data
            prompts = out.count(b"assphrase")
            if answered < len(answers) and prompts > answered and out.rstrip().endswith(b":"):
                os.write(fd, answers[answered] + b"\n")
                answered += 1
    finally:
        _, status = os.waitpid(pid, 0)
        os.close(fd)
    return os.waitstatus_to_exitcode(status), out


# ---------------------------------------------------------------- bech32 and keys

def test_bech32_bip173_vectors() -> None:
    assert bech32_decode("A12UEL5L") == ("A", b"")
    assert bech32_decode("a12uel5l") == ("a", b"")
    hrp, data = bech32_decode("abcdef1qpzry9x8gf2tvdw0s3jn54khce6mua7lmqqqxw")
    assert hrp == "abcdef"
    assert data == bytes.fromhex("00443214c74254b635cf84653a56d7c675be77df")
    for bad in ["A1G7SGD8", "a12UEL5L", "10a06t8", "1qzzfhee", "a12uel5m", "x1b4n0q5v"]:
        with pytest.raises(ValueError):
            bech32_decode(bad)
    assert bech32_encode("abcdef", data) == "abcdef1qpzry9x8gf2tvdw0s3jn54khce6mua7lmqqqxw"
    assert bech32_encode("ABCDEF", data) == "ABCDEF1QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7LMQQQXW"


def test_generate_formats() -> None:
    ident, rec = generate_x25519()
    assert re.fullmatch(r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}", ident)
    assert re.fullmatch(r"age1[qpzry9x8gf2tvdw0s3jn54khce6mua7l]{58}", rec)
    parsed = parse_identity(ident)
    assert str(parsed.recipient) == rec
    assert parse_recipient(rec) == parsed.recipient
    assert parsed.encode() == ident
    assert ident not in repr(parsed) and rec in repr(parsed)
    # age accepts only the canonical case for each kind
    with pytest.raises(AgeKeyError):
        parse_identity(ident.lower())
    with pytest.raises(AgeKeyError):
        parse_recipient(rec.upper())
    with pytest.raises(AgeKeyError):
        parse_recipient(ident)
    with pytest.raises(AgeKeyError) as ei:
        parse_identity(ident[:-1] + ("Q" if ident[-1] != "Q" else "P"))
    assert ident[16:] not in str(ei.value)


@needs_cli
def test_our_identity_with_age_keygen(tmp: Path) -> None:
    ident, rec = generate_x25519()
    (tmp / "id.txt").write_text(f"# a comment\n\n{ident}\n")
    out = subprocess.run([AGE_KEYGEN, "-y", str(tmp / "id.txt")], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == rec


@needs_cli
def test_cli_identity_parses(cli_key: tuple[Path, str]) -> None:
    path, rec = cli_key
    ids = load_identities(path)
    assert len(ids) == 1 and str(ids[0].recipient) == rec


def test_key_files_comments_and_errors(tmp: Path) -> None:
    i1, r1 = generate_x25519()
    i2, r2 = generate_x25519()
    (tmp / "recips").write_text(f"# team\n{r1}\n\n   \n# other\n{r2}\n")
    assert [str(r) for r in load_recipients(tmp / "recips")] == [r1, r2]
    (tmp / "ids").write_text(f"# created: x\n{i1}\r\n{i2}\n")
    assert [str(i.recipient) for i in load_identities(tmp / "ids")] == [r1, r2]
    (tmp / "bad").write_text(f"{i1}\n{i2[:-2]}\n")
    with pytest.raises(AgeKeyError) as ei:
        load_identities(tmp / "bad")
    msg = str(ei.value)
    assert str(tmp / "bad") in msg and ":2:" in msg
    assert i2[16:-2] not in msg and i1[16:] not in msg
    (tmp / "empty").write_text("# nothing\n")
    with pytest.raises(AgeKeyError, match="no recipients"):
        load_recipients(tmp / "empty")


# ---------------------------------------------------------------- CLI interop

@needs_cli
@pytest.mark.parametrize("size", SIZES)
def test_ours_decrypts_with_age_cli(tmp: Path, cli_key: tuple[Path, str], size: int) -> None:
    key_path, rec = cli_key
    data = os.urandom(size)
    blob = encrypt(data, [rec])
    # STREAM framing: header, 16-byte nonce, ceil(size/64KiB) chunks (>= 1), 16-byte tags
    chunks = max(1, -(-size // CHUNK_SIZE))
    header_len = blob.index(b"\n---") + len(b"\n--- ") + 43 + 1
    assert len(blob) == header_len + 16 + size + 16 * chunks
    (tmp / "f.age").write_bytes(blob)
    out = subprocess.run([AGE, "-d", "-i", str(key_path), str(tmp / "f.age")], capture_output=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout == data


@needs_cli
@pytest.mark.parametrize("size", SIZES)
def test_age_cli_decrypts_with_ours(tmp: Path, cli_key: tuple[Path, str], size: int) -> None:
    key_path, rec = cli_key
    data = os.urandom(size)
    ct = subprocess.run([AGE, "-r", rec], input=data, capture_output=True, check=True).stdout
    ids = load_identities(key_path)
    assert decrypt(ct, ids) == data
    # same ciphertext length as ours: same framing
    assert len(ct) == len(encrypt(data, [rec]))
    # DecryptReader read(n) / readinto in odd sizes
    r = DecryptReader(io.BytesIO(ct), ids)
    got = bytearray()
    while piece := r.read(7777):
        got += piece
    assert bytes(got) == data


@needs_cli
def test_age_cli_recipients_file(tmp: Path, cli_key: tuple[Path, str]) -> None:
    key_path, rec = cli_key
    other_id, other_rec = generate_x25519()
    (tmp / "recipients.txt").write_text(f"# team recipients\n{other_rec}\n\n{rec}\n")
    data = os.urandom(200_000)
    (tmp / "plain").write_bytes(data)
    subprocess.run(
        [AGE, "-R", str(tmp / "recipients.txt"), "-o", str(tmp / "f.age"), str(tmp / "plain")],
        check=True, capture_output=True,
    )
    blob = (tmp / "f.age").read_bytes()
    assert decrypt(blob, [other_id]) == data
    assert decrypt(blob, load_identities(key_path)) == data
    # and our load_recipients of the same file encrypts to both, readable by the CLI
    ours = encrypt(data, load_recipients(tmp / "recipients.txt"))
    (tmp / "g.age").write_bytes(ours)
    out = subprocess.run([AGE, "-d", "-i", str(key_path), str(tmp / "g.age")], capture_output=True)
    assert out.returncode == 0 and out.stdout == data


@needs_cli
def test_multiple_writes_and_recipients(tmp: Path, cli_key: tuple[Path, str]) -> None:
    key_path, rec = cli_key
    other_id, other_rec = generate_x25519()
    data = os.urandom(5 * CHUNK_SIZE + 3)
    out = io.BytesIO()
    w = EncryptWriter(out, [other_rec, parse_recipient(rec)])
    pieces = [1, CHUNK_SIZE - 1, 1, 2 * CHUNK_SIZE, 17, 3]
    pos = 0
    for n in pieces + [len(data)]:
        w.write(memoryview(data)[pos : pos + n])
        pos += n
    w.close()
    w.close()  # idempotent
    assert out.getvalue().count(b"\n-> X25519 ") == 2
    (tmp / "f.age").write_bytes(out.getvalue())
    res = subprocess.run([AGE, "-d", "-i", str(key_path), str(tmp / "f.age")], capture_output=True)
    assert res.returncode == 0 and res.stdout == data
    assert decrypt(out.getvalue(), [X25519Identity.generate(), other_id]) == data


def test_encrypt_stream_and_header_on_close() -> None:
    ident = X25519Identity.generate()
    out = io.BytesIO()
    w = EncryptWriter(out, [ident.recipient])
    assert out.getvalue() == b""  # header is written lazily
    w.close()
    assert out.getvalue().startswith(b"age-encryption.org/v1\n-> X25519 ")
    assert decrypt(out.getvalue(), [ident]) == b""
    assert not out.closed
    src = io.BytesIO(os.urandom(300_000))
    dst = io.BytesIO()
    n = encrypt_stream(src, dst, [ident.recipient])
    assert n == len(dst.getvalue())
    assert decrypt(dst.getvalue(), [ident]) == src.getvalue()


def test_exception_in_with_leaves_no_valid_file() -> None:
    ident = X25519Identity.generate()
    out = io.BytesIO()
    with pytest.raises(RuntimeError):
        with EncryptWriter(out, [ident.recipient]) as w:
            w.write(os.urandom(3 * CHUNK_SIZE + 5))
            raise RuntimeError("boom")
    with pytest.raises(AgeDecryptError, match="truncated"):
        decrypt(out.getvalue(), [ident])


# ---------------------------------------------------------------- scrypt

@needs_cli
def test_age_cli_passphrase_decrypts_with_ours(tmp: Path) -> None:
    data = os.urandom(70_000)
    (tmp / "plain").write_bytes(data)
    code, _ = run_tty([AGE, "-p", "-o", str(tmp / "p.age"), str(tmp / "plain")],
                      [b"correct horse battery", b"correct horse battery"])
    assert code == 0
    blob = (tmp / "p.age").read_bytes()
    assert re.match(rb"age-encryption.org/v1\n-> scrypt \S{22} 18\n", blob)
    assert decrypt(blob, [ScryptIdentity(b"correct horse battery")]) == data
    with pytest.raises(NoIdentityMatched):
        decrypt(blob, [ScryptIdentity(b"wrong")])
    with pytest.raises(AgeHeaderError, match="work factor 18 exceeds"):
        decrypt(blob, [ScryptIdentity(b"correct horse battery", max_work_factor=17)])
    with pytest.raises(NoIdentityMatched):
        decrypt(blob, [X25519Identity.generate()])


@needs_cli
def test_our_passphrase_decrypts_with_age_cli(tmp: Path) -> None:
    data = os.urandom(1000)
    (tmp / "p.age").write_bytes(encrypt(data, [ScryptRecipient(b"pw-123", work_factor=12)]))
    code, _ = run_tty([AGE, "-d", "-o", str(tmp / "out"), str(tmp / "p.age")], [b"pw-123"])
    assert code == 0
    assert (tmp / "out").read_bytes() == data


def test_scrypt_must_be_alone() -> None:
    with pytest.raises(AgeError, match="only"):
        EncryptWriter(io.BytesIO(), [ScryptRecipient(b"pw", 10), X25519Identity.generate().recipient])
    # a crafted header with scrypt plus another stanza is refused before any KDF runs
    ident = X25519Identity.generate()
    file_key = os.urandom(16)
    stanzas = ScryptRecipient(b"pw", 10).wrap(file_key) + ident.recipient.wrap(file_key)
    blob = craft(file_key, stanzas, [(b"x", True)])
    with pytest.raises(AgeHeaderError, match="only stanza"):
        decrypt(blob, [ident])


# ---------------------------------------------------------------- crafted files

def craft(file_key: bytes, stanzas: list[Stanza], chunks: list[tuple[bytes, bool]],
          mac: bytes | None = None) -> bytes:
    """Build an age file by hand: chunks are (plaintext, last-flag) in order."""
    head = agemod.VERSION_LINE + b"\n" + b"".join(s.marshal() for s in stanzas) + b"---"
    mac = agemod._header_mac(file_key, head) if mac is None else mac
    nonce = os.urandom(16)
    aead = agemod.ChaCha20Poly1305(agemod._payload_key(file_key, nonce))
    body = b"".join(
        aead.encrypt(agemod._stream_nonce(i, last), pt, None) for i, (pt, last) in enumerate(chunks)
    )
    return head + b" " + agemod._b64encode(mac) + b"\n" + nonce + body


@pytest.fixture
def keyed() -> tuple[X25519Identity, bytes, list[Stanza]]:
    ident = X25519Identity.generate()
    file_key = os.urandom(16)
    return ident, file_key, ident.recipient.wrap(file_key)


def test_crafted_valid_file_decrypts(keyed) -> None:
    ident, fk, st = keyed
    full = os.urandom(CHUNK_SIZE)
    assert decrypt(craft(fk, st, [(full, False), (b"tail", True)]), [ident]) == full + b"tail"
    assert decrypt(craft(fk, st, [(full, True)]), [ident]) == full
    assert decrypt(craft(fk, st, [(b"", True)]), [ident]) == b""


@pytest.mark.parametrize(
    "chunks, match",
    [
        pytest.param([(b"\0" * CHUNK_SIZE, False), (b"", True)], "empty", id="empty-final-after-full"),
        pytest.param([(b"short", False)], "truncated", id="short-chunk-not-last"),
        pytest.param([(b"\0" * CHUNK_SIZE, False)], "truncated", id="full-chunk-not-last"),
        pytest.param([(b"\0" * CHUNK_SIZE, True), (b"more", True)], "trailing", id="last-then-more"),
        pytest.param([(b"\0" * CHUNK_SIZE, True), (b"\0" * CHUNK_SIZE, False), (b"x", True)],
                     "trailing", id="last-marked-early"),
        pytest.param([], "no payload", id="no-chunks"),
    ],
)
def test_crafted_bad_stream(keyed, tmp: Path, chunks, match) -> None:
    ident, fk, st = keyed
    blob = craft(fk, st, chunks)
    with pytest.raises(AgeDecryptError, match=match):
        decrypt(blob, [ident])
    if AGE:  # the reference implementation rejects the same files
        (tmp / "id").write_text(ident.encode() + "\n")
        (tmp / "f").write_bytes(blob)
        res = subprocess.run([AGE, "-d", "-i", str(tmp / "id"), str(tmp / "f")], capture_output=True)
        assert res.returncode != 0


def test_grease_stanzas_are_ignored(keyed) -> None:
    ident, fk, st = keyed
    grease = [Stanza("x-grease", ["a", "b"], os.urandom(100)), Stanza("empty", [], b"")]
    blob = craft(fk, grease + st, [(b"hi", True)])
    assert decrypt(blob, [ident]) == b"hi"
    assert b"\n-> empty\n\n" in blob  # an empty body is one empty line
    body64 = Stanza("t", [], os.urandom(48)).marshal()
    assert body64.endswith(b"\n\n") and len(body64.split(b"\n")[1]) == 64


def test_header_limits(keyed) -> None:
    ident, fk, st = keyed
    many = [Stanza("x", [], b"")] * (agemod.MAX_STANZAS + 1)
    with pytest.raises(AgeHeaderError, match="stanzas"):
        decrypt(craft(fk, many + st, [(b"", True)]), [ident])
    big = [Stanza("x", [], os.urandom(60_000))] * 30  # ~2.4 MB of header
    with pytest.raises(AgeHeaderError, match="size limit"):
        decrypt(craft(fk, big + st, [(b"", True)]), [ident])
    small = craft(fk, st, [(b"", True)])
    with pytest.raises(AgeHeaderError, match="size limit"):
        DecryptReader(io.BytesIO(small), [ident], max_header_size=40)
    long_line = agemod.VERSION_LINE + b"\n-> " + b"a" * 10_000 + b"\n"
    with pytest.raises(AgeHeaderError, match="too long"):
        decrypt(long_line, [ident])
    endless = io.BytesIO(agemod.VERSION_LINE + b"\n-> x\n" + b"A" * (5 << 20))
    with pytest.raises(AgeHeaderError):
        DecryptReader(endless, [ident])
    assert endless.tell() < 2 << 20  # stopped reading early
    with pytest.raises(AgeHeaderError, match="armored"):
        decrypt(b"-----BEGIN AGE ENCRYPTED FILE-----\nYWdl\n", [ident])


def test_bad_header_lines(keyed) -> None:
    ident, fk, st = keyed
    good = craft(fk, st, [(b"x", True)])
    assert decrypt(good, [ident]) == b"x"
    head_end = good.index(b"\n---") + 1
    mac_line_end = good.index(b"\n", head_end) + 1
    mac_b64 = good[head_end + 4 : mac_line_end - 1]
    cases = {
        "version": good.replace(b"age-encryption.org/v1", b"age-encryption.org/v2", 1),
        "no-stanzas": agemod.VERSION_LINE + b"\n" + good[head_end:],
        "double-space": good.replace(b"-> X25519 ", b"-> X25519  ", 1),
        "cr": good.replace(b"-> X25519 ", b"-> X25519\r ", 1),
        "mac-padding": good[:head_end] + b"--- " + mac_b64 + b"=\n" + good[mac_line_end:],
        "mac-missing": good[:head_end] + b"---\n" + good[mac_line_end:],
    }
    # a non-canonical last base64 character (same decoded bytes, different text)
    last = mac_b64[-1:]
    alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    alt = alphabet[(alphabet.index(last) & ~3) + ((alphabet.index(last) & 3) ^ 1)]
    cases["mac-noncanonical"] = good[:head_end] + b"--- " + mac_b64[:-1] + bytes([alt]) + b"\n" + good[mac_line_end:]
    for name, blob in cases.items():
        with pytest.raises(AgeHeaderError):
            decrypt(blob, [ident])
        assert name  # keeps the case name visible in a failing traceback


# ---------------------------------------------------------------- tampering

@pytest.fixture(scope="module")
def sample() -> tuple[X25519Identity, bytes, bytes]:
    ident = X25519Identity.generate()
    data = os.urandom(2 * CHUNK_SIZE + 1234)
    return ident, data, encrypt(data, [ident.recipient, X25519Identity.generate().recipient])


def test_flip_every_header_byte(sample) -> None:
    ident, data, blob = sample
    header_len = blob.index(b"\n---") + len(b"\n--- ") + 43 + 1
    kinds = set()
    for i in range(header_len):
        bad = bytearray(blob)
        bad[i] ^= 0x01
        with pytest.raises((AgeHeaderError, NoIdentityMatched)) as ei:
            decrypt(bytes(bad), [ident])
        kinds.add(type(ei.value))
    assert kinds == {AgeHeaderError, NoIdentityMatched}
    mac_pos = blob.index(b"\n--- ") + 6
    bad = bytearray(blob)
    bad[mac_pos] ^= 0x01
    with pytest.raises(AgeHeaderError, match="MAC"):
        decrypt(bytes(bad), [ident])


def test_flip_body_bytes(sample) -> None:
    ident, data, blob = sample
    header_len = blob.index(b"\n---") + len(b"\n--- ") + 43 + 1
    positions = [header_len, header_len + 15, header_len + 16, header_len + 16 + CHUNK_SIZE + 15,
                 header_len + 16 + 2 * (CHUNK_SIZE + 16) + 3, len(blob) - 1]
    for pos in positions:
        bad = bytearray(blob)
        bad[pos] ^= 0x80
        with pytest.raises(AgeDecryptError):
            decrypt(bytes(bad), [ident])


def test_truncate_and_append(sample) -> None:
    ident, data, blob = sample
    header_len = blob.index(b"\n---") + len(b"\n--- ") + 43 + 1
    with pytest.raises(AgeHeaderError, match="truncated"):
        decrypt(blob[: header_len // 2], [ident])
    with pytest.raises(AgeHeaderError, match="truncated"):
        decrypt(blob[: header_len - 1], [ident])  # MAC line without its newline
    with pytest.raises(AgeDecryptError, match="nonce"):
        decrypt(blob[: header_len + 5], [ident])
    with pytest.raises(AgeDecryptError, match="no payload"):
        decrypt(blob[: header_len + 16], [ident])
    one_chunk = header_len + 16 + CHUNK_SIZE + 16
    for cut in [len(blob) - 1, len(blob) - 17, one_chunk, one_chunk + CHUNK_SIZE + 16, one_chunk + 5]:
        with pytest.raises(AgeDecryptError):
            decrypt(blob[:cut], [ident])
    with pytest.raises(AgeDecryptError, match="truncated"):
        decrypt(blob[:one_chunk], [ident])  # a chunk boundary: valid chunk, not marked last
    for extra in [b"\0", os.urandom(16), os.urandom(CHUNK_SIZE + 16)]:
        with pytest.raises(AgeDecryptError):
            decrypt(blob + extra, [ident])
    # verified chunks before the damage are delivered; the error comes before EOF
    r = DecryptReader(io.BytesIO(blob[: one_chunk + 100]), [ident])
    assert r.read(CHUNK_SIZE) == data[:CHUNK_SIZE]
    with pytest.raises(AgeDecryptError):
        r.read(1)
    # a chunk is released only once it is known whether it is the last one
    r = DecryptReader(io.BytesIO(blob[:one_chunk]), [ident])
    with pytest.raises(AgeDecryptError, match="truncated"):
        r.read(1)


def test_wrong_identity(sample) -> None:
    ident, data, blob = sample
    other = X25519Identity.generate()
    with pytest.raises(NoIdentityMatched) as ei:
        decrypt(blob, [other, ScryptIdentity(b"pw")])
    msg = str(ei.value)
    assert other.encode() not in msg and ident.encode() not in msg
    assert decrypt(blob, [other, ident]) == data
    assert decrypt(blob, [ident.encode()]) == data  # identity strings are accepted too


# ---------------------------------------------------------------- streaming memory

class _Zeros(io.RawIOBase):
    def __init__(self, n: int) -> None:
        self.left = n

    def readable(self) -> bool:
        return True

    def readinto(self, b) -> int:
        n = min(len(b), self.left)
        b[:n] = bytes(n)
        self.left -= n
        return n


class _Sink:
    def __init__(self) -> None:
        self.n = 0
        self.h = __import__("hashlib").sha256()

    def write(self, b) -> int:
        self.n += len(b)
        self.h.update(b)
        return len(b)


def test_streaming_memory_is_bounded(tmp: Path) -> None:
    ident = X25519Identity.generate()
    size = 32 << 20
    path = tmp / "big.age"
    tracemalloc.start()
    try:
        with open(path, "wb") as f:
            encrypt_stream(_Zeros(size), f, [ident.recipient])
        enc_peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.reset_peak()
        sink = _Sink()
        with open(path, "rb") as f:
            assert decrypt_stream(f, sink, [ident]) == size
        dec_peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert sink.n == size
    assert sink.h.hexdigest() == __import__("hashlib").sha256(bytes(size)).hexdigest()
    assert enc_peak < 2 << 20, enc_peak
    assert dec_peak < 2 << 20, dec_peak


def test_decrypt_stream_max_output(sample) -> None:
    ident, data, blob = sample
    with pytest.raises(AgeDecryptError, match="limit"):
        decrypt_stream(io.BytesIO(blob), io.BytesIO(), [ident], max_output=1000)
    assert decrypt_stream(io.BytesIO(blob), io.BytesIO(), [ident], max_output=len(data)) == len(data)
