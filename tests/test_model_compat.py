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
