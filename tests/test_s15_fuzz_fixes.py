"""The collector fixes the s15 fuzzing (tests/fx_s15_fuzz.py) called for, each checked at the
collector on a demo home (seed-shaped) with one file broken: the broken session is still found
with its file and a warning naming it, and every other session is found as before."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from archiver.harnesses.base import HarnessContext, load_harness
from tests.fx_home import USER

OBJECT = {"v": 1}


def _home(tmp_path: Path, harness: str) -> Path:
    import importlib

    from tests.test_e2e_harnesses import GENERATORS

    module, fn = GENERATORS[harness]
    home = tmp_path / "home"
    getattr(importlib.import_module(module), fn)(home, USER)
    return home


def _discover(home: Path, harness: str) -> dict[str, object]:
    return {s.key: s for s in load_harness(harness, HarnessContext(home=home, env={})).discover()}


def _edit_line(path: Path, index: int, **fields: object) -> None:
    lines = path.read_bytes().split(b"\n")
    rec = json.loads(lines[index])
    rec.update(fields)
    lines[index] = json.dumps(rec).encode()
    path.write_bytes(b"\n".join(lines))


@pytest.mark.parametrize("value", [OBJECT, [[1, ["x"]]]], ids=["object", "nested-list"])
@pytest.mark.parametrize("harness,glob", [
    ("claude-code", ".claude/projects/*/d23f0824-128b-4f33-8c5c-7fd0a6a3a450.jsonl"),
    ("deepseek-harness", ".deepseek/sessions/ds-01J9Z8K7M6N5P4Q3R2S1T0V9F2.jsonl"),
])
def test_a_record_type_that_is_not_a_string_fails_no_other_session(tmp_path: Path, harness: str, glob: str,
                                                                    value: object) -> None:
    # before: `rec.get("type") in <frozenset>` raised TypeError (unhashable) out of discover():
    # the whole harness was "discovery failed" and none of its sessions archived
    home = _home(tmp_path, harness)
    before = _discover(home, harness)
    victim = next(home.glob(glob))
    _edit_line(victim, 0, type=value)
    after = _discover(home, harness)
    assert set(after) == set(before)
    key = next(k for k, s in after.items() if any(src.source == victim for src in s.sources))
    assert [src.source for src in after[key].sources if src.role == "transcript"] == [victim]
    for k, s in before.items():
        if k != key:
            assert [x.path for x in after[k].sources] == [x.path for x in s.sources], k


@pytest.mark.parametrize("target", ["/etc/passwd", "../../../../../../etc/passwd", "{home}/.ssh/id_ed25519",
                                    "/tmp/pi-bash-1234/../../etc/passwd", "relative/pi-bash-00aa.log"])
def test_pi_full_output_path_outside_pis_temp_files_is_not_archived(tmp_path: Path, target: str) -> None:
    # before: any existing file a record named (/etc/passwd, a key under ~/.ssh) was archived as
    # the session's sidecar, and a relative one was read from the archiver's working folder
    home = _home(tmp_path, "pi")
    (home / ".ssh").mkdir()
    (home / ".ssh" / "id_ed25519").write_text("-----BEGIN OPENSSH PRIVATE KEY-----\n")
    session = next(home.glob(".pi/agent/sessions/*/2026-01-01T10-00-00-000Z_*8057.jsonl"))
    value = target.format(home=home)
    text = re.sub(r'"fullOutputPath":"[^"]*"', lambda m: '"fullOutputPath":' + json.dumps(value), session.read_text())
    session.write_text(text)
    assert value in session.read_text()
    found = _discover(home, "pi")
    s = found["pi:01890a5d-ac96-774b-bcce-b302099a8057"]
    assert [src.role for src in s.sources] == ["transcript"], [src.source for src in s.sources]
    assert any(f"fullOutputPath {value!r} is not a pi-bash-*.log" in w and session.name in w for w in s.warnings), s.warnings
