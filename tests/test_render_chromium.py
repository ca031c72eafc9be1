"""The HTML export rendered by headless Chromium: the page's text as the browser parsed it
(--dump-dom) and a screenshot of the right size with real content in it."""

from __future__ import annotations

import html
import os
import re
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

from archiver.demo.claude_sample import make_claude_home
from tests.fx_archiver import USER, Env, env  # noqa: F401

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install -y chromium)")

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def _chromium(tmp: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    profile = tmp / "chromium-profile"
    profile.mkdir(mode=0o700, exist_ok=True)
    run_env = dict(os.environ, HOME=str(profile))
    assert CHROMIUM is not None
    return subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *args],
                          capture_output=True, timeout=90, env=run_env, check=True)


def _text(dom: str) -> str:
    body = re.sub(r"(?s)<(style|head)\b.*?</\1>", " ", dom)
    body = re.sub(r"</?(mark|a|span|code|strong)\b[^>]*>", "", body)  # inline elements: no break
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", body)))


def _png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def test_html_export_in_headless_chromium(env: Env, tmp_path: Path) -> None:  # noqa: F811
    s = make_claude_home(env.home, USER)
    env.cli_json("sync", "--workers", "1")
    page = env.base / "export.html"
    doc = env.cli_json("export", f"claude-code:{s.main}", "--format", "html", "--out", str(page), identity=True)
    assert doc["integrity_errors"] == [] and len(doc["sessions"]) == 3

    dom = _chromium(tmp_path, "--dump-dom", page.as_uri()).stdout.decode()
    assert dom.lstrip().startswith("<!DOCTYPE html>") and "</body></html>" in dom.replace("\n", "")
    text = _text(dom)
    for expected in ("Deploy fixes for user-", "Fix the deploy script in /home/user-", "Tool call: Bash",
                     "Tool call: Agent", "→ subagent claude-code:" + s.subagent, "Conversation compacted",
                     "Compaction summary", "Done. Commit", "Audit deploy", "Found a key", "Run the review skill"):
        assert expected in text, expected
    assert USER not in text.replace("user-", "")
    assert text.index("Fix the deploy script") < text.index("Tool call: Bash") < text.index("Compaction summary")
    # the browser built real elements: marked redaction tokens, anchors to the subagent sections
    assert re.search(r'<mark class="redaction" title="redacted USERNAME">user-[0-9a-f]{4}</mark>', dom)
    assert f'<section class="session" id="s-claude-code-{s.subagent}">' in dom
    assert f'href="#s-claude-code-{s.subagent}"' in dom
    assert "<script" not in dom

    shot = tmp_path / "export.png"
    _chromium(tmp_path, f"--screenshot={shot}", "--window-size=1200,2000", "--hide-scrollbars", page.as_uri())
    data = shot.read_bytes()
    assert _png_size(data) == (1200, 2000)
    assert len(data) > 10_000  # a blank page compresses to a few KB
