"""The renderers' shared reading of typed content parts (render/model.content_blocks): each
harness names its parts differently, the loop is one. Shapes a transcript may hold by mistake
(a number where text belongs, a string where an object belongs) give text, never a crash."""

from __future__ import annotations

from archiver.render import claude, deepseek, opencode, pi
from archiver.render.model import Block, content_blocks, thinking_part, tool_call_part


def kinds(blocks: list[Block]) -> list[tuple[str, str]]:
    return [(b.kind, b.text or b.input or "") for b in blocks]


def test_a_string_is_one_text_block_and_unknown_parts_are_skipped() -> None:
    assert kinds(content_blocks("hello", {})) == [("text", "hello")]
    assert content_blocks("   ", {}) == []
    got = content_blocks([{"type": "text", "text": "a"}, "loose", {"type": "mystery"}, {"type": ["x"]}, 7,
                          {"type": "text", "text": "b"}], {})
    assert kinds(got) == [("text", "a"), ("text", "b")]
    assert content_blocks({"type": "text"}, {}) == []


def test_readers_build_thinking_and_tool_calls_from_their_own_field_names() -> None:
    readers = {"reasoning": thinking_part("text"), "call": tool_call_part("args")}
    got = content_blocks([{"type": "reasoning", "text": "because"}, {"type": "reasoning", "text": "  "},
                          {"type": "reasoning", "text": 42},
                          {"type": "call", "name": "bash", "id": "c1", "args": '{"cmd": "ls"}'}], readers)
    assert [(b.kind, b.text) for b in got[:2]] == [("thinking", "because"), ("thinking", "42")]
    assert (got[2].kind, got[2].name, got[2].call_id, got[2].input) == ("tool_call", "bash", "c1", '{\n  "cmd": "ls"\n}')


def test_each_harness_reads_its_own_part_names() -> None:
    c = claude._blocks([{"type": "thinking", "thinking": "t"}, {"type": "redacted_thinking"},
                        {"type": "tool_use", "id": "u1", "name": "Read", "input": {"p": 1}},
                        {"type": "tool_result", "tool_use_id": "u1", "content": [
                            {"type": "text", "text": "out"},
                            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBO"}}]}],
                       {"toolUseResult": {"agentId": "a1"}})
    assert [b.kind for b in c] == ["thinking", "thinking", "tool_call", "tool_result", "image"]
    assert (c[1].text, c[3].text, c[3].link, c[4].data) == ("[thinking redacted by the provider]", "out", "claude-code:a1", "iVBO")

    d = deepseek._parts([{"type": "reasoning", "text": "r"}, {"type": "tool-call", "id": "k", "name": "x", "arguments": "{}"},
                         {"type": "tool-result", "toolCallId": "k", "content": "done", "isError": True}])
    assert [(b.kind, b.call_id, b.is_error) for b in d] == [("thinking", None, False), ("tool_call", "k", False), ("tool_result", "k", True)]

    p = pi._parts([{"type": "thinking", "thinking": None}, {"type": "toolCall", "id": "q", "arguments": {"a": 1}},
                   {"type": "image", "data": "R0lG", "mimeType": "image/gif"}, {"type": "image", "data": 5}])
    assert [(b.kind, b.name, b.media_type) for b in p] == [("tool_call", "tool", None), ("image", None, "image/gif")]

    o = opencode._content([{"type": "tool", "id": "t", "name": "bash", "state": "broken"},
                           {"type": "tool", "id": "u", "state": {"status": "completed", "output": "ok",
                                                                  "metadata": {"sessionID": "ses_1"}}}])
    assert [(b.kind, b.result.text if b.result else None, b.link) for b in o] == [
        ("tool_call", "[no result]", None), ("tool_call", "ok", "opencode:ses_1")]
