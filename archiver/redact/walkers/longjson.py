"""JSON too long to hold in memory (a 100 MB JSONL line, a large JSON file), redacted from a
seekable file in bounded memory.

Pass 1 reads the span in blocks and builds a *skeleton*: the document with the contents of
every string literal longer than SPAN_STRING replaced by a unique placeholder, a string the
walker never scans (it looks like a base64 image). Of a long literal only its offsets and first
bytes are kept. The skeleton is small and goes through the ordinary walker, so the structure,
the keys and every short string are redacted exactly as usual. Pass 2 writes the redacted
skeleton, putting each long literal back in place of its placeholder:

- byte for byte where the walker would not look at it: base64 alone under an opaque key
  (`signature`, ...) or as the `data` of an image/base64 node, media strings (a bare base64
  image, a `data:` URI of a non-text type, with nothing after the payload);
- an encoded text attachment (jsondoc: Uint8Array hex, base64 beside a text type, a text
  `data:` URI) up to ATTACHMENT_IN_MEMORY: decoded, redacted and encoded again;
- up to STRING_IN_MEMORY: decoded and redacted as the walker redacts a string (JSON inside it
  included, scanned with its key when that is secret-like), re-encoded only when it changed;
- longer JSON inside a string (Codex `arguments`): decoded into a temporary file and redacted
  from there the same way, one level deeper (up to jsondoc.MAX_NESTING);
- longer text: decoded in pieces, redacted as text (cut at newlines, as text files are), re-encoded.

A span that is not JSON, or whose skeleton would itself be long, is redacted as text, streamed.
For the compact JSON harnesses write, the output is the bytes the in-memory walker would give.
"""

from __future__ import annotations

import codecs
import json
import tempfile
from typing import Any, BinaryIO, Callable, Iterator

import orjson

from archiver.redact.base import RedactionReport
from archiver.redact.engine import MODE_ALL, MODE_IDS, MODE_OPAQUE
from archiver.redact.walkers import attachments
from archiver.redact.walkers import jsondoc as jd
from archiver.redact.walkers.text import redact_stream
from archiver.snapshot import SnapshotError

BLOCK = 1 << 20
SPAN_STRING = 16 << 10  # literals longer than this leave the skeleton
# Long literals up to this are redacted whole, as the walker would. Redacting holds some 30
# bytes per byte of text full of matches (one Match, candidates, pieces per match): this,
# TEXT_PIECE and snapshot.LONG_LINE bound what one job holds at a time.
STRING_IN_MEMORY = 1 << 20
ATTACHMENT_IN_MEMORY = 4 * STRING_IN_MEMORY  # encoded attachments decoded whole up to this
TEXT_PIECE = 256 << 10  # longer text is redacted in pieces of about this (cut at newlines)
SKELETON_MAX = 2 << 20  # a longer skeleton (many short strings): the span is redacted as text
HEAD = 2048  # first bytes of a long literal kept to recognise a media string
_PH_PREFIX = b"iVBORw0KGgoArchiverLongString"
_BSL = 0x5C
_ESCAPE_BYTES = frozenset(b'\\"/bfnrtu0123456789abcdefABCDEF')  # every byte an escape can hold

Write = Callable[[bytes], object]


def _placeholder(i: int) -> bytes:
    ph = _PH_PREFIX + b"%08d" % i
    return ph + b"A" * (64 - len(ph))  # a media string to the walker: >= 64 chars, image prefix


class _Long:
    __slots__ = ("start", "end", "head")

    def __init__(self, start: int, end: int, head: bytes) -> None:
        self.start = start  # file offsets of the literal's contents (quotes excluded)
        self.end = end
        self.head = head


def _read(f: BinaryIO, pos: int, n: int) -> bytes:
    f.seek(pos)
    data = f.read(n)
    if len(data) < n:
        raise SnapshotError(f"{getattr(f, 'name', '?')}: file shrank while reading")
    return data


def _blocks(f: BinaryIO, start: int, end: int) -> Iterator[bytes]:
    pos = start
    while pos < end:
        data = _read(f, pos, min(BLOCK, end - pos))
        pos += len(data)
        yield data


_NOT_JSON = (b"", [])  # a string left open at the end


def _skeleton(f: BinaryIO, start: int, end: int) -> tuple[bytes, list[_Long]] | None:
    """(skeleton, long literals) of the span; None when the skeleton would exceed SKELETON_MAX;
    _NOT_JSON when a string is left open at the end."""
    skel = bytearray()
    longs: list[_Long] = []
    lit = bytearray()  # contents of the current literal while it is short
    in_str = is_long = False
    lit_start = 0
    head = b""
    bs = 0  # backslashes ending the literal contents read so far
    pos = start
    for data in _blocks(f, start, end):
        n = len(data)
        i = 0
        while i < n:
            if not in_str:
                q = data.find(b'"', i)
                if q == -1:
                    skel += data[i:] if i else data
                    break
                skel += data[i:q + 1]
                in_str, is_long, lit_start, bs = True, False, pos + q + 1, 0
                lit.clear()
                i = q + 1
                continue
            q = data.find(b'"', i)
            while q != -1:  # a quote after an odd run of backslashes is escaped
                k = q
                while k > i and data[k - 1] == _BSL:
                    k -= 1
                if not (q - k + (bs if k == i else 0)) & 1:
                    break
                q = data.find(b'"', q + 1)
            stop = n if q == -1 else q
            if not is_long:
                lit += data[i:stop]
                if len(lit) > SPAN_STRING:
                    is_long = True
                    head = bytes(lit[:HEAD])
                    lit.clear()
            if q == -1:
                k = n
                while k > i and data[k - 1] == _BSL:
                    k -= 1
                bs = n - k + (bs if k == i else 0)
                break
            if is_long:
                longs.append(_Long(lit_start, pos + q, head))
                skel += _placeholder(len(longs) - 1)
            else:
                skel += lit
            skel += b'"'
            in_str = False
            i = q + 1
        if len(skel) > SKELETON_MAX:
            return None
        pos += n
    if in_str:
        return _NOT_JSON
    return bytes(skel), longs


# (opaque media data, prose applies, under an id key, under a signature key, the attachment
# encoding, the key it stands under)
_Ctx = tuple[bool, bool, bool, bool, "str | None", "str | None"]


def _opaque(node: dict[str, Any], phs: dict[str, int], longs: list[_Long]) -> bool:
    """jsondoc._opaque_data, where a media type may itself be a long literal."""
    if jd._opaque_data(node):
        return True
    i = phs.get(node.get("type"))  # type: ignore[arg-type]
    if i is not None and _head_text(longs[i]) in jd.OPAQUE_DATA_TYPES:
        return True
    for k in jd.MEDIA_KEYS:
        i = phs.get(node.get(k))  # type: ignore[arg-type]
        if i is not None and _head_text(longs[i]).startswith("image/"):
            return True
    return False


def _head_text(lit: _Long) -> str:
    """The start of a long literal, decoded (all of it when it is shorter than HEAD)."""
    head = lit.head if lit.end - lit.start <= len(lit.head) else lit.head[:_safe_cut(lit.head)]
    return _decode(head) or ""


def _contexts(jr: jd.JsonRedactor, root: Any, phs: dict[str, int], longs: list[_Long]) -> list[_Ctx] | None:
    """Per long literal, what the walker would do with it, from where its placeholder sits in
    the parsed skeleton; None when a placeholder is a key or was lost (duplicate keys)."""
    out: list[_Ctx | None] = [None] * len(phs)
    prose_on = jr.prose is not None
    if type(root) is str:
        i = phs.get(root)
        if i is not None:
            out[i] = (False, prose_on, False, False, None, None)
    stack = [root] if type(root) in (dict, list) else []
    while stack:
        node = stack.pop()
        if type(node) is dict:
            opaque = "data" in node and _opaque(node, phs, longs)
            for k, v in node.items():
                if k in phs:
                    return None
                tv = type(v)
                if tv is str:
                    i = phs.get(v)
                    if i is not None:
                        kind = jd._KEY_KIND.get(k)
                        out[i] = (kind == jd._DATA and opaque, prose_on and kind == jd._PROSE, kind == jd._ID,
                                  kind == jd._SKIP, jd.JsonRedactor.attachment_encoding(node, k), k)
                elif tv is dict or tv is list:
                    stack.append(v)
        else:
            for v in node:
                tv = type(v)
                if tv is str:
                    i = phs.get(v)
                    if i is not None:
                        out[i] = (False, False, False, False, None, None)
                elif tv is dict or tv is list:
                    stack.append(v)
    if any(x is None for x in out):
        return None
    return out  # type: ignore[return-value]


# ---------------------------------------------------------------------- string literals

def _decode(raw: bytes) -> str | None:
    """The contents of a JSON string literal, decoded; None if they are not valid JSON/UTF-8."""
    lit = b'"' + raw + b'"'
    try:
        return orjson.loads(lit)  # type: ignore[no-any-return]
    except orjson.JSONDecodeError:
        try:  # lone surrogates: valid JSON orjson refuses
            out = json.loads(lit)
        except ValueError:
            return None
        return out if type(out) is str else None


def _encode(s: str) -> bytes:
    try:
        return orjson.dumps(s)[1:-1]
    except orjson.JSONEncodeError:  # lone surrogate
        return json.dumps(s, ensure_ascii=True)[1:-1].encode("ascii")


def _safe_cut(data: bytes) -> int:
    """A cut of literal contents that splits no escape, surrogate pair or UTF-8 sequence."""
    n = len(data)
    for c in range(n - 1, max(0, n - 4096) - 1, -1):
        b = data[c]
        if b not in _ESCAPE_BYTES and not 0x80 <= b < 0xC0:  # a plain character starts here
            return c
    # only escape-like bytes near the end: walk the escapes from the start (a boundary)
    i = 0
    while True:
        j = data.find(b"\\", i)
        if j == -1 or j > n - 12:
            return n if j == -1 else j
        if data[j + 1:j + 2] == b"u":
            if data[j + 2:j + 4].lower() in (b"d8", b"d9", b"da", b"db") and j + 12 > n - 12:
                return j  # a high surrogate whose pair may follow
            i = j + 6
        else:
            i = j + 2


def _pieces(f: BinaryIO, start: int, end: int) -> Iterator[str | None]:
    """The decoded contents of a long literal, piece by piece (None for a piece that does not decode)."""
    carry = b""
    pos = start
    while pos < end:
        block = _read(f, pos, min(BLOCK, end - pos))
        pos += len(block)
        data = carry + block if carry else block
        cut = len(data) if pos >= end else _safe_cut(data)
        carry = data[cut:]
        yield _decode(data[:cut])


class _PieceReader:
    """Decoded pieces (UTF-8) as a readable stream for redact_stream."""

    def __init__(self, pieces: Iterator[str | None]) -> None:
        self._pieces = pieces

    def read(self, _n: int = -1) -> bytes:
        for s in self._pieces:
            if s:
                return s.encode("utf-8", "surrogatepass")
        return b""


class _EncodingWriter:
    """Redacted text pieces written as JSON string contents (UTF-8 split across writes is fine)."""

    def __init__(self, write: Write) -> None:
        self._write = write
        self._dec = codecs.getincrementaldecoder("utf-8")("surrogatepass")

    def write(self, b: bytes) -> int:
        s = self._dec.decode(b)
        if s:
            self._write(_encode(s))
        return len(b)

    def close(self) -> None:
        s = self._dec.decode(b"", final=True)
        if s:
            self._write(_encode(s))


class _SpanReader:
    def __init__(self, f: BinaryIO, start: int, end: int) -> None:
        self._blocks = _blocks(f, start, end)

    def read(self, _n: int = -1) -> bytes:
        return next(self._blocks, b"")


class _Sink:
    def __init__(self, write: Write) -> None:
        self.write = write


def _text_data_uri_head(lit: _Long) -> bool:
    m = attachments.DATA_URI_HEAD.match(_head_text(lit), 0, 256)
    return m is not None and not attachments.binary_mime(m.group(1))


def _base64_only(f: BinaryIO, lit: _Long) -> bool:
    """Is the long literal one base64 payload (after a `data:` header) and nothing else?"""
    first = True
    for piece in _pieces(f, lit.start, lit.end):
        if piece is None:
            return False
        pos = 0
        if first:
            first = False
            if piece.startswith("data:"):
                m = attachments.DATA_URI_HEAD.match(piece, 0, 256)
                if m is None:
                    return False
                pos = m.end()
        if attachments.MEDIA_BODY.fullmatch(piece, pos) is None:
            return False
    return True


def _copy(f: BinaryIO, start: int, end: int, write: Write) -> None:
    for data in _blocks(f, start, end):
        write(data)


def _as_text(jr: jd.JsonRedactor, f: BinaryIO, start: int, end: int, write: Write, report: RedactionReport,
             carrier: str) -> None:
    """Raw bytes redacted as text, streamed (the span or literal is not decodable JSON)."""
    redact_stream(_SpanReader(f, start, end), _Sink(write),  # type: ignore[arg-type]
                  lambda b: jr.engine.redact_bytes(b, report, carrier), TEXT_PIECE, max_carry=TEXT_PIECE)


def _long_literal(jr: jd.JsonRedactor, f: BinaryIO, lit: _Long, ctx: _Ctx, write: Write,
                  report: RedactionReport, carrier: str, depth: int) -> None:
    media, prose, id_key, signature, enc, key = ctx
    if enc is None and _text_data_uri_head(lit):
        enc = "data-uri"
    if enc is not None and not media:
        if lit.end - lit.start <= ATTACHMENT_IN_MEMORY:
            s = _decode(_read(f, lit.start, lit.end - lit.start))
            new = jr.redact_attachment(s, enc, report, depth) if s is not None else None
            if new is not None:
                write(_encode(new))
                return
            if s is not None and attachments.decode(s, enc) is not None:
                _copy(f, lit.start, lit.end, write)  # an attachment with nothing to redact
                return
        else:
            jr.warnings["json-long-attachment-unscanned"] += 1
    if media:  # the data of an image/base64 node: as a signature is, unless it is base64 alone
        if _base64_only(f, lit):
            _copy(f, lit.start, lit.end, write)
            return
        signature = True
    if lit.end - lit.start <= STRING_IN_MEMORY:
        raw = _read(f, lit.start, lit.end - lit.start)
        s = _decode(raw)
        if s is None:
            jr.warnings["json-undecodable-long-string"] += 1
            write(jr.engine.redact_bytes(raw, report, carrier + ":raw"))
            return
        if jd._media_string(s):
            write(raw)
            return
        del raw
        if signature and not media and (s[:1] == "{" or " " in s):
            signature = False  # a "signature" that is JSON or text, as the walker takes it
        if signature and jd._unscanned_id(s):
            _copy(f, lit.start, lit.end, write)
            return
        mode = MODE_OPAQUE if signature else MODE_IDS if id_key and jd._id_like(s) else MODE_ALL
        new = jr.redact_string(s, report, carrier, prose, depth, mode=mode, key=key)
        if new is None:
            _copy(f, lit.start, lit.end, write)  # unchanged: the bytes as they were
        else:
            write(_encode(new))
        return
    head = _head_text(lit)
    if signature and not media and (head[:1] == "{" or " " in head):
        signature = False
    if jd._media_string(head) and _base64_only(f, lit):
        _copy(f, lit.start, lit.end, write)
        return
    if any(s is None for s in _pieces(f, lit.start, lit.end)):  # checked first: nothing written yet
        jr.warnings["json-undecodable-long-string"] += 1
        _as_text(jr, f, lit.start, lit.end, write, report, carrier + ":raw")
        return
    if head[:1] in ("{", "[") and depth < jd.MAX_NESTING:
        _nested(jr, f, lit, write, report, depth)
        return
    out = _EncodingWriter(write)
    mode = MODE_OPAQUE if signature else MODE_ALL
    redact_stream(_PieceReader(_pieces(f, lit.start, lit.end)), out,  # type: ignore[arg-type]
                  lambda b: jr.engine.redact_bytes(b, report, carrier, mode), TEXT_PIECE, max_carry=TEXT_PIECE)
    out.close()


def _nested(jr: jd.JsonRedactor, f: BinaryIO, lit: _Long, write: Write, report: RedactionReport,
            depth: int) -> None:
    """A long string holding JSON: decoded into a temporary file, redacted from there with its
    layout kept (as the walker does JSON in a string), re-encoded; the bytes as they were when
    nothing in it changed."""
    with tempfile.TemporaryFile(prefix="archiver-json-") as inner, \
            tempfile.TemporaryFile(prefix="archiver-json-") as red:
        for s in _pieces(f, lit.start, lit.end):
            inner.write(s.encode("utf-8", "surrogatepass"))  # type: ignore[union-attr]
        size = inner.tell()
        sub = RedactionReport()
        redact_span(jr, inner, 0, size, red.write, sub, "json-in-string", keep_layout=True,  # type: ignore[arg-type]
                    depth=depth + 1)
        if not sub.counts:
            _copy(f, lit.start, lit.end, write)
            return
        report.merge(sub)
        red.seek(0)
        out = _EncodingWriter(write)
        while block := red.read(BLOCK):
            out.write(block)
        out.close()


# ---------------------------------------------------------------------- entry point

def redact_span(jr: jd.JsonRedactor, f: BinaryIO, start: int, end: int, write: Write, report: RedactionReport,
                carrier: str = "jsonl", keep_layout: bool = False, depth: int = 0) -> None:
    """Redact the JSON document in bytes [start, end) of `f` (a JSONL line without its newline,
    or a whole JSON file with `keep_layout`), passing the output to `write` in pieces."""
    sk = _skeleton(f, start, end)
    why = "json-long-document-as-text"  # why the span is redacted as text, if it is
    if sk is _NOT_JSON:
        why = "" if keep_layout else "jsonl-unparsable-line"
    elif sk is not None:
        skel, longs = sk
        phs = {_placeholder(i).decode(): i for i in range(len(longs))}
        if skel.count(_PH_PREFIX) == len(longs):  # (else the input holds our placeholder's text)
            parsed = jd._parse(skel)
            if parsed is None:
                why = "" if keep_layout else "jsonl-unparsable-line"
            elif (ctx := _contexts(jr, parsed[0], phs, longs)) is not None:
                del parsed
                sub = RedactionReport()  # merged once the output is known to be whole
                if keep_layout:
                    out = (jr.redact_doc(skel, sub, carrier, depth, keep_layout=True) if jr.needs_work(skel)
                           else skel)
                else:
                    out = jr.redact_line(skel, sub, carrier)
                assert out is not None  # the skeleton parsed
                del skel
                at = sorted((out.find(_placeholder(i)), i) for i in range(len(longs)))
                if all(p >= 0 and out.count(_placeholder(i)) == 1 for p, i in at):
                    report.merge(sub)
                    pos = 0
                    for p, i in at:
                        write(out[pos:p])
                        _long_literal(jr, f, longs[i], ctx[i], write, report, carrier, depth)
                        pos = p + len(_placeholder(i))
                    write(out[pos:])
                    return
    if why:
        jr.warnings[why] += 1
    _as_text(jr, f, start, end, write, report, carrier if keep_layout else carrier + ":raw")
