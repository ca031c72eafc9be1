"""Black-box audit: sessions the project has never seen, generated from the seeds alone
(tests/fx_s21_blackbox.py), run through the CLI against moto on 127.0.0.1, then read back
with the `age` and `zstd` CLIs the way a reviewer would.

One sync per module; every test reads its results.
"""

from __future__ import annotations

import json
import re
import sqlite3
import subprocess
from pathlib import Path
from typing import Iterator

import pytest

from tests.fx_s21_blackbox import LETTERS_ONLY, USER, Planted, build_home, project_key
from tests.fx_s21_audit import AuditRun, audit_run
from tests.fx_s3 import s3_server  # noqa: F401

Run = AuditRun


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory, s3_server: str) -> Iterator[Run]:  # noqa: F811
    base = tmp_path_factory.mktemp("s21bb")
    base.chmod(0o700)
    planted = build_home(base)
    r = audit_run(base, planted, USER, s3_server, planted.top_level + ["claude-code:@host", "codex:@host"])
    yield r
    r.clean()


# ------------------------------------------------------------------ helpers

def leaks_in(data: bytes, planted: Planted, letters_only: bool = False) -> list[str]:
    """Where-labels of every canary found in data (the username case-insensitively); the
    letters-only passwords (their own test) only when asked for."""
    found = [where for value, where in planted.canaries.items()
             if value.encode() in data and (LETTERS_ONLY in where) == letters_only]
    if letters_only:
        return found
    if USER.encode() in data.lower():
        i = data.lower().index(USER.encode())
        found.append(f"username alone ...{data[max(0, i - 60):i].decode('utf-8', 'replace')!r}")
    return found


def files_under(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file())


def jsonl_lines(path: Path) -> list[str]:
    raw = path.read_bytes()
    if path.name.endswith(".zst"):
        raw = subprocess.run(["zstd", "-d", "-c", "-q"], input=raw, capture_output=True, check=True).stdout
    return raw.decode("utf-8").splitlines()


# ------------------------------------------------------------------ a. discovery

def test_sync_exit_zero_and_every_session_found(run: Run) -> None:
    assert run.sync_code == 0, run.outputs[1][1][-3000:]
    found = {s["key"] for s in run.ls["sessions"]}
    assert found == run.planted.sessions, {"missing": sorted(run.planted.sessions - found),
                                           "unexpected": sorted(found - run.planted.sessions)}
    assert run.sync_json["sessions"]["failed"] == 0


# ------------------------------------------------------------------ b. no plaintext

def test_no_canary_in_any_decrypted_object(run: Run) -> None:
    bad = {}
    for key, data in run.plaintexts.items():
        hits = leaks_in(data, run.planted)
        if hits:
            bad[run.object_owner(key)] = sorted(set(hits))
    assert not bad, json.dumps(bad, indent=1)


def test_no_canary_in_object_keys_or_metadata(run: Run) -> None:
    text = "\n".join(run.keys) + json.dumps(run.metadata)
    assert not leaks_in(text.encode(), run.planted)
    assert len(run.keys) > 20


def test_no_canary_in_cli_output_or_logs(run: Run) -> None:
    bad = {what: leaks_in(out.encode(), run.planted) for what, out in run.outputs}
    assert not any(bad.values()), {k: v for k, v in bad.items() if v}


def test_no_canary_in_restored_files(run: Run) -> None:
    bad = {}
    for top, root in run.restored.items():
        for path in files_under(root):
            hits = leaks_in(path.read_bytes(), run.planted) + leaks_in(str(path.relative_to(root)).encode(), run.planted)
            if hits:
                bad[str(path.relative_to(root))] = sorted(set(hits))
    assert not bad, json.dumps(bad, indent=1)


# ------------------------------------------------------------------ c. ids intact

def test_planted_ids_come_through_intact(run: Run) -> None:
    corpus = b"\n".join(run.plaintexts.values())
    missing = {value[:60]: where for value, where in run.planted.ids.items() if value.encode() not in corpus}
    assert not missing, json.dumps(missing, indent=1)


# ------------------------------------------------------------------ d. lineage

def test_lineage_has_exactly_the_seed_edges(run: Run) -> None:
    edges = {(e["child"], e["parent"], e["relation"]) for e in run.lineage["edges"]}
    assert edges == run.planted.edges, {"missing": sorted(run.planted.edges - edges),
                                        "unexpected": sorted(edges - run.planted.edges)}
    # host sessions have no lineage; lineage names them <harness>:@host/<host-id> (ls: <harness>:@host)
    assert set(run.lineage["nodes"]) >= {k for k in run.planted.sessions if not k.endswith(":@host")}


# was a gap: password-assignment-unquoted allowlisted any letters-only value (^[A-Za-z_.-]+$), so
# `password=MtEouR-CVlBRdj` stayed in clear; the allowlist now keeps names only (snake/kebab words,
# CamelCase words, CONSTANT_NAMES)
def test_letters_only_password_assignment_is_redacted(run: Run) -> None:
    bad = {}
    for key, data in run.plaintexts.items():
        hits = leaks_in(data, run.planted, letters_only=True)
        if hits:
            bad[run.object_owner(key)] = hits
    assert not bad, json.dumps(bad, indent=1)


# ------------------------------------------------------------------ e. restore layout

def claude_tops(run: Run) -> list[str]:
    return [k for k in run.planted.top_level if k.startswith("claude-code:")]


def codex_tops(run: Run) -> list[str]:
    return [k for k in run.planted.top_level if k.startswith("codex:")]


def test_restore_exits_zero(run: Run) -> None:
    assert all(code == 0 for code in run.restore_codes.values()), run.restore_codes


@pytest.mark.parametrize("index", range(3))
def test_restore_claude_layout(run: Run, index: int) -> None:
    top = claude_tops(run)[index]
    sid = top.split(":", 1)[1]
    root = run.restored[top] / ".claude"
    hits = list(root.glob(f"projects/*/{sid}.jsonl"))
    assert len(hits) == 1, [str(p.relative_to(root)) for p in files_under(root)]
    transcript = hits[0]
    records = [json.loads(line) for line in jsonl_lines(transcript)]  # every line parses
    cwd = next(r["cwd"] for r in records if "cwd" in r)
    assert USER not in cwd and "/home/" in cwd
    assert transcript.parent.name == project_key(cwd), (transcript.parent.name, cwd)
    for rel in run.planted.claude_sidecars.get(top, []):
        assert (root / rel.replace("<key>", transcript.parent.name)).is_file(), rel
    for path in transcript.parent.rglob("*.jsonl"):
        for line in jsonl_lines(path):
            json.loads(line)
    # the sidecars the records name, at the names they use
    for rec in records:
        tur = rec.get("toolUseResult")
        if isinstance(tur, dict) and tur.get("persistedOutputPath"):
            rel = tur["persistedOutputPath"].split("/.claude/", 1)[1]
            assert (root / rel).is_file(), rel
        if rec.get("type") == "file-history-snapshot":
            for backup in rec["snapshot"]["trackedFileBackups"].values():
                assert (root / "file-history" / sid / backup["backupFileName"]).is_file()
        if rec.get("type") == "file-history-delta":
            assert (root / "file-history" / sid / rec["backup"]["backupFileName"]).is_file()


@pytest.mark.parametrize("index", range(3))
def test_restore_codex_layout(run: Run, index: int) -> None:
    top = codex_tops(run)[index]
    tid = top.split(":", 1)[1]
    root = run.restored[top] / ".codex"
    rollouts = [p for p in files_under(root) if re.fullmatch(r"rollout-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-.+\.jsonl(\.zst)?", p.name)]
    own = [p for p in rollouts if tid in p.name]
    assert own, [str(p.relative_to(root)) for p in files_under(root)]
    for path in rollouts:
        rel = path.relative_to(root).parts
        assert rel[0] in ("sessions", "archived_sessions"), rel
        if rel[0] == "sessions":
            assert re.fullmatch(r"\d{4}/\d\d/\d\d", "/".join(rel[1:4])), rel
            assert path.name.startswith(f"rollout-{rel[1]}-{rel[2]}-{rel[3]}T"), rel
        lines = jsonl_lines(path)
        first = json.loads(lines[0])
        assert first["type"] == "session_meta" and first["payload"]["id"] in path.name
        for line in lines:
            json.loads(line)
    db = root / "state_5.sqlite"
    assert db.is_file(), [str(p.relative_to(root)) for p in files_under(root)]
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as con:
        assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        rows = {r[0] for r in con.execute("SELECT id FROM threads")}
    family = {e[0].split(":", 1)[1] for e in run.planted.edges if e[1] == top} | {tid}
    family = {f.split("_", 1)[0] for f in family}
    assert family <= rows, sorted(family - rows)


def test_restore_codex_wal_only_row_and_sidecars(run: Run) -> None:
    top = codex_tops(run)[0]
    root = run.restored[top] / ".codex"
    with sqlite3.connect(f"file:{root / 'state_5.sqlite'}?mode=ro", uri=True) as con:
        edges = con.execute("SELECT parent_thread_id, child_thread_id FROM thread_spawn_edges").fetchall()
        row = con.execute("SELECT id, rollout_path FROM threads WHERE id=?", (run.planted.wal_only_thread,)).fetchone()
    assert row is not None
    assert (top.split(":", 1)[1], run.planted.wal_only_thread) in edges
    tid = top.split(":", 1)[1]
    assert list(root.glob(f"generated_images/{tid}/*.png")), [str(p.relative_to(root)) for p in files_under(root)]


def test_restore_host_files(run: Run) -> None:
    claude = run.restored["claude-code:@host"] / ".claude"
    history = [json.loads(line) for line in jsonl_lines(claude / "history.jsonl")]
    hashes = [p["contentHash"] for h in history for p in h["pastedContents"].values() if "contentHash" in p]
    assert hashes and all((claude / "paste-cache" / f"{h}.txt").is_file() for h in hashes)
    for h in history:
        assert "/home/" in h["project"] and USER not in h["project"]
    index = list(claude.glob("projects/*/sessions-index.json"))
    assert len(index) == 1
    entry = json.loads(index[0].read_text())["entries"][0]
    assert index[0].parent.name == project_key(entry["projectPath"])
    codex = run.restored["codex:@host"] / ".codex"
    assert [json.loads(line)["session_id"] for line in jsonl_lines(codex / "history.jsonl")]
    with sqlite3.connect(f"file:{codex / 'logs_2.sqlite'}?mode=ro", uri=True) as con:
        assert con.execute("SELECT count(*) FROM logs").fetchone()[0] == 1
