"""The one-pass matcher: every rule over a buffer with google-re2, gated by keywords.

Design (measured with bench/redact.py on Claude-Code-like JSONL, 296 rules of the
built-in packs, one core: ~60 MB/s for JSONL files; presidio ~0.2 MB/s):

* Text is matched as UTF-8 bytes through the low-level RE2 binding; a Python
  `str` is encoded once (surrogatepass), never matched as `str` (the wrapper's
  per-match offset conversion costs more than the match).
* Planning is one RE2::Set pass of literals over the buffer: every keyword
  (case-insensitive), the markers of base64 images and data: URIs, and a `\\A`
  sentinel (always matches, so an empty answer means the Set ran out of DFA
  memory and we fall back to "everything"); then first-match searches for our
  own tokens and for each weak group's combined pattern (below). Patterns are
  kept out of the Set: it reports every entry that matches anywhere, so it never
  stops early, and the weak groups' patterns made its DFA 40x slower on text with
  base64 runs. A rule is never tried on text without one of its keywords.
* Rules are grouped. STRONG rules have specific keywords (`ghp_`, `/home/`,
  `-----begin`): the ones whose keywords occur run their own regex. Weak rules
  (ALWAYS: no keyword or a one/two-character one such as `@`, `.`, `-`; COMMON:
  keywords like `key`, `token`, `secret`) would each cost a full DFA pass on
  almost every text, so their group is one alternation searched once: only when
  it matches are the group's rules run, and in `scan_segments` only on the strings
  that a match of the alternation touched. COMMON's alternation is cut in chunks of
  rules that share keywords (WEAK_CHUNK), and only the chunks holding a rule whose
  keyword occurs are searched: one alternation of all of them kept ~22 MB of DFA
  states in every process.
* Runtime-term rules (usernames, extra terms) are literal: matched with
  `bytes.find` on the lowercased buffer plus a boundary check, several times
  cheaper per hit than an RE2 call (usernames hit in nearly every path).
* `scan_segments` scans many strings (the decoded strings of JSON documents, one
  batch of JSONL lines at a time) joined by newlines and maps matches back. A
  match crossing a separator is redone on the single strings; rules with anchors
  scan the joined text with line anchors and every match near a newline is
  re-checked on its string alone; keywords are checked per string. The result is
  exactly what scanning each string alone gives (a randomized test checks this).
* Filters on the secret group: same_as (equal to another group), min_length, entropy, allowlist (cached per
  value; its programs compiled on the rule's first candidate and shared by the process's engines),
  validator, and for generated term rules the "bounded by non-alphanumerics" check.
* Secret columns of text tables (psql, mysql, sqlite, markdown: the cells under a `password` /
  `api_key` header) are no regex's work: `tables.secret_cells` finds them, as the rules
  `table-password-column` / `table-secret-column`, whenever the built-in secrets pack's generic
  rules are loaded. A column named for a national identifier (`sin`, `BSN`, `passport_no`:
  tables.ID_COLUMNS) is read too, whenever one of its rules (rules/pii.toml) is loaded: a cell is
  that rule's candidate when the rule's validator takes it. A pattern in the literal Set pass gates it (a separator-like run), then a
  search for a secret word; `scan_segments` then seeks separator lines in the joined text and reads only the strings
  holding one.
* Base64 of whole files (`base64 .env`): a rule with `decode = "base64"` is no pattern rule but
  a pass of its own (decoded.py): its regex finds base64 runs (wrapped lines included) in MODE_ALL
  strings, the runs that decode to text are scanned by this engine again, and a run whose text
  holds a finding of the rule's `decode_packs` is one candidate of the rule, the whole run.
* Never touched: base64 images and data: URIs, our own tokens (`<LABEL:1a2b3c4d>`,
  `<REDACTED:X>`, `user-1a2b`), and a match that is only an id (the whole match lies
  inside a UUID, a 7-64 character lowercase hex run with a letter, such as a git SHA
  or sha256, or a tool-call/message/request id like `toolu_...`).
* Overlaps: identical spans keep the highest-confidence rule (then pack order);
  overlapping candidates form a cluster; a candidate covering the whole cluster
  wins, otherwise the union is replaced with the token of the highest-confidence,
  longest candidate. No matched byte survives, replacements never overlap.

Helpers in their own modules: re2scan (RE2 calls), regex_rewrite (a rule's pattern as line-anchored
and as prefilter superset), ansi (terminal codes), linenumbers (numbered file reads), termwrap (tokens
cut by a line wrap), words (word and identifier boundaries).
"""

from __future__ import annotations

import copy
import math
import re
import unicodedata
from bisect import bisect_right
from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable, Iterator, NamedTuple

import re2

from archiver.redact import decoded, tables
from archiver.redact.base import RedactionReport
from archiver.redact.pseudonym import Pseudonymizer
from archiver.redact.rules import BUILTIN_PACKS, Rule, decode_class, load_rules, rule_program
from archiver.redact.ansi import ANSI_TEXT, GluedView, blank_with_runs, glued_view, without_glued_codes
from archiver.redact.echoes import with_echoes
from archiver.redact.linenumbers import blank_line_numbers, has_line_numbers
from archiver.redact.re2scan import ANCHOR_START, UNANCHORED, first_span, iter_spans, re2_options
from archiver.redact.regex_rewrite import capped_repeats, cheap_unicode, gate_form, is_anchored, multiline
from archiver.redact.termwrap import (WORDLIKE, WRAP_MIN_CHAIN, WRAP_MIN_WIDTH, WRAP_RUN_BYTE, WRAPPED, break_len,
                                      display_width, head_line_width, joined_offset, run_end, unwrapped,
                                      vendor_prefixes, wrap_pattern)
from archiver.redact.words import in_identifier, term_spans, word_in, word_starts_in

# What a string is: any text (every rule), an object key, a path component, an id-like value
# (high-confidence secret rules and the configured terms, Rule.applies_to_ids), or an opaque one
# (signatures, encrypted content, image data: a token's own shape only, Rule.secret_shape)
MODE_ALL, MODE_KEYS, MODE_PATHS, MODE_IDS, MODE_OPAQUE = 0, 1, 2, 3, 4

_IMAGE_MARKERS = (b";base64,", b"iVBORw0KGgo", b"/9j/", b"R0lGOD", b"UklGR")
_IMAGE_RX = re2.compile(
    rb"data:[\w.+-]+/[\w.+-]+(?:;[\w.+-]+=[\w.+-]+)*;base64,[A-Za-z0-9+/=]+"
    rb"|(?:iVBORw0KGgo|/9j/|R0lGOD|UklGR)[A-Za-z0-9+/]{32,}={0,2}"
)._regexp  # noqa: SLF001
_DECODE_GATE = re2.compile(decoded.TEXT_GATE)._regexp  # noqa: SLF001
_TOKEN_PATTERN = rb"<[A-Z][A-Z0-9_]*:[0-9a-f]{8}>|<REDACTED:[A-Z0-9_]+>|\buser-[0-9a-f]{4}\b"
_TOKEN_RX = re2.compile(_TOKEN_PATTERN)._regexp  # noqa: SLF001
_ID_PATTERN = (
    rb"\b(?:[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
    rb"|[0-9a-f]{7,64}"
    rb"|(?:toolu|srvtoolu|msg|req|call|fc|rs|resp|ws|ig|ctc|item|run|ses|prt|tool|chatcmpl|thread|asst)"
    rb"_[0-9A-Za-z]{6,})\b"
)
_ID_RX = re2.compile(_ID_PATTERN)._regexp  # noqa: SLF001
_DIFF_ROW_MARK = re.compile(rb"(?m)^[+-](?=[ \t]*\|)")


def _diff_rows(buf: bytes) -> bytes:
    """buf with the `+`/`-` marks of a diff's table rows (`+| a | b |`) as spaces: the same length,
    so the table pass reads a markdown table a diff adds or removes at the offsets it has."""
    if b"\n+|" in buf or b"\n-|" in buf or buf[:2] in (b"+|", b"-|"):
        return _DIFF_ROW_MARK.sub(b" ", buf)
    return buf
_WHOLE_ID = re.compile(_ID_PATTERN.decode(), re.ASCII)
_IDCHARS = b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_-"
_IDSET = frozenset(_IDCHARS)
_SEPARATOR_RUN = re.compile(rb"[\s._-]+")
_U_ESCAPE = re.compile(rb"\\u([0-9a-fA-F]{4})")
# a name's letters percent-encoded in a URI (file:///home/j%C3%B6rg, VS Code's c%3A/Users/John%20Smith):
# the path rules take UTF-8 bytes past ASCII and %20 so encoded, and the name is keyed as decoded
_PERCENT = re.compile(rb"%([89A-Fa-f][0-9A-Fa-f]|20)")


def _normal(value: bytes) -> bytes:
    """A found name as its pseudonym is keyed: `\\u00e9` escapes (JSON inside a text) decoded and
    Unicode composed (NFC), so `Jose\\u0301`, `Jos\\u00e9` and `José` are one name."""
    if value.isascii() and b"\\u" not in value:
        return value
    if b"\\u" in value:
        value = _U_ESCAPE.sub(lambda m: chr(int(m.group(1), 16)).encode("utf-8", "surrogatepass"), value)
    return unicodedata.normalize("NFC", value.decode("utf-8", "surrogateescape")).encode("utf-8", "surrogateescape")


def _merge_glued(base: list[Match], extra: list[Match]) -> list[Match]:
    """base (the blanked scan's matches) with the matches found across colour codes: overlapping
    ones form a cluster; a cluster without an extra match stays as it is, otherwise the longest
    extra match takes it (stretched to the cluster's span if it does not cover it)."""
    if not extra:
        return base
    items = sorted([(m.start, m.end, False, m) for m in base] + [(m.start, m.end, True, m) for m in extra],
                   key=lambda t: (t[0], t[1]))
    out: list[Match] = []
    cluster = [items[0]]
    hi = items[0][1]
    for item in items[1:]:
        if item[0] < hi:
            cluster.append(item)
            hi = max(hi, item[1])
        else:
            out.extend(_settle(cluster))
            cluster = [item]
            hi = item[1]
    out.extend(_settle(cluster))
    return out


def _settle(cluster: list[tuple[int, int, bool, Match]]) -> list[Match]:
    extras = [m for _, _, is_extra, m in cluster if is_extra]
    if not extras:
        return [m for _, _, _, m in cluster]
    lo = cluster[0][0]
    hi = max(e for _, e, _, _ in cluster)
    best = max(extras, key=lambda m: m.end - m.start)
    return [best if best.start == lo and best.end == hi else best._replace(start=lo, end=hi)]


def whole_id(s: str) -> bool:
    """Is s one id as a whole (a UUID, a hex digest, a tool/message id)? `_keep` drops every
    candidate of a non-generated rule inside such a string, so a MODE_IDS scan of it finds
    nothing and the walkers need not ask."""
    return len(s) <= 160 and _WHOLE_ID.fullmatch(s) is not None and not s.isdigit()


LITERAL = "literal"  # Match.replace of a part whose replacement text is its label


class Match(NamedTuple):
    rule_id: str
    start: int  # of the part to replace (bytes for bytes input, characters for str input)
    end: int
    label: str
    replace: str


# A candidate: (start, end, rule index, group-0 start, group-0 end)
_Cand = tuple[int, int, int, int, int]


@dataclass(eq=False)
class _Compiled:
    rule: Rule
    idx: int
    rx: object
    sgroup: int
    kw: tuple[bytes, ...]
    kw_ascii: bool
    allow: tuple[object, ...] | None  # _allow_programs: a candidate any of them matches is allowed
    anchored: bool
    modes: tuple[bool, bool, bool, bool, bool]
    rank: int
    simple: bool  # no filter on the secret: the span is the candidate
    terms: tuple[bytes, ...]  # literal-term rule (generated, ASCII): matched with find loops
    group: int  # STRONG, ALWAYS or COMMON
    rx_joined: object  # anchors as line anchors (joined scans); the same object when not anchored
    allow_cache: dict[bytes, bool] = field(default_factory=dict)
    # the keywords that count only as words (Rule.word_keywords), and the others
    word_kw: frozenset[bytes] = frozenset()
    plain_kw: tuple[bytes, ...] = ()
    shared: bool = False  # another rule has the same regex (ls -l owner and group): matched once per scan
    window: int = 0  # Rule.keyword_window: a keyword this near the candidate, in its string

    def match(self, s: int, e: int) -> Match:
        r = self.rule
        return Match(r.id, s, e, r.label, r.replace)


# RE2 budget (max_mem) of the weak groups' combined alternations (each _WeakChunk.alt, _always_gate). A
# DFA keeps every state it built until its budget is spent, then starts afresh; the COMMON
# alternation (84 rules, ~31,000 instructions then; ~14,500 since capped_repeats) built ~12 MB
# of states in each worker on an 11 MB dense transcript and kept them for the worker's life
# with the 256 MB budget. With 32 MB its
# states are dropped and rebuilt now and then: a worker over four dense 12 MB transcripts ended at
# 74 MB RSS instead of 82, same CPU (16 and 24 MB: 2.5x and 1.3x the CPU, the DFA starting afresh
# too often). A search never gives a wrong answer on a spent budget: RE2 finishes it without the
# DFA. The Sets keep 256 MB (a Set out of memory gives up: every rule of the group would run).
WEAK_ALT_MAX_MEM = 32 << 20
_BIG_MAX_MEM = 256 << 20


# The COMMON group's prefilter is cut into chunks of at most this many rules, rules that share a
# keyword side by side, each chunk its own alternation and Set, and a string is searched only with
# the chunks holding a rule whose keyword it contains. One alternation of all of them (114 rules in
# session 22) built states for every mix of its pieces' counters and prefixes: it spent its whole
# 32 MB budget in every process (22 MB of DFA states, the largest native cost of a worker), and
# its Set another 9 MB. In chunks: a quarter of that, and a string with `sk-` runs a handful of
# pieces instead of 114. The ALWAYS group stays whole: it has no keywords to pick chunks by, and
# its pieces touch many strings (cut in chunks it ran slower).
WEAK_CHUNK = 16
# An engine with this many keywords or more searches them in KEYWORD_SETS Sets (Engine.__init__).
KEYWORD_SET_SPLIT = 256
KEYWORD_SETS = 3


@dataclass(eq=False)
class _WeakChunk:
    """Part of a weak group's prefilter: an alternation of its rules' pieces (does any match?)
    and a Set of the same pieces (which do?), with the `\\A` sentinel that tells a Set that gave up."""

    alt: object
    pieces: object
    idxs: list[int]  # the chunk's rules
    members: frozenset[int]
    sentinel: int
    piece_rules: list[tuple[int, ...]]  # Set index -> the rules of that piece (rules of one regex share it)

    def hits(self, buf: bytes) -> set[int] | None:
        """The rules whose piece matches in buf; None when the Set ran out of DFA memory."""
        found = self.pieces.Match(buf)  # type: ignore[attr-defined]
        if not found or self.sentinel not in found:
            return None
        return {i for h in found if h != self.sentinel for i in self.piece_rules[h]}


def _weak_compile(pattern: str) -> object:
    """A weak group's combined alternation under WEAK_ALT_MAX_MEM, or under the big budget when
    its program does not fit in that one (two thirds of it go to the program: many custom rules)."""
    try:
        return re2.compile(pattern, re2_options(WEAK_ALT_MAX_MEM))._regexp  # noqa: SLF001
    except re2.error:
        return re2.compile(pattern, re2_options(_BIG_MAX_MEM))._regexp  # noqa: SLF001


def _prefilter_piece(c: _Compiled) -> str:
    """A weak rule's part of its group's combined prefilters: a superset of its pattern that
    matches from the same starts (consuming alternatives dropped, counted repeats cut, Unicode
    classes widened), before anchors are made line anchors or dropped."""
    return cheap_unicode(capped_repeats(gate_form(c.rule.regex, c.sgroup)))


class _LazyProgram:
    """A rule's RE2 program, compiled on its first search. Most rules never run in a process
    (their keywords never occur, their group's prefilter never matches): ~470 of ~600 programs
    were never searched in a worker that redacted 400 transcripts, ~9 MB of programs in every
    process. After the first call `Match` is the program's own method (an instance attribute
    shadows this one): no indirection on the hot path."""

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern

    def Match(self, *args: object) -> object:  # noqa: N802 - the RE2 method name
        match = rule_program(self.pattern)._regexp.Match  # noqa: SLF001
        self.Match = match  # type: ignore[method-assign]
        return match(*args)


_LAZY: dict[str, _LazyProgram] = {}


def _compiled(pattern: str) -> object:
    """One program per pattern in the process, compiled on first use (`rules.rule_program`):
    fail_closed's verifier engine holds the same rules as the redaction engine, and shares their
    programs and DFA caches."""
    program = _LAZY.get(pattern)
    if program is None:
        program = _LAZY[pattern] = _LazyProgram(pattern)
    return program


# An allowlist entry this long holds a word list (`{words:not_surnames}`, ~600 words): several rules
# share it, and its program is one for all of them
SHARED_ALLOW_ENTRY = 2_000


def _allow_programs(entries: tuple[str, ...]) -> tuple[object, ...]:
    """A rule's allowlist as lazy programs of the process (`_compiled`): compiled on the rule's first
    candidate, most rules never meet one; every engine of the process (redaction, shape, path ids;
    the verifier is a view of the redaction engine) shares them. The short entries are one alternation, each long one a program of its own."""
    short = [a for a in entries if len(a) < SHARED_ALLOW_ENTRY]
    progs = [_compiled("|".join(f"(?:{a})" for a in short))] if short else []
    return (*progs, *(_compiled(a) for a in entries if len(a) >= SHARED_ALLOW_ENTRY))


# Keywords that occur in ordinary code and prose: a rule gated only by such words (or by a
# one- or two-character keyword, or by none) is "weak" and is prefiltered by one combined
# RE2 pass over its group instead of running its own regex on every text.
COMMON_KEYWORDS = frozenset({
    "key", "keys", "token", "tokens", "secret", "secrets", "pass", "passwd", "password", "pwd", "auth",
    "api", "pat", "bearer", "credential", "credentials", "private", "user", "users", "login", "http",
    "https", "www", "com", "org", "net", "id", "client", "access", "session", "home", "admin",
})
STRONG, ALWAYS, COMMON = 0, 1, 2
# Memo sizes: each redacting process (the parent and every worker) holds them for the whole run,
# per rule for the allowlist memo, so they bound the steady growth of a long run's memory.
ALLOW_CACHE_MAX = 4_096
REPLACEMENT_CACHE_MAX = 16_384

# The cells of secret-named columns in text tables (archiver/redact/tables.py): no regex can
# follow a column, so the engine runs that pass itself, as these two rules, whenever the built-in
# secrets pack's generic (medium-confidence) rules are loaded.
TABLE_RULES = (
    Rule(id="table-password-column", regex="", label="PASSWORD", confidence="medium", pack="secrets",
         source="builtin:secrets (engine table pass)",
         description="A cell under a password/passwd/pwd header (mysql authentication_string too) in psql, mysql, "
                     "sqlite, markdown, CSV or TSV table output"),
    Rule(id="table-secret-column", regex="", label="SECRET", confidence="medium", pack="secrets",
         source="builtin:secrets (engine table pass)",
         description="A cell under a secret/token/api_key/private_key header in psql, mysql, sqlite, markdown, "
                     "CSV or TSV table output"),
)


def _group(r: Rule) -> int:
    if r.generated:
        return STRONG
    if not r.keywords or any(len(k) <= 2 for k in r.keywords):
        return ALWAYS
    if any(len(k) <= 3 or k in COMMON_KEYWORDS for k in r.keywords):
        return COMMON
    return STRONG


def _entropy(data: bytes) -> float:
    n = len(data)
    if not n:
        return 0.0
    return -sum(c / n * math.log2(c / n) for c in Counter(data).values())


# A hex string holds at most 4 bits per character: a random 32-hex key scores under 3.5 about one
# time in five (Datadog, Twilio and many other keys are hex). Hex values are held to this bar.
HEX_ENTROPY = 3.0
_HEX = re.compile(rb"[0-9a-fA-F]{30,}")  # shorter hex runs are content hashes (publicKeyToken, cfn ids); Plaid secrets are 30


def _random_hex(secret: bytes, bar: float) -> bool:
    return bar > HEX_ENTROPY and _HEX.fullmatch(secret) is not None and _entropy(secret) >= HEX_ENTROPY


def _spans_once(rx: object, buf: bytes, memo: dict[int, list[list[tuple[int, int]]]]) -> list[list[tuple[int, int]]]:
    """iter_spans of a regex that several rules share (ls -l owner and group), found once per buffer."""
    found = memo.get(id(rx))
    if found is None:
        found = memo[id(rx)] = list(iter_spans(rx, buf))
    return found


def _list_item_forms(keywords: list[bytes]) -> list[bytes]:
    """A keyword with spaces (`gh secret set`) as the items of a raw JSON list of strings
    (`["gh", "secret", "set", ...]`): the JSON walker joins an argv-like list with spaces and scans
    the joined text, so a raw line that holds the words only as items must pass the keyword gate."""
    return [b'"\\s*,\\s*"'.join(re2.escape(w) for w in k.split()) for k in keywords if b" " in k.strip()]


class Engine:
    """All rules compiled once; `scan`/`redact` on text, `scan_segments` on many strings at once."""

    def __init__(self, rules: list[Rule], pseudonyms: Pseudonymizer) -> None:
        self.rules = list(rules)
        self.pseudonyms = pseudonyms
        self._by_id = {r.id: r for r in self.rules}
        self._c: list[_Compiled] = []
        opts = re2_options(_BIG_MAX_MEM, never_capture=False)
        kw_index: dict[bytes, int] = {}
        kw_rules: list[list[int]] = []
        self._groups: dict[int, list[int]] = {STRONG: [], ALWAYS: [], COMMON: []}
        self._decoders: list[decoded.Decoder] = []
        for idx, r in enumerate(self.rules):
            if r.decode is not None:  # a pass of its own, in no group
                rx = _compiled(r.regex)
                fast = re2_options(64 << 20)
                self._c.append(_Compiled(
                    rule=r, idx=idx, rx=rx, sgroup=1, kw=(), kw_ascii=True, allow=None, anchored=False,
                    modes=(True, False, False, False, False), rank=r.rank, simple=True, terms=(), group=-1,
                    rx_joined=rx))
                self._decoders.append(decoded.Decoder(r, idx, re2.compile(r.regex, fast)._regexp,  # noqa: SLF001
                                                      _DECODE_GATE))
                continue
            rx = _compiled(r.regex)
            anchored = is_anchored(r.regex)
            rx_joined = _compiled(multiline(r.regex)) if anchored else rx
            kws = tuple(dict.fromkeys(k.encode() for k in r.keywords))
            allow = None
            if r.allowlist:
                allow = _allow_programs(r.allowlist)
            terms = tuple(t.encode() for t in r.terms) if r.terms and all(t.isascii() for t in r.terms) else ()
            group = _group(r)
            c = _Compiled(
                rule=r, idx=idx, rx=rx, sgroup=r.secret_group, kw=kws, kw_ascii=all(k.isascii() for k in kws),
                allow=allow, anchored=anchored, modes=(True, r.applies_to_keys, r.applies_to_paths, r.applies_to_ids,
                                                        r.secret_shape),
                rank=r.rank, simple=not (r.bounded or r.min_length or r.entropy is not None or allow is not None
                                         or r.check is not None or r.same_as or r.keyword_window),
                terms=terms, group=group, rx_joined=rx_joined,
                word_kw=frozenset(k.encode() for k in r.word_keywords),
                plain_kw=tuple(k for k in kws if k.decode() not in r.word_keywords),
                window=r.keyword_window,
            )
            self._c.append(c)
            self._groups[group].append(idx)
            if group != ALWAYS:
                for k in kws:
                    if k not in kw_index:
                        kw_index[k] = len(kw_rules)
                        kw_rules.append([])
                    kw_rules[kw_index[k]].append(idx)
        uses = Counter(id(c.rx) for c in self._c if c.group >= 0)
        for c in self._c:
            c.shared = c.group >= 0 and not c.terms and uses[id(c.rx)] > 1
        # the prefixed token rules, and one search for their heads cut by a line break
        prefixes = {c.idx: vendor_prefixes(c.rule.regex) for c in self._c
                    if c.group >= 0 and c.kw and not c.rule.generated}
        self._wrap_idx = frozenset(i for i, found in prefixes.items() if found)
        pattern = wrap_pattern(sorted({p for found in prefixes.values() for p in found}))
        self._wrap_rx = _compiled(pattern) if pattern else None
        # the rules a decoded text is scanned with: this engine's, or for a decode rule alone (its
        # examples checked by themselves) the built-in packs it counts, built when first needed
        self._rescan: Engine | None = self if any(
            r.decode is None and decode_class(r) in d.packs for d in self._decoders for r in self.rules) else None
        self._kw_rules = [sorted(set(x)) for x in kw_rules]
        self.keywords = list(kw_index)
        self._gate = None
        if self.keywords:
            alt = b"(?i)(?:" + b"|".join([*map(re2.escape, self.keywords), *_list_item_forms(self.keywords)]) + b")"
            self._gate = re2.compile(alt, opts)._regexp  # noqa: SLF001
        # Weak groups: one combined pass (anchors as line anchors: a superset) says whether any of
        # the group's rules can match at all; only then do they run one by one.
        # ... and on a string that the combined pass touched, one Set pass of the same pieces says
        # which of the group's rules can match there at all (most never do: card numbers, IBANs,
        # phone numbers on a string touched by an e-mail), instead of every rule's own pass
        self._build_weak()
        # For MODE_IDS strings (ids, signatures: many short strings on every line) the walker asks
        # first whether the document holds a keyword of a rule that applies to them at all.
        id_rules = [c for c in self._c if c.modes[MODE_IDS] or c.modes[MODE_OPAQUE]]
        self._ids_always = any(not c.kw for c in id_rules)
        id_kws = sorted({k for c in id_rules for k in c.kw})
        self._ids_gate = (re2.compile(b"(?i)(?:" + b"|".join(re2.escape(k) for k in id_kws) + b")", opts)._regexp  # noqa: SLF001
                          if id_kws and not self._ids_always else None)
        # One Set pass of literals says which keywords occur (index i = keyword i), whether image
        # markers do, and (the `\\A` sentinel always matches) whether the Set itself worked.
        # Patterns stay out of it: a Set must report every pattern that matches anywhere, so it
        # can never stop early, and with the weak groups' patterns its DFA ran at 6 MB/s on text
        # with base64 runs (literals only: 250 MB/s). Those are first-match searches instead.
        # With many keywords they go in KEYWORD_SETS Sets, in alphabetical parts: a many-match DFA's
        # states multiply with the keywords that occur together. Over 40 MB of transcripts one Set of
        # the built-in packs' 1,643 keywords built 7.1 MB of states, two halves 4.0-4.5 MB; a cold
        # sync of the 103 MB corpus peaked at 266 MB (whole tree) with one Set, 260 with two, 257
        # with three (258 with four); an A/B of three cold syncs each gave medians 45.3 vs 46.6 CPU-s
        # (+3%: every string is searched by three Sets) and identical objects.
        # (head Set, its index -> keyword index; its sentinel is the index after its keywords)
        self._head_sets: list[tuple[object, list[int]]] = []
        order = list(range(len(self.keywords)))
        if len(self.keywords) >= KEYWORD_SET_SPLIT:
            order.sort(key=lambda i: self.keywords[i])
            part = -(-len(order) // KEYWORD_SETS)
            for lo in range(0, part * (KEYWORD_SETS - 1), part):
                head_kw = order[lo:lo + part]
                head = re2.Set.SearchSet(opts)
                for i in head_kw:
                    head.Add(b"(?i)" + re2.escape(self.keywords[i]))
                head.Add(rb"\A")
                head.Compile()
                self._head_sets.append((head, head_kw))
            order = sorted(order[part * (KEYWORD_SETS - 1):])
        self._set_kw: list[int] = order  # this Set's index -> keyword index, for its keywords
        self._set = re2.Set.SearchSet(opts)
        for i in order:
            self._set.Add(b"(?i)" + re2.escape(self.keywords[i]))
        self._marker_first = len(order)
        for m in _IMAGE_MARKERS:
            self._set.Add(re2.escape(m))
        self._sentinel = self._set.Add(rb"\A")
        # after the sentinel: the table pass's marker (a separator-like run; the secret word it
        # also needs is sought only then, by tables.has_secret_word)
        self._table_mark: int | None = None
        table_pass = (any(r.pack == "secrets" and r.confidence != "high" and not r.generated for r in self.rules)
                      and not any(t.id in self._by_id for t in TABLE_RULES))
        # a column named for a national identifier: a cell of kind ID_BASE + i is the finding of the first
        # loaded rule of tables.ID_COLUMNS[i] whose validator takes it (its label replaces)
        self._id_columns: dict[int, tuple[int, ...]] = {}
        for i, (ids, _names) in enumerate(tables.ID_COLUMNS):
            # (a phone column's rules have no validator: tables.phone_cell judged the cell)
            unchecked = tables.ID_BASE + i == tables.PHONE_KIND
            found = tuple(c.idx for rid in ids for c in self._c
                          if c.rule.id == rid and (c.rule.check is not None or unchecked))
            if found:
                self._id_columns[tables.ID_BASE + i] = found
        if table_pass or self._id_columns:
            self._table_mark = self._set.Add(tables.MARK_PATTERN)
        self._set.Compile()
        # Keywords with a JSON-escapable character could hide behind \" or \\ in a raw JSON line.
        self.keywords_json_safe = all(b'"' not in k and b"\\" not in k
                                      for c in self._c for k in c.kw)
        self._cache: dict[tuple[str, str, bytes], bytes] = {}
        self._canonical_rx: dict[str, list[tuple[object, bytes]]] = {}
        # The table pass: its two rules get indexes after the loaded ones (never in a group).
        self._table_idx: tuple[int, ...] = ()
        if table_pass:
            first = len(self._c)
            for k, r in enumerate(TABLE_RULES):
                self._by_id[r.id] = r
                self._c.append(_Compiled(
                    rule=r, idx=first + k, rx=None, sgroup=0, kw=(), kw_ascii=True, allow=None, anchored=False,
                    modes=(True, False, False, False, False), rank=r.rank, simple=True, terms=(), group=-1,
                    rx_joined=None))
            self._table_idx = tuple(range(first, first + len(TABLE_RULES)))

    def _build_weak(self) -> None:
        """The weak groups' prefilters (_WeakChunk) and the always-on rules' gate, of this engine's
        group members."""
        self._weak: dict[int, list[_WeakChunk]] = {ALWAYS: [], COMMON: []}
        for g in (ALWAYS, COMMON):
            if self._groups[g]:
                self._weak[g] = [self._weak_chunk(idxs) for idxs in self._weak_chunks(g)]
        self.has_always = bool(self._groups[ALWAYS])
        # For raw JSONL lines (a string's edges are quotes there, not text edges): anchors dropped.
        self._always_gate = None
        if self.has_always:
            pattern = "|".join(
                f"(?:{multiline(_prefilter_piece(self._c[i]), ('(?:)', '(?:)'))})"
                for i in self._groups[ALWAYS])
            self._always_gate = _weak_compile(pattern)

    def only(self, rule_ids: Iterable[str]) -> Engine:
        """A view of this engine that finds only the given rules, as an engine of just those rules
        would (`Engine([r for r in rules if r.id in rule_ids])`), sharing this one's keyword Sets
        and keyword gates: fail_closed's verifier was an engine of its own, whose keyword Set and
        gate held ~2.3 MB of DFA states in every worker for keywords this engine already searches.
        Its keyword gates (`any_keyword`, `ids_may_match`) stay this engine's: supersets of the
        view's, they let through more, never less. The weak groups' prefilters are the view's own
        (~0.8 MB for the verifier): this engine's, holding every PII rule, touched so many more
        strings that a verify took 13% more CPU with them."""
        keep = frozenset(rule_ids)
        on = frozenset(c.idx for c in self._c if c.rule.id in keep)
        view = copy.copy(self)
        view.rules = [r for r in self.rules if r.id in keep]
        view._groups = {g: [i for i in members if i in on] for g, members in self._groups.items()}
        view._kw_rules = [[i for i in rl if i in on] for rl in self._kw_rules]
        view._decoders = [d.fresh() for d in self._decoders if d.idx in on]  # a cache of its own: its rescan differs
        view._wrap_idx = self._wrap_idx & on
        view._table_idx = tuple(i for i in self._table_idx if i in on)
        view._id_columns = {kind: found for kind, idxs in self._id_columns.items()
                            if (found := tuple(i for i in idxs if i in on))}
        if not view._table_idx and not view._id_columns:
            view._table_mark = None
        view._build_weak()
        view._rescan = view if any(r.decode is None and decode_class(r) in d.packs
                                   for d in view._decoders for r in view.rules) else None
        return view

    @property
    def pass_rules(self) -> list[Rule]:
        """The rules of the engine's own passes that are on (the table pass), for listings."""
        return [self._c[i].rule for i in self._table_idx]

    # ------------------------------------------------------------------ gating

    def any_keyword(self, buf: bytes) -> bool:
        """Does buf hold a keyword of a keyword-gated rule (case-insensitive)?"""
        return self._gate is not None and first_span(self._gate, buf)[0] >= 0

    def ids_may_match(self, buf: bytes) -> bool:
        """Might a rule that applies to MODE_IDS or MODE_OPAQUE strings match in buf or in a string inside it
        (a raw JSON document; keywords hidden by escapes are the caller's to check)?"""
        if self._ids_always:
            return True
        return self._ids_gate is not None and first_span(self._ids_gate, buf)[0] >= 0

    def always_hit(self, buf: bytes) -> bool:
        """Might an always-on rule (no or one-character keywords) match in buf or in any string
        inside it (anchors are ignored, so a raw JSON line is a superset)? The decode pass
        counts as one: a base64 run long enough to decode."""
        if self._always_gate is not None and first_span(self._always_gate, buf)[0] >= 0:
            return True
        return self._decode_hit(buf)

    def _decode_hit(self, buf: bytes) -> bool:
        """Might the decode pass find a run of base64 of text in buf (decoded.TEXT_GATE)?"""
        return bool(self._decoders) and first_span(_DECODE_GATE, buf)[0] >= 0

    def may_match(self, buf: bytes) -> bool:
        """A cheap superset test: False means no rule can match buf."""
        return self.any_keyword(buf) or self.always_hit(buf)

    def _keyword_hits(self, buf: bytes) -> tuple[set[int], bool, bool]:
        """(keyword-gated rules whose keywords occur in buf, whether it may hold base64 images,
        whether it may hold a table for the table pass)."""
        out: set[int] = set()
        kwr = self._kw_rules
        hits = self._set.Match(buf) or []
        sentinel = self._sentinel
        for head, head_kw in self._head_sets:
            found = head.Match(buf) or []  # type: ignore[attr-defined]
            if len(head_kw) not in found:
                hits = []  # (as a failure of the main Set, below)
                break
            for h in found:
                if h < len(head_kw):
                    out.update(kwr[head_kw[h]])
        if sentinel not in hits:  # a Set failed (DFA budget): be safe, assume everything
            for rl in kwr:
                out.update(rl)
            return out, True, self._table_mark is not None
        set_kw = self._set_kw
        first = self._marker_first
        images = False
        for h in hits:
            if h < first:
                out.update(kwr[set_kw[h]])
            elif h < sentinel:
                images = True
        mark = self._table_mark
        table = mark is not None and mark in hits and tables.has_secret_word(buf)
        return out, images, table

    def _weak_chunks(self, group: int) -> list[list[int]]:
        """The group's rules in chunks (WEAK_CHUNK): COMMON's ordered by their first keyword, so
        that rules sharing one fall in the same chunk; ALWAYS's as one."""
        members = self._groups[group]
        if group != COMMON:
            return [list(members)]
        ordered = sorted(members, key=lambda i: (min(self._c[i].kw, default=b""), i))
        return [sorted(ordered[k:k + WEAK_CHUNK]) for k in range(0, len(ordered), WEAK_CHUNK)]

    def _weak_chunk(self, idxs: list[int]) -> _WeakChunk:
        # rules with one regex and one piece (a prompt's user and host) are one piece of the
        # alternation and the Set: a second copy would only grow their DFAs
        by_piece: dict[str, list[int]] = {}
        for i in idxs:
            by_piece.setdefault(multiline(_prefilter_piece(self._c[i])), []).append(i)
        wset = re2.Set.SearchSet(re2_options(_BIG_MAX_MEM))
        for piece in by_piece:
            wset.Add(piece)
        sentinel = wset.Add(rb"\A")  # always matches: an answer without it means the Set gave up
        wset.Compile()
        return _WeakChunk(_weak_compile("|".join(f"(?:{piece})" for piece in by_piece)), wset, idxs,
                          frozenset(idxs), sentinel, [tuple(v) for v in by_piece.values()])

    def _weak_hits(self, group: int, buf: bytes, wanted: set[int] | None = None) -> set[int]:
        """The group's rules (those in `wanted`, or all) that may yield a candidate on buf scanned
        alone: those whose piece of a chunk's prefilter matches there; all of a chunk whose Set
        gave up."""
        out: set[int] = set()
        for chunk in self._weak[group]:
            if wanted is not None and chunk.members.isdisjoint(wanted):
                continue
            if first_span(chunk.alt, buf)[0] < 0:
                continue
            found = chunk.hits(buf)
            out.update(chunk.members if found is None else found)
        return out

    @staticmethod
    def _protected(buf: bytes, images: bool) -> bool:
        """May buf hold protected spans (base64 images, our own tokens)? Asked only once some
        candidate exists: most small strings never need the search."""
        return images or first_span(_TOKEN_RX, buf)[0] >= 0

    def _plan(self, buf: bytes, mode: int) -> tuple[list[int], bool, bool]:
        """(rules to run on buf scanned alone, whether buf may hold base64 images, whether the
        table pass should read it)."""
        out, images, table = self._keyword_hits(buf)
        comp = self._c
        lows: dict[int, bytes] = {}
        # the Set found a keyword as a substring: one that counts only as a word may be inside another
        out.difference_update([i for i in out if comp[i].word_kw and not self._seg_has_kw(comp[i], 0, buf, lows)])
        common = self._groups[COMMON]
        if common:
            wanted = out.intersection(common)
            can = self._weak_hits(COMMON, buf, wanted) if wanted else set()
            out.difference_update(i for i in common if i not in can)
        if self.has_always:
            can = self._weak_hits(ALWAYS, buf)
            for i in self._groups[ALWAYS]:
                if i in can and self._seg_has_kw(comp[i], 0, buf, lows):
                    out.add(i)
        return sorted(i for i in out if comp[i].modes[mode]), images, table and mode == MODE_ALL

    def _weak_segments(self, group: int, members: list[int], parts: list[bytes], joined: bytes,
                       starts: list[int]) -> dict[int, list[int]]:
        """Per string, the group's rules among `members` to run on it alone: a chunk's prefilter
        runs once over all strings joined (a superset of where its rules match when each string is
        scanned alone), its Set on each string that a match touched."""
        wanted = set(members)
        can: dict[int, set[int]] = {}
        nparts = len(parts)
        n = len(joined)
        for chunk in self._weak[group]:
            if chunk.members.isdisjoint(wanted):
                continue
            touched: set[int] = set()
            # Only which strings a match touches counts: after one, the search goes on from the
            # start of the string after the last one it touched (a string that matches alone still
            # has a match from there on), not from its end: a long string with many matches (an
            # e-mail thread, a log full of `token`) costs one search, not one per match.
            match = chunk.alt.Match  # type: ignore[attr-defined]
            pos = 0
            while pos <= n:
                a, b = match(UNANCHORED, joined, pos, n)[0]
                if a < 0:
                    break
                if b == a:  # an empty match is skipped, as iter_spans does
                    pos = b + 1
                    continue
                last = bisect_right(starts, b - 1)  # the first string after those the match touches
                touched.update(range(max(0, bisect_right(starts, a) - 1), last))
                if last >= nparts:
                    break
                pos = starts[last]  # >= b
            for i in touched:
                found = chunk.hits(parts[i])
                can.setdefault(i, set()).update(chunk.members if found is None else found)
        return {i: run for i, hits in can.items() if (run := [k for k in members if k in hits])}

    # ------------------------------------------------------------------ matching

    def _table_cands(self, buf: bytes, offset: int = 0, gated: bool = True) -> list[_Cand]:
        """Candidates of the table pass in buf (offsets + offset). The candidate's whole "match"
        is its row, so a hex token in a `token` column is not taken for a content hash."""
        cells = tables.secret_cells(_diff_rows(buf), gated)
        if not cells:
            return []
        out: list[_Cand] = []
        idx = self._table_idx
        value: list[tuple[int, int]] = []  # the pieces of an identifier over several lines so far
        for s, e, kind in cells:
            value.append((s, e))
            if kind & tables.MORE:
                continue
            pieces, value = value, []
            if kind < tables.ID_BASE:
                if not idx:  # (the table pass is on for national ids alone)
                    continue
                i = idx[kind]
            else:
                cell = b"".join(buf[a:b] for a, b in pieces)
                found = next((k for k in self._id_columns.get(kind, ()) if self._id_valid(self._c[k].rule, cell)), None)
                if found is None:
                    continue
                i = found
            for a, b in pieces:
                ls = buf.rfind(b"\n", 0, a) + 1
                le = buf.find(b"\n", b)
                out.append((a + offset, b + offset, i, ls + offset, (len(buf) if le < 0 else le) + offset))
        return out

    @staticmethod
    def _id_valid(rule: Rule, cell: bytes) -> bool:
        """Does the national-id rule's own validator take the cell (n/a, TBD, a wrong check digit: no)?
        A rule without one (a phone column's) takes what the table pass kept."""
        if len(cell) > 64:
            return False
        if rule.check is None:
            return True
        try:
            return bool(rule.check(cell.decode("utf-8", "replace")))
        except Exception:  # a validator bug must not abort redaction: treat as "not valid"
            return False

    def _accept(self, c: _Compiled, buf: bytes, spans: list[tuple[int, int]], lo: int = 0,
                hi: int = -1) -> _Cand | None:
        """The candidate of a match, if its secret group passes the rule's filters; buf[lo:hi] is
        the string it belongs to (hi -1: to the end of buf)."""
        s, e = spans[c.sgroup]
        if s < 0 or e <= s:
            return None
        r = c.rule
        if r.bounded and (spans[1][1] > spans[1][0] or spans[3][1] > spans[3][0]
                          or (r.word_only and in_identifier(buf, s, spans[3][0]))):
            return None
        if r.same_as:
            a, b = spans[r.same_as]
            if a < 0 or buf[a:b] != buf[s:e]:
                return None
        if r.min_length or r.entropy is not None or c.allow is not None or r.check is not None:
            secret = buf[s:e]
            if r.min_length and (len(secret) < r.min_length
                                 or len(secret.decode("utf-8", "replace")) < r.min_length):
                return None
            if r.entropy is not None and _entropy(secret) < r.entropy and not _random_hex(secret, r.entropy):
                return None
            if c.allow is not None:
                cache = c.allow_cache
                hit = cache.get(secret)
                if hit is None:
                    if len(cache) > ALLOW_CACHE_MAX:
                        cache.clear()
                    hit = cache[secret] = any(first_span(a, secret)[0] >= 0 for a in c.allow)
                if hit:
                    return None
            if r.check is not None:
                try:
                    ok = r.check(secret.decode("utf-8", "replace"))
                except Exception:  # a validator bug must not abort redaction: treat as "not valid"
                    ok = False
                if not ok:
                    return None
        if c.window and not self._keyword_near(c, buf, s, e, lo, len(buf) if hi < 0 else hi):
            return None
        return (s, e, c.idx, spans[0][0], spans[0][1])

    @staticmethod
    def _keyword_near(c: _Compiled, buf: bytes, s: int, e: int, lo: int, hi: int) -> bool:
        """Does one of the rule's keywords start within c.window bytes before buf[s:e] (its whole
        length before it) or after it, inside the string buf[lo:hi]? A label far up a long tool
        output names no number down there (s30)."""
        w = c.window
        longest = max(len(k) for k in c.kw)
        a, b = max(lo, s - w - longest), min(hi, e + w)
        if c.kw_ascii:
            low = buf[a:min(hi, b + longest)].lower()
            return any(word_starts_in(buf, k, a, b) if k in c.word_kw else k in low for k in c.kw)
        text = buf[a:min(hi, b + longest)].decode("utf-8", "replace").lower()
        return any(word_starts_in(buf, k, a, b) if k in c.word_kw else k.decode() in text for k in c.kw)

    def _collect(self, buf: bytes, rules: list[int]) -> list[_Cand]:
        """Candidates of the given rules on one buffer scanned alone."""
        cands: list[_Cand] = []
        low = None
        shared: dict[int, list[list[tuple[int, int]]]] = {}
        for idx in rules:
            c = self._c[idx]
            if c.terms:
                if low is None:
                    low = buf.lower()
                spans = term_spans(c.terms, buf, low, c.rule.digits_after, c.rule.word_only)
                cands.extend((s, e, idx, s, e) for s, e in spans)
                continue
            found = _spans_once(c.rx, buf, shared) if c.shared else iter_spans(c.rx, buf)
            for spans in found:
                cand = self._accept(c, buf, spans)
                if cand is not None:
                    cands.append(cand)
        return cands

    def _keep(self, buf: bytes, lo: int, hi: int, cands: list[_Cand], prot: bool) -> list[_Cand]:
        """Drop candidates touching protected spans of buf[lo:hi] (the string they belong to)."""
        shield: list[tuple[int, int]] = []
        images: list[tuple[int, int]] = []
        if prot:
            shield = [sp[0] for sp in iter_spans(_TOKEN_RX, buf, lo, hi)]
            if any(buf.find(m, lo, hi) != -1 for m in _IMAGE_MARKERS):
                images = [sp[0] for sp in iter_spans(_IMAGE_RX, buf, lo, hi)]
        comp = self._c
        out = []
        for cand in cands:
            s, e, idx, gs, ge = cand
            if not shield and not images and buf[gs] not in _IDSET:
                out.append(cand)
                continue
            if shield and any(a < e and s < b for a, b in shield):
                continue
            # An image marker (/9j/, R0lGOD, ...) can occur by chance inside a private key's base64 body:
            # a high-confidence match that starts before that "image" is the key, not part of an image.
            if images and any(a < e and s < b and not (s < a and comp[idx].rule.confidence == "high") for a, b in images):
                continue
            if (buf[gs] in _IDSET and ge - gs <= 160 and not comp[idx].rule.generated
                    and not buf[gs:ge].translate(None, _IDCHARS)):
                w0 = gs - 80 if gs - 80 > lo else lo
                w1 = ge + 80 if ge + 80 < hi else hi
                # (a run of digits only is a number, not a hash: cards and phone numbers stay findable)
                if any(sp[0][0] <= gs and ge <= sp[0][1] and not buf[sp[0][0]:sp[0][1]].isdigit()
                       for sp in iter_spans(_ID_RX, buf, w0, w1)):
                    continue
            out.append(cand)
        return out

    def _resolve(self, cands: list[_Cand], offset: int = 0) -> list[Match]:
        """Non-overlapping matches (offsets shifted by -offset) from the candidates of one string."""
        if not cands:
            return []
        comp = self._c
        if len(cands) == 1:
            s, e, idx = cands[0][:3]
            return [comp[idx].match(s - offset, e - offset)]
        cands.sort()
        # Identical spans: keep the best rule (confidence, then pack order) before clustering.
        uniq = [cands[0]]
        for cand in cands[1:]:
            prev = uniq[-1]
            if cand[0] == prev[0] and cand[1] == prev[1]:
                if comp[cand[2]].rank > comp[prev[2]].rank:
                    uniq[-1] = cand
                continue
            uniq.append(cand)
        out: list[Match] = []
        cluster = [uniq[0]]
        end = uniq[0][1]
        for cand in uniq[1:]:
            if cand[0] < end:
                cluster.append(cand)
                if cand[1] > end:
                    end = cand[1]
                continue
            out.append(self._pick(cluster, offset))
            cluster = [cand]
            end = cand[1]
        out.append(self._pick(cluster, offset))
        return out

    def _pick(self, cluster: list[_Cand], offset: int) -> Match:
        comp = self._c
        if len(cluster) == 1:
            s, e, idx = cluster[0][:3]
            return comp[idx].match(s - offset, e - offset)
        us = cluster[0][0]  # sorted by start
        ue = max(c[1] for c in cluster)
        best = None
        best_key: tuple[int, ...] | None = None
        for c in cluster:  # a candidate covering the whole cluster wins: confidence, then pack order
            if c[0] == us and c[1] == ue:
                key = (comp[c[2]].rank, -c[2])
                if best_key is None or key > best_key:
                    best, best_key = c, key
        if best is not None:
            return comp[best[2]].match(us - offset, ue - offset)
        for c in cluster:
            key = (comp[c[2]].rank, c[1] - c[0], -c[2])
            if best_key is None or key > best_key:
                best, best_key = c, key
        r = comp[best[2]].rule  # type: ignore[index]
        return Match(r.id, us - offset, ue - offset, r.label, "mask" if r.replace == "mask" else "token")

    # ------------------------------------------------------------------ decoded runs

    def _decoded_cands(self, buf: bytes, depth: int, offset: int = 0) -> list[_Cand]:
        """Candidates of the decode rules: the base64 runs of buf whose decoded text holds a
        finding of a counted pack (offsets + offset)."""
        out: list[_Cand] = []
        for d in self._decoders:
            for s, e in d.secret_runs(buf, self._decoded_packs, depth):
                out.append((s + offset, e + offset, d.idx, s + offset, e + offset))
        return out

    def _decoded_packs(self, text: bytes, depth: int) -> set[str]:
        """The classes of the findings in a decoded text (rules.decode_class: a built-in pack, "runtime" or "custom")."""
        eng = self._rescan
        if eng is None:
            packs = {p for d in self._decoders for p in d.packs if p in BUILTIN_PACKS}
            eng = self._rescan = Engine(load_rules([f"builtin:{p}" for p in sorted(packs)]), self.pseudonyms)
        out: set[str] = set()
        for m in eng.scan_bytes(text, MODE_ALL, depth=depth):
            out.add(decode_class(eng._by_id[m.rule_id]))
        return out

    def secret_runs(self, buf: bytes) -> list[tuple[int, int, str]]:
        """(start, end, rule id) of the base64 runs of buf whose decoded text holds a secret, as
        scan_bytes finds them in MODE_ALL (fail_closed's raw half looks for them in raw bytes)."""
        if not self._decoders or not self._decode_hit(buf):
            return []
        return [(s, e, self._c[i].rule.id) for s, e, i, _, _ in self._decoded_cands(buf, 0)]

    def scan_bytes(self, buf: bytes, mode: int = MODE_ALL, ansi_text: bool = True, depth: int = 0) -> list[Match]:
        """Matches in buf scanned alone; `depth`: how many base64 decodings deep buf lies (the
        decode pass runs below decoded.DEPTH)."""
        blanked, runs = blank_with_runs(buf, ansi_text)
        if runs:
            view = glued_view(blanked, runs)
            return self._with_glued(self.scan_bytes(blanked, mode, False, depth), view, mode, depth)
        buf = blank_line_numbers(blanked)
        if b"\x00" in buf:  # NUL-separated records (`env -0`): each ends where a line would
            buf = buf.replace(b"\x00", b"\n")
        rules, images, table = self._plan(buf, mode)
        tcands = self._table_cands(buf) if table else None
        dcands = (self._decoded_cands(buf, depth) if self._decoders and mode == MODE_ALL and depth < decoded.DEPTH
                  and self._decode_hit(buf) else None)
        ms: list[Match] = []
        if rules or tcands or dcands:
            cands = self._collect(buf, rules) if rules else []
            if tcands:
                cands.extend(tcands)
            if dcands:
                cands.extend(dcands)
            if cands:
                ms = self._resolve(self._keep(buf, 0, len(buf), cands, self._protected(buf, images)))
        if self._wrap_rx is not None and not self._wrap_idx.isdisjoint(rules):
            found = self._wrap_extras(buf, self._wrap_heads(buf, 0, len(buf)), 0, len(buf), mode, depth)
            if found:
                return _merge_glued(ms, found)
        return ms

    # ------------------------------------------------------------------ tokens cut by a line wrap

    def _wrap_heads(self, buf: bytes, lo: int, hi: int) -> Iterator[tuple[int, int, int]]:
        """(head start, head end, break end) of each prefixed token head in buf[lo:hi] that a line
        break ends with a token character after it."""
        match = self._wrap_rx.Match  # type: ignore[union-attr]
        pos = lo
        while pos < hi:
            spans = match(UNANCHORED, buf, pos, hi)
            if spans[0][0] < 0:
                return
            (hs, he), (_, be) = spans[1], spans[2]
            yield hs, he, be
            pos = be  # the next line may start a token of its own

    def _wrap_extras(self, buf: bytes, heads: Iterable[tuple[int, int, int]],
                     lo: int, hi: int, mode: int, depth: int) -> list[Match]:
        """The tokens continued across a line break from the given heads of buf[lo:hi], offsets from lo."""
        out = []
        for hs, he, be in heads:
            m = self._continued(buf, lo, hi, hs, he, be, mode, depth)
            if m is not None:
                out.append(m)
        return out

    def _continued(self, buf: bytes, lo: int, hi: int, hs: int, he: int, be: int, mode: int,
                   depth: int) -> Match | None:
        """The token whose head is buf[hs:he] continued over the break ending at be (and over
        further breaks while each continuation line is a full line as wide as the head's), if
        the head line is a plausible wrap and the pieces joined make one high-confidence token."""
        escaped = buf[he] == 0x5C
        width = head_line_width(buf, lo, hs, he, escaped)
        pieces = [(hs, he)]
        pos = be
        chained = False
        while True:
            te = run_end(buf, pos, hi)
            pieces.append((pos, te))
            n = break_len(buf, te, hi)
            if (not n or width < WRAP_MIN_CHAIN or te + n >= hi or not WRAP_RUN_BYTE[buf[te + n]]
                    or display_width(buf[pos:te], escaped) != width):
                break
            chained = True
            pos = te + n
        if width < WRAP_MIN_WIDTH and not chained:
            return None
        joined = b"".join(buf[a:b] for a, b in pieces)
        cut = he - hs
        best = next((m for m in self.scan_bytes(joined, mode, False, depth)
                     if m.start == 0 and m.end > cut and self._by_id[m.rule_id].confidence == "high"
                     and not joined[m.end:].strip(b"._-")), None)
        if best is None:
            return None
        if WORDLIKE.fullmatch(joined[cut:best.end]) and any(
                m.start == 0 and m.end == cut and self._by_id[m.rule_id].confidence == "high"
                for m in self.scan_bytes(joined[:cut], mode, False, depth)):
            return None  # a whole token at the line's end, and a word on the next line
        end = joined_offset(pieces, best.end)
        return best._replace(start=hs - lo, end=end - lo, replace=WRAPPED if best.replace == "token" else best.replace)

    def _with_glued(self, ms: list[Match], view: GluedView, mode: int, depth: int) -> list[Match]:
        """ms (the blanked text's matches) with those of the text as displayed that hold a deleted
        colour code, in the original's offsets."""
        extra = []
        for m in self.scan_bytes(view.text, mode, False, depth):
            if view.crosses(m.start, m.end):
                s, e = view.original(m.start, m.end)
                extra.append(m._replace(start=s, end=e))
        return _merge_glued(ms, extra)

    def scan_segments(self, parts: list[bytes], modes: list[int]) -> dict[int, list[Match]]:
        """Matches per string, exactly as if each part were scanned alone, in one pass over all."""
        if not parts:
            return {}
        joined = b"\n".join(parts)
        if not (b"\x1b" in joined or first_span(ANSI_TEXT, joined)[0] >= 0):
            return self._scan_blanked_segments(parts, joined, modes)
        done = [blank_with_runs(p, True) for p in parts]
        blanked = [b for b, _ in done]
        views = {i: glued_view(b, runs) for i, (b, runs) in enumerate(done) if runs}
        out = self._scan_blanked_segments(blanked, b"\n".join(blanked), modes)
        for i, view in views.items():
            ms = self._with_glued(out.get(i, []), view, modes[i], 0)
            if ms:
                out[i] = ms
        return out

    def _scan_blanked_segments(self, parts: list[bytes], joined: bytes, modes: list[int]) -> dict[int, list[Match]]:
        """scan_segments on parts whose escape sequences are blanked (joined: them joined by newlines)."""
        if has_line_numbers(joined):
            parts = [blank_line_numbers(p) for p in parts]
            joined = b"\n".join(parts)
        comp = self._c
        kw_rules, images, table = self._keyword_hits(joined)
        rules = sorted(i for i in kw_rules if comp[i].group == STRONG)
        starts: list[int] = []
        ends: list[int] = []
        pos = 0
        for p in parts:
            starts.append(pos)
            pos += len(p)
            ends.append(pos)
            pos += 1
        # Weak rules run only on the single strings that their group's combined pattern touched.
        weak: dict[int, list[int]] = {}
        common = sorted(i for i in kw_rules if comp[i].group == COMMON)
        for g, members in ((COMMON, common), (ALWAYS, self._groups[ALWAYS] if self.has_always else [])):
            if members:
                for i, run in self._weak_segments(g, members, parts, joined, starts).items():
                    weak.setdefault(i, []).extend(run)
        # The table pass, string by string, on the strings that may hold a table.
        tcands: dict[int, list[_Cand]] = {}
        if table:
            seen: set[int] = set()
            for a, _b in tables.separator_lines(_diff_rows(joined)):
                i = bisect_right(starts, a) - 1
                if i in seen or modes[i] != MODE_ALL:
                    continue
                seen.add(i)
                p = parts[i]
                if tables.may_hold_table(p):
                    found = self._table_cands(p, starts[i])
                    if found:
                        tcands[i] = found
        # The decode pass, string by string, on the MODE_ALL strings a run of its regex touched.
        dcands: dict[int, list[_Cand]] = {}
        if self._decoders and self._decode_hit(joined):
            touched: set[int] = set()
            for sp in iter_spans(_DECODE_GATE, joined):  # the gate holds no newline: one string each
                touched.add(bisect_right(starts, sp[0][0]) - 1)
            for i in sorted(touched):
                if modes[i] == MODE_ALL:
                    found = self._decoded_cands(parts[i], 0, starts[i])
                    if found:
                        dcands[i] = found
        if not rules and not weak and not tcands and not dcands:
            return self._wrapped_segments(parts, joined, starts, modes, kw_rules, {}, set())
        lows: dict[int, bytes] = {}
        per: dict[int, list[_Cand]] = {}
        rerun: set[int] = set()
        shared: dict[int, list[list[tuple[int, int]]]] = {}
        nparts = len(parts)
        jlow = None
        for idx in rules:
            c = comp[idx]
            cmodes = c.modes
            if c.terms:
                if jlow is None:
                    jlow = joined.lower()
                for gs, ge in term_spans(c.terms, joined, jlow, c.rule.digits_after, c.rule.word_only):
                    i = bisect_right(starts, gs) - 1
                    if ge > ends[i] or not cmodes[modes[i]]:
                        continue
                    lst = per.get(i)
                    if lst is None:
                        per[i] = [(gs, ge, idx, gs, ge)]
                    else:
                        lst.append((gs, ge, idx, gs, ge))
                continue
            anchored = c.anchored
            simple = c.simple
            g = c.sgroup
            kws = c.kw
            plain = c.plain_kw
            found = _spans_once(c.rx_joined, joined, shared) if c.shared else iter_spans(c.rx_joined, joined)
            for spans in found:
                gs, ge = spans[0]
                i = bisect_right(starts, gs) - 1
                if gs >= ends[i]:
                    # Starts on the separator (used as left context): valid alone only if the rule
                    # matches the same way at the very start of the next string.
                    i += 1
                    if i >= nparts or ge > ends[i]:
                        rerun.update(range(i, min(nparts, bisect_right(starts, ge - 1))))
                        continue
                    spans = self._rematch(c, parts[i], 0, ge - starts[i], starts[i])
                    if spans is None:
                        rerun.add(i)
                        continue
                    gs = spans[0][0]
                elif ge > ends[i]:  # crosses a separator: redo those strings alone
                    rerun.update(range(i, bisect_right(starts, ge - 1)))
                    continue
                elif anchored:
                    # A line anchor may have matched at a newline inside the string: check that
                    # the rule matches the same way on the string alone.
                    lo, hi = starts[i], ends[i]
                    if joined.find(b"\n", gs - 1 if gs > lo else lo, ge + 1 if ge < hi else hi) != -1:
                        spans = self._rematch(c, parts[i], gs - lo, ge - lo, lo)
                        if spans is None:
                            rerun.add(i)
                            continue
                if i in rerun or not cmodes[modes[i]]:
                    continue
                if kws:  # the rule's keyword must be in this string (usually it is in the match)
                    if jlow is None:
                        jlow = joined.lower()
                    g0 = jlow[gs:ge]
                    for k in plain:  # (a word keyword in the match may be inside a word of the string)
                        if k in g0:
                            break
                    else:
                        if not self._seg_has_kw(c, i, parts[i], lows):
                            continue
                if simple:
                    s, e = spans[g]
                    if s < 0 or e <= s:
                        continue
                    cand = (s, e, idx, gs, ge)
                else:
                    cand = self._accept(c, joined, spans, starts[i], ends[i])
                    if cand is None:
                        continue
                lst = per.get(i)
                if lst is None:
                    per[i] = [cand]
                else:
                    lst.append(cand)
        for i, idxs in weak.items():
            if i in rerun:
                continue
            part = parts[i]
            run = [k for k in idxs if comp[k].modes[modes[i]] and self._seg_has_kw(comp[k], i, part, lows)]
            if run:
                lo = starts[i]
                extra = [(s + lo, e + lo, k, gs + lo, ge + lo) for s, e, k, gs, ge in self._collect(part, run)]
                if extra:
                    per.setdefault(i, []).extend(extra)
        for i, found in tcands.items():
            if i not in rerun:
                per.setdefault(i, []).extend(found)
        for i, found in dcands.items():
            if i not in rerun:
                per.setdefault(i, []).extend(found)
        out: dict[int, list[Match]] = {}
        prot = self._protected(joined, images) if per else False
        for i, cands in per.items():
            if i in rerun:
                continue
            lo = starts[i]
            ms = self._resolve(self._keep(joined, lo, ends[i], cands, prot), lo)
            if ms:
                out[i] = ms
        for i in rerun:
            ms = self.scan_bytes(parts[i], modes[i])
            if ms:
                out[i] = ms
        return self._wrapped_segments(parts, joined, starts, modes, kw_rules, out, rerun)

    def _wrapped_segments(self, parts: list[bytes], joined: bytes, starts: list[int], modes: list[int],
                          kw_rules: set[int], out: dict[int, list[Match]], done: set[int]) -> dict[int, list[Match]]:
        """out with the tokens continued across a line break inside a string (the strings in
        `done` were scanned alone, continuation included), when a prefixed token rule's keyword occurs."""
        if self._wrap_rx is None or self._wrap_idx.isdisjoint(kw_rules):
            return out
        heads: dict[int, list[tuple[int, int, int]]] = {}
        for hs, he, be in self._wrap_heads(joined, 0, len(joined)):
            i = bisect_right(starts, hs) - 1
            if be < starts[i] + len(parts[i]) and i not in done:  # a separator is no break
                heads.setdefault(i, []).append((hs, he, be))
        for i, found in heads.items():
            lo = starts[i]
            extra = self._wrap_extras(joined, found, lo, lo + len(parts[i]), modes[i], 0)
            if extra:
                out[i] = _merge_glued(out.get(i, []), extra)
        return out

    @staticmethod
    def _rematch(c: _Compiled, part: bytes, pos: int, end: int, offset: int) -> list[tuple[int, int]] | None:
        """The rule's own match anchored at `pos` of the string alone, if it ends at `end`;
        spans shifted by `offset` (joined coordinates)."""
        spans = c.rx.Match(ANCHOR_START, part, pos, len(part))  # type: ignore[attr-defined]
        if spans[0] != (pos, end):
            return None
        return [(a + offset, b + offset) if a >= 0 else (a, b) for a, b in spans]

    @staticmethod
    def _seg_has_kw(c: _Compiled, i: int, part: bytes, lows: dict[int, bytes]) -> bool:
        if not c.kw:
            return True
        if c.kw_ascii:
            low = lows.get(i)
            if low is None:
                low = lows[i] = part.lower()
            for k in c.kw:
                if k in low and (k not in c.word_kw or word_in(part, low, k)):
                    return True
            return False
        text = part.decode("utf-8", "replace").lower()
        return any(k.decode() in text and (k not in c.word_kw or word_in(part, part.lower(), k)) for k in c.kw)

    # ------------------------------------------------------------------ replacing

    def replacement(self, m: Match, value: bytes) -> bytes:
        if m.replace == LITERAL:  # a walker's precomputed text (rules cannot name this kind)
            return m.label.encode("utf-8", "surrogatepass")
        if m.replace == "mask":
            return f"<REDACTED:{m.label}>".encode()
        r = self._by_id[m.rule_id]
        key = (m.label, m.replace, value, r.fold_case, r.fold_separators)
        hit = self._cache.get(key)
        if hit is not None:
            return hit
        value = without_glued_codes(value)
        if m.replace == WRAPPED:
            value = unwrapped(value)
        if m.replace == "username":
            if b"%" in value:
                value = _PERCENT.sub(lambda p: bytes.fromhex(p.group(1).decode()), value)
            v = _normal(value)
            v = self._canonical(r, v.lower()) or v  # a slug variant (john-doe) as its name (john.doe)
            out = self.pseudonyms.username(v.decode("utf-8", "surrogateescape").lower()).encode()
        else:
            v = _normal(value) if r.generated else decoded.normal_run(value) if r.decode else value
            v = v.lower() if r.fold_case else v
            if r.fold_separators:
                v = self._canonical(r, v) or _SEPARATOR_RUN.sub(b" ", v.strip())
            out = self.pseudonyms.token(m.label, v).encode()
        if len(self._cache) > REPLACEMENT_CACHE_MAX:
            self._cache.clear()
        self._cache[key] = out
        return out

    def _canonical(self, r: Rule, value: bytes) -> bytes | None:
        if not r.canonical:
            return None
        forms = self._canonical_rx.get(r.id)
        if forms is None:
            forms = self._canonical_rx[r.id] = [(re2.compile("(?i)" + v), c.encode()) for v, c in r.canonical]
        for rx, canonical in forms:
            if rx.fullmatch(value):
                return canonical
        return None

    def apply(self, buf: bytes, matches: list[Match], report: RedactionReport | None, carrier: str) -> bytes:
        if not matches:
            return buf
        out = []
        pos = 0
        repl = self.replacement
        for m in matches:
            out.append(buf[pos:m.start])
            out.append(repl(m, buf[m.start:m.end]))
            pos = m.end
        out.append(buf[pos:])
        if report is not None:
            if len(matches) == 1:
                report.add(matches[0].rule_id, carrier)
            else:
                for rid, k in Counter(m.rule_id for m in matches).items():
                    report.add(rid, carrier, k)
        return b"".join(out)

    def redact_bytes(self, buf: bytes, report: RedactionReport | None, carrier: str = "text",
                     mode: int = MODE_ALL) -> bytes:
        ms = self.scan_bytes(buf, mode)
        if ms and mode == MODE_ALL:
            ms = with_echoes(buf, ms)
        return self.apply(buf, ms, report, carrier)

    # ------------------------------------------------------------------ str API

    def scan(self, text: str | bytes, mode: int = MODE_ALL) -> list[Match]:
        """Matches with offsets in the units of `text` (characters for str, bytes for bytes)."""
        if isinstance(text, bytes):
            return self.scan_bytes(text, mode)
        buf = text.encode("utf-8", "surrogatepass")
        ms = self.scan_bytes(buf, mode)
        if not ms or len(buf) == len(text):
            return ms
        out = []
        for m in ms:
            s = len(buf[:m.start].decode("utf-8", "surrogatepass"))
            e = s + len(buf[m.start:m.end].decode("utf-8", "surrogatepass"))
            out.append(m._replace(start=s, end=e))
        return out

    def redact(self, text: str | bytes, report: RedactionReport | None, carrier: str = "text",
               mode: int = MODE_ALL) -> str | bytes:
        if isinstance(text, bytes):
            return self.redact_bytes(text, report, carrier, mode)
        buf = text.encode("utf-8", "surrogatepass")
        out = self.redact_bytes(buf, report, carrier, mode)
        return text if out is buf else out.decode("utf-8", "surrogatepass")
