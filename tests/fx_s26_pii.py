"""s26 PII shapes: customer data in structured text that s25 left open, generated from a seeded RNG
(names outside words.toml given_names where the format, not the name, must tell): mysqldump with
its CREATE TABLE and an INSERT with no column list, a single logfmt pair in a log line, vCards with
N:/FN:, mail headers with quoted display names, HTML author markup, package metadata, and a diff of
a CSV with a card_number column. Each shape comes with the values a redactor should remove."""

from __future__ import annotations

import random
from typing import Callable

from tests.fx_redact import luhn_complete
from tests.fx_s19_pii import nino

# given names and surnames in no word list: only the format says they are names
RARE_FIRST = ("Zephyrine", "Xiomara", "Thaddeus", "Ottilie", "Benedek", "Ysolde", "Caoimhe", "Leocadia")
RARE_LAST = ("Quillfeather", "Brackenridge", "Okonkwo-Bright", "Vanderslice", "Szalontai", "Pemberton", "Ashdown")

Shape = tuple[str, dict[str, list[str]]]


def _who(rng: random.Random) -> tuple[str, str, str]:
    first, last = rng.choice(RARE_FIRST), rng.choice(RARE_LAST)
    return first, last, f"{first.lower()[:4]}.{rng.randint(10, 999)}@{rng.choice(('web.de', 'corp-mail.net'))}"


def mysqldump(rng: random.Random, n: int) -> Shape:
    people = [_who(rng) for _ in range(n)]
    ninos = [nino(rng)[0] for _ in range(n)]
    dobs = [f"{rng.randint(1940, 2004)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}" for _ in range(n)]
    rows = ",".join(f"({i},'{f}','{last.replace(chr(39), chr(92) + chr(39))}','{mail}','{d}','{ni}','Pro')"
                    for i, ((f, last, mail), d, ni) in enumerate(zip(people, dobs, ninos), 1))
    text = ("-- MySQL dump 10.13  Distrib 8.0.36\n--\n-- Table structure for table `customers`\n--\n\n"
            "DROP TABLE IF EXISTS `customers`;\n/*!40101 SET character_set_client = utf8mb4 */;\n"
            "CREATE TABLE `customers` (\n  `id` int NOT NULL AUTO_INCREMENT,\n  `first_name` varchar(50) DEFAULT NULL,\n"
            "  `last_name` varchar(50) DEFAULT NULL,\n  `email` varchar(100) NOT NULL,\n  `dob` date DEFAULT NULL,\n"
            "  `ni_number` varchar(13) DEFAULT NULL,\n  `plan` varchar(10) DEFAULT 'Free',\n  PRIMARY KEY (`id`),\n"
            "  UNIQUE KEY `email` (`email`)\n) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;\n\n"
            "LOCK TABLES `customers` WRITE;\n/*!40000 ALTER TABLE `customers` DISABLE KEYS */;\n"
            f"INSERT INTO `customers` VALUES {rows};\n/*!40000 ALTER TABLE `customers` ENABLE KEYS */;\nUNLOCK TABLES;\n")
    return text, {"first": [p[0] for p in people], "last": [p[1] for p in people], "email": [p[2] for p in people],
                  "dob": dobs, "nino": ninos}


def logfmt_single(rng: random.Random, n: int) -> Shape:
    people = [_who(rng) for _ in range(n)]
    text = "".join(f"2025-03-0{i % 9 + 1} 10:00:0{i % 10} INFO signup accepted for first_name={f} after 2 retries\n"
                   f"2025-03-0{i % 9 + 1} 10:00:0{i % 10} WARN mail bounced user_email={m} status=550\n"
                   for i, (f, _l, m) in enumerate(people))
    return text, {"first": [p[0] for p in people], "email": [p[2] for p in people]}


def vcards(rng: random.Random, n: int) -> Shape:
    people = [_who(rng) for _ in range(n)]
    text = "".join(f"BEGIN:VCARD\r\nVERSION:3.0\r\nN:{last};{f};;;\r\nFN;CHARSET=UTF-8:{f} {last}\r\n"
                   f"EMAIL;TYPE=INTERNET:{m}\r\nEND:VCARD\r\n" for f, last, m in people)
    return text, {"first": [p[0] for p in people], "last": [p[1] for p in people]}


def mail_headers(rng: random.Random, n: int) -> Shape:
    people = [_who(rng) for _ in range(n)]
    text = "".join(f'From: "{f} {last}" <{m}>\nTo: "{last}, {f}" <{m}>\nSubject: Re: order\n\nthanks\n\n'
                   for f, last, m in people)
    return text, {"first": [p[0] for p in people], "last": [p[1] for p in people]}


def html_authors(rng: random.Random, n: int) -> Shape:
    people = [_who(rng) for _ in range(n)]
    text = "".join(f'<meta name="author" content="{f} {last}">\n<article><span class="author">{f} {last}</span>\n'
                   f'<div class="h-card"><span class="p-name">{f} {last}</span></div></article>\n'
                   for f, last, _m in people)
    return text, {"first": [p[0] for p in people], "last": [p[1] for p in people]}


def package_metadata(rng: random.Random, n: int) -> Shape:
    a, b, c = _who(rng), _who(rng), _who(rng)
    text = (f'[project]\nname = "acme-tool"\nmaintainers = [{{name = "{a[0]} {a[1]}"}}]\n\n'
            f'setup(name="acme-tool", author="{b[0]} {b[1]}", maintainer="{c[0]} {c[1]}")\n'
            f'__author__ = "{a[0]} {a[1]}"\n')
    return text, {"first": [a[0], b[0], c[0]], "last": [a[1], b[1], c[1]]}


def card_diff(rng: random.Random, n: int) -> Shape:
    cards = [luhn_complete("4" + "".join(rng.choice("0123456789") for _ in range(14))) for _ in range(n)]
    rows = "".join(f"{'+-'[i % 2]}{1000 + i},{rng.randint(1, 9)},{c},{rng.randint(1, 999)}.{rng.randint(10, 99)}\n"
                   for i, c in enumerate(cards))
    text = (f"diff --git a/pay.csv b/pay.csv\n--- a/pay.csv\n+++ b/pay.csv\n@@ -1,{n} +1,{n} @@\n"
            f" order_id,qty,card_number,amount\n{rows}")
    return text, {"card": cards}


SHAPES: dict[str, Callable[[random.Random, int], Shape]] = {
    "mysqldump": mysqldump, "logfmt-single": logfmt_single, "vcard": vcards, "mail-headers": mail_headers,
    "html-authors": html_authors, "package-metadata": package_metadata, "card-diff": card_diff,
}


def shapes(seed: int, n: int = 5) -> dict[str, Shape]:
    rng = random.Random(seed)
    return {name: make(rng, n) for name, make in SHAPES.items()}
