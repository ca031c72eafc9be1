"""A session names the host-level sessions it uses (Session.uses, docs/FORMAT.md §5), so
`restore --with-family` brings them: an OpenCode session whose assistant rows name snapshot trees
needs `opencode:@project-<project_id>`, the project's snapshot git dir (seeds/by-harness/opencode.json:
"assistant.snapshot.start/end and session_v2.revert.snapshot -> git trees in snapshot/<project>/<hash>/").

The home is generated here following the seed: one opencode.db (WAL) holding two projects, a session
with snapshots in each, a subagent and a session without snapshots in the first, and a private bare
git dir per project under snapshot/<project_id>/<sha1(worktree)>/. The real CLI syncs it to moto
on 127.0.0.1 and restores it.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import subprocess
import zlib
from pathlib import Path
from typing import Any

import pytest

from archiver.lineage import Lineage
from archiver.model import Manifest, Session
from tests.fx_archiver import Env, decrypt_with_cli, env  # noqa: F401  (fixture)

SCHEMA = """
CREATE TABLE project (id TEXT PRIMARY KEY, worktree TEXT NOT NULL, vcs TEXT, name TEXT, time_created INTEGER,
  time_updated INTEGER);
CREATE TABLE session_v2 (id TEXT PRIMARY KEY, project_id TEXT NOT NULL, workspace_id TEXT, parent_id TEXT,
  fork_session_id TEXT, fork_boundary TEXT, slug TEXT NOT NULL, directory TEXT NOT NULL, path TEXT, title TEXT,
  version TEXT NOT NULL, revert TEXT, agent TEXT, model TEXT, time_created INTEGER, time_updated INTEGER);
CREATE TABLE session_message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, type TEXT NOT NULL, seq INTEGER NOT NULL,
  time_created INTEGER, time_updated INTEGER, data TEXT NOT NULL);
CREATE INDEX session_message_seq ON session_message(session_id, seq);
CREATE TABLE kv (key TEXT PRIMARY KEY, value TEXT, time_created INTEGER, time_updated INTEGER);
CREATE TABLE migration (id TEXT PRIMARY KEY, time INTEGER);
"""
PRJ_A, PRJ_B = "a1" * 20, "b2" * 20  # project ids: the root commit's SHA-1
A_MAIN, A_CHILD, A_PLAIN, B_MAIN = (f"ses_{n:04d}UsesZZabcdefghijklmnop" for n in (1, 2, 3, 4))
T0 = 1767261600000


def _git(gitdir: Path, *args: str, data: bytes | None = None) -> str:
    return subprocess.run(["git", "--git-dir", str(gitdir), *args], input=data, capture_output=True,
                          check=True).stdout.decode().strip()


def _snapshot_repo(root: Path, project: str, worktree: Path, content: bytes) -> tuple[str, str]:
    """snapshot/<project>/<sha1(worktree)>/: a bare repo holding one blob in a tree; (tree, blob) ids."""
    gitdir = root / "snapshot" / project / hashlib.sha1(str(worktree).encode()).hexdigest()
    subprocess.run(["git", "init", "-q", "--bare", str(gitdir)], check=True)
    blob = _git(gitdir, "hash-object", "-w", "--stdin", data=content)
    tree = _git(gitdir, "mktree", data=f"100644 blob {blob}\tnotes.txt\n".encode())
    return tree, blob


def build_home(home: Path) -> dict[str, Any]:
    root = home / ".local" / "share" / "opencode"
    root.mkdir(parents=True)
    work_a, work_b = home / "work" / "app-a", home / "work" / "app-b"
    tree_a, blob_a = _snapshot_repo(root, PRJ_A, work_a, b"project A notes\n")
    tree_b, blob_b = _snapshot_repo(root, PRJ_B, work_b, b"project B notes\n")
    conn = sqlite3.connect(root / "opencode.db", isolation_level=None)
    try:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.executescript(SCHEMA)
        conn.execute("INSERT INTO migration VALUES ('20260804233008_loose_psylocke', 1)")
        for prj, wt in ((PRJ_A, work_a), (PRJ_B, work_b)):
            conn.execute("INSERT INTO project VALUES (?,?,?,?,?,?)", (prj, str(wt), "git", wt.name, T0, T0))
        rows = [(A_MAIN, PRJ_A, work_a, None, tree_a), (A_CHILD, PRJ_A, work_a, A_MAIN, None),
                (A_PLAIN, PRJ_A, work_a, None, None), (B_MAIN, PRJ_B, work_b, None, tree_b)]
        for n, (sid, prj, wt, parent, tree) in enumerate(rows):
            conn.execute("INSERT INTO session_v2 (id, project_id, parent_id, slug, directory, title, version, agent, "
                         "model, time_created, time_updated) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                         (sid, prj, parent, f"slug-{n}", str(wt), f"session {n}", "2.1.4", "build",
                          json.dumps({"id": "m", "providerID": "p"}), T0 + n, T0 + 60_000 + n))
            _messages(conn, sid, tree)
    finally:
        conn.close()
    return {"blob_a": blob_a, "blob_b": blob_b}


def _messages(conn: sqlite3.Connection, sid: str, tree: str | None) -> None:
    user = {"text": "look at notes.txt", "time": {"created": T0}}
    step: dict[str, Any] = {"agent": "build", "model": {"id": "m", "providerID": "p"}, "finish": "stop",
                            "content": [{"type": "text", "text": "done"}], "time": {"created": T0, "completed": T0 + 5}}
    if tree is not None:
        step["snapshot"] = {"start": tree, "end": tree, "files": ["notes.txt"]}
    for seq, (typ, data) in enumerate((("user", user), ("assistant", step)), start=1):
        conn.execute("INSERT INTO session_message VALUES (?,?,?,?,?,?,?)",
                     (f"msg_{sid[4:12]}{seq:04d}abcdefghijkl", sid, typ, seq, T0 + seq, T0 + seq, json.dumps(data)))


def loose_object(root: Path, blob: str) -> Path:
    """The one loose object file `blob` names under a restored snapshot/ folder."""
    found = list((root / ".local/share/opencode/snapshot").glob(f"*/*/objects/{blob[:2]}/{blob[2:]}"))
    assert len(found) == 1, found
    return found[0]


@pytest.fixture
def synced(env: Env) -> tuple[Env, dict[str, Any], dict[str, dict[str, Any]]]:  # noqa: F811
    facts = build_home(env.home)
    assert env.cli_json("sync", "--workers", "1")["sessions"]["failed"] == 0
    listed = {s["key"]: s for s in env.cli_json("ls", identity=True)["sessions"]}
    return env, facts, listed


def _host_key(listed: dict[str, dict[str, Any]], project: str) -> str:
    keys = [k for k, s in listed.items() if s["kind"] == "host" and project[:8] in k]
    assert len(keys) == 1, sorted(listed)
    return keys[0]


def test_manifest_names_the_project_each_snapshotting_session_uses(synced: Any) -> None:
    env, _, listed = synced
    doc = _latest_manifest(env)
    by_key = {s["key"]: s for s in doc["sessions"]}
    host_a, host_b = (next(k for k, s in by_key.items() if s["kind"] == "host" and p[:8] in k) for p in (PRJ_A, PRJ_B))
    assert by_key[f"opencode:{A_MAIN}"]["uses"] == [host_a]
    assert by_key[f"opencode:{B_MAIN}"]["uses"] == [host_b]
    # no snapshot tree named: no dependency invented (the subagent reaches it through its family)
    assert by_key[f"opencode:{A_CHILD}"]["uses"] == [] and by_key[f"opencode:{A_PLAIN}"]["uses"] == []
    assert by_key[host_a]["uses"] == []
    assert host_a.startswith("opencode:@project-") and host_a != host_b
    # `lineage KEY` shows the family with the host session it uses (as the catalog names it: one per
    # host, FORMAT.md §6.3), and not the other project's
    nodes = env.cli_json("lineage", f"opencode:{A_CHILD}", identity=True)["nodes"]
    assert set(nodes) == {f"opencode:{A_MAIN}", f"opencode:{A_CHILD}", host_a}  # archive keys (s22-ops)


def test_with_family_brings_the_project_snapshot_dir_and_only_that(synced: Any, tmp_path: Path) -> None:
    env, facts, listed = synced
    to_a, to_b = tmp_path / "out-a", tmp_path / "out-b"
    doc = env.cli_json("restore", f"opencode:{A_CHILD}", "--with-family", "--to", str(to_a), identity=True)
    host_a = _host_key(listed, PRJ_A)
    assert doc["sessions"] == [host_a, f"opencode:{A_MAIN}", f"opencode:{A_CHILD}"], doc
    assert doc["warnings"] == [] and doc["integrity_errors"] == []
    assert not any(w.startswith(f"opencode:{A_MAIN}: restored alone") for w in doc["warnings"]), doc["warnings"]
    obj = loose_object(to_a, facts["blob_a"])
    assert zlib.decompress(obj.read_bytes()) == b"blob 16\x00project A notes\n"
    assert not list((to_a / ".local/share/opencode/snapshot").glob(f"{PRJ_B[:2]}*"))  # no folder of project B
    # the restored dir is a repository git reads: the step's tree lists the blob
    gitdir = obj.parents[2]
    assert _git(gitdir, "cat-file", "-p", facts["blob_a"]) == "project A notes"

    # export --with-family names it too (a section without entries), and not the other project's
    exported = env.cli_json("export", f"opencode:{A_MAIN}", "--with-family", "--format", "md", identity=True)
    # the sessions shown as sessions; the used host session in its own list, as `lineage --json` has it (s23)
    assert exported["sessions"] == [f"opencode:{A_MAIN}", f"opencode:{A_CHILD}"]
    assert exported["uses"] == [{"session": f"opencode:{A_MAIN}", "uses": host_a, "host_id": listed[host_a]["host_id"]}]
    assert (f"- uses `{host_a}`: the project's snapshot git dir that diff and revert read, restored with --with-family"
            in exported["document"]) and PRJ_B[:8] not in exported["document"]

    env.cli_json("restore", f"opencode:{B_MAIN}", "--with-family", "--to", str(to_b), identity=True)
    assert zlib.decompress(loose_object(to_b, facts["blob_b"]).read_bytes()) == b"blob 16\x00project B notes\n"
    assert [p.name for p in (to_b / ".local/share/opencode/snapshot").iterdir()] == [PRJ_B]


def test_restore_alone_warns_naming_the_host_session_it_left(synced: Any, tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    env, _, listed = synced
    host_a = _host_key(listed, PRJ_A)
    capsys.readouterr()
    code, out = env.cli("restore", f"opencode:{A_MAIN}", "--to", str(tmp_path / "alone"), identity=True)
    err = capsys.readouterr().err
    assert code == 0, (out, err)
    lines = [ln for ln in err.splitlines() if "restored alone" in ln]
    assert lines == [f"archiver: warning: opencode:{A_MAIN}: restored alone, without {host_a}, "
                     "the project's snapshot git dir that diff and revert read; restore it --with-family"], err
    assert not (tmp_path / "alone/.local/share/opencode/snapshot").exists()
    # a session that uses nothing is restored without a word about it
    capsys.readouterr()
    code, _ = env.cli("restore", f"opencode:{A_PLAIN}", "--to", str(tmp_path / "plain"), identity=True)
    assert code == 0 and "restored alone" not in capsys.readouterr().err


def test_an_old_manifest_without_uses_still_lists_and_restores(synced: Any, tmp_path: Path) -> None:
    """A manifest written before the field (the key removed from every session) reads as
    `uses: []`: listed as before, restored with its lineage family only."""
    env, facts, listed = synced
    s3 = env.s3()
    mkey = _latest_manifest_key(env)
    doc = _latest_manifest(env)
    for s in doc["sessions"]:
        del s["uses"]
    blob = _pack(env, json.dumps(doc).encode())
    s3.put_object(Bucket=env.bucket, Key=mkey, Body=blob)
    assert b'"uses"' not in decrypt_with_cli(env.identity, s3.get_object(Bucket=env.bucket, Key=mkey)["Body"].read())
    again = {s["key"]: s for s in env.cli_json("ls", identity=True)["sessions"]}
    assert sorted(again) == sorted(listed)
    out = tmp_path / "old"
    res = env.cli_json("restore", f"opencode:{A_MAIN}", "--with-family", "--to", str(out), identity=True)
    assert sorted(res["sessions"]) == [f"opencode:{A_MAIN}", f"opencode:{A_CHILD}"]
    assert res["warnings"] == [] and res["integrity_errors"] == []
    assert (out / ".local/share/opencode/opencode.db").is_file()
    assert not (out / ".local/share/opencode/snapshot").exists()


def test_a_used_key_no_manifest_holds_is_shown_missing() -> None:
    """FORMAT.md §6: a key in `uses` may name no session; `lineage` shows it as a missing node."""
    s = Session(key="opencode:ses_x", harness="opencode", session_id="ses_x", host_id="h",
                uses=["opencode:@project-gone"])
    host = Session(key="opencode:@project-here", harness="opencode", session_id="@project-here", kind="host", host_id="h")
    lin = Lineage({s.key: s, f"{host.key}/h": host})
    assert lin.family(s.key) == {s.key, "opencode:@project-gone"}
    s.uses = ["opencode:@project-here"]
    assert lin.family(s.key) == {s.key, "opencode:@project-here/h"}  # the copy of the session's own host
    assert Session.model_validate_json(s.model_dump_json()).uses == ["opencode:@project-here"]
    assert Session.model_validate({"key": "k:1", "harness": "k", "session_id": "1"}).uses == []


# ---- reading the bucket as it is ----
def _latest_manifest_key(env: Env) -> str:
    keys = sorted(k for k in env.keys_in_bucket() if "/snapshots/" in f"/{k}" and k.endswith(".json.age"))
    assert keys, env.keys_in_bucket()
    return keys[-1]


def _latest_manifest(env: Env) -> dict[str, Any]:
    raw = decrypt_with_cli(env.identity, env.raw_object(_latest_manifest_key(env)))
    Manifest.model_validate_json(raw)
    return json.loads(raw)


def _pack(env: Env, plaintext: bytes) -> bytes:
    """zstd then age to the archive's recipient, with the CLIs (as a writer before `uses` did)."""
    z = subprocess.run(["zstd", "-q", "-c"], input=plaintext, capture_output=True, check=True).stdout
    recipient = (env.keys / "recipient.txt").read_text().split()[0]
    return subprocess.run(["age", "-r", recipient], input=z, capture_output=True, check=True).stdout
