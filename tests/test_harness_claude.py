"""Claude Code collector on small ~/.claude trees written here, following
seeds/by-harness/claude-code.json (linking: forks, subagents; layout: subagents/,
sessions-index.json, memory/; records: custom-title)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from archiver.harnesses.base import HarnessContext, load_harness
from archiver.model import DiscoveredSession, LineageEdge
from tests.fx_home import USER, Box, _line, box  # noqa: F401

CWD = f"/home/{USER}/work/app"
KEY = "".join(c if c.isalnum() else "-" for c in CWD)
MAIN = "0b0e5f4e-1111-4222-8333-000000000001"
FORK = "0b0e5f4e-1111-4222-8333-000000000002"


def uid(i: int) -> str:
    return f"0b0e5f4e-2222-4333-8444-{i:012d}"


def discover(home: Path) -> dict[str, DiscoveredSession]:
    return {s.key: s for s in load_harness("claude-code", HarnessContext(home=home, env={})).discover()}


def conv(sid: str, i: int, parent: str | None, type_: str = "user", **extra: Any) -> dict[str, Any]:
    return {"parentUuid": parent, "isSidechain": False, "userType": "external", "cwd": CWD, "sessionId": sid,
            "version": "2.1.310", "gitBranch": "main", "entrypoint": "cli",
            "timestamp": f"2026-10-20T10:00:{i % 60:02d}.000Z", "uuid": uid(i), "type": type_, **extra}


def write_main(project: Path, n: int = 12) -> list[dict[str, Any]]:
    """An attachment root, then alternating user/assistant lines."""
    recs, prev = [], None
    for i in range(n):
        type_ = "attachment" if i == 0 else ("user" if i % 2 else "assistant")
        recs.append(conv(MAIN, i, prev, type_, message={"role": type_, "content": f"step {i} in {CWD}"}))
        prev = recs[-1]["uuid"]
    project.mkdir(parents=True, exist_ok=True)
    (project / f"{MAIN}.jsonl").write_text("".join(map(_line, recs)))
    return recs


def write_branch(project: Path, copied: list[dict[str, Any]], own: int = 2) -> None:
    """/branch: a history-suppression line, the copied path (linearised parents, new sessionId,
    forkedFrom with each record's own source uuid), a content-replacement, then the fork's own turn."""
    lines: list[dict[str, Any]] = [{"type": "history-suppression", "sessionId": FORK, "cause": "fork_inherit",
                                    "ts": "2026-10-20T11:00:00.000Z"}]
    prev = None
    for rec in copied:
        lines.append({**rec, "sessionId": FORK, "parentUuid": prev, "isSidechain": False,
                      "forkedFrom": {"sessionId": MAIN, "messageUuid": rec["uuid"]}})
        prev = rec["uuid"]
    lines.append({"type": "content-replacement", "sessionId": FORK, "replacements": []})
    for i in range(own):
        lines.append(conv(FORK, 100 + i, prev, "user" if i % 2 == 0 else "assistant",
                          message={"role": "user", "content": "another approach"}))
        prev = lines[-1]["uuid"]
    (project / f"{FORK}.jsonl").write_text("".join(map(_line, lines)))


def test_fork_point_is_the_last_copied_message(tmp_path: Path) -> None:
    """Each copied line's forkedFrom.messageUuid is its own source uuid: the first names the
    source's root, the fork point is the last copied one's (seed linking 'forks')."""
    project = tmp_path / ".claude" / "projects" / KEY
    recs = write_main(project)
    write_branch(project, recs[:8])
    fork = discover(tmp_path)[f"claude-code:{FORK}"]
    assert fork.kind == "fork"
    assert fork.parents == [LineageEdge(relation="fork", parent=f"claude-code:{MAIN}", at=recs[7]["uuid"])]


def test_fork_point_in_a_copied_line_too_long_to_parse(tmp_path: Path) -> None:
    """The selected message carries a large pasted image: its forkedFrom is still read."""
    project = tmp_path / ".claude" / "projects" / KEY
    recs = write_main(project, n=6)
    recs[5]["message"] = {"role": "user", "content": [{"type": "image", "source": {
        "type": "base64", "media_type": "image/png", "data": "A" * (5 * 1024 * 1024)}}]}
    write_branch(project, recs)
    fork = discover(tmp_path)[f"claude-code:{FORK}"]
    assert [(e.parent, e.at) for e in fork.parents] == [(f"claude-code:{MAIN}", recs[5]["uuid"])]


def test_an_empty_custom_title_clears_it(tmp_path: Path) -> None:
    """custom-title takes precedence over ai-title, and customTitle "" clears it."""
    project = tmp_path / ".claude" / "projects" / KEY
    write_main(project)
    with (project / f"{MAIN}.jsonl").open("a") as f:
        for rec in ({"type": "custom-title", "customTitle": "Deploy fixes", "sessionId": MAIN},
                    {"type": "ai-title", "aiTitle": "Fix the deploy script", "sessionId": MAIN},
                    {"type": "custom-title", "customTitle": "", "sessionId": MAIN},
                    {"type": "ai-title", "aiTitle": "Fix the deploy script", "sessionId": MAIN}):
            f.write(_line(rec))
    assert discover(tmp_path)[f"claude-code:{MAIN}"].title == "Fix the deploy script"


def test_unclaimed_subagent_files_stay_with_the_session(tmp_path: Path) -> None:
    """A subagent's .meta.json written before its transcript, or any file under subagents/ no
    agent transcript claims, is archived with the session whose folder holds it."""
    project = tmp_path / ".claude" / "projects" / KEY
    write_main(project)
    sub = project / MAIN / "subagents"
    (sub / "workflows" / "w1").mkdir(parents=True)
    (sub / "agent-a0000000000000001.meta.json").write_text(json.dumps({"agentType": "x", "toolUseId": "toolu_1"}))
    (sub / "workflows" / "w1" / "journal.json").write_text("{}")
    (sub / "agent-a0000000000000002.jsonl").write_text(_line(conv(MAIN, 50, None, agentId="a0000000000000002")))
    found = discover(tmp_path)
    main_paths = {a.path for a in found[f"claude-code:{MAIN}"].sources}
    prefix = f".claude/projects/{KEY}/{MAIN}/subagents"
    assert {p for p in main_paths if p.startswith(prefix)} == {
        f"{prefix}/agent-a0000000000000001.meta.json", f"{prefix}/workflows/w1/journal.json"}
    assert {a.path for a in found["claude-code:a0000000000000002"].sources} == {f"{prefix}/agent-a0000000000000002.jsonl"}


def test_nested_forked_subagent_hangs_off_the_spawning_subagent(tmp_path: Path) -> None:
    """spawnDepth 2 with a fork-context-ref: the parent is the subagent whose file holds the
    tool_use (parentSessionId names only the containing session)."""
    project = tmp_path / ".claude" / "projects" / KEY
    write_main(project)
    sub = project / MAIN / "subagents"
    sub.mkdir(parents=True)
    a, b = "a" + "1" * 16, "a" + "2" * 16
    call = {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_B", "name": "Skill", "input": {}}]}
    (sub / f"agent-{a}.jsonl").write_text(_line(conv(MAIN, 60, None, "assistant", agentId=a, isSidechain=True, message=call)))
    (sub / f"agent-{a}.meta.json").write_text(json.dumps({"toolUseId": "toolu_A", "spawnDepth": 1}))
    (sub / f"agent-{b}.jsonl").write_text(
        _line({"type": "fork-context-ref", "agentId": b, "parentSessionId": MAIN, "parentLastUuid": uid(60),
               "contextLength": 1})
        + _line(conv(MAIN, 61, None, agentId=b, isSidechain=True, message={"role": "user", "content": "go"})))
    (sub / f"agent-{b}.meta.json").write_text(json.dumps({"toolUseId": "toolu_B", "spawnDepth": 2, "isFork": True}))
    found = discover(tmp_path)
    assert found[f"claude-code:{b}"].parents == [LineageEdge(relation="subagent", parent=f"claude-code:{a}", at=uid(60))]
    assert found[f"claude-code:{a}"].parents == [LineageEdge(relation="subagent", parent=f"claude-code:{MAIN}", at="toolu_A")]


def test_project_files_roundtrip_next_to_the_sessions(box: Box) -> None:  # noqa: F811
    """sessions-index.json (layout kind index) and memory/ are per project, not per session:
    host files, restored into the same (redacted) project folder as the sessions; and the fork
    point survives sync, lineage and restore."""
    box.only("claude-code")
    project = box.home / ".claude" / "projects" / KEY
    recs = write_main(project)
    write_branch(project, recs[:8])
    index = {"version": 1, "originalPath": CWD, "entries": [
        {"sessionId": MAIN, "fullPath": f"{project}/{MAIN}.jsonl", "firstPrompt": "step 1", "projectPath": CWD}]}
    (project / "sessions-index.json").write_text(json.dumps(index))
    (project / "memory").mkdir()
    (project / "memory" / "MEMORY.md").write_text(f"- the app lives in {CWD}\n")
    box.sync()

    edges = box.cli("lineage")["edges"]
    assert [(e["child"], e["parent"], e["relation"], e["at"]) for e in edges] == [
        (f"claude-code:{FORK}", f"claude-code:{MAIN}", "fork", recs[7]["uuid"])]
    host = box.ls()["claude-code:@host"]
    kinds = {a["path"].split("/", 3)[3]: a["role"] for a in host["artifacts"] if a["path"].startswith(".claude/projects/")}
    assert kinds == {"sessions-index.json": "index", "memory/MEMORY.md": "sidecar"}

    target = box.base / "restored"
    assert box.cli("restore", "--all", "--to", str(target))["integrity_errors"] == []
    (folder,) = (target / ".claude" / "projects").iterdir()
    assert USER not in folder.name
    assert sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()) == [
        f"{MAIN}.jsonl", f"{FORK}.jsonl", "memory/MEMORY.md", "sessions-index.json"]
    restored = json.loads((folder / "sessions-index.json").read_bytes())
    assert restored["entries"][0]["sessionId"] == MAIN and USER not in json.dumps(restored)
    assert (folder / "memory" / "MEMORY.md").read_text().startswith("- the app lives in /home/user-")


def test_sibling_files_without_a_transcript_are_a_session(tmp_path: Path) -> None:
    """<sid>.ccr-tip.json / .precompact.json / .dir-sync.json are reserved per session: with no
    <sid>.jsonl nor <sid>/ beside them (a cloud session), they are still archived, as that session's."""
    project = tmp_path / ".claude" / "projects" / KEY
    write_main(project)
    (project / f"{FORK}.ccr-tip.json").write_text(json.dumps({"tip": uid(3)}))
    (project / f"{FORK}.dir-sync.json").write_text(json.dumps({"dir": CWD}))
    fork = discover(tmp_path)[f"claude-code:{FORK}"]
    assert [(a.path, a.role, a.format) for a in fork.sources] == [
        (f".claude/projects/{KEY}/{FORK}.ccr-tip.json", "sidecar", "json"),
        (f".claude/projects/{KEY}/{FORK}.dir-sync.json", "sidecar", "json")]
    assert fork.warnings == [f"{FORK}.*: session files without its transcript {FORK}.jsonl"]  # no project key: s24


def test_file_history_of_a_session_never_seen_is_a_session_of_its_own(tmp_path: Path) -> None:
    """file-history/<sid>/ and session-env/<sid>/ are that session's (seed layout); with no
    transcript anywhere (pruned before the first run) they still form its session, with a warning."""
    gone = "0b0e5f4e-1111-4222-8333-000000000009"
    write_main(tmp_path / ".claude" / "projects" / KEY)
    fh = tmp_path / ".claude" / "file-history" / gone
    fh.mkdir(parents=True)
    (fh / "0123456789abcdef@v1").write_text(f"print('backup of {CWD}/app.py')\n")
    (fh / "0123456789abcdef@v2").write_text("print('v2')\n")
    env = tmp_path / ".claude" / "session-env" / gone
    env.mkdir(parents=True)
    (env / "hook-1.sh").write_text("export TOKEN=abc\n")
    main_fh = tmp_path / ".claude" / "file-history" / MAIN
    main_fh.mkdir()
    (main_fh / "fedcba9876543210@v1").write_text("x\n")
    found = discover(tmp_path)
    s = found[f"claude-code:{gone}"]
    assert [(a.path, a.role, a.format) for a in s.sources] == [
        (f".claude/file-history/{gone}/0123456789abcdef@v1", "blob", "text"),
        (f".claude/file-history/{gone}/0123456789abcdef@v2", "blob", "text"),
        (f".claude/session-env/{gone}/hook-1.sh", "sidecar", "text")]
    assert s.warnings == [f"file-history/{gone}/, session-env/{gone}/: session files without its transcript {gone}.jsonl"]
    assert (s.kind, s.parents) == ("main", [])
    # a session whose transcript is there keeps its folder, and no second session is made of it
    assert f".claude/file-history/{MAIN}/fedcba9876543210@v1" in [a.path for a in found[f"claude-code:{MAIN}"].sources]
    assert sorted(found) == sorted([f"claude-code:{MAIN}", f"claude-code:{gone}"])


def test_file_history_outliving_its_pruned_transcript_stays_with_the_archived_session(box: Box) -> None:  # noqa: F811
    """Claude Code prunes the transcript; a backup written after the last run is still archived,
    attached to the session archived before, whose transcript, title and lineage are kept."""
    box.only("claude-code")
    project = box.home / ".claude" / "projects" / KEY
    recs = write_main(project)
    write_branch(project, recs[:8])
    with (project / f"{FORK}.jsonl").open("a") as f:
        f.write(_line({"type": "custom-title", "customTitle": "the other approach", "sessionId": FORK}))
    fh = box.home / ".claude" / "file-history" / FORK
    fh.mkdir(parents=True)
    (fh / "0123456789abcdef@v1").write_text("first backup\n")
    box.sync()
    before = box.ls()[f"claude-code:{FORK}"]
    (project / f"{FORK}.jsonl").unlink()  # pruned
    (fh / "0123456789abcdef@v2").write_text("second backup\n")
    box.sync()
    after = box.ls()[f"claude-code:{FORK}"]
    paths = [a["path"] for a in after["artifacts"]]
    transcript = next(a for a in before["artifacts"] if a["role"] == "transcript")
    assert transcript in after["artifacts"]  # the archived copy, as it was
    assert f".claude/file-history/{FORK}/0123456789abcdef@v1" in paths
    assert f".claude/file-history/{FORK}/0123456789abcdef@v2" in paths
    assert (after["title"], after["kind"], after["parents"]) == (before["title"], before["kind"], before["parents"])
    assert before["title"] == "the other approach" and before["parents"][0]["parent"] == f"claude-code:{MAIN}"
    assert after["created_at"] == before["created_at"]
    target = box.base / "restored"
    assert box.cli("restore", f"claude-code:{FORK}", "--to", str(target))["integrity_errors"] == []
    assert (target / ".claude" / "file-history" / FORK / "0123456789abcdef@v2").read_text() == "second backup\n"


def test_every_file_of_a_project_is_archived_under_one_rebuilt_key(tmp_path: Path) -> None:
    """The key encodes the project's cwd (layout: <project-key> = absolute cwd, non-alphanumerics
    as '-'). A subagent whose lines carry a cwd below it (started after a cd, or in a worktree:
    meta.json worktreePath), the project's memory/ and sessions-index.json, and a session folder
    without its transcript all land in the folder rebuilt for the main session, not in one the
    path rules make of the raw key (which cannot see `zq.canary` as `zq-canary`)."""
    cwd = "/export/home/zq.canary/app"
    key = "".join(c if c.isalnum() else "-" for c in cwd)
    project = tmp_path / ".claude" / "projects" / key
    project.mkdir(parents=True)
    main = [{**conv(MAIN, 0, None, "attachment"), "cwd": cwd},
            {**conv(MAIN, 1, uid(0), "assistant"), "cwd": cwd, "message": {"id": "msg_1", "role": "assistant", "content": [
                {"type": "tool_use", "id": "toolu_w", "name": "Agent", "input": {}}]}}]
    (project / f"{MAIN}.jsonl").write_text("".join(map(_line, main)))
    agent = "a0123456789abcdef"
    worktree = f"{cwd}/.claude/worktrees/feat"
    subdir = project / MAIN / "subagents"
    subdir.mkdir(parents=True)
    (subdir / f"agent-{agent}.jsonl").write_text(_line(
        {**conv(MAIN, 2, None), "cwd": worktree, "isSidechain": True, "agentId": agent}))
    (subdir / f"agent-{agent}.meta.json").write_text(json.dumps(
        {"agentType": "general", "toolUseId": "toolu_w", "spawnDepth": 1, "spawnedWithWorktree": True,
         "worktreePath": worktree}))
    (project / "memory").mkdir()
    (project / "memory" / "MEMORY.md").write_text("notes\n")
    (project / "sessions-index.json").write_text(json.dumps({"version": 1, "originalPath": cwd, "entries": []}))
    (project / FORK / "tool-results").mkdir(parents=True)
    (project / FORK / "tool-results" / "b7x9k2m4q.txt").write_text("out\n")

    harness = load_harness("claude-code", HarnessContext(home=tmp_path, env={}))
    sessions = {s.key: s for s in harness.discover()}
    assert sessions[f"claude-code:{agent}"].cwd == worktree

    def redact(text: str) -> str:
        return text.replace("zq.canary", "user-1")

    archived = sorted(harness.redacted_relpath(src, s, redact, redact)  # type: ignore[attr-defined]
                      for s in sessions.values() for src in s.sources)
    assert archived == sorted([
        f".claude/projects/-export-home-user-1-app/{FORK}/tool-results/b7x9k2m4q.txt",
        f".claude/projects/-export-home-user-1-app/{MAIN}.jsonl",
        f".claude/projects/-export-home-user-1-app/{MAIN}/subagents/agent-{agent}.jsonl",
        f".claude/projects/-export-home-user-1-app/{MAIN}/subagents/agent-{agent}.meta.json",
        ".claude/projects/-export-home-user-1-app/memory/MEMORY.md",
        ".claude/projects/-export-home-user-1-app/sessions-index.json",
    ])


def test_fork_found_past_a_long_run_of_carried_forward_metadata(tmp_path: Path) -> None:
    """/branch carries content-replacement, relocated, memory-mode, atis-latch and
    history-suppression forward (linking: forks): however many of them open the new file before
    the copied path, it is still a fork of the source, at the last copied message."""
    project = tmp_path / ".claude" / "projects" / KEY
    recs = write_main(project)
    lines: list[dict[str, Any]] = [{"type": "history-suppression", "sessionId": FORK, "cause": "fork_inherit",
                                    "ts": "2026-10-20T11:00:00.000Z"}]
    lines += [{"type": "content-replacement", "sessionId": FORK, "replacements": [{"n": i}]} for i in range(30)]
    lines += [{"type": "relocated", "relocatedCwd": CWD, "sessionId": FORK},
              {"type": "memory-mode", "mode": "off", "afterUuid": None, "sessionId": FORK},
              {"type": "atis-latch", "atis": "x1", "sessionId": FORK}]
    prev = None
    for rec in recs[:4]:
        lines.append({**rec, "sessionId": FORK, "parentUuid": prev,
                      "forkedFrom": {"sessionId": MAIN, "messageUuid": rec["uuid"]}})
        prev = rec["uuid"]
    lines.append(conv(FORK, 100, prev, message={"role": "user", "content": "another approach"}))
    (project / f"{FORK}.jsonl").write_text("".join(map(_line, lines)))

    fork = discover(tmp_path)[f"claude-code:{FORK}"]
    assert fork.kind == "fork"
    assert fork.parents == [LineageEdge(relation="fork", parent=f"claude-code:{MAIN}", at=recs[3]["uuid"])]
    assert (fork.created_at, fork.cwd) == (recs[0]["timestamp"], CWD)


def test_lines_that_are_not_json_are_counted_in_a_warning(tmp_path: Path) -> None:
    """As for Codex and pi: complete lines that are not JSON are reported (file, count, line
    numbers, never their content), in main and subagent transcripts; a torn last line without
    its newline is not (seed gotcha: tolerate an unparsable final line)."""
    project = tmp_path / ".claude" / "projects" / KEY
    write_main(project, n=4)
    secret = "sk-ant-api03-NOTJSON"
    with (project / f"{MAIN}.jsonl").open("a") as f:
        f.write(f'{{"type":"user","message":"cut off {secret}\n')  # line 5: torn, then appended after
        f.write(_line(conv(MAIN, 5, uid(3), message={"role": "user", "content": "resumed"})))
        f.write("not json at all\n")  # line 7
        f.write('{"type":"assistant","uuid":"x"')  # being written
    sub = project / MAIN / "subagents"
    sub.mkdir(parents=True)
    (sub / "agent-a0000000000000009.jsonl").write_text(
        _line(conv(MAIN, 60, None, agentId="a0000000000000009")) + "{broken\n" + _line(conv(MAIN, 61, uid(60))))
    found = discover(tmp_path)
    main = found[f"claude-code:{MAIN}"]
    assert main.warnings == [f"{MAIN}.jsonl: 2 unparseable line(s) kept as they are (lines 5, 7)"]
    assert not any(secret in w or "not json" in w for w in main.warnings)
    sub_s = found["claude-code:a0000000000000009"]
    assert [w for w in sub_s.warnings if "unparseable" in w] == [
        "agent-a0000000000000009.jsonl: 1 unparseable line(s) kept as they are (line 2)"]
    # a clean transcript has no such warning
    write_main(project, n=4)
    assert not [w for w in discover(tmp_path)[f"claude-code:{MAIN}"].warnings if "unparseable" in w]
