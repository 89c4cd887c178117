"""Every name a package exports in ``__all__`` exists and is importable (httpx-style check)."""

from __future__ import annotations

import importlib

import pytest

PACKAGES = ["prism_memory", "langchain_prism", "llamaindex_prism"]


@pytest.mark.parametrize("package", PACKAGES)
def test_all_names_import(package: str) -> None:
    module = importlib.import_module(package)
    names = getattr(module, "__all__", None)
    assert isinstance(names, list) and names, f"{package} must declare a non-empty __all__"
    assert len(names) == len(set(names)), f"{package}.__all__ has duplicates"
    for name in names:
        assert hasattr(module, name), f"{package}.__all__ names {name!r}, which does not exist"
        exec(f"from {package} import {name}", {})


def test_prism_memory_core_surface() -> None:
    import prism_memory

    core = {
        "Memory",
        "MemoryRecord",
        "Layer",
        "Kind",
        "Scope",
        "Provenance",
        "Trust",
        "PrismError",
        "ScopeError",
        "StoreLockedError",
        "EmbeddingDimensionError",
        "EdgeStore",
        "QdrantStore",
        "FakeEmbedder",
        "FastEmbedEmbedder",
    }
    assert core <= set(prism_memory.__all__)
    assert isinstance(prism_memory.__version__, str)
