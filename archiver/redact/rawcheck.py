"""The second, independent half of the fail-closed check: the redacted output scanned as the
bytes it is, with no format walker.

The walkers decide what to look at (which JSON values, which BLOBs are text); a blind spot
there (a string skipped as an image, a repeated key, a BLOB taken for binary) is a blind
spot of a re-scan through the same walker too. This pass reads the file in overlapping
blocks and runs the secret rules of high confidence over them as text: a token's own shape
(`Rule.secret_shape`, scanned as MODE_OPAQUE). Paths, PII and runtime terms are left out:
raw bytes hold numbers the walkers never scan (a float's digits pass the card rules), ids
that keep them by design (SECURITY.md §3) and binary payloads (an e-mail in a PNG text
chunk) that a user could never get archived. Matches inside a long base64 run (signatures,
encrypted content) are left out too, as the walkers leave those runs.
Base64 of whole files (`Engine.secret_runs`, the decode rules): a run whose decoded text holds a
secret is found here too, when the block holds it whole (a run cut by a block edge is left to
the block that holds it whole; one longer than OVERLAP across an edge is seen by neither).
What it cannot see: a secret written with escapes (`\\u0067hp_`), inside compressed or
otherwise encoded bytes, glued to a long base64 run, or split across SQLite pages.
"""

from __future__ import annotations

from pathlib import Path
from typing import BinaryIO, Iterator

from archiver.redact.engine import MODE_OPAQUE, Engine
from archiver.redact.walkers.jsondoc import OPAQUE_BLOB_MIN
from archiver.snapshot import ZSTD_MAGIC

BLOCK = 256 << 10  # small: the check runs in a worker beside what its redaction already holds
OVERLAP = 8 << 10  # a token longer than this across a block edge is not seen whole
RAW_FORMATS = ("jsonl", "jsonl.zst", "json", "text", "sqlite")
_BASE64 = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=_-")
_BASE64_BYTES = bytes(sorted(_BASE64))
_WRAPPED_BASE64 = _BASE64 | frozenset(b"\r\n\\")  # \\n: a line break inside a JSON string


def _blocks(f: BinaryIO) -> Iterator[tuple[bytes, bool]]:
    """(block with the previous one's last OVERLAP bytes before it, whether more follows)."""
    tail = b""
    block = f.read(BLOCK)
    while block:
        nxt = f.read(BLOCK)
        yield tail + block, bool(nxt)
        tail = block[-OVERLAP:]
        block = nxt


def shape_engine(engine: Engine) -> Engine:
    """An engine of just the secret-shape rules of `engine`, in their order: its MODE_OPAQUE scans
    find what `engine` finds there (no other rule applies to that mode), while its gates (keyword
    Set, the weak groups' alternations) are not opened by the PII, path and term rules on every
    block. The rules' programs are shared with the other engines (rules.rule_program); only the
    gates are compiled again, and must be: a view of `engine` (Engine.only) would search raw
    256 KB blocks, where every keyword of a stretch of transcript occurs at once, with the
    redaction engine's many-match Sets, whose DFAs then grew from 3.4 to 21.7 MB and 1.9 to
    7.8 MB in a worker over 60 MB of transcripts (bench/re2_memory.py); this engine's own cost 2.3 MB."""
    return Engine([r for r in engine.rules if r.secret_shape and r.decode is None], engine.pseudonyms)


def raw_leftovers(engine: Engine, path: Path, shapes: Engine | None = None) -> set[str]:
    """Ids of the secret-shape rules of `engine` (MODE_OPAQUE: the verifier's own engine, or
    `shapes`, its `shape_engine`, which finds the same) that still match somewhere in the file's
    bytes, and of its decode rules whose decoded runs do (always `engine`: they rescan the
    decoded text with all its rules). zstd output is read decompressed."""
    shapes = engine if shapes is None else shapes
    found: set[str] = set()
    with path.open("rb") as f:
        compressed = f.read(4) == ZSTD_MAGIC
        f.seek(0)
        src: BinaryIO = f
        if compressed:
            import zstandard

            src = zstandard.ZstdDecompressor().stream_reader(f, read_across_frames=True)  # type: ignore[assignment]
        for i, (buf, more) in enumerate(_blocks(src)):  # type: ignore[union-attr]
            # decoded secrets: a run touching a block edge may be cut (its neighbour sees it whole)
            found.update(rid for s, e, rid in engine.secret_runs(buf)
                         if (s > 0 or i == 0) and (e < len(buf) or not more))
            if len(buf.translate(None, _BASE64_BYTES)) * 20 < len(buf):
                continue  # an image or blob: a match could only lie in a long base64 run
            if shapes.may_match(buf):
                # a match that starts early in a later block lay whole in the one before, which saw
                # its left context too; here it may be the tail of a token cut by the block edge
                skip = 0 if i == 0 else OVERLAP // 2
                found.update(m.rule_id for m in shapes.scan_bytes(buf, MODE_OPAQUE, ansi_text=False)
                             if m.start >= skip and not _in_opaque_run(buf, m.start, m.end))
    return found


def _in_opaque_run(buf: bytes, start: int, end: int) -> bool:
    """Does [start, end) lie in a run of OPAQUE_BLOB_MIN or more base64 characters, line breaks of
    wrapped base64 included (a signature, encrypted content, `base64 logo.png`: the walkers
    leave those alone, a chance match must not hold a session)?"""
    if not all(b in _BASE64 for b in buf[start:end]):
        return False
    lo = start
    while lo > 0 and start - lo < OPAQUE_BLOB_MIN and buf[lo - 1] in _WRAPPED_BASE64:
        lo -= 1
    hi = end
    while hi < len(buf) and hi - lo < OPAQUE_BLOB_MIN and buf[hi] in _WRAPPED_BASE64:
        hi += 1
    return hi - lo >= OPAQUE_BLOB_MIN
