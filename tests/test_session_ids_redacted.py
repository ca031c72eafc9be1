"""Session ids, keys and lineage references in the manifest (and `ls`, `lineage`, sync's
messages) are redacted like the artifact paths they come from (archiver.session_ids.SessionIds):
a DeepSeek header id that is an e-mail address, a file name used as id, a parentSession
path from another machine, free-named Claude Code transcripts and folders, Codex parent
references; pi sidecar names are redacted like every other path component. Whole ids
(UUIDs, hex digests, tool ids) stay byte for byte, and lineage still resolves.

Fixtures follow the seeds (seeds/003 for DeepSeek, seeds/by-harness/*.json) and are
written here (tests/fx_home.py: the HOME, keys and store); the user is `zqxcanary`, named
"Zelda Quixote"."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from archiver.model import Session
from archiver.redact.base import RedactionReport
from archiver.state import State
from archiver.sync import Syncer
from tests.fx_home import EMAIL, USER, UUID_A, UUID_F, Box, _line, _no_canary, box, write_rollout  # noqa: F401


# ---------------------------------------------------------------- DeepSeek (seeds/003)
def _ds_header(sid: str, **kw: Any) -> dict[str, Any]:
    return {"type": "session", "version": 3, "id": sid, "createdAt": 1767261600000, "cwd": "/srv/app",
            "isSeeded": False, "delegationDepth": 0, **kw}


def _ds_event(seq: int, text: str) -> dict[str, Any]:
    return {"type": "user/message", "seq": seq, "time": 1767261600000 + seq,
            "data": {"id": f"m{seq}", "role": "user", "content": [{"type": "text", "text": text}], "source": {}}}


def deepseek_home(home: Path) -> dict[str, Path]:
    root = home / ".deepseek" / "sessions"
    root.mkdir(parents=True)
    files = {
        "uuid": root / f"{UUID_A}.jsonl",
        "email": root / "a.jsonl",
        "child_of_email": root / "b.jsonl",
        "notes": root / f"{USER}-notes.jsonl",
        "foreign_fork": root / "c.jsonl",
        "child_of_uuid": root / f"{UUID_F}.jsonl",
    }
    files["uuid"].write_text(_line(_ds_header(UUID_A)) + _line(_ds_event(1, "hello")))
    files["email"].write_text(_line(_ds_header(EMAIL)) + _line(_ds_event(1, "payments")))
    files["child_of_email"].write_text(
        _line(_ds_header("sub-1", origin="subagent", parentSession=str(files["email"]), delegationDepth=1))
        + _line(_ds_event(1, "audit")))
    files["notes"].write_text(_line(_ds_event(1, "no header here")))  # id from the file name
    files["foreign_fork"].write_text(
        _line(_ds_header("fork-1", parentSession=f"/home/{USER}/old-machine/Zelda-Quixote-{USER}.jsonl"))
        + _line(_ds_event(1, "seeded")))
    files["child_of_uuid"].write_text(
        _line(_ds_header(UUID_F, origin="subagent", parentSession=UUID_A, delegationDepth=2)) + _line(_ds_event(1, "x")))
    return files


def test_deepseek_ids_and_parents_are_redacted_and_lineage_resolves(box: Box, monkeypatch: pytest.MonkeyPatch) -> None:
    deepseek_home(box.home)
    box.only("deepseek-harness")
    out = box.sync()
    assert out["sessions"] == {"total": 6, "uploaded": 6, "unchanged": 0, "failed": 0}, out["errors"]
    listed = box.ls()
    _no_canary(listed)
    _no_canary(out)
    by_path = {s["artifacts"][0]["path"].rsplit("/", 1)[-1]: s for s in listed.values()}

    # UUIDs byte for byte, and their lineage as found
    uuid = by_path[f"{UUID_A}.jsonl"]
    assert uuid["key"] == f"deepseek-harness:{UUID_A}" and uuid["session_id"] == UUID_A
    assert by_path[f"{UUID_F}.jsonl"]["parents"] == [
        {"relation": "subagent", "parent": f"deepseek-harness:{UUID_A}", "at": None, "inferred": False}]

    # header id that is an e-mail address: a pseudonym, the same in the child's parent reference
    email = by_path["a.jsonl"]
    assert email["session_id"].startswith("<EMAIL:") and email["key"] == f"deepseek-harness:{email['session_id']}"
    child = by_path["b.jsonl"]
    assert child["session_id"] == "sub-1"
    assert child["parents"] == [{"relation": "subagent", "parent": email["key"], "at": None, "inferred": False}]

    # id from the file name: the key reads like the redacted file name
    notes_name = box.relpath(f"{USER}-notes.jsonl")
    assert notes_name.startswith("user-") and notes_name.endswith("-notes.jsonl")
    notes = by_path[notes_name]
    assert notes["key"] == f"deepseek-harness:{notes_name.removesuffix('.jsonl')}"
    assert notes["artifacts"][0]["path"] == f".deepseek/sessions/{notes_name}"

    # parentSession from another machine: the parent id comes from its file name, redacted alike
    fork = by_path["c.jsonl"]
    assert fork["parents"] == [{"relation": "fork", "parent": f"deepseek-harness:{box.relpath(f'Zelda-Quixote-{USER}')}",
                                "at": None, "inferred": False}]

    # lineage resolves through the redacted keys, restore of a family finds the parent
    lineage = box.cli("lineage")
    assert (child["key"], email["key"], "subagent") in {(e["child"], e["parent"], e["relation"]) for e in lineage["edges"]}
    assert email["key"] in lineage["nodes"] and child["key"] in lineage["nodes"]
    target = box.base / "restored"
    got = box.cli("restore", child["key"], "--with-family", "--to", str(target))
    assert sorted(got["sessions"]) == sorted([email["key"], child["key"]]) and got["refused"] == []
    # the restored transcript's header id is the session id the manifest names (same pseudonym)
    header = json.loads((target / ".deepseek/sessions/a.jsonl").read_text().splitlines()[0])
    assert header["id"] == email["session_id"]
    got = box.cli("restore", notes["key"], "--to", str(target))
    assert got["files"] == [f".deepseek/sessions/{notes_name}"] and (target / got["files"][0]).is_file()

    # a re-sync finds every session as archived, the fast way: the ids come from the state's
    # cache, the redactor is not even built
    from archiver import runtime

    def no_redactor(*_a: Any, **_k: Any) -> Any:
        raise AssertionError("the redactor was built on a re-sync where nothing changed")

    monkeypatch.setattr(runtime, "redactor", no_redactor)
    again = box.sync()
    assert again["sessions"] == {"total": 6, "uploaded": 0, "unchanged": 6, "failed": 0} and again["snapshot"] is None


def test_messages_name_a_session_by_its_archived_key(box: Box, monkeypatch: pytest.MonkeyPatch) -> None:
    files = deepseek_home(box.home)
    box.only("deepseek-harness")
    box.sync()
    notes_key = next(k for k, s in box.ls().items() if s["artifacts"][0]["path"].endswith("-notes.jsonl"))
    assert USER not in notes_key
    with files["notes"].open("a") as f:
        f.write(_line(_ds_event(2, "more")))
    from archiver.snapshot import SnapshotError

    real = Syncer._artifact

    def failing(self: Syncer, ds: Any, src: Any, *a: Any) -> Any:
        if src.source == files["notes"]:
            raise SnapshotError("the disk said no")
        return real(self, ds, src, *a)

    monkeypatch.setattr(Syncer, "_artifact", failing)
    out = box.sync(expect=1)
    assert out["sessions"]["failed"] == 1
    [err] = out["errors"]
    assert err.startswith(f"{notes_key}: ") and "the disk said no" in err
    _no_canary(out)


# ---------------------------------------------------------------- Claude Code (seeds/by-harness/claude-code.json)
def test_claude_free_named_transcript_and_folder(box: Box) -> None:
    project = box.home / ".claude" / "projects" / "-srv-app"
    (project / f"{USER}-scratch").mkdir(parents=True)
    (project / f"{USER}-scratch" / "notes.txt").write_text("scratch notes\n")
    rec = {"type": "user", "sessionId": f"{USER}-export", "uuid": "11111111-2222-4333-8444-555555555555",
           "timestamp": "2026-01-01T00:00:00Z", "cwd": "/srv/app", "message": {"role": "user", "content": "hi"}}
    (project / f"{USER}-export.jsonl").write_text(_line(rec))
    box.only("claude-code")
    out = box.sync()
    assert out["sessions"]["failed"] == 0, out["errors"]
    listed = box.ls()
    _no_canary(listed)
    export, scratch = box.relpath(f"{USER}-export"), box.relpath(f"{USER}-scratch")
    assert listed[f"claude-code:{export}"]["artifacts"][0]["path"] == f".claude/projects/-srv-app/{export}.jsonl"
    assert listed[f"claude-code:{scratch}"]["artifacts"][0]["path"] == f".claude/projects/-srv-app/{scratch}/notes.txt"
    assert listed[f"claude-code:{export}"]["session_id"] == export
    # restore places the transcript where Claude Code looks for the session of that id
    target = box.base / "restored"
    box.cli("restore", f"claude-code:{export}", "--to", str(target))
    # ... and its sessionId (an id value: the configured usernames are redacted there too) names it
    assert (target / f".claude/projects/-srv-app/{export}.jsonl").read_text() == _line({**rec, "sessionId": export})


def test_claude_project_key_is_rebuilt_from_the_redacted_cwd(box: Box) -> None:
    """The key encodes the cwd with every non-alphanumeric as '-': `zq.zqxcanary` becomes
    `zq-zqxcanary`, `/export/home/<other user>` is no home the slug rules know. The archived key is
    the redacted cwd's, so it matches the cwd inside; a key that is not the cwd's encoding (an
    override) is left to the path rules."""
    cases = {  # cwd -> session id
        "/home/zq.zqxcanary/proj": "aaaaaaaa-1111-4222-8333-444455556666",
        "/export/home/qvothurl/e": "bbbbbbbb-1111-4222-8333-444455556666",
        "/srv/Zelda Quixote notes": "cccccccc-1111-4222-8333-444455556666",
    }
    for cwd, sid in cases.items():
        key = "".join(c if c.isascii() and c.isalnum() else "-" for c in cwd)
        rec = {"type": "user", "sessionId": sid, "uuid": "11111111-2222-4333-8444-555555555555",
               "timestamp": "2026-01-01T00:00:00Z", "cwd": cwd, "message": {"role": "user", "content": "hi"}}
        (box.home / ".claude" / "projects" / key).mkdir(parents=True)
        (box.home / ".claude" / "projects" / key / f"{sid}.jsonl").write_text(_line(rec))
    box.only("claude-code")
    (box.home / ".claude" / "projects" / "custom-dir").mkdir()
    (box.home / ".claude" / "projects" / "custom-dir" / "dddddddd-1111-4222-8333-444455556666.jsonl").write_text(
        _line({"type": "user", "sessionId": "dddddddd-1111-4222-8333-444455556666", "cwd": "/srv/x",
               "message": {"role": "user", "content": "hi"}}))
    out = box.sync()
    assert out["sessions"]["failed"] == 0, out["errors"]
    listed = box.ls()
    _no_canary(listed)
    red = box.redactor()
    paths = {s["session_id"]: s["artifacts"][0]["path"] for s in listed.values()}
    for cwd, sid in cases.items():
        want = "".join(c if c.isascii() and c.isalnum() else "-" for c in red.redact_text(cwd, RedactionReport()))
        assert paths[sid] == f".claude/projects/{want}/{sid}.jsonl"
    assert "qvothurl" not in json.dumps(listed)
    assert paths["dddddddd-1111-4222-8333-444455556666"].startswith(".claude/projects/custom-dir/")


def test_one_session_id_in_three_project_folders_keeps_three_sessions(box: Box) -> None:
    """A copied project folder holds the same transcript name: each copy is its own session,
    under its own key, run after run (the second and third must not share one)."""
    sid = "6513270e-269e-4d37-b2a7-4de452e6b438"
    for d in ("aaa", "bbb", "ccc"):
        project = box.home / ".claude" / "projects" / f"-srv-{d}"
        project.mkdir(parents=True)
        rec = {"type": "user", "sessionId": sid, "uuid": f"11111111-2222-4333-8444-55555555{d.encode().hex()[:4]}",
               "cwd": f"/srv/{d}", "message": {"role": "user", "content": f"UNIQUE-{d}"}}
        (project / f"{sid}.jsonl").write_text(_line(rec))
    box.only("claude-code")
    for _ in range(2):
        out = box.sync()
        assert out["sessions"]["failed"] == 0, out["errors"]
        listed = box.ls()
        copies = {k: v for k, v in listed.items() if sid in k}
        assert len(copies) == 3, sorted(copies)
        assert sorted(a["path"].split("/")[2] for v in copies.values() for a in v["artifacts"]) == [
            "-srv-aaa", "-srv-bbb", "-srv-ccc"]
    target = box.base / "restored"
    box.cli("restore", "--all", "--to", str(target))
    for d in ("aaa", "bbb", "ccc"):
        assert f"UNIQUE-{d}" in (target / ".claude" / "projects" / f"-srv-{d}" / f"{sid}.jsonl").read_text()


# ---------------------------------------------------------------- Codex (seeds/by-harness/codex.json)
def test_codex_parent_references_are_redacted_uuids_kept(box: Box) -> None:
    d = box.home / ".codex" / "sessions" / "2026" / "01" / "02"
    d.mkdir(parents=True)
    main_t, fork_t, sub_t, sub2_t, base_t = (f"0199cccc-0000-7000-8000-00000000000{i}" for i in range(1, 6))
    write_rollout(d, main_t, "03-04-05")
    write_rollout(d, fork_t, "03-04-06", forked_from_id=f"{USER}-thread", forked_from_ordinal_exclusive=2)
    write_rollout(d, sub_t, "03-04-07", parent_thread_id=f"Zelda-Quixote-{USER}")
    write_rollout(d, sub2_t, "03-04-08", parent_thread_id=main_t)
    write_rollout(d, base_t, "03-04-09", history_base={"thread_id": f"{USER}-base", "end_ordinal_exclusive": 3})
    box.only("codex")
    out = box.sync()
    assert out["sessions"]["failed"] == 0, out["errors"]
    listed = box.ls()
    _no_canary(listed)
    assert {k for k in listed if k != "codex:@host"} == {f"codex:{t}" for t in (main_t, fork_t, sub_t, sub2_t, base_t)}
    parents = {k: [(p["relation"], p["parent"], p["at"]) for p in s["parents"]] for k, s in listed.items()}
    assert parents[f"codex:{fork_t}"] == [("fork", f"codex:{box.relpath(f'{USER}-thread')}", "ordinal=2")]
    assert parents[f"codex:{sub_t}"] == [("subagent", f"codex:{box.relpath(f'Zelda-Quixote-{USER}')}", None)]
    assert parents[f"codex:{sub2_t}"] == [("subagent", f"codex:{main_t}", None)]
    base = box.relpath(f"{USER}-base")
    assert parents[f"codex:{base_t}"] == [("fork", f"codex:{base}", f"rollout={base};ordinal=3")]


# ---------------------------------------------------------------- pi (seeds/by-harness/pi.json)
def test_pi_sidecar_names_are_redacted_and_restored_there(box: Box) -> None:
    sid = "1cb99345-f7d5-46eb-9d35-f82f957c12dc"
    tmp = box.home / "tmp"
    tmp.mkdir()
    out_file = tmp / f"pi-bash-{USER}-fedcba98.log"
    out_file.write_bytes(b"full output of the command\n")
    folder = box.home / ".pi" / "agent" / "sessions" / f"--home-{USER}-proj--"
    folder.mkdir(parents=True)
    recs = [
        {"type": "session", "version": 3, "id": sid, "timestamp": "2026-01-01T10:00:00.000Z", "cwd": f"/home/{USER}/proj"},
        {"type": "message", "id": "a1b2c3d4", "parentId": None, "timestamp": "2026-01-01T10:00:01.000Z",
         "message": {"role": "bashExecution", "command": "ls", "output": "...", "exitCode": 0, "cancelled": False,
                     "truncated": True, "fullOutputPath": str(out_file), "timestamp": 1}},
    ]
    (folder / f"2026-01-01T10-00-00-000Z_{sid}.jsonl").write_text("".join(_line(r) for r in recs))
    box.only("pi")
    out = box.sync()
    assert out["sessions"]["failed"] == 0, out["errors"]
    listed = box.ls()
    _no_canary(listed)
    [s] = listed.values()
    assert s["key"] == f"pi:{sid}"
    sidecar = next(a["path"] for a in s["artifacts"] if a["role"] == "sidecar")
    red_folder = "--home-" + box.relpath(USER) + "-proj--"
    assert sidecar == f".pi/agent/sessions/{red_folder}/{sid}.tmp/{box.relpath(out_file.name)}"
    assert {a["path"].split("/")[3] for a in s["artifacts"]} == {red_folder}  # one folder, the redacted cwd's
    target = box.base / "restored"
    got = box.cli("restore", s["key"], "--to", str(target))
    assert sidecar in got["files"] and (target / sidecar).read_bytes() == b"full output of the command\n"
    assert not [p for p in target.rglob("*") if USER in p.name]


# ---------------------------------------------------------------- state written by an older version
def test_session_stored_under_its_id_as_found_is_carried_under_its_archived_key(box: Box) -> None:
    """A session archived by a version that put ids into manifests as found, and gone from the
    machine since, is carried on under its redacted key (once), never under the old one."""
    files = deepseek_home(box.home)
    box.only("deepseek-harness")
    box.sync()
    notes_key = next(k for k, s in box.ls().items() if s["artifacts"][0]["path"].endswith("-notes.jsonl"))
    state = State(box.base / "state" / "state.db")
    try:
        stored = state.get_session(notes_key)
        assert stored is not None
        old = stored.model_copy(update={"key": f"deepseek-harness:{USER}-notes", "session_id": f"{USER}-notes"})
        with state.transaction():
            state.drop_session(notes_key)
            state.put_session(old)
    finally:
        state.close()
    files["notes"].unlink()
    with files["uuid"].open("a") as f:  # something to archive: a manifest is written
        f.write(_line(_ds_event(2, "more")))
    out = box.sync()
    assert out["snapshot"] is not None
    listed = box.ls()
    _no_canary(listed)
    assert notes_key in listed and len(listed) == 6
    state = State(box.base / "state" / "state.db")
    try:
        assert f"deepseek-harness:{USER}-notes" not in state.session_keys()
        assert notes_key in state.session_keys()
    finally:
        state.close()


# ---------------------------------------------------------------- the helper itself
class _Upper:
    """A stand-in redactor without an engine: user `bob` in paths, an address in text."""

    def redact_relpath(self, relpath: str, report: RedactionReport) -> str:
        return relpath.replace("bob", "user-0b0b")

    def redact_text(self, text: str, report: RedactionReport, carrier: str = "text") -> str:
        return text.replace("ann@example.com", "<EMAIL:00000000>")


def test_session_ids_keep_whole_ids_and_redact_the_rest() -> None:
    from archiver.model import LineageEdge
    from archiver.session_ids import SessionIds

    ids = SessionIds(_Upper())  # type: ignore[arg-type]
    for kept in ("0199aaaa-0000-7000-8000-000000000001", "0199aaaa-0000-7000-8000-000000000001_"
                 "0199aaaa-0000-7000-8000-000000000077", "ses_JT8ea88fhbZJ8PVP", "80d2568698d576754", "@host",
                 "rollout=0199aaaa-0000-7000-8000-000000000001;ordinal=3", "depth=1", "2026-01-01T10:00:00.000Z"):
        assert ids.id(kept) == kept
    assert ids.id("bob-notes") == "user-0b0b-notes"
    assert ids.id("ann@example.com") == "<EMAIL:00000000>"
    assert ids.key("codex:bob/x") == "codex:user-0b0b/x"
    edges = [LineageEdge(relation="fork", parent="codex:bob-thread", at="rollout=bob-thread;ordinal=2"),
             LineageEdge(relation="subagent", parent="codex:0199aaaa-0000-7000-8000-000000000001", at="depth=1")]
    out = ids.edges(edges)
    assert out[0].parent == "codex:user-0b0b-thread" and out[0].at == "rollout=user-0b0b-thread;ordinal=2"
    assert out[1] is edges[1]
    s = Session(key="pi:bob-x", harness="pi", session_id="bob-x", parents=edges)
    r = ids.session(s)
    assert (r.key, r.session_id, r.parents) == ("pi:user-0b0b-x", "user-0b0b-x", out)
    assert ids.session(r) is r  # an archived id is final


def test_the_state_cache_is_per_redaction_fingerprint(tmp_path: Path) -> None:
    from archiver.session_ids import SessionIds

    state = State(tmp_path / "state.db")
    try:
        first = SessionIds(_Upper(), state, "fp-1")  # type: ignore[arg-type]
        assert first.id("bob-notes") == "user-0b0b-notes"
        with state.transaction():
            first.save()
        raw = state.get_meta("session_ids")
        assert raw is not None and json.loads(raw)["map"]["bob-notes"] == "user-0b0b-notes"

        class Never(_Upper):
            def redact_relpath(self, relpath: str, report: RedactionReport) -> str:
                raise AssertionError("asked again")

        assert SessionIds(Never(), state, "fp-1").id("bob-notes") == "user-0b0b-notes"  # type: ignore[arg-type]
        with pytest.raises(AssertionError, match="asked again"):
            SessionIds(Never(), state, "fp-2").id("bob-notes")  # type: ignore[arg-type]
    finally:
        state.close()
    assert sqlite3.connect(tmp_path / "state.db").execute("select count(*) from meta").fetchone()[0] >= 1
