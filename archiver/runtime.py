"""Builds the working parts from Settings: keys, store, redactor, harness collectors.

The one place that turns configuration into objects, so commands stay thin.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, MutableMapping

from archiver.config import ConfigError, Settings
from archiver.crypto import age
from archiver.crypto.keys import TeamKeys, host_id, load_team_key, team_key_from_env
from archiver.harnesses.base import Harness, HarnessContext, available_harnesses, load_harness
from archiver.harnesses.common import expand_home
from archiver.redact.base import Redactor
from archiver.store import open_store
from archiver.store.base import MiB, ObjectStore, StoreOptions

if TYPE_CHECKING:
    from archiver.redact.redactor import RedactorRecipe


def recipients(settings: Settings) -> list[age.X25519Recipient]:
    try:
        out = [age.parse_recipient(r) for r in settings.encryption.recipients]
    except age.AgeError as e:
        raise ConfigError(f"encryption.recipients: {e}") from None
    if settings.encryption.recipients_file:
        try:
            out.extend(age.load_recipients(settings.encryption.recipients_file))
        except OSError as e:
            raise ConfigError(f"encryption.recipients_file: {settings.encryption.recipients_file}: {e.strerror}") from None
        except age.AgeError as e:
            raise ConfigError(f"encryption.recipients_file: {e}") from None
    if not out:
        raise ConfigError("encryption: no recipients configured (encryption.recipients or encryption.recipients_file)")
    return out


def identities(path: Path | None, passphrase_file: Path | None = None) -> list[age.X25519Identity]:
    """The reviewer's identities: an age-keygen file, or one encrypted with a passphrase
    (`--identity-passphrase-file` or ARCHIVER_PASSPHRASE)."""
    from archiver.rekey import IdentityError, load_identity_file, read_passphrase

    env = os.environ.get("ARCHIVER_IDENTITY_FILE")
    path = path or (Path(env) if env else None)
    if path is None:
        raise ConfigError("an identity is needed: --identity FILE (or ARCHIVER_IDENTITY_FILE)")
    try:
        return load_identity_file(path, read_passphrase(passphrase_file))
    except IdentityError as e:
        raise ConfigError(str(e)) from None


def team_keys(settings: Settings) -> TeamKeys:
    env = os.environ.get("ARCHIVER_TEAM_KEY")
    if env:
        try:
            return TeamKeys.from_team_key(team_key_from_env(env))
        except ValueError as e:
            raise ConfigError(str(e)) from None
    try:
        if settings.redaction.team_key_file:
            return TeamKeys.from_team_key(load_team_key(settings.redaction.team_key_file))
    except (OSError, ValueError) as e:
        raise ConfigError(f"redaction.team_key_file: {e}") from None
    raise ConfigError("redaction.team_key_file is not set (or ARCHIVER_TEAM_KEY)")


def host(settings: Settings, keys: TeamKeys) -> str:
    return host_id(keys, settings.host_name)


def store(settings: Settings, *, lazy: bool = False, read_only: bool = False) -> ObjectStore:
    """The configured store; `read_only` for readers (nothing they do can write to it, and a
    file:// root they cannot find is not made)."""
    s = settings.store
    if not s.url:
        raise ConfigError("store.url is not set (s3://bucket/prefix or file:///path)")
    try:
        options = StoreOptions(
            endpoint_url=s.endpoint_url, region=s.region, sse=s.sse, kms_key_id=s.kms_key_id,
            storage_class=s.storage_class, object_lock_mode=s.object_lock_mode,
            object_lock_days=s.object_lock_days, multipart_threshold=s.multipart_threshold_mb * MiB,
            max_concurrency=s.max_concurrency, max_attempts=s.max_attempts,
        )
        return open_store(s.url, options, lazy=lazy, read_only=read_only)
    except ValueError as e:
        raise ConfigError(f"store: {e}") from None


def redactor(settings: Settings, keys: TeamKeys) -> Redactor:
    from archiver.redact.factory import build_from_settings

    return build_from_settings(settings, keys.pseudonym)


def redactor_factory(settings: Settings, keys: TeamKeys) -> "RedactorRecipe":
    """A picklable recipe for the same redactor, for the parent and its worker processes (one
    per run: the parent's first call loads the rules, workers receive them parsed). Plain data
    only (rule specs, terms, presidio options, parsed rules), so a worker imports neither
    pydantic nor this module's configuration: about 20 MB less in each redaction process."""
    from archiver.redact.factory import redactor_recipe

    return redactor_recipe(settings, keys.pseudonym)


def harnesses(settings: Settings, only: list[str] | None = None,
              cache: "MutableMapping[str, str] | None" = None) -> list[Harness]:
    out = []
    for name in available_harnesses():
        cfg = settings.harnesses.get(name)
        if cfg is None or not cfg.enabled or (only and name not in only):
            continue
        home = settings.home_dir
        options: dict[str, object] = {}
        if cfg.session_dir:
            options["session_dir"] = expand_home(str(cfg.session_dir), home)
        root = expand_home(str(cfg.root), home) if cfg.root else None
        ctx = HarnessContext(home=home, root=root, options=options)
        if cache is not None:
            ctx.cache = cache
        out.append(load_harness(name, ctx))
    return out
