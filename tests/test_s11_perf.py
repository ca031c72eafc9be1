"""Session 11 performance changes that must not change a byte of output:

* the weak groups' rule Set: on a string the combined pass touched, only the group's rules whose
  piece matches there run (scan_segments), and likewise in scan_bytes' plan;
* a long string repeated within a JSONL batch is scanned once;
* the JSON cells of a batch of SQLite rows are scanned in one engine pass (redaction and re-scan).

Each is checked two ways: the saving happens (fails on the code before it), and the matches and
bytes are those of the engine/walker without it.
"""

from __future__ import annotations

import functools
import json
import random
import sqlite3
from pathlib import Path
from typing import Any

import orjson
import pytest

from archiver.redact.base import RedactionReport
from archiver.redact.engine import ALWAYS, COMMON, MODE_ALL, MODE_IDS, MODE_KEYS, MODE_OPAQUE, MODE_PATHS, Engine
from archiver.redact.re2scan import first_span as engine_first
from archiver.redact.walkers import jsondoc
from archiver.redact.walkers import sqlite as sqlite_walker
from tests.fx_redact import builtin_redactor, random_segments

KEY = b"s11-perf-test-key-0123456789abcdef"
CARD_RULES = {"credit-card-visa", "credit-card-mastercard", "credit-card-amex", "iban", "phone-e164"}


@functools.cache
def _red() -> Any:
    return builtin_redactor(KEY, usernames=["alice"], names=["Grace Hopper"])


class _GivesUp:
    """A Set that ran out of DFA memory: no answer at all (so no sentinel either)."""

    def Match(self, buf: bytes) -> None:  # noqa: N802 - the re2.Set method name
        return None


@pytest.fixture()
def both() -> tuple[Engine, Engine]:
    """(the engine as built, a copy whose weak Sets always give up: every rule of a touched group runs,
    as before the Sets existed)."""
    eng = _red().engine
    old = Engine(eng.rules, eng.pseudonyms)
    for chunks in old._weak.values():
        for chunk in chunks:
            chunk.pieces = _GivesUp()
    return eng, old


def _ran(eng: Engine, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record the rules `_collect` runs (the weak rules on single strings, and scan_bytes' plan)."""
    seen: list[str] = []
    orig = Engine._collect

    def spy(self: Engine, buf: bytes, rules: list[int]) -> Any:
        if self is eng:
            seen.extend(self._c[i].rule.id for i in rules)
        return orig(self, buf, rules)

    monkeypatch.setattr(Engine, "_collect", spy)
    return seen


def test_an_email_no_longer_runs_the_card_and_phone_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    eng = _red().engine
    ran = _ran(eng, monkeypatch)
    parts = [b"write to bob.stone@northwind.io today", b"nothing here"]
    found = eng.scan_segments(parts, [MODE_ALL, MODE_ALL])
    assert [m.rule_id for m in found[0]] == ["email"] and 1 not in found
    assert "email" in ran and not CARD_RULES & set(ran), ran
    ran.clear()
    ms = eng.scan_bytes(parts[0])
    assert [(m.rule_id, parts[0][m.start:m.end]) for m in ms] == [("email", b"bob.stone@northwind.io")]
    assert "email" in ran and not CARD_RULES & set(ran), ran
    # a card number still meets its rule: the Set says it can match there
    ran.clear()
    card = b"card 4111 1111 1111 1111 for bob.stone@northwind.io"
    got = {m.rule_id for m in eng.scan_segments([card], [MODE_ALL])[0]}
    assert got == {"email", "credit-card-visa"}, got
    assert {"email", "credit-card-visa"} <= set(ran) and "iban" not in ran


def test_weak_hits_answer_per_string_and_the_whole_chunk_when_the_set_gives_up(both: tuple[Engine, Engine]) -> None:
    eng, old = both
    ids = {i: eng._c[i].rule.id for i in range(len(eng._c))}
    can = eng._weak_hits(ALWAYS, b"bob.stone@northwind.io")
    assert "email" in {ids[i] for i in can} and not CARD_RULES & {ids[i] for i in can}
    assert eng._weak_hits(ALWAYS, b"plain words only") == set()
    # a Set that gave up: every rule of the chunk whose alternation matched
    assert old._weak_hits(ALWAYS, b"bob.stone@northwind.io") == set(eng._groups[ALWAYS])
    assert old._weak_hits(ALWAYS, b"plain words only") == set()
    assign = b"api_key = 'Zx9Qw8Er7Ty6Ui5Op4'"
    hit = [chunk for chunk in old._weak[COMMON] if engine_first(chunk.alt, assign)[0] >= 0]
    assert hit and old._weak_hits(COMMON, assign) == {i for chunk in hit for i in chunk.idxs}
    assert set(eng._weak_hits(COMMON, assign)) < set(old._weak_hits(COMMON, assign))


def _examples() -> list[bytes]:
    return [s.encode() for r in _red().rules for s in (*r.positive, *r.negative)]


def test_every_builtin_example_finds_the_same_as_without_the_sets(both: tuple[Engine, Engine]) -> None:
    eng, old = both
    examples = _examples()
    assert len(examples) > 2000
    found = 0
    for k, ex in enumerate(examples):
        got = eng.scan_bytes(ex)
        assert got == old.scan_bytes(ex), ex
        found += len(got)
        if k % 4 == 0:  # the verifier's raw pass scans as MODE_OPAQUE
            assert eng.scan_bytes(ex, MODE_OPAQUE) == old.scan_bytes(ex, MODE_OPAQUE), ex
    assert found > 1000
    modes = [(MODE_ALL, MODE_ALL, MODE_KEYS, MODE_PATHS, MODE_IDS)[i % 5] for i in range(len(examples))]
    for k in range(0, len(examples), 97):  # batches as the walkers make them
        chunk = examples[k:k + 97]
        assert eng.scan_segments(chunk, modes[k:k + 97]) == old.scan_segments(chunk, modes[k:k + 97])


_FRAGS = ["bob.stone@northwind.io", "4111 1111 1111 1111", "+14155550123", "(415) 555-0123", "81.2.69.160",
          "DE89 3704 0044 0532 0130 00", "api_key = \"Zx9Qw8Er7Ty6Ui5Op4\"", "password: hunter2hunter2",
          "/home/alice/p", "Grace Hopper <grace@navy.mil>", "ghp_R8fJ2kLm9QwErTyUiOpAsDfGhJkLzXcVbN12",
          "AKIAQYLPMN5HHHFPZAM2", "mount //nas/homes/grace /mnt", "ssh -l root host", " ", "\n", "\\n", "\"",
          ".", "-", "@", "é", "token", "key", "x" * 40, "0123456789abcdef" * 3]


def test_random_texts_find_the_same_as_without_the_sets(both: tuple[Engine, Engine]) -> None:
    eng, old = both
    rng = random.Random(20261201)
    found = 0
    for _ in range(300):
        parts, modes = random_segments(rng, _FRAGS, 6, 8, (MODE_ALL, MODE_ALL, MODE_KEYS, MODE_PATHS, MODE_IDS))
        got = eng.scan_segments(parts, modes)
        assert got == old.scan_segments(parts, modes), parts
        found += sum(len(v) for v in got.values())
        joined = b" ".join(parts)
        assert eng.redact_bytes(joined, None) == old.redact_bytes(joined, None), joined
    assert found > 600


def _line(i: int, body: str) -> bytes:
    return orjson.dumps({"type": "user", "uuid": f"0000000{i}-0000-4000-8000-000000000000",
                         "message": {"role": "user", "content": [{"type": "tool_result", "content": body}]},
                         "toolUseResult": {"stdout": body}, "cwd": "/home/alice/work"})


def test_a_long_string_repeated_in_a_batch_is_scanned_once(monkeypatch: pytest.MonkeyPatch) -> None:
    red = builtin_redactor(KEY, usernames=["alice"])
    long_a = "build log for /home/alice/work: " + "ok " * 120 + "mail bob.stone@northwind.io"
    long_b = "token ghp_R8fJ2kLm9QwErTyUiOpAsDfGhJkLzXcVbN12 and " + "line " * 80
    assert len(long_a) > jsondoc.MEMO_MAX_LEN and len(long_b) > jsondoc.MEMO_MAX_LEN
    lines = [_line(0, long_a), _line(1, long_b), _line(2, long_a), _line(3, "short /home/alice/x")]
    scanned: list[bytes] = []
    orig = Engine.scan_segments

    def spy(self: Engine, parts: list[bytes], modes: list[int]) -> Any:
        scanned.extend(parts)
        return orig(self, parts, modes)

    monkeypatch.setattr(Engine, "scan_segments", spy)
    report = RedactionReport()
    out = red.redact_jsonl_lines(lines, report)
    # each line holds its long string twice (the tool result and the tool's stdout); three lines, one scan
    assert scanned.count(long_a.encode()) == 1 and scanned.count(long_b.encode()) == 1
    # the same bytes and counts as line by line (each line alone: its own engine pass)
    monkeypatch.setattr(Engine, "scan_segments", orig)
    alone = builtin_redactor(KEY, usernames=["alice"])
    report2 = RedactionReport()
    assert out == [alone.redact_jsonl_line(line, report2) for line in lines]
    assert report.counts == report2.counts
    for o in out[:3]:
        assert b"alice" not in o and b"bob.stone@" not in o and b"ghp_R8fJ" not in o
    assert report.by_rule()["email"] == 4 and report.by_rule()["github-pat"] == 2



# ---- SQLite: the JSON cells of a batch of rows in one engine pass ----

def _opencode_like_db(path: Path) -> int:
    """A database shaped like OpenCode's opencode.db (session_message rows holding a JSON `data`
    column, kv pairs) plus the cell kinds the walker treats apart: hex JSON, a secret-named
    column, JSON and Latin-1 BLOBs, a text cell that is no JSON. Returns the JSON cells' count."""
    conn = sqlite3.connect(path)
    conn.executescript("""
        CREATE TABLE session_message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, time_created INTEGER,
                                      data TEXT NOT NULL, api_key TEXT, meta TEXT, raw BLOB);
        CREATE TABLE kv (key TEXT, value TEXT);
    """)
    rng = random.Random(7)
    n_json = 0
    for i in range(1300):  # more than one batch of rows (sqlite.BATCH)
        # every text its own (a step number), as real messages are: no memo answers for them
        part = rng.choice([
            {"type": "text", "text": f"step {i}: edited /home/alice/work/shop/file{i % 17}.py"},
            {"type": "tool", "state": {"input": {"command": f"git log -{i}"},
                                       "output": f"commit {i}\nAuthor: Grace Hopper <grace@navy.mil>"}},
            {"type": "text", "text": f"step {i}: contact bob.stone@northwind.io about card 4111 1111 1111 1111"},
            {"type": "text", "text": f"step {i}: " + "plain words and nothing else " * 3},
            {"type": "tool", "state": {"output": f"step {i}\nGITHUB_TOKEN=ghp_R8fJ2kLm9QwErTyUiOpAsDfGhJkLzXcVbN12"}},
        ])
        data = json.dumps({"id": f"msg_{i:026d}", "role": "assistant", "parts": [part], "cwd": "/home/alice/work/shop"},
                          indent=1 if i % 5 == 0 else None)  # some with a layout of their own, kept by the patch
        meta = json.dumps({"path": f"/home/alice/{i % 3}"}).encode().hex() if i % 7 == 0 else None
        raw = (json.dumps({"who": "alice", "mail": "bob.stone@northwind.io"}).encode() if i % 4 == 0
               else "café für /home/alice".encode("latin-1") if i % 4 == 1 else None)
        key = "sk-proj-Xk29fLmQ83nZpW0vTr7yUe4iOa1sDg6hJkLq2wErTy8uIo0pAs" if i % 50 == 0 else None
        conn.execute("INSERT INTO session_message VALUES (?, ?, ?, ?, ?, ?, ?)",
                     (f"msg_{i:026d}", "ses_01", 1700000000000 + i, data, key, meta, raw))
        n_json += 1 + (raw is not None and i % 4 == 0)
    conn.executemany("INSERT INTO kv VALUES (?, ?)", [("DB_PASSWORD", "hunter2hunter2x"), ("theme", "dark"),
                                                        ("note", "not json /home/alice/x")])
    conn.commit()
    conn.close()
    return n_json


def _dump(path: Path) -> list[tuple[str, list[tuple[Any, ...]]]]:
    conn = sqlite3.connect(path)
    try:
        return [(t, conn.execute(f'SELECT * FROM "{t}" ORDER BY rowid').fetchall())
                for (t,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
    finally:
        conn.close()


def test_sqlite_json_cells_are_batched_with_the_same_bytes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    src = tmp_path / "opencode.db"
    n_json = _opencode_like_db(src)
    calls = [0]
    orig = Engine.scan_segments

    def spy(self: Engine, parts: list[bytes], modes: list[int]) -> Any:
        calls[0] += 1
        return orig(self, parts, modes)

    monkeypatch.setattr(Engine, "scan_segments", spy)
    red = builtin_redactor(KEY, usernames=["alice"], names=["Grace Hopper"])
    batched, report = tmp_path / "batched.db", RedactionReport()
    red.redact_file(src, batched, "sqlite", report)
    assert 0 < calls[0] < n_json // 20, (calls[0], n_json)  # one engine pass per batch, not one per cell
    # the walker cell by cell (as before the batches), with a fresh redactor
    one = builtin_redactor(KEY, usernames=["alice"], names=["Grace Hopper"])
    single, report1 = tmp_path / "single.db", RedactionReport()
    sqlite_walker.redact_sqlite(src, single, lambda v, c, k=None: one._cell(v, c, report1, k), one._warnings)
    assert _dump(batched) == _dump(single)
    assert report.counts == report1.counts
    body = batched.read_bytes()
    for value in (b"alice", b"bob.stone@", b"ghp_R8fJ", b"hunter2hunter2x", b"sk-proj-Xk29", b"4111 1111"):
        assert value not in body, value
    assert b"plain words and nothing else" in body and b"dark" in body
    by = report.by_rule()
    assert by["github-pat"] > 100 and by["email"] > 300 and by["openai-project-key"] == 26, by
    # the fail-closed re-scan reads it batched too, and finds nothing left
    calls[0] = 0
    assert red.verify_file(batched, "sqlite") == []
    assert 0 < calls[0] < n_json // 20
