"""``prism bench``: the benchmarks, discovered at run time.

Design:
- ``prism bench <name>`` dispatches to ``prism_bench.<name>`` (``add_arguments(parser)`` and
  ``run(args) -> int``), discovered at run time, so a new benchmark needs no edit here. The
  benchmarks are their own distribution (``prism-memory-bench``, ``benchmarks/`` in a clone),
  not part of the core wheel; without it ``prism bench`` raises a ``ConfigError`` that says
  what to install.
- The store options given to ``prism`` reach the benchmark's arguments unless it defines its
  own.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import pkgutil
from types import ModuleType
from typing import Any

from ..errors import ConfigError, ValidationError
from .output import EXIT_OK, EXIT_USAGE

__all__ = ["BENCH_MISSING", "BENCH_PACKAGE", "available_benchmarks", "cmd_bench"]

log = logging.getLogger("prism_memory")


BENCH_PACKAGE = "prism_bench"


BENCH_MISSING = (
    "prism bench needs the benchmarks, which are not installed: they are the separate package "
    "prism-memory-bench; from a clone of prism-memory run `pip install -e ./benchmarks` "
    "(`make install` does it)"
)


def _bench_package() -> ModuleType:
    try:
        return importlib.import_module(BENCH_PACKAGE)
    except ModuleNotFoundError as exc:
        if exc.name != BENCH_PACKAGE:
            raise
        raise ConfigError(BENCH_MISSING) from None


def _load_bench(name: str) -> ModuleType | None:
    """The bench module ``name`` if it exists, imports, and follows the convention."""
    if not name.isidentifier() or name.startswith("_"):
        return None
    package = _bench_package().__name__  # a ConfigError naming what to install when missing
    try:
        module = importlib.import_module(f"{package}.{name}")
    except ModuleNotFoundError as exc:
        if exc.name == f"{package}.{name}":
            return None
        log.debug("bench %s needs %s", name, exc.name)
        return None
    except Exception as exc:
        log.debug("bench %s failed to import: %s", name, exc)
        return None
    if callable(getattr(module, "add_arguments", None)) and callable(getattr(module, "run", None)):
        return module
    return None


def _summary(doc: str | None) -> str:
    """First docstring line without a leading ``prism bench x``: label or RST backticks."""
    lines = (doc or "").strip().splitlines()
    first = lines[0].strip() if lines else ""
    if first.startswith("``") and "``:" in first:
        first = first.split("``:", 1)[1].strip()
    return first.replace("``", "")


def available_benchmarks() -> dict[str, str]:
    """``{name: one-line description}`` of every usable ``prism_bench`` module.

    Raises :class:`~prism_memory.errors.ConfigError` naming the package to install when the
    benchmarks (``prism-memory-bench``) are not installed.
    """
    out: dict[str, str] = {}
    for info in sorted(pkgutil.iter_modules(_bench_package().__path__), key=lambda i: i.name):
        module = _load_bench(info.name)
        if module is not None:
            out[info.name] = _summary(module.__doc__)
    return out


def _bench_listing() -> str:
    benches = available_benchmarks()
    if not benches:
        return "no benchmarks are installed"
    width = max(len(n) for n in benches)
    lines = ["available benchmarks (prism bench <name> --help for options):"]
    lines += [f"  {name:<{width}}  {desc}" for name, desc in benches.items()]
    return "\n".join(lines)


def cmd_bench(args: argparse.Namespace, embedder: Any) -> int:
    if args.bench_help or args.name is None:
        print("usage: prism bench <name> [options]\n\n" + _bench_listing())
        return EXIT_OK if args.bench_help else EXIT_USAGE
    module = _load_bench(args.name)
    if module is None:
        names = ", ".join(available_benchmarks()) or "none is installed"
        raise ValidationError(f"no benchmark named {args.name!r}; choose one of: {names}")
    doc = (module.__doc__ or "").strip()
    parser = argparse.ArgumentParser(
        prog=f"prism bench {args.name}",
        description=doc.splitlines()[0] if doc else None,
    )
    module.add_arguments(parser)
    bench_args = parser.parse_args(args.rest)
    for key in ("path", "url", "api_key", "location", "embedding_model"):
        if not hasattr(bench_args, key):
            setattr(bench_args, key, getattr(args, key, None))
    if embedder is not None and not hasattr(bench_args, "embedder"):
        bench_args.embedder = embedder
    code: int = module.run(bench_args)
    return int(code)
