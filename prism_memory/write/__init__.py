"""The write side of :class:`~prism_memory.Memory`, beside ``retrieval/`` (the read side).

Design: ``path.py`` holds :class:`WritePath`, the orchestrator of ``remember`` and the layer
and lifecycle calls (buffer, task, consolidate, forget, touch); it composes the stage modules
of ``layers/`` and ``lifecycle/`` and gets the engine, never the facade. ``Memory`` validates
a call and hands it here, as it hands a recall to ``retrieval/pipeline.py``.
"""

from __future__ import annotations

from .path import DEFAULT_SESSION, WritePath

__all__ = ["DEFAULT_SESSION", "WritePath"]
