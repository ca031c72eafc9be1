"""An append-only transcript is read, in this process and in the redaction job, only while it is
the file the pipeline checked: a folder above it swapped for a symlink to a folder elsewhere
holding a file of the same name (O_NOFOLLOW guards only the last name) is refused by identity,
and the other folder's bytes reach no object."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from archiver.demo.claude_sample import make_claude_home
from tests.fx_archiver import USER, Env, env  # noqa: F401
from tests.test_s15_harden_snapshot import CANARY, _archived_plaintext, _messages


def _swap_project_folder_after_check(monkeypatch: pytest.MonkeyPatch, transcript: Path) -> list[str]:
    import archiver.sync as sync

    real = sync._identity
    done: list[str] = []

    def check_then_swap(src: Any) -> Any:
        ident = real(src)
        if src.source == transcript and not done:
            folder = transcript.parent
            decoy = folder.with_name(folder.name + "-decoy")
            decoy.mkdir()
            # the same name, a regular file, other bytes (longer: the whole of it would be new)
            line = b'{"type":"user","message":{"role":"user","content":"' + CANARY + b'"}}\n'
            (decoy / transcript.name).write_bytes(transcript.read_bytes() + line * 4)
            moved = folder.with_name(folder.name + "-real")
            os.rename(folder, moved)
            os.symlink(decoy, folder)
            done.append(str(folder))
        return ident

    monkeypatch.setattr(sync, "_identity", check_then_swap)
    return done


@pytest.mark.parametrize("workers", [1, 2])
def test_a_transcript_whose_folder_is_swapped_after_the_check_is_refused(
        env: Env, monkeypatch: pytest.MonkeyPatch, workers: int) -> None:  # noqa: F811
    from tests.test_disk_faults import claude, make_syncer

    s = make_claude_home(env.home, USER)
    transcript = s.root / "projects" / s.project_key / f"{s.fork}.jsonl"
    done = _swap_project_folder_after_check(monkeypatch, transcript)
    syncer = make_syncer(env, claude(env))
    syncer.options.workers = workers
    result = syncer.run()
    assert done, "the swap did not happen"
    assert CANARY not in _archived_plaintext(env)
    text = _messages(result)
    assert f"{s.fork}.jsonl" in text and "replaced by another file" in text, text
    assert result.failed >= 1


def test_an_append_reads_the_growth_of_the_file_it_checked(env: Env) -> None:  # noqa: F811
    """The ordinary case still works: the identity check passes for the same file."""
    from tests.test_disk_faults import claude, make_syncer

    s = make_claude_home(env.home, USER)
    transcript = s.root / "projects" / s.project_key / f"{s.main}.jsonl"
    first = make_syncer(env, claude(env)).run()
    assert first.failed == 0
    with transcript.open("ab") as f:
        f.write(b'{"type":"user","uuid":"9f9f9f9f-0000-4000-8000-000000000001","message":{"role":"user",'
                b'"content":"one more line"}}\n')
    second = make_syncer(env, claude(env)).run()
    assert second.failed == 0 and second.uploaded >= 1, _messages(second)
    assert b"one more line" in _archived_plaintext(env)
    shutil.rmtree(env.base / "tmp", ignore_errors=True)
