"""``ReadAPI``: the read path of :class:`~prism_memory.Memory` (intent-aware recall, feedback)."""

from __future__ import annotations

from ._core import MemoryCore

__all__ = ["ReadAPI"]


class ReadAPI(MemoryCore):
    """recall / feedback / register_intent."""

    def _setup(self) -> None:
        super()._setup()
