"""The ten-year reader: an archive written by the real CLI (six harnesses, several runs,
two hosts, an append-only transcript over several objects, a file gone, a forgotten
session) read back by tests/fx_s18_reader.py, which knows only docs/FORMAT.md, `age`
and `zstd`. Its output must equal `archiver restore --all` file for file, byte for
byte (but for the absolute paths restore points at the copies it wrote: _RELINKED), and it must see the sessions and lineage edges `archiver ls --json` lists."""

from __future__ import annotations

import contextlib
import io
import json
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

import pytest

from archiver.cli import main
from archiver.demo import claude_sample
from archiver.demo.run import make_sample_home
from archiver.store import StoreOptions
from tests import fx_s18_reader as reader
from tests.fx_home import HARNESSES, isolate_env
from tests.fx_s3 import s3_bucket_url, s3_client, s3_server  # noqa: F401


EMPTY_WHOLE = ".codex/shell_snapshots/0199b0c1-2d3e-7f40-8a1b-00000000000c.1767323045000000000.sh"
EMPTY_SID = "0e0e0e0e-0000-4000-8000-00000000e0e0"


@dataclass
class Host:
    name: str
    home: Path
    config: Path


def _cli(cfg: Path, *args: str, expect: int | None = 0) -> Any:
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        code = main([args[0], "--config", str(cfg), *args[1:], "--json"])
    out = json.loads(buf.getvalue()) if buf.getvalue().strip() else {}
    if expect is not None:
        assert code == expect, json.dumps(out)
    out["exit"] = code
    return out


def _host(base: Path, name: str, store_url: str) -> Host:
    keys = base / "keys"
    home, cfg = base / name / "home", base / name / "config.toml"
    home.mkdir(parents=True)
    cfg.write_text(
        f'home = "{home}"\nhost = "{name}"\n'
        f'[redaction]\nteam_key_file = "{keys / "team.key"}"\nusernames = ["alice"]\n'
        f'[encryption]\nrecipients_file = "{keys / "recipient.txt"}"\n'
        f'[store]\nurl = "{store_url}"\n'
        f'[state]\ndir = "{base / name / "state"}"\n'
    )
    return Host(name, home, cfg)


@dataclass
class Scenario:
    base: Path
    store: Path
    keys: Path
    a: Host
    b: Host
    forgotten: str
    appended: str


@pytest.fixture(scope="module")
def scenario(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Scenario]:
    mp = pytest.MonkeyPatch()
    isolate_env(mp)
    base = tmp_path_factory.mktemp("s18reader")
    base.chmod(0o700)
    store = base / "store"
    store.mkdir()
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["keygen", "--out", str(base / "keys")]) == 0
    url = f"file://{store}"
    a, b = _host(base, "laptop", url), _host(base, "desktop", url)
    made = make_sample_home(a.home, "alice")
    cl = made["claude-code"]
    pdir = cl.root / "projects" / cl.project_key
    (a.home / EMPTY_WHOLE).write_bytes(b"")  # an empty whole file (a shell snapshot of Codex thread c)
    (pdir / f"{EMPTY_SID}.jsonl").write_bytes(b"")  # an append-only file with no line yet
    _cli(a.config, "sync", "--workers", "1")
    claude_sample.append_turn(cl, "second run", 2)
    _cli(a.config, "sync", "--workers", "1")
    claude_sample.append_turn(cl, "third run", 1)
    (pdir / cl.main / "subagents" / f"agent-{cl.subagent}.meta.json").unlink()  # gone from the machine
    _cli(a.config, "sync", "--workers", "1")
    forgotten = f"pi:{made['pi']['sessions']['main']}"  # its forks keep naming it as parent
    _cli(a.config, "forget-session", forgotten, "--grace", "0", "--identity", str(base / "keys" / "identity.txt"))
    claude_sample.append_turn(cl, "after forget", 1)
    _cli(a.config, "sync", "--workers", "1")  # the forgotten session is still on disk: not archived again
    # a second host of the team: the same Claude sessions (same seed), changed there later
    cb = claude_sample.make_claude_home(b.home, "alice")
    claude_sample.append_turn(cb, "on the desktop", 4)
    with (cb.root / "history.jsonl").open("a") as f:  # the host file differs from the laptop's
        f.write(json.dumps({"display": "desktop only", "project": "/home/alice/work/app", "timestamp": 1}) + "\n")
    _cli(b.config, "sync", "--workers", "1")
    yield Scenario(base, store, base / "keys", a, b, forgotten, f"claude-code:{cl.main}")
    mp.undo()


def _tree(root: Path) -> dict[str, Path]:
    return {p.relative_to(root).as_posix() + ("/" if p.is_dir() else ""): p for p in root.rglob("*")}


def _dump(db: Path, target: Path) -> list[str]:
    text = subprocess.run(["sqlite3", str(db), ".dump"], capture_output=True, text=True, check=True).stdout
    return _relinks_named(text.encode()).decode().replace(str(target.resolve()), "<TARGET>").splitlines()


# Absolute paths that restore points at the copies it wrote under its target (s30: pi's
# fullOutputPath temp files, Claude's legacy sessions-index.json fullPath; s32: Claude's
# persistedOutputPath, its <persisted-output> preview and an Agent outputFile, OpenCode's
# metadata.outputPath, a DeepSeek parentSession; s33: Codex's saved_path / savedPath), where the archive and this reader keep the value
# as archived: compared by the file name they end with.
_RELINKED = re.compile(rb'("(?:fullOutputPath|fullPath|parentSession|persistedOutputPath|outputFile|outputPath|saved_path|savedPath)"'
                       rb'[ \t]*:[ \t]*)"((?:[^"\\]|\\.)*)"')
_PREVIEW = re.compile(rb'("<persisted-output>(?:[^"\\]|\\.)*?Full output saved to: )([^"\\]+?)(?=\\n|"|</persisted-output>)')


def _relinks_named(data: bytes) -> bytes:
    data = _RELINKED.sub(lambda m: m.group(1) + b'"' + re.split(rb"/|\\\\", m.group(2))[-1] + b'"', data)
    return _PREVIEW.sub(lambda m: m.group(1) + m.group(2).rsplit(b"/", 1)[-1], data)


def _same_file(a: Path, ta: Path, b: Path, tb: Path) -> bool:
    da, db_ = a.read_bytes(), b.read_bytes()
    if a.suffix in (".jsonl", ".json"):
        da, db_ = _relinks_named(da), _relinks_named(db_)
    if da.startswith(b"SQLite format 3\0"):  # FORMAT.md §5.1: merged databases compare by .dump
        return _dump(a, ta) == _dump(b, tb)
    if a.name.endswith(".jsonl.zst"):  # §5: compressed again on restore, compare decompressed
        unz = [subprocess.run(["zstd", "-d", "-q", "-c"], input=d, capture_output=True, check=True).stdout
               for d in (da, db_)]
        return _relinks_named(unz[0]) == _relinks_named(unz[1])
    return da == db_


@pytest.fixture(scope="module")
def both(scenario: Scenario) -> tuple[Path, Path, dict[str, Any], reader.Result]:
    s = scenario
    cli_out, mine = s.base / "restored", s.base / "reader"
    r = _cli(s.a.config, "restore", "--all", "--to", str(cli_out), "--identity", str(s.keys / "identity.txt"),
             expect=3)
    arch = reader.load(reader.FileStore(s.store), s.keys / "identity.txt", (s.keys / "team.key").read_text())
    return cli_out, mine, r, reader.restore_all(arch, mine)


def test_reader_output_equals_restore_all_byte_for_byte(both: tuple[Path, Path, dict[str, Any], reader.Result]) -> None:
    cli_out, mine, r, res = both
    a, b = _tree(cli_out), _tree(mine)
    assert sorted(a) == sorted(b)
    assert len([p for p in a if not p.endswith("/")]) > 80
    differ = [p for p in a if not p.endswith("/") and not _same_file(a[p], cli_out, b[p], mine)]
    assert differ == []
    merged = set(res.merged) | {p for p, _ in res.conflicts}
    for p in res.files:
        if p not in merged and not p.startswith(".local/share/opencode/opencode"):
            assert a[p].stat().st_mtime_ns == b[p].stat().st_mtime_ns, p
    assert any(a[p].stat().st_mtime_ns % 10**9 for p in res.files)  # not cut to whole seconds


def test_two_hosts_host_file_is_the_first_hosts_and_the_other_is_reported(
        scenario: Scenario, both: tuple[Path, Path, dict[str, Any], reader.Result]) -> None:
    cli_out, mine, r, res = both
    assert [c[0] for c in res.conflicts] == [".claude/history.jsonl"]
    assert len(r["refused"]) == 1 and "'.claude/history.jsonl'" in r["refused"][0]
    hosts = sorted(reader.host_id((scenario.keys / "team.key").read_text(), n) for n in ("laptop", "desktop"))
    assert res.conflicts[0][1] == [f"claude-code:@host@{hosts[1]}"]
    desktop_first = hosts[0] == reader.host_id((scenario.keys / "team.key").read_text(), "desktop")
    assert (b"desktop only" in (mine / ".claude/history.jsonl").read_bytes()) == desktop_first


def test_reader_sees_the_sessions_and_edges_ls_lists(scenario: Scenario) -> None:
    s = scenario
    idf = ("--identity", str(s.keys / "identity.txt"))
    listed = {(x["key"], x["host_id"] if x["kind"] == "host" else "") for x in _cli(s.a.config, "ls", *idf)["sessions"]}
    arch = reader.load(reader.FileStore(s.store), s.keys / "identity.txt", (s.keys / "team.key").read_text())
    states = reader.latest(arch)
    assert set(states) == listed
    assert {k.split(":")[0] for k, _ in listed} == set(HARNESSES)
    assert ("claude-code:@host", "") not in listed and len([k for k in listed if k[0] == "claude-code:@host"]) == 2
    edges = {(e["child"], e["parent"], e["relation"]) for e in _cli(s.a.config, "lineage", *idf)["edges"]}
    assert reader.lineage_edges(states.values()) == edges
    assert any(p == s.forgotten for _, p, _ in edges)  # its forks still name the forgotten parent


def test_forgotten_session_is_gone_and_its_tombstone_names_it(scenario: Scenario) -> None:
    s = scenario
    team = (s.keys / "team.key").read_text()
    arch = reader.load(reader.FileStore(s.store), s.keys / "identity.txt", team)
    assert reader.tomb_id(arch.k_obj, s.forgotten) in arch.tombstones  # type: ignore[arg-type]
    assert (s.store / "tombstones" / reader.tomb_id(arch.k_obj, s.forgotten)).read_bytes() == b""  # type: ignore[arg-type]
    assert s.forgotten not in {k for k, _ in reader.latest(arch)}
    # without the team key the rewritten manifests already leave it out
    blind = reader.load(reader.FileStore(s.store), s.keys / "identity.txt")
    assert set(reader.latest(blind)) == set(reader.latest(arch))


def test_transcript_spans_several_objects_and_the_newer_host_copy_wins(scenario: Scenario) -> None:
    s = scenario
    team = (s.keys / "team.key").read_text()
    arch = reader.load(reader.FileStore(s.store), s.keys / "identity.txt", team)
    laptop = reader.host_id(team, "laptop")
    lists = [next(a["objects"] for x in m.doc["sessions"] if x["key"] == s.appended for a in x["artifacts"]
                  if a["role"] == "transcript")
             for m in sorted(arch.manifests, key=lambda m: m.created) if m.host == laptop]
    assert len(lists[-1]) >= 4 and len(set(map(tuple, lists))) >= 4
    for older, newer in zip(lists, lists[1:]):  # §6.4: a later state's list starts with the earlier one
        assert newer[: len(older)] == older
    st = reader.latest(arch)[(s.appended, "")]
    assert st.manifest.host == reader.host_id(team, "desktop")
    tr = next(a for a in st.session["artifacts"] if a["role"] == "transcript")
    assert b"on the desktop" in reader.read_artifact(arch, tr) and b"third run" not in reader.read_artifact(arch, tr)


def test_empty_files(scenario: Scenario, both: tuple[Path, Path, dict[str, Any], reader.Result]) -> None:
    s = scenario
    arch = reader.load(reader.FileStore(s.store), s.keys / "identity.txt", (s.keys / "team.key").read_text())
    arts = {a["path"]: a for st in reader.latest(arch).values() for a in st.session["artifacts"]}
    empty_tr = next(p for p in arts if p.endswith(f"{EMPTY_SID}.jsonl"))
    empty_whole = EMPTY_WHOLE
    assert arts[empty_tr]["objects"] == [] and arts[empty_tr]["size"] == 0
    assert len(arts[empty_whole]["objects"]) == 1 and reader.read_artifact(arch, arts[empty_whole]) == b""
    mine = both[1]
    assert (mine / empty_tr).read_bytes() == b"" and (mine / empty_whole).read_bytes() == b""


def test_reader_refuses_tampered_objects(scenario: Scenario, tmp_path: Path) -> None:
    s = scenario
    copy = tmp_path / "store"
    subprocess.run(["cp", "-a", str(s.store), str(copy)], check=True)
    arch = reader.load(reader.FileStore(copy), s.keys / "identity.txt", (s.keys / "team.key").read_text())
    laptop = max((m for m in arch.manifests if m.host == reader.host_id(arch.team_key or "", "laptop")),
                 key=lambda m: m.created)
    tr = next(a for x in laptop.doc["sessions"] if x["key"] == s.appended for a in x["artifacts"]
              if a["role"] == "transcript")
    victim, other = tr["objects"][0], tr["objects"][1]  # swap two segments: every age check still passes
    vp, op = copy / "objects" / victim[:2] / victim, copy / "objects" / other[:2] / other
    vb, ob = vp.read_bytes(), op.read_bytes()
    vp.write_bytes(ob)
    op.write_bytes(vb)
    with pytest.raises(reader.ReaderError, match="id does not match"):
        reader.read_artifact(arch, tr)
    arch.team_key = None  # without the team key, the §5 chain still catches it
    with pytest.raises(reader.ReaderError, match="sha256 mismatch"):
        reader.read_artifact(arch, tr)


def test_reader_on_s3_equals_restore_all(scenario: Scenario, s3_bucket_url: tuple[str, StoreOptions],  # noqa: F811
                                         tmp_path: Path) -> None:
    """The same layout in a bucket (moto on 127.0.0.1), read with ListObjectsV2 and GetObject."""
    s, (url, opts) = scenario, s3_bucket_url
    cfg = tmp_path / "s3.toml"
    text = s.a.config.read_text().replace(f'url = "file://{s.store}"', f'url = "{url}"\nendpoint_url = '
                                          f'"{opts.endpoint_url}"\nregion = "{opts.region}"')
    cfg.write_text(text.replace(str(s.base / "laptop" / "state"), str(tmp_path / "state")))
    _cli(cfg, "sync", "--workers", "1")
    cli_out, mine = tmp_path / "restored", tmp_path / "reader"
    _cli(cfg, "restore", "--all", "--to", str(cli_out), "--identity", str(s.keys / "identity.txt"))
    store = reader.open_store(url, s3_client(str(opts.endpoint_url)))
    assert any(k.startswith("snapshots/") and k.endswith(".json.age") for k in store.list("snapshots/"))
    res = reader.restore_all(reader.load(store, s.keys / "identity.txt", (s.keys / "team.key").read_text()), mine)
    assert res.conflicts == [] and res.skipped == []
    a, b = _tree(cli_out), _tree(mine)
    assert sorted(a) == sorted(b)
    assert [p for p in a if not p.endswith("/") and not _same_file(a[p], cli_out, b[p], mine)] == []
