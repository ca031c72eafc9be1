"""A session's cwd-named folders (Claude Code's `projects/<key>`, ...) renamed inside its text
files as the archive names them (archiver/redact/folder_aliases.py): the key hides what the rules
look for (`bob@example.com` is `bob-example-com` in it), so a transcript's path into its project
folder kept an e-mail's slug; now it names the archived folder, byte for byte.
"""

from __future__ import annotations

import io
import json
import random
from pathlib import Path

import pytest

import archiver.redact.folder_aliases as fa
from archiver.harnesses.claude_code import project_key
from archiver.harnesses.cursor_agent import md5_dir
from archiver.harnesses.pi import cwd_dir_name
from archiver.redact.base import RedactionReport
from archiver.workers import redact_segment, redact_whole
from tests.fx_redact import builtin_redactor
from tests.fx_s26_leakaudit import CLAUDE_SID, CLIENT_CWD, EMAIL, USER, claude_key, jl
from tests.test_s26_leakaudit import _child, _decrypt, _inproc, _small_home, find

CWD = "/home/ann/clients/bob@example.com/app"
FOLDERS = [(".claude/projects/", project_key)]


def _red(path: str) -> str:
    """A stand-in for the rules: the user name and the e-mail."""
    return path.replace("/home/ann", "/home/user-1a2b").replace("bob@example.com", "<EMAIL:0badf00d>")


KEY = project_key(CWD)
RED = project_key(_red(CWD))


def _aliases() -> fa.Aliases:
    return fa.cwd_folder_aliases(FOLDERS, CWD, _red)


def test_the_aliases_are_the_cwd_and_its_ancestors_whose_key_changes_longest_first() -> None:
    got = [(a.decode(), raw.decode(), red.decode()) for a, raw, red in _aliases()]
    assert got == [
        ("projects", "-home-ann-clients-bob-example-com-app", "-home-user-1a2b-clients--EMAIL-0badf00d--app"),
        ("projects", "-home-ann-clients-bob-example-com", "-home-user-1a2b-clients--EMAIL-0badf00d-"),
        ("projects", "-home-ann-clients", "-home-user-1a2b-clients"),
        ("projects", "-home-ann", "-home-user-1a2b"),
    ]  # `/home` keys alike both ways: no alias


@pytest.mark.parametrize("cwd", [None, ""])
def test_a_session_without_a_cwd_has_no_aliases(cwd: str | None) -> None:
    assert fa.cwd_folder_aliases(FOLDERS, cwd, _red) == ()


def test_a_folder_pattern_with_a_wildcard_gives_no_alias() -> None:
    assert fa.cwd_folder_aliases([(".local/share/opencode/snapshot/*/", project_key)], CWD, _red) == ()


def test_every_harness_encoding_is_aliased_after_its_own_folder() -> None:
    got = fa.cwd_folder_aliases([(".pi/agent/sessions/", cwd_dir_name), (".cursor/chats/", md5_dir)], CWD, _red)
    pairs = {(a, raw) for a, raw, _ in got}
    assert (b"sessions", cwd_dir_name(CWD).encode()) in pairs
    assert (b"chats", md5_dir(CWD).encode()) in pairs
    assert dict(((a, raw), red) for a, raw, red in got)[(b"chats", md5_dir(CWD).encode())] == md5_dir(_red(CWD)).encode()




@pytest.mark.parametrize("text,want", [
    (f"/home/ann/.claude/projects/{KEY}/s/tool-results/a.txt", f"/home/ann/.claude/projects/{RED}/s/tool-results/a.txt"),
    (f'"C:\\\\Users\\\\x\\\\.claude\\\\projects\\\\{KEY}\\\\m"', f'"C:\\\\Users\\\\x\\\\.claude\\\\projects\\\\{RED}\\\\m"'),
    (f"projects\\{KEY}\\m", f"projects\\{RED}\\m"),
    (f"projects/{KEY}", f"projects/{RED}"),  # at the end of the text
    (f"projects/{KEY}-sub/x", f"projects/{RED}-sub/x"),  # a cwd below: its key starts with this one
    (f"projects/{KEY}2/x", f"projects/{project_key(_red('/home/ann/clients/bob@example.com'))}-app2/x"),
    (f"projects/{KEY[:-3]}zz/x", f"projects/{project_key(_red('/home/ann/clients/bob@example.com'))}-zz/x"),
    (f"sessions/{KEY}/x", f"sessions/{KEY}/x"),  # another folder: not this harness's name
    (f"xprojects/{KEY}/x", f"xprojects/{RED}/x"),  # no boundary before the folder: the key is what hides
    (f"projects/-home-annex/x", "projects/-home-annex/x"),  # `-home-ann` then a letter: another user's key
])
def test_a_name_is_replaced_after_its_folder_and_before_a_non_alphanumeric(text: str, want: str) -> None:
    rw = fa.rewriter(_aliases())
    assert rw is not None
    got, n = rw.line(text.encode())
    assert got.decode() == want
    assert n == (0 if want == text else 1)


def test_a_line_without_the_folder_name_is_returned_as_it_is() -> None:
    rw = fa.rewriter(_aliases())
    line = f'{{"cwd": "{CWD}", "key": "{KEY}"}}'.encode()
    assert rw is not None and rw.line(line) == (line, 0)
    assert rw.line(line)[0] is line


@pytest.mark.parametrize("block", [7, 16, 61, 64, 1 << 20])
def test_a_file_is_rewritten_as_its_lines_are_whatever_the_block_size(monkeypatch: pytest.MonkeyPatch,
                                                                       block: int) -> None:
    rng = random.Random(block)
    names = [f"projects/{KEY}", f"projects/{KEY}-sub", f"projects/{KEY}9", "projects/-home-ann", "projects\\\\-home-ann",
             "projects", "-home-ann", "x", "/", "\n", " ", "2"]
    data = "".join(rng.choice(names) for _ in range(3000)).encode()
    want, n_want = fa.rewriter(_aliases()).line(data)  # type: ignore[union-attr]
    monkeypatch.setattr(fa, "_BLOCK", block)
    out = io.BytesIO()
    n = fa.FolderAliasRewriter(_aliases()).copy(io.BytesIO(data), out)
    assert out.getvalue() == want and n == n_want and n > 100


def test_rewrite_file_leaves_no_copy_when_nothing_is_renamed(tmp_path: Path) -> None:
    src, dst = tmp_path / "a.txt", tmp_path / "a.aliased"
    src.write_bytes(b"nothing here\n")
    assert fa.rewrite_file(_aliases(), src, dst) == 0 and not dst.exists()
    src.write_bytes(f"see projects/{KEY}/m\n".encode())
    assert fa.rewrite_file(_aliases(), src, dst) == 1 and dst.read_bytes() == f"see projects/{RED}/m\n".encode()


class _Copy:
    """A redactor that copies: what reaches it is what the aliases made."""

    warnings: dict[str, int] = {}

    def redact_file(self, src: Path, dst: Path, fmt: str, report: RedactionReport) -> None:
        dst.write_bytes(src.read_bytes())

    def redact_jsonl_line(self, line: bytes, report: RedactionReport) -> bytes:
        return line

    def verify_file(self, path: Path, fmt: str) -> list[str]:
        return []


def test_only_text_formats_are_renamed_in_whole_files(tmp_path: Path) -> None:
    src = tmp_path / "src"
    raw = f"\x00\x01projects/{KEY}/m\n".encode()
    src.write_bytes(raw)
    for fmt, want in (("text", raw.replace(KEY.encode(), RED.encode())), ("json", raw.replace(KEY.encode(), RED.encode())),
                      ("binary", raw), ("sqlite", raw)):
        dst = tmp_path / f"out-{fmt}"
        job = redact_whole(_Copy(), b"k" * 32, False, str(src), str(dst), fmt, None, _aliases())  # type: ignore[arg-type]
        assert dst.read_bytes() == want, fmt
        assert job.counts == ({("cwd-folder-name", fmt): 1} if want != raw else {}), fmt
        assert sorted(p.name for p in tmp_path.iterdir() if p.name.endswith(".aliased")) == []


def test_segments_of_a_transcript_are_renamed_line_by_line(tmp_path: Path) -> None:
    src = tmp_path / "t.jsonl"
    lines = [json.dumps({"persistedOutputPath": f"/home/ann/.claude/projects/{KEY}/s/tool-results/{i}.txt"})
             for i in range(5)]
    src.write_bytes(("\r\n".join(lines) + "\n").encode())
    dst = tmp_path / "t.red"
    job = redact_segment(_Copy(), b"k" * 32, False, str(src), 0, src.stat().st_size, str(dst),  # type: ignore[arg-type]
                         None, None, _aliases())
    assert dst.read_bytes() == ("\r\n".join(lines).replace(KEY, RED) + "\n").encode()
    assert job.counts == {("cwd-folder-name", "jsonl"): 5}


def test_a_claude_transcript_and_a_tool_result_name_the_project_folder_as_archived(tmp_path: Path) -> None:
    p = _small_home(tmp_path)
    proj = p.home / ".claude" / "projects" / claude_key(CLIENT_CWD)
    native = f"/home/{USER}/.claude/projects/{claude_key(CLIENT_CWD)}/{CLAUDE_SID}/tool-results"
    (proj / CLAUDE_SID / "tool-results").mkdir(parents=True)
    (proj / CLAUDE_SID / "tool-results" / "b1c2d3e4f.txt").write_text(f"rows\nsaved to {native}/b1c2d3e4f.txt\n")
    (proj / f"{CLAUDE_SID}.jsonl").write_bytes(jl([
        {"type": "user", "sessionId": CLAUDE_SID, "cwd": CLIENT_CWD, "parentUuid": None,
         "uuid": "00000000-0000-4000-8000-000000000000", "timestamp": "2026-10-20T10:00:00.000Z",
         "message": {"role": "user", "content": "x"},
         "toolUseResult": {"stdout": "done", "persistedOutputPath": f"{native}/b1c2d3e4f.txt"}}]))
    code, _out, err = _child(p, "sync", "--json")
    assert code == 0, err
    code, out = _inproc(p, "ls")
    session = next(s for s in json.loads(out)["sessions"] if s["session_id"] == CLAUDE_SID)
    archived = next(a["path"] for a in session["artifacts"] if a["path"].endswith("/b1c2d3e4f.txt"))
    folder = archived.split("/")[2]  # .claude/projects/<key>/...
    assert folder != claude_key(CLIENT_CWD) and find(folder) == []
    plain = [_decrypt(p, f) for f in sorted((p.store / "objects").rglob("*")) if f.is_file()]
    transcript = next(t for t in plain if "persistedOutputPath" in t)
    result = next(t for t in plain if t.startswith("rows\n"))
    assert f"/.claude/projects/{folder}/{CLAUDE_SID}/tool-results/b1c2d3e4f.txt" in transcript
    assert f"/.claude/projects/{folder}/{CLAUDE_SID}/tool-results/b1c2d3e4f.txt" in result
    assert EMAIL.replace("@", "-").replace(".", "-") not in "".join(plain)
    assert find("".join(plain)) == []


def test_the_cwd_is_redacted_once_when_the_redaction_keeps_its_separators() -> None:
    calls: list[str] = []

    def red(path: str) -> str:
        calls.append(path)
        return _red(path)

    assert fa.cwd_folder_aliases(FOLDERS, CWD, red) == _aliases() and calls == [CWD, KEY]  # the key: the rules' view
    calls.clear()

    def merging(path: str) -> str:  # a replacement that swallows a separator: each ancestor on its own
        calls.append(path)
        return path.replace("clients/bob@example.com", "<CLIENT:0badf00d>")

    got = fa.cwd_folder_aliases(FOLDERS, CWD, merging)
    assert calls == [CWD, CWD, "/home/ann/clients/bob@example.com", "/home/ann/clients", "/home/ann", "/home", KEY]
    assert [raw.decode() for _, raw, _ in got] == [project_key(CWD), project_key("/home/ann/clients/bob@example.com")]


@pytest.mark.parametrize("cwd,aliased", [
    ("/home/ann/work/app", False),  # the user name: the rules find it in the key as in the path
    ("/home/ann/clients/carol.ng@acme-corp.io/app", True),  # the e-mail: a slug in the key
])
def test_only_a_cwd_whose_key_hides_a_finding_from_the_rules_is_aliased(cwd: str, aliased: bool) -> None:
    red = builtin_redactor(b"k" * 32, usernames=["ann"])
    got = fa.cwd_folder_aliases(FOLDERS, cwd, lambda t: red.redact_text(t, RedactionReport(), "path"))
    assert bool(got) is aliased
    if aliased:
        assert got[0][1] == project_key(cwd).encode() and b"acme" not in got[0][2] and b"EMAIL" in got[0][2]


def test_a_folder_name_that_json_would_escape_is_left_to_the_rules() -> None:
    cwd = '/home/ann/say "hi"/bob@example.com'
    got = fa.cwd_folder_aliases([(".pi/agent/sessions/", cwd_dir_name)], cwd, _red)
    assert [raw for _, raw, _ in got] == [b"--home-ann--"]  # the names below `say "hi"` hold its quotes
    got = fa.cwd_folder_aliases([(".pi/agent/sessions/", cwd_dir_name)], "/home/ann/bob@example.com", _red)
    assert [raw for _, raw, _ in got] == [b"--home-ann-bob@example.com--", b"--home-ann--"]
