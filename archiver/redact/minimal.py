"""The day-one redactor: home directories and usernames only.

Kept as the fallback the pipeline uses when no rule packs are configured, so
nothing is ever archived unredacted. The full rule engine lives in redactor.py.
"""

from __future__ import annotations

import re
import shutil
import sqlite3
from pathlib import Path

import orjson

from archiver.model import Format
from archiver.redact.base import RedactionReport
from archiver.redact.pseudonym import Pseudonymizer


class MinimalRedactor:
    def __init__(self, pseudonyms: Pseudonymizer, usernames: list[str]) -> None:
        self.pseudonyms = pseudonyms
        names = sorted({u for u in usernames if len(u) >= 2}, key=len, reverse=True)
        self._pattern = (
            re.compile("(?<![A-Za-z0-9])(" + "|".join(re.escape(n) for n in names) + ")(?![A-Za-z0-9])", re.IGNORECASE)
            if names else None
        )
        self._bytes_needles = [n.lower().encode() for n in names]

    def redact_text(self, text: str, report: RedactionReport, carrier: str = "text") -> str:
        if self._pattern is None:
            return text
        count = 0

        def sub(m: re.Match[str]) -> str:
            nonlocal count
            count += 1
            return self.pseudonyms.username(m.group(1).lower())

        out = self._pattern.sub(sub, text)
        report.add("user-username", carrier, count)
        return out

    def _walk(self, value: object, report: RedactionReport, carrier: str) -> object:
        if isinstance(value, str):
            return self.redact_text(value, report, carrier)
        if isinstance(value, list):
            return [self._walk(v, report, carrier) for v in value]
        if isinstance(value, dict):
            return {self.redact_text(k, report, carrier + ":key"): self._walk(v, report, carrier) for k, v in value.items()}
        return value

    def redact_jsonl_line(self, line: bytes, report: RedactionReport, carrier: str = "jsonl") -> bytes:
        low = line.lower()
        if not any(n in low for n in self._bytes_needles):
            return line
        try:
            doc = orjson.loads(line)
        except orjson.JSONDecodeError:
            return self.redact_text(line.decode("utf-8", "surrogateescape"), report, carrier + ":raw").encode("utf-8", "surrogateescape")
        return orjson.dumps(self._walk(doc, report, carrier))

    def redact_file(self, src: Path, dst: Path, fmt: Format, report: RedactionReport) -> None:
        if fmt == "binary":
            shutil.copyfile(src, dst)
        elif fmt == "sqlite":
            shutil.copyfile(src, dst)
            conn = sqlite3.connect(dst)
            try:
                for (table,) in conn.execute("SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'").fetchall():
                    cols = [r[1] for r in conn.execute(f'PRAGMA table_info("{table}")')]
                    for rowid, *vals in conn.execute(f'SELECT rowid, {", ".join(chr(34) + c + chr(34) for c in cols)} FROM "{table}"').fetchall():
                        new = [self.redact_text(v, report, f"sqlite:{table}") if isinstance(v, str) else v for v in vals]
                        if new != vals:
                            conn.execute(f'UPDATE "{table}" SET {", ".join(chr(34) + c + chr(34) + "=?" for c in cols)} WHERE rowid=?', (*new, rowid))
                conn.commit()
                conn.execute("VACUUM")
            finally:
                conn.close()
        elif fmt in ("jsonl", "jsonl.zst"):
            with src.open("rb") as fi, dst.open("wb") as fo:
                for line in fi:
                    nl = line.endswith(b"\n")
                    fo.write(self.redact_jsonl_line(line.rstrip(b"\n"), report) + (b"\n" if nl else b""))
        elif fmt == "json":
            data = src.read_bytes()
            try:
                dst.write_bytes(orjson.dumps(self._walk(orjson.loads(data), report, "json")))
            except orjson.JSONDecodeError:
                dst.write_text(self.redact_text(data.decode("utf-8", "surrogateescape"), report), "utf-8", "surrogateescape")
        else:
            with src.open("r", encoding="utf-8", errors="surrogateescape", newline="") as fi, dst.open(
                "w", encoding="utf-8", errors="surrogateescape", newline=""
            ) as fo:
                for line in fi:
                    fo.write(self.redact_text(line, report))

    def redact_relpath(self, relpath: str, report: RedactionReport) -> str:
        return "/".join(self.redact_text(part, report, "path") for part in relpath.split("/"))

    def verify_file(self, path: Path, fmt: Format) -> list[str]:
        if self._pattern is None or fmt in ("binary", "sqlite"):
            return []
        with path.open("rb") as f:
            for line in f:
                if self._pattern.search(line.decode("utf-8", "surrogateescape")):
                    return ["user-username"]
        return []
