"""Allowlist entries may name a word list of rules/words.toml as `{words:<list>}`: one list of
words (the word for "password" in other languages) kept in one place for every rule that
allows it, in the shipped packs and in a team's own."""

from __future__ import annotations

from pathlib import Path

import pytest

from archiver.redact.base import RedactionReport
from archiver.redact.pseudonym import Pseudonymizer
from archiver.redact.redactor import RuleRedactor
from archiver.redact.rules import RuleError, expand_word_lists, load_rules

PACK = """
[pack]
name = "team-s18-words"
version = 1

[[rules]]
id = 'team-login-value'
regex = '''login_value=(\\S+)'''
keywords = ['login_value=']
allowlist = ['''(?i)^{words:%s}$''']
positive = ['login_value=Xk3jq9']
negative = ['login_value=Passwort']
"""


def test_a_word_list_becomes_an_alternation_of_its_words() -> None:
    pattern = expand_word_lists("(?i)^{words:password_words}$")
    assert pattern.startswith("(?i)^(?:") and pattern.endswith(")$")
    assert "mot\\ de\\ passe" in pattern and "passwort" in pattern and "{words:" not in pattern
    assert expand_word_lists("^x{2}$") == "^x{2}$"  # a counted repeat is no reference


def test_a_team_pack_may_name_a_word_list(tmp_path: Path) -> None:
    pack = tmp_path / "team.toml"
    pack.write_text(PACK % "password_words")
    red = RuleRedactor(load_rules([str(pack)]), Pseudonymizer(b"\x02" * 32))
    assert red.redact_text("login_value=Passwort", RedactionReport()) == "login_value=Passwort"
    assert red.redact_text("login_value=Wachtwoord", RedactionReport()) == "login_value=Wachtwoord"
    out = red.redact_text("login_value=Passwort2", RedactionReport())
    assert out.startswith("login_value=<") and "Passwort2" not in out


def test_an_unknown_word_list_is_refused_naming_the_pack_and_rule(tmp_path: Path) -> None:
    pack = tmp_path / "team.toml"
    pack.write_text(PACK % "passwords_de")
    with pytest.raises(RuleError) as e:
        load_rules([str(pack)])
    assert "team.toml" in str(e.value) and "team-login-value" in str(e.value)
    assert "unknown word list {words:passwords_de}" in str(e.value) and "password_words" in str(e.value)


@pytest.mark.parametrize(("value", "kept"), [("Passwort", True), ("Contraseña", True), ("パスワード", True),
                                              ("Passwort!", False), ("Senha2024!", False)])
def test_the_shipped_password_rule_keeps_only_the_labels(value: str, kept: bool) -> None:
    red = RuleRedactor(load_rules(["builtin:secrets"]), Pseudonymizer(b"\x02" * 32))
    text = f'{{"password": "{value}"}}'
    assert (red.redact_text(text, RedactionReport()) == text) is kept


def test_the_redaction_fingerprint_follows_the_word_lists(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A re-sync redacts again what an edit of rules/words.toml changes (generated rules, allowlists)."""
    import shutil

    import archiver
    from archiver import runtime
    from archiver.commands.sync import redaction_fingerprint
    from archiver.config import load_settings
    from archiver.redact.rules import builtin_pack_path

    (tmp_path / "team.key").write_text("07" * 32 + "\n")
    (tmp_path / "team.key").chmod(0o600)
    cfg = tmp_path / "config.toml"
    cfg.write_text(f'home = "{tmp_path}"\n[redaction]\nteam_key_file = "{tmp_path / "team.key"}"\n'
                   f'[store]\nurl = "file://{tmp_path / "store"}"\n')
    settings = load_settings(cfg, required=True)
    keys = runtime.team_keys(settings)
    package = tmp_path / "pkg" / "archiver"
    (package / "rules").mkdir(parents=True)
    for name in ("secrets", "pii", "paths", "words"):
        shutil.copyfile(builtin_pack_path(name), package / "rules" / f"{name}.toml")
    monkeypatch.setattr(archiver, "__file__", str(package / "__init__.py"))
    before = redaction_fingerprint(settings, keys)
    assert redaction_fingerprint(settings, keys) == before
    words = package / "rules" / "words.toml"
    words.write_text(words.read_text().replace('"passwort", ', ""))
    assert redaction_fingerprint(settings, keys) != before
