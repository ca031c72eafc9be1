"""What the user-facing pages claim and a machine can check: config.example.toml names exactly
the keys the loader accepts (each one, commented or not, loads; the values it sets are the
defaults unless its comment says otherwise), and every `archiver ...` command line the pages
show parses with the real argument parser."""

from __future__ import annotations

import contextlib
import io
import os
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from archiver.cli import build_parser
from archiver.config import HarnessSettings, Settings, load_settings
from archiver.model import HARNESS_NAMES

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "config.example.toml"
PAGES = [ROOT / "README.md", ROOT / "deploy" / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

_SECTION = re.compile(r"^\[([A-Za-z0-9_.-]+)\]\s*$")
_KEY = re.compile(r"^(#\s*)?([a-z_]+)\s*=\s*(.*)$")


def _loader_keys(model: type[BaseModel], prefix: str = "") -> set[str]:
    """Dotted leaf keys of a settings model; `harnesses` expands to each known harness."""
    out: set[str] = set()
    for name, field in model.model_fields.items():
        ann = field.annotation
        if name == "harnesses":
            out |= {f"harnesses.*.{k}" for k in HarnessSettings.model_fields}
        elif isinstance(ann, type) and issubclass(ann, BaseModel):
            out |= _loader_keys(ann, f"{prefix}{name}.")
        else:
            out.add(prefix + name)
    return out


def _example_entries() -> list[tuple[str, str, Any, bool, str]]:
    """(dotted key, its TOML line, value, commented out?, comment) for every `key = value` line
    of the example, commented or not, that is TOML by itself."""
    section, out = "", []
    for line in EXAMPLE.read_text().splitlines():
        if m := _SECTION.match(line):
            section = m.group(1)
            continue
        m = _KEY.match(line)
        if not m:
            continue
        body = line[m.end(1):] if m.group(1) else line
        try:
            value = tomllib.loads(body)[m.group(2)]
        except tomllib.TOMLDecodeError:
            continue  # prose after a '#' that happens to hold an '='
        comment = body.split("#", 1)[1] if "#" in m.group(3) else ""
        dotted = f"{section}.{m.group(2)}" if section else m.group(2)
        out.append((dotted, body, value, bool(m.group(1)), comment))
    return out


def _with_line(dotted: str, body: str) -> str:
    """The example with one commented-out key set (in its own section)."""
    section = dotted.rsplit(".", 1)[0] if "." in dotted else ""
    text = EXAMPLE.read_text()
    if not section:
        return body + "\n" + text
    header = f"[{section}]\n"
    assert header in text, header
    return text.replace(header, header + body + "\n", 1)


def _default(settings: Settings, dotted: str) -> Any:
    obj: Any = settings
    for part in dotted.split("."):
        obj = obj[part] if isinstance(obj, dict) else getattr(obj, part)
    return obj


def test_example_names_exactly_the_keys_the_loader_accepts() -> None:
    """Harness keys count once (`session_dir` is pi's); every harness shows `enabled` and `root`."""
    entries = {d for d, *_ in _example_entries()}
    for h in HARNESS_NAMES:
        assert {f"harnesses.{h}.enabled", f"harnesses.{h}.root"} <= entries, h
    documented = {re.sub(r"^harnesses\.[a-z-]+\.", "harnesses.*.", d) for d in entries}
    accepted = _loader_keys(Settings)
    assert sorted(accepted - documented) == [], "accepted by archiver/config.py, missing from config.example.toml"
    assert sorted(documented - accepted) == [], "in config.example.toml, unknown to archiver/config.py"


def test_example_loads_as_is_and_with_each_commented_key_set(tmp_path: Path) -> None:
    load_settings(EXAMPLE)
    commented = [(d, body) for d, body, _v, is_commented, _c in _example_entries() if is_commented]
    assert len(commented) >= 10
    for dotted, body in commented:
        cfg = tmp_path / "config.toml"
        cfg.write_text(_with_line(dotted, body))
        s = load_settings(cfg)
        got = _default(s, dotted)
        assert got is not None and got != "", f"{dotted}: the example's line `{body}` did not take effect"


def test_example_values_are_the_defaults_unless_it_says_otherwise(monkeypatch: pytest.MonkeyPatch) -> None:
    """The header says "every key, with its default": a value set (or shown commented) that is
    not the loader's default must say so in its comment ("no default", "e.g.", "or ...")."""
    for name in list(os.environ):
        if name.upper().startswith("ARCHIVER_"):
            monkeypatch.delenv(name)
    defaults = Settings()
    for dotted, body, value, is_commented, comment in _example_entries():
        default = _default(defaults, dotted)
        if isinstance(default, Path):
            default = str(default)
        if value == default or (default is None and is_commented):
            continue
        if dotted.endswith(".root"):  # documented as the default folder, resolved per harness
            assert "default" in comment or "wins" in comment, dotted
            continue
        assert re.search(r"no default|not a default|keygen", comment + _preceding_comment(body)), (
            f"{dotted}: the example sets {value!r}, the loader's default is {default!r}, and its comment does not say so")


def _preceding_comment(body: str) -> str:
    """The comment lines right above a key line (where the example explains a value)."""
    lines = EXAMPLE.read_text().splitlines()
    i = next(n for n, line in enumerate(lines) if line.lstrip("# ").startswith(body.strip()))
    above = []
    while i > 0 and lines[i - 1].startswith("#") and not _KEY.match(lines[i - 1]):
        i -= 1
        above.append(lines[i])
    return " ".join(above)


# ---------------------------------------------------------------- command lines in the pages
def _expand(cmd: str) -> list[str]:
    """`hold|release X` -> two lines; `[--all]` -> with and without; `a | archiver b` -> two."""
    out: list[str] = []
    for part in re.split(r"\s+\|\s+", cmd):
        m = re.match(r"archiver ([a-z-]+(?:\|[a-z-]+)+)( .*)?$", part)
        variants = [f"archiver {alt}{m.group(2) or ''}" for alt in m.group(1).split("|")] if m else [part]
        for v in variants:
            opt = re.search(r"\s\[(--[a-z-]+)\]", v)
            if opt:
                out += _expand(v.replace(opt.group(0), "")) + _expand(v.replace(opt.group(0), " " + opt.group(1)))
            else:
                out.append(v)
    return out


def page_commands(page: Path) -> list[str]:
    """Command lines a page shows: lines of its indented code blocks that start with `archiver `,
    and in the two READMEs inline `archiver ...` spans with an option (bare mentions such as
    `archiver restore`, or FORMAT.md's `archiver restore --all`, are names, not commands)."""
    text = page.read_text()
    found = [m.group(1) for m in re.finditer(r"^ {4,}(archiver [^\n]*)$", text, re.M)]
    if page.name == "README.md":
        found += [" ".join(m.group(1).split()) for m in re.finditer(r"(?<!`)`(archiver [^`]*--[^`]*)`(?!`)", text)]
    out = []
    for line in found:
        line = re.sub(r"\s+#.*$", "", line).strip()
        out += [c for c in _expand(line) if not re.search(r"\b(T|TIME)\b$", c) or "--at" not in c]
    return out


def _parse(cmd: str) -> str:
    """'' if the real parser accepts the command line, else what it printed."""
    argv = [re.sub(r"<[a-z ]+>", "0123abcd", a) for a in cmd.split()[1:]]
    stderr = io.StringIO()
    try:
        with contextlib.redirect_stderr(stderr), contextlib.redirect_stdout(io.StringIO()):
            build_parser().parse_args(argv)
    except SystemExit as e:
        return stderr.getvalue().strip() or f"exit {e.code}"
    return ""


def test_page_command_extraction_finds_the_readme_walkthrough() -> None:
    cmds = page_commands(ROOT / "README.md")
    assert len(cmds) >= 20
    assert "archiver release claude-code:<sid> --identity identity.txt" in cmds
    assert any(c.startswith("archiver rekey --all") for c in cmds) and any(c.startswith("archiver rekey --identity") for c in cmds)
    assert _parse("archiver restore claude-code:<sid> --identity identity.txt").endswith("the following arguments are required: --to")
    assert "invalid choice" in _parse("archiver sync --log-format yaml")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_command_line_in_the_pages_parses(page: Path) -> None:
    bad = [(c, why) for c in page_commands(page) if (why := _parse(c))]
    assert bad == []


@pytest.mark.parametrize("page", PAGES[:2], ids=lambda p: str(p.relative_to(ROOT)))
def test_every_time_in_the_pages_reads(page: Path) -> None:
    from archiver.commands.reading import parse_at

    for cmd in page_commands(page):
        for t in re.findall(r"--(?:at|since) (\S+)", cmd):
            parse_at(t)
