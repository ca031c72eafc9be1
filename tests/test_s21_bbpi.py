"""Black-box audit of pi and the DeepSeek harness: sessions the project has never seen,
generated from the seeds alone (tests/fx_s21_bbpi.py), run through the CLI against moto on
127.0.0.1, then read back with the `age` and `zstd` CLIs the way a reviewer would.

One sync per module; every test reads its results.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Iterator

import pytest

from tests.fx_s21_bbpi import USER, Planted, build_home
from tests.fx_s21_audit import AuditRun, audit_run
from tests.fx_s3 import s3_server  # noqa: F401

Run = AuditRun


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory, s3_server: str) -> Iterator[Run]:  # noqa: F811
    base = tmp_path_factory.mktemp("s21bbpi")
    base.chmod(0o700)
    planted = build_home(base)
    r = audit_run(base, planted, USER, s3_server, planted.top_level)
    yield r
    r.clean()


# ------------------------------------------------------------------ helpers

def leaks_in(data: bytes, planted: Planted) -> list[str]:
    """Where-labels of every canary found in data, and the username case-insensitively."""
    found = [where for value, where in planted.canaries.items() if value.encode() in data]
    low = data.lower()
    if USER.encode() in low:
        i = low.index(USER.encode())
        found.append(f"username alone ...{data[max(0, i - 60):i + 20].decode('utf-8', 'replace')!r}")
    return found


def files_under(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file())


def layout_regex(rel: str) -> re.Pattern[str]:
    """A layout path with the username standing for any redacted pseudonym of it."""
    parts = [re.escape(p) for p in rel.split(USER)]
    return re.compile(f"(?!.*{USER})" + r"[A-Za-z0-9._-]+".join(parts) + "$")


def restored_match(root: Path, rel: str) -> Path | None:
    pattern = layout_regex(rel)
    hits = [p for p in files_under(root) if pattern.match(str(p.relative_to(root)))]
    return hits[0] if len(hits) == 1 else None


# ------------------------------------------------------------------ a. discovery

def test_sync_exit_zero_and_every_session_found(run: Run) -> None:
    assert run.sync_code == 0, run.outputs[1][1][-3000:]
    found = {s["key"] for s in run.ls["sessions"] if not s["key"].endswith("@host")}
    assert found == run.planted.sessions, {"missing": sorted(run.planted.sessions - found),
                                           "unexpected": sorted(found - run.planted.sessions)}
    assert run.sync_json["sessions"]["failed"] == 0


# ------------------------------------------------------------------ b. no plaintext

def test_no_canary_in_any_decrypted_object(run: Run) -> None:
    bad = {}
    for key, data in run.plaintexts.items():
        hits = leaks_in(data, run.planted)
        if hits:
            bad[run.object_owner(key)] = sorted(set(hits))
    assert not bad, json.dumps(bad, indent=1)


def test_no_canary_in_object_keys_or_metadata(run: Run) -> None:
    text = "\n".join(run.keys) + json.dumps(run.metadata)
    assert not leaks_in(text.encode(), run.planted)
    assert len(run.keys) > 17


def test_no_canary_in_cli_output_or_logs(run: Run) -> None:
    bad = {what: leaks_in(out.encode(), run.planted) for what, out in run.outputs}
    assert not any(bad.values()), {k: v for k, v in bad.items() if v}


def test_no_canary_in_restored_files(run: Run) -> None:
    bad = {}
    for root in run.restored.values():
        for path in files_under(root):
            rel = str(path.relative_to(root))
            hits = leaks_in(path.read_bytes(), run.planted) + leaks_in(rel.encode(), run.planted)
            if hits:
                bad[rel] = sorted(set(hits))
    assert not bad, json.dumps(bad, indent=1)


def test_torn_last_line_is_not_archived(run: Run) -> None:
    corpus = b"\n".join(run.plaintexts.values())
    assert run.planted.torn and not [v for v in run.planted.torn if v.encode() in corpus]


def stream_texts(plaintexts: dict[str, bytes]) -> Iterator[tuple[str, str, str]]:
    """(bucket key, kind, joined text) of every streamed model output in DeepSeek logs: the
    `texts`/`args` pieces of a compacted `*-chunks` record joined, and the deltas of consecutive
    `chunk` records (assistant/attempt) joined per block index."""
    for key, data in plaintexts.items():
        if b'"-chunks"' not in data and b'-chunks"' not in data and b'"chunk"' not in data:
            continue
        for line in data.splitlines():
            try:
                row = json.loads(line)
            except ValueError:
                continue
            stream = (row.get("data") or {}).get("stream") if isinstance(row, dict) else None
            if not isinstance(stream, list):
                continue
            deltas: dict[int, list[str]] = {}
            for rec in stream:
                if str(rec.get("type", "")).endswith("-chunks"):
                    yield key, "compacted", "".join(rec.get("texts") or rec.get("args") or [])
                elif rec.get("type") == "chunk":
                    chunk = rec.get("chunk", {})
                    piece = chunk.get("text") or chunk.get("argumentsDelta")
                    if isinstance(piece, str):
                        deltas.setdefault(chunk.get("index", -1), []).append(piece)
            for pieces in deltas.values():
                yield key, "deltas", "".join(pieces)


def stream_leaks(run: Run, kind: str) -> dict[str, list[str]]:
    bad: dict[str, list[str]] = {}
    seen = 0
    for key, k, text in stream_texts(run.plaintexts):
        if k == kind:
            seen += 1
            hits = leaks_in(text.encode(), run.planted)
            if hits:
                bad.setdefault(run.object_owner(key), []).extend(hits)
    assert seen, f"no {kind} stream found"
    return bad


# assistant/message.stream keeps the model's deltas "without joining delta boundaries": a secret the
# model wrote is spread over several strings, none of which alone matches a rule
def test_no_canary_in_compacted_stream_chunks_joined(run: Run) -> None:
    bad = stream_leaks(run, "compacted")
    assert not bad, json.dumps({k: sorted(set(v))[:6] + [f"... {len(set(v))} in all"] for k, v in bad.items()}, indent=1)


# assistant/attempt keeps each delta in its own {type: chunk, chunk: {type: text-delta, index, text}}
# record: a secret spread over consecutive records matched no rule until the walker joined the
# deltas of one block (jsondoc._add_deltas)
def test_no_canary_in_attempt_deltas_joined(run: Run) -> None:
    bad = stream_leaks(run, "deltas")
    assert not bad, json.dumps({k: sorted(set(v))[:6] + [f"... {len(set(v))} in all"] for k, v in bad.items()}, indent=1)


# ------------------------------------------------------------------ c. ids intact

def test_planted_ids_come_through_intact(run: Run) -> None:
    corpus = b"\n".join(run.plaintexts.values())
    missing = {value[:60]: where for value, where in run.planted.ids.items() if value.encode() not in corpus}
    assert not missing, json.dumps(missing, indent=1)


# ------------------------------------------------------------------ d. lineage

def test_lineage_has_exactly_the_seed_edges(run: Run) -> None:
    edges = {(e["child"], e["parent"]) for e in run.lineage["edges"]}
    assert edges == run.planted.edges, {"missing": sorted(run.planted.edges - edges),
                                        "unexpected": sorted(edges - run.planted.edges)}


def test_lineage_relations_are_the_seed_ones(run: Run) -> None:
    wrong = {f"{e['child']} -> {e['parent']}": e["relation"] for e in run.lineage["edges"]
             if (e["child"], e["parent"]) in run.planted.relations
             and e["relation"] not in run.planted.relations[(e["child"], e["parent"])]}
    assert not wrong, wrong


# ------------------------------------------------------------------ e. restore layout

def test_restore_exits_zero(run: Run) -> None:
    assert run.restore_codes and all(code == 0 for code in run.restore_codes.values()), run.restore_codes


def test_restore_lays_out_every_family_file_at_the_seed_path(run: Run) -> None:
    missing = {}
    for top, family in run.planted.families.items():
        root = run.restored[top]
        for key in family:
            for rel in run.planted.layout[key]:
                if restored_match(root, rel) is None:
                    missing[rel] = [str(p.relative_to(root)) for p in files_under(root)
                                    if p.name == Path(rel).name or key.split(":", 1)[1] in str(p)]
    assert not missing, json.dumps(missing, indent=1)


def test_restored_jsonl_lines_parse_and_keep_their_headers(run: Run) -> None:
    bad = {}
    for top, family in run.planted.families.items():
        root = run.restored[top]
        for key in family:
            path = restored_match(root, run.planted.layout[key][0])
            if path is None:
                continue
            lines = path.read_text(encoding="utf-8").splitlines()
            try:
                rows = [json.loads(line) for line in lines]
            except json.JSONDecodeError as err:
                bad[key] = f"line does not parse: {err}"
                continue
            if rows[0].get("type") != "session" or rows[0].get("id") != key.split(":", 1)[1]:
                bad[key] = f"header {rows[0].get('type')!r} id {rows[0].get('id')!r}"
    assert not bad, bad


def test_restored_pi_fork_header_still_names_its_source_file(run: Run) -> None:
    """parentSession is a path; after redaction it must still end in the source's file name."""
    p1 = run.planted.top_level[0]
    root = run.restored[p1]
    names = {Path(rel).name for rel in run.planted.layout[p1]}
    forks = [k for (child, parent) in run.planted.edges for k in (child,) if parent == p1]
    assert forks
    for key in forks:
        header = json.loads(restored_match(root, run.planted.layout[key][0]).read_text().splitlines()[0])
        assert Path(header["parentSession"]).name in names, header["parentSession"]


# ------------------------------------------------------------------ the walker fix, without the CLI

def test_walker_redacts_a_secret_spread_over_stream_pieces() -> None:
    from archiver.redact.base import RedactionReport
    from archiver.redact.redactor import build_redactor
    from archiver.redact.rules import RuntimeTerms

    red = build_redactor(["builtin:secrets", "builtin:pii", "builtin:paths"], b"k" * 32, RuntimeTerms(usernames=(USER,)))
    token, akia = "ghp_R8fJ2kLm9QwErTyUiOpAsDfGhJkLzXcVbN12", "AKIAQYLPMN5HHHFPZAM2"
    text = f"see /home/{USER}/work/x.py, token {token} and {akia} ok"
    pieces = [text[i:i + 5] for i in range(0, len(text), 5)]
    args = json.dumps({"command": f"cat /home/{USER}/.aws && echo {token}"})
    line = json.dumps({"type": "assistant/message", "seq": 4, "time": 1, "data": {"stream": [
        {"type": "text-chunks", "index": 0, "time0": 1, "dt": [1] * len(pieces), "texts": pieces},
        {"type": "tool-call-chunks", "index": 1, "time0": 1, "dt": [1, 1, 1], "id": "call_Xy12",
         "args": [args[:9], args[9:31], args[31:]]},
        {"type": "text-chunks", "index": 2, "time0": 1, "dt": [1, 1], "texts": ["nothing ", "here"]}]}}).encode()
    out = json.loads(red.redact_jsonl_line(line, RedactionReport()))
    stream = out["data"]["stream"]
    joined = "".join(stream[0]["texts"])
    assert len(stream[0]["texts"]) == len(pieces)            # the piece count (and so `dt`) is kept
    assert USER not in joined and token not in joined and akia not in joined, joined
    assert joined.startswith("see /home/") and "/work/x.py, token <GITHUB_TOKEN:" in joined and joined.endswith(" ok")
    joined_args = "".join(stream[1]["args"])
    assert USER not in joined_args and token not in joined_args and stream[1]["id"] == "call_Xy12"
    assert stream[2]["texts"] == ["nothing ", "here"]


def test_a_keyword_split_across_stream_pieces_alone_still_opens_the_line(tmp_path: Path) -> None:
    """The raw-line gate (jsondoc.needs_work) sees the pieces, not the text they stand for: a line
    whose only secret is a token cut inside its keyword (`gh` + `p_...`) must still be walked, by
    the redaction and by the fail-closed verify alike."""
    from archiver.redact.base import RedactionReport
    from archiver.redact.redactor import build_redactor
    from archiver.redact.rules import RuntimeTerms

    red = build_redactor(["builtin:secrets", "builtin:pii", "builtin:paths"], b"k" * 32, RuntimeTerms())
    token = "ghp_R8fJ2kLm9QwErTyUiOpAsDfGhJkLzXcVbN12"
    pieces = ["ok gh", token[2:20], token[20:], " done"]
    line = json.dumps({"type": "assistant/message", "seq": 4, "time": 1, "data": {"stream": [
        {"type": "text-chunks", "index": 0, "time0": 1, "dt": [1] * 4, "texts": pieces}]}}).encode()
    assert not red.engine.any_keyword(line)  # no keyword in the raw bytes: only the pieces' marker opens it
    out = red.redact_jsonl_line(line, RedactionReport())
    joined = "".join(json.loads(out)["data"]["stream"][0]["texts"])
    assert token not in joined and "<GITHUB_TOKEN:" in joined, joined
    leftover = tmp_path / "left.jsonl"  # the same line as an output that kept the token
    leftover.write_bytes(line + b"\n")
    assert red.verify_file(leftover, "jsonl") != []


def test_walker_joins_the_deltas_of_one_block_across_records() -> None:
    """assistant/attempt: one record per delta; a token cut over three text deltas and a tool call's
    arguments cut over three argument deltas (the first one starting with `{`) come out redacted,
    each block's deltas keeping their count, and another block's deltas untouched."""
    from archiver.redact.base import RedactionReport
    from archiver.redact.redactor import build_redactor
    from archiver.redact.rules import RuntimeTerms

    red = build_redactor(["builtin:secrets", "builtin:pii", "builtin:paths"], b"k" * 32, RuntimeTerms(usernames=(USER,)))
    token = "ghp_R8fJ2kLm9QwErTyUiOpAsDfGhJkLzXcVbN12"
    text = ["the key is gh", token[2:22], token[22:] + " ok"]
    args = ['{"command": "echo gh', token[2:30], token[30:] + '"}']

    def chunk(kind: str, index: int, **kw: str) -> dict[str, object]:
        return {"type": "chunk", "time": 1, "chunk": {"type": kind, "index": index, **kw}}

    stream = ([chunk("text-delta", 0, text=t) for t in text] + [chunk("text-delta", 1, text="nothing here")]
              + [chunk("tool-call-delta", 2, id="call_Q1", argumentsDelta=a) for a in args])
    line = json.dumps({"type": "assistant/attempt", "seq": 9, "time": 1,
                       "data": {"turn": 1, "step": 1, "stream": stream}}).encode()
    out = json.loads(red.redact_jsonl_line(line, RedactionReport()))["data"]["stream"]
    joined_text = "".join(r["chunk"]["text"] for r in out[:3])
    joined_args = "".join(r["chunk"]["argumentsDelta"] for r in out[4:])
    assert token not in joined_text and joined_text.startswith("the key is <GITHUB_TOKEN:"), joined_text
    assert token not in joined_args and "<GITHUB_TOKEN:" in joined_args, joined_args
    assert out[3]["chunk"]["text"] == "nothing here" and len(out) == len(stream)
