"""Session 33: a Codex rollout's generated-image references name the restored image.

Seed (codex, layout `generated_images/<thread-id>/<call-id>.png`; records event_msg
`image_generation_end.saved_path` and item_completed `item.savedPath`; linking "sidecar
references": generated images by saved_path / savedPath). After `archiver restore`, relocated or
not, each such value names the restored copy under `--to`, only that JSON string changed; a value
naming an image no archive holds is left as archived and the warnings say so. The CLI runs in
process on a file:// store (tests/fx_home.py), in a plain and a `.jsonl.zst` rollout.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import zstandard

from tests.fx_home import USER, Box, _line, box  # noqa: F401

TID = "0199aaaa-0000-7000-8000-000000000001"
TID_ZST = "0199aaaa-0000-7000-8000-000000000002"
PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(64))
NEW = "/home/quillon/src/app"


def _rollout(codex: Path, tid: str, stamp: str, cwd: str, kept: str, gone: str) -> list[dict[str, Any]]:
    images = codex / "generated_images" / tid
    meta = {"id": tid, "timestamp": "2026-01-02T03:04:05.600Z", "cwd": cwd, "originator": "codex_cli_rs",
            "cli_version": "0.164.0", "model_provider": "openai"}
    return [
        {"timestamp": "2026-01-02T03:04:05.678Z", "type": "session_meta", "payload": meta},
        {"timestamp": "2026-01-02T03:04:06.000Z", "type": "response_item",
         "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "draw it"}]}},
        {"timestamp": "2026-01-02T03:04:07.000Z", "type": "event_msg",
         "payload": {"type": "image_generation_end", "call_id": kept, "status": "completed", "result": "iVBORw0KGgo=",
                     "saved_path": str(images / f"{kept}.png")}},
        {"timestamp": "2026-01-02T03:04:08.000Z", "ordinal": 7, "type": "event_msg",
         "payload": {"type": "item_completed", "thread_id": tid, "turn_id": "t1",
                     "item": {"type": "Extension", "kind": "image_gen.generation", "id": kept, "status": "completed",
                              "result": "iVBORw0KGgo=", "savedPath": str(images / f"{kept}.png")}}},
        # an image deleted before any sync: no archive holds it
        {"timestamp": "2026-01-02T03:04:09.000Z", "type": "event_msg",
         "payload": {"type": "image_generation_end", "call_id": gone, "status": "completed", "result": "iVBORw0KGgo=",
                     "saved_path": str(images / f"{gone}.png")}},
    ]


def _build(box: Box) -> None:
    codex = box.home / ".codex"
    day = codex / "sessions" / "2026" / "01" / "02"
    day.mkdir(parents=True)
    cwd = f"/home/{USER}/app"
    for tid, stamp, zst in ((TID, "03-04-05", False), (TID_ZST, "03-05-05", True)):
        recs = _rollout(codex, tid, stamp, cwd, "ig_1", "ig_gone")
        data = "".join(_line(r) for r in recs).encode()
        name = f"rollout-2026-01-02T{stamp}-{tid}.jsonl"
        if zst:
            (day / f"{name}.zst").write_bytes(zstandard.ZstdCompressor().compress(data))
        else:
            (day / name).write_bytes(data)
        images = codex / "generated_images" / tid
        images.mkdir(parents=True)
        (images / "ig_1.png").write_bytes(PNG)


def _restored_rollout(to: Path, out: dict[str, Any], tid: str) -> tuple[str, list[dict[str, Any]], bytes]:
    [rel] = [f for f in out["files"] if f.startswith(".codex/sessions/") and tid in f]
    raw = (to / rel).read_bytes()
    data = zstandard.ZstdDecompressor().decompressobj().decompress(raw) if rel.endswith(".zst") else raw
    return rel, [json.loads(x) for x in data.splitlines()], data


def _check(box: Box, to: Path, out: dict[str, Any]) -> None:
    assert out["refused"] == [] and out["integrity_errors"] == [], out
    for tid in (TID, TID_ZST):
        [image] = [f for f in out["files"] if f.startswith(f".codex/generated_images/{tid}/")]
        assert (to / image).read_bytes() == PNG
        want = str(to.resolve() / image)
        rel, recs, data = _restored_rollout(to, out, tid)
        assert recs[2]["payload"]["saved_path"] == want
        assert recs[3]["payload"]["item"]["savedPath"] == want
        gone = recs[4]["payload"]["saved_path"]
        assert gone.endswith(f"/.codex/generated_images/{tid}/ig_gone.png") and not gone.startswith(str(to))
        assert f"/home/{USER}" not in gone  # as archived: redacted
        assert data.count(json.dumps(want).encode()) == 2  # both references, spelled as JSON strings
        assert f"codex:{tid}: {rel}: 1 saved_path/savedPath value(s) name no generated image of this restore; " \
               "left as archived" in out["warnings"], out["warnings"]


def test_saved_paths_name_the_restored_images(box: Box) -> None:
    box.only("codex")
    _build(box)
    sync = box.sync()
    assert sync["sessions"]["failed"] == 0 and sync["errors"] == []
    listed = box.ls()
    assert {f"codex:{TID}", f"codex:{TID_ZST}"} <= set(listed)
    to = box.base / "review"
    out = box.cli("restore", "--all", "--to", str(to))
    _check(box, to, out)


def test_saved_paths_relocated(box: Box) -> None:
    box.only("codex")
    _build(box)
    box.sync()
    cwd = box.ls()[f"codex:{TID}"]["cwd"]
    to = box.base / "moved"
    out = box.cli("restore", "--all", "--to", str(to), "--relocate", f"{cwd}={NEW}")
    _check(box, to, out)
    _rel, recs, _data = _restored_rollout(to, out, TID)
    assert recs[0]["payload"]["cwd"] == NEW


def test_hook_rewrites_only_the_string(tmp_path: Path) -> None:
    """The hook on plaintext sync never writes (spaced keys): the values are found by key, the
    line's other bytes kept; a restored path that would leave the root names nothing."""
    from archiver.harnesses.codex import Codex
    from archiver.model import Artifact

    old = "/home/user-1a2b/.codex/generated_images/t1/ig_1.png"
    line = ('{"type":"event_msg","payload":{"type":"image_generation_end", "saved_path" : "' + old
            + '","note":"saved_path stays \\"saved_path\\": \\"/x\\""}}\n')
    plain = tmp_path / "plain"
    plain.write_bytes(line.encode() + b'{"type":"event_msg","payload":{"savedPath":"/h/.codex/generated_images/t1/up.png"}}\n')
    art = Artifact(path=".codex/sessions/2026/01/02/rollout-2026-01-02T03-04-05-t1.jsonl", role="transcript",
                   format="jsonl")
    root = tmp_path / "to"
    moved = {".codex/generated_images/t1/ig_1.png": ".codex/generated_images/t1/ig_1.png",
             ".codex/generated_images/t1/up.png": ".codex/../../up.png"}
    note = Codex.relink_restored(art, plain, root, moved)
    first, second = plain.read_bytes().splitlines(keepends=True)
    assert first == line.replace(f'"saved_path" : "{old}"', f'"saved_path" : "{root}/.codex/generated_images/t1/ig_1.png"').encode()
    assert second == b'{"type":"event_msg","payload":{"savedPath":"/h/.codex/generated_images/t1/up.png"}}\n'
    assert note == f"{art.path}: 1 saved_path/savedPath value(s) name no generated image of this restore; left as archived"
