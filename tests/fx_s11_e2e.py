"""Shared kit of the s11 outsider end-to-end audits (test_s11_e2e_cursor / _opencode / _deepseek).

No tests here. Canaries to plant in every field, a home built in a child process that exits
without closing its SQLite connections (so every WAL database keeps a live -wal, as on a machine
where the harness is running), the real CLI (`python -m archiver`) against a file:// store, and
the archive read back WITHOUT the project's code: `age -d` with the identity `archiver keygen`
wrote, then `zstd -d`.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import string
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable
from tests.fx_redact import luhn_complete

REPO = Path(__file__).resolve().parents[1]
USER = "zorbloff"  # the archived user; the home folder is named after it too
OTHER = "quillon"  # the user of the home a restore goes into
# the environment a harness or archiver reads its roots and settings from: never the test runner's
HARNESS_ENV = ("ARCHIVER_", "CLAUDE_", "CODEX_", "CURSOR_", "OPENCODE_", "PI_", "DEEPSEEK_", "XDG_", "TMPDIR")
# connections a builder opened: kept referenced until the child exits (a collected connection
# closes, and the last close of a WAL database checkpoints it and deletes its -wal)
KEEP_OPEN: list[Any] = []


class Canaries:
    """Distinct canaries: each names a home path, an e-mail, two secrets and a card number."""

    def __init__(self, home: str) -> None:
        self.home = home
        self.n = 0
        self.all: dict[str, dict[str, str]] = {}

    def parts(self, tag: str) -> dict[str, str]:
        self.n += 1
        n = self.n
        h = hashlib.sha256(f"{tag}{n}".encode()).hexdigest().upper()
        body = "4" + f"{n:03d}" + h[:11].translate(str.maketrans("ABCDEF", "123456"))
        p = {
            "path": f"{self.home}/w{n:03d}/f.txt",
            "email": f"q{n:03d}.{USER}@quuxmail.net",
            "ghp": "ghp_" + (f"K{n:03d}" + hashlib.sha512(h.encode()).hexdigest().upper())[:36],
            "akia": "AKIA" + (f"Z{n:03d}" + h[11:]).replace("0", "Q")[:16],
            "card": luhn_complete(body),
        }
        self.all[f"{tag}#{n}"] = p
        return p

    def c(self, tag: str) -> str:
        """A canary for a text field."""
        p = self.parts(tag)
        return f"[{tag}] see {p['path']} mail {p['email']} tok {p['ghp']} key {p['akia']} card {p['card']} ."

    def path(self, tag: str, sub: str = "") -> str:
        """A canary for a path field: a folder under the home (with `sub` below it)."""
        folder = self.parts(tag)["path"].rsplit("/", 1)[0]
        return f"{folder}/{sub}" if sub else folder

    def needles(self) -> list[tuple[str, str]]:
        out = [("username", USER)]
        for k, p in self.all.items():
            out += [(f"{k}:email", p["email"].split("@")[0]), (f"{k}:ghp", p["ghp"][4:]),
                    (f"{k}:akia", p["akia"]), (f"{k}:card", p["card"])]
        return out


def build_in_child(builder: Callable[[Path, Canaries], dict[str, Any]], home: Path, out: Path) -> dict[str, Any]:
    """Run builder(home, canaries) in a forked child that ends with os._exit: the SQLite
    connections it opened are never closed, so each WAL database keeps its committed frames in
    a live -wal file. Returns what the builder returned plus the canary needles."""
    home.mkdir(parents=True)
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        code = 1
        try:
            can = Canaries(str(home))
            facts = builder(home, can)
            out.write_text(json.dumps({"facts": facts, "needles": can.needles()}))
            code = 0
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, "the home builder failed"
    return json.loads(out.read_text())  # type: ignore[no-any-return]


def planted_secret(rng: random.Random, kind: int, user: str, domain: str) -> str:
    """A value the built-in rules claim, by `kind` % 4: a GitHub PAT, an AWS key id, an Anthropic
    key, or an e-mail address of `user` at `domain`."""
    def alnum(n: int) -> str:
        return "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(n))

    kind %= 4
    if kind == 0:
        return "ghp_" + alnum(36)
    if kind == 1:
        return "AKIA" + "".join(rng.choice(string.ascii_uppercase + "234567") for _ in range(16))
    if kind == 2:
        return "sk-ant-api03-" + alnum(90) + "AA"
    return f"{user}.{alnum(5).lower()}@{domain}"


@dataclass
class Setup:
    base: Path
    home: Path
    env: dict[str, str] = field(default_factory=dict)

    @property
    def config(self) -> Path:
        return self.base / "config.toml"

    @property
    def identity(self) -> Path:
        return self.base / "keys" / "identity.txt"

    @property
    def store(self) -> Path:
        return self.base / "store"

    def cli(self, *args: str, expect: int | None = None) -> subprocess.CompletedProcess[str]:
        """The real CLI in its own process: `python -m archiver <cmd> --config ... <args>`; with
        `expect`, its exit code checked."""
        env = {k: v for k, v in os.environ.items() if not k.startswith(HARNESS_ENV)}
        env.update(self.env, PYTHONPATH=str(REPO))
        r = subprocess.run([sys.executable, "-m", "archiver", args[0], "--config", str(self.config), *args[1:]],
                           capture_output=True, text=True, env=env, timeout=600)
        if expect is not None:
            assert r.returncode == expect, (args, r.returncode, r.stdout[-2000:], r.stderr[-3000:])
        return r

    def json(self, *args: str, expect: int | None = 0) -> Any:
        """`cli(*args, "--json", expect=expect)`, its stdout parsed."""
        return json.loads(self.cli(*args, "--json", expect=expect).stdout)

    def read(self, *args: str) -> Any:
        """A reviewer's command (the identity given): `json(*args, "--identity", ...)`."""
        return self.json(*args, "--identity", str(self.identity))

    def restore(self, to: Path, *keys: str, family: bool = False) -> dict[str, Any]:
        r = self.cli("restore", "--identity", str(self.identity), "--json", "--to", str(to),
                     *(["--with-family"] if family else []), *(keys or ["--all"]))
        assert r.returncode == 0, (r.returncode, r.stderr[-2000:])
        return json.loads(r.stdout)  # type: ignore[no-any-return]


def setup(tmp_path: Path, harness: str, extra: str = "", user: str = USER, host: str | None = None) -> Setup:
    """Keys from `archiver keygen`, a config that archives only `harness` of `user`'s home
    (tmp_path/<user>) into a file:// store."""
    s = Setup(base=tmp_path, home=tmp_path / user)
    configure(s, (harness,), extra, user, host)
    return s


def configure(s: Setup, harnesses: tuple[str, ...], extra: str = "", user: str = USER, host: str | None = None) -> None:
    """Keys from `archiver keygen` under s.base, and s.config archiving only `harnesses` of
    s.home (usernames: `user`) into a file:// store at s.store."""
    s.config.write_text("")
    s.cli("keygen", "--out", str(s.base / "keys"), expect=0)
    others = [h for h in ("claude-code", "codex", "cursor-agent", "opencode", "pi", "deepseek-harness")
              if h not in harnesses]
    s.config.write_text(
        f'home = "{s.home}"\nhost = "{host or f"laptop-of-{user}"}"\n'
        f'[redaction]\nteam_key_file = "{s.base / "keys" / "team.key"}"\nusernames = ["{user}"]\n'
        f'[encryption]\nrecipients_file = "{s.base / "keys" / "recipient.txt"}"\n'
        f'[store]\nurl = "file://{s.store}"\n[state]\ndir = "{s.base / "state"}"\n'
        + "".join(f"[harnesses.{h}]\nenabled = false\n" for h in others) + extra
    )


def decrypt_object(identity: Path, blob: bytes) -> bytes:
    """One stored object read without this project: `age -d -i identity`, then `zstd -d` when the
    plaintext is a zstd frame (manifests may be age only)."""
    a = subprocess.run(["age", "-d", "-i", str(identity)], input=blob, capture_output=True)
    assert a.returncode == 0, a.stderr[:300]
    if a.stdout[:4] != b"\x28\xb5\x2f\xfd":
        return a.stdout
    z = subprocess.run(["zstd", "-d", "-c"], input=a.stdout, capture_output=True)
    assert z.returncode == 0, z.stderr[:300]
    return z.stdout


def decrypt_all(s: Setup) -> dict[str, bytes]:
    """Every object and manifest of the store, read with the age and zstd CLIs only."""
    out = {f.relative_to(s.store).as_posix(): decrypt_object(s.identity, f.read_bytes())
           for f in sorted(s.store.rglob("*"))
           if f.is_file() and f.relative_to(s.store).as_posix() != "archiver.json"}  # the bucket's plain note
    assert out, "nothing in the store"
    return out


def latest_manifest(plain: dict[str, bytes], index: int = -1) -> dict[str, Any]:
    """The last manifest of the store's plaintexts (or the `index`th, oldest first)."""
    names = sorted(k for k in plain if k.startswith("snapshots/"))
    assert names, "no manifest"
    return json.loads(plain[names[index]])  # type: ignore[no-any-return]


def artifact_bytes(plain: dict[str, bytes], artifact: dict[str, Any]) -> bytes:
    """A manifest artifact's file: its objects' plaintexts in order."""
    return b"".join(plain[f"objects/{o[:2]}/{o}"] for o in artifact["objects"])


def leaks(plain: dict[str, bytes], needles: list[tuple[str, str]]) -> list[tuple[str, str, str]]:
    """(object, how, canary) for every canary value found in an object's plaintext (as is or
    hex-encoded, as Cursor's meta stores JSON) or in its key."""
    found = []
    for rel, data in plain.items():
        for name, value in needles:
            v = value.encode()
            if v in data:
                found.append((rel, "raw", name))
            elif v.hex().encode() in data or v.hex().upper().encode() in data:
                found.append((rel, "hex", name))
            if value in rel:
                found.append((rel, "key", name))
    return found


def tree_leaks(root: Path, needles: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """(file, canary) for every canary value in a restored tree's file names or bytes."""
    found = []
    for f in sorted(root.rglob("*")):
        rel = f.relative_to(root).as_posix()
        data = f.read_bytes() if f.is_file() else b""
        for name, value in needles:
            if value in rel or value.encode() in data or value.encode().hex().encode() in data:
                found.append((rel, name))
    return found


def sessions_by_key(manifest: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {s["key"]: s for s in manifest["sessions"]}


def edges(session: dict[str, Any]) -> list[tuple[str, str, Any]]:
    return [(p["relation"], p["parent"], p.get("at")) for p in session.get("parents", [])]
