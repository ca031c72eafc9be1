"""End to end, Claude Code only, on a HOME written from the seed (tests/fx_s17_e2ecc.py), through
the real CLI (`python -m archiver` in its own process) against a file:// store: sync, ls, lineage,
verify --read-data, restore (one session; a family relocated to another home), export, a re-sync
after an append. The archive is read with the `age` and `zstd` CLIs, not this project's code."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
from dataclasses import dataclass
from typing import Any, Iterator

import pytest

from archiver.harnesses.claude_code import project_key
from tests.fx_s11_e2e import Setup, artifact_bytes, configure, decrypt_all, latest_manifest
from tests.fx_s17_e2ecc import Plan, build, js_key
from tests.fx_s32_relinks import claude_relinked

USER = "zq.canary"
PREFIX = ".claude/projects/"


@dataclass
class Box(Setup):
    """fx_s11_e2e's CLI kit with every command's exit code checked (0 unless told) and the plan
    of the home build() wrote."""
    plan: Plan = None  # type: ignore[assignment]  # set by the fixture

    def cli(self, *args: str, expect: int | None = 0) -> subprocess.CompletedProcess[str]:
        return super().cli(*args, expect=expect)


@pytest.fixture(scope="module")
def box(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Box]:
    base = tmp_path_factory.mktemp("s17e2ecc")
    base.chmod(0o700)
    home = base / "home" / USER
    home.mkdir(parents=True)
    b = Box(base=base, home=home, plan=build(home, USER))
    configure(b, ("claude-code",), user=USER, host="laptop-of-zq")
    first = b.json("sync", "--workers", "1")
    b.plan.uuids["first_sync"] = json.dumps(first)
    yield b
    shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(scope="module")
def plain(box: Box) -> dict[str, bytes]:
    return decrypt_all(box)


def sessions(plain: dict[str, bytes], index: int = -1) -> dict[str, dict[str, Any]]:
    return {s["key"]: s for s in latest_manifest(plain, index)["sessions"]}


def tail(path: str) -> str:
    """The part of an archived path below the project folder (its name is derived from the cwd)."""
    return path[len(PREFIX):].partition("/")[2] if path.startswith(PREFIX) else path


def test_sync_uploads_every_session_and_reports_the_broken_ones_by_name(box: Box, plain: dict[str, bytes]) -> None:
    first = json.loads(box.plan.uuids["first_sync"])
    assert first["sessions"]["failed"] == 0 and first["errors"] == []
    assert first["sessions"]["uploaded"] == len(box.plan.files) == 15
    warned = first["session_warnings"]
    corrupt = f"claude-code:{box.plan.sids['corrupt']}"
    assert warned[corrupt] == [f"{box.plan.sids['corrupt']}.jsonl: 1 unparseable line(s) kept as they are (line 2)"]
    broken = f"claude-code:{box.plan.sids['broken_meta_agent']}"
    assert any(f"agent-{box.plan.sids['broken_meta_agent']}.meta.json: not valid JSON" in w for w in warned[broken])
    assert set(warned) == {corrupt, broken}  # the torn last line of the fork is no problem (seed gotcha)


def test_every_file_of_every_session_is_archived(box: Box, plain: dict[str, bytes]) -> None:
    got = sessions(plain)
    assert set(got) == set(box.plan.files)
    for key, files in box.plan.files.items():
        assert sorted(tail(a["path"]) for a in got[key]["artifacts"]) == sorted(tail(f) for f in files), key
        for a in got[key]["artifacts"]:
            data = artifact_bytes(plain, a)
            assert len(data) == a["size"] and hashlib.sha256(data).hexdigest() == a["sha256"], a["path"]
    s1 = got[f"claude-code:{box.plan.sids['main']}"]
    formats = {tail(a["path"]).rpartition("/")[2][-6:]: a["format"] for a in s1["artifacts"]}
    assert "binary" in formats.values()  # the PNG file-history backup
    # the torn line being written is not archived yet; the complete ones are, byte for byte
    fork = got[f"claude-code:{box.plan.sids['fork']}"]["artifacts"][0]
    data = artifact_bytes(plain, fork)
    assert data.endswith(b"\n") and box.plan.uuids["s3_torn"][:40].encode() not in data
    crlf = got[f"claude-code:{box.plan.sids['crlf']}"]["artifacts"][0]
    assert artifact_bytes(plain, crlf).count(b"\r\n") == 2


def test_no_secret_user_name_or_home_in_any_object_path_or_manifest(box: Box, plain: dict[str, bytes]) -> None:
    needles = {**box.plan.secrets, "home": str(box.home), "user": USER, "user-dash": "zq-canary",
               "domain": "zqcorp-mail", "moved-to": "corpmail"}
    assert len(box.plan.secrets) >= 30
    leaks = []
    for rel, data in plain.items():
        low = data.lower()
        for label, value in needles.items():
            if value.lower().encode() in low or value.lower() in rel.lower():
                leaks.append((label, rel))
    assert leaks == []
    keys = [f.relative_to(box.store).as_posix() for f in box.store.rglob("*")]
    assert not [k for k in keys if "zq" in k or "claude" in k]


def test_lineage_edges_follow_the_seed(box: Box, plain: dict[str, bytes]) -> None:
    got = sessions(plain)
    for child, (relation, parent, at) in box.plan.edges.items():
        assert [(p["relation"], p["parent"], p["at"]) for p in got[child]["parents"]] == [(relation, parent, at)], child
    main_key = f"claude-code:{box.plan.sids['main']}"
    assert got[main_key]["parents"] == [] and got[main_key]["kind"] == "main"
    assert got[f"claude-code:{box.plan.sids['fork']}"]["kind"] == "fork"
    tree = box.read("lineage", main_key)
    edges = {(e["child"], e["relation"], e["parent"], e["at"]) for e in tree["edges"]}
    want = {(c, r, p, a) for c, (r, p, a) in box.plan.edges.items()}
    assert edges == want


def test_title_is_found_past_a_multi_megabyte_last_line(box: Box, plain: dict[str, bytes]) -> None:
    # the seed: lines "can be several megabytes when they carry base64 images"; titles are
    # re-appended to the tail, here just before a pasted 5 MB screenshot
    s1 = sessions(plain)[f"claude-code:{box.plan.sids['main']}"]
    assert s1["title"] is not None and s1["title"].startswith("Env work ")
    assert box.plan.secrets["s1.custom_title"] not in s1["title"]


def test_project_folder_is_the_key_of_the_archived_cwd_also_for_an_astral_character(
        box: Box, plain: dict[str, bytes]) -> None:
    assert project_key("/a/😀b.c") == "-a---b-c" == js_key("/a/😀b.c")  # UTF-16 code units, as JavaScript
    s1 = sessions(plain)[f"claude-code:{box.plan.sids['main']}"]
    assert "😀" in s1["cwd"] and USER not in s1["cwd"]
    folders = {a["path"][len(PREFIX):].partition("/")[0] for a in s1["artifacts"] if a["path"].startswith(PREFIX)}
    assert folders == {js_key(s1["cwd"])}


def test_restore_one_session_byte_equal_in_the_harness_layout(box: Box, plain: dict[str, bytes]) -> None:
    key = f"claude-code:{box.plan.sids['main']}"
    target = box.base / "restore-one"
    out = box.read("restore", "--to", str(target), key)
    assert out["errors"] == [] and out["refused"] == [] and out["integrity_errors"] == []
    s1 = sessions(plain)[key]
    restored = sorted(f.relative_to(target).as_posix() for f in target.rglob("*") if f.is_file())
    assert restored == sorted(a["path"] for a in s1["artifacts"])
    for a in s1["artifacts"]:
        want = artifact_bytes(plain, a)
        if a["role"] == "transcript":  # the tool-results files it restored are named under the target
            want = claude_relinked(want, target, restored)
        assert (target / a["path"]).read_bytes() == want, a["path"]
    sid = box.plan.sids["main"]
    assert any(p.startswith(".claude/file-history/" + sid + "/") for p in restored)
    assert any(p.startswith(".claude/session-env/" + sid + "/") for p in restored)
    assert any(p.endswith(f"/{sid}.jsonl") and p.count("/") == 3 for p in restored)


def test_restore_family_relocated_to_another_home(box: Box, plain: dict[str, bytes]) -> None:
    got = sessions(plain)
    key = f"claude-code:{box.plan.sids['main']}"
    old = got[key]["cwd"]
    new = "/srv/build/other-person/прект 🚀 new"
    target = box.base / "restore-family"
    out = box.read("restore", "--to", str(target), "--with-family", "--relocate", f"{old}={new}", key)
    assert out["errors"] == [] and out["refused"] == []
    family = {k for k, (_, p, _) in box.plan.edges.items() if p == key} | {key}
    family |= {k for k, (_, p, _) in box.plan.edges.items() if p in family}
    folder = target / PREFIX / js_key(new)
    assert folder.is_dir(), sorted(p.name for p in (target / PREFIX).iterdir())
    assert (folder / f"{box.plan.sids['main']}.jsonl").is_file()
    assert (folder / f"{box.plan.sids['fork']}.jsonl").is_file()
    assert (folder / f"agent-{box.plan.sids['legacy_agent']}.jsonl").is_file()
    nested = folder / box.plan.sids["main"] / "subagents" / "workflow" / "run-1" / f"agent-{box.plan.sids['nested_agent']}.jsonl"
    assert nested.is_file()
    expected = {tail(a["path"]) for k in family for a in got[k]["artifacts"] if a["path"].startswith(PREFIX)}
    restored = {f.relative_to(folder).as_posix() for f in folder.rglob("*") if f.is_file()}
    assert restored == expected
    first = json.loads((folder / f"{box.plan.sids['main']}.jsonl").read_bytes().split(b"\n")[1])
    assert first["cwd"] == new and old not in (folder / f"{box.plan.sids['main']}.jsonl").read_text()


def test_ls_verify_export(box: Box, plain: dict[str, bytes]) -> None:
    listed = {s["key"] for s in box.read("ls")["sessions"]}
    assert listed == set(box.plan.files)
    v = box.read("verify", "--read-data")
    assert v["ok"] is True and v["errors"] == [] and v["objects_read"] == v["objects"] > 0
    key = f"claude-code:{box.plan.sids['main']}"
    md = box.cli("export", key, "--format", "md", "--identity", str(box.identity)).stdout
    for sub in ("agent", "forked_agent", "nested_agent", "legacy_agent"):
        assert f"claude-code:{box.plan.sids[sub]}" in md
    assert not [label for label, v in box.plan.secrets.items() if v in md]
    assert USER not in md and str(box.home) not in md


def test_resync_after_append_uploads_only_the_new_part(box: Box, plain: dict[str, bytes]) -> None:
    sid = box.plan.sids["main"]
    before = sessions(plain)[f"claude-code:{sid}"]
    transcript = next(a for a in before["artifacts"] if a["path"].endswith(f"/{sid}.jsonl"))
    src = next(box.home.joinpath(".claude/projects").glob(f"*/{sid}.jsonl"))
    line = {"type": "user", "uuid": "0f0f0f0f-0000-4000-8000-000000000001", "parentUuid": box.plan.uuids["s1_last"],
            "isSidechain": False, "sessionId": sid, "timestamp": "2026-10-21T09:00:00.000Z", "userType": "external",
            "cwd": box.plan.cwds["main"], "message": {"role": "user", "content": "one more thing"}}
    with src.open("ab") as f:
        f.write(json.dumps(line, ensure_ascii=False).encode() + b"\n")
    fork_sid = box.plan.sids["fork"]
    fork_before = sessions(plain)[f"claude-code:{fork_sid}"]["artifacts"][0]
    with next(box.home.joinpath(".claude/projects").glob(f"*/{fork_sid}.jsonl")).open("ab") as f:
        f.write(box.plan.uuids["s3_torn_rest"].encode())  # the line being written is finished
    out = box.json("sync", "--workers", "1")
    assert out["sessions"]["uploaded"] == 2 and out["sessions"]["failed"] == 0
    assert out["objects_uploaded"] == 2 and out["bytes"]["uploaded"] < 8192
    latest = sessions(decrypt_all(box))
    fork_after = latest[f"claude-code:{fork_sid}"]["artifacts"][0]
    assert fork_after["objects"][:1] == fork_before["objects"] and len(fork_after["objects"]) == 2
    after = latest[f"claude-code:{sid}"]
    t2 = next(a for a in after["artifacts"] if a["path"] == transcript["path"])
    assert t2["objects"][: len(transcript["objects"])] == transcript["objects"] and len(t2["objects"]) == 2
    assert t2["size"] > transcript["size"]


def test_relocated_transcript_folder_is_rebuilt_from_the_cwd_it_moved_to(box: Box, plain: dict[str, bytes]) -> None:
    s9 = sessions(plain)[f"claude-code:{box.plan.sids['relocated']}"]
    folder = s9["artifacts"][0]["path"][len(PREFIX):].partition("/")[0]
    moved = [p for p in (json.loads(x) for x in artifact_bytes(plain, s9["artifacts"][0]).splitlines())
             if p.get("type") == "relocated"]
    assert folder == js_key(moved[0]["relocatedCwd"]) and "corpmail" not in folder
