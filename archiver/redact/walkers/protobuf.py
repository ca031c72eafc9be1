"""Protobuf wire format: find the strings inside, redact them, rewrite the lengths.

Fields are varint (0), 64-bit (1), length-delimited (2) or 32-bit (5); groups
(3, 4) and wire types 6, 7 make a buffer "not a message". A length-delimited
value (and a whole BLOB, `kind`) is
  * a nested message when it parses as one, except that bytes which also read as plain text
    (UTF-8, no control but tab/CR/LF) must look like a printable message: `_printable_message`,
  * else text when it is mostly printable (`is_text`: UTF-8 or single-byte text, terminal
    colour codes included),
  * else left alone (bytes, packed numbers, hashes).
A caller that knows what a blob is may pass a `Schema`: the fields it calls messages are walked
as messages whenever they parse, printable or not (a small message of one-line strings reads as
text, and heuristics cannot tell it from text that merely parses); every other field keeps the
rules above. Where no field number says what a value is, a schema may hold only for values of a
`Shape` (the structure the seed guarantees: which fields, wire types, nested shapes, how many of
a oneof, and whether fields a later release added may pass beside them), and name another schema
(or none) for the rest; schemas may be recursive. Cursor's
(`CURSOR_BLOB`) recognises a ToolCall in a step's field 2 (a printable one too: no tool_call_id,
no result yet) and a subagent's ConversationStep inside a tool result (TaskSuccess.
conversation_steps, whose number the seed does not give), to any depth. `BLOB_SCHEMAS` holds
the schemas by carrier.
Unchanged fields keep their original bytes (non-canonical varints included), so
a message without matches comes back identical. Malformed input is never an
error: `redact_message` returns None and the caller keeps the bytes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Literal, Mapping

from archiver.snapshot import BINARY_CONTROLS, single_byte_text

MAX_DEPTH = 32
_CTRL = bytes(b for b in range(32) if b not in (9, 10, 13)) + b"\x7f"

Fields = list[tuple[int, int, int, int, int]]

LeafFn = Callable[[bytes], bytes]

ANY = 0  # in Schema.fields: every field number the level does not name (no field is 0 on the wire)


@dataclass(frozen=True)
class Shape:
    """A message's structure as the seed guarantees it, to recognise a message where no field
    number says what it is. A value has the shape when it parses and every field is allowed by
    `fields[n]` (`fields[ANY]`: the fields not named; no entry: not allowed) = (wire type or None
    for any, Shape or None): the wire type matches and a length-delimited value has that shape;
    `one`: exactly one field occurrence is among these numbers (ANY: a field not named in `fields`);
    `some`: at least one is. `extra`: a field not named that fails `fields[ANY]` passes too, of any
    wire type, without counting towards `one` or `some` (fields a later release added), unless
    the value is plain text (`is_text` strict), whose fields must all be allowed: text that merely
    parses has junk fields beside a lookalike far more often than a real message of plain text
    has an unknown field (a field number over 15 has a tag of a control byte or a non-ASCII one)."""
    fields: Mapping[int, tuple[int | None, Shape | None]]
    one: tuple[int, ...] = ()
    some: tuple[int, ...] = ()
    extra: bool = False

    def matches(self, buf: bytes | memoryview, fields: Fields | None = None) -> bool:
        if fields is None:
            fields = parse(buf)
        if fields is None:
            return False
        view = memoryview(buf)  # nested values without copies (a step can hold whole files)
        one = some = 0
        text: bool | None = None  # whether buf is plain text, once a field needs `extra`
        for start, tag_end, vstart, end, wire in fields:
            no = _field_no(buf, start, tag_end)
            key = no if no in self.fields else ANY
            if not self._allows(key, wire, view[vstart:end]):
                if key != ANY or not self.extra:
                    return False
                if text is None:
                    text = is_text(bytes(view), strict=True)
                if text:
                    return False
                continue
            one += key in self.one
            some += key in self.some
        return (not self.one or one == 1) and (not self.some or some > 0)

    def _allows(self, key: int, wire: int, value: memoryview) -> bool:
        rule = self.fields.get(key)
        if rule is None or (rule[0] is not None and wire != rule[0]):
            return False
        return rule[1] is None or (wire == 2 and rule[1].matches(value))


@dataclass(frozen=True, eq=False)  # compared by identity: a schema may contain itself
class Schema:
    """What is known of a length-delimited value. `message`: it is a message, walked as one when it
    parses even if all its bytes are printable. `fields[n]`: field n of it (`fields[ANY]`: every
    field not named); a field without an entry, or with None, keeps the heuristics. `shape`: the
    schema holds only for a value of that shape; any other value gets `otherwise` instead."""
    message: bool = False
    fields: Mapping[int, Schema | None] = field(default_factory=dict)
    shape: Shape | None = None
    otherwise: Schema | None = None

    def child(self, field_no: int) -> Schema | None:
        f = self.fields
        return f[field_no] if field_no in f else f.get(ANY)

    def of(self, value: bytes, fields: Fields | None) -> Schema | None:
        """The schema that holds for `value` (parsed as `fields`, None if it does not parse)."""
        if self.shape is None or (fields is not None and self.shape.matches(value, fields)):
            return self
        return self.otherwise


# Cursor's store.db `blobs.data` (seed cursor-agent.json). A blob's type follows from the field
# that references it, which a cell does not know, so this is what holds for a ConversationStep:
# {1 assistant_message | 2 tool_call | 3 thinking_message}, a oneof. Field 2 is text in other
# blobs (TodoItem.content, ShellOutput.stderr, UserMessage.message_id), so it is a ToolCall only
# when it has a ToolCall's shape: one oneof case <Name>ToolCall {1 args <Name>Args, 2 result, a
# oneof of messages (success, error, rejected...)} beside the fields the seed names (54 hook
# contexts, 57 tool_call_id, 59/60 timestamps). Those four have two-byte tags, never printable:
# a ToolCall without them and without a result (0x12 tag) can be all printable, which the shape
# tells from text (a printable tag, a length byte, "\n", a length byte, a message). Other field-2
# values that parse but lack the shape keep the hints below a ToolCall, as before shapes.
# Cursor adds fields over releases (seed `versioning`: compatible by field number), so a step, a
# ToolCall and a result may hold fields the seed does not name, of any wire type (`extra`): they
# pass beside the one case without counting as one, except in plain text (see `Shape`), where the
# rule stays strict. Such a field whose value also has a tool case's shape reads as a second case.
# A result case (success...) may hold ConversationSteps of a subagent (TaskSuccess.conversation_steps,
# field number not in the seed): a field of it of the shape {2: <ToolCall shape>} (and fields not
# named) is walked as a step, down to any depth of subagents; its other fields keep the
# heuristics. An EditSuccess of one-line files (before/after_full_file_content) is all printable:
# only these hints keep it a message.
_ANY_MESSAGE = Shape(fields={ANY: (None, None)})  # parses (or is empty)
_RESULT_SHAPE = Shape(fields={ANY: (2, _ANY_MESSAGE)}, one=(ANY,), extra=True)
_TOOL_CASE_SHAPE = Shape(fields={1: (2, _ANY_MESSAGE), 2: (2, _RESULT_SHAPE), ANY: (None, None)}, some=(1, 2))
TOOL_CALL_SHAPE = Shape(fields={54: (2, None), 57: (2, None), 59: (0, None), 60: (0, None),
                                ANY: (2, _TOOL_CASE_SHAPE)}, one=(ANY,), extra=True)
STEP_SHAPE = Shape(fields={2: (2, TOOL_CALL_SHAPE)}, one=(2,), extra=True)

_MESSAGE = Schema(message=True)
_STEP_FIELDS: dict[int, Schema | None] = {}  # filled below: a step holds a ToolCall, which may hold steps
RESULT_CASE = Schema(message=True, fields={ANY: Schema(message=True, fields=_STEP_FIELDS, shape=STEP_SHAPE)})
_TOOL_CASE = Schema(message=True, fields={1: _MESSAGE, 2: Schema(message=True, fields={ANY: RESULT_CASE})})
_TOOL_CALL_FIELDS: dict[int, Schema | None] = {ANY: _TOOL_CASE, 54: _MESSAGE, 57: None}
_TOOL_CALL = Schema(message=True, fields=_TOOL_CALL_FIELDS, shape=TOOL_CALL_SHAPE,
                    otherwise=Schema(fields=_TOOL_CALL_FIELDS))
_STEP_FIELDS[2] = _TOOL_CALL
CURSOR_BLOB = Schema(fields={2: _TOOL_CALL})

BLOB_SCHEMAS: dict[str, Schema] = {"sqlite:blobs.data": CURSOR_BLOB}


def _varint(buf: bytes | memoryview, i: int, n: int) -> tuple[int, int] | None:
    shift = 0
    value = 0
    while i < n:
        b = buf[i]
        i += 1
        value |= (b & 0x7F) << shift
        if not b & 0x80:
            return value, i
        shift += 7
        if shift > 63:
            return None
    return None


def _encode_varint(value: int) -> bytes:
    out = bytearray()
    while True:
        b = value & 0x7F
        value >>= 7
        if value:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def parse(buf: bytes | memoryview) -> Fields | None:
    """Fields as (start, end of tag, start of value, end, wire type), or None if not a message."""
    fields: Fields = []
    i, n = 0, len(buf)
    while i < n:
        start = i
        tag = _varint(buf, i, n)
        if tag is None:
            return None
        key, i = tag
        field_no, wire = key >> 3, key & 7
        if field_no == 0 or field_no > 0x1FFFFFFF:
            return None
        vstart = i
        if wire == 0:
            v = _varint(buf, i, n)
            if v is None:
                return None
            end = v[1]
        elif wire == 1:
            end = i + 8
        elif wire == 5:
            end = i + 4
        elif wire == 2:
            v = _varint(buf, i, n)
            if v is None:
                return None
            length, vstart = v
            end = vstart + length
        else:
            return None  # groups and invalid wire types
        if end > n:
            return None
        fields.append((start, i, vstart, end, wire))
        i = end
    return fields


def is_text(data: bytes, strict: bool = True) -> bool:
    """strict: UTF-8 without a control but tab/CR/LF. Else mostly printable: UTF-8 with at most 1%
    binary control bytes (ESC, BEL, BS... of terminal output are fine), or single-byte text."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return not strict and single_byte_text(data)
    if strict:
        return len(data.translate(None, _CTRL)) == len(data)
    return (len(data) - len(data.translate(None, BINARY_CONTROLS))) * 100 <= len(data)


def _printable_message(buf: bytes, fields: Fields) -> bool:
    """Whether bytes that read as plain text are rather a message: strings only, in field order,
    from field 1 (tag "\\n"), one-byte tags, lengths that are not whitespace. Text has this shape
    only by chance (a newline, then a character whose code is the length of the rest); a
    printable message of 33-126 byte strings has it always."""
    if buf[0] != 0x0A:
        return False
    prev = 0
    for start, tag_end, _vstart, _end, wire in fields:
        if wire != 2 or tag_end - start != 1 or buf[tag_end] <= 0x20 or buf[start] >> 3 < prev:
            return False
        prev = buf[start] >> 3
    return True


def kind(value: bytes, schema: Schema | None = None) -> tuple[Literal["message", "text", "opaque"], Fields | None]:
    """What a BLOB or a length-delimited payload holds, with its fields when it is a message
    (`schema.message`: whenever it parses, if the schema holds for it)."""
    fields = parse(value) if value else None
    what = _kind(value, fields, None if schema is None else schema.of(value, fields))
    return what, fields if what == "message" else None


def _kind(value: bytes, fields: Fields | None, schema: Schema | None) -> Literal["message", "text", "opaque"]:
    if fields and ((schema is not None and schema.message) or not is_text(value, strict=True)
                   or _printable_message(value, fields)):
        return "message"
    return "text" if value and is_text(value, strict=False) else "opaque"


def redact_message(buf: bytes, leaf: LeafFn, depth: int = 0, fields: Fields | None = None,
                   schema: Schema | None = None) -> bytes | None:
    """The message with its strings redacted (the same object if unchanged); None if not a message.
    `schema` describes `buf` (if it holds for it, see `Schema.of`); its fields follow `schema.child`."""
    if fields is None:
        fields = parse(buf)
    if not fields:
        return None
    return _walk(buf, leaf, depth, fields, None if schema is None else schema.of(buf, fields))


def _walk(buf: bytes, leaf: LeafFn, depth: int, fields: Fields, schema: Schema | None) -> bytes | None:
    if depth > MAX_DEPTH:
        return None
    out: list[bytes] = []
    changed = False
    for start, tag_end, vstart, end, wire in fields:
        if wire == 2:
            value = buf[vstart:end]
            sub = None if schema is None else schema.child(_field_no(buf, start, tag_end))
            new = redact_value(value, leaf, depth + 1, sub)
            if new is not value and new != value:
                changed = True
                out.append(buf[start:tag_end] + _encode_varint(len(new)) + new)
                continue
        out.append(buf[start:end])
    return b"".join(out) if changed else buf


def _field_no(buf: bytes | memoryview, start: int, tag_end: int) -> int:
    tag = _varint(buf, start, tag_end)
    return tag[0] >> 3 if tag is not None else -1


def redact_value(value: bytes, leaf: LeafFn, depth: int, schema: Schema | None = None) -> bytes:
    """One length-delimited payload: nested message, text, or opaque bytes."""
    fields = parse(value) if value else None
    if schema is not None:
        schema = schema.of(value, fields)
    what = _kind(value, fields, schema)
    if what == "message" and fields:
        nested = _walk(value, leaf, depth, fields, schema)
        if nested is not None:
            return nested
        what = "text" if is_text(value, strict=False) else "opaque"  # nested too deep
    return leaf(value) if what == "text" else value


def looks_like_message(buf: bytes) -> bool:
    """A first byte that is a plausible tag (field 1-15, wire type 0, 1, 2 or 5)."""
    if not buf:
        return False
    b = buf[0]
    return b < 0x80 and (b >> 3) >= 1 and (b & 7) in (0, 1, 2, 5)
