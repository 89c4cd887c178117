"""Optional LLM steps of recall, with scripted fake chat models: success and every fallback."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel

from prism_memory import FakeEmbedder, Memory, RetrievalConfig
from prism_memory.config import PrismConfig


class Broken(FakeListChatModel):
    def invoke(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("provider down")


_RELEASE = threading.Event()


class Slow(FakeListChatModel):
    """Answers only after the test is over (or 60 s): later than any timeout, however loaded
    the machine (a fixed sleep only beats a timeout by a ratio the scheduler may not keep)."""

    def invoke(self, *args: Any, **kwargs: Any) -> Any:
        _RELEASE.wait(60)
        return super().invoke(*args, **kwargs)


@pytest.fixture(autouse=True)
def _release_slow_models() -> Iterator[None]:
    _RELEASE.clear()
    yield
    _RELEASE.set()


def memory(tmp_path: Path, llm: Any, **knobs: Any) -> Memory:
    cfg = PrismConfig(retrieval=RetrievalConfig(**knobs))
    m = Memory(path=tmp_path / "s", embedder=FakeEmbedder(), llm=llm, config=cfg)
    m.add("My hotel budget is $220 per night", user_id="u")
    m.add("I rejected Hotel Marina, too expensive", user_id="u")
    return m


@pytest.fixture
def llm_ok() -> Iterator[FakeListChatModel]:
    yield FakeListChatModel(responses=["Budget: $220/night; Hotel Marina rejected (price)."])


def test_llm_compression_replaces_the_extractive_text(tmp_path: Path, llm_ok: Any) -> None:
    with memory(tmp_path, llm_ok, llm_compression="summarize") as m:
        ctx = m.recall("hotel budget?", user_id="u", budget_tokens=300)
        assert "Budget: $220/night" in ctx.text
        assert ctx.text.startswith("<memories") and ctx.text.endswith("</memories>")
        assert ctx.trace.compression == "llm:summarize"
        assert ctx.records  # the records the summary was made from


@pytest.mark.parametrize("model", [Broken(responses=["x"]), Slow(responses=["late"])])
def test_llm_errors_and_timeouts_fall_back_to_extractive(tmp_path: Path, model: Any) -> None:
    with memory(tmp_path, model, llm_compression="auto", llm_timeout_s=0.1) as m:
        ctx = m.recall("hotel budget?", user_id="u", budget_tokens=300)
        assert "$220" in ctx.text and "late" not in ctx.text
        assert ctx.trace.compression.startswith("extractive")


def test_llm_output_over_budget_is_rejected(tmp_path: Path) -> None:
    wordy = FakeListChatModel(responses=["budget " * 400])
    with memory(tmp_path, wordy, llm_compression="summarize") as m:
        ctx = m.recall("hotel budget?", user_id="u", budget_tokens=120)
        assert ctx.tokens <= 120 and "$220" in ctx.text


def test_llm_intent_parser_and_invalid_output(tmp_path: Path) -> None:
    good = FakeListChatModel(
        responses=[
            '{"kinds": ["fact"], "entities": ["Hotel Marina"], "speakers": [],'
            ' "time_start": null, "time_end": null, "recency": true}'
        ]
    )
    with memory(tmp_path, good, llm_intent=True) as m:
        ctx = m.recall("what about that hotel?", user_id="u")
        assert ctx.trace.intent["entities"] == ["hotel marina"]
        assert "llm" in ctx.trace.intent["sources"] and ctx.trace.intent["recency"]
    bad = FakeListChatModel(responses=["I think you mean the hotel"])
    with memory(tmp_path / "b", bad, llm_intent=True) as m:
        ctx = m.recall("what about that hotel?", user_id="u")
        assert ctx.trace.intent["sources"] == ["rules"] and "$220" in ctx.text
