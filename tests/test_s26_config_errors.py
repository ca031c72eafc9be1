"""A setting refused once the run has started (a rule pack, the recipients, the team key, the
store) names the config file it was read from, as the settings' own validation does."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest

from archiver.cli import main


def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


@pytest.fixture()
def base(tmp_path: Path) -> Path:
    assert _run("keygen", "--out", str(tmp_path / "keys"))[0] == 0
    (tmp_path / "home").mkdir()
    return tmp_path


def _config(base: Path, **overrides: str) -> Path:
    lines = {
        "home": f'home = "{base / "home"}"',
        "store": f'[store]\nurl = "file://{base / "store"}"',
        "encryption": f'[encryption]\nrecipients_file = "{base / "keys" / "recipient.txt"}"',
        "redaction": f'[redaction]\nteam_key_file = "{base / "keys" / "team.key"}"',
        "state": f'[state]\ndir = "{base / "state"}"',
    }
    lines.update(overrides)
    cfg = base / "config.toml"
    cfg.write_text("\n".join(lines.values()) + "\n")
    return cfg


@pytest.mark.parametrize("section, text, setting", [
    ("redaction", '[redaction]\nteam_key_file = "{k}/team.key"\nrules = ["builtin:nosuch"]',
     "redaction.rules: builtin:nosuch: unknown builtin pack"),
    ("redaction", '[redaction]\nteam_key_file = "{k}/missing.key"', "redaction.team_key_file: "),
    ("redaction", "[redaction]", "redaction.team_key_file is not set"),
    ("encryption", '[encryption]\nrecipients_file = "{k}/missing.txt"', "encryption.recipients_file: "),
    ("encryption", '[encryption]\nrecipients = ["age1notakey"]', "encryption.recipients: "),
    ("encryption", "[encryption]", "encryption: no recipients configured"),
])
def test_sync_names_the_config_file(base: Path, section: str, text: str, setting: str,
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ARCHIVER_TEAM_KEY", raising=False)
    cfg = _config(base, **{section: text.format(k=base / "keys")})
    code, _, err = _run("sync", "--config", str(cfg), "--workers", "1")
    assert code == 2
    last = err.splitlines()[-1]
    assert last.startswith(f"archiver: {cfg}: {setting}"), err


def test_status_records_the_named_line(base: Path) -> None:
    cfg = _config(base)
    assert _run("sync", "--config", str(cfg), "--workers", "1")[0] == 0
    cfg = _config(base, redaction=f'[redaction]\nteam_key_file = "{base}/keys/team.key"\n'
                                   'rules = ["builtin:nosuch"]')
    assert _run("sync", "--config", str(cfg), "--workers", "1")[0] == 2
    code, out, _ = _run("status", "--config", str(cfg), "--json")
    assert code == 0
    assert json.loads(out)["last_run"]["errors"] == [
        f"{cfg}: redaction.rules: builtin:nosuch: unknown builtin pack (known: secrets, pii, paths, names)"]


def test_redact_names_the_config_file(base: Path) -> None:
    cfg = _config(base, redaction=f'[redaction]\nteam_key_file = "{base}/keys/team.key"\n'
                                   'rules = ["builtin:nosuch"]')
    (base / "s.txt").write_text("hello\n")
    code, _, err = _run("redact", "--config", str(cfg), str(base / "s.txt"))
    assert (code, err) == (2, f"archiver: {cfg}: redaction.rules: builtin:nosuch: unknown builtin pack "
                              "(known: secrets, pii, paths, names)\n")


def test_no_config_file_no_prefix(base: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Settings from the environment alone: no file to name, the setting comes first."""
    monkeypatch.setenv("ARCHIVER_CONFIG", str(base / "nowhere.toml"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(base / "xdg"))
    monkeypatch.setenv("HOME", str(base / "home"))
    monkeypatch.setenv("ARCHIVER_STORE__URL", f"file://{base / 'store'}")
    monkeypatch.setenv("ARCHIVER_STATE__DIR", str(base / "state"))
    monkeypatch.setenv("ARCHIVER_ENCRYPTION__RECIPIENTS_FILE", str(base / "keys" / "recipient.txt"))
    monkeypatch.delenv("ARCHIVER_TEAM_KEY", raising=False)
    code, _, err = _run("sync", "--workers", "1")
    assert code == 2
    assert err.splitlines()[-1] == "archiver: redaction.team_key_file is not set (or ARCHIVER_TEAM_KEY)"


def test_unrelated_errors_keep_their_text(base: Path) -> None:
    """A usage error is not a setting: nothing in front."""
    cfg = _config(base)
    code, _, err = _run("restore", "--config", str(cfg), "--identity", str(base / "keys" / "identity.txt"),
                        "nosuch-session", "--to", str(base / "out"))
    assert code == 2
    assert str(cfg) not in err, err
