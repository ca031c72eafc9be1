"""Rule-pack validation: every rule of a team's own pack that cannot do what it says is refused at
load time, naming the file, the rule and the reason (reserved pack names and ids, an id that makes
no label, keys a decode rule ignores, entropy and min_length no match can reach), and `sync`
refuses a bad pack even when it has nothing to redact, without compiling the built-in packs."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from archiver.cli import main
from archiver.redact import rules as rules_mod
from archiver.redact.engine import TABLE_RULES, Engine
from archiver.redact.pseudonym import Pseudonymizer
from archiver.redact.rules import RuleError, RuntimeTerms, check_packs, load_rules, parse_pack
from tests.fx_home import UUID_A, Box, box, write_rollout  # noqa: F401

BUILTIN = ["builtin:secrets", "builtin:pii", "builtin:paths"]
KEY = b"s14-rules-validation-key-0000000"


def _write(folder: Path, body: str, name: str = "acme") -> Path:
    path = folder / "acme.toml"
    path.write_text(f'[pack]\nname = "{name}"\nversion = 1\n\n{body}', "utf-8")
    return path


def _rule(rid: str, regex: str, extra: str = "") -> str:
    return f"[[rules]]\nid = \"{rid}\"\nregex = '''{regex}'''\n{extra}"


def _refused(path: Path, specs: list[str] | None = None) -> str:
    with pytest.raises(RuleError) as ei:
        load_rules(specs or [str(path)])
    return str(ei.value)


# ---------------------------------------------------------------- 1. reserved pack names


@pytest.mark.parametrize("name", ["secrets", "pii", "paths", "runtime", "custom"])
def test_a_pack_file_may_not_take_a_reserved_name(tmp_path: Path, name: str) -> None:
    path = _write(tmp_path, _rule("acme-live-token", "(acme_live_[0-9A-Za-z]{32})"), name)
    assert _refused(path) == (f"{path}: [pack]: name {name!r} is reserved (secrets, pii, paths, runtime, custom: "
                              "the engine treats them specially); name the pack after your team")


def test_the_builtin_packs_keep_their_names(tmp_path: Path) -> None:
    packs = {r.pack for r in load_rules(BUILTIN)}
    assert packs == {"secrets", "pii", "paths"}
    path = _write(tmp_path, _rule("acme-live-token", "(acme_live_[0-9A-Za-z]{32})"), "secrets-acme")
    assert [r.pack for r in load_rules([str(path)])] == ["secrets-acme"]  # only the exact names


# ---------------------------------------------------------------- 2. reserved ids, always


GENERATED = ["user-username", "user-username-account", "user-username-login", "user-name", "host-name",
             "user-home-1", "user-home-12", "extra-term-1", "extra-term-30"]


@pytest.mark.parametrize("rid", GENERATED)
def test_generated_ids_are_refused_with_no_term_configured(tmp_path: Path, rid: str) -> None:
    path = _write(tmp_path, _rule(rid, "(zqx[0-9]{4})"))
    assert _refused(path) == f"{path}: rule {rid!r}: id is reserved for generated runtime-term rules"


@pytest.mark.parametrize("rid", ["table-password-column", "table-secret-column"])
def test_the_table_pass_ids_are_refused(tmp_path: Path, rid: str) -> None:
    path = _write(tmp_path, _rule(rid, "(zqx[0-9]{4})"))
    assert _refused(path) == f"{path}: rule {rid!r}: id is reserved for the engine's table pass"


def test_every_generated_id_is_reserved(tmp_path: Path) -> None:
    """What term_rules and the engine generate, for terms of every kind, is what the loader refuses."""
    terms = RuntimeTerms(usernames=["zqxcanary", "max", "ab", "cd"], names=["Zelda Quixote"],
                         home_dirs=["/home/jane.doe"], hosts=["devbox-17.corp.example"],
                         extra_terms=["falcon", "osprey"])
    ids = {r.id for r in rules_mod.term_rules(terms)} | {r.id for r in TABLE_RULES}
    assert {"user-username", "user-username-account", "user-username-login", "user-home-1", "user-home-2",
            "user-name", "host-name", "extra-term-2", "table-password-column"} <= ids
    assert all(rules_mod.reserved_id(i) for i in ids), ids
    # ids merely like them are a team's to use
    for rid in ("user-names", "acme-user-name", "extra-term", "extra-term-x", "user-home-1a", "host-names"):
        assert not rules_mod.reserved_id(rid)
        assert [r.id for r in load_rules([str(_write(tmp_path, _rule(rid, "(zqx[0-9]{4})")))])] == [rid]


# ---------------------------------------------------------------- 3. an id that makes no label


@pytest.mark.parametrize("rid", ["9-acme-token", "0day", "a" * 41])
def test_an_id_that_makes_no_label_is_named(tmp_path: Path, rid: str) -> None:
    path = _write(tmp_path, _rule(rid, "(acme_live_[0-9A-Za-z]{32})"))
    assert _refused(path) == (f"{path}: rule {rid!r}: an id without a 'label' must start with a letter and have "
                              "at most 40 characters, like 'aws-access-key-id' (the label is made from it); "
                              "or give a 'label'")
    path = _write(tmp_path, _rule(rid, "(acme_live_[0-9A-Za-z]{32})", 'label = "ACME_TOKEN"\n'))
    assert [(r.id, r.label) for r in load_rules([str(path)])] == [(rid, "ACME_TOKEN")]
    bad = _write(tmp_path, _rule(rid, "(acme_live_[0-9A-Za-z]{32})", 'label = "9_TOKEN"\n'))
    assert _refused(bad).endswith("'label' must look like 'AWS_ACCESS_KEY' (at most 40 characters)")


# ---------------------------------------------------------------- 4. keys a decode rule ignores


DECODE = ("[[rules]]\nid = \"acme-b64\"\nregex = '''([A-Za-z0-9+/]{16,})'''\ndecode = \"base64\"\n"
          "decode_packs = [\"secrets\"]\nmin_length = 16\n")


@pytest.mark.parametrize("extra", ['keywords = ["base64"]', "entropy = 4.0", "allowlist = ['^AAAA']",
                                   'validator = "jwt"', "same_as = 1", "paths = true", "paths = false",
                                   "keywords = []"])
def test_a_decode_rule_refuses_keys_it_does_not_use(tmp_path: Path, extra: str) -> None:
    key = extra.split(" ")[0]
    path = _write(tmp_path, DECODE + extra + "\n")
    assert _refused(path) == f"{path}: rule 'acme-b64': a decode rule does not use {key!r}: remove it"


def test_a_decode_rule_names_every_unused_key(tmp_path: Path) -> None:
    path = _write(tmp_path, DECODE + 'validator = "jwt"\nkeywords = ["x"]\nallowlist = ["y"]\n')
    assert _refused(path) == (f"{path}: rule 'acme-b64': a decode rule does not use 'keywords', 'allowlist', "
                              "'validator': remove them")
    (rule,) = load_rules([str(_write(tmp_path, DECODE + 'replace = "mask"\nconfidence = "medium"\n'))])
    assert (rule.decode, rule.replace, rule.confidence) == ("base64", "mask", "medium")  # keys it does use
    # the built-in decode rule uses none of them
    assert [r.id for r in load_rules(["builtin:secrets"]) if r.decode] == ["base64-decoded-secret"]


# ---------------------------------------------------------------- 5. values no match can reach


@pytest.mark.parametrize("value", ["9", "8.01", "inf", "1e9"])
def test_entropy_above_eight_bits_a_byte_is_refused(tmp_path: Path, value: str) -> None:
    path = _write(tmp_path, _rule("acme-live-token", "(acme_live_[0-9A-Za-z]+)", f"entropy = {value}\n"))
    shown = str(tomllib.loads(f"v = {value}")["v"])
    assert _refused(path) == (f"{path}: rule 'acme-live-token': 'entropy' {shown} can never be reached: "
                              "the entropy of the secret's bytes is at most 8 bits a byte")


@pytest.mark.parametrize("value", ["nan", "-0.5", "-inf"])
def test_entropy_that_is_no_bar_is_refused(tmp_path: Path, value: str) -> None:
    path = _write(tmp_path, _rule("acme-live-token", "(acme_live_[0-9A-Za-z]+)", f"entropy = {value}\n"))
    assert _refused(path) == f"{path}: rule 'acme-live-token': 'entropy' must be a non-negative number"


def test_entropy_eight_loads(tmp_path: Path) -> None:
    (rule,) = load_rules([str(_write(tmp_path, _rule("acme-blob", "blob=([^ ]+)", "entropy = 8\n")))])
    assert rule.entropy == 8.0


def test_entropy_above_what_the_longest_group_holds_is_refused(tmp_path: Path) -> None:
    path = _write(tmp_path, _rule("acme-pin", "acme_pin=([0-9]{4})", "entropy = 4.5\n"))
    assert _refused(path) == (f"{path}: rule 'acme-pin': 'entropy' 4.5 can never be reached: the secret group "
                              "matches at most 4 characters, whose bytes score at most 4.00")
    # the bound is reachable: 4 characters of 4 bytes each, 16 different bytes, score 4.0
    (rule,) = load_rules([str(_write(tmp_path, _rule("acme-pin", "acme_pin=(.{4})", "entropy = 4.0\n")))])
    value = bytes.fromhex("f0908182f1838485f2868788f3898a8b").decode("utf-8")
    assert len(value) == 4
    assert Engine([rule], Pseudonymizer(KEY)).redact(f"acme_pin={value}", None).startswith("acme_pin=<ACME_PIN:")


def test_a_long_hex_group_keeps_its_entropy_bar(tmp_path: Path) -> None:
    """A bar above 3.0 is met by a random hex run of 32+ with 3.0 (engine._random_hex): not refused."""
    (rule,) = load_rules([str(_write(tmp_path, _rule("acme-hex", "acme_hex=([0-9a-f]{40})", "entropy = 5\n")))])
    hexval = "8f3a9c2e71b04d5f6a8e9c1b2d3f4a5b6c7d8e9f"
    assert Engine([rule], Pseudonymizer(KEY)).redact(f"acme_hex={hexval}", None).startswith("acme_hex=<ACME_HEX:")


def test_min_length_above_the_longest_group_is_refused(tmp_path: Path) -> None:
    path = _write(tmp_path, _rule("acme-live-token", "(acme_live_[0-9A-Za-z]{32})", "min_length = 43\n"))
    assert _refused(path) == (f"{path}: rule 'acme-live-token': 'min_length' 43 can never be reached: the secret "
                              "group matches at most 42 characters")
    path = _write(tmp_path, _rule("acme-x", "acme=(a|bcd)(x{2})", "secret_group = 2\nmin_length = 3\n"))
    assert _refused(path).endswith("'min_length' 3 can never be reached: the secret group matches at most 2 characters")
    path = _write(tmp_path, _rule("acme-x", "(?:acme=(a|bcd))+", "min_length = 4\n"))  # the last repetition only
    assert _refused(path).endswith("'min_length' 4 can never be reached: the secret group matches at most 3 characters")
    (rule,) = load_rules([str(_write(tmp_path, _rule("acme-live-token", "(acme_live_[0-9A-Za-z]{32})",
                                                     "min_length = 42\n")))])
    assert rule.min_length == 42


@pytest.mark.parametrize("regex,min_length,text", [
    ("(x{,3})", 5, "x{,3}"),  # a literal to RE2, a repeat to Python: not measured
    (r"(\pL{3}[0-9]+)", 10, "xyz12345678"),  # Python cannot read \pL: not measured
    ("(?i)(acme-[a-z]+)", 12, "ACME-abcdefgh"),  # unbounded
    (r"(?:\\[nrt]|\b)(acme_[0-9]{8})\b", 13, "x acme_12345678"),  # reachable exactly
])
def test_what_cannot_be_measured_or_is_reachable_loads_and_fires(tmp_path: Path, regex: str, min_length: int,
                                                                  text: str) -> None:
    """A false refusal is worse than a missed one: these load, and each one fires."""
    (rule,) = load_rules([str(_write(tmp_path, _rule("acme-x", regex, f"min_length = {min_length}\n")))])
    assert "<ACME_X:" in Engine([rule], Pseudonymizer(KEY)).redact(text, None)


def test_the_builtin_packs_pass_the_checks_loading_skips() -> None:
    """Loading skips the regex measurements for the shipped packs: they are made here (a
    RuleError from parse_pack is the failure)."""
    import re2

    measured = 0
    for name in rules_mod.BUILTIN_PACKS:
        data = tomllib.loads(rules_mod.builtin_pack_path(name).read_text("utf-8"))
        for r in parse_pack(data, f"builtin:{name}", builtin=False):
            if r.min_length or r.entropy is not None:
                measured += rules_mod.max_chars(r.regex, r.secret_group, re2.compile(r.regex).groups) is not None
    assert measured >= 20  # the checks do measure shipped rules


def test_loading_the_builtin_packs_measures_no_regex(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    real = rules_mod.max_chars
    monkeypatch.setattr(rules_mod, "max_chars", lambda rx, g, n: calls.append(rx) or real(rx, g, n))
    assert len(load_rules(BUILTIN)) > 400 and calls == []


# ---------------------------------------------------------------- 6. sync refuses a bad pack up front


BAD_PACKS = {
    "reserved name": ('[pack]\nname = "pii"\nversion = 1\n', None),
    "reserved id": (_rule("user-name", "(Zelda)"), None),
    "digit id": (_rule("9-acme", "(acme_[0-9]{8})"), None),
    "decode keys": (DECODE + "entropy = 4.0\n", None),
    "entropy": (_rule("acme-x", "(acme_[0-9]{8})", "entropy = 9\n"), None),
    "min_length": (_rule("acme-x", "(acme_[0-9]{8})", "min_length = 20\n"), None),
    "bad regex": (_rule("acme-x", "acme_(?=x)"), None),
    "dup of a builtin": (_rule("aws-access-key-id", "(AKIA[0-9A-Z]{16})"), ["builtin:secrets", "PACK"]),
    "builtin after it": (_rule("aws-access-key-id", "(AKIA[0-9A-Z]{16})"), ["PACK", "builtin:secrets"]),
    "builtin twice": (_rule("acme-x", "(acme_[0-9]{8})"), ["builtin:paths", "PACK", "builtin:paths"]),
    "unknown builtin": (_rule("acme-x", "(acme_[0-9]{8})"), ["builtin:words", "PACK"]),
    "missing file": (None, ["builtin:pii", "PACK"]),
    "bad pack, then an unknown builtin": (_rule("9-acme", "(acme_[0-9]{8})"), ["PACK", "builtin:words"]),
    "only builtins, one unknown": (None, ["builtin:secrets", "builtin:words"]),
}


def _bad(tmp_path: Path, case: str) -> list[str]:
    body, specs = BAD_PACKS[case]
    path = tmp_path / "acme.toml"
    if body is not None:
        path.write_text(body if body.startswith("[pack]") else f'[pack]\nname = "acme"\nversion = 1\n\n{body}')
    return [str(path) if s == "PACK" else s for s in (specs or ["PACK"])]


@pytest.mark.parametrize("case", list(BAD_PACKS))
def test_check_packs_refuses_what_load_rules_refuses(tmp_path: Path, case: str) -> None:
    specs = _bad(tmp_path, case)
    with pytest.raises(RuleError) as loaded:
        load_rules(specs)
    with pytest.raises(RuleError) as checked:
        check_packs(specs)
    assert str(checked.value) == str(loaded.value)


def test_check_packs_accepts_what_loads(tmp_path: Path) -> None:
    path = _write(tmp_path, _rule("acme-x", "(acme_[0-9]{8})"))
    for specs in (BUILTIN, [*BUILTIN, str(path)], [str(path)], ["builtin:pii", str(path), "builtin:secrets"]):
        load_rules(specs)
        assert check_packs(specs) is None


def test_builtin_ids_read_as_text_are_the_loaded_ids() -> None:
    for name in rules_mod.BUILTIN_PACKS:
        assert rules_mod.builtin_ids(name) == [r.id for r in load_rules([f"builtin:{name}"])], name


def _config(b: Box, rules: list[str]) -> None:
    text = b.config.read_text()
    listed = ", ".join(f'"{r}"' for r in rules)
    b.config.write_text(text.replace("[redaction]\n", f"[redaction]\nrules = [{listed}]\n", 1))


def _sync(b: Box) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["sync", "--config", str(b.config), "--workers", "1", "--log-format", "human"])
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("case", ["reserved name", "decode keys", "min_length", "dup of a builtin"])
def test_sync_with_nothing_to_redact_refuses_a_bad_pack(box: Box, case: str,  # noqa: F811
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    assert _sync(box)[0] == 0  # a working installation, nothing to archive
    specs = _bad(box.base, case)
    with pytest.raises(RuleError) as ei:
        load_rules(specs)
    _config(box, specs)
    code, _, err = _sync(box)
    assert code == 2
    assert err.endswith(f"archiver: {box.config}: redaction.rules: {ei.value}\n"), err
    # the same as a sync with a session to redact gives
    rollouts = box.home / ".codex" / "sessions" / "2026" / "01" / "02"
    rollouts.mkdir(parents=True)
    write_rollout(rollouts, UUID_A, "03-04-05")
    code2, _, err2 = _sync(box)
    assert (code2, err2.splitlines()[-1]) == (code, err.splitlines()[-1])
    # and status shows the run failed
    capsys.readouterr()
    with contextlib.redirect_stdout(io.StringIO()) as out:
        assert main(["status", "--config", str(box.config), "--json"]) == 0
    assert json.loads(out.getvalue())["last_run"]["errors"] == [f"{box.config}: redaction.rules: {ei.value}"]


def test_an_unchanged_sync_with_a_good_pack_compiles_no_builtin_pack(box: Box) -> None:  # noqa: F811
    path = _write(box.base, _rule("acme-live-token", r"(?:\\[nrt]|\b)(acme_live_[0-9A-Za-z]{32})\b",
                                  'keywords = ["acme_live_"]\n'))
    _config(box, [*BUILTIN, str(path)])
    rollouts = box.home / ".codex" / "sessions" / "2026" / "01" / "02"
    rollouts.mkdir(parents=True)
    write_rollout(rollouts, UUID_A, "03-04-05")
    assert _sync(box)[0] == 0
    probe = ("import json; from archiver.redact import rules as R, engine as E; seen = []; real = R.load_pack\n"
             "R.load_pack = lambda p, s=None, b=False: seen.append(s) or real(p, s, b)\n"
             "built = []; init = E.Engine.__init__\n"
             "E.Engine.__init__ = lambda self, *a, **k: built.append(1) or init(self, *a, **k)\n"
             "from archiver.cli import main\n"
             f"code = main(['sync', '--config', {str(box.config)!r}, '--json', '--workers', '1'])\n"
             "print(json.dumps([code, seen, len(built)]))")
    env = {k: v for k, v in os.environ.items() if k not in ("ARCHIVER_CONFIG", "COLUMNS")}
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, env=env,
                         cwd=Path(__file__).resolve().parent.parent)
    lines = out.stdout.splitlines()
    code, seen, engine = json.loads(lines[-1])
    assert json.loads("\n".join(lines[:-1]))["sessions"] == {"total": 1, "uploaded": 0, "unchanged": 1,
                                                              "failed": 0}, out.stdout
    assert (code, seen, engine) == (0, [str(path)], 0), out.stderr  # the custom pack read, nothing compiled else


# ---------------------------------------------------------------- 7. tokens and case


def test_pack_rule_values_are_keyed_as_written_and_terms_fold_case(tmp_path: Path) -> None:
    """docs/RULES.md (`label`): `(?i)` says what a rule finds, not which values are the same secret."""
    doc = (Path(__file__).resolve().parent.parent / "docs" / "RULES.md").read_text("utf-8")
    assert "`(?i)` says which text a rule finds, not which values are the same secret" in doc
    path = _write(tmp_path, _rule("acme-key", "(?i)acme_key=([a-z0-9]{8})", 'keywords = ["acme_key="]\n'))
    eng = Engine(load_rules([str(path)], RuntimeTerms(extra_terms=["falconcorp"])), Pseudonymizer(KEY))
    out = eng.redact("ACME_KEY=abcDEF12 acme_key=ABCdef12 FalconCorp falconcorp", None)
    words = out.split()
    assert words[0].startswith("ACME_KEY=<ACME_KEY:") and words[1].startswith("acme_key=<ACME_KEY:")
    assert words[0][len("ACME_KEY="):] != words[1][len("acme_key="):]  # two keys, two tokens
    assert words[2] == words[3] and words[2].startswith("<TERM:")  # a configured term folds case
