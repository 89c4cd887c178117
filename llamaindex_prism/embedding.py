"""``PrismEmbedding``: a PRISM embedder as a LlamaIndex ``BaseEmbedding``.

Design:
- A ``VectorStoreIndex`` next to PRISM should embed with the same offline model PRISM uses
  (``FastEmbedEmbedder``: all-MiniLM-L6-v2 int8, packaged, never downloaded), so one model is
  loaded once and serves both. This class only forwards calls; async ones run the sync call
  in a worker thread (ONNX inference releases the GIL).
"""

from __future__ import annotations

import asyncio
from typing import Any

from llama_index.core.base.embeddings.base import BaseEmbedding, Embedding
from llama_index.core.bridge.pydantic import Field

from prism_memory import ConfigError, Embedder, FastEmbedEmbedder, Memory

__all__ = ["PrismEmbedding"]


class PrismEmbedding(BaseEmbedding):
    """LlamaIndex embed model backed by a PRISM embedder (the offline MiniLM by default).

    Setup:
        .. code-block:: python

            from llama_index.core import Document, VectorStoreIndex
            from llamaindex_prism import PrismEmbedding

            embed_model = PrismEmbedding()                 # or PrismEmbedding(memory.embedder)

    Use:
        .. code-block:: python

            index = VectorStoreIndex.from_documents(docs, embed_model=embed_model)
            len(embed_model.get_query_embedding("window seat"))   # 384
    """

    embedder: Any = Field(exclude=True, description="The prism_memory Embedder doing the work.")

    def __init__(self, embedder: Any = None, **data: Any) -> None:
        if embedder is None:
            embedder = FastEmbedEmbedder()
        elif isinstance(embedder, Memory):
            embedder = embedder.embedder
        if not isinstance(embedder, Embedder):
            raise ConfigError(
                f"PrismEmbedding needs a prism_memory Embedder (e.g. FastEmbedEmbedder()) or a "
                f"Memory, got {type(embedder).__name__}"
            )
        data.setdefault("model_name", embedder.name)
        data.setdefault("embed_batch_size", 64)
        data["embedder"] = embedder
        super().__init__(**data)

    @classmethod
    def class_name(cls) -> str:
        return "PrismEmbedding"

    def _get_query_embedding(self, query: str) -> Embedding:
        return list(self.embedder.embed_query(query))

    async def _aget_query_embedding(self, query: str) -> Embedding:
        return await asyncio.to_thread(self._get_query_embedding, query)

    def _get_text_embedding(self, text: str) -> Embedding:
        return list(self.embedder.embed_documents([text])[0])

    def _get_text_embeddings(self, texts: list[str]) -> list[Embedding]:
        return [list(v) for v in self.embedder.embed_documents(list(texts))]

    async def _aget_text_embedding(self, text: str) -> Embedding:
        return await asyncio.to_thread(self._get_text_embedding, text)

    async def _aget_text_embeddings(self, texts: list[str]) -> list[Embedding]:
        return await asyncio.to_thread(self._get_text_embeddings, texts)
