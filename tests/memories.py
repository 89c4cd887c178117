"""Memories for tests: the real embedded engine with a small fake embedder and no screen."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from prism_memory import FakeEmbedder, Memory
from prism_memory.config import PrismConfig, SafetyConfig


def open_memory(path: Path, **kwargs: Any) -> Memory:
    """A ``Memory`` on ``path`` with a 64-dimension fake embedder and the screen off (unless
    ``config=`` says otherwise); other keyword arguments go to ``Memory``."""
    config = kwargs.pop("config", None) or PrismConfig(safety=SafetyConfig(screen="off"))
    return Memory(path=path, embedder=FakeEmbedder(dim=64), config=config, **kwargs)
