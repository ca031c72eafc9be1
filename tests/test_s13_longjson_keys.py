"""A JSONL line too long for memory (snapshot.LONG_LINE) is redacted through its skeleton, which
the ordinary walker reads: a secret under a generic key scanned with its parent's name
(`{"Jwt": {"Key": ...}}`, jsondoc's parent-key context) is found there as in a short line."""

from __future__ import annotations

import json
from pathlib import Path

from archiver.redact.base import RedactionReport
from archiver.redact.redactor import build_redactor
from archiver.redact.rules import RuntimeTerms
from archiver.snapshot import LONG_LINE

SECRET = "q8Zr2mXv9LpT4wK7nB3cY6dF1hJ5sG0a"


def test_parent_key_context_holds_in_a_line_longer_than_memory(tmp_path: Path) -> None:
    red = build_redactor(["builtin:secrets", "builtin:pii", "builtin:paths"], b"k" * 32,
                         RuntimeTerms(usernames=["zorbalina"], names=[], home_dirs=["/home/zorbalina"],
                                      extra_terms=[], hosts=[]))
    filler = "tool output line\n" * (LONG_LINE // 17 + 4096)
    short = {"type": "user", "toolUseResult": {"Jwt": {"Key": SECRET}, "stdout": "ok"}}
    long = {**short, "toolUseResult": {**short["toolUseResult"], "stdout": filler}}
    outs = []
    for name, record in (("short", short), ("long", long)):
        src, dst = tmp_path / f"{name}.jsonl", tmp_path / f"{name}.out"
        src.write_bytes(json.dumps(record, separators=(",", ":")).encode() + b"\n")
        report = RedactionReport()
        red.redact_file(src, dst, "jsonl", report)
        out = dst.read_bytes()
        assert SECRET.encode() not in out, name
        assert report.by_rule().get("jwt-config-signing-key") == 1, (name, report.by_rule())
        outs.append(json.loads(out)["toolUseResult"]["Jwt"]["Key"])
    assert len(long["toolUseResult"]["stdout"]) > LONG_LINE
    assert outs[0] == outs[1] and outs[0].startswith("<SECRET:")
