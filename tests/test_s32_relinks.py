"""Session 32, restore relinks still missing: after `archiver restore`, a sidecar reference names the
file where this restore put it (root/<its restored path>), not the archived host's absolute path,
on every restore (plain and --relocate), every other byte as archived. The CLI runs in process on a
file:// store (tests/fx_home.py); the homes follow the seeds:

- Claude Code (seed layout `<session-id>/tool-results/<id>.txt`, linking "sidecar references":
  toolUseResult.persistedOutputPath -> that file; the transcript keeps a `<persisted-output>` preview
  naming it; linking "subagents": the Agent toolUseResult has agentId and outputFile).
- OpenCode (seed layout `tool-output/tool_<id>`, linking "sidecar references": tool
  state.metadata.outputPath -> tool-output file): in the session's rows of opencode.db (2.x
  session_message, the 1.x part rows an upgraded install keeps, event rows).
- DeepSeek harness (catalog header `parentSession?`, "may be a session id or a file path").

A reference naming no file of the restore is left as archived and reported in the warnings.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path
from typing import Any

from archiver.demo.opencode_sample import Db
from tests.fx_home import USER, Box, _line, box  # noqa: F401

NEW = "/home/quillon/src/app"


def _key(cwd: str) -> str:
    return "".join(c if c.isalnum() and c.isascii() else "-" for c in cwd)


def _restore(box: Box, to: Path, *args: str) -> dict[str, Any]:
    out = box.cli("restore", *args, "--to", str(to))
    assert out["refused"] == [] and out["integrity_errors"] == [], out
    return out  # type: ignore[no-any-return]


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _artifacts(box: Box, key: str) -> dict[str, dict[str, Any]]:
    return {a["path"]: a for a in box.ls()[key]["artifacts"]}


# ---------------------------------------------------------------- Claude Code

C_CWD = f"/home/{USER}/app"
C_SID = "0b0e5f4e-1111-4222-8333-444455556666"
C_AGENT = "a1b2c3d4e5f6a7b8c"
C_KEPT, C_GONE, C_SPACED = "b1c2d3e4f", "toolu_01GoneGoneGoneGoneGone", "c9d8e7f6a"
C_TEMP_OUT = f"/tmp/claude-1000/-srv-app/tasks/{C_AGENT}.output"


def _conv(kind: str, uuid: str, parent: str | None, sid: str = C_SID, **rest: Any) -> dict[str, Any]:
    return {"parentUuid": parent, "isSidechain": False, "userType": "external", "cwd": C_CWD, "sessionId": sid,
            "version": "2.1.310", "gitBranch": "main", "entrypoint": "cli", "type": kind, "uuid": uuid,
            "timestamp": f"2026-01-02T03:04:{int(uuid[-2:]):02d}.000Z", **rest}


def _preview(path: str) -> str:
    return (f"<persisted-output>\nOutput too large (45.2KB). Full output saved to: {path}\n\n"
            "Preview (first 2KB):\nline 1\nline 2\n</persisted-output>")


def _bash_result(uuid: str, parent: str, tool_id: str, path: str) -> dict[str, Any]:
    return _conv("user", uuid, parent, message={"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": tool_id, "content": _preview(path), "is_error": False}]},
        toolUseResult={"stdout": "", "stderr": "", "interrupted": False, "persistedOutputPath": path,
                       "persistedOutputSize": 46285}, sourceToolAssistantUUID=parent)


def _build_claude(box: Box) -> dict[str, Any]:
    """A session with three persisted Bash results (one file kept, one gone before the sync, one
    under a folder whose name holds a space), an Agent call whose subagent transcript its outputFile
    names, a background Agent whose outputFile is a temp file, and a prompt quoting the field."""
    claude = box.home / ".claude"
    project = claude / "projects" / _key(C_CWD)
    results = project / C_SID / "tool-results"
    results.mkdir(parents=True)
    (results / f"{C_KEPT}.txt").write_text("line 1\nline 2\n" + "full output\n" * 4000)
    sub = project / C_SID / "subagents"
    sub.mkdir()
    abs_of = {name: f"{results}/{name}.txt" for name in (C_KEPT, C_GONE)}
    agent_file = f"{sub}/agent-{C_AGENT}.jsonl"
    recs = [
        _conv("user", "u0000000-0000-4000-8000-000000000001", None,
              message={"role": "user", "content": "run the build"}, promptSource="typed"),
        _conv("assistant", "a0000000-0000-4000-8000-000000000002", "u0000000-0000-4000-8000-000000000001",
              message={"role": "assistant", "id": "msg_1", "model": "m", "content": [
                  {"type": "tool_use", "id": "toolu_01Build", "name": "Bash", "input": {"command": "make"}}]}),
        _bash_result("u0000000-0000-4000-8000-000000000003", "a0000000-0000-4000-8000-000000000002",
                     "toolu_01Build", abs_of[C_KEPT]),
        _conv("assistant", "a0000000-0000-4000-8000-000000000004", "u0000000-0000-4000-8000-000000000003",
              message={"role": "assistant", "id": "msg_2", "model": "m", "content": [
                  {"type": "tool_use", "id": "toolu_01Again", "name": "Bash", "input": {"command": "make"}}]}),
        _bash_result("u0000000-0000-4000-8000-000000000005", "a0000000-0000-4000-8000-000000000004",
                     "toolu_01Again", abs_of[C_GONE]),
        _conv("assistant", "a0000000-0000-4000-8000-000000000006", "u0000000-0000-4000-8000-000000000005",
              message={"role": "assistant", "id": "msg_3", "model": "m", "content": [
                  {"type": "tool_use", "id": "toolu_01Agent", "name": "Agent",
                   "input": {"description": "audit", "prompt": "audit the build"}}]}),
        _conv("user", "u0000000-0000-4000-8000-000000000007", "a0000000-0000-4000-8000-000000000006",
              message={"role": "user", "content": [
                  {"type": "tool_result", "tool_use_id": "toolu_01Agent", "content": "audit done"}]},
              toolUseResult={"status": "completed", "agentId": C_AGENT, "outputFile": agent_file,
                             "totalDurationMs": 1200}),
        _conv("user", "u0000000-0000-4000-8000-000000000008", "u0000000-0000-4000-8000-000000000007",
              message={"role": "user", "content": [
                  {"type": "tool_result", "tool_use_id": "toolu_01Bg", "content": "started in the background"}]},
              toolUseResult={"status": "async_launched", "agentId": "bg1", "outputFile": C_TEMP_OUT}),
        # the same words inside a string are text, not a field, and no preview: never rewritten
        _conv("user", "u0000000-0000-4000-8000-000000000009", "u0000000-0000-4000-8000-000000000008",
              message={"role": "user", "content": f'it said "persistedOutputPath": "{abs_of[C_KEPT]}" and '
                                                  f'{_preview(abs_of[C_KEPT])}'}, promptSource="typed"),
    ]
    (project / f"{C_SID}.jsonl").write_text("".join(_line(r) for r in recs))
    (sub / f"agent-{C_AGENT}.meta.json").write_text(json.dumps({"agentType": "general-purpose",
                                                                  "toolUseId": "toolu_01Agent",
                                                                  "description": "audit"}))
    sub_recs = [
        {**_conv("user", "s0000000-0000-4000-8000-000000000001", None,
                 message={"role": "user", "content": "audit the build"}), "isSidechain": True, "agentId": C_AGENT},
        {**_conv("assistant", "s0000000-0000-4000-8000-000000000002", "s0000000-0000-4000-8000-000000000001",
                 message={"role": "assistant", "id": "msg_s", "model": "m",
                          "content": [{"type": "text", "text": "audit done"}]}), "isSidechain": True,
         "agentId": C_AGENT},
    ]
    Path(agent_file).write_text("".join(_line(r) for r in sub_recs))
    return {"abs": abs_of, "agent_file": agent_file}


def _claude_lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_bytes().splitlines()]


def _check_claude(box: Box, facts: dict[str, Any], to: Path, out: dict[str, Any], with_agent: bool) -> bytes:
    """The restored transcript's references, and its bytes with the archived values put back."""
    arts = _artifacts(box, f"claude-code:{C_SID}")
    [archived_rel] = [p for p, a in arts.items() if a["role"] == "transcript"]
    archived_folder = archived_rel.split("/")[2]  # the project key built from the redacted cwd
    [rel] = [f for f in out["files"] if f.endswith(f"/{C_SID}.jsonl")]
    [kept_rel] = [f for f in out["files"] if f.endswith(f"/tool-results/{C_KEPT}.txt")]
    lines = _claude_lines(to / rel)
    kept = str(to.resolve() / kept_rel)
    # the kept result: field and preview name the restored file, which holds the archived bytes
    assert lines[2]["toolUseResult"]["persistedOutputPath"] == kept
    assert lines[2]["message"]["content"][0]["content"] == _preview(kept)
    assert _sha(Path(kept).read_bytes()) == arts[archived_rel.rsplit("/", 1)[0] + f"/{C_SID}/tool-results/{C_KEPT}.txt"]["sha256"]
    # gone before the sync: no file of this restore, left as archived (redacted folder) and reported
    archived_home = f"{box.home}/.claude/projects/{archived_folder}"
    gone = f"{archived_home}/{C_SID}/tool-results/{C_GONE}.txt"
    assert lines[4]["toolUseResult"]["persistedOutputPath"] == gone
    assert lines[4]["message"]["content"][0]["content"] == _preview(gone)
    # the Agent's outputFile names the subagent transcript where this restore put it, when it did
    archived_agent = f"{archived_home}/{C_SID}/subagents/agent-{C_AGENT}.jsonl"
    if with_agent:
        [agent_rel] = [f for f in out["files"] if f.endswith(f"/agent-{C_AGENT}.jsonl")]
        assert lines[6]["toolUseResult"]["outputFile"] == str(to.resolve() / agent_rel)
        assert _claude_lines(Path(lines[6]["toolUseResult"]["outputFile"]))[0]["agentId"] == C_AGENT
    else:
        assert lines[6]["toolUseResult"]["outputFile"] == archived_agent
    assert lines[7]["toolUseResult"]["outputFile"] == C_TEMP_OUT  # a temp file: never archived, as it was
    assert lines[8]["message"]["content"] == (f'it said "persistedOutputPath": "{archived_home}/{C_SID}/tool-results/'
                                              f'{C_KEPT}.txt" and {_preview(f"{archived_home}/{C_SID}/tool-results/{C_KEPT}.txt")}')
    notes = [w for w in out["warnings"] if w.startswith(f"claude-code:{C_SID}: ")]
    left = "1 toolUseResult.persistedOutputPath value(s), 1 <persisted-output> preview path(s)" + (
        "" if with_agent else ", 1 outputFile value(s) into a projects/ folder")
    assert notes == [f"claude-code:{C_SID}: {archived_rel}: {left} name no file of this restore; left as archived"], \
        out["warnings"]
    # every other byte as archived
    data = (to / rel).read_bytes()
    archived = data.replace(kept.encode(), f"{archived_home}/{C_SID}/tool-results/{C_KEPT}.txt".encode())
    if with_agent:
        archived = archived.replace(json.dumps(lines[6]["toolUseResult"]["outputFile"]).encode(),
                                    json.dumps(archived_agent).encode())
    assert _sha(archived) == arts[archived_rel]["sha256"]
    return data


def test_claude_persisted_outputs_and_agent_output_file_name_the_restored_files(box: Box) -> None:
    box.only("claude-code")
    facts = _build_claude(box)
    sync = box.sync()
    assert sync["sessions"]["failed"] == 0 and sync["errors"] == []
    to = box.base / "review"
    out = _restore(box, to, f"claude-code:{C_SID}", "--with-family")
    assert sorted(out["sessions"]) == sorted([f"claude-code:{C_SID}", f"claude-code:{C_AGENT}"])
    data = _check_claude(box, facts, to, out, with_agent=True)
    # restoring again into the same target writes the same bytes (nothing refused)
    again = _restore(box, to, f"claude-code:{C_SID}", "--with-family")
    [rel] = [f for f in again["files"] if f.endswith(f"/{C_SID}.jsonl")]
    assert (to / rel).read_bytes() == data


def test_claude_session_restored_without_its_subagent_leaves_output_file(box: Box) -> None:
    box.only("claude-code")
    facts = _build_claude(box)
    box.sync()
    to = box.base / "alone"
    out = _restore(box, to, f"claude-code:{C_SID}")
    _check_claude(box, facts, to, out, with_agent=False)


def test_claude_relocated_restore_names_the_renamed_folder(box: Box) -> None:
    box.only("claude-code")
    _build_claude(box)
    box.sync()
    old = box.ls()[f"claude-code:{C_SID}"]["cwd"]
    to = box.base / "moved"
    out = _restore(box, to, "--all", "--relocate", f"{old}={NEW}")
    [rel] = [f for f in out["files"] if f.endswith(f"/{C_SID}.jsonl")]
    assert rel == f".claude/projects/{_key(NEW)}/{C_SID}.jsonl"
    lines = _claude_lines(to / rel)
    kept = str(to.resolve() / ".claude" / "projects" / _key(NEW) / C_SID / "tool-results" / f"{C_KEPT}.txt")
    assert lines[2]["toolUseResult"]["persistedOutputPath"] == kept and Path(kept).is_file()
    assert lines[2]["message"]["content"][0]["content"] == _preview(kept)
    agent = str(to.resolve() / ".claude" / "projects" / _key(NEW) / C_SID / "subagents" / f"agent-{C_AGENT}.jsonl")
    assert lines[6]["toolUseResult"]["outputFile"] == agent and Path(agent).is_file()
    # the gone one keeps its (relocated) archived value
    assert lines[4]["toolUseResult"]["persistedOutputPath"].endswith(f"/{C_SID}/tool-results/{C_GONE}.txt")
    assert not lines[4]["toolUseResult"]["persistedOutputPath"].startswith(str(to.resolve()))


def test_claude_redacted_or_odd_references_are_left_alone(box: Box) -> None:
    """A value whose file name is a placeholder, a relative one and a preview path spelled with an
    escape name no restored file: as archived, reported; the one plain reference is relinked."""
    box.only("claude-code")
    facts = _build_claude(box)
    transcript = box.home / ".claude" / "projects" / _key(C_CWD) / f"{C_SID}.jsonl"
    kept = facts["abs"][C_KEPT]
    odd = [
        _bash_result("u0000000-0000-4000-8000-000000000010", "u0000000-0000-4000-8000-000000000009", "toolu_01X",
                     kept.rsplit("/", 1)[0] + "/<TOKEN:0123abcd>.txt"),
        _bash_result("u0000000-0000-4000-8000-000000000011", "u0000000-0000-4000-8000-000000000010", "toolu_01Y",
                     f"{C_SID}/tool-results/{C_KEPT}.txt"),
    ]
    # the preview's path ending at the closing tag (no newline after it): relinked with the field
    compact = _bash_result("u0000000-0000-4000-8000-000000000012", "u0000000-0000-4000-8000-000000000011", "toolu_01Z",
                           kept)
    compact["message"]["content"][0]["content"] = f"<persisted-output>Output too large. Full output saved to: {kept}" \
                                                  "</persisted-output>"
    with transcript.open("a") as f:
        f.write("".join(_line(r) for r in [*odd, compact]))
    box.sync()
    to = box.base / "odd"
    out = _restore(box, to, f"claude-code:{C_SID}")
    [rel] = [f for f in out["files"] if f.endswith(f"/{C_SID}.jsonl")]
    lines = _claude_lines(to / rel)
    placeholder = lines[9]["toolUseResult"]["persistedOutputPath"]
    assert placeholder.endswith("/<TOKEN:0123abcd>.txt") and not placeholder.startswith(str(to.resolve()))
    assert lines[9]["message"]["content"][0]["content"] == _preview(placeholder)
    assert lines[10]["toolUseResult"]["persistedOutputPath"] == f"{C_SID}/tool-results/{C_KEPT}.txt"
    assert lines[10]["message"]["content"][0]["content"] == _preview(f"{C_SID}/tool-results/{C_KEPT}.txt")
    restored = str(to.resolve() / next(f for f in out["files"] if f.endswith(f"/tool-results/{C_KEPT}.txt")))
    assert lines[11]["toolUseResult"]["persistedOutputPath"] == restored
    assert lines[11]["message"]["content"][0]["content"] == \
        f"<persisted-output>Output too large. Full output saved to: {restored}</persisted-output>"
    [note] = [w for w in out["warnings"] if w.startswith(f"claude-code:{C_SID}: ")]
    assert "3 toolUseResult.persistedOutputPath value(s), 3 <persisted-output> preview path(s)" in note, note


def test_claude_hook_rewrites_only_the_string_and_stays_in_the_root(tmp_path: Path) -> None:
    """The hook itself, on plaintext sync never produces (the redactor writes JSON anew): a
    preview path spelled with an escape is not taken for one; the field beside it is rewritten,
    as its own key spelled with spaces; a restored path that would leave the root names nothing."""
    from archiver.harnesses.claude_code import ClaudeCode
    from archiver.model import Artifact

    folder, sid = "-home-user-1a2b-app", C_SID
    prefix = f".claude/projects/{folder}"
    old = f"/home/user-1a2b/.claude/projects/{folder}/{sid}/tool-results/{C_KEPT}.txt"
    escaped = old.replace("/tool-results/", "\\u002ftool-results/")
    line = ('{"type":"user","message":{"content":[{"type":"tool_result","content":"<persisted-output>\\nOutput '
            f'too large (1KB). Full output saved to: {escaped}\\n\\nPreview (first 2KB):\\nx\\n</persisted-output>"'
            '}]},"toolUseResult" : { "persistedOutputPath" : "' + old + '", "persistedOutputSize":1}}\n')
    plain = tmp_path / "plain"
    plain.write_bytes(line.encode() + b'{"type":"user","outputFile":"' + old.replace(C_KEPT, "up").encode() + b'"}\n')
    art = Artifact(path=f"{prefix}/{sid}.jsonl", role="transcript", format="jsonl")
    root = tmp_path / "to"
    moved = {f"{prefix}/{sid}/tool-results/{C_KEPT}.txt": f"{prefix}/{sid}/tool-results/{C_KEPT}.txt",
             f"{prefix}/{sid}/tool-results/up.txt": f"{prefix}/../../../up.txt"}
    note = ClaudeCode.relink_restored(art, plain, root, moved)
    new = f"{root}/{prefix}/{sid}/tool-results/{C_KEPT}.txt"
    first, second = plain.read_bytes().splitlines(keepends=True)
    assert first == line.replace(f'"persistedOutputPath" : "{old}"', f'"persistedOutputPath" : "{new}"').encode()
    assert second == b'{"type":"user","outputFile":"' + old.replace(C_KEPT, "up").encode() + b'"}\n'
    assert note == f"{prefix}/{sid}.jsonl: 1 outputFile value(s) into a projects/ folder name no file of this " \
                   "restore; left as archived"


# ---------------------------------------------------------------- OpenCode

O_PROJECT = "4b1f7e0c2d9a8b3c5e6f7a8b9c0d1e2f3a4b5c6d"
O_SES = "ses_8f3a2b1c0d9eAAAAAAAAAAAAAA"
O_OTHER = "ses_8f3a2b1c0d9cBBBBBBBBBBBBBB"
O_TOOL, O_TOOL_GONE, O_TOOL_B = ("tool_0a1b2c3d4e5fAbCdEfGhIjKlMa", "tool_0a1b2c3d4e5fAbCdEfGhIjKlMg",
                                 "tool_0a1b2c3d4e5fAbCdEfGhIjKlMb")
T0 = 1767261600000


def _tool(call: str, path: str) -> dict[str, Any]:
    return {"type": "tool", "id": call, "name": "read", "executed": True,
            "state": {"status": "completed", "input": {"path": "src/login.py"},
                      "content": [{"type": "text", "text": "...(truncated)"}],
                      "metadata": {"truncated": True, "outputPath": path}},
            "time": {"created": T0 + 2600, "ran": T0 + 2700, "completed": T0 + 2900}}


def _assistant(t: int, *content: dict[str, Any]) -> dict[str, Any]:
    return {"agent": "build", "model": {"id": "example-model", "providerID": "example"}, "content": list(content),
            "tokens": {"input": 100, "output": 5, "reasoning": 0, "cache": {"read": 0, "write": 0}},
            "time": {"created": t, "streamed": t + 500, "completed": t + 600}, "finish": "tool-calls", "cost": 0.0004}


def _build_opencode(box: Box) -> dict[str, Any]:
    """opencode.db (2.x, upgraded from 1.x) with a session whose tool results spilled to tool-output/
    (one file kept, one deleted after 7 days), its 1.x part row and event row naming the kept file,
    a user message quoting the field; a second session with a spill of its own."""
    root = box.home / ".local" / "share" / "opencode"
    out_dir = root / "tool-output"
    out_dir.mkdir(parents=True)
    (out_dir / O_TOOL).write_text("full read output\n" * 3000)
    (out_dir / O_TOOL_B).write_text("the other session's output\n")
    path = {t: f"{out_dir}/{t}" for t in (O_TOOL, O_TOOL_GONE, O_TOOL_B)}
    db = Db(root / "opencode.db")
    c = db.conn
    cwd = f"/home/{USER}/work/app"
    db.project(O_PROJECT, cwd)
    c.execute("INSERT INTO kv VALUES ('migration.v1-v2', ?, ?, ?)", (json.dumps({"done": True}), T0, T0))
    db.session(O_SES, O_PROJECT, cwd, "Fix login", T0)
    db.session(O_OTHER, O_PROJECT, cwd, "Docs", T0 + 100_000)
    rows = {
        "user": {"text": "fix the login", "time": {"created": T0 + 1000}},
        "spilled": _assistant(T0 + 2000, _tool("call_read1", path[O_TOOL]), _tool("call_read2", path[O_TOOL_GONE])),
        "quoted": {"text": f'it printed "outputPath": "{path[O_TOOL]}"', "time": {"created": T0 + 3000}},
    }
    db.msg("msg_0a0000000001AaaaaaaaaaaaaA", O_SES, "user", 1, rows["user"])
    db.msg("msg_0a0000000002AaaaaaaaaaaaaA", O_SES, "assistant", 2, rows["spilled"])
    db.msg("msg_0a0000000003AaaaaaaaaaaaaA", O_SES, "user", 3, rows["quoted"])
    db.msg("msg_0b0000000001BbbbbbbbbbbbbB", O_OTHER, "assistant", 1, _assistant(T0 + 101_000, _tool("call_b", path[O_TOOL_B])))
    part = {"id": "prt_legacyA1", "messageID": "msg_legacyA1", "sessionID": O_SES, "type": "tool", "callID": "call_old",
            "tool": "read", "state": {"status": "completed", "input": {"filePath": "a.txt"}, "output": "...",
                                      "metadata": {"truncated": True, "outputPath": path[O_TOOL]}, "title": "a.txt",
                                      "time": {"start": T0, "end": T0 + 5}}}
    c.execute("INSERT INTO message VALUES ('msg_legacyA1', ?, ?, ?, ?)",
              (O_SES, T0, T0, json.dumps({"role": "assistant", "time": {"created": T0}})))
    c.execute("INSERT INTO part VALUES ('prt_legacyA1', 'msg_legacyA1', ?, ?, ?, ?)", (O_SES, T0, T0, json.dumps(part)))
    event = {"sessionID": O_SES, "messageID": "msg_0a0000000002AaaaaaaaaaaaaA",
             "part": _tool("call_read1", path[O_TOOL])}
    c.execute("INSERT INTO event VALUES ('evt_1', ?, 1, ?, 'session.tool.completed.1', ?)",
              (O_SES, T0 + 2900, json.dumps(event, separators=(",", ":"))))
    c.execute("INSERT INTO event_sequence VALUES (?, 3, NULL)", (O_SES,))
    c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    c.close()
    return {"path": path, "rows": rows, "part": part, "event": event}


def _db_value(db: Path, sql: str, *args: Any) -> Any:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        row = conn.execute(sql, args).fetchone()
        return row[0] if row else None
    finally:
        conn.close()


def _check_opencode(box: Box, facts: dict[str, Any], to: Path, out: dict[str, Any]) -> str:
    db = to / ".local" / "share" / "opencode" / "opencode.db"
    assert _db_value(db, "PRAGMA integrity_check") == "ok"
    [out_rel] = [f for f in out["files"] if f.endswith(f"/tool-output/{O_TOOL}")]
    restored = str(to.resolve() / out_rel)
    assert Path(restored).read_text() == "full read output\n" * 3000
    old, gone = facts["path"][O_TOOL], facts["path"][O_TOOL_GONE]
    # exact cell bytes: the archived JSON (no private value in these rows) with only the one string changed
    spilled = json.dumps(facts["rows"]["spilled"], separators=(",", ":"))
    want = spilled.replace(json.dumps(old), json.dumps(restored))
    assert want != spilled and json.dumps(gone) in want
    assert _db_value(db, "SELECT data FROM session_message WHERE id = 'msg_0a0000000002AaaaaaaaaaaaaA'") == want
    assert _db_value(db, "SELECT data FROM session_message WHERE id = 'msg_0a0000000003AaaaaaaaaaaaaA'") == \
        json.dumps(facts["rows"]["quoted"], separators=(",", ":"))  # text, not a field
    assert _db_value(db, "SELECT data FROM part WHERE id = 'prt_legacyA1'") == \
        json.dumps(facts["part"]).replace(json.dumps(old), json.dumps(restored))
    assert _db_value(db, "SELECT data FROM event WHERE id = 'evt_1'") == \
        json.dumps(facts["event"], separators=(",", ":")).replace(json.dumps(old), json.dumps(restored))
    notes = [w for w in out["warnings"] if w.startswith(f"opencode:{O_SES}: ")]
    assert notes == [f"opencode:{O_SES}: .local/share/opencode/opencode.db: 1 metadata.outputPath value(s) name no "
                     "tool-output file of this restore; left as archived"], out["warnings"]
    return restored


def test_opencode_output_paths_name_the_restored_tool_output_files(box: Box) -> None:
    box.only("opencode")
    facts = _build_opencode(box)
    sync = box.sync()
    assert sync["sessions"]["failed"] == 0 and sync["errors"] == []
    assert any(a.endswith(f"/tool-output/{O_TOOL}") for a in _artifacts(box, f"opencode:{O_SES}"))
    to = box.base / "review"
    out = _restore(box, to, f"opencode:{O_SES}")
    _check_opencode(box, facts, to, out)
    # the other session, restored later into the same target, names its own restored file
    out = _restore(box, to, f"opencode:{O_OTHER}")
    db = to / ".local" / "share" / "opencode" / "opencode.db"
    value = _db_value(db, "SELECT json_extract(data, '$.content[0].state.metadata.outputPath') FROM session_message "
                          "WHERE session_id = ?", O_OTHER)
    assert value == str(to.resolve() / ".local" / "share" / "opencode" / "tool-output" / O_TOOL_B)
    assert [w for w in out["warnings"] if "outputPath" in w] == []
    # restoring the first again: the same rows, merged as a no-op (no "other content" refusal)
    _check_opencode(box, facts, to, _restore(box, to, f"opencode:{O_SES}"))


def test_opencode_relocated_restore(box: Box) -> None:
    box.only("opencode")
    facts = _build_opencode(box)
    box.sync()
    old = box.ls()[f"opencode:{O_SES}"]["cwd"]
    to = box.base / "moved"
    out = _restore(box, to, f"opencode:{O_SES}", "--relocate", f"{old}={NEW}")
    db = to / ".local" / "share" / "opencode" / "opencode.db"
    assert _db_value(db, "PRAGMA integrity_check") == "ok"
    restored = str(to.resolve() / ".local" / "share" / "opencode" / "tool-output" / O_TOOL)
    assert _db_value(db, "SELECT json_extract(data, '$.content[0].state.metadata.outputPath') FROM session_message "
                         "WHERE id = 'msg_0a0000000002AaaaaaaaaaaaaA'") == restored
    assert _db_value(db, "SELECT json_extract(data, '$.content[1].state.metadata.outputPath') FROM session_message "
                         "WHERE id = 'msg_0a0000000002AaaaaaaaaaaaaA'") == facts["path"][O_TOOL_GONE]
    assert _db_value(db, "SELECT directory FROM session_v2 WHERE id = ?", O_SES) == NEW
    assert any("1 metadata.outputPath value(s)" in w for w in out["warnings"])


def test_opencode_hook_on_storage_json_and_on_cells_of_any_storage_class(tmp_path: Path) -> None:
    """The hook itself: a 1.x storage/ part file (pretty-printed) gets the one string changed; in
    an extract, a TEXT cell holding bytes that are no UTF-8 and a BLOB cell keep their class and
    every other byte; a value naming no restored file stays and is counted."""
    from archiver.harnesses.opencode import OpenCode
    from archiver.model import Artifact

    root = tmp_path / "to"
    folder = ".local/share/opencode/tool-output/"
    moved = {folder + O_TOOL: folder + O_TOOL, ".local/share/opencode/opencode.db": ".local/share/opencode/opencode.db"}
    old = f"/home/user-1a2b/.local/share/opencode/tool-output/{O_TOOL}"
    new = f"{root}/{folder}{O_TOOL}"
    part = tmp_path / "part.json"
    text = json.dumps({"id": "prt_1", "type": "tool", "state": {"output": "x", "metadata": {"outputPath": old}}}, indent=2)
    part.write_text(text)
    art = Artifact(path=".local/share/opencode/storage/part/msg_1/prt_1.json", role="transcript", format="json")
    assert OpenCode.relink_restored(art, part, root, moved) is None
    assert part.read_text() == text.replace(json.dumps(old), json.dumps(new))

    db = tmp_path / "plain"
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE session_message (id TEXT PRIMARY KEY, data TEXT)")
    conn.execute("CREATE TABLE blobs (id TEXT PRIMARY KEY, data BLOB)")
    conn.execute("CREATE TABLE other (id TEXT PRIMARY KEY, payload TEXT)")
    cell = b'{"metadata":{"outputPath":"' + old.encode() + b'"},"note":"\xff"}'
    conn.execute("INSERT INTO session_message VALUES ('a', CAST(? AS TEXT))", (cell,))
    conn.execute("INSERT INTO blobs VALUES ('b', ?)", (cell,))
    conn.execute("INSERT INTO blobs VALUES ('c', ?)", (b'{"outputPath":"/x/tool-output/tool_notrestored1"}',))
    conn.execute("INSERT INTO other VALUES ('d', ?)", ('{"outputPath":"' + old + '"}',))  # no `data` column
    conn.commit()
    conn.close()
    art = Artifact(path=".local/share/opencode/opencode.db", role="database", format="sqlite")
    assert OpenCode.relink_restored(art, db, root, moved) == (
        ".local/share/opencode/opencode.db: 1 metadata.outputPath value(s) name no tool-output file of this "
        "restore; left as archived")
    want = cell.replace(old.encode(), new.encode())
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert conn.execute("SELECT typeof(data), CAST(data AS BLOB) FROM session_message").fetchone() == ("text", want)
        assert conn.execute("SELECT typeof(data), data FROM blobs WHERE id = 'b'").fetchone() == ("blob", want)
        assert conn.execute("SELECT payload FROM other").fetchone()[0] == '{"outputPath":"' + old + '"}'
    finally:
        conn.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["part.json", "plain"]  # no journal, no temp file left


# ---------------------------------------------------------------- DeepSeek harness

D_PARENT, D_CHILD, D_BY_ID, D_FORK = ("ds-parent-0001", "ds-child-0002", "ds-byid-0003", "ds-fork-0004")


def _ds_header(sid: str, created: int, **kw: Any) -> dict[str, Any]:
    return {"type": "session", "version": 3, "id": sid, "createdAt": created, "cwd": f"/home/{USER}/app",
            "isSeeded": False, "delegationDepth": 0, **kw}


def _ds_event(seq: int, typ: str, data: Any) -> dict[str, Any]:
    return {"type": typ, "seq": seq, "time": T0 + seq, "data": data}


def _build_deepseek(box: Box, root: Path) -> dict[str, Path]:
    """A parent in a folder, its subagent naming it by absolute path (non-ASCII folder, JSON with
    \\u escapes as Python writes it), a subagent naming it by id, a fork in another folder."""
    files = {D_PARENT: root / "proj-ünï" / f"{D_PARENT}.jsonl", D_CHILD: root / "proj-ünï" / f"{D_CHILD}.jsonl",
             D_BY_ID: root / f"{D_BY_ID}.jsonl", D_FORK: root / "other" / f"{D_FORK}.jsonl"}
    for f in files.values():
        f.parent.mkdir(parents=True, exist_ok=True)
    user = _ds_event(1, "user/message", {"id": "m1", "role": "user", "content": [{"type": "text", "text": "go"}],
                                         "source": {"kind": "human"}})
    files[D_PARENT].write_text(_line(_ds_header(D_PARENT, T0)) + _line(user))
    files[D_CHILD].write_text(
        json.dumps(_ds_header(D_CHILD, T0 + 10, origin="subagent", parentSession=str(files[D_PARENT]),
                              delegationDepth=1)) + "\n"  # spaced, ASCII-escaped: json.dumps' defaults
        + _line(_ds_event(1, "subagent/descriptor", {"version": 0, "mode": "one-shot", "provider": "deepseek"})))
    files[D_BY_ID].write_text(_line(_ds_header(D_BY_ID, T0 + 20, origin="subagent", parentSession=D_PARENT,
                                               delegationDepth=1)))
    files[D_FORK].write_text(_line(_ds_header(D_FORK, T0 + 30, isSeeded=True, parentSession=str(files[D_PARENT])))
                             + _line(user) + _line(_ds_event(2, "session/end-seed", {"inherited": True})))
    return files


def _ds_restored(to: Path, out: dict[str, Any], sid: str) -> tuple[str, bytes]:
    [rel] = [f for f in out["files"] if f.endswith(f"/{sid}.jsonl")]
    return rel, (to / rel).read_bytes()


def _archived_alone(box: Box, sid: str) -> tuple[str, bytes]:
    """The session restored alone: its parent is not in that restore, so its header is left as
    archived (the archived digest) and reported."""
    to = box.base / f"alone-{sid}"
    out = _restore(box, to, f"deepseek-harness:{sid}")
    rel, data = _ds_restored(to, out, sid)
    assert _sha(data) == _artifacts(box, f"deepseek-harness:{sid}")[rel]["sha256"]
    assert out["warnings"] == [f"deepseek-harness:{sid}: header.parentSession of {rel} is left as archived: "
                               "its parent file is not in this restore"]
    return rel, data


def _check_deepseek(box: Box, to: Path, out: dict[str, Any], archived_parent: str) -> None:
    parent_rel, _ = _ds_restored(to, out, D_PARENT)
    parent_abs = str(to.resolve() / parent_rel)
    for sid in (D_CHILD, D_FORK):
        rel, data = _ds_restored(to, out, sid)
        assert json.loads(data.split(b"\n", 1)[0])["parentSession"] == parent_abs
        # only that string changed, every other byte as archived (the value as orjson spells it)
        _rel, archived = _archived_alone(box, sid)
        assert json.loads(archived.split(b"\n", 1)[0])["parentSession"] == archived_parent
        [spelled] = [x for x in (json.dumps(archived_parent, ensure_ascii=a).encode() for a in (False, True))
                     if x in archived]
        assert data == archived.replace(spelled, json.dumps(parent_abs, ensure_ascii=False).encode(), 1), sid
    _rel, data = _ds_restored(to, out, D_BY_ID)
    assert json.loads(data.split(b"\n", 1)[0])["parentSession"] == D_PARENT  # an id: as archived
    assert not [w for w in out["warnings"] if "parentSession" in w], out["warnings"]


def test_deepseek_parent_session_path_names_the_restored_parent(box: Box) -> None:
    box.only("deepseek-harness")
    root = box.home / ".deepseek" / "sessions"
    files = _build_deepseek(box, root)
    sync = box.sync()
    assert sync["sessions"]["failed"] == 0 and sync["errors"] == []
    archived_parent = str(files[D_PARENT])  # the home path holds no private value: archived as it was
    to = box.base / "review"
    out = _restore(box, to, "--all")
    _check_deepseek(box, to, out, archived_parent)
    # with --relocate too
    moved = box.base / "moved"
    out = _restore(box, moved, "--all", "--relocate", f"{box.ls()[f'deepseek-harness:{D_CHILD}']['cwd']}={NEW}")
    parent_rel, _ = _ds_restored(moved, out, D_PARENT)
    for sid in (D_CHILD, D_FORK):
        _rel, data = _ds_restored(moved, out, sid)
        assert json.loads(data.split(b"\n", 1)[0])["parentSession"] == str(moved.resolve() / parent_rel)


def test_deepseek_custom_root(box: Box) -> None:
    box.only("deepseek-harness")
    root = box.home / "ds-store"
    box.config.write_text(box.config.read_text().replace(
        "[harnesses.deepseek-harness]\nenabled = true\n",
        f'[harnesses.deepseek-harness]\nenabled = true\nroot = "{root}"\n'))
    files = _build_deepseek(box, root)
    box.sync()
    to = box.base / "review"
    out = _restore(box, to, "--all")
    _check_deepseek(box, to, out, str(files[D_PARENT]))
