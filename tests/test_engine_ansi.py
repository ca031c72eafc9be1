"""`blank_ansi`: terminal escape sequences become as many spaces, so offsets stay and a token
right after a colour code starts at a word boundary."""

import pytest

from archiver.redact.ansi import blank_ansi


@pytest.mark.parametrize(("raw", "blanked"), [
    (b"\x1b[01;31m\x1b[Kghp_x\x1b[m", b"           ghp_x   "),  # grep --color
    # OSC 8 hyperlink: the opener and BEL go, the URL stays (it is scanned)
    (b"a\x1b]8;;http://x\x07link\x1b]8;;\x1b\\\\z", b"a    ;http://x link    ;   z"),
    (b"\x1bMup\x1b_", b"  up  "),  # two-byte sequences
    (b"\\u001b[31mred\\u001B[0m", b"          red         "),  # spelled as JSON text
    (b"\\x1b[1mbold ^[[0m \\033[2K \\e[3m", b"       bold" + b" " * 20),
    (b"caf\xc3\xa9 \x1b[1m\xff", b"caf\xc3\xa9     \xff"),  # non-ASCII and invalid UTF-8 kept
])
def test_escape_sequences_become_spaces_of_the_same_length(raw: bytes, blanked: bytes) -> None:
    out = blank_ansi(raw)
    assert out == blanked
    assert len(out) == len(raw)


def test_text_forms_are_left_alone_when_not_asked_for_and_no_escape_byte() -> None:
    raw = b"\\u001b[31mred"
    assert blank_ansi(raw, text_forms=False) is raw
    assert blank_ansi(b"plain [31m text") == b"plain [31m text"
