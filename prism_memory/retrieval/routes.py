"""Stage 1 (LazyMem "retrieve broadly"): the routes of one batched store query.

Design:
- Hard filters only for what must hold: scope (the store adds it), current records
  (``status=active``: supersession closes a record), trust (quarantined never returned), and
  the intent's fields only when ``strictness`` >= 0.5. Everything else is a soft signal.
- Routes, all sent in one ``query_routes`` call: ``dense`` and ``bm25`` over the scope
  for a query holding CJK characters every dense route searches the ``dense_cjk`` vectors
  with the CJK embedder's query vector instead (records without CJK text have none, so
  such a query reaches them through BM25);
  ``entity`` (dense restricted to records tagged with the query's entities); ``speaker``
  (dense restricted to the speakers named in the query); ``time`` (dense restricted to the
  query's time range); ``recent`` (newest first, in the intent's task when it has one; only
  when the query asks for the latest state or names a task); ``buffer`` (the current
  session's raw turns, for the recent section).
- Deterministic cut: engines break score ties arbitrarily, and which of several equal-scored
  records makes the top ``limit`` depends on the store's internal layout (insertion order,
  ids). Each route therefore fetches ``TIE_MARGIN`` extra hits and :func:`trim_ties` cuts on
  a score boundary: a tie group that may continue past what was fetched is dropped whole, so
  the same records give the same context in every process.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from ..config import RetrievalConfig
from ..records import Layer, Scope
from ..sparse import SparseVec
from ..stores.base import RouteHit, RouteQuery
from ..stores.filters import Condition, RecordFilter, to_iso
from .intent import Intent

__all__ = ["TIE_MARGIN", "RoutePlan", "plan_routes", "strict_filter", "trim_ties"]

STRICT_AT = 0.5
TIE_MARGIN = 8  # extra hits fetched per route so a tie at the cut can be resolved


def _iso(value: object) -> str:
    return to_iso(value, "event_time")


def strict_filter(intent: Intent, strictness: float) -> RecordFilter:
    """The intent's fields as hard filters when ``strictness`` >= 0.5, else nothing.

    Kinds, layers and the time range become filters at 0.5; entities only at 1.0, because
    entity tags are sparse (an untagged record about the hotel would otherwise vanish).
    """
    flt = RecordFilter()
    if strictness < STRICT_AT:
        return flt
    if intent.kinds:
        flt.must.append(Condition("kind", "any", [k.value for k in intent.kinds]))
    if intent.layers:
        flt.must.append(Condition("layer", "any", [x.value for x in intent.layers]))
    if intent.entities and strictness >= 1.0:  # tags are sparse: only at full strictness
        flt.must.append(Condition("entity_keys", "any", list(intent.entities)))
    if intent.time_range is not None:
        lo, hi = intent.time_range
        rng = {}
        if lo is not None:
            rng["gte"] = _iso(lo)
        if hi is not None:
            rng["lt"] = _iso(hi)
        if rng:
            flt.must.append(Condition("event_time", "range", rng))
    return flt


@dataclass
class RoutePlan:
    """The routes to run and the base filter ANDed into each."""

    routes: list[RouteQuery]
    base_filter: RecordFilter
    buffer_session: str | None = None

    def trim(self, results: Mapping[str, Sequence[RouteHit]]) -> dict[str, list[RouteHit]]:
        """Every route's hits through :func:`trim_ties`."""
        out: dict[str, list[RouteHit]] = {}
        for r in self.routes:
            hits = results.get(r.name, [])
            out[r.name] = trim_ties(hits, max(1, r.limit - TIE_MARGIN), r.limit, r.using)
        return out


def _sort_key(hit: RouteHit, using: str) -> float:
    return float(hit.payload.get("ts") or 0.0) if using == "order" else hit.score


def trim_ties(
    hits: Sequence[RouteHit], keep: int, fetched: int, using: str = "dense"
) -> list[RouteHit]:
    """The best ``keep`` hits, cut where the result does not depend on how ties were broken.

    ``hits`` came from a search with limit ``fetched``. When the engine returned that many,
    records scoring like the last one may have been left out, so that whole tie group is
    dropped; the rest is ordered by ``(-score, id)`` and cut at ``keep`` (a tie there is broken
    on id, which does not depend on the engine).

    >>> hs = [RouteHit(i, s, {}) for i, s in [("c", .5), ("a", .9), ("b", .5), ("d", .5)]]
    >>> [h.id for h in trim_ties(hs, keep=2, fetched=4)]
    ['a']
    >>> [h.id for h in trim_ties(hs, keep=2, fetched=10)]
    ['a', 'b']
    """
    ranked = sorted(hits, key=lambda h: (-_sort_key(h, using), h.id))
    if len(ranked) >= fetched and ranked:
        last = _sort_key(ranked[-1], using)
        ranked = [h for h in ranked if _sort_key(h, using) != last]
    return ranked[:keep]


def plan_routes(
    *,
    intent: Intent,
    config: RetrievalConfig,
    dense: list[float],
    sparse: SparseVec,
    base_filter: RecordFilter,
    session_scope: Scope | None,
    speaker_values: Mapping[str, Sequence[str]],
    cjk: list[float] | None = None,
) -> RoutePlan:
    """Build the route list for one recall (``cjk``: the query's CJK-embedder vector, for
    a query holding CJK text on a store with ``dense_cjk`` vectors).

    Stages: the scope-wide searches (``dense``, ``bm25``), the dense searches narrowed by
    what the query names (:func:`_narrowed_routes`: entity, speaker, time), the newest
    records when the query asks for the latest state (``recent``), and the current
    session's turns (:func:`_buffer_route`), in that order."""
    strictness = config.strictness if intent.strictness is None else intent.strictness
    flt = base_filter & strict_filter(intent, strictness)
    enabled = set(config.routes)
    limit = config.route_limit + TIE_MARGIN
    routes: list[RouteQuery] = []
    # the query's script picks the space of every dense route: the CJK embedder's for a query
    # holding CJK text (the main model reads most CJK characters as unknown word pieces)
    space: Literal["dense", "dense_cjk"] = "dense_cjk" if cjk is not None else "dense"
    if cjk is not None:
        dense = cjk
    if "dense" in enabled:
        routes.append(RouteQuery("dense", space, dense, limit))
    if "bm25" in enabled and sparse:
        routes.append(RouteQuery("bm25", "bm25", sparse, limit))
    routes += _narrowed_routes(intent, config, space, dense, speaker_values, strictness)
    if "recent" in enabled and (intent.recency or intent.task_id):
        recent_flt = RecordFilter.eq("task_id", intent.task_id) if intent.task_id else None
        routes.append(
            RouteQuery("recent", "order", None, config.recent_limit + TIE_MARGIN, recent_flt)
        )
    buffer_session = None
    if session_scope is not None and session_scope.session_id and config.buffer_turns > 0:
        buffer_session = session_scope.session_id
        routes.append(_buffer_route(buffer_session, config))
    return RoutePlan(routes, flt, buffer_session)


def _narrowed_routes(
    intent: Intent,
    config: RetrievalConfig,
    space: Literal["dense", "dense_cjk"],
    dense: list[float],
    speaker_values: Mapping[str, Sequence[str]],
    strictness: float,
) -> list[RouteQuery]:
    """Dense searches restricted to what the query names: its entities, its speakers (each
    name's stored spellings), its time range (as a route only when it is not already a hard
    filter)."""
    enabled = set(config.routes)
    aux_limit = config.aux_route_limit + TIE_MARGIN
    routes: list[RouteQuery] = []
    if "entity" in enabled and intent.entities:
        routes.append(
            RouteQuery(
                "entity",
                space,
                dense,
                aux_limit,
                RecordFilter.any_of("entity_keys", list(intent.entities)),
            )
        )
    if "speaker" in enabled and intent.speakers:
        values = sorted({v for s in intent.speakers for v in speaker_values.get(s, [s])})
        routes.append(
            RouteQuery(
                "speaker",
                space,
                dense,
                aux_limit,
                RecordFilter.any_of("speaker", values),
            )
        )
    if "time" in enabled and intent.time_range is not None and strictness < STRICT_AT:
        time_flt = strict_filter(
            Intent(time_range=intent.time_range), STRICT_AT
        )  # the range alone, as a route filter
        routes.append(RouteQuery("time", space, dense, aux_limit, time_flt))
    return routes


def _buffer_route(session_id: str, config: RetrievalConfig) -> RouteQuery:
    """The current session's raw turns, newest first (for the recent section)."""
    return RouteQuery(
        "buffer",
        "order",
        None,
        config.buffer_turns + TIE_MARGIN,
        RecordFilter(
            must=[
                Condition("layer", "eq", Layer.BUFFER.value),
                Condition("session_id", "eq", session_id),
            ]
        ),
    )
