"""Base64 of whole files (`base64 .env`, `base64 -w0 ~/.aws/credentials`, a CI variable): the
engine's decode-and-rescan pass (archiver/redact/decoded.py, rule `base64-decoded-secret`) replaces
the whole run when its decoded text holds a secret, in every walker; binary and harmless text stay;
the fail-closed re-scan finds a run left in the output."""

from __future__ import annotations

import base64
import json
import random
import re
import sqlite3
from pathlib import Path

import pytest

from archiver.redact import decoded, rawcheck
from archiver.redact.base import RedactionReport
from archiver.redact.engine import MODE_ALL, MODE_IDS, MODE_KEYS, Engine
from archiver.redact.pseudonym import Pseudonymizer
from archiver.redact.redactor import RuleRedactor, build_redactor
from archiver.redact.rules import RuleError, RuntimeTerms, load_rules, parse_pack
from tests import fx_s13_b64 as fx

KEY = b"team-key-for-tests-0123456789abcdef"
RULE = "base64-decoded-secret"
TOKEN = re.compile(r"<BASE64_SECRET:[0-9a-f]{8}>")
MB = 1 << 20


@pytest.fixture(scope="module")
def red() -> RuleRedactor:
    return build_redactor(["builtin:secrets", "builtin:pii", "builtin:paths"], KEY,
                          RuntimeTerms(usernames=["alice"], home_dirs=["/home/alice"]))


def _gone(out: str | bytes, run: str, secrets: list[str]) -> None:
    """No line of the run and no secret is left, and one token stands where the run was."""
    o = out.decode() if isinstance(out, bytes) else out
    for line in re.split(r"\r?\n|\\r\\n|\\n", run):
        if len(line) >= 16:
            assert line not in o, (line, o[:400])
    for s in secrets:
        assert s not in o
    assert TOKEN.search(o), o[:400]


# ------------------------------------------------------------------ carriers

@pytest.mark.parametrize("kind", sorted(fx.SECRET_FILES))
def test_claude_tool_result_showing_base64_of_a_secret_file(red: RuleRedactor, tmp_path: Path, kind: str) -> None:
    data, secrets = fx.SECRET_FILES[kind](11)
    run = fx.wrap(fx.b64(data), 76)
    src = tmp_path / "s.jsonl"
    src.write_bytes(fx.claude_tool_result(f"$ base64 {kind}.txt\n{run}\n") + b"\n")
    out = tmp_path / "o.jsonl"
    rep = RedactionReport()
    red.redact_file(src, out, "jsonl", rep)
    raw = out.read_bytes()
    _gone(raw, run, secrets)
    rec = json.loads(raw)
    content = rec["message"]["content"][0]["content"]
    assert re.fullmatch(r"\$ base64 \w+\.txt\n<BASE64_SECRET:[0-9a-f]{8}>\n", content), content
    assert rep.by_rule()[RULE] == 1
    assert red.verify_file(out, "jsonl") == []


def test_codex_function_call_output_unwrapped_and_urlsafe(red: RuleRedactor, tmp_path: Path) -> None:
    data, secrets, _ = fx.urlsafe_sample(fx.aws_credentials)
    run = fx.b64(data, urlsafe=True, pad=False)
    assert "-" in run or "_" in run
    src = tmp_path / "rollout.jsonl"
    src.write_bytes(fx.codex_output(run) + b"\n" + fx.codex_output("README.md", 2) + b"\n")
    out = tmp_path / "o.jsonl"
    rep = RedactionReport()
    red.redact_file(src, out, "jsonl", rep)
    first, second = out.read_bytes().splitlines()
    _gone(first, run, secrets)
    assert json.loads(first)["payload"]["output"].endswith("Output:\n" + TOKEN.search(first.decode()).group(0))
    assert second == fx.codex_output("README.md", 2)
    assert rep.by_rule() == {RULE: 1}


@pytest.mark.parametrize("sep", ["\n", "\r\n"])
def test_plain_text_file_wrapped_base64(red: RuleRedactor, tmp_path: Path, sep: str) -> None:
    data, secrets = fx.env_file(5)
    run = fx.wrap(fx.b64(data), 64, sep)
    text = f"$ kubectl get secret app -o jsonpath='{{.data.env}}' | base64 -d | base64{sep}{run}{sep}$ echo done{sep}"
    src = tmp_path / "t.txt"
    src.write_bytes(text.encode())
    out = tmp_path / "o.txt"
    rep = RedactionReport()
    red.redact_file(src, out, "text", rep)
    got = out.read_bytes().decode()
    _gone(got, run, secrets)
    assert got.endswith(f"base64{sep}{TOKEN.search(got).group(0)}{sep}$ echo done{sep}")
    assert rep.by_rule() == {RULE: 1}


def test_sqlite_text_cell(red: RuleRedactor, tmp_path: Path) -> None:
    data, secrets = fx.github_env(3)
    run = fx.wrap(fx.b64(data), 76)
    db = tmp_path / "store.db"
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("CREATE TABLE msg (id TEXT PRIMARY KEY, body TEXT)")
    conn.execute("INSERT INTO msg VALUES (?, ?)", ("m1", f"echo $ENV_FILE_B64\n{run}\n"))
    conn.execute("INSERT INTO msg VALUES (?, ?)", ("m2", f"readme\n{fx.wrap(fx.b64(fx.readme(1)), 76)}\n"))
    conn.commit()
    conn.close()
    out = tmp_path / "out.db"
    rep = RedactionReport()
    red.redact_file(db, out, "sqlite", rep)
    raw = out.read_bytes()
    for s in secrets:
        assert s.encode() not in raw
    conn = sqlite3.connect(out)
    rows = dict(conn.execute("SELECT id, body FROM msg").fetchall())
    conn.close()
    assert re.fullmatch(r"echo \$ENV_FILE_B64\n<BASE64_SECRET:[0-9a-f]{8}>\n", rows["m1"]), rows["m1"]
    assert rows["m2"] == f"readme\n{fx.wrap(fx.b64(fx.readme(1)), 76)}\n"
    assert rep.by_rule() == {RULE: 1}


def test_huge_jsonl_line(red: RuleRedactor, tmp_path: Path) -> None:
    """A line over snapshot.LONG_LINE (walkers/longjson): a long string redacted in one piece."""
    data, secrets = fx.env_file(8)
    run = fx.wrap(fx.b64(data), 76)
    filler = "x " * (MB // 2 + 1000)
    src = tmp_path / "big.jsonl"
    src.write_bytes(fx.claude_tool_result(f"{filler}\n$ base64 .env\n{run}\n") + b"\n")
    assert src.stat().st_size > MB
    out = tmp_path / "o.jsonl"
    rep = RedactionReport()
    red.redact_file(src, out, "jsonl", rep)
    _gone(out.read_bytes(), run, secrets)
    assert rep.by_rule()[RULE] == 1


# ------------------------------------------------------------------ wrappings and alphabets

@pytest.mark.parametrize("width", [0, 60, 64, 76])
@pytest.mark.parametrize("urlsafe", [False, True])
@pytest.mark.parametrize("pad", [True, False])
def test_each_wrapping_and_alphabet(red: RuleRedactor, width: int, urlsafe: bool, pad: bool) -> None:
    data, secrets, _ = fx.urlsafe_sample(fx.env_file, 20) if urlsafe else (*fx.env_file(20), 0)
    run = fx.wrap(fx.b64(data, urlsafe, pad), width)
    text = f"output:\n{run}\nexit 0"
    rep = RedactionReport()
    out = red.redact_text(text, rep)
    _gone(out, run, secrets)
    assert out == f"output:\n{TOKEN.search(out).group(0)}\nexit 0"
    assert rep.by_rule() == {RULE: 1}


@pytest.mark.parametrize("sep", ["\\n", "\\r\\n"])
def test_json_escaped_line_breaks_in_raw_text(red: RuleRedactor, sep: str) -> None:
    """A raw JSON line read as text (a log of a log, an unparsable line): breaks are `\\n` escapes."""
    data, secrets = fx.npmrc(4)
    run = fx.wrap(fx.b64(data), 60, sep)
    text = '{"broken": "$ base64 .npmrc\\n' + run + '\\n", '
    rep = RedactionReport()
    out = red.redact_text(text, rep)
    _gone(out, run, secrets)
    assert out.startswith('{"broken": "$ base64 .npmrc\\n<BASE64_SECRET:') and out.endswith('>\\n", ')
    assert rep.by_rule() == {RULE: 1}


def test_indented_wrapped_run_and_depth_two(red: RuleRedactor) -> None:
    """A Kubernetes Secret manifest whose values are base64, itself base64'd and wrapped: decoded twice."""
    data, secrets = fx.env_file(9)
    manifest = ("apiVersion: v1\nkind: Secret\nmetadata:\n  name: app\ndata:\n  env: "
                + fx.b64(data) + "\n").encode()
    run = fx.wrap(fx.b64(manifest), 76, "\n    ")
    rep = RedactionReport()
    out = red.redact_text(f"values:\n    {run}\n", rep)
    _gone(out, run, secrets)
    assert rep.by_rule() == {RULE: 1}


def test_same_run_in_two_sessions_gives_the_same_token(red: RuleRedactor, tmp_path: Path) -> None:
    data, _ = fx.env_file(31)
    enc = fx.b64(data)
    tokens = []
    for n, body in enumerate([fx.wrap(enc, 76), enc, fx.wrap(enc, 64, "\r\n")]):
        src = tmp_path / f"s{n}.jsonl"
        src.write_bytes(fx.claude_tool_result(f"$ base64 .env\n{body}\n", n) + b"\n")
        out = tmp_path / f"o{n}.jsonl"
        fresh = build_redactor(["builtin:secrets", "builtin:pii", "builtin:paths"], KEY, RuntimeTerms())
        fresh.redact_file(src, out, "jsonl", RedactionReport())
        tokens.append(TOKEN.findall(out.read_text()))
    assert tokens[0] == tokens[1] == tokens[2] and len(tokens[0]) == 1
    other = build_redactor(["builtin:secrets"], b"another-team-key-0123456789abcdef", RuntimeTerms())
    assert TOKEN.findall(other.redact_text(enc, RedactionReport())) != tokens[0]


# ------------------------------------------------------------------ what stays

def _kept(red: RuleRedactor, text: str) -> None:
    rep = RedactionReport()
    assert red.redact_text(text, rep) == text
    assert RULE not in rep.by_rule()


@pytest.mark.parametrize("width", [0, 76])
def test_harmless_text_stays(red: RuleRedactor, width: int) -> None:
    _kept(red, "$ base64 README.md\n" + fx.wrap(fx.b64(fx.readme(2)), width) + "\n")


@pytest.mark.parametrize("kind", ["png", "pdf", "zip", "wasm", "protobuf", "gzip"])
def test_binary_after_decoding_stays_even_with_a_secret_inside(red: RuleRedactor, kind: str) -> None:
    data, _ = fx.github_env(6)
    blob = {"png": fx.png(data), "pdf": b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Length 60 >>\nstream\n" + data,
            "zip": b"PK\x03\x04\x14\x00\x00\x00\x00\x00" + bytes(16) + b"\x04\x00\x00\x00.env" + data,
            "wasm": b"\x00asm\x01\x00\x00\x00\x00\x3e\x04name" + data, "protobuf": fx.protobuf(data),
            "gzip": b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03" + data}[kind]
    _kept(red, "attachment:\n" + fx.wrap(fx.b64(blob), 76) + "\n")


def test_data_uris_images_ids_and_identifiers_stay(red: RuleRedactor) -> None:
    data, _ = fx.env_file(12)
    rng = random.Random(4)
    png = base64.b64encode(fx.png(b"hello")).decode()
    samples = [
        f'<img src="data:image/png;base64,{png}">',
        f"data:text/plain;base64,{fx.b64(data)}",  # a data: URI: the JSON walker's attachments, never this pass
        "commit " + "".join(rng.choice("0123456789abcdef") for _ in range(40)),
        "sha256:" + "".join(rng.choice("0123456789abcdef") for _ in range(64)),
        "id 550e8400-e29b-41d4-a716-446655440000 and 6a5d3c2b-1e0f-4e7b-8f21-0d4f5b8e9c3a",
        "AbstractSingletonProxyFactoryBeanDefinitionRegistryPostProcessor",
        "/usr/lib/python3/dist-packages/setuptools/_distutils/command/build_ext.py",
        "!function(e,t){\"object\"==typeof exports&&\"undefined\"!=typeof module?module.exports=t():e.x=t()}",
        "<BASE64_SECRET:1a2b3c4d> <AWS_ACCESS_KEY:0f1e2d3c> user-5f2a",
        base64.b64encode(bytes(rng.randrange(256) for _ in range(600))).decode(),  # a signature
    ]
    for text in samples:
        _kept(red, text)


def test_jwt_is_left_to_its_own_rule(red: RuleRedactor) -> None:
    head = fx.b64(b'{"alg":"HS256","typ":"JWT"}', urlsafe=True, pad=False)
    body = fx.b64(b'{"sub":"1234567890","email":"bob@example.org","iat":1516239022}', urlsafe=True, pad=False)
    jwt = f"{head}.{body}.{fx.b64(bytes(range(32)), urlsafe=True, pad=False)}"
    rep = RedactionReport()
    red.redact_text(f"Authorization: Bearer {jwt}", rep)
    assert RULE not in rep.by_rule()


def test_policy_pii_and_paths_alone_stay_configured_terms_count(red: RuleRedactor) -> None:
    """A decoded file holding only an e-mail or someone's home path stays; the configured user's
    own name (runtime terms) counts, as a secret does."""
    _kept(red, fx.b64(b"maintainer: bob@example.org\nsee /home/bob/notes for details\n"))
    mine = fx.b64(b"workspace: /home/alice/projects/app\nowner: alice\n")
    rep = RedactionReport()
    out = red.redact_text(mine, rep)
    assert TOKEN.fullmatch(out) and rep.by_rule() == {RULE: 1}


def test_the_pass_runs_on_text_only_not_keys_ids_or_opaque_values(red: RuleRedactor) -> None:
    data, _ = fx.github_env(7)
    enc = fx.b64(data).encode()
    eng = red.engine
    assert [m.rule_id for m in eng.scan_bytes(enc, MODE_ALL)] == [RULE]
    assert eng.scan_bytes(enc, MODE_KEYS) == [] and eng.scan_bytes(enc, MODE_IDS) == []


# ------------------------------------------------------------------ fail-closed verify

def test_verify_finds_a_run_that_was_not_replaced(red: RuleRedactor, tmp_path: Path) -> None:
    data, _ = fx.env_file(14)
    run = fx.wrap(fx.b64(data), 76)
    left = tmp_path / "left.jsonl"
    left.write_bytes(fx.claude_tool_result(f"$ base64 .env\n{run}\n") + b"\n")
    assert red.verify_file(left, "jsonl") == [RULE]
    text = tmp_path / "left.txt"
    text.write_bytes(f"$ base64 .env\n{run}\n".encode())
    assert red.verify_file(text, "text") == [RULE]


def test_raw_half_finds_a_run_the_walkers_leave(red: RuleRedactor, tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """A run where no walker decodes (a `signature` value) is still found in the raw bytes, also
    with small blocks; a run cut by a block edge is judged by the block that holds it whole."""
    data, _ = fx.github_env(15)
    enc = fx.b64(data)
    out = tmp_path / "o.jsonl"
    out.write_bytes(json.dumps({"type": "thinking", "signature": enc}).encode() + b"\n")
    verifier = Engine([r for r in red.rules if r.id in red.high_confidence], red.pseudonyms)
    assert rawcheck.raw_leftovers(verifier, out) == {RULE}
    assert red.verify_file(out, "jsonl") == [RULE]
    monkeypatch.setattr(rawcheck, "BLOCK", 160)
    monkeypatch.setattr(rawcheck, "OVERLAP", 150)
    edge = tmp_path / "edge.txt"
    edge.write_bytes(b"y " * 40 + enc.encode() + b" end\n")
    assert len(enc) < 150
    assert rawcheck.raw_leftovers(verifier, edge) == {RULE}
    clean = tmp_path / "clean.txt"
    clean.write_bytes(b"y " * 40 + fx.b64(fx.readme(3)).encode() + b" end\n")
    assert rawcheck.raw_leftovers(verifier, clean) == set()


# ------------------------------------------------------------------ engine contracts

def test_scan_segments_equals_each_string_scanned_alone(red: RuleRedactor) -> None:
    eng = red.engine
    data, _ = fx.env_file(16)
    rng = random.Random(7)
    frags = ["x ", "\n", fx.b64(data), fx.wrap(fx.b64(data), 76), fx.b64(fx.readme(4)), "/home/alice/a ",
             fx.wrap(fx.b64(fx.readme(5)), 64), "ghp_" + "A1b2C3d4" * 5, "\\n", "==", "token: "]
    for _ in range(150):
        parts = ["".join(rng.choice(frags) for _ in range(rng.randint(0, 5))).encode() for _ in range(rng.randint(1, 6))]
        modes = [rng.choice((MODE_ALL, MODE_ALL, MODE_KEYS, MODE_IDS)) for _ in parts]
        got = eng.scan_segments(parts, modes)
        for i, p in enumerate(parts):
            assert got.get(i, []) == eng.scan_bytes(p, modes[i]), (p, modes[i])


def test_decode_rules_are_data_and_validated() -> None:
    base = {"id": "x", "regex": "([A-Za-z0-9+/]{32,})", "label": "X", "decode": "base64",
            "decode_packs": ["secrets"], "min_length": 32}
    (rule,) = parse_pack({"pack": {"name": "t", "version": 1}, "rules": [base]}, "t.toml")
    assert rule.decode == "base64" and rule.decode_packs == ("secrets",)
    for bad, msg in [({"decode": "rot13"}, "'decode'"), ({"decode_packs": []}, "decode_packs"),
                     ({"decode_packs": ["nope"]}, "decode_packs"), ({"min_length": 8}, "min_length"),
                     ({"regex": "[A-Za-z0-9+/]{32,}"}, "one group")]:
        with pytest.raises(RuleError, match=msg):
            parse_pack({"pack": {"name": "t", "version": 1}, "rules": [{**base, **bad}]}, "t.toml")
    with pytest.raises(RuleError, match="needs 'decode'"):
        parse_pack({"pack": {"name": "t", "version": 1}, "rules": [{**base, "decode": None}]}, "t.toml")


def test_the_shipped_rule_examples_through_the_engine() -> None:
    """test_rule_packs checks a rule's examples with its regex alone; a decode rule's are checked
    here, through the engine: positives give exactly `expect`, negatives nothing."""
    rules = load_rules(["builtin:secrets", "builtin:pii", "builtin:paths"])
    decode_rules = [r for r in rules if r.decode]
    assert [r.id for r in decode_rules] == [RULE]
    eng = Engine(rules, Pseudonymizer(KEY))
    for r in decode_rules:
        assert len(r.positive) >= 2 and len(r.negative) >= 2 and len(r.expect) == len(r.positive)
        for text, want in zip(r.positive, r.expect):
            assert [(m.rule_id, text[m.start:m.end]) for m in eng.scan(text)] == [(r.id, want)]
        for text in r.negative:
            assert not [m for m in eng.scan(text) if m.rule_id == r.id], text
        alone = Engine([r], Pseudonymizer(KEY))  # `archiver rules test` checks a rule alone
        assert all(alone.scan(t) for t in r.positive) and not any(alone.scan(t) for t in r.negative)


def test_the_gate_is_cheap_on_ordinary_text(red: RuleRedactor, monkeypatch: pytest.MonkeyPatch) -> None:
    """Paths, hashes, ids and prose never reach a decode: the gate (base64 of ASCII) stays shut."""
    calls = []
    monkeypatch.setattr(decoded, "decode_text", lambda body: calls.append(body))
    rng = random.Random(9)
    lines = []
    for _ in range(3000):
        lines.append(rng.choice([
            "/home/alice/projects/archiver/archiver/redact/walkers/jsondoc.py:123: in _walk",
            "commit " + "".join(rng.choice("0123456789abcdef") for _ in range(40)),
            "toolu_01" + "".join(rng.choice(fx.ALNUM) for _ in range(22)),
            "The quick brown fox jumps over the lazy dog while the build runs its tests again.",
            "550e8400-e29b-41d4-a716-446655440000 AbstractSingletonProxyFactoryBean node_modules/.bin",
        ]))
    text = "\n".join(lines)
    assert not red.engine.always_hit(text.encode())
    assert red.redact_text(text, RedactionReport()) is not None and calls == []


def test_a_custom_pack_set_without_always_on_rules_still_decodes_wrapped_runs_in_jsonl(tmp_path: Path) -> None:
    """A team's own packs: one keyword rule and a decode rule, no always-on rule. A JSONL line with
    escapes (a wrapped run always has `\\n` in raw JSON) used to be skipped as needing no work."""
    (shipped,) = [r for r in load_rules(["builtin:secrets"]) if r.decode]
    pack = tmp_path / "acme.toml"
    pack.write_text(
        '[pack]\nname = "acme"\nversion = 1\n\n'
        "[[rules]]\nid = 'acme-token'\nregex = '''\\b(acme_live_[A-Za-z0-9]{32})\\b'''\n"
        "keywords = ['acme_live_']\nlabel = 'ACME_TOKEN'\nconfidence = 'high'\n\n"
        f"[[rules]]\nid = 'acme-base64-file'\nregex = '''{shipped.regex}'''\nlabel = 'BASE64_SECRET'\n"
        "decode = 'base64'\ndecode_packs = ['secrets']\nmin_length = 32\nconfidence = 'high'\n")
    custom = build_redactor([str(pack)], KEY, RuntimeTerms(usernames=[], names=[], home_dirs=[], extra_terms=[], hosts=[]))
    assert not custom.engine.has_always
    env, secrets = fx.env_file(7)
    line = fx.claude_tool_result("$ base64 .env\n" + fx.wrap(fx.b64(env), 76))
    assert b"\\n" in line
    src, dst = tmp_path / "s.jsonl", tmp_path / "out.jsonl"
    src.write_bytes(line)
    report = RedactionReport()
    custom.redact_file(src, dst, "jsonl", report)
    out = dst.read_bytes()
    assert b"<BASE64_SECRET:" in out and report.by_rule().get("acme-base64-file") == 1
    assert fx.b64(env)[:76].encode() not in out
