"""LlamaIndex adapters for PRISM memory.

Every adapter takes the ``prism_memory.Memory`` first (also as ``memory=``) and the scope as
``user_id=`` / ``agent_id=`` / ``session_id=``; everything else has a default.

- :class:`PrismMemory` - ``BaseMemory`` for chat engines and agents.
- :class:`PrismMemoryBlock` - long-term block for ``llama_index.core.memory.Memory``.
- :class:`PrismRetriever` - PRISM recall as a ``BaseRetriever``.
- :class:`PrismNodePostprocessor` - selective construction on nodes from any retriever.
- :class:`PrismEmbedding` - PRISM's offline embedder as a LlamaIndex embed model.
"""

from __future__ import annotations

try:
    import llama_index.core  # noqa: F401  (the guard: every adapter here builds on it)
except ImportError as exc:
    raise ImportError(
        "llamaindex_prism needs llama-index-core: pip install 'prism-memory[llamaindex]'"
    ) from exc

from .embedding import PrismEmbedding
from .memory import PrismMemory
from .memory_block import PrismMemoryBlock
from .postprocessor import ConstructResult, PrismNodePostprocessor
from .retriever import PrismRetriever

__all__ = [
    "ConstructResult",
    "PrismEmbedding",
    "PrismMemory",
    "PrismMemoryBlock",
    "PrismNodePostprocessor",
    "PrismRetriever",
]
