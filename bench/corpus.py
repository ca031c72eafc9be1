#!/usr/bin/env python3
"""Benchmark corpus: a generated HOME holding sessions of all six harnesses.

    python bench/corpus.py --mb 300 --out /tmp/corpus             # realistic mix, ~300 MB
    python bench/corpus.py --sessions 10000 --out /tmp/many        # many tiny sessions
    python bench/corpus.py --mb 1200 --big-transcript-mb 1000 --huge-line-mb 100 --out /tmp/mem

Layout: OUT/home/ is the HOME (.claude, .codex, .cursor, .local/share/opencode, .pi/agent,
.deepseek/sessions); OUT/corpus.json describes it (seed, users, bytes per harness, the
append-only transcripts that `append()` grows).

Structure comes from the sample generators (archiver/demo/*_sample.py: subagents, forks,
reverts, WAL-only rows, torn lines...), called
once (Claude: once per seed); bulk comes from streaming writers here that follow the same
seeds (/work/shared/seeds): long sessions, many small sidecars (tool results, file-history
backups, shell snapshots, tool-output files), reasoning blobs, base64 images (a few lines of
5-20 MB), SQLite stores (OpenCode, Cursor), old Codex rollouts compressed to .jsonl.zst.
Text is code, paths, tool output and prose, with a few fake, well-shaped secrets.

Deterministic for a seed and output folder (same files, same bytes; SQLite files hold the
same rows; a few sample files record their own absolute paths). Written
streaming: no file is ever built in memory, so a 5 GB corpus needs little RAM.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import random
import sqlite3
import sys
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # `archiver` when run as a script

import zstandard  # noqa: E402

MB = 1_000_000
HARNESSES = ("claude-code", "codex", "opencode", "cursor-agent", "pi", "deepseek-harness")
SHARES = {"claude-code": 0.38, "codex": 0.22, "opencode": 0.12, "cursor-agent": 0.10, "pi": 0.10,
          "deepseek-harness": 0.08}
TINY_SHARES = {"claude-code": 0.40, "codex": 0.25, "pi": 0.20, "deepseek-harness": 0.15}
T0_MS = 1767225600000  # 2026-01-01T00:00:00Z
PROJECTS = ("webapp", "api", "infra", "ml-pipeline", "cli-tool", "payments", "docs-site", "mobile")

WORDS = (
    "the a to of and in is it for on with that this be as are we can not you will if use should but by from "
    "function method class module test tests failing passes error exception return value type config file path "
    "directory build deploy server client request response handler route endpoint database query index table "
    "migration schema cache session token user users account login password auth middleware logger logging "
    "retry timeout connection pool worker queue job thread async await promise callback event stream buffer "
    "parse serialize json yaml toml encode decode hash key secret environment variable container image docker "
    "kubernetes cluster node pod service ingress bucket object upload download compress encrypt refactor rename "
    "extract inline dependency package version upgrade lint format typecheck coverage fixture mock patch assert "
    "branch commit merge rebase diff review pull push tag release changelog issue bug fix feature flag rollout "
    "metrics latency throughput memory cpu profile benchmark optimize slow fast large small first last next "
    "previous update create delete list read write open close start stop run check verify validate"
).split()
IDENT = ("user", "order", "item", "cart", "price", "invoice", "report", "session", "token", "cache", "event", "queue",
         "worker", "config", "client", "server", "handler", "router", "schema", "record", "batch", "stream", "job",
         "task", "plan", "graph", "node", "edge", "index", "query", "result", "payload", "context", "state", "store")
EXTS = ("py", "ts", "tsx", "go", "rs", "sql", "yaml", "md", "sh", "json", "toml", "js")


# ================================================================ text
def fake_secret(rng: random.Random, kind: str) -> str:
    """Well-shaped, invalid credentials (never live ones)."""
    up = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
    an = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
    if kind == "aws":
        return "AKIA" + "".join(rng.choice(up) for _ in range(16))
    if kind == "github":
        return "ghp_" + "".join(rng.choice(an) for _ in range(36))
    if kind == "anthropic":
        return "sk-ant-api03-" + "".join(rng.choice(an) for _ in range(40))
    if kind == "email":
        return f"{rng.choice(('dev', 'ops', 'jane.doe', 'j.smith', 'billing'))}{rng.randrange(100)}@example-corp.com"
    return "".join(rng.choice(an) for _ in range(24))


class Text:
    """Pools of generated fragments (prose, code, tool output) composed per line: realistic
    redundancy for zstd, cheap enough for gigabytes."""

    def __init__(self, rng: random.Random, user: str, pool: int = 600, tiny: bool = False) -> None:
        self.rng = rng
        self.tiny = tiny  # sessions of a few KB: short fragments, one tool call per turn
        self.user = user
        self.home = f"/home/{user}"
        self.prose = [self._prose(rng.randint(8, 60)) for _ in range(pool)]
        self.code = [self._code() for _ in range(pool // 2)]
        self.outputs = [self._output() for _ in range(pool // 2)]
        self.secrets_planted = 0
        self.secret_rate = 0.004

    # ---- fragments ----
    def _prose(self, n: int) -> str:
        r = self.rng
        words = [r.choice(WORDS) for _ in range(n)]
        words[0] = words[0].capitalize()
        out = " ".join(words) + r.choice((".", ".", ".", "?", ":"))
        if r.random() < 0.3:
            out += f" See `{self.path()}`."
        return out

    def ident(self) -> str:
        r = self.rng
        return f"{r.choice(IDENT)}_{r.choice(IDENT)}" if r.random() < 0.5 else r.choice(IDENT) + r.choice(IDENT).capitalize()

    def path(self, project: str | None = None) -> str:
        r = self.rng
        project = project or r.choice(PROJECTS)
        depth = "/".join(r.choice(IDENT) for _ in range(r.randint(0, 3)))
        return f"{self.home}/work/{project}/src/{depth + '/' if depth else ''}{self.ident()}.{r.choice(EXTS)}"

    def _code(self) -> str:
        r = self.rng
        kind = r.random()
        if kind < 0.45:
            fn, arg = self.ident(), r.choice(IDENT)
            body = [f"def {fn}({arg}, *, retries: int = {r.randint(1, 5)}) -> dict:",
                    f'    """{self._prose(r.randint(5, 14))}"""']
            for i in range(r.randint(3, 25)):
                v = self.ident()
                body.append(r.choice((
                    f"    {v} = {arg}.get({r.choice(IDENT)!r}, {r.randint(0, 999)})",
                    f"    if not {v}:\n        raise ValueError(f\"missing {v} for {{{arg}!r}}\")",
                    f"    for {r.choice('ijk')} in range(len({v})):\n        log.debug('%s %d', {v}, {r.randint(0, 99)})",
                    f"    result[{v!r}] = await client.fetch('/api/v{r.randint(1, 3)}/{r.choice(IDENT)}s/{{{v}}}')",
                    f"    # {self._prose(r.randint(4, 10))}",
                )))
            body.append("    return result")
            return "\n".join(body)
        if kind < 0.75:
            name = self.ident()
            lines = [f"export async function {name}(req: Request, res: Response): Promise<void> {{"]
            for _ in range(r.randint(3, 18)):
                v = self.ident()
                lines.append(r.choice((
                    f"  const {v} = await db.{r.choice(IDENT)}.findMany({{ where: {{ id: req.params.id }} }});",
                    f"  if (!{v}) {{ return res.status({r.choice((400, 404, 409))}).json({{ error: '{v} not found' }}); }}",
                    f"  logger.info(`{r.choice(WORDS)} ${{{v}.length}} {r.choice(IDENT)}s`);",
                    f"  // {self._prose(r.randint(4, 10))}",
                )))
            lines.append("}")
            return "\n".join(lines)
        lines = ["#!/usr/bin/env bash", "set -euo pipefail"]
        for _ in range(r.randint(3, 12)):
            lines.append(r.choice((
                f"cd {self.home}/work/{r.choice(PROJECTS)}",
                f"docker build -t registry.example.com/{r.choice(IDENT)}:{r.randint(1, 99)}.{r.randint(0, 9)} .",
                f"kubectl -n {r.choice(IDENT)} rollout status deploy/{r.choice(IDENT)} --timeout={r.randint(30, 300)}s",
                f"aws s3 cp build/{self.ident()}.tar.gz s3://artifacts-{r.choice(IDENT)}/{r.randint(1000, 9999)}/",
                f"echo \"{self._prose(r.randint(3, 8))}\"",
            )))
        return "\n".join(lines)

    def _output(self) -> str:
        r = self.rng
        kind = r.random()
        if kind < 0.25:
            lines = ["============================= test session starts ==============================",
                     f"platform linux -- Python 3.11.{r.randint(0, 9)}, pytest-8.{r.randint(0, 3)}.{r.randint(0, 9)}",
                     f"rootdir: {self.home}/work/{r.choice(PROJECTS)}", f"collected {r.randint(5, 400)} items", ""]
            for _ in range(r.randint(3, 30)):
                lines.append(f"tests/test_{self.ident()}.py {'.' * r.randint(1, 40)}{'F' if r.random() < 0.1 else ''} [{r.randint(1, 100):3d}%]")
            if r.random() < 0.4:
                lines += ["", "=================================== FAILURES ===================================",
                          f"___ test_{self.ident()} ___", "", f"    def test_{self.ident()}():",
                          f">       assert {self.ident()}() == {r.randint(0, 99)}", f"E       AssertionError: assert {r.randint(100, 999)} == {r.randint(0, 99)}",
                          "", f"{self.path()}:{r.randint(10, 500)}: AssertionError"]
            lines.append(f"========================= {r.randint(1, 300)} passed in {r.random() * 20:.2f}s =========================")
            return "\n".join(lines)
        if kind < 0.45:
            out = []
            for _ in range(r.randint(3, 20)):
                sha = "%040x" % r.getrandbits(160)
                out.append(f"commit {sha}\nAuthor: {r.choice(('Jane Doe', 'Sam Lee', 'Dev Bot'))} <dev{r.randrange(9)}@example.com>\n"
                           f"Date:   Mon Jan {r.randint(1, 28)} {r.randint(0, 23):02d}:{r.randint(0, 59):02d}:00 2026 +0000\n\n    {self._prose(r.randint(4, 12))}\n")
            return "\n".join(out)
        if kind < 0.6:
            out = [f"diff --git a/src/{self.ident()}.py b/src/{self.ident()}.py", f"index {r.getrandbits(28):07x}..{r.getrandbits(28):07x} 100644"]
            for _ in range(r.randint(2, 8)):
                out.append(f"@@ -{r.randint(1, 300)},{r.randint(3, 20)} +{r.randint(1, 300)},{r.randint(3, 20)} @@")
                for line in self.rng.choice(self.code or [self._prose(10)]).splitlines()[: r.randint(3, 12)]:
                    out.append(r.choice(("+", "-", " ")) + line)
            return "\n".join(out)
        if kind < 0.75:
            return "\n".join(
                f"{self.path()}:{r.randint(1, 900)}:{r.choice(('    ', ''))}{r.choice(('def ', 'class ', 'return ', 'import '))}{self.ident()}"
                for _ in range(r.randint(3, 40)))
        if kind < 0.87:
            lines = ["total %d" % r.randint(8, 400)]
            for _ in range(r.randint(3, 30)):
                lines.append(f"-rw-r--r--  1 {self.user} {self.user} {r.randint(100, 90000):>6} Jan {r.randint(1, 28):2d} "
                             f"{r.randint(0, 23):02d}:{r.randint(0, 59):02d} {self.ident()}.{r.choice(EXTS)}")
            return "\n".join(lines)
        frames = [f'  File "{self.path()}", line {r.randint(1, 800)}, in {self.ident()}\n    {self.ident()}({self.ident()})'
                  for _ in range(r.randint(2, 12))]
        return "Traceback (most recent call last):\n" + "\n".join(frames) + f"\nKeyError: '{self.ident()}'"

    # ---- composition ----
    def _maybe_secret(self, text: str) -> str:
        if self.rng.random() >= self.secret_rate:
            return text
        self.secrets_planted += 1
        r = self.rng
        kind = r.choice(("aws", "github", "anthropic", "email"))
        value = fake_secret(r, kind)
        line = {"aws": f"export AWS_ACCESS_KEY_ID={value}", "github": f"GITHUB_TOKEN={value}",
                "anthropic": f"ANTHROPIC_API_KEY={value}", "email": f"contact: {value}"}[kind]
        return f"{text}\n{line}"

    def prompt(self) -> str:
        r = self.rng
        if self.tiny:
            return self._maybe_secret(r.choice(self.prose))
        parts = [r.choice(self.prose) for _ in range(r.randint(1, 3))]
        if r.random() < 0.3:
            parts.append(f"The file is {self.path()}.")
        return self._maybe_secret(" ".join(parts))

    def answer(self) -> str:
        r = self.rng
        if self.tiny:
            return r.choice(self.prose)
        parts = [r.choice(self.prose) for _ in range(r.randint(1, 6))]
        if r.random() < 0.4:
            parts.append("```python\n" + r.choice(self.code) + "\n```")
        return "\n\n".join(parts)

    def output(self, big: bool = False) -> str:
        r = self.rng
        if self.tiny:
            return self._maybe_secret(r.choice(self.outputs)[:300])
        n = r.randint(4, 12) if big else r.randint(1, 2)
        return self._maybe_secret("\n".join(r.choice(self.outputs) for _ in range(n)))

    def file_content(self) -> str:
        r = self.rng
        if self.tiny:
            return r.choice(self.code)[:400] + "\n"
        return "\n\n".join(r.choice(self.code) for _ in range(r.randint(1, 6))) + "\n"


def rid(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def hexid(rng: random.Random, n: int) -> str:
    return "%0*x" % (n, rng.getrandbits(4 * n))


def iso(ms: int) -> str:
    t = time.gmtime(ms // 1000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", t) + f".{ms % 1000:03d}Z"


def b64_random(rng: random.Random, nbytes: int) -> str:
    """Base64 of an incompressible 'image' (PNG signature, then noise)."""
    raw = b"\x89PNG\r\n\x1a\n" + rng.randbytes(max(0, nbytes - 8))
    return base64.b64encode(raw).decode()


# ================================================================ streaming JSONL
_PLACEHOLDER = "\u0000BIG\u0000"


class Jsonl:
    """Append-or-create JSONL writer that counts bytes; big base64 strings are streamed."""

    def __init__(self, path: Path, mode: str = "wb", compress: bool = False) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._raw = path.open(mode)
        self._zst = zstandard.ZstdCompressor(level=3).stream_writer(self._raw) if compress else None
        self.f = self._zst or self._raw
        self.n = 0

    def write(self, obj: dict[str, Any]) -> None:
        data = json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"
        self.f.write(data)
        self.n += len(data)

    def write_with_blob(self, obj: dict[str, Any], rng: random.Random, nbytes: int) -> None:
        """`obj` holds the placeholder string where base64 of `nbytes` random bytes goes."""
        text = json.dumps(obj, separators=(",", ":"))
        head, tail = text.split(json.dumps(_PLACEHOLDER)[1:-1], 1)
        self.f.write(head.encode())
        self.n += len(head)
        chunk = 3 * 1024 * 1024
        first = True
        left = nbytes
        while left > 0:
            take = min(chunk, left)
            raw = (b"\x89PNG\r\n\x1a\n" + rng.randbytes(take - 8)) if first else rng.randbytes(take)
            first = False
            enc = base64.b64encode(raw)
            self.f.write(enc)
            self.n += len(enc)
            left -= take
        self.f.write(tail.encode() + b"\n")
        self.n += len(tail) + 1

    def close(self) -> None:
        if self._zst is not None:
            self._zst.close()  # closes the raw file too
        else:
            self._raw.close()


# ================================================================ per-harness bulk writers
@dataclass
class Ctx:
    home: Path
    user: str
    rng: random.Random
    text: Text
    clock: int = T0_MS
    appendable: list[dict[str, Any]] = field(default_factory=list)
    sessions: dict[str, int] = field(default_factory=lambda: {h: 0 for h in HARNESSES})

    def tick(self, lo: int = 500, hi: int = 40_000) -> int:
        self.clock += self.rng.randint(lo, hi)
        return self.clock


# ---------------------------------------------------------------- claude-code
CLAUDE_VERSION = "2.1.310"


def claude_project_key(cwd: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in cwd)


class ClaudeSession:
    """One Claude Code transcript written line by line (the shapes of claude_sample.py)."""

    def __init__(self, ctx: Ctx, out: Jsonl, sid: str, cwd: str, last: str | None = None, agent_id: str | None = None) -> None:
        self.ctx, self.out, self.sid, self.cwd, self.last, self.agent_id = ctx, out, sid, cwd, last, agent_id

    def conv(self, type_: str, extra: dict[str, Any], blob: int = 0) -> str:
        r = self.ctx.rng
        u = rid(r)
        rec: dict[str, Any] = {"parentUuid": self.last, "isSidechain": self.agent_id is not None, "userType": "external",
                               "cwd": self.cwd, "sessionId": self.sid, "version": CLAUDE_VERSION, "gitBranch": "main",
                               "entrypoint": "cli"}
        if self.agent_id:
            rec["agentId"] = self.agent_id
        rec.update({"timestamp": iso(self.ctx.tick()), "uuid": u, "type": type_})
        rec.update(extra)
        if blob:
            self.out.write_with_blob(rec, r, blob)
        else:
            self.out.write(rec)
        self.last = u
        return u

    def assistant(self, content: list[dict[str, Any]], stop: str | None) -> str:
        r = self.ctx.rng
        return self.conv("assistant", {"requestId": "req_011" + hexid(r, 20), "message": {
            "id": "msg_01" + hexid(r, 22), "type": "message", "role": "assistant", "model": "claude-opus-5-5",
            "content": content, "stop_reason": stop,
            "usage": {"input_tokens": r.randint(10, 90000), "output_tokens": r.randint(5, 4000),
                      "cache_read_input_tokens": r.randint(0, 150000)}}})

    def turn(self, sdir: Path | None = None) -> int:
        """A prompt, a few tool calls with results, an answer. Returns sidecar bytes written."""
        ctx, r, t = self.ctx, self.ctx.rng, self.ctx.text
        side = 0
        self.conv("user", {"message": {"role": "user", "content": t.prompt()}, "promptSource": "typed", "promptId": rid(r)})
        if not t.tiny and r.random() < 0.5:
            sig = base64.b64encode(r.randbytes(r.randint(200, 900))).decode()
            self.assistant([{"type": "thinking", "thinking": r.choice(t.prose), "signature": sig}], None)
        for _ in range(1 if t.tiny else r.randint(1, 6)):
            tool = r.choice(("Read", "Bash", "Bash", "Edit", "Grep", "Write"))
            tid = "toolu_01" + hexid(r, 22)
            path = t.path()
            inp: dict[str, Any] = {
                "Read": {"file_path": path}, "Bash": {"command": r.choice(t.code).splitlines()[-1][:200], "description": r.choice(t.prose)[:60]},
                "Edit": {"file_path": path, "old_string": r.choice(t.code)[:400], "new_string": r.choice(t.code)[:400]},
                "Grep": {"pattern": t.ident(), "path": str(Path(path).parent)}, "Write": {"file_path": path, "content": t.file_content()},
            }[tool]
            a = self.assistant([{"type": "tool_use", "id": tid, "name": tool, "input": inp}], "tool_use")
            big = r.random() < 0.12
            body = t.file_content() if tool == "Read" else t.output(big)
            extra: dict[str, Any] = {"sourceToolAssistantUUID": a}
            content: Any = body
            if big and sdir is not None:  # spilled to tool-results/: a small sidecar per big output
                name = hexid(r, 9) + ".txt"
                p = sdir / "tool-results" / name
                p.parent.mkdir(parents=True, exist_ok=True)
                p.write_text(body)
                side += len(body.encode())
                shown = f"/home/{ctx.user}/{p.relative_to(ctx.home).as_posix()}"  # as the harness wrote it
                content = f"<persisted-output>Output too large ({len(body)} bytes); saved to {shown}</persisted-output>"
                extra["toolUseResult"] = {"persistedOutputPath": shown, "persistedOutputSize": len(body)}
            else:
                extra["toolUseResult"] = {"stdout": body[:2000], "stderr": "", "interrupted": False}
            if tool == "Edit" and sdir is not None and r.random() < 0.5:  # file-history backup
                fh = ctx.home / ".claude" / "file-history" / self.sid
                fh.mkdir(parents=True, exist_ok=True)
                data = t.file_content()
                (fh / f"{hexid(r, 16)}@v{r.randint(1, 4)}").write_text(data)
                side += len(data.encode())
            self.conv("user", {"message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tid, "content": content}]}, **extra})
        if not t.tiny and r.random() < 0.04:  # a pasted screenshot
            self.conv("user", {"message": {"role": "user", "content": [{"type": "text", "text": "Here is a screenshot"}, {
                "type": "image", "source": {"type": "base64", "media_type": "image/png", "data": _PLACEHOLDER}}]}},
                blob=r.randint(20_000, 400_000))
        self.assistant([{"type": "text", "text": t.answer()}], "end_turn")
        return side


def claude_session(ctx: Ctx, project: str, budget: int, big_lines: list[int], subagents: bool = True) -> int:
    r = ctx.rng
    cwd = f"/home/{ctx.user}/work/{project}"
    pdir = ctx.home / ".claude" / "projects" / claude_project_key(cwd)
    sid = rid(r)
    path = pdir / f"{sid}.jsonl"
    out = Jsonl(path)
    s = ClaudeSession(ctx, out, sid, cwd)
    s.conv("attachment", {"attachment": {"type": "session_context", "context": {"gitStatus": f"On branch main\nHEAD {hexid(r, 40)}"}}})
    sdir = pdir / sid
    side = 0
    for size in big_lines:  # the few huge pasted images go early in long sessions
        s.conv("user", {"message": {"role": "user", "content": [{"type": "text", "text": "full-resolution screenshot"}, {
            "type": "image", "source": {"type": "base64", "media_type": "image/png", "data": _PLACEHOLDER}}]}}, blob=size)
    while out.n + side < budget:
        side += s.turn(sdir)
        if subagents and r.random() < 0.06:  # an Agent tool call and its subagent transcript
            agent = "a" + hexid(r, 16)
            tool_id = "toolu_01" + hexid(r, 22)
            s.assistant([{"type": "tool_use", "id": tool_id, "name": "Agent", "input": {"description": "Investigate", "prompt": r.choice(ctx.text.prose), "subagent_type": "general-purpose"}}], "tool_use")
            sub_out = Jsonl(sdir / "subagents" / f"agent-{agent}.jsonl")
            sub = ClaudeSession(ctx, sub_out, sid, cwd, agent_id=agent)
            for _ in range(r.randint(1, 4)):
                side += sub.turn(None)
            sub_out.close()
            side += sub_out.n
            meta = json.dumps({"agentType": "general-purpose", "description": "Investigate", "toolUseId": tool_id, "spawnDepth": 1})
            (sdir / "subagents" / f"agent-{agent}.meta.json").write_text(meta)
            side += len(meta)
            s.conv("user", {"message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool_id, "content": "done"}]}, "toolUseResult": {"agentId": agent}})
    out.write({"type": "ai-title", "aiTitle": r.choice(ctx.text.prose)[:60], "sessionId": sid})
    out.write({"type": "last-prompt", "lastPrompt": "continue", "leafUuid": s.last, "sessionId": sid})
    out.close()
    ctx.appendable.append({"harness": "claude-code", "path": str(path.relative_to(ctx.home)), "session": sid, "cwd": cwd})
    ctx.sessions["claude-code"] += 1
    with (ctx.home / ".claude" / "history.jsonl").open("a") as h:
        h.write(json.dumps({"display": ctx.text.prompt()[:200], "pastedContents": {}, "project": cwd, "sessionId": sid,
                            "timestamp": ctx.clock}) + "\n")
    return out.n + side


# ---------------------------------------------------------------- codex
def codex_session(ctx: Ctx, project: str, budget: int, compressed: bool = False) -> int:
    from archiver.demo.codex_sample import _line, _meta, _rollout_name, _turn, opaque_blob

    r = ctx.rng
    cwd = f"/home/{ctx.user}/work/{project}"
    tid = "0199" + hexid(r, 4) + "-" + hexid(r, 4) + "-7" + hexid(r, 3) + "-8" + hexid(r, 3) + "-" + hexid(r, 12)
    start = ctx.tick(3_600_000, 30_000_000)
    t = time.gmtime(start // 1000)
    ts = iso(start)
    name = _rollout_name(time.strftime("%Y-%m-%dT%H-%M-%S", t), tid) + (".zst" if compressed else "")
    path = ctx.home / ".codex" / "sessions" / time.strftime("%Y/%m/%d", t) / name
    out = Jsonl(path, compress=compressed)
    out.f.write(_line(ts, "session_meta", _meta(tid, ts, cwd), 0))
    ordinal, turn = 1, 0
    written = 0
    while True:
        turn += 1
        tn = f"t{turn}"
        lines = _turn(tid, tn, ts, ordinal, ctx.text.prompt(), ctx.text.answer(), cwd)
        ordinal += len(lines)
        for i in range(r.randint(0, 1) if ctx.text.tiny else r.randint(0, 5)):
            call = "call_" + hexid(r, 20)
            if not ctx.text.tiny and r.random() < 0.5:
                lines.append(_line(ts, "response_item", {"type": "reasoning", "id": "rs_" + hexid(r, 12), "summary": [{"type": "summary_text", "text": r.choice(ctx.text.prose)}],
                                                          "encrypted_content": opaque_blob(call, r.randint(1000, 16000))}, ordinal))
                ordinal += 1
            lines.append(_line(ts, "response_item", {"type": "function_call", "name": "exec_command", "call_id": call,
                                                      "arguments": json.dumps({"cmd": r.choice(ctx.text.code).splitlines()[-1][:200], "workdir": cwd})}, ordinal))
            lines.append(_line(ts, "response_item", {"type": "function_call_output", "call_id": call,
                                                      "output": f"Process exited with code 0\nOutput:\n{ctx.text.output(r.random() < 0.1)}"}, ordinal + 1))
            ordinal += 2
        for ln in lines:
            out.f.write(ln)
            written += len(ln)
        if written >= budget:
            break
    out.close()
    if not compressed:
        ctx.appendable.append({"harness": "codex", "path": str(path.relative_to(ctx.home)), "session": tid, "cwd": cwd})
    if r.random() < 0.3:  # shell snapshot sidecar
        snap = ctx.home / ".codex" / "shell_snapshots" / f"{tid}.{start}000000.sh"
        snap.parent.mkdir(parents=True, exist_ok=True)
        snap.write_text(f"# Snapshot file\nunalias -a 2>/dev/null || true\ndeclare -x HOME=\"/home/{ctx.user}\"\n"
                        f"declare -x PATH=\"/home/{ctx.user}/.local/bin:/usr/bin\"\n")
    with (ctx.home / ".codex" / "session_index.jsonl").open("a") as f:
        f.write(json.dumps({"id": tid, "thread_name": r.choice(ctx.text.prose)[:50], "updated_at": ts[:19] + "Z"}) + "\n")
    ctx.sessions["codex"] += 1
    return path.stat().st_size


# ---------------------------------------------------------------- pi
def pi_session(ctx: Ctx, project: str, budget: int) -> int:
    from archiver.demo.pi_sample import USAGE, _file_name, _msg, cwd_dir

    r = ctx.rng
    cwd = f"/home/{ctx.user}/work/{project}"
    sid = rid(r)
    ts0 = iso(ctx.tick(3_600_000, 30_000_000))
    path = ctx.home / ".pi" / "agent" / "sessions" / cwd_dir(cwd) / _file_name(ts0, sid)
    out = Jsonl(path)
    out.write({"type": "session", "version": 3, "id": sid, "timestamp": ts0, "cwd": cwd})
    last: str | None = None
    while out.n < budget:
        last = pi_turn(ctx, out, last, USAGE, _msg)
    out.close()
    ctx.appendable.append({"harness": "pi", "path": str(path.relative_to(ctx.home)), "session": sid, "cwd": cwd})
    ctx.sessions["pi"] += 1
    return out.n


def pi_turn(ctx: Ctx, out: Jsonl, last: str | None, usage: dict[str, Any], msg: Callable[..., dict[str, Any]]) -> str:
    r, t = ctx.rng, ctx.text

    def entry(message: dict[str, Any]) -> str:
        nonlocal last
        eid = hexid(r, 8)
        ms = ctx.tick()
        message["timestamp"] = ms
        out.write(msg(eid, last, iso(ms), message))
        last = eid
        return eid

    entry({"role": "user", "content": [{"type": "text", "text": t.prompt()}]})
    for _ in range(r.randint(0, 1) if t.tiny else r.randint(0, 4)):
        call = "call_" + hexid(r, 12)
        entry({"role": "assistant", "content": [{"type": "toolCall", "id": call, "name": "bash", "arguments": {"command": r.choice(t.code).splitlines()[-1][:200]}}],
               "api": "anthropic-messages", "provider": "anthropic", "model": "example-model", "usage": usage, "stopReason": "toolUse"})
        entry({"role": "toolResult", "toolCallId": call, "toolName": "bash", "content": [{"type": "text", "text": t.output()}], "isError": False})
    entry({"role": "assistant", "content": [{"type": "text", "text": t.answer()}], "api": "anthropic-messages",
           "provider": "anthropic", "model": "example-model", "usage": usage, "stopReason": "stop"})
    assert last is not None
    return last


# ---------------------------------------------------------------- deepseek
def deepseek_session(ctx: Ctx, project: str, budget: int) -> int:
    from archiver.demo.deepseek_sample import _header

    r = ctx.rng
    cwd = f"/home/{ctx.user}/src/{project}"
    sid = "ds-01" + "".join(r.choice("0123456789ABCDEFGHJKMNPQRSTVWXYZ") for _ in range(24))
    path = ctx.home / ".deepseek" / "sessions" / f"{sid}.jsonl"
    out = Jsonl(path)
    out.write(_header(sid, ctx.tick(3_600_000, 30_000_000), cwd, agentPreset="default"))
    seq, turn = 0, 0
    while out.n < budget:
        turn += 1
        seq = deepseek_turn(ctx, out, seq, turn)
    out.close()
    ctx.appendable.append({"harness": "deepseek-harness", "path": str(path.relative_to(ctx.home)), "session": sid, "cwd": cwd})
    ctx.sessions["deepseek-harness"] += 1
    return out.n


def deepseek_turn(ctx: Ctx, out: Jsonl, seq: int, turn: int) -> int:
    from archiver.demo.deepseek_sample import _assistant, _ev, _user

    r, t = ctx.rng, ctx.text

    def nxt() -> int:
        nonlocal seq
        seq += 1
        return seq

    out.write(_ev(nxt(), "turn/start", {"turn": turn}))
    out.write(_user(nxt(), "m-" + hexid(r, 10), t.prompt()))
    for step in range(1, (1 if t.tiny else r.randint(1, 4)) + 1):
        out.write(_ev(nxt(), "step/start", {"turn": turn, "step": step}))
        call = "call_" + hexid(r, 10)
        args = json.dumps({"path": t.path()})
        out.write(_assistant(nxt(), turn, step, "m-" + hexid(r, 10), [{"type": "reasoning", "text": r.choice(t.prose)},
                                                                      {"type": "tool-call", "id": call, "name": "read", "arguments": args}]))
        out.write(_ev(nxt(), "tool/call", {"turn": turn, "step": step, "callId": call, "name": "read", "arguments": args}))
        out.write(_ev(nxt(), "tool/result", {"turn": turn, "step": step, "message": {
            "id": "m-" + hexid(r, 10), "role": "user", "source": {"kind": "tool", "callId": call},
            "content": [{"type": "tool-result", "toolCallId": call, "content": [{"type": "text", "text": t.file_content()}]}]}},
            surfaceOp="append"))
        out.write(_ev(nxt(), "step/end", {"turn": turn, "step": step}))
    out.write(_assistant(nxt(), turn, 99, "m-" + hexid(r, 10), [{"type": "text", "text": t.answer()}]))
    out.write(_ev(nxt(), "turn/end", {"turn": turn}))
    return seq


# ---------------------------------------------------------------- opencode (rows in opencode.db)
def opencode_sessions(ctx: Ctx, budget: int, median: int) -> int:
    from archiver.demo.opencode_sample import P1, P2, Db, _assistant

    r, t = ctx.rng, ctx.text
    root = ctx.home / ".local" / "share" / "opencode"
    db = Db.__new__(Db)  # reuse the fixture's row writers on the existing database
    db.path = root / "opencode.db"
    db.conn = sqlite3.connect(str(db.path), isolation_level=None)
    db.conn.execute("PRAGMA journal_mode=WAL")
    dirs = {P1: f"/home/{ctx.user}/work/app", P2: f"/home/{ctx.user}/src/api"}
    written = 0
    while written < budget:
        size = _session_size(r, median, budget - written)
        project = r.choice((P1, P2))
        sid = "ses_" + hexid(r, 12) + "".join(r.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz") for _ in range(14))
        t_ms = ctx.tick(3_600_000, 30_000_000)
        db.conn.execute("BEGIN")
        db.session(sid, project, dirs[project], r.choice(t.prose)[:50], t_ms)
        seq, n = 0, 0
        while n < size:
            seq += 1
            mid = f"msg_{hexid(r, 12)}{seq:014d}"
            if seq % 3 == 1:
                data: dict[str, Any] = {"text": t.prompt(), "time": {"created": ctx.tick()}}
                typ = "user"
            elif seq % 3 == 2:
                typ = "assistant"
                tool_path = None
                out_text = t.output(r.random() < 0.1)
                meta: dict[str, Any] = {}
                if r.random() < 0.15:  # spilled tool output: a sidecar file
                    tool = "tool_" + hexid(r, 12) + "AbCdEfGhIjKlMn"
                    tool_path = root / "tool-output" / tool
                    tool_path.parent.mkdir(parents=True, exist_ok=True)
                    tool_path.write_text(out_text)
                    n += len(out_text)
                    meta = {"truncated": True, "outputPath": f"/home/{ctx.user}/.local/share/opencode/tool-output/{tool}"}
                    out_text = out_text[:200] + "...(truncated)"
                now = ctx.tick()
                data = _assistant("", now, content=[
                    {"type": "reasoning", "text": r.choice(t.prose), "time": {"created": now, "completed": now + 300}},
                    {"type": "tool", "id": "call_" + hexid(r, 10), "name": r.choice(("read", "shell", "grep")), "executed": True,
                     "state": {"status": "completed", "input": {"path": t.path()}, "content": [{"type": "text", "text": out_text}], "metadata": meta},
                     "time": {"created": now, "ran": now + 100, "completed": now + 200}}])
            else:
                typ = "assistant"
                data = _assistant(t.answer(), ctx.tick())
            db.msg(mid, sid, typ, seq, data)
            n += len(json.dumps(data))
        db.conn.execute("COMMIT")
        written += n
        ctx.sessions["opencode"] += 1
    db.conn.close()
    return written


# ---------------------------------------------------------------- cursor-agent (one store.db per chat)
def cursor_sessions(ctx: Ctx, budget: int, median: int) -> int:
    from archiver.demo.cursor_sample import Store, _meta, _write_json, fb, fid, fs, fv, jb, md5_dir, slug

    r, t = ctx.rng, ctx.text
    root = ctx.home / ".cursor"
    written = 0
    while written < budget:
        size = _session_size(r, median, budget - written)
        cwd = f"/home/{ctx.user}/work/{r.choice(PROJECTS)}"
        chat = rid(r)
        store = Store(root / "chats" / md5_dir(cwd) / chat / "store.db")
        created = ctx.tick(3_600_000, 30_000_000)
        store.conn.execute("BEGIN")
        msgs = [store.put(jb({"role": "system", "content": "You are an AI coding assistant."})),
                store.put(jb({"role": "user", "content": f"<user_info>\nWorkspace Path: {cwd}\n</user_info>"}))]
        turns: list[str] = []
        mirror = Jsonl(root / "projects" / slug(cwd) / "agent-transcripts" / chat / f"{chat}.jsonl")
        n = 0
        while n < size:
            q = t.prompt()
            msgs.append(store.put(jb({"role": "user", "content": [{"type": "text", "text": f"<user_query>\n{q}\n</user_query>"}]})))
            user_blob = store.put(fs(1, q) + fs(2, rid(r)) + fv(4, 1))
            steps = []
            for _ in range(r.randint(1, 4)):
                call = "tool_" + rid(r)
                cmd = r.choice(t.code).splitlines()[-1][:200]
                msgs.append(store.put(jb({"role": "assistant", "id": str(len(msgs)), "content": [
                    {"type": "text", "text": r.choice(t.prose)}, {"type": "tool-call", "toolCallId": call, "toolName": "Shell", "args": {"command": cmd}}]})))
                result = t.output()
                msgs.append(store.put(jb({"role": "tool", "id": call, "content": [{"type": "tool-result", "toolCallId": call, "toolName": "Shell", "result": result}]})))
                steps.append(store.put(fb(2, fb(1, fb(1, fs(1, cmd)) + fb(2, fb(1, fs(1, result[:500]))))) + fs(57, call)))
                n += len(result) + len(cmd) + 200
            answer = t.answer()
            msgs.append(store.put(jb({"role": "assistant", "id": str(len(msgs)), "content": [{"type": "text", "text": answer}]})))
            steps.append(store.put(fb(1, fs(1, answer))))
            turns.append(store.put(fb(1, fid(1, user_blob) + b"".join(fid(2, s) for s in steps))))
            mirror.write({"role": "user", "message": {"content": [{"type": "text", "text": f"<user_query>\n{q}\n</user_query>"}]}})
            mirror.write({"role": "assistant", "message": {"content": [{"type": "text", "text": answer}]}})
            n += len(q) + len(answer)
        root_blob = store.put(b"".join(fid(1, m) for m in msgs) + b"".join(fid(8, x) for x in turns)
                              + fs(9, f"file://{cwd}") + fs(22, "agent"))
        title = r.choice(t.prose)[:50]
        store.set_meta(_meta(chat, root_blob, title, created))
        store.conn.execute("COMMIT")
        store.close()
        mirror.write({"type": "turn_ended", "status": "success"})
        mirror.close()
        _write_json(store.path.parent / "meta.json", {"schemaVersion": 1, "createdAtMs": created, "updatedAtMs": ctx.clock,
                                                      "hasConversation": True, "title": title, "cwd": cwd})
        written += store.path.stat().st_size + mirror.n
        ctx.sessions["cursor-agent"] += 1
    return written


def _session_size(r: random.Random, median: int, left: int) -> int:
    """Heavy-tailed session sizes: most small, a few long."""
    size = int(r.lognormvariate(0, 1.1) * median)
    return max(2_000, min(size, left))


# ================================================================ the corpus
def du(path: Path) -> tuple[int, int]:
    total = files = 0
    for dirpath, _, names in os.walk(path):
        for n in names:
            try:
                total += os.lstat(os.path.join(dirpath, n)).st_size
                files += 1
            except OSError:
                pass
    return total, files


HARNESS_DIRS = {"claude-code": ".claude", "codex": ".codex", "cursor-agent": ".cursor", "opencode": ".local/share/opencode",
                "pi": ".pi/agent", "deepseek-harness": ".deepseek/sessions"}


def _fixtures(home: Path, user: str, claude_seeds: int, seed: int) -> None:
    """The structural samples (lineage, WAL-only rows, torn lines) from the fixture generators."""
    from archiver.demo.claude_sample import make_claude_home

    for i in range(claude_seeds):
        make_claude_home(home, user, seed=seed * 1000 + i)
    import importlib

    for mod, fn, close in (("archiver.demo.codex_sample", "make_codex_home", None),
                           ("archiver.demo.pi_sample", "make_pi_home", None),
                           ("archiver.demo.deepseek_sample", "make_deepseek_home", None),
                           ("archiver.demo.cursor_sample", "make_cursor_home", "close_cursor_home"),
                           ("archiver.demo.opencode_sample", "make_opencode_home", "close_opencode_home")):
        try:
            m = importlib.import_module(mod)
        except ImportError:
            continue
        info = getattr(m, fn)(home, user)
        if close:
            getattr(m, close)(info)


def generate(out: Path, mb: float = 100, seed: int = 1, user: str = "alice", big_lines: int | None = None,
             big_transcript_mb: float = 0, huge_line_mb: float = 0, log: Callable[[str], None] = print) -> dict[str, Any]:
    """A realistic corpus of about `mb` MB under out/home; returns (and writes) corpus.json."""
    t0 = time.time()
    home = out / "home"
    if home.exists():
        raise FileExistsError(f"{home} exists; choose an empty --out")
    home.mkdir(parents=True)
    os.chmod(out, 0o700)
    target = int(mb * MB)
    rng = random.Random(seed)
    ctx = Ctx(home=home, user=user, rng=rng, text=Text(random.Random(seed * 7919 + 1), user))
    _fixtures(home, user, claude_seeds=max(2, min(20, int(mb // 50))), seed=seed)
    base_bytes = du(home)[0]

    # the few very long lines: base64 screenshots of 5-20 MB (fewer in small corpora)
    n_big = big_lines if big_lines is not None else (0 if mb < 50 else max(1, min(8, int(mb // 150) + 1)))
    big = [min(int(rng.uniform(5, 20) * MB * 3 / 4), max(1, target // 12)) for _ in range(n_big)]
    if huge_line_mb:
        big.append(int(huge_line_mb * MB * 3 / 4))
    budgets = {h: int(max(0, target - base_bytes) * share) for h, share in SHARES.items()}
    log(f"corpus: target {mb:g} MB, fixtures {base_bytes / MB:.1f} MB, {len(big)} long base64 lines")

    written = {h: 0 for h in HARNESSES}
    # claude-code: a few long sessions (with the big lines) and many shorter ones
    cb = budgets["claude-code"]
    if big_transcript_mb:
        written["claude-code"] += claude_session(ctx, "webapp", int(big_transcript_mb * MB), big)
        big = []
    longs = max(1, cb // (40 * MB))
    for i in range(longs):
        if written["claude-code"] >= cb:
            break
        mine = big[i::longs]
        budget = max(sum(mine) * 4 // 3 + MB, int(cb * 0.5 / longs))
        written["claude-code"] += claude_session(ctx, rng.choice(PROJECTS), budget, mine)
    while written["claude-code"] < cb:
        written["claude-code"] += claude_session(ctx, rng.choice(PROJECTS), _session_size(rng, 120_000, cb - written["claude-code"]), [])
    log(f"  claude-code {written['claude-code'] / MB:.1f} MB")
    while written["codex"] < budgets["codex"]:
        old = rng.random() < 0.2
        written["codex"] += codex_session(ctx, rng.choice(PROJECTS), _session_size(rng, 150_000, budgets["codex"] - written["codex"]), compressed=old)
    log(f"  codex {written['codex'] / MB:.1f} MB")
    while written["pi"] < budgets["pi"]:
        written["pi"] += pi_session(ctx, rng.choice(PROJECTS), _session_size(rng, 80_000, budgets["pi"] - written["pi"]))
    while written["deepseek-harness"] < budgets["deepseek-harness"]:
        written["deepseek-harness"] += deepseek_session(ctx, rng.choice(PROJECTS), _session_size(rng, 80_000, budgets["deepseek-harness"] - written["deepseek-harness"]))
    log(f"  pi {written['pi'] / MB:.1f} MB, deepseek {written['deepseek-harness'] / MB:.1f} MB")
    written["opencode"] = opencode_sessions(ctx, budgets["opencode"], 100_000)
    written["cursor-agent"] = cursor_sessions(ctx, budgets["cursor-agent"], 100_000)
    log(f"  opencode {written['opencode'] / MB:.1f} MB, cursor {written['cursor-agent'] / MB:.1f} MB")
    return _finish(out, ctx, {"mode": "size", "mb": mb, "seed": seed}, t0, log)


def generate_tiny(out: Path, sessions: int, seed: int = 1, user: str = "alice", log: Callable[[str], None] = print) -> dict[str, Any]:
    """`sessions` tiny sessions (1-4 KB) across the JSONL harnesses, in ~50 projects."""
    t0 = time.time()
    home = out / "home"
    if home.exists():
        raise FileExistsError(f"{home} exists; choose an empty --out")
    home.mkdir(parents=True)
    os.chmod(out, 0o700)
    rng = random.Random(seed)
    ctx = Ctx(home=home, user=user, rng=rng, text=Text(random.Random(seed * 7919 + 1), user, pool=200, tiny=True))
    projects = [f"{p}-{i}" for i in range(7) for p in PROJECTS][:50]
    counts = {h: int(sessions * s) for h, s in TINY_SHARES.items()}
    counts["claude-code"] += sessions - sum(counts.values())
    for h, n in counts.items():
        for _ in range(n):
            size = rng.randint(1_000, 4_000)
            project = rng.choice(projects)
            if h == "claude-code":
                claude_session(ctx, project, size, [], subagents=False)
            elif h == "codex":
                codex_session(ctx, project, size)
            elif h == "pi":
                pi_session(ctx, project, size)
            else:
                deepseek_session(ctx, project, size)
    return _finish(out, ctx, {"mode": "sessions", "sessions": sessions, "seed": seed}, t0, log)


def _finish(out: Path, ctx: Ctx, params: dict[str, Any], t0: float, log: Callable[[str], None]) -> dict[str, Any]:
    home = ctx.home
    per = {}
    for h, rel in HARNESS_DIRS.items():
        b, f = du(home / rel)
        per[h] = {"bytes": b, "files": f, "bulk_sessions": ctx.sessions[h]}
    total, files = du(home)
    doc = {**params, "user": ctx.user, "users": [ctx.user], "home": "home", "bytes": total, "files": files,
           "harnesses": per, "secrets_planted": ctx.text.secrets_planted, "appendable": ctx.appendable,
           "generated_in_seconds": round(time.time() - t0, 1)}
    (out / "corpus.json").write_text(json.dumps(doc, indent=1))
    log(f"corpus: {total / MB:.1f} MB in {files} files ({sum(ctx.sessions.values())} bulk sessions) "
        f"under {home} in {doc['generated_in_seconds']} s")
    return doc


def load(out: Path) -> dict[str, Any]:
    return json.loads((out / "corpus.json").read_text())


# ================================================================ growing transcripts
def _tail_record(path: Path) -> dict[str, Any] | None:
    """The last complete JSON line of a file (read from the end, bounded)."""
    with path.open("rb") as f:
        f.seek(0, 2)
        size = f.tell()
        back = min(size, 1 << 20)
        while True:
            f.seek(size - back)
            chunk = f.read(back)
            lines = chunk.rstrip(b"\n").split(b"\n")
            for raw in reversed(lines[1:] if back < size else lines):
                try:
                    return json.loads(raw)
                except ValueError:
                    continue
            if back >= size:
                return None
            back = min(size, back * 4)


def append(out: Path, fraction: float = 0.01, seed: int = 2) -> dict[str, Any]:
    """Grow append-only transcripts by `fraction` of the corpus, as running sessions do: a
    few active sessions get most of it. Returns {"bytes", "files", "compressed"} where
    compressed is the zstd -3 size of the appended bytes (the floor for an upload)."""
    doc = load(out)
    home = out / doc["home"]
    goal = int(doc["bytes"] * fraction)
    rng = random.Random(seed)
    ctx = Ctx(home=home, user=doc["user"], rng=rng, text=Text(random.Random(seed * 31 + 5), doc["user"]))
    ctx.clock = T0_MS + 400 * 86_400_000
    candidates = list(doc["appendable"])
    rng.shuffle(candidates)
    active = candidates[: max(1, min(len(candidates), 20))]
    per = max(1, goal // len(active))
    cctx = zstandard.ZstdCompressor(level=3)
    appended, compressed, files = 0, 0, 0
    for item in active:
        path = home / item["path"]
        before = path.stat().st_size
        last = _tail_record(path) or {}
        out_f = Jsonl(path, mode="ab")
        h = item["harness"]
        if h == "claude-code":
            s = ClaudeSession(ctx, out_f, item["session"], item["cwd"], last=last.get("leafUuid") or last.get("uuid"))
            while out_f.n < per:
                s.turn(None)
        elif h == "codex":
            from archiver.demo.codex_sample import _turn

            ordinal = int(last.get("ordinal") or 1000) + 1
            while out_f.n < per:
                for ln in _turn(item["session"], "a" + hexid(rng, 6), iso(ctx.tick()), ordinal, ctx.text.prompt(), ctx.text.answer(), item["cwd"]):
                    out_f.f.write(ln)
                    out_f.n += len(ln)
                ordinal += 6
        elif h == "pi":
            from archiver.demo.pi_sample import USAGE, _msg

            prev = last.get("id")
            while out_f.n < per:
                prev = pi_turn(ctx, out_f, prev, USAGE, _msg)
        else:
            seq = int(last.get("seq") or 0)
            turn = 1000
            while out_f.n < per:
                turn += 1
                seq = deepseek_turn(ctx, out_f, seq, turn)
        out_f.close()
        with path.open("rb") as f:
            f.seek(before)
            data = f.read()
        compressed += len(cctx.compress(data))
        appended += len(data)
        files += 1
    return {"bytes": appended, "files": files, "compressed": compressed}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", required=True, help="an empty folder; the HOME is OUT/home")
    p.add_argument("--mb", type=float, default=100, help="approximate size in MB (10^6 bytes); the benchmarks use 100 to 5000, smaller sizes work for quick checks")
    p.add_argument("--sessions", type=int, default=0, help="instead: this many tiny sessions")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--user", default="alice")
    p.add_argument("--big-lines", type=int, default=None, help="number of 5-20 MB base64 lines (default: by size)")
    p.add_argument("--big-transcript-mb", type=float, default=0, help="also one Claude transcript of this size")
    p.add_argument("--huge-line-mb", type=float, default=0, help="also one base64 line of this size")
    p.add_argument("--append", type=float, default=0, help="grow an existing corpus's transcripts by this fraction")
    args = p.parse_args(argv)
    out = Path(args.out)
    if args.append:
        print(json.dumps(append(out, args.append, seed=args.seed + 1)))
        return 0
    out.mkdir(parents=True, exist_ok=True)
    if args.sessions:
        generate_tiny(out, args.sessions, seed=args.seed, user=args.user)
    else:
        generate(out, args.mb, seed=args.seed, user=args.user, big_lines=args.big_lines,
                 big_transcript_mb=args.big_transcript_mb, huge_line_mb=args.huge_line_mb)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
