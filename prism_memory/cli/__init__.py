"""The ``prism`` command: manage a memory store from the shell, run the demo and the benchmarks.

Design:
- argparse only (no extra dependency). Store options (``--path/--url/--api-key/--location``)
  are accepted before or after the sub-command; scope flags (``--user/--agent/--session``) sit
  on the sub-commands that need a scope. Every read command has ``--json``.
- Errors are one line on stderr: a :class:`~prism_memory.errors.PrismError` exits 2 with its
  message (which says how to fix it), usage errors exit 2 as argparse does, anything unexpected
  exits 1 (``--debug`` shows the traceback). Nothing prints a traceback by default.
- One module per command group, the parser beside them: ``records`` (add, search, list, get,
  update, history, restore, release, delete), ``conversation`` (remember, recall), ``store``
  (export, import, stats), ``services`` (demo, serve, mcp), ``bench`` (benchmarks discovered
  at run time); ``parser`` declares the commands, ``arguments`` reads option values and opens
  the store, ``output`` holds the exit codes and the text/JSON shapes. This module is the
  entry point (:func:`main`, the ``prism`` console script, ``python -m prism_memory.cli``).
- Progress bars (tqdm) go to stderr and only when stderr is a terminal and ``--json`` is off.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Sequence
from typing import Any

from ..errors import PrismError
from .arguments import open_memory
from .bench import available_benchmarks
from .output import (
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USAGE,
    install_log_handler,
    print_error,
)
from .parser import Handler, build_parser

__all__ = ["available_benchmarks", "main", "open_memory"]

log = logging.getLogger("prism_memory")


def main(argv: Sequence[str] | None = None, *, embedder: Any = None) -> int:
    """Run ``prism`` with ``argv`` (default ``sys.argv[1:]``) and return the exit code.

    ``embedder=`` replaces the configured embedding model (tests pass a fake one).
    """
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    parser = build_parser()
    try:
        args = parser.parse_args(list(argv) if argv is not None else None)
    except SystemExit as exc:  # usage errors (argparse already printed one line) and --help
        return int(exc.code) if isinstance(exc.code, int) else EXIT_USAGE
    handler: Handler | None = getattr(args, "handler", None)
    if handler is None:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    log_handler = install_log_handler()
    try:
        return handler(args, embedder)
    except PrismError as exc:
        print_error(str(exc))
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("prism: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except SystemExit as exc:  # a bench module's own argparse (usage error or --help)
        return int(exc.code) if isinstance(exc.code, int) else EXIT_USAGE
    except BrokenPipeError:  # `prism list | head`
        return EXIT_OK
    except Exception as exc:
        if getattr(args, "debug", False):
            raise
        print_error(
            f"unexpected {type(exc).__name__}: {exc} (rerun with --debug for the traceback)"
        )
        return EXIT_FAILED
    finally:
        if log_handler is not None:
            log.removeHandler(log_handler)
