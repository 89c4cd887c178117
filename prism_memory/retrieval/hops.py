"""Two more second hops from the first hop's best records: by time, and along stored relations.

Design:
- The ``graph_time`` route (opt-in, like ``graph``): for each seed (the pool's best
  ``graph_seeds``) with an ``event_time``, the query's dense vector restricted to records of
  other sessions whose event time falls on the seed's day or within ``graph_time_window_days``
  days of it ("after the roadtrip" -> the hike told in another session the next day). No edge is stored: time is
  already a payload index on both engines, so the hop costs nothing at write time and needs no
  upkeep when records change or go; before/after is the sign of the difference, which a query
  names itself ("after", "before") and the ranking by relevance leaves to the query.
- The ``relations`` hop (on by default, ``follow_relations``): the seeds' stored relations of
  the followed kinds (``links.FOLLOWED_RELATIONS``: ``caused_by``/``causes``, ``before``/
  ``after``, ``conflicts``; the version links are history and are never followed) are fetched
  by id through the query's dense vector, so each is scored by relevance to the query and the
  base filter (validity, trust, as-of) still holds. It runs only when a seed has such a link:
  a store without them pays nothing.
- Pure planning here (:func:`plan_time_hops`, :func:`plan_relation_hop`) and ranking
  (:func:`ranked_candidates`); ``graph.second_hop`` runs every planned second-hop query in one
  store call.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta, timezone
from typing import Any, TypeGuard

from ..links import FOLLOWED_RELATIONS
from ..stores.base import RouteHit, RouteQuery
from ..stores.filters import Condition, RecordFilter, to_iso
from .fusion import Candidate
from .routes import trim_ties

__all__ = [
    "RELATIONS_ROUTE",
    "SECOND_HOP_ROUTES",
    "TIME_HOP_ROUTE",
    "dense_query",
    "plan_relation_hop",
    "plan_time_hops",
    "ranked_candidates",
    "relation_targets",
    "seed_time",
]

TIME_HOP_ROUTE = "graph_time"
RELATIONS_ROUTE = "relations"


def dense_query(
    name: str, space: str, vector: list[float], limit: int, flt: RecordFilter
) -> RouteQuery:
    """A hop's query: ``vector`` in the dense ``space`` the query is in (``dense_cjk`` for
    Chinese, else ``dense``), restricted by ``flt``.

    >>> dense_query("graph", "dense_cjk", [1.0], 4, RecordFilter()).using
    'dense_cjk'
    """
    if space == "dense_cjk":
        return RouteQuery(name, "dense_cjk", vector, limit, flt)
    return RouteQuery(name, "dense", vector, limit, flt)


#: the routes of this module, as the trace names them
SECOND_HOP_ROUTES = (TIME_HOP_ROUTE, RELATIONS_ROUTE)


def seed_time(payload: Mapping[str, Any]) -> datetime | None:
    """A stored record's ``event_time`` as an aware datetime (None when it has none).

    >>> seed_time({"event_time": "2023-05-08T13:56:00Z"}).isoformat()
    '2023-05-08T13:56:00+00:00'
    """
    raw = payload.get("event_time")
    if not isinstance(raw, str) or not raw:
        return None
    try:
        when = datetime.fromisoformat(raw.replace("Z", "+00:00"))
    except ValueError:
        return None
    return when if when.tzinfo else when.replace(tzinfo=timezone.utc)


def plan_time_hops(
    pool: Sequence[Candidate],
    *,
    seeds: int,
    vector: list[float],
    space: str,
    limit: int,
    days: int,
) -> list[RouteQuery]:
    """One ``graph_time`` query per distinct time window of the pool's best ``seeds``: the
    query ``vector`` (in ``space``) over records whose event time falls on a seed's day (UTC)
    or within ``days`` days of it, in none of the seeds' sessions and not in the pool. Each
    is named ``graph_time#i``.

    >>> pool = [Candidate("00000000-0000-0000-0000-00000000000a",
    ...                   {"event_time": "2023-05-08T13:00:00Z", "session_id": "s1"})]
    >>> (q,) = plan_time_hops(pool, seeds=3, vector=[1.0], space="dense", limit=8,
    ...                       days=1)
    >>> q.name, q.filter.must[0].value, q.filter.must_not[0].value
    ('graph_time#0', {'gte': '2023-05-07T00:00:00Z', 'lt': '2023-05-10T00:00:00Z'}, ['s1'])
    """
    top = list(pool[:seeds])
    sessions = sorted({str(c.payload["session_id"]) for c in top if c.payload.get("session_id")})
    ranges: list[dict[str, str]] = []
    for c in top:
        when = seed_time(c.payload)
        if when is None:
            continue
        day = when.astimezone(timezone.utc).replace(hour=0, minute=0, second=0, microsecond=0)
        lo, hi = _shifted(day, -days), _shifted(day, days + 1)
        rng = {"gte": to_iso(lo, "event_time"), "lt": to_iso(hi, "event_time")}
        if rng not in ranges:
            ranges.append(rng)
    out = []
    for i, rng in enumerate(ranges):
        flt = RecordFilter(must=[Condition("event_time", "range", rng)])
        if sessions:
            flt.must_not.append(Condition("session_id", "any", sessions))
        flt.must_not.append(Condition("id", "any", [c.id for c in pool]))
        out.append(dense_query(f"{TIME_HOP_ROUTE}#{i}", space, vector, limit, flt))
    return out


def _shifted(day: datetime, days: int) -> datetime:
    """``day`` moved by ``days``, held within the calendar (year 1 .. 9999).

    >>> _shifted(datetime(9999, 12, 31, tzinfo=timezone.utc), 2).year
    9999
    """
    try:
        return day + timedelta(days=days)
    except OverflowError:
        edge = datetime.max if days > 0 else datetime.min
        return edge.replace(tzinfo=day.tzinfo)


def relation_targets(pool: Sequence[Candidate], seeds: int) -> list[str]:
    """The ids the pool's best ``seeds`` link to by a followed relation, not in the pool.

    >>> b, c = "00000000-0000-0000-0000-00000000000b", "00000000-0000-0000-0000-00000000000c"
    >>> pool = [Candidate("a", {"relations": [{"type": "causes", "target_id": b},
    ...                                       {"type": "supersedes", "target_id": c},
    ...                                       {"type": "causes", "target_id": "not-an-id"}]})]
    >>> relation_targets(pool, seeds=3) == [b]
    True
    """
    have = {c.id for c in pool}
    out: list[str] = []
    for c in pool[:seeds]:
        for rel in c.payload.get("relations") or []:
            if not isinstance(rel, Mapping) or rel.get("type") not in FOLLOWED_RELATIONS:
                continue
            target = rel.get("target_id")
            if _is_id(target) and target not in have and target not in out:
                out.append(target)
    return out


def _is_id(value: object) -> TypeGuard[str]:
    """Whether ``value`` is a record id (a UUID): an imported relation may name anything.

    >>> _is_id("00000000-0000-0000-0000-00000000000a"), _is_id("storm-42"), _is_id(7)
    (True, False, False)
    """
    if not isinstance(value, str):
        return False
    try:
        uuid.UUID(value)
    except ValueError:
        return False
    return True


def plan_relation_hop(
    pool: Sequence[Candidate], *, seeds: int, vector: list[float], space: str
) -> RouteQuery | None:
    """The ``relations`` query: the seeds' linked records, scored by the query ``vector``
    (None when the seeds link to nothing outside the pool)."""
    targets = relation_targets(pool, seeds)
    if not targets:
        return None
    flt = RecordFilter(must=[Condition("id", "any", targets)])
    return dense_query(RELATIONS_ROUTE, space, vector, len(targets), flt)


def ranked_candidates(
    found: Mapping[str, Sequence[RouteHit]],
    queries: Sequence[RouteQuery],
    route: str,
    *,
    k: int,
    weight: float,
    limit: int,
    keep: int | None = None,
) -> list[Candidate]:
    """The hits of every query of ``route`` (``route`` or ``route#i``) merged (best score
    per record), ranked by relevance to the query, the best ``limit`` as candidates fused
    like every route (``weight / (k + rank + 1)``). ``keep``: each query's best ``keep``
    hits, cut where the engines agree (``routes.trim_ties``; the query fetched more).

    >>> q = RouteQuery("relations", "dense", [1.0], 2)
    >>> hits = {"relations": [RouteHit("b", .4, {}), RouteHit("a", .9, {})]}
    >>> [(c.id, c.ranks) for c in ranked_candidates(hits, [q], "relations", k=20,
    ...                                             weight=1.0, limit=5)]
    [('a', {'relations': 0}), ('b', {'relations': 1})]
    """
    best: dict[str, RouteHit] = {}
    for q in queries:
        if q.name != route and not q.name.startswith(route + "#"):
            continue
        hits = found.get(q.name, [])
        for h in trim_ties(hits, keep, q.limit) if keep is not None else hits:
            if h.id not in best or h.score > best[h.id].score:
                best[h.id] = h
    ordered = sorted(best.values(), key=lambda h: (-h.score, h.id))[:limit]
    return [
        Candidate(h.id, h.payload, h.vector, weight / (k + r + 1), {route: r}, {route: h.score})
        for r, h in enumerate(ordered)
    ]
