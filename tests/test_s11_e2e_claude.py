"""s11 end-to-end audit of Claude Code, as an outsider runs it: a ~/.claude generated from
seeds/by-harness/claude-code.json (every record kind of the seed, every string field the seed
names filled with a canary; main session, subagents with every sidecar, nested subagent
folders, a /branch fork, a continuation, tool-results, remote agents, sibling files,
file-history, session-env, history + paste-cache, legacy index and memory), `python -m
archiver sync` to a file:// store read with `age` + `zstd` only, then `archiver restore`
into another home."""

from __future__ import annotations

import copy
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.fx_s11_e2e_claude import (
    HOME_PREFIX, USER, Canaries, cli_json, leaks, missing_markers, read_store, tree_bytes, write_config,
)

SEED = Path("/work/shared/seeds/by-harness/claude-code.json")
CC_KEEP = {"type", "subtype", "uuid", "parentUuid", "logicalParentUuid", "sessionId", "timestamp", "version", "agentId",
           "messageId", "snapshotMessageId", "leafUuid", "tool_use_id", "sourceToolAssistantUUID", "requestId", "id",
           "promptId", "role", "parentSessionId", "parentLastUuid", "continuedInSessionId", "userType", "entrypoint",
           "cwd", "isSidechain", "backupFileName", "stop_reason", "toolUseID", "toolUseId", "permissionMode",
           "promptSource", "turnOrigin", "level", "operation", "hash", "shapeHash", "base", "mode", "kind",
           "media_type"}

MAIN = "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa"
FORK = "bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb"
NEXT = "cccccccc-cccc-4ccc-8ccc-cccccccccccc"  # continued-in successor
AGENT = "a0123456789abcdef"
NESTED = "a1111111111111111"
FORKED_AGENT = "a2222222222222222"


def seed_records() -> list[tuple[str, dict[str, Any], list[dict[str, Any]]]]:
    c = json.loads(SEED.read_text())
    return [(r["type"], json.loads(r["example"]), r["fields"]) for r in c["records"]]


def _set_path(rec: dict[str, Any], dotted: str, value: Any) -> None:
    parts = dotted.split(".")
    cur = rec
    for p in parts[:-1]:
        nxt = cur.get(p)
        if nxt is None:
            nxt = cur[p] = {}
        if not isinstance(nxt, dict):
            return
        cur = nxt
    cur.setdefault(parts[-1], value)


def with_seed_fields(rec: dict[str, Any], fields: list[dict[str, Any]]) -> dict[str, Any]:
    """Every string field the seed names for this record kind, present (optional ones too)."""
    for f in fields:
        name = f["name"]
        if "[" in name or "<" in name or "(" in name or name in CC_KEEP:
            continue
        if f.get("type", "").replace(" ", "") in ("string", "string|null", "string?"):
            _set_path(rec, name, "x")
    return rec


def jl(rec: dict[str, Any]) -> bytes:
    return json.dumps(rec, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"


def project_key(cwd: str) -> str:
    return re.sub(r"[^A-Za-z0-9]", "-", cwd)


def uid(n: int) -> str:
    return f"{n:08x}-0000-4000-8000-{n:012x}"


@dataclass
class ClaudeHome:
    home: Path
    canaries: Canaries = field(default_factory=lambda: Canaries(prefix="CCC"))
    sessions: dict[str, list[Path]] = field(default_factory=dict)  # session id -> its files (transcript first)
    parents: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    host_files: list[Path] = field(default_factory=list)

    @property
    def root(self) -> Path:
        return self.home / ".claude"


def conversation(h: ClaudeHome, sid: str, cwd: str, first: int, agent: str | None = None) -> list[dict[str, Any]]:
    """One line of every seed record kind, every string field a canary, chained by uuid."""
    c = h.canaries
    out = []
    n = first
    prev: str | None = None
    for kind, rec, fields in seed_records():
        rec = with_seed_fields(copy.deepcopy(rec), fields)
        rec = c.fill(rec, f"claude {kind}", keep=CC_KEEP)
        if "sessionId" in rec:
            rec["sessionId"] = sid
        if "cwd" in rec:
            rec["cwd"] = cwd
        if "uuid" in rec:
            rec["uuid"] = uid(n)
            rec["parentUuid"] = prev
            prev = rec["uuid"]
            n += 1
        if agent is not None and "isSidechain" in rec:
            rec["isSidechain"], rec["agentId"] = True, agent
        if kind in ("fork-context-ref", "continued-in", "summary", "last-prompt"):
            continue  # placed by the caller where they mean something
        if kind == "file-history-snapshot":
            tracked = rec["snapshot"]["trackedFileBackups"]
            rec["snapshot"]["trackedFileBackups"] = {
                c.path("claude trackedFileBackups key", "src/app.ts"): dict(next(iter(tracked.values())),
                                                                           backupFileName="0123456789abcdef@v2")}
        if kind == "file-history-delta":
            rec["backup"]["backupFileName"] = "0123456789abcdef@v3"
        out.append(rec)
    return out


def make_claude_home(home: Path) -> ClaudeHome:
    h = ClaudeHome(home=home)
    c = h.canaries
    cwd = f"{HOME_PREFIX}/src/claude-{c.new('claude cwd').marker.lower()}"
    proj = h.root / "projects" / project_key(cwd)
    proj.mkdir(parents=True)
    recs = conversation(h, MAIN, cwd, 1)
    # the Agent tool_use in the parent, its result naming the agent
    tu = {"parentUuid": recs[-1].get("uuid"), "isSidechain": False, "type": "assistant", "uuid": uid(900),
          "sessionId": MAIN, "cwd": cwd, "timestamp": "2026-10-20T10:00:00.000Z", "version": "2.1.310",
          "message": {"id": "msg_agent", "role": "assistant", "type": "message", "content": [
              {"type": "tool_use", "id": "toolu_agent1", "name": "Agent",
               "input": {"description": c.text("claude Agent.description"), "prompt": c.text("claude Agent.prompt")}}]}}
    res = {"parentUuid": uid(900), "isSidechain": False, "type": "user", "uuid": uid(901), "sessionId": MAIN, "cwd": cwd,
           "timestamp": "2026-10-20T10:00:01.000Z", "version": "2.1.310",
           "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_agent1",
                                                    "content": c.text("claude Agent tool_result")}]},
           "toolUseResult": {"agentId": AGENT, "outputFile": c.path("claude outputFile", "out.txt"),
                             "persistedOutputPath": str(proj / MAIN / "tool-results" / "b8f3k2m9q.txt")}}
    tail = [
        {"type": "summary", "summary": c.text("claude summary"), "leafUuid": uid(901)},
        {"type": "last-prompt", "lastPrompt": c.text("claude last-prompt"), "leafUuid": uid(901), "sessionId": MAIN},
        {"type": "custom-title", "customTitle": c.text("claude custom-title"), "sessionId": MAIN},
        {"type": "continued-in", "timestamp": "2026-10-20T11:00:00.000Z", "sessionId": MAIN, "continuedInSessionId": NEXT},
    ]
    main = proj / f"{MAIN}.jsonl"
    main.write_bytes(b"".join(map(jl, [*recs, tu, res, *tail])))
    files = [main]
    sdir = proj / MAIN
    # tool-results, remote agents, subagents (one nested a folder deeper, one forked)
    (sdir / "tool-results").mkdir(parents=True)
    for name in ("b8f3k2m9q.txt", "toolu_01ABCdef.txt"):
        (sdir / "tool-results" / name).write_text(c.text(f"claude tool-results {name}") + "\n" + "line\n" * 500)
        files.append(sdir / "tool-results" / name)
    (sdir / "remote-agents").mkdir()
    ra = sdir / "remote-agents" / "remote-agent-r1.meta.json"
    ra.write_text(json.dumps({"id": "r1", "title": c.text("claude remote agent title"), "repo": c.text("claude remote repo")}))
    files.append(ra)
    sub = sdir / "subagents"
    sub.mkdir()
    sub_files: dict[str, list[Path]] = {}
    for agent, folder, depth, tool in ((AGENT, sub, 1, "toolu_agent1"), (NESTED, sub / "workflows" / "wf-1", 2, "toolu_nested"),
                                       (FORKED_AGENT, sub, 1, "toolu_forked")):
        folder.mkdir(parents=True, exist_ok=True)
        lines = conversation(h, MAIN, cwd, 2000 + len(sub_files) * 500, agent=agent)[:25]
        if agent == AGENT:  # it spawns the nested one
            lines.append({"parentUuid": lines[-1].get("uuid"), "isSidechain": True, "agentId": AGENT, "type": "assistant",
                          "uuid": uid(2990), "sessionId": MAIN, "cwd": cwd, "timestamp": "2026-10-20T10:00:00.000Z",
                          "message": {"id": "m", "role": "assistant", "content": [
                              {"type": "tool_use", "id": "toolu_nested", "name": "Agent",
                               "input": {"prompt": c.text("claude nested Agent.prompt")}}]}})
        if agent == FORKED_AGENT:
            lines.insert(0, {"type": "fork-context-ref", "agentId": agent, "parentSessionId": MAIN,
                             "parentLastUuid": uid(5), "contextLength": 5})
        t = folder / f"agent-{agent}.jsonl"
        t.write_bytes(b"".join(map(jl, lines)))
        m = folder / f"agent-{agent}.meta.json"
        m.write_text(json.dumps({"agentType": c.text("claude meta agentType"), "description": c.text("claude meta description"),
                                 "toolUseId": tool, "spawnDepth": depth, "requestShape": c.text("claude meta requestShape"),
                                 "worktreePath": c.path("claude meta worktreePath", ""), "worktreeBranch": c.text("claude meta branch"),
                                 "name": c.text("claude meta name"), "isFork": agent == FORKED_AGENT}, ensure_ascii=False))
        sub_files[agent] = [t, m]
        if agent == FORKED_AGENT:
            for suffix, body in ((".forked-skill.json", {"skillName": c.text("claude skillName"),
                                                         "attributionName": c.text("claude attributionName")}),
                                 (".forked-skill.marker.json", {"forkedSkill": True, "skillName": c.text("claude marker skill")})):
                p = folder / f"agent-{agent}{suffix}"
                p.write_text(json.dumps(body, ensure_ascii=False))
                sub_files[agent].append(p)
    h.parents[AGENT] = [("subagent", MAIN)]
    h.parents[NESTED] = [("subagent", AGENT)]
    h.parents[FORKED_AGENT] = [("subagent", MAIN)]
    for agent, fs in sub_files.items():
        h.sessions[agent] = fs
    # a .meta.json written before its transcript: stays with the session
    early = sub / "agent-a9999999999999999.meta.json"
    early.write_text(json.dumps({"agentType": "general", "description": c.text("claude early meta"), "toolUseId": "toolu_x"}))
    files.append(early)
    for suffix in (".ccr-tip.json", ".precompact.json", ".dir-sync.json"):
        p = proj / f"{MAIN}{suffix}"
        p.write_text(json.dumps({"note": c.text(f"claude sibling {suffix}"), "cwd": cwd}, ensure_ascii=False))
        files.append(p)
    fh = h.root / "file-history" / MAIN
    fh.mkdir(parents=True)
    for name in ("0123456789abcdef@v2", "0123456789abcdef@v3"):
        (fh / name).write_text(f"// {c.text('claude file-history ' + name)}\nconst home = '{HOME_PREFIX}';\n")
        files.append(fh / name)
    (fh / "fedcba9876543210@v1").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4)  # a backed-up image
    files.append(fh / "fedcba9876543210@v1")
    env = h.root / "session-env" / MAIN
    env.mkdir(parents=True)
    (env / "sessionstart-hook-0.sh").write_text(f"export GH_TOKEN={c.new('claude session-env').secret}\n"
                                                f"export PROJECT_DIR={cwd}\n# {c.text('claude session-env hook')}\n")
    files.append(env / "sessionstart-hook-0.sh")
    h.sessions[MAIN] = files
    h.parents[MAIN] = []

    # /branch: copies the selected path with original uuids and forkedFrom, new session id
    fork_lines = []
    prev = None
    for rec in [r for r in recs if "uuid" in r][:6]:
        r = dict(rec, sessionId=FORK, forkedFrom={"sessionId": MAIN, "messageUuid": rec["uuid"]}, parentUuid=prev,
                 uuid=uid(5000 + len(fork_lines)))
        prev = r["uuid"]
        fork_lines.append(r)
    fork_lines.append({"type": "user", "uuid": uid(5100), "parentUuid": prev, "sessionId": FORK, "cwd": cwd,
                       "isSidechain": False, "timestamp": "2026-10-21T10:00:00.000Z",
                       "message": {"role": "user", "content": c.text("claude fork own prompt")}})
    fork = proj / f"{FORK}.jsonl"
    fork.write_bytes(b"".join(map(jl, fork_lines)))
    h.sessions[FORK] = [fork]
    h.parents[FORK] = [("fork", MAIN)]
    fork_at = fork_lines[5]["forkedFrom"]["messageUuid"]
    h.__dict__["fork_at"] = fork_at

    # the continuation, in a project whose path has unicode and spaces; a torn last line
    cwd2 = f"{HOME_PREFIX}/Documents/Été {c.new('claude cwd2').marker.lower()}"
    proj2 = h.root / "projects" / project_key(cwd2)
    proj2.mkdir(parents=True)
    nxt = proj2 / f"{NEXT}.jsonl"
    nl = [{"type": "user", "uuid": uid(7000), "parentUuid": None, "sessionId": NEXT, "cwd": cwd2, "isSidechain": False,
           "timestamp": "2026-10-22T10:00:00.000Z", "gitBranch": c.text("claude next gitBranch"),
           "message": {"role": "user", "content": c.text("claude next prompt")}}]
    nxt.write_bytes(b"".join(map(jl, nl)) + jl({"type": "assistant", "uuid": uid(7001), "message": {"content": "torn"}})[:-20])
    h.sessions[NEXT] = [nxt]
    h.parents[NEXT] = [("continuation", MAIN)]

    # host files: history, paste cache, legacy index, project memory
    (h.root / "history.jsonl").write_text(json.dumps({
        "display": c.text("claude history.display"), "project": cwd, "sessionId": MAIN, "timestamp": 1760954400000,
        "pastedContents": {"1": {"id": 1, "type": "text", "content": c.text("claude pasted content")},
                           "2": {"id": 2, "type": "text", "contentHash": "deadbeefcafe"}}}, ensure_ascii=False) + "\n")
    (h.root / "paste-cache").mkdir()
    (h.root / "paste-cache" / "deadbeefcafe.txt").write_text(c.text("claude paste-cache"))
    (proj / "sessions-index.json").write_text(json.dumps({"version": 1, "originalPath": cwd, "entries": [
        {"sessionId": MAIN, "fullPath": str(main), "firstPrompt": c.text("claude index firstPrompt"),
         "summary": c.text("claude index summary"), "gitBranch": c.text("claude index gitBranch"), "projectPath": cwd,
         "isSidechain": False, "messageCount": 3}]}, ensure_ascii=False))
    (proj / "memory").mkdir()
    (proj / "memory" / "MEMORY.md").write_text(f"# memory\n{c.text('claude memory')}\n")
    h.host_files = [h.root / "history.jsonl", h.root / "paste-cache" / "deadbeefcafe.txt", proj / "sessions-index.json",
                    proj / "memory" / "MEMORY.md"]
    return h


# ---------------------------------------------------------------- the audit

@pytest.fixture(scope="module")
def synced(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, ClaudeHome, Any]:
    base = tmp_path_factory.mktemp("claude-e2e")
    h = make_claude_home(base / USER)
    write_config(base, base / USER, ["claude-code"])
    out, p = cli_json(base, "sync", ok=False)
    return base, h, (out, p)


def test_claude_home_archived_whole_and_private_data_gone(synced: tuple[Path, ClaudeHome, Any]) -> None:
    base, h, (out, p) = synced
    assert out["sessions"]["failed"] == 0, (out, p.stderr[-3000:])
    read = read_store(base)
    found = leaks(read, h.canaries.all_private())
    assert not found, "\n".join(found[:30])
    missing = missing_markers(read, h.canaries, [h.home], lambda w: True)
    assert not missing, missing


def test_claude_sessions_sidecars_and_lineage(synced: tuple[Path, ClaudeHome, Any]) -> None:
    base, h, _ = synced
    sessions = {s["key"]: s for s in read_store(base).latest()["sessions"]}
    assert set(sessions) == {f"claude-code:{sid}" for sid in h.sessions} | {"claude-code:@host"}
    for sid, files in h.sessions.items():
        names = sorted(a["path"].rsplit("/", 1)[1] for a in sessions[f"claude-code:{sid}"]["artifacts"])
        assert names == sorted(f.name for f in files), sid
    host = sorted(a["path"].rsplit("/", 1)[1] for a in sessions["claude-code:@host"]["artifacts"])
    assert host == sorted(f.name for f in h.host_files)
    for sid, rels in h.parents.items():
        got = [(e["relation"], e["parent"]) for e in sessions[f"claude-code:{sid}"]["parents"]]
        assert got == [(r, f"claude-code:{p}") for r, p in rels], (sid, got)
    assert sessions[f"claude-code:{FORK}"]["parents"][0]["at"] == h.__dict__["fork_at"]
    assert sessions[f"claude-code:{AGENT}"]["parents"][0]["at"] == "toolu_agent1"
    assert sessions[f"claude-code:{NESTED}"]["parents"][0]["at"] == "toolu_nested"


def _restore(base: Path, target: Path, *keys: str) -> dict[str, Any]:
    args = ["restore", *(keys or ["--all"]), "--to", str(target), "--identity", str(base / "keys" / "identity.txt")]
    res, p = cli_json(base, *args, ok=False)
    assert p.returncode == 0, (p.stdout[-3000:], p.stderr[-3000:])
    return res


def _check_restored_claude(target: Path, h: ClaudeHome, sids: list[str]) -> dict[str, bytes]:
    files = tree_bytes(target)
    for rel, data in files.items():
        for priv in h.canaries.all_private():
            assert priv.lower().encode() not in data.lower(), (rel, priv)
        assert USER not in rel
    for sid in sids:
        for f in h.sessions[sid]:
            rel = f.relative_to(h.home).as_posix()
            if "/projects/" in rel:
                # Claude Code finds a transcript under the project folder its cwd names
                folder = rel.split("/")[2]
                cands = [k for k in files if k.endswith("/" + rel.split("/", 3)[3])]
                assert len(cands) == 1, (rel, sorted(files))
                got = cands[0]
                head = json.loads(files[got].split(b"\n", 1)[0]) if got.endswith(".jsonl") else None
                assert folder.startswith("-home-") and got.split("/")[2] != folder
                cwd = next((json.loads(x).get("cwd") for x in files[got].split(b"\n") if x.strip().startswith(b"{")
                            and b'"cwd"' in x), None) if head is not None else None
                if cwd:
                    assert got.split("/")[2] == project_key(cwd), (got, cwd)
            else:
                assert rel in files, (rel, sorted(files))
    return files


def test_claude_restore_all_into_another_home(synced: tuple[Path, ClaudeHome, Any]) -> None:
    base, h, _ = synced
    target = base / "bob-all"
    _restore(base, target)
    files = _check_restored_claude(target, h, list(h.sessions))
    assert ".claude/history.jsonl" in files and ".claude/paste-cache/deadbeefcafe.txt" in files


def test_claude_restore_one_family_into_another_home(synced: tuple[Path, ClaudeHome, Any]) -> None:
    base, h, _ = synced
    target = base / "bob-family"
    _restore(base, target, f"claude-code:{NESTED}", "--with-family")
    _check_restored_claude(target, h, [MAIN, AGENT, NESTED, FORKED_AGENT, FORK, NEXT])


def test_claude_cut_short_meta_json_fails_nothing_and_lineage_holds(tmp_path: Path) -> None:
    """A subagent's .meta.json cut short (a crash while Claude Code wrote it): the session is
    archived, the warning names the file and says it is not valid JSON (not "no toolUseId"), and
    the spawning tool_use is still found from the parent's side (toolUseResult.agentId), so the
    lineage is what the seed says. A nested agent's broken meta finds its spawner in the parent
    subagent's transcript."""
    h = make_claude_home(tmp_path / USER)
    sub = h.sessions[MAIN][0].parent / MAIN / "subagents"
    for meta in (sub / f"agent-{AGENT}.meta.json", sub / "workflows" / "wf-1" / f"agent-{NESTED}.meta.json"):
        meta.write_bytes(meta.read_bytes()[:40])
    # the nested agent's result line, in the spawning subagent's transcript
    t = sub / f"agent-{AGENT}.jsonl"
    with t.open("ab") as f:
        f.write(jl({"parentUuid": uid(2990), "isSidechain": True, "agentId": AGENT, "type": "user", "uuid": uid(2991),
                    "sessionId": MAIN, "timestamp": "2026-10-20T10:00:02.000Z", "toolUseResult": {"agentId": NESTED},
                    "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_nested",
                                                             "content": "done"}]}}))
    write_config(tmp_path, tmp_path / USER, ["claude-code"])
    out, _ = cli_json(tmp_path, "sync")
    assert out["sessions"]["failed"] == 0
    sessions = {s["key"]: s for s in read_store(tmp_path).latest()["sessions"]}
    for agent, parent, at in ((AGENT, MAIN, "toolu_agent1"), (NESTED, AGENT, "toolu_nested")):
        s = sessions[f"claude-code:{agent}"]
        assert [(e["relation"], e["parent"], e["at"]) for e in s["parents"]] == [
            ("subagent", f"claude-code:{parent}", at)], s["parents"]
        assert any(w.startswith(f"agent-{agent}.meta.json: not valid JSON") for w in s["warnings"]), s["warnings"]
    assert len(sessions) == len(h.sessions) + 1
