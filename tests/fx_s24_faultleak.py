"""A HOME for the failure-path leak audit (tests/test_s24_faultleak.py): the demo's good sessions
of all six harnesses (archiver/demo, written from the seeds) plus, per harness, a good session
whose project path holds the needles and broken sessions whose files hold them.

NEEDLES: a username that is not the configured one (`zelda`), an e-mail, an AWS key id of the
known shape and a customer name (configured in `names`). They sit in the project directory
(`/home/alice/clients/<e-mail>/app`, hence Claude's project key folder, the Codex `cwd`, pi's
session dir name, the OpenCode project worktree, the Cursor workspace path) and in the contents
of the broken files.

`build_home(base)` writes base/home and base/outside and returns the `Planted`. Some breaks
happen after discovery and before the snapshot, as a live harness does: `meddled_main` is the
CLI with the sync's discovery wrapped to delete or chmod 000 the files listed in
$S24_MEDDLE once discovery is done (run it as `python -c` with `-m`-like argv).
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator
from urllib.parse import quote

USER = "alice"                       # the configured account
ZELDA = "zelda"                      # a username that is not the configured one
EMAIL = "zelda.okafor@acme-example.com"
AWS_KEY = "AKIAJ3QZ7WXKPM2RTV4N"
CUSTOMER = "Quillfeather Dynamics"
PROJECT = f"/home/{USER}/clients/{EMAIL}/app"
NEEDLES = (ZELDA, "okafor", "acme-example", AWS_KEY, "quillfeather")
MEDDLE_ENV = "S24_MEDDLE"


def needle_forms() -> list[str]:
    """Every spelling looked for (compared lower-case): raw, percent-encoded, JSON-escaped, and
    the slug forms harnesses make of a path (Claude's project key, pi's dir name)."""
    values = [*NEEDLES, EMAIL, CUSTOMER, PROJECT]
    forms = set()
    for v in values:
        forms |= {v, quote(v, safe=""), quote(v), json.dumps(v)[1:-1], json.dumps(v, ensure_ascii=True)[1:-1],
                  "".join(c if c.isascii() and c.isalnum() else "-" for c in v)}
    return sorted({f.lower() for f in forms if len(f) >= 5})


@dataclass
class Broken:
    name: str
    key: str          # the session key the break belongs to
    file: str         # a path fragment (home-relative) the error must name
    outcome: str      # "error": fails with one error; "archived": archives anyway; "warned": a warning names it
    reason: str = ""  # a word the error must hold
    root_only: bool = False  # needs real EACCES (unshare when running as root)


@dataclass
class Planted:
    home: Path
    outside: Path
    good: set[str] = field(default_factory=set)       # session keys that must archive
    broken: list[Broken] = field(default_factory=list)
    meddle: dict[str, str] = field(default_factory=dict)  # path -> "vanish" | "chmod0"
    chmod0: list[Path] = field(default_factory=list)     # mode 000 from the start


def jl(records: list[dict[str, Any]]) -> bytes:
    return b"".join(json.dumps(r, separators=(",", ":")).encode() + b"\n" for r in records)


def secret_text() -> str:
    return f"mail {EMAIL} for {CUSTOMER}; key {AWS_KEY}; home /home/{ZELDA}/notes"


# ---------------------------------------------------------------- Claude Code

def claude_key(cwd: str) -> str:
    return "".join(ch if ch.isascii() and ch.isalnum() else "-" for ch in cwd)


def claude_lines(sid: str, n: int = 2) -> list[dict[str, Any]]:
    recs, parent = [], None
    for i in range(n):
        u = f"{sid[:8]}-0000-4000-8000-{i:012d}"
        role = "user" if i % 2 == 0 else "assistant"
        msg: dict[str, Any] = ({"role": "user", "content": f"turn {i}: {secret_text()}"} if role == "user" else
                               {"id": f"msg_01{i:022d}", "type": "message", "role": "assistant", "model": "claude-opus-5-5",
                                "content": [{"type": "text", "text": "ok"}], "stop_reason": "end_turn"})
        recs.append({"parentUuid": parent, "isSidechain": False, "userType": "external", "cwd": PROJECT,
                     "sessionId": sid, "version": "2.1.310", "gitBranch": "main", "entrypoint": "cli",
                     "timestamp": f"2026-03-14T09:00:{i:02d}.000Z", "uuid": u, "type": role, "message": msg})
        parent = u
    return recs


def claude(p: Planted, as_root_unshared: bool) -> None:
    proj = p.home / ".claude" / "projects" / claude_key(PROJECT)
    proj.mkdir(parents=True)

    def sid(n: int) -> str:
        return f"5e240000-0000-4000-8000-{n:012d}"

    good = sid(1)  # a torn last line holding the needles: left for the next run
    (proj / f"{good}.jsonl").write_bytes(jl(claude_lines(good, 4)) + f'{{"type":"user","message":"{secret_text()}'.encode())
    p.good.add(f"claude-code:{good}")

    badutf = sid(2)  # a line of invalid UTF-8 next to a line holding the needles
    (proj / f"{badutf}.jsonl").write_bytes(jl(claude_lines(badutf, 2)) + b'{"type":"user","message":"\xff\xfe '
                                            + secret_text().encode() + b'"}\n' + jl(claude_lines(badutf, 2)[1:]))
    p.broken.append(Broken("claude invalid utf-8 line", f"claude-code:{badutf}", f"{badutf}.jsonl", "archived"))

    notjson = sid(3)
    (proj / f"{notjson}.jsonl").write_bytes(jl(claude_lines(notjson, 2)) + f"not json: {secret_text()}\n".encode())
    p.broken.append(Broken("claude line that is not JSON", f"claude-code:{notjson}", f"{notjson}.jsonl", "archived"))

    empty = sid(4)
    (proj / f"{empty}.jsonl").write_bytes(b"")
    p.broken.append(Broken("claude 0-byte transcript", f"claude-code:{empty}", f"{empty}.jsonl", "archived"))

    huge = sid(5)  # one 3 MB line, the needles at its end
    rec = claude_lines(huge, 1)[0]
    rec["message"]["content"] = "x" * 3_000_000 + " " + secret_text()
    (proj / f"{huge}.jsonl").write_bytes(jl([rec]))
    p.good.add(f"claude-code:{huge}")

    isdir = sid(6)  # a directory where the transcript file is expected, a needle inside
    (proj / f"{isdir}.jsonl").mkdir()
    (proj / f"{isdir}.jsonl" / f"{ZELDA}.txt").write_text(secret_text())

    linked = sid(7)  # a sidecar symlink to a file outside the home that holds the needles
    (proj / f"{linked}.jsonl").write_bytes(jl(claude_lines(linked, 2)))
    target = p.outside / f"{ZELDA}-{EMAIL}" / "notes.txt"
    target.parent.mkdir(parents=True)
    target.write_text(secret_text())
    (proj / linked / "tool-results").mkdir(parents=True)
    (proj / linked / "tool-results" / "b5e24aaaa.txt").symlink_to(target)
    p.good.add(f"claude-code:{linked}")
    p.broken.append(Broken("claude sidecar symlink out of the home", f"claude-code:{linked}", "b5e24aaaa.txt", "archived"))

    link = sid(11)  # the transcript itself a symlink to the file outside the home: not followed
    (proj / f"{link}.jsonl").symlink_to(target)
    p.broken.append(Broken("claude transcript symlink out of the home", f"claude-code:{link}", f"{link}.jsonl",
                           "warned", "symbolic link"))

    vanish = sid(8)
    (proj / f"{vanish}.jsonl").write_bytes(jl(claude_lines(vanish, 2)))
    p.meddle[str(proj / f"{vanish}.jsonl")] = "vanish"
    p.broken.append(Broken("claude transcript vanishes after discovery", f"claude-code:{vanish}", f"{vanish}.jsonl",
                           "error", "vanished"))

    if as_root_unshared or os.geteuid() != 0:
        locked = sid(9)
        (proj / f"{locked}.jsonl").write_bytes(jl(claude_lines(locked, 2)))
        p.chmod0.append(proj / f"{locked}.jsonl")
        p.broken.append(Broken("claude transcript mode 000", f"claude-code:{locked}", f"{locked}.jsonl", "error",
                               "permission denied", root_only=True))
        revoked = sid(10)
        (proj / f"{revoked}.jsonl").write_bytes(jl(claude_lines(revoked, 2)))
        p.meddle[str(proj / f"{revoked}.jsonl")] = "chmod0"
        p.broken.append(Broken("claude transcript made mode 000 after discovery", f"claude-code:{revoked}",
                               f"{revoked}.jsonl", "error", "permission denied", root_only=True))


# ---------------------------------------------------------------- Codex

def codex(p: Planted) -> None:
    from archiver.demo.codex_sample import _line, _meta, _turn

    day = p.home / ".codex" / "sessions" / "2026" / "03" / "14"
    day.mkdir(parents=True, exist_ok=True)
    good = "0199c0de-5e24-7000-8000-000000000001"
    ts = "2026-03-14T08:00:00.000Z"
    body = _line(ts, "session_meta", _meta(good, ts, PROJECT), 0) + b"".join(
        _turn(good, "0199c0de-5e24-7000-8000-0000000000a1", ts, 1, secret_text(), "done", PROJECT))
    (day / f"rollout-2026-03-14T09-00-00-{good}.jsonl").write_bytes(body)
    p.good.add(f"codex:{good}")

    zst = "0199c0de-5e24-7000-8000-000000000002"  # a zstd magic, then garbage holding the needles
    (day / f"rollout-2026-03-14T09-10-00-{zst}.jsonl.zst").write_bytes(
        b"\x28\xb5\x2f\xfd" + b"\x00\x58\x00\x00" + secret_text().encode() * 3)
    p.broken.append(Broken("codex corrupt .jsonl.zst", f"codex:{zst}", f"{zst}.jsonl.zst", "error", "zst"))

    notjson = "0199c0de-5e24-7000-8000-000000000003"  # its session_meta line is not JSON
    (day / f"rollout-2026-03-14T09-20-00-{notjson}.jsonl").write_bytes(
        f"session_meta {secret_text()}\n".encode() + b"".join(
            _turn(notjson, "0199c0de-5e24-7000-8000-0000000000a3", ts, 1, "hi", "ok", PROJECT)))
    p.broken.append(Broken("codex first line not JSON", f"codex:{notjson}", f"{notjson}.jsonl", "archived"))


# ---------------------------------------------------------------- Cursor agent

def cursor(p: Planted) -> None:
    from archiver.demo.cursor_sample import Store, _meta, fid, fs, jb, md5_dir

    chats = p.home / ".cursor" / "chats" / md5_dir(PROJECT)
    good = "5e240000-c0c0-4000-8000-000000000001"
    s = Store(chats / good / "store.db")
    info = s.put(jb({"role": "user", "content": f"<user_info>\nWorkspace Path: {PROJECT}\n</user_info>"}))
    q = s.put(jb({"role": "user", "content": [{"type": "text", "text": f"<user_query>\n{secret_text()}\n</user_query>"}]}))
    root = s.put(fid(1, info) + fid(1, q) + fs(9, f"file://{PROJECT}"))
    s.set_meta(_meta(good, root, "Invoice export", 1767261600000))
    s.close()
    p.good.add(f"cursor-agent:{good}")

    notdb = "5e240000-c0c0-4000-8000-000000000002"
    (chats / notdb).mkdir(parents=True)
    (chats / notdb / "store.db").write_text(f"not a database: {secret_text()}\n" * 40)
    p.broken.append(Broken("cursor store.db not a database", f"cursor-agent:{notdb}", f"{notdb}/store.db", "error",
                           "database"))

    cut = "5e240000-c0c0-4000-8000-000000000003"  # a real store cut in half
    c = Store(chats / cut / "store.db")
    for i in range(60):
        c.put(jb({"role": "user", "content": f"{i} {secret_text()}" + "y" * 300}))
    c.set_meta(_meta(cut, c.ids[0], CUSTOMER, 1767261600000))
    c.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    c.conn.execute("PRAGMA journal_mode=DELETE")
    c.close()
    data = (chats / cut / "store.db").read_bytes()
    (chats / cut / "store.db").write_bytes(data[: len(data) // 2])
    p.broken.append(Broken("cursor store.db cut in half", f"cursor-agent:{cut}", f"{cut}/store.db", "error",
                           "database"))

    odd = "5e240000-c0c0-4000-8000-000000000004"  # tables with an unexpected schema
    (chats / odd).mkdir(parents=True)
    conn = sqlite3.connect(chats / odd / "store.db")
    conn.execute("CREATE TABLE meta (k INTEGER, v BLOB, extra TEXT)")
    conn.execute("INSERT INTO meta VALUES (0, ?, ?)", (secret_text().encode(), secret_text()))
    conn.execute("CREATE TABLE blobs (data TEXT)")
    conn.execute("INSERT INTO blobs VALUES (?)", (secret_text(),))
    conn.commit()
    conn.close()
    p.broken.append(Broken("cursor store.db with an unexpected schema", f"cursor-agent:{odd}", f"{odd}/store.db",
                           "warned", "blob graph not read"))


# ---------------------------------------------------------------- OpenCode

def opencode(p: Planted) -> None:
    from archiver.demo.opencode_sample import T0, Db, _assistant

    root = p.home / ".local" / "share" / "opencode"
    db = Db(root / "opencode-s24good.db")
    db.project("prj_5e24good", PROJECT)
    sid = "ses_5e24aaaaaaaaGoodAAAAAAAAAA"
    db.session(sid, "prj_5e24good", PROJECT, "Invoices", T0)
    db.msg("msg_5e24aaaaaaaa01AAAAAAAAAAAA", sid, "user", 2, {"text": secret_text(), "time": {"created": T0 + 100}})
    db.msg("msg_5e24aaaaaaaa02AAAAAAAAAAAA", sid, "assistant", 4, _assistant("ok", T0 + 200))
    db.conn.close()
    p.good.add(f"opencode:{sid}")

    (root / "opencode-s24notdb.db").write_text(f"not a database {secret_text()}\n" * 40)
    p.broken.append(Broken("opencode channel db not a database", "opencode:", "opencode-s24notdb.db", "error",
                           "database"))
    conn = sqlite3.connect(root / "opencode-s24odd.db")
    conn.execute("CREATE TABLE session_v2 (id TEXT, blob TEXT)")
    conn.execute("INSERT INTO session_v2 VALUES ('ses_5e24oddoddoddOddAAAAAAAAA', ?)", (secret_text(),))
    conn.execute("CREATE TABLE project (id TEXT, worktree TEXT)")
    conn.execute("INSERT INTO project VALUES ('prj_odd', ?)", (PROJECT,))
    conn.commit()
    conn.close()
    p.broken.append(Broken("opencode channel db with an unexpected schema", "opencode:", "opencode-s24odd.db", "error"))


# ---------------------------------------------------------------- pi and DeepSeek

def pi(p: Planted) -> None:
    from archiver.demo.pi_sample import cwd_dir

    folder = p.home / ".pi" / "agent" / "sessions" / cwd_dir(PROJECT)
    folder.mkdir(parents=True)
    good = "01890a5d-5e24-7000-8000-000000000001"
    recs = [{"type": "session", "version": 3, "id": good, "timestamp": "2026-03-14T10:00:00.000Z", "cwd": PROJECT},
            {"type": "message", "id": "5e24a001", "parentId": None, "timestamp": "2026-03-14T10:00:01.000Z",
             "message": {"role": "user", "content": [{"type": "text", "text": secret_text()}], "timestamp": 1773482401000}}]
    (folder / f"2026-03-14T10-00-00-000Z_{good}.jsonl").write_bytes(jl(recs))
    p.good.add(f"pi:{good}")

    bad = "01890a5d-5e24-7000-8000-000000000002"  # the header line is not JSON
    (folder / f"2026-03-14T10-10-00-000Z_{bad}.jsonl").write_bytes(f"session {secret_text()}\n".encode() + jl(recs[1:]))
    p.broken.append(Broken("pi header not JSON", f"pi:{bad}", f"{bad}.jsonl", "any"))


def deepseek(p: Planted) -> None:
    from archiver.demo.deepseek_sample import _header, _user

    root = p.home / ".deepseek" / "sessions"
    good = "ds-01J9Z8K7M6N5P4Q3R2S1T5E24A"
    (root / f"{good}.jsonl").write_bytes(jl([_header(good, 1767261600000, PROJECT), _user(1, "m-u1", secret_text())]))
    p.good.add(f"deepseek-harness:{good}")

    bad = "ds-01J9Z8K7M6N5P4Q3R2S1T5E24B"  # invalid UTF-8 beside the needles, then a torn tail
    (root / f"{bad}.jsonl").write_bytes(jl([_header(bad, 1767261600000, PROJECT)]) + b'{"type":"user/message","x":"\xc3\x28 '
                                        + secret_text().encode() + b'"}\n' + b'{"type":"user/message","x":"' + secret_text().encode())
    p.broken.append(Broken("deepseek invalid utf-8 and torn tail", f"deepseek-harness:{bad}", f"{bad}.jsonl", "archived"))


def build_home(base: Path, as_root_unshared: bool) -> Planted:
    from archiver.demo.run import make_sample_home

    p = Planted(home=base / "home", outside=base / "outside")
    p.home.mkdir()
    p.outside.mkdir()
    info = make_sample_home(p.home, USER)
    for h in ("cursor-agent", "opencode"):
        for conn in info[h].get("connections", ()):
            conn.close()
    claude(p, as_root_unshared)
    codex(p)
    cursor(p)
    opencode(p)
    pi(p)
    deepseek(p)
    for f in p.chmod0:
        f.chmod(0)
    return p


def reset_meddled(p: Planted) -> None:
    """Put back what a meddled run removed or locked, for the next run."""
    for path, how in p.meddle.items():
        f = Path(path)
        if how == "vanish" and not f.exists():
            sid = f.name.removesuffix(".jsonl")
            f.write_bytes(jl(claude_lines(sid, 2)))
        elif how == "chmod0":
            f.chmod(0o644)


# ---------------------------------------------------------------- the CLI with a live harness meddling

def _meddle(spec: dict[str, str]) -> None:
    for path, how in spec.items():
        if how == "vanish":
            Path(path).unlink(missing_ok=True)
        elif how == "chmod0":
            os.chmod(path, 0)


def meddled_main(argv: list[str]) -> int:
    """`archiver ARGV` whose sync deletes/chmods the files in $S24_MEDDLE right after discovery."""
    from archiver import sync
    from archiver.cli import main

    spec = json.loads(os.environ.get(MEDDLE_ENV, "{}"))
    original = sync.Syncer._discover

    def discover(self: Any) -> Iterator[Any]:
        found = list(original(self))
        _meddle(spec)
        yield from found

    sync.Syncer._discover = discover  # type: ignore[method-assign]
    return main(argv)


if __name__ == "__main__":
    sys.exit(meddled_main(sys.argv[1:]))
