"""What `archiver restore` writes of an archived Claude Code transcript (s32 relinks), for tests
that compare restored bytes with archived ones. No tests here.

`claude_relinked(data, root, restored)`: each toolUseResult.persistedOutputPath / outputFile value
and `<persisted-output>` preview path naming `.claude/projects/<rest>` among `restored` (the paths
the restore wrote, relative to `root`) names root/<that path>, every other byte as archived.
`codex_relinked(data, root, restored)`: each saved_path / savedPath value naming
`.codex/generated_images/<rest>` among `restored` names root/<that path> (s33).
`rooted(data, root)`: the restore root's path replaced by `<ROOT>`, to compare two restores of the
same archive into different roots.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Iterable

_FIELD = re.compile(rb'(?<!\\)("(?:persistedOutputPath|outputFile)"\s*:\s*)"((?:[^"\\]|\\.)*)"')
_PREVIEW = re.compile(rb'("<persisted-output>(?:[^"\\]|\\.){0,1024}?Full output saved to: )([^"\\]+?)'
                      rb'(?=\\n|"|</persisted-output>)')


def claude_relinked(data: bytes, root: Path, restored: Iterable[str]) -> bytes:
    wrote = set(restored)

    def named(old: str) -> str | None:
        if not old.startswith("/") or "/projects/" not in old:
            return None
        rel = ".claude/projects/" + old.rsplit("/projects/", 1)[1]
        return str(root.resolve() / rel) if rel in wrote else None

    def field(m: re.Match[bytes]) -> bytes:
        new = named(json.loads(b'"' + m.group(2) + b'"'))
        return m.group(1) + json.dumps(new, ensure_ascii=False).encode() if new else m.group(0)

    def preview(m: re.Match[bytes]) -> bytes:
        new = named(m.group(2).decode())
        return m.group(1) + json.dumps(new, ensure_ascii=False)[1:-1].encode() if new else m.group(0)

    return _PREVIEW.sub(preview, _FIELD.sub(field, data))


_SAVED = re.compile(rb'(?<!\\)("(?:saved_path|savedPath)"\s*:\s*)"((?:[^"\\]|\\.)*)"')


def codex_relinked(data: bytes, root: Path, restored: Iterable[str]) -> bytes:
    wrote = set(restored)

    def field(m: re.Match[bytes]) -> bytes:
        old = json.loads(b'"' + m.group(2) + b'"')
        if not old.startswith("/") or "/generated_images/" not in old:
            return m.group(0)
        rel = ".codex/generated_images/" + old.rsplit("/generated_images/", 1)[1]
        return m.group(1) + json.dumps(str(root.resolve() / rel), ensure_ascii=False).encode() \
            if rel in wrote else m.group(0)

    return _SAVED.sub(field, data)


def rooted(data: bytes, root: Path) -> bytes:
    return data.replace(str(root.resolve()).encode(), b"<ROOT>")
