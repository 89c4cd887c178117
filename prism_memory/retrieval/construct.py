"""Stage 2 (LazyMem "construct selectively"): score, select, compress, pack into a budget.

Design:
- Score every candidate with the PRISM objectives (``scoring.py``); the cosine to the query
  comes from the vectors the broad retrieve already returned (numpy, no refetch).
- Select: drop expired (``valid_to`` passed), superseded and quarantined records; drop
  candidates only meaning found (no lexical, entity, time or task support) whose relevance
  (query cosine) is below ``relevance_floor`` x the best
  candidate's (:func:`relevance_floor`: relative to the query's best hit, so calibrated to the
  embedder in use; a context may be shorter than its budget: budgets are a ceiling, never a
  quota), candidates no lexical/entity/task route supports whose cosine is below
  ``min_semantic``, and those whose score is far below the best (``relative_floor``) -- a
  small store must not pad the context with unrelated memories; drop near-duplicates (cosine above ``dedup_threshold``,
  optionally MMR re-ranking); flag contradictions (``contradicts`` relations) in trace and text.
- Compress below the record (``text.compress_text``, opt-in): a long turn keeps only the
  sentences that share words with the query (its id, hence its source turn, is kept), joined
  with an ellipsis; ``drop_filler`` removes only sentences that carry no fact.
- Pack greedily by score into ``budget_tokens``: each section first within its soft share of
  the budget, then the rest by score; a group's date header is priced once. The exact count
  of the rendered text is checked at the end and the weakest items dropped until it fits,
  so ``tokens <= budget`` always holds.
- The same stage serves the LlamaIndex postprocessor: it turns nodes from any retriever into
  candidates (one synthetic record per node) and runs :func:`score_candidates`,
  :func:`select` and :func:`place` (the greedy placement :func:`pack` uses, with the node's
  own token count as its line cost).
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field, replace
from datetime import datetime
from functools import lru_cache

import numpy as np

from ..config import RetrievalConfig
from ..records import Kind, Layer, MemoryRecord, Status, Trust, is_record_id
from ..tokens import count_tokens
from .context import CandidateTrace, ContextItem, RecallTrace
from .fusion import Candidate
from .intent import Intent
from .render import (
    BLOCK_CLOSE,
    BLOCK_OPEN,
    SECTION_TITLES,
    escape,
    group_key,
    item_line,
    render,
    section_of,
)
from .scoring import (
    ScoreParts,
    combine,
    freshness,
    intent_match,
    semantic_score,
    task_relevance,
)
from .text import NO_LIMIT, analysed, answer_kind, compress_text, content_terms, is_filler

__all__ = [
    "Scored",
    "low_information",
    "pack",
    "place",
    "prism_total",
    "relevance_floor",
    "score_candidates",
    "select",
]

#: tokens the line-by-line estimate of a rendered context may be off by (joins, headers)
_UPGRADE_SLACK = 4
#: long turns (the best by score) that compete as their passage in one packing
_PASSAGES = 24
DENSE_ROUTES = frozenset({"dense", "entity", "speaker", "time"})  # scores are cosines
_ROUTES_WITH_EVIDENCE = frozenset({"bm25", "entity", "speaker", "time", "recent", "buffer"})


@dataclass
class Scored:
    """A candidate with its parsed record and PRISM score."""

    record: MemoryRecord
    vector: np.ndarray | None
    cosine: float | None
    parts: ScoreParts
    total: float
    section: str
    trace: CandidateTrace
    routes: list[str] = field(default_factory=list)
    neighbour_of: str | None = None


def prism_total(
    parts: ScoreParts, record: MemoryRecord, weights: Mapping[str, float], config: RetrievalConfig
) -> float:
    """The PRISM score from its parts: the weighted objectives plus the intent boost, times
    ``confidence ** confidence_factor`` (derived records, summaries and rule facts, are less
    sure than the turns they come from)."""
    total = combine(parts, weights, config.intent_boost)
    if config.confidence_factor > 0:
        total *= record.confidence**config.confidence_factor
    return total


def score_candidates(
    candidates: Sequence[Candidate],
    query_vector: Sequence[float],
    intent: Intent,
    config: RetrievalConfig,
    *,
    now: datetime,
    buffer_session: str | None,
    trace: RecallTrace,
    as_of: datetime | None = None,
    calibrate: Callable[[float], float] | None = None,
) -> list[Scored]:
    """Parse and score the fused pool (best first). Records that must not be shown are cut;
    ``as_of``: a state valid at that time is shown even if it was superseded since.

    The cosine of a candidate is its best score on the dense routes (cosines in
    ``query_vector``'s space), else the cosine of its vector, put on the reference scale by
    ``calibrate`` (``retrieval/calibration.py``) before it meets any threshold."""
    if not candidates:
        return []
    top = max(c.fused for c in candidates) or 1.0
    weights = {**config.weights, **intent.weights}
    out: list[Scored] = []
    for c in candidates:
        ct = CandidateTrace(c.id, dict(c.ranks), round(c.fused, 6))
        trace.candidates.append(ct)
        record = MemoryRecord.from_payload(c.payload)
        cut = _hidden(record, now=now, as_of=as_of)
        if cut is not None:
            ct.outcome = cut
            continue
        vec = np.asarray(c.vector, dtype=np.float32) if c.vector else None
        cos = _cosine(c, vec, query_vector, calibrate)
        parts = ScoreParts(
            semantic=semantic_score(c.fused / top, cos, config.semantic_mix),
            fresh=freshness(record.time, now, config.freshness_half_life_days),
            task=task_relevance(record, intent),
            utility=record.utility,
            importance=record.importance,
            match=intent_match(record, intent),
        )
        total = prism_total(parts, record, weights, config)
        ct.scores = {**parts.as_dict(), "cosine": round(cos or 0.0, 4), "total": round(total, 4)}
        section = section_of(record, buffer_session)
        ct.section = section
        out.append(Scored(record, vec, cos, parts, total, section, ct, sorted(c.ranks)))
    out.sort(key=lambda s: (-s.total, s.record.id))
    return out


def _hidden(record: MemoryRecord, *, now: datetime, as_of: datetime | None) -> str | None:
    """Why a record must not be shown (a trace outcome), or None: quarantined, superseded
    (unless it was the valid state at ``as_of``) or expired."""
    if record.provenance.trust == Trust.QUARANTINED:
        return "cut:quarantined"
    valid_then = (
        as_of is not None
        and record.status == Status.SUPERSEDED
        and (record.valid_from is None or record.valid_from <= as_of)
        and (record.valid_to is None or record.valid_to > as_of)
    )
    if record.status != Status.ACTIVE and not valid_then:
        return "cut:superseded"
    if record.valid_to is not None and record.valid_to <= now:
        return "cut:expired"
    return None


def _cosine(
    c: Candidate,
    vec: np.ndarray | None,
    query_vector: Sequence[float],
    calibrate: Callable[[float], float] | None,
) -> float | None:
    """The candidate's best dense-route score, else the cosine of its vector to the query,
    put on the reference scale by ``calibrate``; None when neither is known."""
    dense_scores = [v for r, v in c.route_scores.items() if r in DENSE_ROUTES]
    cos = max(dense_scores) if dense_scores else None
    if cos is None and vec is not None and len(query_vector) == vec.shape[0]:
        cos = float(np.dot(vec, np.asarray(query_vector, dtype=np.float32)))
    if cos is not None and calibrate is not None:
        cos = calibrate(cos)
    return cos


def relevance_floor(scored: Sequence[Scored], share: float) -> float | None:
    """The relevance below which a candidate that only meaning found is not worth its tokens:
    ``share`` of the best relevance (query cosine) among the candidates that could answer --
    the current session's turns and questions aside (a question asked before, "What should I
    cook tonight?", sits close to the query without answering it). ``None`` (no floor) when
    ``share`` is 0 or no candidate has a relevance. Relative to the query's best hit, so it
    is calibrated to whatever embedder produced the cosines.

    >>> from types import SimpleNamespace as S
    >>> def c(cos, text="Refunds within 60 days."):
    ...     return S(cosine=cos, section="semantic", record=S(text=text))
    >>> relevance_floor([c(0.9, "Any refunds?"), c(0.68), c(0.1)], 0.5)
    0.34
    """
    if share <= 0:
        return None
    cosines = [
        s.cosine
        for s in scored
        if s.cosine is not None
        and s.section != "buffer"
        and not s.record.text.rstrip().endswith(("?", "？"))
    ]
    best = max(cosines, default=0.0)
    return share * best if best > 0 else None


def low_information(record: MemoryRecord, query_terms: AbstractSet[str]) -> bool:
    """A turn that takes context budget without carrying anything: an assistant, tool or
    system turn every sentence of which is filler (at most two content words, none from the
    query, no number and no name: "Noted.", "Got it, thanks!", "Sounds good."), or any turn
    with no content word at all ("ok", "yes!"). The user's own short statements ("I'm
    vegan") are kept: they are often the fact itself.

    >>> turn = MemoryRecord(text="Noted!", user_id="a", layer="episodic", kind="observation",
    ...                     metadata={"role": "assistant"})
    >>> booked = turn.model_copy(update={"text": "Booked for 8pm."})
    >>> low_information(turn, set()), low_information(booked, set())
    (True, False)
    """
    role = record.metadata.get("role")
    if role is None or record.kind != Kind.OBSERVATION:
        return False
    sentences, infos = analysed(record.text)
    if not any(infos):
        return True
    if role == "user":
        return False
    terms = set(query_terms)
    return all(is_filler(sent, info, terms) for sent, info in zip(sentences, infos))


def select(
    scored: list[Scored], config: RetrievalConfig, trace: RecallTrace, *, query: str = ""
) -> list[Scored]:
    """Relevance floors, low-information turns, near-duplicate removal (threshold or MMR),
    contradiction flags."""
    if not scored:
        return []
    best = scored[0].total
    floor = relevance_floor(scored, config.relevance_floor)
    query_terms = content_terms(query)
    kept: list[Scored] = []
    for s in scored:
        supported = bool(set(s.routes) & _ROUTES_WITH_EVIDENCE) or s.parts.task >= 0.7
        if low_information(s.record, query_terms):
            s.trace.outcome = "cut:low_information"
            continue
        if s.section == "buffer":
            pass  # the current session's turns are always eligible for the recent section
        elif not supported and s.cosine is not None and s.cosine < config.min_semantic:
            s.trace.outcome = "cut:low_similarity"
            continue
        elif not supported and floor is not None and s.cosine is not None and s.cosine < floor:
            s.trace.outcome = "cut:below_relevance_floor"
            continue
        elif s.total < config.min_score or s.total < config.relative_floor * best:
            s.trace.outcome = "cut:low_score"
            continue
        kept.append(s)
    kept = _dedup(kept, config)
    ids = {s.record.id: s for s in kept}
    for s in kept:
        for rel in s.record.relations:
            other = ids.get(rel.target_id)
            if rel.type in ("contradicts", "conflicts") and other is not None:
                newer, older = sorted(
                    (s.record, other.record),
                    key=lambda r: (r.valid_from or r.time, r.id),
                    reverse=True,
                )
                newer.metadata["_conflict"] = "newer"
                older.metadata["_conflict"] = "older"
                older.metadata["_newer"] = newer.id
                pair = (newer.id, older.id)
                if pair not in trace.contradictions:
                    trace.contradictions.append(pair)
    return kept


def _jaccard_matrix(term_sets: Sequence[frozenset[str]]) -> np.ndarray:
    """Pairwise word-set Jaccard similarity.

    Only terms held by two or more sets can be shared, so the incidence matrix has a column
    for those alone (a long turn's other words only count in its size), and its product is an
    integer one: numpy computes it without BLAS, whose threads cost more than the product for
    a few dozen rows (and far more on a busy machine). Exact: the same numbers as
    ``|a & b| / |a | b|`` computed pair by pair.

    >>> _jaccard_matrix([frozenset("ab"), frozenset("bc"), frozenset()]).round(2).tolist()
    [[1.0, 0.33, 0.0], [0.33, 1.0, 0.0], [0.0, 0.0, 0.0]]
    """
    n = len(term_sets)
    seen = Counter(itertools.chain.from_iterable(term_sets))
    shared = {t: k for k, t in enumerate(t for t, c in seen.items() if c > 1)}
    inc = np.zeros((n, max(1, len(shared))), dtype=np.int32)
    for row, terms in enumerate(term_sets):
        inc[row, [shared[t] for t in terms if t in shared]] = 1
    size = np.fromiter(map(len, term_sets), dtype=np.float64, count=n)
    inter = (inc @ inc.T).astype(np.float64)
    np.fill_diagonal(inter, size)
    union = size[:, None] + size[None, :] - inter
    out: np.ndarray = np.divide(inter, union, out=np.zeros_like(inter), where=union > 0)
    return out


@lru_cache(maxsize=32768)
def _terms_of(text: str) -> frozenset[str]:
    """The content terms of a whole text: the union of its sentences' (the same words: a
    sentence split only cuts at whitespace), so the passage step reuses the analysis."""
    return frozenset().union(*analysed(text)[1])


@lru_cache(maxsize=32768)
def _tokens(text: str) -> int:
    """cl100k count of a rendered line or header (memoised: the same memories recur)."""
    return count_tokens(text)


def _related(a: MemoryRecord, b: MemoryRecord) -> bool:
    """A turn and a record derived from it, or two different records derived from one turn
    (an occupation and a home city)."""
    if a.id in b.provenance.source_ids or b.id in a.provenance.source_ids:
        return True
    if a.kind == Kind.OBSERVATION or b.kind == Kind.OBSERVATION or a.text == b.text:
        return False
    turns_a = {i for i in a.provenance.source_ids if is_record_id(i)}
    return bool(turns_a & set(b.provenance.source_ids))


def carry_dates(derived: MemoryRecord, turn: MemoryRecord) -> None:
    """A turn shown instead of the event extracted from it keeps the event's resolved date
    ("yesterday" -> 7 May 2023): one line, the turn's words and the absolute date."""
    when = derived.fields.get("when") if derived.kind == Kind.EVENT else None
    if isinstance(when, str) and when:
        dates = turn.metadata.setdefault("_dates", [])
        if when not in dates:
            dates.append(when)


def _dedup(items: list[Scored], config: RetrievalConfig) -> list[Scored]:
    """Near-duplicate removal: cosine of the vectors when present, else word-set Jaccard."""
    if len(items) < 2:
        return items
    with_vec = all(s.vector is not None for s in items)
    lam = config.mmr_lambda if with_vec else 1.0
    if with_vec:
        mat = np.stack([s.vector for s in items if s.vector is not None])
        sims = mat @ mat.T
    else:
        sims = _jaccard_matrix([_terms_of(s.record.text) for s in items])
    remaining = list(range(len(items)))
    chosen: list[int] = []

    def sim_to_chosen(i: int) -> float:
        return float(sims[i, chosen].max()) if chosen else 0.0

    while remaining:
        if lam < 1.0 and chosen:
            nxt = max(remaining, key=lambda i: lam * items[i].total - (1 - lam) * sim_to_chosen(i))
        else:
            nxt = remaining[0]
        remaining.remove(nxt)
        dup = None
        if chosen:
            close = np.flatnonzero(sims[nxt, chosen] >= config.dedup_threshold)
            # a turn and a record made from it, or two records of one turn, share the turn's
            # vector but not their content: never near-duplicates (packing keeps a turn once)
            dup = next(
                (
                    chosen[k]
                    for k in close
                    if not _related(items[nxt].record, items[chosen[k]].record)
                ),
                None,
            )
        if dup is None:
            chosen.append(nxt)
            continue
        # same content twice: keep the copy that costs fewer tokens, at the better score
        if len(items[nxt].record.text) < len(items[dup].record.text):
            items[dup].trace.outcome = "cut:duplicate"
            items[nxt].total = max(items[nxt].total, items[dup].total)
            chosen[chosen.index(dup)] = nxt
        else:
            items[nxt].trace.outcome = "cut:duplicate"
    return [items[i] for i in chosen]


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
        for t in _terms_of(text) & terms:
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
