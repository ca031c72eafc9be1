"""Exceptions the CLI maps to exit codes that need no heavy import to name (`archiver --help`
and a usage error must not import pydantic to learn what a configuration error is)."""

from __future__ import annotations


class ConfigError(ValueError):
    """A configuration problem; the message names the file and key."""
