"""Session 31, collector gaps against the seeds, each through the real pipeline (the CLI in process
on a file:// store, tests/fx_home.py): discovery -> sync -> ls / restore.

- pi (seed linking "forks"; layout: custom flat session dirs): a fork's header.parentSession names
  the parent's file where every restore put it, not only a relocated one (as fullOutputPath).
- Cursor agent (seed linking "forks": /fork copies every blob, sets the same latestRootBlobId and
  names the copy '<name> (forked)'): a fork with no turns of its own is still a fork, also when its
  source's roots keep only the model context (root_prompt_messages_json, no turns) or when the
  source had no conversation root at all.
- sync without --json names the sessions the collectors warned about, tersely, on stderr.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
from pathlib import Path
from typing import Any

import pytest

from archiver.cli import main
from archiver.demo.cursor_sample import Store, _meta, fid, fs, jb
from tests.fx_home import USER, Box, _line, box  # noqa: F401

CWD = f"/home/{USER}/app"
T0 = 1767323040000


def _pi_folder(cwd: str) -> str:
    return "--" + cwd[1:].replace("/", "-") + "--"


def _header(path: Path) -> dict[str, Any]:
    with path.open("rb") as f:
        return json.loads(f.readline())


# ---------------------------------------------------------------- pi: parentSession on every restore

PI_MAIN = "0b0e5f4e-aaaa-4bbb-8ccc-00000000000a"
PI_FORK = "0b0e5f4e-aaaa-4bbb-8ccc-00000000000b"


def _pi_entry(eid: str, parent: str | None, s: int, text: str) -> dict[str, Any]:
    return {"type": "message", "id": eid, "parentId": parent, "timestamp": f"2026-01-02T03:04:{s:02d}.000Z",
            "message": {"role": "user", "content": text, "timestamp": T0 + s * 1000}}


def _pi_pair(folder: Path) -> tuple[Path, Path]:
    """A session and its /fork (root->leaf path copied, ids kept, then its own entry) in `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    path = [_pi_entry("a0000001", None, 1, "first"), _pi_entry("a0000002", "a0000001", 2, "second")]
    main_file = folder / f"2026-01-02T03-04-00-000Z_{PI_MAIN}.jsonl"
    main_file.write_text("".join(_line(r) for r in [
        {"type": "session", "version": 3, "id": PI_MAIN, "timestamp": "2026-01-02T03:04:00.000Z", "cwd": CWD},
        *path]))
    fork_file = folder / f"2026-01-02T03-05-00-000Z_{PI_FORK}.jsonl"
    fork_file.write_text("".join(_line(r) for r in [
        {"type": "session", "version": 3, "id": PI_FORK, "timestamp": "2026-01-02T03:05:00.000Z", "cwd": CWD,
         "parentSession": str(main_file)},
        *path, _pi_entry("f0000001", "a0000002", 9, "the fork's own")]))
    return main_file, fork_file


def _pi_restore_checks(box: Box, to: Path) -> None:
    out = box.cli("restore", "--all", "--to", str(to))
    assert out["refused"] == [] and out["integrity_errors"] == [], out
    [main_rel] = [f for f in out["files"] if f.endswith(f"_{PI_MAIN}.jsonl")]
    [fork_rel] = [f for f in out["files"] if f.endswith(f"_{PI_FORK}.jsonl")]
    ref = _header(to / fork_rel)["parentSession"]
    assert ref == str(to.resolve() / main_rel), (ref, main_rel)  # the restored parent, by absolute path
    assert _header(Path(ref))["id"] == PI_MAIN
    # only the value changed: the rest is the archived bytes
    session = box.ls()[f"pi:{PI_FORK}"]
    [sha] = [a["sha256"] for a in session["artifacts"] if a["role"] == "transcript"]
    data = (to / fork_rel).read_bytes()
    assert hashlib.sha256(data).hexdigest() != sha
    first, rest = data.split(b"\n", 1)
    head = json.loads(first)
    assert list(head) == ["type", "version", "id", "timestamp", "cwd", "parentSession"]
    assert rest == b"".join(_line(r).encode() for r in [
        _pi_entry("a0000001", None, 1, "first"), _pi_entry("a0000002", "a0000001", 2, "second"),
        _pi_entry("f0000001", "a0000002", 9, "the fork's own")])


def test_pi_fork_names_its_restored_parent_on_a_plain_restore(box: Box) -> None:
    box.only("pi")
    _pi_pair(box.home / ".pi" / "agent" / "sessions" / _pi_folder(CWD))
    assert box.sync()["errors"] == []
    edges = box.ls()[f"pi:{PI_FORK}"]["parents"]
    assert [(e["relation"], e["parent"], e["at"]) for e in edges] == [("fork", f"pi:{PI_MAIN}", "a0000002")]
    _pi_restore_checks(box, box.base / "review")


def test_pi_fork_in_a_flat_session_dir_names_its_parent_where_the_restore_put_it(
        box: Box, monkeypatch: pytest.MonkeyPatch) -> None:
    """A custom session dir (PI_CODING_AGENT_SESSION_DIR) is archived in the default layout: the
    path the fork's header names (the flat dir) is where no restore puts the parent."""
    box.only("pi")
    flat = box.base / "pi-flat"
    monkeypatch.setenv("PI_CODING_AGENT_SESSION_DIR", str(flat))
    _pi_pair(flat)
    assert box.sync()["errors"] == []
    to = box.base / "review"
    _pi_restore_checks(box, to)
    assert str(flat) not in _header(next(to.rglob(f"*_{PI_FORK}.jsonl")))["parentSession"]


def test_pi_fork_restored_alone_names_where_its_parent_goes(box: Box) -> None:
    box.only("pi")
    _pi_pair(box.home / ".pi" / "agent" / "sessions" / _pi_folder(CWD))
    box.sync()
    to = box.base / "review"
    out = box.cli("restore", f"pi:{PI_FORK}", "--to", str(to))
    [fork_rel] = out["files"]
    ref = Path(_header(to / fork_rel)["parentSession"])
    assert ref.parent == (to / fork_rel).resolve().parent and not ref.exists()
    box.cli("restore", f"pi:{PI_MAIN}", "--to", str(to))
    assert _header(ref)["id"] == PI_MAIN


# ---------------------------------------------------------------- Cursor: forks without turns of their own

C_MAIN = "c0000000-0000-4000-8000-00000000000a"
C_FORK = "c0000000-0000-4000-8000-00000000000b"
C_OTHER = "c0000000-0000-4000-8000-00000000000c"
C_EMPTY = "c0000000-0000-4000-8000-00000000000d"
C_EMPTY_FORK = "c0000000-0000-4000-8000-00000000000e"


def _chat(box: Box, chat_id: str, name: str, created: int, blobs: list[bytes], root: str,
          copy_of: Store | None = None) -> Store:
    md5 = hashlib.md5(CWD.encode()).hexdigest()
    st = Store(box.home / ".cursor" / "chats" / md5 / chat_id / "store.db")
    if copy_of is not None:  # /fork: every blob
        for i, data in copy_of.conn.execute("SELECT id, data FROM blobs").fetchall():
            st.conn.execute("INSERT INTO blobs (id, data) VALUES (?, ?)", (i, data))
    for b in blobs:
        st.put(b)
    st.set_meta(_meta(chat_id, root, name, created))
    (st.path.parent / "meta.json").write_text(json.dumps(
        {"schemaVersion": 1, "createdAtMs": created, "hasConversation": bool(root), "title": name, "cwd": CWD}))
    return st


def _cursor_home(box: Box) -> dict[str, str]:
    sys_msg = jb({"role": "system", "content": "You are an AI coding assistant."})
    query = jb({"role": "user", "content": [{"type": "text", "text": "<user_query>\nrename the module\n</user_query>"}]})
    answer = jb({"role": "assistant", "id": "1", "content": [{"type": "text", "text": "Renamed."}]})
    sid, qid, aid = (hashlib.sha256(b).hexdigest() for b in (sys_msg, query, answer))
    # a root that keeps only the model context (field 1), no UI turns (field 8)
    root_bytes = fid(1, sid) + fid(1, qid) + fid(1, aid) + fs(22, "agent")
    root = hashlib.sha256(root_bytes).hexdigest()
    main_store = _chat(box, C_MAIN, "Rename", T0, [sys_msg, query, answer, root_bytes], root)
    # /fork right away: the same latest root, nothing of its own
    _chat(box, C_FORK, "Rename (forked)", T0 + 60_000, [], root, copy_of=main_store).close()
    # the turn-less first checkpoint, same bytes in every chat; an unrelated chat holds it too
    first = fs(22, "agent")
    first_id = hashlib.sha256(first).hexdigest()
    _chat(box, C_OTHER, "Unrelated", T0 + 1_000, [first], first_id).close()
    empty = _chat(box, C_EMPTY, "New Agent", T0 + 2_000, [first], first_id)
    _chat(box, C_EMPTY_FORK, "New Agent (forked)", T0 + 90_000, [], first_id, copy_of=empty).close()
    empty.close()
    main_store.close()
    return {"root": root, "first": first_id}


def test_cursor_forks_without_turns_of_their_own_are_forks(box: Box) -> None:
    box.only("cursor-agent")
    roots = _cursor_home(box)
    sync = box.sync()
    assert sync["errors"] == [] and sync["sessions"]["failed"] == 0, sync
    ls = box.ls()
    k = "cursor-agent:"
    kinds = {key: s["kind"] for key, s in ls.items()}
    assert kinds == {k + C_MAIN: "main", k + C_FORK: "fork", k + C_OTHER: "main", k + C_EMPTY: "main",
                     k + C_EMPTY_FORK: "fork"}, kinds
    edge = lambda key: [(e["relation"], e["parent"], e["inferred"]) for e in ls[k + key]["parents"]]  # noqa: E731
    assert edge(C_FORK) == [("fork", k + C_MAIN, True)]
    # only the name tells which chat with the shared first checkpoint it came from
    assert edge(C_EMPTY_FORK) == [("fork", k + C_EMPTY, True)]
    assert edge(C_MAIN) == edge(C_OTHER) == edge(C_EMPTY) == []
    assert any("inferred from its name" in w for w in ls[k + C_EMPTY_FORK]["warnings"])
    # the fork point is the shared root (discovery's value; the archive keeps it as the lineage `at`)
    from archiver.harnesses.base import HarnessContext
    from archiver.harnesses.cursor_agent import CursorAgent

    found = {s.key: s for s in CursorAgent(HarnessContext(home=box.home, env={})).discover()}
    assert [e.at for e in found[k + C_FORK].parents] == [roots["root"]]
    assert [e.at for e in found[k + C_EMPTY_FORK].parents] == [roots["first"]]
    lineage = box.cli("lineage", k + C_FORK)
    assert k + C_MAIN in json.dumps(lineage)


def test_cursor_unrelated_chats_sharing_a_turn_less_root_are_no_forks(box: Box) -> None:
    """Two '<name> (forked)' candidates: none is guessed."""
    box.only("cursor-agent")
    first = fs(22, "agent")
    first_id = hashlib.sha256(first).hexdigest()
    for i, cid in enumerate((C_MAIN, C_OTHER)):
        _chat(box, cid, "New Agent", T0 + i, [first], first_id).close()
    _chat(box, C_FORK, "New Agent (forked)", T0 + 60_000, [first], first_id).close()
    box.sync()
    ls = box.ls()
    assert {key: s["kind"] for key, s in ls.items()} == {f"cursor-agent:{c}": "main" for c in (C_MAIN, C_OTHER, C_FORK)}
    assert any("none linked" in w for w in ls[f"cursor-agent:{C_FORK}"]["warnings"])


# ---------------------------------------------------------------- sync: session warnings on a plain run

def _plain_sync(box: Box, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    capsys.readouterr()
    with contextlib.redirect_stdout(io.StringIO()):
        code = main(["sync", "--config", str(box.config), "--workers", "1"])
    return code, capsys.readouterr().err


def test_plain_sync_names_the_sessions_collectors_warned_about(box: Box, capsys: pytest.CaptureFixture[str]) -> None:
    box.only("pi")
    folder = box.home / ".pi" / "agent" / "sessions" / _pi_folder(CWD)
    main_file, _ = _pi_pair(folder)
    # a corrupt complete line and a gone temp output file: two warnings on one session
    with main_file.open("a") as f:
        f.write('{"type":"message","id":"a0000003",\n')
        f.write(_line({"type": "message", "id": "a0000004", "parentId": "a0000002",
                       "timestamp": "2026-01-02T03:04:30.000Z",
                       "message": {"role": "bashExecution", "command": "ls", "output": "", "exitCode": 0,
                                   "cancelled": False, "truncated": True,
                                   "fullOutputPath": "/tmp/pi-bash-00000000deadbeef.log"}}))
    code, err = _plain_sync(box, capsys)
    assert code == 0
    lines = [ln for ln in err.splitlines() if f"pi:{PI_MAIN}" in ln]
    assert len(lines) == 1, err
    assert lines[0].startswith(f"archiver: warning: pi:{PI_MAIN}: ") and lines[0].endswith(" (+1 more)"), lines
    assert "session_warnings" in err  # where the rest is
    assert f"pi:{PI_FORK}" not in err  # a session without warnings is not named
    # a run that finds nothing changed archives nothing: it has nothing new to say
    code, again = _plain_sync(box, capsys)
    assert code == 0 and f"pi:{PI_MAIN}" not in again


def test_plain_sync_caps_the_sessions_it_names(box: Box, capsys: pytest.CaptureFixture[str]) -> None:
    box.only("pi")
    folder = box.home / ".pi" / "agent" / "sessions" / _pi_folder(CWD)
    folder.mkdir(parents=True)
    files = []
    for i in range(12):
        sid = f"0b0e5f4e-aaaa-4bbb-8ccc-1000000000{i:02d}"
        files.append(folder / f"2026-01-02T03-04-00-000Z_{sid}.jsonl")
        files[-1].write_text(
            _line({"type": "session", "version": 3, "id": sid, "timestamp": "2026-01-02T03:04:00.000Z", "cwd": CWD})
            + "not json\n")
    # the first plain run archives all 12: it names 10 and counts the rest
    code, err = _plain_sync(box, capsys)
    assert code == 0
    named = [ln for ln in err.splitlines() if ln.startswith("archiver: warning: pi:")]
    assert len(named) == 10, err
    assert all(ln.endswith(": 1 unparseable line(s) kept as they are (line 2)") for ln in named), named
    assert "archiver: warning: 2 more session(s) with warnings" in err.splitlines()
    # --json is unchanged: every session's warnings in the document, none of them on stderr
    with files[-1].open("a") as out:
        out.write(_line(_pi_entry("a0000001", None, 1, "more")))
    doc = box.sync()
    assert len(doc["session_warnings"]) == 12
    assert "warning: pi:" not in capsys.readouterr().err
    # (s32) the last session (by key) changes again: the run archives it anew and names it; the
    # other 11, carried into its manifest with the warnings an earlier run printed, are counted
    with files[-1].open("a") as out:
        out.write(_line(_pi_entry("a0000002", "a0000001", 2, "again")))
    code, err = _plain_sync(box, capsys)
    assert code == 0
    named = [ln for ln in err.splitlines() if ln.startswith("archiver: warning: pi:")]
    assert len(named) == 1 and named[0].startswith("archiver: warning: pi:0b0e5f4e-aaaa-4bbb-8ccc-100000000011: ") \
        and named[0].endswith(": 1 unparseable line(s) kept as they are (line 2)"), err
    assert "archiver: 11 unchanged session(s) keep warnings from earlier runs" in err.splitlines(), err
    assert "more session(s) with warnings" not in err


# ---------------------------------------------------------------- Codex: the parent's spawn record names a child

CX_ROOT = "0199aaaa-0000-7000-8000-000000000001"
CX_CHILD = "0199aaaa-0000-7000-8000-000000000002"
CX_GRAND = "0199aaaa-0000-7000-8000-000000000003"


def _rollout(d: Path, tid: str, stamp: str, meta: dict[str, Any], *spawns: tuple[str, str]) -> None:
    payload = {"id": tid, "timestamp": "2026-01-02T03:04:05.600Z", "cwd": "/srv/app", "originator": "codex_cli_rs",
               "cli_version": "0.164.0", "model_provider": "openai", "session_id": CX_ROOT, **meta}
    recs: list[dict[str, Any]] = [
        {"timestamp": "2026-01-02T03:04:05.678Z", "type": "session_meta", "payload": payload},
        {"timestamp": "2026-01-02T03:04:06.000Z", "type": "response_item",
         "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go"}]}}]
    for call_id, child in spawns:  # seed record event_msg / item_completed / CollabAgentToolCall
        recs.append({"timestamp": "2026-01-02T03:04:07.000Z", "type": "event_msg", "payload": {
            "type": "item_completed", "thread_id": tid, "turn_id": "t1",
            "item": {"type": "CollabAgentToolCall", "id": call_id, "tool": "spawn_agent", "status": "completed",
                     "sender_thread_id": tid, "receiver_thread_ids": [child], "receiver_agents": [],
                     "agents_states": {}},
            "started_at_ms": T0, "completed_at_ms": T0 + 1000}})
    (d / f"rollout-2026-01-02T{stamp}-{tid}.jsonl").write_text("".join(_line(r) for r in recs))


def test_codex_subagent_named_only_by_its_parents_spawn_record(box: Box) -> None:
    """A sub-agent whose session_meta names no parent ({"subagent": "review"}, an older build) and
    no state_5.sqlite: its parent is the thread whose CollabAgentToolCall spawn_agent names it
    (seed linking "subagents"), not the tree's root (session_id)."""
    box.only("codex")
    d = box.home / ".codex" / "sessions" / "2026" / "01" / "02"
    d.mkdir(parents=True)
    _rollout(d, CX_ROOT, "03-04-05", {}, ("call_spawn_child", CX_CHILD))
    _rollout(d, CX_CHILD, "03-04-06", {"parent_thread_id": CX_ROOT, "source": {"subagent": {"thread_spawn": {
        "parent_thread_id": CX_ROOT, "depth": 1}}}}, ("call_spawn_grand", CX_GRAND))
    _rollout(d, CX_GRAND, "03-04-07", {"source": {"subagent": "review"}})
    sync = box.sync()
    assert sync["errors"] == [] and sync["sessions"]["failed"] == 0, sync
    ls = box.ls()
    edges = {k: [(e["relation"], e["parent"], e["at"], e["inferred"]) for e in s["parents"]] for k, s in ls.items()}
    assert edges[f"codex:{CX_GRAND}"] == [("subagent", f"codex:{CX_CHILD}", "call_spawn_grand", False)]
    assert edges[f"codex:{CX_CHILD}"] == [("subagent", f"codex:{CX_ROOT}", "depth=1", False)]  # its meta wins
    assert edges[f"codex:{CX_ROOT}"] == []
    assert ls[f"codex:{CX_GRAND}"]["kind"] == "subagent"
