"""A user name with a dot or underscore (`john.doe`, `j_smith`) is written `john-doe` in the
folder names harnesses derive from paths (Cursor's projects/<slug>, Claude Code's project
keys), which tool output and transcripts then quote. That form is the user's name too, and
gets the same pseudonym as the name itself."""

from __future__ import annotations

import pytest

from archiver.redact.base import RedactionReport
from tests.fx_redact import builtin_redactor

def _red(user: str):
    return builtin_redactor(b"k" * 32, [user])


@pytest.mark.parametrize("user,slug", [("john.doe", "john-doe"), ("j_smith", "j-smith"), ("ana.maria_k", "ana-maria-k")])
def test_slug_form_of_a_user_name_is_redacted_as_that_user(user: str, slug: str) -> None:
    red = _red(user)
    home = red.redact_text(f"/home/{user}/src/app", RedactionReport())
    pseudonym = home.split("/")[2]
    assert user not in home and pseudonym.startswith("user-")
    for text in (f"cat ~/.cursor/projects/home-{slug}-src-app/terminals/1.txt",
                 f"~/.claude/projects/-Users-{slug}-src-app/0b0e5f4e.jsonl",
                 f"ran the {slug}-dev build"):
        out = red.redact_text(text, RedactionReport())
        assert slug not in out, out
        assert pseudonym in out, out


def test_short_or_plain_names_get_no_slug_form() -> None:
    # `a-b` (of `a_b`) would take hyphenated words: not added; a name without separators has no other form
    assert _red("a_b").redact_text("an a-b test", RedactionReport()) == "an a-b test"
    assert _red("alice").redact_text("the alice-style merge", RedactionReport()) != "the alice-style merge"
    assert _red("alice").redact_text("the foo-bar merge", RedactionReport()) == "the foo-bar merge"
