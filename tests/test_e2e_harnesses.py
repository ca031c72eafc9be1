"""Every harness end to end: generated home -> sync (moto over HTTP) -> ls/lineage
equal to what the collector found -> restore into an empty folder -> each file equals
the redacted source, with nothing private left in any byte or file name."""

from __future__ import annotations

import functools

import importlib
import json
import re
import sqlite3
import zlib
from pathlib import Path
from typing import Any, Callable

import pytest
import zstandard

from archiver.harnesses.base import HarnessContext, load_harness
from archiver.redact.base import RedactionReport
from tests.fx_archiver import USER, Env, env  # noqa: F401
from tests.fx_s32_relinks import claude_relinked, codex_relinked

GENERATORS = {
    "claude-code": ("archiver.demo.claude_sample", "make_claude_home"),
    "codex": ("archiver.demo.codex_sample", "make_codex_home"),
    "pi": ("archiver.demo.pi_sample", "make_pi_home"),
    "deepseek-harness": ("archiver.demo.deepseek_sample", "make_deepseek_home"),
    "cursor-agent": ("archiver.demo.cursor_sample", "make_cursor_home"),
    "opencode": ("archiver.demo.opencode_sample", "make_opencode_home"),
}


def _generator(name: str) -> Any:
    module, fn = GENERATORS[name]
    try:
        return getattr(importlib.import_module(module), fn)
    except (ImportError, AttributeError) as e:
        pytest.skip(f"no fixture generator for {name}: {e}")


def _redactor(e: Env):  # type: ignore[no-untyped-def]
    return _cached_redactor(str(e.config), e.config.read_text())


@functools.lru_cache(maxsize=4)
def _cached_redactor(config: str, _content: str):  # type: ignore[no-untyped-def]
    from archiver import runtime
    from archiver.config import load_settings

    settings = load_settings(Path(config))
    return runtime.redactor(settings, runtime.team_keys(settings))


def _only(e: Env, harness: str) -> None:
    e.write_config("".join(
        f"\n[harnesses.{h}]\nenabled = {'true' if h == harness else 'false'}\n" for h in GENERATORS
    ))


@pytest.mark.parametrize("harness", sorted(GENERATORS))
def test_harness_roundtrip(env: Env, harness: str) -> None:  # noqa: F811
    _generator(harness)(env.home, USER)
    _only(env, harness)
    discovered = {s.key: s for s in load_harness(harness, HarnessContext(home=env.home, env={})).discover()}
    assert discovered

    result = env.cli_json("sync", expect=None)
    assert result["sessions"]["failed"] == 0, result["errors"]
    assert result["sessions"]["total"] == len(discovered)

    listed = {s["key"]: s for s in env.cli_json("ls", identity=True)["sessions"]}
    assert set(listed) == set(discovered)
    for key, ds in discovered.items():
        assert listed[key]["kind"] == ds.kind
        assert [(p["relation"], p["parent"], p["inferred"]) for p in listed[key]["parents"]] == [
            (p.relation, p.parent, p.inferred) for p in ds.parents
        ]
        assert len(listed[key]["artifacts"]) == len([s for s in ds.sources if s.source.exists()])

    target = env.base / "restored"
    out = env.cli_json("restore", "--all", "--to", str(target), identity=True, expect=None)
    assert out["integrity_errors"] == [] and out["refused"] == []

    red = _redactor(env)
    every = {a["path"]: a for s in listed.values() for a in s["artifacts"]}
    for key, ds in discovered.items():
        arts = {a["path"]: a for a in listed[key]["artifacts"]}
        for src in ds.sources:
            if not src.source.exists():
                continue
            art = next(a for a in arts.values() if a["role"] == src.role and _same_file(a["path"], src.path, red))
            restored = target / art["path"]
            assert restored.is_file(), art["path"]
            relink: Callable[[bytes], bytes] | None = None
            if src.role == "transcript" and harness == "pi":
                relink = _pi_relinked(target, arts, every)
            elif src.role == "transcript" and harness == "claude-code":
                relink = functools.partial(claude_relinked, root=target, restored=every)
            elif src.role == "transcript" and harness == "codex":
                relink = functools.partial(codex_relinked, root=target, restored=every)
            elif src.role == "transcript" and harness == "deepseek-harness":
                relink = _deepseek_relinked(target, every)
            _check_equal(env, red, src, restored, art, relink)

    for p in target.rglob("*"):
        assert USER not in p.name, p
        if p.is_file() and not p.name.endswith((".png", ".zst")):
            data = p.read_bytes()
            assert USER.encode() not in data, p
            assert f"/home/{USER}".encode() not in data, p
        if p.is_file() and p.name.endswith(".zst"):
            assert USER.encode() not in zstandard.ZstdDecompressor().decompressobj().decompress(p.read_bytes())
        if p.is_file() and "objects" in p.parts and p.read_bytes()[:2] in _ZLIB_HEADS:  # git loose objects
            assert USER.encode() not in zlib.decompress(p.read_bytes()), p


_ZLIB_HEADS = (b"x\x01", b"x^", b"x\x9c", b"x\xda")


def _same_file(archived: str, native: str, red: Any) -> bool:
    return archived.rsplit("/", 1)[-1] == red.redact_relpath(native, RedactionReport()).rsplit("/", 1)[-1]


def _pi_relinked(target: Path, arts: dict[str, dict[str, Any]],
                 every: dict[str, dict[str, Any]]) -> Callable[[bytes], bytes]:
    """What restore writes of a pi transcript: a fullOutputPath naming a temp file archived with
    the session names its restored copy under the target, and a fork's header.parentSession its
    parent's restored transcript (or where restoring the parent there would put it)."""
    side = {p.rsplit("/", 1)[1]: str(target.resolve() / p) for p, a in arts.items()
            if a["role"] == "sidecar" and p.rsplit("/", 2)[-2].endswith(".tmp")}
    transcripts = {p.rsplit("/", 1)[1]: str(target.resolve() / p) for p, a in every.items() if a["role"] == "transcript"}

    def swap(m: re.Match[bytes]) -> bytes:
        new = side.get(json.loads(b'"' + m.group(2) + b'"').rsplit("/", 1)[1])
        return m.group(1) + json.dumps(new, ensure_ascii=False).encode() if new else m.group(0)

    def parent(m: re.Match[bytes]) -> bytes:
        old = json.loads(b'"' + m.group(2) + b'"')
        folder, name = old.rsplit("/", 2)[-2:]
        new = transcripts.get(name) or str(target.resolve() / ".pi/agent/sessions" / folder / name)
        return m.group(1) + json.dumps(new, ensure_ascii=False).encode()

    def relink(data: bytes) -> bytes:
        data = re.sub(rb'(?<!\\)("fullOutputPath":)"((?:[^"\\]|\\.)*)"', swap, data)
        return re.sub(rb'(?<!\\)("parentSession":)"((?:[^"\\]|\\.)*)"', parent, data, count=1)

    return relink


def _deepseek_relinked(target: Path, every: dict[str, dict[str, Any]]) -> Callable[[bytes], bytes]:
    """What restore writes of a DeepSeek transcript: a header parentSession given as a path names
    the parent's restored transcript under the target."""
    def parent(m: re.Match[bytes]) -> bytes:
        old = json.loads(b'"' + m.group(2) + b'"')
        rel = ".deepseek/sessions/" + old.rsplit("/.deepseek/sessions/", 1)[-1]
        new = str(target.resolve() / rel) if old.startswith("/") and rel in every else None
        return m.group(1) + json.dumps(new, ensure_ascii=False).encode() if new else m.group(0)

    def relink(data: bytes) -> bytes:
        first, eol, rest = data.partition(b"\n")
        return re.sub(rb'(?<!\\)("parentSession":)"((?:[^"\\]|\\.)*)"', parent, first, count=1) + eol + rest

    return relink


def _check_equal(e: Env, red: Any, src: Any, restored: Path, art: dict[str, Any],
                 relink: Callable[[bytes], bytes] | None = None) -> None:
    relink = relink or (lambda data: data)
    report = RedactionReport()
    if src.mode in ("append", "zst"):
        data = src.source.read_bytes()
        if src.mode == "zst":
            data = zstandard.ZstdDecompressor().decompressobj().decompress(data)
            got = zstandard.ZstdDecompressor().decompressobj().decompress(restored.read_bytes())
        else:
            got = restored.read_bytes()
        data = data[: data.rfind(b"\n") + 1]
        want = b"".join(red.redact_jsonl_line(line.rstrip(b"\r"), report) + (b"\r\n" if line.endswith(b"\r") else b"\n")
                        for line in data.split(b"\n")[:-1])
        assert got == relink(want), art["path"]
    elif src.format == "sqlite":
        conn = sqlite3.connect(restored)
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        conn.close()
    elif src.mode == "produced":
        assert restored.stat().st_size > 0
    else:
        out = e.base / "expected.tmp"
        red.redact_file(src.source, out, src.format, report)
        assert restored.read_bytes() == relink(out.read_bytes()), art["path"]
