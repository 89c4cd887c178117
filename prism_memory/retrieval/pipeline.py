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
- Selective construct: ``retrieval/construct.py`` (score, select, compress, pack), rendered as
  a data block; optional LLM compression with a timeout and extractive fallback.
- Query embeddings and whole results are cached; every write in a scope (the engine's
  write events) invalidates what it could change. A cached result is keyed by every input
  that changes it, the clock (``now``) included, and is handed out as a copy. The names a
  scope knows (speakers, entity keys, counts: ``names.py``) are read by facets once and then
  kept current by the events.
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
from datetime import datetime
from typing import Any

import numpy as np
from pydantic import TypeAdapter

from .._validation import check_text, check_utc
from ..config import RetrievalConfig
from ..embeddings import Embedder
from ..engine import Engine, WriteEvent
from ..errors import ValidationError
from ..records import MemoryRecord, Scope, ScoredRecord, utcnow
from ..sparse import has_cjk
from ..stores import parse_filters
from ..stores.base import CJK_VECTOR, DENSE_VECTOR, RouteQuery, hybrid_routes
from ..stores.filters import Condition, RecordFilter
from ..tokens import count_tokens
from .access import AccessLog
from .cache import RecallCache
from .calibration import Calibration, calibration_for
from .construct import Scored, pack, prism_total, score_candidates, select
from .context import MemoryContext, RecallTrace, in_thread, thread_signature
from .fusion import Candidate, fuse, scored_records, with_payloads
from .graph import GRAPH_ROUTE, hop_candidates, plan_hop, speaker_names
from .intent import Intent, IntentRegistry, analyze_query
from .llm import choose_strategy, compress_with_llm, parse_intent_with_llm
from .names import ScopeNames, known_names
from .render import BLOCK_CLOSE, BLOCK_OPEN, escape_lines
from .routes import TIE_MARGIN, plan_routes, trim_ties
from .scoring import check_score_threshold, informativeness, relevance, updated_utility

__all__ = ["RecallPipeline"]

_DATETIME: TypeAdapter[datetime] = TypeAdapter(datetime)
_QVEC_CACHE = 1024


class RecallPipeline:
    """recall / search / feedback / register_intent, over an engine."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        cfg = engine.config.retrieval
        self.intents = IntentRegistry()
        self.recall_cache = RecallCache(cfg.cache_size, cfg.cache_ttl_s)
        self._qvecs: OrderedDict[tuple[str, str], list[float]] = OrderedDict()
        self.names = ScopeNames(engine.store, engine.visible_filter)
        self._read_lock = threading.Lock()
        self.access_log = AccessLog(self._write_access, cfg.access_flush_s)
        engine.on_write(self._invalidate_reads)

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
            self.engine.store.set_payload(
                ids, scope, {"last_accessed": stamp, "access_count": count}
            )

    def flush_access(self) -> int:
        """Write the pending access statistics of past recalls now; returns records updated."""
        return self.access_log.flush()

    def close(self) -> None:
        """Write pending access statistics (the engine closes the store)."""
        if not self.engine.closed:
            self.access_log.close()

    # -- caches -------------------------------------------------------------------------
    def _invalidate_reads(self, event: WriteEvent) -> None:
        """Drop what a write or delete in ``event.scope`` could have changed: every cached
        context whose scope overlaps it (:func:`~prism_memory.retrieval.cache.scopes_overlap`);
        the scopes' name counts take in inserted records and drop on any other change."""
        self.recall_cache.invalidate(event.scope)
        self.names.on_write(event.scope, event.inserted)

    def _query_vector(self, query: str, embedder: Embedder | None = None) -> list[float]:
        emb = embedder or self.engine.embedder
        key = (emb.name, query)
        with self._read_lock:
            vec = self._qvecs.get(key)
            if vec is not None:
                self._qvecs.move_to_end(key)
                return vec
        vec = emb.embed_query(query)
        with self._read_lock:
            self._qvecs[key] = vec
            while len(self._qvecs) > _QVEC_CACHE:
                self._qvecs.popitem(last=False)
        return vec

    def _known_names(self, scope: Scope) -> tuple[frozenset[str], dict[str, list[str]]]:
        """Entity keys and speakers of the scope (facets once, then kept by write events)."""
        counts = self.names.counts(scope)
        return known_names(counts, self.engine.config.retrieval.entity_max_share)

    # -- intent -------------------------------------------------------------------------
    def register_intent(self, name: str, **fields: Any) -> None:
        """Register a PRISM intent template for an agent step."""
        self.intents.register(name, **fields)
        self.recall_cache.invalidate(None)

    def _resolve_intent(
        self, query: str, given: Intent | None, scope: Scope, cfg: RetrievalConfig, now: datetime
    ) -> Intent:
        entities, speakers = self._known_names(scope)
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
    def search(
        self,
        query: str,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        limit: int = 10,
        filters: dict[str, Any] | None = None,
        include_history: bool = False,
        score_threshold: float | None = None,
        as_of: datetime | None = None,
    ) -> list[ScoredRecord]:
        """Hybrid search (dense + BM25, RRF) within the scope, in fusion order; each hit's
        ``score`` is its relevance (cosine to the query, in [0, 1]), ``rank_score`` the fused
        value; hits below ``score_threshold`` are dropped before ``limit``. ``as_of``: only
        the states valid at that time."""
        self.engine.check_open()
        scope = Scope.of(user_id, agent_id, session_id)
        check_text(query, "query")
        if not isinstance(limit, int) or isinstance(limit, bool) or limit < 1 or limit > 1000:
            raise ValidationError(f"limit must be an integer in [1, 1000], got {limit!r}")
        threshold = check_score_threshold(score_threshold)
        when = _as_of(as_of)
        visible = (
            self.engine.as_of_filter(when)
            if when is not None
            else self.engine.visible_filter(include_history=include_history)
        )
        flt = visible & parse_filters(filters)
        qvec = self.engine.embedder.embed_query(query)
        routes = hybrid_routes(
            qvec, self.engine.sparse.query(query), prefetch_limit=max(limit * 4, 32)
        )
        store = self.engine.store
        return scored_records(
            store.query_routes(scope, routes, flt, with_payload=False),
            qvec,
            k=self.engine.config.retrieval.rrf_k,
            limit=limit,
            score_threshold=threshold,
            fetch_points=lambda ids: store.get_points(ids, scope),
        )

    # -- recall -------------------------------------------------------------------------
    def recall(
        self,
        query: str,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        intent: Intent | None = None,
        budget_tokens: int = 1000,
        config: RetrievalConfig | None = None,
        now: datetime | None = None,
        as_of: datetime | None = None,
        thread_session: str | None = None,
        thread_texts: Sequence[str] = (),
    ) -> MemoryContext:
        """Build a token-budgeted context of the memories that serve ``query``; ``as_of``:
        from the states valid at that time (and ``now`` defaults to it)."""
        self.engine.check_open()
        t0 = time.perf_counter()
        scope = Scope.of(user_id, agent_id, session_id)
        check_text(query, "query")
        if (
            not isinstance(budget_tokens, int)
            or isinstance(budget_tokens, bool)
            or budget_tokens < 1
        ):
            raise ValidationError(
                f"budget_tokens must be a positive integer (tokens), got {budget_tokens!r}"
            )
        if now is not None and not isinstance(now, datetime):
            raise ValidationError(f"now must be a datetime (naive = UTC), got {type(now).__name__}")
        if intent is not None and not isinstance(intent, Intent):
            raise ValidationError(
                f"intent must be a prism_memory.Intent, got {type(intent).__name__}; "
                "build one with Intent(step=..., kinds=[...])"
            )
        when = _as_of(as_of)
        now_given = now is not None
        cfg = config or self.engine.config.retrieval
        cfg_sig = _config_signature(cfg)
        given_sig = intent.signature() if intent is not None else "-"
        use_cache = cfg.cache_size > 0 and cfg.cache_ttl_s > 0 and when is None
        thread = frozenset(" ".join(t.split()) for t in thread_texts if t and t.strip())
        if thread_session is not None or thread:
            given_sig += "|thread:" + thread_signature(thread_session, thread)
        now = (when or utcnow()) if now is None else check_utc(now, "now")
        clock = _clock_key(now, given=now_given)
        cached = (
            self.recall_cache.get(scope, given_sig, query, budget_tokens, cfg_sig, clock=clock)
            if use_cache
            else None
        )
        if isinstance(cached, MemoryContext):
            cached.trace.cached = True
            if cfg.track_access:
                self.access_log.add(
                    scope.widen(session=True), [(r.id, r.access_count) for r in cached.records]
                )
            return cached
        long_scope = scope.widen(session=True)
        trace = RecallTrace()
        resolved = self._resolve_intent(query, intent, long_scope, cfg, now)
        trace.intent = resolved.model_dump(mode="json")
        t1 = time.perf_counter()
        # a query holding CJK characters is embedded by the store's CJK embedder: the dense
        # routes search the dense_cjk vectors and candidates are scored in that embedder's
        # space (docs/multilingual.md); any other query by the main embedder
        cjk_emb = self.engine.cjk_embedder if has_cjk(query) else None
        cvec = self._query_vector(query, cjk_emb) if cjk_emb is not None else None
        qvec = cvec if cvec is not None else self._query_vector(query)
        t2 = time.perf_counter()
        plan = plan_routes(
            intent=resolved,
            config=cfg,
            dense=qvec,
            cjk=cvec,
            sparse=self.engine.sparse.query(query),
            base_filter=(
                self.engine.as_of_filter(when) if when is not None else self.engine.visible_filter()
            ),
            session_scope=scope if scope.session_id else None,
            speaker_values=self._known_names(long_scope)[1],
        )
        store = self.engine.store
        results = plan.trim(
            store.query_routes(long_scope, plan.routes, plan.base_filter, with_payload=False)
        )
        trace.routes = {name: len(hits) for name, hits in results.items()}
        candidates = fuse(
            results, method=cfg.fusion, k=cfg.rrf_k, weights=cfg.route_weights, limit=None
        )
        space = CJK_VECTOR if cvec is not None else DENSE_VECTOR
        candidates, vectors = _filled(_pool(candidates, cfg.pool_size), store, long_scope, space)
        if GRAPH_ROUTE in cfg.routes:  # the second hop, along the first hop's link keys
            candidates, vectors = self._second_hop(
                candidates,
                vectors,
                long_scope,
                plan.base_filter,
                cvec if cvec is not None else qvec,
                space,
                cfg,
            )
            trace.routes[GRAPH_ROUTE] = sum(GRAPH_ROUTE in c.ranks for c in candidates)
        if cvec is not None:
            for cand in candidates:
                cand.vector = vectors.get(cand.id)
        svec = cvec if cvec is not None else qvec
        space_emb = cjk_emb if cjk_emb is not None else self.engine.embedder
        cal = calibration_for(space_emb, "cjk" if cvec is not None else "en")
        t3 = time.perf_counter()
        scored = score_candidates(
            candidates,
            svec,
            resolved,
            cfg,
            now=now,
            buffer_session=plan.buffer_session,
            trace=trace,
            as_of=when,
            calibrate=cal,
        )
        if thread_session is not None or thread:  # the prompt shows these already
            for x in scored:
                if in_thread(x.record, thread_session, thread):
                    x.trace.outcome = "cut:in_thread"
            scored = [x for x in scored if x.trace.outcome != "cut:in_thread"]
        spoken = cfg.speaker_only_penalty > 0 and any(x.record.speaker for x in scored)
        if (cfg.dedup_vectors or spoken) and scored:
            if spoken:
                self._weigh_informativeness(scored, vectors, cfg, resolved, space_emb, cal)
            if cfg.dedup_vectors:
                for x in scored:
                    vec = vectors.get(x.record.id)
                    x.vector = np.asarray(vec, dtype=np.float32) if vec is not None else None
        selected = select(scored, cfg, trace, query=query)
        if cfg.expand_neighbors > 0 and cfg.expand_top > 0:
            selected = self._expand(
                selected,
                candidates,
                long_scope,
                plan.base_filter,
                cfg,
                svec,
                resolved,
                now,
                plan.buffer_session,
                trace,
                cal,
            )
        items, text, tokens = pack(selected, query=query, budget_tokens=budget_tokens, config=cfg)
        missing = [i.record.id for i in items if i.record.id not in vectors]
        if missing:
            vectors.update(_vectors(self.engine.store, missing, long_scope, space))
        for item in items:
            item.relevance = relevance(svec, vectors.get(item.record.id))
        t4 = time.perf_counter()
        shown = {i.record.id for i in items}
        for c in trace.candidates:
            if c.outcome == "candidate":
                c.outcome = "kept" if c.id in shown else "cut:budget"
        records = [i.record for i in items]
        if cfg.llm_compression != "off" and self.engine.llm is not None and items:
            text, tokens = self._llm_compress(
                query, resolved, cfg, text, tokens, budget_tokens, trace
            )
        trace.timings_ms = {
            "intent": round((t1 - t0) * 1000, 3),
            "embed": round((t2 - t1) * 1000, 3),
            "retrieve": round((t3 - t2) * 1000, 3),
            "construct": round((t4 - t3) * 1000, 3),
            "total": round((time.perf_counter() - t0) * 1000, 3),
        }
        ctx = MemoryContext(text, records, tokens, budget_tokens, trace, items)
        if cfg.track_access and records:
            self.access_log.add(long_scope, [(r.id, r.access_count) for r in records])
        if use_cache:
            self.recall_cache.put(scope, given_sig, query, budget_tokens, cfg_sig, ctx, clock=clock)
        return ctx

    def _second_hop(
        self,
        pool: list[Candidate],
        vectors: dict[str, list[float]],
        scope: Scope,
        base_filter: RecordFilter,
        qvec: list[float],
        space: str,
        cfg: RetrievalConfig,
    ) -> tuple[list[Candidate], dict[str, list[float]]]:
        """The pool with the ``graph`` route's records (``graph.py``): records of other
        sessions sharing a link key with the pool's best, ranked by the query's vector."""
        query = plan_hop(
            pool,
            seeds=cfg.graph_seeds,
            vector=qvec,
            space=space,
            limit=cfg.aux_route_limit + TIE_MARGIN,
            speakers=speaker_names(self._known_names(scope)[1]),
        )
        if query is None:
            return pool, vectors
        store = self.engine.store
        found = store.query_routes(scope, [query], base_filter)
        hits = trim_ties(found.get(GRAPH_ROUTE, []), cfg.aux_route_limit, query.limit)
        assert query.filter is not None
        new = hop_candidates(
            hits,
            pool,
            keys=query.filter.must[0].value,
            k=cfg.rrf_k,
            weight=cfg.route_weights.get(GRAPH_ROUTE, 1.0),
            limit=cfg.graph_limit,
        )
        if not new:
            return pool, vectors
        filled, more = _filled(new, store, scope, space)
        merged = sorted([*pool, *filled], key=lambda c: (-c.fused, c.id))
        return merged, {**vectors, **more}

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
        self,
        selected: list[Scored],
        pool: Sequence[Candidate],
        scope: Scope,
        base_filter: RecordFilter,
        cfg: RetrievalConfig,
        qvec: list[float],
        intent: Intent,
        now: datetime,
        buffer_session: str | None,
        trace: RecallTrace,
        cal: Calibration | None = None,
    ) -> list[Scored]:
        """Add neighbouring turns of short top episodic hits (they need their context)."""
        have = {s.record.id for s in selected}
        seen_turns = {_turn_key(s.record) for s in selected}
        wanted: dict[tuple[str, int], Scored] = {}
        for s in selected[: cfg.expand_top]:
            r = s.record
            turn = r.metadata.get("turn_index")
            if s.section != "episodic" or not r.session_id or not isinstance(turn, int):
                continue
            if count_tokens(r.text) > cfg.expand_max_tokens:
                continue
            for d in range(1, cfg.expand_neighbors + 1):
                for t in (turn - d, turn + d):
                    key = (r.session_id, t)
                    if t >= 0 and key not in seen_turns and key not in wanted:
                        wanted[key] = s
        if not wanted:
            return selected
        routes = []
        by_session: dict[str, list[int]] = {}
        for sid, t in wanted:
            by_session.setdefault(sid, []).append(t)
        for i, (sid, turns) in enumerate(sorted(by_session.items())):
            flt = RecordFilter(
                must=[
                    Condition("session_id", "eq", sid),
                    Condition("layer", "any", ["episodic"]),
                    Condition("metadata.turn_index", "any", sorted(turns)),
                ]
            )
            routes.append(RouteQuery(f"n{i}", "order", None, len(turns) * 2, flt))
        found = self.engine.store.query_routes(scope, routes, base_filter)
        extra: list[Candidate] = []
        parent: dict[str, Scored] = {}
        pool_ids = {c.id for c in pool}
        for hits in found.values():
            for h in hits:
                turn = (
                    h.payload.get("session_id"),
                    (h.payload.get("metadata") or {}).get("turn_index"),
                )
                src = wanted.get(turn)  # type: ignore[arg-type]
                if src is None or h.id in have or h.id in parent:
                    continue
                parent[h.id] = src
                extra.append(Candidate(h.id, h.payload, h.vector, 0.0, {"neighbour": 0}))
        if not extra:
            return selected
        scored = score_candidates(
            extra,
            qvec,
            intent,
            cfg,
            now=now,
            buffer_session=buffer_session,
            trace=trace,
            calibrate=cal,
        )
        for s in scored:
            src = parent[s.record.id]
            s.total = src.total * cfg.expand_weight
            s.neighbour_of = src.record.id
            s.trace.scores["total"] = round(s.total, 4)
            s.trace.outcome = "candidate"
            if s.record.id not in pool_ids:
                trace.expanded.append(s.record.id)
        merged = selected + scored
        merged.sort(key=lambda s: (-s.total, s.record.id))
        return merged

    # -- feedback -----------------------------------------------------------------------
    def feedback(
        self,
        record_ids: Sequence[str],
        success: bool = True,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
    ) -> dict[str, float]:
        """Tell PRISM whether the recalled records helped; returns ``{id: new utility}``."""
        self.engine.check_open()
        scope = Scope.of(user_id, agent_id, session_id).widen(session=True)
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
                self.engine.store.set_payload(
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
        if out:
            self.engine.notify_write(scope)
        return out


def _as_of(value: datetime | None) -> datetime | None:
    if value is None:
        return None
    if not isinstance(value, datetime):
        raise ValidationError(f"as_of must be a datetime (naive = UTC), got {type(value).__name__}")
    return check_utc(value, "as_of")


def _turn_key(r: MemoryRecord) -> tuple[str, int] | None:
    t = r.metadata.get("turn_index")
    return (r.session_id, t) if r.session_id and isinstance(t, int) else None


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
