"""restore --relocate, audited from the outside: what the s12 audit found wrong.

- a path that ends a sentence (`You work in /w/app.`) was taken for another name (`/w/app.bak`);
- JSON writers that escape `/` (`\\/w\\/app`) were not followed;
- NEW holding a quote, a backslash or a control character was written as is inside JSON strings
  (the restored transcripts no longer parsed); NEW `/` made `//src/x.py`;
- the cwd-derived folder names inside paths (a pi fork's `parentSession`, Claude's tool-result
  paths) kept the old folder: the fork named a parent file that the restore had put elsewhere;
- a NEW too long for a folder name stopped the whole restore with a traceback.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from archiver.harnesses.claude_code import project_key
from archiver.harnesses.pi import cwd_dir_name
from archiver.relocate import Relocation, RelocationError, Relocator
from tests.fx_archiver import USER, Env, env  # noqa: F401
from tests.test_e2e_harnesses import _generator, _only

OLD = "/home/user-5f2a/work/app"
NEW = "/srv/review/app"


def _rel(*specs: str) -> Relocator:
    return Relocator([Relocation.parse(s) for s in specs])


def test_a_full_stop_after_old_ends_the_sentence_but_a_suffix_is_another_name() -> None:
    r = _rel(f"{OLD}={NEW}")
    assert r.rewrite(f'"You work in {OLD}."'.encode()) == f'"You work in {NEW}."'.encode()
    assert r.rewrite(f"see {OLD}...\n".encode()) == f"see {NEW}...\n".encode()
    assert r.rewrite(f"at end {OLD}.".encode()) == f"at end {NEW}.".encode()
    for other in (f"{OLD}.bak", f"{OLD}..x", f"{OLD}.d/x", f"{OLD}2"):
        assert r.rewrite(other.encode()) == other.encode(), other


def test_json_with_escaped_slashes_is_followed() -> None:
    r = _rel(f"{OLD}={NEW}")
    data = json.dumps({"cwd": OLD, "file": f"{OLD}/src/x.py"}).replace("/", "\\/").encode()
    assert b"\\/home\\/user-5f2a" in data
    out = r.rewrite(data)
    assert json.loads(out) == {"cwd": NEW, "file": f"{NEW}/src/x.py"}
    assert out.count(b"\\/srv\\/review\\/app") == 2
    # another project's escaped path stays
    other = json.dumps({"cwd": f"{OLD}2"}).replace("/", "\\/").encode()
    assert r.rewrite(other) == other


@pytest.mark.parametrize("new", ['/home/bob/my"app', "/home/bob/a\\b", "/home/bob/tab\there", "/home/bob/cr\r",
                                 "/home/bob/\x7f"])
def test_a_new_that_json_strings_would_have_to_escape_is_refused(new: str) -> None:
    with pytest.raises(RelocationError, match="NEW may not hold a quote, a backslash or a control"):
        Relocation.parse(f"{OLD}={new}")


@pytest.mark.parametrize("new", ["/", "//", "/srv/..", "/srv/../.."])
def test_new_may_not_be_the_root(new: str) -> None:
    with pytest.raises(RelocationError, match="NEW may not be /"):
        Relocation.parse(f"{OLD}={new}")


def test_old_and_new_are_normalised_as_the_harnesses_resolve_paths() -> None:
    r = Relocation.parse(f"/{OLD}/=//srv/x/../review/app/")
    assert (r.old, r.new) == (OLD, NEW)
    assert Relocation.parse("/w/app=/srv/a b/é.v2").path("/w/app/x") == "/srv/a b/é.v2/x"


def test_folder_names_inside_paths_follow_the_renamed_folders() -> None:
    prefix = ".pi/agent/sessions/"
    r = _rel("/home/u=/home/bob", "/home/u/work/app=/srv/app").with_folders(
        [(prefix, cwd_dir_name)], ["/home/u/work/app/pkg", None])
    old_ref = f'{{"parentSession":"/home/u/{prefix}{cwd_dir_name("/home/u/work/app/pkg")}/s.jsonl"}}'
    assert json.loads(r.rewrite(old_ref.encode())) == {
        "parentSession": f"/home/bob/{prefix}{cwd_dir_name('/srv/app/pkg')}/s.jsonl"}
    # the project's own folder (an ancestor of the cwd) and an OLD's folder follow too
    for old, new in (("/home/u/work/app", "/srv/app"), ("/home/u", "/home/bob")):
        ref = f"/x/{prefix}{cwd_dir_name(old)}/f".encode()
        assert r.rewrite(ref) == f"/x/{prefix}{cwd_dir_name(new)}/f".encode()
    # a folder of another project, and the folder name without its prefix, stay
    for same in (f"/x/{prefix}{cwd_dir_name('/home/v/app')}/f", f"/x/{cwd_dir_name('/home/u/work/app')}/f",
                 f"/x/a{prefix}{cwd_dir_name('/home/u')}/f"):
        assert r.rewrite(same.encode()) == same.encode(), same


def test_an_archive_without_cwd_renames_the_folder_of_each_old() -> None:
    """Manifests written before `cwd`: a folder is renamed when it is an OLD's; sessions that ran
    in a subfolder of the project are moved by naming that subfolder too (README)."""
    folders = [(".claude/projects/", project_key)]
    one = _rel(f"{OLD}={NEW}")
    sub = f".claude/projects/{project_key(OLD + '/pkg')}/s.jsonl"
    assert one.relpath(f".claude/projects/{project_key(OLD)}/s.jsonl", None, folders) == \
        f".claude/projects/{project_key(NEW)}/s.jsonl"
    assert one.relpath(sub, None, folders) == sub
    two = _rel(f"{OLD}={NEW}", f"{OLD}/pkg={NEW}/pkg")
    assert two.relpath(sub, None, folders) == f".claude/projects/{project_key(NEW + '/pkg')}/s.jsonl"


# ---- end to end, through the CLI ----

def _restore(env: Env, to: Path, *args: str, expect: int | None = 0) -> dict:  # noqa: F811
    return env.cli_json("restore", "--to", str(to), *args, identity=True, expect=expect)  # type: ignore[no-any-return]


def _synced(env: Env, harness: str) -> list[dict]:  # noqa: F811
    _generator(harness)(env.home, USER)
    _only(env, harness)
    assert env.cli_json("sync", expect=None)["sessions"]["failed"] == 0
    return env.cli_json("ls", identity=True)["sessions"]  # type: ignore[no-any-return]


def test_a_pi_fork_names_its_parent_where_the_relocated_restore_put_it(env: Env) -> None:  # noqa: F811
    listed = _synced(env, "pi")
    old = sorted({s["cwd"] for s in listed if s.get("cwd")})[0]
    new = "/home/reviewer/src/web app.v2"
    to = env.base / "moved"
    out = _restore(env, to, "--all", "--relocate", f"{old}={new}")
    assert out["refused"] == [] and out["integrity_errors"] == []
    folder = to / ".pi/agent/sessions" / cwd_dir_name(new)
    assert sorted(p.name for p in (to / ".pi/agent/sessions").iterdir()) == [cwd_dir_name(new)]
    parents = []
    for f in sorted(folder.glob("*.jsonl")):
        header = json.loads(f.read_bytes().splitlines()[0])
        assert header["cwd"] == new, f.name
        if header.get("parentSession"):
            parents.append(header["parentSession"])
    assert parents, "the generated home has forks"
    for ref in parents:
        marker = "/.pi/agent/sessions/"
        assert marker in ref, ref
        rel = ref.split(marker, 1)[1]
        assert rel.split("/")[0] == cwd_dir_name(new), ref
    # the fork of a parent that was archived names it where it now is
    assert any((folder / ref.rsplit("/", 1)[1]).is_file() for ref in parents)


def test_claude_tool_result_paths_follow_the_project_folder(env: Env) -> None:  # noqa: F811
    listed = _synced(env, "claude-code")
    old = sorted({s["cwd"] for s in listed if s.get("cwd")})[0]
    old_home = "/" + "/".join(old.split("/")[1:3])
    to = env.base / "moved"
    out = _restore(env, to, "--all", "--relocate", f"{old_home}=/home/bob", "--relocate", f"{old}=/srv/app")
    assert out["refused"] == [] and out["integrity_errors"] == []
    data = b"".join(p.read_bytes() for p in (to / ".claude").rglob("*.jsonl"))
    assert project_key(old).encode() not in data
    refs = [r for line in data.splitlines() for r in _values(json.loads(line), "persistedOutputPath")]
    assert refs, "the generated transcripts persist a tool result"
    for ref in refs:
        rel = ref.split("/.claude/", 1)[1]
        assert rel.startswith(f"projects/{project_key('/srv/app')}/"), ref
        assert (to / ".claude" / rel).is_file(), ref


def _values(doc: object, key: str) -> list[str]:
    if isinstance(doc, dict):
        return [v for k, v in doc.items() if k == key and isinstance(v, str)] + \
            [x for v in doc.values() for x in _values(v, key)]
    if isinstance(doc, list):
        return [x for v in doc for x in _values(v, key)]
    return []


def test_a_new_too_long_for_a_folder_name_is_reported_not_a_crash(env: Env) -> None:  # noqa: F811
    listed = _synced(env, "pi")
    old = sorted({s["cwd"] for s in listed if s.get("cwd")})[0]
    new = "/srv/" + "x" * 300
    to = env.base / "moved"
    out = _restore(env, to, "--all", "--relocate", f"{old}={new}", expect=3)
    assert out["refused"] and all("file name too long" in r for r in out["refused"]), out["refused"]
    assert not (to / ".pi/agent/sessions").exists() or not any((to / ".pi/agent/sessions").rglob("*.jsonl"))


def test_a_quote_in_new_is_refused_before_anything_is_written(env: Env) -> None:  # noqa: F811
    listed = _synced(env, "claude-code")
    old = sorted({s["cwd"] for s in listed if s.get("cwd")})[0]
    code, _out = env.cli("restore", "--all", "--to", str(env.base / "r"), "--relocate", f'{old}=/srv/a"b',
                         identity=True)
    assert code == 2
    assert not (env.base / "r").exists()


def test_restoring_twice_with_family_is_idempotent_and_stays_in_one_project(env: Env) -> None:  # noqa: F811
    listed = _synced(env, "claude-code")
    fork = next(s for s in listed if s.get("kind") == "fork")
    old = fork["cwd"]
    to = env.base / "moved"
    args = (fork["key"], "--with-family", "--relocate", f"{old}/=/srv/my app.v2")
    first = _restore(env, to, *args)
    second = _restore(env, to, *args)
    assert first["refused"] == second["refused"] == [] and first["files"] == second["files"]
    assert len(first["sessions"]) > 1
    projects = {p.split("/")[2] for p in first["files"] if p.startswith(".claude/projects/")}
    assert projects == {project_key("/srv/my app.v2")}


@pytest.mark.parametrize("harness,prefix,encode", [
    ("claude-code", ".claude/projects/", project_key), ("pi", ".pi/agent/sessions/", cwd_dir_name),
])
def test_an_archive_written_before_cwd_relocates_sessions_below_old(env: Env, harness: str, prefix: str, encode,  # noqa: ANN001, F811
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A manifest without `cwd` (as sync wrote before the field existed): OLD is the project's
    parent, so no folder is named after OLD itself; the cwd the transcripts record still moves
    each session's folder."""
    from archiver.restore import Restorer

    listed = _synced(env, harness)
    cwds = sorted({s["cwd"] for s in listed if s.get("cwd")})
    parent = cwds[0].rsplit("/", 1)[0]
    restore = Restorer.restore
    monkeypatch.setattr(Restorer, "restore", lambda self, sessions, target: restore(
        self, [s.model_copy(update={"cwd": None}) for s in sessions], target))
    to = env.base / "moved"
    out = _restore(env, to, "--all", "--relocate", f"{parent}=/srv/checkouts")
    assert out["refused"] == [] and out["integrity_errors"] == []
    folders = {p[len(prefix):].split("/")[0] for p in out["files"] if p.startswith(prefix)}
    assert folders == {encode("/srv/checkouts" + c[len(parent):]) for c in cwds}, folders


def test_a_project_whose_folder_name_encodes_like_old_stays() -> None:
    """Claude's key maps every non-alphanumeric character to `-`: `/w-app` and `/w/app` share
    `-w-app`. Relocating /w/app leaves the /w-app project's folder, and the paths naming it."""
    folders = [(".claude/projects/", project_key)]
    r = _rel("/w/app=/srv/app")
    assert project_key("/w-app") == project_key("/w/app")
    path = f".claude/projects/{project_key('/w-app')}/s.jsonl"
    assert r.relpath(path, "/w-app", folders) == path
    assert r.relpath(path, "/w/app", folders) == f".claude/projects/{project_key('/srv/app')}/s.jsonl"
    assert r.relpath(path, None, folders) == f".claude/projects/{project_key('/srv/app')}/s.jsonl"
    ref = f"/home/u/{path}".encode()
    assert r.with_folders(folders, ["/w-app", "/w/app/pkg"]).rewrite(ref) == ref
    assert r.with_folders(folders, ["/w/app/pkg"]).rewrite(ref) == \
        f"/home/u/.claude/projects/{project_key('/srv/app')}/s.jsonl".encode()
