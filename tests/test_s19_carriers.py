"""s19 carrier audit: this session's 37 newly caught provider formats (rules/secrets.toml, block
`s19 recall`) and 11 national identifiers (rules/pii.toml) planted in every place the s18 leak
audit plants canaries (tests/fx_s19_carriers.py), synced by the real CLI in its own process into
moto's S3 server on 127.0.0.1 and restored by it into another home.

None survives in any object key, stored body, manifest or object read back with the `age` and
`zstd` CLIs, stdout/stderr or metrics file, restored file or restored file name, in any encoding
(hex too: Cursor's meta); the words around each survive; the same sessions restore and their files
parse (JSONL lines, SQLite integrity_check, the protobuf shape of each Cursor blob)."""

from __future__ import annotations

import json
import random
import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest
import zstandard

from tests.fx_s11_e2e import Setup, decrypt_object
from tests.fx_s18_leaks import Finder
from tests.fx_s19_carriers import USER, Plan, build
from tests.fx_s19_cursorsteps import tree
from tests.fx_s19_pii import FORMATS as IDS
from tests.fx_s19_recall import NEW
from tests.fx_s3 import s3_server  # noqa: F401
from tests.test_s18_leaks import Run as S18Run
from tests.test_s18_leaks import _hits

HOST = f"box-of-{USER}"
OTHER = "quillon"


class Run(S18Run):
    """s18's run (CLI outputs kept, the bucket read back), with the file-name needles apart and the
    restored home beside it."""

    def __init__(self, s: Setup, plan: Plan, bucket: str, endpoint: str) -> None:
        super().__init__(s, plan, bucket, endpoint)  # type: ignore[arg-type]
        self.names = Finder(plan.name_needles)
        self.sync: dict[str, Any] = {}
        self.restored: dict[str, Any] = {}
        self.other = s.base / OTHER


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory, s3_server: str) -> Run:  # noqa: F811
    r = Run.start(tmp_path_factory, s3_server, "s19carriers", build)
    s = r.s
    metrics = s.base / "metrics.prom"
    r.sync = json.loads(r.cli("sync", "sync", "--json", "--log-format", "json", "--metrics-file", str(metrics)))
    r.outputs["metrics"] = metrics.read_text()
    r.restored = json.loads(r.cli("restore", "restore", "--identity", str(s.identity), "--json", "--to",
                                  str(r.other), "--all", "--log-format", "json"))
    return r


@pytest.fixture(scope="module")
def plain(run: Run) -> dict[str, bytes]:
    return {k: decrypt_object(run.s.identity, v) for k, v in run.objects().items() if not k.endswith("archiver.json")}


def _tree(root: Path) -> dict[str, bytes]:
    """Every restored file's bytes by its path under `root` (a .zst rollout decompressed too)."""
    out = {}
    for f in sorted(root.rglob("*")):
        rel = f.relative_to(root).as_posix()
        out[rel] = f.read_bytes() if f.is_file() and not f.is_symlink() else b""
        if f.name.endswith(".zst") and out[rel]:
            out[rel + "#decompressed"] = zstandard.ZstdDecompressor().decompressobj().decompress(out[rel])
    return out


# ---------------------------------------------------------------- the plan is what the audit claims


def test_every_new_format_and_id_is_planted_in_many_carriers(run: Run) -> None:
    p = run.plan
    assert set(p.formats) == set(NEW) and min(p.formats.values()) >= 2, p.formats
    assert len(NEW) == 37 and len(set(NEW.values())) == 23
    names = {f.name for f in IDS}
    assert set(p.ids) == names and min(p.ids.values()) >= 2, p.ids
    keys = {f.json_key for f in IDS}
    assert set(p.id_keys) == keys and set(p.id_columns) == keys, (p.id_keys, p.id_columns)
    assert p.texts > 200 and len(p.needles) > 600 and len(p.key_tokens) >= 20


# ---------------------------------------------------------------- nothing leaves the machine


def test_the_bucket_keys_and_bodies_hold_none(run: Run) -> None:
    objs = run.objects()
    assert any(k.startswith("team/snapshots/") for k in objs) and len(objs) > 20
    assert not _hits(run.finder, objs)
    for k in objs:
        assert re.fullmatch(r"team/(archiver\.json|objects/[0-9a-f]{2}/[0-9a-f]{64}|snapshots/[0-9a-f]{16}/[0-9A-Za-z:._-]+)", k), k


def test_the_decrypted_archive_holds_none(run: Run, plain: dict[str, bytes]) -> None:
    assert any(k.startswith("team/snapshots/") for k in plain)
    assert not _hits(run.finder, plain)


def test_logs_and_metrics_hold_none(run: Run) -> None:
    assert run.outputs["sync:stderr"].strip(), "the run logged nothing: the check would prove nothing"
    for line in run.outputs["sync:stderr"].splitlines():
        json.loads(line)
    assert not _hits(run.finder, {k: v.encode() for k, v in run.outputs.items()})


def test_the_restored_home_holds_none(run: Run) -> None:
    files = _tree(run.other)
    assert len(files) > 30
    assert not _hits(run.finder, files)


# what a planted paragraph reads like once redacted: the token and the id replaced, the words kept
_SHAPE = re.compile(
    rb"keep-(\d{3})-alpha see \S+?/user-[0-9a-f]{4}/w\1/notes\.md see <[A-Z0-9_]+:[0-9a-f]{8}> then "
    rb"Support ticket #4411: the customer's [^<>]{3,60} is <(?:NATIONAL_ID|PASSPORT):[0-9a-f]{8}>, "
    rb"please fix the typo in her profile\. keep-\1-omega")


def test_the_words_around_each_value_survive(run: Run, plain: dict[str, bytes]) -> None:
    data = b"\n".join(plain.values())
    alphas = [m.start() for m in re.finditer(rb"keep-\d{3}-alpha", data)]
    shaped = {m.start() for m in _SHAPE.finditer(data)}
    assert len(alphas) > 200
    assert not [data[a:a + 400] for a in alphas if a not in shaped]
    found = {int(n) for n in re.findall(rb"keep-(\d{3})-alpha", data)}
    by_n = {int(v[5:8]): t for t, v in run.plan.neighbours.items()}
    tags = {by_n[n] for n in found if n in by_n}
    for harness in ("cc:", "codex:", "cursor:", "oc:", "pi:", "ds:"):
        assert len([t for t in tags if t.startswith(harness)]) >= 5, (harness, sorted(tags))
    for tag in ("cc:tool-result-named-body", "cc:file-history-named-body", "cursor:blob-json", "cursor:blob-protobuf",
                "cc:torn-mid"):
        assert tag in tags, tag
    # env dumps and id-named keys and columns: replaced by a token of their rule's label
    assert re.search(rb"\n[A-Z_]+=<[A-Z0-9_]+:[0-9a-f]{8}>\\?n?\s*[0-9TZ:.-]+ INFO kyc\.verify [a-z_]+="
                     rb"<(?:NATIONAL_ID|PASSPORT):[0-9a-f]{8}> request_id", data)
    for f in IDS:
        assert re.search(rb'"' + f.json_key.encode() + rb'": ?"<(?:NATIONAL_ID|PASSPORT):[0-9a-f]{8}>"', data), f.json_key


# ---------------------------------------------------------------- and the sessions come back whole


def test_the_same_sessions_restore(run: Run) -> None:
    counts = run.sync["sessions"]
    # the one session not archived is the corrupt Cursor store s18 plants (a SQLite header, then text)
    assert counts["failed"] == 1 and len(run.sync["errors"]) == 1, run.sync["errors"]
    assert "77777777-7777-4777-8777-777777777777" in run.sync["errors"][0]
    assert run.restored.get("errors") == [] and not run.restored.get("integrity_errors"), run.restored
    assert not run.restored.get("refused"), run.restored
    restored = run.restored["sessions"]
    assert len(restored) == len(set(restored)) == counts["uploaded"] == counts["total"] - 1 >= 30
    for harness in ("claude-code", "codex", "cursor-agent", "opencode", "pi", "deepseek-harness"):
        assert [k for k in restored if k.startswith(harness + ":")], harness


def _bad_lines(data: bytes) -> int:
    """Lines that do not parse as JSON, an unterminated last line (a write in progress, which the
    collectors leave for the next sync) not counted."""
    bad = 0
    for line in data.split(b"\n")[:None if data.endswith(b"\n") else -1]:
        if line.strip():
            try:
                json.loads(line)
            except ValueError:
                bad += 1
    return bad


def test_the_restored_files_parse(run: Run) -> None:
    restored = _tree(run.other)
    source = _tree(run.s.home)
    def torn(files: dict[str, bytes]) -> dict[str, int]:  # by file name: session files are named by ids
        return {k.rsplit("/", 1)[-1]: _bad_lines(v) for k, v in files.items()
                if k.endswith((".jsonl", ".jsonl.zst#decompressed"))}

    got, had = torn(restored), torn(source)
    assert len(got) >= 10 and len(set(got) & set(had)) >= 10
    # the lines torn in the source (the one planted in Claude's main transcript, the demo's torn
    # Codex line) are the only ones that do not parse, in the same files; what the restore writes
    # of its own (.codex/archiver-extracts/) parses whole
    assert got == {k: had.get(k, 0) for k in got} and sum(got.values()) >= 2, (got, had)
    dbs = [run.other / k for k, v in restored.items() if v[:16] == b"SQLite format 3\x00"]
    assert len(dbs) >= 4
    for db in dbs:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        try:
            assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok", db
        finally:
            con.close()


def _blobs(db: Path) -> dict[str, bytes]:
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return {bid: bytes(data) for bid, data in con.execute("SELECT id, data FROM blobs")}
    finally:
        con.close()


def test_cursor_blobs_keep_their_protobuf_shape(run: Run) -> None:
    def stores(root: Path) -> dict[str, Path]:
        return {p.parent.name: p for p in (root / ".cursor" / "chats").glob("*/*/store.db")}

    before, after = stores(run.s.home), stores(run.other)
    assert after and set(after) <= set(before)
    shaped = 0
    for chat, db in after.items():
        old, new = _blobs(before[chat]), _blobs(db)
        assert set(new) == set(old), chat
        for bid, data in old.items():
            if data[:1] in (b"{", b"[") or tree(data) is None:
                continue
            assert tree(new[bid]) == tree(data), (chat, bid)
            shaped += 1
    assert shaped >= 3


def test_a_medium_rule_would_leave_a_token_keying_a_map() -> None:
    """The carrier the audit found: a JSON key runs only high rules (and pii / paths), so the
    Bitwarden rule (medium until s19-carriers) let a token keying a map through."""
    from archiver.redact.base import RedactionReport
    from archiver.redact.redactor import build_redactor
    from archiver.redact.rules import BUILTIN_PACKS, RuntimeTerms
    from tests.fx_s19_recall import BY_NAME

    red = build_redactor([f"builtin:{p}" for p in BUILTIN_PACKS], b"k" * 32, RuntimeTerms())
    token, cores = BY_NAME["bitwarden-sm-access-token"].gen(random.Random(19))
    line = json.dumps({"type": "note", "machine_accounts": {token: "ci"}}).encode()
    report = RedactionReport()
    out = red.redact_jsonl_line(line, report)
    assert not [c for c in cores if c.encode() in out] and report.by_rule() == {"bitwarden-sm-access-token": 1}
    assert re.fullmatch(rb'\{"type": ?"note", ?"machine_accounts": ?\{"<BITWARDEN_TOKEN:[0-9a-f]{8}>": ?"ci"\}\}', out), out


# ---------------------------------------------------------------- file and folder names


def _name_needles(run: Run, ids: bool) -> Finder:
    """The file-name needles of the provider tokens (ids False) or of the national ids (True)."""
    id_names = {f.name for f in IDS}
    return Finder([(n, v) for n, v in run.plan.name_needles if (n.rsplit("#", 1)[1] in id_names) == ids])


def test_a_token_in_a_file_name_does_not_survive(run: Run, plain: dict[str, bytes]) -> None:
    """High-confidence secret rules run on path components too (Rule.applies_to_paths): a file
    named by a token is renamed as the reference to it inside a transcript is."""
    tokens = _name_needles(run, ids=False)
    assert tokens.grams or tokens.short
    names = {k: b"" for k in _tree(run.other)}
    assert not _hits(tokens, names)
    assert not _hits(tokens, plain)


def test_a_national_id_in_a_file_name_does_not_survive(run: Run, plain: dict[str, bytes]) -> None:
    """A file or folder named by a national id and its name (`…-sin-291 417 772`) is renamed
    (archiver/redact/pathids.py): the id's rule takes the run after the name names it."""
    ids = _name_needles(run, ids=True)
    assert ids.grams or ids.short
    names = {k: b"" for k in _tree(run.other)}
    assert not _hits(ids, names)
    assert not _hits(ids, plain)
