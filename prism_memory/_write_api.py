"""``WriteAPI``: the write path of :class:`~prism_memory.Memory` (remember, layers, lifecycle)."""

from __future__ import annotations

from ._core import MemoryCore

__all__ = ["WriteAPI"]


class WriteAPI(MemoryCore):
    """remember / buffer / end_session / task / register_schema / consolidate / forget."""

    def _setup(self) -> None:
        super()._setup()
