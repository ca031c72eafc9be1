"""verify --read-data reports progress: a total, then one step per object read."""

from __future__ import annotations

from archiver.demo.claude_sample import make_claude_home
from tests.fx_archiver import USER, Env, env  # noqa: F401


def test_verify_reports_total_and_each_object(env: Env) -> None:  # noqa: F811
    from archiver import runtime
    from archiver.archive import Archive
    from archiver.config import load_settings
    from archiver.progress import CountProgress
    from archiver.verify import verify

    make_claude_home(env.home, USER)
    env.cli_json("sync", "--workers", "1")
    settings = load_settings(env.config)
    events: list[tuple[str, int]] = []
    result = verify(Archive(runtime.store(settings)), runtime.identities(env.identity), read_data=True,
                    subset=0.5, seed=3, progress=lambda e, n: events.append((e, n)))
    assert events[0][0] == "total_objects" and events[0][1] == result.objects_read == round(result.objects * 0.5)
    assert events[1:] == [("object", 1)] * result.objects_read
    bar = CountProgress("verify", json_output=True)  # off the terminal: counts, draws nothing
    with bar:
        bar("total_objects", 3)
        bar("object", 2)
    assert not bar.live and bar._progress.tasks[0].completed == 2 and bar._progress.tasks[0].total == 3
