"""The built-in rule packs (rules/*.toml): schema, per-rule examples, and promises.

Matching here follows the engine contract: a rule is tried only when the lowercased text
contains one of its keywords; every RE2 match yields the secret group (a match whose
secret group did not participate is not a finding); the candidate is then dropped when it
is shorter than min_length, below the entropy minimum (3.0 for a run of 32+ hex digits), matched by an allowlist regex, or
rejected by its validator.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import random
import re
import time
import tomllib
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest
import re2

from archiver.redact.rules import expand_word_lists
from archiver.redact.validators import VALIDATORS

RULES_DIR = Path(__file__).resolve().parent.parent / "rules"
PACK_NAMES = ("secrets", "pii", "paths")

ALLOWED_KEYS = {
    "id", "description", "regex", "secret_group", "keywords", "entropy", "min_length", "validator",
    "allowlist", "label", "replace", "confidence", "positive", "negative", "expect", "same_as", "paths",
    "decode", "decode_packs", "word_keywords", "keyword_window",
}
REQUIRED_KEYS = {"id", "description", "regex", "label", "confidence", "positive", "negative"}
CONFIDENCES = {"high", "medium", "low"}
REPLACES = {"token", "username", "mask"}


HEX_RUN = re.compile(r"[0-9a-fA-F]{32,}")


def shannon(s: str) -> float:
    counts = Counter(s)
    return -sum(n / len(s) * math.log2(n / len(s)) for n in counts.values())


@dataclass
class Finding:
    start: int
    end: int
    secret: str


class CompiledRule:
    def __init__(self, pack: str, raw: dict) -> None:
        self.pack = pack
        self.raw = raw
        self.id: str = raw["id"]
        self.regex = re2.compile(raw["regex"])
        self.group: int = raw.get("secret_group", 1 if self.regex.groups else 0)
        self.keywords: list[str] = raw.get("keywords") or []
        # a word keyword counts with no letter next to it, or at a camelCase edge (`customerNie`)
        self.words = [re.compile(rf"(?:(?<![A-Za-z])|(?<=[a-z])(?=[A-Z]))(?i:{re.escape(k)})(?:(?![A-Za-z])|(?<=[a-z])(?=[A-Z]))")
                      for k in raw.get("word_keywords", [])]
        self.plain = [k for k in self.keywords if k not in raw.get("word_keywords", [])]
        # a keyword must start within this many characters before or after the secret (0: anywhere)
        self.window: int = raw.get("keyword_window", 0)
        self.entropy: float = raw.get("entropy", 0)
        self.min_length: int = raw.get("min_length", 0)
        self.same_as: int = raw.get("same_as", 0)
        self.allowlist = [re2.compile(expand_word_lists(a)) for a in raw.get("allowlist", [])]
        self.validator = VALIDATORS[raw["validator"]] if raw.get("validator") else None
        self.label: str = raw["label"]
        self.replace: str = raw.get("replace", "token")

    def findings(self, text: str, lowered: str | None = None) -> list[Finding]:
        lowered = text.lower() if lowered is None else lowered
        if self.keywords and not (any(k in lowered for k in self.plain) or any(w.search(text) for w in self.words)):
            return []
        out = []
        for m in self.regex.finditer(text):
            secret = m.group(self.group)
            if not secret:
                continue
            if self.same_as and m.group(self.same_as) != secret:
                continue
            if len(secret) < self.min_length:
                continue
            if self.entropy and shannon(secret) < self.entropy and not (
                    HEX_RUN.fullmatch(secret) and shannon(secret) >= min(self.entropy, 3.0)):
                continue  # a hex value (4 bits a character at most) is held to 3.0
            if any(a.search(secret) for a in self.allowlist):
                continue
            if self.validator and not self.validator(secret):
                continue
            if self.window and not self.keyword_near(text, lowered, m.start(self.group), m.end(self.group)):
                continue
            out.append(Finding(m.start(self.group), m.end(self.group), secret))
        return out

    def keyword_near(self, text: str, lowered: str, s: int, e: int) -> bool:
        longest = max(len(k) for k in self.keywords)
        a, b = max(0, s - self.window - longest), e + self.window
        return (any(k in lowered[a:b + longest] for k in self.plain)
                or any(a <= m.start() < b for w in self.words for m in w.finditer(text)))

    def replacement(self, secret: str) -> str:
        digest = hashlib.sha256(secret.encode()).hexdigest()
        if self.replace == "username":
            return f"user-{digest[:4]}"
        if self.replace == "mask":
            return f"<REDACTED:{self.label}>"
        return f"<{self.label}:{digest[:8]}>"

    def redact(self, text: str) -> str:
        for f in sorted(self.findings(text), key=lambda f: f.start, reverse=True):
            text = text[: f.start] + self.replacement(f.secret) + text[f.end :]
        return text


ANCHORED_RULES = frozenset({"netrc-diff-password-line", "netrc-diff-password-token", "netrc-password-line-alone"})


def uses_anchor(regex: str) -> bool:
    """^ $ \\A \\z outside a character class (escapes skipped)."""
    in_class = False
    i = 0
    while i < len(regex):
        ch = regex[i]
        if ch == "\\":
            if not in_class and regex[i + 1 : i + 2] in ("A", "z"):
                return True
            i += 2
            continue
        if in_class:
            if ch == "]":
                in_class = False
        elif ch == "[":
            in_class = True
            if regex[i + 1 : i + 2] == "^":
                i += 1
            if regex[i + 1 : i + 2] == "]":
                i += 1
        elif ch in "^$":
            return True
        i += 1
    return False


def load_pack(name: str) -> dict:
    with open(RULES_DIR / f"{name}.toml", "rb") as fh:
        return tomllib.load(fh)


PACKS = {name: load_pack(name) for name in PACK_NAMES}
RAW_RULES = [(name, r) for name, data in PACKS.items() for r in data.get("rules", [])]
RULE_IDS = [r["id"] for _, r in RAW_RULES]
# `decode = "base64"`: the engine's decode-and-rescan pass (redact/decoded.py), whose regex only finds
# the runs to decode: its examples are checked through the engine, not by the regex alone
PATTERN_RULES = [(name, r) for name, r in RAW_RULES if not r.get("decode")]
PATTERN_IDS = [r["id"] for _, r in PATTERN_RULES]
DECODE_IDS = [r["id"] for _, r in RAW_RULES if r.get("decode")]


def _compile_all() -> dict[str, CompiledRule]:
    out = {}
    for pack, raw in PATTERN_RULES:
        try:
            out[raw["id"]] = CompiledRule(pack, raw)
        except Exception:  # reported by test_rule_schema with the rule id
            pass
    return out


COMPILED = _compile_all()


# ----------------------------------------------------------------------------- schema

@pytest.mark.parametrize("name", PACK_NAMES)
def test_pack_header(name: str) -> None:
    data = PACKS[name]
    assert set(data) == {"pack", "rules"}, f"{name}.toml: unexpected top-level keys {set(data) - {'pack', 'rules'}}"
    assert data["pack"] == {"name": name, "version": 1}
    assert isinstance(data["rules"], list) and data["rules"]


def test_rule_ids_unique_and_counts() -> None:
    dupes = [i for i, n in Counter(RULE_IDS).items() if n > 1]
    assert not dupes, f"duplicate rule ids across packs: {dupes}"
    counts = {name: len(data["rules"]) for name, data in PACKS.items()}
    assert counts["secrets"] >= 150, counts
    assert counts["pii"] >= 10 and counts["paths"] >= 8, counts


@pytest.mark.parametrize("pack,raw", RAW_RULES, ids=RULE_IDS)
def test_rule_schema(pack: str, raw: dict) -> None:
    rid = raw.get("id")
    assert set(raw) <= ALLOWED_KEYS, f"{rid}: unknown keys {set(raw) - ALLOWED_KEYS}"
    assert REQUIRED_KEYS <= set(raw), f"{rid}: missing keys {REQUIRED_KEYS - set(raw)}"
    assert re.fullmatch(r"[a-z0-9]+(?:-[a-z0-9]+)*", rid), f"{rid}: id must be kebab-case"
    assert isinstance(raw["description"], str) and raw["description"] and "\n" not in raw["description"]
    assert re.fullmatch(r"[A-Z][A-Z0-9_]*", raw["label"]), f"{rid}: label must be UPPER_SNAKE"
    assert raw["confidence"] in CONFIDENCES, rid
    assert raw.get("replace", "token") in REPLACES, rid
    assert raw.get("validator") in (None, *VALIDATORS), f"{rid}: unknown validator"
    kws = raw.get("keywords")
    if kws is not None:
        assert isinstance(kws, list) and kws, f"{rid}: keywords must be a non-empty list when present"
        assert all(isinstance(k, str) and k and k == k.lower() for k in kws), f"{rid}: keywords must be lowercase literals"
    for key in ("entropy",):
        if key in raw:
            assert isinstance(raw[key], (int, float)) and 0 < raw[key] < 8, rid
    if "min_length" in raw:
        assert isinstance(raw["min_length"], int) and raw["min_length"] >= 0, rid
    rx = re2.compile(raw["regex"])  # raises re2.error: not RE2 syntax
    # The engine scans the strings of a JSON document joined in one pass; a match of an anchored rule
    # next to a newline is checked again on its string alone, so built-in rules express context with
    # \\b / \\B instead, except the few that need a string's own start or end (a diff line that is a
    # whole string: Claude Code's structuredPatch) and whose selective keyword keeps those checks rare.
    if rid not in ANCHORED_RULES:
        assert not uses_anchor(raw["regex"]), f"{rid}: built-in regex uses ^, $, \\A or \\z"
    else:
        assert raw.get("keywords"), f"{rid}: an anchored built-in rule needs keywords"
    group = raw.get("secret_group", 1 if rx.groups else 0)
    assert isinstance(group, int) and 0 <= group <= rx.groups, f"{rid}: secret_group {group} > {rx.groups} groups"
    if "same_as" in raw:
        assert isinstance(raw["same_as"], int) and 0 < raw["same_as"] <= rx.groups and raw["same_as"] != group, rid
    for a in raw.get("allowlist", []):
        re2.compile(expand_word_lists(a))
    assert isinstance(raw["positive"], list) and len(raw["positive"]) >= 2, f"{rid}: needs >= 2 positives"
    assert isinstance(raw["negative"], list) and len(raw["negative"]) >= 2, f"{rid}: needs >= 2 negatives"
    if "expect" in raw:
        assert len(raw["expect"]) == len(raw["positive"]), f"{rid}: expect must parallel positive"
    if not kws:
        # Without a keyword the engine tries the rule on every text: only checksum-validated shapes
        # may then claim "high" (the verification pass holds sessions back on high rules).
        assert raw["confidence"] != "high" or raw.get("validator") or raw.get("decode"), \
            f"{rid}: keyword-less rule must be validated to be high"
    if pack == "paths":
        assert raw.get("replace") == "username" and group == 1, f"{rid}: paths rules replace group 1 (the username)"
    if pack == "secrets":
        assert raw.get("replace", "token") != "username", rid


@pytest.mark.parametrize(
    "name,value,ok",
    [
        ("luhn", "4111 1111 1111 1111", True), ("luhn", "4111-1111-1111-1112", False), ("luhn", "0000000000000000", False),
        ("luhn", "4111x1111x1111x1111", False), ("iban", "GB82 WEST 1234 5698 7654 32", True), ("iban", "GB82WEST12345698765433", False),
        ("iban", "XX82WEST12345698765432", False), ("jwt", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.sig", True),
        ("jwt", "eyJ0eXAiOiJKV1QifQ.eyJzdWIiOiJ4In0.sig", False), ("jwt", "eyJ!!!.x.y", False), ("ssn", "123-45-6789", True),
        ("ssn", "666-12-3456", False), ("ssn", "900-12-3456", False), ("ssn", "123-00-4567", False), ("ssn", "123-45-0000", False),
        ("ssn", "000-12-3456", False), ("ssn", "12-345-6789x", False),
    ],
)
def test_validators(name: str, value: str, ok: bool) -> None:
    assert VALIDATORS[name](value) is ok


# ----------------------------------------------------------------------------- examples

@pytest.mark.parametrize("rule_id", PATTERN_IDS)
def test_positives_match(rule_id: str) -> None:
    rule = COMPILED[rule_id]
    expect = rule.raw.get("expect", [None] * len(rule.raw["positive"]))
    for text, want in zip(rule.raw["positive"], expect):
        found = [f.secret for f in rule.findings(text)]
        assert found, f"{rule_id}: positive not matched: {text!r}"
        if want is not None:
            assert want in found, f"{rule_id}: expected secret {want!r} in {text!r}, got {found!r}"
            assert want in text


@pytest.mark.parametrize("rule_id", PATTERN_IDS)
def test_negatives_do_not_match(rule_id: str) -> None:
    rule = COMPILED[rule_id]
    for text in rule.raw["negative"]:
        found = [f.secret for f in rule.findings(text)]
        assert not found, f"{rule_id}: negative matched {found!r} in {text!r}"


@pytest.mark.parametrize("rule_id", PATTERN_IDS)
def test_redacted_output_is_stable(rule_id: str) -> None:
    """Replacing every finding yields text the rule no longer matches (verification pass)."""
    rule = COMPILED[rule_id]
    for text in rule.raw["positive"]:
        once = rule.redact(text)
        assert once != text
        assert not rule.findings(once), f"{rule_id}: still matches after redaction: {once!r}"


@pytest.mark.parametrize("rule_id", DECODE_IDS)
def test_decode_rule_examples_through_the_engine(rule_id: str) -> None:
    """A decode rule with the built-in packs: each positive yields exactly its `expect` (the whole
    run), each negative nothing of the rule, and the output is found no more."""
    from archiver.redact.engine import Engine
    from archiver.redact.pseudonym import Pseudonymizer
    from archiver.redact.rules import load_rules

    eng = Engine(load_rules([f"builtin:{n}" for n in PACK_NAMES]), Pseudonymizer(b"rule-pack-examples-key-000000000"))
    raw = next(r for _, r in RAW_RULES if r["id"] == rule_id)
    assert len(raw.get("expect", [])) == len(raw["positive"]), f"{rule_id}: a decode rule's positives need expect"
    for text, want in zip(raw["positive"], raw["expect"]):
        found = [(m.rule_id, text[m.start:m.end]) for m in eng.scan(text)]
        assert (rule_id, want) in found, f"{rule_id}: expected run {want[:40]!r} in {found!r}"
        once = eng.redact(text, None)
        assert not [m for m in eng.scan(once) if m.rule_id == rule_id], f"{rule_id}: still matches {once!r}"
    for text in raw["negative"]:
        assert not [m for m in eng.scan(text) if m.rule_id == rule_id], f"{rule_id}: negative matched {text!r}"


# ----------------------------------------------------------------------------- decoys

def _b64(seed: str, nbytes: int, urlsafe: bool = False) -> str:
    data = b""
    i = 0
    while len(data) < nbytes:
        data += hashlib.sha512(f"{seed}:{i}".encode()).digest()
        i += 1
    enc = base64.urlsafe_b64encode if urlsafe else base64.b64encode
    return enc(data[:nbytes]).decode()


def _b62(seed: str, n: int) -> str:
    alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
    rnd = random.Random(seed)
    return "".join(rnd.choice(alphabet) for _ in range(n))


PNG_1PX = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="

# Things the project promises never to redact: ids lineage depends on, hashes, media, blobs.
DECOYS: dict[str, str] = {
    "uuid4": "0d4f5b8e-9c3a-4e7b-8f21-6a5d3c2b1e0f",
    "uuid7": "01890a5d-ac96-774b-bcce-b302099a8057",
    "uuid-upper": "0D4F5B8E-9C3A-4E7B-8F21-6A5D3C2B1E0F",
    "git-sha": "3f786850e387550fdab836ed7e6dc881de23001b",
    "git-short-sha": "9fceb02",
    "git-log-line": "commit 3f786850e387550fdab836ed7e6dc881de23001b (HEAD -> main, origin/main)",
    "sha256": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "sha256-prefixed": "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "md5-cursor-dir": "d41d8cd98f00b204e9800998ecf8427e",
    "sha512-hex": hashlib.sha512(b"decoy").hexdigest(),
    "png-base64": PNG_1PX,
    "png-data-uri": "data:image/png;base64," + PNG_1PX + _b64("png-tail", 600),
    "png-zero-rows": "iVBORw0KGgoAAAANSUhEUgAABAAAAAQACAYAAAB/" + "A" * 400 + "B" * 3 + "/EAAA" + "A" * 200 + "Bk+Qz",
    "jpeg-base64": "/9j/4AAQSkZJRgABAQEASABIAAD/2wBDAAMCAgMCAgMDAwMEAwMEBQgFBQQEBQoHBwYIDAoMDAsKCwsNDhIQDQ4RDgsLEBYQERMUFRUVDA8XGBYUGBIUFRT/" + _b64("jpeg", 900),
    "webp-base64": "UklGRiQAAABXRUJQVlA4IBgAAAAwAQCdASoBAAEAAwA0JaQAA3AA/vuUAAA=",
    "claude-signature": "EqMCCkYIBxgCKkB" + _b64("claude-thinking-signature", 420),
    "claude-signature-json": '{"type":"thinking","thinking":"","signature":"ErUBCkYIBRgCIkC' + _b64("sig2", 300) + '"}',
    "codex-encrypted-content": "gAAAAABo" + _b64("codex-encrypted-content", 1200, urlsafe=True),
    "codex-reasoning-json": '{"type":"reasoning","id":"rs_68a1f0c2d4e8b9a70123456789abcdef","summary":[],"encrypted_content":"gAAAAABo'
    + _b64("enc2", 600, urlsafe=True) + '"}',
    "toolu-id": "toolu_01A09q90qw90lq917835lq9X",
    "toolu-id-2": "toolu_" + "01" + _b62("toolu", 22),
    "call-id": "call_Xq3mY8bK2pL9vN4wR7tZ1sD6",
    "fc-id": "fc_68a1f0c2d4e8b9a7" + "0" * 8 + "abcdef0123456789abcdef01",
    "msg-id": "msg_01XFDUDYJgAACzvnptvVoYEL",
    "openai-msg-id": "msg_68a1f0c2d4e8b9a70123456789abcdef0123456789abcdef",
    "req-id": "req_011CSHoEeqs5C35K2UUqR7Fy",
    "chatcmpl-id": "chatcmpl-" + _b62("chatcmpl", 29),
    "semver": "1.2.3",
    "semver-full": "v2.10.0-beta.1+build.5",
    "semver-4": "10.0.19041.1",
    "version-dotted-quad": "version 1.2.3.4",
    "version-v-quad": "v1.2.3.4",
    "iso-ts": "2025-10-26T12:34:56.789Z",
    "iso-ts-offset": "2025-10-26 12:34:56+00:00",
    "clock": "12:34:56",
    "unix-ts": "1761482096",
    "unix-ms": "1761482096123",
    "pi-session-file": "2025-10-26T12-34-56-789Z_01890a5d-ac96-774b-bcce-b302099a8057.jsonl",
    "codex-rollout": "rollout-2025-10-26T12-34-56-01890a5d-ac96-774b-bcce-b302099a8057.jsonl",
    "npm-integrity": "sha512-" + _b64("npm-integrity", 64),
    "go-sum": "golang.org/x/text v0.14.0 h1:" + _b64("gosum", 32),
    "model-name": "claude-sonnet-4-5-20250929",
    "agent-id": "agent-a1b2c3d4",
    "long-base64": _b64("long-base64", 96),
    "long-base64url": _b64("long-base64url", 96, urlsafe=True),
    "hex-64-upper": hashlib.sha256(b"x").hexdigest().upper(),
    "code-getenv": 'api_key = os.getenv("OPENAI_API_KEY")',
    "code-environ": 'token = os.environ["GITHUB_TOKEN"]',
    "code-getpass": "password = getpass.getpass()",
    "code-template": 'curl -H "Authorization: Bearer ${TOKEN}" https://api.example.com',
    "usage-json": '{"input_tokens": 12345, "output_tokens": 678, "cache_read_input_tokens": 40960, "max_tokens": 8192}',
    "pseudonym-token": "<AWS_ACCESS_KEY:9c01d2e4>",
    "pseudonym-email": "<EMAIL:3f9a2c1b>",
    "pseudonym-mask": "<REDACTED:PASSWORD>",
    "pseudonym-path": "/home/user-5f2a/work/app",
    "pseudonym-mac-path": "/Users/user-5f2a/code",
    "pseudonym-win-path": "C:\\\\Users\\\\user-5f2a\\\\repo",
    "pseudonym-claude-key": ".claude/projects/-home-user-5f2a-work-app/01890a5d-ac96-774b-bcce-b302099a8057.jsonl",
    "pseudonym-pi-dir": ".pi/agent/sessions/--home-user-5f2a-work-app--/x.jsonl",
}


@pytest.mark.parametrize("decoy", list(DECOYS), ids=list(DECOYS))
def test_decoys_match_no_rule(decoy: str) -> None:
    text = DECOYS[decoy]
    lowered = text.lower()
    hits = {rid: [f.secret[:40] for f in rule.findings(text, lowered)] for rid, rule in COMPILED.items()}
    hits = {rid: h for rid, h in hits.items() if h}
    assert not hits, f"decoy {decoy!r} matched: {hits}"


# ----------------------------------------------------------------------------- realistic leaks

def _f(n: int, seed: str) -> str:
    return "FAKE" + _b62(seed, n - 4)


# (snippet as it shows up in a transcript, [every value that must be fully replaced]).
LEAKS: list[tuple[str, list[str]]] = [
    ("[default]\naws_access_key_id = AKIAZ7EXAMPLEB0BKEY9\naws_secret_access_key = " + "wJalr" + _f(35, "aws") + "\n",
     ["AKIAZ7EXAMPLEB0BKEY9", "wJalr" + _f(35, "aws")]),
    ('{"claudeAiOauth":{"accessToken":"sk-ant-oat01-' + _f(95, "oat") + '","refreshToken":"sk-ant-ort01-' + _f(95, "ort")
     + '","expiresAt":1761482096123}}', ["sk-ant-oat01-" + _f(95, "oat"), "sk-ant-ort01-" + _f(95, "ort")]),
    ('{"OPENAI_API_KEY": null, "tokens": {"access_token": "' + _f(48, "cx1") + '", "refresh_token": "rt_' + _f(40, "cx2")
     + '", "account_id": "0d4f5b8e-9c3a-4e7b-8f21-6a5d3c2b1e0f"}}', [_f(48, "cx1"), "rt_" + _f(40, "cx2")]),
    ("$ git remote -v\norigin\thttps://alice:ghp_" + _f(36, "ghp") + "@github.com/acme/app.git (fetch)",
     ["ghp_" + _f(36, "ghp")]),
    ("$ cat .env\nDATABASE_URL=postgres://app:Pg-" + _f(12, "pg") + "@db.internal:5432/app\nSTRIPE_SECRET_KEY=sk_live_"
     + _f(99, "stripe") + "\nSESSION_SECRET=" + _f(24, "sess") + "\n",
     ["Pg-" + _f(12, "pg"), "sk_live_" + _f(99, "stripe"), _f(24, "sess")]),
    ("$ kubectl config view --raw\nusers:\n- name: admin\n  user:\n    client-key-data: LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQo"
     + _b64("kube", 90) + "\n    token: eyJhbGciOiJSUzI1NiIsImtpZCI6IiJ9.eyJpc3MiOiJrdWJlcm5ldGVzIn0." + _f(86, "kubejwt") + "\n",
     ["LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQo" + _b64("kube", 90),
      "eyJhbGciOiJSUzI1NiIsImtpZCI6IiJ9.eyJpc3MiOiJrdWJlcm5ldGVzIn0." + _f(86, "kubejwt")]),
    ('curl -s https://api.anthropic.com/v1/messages -H "x-api-key: sk-ant-api03-' + _f(93, "ant") + 'AA" -H "anthropic-version: 2023-06-01"',
     ["sk-ant-api03-" + _f(93, "ant") + "AA"]),
    ("PGPASSWORD='p@ss w0rd FAKE' psql -h db -U app", ["p@ss w0rd FAKE"]),
    ("machine api.heroku.com\n  login alice@example.com\n  password " + _f(36, "netrc") + "\n", [_f(36, "netrc")]),
    ('{"auths":{"ghcr.io":{"auth":"' + base64.b64encode(b"alice:ghp_" + _f(36, "dock").encode()).decode() + '"}}}',
     [base64.b64encode(b"alice:ghp_" + _f(36, "dock").encode()).decode()]),
    ("https://bucket.s3.amazonaws.com/report.pdf?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=ASIAZ3EXAMPLEQ4FAKE5%2F20251026"
     "%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Security-Token=IQoJb3JpZ2luX2Vj" + _f(120, "sts") + "%2F" + _f(40, "sts2")
     + "&X-Amz-Signature=" + hashlib.sha256(b"sig").hexdigest(),
     ["ASIAZ3EXAMPLEQ4FAKE5", "IQoJb3JpZ2luX2Vj" + _f(120, "sts") + "%2F" + _f(40, "sts2"), hashlib.sha256(b"sig").hexdigest()]),
    ('{"type":"tool_result","content":"-----BEGIN OPENSSH PRIVATE KEY-----\\nb3BlbnNzaC1rZXktdjEAAAAA' + _b64("ssh", 120)
     + '\\n-----END OPENSSH PRIVATE KEY-----\\n"}', ["b3BlbnNzaC1rZXktdjEAAAAA" + _b64("ssh", 120)]),
    ("mysql -h db.internal -u root -p" + _f(14, "my") + " app < dump.sql", [_f(14, "my")]),
    ("client = OpenAI(api_key='sk-proj-" + _f(120, "oai") + "')", ["sk-proj-" + _f(120, "oai")]),
    ('{"message": "Call me at +14155550123 or mail jane.roe@corp-mail.io", "cwd": "/Users/jroe/dev/app"}',
     ["+14155550123", "jane.roe@corp-mail.io", "jroe"]),
    ("C:\\Users\\jroe\\AppData\\Roaming\\npm\\node_modules", ["jroe"]),
    (".claude/projects/-home-jroe-dev-app/01890a5d-ac96-774b-bcce-b302099a8057.jsonl", ["jroe"]),
    ("ssh deploy@93.184.216.34 -i ~/.ssh/id_ed25519", ["93.184.216.34"]),
    ("card 4111 1111 1111 1111 exp 12/30, IBAN GB82 WEST 1234 5698 7654 32", ["4111 1111 1111 1111", "GB82 WEST 1234 5698 7654 32"]),
    ("Authorization: Basic " + base64.b64encode(b"alice:" + _f(16, "basic").encode()).decode(),
     [base64.b64encode(b"alice:" + _f(16, "basic").encode()).decode()]),
    ("export GITLAB_TOKEN=glpat-" + _f(20, "gl") + " && glab mr list", ["glpat-" + _f(20, "gl")]),
    ("hf_" + _f(34, "hf") + "\nxoxb-1234567890123-1234567890123-" + _f(24, "slack"),
     ["hf_" + _f(34, "hf"), "xoxb-1234567890123-1234567890123-" + _f(24, "slack")]),
    ("identity: AGE-SECRET-KEY-1" + ("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L" * 2)[:58] + "\n",
     ["AGE-SECRET-KEY-1" + ("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L" * 2)[:58]]),
]


@pytest.mark.parametrize("snippet,secrets", LEAKS, ids=[f"leak-{i}" for i in range(len(LEAKS))])
def test_realistic_leaks_are_fully_covered(snippet: str, secrets: list[str]) -> None:
    lowered = snippet.lower()
    covered = [False] * len(snippet)
    for rule in COMPILED.values():
        for f in rule.findings(snippet, lowered):
            covered[f.start : f.end] = [True] * (f.end - f.start)
    for secret in secrets:
        i = snippet.index(secret)
        missing = [snippet[j] for j in range(i, i + len(secret)) if not covered[j]]
        assert not missing, f"{secret[:30]!r}: {len(missing)} characters not covered by any rule"


# ----------------------------------------------------------------------------- bulk text

WORDS = (
    "the a to of and in is for on with this that file test run build fix update add remove check token count key "
    "password reset flow secret manager auth module bearer scheme session cache config value function return error "
    "output input user home path commit branch merge diff line review api request response model agent tool call "
    "result thinking summary usage version release plan step context window memory store index query schema"
).split()


def _synthetic_transcript(size: int, seed: int = 20251026) -> str:
    """JSONL shaped like Claude/Codex transcripts, full of ids/hashes/blobs and no secrets or PII."""
    rnd = random.Random(seed)

    def words(n: int) -> str:
        return " ".join(rnd.choice(WORDS) for _ in range(n))

    def uuid() -> str:
        h = "%032x" % rnd.getrandbits(128)
        return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-8{h[17:20]}-{h[20:]}"

    def blob(n: int, urlsafe: bool = False) -> str:
        raw = rnd.getrandbits(8 * n).to_bytes(n, "big")
        return (base64.urlsafe_b64encode if urlsafe else base64.b64encode)(raw).decode()

    lines: list[str] = []
    total = 0
    i = 0
    while total < size:
        i += 1
        kind = i % 6
        ts = f"2025-10-{1 + i % 28:02d}T{i % 24:02d}:{i % 60:02d}:{(i * 7) % 60:02d}.{i % 1000:03d}Z"
        if kind == 0:
            rec = {"type": "assistant", "uuid": uuid(), "parentUuid": uuid(), "sessionId": uuid(), "timestamp": ts,
                   "version": f"2.{i % 9}.{i % 40}", "gitBranch": "main",
                   "message": {"id": "msg_01" + _b62(f"m{i}", 22), "model": "claude-sonnet-4-5-20250929",
                               "content": [{"type": "thinking", "thinking": "", "signature": "EqMCCkYIBxgCKkB" + blob(300)},
                                           {"type": "tool_use", "id": "toolu_01" + _b62(f"t{i}", 22), "name": "Bash",
                                            "input": {"command": "git log --oneline -5", "description": words(6)}}],
                               "usage": {"input_tokens": rnd.randint(1, 99999), "output_tokens": rnd.randint(1, 9999),
                                         "cache_read_input_tokens": rnd.randint(1, 200000)}},
                   "requestId": "req_011" + _b62(f"r{i}", 21)}
        elif kind == 1:
            rec = {"timestamp": ts, "type": "response_item",
                   "payload": {"type": "reasoning", "id": "rs_" + "%048x" % rnd.getrandbits(192), "summary": [],
                               "encrypted_content": "gAAAAABo" + blob(900, urlsafe=True)}}
        elif kind == 2:
            shas = "\n".join("%040x %s" % (rnd.getrandbits(160), words(5)) for _ in range(5))
            rec = {"type": "user", "timestamp": ts, "message": {"content": [
                {"type": "tool_result", "tool_use_id": "toolu_01" + _b62(f"u{i}", 22), "content": shas}]}}
        elif kind == 3:
            rec = {"type": "user", "timestamp": ts, "message": {"content": [
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG_1PX[:40] + blob(3000)}}]}}
        elif kind == 4:
            args = json.dumps({"command": ["bash", "-lc", f"sha256sum dist/app-{i % 10}.{i % 7}.{i % 5}.tgz"]})
            rec = {"timestamp": ts, "type": "response_item",
                   "payload": {"type": "function_call", "call_id": "call_" + _b62(f"c{i}", 24), "name": "shell", "arguments": args}}
        else:
            rec = {"type": "tool_result", "timestamp": ts, "content": "%064x  dist/app.tgz\n" % rnd.getrandbits(256)
                   + '"integrity": "sha512-' + blob(64) + '"\n' + words(40)}
        line = json.dumps(rec)
        lines.append(line)
        total += len(line) + 1
    return "\n".join(lines) + "\n"


def test_rules_find_nothing_in_a_megabyte_of_clean_transcript_and_stay_fast() -> None:
    text = _synthetic_transcript(1_000_000)
    lowered = text.lower()
    hits: dict[str, list[str]] = {}
    slowest = ("", 0.0)
    scanning = 0.0
    for rid, rule in COMPILED.items():
        # only the rule's own RE2 scan is timed: this file's keyword gate (Python `re` with
        # lookarounds for word keywords) is a test harness, slow on its own and not what runs
        t0 = time.perf_counter()
        for _ in rule.regex.finditer(text):
            pass
        took = time.perf_counter() - t0
        scanning += took
        slowest = max(slowest, (rid, took), key=lambda x: x[1])
        found = rule.findings(text, lowered)
        if found:
            hits[rid] = [f.secret[:40] for f in found[:3]]
    elapsed = scanning
    assert not hits, f"rules matched clean synthetic transcript: {hits}"
    # RE2 is linear; this bound only catches a rule that is pathologically slow (e.g. a huge program).
    assert elapsed < 60, f"all rules over 1 MB took {elapsed:.1f}s (slowest {slowest[0]} {slowest[1]:.2f}s)"
    assert slowest[1] < 5, f"rule {slowest[0]} took {slowest[1]:.2f}s over 1 MB"


def test_rules_without_a_selective_keyword_stay_dfa_friendly() -> None:
    """Rules with no keyword (or a one/two-character one) are always on: the engine prefilters them
    as ONE combined RE2 pass. A large counted repetition in any of them makes that DFA run out of
    memory and fall back to a many-times slower NFA (an email regex with {0,63} cost 3 s per MB)."""
    weak = [r.raw["regex"] for r in COMPILED.values() if not r.keywords or any(len(k) <= 2 for k in r.keywords)]
    assert weak
    opts = re2.Options()
    opts.max_mem = 256 << 20
    opts.never_capture = True
    opts.log_errors = False
    union = re2.compile("|".join(f"(?:{p})" for p in weak), opts)
    text = _synthetic_transcript(1_000_000, seed=7)
    started = time.perf_counter()
    union.search(text)  # cold: includes building the DFA states
    cold = time.perf_counter() - started
    started = time.perf_counter()
    union.search(text)  # warm: a DFA that fits reuses its states (~0.01 s); one that does not starts over
    warm = time.perf_counter() - started
    # the warm pass tells a DFA from the NFA fallback by two orders of magnitude on any machine;
    # the cold bound only catches the extreme (the cold pass takes 0.4-2.5 s with the machine's speed)
    assert warm < 0.5, f"combined always-on prefilter took {warm:.2f}s warm over 1 MB (cold {cold:.2f}s)"
    assert cold < 15, f"combined always-on prefilter took {cold:.2f}s cold over 1 MB"


# ----------------------------------------------------------------------------- cost

ORDINARY_TEXT = "".join(p.read_text() for p in sorted((RULES_DIR.parent / "archiver").rglob("*.py")))


@pytest.mark.parametrize("rule_id", [r["id"] for _, r in PATTERN_RULES if not r.get("keywords")])
def test_a_rule_without_keywords_rarely_matches_ordinary_text(rule_id: str) -> None:
    """A rule no keyword gates runs on every string, and every match (skip alternatives too)
    costs Python work: one that matched each `word:` halved redaction throughput. On this
    project's own source (about 0.9 MB of ordinary code) such a rule may match once per 10 KB."""
    raw = next(r for _, r in RAW_RULES if r["id"] == rule_id)
    matches = sum(1 for _ in re2.finditer(raw["regex"], ORDINARY_TEXT))
    assert matches * 10_000 <= len(ORDINARY_TEXT), f"{rule_id}: {matches} matches in {len(ORDINARY_TEXT)} bytes"


# ---------------------------------------------------------------- word lists (rules/words.toml)
def test_the_shipped_word_lists_load_and_feed_the_generated_rules() -> None:
    from archiver.redact.rules import (COMMON_WORD_USERNAMES, GENERIC_ACCOUNTS, WORD_LISTS, builtin_pack_path,
                                       load_word_lists)

    lists = load_word_lists(builtin_pack_path("words"))
    assert set(lists) == set(WORD_LISTS)
    assert {"root", "ubuntu", "runner"} <= lists["generic_accounts"] == GENERIC_ACCOUNTS
    assert {"max", "will", "data"} <= lists["common_word_usernames"] == COMMON_WORD_USERNAMES
    assert "will" in lists["common_word_first_names"] and "localhost" in lists["generic_hosts"]
    assert not lists["generic_accounts"] & lists["common_word_usernames"]  # a generic account is never a rule


@pytest.mark.parametrize(("text", "problem"), [
    ("generic_hosts = [", "cannot read word lists"),
    ('generic_hosts = ["Localhost"]\ngeneric_accounts = []\ncommon_word_first_names = []\n'
     "common_word_usernames = []", "generic_hosts must be a list of non-empty lower-case strings"),
    ("generic_hosts = []\ngeneric_accounts = []\ncommon_word_first_names = []", "common_word_usernames must be"),
    ('generic_hosts = []\ngeneric_accounts = []\ncommon_word_first_names = []\ncommon_word_usernames = []\n'
     "password_words = []\nextra = []", "unknown word list(s): extra"),
])
def test_a_bad_word_list_file_is_refused_naming_the_file(tmp_path: Path, text: str, problem: str) -> None:
    from archiver.redact.rules import RuleError, load_word_lists

    f = tmp_path / "words.toml"
    f.write_text(text)
    with pytest.raises(RuleError) as e:
        load_word_lists(f)
    assert str(e.value).startswith(f"{f}: ") and problem in str(e.value)
