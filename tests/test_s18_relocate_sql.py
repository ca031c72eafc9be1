"""restore --relocate names each SQLite cell's carrier in the SQL it runs (`sqlite:<table>.<col>`,
as redaction names it, so a BLOB schema applies alike): odd table and column names are quoted,
as identifiers and as the carrier's string literal."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from archiver.relocate import Relocation, Relocator


def test_quotes_in_table_and_column_names_are_relocated(tmp_path: Path) -> None:
    db = tmp_path / "odd.db"
    con = sqlite3.connect(db)
    con.execute('CREATE TABLE "it\'s ""here""" ("a\'b" TEXT, "c""d" BLOB)')
    con.execute('INSERT INTO "it\'s ""here""" VALUES (?, ?)', ("cd /w/app/src", b"open /w/app/x.py"))
    con.commit()
    con.close()
    Relocator([Relocation.parse("/w/app=/srv/new")]).rewrite_file(db, "sqlite")
    con = sqlite3.connect(db)
    assert con.execute('SELECT * FROM "it\'s ""here"""').fetchall() == [("cd /srv/new/src", b"open /srv/new/x.py")]
    con.close()
