"""``prism`` commands of the conversation loop: ``remember`` (messages in, memories written)
and ``recall`` (a query in, the token-budgeted context out).

Design:
- ``remember`` reads its messages from its arguments or stdin
  (:func:`~prism_memory.cli.arguments.parse_messages`), writes them through
  ``Memory.remember`` (and ``end_session`` with ``--end-session``), and reports what was
  added, updated, superseded, skipped and quarantined.
- ``recall`` prints the context ``Memory.recall`` builds (its records too with ``--json``).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..errors import ValidationError
from .arguments import open_memory, parse_as_of, parse_messages, parse_time, scope_kwargs
from .output import EXIT_OK, print_json, record_json

__all__ = ["cmd_recall", "cmd_remember"]


def cmd_remember(args: argparse.Namespace, embedder: Any) -> int:
    chunks = list(args.messages) if args.messages and args.messages != ["-"] else []
    if not chunks:
        if sys.stdin.isatty() and not args.messages:
            raise ValidationError(
                "remember: pass messages as arguments or pipe them on stdin "
                "(echo 'I moved to Lyon' | prism remember --user alice)"
            )
        chunks = [sys.stdin.read()]
    messages = parse_messages(chunks)
    with open_memory(args, embedder=embedder) as m:
        result = m.remember(
            messages,
            **scope_kwargs(args),
            event_time=parse_time(args.event_time),
        )
        if args.end_session:
            result.extend(m.end_session(**scope_kwargs(args)))
    changes = {
        name: [{"id": c.record.id, "text": c.record.text} for c in getattr(result, name)]
        for name in ("added", "updated", "superseded", "skipped", "quarantined")
    }
    if args.json:
        print_json({"messages": len(messages), **changes})
    else:
        counts = ", ".join(f"{name} {len(items)}" for name, items in changes.items() if items)
        print(
            f"remembered {len(messages)} message{'s' if len(messages) != 1 else ''}: "
            f"{counts or 'nothing new'}"
        )
    return EXIT_OK


def cmd_recall(args: argparse.Namespace, embedder: Any) -> int:
    with open_memory(args, embedder=embedder) as m:
        ctx = m.recall(
            args.query,
            **scope_kwargs(args),
            budget_tokens=args.budget,
            as_of=parse_as_of(args.as_of),
        )
    if args.json:
        print_json(
            {
                "text": ctx.text,
                "tokens": ctx.tokens,
                "budget_tokens": ctx.budget_tokens,
                "records": [record_json(r) for r in ctx.records],
            }
        )
    elif ctx.text.strip():
        print(ctx.text)
    else:
        print("no memories found")
    return EXIT_OK
