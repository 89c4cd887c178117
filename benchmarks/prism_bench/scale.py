"""``prism bench scale``: ingest throughput and filtered hybrid search latency at 10K-1M memories.

Design:
- Synthetic memories: short texts from templates and a random vocabulary (fixed seed), spread
  over ``--users`` users (memory ``i`` belongs to user ``i % users``), with varied kinds, layers
  and event times. Queries come from their own templates, each asked in one user's scope.
- Ingest: ``Memory.add_many`` batches on a sample with the REAL embedding model (dense + BM25 +
  upsert), embedding time measured separately by a timing wrapper around the embedder.
- Bulk load: every text is embedded with the real model (``--pool N`` caps the unique texts at
  N and repeats them, said in the report), then the same points are upserted into the embedded
  Qdrant Edge store and into qdrant-client local mode (``location=":memory:"``). Sizes grow
  incrementally; ``store.optimize()`` runs before timing.
- Timed at each size: store-level filtered hybrid query (dense + BM25 prefetch, RRF, scope +
  visibility filter; pre-computed query vectors, the same call on both engines), end-to-end
  ``Memory.search`` (adds query embedding), ``Memory.recall`` when the installed Memory has it.
  Local mode takes seconds per query at 100K, so its query count is capped (``--baseline-queries``
  and ``--baseline-budget-s``); the ratio compares p50s on the same queries.
- ``--long-share F``: that share of the memories (and of the ingest sample) are long texts,
  600-2,800 characters of template sentences like a long assistant reply, so the store and
  recall pay for long payloads, passages and their packing.
- Writes ``<name>.json`` and ``<name>.md`` (``--name``, default ``scale``) to ``--out``.
"""

from __future__ import annotations

import argparse
import gc
import json
import logging
import os
import platform
import random
import resource
import statistics
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import numpy as np

from prism_memory.retrieval.hybrid import hybrid_query

from ._scale_data import KIND_TO_LAYER, NAMES, make_queries, make_texts
from ._scale_report import render_markdown, targets

__all__ = ["add_arguments", "make_queries", "make_texts", "percentile", "run"]

log = logging.getLogger("prism_memory")


def percentile(values: Sequence[float], q: float) -> float:
    """Linear-interpolated percentile (``q`` in [0, 100]) of a non-empty sequence."""
    return float(np.percentile(np.asarray(values, dtype=float), q))


def _latency(samples_s: Sequence[float]) -> dict[str, float]:
    ms = [s * 1000 for s in samples_s]
    return {
        "n": len(ms),
        "p50_ms": round(percentile(ms, 50), 3),
        "p95_ms": round(percentile(ms, 95), 3),
        "mean_ms": round(statistics.fmean(ms), 3),
    }


def _rss_mb() -> float:
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        pass
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def _peak_rss_mb() -> float:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def _dir_mb(path: Path) -> float:
    # allocated blocks, not apparent size: the WAL pre-allocates sparse files
    total = sum(f.stat().st_blocks * 512 for f in path.rglob("*") if f.is_file())
    return round(total / 1e6, 1)


@dataclass
class TimedEmbedder:
    """Wraps an embedder and adds up the seconds spent embedding (documents and queries)."""

    inner: Any
    seconds: float = 0.0
    texts: int = 0
    calls: list[float] = field(default_factory=list)

    @property
    def dim(self) -> int:
        return int(self.inner.dim)

    @property
    def name(self) -> str:
        return str(self.inner.name)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        t = time.perf_counter()
        out: list[list[float]] = self.inner.embed_documents(texts)
        self.seconds += time.perf_counter() - t
        self.texts += len(texts)
        return out

    def embed_query(self, text: str) -> list[float]:
        t = time.perf_counter()
        out: list[float] = self.inner.embed_query(text)
        self.seconds += time.perf_counter() - t
        return out


def _bar(total: int, desc: str, enabled: bool) -> Any:
    from tqdm import tqdm

    return tqdm(
        total=total, desc=desc, unit="it", file=sys.stderr, disable=not enabled, leave=False
    )


def _time_each(
    items: Sequence[Any], fn: Callable[[Any], Any], *, budget_s: float | None = None
) -> list[float]:
    out: list[float] = []
    start = time.perf_counter()
    for item in items:
        t = time.perf_counter()
        fn(item)
        out.append(time.perf_counter() - t)
        if budget_s is not None and time.perf_counter() - start > budget_s:
            break
    return out


# -- the benchmark ---------------------------------------------------------------------------
def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--sizes", default="10000,100000", help="comma-separated store sizes (default 10000,100000)"
    )
    parser.add_argument("--users", type=int, default=100, help="users the memories belong to")
    parser.add_argument("--out", default="benchmarks/results", help="directory for scale.json/.md")
    parser.add_argument("--queries", type=int, default=300, help="timed queries per size")
    parser.add_argument(
        "--baseline-queries", type=int, default=30, help="cap on qdrant-client local-mode queries"
    )
    parser.add_argument(
        "--baseline-budget-s",
        type=float,
        default=45.0,
        help="stop timing local mode after this many seconds per size",
    )
    parser.add_argument("--no-baseline", action="store_true", help="skip qdrant-client local mode")
    parser.add_argument(
        "--ingest-sample", type=int, default=3000, help="texts ingested via Memory.add_many"
    )
    parser.add_argument(
        "--pool",
        type=int,
        default=0,
        help="embed at most this many unique texts and repeat them (0 = embed every text)",
    )
    parser.add_argument("--seed", type=int, default=7, help="seed of the synthetic data")
    parser.add_argument(
        "--long-share",
        type=float,
        default=0.0,
        help="share of long memories (600-2,800 characters, like long assistant replies) in "
        "the data and the ingest sample (default 0: short memories only)",
    )
    parser.add_argument(
        "--name", default="scale", help="result file stem: <out>/<name>.json and .md"
    )
    parser.add_argument("--json", action="store_true", help="print the results as JSON")


def _parse_sizes(raw: str) -> list[int]:
    from prism_memory.errors import ValidationError

    try:
        sizes = sorted({int(s.replace("_", "")) for s in raw.split(",") if s.strip()})
    except ValueError:
        raise ValidationError(
            f"--sizes {raw!r}: use comma-separated integers, e.g. 10000,100000"
        ) from None
    if not sizes or sizes[0] < 1:
        raise ValidationError(f"--sizes {raw!r}: give at least one positive size")
    return sizes


def _embedder(args: argparse.Namespace) -> Any:
    emb = getattr(args, "embedder", None)
    if emb is not None:
        return emb
    from prism_memory.embeddings import FastEmbedEmbedder

    model = getattr(args, "embedding_model", None)
    return FastEmbedEmbedder(model) if model else FastEmbedEmbedder()


def _measure_ingest(
    embedder: Any, texts: list[tuple[str, str]], users: int, workdir: Path
) -> dict[str, Any]:
    """Throughput of ``Memory.add_many`` (dense + BM25 + upsert) with embedding time split out."""
    from prism_memory.memory import Memory

    timed = TimedEmbedder(embedder)
    per_call = 250
    with Memory(path=workdir / "ingest", embedder=timed) as m:
        m.add("warm-up", user_id="warmup")
        timed.seconds = 0.0
        timed.texts = 0
        start = time.perf_counter()
        for b, lo in enumerate(range(0, len(texts), per_call)):
            chunk = texts[lo : lo + per_call]
            m.add_many(
                [{"text": t, "kind": k, "layer": KIND_TO_LAYER[k]} for k, t in chunk],
                user_id=f"user-{b % users:04d}",
            )
        wall = time.perf_counter() - start
    n = len(texts)
    return {
        "texts": n,
        "batch": per_call,
        "wall_s": round(wall, 3),
        "texts_per_s": round(n / wall, 1),
        "embedding_s": round(timed.seconds, 3),
        "embedding_texts_per_s": round(n / timed.seconds, 1) if timed.seconds else None,
        "rest_s": round(wall - timed.seconds, 3),
        "mean_chars": round(statistics.fmean(len(t) for _, t in texts), 1),
    }


def _embed_all(
    embedder: Any, texts: list[str], progress: bool, chunk: int = 1024
) -> tuple[np.ndarray, float]:
    vecs = np.zeros((len(texts), embedder.dim), dtype=np.float32)
    start = time.perf_counter()
    with _bar(len(texts), "embedding", progress) as bar:
        for lo in range(0, len(texts), chunk):
            part = texts[lo : lo + chunk]
            vecs[lo : lo + len(part)] = np.asarray(embedder.embed_documents(part), dtype=np.float32)
            bar.update(len(part))
    return vecs, time.perf_counter() - start


def run(args: argparse.Namespace) -> int:
    """Ingest, bulk-load and time every size; write ``<name>.json`` and ``<name>.md``."""
    sizes = _parse_sizes(args.sizes)
    users = max(1, int(args.users))
    progress = sys.stderr.isatty() and not args.json
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    embedder = _embedder(args)
    t_all = time.perf_counter()
    long_share = _long_share(args)
    name = getattr(args, "name", "scale") or "scale"
    data, pool = _data(args, sizes[-1], long_share)
    queries = make_queries(max(args.queries, 1), users, seed=args.seed + 4)
    results = _header(args, sizes, users, len(queries), pool, embedder.name, data, long_share)
    say = _sayer(args.json)
    with tempfile.TemporaryDirectory(prefix="prism-scale-") as tmp:
        workdir = Path(tmp)
        embedder.embed_query("warm-up")
        _ingest_stage(args, embedder, users, long_share, workdir, results, say)
        vecs = _bulk_embedding(embedder, data, pool, progress, results, say)
        bench = _open_bench(args, embedder, data, vecs, pool, users, queries, workdir)
        bench.say, bench.progress = say, progress  # the stages report as run() does
        try:
            # Pass 1: the embedded engine alone in the process (the baseline's 100K Python
            # objects would otherwise slow every garbage collection during the timed calls).
            per_size = [_edge_pass(bench, size) for size in sizes]
            # Pass 2: the same points and queries on qdrant-client local mode.
            if bench.base is not None:
                _baseline_pass(bench, per_size)
        finally:
            bench.m.close()
            if bench.base is not None:
                bench.base.close()
    results["sizes"] = per_size
    results["machine"]["load_avg_1m_end"] = round(os.getloadavg()[0], 2)
    results["peak_rss_mb"] = _peak_rss_mb()
    results["wall_s"] = round(time.perf_counter() - t_all, 1)
    results["targets"] = targets(results)
    _write(results, out_dir, name, args.json)
    return 0


def _sayer(quiet: bool) -> Callable[[str], None]:
    def say(msg: str) -> None:
        if not quiet:
            print(msg, file=sys.stderr, flush=True)

    return say


def _long_share(args: argparse.Namespace) -> float:
    long_share = float(getattr(args, "long_share", 0.0))
    if not 0.0 <= long_share <= 1.0:
        from prism_memory.errors import ValidationError

        raise ValidationError(f"--long-share {long_share}: give a share between 0 and 1")
    return long_share


def _data(
    args: argparse.Namespace, total: int, long_share: float
) -> tuple[list[tuple[str, str]], int]:
    """The ``total`` memories and how many unique texts are embedded (``--pool``)."""
    data = make_texts(total, seed=args.seed, long_share=long_share)
    pool = args.pool if 0 < args.pool < total else total
    if pool < total:  # repeat the first `pool` texts so every vector is the real one of its text
        data = [data[i % pool] for i in range(total)]
    return data, pool


def _header(
    args: argparse.Namespace,
    sizes: list[int],
    users: int,
    queries: int,
    pool: int,
    embedder_name: str,
    data: list[tuple[str, str]],
    long_share: float,
) -> dict[str, Any]:
    from prism_memory import __version__

    return {
        "benchmark": "scale",
        "version": __version__,
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "platform": platform.platform(),
            "load_avg_1m_start": round(os.getloadavg()[0], 2),
        },
        "settings": {
            "sizes": sizes,
            "users": users,
            "queries": queries,
            "baseline_queries_cap": args.baseline_queries,
            "baseline_budget_s": args.baseline_budget_s,
            "unique_texts_embedded": pool,
            "embedder": embedder_name,
            "limit": 10,
            "prefetch_limit": 40,
            "seed": args.seed,
            "long_share": long_share,
            "mean_chars": round(statistics.fmean(len(t) for _, t in data), 1),
        },
    }


def _ingest_stage(
    args: argparse.Namespace,
    embedder: Any,
    users: int,
    long_share: float,
    workdir: Path,
    results: dict[str, Any],
    say: Callable[[str], None],
) -> None:
    sample = make_texts(max(1, args.ingest_sample), seed=args.seed + 1, long_share=long_share)
    say(f"ingest: {len(sample)} texts through Memory.add_many with {embedder.name}")
    results["ingest"] = _measure_ingest(embedder, sample, users, workdir)
    say(
        f"  {results['ingest']['texts_per_s']} texts/s end to end, embedding "
        f"{results['ingest']['embedding_s']} s of {results['ingest']['wall_s']} s"
    )


def _bulk_embedding(
    embedder: Any,
    data: list[tuple[str, str]],
    pool: int,
    progress: bool,
    results: dict[str, Any],
    say: Callable[[str], None],
) -> np.ndarray:
    say(f"embedding {pool} texts for the bulk load")
    # memories of conversations have a speaker, embedded with the text (as the write path
    # does): recall then also pays for its speaker-only penalty
    vecs, embed_s = _embed_all(
        embedder, [f"{_speaker(j)}: {t}" for j, (_, t) in enumerate(data[:pool])], progress
    )
    results["bulk_embedding"] = {
        "texts": pool,
        "seconds": round(embed_s, 2),
        "texts_per_s": round(pool / embed_s, 1),
    }
    return vecs


@dataclass
class _Bench:
    """The stores under test and the inputs of every timed call, shared by both passes."""

    m: Any
    base: Any
    data: list[tuple[str, str]]
    vecs: np.ndarray
    pool: int
    users: int
    queries: list[tuple[str, str]]
    times: list[datetime]
    q_dense: list[Any]
    q_sparse: list[Any]
    q_scopes: list[Any]
    visible: Any
    args: argparse.Namespace
    workdir: Path
    say: Callable[[str], None] = field(default=lambda _msg: None)
    progress: bool = False
    loaded: int = 0
    edge_lat: dict[int, list[float]] = field(default_factory=dict)

    @property
    def idx(self) -> list[int]:
        return list(range(len(self.queries)))

    def points(self, lo: int, hi: int) -> list[Any]:
        from prism_memory.records import Scope
        from prism_memory.stores import PointData

        out = []
        for i in range(lo, hi):
            kind, text = self.data[i]
            rec = self.m.build_record(
                text,
                Scope(user_id=f"user-{i % self.users:04d}"),
                kind=kind,
                layer=KIND_TO_LAYER[kind],
                event_time=self.times[i],
                speaker=_speaker(i % self.pool),
                record_id=_point_id(i),
            )
            out.append(
                PointData(rec, self.vecs[i % self.pool].tolist(), self.m.sparse.document(text))
            )
        return out

    def query(self, j: int, store: Any) -> Any:
        return hybrid_query(
            store,
            self.q_scopes[j],
            self.q_dense[j],
            self.q_sparse[j],
            self.visible,
            limit=10,
            prefetch_limit=40,
        )


def _open_bench(
    args: argparse.Namespace,
    embedder: Any,
    data: list[tuple[str, str]],
    vecs: np.ndarray,
    pool: int,
    users: int,
    queries: list[tuple[str, str]],
    workdir: Path,
) -> _Bench:
    """The embedded store (and the local-mode baseline), the query vectors and event times."""
    from prism_memory.config import PrismConfig, StoreConfig
    from prism_memory.memory import Memory
    from prism_memory.records import Scope
    from prism_memory.stores import QdrantStore

    config = PrismConfig(store=StoreConfig(optimize_after=0))
    m = Memory(path=workdir / "edge", embedder=embedder, config=config)
    base = None if args.no_baseline else QdrantStore(location=":memory:", dim=embedder.dim)
    visible = m.visible_filter()
    q_dense = [embedder.embed_query(q) for _, q in queries]
    q_sparse = [m.sparse.query(q) for _, q in queries]
    q_scopes = [Scope(user_id=u) for u, _ in queries]
    start_day = datetime(2023, 1, 1, tzinfo=timezone.utc)
    rng = random.Random(args.seed + 2)
    times = [start_day + timedelta(minutes=rng.randrange(1_000_000)) for _ in range(len(data))]
    return _Bench(
        m,
        base,
        data,
        vecs,
        pool,
        users,
        queries,
        times,
        q_dense,
        q_sparse,
        q_scopes,
        visible,
        args,
        workdir,
    )


def _edge_pass(b: _Bench, size: int) -> dict[str, Any]:
    """Load the embedded store up to ``size`` and time its calls there."""
    row: dict[str, Any] = {"size": size}
    _load_edge(b, size, row)
    # the harness's own 100K texts and timestamps are not the system under test:
    # keep them out of the garbage collector's full passes during the timed calls
    gc.collect()
    gc.freeze()
    _time_edge(b, size, row)
    row["rss_mb"] = _rss_mb()
    row["edge_disk_mb"] = _dir_mb(b.workdir / "edge")
    return row


def _load_edge(b: _Bench, size: int, row: dict[str, Any]) -> None:
    upsert_edge = build_s = 0.0
    with _bar(size - b.loaded, f"loading {size}", b.progress) as bar:
        for lo in range(b.loaded, size, 1000):
            hi = min(size, lo + 1000)
            t = time.perf_counter()
            batch = b.points(lo, hi)
            build_s += time.perf_counter() - t
            t = time.perf_counter()
            # through the write funnel (scope check, BM25 of the embedding text, announced);
            # the synthetic texts are the harness's own: not screened, vectors given
            b.m.record_store.write(
                [p.record for p in batch],
                dense={p.record.id: p.dense for p in batch},
                screen=False,
            )
            upsert_edge += time.perf_counter() - t
            bar.update(hi - lo)
    b.loaded = size
    t = time.perf_counter()
    b.m.store.optimize()
    optimize_s = time.perf_counter() - t
    row["load"] = {
        "records_built_s": round(build_s, 2),
        "edge_upsert_s": round(upsert_edge, 2),
        "edge_optimize_s": round(optimize_s, 2),
        "baseline_upsert_s": None,
    }
    b.say(f"size {size}: loaded (edge upsert {upsert_edge:.1f} s, optimize {optimize_s:.1f} s)")
    row["edge_points"] = b.m.store.info().get("points")


def _time_edge(b: _Bench, size: int, row: dict[str, Any]) -> None:
    m, idx, queries = b.m, b.idx, b.queries
    for j in idx[:10]:  # warm caches and the HNSW graph pages
        b.query(j, m.store)
    edge_store = _time_each(idx, lambda j: b.query(j, m.store))
    b.edge_lat[size] = edge_store
    row["edge_hybrid_query"] = _latency(edge_store)
    row["hits_per_query"] = round(statistics.fmean(len(b.query(j, m.store)) for j in idx[:20]), 1)
    edge_search = _time_each(idx, lambda j: m.search(queries[j][1], user_id=queries[j][0]))
    row["edge_memory_search"] = _latency(edge_search)
    if hasattr(m, "recall"):
        # recall caches query vectors and results: fresh queries at every size
        # (and after a warm-up on others), so every timed call is a cold one
        fresh = make_queries(len(queries) + 5, b.users, seed=b.args.seed + 1000 + size)
        for u, q in fresh[:5]:
            m.recall(q, user_id=u)
        recall = _time_each(fresh[5:], lambda uq: m.recall(uq[1], user_id=uq[0]))
        row["edge_memory_recall"] = _latency(recall)
    b.say(
        f"  edge hybrid p50 {row['edge_hybrid_query']['p50_ms']} ms, Memory.search p50 "
        f"{row['edge_memory_search']['p50_ms']} ms"
        + (
            f", recall p50 {row['edge_memory_recall']['p50_ms']} ms"
            if "edge_memory_recall" in row
            else ""
        )
    )


def _baseline_pass(b: _Bench, per_size: list[dict[str, Any]]) -> None:
    """The same points and queries on qdrant-client local mode, size by size."""
    loaded = 0
    for row in per_size:
        size = row["size"]
        t = time.perf_counter()
        for lo in range(loaded, size, 1000):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                b.base.upsert(b.points(lo, min(size, lo + 1000)))
        loaded = size
        row["load"]["baseline_upsert_s"] = round(time.perf_counter() - t, 2)
        cap = b.idx[: max(1, b.args.baseline_queries)]
        b.query(cap[0], b.base)  # first query builds local-mode structures
        base_lat = _time_each(cap, lambda j: b.query(j, b.base), budget_s=b.args.baseline_budget_s)
        same = b.edge_lat[size][: len(base_lat)]
        row["baseline_hybrid_query"] = _latency(base_lat)
        row["edge_same_queries"] = _latency(same)
        row["baseline_over_edge_p50"] = round(
            percentile(base_lat, 50) / max(percentile(same, 50), 1e-9), 1
        )
        b.say(
            f"  size {size}: qdrant-client local p50 "
            f"{row['baseline_hybrid_query']['p50_ms']} ms "
            f"({row['baseline_over_edge_p50']}x edge) over {len(base_lat)} queries"
        )


def _write(results: dict[str, Any], out_dir: Path, name: str, as_json: bool) -> None:
    (out_dir / f"{name}.json").write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    (out_dir / f"{name}.md").write_text(render_markdown(results), encoding="utf-8")
    if as_json:
        print(json.dumps(results, indent=2))
    else:
        print(render_markdown(results))
        print(f"wrote {out_dir / f'{name}.json'} and {out_dir / f'{name}.md'}", file=sys.stderr)


def _speaker(j: int) -> str:
    """The speaker of the ``j``-th unique text (deterministic, so its vector can be reused)."""
    return NAMES[j % len(NAMES)]


def _point_id(i: int) -> str:
    import uuid

    return str(uuid.UUID(int=(0x5CA1E << 96) | i))
