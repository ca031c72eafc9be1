"""`archiver export` shows a Cursor shell call's terminal capture under the call, like the other
harnesses' persisted outputs (render/outputs.py): seeds/by-harness/cursor-agent.json lists
`~/.cursor/projects/<slug>/terminals/<n>.txt` as "shell output files referenced from shell tool
results (terminalsFolder / outputLocation.filePath)"; the tool prompt message carries them in
providerOptions.cursor.highLevelToolCallResult.output.<case>.outputLocation.filePath.

The home is generated (store.db in WAL mode through archiver.demo.cursor_sample's writer, blob ids
sha256, meta['0'] hex JSON), synced to a file:// store (tests/fx_home.box) and exported through the CLI."""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

from archiver.demo.cursor_sample import Store, fid, fs, jb, md5_dir, slug
from archiver.render.cursor import terminal_capture
from archiver.render.doc import TOKEN_RX
from archiver.render.outputs import MAX_OUTPUT_BYTES, output_key
from tests.fx_home import USER, Box, box  # noqa: F401
from tests.fx_s11_e2e import planted_secret

CHAT = "5a5a5a5a-1111-4222-8333-444455556666"
BIG_LINE = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-terminal-line\n"  # 80 bytes
BIG_LINES = 4000  # 320,000 bytes: over the 256 KiB cap
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"


def _shell_result(call: str, term: str, folder: str, text: str) -> dict[str, Any]:
    """A tool prompt message as the seed's example (role tool, id = toolCallId, one tool-result part)."""
    return {"role": "tool", "id": call, "content": [
        {"type": "tool-result", "toolCallId": call, "toolName": "Shell", "result": text,
         "experimental_content": [{"type": "text", "text": text}]}],
        "providerOptions": {"cursor": {"highLevelToolCallResult": {
            "output": {"success": {"exitCode": 0, "outputLocation": {"filePath": term}}, "terminalsFolder": folder},
            "isError": False}}}}


def _cursor_home(home: Path) -> dict[str, Any]:
    """One chat in project A with five Shell calls: a small capture holding a secret and a <script>,
    a big one, one whose file is gone, a binary one, and one run in project B's terminal 1 (the
    same file name as A's 1.txt)."""
    cwd_a, cwd_b = f"{home}/work/app", f"{home}/work/other"
    secret = planted_secret(random.Random(21), 0, USER, "example.org")  # a GitHub PAT
    proj = home / ".cursor" / "projects"
    captures: dict[str, tuple[Path, bytes | None]] = {
        "small": (proj / slug(cwd_a) / "terminals" / "1.txt",
                  f"$ make check\nGITHUB_TOKEN={secret}\n<script>alert('x')</script>\nSMALL-DONE\n".encode()),
        "big": (proj / slug(cwd_a) / "terminals" / "2.txt", ("BIG-HEAD\n" + BIG_LINE * BIG_LINES + "BIG-TAIL\n").encode()),
        "gone": (proj / slug(cwd_a) / "terminals" / "3.txt", None),
        "binary": (proj / slug(cwd_a) / "terminals" / "4.txt", PNG + b"\x00\xff\xfe" * 10),
        "other": (proj / slug(cwd_b) / "terminals" / "1.txt", b"$ ls\nOTHER-PROJECT-CAPTURE\n"),
    }
    st = Store(home / ".cursor" / "chats" / md5_dir(cwd_a) / CHAT / "store.db")
    ids = [st.put(jb({"role": "system", "content": "You are an AI coding assistant."})),
           st.put(jb({"role": "user", "content": [{"type": "text", "text": "<user_query>\nrun the checks\n</user_query>"}]}))]
    calls: dict[str, str] = {}
    for n, (label, (term, data)) in enumerate(captures.items()):
        call = f"tool_00000000-0000-4000-8000-0000000001{n:02d}"
        calls[label] = call
        ids.append(st.put(jb({"role": "assistant", "id": str(n + 1), "content": [
            {"type": "text", "text": f"Running {label}."},
            {"type": "tool-call", "toolCallId": call, "toolName": "Shell", "args": {"command": f"make {label}"}}]})))
        ids.append(st.put(jb(_shell_result(call, str(term), str(term.parent), f"{label} finished"))))
        if data is not None:
            term.parent.mkdir(parents=True, exist_ok=True)
            term.write_bytes(data)
    ids.append(st.put(jb({"role": "assistant", "id": "9", "content": [{"type": "text", "text": "All checks ran."}]})))
    root = st.put(b"".join(fid(1, i) for i in ids) + fs(9, f"file://{cwd_a}") + fs(22, "agent"))
    st.set_meta({"agentId": CHAT, "latestRootBlobId": root, "name": "Checks", "createdAt": 1760000000000,
                 "mode": "default", "lastUsedModel": "example-model"})
    st.close()
    (st.path.parent / "meta.json").write_text(jb({"schemaVersion": 1, "createdAtMs": 1760000000000,
                                                  "hasConversation": True, "title": "Checks", "cwd": cwd_a}).decode())
    return {"calls": calls, "secret": secret, "captures": captures}


def _export(box: Box, key: str, fmt: str) -> str:  # noqa: F811
    doc = box.cli("export", key, "--format", fmt, "--identity", str(box.base / "keys" / "identity.txt"))
    assert doc["integrity_errors"] == []
    return str(doc["document"])


def _under(doc: str, call: str, until: str) -> str:
    """The part of `doc` from the call's id to the next tool call."""
    start = doc.index(call)
    end = doc.find(until, start + len(call))
    return doc[start:] if end < 0 else doc[start:end]


def test_terminal_captures_under_their_shell_call(box: Box) -> None:  # noqa: F811
    box.only("cursor-agent")
    made = _cursor_home(box.home)
    calls, secret = made["calls"], made["secret"]
    box.sync()
    key = f"cursor-agent:{CHAT}"
    archived = {a["path"] for a in box.ls()[key]["artifacts"] if "/terminals/" in a["path"]}
    assert len(archived) == 4  # the gone one is optional and absent
    html, md = _export(box, key, "html"), _export(box, key, "md")

    for doc in (html, md):
        assert secret not in doc and secret[4:] not in doc
        assert USER not in doc
    # HTML: under its own call, collapsed, the secret replaced by its token, <script> escaped
    small = _under(html, calls["small"], "Tool call:")
    assert '<details class="output"><summary>Full output (' in small
    m = re.search(r"GITHUB_TOKEN=<mark class=\"redaction\" title=\"redacted [A-Z_]+\">(&lt;[A-Z_]+:[0-9a-f]{8}&gt;)</mark>", small)
    assert m, small
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in small and "SMALL-DONE" in small
    assert "<script" not in html
    assert "SMALL-DONE" not in _under(html, calls["big"], "Tool call:")
    # Markdown: a fenced block under the call, the same token
    small_md = _under(md, calls["small"], "**Tool call:")
    assert "Full output (" in small_md and "```text\n$ make check\nGITHUB_TOKEN=<" in small_md
    token = TOKEN_RX.search(small_md.split("GITHUB_TOKEN=", 1)[1]).group(0)
    assert token == m.group(1).replace("&lt;", "<").replace("&gt;", ">")
    assert "<script>alert('x')</script>" in small_md  # literal inside the fence

    total = len("BIG-HEAD\n") + len(BIG_LINE) * BIG_LINES + len("BIG-TAIL\n")
    for doc, until in ((html, "Tool call:"), (md, "**Tool call:")):
        big = _under(doc, calls["big"], until)
        assert "BIG-HEAD" in big and "BIG-TAIL" not in big
        assert f"{total - MAX_OUTPUT_BYTES} more bytes not shown (the full output is {total} bytes)" in big
        assert big.count(BIG_LINE.strip()) == (MAX_OUTPUT_BYTES - len("BIG-HEAD\n")) // len(BIG_LINE)
        gone = _under(doc, calls["gone"], until)
        assert "full output not archived" in gone and "Full output (" not in gone
        binary = _under(doc, calls["binary"], until)
        assert f"full output is binary or not UTF-8 text ({len(PNG) + 30} bytes), not shown" in binary
        assert "Full output (" not in binary and "IHDR" not in binary
        # project B's terminals/1.txt, not A's file of the same name
        other = _under(doc, calls["other"], until)
        assert "OTHER-PROJECT-CAPTURE" in other and "SMALL-DONE" not in other
        assert doc.count("OTHER-PROJECT-CAPTURE") == 1 and doc.count("SMALL-DONE") == 1


def test_capture_reference_and_key() -> None:
    """The seed's shape (output.success.outputLocation.filePath) and an older one nested under the
    case name; a result naming no file gives none. Reference and archived path share one key."""
    seed = {"output": {"success": {"exitCode": 1, "outputLocation": {"filePath": "/h/.cursor/projects/s-a/terminals/7.txt"}},
                       "terminalsFolder": "/h/.cursor/projects/s-a/terminals"}, "isError": False}
    older = {"shell": {"outputLocation": {"filePath": "C:\\Users\\u\\.cursor\\projects\\s-b\\terminals\\2.txt"}}}
    assert terminal_capture(seed) == "/h/.cursor/projects/s-a/terminals/7.txt"
    assert terminal_capture(older) == "C:\\Users\\u\\.cursor\\projects\\s-b\\terminals\\2.txt"
    assert terminal_capture({"output": {"success": {"path": "src/x.ts"}}, "isError": False}) is None
    assert terminal_capture(None) is None and terminal_capture("x") is None
    assert output_key("cursor-agent", "/h/.cursor/projects/s-a/terminals/7.txt") == "s-a/terminals/7.txt"
    assert output_key("cursor-agent", ".cursor/projects/s-a/terminals/7.txt") == "s-a/terminals/7.txt"
    assert output_key("cursor-agent", older["shell"]["outputLocation"]["filePath"]) == "s-b/terminals/2.txt"
    assert output_key("cursor-agent", ".cursor/projects/s-a/agent-transcripts/c/c.jsonl") is None
    assert output_key("cursor-agent", ".cursor/chats/x/c/store.db") is None
