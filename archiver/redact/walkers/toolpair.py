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

A file read is a call too: a read tool's call (Claude Code's `Read` with `input.file_path`, OpenCode's
`read` with `state.input.filePath`, pi's `read` with `arguments.path`) stands for `cat <path>`, and a
rule of WHOLE_OUTPUT_RULES pairs a command or a read by the file it names: `cat
/etc/pgbouncer/userlist.txt`, or its Read, then has every line of its output scanned after the command
line (the rule `service-secrets-file-line`, whose entries' shape is a secret only near the file's name),
not its first line alone; so does `ls /home` (`home-listing-user`: each line a login). A line-number
prefix (`     3→`, `cat -n`'s, OpenCode's `00003| `) is read as part of no entry. A Claude Code record
holding such a result has its `toolUseResult.file.content` scanned too.

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
              "hostname-output": "\npairprobe\n",
              "service-secrets-file-line": "\npairprobe * PAIRprobe0tok *\n",  # a chap-secrets entry's shape
              "home-listing-user": "\npairprobe\n"}
# the rules whose pairing scans every line of the output (a file's entries, a folder's), not the first line alone
WHOLE_OUTPUT_RULES = frozenset({"service-secrets-file-line", "home-listing-user"})
WHOLE_OUTPUT_MAX = 1 << 20  # characters of an output scanned line by line; a longer one is scanned up to this
# the tools that read a file, and where their call names it (the call then stands for `cat <path>`)
READ_TOOLS = frozenset({"read", "read_file", "readfile", "view", "view_file"})
_PATH_KEYS = ("file_path", "filePath", "path", "filename")
# a read's line numbers: Claude Code's `     3→`, `cat -n`'s `     3\t`, OpenCode's `00003| `
_LINE_NUMBER = re2.compile(r"^[ \t]*[0-9]{1,9}(?:\x{2192}|\t|\| ?)")
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

# (container, key or index, the command line to scan the string after, whether every line of it)
Target = tuple[Any, Any, str, bool]


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


def _read_path(d: dict[str, Any]) -> str | None:
    for k in _PATH_KEYS:
        p = d.get(k)
        if type(p) is str and p:
            return p
    return None


def _command(node: dict[str, Any]) -> str | None:
    """The command a call object runs, if it names one; a read tool's call as `cat <path>`."""
    c = _command_in(node)
    if c is not None:
        return c
    tool = node.get("name") or node.get("tool")
    reads = type(tool) is str and tool.lower() in READ_TOOLS
    for k in _INPUT_KEYS:
        a = node.get(k)
        if (type(a) is str and a[:1] == "{" and len(a) <= ARGS_MAX
                and ("command" in a or "cmd" in a or (reads and "ath" in a))):
            try:
                a = orjson.loads(a)
            except orjson.JSONDecodeError:
                continue
        if type(a) is dict:
            if (c := _command_in(a)) is not None:
                return c
            if reads and (p := _read_path(a)) is not None:
                return f"cat {p}"
    state = node.get("state")
    inp = state.get("input") if type(state) is dict else None
    if type(inp) is not dict:
        return None
    c = _command_in(inp)
    if c is None and reads and (p := _read_path(inp)) is not None:
        return f"cat {p}"
    return c


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
        self._rxs = [(re2.compile(r.regex), PAIR_RULES[r.id], r.id == PAIR_RULE, PAIR_PROMPTS.get(r.id, ""),
                      r.id in WHOLE_OUTPUT_RULES) for r in rules]
        self._whole_ids = frozenset(r.id for r in rules if r.id in WHOLE_OUTPUT_RULES)
        # a login rule is tried on a command holding one of its keywords only (the secret rule, as before,
        # on every command of a line its keywords let in)
        self._kws = [tuple(k.lower() for k in r.keywords) if r.id != PAIR_RULE else () for r in rules]
        kws = tuple(dict.fromkeys(k for r in rules for k in r.keywords))
        self._gate = (re2.compile(b"(?i)" + b"|".join(re2.escape(k.encode()) for k in kws))._regexp  # noqa: SLF001
                      if kws else None)
        # a read names its file by a path key, not a command: such a call is looked for where the file's
        # name is (the whole-output rules' keywords: a secrets file's name, rare)
        file_kws = tuple(dict.fromkeys(k for r in rules if r.id in WHOLE_OUTPUT_RULES for k in r.keywords))
        file_rx = b"(?i)" + b"|".join(re2.escape(k.encode()) for k in file_kws)
        self._file_gate = re2.compile(file_rx)._regexp if file_kws else None  # noqa: SLF001
        self.pending: dict[str, tuple[str, bool]] = {}  # call id -> (the command line its output follows, whole)
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
        if not work or gate is None:
            return False
        if _CMD_HINT.Match(UNANCHORED, raw, 0, len(raw))[0][0] >= 0:
            return gate.Match(UNANCHORED, raw, 0, len(raw))[0][0] >= 0
        file_gate = self._file_gate
        return file_gate is not None and file_gate.Match(UNANCHORED, raw, 0, len(raw))[0][0] >= 0

    def _prints_secret(self, cmd: str) -> str | None:
        """The line of cmd that prints a secret, with its newline; None when none does."""
        paired = self._paired_line(cmd, secret_only=True)
        return paired[0] if paired is not None else None

    def _paired_line(self, cmd: str, secret_only: bool = False) -> tuple[str, bool] | None:
        """(The line of cmd that prints a secret, the login name or a secrets file, with its newline,
        whether every line of the output is scanned after it); None when none does."""
        if len(cmd) > COMMAND_MAX:
            cmd = cmd[-COMMAND_MAX:]
        low = None
        m = None
        prompt = ""
        whole = False
        for (rx, probe, secret, prompt, whole), kws in zip(self._rxs, self._kws):
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
        return prompt + cmd[ls:le if le >= 0 else len(cmd)] + "\n", whole

    def _remember(self, cid: str, line: tuple[str, bool]) -> None:
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
                            paired = self.pending.get(cid)
                            if paired is not None:
                                targets += [(c, k, *paired) for c, k in _outputs(node)]
                                break
                if depth < _MAX_DEPTH:
                    stack.extend((v, depth + 1) for v in reversed(node.values()) if type(v) in (dict, list))
            elif type(node) is list and depth < _MAX_DEPTH:
                stack.extend((v, depth + 1) for v in reversed(node) if type(v) in (dict, list))
        if targets and type(root) is dict:  # Claude Code: the user record's structured result
            tur = root.get("toolUseResult")
            if type(tur) is dict and type(tur.get("stdout")) is str and tur["stdout"]:
                targets.append((tur, "stdout", targets[0][2], targets[0][3]))
            file = tur.get("file") if type(tur) is dict else None  # a Read's: the file's text without numbers
            if type(file) is dict and type(file.get("content")) is str and file["content"]:
                targets.append((file, "content", targets[0][2], targets[0][3]))
        return targets

    def scan_output(self, s: str, line: str, report: RedactionReport, carrier: str, whole: bool = False) -> str | None:
        """s (an output of a command `line`) with what the pairing rule finds after that line
        replaced; None when nothing is. A JSON object string (Codex `{"output": ...}`) is
        scanned inside. `whole`: every line of s, each after the command line, by the rules of
        WHOLE_OUTPUT_RULES (a file's entries); else the first line."""
        if s[:1] == "{":
            return self._scan_json(s, line, report, carrier, whole)
        m = _CODEX_HEAD.match(s)
        h = m.end() if m is not None else 0
        if whole:
            return self._scan_lines(s, h, line, report, carrier)
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

    def _scan_lines(self, s: str, h: int, line: str, report: RedactionReport, carrier: str) -> str | None:
        """s with what the whole-output rules find in each of its lines from h on, each line scanned
        after the command line (the rule's keyword, the file's name, is there) and after its
        line-number prefix, if any; None when nothing is."""
        head = line.encode("utf-8", "surrogatepass")
        lo = len(head)
        ids = self._whole_ids
        parts = [s[:h]]
        changed = False
        end = min(len(s), h + WHOLE_OUTPUT_MAX)
        pos = h
        while pos < end:
            nl = s.find("\n", pos, end)
            stop = nl if nl >= 0 else end
            text = s[pos:stop]
            num = _LINE_NUMBER.search(text)
            cut = num.end() if num is not None else 0
            buf = head + text[cut:].encode("utf-8", "surrogatepass") + b"\n"
            ms = [x for x in self.engine.scan_bytes(buf) if x.rule_id in ids and lo <= x.start and x.end < len(buf)]
            if ms:
                text = text[:cut] + self.engine.apply(buf, ms, report, carrier)[lo:-1].decode("utf-8", "surrogatepass")
                changed = True
            parts.append(text if nl < 0 else text + "\n")
            pos = stop + 1 if nl >= 0 else stop
        if not changed:
            return None
        return "".join(parts) + s[end:]

    def _scan_json(self, s: str, line: str, report: RedactionReport, carrier: str, whole: bool = False) -> str | None:
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
            new = self.scan_output(v, line, report, carrier, whole)
            if new is not None:
                node[key] = new
                changed = True
        return orjson.dumps(obj).decode("utf-8") if changed else None
