"""``prism`` commands on single memories: add, search, list, get, update, history, restore,
release, delete.

Design:
- Each command opens the store (:func:`~prism_memory.cli.arguments.open_memory`), makes one
  call of ``Memory``'s public API with the scope of ``--user/--agent/--session``, and prints
  the result as text or, with ``--json``, as JSON (:mod:`prism_memory.cli.output`).
- ``delete`` exits 1 when an id was not found in the scope (the others are still deleted).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..errors import ValidationError
from .arguments import (
    open_memory,
    parse_as_of,
    parse_filters,
    parse_json_object,
    parse_time,
    scope_kwargs,
)
from .output import (
    EXIT_FAILED,
    EXIT_OK,
    format_hit,
    hit_json,
    print_json,
    print_record,
    record_json,
    shorten,
    version_json,
)

__all__ = [
    "cmd_add",
    "cmd_delete",
    "cmd_get",
    "cmd_history",
    "cmd_list",
    "cmd_release",
    "cmd_restore",
    "cmd_search",
    "cmd_update",
]


def cmd_add(args: argparse.Namespace, embedder: Any) -> int:
    text = sys.stdin.read() if args.text == "-" else args.text
    metadata = parse_json_object(args.metadata, "--metadata") if args.metadata else None
    with open_memory(args, embedder=embedder) as m:
        record = m.add(
            text,
            **scope_kwargs(args),
            kind=args.kind,
            layer=args.layer,
            metadata=metadata,
            event_time=parse_time(args.event_time),
            entities=args.entity or None,
            importance=args.importance,
        )
    if args.json:
        print_json(record_json(record))
    else:
        print(f"added {record.id} ({record.layer.value}/{record.kind.value})")
    return EXIT_OK


def cmd_search(args: argparse.Namespace, embedder: Any) -> int:
    with open_memory(args, embedder=embedder) as m:
        hits = m.search(
            args.query,
            **scope_kwargs(args),
            limit=args.limit,
            filters=parse_filters(args.filter),
            include_history=args.history,
            as_of=parse_as_of(args.as_of),
        )
    if args.json:
        print_json([hit_json(h) for h in hits])
    elif not hits:
        print("no memories found")
    else:
        for i, hit in enumerate(hits, start=1):
            print(format_hit(i, hit))
    return EXIT_OK


def cmd_list(args: argparse.Namespace, embedder: Any) -> int:
    with open_memory(args, embedder=embedder) as m:
        page = m.list(
            **scope_kwargs(args),
            layer=args.layer,
            kind=args.kind,
            limit=args.limit,
            cursor=args.cursor,
            filters=parse_filters(args.filter),
            include_history=args.history,
            trust=args.trust,
        )
    if args.json:
        print_json({"records": [record_json(r) for r in page], "next_cursor": page.next_cursor})
        return EXIT_OK
    for r in page:
        print(
            f"{r.id}  {r.layer.value + '/' + r.kind.value:<22} {r.time.strftime('%Y-%m-%d %H:%M')}  "
            f"{shorten(r.text, 80)}"
        )
        if r.provenance.trust.value == "quarantined":
            print(f"    quarantined: {shorten(r.provenance.reason or '', 100)}")
    if not page:
        print("no memories in this scope")
    if page.next_cursor:
        print(f"more: --cursor {page.next_cursor}", file=sys.stderr)
    return EXIT_OK


def cmd_get(args: argparse.Namespace, embedder: Any) -> int:
    with open_memory(args, embedder=embedder) as m:
        record = m.get(args.id, **scope_kwargs(args))
    if args.json:
        print_json(record_json(record))
    else:
        print_record(record)
    return EXIT_OK


def cmd_history(args: argparse.Namespace, embedder: Any) -> int:
    with open_memory(args, embedder=embedder) as m:
        versions = m.history(args.id, **scope_kwargs(args))
    if args.json:
        print_json([version_json(v) for v in versions])
        return EXIT_OK
    for v in versions:
        now = " (current)" if v.current else ""
        text = v.text if v.text is not None else "-"
        print(f"v{v.version} {v.time.isoformat()} {v.event}{now}: {text}")
        if v.reason:
            print(f"    {v.source}: {v.reason}")
    return EXIT_OK


def cmd_restore(args: argparse.Namespace, embedder: Any) -> int:
    with open_memory(args, embedder=embedder) as m:
        record = m.restore(args.id, args.version, **scope_kwargs(args), reason=args.reason)
    if args.json:
        print_json(record_json(record))
    else:
        print(f"restored version {args.version} of {args.id}: {record.text}")
    return EXIT_OK


def cmd_update(args: argparse.Namespace, embedder: Any) -> int:
    metadata = parse_json_object(args.metadata, "--metadata") if args.metadata else None
    text = sys.stdin.read() if args.text == "-" else args.text
    with open_memory(args, embedder=embedder) as m:
        record = m.update(
            args.id,
            **scope_kwargs(args),
            text=text,
            metadata=metadata,
            importance=args.importance,
            kind=args.kind,
            reason=args.reason,
        )
    if args.json:
        print_json(record_json(record))
    else:
        print(f"updated {record.id} ({record.layer.value}/{record.kind.value})")
    return EXIT_OK


def cmd_release(args: argparse.Namespace, embedder: Any) -> int:
    with open_memory(args, embedder=embedder) as m:
        released = [m.release(rid, **scope_kwargs(args), note=args.note) for rid in args.ids]
    if args.json:
        print_json({"released": [record_json(r) for r in released]})
    else:
        for r in released:
            print(f"released {r.id} ({r.provenance.trust.value})")
    return EXIT_OK


def cmd_delete(args: argparse.Namespace, embedder: Any) -> int:
    if args.all == bool(args.ids):
        raise ValidationError("pass record ids to delete, or --all for the whole scope (not both)")
    scope = scope_kwargs(args)
    missing: list[str] = []
    report: dict[str, object] = {}
    with open_memory(args, embedder=embedder) as m:
        if args.all:
            removed = m.delete_all(**scope)
            deleted = int(removed)
            report = {"by_layer": removed.by_layer, "by_surface": removed.by_surface}
        else:
            deleted = 0
            for record_id in args.ids:
                if m.delete(record_id, **scope):
                    deleted += 1
                else:
                    missing.append(record_id)
            if args.purge and deleted:
                m.purge()  # once for all the ids: the deleted text leaves the disk too
    if args.json:
        print_json({"deleted": deleted, "missing": missing, **report})
    else:
        print(f"deleted {deleted} memor{'y' if deleted == 1 else 'ies'}")
        for what, counts in report.items():
            if isinstance(counts, dict) and counts:
                shown = ", ".join(f"{k} {v}" for k, v in counts.items())
                print(f"  {what.replace('_', ' ')}: {shown}")
        for record_id in missing:
            print(f"prism: warning: no memory {record_id} in this scope", file=sys.stderr)
    return EXIT_FAILED if missing else EXIT_OK
