"""s19: homes holding sessions written by OLDER releases of each harness, next to current ones.

No tests here. Each `build_<harness>(home, can)` writes the shapes the seed's `versioning`
section (and its gotchas and records) says older writers produced, from the seed text alone:
- pi (seeds/by-harness/pi.json): header version absent (=1: linear entries, no id/parentId,
  compaction.firstKeptEntryIndex, cwd missing on very old files), 2 (id/parentId tree, message
  role `hookMessage`), 3 (current, role `custom`); forks by header.parentSession in v2 and v3.
- codex: legacy rollouts (no history_mode, no ordinals, no session_id, event_msg
  user_message/agent_message, turn_started/turn_complete aliases, compaction_summary,
  ghost_snapshot, compacted.window_id integer, dropped turn_context fields, subagent spawn with
  agent_type, a legacy fork carrying its parent's copied records and session_meta line) beside a
  paginated one (ordinals, history_mode) with a paginated fork (history_base).
- claude-code: 1.0.x (legacy summary, progress records, subagent as projects/<key>/agent-<id>.jsonl,
  sessions-index.json), 2.1.305 (api-request/-blob/-shape, requestRef), a 2.1.310 continuation.
- opencode: a 1.x install's opencode.db (session/message/part/todo) and a pre-split 2.x
  opencode-next.db (`session` table, pre-2.1 row keys).
- cursor-agent: a chat of an older build (no meta.json, mode auto-run, root field 2, flat mirror).
Each builder's doc says more. DeepSeek has no older shape in its catalog beyond "absence
identifies version 0" of a log event, so it has no builder here.

Every builder returns `facts`: {"sessions": {key: {"kind", "title", "cwd", "edges": [[relation,
parent key, at]], "files": [native path relative to HOME], "clean": [files with nothing to
redact: restored byte-identical]}}}; every planted value is a Canaries needle.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.fx_s11_e2e import Canaries


def jl(*recs: Any) -> bytes:
    """JSONL as the JS and Rust writers emit it: compact, UTF-8, one record a line."""
    return b"".join(json.dumps(r, ensure_ascii=False, separators=(",", ":")).encode() + b"\n" for r in recs)


def _fact(kind: str = "main", title: str | None = None, cwd: str | None = None,
          edges: list[list[Any]] | None = None, files: list[str] | None = None,
          clean: list[str] | None = None) -> dict[str, Any]:
    return {"kind": kind, "title": title, "cwd": cwd, "edges": edges or [], "files": files or [],
            "clean": clean or []}


# ------------------------------------------------------------------------------------------ pi

PI_V1 = "0a1b2c3d-0001-4000-8000-0000000001aa"
PI_V1_FORK = "0a1b2c3d-0001-4000-8000-0000000001fb"
PI_V1_NOCWD = "0a1b2c3d-0001-4000-8000-0000000001cc"
PI_V1_CLEAN = "0a1b2c3d-0001-4000-8000-0000000001dd"  # nothing to redact: restored byte for byte
PI_V2 = "0a1b2c3d-0002-4000-8000-0000000002aa"
PI_V2_FORK = "0a1b2c3d-0002-4000-8000-0000000002fb"
PI_V3 = "01890a5d-ac96-774b-bcce-b302099a0003"
PI_V3_FORK = "01890a5d-ac96-774b-bcce-b302099a03fb"


def pi_folder(cwd: str) -> str:
    return "--" + cwd.lstrip("/").replace("/", "-").replace("\\", "-").replace(":", "-") + "--"


def pi_iso(n: int) -> str:
    return f"2025-0{1 + n // 20}-{1 + n % 20:02d}T10:00:0{n % 10}.000Z"


def pi_name(ts: str, sid: str) -> str:
    return f"{ts.replace(':', '-').replace('.', '-')}_{sid}.jsonl"


class Plain:
    """Stands in for Canaries where a session must hold nothing to redact."""

    @staticmethod
    def c(tag: str) -> str:
        return f"plain text of {tag}"


def pi_v1_entries(can: Canaries | Plain, tag: str) -> list[dict[str, Any]]:
    """A version-1 body: linear entries without id/parentId; compaction by firstKeptEntryIndex."""
    ts = "2025-01-01T10:00:01.000Z"
    return [
        {"type": "message", "timestamp": ts, "message": {"role": "user", "content": can.c(f"{tag}.user"),
                                                         "timestamp": 1735725601000}},
        {"type": "message", "timestamp": ts, "message": {
            "role": "assistant", "content": [{"type": "text", "text": can.c(f"{tag}.asst")},
                                             {"type": "toolCall", "id": "toolu_v1a", "name": "bash",
                                              "arguments": {"command": can.c(f"{tag}.cmd")}}],
            "api": "anthropic-messages", "provider": "anthropic", "model": "m-1", "stopReason": "toolUse",
            "usage": {"input": 1, "output": 2, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 3,
                      "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
            "timestamp": 1735725602000}},
        {"type": "message", "timestamp": ts, "message": {
            "role": "toolResult", "toolCallId": "toolu_v1a", "toolName": "bash",
            "content": [{"type": "text", "text": can.c(f"{tag}.out")}], "isError": False,
            "timestamp": 1735725603000}},
        {"type": "thinking_level_change", "timestamp": ts, "thinkingLevel": "high"},
        {"type": "model_change", "timestamp": ts, "provider": "anthropic", "modelId": "m-2"},
        {"type": "compaction", "timestamp": ts, "summary": can.c(f"{tag}.summary"), "firstKeptEntryIndex": 2,
         "tokensBefore": 1234},
        {"type": "message", "timestamp": ts, "message": {"role": "user", "content": [
            {"type": "text", "text": can.c(f"{tag}.user2")}], "timestamp": 1735725604000}},
    ]


def pi_tree(entries: list[dict[str, Any]], prefix: str) -> list[dict[str, Any]]:
    """The entries as a version 2+ tree: 8-hex ids, parentId chained in file order."""
    out, prev = [], None
    for i, e in enumerate(entries):
        eid = f"{prefix}{i:02x}"[-8:]
        out.append({"type": e["type"], "id": eid, "parentId": prev,
                    **{k: v for k, v in e.items() if k != "type"}})
        prev = eid
    return out


def pi_v2_entries(can: Canaries, tag: str, prefix: str, title: str) -> list[dict[str, Any]]:
    """A version-2 body: the tree, a hookMessage (renamed custom in v3), a label, session_info."""
    body = pi_tree(pi_v1_entries(can, tag), prefix)
    for e in body:
        if e["type"] == "compaction":
            e.pop("firstKeptEntryIndex")
            e["firstKeptEntryId"] = body[2]["id"]
    extra = pi_tree([
        {"type": "message", "timestamp": "2025-02-01T10:00:00.000Z", "message": {
            "role": "hookMessage", "customType": "my-hook", "content": can.c(f"{tag}.hook"), "display": True,
            "details": {"note": can.c(f"{tag}.hookdetails")}, "timestamp": 1738404000000}},
        {"type": "label", "timestamp": "2025-02-01T10:00:01.000Z", "targetId": body[0]["id"], "label": "chk"},
        {"type": "session_info", "timestamp": "2025-02-01T10:00:02.000Z", "name": title},
    ], prefix[:4] + "e0")
    extra[0]["parentId"] = body[-1]["id"]
    for a, b in zip(extra, extra[1:]):
        b["parentId"] = a["id"]
    return body + extra


def build_pi(home: Path, can: Canaries) -> dict[str, Any]:
    """v1 (with a v1 fork and a v1 header without cwd), v2 with a v2 fork (ids copied), v3 with a
    v3 fork; all in one sessions dir."""
    root = home / ".pi" / "agent" / "sessions"
    facts: dict[str, Any] = {}
    cwd = can.path("pi.cwd")

    def put(sid: str, n: int, header: dict[str, Any], body: list[dict[str, Any]], cwd_: str | None,
            kind: str = "main", title: str | None = None, edges: list[list[Any]] | None = None) -> Path:
        folder = pi_folder(cwd_ if cwd_ is not None else cwd)
        (root / folder).mkdir(parents=True, exist_ok=True)
        ts = pi_iso(n)
        f = root / folder / pi_name(ts, sid)
        f.write_bytes(jl({"type": "session", **header, "id": sid, "timestamp": ts,
                          **({"cwd": cwd_} if cwd_ is not None else {})}, *body))
        facts[f"pi:{sid}"] = _fact(kind, title, cwd_, edges, [f.relative_to(home).as_posix()])
        return f

    v1 = put(PI_V1, 1, {}, pi_v1_entries(can, "pi1"), cwd)
    # a fork written by a v1 build: the copied linear entries, no ids, so no fork point
    put(PI_V1_FORK, 2, {"parentSession": str(v1)}, pi_v1_entries(can, "pi1f"), cwd, "fork",
        edges=[["fork", f"pi:{PI_V1}", None]])
    put(PI_V1_NOCWD, 3, {}, pi_v1_entries(can, "pi1n"), None)
    clean = put(PI_V1_CLEAN, 8, {}, pi_v1_entries(Plain(), "pi1c"), "/srv/app")
    facts[f"pi:{PI_V1_CLEAN}"]["clean"] = [clean.relative_to(home).as_posix()]
    v2_body = pi_v2_entries(can, "pi2", "a2b2c2", "Version two")
    v2 = put(PI_V2, 4, {"version": 2}, v2_body, cwd, title="Version two")
    copied = [e for e in v2_body if e["type"] != "label"][:5]
    fork_body = copied + pi_tree([{"type": "message", "timestamp": "2025-02-02T10:00:00.000Z", "message": {
        "role": "user", "content": can.c("pi2f.user"), "timestamp": 1738490400000}}], "f2f2f2")
    fork_body[-1]["parentId"] = copied[-1]["id"]
    put(PI_V2_FORK, 5, {"version": 2, "parentSession": str(v2)}, fork_body, cwd, "fork",
        edges=[["fork", f"pi:{PI_V2}", copied[-1]["id"]]])
    v3_body = pi_v2_entries(can, "pi3", "a3b3c3", "Version three")
    for e in v3_body:
        if e.get("message", {}).get("role") == "hookMessage":
            e["message"]["role"] = "custom"
    v3 = put(PI_V3, 6, {"version": 3}, v3_body, cwd, title="Version three")
    put(PI_V3_FORK, 7, {"version": 3, "parentSession": str(v3)}, v3_body[:3], cwd, "fork",
        edges=[["fork", f"pi:{PI_V3}", v3_body[2]["id"]]])
    return {"sessions": facts}


def pi_migrate_v1(f: Path) -> bytes:
    """What a current pi does to a version-1 file it opens: the same entries as a version-3 tree
    (ids assigned, compaction.firstKeptEntryIndex -> firstKeptEntryId), rewritten in place."""
    lines = [json.loads(x) for x in f.read_bytes().splitlines()]
    header = {**lines[0], "version": 3}
    body = pi_tree(lines[1:], "9c9c9c")
    for e in body:
        if "firstKeptEntryIndex" in e:
            e["firstKeptEntryId"] = body[e.pop("firstKeptEntryIndex")]["id"]
    data = jl(header, *body)
    f.write_bytes(data)
    return data


# --------------------------------------------------------------------------------------- codex

CX_LEGACY = "0198aaaa-0000-7000-8000-00000000a001"
CX_LEGACY_SUB = "0198aaaa-0000-7000-8000-00000000a002"
CX_LEGACY_FORK = "0198aaaa-0000-7000-8000-00000000a003"
CX_LEGACY_ZST = "0198aaaa-0000-7000-8000-00000000a004"
CX_LEGACY_CLEAN = "0198aaaa-0000-7000-8000-00000000a005"
CX_PAGED = "0199aaaa-0000-7000-8000-00000000b001"
CX_PAGED_FORK = "0199aaaa-0000-7000-8000-00000000b002"


def cx_legacy_body(can: Canaries | Plain, tag: str) -> list[dict[str, Any]]:
    """A legacy rollout after its session_meta: no ordinals, no turn ids on response items,
    aliases and items that current Codex only reads (seed versioning)."""
    t = "2025-03-01T10:00:01.000Z"

    def ev(payload: dict[str, Any]) -> dict[str, Any]:
        return {"timestamp": t, "type": "event_msg", "payload": payload}

    def item(payload: dict[str, Any]) -> dict[str, Any]:
        return {"timestamp": t, "type": "response_item", "payload": payload}

    return [
        {"timestamp": t, "type": "turn_context", "payload": {
            "cwd": "/srv/app", "approval_policy": "on-failure", "sandbox_policy": {"type": "read-only"},
            "model": "gpt-5", "summary": "auto", "user_instructions": can.c(f"{tag}.userinstr"),
            "personality": "friendly", "current_date": "2025-03-01", "timezone": "Europe/Berlin",
            "workspace_roots": ["/srv/app"]}},
        ev({"type": "turn_started", "turn_id": "turn-1", "model_context_window": 200000}),
        item({"type": "message", "role": "user", "content": [{"type": "input_text", "text": can.c(f"{tag}.user")}]}),
        ev({"type": "user_message", "message": can.c(f"{tag}.usermsg"), "images": []}),
        item({"type": "ghost_snapshot", "ghost_commit": {"id": "1f2e3d4c5b6a79881f2e3d4c5b6a79881f2e3d4c",
                                                         "parent": None, "preexisting_untracked_files": [],
                                                         "preexisting_untracked_dirs": []}}),
        item({"type": "function_call", "name": "shell", "call_id": "call_legacy1",
              "arguments": json.dumps({"command": ["bash", "-lc", can.c(f"{tag}.cmd")]})}),
        item({"type": "function_call_output", "call_id": "call_legacy1", "output": can.c(f"{tag}.out")}),
        item({"type": "message", "role": "assistant", "content": [{"type": "output_text",
                                                                   "text": can.c(f"{tag}.asst")}]}),
        ev({"type": "agent_message", "message": can.c(f"{tag}.agentmsg")}),
        ev({"type": "agent_reasoning", "text": can.c(f"{tag}.reason")}),
        item({"type": "compaction_summary", "encrypted_content": "gAAAAABlegacyopaque=="}),
        {"timestamp": t, "type": "compacted", "payload": {"message": can.c(f"{tag}.compact"), "window_id": 2}},
        ev({"type": "context_compacted"}),
        ev({"type": "turn_complete", "turn_id": "turn-1", "last_agent_message": can.c(f"{tag}.last")}),
    ]


def cx_meta(tid: str, cwd: str, ts: str, **kw: Any) -> dict[str, Any]:
    return {"timestamp": ts, "type": "session_meta", "payload": {
        "id": tid, "timestamp": ts, "cwd": cwd, "originator": "codex_cli_rs", "cli_version": "0.41.0",
        "instructions": None, "model_provider": "openai", **kw}}


def build_codex(home: Path, can: Canaries) -> dict[str, Any]:
    """Legacy rollouts (a main one, a subagent spawned with agent_type, a fork carrying its parent's
    records, one compressed .jsonl.zst, one with nothing to redact) and paginated ones (a main one
    and a fork by history_base), one session_index.jsonl naming some."""
    import subprocess

    root = home / ".codex"
    day = root / "sessions" / "2025" / "03" / "01"
    day.mkdir(parents=True)
    facts: dict[str, Any] = {}
    cwd = can.path("codex.cwd")
    names: list[dict[str, Any]] = []

    def put(tid: str, hh: int, recs: list[dict[str, Any]], kind: str = "main", title: str | None = None,
            edges: list[list[Any]] | None = None, zst: bool = False, cwd_: str = cwd) -> Path:
        f = day / f"rollout-2025-03-01T{hh:02d}-00-00-{tid}.jsonl"
        f.write_bytes(jl(*recs))
        if zst:
            subprocess.run(["zstd", "-q", "-3", "--rm", str(f)], check=True)
            f = f.with_name(f.name + ".zst")
        facts[f"codex:{tid}"] = _fact(kind, title, cwd_, edges, [f.relative_to(home).as_posix()])
        if title:
            names.append({"id": tid, "thread_name": title, "updated_at": "2025-03-01T12:00:00Z"})
        return f

    t = "2025-03-01T10:00:00.000Z"
    legacy = [cx_meta(CX_LEGACY, cwd, t, git={"commit_hash": "0123456789abcdef0123456789abcdef01234567",
                                             "branch": "main"}), *cx_legacy_body(can, "cxl")]
    put(CX_LEGACY, 10, legacy, title="Legacy thread")
    put(CX_LEGACY_SUB, 11, [cx_meta(CX_LEGACY_SUB, cwd, t, source={"subagent": {"thread_spawn": {
        "parent_thread_id": CX_LEGACY, "depth": 1, "agent_type": "explorer"}}}), *cx_legacy_body(can, "cxs")],
        "subagent", edges=[["subagent", f"codex:{CX_LEGACY}", "depth=1"]])
    # a legacy fork: the parent's records copied in, its session_meta line included (only the first
    # session_meta is the file's own)
    put(CX_LEGACY_FORK, 12, [cx_meta(CX_LEGACY_FORK, cwd, t, forked_from_id=CX_LEGACY), *legacy,
                             *cx_legacy_body(can, "cxf")], "fork", "Legacy fork",
        edges=[["fork", f"codex:{CX_LEGACY}", None]])
    put(CX_LEGACY_ZST, 13, [cx_meta(CX_LEGACY_ZST, cwd, t), *cx_legacy_body(can, "cxz")], zst=True)
    clean = put(CX_LEGACY_CLEAN, 14, [cx_meta(CX_LEGACY_CLEAN, "/srv/app", t), *cx_legacy_body(Plain(), "cxc")],
                cwd_="/srv/app")
    facts[f"codex:{CX_LEGACY_CLEAN}"]["clean"] = [clean.relative_to(home).as_posix()]

    paged = cx_paginate([cx_meta(CX_PAGED, cwd, t, session_id=CX_PAGED, history_mode="paginated",
                                 cli_version="0.164.0"), *cx_current_body(can, "cxp")])
    put(CX_PAGED, 15, paged, title="Paginated thread")
    fork = cx_paginate([cx_meta(CX_PAGED_FORK, cwd, t, session_id=CX_PAGED_FORK, history_mode="paginated",
                                forked_from_id=CX_PAGED, cli_version="0.164.0",
                                history_base={"thread_id": CX_PAGED, "end_ordinal_exclusive": 3,
                                              "end_byte_offset": 123}),
                        *cx_current_body(can, "cxpf")])
    put(CX_PAGED_FORK, 16, fork, "fork", edges=[["fork", f"codex:{CX_PAGED}", f"rollout={CX_PAGED};ordinal=3"]])
    (root / "session_index.jsonl").write_bytes(jl(*names))
    return {"sessions": facts}


def cx_current_body(can: Canaries, tag: str) -> list[dict[str, Any]]:
    t = "2026-01-02T03:04:05.678Z"
    return [
        {"timestamp": t, "type": "event_msg", "payload": {"type": "task_started", "turn_id": "t1",
                                                          "model_context_window": 258400}},
        {"timestamp": t, "type": "response_item", "payload": {
            "type": "message", "role": "user", "content": [{"type": "input_text", "text": can.c(f"{tag}.user")}]}},
        {"timestamp": t, "type": "event_msg", "payload": {"type": "item_completed", "turn_id": "t1", "item": {
            "type": "UserMessage", "id": "item-1", "content": [{"type": "text", "text": can.c(f"{tag}.item")}]}}},
        {"timestamp": t, "type": "event_msg", "payload": {"type": "task_complete", "turn_id": "t1",
                                                          "last_agent_message": can.c(f"{tag}.last")}},
    ]


def cx_paginate(recs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A paginated file's envelope: ordinal after timestamp, +1 a line from 0."""
    return [{"timestamp": r["timestamp"], "ordinal": i, **{k: v for k, v in r.items() if k != "timestamp"}}
            for i, r in enumerate(recs)]


def cx_migrate(f: Path) -> bytes:
    """Codex's startup legacy -> paginated migration, in place: history_mode set, ordinals
    added; cli_version kept (seed versioning)."""
    recs = [json.loads(x) for x in f.read_bytes().splitlines()]
    recs[0]["payload"]["history_mode"] = "paginated"
    data = jl(*cx_paginate(recs))
    f.write_bytes(data)
    return data


# --------------------------------------------------------------------------------- claude-code

CC_OLD = "1c0ffee0-0000-4000-8000-000000000001"  # written by 1.0.x: summary records, progress, old subagent layout
CC_OLD_AGENT = "5e1f0a1b"  # the older layout's agent-<id>.jsonl beside its parent
CC_NEW = "1c0ffee0-0000-4000-8000-000000000002"  # 2.1.305: api-request records, requestRef
CC_NEW_AGENT = "a0123456789abcdef"
CC_CONT = "1c0ffee0-0000-4000-8000-000000000003"  # continues CC_NEW (continued-in)
CC_CLEAN = "1c0ffee0-0000-4000-8000-000000000004"  # 2.0.x, nothing to redact


def cc_project_key(cwd: str) -> str:
    return "".join(ch if ch.isalnum() else "-" for ch in cwd)


def cc_envelope(sid: str, cwd: str, version: str, uuid: str, parent: str | None, **kw: Any) -> dict[str, Any]:
    return {"parentUuid": parent, "isSidechain": False, "userType": "external", "cwd": cwd, "sessionId": sid,
            "version": version, "gitBranch": "main", "timestamp": "2025-06-01T10:00:00.000Z", "uuid": uuid, **kw}


def cc_old_session(can: Canaries | Plain, sid: str, cwd: str, version: str, tag: str,
                   agent: str | None = None) -> list[dict[str, Any]]:
    """A pre-2.1.300 transcript: a legacy summary, a progress record (not written by current
    builds), a Task tool_use whose toolUseResult names the subagent, no api-request records."""
    u = [f"{sid[:8]}-1111-4111-8111-{i:012d}" for i in range(6)]
    recs: list[dict[str, Any]] = [
        {"type": "summary", "summary": f"Summary of {tag}", "leafUuid": u[4]},
        {**cc_envelope(sid, cwd, version, u[0], None, type="user"),
         "message": {"role": "user", "content": can.c(f"{tag}.prompt")}},
        {**cc_envelope(sid, cwd, version, u[1], u[0], type="assistant"), "requestId": "req_old1",
         "message": {"id": "msg_old1", "type": "message", "role": "assistant", "model": "claude-3-7-sonnet",
                     "content": [{"type": "text", "text": can.c(f"{tag}.answer")},
                                 {"type": "tool_use", "id": "toolu_old1", "name": "Task",
                                  "input": {"description": "look", "prompt": can.c(f"{tag}.taskprompt")}}],
                     "stop_reason": "tool_use", "stop_sequence": None,
                     "usage": {"input_tokens": 1, "output_tokens": 2}}},
        {**cc_envelope(sid, cwd, version, u[2], u[1], type="progress"),
         "data": {"type": "bash_progress", "output": can.c(f"{tag}.progress")}, "toolUseID": "toolu_old1"},
        {**cc_envelope(sid, cwd, version, u[3], u[2], type="user"),
         "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_old1",
                                                  "content": can.c(f"{tag}.result")}]},
         "toolUseResult": {"status": "completed", "prompt": can.c(f"{tag}.tur"),
                           **({"agentId": agent} if agent else {}), "content": [{"type": "text", "text": "ok"}]}},
        {**cc_envelope(sid, cwd, version, u[4], u[3], type="assistant"), "requestId": "req_old2",
         "message": {"id": "msg_old2", "type": "message", "role": "assistant", "model": "claude-3-7-sonnet",
                     "content": [{"type": "text", "text": can.c(f"{tag}.done")}], "stop_reason": "end_turn",
                     "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 2}}},
    ]
    return recs


def build_claude(home: Path, can: Canaries) -> dict[str, Any]:
    """A 1.0.x session with its subagent in the older layout (projects/<key>/agent-<id>.jsonl) and
    the legacy sessions-index.json; a 2.1.305 session (api-request/-blob/-shape records, requestRef,
    a subagent under <sid>/subagents/ whose api-request records are routed to its file) continued
    in a 2.1.310 one; a 2.0.x session with nothing to redact."""
    cwd = can.path("cc.cwd")
    proj = home / ".claude" / "projects" / cc_project_key(cwd)
    proj.mkdir(parents=True)
    facts: dict[str, Any] = {}

    def put(rel: str, recs: list[dict[str, Any]], key: str, kind: str = "main", title: str | None = None,
            edges: list[list[Any]] | None = None, cwd_: str = cwd, base: Path = proj) -> Path:
        f = base / rel
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_bytes(jl(*recs))
        facts[f"claude-code:{key}"] = _fact(kind, title, cwd_, edges, [f.relative_to(home).as_posix()])
        return f

    put(f"{CC_OLD}.jsonl", cc_old_session(can, CC_OLD, cwd, "1.0.51", "ccold", CC_OLD_AGENT), CC_OLD,
        title="Summary of ccold")
    agent = [{**cc_envelope(CC_OLD, cwd, "1.0.51", f"{CC_OLD_AGENT}-aaaa-4aaa-8aaa-{i:012d}",
                            None if i == 0 else f"{CC_OLD_AGENT}-aaaa-4aaa-8aaa-{i - 1:012d}",
                            type="user" if i == 0 else "assistant"),
              "isSidechain": True, "agentId": CC_OLD_AGENT,
              "message": {"role": "user", "content": can.c("ccoldagent.prompt")} if i == 0 else
              {"id": "msg_a1", "type": "message", "role": "assistant", "model": "claude-3-7-sonnet",
               "content": [{"type": "text", "text": can.c("ccoldagent.answer")}], "stop_reason": None,
               "stop_sequence": None, "usage": {"input_tokens": 0, "output_tokens": 0}}} for i in range(2)]
    put(f"agent-{CC_OLD_AGENT}.jsonl", agent, CC_OLD_AGENT, "subagent",
        edges=[["subagent", f"claude-code:{CC_OLD}", "toolu_old1"]])
    (proj / "sessions-index.json").write_text(json.dumps({"version": 1, "originalPath": cwd, "entries": [{
        "sessionId": CC_OLD, "fullPath": str(proj / f"{CC_OLD}.jsonl"), "fileMtime": 1748772000000,
        "firstPrompt": can.c("ccindex.first"), "summary": can.c("ccindex.summary"), "messageCount": 5,
        "created": "2025-06-01T10:00:00.000Z", "modified": "2025-06-01T10:05:00.000Z", "gitBranch": "main",
        "projectPath": cwd, "isSidechain": False}]}))

    new = cc_new_session(can, CC_NEW, cwd, "ccnew")
    new.append({"type": "continued-in", "timestamp": "2026-10-20T11:00:00.000Z", "sessionId": CC_NEW,
                "continuedInSessionId": CC_CONT})
    put(f"{CC_NEW}.jsonl", new, CC_NEW, title="New format session")
    sub = [{**r, "isSidechain": True, "agentId": CC_NEW_AGENT} if "uuid" in r or r["type"].startswith("api-request")
           else r for r in cc_new_session(can, CC_NEW, cwd, "ccnewagent")[1:] if r["type"] != "ai-title"]
    sub[0]["parentUuid"] = None
    put(f"{CC_NEW}/subagents/agent-{CC_NEW_AGENT}.jsonl", sub, CC_NEW_AGENT, "subagent", "Look around",
        edges=[["subagent", f"claude-code:{CC_NEW}", "toolu_new1"]])
    (proj / CC_NEW / "subagents" / f"agent-{CC_NEW_AGENT}.meta.json").write_text(json.dumps({
        "agentType": "general-purpose", "description": "Look around", "toolUseId": "toolu_new1",
        "spawnDepth": 1}))
    put(f"{CC_CONT}.jsonl", cc_new_session(can, CC_CONT, cwd, "cccont", "2.1.310"), CC_CONT, title="New format session",
        edges=[["continuation", f"claude-code:{CC_NEW}", "2026-10-20T11:00:00.000Z"]])
    clean = put(f"{CC_CLEAN}.jsonl", cc_old_session(Plain(), CC_CLEAN, "/srv/app", "2.0.14", "ccclean"), CC_CLEAN,
                title="Summary of ccclean", cwd_="/srv/app", base=home / ".claude" / "projects" / "-srv-app")
    facts[f"claude-code:{CC_CLEAN}"]["clean"] = [clean.relative_to(home).as_posix()]
    return {"sessions": facts}


def cc_new_session(can: Canaries, sid: str, cwd: str, tag: str, version: str = "2.1.305") -> list[dict[str, Any]]:
    """A 2.1.300+ transcript: attachment root, a prompt, the request records (shape, blobs, request)
    written before the call, the assistant line with requestRef, an Agent tool_use, ai-title."""
    u = [f"{sid[:8]}-2222-4222-8222-{i:012d}" for i in range(4)]
    return [
        {**cc_envelope(sid, cwd, version, u[0], None, type="attachment"),
         "attachment": {"type": "hook_success", "hookName": "SessionStart:startup", "content": can.c(f"{tag}.hook")}},
        {**cc_envelope(sid, cwd, version, u[1], u[0], type="user"), "promptId": u[1], "promptSource": "typed",
         "message": {"role": "user", "content": can.c(f"{tag}.prompt")}},
        {"type": "api-request-shape", "sessionId": sid, "shapeHash": "ab12", "timestamp": "2026-10-20T10:00:00.000Z",
         "version": 1, "shape": {"system": [{"type": "text", "text": can.c(f"{tag}.system")}],
                                 "tools": [{"name": "Read", "description": "reads", "input_schema": {"type": "object"}}]}},
        {"type": "api-request-blob", "sessionId": sid, "hash": "cd34",
         "message": {"role": "user", "content": [{"type": "text", "text": can.c(f"{tag}.blob")}]}},
        {"type": "api-request", "sessionId": sid, "id": "r_1", "timestamp": "2026-10-20T10:00:00.000Z", "version": 1,
         "querySource": "repl_main_thread", "shapeHash": "ab12",
         "params": {"model": "claude-opus-5-5", "max_tokens": 64000, "thinking": {"type": "adaptive", "display": "updates"},
                    "betas": [], "context_management": {"edits": []}, "output_config": {"effort": "medium"},
                    "safeguards": [{"classifier_context": can.c(f"{tag}.classifier")}]},
         "keep": 0, "tail": ["cd34"], "cacheControl": [], "requestDigest": "9a8b"},
        {**cc_envelope(sid, cwd, version, u[2], u[1], type="assistant"), "requestId": "req_new1", "requestRef": "r_1",
         "message": {"id": "msg_new1", "type": "message", "role": "assistant", "model": "claude-opus-5-5",
                     "content": [{"type": "text", "text": can.c(f"{tag}.answer")},
                                 {"type": "tool_use", "id": "toolu_new1", "name": "Agent",
                                  "input": {"prompt": can.c(f"{tag}.agentprompt")}}],
                     "stop_reason": "tool_use", "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 2}}},
        {"type": "ai-title", "aiTitle": "New format session", "sessionId": sid},
    ]


# ------------------------------------------------------------------------------------ opencode

OC_V1 = "ses_1aaaaaaaaaaaaaaaaaaaaaaaaa"  # 1.x install never upgraded: session/message/part
OC_V1_CHILD = "ses_1bbbbbbbbbbbbbbbbbbbbbbbbb"  # its subagent (1.x session.parent_id)
OC_PRE = "ses_2aaaaaaaaaaaaaaaaaaaaaaaaa"  # pre-split 2.x (opencode-next.db): `session` table, legacy row keys
OC_PRE_CHILD = "ses_2bbbbbbbbbbbbbbbbbbbbbbbbb"

OC_V1_SCHEMA = """
CREATE TABLE __drizzle_migrations (id INTEGER PRIMARY KEY, hash TEXT NOT NULL, created_at INTEGER);
CREATE TABLE project (id TEXT PRIMARY KEY, worktree TEXT NOT NULL, vcs TEXT, name TEXT, time_created INTEGER,
  time_updated INTEGER);
CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT NOT NULL, parent_id TEXT, slug TEXT NOT NULL,
  directory TEXT NOT NULL, title TEXT NOT NULL, version TEXT NOT NULL, share_url TEXT, summary_additions INTEGER,
  summary_deletions INTEGER, summary_files INTEGER, summary_diffs TEXT, revert TEXT, permission TEXT,
  time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, time_compacting INTEGER, time_archived INTEGER);
CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, time_created INTEGER NOT NULL,
  time_updated INTEGER NOT NULL, data TEXT NOT NULL);
CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT NOT NULL, session_id TEXT NOT NULL,
  time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);
CREATE TABLE todo (session_id TEXT NOT NULL, content TEXT NOT NULL, status TEXT NOT NULL, priority TEXT NOT NULL,
  position INTEGER NOT NULL, time_created INTEGER, time_updated INTEGER, PRIMARY KEY (session_id, position));
"""

# a 2.x build before the split (marker 20260730195856_optional_session_title): sessions in `session`
OC_PRE_SCHEMA = """
CREATE TABLE migration (id TEXT PRIMARY KEY, time_applied INTEGER);
CREATE TABLE project (id TEXT PRIMARY KEY, worktree TEXT NOT NULL, vcs TEXT, name TEXT, time_created INTEGER,
  time_updated INTEGER);
CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT NOT NULL, workspace_id TEXT, parent_id TEXT,
  fork_session_id TEXT, fork_boundary TEXT, slug TEXT NOT NULL, directory TEXT NOT NULL, path TEXT, title TEXT,
  version TEXT NOT NULL, metadata TEXT, cost REAL NOT NULL DEFAULT 0, tokens_input INTEGER NOT NULL DEFAULT 0,
  tokens_output INTEGER NOT NULL DEFAULT 0, tokens_reasoning INTEGER NOT NULL DEFAULT 0,
  tokens_cache_read INTEGER NOT NULL DEFAULT 0, tokens_cache_write INTEGER NOT NULL DEFAULT 0, revert TEXT,
  permission TEXT, agent TEXT, model TEXT, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL,
  resume_attempts INTEGER NOT NULL DEFAULT 0);
CREATE TABLE session_message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, type TEXT NOT NULL, seq INTEGER NOT NULL,
  time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);
CREATE TABLE kv (key TEXT PRIMARY KEY, value TEXT, time_created INTEGER, time_updated INTEGER);
"""


def _wal(path: Path) -> Any:
    import sqlite3

    from tests.fx_s11_e2e import KEEP_OPEN

    c = sqlite3.connect(path, isolation_level=None)
    c.execute("PRAGMA journal_mode=WAL")
    KEEP_OPEN.append(c)
    return c


def _ins(c: Any, table: str, row: dict[str, Any]) -> None:
    c.execute(f"INSERT INTO {table} ({','.join(row)}) VALUES ({','.join('?' * len(row))})", list(row.values()))


def build_opencode(home: Path, can: Canaries) -> dict[str, Any]:
    """opencode.db of a 1.x install (session/message/part/todo, __drizzle_migrations, no session_v2)
    with a parent and its subagent child; opencode-next.db of a pre-split 2.x build (`session` with
    2.x columns, session_message rows in the legacy pre-2.1 shapes: providerState, state/
    providerResultState on tools, compaction `recent` / `providerContext`, media {mediaType,data})."""
    data = home / ".local" / "share" / "opencode"
    data.mkdir(parents=True)
    cwd = can.path("oc.cwd")
    facts: dict[str, Any] = {}
    t = 1748772000000

    c = _wal(data / "opencode.db")
    c.executescript(OC_V1_SCHEMA)
    c.execute("INSERT INTO __drizzle_migrations (hash, created_at) VALUES ('0a1b', 1)")
    _ins(c, "project", {"id": "prj_v1", "worktree": cwd, "vcs": "git", "name": "app", "time_created": t,
                        "time_updated": t})
    for sid, parent, title in ((OC_V1, None, "One-x session"), (OC_V1_CHILD, OC_V1, "One-x child")):
        _ins(c, "session", {"id": sid, "project_id": "prj_v1", "parent_id": parent, "slug": "calm-lake",
                            "directory": cwd, "title": title, "version": "1.4.2", "time_created": t,
                            "time_updated": t})
        mu, ma = f"msg_{sid[4:]}u", f"msg_{sid[4:]}a"
        _ins(c, "message", {"id": mu, "session_id": sid, "time_created": t, "time_updated": t, "data": json.dumps({
            "role": "user", "time": {"created": t}, "agent": "build",
            "model": {"providerID": "p", "modelID": "m"}, "system": can.c(f"oc1.{sid}.system")})})
        _ins(c, "message", {"id": ma, "session_id": sid, "time_created": t, "time_updated": t, "data": json.dumps({
            "role": "assistant", "parentID": mu, "modelID": "m", "providerID": "p", "mode": "build",
            "agent": "build", "path": {"cwd": cwd, "root": cwd}, "cost": 0,
            "tokens": {"input": 1, "output": 1, "reasoning": 0, "cache": {"read": 0, "write": 0}},
            "time": {"created": t, "completed": t}})})
        _ins(c, "part", {"id": f"prt_{sid[4:]}1", "message_id": mu, "session_id": sid, "time_created": t,
                         "time_updated": t, "data": json.dumps({"type": "text", "text": can.c(f"oc1.{sid}.prompt")})})
        _ins(c, "part", {"id": f"prt_{sid[4:]}2", "message_id": ma, "session_id": sid, "time_created": t,
                         "time_updated": t, "data": json.dumps({
                             "type": "tool", "callID": "call_v1", "tool": "task" if parent is None else "bash",
                             "state": {"status": "completed", "input": {"prompt": can.c(f"oc1.{sid}.input")},
                                       "output": can.c(f"oc1.{sid}.output"), "title": "t",
                                       "metadata": {"sessionId": OC_V1_CHILD} if parent is None else {},
                                       "time": {"start": t, "end": t}}})})
        _ins(c, "todo", {"session_id": sid, "content": can.c(f"oc1.{sid}.todo"), "status": "pending",
                         "priority": "high", "position": 0, "time_created": t, "time_updated": t})
    facts[f"opencode:{OC_V1}"] = _fact("main", "One-x session", cwd)
    facts[f"opencode:{OC_V1_CHILD}"] = _fact("subagent", "One-x child", cwd, [["subagent", f"opencode:{OC_V1}", "call_v1"]])

    n = _wal(data / "opencode-next.db")
    n.executescript(OC_PRE_SCHEMA)
    n.execute("INSERT INTO migration VALUES ('20260730195856_optional_session_title', 1)")
    _ins(n, "project", {"id": "prj_pre", "worktree": cwd, "vcs": "git", "name": "app", "time_created": t,
                        "time_updated": t})
    for sid, parent, title in ((OC_PRE, None, "Pre-split session"), (OC_PRE_CHILD, OC_PRE, None)):
        _ins(n, "session", {"id": sid, "project_id": "prj_pre", "parent_id": parent, "slug": "quiet-river",
                            "directory": cwd, "title": title, "version": "2.0.9", "agent": "build",
                            "model": json.dumps({"id": "m", "providerID": "p"}), "time_created": t,
                            "time_updated": t})
        rows = [
            ("user", {"text": can.c(f"ocpre.{sid}.prompt"), "files": [{"uri": "file:///x.png", "mime": "image/png",
                                                                       "mediaType": "image/png", "data": "iVBORw0KGgo="}]}),
            ("assistant", {"agent": "build", "model": {"id": "m", "providerID": "p"}, "finish": "tool-calls",
                           "providerState": {"opaque": can.c(f"ocpre.{sid}.pstate")},
                           "content": [{"type": "tool", "id": "call_pre", "name": "subagent" if parent is None else "bash",
                                        "input": {"prompt": can.c(f"ocpre.{sid}.input")},
                                        "state": {"status": "completed", "content": [
                                            {"type": "text", "text": can.c(f"ocpre.{sid}.out")}],
                                            "metadata": {"sessionID": OC_PRE_CHILD} if parent is None else {}},
                                        "resultState": {"x": 1},
                                        "providerResultState": {"opaque": "abc"}}],
                           "time": {"created": t, "completed": t}}),
            ("compaction", {"status": "completed", "reason": "auto", "summary": can.c(f"ocpre.{sid}.summary"),
                            "recent": can.c(f"ocpre.{sid}.recent"),
                            "providerContext": {"messages": [{"role": "user", "content": can.c(f"ocpre.{sid}.pc")}]},
                            "time": {"created": t}}),
        ]
        for i, (typ, d) in enumerate(rows):
            _ins(n, "session_message", {"id": f"msg_{sid[4:]}{i}", "session_id": sid, "type": typ, "seq": 2 * i + 1,
                                        "time_created": t, "time_updated": t, "data": json.dumps(d)})
    facts[f"opencode:{OC_PRE}"] = _fact("main", "Pre-split session", cwd)
    facts[f"opencode:{OC_PRE_CHILD}"] = _fact("subagent", None, cwd, [["subagent", f"opencode:{OC_PRE}", "call_pre"]])
    return {"sessions": facts}


# -------------------------------------------------------------------------------- cursor-agent

CU_OLD = "0c0c0c0c-0000-4000-8000-000000000001"  # an older build's chat: no meta.json, auto-run, root field 2
CU_FORK = "0c0c0c0c-0000-4000-8000-000000000002"  # /fork of it (every blob copied, no parent recorded)
CU_NEW = "0c0c0c0c-0000-4000-8000-000000000003"  # a current chat with meta.json, same workspace


def build_cursor(home: Path, can: Canaries) -> dict[str, Any]:
    """An older chat (no meta.json sidecar, meta mode 'auto-run', a root carrying the removed field 2,
    a legacy flat JSONL mirror with CallMcpTool), its /fork, and a current chat of the same workspace."""
    from tests.fx_s11_e2e import KEEP_OPEN
    from tests.fx_s17_e2eco import Store, f_int, f_len, j, md5_dir

    cwd = can.path("cu.cwd")
    chats = home / ".cursor" / "chats" / md5_dir(cwd)
    slug = "-".join(x for x in "".join(ch if ch.isalnum() else "-" for ch in cwd).split("-") if x)
    mirrors = home / ".cursor" / "projects" / slug / "agent-transcripts"
    mirrors.mkdir(parents=True)
    facts: dict[str, Any] = {}

    def chat(s: Any, tag: str) -> str:
        sysmsg = s.put(j({"role": "system", "content": f"You are an agent. {can.c(tag + '.sys')}"}))
        query = s.put(j({"role": "user", "content": [{"type": "text", "text": can.c(tag + ".query")}]}))
        um = s.put(f_len(1, can.c(tag + ".um")) + f_len(2, "00000000-0000-4000-8000-0000000000aa") + f_int(4, 1))
        turn = s.put(f_len(1, f_len(1, bytes.fromhex(um))))
        return s.put(f_len(1, bytes.fromhex(sysmsg)) + f_len(1, bytes.fromhex(query))
                     + f_len(2, can.c(tag + ".removedfield")) + f_len(8, bytes.fromhex(turn)) + f_int(10, 1))

    old = Store()
    root = chat(old, "cuold")
    meta = {"agentId": CU_OLD, "latestRootBlobId": root, "name": "Old chat", "createdAt": 1_740_000_000_000,
            "mode": "auto-run", "isRunEverything": False}
    KEEP_OPEN.append(old.write(chats / CU_OLD / "store.db", meta))
    (mirrors / f"{CU_OLD}.jsonl").write_bytes(jl(
        {"role": "user", "message": {"content": [{"type": "text", "text": can.c("cuold.mirror")}]}},
        {"role": "assistant", "message": {"content": [{"type": "tool_use", "name": "CallMcpTool",
                                                       "input": {"q": can.c("cuold.mcp")}}]}}))
    facts[f"cursor-agent:{CU_OLD}"] = _fact("main", "Old chat", cwd)
    fork = Store()
    fork.blobs = dict(old.blobs)
    KEEP_OPEN.append(fork.write(chats / CU_FORK / "store.db", {**meta, "agentId": CU_FORK, "latestRootBlobId": root,
                                                                "name": "Old chat (forked)",
                                                                "createdAt": 1_740_000_100_000}))
    facts[f"cursor-agent:{CU_FORK}"] = _fact("fork", "Old chat (forked)", cwd, [["fork", f"cursor-agent:{CU_OLD}", root]])
    new = Store()
    root_n = chat(new, "cunew")
    KEEP_OPEN.append(new.write(chats / CU_NEW / "store.db", {
        "agentId": CU_NEW, "latestRootBlobId": root_n, "name": "New chat", "createdAt": 1_767_261_600_000,
        "mode": "default", "isRunEverything": False}))
    (chats / CU_NEW / "meta.json").write_bytes(j({"schemaVersion": 1, "createdAtMs": 1_767_261_600_000,
                                                 "hasConversation": True, "title": "New chat", "cwd": cwd}))
    facts[f"cursor-agent:{CU_NEW}"] = _fact("main", "New chat", cwd)
    return {"sessions": facts}
