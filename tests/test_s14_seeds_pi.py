"""s14 seed-conformance audit, pi (seeds/by-harness/pi.json; map in docs/seeds/pi.md): the items
no earlier test exercised.

Layout: `<os.tmpdir()>/pi-bash-<16 hex>.log` holds the full output of a truncated bash call,
named by toolResult.details.fullOutputPath / bashExecution.fullOutputPath; "temporary, not
under the session dir and may be gone". The temp dir is shared with every local user, so a
name there may be a symbolic link to anything of the user's (a key): it is reported, never
followed, as every collector treats links.
"""

from __future__ import annotations

import json
from pathlib import Path

from archiver.harnesses.base import HarnessContext, load_harness

CWD = "/home/alice/work/api"
SID = "0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"


def _line(o: object) -> str:
    return json.dumps(o) + "\n"


def _session(home: Path, outputs: list[Path]) -> Path:
    """A version-3 session: header, a user message, then one bashExecution message per output
    (fullOutputPath on the message) and one bash toolResult (details.fullOutputPath)."""
    folder = home / ".pi" / "agent" / "sessions" / "--home-alice-work-api--"
    folder.mkdir(parents=True)
    f = folder / f"2026-01-01T10-00-00-000Z_{SID}.jsonl"
    lines = [_line({"type": "session", "version": 3, "id": SID, "timestamp": "2026-01-01T10:00:00.000Z", "cwd": CWD}),
             _line({"type": "message", "id": "a0000001", "parentId": None, "timestamp": "2026-01-01T10:00:01.000Z",
                    "message": {"role": "user", "content": "run the tests", "timestamp": 1767261601000}})]
    parent = "a0000001"
    for n, out in enumerate(outputs):
        eid = f"b{n:07d}"
        msg = ({"role": "bashExecution", "command": "make test", "output": "...", "exitCode": 0, "cancelled": False,
                "truncated": True, "fullOutputPath": str(out), "timestamp": 1767261602000}
               if n % 2 == 0 else
               {"role": "toolResult", "toolCallId": f"call_{n}", "toolName": "bash", "content": [{"type": "text", "text": "..."}],
                "details": {"truncation": {"truncated": True}, "fullOutputPath": str(out)}, "isError": False,
                "timestamp": 1767261602000})
        lines.append(_line({"type": "message", "id": eid, "parentId": parent, "timestamp": "2026-01-01T10:00:02.000Z",
                            "message": msg}))
        parent = eid
    f.write_text("".join(lines))
    return f


def test_a_full_output_path_that_is_a_symbolic_link_is_not_followed(tmp_path: Path) -> None:
    home, tmp = tmp_path / "home", tmp_path / "tmp"
    tmp.mkdir()
    key = home / ".ssh" / "id_ed25519"
    key.parent.mkdir(parents=True)
    key.write_text("-----BEGIN OPENSSH PRIVATE KEY-----\n")
    real = tmp / "pi-bash-0123456789abcdef.log"
    real.write_text("PASS 120 tests\n")
    link = tmp / "pi-bash-fedcba9876543210.log"
    link.symlink_to(key)
    link2 = tmp / "pi-bash-00112233445566ff.log"
    link2.symlink_to(real)  # even a link to a real output file: the link is what the transcript names
    _session(home, [real, link, link2])
    (s,) = load_harness("pi", HarnessContext(home=home, env={})).discover()
    assert [(a.source, a.role, a.optional) for a in s.sources if a.role == "sidecar"] == [(real, "sidecar", True)]
    assert not any(a.source in (link, link2, key) for a in s.sources)
    assert [w for w in s.warnings if "symbolic link" in w] == [
        f"{s.sources[0].source.name}: fullOutputPath {link} is a symbolic link; not archived",
        f"{s.sources[0].source.name}: fullOutputPath {link2} is a symbolic link; not archived",
    ]
