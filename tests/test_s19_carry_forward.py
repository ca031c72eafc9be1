"""Every manifest names every session the host has archived, those gone from disk included.

Readers take a session's newest state from any manifest, and prune keeps the newest manifest
naming each session, so a sync that stopped carrying vanished sessions forward would pass every
outside check (s19-day2 found the overlap) while each later manifest silently forgot them: a
reader holding only the latest manifest (docs/FORMAT.md §6, invariant 2) or a
retention policy keeping only the last N would lose them. This pins the manifest itself."""

from __future__ import annotations

import json
from pathlib import Path

from tests import fx_s19_versions as fx
from tests.fx_s11_e2e import build_in_child, decrypt_all, latest_manifest, sessions_by_key, setup


def test_a_session_deleted_on_disk_is_named_by_every_later_manifest(tmp_path: Path) -> None:
    s = setup(tmp_path, "pi")
    build_in_child(fx.build_pi, s.home, tmp_path / "facts.json")
    s.json("sync")
    first = sessions_by_key(latest_manifest(decrypt_all(s)))
    gone = next(s.home.rglob(f"*_{fx.PI_V3}.jsonl"))
    gone.unlink()
    # another session grows, so the next run has something to write and makes a manifest
    grown = next(s.home.rglob(f"*_{fx.PI_V1_CLEAN}.jsonl"))
    last = json.loads(grown.read_bytes().splitlines()[-1])
    with grown.open("ab") as f:
        f.write(fx.jl({"type": "message", "timestamp": "2025-03-01T10:00:00.000Z",
                       "message": {"role": "user", "content": "more", "timestamp": 1740823200000},
                       **({"id": "5e5e5e5e", "parentId": last["id"]} if "id" in last else {})}))
    s.json("sync")
    plain = decrypt_all(s)
    manifests = sorted(k for k in plain if k.startswith("snapshots/"))
    assert len(manifests) == 2
    second = sessions_by_key(latest_manifest(plain))
    assert set(second) == set(first)  # nothing dropped, the deleted session included
    key = f"pi:{fx.PI_V3}"
    assert second[key] == first[key]  # carried as archived: same objects, same metadata
    assert second[f"pi:{fx.PI_V1_CLEAN}"] != first[f"pi:{fx.PI_V1_CLEAN}"]
