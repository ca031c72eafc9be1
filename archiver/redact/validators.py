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
    digits = [int(c) for c in value if c.isdigit()]
    if not 12 <= len(digits) <= 19 or len(set(digits)) == 1:
        return False
    total = 0
    for i, d in enumerate(reversed(digits)):
        if i % 2:
            d *= 2
            if d > 9:
                d -= 9
        total += d
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


VALIDATORS: dict[str, Callable[[str], bool]] = {
    "luhn": luhn,
    "iban": iban,
    "jwt": jwt,
    "ssn": ssn,
    "pem_base64": pem_base64,
    "non_ascii": non_ascii,
}
