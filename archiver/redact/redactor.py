"""`RuleRedactor`: the rule engine behind the `Redactor` protocol, for every artifact format.

Carriers in the report: "jsonl", "jsonl:key", "jsonl:raw" (a line that is not
JSON), "json", "json:key", "json-in-string", "text", "path",
"sqlite:<table>.<column>" (":key" for JSON keys inside a cell), "protobuf".
Nothing here stores or logs a matched value.
"""

from __future__ import annotations

import io
import shutil
from collections import Counter
from pathlib import Path
from typing import BinaryIO, Iterator

import re2

from archiver.model import Format
from archiver.redact.base import RedactionReport
from archiver.redact.engine import MODE_PATHS, Engine
from archiver.redact.presidio_engine import PresidioOptions, PresidioRedactor
from archiver.redact.pseudonym import Pseudonymizer
from archiver.redact.rules import Rule, RuntimeTerms, load_rules
from archiver.redact.walkers import protobuf
from archiver.redact.walkers.jsondoc import JsonRedactor
from archiver.redact.walkers.sqlite import redact_sqlite, scan_sqlite
from archiver.redact.walkers.text import redact_stream

JSON_FILE_MAX = 64 << 20  # larger JSON files are redacted as text (streaming)
BATCH_BYTES = 256 << 10  # JSONL lines are redacted in batches: one engine pass per batch
BATCH_LINES = 64
_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
_HEX_JSON = re2.compile(r"^(?:7[bB]|5[bB])(?:[0-9a-fA-F]{2})+$")


class RuleRedactor:
    """Deterministic for a given team key and rule set; JSONL redaction is line-local."""

    def __init__(self, rules: list[Rule], pseudonyms: Pseudonymizer,
                 presidio: PresidioOptions | None = None) -> None:
        self.rules = rules
        self.pseudonyms = pseudonyms
        self.engine = Engine(rules, pseudonyms)
        self.presidio = PresidioRedactor(presidio, pseudonyms) if presidio and presidio.enabled else None
        self.json = JsonRedactor(
            self.engine,
            prose=self.presidio.redact if self.presidio else None,
            prose_max=presidio.max_chars if presidio else 4096,
        )
        self._warnings: Counter[str] = Counter()
        self.high_confidence = frozenset(r.id for r in rules if r.confidence == "high")
        self._verifier: RuleRedactor | None = None

    @property
    def warnings(self) -> Counter[str]:
        """Counts of non-fatal problems (unparsable JSONL lines, malformed protobuf, ...)."""
        return self._warnings + self.json.warnings

    # ------------------------------------------------------------------ protocol

    def redact_text(self, text: str, report: RedactionReport, carrier: str = "text") -> str:
        out = self.engine.redact(text, report, carrier)
        if self.presidio is not None:
            out = self.presidio.redact(out, report, carrier)  # type: ignore[arg-type]
        return out  # type: ignore[return-value]

    def redact_jsonl_line(self, line: bytes, report: RedactionReport, carrier: str = "jsonl") -> bytes:
        return self.json.redact_line(line, report, carrier)

    def redact_jsonl_lines(self, lines: list[bytes], report: RedactionReport, carrier: str = "jsonl") -> list[bytes]:
        """Many lines (without newlines) at once: the same bytes as line by line, in one engine pass."""
        return self.json.redact_lines(lines, report, carrier)

    def redact_file(self, src: Path, dst: Path, fmt: Format, report: RedactionReport) -> None:
        if fmt in ("jsonl", "jsonl.zst"):
            self._redact_jsonl_file(src, dst, report)
        elif fmt == "json":
            self._redact_json_file(src, dst, report)
        elif fmt == "text":
            with src.open("rb") as fi, dst.open("wb") as fo:
                redact_stream(fi, fo, lambda b: self.engine.redact_bytes(b, report, "text"))
        elif fmt == "sqlite":
            redact_sqlite(src, dst, lambda v, c: self._cell(v, c, report), self._warnings)
        elif fmt == "binary":
            shutil.copyfile(src, dst)
        else:
            raise ValueError(f"{src}: unknown artifact format {fmt!r}")

    def redact_relpath(self, relpath: str, report: RedactionReport) -> str:
        """Each path component with the path and runtime-term rules (Claude project keys, ...)."""
        return "/".join(
            self.engine.redact(part, report, "path", MODE_PATHS) if part else part  # type: ignore[misc]
            for part in relpath.split("/")
        )

    def verify_file(self, path: Path, fmt: Format) -> list[str]:
        # only high-confidence rules can hold a session back: scan with just those
        # (no presidio, none of the slow generic rules), a fraction of a redaction pass
        if self._verifier is None:
            self._verifier = RuleRedactor([r for r in self.rules if r.id in self.high_confidence], self.pseudonyms)
        report = self._verifier.scan_file(path, fmt)
        return sorted({rule for (rule, _carrier) in report.counts if rule in self.high_confidence})

    # ------------------------------------------------------------------ helpers

    def scan_file(self, path: Path, fmt: Format) -> RedactionReport:
        """What redacting `path` again would replace (counts only; nothing is written)."""
        report = RedactionReport()
        if fmt in ("jsonl", "jsonl.zst"):
            with _open_maybe_zstd(path) as f:
                batch: list[bytes] = []
                for line in f:
                    batch.append(line.rstrip(b"\n"))
                    if len(batch) >= BATCH_LINES:
                        self.json.redact_lines(batch, report)
                        batch = []
                self.json.redact_lines(batch, report)
        elif fmt == "json":
            self._redact_json_file(path, None, report)
        elif fmt == "text":
            with path.open("rb") as fi:
                redact_stream(fi, _Discard(), lambda b: self.engine.redact_bytes(b, report, "text"))
        elif fmt == "sqlite":
            scan_sqlite(path, lambda v, c: self._cell(v, c, report))
        return report

    def redact_bytes(self, data: bytes, report: RedactionReport, carrier: str = "text") -> bytes:
        """Text or JSON given as bytes (BLOBs, protobuf strings): JSON keeps its layout."""
        head = data[:64].lstrip()
        if head[:1] in (b"{", b"["):
            if not self.json.needs_work(data):
                return data
            out = self.json.redact_doc(data, report, carrier, keep_layout=True)
            if out is not None:
                return out
        return self.engine.redact_bytes(data, report, carrier)

    def redact_protobuf(self, data: bytes, report: RedactionReport, carrier: str = "protobuf") -> bytes:
        """A protobuf message; malformed input comes back unchanged and is counted as a warning."""
        out = protobuf.redact_message(data, lambda b: self.redact_bytes(b, report, carrier))
        if out is None:
            self._warnings["protobuf-malformed"] += 1
            return data
        return out

    def _cell(self, value: object, carrier: str, report: RedactionReport) -> object:
        if type(value) is str:
            if len(value) >= 4 and _HEX_JSON.search(value) is not None:  # Cursor meta: hex-encoded JSON
                return self._hex_json(value, carrier, report)
            data = value.encode("utf-8", "surrogatepass")
            out = self.redact_bytes(data, report, carrier)
            return value if out is data else out.decode("utf-8", "surrogatepass")
        if type(value) is bytes:
            if not value:
                return value
            if protobuf.is_text(value, strict=True):
                return self.redact_bytes(value, report, carrier)
            out = protobuf.redact_message(value, lambda b: self.redact_bytes(b, report, carrier + ":protobuf"))
            if out is not None:
                return out
            if protobuf.is_text(value, strict=False):
                return self.redact_bytes(value, report, carrier)
        return value

    def _hex_json(self, value: str, carrier: str, report: RedactionReport) -> str:
        raw = bytes.fromhex(value)
        out = self.redact_bytes(raw, report, carrier)
        if out is raw:
            return value
        hexed = out.hex()
        return hexed if not value.isupper() else hexed.upper()

    def _redact_jsonl_file(self, src: Path, dst: Path, report: RedactionReport) -> None:
        with src.open("rb") as probe:
            compressed = probe.read(4) == _ZSTD_MAGIC
        with _open_maybe_zstd(src) as fi, dst.open("wb") as raw_out:
            fo: BinaryIO = raw_out
            writer = None
            if compressed:
                import zstandard

                writer = zstandard.ZstdCompressor(level=3).stream_writer(raw_out, closefd=False)
                fo = writer  # type: ignore[assignment]
            pending: list[bytes] = []
            ends: list[bytes] = []
            size = 0
            for line in fi:
                if line.endswith(b"\n"):
                    pending.append(line[:-1])
                    ends.append(b"\n")
                else:
                    pending.append(line)
                    ends.append(b"")
                size += len(line)
                if size >= BATCH_BYTES or len(pending) >= BATCH_LINES:
                    fo.write(self._redact_batch(pending, ends, report))
                    pending, ends, size = [], [], 0
            fo.write(self._redact_batch(pending, ends, report))
            if writer is not None:
                writer.close()

    def _redact_batch(self, lines: list[bytes], ends: list[bytes], report: RedactionReport) -> bytes:
        if not lines:
            return b""
        out = self.json.redact_lines(lines, report)
        return b"".join(x for pair in zip(out, ends) for x in pair)

    def _redact_json_file(self, src: Path, dst: Path | None, report: RedactionReport) -> None:
        if src.stat().st_size > JSON_FILE_MAX:
            with src.open("rb") as fi:
                if dst is None:
                    redact_stream(fi, _Discard(), lambda b: self.engine.redact_bytes(b, report, "json"))
                else:
                    with dst.open("wb") as fo:
                        redact_stream(fi, fo, lambda b: self.engine.redact_bytes(b, report, "json"))
            return
        raw = src.read_bytes()
        out = self.json.redact_doc(raw, report, "json", keep_layout=True) if self.json.needs_work(raw) else raw
        if out is None:
            out = self.engine.redact_bytes(raw, report, "json")
        if dst is not None:
            dst.write_bytes(out)


class _Discard(io.RawIOBase):
    def writable(self) -> bool:
        return True

    def write(self, b: bytes) -> int:  # type: ignore[override]
        return len(b)


class _open_maybe_zstd:
    """Iterate the lines of a file that may be zstd-compressed (Codex rollouts after 7 idle days)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._files: list[object] = []

    def __enter__(self) -> Iterator[bytes]:
        f = self.path.open("rb")
        self._files.append(f)
        if f.read(4) == _ZSTD_MAGIC:
            f.seek(0)
            import zstandard

            reader = zstandard.ZstdDecompressor().stream_reader(f, read_across_frames=True)
            buffered = io.BufferedReader(reader, 1 << 20)  # type: ignore[arg-type]
            self._files.insert(0, buffered)
            return iter(buffered)
        f.seek(0)
        return iter(f)

    def __exit__(self, *exc: object) -> None:
        for f in self._files:
            f.close()  # type: ignore[attr-defined]


def build_redactor(rule_specs: list[str], pseudonym_key: bytes, terms: RuntimeTerms,
                   presidio: PresidioOptions | None = None) -> RuleRedactor:
    """Load the packs (`builtin:<name>` or paths) plus the runtime-term rules; raise RuleError on problems."""
    return RuleRedactor(load_rules(rule_specs, terms), Pseudonymizer(pseudonym_key), presidio)
