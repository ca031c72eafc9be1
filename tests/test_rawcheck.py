"""The raw half of the fail-closed check (redact/rawcheck.py): the output's bytes scanned with no
walker, so a walker's blind spot cannot hide a token from both the redaction and its re-scan."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
import zstandard

from archiver.redact import rawcheck
from archiver.redact.base import RedactionReport
from archiver.redact.redactor import RuleRedactor, build_redactor
from archiver.redact.rules import RuntimeTerms
from archiver.redact.walkers import jsondoc

KEY = b"team-key-for-tests-0123456789abcdef"
GHP = "ghp_R8fJ2kLm9QwErTyUiOpAsDfGhJkLzXcVbN12"
AWS = "AKIAQYLPMN5HHHFPZAM2"


@pytest.fixture(scope="module")
def red() -> RuleRedactor:
    return build_redactor(["builtin:secrets", "builtin:pii", "builtin:paths"], KEY,
                          RuntimeTerms(usernames=["alice"], home_dirs=["/home/alice"]))


def _engine(red: RuleRedactor) -> rawcheck.Engine:
    # the verifier's engine (high-confidence rules), as RuleRedactor.verify_file uses it
    return rawcheck.Engine([r for r in red.rules if r.id in red.high_confidence], red.pseudonyms)


def test_raw_leftovers_reads_plain_and_zstd_output_and_across_blocks(red: RuleRedactor, tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    eng = _engine(red)
    plain = tmp_path / "a.jsonl"
    plain.write_bytes(b'{"x":"ok"}\n{"y":"token ' + GHP.encode() + b'"}\n')
    assert rawcheck.raw_leftovers(eng, plain) == {"github-pat"}
    packed = tmp_path / "b.jsonl.zst"
    packed.write_bytes(zstandard.ZstdCompressor().compress(plain.read_bytes()))
    assert rawcheck.raw_leftovers(eng, packed) == {"github-pat"}
    monkeypatch.setattr(rawcheck, "BLOCK", 64)  # the token straddles a block edge
    monkeypatch.setattr(rawcheck, "OVERLAP", 40)
    edge = tmp_path / "c.txt"
    edge.write_bytes(b"x" * 50 + b" " + AWS.encode() + b" end\n")
    assert rawcheck.raw_leftovers(eng, edge) == {"aws-access-key-id"}


def test_what_the_walkers_leave_by_design_holds_nothing_back(red: RuleRedactor, tmp_path: Path) -> None:
    eng = _engine(red)
    signature = base64.b64encode(bytes(range(256)) * 2).decode() + "/home/alice/" + AWS + "Ew" * 20
    png = "iVBORw0KGgo" + base64.b64encode(bytes(range(256))).decode() + "/home/alice/x"
    out = tmp_path / "d.jsonl"
    out.write_bytes(json.dumps({"signature": signature, "agentId": "alice", "image": png,
                                "id": "toolu_01ABCdefGHIjklMNOpqrSTUv", "cwd": "/home/user-5f2a/app",
                                # numbers and ids the walkers never scan, whose digits pass a card rule
                                "loss": 0.4111112222333347, "productId": 4012888888881, "callID": "4111112222333347",
                                "tool": json.dumps({"epoch": 3, "loss": 0.5555555555554444})}).encode())
    assert rawcheck.raw_leftovers(eng, out) == set()
    # binary payloads the walkers keep as they are: an e-mail in a PNG text chunk, a path in a .pyc
    blob = tmp_path / "e.txt"
    blob.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\x19tEXtAuthor\x00bob@corp.example\x01\x02"
                     b"\xe3\x00\x00/home/alice/app/x.py\x00")
    assert rawcheck.raw_leftovers(eng, blob) == set()


def test_a_walker_blind_spot_is_caught_by_the_raw_check(red: RuleRedactor, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    # the media-string blind spot found by the audit: text after a data: URI was never scanned
    monkeypatch.setattr(jsondoc, "_media_string", lambda v: v.startswith("data:"))
    src = tmp_path / "s.jsonl"
    src.write_bytes(json.dumps({"output": "data:image/png;base64,iVBORw0KGgo=\nexport T=" + GHP}).encode() + b"\n")
    fresh = build_redactor(["builtin:secrets", "builtin:pii", "builtin:paths"], KEY, RuntimeTerms())
    dst = tmp_path / "o.jsonl"
    fresh.redact_file(src, dst, "jsonl", RedactionReport())
    assert GHP.encode() in dst.read_bytes()  # the walker missed it, and so would its re-scan:
    assert fresh.verify_file(dst, "jsonl") == ["github-pat"]  # the raw half holds the session back


def test_wrapped_base64_holds_nothing_back(red: RuleRedactor, tmp_path: Path) -> None:
    # `base64 logo.png` output (76 columns) in a tool result: a chance token shape in one line
    # of it must not hold the session; here a line holds one for sure
    body = base64.b64encode(bytes(range(256)) * 4).decode()
    wrapped = "\n".join(body[i:i + 76] for i in range(0, len(body), 76))
    wrapped = wrapped[:400] + "/" + AWS + "/" + wrapped[400:]
    out = tmp_path / "w.jsonl"
    out.write_bytes(json.dumps({"tool_result": wrapped}).encode() + b"\n")
    assert rawcheck.raw_leftovers(_engine(red), out) == set()
