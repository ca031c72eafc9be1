"""Shared kit of the s11 end-to-end audits (Claude Code, Codex, pi): canaries, the real CLI
in a subprocess, and an outsider's read of the file:// store with only `age` and `zstd`.

No tests here; test_s11_e2e_{claude,codex,pi}.py use it. Nothing imports the project's
reader: objects and manifests are decrypted by the `age` CLI with the identity file
`archiver keygen` wrote, then `zstd -d`.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable
from tests.fx_archiver import decrypt_with_cli
from tests.fx_redact import luhn_complete

USER = "wanda"  # the collector's user (configured in [redaction] usernames)
HOME_PREFIX = f"/home/{USER}"
MAIL_DOMAIN = "mailbox-corp.io"
REPO = Path(__file__).resolve().parents[1]

# keys whose string values are structure (discriminators, ids, times), not user data
STRUCTURAL = {
    "type", "role", "subtype", "timestamp", "version", "id", "uuid", "parentUuid", "parentId",
    "logicalParentUuid", "sessionId", "session_id", "thread_id", "agentId", "messageId", "leafUuid",
    "tool_use_id", "toolUseID", "toolUseId", "sourceToolAssistantUUID", "call_id", "requestId",
    "promptId", "toolCallId", "targetId", "fromId", "firstKeptEntryId", "turn_id", "root_turn_id",
    "parentSessionId", "parentLastUuid", "forked_from_id", "parent_thread_id", "stopReason", "stop_reason",
    "kind", "status", "operation", "created", "modified", "updated_at", "started_at", "completed_at",
    "backupTime", "snapshotMessageId", "history_mode", "item_type", "mimeType", "media_type", "encoding",
    "entrypoint", "userType", "permissionMode", "mode", "level", "api", "thinkingLevel", "effort",
}


@dataclass
class Canary:
    marker: str  # public: proves where the value went (must survive)
    secret: str  # ghp_ token
    aws: str  # AKIA key id
    email: str
    card: str  # PII: Luhn-valid Visa number
    home: str  # a home path with the username

    @property
    def text(self) -> str:
        return (f"{self.marker} edit {self.home}/notes.md mail {self.email} token {self.secret} "
                f"aws {self.aws} card {self.card} é中文🙂")

    def private(self) -> list[str]:
        return [self.secret, self.aws, self.email, self.card, self.home]


@dataclass
class Canaries:
    prefix: str = "CNRY"
    planted: dict[str, str] = field(default_factory=dict)  # marker -> where
    all: list[Canary] = field(default_factory=list)

    def new(self, where: str) -> Canary:
        n = len(self.all) + 1
        marker = f"{self.prefix}{n:04d}X"
        h = hashlib.sha256(marker.encode()).digest() * 2
        b62 = base64.b64encode(h).decode().replace("+", "q").replace("/", "Z").replace("=", "")
        aws = "".join("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"[b % 32] for b in h[:16])
        card = luhn_complete("4" + "".join(str(b % 10) for b in h[:14]))
        c = Canary(marker=marker, secret="ghp_" + b62[:36], aws="AKIA" + aws, email=f"{marker.lower()}.dev@{MAIL_DOMAIN}",
                   card=card, home=f"{HOME_PREFIX}/src/{marker.lower()}")
        self.all.append(c)
        self.planted[marker] = where
        return c

    def text(self, where: str) -> str:
        return self.new(where).text

    def path(self, where: str, tail: str = "notes.md") -> str:
        """A realistic absolute path under the user's home that carries a marker."""
        return f"{HOME_PREFIX}/src/{self.new(where).marker.lower()}/{tail}"

    def fill(self, value: Any, where: str, keep: set[str] = STRUCTURAL, _key: str = "") -> Any:
        """Every string of a JSON value not under a structural key becomes a canary text;
        keys of an object stay (they may be paths, filled with a marker path)."""
        if isinstance(value, dict):
            return {k: self.fill(v, f"{where}.{k}", keep, k) for k, v in value.items()}
        if isinstance(value, list):
            return [self.fill(v, f"{where}[]", keep, _key) for v in value]
        if isinstance(value, str) and _key not in keep:
            return self.text(where)
        return value

    def all_private(self) -> list[str]:
        return [p for c in self.all for p in c.private()] + [HOME_PREFIX, USER]


def write_config(base: Path, home: Path, only: list[str], extra: str = "") -> Path:
    keys = base / "keys"
    if not (keys / "identity.txt").exists():
        run_cli(base, "keygen", "--out", str(keys))
    harnesses = ["claude-code", "codex", "cursor-agent", "opencode", "pi", "deepseek-harness"]
    cfg = base / "config.toml"
    cfg.write_text(
        f'home = "{home}"\nhost = "laptop-of-{USER}"\n\n'
        f'[redaction]\nteam_key_file = "{keys / "team.key"}"\nusernames = ["{USER}"]\n\n'
        f'[encryption]\nrecipients_file = "{keys / "recipient.txt"}"\n\n'
        f'[store]\nurl = "file://{base / "store"}"\n\n'
        f'[state]\ndir = "{base / "state"}"\n'
        + "".join(f"\n[harnesses.{h}]\nenabled = {'true' if h in only else 'false'}\n" for h in harnesses)
        + extra
    )
    return cfg


def run_cli(base: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """`python -m archiver ...` as an outsider runs it (HOME and harness variables cleared)."""
    e = {k: v for k, v in os.environ.items()
         if not k.startswith(("ARCHIVER_", "CLAUDE_", "CODEX_", "PI_CODING", "CURSOR_", "XDG_"))}
    e["PYTHONPATH"] = str(REPO)
    e["HOME"] = str(base / "cli-home")
    e.update(env or {})
    (base / "cli-home").mkdir(exist_ok=True)
    return subprocess.run([sys.executable, "-m", "archiver", *args], capture_output=True, text=True, env=e,
                          cwd=base, timeout=600)


def cli_json(base: Path, *args: str, ok: bool = True) -> Any:
    cfg = base / "config.toml"
    p = run_cli(base, args[0], "--config", str(cfg), *args[1:], "--json")
    if ok:
        assert p.returncode == 0, (p.returncode, p.stdout[-4000:], p.stderr[-4000:])
    return json.loads(p.stdout), p


@dataclass
class StoreRead:
    keys: list[str]
    plaintexts: dict[str, bytes]  # object key -> plaintext
    manifests: list[dict[str, Any]]

    def blob(self) -> bytes:
        return b"\n".join([*self.keys_b(), *self.plaintexts.values()])

    def keys_b(self) -> list[bytes]:
        return [k.encode() for k in self.keys]

    def latest(self) -> dict[str, Any]:
        return max(self.manifests, key=lambda m: m["created_at"])


def read_store(base: Path) -> StoreRead:
    """Every key and every object of the store, decrypted with the age and zstd CLIs."""
    store = base / "store"
    identity = base / "keys" / "identity.txt"
    keys = sorted(p.relative_to(store).as_posix() for p in store.rglob("*") if p.is_file())
    plain: dict[str, bytes] = {}
    manifests = []
    for k in keys:
        raw = (store / k).read_bytes()
        if k == "archiver.json" or k.startswith("tombstones/"):
            plain[k] = raw
            continue
        plain[k] = decrypt_with_cli(identity, raw)
        if k.startswith("snapshots/"):
            manifests.append(json.loads(plain[k]))
    return StoreRead(keys=keys, plaintexts=plain, manifests=manifests)


def leaks(read: StoreRead, private: list[str]) -> list[str]:
    """Private values found anywhere (key, object, manifest), case-insensitively, with where."""
    out = []
    lows = {k: v.lower() for k, v in read.plaintexts.items()}
    for p in set(private):
        needle = p.lower().encode()
        for k in read.keys:
            if needle in k.lower().encode():
                out.append(f"{p!r} in key {k}")
        for k, data in lows.items():
            if needle in data:
                i = data.index(needle)
                out.append(f"{p!r} in {k}: ...{read.plaintexts[k][max(0, i - 80):i + 80]!r}")
    return sorted(out)


def planted_in(roots: list[Path], canaries: Canaries) -> set[str]:
    """Markers that really sit in the generated files (content or names): the ones a
    generator replaced before writing are not expected anywhere."""
    blob = b"\n".join(p.as_posix().encode() + b"\n" + (p.read_bytes() if p.is_file() else b"")
                      for r in roots for p in r.rglob("*"))
    return {m for m in canaries.planted if m.encode() in blob or m.lower().encode() in blob}


def missing_markers(read: StoreRead, canaries: Canaries, roots: list[Path],
                    wanted: Callable[[str], bool] = lambda w: True) -> list[str]:
    blob = read.blob()
    there = planted_in(roots, canaries)
    return [f"{m} ({w})" for m, w in canaries.planted.items() if m in there and wanted(w) and m.encode() not in blob
            and m.lower().encode() not in blob]


def tree_bytes(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def sqlite_text(path: Path) -> bytes:
    """Every value of every table of a SQLite file, as text (a restored database's content)."""
    import sqlite3

    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        out = []
        for (name,) in con.execute("select name from sqlite_master where type='table'"):
            for row in con.execute(f'select * from "{name}"'):
                out.append(repr(row))
        return "\n".join(out).encode()
    finally:
        con.close()
