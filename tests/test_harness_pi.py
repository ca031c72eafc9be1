"""pi collector on a generated agent dir (archiver/demo/pi_sample.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from archiver.harnesses.base import HarnessContext, load_harness
from archiver.model import DiscoveredSession, LineageEdge
from archiver.demo.pi_sample import make_pi_home


def discover(home: Path, env: dict[str, str] | None = None, **options: object) -> dict[str, DiscoveredSession]:
    h = load_harness("pi", HarnessContext(home=home, env=env or {}, options=dict(options)))
    return {s.key: s for s in h.discover()}


def k(sid: str) -> str:
    return f"pi:{sid}"


@pytest.fixture()
def pi(tmp_path: Path) -> tuple[Path, dict]:
    home = tmp_path / "home"
    return home, make_pi_home(home)


def test_sessions_lineage_titles_and_sources(pi: tuple[Path, dict]) -> None:
    home, info = pi
    s_ids, f = info["sessions"], info["files"]
    found = discover(home, session_dir=str(info["custom_dir"]))
    assert set(found) == {k(s_ids[n]) for n in ("main", "fork", "orphan_fork", "legacy", "custom")}
    assert {key: s.kind for key, s in found.items()} == {
        k(s_ids["main"]): "main", k(s_ids["fork"]): "fork", k(s_ids["orphan_fork"]): "fork",
        k(s_ids["legacy"]): "main", k(s_ids["custom"]): "main",
    }
    assert {key: s.parents for key, s in found.items() if s.parents} == {
        # the leaf the /fork copied the path to: the last entry of main the fork file holds
        k(s_ids["fork"]): [LineageEdge(relation="fork", parent=k(s_ids["main"]), at="f6a7b8c9", inferred=False)],
        k(s_ids["orphan_fork"]): [LineageEdge(relation="fork", parent=k(s_ids["gone_parent"]), at=None, inferred=False)],
    }
    assert found[k(s_ids["main"])].title == "Build the webapp (scripted)"  # last session_info wins
    assert found[k(s_ids["fork"])].title is None
    assert found[k(s_ids["main"])].created_at == "2026-01-01T10:00:00.000Z"
    assert found[k(s_ids["custom"])].cwd == "/home/alice/work/api"

    folder = f".pi/agent/sessions/{info['folder']}"
    main = found[k(s_ids["main"])]
    assert {(a.path, a.role, a.format, a.mode, a.optional) for a in main.sources} == {
        (f"{folder}/{f['main'].name}", "transcript", "jsonl", "append", False),
        (f"{folder}/{s_ids['main']}.tmp/{info['kept_output'].name}", "sidecar", "text", "whole", True),
    }
    side = next(a for a in main.sources if a.role == "sidecar")
    assert side.source == info["kept_output"]
    # v1 file: rewritten by pi on open, so never treated as append-only
    assert [(a.path, a.mode) for a in found[k(s_ids["legacy"])].sources] == [(f"{folder}/{f['legacy'].name}", "whole")]
    # a file from the flat custom dir gets its default-layout path from the header cwd
    assert [(a.path, a.mode, a.source) for a in found[k(s_ids["custom"])].sources] == [
        (f".pi/agent/sessions/{info['custom_folder']}/{f['custom'].name}", "append", f["custom"])
    ]
    assert [a.path for a in found[k(s_ids["fork"])].sources] == [f"{folder}/{f['fork'].name}"]


def test_warnings_missing_temp_file_and_gone_parent(pi: tuple[Path, dict]) -> None:
    home, info = pi
    s_ids, f = info["sessions"], info["files"]
    found = discover(home)
    assert found[k(s_ids["main"])].warnings == [
        f"{f['main'].name}: fullOutputPath {info['gone_output']} no longer exists (temporary file)"
    ]
    assert found[k(s_ids["orphan_fork"])].warnings == [
        f"parentSession {info['gone_parent_file']} is gone; parent id {s_ids['gone_parent']} taken from its file name"
    ]
    assert not found[k(s_ids["fork"])].warnings
    # without the custom dir configured, its session is not found
    assert k(s_ids["custom"]) not in found


def test_branches_stay_in_one_session(pi: tuple[Path, dict]) -> None:
    home, info = pi
    found = discover(home)
    main = found[k(info["sessions"]["main"])]
    assert [a.source for a in main.sources if a.role == "transcript"] == [info["files"]["main"]]
    # both branches (two children of a1b2c3d4) are in that one file
    entries = [json.loads(line) for line in info["files"]["main"].read_text().splitlines()[1:]]
    assert sorted(e["id"] for e in entries if e.get("parentId") == "a1b2c3d4") == ["b2c3d4e5", "d0e1f2a3"]


def test_env_overrides(pi: tuple[Path, dict], tmp_path: Path) -> None:
    home, info = pi
    agent = tmp_path / "elsewhere" / "agent"
    moved = make_pi_home(tmp_path / "other-home", agent_dir=agent)
    found = discover(home, env={"PI_CODING_AGENT_DIR": str(agent), "PI_CODING_AGENT_SESSION_DIR": str(moved["custom_dir"])})
    ids = moved["sessions"]
    assert set(found) == {k(ids[n]) for n in ("main", "fork", "orphan_fork", "legacy", "custom")}
    main = found[k(ids["main"])]
    assert main.sources[0].source == moved["files"]["main"]
    assert main.sources[0].path == f".pi/agent/sessions/{moved['folder']}/{moved['files']['main'].name}"
    # parentSession paths point into the overridden dir and still resolve
    assert found[k(ids["fork"])].parents == [LineageEdge(relation="fork", parent=k(ids["main"]), at="f6a7b8c9")]
    # settings.json sessionDir is honoured too
    (agent / "settings.json").write_text(json.dumps({"sessionDir": str(moved["custom_dir"])}))
    found2 = discover(home, env={"PI_CODING_AGENT_DIR": str(agent)})
    assert k(ids["custom"]) in found2


def test_a_relative_session_dir_given_to_pi_is_not_guessed_from_the_archivers_cwd(
        pi: tuple[Path, dict], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """pi resolves a relative sessionDir against the folder it was started in, which nothing
    records: the archiver's own cwd must not stand in for it (it would collect whatever lies there)."""
    home, info = pi
    ids = info["sessions"]
    monkeypatch.chdir(home)  # "pi-sessions" relative to this folder holds the custom session
    (home / ".pi" / "agent" / "settings.json").write_text(json.dumps({"sessionDir": "pi-sessions"}))
    with caplog.at_level("WARNING", logger="archiver.harnesses.pi"):
        found = discover(home, env={"PI_CODING_AGENT_SESSION_DIR": "pi-sessions"})
    assert k(ids["custom"]) not in found
    assert k(ids["main"]) in found
    said = [r.getMessage() for r in caplog.records]
    assert [m.split(" is a relative path")[0] for m in said] == [
        "pi: PI_CODING_AGENT_SESSION_DIR", "pi: sessionDir in pi's settings.json"], said
    assert not [m for m in said if str(home) in m or "pi-sessions" in m], said  # logs are not redacted
    # the archiver's own setting is its to define: relative to HOME (config.py makes a config
    # file's relative path absolute against the config's folder before it gets here)
    monkeypatch.chdir(tmp_path)
    assert k(ids["custom"]) in discover(home, session_dir="pi-sessions")


def test_bad_header_and_bad_lines_are_reported(pi: tuple[Path, dict]) -> None:
    home, info = pi
    folder = info["files"]["main"].parent
    (folder / "2026-02-01T00-00-00-000Z_broken-one.jsonl").write_bytes(b"{not json\n" + b'{"type":"message"}\n')
    with info["files"]["fork"].open("ab") as fh:
        fh.write(b'{"type":"message","id":"zz"\n' + b'{"type":"session_info","id":"c","parentId":"1a2b3c4d","name":"Release"}\n')
        fh.write(b'{"type":"message","id":"torn-tail"')  # being written: not reported
    found = discover(home)
    broken = found[k("broken-one")]
    assert broken.sources[0].mode == "whole"
    assert broken.warnings == [
        "2026-02-01T00-00-00-000Z_broken-one.jsonl: first line is not a session header; id taken from the file name",
        "2026-02-01T00-00-00-000Z_broken-one.jsonl: 1 unparseable line(s) kept as they are (line 1)",
    ]
    fork = found[k(info["sessions"]["fork"])]
    assert fork.title == "Release"
    assert fork.warnings == [f"{info['files']['fork'].name}: 1 unparseable line(s) kept as they are (line 8)"]


def test_full_output_path_in_an_oversized_line(pi: tuple[Path, dict], monkeypatch: pytest.MonkeyPatch) -> None:
    import archiver.harnesses.pi as pimod

    home, info = pi
    monkeypatch.setattr(pimod, "MAX_LINE", 4096)
    big = home / "tmp" / "pi-bash-00000000000000aa.log"
    big.write_text("big output\n")
    entry = {"type": "message", "id": "99999999", "parentId": "a7b8c9d0", "timestamp": "2026-01-01T12:00:00.000Z",
             "message": {"role": "toolResult", "toolCallId": "call_9", "toolName": "bash",
                         "content": [{"type": "text", "text": "y" * (3 * 1024 * 1024)}],
                         "details": {"fullOutputPath": str(big)}, "isError": False, "timestamp": 1767268800000}}
    with info["files"]["main"].open("ab") as fh:
        fh.write(json.dumps(entry).encode() + b"\n")
    h = load_harness("pi", HarnessContext(home=home, env={}))
    found = {s.key: s for s in h.discover()}
    main = found[k(info["sessions"]["main"])]
    assert {a.source for a in main.sources if a.role == "sidecar"} == {info["kept_output"], big}
    assert len(main.warnings) == 1 and "no longer exists" in main.warnings[0]  # the long line is not "bad"


def test_redacted_relpath_rebuilds_the_cwd_folder(pi: tuple[Path, dict]) -> None:
    home, info = pi
    h = load_harness("pi", HarnessContext(home=home, env={}))
    found = {s.key: s for s in h.discover()}
    main = found[k(info["sessions"]["main"])]

    def redact_text(s: str) -> str:
        return s.replace("/home/alice/", "/home/user-5f2a/")

    out = [h.redacted_relpath(a, main, lambda p: p, redact_text) for a in main.sources]  # type: ignore[attr-defined]
    assert out == [
        f".pi/agent/sessions/--home-user-5f2a-work-webapp--/{info['files']['main'].name}",
        f".pi/agent/sessions/--home-user-5f2a-work-webapp--/{info['sessions']['main']}.tmp/{info['kept_output'].name}",
    ]


def test_a_byte_order_mark_before_the_header_is_no_content(pi: tuple[Path, dict]) -> None:
    """A fork whose header line starts with a UTF-8 BOM (saved by an editor) keeps its parent."""
    home, info = pi
    s_ids, f = info["sessions"], info["files"]
    f["fork"].write_bytes(b"\xef\xbb\xbf" + f["fork"].read_bytes())
    found = discover(home, session_dir=str(info["custom_dir"]))
    fork = found[k(s_ids["fork"])]
    assert fork.kind == "fork"
    assert fork.parents == [LineageEdge(relation="fork", parent=k(s_ids["main"]), at="f6a7b8c9", inferred=False)]


def test_a_session_info_without_a_name_clears_the_title(pi: tuple[Path, dict]) -> None:
    """Seed: session_info.name is optional; the latest entry wins and an empty name clears."""
    home, info = pi
    main = info["files"]["main"]
    sid = info["sessions"]["main"]
    assert discover(home)[k(sid)].title == "Build the webapp (scripted)"
    with main.open("ab") as fh:
        fh.write(b'{"type":"session_info","id":"e0e0e0e0","parentId":"a7b8c9d0","timestamp":"2026-01-01T12:00:00.000Z"}\n')
    assert discover(home)[k(sid)].title is None
    with main.open("ab") as fh:
        fh.write(b'{"type":"session_info","id":"e1e1e1e1","parentId":"e0e0e0e0","timestamp":"2026-01-01T12:01:00.000Z","name":"Ship it"}\n')
        fh.write(b'{"type":"session_info","id":"e2e2e2e2","parentId":"e1e1e1e1","timestamp":"2026-01-01T12:02:00.000Z","name":""}\n')
    assert discover(home)[k(sid)].title is None


def _entry(eid: str, parent: str | None, kind: str = "message", **extra: object) -> dict:
    rec: dict = {"type": kind, "id": eid, "parentId": parent, "timestamp": "2026-03-01T10:00:00.000Z", **extra}
    if kind == "message" and "message" not in extra:
        rec["message"] = {"role": "user", "content": f"entry {eid}", "timestamp": 1772359200000}
    return rec


def _write(path: Path, records: list[dict]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(json.dumps(r, separators=(",", ":")).encode() + b"\n" for r in records))
    return path


def test_fork_point_is_the_last_entry_copied_from_the_parent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Seed linking "forks": /fork and /clone write the root->leaf path (labels dropped and
    re-emitted at the end), forkFrom() copies every entry; ids are kept in both. The fork
    point is the last copied entry, whatever the parent appended afterwards."""
    import archiver.harnesses.pi as pimod

    home = tmp_path / "home"
    cwd = "/home/alice/work/svc"
    folder = home / ".pi" / "agent" / "sessions" / pimod.cwd_dir_name(cwd)
    parent_id, clone_id, copy_id, empty_id = (f"01890a5d-0000-7000-8000-00000000000{i}" for i in range(1, 5))
    head = {"type": "session", "version": 3, "timestamp": "2026-03-01T10:00:00.000Z", "cwd": cwd}
    path = [_entry("10000001", None), _entry("10000002", "10000001", "model_change", provider="p", modelId="m"),
            _entry("10000003", "10000002")]
    side = _entry("10000004", "10000002")  # another branch of the parent, not on the copied path
    label = _entry("10000005", "10000003", "label", targetId="10000001", label="start")
    later = _entry("10000006", "10000003")  # the parent went on after the fork
    parent = _write(folder / f"2026-03-01T10-00-00-000Z_{parent_id}.jsonl",
                    [{**head, "id": parent_id}, *path, side, label, later])
    # /clone: the path, the label re-emitted (a new entry), then the clone's own turn
    _write(folder / f"2026-03-02T10-00-00-000Z_{clone_id}.jsonl",
           [{**head, "id": clone_id, "parentSession": str(parent)}, *path,
            _entry("20000001", "10000003", "label", targetId="10000001", label="start"),
            _entry("20000002", "20000001"), _entry("20000003", "20000002")])
    # forkFrom(): every entry at the time verbatim (the last one a label), then its own
    other = home / ".pi" / "agent" / "sessions" / pimod.cwd_dir_name("/home/alice/work/other")
    _write(other / f"2026-03-03T10-00-00-000Z_{copy_id}.jsonl",
           [{**head, "id": copy_id, "cwd": "/home/alice/work/other", "parentSession": str(parent)},
            *path, side, label, _entry("30000001", "10000005")])
    # newSession({parentSession}): nothing copied, no fork point
    _write(folder / f"2026-03-04T10-00-00-000Z_{empty_id}.jsonl",
           [{**head, "id": empty_id, "parentSession": str(parent)}, _entry("40000001", None)])
    found = discover(home)
    assert {key: [(e.relation, e.parent, e.at) for e in s.parents] for key, s in found.items() if s.parents} == {
        k(clone_id): [("fork", k(parent_id), "10000003")],
        k(copy_id): [("fork", k(parent_id), "10000003")],  # the label copied last hangs under it
        k(empty_id): [("fork", k(parent_id), None)],
    }
    # a copied entry too long to parse is still recognised by its id
    monkeypatch.setattr(pimod, "MAX_LINE", 4096)
    big = _entry("10000007", "10000006", message={"role": "user", "content": "x" * 8192, "timestamp": 1})
    with parent.open("ab") as fh:
        fh.write(json.dumps(big, separators=(",", ":")).encode() + b"\n")
    big_fork = "01890a5d-0000-7000-8000-000000000005"
    _write(folder / f"2026-03-05T10-00-00-000Z_{big_fork}.jsonl",
           [{**head, "id": big_fork, "parentSession": str(parent)}, *path, later, big, _entry("50000001", "10000007")])
    assert discover(home)[k(big_fork)].parents == [LineageEdge(relation="fork", parent=k(parent_id), at="10000007")]


def test_fork_point_is_cached_per_state_of_both_files(pi: tuple[Path, dict], tmp_path: Path) -> None:
    from archiver.state import DiscoveryCache, State

    home, info = pi
    s_ids = info["sessions"]
    cache = DiscoveryCache(State(tmp_path / "state.db"))
    h = load_harness("pi", HarnessContext(home=home, env={}, cache=cache))
    assert {s.key: s for s in h.discover()}[k(s_ids["fork"])].parents[0].at == "f6a7b8c9"
    keys = [key for key in cache if key.startswith("pi:fork-point:")]
    assert len(keys) == 1 and json.loads(cache[keys[0]]) == ["f6a7b8c9"]
