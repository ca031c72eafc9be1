"""Checksum/structure validators that rules name with `validator = "..."`.

Each takes the candidate secret (the rule's secret group) and returns True when
it is plausibly real, so a regex hit that fails its checksum is not a finding.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from typing import Callable

# IBAN total length per country (SWIFT IBAN registry).
IBAN_LENGTHS: dict[str, int] = {
    "AD": 24, "AE": 23, "AL": 28, "AT": 20, "AZ": 28, "BA": 20, "BE": 16, "BG": 22, "BH": 22,
    "BI": 27, "BR": 29, "BY": 28, "CH": 21, "CR": 22, "CY": 28, "CZ": 24, "DE": 22, "DJ": 27,
    "DK": 18, "DO": 28, "EE": 20, "EG": 29, "ES": 24, "FI": 18, "FK": 18, "FO": 18, "FR": 27,
    "GB": 22, "GE": 22, "GI": 23, "GL": 18, "GR": 27, "GT": 28, "HN": 28, "HR": 21, "HU": 28,
    "IE": 22, "IL": 23, "IQ": 23, "IS": 26, "IT": 27, "JO": 30, "KW": 30, "KZ": 20, "LB": 28,
    "LC": 32, "LI": 21, "LT": 20, "LU": 20, "LV": 21, "LY": 25, "MC": 27, "MD": 24, "ME": 22,
    "MK": 19, "MN": 20, "MR": 27, "MT": 31, "MU": 30, "NI": 28, "NL": 18, "NO": 15, "OM": 23,
    "PK": 24, "PL": 28, "PS": 29, "PT": 25, "QA": 29, "RO": 24, "RS": 22, "RU": 33, "SA": 24,
    "SC": 31, "SD": 18, "SE": 24, "SI": 19, "SK": 24, "SM": 27, "SO": 23, "ST": 25, "SV": 28,
    "TL": 23, "TN": 24, "TR": 26, "UA": 29, "VA": 22, "VG": 24, "XK": 20, "YE": 30,
}


def luhn(value: str) -> bool:
    """Card number (spaces/dashes allowed) with a valid Luhn check digit."""
    if any(c not in "0123456789 -" for c in value):
        return False
    digits = "".join(c for c in value if c.isdigit())
    return 12 <= len(digits) <= 19 and len(set(digits)) > 1 and _luhn_ok(digits)


def _luhn_ok(digits: str) -> bool:
    """The Luhn check over a string of digits, check digit last."""
    total = 0
    for i, c in enumerate(reversed(digits)):
        d = int(c) * (2 if i % 2 else 1)
        total += d - 9 if d > 9 else d
    return total % 10 == 0


def iban(value: str) -> bool:
    """IBAN (spaces allowed) with a known country length and ISO 7064 mod-97 == 1."""
    compact = value.replace(" ", "").upper()
    if not compact.isascii() or not compact.isalnum() or len(compact) < 15:
        return False
    if IBAN_LENGTHS.get(compact[:2]) != len(compact) or not compact[2:4].isdigit():
        return False
    rearranged = compact[4:] + compact[:4]
    number = "".join(str(int(c, 36)) for c in rearranged)
    return int(number) % 97 == 1


def jwt(value: str) -> bool:
    """Header segment base64url-decodes to a JSON object carrying "alg"."""
    header = value.split(".", 1)[0]
    try:
        raw = base64.urlsafe_b64decode(header + "=" * (-len(header) % 4))
        obj = json.loads(raw)
    except (binascii.Error, ValueError, UnicodeDecodeError):
        return False
    return isinstance(obj, dict) and "alg" in obj


def ssn(value: str) -> bool:
    """US SSN: area not 000/666/9xx, group not 00, serial not 0000."""
    digits = "".join(c for c in value if c.isdigit())
    if len(digits) != 9 or any(c not in "0123456789 -" for c in value):
        return False
    area, group, serial = digits[:3], digits[3:5], digits[5:]
    return area not in ("000", "666") and area[0] != "9" and group != "00" and serial != "0000"


_PLACEHOLDER = re.compile(r"<[A-Z][A-Z0-9_]*:[0-9a-f]{4,16}>|<REDACTED:[A-Z0-9_]+>")


def pem_base64(value: str) -> bool:
    """Base64 of a PEM key whose body is not one of our placeholders: a redacted key attachment,
    encoded again (`-----BEGIN ... PRIVATE KEY-----\n<PRIVATE_KEY:1a2b3c4d>`), is no key."""
    try:
        text = base64.b64decode(value + "=" * (-len(value) % 4)).decode("utf-8", "replace")
    except (binascii.Error, ValueError):
        return True
    return _PLACEHOLDER.search(text) is None


def non_ascii(value: str) -> bool:
    """Holds a non-ASCII character: the all-ASCII addresses are the `email` rule's (with its allowlist)."""
    return not value.isascii()


# --- national identifiers ----------------------------------------------------
# Each takes the secret group as written (spaces, dashes or dots between the digits) and checks
# the format's own structure and check digit, so a look-alike of the right length is dropped.

def _digits(value: str, seps: str = " -.") -> str | None:
    """The value without the separators, or None when anything else is in it."""
    compact = "".join(c for c in value if c not in seps)
    return compact if compact.isascii() and compact.isdigit() else None


# Prefixes HMRC never allocates (and the first/second letters it never uses are kept out by
# the regex and checked again here).
_NINO_BAD_PREFIX = frozenset({"BG", "GB", "KN", "NK", "NT", "TN", "ZZ"})


def uk_nino(value: str) -> bool:
    """UK National Insurance number: two prefix letters (first not D F I Q U V, second not D F I
    O Q U V, not BG GB KN NK NT TN ZZ), six digits, suffix A-D; spaces between pairs or none."""
    compact = value.replace(" ", "")
    if len(compact) != 9 or not compact.isascii() or " " in value and value.count(" ") != 4:
        return False
    first, second, digits, suffix = compact[0], compact[1], compact[2:8], compact[8]
    return (first.isupper() and second.isupper() and first not in "DFIQUV" and second not in "DFIOQUV"
            and compact[:2] not in _NINO_BAD_PREFIX and digits.isdigit() and suffix in "ABCD"
            and len(set(digits)) > 1)


def ca_sin(value: str) -> bool:
    """Canadian Social Insurance Number: 9 digits, Luhn valid, first digit not 0 or 8 (unused)."""
    digits = _digits(value, " -")
    return digits is not None and len(digits) == 9 and digits[0] not in "08" and len(set(digits)) > 1 \
        and _luhn_ok(digits)


_VERHOEFF_D = (
    (0, 1, 2, 3, 4, 5, 6, 7, 8, 9), (1, 2, 3, 4, 0, 6, 7, 8, 9, 5), (2, 3, 4, 0, 1, 7, 8, 9, 5, 6),
    (3, 4, 0, 1, 2, 8, 9, 5, 6, 7), (4, 0, 1, 2, 3, 9, 5, 6, 7, 8), (5, 9, 8, 7, 6, 0, 4, 3, 2, 1),
    (6, 5, 9, 8, 7, 1, 0, 4, 3, 2), (7, 6, 5, 9, 8, 2, 1, 0, 4, 3), (8, 7, 6, 5, 9, 3, 2, 1, 0, 4),
    (9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
)
_VERHOEFF_P = (
    (0, 1, 2, 3, 4, 5, 6, 7, 8, 9), (1, 5, 7, 6, 2, 8, 3, 0, 9, 4), (5, 8, 0, 3, 7, 9, 6, 1, 4, 2),
    (8, 9, 1, 6, 0, 4, 3, 5, 2, 7), (9, 4, 5, 3, 1, 2, 6, 8, 7, 0), (4, 2, 8, 6, 5, 7, 3, 9, 0, 1),
    (2, 7, 9, 3, 8, 0, 6, 4, 1, 5), (7, 0, 4, 6, 9, 1, 3, 2, 5, 8),
)


def verhoeff_ok(digits: str) -> bool:
    """The Verhoeff check (dihedral group D5) over a string of digits, check digit last."""
    c = 0
    for i, ch in enumerate(reversed(digits)):
        c = _VERHOEFF_D[c][_VERHOEFF_P[i % 8][int(ch)]]
    return c == 0


def aadhaar(value: str) -> bool:
    """India Aadhaar: 12 digits, not starting 0 or 1, Verhoeff valid, not a palindrome."""
    digits = _digits(value, " -")
    return digits is not None and len(digits) == 12 and digits[0] not in "01" and digits != digits[::-1] \
        and verhoeff_ok(digits)


# The fourth character of a PAN is the holder type (P person, C company, H HUF, F firm, A AOP,
# T trust, B BOI, L local authority, J artificial juridical person, G government).
_PAN = re.compile(r"[A-Z]{3}[PCHFATBLJG][A-Z][0-9]{4}[A-Z]")


def in_pan(value: str) -> bool:
    """India PAN: AAAPL1234C shape with a valid holder type, a serial that is not 0000, and not
    one letter repeated (placeholders such as AAAPA0000A)."""
    return _PAN.fullmatch(value) is not None and value[5:9] != "0000" and len(set(value[:5])) > 1


def _cpf_digit(digits: str) -> str:
    weight = len(digits) + 1
    total = sum(int(d) * (weight - i) for i, d in enumerate(digits))
    return str(total * 10 % 11 % 10)


def br_cpf(value: str) -> bool:
    """Brazil CPF: 11 digits (000.000.000-00 or compact), not all the same, two mod-11 check digits."""
    digits = _digits(value, ".-")
    if digits is None or len(digits) != 11 or len(set(digits)) == 1:
        return False
    return _cpf_digit(digits[:9]) == digits[9] and _cpf_digit(digits[:10]) == digits[10]


_DNI_LETTERS = "TRWAGMYFPDXBNJZSQVHLCKE"


def es_dni(value: str) -> bool:
    """Spain DNI (8 digits and a letter) or NIE (X/Y/Z, 7 digits, a letter): the letter is
    TRWAGMYFPDXBNJZSQVHLCKE[number mod 23], the NIE's X/Y/Z counting as 0/1/2."""
    compact = value.replace(" ", "").replace("-", "")
    if len(compact) != 9 or not compact.isascii():
        return False
    head, letter = compact[:8], compact[8]
    if head[0] in "XYZ":
        head = str("XYZ".index(head[0])) + head[1:]
    if not head.isdigit() or len(set(head)) == 1:
        return False
    return _DNI_LETTERS[int(head) % 23] == letter


def de_idnr(value: str) -> bool:
    """Germany Steuer-ID (IdNr): 11 digits, first not 0; in the first ten one digit appears twice
    or three times (never three in a row) and no other repeats; ISO 7064 MOD 11,10 check digit."""
    digits = _digits(value, " ")
    if digits is None or len(digits) != 11 or digits[0] == "0":
        return False
    counts = sorted((digits[:10].count(d) for d in set(digits[:10])), reverse=True)
    if counts[0] not in (2, 3) or (len(counts) > 1 and counts[1] > 1):
        return False
    if any(digits[i] == digits[i + 1] == digits[i + 2] for i in range(8)):
        return False  # a digit used three times never fills three neighbouring places
    product = 10
    for d in digits[:10]:
        total = (int(d) + product) % 10 or 10
        product = total * 2 % 11
    return (11 - product) % 10 == int(digits[10])


def nl_bsn(value: str) -> bool:
    """Netherlands BSN: 9 digits passing the 11-test (weights 9..2, the last digit -1), not 0."""
    digits = _digits(value, " .-")
    if digits is None or len(digits) != 9 or len(set(digits)) == 1:
        return False
    total = sum((9 - i) * int(d) for i, d in enumerate(digits[:8])) - int(digits[8])
    return total % 11 == 0


def fr_nir(value: str) -> bool:
    """France NIR (sécurité sociale): sex 1-4/7/8, year, month, department (2A/2B for Corsica),
    commune, order, and a key of 97 - (first 13 digits mod 97), Corsica as 19/18."""
    compact = value.replace(" ", "").upper()
    if len(compact) != 15 or not compact.isascii() or compact[0] not in "123478":
        return False
    body = compact[:13]
    if body[5:7] in ("2A", "2B"):
        body = body[:5] + ("19" if body[6] == "A" else "18") + body[7:]
    if not body.isdigit() or not compact[13:].isdigit():
        return False
    month = int(body[3:5])
    if month == 0 or 12 < month < 20:
        return False
    return 97 - int(body) % 97 == int(compact[13:])


def passport(value: str) -> bool:
    """A labelled passport number: 6 to 9 upper-case letters and digits, at least four digits,
    not one character repeated nor a run of digits counting up (123456789)."""
    if not 6 <= len(value) <= 9 or not value.isascii() or not value.isalnum() or value.upper() != value:
        return False
    digits = "".join(c for c in value if c.isdigit())
    return len(digits) >= 4 and len(set(value)) > 2 and digits not in "01234567890123456789"


# --- bank and tax identifiers ------------------------------------------------

def aba_routing(value: str) -> bool:
    """US ABA routing transit number: 9 digits, a Federal Reserve prefix (00-12, 21-32, 61-72,
    80) and the 3-7-1 weighted checksum (sum mod 10 == 0), not one digit repeated."""
    digits = _digits(value, "")
    if digits is None or len(digits) != 9 or len(set(digits)) == 1:
        return False
    prefix = int(digits[:2])
    if not (prefix <= 12 or 21 <= prefix <= 32 or 61 <= prefix <= 72 or prefix == 80):
        return False
    return sum(int(d) * w for d, w in zip(digits, (3, 7, 1) * 3)) % 10 == 0


def sort_code(value: str) -> bool:
    """UK bank sort code: 6 digits (12-34-56, 12 34 56 or 123456), not one digit repeated."""
    digits = _digits(value, " -")
    return digits is not None and len(digits) == 6 and len(set(digits)) > 1 \
        and value.count("-") in (0, 2) and value.count(" ") in (0, 2)


def bank_account(value: str) -> bool:
    """A bank account number after its label: 6 to 17 digits, not one digit repeated."""
    digits = _digits(value, "")
    return digits is not None and 6 <= len(digits) <= 17 and len(set(digits)) > 1


# The prefixes the IRS assigns to its campuses and online issuance (the first two digits of an EIN);
# 00, 07-09, 17-19, 28, 29, 49, 69, 70, 78, 79, 89, 96 and 97 are never assigned.
_EIN_PREFIXES = frozenset(
    "01 02 03 04 05 06 10 11 12 13 14 15 16 20 21 22 23 24 25 26 27 30 31 32 33 34 35 36 37 38 39 "
    "40 41 42 43 44 45 46 47 48 50 51 52 53 54 55 56 57 58 59 60 61 62 63 64 65 66 67 68 71 72 73 "
    "74 75 76 77 80 81 82 83 84 85 86 87 88 90 91 92 93 94 95 98 99".split())


def us_ein(value: str) -> bool:
    """US Employer Identification Number: 12-3456789 (or 9 digits), an assigned IRS prefix, the
    serial not 0000000."""
    digits = _digits(value, "-")
    return digits is not None and len(digits) == 9 and value.count("-") <= 1 and digits[:2] in _EIN_PREFIXES \
        and digits[2:] != "0000000"


def _weighted(digits: str, weights: tuple[int, ...]) -> int:
    return sum(int(d) * w for d, w in zip(digits, weights))


def _vat_at(n: str) -> bool:  # U + 8 digits: Luhn-like sum of the 7, +4, tens complement
    d = n[1:]
    total = sum(int(c) if i % 2 == 0 else sum(divmod(int(c) * 2, 10)) for i, c in enumerate(d[:7]))
    return (10 - (total + 4) % 10) % 10 == int(d[7])


def _vat_be(n: str) -> bool:  # 10 digits: 97 - (first 8 mod 97) == last 2
    return 97 - int(n[:8]) % 97 == int(n[8:])


def _vat_de(n: str) -> bool:  # 9 digits, ISO 7064 MOD 11,10
    product = 10
    for c in n[:8]:
        product = ((int(c) + product) % 10 or 10) * 2 % 11
    return n[0] != "0" and (11 - product) % 10 == int(n[8])


def _vat_dk(n: str) -> bool:
    return n[0] != "0" and _weighted(n, (2, 7, 6, 5, 4, 3, 2, 1)) % 11 == 0


def _vat_es(n: str) -> bool:  # a company (letter, 7 digits, control) or a person's DNI/NIE
    first, body, last = n[0], n[1:8], n[8]
    if first.isdigit() or first in "XYZ":
        return n[-1].isalpha() and es_dni(n)
    if first not in "ABCDEFGHJKLMNPQRSUVW" or not body.isdigit():
        return False
    total = sum(int(c) if i % 2 else sum(divmod(int(c) * 2, 10)) for i, c in enumerate(body))
    control = (10 - total % 10) % 10
    return last == str(control) or last == "JABCDEFGHI"[control]


def _vat_fi(n: str) -> bool:
    rest = _weighted(n, (7, 9, 10, 5, 8, 4, 2)) % 11
    return rest != 1 and (11 - rest) % 11 == int(n[7])


def _vat_fr(n: str) -> bool:  # a 2-character key and the SIREN (Luhn); a numeric key is (12 + 3 (SIREN mod 97)) mod 97
    key, siren = n[:2], n[2:]
    if not _luhn_ok(siren):
        return False
    return not key.isdigit() or int(key) == (12 + 3 * (int(siren) % 97)) % 97


def _vat_gb(n: str) -> bool:  # 9 digits (12 for a branch): weights 8..2, with the last two, mod 97
    if n[:2] in ("GD", "HA"):
        return True
    total = _weighted(n, (8, 7, 6, 5, 4, 3, 2)) + int(n[7:9])
    return total % 97 == 0 or (total + 55) % 97 == 0


def _vat_it(n: str) -> bool:
    return n[:7] != "0000000" and _luhn_ok(n)


def _vat_nl(n: str) -> bool:  # 9 digits B 2 digits: the 11-test, or (sole traders since 2020) ISO 7064 mod 97
    if nl_bsn(n[:9]):
        return True
    return int("".join(str(int(c, 36)) for c in "NL" + n)) % 97 == 1


def _vat_pl(n: str) -> bool:
    return _weighted(n, (6, 5, 7, 2, 3, 4, 5, 6, 7)) % 11 == int(n[9])


def _vat_pt(n: str) -> bool:
    check = 11 - _weighted(n, (9, 8, 7, 6, 5, 4, 3, 2)) % 11
    return (0 if check > 9 else check) == int(n[8])


def _vat_se(n: str) -> bool:
    return n.endswith("01") and _luhn_ok(n[:10])


# country: (the number's shape after the country code, without spaces/dots/dashes; its check, when simple)
_VAT_FORMATS: dict[str, tuple[re.Pattern[str], Callable[[str], bool] | None]] = {
    "AT": (re.compile(r"U[0-9]{8}"), _vat_at),
    "BE": (re.compile(r"[01][0-9]{9}"), _vat_be),
    "DE": (re.compile(r"[0-9]{9}"), _vat_de),
    "DK": (re.compile(r"[0-9]{8}"), _vat_dk),
    "ES": (re.compile(r"[0-9A-Z][0-9]{7}[0-9A-Z]"), _vat_es),
    "FI": (re.compile(r"[0-9]{8}"), _vat_fi),
    "FR": (re.compile(r"[0-9A-HJ-NP-Z]{2}[0-9]{9}"), _vat_fr),
    "GB": (re.compile(r"[0-9]{9}|[0-9]{12}|(?:GD|HA)[0-9]{3}"), _vat_gb),
    "IE": (re.compile(r"[0-9][0-9A-Z+*][0-9]{5}[A-W][A-IW]?"), None),
    "IT": (re.compile(r"[0-9]{11}"), _vat_it),
    "NL": (re.compile(r"[0-9]{9}B[0-9]{2}"), _vat_nl),
    "PL": (re.compile(r"[0-9]{10}"), _vat_pl),
    "PT": (re.compile(r"[0-9]{9}"), _vat_pt),
    "SE": (re.compile(r"[0-9]{12}"), _vat_se),
}


def eu_vat(value: str) -> bool:
    """An EU (and UK) VAT number: a country code of AT BE DE DK ES FI FR GB IE IT NL PL PT SE, its
    country's shape (spaces, dots and dashes between groups allowed) and, where simple, its check
    digit(s); one digit repeated is a placeholder."""
    compact = "".join(c for c in value if c not in " .-").upper()
    if not compact.isascii() or len(compact) < 4:
        return False
    fmt = _VAT_FORMATS.get(compact[:2])
    number = compact[2:]
    if fmt is None or fmt[0].fullmatch(number) is None:
        return False
    digits = "".join(c for c in number if c.isdigit())
    if len(set(digits)) <= 1:
        return False
    return fmt[1] is None or fmt[1](number)


_US_ZIP = re.compile(r"[0-9]{5}(?:-[0-9]{4})?")


def us_zip(value: str) -> bool:
    """A US ZIP code (12345) or ZIP+4 (12345-6789): not 00000, not one digit repeated."""
    return _US_ZIP.fullmatch(value) is not None and value[:5] != "00000" and len(set(value.replace("-", ""))) > 1


def de_plz(value: str) -> bool:
    """A German Postleitzahl: 5 digits, 01001 to 99998 (no 00 region)."""
    return len(value) == 5 and value.isascii() and value.isdigit() and value[:2] != "00" and value != "99999"


# The shape of a UK postcode (Royal Mail's PAF rules): the outward code's area, district and the
# letters each place may hold, then a digit and two letters (never C I K M O V).
_UK_POSTCODE = re.compile(
    r"(?:[A-PR-UWYZ][0-9][0-9]?|[A-PR-UWYZ][A-HK-Y][0-9][0-9]?|[A-PR-UWYZ][0-9][A-HJKPSTUW]"
    r"|[A-PR-UWYZ][A-HK-Y][0-9][ABEHMNPRVWXY]) ?[0-9][ABD-HJLNP-UW-Z]{2}|GIR ?0AA")


def uk_postcode(value: str) -> bool:
    """A UK postcode in Royal Mail's shape (SW1A 1AA, M1 1AE, NW1 6XP; GIR 0AA), one space or none."""
    return _UK_POSTCODE.fullmatch(value) is not None
def _date_ok(yy: int, month: int, day: int) -> bool:
    """A plausible day of a month (any year; February up to the 29th)."""
    return 1 <= month <= 12 and 1 <= day <= (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)[month - 1] and yy >= 0


_CF_ODD = (1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 2, 4, 18, 20, 11, 3, 6, 8, 12, 14, 16, 10, 22, 25, 24, 23)
_CF = re.compile(r"[A-Z]{6}[0-9LMNPQRSTUV]{2}[ABCDEHLMPRST][0-9LMNPQRSTUV]{2}[A-Z][0-9LMNPQRSTUV]{3}[A-Z]")


def it_cf(value: str) -> bool:
    """Italy codice fiscale: 16 characters (omocodia letters for digits allowed), the last a
    check letter over the odd/even position tables."""
    if _CF.fullmatch(value) is None:
        return False
    total = 0
    for i, ch in enumerate(value[:15]):
        v = int(ch) if ch.isdigit() else ord(ch) - 65
        total += _CF_ODD[v] if i % 2 == 0 else v
    return chr(65 + total % 26) == value[15]


def se_personnummer(value: str) -> bool:
    """Sweden personnummer / samordningsnummer: (YY)YYMMDD, - or +, four digits, Luhn over the
    last ten digits; the day may be +60 (samordningsnummer)."""
    digits = _digits(value, "-+ ")
    if digits is None or len(digits) not in (10, 12):
        return False
    ten = digits[-10:]
    day = int(ten[4:6])
    return _date_ok(0, int(ten[2:4]), day - 60 if day > 60 else day) and _luhn_ok(ten)


def dk_cpr(value: str) -> bool:
    """Denmark CPR: DDMMYY and four digits, a real day of a month (no check digit since 2007)."""
    digits = _digits(value, "- ")
    return digits is not None and len(digits) == 10 and _date_ok(0, int(digits[2:4]), int(digits[:2])) \
        and len(set(digits[6:])) > 1


def pl_pesel(value: str) -> bool:
    """Poland PESEL: YYMMDD (month +20/+40/+60/+80 by century) and five digits, weights 1 3 7 9."""
    digits = _digits(value, " ")
    if digits is None or len(digits) != 11:
        return False
    if not _date_ok(0, int(digits[2:4]) % 20, int(digits[4:6])):
        return False
    total = sum(int(d) * w for d, w in zip(digits, (1, 3, 7, 9, 1, 3, 7, 9, 1, 3)))
    return (10 - total % 10) % 10 == int(digits[10])


_CN_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)


def cn_rid(value: str) -> bool:
    """China resident identity number: six-digit area, YYYYMMDD (1900-2099), three digits, and an
    ISO 7064 MOD 11-2 check character (0-9 or X)."""
    body, check = value[:17], value[17:].upper()
    if len(value) != 18 or not body.isascii() or not body.isdigit() or check not in "0123456789X":
        return False
    if body[6:8] not in ("19", "20") or not _date_ok(0, int(body[10:12]), int(body[12:14])):
        return False
    return "10X98765432"[sum(int(d) * w for d, w in zip(body, _CN_WEIGHTS)) % 11] == check


def jp_my_number(value: str) -> bool:
    """Japan My Number: 12 digits, the last a check digit (weights 2-7 then 2-6 from the right, mod 11)."""
    digits = _digits(value, " -")
    if digits is None or len(digits) != 12 or len(set(digits)) == 1:
        return False
    total = sum(int(d) * (n + 1 if n <= 6 else n - 5) for n, d in enumerate(reversed(digits[:11]), start=1))
    rem = total % 11
    return (0 if rem <= 1 else 11 - rem) == int(digits[11])


def kr_rrn(value: str) -> bool:
    """South Korea resident registration number: YYMMDD, - and seven digits, the first of them
    the sex and century (1-8); numbers issued since October 2020 carry no check digit."""
    digits = _digits(value, "- ")
    return digits is not None and len(digits) == 13 and digits[6] in "12345678" \
        and _date_ok(0, int(digits[2:4]), int(digits[4:6]))


def au_tfn(value: str) -> bool:
    """Australia tax file number: 9 digits, weights 1 4 3 7 5 8 6 9 10, sum divisible by 11."""
    digits = _digits(value, " -")
    return digits is not None and len(digits) == 9 and len(set(digits)) > 1 \
        and sum(int(d) * w for d, w in zip(digits, (1, 4, 3, 7, 5, 8, 6, 9, 10))) % 11 == 0


_CURP = re.compile(r"[A-Z][AEIOUX][A-Z]{2}[0-9]{6}[HMX][A-Z]{2}[B-DF-HJ-NP-TV-Z]{3}[0-9A-Z][0-9]")
_CURP_ALPHABET = "0123456789ABCDEFGHIJKLMNÑOPQRSTUVWXYZ"


def mx_curp(value: str) -> bool:
    """Mexico CURP: 18 characters (name letters, YYMMDD, sex, state, consonants, a homoclave) and
    a check digit over the first seventeen."""
    if _CURP.fullmatch(value) is None or not _date_ok(0, int(value[6:8]), int(value[8:10])):
        return False
    total = sum(_CURP_ALPHABET.index(c) * (18 - i) for i, c in enumerate(value[:17]))
    return (10 - total % 10) % 10 == int(value[17])


# --- tax references (a tax column, or the labels UTR, ITIN, numéro fiscal, Partita IVA) -------

def uk_utr(value: str) -> bool:
    """UK Unique Taxpayer Reference: 10 digits (a space between the fives, a trailing K allowed),
    the first a check digit over the other nine (weights 6 7 8 9 10 5 4 3 2, mod 11)."""
    digits = _digits(value[:-1] if value.endswith("K") else value, " ")
    if digits is None or len(digits) != 10 or len(set(digits)) == 1:
        return False
    return "21987654321"[_weighted(digits[1:], (6, 7, 8, 9, 10, 5, 4, 3, 2)) % 11] == digits[0]


# the middle two digits of an ITIN (IRS ranges since 2011)
_ITIN_GROUPS = frozenset(f"{g:02d}" for g in (*range(50, 66), *range(70, 89), 90, 91, 92, 94, 95, 96, 97, 98, 99))


def us_itin(value: str) -> bool:
    """US Individual Taxpayer Identification Number: 9XX-XX-XXXX (or 9 digits), the middle two in
    the IRS's ITIN ranges (50-65, 70-88, 90-92, 94-99). No check digit."""
    digits = _digits(value, " -")
    return digits is not None and len(digits) == 9 and digits[0] == "9" and digits[3:5] in _ITIN_GROUPS \
        and digits[5:] != "0000"


def fr_nif(value: str) -> bool:
    """France numéro fiscal de référence (SPI): 13 digits, the first 0 to 3, the last three the
    first ten mod 511."""
    digits = _digits(value, " ")
    return digits is not None and len(digits) == 13 and digits[0] in "0123" and len(set(digits)) > 1 \
        and int(digits[:10]) % 511 == int(digits[10:])


def pt_nif(value: str) -> bool:
    """Portugal NIF (número de contribuinte): 9 digits, the first 1-3 (a person), 5-6, 8 or 9 (companies,
    public bodies, sole traders, others), a mod-11 check digit (weights 9..2; 10 and 11 are 0)."""
    digits = _digits(value, " ")
    if digits is None or len(digits) != 9 or digits[0] not in "1235689" or len(set(digits)) == 1:
        return False
    return _vat_pt(digits)


def tax_reference(value: str) -> bool:
    """A UK UTR, a US ITIN, a French numéro fiscal or (s26) a Portuguese NIF (the labels of one rule name
    any of them: NIF is the Portuguese and the French label)."""
    return uk_utr(value) or us_itin(value) or fr_nif(value) or pt_nif(value)


def it_piva(value: str) -> bool:
    """Italy Partita IVA without its IT prefix: 11 digits, a company number that is not 0000000,
    a provincial office code (001-100, 120, 121, 888, 999) and a Luhn check digit."""
    digits = _digits(value, " ")
    if digits is None or len(digits) != 11 or len(set(digits)) == 1 or digits[:7] == "0000000":
        return False
    office = int(digits[7:10])
    return (1 <= office <= 100 or office in (120, 121, 888, 999)) and _luhn_ok(digits)


# --- s26: national identifiers of NO, FI, BE, CH, TR, ZA, IL, SG, UK NHS, AU Medicare, AR, CL, TH ---
# One labelled rule (rules/pii.toml national-id-labelled) names them all; its validator sees the value
# only, so the value's shape picks the countries whose check it must pass (every label of the rule names
# one country's number, so a value after it that passes another country's check is an identifier too).

def no_fnr(value: str) -> bool:
    """Norway fødselsnummer / D-nummer / H-nummer: DDMMYY (day +40 for a D-number, month +40 for an
    H-number), three individual digits and two mod-11 check digits."""
    digits = _digits(value, " ")
    if digits is None or len(digits) != 11 or len(set(digits)) == 1:
        return False
    day, month = int(digits[:2]), int(digits[2:4])
    if not _date_ok(0, month - 40 if month > 40 else month, day - 40 if day > 40 else day):
        return False
    for n, weights in ((9, (3, 7, 6, 1, 8, 9, 4, 5, 2)), (10, (5, 4, 3, 2, 7, 6, 5, 4, 3, 2))):
        check = 11 - _weighted(digits, weights) % 11
        if check == 10 or (0 if check == 11 else check) != int(digits[n]):
            return False
    return True


_HETU_CHECK = "0123456789ABCDEFHJKLMNPRSTUVWXY"
_HETU = re.compile(r"[0-9]{6}[-+A-FU-Y][0-9]{3}[0-9A-Y]")


def fi_hetu(value: str) -> bool:
    """Finland henkilötunnus: DDMMYY, a century sign (+ 1800s; - Y X W V U 1900s; A B C D E F 2000s),
    an individual number 002-899 (900-999 temporary ones too) and a check character
    0123456789ABCDEFHJKLMNPRSTUVWXY[DDMMYYNNN mod 31]."""
    v = value.upper()
    if _HETU.fullmatch(v) is None or not _date_ok(0, int(v[2:4]), int(v[:2])) or int(v[7:10]) < 2:
        return False
    return _HETU_CHECK[int(v[:6] + v[7:10]) % 31] == v[10]


def be_nn(value: str) -> bool:
    """Belgium national register number (rijksregisternummer, INSZ/NISS; a BIS number's month +20 or
    +40): YYMMDD, a serial and 97 - (first nine mod 97), the first nine after a 2 for births since 2000;
    a month or day of 0 (unknown date of birth) allowed."""
    digits = _digits(value, " .-")
    if digits is None or len(digits) != 11 or len(set(digits)) == 1:
        return False
    month, day = int(digits[2:4]) % 20, int(digits[4:6])
    if month > 12 or day > 31 or int(digits[2:4]) > 52 or digits[6:9] in ("000", "999"):
        return False
    check = int(digits[9:])
    return 97 - int(digits[:9]) % 97 == check or 97 - int("2" + digits[:9]) % 97 == check


def ch_ahv(value: str) -> bool:
    """Switzerland AHV/AVS number (AHVN13): 756, nine digits and an EAN-13 check digit (dots between
    756.1234.5678.97 or none)."""
    digits = _digits(value, ".")
    if digits is None or len(digits) != 13 or not digits.startswith("756") or len(set(digits[3:12])) == 1:
        return False
    return (10 - _weighted(digits, (1, 3) * 6) % 10) % 10 == int(digits[12])


def tr_tckn(value: str) -> bool:
    """Turkey T.C. Kimlik No: 11 digits, first not 0, the tenth ((odd sum) * 7 - (even sum)) mod 10
    over the first nine, the eleventh the sum of the first ten mod 10."""
    digits = _digits(value, " ")
    if digits is None or len(digits) != 11 or digits[0] == "0" or len(set(digits)) == 1:
        return False
    d = [int(c) for c in digits]
    return (sum(d[0:9:2]) * 7 - sum(d[1:8:2])) % 10 == d[9] and sum(d[:10]) % 10 == d[10]


def za_id(value: str) -> bool:
    """South Africa identity number: YYMMDD, a four-digit serial, citizenship 0-2, a digit (8 or 9 on
    every card issued) and a Luhn check digit over the thirteen."""
    digits = _digits(value, " ")
    return digits is not None and len(digits) == 13 and _date_ok(0, int(digits[2:4]), int(digits[4:6])) \
        and digits[10] in "012" and digits[11] in "89" and _luhn_ok(digits)


def il_tz(value: str) -> bool:
    """Israel Teudat Zehut: 9 digits (leading zeros written; 5 to 8 digits padded), the last a
    Luhn check digit, not all the same."""
    digits = _digits(value, " -")
    if digits is None or not 5 <= len(digits) <= 9:
        return False
    digits = digits.zfill(9)
    return len(set(digits)) > 2 and _luhn_ok(digits)


def sg_nric(value: str) -> bool:
    """Singapore NRIC / FIN: S, T (citizens), F, G (foreigners), seven digits and a check letter over
    the weights 2 7 6 5 4 3 2 (+4 for T and G)."""
    v = value.upper()
    if len(v) != 9 or v[0] not in "STFG" or not v[1:8].isascii() or not v[1:8].isdigit() \
            or len(set(v[1:8])) == 1:
        return False
    total = _weighted(v[1:8], (2, 7, 6, 5, 4, 3, 2)) + (4 if v[0] in "TG" else 0)
    return ("JZIHGFEDCBA" if v[0] in "ST" else "XWUTRQPNMLK")[total % 11] == v[8]


def uk_nhs(value: str) -> bool:
    """UK NHS number (and Scotland's CHI, same check): 10 digits (3 3 4), weights 10..2 over the
    first nine, 11 - (sum mod 11) the tenth (11 is 0, 10 never issued)."""
    digits = _digits(value, " -")
    if digits is None or len(digits) != 10 or len(set(digits)) == 1:
        return False
    check = 11 - _weighted(digits, (10, 9, 8, 7, 6, 5, 4, 3, 2)) % 11
    return check != 10 and (0 if check == 11 else check) == int(digits[9])


def au_medicare(value: str) -> bool:
    """Australia Medicare card number: 10 digits (an individual reference number 1-9 may follow as an
    eleventh), the first 2-6, the ninth (weights 1 3 7 9 1 3 7 9) mod 10, the tenth an issue number."""
    digits = _digits(value, " -/")
    if digits is None or len(digits) not in (10, 11) or digits[0] not in "23456" or len(set(digits[:8])) == 1:
        return False
    if len(digits) == 11 and digits[10] == "0":
        return False
    return _weighted(digits, (1, 3, 7, 9, 1, 3, 7, 9)) % 10 == int(digits[8])


_CUIT_PREFIXES = frozenset(("20", "23", "24", "25", "26", "27", "30", "33", "34"))


def ar_cuit(value: str) -> bool:
    """Argentina CUIT / CUIL: 20-12345678-X, a type prefix (20 23 24 25 26 27 30 33 34), the DNI or
    company number, a mod-11 check digit (weights 5 4 3 2 7 6 5 4 3 2)."""
    digits = _digits(value, "-. ")
    if digits is None or len(digits) != 11 or digits[:2] not in _CUIT_PREFIXES or len(set(digits[2:10])) == 1:
        return False
    check = 11 - _weighted(digits, (5, 4, 3, 2, 7, 6, 5, 4, 3, 2)) % 11
    return check != 10 and (0 if check == 11 else check) == int(digits[10])


_RUT = re.compile(r"[0-9]{1,2}(?:\.?[0-9]{3}){2}-?[0-9K]")


def cl_rut(value: str) -> bool:
    """Chile RUT / RUN: 7 or 8 digits (12.345.678-5, 12345678-5), a mod-11 check character (weights 2
    to 7 from the right; 10 is K, 11 is 0)."""
    v = value.upper()
    if _RUT.fullmatch(v) is None:
        return False
    body = v[:-1].replace(".", "").rstrip("-")
    if len(set(body)) == 1 or int(body) < 1000000:
        return False
    check = 11 - sum(int(c) * (2 + i % 6) for i, c in enumerate(reversed(body))) % 11
    return ("0" if check == 11 else "K" if check == 10 else str(check)) == v[-1]


def th_tnin(value: str) -> bool:
    """Thailand national id (TNIN): 13 digits (1-2345-67890-12-3), the first 1-8, the last
    (11 - (weights 13..2 sum mod 11)) mod 10."""
    digits = _digits(value, " -")
    if digits is None or len(digits) != 13 or digits[0] not in "12345678" or len(set(digits[1:])) == 1:
        return False
    return (11 - _weighted(digits, tuple(range(13, 1, -1))) % 11) % 10 == int(digits[12])


def national_id(value: str) -> bool:
    """An identifier after a label of national-id-labelled's countries (NO, FI, BE, CH, TR, ZA, IL, SG,
    UK NHS, AU Medicare, AR, CL, TH): the value's shape picks the formats it may be, and one of their
    checks must take it."""
    v = value.strip()
    if not v.isascii() or not v:
        return False
    if v[-1] in "Kk" or v[0].isalpha() or (len(v) == 11 and v[6] in "+-ABCDEFUVWXYabcdefuvwxy"):
        return fi_hetu(v) or sg_nric(v) or cl_rut(v)
    digits = _digits(v, " .-/")
    if digits is None:
        return False
    checks: tuple[Callable[[str], bool], ...] = {
        9: (il_tz, cl_rut), 8: (il_tz, cl_rut), 10: (uk_nhs, au_medicare),
        11: (no_fnr, tr_tckn, be_nn, ar_cuit, au_medicare), 13: (ch_ahv, za_id, th_tnin),
    }.get(len(digits), ())
    return any(check(v) for check in checks)


def person_name(value: str) -> bool:
    """A value named by a person-name key or column (`firstName`, `last_name`): 1-4 capitalised words
    of letters (accents, apostrophes, hyphens; all capitals too), not a type, placeholder or label
    (tables.person_name_cell, which the table pass uses for the same columns)."""
    from archiver.redact import tables  # tables reads the word lists through rules, which imports us

    return tables.person_name_cell(value)


def birth_date(value: str) -> bool:
    """A value named by a date-of-birth key or column: a date (ISO, compact, d/m/y, m/d/y, `March 12,
    1984`; a time after it) (tables.birth_date_cell)."""
    from archiver.redact import tables

    return tables.birth_date_cell(value)


def short_secret(value: str) -> bool:
    """A value under a secret's name that reads as one: any of 16 characters or more; a shorter one
    with two letters and two digits at least (a word, a camelCase name or a counter is no secret)."""
    if len(value) >= 16:
        return True
    return sum(c.isalpha() for c in value) >= 2 and sum(c.isdigit() for c in value) >= 2


VALIDATORS: dict[str, Callable[[str], bool]] = {
    "luhn": luhn,
    "iban": iban,
    "jwt": jwt,
    "ssn": ssn,
    "pem_base64": pem_base64,
    "non_ascii": non_ascii,
    "uk_nino": uk_nino,
    "ca_sin": ca_sin,
    "aadhaar": aadhaar,
    "in_pan": in_pan,
    "br_cpf": br_cpf,
    "es_dni": es_dni,
    "de_idnr": de_idnr,
    "nl_bsn": nl_bsn,
    "fr_nir": fr_nir,
    "passport": passport,
    "aba_routing": aba_routing,
    "sort_code": sort_code,
    "bank_account": bank_account,
    "us_ein": us_ein,
    "eu_vat": eu_vat,
    "us_zip": us_zip,
    "de_plz": de_plz,
    "uk_postcode": uk_postcode,
    "it_cf": it_cf,
    "se_personnummer": se_personnummer,
    "dk_cpr": dk_cpr,
    "pl_pesel": pl_pesel,
    "cn_rid": cn_rid,
    "jp_my_number": jp_my_number,
    "kr_rrn": kr_rrn,
    "au_tfn": au_tfn,
    "mx_curp": mx_curp,
    "tax_reference": tax_reference,
    "it_piva": it_piva,
    "national_id": national_id,
    "person_name": person_name,
    "birth_date": birth_date,
    "short_secret": short_secret,
}
