"""pi's fullOutputPath temp files (`<os.tmpdir()>/pi-bash-<16hex>.log`, seed layout and records
toolResult.details.fullOutputPath / bashExecution.fullOutputPath) are archived beside the
transcript (`<id>.tmp/<name>`); restore puts them under the target and rewrites the transcript's
values that name them to where it put them, every other byte as archived. A value whose file was
gone at sync stays as archived. The CLI runs in process on a file:// store (tests/fx_home.py).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from tests.fx_home import USER, Box, _line, box  # noqa: F401

SID = "0b0e5f4e-aaaa-4bbb-8ccc-0123456789ab"
CWD = f"/home/{USER}/app"
TOKEN = "ghp_" + "Zq7Yx2Wv9Ut4Sr6Qp8On1Ml3Kj5Ih0Gf2Ed"
NEW = "/home/quillon/src/app"


def _folder(cwd: str) -> str:
    return "--" + cwd[1:].replace("/", "-") + "--"


def _entry(eid: str, parent: str | None, ms: int, **message: Any) -> dict[str, Any]:
    return {"type": "message", "id": eid, "parentId": parent, "timestamp": f"2026-01-02T03:04:{ms:02d}.000Z",
            "message": {**message, "timestamp": 1767323040000 + ms * 1000}}


def _build(box: Box) -> dict[str, Any]:
    tmpdir = box.base / "tmp"
    tmpdir.mkdir()
    tool_log = tmpdir / "pi-bash-0123456789abcdef.log"
    tool_log.write_text(f"line 1\nexport GITHUB_TOKEN={TOKEN}\nline 3\n")
    bash_log = tmpdir / "pi-bash-fedcba9876543210.log"
    bash_log.write_text("bash full output\n" * 50)
    gone = tmpdir / "pi-bash-00000000deadbeef.log"
    folder = box.home / ".pi" / "agent" / "sessions" / _folder(CWD)
    folder.mkdir(parents=True)
    recs = [
        {"type": "session", "version": 3, "id": SID, "timestamp": "2026-01-02T03:04:00.000Z", "cwd": CWD},
        _entry("a0000001", None, 1, role="user", content="run the tests"),
        _entry("a0000002", "a0000001", 2, role="assistant", content=[
            {"type": "toolCall", "id": "call_1", "name": "bash", "arguments": {"command": "make test"}}],
            api="anthropic-messages", provider="anthropic", model="m", stopReason="toolUse",
            usage={"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2}),
        _entry("a0000003", "a0000002", 3, role="toolResult", toolCallId="call_1", toolName="bash", isError=False,
               content=[{"type": "text", "text": "line 3"}],
               details={"truncation": {"truncated": True}, "fullOutputPath": str(tool_log)}),
        _entry("a0000004", "a0000003", 4, role="bashExecution", command="ls", output="bash full output",
               exitCode=0, cancelled=False, truncated=True, fullOutputPath=str(bash_log)),
        _entry("a0000005", "a0000004", 5, role="bashExecution", command="sleep 9", output="", cancelled=True,
               truncated=False, fullOutputPath=str(gone)),
        # the same words inside a string are text, not a field: never rewritten
        _entry("a0000006", "a0000005", 6, role="user",
               content=f'the log said "fullOutputPath": "{tool_log}" earlier'),
    ]
    transcript = folder / f"2026-01-02T03-04-00-000Z_{SID}.jsonl"
    transcript.write_text("".join(_line(r) for r in recs))
    return {"tool": tool_log, "bash": bash_log, "gone": gone, "transcript": transcript}


def _records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_bytes().splitlines()]


def _check(box: Box, facts: dict[str, Any], to: Path, *relocate: str) -> dict[str, str]:
    out = box.cli("restore", f"pi:{SID}", "--to", str(to), *relocate)
    assert out["refused"] == [] and out["integrity_errors"] == [], out
    session = box.ls()[f"pi:{SID}"]
    arts = {a["role"] + ":" + a["path"].rsplit("/", 1)[-1]: a for a in session["artifacts"]}
    [transcript_rel] = [f for f in out["files"] if f.endswith(".jsonl")]
    recs = _records(to / transcript_rel)
    restored = {}
    for key, value in (("tool", recs[3]["message"]["details"]["fullOutputPath"]),
                       ("bash", recs[4]["message"]["fullOutputPath"])):
        name = facts[key].name
        [rel] = [f for f in out["files"] if f.endswith(f".tmp/{name}")]
        assert value == str(to.resolve() / rel), (value, rel)  # the restored file, by absolute path
        data = Path(value).read_bytes()
        assert hashlib.sha256(data).hexdigest() == arts[f"sidecar:{name}"]["sha256"]  # the archived bytes
        assert TOKEN not in data.decode()
        restored[key] = value
    assert recs[5]["message"]["fullOutputPath"] == str(facts["gone"])  # not archived: as it was
    assert recs[6]["message"]["content"] == f'the log said "fullOutputPath": "{facts["tool"]}" earlier'
    return restored


def test_restore_points_full_output_paths_at_the_restored_files(box: Box) -> None:
    box.only("pi")
    facts = _build(box)
    sync = box.sync()
    assert sync["sessions"]["failed"] == 0 and sync["errors"] == []
    to = box.base / "review"
    restored = _check(box, facts, to)
    # nothing else in the transcript moved: putting the archived values back gives the archived digest
    [transcript_rel] = [a["path"] for a in box.ls()[f"pi:{SID}"]["artifacts"] if a["role"] == "transcript"]
    data = (to / transcript_rel).read_bytes()
    for key in ("tool", "bash"):
        data = data.replace(json.dumps(restored[key]).encode(), json.dumps(str(facts[key])).encode())
    sha = next(a["sha256"] for a in box.ls()[f"pi:{SID}"]["artifacts"] if a["role"] == "transcript")
    assert hashlib.sha256(data).hexdigest() == sha
    # restoring again into the same target writes the same bytes (nothing refused)
    again = box.cli("restore", f"pi:{SID}", "--to", str(to))
    assert again["refused"] == [] and (to / transcript_rel).read_bytes() != b""


def test_a_relocated_restore_points_them_at_the_renamed_folder(box: Box) -> None:
    box.only("pi")
    facts = _build(box)
    box.sync()
    old = box.ls()[f"pi:{SID}"]["cwd"]
    to = box.base / "moved"
    restored = _check(box, facts, to, "--relocate", f"{old}={NEW}")
    for value in restored.values():
        assert f"/.pi/agent/sessions/{_folder(NEW)}/{SID}.tmp/" in value, value
