"""keys.py: key files (modes, formats, age-keygen compatibility) and derived keys."""

from __future__ import annotations

import hashlib
import hmac
import io
import logging
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from archiver.crypto.age import EncryptWriter, decrypt_stream, load_identities, load_recipients
from archiver.crypto.keys import (
    KeyFiles,
    TeamKeys,
    derive_key,
    host_id,
    keygen,
    load_team_key,
    team_key_from_env,
)

AGE = shutil.which("age")
AGE_KEYGEN = shutil.which("age-keygen")
needs_cli = pytest.mark.skipif(not (AGE and AGE_KEYGEN), reason="age / age-keygen CLI not installed")


@pytest.fixture
def tmp() -> Path:
    with tempfile.TemporaryDirectory(prefix="test-keys-") as d:
        yield Path(d)


def _mode(p: Path) -> int:
    return p.stat().st_mode & 0o777


def test_keygen_files(tmp: Path) -> None:
    out = tmp / "a" / "keys"
    kf = keygen(out)
    assert isinstance(kf, KeyFiles)
    assert kf.identity_file == out / "identity.txt"
    assert kf.recipient_file == out / "recipient.txt"
    assert kf.team_key_file == out / "team.key"
    assert _mode(out) == 0o700
    for p in (kf.identity_file, kf.recipient_file, kf.team_key_file):
        assert _mode(p) == 0o600, p
    lines = kf.identity_file.read_text().splitlines()
    assert len(lines) == 3
    assert re.fullmatch(r"# created: \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", lines[0])
    assert lines[1] == f"# public key: {kf.recipient}"
    assert re.fullmatch(r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}", lines[2])
    assert kf.recipient_file.read_bytes() == (kf.recipient + "\n").encode()
    assert re.fullmatch(r"age1[qpzry9x8gf2tvdw0s3jn54khce6mua7l]{58}", kf.recipient)
    team = kf.team_key_file.read_bytes()
    assert re.fullmatch(rb"[0-9a-f]{64}\n", team)
    assert load_team_key(kf.team_key_file) == bytes.fromhex(team.decode())
    assert str(load_identities(kf.identity_file)[0].recipient) == kf.recipient
    assert [str(r) for r in load_recipients(kf.recipient_file)] == [kf.recipient]
    assert lines[2] not in repr(kf)
    # two runs give different keys
    kf2 = keygen(tmp / "other")
    assert kf2.recipient != kf.recipient
    assert kf2.team_key_file.read_bytes() != team


@needs_cli
def test_keygen_identity_works_with_age_cli(tmp: Path) -> None:
    kf = keygen(tmp / "k")
    y = subprocess.run([AGE_KEYGEN, "-y", str(kf.identity_file)], capture_output=True, text=True)
    assert y.returncode == 0, y.stderr
    assert y.stdout == kf.recipient + "\n"
    data = os.urandom(100_000)
    ct = subprocess.run([AGE, "-R", str(kf.recipient_file)], input=data, capture_output=True, check=True)
    out = io.BytesIO()
    decrypt_stream(io.BytesIO(ct.stdout), out, load_identities(kf.identity_file))
    assert out.getvalue() == data
    enc = io.BytesIO()
    with EncryptWriter(enc, load_recipients(kf.recipient_file)) as w:
        w.write(data)
    (tmp / "f.age").write_bytes(enc.getvalue())
    pt = subprocess.run([AGE, "-d", "-i", str(kf.identity_file), str(tmp / "f.age")], capture_output=True)
    assert pt.returncode == 0 and pt.stdout == data


def test_keygen_refuses_overwrite(tmp: Path) -> None:
    kf = keygen(tmp)
    before = {p: p.read_bytes() for p in (kf.identity_file, kf.recipient_file, kf.team_key_file)}
    with pytest.raises(FileExistsError, match="identity.txt"):
        keygen(tmp)
    assert {p: p.read_bytes() for p in before} == before
    # any one existing file blocks, and nothing is written
    empty = tmp / "partial"
    empty.mkdir()
    (empty / "team.key").write_text("keep me\n")
    with pytest.raises(FileExistsError, match="team.key"):
        keygen(empty)
    assert sorted(p.name for p in empty.iterdir()) == ["team.key"]
    assert (empty / "team.key").read_text() == "keep me\n"
    # force replaces, and tightens a loose mode
    os.chmod(kf.team_key_file, 0o644)
    kf2 = keygen(tmp, force=True)
    assert kf2.recipient != kf.recipient
    for p in (kf2.identity_file, kf2.recipient_file, kf2.team_key_file):
        assert _mode(p) == 0o600
        assert p.read_bytes() != before[p]


def test_keygen_refuses_symlink_target(tmp: Path) -> None:
    (tmp / "victim").write_text("do not touch\n")
    d = tmp / "keys"
    d.mkdir()
    os.symlink(tmp / "victim", d / "team.key")
    with pytest.raises(FileExistsError):
        keygen(d)
    with pytest.raises(OSError):
        keygen(d, force=True)
    assert (tmp / "victim").read_text() == "do not touch\n"


def test_load_team_key_errors(tmp: Path, caplog: pytest.LogCaptureFixture) -> None:
    good = "ab" * 32
    p = tmp / "team.key"
    p.write_text(f"# team key\n{good}\n")
    os.chmod(p, 0o600)
    with caplog.at_level(logging.WARNING, logger="archiver.crypto.keys"):
        assert load_team_key(p) == bytes.fromhex(good)
    assert not caplog.records
    os.chmod(p, 0o644)
    with caplog.at_level(logging.WARNING, logger="archiver.crypto.keys"):
        assert load_team_key(p) == bytes.fromhex(good)
    assert len(caplog.records) == 1
    msg = caplog.records[0].getMessage()
    assert str(p) in msg and "644" in msg and good not in msg

    secretish = "zz" + "cd" * 31
    bad_cases = {
        "nothex": secretish + "\n",
        "short": "ab" * 31 + "\n",
        "two": good + "\n" + good + "\n",
        "empty": "",
        "odd": good + "a\n",
    }
    for name, text in bad_cases.items():
        f = tmp / f"{name}.key"
        f.write_text(text)
        os.chmod(f, 0o600)
        with pytest.raises(ValueError) as ei:
            load_team_key(f)
        assert str(f) in str(ei.value)
        assert secretish not in str(ei.value) and "cdcdcd" not in str(ei.value)
    with pytest.raises(ValueError, match="missing"):
        load_team_key(tmp / "missing")
    longer = "0123456789abcdef" * 6  # 48 bytes is fine
    assert team_key_from_env(longer) == bytes.fromhex(longer)
    assert team_key_from_env(f"  {good.upper()}\n") == bytes.fromhex(good)
    with pytest.raises(ValueError, match="ARCHIVER_TEAM_KEY") as ei:
        team_key_from_env("ab" * 16)
    assert "16 bytes" in str(ei.value)


def test_derive_key_and_team_keys() -> None:
    team = bytes(range(32))
    want = hmac.new(team, b"archiver/v1/object-id", hashlib.sha256).digest()
    assert derive_key(team, "object-id") == want
    # pinned, cross-checked with openssl dgst -sha256 -mac HMAC
    assert want.hex() == "a06b7f21f08798f11a5cbf1fa6ff42cba30fb90064b04253bdd91044a5e2c645"
    keys = TeamKeys.from_team_key(team)
    assert keys.object_id == derive_key(team, "object-id")
    assert keys.pseudonym == derive_key(team, "pseudonym")
    assert keys.host_id == derive_key(team, "host-id")
    assert len({keys.object_id, keys.pseudonym, keys.host_id, team}) == 4
    assert keys.object_id.hex() not in repr(keys) and repr(keys) == "TeamKeys()"
    with pytest.raises(ValueError):
        TeamKeys.from_team_key(b"\x00" * 31)


def test_host_id() -> None:
    keys = TeamKeys.from_team_key(b"\x01" * 32)
    hid = host_id(keys, "alice-laptop.corp.example")
    assert re.fullmatch(r"[0-9a-f]{16}", hid)
    assert hid == hmac.new(keys.host_id, b"alice-laptop.corp.example", hashlib.sha256).hexdigest()[:16]
    assert host_id(keys, "alice-laptop.corp.example") == hid
    assert host_id(keys, "bob-laptop.corp.example") != hid
    assert host_id(TeamKeys.from_team_key(b"\x02" * 32), "alice-laptop.corp.example") != hid
    assert "alice" not in hid
