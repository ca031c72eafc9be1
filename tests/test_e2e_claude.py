"""End to end on a generated ~/.claude: keygen, sync to moto over HTTP, ls, lineage,
restore into an empty folder, and byte-for-byte comparison with the redacted originals."""

from __future__ import annotations

import functools

import json
import os
from pathlib import Path

import orjson
import pytest

from archiver.demo.claude_sample import append_turn, make_claude_home
from archiver.redact.base import RedactionReport
from tests.fx_archiver import USER, Env, decrypt_with_cli, env  # noqa: F401
from tests.fx_s32_relinks import claude_relinked


def _redactor(e: Env):  # type: ignore[no-untyped-def]
    return _cached_redactor(str(e.config), e.config.read_text())


@functools.lru_cache(maxsize=4)
def _cached_redactor(config: str, _content: str):  # type: ignore[no-untyped-def]
    from archiver import runtime
    from archiver.config import load_settings

    settings = load_settings(Path(config))
    return runtime.redactor(settings, runtime.team_keys(settings))


def _expected_redacted(e: Env, src: Path, fmt: str) -> bytes:
    """What the archive must hold for src: the redacted complete lines (JSONL) or file."""
    red = _redactor(e)
    report = RedactionReport()
    if fmt == "jsonl":
        data = src.read_bytes()
        data = data[: data.rfind(b"\n") + 1]
        return b"".join(red.redact_jsonl_line(line, report) + b"\n" for line in data.split(b"\n")[:-1])
    out = e.base / "expected.tmp"
    red.redact_file(src, out, fmt, report)
    return out.read_bytes()


def _all_files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def test_sync_ls_lineage_restore_roundtrip(env: Env) -> None:  # noqa: F811
    s = make_claude_home(env.home, USER)
    result = env.cli_json("sync")
    assert result["sessions"] == {"total": 6, "uploaded": 6, "unchanged": 0, "failed": 0}
    assert result["errors"] == []
    assert result["snapshot"].startswith("snapshots/")

    listed = env.cli_json("ls", identity=True)["sessions"]
    by_key = {x["key"]: x for x in listed}
    assert set(by_key) == {f"claude-code:{k}" for k in (s.main, s.fork, s.continuation, s.subagent, s.forked_subagent, "@host")}
    assert by_key[f"claude-code:{s.main}"]["kind"] == "main"
    assert by_key[f"claude-code:{s.fork}"]["kind"] == "fork"
    assert by_key[f"claude-code:{s.subagent}"]["kind"] == "subagent"
    assert by_key["claude-code:@host"]["kind"] == "host"
    # the title is redacted: the username became a pseudonym
    title = by_key[f"claude-code:{s.main}"]["title"]
    assert title.startswith("Deploy fixes for user-") and USER not in title

    edges = env.cli_json("lineage", identity=True)["edges"]
    got = {(e["child"].split(":")[1], e["parent"].split(":")[1], e["relation"], e["inferred"]) for e in edges}
    assert got == {
        (s.subagent, s.main, "subagent", False),
        (s.forked_subagent, s.main, "subagent", False),
        (s.fork, s.main, "fork", False),
        (s.continuation, s.main, "continuation", False),
    }
    at = {e["child"].split(":")[1]: e["at"] for e in edges}
    assert at[s.subagent] == s.tool_use_id and at[s.fork] == s.fork_point

    target = env.base / "restored"
    assert env.cli_json("restore", "--all", "--to", str(target), identity=True)["integrity_errors"] == []
    restored = _all_files(target)
    # layout like a HOME, with the project key redacted to match the redacted cwd
    key_dirs = {p.split("/")[2] for p in restored if p.startswith(".claude/projects/")}
    assert len(key_dirs) == 1
    (key_dir,) = key_dirs
    assert key_dir.startswith("-home-user-") and key_dir.endswith("-work-app") and USER not in key_dir

    # byte-for-byte: every restored file equals the redacted original
    for sess in env.cli_json("ls", identity=True)["sessions"]:
        for art in sess["artifacts"]:
            original = next(
                p for p in env.home.rglob("*")
                if p.is_file() and _redactor(env).redact_relpath(p.relative_to(env.home).as_posix(), RedactionReport()) == art["path"]
            )
            # (a transcript names the tool-results files restored with it under the target)
            assert restored[art["path"]] == claude_relinked(_expected_redacted(env, original, art["format"]), target,
                                                            restored), art["path"]

    everything = b"".join(restored.values()) + "".join(restored).encode()
    for secret in (USER.encode(), b"/home/alice"):
        assert secret not in everything
    # ids that lineage needs are intact
    for decoy in (s.main, s.tool_use_id, s.fork_point):
        assert decoy.encode() in everything
    # the torn final line was not archived
    cont = restored[f".claude/projects/{key_dir}/{s.continuation}.jsonl"]
    assert b"half wri" not in cont and cont.endswith(b"\n")
    for line in cont.splitlines():
        orjson.loads(line)


def test_bucket_holds_no_plaintext_names(env: Env) -> None:  # noqa: F811
    s = make_claude_home(env.home, USER)
    env.cli_json("sync")
    keys = env.keys_in_bucket()
    assert any(k.startswith(f"{env.prefix}/objects/") for k in keys)
    assert any(k.startswith(f"{env.prefix}/snapshots/") for k in keys)
    joined = "\n".join(keys)
    for plain in (USER, "laptop", s.project_key, s.main, "Deploy", "claude", "home"):
        assert plain not in joined, plain
    client = env.s3()
    for k in keys:
        head = client.head_object(Bucket=env.bucket, Key=k)
        assert head.get("Metadata", {}) == {}
        if not k.endswith("archiver.json"):
            body = env.raw_object(k)
            assert body.startswith(b"age-encryption.org/v1\n")
            assert USER.encode() not in body and b"AKIA" not in body
    marker = json.loads(env.raw_object(f"{env.prefix}/archiver.json"))
    assert marker["format"] == "archiver/1"


def test_objects_read_with_age_and_zstd_cli(env: Env) -> None:  # noqa: F811
    make_claude_home(env.home, USER)
    env.cli_json("sync")
    target = env.base / "restored"
    env.cli_json("restore", "--all", "--to", str(target), identity=True)
    files = _all_files(target)
    restored = set(files.values())
    manifests = [k for k in env.keys_in_bucket() if "/snapshots/" in k]
    assert len(manifests) == 1
    manifest = json.loads(decrypt_with_cli(env.identity, env.raw_object(manifests[0])))
    assert manifest["format"] == "archiver/1"
    for session in manifest["sessions"]:
        for art in session["artifacts"]:
            data = b"".join(
                decrypt_with_cli(env.identity, env.raw_object(f"{env.prefix}/objects/{oid[:2]}/{oid}"))
                for oid in art["objects"]
            )
            assert claude_relinked(data, target, files) in restored  # (tool-results named under the target)


def test_incremental_sync_uploads_only_new_lines(env: Env) -> None:  # noqa: F811
    s = make_claude_home(env.home, USER)
    first = env.cli_json("sync")
    before = set(env.keys_in_bucket())

    again = env.cli_json("sync")
    assert again["snapshot"] is None and again["bytes"]["uploaded"] == 0
    assert again["sessions"]["unchanged"] == 6
    assert set(env.keys_in_bucket()) == before

    new_lines = append_turn(s, f"next step in /home/{USER}/work/app", n=3)
    third = env.cli_json("sync")
    assert third["sessions"]["uploaded"] == 1 and third["objects_uploaded"] == 1
    new_keys = set(env.keys_in_bucket()) - before
    objects = [k for k in new_keys if "/objects/" in k]
    assert len(objects) == 1 and len([k for k in new_keys if "/snapshots/" in k]) == 1
    segment = decrypt_with_cli(env.identity, env.raw_object(objects[0]))
    assert segment == _expected_redacted(env, _write(env.base / "new.jsonl", new_lines), "jsonl")
    assert third["bytes"]["uploaded"] < 3 * len(new_lines)

    main = next(x for x in env.cli_json("ls", identity=True)["sessions"] if x["key"] == f"claude-code:{s.main}")
    transcript = next(a for a in main["artifacts"] if a["role"] == "transcript")
    assert len(transcript["objects"]) == 2
    # and the whole file restores equal to the redacted source
    target = env.base / "r"
    out = env.cli_json("restore", f"claude-code:{s.main}", "--to", str(target), identity=True)
    src = s.root / "projects" / s.project_key / f"{s.main}.jsonl"
    assert (target / transcript["path"]).read_bytes() == claude_relinked(_expected_redacted(env, src, "jsonl"), target,
                                                                         out["files"])
    assert first["sessions"]["total"] == third["sessions"]["total"]


def _write(p: Path, data: bytes) -> Path:
    p.write_bytes(data)
    return p


def test_torn_line_archived_once_complete(env: Env) -> None:  # noqa: F811
    s = make_claude_home(env.home, USER)
    env.cli_json("sync")
    path = s.root / "projects" / s.project_key / f"{s.continuation}.jsonl"
    with path.open("ab") as f:
        f.write(b'lf done"}]}}\n')
    out = env.cli_json("sync")
    assert out["sessions"]["uploaded"] == 1
    target = env.base / "r"
    env.cli_json("restore", f"claude-code:{s.continuation}", "--to", str(target), identity=True)
    restored = next(target.rglob(f"{s.continuation}.jsonl")).read_bytes()
    assert restored.endswith(b'half wrilf done"}]}}\n')
    assert restored == _expected_redacted(env, path, "jsonl")


def test_restore_with_family(env: Env) -> None:  # noqa: F811
    s = make_claude_home(env.home, USER)
    env.cli_json("sync")
    only = env.cli_json("restore", f"claude-code:{s.subagent}", "--to", str(env.base / "one"), identity=True)
    assert only["sessions"] == [f"claude-code:{s.subagent}"]
    fam = env.cli_json("restore", f"claude-code:{s.subagent}", "--with-family", "--to", str(env.base / "fam"), identity=True)
    assert set(fam["sessions"]) == {f"claude-code:{k}" for k in (s.main, s.fork, s.continuation, s.subagent, s.forked_subagent)}


def test_claude_config_dir_override(env: Env, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    elsewhere = env.base / "elsewhere"
    s = make_claude_home(elsewhere, USER)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(s.root))
    scan = env.cli_json("scan")
    assert f"claude-code:{s.main}" in {x["key"] for x in scan["sessions"]}
    paths = {a["path"] for x in scan["sessions"] for a in x["artifacts"]}
    assert all(p.startswith(".claude/") for p in paths)


def test_keygen_modes(tmp_path: Path) -> None:
    from archiver.cli import main

    assert main(["keygen", "--out", str(tmp_path / "k")]) == 0
    for name in ("identity.txt", "recipient.txt", "team.key"):
        assert (tmp_path / "k" / name).stat().st_mode & 0o777 == 0o600
    assert (tmp_path / "k" / "identity.txt").read_text().count("AGE-SECRET-KEY-1") == 1
    assert main(["keygen", "--out", str(tmp_path / "k")]) == 2  # refuses to overwrite
