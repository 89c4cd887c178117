"""How ``prism`` answers: exit codes, JSON and text output, one-line errors and warnings.

Design:
- Exit codes are defined once: 0 done, 1 unexpected failure, 2 the caller must change
  something (usage errors and every ``PrismError``), 130 interrupted.
- Errors and library warnings are one line on stderr (``prism: error: ...``); nothing prints a
  traceback by default. JSON output (``--json``) is indented UTF-8 on stdout.
- Records, hits and versions have one JSON shape and one text shape each, shared by every
  command.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from typing import Any, TextIO

__all__ = [
    "EXIT_FAILED",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_USAGE",
    "format_hit",
    "hit_json",
    "install_log_handler",
    "one_line",
    "print_error",
    "print_json",
    "print_record",
    "record_json",
    "shorten",
    "show_progress",
    "version_json",
]

log = logging.getLogger("prism_memory")


EXIT_OK = 0


EXIT_FAILED = 1


EXIT_USAGE = 2  # also every PrismError: the caller must change something


EXIT_INTERRUPTED = 130


def one_line(text: str) -> str:
    return " ".join(str(text).split())


def print_error(message: str) -> None:
    print(f"prism: error: {one_line(message)}", file=sys.stderr)


def print_json(data: Any, out: TextIO | None = None) -> None:
    print(json.dumps(data, ensure_ascii=False, indent=2, default=str), file=out or sys.stdout)


def shorten(text: str, width: int = 100) -> str:
    flat = one_line(text)
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def show_progress(args: argparse.Namespace) -> bool:
    """Whether a progress bar should be drawn: stderr is a terminal and ``--json`` is off."""
    return sys.stderr.isatty() and not getattr(args, "json", False)


class _StderrHandler(logging.Handler):
    """Writes to the *current* ``sys.stderr`` (it may be replaced after the handler is made)."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            level = record.levelname.lower()
            print(f"prism: {level}: {one_line(record.getMessage())}", file=sys.stderr)
        except Exception:
            self.handleError(record)


def install_log_handler() -> logging.Handler | None:
    """Library warnings (e.g. "text longer than the model") as one-line stderr messages."""
    if any(isinstance(h, _StderrHandler) for h in log.handlers):
        return None
    handler = _StderrHandler(logging.WARNING)
    log.addHandler(handler)
    return handler


def record_json(record: Any) -> dict[str, Any]:
    data: dict[str, Any] = record.model_dump(mode="json", by_alias=True)
    return data


def hit_json(hit: Any) -> dict[str, Any]:
    return {
        "score": hit.score,
        "routes": list(hit.routes),
        "route_scores": dict(hit.route_scores),
        "record": record_json(hit.record),
    }


def version_json(v: Any) -> dict[str, Any]:
    return dict(v.model_dump(mode="json"))


def format_hit(rank: int, hit: Any) -> str:
    """One search hit as a line: rank, score, layer/kind, routes, time and text."""
    r = hit.record
    when = r.time.strftime("%Y-%m-%d")
    routes = "+".join(hit.routes) or "-"
    return (
        f"{rank:>2}. {hit.score:.4f}  {r.layer.value + '/' + r.kind.value:<22} {routes:<10} "
        f"{when}  {shorten(r.text, 90)}"
    )


def print_record(record: Any) -> None:
    print(f"id: {record.id}")
    print(f"layer/kind: {record.layer.value}/{record.kind.value}")
    print(f"status: {record.status.value}, trust: {record.provenance.trust.value}")
    if record.event_time is not None:
        print(f"event_time: {record.event_time.isoformat()}")
    print(f"created_at: {record.created_at.isoformat()}")
    if record.metadata:
        print("metadata: " + json.dumps(record.metadata, ensure_ascii=False, default=str))
    print(f"text: {record.text}")
