"""Stage 2 (LazyMem "construct selectively"), second half: compress and pack into a budget.

Design:
- Input: what ``construct.select`` kept, best first (:class:`~.construct.Scored`).
- Compress below the record (``text.compress_text``, opt-in): a long turn keeps only the
  sentences that share words with the query (its id, hence its source turn, is kept), joined
  with an ellipsis; ``drop_filler`` removes only sentences that carry no fact.
- A long raw turn competes as its passage (the sentences that serve the query, query terms
  weighed by their rarity in the pool) at its full score; after packing, the whole turn
  replaces the passage when the budget still has room for it.
- Pack greedily by score into ``budget_tokens`` (:func:`place`, pure): each section first
  within its soft share of the budget, then the rest by score; a group's date header is
  priced once; a derived record (fact, event) whose source turns are all shown is left out.
  The exact count of the rendered text is checked at the end and the weakest items dropped
  until it fits, so ``tokens <= budget`` always holds.
- :func:`pack` reads as those stages: items shown, priced, placed, passages upgraded,
  trimmed.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, replace
from functools import lru_cache

from ..config import RetrievalConfig
from ..records import Kind, Layer, MemoryRecord, is_record_id
from ..tokens import count_tokens
from .construct import Scored
from .context import ContextItem
from .render import BLOCK_CLOSE, BLOCK_OPEN, SECTION_TITLES, escape, group_key, item_line, render
from .text import NO_LIMIT, answer_kind, compress_text, content_terms, text_terms

__all__ = ["carry_dates", "pack", "place"]

#: tokens the line-by-line estimate of a rendered context may be off by (joins, headers)
_UPGRADE_SLACK = 4
#: long turns (the best by score) that compete as their passage in one packing
_PASSAGES = 24


@lru_cache(maxsize=32768)
def _tokens(text: str) -> int:
    """cl100k count of a rendered line or header (memoised: the same memories recur)."""
    return count_tokens(text)


def carry_dates(derived: MemoryRecord, turn: MemoryRecord) -> None:
    """A turn shown instead of the event extracted from it keeps the event's resolved date
    ("yesterday" -> 7 May 2023): one line, the turn's words and the absolute date."""
    when = derived.fields.get("when") if derived.kind == Kind.EVENT else None
    if isinstance(when, str) and when:
        dates = turn.metadata.setdefault("_dates", [])
        if when not in dates:
            dates.append(when)


def _shown(s: Scored, terms: set[str], config: RetrievalConfig) -> tuple[str, bool]:
    text = s.record.text
    if (
        config.compress_sentences
        and s.section in ("episodic", "buffer")
        and _tokens(text) > config.compress_min_tokens
    ):
        return compress_text(text, terms, config.compress_keep_tokens)
    if config.drop_filler and s.section in ("episodic", "buffer"):
        return compress_text(text, terms, NO_LIMIT)  # filler sentences only
    return text, False


def _passage(
    item: ContextItem,
    terms: set[str],
    keep_tokens: int,
    weights: Mapping[str, float],
    asks: str | None = None,
) -> ContextItem | None:
    """The part of a long original text that serves the query (its sentences sharing the
    rarest query terms, within ``keep_tokens``): a turn, or a document or note given to
    ``add``. None for task state, for a record derived from others (a summary earns its space
    whole or not at all) and for a single sentence."""
    if item.section == "working" or _derived_sources(item.record):
        return None
    if item.record.kind in (Kind.SUMMARY, Kind.REFLECTION):
        return None
    shown, compressed = compress_text(item.shown, terms, keep_tokens, weights, asks)
    if not compressed:
        return None
    return replace(item, shown=shown, compressed=True)


def _pool_idf(terms: set[str], texts: Sequence[str]) -> dict[str, float]:
    """``log((N + 1) / (df + 0.5))`` of each query term over ``texts`` (smoothed, positive).

    >>> w = _pool_idf({"shop", "milksh"}, ["a shop", "the shop", "giant milkshakes"])
    >>> w["milksh"] > w["shop"] > 0
    True
    """
    n = len(texts)
    df = dict.fromkeys(terms, 0)
    for text in texts:
        for t in text_terms(text) & terms:
            df[t] += 1
    return {t: math.log((n + 1) / (d + 0.5)) for t, d in df.items()}


def _turn_keys(record: MemoryRecord) -> frozenset[str]:
    """What a raw turn stands for (its id and message ids); empty for a derived record."""
    if record.layer not in (Layer.EPISODIC, Layer.BUFFER) or record.kind != Kind.OBSERVATION:
        return frozenset()
    return frozenset([record.id, *record.provenance.source_ids])


def _derived_sources(record: MemoryRecord) -> frozenset[str]:
    """The sources of a record derived from stored turns (a fact, an extracted event, a
    summary); empty for a turn or anything else. A derived record whose turns are all in the
    context says nothing new: one turn appears once."""
    ids = record.provenance.source_ids
    derived = record.layer == Layer.SEMANTIC or (
        record.layer == Layer.EPISODIC and record.kind != Kind.OBSERVATION
    )
    if not derived or not any(is_record_id(i) for i in ids):
        return frozenset()
    return frozenset(ids)


def place(
    order: Sequence[int],
    line_tokens: Sequence[int],
    budget_tokens: int,
    *,
    sections: Sequence[str] | None = None,
    headers: Sequence[Sequence[tuple[str, int]]] | None = None,
    raw_keys: Sequence[frozenset[str]] | None = None,
    sources: Sequence[frozenset[str]] | None = None,
    excluded: AbstractSet[int] = frozenset(),
    frame: int = 0,
    split: Mapping[str, float] | None = None,
) -> list[int]:
    """Greedy placement by priority (``order``): section caps first, then the rest of the
    budget. What does not fit is skipped; a later, smaller item may still fit.

    ``line_tokens`` is each item's own cost; ``headers`` its ``(key, tokens)`` headers
    (section title, date group), priced with the first item that needs them; a derived item
    (``sources``, a fact or event) whose source turns (``raw_keys``) are all placed already is
    skipped as redundant. Without ``split`` there are no section caps.

    >>> place([0, 1, 2], [50, 80, 20], 75)
    [0, 2]
    """
    used = frame
    used_by_section: dict[str, int] = {}
    seen_headers: set[str] = set()
    placed: list[int] = []
    taken: set[int] = set()
    shown: set[str] = set()
    for capped in (True, False) if split else (False,):
        for idx in order:
            if idx in taken or idx in excluded:
                continue
            if sources is not None and sources[idx] and sources[idx] <= shown:
                continue
            cost = line_tokens[idx]
            new_headers = []
            for key, header_tokens in headers[idx] if headers is not None else ():
                if key not in seen_headers:
                    new_headers.append(key)
                    cost += header_tokens
            if used + cost > budget_tokens:
                continue
            section = sections[idx] if sections is not None else ""
            if (
                capped
                and split is not None
                and used_by_section.get(section, 0) + cost > split.get(section, 0.0) * budget_tokens
            ):
                continue
            taken.add(idx)
            placed.append(idx)
            seen_headers.update(new_headers)
            if raw_keys is not None:
                shown |= raw_keys[idx]
            used += cost
            used_by_section[section] = used_by_section.get(section, 0) + cost
    return placed


def _headers(item: ContextItem) -> list[tuple[str, int]]:
    """The headers a rendered item needs: its section title and its date group, if any."""
    out = [(item.section, _tokens(SECTION_TITLES[item.section]) + 1)]
    key = group_key(item)
    if key is not None:
        out.append(("g:" + key, _tokens(f"[{key}]") + 1))
    return out


def pack(
    selected: Sequence[Scored],
    *,
    query: str,
    budget_tokens: int,
    config: RetrievalConfig,
    split: Mapping[str, float] | None = None,
) -> tuple[list[ContextItem], str, int]:
    """Greedy, section-aware packing into the budget. Returns ``(items, text, tokens)``.

    Stages: each selected memory as it would be shown (:func:`_items_shown`); each priced as
    its rendered line, a long turn competing as its passage (:func:`_priced`); placed by
    priority, derived items whose turns are shown left out (:func:`_placed`); a placed
    passage grown back to its whole turn where the budget still has room
    (:func:`_upgrade_passages`); the weakest dropped until the exact count fits
    (:func:`_trim`)."""
    frame = _tokens(BLOCK_OPEN) + _tokens(BLOCK_CLOSE) + 1
    if budget_tokens <= frame or not selected:
        return [], "", 0
    terms = content_terms(query)
    lines = _priced(_items_shown(selected, terms, config), terms, query, config)
    placed = _placed(lines, budget_tokens, frame, split or config.budget_split, config)
    items = [lines.items[i] for i in placed]
    text = render(items)
    packed = _upgrade_passages(lines, placed, (items, text, count_tokens(text)), budget_tokens)
    items, text, tokens = _trim(*packed, budget_tokens)
    if not items:
        return [], "", 0
    return items, text, tokens


@dataclass
class _Lines:
    """The items competing for the budget, each with the tokens of its rendered line;
    ``whole`` maps an item shown as its passage to the whole turn it stands for."""

    items: list[ContextItem]
    tokens: list[int]
    whole: dict[int, ContextItem]


def _items_shown(
    selected: Sequence[Scored], terms: set[str], config: RetrievalConfig
) -> list[ContextItem]:
    """Each selected memory as a context item (compressed if configured); an event and its
    turn both eligible: the turn line carries the event's date."""
    candidates = []
    for s in selected:
        shown, compressed = _shown(s, terms, config)
        candidates.append(
            ContextItem(
                s.record,
                s.section,
                shown,
                score=s.total,
                routes=s.routes,
                compressed=compressed,
                neighbour_of=s.neighbour_of,
            )
        )
    by_id = {c.record.id: c.record for c in candidates}
    for c in candidates:
        for source in c.record.provenance.source_ids:
            turn = by_id.get(source)
            if turn is not None and turn.kind == Kind.OBSERVATION and c.record.kind == Kind.EVENT:
                carry_dates(c.record, turn)
    return candidates


def _priced(
    candidates: list[ContextItem], terms: set[str], query: str, config: RetrievalConfig
) -> _Lines:
    """The line cost of each item; a long raw turn competes as its passage (the query's
    sentences) at its full score, and the whole turn is kept to replace it after packing."""
    # a cl100k token never spans two words: a text of more words than ``long_item_tokens``
    # is long without being tokenised (its whole line is priced only if it is ever shown)
    surely_long = {
        i
        for i, item in enumerate(candidates)
        if not item.compressed and len(item.shown.split()) > config.long_item_tokens
    }
    line_tokens = [
        0 if i in surely_long else _tokens(item_line(item)) + 1 for i, item in enumerate(candidates)
    ]
    whole: dict[int, ContextItem] = {}
    long_items = [
        i
        for i, item in enumerate(candidates)
        if i in surely_long or (line_tokens[i] > config.long_item_tokens and not item.compressed)
    ]
    # the best ones only: a long turn ranked below these would not be placed before the
    # budget is spent either way, and each passage costs a sentence split
    # a query term weighs by its rarity among the candidates (inverse document frequency over
    # the pool): "milkshakes" picks the sentence, "shop" and the trip's city do not
    weights = _pool_idf(terms, [c.record.text for c in candidates]) if long_items else {}
    asks = answer_kind(query) if long_items else None
    for i in sorted(long_items, key=lambda i: -candidates[i].score)[:_PASSAGES]:
        passage = _passage(candidates[i], terms, config.passage_tokens, weights, asks)
        if passage is not None:
            whole[i] = candidates[i]
            candidates[i] = passage
            line_tokens[i] = _tokens(item_line(passage)) + 1
    for i in surely_long:
        if i not in whole:  # no passage (a summary, one long sentence): priced whole
            line_tokens[i] = _tokens(item_line(candidates[i])) + 1
    return _Lines(candidates, line_tokens, whole)


def _placed(
    lines: _Lines,
    budget_tokens: int,
    frame: int,
    split: Mapping[str, float] | None,
    config: RetrievalConfig,
) -> list[int]:
    """Indices placed by :func:`place` in priority order; a derived item made redundant by a
    turn placed after it is excluded and the placement redone (it frees its tokens)."""
    candidates, line_tokens = lines.items, lines.tokens
    # recall per token: another item longer than ``long_item_tokens`` (a summary) competes at
    # a reduced priority
    order = sorted(
        range(len(candidates)),
        key=lambda i: -candidates[i].score * min(1.0, config.long_item_tokens / line_tokens[i]),
    )
    raw_keys = [_turn_keys(c.record) for c in candidates]
    # a memory in conflict says something its turn does not (which value is newer): kept
    sources = [
        frozenset() if c.record.metadata.get("_conflict") else _derived_sources(c.record)
        for c in candidates
    ]
    sections = [c.section for c in candidates]
    headers = [_headers(c) for c in candidates]
    excluded: set[int] = set()
    placed: list[int] = []
    for _ in range(3):
        placed = place(
            order,
            line_tokens,
            budget_tokens,
            sections=sections,
            headers=headers,
            raw_keys=raw_keys,
            sources=sources,
            excluded=excluded,
            frame=frame,
            split=split,
        )
        on_show: set[str] = set()
        for i in placed:
            on_show |= raw_keys[i]
        redundant = {i for i in placed if sources[i] and sources[i] <= on_show}
        if not redundant:
            break
        excluded |= redundant
    return placed


_Packed = tuple[list[ContextItem], str, int]


def _upgrade_passages(
    lines: _Lines, placed: list[int], packed: _Packed, budget_tokens: int
) -> _Packed:
    """Best first, a placed passage becomes its whole turn when the whole still fits (the
    rendered text is counted exactly before the swap is kept)."""
    items, text, tokens = packed
    for pos in sorted(
        (k for k, i in enumerate(placed) if i in lines.whole), key=lambda k: -items[k].score
    ):
        full = lines.whole[placed[pos]]
        shown_now = lines.tokens[placed[pos]] - 1
        if tokens + len(escape(full.shown).split()) - shown_now > budget_tokens + _UPGRADE_SLACK:
            continue  # more words than the room left: cannot fit, no need to tokenise it
        grow = _tokens(item_line(full)) - shown_now
        if tokens + grow > budget_tokens + _UPGRADE_SLACK:
            continue  # cannot fit: no need to render it to know
        trial = [*items[:pos], full, *items[pos + 1 :]]
        trial_text = render(trial)
        trial_tokens = count_tokens(trial_text)
        if trial_tokens <= budget_tokens:
            items, text, tokens = trial, trial_text, trial_tokens
    return items, text, tokens


def _trim(items: list[ContextItem], text: str, tokens: int, budget_tokens: int) -> _Packed:
    """The line estimate was off by a merge: drop the weakest item until the text fits."""
    while items and tokens > budget_tokens:
        weakest = min(range(len(items)), key=lambda i: items[i].score)
        items.pop(weakest)
        text = render(items)
        tokens = count_tokens(text)
    return items, text, tokens
