"""Build the redactor the configuration asks for."""

from __future__ import annotations

import getpass
import socket
from typing import TYPE_CHECKING

from archiver.config import ConfigError, Settings
from archiver.redact.base import Redactor
from archiver.redact.identities import discover_identities
from archiver.redact.presidio_engine import PresidioOptions
from archiver.redact.rules import GENERIC_ACCOUNTS, RuleError, RuntimeTerms

if TYPE_CHECKING:
    from archiver.redact.redactor import RedactorRecipe


def usernames_for(settings: Settings) -> list[str]:
    """Configured usernames plus the OS user running the collector (unless generic)."""
    names = list(settings.redaction.usernames)
    try:
        current = getpass.getuser()
    except (KeyError, OSError):
        current = ""
    if len(current) >= 3 and current.lower() not in GENERIC_ACCOUNTS:
        names.append(current)
    return [n for n in dict.fromkeys(names) if n]


def runtime_terms(settings: Settings) -> RuntimeTerms:
    usernames, names = usernames_for(settings), list(settings.redaction.names)
    if settings.redaction.discover_identities:
        found = discover_identities(settings.home_dir)
        usernames = list(dict.fromkeys([*usernames, *found.usernames]))
        names = list(dict.fromkeys([*names, *found.names]))
    return RuntimeTerms(
        usernames=usernames,
        names=names,
        home_dirs=[str(settings.home_dir)],
        extra_terms=list(settings.redaction.extra_terms),
        hosts=_host_names(settings),
    )


def _host_names(settings: Settings) -> list[str]:
    """The configured host name and the machine's own (they differ when `host` is set)."""
    names = [settings.host_name]
    try:
        names.append(socket.gethostname())
    except OSError:
        pass
    return names


def _redactor_args(settings: Settings) -> tuple[list[str], RuntimeTerms, PresidioOptions | None]:
    presidio = None
    if settings.redaction.presidio.enabled:
        p = settings.redaction.presidio
        presidio = PresidioOptions(enabled=True, entities=list(p.entities), score_threshold=p.score_threshold,
                                   recognizers=list(p.recognizers), max_chars=p.max_chars)
    return list(settings.redaction.rules), runtime_terms(settings), presidio


def build_from_settings(settings: Settings, pseudonym_key: bytes) -> Redactor:
    return build_from_recipe(redactor_recipe(settings, pseudonym_key))


def build_from_recipe(recipe: "RedactorRecipe") -> Redactor:
    """The recipe's redactor; a bad rule pack is a configuration error (exit 2)."""
    try:
        return recipe()
    except RuleError as e:
        raise ConfigError(f"redaction.rules: {e}") from None


def redactor_recipe(settings: Settings, pseudonym_key: bytes) -> "RedactorRecipe":
    """The configured redactor as a picklable recipe (the host and user names resolved here):
    one per run, for the parent and its worker processes alike, so the rules are loaded once."""
    from archiver.redact.redactor import RedactorRecipe

    rules, terms, presidio = _redactor_args(settings)
    return RedactorRecipe(rules, pseudonym_key, terms, presidio)
