"""The ``prism`` argument parser: every command, its options and its handler.

Design:
- argparse only (no extra dependency). Store options (``--path/--url/--api-key/--location``)
  are accepted before or after the sub-command; scope flags (``--user/--agent/--session``) sit
  on the sub-commands that need a scope. Every read command has ``--json``.
- :func:`build_parser` is a flat declaration of the commands (exempt from the 60-line rule);
  each command's handler lives in the module of its group (``records``, ``conversation``,
  ``store``, ``services``, ``bench``).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from .bench import cmd_bench
from .conversation import cmd_recall, cmd_remember
from .records import (
    cmd_add,
    cmd_delete,
    cmd_get,
    cmd_history,
    cmd_list,
    cmd_release,
    cmd_restore,
    cmd_search,
    cmd_update,
)
from .services import cmd_demo, cmd_mcp, cmd_serve
from .store import cmd_export, cmd_import, cmd_stats

__all__ = ["Handler", "build_parser"]

#: a command: the parsed arguments and an embedder override (``None``: configured) to an
#: exit code
Handler = Callable[[argparse.Namespace, Any], int]


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
    from .. import __version__

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
