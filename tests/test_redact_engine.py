"""Rule loading and the one-pass engine: validation, runtime terms, decoys, overlaps, exactness."""

from __future__ import annotations

import base64
import hashlib
import random
import textwrap
from pathlib import Path

import pytest

from archiver.redact.base import RedactionReport
from archiver.redact.engine import MODE_ALL, MODE_IDS, MODE_KEYS, MODE_PATHS, Engine, whole_id
from archiver.redact.pseudonym import Pseudonymizer
from archiver.redact.redactor import build_redactor
from archiver.redact.rules import RuleError, RuntimeTerms, load_rules, parse_pack
from archiver.redact.scan_report import check_examples, list_rules

KEY = b"team-key-for-tests-0123456789abcdef"
BUILTIN = ["builtin:secrets", "builtin:pii", "builtin:paths"]
AWS = "AKIAQYLPMN5HHHFPZAM2"
GHP = "ghp_R8fJ2kLm9QwErTyUiOpAsDfGhJkLzXcVbN12"
UUID = "0d4f5b8e-9c3a-4e7b-8f21-6a5d3c2b1e0f"
GIT_SHA = "3f786850e387550fdab836ed7e6dc881de23001b"
SHA256 = hashlib.sha256(b"x").hexdigest()
PNG_B64 = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4).decode()


def _pack(tmp_path: Path, name: str, body: str, file: str | None = None) -> str:
    p = tmp_path / (file or f"{name}.toml")
    p.write_text(f'[pack]\nname = "{name}"\nversion = 1\n' + textwrap.dedent(body), "utf-8")
    return str(p)


def _engine(rules_toml: str, tmp_path: Path, terms: RuntimeTerms | None = None) -> Engine:
    return Engine(load_rules([_pack(tmp_path, "acme", rules_toml)], terms), Pseudonymizer(KEY))


# ---------------------------------------------------------------- loading


@pytest.mark.parametrize(
    "body, needle",
    [
        ("[[rules]]\nid = 'x'\nregex = 'a(b)'\nlabell = 'X'\n", "unknown key 'labell'"),
        ("[[rules]]\nid = 'x'\nregex = 'a(b'\n", "bad regex"),
        ("[[rules]]\nid = 'x'\nregex = 'a(?=b)'\n", "bad regex"),
        ("[[rules]]\nid = 'x'\nregex = 'ab'\n[[rules]]\nid = 'x'\nregex = 'cd'\n", "duplicate rule id"),
        ("[[rules]]\nid = 'x'\nregex = 'a(b)'\nsecret_group = 2\n", "secret_group"),
        ("[[rules]]\nid = 'x'\nregex = 'ab'\nvalidator = 'md5'\n", "unknown validator"),
        ("[[rules]]\nid = 'x'\nregex = 'ab'\nkeywords = ['AB']\n", "lowercase"),
        ("[[rules]]\nid = 'x'\nregex = 'a*'\n", "empty string"),
        ("[[rules]]\nid = 'x'\nregex = 'ab'\nreplace = 'delete'\n", "replace"),
        ("[[rules]]\nid = 'x'\nregex = 'ab'\nallowlist = ['(']\n", "allowlist"),
        ("[[rules]]\nid = 'x'\nregex = 'ab'\nlabel = 'lower'\n", "label"),
        ("[[rules]]\nid = 'x'\nregex = 'a(b)'\nsame_as = 1\n", "same_as"),
        ("[[rules]]\nid = 'x'\nregex = 'a(b)(c)'\nsame_as = 3\n", "same_as"),
    ],
)
def test_bad_rules_name_file_and_rule(tmp_path: Path, body: str, needle: str) -> None:
    path = _pack(tmp_path, "mine", body)
    with pytest.raises(RuleError) as exc:
        load_rules([path])
    msg = str(exc.value)
    assert needle in msg and path in msg and "'x'" in msg


def test_pack_level_errors(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('[pack]\nname = "p"\nversion = 1\nowner = "me"\n', "utf-8")
    with pytest.raises(RuleError, match="unknown key 'owner'"):
        load_rules([str(bad)])
    with pytest.raises(RuleError, match="not found|cannot read"):
        load_rules([str(tmp_path / "missing.toml")])
    with pytest.raises(RuleError, match="unknown builtin"):
        load_rules(["builtin:nope"])
    a = _pack(tmp_path, "a", "[[rules]]\nid = 'same'\nregex = 'ab'\n", "a.toml")
    b = _pack(tmp_path, "b", "[[rules]]\nid = 'same'\nregex = 'cd'\n", "b.toml")
    with pytest.raises(RuleError, match="duplicate id") as exc:
        load_rules([a, b])
    assert b in str(exc.value) and a in str(exc.value)
    c = _pack(tmp_path, "c", "[[rules]]\nid = 'user-username'\nregex = 'cd'\n", "c.toml")
    with pytest.raises(RuleError, match="reserved"):
        load_rules([c], RuntimeTerms(usernames=["alice"]))


def test_builtin_packs_load_and_their_examples_hold() -> None:
    rules = load_rules(BUILTIN, RuntimeTerms(usernames=["alice"]))
    assert len({r.id for r in rules}) == len(rules) > 50
    assert {"secrets", "pii", "paths", "runtime"} <= {r.pack for r in rules}
    assert check_examples([r for r in rules if not r.generated]) == []
    listed = list_rules(rules)
    assert listed[0]["id"] == rules[0].id and "regex" not in listed[0]


# ---------------------------------------------------------------- runtime terms


def test_username_is_bounded_by_non_alphanumerics(tmp_path: Path) -> None:
    eng = _engine("", tmp_path, RuntimeTerms(usernames=["alice"]))
    user = Pseudonymizer(KEY).username("alice")
    for text in ("-home-alice-proj", "--home-alice-proj--", "alice@host", "ALICE", "/home/alice/x",
                 "alice-dev", "alice-alice", "é alice é", "alice.github.io",
                 # a name that is no everyday word is the name in an identifier too (a folder
                 # `alice_backup`, `ALICE_HOME`); words like `max` are not (test_redact_people)
                 "alice_dev", "get_alice", "ALICE_HOME", "obj.alice", "alice("):
        out = eng.redact(text, None)
        assert "alice" not in out.lower() and user in out, text
    assert eng.redact("alice-alice", None) == f"{user}-{user}"
    assert eng.redact("alice_dev", None) == f"{user}_dev"
    # inside a longer word it is another word
    for text in ("malice", "palace", "alicex", "xalice", "alicé", "1alice"):
        assert eng.redact(text, None) == text


def test_generic_and_short_usernames(tmp_path: Path) -> None:
    rules = load_rules([], RuntimeTerms(usernames=["root", "ubuntu", "ab"], home_dirs=["/home/ab", "/root"]))
    assert [r.id for r in rules] == ["user-home-1"]
    eng = Engine(rules, Pseudonymizer(KEY))
    user = Pseudonymizer(KEY).username("ab")
    assert eng.redact("cd /home/ab/x; echo root ab", None) == f"cd /home/{user}/x; echo root ab"
    assert eng.redact("~/.claude/projects/-home-ab-app/", None) == f"~/.claude/projects/-home-{user}-app/"


def test_names_and_extra_terms(tmp_path: Path) -> None:
    eng = _engine("", tmp_path, RuntimeTerms(names=["Alice Smith"], extra_terms=["acme-corp", "git.corp.example"]))
    p = Pseudonymizer(KEY)
    name_tok = p.token("NAME", b"alice smith")
    for text in ("Alice Smith", "alice smith", "ALICE SMITH"):
        assert eng.redact(f"by {text}.", None) == f"by {name_tok}."
    assert "<NAME:" in eng.redact("alice.smith@x", None)
    assert eng.redact("see acme-corp and ACME-CORP", None).count(p.token("TERM", b"acme-corp")) == 2
    assert eng.redact("acme-corporation", None) == "acme-corporation"
    assert "<TERM:" in eng.redact("clone git.corp.example/app", None)



def test_name_variants_share_the_pseudonym_of_the_configured_name(tmp_path: Path) -> None:
    eng = _engine("", tmp_path, RuntimeTerms(names=["Zelda Quixote", "Li Wu"]))
    p = Pseudonymizer(KEY)
    tok = p.token("NAME", b"zelda quixote")
    for text in ("Zelda Quixote", "ZeldaQuixote", "zelda_quixote", "Quixote, Zelda", "QUIXOTE ZELDA",
                 "Z. Quixote", "Z.Quixote", "zquixote", "z_quixote",
                 "Zelda\u00a0Quixote", "Zelda\u202fQuixote", "Quixote,\u3000Zelda", "Z.\u00a0Quixote"):
        assert eng.redact(f"by {text}.", None) == f"by {tok}.", text
    # an initial needs a dot or nothing between: "I'm Quixote" / "Z Quixote" are no initials
    for text in ("I'm Quixote here", "Z Quixote", "Quixotesque", "zelda alone", "Zeldas"):
        assert eng.redact(text, None) == text
    # the first name alone, as written (test_redact_people), has the full name's pseudonym
    assert eng.redact("Zelda alone", None) == f"{tok} alone"
    # a last name under 4 letters gets no initial form ("lwu" would be too common a shape)
    assert eng.redact("Wu, Li and Li-Wu", None) == "{0} and {0}".format(p.token("NAME", b"li wu"))
    assert eng.redact("L. Wu and lwu", None) == "L. Wu and lwu"

def test_for_current_user(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr("getpass.getuser", lambda: "carol")
    monkeypatch.setattr(Path, "home", classmethod(lambda cls: Path("/home/carol")))
    terms = RuntimeTerms.for_current_user(usernames=["carol", "dave"], extra_terms=["acme"])
    assert terms.usernames == ["carol", "dave"] and terms.home_dirs == ["/home/carol"]
    assert terms.extra_terms == ["acme"]
    rules = load_rules([], terms)
    assert {r.id for r in rules} == {"user-username", "extra-term-1"}


# ---------------------------------------------------------------- engine behaviour


CUSTOM = """
[[rules]]
id = "long-secret"
regex = '''secret=([A-Za-z0-9]{10,})'''
keywords = ["secret="]
entropy = 3.0
allowlist = ['''(?i)example''']
label = "SECRET"
confidence = "medium"

[[rules]]
id = "short-prefix"
regex = '''(secret=[A-Za-z]{4})'''
keywords = ["secret="]
label = "PREFIX"
confidence = "high"

[[rules]]
id = "card"
regex = '''\\b([0-9]{4}(?: ?[0-9]{4}){3})\\b'''
keywords = ["4"]
validator = "luhn"
label = "CARD"
replace = "mask"

[[rules]]
id = "kw-gated"
regex = '''(zz[0-9]{6})'''
keywords = ["token"]
label = "ZZ"
"""


def test_filters_overlaps_and_keyword_gate(tmp_path: Path) -> None:
    pytest.importorskip("archiver.redact.validators")
    eng = _engine(CUSTOM, tmp_path)
    p = Pseudonymizer(KEY)
    # longest wins when it covers the shorter candidate
    out = eng.redact("x secret=Ab3dEf9hIjK2 y", None)
    assert out == f"x secret={p.token('SECRET', b'Ab3dEf9hIjK2')} y"
    # entropy too low / allowlisted: only the shorter rule remains
    assert eng.redact("secret=aaaaaaaaaaaa", None).startswith(p.token("PREFIX", b"secret=aaaa"))
    assert eng.redact("secret=EXAMPLEexample1", None).startswith(p.token("PREFIX", b"secret=EXAM"))
    # validator + mask
    assert eng.redact("card 4111 1111 1111 1111 ok", None) == "card <REDACTED:CARD> ok"
    assert eng.redact("card 4111 1111 1111 1112 ok", None) == "card 4111 1111 1111 1112 ok"
    # keyword gate: the regex alone would match, but no keyword -> not tried
    assert eng.redact("id zz123456", None) == "id zz123456"
    assert eng.redact("token zz123456", None) == f"token {p.token('ZZ', b'zz123456')}"


def test_partial_overlap_replaces_the_union(tmp_path: Path) -> None:
    eng = _engine("""
[[rules]]
id = "left"
regex = '''(xxxx[0-9]{4})'''
keywords = ["xxxx"]
label = "LEFT"
confidence = "low"
[[rules]]
id = "right"
regex = '''([0-9]{2}yyyy)'''
keywords = ["yyyy"]
label = "RIGHT"
confidence = "high"
""", tmp_path)
    ms = eng.scan("x xxxx1234yyyy y")
    assert [(m.rule_id, m.start, m.end) for m in ms] == [("right", 2, 14)]
    assert eng.redact("x xxxx1234yyyy y", None) == f"x {Pseudonymizer(KEY).token('RIGHT', b'xxxx1234yyyy')} y"


def test_str_offsets_are_characters(tmp_path: Path) -> None:
    eng = _engine("", tmp_path, RuntimeTerms(usernames=["alice"]))
    text = "→ é /home/alice/x"
    (m,) = eng.scan(text)
    assert text[m.start:m.end] == "alice"
    (mb,) = eng.scan(text.encode())
    assert text.encode()[mb.start:mb.end] == b"alice"


@pytest.fixture(scope="module")
def builtin() -> Engine:
    return Engine(load_rules(BUILTIN, RuntimeTerms(usernames=["alice"], names=["Bob Stone"])), Pseudonymizer(KEY))


def test_decoys_stay_byte_identical(builtin: Engine) -> None:
    decoys = [
        f"id {UUID} commit {GIT_SHA} short {GIT_SHA[:7]} digest sha256:{SHA256}",
        f"![shot](data:image/png;base64,{PNG_B64})",
        PNG_B64,
        "toolu_01ABCdefGHIjklMNOpqrSTUv msg_01XyZ123abcDEF456ghiJK req_011CWd7pYxQzN1a2B3c4D5e6",
        "call_Zx81mK2Jq9LmW3nT7bR4cV5d fc_68a1b2c3d4e5f60718293a4b5c6d7e8f",
        "version 1.2.3.4 at 2025-10-26T12:34:56.789Z, 12:34:56, std::vector<int>",
        "<AWS_ACCESS_KEY:9c01d2e4> /home/user-5f2a/x <REDACTED:CARD>",
    ]
    for text in decoys:
        assert builtin.redact(text, None) == text, text


def _minified_svg_path(rnd: random.Random) -> str:
    """Path data as SVGO writes it: leading zeros dropped, so `43.6.59.52` is 43.6, .59, .52."""
    def num() -> str:
        v = rnd.choice([rnd.uniform(-300, 300), rnd.uniform(0, 1), float(rnd.randint(0, 255))])
        t = f"{v:.{rnd.randint(0, 3)}f}"
        return t.replace("0.", ".", 1) if t.startswith(("0.", "-0.")) else t
    out = ["M" + num()]
    for _ in range(rnd.randint(3, 30)):
        out.append(rnd.choice("MLHVCSQTAZmlhvcsqtaz"))
        sep = ""
        for _ in range(rnd.randint(1, 7)):
            n = num()
            if not sep and out[-1][-1].isdigit() and not n.startswith((".", "-")):
                sep = " "
            out.append(sep + n)
            sep = rnd.choice(["", " ", ","])
    return "".join(out)


def test_minified_svg_path_data_is_not_taken_for_ip_addresses(builtin: Engine) -> None:
    rnd = random.Random(5)
    paths = [_minified_svg_path(rnd) for _ in range(3000)]
    # the generator does make dotted runs that read as public IPv4 addresses (the point of the test)
    assert sum(1 for d in paths if builtin.scan(f"ip {d}")) > 5
    for d in paths:
        for text in (f'<path fill="none" d="{d}"/>', f"<path d='{d}'/>"):
            assert builtin.redact(text, None) == text, text
    assert builtin.redact('<polygon points="0,0 12.34.56.78 5,5"/>', None) == '<polygon points="0,0 12.34.56.78 5,5"/>'
    # an address in an attribute that is no path data is still one
    assert "93.184.216.34" not in builtin.redact('<a href="http://93.184.216.34/" d="x">', None)


def test_planted_secrets_replaced_and_tokens_inert(builtin: Engine) -> None:
    text = (f"AWS_ACCESS_KEY_ID={AWS}\nexport GITHUB_TOKEN={GHP}\nmail bob.stone@northwind-traders.com\n"
            f"cd /home/alice/app && ls ~alice\nBob Stone wrote it\n"
            "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAq7BFUpkGp3+LQmlQZx1Yc8vR2nT0kL3mW9pQ4sX7uE5aB6dC\n"
            "-----END RSA PRIVATE KEY-----\n")
    rep = RedactionReport()
    out = builtin.redact(text, rep, "text")
    for secret in (AWS, GHP, "northwind", "alice", "Bob Stone", "MIIEowIBAAKCAQEA"):
        assert secret not in out
    assert out.count("\n") == text.count("\n") or "PRIVATE_KEY" in out
    assert sum(rep.by_rule().values()) >= 6 and set(rep.by_carrier()) == {"text"}
    # idempotent: a redacted text matches nothing any more
    assert builtin.scan(out) == []
    assert builtin.redact(out, None) == out


def _random_parts(rng: random.Random) -> list[bytes]:
    frags = ["tok1234", "end123", "key: abcde", "=ABCDEF", " QWERTY", "begin", "finish", "\n", "\\n", " ", "\"",
             "/home/alice/x", "-home-alice-p", "alice", "malice", "bob.stone@northwind.io", "Bob Stone", "é", "→",
             "4111 1111 1111 1111", AWS, GHP, UUID, "81.2.69.160", "+14155550123", "user-1a2b", "<EMAIL:1234abcd>",
             "iVBORw0KGgo" + "A" * 40, "(415) 555-0123", "a", "7", "x=y", "secret=Ab3dEf9hIjK2",
             "-rw-r--r-- 1 bob bob 12 Jan", "drwx------ 2 bob staff 4 x", "uid=7(bob) gid=7(bob) groups=7(bob)",
             "bob@box:~$ ", "max_tokens", "Math.alice("]
    return ["".join(rng.choice(frags) for _ in range(rng.randint(0, 8))).encode() for _ in range(rng.randint(1, 6))]


def test_scan_segments_equals_scanning_each_string_alone(tmp_path: Path) -> None:
    extra = parse_pack({"pack": {"name": "custom", "version": 1}, "rules": [
        {"id": "anch-start", "regex": r"^(tok[0-9]{4})", "keywords": ["tok"], "label": "T1"},
        {"id": "anch-end", "regex": r"(end[0-9]{3})$", "keywords": ["end"], "label": "T2"},
        {"id": "multi", "regex": r"(?m)^key: ([a-z]{5})$", "keywords": ["key:"], "label": "T3"},
        {"id": "sep", "regex": r"[\s=]([A-Z]{6})\b", "keywords": ["="], "label": "T4"},
        {"id": "lazy", "regex": r"(?s)begin(.+?)finish", "keywords": ["begin"], "label": "T5"},
    ]}, "custom")
    rules = load_rules(BUILTIN, RuntimeTerms(usernames=["alice"], names=["Bob Stone"])) + extra
    eng = Engine(rules, Pseudonymizer(KEY))
    rng = random.Random(20261129)
    for _ in range(1500):
        parts = _random_parts(rng)
        modes = [rng.choice((MODE_ALL, MODE_ALL, MODE_KEYS, MODE_PATHS)) for _ in parts]
        expected = {i: ms for i, p in enumerate(parts) if (ms := eng.scan_bytes(p, modes[i]))}
        assert eng.scan_segments(parts, modes) == expected, parts


def test_key_and_path_modes_use_only_their_rules(builtin: Engine) -> None:
    text = f"/home/alice/x {AWS} bob.stone@northwind.io"
    keys = builtin.redact(text, None, "k", MODE_KEYS)
    assert AWS not in keys and "alice" not in keys and "northwind" not in keys  # high-confidence secrets: keys too
    path = builtin.redact(text, None, "p", MODE_PATHS)
    # path mode: the paths pack, the generated rules, the rules marked `paths = true` (e-mail) and a
    # token's own shape (high-confidence secrets: a file named by a token is renamed)
    assert AWS not in path and "northwind" not in path and "alice" not in path
    assert builtin.redact("notes/Review 2026 draft.md", None, "p", MODE_PATHS) == "notes/Review 2026 draft.md"


def test_pseudonyms_consistent_across_instances_and_keyed(tmp_path: Path) -> None:
    terms = RuntimeTerms(usernames=["alice"])
    line = f'{{"cwd":"/home/alice/app","text":"key {AWS}"}}'.encode()
    a = build_redactor(BUILTIN, KEY, terms).redact_jsonl_line(line, RedactionReport())
    b = build_redactor(BUILTIN, KEY, terms).redact_jsonl_line(line, RedactionReport())
    c = build_redactor(BUILTIN, b"another-team-key-0123456789abcdef", terms).redact_jsonl_line(line, RedactionReport())
    assert a == b and a != c
    assert Pseudonymizer(KEY).username("alice").encode() in a
    assert AWS.encode() not in c and b"alice" not in c


@pytest.mark.parametrize("value", [
    "0d4f5b8e-9c3a-4e7b-8f21-6a5d3c2b1e0f", "3f786850e387550fdab836ed7e6dc881de23001b",
    f"toolu_01{AWS}", f"call_{AWS}xyz", f"req_011{AWS}", "deadbeefcafe1234",
])
def test_a_whole_id_yields_no_match_in_id_mode(builtin: Engine, value: str) -> None:
    # the walkers skip such values in MODE_IDS (engine.whole_id): sound only because _keep
    # drops whatever matches inside them
    assert whole_id(value)
    assert builtin.scan(value, MODE_IDS) == []


@pytest.mark.parametrize("value", [AWS, f"key-{AWS}", "12345678901234", "a" * 170])
def test_not_a_whole_id(value: str) -> None:
    assert not whole_id(value)


def test_a_real_name_gets_one_pseudonym_whatever_separates_its_words() -> None:
    # a Windows profile "Zelda Quixote" becomes "Zelda-Quixote" in a Claude project key: the
    # folder name must still be derivable from the redacted cwd
    red = build_redactor(["builtin:paths"], b"k" * 32, RuntimeTerms(names=["Zelda Quixote"]))
    outs = [red.engine.redact_bytes(t.encode(), RedactionReport()) for t in
            ("C:\\Users\\Zelda Quixote\\src", "C--Users-Zelda-Quixote-src", "zelda_quixote", "ZELDA.QUIXOTE")]
    tokens = {o[o.index(b"<NAME:"):o.index(b">") + 1] for o in outs}
    assert len(tokens) == 1 and outs[1] == b"C--Users-" + tokens.pop() + b"-src"


def test_host_names_are_replaced_but_generic_ones_are_not(tmp_path: Path) -> None:
    eng = _engine("", tmp_path, RuntimeTerms(hosts=["qhost-7731.corp.lan", "localhost", "vm"]))
    p = Pseudonymizer(KEY)
    out = eng.redact("root@qhost-7731:~# ssh QHOST-7731.corp.lan; curl localhost; vm ok; qhost-77310", None)
    assert out == (f"root@{p.token('HOST', b'qhost-7731')}:~# ssh {p.token('HOST', b'qhost-7731.corp.lan')}; "
                   "curl localhost; vm ok; qhost-77310")


def test_the_configured_and_the_machine_host_name_become_terms(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from archiver.config import load_settings
    from archiver.redact.factory import runtime_terms

    monkeypatch.setattr("socket.gethostname", lambda: "devbox-42")
    cfg = tmp_path / "c.toml"
    cfg.write_text('host = "build-runner-17"\n[store]\nurl = "file:///a"\n')
    assert runtime_terms(load_settings(cfg)).hosts == ["build-runner-17", "devbox-42"]


def test_a_username_followed_by_digits_is_replaced(tmp_path: Path) -> None:
    """`alice2024-app`, `alice1`: the name is replaced, the digits stay; `alice2x` is another word."""
    eng = _engine("", tmp_path, RuntimeTerms(usernames=["zqxcanary", "jörg"]))
    u = Pseudonymizer(KEY).username("zqxcanary")
    assert eng.redact("zqxcanary1 zqxcanary2024-app ZQXCANARY7.", None) == f"{u}1 {u}2024-app {u}7."
    assert eng.redact("zqxcanary2x xzqxcanary", None) == "zqxcanary2x xzqxcanary"
    j = Pseudonymizer(KEY).username("jörg")
    assert eng.redact("jörg42 and jörgx", None) == f"{j}42 and jörgx"  # the regex path (non-ASCII)


def test_same_as_keeps_a_secret_only_when_it_equals_the_other_group(tmp_path: Path) -> None:
    eng = _engine("""
[[rules]]
id = "pair"
regex = '''\\b([a-z]+)=([a-z]+)\\b'''
secret_group = 2
same_as = 1
keywords = ["="]
label = "PAIR"
replace = "username"
""", tmp_path)
    u = Pseudonymizer(KEY).username("bob")
    assert eng.redact("bob=bob bob=carol", None) == f"bob={u} bob=carol"
