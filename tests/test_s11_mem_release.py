"""The allocator gives free memory back after every so many bytes of work, small jobs included
(a long run of small jobs fragments the heap as one big job does)."""

from __future__ import annotations

from pathlib import Path

import pytest

import archiver.allocator as allocator
import archiver.workers as workers_mod
from archiver.redact.redactor import build_redactor
from archiver.workers import redact_segment

from tests.test_pipeline_parallel import KEY, RULES, TERMS, _transcript


@pytest.fixture
def releases(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    monkeypatch.setattr(allocator, "release", lambda: calls.append(1))
    monkeypatch.setattr(allocator, "_churned", 0)
    return calls


def test_release_every_counts_bytes_across_calls(releases: list[int]) -> None:
    assert [allocator.release_every(n, 100) for n in (40, 40, 19)] == [False, False, False]
    assert releases == []
    assert allocator.release_every(1, 100) is True  # 100 bytes gone by
    assert releases == [1]
    assert allocator.release_every(99, 100) is False  # counted again from 0
    assert allocator.release_every(250, 100) is True and allocator.release_every(0, 100) is False
    assert releases == [1, 1]


def test_small_jobs_adding_up_release_in_a_worker(tmp_path: Path, releases: list[int],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    src = tmp_path / "t.jsonl"
    data = _transcript(src, 40)
    monkeypatch.setattr(workers_mod, "BIG_JOB", 3 * len(data) - 1)  # no single job reaches it
    redactor = build_redactor(RULES, KEY, TERMS)
    outs = []
    for i in range(6):
        res = redact_segment(redactor, KEY, True, str(src), 0, len(data), str(tmp_path / f"o{i}"))
        outs.append((tmp_path / f"o{i}").read_bytes())
        assert res.size == len(outs[-1])
    assert len(releases) == 2  # after the 3rd and the 6th job
    assert len(set(outs)) == 1 and b"/home/alice" not in outs[0]
