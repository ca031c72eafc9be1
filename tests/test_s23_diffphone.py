"""phone-e164 and a diff's line markers (s23-diffphone).

An added line of a unified diff, a Codex apply_patch or a Claude Edit's structuredPatch starts with a
`+` marker. A compact phone there is `++14155550123`: the phone goes, the marker stays. A bare number
there (`+1730625262517`, an epoch-ms timestamp) is no phone: a `+1` number is a NANP number, exactly
ten digits after the 1, and no epoch timestamp (seconds or milliseconds) has that length. Outside
diffs, a phone at the start of a line (a phone list, a CSV, a vCard) still goes, whatever its country.
"""

from __future__ import annotations

import json
import re

import pytest

from archiver.redact.base import RedactionReport
from tests.fx_redact import builtin_redactor

KEY = b"s23-diffphone-test-key-0123456789abcd"
PHONE_TOKEN = re.compile(r"<PHONE:[0-9a-f]{8}>")
NANP = "+14155550123"        # 555-01xx: reserved for fiction
UK = "+447700900123"         # Ofcom's drama range
EPOCH_MS = "1730625262517"
EPOCH_S = "1730625262"


@pytest.fixture(scope="module")
def red():  # noqa: ANN201
    return builtin_redactor(KEY, ["vexmorrow"])


def _text(red: object, text: str) -> tuple[str, dict[str, int]]:
    rep = RedactionReport()
    out = red.redact_text(text, rep)  # type: ignore[attr-defined]
    return out, rep.by_rule()


def _line(red: object, rec: dict) -> tuple[dict, dict[str, int]]:
    rep = RedactionReport()
    out = red.redact_jsonl_line(json.dumps(rec).encode(), rep)  # type: ignore[attr-defined]
    return json.loads(out), rep.by_rule()


def _token(red: object, phone: str) -> str:
    out, _ = _text(red, f"call {phone} now")
    m = PHONE_TOKEN.search(out)
    assert m and out == f"call {m.group(0)} now", out
    return m.group(0)


# ------------------------------------------------------------------ unified diff text

@pytest.mark.parametrize("nl", ["\n", "\r\n"], ids=["lf", "crlf"])
def test_unified_diff_phone_goes_marker_and_epoch_stay(red: object, nl: str) -> None:
    diff = nl.join(["diff --git a/data/contacts.txt b/data/contacts.txt", "--- a/data/contacts.txt",
                    "+++ b/data/contacts.txt", "@@ -1,2 +1,3 @@", " # contacts", f"-{UK}", f"+{NANP}",
                    f"+{EPOCH_MS}", ""])
    out, by_rule = _text(red, diff)
    want = diff.replace(f"-{UK}", f"-{_token(red, UK)}").replace(f"+{NANP}", f"+{_token(red, NANP)}")
    assert out == want, out
    assert f"{nl}+{EPOCH_MS}{nl}" in out
    assert by_rule == {"phone-e164": 2}


def test_unified_diff_of_timestamps_is_unchanged(red: object) -> None:
    diff = (f"--- a/ts.txt\n+++ b/ts.txt\n@@ -1,2 +1,2 @@\n-1730625200000\n-1730625200\n+{EPOCH_MS}\n+{EPOCH_S}\n"
            "+1999999999999\n")
    out, by_rule = _text(red, diff)
    assert out == diff and by_rule == {}


def test_diff_of_a_diff_added_phone_line_goes(red: object) -> None:
    """A hunk that adds a `+phone` line to a patch file: `+++phone`'s last `+` is the phone's."""
    out, _ = _text(red, f"@@ -0,0 +1 @@\n+{NANP}\n++{UK}\n")
    assert out == f"@@ -0,0 +1 @@\n+{_token(red, NANP)}\n++{_token(red, UK)}\n", out


# ------------------------------------------------------------------ Codex apply_patch

def _apply_patch(body: str) -> str:
    return f"*** Begin Patch\n*** Update File: /srv/app/conf/contacts.env\n@@\n{body}\n*** End Patch"


def test_codex_apply_patch_custom_tool_call(red: object) -> None:
    patch = _apply_patch(f" OWNER=ops\n-PAGER=\n+{NANP}\n+{EPOCH_MS}")
    rec = {"type": "response_item", "payload": {"type": "custom_tool_call", "status": "completed",
                                                 "call_id": "call_Xq2b7ZpLr0aYc9TnWm4Ee1Hd", "name": "apply_patch",
                                                 "input": patch}}
    out, by_rule = _line(red, rec)
    assert out["payload"]["input"] == patch.replace(f"+{NANP}", f"+{_token(red, NANP)}")
    assert by_rule == {"phone-e164": 1}


def test_codex_apply_patch_in_exec_arguments(red: object) -> None:
    """The older shape: apply_patch as argv inside a function_call's JSON-string arguments."""
    patch = _apply_patch(f"+{UK}\n+{EPOCH_MS}\n+{EPOCH_S}")
    args = json.dumps({"command": ["apply_patch", patch], "workdir": "/srv/app"})
    rec = {"type": "response_item", "payload": {"type": "function_call", "name": "shell", "arguments": args,
                                                 "call_id": "call_Xq2b7ZpLr0aYc9TnWm4Ee1Hd"}}
    out, by_rule = _line(red, rec)
    got = json.loads(out["payload"]["arguments"])["command"][1]
    assert got == patch.replace(f"+{UK}", f"+{_token(red, UK)}"), got
    assert by_rule == {"phone-e164": 1}


def test_apply_patch_held_as_json_text_with_escaped_newlines(red: object) -> None:
    """A rollout line pasted into a tool output: the rule sees `\\n++<phone>` and `\\n+<epoch>`."""
    line = json.dumps({"type": "custom_tool_call", "name": "apply_patch", "input": _apply_patch(f"+{NANP}\n+{EPOCH_MS}")})
    assert f"\\n+{NANP}\\n+{EPOCH_MS}\\n" in line
    out, by_rule = _text(red, "grep apply_patch rollout.jsonl:\n" + line)
    assert out == "grep apply_patch rollout.jsonl:\n" + line.replace(f"+{NANP}", f"+{_token(red, NANP)}"), out
    assert by_rule == {"phone-e164": 1}


# ------------------------------------------------------------------ Claude Edit structuredPatch

def test_claude_edit_structured_patch_lines(red: object) -> None:
    """Each diff line is a JSON string of its own: no hunk header beside it, the line's own text decides."""
    lines = [" # on-call", f"-+{EPOCH_MS[:-2]}99", f"+{NANP}", f"+{EPOCH_MS}", f"+ {UK}", " end"]
    rec = {"type": "user", "toolUseResult": {
        "filePath": "/srv/app/oncall.txt", "oldString": "x", "newString": "y",
        "structuredPatch": [{"oldStart": 1, "oldLines": 3, "newStart": 1, "newLines": 5, "lines": lines}]}}
    out, by_rule = _line(red, rec)
    got = out["toolUseResult"]["structuredPatch"][0]["lines"]
    assert got == [" # on-call", f"-+{EPOCH_MS[:-2]}99", f"+{_token(red, NANP)}", f"+{EPOCH_MS}",
                   f"+ {_token(red, UK)}", " end"], got
    assert by_rule == {"phone-e164": 2}


# ------------------------------------------------------------------ phones outside diffs

@pytest.mark.parametrize("text,phones", [
    (f"{NANP}\n{UK}\n+4930901820123\n+523456789012\n", [NANP, UK, "+4930901820123", "+523456789012"]),
    (f"{NANP}\r\n+12025550143\r\n", [NANP, "+12025550143"]),
    (f"name,phone\nAlice,{NANP}\nBob,{UK}\n", [NANP, UK]),
    (f"phone\n{NANP}\n{UK}\n", [NANP, UK]),
    (f"BEGIN:VCARD\nFN:Test Person\nTEL;TYPE=cell:{UK}\nTEL:{NANP}\nEND:VCARD\n", [UK, NANP]),
    (f'{{"phones":"{NANP}\\n{UK}"}}', [NANP, UK]),
], ids=["list", "list-crlf", "csv", "csv-column-first", "vcard", "json-escaped-list"])
def test_phone_lists_outside_diffs_stay_redacted(red: object, text: str, phones: list[str]) -> None:
    out, by_rule = _text(red, text)
    want = text
    for p in phones:
        want = want.replace(p, _token(red, p))
    assert out == want, out
    assert by_rule == {"phone-e164": len(phones)}


def test_phone_list_in_a_json_file_and_an_edit_new_string(red: object) -> None:
    body = f"# pager rota\n{NANP}\n{UK}\n"
    rec = {"type": "assistant", "message": {"role": "assistant", "content": [
        {"type": "tool_use", "id": "toolu_01A09q90qw90lq917835lq9X", "name": "Edit",
         "input": {"file_path": "/srv/app/rota.txt", "old_string": "# pager rota\n", "new_string": body}}]}}
    out, by_rule = _line(red, rec)
    got = out["message"]["content"][0]["input"]["new_string"]
    assert got == f"# pager rota\n{_token(red, NANP)}\n{_token(red, UK)}\n", got
    assert by_rule == {"phone-e164": 2}


def test_same_phone_same_token_in_a_diff_and_a_list(red: object) -> None:
    a, _ = _text(red, f"@@ -0,0 +1 @@\n+{NANP}\n")
    b, _ = _text(red, f"{NANP}\n")
    ta, tb = PHONE_TOKEN.findall(a), PHONE_TOKEN.findall(b)
    assert len(ta) == 1 and ta == tb


# ------------------------------------------------------------------ what is no phone

@pytest.mark.parametrize("text", [
    f"+{EPOCH_MS}", f"+{EPOCH_S}", f"ts\n+{EPOCH_MS}\n", "+1415555012345", "+10235550123", "+11235550123",
    "llvm-toolchain-14 1:14.0.6~++20220622053131+f28c006a5895-1~exp1~20220622173214.155",
    "Version: 1:18.1.8~++20240731025043+3b5b5c1ec4a3-1~exp1~20240731145144.92",
    "g++14155550123 c++447700900123",
], ids=["epoch-ms", "epoch-s", "epoch-ms-line", "nanp-plus-2", "nanp-area-0", "nanp-area-1",
        "llvm-snapshot", "llvm-apt-policy", "glued-plusplus"])
def test_no_phone(red: object, text: str) -> None:
    out, by_rule = _text(red, text)
    assert out == text and "phone-e164" not in by_rule, out
