"""Intent-aware recall: intent -> broad multi-route retrieve -> selective construct.

``intent.py`` (Intent, templates, query analysis), ``routes.py`` (the batched store query),
``fusion.py`` (RRF / DBSF), ``scoring.py`` (PRISM objectives, utility feedback),
``construct.py`` (score, select), ``packing.py`` (compress, pack), ``render.py`` (the data
block), ``cache.py``, ``context.py`` (MemoryContext and its trace), ``llm.py`` (optional LLM
steps), ``access.py`` (access statistics written in the background).
"""

from __future__ import annotations

from .cache import RecallCache
from .context import CandidateTrace, ContextItem, MemoryContext, RecallTrace
from .intent import Intent, IntentRegistry, analyze_query, parse_time_range

__all__ = [
    "CandidateTrace",
    "ContextItem",
    "Intent",
    "IntentRegistry",
    "MemoryContext",
    "RecallCache",
    "RecallTrace",
    "analyze_query",
    "parse_time_range",
]
