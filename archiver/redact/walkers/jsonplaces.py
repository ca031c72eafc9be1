"""Locations in a JSON document, scanned as the text a location rule reads.

An object with a latitude key (lat, latitude) and a longitude key (lng, lon, long,
longitude) whose values are numbers or numeric strings, and each position of a GeoJSON geometry
(`type` Point, LineString, Polygon or Multi*, `coordinates` [lng, lat, ...]), is scanned as the
text `"lat": <lat>, "lng": <lng>`, each number as the document writes it (a parsed float drops
trailing zeros: -74.0060 would read -74.006), and a number of 3 decimals beside one of 4 or more
given back its trailing zero (a serialiser such as JSON.stringify writes -74.0060 as -74.006 in the
first place; a string is taken as written); when a rule matches that pair, BOTH values become
its token (one token for the place, counted once), a number becoming that token as a string (its
JSON type changes from number to string). A string under a location key (`{"coords": "48.858370,
2.294481"}`) is scanned as `"coords": "<value>"`. The check is one key test per object; floats
elsewhere (an embedding, a list of weights) are never looked at.
"""

from __future__ import annotations

import re
from typing import Any

from archiver.redact.engine import MODE_ALL
from archiver.redact.walkers.jsonstrings import JsonStrings

LAT_KEYS = ("lat", "latitude", "Lat", "Latitude", "LAT", "LATITUDE")
LNG_KEYS = ("lng", "lon", "long", "longitude", "Lng", "Lon", "Long", "Longitude", "LNG", "LON", "LONG", "LONGITUDE")
# a string under one of these is scanned as `"coords": "<value>"`, a label the location rules know
PLACE_TEXT_KEYS = frozenset({"coords", "coordinates", "location", "gps", "geo", "latlng", "lat_lng", "latLng",
                             "latlon", "lat_lon", "latLon", "geolocation", "geoLocation", "geo_location"})
GEOMETRY_TYPES = frozenset({"Point", "MultiPoint", "LineString", "MultiLineString", "Polygon", "MultiPolygon"})
GEO_KEYS = frozenset(LAT_KEYS) | PLACE_TEXT_KEYS
NUMERIC = re.compile(r"-?[0-9]{1,3}(?:\.[0-9]{1,17})?")
NUMBER_TEXT = rb"-?[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?"
NUMBER_LITERAL = re.compile(NUMBER_TEXT)
KEYED_NUMBER = re.compile(rb'"(' + "|".join(LAT_KEYS + LNG_KEYS).encode() + rb')"[ \t\r\n]*:[ \t\r\n]*('
                          + NUMBER_TEXT + rb")")
# the value of a `coordinates` key: an array of arrays of numbers, up to the next key or the object's end
COORDINATES_RUN = re.compile(rb'"coordinates"[ \t\r\n]*:[ \t\r\n]*(\[[\[\]0-9.eE+, \t\r\n-]*)')
PAIR_LAT, PAIR_LNG = b'"lat": ', b', "lng": '
PLACE_DECIMALS = 4  # the decimals of a reading written in full (about 11 m): what padded restores


def degree_like(v: Any) -> bool:
    t = type(v)
    return t is float or (t is int and -1000 < v < 1000)  # a longer int is no degree (nor a float)


def coordinate_like(v: Any) -> bool:
    return degree_like(v) or (type(v) is str and NUMERIC.fullmatch(v) is not None)


def place_object(doc: JsonStrings, node: dict[str, Any], ctx: dict[str, str] | None) -> dict[str, str] | None:
    """An object holding a location key: its lat/lng pair or GeoJSON geometry noted (doc.places); the
    context its strings under location keys are scanned with (`"coords": "<value>"`), added to ctx."""
    lat = next((k for k in LAT_KEYS if k in node), None)
    if lat is not None:
        lng = next((k for k in LNG_KEYS if k in node), None)
        if lng is not None and coordinate_like(node[lat]) and coordinate_like(node[lng]):
            doc.places.append((node, lat, lng))
    coords = node.get("coordinates")
    kind = node.get("type")
    if type(coords) is list and type(kind) is str and kind in GEOMETRY_TYPES:
        doc.places.append((node, None, None))
    texts = {k: "coords" for k in PLACE_TEXT_KEYS.intersection(node) if type(node[k]) is str}
    if not texts:
        return ctx
    return texts if ctx is None else {**ctx, **texts}


def geometry_positions(coords: list[Any], out: list[list[Any]], depth: int = 0) -> None:
    """The positions ([lng, lat, ...] lists of numbers) of a GeoJSON `coordinates` value, in order."""
    if coords and all(degree_like(v) for v in coords):
        if 2 <= len(coords) <= 4:
            out.append(coords)
        return
    if depth < 3:
        for c in coords:
            if type(c) is list:
                geometry_positions(c, out, depth + 1)


class Literals:
    """How the numbers of a location are written in the raw document: a parsed float has lost its
    trailing zeros (-74.0060 reads -74.006), and the rule counts decimals. Unknown: the float's repr."""

    __slots__ = ("raw", "_keyed", "_runs")

    def __init__(self, raw: bytes) -> None:
        self.raw = raw
        self._keyed: dict[tuple[bytes, float], str] | None = None
        self._runs: dict[tuple[float, ...], list[str]] | None = None

    def keyed(self, key: str, v: Any) -> str:
        if type(v) is str:
            return v
        if self._keyed is None:
            self._keyed = {}
            for m in KEYED_NUMBER.finditer(self.raw):
                self._keyed.setdefault((m.group(1), float(m.group(2))), m.group(2).decode("ascii"))
        return self._keyed.get((key.encode("ascii"), float(v))) or repr(v)

    def coordinates(self, flat: list[Any]) -> list[str]:
        if self._runs is None:
            self._runs = {}
            for m in COORDINATES_RUN.finditer(self.raw):
                lits = NUMBER_LITERAL.findall(m.group(1))
                self._runs.setdefault(tuple(float(x) for x in lits), [x.decode("ascii") for x in lits])
        return self._runs.get(tuple(float(v) for v in flat)) or [repr(v) for v in flat]


def add_places(doc: JsonStrings, raw: bytes) -> None:
    """The coordinate pairs of doc.places as texts to scan (doc.geo), their values as strings whose
    changes are written back (doc.strs, never scanned alone: doc.geo_span)."""
    lits = Literals(raw)
    start = len(doc.strs)
    for node, lat, lng in doc.places:
        if lat is not None:
            add_pair(doc, node, lat, lits.keyed(lat, node[lat]), lng, lits.keyed(lng, node[lng]))
            continue
        positions: list[list[Any]] = []
        geometry_positions(node["coordinates"], positions)
        texts = lits.coordinates([v for p in positions for v in p])
        at = 0
        for p in positions:
            add_pair(doc, p, 1, texts[at + 1], 0, texts[at])
            at += len(p)
    doc.geo_span = (start, len(doc.strs))


def add_pair(doc: JsonStrings, node: Any, lat: Any, lat_text: str, lng: Any, lng_text: str) -> None:
    if "." not in lat_text or "." not in lng_text:  # whole degrees are a region, never a place
        return
    if float(lat_text) == 0 and float(lng_text) == 0:  # 0.000000, 0.000000: a default, not a place
        return
    lat_scan = padded(lat_text, lng_text) if type(node[lat]) is not str else lat_text
    lng_scan = padded(lng_text, lat_text) if type(node[lng]) is not str else lng_text
    i = add_member(doc, node, lat, lat_text)
    j = add_member(doc, node, lng, lng_text)
    doc.geo.append((PAIR_LAT + lat_scan.encode("ascii") + PAIR_LNG + lng_scan.encode("ascii"), len(PAIR_LAT), i, j))


def padded(number: str, partner: str) -> str:
    """A number of one decimal fewer than a reading written in full, beside a partner written in full,
    with the trailing zero a JSON serialiser (JSON.stringify, json.dumps, orjson) drops: -74.0060 beside
    40.7128 is written -74.006. The pair then reads as its text form does and gets the same token; which
    pairs are places at all is the location rule's precision (docs/RULES.md)."""
    if "e" in number or "E" in number or "e" in partner or "E" in partner:
        return number
    if len(number) - number.index(".") - 1 != PLACE_DECIMALS - 1:
        return number
    if len(partner) - partner.index(".") - 1 < PLACE_DECIMALS:
        return number
    return number + "0"


def add_member(doc: JsonStrings, node: Any, key: Any, text: str) -> int:
    i = len(doc.strs)
    doc.strs.append(text)
    doc.modes.append(MODE_ALL)
    doc.locs.append((node, key, False))
    if type(node[key]) is not str:
        doc.numbers.add(i)
    return i
