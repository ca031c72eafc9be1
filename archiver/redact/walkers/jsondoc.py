"""JSON documents and JSONL lines: redact decoded string values (and keys) in place.

Fast path: a raw line with no keyword of any rule (and no escape that could hide
one) is returned as is, without parsing. Otherwise the document is parsed with
orjson, every string that matters is collected (keys too, which only path, PII,
runtime-term and high-confidence secret rules touch), all of them are scanned in one engine pass, and
the changed string literals are patched into the original bytes, so the rest of
the line keeps its exact serialisation. When patching is not provably exact (a
literal written with other escapes, the same string both changed and kept),
the tree is re-serialised compactly with orjson instead.

Repeated keys: orjson keeps only the last value of a key. When fewer keys were parsed
than the raw bytes may hold (a count of unescaped quote-colon pairs, so a repeat is
never missed), the document is parsed again keeping every pair; an object with a
repeated key is walked as its [key, value] pairs and written back with all of them
(counted as the warning "json-repeated-keys").

Never touched: `data:` URIs and bare base64 images, and long runs of base64 alone
under the keys below. Values under `signature`, `encrypted_content` (and other opaque
signature keys), image and redacted-thinking `data` (sibling `type` "base64" or an image
media type) and id-like values under id keys (`uuid`, `tool_use_id`, `requestId`, ...)
meet only the high-confidence secret rules (MODE_OPAQUE): a token's own shape is found
there too; id values (MODE_IDS) also meet the configured usernames and names; whole ids are
left alone. A "signature" that is JSON or holds spaces is an ordinary string.
A string that is itself a JSON object/array (Codex `function_call.arguments`)
is redacted inside and written back in its own style.

Encoded text attachments are decoded, redacted (as JSON or text) and encoded again the
same way: Cursor byte arrays `{"__type": "Uint8Array", "hex": ...}`, base64 `data` beside a
text media type (OpenCode file attachments), and `data:` URIs of text types. Binary payloads
(a NUL byte, invalid UTF-8: images, archives) are left as they are.

Integers of NUMBER_DIGITS digits or more (a card number a tool printed as JSON) are
scanned as their decimal text with every rule, except under id and signature keys and
keys naming a random or derived number (seed, nonce, checksum, timestamp, ...) or a count,
size or duration (bytes, file_size, inode, elapsed_ns, build_number, ...), where a string of
decimal digits (an int64 in protobuf's JSON) is passed over like the integer;
one that a rule matches is written back as the replacement string (its JSON type
changes from number to string). Shorter numbers and floats are never scanned alone.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any, Callable, Iterator

import orjson
import re2

from archiver.redact.base import RedactionReport
from archiver.redact.echoes import MAX_VALUES, echo_matches, found_values, merged
from archiver.redact.engine import LITERAL, MODE_ALL, MODE_IDS, MODE_KEYS, MODE_OPAQUE, Engine, whole_id
from archiver.redact.re2scan import UNANCHORED
from archiver.redact.walkers import PERSON_KEY, SECRET_NAME, attachments
from archiver.redact.walkers.jsonlists import (
    CHUNKS_MARK, DELTA_KEYS, DELTA_MARK, DIFF_MARKS, PIECES, VALUE_REFERENCE, argv_like, chunk_list, delta_records,
    lines_like, listed_program, shell_word,
)
from archiver.redact.walkers.jsonpairs import (
    COOKIE_LIST, FIELD_NAME, GENERIC_CHILD, JWK_CONTEXT, JWK_PRIVATE, PARENT_KEY_MAX, PERSON_LIST, PERSON_PAIR,
    PERSON_PARENT, USER_KEY_PAIR, VALUE_KEYS, cookie_pair, in_parent, person_in_parent, person_object, secret_pair,
    singular, tf_random_password,
)
from archiver.redact.walkers.jsonplaces import GEO_KEYS, add_places, place_object
from archiver.redact.walkers.jsonstrings import JsonStrings
from archiver.redact.walkers.toolpair import Target, ToolPairs

SKIP_KEYS = frozenset({
    "signature", "encrypted_content", "encryptedContent", "thoughtSignature", "thought_signature",
    "thinkingSignature", "thinking_signature", "reasoning_signature",
})
ID_KEYS = frozenset({
    "uuid", "parentUuid", "logicalParentUuid", "leafUuid", "sessionId", "session_id", "messageId",
    "message_id", "requestId", "request_id", "id", "tool_use_id", "toolUseID", "toolUseId", "tool_call_id",
    "toolCallId", "call_id", "callId", "agentId", "agent_id", "promptId", "item_id", "itemId", "response_id",
    "responseId", "parentId", "parent_id", "parentID", "thread_id", "threadId", "turn_id", "turnId",
    "sourceToolUseID", "sourceToolAssistantUUID", "conversation_id", "conversationId", "chatId", "chat_id",
    "sessionID", "messageID", "partID", "callID", "blobId", "rootBlobId", "latestRootBlobId", "fromId",
    "previous_response_id", "window_id", "previous_window_id", "rollout_id",
})
OPAQUE_DATA_TYPES = frozenset({"base64", "redacted_thinking", "redacted-reasoning", "redacted_reasoning", "image"})
MEDIA_KEYS = ("media_type", "mediaType", "mime_type", "mimeType", "mime")
IMAGE_PREFIXES = ("iVBORw0KGgo", "/9j/", "R0lGOD", "UklGR")
PROSE_KEYS = frozenset({"text", "content", "prompt", "display", "title", "summary", "message", "thinking", "query"})
MAX_NESTING = 4
_SKIP, _ID, _DATA, _PROSE, _HEX = 1, 2, 3, 4, 5
_KEY_KIND = {**{k: _PROSE for k in PROSE_KEYS}, **{k: _ID for k in ID_KEYS}, **{k: _SKIP for k in SKIP_KEYS},
             "data": _DATA, "blob": _DATA, "hex": _HEX}
# Where a raw line may hold an encoded text attachment (its secrets invisible to the gate):
# Cursor's {"__type": "Uint8Array", "hex": ...}, a data: URI, base64 `data` beside a text type.
_ENCODED_HINT = re2.compile(
    rb'Uint8Array|;base64,|"(?:mime|mimeType|mime_type|mediaType|media_type)" *: *"(?:text/|application/)'
)._regexp  # noqa: SLF001
_IMAGE_FIRST = frozenset(p[0] for p in IMAGE_PREFIXES)
NUMBER_DIGITS = 12  # the shortest payment card number
_NUMBER_MIN = 10 ** (NUMBER_DIGITS - 1)
_NUMBER_BYTES = frozenset(b"0123456789-+.eE")
# A string value under a key like these is scanned as `"key": "value"`, so the rules that know a
# secret by the name it is assigned to (password, AWS secret, ...) see the name; only the value
# can change.
_SECRET_KEY = SECRET_NAME
_KEYED_MEMO = MODE_OPAQUE + 1  # the memo of strings scanned with their key
MEMO_MAX_LEN = 200  # strings up to this length have their result remembered
MEMO_ENTRIES = 5_000  # per mode; more costs worker memory (pymalloc keeps the arenas) for no speed

# A \u escape of a printable character, or \/, can hide a keyword from the raw-bytes gate.
_HIDING_ESCAPE = re2.compile(
    rb"\\(?:/|u(?:[1-9a-fA-F][0-9a-fA-F]{3}|0[1-9a-fA-F][0-9a-fA-F]{2}|00[2-9a-fA-F][0-9a-fA-F]))"
)._regexp  # noqa: SLF001

ProseFn = Callable[[str, RedactionReport, str], str]


def _id_like(v: str) -> bool:
    return len(v) <= 200 and " " not in v and "/" not in v and "\\" not in v and "@" not in v


def _opaque_data(node: dict[str, Any]) -> bool:
    t = node.get("type")
    if isinstance(t, str) and t in OPAQUE_DATA_TYPES:
        return True
    for k in MEDIA_KEYS:
        m = node.get(k)
        if isinstance(m, str) and m.startswith("image/"):
            return True
    return False


_BASE64_RUN = re.compile(r"[A-Za-z0-9+/_-]+={0,2}")
OPAQUE_BLOB_MIN = 200  # base64 this long alone is a signature or encrypted content


def _unscanned_id(v: str) -> bool:
    """An id or signature value (MODE_IDS) no rule could match in, or must not touch."""
    return whole_id(v) or _opaque_blob(v)


def _opaque_blob(v: str) -> bool:
    """A long run of (URL-safe) base64 alone, as a signature or encrypted content is: a token
    cannot stand in it in plain sight, while a chance match would corrupt it."""
    return len(v) >= OPAQUE_BLOB_MIN and _BASE64_RUN.fullmatch(v) is not None


def _media_string(v: str) -> bool:
    """Is v an image or other binary payload and nothing else: a `data:` URI of a non-text type,
    or a bare base64 image? Text around or after the payload makes it ordinary text (the engine
    keeps images found inside text)."""
    if v.startswith("data:"):
        mime = attachments.data_uri_mime(v)
        return mime is not None and attachments.binary_mime(mime)
    if len(v) < 64:
        return False
    return v.startswith(IMAGE_PREFIXES) and attachments.MEDIA_BODY.fullmatch(v) is not None


class _Pairs(list):  # type: ignore[type-arg]
    """A JSON object whose keys repeat: its [key, value] pairs in order. A dict would keep only
    the last value of a key, and the others would be written out unredacted or lost."""

    __slots__ = ()


_PAIRS = 2  # the `std` flag of a document holding _Pairs: written by _encode_pairs
_SPACED_COLON = re.compile(rb'"[ \t\r\n]+:')


def _may_repeat_keys(raw: bytes, parsed_keys: int) -> bool:
    """Might raw write more object keys than were parsed (a key repeats)? Counts quote-colon
    pairs whose quote is not escaped by one backslash, and those with white space between:
    an upper bound on the keys written, so a repeat is never missed."""
    n = raw.count(b'":')
    if n > parsed_keys and b"\\" in raw:
        n += raw.count(b'\\\\":') - raw.count(b'\\":')
    if n <= parsed_keys and _SPACED_COLON.search(raw) is not None:
        n += len(_SPACED_COLON.findall(raw))
    return n > parsed_keys


def _parse_pairs(raw: bytes) -> Any | None:
    """raw parsed with every repeated key kept (objects with one as _Pairs); None when no key
    repeats or raw is not JSON."""
    repeated = False

    def hook(pairs: list[tuple[str, Any]]) -> Any:
        nonlocal repeated
        obj = dict(pairs)
        if len(obj) == len(pairs):
            return obj
        repeated = True
        return _Pairs([k, v] for k, v in pairs)

    try:
        root = json.loads(raw.decode("utf-8"), object_pairs_hook=hook)
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    return root if repeated else None


def _encode_pairs(node: Any) -> str:
    """Compact JSON of a document that holds _Pairs (repeated keys written as they came)."""
    t = type(node)
    if t is _Pairs:
        return "{" + ",".join(f"{_encode_pairs(k)}:{_encode_pairs(v)}" for k, v in node) + "}"
    if t is dict:
        return "{" + ",".join(f"{_encode_pairs(k)}:{_encode_pairs(v)}" for k, v in node.items()) + "}"
    if t is list:
        return "[" + ",".join(_encode_pairs(v) for v in node) + "]"
    return json.dumps(node, ensure_ascii=True)


def _byte_list(v: list[Any]) -> bool:
    """32 or 64 integers 0..255: a key written as its bytes (byte-array-private-key reads the text)."""
    return (len(v) == 32 or len(v) == 64) and all(type(b) is int and 0 <= b <= 255 for b in v)


# (s34) A byte list under such a key is a public key, a digest, a signature or a salt, no secret: walked as
# the numbers it is (byte-array-private-key passes over the same names in text).
_PUBLIC_BYTES_KEY = re.compile(r"(?i)pub(?:lic)?[ _-]?key|digest|hash|checksum|fingerprint|signature|salt|sha-?(?:256|512)")


def _byte_text(v: list[int]) -> str:
    """A byte list as solana-keygen writes it (`[12,200,...]`): what the rules read."""
    return "[" + ",".join(map(str, v)) + "]"


def _parse(raw: bytes) -> tuple[Any, bool] | None:
    """(document, parsed by the stdlib) or None when raw is not JSON."""
    try:
        return orjson.loads(raw), False
    except orjson.JSONDecodeError:
        try:  # lone surrogates, integers beyond 64 bits: valid JSON orjson refuses
            return json.loads(raw.decode("utf-8")), True
        except (UnicodeDecodeError, ValueError, RecursionError):
            return None


_ID_SUFFIXES = ("id", "Id", "ID", "ids", "Ids", "IDs")  # product_id, orderId: numbers there are ids
# An integer under a key whose last word is one of these is a random or derived number, never a
# card a tool printed ({"seed": 4539...}, "random_seed", "torchSeed", "nonce", "crc32"): one in ten
# 16-digit seeds after a card prefix passes Luhn
_NUMBER_NOT_DATA = frozenset({"seed", "seeds", "nonce", "salt", "checksum", "crc", "crc32", "crc64", "hash", "digest",
                              "epoch", "timestamp", "ts", "ns", "ms", "seq", "sequence", "fingerprint", "quadkey"})
_LAST_WORD = re.compile(r"(?:^|[^A-Za-z0-9]|(?<=[a-z0-9])(?=[A-Z]))([A-Za-z][a-z0-9]*|[A-Z0-9]+)$")


def _random_number_key(k: str) -> bool:
    m = _LAST_WORD.search(k)
    return m is not None and m.group(1).lower() in _NUMBER_NOT_DATA


# (s30) An integer under a key naming a count, a size or a duration (`bytes`, `file_size`, `inode`,
# `elapsedNs`, `build_number`) is a measure, never a card a tool printed: one in ten passes Luhn. The
# card rules pass over the same keys in text (`build_number: 4539...`, `inode 3782...`); a JSON number
# is scanned as its digits alone, so the walker reads the key. `number` alone (`cardNumber`) is no such key.
_COUNTER_WORDS = frozenset({"count", "counts", "counter", "size", "sizes", "bytes", "length", "len", "blocks", "inode",
                            "inodes", "ino", "offset", "duration", "elapsed", "sec", "secs", "seconds", "usec", "nsec",
                            "msec", "us", "millis", "micros", "nanos", "milliseconds", "microseconds", "nanoseconds",
                            "ticks", "cycles", "nano", "micro", "milli"})
_COUNTED = frozenset({"build", "run", "job", "pipeline", "block", "seq", "sequence"})  # build_number, runNo
_NUMBER_WORDS = frozenset({"number", "num", "no", "nr"})
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_NON_WORD = re.compile(r"[^a-z0-9]+")


def _counter_key(k: str) -> bool:
    words = [w for w in _NON_WORD.split(_CAMEL.sub("_", k).lower()) if w]
    if not words:
        return False
    return words[-1] in _COUNTER_WORDS or (len(words) > 1 and words[-1] in _NUMBER_WORDS and words[-2] in _COUNTED)


_DIGITS = frozenset("0123456789")


def _measure_text(k: str, v: str) -> bool:
    """Is v an integer in decimal under a key whose integers are left unscanned (a random or
    derived number, a count, size or duration)? Protobuf's JSON mapping writes every int64 as a
    string (`"sizeBytes": "4012888888881881"`, OpenTelemetry's `"timeUnixNano": "17..."`): one in
    ten passes Luhn, as the same integer written as a number would."""
    return v.isdigit() and v.isascii() and (_random_number_key(k) or _counter_key(k))


def _set_aside_media(doc: JsonStrings, node: Any, key: Any, v: str) -> bool:
    """Is v no ordinary string: a media payload (left alone) or a text `data:` URI (decoded
    and redacted later, `doc.encoded`)?"""
    if _media_string(v):
        return True
    # any other type (text, JSON, application/octet-stream: an attached .env or key file) is decoded;
    # a payload that is binary after all is kept as it is
    if v[0] == "d" and attachments.data_uri_mime(v) is not None:
        doc.encoded.append((node, key, v, "data-uri"))
        return True
    return False


def _attachment_encoding(node: dict[str, Any], kind: int) -> str | None:
    """How the value under `hex` / `data` / `blob` (or `content`, `text` beside
    `"encoding": "base64"`) of this object encodes an attachment that may be text, if it does:
    not an image, audio or video type (the payload itself is checked for text when decoded)."""
    if kind == _HEX:
        return "hex" if node.get("__type") == "Uint8Array" else None
    if kind != _PROSE:
        for k in MEDIA_KEYS:
            m = node.get(k)
            if isinstance(m, str):
                return None if attachments.binary_mime(m) else "base64"
    enc = node.get("encoding")
    return "base64" if type(enc) is str and enc.lower() == "base64" else None


def _keyed_prefix(key: str) -> bytes:
    return f'"{key}": "'.encode("utf-8", "surrogatepass")


def _value_bounds(key: str | None, scanned: bytes) -> tuple[int, int]:
    """Where a string's own value lies in what the engine scanned for it (_scan_text): all of it,
    or between `"key": "` and the closing quote."""
    return (0, len(scanned)) if key is None else (len(_keyed_prefix(key)), len(scanned) - 1)


def _scan_text(doc: JsonStrings, i: int) -> str:
    """What the engine scans for string i: the string, or `"key": "string"` (_SECRET_KEY)."""
    key = doc.keyed.get(i) if doc.keyed else None
    return doc.strs[i] if key is None else f'"{key}": "{doc.strs[i]}"'


def _clip(ms: list[Any], lo: int, hi: int) -> list[Any]:
    """Matches cut to [lo, hi) (those outside dropped)."""
    out = []
    for m in ms:
        s, e = max(m.start, lo), min(m.end, hi)
        if s < e:
            out.append(m if s == m.start and e == m.end else m._replace(start=s, end=e))
    return out


def _merge(ms: list[Any], more: list[Any], shift: int) -> list[Any]:
    """A string's own matches and those of the argv line it is an item of (item offsets, moved by
    `shift`: a keyed string's prefix), the latter only where they overlap none of the former."""
    out = list(ms)
    for m in more:
        s, e = m.start + shift, m.end + shift
        if all(e <= o.start or o.end <= s for o in out):
            out.append(m._replace(start=s, end=e))
    out.sort(key=lambda m: m.start)
    return out


# ------------------------------------------------------------------ places (see the module docstring)


def _outside(strs: list[str], span: tuple[int, int]) -> Iterator[tuple[int, str]]:
    lo, hi = span
    for i, s in enumerate(strs):
        if not lo <= i < hi:
            yield i, s


# a memo entry: the string's result alone, the rules that changed it, its echoable values (echoes.py)
_MemoHit = tuple[str, tuple[str, ...], tuple[tuple[bytes, Any], ...]]


def _document_values(doc: JsonStrings, todo: list[int], parts: list[bytes],
                     per: list[list[Any] | None]) -> dict[bytes, Any]:
    """The echoable values found in a document's strings (scanned or answered from the memo), in
    the strings' order, so which match stands for a value does not depend on the memo."""
    found: list[tuple[int, list[tuple[bytes, Any]]]] = [
        (i, list(found_values([(parts[j], per[j])]).items())) for j, i in enumerate(todo) if per[j]]
    found += [(i, list(echo)) for i, echo in doc.answered if echo]
    if not found:
        return {}
    found.sort(key=lambda t: t[0])
    out: dict[bytes, Any] = {}
    for _, pairs in found:
        for value, m in pairs:
            out.setdefault(value, m)
    return dict(list(out.items())[:MAX_VALUES])


class _Result:
    __slots__ = ("news", "nested", "changes", "number_changes", "conflict")

    def __init__(self) -> None:
        self.news: dict[int, str] = {}  # index into JsonStrings.strs -> new value
        self.nested: list[tuple[Any, Any, str, str]] = []  # (container, key, old, new) JSON-in-string
        self.changes: dict[str, tuple[str, int]] = {}  # old -> (new, occurrences changed)
        self.number_changes: dict[str, tuple[str, int]] = {}  # integers (decimal text) likewise
        self.conflict = False


class JsonRedactor:
    def __init__(self, engine: Engine, prose: ProseFn | None = None, prose_max: int = 4096) -> None:
        self.engine = engine
        self.prose = prose
        self.prose_max = prose_max
        self.warnings: Counter[str] = Counter()
        # Schema keys repeat on every line: remember, per distinct key, whether a key rule could match it.
        self._key_cache: dict[str, bool] = {}
        self._clean_keys: set[str] = set()
        self._secret_keys: dict[str, bool] = {}
        self._person_keys: dict[str, bool] = {}
        # per mode, and one for strings scanned with their key
        self._memo: tuple[dict[str, _MemoHit], ...] = tuple({} for _ in range(_KEYED_MEMO + 1))
        # the output of a command that prints a secret, in a later record than the command (toolpair.py)
        pairs = ToolPairs(engine)
        self.pairs: ToolPairs | None = pairs if pairs.on else None

    # ------------------------------------------------------------------ public

    def redact_line(self, line: bytes, report: RedactionReport, carrier: str = "jsonl") -> bytes:
        """One JSONL line (no newline). Returns `line` itself when nothing changed."""
        if not self.needs_work(line):
            return line
        out = self.redact_doc(line, report, carrier)
        if out is None:
            self.warnings["jsonl-unparsable-line"] += 1
            return self.engine.redact_bytes(line, report, carrier + ":raw")
        return out

    def needs_work(self, raw: bytes) -> bool:
        eng = self.engine
        if self.prose is not None or eng.any_keyword(raw):
            return True
        if CHUNKS_MARK in raw or DELTA_MARK in raw:  # stream pieces: a keyword may be cut between two
            return True
        if _ENCODED_HINT.Match(UNANCHORED, raw, 0, len(raw))[0][0] >= 0:
            return True
        if b"\\" in raw:
            if (b"\\u" in raw or b"\\/" in raw) and self._hiding_escape(raw):
                return True
            # Always-on rules run on decoded strings: escapes in the raw line could hide a match.
            # Without any (a custom pack set), the decode pass's gate still sees a wrapped base64
            # run through its `\n` escapes.
            return not eng.keywords_json_safe or eng.has_always or eng.always_hit(raw)
        return eng.always_hit(raw)

    @staticmethod
    def _hiding_escape(raw: bytes) -> bool:
        return _HIDING_ESCAPE.Match(UNANCHORED, raw, 0, len(raw))[0][0] >= 0

    def redact_doc(self, raw: bytes, report: RedactionReport, carrier: str, depth: int = 0,
                   keep_layout: bool = False) -> bytes | None:
        """Redact one JSON document given as bytes; None if it is not JSON. Unchanged -> `raw` itself.

        A changed document is re-serialised compactly with orjson (the JSONL writers of every
        harness write compact JSON; orjson.dumps is ~10x faster than patching literals in place).
        With `keep_layout` (JSON files, JSON inside strings) the changed string literals are patched
        into the original bytes instead, so indentation and key order survive byte for byte.
        """
        parsed = _parse(raw)
        if parsed is None:
            return None
        root, std = parsed
        if type(root) is list and _byte_list(root):
            return None  # a key file's byte values (Solana's id.json): scanned as the text it is
        if isinstance(root, str):
            new = self._redact_root_string(root, report, carrier, depth)
            if new is None:
                return raw
            return self._dumps(new, std, raw)
        if not isinstance(root, (dict, list)):
            return raw
        root, std, doc = self._walk_doc(raw, root, std)
        pairs = self.pairs if depth == 0 else None
        targets = None
        if pairs is not None:
            pairs.scope(report)
            if pairs.wants(raw, True):
                targets = pairs.collect(root)
        res = self._redact_strings(doc, report, carrier, depth)
        if targets:
            linked = res or _Result()
            if self._link(doc, linked, targets, report, carrier):
                res = linked
                res.changes, res.number_changes, res.conflict = {}, {}, False
                self._changes(doc, res)
        if res is None:
            return raw
        if keep_layout or depth:
            patched = self._patch(raw, res)
            if patched is not None:
                return patched
        self._apply_tree(doc, res)
        return self._dumps(root, std, raw)

    # ------------------------------------------------------------------ walking

    def _person_key(self, k: str) -> bool:
        """Does k name a person's attribute (PERSON_KEY), its value scanned with it? (cached per key)"""
        known = self._person_keys.get(k)
        if known is None:
            if len(self._person_keys) > 20_000:
                self._person_keys.clear()
            known = self._person_keys[k] = len(k) <= PARENT_KEY_MAX and PERSON_KEY.search(k) is not None
        return known

    def _key_matters(self, k: str) -> bool:
        kb = k.encode("utf-8", "surrogatepass")
        hit = self.engine.may_match(kb)
        if len(self._key_cache) > 50_000:
            self._key_cache.clear()
            self._clean_keys.clear()
        self._key_cache[k] = hit
        if not hit:
            self._clean_keys.add(k)
        return hit

    def _walk(self, root: Any, ids: bool = True) -> JsonStrings:
        """The strings of a document to scan; id and signature values only when `ids` (a rule
        that applies to them may match somewhere in the document)."""
        doc = JsonStrings()
        strs, modes, locs, nested = doc.strs, doc.modes, doc.locs, doc.nested
        add_str, add_mode, add_loc = strs.append, modes.append, locs.append
        kcache = self._key_cache
        clean = self._clean_keys
        kind_of = _KEY_KIND.get
        secret_keys = self._secret_keys
        keyed = doc.keyed
        prose_on = self.prose is not None
        stack = [root]
        pop, push = stack.pop, stack.append
        nkeys = 0
        # containers under a secret-like key: {"db_password": {"sensitive": true, "value": ...}}
        # (terraform output), {"passwords": [...]}: their value / items are scanned with that key
        under_secret: dict[int, str] = {}
        # objects whose values under some keys are scanned with a context (in_parent, TF_RESULT)
        contexts: dict[int, dict[str, str]] = {}
        chunked: set[int] = set()  # ids of lists of stream pieces (chunk_list)
        delta_streams: list[list[dict[str, Any]]] = []  # streams kept one record per delta
        while stack:
            node = pop()
            inherited = under_secret.pop(id(node), None) if under_secret else None
            if type(node) is dict:
                nkeys += len(node)
                ctx = contexts.pop(id(node), None) if contexts else None
                if ("instances" in node or "values" in node) and node.get("type") == "random_password":
                    tf_random_password(node, contexts)
                if not GEO_KEYS.isdisjoint(node):
                    ctx = place_object(doc, node, ctx)
                opaque = "data" in node and _opaque_data(node)
                pair = (cookie_pair(node) if inherited == COOKIE_LIST
                        else secret_pair(node) if ("value" in node or "Value" in node or "ParameterValue" in node)
                        else USER_KEY_PAIR if len(node) == 2 and "key" in node and type(node.get("username")) is str
                        else PERSON_PAIR if "name" in node and ("email" in node or "login" in node) and person_object(node)
                        else None)
                if not node.keys() <= clean:  # some key may carry a path or a name
                    for k in node:
                        km = kcache.get(k)
                        if km is None:
                            km = self._key_matters(k)
                        if km:
                            add_str(k)
                            add_mode(MODE_KEYS)
                            add_loc((node, k, True))
                for k, v in node.items():
                    tv = type(v)
                    if tv is str:
                        if not v:
                            continue
                        if v[0] in _DIGITS and len(v) >= NUMBER_DIGITS and _measure_text(k, v):
                            continue  # an int64 written as a string (protobuf's JSON): as the integer
                        kind = kind_of(k)
                        if kind is not None:
                            if kind == _HEX or kind == _DATA or (kind == _PROSE and "encoding" in node):
                                enc = _attachment_encoding(node, kind)
                                if enc is not None:
                                    doc.encoded.append((node, k, v, enc))
                                    continue
                            if ((kind == _SKIP and v[0] != "{" and " " not in v) or (kind == _ID and _id_like(v))
                                    or (opaque and kind == _DATA)):
                                # kept from the generic rules, not from a token's own shape (and an
                                # id from the configured names); a "signature" that is JSON or has
                                # spaces (pi's JSON.stringify(item), an LSP signature) is text
                                if ids and not _unscanned_id(v):
                                    add_str(v)
                                    add_mode(MODE_IDS if kind == _ID else MODE_OPAQUE)
                                    add_loc((node, k, False))
                                continue
                            if prose_on and kind == _PROSE:
                                doc.prose.add(len(strs))
                        c0 = v[0]
                        if c0 == "{" or c0 == "[":
                            if len(v) > 1:
                                nested.append((node, k, v))
                                continue
                        elif ((c0 == "d" and v.startswith("data:")) or (len(v) >= 64 and c0 in _IMAGE_FIRST)) \
                                and _set_aside_media(doc, node, k, v):
                            continue
                        if pair is not None and k == pair[0]:
                            keyed[len(strs)] = pair[1]  # {"name": "DB_PASSWORD", "value": ...}
                        elif ctx is not None and k in ctx:
                            keyed[len(strs)] = ctx[k]
                        elif k in JWK_PRIVATE and type(node.get("kty")) is str:
                            keyed[len(strs)] = JWK_CONTEXT + k  # scanned as `"kty", "d": "<value>"`
                        elif kind is None:
                            sk = secret_keys.get(k)
                            if sk is None:
                                if len(secret_keys) > 20_000:
                                    secret_keys.clear()
                                sk = secret_keys[k] = _SECRET_KEY.search(k) is not None
                            if sk:
                                keyed[len(strs)] = k
                            elif inherited is not None and k in VALUE_KEYS:
                                keyed[len(strs)] = inherited
                            elif inherited is not None and "." in k and " " not in k and len(k) <= PARENT_KEY_MAX:
                                # Composer's auth.json {"bearer": {"<host>": "<token>"}}
                                keyed[len(strs)] = f'{inherited}": {{"{k}'
                            elif self._person_key(k):
                                keyed[len(strs)] = k
                        add_str(v)
                        add_mode(MODE_ALL)
                        add_loc((node, k, False))
                    elif tv is dict or tv is list or tv is _Pairs:
                        if (tv is list and (len(v) == 32 or len(v) == 64) and _byte_list(v)
                                and _PUBLIC_BYTES_KEY.search(k) is None):
                            # a key written as its bytes ({"secretKey": [12, 200, ...]}): scanned as
                            # the text it is, and replaced by the string redaction makes of it
                            if _SECRET_KEY.search(k) is not None:
                                keyed[len(strs)] = k
                            add_str(_byte_text(v))
                            add_mode(MODE_ALL)
                            add_loc((node, k, False))
                            continue
                        if v:
                            sk = secret_keys.get(k)
                            if sk is None:
                                if len(secret_keys) > 20_000:
                                    secret_keys.clear()
                                sk = secret_keys[k] = _SECRET_KEY.search(k) is not None
                            if sk and kind_of(k) is None:
                                under_secret[id(v)] = singular(k)
                            if tv is dict and len(k) <= PARENT_KEY_MAX and not v.keys().isdisjoint(GENERIC_CHILD):
                                contexts[id(v)] = in_parent(k, v)
                            elif tv is dict and k in PERSON_PARENT:
                                contexts[id(v)] = person_in_parent(k, v, "{")
                            elif tv is list and k in PERSON_LIST:
                                if all(type(item) is str for item in v):
                                    under_secret[id(v)] = k  # ["Name", ...]: each scanned as `"authors": "Name"`
                                for item in v:
                                    if type(item) is dict and id(item) not in contexts:
                                        contexts[id(item)] = person_in_parent(k, item, "[{")
                            elif tv is list and chunk_list(node, k, v):
                                chunked.add(id(v))
                        push(v)
                    elif tv is int and (v >= _NUMBER_MIN or v <= -_NUMBER_MIN):
                        kind = kind_of(k)
                        if (kind != _ID and kind != _SKIP and not k.endswith(_ID_SUFFIXES)
                                and not _random_number_key(k) and not _counter_key(k)):
                            doc.numbers.add(len(strs))
                            add_str(str(v))
                            add_mode(MODE_ALL)
                            add_loc((node, k, False))
            else:
                # ["Authorization", "Basic ..."], argv ["aws", ..., "aws_secret_access_key", "<secret>"],
                # ["--token", "<token>"]: a string right after a secret-like name is scanned with it
                name_before = None
                pieces = id(node) in chunked if chunked else False
                if node and type(node[0]) is dict:
                    deltas = delta_records(node)
                    if deltas:
                        delta_streams.append(deltas)
                argv = not pieces and argv_like(node)
                lines = pieces or (not argv and lines_like(node))
                members: list[int | None] = []
                for i, v in enumerate(node):
                    tv = type(v)
                    if tv is str:
                        if argv or lines:
                            members.append(len(strs))
                        pair_name, name_before = name_before, (
                            v if 2 < len(v) <= 100 and " " not in v and _SECRET_KEY.search(v) is not None
                            and not (i == 0 and argv and listed_program(v)) else None)
                        if not v:
                            continue
                        c0 = v[0]
                        if pieces:  # a piece is no JSON document or media of its own
                            pass
                        elif c0 == "{" or c0 == "[":
                            if len(v) > 1:
                                nested.append((node, i, v))
                                continue
                        elif ((c0 == "d" and v.startswith("data:")) or (len(v) >= 64 and c0 in _IMAGE_FIRST)) \
                                and _set_aside_media(doc, node, i, v):
                            continue
                        if pair_name is not None and FIELD_NAME.fullmatch(v) is None:
                            keyed[len(strs)] = pair_name
                        elif inherited is not None:
                            keyed[len(strs)] = inherited
                        add_str(v)
                        add_mode(MODE_ALL)
                        add_loc((node, i, False))
                    elif tv is dict or tv is list or tv is _Pairs:
                        if tv is list and (len(v) == 32 or len(v) == 64) and _byte_list(v):
                            add_str(_byte_text(v))  # a key as its bytes, in a list of them: as above
                            add_mode(MODE_ALL)
                            add_loc((node, i, False))
                            continue
                        if inherited is not None and tv is dict:
                            # {"cookies": [{"name": ..., "value": ...}]}, Postman's {"apikey": [{"key":
                            # "value", "value": ...}]}: an object of a list under a secret-like key
                            under_secret[id(v)] = inherited
                        push(v)
                    elif tv is int and (v >= _NUMBER_MIN or v <= -_NUMBER_MIN):
                        doc.numbers.add(len(strs))
                        add_str(str(v))
                        add_mode(MODE_ALL)
                        add_loc((node, i, False))
                if argv:
                    self._add_argv(doc, node, members)
                elif lines:
                    self._add_lines(doc, node, members, b"" if pieces else b"\n")
        if delta_streams:
            self._add_deltas(doc, delta_streams)
        doc.nkeys = nkeys
        return doc

    def _add_deltas(self, doc: JsonStrings, streams: list[list[dict[str, Any]]]) -> None:
        """The deltas of each stream, per content block (delta type, index, tool call id), as one
        text of pieces joined with nothing (as a `*-chunks` list is): the strings were walked one
        by one, this scans what they stand for."""
        wanted = {id(c) for stream in streams for c in stream}
        at = {(id(node), k): i for i, (node, k, is_key) in enumerate(doc.locs)
              if not is_key and id(node) in wanted and k in DELTA_KEYS}
        for stream in streams:
            blocks: dict[tuple[Any, ...], tuple[list[str], list[int | None]]] = {}
            for c in stream:
                for k in DELTA_KEYS:
                    v = c.get(k)
                    if type(v) is str and v:
                        texts, members = blocks.setdefault((c.get("type"), c.get("index"), c.get("id")), ([], []))
                        texts.append(v)
                        members.append(at.get((id(c), k)))
            for texts, members in blocks.values():
                if len(texts) > 1:
                    self._add_lines(doc, texts, members, b"")

    @staticmethod
    def _add_argv(doc: JsonStrings, node: list[str], members: list[int | None]) -> None:
        """The argv list `node` as one shell line to scan; `members[k]`: the index into doc.strs of
        item k when it was added there as an ordinary string (set aside ones are context only)."""
        words: list[bytes] = []
        where: list[tuple[int, int]] = []
        pos = 0
        strs = doc.strs
        for k, v in enumerate(node):
            w, off = shell_word(v)
            i = members[k]
            if i is not None and i < len(strs) and strs[i] is v and doc.modes[i] == MODE_ALL:
                where.append((i, pos + off))
            words.append(w)
            pos += len(w) + 1
        if where:
            doc.argv.append((b" ".join(words), where, -1))
            doc.argv_members.update(i for i, _ in where)

    @staticmethod
    def _add_lines(doc: JsonStrings, node: list[str], members: list[int | None], sep: bytes = b"\n") -> None:
        """The list of lines `node` as the text it stands for; `members` as for _add_argv. A diff's lines
        (every item starts with a marker) are two texts, the new side (context and + lines) and the old
        one (context and - lines), markers off. `where` holds each item's offset in the text less its
        marker's length: the item's own offsets."""
        strip = 1 if sep and all(v and v[0] in DIFF_MARKS for v in node) else 0
        sides = ("+", "-") if strip else ("",)
        strs = doc.strs
        for side in sides:
            words: list[bytes] = []
            where: list[tuple[int, int]] = []
            pos = 0
            for k, v in enumerate(node):
                if strip and v[0] != " " and v[0] != side:
                    continue
                w = v.encode("utf-8", "surrogatepass")[strip:]
                i = members[k]
                if i is not None and i < len(strs) and strs[i] is v and doc.modes[i] == MODE_ALL:
                    where.append((i, pos - strip))
                words.append(w)
                pos += len(w) + len(sep)
            if where and len(words) > 1:
                doc.argv.append((sep.join(words), where, strip if sep else PIECES))
                doc.argv_members.update(i for i, _ in where)

    def _argv_matches(self, doc: JsonStrings, found: dict[int, list[Any]], first: int) -> dict[int, list[Any]]:
        """Matches of the argv lines (parts first, first + 1, ... of the scan) that lie inside one
        item, in that item's own byte offsets: {index into doc.strs: matches}."""
        out: dict[int, list[Any]] = {}
        strs = doc.strs
        for k, (line, where, split) in enumerate(doc.argv):
            ms = found.get(first + k)
            if not ms:
                continue
            if split == PIECES:
                self._piece_matches(line, where, ms, strs, out)
                continue
            if split >= 0:  # lines: a match's part in each item it covers (never an item's diff marker)
                for m in ms:
                    for i, off in where:
                        lo = off + split
                        end = off + len(strs[i].encode("utf-8", "surrogatepass"))
                        s, e = max(m.start, lo), min(m.end, end)
                        if s < e:
                            out.setdefault(i, []).append(m._replace(start=s - off, end=e - off))
                continue
            for m in ms:
                if VALUE_REFERENCE.fullmatch(line, m.start, m.end) is not None:
                    continue
                for i, off in where:
                    end = off + len(strs[i].encode("utf-8", "surrogatepass"))
                    if off <= m.start and m.end <= end:
                        out.setdefault(i, []).append(m._replace(start=m.start - off, end=m.end - off))
                        break
        return out

    def _piece_matches(self, text: bytes, where: list[tuple[int, int]], ms: list[Any], strs: list[str],
                       out: dict[int, list[Any]]) -> None:
        """A match over stream pieces: the first piece it covers takes the replacement of the whole
        value, the others lose their part, so the joined pieces read as the redacted text."""
        for m in ms:
            repl = self.engine.replacement(m, text[m.start:m.end]).decode("utf-8", "surrogatepass")
            for i, off in where:
                s, e = max(m.start, off), min(m.end, off + len(strs[i].encode("utf-8", "surrogatepass")))
                if s < e:
                    out.setdefault(i, []).append(m._replace(start=s - off, end=e - off, label=repl, replace=LITERAL))
                    repl = ""

    def _walk_doc(self, raw: bytes, root: Any, std: int) -> tuple[Any, int, JsonStrings]:
        """The document walked, every value of a repeated key included: (root, std flag, doc)."""
        ids = self.engine.ids_may_match(raw) or ((b"\\u" in raw or b"\\/" in raw) and self._hiding_escape(raw))
        doc = self._walk(root, ids)
        if _may_repeat_keys(raw, doc.nkeys):  # or a quote-colon sits in a string
            pairs = _parse_pairs(raw)
            if pairs is not None:
                self.warnings["json-repeated-keys"] += 1
                root, std, doc = pairs, _PAIRS, self._walk(pairs, ids)
        if doc.places:
            add_places(doc, raw)
        return root, std, doc

    # ------------------------------------------------------------------ redacting

    def _redact_root_string(self, s: str, report: RedactionReport, carrier: str, depth: int) -> str | None:
        if _media_string(s):
            return None
        doc = JsonStrings()
        doc.strs.append(s)
        doc.modes.append(MODE_ALL)
        doc.locs.append((None, None, False))
        if self.prose is not None:
            doc.prose.add(0)
        if s[:1] in ("{", "[") and len(s) > 1:
            doc.strs.clear()
            doc.modes.clear()
            doc.locs.clear()
            doc.nested.append((None, None, s))
        res = self._redact_strings(doc, report, carrier, depth)
        if res is None:
            return None
        return res.news[0] if res.news else res.nested[0][3]

    def redact_string(self, s: str, report: RedactionReport, carrier: str, prose: bool = False,
                      depth: int = 0, mode: int = MODE_ALL, key: str | None = None) -> str | None:
        """One string value as the walker redacts it in a document at `depth` (JSON inside it
        included; `prose` where its key is a prose key; scanned with `key` when that is a
        secret-like key); None when unchanged. The caller has already set aside what the walker
        skips (opaque keys, media strings) and decoded attachments (`redact_attachment`)."""
        doc = JsonStrings()
        if s[:1] in ("{", "[") and len(s) > 1:
            doc.nested.append((None, None, s))
        else:
            doc.strs.append(s)
            doc.modes.append(mode)
            doc.locs.append((None, None, False))
            if prose and self.prose is not None:
                doc.prose.add(0)
            if key is not None and mode == MODE_ALL and self.secret_key(key):
                doc.keyed[0] = key
        res = self._redact_strings(doc, report, carrier, depth)
        if res is None:
            return None
        return res.news[0] if res.news else res.nested[0][3]

    def _redact_strings(self, doc: JsonStrings, report: RedactionReport, carrier: str, depth: int) -> _Result | None:
        """Scan all strings of a document in one engine pass (and recurse into JSON-in-strings)."""
        res = _Result()
        todo = self._prepare(doc, res, report, carrier, depth)
        parts = [_scan_text(doc, i).encode("utf-8", "surrogatepass") for i in todo]
        modes = [doc.modes[i] for i in todo]
        n = len(parts)
        if doc.argv:
            parts += [line for line, _, _ in doc.argv]
            modes += [MODE_ALL] * len(doc.argv)
        geo_at = len(parts)
        if doc.geo:
            parts += [text for text, _, _, _ in doc.geo]
            modes += [MODE_ALL] * len(doc.geo)
        found = self.engine.scan_segments(parts, modes) if parts else {}
        extra = self._argv_matches(doc, found, n) if doc.argv else None
        self._finish(doc, res, report, carrier, todo, parts[:n], found, extra)
        if doc.geo:
            self._place_matches(doc, res, found, geo_at, report, carrier)
        if not res.news and not res.nested:
            return None
        self._changes(doc, res)
        return res

    @staticmethod
    def _changes(doc: JsonStrings, res: _Result) -> None:
        """Each changed literal's new value and count, for _patch (res.conflict when one value has
        two)."""
        strs, numbers = doc.strs, doc.numbers
        pairs = [(strs[i], new, i in numbers) for i, new in res.news.items()]
        pairs += [(old, new, False) for _, _, old, new in res.nested]
        for old, new, number in pairs:
            changes = res.number_changes if number else res.changes
            prev = changes.get(old)
            if prev is None:
                changes[old] = (new, 1)
            elif prev[0] != new:
                res.conflict = True
            else:
                changes[old] = (new, prev[1] + 1)

    def _prepare(self, doc: JsonStrings, res: _Result, report: RedactionReport, carrier: str, depth: int) -> list[int]:
        """Recurse into JSON-in-strings; answer memoised short strings; return the strings to scan."""
        for node, key, v in doc.nested:
            inner = v.encode("utf-8", "surrogatepass")
            out = None
            if depth < MAX_NESTING:
                if not self.needs_work(inner):
                    continue
                out = self.redact_doc(inner, report, "json-in-string", depth + 1, keep_layout=True)
            if out is None:  # not JSON after all: an ordinary string
                doc.strs.append(v)
                doc.modes.append(MODE_ALL)
                doc.locs.append((node, key, False))
            elif out is not inner:
                res.nested.append((node, key, v, out.decode("utf-8", "surrogatepass")))
        for node, key, v, enc in doc.encoded:
            payload = attachments.decode(v, enc)
            if payload is None:  # not what it claimed to be: an ordinary string
                doc.strs.append(v)
                doc.modes.append(MODE_ALL)
                doc.locs.append((node, key, False))
                continue
            out = self._redact_attachment(payload, report, depth)
            if out != payload:
                res.nested.append((node, key, v, attachments.encode(v, enc, out)))
        strs, modes, keyed = doc.strs, doc.modes, doc.keyed
        memo = self._memo
        key_carrier = carrier + ":key"
        todo: list[int] = []
        members = doc.argv_members
        for i, s in (enumerate(strs) if not doc.geo else _outside(strs, doc.geo_span)):
            if len(s) <= MEMO_MAX_LEN and i not in members:  # short strings repeat across lines: cwd, paths, names
                hit = memo[modes[i]].get(s) if i not in keyed else memo[_KEYED_MEMO].get(_scan_text(doc, i))
                if hit is not None:
                    new, rule_ids, echo = hit
                    doc.answered.append((i, echo))
                    if rule_ids:
                        res.news[i] = new
                        c = key_carrier if modes[i] == MODE_KEYS else carrier
                        for rid in rule_ids:
                            report.add(rid, c)
                    continue
            todo.append(i)
        return todo

    def _finish(self, doc: JsonStrings, res: _Result, report: RedactionReport, carrier: str, todo: list[int],
                parts: list[bytes], found: dict[int, list[Any]], extra: dict[int, list[Any]] | None = None) -> None:
        eng = self.engine
        strs, modes, keyed = doc.strs, doc.modes, doc.keyed
        key_carrier = carrier + ":key"
        spans: list[tuple[int, int]] = []  # each string's value within its part
        per: list[list[Any] | None] = []
        for j, i in enumerate(todo):
            ms = found.get(j)
            key = keyed.get(i) if keyed else None
            lo, hi = _value_bounds(key, parts[j])
            if key is not None and ms:
                ms = _clip(ms, lo, hi)  # the key and quotes stay as they are
            more = extra.get(i) if extra else None
            if more:  # found in the argv line this string is an item of
                ms = _merge(ms or [], more, lo)
            spans.append((lo, hi))
            per.append(ms)
        values = _document_values(doc, todo, parts, per)
        for j, i in enumerate(todo):
            s = strs[i]
            ms = per[j]
            key = keyed.get(i) if keyed else None
            lo, hi = spans[j]
            memo_mode, memo_key = (modes[i], s) if key is None else (_KEYED_MEMO, _scan_text(doc, i))
            if extra and extra.get(i):
                memo_mode = -1  # depends on the item's neighbours: not remembered
            if values and modes[i] == MODE_ALL:
                echoed = echo_matches(parts[j], values, ms or [], lo, hi)
                if echoed:  # a value found in another string of the document
                    ms = merged(ms or [], echoed)
                    memo_mode = -1
            if ms:
                new_b = eng.apply(parts[j], ms, report, key_carrier if modes[i] == MODE_KEYS else carrier)
                if key is not None:
                    new_b = new_b[lo:-1]
                new = res.news[i] = new_b.decode("utf-8", "surrogatepass")
                if len(s) <= MEMO_MAX_LEN and memo_mode >= 0:
                    echo = tuple(found_values([(parts[j], ms)]).items())
                    self._remember(memo_mode, memo_key, (new, tuple(m.rule_id for m in ms), echo))
            elif len(s) <= MEMO_MAX_LEN and memo_mode >= 0:
                self._remember(memo_mode, memo_key, (s, (), ()))
        if values and doc.answered:
            self._echo_answered(doc, res, report, carrier, values)
        if self.prose is not None:
            for i in doc.prose:
                s = res.news.get(i, strs[i])
                if len(s) <= self.prose_max:
                    t = self.prose(s, report, carrier)
                    if t != s:
                        res.news[i] = t

    def _echo_answered(self, doc: JsonStrings, res: _Result, report: RedactionReport, carrier: str,
                       values: dict[bytes, Any]) -> None:
        """Strings answered from the memo (their result alone) whose result still holds a value found
        elsewhere in the document: scanned again, with its echoes (the memo keeps no spans); only the
        echoes are counted (the memo's answer was)."""
        for i, _ in doc.answered:
            if doc.modes[i] != MODE_ALL:
                continue
            now = res.news.get(i, doc.strs[i]).encode("utf-8", "surrogatepass")
            if not any(v in now for v in values):
                continue
            text = _scan_text(doc, i).encode("utf-8", "surrogatepass")
            key = doc.keyed.get(i) if doc.keyed else None
            lo, hi = _value_bounds(key, text)
            ms = self.engine.scan_bytes(text, MODE_ALL)
            if key is not None:
                ms = _clip(ms, lo, hi)
            echoed = echo_matches(text, values, ms, lo, hi)
            if not echoed:
                continue
            new_b = self.engine.apply(text, merged(ms, echoed), None, carrier)
            res.news[i] = (new_b if key is None else new_b[lo:-1]).decode("utf-8", "surrogatepass")
            for m in echoed:
                report.add(m.rule_id, carrier)

    def _place_matches(self, doc: JsonStrings, res: _Result, found: dict[int, list[Any]], first: int,
                       report: RedactionReport, carrier: str) -> None:
        """A coordinate pair (doc.geo, parts first, first + 1, ... of the scan) that a match covers from
        its lat value to its end: both values become the match's one token."""
        for k, (text, lat_at, i, j) in enumerate(doc.geo):
            for m in found.get(first + k, ()):
                if m.start <= lat_at and m.end == len(text):
                    token = self.engine.replacement(m, text[m.start:m.end]).decode("utf-8", "surrogatepass")
                    res.news[i] = res.news[j] = token
                    report.add(m.rule_id, carrier)
                    break

    def _scan_docs(self, docs: list[tuple[int, Any, int, JsonStrings, str]],
                   report: RedactionReport) -> list[tuple[int, Any, int, JsonStrings, _Result]]:
        """Walked documents (index, root, std, doc, carrier) scanned in one engine pass; each
        comes back with its _Result as if scanned alone. A string repeated in the batch is
        scanned once: short ones (cwd, paths, names) and long ones (a tool result also kept as
        the tool's own output on the same line); the batch holds them anyway."""
        pending: list[tuple[int, Any, int, JsonStrings, str, _Result, list[int], list[int], int, int]] = []
        parts: list[bytes] = []
        modes: list[int] = []
        seen: dict[tuple[int, str], int] = {}
        for k, root, std, doc, carrier in docs:
            res = _Result()
            todo = self._prepare(doc, res, report, carrier, 0)
            where = []
            for i in todo:
                s, m = _scan_text(doc, i), doc.modes[i]
                j = seen.get((m, s))
                if j is None:
                    j = seen[(m, s)] = len(parts)
                    parts.append(s.encode("utf-8", "surrogatepass"))
                    modes.append(m)
                where.append(j)
            argv_at = len(parts)
            for line, _, _ in doc.argv:
                parts.append(line)
                modes.append(MODE_ALL)
            geo_at = len(parts)
            for text, _, _, _ in doc.geo:
                parts.append(text)
                modes.append(MODE_ALL)
            pending.append((k, root, std, doc, carrier, res, todo, where, argv_at, geo_at))
        found = self.engine.scan_segments(parts, modes) if parts else {}
        out = []
        for k, root, std, doc, carrier, res, todo, where, argv_at, geo_at in pending:
            local = {n: found[j] for n, j in enumerate(where) if j in found}
            extra = self._argv_matches(doc, found, argv_at) if doc.argv else None
            self._finish(doc, res, report, carrier, todo, [parts[j] for j in where], local, extra)
            if doc.geo:
                self._place_matches(doc, res, found, geo_at, report, carrier)
            out.append((k, root, std, doc, res))
        return out

    def redact_lines(self, lines: list[bytes], report: RedactionReport, carrier: str = "jsonl") -> list[bytes]:
        """Many JSONL lines at once (same result as one by one; one engine pass per batch)."""
        out = list(lines)
        docs: list[tuple[int, Any, int, JsonStrings, str]] = []
        pairs = self.pairs
        if pairs is not None:
            pairs.scope(report)
        links: dict[int, list[Target]] = {}
        for k, line in enumerate(lines):
            work = self.needs_work(line)
            paired = pairs is not None and pairs.wants(line, work)
            if not work and not paired:
                continue
            parsed = _parse(line)
            if parsed is None or not isinstance(parsed[0], (dict, list)):
                if work:
                    out[k] = self.redact_line(line, report, carrier)
                continue
            walked = self._walk_doc(line, *parsed)
            if paired:
                targets = pairs.collect(walked[0])  # type: ignore[union-attr]
                if targets:
                    links[k] = targets
                elif not work:
                    continue
            docs.append((k, *walked, carrier))
        for k, root, std, doc, res in self._scan_docs(docs, report):
            if links and k in links:
                self._link(doc, res, links[k], report, carrier)
            if res.news or res.nested:
                self._apply_tree(doc, res)
                out[k] = self._dumps(root, std, lines[k])
        return out

    def redact_docs(self, raws: list[bytes], report: RedactionReport, carriers: list[str]) -> list[bytes | None]:
        """Many JSON documents at once, each as `redact_doc(raw, report, carrier, keep_layout=True)`
        gives it (None: not JSON), in one engine pass (SQLite cells: a message or part per row)."""
        out: list[bytes | None] = list(raws)
        docs: list[tuple[int, Any, int, JsonStrings, str]] = []
        pairs = self.pairs
        if pairs is not None:
            pairs.scope(report)
        links: dict[int, list[Target]] = {}
        for k, raw in enumerate(raws):
            parsed = _parse(raw)
            if parsed is None:
                out[k] = None
                continue
            if type(parsed[0]) is list and _byte_list(parsed[0]):
                out[k] = None  # a key file's byte values: the cell is scanned as text
                continue
            if not isinstance(parsed[0], (dict, list)):  # a string or a number: as redact_doc does it
                out[k] = self.redact_doc(raw, report, carriers[k], keep_layout=True)
                continue
            walked = self._walk_doc(raw, *parsed)
            if pairs is not None and pairs.wants(raw, True):
                targets = pairs.collect(walked[0])
                if targets:
                    links[k] = targets
            docs.append((k, *walked, carriers[k]))
        for k, root, std, doc, res in self._scan_docs(docs, report):
            if links and k in links:
                self._link(doc, res, links[k], report, carriers[k])
            if not res.news and not res.nested:
                continue
            self._changes(doc, res)
            patched = self._patch(raws[k], res)
            if patched is None:
                self._apply_tree(doc, res)
                patched = self._dumps(root, std, raws[k])
            out[k] = patched
        return out

    def _link(self, doc: JsonStrings, res: _Result, targets: list[Target], report: RedactionReport,
              carrier: str) -> bool:
        """The output strings of a result paired with a secret-printing call (targets), scanned after
        their command line on top of what the walk made of them (res); True when one changed."""
        pairs = self.pairs
        assert pairs is not None
        where = {(id(node), key): i for i, (node, key, is_key) in enumerate(doc.locs) if not is_key}
        nested = {(id(node), key): j for j, (node, key, _old, _new) in enumerate(res.nested)}
        changed = False
        seen: set[tuple[int, Any]] = set()
        for node, key, line, whole in targets:
            at = (id(node), key)
            if at in seen:
                continue
            seen.add(at)
            i = where.get(at)
            if i is not None:
                new = pairs.scan_output(res.news.get(i, doc.strs[i]), line, report, carrier, whole)
                if new is not None:
                    res.news[i] = new
                    changed = True
                continue
            v = node[key]
            if type(v) is not str or v[:1] != "{":
                continue  # set aside (media) or not walked
            j = nested.get(at)
            new = pairs.scan_output(v if j is None else res.nested[j][3], line, report, carrier, whole)
            if new is not None:
                if j is None:
                    res.nested.append((node, key, v, new))
                else:
                    res.nested[j] = (node, key, v, new)
                changed = True
        return changed

    def secret_key(self, key: str) -> bool:
        """Is a string under this key scanned as `"key": "value"` (_SECRET_KEY)?"""
        return _KEY_KIND.get(key) is None and _SECRET_KEY.search(key) is not None

    @staticmethod
    def attachment_encoding(node: dict[str, Any], key: str) -> str | None:
        """How the string under `key` of `node` encodes a text attachment, if it does."""
        kind = _KEY_KIND.get(key)
        return _attachment_encoding(node, kind) if kind == _HEX or kind == _DATA else None

    def redact_attachment(self, s: str, enc: str, report: RedactionReport, depth: int) -> str | None:
        """An encoded attachment string decoded, redacted and encoded again; None when it is
        unchanged or does not decode (then it is an ordinary string)."""
        payload = attachments.decode(s, enc)
        if payload is None:
            return None
        out = self._redact_attachment(payload, report, depth)
        return None if out == payload else attachments.encode(s, enc, out)

    def _redact_attachment(self, payload: bytes, report: RedactionReport, depth: int) -> bytes:
        """Decoded attachment bytes: JSON redacted with its layout, other text as text, binary kept."""
        if b"\x00" in payload:
            return payload
        try:
            payload.decode("utf-8")
        except UnicodeDecodeError:
            return payload
        if payload[:64].lstrip()[:1] in (b"{", b"[") and depth < MAX_NESTING and self.needs_work(payload):
            out = self.redact_doc(payload, report, "attachment", depth + 1, keep_layout=True)
            if out is not None:
                return out
        return self.engine.redact_bytes(payload, report, "attachment")

    def _remember(self, mode: int, s: str, value: _MemoHit) -> None:
        memo = self._memo[mode]
        if len(memo) >= MEMO_ENTRIES:
            memo.clear()
        memo[s] = value

    # ------------------------------------------------------------------ output

    def _patch(self, raw: bytes, res: _Result) -> bytes | None:
        """Replace changed string literals (and integers) in the original bytes; None when not
        provably exact."""
        if res.conflict or b"\\u" in raw or b"\\/" in raw:
            # Without \u and \/ escapes every string has exactly one encoding, orjson's.
            return None
        subs: list[tuple[int, int, bytes, str, bool]] = []
        for changes, number in ((res.changes, False), (res.number_changes, True)):
            for old, (new, _n) in changes.items():
                try:
                    old_lit = old.encode("ascii") if number else orjson.dumps(old)
                    new_lit = orjson.dumps(new)
                except orjson.JSONEncodeError:  # lone surrogate
                    return None
                p = raw.find(old_lit)
                while p != -1:
                    subs.append((p, len(old_lit), new_lit, old, number))
                    p = raw.find(old_lit, p + 1)
        subs.sort(key=lambda x: x[0])
        # Keep only occurrences that start a string literal (an unescaped quote at even parity)
        # or are a whole integer literal outside every string.
        t = raw.replace(b"\\\\", b"__").replace(b'\\"', b"__") if b"\\" in raw else raw
        kept = []
        found: Counter[tuple[str, bool]] = Counter()
        parity = 0
        prev = 0
        for p, n, lit, old, number in subs:
            parity += t.count(b'"', prev, p)
            prev = p
            if parity % 2:
                continue
            if number:
                if (p and t[p - 1] in _NUMBER_BYTES) or (p + n < len(t) and t[p + n] in _NUMBER_BYTES):
                    continue  # part of a longer number
            elif t[p] != 0x22:
                continue
            kept.append((p, n, lit))
            found[(old, number)] += 1
        for changes, number in ((res.changes, False), (res.number_changes, True)):
            for old, (_new, n_changed) in changes.items():
                if found[(old, number)] != n_changed:
                    return None  # the same value also occurs where it stays unchanged
        out = []
        pos = 0
        for p, n, lit in kept:
            if p < pos:
                return None
            out.append(raw[pos:p])
            out.append(lit)
            pos = p + n
        out.append(raw[pos:])
        return b"".join(out)

    @staticmethod
    def _apply_tree(doc: JsonStrings, res: _Result) -> None:
        renames: dict[int, tuple[dict[str, Any], dict[str, str]]] = {}
        for i, new in res.news.items():
            node, key, is_key = doc.locs[i]
            if is_key:
                renames.setdefault(id(node), (node, {}))[1][key] = new
            else:
                node[key] = new
        for node, key, _old, new in res.nested:
            node[key] = new
        for node, mapping in renames.values():
            items = list(node.items())
            node.clear()
            for k, v in items:
                node[mapping.get(k, k)] = v

    @staticmethod
    def _dumps(obj: Any, std: int, raw: bytes) -> bytes:
        if std == _PAIRS:
            return _encode_pairs(obj).encode("ascii")
        pretty = b"\n" in raw.strip()
        if not std:
            try:
                return orjson.dumps(obj, option=orjson.OPT_INDENT_2) if pretty else orjson.dumps(obj)
            except (TypeError, orjson.JSONEncodeError):
                pass
        return json.dumps(obj, ensure_ascii=True, separators=(",", ":") if not pretty else None,
                          indent=2 if pretty else None).encode("ascii")
