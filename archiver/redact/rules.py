"""Rule packs: loading, validation, and the rules generated from runtime terms.

A pack is a TOML file (`[pack]` + `[[rules]]`, schema in docs and below). Specs
are `builtin:<name>` (shipped packs) or a filesystem path. Every problem raises
`RuleError` naming the file and the rule id, so a typo never silently disables
a rule.

Runtime terms (usernames, real names, home directories, extra terms) become
generated rules with ids `user-username`, `user-username-account`,
`user-username-login`, `user-name`, `user-home-N`, `extra-term-N`. Generic account
names (`root`, `ubuntu`, ...) are never turned into rules: replacing `root`
everywhere would wreck ordinary text and hides nothing private. Usernames shorter
than 3 characters are only replaced in path context (`/home/ab/`, `-home-ab-`), never
as free-standing words. Usernames that are everyday words (`max`, `will`: the
lists are data, in rules/words.toml) are replaced only where an account shows (a home folder,
`max@host`, `uid=1000(max)`, a passwd line, `sudo -u max`), not in `max-width`, a
`"max"` key or prose. A name wider than ps's 8-character USER column is also replaced as ps
prints it (`mfernan+`, the same pseudonym), and a term right after a percent-encoded or
JSON-escaped separator (`%20alice`, `%2Falice`, `\\u0040alice`) is bounded there.
"""

from __future__ import annotations

import getpass
import importlib
import importlib.resources
import math
import re
import re._parser as sre_parse  # Python's regex parser: the widths of an RE2 pattern it reads alike
import tomllib
import unicodedata
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Literal

import re2

Replace = Literal["token", "username", "mask"]
Confidence = Literal["high", "medium", "low"]

CONFIDENCE_RANK = {"high": 3, "medium": 2, "low": 1}
BUILTIN_PACKS = ("secrets", "pii", "paths")
# Shipped packs beside the three core ones (`builtin:names`, person names in free text: in the
# default list, and left out by a team that sets `rules` without it); their findings count under
# their own name, not `custom`, for a decode rule's `decode_packs`.
OPTIONAL_PACKS = ("names",)
# Packs whose rules also apply to JSON keys and (for "paths") to path components.
KEY_PACKS = frozenset({"paths", "pii"})
PATH_PACKS = frozenset({"paths"})


_PACK_KEYS = frozenset({"name", "version", "description"})
_RULE_KEYS = frozenset({
    "id", "description", "regex", "secret_group", "keywords", "entropy", "min_length", "validator",
    "allowlist", "label", "replace", "confidence", "positive", "negative", "expect", "same_as", "paths",
    "decode", "decode_packs", "word_keywords", "keyword_window",
})
# `decode = "base64"`: not a pattern rule but the engine's decode-and-rescan pass (decoded.py). Its
# regex finds the runs, min_length is the shortest run decoded, decode_packs the packs whose
# findings in the decoded text make the whole run a secret ("runtime": the configured terms;
# "custom": every pack that is not built in, a team's own).
DECODERS = ("base64",)
DECODE_PACKS = (*BUILTIN_PACKS, "runtime", "custom")
# A pack of one's own may take none of these names: the engine treats the built-in names specially
# (what their rules run on), and "runtime" and "custom" are what decode_packs counts findings under.
RESERVED_PACK_NAMES = DECODE_PACKS
# Ids the loader generates from runtime terms (term_rules) or the engine adds (its table pass):
# refused in every pack file, whether or not the term that generates them is configured.
GENERATED_IDS = frozenset({"user-username", "user-username-account", "user-username-login", "user-name",
                           "host-name", "table-password-column", "table-secret-column"})
_GENERATED_ID_RE = re2.compile(r"^(?:user-home|extra-term)-[0-9]+$")
# Keys a decode rule (decoded.py) has no use for: its regex finds runs, it has no keyword gate,
# and its candidates go through none of the engine's filters nor path mode.
DECODE_UNUSED_KEYS = ("keywords", "word_keywords", "keyword_window", "entropy", "allowlist", "validator", "same_as",
                      "paths")
# Shannon entropy is computed over the secret group's bytes (engine._entropy): at most log2(256).
MAX_ENTROPY = 8.0
HEX_RUN_MIN = 32  # engine._HEX: a hex run this long may pass an entropy bar above 3.0 with 3.0


def decode_class(rule: "Rule") -> str:
    """The name a finding of `rule` counts under for a decode rule's `decode_packs`."""
    if rule.generated:
        return "runtime"
    if rule.pack in OPTIONAL_PACKS and rule.source == f"builtin:{rule.pack}":
        return rule.pack  # counted by no decode rule: a name in base64 makes no run a secret
    return rule.pack if rule.pack in BUILTIN_PACKS else "custom"
_VALIDATOR_NAMES = ("luhn", "iban", "jwt", "ssn", "pem_base64", "non_ascii", "uk_nino", "ca_sin", "aadhaar",
                    "in_pan", "br_cpf", "es_dni", "de_idnr", "nl_bsn", "fr_nir", "passport", "aba_routing",
                    "sort_code", "bank_account", "us_ein", "eu_vat", "us_zip", "de_plz", "uk_postcode", "it_cf",
                    "se_personnummer", "dk_cpr", "pl_pesel", "cn_rid", "jp_my_number", "kr_rrn", "au_tfn", "mx_curp",
                    "tax_reference", "it_piva", "national_id", "person_name", "birth_date", "short_secret")
_ID_RE = re2.compile(r"^[a-z0-9][a-z0-9._-]*$")
_LABEL_RE = re2.compile(r"^[A-Z][A-Z0-9_]*$")


class RuleError(ValueError):
    """A rule pack problem; the message names the file and the rule id."""


@dataclass(eq=False)
class Rule:
    id: str
    regex: str
    label: str
    description: str = ""
    secret_group: int = 0
    keywords: tuple[str, ...] = ()
    # of the keywords, those that gate the rule only as words of their own (`nie`, not in `companies`)
    word_keywords: tuple[str, ...] = ()
    # a candidate counts only with one of the keywords at most this many bytes before or after it
    # in its string (0: anywhere in the string, the keyword gate alone)
    keyword_window: int = 0
    entropy: float | None = None
    min_length: int = 0
    # the secret must equal the text of this group (RE2 has no backreferences): `ls -l`'s group
    # column is the owner's name only when it is the same word
    same_as: int = 0
    validator: str | None = None
    allowlist: tuple[str, ...] = ()
    replace: Replace = "token"
    confidence: Confidence = "high"
    positive: tuple[str, ...] = ()
    negative: tuple[str, ...] = ()
    expect: tuple[str, ...] = ()
    pack: str = ""
    source: str = ""
    # Generated rules: matched value is lowercased before hashing (case-insensitive terms), and
    # `bounded` means groups 1 and 3 (the alphanumeric run around the term) must be empty.
    generated: bool = False
    bounded: bool = False
    fold_case: bool = False
    fold_separators: bool = False  # runs of space . _ - hash as one space ("Jane-Doe" is "Jane Doe")
    # (variant regex, canonical form): a value that fully matches a variant hashes as its canonical
    # form, so "Doe, Jane" and "J. Doe" get the pseudonym of "Jane Doe"
    canonical: tuple[tuple[str, str], ...] = ()
    digits_after: bool = False  # a bounded term may be followed by digits (`alice2024`): the term is replaced
    # a bounded term is not matched inside a code identifier (`max_tokens`, `Math.max(`): usernames
    # that are ordinary words would wreck JSON keys and code (words.in_identifier)
    word_only: bool = False
    # `paths = true` in a pack: also run on the components of archived file paths (path mode),
    # where only the paths pack and the generated rules run otherwise (an e-mail as a folder name)
    in_paths: bool = False
    check: Callable[[str], bool] | None = field(default=None, repr=False)
    # Generated literal-term rules: the terms themselves, so the engine can match them with a
    # find loop instead of RE2 (cheaper per match; usernames occur in almost every path).
    terms: tuple[str, ...] = ()
    decode: str | None = None  # the decode-and-rescan pass (DECODERS), not a pattern rule
    decode_packs: tuple[str, ...] = ()

    @property
    def rank(self) -> int:
        return CONFIDENCE_RANK[self.confidence]

    @property
    def applies_to_keys(self) -> bool:
        # high-confidence rules are specific (a token's own prefix and shape): a map keyed by
        # tokens must not carry them out; the others would misfire on schema words
        return self.generated or self.pack in KEY_PACKS or self.confidence == "high"

    @property
    def applies_to_ids(self) -> bool:
        # values the walkers keep from the other rules (ids, thinking signatures): a secret
        # token's own shape is still found there, and so are the configured usernames and names
        # (an id built from a name, `alice-main`, would map a pseudonym back to it). Paths and
        # generic patterns could occur in base64 by chance, and a changed signature no longer
        # verifies
        return self.confidence == "high" and (self.generated or self.pack not in KEY_PACKS)

    @property
    def secret_shape(self) -> bool:
        """A token's own shape (high-confidence secret rules): what fail_closed's raw half seeks."""
        return self.confidence == "high" and not self.generated and self.pack not in KEY_PACKS

    @property
    def applies_to_paths(self) -> bool:
        # a token's own shape too: a file named by a token (`tool-results/ghp_....txt`) is renamed
        # as the reference to it inside the transcript is
        return self.generated or self.pack in PATH_PACKS or self.in_paths or self.secret_shape


@dataclass
class RuntimeTerms:
    usernames: list[str] = field(default_factory=list)
    names: list[str] = field(default_factory=list)  # the user's real name(s), matched as phrases
    home_dirs: list[str] = field(default_factory=list)
    extra_terms: list[str] = field(default_factory=list)  # company hostnames, repo names...
    hosts: list[str] = field(default_factory=list)  # this machine's name(s): shell prompts, ssh, logs

    @classmethod
    def for_current_user(
        cls,
        usernames: list[str] | tuple[str, ...] = (),
        names: list[str] | tuple[str, ...] = (),
        home_dirs: list[str] | tuple[str, ...] = (),
        extra_terms: list[str] | tuple[str, ...] = (),
    ) -> "RuntimeTerms":
        """The given terms plus the OS user's name and HOME (generic accounts are skipped later)."""
        users = list(usernames)
        try:
            users.append(getpass.getuser())
        except (KeyError, OSError):
            pass
        homes = list(home_dirs)
        try:
            homes.append(str(Path.home()))
        except (KeyError, RuntimeError):
            pass
        return cls(usernames=_dedupe(users), names=_dedupe(list(names)), home_dirs=_dedupe(homes),
                   extra_terms=_dedupe(list(extra_terms)))


def _dedupe(items: list[str]) -> list[str]:
    out: dict[str, None] = {}
    for it in items:
        it = (it or "").strip()
        if it:
            out.setdefault(it, None)
    return list(out)


# ---------------------------------------------------------------- loading packs

def builtin_pack_path(name: str) -> Path:
    """Packaged rule file (`archiver/rules/<name>.toml`), else the repository's `rules/` dir."""
    try:
        res = importlib.resources.files("archiver.rules").joinpath(f"{name}.toml")
        if res.is_file():
            return Path(str(res))
    except (ModuleNotFoundError, TypeError, FileNotFoundError):
        pass
    repo = Path(__file__).resolve().parents[2] / "rules" / f"{name}.toml"
    if repo.is_file():
        return repo
    raise RuleError(f"builtin:{name}: rule pack not found (looked in archiver.rules and {repo.parent})")


# ---------------------------------------------------------------- word lists (rules/words.toml)

WORD_LISTS = ("generic_hosts", "generic_accounts", "common_word_first_names", "common_word_usernames",
              "password_words", "password_states", "given_names", "not_surnames",
              "account_role_words", "organisation_words", "mailbox_words", "system_accounts")


def load_word_lists(path: Path) -> dict[str, frozenset[str]]:
    """The word lists the generated rules consult, from `path` (rules/words.toml): each a list of
    lower-case strings. Raise RuleError naming the file on anything else."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise RuleError(f"{path}: cannot read word lists: {e}") from None
    unknown = set(data) - set(WORD_LISTS) - {"version"}
    if unknown:
        raise RuleError(f"{path}: unknown word list(s): {', '.join(sorted(unknown))}")
    out: dict[str, frozenset[str]] = {}
    for name in WORD_LISTS:
        words = data.get(name)
        if not isinstance(words, list) or not all(isinstance(w, str) and w and w == w.strip().lower() for w in words):
            raise RuleError(f"{path}: {name} must be a list of non-empty lower-case strings")
        out[name] = frozenset(words)
    return out


BUILTIN_WORDS = load_word_lists(builtin_pack_path("words"))  # rules/words.toml, by list name
# Host names every machine could have: replacing them would hide nothing and wreck ordinary text.
GENERIC_HOSTS = BUILTIN_WORDS["generic_hosts"]
# Account names so common that replacing them everywhere would wreck ordinary text.
GENERIC_ACCOUNTS = BUILTIN_WORDS["generic_accounts"]
# First names that are everyday words ("Will this work?"): matched only with the last name.
COMMON_WORD_NAMES = BUILTIN_WORDS["common_word_first_names"]
# Account names that are everyday words or words of code: replaced only where an account shows.
COMMON_WORD_USERNAMES = BUILTIN_WORDS["common_word_usernames"]


def _validators() -> dict[str, Callable[[str], bool]]:
    try:
        mod = importlib.import_module("archiver.redact.validators")
    except ImportError:
        return {}
    return dict(getattr(mod, "VALIDATORS", {}))


def load_pack(path: Path, source: str | None = None, builtin: bool = False) -> list[Rule]:
    src = source or str(path)
    try:
        data = tomllib.loads(path.read_text("utf-8"))
    except OSError as e:
        raise RuleError(f"{src}: cannot read rule pack: {e.strerror or e}") from e
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise RuleError(f"{src}: invalid TOML: {e}") from e
    if not builtin:
        name = data.get("pack", {}).get("name") if isinstance(data.get("pack"), dict) else None
        if name in RESERVED_PACK_NAMES:
            raise RuleError(f"{src}: [pack]: name {name!r} is reserved ({', '.join(RESERVED_PACK_NAMES)}: "
                            f"the engine treats them specially); name the pack after your team")
    return parse_pack(data, src, builtin)


def parse_pack(data: dict[str, Any], src: str, builtin: bool = False) -> list[Rule]:
    """The rules of a parsed pack file, validated. `builtin`: a shipped pack, whose rules the
    tests check (tests/test_s14_rules_validation.py), so loading skips the costlier checks of
    what a regex can match."""
    unknown = sorted(set(data) - {"pack", "rules"})
    if unknown:
        raise RuleError(f"{src}: unknown top-level key {unknown[0]!r}")
    pack = data.get("pack")
    if not isinstance(pack, dict):
        raise RuleError(f"{src}: missing [pack] table")
    bad = sorted(set(pack) - _PACK_KEYS)
    if bad:
        raise RuleError(f"{src}: [pack]: unknown key {bad[0]!r}")
    name = pack.get("name")
    if not isinstance(name, str) or not name:
        raise RuleError(f"{src}: [pack]: 'name' must be a non-empty string")
    if not isinstance(pack.get("version"), int):
        raise RuleError(f"{src}: [pack]: 'version' must be an integer")
    raw_rules = data.get("rules", [])
    if not isinstance(raw_rules, list):
        raise RuleError(f"{src}: 'rules' must be an array of tables ([[rules]])")
    validators = None
    out: list[Rule] = []
    seen: set[str] = set()
    for i, raw in enumerate(raw_rules):
        if not isinstance(raw, dict):
            raise RuleError(f"{src}: rules[{i}] is not a table")
        rid = raw.get("id")
        where = f"{src}: rule {rid!r}" if isinstance(rid, str) else f"{src}: rules[{i}]"
        if not isinstance(rid, str) or not _ID_RE.search(rid):
            raise RuleError(f"{where}: 'id' must be a lowercase id like 'aws-access-key-id'")
        if rid in seen:
            raise RuleError(f"{where}: duplicate rule id")
        if reserved_id(rid):
            kind = "the engine's table pass" if rid.startswith("table-") else "generated runtime-term rules"
            raise RuleError(f"{where}: id is reserved for {kind}")
        seen.add(rid)
        if raw.get("validator") is not None and validators is None:
            validators = _validators()
        out.append(_parse_rule(raw, where, name, src, validators or {}, builtin))
    return out


def reserved_id(rid: str) -> bool:
    """Is `rid` an id of a generated rule (runtime terms, the engine's table pass)?"""
    return rid in GENERATED_IDS or _GENERATED_ID_RE.search(rid) is not None


def _str_list(raw: dict[str, Any], key: str, where: str) -> tuple[str, ...]:
    v = raw.get(key, [])
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        raise RuleError(f"{where}: {key!r} must be a list of strings")
    return tuple(v)


def _parse_rule(raw: dict[str, Any], where: str, pack: str, src: str,
                validators: dict[str, Callable[[str], bool]], builtin: bool = False) -> Rule:
    bad = sorted(set(raw) - _RULE_KEYS)
    if bad:
        raise RuleError(f"{where}: unknown key {bad[0]!r}")
    unused = [k for k in DECODE_UNUSED_KEYS if k in raw] if raw.get("decode") is not None else []
    if unused:
        raise RuleError(f"{where}: a decode rule does not use {', '.join(repr(k) for k in unused)}: remove "
                        f"{'it' if len(unused) == 1 else 'them'}")
    regex = raw.get("regex")
    if not isinstance(regex, str) or not regex:
        raise RuleError(f"{where}: 'regex' must be a non-empty string")
    regex = expand_word_lists(regex, where, "the regex")
    rx = _compile(regex, where, "regex", program=True)
    if rx.search("") is not None:  # (a program of its own: the engine compiles the one it keeps)
        raise RuleError(f"{where}: regex matches the empty string")
    groups = rx.groups
    secret_group = raw.get("secret_group", 1 if groups else 0)
    if not isinstance(secret_group, int) or isinstance(secret_group, bool) or not 0 <= secret_group <= groups:
        raise RuleError(f"{where}: 'secret_group' {secret_group!r} is not a group of the regex ({groups} groups)")
    same_as = raw.get("same_as", 0)
    if (not isinstance(same_as, int) or isinstance(same_as, bool) or not 0 <= same_as <= groups
            or (same_as and same_as == secret_group)):
        raise RuleError(f"{where}: 'same_as' {same_as!r} is not another group of the regex ({groups} groups)")
    keywords = _str_list(raw, "keywords", where)
    for k in keywords:
        if not k or k != k.lower():
            raise RuleError(f"{where}: keyword {k!r} must be non-empty and lowercase")
        if any(ord(c) < 0x20 or c == "\x7f" for c in k):
            raise RuleError(f"{where}: keyword {k!r} contains a control character")
    word_keywords = _str_list(raw, "word_keywords", where)
    for k in word_keywords:
        if k not in keywords:
            raise RuleError(f"{where}: word keyword {k!r} is not one of the rule's 'keywords'")
        if not (k.isascii() and k.isalnum()):
            raise RuleError(f"{where}: word keyword {k!r} must be ASCII letters and digits")
    keyword_window = raw.get("keyword_window", 0)
    if not isinstance(keyword_window, int) or isinstance(keyword_window, bool) or keyword_window < 0:
        raise RuleError(f"{where}: 'keyword_window' must be a non-negative integer")
    if keyword_window and not keywords:
        raise RuleError(f"{where}: 'keyword_window' needs 'keywords' (the words looked for near the value)")
    entropy = raw.get("entropy")
    if entropy is not None and (not isinstance(entropy, (int, float)) or isinstance(entropy, bool)
                                or math.isnan(entropy) or entropy < 0):
        raise RuleError(f"{where}: 'entropy' must be a non-negative number")
    if entropy is not None and entropy > MAX_ENTROPY:
        raise RuleError(f"{where}: 'entropy' {entropy} can never be reached: the entropy of the secret's bytes "
                        f"is at most {MAX_ENTROPY:g} bits a byte")
    min_length = raw.get("min_length", 0)
    if not isinstance(min_length, int) or isinstance(min_length, bool) or min_length < 0:
        raise RuleError(f"{where}: 'min_length' must be a non-negative integer")
    validator = raw.get("validator")
    check = None
    if validator is not None:
        if validator not in _VALIDATOR_NAMES:
            raise RuleError(f"{where}: unknown validator {validator!r} (known: {', '.join(_VALIDATOR_NAMES)})")
        check = validators.get(validator)
        if check is None:
            raise RuleError(f"{where}: validator {validator!r} is not available (archiver.redact.validators)")
    allowlist = tuple(expand_word_lists(a, where) for a in _str_list(raw, "allowlist", where))
    for a in allowlist:
        _compile(a, where, "allowlist entry")
    label = raw.get("label", raw["id"].upper().replace("-", "_").replace(".", "_"))
    if "label" not in raw and (not _LABEL_RE.search(label) or len(label) > 40):
        raise RuleError(f"{where}: an id without a 'label' must start with a letter and have at most 40 "
                        f"characters, like 'aws-access-key-id' (the label is made from it); or give a 'label'")
    if not isinstance(label, str) or not _LABEL_RE.search(label) or len(label) > 40:
        raise RuleError(f"{where}: 'label' must look like 'AWS_ACCESS_KEY' (at most 40 characters)")
    replace = raw.get("replace", "token")
    if replace not in ("token", "username", "mask"):
        raise RuleError(f"{where}: 'replace' must be token, username or mask")
    confidence = raw.get("confidence", "high")
    if confidence not in CONFIDENCE_RANK:
        raise RuleError(f"{where}: 'confidence' must be high, medium or low")
    description = raw.get("description", "")
    if not isinstance(description, str):
        raise RuleError(f"{where}: 'description' must be a string")
    in_paths = raw.get("paths", False)
    if not isinstance(in_paths, bool):
        raise RuleError(f"{where}: 'paths' must be true or false")
    decode = raw.get("decode")
    decode_packs = _str_list(raw, "decode_packs", where)
    if decode is not None:
        if decode not in DECODERS:
            raise RuleError(f"{where}: 'decode' must be one of {', '.join(DECODERS)}")
        if not decode_packs or any(p not in DECODE_PACKS for p in decode_packs):
            raise RuleError(f"{where}: 'decode_packs' must list packs of {', '.join(DECODE_PACKS)}")
        if secret_group != 1 or groups != 1:
            raise RuleError(f"{where}: a decode rule's regex has one group, the run")
        if min_length < 16:
            raise RuleError(f"{where}: a decode rule needs 'min_length' of 16 or more (the shortest run decoded)")
    elif decode_packs:
        raise RuleError(f"{where}: 'decode_packs' needs 'decode'")
    if not builtin and (min_length or entropy is not None):
        _check_reachable(regex, secret_group, groups, min_length, entropy, where)
    return Rule(
        id=raw["id"], regex=regex, label=label, description=description, secret_group=secret_group,
        keywords=keywords, word_keywords=word_keywords, keyword_window=keyword_window,
        entropy=float(entropy) if entropy is not None else None, min_length=min_length,
        same_as=same_as,
        validator=validator, allowlist=allowlist, replace=replace, confidence=confidence,
        positive=_str_list(raw, "positive", where), negative=_str_list(raw, "negative", where),
        expect=_str_list(raw, "expect", where), pack=pack, source=src, check=check, in_paths=in_paths,
        decode=decode, decode_packs=decode_packs,
    )


def max_chars(regex: str, group: int, groups: int) -> int | None:
    """The most characters `group` of an RE2 regex (0: the whole match) can match, or None when
    that is unbounded or cannot be told soundly: Python's parser reads the pattern, and a pattern
    it refuses (`\\pL`, `\\z`, a flag group inside) or may read otherwise than RE2 (`{,n}` is a
    repeat to Python, a literal to RE2) is not measured."""
    if "{," in regex:
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "possible nested set" and the like
            tree = sre_parse.parse(regex)
            widths = tree.state.groupwidths
            if len(widths) != groups + 1 or (group and widths[group] is None):
                return None
            hi = widths[group][1] if group else tree.getwidth()[1]
    except Exception:  # noqa: BLE001 - any pattern Python cannot read is simply not measured
        return None
    return hi if hi < sre_parse.MAXREPEAT else None


def _check_reachable(regex: str, group: int, groups: int, min_length: int, entropy: float | None,
                     where: str) -> None:
    """Refuse a min_length or entropy the secret group can never reach (engine._keep's filters)."""
    most = max_chars(regex, group, groups)
    if most is None:
        return
    if min_length > most:
        raise RuleError(f"{where}: 'min_length' {min_length} can never be reached: the secret group matches "
                        f"at most {most} characters")
    # n bytes score at most log2(n) bits a byte; a character is at most 4 UTF-8 bytes. (A hex run of
    # HEX_RUN_MIN or more may pass with less: engine._random_hex.)
    if entropy is not None and most < HEX_RUN_MIN and most and entropy > math.log2(min(4 * most, 256)) + 1e-9:
        raise RuleError(f"{where}: 'entropy' {entropy} can never be reached: the secret group matches at most "
                        f"{most} characters, whose bytes score at most {math.log2(min(4 * most, 256)):.2f}")


def _quiet() -> Any:
    opts = re2.Options()
    opts.log_errors = False  # RE2 would print parse errors to stderr; we raise RuleError instead
    return opts


_PROGRAMS: dict[str, Any] = {}
# A regex with a word list expanded in it (`{Words:given_names}`, ~3,000 names) is far longer than
# any other. On text dense with names (a contributors file, a CSV of customers) its DFA needs more
# states than RE2's default 8 MB hold, gives up and searches on the NFA (~2 MB/s); 32 MB keep it a
# DFA. States are built only as text needs them: ordinary text uses a fraction of either budget.
LARGE_PATTERN = 8192
LARGE_PATTERN_MAX_MEM = 32 << 20


def _program_options(pattern: str) -> Any:
    opts = _quiet()
    if len(pattern) > LARGE_PATTERN:
        opts.max_mem = LARGE_PATTERN_MAX_MEM
    return opts


def rule_program(pattern: str) -> Any:
    """One compiled RE2 program per rule regex in the process, compiled when an engine first
    searches with it (engine._LazyProgram) and shared by every engine after that (RE2 objects are
    safe to share between threads). Raises re2.error."""
    rx = _PROGRAMS.get(pattern)
    if rx is None:
        rx = _PROGRAMS[pattern] = re2.compile(pattern, _program_options(pattern))
    return rx


def _compile(pattern: str, where: str, what: str, program: bool = False) -> Any:
    # The pack validation compiles every regex and lets it go: most rules never run in a given
    # process (about 130 of ~600 programs on a day of transcripts), and each kept program costs
    # its memory in the parent and in every worker.
    try:
        return re2.compile(pattern, _program_options(pattern) if program else _quiet())
    except re2.error as e:
        msg = e.args[0] if e.args else e
        if isinstance(msg, bytes):
            msg = msg.decode("utf-8", "replace")
        raise RuleError(f"{where}: bad {what} (RE2 syntax): {msg}") from e


_WORDS_REF = re.compile(r"\{([Ww])ords:([A-Za-z0-9_]*)\}")


def capitalised(word: str) -> str:
    """`jean-luc` as a name is written: `Jean-Luc`."""
    return "-".join(part[:1].upper() + part[1:] for part in word.split("-"))


def expand_word_lists(pattern: str, where: str = "allowlist", what: str = "an allowlist entry") -> str:
    """A regex or allowlist entry with each `{words:<list>}` replaced by an alternation of that list
    of rules/words.toml (one list of words, in one place, for several rules), and each
    `{Words:<list>}` by the same words capitalised (`{Words:given_names}`: `Margaret|Jean-Luc|...`)."""
    def alternation(m: re.Match[str]) -> str:
        words = BUILTIN_WORDS.get(m.group(2))
        if words is None:
            raise RuleError(f"{where}: unknown word list {{{m.group(1)}ords:{m.group(2)}}} in {what} "
                            f"(known: {', '.join(WORD_LISTS)})")
        spelt = {capitalised(w) for w in words} if m.group(1) == "W" else words
        return "(?:" + "|".join(re2.escape(w) for w in sorted(spelt, key=lambda w: (-len(w), w))) + ")"

    return _WORDS_REF.sub(alternation, pattern)


def _builtin_name(spec: str) -> str:
    name = spec.split(":", 1)[1]
    if name not in BUILTIN_PACKS and name not in OPTIONAL_PACKS:
        raise RuleError(f"{spec}: unknown builtin pack (known: {', '.join((*BUILTIN_PACKS, *OPTIONAL_PACKS))})")
    return name


def _add_ids(spec: str, ids: list[str], where_of: dict[str, str]) -> None:
    for rid in ids:
        if rid in where_of:
            raise RuleError(f"{spec}: rule {rid!r}: duplicate id (already defined in {where_of[rid]})")
        where_of[rid] = spec


def load_rules(specs: list[str], extra: RuntimeTerms | None = None) -> list[Rule]:
    """Load packs in order, then append the rules generated from `extra`; ids must be unique."""
    rules: list[Rule] = []
    where_of: dict[str, str] = {}
    for spec in specs:
        if spec.startswith("builtin:"):
            pack_rules = load_pack(builtin_pack_path(_builtin_name(spec)), spec, builtin=True)
        else:
            pack_rules = load_pack(Path(spec).expanduser(), spec)
        _add_ids(spec, [r.id for r in pack_rules], where_of)
        rules.extend(pack_rules)
    for r in term_rules(extra or RuntimeTerms()):
        if r.id in where_of:
            raise RuleError(f"{where_of[r.id]}: rule {r.id!r}: id is reserved for generated runtime-term rules")
        where_of[r.id] = "runtime terms"
        rules.append(r)
    return rules


_BUILTIN_ID_LINE = re.compile(r"""^id = '([^']+)'$""", re.M)


def builtin_ids(name: str) -> list[str]:
    """The rule ids of a built-in pack, read from its text without parsing it (each rule's
    `id = '...'` line; tests/test_s14_rules_validation.py checks they are the loaded ids)."""
    return _BUILTIN_ID_LINE.findall(builtin_pack_path(name).read_text("utf-8"))


def check_packs(specs: list[str]) -> None:
    """Raise the RuleError load_rules would raise for these specs, cheaply: the packs that are not
    built in are read and validated (their regexes compiled), the built-in ones only named (they
    ship tested) and their ids read as text. For a run that may never build the redactor."""
    if all(s.startswith("builtin:") for s in specs):
        names = [_builtin_name(s) for s in specs]
        if len(set(names)) == len(names):
            return  # shipped packs, each once: nothing to read
    where_of: dict[str, str] = {}
    for spec in specs:
        if spec.startswith("builtin:"):
            _add_ids(spec, builtin_ids(_builtin_name(spec)), where_of)
        else:
            _add_ids(spec, [r.id for r in load_pack(Path(spec).expanduser(), spec)], where_of)


# ---------------------------------------------------------------- generated rules

_RUN = r"[\pL\pN\pM]*"  # letters, digits and combining marks (a decomposed `é` is `e` + U+0301)


# an ASCII character that is no letter or digit, percent-encoded (`%2F`, `%20`) or as a JSON escape in
# text (`\\u0040`): a boundary before a term, though its last hex digit is alphanumeric (words.py
# escaped_separator_before, for the terms matched without RE2)
_NON_ALNUM_HEX = "(?:[01][0-9A-Fa-f]|2[0-9A-Fa-f]|3[A-Fa-f]|40|5[B-Fb-f]|60|7[B-Fb-f])"
_ESCAPED_SEPARATOR = f"(?:%{_NON_ALNUM_HEX}|\\\\u00{_NON_ALNUM_HEX})"


def _bounded(alternatives: list[str], digits_after: bool = False) -> str:
    # Group 1 and 3 capture the alphanumeric run around the term; a match only counts when both are
    # empty, which is "bounded by non-alphanumerics" without look-around (RE2 has none) and without
    # consuming the neighbour, so `alice-alice` yields two matches. A JSON escape before the term
    # (`\nalice` in JSON inside a text) is a boundary: group 1 does not take part then.
    return (f"(?i)(?:\\\\[nrt]|{_ESCAPED_SEPARATOR}|({_RUN}))({'|'.join(alternatives)})"
            f"{'(?:[0-9]*)' if digits_after else ''}({_RUN})")


# \s is ASCII in RE2; \pZ adds no-break and other Unicode spaces; a space URL-encoded (`%20`, `+` of a
# form) or JSON-escaped in text (`\\u0020`)
_NAME_SEP = r"(?:[\s\pZ._+-]|%20|\\u0020)*"

# A configured real name of this many letters or fewer (`Al`, `Bo`) is matched only as written and as
# a word: case-insensitively it is `et al.`, the state code AL, a syllable of every text.
SHORT_NAME = 3
# The first name of a configured full name is matched alone (`Thanks, Zelda!`), as written and as a
# word, when it has at least this many letters and is no everyday word (COMMON_WORD_NAMES).
FIRST_NAME_MIN = 4


def word_username(name: str) -> bool:
    """Is a configured username an everyday word, matched only where an account shows?"""
    return _nfc(name).strip().lower() in COMMON_WORD_USERNAMES


# Where an account shows, for a username that is a word. Before the name: a home folder (`/home/`,
# `/Users/`, `C:\\Users\\`, a JSON `\/home\/`, a Claude project key's `-home-`), `id` output
# (`uid=1000(`, `,1001(`), `USER=`, `sudo -u`, `su -`, `chown`. After it: `@` and a host or domain
# (prompts, ssh, e-mail local parts), a passwd line's `:x:1000:`, `'s password`. Not an @-mention
# (`@Max(10)`, `@mark.parametrize` are annotations) nor `~max` ("~max throughput"): the path rules
# take `~max/`, and the pii rules the `ls -l`, `ps` and `who` columns, where they show any account.
_ACCOUNT_BEFORE = (r"(?:[/\\-](?:home|users)(?:[/-]|\\+/?)|[=,][0-9]+\(|\b(?:user|logname|username)=[\"']?"
                   r"|\bsudo[ \t]+-u[ \t]*|\bsu[ \t]+-[ \t]+|\bchown[ \t]+(?:-[A-Za-z]+[ \t]+)*)")
_ACCOUNT_AFTER = (r"(?:@(?:[a-z0-9-]+\.)*[a-z]|@[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}|@\[|:[x*!]:[0-9]+:"
                  r"|'s password)")


def _nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


def _char(c: str) -> str:
    """One character, also as a JSON `\\uXXXX` escape written in a text (JSON inside a string)."""
    if c.isascii() or ord(c) > 0xFFFF:
        return re2.escape(c)
    # the rules are case-insensitive: `\\u00d6` is `Ö`, `\\u00f6` is `ö`
    cases = dict.fromkeys(x for x in (c, c.lower(), c.upper()) if len(x) == 1 and ord(x) <= 0xFFFF)
    escapes = ["".join(f"[{h}{h.upper()}]" if h.isalpha() else h for h in f"{ord(x):04x}") for x in cases]
    return f"(?:{re2.escape(c)}|\\\\u(?:{'|'.join(escapes)}))"


def _lit(word: str, fold: bool = False) -> str:
    """A word as composed (NFC) or decomposed (NFD: macOS file names write `José` as `Jose` +
    U+0301) Unicode, its non-ASCII characters also as `\\uXXXX` escapes; with `fold`, also without
    its accents when that leaves ASCII (a real name: `María Fernández` is `maria.fernandez` in an
    address, `MARIA FERNANDEZ` in a form, `Maria Fernandez` in a git config)."""
    forms = list(dict.fromkeys(unicodedata.normalize(f, word) for f in ("NFC", "NFD")))
    alts = ["".join(_char(c) for c in f) for f in forms]
    if fold:
        bare = "".join(c for c in forms[-1] if not unicodedata.combining(c))
        if bare.isascii():
            # the ASCII form, also with accents a name configured without them is written with
            # (`Maria Fernandez` as `María Fernández`): it matches the plain ASCII word too
            alts = [a for a, f in zip(alts, forms) if not f.isascii()] + [_accents_allowed(bare)]
    return alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"


# Latin letters and the accented forms a name written in ASCII may have in the text
_ACCENTED = {"a": "áàâäãåā", "e": "éèêëē", "i": "íìîïī", "o": "óòôöõøō", "u": "úùûüū", "y": "ýÿ", "n": "ñ",
             "c": "ç"}


def _accents_allowed(word: str) -> str:
    """An ASCII word whose letters may carry accents, composed (`á`) or decomposed (`a` + U+0301);
    an upper-case letter's accented forms are upper-case (rules of `_as_written` are case-sensitive,
    the others `(?i)`)."""
    out = []
    for ch in word:
        marks = _ACCENTED.get(ch.lower())
        if marks is None:
            out.append(re2.escape(ch))
        else:
            out.append(f"(?:{re2.escape(ch)}\\p{{Mn}}*|[{marks.upper() if ch.isupper() else marks}])")
    return "".join(out)


def _accented_keywords(word: str) -> list[str]:
    """`word` (lower-case ASCII) with one of its letters accented (`fernández`, composed and
    decomposed): the keyword gate lets the text of `_accents_allowed(word)` in by these (a word
    with two accents is let in only by another word of the name)."""
    one = [word[:i] + mark + word[i + 1:] for i, ch in enumerate(word) for mark in _ACCENTED.get(ch, "")]
    return list(dict.fromkeys(one + [unicodedata.normalize("NFD", k) for k in one]))


def _keyword(word: str) -> str:
    """A keyword every form of `_lit(word)` holds: the word, or for a word with non-ASCII letters
    its longest ASCII run (`jos` of `José`, `Jose\u0301` and `Jos\\u00e9`)."""
    word = _nfc(word).lower()
    if word.isascii():
        return word
    run = max(re2.split(r"[^\x00-\x7f]+", word), key=len)
    return run or word


def _words(text: str) -> list[str]:
    return [w for w in re2.split(r"[\s._-]+", _nfc(text).strip()) if w]


def _phrase(text: str) -> str:
    return _NAME_SEP.join(_lit(w, fold=True) for w in _words(text))


def _name_variants(name: str) -> list[str]:
    """A real name as people write it: `Jane Doe` (any separators, or none: `JaneDoe`), `Doe, Jane`
    (a compound last name whole: `Vasquez-Ruiz, Ana`), and with the first name as an initial, `J. Doe` / `jdoe` (only for a last name of 4+ letters:
    shorter ones make initials too common)."""
    words = _words(name)
    out = [_phrase(name)]
    if len(words) >= 2:
        first, last = words[0], words[-1]
        middle = words[1:-1]
        out.append(_lit(last, fold=True) + r",?" + _NAME_SEP + _NAME_SEP.join(_lit(w, fold=True) for w in [first, *middle]))
        given, _, family = _nfc(name).strip().rpartition(" ")
        if given.strip() and len(_words(family)) > 1:  # a compound last name: `Vasquez-Ruiz, Marguerite`
            out.append(_phrase(family) + r",?" + _NAME_SEP + _phrase(given))
        if len(last) >= 4:
            # "J. Doe", "jdoe", "j_doe", not "J Doe": "I'm Young" is no initial
            out.append(_lit(first[0], fold=True) + r"(?:\.[\s\pZ._-]*|[._-]?)"
                       + _NAME_SEP.join(_lit(w, fold=True) for w in [*middle, last]))
    return out


def _as_written(word: str) -> str:
    """`word` matched case-sensitively (the rule is `(?i)`) and capitalized, as written (`Al`, `JJ`)
    or, when configured in lower case (`al`), with a capital (never `et al.`)."""
    forms = dict.fromkeys(f for f in (word, word[:1].upper() + word[1:]) if f[:1].isupper()) or {word: None}
    return "(?-i:" + "|".join(_lit(f, fold=True) for f in forms) + ")"


def first_name_alone(name: str) -> str | None:
    """The first name of a configured full name that is also matched alone, if any."""
    words = _words(name)
    if len(words) < 2:
        return None
    first = words[0]
    if len(first) < FIRST_NAME_MIN or not first.isalpha() or first.lower() in COMMON_WORD_NAMES:
        return None
    return first


def first_name_is_a_word(name: str) -> bool:
    """Is the first name of a configured full name an everyday word (not matched alone)?"""
    words = _words(name)
    return len(words) >= 2 and words[0].lower() in COMMON_WORD_NAMES


def short_name(name: str) -> bool:
    """A one-word name of SHORT_NAME letters or fewer: matched as written only."""
    words = _words(name)
    return len(words) == 1 and len(words[0]) <= SHORT_NAME


def _name_forms(name: str) -> list[tuple[str, str, str]]:
    """(regex matched, regex a found value is recognised by for its pseudonym, canonical form)."""
    canonical = " ".join(_words(name)).lower()
    if short_name(name):
        return [(_as_written(_words(name)[0]), _phrase(name), canonical)]
    out = [(v, v, canonical) for v in _name_variants(name)]
    first = first_name_alone(name)
    if first is not None:
        out.append((_as_written(first), _lit(first, fold=True), canonical))
    return out


SLUG_VARIANT_MIN = 5  # `a-b` of `a_b` would take hyphenated words too
PS_USER_WIDTH = 8  # procps's USER / UID column: a longer name is cut to 7 characters and `+`


def term_rules(terms: RuntimeTerms) -> list[Rule]:
    out: list[Rule] = []
    free, short, words = [], [], []
    slug_of: dict[str, str] = {}  # john-doe -> john.doe
    for u in _dedupe([*terms.usernames, *[Path(h).name for h in terms.home_dirs if Path(h).name]]):
        low = _nfc(u).lower()
        if low in GENERIC_ACCOUNTS:
            continue
        (short if len(u) < 3 else words if word_username(low) else free).append(low)
        # Cursor's projects/<slug> and Claude Code's project keys write every non-alphanumeric run
        # of a path as '-': `john.doe` shows as `john-doe` there (the same pseudonym as the name)
        slug = re2.sub(r"[^\pL\pN]+", "-", low).strip("-")
        if slug != low and len(slug) >= SLUG_VARIANT_MIN and not word_username(slug) and slug not in GENERIC_ACCOUNTS:
            slug_of.setdefault(slug, low)
        if len(low) > PS_USER_WIDTH and low not in GENERIC_ACCOUNTS and not word_username(low):
            # ps, top and pgrep print a name wider than their USER column as its first 7 characters and
            # `+` (`mfernan+`): the same pseudonym as the name
            slug_of.setdefault(low[:PS_USER_WIDTH - 1] + "+", low)
    free.extend(v for v in slug_of if v not in free)
    if free:
        free.sort(key=len, reverse=True)
        out.append(Rule(
            id="user-username", regex=_bounded([_lit(u) for u in free], digits_after=True), label="USERNAME",
            description="the user's account names that are no everyday word, as a word anywhere, also joined "
                        "by `_` (wanda_backup, WANDA_HOME) or followed by digits (alice2024)",
            secret_group=2, keywords=tuple(dict.fromkeys(_keyword(u) for u in free)), replace="username",
            confidence="high",
            pack="runtime", source="runtime terms", generated=True, bounded=True, fold_case=True,
            terms=tuple(free), digits_after=True,
            canonical=tuple((re2.escape(v), u) for v, u in slug_of.items()),
        ))
    if words:
        words.sort(key=len, reverse=True)
        alts = "|".join(_lit(u) for u in words)
        kws = tuple(dict.fromkeys(_keyword(u) for u in words))
        common = dict(label="USERNAME", secret_group=2, keywords=kws, replace="username", confidence="high",
                      pack="runtime", source="runtime terms", generated=True, bounded=True, fold_case=True)
        # groups 1 and 3 must be empty (bounded): nothing of a longer word before or after the name
        out.append(Rule(
            id="user-username-account", regex=f"(?i){_ACCOUNT_BEFORE}()({alts})({_RUN})",
            description="the user's account names that are everyday words, where an account shows: after a home "
                        "folder, uid=N(, USER=, sudo -u, su -, chown", **common))
        out.append(Rule(
            id="user-username-login", regex=f"(?i)(?:\\\\[nrt]|([\\pL\\pN\\pM._+-]*))({alts})(){_ACCOUNT_AFTER}",
            description="the user's account names that are everyday words, where an account shows: before @host "
                        "(prompts, ssh, e-mail), :x:N: (passwd), 's password", **common))
    for i, u in enumerate(short):
        # /home/ab/, /Users/ab, -home-ab-proj (Claude project keys), C:\\Users\\ab
        out.append(Rule(
            id=f"user-home-{i + 1}",
            regex=r"(?i)[/\\-](?:home|users)[/\\-](" + _lit(u) + r")(?:[^\pL\pN\pM]|$)",
            label="USERNAME", description="a short account name in a home path", secret_group=1,
            keywords=("home", "users"), replace="username", confidence="high", pack="runtime",
            source="runtime terms", generated=True, fold_case=True,
        ))
    names = [n for n in _dedupe(terms.names) if len(n.strip()) >= 2 and _words(n)]
    if names:
        forms = [f for n in names for f in _name_forms(n)]
        # the full name's forms before a first name's alone: a value gets the first canonical it fits
        alts = sorted(dict.fromkeys(rx for rx, _, _ in forms), key=len, reverse=True)
        # every form holds the last word, or is the first name alone
        gate = [w for n in names for w in filter(None, (_words(n)[-1], first_name_alone(n)))]
        kws = [_keyword(w) for w in gate] + [k for w in gate if w.isascii() for k in _accented_keywords(w.lower())]
        out.append(Rule(
            id="user-name", regex=_bounded(alts), label="NAME", description="the user's real name(s)",
            secret_group=2, keywords=tuple(dict.fromkeys(kws)), replace="token",
            confidence="high", pack="runtime", source="runtime terms", generated=True, bounded=True,
            fold_case=True, fold_separators=True, canonical=tuple((crx, c) for _, crx, c in forms),
        ))
    hosts: list[str] = []
    for h in _dedupe(terms.hosts):
        # the full name and its first label (prompts show `alice@devbox-17:~$`, logs the FQDN)
        for form in (h, h.split(".")[0]):
            if len(form) >= 3 and form.lower() not in GENERIC_HOSTS and not form.isdigit():
                hosts.append(form.lower())
    hosts = sorted(_dedupe(hosts), key=len, reverse=True)
    if hosts:
        out.append(Rule(
            id="host-name", regex=_bounded([re2.escape(h) for h in hosts]), label="HOST",
            description="this machine's host name", secret_group=2, keywords=tuple(hosts), replace="token",
            confidence="high", pack="runtime", source="runtime terms", generated=True, bounded=True,
            fold_case=True, terms=tuple(hosts),
        ))
    for i, t in enumerate(_dedupe(terms.extra_terms)):
        if len(t) < 2:
            continue
        out.append(Rule(
            id=f"extra-term-{i + 1}", regex=_bounded([re2.escape(t)]), label="TERM",
            description="a configured private term", secret_group=2, keywords=(t.lower(),),
            replace="token", confidence="high", pack="runtime", source="runtime terms",
            generated=True, bounded=True, fold_case=True, terms=(t.lower(),),
        ))
    return out
