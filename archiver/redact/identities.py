"""The user's own identities as the machine records them, found under the home being archived: the
name and login git and the GitHub CLI were given, and the passwd entry's full name. They become
runtime terms (`rules.RuntimeTerms`) beside the configured ones, so the user's GitHub login in a URL,
a CODEOWNERS line or an @-mention, and their full name in prose, are redacted without a config entry.

Only files of that home are read (a fixture home of a test yields nothing of the machine's); a file
that is missing, unreadable or malformed yields nothing, and no value found is ever logged."""

from __future__ import annotations

import os
import pwd
from dataclasses import dataclass, field
from pathlib import Path

import re2

from archiver.redact.rules import BUILTIN_WORDS, GENERIC_ACCOUNTS

MAX_CONFIG_BYTES = 1 << 20  # a config file larger than this is no git or gh config
MAX_INCLUDE_DEPTH = 4  # git's own limit is 10; includes of includes past 4 are not followed

_SECTION = re2.compile(r'^\s*\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]\s*(.*)$')
_ENTRY = re2.compile(r"^\s*([A-Za-z][A-Za-z0-9-]*)\s*(?:=\s*(.*?))?\s*$")
_LOGIN = re2.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$")  # a GitHub login
_HANDLE = re2.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{2,63}$")  # a one-word git user.name: an account name
_NAME_WORD = re2.compile(r"^[\pL][\pL\pM'’.-]*$")

# Names that are no person's: a git identity set to a placeholder or to a bot's
_PLACEHOLDER_NAMES = frozenset({
    "your name", "your full name", "full name", "first last", "firstname lastname", "first name last name",
    "john doe", "jane doe", "john smith", "test user", "example user", "user name", "git user",
})
_NOT_A_PERSON_WORDS = (BUILTIN_WORDS["account_role_words"] | BUILTIN_WORDS["organisation_words"]
                       | BUILTIN_WORDS["mailbox_words"] | BUILTIN_WORDS["system_accounts"]
                       | {"bot", "bots", "actions", "action", "ci", "cd", "github", "gitlab", "bitbucket", "noreply",
                          "no-reply", "dependabot", "renovate", "jenkins", "pipeline", "runner", "agent", "claude",
                          "codex", "cursor", "copilot", "unknown", "anonymous", "nobody"})


@dataclass
class Identities:
    usernames: list[str] = field(default_factory=list)  # logins: GitHub's, a one-word git user.name
    names: list[str] = field(default_factory=list)  # full names: git user.name, the passwd entry's


def discover_identities(home: Path) -> Identities:
    """The identities recorded under `home`: git's global config (`~/.gitconfig`,
    `~/.config/git/config` and the files they include), the GitHub CLI's `~/.config/gh/hosts.yml`,
    and the full name of the passwd entry whose home directory `home` is. For the process's own
    home, `$XDG_CONFIG_HOME` and `$GH_CONFIG_DIR` are read too, as git and gh read them."""
    found = Identities()
    config_dirs = _config_dirs(home)
    for config in (home / ".gitconfig", *(d / "git" / "config" for d in config_dirs)):
        for section, key, value in git_config_entries(config, home):
            if (section, key) == ("user", "name"):
                _add_name(found, value, handle_alone=True)
            elif (section, key) in (("github", "user"), ("gitlab", "user")) and _LOGIN.match(value):
                found.usernames.append(value)
    gh_dirs = [Path(os.environ["GH_CONFIG_DIR"])] if os.environ.get("GH_CONFIG_DIR") and _is_process_home(home) else []
    for gh_dir in dict.fromkeys([*gh_dirs, *(d / "gh" for d in config_dirs)]):
        found.usernames.extend(gh_logins(gh_dir / "hosts.yml"))
    gecos = passwd_full_name(home)
    if gecos:
        _add_name(found, gecos, handle_alone=False)
    found.usernames = [u for u in dict.fromkeys(found.usernames) if u.lower() not in GENERIC_ACCOUNTS]
    found.names = list(dict.fromkeys(found.names))
    return found


def _config_dirs(home: Path) -> list[Path]:
    """`home/.config`, and `$XDG_CONFIG_HOME` when `home` is this process's own home."""
    dirs = [home / ".config"]
    xdg = os.environ.get("XDG_CONFIG_HOME")
    if xdg and _is_process_home(home):
        dirs.insert(0, Path(xdg))
    return list(dict.fromkeys(dirs))


def _is_process_home(home: Path) -> bool:
    try:
        return home.resolve() == Path(os.environ.get("HOME") or Path.home()).resolve()
    except (OSError, RuntimeError):
        return False


def _add_name(found: Identities, value: str, handle_alone: bool) -> None:
    """A full name to `names`; a git user.name of one word is a login (`tokonkwo`) to `usernames`."""
    words = value.split()
    if len(words) == 1:
        if handle_alone and _HANDLE.match(words[0]) and words[0].lower() not in _NOT_A_PERSON_WORDS:
            found.usernames.append(words[0])
    elif person_name(value):
        found.names.append(" ".join(words))


def person_name(value: str) -> bool:
    """Is a recorded full name a person's (2-4 words of letters), not a placeholder or a bot's?"""
    words = value.split()
    if not 2 <= len(words) <= 4 or " ".join(words).lower() in _PLACEHOLDER_NAMES:
        return False
    if not all(_NAME_WORD.match(w) for w in words) or sum(len(w) for w in words) < 5:
        return False
    return not any(w.lower().strip(".") in _NOT_A_PERSON_WORDS for w in words)


def git_config_entries(path: Path, home: Path, depth: int = 0) -> list[tuple[str, str, str]]:
    """(section, key, value) of a git config file, lower-case section and key, its includes followed
    in place (`include.path`, and `includeIf.<cond>.path` whatever the condition: every identity the
    user works under is theirs)."""
    text = _read_small(path)
    if text is None:
        return []
    out: list[tuple[str, str, str]] = []
    section = ""
    for raw in text.splitlines():
        line = raw
        m = _SECTION.match(line)
        if m:
            section = m.group(1).lower()
            line = m.group(3)  # `[user] name = x` on one line
            if not line.strip():
                continue
        m = _ENTRY.match(line)
        if not m or line.lstrip().startswith(("#", ";")):
            continue
        key, value = m.group(1).lower(), _git_value(m.group(2) or "")
        if section in ("include", "includeif") and key == "path" and value and depth < MAX_INCLUDE_DEPTH:
            out.extend(git_config_entries(_include_target(value, path, home), home, depth + 1))
        elif value:
            out.append((section, key, value))
    return out


def _git_value(raw: str) -> str:
    """A value as git reads it: quotes removed, a comment after it dropped, `\\"` and `\\\\` unescaped."""
    out, quoted, i = [], False, 0
    while i < len(raw):
        c = raw[i]
        if c == "\\" and i + 1 < len(raw):
            out.append({"n": "\n", "t": "\t", "b": "\b"}.get(raw[i + 1], raw[i + 1]))
            i += 2
            continue
        if c == '"':
            quoted = not quoted
        elif c in "#;" and not quoted:
            break
        else:
            out.append(c)
        i += 1
    return "".join(out).strip()


def _include_target(value: str, config: Path, home: Path) -> Path:
    if value.startswith("~/"):
        return home / value[2:]
    target = Path(value)
    return target if target.is_absolute() else config.parent / target


def gh_logins(path: Path) -> list[str]:
    """The logins of the GitHub CLI's hosts file: each host's `user:` and the names under its
    `users:` (gh 2.40+ keeps one entry per account)."""
    text = _read_small(path)
    if text is None:
        return []
    logins: list[str] = []
    users_indent: int | None = None
    child_indent: int | None = None
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        indent = len(line) - len(line.lstrip(" "))
        if users_indent is not None and indent <= users_indent:
            users_indent = child_indent = None
        key, _, value = stripped.partition(":")
        key, value = key.strip().strip("'\""), value.strip().strip("'\"")
        if users_indent is not None:
            if child_indent is None:
                child_indent = indent
            if indent == child_indent and not value and _LOGIN.match(key):
                logins.append(key)
            continue
        if key == "users" and not value:
            users_indent = indent
        elif key == "user" and _LOGIN.match(value):
            logins.append(value)
    return logins


def passwd_full_name(home: Path) -> str:
    """The full name (first GECOS field) of the passwd entry whose home directory is `home`."""
    try:
        target = home.resolve()
        entries = pwd.getpwall()
    except (OSError, RuntimeError):
        return ""
    for entry in entries:
        try:
            if entry.pw_dir and Path(entry.pw_dir).resolve() == target:
                return entry.pw_gecos.split(",")[0].strip()
        except (OSError, RuntimeError):
            continue
    return ""


def _read_small(path: Path) -> str | None:
    try:
        if not path.is_file() or path.stat().st_size > MAX_CONFIG_BYTES:
            return None
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
