"""``prism`` commands that run something on a store: the demo, the HTTP service, the MCP
server on stdio.

Design:
- Each imports what it runs when it runs (the demo, ``prism_memory.server``), so the other
  commands load none of it.
- ``serve`` checks its bind address and API keys before the store is opened: a refused bind
  changes nothing.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from .arguments import open_memory
from .output import EXIT_OK

__all__ = ["cmd_demo", "cmd_mcp", "cmd_serve"]


def cmd_demo(args: argparse.Namespace, embedder: Any) -> int:
    from ..demo import run_demo

    with open_memory(args, embedder=embedder, default_path="./.prism-demo") as m:
        return run_demo(m, json_output=args.json)


def cmd_serve(args: argparse.Namespace, embedder: Any) -> int:
    from ..server.app import serve
    from ..server.auth import check_bind, load_keys

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
    from ..server.mcp import build_mcp_server, fixed_scope

    resolve = fixed_scope(args.user_id, args.agent_id, args.session_id)
    with open_memory(args, embedder=embedder) as m:
        build_mcp_server(m, resolve).run("stdio")
    return EXIT_OK
