"""Run inside a redaction worker (tests/test_s13_worker_imports.py). This module imports only
what a worker has anyway, so unpickling the probe adds nothing it reports."""

from __future__ import annotations

import sys

from archiver import workers
from archiver.redact.base import RedactionReport

HEAVY = ("pydantic", "pydantic_core", "pydantic_settings", "boto3", "botocore", "rich")


def worker_view(text: str) -> tuple[list[str], str]:
    """The heavy modules loaded in this worker, and `text` as its redactor redacts it."""
    loaded = sorted(m for m in sys.modules
                    if m.split(".")[0] in HEAVY or m in ("archiver.config", "archiver.model"))
    redactor = workers._worker_redactor  # noqa: SLF001 - what _init_worker built
    assert redactor is not None
    return loaded, redactor.redact_text(text, RedactionReport())
