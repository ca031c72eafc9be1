"""Store keys: what check_key refuses, byte by byte (the check is a compiled class since s20)."""

from __future__ import annotations

import pytest

from archiver.store.base import StoreError, check_key, check_prefix


@pytest.mark.parametrize("code", [*range(0x20), 0x7F])
def test_every_control_character_is_refused(code: int) -> None:
    with pytest.raises(StoreError, match="control character"):
        check_key(f"objects/a{chr(code)}b")


@pytest.mark.parametrize("key", ["objects/ab/cd", "manifests/h/2026-12-02T00:00:00Z.json.age", "a/é/\u00a0x", "a~b/c d"])
def test_printable_keys_pass_unchanged(key: str) -> None:
    assert check_key(key) == key


@pytest.mark.parametrize("key,reason", [("", "empty"), ("/a", "absolute"), ("a\\b", "backslash"),
                                        ("a//b", "segment ''"), ("a/../b", "segment '..'"), ("./a", "segment '.'")])
def test_malformed_keys_name_the_reason(key: str, reason: str) -> None:
    with pytest.raises(StoreError, match=f"invalid key: {reason}"):
        check_key(key)


def test_a_prefix_may_be_empty_or_end_in_a_slash_but_not_hold_control_characters() -> None:
    assert check_prefix("") == "" and check_prefix("team/") == "team/"
    with pytest.raises(StoreError, match="control character"):
        check_prefix("team\n/")
