"""Encoded payloads inside JSON strings: `data:` URIs, base64 and hex, and whether a media
type is text. The JSON walkers decide where such a payload stands; this module only reads
and writes the encodings, so a redacted payload is written back exactly as it came (hex
case, URL-safe alphabet, `data:` header)."""

from __future__ import annotations

import base64
import binascii
import re

# base64 (standard or URL-safe), with the line breaks of MIME base64
MEDIA_BODY = re.compile(r"[A-Za-z0-9+/=_\-\r\n]*")
DATA_URI_HEAD = re.compile(r"data:([\w.+-]+/[\w.+-]+)(?:;[\w.+-]+=[\w.+-]+)*;base64,")
_TEXT_MIME = re.compile(r"text/|application/(?:[\w.+-]*\+)?(?:json|xml|yaml|x-yaml|toml|javascript|x-sh|"
                        r"x-shellscript|x-python|sql|graphql|x-www-form-urlencoded|x-ndjson|jsonl)$")
_BINARY_MIME = re.compile(r"(?:image|audio|video|font)/", re.I)


def text_mime(mime: str) -> bool:
    """Is this media type text (an attachment worth decoding and redacting)?"""
    return _TEXT_MIME.match(mime.lower()) is not None


def binary_mime(mime: str) -> bool:
    """Image, audio, video, font: never decoded."""
    return _BINARY_MIME.match(mime) is not None


def data_uri_mime(v: str) -> str | None:
    """The media type of v when v is a `data:` URI whose payload is base64 and nothing else."""
    if not v.startswith("data:"):
        return None
    m = DATA_URI_HEAD.match(v, 0, 256)
    return m.group(1) if m is not None and MEDIA_BODY.fullmatch(v, m.end()) is not None else None


def decode(v: str, enc: str) -> bytes | None:
    """The payload of v (`enc`: "hex", "base64" or "data-uri"); None when it does not decode."""
    try:
        if enc == "hex":
            return bytes.fromhex(v)
        body = v[DATA_URI_HEAD.match(v).end():] if enc == "data-uri" else v  # type: ignore[union-attr]
        body = body.replace("\r", "").replace("\n", "")
        if "-" in body or "_" in body:
            body = body.replace("-", "+").replace("_", "/")
        return base64.b64decode(body, validate=True)
    except (ValueError, binascii.Error):
        return None


def encode(old: str, enc: str, data: bytes) -> str:
    """data encoded as `old` was (hex case, URL-safe alphabet, data: header)."""
    if enc == "hex":
        return data.hex().upper() if old != old.lower() else data.hex()
    head = ""
    if enc == "data-uri":
        head = DATA_URI_HEAD.match(old).group(0)  # type: ignore[union-attr]
        old = old[len(head):]
    urlsafe = "-" in old or "_" in old
    return head + (base64.urlsafe_b64encode(data) if urlsafe else base64.b64encode(data)).decode("ascii")
