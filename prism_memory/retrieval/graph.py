"""The second hop of recall: from the first hop's best records along their link keys to
records in other sessions.

Design:
- The graph is the ``link_keys`` payload index (``prism_memory/links.py``): records of one
  scope sharing a key are neighbours. No edges are stored, so deletes, versions and scopes
  need no upkeep.
- Seeds: the ``graph_seeds`` best candidates of the fused first hop (their payloads are
  loaded by then). Their keys, less the scope's speakers (a name every turn of a dialogue
  carries links everything), are the hop's keys.
- The hop is one more route, ``graph``: the query's dense vector restricted to records that
  share a seed key, lie in no seed's session and are not in the pool already. Relevance to
  the query still ranks it (a neighbour that does not answer stays low), and its hits join
  the pool through the same RRF as every route (weight ``route_weights["graph"]``), so
  construct scores and budgets them like any candidate.
- Why other sessions only: a second hop seeded by the first hop's terms finds more of the
  same session (the reverted pseudo-relevance attempts); what multi-hop questions miss is
  the evidence told on another day, linked to the first through a person, place, thing or
  event.
- Two more second hops share the seeds and the store call (``hops.py``): ``graph_time``
  (records of other sessions next to a seed in time, opt-in) and ``relations`` (the seeds'
  stored relations, e.g. the ``caused_by``/``before``/``after`` links the LLM path states; on
  by default, free when no seed has one). A record found by several is fused once
  (:func:`merge_candidates`).
- Pure planning (:func:`hop_keys`, :func:`plan_hop`, :func:`hop_candidates`,
  :func:`plan_second_hop`) and one function that runs it (:func:`second_hop`: the routes,
  then the new records' payloads and vectors in one more call); the pipeline calls it after
  filling the first hop's pool.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence

from ..config import RetrievalConfig
from ..links import keys_of_payload, normalize_key
from ..records import Scope
from ..stores.base import DENSE_VECTOR, MemoryStore, RouteHit, RouteQuery
from ..stores.filters import Condition, RecordFilter
from .fusion import Candidate, with_payloads
from .hops import (
    RELATIONS_ROUTE,
    TIME_HOP_ROUTE,
    dense_query,
    plan_relation_hop,
    plan_time_hops,
    ranked_candidates,
)
from .routes import TIE_MARGIN, trim_ties

__all__ = [
    "GRAPH_ROUTE",
    "hop_candidates",
    "hop_keys",
    "link_strength",
    "merge_candidates",
    "plan_hop",
    "plan_second_hop",
    "second_hop",
    "second_hop_enabled",
    "speaker_names",
]

GRAPH_ROUTE = "graph"


def hop_keys(seeds: Sequence[Candidate], speakers: Collection[str] = ()) -> list[str]:
    """The link keys of ``seeds`` (stored, or computed for records written before the field),
    without the scope's ``speakers``.

    >>> seeds = [Candidate("a", {"link_keys": ["kid", "melanie", "pottery"]})]
    >>> hop_keys(seeds, speakers=["Melanie"])
    ['kid', 'pottery']
    """
    drop = {normalize_key(s) for s in speakers}
    keys: set[str] = set()
    for c in seeds:
        keys.update(k for k in keys_of_payload(c.payload) if k not in drop)
    return sorted(keys)


def plan_hop(
    pool: Sequence[Candidate],
    *,
    seeds: int,
    vector: list[float],
    space: str,
    limit: int,
    speakers: Collection[str] = (),
) -> RouteQuery | None:
    """The ``graph`` route from the pool's best ``seeds`` candidates, or None when they have
    no keys. ``space`` is the dense vector the query is in (``dense`` or ``dense_cjk``).

    >>> pool = [Candidate("00000000-0000-0000-0000-00000000000a",
    ...                   {"link_keys": ["maya"], "session_id": "s1"})]
    >>> q = plan_hop(pool, seeds=3, vector=[1.0], space="dense", limit=8)
    >>> q.name, q.filter.must[0].value, [c.value for c in q.filter.must_not][0]
    ('graph', ['maya'], ['s1'])
    """
    top = list(pool[:seeds])
    keys = hop_keys(top, speakers)
    if not keys:
        return None
    sessions = sorted({str(c.payload["session_id"]) for c in top if c.payload.get("session_id")})
    flt = RecordFilter(must=[Condition("link_keys", "any", keys)])
    if sessions:
        flt.must_not.append(Condition("session_id", "any", sessions))
    flt.must_not.append(Condition("id", "any", [c.id for c in pool]))
    return dense_query(GRAPH_ROUTE, space, vector, limit, flt)


def link_strength(
    hits: Sequence[RouteHit], pool: Sequence[Candidate], keys: Collection[str]
) -> dict[str, float]:
    """How strongly each hit is linked to the seeds: the summed rarity of the seed keys it
    shares, rarity ``log(1 + n / df)`` counted over the pool and the hits (a key every
    candidate carries links nothing; a place or a name few records share links much).

    >>> hits = [RouteHit("x", .9, {"link_keys": ["kid"]}), RouteHit("y", .8, {"link_keys": ["rome"]})]
    >>> pool = [Candidate("a", {"link_keys": ["kid", "rome"]}), Candidate("b", {"link_keys": ["kid"]})]
    >>> s = link_strength(hits, pool, ["kid", "rome"])
    >>> s["y"] > s["x"] > 0
    True
    """
    wanted = set(keys)
    docs = [set(keys_of_payload(c.payload)) & wanted for c in pool]
    docs += [set(keys_of_payload(h.payload)) & wanted for h in hits]
    df: dict[str, int] = {}
    for d in docs:
        for k in d:
            df[k] = df.get(k, 0) + 1
    n = len(docs)
    idf = {k: math.log(1.0 + n / c) for k, c in df.items()}
    return {h.id: sum(idf[k] for k in docs[len(pool) + i]) for i, h in enumerate(hits)}


def hop_candidates(
    hits: Sequence[RouteHit],
    pool: Sequence[Candidate],
    *,
    keys: Collection[str],
    k: int,
    weight: float,
    limit: int,
) -> list[Candidate]:
    """The ``graph`` route's best ``limit`` hits as new candidates, fused like every route
    (``weight / (k + rank + 1)``). Their rank is the reciprocal-rank fusion of two orders:
    relevance to the query (the route's cosine) and :func:`link_strength` to the seeds, so a
    neighbour must both answer and be linked. Records already in the pool are skipped.

    >>> hits = [RouteHit("b", 0.8, {"link_keys": ["maya"]})]
    >>> new = hop_candidates(hits, [Candidate("a", {})], keys=["maya"], k=20, weight=1.0, limit=4)
    >>> [(c.id, round(c.fused, 4), c.ranks) for c in new]
    [('b', 0.0476, {'graph': 0})]
    """
    have = {c.id for c in pool}
    fresh = [h for h in hits if h.id not in have]
    strength = link_strength(fresh, pool, keys)
    by_link = sorted(fresh, key=lambda h: (-strength[h.id], -h.score, h.id))
    link_rank = {h.id: r for r, h in enumerate(by_link)}
    both = {h.id: 1.0 / (k + r + 1) + 1.0 / (k + link_rank[h.id] + 1) for r, h in enumerate(fresh)}
    ordered = sorted(fresh, key=lambda h: (-both[h.id], h.id))[:limit]
    return [
        Candidate(
            h.id,
            h.payload,
            h.vector,
            weight / (k + rank + 1),
            {GRAPH_ROUTE: rank},
            {GRAPH_ROUTE: h.score},
        )
        for rank, h in enumerate(ordered)
        if strength[h.id] > 0
    ]


def speaker_names(values: Mapping[str, Sequence[str]]) -> list[str]:
    """Every spelling of the scope's speakers (``names.known_names``'s speaker map)."""
    return sorted({v for k, vs in values.items() for v in (k, *vs)})


def _key_hop(
    found: Mapping[str, Sequence[RouteHit]],
    query: RouteQuery | None,
    pool: Sequence[Candidate],
    cfg: RetrievalConfig,
) -> list[Candidate]:
    """The ``graph`` route's new candidates (:func:`hop_candidates`) from its hits."""
    if query is None or query.filter is None:
        return []
    hits = trim_ties(found.get(GRAPH_ROUTE, []), cfg.aux_route_limit, query.limit)
    return hop_candidates(
        hits,
        pool,
        keys=query.filter.must[0].value,
        k=cfg.rrf_k,
        weight=cfg.route_weights.get(GRAPH_ROUTE, 1.0),
        limit=cfg.graph_limit,
    )


def merge_candidates(groups: Sequence[Sequence[Candidate]]) -> list[Candidate]:
    """One candidate per record over the second hop's routes: fused scores summed, ranks and
    route scores joined (RRF over the routes that found it).

    >>> a = Candidate("x", {}, fused=0.1, ranks={"graph": 0})
    >>> b = Candidate("x", {}, fused=0.2, ranks={"graph_time": 1})
    >>> [(c.id, round(c.fused, 2), c.ranks) for c in merge_candidates([[a], [b]])]
    [('x', 0.3, {'graph': 0, 'graph_time': 1})]
    """
    out: dict[str, Candidate] = {}
    for group in groups:
        for c in group:
            have = out.get(c.id)
            if have is None:
                out[c.id] = c
                continue
            have.fused += c.fused
            have.ranks = {**have.ranks, **c.ranks}
            have.route_scores = {**have.route_scores, **c.route_scores}
    return list(out.values())


def second_hop_enabled(cfg: RetrievalConfig) -> bool:
    """Whether recall runs a second hop: the ``graph`` or ``graph_time`` route is on, or
    stored relations are followed (``follow_relations``)."""
    return cfg.follow_relations or bool({GRAPH_ROUTE, TIME_HOP_ROUTE} & set(cfg.routes))


def plan_second_hop(
    pool: Sequence[Candidate],
    *,
    vector: list[float],
    space: str,
    cfg: RetrievalConfig,
    speakers: Collection[str] = (),
) -> tuple[RouteQuery | None, list[RouteQuery]]:
    """The ``graph`` query (None when off or keyless) and every second-hop query to run
    (``graph``, ``graph_time#i``, ``relations``), all from the pool's best ``graph_seeds``."""
    limit = cfg.aux_route_limit + TIE_MARGIN
    keyed = None
    if GRAPH_ROUTE in cfg.routes:
        keyed = plan_hop(
            pool, seeds=cfg.graph_seeds, vector=vector, space=space, limit=limit, speakers=speakers
        )
    queries = [keyed] if keyed is not None else []
    if TIME_HOP_ROUTE in cfg.routes:
        queries += plan_time_hops(
            pool,
            seeds=cfg.graph_seeds,
            vector=vector,
            space=space,
            limit=limit,
            days=cfg.graph_time_window_days,
        )
    if cfg.follow_relations:
        related = plan_relation_hop(pool, seeds=cfg.graph_seeds, vector=vector, space=space)
        queries += [related] if related is not None else []
    return keyed, queries


def second_hop(
    store: MemoryStore,
    scope: Scope,
    base_filter: RecordFilter,
    pool: list[Candidate],
    vectors: dict[str, list[float]],
    *,
    vector: list[float],
    space: str,
    cfg: RetrievalConfig,
    speakers: Collection[str] = (),
) -> tuple[list[Candidate], dict[str, list[float]]]:
    """The pool (payloads filled) with the second hop's records added, best fused first, and
    ``vectors`` with theirs: records of other sessions sharing a link key with the pool's
    best ``cfg.graph_seeds`` (``graph``), next to one of them in time (``graph_time``), or
    linked to one by a stored relation (``relations``), each ranked by the query ``vector``
    (in ``space``). Every query runs in one store call; none runs when nothing is planned."""
    keyed, queries = plan_second_hop(pool, vector=vector, space=space, cfg=cfg, speakers=speakers)
    if not queries:
        return pool, vectors
    found = store.query_routes(scope, queries, base_filter)
    rank = {"k": cfg.rrf_k, "limit": cfg.graph_limit}
    new = merge_candidates(
        [
            _key_hop(found, keyed, pool, cfg),
            ranked_candidates(
                found,
                queries,
                TIME_HOP_ROUTE,
                weight=cfg.route_weights.get(TIME_HOP_ROUTE, 0.5),
                keep=cfg.aux_route_limit,
                **rank,
            ),
            ranked_candidates(
                found,
                queries,
                RELATIONS_ROUTE,
                weight=cfg.route_weights.get(RELATIONS_ROUTE, 1.0),
                **rank,
            ),
        ]
    )
    if not new:
        return pool, vectors
    ids = [c.id for c in new]
    points = (
        store.get_points(ids, scope)
        if space == DENSE_VECTOR
        else store.get_points(ids, scope, vector=space)
    )
    more = {i: p.vector for i, p in points.items() if p.vector}
    merged = sorted([*pool, *with_payloads(new, points)], key=lambda c: (-c.fused, c.id))
    return merged, {**vectors, **more}
