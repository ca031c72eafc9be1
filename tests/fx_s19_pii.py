"""National identifiers for tests/test_s19_pii.py: generators that compute each format's check digit
on their own (independently of archiver/redact/validators.py), a wrong-check twin of each value,
and the contexts a session holds them in (a CSV row, a JSON fixture read as text, a log line, a
sentence with the label, a Claude Code tool_result record)."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from typing import Callable

DIGITS = "0123456789"
UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _d(rng: random.Random, n: int) -> str:
    return "".join(rng.choice(DIGITS) for _ in range(n))


def _luhn_digit(body: str) -> str:
    total = 0
    for i, c in enumerate(reversed(body)):
        d = int(c) * (1 if i % 2 else 2)  # the check digit will sit to the right
        total += d - 9 if d > 9 else d
    return str(-total % 10)


_VD = [[0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [1, 2, 3, 4, 0, 6, 7, 8, 9, 5], [2, 3, 4, 0, 1, 7, 8, 9, 5, 6],
       [3, 4, 0, 1, 2, 8, 9, 5, 6, 7], [4, 0, 1, 2, 3, 9, 5, 6, 7, 8], [5, 9, 8, 7, 6, 0, 4, 3, 2, 1],
       [6, 5, 9, 8, 7, 1, 0, 4, 3, 2], [7, 6, 5, 9, 8, 2, 1, 0, 4, 3], [8, 7, 6, 5, 9, 3, 2, 1, 0, 4],
       [9, 8, 7, 6, 5, 4, 3, 2, 1, 0]]
_VP = [[0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [1, 5, 7, 6, 2, 8, 3, 0, 9, 4], [5, 8, 0, 3, 7, 9, 6, 1, 4, 2],
       [8, 9, 1, 6, 0, 4, 3, 5, 2, 7], [9, 4, 5, 3, 1, 2, 6, 8, 7, 0], [4, 2, 8, 6, 5, 7, 3, 9, 0, 1],
       [2, 7, 9, 3, 8, 0, 6, 4, 1, 5], [7, 0, 4, 6, 9, 1, 3, 2, 5, 8]]
_VINV = [0, 4, 3, 2, 1, 5, 6, 7, 8, 9]


def verhoeff_digit(body: str) -> str:
    c = 0
    for i, ch in enumerate(reversed(body)):
        c = _VD[c][_VP[(i + 1) % 8][int(ch)]]
    return str(_VINV[c])


def _mod11_10_digit(body: str) -> str:
    product = 10
    for ch in body:
        s = (int(ch) + product) % 10 or 10
        product = s * 2 % 11
    return str((11 - product) % 10)


def _cpf_digit(body: str) -> str:
    w = len(body) + 1
    return str(sum(int(c) * (w - i) for i, c in enumerate(body)) * 10 % 11 % 10)


DNI_LETTERS = "TRWAGMYFPDXBNJZSQVHLCKE"


def _bump(ch: str) -> str:
    """Another digit (or letter) than ch: the wrong-check twin."""
    if ch.isdigit():
        return str((int(ch) + 1) % 10)
    return "A" if ch != "A" else "B"


# ------------------------------------------------------------------ generators: (valid, wrong check)

def nino(rng: random.Random) -> tuple[str, str]:
    while True:
        a, b = rng.choice("ABCEGHJKLMNOPRSTWXYZ"), rng.choice("ABCEGHJKLMNPRSTWXYZ")
        if a + b not in ("BG", "GB", "KN", "NK", "NT", "TN", "ZZ"):
            break
    digits = _d(rng, 6)
    spaced = f"{a}{b} {digits[:2]} {digits[2:4]} {digits[4:]} {rng.choice('ABCD')}"
    return spaced, f"Q{b} {digits[:2]} {digits[2:4]} {digits[4:]} {spaced[-1]}"  # Q never a first letter


def sin(rng: random.Random) -> tuple[str, str]:
    body = rng.choice("1234567") + _d(rng, 7)
    v = body + _luhn_digit(body)
    w = v[:-1] + _bump(v[-1])
    return f"{v[:3]} {v[3:6]} {v[6:]}", f"{w[:3]} {w[3:6]} {w[6:]}"


def aadhaar(rng: random.Random) -> tuple[str, str]:
    body = rng.choice("23456789") + _d(rng, 10)
    v = body + verhoeff_digit(body)
    w = v[:-1] + _bump(v[-1])
    return f"{v[:4]} {v[4:8]} {v[8:]}", f"{w[:4]} {w[4:8]} {w[8:]}"


def pan(rng: random.Random) -> tuple[str, str]:
    """PAN has no public check digit: the 'wrong' twin has an invalid holder type (D)."""
    head = "".join(rng.choice(UPPER) for _ in range(3))
    tail = rng.choice(UPPER) + str(rng.randint(1, 9999)).zfill(4) + rng.choice(UPPER)
    return head + rng.choice("PCHFATBLJG") + tail, head + "D" + tail


def cpf(rng: random.Random) -> tuple[str, str]:
    body = _d(rng, 9)
    d1 = _cpf_digit(body)
    d2 = _cpf_digit(body + d1)
    v, w = body + d1 + d2, body + d1 + _bump(d2)
    return f"{v[:3]}.{v[3:6]}.{v[6:9]}-{v[9:]}", f"{w[:3]}.{w[3:6]}.{w[6:9]}-{w[9:]}"


def dni(rng: random.Random) -> tuple[str, str]:
    n = str(rng.randint(10_000_000, 99_999_999))
    letter = DNI_LETTERS[int(n) % 23]
    return n + letter, n + DNI_LETTERS[(int(n) + 1) % 23]


def nie(rng: random.Random) -> tuple[str, str]:
    prefix, n = rng.choice("XYZ"), _d(rng, 7)
    k = int(str("XYZ".index(prefix)) + n)
    return prefix + n + DNI_LETTERS[k % 23], prefix + n + DNI_LETTERS[(k + 5) % 23]


def steuer_id(rng: random.Random) -> tuple[str, str]:
    while True:
        pool = rng.sample(DIGITS, 9)
        if pool[0] == "0":
            continue
        body = pool + [rng.choice(pool[1:])]  # one digit twice, the others once
        rest = body[1:]
        rng.shuffle(rest)
        s = body[0] + "".join(rest)
        if s[0] != "0":
            break
    v = s + _mod11_10_digit(s)
    w = v[:-1] + _bump(v[-1])
    return v, w


def bsn(rng: random.Random) -> tuple[str, str]:
    while True:
        body = _d(rng, 8)
        last = sum((9 - i) * int(c) for i, c in enumerate(body)) % 11
        if last < 10 and body != "00000000":
            v = body + str(last)
            return v, body + _bump(str(last))


def nir(rng: random.Random) -> tuple[str, str]:
    sex, yy, mm = rng.choice("12"), _d(rng, 2), str(rng.randint(1, 12)).zfill(2)
    dept = rng.choice(["2A", "2B", str(rng.randint(30, 95))])
    commune, order = str(rng.randint(1, 999)).zfill(3), str(rng.randint(1, 999)).zfill(3)
    body = sex + yy + mm + dept + commune + order
    num = int(body.replace("2A", "19").replace("2B", "18")) if dept.startswith("2") else int(body)
    key = str(97 - num % 97).zfill(2)
    bad = str((int(key) % 97) + 1).zfill(2)
    fmt = "{0} {1} {2} {3} {4} {5} {6}"
    return fmt.format(sex, yy, mm, dept, commune, order, key), fmt.format(sex, yy, mm, dept, commune, order, bad)


def passport(rng: random.Random) -> tuple[str, str]:
    """No check digit: the look-alike is a placeholder of the same shape (one digit repeated)."""
    v = rng.choice("CFGHJK") + "".join(rng.sample(DIGITS, 8))
    return v, v[0] + v[1] * 8


@dataclass(frozen=True)
class Format:
    name: str
    gen: Callable[[random.Random], tuple[str, str]]
    rules: frozenset[str]  # the rules that may take it
    column: str | None  # a CSV header / JSON key that names it (None: no CSV of it is taken)
    json_key: str  # the key of the JSON fixture
    log_key: str  # key=value in a log line
    prose: str  # "The customer's {prose} is {value}."


NATIONAL = frozenset({"uk-nino", "uk-nino-spaced", "ca-sin", "in-aadhaar", "in-pan", "in-pan-in-context",
                      "br-cpf", "br-cpf-in-context", "es-dni-nie", "de-steuer-id", "nl-bsn", "fr-nir",
                      "passport-labelled"})

FORMATS = [
    Format("uk-nino", nino, frozenset({"uk-nino", "uk-nino-spaced"}), "national_insurance_number", "nino", "nino",
           "National Insurance number"),
    Format("ca-sin", sin, frozenset({"ca-sin"}), None, "sin", "sin", "Social Insurance Number"),
    Format("in-aadhaar", aadhaar, frozenset({"in-aadhaar"}), "aadhaar", "aadhaar", "aadhaar", "Aadhaar number"),
    Format("in-pan", pan, frozenset({"in-pan", "in-pan-in-context"}), "pan_number", "pan", "pan", "PAN"),
    Format("br-cpf", cpf, frozenset({"br-cpf", "br-cpf-in-context"}), "cpf", "cpf", "cpf", "CPF"),
    Format("es-dni", dni, frozenset({"es-dni-nie"}), "dni", "dni", "dni", "DNI"),
    Format("es-nie", nie, frozenset({"es-dni-nie"}), "nie", "nie", "nie", "NIE"),
    Format("de-steuer-id", steuer_id, frozenset({"de-steuer-id"}), "steuer_id", "steuer_id", "steuer_id", "Steuer-ID"),
    Format("nl-bsn", bsn, frozenset({"nl-bsn"}), None, "bsn", "bsn", "BSN"),
    Format("fr-nir", nir, frozenset({"fr-nir"}), "nir", "nir", "nir", "numéro de sécurité sociale (NIR)"),
    Format("passport", passport, frozenset({"passport-labelled"}), None, "passport_number", "passport_no",
           "passport number"),
]

# ------------------------------------------------------------------ contexts


def csv_text(f: Format, value: str, other: str) -> str:
    return f"id,name,city,{f.column}\n1,Ignatia Fakename,Leeds,{value}\n2,Søren Fåkename,Porto,{other}\n"


def json_fixture(f: Format, value: str) -> str:
    """A fixture file as the Read tool shows it (line numbers and all), so key and value share a string."""
    doc = json.dumps({"customer": {"id": 4411, "name": "Ignatia Fakename", f.json_key: value,
                                   "created_at": "2026-03-02T10:11:12.345Z"}}, indent=2, ensure_ascii=False)
    return "".join(f"{i:>6}\u2192{line}\n" for i, line in enumerate(doc.splitlines(), 1))


def log_line(f: Format, value: str) -> str:
    return (f"2026-03-02T10:11:12.345Z INFO kyc.verify {f.log_key}={value} "
            f"request_id=0d4f5b8e-9c3a-4e7b-8f21-6a5d3c2b1e0f latency_ms=1718 status=ok\n")


def prose(f: Format, value: str) -> str:
    return f"Support ticket #4411: the customer's {f.prose} is {value}, please fix the typo in her profile."


def tool_result_line(text: str) -> bytes:
    """A Claude Code user record holding the text as a Bash tool result (and its toolUseResult)."""
    return json.dumps({"type": "user", "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_01S19pii", "content": text}]},
        "toolUseResult": {"stdout": text, "stderr": "", "interrupted": False},
        "uuid": "6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f", "timestamp": "2026-03-02T10:11:12.345Z"},
        ensure_ascii=False).encode()


# The ids and numbers of ordinary sessions, in strings that also name every identifier (so every
# keyword gate is open): nothing here may change.
LOOKALIKES = """\
# kyc/aadhaar_client.py: checks Aadhaar, PAN card, CPF, DNI, NIE, NIF, BSN, NIR, INSEE, Steuer-ID, IdNr,
# social insurance, national insurance (NINO) and passport numbers before the customer is saved
commit 9fceb02d0ae598e95dc970b74767f19372d61af8 (HEAD -> main)
Author: CI <ci@example.com>
request_id=0d4f5b8e-9c3a-4e7b-8f21-6a5d3c2b1e0f started_at=2026-03-02T10:11:12.345Z epoch_ms=1718035200123
listening on 0.0.0.0:8443 (pid 48213), redis 127.0.0.1:6379
aadhaar-sdk 2.31.4 build 20240115.3 python 3.11.9
aadhaar_client.py:142:17: E501 line too long (121 > 100 characters)
{"id": 123456789012, "seed": 987654321, "count": 42, "port": 5432, "offset_ms": 86400000}
{"user_id": "550e8400-e29b-41d4-a716-446655440000", "ts": 1718035200, "size": 73400320}
retry_after_ms=30000 timeout=120 max_bytes=104857600
digest sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
hex 0x7f3a9c21d4e8b650 mask 0xFFFF0000
token_b64 dGhpcyBpcyBub3QgYSBzZWNyZXQgYXQgYWxs
aws_account=123456789012 region=eu-west-1
ulid 01ARZ3NDEKTSV4RRFFQ69G5FAV snowflake 1541815603606036480
y = math.sin(291417772) + np.cos(0.5)  # bsn_check(291417772) is True: no label, kept
npm i passport@0.7.0 passport-local@1.0.0 passport-jwt
"passport": "^0.7.0",
const { NIF_RE } = require('./nif'); // NIF_RE = /^[0-9]{8}[A-Z]$/
test_nir.py::test_key[1-84-12] PASSED [ 42%]
0000010 06 12 34 56 78 9a bc de
"""
