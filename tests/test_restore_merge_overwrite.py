"""Restore never silently replaces what the target's owner has (README: "not replaced unless
--overwrite"), also where it merges rows into a harness's own database rather than placing a
file: OpenCode's opencode.db (per-session extracts) and Codex's state_5.sqlite (thread rows)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from archiver.demo.opencode_sample import SES_A, close_opencode_home, make_opencode_home
from archiver.harnesses.codex import merge_state_extract
from tests.fx_home import Box, box  # noqa: F401

DB = ".local/share/opencode/opencode.db"


def _title(db: Path, sid: str) -> str:
    con = sqlite3.connect(db)
    try:
        return con.execute("SELECT title FROM session_v2 WHERE id = ?", (sid,)).fetchone()[0]
    finally:
        con.close()


def _set_title(db: Path, sid: str, title: str) -> None:
    con = sqlite3.connect(db)
    con.execute("UPDATE session_v2 SET title = ? WHERE id = ?", (title, sid))
    con.commit()
    con.close()


def test_opencode_session_edited_in_the_target_is_replaced_only_with_overwrite(box: Box) -> None:  # noqa: F811
    box.only("opencode")
    close_opencode_home(make_opencode_home(box.home))
    box.sync()
    out = box.base / "out"
    key = f"opencode:{SES_A}"
    first = box.cli("restore", key, "--to", str(out))
    db = out / DB
    archived_title = _title(db, SES_A)
    assert DB in first["files"] and archived_title

    again = box.cli("restore", key, "--to", str(out))  # the same rows again: nothing to refuse
    assert again.get("refused", []) == [] and _title(db, SES_A) == archived_title

    _set_title(db, SES_A, "edited by the reviewer")
    refused = box.cli("restore", key, "--to", str(out), expect=None)
    assert any(SES_A in r and "--overwrite" in r for r in refused["refused"]), refused
    assert _title(db, SES_A) == "edited by the reviewer"

    box.cli("restore", key, "--to", str(out), "--overwrite")
    assert _title(db, SES_A) == archived_title


def _extract(path: Path, tid: str, title: str, rollout: str) -> Path:
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE threads (id TEXT PRIMARY KEY, rollout_path TEXT, cwd TEXT, title TEXT)")
    con.execute("INSERT INTO threads VALUES (?, ?, '/work/app', ?)", (tid, rollout, title))
    con.commit()
    con.close()
    return path


def test_codex_thread_row_with_other_content_is_kept_unless_overwrite(tmp_path: Path) -> None:
    tid = "0199aaaa-0000-7000-8000-000000000009"
    name = f"rollout-2026-01-02T03-04-05-{tid}.jsonl"
    codex_root = tmp_path / "restored" / ".codex"
    rollout = codex_root / "sessions" / "2026" / "01" / "02" / name
    rollout.parent.mkdir(parents=True)
    rollout.write_text("{}\n")
    state = codex_root / "state_5.sqlite"
    archived = _extract(tmp_path / "x.sqlite", tid, "archived title", f"/home/u/.codex/sessions/2026/01/02/{name}")
    warnings: list[str] = []
    merge_state_extract(archived, state, codex_root, warnings, overwrite=False)
    row = sqlite3.connect(state).execute("SELECT title, rollout_path FROM threads").fetchall()
    assert row == [("archived title", str(rollout.resolve()))] and warnings == []

    # the same extract again: its re-pointed rollout_path is ours, not a difference
    merge_state_extract(archived, state, codex_root, warnings, overwrite=False)
    assert warnings == []

    con = sqlite3.connect(state)
    con.execute("UPDATE threads SET title = 'the owner renamed it', rollout_path = '/elsewhere.jsonl'")
    con.commit()
    con.close()
    merge_state_extract(archived, state, codex_root, warnings, overwrite=False)
    assert len(warnings) == 1 and tid in warnings[0] and "--overwrite" in warnings[0]
    row = sqlite3.connect(state).execute("SELECT title, rollout_path FROM threads").fetchall()
    assert row == [("the owner renamed it", "/elsewhere.jsonl")]

    merge_state_extract(archived, state, codex_root, [], overwrite=True)
    row = sqlite3.connect(state).execute("SELECT title, rollout_path FROM threads").fetchall()
    assert row == [("archived title", str(rollout.resolve()))]
