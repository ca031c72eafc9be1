"""An independent reader of `archiver/1` archives, written from docs/FORMAT.md alone.

It stands for the person who, in ten years, has the doc, the `age` and `zstd`
command-line tools, an identity file and perhaps the team key: stdlib only (plus
boto3 for an S3 store), never `archiver`. Section numbers refer to docs/FORMAT.md.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import shutil
import sqlite3
import subprocess
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable, Protocol

FORMAT = "archiver/1"
MANIFEST_CAP = 1 << 30
GONE_SUFFIX = ": gone from the machine; the archived copy is kept"
HEX64 = re.compile(r"[0-9a-f]{64}")


class ReaderError(Exception):
    pass


# ---- stores (§1) -------------------------------------------------------------------------------


class Store(Protocol):
    def list(self, prefix: str) -> list[str]: ...

    def get(self, key: str) -> bytes: ...


class FileStore:
    """A `file:///path` archive: every key is a file under the folder."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def list(self, prefix: str) -> list[str]:
        base = self.root / prefix
        if not base.is_dir():
            return []
        return sorted(p.relative_to(self.root).as_posix() for p in base.rglob("*") if p.is_file())

    def get(self, key: str) -> bytes:
        return (self.root / key).read_bytes()


class S3Store:
    """An `s3://bucket/prefix` archive read with ListObjectsV2 and GetObject."""

    def __init__(self, client: Any, bucket: str, prefix: str) -> None:
        self.client, self.bucket = client, bucket
        self.prefix = prefix.strip("/") + "/" if prefix.strip("/") else ""

    def list(self, prefix: str) -> list[str]:
        keys: list[str] = []
        for page in self.client.get_paginator("list_objects_v2").paginate(Bucket=self.bucket, Prefix=self.prefix + prefix):
            keys += [o["Key"][len(self.prefix):] for o in page.get("Contents", [])]
        return sorted(keys)

    def get(self, key: str) -> bytes:
        return self.client.get_object(Bucket=self.bucket, Key=self.prefix + key)["Body"].read()


def open_store(url: str, s3_client: Any = None) -> Store:
    if url.startswith("file://"):
        return FileStore(Path(url[len("file://"):]))
    if url.startswith("s3://"):
        bucket, _, prefix = url[len("s3://"):].partition("/")
        return S3Store(s3_client, bucket, prefix)
    raise ReaderError(f"unknown store url {url}")


# ---- encoding (§2) and keys (§4) ---------------------------------------------------------------


def decode(blob: bytes, identity: Path, cap: int) -> bytes:
    """age -d | zstd -d, refusing more than `cap` bytes of output (§5: zstd bombs)."""
    age = subprocess.Popen(["age", "-d", "-i", str(identity)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE)
    zstd = subprocess.Popen(["zstd", "-d", "-q", "-c"], stdin=age.stdout, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert age.stdout is not None and age.stdin is not None and zstd.stdout is not None
    age.stdout.close()
    age.stdin.write(blob)
    age.stdin.close()
    out = zstd.stdout.read(cap + 1)
    if len(out) > cap:
        zstd.kill()
        age.kill()
        zstd.wait()
        age.wait()
        raise ReaderError(f"object decompresses past {cap} bytes")
    zstd.stdout.close()
    if age.wait() != 0 or zstd.wait() != 0:
        raise ReaderError(f"age/zstd failed: {age.stderr.read()!r} {zstd.stderr.read()!r}")  # type: ignore[union-attr]
    return out


def derive(team_key_hex: str, purpose: str) -> bytes:
    return hmac.new(bytes.fromhex(team_key_hex.strip()), f"archiver/v1/{purpose}".encode(), hashlib.sha256).digest()


def object_id(k_obj: bytes, plaintext: bytes) -> str:
    return hmac.new(k_obj, plaintext, hashlib.sha256).hexdigest()


def tomb_id(k_obj: bytes, key: str) -> str:
    return hmac.new(k_obj, b"tombstone\x00" + key.encode(), hashlib.sha256).hexdigest()


def host_id(team_key_hex: str, name: str) -> str:
    return hmac.new(derive(team_key_hex, "host-id"), name.encode(), hashlib.sha256).hexdigest()[:16]


def chain_sha256(segments: list[bytes]) -> str:
    """§5: one (or no) object: plain SHA-256; several: the chain over hex strings."""
    if len(segments) <= 1:
        return hashlib.sha256(segments[0] if segments else b"").hexdigest()
    d = hashlib.sha256(segments[0]).hexdigest()
    for seg in segments[1:]:
        d = hashlib.sha256((d + hashlib.sha256(seg).hexdigest()).encode()).hexdigest()
    return d


def parse_time(s: str | None) -> datetime | None:
    if not s:
        return None
    dt = datetime.fromisoformat(s.replace("Z", "+00:00"))
    return dt if dt.tzinfo else dt.replace(tzinfo=timezone.utc)


# ---- manifests and the latest state (§5, §6.3, §7) ---------------------------------------------


@dataclass
class Manifest:
    key: str
    doc: dict[str, Any]

    @property
    def host(self) -> str:
        return str(self.doc["host_id"])

    @property
    def created(self) -> datetime:
        t = parse_time(self.doc["created_at"])
        assert t is not None
        return t


@dataclass
class State:
    """One session's chosen state: the Session object and the manifest that holds it."""

    session: dict[str, Any]
    manifest: Manifest

    @property
    def key(self) -> str:
        return str(self.session["key"])

    @property
    def ident(self) -> tuple[str, str]:
        """(key, host_id) for host sessions (§6.3), (key, "") for the others."""
        return (self.key, self.manifest.host if is_host_key(self.key) else "")


def is_host_key(key: str) -> bool:
    return key.partition(":")[2].startswith("@")


@dataclass
class Archive:
    store: Store
    identity: Path
    team_key: str | None = None
    manifests: list[Manifest] = field(default_factory=list)
    tombstones: set[str] = field(default_factory=set)

    @property
    def k_obj(self) -> bytes | None:
        return derive(self.team_key, "object-id") if self.team_key else None


def load(store: Store, identity: Path, team_key: str | None = None) -> Archive:
    marker = json.loads(store.get("archiver.json"))
    if marker.get("format") != FORMAT:
        raise ReaderError(f"archiver.json names format {marker.get('format')!r}")
    arch = Archive(store, identity, team_key)
    for key in store.list("snapshots/"):
        parts = key.split("/")
        if len(parts) != 3 or not key.endswith(".json.age"):
            continue
        doc = json.loads(decode(store.get(key), identity, MANIFEST_CAP))
        if doc.get("format") != FORMAT or doc.get("host_id") != parts[1]:
            raise ReaderError(f"{key}: format {doc.get('format')!r} or host_id {doc.get('host_id')!r} off")
        arch.manifests.append(Manifest(key, doc))
    arch.tombstones = {k.rsplit("/", 1)[1] for k in store.list("tombstones/")}
    return arch


def _tombstoned(arch: Archive, key: str) -> bool:
    k_obj = arch.k_obj
    return k_obj is not None and tomb_id(k_obj, key) in arch.tombstones


def latest(arch: Archive) -> dict[tuple[str, str], State]:
    """§6.3 with §7: per host the newest manifest naming each key; across hosts the
    latest `archived_at`, then the newer manifest; host sessions kept per host."""
    per_host: dict[tuple[str, str, str], State] = {}
    for m in sorted(arch.manifests, key=lambda m: m.created):
        for s in m.doc["sessions"]:
            if _tombstoned(arch, s["key"]):
                continue
            per_host[(m.host, s["key"], "")] = State(s, m)  # later manifests overwrite
    chosen: dict[tuple[str, str], State] = {}
    for st in per_host.values():
        old = chosen.get(st.ident)
        if old is None or _rank_across_hosts(st) > _rank_across_hosts(old):
            chosen[st.ident] = st
    return chosen


def _rank_across_hosts(st: State) -> tuple[datetime, datetime]:
    floor = datetime.min.replace(tzinfo=timezone.utc)
    return (parse_time(st.session.get("archived_at")) or floor, st.manifest.created)


# ---- restore (§5.1, §8) ------------------------------------------------------------------------


@dataclass
class Result:
    files: dict[str, str] = field(default_factory=dict)  # path -> session key that placed it
    conflicts: list[tuple[str, list[str]]] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    merged: list[str] = field(default_factory=list)


def safe_path(path: str) -> str:
    parts = path.split("/")
    if (not path or path.startswith("/") or "\\" in path or "\0" in path
            or any(p in ("", ".", "..") for p in parts)):
        raise ReaderError(f"unsafe artifact path {path!r}")
    return path


def read_artifact(arch: Archive, art: dict[str, Any]) -> bytes:
    size = int(art["size"])
    segments = []
    for oid in art["objects"]:
        if not HEX64.fullmatch(oid):
            raise ReaderError(f"bad object id {oid!r}")
        seg = decode(arch.store.get(f"objects/{oid[:2]}/{oid}"), arch.identity, size)
        if arch.k_obj is not None and object_id(arch.k_obj, seg) != oid:
            raise ReaderError(f"object {oid}: id does not match its plaintext")
        segments.append(seg)
    data = b"".join(segments)
    if len(data) != size or chain_sha256(segments) != art["sha256"]:
        raise ReaderError(f"{art['path']}: size or sha256 mismatch")
    return data


@dataclass
class Placement:
    state: State
    art: dict[str, Any]
    index: int

    @property
    def path(self) -> str:
        return str(self.art["path"])

    @property
    def gone(self) -> bool:
        return f"{self.path}{GONE_SUFFIX}" in self.state.session.get("warnings", [])


def restore_all(arch: Archive, target: Path, states: dict[tuple[str, str], State] | None = None) -> Result:
    states = latest(arch) if states is None else states
    ordered = sorted(states.values(), key=lambda s: s.ident)
    placements = [Placement(st, a, i) for st in ordered for i, a in enumerate(st.session["artifacts"])]
    by_path: dict[str, list[Placement]] = {}
    for p in placements:
        by_path.setdefault(safe_path(p.path), []).append(p)
    res = Result()
    winners: list[Placement] = []
    merges: dict[str, list[Placement]] = {}
    for path, group in by_path.items():
        group = [p for p in group if not p.art["shared"]] or group  # §5.1: the owner's copy, if restored
        first = group[0]
        group = [first] + [p for p in group[1:] if p.art["objects"] != first.art["objects"] and not p.art["shared"]]
        if len(group) == 1:
            winners.append(group[0])
        elif all(p.art["format"] == "sqlite" for p in group):
            winners.append(group[0])
            merges[path] = group
        else:  # two hosts' host files, or two states of one file: the first session's, reported
            res.conflicts.append((path, [f"{p.state.key}@{p.state.manifest.host}" for p in group[1:]]))
            winners.append(group[0])
    placed: list[str] = []
    for p in sorted(winners, key=_placement_rank):
        clash = next((q for q in placed if p.path.startswith(q + "/") or q.startswith(p.path + "/")), None)
        if clash is not None:
            res.skipped.append((p.path, clash))
            continue
        _write(arch, target, p, merges.get(p.path, []))
        placed.append(p.path)
        res.files[p.path] = p.state.key
    _codex_conveniences(target, states, res)
    _complete_git_dirs(target, res)
    return res


def _complete_git_dirs(target: Path, res: Result) -> None:
    """§8: a restored OpenCode snapshot git dir gets the empty `refs/` and `objects/`
    folders an archive of files cannot hold (git takes a folder without refs/ for none)."""
    top = ".local/share/opencode/snapshot/"
    for path in res.files:
        # HEAD of `<project-id>/` or `<project-id>/<worktree hash>/`
        if path.startswith(top) and path.endswith("/HEAD") and len(path[len(top):].split("/")) in (2, 3):
            git_dir = target / path[: -len("/HEAD")]
            for folder in ("refs", "objects"):
                (git_dir / folder).mkdir(exist_ok=True)


def _placement_rank(p: Placement) -> tuple[bool, float, tuple[str, str], int]:
    return (p.gone, -float(p.art["mtime"]), p.state.ident, p.index)


def _write(arch: Archive, target: Path, p: Placement, merge_group: list[Placement]) -> None:
    dest = target / p.path
    for parent in list(dest.parents)[::-1]:
        if parent.is_symlink():
            raise ReaderError(f"{p.path}: passes through a symlink")
    dest.parent.mkdir(parents=True, exist_ok=True)
    data = read_artifact(arch, p.art)
    if p.art["format"] == "jsonl.zst":
        data = subprocess.run(["zstd", "-3", "-q", "-c"], input=data, stdout=subprocess.PIPE, check=True).stdout
    tmp = dest.with_name(dest.name + ".reader-tmp")
    tmp.write_bytes(data)
    os.replace(tmp, dest)
    for q in merge_group[1:]:
        if q.art["objects"] != p.art["objects"]:
            extract = dest.with_name(dest.name + ".reader-extract")
            extract.write_bytes(read_artifact(arch, q.art))
            merge_sqlite(dest, extract)
            extract.unlink()
    mt = float(p.art["mtime"])  # as archived, fraction included (FORMAT.md §8 said whole seconds)
    os.utime(dest, (mt, mt))


def merge_sqlite(into: Path, extract: Path, whole_rows: bool = False) -> None:
    """§5.1: table by table, INSERT OR IGNORE the extract's rows (ATTACH)."""
    con = sqlite3.connect(into)
    try:
        con.execute("ATTACH DATABASE ? AS ex", (str(extract),))
        tables = [r[0] for r in con.execute(
            "SELECT name FROM ex.sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%' ORDER BY name")]
        have = {r[0] for r in con.execute("SELECT name FROM main.sqlite_master WHERE type='table'")}
        for t in tables:
            if t not in have:
                sql = con.execute("SELECT sql FROM ex.sqlite_master WHERE type='table' AND name=?", (t,)).fetchone()[0]
                con.execute(sql)
            q = f'"{t}"'
            if whole_rows:
                con.execute(f"INSERT INTO main.{q} SELECT * FROM ex.{q} EXCEPT SELECT * FROM main.{q}")
            else:
                con.execute(f"INSERT OR IGNORE INTO main.{q} SELECT * FROM ex.{q}")
        con.commit()
        con.execute("DETACH DATABASE ex")
    finally:
        con.close()


# ---- Codex's extracts (§5.1 table) -------------------------------------------------------------

EXTRACTS = ".codex/archiver-extracts/"
ROLLOUT_TS = re.compile(r"rollout-(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2})")


def _codex_conveniences(target: Path, states: dict[tuple[str, str], State], res: Result) -> None:
    state5 = sorted(p for p in res.files if p.startswith(EXTRACTS + "state_5/"))
    if state5:
        db = target / ".codex/state_5.sqlite"
        for p in state5:
            if not db.exists():
                shutil.copyfile(target / p, db)
            else:
                merge_sqlite(db, target / p, whole_rows=p.endswith("/@host.sqlite"))
        _point_rollouts(db, target, states, res)
        res.merged.append(".codex/state_5.sqlite")
    index = sorted(p for p in res.files if p.startswith(EXTRACTS + "session_index/"))
    if index:
        out = target / ".codex/session_index.jsonl"
        have = out.read_bytes().splitlines(keepends=True) if out.exists() else []
        for p in index:
            for line in (target / p).read_bytes().splitlines(keepends=True):
                if line not in have:
                    have.append(line)
        out.write_bytes(b"".join(have))
        res.merged.append(".codex/session_index.jsonl")


def _point_rollouts(db: Path, target: Path, states: dict[tuple[str, str], State], res: Result) -> None:
    con = sqlite3.connect(db)
    try:
        cols = {r[1] for r in con.execute("PRAGMA table_info(threads)")}
        if not {"id", "rollout_path"} <= cols:
            return
        for tid, rp in con.execute("SELECT id, rollout_path FROM threads").fetchall():
            new = _rollout_for(tid, rp, target, states, res)
            if new is not None:
                con.execute("UPDATE threads SET rollout_path=? WHERE id=?", (new, tid))
        con.commit()
    finally:
        con.close()


def _rollout_for(tid: str, archived: str, target: Path, states: dict[tuple[str, str], State], res: Result) -> str | None:
    """The restored file of the same name (.jsonl or .jsonl.zst), else the thread's latest by name."""
    here = [p for top in ("sessions", "archived_sessions") if (target / ".codex" / top).is_dir()
            for p in (target / ".codex" / top).rglob("*") if p.is_file()]
    plain = archived.rsplit("/", 1)[-1].removesuffix(".zst")
    found = next((p for p in here if p.name in (plain, plain + ".zst")), None)
    if found is None:
        mine = [p for p in here if tid in p.name and ROLLOUT_TS.search(p.name)]
        if not mine:
            return None
        found = max(mine, key=lambda p: ROLLOUT_TS.search(p.name).group(1))  # type: ignore[union-attr]
    return str(found.resolve())


# ---- helpers for tests -------------------------------------------------------------------------


def lineage_edges(states: Iterable[State]) -> set[tuple[str, str, str]]:
    return {(st.key, e["parent"], e["relation"]) for st in states for e in st.session.get("parents", [])}
