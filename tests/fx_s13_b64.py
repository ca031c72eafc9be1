"""Generated samples for the base64-of-whole-files tests: files that hold secrets (and files that
do not), their base64 wrapped as `base64` prints it, and the records the harnesses write them in
(a Claude Code tool_result, a Codex function_call_output; seeds/by-harness)."""

from __future__ import annotations

import base64
import json
import random
import string
import zlib

ALNUM = string.ascii_letters + string.digits


def rand(rng: random.Random, n: int, alphabet: str = ALNUM) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def env_file(seed: int) -> tuple[bytes, list[str]]:
    """A .env whose secrets (a Stripe live key, a database password) are not at its start (the
    base64 of a credential prefix at a run's start is another rule's); (bytes, secrets)."""
    rng = random.Random(seed)
    stripe = "sk_live_" + rand(rng, 24)
    pw = rand(rng, 14)
    text = (f"# app settings ({rand(rng, 6)})\nNODE_ENV=production\nSTRIPE_SECRET_KEY={stripe}\n"
            f"DATABASE_URL=postgres://app:{pw}@db.internal:5432/app\n")
    return text.encode(), [stripe, pw]


def aws_credentials(seed: int) -> tuple[bytes, list[str]]:
    rng = random.Random(seed)
    kid = "AKIA" + rand(rng, 16, string.ascii_uppercase + "234567")
    secret = rand(rng, 40, ALNUM + "+/")
    text = f"[default]\nregion = eu-west-1\naws_access_key_id = {kid}\naws_secret_access_key = {secret}\n"
    return text.encode(), [kid, secret]


def npmrc(seed: int) -> tuple[bytes, list[str]]:
    rng = random.Random(seed)
    tok = "npm_" + rand(rng, 36)
    return f"registry=https://registry.npmjs.org/\n//registry.npmjs.org/:_authToken={tok}\n".encode(), [tok]


def github_env(seed: int) -> tuple[bytes, list[str]]:
    rng = random.Random(seed)
    tok = "ghp_" + rand(rng, 36)
    return f"# CI variables\nGH_TOKEN={tok}\nDEPLOY_ENV=staging\n".encode(), [tok]


SECRET_FILES = {"env": env_file, "aws": aws_credentials, "npmrc": npmrc, "gh": github_env}


def readme(seed: int) -> bytes:
    """Harmless text of a few hundred bytes: a base64'd README stays as it is."""
    rng = random.Random(seed)
    words = ["archive", "session", "redact", "sync", "restore", "the", "a", "of", "to", "runs", "quickly"]
    lines = ["# Project " + rand(rng, 5), ""] + [" ".join(rng.choice(words) for _ in range(12)) for _ in range(8)]
    return ("\n".join(lines) + "\n").encode()


def b64(data: bytes, urlsafe: bool = False, pad: bool = True) -> str:
    s = (base64.urlsafe_b64encode if urlsafe else base64.b64encode)(data).decode()
    return s if pad else s.rstrip("=")


def urlsafe_sample(make: object, seed: int = 1) -> tuple[bytes, list[str], int]:
    """A secret file whose URL-safe base64 holds `-` or `_` (the URL-safe alphabet shows): base64
    of ASCII has them only where a `>`, `?` or `~` falls on the third byte of a group of three, so
    a comment line with those is shifted until one does; (bytes, secrets, shift)."""
    data, secrets = make(seed)  # type: ignore[operator]
    for k in range(3):
        shifted = b"#" * (k + 1) + b" see ~/.config?x>y ~~ ??\n" + data
        enc = b64(shifted, urlsafe=True)
        if "-" in enc or "_" in enc:
            return shifted, secrets, k
    raise AssertionError("no URL-safe character in any shift")


def wrap(s: str, width: int, sep: str = "\n") -> str:
    """`base64 -w WIDTH` (sep: the line break as written: `\\n`, `\\r\\n`)."""
    if not width:
        return s
    return sep.join(s[i:i + width] for i in range(0, len(s), width))


def claude_tool_result(content: str, seed: int = 0) -> bytes:
    """A Claude Code `user` line carrying one tool_result (seeds/by-harness/claude-code.json)."""
    rng = random.Random(seed)
    rec = {"parentUuid": None, "isSidechain": False, "userType": "external", "cwd": "/srv/app",
           "sessionId": "0d4f5b8e-9c3a-4e7b-8f21-6a5d3c2b1e0f", "version": "2.0.14", "gitBranch": "main",
           "type": "user", "uuid": "6a5d3c2b-1e0f-4e7b-8f21-0d4f5b8e9c3a", "timestamp": "2026-01-02T03:04:05.678Z",
           "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01" + rand(rng, 22),
                                                    "content": content, "is_error": False}]}}
    return json.dumps(rec, separators=(",", ":")).encode()


def codex_output(output: str, seed: int = 0) -> bytes:
    """A Codex rollout `response_item` line with a function_call_output (seeds/by-harness/codex.json)."""
    rng = random.Random(seed)
    rec = {"timestamp": "2026-01-02T03:04:05.678Z", "ordinal": 7, "type": "response_item",
           "payload": {"type": "function_call_output", "call_id": "call_" + rand(rng, 20),
                       "output": f"Process exited with code 0\nOutput:\n{output}"}}
    return json.dumps(rec, separators=(",", ":")).encode()


def png(payload: bytes) -> bytes:
    """A PNG whose tEXt chunk holds `payload` (binary after decoding, whatever it carries)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return len(data).to_bytes(4, "big") + kind + data + zlib.crc32(kind + data).to_bytes(4, "big")
    ihdr = (1).to_bytes(4, "big") * 2 + b"\x08\x02\x00\x00\x00"
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"tEXt", b"Comment\x00" + payload)
            + chunk(b"IDAT", zlib.compress(b"\x00\xff\x00\x00")) + chunk(b"IEND", b""))


def protobuf(payload: bytes, seed: int = 0) -> bytes:
    """A protobuf message of a few fields, one a string holding `payload`."""
    rng = random.Random(seed)
    out = b""
    for no in range(1, 6):
        val = payload if no == 3 else rng.randbytes(rng.randint(4, 12))
        out += bytes([no << 3 | 2, len(val)]) + val
        out += bytes([(no + 8) << 3 | 0, rng.randint(1, 120)])
    return out
