"""s17 fresh-eyes end-to-end kit for the pi and DeepSeek collectors: a generator written from the
seeds only (seeds/by-harness/pi.json; seeds/003_37255de69aaa2bf4.txt, the DeepSeek persistence
catalog), the real CLI in a child process against a file:// store, and the archive read back with
the `age` and `zstd` CLIs.

No tests here. `Plant` hands out distinct secrets (home path, e-mail, GitHub token, AWS key id) for
every field that can carry them; `build_pi` and `build_deepseek` write a HOME and return the facts
the tests check (file per session, expected lineage edges, byte ranges appended later).
"""

from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.fx_s11_e2e import Setup, setup

USER = "vexmorda"  # the archived user (home folder named after it)
OTHER = "plimsoll"  # the user of the home restores go into
T0 = 1767261600000  # 2026-01-01T10:00:00Z in ms


class Plant:
    """Distinct planted values; `needles()` lists what must never reach an object."""

    def __init__(self, home: str) -> None:
        self.home = home
        self.n = 0
        self.values: dict[str, list[str]] = {}

    def _h(self, tag: str) -> str:
        self.n += 1
        return hashlib.sha256(f"{tag}/{self.n}".encode()).hexdigest()

    def text(self, tag: str) -> str:
        """A prose field: a home path, an e-mail, a GitHub token and an AWS key id."""
        h = self._h(tag)
        n = self.n
        ghp = "ghp_" + (h + h.upper())[:36]
        akia = "AKIA" + base64.b32encode(bytes.fromhex(h[:20])).decode()[:16]  # A-Z2-7, as AWS issues
        email = f"m{n:03d}.{USER}@frobmail.org"
        path = f"{self.home}/d{n:03d}/notes.txt"
        self.values[f"{tag}#{n}"] = [ghp[4:], akia, email.split("@")[0]]
        return f"[{tag}] open {path} mail {email} token {ghp} key {akia} ok"

    def path(self, tag: str, sub: str = "") -> str:
        """A path field: a folder under the home (`sub` below it)."""
        self._h(tag)
        folder = f"{self.home}/p{self.n:03d}-ü"
        return f"{folder}/{sub}" if sub else folder

    def needles(self) -> list[tuple[str, str]]:
        out = [("username", USER)]
        for k, vals in self.values.items():
            out += [(k, v) for v in vals]
        return out


def jl(*recs: Any, eol: bytes = b"\n") -> bytes:
    return b"".join(json.dumps(r, ensure_ascii=False, separators=(",", ":")).encode() + eol for r in recs)


# ---------------------------------------------------------------- pi (seeds/by-harness/pi.json)

def pi_dir_name(cwd: str) -> str:
    """layout: `--<cwd with leading separator removed and / \\ : replaced by ->--`."""
    s = cwd[1:] if cwd[:1] in "/\\" else cwd
    return "--" + s.replace("/", "-").replace("\\", "-").replace(":", "-") + "--"


def pi_iso(ms: int) -> str:
    import datetime as dt
    return dt.datetime.fromtimestamp(ms / 1000, dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def pi_file_name(ms: int, sid: str) -> str:
    """`<ISO timestamp with : and . replaced by ->_<session-id>.jsonl`."""
    return pi_iso(ms).replace(":", "-").replace(".", "-") + f"_{sid}.jsonl"


def usage(n: int) -> dict[str, Any]:
    return {"input": n, "output": 3, "cacheRead": 0, "cacheWrite": 0, "totalTokens": n + 3,
            "cost": {"input": 0.00003, "output": 0.00004, "cacheRead": 0, "cacheWrite": 0, "total": 0.00007}}


class PiTree:
    """Entries of one pi session file: every entry gets an 8-hex id; the parent is the current leaf."""

    def __init__(self, seed: str, t: int = T0) -> None:
        self.seed = seed
        self.k = 0
        self.t = t
        self.leaf: str | None = None
        self.recs: list[dict[str, Any]] = []

    def eid(self) -> str:
        self.k += 1
        return hashlib.md5(f"{self.seed}{self.k}".encode()).hexdigest()[:8]

    def add(self, typ: str, parent: str | None | bool = True, **fields: Any) -> str:
        eid = self.eid()
        self.t += 1000
        pid = self.leaf if parent is True else parent
        rec = {"type": typ, "id": eid, "parentId": pid, "timestamp": pi_iso(self.t), **fields}
        self.recs.append(rec)
        self.leaf = eid
        return eid

    def msg(self, parent: str | None | bool = True, **message: Any) -> str:
        return self.add("message", parent, message={**message, "timestamp": self.t + 1000})


def pi_full_session(p: Plant, tree: PiTree, tmpdir: Path, tag: str) -> dict[str, Any]:
    """Every pi record type and content block, a secret in every field that can carry one;
    a rewind branch; fullOutputPath temp files (one kept, one gone, one naming a key file)."""
    c = p.text
    out_kept = tmpdir / f"pi-bash-{hashlib.md5(tag.encode()).hexdigest()[:16]}.log"
    out_kept.write_text(f"full output\n{c(tag + '.fulloutput')}\n")
    out_bash = tmpdir / f"pi-bash-{hashlib.md5((tag + 'b').encode()).hexdigest()[:16]}.log"
    out_bash.write_text(f"bash output\n{c(tag + '.bashfull')}\n")
    gone = tmpdir / "pi-bash-00000000deadbeef.log"
    sysm = tree.msg(None, role="system", content=c(tag + ".sysprompt"),
                    sections={"preamble": c(tag + ".section"), "cwd": p.path(tag + ".sectioncwd")},
                    toolsAdded=[{"name": "read", "description": c(tag + ".tooldesc"),
                                 "parameters": {"type": "object", "properties": {}}}], toolsRemoved=[{"name": "old"}])
    tree.add("model_change", provider="anthropic", modelId="example-model")
    tree.add("thinking_level_change", thinkingLevel="high")
    u1 = tree.msg(role="user", content=c(tag + ".user-string"))
    a1 = tree.msg(role="assistant", content=[
        {"type": "thinking", "thinking": c(tag + ".thinking"), "thinkingSignature": "sig"},
        {"type": "text", "text": c(tag + ".assistant"), "textSignature": json.dumps({"v": 1, "id": "msg_1"})},
        {"type": "toolCall", "id": "call_1", "name": "bash",
         "arguments": {"command": f"cat {p.path(tag + '.argpath', 'x.env')}", "env": c(tag + ".argenv")}},
        {"type": "toolCall", "id": "call_2", "name": "edit", "arguments": {},
         "argumentsError": c(tag + ".argerror")},
    ], api="anthropic-messages", provider="anthropic", model="example-model", usage=usage(10), stopReason="toolUse",
        diagnostics=[{"type": "provider_transport_failure", "timestamp": T0,
                      "error": {"message": c(tag + ".diag"), "stack": p.path(tag + ".stack", "a.js")}}],
        durationMs=900)
    tree.msg(role="toolResult", toolCallId="call_1", toolName="bash",
             content=[{"type": "text", "text": c(tag + ".toolout")}], isError=False,
             details={"truncation": {"truncated": True}, "fullOutputPath": str(out_kept)}, durationMs=12)
    tree.msg(role="toolResult", toolCallId="call_2", toolName="edit",
             content=[{"type": "text", "text": "bad args"}], isError=True,
             details={"diff": c(tag + ".diff"), "patch": f"--- {p.path(tag + '.patchpath', 'f.py')}\n"},
             nestedCalls={"calls": [{"id": "n1", "name": "read", "arguments": {"path": p.path(tag + ".nested")},
                                     "status": "ok"}], "complete": True}, usage=usage(2))
    a2 = tree.msg(role="assistant", content=[{"type": "text", "text": "partial"}], api="openai-responses",
                  provider="openai", model="m", usage=usage(5), stopReason="error", errorMessage=c(tag + ".errmsg"))
    tree.add("context_edit", targetId=a2, replacement=None)
    tree.add("context_edit", targetId=u1, replacement={"content": c(tag + ".ctxedit")})
    tree.msg(role="bashExecution", command=f"ls {p.path(tag + '.bashcmd')}", output=c(tag + ".bashout"),
             exitCode=0, cancelled=False, truncated=True, fullOutputPath=str(out_bash))
    tree.msg(role="bashExecution", command="sleep 9", output="", cancelled=True, truncated=False,
             excludeFromContext=True, fullOutputPath=str(gone))  # exitCode omitted (undefined)
    tree.msg(role="user", content=[{"type": "text", "text": c(tag + ".user-blocks")},
                                   {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}])
    tree.msg(role="custom", customType="my-ext", content=c(tag + ".custom-role"), display=True,
             details={"where": p.path(tag + ".customdetails")})
    tree.add("custom_message", customType="my-extension", content=[{"type": "text", "text": c(tag + ".custom-msg")}],
             display=False, details={"note": c(tag + ".custom-details")})
    tree.add("custom", customType="pi.bug-report", data={"id": "b1", "hint": c(tag + ".bug"),
                                                         "path": p.path(tag + ".bugpath", "r.md")})
    tree.add("usage", kind="cache_warm", provider="anthropic", model="m", usage=usage(50000), note=c(tag + ".usenote"))
    tree.add("label", targetId=u1, label=c(tag + ".label"))
    tree.add("label", targetId=u1)  # a clear: no label key
    comp = tree.add("compaction", summary=c(tag + ".summary"), firstKeptEntryId=u1, tokensBefore=120000,
                    details={"readFiles": [p.path(tag + ".read", "a.py")], "modifiedFiles": [p.path(tag + ".mod", "b.py")]},
                    usage=usage(7), systemMessage={"role": "system", "content": c(tag + ".compsys"), "timestamp": T0})
    # rewind: branch off a1 (not summarised), then a summarised switch back from the root
    tree.leaf = a1
    tree.msg(role="user", content=c(tag + ".branch-user"))
    tree.msg(role="assistant", content=[{"type": "text", "text": c(tag + ".branch-asst")}], api="x", provider="y",
             model="z", usage=usage(1), stopReason="aborted")
    tree.add("branch_summary", parent=None, fromId="root", summary=c(tag + ".branchsum"),
             details={"readFiles": [], "modifiedFiles": [p.path(tag + ".bsmod")]}, fromHook=False)
    tree.leaf = comp
    tree.add("session_info", name=c(tag + ".name").replace(" ", " \n ", 1).replace("\n", " "))
    # a future entry type and unknown fields
    tree.add("x_future_kind", payload={"secret": c(tag + ".future")}, futureField=[1, 2])
    tree.msg(role="assistant", content=[{"type": "text", "text": "done"}, {"type": "x_block", "v": c(tag + ".xblock")}],
             api="pi-messages", provider="p", model="m", usage=usage(3), stopReason="stop", endTurn=True,
             brandNewField={"k": c(tag + ".newfield")})
    tree.add("session_info", name="Final title")
    return {"outputs": [str(out_kept), str(out_bash)], "gone": str(gone), "sys": sysm}


@dataclass
class PiFacts:
    home: Path
    root: Path
    files: dict[str, Path] = field(default_factory=dict)  # session id -> file
    edges: dict[str, list[tuple[str, str]]] = field(default_factory=dict)  # id -> [(relation, parent id)]
    fork_at: dict[str, str | None] = field(default_factory=dict)
    titles: dict[str, str | None] = field(default_factory=dict)
    outputs: dict[str, list[str]] = field(default_factory=dict)
    cwd: dict[str, str] = field(default_factory=dict)


PI_MAIN = "01890a5d-ac96-774b-bcce-b302099a8057"
PI_FORK = "01890a5d-ac96-774b-bcce-b302099a8058"
PI_FORKFROM = "01890a5d-ac96-774b-bcce-b302099a8059"
PI_CUSTOM = f"{USER}.refactor_v2"  # caller-supplied id (--session-id) with a user name and `_`
PI_V1 = "5b8f6a0e-1c1b-4c3e-9d7e-0a0b0c0d0e0f"
PI_HEADER = "01890a5d-ac96-774b-bcce-b302099a8060"
PI_EMPTY = "01890a5d-ac96-774b-bcce-b302099a8061"
PI_TORN = "01890a5d-ac96-774b-bcce-b302099a8062"
PI_CRLF = "01890a5d-ac96-774b-bcce-b302099a8063"
PI_LONG = "01890a5d-ac96-774b-bcce-b302099a8064"
PI_BAD = "01890a5d-ac96-774b-bcce-b302099a8065"
PI_FLAT = "01890a5d-ac96-774b-bcce-b302099a8066"
PI_NOCWD = "01890a5d-ac96-774b-bcce-b302099a8067"
PI_GONE_PARENT = "01890a5d-ac96-774b-bcce-b302099a8068"
PI_SUB = "01890a5d-ac96-774b-bcce-b302099a8069"


def build_pi(home: Path, p: Plant, long_bytes: int = 300_000) -> PiFacts:
    root = home / ".pi" / "agent"
    tmpdir = home / "tmp"  # os.tmpdir() stand-in (the user's TMPDIR)
    tmpdir.mkdir(parents=True, exist_ok=True)
    f = PiFacts(home=home, root=root)
    cwd = p.path("pi.cwd", "proj: ünï")  # ':' is replaced in the folder name
    win_cwd = p.path("pi.wincwd", "win\\dir")  # and '\\'
    other_cwd = p.path("pi.othercwd", "elsewhere")
    d = root / "sessions" / pi_dir_name(cwd)
    d2 = root / "sessions" / pi_dir_name(other_cwd)
    d.mkdir(parents=True)
    d2.mkdir(parents=True)

    def header(sid: str, ms: int, cwd_: Any = cwd, **kw: Any) -> dict[str, Any]:
        h = {"type": "session", "version": 3, "id": sid, "timestamp": pi_iso(ms), **kw}
        if cwd_ is not None:
            h["cwd"] = cwd_
        return h

    def put(folder: Path, sid: str, ms: int, data: bytes) -> Path:
        fp = folder / pi_file_name(ms, sid)
        fp.write_bytes(data)
        f.files[sid] = fp
        f.edges.setdefault(sid, [])
        return fp

    # main: every record type, branches, compaction
    tree = PiTree("main")
    facts = pi_full_session(p, tree, tmpdir, "pimain")
    main_file = put(d, PI_MAIN, T0, jl(header(PI_MAIN, T0), *tree.recs))
    f.outputs[PI_MAIN] = facts["outputs"]
    f.titles[PI_MAIN] = "Final title"
    f.cwd[PI_MAIN] = cwd

    # /fork: only the root->leaf path, labels dropped and re-emitted at the end, parentIds rechained
    by_id = {r["id"]: r for r in tree.recs}
    path, at = [], tree.leaf
    while at is not None:
        path.append(by_id[at])
        at = by_id[at]["parentId"]
    path.reverse()
    kept, prev = [], None
    labels = [r for r in path if r["type"] == "label"]
    for r in path:
        if r["type"] == "label":
            continue
        kept.append({**r, "parentId": prev})
        prev = r["id"]
    fork_leaf = prev
    for lab in labels:
        kept.append({**lab, "parentId": prev})
        prev = lab["id"]
    ftree = PiTree("fork", t=T0 + 3_600_000)
    ftree.leaf = prev
    ftree.msg(role="user", content=p.text("pifork.user"))
    ftree.add("session_info", name="Forked")
    put(d, PI_FORK, T0 + 3_600_000, jl(header(PI_FORK, T0 + 3_600_000, parentSession=str(main_file)), *kept, *ftree.recs))
    f.edges[PI_FORK] = [("fork", PI_MAIN)]
    f.fork_at[PI_FORK] = fork_leaf
    f.titles[PI_FORK] = "Forked"

    # forkFrom(): every source entry verbatim, into another cwd
    ftree2 = PiTree("forkfrom", t=T0 + 7_200_000)
    ftree2.leaf = tree.leaf
    ftree2.msg(role="user", content=p.text("piforkfrom.user"))
    put(d2, PI_FORKFROM, T0 + 7_200_000,
        jl(header(PI_FORKFROM, T0 + 7_200_000, other_cwd, parentSession=str(main_file)), *tree.recs, *ftree2.recs))
    f.edges[PI_FORKFROM] = [("fork", PI_MAIN)]
    f.fork_at[PI_FORKFROM] = tree.recs[-1]["id"]
    f.cwd[PI_FORKFROM] = other_cwd

    # fork whose source file is gone: edge kept from the file name
    gtree = PiTree("goneparent")
    gtree.msg(None, role="user", content="hi")
    gone_src = d / pi_file_name(T0 - 1000, "01890a5d-0000-7000-8000-00000000dead")
    put(d, PI_GONE_PARENT, T0 + 100, jl(header(PI_GONE_PARENT, T0 + 100, parentSession=str(gone_src)), *gtree.recs))
    f.edges[PI_GONE_PARENT] = [("fork", "01890a5d-0000-7000-8000-00000000dead")]

    # caller-supplied id carrying the user name
    ctree = PiTree("custom")
    ctree.msg(None, role="user", content=p.text("picustom.user"))
    ctree.add("session_info", name=p.text("picustom.title"))
    put(d, PI_CUSTOM, T0 + 200, jl(header(PI_CUSTOM, T0 + 200), *ctree.recs))

    # v1: no version, no ids, compaction by index, role hookMessage
    put(d, PI_V1, T0 - 86_400_000, jl(
        {"type": "session", "id": PI_V1, "timestamp": pi_iso(T0 - 86_400_000), "cwd": cwd},
        {"type": "message", "timestamp": pi_iso(T0), "message": {"role": "user", "content": p.text("piv1.user"), "timestamp": T0}},
        {"type": "message", "timestamp": pi_iso(T0), "message": {"role": "hookMessage", "customType": "h",
                                                                 "content": p.text("piv1.hook"), "display": True, "timestamp": T0}},
        {"type": "compaction", "timestamp": pi_iso(T0), "summary": p.text("piv1.summary"), "firstKeptEntryIndex": 1,
         "tokensBefore": 5},
    ))

    # header only (forkFrom writes the header at once); empty file; torn last line; CRLF; a long line
    put(d, PI_HEADER, T0 + 300, jl(header(PI_HEADER, T0 + 300)))
    put(d, PI_EMPTY, T0 + 400, b"")
    ttree = PiTree("torn")
    ttree.msg(None, role="user", content=p.text("pitorn.user"))
    torn_tail = json.dumps(separators=(",", ":"), obj={"type": "message", "id": "ffff0001", "parentId": ttree.leaf, "timestamp": pi_iso(T0),
                            "message": {"role": "assistant", "content": [{"type": "text", "text": p.text("pitorn.tail")}]}})
    put(d, PI_TORN, T0 + 500, jl(header(PI_TORN, T0 + 500), *ttree.recs) + torn_tail[: len(torn_tail) * 2 // 3].encode())
    rtree = PiTree("crlf")
    rtree.msg(None, role="user", content=p.text("picrlf.user"))
    rtree.add("session_info", name="crlf title")
    put(d, PI_CRLF, T0 + 600, jl(header(PI_CRLF, T0 + 600), *rtree.recs, eol=b"\r\n"))
    f.titles[PI_CRLF] = "crlf title"
    ltree = PiTree("long")
    ltree.msg(None, role="user", content="Ω" * 100 + p.text("pilong.user") + " " + "lorem ipsum " * (long_bytes // 12))
    put(d, PI_LONG, T0 + 700, jl(header(PI_LONG, T0 + 700), *ltree.recs))

    # a corrupt file: an unparseable line and invalid UTF-8 in the middle
    btree = PiTree("bad")
    btree.msg(None, role="user", content=p.text("pibad.user"))
    bad = jl(header(PI_BAD, T0 + 800), *btree.recs) + b'{"type":"message","id":"0bad0bad",\xff\xfe garbage\n' + jl(
        {"type": "message", "id": "0bad0bae", "parentId": btree.leaf, "timestamp": pi_iso(T0),
         "message": {"role": "user", "content": p.text("pibad.after"), "timestamp": T0}})
    put(d, PI_BAD, T0 + 800, bad)

    # a header without cwd (very old files: treated as empty)
    ntree = PiTree("nocwd")
    ntree.msg(None, role="user", content=p.text("pinocwd.user"))
    put(d, PI_NOCWD, T0 + 900, jl(header(PI_NOCWD, T0 + 900, None), *ntree.recs))

    # a subagent run by the example extension: a separate pi session, no core lineage
    stree = PiTree("sub")
    stree.msg(None, role="user", content=p.text("pisub.task"))
    d3 = root / "sessions" / pi_dir_name(win_cwd)
    d3.mkdir()
    put(d3, PI_SUB, T0 + 1000, jl(header(PI_SUB, T0 + 1000, win_cwd), *stree.recs))
    f.cwd[PI_SUB] = win_cwd

    # a flat custom session dir (PI_CODING_AGENT_SESSION_DIR), filtered by header cwd
    flat = home / "pi-flat"
    flat.mkdir()
    fl = PiTree("flat")
    fl.msg(None, role="user", content=p.text("piflat.user"))
    put(flat, PI_FLAT, T0 + 1100, jl(header(PI_FLAT, T0 + 1100, other_cwd), *fl.recs))
    (flat / "notes.jsonl").write_bytes(jl({"kind": "not pi", "v": p.text("piflat.foreign")}))
    f.cwd[PI_FLAT] = other_cwd
    return f


def pi_append(f: PiFacts, p: Plant) -> bytes:
    """Resume: reopen the main file and append a turn (seed linking "resume")."""
    recs = [json.loads(x) for x in f.files[PI_MAIN].read_bytes().splitlines()]
    last = recs[-1]["id"]
    t = PiTree("resume", t=T0 + 9_000_000)
    t.leaf = last
    t.msg(role="user", content=p.text("piresume.user"))
    t.msg(role="assistant", content=[{"type": "text", "text": p.text("piresume.asst")}], api="x", provider="y",
          model="z", usage=usage(1), stopReason="stop")
    extra = jl(*t.recs)
    with f.files[PI_MAIN].open("ab") as fh:
        fh.write(extra)
    return extra


# ---------------------------------------------------------------- DeepSeek (seeds/003, persistence catalog)

DS_MAIN, DS_CHILD, DS_GRAND, DS_WF, DS_NOTICE, DS_FORK, DS_FORK2, DS_FORK_P, DS_RESUMED, DS_SEEDED = (
    "ds-main-01", "ds-child-02", "ds-grand-03", "ds-wf-04", "ds-notice-05", "ds-fork-06", "ds-fork2-07",
    "ds-forkp-08", "ds-resumed-09", "ds-seeded-10")
DS_EMPTY, DS_HEADER, DS_TORN, DS_CRLF, DS_LONG, DS_BAD, DS_MIN = (
    "ds-empty-11", "ds-header-12", "ds-torn-13", "ds-crlf-14", "ds-long-15", "ds-bad-16", "ds-min-17")


def ev(seq: int, typ: str, data: Any, **kw: Any) -> dict[str, Any]:
    return {"type": typ, "seq": seq, "time": T0 + seq * 1000, "data": data, **kw}


def ds_events(p: Plant, tag: str, start: int = 1, child: str | None = None, wf_child: str | None = None,
              notice_from: str | None = None) -> list[dict[str, Any]]:
    """Every event type of the catalog, a secret in every string field that can carry one."""
    c, pa = p.text, p.path
    umsg = {"id": f"u-{tag}", "role": "user", "content": [{"type": "text", "text": c(tag + ".user")}],
            "source": {"kind": "human"}}
    evs: list[tuple[str, Any, dict[str, Any]]] = [
        ("agent-preset/selected", {"agentPreset": c(tag + ".preset")}, {}),
        ("permission/preset", {"preset": "default"}, {}),
        ("approval/policy", {"policy": "on-request", "source": "delegation"}, {}),
        ("sandbox/mode", {"mode": "workspace-write"}, {}),
        ("plan/mode", {"active": False}, {}),
        ("subagent/model-selection-policy", {"allowedModels": [{"provider": "deepseek", "model": "m"}]}, {}),
        ("request/context", {"route": c(tag + ".route")}, {}),
        ("turn/start", {"turn": 1}, {}),
        ("system/message", {"turn": 1, "step": 1, "message": {"role": "system", "content": c(tag + ".system")}},
         {"surfaceOp": "append"}),
        ("user/message", umsg, {"surfaceOp": "append"}),
        ("step/start", {"turn": 1, "step": 1}, {}),
        ("request/header", {"header": {"system": c(tag + ".reqheader")}, "reason": "initial"}, {}),
        ("assistant/attempt", {"turn": 1, "step": 1, "stream": [{"kind": "text", "text": c(tag + ".attempt")}]}, {}),
        ("llm/retry-started", {"attempt": 1, "error": c(tag + ".retry")}, {}),
        ("llm/retry", {"attempt": 1}, {}),
        ("assistant/message", {"turn": 1, "step": 1, "message": {"role": "assistant", "content": [
            {"type": "text", "text": c(tag + ".assistant")}, {"type": "reasoning", "text": c(tag + ".reasoning")}]},
            "stream": [], "usage": {"input": 1, "output": 2}}, {"surfaceOp": "append"}),
        ("tool/call", {"turn": 1, "step": 1, "callId": "call_1", "name": "bash",
                       "arguments": json.dumps({"command": f"cat {pa(tag + '.arg', 'k.pem')}", "env": c(tag + ".argenv")})}, {}),
        ("approval/asked", {"id": "ap1", "toolName": "bash", "callId": "call_1", "reason": c(tag + ".approval")}, {}),
        ("approval/decided", {"id": "ap1", "outcome": "approved"}, {}),
        ("hook/invoked", {"hook": "pre", "command": f"{pa(tag + '.hookcmd', 'h.sh')}"}, {}),
        ("hook/result", {"hook": "pre", "stdout": c(tag + ".hookout")}, {}),
        ("tool/ptc-dispatch-start", {"callId": "call_1", "subCallId": "call_1:ptc:1", "name": "read",
                                     "arguments": {"path": pa(tag + ".ptc")}}, {}),
        ("tool/ptc-dispatch", {"callId": "call_1", "subCallId": "call_1:ptc:1", "name": "read",
                               "arguments": {"path": pa(tag + ".ptc2")}, "content": [{"type": "text", "text": c(tag + ".ptcout")}],
                               "isError": False}, {}),
        ("tool/result", {"turn": 1, "step": 1, "message": {"role": "tool", "callId": "call_1", "content": [
            {"type": "text", "text": c(tag + ".toolout")}], "isError": True},
            "error": {"name": "E", "code": "x", "reason": c(tag + ".toolerr")}, "meta": {"diff": c(tag + ".meta")}},
         {"surfaceOp": "append", "sourceEventSeqs": []}),
        ("step/end", {"turn": 1, "step": 1}, {}),
        ("todo/write", {"todos": [{"content": c(tag + ".todo"), "status": "pending"}]}, {}),
        ("command/run", {"commandId": "c1", "name": "review", "args": c(tag + ".cmdargs"), "source": "user"}, {}),
        ("command/done", {"commandId": "c1", "kind": "error", "text": c(tag + ".cmdout")}, {}),
        ("goal/change", {"goal": c(tag + ".goal")}, {}),
        ("schedule/change", {"version": 1, "record": {"prompt": c(tag + ".schedule")}}, {}),
        ("deliverables/presented", {"callId": "call_1", "paths": [pa(tag + ".deliverable", "out.md")]}, {}),
        ("feedback/message-put", {"sessionId": tag, "item": {"messageId": "m1", "note": c(tag + ".feedback"),
                                                              "rating": "up", "updatedAt": T0, "version": "1"}}, {}),
        ("feedback/message-delete", {"sessionId": tag, "messageId": "m1"}, {}),
        ("feedback/record", {"text": c(tag + ".fbrecord")}, {}),
        ("image/offload", {"attachmentId": "att1", "path": pa(tag + ".img", "i.png")}, {}),
        ("model/selection", {"provider": "deepseek", "model": "m"}, {}),
        ("session/title-llm-request", {"messages": [{"role": "user", "content": c(tag + ".titlereq")}]}, {}),
        ("session/title", {"title": c(tag + ".title")}, {}),
        ("web/deepseek-search-llm-request", {"apiVersion": "1", "endpoint": "https://api.example.com/s",
                                             "body": {"q": c(tag + ".search")}}, {}),
        ("compaction/start", {"compactionId": "k1", "turn": 1}, {}),
        ("compaction/summary", {"compactionId": "k1", "summary": c(tag + ".summary")}, {}),
        ("compaction/prune", {"compactionId": "k1", "tokens": 5}, {}),
        ("compaction/end", {"compactionId": "k1", "turn": 1, "error": c(tag + ".comperr")}, {}),
        ("team/member", {"version": 2, "teamId": "t1", "member": {"name": c(tag + ".member")}}, {}),
        ("team/task", {"version": 2, "teamId": "t1", "task": {"title": c(tag + ".task")}}, {}),
        ("team/message/queued", {"version": 2, "teamId": "t1", "message": {"text": c(tag + ".teammsg")}}, {}),
        ("team/message/delivered", {"version": 2, "teamId": "t1", "messageId": "tm1", "targetId": "ds-someone"}, {}),
        ("session-log-deepseek/delivery-accepted", {"sessionId": tag, "throughSeq": start + 10}, {"ignorable": True}),
        ("turn/end", {"turn": 1, "reason": "completed"}, {}),
    ]
    if child:
        evs.append(("subagent/catalog", {"version": 0, "mode": "continuable", "childId": child,
                                         "childCreatedAt": T0 + 5000, "label": c(tag + ".childlabel")}, {}))
    if wf_child:
        evs += [("tool-workflow/run-start", {"runId": "r1", "name": c(tag + ".wfname")}, {}),
                ("tool-workflow/agent-start", {"runId": "r1", "seq": 1, "childId": wf_child, "label": "member"}, {}),
                ("tool-workflow/agent-end", {"runId": "r1", "seq": 1, "outcome": {"kind": "done"}}, {}),
                ("tool-workflow/run-end", {"runId": "r1", "stopReason": "done"}, {})]
    if notice_from:
        evs.append(("agent/inbox/spliced", {"target": "main", "start": 0, "inserted": [
            {"id": "n1", "role": "user", "content": [{"type": "text", "text": c(tag + ".notice")}],
             "source": {"form": "notice", "kind": "subagent-settled", "senderSessionId": notice_from,
                        "summary": c(tag + ".noticesum")}}]}, {}))
    evs.append(("x-future/thing", {"note": c(tag + ".future")}, {"ignorable": True}))
    return [ev(start + i, t, d, **kw) for i, (t, d, kw) in enumerate(evs)]


def naming_seq(evs: list[dict[str, Any]], child: str) -> str:
    """`seq=<n>` of the first event of `evs` whose data.childId is `child`."""
    return next(f"seq={e['seq']}" for e in evs if isinstance(e["data"], dict) and e["data"].get("childId") == child)


@dataclass
class DsFacts:
    home: Path
    root: Path
    files: dict[str, Path] = field(default_factory=dict)
    edges: dict[str, list[tuple[str, str, str | None]]] = field(default_factory=dict)  # id -> [(rel, parent, at)]
    titles: dict[str, str] = field(default_factory=dict)


def build_deepseek(home: Path, p: Plant, long_bytes: int = 300_000) -> DsFacts:
    root = home / ".deepseek" / "sessions"
    f = DsFacts(home=home, root=root)
    proj = root / "proj-ünï"
    proj.mkdir(parents=True)

    def header(sid: str, created: int, **kw: Any) -> dict[str, Any]:
        return {"type": "session", "version": 3, "id": sid, "createdAt": created, "cwd": p.path(sid + ".cwd", "app"),
                "isSeeded": False, "delegationDepth": 0, **kw}

    def put(rel: str, sid: str, data: bytes) -> Path:
        fp = root / rel
        fp.parent.mkdir(parents=True, exist_ok=True)
        fp.write_bytes(data)
        f.files[sid] = fp
        f.edges.setdefault(sid, [])
        return fp

    main_evs = ds_events(p, "dsmain", child=DS_CHILD, wf_child=DS_WF, notice_from=DS_NOTICE)
    main_file = put(f"proj-ünï/{DS_MAIN}.jsonl", DS_MAIN,
                    jl(header(DS_MAIN, T0, agentPreset=p.text("dsmain.hdrpreset")), *main_evs))
    # a delegated child (origin subagent, parentSession = id) and its own child (parentSession = file path)
    child_evs = ds_events(p, "dschild", start=4, child=DS_GRAND)
    put(f"proj-ünï/{DS_CHILD}.jsonl", DS_CHILD, jl(
        header(DS_CHILD, T0 + 5000, origin="subagent", parentSession=DS_MAIN, delegationDepth=1, isSeeded=True),
        ev(1, "subagent/descriptor", {"version": 0, "mode": "continuable", "label": "helper", "provider": "deepseek",
                                      "persona": p.text("dschild.persona")}),
        ev(2, "approval/policy", {"policy": "never", "source": "delegation"}),
        ev(3, "session/end-seed", {}),
        *child_evs))
    # `at`: the seq of the parent's own record naming the child (its subagent/catalog entry here)
    f.edges[DS_CHILD] = [("subagent", DS_MAIN, naming_seq(main_evs, DS_CHILD))]
    put(f"nested/deeper/{DS_GRAND}.jsonl", DS_GRAND, jl(
        header(DS_GRAND, T0 + 6000, origin="subagent", parentSession=str(root / "proj-ünï" / f"{DS_CHILD}.jsonl"),
               delegationDepth=2),
        ev(1, "subagent/descriptor", {"version": 0, "mode": "one-shot", "provider": "deepseek"}),
        ev(2, "user/message", {"id": "g1", "role": "user", "content": [{"type": "text", "text": p.text("dsgrand.task")}],
                               "source": {"kind": "human"}})))
    f.edges[DS_GRAND] = [("subagent", DS_CHILD, naming_seq(child_evs, DS_GRAND))]
    # children named only by the parent's records (no origin, no parentSession)
    put(f"{DS_WF}.jsonl", DS_WF, jl(header(DS_WF, T0 + 7000), *ds_events(p, "dswf")[:12]))
    f.edges[DS_WF] = [("subagent", DS_MAIN, naming_seq(main_evs, DS_WF))]  # its tool-workflow/agent-start
    put(f"{DS_NOTICE}.jsonl", DS_NOTICE, jl(header(DS_NOTICE, T0 + 7500), *ds_events(p, "dsnotice")[:10]))
    f.edges[DS_NOTICE] = [("subagent", DS_MAIN, None)]  # a settled notice says where it ended, not started
    # forks: inherited prefix + session/end-seed {inherited: true}; parent inferred (no parentSession)
    n = 20
    fork_evs = [*main_evs[:n], ev(n + 1, "session/end-seed", {"inherited": True}),
                *ds_events(p, "dsfork", start=n + 2)[:15]]
    put(f"proj-ünï/{DS_FORK}.jsonl", DS_FORK, jl(header(DS_FORK, T0 + 8000, isSeeded=True), *fork_evs))
    f.edges[DS_FORK] = [("fork", DS_MAIN, f"seq={n + 1}")]
    # a fork of the fork whose prefix ends exactly in the ancestor marker: it owns a new marker there
    put(f"proj-ünï/{DS_FORK2}.jsonl", DS_FORK2, jl(
        header(DS_FORK2, T0 + 9000, isSeeded=True),
        *fork_evs[: n + 1], ev(n + 2, "session/end-seed", {"inherited": True}),
        ev(n + 3, "user/message", {"id": "f2", "role": "user", "content": p.text("dsfork2.user"), "source": {"kind": "human"}})))
    f.edges[DS_FORK2] = [("fork", DS_FORK, f"seq={n + 2}")]
    # a fork naming its parent by path
    put(f"{DS_FORK_P}.jsonl", DS_FORK_P, jl(
        header(DS_FORK_P, T0 + 9500, isSeeded=True, parentSession=str(main_file)),
        *main_evs[:5], ev(6, "session/end-seed", {"inherited": True})))
    f.edges[DS_FORK_P] = [("fork", DS_MAIN, "seq=6")]
    # resumed in place: an untagged end-seed marker after the restored events (no lineage)
    res = ds_events(p, "dsresumed")
    put(f"{DS_RESUMED}.jsonl", DS_RESUMED, jl(header(DS_RESUMED, T0 + 10_000), *res[:8],
                                               ev(9, "session/end-seed", {}), *ds_events(p, "dsresumed2", start=10)[:5]))
    # seeded from another session without an inherited marker (isSeeded + parentSession)
    put(f"{DS_SEEDED}.jsonl", DS_SEEDED, jl(header(DS_SEEDED, T0 + 11_000, isSeeded=True, parentSession=DS_RESUMED),
                                             *res[:8], ev(9, "session/end-seed", {})))
    f.edges[DS_SEEDED] = [("fork", DS_RESUMED, None)]
    # odd-but-valid files
    put(f"{DS_EMPTY}.jsonl", DS_EMPTY, b"")
    put(f"{DS_HEADER}.jsonl", DS_HEADER, jl(header(DS_HEADER, T0 + 12_000)))
    torn = json.dumps(separators=(",", ":"), obj=ev(3, "assistant/message", {"turn": 1, "step": 1, "message": {"content": p.text("dstorn.tail")}}))
    put(f"{DS_TORN}.jsonl", DS_TORN, jl(header(DS_TORN, T0 + 13_000), *ds_events(p, "dstorn")[:2])
        + torn[: len(torn) // 2].encode())
    put(f"{DS_CRLF}.jsonl", DS_CRLF, jl(header(DS_CRLF, T0 + 14_000), *ds_events(p, "dscrlf")[:40], eol=b"\r\n"))
    f.titles[DS_CRLF] = "dscrlf.title"
    put(f"{DS_LONG}.jsonl", DS_LONG, jl(header(DS_LONG, T0 + 15_000), ev(1, "user/message", {
        "id": "l1", "role": "user", "content": [{"type": "text", "text": "Ω" * 100 + p.text("dslong.user") + " "
                                                 + "lorem ipsum " * (long_bytes // 12)}], "source": {"kind": "human"}})))
    put(f"{DS_BAD}.jsonl", DS_BAD, jl(header(DS_BAD, T0 + 16_000), *ds_events(p, "dsbad")[:3])
        + b'{"type":"user/message","seq":4,\xff\xfe not json\n' + jl(ev(5, "turn/end", {"turn": 1, "reason": "x"})))
    # only the required header fields (no cwd/origin/agentPreset), createdAt in seconds; an unknown required event
    put(f"{DS_MIN}.jsonl", DS_MIN, jl({"type": "session", "version": 3, "id": DS_MIN, "createdAt": (T0 + 17_000) // 1000,
                                       "isSeeded": False, "delegationDepth": 0, "futureHeaderField": p.text("dsmin.hdr")},
                                      ev(1, "x-future/required", {"v": p.text("dsmin.future")})))
    f.titles[DS_MAIN] = "dsmain.title"
    return f


def ds_append(f: DsFacts, p: Plant) -> bytes:
    extra = jl(*ds_events(p, "dsappend", start=1000)[:6])
    with f.files[DS_MAIN].open("ab") as fh:
        fh.write(extra)
    return extra


# ---------------------------------------------------------------- the CLI and the store

def make_run(tmp: Path, harness: str, extra: str = "") -> Setup:
    """fx_s11_e2e's CLI kit for USER's home, only `harness` archived."""
    return setup(tmp, harness, extra, user=USER, host=f"box-{USER}")


def find_leaks(blobs: dict[str, bytes], needles: list[tuple[str, str]]) -> list[tuple[str, str]]:
    bad = []
    for rel, data in blobs.items():
        low = data.lower()
        for name, v in needles:
            if v.encode().lower() in low or v in rel:
                bad.append((rel, name))
    return bad
