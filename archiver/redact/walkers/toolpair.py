"""Tool call / result pairing: the output of a command that prints a secret or the login name.

A coding agent runs `op read op://...`, `gh auth token`, `echo $DB_PASSWORD`; the command sits in one
record (the tool call), its output, often the bare secret and a newline, in a later record (the tool
result), linked by an id. Each record alone shows nothing a rule can judge. Here the call ids whose
command prints a secret are remembered, and the output strings of a later record that names one of
them are scanned as the terminal transcript `<command line>\\n<output>` would be: the rule
`secret-printing-command-output` (rules/secrets.toml) decides, with its allowlist (error words,
references), and takes the first token of the output's first line only (a multi-line output keeps the
rest, which the other rules judge as usual).

The command side is that rule too: a command prints a secret when the rule matches the command
followed by a newline and a probe token (no second pattern to keep in step). The shapes (one generic
walk; per harness in /work/shared/seeds): a call is an object with an id (`id`, `call_id`, `callID`,
`toolCallId`, ...) and a command (`command`/`cmd` in the object, or in its `input`, `arguments` (also
a JSON string), `action`, `state.input`); a result is an object whose id names a remembered call, with
its output under `content` (a string or text blocks), `output` (also Codex's JSON `{"output": ...}`),
`stdout`, `aggregated_output`, `formatted_output`, `state.output` / `state.content` /
`state.metadata.output`; a Claude Code record holding such a result has its `toolUseResult.stdout`
scanned too. An object that is both (OpenCode's tool part, Codex's CommandExecution item) is paired
with itself. Results flagged as errors (`is_error`, `isError`) are left to the ordinary rules.

A command that prints the login name (`whoami`, `id -un`, `echo $USER`, `logname`) is paired the
same way with the rules `whoami-output-user` and `windows-domain-user` (rules/pii.toml; Windows's
whoami prints `host\\user`): its bare output (`mfernandez`) in a
later record is the user's name, where the collector runs as another user (a container reading
mounted homes) and no configured term names it; a Codex output record has no cwd whose home folder
would echo it.

The memory is per job (a RedactionReport: one per segment or file) and bounded (PENDING_MAX ids, the
oldest forgotten first).
"""

from __future__ import annotations

import weakref
from typing import Any

import orjson
import re2

from archiver.redact.base import RedactionReport
from archiver.redact.engine import Engine
from archiver.redact.re2scan import UNANCHORED

PAIR_RULE = "secret-printing-command-output"
# the rules a call's command is tested with, each with the probe standing for its output (the login
# name rule wants a name on a line of its own)
PAIR_RULES = {PAIR_RULE: "\nPAIRprobe0tok", "whoami-output-user": "\npairprobe\n",
              "windows-domain-user": "\nPAIRDOM\\pairprobe\n",  # Windows: whoami prints DOMAIN\user
              "hostname-output": "\npairprobe\n"}
# what a terminal shows before the command, for a rule that wants a prompt or line start before it
# (hostname-output: `$ hostname`); the remembered line keeps it, so the output is read after it
PAIR_PROMPTS = {"hostname-output": "$ "}
PENDING_MAX = 64  # secret-printing calls awaiting their result(s): a handful in a real session
COMMAND_MAX = 16 << 10  # a longer command text is tested on its last COMMAND_MAX characters
ARGS_MAX = 64 << 10  # an `arguments` JSON string longer than this is not parsed for a command
OUTPUT_HEAD = 1024  # the rule looks at the first token of the first line only
# the call's own id first: an OpenCode part has its part `id` beside the `callID`
_ID_KEYS = ("call_id", "callId", "callID", "toolCallId", "tool_call_id", "tool_use_id", "toolUseId", "toolUseID",
            "id")
_INPUT_KEYS = ("input", "arguments", "action", "args")
_CMD_KEYS = ("command", "cmd")
_OUT_KEYS = ("content", "output", "stdout", "aggregated_output", "aggregatedOutput", "formatted_output", "result")
_ERROR_KEYS = ("is_error", "isError")
_MAX_DEPTH = 12
# Codex's function_call_output text: a header, then the command's output
_CODEX_HEAD = re2.compile(r"^(?:Exit code: -?[0-9]+\nWall time: [^\n]*\n|Process exited with code -?[0-9]+\n)"
                          r"(?:[^\n]*\n){0,3}?Output:\n")

_CMD_HINT = re2.compile(rb"cmd|command")._regexp  # noqa: SLF001

Target = tuple[Any, Any, str]  # (container, key or index, the command line to scan the string after)


def _command_text(c: Any) -> str | None:
    if type(c) is str:
        return c or None
    if type(c) is list and c and all(type(x) is str for x in c):
        return " ".join(c)
    return None


def _command_in(d: dict[str, Any]) -> str | None:
    for k in _CMD_KEYS:
        c = _command_text(d.get(k))
        if c is not None:
            return c
    return None


def _command(node: dict[str, Any]) -> str | None:
    """The command a call object runs, if it names one."""
    c = _command_in(node)
    if c is not None:
        return c
    for k in _INPUT_KEYS:
        a = node.get(k)
        if type(a) is str and a[:1] == "{" and len(a) <= ARGS_MAX and ("command" in a or "cmd" in a):
            try:
                a = orjson.loads(a)
            except orjson.JSONDecodeError:
                continue
        if type(a) is dict and (c := _command_in(a)) is not None:
            return c
    state = node.get("state")
    inp = state.get("input") if type(state) is dict else None
    return _command_in(inp) if type(inp) is dict else None


def _leaves(node: Any, key: Any, out: list[tuple[Any, Any]]) -> None:
    """The output strings under node[key]: a string, or the strings and text blocks of a list."""
    v = node[key]
    if type(v) is str:
        if v:
            out.append((node, key))
    elif type(v) is list:
        for j, item in enumerate(v):
            if type(item) is str and item:
                out.append((v, j))
            elif type(item) is dict and type(item.get("text")) is str and item["text"]:
                out.append((item, "text"))


def _outputs(node: dict[str, Any]) -> list[tuple[Any, Any]]:
    out: list[tuple[Any, Any]] = []
    for k in _OUT_KEYS:
        if k in node:
            _leaves(node, k, out)
    state = node.get("state")
    if type(state) is dict:
        for k in ("output", "content"):
            if k in state:
                _leaves(state, k, out)
        meta = state.get("metadata")
        if type(meta) is dict and "output" in meta:
            _leaves(meta, "output", out)
    return out


class ToolPairs:
    """The pending secret-printing calls of one job, and the scan of their outputs."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        # the pairing is the secret rule's (a rule set without it pairs nothing); the login rule
        # rides along when its pack is loaded too
        rules = [r for r in engine.rules if r.id in PAIR_RULES] if any(r.id == PAIR_RULE for r in engine.rules) else []
        self.on = bool(rules)
        self._ids = frozenset(r.id for r in rules)
        rules.sort(key=lambda r: r.id != PAIR_RULE)  # the secret rule first (_prints_secret)
        self._rxs = [(re2.compile(r.regex), PAIR_RULES[r.id], r.id == PAIR_RULE, PAIR_PROMPTS.get(r.id, ""))
                     for r in rules]
        # a login rule is tried on a command holding one of its keywords only (the secret rule, as before,
        # on every command of a line its keywords let in)
        self._kws = [tuple(k.lower() for k in r.keywords) if r.id != PAIR_RULE else () for r in rules]
        kws = tuple(dict.fromkeys(k for r in rules for k in r.keywords))
        self._gate = (re2.compile(b"(?i)" + b"|".join(re2.escape(k.encode()) for k in kws))._regexp  # noqa: SLF001
                      if kws else None)
        self.pending: dict[str, str] = {}  # call id -> the command line its output follows
        self._pending_b: list[bytes] = []
        self._owner: weakref.ref[RedactionReport] | None = None

    def scope(self, report: RedactionReport) -> None:
        """Start a new memory when `report` is another job's than the last call's."""
        if self._owner is None or self._owner() is not report:
            self._owner = weakref.ref(report)
            self.pending.clear()
            self._pending_b = []

    def wants(self, raw: bytes, work: bool) -> bool:
        """Might raw hold a secret-printing call (its rule's keywords, when the line needs work
        anyway: the keywords are some of the engine's) or a result of a pending one?"""
        if self._pending_b:
            for cid in self._pending_b:
                if cid in raw:
                    return True
        # a call names its command under `command` or `cmd` (also inside a JSON string of arguments):
        # that first (one literal search), the rule's keywords only then
        gate = self._gate
        return (work and gate is not None and _CMD_HINT.Match(UNANCHORED, raw, 0, len(raw))[0][0] >= 0
                and gate.Match(UNANCHORED, raw, 0, len(raw))[0][0] >= 0)

    def _prints_secret(self, cmd: str) -> str | None:
        """The line of cmd that prints a secret, with its newline; None when none does."""
        return self._paired_line(cmd, secret_only=True)

    def _paired_line(self, cmd: str, secret_only: bool = False) -> str | None:
        """The line of cmd that prints a secret or the login name, with its newline; None when none
        does."""
        if len(cmd) > COMMAND_MAX:
            cmd = cmd[-COMMAND_MAX:]
        low = None
        m = None
        prompt = ""
        for (rx, probe, secret, prompt), kws in zip(self._rxs, self._kws):
            if not secret:
                if secret_only:
                    break
                low = cmd.lower() if low is None else low
                if not any(k in low for k in kws):
                    continue
            m = rx.search(prompt + cmd + probe)
            # a login rule's match must reach into the probe, the output it stands for: an account
            # named in the command itself (`runas /user:CORP\\bob app`) prints none
            if m is not None and (secret or m.end() > len(prompt) + len(cmd)):
                break
            m = None
        if m is None:
            return None
        s = min(max(m.start() - len(prompt), 0), len(cmd))
        ls = cmd.rfind("\n", 0, s) + 1
        le = cmd.find("\n", s)
        return prompt + cmd[ls:le if le >= 0 else len(cmd)] + "\n"

    def _remember(self, cid: str, line: str) -> None:
        p = self.pending
        if cid in p:
            del p[cid]
        elif len(p) >= PENDING_MAX:
            del p[next(iter(p))]
        p[cid] = line
        self._pending_b = [k.encode("utf-8", "surrogatepass") for k in p]

    def collect(self, root: Any) -> list[Target]:
        """Remember the secret-printing calls of one document (in order) and return the output
        strings of the results it holds for remembered calls."""
        targets: list[Target] = []
        stack: list[tuple[Any, int]] = [(root, 0)]
        while stack:
            node, depth = stack.pop()
            if type(node) is dict:
                ids = [v for k in _ID_KEYS if type(v := node.get(k)) is str and v]
                if ids:
                    cmd = _command(node)
                    line = self._paired_line(cmd) if cmd is not None else None
                    if line is not None:
                        self._remember(ids[0], line)
                    if self.pending and not any(node.get(k) is True for k in _ERROR_KEYS):
                        for cid in ids:
                            line = self.pending.get(cid)
                            if line is not None:
                                targets += [(c, k, line) for c, k in _outputs(node)]
                                break
                if depth < _MAX_DEPTH:
                    stack.extend((v, depth + 1) for v in reversed(node.values()) if type(v) in (dict, list))
            elif type(node) is list and depth < _MAX_DEPTH:
                stack.extend((v, depth + 1) for v in reversed(node) if type(v) in (dict, list))
        if targets and type(root) is dict:  # Claude Code: the user record's structured result
            tur = root.get("toolUseResult")
            if type(tur) is dict and type(tur.get("stdout")) is str and tur["stdout"]:
                targets.append((tur, "stdout", targets[0][2]))
        return targets

    def scan_output(self, s: str, line: str, report: RedactionReport, carrier: str) -> str | None:
        """s (an output of a command `line`) with what the pairing rule finds after that line
        replaced; None when nothing is. A JSON object string (Codex `{"output": ...}`) is
        scanned inside."""
        if s[:1] == "{":
            return self._scan_json(s, line, report, carrier)
        m = _CODEX_HEAD.match(s)
        h = m.end() if m is not None else 0
        cut = s.find("\n", h, h + OUTPUT_HEAD)
        end = cut if cut >= 0 else min(len(s), h + OUTPUT_HEAD)
        # the first line with its line end, as a terminal shows it (a bare `whoami` output has none)
        buf = (line + s[h:end] + "\n").encode("utf-8", "surrogatepass")
        lo = len(line.encode("utf-8", "surrogatepass"))
        ids = self._ids
        ms = [x for x in self.engine.scan_bytes(buf) if x.rule_id in ids and lo <= x.start and x.end < len(buf)]
        if not ms:
            return None
        new = self.engine.apply(buf, ms, report, carrier)[lo:-1].decode("utf-8", "surrogatepass")
        return s[:h] + new + s[end:]

    def _scan_json(self, s: str, line: str, report: RedactionReport, carrier: str) -> str | None:
        try:
            obj = orjson.loads(s)
        except orjson.JSONDecodeError:
            return None
        if type(obj) is not dict:
            return None
        changed = False
        for node, key in _outputs(obj):
            v = node[key]
            if v[:1] == "{":
                continue
            new = self.scan_output(v, line, report, carrier)
            if new is not None:
                node[key] = new
                changed = True
        return orjson.dumps(obj).decode("utf-8") if changed else None
