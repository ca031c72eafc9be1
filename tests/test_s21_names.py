"""s21 person names in free text: the opt-in pack `builtin:names` (rules/names.toml) finds a name
after a title (`Dr. Rajesh Koothrappali`) or a common given name (rules/words.toml given_names,
`{Words:given_names}` in its regex) before a capitalised surname, and leaves places, products,
named results, code and headings alone (not_surnames, the capitals, the boundaries). The
negatives are drawn from the precision run over site-packages and this repository."""

from __future__ import annotations

import base64
import json
import random
from pathlib import Path

import pytest
import re2

from archiver.redact.base import RedactionReport
from archiver.redact.redactor import build_redactor
from archiver.redact.rules import (LARGE_PATTERN_MAX_MEM, OPTIONAL_PACKS, RuleError, RuntimeTerms, builtin_pack_path, capitalised,
                                   check_packs, expand_word_lists, load_rules, load_word_lists,
                                   rule_program)
from archiver.redact.scan_report import check_examples

KEY = b"s21-names-test-key-0123456789abcdef"
DEFAULT = ["builtin:secrets", "builtin:pii", "builtin:paths"]
WITH_NAMES = [*DEFAULT, "builtin:names"]


@pytest.fixture(scope="module")
def red():  # noqa: ANN201
    return build_redactor(WITH_NAMES, KEY, RuntimeTerms())


def _redact(red, text: str) -> tuple[str, dict[str, int]]:  # noqa: ANN001
    report = RedactionReport()
    return red.redact_text(text, report), report.by_rule()


def _token(text: str, i: int = 0) -> str:
    return re2.findall(r"<PERSON:[0-9a-f]{8}>", text)[i]


# ---------------------------------------------------------------- the three sentences

@pytest.mark.parametrize(("text", "names", "kept_parts"), [
    ("Please ask Margaret Thornton from accounting to approve invoice 4471.", ["Margaret Thornton"],
     ["Please ask ", " from accounting to approve invoice 4471."]),
    ("Meeting with Dr. Rajesh Koothrappali tomorrow at 3pm.", ["Rajesh Koothrappali"],
     ["Meeting with Dr. ", " tomorrow at 3pm."]),
    ("The customer, Ms. Aiko Tanaka, reported the bug; cc Priya Raghunathan and Lars Øberg.",
     ["Aiko Tanaka", "Priya Raghunathan", "Lars Øberg"],
     ["The customer, Ms. ", ", reported the bug; cc ", " and ", "."]),
])
def test_the_names_go_and_the_titles_and_the_rest_stay(red, text: str, names: list[str],  # noqa: ANN001
                                                       kept_parts: list[str]) -> None:
    out, counts = _redact(red, text)
    assert re2.sub(r"<PERSON:[0-9a-f]{8}>", "|", out).split("|") == kept_parts
    for name in names:
        assert name not in out and name.split()[-1] not in out
    assert sum(counts.values()) == len(names)
    assert set(counts) <= {"person-name-given", "person-name-titled"}


def test_without_the_pack_the_sentences_come_out_unchanged() -> None:
    plain = build_redactor(DEFAULT, KEY, RuntimeTerms())
    for text in ("Please ask Margaret Thornton from accounting to approve invoice 4471.",
                 "Meeting with Dr. Rajesh Koothrappali tomorrow at 3pm."):
        assert _redact(plain, text) == (text, {})


@pytest.mark.parametrize(("text", "name"), [
    ("Jean-Luc Picard approved it", "Jean-Luc Picard"),
    ("ask Mary O'Neil first", "Mary O'Neil"),
    ("Ana de la Cruz, Gabriel García Márquez", "Ana de la Cruz"),
    ("Ana de la Cruz, Gabriel García Márquez", "Gabriel García Márquez"),
    ("written by John F. Kennedy.", "John F. Kennedy"),
    ("Herr Müller und Frau Schäfer", "Müller"),
    ("reviewed by Łukasz Żółkiewski", "Łukasz Żółkiewski"),
    ("from Şule Yılmaz", "Şule Yılmaz"),
    ("(Åsa Lindqvist)", "Åsa Lindqvist"),
])
def test_name_shapes_are_taken_whole(red, text: str, name: str) -> None:  # noqa: ANN001
    out, _ = _redact(red, text)
    assert name not in out
    assert all(part not in out.split() for part in name.split() if len(part) > 2 and part[0].isupper())


# ---------------------------------------------------------------- what stays

NEGATIVES = [
    # code and identifiers
    "class JohnDoeFactory: MaxRetries = 3",
    "victor_stinner = Margaret_Thornton()",
    "const aliceClient = new AliceClient()",
    "Alice Client connects to Bob Server",
    # ALL CAPS, lower case
    "MARGARET THORNTON APPROVED",
    "margaret thornton approved",
    # products and projects (the first word no given name, or the second a product word)
    "Apache Kafka, Jupyter Notebook and Django REST framework",
    "install Hugo Server and Victor Mono",
    "Bitstream Vera Sans Mono",
    "Igor Pro procedures",
    "Nur Telecom",
    # places (phonenumbers' geocoding data, addresses)
    "Beverly Hills, CA",
    "San Luis Obispo",
    "Bryn Mawr, PA",
    "Wesley Chapel, FL",
    "Victoria Station",
    "Ann Arbor, Michigan",
    "Sydney Harbour Bridge",
    "meet at Florence Street 4",
    "Travis Air Force Base",
    # named results and styles
    "Extra Strong Lucas Pseudoprimes",
    "the Mathieu Sine function",
    "Jordan Normal Form",
    "Xavier Uniform initialisation",
    # months, headings, placeholders, sentences after an initial
    "Januari Februari Mac April Mei Jun Julai",
    "## Julian Day Numbers",
    "John Doe and Jane Roe are placeholders",
    "Erika Mustermann",
    "counting cliques in M. The subgraphs",
    "2^M. Otherwise try a higher precision",
    "Sr. Software Engineer",
    # a name in a path or URL is the path rules' (a folder name is no prose)
    "cat /srv/docs/MargaretThornton/notes.txt",
    # everyday-word first names stay unmatched without a title
    "Will Smith said Grace Period ends",
    "Mark Done and Grant Access",
]


@pytest.mark.parametrize("text", NEGATIVES)
def test_not_a_name(red, text: str) -> None:  # noqa: ANN001
    out, counts = _redact(red, text)
    assert not {"person-name-given", "person-name-titled"} & set(counts), (text, out)


# ---------------------------------------------------------------- a Claude Code session

def test_a_claude_user_message_gets_one_pseudonym_per_name(red, tmp_path: Path) -> None:  # noqa: ANN001
    text = ("Margaret Thornton from accounting asked for invoice 4471; Dr. Rajesh Koothrappali agrees. "
            "Reply to Margaret Thornton by Friday.")
    record = {"type": "user", "message": {"role": "user", "content": text},
              "uuid": "6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f", "parentUuid": None,
              "sessionId": "0c0ffee0-1111-4222-8333-444455556666", "timestamp": "2026-03-02T10:11:12.345Z",
              "cwd": "/srv/work/invoices"}
    src, dst = tmp_path / "s.jsonl", tmp_path / "out.jsonl"
    src.write_bytes(json.dumps(record, ensure_ascii=False).encode() + b"\n")
    report = RedactionReport()
    red.redact_file(src, dst, "jsonl", report)
    out = json.loads(dst.read_bytes())
    content = out["message"]["content"]
    assert "Margaret" not in content and "Thornton" not in content and "Koothrappali" not in content
    tokens = re2.findall(r"<PERSON:[0-9a-f]{8}>", content)
    assert len(tokens) == 3 and tokens[0] == tokens[2] != tokens[1]
    assert content.startswith(tokens[0] + " from accounting asked for invoice 4471; Dr. ")
    assert {k: v for k, v in out.items() if k != "message"} == {k: v for k, v in record.items() if k != "message"}
    assert report.by_rule() == {"person-name-given": 2, "person-name-titled": 1}


# ---------------------------------------------------------------- ids, SHAs, base64

def test_ids_shas_and_base64_are_untouched(red) -> None:  # noqa: ANN001
    b64 = base64.b64encode(b"notes: Margaret Thornton and Priya Raghunathan met Lars Oberg\n" * 3).decode()
    text = (f"commit 3bbe049f5ca35c5c888b64a5553aa1b168696370 toolu_01MargaretThornton "
            f"6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f sha256:{'ab' * 32} blob {b64}")
    assert _redact(red, text) == (text, {})


def test_a_name_in_base64_makes_no_run_a_secret() -> None:
    """A finding of the names pack counts under `names`, which no decode rule lists: the base64 of
    a README that names its authors is no secret (were it counted as `custom`, the built-in
    base64-decoded-secret would replace the whole run)."""
    from archiver.redact.rules import decode_class

    rules = load_rules(WITH_NAMES)
    assert {decode_class(r) for r in rules if r.pack == "names"} == {"names"}


# ---------------------------------------------------------------- the pack and the word lists

def test_the_pack_is_in_the_default_list_and_its_examples_hold() -> None:
    from archiver.config import RedactionSettings

    assert RedactionSettings().rules == [*DEFAULT, "builtin:names"]
    assert OPTIONAL_PACKS == ("names",)
    rules = [r for r in load_rules(["builtin:names"]) if r.pack == "names"]
    assert [r.id for r in rules] == ["person-name-titled", "person-name-given", "person-name-keyed",
                                     "person-name-keyed-full", "person-name-copyright"]  # the keyed two: s24; copyright: s41
    assert all(r.confidence == "medium" and r.label == "PERSON" and r.replace == "token" for r in rules)
    assert check_examples(rules) == []
    assert check_packs(WITH_NAMES) is None


def test_the_word_lists_are_clean() -> None:
    lists = load_word_lists(builtin_pack_path("words"))
    given, not_surnames = lists["given_names"], lists["not_surnames"]
    assert 1500 <= len(given) <= 3500 and len(not_surnames) >= 300
    assert not given & lists["common_word_first_names"]
    # everyday words and words of code are taken only after a title
    for word in ("will", "grace", "julia", "ada", "ruby", "pascal", "claude", "iris", "shannon", "max",
                 "mark", "chase", "dash", "jest", "flask", "paris", "georgia", "sage", "crystal"):
        assert word not in given, word
    for name in ("margaret", "priya", "lars", "aiko", "jean-luc", "xiaoming", "oluwaseun", "mehmet", "søren"):
        assert name in given, name


def test_capitalised_word_lists_expand_in_a_regex() -> None:
    assert capitalised("jean-luc") == "Jean-Luc" and capitalised("øberg") == "Øberg"
    pattern = expand_word_lists("^{Words:given_names}$")
    assert "Jean\\-Luc" in pattern and "Margaret" in pattern and "margaret" not in pattern
    assert re2.search(pattern, "Søren") and not re2.search(pattern, "søren")


def test_an_unknown_word_list_in_a_regex_is_refused_naming_pack_and_rule(tmp_path: Path) -> None:
    pack = tmp_path / "team.toml"
    pack.write_text("[pack]\nname = \"team-s21\"\nversion = 1\n\n[[rules]]\nid = 'team-name'\n"
                    "regex = '''\\b({Words:first_names} [A-Z][a-z]+)'''\n")
    with pytest.raises(RuleError) as e:
        load_rules([str(pack)])
    assert str(e.value).startswith(f"{pack}: rule 'team-name': unknown word list {{Words:first_names}} in the regex")


def test_a_team_pack_may_use_the_given_names(tmp_path: Path) -> None:
    pack = tmp_path / "team.toml"
    pack.write_text("[pack]\nname = \"team-s21\"\nversion = 1\n\n[[rules]]\nid = 'team-signoff'\n"
                    "regex = '''--[ ]({Words:given_names})\\b'''\nconfidence = 'medium'\n")
    red = build_redactor([str(pack)], KEY, RuntimeTerms())
    out, counts = _redact(red, "thanks -- Priya\nsee -- Will")
    assert "Priya" not in out and out.endswith("see -- Will") and counts == {"team-signoff": 1}


# ---------------------------------------------------------------- cost

def _dfa_ran_out(pattern: str, text: bytes, budget: int, capfd: pytest.CaptureFixture[str]) -> bool:
    opts = re2.Options()
    opts.log_errors = True
    opts.max_mem = budget
    rx = re2.compile(pattern, opts)._regexp  # noqa: SLF001
    capfd.readouterr()
    rx.Match(re2._Anchor.UNANCHORED, text, 0, len(text))  # noqa: SLF001
    return "DFA out of memory" in capfd.readouterr().err


def _unicode_classes(regex: str) -> str:
    out = regex.replace("[A-Z\\x{C0}-\\x{D6}\\x{D8}-\\x{DE}ĀĂĄĆČĎĐĒĖĘĚĞĢĪĮİĶĹĻĽŁŃŅŇŌŐŒŔŘŚŞŠŢŤŪŮŰŲŸŹŻŽȘȚ]", "\\p{Lu}")
    out = out.replace("[a-z\\x{DF}-\\x{F6}\\x{F8}-\\x{FF}\\x{100}-\\x{24F}]", "[\\p{Ll}\\pM]")
    assert out != regex
    return out


def test_the_latin_ranges_keep_the_dfa_within_re2s_default_budget(capfd: pytest.CaptureFixture[str]) -> None:
    """With \\p{Lu}/\\p{Ll} behind the 3,000-name alternation RE2's DFA ran out of its default 8 MB
    on ordinary text (this project's code and docs) and fell back to the NFA (~1 MB/s on
    site-packages text); the Latin ranges keep it within."""
    root = Path(__file__).resolve().parent.parent
    text = "".join(p.read_text("utf-8") for p in sorted((root / "archiver").rglob("*.py")))
    text += "".join(p.read_text("utf-8") for p in sorted((root / "docs").glob("*.md")))
    regex = load_rules(["builtin:names"])[1].regex
    assert not _dfa_ran_out(regex, text.encode(), 8 << 20, capfd)
    assert _dfa_ran_out(_unicode_classes(regex), text.encode(), 8 << 20, capfd)


def test_a_text_dense_with_names_keeps_a_dfa_under_the_large_pattern_budget(capfd: pytest.CaptureFixture[str]) -> None:
    """Every other word a given name (a contributors file, a CSV of customers): the DFA outgrows
    8 MB, so rule_program gives the expanded regex 32 MB, where it stays a DFA."""
    rng = random.Random(21)
    given = sorted(load_word_lists(builtin_pack_path("words"))["given_names"])
    # no match anywhere, so the search runs to the end: every name is followed by a lower-case or
    # ALL-CAPS word, or by a surname glued to a digit or `_` (`Thornton2`), which no name ends with
    tails = ["the", "fixed", "and", "review", "BUILD", "ÅNGSTRÖM", "Thornton2", "Øberg_x", "Śmith7", "Ørsted_x"]
    text = (" ".join(f"{capitalised(rng.choice(given))} {rng.choice(tails)}" for _ in range(20_000)) + "\n").encode()
    regex = load_rules(["builtin:names"])[1].regex
    assert not re2.search(regex, text)
    assert rule_program(regex).options.max_mem == LARGE_PATTERN_MAX_MEM == 32 << 20
    assert rule_program("(acme_[0-9]{8})").options.max_mem == 8 << 20
    assert _dfa_ran_out(regex, text, 8 << 20, capfd)
    assert not _dfa_ran_out(regex, text, LARGE_PATTERN_MAX_MEM, capfd)
