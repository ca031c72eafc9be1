"""s11 end-to-end audit of pi, as an outsider runs it: a home generated from
seeds/by-harness/pi.json (every record kind of the seed, every string field a canary),
`python -m archiver sync` to a file:// store, the store read with `age` + `zstd` only,
then `archiver restore` into another home."""

from __future__ import annotations

import copy
import json
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.fx_s11_e2e_claude import (
    HOME_PREFIX, USER, Canaries, cli_json, leaks, missing_markers, read_store, tree_bytes, write_config,
)

SEED = Path("/work/shared/seeds/by-harness/pi.json")
PI_KEEP = {"type", "id", "parentId", "timestamp", "role", "version", "stopReason", "toolCallId", "targetId", "fromId",
           "firstKeptEntryId", "mimeType", "api", "thinkingLevel", "kind", "parentSession", "cwd", "data"}


def seed_records() -> dict[str, dict[str, Any]]:
    c = json.loads(SEED.read_text())
    return {r["type"]: json.loads(r["example"]) for r in c["records"]}


def folder(cwd: str) -> str:
    return "--" + cwd.lstrip("/").replace("/", "-").replace("\\", "-").replace(":", "-") + "--"


def ts_name(ts: str) -> str:
    return ts.replace(":", "-").replace(".", "-")


def _uuid7(n: int) -> str:
    return str(uuid.UUID(f"01890a5d-ac96-7{n:03x}-bcce-b302099a{n:04x}"))


@dataclass
class PiHome:
    home: Path
    tmp: Path  # pi's os.tmpdir() for pi-bash-*.log
    canaries: Canaries = field(default_factory=lambda: Canaries(prefix="PIC"))
    sessions: dict[str, Path] = field(default_factory=dict)  # session id -> file
    forks: dict[str, tuple[str, str | None]] = field(default_factory=dict)  # child -> (parent, at)
    sidecars: dict[str, list[Path]] = field(default_factory=dict)
    titles: dict[str, str | None] = field(default_factory=dict)
    cwds: dict[str, str] = field(default_factory=dict)

    @property
    def root(self) -> Path:
        return self.home / ".pi" / "agent"

    def new_file(self, sid: str, cwd: str, ts: str, lines: list[bytes]) -> Path:
        d = self.root / "sessions" / folder(cwd)
        d.mkdir(parents=True, exist_ok=True)
        f = d / f"{ts_name(ts)}_{sid}.jsonl"
        f.write_bytes(b"".join(lines))
        self.sessions[sid] = f
        self.cwds[sid] = cwd
        return f


def line(rec: dict[str, Any]) -> bytes:
    return json.dumps(rec, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"


def main_entries(h: PiHome) -> list[dict[str, Any]]:
    """One entry of every seed record kind (extra optional fields added), every string a canary,
    chained by parentId; a branch and a branch_summary, labels, a bash temp file."""
    c = h.canaries
    seeds = seed_records()
    extras: dict[str, dict[str, Any]] = {
        "message / system": {"message": {"sections": {"preamble": "x", "cwd": "x"}, "toolsAdded": [
            {"name": "x", "description": "x", "parameters": {"type": "object", "properties": {"path": {"description": "x"}}}}],
            "toolsRemoved": [{"name": "x"}]}},
        "message / user": {"message": {"content": [{"type": "text", "text": "x"},
                                                   {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}]}},
        "message / assistant": {"message": {
            "content": [{"type": "thinking", "thinking": "x", "thinkingSignature": "x"},
                        {"type": "text", "text": "x", "textSignature": "x"},
                        {"type": "toolCall", "id": "call_1", "name": "bash", "arguments": {"command": "x"},
                         "argumentsError": "x", "namespace": "x"}],
            "responseModel": "x", "responseId": "x", "providerThinkingLevel": "x", "errorMessage": "x",
            "rawStopReason": "x", "diagnostics": [{"type": "x", "timestamp": 1, "error": {"name": "x", "message": "x",
                                                                                           "stack": "x"}}],
            "deferred": {"provider": "x", "modelId": "x", "api": "x", "id": "x", "data": {"k": "x"}}}},
        "message / toolResult": {"message": {"details": {"diff": "x", "patch": "x", "truncation": {"note": "x"}},
                                             "nestedCalls": {"calls": [{"id": "n1", "name": "x", "arguments": {"a": "x"},
                                                                        "status": "error", "error": "x"}],
                                                             "complete": True}}},
        "compaction": {"details": {"readFiles": ["x"], "modifiedFiles": ["x"]}, "systemMessage": {
            "role": "system", "content": "x", "timestamp": 1}},
        "branch_summary": {"details": {"readFiles": ["x"]}},
        "custom": {"data": {"state": "x", "hint": "x", "path": "x"}},
        "custom_message": {"details": {"note": "x"}},
    }
    out: list[dict[str, Any]] = []
    for kind, rec in seeds.items():
        if kind in ("session", "message"):
            continue
        rec = _merge(copy.deepcopy(rec), extras.get(kind, {}))
        rec = c.fill(rec, f"pi {kind}", keep=PI_KEEP)
        if kind == "custom":
            rec["data"] = c.fill(rec["data"], "pi custom.data", keep=set())
        out.append(rec)
    ids = [f"{i:08x}" for i in range(0xa0000001, 0xa0000001 + len(out) + 8)]
    for i, rec in enumerate(out):
        rec["id"] = ids[i]
        rec["parentId"] = ids[i - 1] if i else None
        rec["timestamp"] = f"2026-01-01T10:{i:02d}:00.000Z"
    by_kind = {r["type"] if r["type"] != "message" else "message / " + r["message"]["role"]: r for r in out}
    by_kind["label"]["targetId"] = ids[1]
    by_kind["context_edit"]["targetId"] = by_kind["message / assistant"]["id"]
    by_kind["compaction"]["firstKeptEntryId"] = ids[1]
    by_kind["branch_summary"]["fromId"] = ids[len(out) - 2]
    by_kind["branch_summary"]["parentId"] = ids[2]  # a summarised branch switch: back to the branch point
    # the bash tool result and the ! command keep their full output in temp files
    h.tmp.mkdir(parents=True, exist_ok=True)
    logs = []
    for n, kind in enumerate(("message / toolResult", "message / bashExecution")):
        log = h.tmp / f"pi-bash-{n:016x}.log"
        log.write_text(c.text(f"pi {kind} full output file") + "\n" + "output line\n" * 1000)
        logs.append(log)
    by_kind["message / toolResult"]["message"]["details"]["fullOutputPath"] = str(logs[0])
    by_kind["message / bashExecution"]["message"]["fullOutputPath"] = str(logs[1])
    by_kind["message / bashExecution"]["message"]["truncated"] = True
    by_kind["message / toolResult"]["message"]["toolCallId"] = "call_1"
    h.sidecars["main"] = logs
    # the session's name: the last session_info wins
    by_kind["session_info"]["name"] = c.text("pi session_info.name (title)")
    return out


def _merge(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    for k, v in b.items():
        a[k] = _merge(a.get(k, {}), v) if isinstance(v, dict) and isinstance(a.get(k), dict) else v
    return a


def make_pi_home(home: Path, tmp: Path) -> PiHome:
    h = PiHome(home=home, tmp=tmp)
    c = h.canaries
    cwd = f"{HOME_PREFIX}/src/pi-proj-{c.new('pi cwd').marker.lower()}"
    main_id = _uuid7(1)
    header = {"type": "session", "version": 3, "id": main_id, "timestamp": "2026-01-01T10:00:00.000Z", "cwd": cwd}
    entries = main_entries(h)
    # a very long line (an inline screenshot) with a canary after the base64
    big = {"type": "message", "id": "b16b16b1", "parentId": entries[-1]["id"], "timestamp": "2026-01-01T11:59:00.000Z",
           "message": {"role": "user", "content": [{"type": "image", "data": "A" * (9 * 1024 * 1024), "mimeType": "image/png"},
                                                   {"type": "text", "text": c.text("pi 9MB line text")}],
                       "timestamp": 1767268740000}}
    main = h.new_file(main_id, cwd, header["timestamp"], [line(header), *map(line, entries), line(big)])
    h.sidecars[main_id] = h.sidecars.pop("main")
    h.titles[main_id] = entries[[e["type"] for e in entries].index("session_info")]["name"]

    # /fork: root->leaf path copied with its ids, label re-emitted at the end, new entries after
    path = [e for e in entries if e["type"] != "label"][:5]
    fork_id = _uuid7(2)
    fork_header = {"type": "session", "version": 3, "id": fork_id, "timestamp": "2026-01-01T12:00:00.000Z", "cwd": cwd,
                   "parentSession": str(main)}
    label = {"type": "label", "id": "f0f0f0f0", "parentId": path[-1]["id"], "timestamp": "2026-01-01T12:00:00.100Z",
             "targetId": path[1]["id"], "label": c.text("pi fork label")}
    own = {"type": "message", "id": "f1f1f1f1", "parentId": path[-1]["id"], "timestamp": "2026-01-01T12:00:01.000Z",
           "message": {"role": "user", "content": c.text("pi fork own user"), "timestamp": 1767268801000}}
    h.new_file(fork_id, cwd, fork_header["timestamp"], [line(fork_header), *map(line, path), line(label), line(own)])
    h.forks[fork_id] = (main_id, path[-1]["id"])

    # forkFrom(): every entry copied verbatim into a new file in another cwd
    other_cwd = f"{HOME_PREFIX}/work/{c.new('pi forkFrom cwd').marker.lower()} with space"
    ff_id = _uuid7(3)
    ff_header = {"type": "session", "version": 3, "id": ff_id, "timestamp": "2026-01-02T09:00:00.000Z", "cwd": other_cwd,
                 "parentSession": str(main)}
    more = {"type": "message", "id": "e2e2e2e2", "parentId": entries[-1]["id"], "timestamp": "2026-01-02T09:00:01.000Z",
            "message": {"role": "user", "content": [{"type": "text", "text": c.text("pi forkFrom own")}],
                        "timestamp": 1767344401000}}
    h.new_file(ff_id, other_cwd, ff_header["timestamp"], [line(ff_header), *map(line, entries), line(more)])
    h.forks[ff_id] = (main_id, entries[-1]["id"])

    # version 1 (no version, no ids, hookMessage role) and version 2
    v1_id = str(uuid.UUID(int=0x1111))  # UUIDv4-era id
    v1 = [{"type": "session", "id": v1_id, "timestamp": "2025-05-01T08:00:00.000Z", "cwd": cwd},
          {"type": "message", "timestamp": "2025-05-01T08:00:01.000Z",
           "message": {"role": "user", "content": c.text("pi v1 user"), "timestamp": 1746086401000}},
          {"type": "message", "timestamp": "2025-05-01T08:00:02.000Z",
           "message": {"role": "hookMessage", "customType": c.text("pi v1 hook type"), "content": c.text("pi v1 hook"),
                       "display": True, "timestamp": 1746086402000}},
          {"type": "compaction", "timestamp": "2025-05-01T08:00:03.000Z", "summary": c.text("pi v1 compaction"),
           "firstKeptEntryIndex": 1, "tokensBefore": 10}]
    h.new_file(v1_id, cwd, v1[0]["timestamp"], [line(r) for r in v1])
    v2_id = "my.session-id_2"  # caller-supplied id (--session-id), legal characters
    v2 = [{"type": "session", "version": 2, "id": v2_id, "timestamp": "2025-08-01T08:00:00.000Z", "cwd": cwd},
          {"type": "message", "id": "0000aaaa", "parentId": None, "timestamp": "2025-08-01T08:00:01.000Z",
           "message": {"role": "user", "content": c.text("pi v2 user"), "timestamp": 1754035201000}},
          {"type": "session_info", "id": "0000aaab", "parentId": "0000aaaa", "timestamp": "2025-08-01T08:00:02.000Z",
           "name": c.text("pi v2 name, then cleared")},
          {"type": "session_info", "id": "0000aaac", "parentId": "0000aaab", "timestamp": "2025-08-01T08:00:03.000Z"}]
    h.new_file(v2_id, cwd, v2[0]["timestamp"], [line(r) for r in v2])
    h.titles[v2_id] = None

    # a session being written: the last line is torn
    live_id = _uuid7(4)
    live = [{"type": "session", "version": 3, "id": live_id, "timestamp": "2026-01-03T08:00:00.000Z", "cwd": cwd},
            {"type": "message", "id": "1234abcd", "parentId": None, "timestamp": "2026-01-03T08:00:01.000Z",
             "message": {"role": "user", "content": c.text("pi live user"), "timestamp": 1767427201000}}]
    torn = line({"type": "message", "id": "1234abce", "parentId": "1234abcd", "timestamp": "2026-01-03T08:00:02.000Z",
                 "message": {"role": "assistant", "content": [{"type": "text", "text": c.text("pi torn tail")}]}})[:-40]
    h.new_file(live_id, cwd, live[0]["timestamp"], [*map(line, live), torn])
    # an empty file (pi created it, nothing written yet) and a session with a cut line mid-file
    h.new_file("0198ffff-0000-7000-8000-00000000e0e0", cwd, "2026-01-04T08:00:00.000Z", [])
    bad_id = _uuid7(5)
    bad = [{"type": "session", "version": 3, "id": bad_id, "timestamp": "2026-01-05T08:00:00.000Z", "cwd": cwd},
           {"type": "message", "id": "5555aaaa", "parentId": None, "timestamp": "2026-01-05T08:00:01.000Z",
            "message": {"role": "user", "content": c.text("pi corrupt-file user"), "timestamp": 1767600001000}}]
    h.new_file(bad_id, cwd, bad[0]["timestamp"], [line(bad[0]), line(bad[1])[:-30] + b"\n", line(bad[1])])
    return h


# ---------------------------------------------------------------- the audit

@pytest.fixture(scope="module")
def synced(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, PiHome, Any]:
    base = tmp_path_factory.mktemp("pi-e2e")
    home = base / USER  # the home folder carries the user name, as /home/wanda does
    h = make_pi_home(home, base / "tmpdir")
    write_config(base, home, ["pi"])
    out, p = cli_json(base, "sync", ok=False)
    return base, h, (out, p)


def test_pi_home_archived_whole_and_private_data_gone(synced: tuple[Path, PiHome, Any]) -> None:
    tmp_path, h, (out, p) = synced
    assert out["sessions"]["failed"] == 0, (out, p.stderr[-3000:])
    read = read_store(tmp_path)
    found = leaks(read, h.canaries.all_private())
    assert not found, "\n".join(found[:20])
    # the 9 MB line's text is archived; the torn tail of a session being written is not (yet)
    missing = missing_markers(read, h.canaries, [h.home, h.tmp], lambda w: w != "pi torn tail")
    assert not missing, missing
    m = read.latest()
    sessions = {s["key"]: s for s in m["sessions"]}
    assert set(sessions) == {f"pi:{sid}" for sid in h.sessions}


def test_pi_lineage_sidecars_and_restore_into_another_home(synced: tuple[Path, PiHome, Any]) -> None:
    tmp_path, h, (out, p) = synced
    assert out["sessions"]["failed"] == 0, (out, p.stderr[-3000:])
    m = read_store(tmp_path).latest()
    sessions = {s["key"]: s for s in m["sessions"]}
    for child, (parent, at) in h.forks.items():
        assert [(e["relation"], e["parent"], e["at"]) for e in sessions[f"pi:{child}"]["parents"]] == [
            ("fork", f"pi:{parent}", at)]
    main_id = next(iter(h.sidecars))
    sidecars = [a["path"] for a in sessions[f"pi:{main_id}"]["artifacts"] if a["role"] == "sidecar"]
    assert sorted(p.rsplit("/", 1)[1] for p in sidecars) == sorted(f.name for f in h.sidecars[main_id])
    bad_id = [sid for sid in h.sessions if sid.endswith("0005")][0]
    # a line cut mid-file is kept as it is and named (file and line number), not the session's end
    assert sessions[f"pi:{bad_id}"]["warnings"][0] == (
        f"{h.sessions[bad_id].name}: 1 unparseable line(s) kept as they are (line 2)"), sessions[f"pi:{bad_id}"]
    empty = "0198ffff-0000-7000-8000-00000000e0e0"
    assert sessions[f"pi:{empty}"]["warnings"] == [
        f"{h.sessions[empty].name}: first line is not a session header; id taken from the file name"]

    target = tmp_path / "bob-home"
    res, p = cli_json(tmp_path, "restore", "--all", "--to", str(target), "--identity",
                      str(tmp_path / "keys" / "identity.txt"))
    files = tree_bytes(target)
    for sid, f in h.sessions.items():
        want = [k for k in files if k.startswith(".pi/agent/sessions/--home-") and k.endswith(f"_{sid}.jsonl")]
        assert len(want) == 1, (sid, sorted(files))
        restored = files[want[0]]
        if f.stat().st_size:
            header = json.loads(restored.split(b"\n", 1)[0])
            # pi lists a session under the folder its header cwd names
            assert want[0].split("/")[3] == folder(header["cwd"]), (want[0], header["cwd"])
        assert USER.encode() not in restored.lower() and USER not in want[0]
        for priv in h.canaries.all_private():
            assert priv.encode() not in restored


def test_pi_caller_supplied_session_id_named_as_archived(tmp_path: Path) -> None:
    """`pi --session-id wanda-refactor-auth`: the id is in the file name after pi's `<ts>_`. The
    archive redacts the id in the session key; the file name (and the `<id>.tmp/` folder of its
    bash output) must carry the same redacted id, not the user name the path rules keep beside `_`."""
    home = tmp_path / USER
    c = Canaries(prefix="PID")
    sid = f"{USER}-refactor-auth"
    cwd = f"{HOME_PREFIX}/src/p"
    log = tmp_path / "tmpdir" / "pi-bash-00000000000000aa.log"
    log.parent.mkdir()
    log.write_text(c.text("pi custom id bash log"))
    d = home / ".pi" / "agent" / "sessions" / folder(cwd)
    d.mkdir(parents=True)
    (d / f"2026-01-01T10-00-00-000Z_{sid}.jsonl").write_bytes(
        line({"type": "session", "version": 3, "id": sid, "timestamp": "2026-01-01T10:00:00.000Z", "cwd": cwd})
        + line({"type": "message", "id": "aaaa0001", "parentId": None, "timestamp": "2026-01-01T10:00:01.000Z",
                "message": {"role": "bashExecution", "command": "make", "output": c.text("pi custom id output"),
                            "exitCode": 0, "cancelled": False, "truncated": True, "fullOutputPath": str(log),
                            "timestamp": 1767261601000}}))
    write_config(tmp_path, home, ["pi"])
    out, p = cli_json(tmp_path, "sync")
    read = read_store(tmp_path)
    assert not leaks(read, [USER, *c.all_private()]), leaks(read, [USER, *c.all_private()])[:5]
    (s,) = read.latest()["sessions"]
    archived_id = s["key"].split(":", 1)[1]
    assert archived_id != sid and archived_id.endswith("-refactor-auth")
    paths = sorted(a["path"] for a in s["artifacts"])
    assert paths == [f".pi/agent/sessions/{folder(cwd).replace(USER, archived_id.split('-refactor')[0])}/"
                     f"{name}" for name in (f"2026-01-01T10-00-00-000Z_{archived_id}.jsonl",
                                            f"{archived_id}.tmp/{log.name}")], paths
    target = tmp_path / "bob-home"
    cli_json(tmp_path, "restore", "--all", "--to", str(target), "--identity", str(tmp_path / "keys" / "identity.txt"))
    (restored,) = (target / ".pi" / "agent" / "sessions").glob("*/*.jsonl")
    header = json.loads(restored.read_bytes().split(b"\n", 1)[0])
    # pi's own naming: `<ts>_<header id>.jsonl`
    assert restored.name == f"2026-01-01T10-00-00-000Z_{header['id']}.jsonl" and header["id"] == archived_id


def test_pi_restore_one_family_into_another_home(synced: tuple[Path, PiHome, Any]) -> None:
    base, h, _ = synced
    fork = next(iter(h.forks))
    target = base / "bob-family"
    cli_json(base, "restore", f"pi:{fork}", "--with-family", "--to", str(target), "--identity",
             str(base / "keys" / "identity.txt"))
    names = {p.name for p in (target / ".pi" / "agent" / "sessions").glob("*/*.jsonl")}
    family = {fork, *(parent for parent, _ in h.forks.values()), *h.forks}
    assert names == {h.sessions[sid].name for sid in family}, names
