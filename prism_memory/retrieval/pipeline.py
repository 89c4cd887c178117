"""``RecallPipeline``: the read path of :class:`~prism_memory.Memory` (recall, search, feedback).

Design (DESIGN.md "Read path"): intent -> broad retrieve -> selective construct.
- It holds the :class:`~prism_memory.engine.Engine` (store, embedder, sparse encoder, write
  events), never the facade. ``search`` is the plain mode of the same pipeline: the dense and
  BM25 routes, fused by the one RRF of ``fusion.py``, no intent or construct.
- Intent: the caller's :class:`Intent` over a registered template for its step over rule-based
  query analysis (entity and speaker names the store knows, from per-scope name counts;
  temporal expressions); an LLM parser only when configured.
- Broad retrieve: every route in ONE batched store call (``query_routes``) with the dense
  vectors returned, fused (RRF / DBSF) into a pool; neighbours of short episodic hits come
  from one more batched call only when expansion is on and needed.
- Scores: ``search`` hits carry ``score`` = relevance (``scoring.relevance``: cosine of query
  and record vectors, clipped to [0, 1]; the vectors of the hits kept fetched by id after
  fusion, one ``get_vectors`` call without a threshold) and
  ``rank_score`` = the fused value they are ordered by. Recall items keep ``score`` = the PRISM
  score they are ranked by and carry ``relevance`` (same function; the shown records' vectors
  come from the pool or one ``get_vectors`` call).
- Selective construct: ``construct.py`` (score, select), ``packing.py`` (compress, pack), as
  a data block; optional LLM compression with a timeout and extractive fallback.
- Query embeddings (per embedder object, shared by the process's pipelines:
  ``query_vectors.py``) and whole results are cached; every write in a scope (the engine's
  write events) invalidates what it could change. A cached result is keyed by every input
  that changes it, the clock (``now``) included, and is handed out as a copy. The names a
  scope knows (speakers, entity keys, counts: ``names.py``) are read by facets once and then
  kept current by the events; the sentence analysis of an inserted record (sentences and
  content terms, for passages, dedup and informativeness) is computed as it is written.
- A first recall's loads (embedding model, token encoding) start on a background thread as
  the pipeline is built (``warm.py``, ``RetrievalConfig.warm_up``).
- Access statistics (``last_accessed``, ``access_count`` of the returned records) are queued by
  recall and written off the hot path by a background thread (``AccessLog``): batched, one
  read and one ``set_payload`` per count group per scope; ``flush_access()`` and ``close()``
  write what is pending.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np
from pydantic import TypeAdapter

from ..config import RetrievalConfig
from ..embeddings import Embedder
from ..engine import Engine, WriteEvent
from ..errors import ValidationError
from ..llm.recall import choose_strategy, compress_with_llm, parse_intent_with_llm
from ..records import MemoryRecord, Scope, ScoredRecord, utcnow
from ..sparse import has_cjk
from ..stores import parse_filters
from ..stores.base import CJK_VECTOR, DENSE_VECTOR, hybrid_routes
from ..tokens import count_tokens
from .access import AccessLog
from .cache import RecallCache
from .calibration import Calibration, calibration_for
from .construct import Scored, prism_total, score_candidates, select
from .context import ContextItem, MemoryContext, RecallTrace, in_thread
from .fusion import Candidate, fuse, scored_records, with_payloads
from .graph import GRAPH_ROUTE, second_hop, second_hop_enabled, speaker_names
from .hops import SECOND_HOP_ROUTES
from .intent import Intent, IntentRegistry, analyze_query
from .names import ScopeNames, known_names
from .neighbours import neighbour_candidates, neighbour_routes, neighbours_wanted
from .packing import pack
from .query_vectors import QUERY_VECTORS
from .render import BLOCK_CLOSE, BLOCK_OPEN, escape_lines
from .request import RecallRequest, SearchRequest
from .routes import RoutePlan, plan_routes
from .scoring import informativeness, relevance, updated_utility
from .text import analysed, text_terms
from .warm import start_warm_up, stop_warm_up

__all__ = ["RecallPipeline"]

_Names = tuple[frozenset[str], dict[str, list[str]]]

_DATETIME: TypeAdapter[datetime] = TypeAdapter(datetime)


class RecallPipeline:
    """recall / search / feedback / register_intent, over an engine."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        cfg = engine.config.retrieval
        self.intents = IntentRegistry()
        self.recall_cache = RecallCache(cfg.cache_size, cfg.cache_ttl_s)
        # query vectors of an embedder that cannot be weakly referenced (QUERY_VECTORS' others)
        self._qvecs: dict[int, OrderedDict[str, list[float]]] = {}
        self.names = ScopeNames(engine.store, engine.visible_filter)
        self.access_log = AccessLog(self._write_access, cfg.access_flush_s)
        engine.on_write(self._invalidate_reads)
        engine.on_write(self._analyse_inserted)
        self.warm_up: threading.Thread | None = (
            start_warm_up([engine.embedder, engine.cjk_embedder]) if cfg.warm_up else None
        )

    # -- access statistics ----------------------------------------------------------------
    def _write_access(self, scope: Scope, counts: dict[str, int], when: datetime) -> None:
        """Set ``access_count`` to ``counts[id]`` and ``last_accessed`` (one call per count)."""
        if self.engine.closed:
            return
        stamp = _DATETIME.dump_python(when, mode="json")
        by_count: dict[int, list[str]] = {}
        for rid, count in counts.items():
            by_count.setdefault(count, []).append(rid)
        for count, ids in sorted(by_count.items()):
            # ranking bookkeeping: recall caches are not dropped for it
            self.engine.update(
                ids, scope, {"last_accessed": stamp, "access_count": count}, announce=False
            )

    def flush_access(self) -> int:
        """Flush the access log (its queue of recall accesses) through :meth:`_write_access`."""
        return self.access_log.flush()

    def close(self) -> None:
        """Write pending access statistics and stop the warm-up (the engine closes the
        store)."""
        if self.warm_up is not None:
            stop_warm_up(self.warm_up)
        if not self.engine.closed:
            self.access_log.close()

    # -- caches -------------------------------------------------------------------------
    def _analyse_inserted(self, event: WriteEvent) -> None:
        """Sentence analysis at write time: each inserted record's sentences and terms (for
        passages and pool weights) are computed as it is written (microseconds a turn), so the
        first recall that meets it pays nothing for them (memoised per process; a store opened
        later computes them on the first recall that needs them)."""
        for record in event.inserted or ():
            analysed(record.text), text_terms(record.text)

    def _invalidate_reads(self, event: WriteEvent) -> None:
        """Drop what a write or delete in ``event.scope`` could have changed: every cached
        context whose scope overlaps it (:func:`~prism_memory.retrieval.cache.scopes_overlap`);
        the scopes' name counts take in inserted records and drop on any other change."""
        self.recall_cache.invalidate(event.scope)
        self.names.on_write(event.scope, event.inserted, event.fields)

    def _query_vector(self, query: str, embedder: Embedder | None = None) -> list[float]:
        """The query's vector, from the process's cache of the embedder's (``query_vectors``)."""
        return QUERY_VECTORS.get(embedder or self.engine.embedder, query, self._qvecs)

    def _known_names(self, scope: Scope) -> _Names:
        """Entity keys and speakers of the scope (facets once, then kept by write events)."""
        counts = self.names.counts(scope)
        return known_names(counts, self.engine.config.retrieval.entity_max_share)

    # -- intent -------------------------------------------------------------------------
    def register_intent(self, name: str, **fields: Any) -> None:
        """Add the template to the registry and drop every cached context (any could have
        started from the template it replaces)."""
        self.intents.register(name, **fields)
        self.recall_cache.invalidate(None)

    def _resolve_intent(
        self, query: str, given: Intent | None, names: _Names, cfg: RetrievalConfig, now: datetime
    ) -> Intent:
        entities, speakers = names
        intent = analyze_query(query, known_entities=entities, known_speakers=speakers, now=now)
        if cfg.llm_intent and self.engine.llm is not None:
            parsed = parse_intent_with_llm(self.engine.llm, query, cfg.llm_timeout_s, now)
            if parsed is not None:
                intent = parsed.merged_over(intent)
        template = self.intents.get(given.step if given is not None else None)
        if template is not None:
            intent = template.merged_over(intent)
        if given is not None:
            intent = given.merged_over(intent)
        return intent

    def _weigh_informativeness(
        self,
        scored: list[Scored],
        vectors: Mapping[str, list[float]],
        cfg: RetrievalConfig,
        intent: Intent,
        embedder: Embedder,
        cal: Calibration,
    ) -> None:
        """Scale each spoken record's score by :func:`informativeness` of its calibrated
        cosine to its speaker's name alone (``vectors`` are ``embedder``'s), and re-rank."""
        spoken = [x for x in scored if x.record.speaker and x.record.id in vectors]
        if not spoken:
            return
        names = sorted({str(x.record.speaker) for x in spoken})
        name_vecs = np.asarray(
            [self._query_vector(f"{n}:", embedder) for n in names], dtype=np.float32
        )
        rows = np.asarray([vectors[x.record.id] for x in spoken], dtype=np.float32)
        which = np.asarray([names.index(str(x.record.speaker)) for x in spoken])
        cosines = np.einsum("ij,ij->i", rows, name_vecs[which])
        weights = {**cfg.weights, **intent.weights}
        for x, cos in zip(spoken, cosines.tolist()):
            factor = informativeness(cal(cos), cfg.speaker_only_penalty)
            # only the similarity is inflated by the speaker's name: task, utility, importance
            # and freshness keep their full weight
            x.parts.semantic *= factor
            x.total = prism_total(x.parts, x.record, weights, cfg)
            x.trace.scores["informative"] = round(factor, 4)
            x.trace.scores["total"] = round(x.total, 4)
        scored.sort(key=lambda x: (-x.total, x.record.id))

    # -- search ---------------------------------------------------------------------------
    def search(self, req: SearchRequest) -> list[ScoredRecord]:
        """One search (``Memory.search`` validated it): the dense and BM25 routes fused by the
        one RRF, in fusion order, each hit with its relevance and fused value."""
        scope, limit = req.scope, req.limit
        visible = (
            self.engine.as_of_filter(req.as_of)
            if req.as_of is not None
            else self.engine.visible_filter(include_history=req.include_history)
        )
        flt = visible & parse_filters(req.filters)
        qvec = self.engine.embedder.embed_query(req.query)
        routes = hybrid_routes(
            qvec, self.engine.sparse.query(req.query), prefetch_limit=max(limit * 4, 32)
        )
        store = self.engine.store
        return scored_records(
            store.query_routes(scope, routes, flt, with_payload=False),
            qvec,
            k=self.engine.config.retrieval.rrf_k,
            limit=limit,
            score_threshold=req.score_threshold,
            fetch_points=lambda ids: store.get_points(ids, scope),
        )

    # -- recall -------------------------------------------------------------------------
    def recall(self, req: RecallRequest) -> MemoryContext:
        """One recall (``Memory.recall`` validated it): the cached context when there is one,
        else the stages intent -> embed -> retrieve -> score -> construct, timed and traced."""
        t0 = time.perf_counter()
        cfg = req.config or self.engine.config.retrieval
        now = req.now if req.now is not None else (req.as_of or utcnow())
        key = _cache_key(req, cfg, now)
        cached = self.recall_cache.get(req.scope, *key[0], clock=key[1]) if key else None
        if isinstance(cached, MemoryContext):
            cached.trace.cached = True
            if cfg.track_access:
                self._track(req.scope.widen(session=True), cached.records)
            return cached
        ctx = self._run(req, cfg, now, t0)
        if cfg.track_access and ctx.records:
            self._track(req.scope.widen(session=True), ctx.records)
        if key is not None:
            self.recall_cache.put(req.scope, *key[0], ctx, clock=key[1])
        return ctx

    def _track(self, scope: Scope, records: Sequence[MemoryRecord]) -> None:
        """Queue an access of ``records`` (written off the hot path by the access log)."""
        self.access_log.add(scope, [(r.id, r.access_count) for r in records])

    def _run(
        self, req: RecallRequest, cfg: RetrievalConfig, now: datetime, t0: float
    ) -> MemoryContext:
        """The stages of a recall; ``trace.timings_ms`` times each."""
        scope = req.scope.widen(session=True)
        trace = RecallTrace()
        names = self._known_names(scope)  # once a recall: a scope can know thousands
        intent = self._resolve_intent(req.query, req.intent, names, cfg, now)
        trace.intent = intent.model_dump(mode="json")
        t1 = time.perf_counter()
        run = _Run(req, cfg, now, scope, trace, intent, self._embed(req.query), names)
        t2 = time.perf_counter()
        plan, candidates, vectors = self._retrieve(run)
        t3 = time.perf_counter()
        scored = self._score(run, plan, candidates, vectors)
        items, text, tokens = self._construct(run, plan, scored, candidates, vectors)
        t4 = time.perf_counter()
        if cfg.llm_compression != "off" and self.engine.llm is not None and items:
            text, tokens = self._llm_compress(
                req.query, intent, cfg, text, tokens, req.budget_tokens, trace
            )
        trace.timings_ms = {
            "intent": round((t1 - t0) * 1000, 3),
            "embed": round((t2 - t1) * 1000, 3),
            "retrieve": round((t3 - t2) * 1000, 3),
            "construct": round((t4 - t3) * 1000, 3),
            "total": round((time.perf_counter() - t0) * 1000, 3),
        }
        records = [i.record for i in items]
        return MemoryContext(text, records, tokens, req.budget_tokens, trace, items)

    def _embed(self, query: str) -> _Space:
        """Embed the query. A query holding CJK characters is embedded by the store's CJK
        embedder: the dense routes search the ``dense_cjk`` vectors and candidates are scored
        in that embedder's space (docs/multilingual.md); any other query by the main one."""
        cjk = self.engine.cjk_embedder if has_cjk(query) else None
        embedder = cjk if cjk is not None else self.engine.embedder
        vector = self._query_vector(query, cjk) if cjk is not None else self._query_vector(query)
        return _Space(
            vector, cjk is not None, embedder, calibration_for(embedder, "cjk" if cjk else "en")
        )

    def _retrieve(self, run: _Run) -> tuple[RoutePlan, list[Candidate], dict[str, list[float]]]:
        """Broad retrieve: every route of the plan in one store call, fused; the pool filled
        with payloads and vectors in one more."""
        req, cfg, space = run.req, run.cfg, run.space
        plan = plan_routes(
            intent=run.intent,
            config=cfg,
            dense=space.vector,
            cjk=space.vector if space.cjk else None,
            sparse=self.engine.sparse.query(req.query),
            base_filter=(
                self.engine.as_of_filter(req.as_of)
                if req.as_of is not None
                else self.engine.visible_filter()
            ),
            session_scope=req.scope if req.scope.session_id else None,
            speaker_values=run.names[1],
        )
        store = self.engine.store
        results = plan.trim(
            store.query_routes(run.scope, plan.routes, plan.base_filter, with_payload=False)
        )
        run.trace.routes = {name: len(hits) for name, hits in results.items()}
        fused = fuse(results, method=cfg.fusion, k=cfg.rrf_k, weights=cfg.route_weights, limit=None)
        candidates, vectors = _filled(_pool(fused, cfg.pool_size), store, run.scope, space.name)
        if second_hop_enabled(cfg):  # along the first hop's link keys, time and relations
            candidates, vectors = second_hop(
                store,
                run.scope,
                plan.base_filter,
                candidates,
                vectors,
                vector=space.vector,
                space=space.name,
                cfg=cfg,
                speakers=speaker_names(run.names[1]),
            )
            for name in (GRAPH_ROUTE, *SECOND_HOP_ROUTES):
                found = sum(name in c.ranks for c in candidates)
                if found or name in cfg.routes:
                    run.trace.routes[name] = found
        if space.cjk:
            for cand in candidates:
                cand.vector = vectors.get(cand.id)
        return plan, candidates, vectors

    def _score(
        self,
        run: _Run,
        plan: RoutePlan,
        candidates: list[Candidate],
        vectors: dict[str, list[float]],
    ) -> list[Scored]:
        """Score the pool; leave out what the prompt already shows; weigh how informative a
        spoken record is beyond its speaker's name; give each its vector for de-duplication."""
        req, cfg, space = run.req, run.cfg, run.space
        scored = score_candidates(
            candidates,
            space.vector,
            run.intent,
            cfg,
            now=run.now,
            buffer_session=plan.buffer_session,
            trace=run.trace,
            as_of=req.as_of,
            calibrate=space.calibrate,
        )
        if req.shows_thread:  # the prompt shows these already
            thread = req.thread
            for x in scored:
                if in_thread(x.record, req.thread_session, thread):
                    x.trace.outcome = "cut:in_thread"
            scored = [x for x in scored if x.trace.outcome != "cut:in_thread"]
        spoken = cfg.speaker_only_penalty > 0 and any(x.record.speaker for x in scored)
        if spoken and scored:
            self._weigh_informativeness(
                scored, vectors, cfg, run.intent, space.embedder, space.calibrate
            )
        if cfg.dedup_vectors and scored:
            for x in scored:
                vec = vectors.get(x.record.id)
                x.vector = np.asarray(vec, dtype=np.float32) if vec is not None else None
        return scored

    def _construct(
        self,
        run: _Run,
        plan: RoutePlan,
        scored: list[Scored],
        candidates: list[Candidate],
        vectors: dict[str, list[float]],
    ) -> tuple[list[ContextItem], str, int]:
        """Select, add neighbouring turns, pack into the budget; each item's relevance, and
        each candidate's outcome in the trace."""
        req, cfg = run.req, run.cfg
        selected = select(scored, cfg, run.trace, query=req.query)
        if cfg.expand_neighbors > 0 and cfg.expand_top > 0:
            selected = self._expand(selected, candidates, run, plan)
        items, text, tokens = pack(
            selected, query=req.query, budget_tokens=req.budget_tokens, config=cfg
        )
        missing = [i.record.id for i in items if i.record.id not in vectors]
        if missing:
            vectors.update(_vectors(self.engine.store, missing, run.scope, run.space.name))
        for item in items:
            item.relevance = relevance(run.space.vector, vectors.get(item.record.id))
        shown = {i.record.id for i in items}
        for c in run.trace.candidates:
            if c.outcome == "candidate":
                c.outcome = "kept" if c.id in shown else "cut:budget"
        return items, text, tokens

    def _llm_compress(
        self,
        query: str,
        intent: Intent,
        cfg: RetrievalConfig,
        text: str,
        tokens: int,
        budget: int,
        trace: RecallTrace,
    ) -> tuple[str, int]:
        strategy = choose_strategy(cfg.llm_compression, query, intent)
        inner = text[len(BLOCK_OPEN) : -len(BLOCK_CLOSE)].strip("\n")
        out = compress_with_llm(self.engine.llm, strategy, query, inner, cfg.llm_timeout_s)
        if out is None:
            trace.compression = f"extractive (llm {strategy} failed)"
            return text, tokens
        shown = escape_lines(out)  # the model's answer is data like any other
        new_text = f"{BLOCK_OPEN}\n{shown}\n{BLOCK_CLOSE}"
        new_tokens = count_tokens(new_text)
        if new_tokens > budget or not shown:
            trace.compression = f"extractive (llm {strategy} output rejected)"
            return text, tokens
        trace.compression = f"llm:{strategy}"
        return new_text, new_tokens

    def _expand(
        self, selected: list[Scored], pool: Sequence[Candidate], run: _Run, plan: RoutePlan
    ) -> list[Scored]:
        """Add neighbouring turns of short top episodic hits (they need their context), each
        scored as a share of the hit it neighbours."""
        cfg = run.cfg
        wanted = neighbours_wanted(selected, cfg)
        if not wanted:
            return selected
        found = self.engine.store.query_routes(
            run.scope, neighbour_routes(wanted), plan.base_filter
        )
        extra, parent = neighbour_candidates(found, wanted, {s.record.id for s in selected})
        if not extra:
            return selected
        scored = score_candidates(
            extra,
            run.space.vector,
            run.intent,
            cfg,
            now=run.now,
            buffer_session=plan.buffer_session,
            trace=run.trace,
            calibrate=run.space.calibrate,
        )
        pool_ids = {c.id for c in pool}
        for s in scored:
            src = parent[s.record.id]
            s.total = src.total * cfg.expand_weight
            s.neighbour_of = src.record.id
            s.trace.scores["total"] = round(s.total, 4)
            s.trace.outcome = "candidate"
            if s.record.id not in pool_ids:
                run.trace.expanded.append(s.record.id)
        merged = selected + scored
        merged.sort(key=lambda s: (-s.total, s.record.id))
        return merged

    # -- feedback -----------------------------------------------------------------------
    def feedback(self, record_ids: Sequence[str], success: bool, scope: Scope) -> dict[str, float]:
        """Move the utility of the scope's records among ``record_ids`` (every session of the
        user / agent) toward 1 or 0; returns ``{id: new utility}``."""
        scope = scope.widen(session=True)
        if isinstance(record_ids, str) or not isinstance(record_ids, Sequence):
            raise ValidationError(
                "record_ids must be a list of record ids, e.g. [r.id for r in ctx.records]"
            )
        if not isinstance(success, bool):
            raise ValidationError(f"success must be True or False, got {success!r}")
        cfg = self.engine.config.retrieval
        out: dict[str, float] = {}
        with self.engine.scope_lock(scope):
            records: list[MemoryRecord] = self.engine.store.get([str(i) for i in record_ids], scope)
            now = utcnow().isoformat()
            for r in records:
                n = int(r.metadata.get("feedback_count", 0) or 0)
                new = updated_utility(
                    r.utility, success, n, step=cfg.feedback_step, decay=cfg.feedback_decay
                )
                meta = {**r.metadata, "feedback_count": n + 1}
                self.engine.update(
                    [r.id],
                    scope,
                    {
                        "utility": new,
                        "metadata": meta,
                        "last_accessed": now,
                        "access_count": r.access_count + 1,
                    },
                )
                out[r.id] = new
        return out


@dataclass(frozen=True)
class _Space:
    """The embedding space a recall runs in: the query's vector, whether it is the CJK
    embedder's (``dense_cjk``) or the main one's (``dense``), that embedder and its calibration."""

    vector: list[float]
    cjk: bool
    embedder: Embedder
    calibrate: Calibration

    @property
    def name(self) -> str:
        return CJK_VECTOR if self.cjk else DENSE_VECTOR


@dataclass
class _Run:
    """One recall between its stages: the request and what the earlier stages settled."""

    req: RecallRequest
    cfg: RetrievalConfig
    now: datetime
    scope: Scope  # the long-term scope: every session of the user / agent
    trace: RecallTrace
    intent: Intent
    space: _Space
    names: _Names  # the entity keys and speakers the scope knows


def _cache_key(
    req: RecallRequest, cfg: RetrievalConfig, now: datetime
) -> tuple[tuple[str, str, int, str], str] | None:
    """The recall cache's key of ``req`` (every input that changes the context, the clock
    included) and its clock, or ``None`` when the context is not cached (no cache, ``as_of``)."""
    if cfg.cache_size <= 0 or cfg.cache_ttl_s <= 0 or req.as_of is not None:
        return None
    key = (req.intent_key(), req.query, req.budget_tokens, _config_signature(cfg))
    return key, _clock_key(now, given=req.now is not None)


def _filled(
    candidates: list[Candidate], store: Any, scope: Scope, vector: str = DENSE_VECTOR
) -> tuple[list[Candidate], dict[str, list[float]]]:
    """The pool with each record's payload, and the pool's dense vectors, fetched in one call:
    the routes ran without payloads (loading them is most of a route's cost when records are
    long, and most hits do not make the pool). A record deleted in between is left out."""
    ids = [c.id for c in candidates]
    # a store of the caller's written before named vectors other than dense: no keyword
    points = (
        store.get_points(ids, scope)
        if vector == DENSE_VECTOR
        else store.get_points(ids, scope, vector=vector)
    )
    vectors = {i: p.vector for i, p in points.items() if p.vector}
    return with_payloads(candidates, points), vectors


def _vectors(store: Any, ids: list[str], scope: Scope, vector: str) -> dict[str, list[float]]:
    """``store.get_vectors`` of the named vector (the keyword only when it is not ``dense``)."""
    if vector == DENSE_VECTOR:
        return dict(store.get_vectors(ids, scope))
    return dict(store.get_vectors(ids, scope, vector=vector))


def _pool(candidates: list[Candidate], size: int) -> list[Candidate]:
    """The best ``size`` candidates, plus the current session's buffer turns."""
    head = candidates[:size]
    extra = [c for c in candidates[size:] if "buffer" in c.ranks]
    return head + extra


def _config_signature(cfg: RetrievalConfig) -> str:
    blob = cfg.model_dump_json()
    return hashlib.blake2b(blob.encode(), digest_size=10).hexdigest()


def _clock_key(now: datetime, *, given: bool) -> str:
    """The clock a recall reads, as part of its cache key: the caller's ``now`` exactly, or
    the current minute when it gave none (relative dates and freshness then follow the wall
    clock; the cache's TTL bounds the rest).

    >>> _clock_key(datetime(2026, 3, 2, 9, 30, 15), given=True)
    'at:2026-03-02T09:30:15'
    >>> _clock_key(datetime(2026, 3, 2, 9, 30, 15), given=False)
    'wall:2026-03-02T09:30'
    """
    if given:
        return "at:" + now.isoformat()
    return "wall:" + now.strftime("%Y-%m-%dT%H:%M")
