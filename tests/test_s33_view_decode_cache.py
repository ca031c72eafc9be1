"""Session 33: an engine view keeps its own memory of which base64 runs hide a secret.

A decode rule (`base64-decoded-secret`) remembers, per run, whether its decoded text holds a
finding. Views (Engine.only: fail_closed's verifier, the raw check) shared the engine's Decoder
objects and so that memory: a run the full engine had found a secret in (a database URL with a
password, base64 encoded) counted for a view whose rules find none in it. Found by
test_s30_engine_view once the s33 rules changed which rules its "every third rule" subset holds.
"""

from __future__ import annotations

import base64

from tests.fx_redact import builtin_redactor

KEY = b"s33-view-decode-cache-team-key-0123"
RUN = base64.b64encode(b"postgres://app:FAKE-EXAMPLE-pw@db.internal:5432/app").decode()


def test_a_view_does_not_reuse_the_engines_decode_findings() -> None:
    red = builtin_redactor(KEY)
    engine = red.engine
    text = f"DATABASE_URL_B64={RUN}\n".encode()
    # the engine's decode pass finds the password in the decoded URL (and remembers the run)
    assert [rule for _s, _e, rule in engine.secret_runs(text)] == ["base64-decoded-secret"]
    # a view holding the decode rule and a secrets rule that finds nothing in the URL: its
    # decoded texts are scanned with its own rules, so the run hides nothing it can find
    view = engine.only({"base64-decoded-secret", "aws-access-key-id"})
    assert view.secret_runs(text) == []
    assert engine.only({"base64-decoded-secret", "aws-access-key-id"}).secret_runs(text) == []
    # and the engine still finds it
    assert [rule for _s, _e, rule in engine.secret_runs(text)] == ["base64-decoded-secret"]
