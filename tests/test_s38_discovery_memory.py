"""What the sync process holds for each discovered file until its session is archived: the
sessions go biggest first, so nearly all of them are held through the redaction workers'
memory peak (the 1 GB memory case: 22,700 files). A SourceArtifact keeps its file as a str
and no instance dict; `source` still gives the file as a Path."""

from __future__ import annotations

import gc
import pickle
import tracemalloc
from pathlib import Path

import pytest

from archiver.model import SourceArtifact


def _paths(n: int) -> list[Path]:
    root = Path("/home/alice/.claude/projects/-home-alice-src-billing-service")
    return [root / f"{i:08x}-4a1e-4c7b-9f3d-5e1b2c{i:06x}" / "subagents" / f"agent-{i:016x}.jsonl"
            for i in range(n)]


def test_a_discovered_file_costs_its_path_string_and_a_slotted_object() -> None:
    natives = [str(p.relative_to("/home/alice")) for p in _paths(5000)]
    file_str = 49 + len(str(_paths(1)[0]))  # a compact ASCII str: 48 bytes of header, its text and a NUL
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        paths = _paths(5000)  # made during discovery, as the collectors make them
        held = [SourceArtifact(source=p, path=rel, role="subagent", format="jsonl", mode="append")
                for p, rel in zip(paths, natives)]
        del paths  # the collector's Path objects are gone once it returns its sessions
        gc.collect()
        per_file = (tracemalloc.get_traced_memory()[0] - before) / len(held)
    finally:
        tracemalloc.stop()
    # the slotted object (9 slots) and its pointer in the list; a Path kept instead cost its
    # parts list and object on top (~300 B), an instance dict ~100 B more
    assert file_str < per_file < file_str + 112 + 8 + 16, per_file
    assert not hasattr(held[0], "__dict__")


def test_source_is_the_file_as_a_path() -> None:
    p = Path("/home/alice/.codex/sessions/2026/12/05/rollout-2026-12-05T10-00-00-abc.jsonl.zst")
    a = SourceArtifact(source=p, path=".codex/sessions/x.jsonl.zst", role="transcript", format="jsonl", mode="zst")
    assert a.file == str(p) and type(a.file) is str
    assert a.source == p and isinstance(a.source, Path)
    assert a.source.name == "rollout-2026-12-05T10-00-00-abc.jsonl.zst"
    a.source = Path("/tmp/other//x.db/")  # set again, normalised as str(Path) is
    assert a.file == "/tmp/other/x.db"
    b = SourceArtifact("/home/alice//.pi/s.jsonl/", "p", "transcript", "jsonl")  # a str, positional
    assert b.file == "/home/alice/.pi/s.jsonl" and b.mode == "whole" and b.optional is False


def test_equality_repr_and_pickle_cover_every_field() -> None:
    def make(**changed: object) -> SourceArtifact:
        fields: dict[str, object] = dict(source=Path("/h/a.jsonl"), path="a.jsonl", role="transcript", format="jsonl",
                                         mode="append", shared=False, optional=True, identity=(1, 2, 3))
        fields.update(changed)
        return SourceArtifact(**fields)  # type: ignore[arg-type]

    a = make()
    assert a == make()
    for name, other in [("source", Path("/h/b.jsonl")), ("path", "b.jsonl"), ("role", "sidecar"),
                        ("format", "json"), ("mode", "whole"), ("shared", True), ("optional", False),
                        ("identity", (1, 2, 4))]:
        assert a != make(**{name: other}), name
    assert repr(a) == ("SourceArtifact(source=PosixPath('/h/a.jsonl'), path='a.jsonl', role='transcript', "
                       "format='jsonl', mode='append', produce=None, shared=False, optional=True, identity=(1, 2, 3))")
    assert pickle.loads(pickle.dumps(a)) == a
    with pytest.raises(TypeError):
        hash(a)  # mutable: unhashable, as the dataclass it replaced
