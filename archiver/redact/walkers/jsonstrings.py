"""What the JSON walker (jsondoc.py) collects from one parsed document: its strings to scan and
where each lives, with the lists, places and memo answers that decide how they are scanned."""

from __future__ import annotations

from typing import Any


class JsonStrings:
    """The strings of one parsed document, with where each lives."""

    __slots__ = ("strs", "modes", "locs", "nested", "prose", "nkeys", "numbers", "keyed", "encoded", "argv",
                 "argv_members", "places", "geo", "geo_span", "answered")

    def __init__(self) -> None:
        # strings answered from the walker's memo, not scanned: (index into strs, the echoable values
        # their matches found, each with its match), for echoes.py
        self.answered: list[tuple[int, tuple[tuple[bytes, Any], ...]]] = []
        # objects the walk found a location in (place_object): (object, lat key, lng key), keys None for
        # a GeoJSON geometry
        self.places: list[tuple[dict[str, Any], str | None, str | None]] = []
        # their coordinate pairs resolved against the raw bytes (add_places): (the text scanned, where its
        # lat value starts, index into strs of the lat value, of the lng value)
        self.geo: list[tuple[bytes, int, int, int]] = []
        self.geo_span = (0, 0)  # the indexes into strs of those values (never scanned alone)
        # command lines given as argv lists: (the list as one shell line, [(index into strs, byte offset in
        # it)], -1); a list of text lines joined by newlines, whose matches may span items: (text, [...],
        # the diff marker's length taken off each item: 0 or 1)
        self.argv: list[tuple[bytes, list[tuple[int, int]], int]] = []
        self.argv_members: set[int] = set()
        self.encoded: list[tuple[Any, Any, str, str]] = []  # (container, key, value, encoding)
        self.nkeys = 0  # keys of all objects walked
        self.keyed: dict[int, str] = {}  # indexes into strs scanned with their key (walkers.SECRET_NAME)
        self.numbers: set[int] = set()  # indexes into strs of integers (their decimal text)
        self.strs: list[str] = []
        self.modes: list[int] = []
        self.locs: list[tuple[Any, Any, bool]] = []  # (container, key or index, is_key)
        self.nested: list[tuple[Any, Any, str]] = []
        self.prose: set[int] = set()
