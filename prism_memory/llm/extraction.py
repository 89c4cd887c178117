"""The LLM extractor: any LangChain chat model fills the registered schemas.

Design:
- One call per batch of user turns: a few-shot prompt that states the current date (the turn's
  ``event_time``, so "tomorrow" can be resolved), lists each schema's JSON Schema, and asks for
  ``{"items": [{"schema", "fields", "confidence", "importance"}]}``.
- The answer is parsed (code fences tolerated) and every item validated against its pydantic
  model. Invalid output gets one retry (``ExtractionConfig.llm_retries``) with the error shown to
  the model; then — as on any exception or timeout — the rule candidates are used with
  ``confidence`` lowered to ``fallback_confidence`` and the raw text kept as evidence.
- Nothing here raises into the agent's turn: :meth:`LLMExtractor.extract_turns` always returns.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from typing import Any

from ..config import ExtractionConfig
from ..errors import ExtractionError
from ..extraction.candidate import FactCandidate
from ..extraction.schemas import SchemaRegistry
from ..records import MemoryRecord
from .client import call_llm

__all__ = ["LLMExtractor", "build_prompt", "parse_items"]


_FEW_SHOT = """Example (current date 2024-05-08):
Turn: "My budget is 500 a night and I love seafood. Tomorrow I meet my sister Anna."
Answer: {"items": [
 {"schema": "Fact", "fields": {"attribute": "budget", "value": "500 per night", "amount": 500}, "confidence": 0.9, "importance": 0.8},
 {"schema": "Preference", "fields": {"subject": "seafood", "polarity": "like", "category": "food"}, "confidence": 0.9, "importance": 0.6},
 {"schema": "Person", "fields": {"name": "Anna", "relationship": "sister"}, "confidence": 0.9, "importance": 0.5},
 {"schema": "Event", "fields": {"description": "meets her sister Anna", "participants": ["Anna"], "when": "2024-05-09"}, "confidence": 0.8, "importance": 0.6}
]}
Turn: "ok thanks"
Answer: {"items": []}"""


def build_prompt(registry: SchemaRegistry, turns: Sequence[MemoryRecord]) -> list[tuple[str, str]]:
    """The chat messages sent to the model (system + user), as (role, text) pairs."""
    schemas = []
    for spec in registry.all():
        if spec.name == "TaskState":
            continue
        schema = spec.model.model_json_schema()
        schemas.append(
            f"- {spec.name}: {spec.description or ''} key fields {spec.key or 'none'}; "
            f"JSON Schema: {json.dumps(schema.get('properties', {}), ensure_ascii=False)}"
        )
    when = max((t.event_time or t.created_at) for t in turns)
    system = (
        "You extract long-term memories about the user from conversation turns into declared "
        "schemas. Only use these schemas and only facts the user states; resolve relative "
        f"dates against the current date {when.date().isoformat()} ({when.strftime('%A')}). "
        'Answer with JSON only: {"items": [{"schema": name, "fields": {...}, '
        '"confidence": 0-1, "importance": 0-1}]}.\nSchemas:\n'
        + "\n".join(schemas)
        + "\n\n"
        + _FEW_SHOT
    )
    user = "\n".join(f'Turn ({t.speaker or "user"}): "{t.text}"' for t in turns)
    return [("system", system), ("human", user)]


def parse_items(text: str, registry: SchemaRegistry) -> list[FactCandidate]:
    """Validated candidates from a model answer; raises :class:`ExtractionError` when invalid."""
    cleaned = re.sub(r"^```(?:json)?\s*|\s*```$", "", text.strip())
    try:
        data = json.loads(cleaned)
    except json.JSONDecodeError as exc:
        raise ExtractionError(f"the answer is not JSON ({exc.msg} at char {exc.pos})") from None
    items = data.get("items") if isinstance(data, dict) else data
    if not isinstance(items, list):
        raise ExtractionError('the answer must be {"items": [...]}')
    out: list[FactCandidate] = []
    for i, item in enumerate(items):
        if not isinstance(item, dict) or not isinstance(item.get("fields"), dict):
            raise ExtractionError(f"item {i} must be an object with 'schema' and 'fields'")
        name = str(item.get("schema", ""))
        if name not in registry or name == "TaskState":
            raise ExtractionError(f"item {i}: unknown schema {name!r}")
        spec = registry.get(name)
        try:
            spec.validate_fields(item["fields"])
        except Exception as exc:
            raise ExtractionError(f"item {i}: {exc}") from None
        conf, imp = item.get("confidence", 0.8), item.get("importance", 0.6)
        out.append(
            FactCandidate(
                name,
                dict(item["fields"]),
                confidence=float(conf)
                if isinstance(conf, (int, float)) and 0 <= conf <= 1
                else 0.8,
                importance=float(imp) if isinstance(imp, (int, float)) and 0 <= imp <= 1 else 0.6,
                extractor="llm",
            )
        )
    return out


class LLMExtractor:
    """Schema-constrained extraction with a LangChain chat model, falling back to rules.

    Example:
        >>> from langchain_core.language_models.fake_chat_models import FakeListChatModel
        >>> from prism_memory import Memory, FakeEmbedder
        >>> llm = FakeListChatModel(responses=['{"items": [{"schema": "Preference", '
        ...     '"fields": {"subject": "tea", "polarity": "like"}}]}'])
        >>> m = Memory(location=":memory:", embedder=FakeEmbedder(), llm=llm)
        >>> _ = m.remember("I drink tea every morning", user_id="a")
        >>> [r.text for r in m.list(user_id="a", kind="preference")]
        ['User likes tea']
        >>> m.close()
    """

    def __init__(self, llm: Any, registry: SchemaRegistry, config: ExtractionConfig) -> None:
        self.llm = llm
        self.registry = registry
        self.config = config

    def extract_turns(
        self,
        turns: Sequence[MemoryRecord],
        *,
        fallback: Callable[[Sequence[MemoryRecord]], list[FactCandidate]],
    ) -> list[FactCandidate]:
        """Candidates for the turns; on failure the rule candidates with lowered confidence."""
        if not turns:
            return []
        messages: list[Any] = list(build_prompt(self.registry, turns))
        source_ids = list(dict.fromkeys(i for t in turns for i in [*t.provenance.source_ids, t.id]))
        when = max((t.event_time or t.created_at) for t in turns)
        # what is stored names the failure, never the provider's message (it may echo the
        # prompt); call_llm logs the exception type only and never waits past the timeout
        error = "no answer"
        for _ in range(self.config.llm_retries + 1):
            answer = call_llm(
                self.llm, messages, self.config.llm_timeout_s, fallback="using rule extraction"
            )
            if answer is None:
                break  # a failure, a timeout or an empty answer is not fixed by asking again
            try:
                found = parse_items(answer, self.registry)
            except ExtractionError as exc:
                error = "invalid answer"
                messages = [
                    *messages,
                    ("ai", answer[:2000]),
                    (
                        "human",
                        f"That answer was invalid: {exc}. Answer again with valid JSON only.",
                    ),
                ]
                continue
            evidence = "\n".join(t.text for t in turns)[:500]
            for c in found:
                c.source_ids = source_ids
                c.event_time = when
                c.evidence = evidence
            return found
        fallback_items = fallback(turns)
        for c in fallback_items:
            c.confidence = min(c.confidence, self.config.fallback_confidence)
            c.extractor = f"rules (LLM fallback: {error})"
        return fallback_items
