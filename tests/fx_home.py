"""A fake HOME, keys and a file:// store for end-to-end tests that run the CLI in process
(`Box.cli`, `Box.sync`, `Box.ls`): one config, rewritten by `only()` to pick harnesses. The
user is `zqxcanary`, named "Zelda Quixote"; fixtures are written by the tests, following the seeds."""

from __future__ import annotations

import contextlib
import io
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from archiver.cli import main
from archiver.redact.base import RedactionReport

USER = "zqxcanary"
EMAIL = "zelda.quixote@zqxcorp.example"
CANARIES = ("zqxcanary", "zelda", "quixote", "zqxcorp")
UUID_A = "0b0e5f4e-1111-4222-8333-444455556666"
UUID_F = "0b0e5f4e-1111-4222-8333-444455557777"
HARNESSES = ("claude-code", "codex", "cursor-agent", "opencode", "pi", "deepseek-harness")


@dataclass
class Box:
    base: Path
    home: Path
    config: Path

    def cli(self, *args: str, expect: int | None = 0) -> Any:
        buf = io.StringIO()
        argv = [args[0], "--config", str(self.config), *args[1:], "--json"]
        if args[0] in ("ls", "lineage", "restore"):
            argv += ["--identity", str(self.base / "keys" / "identity.txt")]
        with contextlib.redirect_stdout(buf):
            code = main(argv)
        out = json.loads(buf.getvalue())
        if expect is not None:
            assert code == expect, out
        return out

    def sync(self, expect: int | None = 0) -> dict[str, Any]:
        return self.cli("sync", "--workers", "1", expect=expect)

    def ls(self) -> dict[str, dict[str, Any]]:
        return {s["key"]: s for s in self.cli("ls")["sessions"]}

    def redactor(self) -> Any:
        from archiver import runtime
        from archiver.config import load_settings

        settings = load_settings(self.config)
        return runtime.redactor(settings, runtime.team_keys(settings))

    def relpath(self, value: str) -> str:
        """What redact_relpath makes of a file name: the reference for archived ids."""
        return self.redactor().redact_relpath(value, RedactionReport())

    def only(self, *harnesses: str) -> None:
        keys = self.base / "keys"
        self.config.write_text(
            f'home = "{self.home}"\nhost = "laptop"\n'
            f'[redaction]\nteam_key_file = "{keys / "team.key"}"\nusernames = ["{USER}"]\n'
            'names = ["Zelda Quixote"]\n'
            f'[encryption]\nrecipients_file = "{keys / "recipient.txt"}"\n'
            f'[store]\nurl = "file://{self.base / "store"}"\n'
            f'[state]\ndir = "{self.base / "state"}"\n'
            + "".join(f"[harnesses.{h}]\nenabled = {'true' if h in harnesses else 'false'}\n" for h in HARNESSES)
        )


# what the archiver and the harnesses read from the environment: a test's own config must decide
ISOLATED_ENV = ("ARCHIVER_CONFIG", "ARCHIVER_TEAM_KEY", "CLAUDE_CONFIG_DIR", "CODEX_HOME", "CURSOR_CONFIG_DIR",
                "CURSOR_DATA_DIR", "PI_CODING_AGENT_DIR", "PI_CODING_AGENT_SESSION_DIR", "XDG_DATA_HOME",
                "XDG_CONFIG_HOME", "XDG_STATE_HOME", "ARCHIVER_IDENTITY_FILE", "OPENCODE_DB",
                "ARCHIVER_RESTORE_MAX_BYTES", "ARCHIVER_RESTORE_MAX_RATIO")


def isolate_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ISOLATED_ENV:
        monkeypatch.delenv(var, raising=False)


@pytest.fixture
def box(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Box:
    isolate_env(monkeypatch)
    b = Box(base=tmp_path, home=tmp_path / "home", config=tmp_path / "config.toml")
    b.home.mkdir()
    (tmp_path / "store").mkdir()
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["keygen", "--out", str(tmp_path / "keys")]) == 0
    b.only(*HARNESSES)
    return b


def _line(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":")) + "\n"


def _no_canary(doc: Any) -> None:
    text = json.dumps(doc).lower()
    for c in CANARIES:
        assert c not in text, (c, text[max(0, text.find(c) - 200): text.find(c) + 200])


def write_rollout(d: Path, tid: str, stamp: str, **meta: Any) -> None:
    payload = {"id": tid, "timestamp": "2026-01-02T03:04:05.600Z", "cwd": "/srv/app", "originator": "codex_cli_rs",
               "cli_version": "0.164.0", "model_provider": "openai", **meta}
    recs = [{"timestamp": "2026-01-02T03:04:05.678Z", "type": "session_meta", "payload": payload},
            {"timestamp": "2026-01-02T03:04:06.000Z", "type": "response_item",
             "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go"}]}}]
    (d / f"rollout-2026-01-02T{stamp}-{tid}.jsonl").write_text("".join(_line(r) for r in recs))
