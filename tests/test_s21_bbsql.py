"""Black-box audit of Cursor agent and OpenCode (both SQLite): unseen sessions written
from the seeds alone (tests/fx_s21_bbsql.py) go through the CLI against moto, and the
archive is read back with the `age` and `zstd` CLIs the way a reviewer would."""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

import pytest

from tests.fx_s21_bbsql import USER, Planted, build_home, cursor_md5, cursor_slug
from tests.fx_s3 import REGION, make_bucket, s3_client, s3_server, unique_bucket_name  # noqa: F401

pytestmark = pytest.mark.skipif(not (shutil.which("age") and shutil.which("zstd")),
                                reason="needs the age and zstd CLIs")

REPO = Path(__file__).resolve().parents[1]


@dataclass
class Run:
    planted: Planted
    root: Path
    env: dict[str, str]
    config: Path
    identity: Path
    bucket: str
    endpoint: str
    sync: subprocess.CompletedProcess
    outputs: list[str] = field(default_factory=list)  # stdout+stderr of every CLI run
    objects: dict[str, bytes] = field(default_factory=dict)  # key -> decrypted plaintext
    manifests: list[bytes] = field(default_factory=list)
    keys_and_metadata: str = ""
    redacted: dict[str, str] = field(default_factory=dict)  # path -> `archiver redact` of it

    def cli(self, *args: str) -> subprocess.CompletedProcess:
        p = subprocess.run([sys.executable, "-m", "archiver", "--config", str(self.config), *args],
                           env=self.env, capture_output=True, timeout=120)
        self.outputs.append(p.stdout.decode("utf-8", "replace") + p.stderr.decode("utf-8", "replace"))
        return p


def _decrypt(identity: Path, data: bytes) -> bytes:
    plain = subprocess.run(["age", "-d", "-i", str(identity)], input=data, capture_output=True, check=True).stdout
    if plain[:4] == b"\x28\xb5\x2f\xfd":
        return subprocess.run(["zstd", "-d", "-c", "-q"], input=plain, capture_output=True, check=True).stdout
    return plain


@pytest.fixture(scope="module")
def run(s3_server: str) -> Iterator[Run]:  # noqa: F811
    root = Path(tempfile.mkdtemp(prefix="s21bbsql-"))
    os.chmod(root, 0o700)
    planted = build_home(root / "home")
    try:
        bucket = unique_bucket_name()
        make_bucket(s3_server, bucket)
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("XDG_", "CURSOR_", "OPENCODE", "ARCHIVER_", "CLAUDE_", "CODEX_", "PI_"))}
        env.update(HOME=str(planted.home), PYTHONPATH=str(REPO), USER="tester", LOGNAME="tester")
        config = root / "config.toml"
        config.write_text(f"""
home = "{planted.home}"
host = "bbsql-host"
[harnesses.claude-code]
enabled = false
[harnesses.codex]
enabled = false
[harnesses.pi]
enabled = false
[harnesses.deepseek-harness]
enabled = false
[redaction]
team_key_file = "keys/team.key"
usernames = ["{USER}"]
[encryption]
recipients_file = "keys/recipient.txt"
[store]
url = "s3://{bucket}/arch"
endpoint_url = "{s3_server}"
region = "{REGION}"
[state]
dir = "{root / 'state'}"
""")
        r = Run(planted, root, env, config, root / "keys" / "identity.txt", bucket, s3_server,
                subprocess.CompletedProcess([], 0))
        assert r.cli("keygen", "--out", str(root / "keys")).returncode == 0
        env["ARCHIVER_IDENTITY_FILE"] = str(r.identity)
        r.sync = r.cli("--json", "sync")
        _download(r)
        yield r
    finally:
        planted.close()
        shutil.rmtree(root, ignore_errors=True)


def _download(r: Run) -> None:
    client = s3_client(r.endpoint)
    keys = []
    for page in client.get_paginator("list_objects_v2").paginate(Bucket=r.bucket):
        keys += [o["Key"] for o in page.get("Contents", ())]
    meta_text = []
    for key in keys:
        obj = client.get_object(Bucket=r.bucket, Key=key)
        body = obj["Body"].read()
        meta_text.append(key + " " + json.dumps(obj.get("Metadata", {})) + " " + str(obj.get("ContentType")))
        if key.endswith("archiver.json"):
            r.manifests.append(body)
        elif "/snapshots/" in key:
            r.manifests.append(_decrypt(r.identity, body))
        else:
            r.objects[key] = _decrypt(r.identity, body)
    r.keys_and_metadata = "\n".join(meta_text)


def _inflated(data: bytes) -> bytes:
    """A git loose object (zlib) as its plaintext; anything else as is."""
    if data[:1] == b"\x78":
        try:
            return zlib.decompress(data)
        except zlib.error:
            pass
    return data


def _contains(data: bytes, value: str) -> bool:
    """Plain, or hex-encoded as Cursor stores meta values and Uint8Array parts."""
    return value.encode() in data or value.encode().hex().encode() in data


def _leaks(r: Run, blobs: dict[str, bytes]) -> list[str]:
    found = []
    blobs = {where: _inflated(data) for where, data in blobs.items()}
    for c in r.planted.canaries:
        for kind, value in c.secrets().items():
            found += [f"{c.tag} {kind} in {where}" for where, data in blobs.items() if _contains(data, value)]
    for encoded, tag in r.planted.encoded.items():
        found += [f"{tag} (encoded as planted) in {where}" for where, data in blobs.items() if encoded.encode() in data]
    for where, data in blobs.items():
        if USER.encode() in data.lower() or USER.encode().hex().encode() in data:
            found.append(f"username {USER!r} in {where}")
    return found


def test_generator_planted_every_canary_and_id(run: Run) -> None:
    """The checks below can only fail if the canaries and ids really are in the HOME."""
    raw = {str(f): _inflated(f.read_bytes()) for f in run.planted.home.rglob("*") if f.is_file()}
    everything = b"\n".join(raw.values())
    hidden = set(run.planted.encoded.values())
    missing = [c.tag for c in run.planted.canaries
               if c.tag not in hidden and not all(_contains(everything, v) for v in c.secrets().values())]
    assert not missing, "\n".join(missing)
    assert all(e.encode() in everything for e in run.planted.encoded)
    absent = [i for i in run.planted.ids if not _contains(everything, i)]
    assert not absent, absent
    assert len(run.planted.canaries) > 200 and len(run.planted.ids) > 100
    detected = {line.split(" ", 1)[0] for line in _leaks(run, raw)}
    undetected = {c.tag for c in run.planted.canaries} - detected
    assert not undetected, f"the leak detector misses planted canaries: {sorted(undetected)[:10]}"


def _ls(r: Run) -> dict[str, dict]:
    p = r.cli("--json", "ls")
    assert p.returncode == 0, p.stderr.decode()
    return {s["key"]: s for s in json.loads(p.stdout)["sessions"]}


# ------------------------------------------------------------------ a. sync finds everything
def test_sync_exit_zero_and_every_session_found(run: Run) -> None:
    assert run.sync.returncode == 0, run.sync.stderr.decode()[-3000:]
    report = json.loads(run.sync.stdout)
    assert report["sessions"]["failed"] == 0, report["errors"]
    archived = set(_ls(run))
    missing = run.planted.sessions - archived
    assert not missing, f"generated but not archived: {sorted(missing)}"
    extra = {k for k in archived - run.planted.sessions if ":@" not in k}  # @host, @project-<id>: host-level
    assert not extra, f"archived sessions that were never generated: {sorted(extra)}"


# ------------------------------------------------------------------ b. no canary anywhere
def test_no_canary_in_decrypted_objects(run: Run) -> None:
    assert run.objects, "nothing uploaded"
    leaks = _leaks(run, {f"object {k.rsplit('/', 1)[-1][:12]}": v for k, v in run.objects.items()})
    assert not leaks, f"{len(leaks)} leaks:\n" + "\n".join(sorted(leaks)[:60])


def test_no_canary_in_manifests_keys_metadata_or_output(run: Run) -> None:
    blobs = {f"manifest {i}": m for i, m in enumerate(run.manifests)}
    blobs["object keys + S3 metadata"] = run.keys_and_metadata.encode()
    _ls(run)
    run.cli("--json", "lineage")
    blobs["CLI stdout/stderr"] = "\n".join(run.outputs).encode()
    leaks = _leaks(run, blobs)
    assert not leaks, "\n".join(sorted(leaks)[:60])


# ------------------------------------------------------------------ c. ids intact
def test_planted_ids_survive(run: Run) -> None:
    everything = b"\n".join(_inflated(o) for o in run.objects.values())
    lost = sorted(f"{where}: {i}" for i, where in run.planted.ids.items() if not _contains(everything, i))
    assert not lost, f"{len(lost)} ids lost:\n" + "\n".join(lost)


# ------------------------------------------------------------------ d. lineage
def test_lineage_edges_are_exactly_the_seeded_ones(run: Run) -> None:
    p = run.cli("--json", "lineage")
    assert p.returncode == 0, p.stderr.decode()
    doc = json.loads(p.stdout)
    got = {(e["child"], e["parent"], e["relation"]) for e in doc["edges"]}
    ours = {e for e in got if e[0] in run.planted.sessions or e[1] in run.planted.sessions}
    assert ours == run.planted.edges, (f"missing {sorted(run.planted.edges - ours)}\n"
                                       f"unexpected {sorted(ours - run.planted.edges)}")
    forks = {(e["child"], e["parent"]): e["inferred"] for e in doc["edges"] if e["relation"] == "fork"}
    cursor_forks = [v for (c, _), v in forks.items() if c.startswith("cursor-agent:")]
    assert cursor_forks == [True], f"a Cursor fork records no parent id, so it must be inferred: {forks}"


# ------------------------------------------------------------------ e. restore into the native layout
def _redacted(run: Run, text: str) -> str:
    """`archiver redact` of one path; every path the checks need goes in one CLI call."""
    if not run.redacted:
        paths = sorted({c["cwd"] for c in run.planted.cursor_chats.values()} | {f"/home/{USER}/src/lighthouse"})
        src = run.root / "redact-in.txt"
        src.write_text("\n".join(paths) + "\n")
        p = run.cli("redact", "--format", "text", str(src))
        assert p.returncode == 0, p.stderr.decode()
        out = p.stdout.decode().split("\n")
        run.redacted.update(zip(paths, out))
    return run.redacted[text]


def _jsonl_ok(path: Path) -> list[str]:
    bad = []
    for n, line in enumerate(path.read_text().splitlines(), 1):
        try:
            json.loads(line)
        except ValueError:
            bad.append(f"{path.name}:{n} does not parse")
    return bad


def _cursor_restore_problems(run: Run, dest: Path, family: set[str]) -> list[str]:
    problems = []
    chats = run.planted.cursor_chats
    for key in sorted(family):
        chat = key.split(":", 1)[1]
        facts = chats.get(chat)
        if facts is None:  # an inline subagent: its bytes live in the parent's store
            continue
        rcwd = _redacted(run, facts["cwd"])
        if USER in rcwd:
            problems.append(f"cwd of {chat} not redacted by `archiver redact`")
        if facts.get("acp"):
            base = dest / ".cursor" / "acp-sessions" / chat
        else:
            base = dest / ".cursor" / "chats" / cursor_md5(rcwd) / chat
        proj = dest / ".cursor" / "projects" / cursor_slug(rcwd)
        expect = []
        if facts["store"]:
            expect.append(base / "store.db")
            if (run.planted.home / _rel_home(run, base, dest) / "meta.json").exists():
                expect.append(base / "meta.json")
            if (run.planted.home / _rel_home(run, base, dest) / "prompt_history.json").exists():
                expect.append(base / "prompt_history.json")
        if facts["jsonl"] is True:
            expect.append(proj / "agent-transcripts" / chat / f"{chat}.jsonl")
            expect += [proj / "agent-transcripts" / chat / "subagents" / f"{s}.jsonl" for s in facts["subagents"]]
        elif facts["jsonl"] == "flat":
            expect.append(proj / "agent-transcripts" / f"{chat}.jsonl")
        if facts["terminal"]:
            expect.append(proj / "terminals" / facts["terminal"])
        for path in expect:
            if not path.exists():
                near = sorted(str(p.relative_to(dest)) for p in dest.rglob(path.name))
                problems.append(f"{key}: missing {path.relative_to(dest)} (found {near})")
            elif path.suffix == ".jsonl":
                problems += _jsonl_ok(path)
            elif path.name == "store.db":
                problems += _cursor_store_problems(path, chat)
            elif path.name == "meta.json" and json.loads(path.read_text()).get("cwd", rcwd) != rcwd:
                problems.append(f"{path.relative_to(dest)} cwd is not the redacted cwd")
    outsiders = {p.parent.name for p in (dest / ".cursor").rglob("store.db")} - {k.split(":", 1)[1] for k in family}
    if outsiders:
        problems.append(f"stores of chats outside the family restored: {sorted(outsiders)}")
    return problems


def _rel_home(run: Run, base: Path, dest: Path) -> Path:
    """The generated folder that corresponds to a restored one (md5 dir of the original cwd)."""
    rel = base.relative_to(dest)
    parts = list(rel.parts)
    if parts[1] == "chats":
        chat = parts[3]
        parts[2] = cursor_md5(run.planted.cursor_chats[chat]["cwd"])
    return Path(*parts)


def _cursor_store_problems(path: Path, chat: str) -> list[str]:
    try:
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        raw = con.execute("SELECT value FROM meta WHERE key='0'").fetchone()[0]
        meta = json.loads(bytes.fromhex(raw))
        n_blobs = con.execute("SELECT count(*) FROM blobs").fetchone()[0]
        root = meta.get("latestRootBlobId", "")
        has_root = not root or con.execute("SELECT 1 FROM blobs WHERE id=?", (root,)).fetchone()
        con.close()
    except (sqlite3.Error, ValueError, TypeError) as exc:
        return [f"{chat}/store.db unreadable: {exc}"]
    out = []
    if meta.get("agentId") != chat:
        out.append(f"{chat}/store.db meta.agentId is {meta.get('agentId')!r}")
    if root and (not has_root or n_blobs == 0):
        out.append(f"{chat}/store.db lost its root blob {root[:12]}")
    return out


def _opencode_restore_problems(run: Run, dest: Path, family: set[str]) -> list[str]:
    data = dest / ".local" / "share" / "opencode"
    ids = {k.split(":", 1)[1] for k in family}
    db_name = {run.planted.opencode[i].get("db", "opencode.db") for i in ids}.pop()
    db = data / db_name
    if not db.exists():
        return [f"missing .local/share/opencode/{db_name} (found {sorted(str(p.relative_to(dest)) for p in dest.rglob('*.db'))})"]
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    problems = []
    try:
        sessions = {r[0] for r in con.execute("SELECT id FROM session_v2")}
        msg_owners = {r[0] for r in con.execute("SELECT DISTINCT session_id FROM session_message")}
        other = set()
        for table in ("session_inbox", "instruction_entry", "instruction_state", "session", "message", "part"):
            other |= {r[0] for r in con.execute(f"SELECT DISTINCT {'id' if table == 'session' else 'session_id'} FROM {table}")}
        rows = con.execute("SELECT data FROM session_message").fetchall()
    except sqlite3.Error as exc:
        return [f"opencode.db unreadable: {exc}"]
    finally:
        con.close()
    if sessions != ids:
        problems.append(f"session_v2 holds {sorted(sessions)}, family is {sorted(ids)}")
    if msg_owners != ids:
        problems.append(f"session_message rows of {sorted(msg_owners ^ ids)} (family {sorted(ids)})")
    if other - ids:
        problems.append(f"rows of sessions outside the family in side tables: {sorted(other - ids)}")
    for sid in sorted(ids):
        for rel in run.planted.opencode[sid].values():
            if "/" in rel and not (data / rel).exists():
                problems.append(f"opencode:{sid}: missing sidecar {rel}")
    problems += _snapshot_problems(run, data, rows)
    output_paths = [re.search(r'"outputPath": "([^"]+)"', d[0]) for d in rows]
    for m in filter(None, output_paths):
        if not (data / "tool-output" / Path(m.group(1)).name).exists():
            problems.append(f"outputPath {Path(m.group(1)).name} names no restored tool-output file")
    return problems


def _snapshot_problems(run: Run, data: Path, rows: list[tuple[str]]) -> list[str]:
    """assistant.snapshot.start/end name trees of the snapshot git dir named after the (redacted) worktree."""
    trees = [t for (d,) in rows for t in re.findall(r'"(?:start|end)": "([0-9a-f]{40})"', d)]
    if not trees:
        return []
    problems = []
    for rel in sorted(run.planted.snapshot_dirs):
        project = Path(rel).parent
        worktree = _redacted(run, f"/home/{USER}/src/lighthouse")
        gitdir = data / project / hashlib.sha1(worktree.encode()).hexdigest()
        if not gitdir.is_dir():
            found = sorted(str(p.relative_to(data)) for p in (data / project).glob("*")) if (data / project).exists() else []
            problems.append(f"snapshot git dir not at {gitdir.relative_to(data)} (found {found})")
            continue
        for t in trees:
            p = subprocess.run(["git", "cat-file", "-t", t], env={"GIT_DIR": str(gitdir), "PATH": "/usr/bin:/bin"},
                               capture_output=True, text=True)
            if p.stdout.strip() != "tree":
                problems.append(f"snapshot tree {t} named by an assistant row is not in the restored git dir")
    return problems


def test_restore_with_family_into_native_layout(run: Run) -> None:
    problems = []
    for top, family in sorted(run.planted.families.items()):
        dest = run.root / "restore" / re.sub(r"\W", "_", top)
        extra = [f"opencode:@project-{Path(d).parent.name}" for d in sorted(run.planted.snapshot_dirs)
                 if top in {"opencode:" + s for s in run.planted.snapshot_users}]
        p = run.cli("restore", top, *extra, "--with-family", "--to", str(dest), "--identity", str(run.identity))
        if p.returncode != 0:
            problems.append(f"restore {top} exit {p.returncode}: {p.stderr.decode()[-400:]}")
            continue
        if top.startswith("cursor-agent:"):
            problems += _cursor_restore_problems(run, dest, family)
        else:
            problems += _opencode_restore_problems(run, dest, family)
        leaks = _leaks(run, {str(f.relative_to(dest)): f.read_bytes() for f in dest.rglob("*") if f.is_file()})
        leaks += [f"username in file name {f.relative_to(dest)}" for f in dest.rglob("*") if USER in f.name]
        problems += [f"{top}: {x}" for x in leaks]
    assert not problems, "\n".join(problems)
