"""Customer data as an agent reads it (s25 sweep), generated from a seeded RNG: CSV exports with a
header row, JSON API responses, SQL dumps (INSERT, multi-row INSERT, pg_dump COPY, UPDATE/WHERE),
YAML fixtures, Django and Rails seed files, HTML tables, vCards, mbox headers and logfmt log lines.
Each shape comes with the planted values (names, e-mail addresses, phones in several national
formats, dates of birth, postcodes, IBANs and national identifiers with valid check digits) that a
redactor should remove. Identifier generators with a check digit are tests/fx_s19_pii.py's."""

from __future__ import annotations

import random
import string
from dataclasses import dataclass
from typing import Callable

from tests.fx_s19_pii import aadhaar, bsn, cpf, dni, nie, nino, nir, pan, sin, steuer_id

FIRST = ("Margaret", "Oluwaseun", "Ingrid", "Tomasz", "Priya", "Haruto", "Fatima", "Giulia", "Bjørn", "Chiara",
         "Mateus", "Siobhan", "Aurélie", "Kwame", "Ljudmila", "Thandiwe")
LAST = ("Okafor", "Thornton", "Lindqvist", "Wiśniewski", "Raghunathan", "Nakamura", "Haddad", "Bianchi",
        "Øberg", "Esposito", "Carvalho", "O'Sullivan", "Lefèvre", "Mensah", "Ivanova", "Ndlovu")
POSTCODES = ("SW1A 2AA", "M1 1AE", "LS1 4AP", "EH1 1YZ", "B33 8TH", "CR2 6XH", "DN55 1PT", "W1A 0AX")


def _digits(rng: random.Random, n: int) -> str:
    return "".join(rng.choice(string.digits) for _ in range(n))


def us_ssn(rng: random.Random) -> str:
    area = rng.choice([n for n in range(1, 900) if n != 666])
    return f"{area:03d}-{rng.randint(1, 99):02d}-{rng.randint(1, 9999):04d}"


def au_tfn(rng: random.Random) -> str:
    weights = (1, 4, 3, 7, 5, 8, 6, 9, 10)
    while True:
        d = [rng.randint(0, 9) for _ in range(9)]
        if d[0] and sum(w * x for w, x in zip(weights, d)) % 11 == 0:
            s = "".join(map(str, d))
            return f"{s[:3]} {s[3:6]} {s[6:]}"


_CF_ODD = {c: v for c, v in zip(string.digits + string.ascii_uppercase,
                                (1, 0, 5, 7, 9, 13, 15, 17, 19, 21) + (1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 2, 4, 18,
                                                                       20, 11, 3, 6, 8, 12, 14, 16, 10, 22, 25, 24, 23))}


def it_codice_fiscale(rng: random.Random) -> str:
    body = ("".join(rng.choice("BCDFGLMNPRSTVZ") for _ in range(6)) + _digits(rng, 2) + rng.choice("ABCDEHLMPRST")
            + f"{rng.randint(1, 28):02d}" + rng.choice("ABCDEFGHILM") + _digits(rng, 3))
    total = 0
    for i, c in enumerate(body):
        total += _CF_ODD[c] if i % 2 == 0 else (int(c) if c.isdigit() else ord(c) - 65)
    return body + chr(65 + total % 26)


def iban(rng: random.Random, country: str = "DE") -> str:
    lengths = {"DE": 18, "GB": 18, "FR": 23, "NL": 14, "ES": 20}
    bban = _digits(rng, lengths[country]) if country not in ("GB", "NL") else (
        "".join(rng.choice(string.ascii_uppercase) for _ in range(4)) + _digits(rng, lengths[country] - 4))
    rearranged = bban + country + "00"
    check = 98 - int("".join(str(int(c, 36)) for c in rearranged)) % 97
    return f"{country}{check:02d}{bban}"


def phone(rng: random.Random) -> str:
    """A phone number in one of several national formats."""
    return rng.choice((
        lambda: f"+44 7700 900{rng.randint(100, 999)}",
        lambda: f"(415) 555-{rng.randint(1000, 9999)}",
        lambda: f"+1 212-555-{rng.randint(1000, 9999)}",
        lambda: f"+49 30 {rng.randint(1000000, 9999999)}",
        lambda: f"+33 6 {rng.randint(10, 99)} {rng.randint(10, 99)} {rng.randint(10, 99)} {rng.randint(10, 99)}",
        lambda: f"+91 98{rng.randint(10000000, 99999999)}",
        lambda: f"+61 4{rng.randint(10, 99)} {rng.randint(100, 999)} {rng.randint(100, 999)}",
        lambda: f"+34 6{rng.randint(10, 99)} {rng.randint(100, 999)} {rng.randint(100, 999)}",
    ))()


def dob(rng: random.Random) -> str:
    y, m, d = rng.randint(1940, 2004), rng.randint(1, 12), rng.randint(1, 28)
    return rng.choice((f"{y}-{m:02d}-{d:02d}", f"{d:02d}/{m:02d}/{y}"))


@dataclass
class Person:
    first: str
    last: str
    email: str
    phone: str
    dob: str
    postcode: str
    iban: str
    ids: dict[str, str]  # column name -> national identifier


ID_MAKERS: dict[str, Callable[[random.Random], str]] = {
    "ssn": us_ssn, "nino": lambda r: nino(r)[0], "sin": lambda r: sin(r)[0], "tfn": au_tfn,
    "steuer_id": lambda r: steuer_id(r)[0], "insee": lambda r: nir(r)[0], "aadhaar": lambda r: aadhaar(r)[0],
    "pan": lambda r: pan(r)[0], "cpf": lambda r: cpf(r)[0], "dni": lambda r: dni(r)[0], "nie": lambda r: nie(r)[0],
    "codice_fiscale": it_codice_fiscale, "bsn": lambda r: bsn(r)[0],
}


def person(rng: random.Random) -> Person:
    first, last = rng.choice(FIRST), rng.choice(LAST)
    mail = f"{first.lower()[:3]}.{rng.randint(10, 999)}@{rng.choice(('fastmail.fm', 'web.de', 'corp-mail.net'))}"
    return Person(first, last, mail, phone(rng), dob(rng), rng.choice(POSTCODES), iban(rng, rng.choice(("DE", "GB", "FR"))),
                  {k: make(rng) for k, make in ID_MAKERS.items()})


# ------------------------------------------------------------------ shapes: (text, planted values)

Shape = tuple[str, dict[str, list[str]]]  # text, {kind: values planted}


def _planted(people: list[Person], kinds: tuple[str, ...]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for p in people:
        for k in kinds:
            out.setdefault(k, []).append(p.ids[k] if k in p.ids else getattr(p, k))
    return out


def csv_export(rng: random.Random, people: list[Person]) -> Shape:
    idk = rng.sample(sorted(ID_MAKERS), 3)
    head = ",".join(("id", "first_name", "last_name", "email", "phone", "date_of_birth", "postcode", "iban", *idk))
    rows = [",".join((str(i), p.first, p.last, p.email, f'"{p.phone}"', p.dob, p.postcode, p.iban,
                      *(p.ids[k] for k in idk))) for i, p in enumerate(people, 1)]
    return head + "\n" + "\n".join(rows) + "\n", _planted(people, ("first", "last", "email", "dob", "iban", *idk))


def json_api(rng: random.Random, people: list[Person]) -> Shape:
    import json
    data = [{"id": f"cus_{_digits(rng, 8)}", "firstName": p.first, "lastName": p.last, "email": p.email,
             "phone": p.phone, "dateOfBirth": p.dob, "address": {"postcode": p.postcode}, "ssn": p.ids["ssn"],
             "bankAccount": {"iban": p.iban}} for p in people]
    return json.dumps({"data": data, "has_more": False}, ensure_ascii=False, indent=2), \
        _planted(people, ("first", "last", "email", "dob", "postcode", "iban", "ssn"))


def _sql(s: str) -> str:
    return s.replace("'", "''")


def sql_insert(rng: random.Random, people: list[Person]) -> Shape:
    out = ["CREATE TABLE customers (id serial, first_name text, last_name text, email text, dob date, nino text);"]
    for i, p in enumerate(people, 1):
        out.append(f"INSERT INTO customers (id, first_name, last_name, email, dob, nino) VALUES "
                   f"({i}, '{_sql(p.first)}', '{_sql(p.last)}', '{p.email}', '{p.dob}', '{p.ids['nino']}');")
    return "\n".join(out) + "\n", _planted(people, ("first", "last", "email", "dob", "nino"))


def sql_multirow(rng: random.Random, people: list[Person]) -> Shape:
    rows = ",\n  ".join(f"({i}, '{_sql(p.first)}', '{_sql(p.last)}', NULL, '{p.dob}', now())"
                        for i, p in enumerate(people, 1))
    text = f"INSERT INTO `customers` (`id`, `first_name`, `last_name`, `middle_name`, `birth_date`, `created_at`) VALUES\n  {rows};\n"
    return text, _planted(people, ("first", "last", "dob"))


def sql_copy(rng: random.Random, people: list[Person]) -> Shape:
    rows = "\n".join(f"{i}\t{p.first}\t{p.last}\t{p.email}\t{p.dob}\t\\N" for i, p in enumerate(people, 1))
    text = ("--\n-- Data for Name: customers; Type: TABLE DATA; Schema: public; Owner: app\n--\n\n"
            "COPY public.customers (id, first_name, last_name, email, date_of_birth, notes) FROM stdin;\n"
            f"{rows}\n\\.\n\n")
    return text, _planted(people, ("first", "last", "email", "dob"))


def sql_update(rng: random.Random, people: list[Person]) -> Shape:
    out = [f"UPDATE customers SET first_name = '{_sql(p.first)}', last_name = '{_sql(p.last)}' WHERE email = '{p.email}';"
           for p in people]
    out += [f"SELECT id FROM customers WHERE last_name = '{_sql(p.last)}' AND first_name = '{_sql(p.first)}';" for p in people]
    return "\n".join(out) + "\n", _planted(people, ("first", "last", "email"))


def yaml_fixture(rng: random.Random, people: list[Person]) -> Shape:
    out = []
    for i, p in enumerate(people, 1):
        out.append(f"customer_{i}:\n  first_name: {p.first}\n  last_name: \"{p.last}\"\n  email: {p.email}\n"
                   f"  phone: \"{p.phone}\"\n  birth_date: {p.dob}\n  postcode: {p.postcode}\n")
    return "".join(out), _planted(people, ("first", "last", "email", "dob", "postcode"))


def django_seed(rng: random.Random, people: list[Person]) -> Shape:
    out = ["from customers.models import Customer\n\n"]
    for p in people:
        out.append(f"Customer.objects.create(first_name={p.first!r}, last_name={p.last!r}, email={p.email!r}, "
                   f"date_of_birth=\"{p.dob}\")\n")
    return "".join(out), _planted(people, ("first", "last", "email", "dob"))


def rails_seed(rng: random.Random, people: list[Person]) -> Shape:
    out = [f"Customer.create!(first_name: \"{p.first}\", last_name: \"{p.last}\", email: \"{p.email}\", "
           f"dob: \"{p.dob}\")\n" for p in people]
    return "".join(out), _planted(people, ("first", "last", "email", "dob"))


def html_table(rng: random.Random, people: list[Person]) -> Shape:
    rows = "".join(f"  <tr><td>{p.first} {p.last}</td><td>{p.email}</td><td>{p.phone}</td></tr>\n" for p in people)
    return (f"<table>\n  <tr><th>Name</th><th>Email</th><th>Phone</th></tr>\n{rows}</table>\n",
            _planted(people, ("email",)))


def vcards(rng: random.Random, people: list[Person]) -> Shape:
    out = [f"BEGIN:VCARD\nVERSION:3.0\nN:{p.last};{p.first};;;\nFN:{p.first} {p.last}\nEMAIL;TYPE=INTERNET:{p.email}\n"
           f"TEL;TYPE=CELL:{p.phone}\nBDAY:{p.dob}\nEND:VCARD\n" for p in people]
    return "".join(out), _planted(people, ("email",))


def mbox(rng: random.Random, people: list[Person]) -> Shape:
    out = [f"From {p.email} Mon Mar  3 10:0{i % 10}:00 2025\nFrom: {p.first} {p.last} <{p.email}>\nTo: support@acme-shop.io\n"
           f"Subject: Order {_digits(rng, 6)}\n\nHi, my phone is {p.phone}.\n\n" for i, p in enumerate(people)]
    return "".join(out), _planted(people, ("email",))


def logfmt(rng: random.Random, people: list[Person]) -> Shape:
    out = [f"ts=2025-03-0{i % 9 + 1}T10:00:00Z level=info msg=\"signup\" user_first_name={p.first} "
           f"user_last_name={p.last.replace(chr(39), '')} email={p.email} dob={p.dob} req_id={_digits(rng, 8)}\n"
           for i, p in enumerate(people)]
    return "".join(out), {"first": [p.first for p in people], "last": [p.last.replace("'", "") for p in people],
                          "email": [p.email for p in people], "dob": [p.dob for p in people]}


def cut_tool_output(rng: random.Random, people: list[Person]) -> Shape:
    p = people[0]
    return f"id: 1\nemail: {p.email}\nfirst_name: {p.first}", _planted([p], ("first", "email"))


SHAPES: dict[str, Callable[[random.Random, list[Person]], Shape]] = {
    "csv-export": csv_export, "json-api": json_api, "sql-insert": sql_insert, "sql-multirow": sql_multirow,
    "sql-copy": sql_copy, "sql-update": sql_update, "yaml-fixture": yaml_fixture, "django-seed": django_seed,
    "rails-seed": rails_seed, "html-table": html_table, "vcard": vcards, "mbox": mbox, "logfmt": logfmt,
    "cut-tool-output": cut_tool_output,
}


def shapes(seed: int, people: int = 6) -> dict[str, Shape]:
    """{shape: (text, planted values)} for one seed."""
    rng = random.Random(seed)
    return {name: make(rng, [person(rng) for _ in range(people)]) for name, make in SHAPES.items()}
