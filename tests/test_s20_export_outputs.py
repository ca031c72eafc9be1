"""`archiver export` shows the full tool outputs a harness moved out of its transcript (Claude Code
tool-results/, OpenCode tool-output/ and shell/*.out, pi fullOutputPath temp logs), from the
archived (redacted) sidecars: under the right tool call, capped, escaped, with a note for a
missing or binary one. Homes are generated (tests/fx_s17_e2ecc.Gen, tests/fx_s17_e2e.PiTree,
the bundled OpenCode sample), synced to moto S3 on 127.0.0.1 and exported through the CLI."""

from __future__ import annotations

import random
import re
from pathlib import Path

from archiver.demo.opencode_sample import SES_A, SES_B, TOOL_A, TOOL_B, close_opencode_home, make_opencode_home
from archiver.render.doc import TOKEN_RX
from archiver.render.outputs import MAX_OUTPUT_BYTES, read_output
from tests.fx_archiver import USER, Env, env  # noqa: F401
from tests.fx_s11_e2e import planted_secret
from tests.fx_s17_e2e import PiTree, Plant, jl, pi_dir_name, pi_file_name, pi_full_session
from tests.fx_s17_e2ecc import PNG, Gen, js_key

BIG_LINE = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-big-output-line\n"  # 80 bytes
BIG_LINES = 4000  # 320,000 bytes: over the 256 KiB cap


def _only(env: Env, *harnesses: str) -> None:  # noqa: F811
    env.write_config("".join(f"[harnesses.{h}]\nenabled = {'true' if h in harnesses else 'false'}\n"
                             for h in ("claude-code", "codex", "cursor-agent", "opencode", "pi", "deepseek-harness")))


def _export(env: Env, key: str, fmt: str) -> str:  # noqa: F811
    doc = env.cli_json("export", key, "--format", fmt, identity=True)
    assert doc["integrity_errors"] == []
    return doc["document"]


def _after(doc: str, anchor: str, until: str) -> str:
    """The part of `doc` from `anchor` to the next `until` (the next tool call)."""
    start = doc.index(anchor)
    end = doc.find(until, start + len(anchor))
    return doc[start:] if end < 0 else doc[start:end]


# ---------------------------------------------------------------- Claude Code
def _claude_home(home: Path, user: str) -> dict[str, str]:
    """One session whose Bash results were persisted to tool-results/ (seed: <session-id>/tool-results/<id>.txt,
    toolUseResult.persistedOutputPath + a <persisted-output> preview): a small one holding a secret and a
    <script>, a big one, one whose file is gone, a binary one, and an MCP result named only by its preview."""
    g = Gen(home, user, seed=2020)
    H = str(home)
    sid = g.uuid()
    cwd = f"{H}/work/app"
    proj = f".claude/projects/{js_key(cwd)}"
    secret = g.secret("tool-results.small")  # kind 0: a GitHub PAT
    recs = [g.user(sid, cwd, None, "run the checks")]
    ids: dict[str, str] = {"sid": sid, "secret": secret}
    files = {
        "small": f"checking\nGITHUB_TOKEN={secret}\n<script>alert('x')</script>\nSMALL-DONE\n".encode(),
        "big": ("BIG-HEAD\n" + BIG_LINE * BIG_LINES + "BIG-TAIL\n").encode(),
        "gone": None,
        "binary": PNG + b"\x00\xff\xfe" * 10,
        "mcp": b"MCP-FULL-RESULT\n" * 3,
    }
    for label, data in files.items():
        mid = "msg_01" + g.alnum(20)
        tid = "toolu_01" + g.alnum(20)
        out_id = tid if label == "mcp" else g.alnum(9).lower()
        rel = f"{proj}/{sid}/tool-results/{out_id}.txt"
        call = g.assistant(sid, cwd, recs[-1]["uuid"], {"type": "tool_use", "id": tid, "name": f"Bash-{label}",
                                                         "input": {"command": f"make {label}"}}, mid)
        preview = f"<persisted-output>Output too large. Full output saved to: {H}/{rel}\nPreview ...</persisted-output>"
        tur = ([{"type": "text", "text": "MCP preview"}] if label == "mcp" else
               {"stdout": "", "stderr": "", "interrupted": False, "persistedOutputPath": f"{H}/{rel}",
                "persistedOutputSize": len(data or b"x")})
        recs += [call, g.result(sid, cwd, call["uuid"], tid, preview, tur)]
        ids[label] = tid
        if data is not None:
            g.write(rel, data)
    recs.append(g.assistant(sid, cwd, recs[-1]["uuid"], {"type": "text", "text": "All checks ran."}, "msg_01" + g.alnum(20)))
    g.jsonl(f"{proj}/{sid}.jsonl", recs, None)
    return ids


def test_claude_persisted_outputs_in_html_and_markdown(env: Env) -> None:  # noqa: F811
    _only(env, "claude-code")
    ids = _claude_home(env.home, USER)
    env.cli_json("sync", "--workers", "1")
    key = f"claude-code:{ids['sid']}"
    html = _export(env, key, "html")
    md = _export(env, key, "md")

    for doc in (html, md):
        assert ids["secret"] not in doc and ids["secret"][4:] not in doc
    # the small output sits under its own call, collapsed, secret replaced by its token, <script> escaped
    small = _after(html, ids["small"], "Tool call:")
    assert '<details class="output"><summary>Full output (' in small
    m = re.search(r"GITHUB_TOKEN=<mark class=\"redaction\" title=\"redacted [A-Z_]+\">(&lt;[A-Z_]+:[0-9a-f]{8}&gt;)</mark>",
                  small)
    assert m, small
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in small and "SMALL-DONE" in small
    assert "<script" not in html
    # the same in Markdown: a fenced block under the call, the token as the redactor wrote it
    small_md = _after(md, ids["small"], "**Tool call:")
    assert "Full output (" in small_md and "```text\nchecking\nGITHUB_TOKEN=<" in small_md
    assert TOKEN_RX.search(small_md.split("GITHUB_TOKEN=", 2)[-1]).group(0) == m.group(1).replace("&lt;", "<").replace("&gt;", ">")
    assert "<script>alert('x')</script>" in small_md  # literal inside the fence: Markdown shows it as code

    # the big one: the first 256 KiB, the rest left out with a note saying how much
    total = len("BIG-HEAD\n") + len(BIG_LINE) * BIG_LINES + len("BIG-TAIL\n")
    for doc, until in ((html, "Tool call:"), (md, "**Tool call:")):
        big = _after(doc, ids["big"], until)
        assert "BIG-HEAD" in big and "BIG-TAIL" not in big
        assert f"{total - MAX_OUTPUT_BYTES} more bytes not shown (the full output is {total} bytes)" in big
        assert big.count(BIG_LINE.strip()) == (MAX_OUTPUT_BYTES - len("BIG-HEAD\n")) // len(BIG_LINE)
    assert f"Full output ({MAX_OUTPUT_BYTES} bytes shown)" in html

    # a reference whose file was gone at sync: a note, not an error
    for doc, until in ((html, "Tool call:"), (md, "**Tool call:")):
        gone = _after(doc, ids["gone"], until)
        assert "full output not archived" in gone and "Full output (" not in gone
        binary = _after(doc, ids["binary"], until)
        size = len(PNG) + 30
        assert f"full output is binary or not UTF-8 text ({size} bytes), not shown" in binary
        assert "Full output (" not in binary and "IHDR" not in binary
        # named only by the <persisted-output> preview (toolUseResult is the MCP content list)
        assert _after(doc, ids["mcp"], until).count("MCP-FULL-RESULT") == 3


# ---------------------------------------------------------------- pi
def test_pi_full_output_paths(env: Env) -> None:  # noqa: F811
    _only(env, "pi")
    home = str(env.home)
    tmpdir = env.home / "tmp"
    tmpdir.mkdir()
    plant = Plant(home)
    tree = PiTree("s20-export")
    facts = pi_full_session(plant, tree, tmpdir, "s20")
    sid = "01890a5d-ac96-774b-bcce-b3020990e201"
    cwd = f"{home}/work/pi-app"
    header = {"type": "session", "version": 3, "id": sid, "timestamp": "2026-01-01T10:00:00.000Z", "cwd": cwd}
    folder = env.home / ".pi" / "agent" / "sessions" / pi_dir_name(cwd)
    folder.mkdir(parents=True)
    (folder / pi_file_name(1767261600000, sid)).write_bytes(jl(header, *tree.recs))
    kept, bash = (Path(p).read_text() for p in facts["outputs"])
    env.cli_json("sync", "--workers", "1")
    for fmt, until in (("html", "Tool call:"), ("md", "**Tool call:")):
        doc = _export(env, f"pi:{sid}", fmt)
        for _label, value in plant.needles():
            if _label != "username":
                assert value not in doc, _label
        # toolResult.details.fullOutputPath under call_1; bashExecution.fullOutputPath under the ls run
        call_1 = _after(doc, "call_1", until)
        assert "full output" in call_1 and "s20.fulloutput" in call_1 and "bash output" not in call_1
        ls_run = _after(doc, "bash (run by the user)", until)
        assert "bash output" in ls_run and "s20.bashfull" in ls_run
        gone = _after(doc, "sleep 9", until)
        assert "full output not archived" in gone
    assert kept.startswith("full output\n") and bash.startswith("bash output\n")


# ---------------------------------------------------------------- OpenCode
def test_opencode_tool_output_and_shell_capture(env: Env) -> None:  # noqa: F811
    _only(env, "opencode")
    made = make_opencode_home(env.home, USER)
    try:
        out_dir = env.home / ".local" / "share" / "opencode" / "tool-output"
        # the sample's GH_TOKEN is 34 characters after ghp_, a shape no rule claims: plant a real-shaped one
        secret = planted_secret(random.Random(20), 0, USER, "example.org")
        (out_dir / TOOL_A).write_text(f"full read output of login.py\nSECRET={secret}\n")
        (out_dir / TOOL_B).unlink()  # gone before the sync (OpenCode deletes them after 7 days)
        env.cli_json("sync", "--workers", "1")
    finally:
        close_opencode_home(made)
    for fmt, until in (("html", "Tool call:"), ("md", "**Tool call:")):
        a = _export(env, f"opencode:{SES_A}", fmt)
        assert secret not in a and secret[4:] not in a and f"pa55-{USER}-word" not in a
        read = _after(a, "call_read1", until)  # metadata.outputPath -> tool-output/tool_A
        assert "full read output of" in read and "SECRET=" in read
        assert TOKEN_RX.search(read.split("SECRET=", 1)[1][:120].replace("&lt;", "<").replace("&gt;", ">"))
        shell = _after(a, "shell (run by the user)", until)  # a truncated shell row -> shell/<project>/<sh_id>.out
        assert re.search(r"Full output \(\d+ bytes shown\)", shell), shell
        assert re.search(r"DB_PASSWORD=(<mark [^>]*>&lt;|<)PASSWORD:[0-9a-f]{8}", shell), shell  # the whole value redacted
        b = _export(env, f"opencode:{SES_B}", fmt)
        assert "full output not archived" in _after(b, "call_ls1", until)
        # sh_B's row is not truncated: its capture is what the row holds already, not repeated
        assert "Full output (" not in _after(b, "shell (run by the user)", until)


# ---------------------------------------------------------------- reading one output file
def test_read_output_caps_on_a_character_and_refuses_binary(tmp_path: Path) -> None:
    p = tmp_path / "out.txt"
    p.write_bytes(b"a" * 9 + "é".encode() * 4)  # 17 bytes; a cut at 10 falls inside the first é
    text, note = read_output(p, cap=10)
    assert text == "a" * 9 and note == "8 more bytes not shown (the full output is 17 bytes)"
    assert read_output(p, cap=11) == ("a" * 9 + "é", "6 more bytes not shown (the full output is 17 bytes)")
    assert read_output(p, cap=100) == ("a" * 9 + "é" * 4, None)
    p.write_bytes(b"text then \xff\xfe")
    assert read_output(p) == (None, "full output is binary or not UTF-8 text (12 bytes), not shown")
    p.write_bytes(b"nul\x00inside")
    assert read_output(p) == (None, "full output is binary or not UTF-8 text (10 bytes), not shown")
    p.write_bytes("tail é".encode()[:-1])  # a file ending inside a character
    assert read_output(p)[0] is None
