"""The LLM extractor with scripted fake chat models: valid, invalid and failing answers."""

from __future__ import annotations

import itertools
import json
import logging
import threading
import time
from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel

from prism_memory import ExtractionError, FakeEmbedder, Memory, PrismConfig
from prism_memory.config import ExtractionConfig
from prism_memory.extraction.schemas import SchemaRegistry
from prism_memory.llm.extraction import build_prompt, parse_items
from prism_memory.records import MemoryRecord

_users = itertools.count()


class RaisingChatModel(FakeListChatModel):
    """A chat model whose every call fails (a provider outage)."""

    calls: int = 0

    def _call(self, *args: Any, **kwargs: Any) -> str:
        self.calls += 1
        raise RuntimeError("provider unavailable")


def _answer(*items: dict[str, Any]) -> str:
    return json.dumps({"items": list(items)})


PREF_TEA = {
    "schema": "Preference",
    "fields": {"subject": "green tea", "polarity": "like"},
    "confidence": 0.9,
}


def _memory(llm: Any) -> Memory:
    return Memory(location=":memory:", embedder=FakeEmbedder(dim=32), llm=llm)


def test_valid_answer_is_validated_and_written() -> None:
    llm = FakeListChatModel(responses=["```json\n" + _answer(PREF_TEA) + "\n```"])
    m = _memory(llm)
    user = f"u{next(_users)}"
    res = m.remember(
        [{"content": "green tea every morning", "id": "t1"}], user_id=user, session_id="s"
    )
    (pref,) = m.list(user_id=user, kind="preference")
    assert pref.fields["subject"] == "green tea" and pref.confidence == 0.9
    assert pref.metadata["extractor"] == "llm" and "t1" in pref.provenance.source_ids
    assert any(c.record.id == pref.id for c in res.added)
    m.close()


def test_invalid_then_valid_answer_uses_the_retry() -> None:
    llm = FakeListChatModel(responses=["not json at all", _answer(PREF_TEA)])
    m = _memory(llm)
    m.remember("I drink green tea", user_id="u", session_id="s")
    assert [r.fields["subject"] for r in m.list(user_id="u", kind="preference")] == ["green tea"]
    m.close()


def test_invalid_answers_fall_back_to_rules_with_low_confidence() -> None:
    bad = json.dumps({"items": [{"schema": "Preference", "fields": {"polarity": "like"}}]})
    m = _memory(FakeListChatModel(responses=[bad, "{oops"]))
    res = m.remember("I love seafood", user_id="u", session_id="s")
    (pref,) = m.list(user_id="u", kind="preference")
    assert pref.fields["subject"] == "seafood"
    assert pref.confidence == m.config.extraction.fallback_confidence
    assert pref.metadata["extractor"].startswith("rules (LLM fallback")
    assert pref.metadata["evidence"] == "I love seafood"  # the raw text is kept
    assert res.added
    m.close()


def test_a_raising_model_never_breaks_the_write() -> None:
    llm = RaisingChatModel(responses=["unused"])
    m = _memory(llm)
    res = m.remember("My budget is 500 a night", user_id="u", session_id="s")
    assert [c.reason for c in res.added if c.record.layer.value == "buffer"] == ["buffered turn"]
    (fact,) = m.list(user_id="u", kind="fact")
    assert fact.fields["amount"] == 500.0 and fact.confidence == 0.4
    assert llm.calls == 1  # an exception is not retried with the same prompt
    m.close()


SECRET = "provider echo: the user's passport number is X123"


class EchoingChatModel(FakeListChatModel):
    """A provider whose error message echoes the prompt."""

    def _call(self, *args: Any, **kwargs: Any) -> str:
        raise RuntimeError(SECRET)


class HangingChatModel(FakeListChatModel):
    """A provider that does not answer until ``release`` is set."""

    release: Any = None

    def _call(self, *args: Any, **kwargs: Any) -> str:
        self.release.wait()
        return _answer(PREF_TEA)


def test_a_hung_model_is_abandoned_at_the_timeout() -> None:
    release = threading.Event()
    llm = HangingChatModel(responses=["unused"], release=release)
    cfg = PrismConfig(extraction=ExtractionConfig(llm_timeout_s=0.5))
    m = Memory(location=":memory:", embedder=FakeEmbedder(dim=32), llm=llm, config=cfg)
    watchdog = threading.Timer(10.0, release.set)  # frees a blocked write if the timeout fails
    watchdog.start()
    try:
        started = time.monotonic()
        m.remember("I love seafood", user_id="u", session_id="s")
        elapsed = time.monotonic() - started
    finally:
        release.set()
        watchdog.cancel()
    assert elapsed < 0.5 + 3.0  # the timeout, plus slack for a loaded machine
    (pref,) = m.list(user_id="u", kind="preference")
    assert pref.fields["subject"] == "seafood"  # the rule fallback
    assert pref.metadata["extractor"] == "rules (LLM fallback: no answer)"
    m.close()


def test_the_providers_message_is_neither_logged_nor_stored(
    caplog: pytest.LogCaptureFixture,
) -> None:
    m = _memory(EchoingChatModel(responses=["unused"]))
    with caplog.at_level(logging.DEBUG, logger="prism_memory"):
        m.remember("I love seafood", user_id="u", session_id="s")
    (pref,) = m.list(user_id="u", kind="preference")
    assert "passport" not in json.dumps(pref.metadata) + pref.text
    assert "RuntimeError" in caplog.text and "passport" not in caplog.text
    m.close()


def test_background_llm_extraction_finishes_on_flush() -> None:
    m = Memory(
        location=":memory:",
        embedder=FakeEmbedder(dim=32),
        llm=FakeListChatModel(responses=[_answer(PREF_TEA)]),
        background=True,
    )
    res = m.remember("tea please", user_id="u", session_id="s")
    assert [c.reason for c in res.added] == ["buffered turn"]  # returned before extraction
    m.flush()
    assert [r.fields["subject"] for r in m.list(user_id="u", kind="preference")] == ["green tea"]
    m.close()


def test_parse_items_errors_name_the_problem() -> None:
    reg = SchemaRegistry()
    with pytest.raises(ExtractionError, match="not JSON"):
        parse_items("{", reg)
    with pytest.raises(ExtractionError, match="unknown schema"):
        parse_items(_answer({"schema": "Poem", "fields": {}}), reg)
    with pytest.raises(ExtractionError, match="item 0"):
        parse_items(_answer({"schema": "Fact", "fields": {"value": 3}}), reg)
    with pytest.raises(ExtractionError, match="items"):
        parse_items('{"foo": 1}', reg)


def test_prompt_states_the_date_and_every_schema() -> None:
    turn = MemoryRecord(text="see you tomorrow", user_id="u", event_time="2024-05-08T10:00:00Z")
    system, human = build_prompt(SchemaRegistry(), [turn])
    assert "2024-05-08" in system[1] and "Wednesday" in system[1]
    for name in ("Preference", "Fact", "Person", "Event"):
        assert name in system[1]
    assert "TaskState" not in system[1] and "see you tomorrow" in human[1]
