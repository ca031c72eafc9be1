"""fail_closed: a session whose redacted output still matches a high-confidence rule is
held back and reported, never uploaded; medium-confidence leftovers do not hold it back.

The redactor is made to miss lines carrying a marker, standing in for a rule gap; the
verification pass is the real one."""

from __future__ import annotations

import json
from typing import Any

from archiver.demo.claude_sample import make_claude_home
from tests.fx_archiver import USER, Env, decrypt_with_cli, env  # noqa: F401

MARKER = "LEAK-MARKER"
HIGH = "AKIAQ3ZZTESTLEAK7XYZ"  # aws-access-key-id, high confidence
MEDIUM = 'db_password = "Zq8vLm2Rt5WpXc"'  # password-assignment-quoted, medium confidence


class Leaky:
    """The real redactor, except that lines holding MARKER pass through untouched."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def redact_jsonl_line(self, line: bytes, report: Any, carrier: str = "jsonl") -> bytes:
        return line if MARKER.encode() in line else self.inner.redact_jsonl_line(line, report, carrier)

    def redact_jsonl_lines(self, lines: list[bytes], report: Any, carrier: str = "jsonl") -> list[bytes]:
        return [self.redact_jsonl_line(line, report, carrier) for line in lines]


def _plant(path: Any, text: str) -> None:
    with path.open("a") as f:
        f.write(json.dumps({"type": "user", "message": {"role": "user", "content": f"{MARKER} {text}"}}) + "\n")


def _syncer(e: Env, fail_closed: bool) -> Any:
    from archiver import runtime
    from archiver.archive import Archive
    from archiver.config import load_settings
    from archiver.state import State
    from archiver.sync import Syncer, SyncOptions

    settings = load_settings(e.config)
    keys = runtime.team_keys(settings)
    return Syncer(harnesses=runtime.harnesses(settings), redactor=Leaky(runtime.redactor(settings, keys)),
                  archive=Archive(runtime.store(settings)), state=State(e.base / "st.db"),
                  recipients=runtime.recipients(settings), object_id_key=keys.object_id, host_id="h" * 16,
                  workdir_parent=e.base / "tmp", options=SyncOptions(fail_closed=fail_closed))


def _all_plaintext(e: Env) -> bytes:
    return b"".join(decrypt_with_cli(e.identity, e.raw_object(k)) for k in e.keys_in_bucket() if "/objects/" in k)


def test_high_confidence_leftover_holds_the_session_back(env: Env) -> None:  # noqa: F811
    s = make_claude_home(env.home, USER)
    projects = s.root / "projects" / s.project_key
    _plant(projects / f"{s.fork}.jsonl", f"key {HIGH}")
    _plant(projects / f"{s.main}.jsonl", MEDIUM)
    result = _syncer(env, fail_closed=True).run()
    assert result.failed == 1 and result.total == 6
    (error,) = result.errors
    assert s.fork in error and "held back" in error and "aws-access-key-id" in error
    assert HIGH not in error and HIGH not in json.dumps(result.to_json())
    assert result.snapshot  # the other sessions were archived ...
    stored = _all_plaintext(env)
    assert HIGH.encode() not in stored  # ... and the leaking one never reached the bucket
    assert b"Zq8vLm2Rt5WpXc" in stored  # a medium-confidence leftover does not hold a session back
    listed = {x["key"] for x in env.cli_json("ls", identity=True)["sessions"]}
    assert f"claude-code:{s.fork}" not in listed and f"claude-code:{s.main}" in listed


def test_without_fail_closed_the_session_is_uploaded(env: Env) -> None:  # noqa: F811
    s = make_claude_home(env.home, USER)
    _plant(s.root / "projects" / s.project_key / f"{s.fork}.jsonl", f"key {HIGH}")
    result = _syncer(env, fail_closed=False).run()
    assert result.failed == 0
    assert HIGH.encode() in _all_plaintext(env)
