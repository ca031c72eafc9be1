"""pi sessions in a folder named after a cwd with an e-mail for a user name, spaces and letters
outside ASCII (found by an independent check against the seeds):

- a session without a readable header (an empty file, a corrupt first line) was archived in a
  folder of its own: its folder name went through the rules, which read the whole dashed
  component `home-jane.doe@acme-corp.com` as one address (another pseudonym);
- a fork's `parentSession` named that wrong folder: the folder alias skipped names with spaces
  or letters outside ASCII, so the rules rewrote the path their own way.
Now every session of the folder is archived in the one folder rebuilt from the redacted cwd, and
the fork's header names that folder byte for byte.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import archiver.redact.folder_aliases as fa
from archiver.harnesses.pi import cwd_dir_name
from tests.fx_s26_leakaudit import Planted
from tests.test_s26_leakaudit import _child, _decrypt, _inproc

CWD = "/home/jane.doe@acme-corp.com/My Projects/café ü app"
FOLDER = cwd_dir_name(CWD)
PARENT = "0a1b2c3d-0000-4000-8000-00000000a001"
FORK = "0a1b2c3d-0000-4000-8000-00000000a002"
EMPTY = "0a1b2c3d-0000-4000-8000-00000000a003"
CORRUPT = "0a1b2c3d-0000-4000-8000-00000000a004"


def _red(path: str) -> str:
    return path.replace("jane.doe@acme-corp.com", "<EMAIL:0badf00d>")


def test_a_pi_folder_with_spaces_and_accents_is_aliased() -> None:
    got = fa.cwd_folder_aliases([(".pi/agent/sessions/", cwd_dir_name)], CWD, _red)
    assert (b"sessions", FOLDER.encode(), cwd_dir_name(_red(CWD)).encode()) in got
    line = json.dumps({"parentSession": f"/x/.pi/agent/sessions/{FOLDER}/a.jsonl"}, ensure_ascii=False).encode()
    out, n = fa.FolderAliasRewriter(got).line(line)
    assert n == 1 and out == line.replace(FOLDER.encode(), cwd_dir_name(_red(CWD)).encode())


def _node_jsonl(records: list[dict[str, object]]) -> bytes:
    """JSON lines as pi (Node's JSON.stringify) writes them: letters outside ASCII as UTF-8."""
    return b"".join(json.dumps(r, separators=(",", ":"), ensure_ascii=False).encode() + b"\n" for r in records)


def _session(sid: str, minute: int, **extra: str) -> list[dict[str, object]]:
    ts = f"2026-02-01T10:{minute:02d}:00.000Z"
    return [{"type": "session", "version": 3, "id": sid, "timestamp": ts, "cwd": CWD, **extra},
            {"type": "message", "id": f"m{minute}", "parentId": None, "timestamp": ts,
             "message": {"role": "user", "content": "tidy the build", "timestamp": 1769940000000 + minute}}]


def _plant(tmp_path: Path) -> Planted:
    keys = tmp_path / "keys"
    subprocess.run([sys.executable, "-m", "archiver", "keygen", "--out", str(keys)], check=True, capture_output=True)
    p = Planted(base=tmp_path, home=tmp_path / "home", config=tmp_path / "config.toml", state=tmp_path / "state",
                store=tmp_path / "store", keys=keys)
    folder = p.home / ".pi" / "agent" / "sessions" / FOLDER
    folder.mkdir(parents=True)
    parent_file = folder / f"2026-02-01T10-00-00-000Z_{PARENT}.jsonl"
    parent_file.write_bytes(_node_jsonl(_session(PARENT, 0)))
    (folder / f"2026-02-01T10-05-00-000Z_{FORK}.jsonl").write_bytes(
        _node_jsonl(_session(FORK, 5, parentSession=str(parent_file))))
    (folder / f"2026-02-01T10-07-00-000Z_{EMPTY}.jsonl").write_bytes(b"")
    (folder / f"2026-02-01T10-09-00-000Z_{CORRUPT}.jsonl").write_bytes(b'{"type": "sess\n')
    p.config.write_text(
        f'home = "{p.home}"\nhost = "h"\n\n[redaction]\nteam_key_file = "{keys / "team.key"}"\n\n'
        f'[encryption]\nrecipients_file = "{keys / "recipient.txt"}"\n\n'
        f'[store]\nurl = "file://{p.store}"\n\n[state]\ndir = "{p.state}"\n')
    return p


def test_every_session_of_a_pi_folder_is_archived_in_one_folder_and_the_fork_names_it(tmp_path: Path) -> None:
    p = _plant(tmp_path)
    code, _out, err = _child(p, "sync", "--json")
    assert code == 0, err
    code, out = _inproc(p, "ls")
    sessions = {s["session_id"]: s for s in json.loads(out)["sessions"] if s["harness"] == "pi"}
    assert set(sessions) == {PARENT, FORK, EMPTY, CORRUPT}
    folders = {sid: {a["path"].rsplit("/", 2)[1] for a in s["artifacts"]} for sid, s in sessions.items()}
    archived = folders[PARENT]
    assert len(archived) == 1 and all(f == archived for f in folders.values()), folders
    name = next(iter(archived))
    assert name == cwd_dir_name(name[2:-2]) and "acme" not in name and "jane" not in name and "EMAIL" in name
    assert name.endswith("-My Projects-café ü app--")
    plain = [_decrypt(p, f) for f in sorted((p.store / "objects").rglob("*")) if f.is_file()]
    headers = [json.loads(t.split("\n", 1)[0]) for t in plain if t.startswith('{"type":"session"')]
    fork_header = next(h for h in headers if h["id"] == FORK)
    parent_name = next(a["path"] for a in sessions[PARENT]["artifacts"]).rsplit("/", 1)[1]
    assert fork_header["parentSession"].endswith(f"/.pi/agent/sessions/{name}/{parent_name}")
    text = "".join(plain)
    assert "acme" not in text and "jane" not in text
