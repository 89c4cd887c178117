"""The memory service: ``prism serve`` (JSON API, MCP at ``/mcp``, web inspector at ``/``) and
``prism mcp`` (stdio), over one ``Memory``; ``prism_memory.RemoteMemory`` is its client.

Needs the ``server`` extra (``pip install 'prism-memory[server]'``; MCP: ``[mcp]``). Nothing
here is imported by ``prism_memory`` itself.

>>> from prism_memory import Memory  # doctest: +SKIP
>>> from prism_memory.server import create_app, load_keys  # doctest: +SKIP
>>> app = create_app(Memory(path="./.prism"), keys=load_keys("keys.json"))  # doctest: +SKIP
"""

from __future__ import annotations

from .app import create_app, serve
from .auth import KeyRing, Principal, authorize, load_keys

__all__ = ["KeyRing", "Principal", "authorize", "create_app", "load_keys", "serve"]
