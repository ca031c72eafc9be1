"""National identifiers in file and folder names (path mode).

Path mode runs only the rules that are safe on a bare name (the paths pack, the runtime terms, a
token's own shape). A national id's rule needs its context (`SIN: ` before the number, or its name
somewhere in the string), which a file name gives its own way: `bsn-111222333.txt`,
`sin_number-291 417 772.pdf`, `dni/scan_79542205V.pdf`. Here a run of a name's alphanumeric pieces
(with the one space, dot or dash between them that the formats write: `291 417 772`,
`529.982.247-25`) is an identifier when the name or its parent folder's name names one
(tables.column_kind on its words: `bsn`, `sin_number`, `passport`, not `using` or `span`) and that
identifier's rule takes the run after its own label (`bsn: 111222333`): its shape, allowlist and
validator. Random digits in names (timestamps, hashes, build numbers, uuids) are named by no id,
and a date or a time after one is never taken (a passport number may be all digits).

A file named by an e-mail address (`alice.smith@acme-corp.io.txt`, `invoice-bob@corp.io.pdf`) keeps
its extension: an address's domain would take `.txt` as one more label, and the restored file would
lose its type. `address_end` tells where the address ends; the extensions are FILE_EXTENSIONS.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from archiver.redact import tables
from archiver.redact.engine import MODE_KEYS, Engine
from archiver.redact.pseudonym import Pseudonymizer
from archiver.redact.rules import Rule

_DIGIT = re.compile(r"[0-9]")
_ATOM = re.compile(r"[A-Za-z0-9]+")
_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+")
_PUNCT = frozenset(" .-")  # between the pieces of one identifier
_MAX_PIECES = 7  # a spaced NIR: 1 84 12 2A 451 089 33
_NAME_WORDS = 3  # `national_insurance_number`
_DATE = re.compile(r"(?:19|20)[0-9]{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12][0-9]|3[01])(?:[0-2][0-9][0-5][0-9][0-5][0-9])?")
_TIME = re.compile(r"[0-2][0-9][0-5][0-9][0-5][0-9](?:[0-9]{3})?")

# Extensions that end a file name rather than an address's domain (a few are also TLDs: `.md`,
# `.sh`, `.py`, `.zip`; one is peeled only when what is left still ends in a domain of two labels
# or more, so `jo@firma.md` stays one address).
FILE_EXTENSIONS = frozenset(
    "txt md json jsonl csv tsv log pdf png jpg jpeg gif webp svg html xml yaml yml toml zip gz zst tar "
    "py js ts sh sql db sqlite eml msg ics vcf".split())
_AT = re.compile(r"@|%40")
# an address's domain at the end of a name: labels of letters, digits and `-`, a TLD of 2+ letters
_DOMAIN_END = re.compile(r"(?:@|%40)[^\W_](?:[\w-]*)(?:\.[\w-]+)*\.[^\W\d_]{2,}$")


class IdSpan(NamedTuple):
    start: int  # characters in the name
    end: int
    rule: Rule


class PathIds:
    """Finds the national ids of a path component, as the rules of tables.ID_COLUMNS that are loaded."""

    def __init__(self, rules: list[Rule], pseudonyms: Pseudonymizer) -> None:
        self.by_kind: dict[int, list[Rule]] = {}
        for i, (ids, _names) in enumerate(tables.ID_COLUMNS):
            found = [r for rid in ids for r in rules if r.id == rid and r.check is not None]
            if found:
                self.by_kind[tables.ID_BASE + i] = found
        own = {r.id: r for rs in self.by_kind.values() for r in rs}
        # a scanner of these rules alone: a run is asked about after its rule's label
        self._scanner = Engine(list(own.values()), pseudonyms) if own else None

    def find(self, name: str, parent: str) -> list[IdSpan]:
        """The identifiers in `name` (a file or folder name), given its parent folder's name."""
        # (cheap tests first: most names hold no run of four digits, and name no identifier)
        if self._scanner is None or len(_DIGIT.findall(name)) < 4:
            return []
        kinds = self.kinds_named(name) | self.kinds_named(parent)
        if not kinds:
            return []
        atoms = [m.span() for m in _ATOM.finditer(name)]
        found: list[IdSpan] = []
        for i in range(len(atoms)):
            for j in range(i, min(len(atoms), i + _MAX_PIECES)):
                if j > i and (atoms[j][0] - atoms[j - 1][1] != 1 or name[atoms[j - 1][1]] not in _PUNCT):
                    break
                a, b = atoms[i][0], atoms[j][1]
                if self._timestamp(name, atoms, i, j):
                    continue
                rule = self._taken_by(name[a:b], kinds)
                if rule is not None:
                    found.append(IdSpan(a, b, rule))
        return _longest_apart(found)

    def kinds_named(self, name: str) -> set[int]:
        """The identifier kinds (tables.ID_BASE + i) that a name names in its words, or runs of up to
        three of them (`national_insurance_number`); only those whose rule is loaded."""
        if not name or not tables.has_secret_word(name.encode("utf-8", "surrogatepass")):
            return set()
        words = [w.lower() for w in _WORD.findall(name)]
        out: set[int] = set()
        for i in range(len(words)):
            for n in range(1, _NAME_WORDS + 1):
                if i + n > len(words):
                    break
                kind = tables.column_kind("_".join(words[i:i + n]))
                if kind is not None and kind in self.by_kind:
                    out.add(kind)
        return out

    def _taken_by(self, run: str, kinds: set[int]) -> Rule | None:
        assert self._scanner is not None
        for kind in sorted(kinds):
            for rule in self.by_kind[kind]:
                label = rule.keywords[0] if rule.keywords else ""
                text = f"{label}: {run}" if label else run
                at = len(text) - len(run)
                # (as an object key: the rule's regex alone, not the table pass, which reads
                # `label: run` as a key line and names the first rule of the kind for it)
                if any(m.rule_id == rule.id and m.start == at and m.end == len(text)
                       for m in self._scanner.scan(text, MODE_KEYS)):
                    return rule
        return None

    @staticmethod
    def _timestamp(name: str, atoms: list[tuple[int, int]], i: int, j: int) -> bool:
        """A date (`20240101`, `20240101123456`) or the time after one (`IMG_20240101_123456`)."""
        run = name[atoms[i][0]:atoms[j][1]]
        if not run.isdigit():
            return False
        if _DATE.fullmatch(run):
            return True
        if _TIME.fullmatch(run) and i > 0:
            prev = name[atoms[i - 1][0]:atoms[i - 1][1]]
            return bool(_DATE.fullmatch(prev))
        return False


def address_end(name: str) -> int:
    """Where an e-mail address that a file name ends with ends, before the name's extensions
    (`bob@corp.io.tar.gz`: before `.tar.gz`); len(name) when no extension follows one."""
    if _AT.search(name) is None:
        return len(name)
    end = len(name)
    while True:
        dot = name.rfind(".", 0, end)
        if dot < 0 or name[dot + 1:end].lower() not in FILE_EXTENSIONS or not _DOMAIN_END.search(name, 0, dot):
            return end
        end = dot


def _longest_apart(found: list[IdSpan]) -> list[IdSpan]:
    """The longest of overlapping runs (a spaced number and its last group), in order."""
    out: list[IdSpan] = []
    for s in sorted(found, key=lambda s: (-(s.end - s.start), s.start)):
        if all(s.end <= o.start or o.end <= s.start for o in out):
            out.append(s)
    return sorted(out)
