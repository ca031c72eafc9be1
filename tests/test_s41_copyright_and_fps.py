"""s41: a person named as a copyright holder, and two false positives of the secrets pack, in every
session shape of tests/fx_redteam.py, compared byte for byte, with no configured terms.

On main 226c856:
- `Copyright (c) 2024 Thaddeus Okonkwo`, a licence's or a source file's header, kept the holder
  unless the given name was a common one (person-name-given). person-name-copyright takes 2-4
  capitalised words after the year or the (c) sign; a company (`Red Hat, Inc.`, `Google LLC`,
  `Uber Technologies`), `The Go Authors` and a one-word holder stay;
- a diff of a log, `-password authenticated` / `+password expired`, lost the word after "password"
  (cli-password-flag read the flush `-password` as a flag, netrc-diff-password-line the `+` line as
  a .netrc line): words.toml password_states, allowed by both;
- a content digest under a name that says token (`integrity_token: sha512-...`, a table's
  `integrity_token` column, `image_token=sha256:<hex>`) was a SECRET: the hash of public bytes;
- WordPress's login test cookie (`wordpress_test_cookie=WP%20Cookie%20check`), one constant, was a SECRET.
"""

from __future__ import annotations

import pytest

from archiver.redact.base import RedactionReport
from archiver.redact.pseudonym import Pseudonymizer
from archiver.redact.redactor import build_redactor
from archiver.redact.rules import BUILTIN_WORDS, RuntimeTerms, load_rules
from archiver.redact.tables.cells import SECRET, cell_value
from tests.fx_redteam import CARRIERS, expected, redact_in

KEY = b"team-key-for-tests-0123456789abcdef"
PACKS = ["builtin:secrets", "builtin:pii", "builtin:paths", "builtin:names"]
P = Pseudonymizer(KEY)
SRI = "sha512-v2kDEe57lecTulaDIuNTPy3Ry4gLGJ6Z1O3vE1krgXZNrsQ+LFTGHVxVjcXPs17LhbZVGedAJv8XZ1tvj5FvSg=="
DIGEST = "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"


def person(name: str) -> str:
    return P.token("PERSON", name)


@pytest.fixture(scope="module")
def red():  # noqa: ANN201
    return build_redactor(PACKS, KEY, RuntimeTerms())


# (case, text, the holder that must go)
HOLDERS = [
    ("c-line-comment", "// Copyright (c) 2024 Thaddeus Okonkwo\npackage main\n", "Thaddeus Okonkwo"),
    ("years-and-rights", "# Copyright 2019-2023 Ysolde Brannigan. All rights reserved.\nimport os\n", "Ysolde Brannigan"),
    ("mit-licence", "MIT License\n\nCopyright (c) 2022 Zephyrine Abernathy-Quist\n\nPermission is hereby granted\n",
     "Zephyrine Abernathy-Quist"),
    ("sign-and-accents", " * Copyright © 2020 Oisín Ní Bhraonáin\n */\n", "Oisín Ní Bhraonáin"),
    ("initial-and-others", "/*\n * Copyright (C) 2015, 2018 Quillon J. Fakeworth and contributors\n */\n",
     "Quillon J. Fakeworth"),
    ("html-footer", "<footer>© 2023 Marisol van der Fakehuis</footer>\n", "Marisol van der Fakehuis"),
    ("present", "Copyright (c) 2016-present, Ottoline Quarrington\n", "Ottoline Quarrington"),
    ("debian-copyright", "Files: *\nCopyright: 2012-2016 Ottoline Quarrington\nLicense: MIT\n", "Ottoline Quarrington"),
]


@pytest.mark.parametrize("carrier", CARRIERS)
@pytest.mark.parametrize("name,text,holder", HOLDERS, ids=[h[0] for h in HOLDERS])
def test_a_copyright_holder_who_is_a_person_is_replaced(red, name: str, text: str, holder: str, carrier: str) -> None:  # noqa: ANN001
    got, whole = redact_in(red, carrier, text)
    assert got == expected(carrier, text.replace(holder, person(holder)))
    for word in holder.split():
        if len(word) > 2:
            assert word not in whole


KEPT = {
    "llc": "// Copyright (c) 2022 Google LLC\n",
    "the-authors": "// Copyright 2023 The Kubernetes Authors.\n",
    "corporation": "// Copyright (c) Microsoft Corporation. All rights reserved.\n",
    "comma-inc": "/* Copyright (c) 2015-present, Facebook, Inc. */\n",
    "two-words-comma-inc": "# Copyright 2018 Red Hat, Inc.\n",
    "inc-and-affiliates": "# Copyright (c) Meta Platforms, Inc. and affiliates.\n",
    "fsf": "Copyright (C) 2007 Free Software Foundation, Inc. <https://fsf.org/>\n",
    "team": "# Copyright (c) 2016 Jupyter Development Team.\n",
    "technologies": "// Copyright 2018 Uber Technologies, Inc.\n",
    "nv": "Copyright 2020 Elastic N.V.\n",
    "handle": "# Copyright (c) 2024 jdoe-dev\n",
    "prose": "See the Copyright Notice Text for details.\n",
    "university": "Copyright (c) 1995 Katholieke Universiteit Leuven\n",
    "laboratory": "Copyright: 1994 Naval Research Laboratory\n",
    "hogskolan": "Copyright 1999 Kungliga Tekniska Högskolan\n",
    "log-diff-plus": "@@ -3 +3 @@ sshd log\n-password failed\n+password authenticated\n",
    "log-diff-minus": "@@ -9 +9 @@\n-password authenticated\n+password expired\n",
    "sri-yaml": f"integrity_token: {SRI}\n",
    "sri-json": f'{{"resolved": "https://registry.npmjs.org/lodash/-/lodash-4.17.21.tgz", "integrity_token": "{SRI}"}}\n',
    "digest-env": f"IMAGE_TOKEN={DIGEST}\n",
    "sri-table": f"| name | integrity_token |\n|------|-----------------|\n| lodash | {SRI} |\n",
    "sri-csv": f"name,integrity_token\nlodash,{SRI}\n",
    "wordpress-test-cookie": "Cookie: wordpress_test_cookie=WP%20Cookie%20check; wp-settings-1=x\n",
}


@pytest.mark.parametrize("carrier", CARRIERS)
@pytest.mark.parametrize("name", sorted(KEPT))
def test_a_company_a_log_word_and_a_digest_are_kept_byte_for_byte(red, name: str, carrier: str) -> None:  # noqa: ANN001
    got, _ = redact_in(red, carrier, KEPT[name])
    assert got == expected(carrier, KEPT[name])


# what must still go where the new allowances apply
STILL_SECRET = [
    ("netrc-diff", "@@ -2,3 +2,3 @@\n   login bob\n-  password Old-FAKE-pw1\n+  password New-FAKE-pw2\n", "New-FAKE-pw2"),
    ("flag-in-diff", "@@ -1 +1 @@\n-mysql --password=R00t-FAKE-a1\n+mysql --password=R00t-FAKE-b2\n", "R00t-FAKE-b2"),
    ("flag-word-not-a-state", "mysqladmin --password authenticatedFAKE9 status\n", "authenticatedFAKE9"),
    ("token-under-token-column", "| name | api_token |\n|------|-----------|\n| prod | ghx_FAKE0123456789abcdefABCDEF0123 |\n",
     "ghx_FAKE0123456789abcdefABCDEF0123"),
    ("sha-looking-token", "api_token: sha512-notbase64!FAKE0123456789abcdefghij\n", "notbase64!FAKE0123456789"),
]


@pytest.mark.parametrize("name,text,secret", STILL_SECRET, ids=[s[0] for s in STILL_SECRET])
def test_a_secret_beside_the_new_allowances_still_goes(red, name: str, text: str, secret: str) -> None:  # noqa: ANN001
    out = red.redact_bytes(text.encode(), RedactionReport(), "text").decode()
    assert secret not in out
    assert out != text


def test_password_states_is_one_word_list_both_rules_allow() -> None:
    rules = {r.id: r for r in load_rules(["builtin:secrets"])}
    states = BUILTIN_WORDS["password_states"]
    assert {"authenticated", "expired", "failed"} <= states
    for rid in ("cli-password-flag", "netrc-diff-password-line"):
        assert any("authenticated" in a and "expired" in a for a in rules[rid].allowlist), rid


@pytest.mark.parametrize("value,kept", [
    (SRI, True), (DIGEST, True), ("sha1-" + "A" * 27 + "=", True),
    ("sha512-" + "A" * 10, False),  # too short to be a digest
    ("sha256:" + "g" * 64, False),  # not hex
    ("ghx_FAKE0123456789abcdefABCDEF0123", False),
])
def test_a_content_digest_is_no_value_of_a_secret_column(value: str, kept: bool) -> None:
    line = f"| lodash | {value} |".encode()
    a = line.index(value.encode())
    assert (cell_value(line, a, a + len(value), SECRET) is None) is kept


def test_a_rules_allowlist_is_one_program_compiled_on_its_first_candidate_and_shared() -> None:
    """Every engine of a process (redaction, verifier, shape, path ids) used to compile each rule's
    allowlist when built: ~1.5 MB a worker for allowlists most rules never consult. Now it is a
    lazy program of the process, as the rules' own regexes are."""
    from archiver.redact import rules as rules_mod
    from archiver.redact.engine import Engine
    from archiver.redact.rules import parse_pack

    pack = {"pack": {"name": "s41-lazy", "version": 1}, "rules": [{
        "id": "s41-lazy-allow", "regex": r"\bs41lazy=([a-z0-9]{6,})", "keywords": ["s41lazy="],
        "allowlist": [r"^keep[0-9a-z]+s41only$"], "label": "SECRET"}]}
    rules = parse_pack(pack, "s41-lazy.toml")
    a, b = Engine(rules, P), Engine(rules, P)
    (allow_a,), (allow_b,) = a._c[0].allow, b._c[0].allow  # noqa: SLF001
    assert allow_a is allow_b
    pattern = "(?:^keep[0-9a-z]+s41only$)"
    assert allow_a.pattern == pattern and pattern not in rules_mod._PROGRAMS  # noqa: SLF001
    assert a.redact_bytes(b"s41lazy=keep42s41only", None) == b"s41lazy=keep42s41only"
    assert pattern in rules_mod._PROGRAMS  # noqa: SLF001
    out = b.redact_bytes(b"s41lazy=abc123def", None)
    assert out.startswith(b"s41lazy=<SECRET:") and b"abc123def" not in out


def test_a_word_list_entry_is_one_program_for_every_rule_that_holds_it() -> None:
    """`{words:not_surnames}` (~600 words) in the allowlists of three names rules: one program."""
    from archiver.redact.engine import SHARED_ALLOW_ENTRY, Engine

    eng = Engine(load_rules(["builtin:names"]), P)
    allows = {c.rule.id: c.allow for c in eng._c}  # noqa: SLF001
    long_ones = {rid: [a for a in progs if len(a.pattern) >= SHARED_ALLOW_ENTRY] for rid, progs in allows.items()}
    same = [progs[0] for rid, progs in long_ones.items()
            if rid in ("person-name-titled", "person-name-keyed-full", "person-name-copyright")]
    assert len(same) == 3 and same[0] is same[1] is same[2]
    assert "chalmers" not in same[0].pattern and "station" in same[0].pattern.lower()
    for rid, progs in allows.items():  # the short entries of a rule stay one alternation
        assert sum(len(a.pattern) < SHARED_ALLOW_ENTRY for a in progs) <= 1, rid
