"""Settings: a TOML file plus ARCHIVER_* environment variables (`__` for nesting).

Precedence: environment > TOML file > defaults. Unknown keys are errors, so a
typo never silently disables a safety setting. No secret lives in the file:
keys are files (or ARCHIVER_TEAM_KEY in the environment).
"""

from __future__ import annotations

import os
import re
import socket
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict, SettingsError

from archiver.errors import ConfigError  # defined apart so the CLI names it without pydantic
from archiver.model import HARNESS_NAMES


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid")


class HarnessSettings(_Section):
    enabled: bool = True
    root: Path | None = None
    session_dir: Path | None = None  # pi: a custom session directory


class PresidioSettings(_Section):
    enabled: bool = False
    entities: list[str] = Field(default_factory=lambda: ["PERSON", "LOCATION"])
    score_threshold: float = Field(0.6, ge=0.0, le=1.0)
    recognizers: list[str] = Field(default_factory=list)  # "package.module:Class"
    max_chars: int = Field(4096, gt=0)  # only strings up to this size go through presidio


class RedactionSettings(_Section):
    rules: list[str] = Field(default_factory=lambda: ["builtin:secrets", "builtin:pii", "builtin:paths", "builtin:names"])
    team_key_file: Path | None = None
    fail_closed: bool = True
    usernames: list[str] = Field(default_factory=list)  # besides the current OS user
    names: list[str] = Field(default_factory=list)  # the user's real name(s)
    extra_terms: list[str] = Field(default_factory=list)  # company hostnames, repo names...
    # the name and logins git, the GitHub CLI and passwd record for the home (redact/identities.py)
    discover_identities: bool = True
    presidio: PresidioSettings = Field(default_factory=PresidioSettings)


class EncryptionSettings(_Section):
    recipients: list[str] = Field(default_factory=list)
    recipients_file: Path | None = None

    @field_validator("recipients")
    @classmethod
    def _recipients_are_public(cls, value: list[str]) -> list[str]:
        for r in value:
            if r.strip().upper().startswith("AGE-SECRET-KEY-"):
                raise ValueError("an age identity (secret key) was given; collectors hold only recipients (age1...)")
            if not r.strip().startswith("age1"):
                raise ValueError(f"not an age X25519 recipient: {r[:8]}...")
        return value


class StoreSettings(_Section):
    url: str = ""
    endpoint_url: str | None = None
    region: str | None = None
    sse: Literal["AES256", "aws:kms"] | None = None
    kms_key_id: str | None = None
    storage_class: str | None = None
    object_lock_mode: Literal["COMPLIANCE", "GOVERNANCE"] | None = None
    object_lock_days: int | None = Field(None, gt=0)
    multipart_threshold_mb: int = Field(64, ge=5)
    max_concurrency: int = Field(4, ge=1, le=64)
    max_attempts: int = Field(5, ge=1, le=20)

    @field_validator("url")
    @classmethod
    def _url_scheme(cls, value: str) -> str:
        if value and not (value.startswith("s3://") or value.startswith("file://")):
            raise ValueError("must start with s3:// or file://")
        return value


class StateSettings(_Section):
    dir: Path | None = None


def _default_harnesses() -> dict[str, HarnessSettings]:
    return {name: HarnessSettings() for name in HARNESS_NAMES}


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="ARCHIVER_",
        env_nested_delimiter="__",
        extra="forbid",
        case_sensitive=False,
    )

    host: str | None = None  # name the host id is derived from (default: hostname)
    home: Path | None = None  # the HOME whose harness folders are archived (default: $HOME)
    harnesses: dict[str, HarnessSettings] = Field(default_factory=_default_harnesses)
    redaction: RedactionSettings = Field(default_factory=RedactionSettings)
    encryption: EncryptionSettings = Field(default_factory=EncryptionSettings)
    store: StoreSettings = Field(default_factory=StoreSettings)
    state: StateSettings = Field(default_factory=StateSettings)

    @field_validator("harnesses")
    @classmethod
    def _known_harnesses(cls, value: dict[str, HarnessSettings]) -> dict[str, HarnessSettings]:
        unknown = sorted(set(value) - set(HARNESS_NAMES))
        if unknown:
            raise ValueError(f"unknown harness {unknown[0]!r}; known: {', '.join(HARNESS_NAMES)}")
        for name, h in value.items():
            if h.session_dir is not None and name != "pi":  # only pi has a session directory setting
                raise ValueError(f"{name}: session_dir is a pi setting; {name} takes root")
        merged = _default_harnesses()
        merged.update(value)
        return merged

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        # init values are what the TOML file holds (see load_settings); env wins over them.
        return (env_settings, init_settings)

    # ---- derived values ----
    @property
    def home_dir(self) -> Path:
        return (self.home or Path(os.environ.get("HOME") or Path.home())).expanduser()

    @property
    def host_name(self) -> str:
        return self.host or socket.gethostname()

    @property
    def state_dir(self) -> Path:
        if self.state.dir:
            return self.state.dir.expanduser()
        base = os.environ.get("XDG_STATE_HOME") or str(self.home_dir / ".local" / "state")
        return Path(base) / "archiver"


def default_config_path() -> Path:
    env = os.environ.get("ARCHIVER_CONFIG")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "archiver" / "config.toml"


def _resolve_relative(data: dict[str, Any], base: Path) -> None:
    """Paths in the file are relative to the file's folder, as users expect."""
    def fix(section: dict[str, Any] | None, key: str, keep_tilde: bool = False) -> None:
        if section and isinstance(section.get(key), str):
            if keep_tilde and (section[key] == "~" or section[key].startswith("~/")):
                return  # a harness folder's `~` is the configured `home`, resolved with it (runtime)
            p = Path(section[key]).expanduser()
            section[key] = str(p if p.is_absolute() else base / p)

    red = data.get("redaction")
    fix(red, "team_key_file")
    if isinstance(red, dict) and isinstance(red.get("rules"), list):
        red["rules"] = [
            r if r.startswith("builtin:") or Path(r).expanduser().is_absolute() else str(base / r)
            for r in red["rules"] if isinstance(r, str)
        ]
    fix(data.get("encryption"), "recipients_file")
    fix(data.get("state"), "dir")
    for h in (data.get("harnesses") or {}).values():
        if isinstance(h, dict):
            fix(h, "root", keep_tilde=True)
            fix(h, "session_dir", keep_tilde=True)


def _format_validation_error(err: ValidationError, source: str) -> str:
    lines = []
    for e in err.errors():
        loc = ".".join(str(p) for p in e["loc"]) or "(top level)"
        msg = e["msg"]
        if e["type"] == "extra_forbidden":
            msg = "unknown key"
        elif e["type"] == "value_error":
            msg = msg.removeprefix("Value error, ")
        lines.append(f"{source}: {loc}: {msg}")
    return "\n".join(lines)


def _env_parse_error(err: Exception) -> str:
    """A value in the environment that is not the JSON a list or section needs, as one line
    naming the variables (never their values: ARCHIVER_TEAM_KEY may be among them)."""
    m = re.search(r'field "([^"]+)"', str(err))
    field = (m.group(1) if m else "").upper()
    names = sorted(k for k in os.environ if field and k.upper().startswith(f"ARCHIVER_{field}"))
    cause = f" ({err.__cause__})" if isinstance(err.__cause__, ValueError) else ""
    return (f"{', '.join(names) or 'ARCHIVER_* env'}: cannot read the value of {field.lower() or 'a setting'}: "
            f"a list or section in the environment must be JSON{cause}")


def load_settings(path: Path | None = None, *, required: bool = False) -> Settings:
    """Read the TOML file (if it exists, or must when `required`) and the environment."""
    cfg_path = path or default_config_path()
    data: dict[str, Any] = {}
    if cfg_path.exists():
        try:
            with cfg_path.open("rb") as f:
                data = tomllib.load(f)
        except tomllib.TOMLDecodeError as e:
            raise ConfigError(f"{cfg_path}: not valid TOML: {e}") from None
        except OSError as e:
            raise ConfigError(f"{cfg_path}: cannot read: {e.strerror}") from None
        _resolve_relative(data, cfg_path.parent.resolve())
    elif required or path is not None:
        raise ConfigError(f"{cfg_path}: config file not found")
    try:
        return Settings(**data)
    except ValidationError as e:
        raise ConfigError(_format_validation_error(e, str(cfg_path) + " / ARCHIVER_* env")) from None
    except SettingsError as e:  # an ARCHIVER_* value pydantic-settings cannot parse (it raises, not reports)
        raise ConfigError(_env_parse_error(e)) from None
