"""restore --relocate OLD=NEW: a session restored for a project that lives elsewhere now.

Unit tests of the path rules (boundaries, JSON escapes, derived folders, SQLite cells), then every
harness end to end: generated home -> sync -> restore --all with the archived home relocated ->
the folders named after a cwd are the new cwd's, the paths inside are the new ones, and nothing
names the old one."""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
from pathlib import Path

import pytest
import zstandard

from archiver.harnesses.claude_code import project_key
from archiver.harnesses.cursor_agent import md5_dir, slug
from archiver.harnesses.opencode import worktree_hash
from archiver.harnesses.pi import cwd_dir_name
from archiver.relocate import Relocation, RelocationError, Relocator
from tests.fx_archiver import USER, Env, env  # noqa: F401
from tests.test_e2e_harnesses import GENERATORS, _generator, _only

OLD = "/home/user-5f2a/work/app"
NEW = "/srv/review/app"


def _rel(*specs: str) -> Relocator:
    return Relocator([Relocation.parse(s) for s in specs])


@pytest.mark.parametrize("spec,why", [
    ("/a", "OLD=NEW"), ("=/b", "OLD=NEW"), ("relative=/b", "OLD must be an absolute path"),
    ("/a=b", "NEW must be an absolute path"), ("/=/b", "OLD may not be /"),
])
def test_a_bad_spec_is_refused_with_its_reason(spec: str, why: str) -> None:
    with pytest.raises(RelocationError, match=why):
        Relocation.parse(spec)


def test_paths_are_rewritten_only_at_component_boundaries() -> None:
    r = _rel(f"{OLD}/=/srv/review/app/")  # trailing slashes do not matter
    text = (f'{{"cwd":"{OLD}","file":"{OLD}/src/main.py","other":"{OLD}2/x","mnt":"/mnt{OLD}",'
            f'"url":"file://{OLD}/README.md","dot":"{OLD}.bak"}}\n').encode()
    out = json.loads(r.rewrite(text))
    assert out == {"cwd": NEW, "file": f"{NEW}/src/main.py", "other": f"{OLD}2/x", "mnt": f"/mnt{OLD}",
                   "url": f"file://{NEW}/README.md", "dot": f"{OLD}.bak"}


def test_the_longest_old_wins_and_ascii_json_escapes_are_followed() -> None:
    r = _rel("/home/u=/home/bob", "/home/u/proj-é=/srv/p")
    data = json.dumps({"a": "/home/u/proj-é/x", "b": "/home/u/notes"}).encode()  # ensure_ascii: \u00e9
    assert b"\\u00e9" in data
    assert json.loads(r.rewrite(data)) == {"a": "/srv/p/x", "b": "/home/bob/notes"}
    raw = "/home/u/proj-é/x".encode()
    assert r.rewrite(raw) == b"/srv/p/x"


@pytest.mark.parametrize("prefix,encode", [
    (".claude/projects/", project_key), (".pi/agent/sessions/", cwd_dir_name),
    (".cursor/chats/", md5_dir), (".cursor/projects/", slug),
])
def test_a_folder_named_after_the_cwd_or_an_ancestor_is_renamed(prefix: str, encode) -> None:  # noqa: ANN001
    r = _rel(f"{OLD}={NEW}")
    folders = [(prefix, encode)]
    assert r.relpath(f"{prefix}{encode(OLD)}/s1.jsonl", OLD, folders) == f"{prefix}{encode(NEW)}/s1.jsonl"
    # a subagent that ran below the project: the folder is the project's, renamed as the project
    assert r.relpath(f"{prefix}{encode(OLD)}/s2.jsonl", f"{OLD}/pkg/sub", folders) == f"{prefix}{encode(NEW)}/s2.jsonl"
    # project host files belong to no session's cwd: OLD itself names the folder
    assert r.relpath(f"{prefix}{encode(OLD)}/memory/MEMORY.md", None, folders) == f"{prefix}{encode(NEW)}/memory/MEMORY.md"
    # another project's folder and paths outside the prefix stay
    other = f"{prefix}{encode('/home/user-5f2a/work/api')}/s3.jsonl"
    assert r.relpath(other, "/home/user-5f2a/work/api", folders) == other
    assert r.relpath(".claude/history.jsonl", OLD, folders) == ".claude/history.jsonl"


def _pb_string(field: int, value: bytes) -> bytes:
    return bytes([field << 3 | 2, len(value)]) + value


def test_sqlite_cells_are_rewritten_in_every_encoding_and_fts_is_left_alone(tmp_path: Path) -> None:
    db = tmp_path / "x.db"
    con = sqlite3.connect(db)
    con.executescript(f"""
        CREATE TABLE session (id TEXT PRIMARY KEY, directory TEXT, data BLOB, n INTEGER, updated INTEGER DEFAULT 0);
        CREATE TRIGGER touch AFTER UPDATE ON session BEGIN UPDATE session SET updated = updated + 1 WHERE id = new.id; END;
        INSERT INTO session VALUES ('a', '{OLD}', CAST('{OLD}/x' AS BLOB), 7, 0);
        INSERT INTO session VALUES ('b', '/elsewhere', NULL, 8, 0);
        INSERT INTO session VALUES ('c', '{{"path": "{OLD}/src/x.py"}}', NULL, 9, 0);
        CREATE TABLE meta (key TEXT, value TEXT);
        INSERT INTO meta VALUES ('0', '{json.dumps({"cwd": OLD}).encode().hex()}');
        CREATE VIRTUAL TABLE notes USING fts5(body);
        INSERT INTO notes VALUES ('see {OLD}/README');
    """)
    message = _pb_string(1, b"chat title") + _pb_string(2, f"{OLD}/src/main.py".encode())
    binary = bytes(range(256)) + OLD.encode()
    con.execute("INSERT INTO session VALUES ('d', NULL, ?, 1, 0)", (message,))
    con.execute("INSERT INTO session VALUES ('e', NULL, ?, 2, 0)", (binary,))
    con.commit()
    con.close()
    _rel(f"{OLD}={NEW}").rewrite_file(db, "sqlite")
    con = sqlite3.connect(db)
    rows = con.execute("SELECT id, directory, data, n, updated FROM session ORDER BY id").fetchall()
    assert rows == [("a", NEW, f"{NEW}/x".encode(), 7, 1), ("b", "/elsewhere", None, 8, 0),
                    ("c", f'{{"path": "{NEW}/src/x.py"}}', None, 9, 1),
                    ("d", None, _pb_string(1, b"chat title") + _pb_string(2, f"{NEW}/src/main.py".encode()), 1, 1),
                    ("e", None, binary, 2, 0)]
    assert json.loads(bytes.fromhex(con.execute("SELECT value FROM meta").fetchone()[0])) == {"cwd": NEW}
    assert con.execute("SELECT body FROM notes").fetchall() == [(f"see {OLD}/README",)]
    assert con.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    con.close()


# ---- end to end ----

def _files(root: Path) -> dict[str, bytes]:
    out = {}
    for p in sorted(root.rglob("*")):
        if p.is_file():
            data = p.read_bytes()
            if p.name.endswith(".zst"):
                data = zstandard.ZstdDecompressor().decompressobj().decompress(data)
            out[p.relative_to(root).as_posix()] = data
    return out


@pytest.mark.parametrize("harness", sorted(GENERATORS))
def test_restore_relocates_every_harness(env: Env, harness: str) -> None:  # noqa: F811
    _generator(harness)(env.home, USER)
    _only(env, harness)
    assert env.cli_json("sync", expect=None)["sessions"]["failed"] == 0
    listed = env.cli_json("ls", identity=True)["sessions"]
    cwds = sorted({s["cwd"] for s in listed if s.get("cwd")})
    assert cwds, "the generated sessions record their cwd"
    old_home = "/" + "/".join(cwds[0].split("/")[1:3])  # the redacted home: /home/user-xxxx
    assert all(c.startswith(old_home + "/") or c == old_home for c in cwds), cwds
    new_home = "/home/reviewer"

    plain = env.base / "plain"
    moved = env.base / "moved"
    out0 = env.cli_json("restore", "--all", "--to", str(plain), identity=True, expect=None)
    out = env.cli_json("restore", "--all", "--to", str(moved), "--relocate", f"{old_home}={new_home}",
                       identity=True, expect=None)
    assert out["refused"] == [] and out["integrity_errors"] == []
    assert sorted(out["sessions"]) == sorted(out0["sessions"])
    assert len(out["files"]) == len(out0["files"])

    before, after = _files(plain), _files(moved)
    # what named the old home names the new one; nothing else changed
    old_b, new_b = old_home.encode(), new_home.encode()
    assert any(old_b in data for data in before.values())
    for path, data in after.items():
        assert old_b not in data, path
        assert project_key(old_home) not in path and cwd_dir_name(old_home)[:-2] not in path, path
    for c in cwds:
        new_cwd = new_home + c[len(old_home):]
        for folder in (project_key(c), cwd_dir_name(c), md5_dir(c)):
            assert not any(f"/{folder}/" in p for p in after), (c, folder)
        if harness == "claude-code":
            assert any(p.startswith(f".claude/projects/{project_key(new_cwd)[:200]}") for p in after)
        if harness == "pi":
            assert any(p.startswith(f".pi/agent/sessions/{cwd_dir_name(new_cwd)}/") for p in after), new_cwd
    if harness == "cursor-agent":
        chats = {p.split("/")[2] for p in after if p.startswith(".cursor/chats/")}
        assert chats and chats <= {md5_dir(new_home + c[len(old_home):]) for c in cwds}
    # byte for byte: the relocated file is the plain one with the path replaced (sqlite: by cell),
    # and the renamed folders as paths inside name them (`.../sessions/--<cwd>--/...`)
    renamed = {_rename_back(p, old_home, new_home, cwds): p for p in after}
    assert set(renamed) == set(before)
    folder_refs = [(f"/{prefix}{enc(c)}/".encode(), f"/{prefix}{enc(new_home + c[len(old_home):])}/".encode())
                   for c in sorted(set(cwds) | {old_home}, key=len, reverse=True)
                   for prefix, enc in ((".claude/projects/", project_key), (".pi/agent/sessions/", cwd_dir_name),
                                       (".cursor/chats/", md5_dir), (".cursor/projects/", slug))]
    for old_path, new_path in renamed.items():
        if not new_path.endswith((".db", ".sqlite", ".vscdb")) and "/store.db" not in new_path:
            expected = before[old_path]
            for ref, moved_ref in folder_refs:
                expected = expected.replace(ref, moved_ref)
            expected = expected.replace(old_b, new_b)
            # a pi fork names its parent's file where the restore put it, under the restore root
            expected = re.sub(rb'"parentSession":"[^"]*?/\.pi/agent/sessions/',
                              b'"parentSession":"' + str(moved.resolve()).encode() + b"/.pi/agent/sessions/", expected)
            # an archived pi temp output file is named where each restore put it, under its root
            expected = expected.replace(b'"fullOutputPath":"' + str(plain.resolve()).encode() + b"/",
                                        b'"fullOutputPath":"' + str(moved.resolve()).encode() + b"/")
            # so is every other path relinked to a restored file (Claude's persistedOutputPath and its
            # preview, a DeepSeek parentSession path): under each restore's own root
            expected = expected.replace(str(plain.resolve()).encode() + b"/", str(moved.resolve()).encode() + b"/")
            assert after[new_path] == expected, new_path
    if harness == "opencode":
        dbs = [moved / p for p in after if p.endswith("opencode.db")]
        assert dbs
        for db in dbs:
            con = sqlite3.connect(db)
            dirs = [r[0] for r in con.execute("SELECT directory FROM session")]
            con.close()
            assert dirs and all(d.startswith(new_home) for d in dirs), dirs
    if harness == "codex":
        con = sqlite3.connect(moved / ".codex/state_5.sqlite")
        got = [r[0] for r in con.execute("SELECT cwd FROM threads")]
        con.close()
        assert got and all(c.startswith(new_home) for c in got), got


def _rename_back(path: str, old_home: str, new_home: str, cwds: list[str]) -> str:
    # a session's cwd or a folder above it (OpenCode's snapshot folder is the SHA-1 of the worktree)
    above = {str(Path(c).parents[i]) for c in cwds for i in range(len(Path(c[len(old_home):]).parts) - 1)}
    for c in sorted(set(cwds) | above, key=len, reverse=True):
        new_cwd = new_home + c[len(old_home):]
        for enc in (project_key, cwd_dir_name, md5_dir, slug, worktree_hash):
            seg = f"/{enc(new_cwd)}/"
            if seg in path:
                return path.replace(seg, f"/{enc(c)}/", 1)
    return path


def test_the_cli_refuses_a_bad_relocation_before_reading_anything(env: Env) -> None:  # noqa: F811
    code, _out = env.cli("restore", "--all", "--to", str(env.base / "r"), "--relocate", "nope", identity=True)
    assert code == 2
    assert not (env.base / "r").exists()


def test_md5_of_the_new_cwd_is_what_cursor_reads() -> None:
    assert md5_dir(NEW) == hashlib.md5(NEW.encode()).hexdigest()


def test_a_state_from_before_the_cwd_field_is_brought_up_to_date_once(env: Env) -> None:  # noqa: F811
    """Sessions stored without `cwd` (an older version's state) get it with one manifest rewrite;
    after that the unchanged fast path holds (each run would otherwise redo every session)."""
    _generator("claude-code")(env.home, USER)
    _only(env, "claude-code")
    assert env.cli_json("sync", expect=None)["sessions"]["failed"] == 0
    state = next(env.base.rglob("state.db"))
    con = sqlite3.connect(state)
    rows = con.execute("SELECT key, session FROM sessions").fetchall()
    with_cwd = [k for k, s in rows if json.loads(s).get("cwd")]
    assert with_cwd
    for key, s in rows:
        doc = json.loads(s)
        doc.pop("cwd", None)
        con.execute("UPDATE sessions SET session = ? WHERE key = ?", (json.dumps(doc), key))
    con.execute("DELETE FROM signatures")
    con.commit()
    con.close()
    upgraded = env.cli_json("sync", expect=None)["sessions"]
    assert upgraded["uploaded"] == len(with_cwd)  # their manifest entries changed: cwd added
    con = sqlite3.connect(state)
    stored = {k: json.loads(s).get("cwd") for k, s in con.execute("SELECT key, session FROM sessions")}
    signed = con.execute("SELECT count(*) FROM signatures").fetchone()[0]
    con.close()
    assert all(stored[k] for k in with_cwd)
    assert signed >= len(with_cwd)
    again = env.cli_json("sync", expect=None)["sessions"]
    assert again["uploaded"] == 0 and again["unchanged"] == again["total"]
