"""presidio runs with the network unavailable and finds planted entities in short prose."""

from __future__ import annotations

import socket
import sys
import types

import orjson
import pytest

from archiver.redact.base import RedactionReport
from archiver.redact.presidio_engine import PresidioError, PresidioOptions, PresidioRedactor
from archiver.redact.pseudonym import Pseudonymizer
from archiver.redact.redactor import build_redactor
from archiver.redact.rules import RuntimeTerms

KEY = b"team-key-for-tests-0123456789abcdef"


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> list[tuple]:
    attempts: list[tuple] = []

    def refuse(*args: object, **kwargs: object) -> None:
        attempts.append(args)
        raise OSError("network disabled by test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    return attempts


@pytest.fixture
def names_module(monkeypatch: pytest.MonkeyPatch) -> str:
    from presidio_analyzer import PatternRecognizer

    mod = types.ModuleType("team_recognizers")
    mod.Names = PatternRecognizer(supported_entity="PERSON", deny_list=["Grace Hopper"], name="team-names")  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "team_recognizers", mod)
    return "team_recognizers:Names"


def test_offline_analyzer_finds_planted_entities(no_network: list[tuple], names_module: str) -> None:
    pres = PresidioRedactor(PresidioOptions(enabled=True, recognizers=[names_module]), Pseudonymizer(KEY))
    rep = RedactionReport()
    text = ("Ask Grace Hopper (grace.hopper@navy-research.org) about it; "
            "the bug is in setup.py and main.rs, not in <EMAIL:1a2b3c4d>.")
    out = pres.redact(text, rep, "prose")
    p = Pseudonymizer(KEY)
    assert p.token("PERSON", "Grace Hopper") in out and p.token("EMAIL_ADDRESS", "grace.hopper@navy-research.org") in out
    assert "Grace" not in out and "navy-research" not in out
    assert "setup.py and main.rs" in out and "<EMAIL:1a2b3c4d>" in out  # no URL recognizer, tokens kept
    assert rep.by_rule() == {"presidio:EMAIL_ADDRESS": 1, "presidio:PERSON": 1}
    assert no_network == []  # nothing even tried to connect
    assert pres.redact("x" * 5000 + " grace.hopper@navy-research.org", RedactionReport()).endswith("navy-research.org")


def test_presidio_in_the_redactor_only_touches_prose(no_network: list[tuple], names_module: str) -> None:
    red = build_redactor(["builtin:paths"], KEY, RuntimeTerms(usernames=["alice"]),
                         PresidioOptions(enabled=True, entities=["PERSON"], recognizers=[names_module], max_chars=500))
    line = orjson.dumps({"type": "user", "cwd": "/home/alice/app", "gitBranch": "grace-hopper-fix",
                         "message": {"role": "user", "content": "Grace Hopper says the test in /home/alice/app fails"}})
    rep = RedactionReport()
    out = orjson.loads(red.redact_jsonl_line(line, rep))
    assert out["message"]["content"].startswith("<PERSON:") and "alice" not in out["message"]["content"]
    assert out["gitBranch"] == "grace-hopper-fix" and "alice" not in out["cwd"]
    assert rep.by_rule()["presidio:PERSON"] == 1
    assert red.redact_text("Grace Hopper", RedactionReport()).startswith("<PERSON:")
    assert no_network == []


def test_an_empty_registry_is_refused() -> None:
    with pytest.raises(PresidioError, match="no recognizer"):
        PresidioRedactor(PresidioOptions(enabled=True, builtin=[], recognizers=[]), Pseudonymizer(KEY))
    with pytest.raises(PresidioError, match="cannot import"):
        PresidioRedactor(PresidioOptions(enabled=True, recognizers=["no_such_module:X"]), Pseudonymizer(KEY))
