"""The user's own identities as the home records them (archiver/redact/identities.py): git's user.name
and github.user (includes followed), the GitHub CLI's logins, the passwd entry's full name. They
become runtime terms, so the user's GitHub login is replaced in a URL, a CODEOWNERS line and an
@-mention, and the full name in prose, with nothing configured; placeholders and bots' names are not
taken; a broken file yields nothing and stops nothing. End to end: a sync of a generated home with a
.gitconfig and a gh hosts file stores neither login nor name (the objects read with `age` and `zstd`)."""

from __future__ import annotations

import os
import pwd
from pathlib import Path

import pytest

from archiver.config import Settings
from archiver.demo.claude_sample import make_claude_home
from archiver.redact.base import RedactionReport
from archiver.redact.factory import runtime_terms
from archiver.redact.identities import (MAX_CONFIG_BYTES, discover_identities, gh_logins, git_config_entries,
                                        passwd_full_name, person_name)
from archiver.redact.pseudonym import Pseudonymizer
from archiver.redact.redactor import build_redactor
from tests.fx_archiver import USER, Env, decrypt_with_cli, env  # noqa: F401

LOGIN = "tokonkwo"
WORK_LOGIN = "okonkwo-acme"
NAME = "Thaddeus Okonkwo"
KEY = b"s42-identities-test-key-0123456789abcdef"
PACKS = ["builtin:secrets", "builtin:pii", "builtin:paths", "builtin:names"]

GITCONFIG = f"""# global
[user]
\tname = "{NAME}" ; me
\temail = t.okonkwo@example.org
[github]
\tuser = {LOGIN}
[includeIf "gitdir:~/work/"]
\tpath = ~/work/.gitconfig-work
[alias]
\tname = log --format=%an
"""
WORK_GITCONFIG = "[user]\n    name = Ngozi Adeyemi-Clarke\n    email = nac@acme.example\n"
GH_HOSTS = f"""github.com:
    users:
        {LOGIN}:
            oauth_token: gho_notarealtoken
        {WORK_LOGIN}:
            oauth_token: gho_notarealtoken
    git_protocol: https
    user: {LOGIN}
ghe.acme.example:
    user: {WORK_LOGIN}
    git_protocol: ssh
"""


def write_identity_home(home: Path) -> Path:
    (home / "work").mkdir(parents=True, exist_ok=True)
    (home / ".config" / "gh").mkdir(parents=True, exist_ok=True)
    (home / ".gitconfig").write_text(GITCONFIG)
    (home / "work" / ".gitconfig-work").write_text(WORK_GITCONFIG)
    (home / ".config" / "gh" / "hosts.yml").write_text(GH_HOSTS)
    return home


@pytest.fixture(autouse=True)
def _no_process_config(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("XDG_CONFIG_HOME", "GH_CONFIG_DIR"):
        monkeypatch.delenv(var, raising=False)


# ---------------------------------------------------------------- discovery

def test_discovers_git_names_and_github_logins_with_includes(tmp_path: Path) -> None:
    found = discover_identities(write_identity_home(tmp_path / "home"))
    assert found.usernames == [LOGIN, WORK_LOGIN]
    assert found.names == [NAME, "Ngozi Adeyemi-Clarke"]


def test_xdg_git_config_and_a_one_word_git_name_is_a_login(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".config" / "git").mkdir(parents=True)
    (home / ".config" / "git" / "config").write_text("[user] name = qvothurl\n[github]\n\tuser = \"qv-othurl\"\n")
    found = discover_identities(home)
    assert (found.usernames, found.names) == (["qvothurl", "qv-othurl"], [])


def test_process_home_reads_xdg_config_home_and_gh_config_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home, xdg, ghdir = tmp_path / "home", tmp_path / "xdg", tmp_path / "ghdir"
    (xdg / "git").mkdir(parents=True)
    ghdir.mkdir()
    home.mkdir()
    (xdg / "git" / "config").write_text("[user]\n\tname = Ilse Vandermeulen\n")
    (ghdir / "hosts.yml").write_text("github.com:\n    user: ivdm\n")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(xdg))
    monkeypatch.setenv("GH_CONFIG_DIR", str(ghdir))
    assert discover_identities(home).names == []  # not this process's home: its environment is not the home's
    monkeypatch.setenv("HOME", str(home))
    found = discover_identities(home)
    assert (found.usernames, found.names) == (["ivdm"], ["Ilse Vandermeulen"])


@pytest.mark.parametrize("value", [
    "Your Name", "John Doe", "CI Bot", "GitHub Actions", "Acme Release Team", "Seed 4e3997b5 maintainers",
    "dependabot[bot]", "root", "Build Agent", "Jo", "A B", "x", "Thaddeus Okonkwo Jr Sr Esq",
])
def test_placeholders_and_bots_are_not_taken(tmp_path: Path, value: str) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / ".gitconfig").write_text(f"[user]\n\tname = {value}\n")
    found = discover_identities(home)
    assert (found.usernames, found.names) == ([], [])


@pytest.mark.parametrize(("value", "taken"), [
    ("Thaddeus Okonkwo", True), ("María José Fernández", True), ("T. Okonkwo", True), ("Seán O’Brien", True),
    ("Okonkwo Labs", False), ("Release Signing Key", False), ("Jane Doe", False), ("R2 D2", False),
])
def test_person_name(value: str, taken: bool) -> None:
    assert person_name(value) is taken


def test_git_config_values_as_git_reads_them(tmp_path: Path) -> None:
    cfg = tmp_path / "cfg"
    cfg.write_text('[user]\n\tname = "Ada \\"The\\" Byron" # comment\n\tNAME=Second Value ; c\n[core]\n\teditor = vim\n')
    assert git_config_entries(cfg, tmp_path) == [
        ("user", "name", 'Ada "The" Byron'), ("user", "name", "Second Value"), ("core", "editor", "vim")]


def test_include_cycle_and_broken_files_yield_nothing_and_stop_nothing(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / ".gitconfig").write_text("[include]\n\tpath = ~/.gitconfig\n[user]\n\tname = Ilse Vandermeulen\n")
    # a cycle ends at the include depth; the name is read once per level and deduplicated
    assert discover_identities(home).names == ["Ilse Vandermeulen"]
    (home / ".gitconfig").unlink()
    (home / ".gitconfig").mkdir()  # not a file
    (home / ".config" / "gh").mkdir(parents=True)
    (home / ".config" / "gh" / "hosts.yml").write_bytes(b"\xff\xfe\x00garbage: [\n  - :\n")
    found = discover_identities(home)
    assert (found.usernames, found.names) == ([], [])


def test_an_oversized_config_is_not_read(tmp_path: Path) -> None:
    cfg = tmp_path / "hosts.yml"
    cfg.write_text("github.com:\n    user: bigfileuser\n" + "#" * MAX_CONFIG_BYTES)
    assert gh_logins(cfg) == []
    cfg.write_text("github.com:\n    user: bigfileuser\n")
    assert gh_logins(cfg) == ["bigfileuser"]


def test_gh_users_block_ends_at_its_indent(tmp_path: Path) -> None:
    cfg = tmp_path / "hosts.yml"
    cfg.write_text("github.com:\n  users:\n    ann-k:\n      oauth_token: x\n    bo9:\n  git_protocol: https\n"
                   "  other:\n    notalogin:\n")
    assert gh_logins(cfg) == ["ann-k", "bo9"]


def test_passwd_full_name_is_the_entry_whose_home_it_is(tmp_path: Path) -> None:
    assert passwd_full_name(tmp_path) == ""
    entry = pwd.getpwuid(os.getuid())
    assert passwd_full_name(Path(entry.pw_dir)) == entry.pw_gecos.split(",")[0].strip()


# ---------------------------------------------------------------- redaction

def _redact(home: Path, text: str, **redaction: object) -> str:
    settings = Settings(home=home, redaction={"usernames": [], **redaction})
    red = build_redactor(PACKS, KEY, runtime_terms(settings))
    return red.redact_bytes(text.encode(), RedactionReport(), "text").decode()


def test_the_login_and_name_are_redacted_where_they_show(tmp_path: Path) -> None:
    home = write_identity_home(tmp_path / "home")
    p = Pseudonymizer(KEY)
    user = p.username(LOGIN)
    texts = {
        f"https://github.com/{LOGIN}/billing/pull/412": f"https://github.com/{user}/billing/pull/412",
        f"/src/billing/ @{LOGIN} @acme/payments-team": f"/src/billing/ @{user} @acme/payments-team",
        f"Merge pull request #412 from {LOGIN}/fix-billing": f"Merge pull request #412 from {user}/fix-billing",
        f"@{LOGIN} can you take a look?": f"@{user} can you take a look?",
        f"git clone git@github.com:{WORK_LOGIN}/dotfiles.git":
            f"git clone git@github.com:{p.username(WORK_LOGIN)}/dotfiles.git",
    }
    for text, want in texts.items():
        assert _redact(home, text) == want
    out = _redact(home, f"{NAME} fixed it. Thaddeus said ok.")
    token = out.split(" ", 1)[0]
    assert token.startswith("<NAME:") and out == f"{token} fixed it. {token} said ok."
    # switched off, the same text keeps them
    assert _redact(home, texts_first := f"https://github.com/{LOGIN}/billing", discover_identities=False) == texts_first


# ---------------------------------------------------------------- end to end

def _stored_plaintext(e: Env) -> bytes:
    return b"".join(decrypt_with_cli(e.identity, e.raw_object(k)) for k in e.keys_in_bucket() if "/objects/" in k)


def _plant_identity_text(e: Env) -> None:
    import json

    s = make_claude_home(e.home, USER)
    text = (f"PR by {NAME}: https://github.com/{LOGIN}/billing/pull/9 ; CODEOWNERS: /src/ @{LOGIN} ; "
            f"ghe: {WORK_LOGIN}")
    with (e.home / ".claude" / "projects" / s.project_key / f"{s.main}.jsonl").open("a") as f:
        f.write(json.dumps({"type": "user", "message": {"role": "user", "content": text}}) + "\n")
    write_identity_home(e.home)


def test_sync_stores_neither_login_nor_name(env: Env) -> None:  # noqa: F811
    _plant_identity_text(env)
    code, out = env.cli("sync")
    assert code == 0, out
    stored = _stored_plaintext(env)
    assert b"github.com/user-" in stored and b"CODEOWNERS: /src/ @user-" in stored
    for value in (LOGIN, WORK_LOGIN, "Thaddeus", "Okonkwo"):
        assert value.encode() not in stored, value
    doctor = {c["check"]: c for c in env.cli_json("doctor", expect=None)["checks"]}
    assert doctor["discovered identities"]["status"] == "ok"
    assert doctor["discovered identities"]["detail"].startswith("2 login(s), 2 name(s)")
    assert LOGIN not in str(doctor) and "Okonkwo" not in str(doctor)


def test_sync_with_discovery_off_keeps_them(env: Env) -> None:  # noqa: F811
    _plant_identity_text(env)
    env.config.write_text(env.config.read_text().replace("[redaction]\n", "[redaction]\ndiscover_identities = false\n"))
    code, out = env.cli("sync")
    assert code == 0, out
    assert f"https://github.com/{LOGIN}/billing".encode() in _stored_plaintext(env)
    doctor = {c["check"]: c for c in env.cli_json("doctor", expect=None)["checks"]}
    assert doctor["discovered identities"]["status"] == "skip"
