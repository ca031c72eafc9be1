"""`RuleRedactor`: the rule engine behind the `Redactor` protocol, for every artifact format.

Carriers in the report: "jsonl", "jsonl:key", "jsonl:raw" (a line that is not
JSON), "json", "json:key", "json-in-string", "text", "path", "git-object",
"sqlite:<table>.<column>" (":key" for JSON keys inside a cell), "protobuf".
Nothing here stores or logs a matched value.
"""

from __future__ import annotations

import io
import os
import shutil
import tempfile
import threading
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, Callable, Iterator

import orjson
import re2

from archiver.redact import pathids, rawcheck
from archiver.redact.base import RedactionReport
from archiver.redact.echoes import with_echoes
from archiver.redact.engine import MODE_ALL, MODE_PATHS, Engine, Match
from archiver.redact.pathids import PathIds
from archiver.redact.presidio_engine import PresidioOptions, PresidioRedactor
from archiver.redact.pseudonym import Pseudonymizer
from archiver.redact.rules import Rule, RuntimeTerms, load_rules
from archiver.redact.walkers import gitobject, gitpack, longjson, protobuf
from archiver.redact.walkers.jsondoc import JsonRedactor
from archiver.redact.walkers.sqlite import redact_sqlite, scan_sqlite
from archiver.redact.walkers.text import redact_any_encoding, redact_stream
from archiver.snapshot import LONG_LINE, ZSTD_MAGIC, iter_lines

if TYPE_CHECKING:  # not at run time: a redaction worker imports no pydantic (workers.py)
    from archiver.model import Format

JSON_FILE_MAX = 8 << 20  # larger JSON files are redacted from the file, in bounded memory (walkers/longjson)
BATCH_BYTES = 256 << 10  # JSONL lines are redacted in batches: one engine pass per batch
BATCH_LINES = 64
_HEX_JSON = re2.compile(r"^(?:7[bB]|5[bB])(?:[0-9a-fA-F]{2})+$")
_HEX_JSON_HEADS = frozenset(("7b", "7B", "5b", "5B"))


def _is_hex_json(value: str) -> bool:
    """Is value hex-encoded JSON (Cursor's meta)? The first two characters are looked at before
    the regex: the wrapper would encode every long cell to UTF-8 to search it."""
    return len(value) >= 4 and value[:2] in _HEX_JSON_HEADS and _HEX_JSON.search(value) is not None


class RuleRedactor:
    """Deterministic for a given team key and rule set; JSONL redaction is line-local."""

    def __init__(self, rules: list[Rule], pseudonyms: Pseudonymizer,
                 presidio: PresidioOptions | None = None, engine: Engine | None = None) -> None:
        """`engine`: an engine of exactly `rules` to use (a view, `Engine.only`), instead of one
        built from them."""
        self.rules = rules
        self.pseudonyms = pseudonyms
        self.engine = Engine(rules, pseudonyms) if engine is None else engine
        self._path_ids = PathIds(rules, pseudonyms)
        self.presidio = PresidioRedactor(presidio, pseudonyms) if presidio and presidio.enabled else None
        self.json = JsonRedactor(
            self.engine,
            prose=self.presidio.redact if self.presidio else None,
            prose_max=presidio.max_chars if presidio else 4096,
        )
        self._warnings: Counter[str] = Counter()
        self.high_confidence = frozenset(r.id for r in rules if r.confidence == "high")
        self._verifier: RuleRedactor | None = None
        self._shapes: Engine | None = None  # the raw half's engine (rawcheck.shape_engine)

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

    def redact_jsonl_span(self, f: BinaryIO, start: int, end: int, write: Callable[[bytes], object],
                          report: RedactionReport, carrier: str = "jsonl") -> None:
        """One JSONL line too long to hold (bytes [start, end) of f, without its newline), redacted
        from the file in bounded memory; the output goes to `write` in pieces."""
        longjson.redact_span(self.json, f, start, end, write, report, carrier)

    def redact_file(self, src: Path, dst: Path, fmt: Format, report: RedactionReport) -> None:
        if fmt == "text":
            fmt = _text_kind(src)  # a text sidecar that is JSON or JSONL goes through the JSON walker
        if fmt in ("jsonl", "jsonl.zst"):
            self._redact_jsonl_file(src, dst, report)
        elif fmt == "json":
            self._redact_json_file(src, dst, report)
        elif fmt == "text":
            with src.open("rb") as fi, dst.open("wb") as fo:
                redact_stream(fi, fo, lambda b: self.engine.redact_bytes(b, report, "text"))
        elif fmt == "sqlite":
            redact_sqlite(src, dst, lambda v, c, k=None: self._cell(v, c, report, k), self._warnings,
                          lambda items: self._cells(items, report))
        elif fmt == "git-object":
            self._git_object(src, dst, report)
        elif fmt == "git-pack":
            gitpack.redact_pack(src, dst, *self._git_callbacks(report))
        elif fmt == "binary":
            shutil.copyfile(src, dst)
        else:
            raise ValueError(f"{src}: unknown artifact format {fmt!r}")

    def redact_relpath(self, relpath: str, report: RedactionReport) -> str:
        """Each path component with the path and runtime-term rules (Claude project keys, ...), and
        the national ids of a component that names them or whose folder does (pathids.py)."""
        parts = relpath.split("/")
        return "/".join(self._component(part, parts[k - 1] if k else "", report) if part else part
                        for k, part in enumerate(parts))

    def _component(self, part: str, parent: str, report: RedactionReport) -> str:
        buf = part.encode("utf-8", "surrogatepass")
        matches = self.engine.scan_bytes(buf, MODE_PATHS)
        if matches and matches[-1].end == len(buf):
            matches = self._before_extension(part, buf, matches)
        ids = self._path_ids.find(part, parent)
        if ids:
            taken = [(m.start, m.end) for m in matches]
            for s, e, rule in ids:
                bs = len(part[:s].encode("utf-8", "surrogatepass"))
                be = bs + len(part[s:e].encode("utf-8", "surrogatepass"))
                if all(be <= a or b <= bs for a, b in taken):
                    matches.append(Match(rule.id, bs, be, rule.label, rule.replace))
            matches.sort(key=lambda m: m.start)
        if not matches:
            return part
        return self.engine.apply(buf, matches, report, "path").decode("utf-8", "surrogatepass")

    def _before_extension(self, part: str, buf: bytes, matches: list[Match]) -> list[Match]:
        """A name that ends with an e-mail address and a file extension (`jo@corp.io.txt`): the
        matches of the name without its extensions, so the address is the one a transcript names
        and the restored file keeps its type."""
        cut = pathids.address_end(part)
        if cut == len(part):
            return matches
        stem = part[:cut].encode("utf-8", "surrogatepass")
        return self.engine.scan_bytes(stem, MODE_PATHS)

    def verify_file(self, path: Path, fmt: Format) -> list[str]:
        # only high-confidence rules can hold a session back: scan with just those
        # (no presidio, none of the slow generic rules), a fraction of a redaction pass
        if self._verifier is None:
            self._verifier = RuleRedactor([r for r in self.rules if r.id in self.high_confidence], self.pseudonyms,
                                          engine=self.engine.only(self.high_confidence))
        report = self._verifier.scan_file(path, fmt)
        found = {rule for (rule, _carrier) in report.counts if rule in self.high_confidence}
        if not found and fmt in rawcheck.RAW_FORMATS:
            if self._shapes is None:
                self._shapes = rawcheck.shape_engine(self._verifier.engine)
            found = rawcheck.raw_leftovers(self._verifier.engine, path, self._shapes)
        return sorted(found)

    # ------------------------------------------------------------------ helpers

    def scan_file(self, path: Path, fmt: Format) -> RedactionReport:
        """What redacting `path` again would replace (counts only; nothing is written)."""
        report = RedactionReport()
        if fmt == "text":
            fmt = _text_kind(path)  # read as redact_file reads it
        if fmt in ("jsonl", "jsonl.zst"):
            self._jsonl_pass(path, None, report)
        elif fmt == "json":
            self._redact_json_file(path, None, report)
        elif fmt == "text":
            with path.open("rb") as fi:
                redact_stream(fi, _Discard(), lambda b: self.engine.redact_bytes(b, report, "text"))
        elif fmt == "sqlite":
            scan_sqlite(path, lambda v, c, k=None: self._cell(v, c, report, k), lambda items: self._cells(items, report))
        elif fmt == "git-object":
            self._git_object(path, None, report)
        elif fmt == "git-pack":  # the archived form: a tar of loose objects, each scanned as one
            gitpack.scan_tar(path, *self._git_callbacks(report), self._warnings)
        return report

    def _git_object(self, src: Path, dst: Path | None, report: RedactionReport) -> None:
        gitobject.redact_loose_object(src, dst, *self._git_callbacks(report), self._warnings)

    def _git_callbacks(self, report: RedactionReport) -> tuple[gitobject.RedactBytes, gitobject.RedactStream]:
        """How a git object's body is redacted, loose or from a pack alike."""
        return (lambda b: self.redact_bytes(b, report, "git-object"),
                lambda fi, fo: redact_stream(fi, fo, lambda b: self.engine.redact_bytes(b, report, "git-object")))

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

    def redact_protobuf(self, data: bytes, report: RedactionReport, carrier: str = "protobuf",
                        schema: protobuf.Schema | None = None) -> bytes:
        """A protobuf message (`schema`: what is known of its fields, see walkers/protobuf.py);
        malformed input comes back unchanged and is counted as a warning."""
        out = protobuf.redact_message(data, self._blob_leaf(report, carrier), schema=schema)
        if out is None:
            self._warnings["protobuf-malformed"] += 1
            return data
        return out

    def _cell(self, value: object, carrier: str, report: RedactionReport, key: str | None = None) -> object:
        if type(value) is str:
            if _is_hex_json(value):  # Cursor meta: hex-encoded JSON
                return self._hex_json(value, carrier, report)
            if key is not None and value and value[:1] not in "{[":
                return self._keyed_cell(value, key, carrier, report)
            data = value.encode("utf-8", "surrogatepass")
            out = self.redact_bytes(data, report, carrier)
            return value if out is data else out.decode("utf-8", "surrogatepass")
        if type(value) is bytes:
            schema = protobuf.BLOB_SCHEMAS.get(carrier)  # Cursor's blobs.data: which fields are messages
            what, fields = protobuf.kind(value, schema)
            if what == "message":
                out = protobuf.redact_message(value, self._blob_leaf(report, carrier + ":protobuf"), fields=fields,
                                              schema=schema)
                return value if out is None else out
            if what == "text":
                return self._blob_leaf(report, carrier)(value)
        return value

    def _cells(self, items: list[tuple[object, str, str | None]], report: RedactionReport) -> list[object]:
        """_cell over the text cells of a batch of rows: the cells that `_cell` would redact as one
        JSON document each (message and part rows) go through the JSON walker together, in
        batches as JSONL lines do (one engine pass each); the plain text cells (ids, titles,
        folders) through one engine pass of their own; every other cell one by one."""
        out: list[object] = [None] * len(items)
        docs: list[tuple[int, bytes, str]] = []
        texts: list[tuple[int, bytes]] = []
        for n, (value, carrier, key) in enumerate(items):
            data = self._json_cell(value, key)
            if data is None:
                text = self._text_cell(value, key)
                if text is None:
                    out[n] = self._cell(value, carrier, report, key)
                else:
                    texts.append((n, text))
            elif not self.json.needs_work(data):
                out[n] = value
            else:
                docs.append((n, data, carrier))
        k = 0
        while k < len(docs):
            size, end = 0, k
            while end < len(docs) and end - k < BATCH_LINES and size < BATCH_BYTES:
                size += len(docs[end][1])
                end += 1
            chunk = docs[k:end]
            news = self.json.redact_docs([d for _, d, _ in chunk], report, [c for _, _, c in chunk])
            for (n, data, carrier), new in zip(chunk, news):
                if new is None:  # not JSON after all: as text
                    new = self.engine.redact_bytes(data, report, carrier)
                value = items[n][0]
                out[n] = new if type(value) is bytes else value if new is data else new.decode("utf-8", "surrogatepass")
            k = end
        if texts:
            self._text_cells(texts, items, out, report)
        return out

    def _text_cells(self, texts: list[tuple[int, bytes]], items: list[tuple[object, str, str | None]],
                    out: list[object], report: RedactionReport) -> None:
        """Plain text cells as `_cell` redacts each (engine.redact_bytes, echoes included), in one
        scan_segments pass: its matches are those of each string scanned alone."""
        found = self.engine.scan_segments([data for _, data in texts], [MODE_ALL] * len(texts))
        for j, (n, data) in enumerate(texts):
            value, carrier, _key = items[n]
            ms = found.get(j)
            if ms:
                ms = with_echoes(data, ms)
            out[n] = self.engine.apply(data, ms, report, carrier).decode("utf-8", "surrogatepass") if ms else value

    @staticmethod
    def _text_cell(value: object, key: str | None) -> bytes | None:
        """The bytes of a text cell that `_cell` hands to engine.redact_bytes as they are (not
        hex-encoded JSON, not scanned under a secret-like name, not JSON, no NUL, which a lone
        scan reads as a line end), if it is one; else None. Called for cells _json_cell passed."""
        if type(value) is not str or not value:
            return None
        if _is_hex_json(value) or (key is not None and value[:1] not in "{["):
            return None
        data = value.encode("utf-8", "surrogatepass")
        if b"\x00" in data or data[:64].lstrip()[:1] in (b"{", b"["):
            return None
        return data

    @staticmethod
    def _json_cell(value: object, key: str | None) -> bytes | None:
        """The bytes `_cell` hands to redact_bytes as a JSON document (text starting with { or [,
        a BLOB of UTF-8 text), if it does; None for every other cell."""
        if type(value) is str:
            if _is_hex_json(value) or (key is not None and value and value[:1] not in "{["):
                return None
            data = value.encode("utf-8", "surrogatepass")
        elif type(value) is bytes:
            if protobuf.kind(value)[0] != "text":
                return None
            if not value.isascii():
                try:
                    value.decode("utf-8")
                except UnicodeDecodeError:
                    return None  # Latin-1 too: redact_any_encoding's second pass
            data = value
        else:
            return None
        return data if data[:64].lstrip()[:1] in (b"{", b"[") else None

    def _keyed_cell(self, value: str, key: str, carrier: str, report: RedactionReport) -> str:
        """A text cell whose column (or kv name) is secret-like (`secret`, `api_key`): scanned as
        the JSON walker scans `{"<key>": "<value>"}`, so a bare value (a share secret, a UUID
        token) is judged with its name, as it would be in a JSON record."""
        doc = orjson.dumps({key: value})
        if not self.json.needs_work(doc):
            return value
        out = self.json.redact_doc(doc, report, carrier, keep_layout=True)
        if out is None or out == doc:
            return value
        new = orjson.loads(out).get(key)
        return new if isinstance(new, str) else value

    def _blob_leaf(self, report: RedactionReport, carrier: str) -> Callable[[bytes], bytes]:
        """redact_bytes for bytes that may be single-byte text (Latin-1, CP1252) as well as UTF-8."""
        return lambda b: redact_any_encoding(b, lambda x: self.redact_bytes(x, report, carrier))

    def _hex_json(self, value: str, carrier: str, report: RedactionReport) -> str:
        raw = bytes.fromhex(value)
        out = self._blob_leaf(report, carrier)(raw)
        if out is raw:
            return value
        hexed = out.hex()
        return hexed if not value.isupper() else hexed.upper()

    def _redact_jsonl_file(self, src: Path, dst: Path, report: RedactionReport) -> None:
        with src.open("rb") as probe:
            compressed = probe.read(4) == ZSTD_MAGIC
        with dst.open("wb") as raw_out:
            fo: BinaryIO = raw_out
            writer = None
            if compressed:
                import zstandard

                writer = zstandard.ZstdCompressor(level=3).stream_writer(raw_out, closefd=False)
                fo = writer  # type: ignore[assignment]
            self._jsonl_pass(src, fo, report)
            if writer is not None:
                writer.close()

    def _jsonl_pass(self, src: Path, fo: BinaryIO | None, report: RedactionReport) -> None:
        """Redact the lines of a (possibly zstd-compressed) JSONL file into fo (None: only count)."""
        write = fo.write if fo is not None else _discard
        pending: list[bytes] = []
        ends: list[bytes] = []
        size = 0
        with _jsonl_items(src) as items:
            for line in items:
                if type(line) is not bytes:  # (file, start, end): a line too long to hold
                    if pending:
                        write(self._redact_batch(pending, ends, report))
                        pending, ends, size = [], [], 0
                    f, a, b = line
                    f.seek(max(a, b - 2))
                    tail = f.read(b - max(a, b - 2))
                    eol = b"\r\n" if tail.endswith(b"\r\n") else b"\n" if tail.endswith(b"\n") else b""
                    self.redact_jsonl_span(f, a, b - len(eol), write, report)
                    write(eol)
                    continue
                if line.endswith(b"\n"):
                    pending.append(line[:-1])
                    ends.append(b"\n")
                else:
                    pending.append(line)
                    ends.append(b"")
                size += len(line)
                if size >= BATCH_BYTES or len(pending) >= BATCH_LINES:
                    write(self._redact_batch(pending, ends, report))
                    pending, ends, size = [], [], 0
        write(self._redact_batch(pending, ends, report))

    def _redact_batch(self, lines: list[bytes], ends: list[bytes], report: RedactionReport) -> bytes:
        if not lines:
            return b""
        out = self.json.redact_lines(lines, report)
        both: list[bytes] = [b""] * (2 * len(out))  # line, end, line, end, ...: one join, no generator
        both[::2] = out
        both[1::2] = ends
        return b"".join(both)

    def _redact_json_file(self, src: Path, dst: Path | None, report: RedactionReport) -> None:
        size = src.stat().st_size
        if size > JSON_FILE_MAX:  # from the file in bounded memory: structure kept, long strings streamed
            with src.open("rb") as fi:
                if dst is None:
                    longjson.redact_span(self.json, fi, 0, size, _discard, report, "json", keep_layout=True)
                else:
                    with dst.open("wb") as fo:
                        longjson.redact_span(self.json, fi, 0, size, fo.write, report, "json", keep_layout=True)
            return
        raw = src.read_bytes()
        out = self.json.redact_doc(raw, report, "json", keep_layout=True) if self.json.needs_work(raw) else raw
        if out is None:
            out = self.engine.redact_bytes(raw, report, "json")
        if dst is not None:
            dst.write_bytes(out)


def _discard(b: bytes) -> int:
    return len(b)


_SNIFF_JSON_MAX = 1 << 20  # a text file up to this size is tried as one JSON document (parsed in memory twice)


def _text_kind(path: Path) -> Format:
    """A text sidecar that is JSON ("json") or JSONL ("jsonl") goes through the JSON walker: its
    escapes (`\\u0076`), keys and name/value pairs would hide secrets from text rules. A
    compressed file, or anything else, is "text"."""
    try:
        with path.open("rb") as f:
            head = f.read(1 << 20)
            if head[:4] == ZSTD_MAGIC:
                return "text"
            body = head.lstrip(b" \t\r\n\xef\xbb\xbf")
            if body[:1] not in (b"{", b"["):
                return "text"
            size = path.stat().st_size
            if size <= _SNIFF_JSON_MAX:
                f.seek(0)
                try:
                    orjson.loads(f.read())
                    return "json"
                except orjson.JSONDecodeError:
                    pass
    except OSError:
        return "text"
    lines = [ln for ln in head.split(b"\n")[:3] if ln.strip()]
    if len(lines) >= 2 and all(ln.lstrip()[:1] == b"{" for ln in lines[:2]):
        try:
            for ln in lines[:2]:
                orjson.loads(ln)
            return "jsonl"
        except orjson.JSONDecodeError:
            return "text"
    return "text"


class _jsonl_items:
    """The lines of a JSONL file (possibly zstd-compressed), each with its newline; a line longer
    than LONG_LINE comes as (seekable file, start, end) instead: a span of the file itself, or of
    a temporary copy for a compressed file. Never holds a long line whole."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._files: list[Any] = []

    def __enter__(self) -> Iterator[bytes | tuple[BinaryIO, int, int]]:
        f = self.path.open("rb")
        self._files.append(f)
        if f.read(4) != ZSTD_MAGIC:
            size = os.fstat(f.fileno()).st_size
            return (x if type(x) is bytes else (f, x[0], x[1]) for x in iter_lines(f, 0, size))
        f.seek(0)
        import zstandard

        reader = zstandard.ZstdDecompressor().stream_reader(f, read_across_frames=True)
        buffered = io.BufferedReader(reader, 1 << 20)  # type: ignore[arg-type]
        self._files.insert(0, buffered)
        return self._spooled(buffered)

    def _spooled(self, fi: BinaryIO) -> Iterator[bytes | tuple[BinaryIO, int, int]]:
        spool = None
        while line := fi.readline(LONG_LINE + 1):
            if len(line) <= LONG_LINE or line.endswith(b"\n"):
                yield line
                continue
            if spool is None:
                spool = tempfile.TemporaryFile(prefix="archiver-line-")
                self._files.append(spool)
            spool.seek(0)
            spool.truncate()
            while line:
                spool.write(line)
                if line.endswith(b"\n"):
                    break
                line = fi.readline(1 << 20)
            spool.flush()
            yield spool, 0, spool.tell()

    def __exit__(self, *exc: object) -> None:
        for f in self._files:
            f.close()


class _Discard(io.RawIOBase):
    def writable(self) -> bool:
        return True

    def write(self, b: bytes) -> int:  # type: ignore[override]
        return len(b)


def build_redactor(rule_specs: list[str], pseudonym_key: bytes, terms: RuntimeTerms,
                   presidio: PresidioOptions | None = None) -> RuleRedactor:
    """Load the packs (`builtin:<name>` or paths) plus the runtime-term rules; raise RuleError on problems."""
    return RedactorRecipe(rule_specs, pseudonym_key, terms, presidio)()


class RedactorRecipe:
    """The configured redactor as a picklable call on plain data (rule specs, runtime terms,
    presidio options): the parent calls it, worker processes unpickle and call it. The packs are
    read and validated on the first call only; from then on the parsed rules travel with the
    recipe, so a worker compiles them without reading TOML and checking every rule again (a worker
    starts in 0.5 CPU-s instead of 0.7). Raises RuleError on a bad pack."""

    def __init__(self, rule_specs: list[str], pseudonym_key: bytes, terms: RuntimeTerms,
                 presidio: PresidioOptions | None = None) -> None:
        self.rule_specs = list(rule_specs)
        self.pseudonym_key = pseudonym_key
        self.terms = terms
        self.presidio = presidio
        self._rules: list[Rule] | None = None
        self._lock = threading.Lock()

    def rules(self) -> list[Rule]:
        with self._lock:
            if self._rules is None:
                self._rules = load_rules(self.rule_specs, self.terms)
            return self._rules

    def __call__(self) -> RuleRedactor:
        return RuleRedactor(self.rules(), Pseudonymizer(self.pseudonym_key), self.presidio)

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        del state["_lock"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()
