"""Claude Code's legacy per-project `projects/<key>/sessions-index.json` (seed layout: {version,
originalPath, entries[{sessionId, fullPath, fileMtime, firstPrompt, summary, messageCount,
created, modified, gitBranch, projectPath, isSidechain}]}) is archived with the host session;
on restore each entry's fullPath names the restored transcript under the target (a transcript
this restore does not hold: where restoring it into the same target puts it), and projectPath /
originalPath follow --relocate like every cwd. The CLI runs in process on a file:// store
(tests/fx_home.py).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from tests.fx_home import UUID_A, UUID_F, USER, Box, _line, box  # noqa: F401

CWD = f"/home/{USER}/app"
KEY = "-" + CWD[1:].replace("/", "-")
NEW = "/home/quillon/src/app"
NEW_KEY = "-" + NEW[1:].replace("/", "-")
PRUNED = "0b0e5f4e-1111-4222-8333-444455558888"  # listed in the index, transcript pruned before any sync


def _entry(sid: str, full: str, prompt: str) -> dict[str, Any]:
    return {"sessionId": sid, "fullPath": full, "fileMtime": 1767323045000, "firstPrompt": prompt,
            "summary": "Fix the login bug", "messageCount": 2, "created": "2026-01-02T03:04:05.000Z",
            "modified": "2026-01-02T03:05:05.000Z", "gitBranch": "main", "projectPath": CWD, "isSidechain": False}


def _build(box: Box) -> Path:
    project = box.home / ".claude" / "projects" / KEY
    project.mkdir(parents=True)
    for sid in (UUID_A, UUID_F):
        rec = {"type": "user", "sessionId": sid, "uuid": "11111111-2222-4333-8444-555555555555", "cwd": CWD,
               "parentUuid": None, "timestamp": "2026-01-02T03:04:05.000Z",
               "message": {"role": "user", "content": "fix the login bug"}}
        (project / f"{sid}.jsonl").write_text(_line(rec))
    index = {"version": 1, "originalPath": CWD, "entries": [
        _entry(UUID_A, f"{project}/{UUID_A}.jsonl", "fix the login bug"),
        _entry(UUID_F, f"{project}/{UUID_F}.jsonl", 'it printed "fullPath": "/etc/passwd" once'),
        _entry(PRUNED, f"{project}/{PRUNED}.jsonl", "an old one"),
    ]}
    f = project / "sessions-index.json"
    f.write_text(json.dumps(index, indent=2))  # as Claude Code wrote it: pretty-printed
    return f


def _restore(box: Box, to: Path, *args: str) -> dict[str, Any]:
    out = box.cli("restore", *args, "--to", str(to))
    assert out["refused"] == [] and out["integrity_errors"] == [], out
    return out  # type: ignore[no-any-return]


def _index(to: Path, out: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    [rel] = [f for f in out["files"] if f.endswith("/sessions-index.json")]
    return rel, json.loads((to / rel).read_bytes())


def test_restored_index_names_the_restored_transcripts(box: Box) -> None:
    box.only("claude-code")
    _build(box)
    assert box.sync()["sessions"]["failed"] == 0
    listed = box.ls()
    [index_art] = [a for a in listed["claude-code:@host"]["artifacts"] if a["path"].endswith("sessions-index.json")]
    assert index_art["role"] == "index"
    archived_cwd = listed[f"claude-code:{UUID_A}"]["cwd"]
    assert USER not in archived_cwd
    to = box.base / "review"
    out = _restore(box, to, "--all")
    rel, index = _index(to, out)
    folder = rel.rsplit("/", 1)[0]
    paths = [e["fullPath"] for e in index["entries"]]
    assert paths == [str(to.resolve() / folder / f"{sid}.jsonl") for sid in (UUID_A, UUID_F, PRUNED)]
    for sid in (UUID_A, UUID_F):  # each names the restored transcript, which is there and is that session's
        assert json.loads(Path(paths[[UUID_A, UUID_F].index(sid)]).read_bytes().splitlines()[0])["sessionId"] == sid
    assert not Path(paths[2]).exists()  # pruned before any sync: where it would go
    # the project's path is the archived cwd, as in the transcripts (no --relocate)
    assert index["originalPath"] == archived_cwd and {e["projectPath"] for e in index["entries"]} == {archived_cwd}
    assert index["entries"][1]["firstPrompt"] == 'it printed "fullPath": "/etc/passwd" once'  # text, not a field
    # every other byte as archived: the archived values (the home's Claude dir, the project key
    # rebuilt from the redacted cwd) put back give the archived digest
    data = (to / rel).read_bytes()
    assert data.startswith(b'{\n  "version": 1,')  # still pretty-printed
    archived = data
    for new in paths:
        old = str(box.home / ".claude" / "projects" / folder.rsplit("/", 1)[1] / new.rsplit("/", 1)[1])
        archived = archived.replace(json.dumps(new).encode(), json.dumps(old).encode())
    assert hashlib.sha256(archived).hexdigest() == index_art["sha256"]
    # restoring again into the same target writes the same bytes
    assert _restore(box, to, "--all")["files"] == out["files"] and (to / rel).read_bytes() == data


def test_index_restored_alone_names_where_its_transcripts_go(box: Box) -> None:
    box.only("claude-code")
    _build(box)
    box.sync()
    to = box.base / "host-only"
    out = _restore(box, to, "claude-code:@host")
    rel, index = _index(to, out)
    folder = rel.rsplit("/", 1)[0]
    assert [e["fullPath"] for e in index["entries"]] == [
        str(to.resolve() / folder / f"{sid}.jsonl") for sid in (UUID_A, UUID_F, PRUNED)]
    out = _restore(box, to, f"claude-code:{UUID_A}")  # the transcript, later, lands where the index says
    assert Path(index["entries"][0]["fullPath"]).is_file()


def test_relocated_restore_moves_the_index_with_its_project(box: Box) -> None:
    box.only("claude-code")
    _build(box)
    box.sync()
    old = box.ls()[f"claude-code:{UUID_A}"]["cwd"]
    to = box.base / "moved"
    out = _restore(box, to, "--all", "--relocate", f"{old}={NEW}")
    rel, index = _index(to, out)
    assert rel == f".claude/projects/{NEW_KEY}/sessions-index.json"
    assert index["originalPath"] == NEW and {e["projectPath"] for e in index["entries"]} == {NEW}
    assert [e["fullPath"] for e in index["entries"]] == [
        str(to.resolve() / ".claude" / "projects" / NEW_KEY / f"{sid}.jsonl") for sid in (UUID_A, UUID_F, PRUNED)]
    assert all(Path(e["fullPath"]).is_file() for e in index["entries"][:2])


def test_a_full_path_naming_no_transcript_is_left_and_reported(box: Box) -> None:
    box.only("claude-code")
    f = _build(box)
    index = json.loads(f.read_text())
    index["entries"][2]["fullPath"] = "relative/nowhere.jsonl"
    f.write_text(json.dumps(index, indent=2))
    box.sync()
    to = box.base / "odd"
    out = _restore(box, to, "--all")
    _rel, restored = _index(to, out)
    assert restored["entries"][2]["fullPath"] == "relative/nowhere.jsonl"
    assert restored["entries"][0]["fullPath"].startswith(str(to.resolve()) + "/")
    assert [w for w in out["warnings"] if "sessions-index.json" in w and "1 fullPath value(s)" in w], out["warnings"]
