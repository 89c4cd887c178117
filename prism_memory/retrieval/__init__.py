"""Intent-aware recall: intent -> broad multi-route retrieve -> selective construct.

``pipeline.py`` (the stages in order; ``request.py`` its validated requests), ``intent.py``
(Intent, templates, query analysis), ``names.py`` (the speaker and entity names a scope
knows), ``routes.py`` (the routes of one batched store query; ``hybrid.py`` the plain hybrid
search), ``graph.py`` (the opt-in second hop along link keys), ``neighbours.py`` (a turn's
neighbours in its session), ``fusion.py`` (RRF / DBSF), ``calibration.py`` (cosines on one
scale per embedder), ``scoring.py`` (PRISM objectives, utility feedback), ``construct.py``
(score, select), ``text.py`` (sentences, content terms, passages), ``packing.py`` (compress,
pack), ``items.py`` / ``render.py`` (the data block), ``cache.py``, ``query_vectors.py``
(query vectors per embedder, for the process), ``context.py``
(MemoryContext and its trace), ``access.py`` (access statistics written in the background).
The optional LLM steps live with every other model call in ``prism_memory.llm.recall``.
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
