"""An engine with many keywords searches them in KEYWORD_SETS RE2 Sets instead of one.

A many-match DFA's states multiply with the keywords that occur together: the built-in packs'
1,643 keywords in one Set built 7.1 MB of states in every worker over 40 MB of transcripts, and the
memory case's process tree peaked at 308 MB (target 300). In three alphabetical parts the cold sync
of the 103 MB corpus peaked at 257 MB instead of 266 (`bench/sync.py`, `bench/re2_memory.py`).
Checked here: the keyword hits (rules, image markers, table marker) are those of one Set, over
generated text around every keyword; redacted bytes are identical; a part whose Set gives up makes
the engine assume every keyword, as a failed single Set did; small engines keep one Set.
"""

from __future__ import annotations

import contextlib
import functools
import json
import random
from pathlib import Path
from typing import Iterator

import pytest

import archiver.redact.engine as engine_mod
from archiver.redact.base import RedactionReport
from archiver.redact.engine import Engine
from archiver.redact.pseudonym import Pseudonymizer
from archiver.redact.redactor import RuleRedactor
from archiver.redact.rules import Rule, RuntimeTerms, load_rules

KEY = b"s27-keyword-sets-key-0123456789abcdef"
PACKS = ["builtin:secrets", "builtin:pii", "builtin:paths", "builtin:names"]
TERMS = RuntimeTerms(usernames=["alice"], names=["Grace Hopper"])
_GHP = "ghp_" + "Zq7Lk2Vx9Rt4Np6Wm8Yb1Cd3Fg5Hj7Kl9QsT"[:36]


@functools.cache
def _rules() -> tuple[Rule, ...]:
    return tuple(load_rules(PACKS, TERMS))


@contextlib.contextmanager
def _one_set() -> Iterator[None]:
    """Engines built inside keep all their keywords in one Set, as before session 27."""
    old = engine_mod.KEYWORD_SET_SPLIT
    engine_mod.KEYWORD_SET_SPLIT = 10**9
    try:
        yield
    finally:
        engine_mod.KEYWORD_SET_SPLIT = old


@functools.cache
def _pair() -> tuple[Engine, Engine]:
    rules = list(_rules())
    with _one_set():
        one = Engine(rules, Pseudonymizer(KEY))
    return Engine(rules, Pseudonymizer(KEY)), one


def _texts(keywords: list[bytes]) -> list[bytes]:
    rng = random.Random(2027)
    words = [k.decode("utf-8", "surrogatepass") for k in keywords]
    out = [f"x {w} y".encode() for w in words]
    out += [f"{w.upper()}={_GHP}".encode() for w in words[::5]]
    for _ in range(400):
        picked = rng.sample(words, rng.randint(1, 8))
        sep = rng.choice(["", " ", "\n", "lorem ipsum ", '"', "é日本", "_"])
        out.append(sep.join(rng.choice([w, w.title(), w.upper()]) for w in picked).encode())
    out += [
        b"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk",
        b"| name | token |\n|------|-------|\n| ci | " + _GHP.encode() + b" |",
        b"+----+----------+\n| id | password |\n+----+----------+\n|  1 | hunter2x |",
        b"nothing to see here", b"", b"\x00\x01\xff",
    ]
    return out


def test_the_built_in_packs_keywords_are_searched_in_parts() -> None:
    split, one = _pair()
    assert len(split.keywords) >= engine_mod.KEYWORD_SET_SPLIT
    assert len(split._head_sets) == engine_mod.KEYWORD_SETS - 1 and one._head_sets == []
    parts = [kw for _set, kw in split._head_sets] + [split._set_kw]
    assert sorted(i for p in parts for i in p) == list(range(len(split.keywords)))  # each keyword once
    assert max(len(p) for p in parts) - min(len(p) for p in parts) <= len(parts)


def test_keyword_hits_of_the_parts_are_those_of_one_set() -> None:
    split, one = _pair()
    opened = 0
    for text in _texts(split.keywords):
        got, want = split._keyword_hits(text), one._keyword_hits(text)
        assert got == want, text[:120]
        opened += bool(want[0])
    assert opened > 300  # the texts do open the gates
    assert any(one._keyword_hits(t)[1] for t in _texts(split.keywords))  # image marker seen
    assert any(one._keyword_hits(t)[2] for t in _texts(split.keywords))  # table marker seen


class _GivesUp:
    def Match(self, buf: bytes) -> list[int]:  # noqa: N802 - the RE2 method name
        return []  # no sentinel: the Set ran out of DFA memory


@pytest.mark.parametrize("part", [0, -1])
def test_a_part_that_gives_up_opens_every_keyword_gated_rule(part: int) -> None:
    rules = list(_rules())
    eng = Engine(rules, Pseudonymizer(KEY))
    if part == -1:
        eng._set = _GivesUp()
    else:
        eng._head_sets[part] = (_GivesUp(), eng._head_sets[part][1])
    out, images, table = eng._keyword_hits(b"plain words")
    assert out == {i for rl in eng._kw_rules for i in rl} and images
    assert table == (eng._table_mark is not None)


def test_a_small_engine_keeps_one_set() -> None:
    rules = [r for r in _rules() if r.pack == "paths"]
    eng = Engine(rules, Pseudonymizer(KEY))
    assert len(eng.keywords) < engine_mod.KEYWORD_SET_SPLIT and eng._head_sets == []


def test_redacted_bytes_are_those_of_one_set(tmp_path: Path) -> None:
    rules = list(_rules())
    src = tmp_path / "t.jsonl"
    rng = random.Random(7)
    split, _one = _pair()
    words = [k.decode("utf-8", "surrogatepass") for k in split.keywords]
    lines = []
    for n in range(200):
        text = " ".join(rng.sample(words, 5)) + f" token={_GHP} mail grace{n}@acme-corp.io /home/alice/p{n}"
        lines.append('{"type":"user","message":{"content":' + json.dumps(text) + "}}")
    src.write_text("\n".join(lines) + "\n")
    outs = []
    with _one_set():
        one = RuleRedactor(rules, Pseudonymizer(KEY))
    for red in (RuleRedactor(rules, Pseudonymizer(KEY)), one):
        dst = tmp_path / f"out{len(outs)}"
        red.redact_file(src, dst, "jsonl", RedactionReport())
        outs.append(dst.read_bytes())
    assert outs[0] == outs[1]
    assert _GHP.encode() not in outs[0] and b"/home/alice" not in outs[0]

