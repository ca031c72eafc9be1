"""Sessions not taken unchanged go the long way largest first (by what they will redact), so a
big job that cannot be split does not start last and keep one worker busy alone, and the
workers' memory peak comes while the main process holds few finished sessions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from archiver.sync import Syncer
from tests.fx_home import Box, box  # noqa: F401
from tests.test_s14_inline_jobs import _claude_session


def _order(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    seen: list[str] = []
    real = Syncer._session

    def session(self: Syncer, ds, work):  # type: ignore[no-untyped-def]
        seen.append(ds.session_id)
        return real(self, ds, work)

    monkeypatch.setattr(Syncer, "_session", session)
    return seen


def _sid(n: int) -> str:
    return f"{n:08x}-aaaa-4bbb-8ccc-dddddddddddd"


def test_a_cold_run_takes_the_sessions_largest_first(box: Box, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    box.only("claude-code")
    sizes = {_sid(1): 5, _sid(2): 80, _sid(3): 20, _sid(4): 80, _sid(5): 40}
    for sid, lines in sizes.items():
        _claude_session(box.home, sid, lines)
    seen = _order(monkeypatch)
    out = box.cli("sync", "--workers", "1")
    assert out["sessions"]["uploaded"] == 5
    by_size = sorted(sizes, key=lambda s: -sizes[s])
    assert seen[:1] in ([_sid(2)], [_sid(4)]) and seen[2:] == by_size[2:]
    assert sorted(seen[:2]) == [_sid(2), _sid(4)]


def test_an_append_is_ranked_by_what_it_grew_not_by_the_file(box: Box, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    box.only("claude-code")
    big = _claude_session(box.home, _sid(1), 400)
    assert box.cli("sync", "--workers", "1")["sessions"]["uploaded"] == 1
    small_new = _claude_session(box.home, _sid(2), 30)  # new: counted whole
    with big.open("a") as f:  # grew by one line: counted by the line
        f.write(json.dumps({"type": "user", "uuid": "00000001-9999-4000-8000-000000000000", "sessionId": _sid(1),
                            "message": {"role": "user", "content": "one more"}}) + "\n")
    assert big.stat().st_size > 10 * small_new.stat().st_size
    seen = _order(monkeypatch)
    out = box.cli("sync", "--workers", "1")
    assert out["sessions"]["uploaded"] == 2
    assert seen == [_sid(2), _sid(1)]
