"""s23 cross-product recall audit: every s21 zoo family in every harness carrier, through the CLI.

One HOME (tests/fx_s23_zoox.py) holds, for Claude Code, Codex, Cursor agent, OpenCode, pi and the
DeepSeek harness, each place its seed says text is kept (message text, tool inputs and outputs,
JSON-string arguments, subagent transcripts, sidecar files, history files, SQLite cells, protobuf
blobs, a .jsonl.zst rollout), with every zoo family and every look-alike in each. One sync to
moto on 127.0.0.1 (tests/fx_s21_audit.audit_run); every object is read back with `age -d | zstd -d`.

Each plant has an anchor word beside it. The check finds the record that holds the anchor (a JSONL
line, an SQLite cell, a whole text file) and looks there for the family's needles (the random
cores, as test_s21_zoo does, also JSON-escaped once and twice); a look-alike must be there
unchanged. A carrier whose anchors never reach the archive fails as "not archived".
"""

from __future__ import annotations

import json
import re
import sqlite3
import subprocess
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Iterator

import pytest

from archiver.redact.base import RedactionReport
from tests.fx_redact import builtin_redactor
from tests.fx_s21_audit import ZSTD_MAGIC, AuditRun, audit_run
from tests.fx_s23_zoox import USER, Plant, Zoox, build_home, prose
from tests.fx_s3 import s3_server  # noqa: F401
from tests.test_s21_zoo import KEY

SQLITE_MAGIC = b"SQLite format 3\x00"
ANCHOR = re.compile(rb"zooanchor-[a-z0-9-]+?-n?\d{2,3}\b")


def forms(needle: str) -> set[bytes]:
    """The needle as it can sit in an object: raw, JSON-escaped (ASCII or not), and escaped twice
    (a JSON string inside a JSON string: Codex function_call arguments, DeepSeek tool arguments)."""
    out = {needle}
    for _ in range(2):
        out |= {json.dumps(x, ensure_ascii=a)[1:-1] for x in list(out) for a in (True, False)}
    return {x.encode() for x in out}


def sqlite_cells(data: bytes, scratch: Path) -> list[bytes]:
    """Every text/blob value of every table of an SQLite object (a long value spills over overflow
    pages, so the raw file is no place to look for it)."""
    with tempfile.NamedTemporaryFile(dir=scratch, suffix=".db", delete=False) as f:
        f.write(data)
    try:
        con = sqlite3.connect(f"file:{f.name}?immutable=1", uri=True)
        cells = []
        for (table,) in con.execute("SELECT name FROM sqlite_master WHERE type='table'").fetchall():
            for row in con.execute(f'SELECT * FROM "{table}"'):
                cells += [v.encode() if isinstance(v, str) else v for v in row if isinstance(v, (str, bytes))]
        con.close()
        return cells
    finally:
        Path(f.name).unlink()


def segments(data: bytes, scratch: Path) -> list[bytes]:
    if data.startswith(SQLITE_MAGIC):
        return sqlite_cells(data, scratch)
    lines = [ln for ln in data.split(b"\n") if ln.strip()]
    if lines and all(ln.lstrip().startswith(b"{") for ln in lines):
        return lines
    return [data]


class Results:
    """For each plant: which of its needles came out, and whether its anchor reached the archive."""

    def __init__(self, z: Zoox, run: AuditRun | None, objects: dict[str, bytes], scratch: Path) -> None:
        self.z, self.run = z, run
        by_anchor: dict[bytes, list[bytes]] = defaultdict(list)
        for data in objects.values():
            for seg in segments(data, scratch):
                for a in set(ANCHOR.findall(seg)):
                    by_anchor[a].append(seg)
        self.by_anchor = by_anchor

    def where(self, p: Plant) -> list[bytes]:
        return self.by_anchor.get(p.anchor.encode(), [])

    def leaked(self, p: Plant) -> list[str]:
        segs = self.where(p)
        return [n for n in p.needles if any(f in s for s in segs for f in forms(n))]

    def context(self, p: Plant, n: str) -> str:
        """What came out around the needle (the needle itself shown as <NEEDLE>)."""
        for s in self.where(p):
            for f in forms(n):
                i = s.find(f)
                if i >= 0:
                    return (s[max(0, i - 80):i].decode("utf-8", "replace") + "<NEEDLE>"
                            + s[i + len(f):i + len(f) + 60].decode("utf-8", "replace"))
        return ""


# Carrier leaks this audit found and could not close inside its box: (harness, carrier, family) ->
# reason. None today: every family's s21 draw is redacted in every carrier.
OPEN: dict[tuple[str, str, str], str] = {}

# Look-alikes a carrier changes: (harness, carrier, "neg:<name>") -> reason. None today: an epoch-ms
# timestamp on a patch's added line ('+1730625262517') is no NANP number (s23-diffphone).
OPEN_NEG: dict[tuple[str, str, str], str] = {}


@pytest.fixture(scope="module")
def zoox(tmp_path_factory: pytest.TempPathFactory, s3_server: str) -> Iterator[tuple[Zoox, Results]]:  # noqa: F811
    base = tmp_path_factory.mktemp("s23zoox")
    base.chmod(0o700)
    z = build_home(base)
    r = audit_run(base, z, USER, s3_server, [])
    scratch = base / "scratch"
    scratch.mkdir(mode=0o700)
    yield z, Results(z, r, r.plaintexts, scratch)
    r.clean()


@pytest.fixture(scope="module")
def red():  # noqa: ANN201
    return builtin_redactor(KEY, [USER])


def test_sync_ok_and_every_session_archived(zoox: tuple[Zoox, Results]) -> None:
    z, res = zoox
    run = res.run
    assert run.sync_code == 0, run.outputs[1][1][-3000:]
    assert run.sync_json["sessions"]["failed"] == 0
    found = {s["key"] for s in run.ls["sessions"]}
    assert z.sessions - found == set(), sorted(found)


def _carriers() -> list[tuple[str, str]]:
    """The (harness, carrier) pairs, from a throwaway build (cheap: no sync)."""
    with tempfile.TemporaryDirectory(prefix="s23-zoox-ids-") as d:
        return build_home(Path(d)).carriers()


CARRIERS = _carriers()


@pytest.mark.parametrize("harness,carrier", CARRIERS, ids=[c for _, c in CARRIERS])
def test_every_anchor_reaches_the_archive(zoox: tuple[Zoox, Results], harness: str, carrier: str) -> None:
    """The carrier was archived at all: each plant's anchor is in some object (else a leak check
    on it could not fail)."""
    z, res = zoox
    missing = [p.family for p in z.plants if (p.harness, p.carrier) == (harness, carrier) and not res.where(p)]
    assert not missing, f"{harness}/{carrier}: {len(missing)} anchors not archived, e.g. {missing[:5]}"


def _classify(red: object, p: Plant) -> str:
    """'rule' when the same value also leaks from the in-process prose carrier, else 'carrier'."""
    out = red.redact_text(prose(p), RedactionReport())  # type: ignore[attr-defined]
    return "rule" if any(n in out for n in p.needles) else "carrier"


@pytest.mark.parametrize("harness,carrier", CARRIERS, ids=[c for _, c in CARRIERS])
def test_no_family_leaks_from_the_carrier(zoox: tuple[Zoox, Results], red: object, harness: str, carrier: str) -> None:
    z, res = zoox
    bad = []
    for p in z.plants:
        if (p.harness, p.carrier) != (harness, carrier) or p.negative or (harness, carrier, p.family) in OPEN:
            continue
        hits = res.leaked(p)
        if hits:
            bad.append(f"{p.family} [{_classify(red, p)}] {len(hits)}/{len(p.needles)} needles, "
                       f"e.g. ...{res.context(p, hits[0])[-140:]!r}")
    assert not bad, f"{harness}/{carrier} leaked {len(bad)} families:\n" + "\n".join(bad)


@pytest.mark.parametrize("harness,carrier", CARRIERS, ids=[c for _, c in CARRIERS])
def test_lookalikes_come_out_unchanged(zoox: tuple[Zoox, Results], harness: str, carrier: str) -> None:
    z, res = zoox
    changed = [p.family for p in z.plants if (p.harness, p.carrier) == (harness, carrier) and p.negative
               and (harness, carrier, p.family) not in OPEN_NEG and res.where(p) and not res.leaked(p)]
    assert not changed, f"{harness}/{carrier}: look-alikes changed: {changed}"


def _open_cases() -> list[object]:
    cases = [pytest.param(*k, marks=pytest.mark.xfail(strict=True, reason=v), id="/".join(k))
             for k, v in sorted(OPEN.items()) + sorted(OPEN_NEG.items())]
    return cases or [pytest.param("-", "-", "-", id="none-open")]


@pytest.mark.parametrize("harness,carrier,family", _open_cases())
def test_open_cases(zoox: tuple[Zoox, Results], harness: str, carrier: str, family: str) -> None:
    """Each known gap, strict: a family that must stop leaking, or a look-alike that must come out."""
    z, res = zoox
    for p in z.plants:
        if (p.harness, p.carrier, p.family) == (harness, carrier, family):
            assert res.where(p), "anchor not archived"
            assert bool(res.leaked(p)) is p.negative, "leaked" if not p.negative else "changed"


def test_checker_sees_every_needle_in_the_unredacted_home(zoox: tuple[Zoox, Results], tmp_path: Path) -> None:
    """The same checker over the HOME's own files (.zst undone, SQLite read cell by cell) finds every
    anchor and every needle: a leak could not hide from it."""
    z, _ = zoox
    files = {}
    for f in sorted(z.home.rglob("*")):
        if f.is_file() and not f.name.endswith(("-wal", "-shm")):
            data = f.read_bytes()
            while data[:4] == ZSTD_MAGIC:
                data = subprocess.run(["zstd", "-d", "-c", "-q"], input=data, capture_output=True, check=True).stdout
            files[str(f)] = data
    raw = Results(z, None, files, tmp_path)
    blind = [(p.harness, p.carrier, p.family) for p in z.plants if not raw.where(p) or len(raw.leaked(p)) != len(p.needles)]
    assert not blind, blind[:10]


@pytest.mark.parametrize("text", ["*** Begin Patch\n*** Add File: conf/x.env\n++14155550123\n*** End Patch",
                                  "@@ -1 +1 @@\n-old\n++14155550123\n"], ids=["apply-patch", "unified-diff"])
def test_a_compact_phone_added_in_a_patch_is_redacted(red: object, text: str) -> None:
    """Found beside the zoo (no zoo phone is in compact E.164 form), in-process."""
    assert "14155550123" not in red.redact_text(text, RedactionReport())  # type: ignore[attr-defined]
