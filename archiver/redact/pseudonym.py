"""Consistent keyed pseudonyms: HMAC-SHA256(team-derived key, kind, value).

The same value gives the same token on every machine and every run, so
redacted archives from many hosts still line up, while the value cannot be
recovered without guessing it *and* holding the team key.
"""

from __future__ import annotations

import hashlib
import hmac


class Pseudonymizer:
    def __init__(self, key: bytes) -> None:
        if len(key) < 16:
            raise ValueError("pseudonym key must be at least 16 bytes")
        self._key = key

    def digest(self, kind: str, value: str | bytes) -> str:
        data = value.encode("utf-8", "surrogatepass") if isinstance(value, str) else value
        return hmac.new(self._key, kind.encode() + b"\x00" + data, hashlib.sha256).hexdigest()

    def token(self, label: str, value: str | bytes, length: int = 8) -> str:
        """`<EMAIL:3f9a2c1b>`-style replacement."""
        return f"<{label}:{self.digest(label, value)[:length]}>"

    def username(self, name: str) -> str:
        """`user-5f2a`: replaces a username while keeping a path's shape."""
        return f"user-{self.digest('USERNAME', name)[:4]}"
