"""Generator of the s18 leak audit: one home with sessions of all six harnesses (archiver/demo's
samples, which follow the seeds), then canaries planted in every place those files hold data.

No tests here. `build(home)` writes the home and returns a `Plan`: the canary needles (value and
the place it was planted) and the neighbour texts that must survive redaction byte for byte.

Where canaries go (each place gets its own distinct canary, tag = harness + file kind + JSON path):
- every free-text string of every JSON/JSONL record (titles, summaries, prompts, tool input and
  output, model and provider names, git branch and remote fields...) gets a canary appended;
  every record gets a JSON *key* holding an e-mail and a token;
- every TEXT cell of every SQLite table (plain, JSON, or Cursor's hex-encoded JSON meta);
- text sidecars (tool results, file history, shell snapshots, env dumps, terminals, paste cache,
  tool outputs, pi's bash logs) get a canary paragraph and an env dump;
- Codex's compressed rollouts (.jsonl.zst) are rewritten with canaries, compressed again;
- Cursor store.db gets protobuf and JSON blobs (content-addressed as Cursor does) holding canaries;
- sidecar file and folder names with the username and an e-mail (tool-results, file-history,
  generated images, terminals, tool-output, session-env);
- error-provoking input: a truncated JSONL line holding secrets inside a transcript, a corrupt
  SQLite store holding secrets, and special files (a FIFO, a symlink out of the home) named
  after the user where sidecars are read.
Paths: the demo's cwd fields are `/home/<user>/...`; the canaries add the real home path.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import sqlite3
import string
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import zstandard

USER = "vexmorrow"  # the archived user: the home folder, cwd paths and sidecar names carry it
DOMAIN = "quuxmail.net"
# keys whose string values are structure (ids, links, enums, encodings): left as they are so the
# collectors still find sessions, lineage and sidecars
STRUCTURAL = re.compile(
    r"(?i)(^|_|[a-z])(id|ids|uuid|type|role|hash|sha|ordinal|seq|timestamp|ts|time|version|subtype|kind|status|"
    r"path|paths|file|filename|signature|data|encrypted_content|result|mode|source|slug|directory|cwd|worktree|"
    r"root|at|ms|key|project|created|updated|phase|effort|policy|name|tool|api|stopreason|media_type|url|"
    r"originator|delivery|vcs|entrypoint|usertype|trigger|cause|surfaceop|format|mime|encoding|parent|"
    r"continuedinsessionid|forkedfrom|session|agent|providerOptions|env|level)$")
ALNUM = string.ascii_letters + string.digits


def _stream(seed: str, alphabet: str, n: int) -> str:
    out, block = [], seed.encode()
    while len(out) < n:
        block = hashlib.sha512(block).digest()
        out += [alphabet[b % len(alphabet)] for b in block]
    return "".join(out[:n])


def b64u(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


@dataclass
class Plan:
    home: Path
    needles: list[tuple[str, str]] = field(default_factory=list)  # (where#kind, value)
    neighbours: dict[str, str] = field(default_factory=dict)  # tag -> text that must survive
    specials: list[str] = field(default_factory=list)  # error-provoking files planted


class Canaries:
    """Distinct, provider-shaped canaries per tag."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.n = 0
        self.plan = Plan(home)
        self.tags: dict[str, int] = {}
        self.registered: set[str] = set()

    def _num(self, tag: str) -> int:
        if tag not in self.tags:
            self.n += 1
            self.tags[tag] = self.n
        return self.tags[tag]

    def secrets(self, tag: str) -> dict[str, str]:
        n = self._num(tag)
        s = lambda kind, alpha, k: _stream(f"{tag}/{kind}", alpha, k)  # noqa: E731
        pem_body = [s(f"pem{i}", ALNUM + "+/", 64) for i in range(4)]
        payload = b64u(json.dumps({"sub": f"u{n}", "iat": 1767000000 + n}).encode())
        return {
            "email": f"n{n:03d}.harrowgate@{DOMAIN}",
            "ghp": "ghp_" + s("ghp", ALNUM, 36),
            "akia": "AKIA" + s("akia", string.ascii_uppercase + "234567", 16),
            "anthropic": "sk-ant-api03-" + s("ant", ALNUM, 93) + "AA",
            "slack_bot": f"xoxb-{s('xb1', string.digits, 12)}-{s('xb2', string.digits, 13)}-{s('xb3', ALNUM, 24)}",
            "jwt": "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9." + payload + "." + s("jwt", ALNUM + "-_", 43),
            "pem": "-----BEGIN RSA PRIVATE KEY-----\n" + "\n".join(pem_body) + "\n-----END RSA PRIVATE KEY-----",
            "stripe": "sk_live_" + s("stripe", ALNUM, 24),
            "webhook": f"https://hooks.slack.com/services/T0{s('wt', string.ascii_uppercase, 8)}/"
                       f"B0{s('wb', string.ascii_uppercase, 8)}/{s('wh', ALNUM, 24)}",
            "postgres": f"postgres://app_rw:{s('pg', ALNUM, 20)}@db{n}.corp.internal:5432/main",
        }

    def _needle_values(self, tag: str) -> dict[str, str]:
        v = self.secrets(tag)
        return {"email": v["email"], "email-local": v["email"].split("@")[0], "ghp": v["ghp"][4:],
                "akia": v["akia"], "anthropic": v["anthropic"][13:60], "slack_bot": v["slack_bot"].rsplit("-", 1)[1],
                "jwt": v["jwt"].rsplit(".", 1)[1], "pem": v["pem"].split("\n")[2],
                "stripe": v["stripe"][8:], "webhook": v["webhook"].rsplit("/", 1)[1],
                "postgres": v["postgres"].split(":")[2].split("@")[0]}

    def _register(self, tag: str) -> None:
        if tag in self.registered:
            return
        self.registered.add(tag)
        n = self._num(tag)
        self.plan.needles += [(f"{tag}#{k}", val) for k, val in self._needle_values(tag).items()]
        self.plan.neighbours[tag] = f"keep-{n:03d}-alpha"

    def text(self, tag: str, pem: bool = True) -> str:
        """A canary paragraph: every kind, between neighbour words that must survive."""
        self._register(tag)
        n, v = self.tags[tag], self.secrets(tag)
        return (f"keep-{n:03d}-alpha see {self.home}/w{n:03d}/notes.md mail {v['email']} gh {v['ghp']} "
                f"aws {v['akia']} ant {v['anthropic']} slack {v['slack_bot']} jwt {v['jwt']} stripe {v['stripe']} "
                f"hook {v['webhook']} db {v['postgres']} " + (f"key\n{v['pem']}\n" if pem else "")
                + f"keep-{n:03d}-omega")

    def env_dump(self, tag: str) -> str:
        """An environment dump (`env` / `declare -x`) holding the tag's secrets."""
        self._register(tag)
        v = self.secrets(tag)
        return (f"HOME={self.home}\nUSER={USER}\nGITHUB_TOKEN={v['ghp']}\nAWS_ACCESS_KEY_ID={v['akia']}\n"
                f"ANTHROPIC_API_KEY={v['anthropic']}\nSLACK_BOT_TOKEN={v['slack_bot']}\nSTRIPE_KEY={v['stripe']}\n"
                f"SLACK_WEBHOOK={v['webhook']}\nDATABASE_URL={v['postgres']}\nGIT_AUTHOR_EMAIL={v['email']}\n"
                f"SESSION_JWT={v['jwt']}\n")

    def key(self, tag: str) -> str:
        """A JSON key holding an e-mail and a token."""
        self._register(tag)
        v = self.secrets(tag)
        return f"{v['email']} {v['ghp']}"

    def name(self, tag: str) -> str:
        """A file-name part naming the user and an e-mail."""
        self._register(tag)
        return f"{USER}-{self.secrets(tag)['email']}"


# ------------------------------------------------------------------ planting
def plant_json(can: Canaries, obj: Any, tag: str, path: str = "", top: bool = True) -> Any:
    """`obj` with a canary appended to every free-text string (tag + JSON path) and, on the
    top record, a canary key."""
    if isinstance(obj, dict):
        out = {k: (v if isinstance(v, str) and STRUCTURAL.search(k) else plant_json(can, v, tag, f"{path}.{k}", False))
               for k, v in obj.items()}
        if top:
            k = can.key(f"{tag}:key")
            out[k] = f"keyed-{can.tags[tag + ':key']:03d}"
        return out
    if isinstance(obj, list):
        return [plant_json(can, v, tag, f"{path}[]", False) for v in obj]
    if isinstance(obj, str) and not _opaque(obj):
        return obj + " " + can.text(f"{tag}{path}")
    return obj


def _opaque(s: str) -> bool:
    """Base64 payloads, ids and hashes: left alone (they are not where a person writes)."""
    return len(s) > 200 and " " not in s or bool(re.fullmatch(r"[0-9a-f-]{16,}|[A-Za-z0-9_-]{1,3}", s))


def plant_jsonl(can: Canaries, data: bytes, tag: str) -> bytes:
    out = []
    for line in data.split(b"\n"):
        try:
            rec = json.loads(line)
        except ValueError:
            out.append(line)  # blank, or torn: kept as it is
            continue
        out.append(json.dumps(plant_json(can, rec, tag), separators=(",", ":")).encode())
    return b"\n".join(out)


def plant_cell(can: Canaries, value: str, tag: str) -> str:
    """A TEXT cell: JSON (also Cursor's hex-encoded JSON) planted inside, plain text appended to."""
    try:
        doc = json.loads(value)
        if isinstance(doc, (dict, list)):
            return json.dumps(plant_json(can, doc, tag), separators=(",", ":"))
    except ValueError:
        pass
    if re.fullmatch(r"(?:[0-9a-f]{2}){8,}", value):
        try:
            doc = json.loads(bytes.fromhex(value))
            return json.dumps(plant_json(can, doc, tag)).encode().hex()
        except ValueError:
            return value
    if value.startswith("/") or _opaque(value):
        return value
    return value + " " + can.text(tag)


def plant_sqlite(can: Canaries, db: Path, tag: str) -> None:
    con = sqlite3.connect(str(db), isolation_level=None)
    try:
        tables = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'")]
        for t in tables:
            cols = [(r[1], r[2].upper(), r[5]) for r in con.execute(f'PRAGMA table_info("{t}")')]
            text_cols = [c for c, typ, pk in cols if "TEXT" in typ and not pk and not STRUCTURAL.search(c)]
            for rowid, *vals in con.execute(f'SELECT rowid, {", ".join(chr(34) + c + chr(34) for c in text_cols) or "1"} FROM "{t}"').fetchall():
                new = [plant_cell(can, v, f"{tag}:{t}.{c}") if isinstance(v, str) else v
                       for c, v in zip(text_cols, vals)]
                if text_cols:
                    con.execute(f'UPDATE "{t}" SET {", ".join(chr(34) + c + chr(34) + "=?" for c in text_cols)} WHERE rowid=?',
                                (*new, rowid))
    finally:
        con.close()


TEXT_SUFFIXES = {".txt", ".sh", ".md", ".log", ".out", ".env", ""}


def _harness_of(rel: str) -> str:
    for prefix, h in ((".claude", "cc"), (".codex", "codex"), (".cursor", "cursor"), (".local/share/opencode", "oc"),
                      (".pi", "pi"), (".deepseek", "ds"), ("tmp", "pi-tmp")):
        if rel.startswith(prefix):
            return h
    return "other"


def _kind_of(rel: str) -> str:
    """The file's kind for its tag: the path with ids, dates and numbers taken out."""
    k = re.sub(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{16,}|\d+", "N", rel)
    return re.sub(r"[^A-Za-z0-9_./-]", "", k.replace(USER, "U"))[-60:]


def plant_tree(can: Canaries, home: Path) -> None:
    for f in sorted(p for p in home.rglob("*") if p.is_file() and not p.is_symlink()):
        rel = f.relative_to(home).as_posix()
        tag = f"{_harness_of(rel)}:{_kind_of(rel)}"
        if f.name.endswith(("-wal", "-shm")):
            continue
        head = f.read_bytes()[:16]
        if head == b"SQLite format 3\x00":
            plant_sqlite(can, f, tag)
        elif f.name.endswith(".jsonl.zst"):
            raw = zstandard.ZstdDecompressor().decompressobj().decompress(f.read_bytes())
            f.write_bytes(zstandard.ZstdCompressor(level=3).compress(plant_jsonl(can, raw, tag)))
        elif f.suffix == ".jsonl":
            f.write_bytes(plant_jsonl(can, f.read_bytes(), tag))
        elif f.suffix == ".json":
            try:
                f.write_text(json.dumps(plant_json(can, json.loads(f.read_text()), tag)))
            except ValueError:
                pass
        elif "/snapshot/" in rel and "/objects/" in rel:
            continue  # OpenCode's git objects are zlib streams: text appended would be garbage after one
        elif f.suffix in TEXT_SUFFIXES and "@v" not in f.name or re.search(r"@v\d+$", f.name):
            with f.open("a") as out:
                out.write("\n" + can.text(tag) + "\n" + can.env_dump(tag + ":env"))


# ------------------------------------------------------------------ extras the demo does not have
def plant_extras(can: Canaries, home: Path, made: dict[str, Any]) -> None:
    cc = made["claude-code"]
    pdir = cc.root / "projects" / cc.project_key
    sdir = pdir / cc.main
    # sidecar names with the username and an e-mail
    (sdir / "tool-results" / f"{can.name('cc:tool-result-name')}.txt").write_text(can.text("cc:tool-result-named-body") + "\n")
    fh = cc.root / "file-history" / cc.main
    (fh / f"{can.name('cc:file-history-name')}@v2").write_text(can.text("cc:file-history-named-body") + "\n")
    env_dir = cc.root / "session-env" / cc.main
    env_dir.mkdir(parents=True, exist_ok=True)
    (env_dir / "sessionstart-hook-1.sh").write_text(
        "".join(f"export {line}\n" for line in can.env_dump("cc:session-env").splitlines()))
    (env_dir / f"hook-{can.name('cc:session-env-name')}.sh").write_text("export A=1\n")
    # a torn line in the middle of the main transcript holding secrets (not valid JSON: no walker
    # sees it as a record)
    main = pdir / f"{cc.main}.jsonl"
    lines = main.read_bytes().split(b"\n")
    torn = ('{"type":"user","message":{"role":"user","content":"' + can.text("cc:torn-mid", pem=False)).encode()
    main.write_bytes(b"\n".join(lines[:3] + [torn] + lines[3:]))
    # special files named after the user where sidecars are read: a FIFO, a symlink out of the home
    outside = home.parent / "outside-secret.txt"
    outside.write_text(can.text("outside:symlink-target") + "\n")
    link = sdir / "tool-results" / f"{can.name('cc:symlink-name')}.txt"
    link.symlink_to(outside)
    fifo = sdir / "tool-results" / f"{can.name('cc:fifo-name')}.txt"
    os.mkfifo(fifo)
    can.plan.specials += [str(link), str(fifo)]

    codex = home / ".codex"
    img = next((codex / "generated_images").iterdir())
    (img / f"ig_{can.name('codex:image-name')}.png").write_bytes((img / "ig_1.png").read_bytes())
    shell = next((codex / "shell_snapshots").glob("*.sh"))
    shell.write_text(shell.read_text() + "".join(f"declare -x {ln}\n" for ln in can.env_dump("codex:shell-env").splitlines()))

    cur = made["cursor-agent"]
    store = next((cur["root"] / "chats").rglob("store.db"))
    con = sqlite3.connect(str(store), isolation_level=None)
    try:
        for tag, data in (("cursor:blob-protobuf", b"\x0a" + _varint(len(t := can.text("cursor:blob-protobuf", pem=False).encode())) + t),
                          ("cursor:blob-json", json.dumps({"role": "user", "content": can.text("cursor:blob-json")}).encode())):
            con.execute("INSERT OR REPLACE INTO blobs (id, data) VALUES (?, ?)", (hashlib.sha256(data).hexdigest(), data))
    finally:
        con.close()
    term = cur["root"] / "projects" / cur["slug_a"] / "terminals"
    term.mkdir(parents=True, exist_ok=True)
    (term / f"{can.name('cursor:terminal-name')}.txt").write_text(can.text("cursor:terminal-named-body") + "\n")
    # a corrupt store: a SQLite header, then secrets
    bad = cur["root"] / "chats" / cur["md5_a"] / "77777777-7777-4777-8777-777777777777" / "store.db"
    bad.parent.mkdir(parents=True)
    bad.write_bytes(b"SQLite format 3\x00" + b"\x10\x00\x01\x01" + can.text("cursor:corrupt-store").encode() * 20)
    can.plan.specials.append(str(bad))

    oc_root = home / ".local" / "share" / "opencode"
    (oc_root / "tool-output").mkdir(exist_ok=True)
    (oc_root / "tool-output" / f"tool_{can.name('oc:tool-output-name')}").write_text(can.text("oc:tool-output-named") + "\n")


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        b, n = n & 0x7F, n >> 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def sample_home(home: Path) -> dict[str, Any]:
    """The demo's six harnesses under `home` for USER, their live SQLite stores closed; what
    make_sample_home made, by harness."""
    from archiver.demo import cursor_sample, opencode_sample
    from archiver.demo.run import make_sample_home

    home.mkdir(parents=True, exist_ok=True)
    made = make_sample_home(home, USER)
    cursor_sample.close_cursor_home(made["cursor-agent"])
    opencode_sample.close_opencode_home(made["opencode"])
    return made


def build(home: Path) -> Plan:
    """The demo's six harnesses under `home` for USER, canaries planted everywhere."""
    made = sample_home(home)
    can = Canaries(home)
    plant_tree(can, home)
    plant_extras(can, home, made)
    return can.plan


# ------------------------------------------------------------------ finding them
def encodings(value: str) -> dict[str, bytes]:
    """How a value can show up: as is, JSON-escaped, URL-encoded, hex, and base64 at each of the
    three alignments (the part that does not depend on the bytes around it)."""
    v = value.encode()
    out = {"raw": v, "json": json.dumps(value)[1:-1].encode(), "url": urllib.parse.quote(value, safe="").encode(),
           "hex": v.hex().encode()}
    for k in range(3):
        enc = base64.b64encode(b"\0" * k + v)
        core = enc[(4 if k else 0):-4]
        if len(core) >= 8:
            out[f"b64/{k}"] = core
            out[f"b64u/{k}"] = core.replace(b"+", b"-").replace(b"/", b"_")
    return out


class Finder:
    """Every needle in every encoding, found by its 12-byte grams in one pass over the data, then
    confirmed whole; a gram only one needle has, without the whole needle, is a partial leak."""

    GRAM = 12

    def __init__(self, needles: list[tuple[str, str]]) -> None:
        self.grams: dict[bytes, list[tuple[str, str, bytes]]] = {}
        self.short: list[tuple[str, str, bytes]] = []
        for where, value in needles:
            for how, enc in encodings(value).items():
                if len(enc) < self.GRAM:
                    self.short.append((where, how, enc))
                    continue
                for i in range(len(enc) - self.GRAM + 1):
                    cands = self.grams.setdefault(enc[i:i + self.GRAM], [])
                    if (where, how, enc) not in cands:
                        cands.append((where, how, enc))

    def find(self, data: bytes) -> set[tuple[str, str]]:
        return {(w, h) for w, h, _ in self.where(data)}

    def where(self, data: bytes) -> list[tuple[str, str, int]]:
        """(needle, encoding, offset) of each needle found in `data`."""
        g, grams, hits, seen = self.GRAM, self.grams, {}, set()
        for i in range(len(data) - g + 1):
            gram = data[i:i + g]
            cands = grams.get(gram)
            if cands is None or gram in seen:
                continue
            seen.add(gram)
            whole = [(w, h) for w, h, enc in cands if data.find(enc, max(0, i - len(enc))) >= 0]
            for w, h in whole:
                hits.setdefault((w, h), i)
            if not whole and len(cands) == 1:
                hits.setdefault((cands[0][0], f"{cands[0][1]}, partial"), i)
        for w, h, enc in self.short:
            if (i := data.find(enc)) >= 0:
                hits.setdefault((w, h), i)
        return [(w, h, i) for (w, h), i in hits.items()]
