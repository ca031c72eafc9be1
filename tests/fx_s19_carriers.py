"""Generator of the s19 carrier audit: the s18 leak audit's home (tests/fx_s18_leaks.py: all six
harnesses from archiver/demo's samples, data planted in every place those files hold it), with
this session's new formats as the planted data instead of s18's canaries.

No tests here. `build(home)` writes the home and returns a `Plan`. Each place (tag) gets a
generated instance of one provider format the s19 recall sweep added a rule for
(tests/fx_s19_recall.py NEW, in rotation) and one national identifier (tests/fx_s19_pii.py
FORMATS, in rotation, with its check digit):
- text carriers (JSON/JSONL strings, SQLite TEXT cells incl. Cursor's hex JSON meta, text sidecars,
  Codex .jsonl.zst, a Cursor protobuf and JSON blob, a torn JSONL line): the token, and the id in
  a sentence that names it (`the customer's Aadhaar number is ...`);
- env dumps: `<PROVIDER_ENV>=<token>` and a log line `aadhaar=<id>`;
- JSON keys (every record's top level): `<token> aadhaar=<id>` as the key;
- an id-named JSON key on every record's top level: `"aadhaar": "<id>"`;
- an id-named SQLite column on every table of every database: `aadhaar TEXT`, every row set;
- file and folder names: `<user>-<token>-aadhaar-<id>` (their needles kept apart: see `Plan`).
Needles are the random cores of each token (12 characters or more) and each id as planted.
"""

from __future__ import annotations

import random
import sqlite3
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from unittest import mock

from tests import fx_s18_leaks as s18
from tests.fx_s19_pii import FORMATS as IDS
from tests.fx_s19_pii import Format as IdFormat
from tests.fx_s19_pii import log_line, prose
from tests.fx_s19_recall import BY_NAME, NEW

USER = s18.USER
SEED = 1919
MIN_CORE = 12  # shorter random runs could turn up by chance in megabytes of plaintext


@dataclass
class Drawn:
    fmt: str
    token: str
    cores: list[str]
    idf: IdFormat
    id_value: str


@dataclass
class Plan(s18.Plan):
    # needles planted in file and folder names only: path components run the paths pack, the
    # generated rules and `paths = true` rules alone (docs/RULES.md), so they are checked apart
    name_needles: list[tuple[str, str]] = field(default_factory=list)
    formats: Counter[str] = field(default_factory=Counter)  # provider format -> places planted
    ids: Counter[str] = field(default_factory=Counter)  # national id format -> places planted
    id_keys: Counter[str] = field(default_factory=Counter)  # id format -> id-named JSON keys planted
    id_columns: Counter[str] = field(default_factory=Counter)  # id format -> id-named SQLite columns
    key_tokens: Counter[str] = field(default_factory=Counter)  # provider format -> JSON keys holding it
    texts: int = 0  # canary paragraphs written


class Canaries(s18.Canaries):
    """s18's canary places, filled with the new formats in rotation."""

    def __init__(self, home: Path) -> None:
        super().__init__(home)
        self.plan = Plan(home)
        self.rng = random.Random(SEED)
        self.drawn: dict[str, Drawn] = {}
        self._fi = self._ii = 0

    def _next_format(self, no_slash: bool = False) -> tuple[str, str, list[str]]:
        for _ in range(len(NEW)):
            name = list(NEW)[self._fi % len(NEW)]
            self._fi += 1
            for _ in range(200 if no_slash else 1):
                token, cores = BY_NAME[name].gen(self.rng)
                if not (no_slash and "/" in token):
                    return name, token, cores
        raise AssertionError("no format draws a token without '/'")

    def next_id(self) -> tuple[IdFormat, str]:
        idf = IDS[self._ii % len(IDS)]
        self._ii += 1
        return idf, idf.gen(self.rng)[0]

    def draw(self, tag: str, no_slash: bool = False) -> Drawn:
        if tag not in self.drawn:
            name, token, cores = self._next_format(no_slash)
            self.drawn[tag] = Drawn(name, token, cores, *self.next_id())
        return self.drawn[tag]

    def _register_drawn(self, tag: str, into: list[tuple[str, str]], no_slash: bool = False) -> Drawn:
        d = self.draw(tag, no_slash)
        if tag in self.registered:
            return d
        self.registered.add(tag)
        n = self._num(tag)
        into += [(f"{tag}#{d.fmt}", c) for c in d.cores if len(c) >= MIN_CORE]
        into.append((f"{tag}#{d.idf.name}", d.id_value))
        self.plan.neighbours[tag] = f"keep-{n:03d}-alpha"
        self.plan.formats[d.fmt] += 1
        self.plan.ids[d.idf.name] += 1
        return d

    def text(self, tag: str, pem: bool = True) -> str:
        d = self._register_drawn(tag, self.plan.needles)
        n = self.tags[tag]
        self.plan.texts += 1
        return (f"keep-{n:03d}-alpha see {self.home}/w{n:03d}/notes.md see {d.token} then "
                f"{prose(d.idf, d.id_value)} keep-{n:03d}-omega")

    def env_dump(self, tag: str) -> str:
        d = self._register_drawn(tag, self.plan.needles)
        return f"HOME={self.home}\nUSER={USER}\n{BY_NAME[d.fmt].env}={d.token}\n{log_line(d.idf, d.id_value)}"

    def key(self, tag: str) -> str:
        d = self._register_drawn(tag, self.plan.needles)
        self.plan.key_tokens[d.fmt] += 1
        return f"{d.token} {d.idf.log_key}={d.id_value}"

    def name(self, tag: str) -> str:
        d = self._register_drawn(tag, self.plan.name_needles, no_slash=True)
        return f"{USER}-{d.token}-{d.idf.json_key}-{d.id_value}"

    def id_pair(self, tag: str) -> tuple[str, str]:
        """An id-named key or column and its value, as a needle of `tag`."""
        idf, value = self.next_id()
        self.plan.needles.append((f"{tag}#{idf.name}", value))
        self.plan.ids[idf.name] += 1
        return idf.json_key, value


# ------------------------------------------------------------------ planting
_s18_plant_json = s18.plant_json


def plant_json(can: Canaries, obj: Any, tag: str, path: str = "", top: bool = True) -> Any:
    """s18's planting, and on each top record an id-named key holding a national id."""
    out = _s18_plant_json(can, obj, tag, path, top)
    if top and isinstance(out, dict):
        key, value = can.id_pair(f"{tag}:idkey")
        if key not in out:
            out[key] = value
            can.plan.id_keys[key] += 1
    return out


def plant_id_columns(can: Canaries, home: Path) -> None:
    """Every ordinary table of every SQLite database gets an id-named TEXT column, every row set."""
    for f in sorted(p for p in home.rglob("*") if p.is_file() and not p.is_symlink()):
        if f.name.endswith(("-wal", "-shm")) or f.read_bytes()[:16] != b"SQLite format 3\x00":
            continue
        rel = f.relative_to(home).as_posix()
        try:
            con = sqlite3.connect(str(f), isolation_level=None)
            tables = [r[0] for r in con.execute(
                "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%' "
                "AND sql NOT LIKE 'CREATE VIRTUAL%'")]
        except sqlite3.DatabaseError:
            continue  # the corrupt store s18 plants
        try:
            for t in tables:
                cols = {r[1] for r in con.execute(f'PRAGMA table_info("{t}")')}
                key, value = can.id_pair(f"{s18._harness_of(rel)}:{s18._kind_of(rel)}:{t}:idcol")
                if key in cols:
                    continue
                con.execute(f'ALTER TABLE "{t}" ADD COLUMN "{key}" TEXT')
                con.execute(f'UPDATE "{t}" SET "{key}" = ?', (value,))
                can.plan.id_columns[key] += 1
        finally:
            con.close()


def build(home: Path) -> Plan:
    """The demo's six harnesses under `home` for USER, the new formats planted everywhere."""
    made = s18.sample_home(home)
    can = Canaries(home)
    # s18's walk of the home calls its module's plant_json (recursively too): this one adds the
    # id-named key on each top record
    with mock.patch.object(s18, "plant_json", plant_json):
        s18.plant_tree(can, home)
        s18.plant_extras(can, home, made)
    plant_id_columns(can, home)
    assert isinstance(can.plan, Plan)
    return can.plan
