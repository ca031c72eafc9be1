"""The one-pass matcher: every rule over a buffer with google-re2, gated by keywords.

Design (measured, see bench/redact.py):

* Text is matched as UTF-8 bytes with the low-level RE2 binding; Python `str` is
  encoded once (surrogatepass), never matched as `str` (the wrapper's per-match
  offset conversion is slow).
* Keyword prefilter: one case-insensitive RE2 alternation of all keywords answers
  "any keyword at all?" (stops at the first hit, GB/s), then one RE2::Set of the
  keywords (a DFA, one pass) says which keywords occur; only the rules owning them
  (plus keyword-less rules) run their own regex over the buffer. A rule's regex is
  never tried on text without one of its keywords.
* `scan_segments` scans many strings (the decoded strings of a JSON document)
  joined by newlines in one pass and maps matches back to their strings; a match
  that crosses a separator, and rules with anchors, are re-run on the single
  strings, so the result is exactly what scanning each string alone would give.
* Filters on the secret group: min_length, entropy, allowlist, validator, and for
  generated term rules the "bounded by non-alphanumerics" check.
* Never touched: base64 images and data: URIs, our own tokens (`<LABEL:1a2b3c4d>`,
  `<REDACTED:X>`, `user-1a2b`), and, for a match that is only an id (the whole match
  lies inside a UUID, a 7-64 digit hex run such as a git SHA or sha256, or a
  tool-call/message/request id like `toolu_...`), that id.
* Overlaps: overlapping candidates form a cluster; a candidate covering the whole
  cluster wins (highest confidence, then pack order); otherwise the union span is
  replaced with the token of the highest-confidence, longest candidate, so no
  matched byte survives and replacements never overlap.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections import Counter
from dataclasses import dataclass
from typing import Iterator, NamedTuple

import re2

from archiver.redact.base import RedactionReport
from archiver.redact.pseudonym import Pseudonymizer
from archiver.redact.rules import Rule

_UNANCHORED = re2._Anchor.UNANCHORED  # noqa: SLF001 - the public wrapper has no cheaper entry point

MODE_ALL, MODE_KEYS, MODE_PATHS = 0, 1, 2

_IMAGE_RX = re2.compile(
    rb"data:[\w.+-]+/[\w.+-]+(?:;[\w.+-]+=[\w.+-]+)*;base64,[A-Za-z0-9+/=]+"
    rb"|(?:iVBORw0KGgo|/9j/|R0lGOD|UklGR)[A-Za-z0-9+/]{32,}={0,2}"
)
_TOKEN_RX = re2.compile(rb"<[A-Z][A-Z0-9_]*:[0-9a-f]{8}>|<REDACTED:[A-Z0-9_]+>|\buser-[0-9a-f]{4}\b")
_ID_RX = re2.compile(
    rb"\b(?:[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
    rb"|[0-9a-f]{7,64}|[0-9A-F]{7,64}"
    rb"|(?:toolu|srvtoolu|msg|req|call|fc|rs|resp|ws|ig|ctc|item|run|ses|prt|tool|chatcmpl|thread|asst)"
    rb"_[0-9A-Za-z]{6,})\b"
)
_IDCHARS = b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_-"


class Match(NamedTuple):
    rule_id: str
    start: int  # of the part to replace (bytes for bytes input, characters for str input)
    end: int
    label: str
    replace: str


# candidate: (start, end, rule index, group0 start, group0 end)
_Cand = tuple[int, int, int, int, int]


@dataclass(eq=False)
class _Compiled:
    rule: Rule
    idx: int
    rx: object
    group: int
    kw: tuple[bytes, ...]
    kw_ascii: bool
    allow: object | None
    anchored: bool
    bounded: bool
    modes: tuple[bool, bool, bool]
    rank: int
    simple: bool  # no filter on the secret: the span is the candidate

    def match_at(self, cand: _Cand) -> Match:
        r = self.rule
        return Match(r.id, cand[0], cand[1], r.label, r.replace)


def _is_anchored(regex: str) -> bool:
    """Conservative: does the pattern use ^ $ \\A \\z outside a character class?"""
    in_class = False
    i, n = 0, len(regex)
    while i < n:
        ch = regex[i]
        if ch == "\\":
            if not in_class and i + 1 < n and regex[i + 1] in "Az":
                return True
            i += 2
            continue
        if in_class:
            if ch == "]":
                in_class = False
        elif ch == "[":
            in_class = True
            if i + 1 < n and regex[i + 1] == "^":
                i += 1
            if i + 1 < n and regex[i + 1] == "]":
                i += 1
        elif ch in "^$":
            return True
        i += 1
    return False


def _entropy(data: bytes) -> float:
    n = len(data)
    if not n:
        return 0.0
    return -sum(c / n * math.log2(c / n) for c in Counter(data).values())


def _spans(rx: object, buf: bytes, pos: int = 0, end: int | None = None) -> Iterator[list[tuple[int, int]]]:
    """Non-overlapping matches of a low-level RE2 object (empty matches skipped)."""
    n = len(buf) if end is None else end
    match = rx.Match  # type: ignore[attr-defined]
    while pos <= n:
        spans = match(_UNANCHORED, buf, pos, n)
        s, e = spans[0]
        if s < 0:
            return
        if e > s:
            yield spans
            pos = e
        else:
            pos = e + 1


def _first(rx: object, buf: bytes, pos: int = 0, end: int | None = None) -> tuple[int, int]:
    return rx.Match(_UNANCHORED, buf, pos, len(buf) if end is None else end)[0]  # type: ignore[attr-defined]


class Engine:
    """All rules compiled once; `scan`/`redact` on text, `scan_segments` on many strings at once."""

    def __init__(self, rules: list[Rule], pseudonyms: Pseudonymizer) -> None:
        self.rules = list(rules)
        self.pseudonyms = pseudonyms
        self._by_id = {r.id: r for r in self.rules}
        self._c: list[_Compiled] = []
        kw_index: dict[bytes, int] = {}
        kw_rules: list[list[int]] = []
        self._nokw: tuple[list[int], list[int], list[int]] = ([], [], [])
        for idx, r in enumerate(self.rules):
            rx = re2.compile(r.regex)._regexp  # noqa: SLF001
            kws = tuple(dict.fromkeys(k.encode() for k in r.keywords))
            allow = None
            if r.allowlist:
                allow = re2.compile("|".join(f"(?:{a})" for a in r.allowlist))._regexp  # noqa: SLF001
            modes = (True, r.applies_to_keys, r.applies_to_paths)
            c = _Compiled(rule=r, idx=idx, rx=rx, group=r.secret_group, kw=kws,
                          kw_ascii=all(k.isascii() for k in kws), allow=allow,
                          anchored=_is_anchored(r.regex), bounded=r.bounded, modes=modes, rank=r.rank,
                          simple=not (r.bounded or r.min_length or r.entropy is not None or allow is not None
                                      or r.check is not None))
            self._c.append(c)
            if not kws:
                for m in range(3):
                    if modes[m]:
                        self._nokw[m].append(idx)
            for k in kws:
                if k not in kw_index:
                    kw_index[k] = len(kw_rules)
                    kw_rules.append([])
                kw_rules[kw_index[k]].append(idx)
        self._kw_rules = [sorted(set(x)) for x in kw_rules]
        self.keywords = list(kw_index)
        opts = re2.Options()
        opts.max_mem = 64 << 20
        if self.keywords:
            alt = b"(?i)(?:" + b"|".join(re2.escape(k) for k in self.keywords) + b")"
            self._gate = re2.compile(alt, opts)._regexp  # noqa: SLF001
            self._set = re2.Set.SearchSet(opts)
            for k in self.keywords:
                self._set.Add(b"(?i)" + re2.escape(k))
            self._set.Compile()
        else:
            self._gate = None
            self._set = None
        self.has_keywordless = bool(self._nokw[MODE_ALL])
        self.has_keywordless_keys = bool(self._nokw[MODE_KEYS])
        # Keywords with a JSON-escapable character could hide behind \" or \\ in a raw JSON line.
        self.keywords_json_safe = all(b'"' not in k and b"\\" not in k for k in self.keywords)
        self._cache: dict[tuple[str, str, bytes], bytes] = {}

    # ------------------------------------------------------------------ gating

    def any_keyword(self, buf: bytes) -> bool:
        return self._gate is not None and _first(self._gate, buf)[0] >= 0

    def keywordless_hit(self, buf: bytes, mode: int = MODE_ALL) -> bool:
        """Does any keyword-less, unanchored rule match somewhere in buf? (anchored ones: True)."""
        for idx in self._nokw[mode]:
            c = self._c[idx]
            if c.anchored or _first(c.rx, buf)[0] >= 0:
                return True
        return False

    def _candidate_rules(self, buf: bytes, mode: int | None) -> list[int]:
        """Rules whose keywords occur in buf (case-insensitive) plus keyword-less ones."""
        if mode is None:
            out = set(self._nokw[MODE_ALL])
        else:
            out = set(self._nokw[mode])
        if self._gate is not None and _first(self._gate, buf)[0] >= 0:
            hits = self._set.Match(buf)  # type: ignore[union-attr]
            if hits:
                for h in hits:
                    out.update(self._kw_rules[h])
            else:  # the Set failed (DFA budget): be safe, try every keyword rule
                for rl in self._kw_rules:
                    out.update(rl)
        if mode is not None:
            return sorted(i for i in out if self._c[i].modes[mode])
        return sorted(out)

    # ------------------------------------------------------------------ matching

    def _accept(self, c: _Compiled, buf: bytes, spans: list[tuple[int, int]]) -> _Cand | None:
        s, e = spans[c.group]
        if s < 0 or e <= s:
            return None
        if c.bounded and (spans[1][1] > spans[1][0] or spans[3][1] > spans[3][0]):
            return None
        r = c.rule
        if r.min_length or r.entropy is not None or c.allow is not None or r.check is not None:
            secret = buf[s:e]
            if r.min_length and (len(secret) < r.min_length
                                 or len(secret.decode("utf-8", "replace")) < r.min_length):
                return None
            if r.entropy is not None and _entropy(secret) < r.entropy:
                return None
            if c.allow is not None and _first(c.allow, secret)[0] >= 0:
                return None
            if r.check is not None:
                try:
                    ok = r.check(secret.decode("utf-8", "replace"))
                except Exception:  # a validator bug must not abort redaction; treat as "not valid"
                    ok = False
                if not ok:
                    return None
        return (s, e, c.idx, spans[0][0], spans[0][1])

    def _raw_candidates(self, buf: bytes, mode: int) -> list[_Cand]:
        cands: list[_Cand] = []
        for idx in self._candidate_rules(buf, mode):
            c = self._c[idx]
            for spans in _spans(c.rx, buf):
                cand = self._accept(c, buf, spans)
                if cand is not None:
                    cands.append(cand)
        return cands

    def _protected(self, buf: bytes, cands: list[_Cand]) -> list[_Cand]:
        img: list[tuple[int, int]] = []
        if (b"base64," in buf or b"iVBORw0KGgo" in buf or b"/9j/" in buf or b"R0lGOD" in buf
                or b"UklGR" in buf):
            img = [tuple(sp[0]) for sp in _spans(_IMAGE_RX._regexp, buf)]  # noqa: SLF001
        tok: list[tuple[int, int]] = []
        if _first(_TOKEN_RX._regexp, buf)[0] >= 0:  # noqa: SLF001
            tok = [tuple(sp[0]) for sp in _spans(_TOKEN_RX._regexp, buf)]  # noqa: SLF001
        out = []
        n = len(buf)
        comp = self._c
        for cand in cands:
            s, e, idx, gs, ge = cand
            if img and any(a < e and s < b for a, b in img):
                continue
            if tok and any(a < e and s < b for a, b in tok):
                continue
            if ge - gs <= 160 and not comp[idx].rule.generated and not buf[gs:ge].translate(None, _IDCHARS):
                lo, hi = max(0, gs - 80), min(n, ge + 80)
                if any(sp[0][0] <= gs and ge <= sp[0][1] for sp in _spans(_ID_RX._regexp, buf, lo, hi)):  # noqa: SLF001
                    continue
            out.append(cand)
        return out

    def _resolve(self, cands: list[_Cand]) -> list[Match]:
        if not cands:
            return []
        if len(cands) > 1:
            cands.sort()
        out: list[Match] = []
        comp = self._c
        cluster = [cands[0]]
        end = cands[0][1]
        for cand in cands[1:]:
            if cand[0] < end:
                cluster.append(cand)
                if cand[1] > end:
                    end = cand[1]
            else:
                out.append(self._pick(cluster) if len(cluster) > 1 else comp[cluster[0][2]].match_at(cluster[0]))
                cluster = [cand]
                end = cand[1]
        out.append(self._pick(cluster) if len(cluster) > 1 else comp[cluster[0][2]].match_at(cluster[0]))
        return out

    def _pick(self, cluster: list[_Cand]) -> Match:
        comp = self._c
        us = cluster[0][0]  # sorted by start
        ue = max(c[1] for c in cluster)
        best = None
        best_key = None
        for c in cluster:  # a candidate covering the whole cluster wins: confidence, then pack order
            if c[0] == us and c[1] == ue:
                key = (comp[c[2]].rank, -c[2])
                if best_key is None or key > best_key:
                    best, best_key = c, key
        if best is not None:
            r = comp[best[2]].rule
            return Match(r.id, us, ue, r.label, r.replace)
        for c in cluster:
            key = (comp[c[2]].rank, c[1] - c[0], -c[2])
            if best_key is None or key > best_key:
                best, best_key = c, key
        r = comp[best[2]].rule  # type: ignore[index]
        return Match(r.id, us, ue, r.label, "mask" if r.replace == "mask" else "token")

    def scan_bytes(self, buf: bytes, mode: int = MODE_ALL) -> list[Match]:
        cands = self._raw_candidates(buf, mode)
        if not cands:
            return []
        return self._resolve(self._protected(buf, cands))

    def scan_segments(self, parts: list[bytes], modes: list[int]) -> dict[int, list[Match]]:
        """Matches per string, as if each part were scanned alone, in one pass over all of them."""
        if not parts:
            return {}
        joined = b"\n".join(parts)
        cand_rules = self._candidate_rules(joined, None)
        if not cand_rules:
            return {}
        starts: list[int] = []
        ends: list[int] = []
        pos = 0
        for p in parts:
            starts.append(pos)
            pos += len(p)
            ends.append(pos)
            pos += 1
        lows: dict[int, bytes] = {}
        per: dict[int, list[_Cand]] = {}
        rerun: set[int] = set()
        n = len(joined)
        for idx in cand_rules:
            c = self._c[idx]
            cmodes = c.modes
            if c.anchored:
                for i, p in enumerate(parts):
                    if cmodes[modes[i]] and self._seg_has_kw(c, i, p, lows):
                        rerun.add(i)
                continue
            match = c.rx.Match  # type: ignore[attr-defined]
            simple = c.simple
            g = c.group
            kw_ok: dict[int, bool] = {}
            pos = 0
            while pos <= n:
                spans = match(_UNANCHORED, joined, pos, n)
                gs, ge = spans[0]
                if gs < 0:
                    break
                if ge == gs:
                    pos = ge + 1
                    continue
                pos = ge
                i = bisect_right(starts, gs) - 1
                seg_end = ends[i]
                if ge > seg_end or gs >= seg_end:
                    j = bisect_right(starts, ge - 1) - 1
                    rerun.update(range(i if gs < seg_end else i + 1, j + 1))
                    continue
                if i in rerun or not cmodes[modes[i]]:
                    continue
                if c.kw:
                    ok = kw_ok.get(i)
                    if ok is None:
                        ok = kw_ok[i] = self._seg_has_kw(c, i, parts[i], lows)
                    if not ok:
                        continue
                o = starts[i]
                if simple:
                    s, e = spans[g]
                    if s < 0 or e <= s:
                        continue
                    cand = (s - o, e - o, idx, gs - o, ge - o)
                else:
                    cand = self._accept(c, joined, spans)
                    if cand is None:
                        continue
                    cand = (cand[0] - o, cand[1] - o, idx, gs - o, ge - o)
                lst = per.get(i)
                if lst is None:
                    per[i] = [cand]
                else:
                    lst.append(cand)
        for i in rerun:
            per[i] = self._raw_candidates(parts[i], modes[i])
        out: dict[int, list[Match]] = {}
        for i, cands in per.items():
            if cands:
                ms = self._resolve(self._protected(parts[i], cands))
                if ms:
                    out[i] = ms
        return out

    @staticmethod
    def _seg_has_kw(c: _Compiled, i: int, part: bytes, lows: dict[int, bytes]) -> bool:
        if not c.kw:
            return True
        if c.kw_ascii:
            low = lows.get(i)
            if low is None:
                low = lows[i] = part.lower()
            for k in c.kw:
                if k in low:
                    return True
            return False
        text = part.decode("utf-8", "replace").lower()
        return any(k.decode() in text for k in c.kw)

    # ------------------------------------------------------------------ replacing

    def replacement(self, m: Match, value: bytes) -> bytes:
        if m.replace == "mask":
            return f"<REDACTED:{m.label}>".encode()
        key = (m.label, m.replace, value)
        hit = self._cache.get(key)
        if hit is not None:
            return hit
        r = self._by_id[m.rule_id]
        if m.replace == "username":
            out = self.pseudonyms.username(value.decode("utf-8", "surrogateescape").lower()).encode()
        else:
            out = self.pseudonyms.token(m.label, value.lower() if r.fold_case else value).encode()
        if len(self._cache) > 50_000:
            self._cache.clear()
        self._cache[key] = out
        return out

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
        return self.apply(buf, self.scan_bytes(buf, mode), report, carrier)

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
