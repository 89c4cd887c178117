"""Schema-constrained extraction (SCG): the schema registry, the rule-based extractor (default,
no LLM), the LLM extractor (any LangChain chat model) and reconciliation per field policy."""

from __future__ import annotations

from .schemas import Event, Fact, Person, Preference, SchemaRegistry, SchemaSpec

__all__ = [
    "Event",
    "Fact",
    "Person",
    "Preference",
    "SchemaRegistry",
    "SchemaSpec",
]
