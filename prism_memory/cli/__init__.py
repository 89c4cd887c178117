"""The ``prism`` command: manage a memory store from the shell, run the demo and the benchmarks.

Design:
- argparse only (no extra dependency). Store options (``--path/--url/--api-key/--location``)
  are accepted before or after the sub-command; scope flags (``--user/--agent/--session``) sit
  on the sub-commands that need a scope. Every read command has ``--json``.
- Errors are one line on stderr: a :class:`~prism_memory.errors.PrismError` exits 2 with its
  message (which says how to fix it), usage errors exit 2 as argparse does, anything unexpected
  exits 1 (``--debug`` shows the traceback). Nothing prints a traceback by default.
- ``prism bench <name>`` dispatches to ``prism_bench.<name>`` (``add_arguments(parser)`` and
  ``run(args) -> int``), discovered at run time, so a new benchmark needs no edit here. The
  benchmarks are their own distribution (``prism-memory-bench``, ``benchmarks/`` in a clone), not
  part of the core wheel; without it ``prism bench`` says what to install.
- Progress bars (tqdm) go to stderr and only when stderr is a terminal and ``--json`` is off.
- ``remember`` takes messages from its arguments or stdin: a JSON list of ``{"role",
  "content"}`` messages (or one such object), else plain text, one message per line
  (``assistant: ...`` / ``user: ...`` / ``system: ...`` prefixes set the role).
- ``stats`` shows the scope's counts and the engine's kind/dimension (``Memory.stats`` leaves
  store-wide point counts, other tenants' data, out of a scoped report); ``stats
  --all-scopes`` shows the store's totals instead.
"""

from __future__ import annotations

import argparse
import importlib
import json
import logging
import os
import pkgutil
import shutil
import sys
import tempfile
from collections.abc import Callable, Sequence
from datetime import datetime
from types import ModuleType
from typing import TYPE_CHECKING, Any, TextIO, TypedDict

from ._validation import MAX_JSON_DEPTH
from .errors import ConfigError, PrismError, ValidationError

if TYPE_CHECKING:
    from .memory import Memory

__all__ = ["available_benchmarks", "main", "open_memory"]

log = logging.getLogger("prism_memory")

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2  # also every PrismError: the caller must change something
EXIT_INTERRUPTED = 130


# -- output helpers ---------------------------------------------------------------------
def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def _error(message: str) -> None:
    print(f"prism: error: {_one_line(message)}", file=sys.stderr)


def _print_json(data: Any, out: TextIO | None = None) -> None:
    print(json.dumps(data, ensure_ascii=False, indent=2, default=str), file=out or sys.stdout)


def _shorten(text: str, width: int = 100) -> str:
    flat = _one_line(text)
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def show_progress(args: argparse.Namespace) -> bool:
    """Whether a progress bar should be drawn: stderr is a terminal and ``--json`` is off."""
    return sys.stderr.isatty() and not getattr(args, "json", False)


class _StderrHandler(logging.Handler):
    """Writes to the *current* ``sys.stderr`` (it may be replaced after the handler is made)."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            level = record.levelname.lower()
            print(f"prism: {level}: {_one_line(record.getMessage())}", file=sys.stderr)
        except Exception:
            self.handleError(record)


def _install_log_handler() -> logging.Handler | None:
    """Library warnings (e.g. "text longer than the model") as one-line stderr messages."""
    if any(isinstance(h, _StderrHandler) for h in log.handlers):
        return None
    handler = _StderrHandler(logging.WARNING)
    log.addHandler(handler)
    return handler


# -- building the Memory ----------------------------------------------------------------
def open_memory(
    args: argparse.Namespace, *, embedder: Any = None, default_path: str | None = None
) -> Memory:
    """A :class:`~prism_memory.Memory` for the store options of a parsed command line."""
    from .memory import Memory

    path = getattr(args, "path", None) or None
    url = getattr(args, "url", None) or None
    location = getattr(args, "location", None) or None
    api_key = getattr(args, "api_key", None) or None
    if path is None and url is None and location is None:
        path = default_path
    if api_key is not None and url is None:
        raise ValidationError("--api-key is only used with --url (a Qdrant server)")
    if url is not None and api_key is None:
        api_key = os.environ.get("QDRANT_API_KEY") or None
    emb = embedder if embedder is not None else getattr(args, "embedding_model", None)
    return Memory(path=path, url=url, location=location, api_key=api_key, embedder=emb)


class _ScopeKwargs(TypedDict):
    user_id: str | None
    agent_id: str | None
    session_id: str | None


def _scope_kwargs(args: argparse.Namespace) -> _ScopeKwargs:
    return {
        "user_id": getattr(args, "user_id", None),
        "agent_id": getattr(args, "agent_id", None),
        "session_id": getattr(args, "session_id", None),
    }


def _parse_json_object(value: str, what: str) -> dict[str, Any]:
    try:
        data = json.loads(value)
    except json.JSONDecodeError as exc:
        raise ValidationError(
            f"{what} is not valid JSON ({exc.msg}); pass e.g. '{{\"k\": 1}}'"
        ) from None
    except RecursionError:
        raise ValidationError(
            f"{what} is nested too deeply to read (at most {MAX_JSON_DEPTH} levels); flatten "
            "it, e.g. store the deep part as a JSON string"
        ) from None
    if not isinstance(data, dict):
        raise ValidationError(f"{what} must be a JSON object, e.g. '{{\"k\": 1}}'")
    return data


def _parse_time(value: str | None) -> datetime | None:
    if value is None:
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise ValidationError(
            f"--event-time {value!r} is not an ISO date/time; use e.g. 2024-05-13T10:00:00+00:00"
        ) from None


def _parse_filters(items: Sequence[str] | None) -> dict[str, Any] | None:
    """``key=value`` pairs (value parsed as JSON when it is JSON, e.g. a list) into a dict."""
    if not items:
        return None
    out: dict[str, Any] = {}
    for item in items:
        key, sep, raw = item.partition("=")
        if not sep or not key:
            raise ValidationError(
                f"--filter {item!r} must look like key=value, e.g. --filter kind=preference"
            )
        try:
            out[key] = json.loads(raw)
        except json.JSONDecodeError:
            out[key] = raw
    return out


def _record_json(record: Any) -> dict[str, Any]:
    data: dict[str, Any] = record.model_dump(mode="json", by_alias=True)
    return data


def _hit_json(hit: Any) -> dict[str, Any]:
    return {
        "score": hit.score,
        "routes": list(hit.routes),
        "route_scores": dict(hit.route_scores),
        "record": _record_json(hit.record),
    }


def format_hit(rank: int, hit: Any) -> str:
    """One search hit as a line: rank, score, layer/kind, routes, time and text."""
    r = hit.record
    when = r.time.strftime("%Y-%m-%d")
    routes = "+".join(hit.routes) or "-"
    return (
        f"{rank:>2}. {hit.score:.4f}  {r.layer.value + '/' + r.kind.value:<22} {routes:<10} "
        f"{when}  {_shorten(r.text, 90)}"
    )


# -- commands ---------------------------------------------------------------------------
Handler = Callable[[argparse.Namespace, Any], int]


def cmd_add(args: argparse.Namespace, embedder: Any) -> int:
    text = sys.stdin.read() if args.text == "-" else args.text
    metadata = _parse_json_object(args.metadata, "--metadata") if args.metadata else None
    with open_memory(args, embedder=embedder) as m:
        record = m.add(
            text,
            **_scope_kwargs(args),
            kind=args.kind,
            layer=args.layer,
            metadata=metadata,
            event_time=_parse_time(args.event_time),
            entities=args.entity or None,
            importance=args.importance,
        )
    if args.json:
        _print_json(_record_json(record))
    else:
        print(f"added {record.id} ({record.layer.value}/{record.kind.value})")
    return EXIT_OK


def _as_of(value: str | None) -> datetime | None:
    if value is None:
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise ValidationError(
            f"--as-of needs an ISO 8601 date or time, e.g. 2026-04-01 or 2026-04-01T09:00Z; "
            f"got {value!r}"
        ) from None


def cmd_search(args: argparse.Namespace, embedder: Any) -> int:
    with open_memory(args, embedder=embedder) as m:
        hits = m.search(
            args.query,
            **_scope_kwargs(args),
            limit=args.limit,
            filters=_parse_filters(args.filter),
            include_history=args.history,
            as_of=_as_of(args.as_of),
        )
    if args.json:
        _print_json([_hit_json(h) for h in hits])
    elif not hits:
        print("no memories found")
    else:
        for i, hit in enumerate(hits, start=1):
            print(format_hit(i, hit))
    return EXIT_OK


def cmd_list(args: argparse.Namespace, embedder: Any) -> int:
    with open_memory(args, embedder=embedder) as m:
        page = m.list(
            **_scope_kwargs(args),
            layer=args.layer,
            kind=args.kind,
            limit=args.limit,
            cursor=args.cursor,
            filters=_parse_filters(args.filter),
            include_history=args.history,
            trust=args.trust,
        )
    if args.json:
        _print_json({"records": [_record_json(r) for r in page], "next_cursor": page.next_cursor})
        return EXIT_OK
    for r in page:
        print(
            f"{r.id}  {r.layer.value + '/' + r.kind.value:<22} {r.time.strftime('%Y-%m-%d %H:%M')}  "
            f"{_shorten(r.text, 80)}"
        )
        if r.provenance.trust.value == "quarantined":
            print(f"    quarantined: {_shorten(r.provenance.reason or '', 100)}")
    if not page:
        print("no memories in this scope")
    if page.next_cursor:
        print(f"more: --cursor {page.next_cursor}", file=sys.stderr)
    return EXIT_OK


def cmd_get(args: argparse.Namespace, embedder: Any) -> int:
    with open_memory(args, embedder=embedder) as m:
        record = m.get(args.id, **_scope_kwargs(args))
    if args.json:
        _print_json(_record_json(record))
    else:
        _print_record(record)
    return EXIT_OK


def _version_json(v: Any) -> dict[str, Any]:
    return dict(v.model_dump(mode="json"))


def cmd_history(args: argparse.Namespace, embedder: Any) -> int:
    with open_memory(args, embedder=embedder) as m:
        versions = m.history(args.id, **_scope_kwargs(args))
    if args.json:
        _print_json([_version_json(v) for v in versions])
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
        record = m.restore(args.id, args.version, **_scope_kwargs(args), reason=args.reason)
    if args.json:
        _print_json(_record_json(record))
    else:
        print(f"restored version {args.version} of {args.id}: {record.text}")
    return EXIT_OK


def cmd_update(args: argparse.Namespace, embedder: Any) -> int:
    metadata = _parse_json_object(args.metadata, "--metadata") if args.metadata else None
    text = sys.stdin.read() if args.text == "-" else args.text
    with open_memory(args, embedder=embedder) as m:
        record = m.update(
            args.id,
            **_scope_kwargs(args),
            text=text,
            metadata=metadata,
            importance=args.importance,
            kind=args.kind,
            reason=args.reason,
        )
    if args.json:
        _print_json(_record_json(record))
    else:
        print(f"updated {record.id} ({record.layer.value}/{record.kind.value})")
    return EXIT_OK


def _print_record(record: Any) -> None:
    print(f"id: {record.id}")
    print(f"layer/kind: {record.layer.value}/{record.kind.value}")
    print(f"status: {record.status.value}, trust: {record.provenance.trust.value}")
    if record.event_time is not None:
        print(f"event_time: {record.event_time.isoformat()}")
    print(f"created_at: {record.created_at.isoformat()}")
    if record.metadata:
        print("metadata: " + json.dumps(record.metadata, ensure_ascii=False, default=str))
    print(f"text: {record.text}")


_ROLES = ("user", "assistant", "system", "tool")


def _text_messages(text: str) -> list[dict[str, str]]:
    """Plain text as messages: one per non-empty line, ``role: `` prefixes honoured."""
    messages: list[dict[str, str]] = []
    for line in text.splitlines():
        if not line.strip():
            continue
        role, sep, rest = line.partition(":")
        if sep and role.strip().lower() in _ROLES and rest.strip():
            messages.append({"role": role.strip().lower(), "content": rest.strip()})
        else:
            messages.append({"role": "user", "content": line.strip()})
    return messages


def _parse_messages(chunks: Sequence[str]) -> list[Any]:
    """Messages from ``remember``'s arguments or stdin (JSON messages or plain text lines)."""
    messages: list[Any] = []
    for chunk in chunks:
        stripped = chunk.strip()
        if stripped[:1] in ("[", "{"):
            try:
                data = json.loads(stripped)
            except json.JSONDecodeError as exc:
                raise ValidationError(
                    f"remember: input starts like JSON but is not valid JSON ({exc.msg} at line "
                    f'{exc.lineno}); pass a JSON list of {{"role", "content"}} messages or '
                    "plain text"
                ) from None
            items = data if isinstance(data, list) else [data]
            if not all(isinstance(i, (dict, str)) for i in items):
                raise ValidationError(
                    'remember: JSON input must be a list of {"role": ..., "content": ...} '
                    "messages (or strings)"
                )
            messages.extend(items)
        else:
            messages.extend(_text_messages(chunk))
    if not messages:
        raise ValidationError(
            "remember: no messages; pass them as arguments (prism remember 'I moved to Lyon' "
            "--user alice) or on stdin (a JSON messages list or text lines)"
        )
    return messages


def cmd_remember(args: argparse.Namespace, embedder: Any) -> int:
    chunks = list(args.messages) if args.messages and args.messages != ["-"] else []
    if not chunks:
        if sys.stdin.isatty() and not args.messages:
            raise ValidationError(
                "remember: pass messages as arguments or pipe them on stdin "
                "(echo 'I moved to Lyon' | prism remember --user alice)"
            )
        chunks = [sys.stdin.read()]
    messages = _parse_messages(chunks)
    with open_memory(args, embedder=embedder) as m:
        result = m.remember(
            messages,
            **_scope_kwargs(args),
            event_time=_parse_time(args.event_time),
        )
        if args.end_session:
            result.extend(m.end_session(**_scope_kwargs(args)))
    changes = {
        name: [{"id": c.record.id, "text": c.record.text} for c in getattr(result, name)]
        for name in ("added", "updated", "superseded", "skipped", "quarantined")
    }
    if args.json:
        _print_json({"messages": len(messages), **changes})
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
            args.query, **_scope_kwargs(args), budget_tokens=args.budget, as_of=_as_of(args.as_of)
        )
    if args.json:
        _print_json(
            {
                "text": ctx.text,
                "tokens": ctx.tokens,
                "budget_tokens": ctx.budget_tokens,
                "records": [_record_json(r) for r in ctx.records],
            }
        )
    elif ctx.text.strip():
        print(ctx.text)
    else:
        print("no memories found")
    return EXIT_OK


def cmd_release(args: argparse.Namespace, embedder: Any) -> int:
    with open_memory(args, embedder=embedder) as m:
        released = [m.release(rid, **_scope_kwargs(args), note=args.note) for rid in args.ids]
    if args.json:
        _print_json({"released": [_record_json(r) for r in released]})
    else:
        for r in released:
            print(f"released {r.id} ({r.provenance.trust.value})")
    return EXIT_OK


def cmd_delete(args: argparse.Namespace, embedder: Any) -> int:
    if args.all == bool(args.ids):
        raise ValidationError("pass record ids to delete, or --all for the whole scope (not both)")
    scope = _scope_kwargs(args)
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
        _print_json({"deleted": deleted, "missing": missing, **report})
    else:
        print(f"deleted {deleted} memor{'y' if deleted == 1 else 'ies'}")
        for what, counts in report.items():
            if isinstance(counts, dict) and counts:
                shown = ", ".join(f"{k} {v}" for k, v in counts.items())
                print(f"  {what.replace('_', ' ')}: {shown}")
        for record_id in missing:
            print(f"prism: warning: no memory {record_id} in this scope", file=sys.stderr)
    return EXIT_FAILED if missing else EXIT_OK


def cmd_export(args: argparse.Namespace, embedder: Any) -> int:
    scope = _scope_kwargs(args)
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
        _print_json({"exported": n, "file": args.file})
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
        _print_json(
            {"imported": report.imported, "skipped": report.skipped, "errors": report.errors}
        )
    else:
        print(f"imported {report.imported}, skipped {report.skipped}")
    for err in report.errors:
        print(f"prism: warning: skipped {err}", file=sys.stderr)
    return EXIT_OK


def cmd_stats(args: argparse.Namespace, embedder: Any) -> int:
    with open_memory(args, embedder=embedder) as m:
        stats = m.stats(**_scope_kwargs(args), all_scopes=args.all_scopes)
    if args.json:
        _print_json(stats)
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


def cmd_demo(args: argparse.Namespace, embedder: Any) -> int:
    from .demo import run_demo

    with open_memory(args, embedder=embedder, default_path="./.prism-demo") as m:
        return run_demo(m, json_output=args.json)


# -- benchmarks -------------------------------------------------------------------------
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


def cmd_serve(args: argparse.Namespace, embedder: Any) -> int:
    from .server.app import serve
    from .server.auth import check_bind, load_keys

    keys = load_keys(args.api_keys, os.environ.get("PRISM_API_KEYS"))
    check_bind(args.host, keys)  # before the store is opened: a refused bind changes nothing
    with open_memory(args, embedder=embedder) as m:
        auth = f"{len(keys)} API keys" if keys else "no API keys (loopback only)"
        print(
            f"prism serve: http://{args.host}:{args.port} ({auth}); API /v1, docs /docs, "
            "MCP /mcp, inspector /",
            file=sys.stderr,
            flush=True,
        )
        serve(
            m,
            host=args.host,
            port=args.port,
            keys=keys,
            max_body_bytes=args.max_body_bytes,
            max_import_bytes=args.max_import_bytes,
            request_timeout=args.request_timeout,
            log_level=args.log_level,
        )
    return EXIT_OK


def cmd_mcp(args: argparse.Namespace, embedder: Any) -> int:
    from .server.mcp import build_mcp_server, fixed_scope

    resolve = fixed_scope(args.user_id, args.agent_id, args.session_id)
    with open_memory(args, embedder=embedder) as m:
        build_mcp_server(m, resolve).run("stdio")
    return EXIT_OK


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


# -- parser -----------------------------------------------------------------------------
def _add_store_options(parser: argparse.ArgumentParser, *, top: bool) -> None:
    # Sub-parsers use SUPPRESS so a value given before the sub-command is not reset to None.
    def d(value: Any) -> Any:
        return value if top else argparse.SUPPRESS

    g = parser.add_argument_group("store")
    g.add_argument(
        "--path", default=d(None), help="embedded store directory (default $PRISM_PATH or ./.prism)"
    )
    g.add_argument("--url", default=d(None), help="Qdrant server / cluster URL")
    g.add_argument(
        "--api-key",
        dest="api_key",
        default=d(None),
        help="Qdrant API key (default $QDRANT_API_KEY when --url is given)",
    )
    g.add_argument("--location", default=d(None), help="':memory:' for a throwaway store")
    g.add_argument(
        "--embedding-model",
        dest="embedding_model",
        default=d(None),
        help="fastembed model name (default: the packaged offline all-MiniLM-L6-v2)",
    )
    g.add_argument(
        "--debug",
        action="store_true",
        default=d(False),
        help="show tracebacks of unexpected errors",
    )


def _add_scope(parser: argparse.ArgumentParser) -> None:
    g = parser.add_argument_group("scope (at least one)")
    g.add_argument("--user", dest="user_id", help="user id")
    g.add_argument("--agent", dest="agent_id", help="agent id")
    g.add_argument("--session", dest="session_id", help="session id")


def _add_json(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="machine-readable JSON on stdout")


def _version() -> str:
    from . import __version__

    return __version__


def build_parser() -> argparse.ArgumentParser:
    """The ``prism`` argument parser (bench sub-commands are resolved at run time)."""
    parser = argparse.ArgumentParser(
        prog="prism",
        description="PRISM long-term memory for LLM agents: manage a store, run the demo and "
        "the benchmarks.",
    )
    _add_store_options(parser, top=True)
    parser.add_argument("--version", action="version", version=f"prism {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="<command>")

    def command(name: str, help_text: str, handler: Handler) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_text, description=help_text)
        _add_store_options(p, top=False)
        p.set_defaults(handler=handler)
        return p

    p = command("demo", "ingest a sample 3-session conversation and answer questions", cmd_demo)
    _add_json(p)

    p = command("add", "store one memory", cmd_add)
    p.add_argument("text", help="the memory text ('-' reads stdin)")
    _add_scope(p)
    p.add_argument("--kind", default="fact", help="fact, preference, event, ... (default fact)")
    p.add_argument("--layer", default="semantic", help="semantic, episodic, ... (default semantic)")
    p.add_argument("--metadata", help="JSON object stored with the memory")
    p.add_argument("--event-time", dest="event_time", help="when it happened (ISO 8601)")
    p.add_argument("--entity", action="append", help="entity name (repeatable)")
    p.add_argument("--importance", type=float, help="importance in [0, 1]")
    _add_json(p)

    p = command("search", "hybrid search (dense + BM25) in a scope", cmd_search)
    p.add_argument("query")
    _add_scope(p)
    p.add_argument("--limit", "-k", type=int, default=10)
    p.add_argument(
        "--filter",
        action="append",
        help="key=value or key=JSON (repeatable), e.g. kind=preference, "
        'kind=\'{"$in": ["fact", "event"]}\', importance=\'{"$gte": 0.5}\'',
    )
    p.add_argument("--history", action="store_true", help="include superseded memories")
    p.add_argument("--as-of", dest="as_of", help="what was valid at this ISO time")
    _add_json(p)

    p = command("recall", "the token-budgeted context recall builds for a query", cmd_recall)
    p.add_argument("query")
    _add_scope(p)
    p.add_argument("--budget", type=int, default=1000, help="token budget (default 1000)")
    p.add_argument("--as-of", dest="as_of", help="answer from what was valid at this ISO time")
    _add_json(p)

    p = command(
        "remember",
        "remember conversation turns (arguments or stdin: JSON messages or text lines)",
        cmd_remember,
    )
    p.add_argument(
        "messages",
        nargs="*",
        metavar="MESSAGE",
        help="a message, a JSON messages list, or '-' / nothing to read stdin",
    )
    _add_scope(p)
    p.add_argument("--event-time", dest="event_time", help="when it was said (ISO 8601)")
    p.add_argument(
        "--end-session",
        action="store_true",
        help="end the session afterwards (its turns move on to long-term memory)",
    )
    _add_json(p)

    p = command("get", "show one memory by id", cmd_get)
    p.add_argument("id")
    _add_scope(p)
    _add_json(p)

    p = command("update", "change a memory's text (re-embedded) or fields, same id", cmd_update)
    p.add_argument("id")
    p.add_argument("text", nargs="?", help="the new text ('-' reads stdin; omit to keep it)")
    _add_scope(p)
    p.add_argument("--kind")
    p.add_argument("--metadata", help="JSON object replacing the metadata")
    p.add_argument("--importance", type=float, help="importance in [0, 1]")
    p.add_argument("--reason", help="why it changed (kept in its history)")
    _add_json(p)

    p = command(
        "history", "every version of a memory: added, updated, superseded, ...", cmd_history
    )
    p.add_argument("id")
    _add_scope(p)
    _add_json(p)

    p = command("restore", "make an earlier version of a memory current again", cmd_restore)
    p.add_argument("id")
    p.add_argument("version", type=int, help="the version number shown by `prism history`")
    _add_scope(p)
    p.add_argument("--reason", help="why (kept in its history)")
    _add_json(p)

    p = command("list", "list a scope's memories (next page: --cursor)", cmd_list)
    _add_scope(p)
    p.add_argument("--layer")
    p.add_argument("--kind")
    p.add_argument("--limit", type=int, default=50)
    p.add_argument("--cursor")
    p.add_argument(
        "--filter", action="append", help="key=value or key=JSON (repeatable), as for search"
    )
    p.add_argument("--history", action="store_true", help="include superseded memories")
    p.add_argument(
        "--trust",
        choices=["trusted", "untrusted", "quarantined"],
        help="only memories of this trust level ('quarantined' lists what the screen kept back)",
    )
    _add_json(p)

    p = command(
        "release", "restore quarantined memories (see list --trust quarantined)", cmd_release
    )
    p.add_argument("ids", nargs="+", metavar="ID")
    _add_scope(p)
    p.add_argument("--note", help="why they are released (kept in their provenance)")
    _add_json(p)

    p = command("delete", "delete memories by id, or --all of a scope", cmd_delete)
    p.add_argument("ids", nargs="*", metavar="ID")
    _add_scope(p)
    p.add_argument("--all", action="store_true", help="delete every memory of the scope")
    p.add_argument(
        "--purge",
        action="store_true",
        help="with ids: also erase the deleted text from the store's files (--all always does)",
    )
    _add_json(p)

    p = command("export", "write a scope's memories as JSON lines", cmd_export)
    p.add_argument("file", help="output file ('-' for stdout)")
    _add_scope(p)
    p.add_argument(
        "--all-scopes", action="store_true", help="export every tenant (admin operation)"
    )
    p.add_argument(
        "--no-vectors",
        dest="vectors",
        action="store_false",
        help="leave the dense vectors out (smaller file; an import then embeds every text)",
    )
    _add_json(p)

    p = command("import", "read JSON lines written by export (reuses their vectors)", cmd_import)
    p.add_argument("file")
    p.add_argument(
        "--skip-bad", action="store_true", help="skip corrupt lines instead of importing nothing"
    )
    p.add_argument(
        "--batch-size",
        type=int,
        default=64,
        help="records written per batch; the progress bar moves after each (default 64)",
    )
    p.add_argument(
        "--reembed",
        action="store_true",
        help="embed every text again instead of reusing the exported vectors",
    )
    _add_json(p)

    p = command("stats", "counts per layer / kind / status / trust, and engine info", cmd_stats)
    _add_scope(p)
    p.add_argument(
        "--all-scopes",
        action="store_true",
        help="the whole store's point counts instead of a scope's (admin operation)",
    )
    _add_json(p)

    p = command(
        "serve",
        "run the memory service: JSON API (/v1, docs at /docs), MCP (/mcp) and the web "
        "inspector (/) over one store; needs the server extra",
        cmd_serve,
    )
    p.formatter_class = argparse.RawDescriptionHelpFormatter
    p.epilog = (
        "examples:\n"
        "  prism serve --path ./.prism --api-keys keys.json\n"
        '  PRISM_API_KEYS=\'{"k-alice-6f1c9d2e": {"user_ids": ["alice"]}}\' '
        "prism serve --host 0.0.0.0\n"
        "  curl -H 'Authorization: Bearer KEY' 'localhost:8765/v1/memories?user_id=alice'\n\n"
        "A key reads and writes only inside its user_ids / agent_ids (admin: every scope); no\n"
        "key is 401, a foreign scope 403. Python: prism_memory.RemoteMemory(url, api_key=KEY).\n"
        "Guide: docs/service.md"
    )
    p.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1; any other address needs API keys)",
    )
    p.add_argument("--port", type=int, default=8765, help="port (default 8765)")
    p.add_argument(
        "--api-keys",
        dest="api_keys",
        metavar="FILE",
        help='JSON file {"<key>": {"user_ids": [...], "agent_ids": [...], "admin": false}}; '
        "default $PRISM_API_KEYS (that JSON or a path). Without keys every caller is admin "
        "and only loopback may be bound",
    )
    p.add_argument(
        "--max-body-bytes",
        dest="max_body_bytes",
        type=int,
        default=4 * 1024 * 1024,
        help="largest request body (default 4 MiB; 413 above)",
    )
    p.add_argument(
        "--max-import-bytes",
        dest="max_import_bytes",
        type=int,
        default=1024**3,
        help="largest streamed import (POST /v1/import; default 1 GiB)",
    )
    p.add_argument(
        "--request-timeout",
        dest="request_timeout",
        type=float,
        default=60.0,
        help="seconds before a request that has not started its answer gets 504 (default 60)",
    )
    p.add_argument(
        "--log-level",
        dest="log_level",
        default="warning",
        choices=["critical", "error", "warning", "info", "debug"],
        help="server log level (default warning; info logs every request)",
    )

    p = command(
        "mcp",
        "run the MCP server over stdio (tools remember, recall, search, forget, "
        "list_memories) in one scope; needs the mcp extra",
        cmd_mcp,
    )
    g = p.add_argument_group("scope of every tool call (user or agent required)")
    g.add_argument("--user-id", "--user", dest="user_id", help="user id")
    g.add_argument("--agent-id", "--agent", dest="agent_id", help="agent id")
    g.add_argument(
        "--session-id",
        "--session",
        dest="session_id",
        help="session whose recent turns recall adds",
    )

    p = sub.add_parser(
        "bench",
        help="run a benchmark: prism bench <name> --help",
        add_help=False,
        description="run a benchmark",
    )
    p.add_argument("-h", "--help", dest="bench_help", action="store_true")
    p.add_argument("name", nargs="?")
    p.add_argument("rest", nargs=argparse.REMAINDER)
    p.set_defaults(handler=cmd_bench)
    return parser


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
    log_handler = _install_log_handler()
    try:
        return handler(args, embedder)
    except PrismError as exc:
        _error(str(exc))
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
        _error(f"unexpected {type(exc).__name__}: {exc} (rerun with --debug for the traceback)")
        return EXIT_FAILED
    finally:
        if log_handler is not None:
            log.removeHandler(log_handler)


if __name__ == "__main__":
    sys.exit(main())
