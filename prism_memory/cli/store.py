"""``prism`` commands on a whole scope or store: export, import, stats.

Design:
- ``export`` writes JSON lines to a file or stdout (through a temporary file, so a failed
  export prints nothing half-written); ``import`` reads them back with a progress bar on a
  terminal (tqdm, on stderr).
- ``stats`` shows the scope's counts and the engine's kind/dimension (``Memory.stats`` leaves
  store-wide point counts, other tenants' data, out of a scoped report); ``stats
  --all-scopes`` shows the store's totals instead.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from typing import Any

from ..errors import ValidationError
from .arguments import open_memory, scope_kwargs
from .output import EXIT_OK, print_json, show_progress

__all__ = ["cmd_export", "cmd_import", "cmd_stats"]


def cmd_export(args: argparse.Namespace, embedder: Any) -> int:
    scope = scope_kwargs(args)
    to_stdout = args.file == "-"
    with open_memory(args, embedder=embedder) as m:
        if to_stdout:
            with tempfile.TemporaryDirectory() as tmp:
                target = os.path.join(tmp, "export.jsonl")
                n = m.export_jsonl(
                    target, **scope, all_scopes=args.all_scopes, vectors=args.vectors
                )
                with open(target, encoding="utf-8") as fh:
                    shutil.copyfileobj(fh, sys.stdout)
        else:
            n = m.export_jsonl(args.file, **scope, all_scopes=args.all_scopes, vectors=args.vectors)
    message = f"exported {n} memor{'y' if n == 1 else 'ies'}" + (
        "" if to_stdout else f" to {args.file}"
    )
    if args.json and not to_stdout:
        print_json({"exported": n, "file": args.file})
    else:
        print(message, file=sys.stderr if to_stdout else sys.stdout)
    return EXIT_OK


def _count_lines(path: str) -> int:
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return sum(1 for line in fh if line.strip())
    except OSError as exc:
        raise ValidationError(f"cannot read {path}: {exc.strerror}") from None


def cmd_import(args: argparse.Namespace, embedder: Any) -> int:
    total = _count_lines(args.file)
    from tqdm import tqdm

    with (
        open_memory(args, embedder=embedder) as m,
        tqdm(
            total=total,
            unit="rec",
            desc="importing",
            file=sys.stderr,
            disable=not show_progress(args),
        ) as bar,
    ):
        report = m.import_jsonl(
            args.file,
            skip_bad=args.skip_bad,
            batch_size=args.batch_size,
            progress=bar.update,
            reembed=args.reembed,
        )
    if args.json:
        print_json(
            {"imported": report.imported, "skipped": report.skipped, "errors": report.errors}
        )
    else:
        print(f"imported {report.imported}, skipped {report.skipped}")
    for err in report.errors:
        print(f"prism: warning: skipped {err}", file=sys.stderr)
    return EXIT_OK


def cmd_stats(args: argparse.Namespace, embedder: Any) -> int:
    with open_memory(args, embedder=embedder) as m:
        stats = m.stats(**scope_kwargs(args), all_scopes=args.all_scopes)
    if args.json:
        print_json(stats)
        return EXIT_OK
    engine = stats.get("engine") or {}
    if args.all_scopes:
        print("scope: every tenant")
        totals = stats.get("store_total") or {}
        print("store total: " + ", ".join(f"{k}={v}" for k, v in totals.items()))
    else:
        scope = ", ".join(f"{k}={v}" for k, v in stats["scope"].items())
        print(f"scope: {scope}")
        print(f"memories: {stats['total']}")
        for section in ("layers", "kinds", "status", "trust"):
            counts = stats.get(section) or {}
            if counts:
                joined = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
                print(f"{section}: {joined}")
    if engine:
        print("engine: " + ", ".join(f"{k}={v}" for k, v in engine.items()))
    return EXIT_OK
