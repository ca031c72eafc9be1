"""Base64 of whole files: the engine's decode-and-rescan pass (a rule with `decode = "base64"`).

`base64 .env`, `base64 -w0 ~/.aws/credentials`, a CI variable or a Kubernetes Secret value that is
a whole file: every secret in it is one `base64 -d` away. A run of the base64 alphabet (standard
or URL-safe, `=` padding optional, wrapped at any width that is a multiple of 4 with real
newlines, `\\r\\n` or JSON `\\n` escapes, continuation lines may be indented) of the rule's
`min_length` or more is decoded, kept only when the result is text (UTF-8, at most 1% control
bytes; its first 48 bytes are checked before the rest is decoded), and that text is scanned by
the same engine. When a rule of one of the rule's `decode_packs` finds something there, the
WHOLE run (all its lines) is one candidate of the decode rule: one `<BASE64_SECRET:...>` token,
keyed on the run without its line breaks (the same file wrapped or not gets the same token).

Not decoded: a run right after `;base64,` (data: URIs, images), a run mixing both alphabets
(`+/` with `-_`: paths, kebab-case names). Binary after decoding (images, PDF, zip, wasm,
protobuf, gzip, hex ids, git SHAs, UUIDs, signatures, random identifiers) fails the text check
and is never scanned. Decoded text is decoded again down to DEPTH levels (a base64'd
Kubernetes Secret manifest whose values are base64 themselves).
"""

from __future__ import annotations

import binascii
import copy
import hashlib
import re
from typing import Callable

import re2

from archiver.redact.re2scan import first_span, iter_spans
from archiver.redact.rules import Rule

DEPTH = 2  # decode levels: the run, and runs inside its decoded text
HEAD = 64  # base64 characters decoded first (48 bytes): binary is refused before the rest is decoded
CONTROL_SHARE = 100  # text has at most one control byte (other than \t \n \r \f \x1b) in this many
CACHE_MAX = 4_096  # runs remembered (their verdict), per engine
CACHE_KEY_MAX = 1_024  # longer runs are remembered by their digest

# Base64 of ASCII text, 6 quads (18 bytes) in a row: each quad's first character encodes a byte's
# top 6 bits (< 32: A-Z a-f), its second a byte's low 2 and the next byte's top 4 bits (< 8), its
# third the low 4 bits of one byte and the top 2 of the next (0 or 1). A secret and the words
# around it are ASCII, so the base64 of any text that holds one has such a stretch; a random run
# (a signature, an image) has one about every 250,000 positions, a word or a path almost never.
# The engine's gate: only a buffer with one is looked at by the pass at all.
TEXT_GATE = (rb"(?:[A-Za-f][A-HQ-Xg-nw-z0-3][ABEFIJMNQRUVYZcdghklopstwx014589][A-Za-z0-9+/_-]){6}")
_BREAK = re.compile(rb"(?:\r?\n|\\r\\n|\\n)[ \t]*")
_BREAK_RX = re2.compile(_BREAK.pattern)._regexp  # noqa: SLF001
_URLSAFE = bytes.maketrans(b"-_", b"+/")
# bytes deleted by the control count: printable ASCII, UTF-8 bytes, and the controls text holds
_TEXT_BYTES = bytes([*range(0x20, 0x7F), *range(0x80, 0x100), 0x09, 0x0A, 0x0D, 0x0C, 0x1B])


def _is_text(data: bytes, partial: bool) -> bool:
    """UTF-8 with at most 1% control bytes (`partial`: a head, possibly cut inside a character)."""
    if not data:
        return False
    if not data.isascii():
        if partial:
            k = len(data)
            while k > 0 and len(data) - k < 3 and data[k - 1] >= 0x80:
                if data[k - 1] >= 0xC0:  # the lead byte of the cut character
                    k -= 1
                    break
                k -= 1
            data = data[:k] if k < len(data) and k else data
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            return False
    return len(data.translate(None, _TEXT_BYTES)) * CONTROL_SHARE <= len(data)


def decode_body(body: bytes) -> bytes | None:
    """The bytes of one base64 body (no line breaks; either alphabet, padding optional), or None."""
    if b"-" in body or b"_" in body:
        if b"+" in body or b"/" in body:
            return None  # both alphabets: a path or a name, not base64
        body = body.translate(_URLSAFE)
    body = body.rstrip(b"=")
    r = len(body) % 4
    if r == 1:
        return None
    if r:
        body += b"=" * (4 - r)
    try:
        return binascii.a2b_base64(body, strict_mode=True)
    except binascii.Error:
        return None


def _text_head(body: bytes) -> bool:
    head = decode_body(body[:HEAD])
    return head is not None and _is_text(head, partial=True)


def decode_text(body: bytes) -> bytes | None:
    """The decoded text of a base64 body, or None when it is no base64 of text."""
    if len(body) > HEAD + 4 and not _text_head(body):
        return None
    data = decode_body(body)
    if data is None or not _is_text(data, partial=False):
        return None
    return data


def normal_run(run: bytes) -> bytes:
    """A run as its token is keyed: its line breaks and indentation dropped."""
    bare = run.translate(None, b"\r\n")
    if len(bare) == len(run) and b"\\" not in run:
        return run
    if b"\\" not in bare and b" " not in bare and b"\t" not in bare:
        return bare  # real line breaks only: C speed
    return _BREAK.sub(b"", run)


def _groups(buf: bytes, a: int, b: int) -> list[tuple[int, int, int]]:
    """The runs of the block buf[a:b] (lines joined by breaks): consecutive lines of one width
    (a multiple of 4) and a last line no wider; any other line starts a run of its own. Each as
    (start, end, end before its last shorter line or -1)."""
    if buf.find(b"\n", a, b) < 0:  # one line (a JSON `\\n` escape holds the byte too)
        return [(a, b, -1)]

    lines: list[tuple[int, int]] = []
    pos = a
    for sp in iter_spans(_BREAK_RX, buf, a, b):
        lines.append((pos, sp[0][0]))
        pos = sp[0][1]
    lines.append((pos, b))
    out: list[tuple[int, int, int]] = []
    i, n = 0, len(lines)
    while i < n:
        s, e = lines[i]
        w = e - s
        j = i + 1
        short = -1
        if w % 4 == 0:
            while j < n and lines[j][1] - lines[j][0] == w:
                j += 1
            if j < n and lines[j][1] - lines[j][0] < w:
                short = lines[j - 1][1]
                j += 1
        out.append((s, lines[j - 1][1], short))
        i = j
    return out


class Decoder:
    """One decode rule of an engine: its runs in a buffer, and which of them hide a secret."""

    def __init__(self, rule: Rule, idx: int, rx: object, gate: object) -> None:
        if rule.decode != "base64":
            raise ValueError(f"{rule.source}: rule {rule.id!r}: unknown decoder {rule.decode!r}")
        self.rule = rule
        self.idx = idx
        # the rule's regex, compiled without captures (the DFA alone: submatches of a 1 MB run cost
        # an NFA pass); its group 1 is the match without a leading JSON escape (`\\n`), if any
        self.rx = rx
        self.gate = gate  # TEXT_GATE, compiled
        self.min_length = rule.min_length
        self.packs = frozenset(rule.decode_packs)
        self._cache: dict[bytes, bool] = {}

    def fresh(self) -> "Decoder":
        """This decoder with an empty cache, for an engine view: the cache holds what another
        engine's rescan found in a decoded text, and a view's rules find less."""
        twin = copy.copy(self)
        twin._cache = {}
        return twin

    def runs(self, buf: bytes, lo: int = 0, hi: int | None = None) -> list[tuple[int, int, bytes, int]]:
        """(start, end, body without breaks, end without the last line or -1) of each run of
        buf[lo:hi] long enough to decode. The last, shorter line of a wrapped run may be a word
        of the text after it (`...AAAA\\ndone` in a JSON string): the run without it is tried too."""

        out: list[tuple[int, int, bytes, int]] = []
        for spans in iter_spans(self.rx, buf, lo, hi):
            a, b = spans[0]
            if buf[a] == 0x5C:  # the escape before the run
                a += 2
            if buf[a - 8 if a >= 8 else 0:a].endswith(b";base64,"):
                continue  # a data: URI (an image, or a text attachment the JSON walker decodes)
            if first_span(self.gate, buf, a, b)[0] < 0:
                continue
            for s, e, short in _groups(buf, a, b):
                if b - a > 80 and first_span(self.gate, buf, s, e)[0] < 0:
                    continue
                if e - s > HEAD + 4 and not _text_head(normal_run(buf[s:s + 4 * HEAD])[:HEAD]):
                    continue  # binary: not copied nor joined
                body = normal_run(buf[s:e])
                if len(body.rstrip(b"=")) >= self.min_length:
                    out.append((s, e, body, short))
        return out

    def secret_runs(self, buf: bytes, scan: Callable[[bytes, int], set[str]], depth: int = 0, lo: int = 0,
                    hi: int | None = None) -> list[tuple[int, int]]:
        """Spans of the runs of buf[lo:hi] whose decoded text holds a finding of a counted pack;
        `scan(text, depth)` gives the packs of the findings in a decoded text."""
        out: list[tuple[int, int]] = []
        for s, e, body, short in self.runs(buf, lo, hi):
            if self.hides_secret(body, scan, depth):
                out.append((s, e))
            elif short > s and self.hides_secret(normal_run(buf[s:short]), scan, depth):
                out.append((s, short))
        return out

    def hides_secret(self, body: bytes, scan: Callable[[bytes, int], set[str]], depth: int = 0) -> bool:
        """Does the text that `body` decodes to (if any) hold a finding of a counted pack? The text
        is scanned at `depth + 1` (its own runs are decoded while that is below DEPTH)."""
        if len(body) > HEAD + 4 and not _text_head(body):
            return False  # binary (an image, a signature): known before any hashing or copying
        key = (body if len(body) <= CACHE_KEY_MAX else hashlib.blake2b(body, digest_size=20).digest()) + bytes([depth])
        hit = self._cache.get(key)
        if hit is None:
            text = decode_text(body)
            hit = text is not None and not self.packs.isdisjoint(scan(text, depth + 1))
            if len(self._cache) >= CACHE_MAX:
                self._cache.clear()
            self._cache[key] = hit
        return hit
