"""s19 recall sweep: every credential format of tests/fx_s19_recall.py, sampled twice under two
seeds, is gone from every context it is planted in (prose, env, JSON, shell, YAML, INI, URL,
Python, JS, Claude Code / Codex / OpenCode records) with the built-in packs; the formats the probe
found leaking are found by their own rule where only their shape gives them away; the text next to
the new rules' keywords (ids, digests, lockfile hashes, words) stays byte for byte; and a pack
without one of the new rules lets its format through again."""

from __future__ import annotations

import base64
import hashlib
import json
import random
import tomllib
from pathlib import Path

import pytest

from archiver.redact.redactor import build_redactor
from archiver.redact.rules import BUILTIN_PACKS, RuntimeTerms
from tests.fx_s16_tokens import redact_as, survivors
from tests.fx_s19_recall import BY_NAME, CONTEXTS, FORMATS, LEFT, NEW, samples

KEY = b"s19-recall-sweep-test-key-0123456789abcdef"
SEEDS = (19, 91)
RULES = Path(__file__).resolve().parent.parent / "rules"
# the contexts where nothing but the token's own shape says it is a secret
SHAPE_ONLY = ("prose", "shell", "yaml", "claude", "codex", "opencode")


@pytest.fixture(scope="module")
def red():  # noqa: ANN201
    return build_redactor([f"builtin:{p}" for p in BUILTIN_PACKS], KEY, RuntimeTerms())


CASES = [(seed, f.name, tok, cores) for seed in SEEDS for f, tok, cores in samples(seed)]


@pytest.mark.parametrize("seed,fmt,tok,cores", CASES, ids=[f"{s}-{n}-{i % 2}" for i, (s, n, _, _) in enumerate(CASES)])
def test_format_is_gone_in_every_context(red, seed: int, fmt: str, tok: str, cores: list[str]) -> None:  # noqa: ANN001
    leaked = {}
    for ctx in BY_NAME[fmt].contexts:
        kind, build = CONTEXTS[ctx]
        out, _ = redact_as(red, kind, build(BY_NAME[fmt].env, tok))
        if bad := survivors(cores, out):
            leaked[ctx] = bad
    assert not leaked, (fmt, tok, leaked)


NEW_CASES = [(f.name, tok) for f, tok, _ in samples(SEEDS[0], 1) if f.name in NEW]


@pytest.mark.parametrize("fmt,tok", NEW_CASES, ids=[n for n, _ in NEW_CASES])
def test_new_format_is_found_by_its_own_rule(red, fmt: str, tok: str) -> None:  # noqa: ANN001
    for ctx in SHAPE_ONLY:
        kind, build = CONTEXTS[ctx]
        _, report = redact_as(red, kind, build(BY_NAME[fmt].env, tok))
        assert report.by_rule().get(NEW[fmt], 0) >= 1, (fmt, ctx, report.by_rule())


def _negatives() -> list[tuple[str, str]]:
    rng = random.Random(1919)
    sha = hashlib.sha1(b"s19").hexdigest()
    sha256 = hashlib.sha256(b"s19").hexdigest()
    uid = "4c8f2a1e-7b3d-4e59-9a6c-2d1f0e8b7a63"
    integrity = [base64.b64encode(hashlib.sha512(bytes([i])).digest()).decode() for i in range(40)]
    gosum = [base64.b64encode(hashlib.sha256(bytes([i])).digest()).decode() for i in range(40)]
    return [
        ("npm-integrity", "\n".join(f'"integrity": "sha512-{h}"' for h in integrity)),
        ("go-sum", "\n".join(f"golang.org/x/mod{i} v0.{i}.0 h1:{h}" for i, h in enumerate(gosum))),
        ("git-log", f"commit {sha}\nDate:   Mon Jun 2 10:00:00 2025\n\n    production_database_connectionstr rename\n"),
        ("uuid-version", f"request {uid} version 0.{uid}.json done\n"),
        ("sha256-dose", f"the dose was {sha256[:32]} per the spreadsheet; overdose{sha256[:32]}\n"),
        ("attach-words", "ATTACHMENT_" + sha256 + " and ATTACK_PLAN are variable names\n"),
        ("chmod-perm", "chmod perm-fix.sh.v2 && ./perm-fix.sh\nperm:read.write.execute\n"),
        ("pk-id", "pk_live_" + "0" * 24 + " is the publishable placeholder; pk_12_short\n"),
        ("base64-aqe", "blob: AQEAAAB" + base64.b64encode(rng.randbytes(60)).decode().replace("+", "x").replace("/", "y") + "\n"),
        ("mail-ir", "mail IR@example.com about the integration runtime\n"),
        ("django-doc", "startproject writes a django-insecure- key; replace it before deploying\n"),
        ("xpub", "xpub6" + "".join(rng.choice("123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz") for _ in range(106)) + "\n"),
        ("ctr-identifier", "ctr_incrementAndReturnPreviousValueForCounter(ctx);\n"),
        ("apim-doc", "APIM keys end with APIM and five characters; storage keys carry +ASt\n"),
    ]


@pytest.mark.parametrize("name,text", _negatives(), ids=[n for n, _ in _negatives()])
def test_neighbours_stay_byte_for_byte(red, name: str, text: str) -> None:  # noqa: ANN001
    out, report = redact_as(red, "text", text)
    assert out == text, report.by_rule()
    line = CONTEXTS["claude"][1]("", text)
    out, report = redact_as(red, "jsonl", line)
    assert out == line, report.by_rule()


def _pack_without(rule_id: str, folder: Path) -> Path:
    """The secrets pack as a custom pack (its name is reserved) without one rule."""
    text = (RULES / "secrets.toml").read_text()
    head, _, rest = text.partition("[[rules]]")
    chunks = ["[[rules]]" + c for c in rest.split("[[rules]]")]
    kept = [c for c in chunks if tomllib.loads(c)["rules"][0]["id"] != rule_id]
    assert len(kept) == len(chunks) - 1, rule_id
    path = folder / "secretscopy.toml"
    path.write_text(head.replace('name = "secrets"', 'name = "secretscopy"') + "".join(kept))
    return path


@pytest.mark.parametrize("fmt", ["azure-cosmosdb-identifiable-key", "paddle-live-api-key", "bip32-xprv"])
def test_without_its_rule_the_format_leaks_again(tmp_path: Path, fmt: str) -> None:
    tmp_path.chmod(0o700)
    pack = _pack_without(NEW[fmt], tmp_path)
    bare = build_redactor([str(pack), "builtin:pii", "builtin:paths"], KEY, RuntimeTerms())
    full = build_redactor([f"builtin:{p}" for p in BUILTIN_PACKS], KEY, RuntimeTerms())
    f, tok, cores = next(s for s in samples(SEEDS[0], 1) if s[0].name == fmt)
    kind, build = CONTEXTS["prose"]
    assert survivors(cores, redact_as(bare, kind, build(f.env, tok))[0]), fmt
    assert not survivors(cores, redact_as(full, kind, build(f.env, tok))[0]), fmt


def test_the_sweep_is_wide_and_its_data_consistent() -> None:
    assert len(FORMATS) >= 100 and len(NEW) >= 30
    assert len({f.name for f in FORMATS}) == len(FORMATS)
    assert set(NEW) <= set(BY_NAME) and not set(LEFT) & set(BY_NAME)
    ids = {r["id"] for r in tomllib.loads((RULES / "secrets.toml").read_text())["rules"]}
    assert set(NEW.values()) <= ids
    for seed in SEEDS:
        for f, tok, cores in samples(seed):
            assert cores and all(c in tok for c in cores), f.name
            assert set(f.contexts) <= set(CONTEXTS), f.name
    assert {t for _, t, _ in samples(SEEDS[0])}.isdisjoint({t for _, t, _ in samples(SEEDS[1])})
    # the planted record lines are valid JSON of each harness's shape
    for ctx in ("claude", "codex", "opencode"):
        json.loads(CONTEXTS[ctx][1]("X", "tok"))
