"""The documented langchain-openai setup constructs offline (no request is made until use)."""

from __future__ import annotations

from langchain_openai import ChatOpenAI, OpenAIEmbeddings

from langchain_prism import PrismRetriever
from prism_memory import Memory
from prism_memory.embeddings import LangChainEmbedder


def test_openai_chat_model_and_embeddings_wire_into_memory() -> None:
    llm = ChatOpenAI(model="gpt-4o-mini", api_key="sk-test-not-used")  # type: ignore[arg-type]
    embeddings = OpenAIEmbeddings(model="text-embedding-3-small", api_key="sk-test-not-used")  # type: ignore[arg-type]
    memory = Memory(location=":memory:", llm=llm, embedder=LangChainEmbedder(embeddings, dim=1536))
    try:
        assert memory.llm is llm
        assert memory.embedder.dim == 1536
        retriever = PrismRetriever(memory, user_id="alice")
        assert retriever.memory is memory
    finally:
        memory.close()
