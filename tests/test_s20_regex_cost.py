"""s20 regex cost: the Azure identifiable-key rule, split by character class so RE2's DFA fits.

One regex held counted repeats over three classes (base64 {76}/{33}/{42}, base64url {44}, base62
{42}) before their signatures; the unanchored DFA tracked every combination of the counters and
rebuilt its states over and over (bench/regex_time.py: 0.62 s for 105 calls, 5.9 ms a call, on the
c100 corpus). Now `azure-identifiable-key` keeps the base64 keys and
`azure-identifiable-key-fn-search` the Functions (base64url) and Search (base62) keys. Checked here:
the old regex and the two new ones find the same secrets (regex level and redacted bytes), on keys
of every signature, near misses, and random base64/base64url/base62/text blobs with the signatures
planted; and a cost guard that is not timed: under an eighth of RE2's default memory budget the
new programs' DFA searches a mixed 300 KB text to its end, where the old one runs out (RE2 logs
"DFA out of memory" and falls back to the NFA)."""

from __future__ import annotations

import random
import tomllib
from pathlib import Path

import pytest
import re2

from archiver.redact.re2scan import iter_spans
from archiver.redact.redactor import build_redactor
from archiver.redact.rules import RuntimeTerms
from tests.fx_s16_tokens import redact_as

RULES = Path(__file__).resolve().parent.parent / "rules"
KEY = b"s20-regex-cost-test-key-0123456789abcdef"
OLD_ID = "azure-identifiable-key"
NEW_IDS = ("azure-identifiable-key", "azure-identifiable-key-fn-search")
# the rule's regex before the split (rules/secrets.toml at c9ca649)
OLD_REGEX = (
    r"((?:[A-Za-z0-9+/]{76}(?:\+ASt|ACDb|\+ABa|\+AMC|APIM)[A-Za-z0-9+/]{5}[AQgw]==)"
    r"|(?:[A-Za-z0-9+/]{33}(?:\+ARm|\+AEh|\+ASb|AIoT|AzCa|AZEG)[A-P][A-Za-z0-9+/]{5}=)"
    r"|(?:[A-Za-z0-9_-]{44}AzFu[A-Za-z0-9_-]{5}[AQgw]==)"
    r"|(?:[A-Za-z0-9]{42}AzSe[A-D][A-Za-z0-9]{5}\b)"
    r"|(?:[A-Za-z0-9+/]{42}\+ACR[A-D][A-Za-z0-9+/]{5}))"
)
OLD_KEYWORDS = ["+ast", "acdb", "+aba", "+amc", "apim", "+arm", "+aeh", "+asb", "aiot", "azca", "azeg",
                "azfu", "azse", "+acr"]

B62 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
B64 = B62 + "+/"
URL = B62 + "-_"
TEXT = B62 + " .,:;\"'=-_/+\\\n"
# (class of the body, body length, signatures, the character after the signature, tail length,
# padding): one line per alternative of the old regex
SHAPES = [
    (B64, 76, ["+ASt", "ACDb", "+ABa", "+AMC", "APIM"], "", 5, "AQgw", "=="),
    (B64, 33, ["+ARm", "+AEh", "+ASb", "AIoT", "AzCa", "AZEG"], "ABCDEFGHIJKLMNOP", 5, "", "="),
    (URL, 44, ["AzFu"], "", 5, "AQgw", "=="),
    (B62, 42, ["AzSe"], "ABCD", 5, "", ""),
    (B64, 42, ["+ACR"], "ABCD", 5, "", ""),
]


def _rules() -> dict[str, dict]:
    return {r["id"]: r for r in tomllib.loads((RULES / "secrets.toml").read_text())["rules"]}


def _draw(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def _key(rng: random.Random, shape: tuple, sig: str, miss: str = "") -> str:
    """A key of one shape; `miss` makes a near miss: a body one short, a wrong letter after the
    signature or at the end, the signature in lower case."""
    cls, body, _sigs, after, tail, last, pad = shape
    n = body - 1 if miss == "short" else body
    mid = rng.choice(after) if after else ""
    if miss == "after" and after:
        mid = rng.choice([c for c in B62 if c not in after])
    end = rng.choice(last) if last else ""
    if miss == "last" and last:
        end = rng.choice([c for c in B62 if c not in last])
    word = sig.lower() if miss == "lower" else sig
    return _draw(rng, cls, n) + word + mid + _draw(rng, cls, tail) + end + pad


def _inputs(seed: int) -> list[str]:
    rng = random.Random(seed)
    out = []
    for shape in SHAPES:
        for sig in shape[2]:
            for miss in ("", "", "short", "after", "last", "lower"):
                key = _key(rng, shape, sig, miss)
                blob = rng.choice([B64, URL, B62, TEXT])
                left, right = _draw(rng, blob, rng.randint(0, 120)), _draw(rng, blob, rng.randint(0, 120))
                out.append(left + rng.choice(["", " ", '"', "=", "\\n", ":"]) + key
                           + rng.choice(["", " ", '"', ";", "\\n", "_x"]) + right)
    for blob in (B64, URL, B62, TEXT):  # random blobs with signatures planted at random places
        for _ in range(12):
            text = list(_draw(rng, blob, 600))
            for _ in range(6):
                sig = rng.choice([s for shape in SHAPES for s in shape[2]])
                at = rng.randrange(len(text))
                text[at:at] = list(sig)
            out.append("".join(text))
    return out


def _group_spans(rx: object, text: bytes) -> list[tuple[int, int]]:
    return [tuple(m[1]) for m in iter_spans(rx, text) if m[1][0] >= 0]


@pytest.mark.parametrize("seed", [20, 2020])
def test_old_and_new_regexes_find_the_same_secrets(seed: int) -> None:
    rules = _rules()
    old = re2.compile(OLD_REGEX)._regexp  # noqa: SLF001
    new = [re2.compile(rules[i]["regex"])._regexp for i in NEW_IDS]  # noqa: SLF001
    found = 0
    for text in _inputs(seed):
        b = text.encode()
        want = _group_spans(old, b)
        got = sorted(s for rx in new for s in _group_spans(rx, b))
        assert got == want, text
        found += len(want)
    # every good key of each of the 14 signatures (two a signature) is found; near misses are not
    assert found >= 28, found


def test_the_split_keeps_the_old_keywords_and_secret_shape() -> None:
    rules = _rules()
    assert sorted(k for i in NEW_IDS for k in rules[i]["keywords"]) == sorted(OLD_KEYWORDS)
    for i in NEW_IDS:
        r = rules[i]
        assert (r["label"], r["confidence"], r["entropy"], r["secret_group"]) == ("AZURE_KEY", "high", 4.0, 1)


def _pack(folder: Path, name: str, old: bool) -> Path:
    """The secrets pack as a custom pack (its name is reserved), with the old rule or the new two."""
    text = (RULES / "secrets.toml").read_text()
    head, _, rest = text.partition("[[rules]]")
    chunks = ["[[rules]]" + c for c in rest.split("[[rules]]")]
    if old:
        ids = [tomllib.loads(c)["rules"][0]["id"] for c in chunks]
        at = ids.index(OLD_ID)
        r = tomllib.loads(chunks[at])["rules"][0]
        chunks = [c for c, i in zip(chunks, ids) if i not in NEW_IDS]
        chunks.insert(at, "[[rules]]\n" + "\n".join([
            f"id = '{OLD_ID}'", f"regex = '''{OLD_REGEX}'''", "secret_group = 1",
            f"keywords = {OLD_KEYWORDS!r}", "entropy = 4.0", "label = 'AZURE_KEY'", "confidence = 'high'",
            f"positive = {r['positive']!r}", "",
        ]) + "\n")
    path = folder / f"{name}.toml"
    path.write_text(head.replace('name = "secrets"', f'name = "{name}"') + "".join(chunks))
    return path


def test_redacted_bytes_are_the_same_with_the_old_rule(tmp_path: Path) -> None:
    tmp_path.chmod(0o700)
    before = build_redactor([str(_pack(tmp_path, "secretsold", True)), "builtin:pii", "builtin:paths"], KEY,
                            RuntimeTerms())
    after = build_redactor([str(_pack(tmp_path, "secretsnew", False)), "builtin:pii", "builtin:paths"], KEY,
                           RuntimeTerms())
    changed = 0
    texts = _inputs(7)
    lines = "\n".join(f"key{i}: {t}" for i, t in enumerate(texts))
    for kind, text in [("text", t) for t in texts] + [("text", lines)]:
        out_old, _ = redact_as(before, kind, text)
        out_new, _ = redact_as(after, kind, text)
        assert out_new == out_old, text
        changed += out_old != text
    assert changed >= 28, changed


def _dfa_ran_out(pattern: str, text: bytes, budget: int, capfd: pytest.CaptureFixture[str]) -> bool:
    """Did RE2's DFA give up on an unanchored search of `text` under `budget` bytes (RE2 logs it
    when log_errors is on, then finishes the search with the NFA)?"""
    opts = re2.Options()
    opts.log_errors = True
    opts.max_mem = budget
    rx = re2.compile(pattern, opts)._regexp  # noqa: SLF001
    capfd.readouterr()
    rx.Match(re2._Anchor.UNANCHORED, text, 0, len(text))  # noqa: SLF001
    return "DFA out of memory" in capfd.readouterr().err


def test_new_regexes_fit_the_dfa_budget_where_the_old_ran_out(capfd: pytest.CaptureFixture[str]) -> None:
    rng = random.Random(20)
    words = []
    while sum(map(len, words)) < 300_000:  # runs of every class, cut by the characters that end them
        words.append(_draw(rng, B62 + "+/-_", rng.randint(1, 120)) + rng.choice(' ."\n:=,'))
    text = "".join(words).encode()
    budget = 1 << 20  # an eighth of RE2's default max_mem
    assert _dfa_ran_out(OLD_REGEX, text, budget, capfd)
    rules = _rules()
    for i in NEW_IDS:
        assert not _dfa_ran_out(rules[i]["regex"], text, budget, capfd), i
