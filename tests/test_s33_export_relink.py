"""Session 33: `archiver export` reads the archived bytes, never a restore's relinks.

Export fetches a session's transcript (then only the outputs it names) into a temp folder through
the restorer. With relinks on, that part-restore warned that each persisted output, Agent outputFile
or generated image "names no file of this restore" (`make demo` printed one) and, where a file of
the part-restore matched, renamed the reference to the temp folder. Export now restores without
relinks: no such warning, and the persisted output is still found and shown under its result.
"""

from __future__ import annotations

from tests.fx_home import Box, box  # noqa: F401
from tests.test_s32_relinks import C_SID, _build_claude


def test_export_warns_of_no_relink_and_shows_the_persisted_output(box: Box) -> None:
    box.only("claude-code")
    _build_claude(box)
    assert box.sync()["sessions"]["failed"] == 0
    out = box.cli("export", f"claude-code:{C_SID}", "--format", "md", "--with-family",
                  "--identity", str(box.base / "keys" / "identity.txt"))
    assert [w for w in out["warnings"] if "no file of this restore" in w or "left as archived" in w] == []
    assert out["integrity_errors"] == []
    doc = out["document"]
    assert doc.count("full output") >= 4000  # the kept tool-results file, attached from the archive
    assert "archiver-export-" not in doc  # no temp folder of the export named
