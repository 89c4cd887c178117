"""The LLM extractor: any LangChain chat model fills the registered schemas.

Design:
- One call per batch of user turns: a few-shot prompt that states the current date (the turn's
  ``event_time``, so "tomorrow" can be resolved), lists each schema's JSON Schema, and asks for
  ``{"items": [{"schema", "fields", "confidence", "importance"}]}``.
- The answer is parsed (code fences tolerated) and every item validated against its pydantic
  model. Invalid output gets one retry (``ExtractionConfig.llm_retries``) with the error shown to
  the model; then — as on any exception or timeout — the rule candidates are used with
  ``confidence`` lowered to ``fallback_confidence`` and the raw text kept as evidence.
- Relationship links: an item may carry ``"links": [{"type": T, "item": j}]`` (another item
  of the same answer) or ``{"type": T, "turn": i}`` (a turn of the prompt, numbered there),
  read "this item <T> the target"; ``T`` is one of :data:`~prism_memory.links.LINK_TYPES`
  (``caused_by``, ``before``, ``after``, ``contradicts``). A link of an unknown type, to an
  index that does not exist or to the item itself is dropped and counted
  (:attr:`ParsedAnswer.dropped_links`), never an error: the items are what matters, a link is
  extra. The write path turns them into stored ``relations`` (``layers/relations.py``).
- Nothing here raises into the agent's turn: :meth:`LLMExtractor.extract_turns` always returns.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..config import ExtractionConfig
from ..errors import ExtractionError
from ..extraction.candidate import CandidateLink, FactCandidate
from ..extraction.schemas import SchemaRegistry
from ..links import LINK_TYPES
from ..records import MemoryRecord
from .client import call_llm

__all__ = ["LLMExtractor", "ParsedAnswer", "build_prompt", "parse_answer", "parse_items"]


_FEW_SHOT = """Example (current date 2024-05-08):
Turn 0 (user): "My budget is 500 a night and I love seafood. Tomorrow I meet my sister Anna."
Answer: {"items": [
 {"schema": "Fact", "fields": {"attribute": "budget", "value": "500 per night", "amount": 500}, "confidence": 0.9, "importance": 0.8},
 {"schema": "Preference", "fields": {"subject": "seafood", "polarity": "like", "category": "food"}, "confidence": 0.9, "importance": 0.6},
 {"schema": "Person", "fields": {"name": "Anna", "relationship": "sister"}, "confidence": 0.9, "importance": 0.5},
 {"schema": "Event", "fields": {"description": "meets her sister Anna", "participants": ["Anna"], "when": "2024-05-09"}, "confidence": 0.8, "importance": 0.6}
]}
Turn 0 (user): "The train was late, so I missed my flight to Oslo."
Answer: {"items": [
 {"schema": "Event", "fields": {"description": "the train was late", "when": "2024-05-08"}, "confidence": 0.9, "importance": 0.4},
 {"schema": "Event", "fields": {"description": "missed the flight to Oslo", "when": "2024-05-08"}, "confidence": 0.9, "importance": 0.7,
  "links": [{"type": "caused_by", "item": 0}, {"type": "after", "item": 0}]}
]}
Turn 0 (user): "ok thanks"
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
        '"confidence": 0-1, "importance": 0-1, "links": [...]}]}. "links" is optional: '
        '{"type": T, "item": j} relates the item to item j of your answer, {"type": T, '
        '"turn": i} to turn i below; T is one of ' + ", ".join(LINK_TYPES) + " (this item "
        "was caused by / happened before / happened after / contradicts the target); state "
        "a link only when the turns say it.\nSchemas:\n" + "\n".join(schemas) + "\n\n" + _FEW_SHOT
    )
    user = "\n".join(f'Turn {i} ({t.speaker or "user"}): "{t.text}"' for i, t in enumerate(turns))
    return [("system", system), ("human", user)]


@dataclass
class ParsedAnswer:
    """A model answer read: the validated candidates (their ``links`` resolved to the other
    candidates and to the ids of the turns shown) and how many links were dropped, by reason
    (``unknown_type``, ``dangling``: no such item or turn, ``self``: the item itself).

    >>> a = parse_answer('{"items": []}', SchemaRegistry())
    >>> a.candidates, a.dropped_links
    ([], {})
    """

    candidates: list[FactCandidate]
    dropped_links: dict[str, int] = field(default_factory=dict)


def _candidate(i: int, item: object, registry: SchemaRegistry) -> FactCandidate:
    """Item ``i`` of an answer validated against its schema (:class:`ExtractionError` if not)."""
    if not isinstance(item, dict) or not isinstance(item.get("fields"), dict):
        raise ExtractionError(f"item {i} must be an object with 'schema' and 'fields'")
    name = str(item.get("schema", ""))
    if name not in registry or name == "TaskState":
        raise ExtractionError(f"item {i}: unknown schema {name!r}")
    try:
        registry.get(name).validate_fields(item["fields"])
    except Exception as exc:
        raise ExtractionError(f"item {i}: {exc}") from None
    conf, imp = item.get("confidence", 0.8), item.get("importance", 0.6)
    return FactCandidate(
        name,
        dict(item["fields"]),
        confidence=float(conf) if isinstance(conf, (int, float)) and 0 <= conf <= 1 else 0.8,
        importance=float(imp) if isinstance(imp, (int, float)) and 0 <= imp <= 1 else 0.6,
        extractor="llm",
    )


def _index(value: object, size: int) -> int | None:
    """``value`` as an index below ``size`` (an int, or a string of ASCII digits), else None.

    >>> _index(1, 3), _index(" 2 ", 3), _index("⁰", 3), _index("٣", 9), _index(True, 3)
    (1, 2, None, None, None)
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        digits = value.strip()
        if not (digits.isascii() and digits.isdigit() and len(digits) <= 9):
            return None
        value = int(digits)
    return value if isinstance(value, int) and 0 <= value < size else None


def _links(
    i: int,
    raw: object,
    found: Sequence[FactCandidate],
    turn_ids: Sequence[str],
    dropped: Counter[str],
) -> list[CandidateLink]:
    """The links item ``i`` stated (``raw``), resolved to candidates and turn ids; what does
    not resolve is counted in ``dropped`` by reason."""
    out: list[CandidateLink] = []
    for link in raw if isinstance(raw, list) else [raw] if raw is not None else []:
        kind = link.get("type") if isinstance(link, dict) else None
        if not isinstance(kind, str) or kind.strip().lower() not in LINK_TYPES:
            dropped["unknown_type"] += 1
            continue
        kind = kind.strip().lower()
        assert isinstance(link, dict)
        if "item" in link:
            j = _index(link["item"], len(found))
            if j == i:
                dropped["self"] += 1
            elif j is None:
                dropped["dangling"] += 1
            else:
                out.append(CandidateLink(kind, item=found[j]))
            continue
        t = _index(link.get("turn"), len(turn_ids))
        if t is None:
            dropped["dangling"] += 1
        else:
            out.append(CandidateLink(kind, record_id=turn_ids[t]))
    return out


def parse_answer(text: str, registry: SchemaRegistry, turn_ids: Sequence[str] = ()) -> ParsedAnswer:
    """Validated candidates and their links from a model answer (``turn_ids``: the ids of the
    turns the prompt numbered); raises :class:`ExtractionError` when an item is invalid, never
    for a bad link (dropped and counted).

    >>> a = parse_answer('{"items": [{"schema": "Event", "fields": {"description": "rain"}},'
    ...     ' {"schema": "Event", "fields": {"description": "hike cancelled"},'
    ...     ' "links": [{"type": "caused_by", "item": 0}, {"type": "rhymes_with", "item": 0}]}]}',
    ...     SchemaRegistry())
    >>> [(l.type, l.item.fields["description"]) for l in a.candidates[1].links], a.dropped_links
    ([('caused_by', 'rain')], {'unknown_type': 1})
    """
    cleaned = re.sub(r"^```(?:json)?\s*|\s*```$", "", text.strip())
    try:
        data = json.loads(cleaned)
    except json.JSONDecodeError as exc:
        raise ExtractionError(f"the answer is not JSON ({exc.msg} at char {exc.pos})") from None
    except (ValueError, RecursionError) as exc:  # an integer of 4,300+ digits, deep nesting
        raise ExtractionError(f"the answer is not usable JSON ({exc})") from None
    items = data.get("items") if isinstance(data, dict) else data
    if not isinstance(items, list):
        raise ExtractionError('the answer must be {"items": [...]}')
    found = [_candidate(i, item, registry) for i, item in enumerate(items)]
    dropped: Counter[str] = Counter()
    for i, (item, cand) in enumerate(zip(items, found)):
        cand.links = _links(i, item.get("links"), found, turn_ids, dropped)
    return ParsedAnswer(found, dict(sorted(dropped.items())))


def parse_items(text: str, registry: SchemaRegistry) -> list[FactCandidate]:
    """Validated candidates from a model answer (:func:`parse_answer` without the turns);
    raises :class:`ExtractionError` when invalid."""
    return parse_answer(text, registry).candidates


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
        return self.extract(turns, fallback=fallback).candidates

    def extract(
        self,
        turns: Sequence[MemoryRecord],
        *,
        fallback: Callable[[Sequence[MemoryRecord]], list[FactCandidate]],
    ) -> ParsedAnswer:
        """:meth:`extract_turns` with the links the answer stated and the count of those
        dropped (:class:`ParsedAnswer`)."""
        if not turns:
            return ParsedAnswer([])
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
                parsed = parse_answer(answer, self.registry, [t.id for t in turns])
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
            for c in parsed.candidates:
                c.source_ids = source_ids
                c.event_time = when
                c.evidence = evidence
            return parsed
        fallback_items = fallback(turns)
        for c in fallback_items:
            c.confidence = min(c.confidence, self.config.fallback_confidence)
            c.extractor = f"rules (LLM fallback: {error})"
        return ParsedAnswer(fallback_items)
