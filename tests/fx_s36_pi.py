"""Generated pi homes for the s36 seed audit (seeds/by-harness/pi.json), never copied from a
real home: every seed record example in one version-3 session, a bash temp log and a /fork."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

SEED = Path("/work/shared/seeds/by-harness/pi.json")
SID = "01890a5d-ac96-774b-bcce-b302099a8057"
FID = "01890a5d-ac96-774b-bcce-b302099a8058"
LOG = "pi-bash-0123456789abcdef.log"


def line(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False) + "\n"


def seed_entries() -> list[dict[str, Any]]:
    """The seed's example of every entry type but the header, in seed order (one parent chain)."""
    c = json.loads(SEED.read_text())
    return [json.loads(r["example"]) for r in c["records"] if r["type"] != "session"]


def write_home(home: Path, tmpdir: Path) -> tuple[Path, Path, Path]:
    """(session, fork, temp log): the session holds every seed entry plus a truncated `!` command
    whose full output is in <tmpdir>/pi-bash-<16 hex>.log; the fork (/fork) copies its first
    three entries, header.parentSession naming the session's file."""
    d = home / ".pi" / "agent" / "sessions" / "--srv-app--"
    d.mkdir(parents=True)
    tmpdir.mkdir(parents=True, exist_ok=True)
    log = tmpdir / LOG
    log.write_text("line 1\nline 2\n")
    entries = seed_entries()
    entries.append({"type": "message", "id": "ffff0001", "parentId": entries[-1]["id"],
                    "timestamp": "2026-01-01T11:11:00.000Z",
                    "message": {"role": "bashExecution", "command": "make", "output": "line 2", "exitCode": 0,
                                "cancelled": False, "truncated": True, "fullOutputPath": str(log),
                                "timestamp": 1767265860000}})
    header = {"type": "session", "version": 3, "id": SID, "timestamp": "2026-01-01T10:00:00.000Z", "cwd": "/srv/app"}
    f = d / f"2026-01-01T10-00-00-000Z_{SID}.jsonl"
    f.write_text(line(header) + "".join(line(e) for e in entries))
    fk = d / f"2026-01-01T12-00-00-000Z_{FID}.jsonl"
    fk.write_text(line({**header, "id": FID, "timestamp": "2026-01-01T12:00:00.000Z", "parentSession": str(f)})
                  + "".join(line(e) for e in entries[:3]))
    return f, fk, log
