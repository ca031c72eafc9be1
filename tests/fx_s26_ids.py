"""National identifiers of the countries s26 added (NO, FI, BE, CH, TR, ZA, IL, SG, UK NHS, AU Medicare,
AR, CL, TH; PT NIF) and national phone numbers, generated from a seeded RNG: each generator computes its
format's check digit on its own (independently of archiver/redact/validators.py) and returns the value
with a wrong-check twin. Then the shapes a session holds them in (s25/s26 PII shapes: a sentence with
the label, a .env file, a JSON fixture, a CSV with a header, a SQL INSERT, a Claude Code tool_result
record and a Codex function_call_output record), each with the values a redactor should remove."""

from __future__ import annotations

import json
import random
from typing import Callable

from tests.fx_s19_pii import _bump, _luhn_digit

DIGITS = "0123456789"


def _d(rng: random.Random, n: int) -> str:
    return "".join(rng.choice(DIGITS) for _ in range(n))


def _date(rng: random.Random) -> tuple[int, int, int]:
    """(yy, mm, dd): a real day of a month."""
    return rng.randint(0, 99), rng.randint(1, 12), rng.randint(1, 28)


def _twin(value: str) -> str:
    """The value with its last character bumped: a wrong check digit (or letter)."""
    return value[:-1] + _bump(value[-1])


def _mod11(body: str, weights: tuple[int, ...]) -> int:
    return 11 - sum(int(c) * w for c, w in zip(body, weights)) % 11


# ------------------------------------------------------------------ generators: (valid, wrong check)

def no_fnr(rng: random.Random) -> tuple[str, str]:
    while True:
        yy, mm, dd = _date(rng)
        if rng.random() < 0.2:
            dd += 40  # a D-number
        body = f"{dd:02d}{mm:02d}{yy:02d}{_d(rng, 3)}"
        k1 = _mod11(body, (3, 7, 6, 1, 8, 9, 4, 5, 2))
        if k1 == 10:
            continue
        body += str(k1 % 11)
        k2 = _mod11(body, (5, 4, 3, 2, 7, 6, 5, 4, 3, 2))
        if k2 == 10:
            continue
        value = body + str(k2 % 11)
        return value, _twin(value)


_HETU = "0123456789ABCDEFHJKLMNPRSTUVWXY"


def fi_hetu(rng: random.Random) -> tuple[str, str]:
    yy, mm, dd = _date(rng)
    num = rng.randint(2, 899)
    head = f"{dd:02d}{mm:02d}{yy:02d}"
    check = _HETU[int(f"{head}{num:03d}") % 31]
    value = f"{head}{rng.choice('-A')}{num:03d}{check}"
    wrong = _HETU[(_HETU.index(check) + 1) % 31]
    return value, value[:-1] + wrong


def be_nn(rng: random.Random) -> tuple[str, str]:
    yy, mm, dd = _date(rng)
    body = f"{yy:02d}{mm:02d}{dd:02d}{rng.randint(1, 997):03d}"
    after_2000 = rng.random() < 0.3
    check = 97 - int(("2" if after_2000 else "") + body) % 97
    compact = f"{body}{check:02d}"
    value = f"{compact[:2]}.{compact[2:4]}.{compact[4:6]}-{compact[6:9]}.{compact[9:]}" if rng.random() < 0.5 else compact
    return value, _twin(value)


def ch_ahv(rng: random.Random) -> tuple[str, str]:
    body = "756" + _d(rng, 9)
    total = sum(int(c) * (3 if i % 2 else 1) for i, c in enumerate(body))
    compact = body + str(-total % 10)
    value = f"{compact[:3]}.{compact[3:7]}.{compact[7:11]}.{compact[11:]}" if rng.random() < 0.7 else compact
    return value, _twin(value)


def tr_tckn(rng: random.Random) -> tuple[str, str]:
    d = [rng.randint(1, 9)] + [rng.randint(0, 9) for _ in range(8)]
    d.append((sum(d[0::2]) * 7 - sum(d[1::2])) % 10)
    d.append(sum(d) % 10)
    value = "".join(map(str, d))
    return value, _twin(value)


def za_id(rng: random.Random) -> tuple[str, str]:
    yy, mm, dd = _date(rng)
    body = f"{yy:02d}{mm:02d}{dd:02d}{_d(rng, 4)}{rng.choice('01')}8"
    value = body + _luhn_digit(body)
    return value, _twin(value)


def il_tz(rng: random.Random) -> tuple[str, str]:
    body = str(rng.randint(1, 4)) + _d(rng, 7)
    value = body + _luhn_digit(body)
    return value, _twin(value)


def sg_nric(rng: random.Random) -> tuple[str, str]:
    prefix = rng.choice("STFG")
    digits = _d(rng, 7)
    total = sum(int(c) * w for c, w in zip(digits, (2, 7, 6, 5, 4, 3, 2))) + (4 if prefix in "TG" else 0)
    table = "JZIHGFEDCBA" if prefix in "ST" else "XWUTRQPNMLK"
    check = table[total % 11]
    return prefix + digits + check, prefix + digits + table[(total + 1) % 11]


def uk_nhs(rng: random.Random) -> tuple[str, str]:
    while True:
        body = str(rng.randint(4, 7)) + _d(rng, 8)
        check = _mod11(body, (10, 9, 8, 7, 6, 5, 4, 3, 2))
        if check != 10:
            compact = body + str(check % 11)
            value = f"{compact[:3]} {compact[3:6]} {compact[6:]}" if rng.random() < 0.6 else compact
            return value, _twin(value)


def au_medicare(rng: random.Random) -> tuple[str, str]:
    body = str(rng.randint(2, 6)) + _d(rng, 7)
    check = sum(int(c) * w for c, w in zip(body, (1, 3, 7, 9, 1, 3, 7, 9))) % 10
    compact = f"{body}{check}{rng.randint(1, 9)}"
    value = f"{compact[:4]} {compact[4:9]} {compact[9]}"
    return value, value[:9] + str((check + 1) % 10) + value[10:]


def ar_cuit(rng: random.Random) -> tuple[str, str]:
    while True:
        body = rng.choice(("20", "27", "30")) + _d(rng, 8)
        check = _mod11(body, (5, 4, 3, 2, 7, 6, 5, 4, 3, 2))
        if check != 10:
            value = f"{body[:2]}-{body[2:]}-{check % 11}"
            return value, _twin(value)


def cl_rut(rng: random.Random) -> tuple[str, str]:
    body = str(rng.randint(5_000_000, 25_999_999))
    check = 11 - sum(int(c) * (2 + i % 6) for i, c in enumerate(reversed(body))) % 11
    ch = {11: "0", 10: "K"}.get(check, str(check))
    dotted = f"{body[:-6]}.{body[-6:-3]}.{body[-3:]}"
    wrong = "0" if ch == "K" else "K" if ch == "9" else str(int(ch) + 1)
    return f"{dotted}-{ch}", f"{dotted}-{wrong}"


def th_tnin(rng: random.Random) -> tuple[str, str]:
    body = str(rng.randint(1, 8)) + _d(rng, 11)
    check = (11 - sum(int(c) * w for c, w in zip(body, range(13, 1, -1))) % 11) % 10
    c = body + str(check)
    value = f"{c[0]}-{c[1:5]}-{c[5:10]}-{c[10:12]}-{c[12]}" if rng.random() < 0.5 else c
    return value, _twin(value)


def pt_nif(rng: random.Random) -> tuple[str, str]:
    while True:
        body = rng.choice("1235") + _d(rng, 7)
        check = 11 - sum(int(c) * w for c, w in zip(body, range(9, 1, -1))) % 11
        value = body + str(0 if check > 9 else check)
        return value, _twin(value)


# country: (generator, the labels a session writes before it, the CSV/SQL column names, a .env name)
IDS: dict[str, tuple[Callable[[random.Random], tuple[str, str]], tuple[str, ...], tuple[str, ...], str]] = {
    "no": (no_fnr, ("Fødselsnummer:", "fødselsnr.", "FNR:", "personnummer"), ("fodselsnummer", "fnr"), "KUNDE_FODSELSNUMMER"),
    "fi": (fi_hetu, ("henkilötunnus:", "HETU", "Personal identity code:"), ("hetu", "henkilotunnus"), "ASIAKAS_HETU"),
    "be": (be_nn, ("Rijksregisternummer:", "INSZ", "numéro de registre national :", "NISS:"), ("rijksregisternummer", "insz"), "CUSTOMER_NISS"),
    "ch": (ch_ahv, ("AHV-Nr.", "numéro AVS :", "AHV number:", "AHVN13"), ("ahv_nr", "avs_number"), "MITARBEITER_AHV_NR"),
    "tr": (tr_tckn, ("T.C. Kimlik No:", "TC Kimlik No", "TCKN:", "kimlik numarası:"), ("tckn", "tc_kimlik_no"), "MUSTERI_TCKN"),
    "za": (za_id, ("SA ID number:", "RSA ID:", "South African ID"), ("sa_id_number", "rsa_id"), "CLIENT_SA_ID"),
    "il": (il_tz, ("Teudat Zehut:", "תעודת זהות:", "mispar zehut"), ("teudat_zehut", "mispar_zehut"), "LAKOACH_TEUDAT_ZEHUT"),
    "sg": (sg_nric, ("NRIC:", "NRIC No.", "FIN number:"), ("nric", "nric_fin"), "CUSTOMER_NRIC"),
    "nhs": (uk_nhs, ("NHS number:", "NHS No.", "nhs_number="), ("nhs_number", "nhs_no"), "PATIENT_NHS_NUMBER"),
    "medicare": (au_medicare, ("Medicare number:", "Medicare card no"), ("medicare_number", "medicare_no"), "MEMBER_MEDICARE_NUMBER"),
    "ar": (ar_cuit, ("CUIT:", "CUIL", "C.U.I.T."), ("cuit", "cuil"), "CLIENTE_CUIT"),
    "cl": (cl_rut, ("RUT:", "R.U.T.", "RUN:"), ("rut", "cliente_rut"), "CLIENTE_RUT"),
    "th": (th_tnin, ("เลขประจำตัวประชาชน", "Thai ID:", "Thai national ID number"), ("thai_id", "thai_national_id"), "CUSTOMER_THAI_ID"),
    "pt": (pt_nif, ("NIF:", "número de contribuinte:", "NIF"), ("nif", "contribuinte"), "CLIENTE_NIF"),
}


# ------------------------------------------------------------------ shapes: (text, planted values)

Shape = tuple[str, dict[str, list[str]]]


def _values(rng: random.Random, n: int) -> dict[str, list[str]]:
    return {c: [gen(rng)[0] for _ in range(n)] for c, (gen, _l, _c, _e) in IDS.items()}


def prose(rng: random.Random, vals: dict[str, list[str]]) -> str:
    return "".join(f"Updated the customer record: {rng.choice(IDS[c][1])} {v} (verified).\n"
                   for c, vs in vals.items() for v in vs)


def dotenv(rng: random.Random, vals: dict[str, list[str]]) -> str:
    return "".join(f"{IDS[c][3]}={v}\n" for c, vs in vals.items() for v in vs[:1])


def json_fixture(rng: random.Random, vals: dict[str, list[str]]) -> str:
    return json.dumps([{"id": i, IDS[c][2][0]: v} for c, vs in vals.items() for i, v in enumerate(vs)], indent=2,
                      ensure_ascii=False)


def csv_export(rng: random.Random, vals: dict[str, list[str]]) -> str:
    out = []
    for c, vs in vals.items():
        col = rng.choice(IDS[c][2])
        out.append(f"id,name,{col},plan\n" + "".join(f"{i},Ottilie Quillfeather,{v},Pro\n" for i, v in enumerate(vs, 1)))
    return "\n".join(out)


def sql_insert(rng: random.Random, vals: dict[str, list[str]]) -> str:
    out = []
    for c, vs in vals.items():
        col = rng.choice(IDS[c][2])
        out += [f"INSERT INTO customers (id, plan, {col}) VALUES ({i}, 'Pro', '{v}');" for i, v in enumerate(vs, 1)]
    return "\n".join(out) + "\n"


def claude_record(rng: random.Random, vals: dict[str, list[str]]) -> str:
    """A Claude Code assistant+tool_result pair as JSONL: the text an agent read back from a record."""
    body = "".join(f"{rng.choice(IDS[c][1])} {v}\n" for c, vs in vals.items() for v in vs[:1])
    rec = {"type": "user", "uuid": "2f1c3a4e-8b7d-4c1e-9a0b-5d6e7f8a9b0c", "sessionId": "7d1e9c3a-2b4f-4e6a-8c0d-1f2e3a4b5c6d",
           "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01ABCDEF",
                                                    "content": body}]}}
    return json.dumps(rec, ensure_ascii=False)


def codex_record(rng: random.Random, vals: dict[str, list[str]]) -> str:
    body = "".join(f"{IDS[c][3].lower()}: {v}\n" for c, vs in vals.items() for v in vs[:1])
    rec = {"timestamp": "2025-10-26T12:34:56.789Z", "type": "response_item",
           "payload": {"type": "function_call_output", "call_id": "call_abc123", "output": json.dumps(
               {"output": body, "metadata": {"exit_code": 0}})}}
    return json.dumps(rec, ensure_ascii=False)


SHAPES: dict[str, Callable[[random.Random, dict[str, list[str]]], str]] = {
    "prose": prose, "dotenv": dotenv, "json": json_fixture, "csv": csv_export, "sql-insert": sql_insert,
    "claude-record": claude_record, "codex-record": codex_record,
}
FIRST_ONLY = {"dotenv", "claude-record", "codex-record"}  # shapes planting one value of each country


def shapes(seed: int, n: int = 3) -> dict[str, Shape]:
    """{shape: (text, {country: values planted})} for one seed."""
    rng = random.Random(seed)
    out: dict[str, Shape] = {}
    for name, make in SHAPES.items():
        vals = _values(rng, n)
        planted = {c: vs[:1] if name in FIRST_ONLY else vs for c, vs in vals.items()}
        out[name] = (make(rng, vals), planted)
    return out
