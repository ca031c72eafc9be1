"""Hand-made objects and manifests written into the archive a config names: the hostile or odd
archives no collector writes (a planted path, a damaged object, a forged manifest). Test files
add their own `manifest` method for the shape of manifest they need."""

from __future__ import annotations

import hashlib
from pathlib import Path

from archiver.archive import Archive
from archiver.model import Artifact
from archiver.pack import object_id, pack_bytes


class Crafter:
    def __init__(self, config: Path) -> None:
        from archiver import runtime
        from archiver.config import load_settings

        settings = load_settings(config)
        self.keys = runtime.team_keys(settings)
        self.recipients = runtime.recipients(settings)
        self.archive = Archive(runtime.store(settings))
        self.archive.ensure_marker()

    def put(self, data: bytes) -> str:
        oid = object_id(self.keys.object_id, data)
        self.archive.store.put_bytes(f"objects/{oid[:2]}/{oid}", pack_bytes(data, self.recipients))
        return oid

    def put_raw(self, oid: str, stored: bytes) -> str:
        """Store bytes as they are (already age-encrypted) under an object id."""
        self.archive.store.put_bytes(f"objects/{oid[:2]}/{oid}", stored)
        return oid

    def artifact(self, path: str, data: bytes, **over: object) -> Artifact:
        fields: dict[str, object] = dict(path=path, role="transcript", format="jsonl", size=len(data),
                                         mtime=1_760_000_000.0, sha256=hashlib.sha256(data).hexdigest(),
                                         objects=[self.put(data)])
        fields.update(over)
        return Artifact(**fields)  # type: ignore[arg-type]
