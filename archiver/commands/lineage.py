"""`archiver lineage`: the lineage forest, or one session's family, as a tree (or JSON).
Argument parsing and output only."""

from __future__ import annotations

import argparse
from typing import Any

from archiver.cli import EXIT_INTEGRITY, EXIT_OK, console, emit_json, err, plain, settings_of
from archiver.commands.reading import add_at, add_identity, as_of, catalog_of, iso_utc, resolve_key
from archiver.commands import add_command


def cmd_lineage(args: argparse.Namespace) -> int:
    from archiver.lineage import Lineage

    settings = settings_of(args)
    catalog, _ = catalog_of(args, settings)
    lin = Lineage(catalog.sessions)
    if args.key:
        keys = lin.family(resolve_key(catalog, args.key)[0])
    else:
        keys = set(catalog.sessions)
    status = EXIT_INTEGRITY if catalog.errors else EXIT_OK
    if args.json:
        doc = lin.to_json(keys)
        if catalog.at is not None:
            doc["at"] = iso_utc(catalog.at)
        doc["errors"] = catalog.errors
        emit_json(doc)
        return status
    from rich.tree import Tree

    c = console()
    forest = Tree(f"lineage ({len(keys)} sessions{as_of(catalog)})")

    def label(key: str, relation: str | None, inferred: bool) -> str:
        s = catalog.sessions.get(key)
        rel = f"[{relation}{', inferred' if inferred else ''}] " if relation else ""
        title = f" — {s.title}" if s and s.title else ("" if s else " (not archived)")
        host = f" (host {s.host_id})" if s and s.kind == "host" else ""  # one per host, one key
        return plain(f"{rel}{lin.archive_key(key)}{host}{title}")

    def grow(node, key: str, seen: set[str]) -> None:  # type: ignore[no-untyped-def]
        for u in lin.used(key):  # not a lineage edge: drawn under every session that uses it
            node.add(label(u, "uses", False))
        for e in lin.children(key):
            if e.child in keys and e.child not in seen:
                seen.add(e.child)
                grow(node.add(label(e.child, e.relation, e.inferred)), e.child, seen)

    seen: set[str] = set()
    used = {u for k in keys for u in lin.used(k)}
    for root in lin.roots(keys | {e.parent for e in lin.edges if e.child in keys}):
        if (root not in keys or root in used) and not any(e.child in keys for e in lin.children(root)):
            continue
        seen.add(root)
        grow(forest.add(label(root, None, False)), root, seen)
    c.print(forest)
    for e in catalog.errors:
        err(e)
    return status


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    sp = add_command(sub, common, "lineage", cmd_lineage, "the lineage forest, or one family, as a tree")
    sp.add_argument("key", nargs="?")
    add_identity(sp)
    add_at(sp)
