"""Recall's sentence analysis is computed when a record is written, not on the first recall."""

from __future__ import annotations

from pathlib import Path

from prism_memory import FakeEmbedder, Memory


def test_a_written_turn_is_analysed_as_it_is_written(tmp_path: Path) -> None:
    """Recall's sentence analysis of a new turn is done by the write, not the first recall."""
    from prism_memory.retrieval.text import analysed

    text = "We drove to Porto on Friday. The bridge at night was lovely! Then we ate bacalhau."
    with Memory(path=tmp_path / "s", embedder=FakeEmbedder()) as m:
        m.remember(text, user_id="u", session_id="s1")
        before = analysed.cache_info()
        analysed(text)
        assert analysed.cache_info().hits == before.hits + 1
