"""restore writes the owner's copy of a shared file (FORMAT.md §5.1): a Cursor subagent's
`shared: true` view of its parent's store.db may hold an older state (the subagent was not
archived again when the parent was), and its key may sort first; the parent's own copy must
stand, not be refused as a conflict."""

from __future__ import annotations

import hashlib
from pathlib import Path

from archiver.archive import Archive
from archiver.crypto import age
from archiver.model import Artifact, Session
from archiver.restore import Restorer
from archiver.store import open_store

PATH = ".cursor/chats/0123456789abcdef0123456789abcdef/11111111-1111-4111-8111-111111111111/store.db"


def _object(arch: Archive, tmp: Path, data: bytes, recipient: object) -> tuple[str, str]:
    sha = hashlib.sha256(data).hexdigest()
    oid = hashlib.sha256(b"test-object-id" + data).hexdigest()
    plain = tmp / f"{oid}.plain"
    plain.write_bytes(data)
    arch.put_object(oid, plain, tmp / f"{oid}.age", [recipient])
    return oid, sha


def _session(key: str, art: Artifact) -> Session:
    harness, sid = key.split(":", 1)
    return Session(key=key, harness=harness, session_id=sid, kind="main", artifacts=[art])


def test_the_owner_copy_is_written_over_an_older_shared_one(tmp_path: Path) -> None:
    secret, public = age.generate_x25519()
    identity, recipient = age.parse_identity(secret), age.parse_recipient(public)
    arch = Archive(open_store(f"file://{tmp_path / 'store'}"))
    work = tmp_path / "work"
    work.mkdir()
    old_oid, old_sha = _object(arch, work, b"store.db as the subagent last saw it", recipient)
    new_oid, new_sha = _object(arch, work, b"store.db now, with the parent's later turns", recipient)
    sub = _session("cursor-agent:00000000-0000-4000-8000-0000000000aa",  # sorts before its parent
                   Artifact(path=PATH, role="database", format="binary", size=36, sha256=old_sha,
                            objects=[old_oid], shared=True))
    parent = _session("cursor-agent:11111111-1111-4111-8111-111111111111",
                      Artifact(path=PATH, role="database", format="binary", size=43, sha256=new_sha,
                               objects=[new_oid]))
    out = tmp_path / "out"
    result = Restorer(arch, [identity]).restore([sub, parent], out)
    assert result.refused == []
    assert (out / PATH).read_bytes() == b"store.db now, with the parent's later turns"
    # alone, the subagent brings its own view of the file
    alone = tmp_path / "alone"
    assert Restorer(arch, [identity]).restore([sub], alone).refused == []
    assert (alone / PATH).read_bytes() == b"store.db as the subagent last saw it"
