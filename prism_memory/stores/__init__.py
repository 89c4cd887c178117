"""Storage engines behind one :class:`MemoryStore` protocol."""

from __future__ import annotations

from .base import MemoryStore, PointData, RouteHit, RouteQuery, StoreBase
from .edge import EdgeStore
from .filters import Condition, RecordFilter, parse_filters
from .qdrant import QdrantStore

__all__ = [
    "Condition",
    "EdgeStore",
    "MemoryStore",
    "PointData",
    "QdrantStore",
    "RecordFilter",
    "RouteHit",
    "RouteQuery",
    "StoreBase",
    "parse_filters",
]
