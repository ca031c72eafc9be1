"""fail_closed's verify (RuleRedactor.verify_file) on OUTPUT files: a high-confidence finding
planted in every carrier the walkers decode (plain, `\\u`-escaped letters, `\\/`, split by
escaped newlines, a nested JSON string, a SQLite cell, zstd JSONL) is named; a clean redacted
output gives []. These pin the verify's strictness for any cheaper path through it.

The raw half (rawcheck) scans MODE_OPAQUE with an engine of the secret-shape rules alone
(rawcheck.shape_engine): it must find exactly what the verifier's whole engine finds there."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
import zstandard

from archiver.redact import rawcheck
from archiver.redact.base import RedactionReport
from archiver.redact.engine import MODE_OPAQUE, Engine
from archiver.redact.redactor import RuleRedactor
from archiver.redact.rules import load_rules
from tests.fx_redact import builtin_redactor

KEY = b"s21-verify-team-key-0123456789abcdef"
GHP = "ghp_R8fJ2kLm9QwErTyUiOpAsDfGhJkLzXcVbN12"
AWS = "AKIAQYLPMN5HHHFPZAM2"
# a whole key block, as pem-private-key's first example writes it (the engine names it
# private-key-block-truncated)
PEM = next(r.positive[0] for r in load_rules(["builtin:secrets"]) if r.id == "pem-private-key")
U_GHP = "\\u0067\\u0068\\u0070" + GHP[3:]  # `ghp` as \u escapes: no keyword in the raw bytes


@pytest.fixture(scope="module")
def red() -> RuleRedactor:
    return builtin_redactor(KEY, usernames=["alice"])


def _jsonl(tmp: Path, name: str, *raw_lines: str) -> Path:
    p = tmp / name
    p.write_bytes("".join(line + "\n" for line in raw_lines).encode())
    return p


# (raw JSONL line as written in the output, the rule verify_file must name)
CARRIERS = {
    "plain": ('{"type":"user","message":{"content":"token ' + GHP + '"}}', ["github-pat"]),
    "u-escaped-letters": ('{"message":{"content":"see ' + U_GHP + '"}}', ["github-pat"]),
    "escaped-slash": ('{"cwd":"\\/home\\/bob\\/src","x":"https:\\/\\/h.io\\/' + GHP + '"}',
                      ["github-pat", "home-linux"]),
    "split-by-escaped-newlines": (json.dumps({"toolUseResult": {"stdout": "key:\n" + PEM + "\n"}}),
                                  ["private-key-block-truncated"]),
    "nested-json-string": (json.dumps({"arguments": json.dumps({"cmd": "x", "env": {"T": "\u0067hp_" + GHP[4:]}},
                                                               ensure_ascii=False)}), ["github-pat"]),
    "nested-u-escape": ('{"arguments":"{\\"env\\":\\"\\\\u0067hp_' + GHP[4:] + '\\"}"}', ["github-pat"]),
    # keywordless rules (no keyword in the line at all): a card after a `cat -n` tab escape, an
    # address whose @ is escaped
    "card-after-tab-escape": ('{"stdout":"     1\\t4111111111111111\\n"}', ["credit-card-visa"]),
    "email-u-escaped-at": ('{"content":"mail carol.doe\\u0040mail.fake-domain.dev now"}', ["email"]),
    "aws-in-key": ('{"' + AWS + '":1}', ["aws-access-key-id"]),
}


@pytest.mark.parametrize("carrier", sorted(CARRIERS))
def test_a_planted_finding_in_jsonl_output_is_named(red: RuleRedactor, tmp_path: Path, carrier: str) -> None:
    line, rules = CARRIERS[carrier]
    json.loads(line)  # the plant is valid JSON: the structured walk, not the raw-line fallback, reads it
    clean = '{"type":"assistant","cwd":"/home/user-5f2a/app","usage":{"output_tokens":12}}'
    path = _jsonl(tmp_path, "o.jsonl", clean, line, clean)
    assert red.verify_file(path, "jsonl") == rules
    packed = tmp_path / "o.jsonl.zst"
    packed.write_bytes(zstandard.ZstdCompressor().compress(path.read_bytes()))
    assert red.verify_file(packed, "jsonl.zst") == rules


def test_a_planted_finding_in_a_sqlite_cell_is_named(red: RuleRedactor, tmp_path: Path) -> None:
    db = tmp_path / "o.db"
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("CREATE TABLE part (id TEXT PRIMARY KEY, data TEXT)")
    conn.executemany("INSERT INTO part VALUES (?, ?)", [
        ("p1", json.dumps({"type": "text", "text": "cwd /home/user-5f2a/app"})),
        ("p2", '{"type":"tool","output":"' + U_GHP + '"}'),  # escaped: only the walk sees it
        ("p3", "plain " + AWS),
    ])
    conn.commit()
    conn.close()
    assert red.verify_file(db, "sqlite") == ["aws-access-key-id", "github-pat"]


def test_redacted_output_verifies_clean_in_every_format(red: RuleRedactor, tmp_path: Path) -> None:
    dirty = [
        {"type": "user", "cwd": "/home/alice/app", "message": {"content": "mail alice.smith@acme-corp.io " + GHP}},
        {"type": "assistant", "message": {"content": [{"type": "tool_use", "input": {
            "command": "cat /home/alice/.ssh/id_rsa", "description": "x"}}]},
         "usage": {"input_tokens": 3, "output_tokens": 9}},
        {"toolUseResult": {"stdout": "key:\n" + PEM + "\n", "path": "/home/alice/k"}},
        {"arguments": json.dumps({"env": {"AWS": AWS}, "who": "Co-Authored-By: Claude <noreply@anthropic.com>"})},
    ]
    src = _jsonl(tmp_path, "in.jsonl", *(json.dumps(d) for d in dirty))
    out = tmp_path / "out.jsonl"
    report = RedactionReport()
    red.redact_file(src, out, "jsonl", report)
    assert {"github-pat", "private-key-block-truncated", "aws-access-key-id", "email"} <= set(report.by_rule())
    assert b"/home/user-" in out.read_bytes() and b"alice" not in out.read_bytes()
    assert red.verify_file(src, "jsonl") != []
    assert red.verify_file(out, "jsonl") == []
    packed_in = tmp_path / "in.jsonl.zst"
    packed_in.write_bytes(zstandard.ZstdCompressor().compress(src.read_bytes()))
    packed_out = tmp_path / "out.jsonl.zst"
    red.redact_file(packed_in, packed_out, "jsonl.zst", RedactionReport())
    assert red.verify_file(packed_out, "jsonl.zst") == []
    text_in, text_out = tmp_path / "in.txt", tmp_path / "out.txt"
    text_in.write_text("export GH=" + GHP + "\ncd /home/alice/app\n")
    red.redact_file(text_in, text_out, "text", RedactionReport())
    assert red.verify_file(text_in, "text") != [] and red.verify_file(text_out, "text") == []


# was a gap: jsondoc.needs_work gates a raw line on keywords, but the walker joins argv items with
# spaces, so a keyword with a space (`gh secret set`) existed only in the joined line and the
# verifier never walked it; the keyword gate now takes the words as list items too
# (engine._list_item_forms)
def test_a_keyword_that_only_the_argv_join_forms_is_still_found(red: RuleRedactor, tmp_path: Path) -> None:
    line = json.dumps({"command": ["gh", "secret", "set", "FOO", "--body", "Zq9xV3mT7pLr2Ks8Wd"]})
    report = RedactionReport()
    assert red.redact_jsonl_line(line.encode(), report) != line.encode()  # the redaction finds it
    assert red.verify_file(_jsonl(tmp_path, "o.jsonl", line), "jsonl") == ["gh-secret-set-body"]


def _high(red: RuleRedactor) -> list:
    return [r for r in red.rules if r.id in red.high_confidence]


def test_the_shape_engine_finds_in_opaque_scans_what_the_verifier_engine_finds(red: RuleRedactor) -> None:
    high = _high(red)
    whole = Engine(high, red.pseudonyms)
    shapes = rawcheck.shape_engine(whole)
    assert {r.id for r in shapes.rules} == {r.id for r in high if r.secret_shape and r.decode is None}
    examples = [p for r in red.rules for p in (*r.positive, *r.negative)]
    found = 0
    for k in range(0, len(examples), 40):  # blocks of 40 examples: every rule's shapes beside each other
        block = "\n".join(examples[k:k + 40]).encode("utf-8", "surrogatepass")
        a = whole.scan_bytes(block, MODE_OPAQUE, ansi_text=False)
        assert shapes.scan_bytes(block, MODE_OPAQUE, ansi_text=False) == a
        assert shapes.may_match(block) or not a
        found += len(a)
    assert found > 300  # the blocks do hold shapes
    for p in examples:  # and each example alone
        b = p.encode("utf-8", "surrogatepass")
        assert shapes.scan_bytes(b, MODE_OPAQUE, ansi_text=False) == whole.scan_bytes(b, MODE_OPAQUE, ansi_text=False)


def test_raw_leftovers_with_the_shape_engine_equals_the_verifier_engine(red: RuleRedactor, tmp_path: Path) -> None:
    high = _high(red)
    whole = Engine(high, red.pseudonyms)
    shapes = rawcheck.shape_engine(whole)
    out = tmp_path / "o.jsonl"
    out.write_bytes(b'{"a":"/home/user-5f2a/x noreply@anthropic.com 4111111111111111"}\n'
                    b'{"b":"' + GHP.encode() + b'","c":"' + AWS.encode() + b'"}\n')
    assert rawcheck.raw_leftovers(whole, out) == rawcheck.raw_leftovers(whole, out, shapes) \
        == {"github-pat", "aws-access-key-id"}


def test_a_spaced_keyword_as_list_items_opens_the_gate_in_any_layout(red: RuleRedactor) -> None:
    eng = red.engine
    for raw in (b'["gh","secret","set","FOO"]', b'["gh", "secret", "set"]', b'[\n  "gh",\n  "secret",\n  "set"\n]',
                b'["GH","Secret","SET"]'):
        assert eng.any_keyword(raw), raw
    only = Engine([r for r in red.rules if r.id == "gh-secret-set-body"], red.pseudonyms)
    assert not only.any_keyword(b'["gh","secrets","set"]') and not only.any_keyword(b'["gh","secret"]')
