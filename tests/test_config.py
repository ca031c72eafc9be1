"""Settings: TOML + ARCHIVER_* env, errors that name the key, the example documents every key."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pydantic import BaseModel

from archiver.config import ConfigError, Settings, load_settings

ROOT = Path(__file__).resolve().parent.parent


def _keys(model: type[BaseModel], prefix: str = "") -> set[str]:
    out = set()
    for name, field in model.model_fields.items():
        ann = field.annotation
        if isinstance(ann, type) and issubclass(ann, BaseModel):
            out |= _keys(ann, f"{prefix}{name}.")
        elif name != "harnesses":
            out.add(prefix + name)
    return out


def test_example_config_loads_and_documents_every_key() -> None:
    s = load_settings(ROOT / "config.example.toml")
    assert s.redaction.fail_closed is True
    text = (ROOT / "config.example.toml").read_text()
    documented = set(re.findall(r"^#?\s*([a-z_]+)\s*=", text, re.M))
    for key in _keys(Settings):
        assert key.split(".")[-1] in documented, key
    from archiver.config import HarnessSettings

    for key in HarnessSettings.model_fields:
        assert key in documented
    for harness in ("claude-code", "codex", "cursor-agent", "opencode", "pi", "deepseek-harness"):
        assert f"[harnesses.{harness}]" in text


def test_env_overrides_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = tmp_path / "c.toml"
    cfg.write_text('[store]\nurl = "file:///a"\nmax_concurrency = 2\n')
    monkeypatch.setenv("ARCHIVER_STORE__MAX_CONCURRENCY", "8")
    monkeypatch.setenv("ARCHIVER_HARNESSES__PI__ENABLED", "false")
    s = load_settings(cfg)
    assert s.store.url == "file:///a" and s.store.max_concurrency == 8
    assert s.harnesses["pi"].enabled is False and s.harnesses["codex"].enabled is True


@pytest.mark.parametrize(
    "text, needle",
    [
        ("[store]\nurll = 'x'\n", "store.urll: unknown key"),
        ("[store]\nurl = 'ftp://x'\n", "store.url"),
        ("[store]\nsse = 'rot13'\n", "store.sse"),
        ("[harnesses.vim]\nenabled = true\n", "unknown harness 'vim'"),
        ("[encryption]\nrecipients = ['AGE-SECRET-KEY-1QQQ']\n", "collectors hold only recipients"),
        ("[redaction\n", "not valid TOML"),
    ],
)
def test_bad_config_names_key(tmp_path: Path, text: str, needle: str) -> None:
    cfg = tmp_path / "c.toml"
    cfg.write_text(text)
    with pytest.raises(ConfigError) as err:
        load_settings(cfg)
    assert needle in str(err.value) and str(cfg) in str(err.value)


def test_missing_explicit_config_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not found"):
        load_settings(tmp_path / "nope.toml")


def test_harness_root_tilde_is_the_configured_home_not_the_process_users(tmp_path: Path) -> None:
    """`root = "~/..."` names a folder of the archived HOME (`home = ...`), as the harness itself
    resolves `~` against its HOME; other relative paths stay relative to the config file."""
    from archiver.runtime import harnesses

    home = tmp_path / "alice"
    cfg = tmp_path / "conf" / "config.toml"
    cfg.parent.mkdir()
    cfg.write_text(
        f'home = "{home}"\n'
        '[harnesses.deepseek-harness]\nroot = "~/.deepseek/sessions"\n'
        '[harnesses.pi]\nroot = "~/.pi/agent"\nsession_dir = "~/pi-sessions"\n'
        '[harnesses.codex]\nroot = "codex-here"\n')
    settings = load_settings(cfg)
    by_name = {h.name: h for h in harnesses(settings, only=["deepseek-harness", "pi", "codex"])}
    assert by_name["deepseek-harness"].ctx.root == home / ".deepseek" / "sessions"
    assert by_name["pi"].ctx.root == home / ".pi" / "agent"
    assert by_name["pi"].ctx.options["session_dir"] == home / "pi-sessions"
    assert by_name["codex"].ctx.root == cfg.parent.resolve() / "codex-here"
