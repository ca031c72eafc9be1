"""The common options (--config, --json, -v, -q, --log-format) work before the command as well as
after it: `archiver --config F sync` is how most tools (git -C, aws --profile) are called, and a
subparser's defaults must not wipe what was given before the command."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest

from archiver.cli import build_parser, main

DEFAULTS = {"config": None, "json": False, "verbose": False, "quiet": False, "log_format": "auto"}


def _common(argv: list[str]) -> dict[str, object]:
    ns = build_parser().parse_args(argv)
    return {k: getattr(ns, k) for k in DEFAULTS}


@pytest.mark.parametrize("command", [["status"], ["ls"], ["redact", "F"], ["sync", "--dry-run"]])
def test_defaults_when_no_common_option_is_given(command: list[str]) -> None:
    assert _common(command) == DEFAULTS


@pytest.mark.parametrize("where", ["before", "after"])
def test_each_common_option_is_taken_on_either_side_of_the_command(where: str) -> None:
    opts = ["--config", "/etc/a.toml", "--json", "-v", "-q", "--log-format", "json"]
    argv = [*opts, "status"] if where == "before" else ["status", *opts]
    assert _common(argv) == {"config": "/etc/a.toml", "json": True, "verbose": True, "quiet": True,
                             "log_format": "json"}


def test_the_value_after_the_command_wins_over_the_one_before() -> None:
    got = _common(["--config", "/etc/before.toml", "--log-format", "human", "status", "--config", "/etc/after.toml"])
    assert got["config"] == "/etc/after.toml"
    assert got["log_format"] == "human"  # given only before: kept


def test_config_and_json_before_the_command_drive_a_real_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ARCHIVER_CONFIG", raising=False)
    state = tmp_path / "state-here"
    cfg = tmp_path / "c.toml"
    cfg.write_text(f'home = "{tmp_path}"\n[store]\nurl = "file://{tmp_path / "store"}"\n[state]\ndir = "{state}"\n')
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        code = main(["--json", "--config", str(cfg), "status"])
    assert code == 0
    assert json.loads(buf.getvalue())["state_dir"] == str(state)


def test_a_config_before_the_command_that_does_not_exist_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nope.toml"
    assert main(["--config", str(missing), "status"]) == 2
    assert str(missing) in capsys.readouterr().err


def test_nested_subcommands_keep_a_value_given_at_the_top() -> None:
    ns = build_parser().parse_args(["--config", "/etc/top.toml", "--json", "rules", "test", "F"])
    assert (ns.config, ns.json, ns.file) == ("/etc/top.toml", True, "F")
    ns = build_parser().parse_args(["--config", "/etc/top.toml", "bucket", "init", "--config", "/etc/inner.toml"])
    assert ns.config == "/etc/inner.toml"
