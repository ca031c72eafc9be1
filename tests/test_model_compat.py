"""Manifests stay readable when a later version adds an artifact format (docs/FORMAT.md §5:
an unknown format is restored as its bytes)."""

from __future__ import annotations

import json

from archiver.model import Manifest


def test_an_artifact_format_added_later_still_loads() -> None:
    doc = {
        "format": "archiver/1", "host_id": "aaaaaaaaaaaaaaaa", "created_at": "2026-11-30T00:00:00.000Z",
        "run_id": "r", "tool_version": "9.9", "sessions": [{
            "key": "opencode:@project-p", "harness": "opencode", "session_id": "@project-p",
            "host_id": "aaaaaaaaaaaaaaaa", "kind": "host",
            "artifacts": [
                {"path": "a/objects/ab/cd", "role": "blob", "format": "git-object", "objects": []},
                {"path": "a/x", "role": "blob", "format": "some-format-of-2030", "objects": []},
            ]}],
    }
    m = Manifest.model_validate_json(json.dumps(doc))
    assert [a.format for a in m.sessions[0].artifacts] == ["git-object", "some-format-of-2030"]


def test_compacted_models_serialise_and_behave_as_before() -> None:
    """sync keeps every Artifact of a run in memory: compact() shares their fields-set; the
    manifest bytes, equality, assignment and copies must not notice."""
    from archiver.model import Artifact, Session, compact

    def artifact(i: int) -> Artifact:
        return Artifact(path=f".claude/projects/p/{i}.jsonl", role="transcript", format="jsonl", size=i,
                        mtime=1.5, sha256=f"{i:064x}", objects=[f"{i * 7:064x}"])

    plain = [artifact(i) for i in range(3)]
    small = [compact(artifact(i)) for i in range(3)]
    assert small[0].model_fields_set is small[1].model_fields_set
    assert plain[0].model_fields_set is not plain[1].model_fields_set
    session = dict(key="claude-code:s", harness="claude-code", session_id="s", redactions={"email": 2})
    a, b = Session(artifacts=plain, **session), compact(Session(artifacts=small, **session))
    assert b.model_dump_json().encode() == a.model_dump_json().encode()
    assert a == b and small == plain
    assert Manifest(host_id="h", created_at="t", run_id="r", tool_version="v", sessions=[b]).model_dump_json() == \
        Manifest(host_id="h", created_at="t", run_id="r", tool_version="v", sessions=[a]).model_dump_json()
    small[0].size = 99  # assignment still works and stays on its instance
    assert (small[0].size, small[1].size) == (99, 1)
    copied = small[1].model_copy(update={"sha256": "0" * 64})
    assert copied.sha256 == "0" * 64 and small[1].sha256 == f"{1:064x}"
    assert small[1].model_fields_set == set(Artifact.model_fields)
