"""docs/RULES.md stays true: its keys and validators are the code's, every TOML snippet loads or fails
with exactly the error quoted after it, and the worked example pack loads, passes its own examples
and behaves through the CLI (`archiver rules list` / `rules test`) as the page says."""

from __future__ import annotations

import contextlib
import io
import json
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest

from archiver.cli import main
from archiver.redact import rules as rules_mod
from archiver.redact.engine import MODE_IDS, MODE_KEYS, MODE_PATHS, Engine
from archiver.redact.pseudonym import Pseudonymizer
from archiver.redact.rules import RuleError, RuntimeTerms, load_rules
from archiver.redact.scan_report import check_examples
from archiver.redact.validators import VALIDATORS
from tests.fx_home import UUID_A, Box, box, write_rollout  # noqa: F401

DOC_PATH = Path(__file__).resolve().parent.parent / "docs" / "RULES.md"
DOC = DOC_PATH.read_text("utf-8")
HEADER = '[pack]\nname = "acme"\nversion = 1\n\n'
TOKEN = "acme_live_FAKE4EXAMPLE9xYzAbCdEfGhIjKlMnOp"


@dataclass
class Block:
    lang: str
    body: str
    error: str | None  # the `Error: `...`` line right after the block, if any


def blocks(text: str) -> list[Block]:
    out: list[Block] = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        m = re.match(r"^```(\w*)\s*$", lines[i])
        if not m:
            i += 1
            continue
        j = i + 1
        while not lines[j].startswith("```"):
            j += 1
        k = j + 1
        while k < len(lines) and not lines[k].strip():
            k += 1
        err = None
        if k < len(lines) and lines[k].startswith("Error: `"):
            err = lines[k][len("Error: `"):lines[k].rindex("`")]
        out.append(Block(m.group(1), "\n".join(lines[i + 1:j]) + "\n", err))
        i = j + 1
    return out


def section(title: str, level: str = "## ") -> str:
    start = DOC.index(f"\n{level}{title}\n")
    end = DOC.find(f"\n{level}", start + 1)
    return DOC[start:end if end >= 0 else len(DOC)]


def key_sections() -> dict[str, str]:
    body = section("Rule keys")
    parts = re.split(r"^### `([^`]+)`\s*$", body, flags=re.M)
    return dict(zip(parts[1::2], parts[2::2]))


def example_pack_text() -> str:
    found = [b.body for b in blocks(section("A complete example"))
             if b.lang == "toml" and b.body.startswith("[pack]")]
    assert len(found) == 1, "the worked example is the one ```toml block starting with [pack]"
    return found[0]


def pack_snippets() -> list[Block]:
    return [b for b in blocks(DOC) if b.lang == "toml" and "[redaction]" not in b.body]


# ---------------------------------------------------------------- keys and validators


def test_every_rule_key_has_its_own_entry() -> None:
    documented = list(key_sections())
    assert len(documented) == len(set(documented)), "a key documented twice"
    assert set(documented) == set(rules_mod._RULE_KEYS)


def test_pack_keys_are_the_codes() -> None:
    first = blocks(section("The file"))[0]
    data = tomllib.loads(first.body)
    assert set(data["pack"]) == set(rules_mod._PACK_KEYS)


def test_every_validator_is_documented() -> None:
    body = key_sections()["validator"]
    named = re.findall(r"^- `([a-z_0-9]+)`:", body, flags=re.M)
    assert named == list(rules_mod._VALIDATOR_NAMES)
    assert set(named) == set(VALIDATORS)


def test_common_keywords_named_on_the_page_are_the_engines() -> None:
    from archiver.redact.engine import COMMON_KEYWORDS

    body = key_sections()["keywords"]
    listed = body[body.index("common words ("):body.index("the full list")]
    words = re.findall(r"`([a-z]+)`", listed)
    assert words and set(words) <= COMMON_KEYWORDS


# ---------------------------------------------------------------- snippets and quoted errors


def _load_snippet(b: Block, folder: Path) -> list[rules_mod.Rule]:
    text = b.body if (b.body.startswith("[pack]") or "# the whole file" in b.body) else HEADER + b.body
    (folder / "acme.toml").write_text(text, "utf-8")
    specs = ["acme.toml"]
    if "# loaded after builtin:secrets" in b.body:
        specs = ["builtin:secrets", "acme.toml"]
    terms = None
    m = re.search(r"^# with names = (\[.*\]) configured$", b.body, flags=re.M)
    if m:
        terms = RuntimeTerms(names=json.loads(m.group(1)))
    return load_rules(specs, terms)


def test_every_snippet_loads_or_fails_with_the_quoted_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    snippets = pack_snippets()
    bad = [b for b in snippets if b.error]
    assert len(bad) >= 29 and len(snippets) - len(bad) >= 10
    for b in snippets:
        if b.error is None:
            assert _load_snippet(b, tmp_path), b.body
            continue
        with pytest.raises(RuleError) as ei:
            _load_snippet(b, tmp_path)
        assert str(ei.value) == b.error, b.body


def test_errors_quoted_in_prose(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    for spec, quoted in (("builtin:words", "`builtin:words: unknown builtin pack (known: secrets, pii, paths, names)`"),
                         ("acme.toml", "`acme.toml: cannot read rule pack: No such file or directory`")):
        assert quoted in DOC
        with pytest.raises(RuleError) as ei:
            load_rules([spec])
        assert str(ei.value) == quoted.strip("`")
    assert "`acme.toml: invalid TOML: <the parser's message>`" in DOC
    (tmp_path / "acme.toml").write_text(HEADER + "[[rules]]\nid = acme\n")
    with pytest.raises(RuleError, match=r"^acme\.toml: invalid TOML: "):
        load_rules(["acme.toml"])


def test_reserved_id_is_refused_without_its_term(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What the page says of generated ids: refused in every pack, the term configured or not."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "acme.toml").write_text(HEADER + "[[rules]]\nid = \"user-name\"\nregex = '''(Zelda)'''\n")
    with pytest.raises(RuleError, match=r"^acme\.toml: rule 'user-name': id is reserved for generated runtime-term rules$"):
        load_rules(["acme.toml"])
    generated = {r.id for r in rules_mod.term_rules(RuntimeTerms(
        usernames=["zqxcanary", "max", "ab"], names=["Zelda Quixote"], hosts=["devbox-17"], extra_terms=["falcon"]))}
    table = section("Runtime terms: generated rules", "### ")
    documented = set(re.findall(r"`([a-z]+(?:-[a-zA-Z]+)*)`", table))
    assert {"user-username", "user-home-N", "user-name", "host-name", "extra-term-N"} <= documented
    for rid in generated:
        assert re.sub(r"-[0-9]+$", "-N", rid) in documented, rid


# ---------------------------------------------------------------- the worked example


def test_worked_example_loads_and_its_examples_pass(tmp_path: Path) -> None:
    path = tmp_path / "acme.toml"
    path.write_text(example_pack_text(), "utf-8")
    rules = load_rules([str(path)])
    assert [r.id for r in rules] == ["acme-live-token", "acme-internal-host"]
    assert check_examples(rules) == []
    token, host = rules
    assert (token.pack, token.label, token.confidence, host.confidence, host.in_paths) == (
        "acme", "ACME_TOKEN", "high", "medium", True)
    assert len(token.positive) == 2 and len(token.negative) == 5 and len(host.negative) == 3
    eng = Engine(rules, Pseudonymizer(b"s13-rules-doc-key-0000"))
    # what "Why each choice" says: high runs on keys and ids, medium does not; paths = true; case
    assert [m.rule_id for m in eng.scan(TOKEN, MODE_KEYS)] == ["acme-live-token"]
    assert [m.rule_id for m in eng.scan(TOKEN, MODE_IDS)] == ["acme-live-token"]
    assert eng.scan("build-17.acme.internal", MODE_KEYS) == []
    assert eng.redact("build-17.acme.internal", None, mode=MODE_PATHS).startswith("<ACME_HOST:")
    out = eng.redact("ping BUILD-17.ACME.INTERNAL; ping build-17.acme.internal", None)
    a, b = re.findall(r"<ACME_HOST:[0-9a-f]{8}>", out)
    assert a != b  # keyed as written
    placeholder = "acme_live_" + "a" * 32
    assert eng.redact(placeholder, None) == placeholder


def _config(b: Box, rules: list[str], extra: str = "") -> None:
    text = b.config.read_text()
    listed = ", ".join(f'"{r}"' for r in rules)
    b.config.write_text(text.replace("[redaction]\n", f"[redaction]\nrules = [{listed}]\n{extra}", 1))


def _run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(list(argv))
    return code, out.getvalue()


def test_worked_example_through_the_cli(box: Box) -> None:  # noqa: F811
    (box.base / "acme.toml").write_text(example_pack_text(), "utf-8")
    builtins = ["builtin:secrets", "builtin:pii", "builtin:paths"]
    _config(box, [*builtins, "acme.toml"], 'extra_terms = ["falconcorp"]\n')  # relative to the config's folder
    doc = box.cli("rules", "list")
    assert doc["example_problems"] == []
    by_id = {r["id"]: r for r in doc["rules"]}
    assert by_id["acme-live-token"]["pack"] == "acme" and by_id["acme-internal-host"]["pack"] == "acme"
    assert by_id["acme-live-token"]["source"] == str(box.base / "acme.toml")
    assert by_id["extra-term-1"]["pack"] == "runtime"
    assert {"table-password-column", "table-secret-column", "aws-access-key-id"} <= set(by_id)

    sample = [b.body for b in blocks(section("A complete example")) if b.lang == "text"]
    assert len(sample) == 1
    (box.base / "sample.txt").write_text(sample[0], "utf-8")
    hits = box.cli("rules", "test", str(box.base / "sample.txt"))["hits"]
    quoted = [b.body for b in blocks(section("A complete example")) if b.lang == "json"]
    assert len(quoted) == 1
    assert hits == [json.loads(line) for line in quoted[0].splitlines()]
    assert [h["rule"] for h in hits] == ["acme-live-token", "acme-internal-host", "email"]

    # "Break a rule on purpose ... exits 2 naming negative example 1"
    broken = example_pack_text().replace(r"(?:\\[nrt]|\b)(acme_live_", "(acme_live_", 1)
    assert broken != example_pack_text()
    (box.base / "acme.toml").write_text(broken, "utf-8")
    code, out = _run("rules", "--config", str(box.config), "list", "--json")
    assert code == 2
    problems = json.loads(out)["example_problems"]
    assert problems == [f"{box.base / 'acme.toml'}: rule 'acme-live-token': negative example 1 is matched"]


def test_setting_rules_replaces_the_default_list(box: Box) -> None:  # noqa: F811
    (box.base / "acme.toml").write_text(example_pack_text(), "utf-8")
    _config(box, ["acme.toml"])
    packs = {r["pack"] for r in box.cli("rules", "list")["rules"]}
    assert "secrets" not in packs and "acme" in packs


def test_a_bad_pack_is_refused_by_the_cli(box: Box, capsys: pytest.CaptureFixture[str]) -> None:  # noqa: F811
    (box.base / "acme.toml").write_text(HEADER + "[[rules]]\nid = \"Acme_Token\"\nregex = '''(x)'''\n", "utf-8")
    _config(box, ["acme.toml"])
    msg = f"{box.base / 'acme.toml'}: rule 'Acme_Token': 'id' must be a lowercase id like 'aws-access-key-id'"
    capsys.readouterr()
    code, _ = _run("rules", "--config", str(box.config), "list")
    assert code == 2
    assert capsys.readouterr().err == f"archiver: {msg}\n"
    (box.base / "s.txt").write_text("hello\n")
    code, _ = _run("rules", "--config", str(box.config), "test", str(box.base / "s.txt"))
    assert code == 2
    assert capsys.readouterr().err == f"archiver: {msg}\n"
    code, _ = _run("redact", "--config", str(box.config), str(box.base / "s.txt"))
    assert code == 2
    assert capsys.readouterr().err == f"archiver: {box.config}: redaction.rules: {msg}\n"
    # sync: also with nothing to redact (the page says so)
    code, _ = _run("sync", "--config", str(box.config), "--workers", "1")
    assert code == 2
    assert capsys.readouterr().err.endswith(f"archiver: {box.config}: redaction.rules: {msg}\n")
    rollouts = box.home / ".codex" / "sessions" / "2026" / "01" / "02"
    rollouts.mkdir(parents=True)
    write_rollout(rollouts, UUID_A, "03-04-05")
    code, _ = _run("sync", "--config", str(box.config), "--workers", "1")
    assert code == 2
    assert capsys.readouterr().err.endswith(f"archiver: {box.config}: redaction.rules: {msg}\n")


# ---------------------------------------------------------------- "Notes for pack authors"


def _pack(tmp_path: Path, name: str, body: str) -> list[rules_mod.Rule]:
    path = tmp_path / f"{name}-pack.toml"
    path.write_text(f'[pack]\nname = "{name}"\nversion = 1\n\n{body}', "utf-8")
    return load_rules([str(path)])


def test_pack_name_changes_what_rules_run_on(tmp_path: Path) -> None:
    """Why a pack file may not take a built-in name: the rules of packs so named (parsed here
    directly, as the built-in packs are) run on other strings."""
    body = ("[[rules]]\nid = \"n-medium\"\nregex = '''pw=([a-z]+)'''\nkeywords = [\"pw=\"]\nconfidence = \"medium\"\n"
            "[[rules]]\nid = \"n-high\"\nregex = '''(acme_live_[0-9A-Za-z]{32})'''\nkeywords = [\"acme_live_\"]\n")
    p = Pseudonymizer(b"s13-rules-doc-key-0000")
    table = "+----+----------+\n| id | password |\n+----+----------+\n|  1 | hunter2x |\n+----+----------+\n"
    seen = {}
    for name in ("acme", "pii", "paths", "secrets"):
        if name != "acme":
            with pytest.raises(RuleError, match=rf"\[pack\]: name '{name}' is reserved"):
                _pack(tmp_path, name, body)
        rules = rules_mod.parse_pack(tomllib.loads(f'[pack]\nname = "{name}"\nversion = 1\n\n{body}'), "p.toml")
        assert rules[1].secret_shape == (name not in ("pii", "paths"))  # fail_closed's raw-bytes check
        eng = Engine(rules, p)
        seen[name] = (bool(eng.scan("pw=abc", MODE_KEYS)), bool(eng.scan(TOKEN, MODE_IDS)),
                      bool(eng.scan("pw=abc", MODE_PATHS)), [r.id for r in eng.pass_rules],
                      "<PASSWORD:" in eng.redact(table, None))
    tp = ["table-password-column", "table-secret-column"]
    assert seen == {"acme": (False, True, False, [], False), "pii": (True, False, False, [], False),
                    "paths": (True, False, True, [], False), "secrets": (False, True, False, tp, True)}


def test_custom_pack_token_inside_base64_is_found(tmp_path: Path) -> None:
    import base64

    (tmp_path / "acme.toml").write_text(example_pack_text(), "utf-8")
    eng = Engine(load_rules(["builtin:secrets", str(tmp_path / "acme.toml")]), Pseudonymizer(b"s13-rules-doc-key-0000"))
    assert eng.redact(f"see {TOKEN} here", None) != f"see {TOKEN} here"
    run = base64.b64encode(f"see {TOKEN} here and more plain words follow now\n".encode()).decode()
    text = f"$ base64 notes.txt\n{run}\n"
    out = eng.redact(text, None)
    assert run not in out and out.startswith("$ base64 notes.txt\n<BASE64_SECRET:")
    harmless = base64.b64encode(b"see the acme wiki for the release notes and more plain words\n").decode()
    assert eng.redact(harmless, None) == harmless  # no finding of any pack: the run stays


def test_impossible_checks_are_refused_and_examples_catch_the_rest(tmp_path: Path) -> None:
    src = tmp_path / "acme-pack.toml"
    with pytest.raises(RuleError) as ei:
        _pack(tmp_path, "acme", "[[rules]]\nid = \"acme-short\"\nregex = '''(x{3})'''\nmin_length = 10\n")
    assert str(ei.value) == (f"{src}: rule 'acme-short': 'min_length' 10 can never be reached: "
                             "the secret group matches at most 3 characters")
    # a keyword real matches lack loads, and never fires: only the positives tell
    rules = _pack(tmp_path, "acme", "[[rules]]\nid = \"acme-short\"\nregex = '''(x{3})'''\nkeywords = [\"acme\"]\n"
                                    "positive = [\"xxx\"]\n")
    assert check_examples(rules) == [f"{src}: rule 'acme-short': positive example 1 is not matched"]
