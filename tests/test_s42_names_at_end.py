"""A person's name that ends its text, with no newline after it (red team s42, left open by round 6): a
tool result or a cell that ends on `Signed-off-by: Name`, `@author Name`, `MAINTAINER Name` or
`last_name: Name` kept the name, since the keyed name rules wanted a character after it (a line end, a
quote, a comma). They now take the end of the text too (`$`: the engine re-checks an anchored rule's
matches near a string's end on that string alone). In every carrier of tests/fx_redteam.py but the
diff, whose lines always end, compared byte for byte; the same names before more text, and texts that
end on no name, as before."""

from __future__ import annotations

import pytest

from archiver.redact.rules import RuntimeTerms
from tests.fx_redteam import CARRIERS, case, redteam_tests

KEY = b"s42-names-at-end-test-key-0123456789abcd"
ENDS = tuple(c for c in CARRIERS if c != "diff")
PERSON = "PERSON"

CASES = [
    case("signed-off-by", "fix: round the refund to cents\n\nSigned-off-by: @0@", (PERSON, "Ysolde Pemberton"),
         carriers=ENDS),
    case("co-authored-by", "Merge the billing fix\n\nCo-authored-by: @0@", (PERSON, "Thaddeus Ashdown"),
         carriers=ENDS),
    case("javadoc-author", "/**\n * Rounds refunds.\n *\n * @author @0@", (PERSON, "Xiomara Brackenridge"),
         carriers=ENDS),
    case("dockerfile-maintainer", "FROM debian:bookworm\nMAINTAINER @0@", (PERSON, "Ottilie Vanderslice"),
         carriers=ENDS),
    case("last-name", "first_name: @0@\nlast_name: @1@", (PERSON, "Margaret"), (PERSON, "Thornton"), carriers=ENDS),
    case("signed-off-by-then-more", "Signed-off-by: @0@\n\nmore text", (PERSON, "Ysolde Pemberton")),
]

NEGATIVES = {
    "ends-on-a-role": "fix: the build\n\nReviewed-by: Security Team",
    "ends-on-a-bot": "chore: bump deps\n\nCo-authored-by: dependabot[bot]",
    "ends-on-a-placeholder": "# Dockerfile\nMAINTAINER Your Name",
    "ends-on-a-type": "first_name: str\nlast_name: Optional",
}

_, test_secret_is_replaced_and_the_rest_kept, test_text_without_secrets_is_kept_byte_for_byte = redteam_tests(
    KEY, CASES, NEGATIVES)


@pytest.fixture(scope="module")
def red():  # noqa: ANN201
    """The four default packs: the keyed name rules are the names pack's."""
    from archiver.redact.redactor import build_redactor

    return build_redactor(["builtin:secrets", "builtin:pii", "builtin:paths", "builtin:names"], KEY, RuntimeTerms())
