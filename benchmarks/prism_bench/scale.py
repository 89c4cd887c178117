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

from ._scale_report import render_markdown, targets

__all__ = ["add_arguments", "make_queries", "make_texts", "percentile", "run"]

log = logging.getLogger("prism_memory")

# -- synthetic data ------------------------------------------------------------------------
NAMES = [
    "Alice", "Bruno", "Chen", "Dara", "Elif", "Farid", "Grace", "Hugo", "Ines", "Jonas",
    "Kaito", "Lena", "Marco", "Nadia", "Omar", "Priya", "Quinn", "Rosa", "Sven", "Tariq",
    "Uma", "Viktor", "Wen", "Yara", "Zoe", "Malik", "Sofia", "Ivan", "Leila", "Tom",
]  # fmt: skip
CITIES = [
    "Lisbon", "Kyoto", "Nairobi", "Oslo", "Lima", "Hanoi", "Montreal", "Seville", "Tbilisi",
    "Cape Town", "Reykjavik", "Porto", "Marrakesh", "Krakow", "Austin", "Melbourne", "Bergen",
    "Valparaiso", "Istanbul", "Edinburgh",
]  # fmt: skip
FOODS = [
    "ramen", "falafel", "sourdough", "green curry", "tapas", "dumplings", "paella", "tacos",
    "mezze", "pho", "risotto", "bibimbap", "ceviche", "goulash", "pierogi", "shakshuka",
]  # fmt: skip
PROJECTS = [
    "billing", "onboarding", "search", "mobile app", "data warehouse", "pricing", "design system",
    "migration", "analytics", "support portal", "checkout", "recommendations",
]  # fmt: skip
THINGS = [
    "the kitchen renovation", "a new laptop", "the wedding", "summer camp", "the road trip",
    "a bike", "language classes", "the garden", "a used car", "concert tickets", "the move",
]  # fmt: skip
ALLERGENS = ["peanuts", "shellfish", "gluten", "cats", "pollen", "penicillin", "dairy", "bees"]
SKILLS = [
    "piano", "pottery", "Spanish", "rock climbing", "sailing", "chess", "watercolour", "Rust",
    "salsa", "woodworking", "photography", "Japanese",
]  # fmt: skip
DEVICES = ["dishwasher", "router", "phone", "printer", "car battery", "heater", "laptop", "camera"]
WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
MONTHS = [
    "January", "February", "March", "April", "May", "June", "July", "August", "September",
    "October", "November", "December",
]  # fmt: skip
PLACES = ["harbour", "old town", "night market", "botanical garden", "museum", "beach", "castle"]
REASONS = ["the price", "the noise", "battery life", "the commute", "a doctor's advice", "taste"]

TEMPLATES: list[tuple[str, str]] = [
    ("preference", "{name} prefers {food} for dinner when travelling to {city}"),
    ("event", "Meeting with {name} about the {project} project on {weekday} at {hour}:00"),
    ("fact", "My budget for {thing} is {amount} euros"),
    ("fact", "{name} is allergic to {allergen}"),
    ("event", "I started learning {skill} in {month} {year}"),
    ("event", "The {device} stopped working on {weekday} after the {project} deadline"),
    ("event", "Remind me to call {name} about {thing} next {weekday}"),
    ("event", "We visited {city} with {name} in {month} and loved the {place}"),
    ("preference", "{name}'s favourite dish is {food}, ideally with friends from {city}"),
    ("preference", "I switched from {skill} lessons to {skill2} because of {reason}"),
    ("fact", "{name} moved to {city} in {year} to work on {project}"),
    ("preference", "I never book flights before {hour}:00 and always ask for an aisle seat"),
    ("fact", "Our {project} retro is every second {weekday}; {name} takes the notes"),
    ("event", "Paid {amount} euros for {thing} on {month} {day}"),
]
QUERY_TEMPLATES = [
    "what does {name} like to eat in {city}?",
    "when is the meeting about the {project} project?",
    "how much is the budget for {thing}?",
    "who is allergic to {allergen}?",
    "when did I start learning {skill}?",
    "what broke after the {project} deadline?",
    "which trip to {city} did we enjoy?",
    "why did I stop the {skill} lessons?",
    "where does {name} live now?",
    "what did I pay for {thing}?",
]
KIND_TO_LAYER = {"preference": "semantic", "fact": "semantic", "event": "episodic"}


def _slots(rng: random.Random) -> dict[str, Any]:
    skill, skill2 = rng.sample(SKILLS, 2)
    return {
        "name": rng.choice(NAMES),
        "city": rng.choice(CITIES),
        "food": rng.choice(FOODS),
        "project": rng.choice(PROJECTS),
        "thing": rng.choice(THINGS),
        "allergen": rng.choice(ALLERGENS),
        "skill": skill,
        "skill2": skill2,
        "device": rng.choice(DEVICES),
        "weekday": rng.choice(WEEKDAYS),
        "month": rng.choice(MONTHS),
        "place": rng.choice(PLACES),
        "reason": rng.choice(REASONS),
        "hour": rng.randint(7, 20),
        "day": rng.randint(1, 28),
        "year": rng.randint(2015, 2024),
        "amount": rng.randrange(50, 20000, 10),
    }


#: openers and links of a long text: an assistant's reply or a pasted note that runs on
LONG_OPENERS = [
    "Here is a summary of what we discussed so far.",
    "Sure, let me go through the details one by one.",
    "I went through your notes from last month and put them in order.",
    "Thanks for the update; here is how everything fits together.",
]
LONG_LINKS = ["Also,", "Besides that,", "On a related note,", "Separately,", "For context,", ""]


def long_text(rng: random.Random) -> str:
    """One long memory (about 600 to 2,800 characters): an opener, then 10 to 36 sentences
    from the templates, some with a linking phrase, like a long assistant reply."""
    parts = [rng.choice(LONG_OPENERS)]
    for _ in range(rng.randint(10, 36)):
        sentence = rng.choice(TEMPLATES)[1].format(**_slots(rng))
        link = rng.choice(LONG_LINKS)
        parts.append(f"{link} {sentence[0].lower()}{sentence[1:]}." if link else f"{sentence}.")
    return " ".join(parts)


def make_texts(n: int, seed: int = 7, long_share: float = 0.0) -> list[tuple[str, str]]:
    """``n`` deterministic ``(kind, text)`` pairs (varied, mostly unique): short template
    sentences, and a ``long_share`` of long texts (kind ``event``, see :func:`long_text`).

    >>> [k for k, _ in make_texts(3)], len(make_texts(1, long_share=1.0)[0][1]) > 300
    (['event', 'event', 'fact'], True)
    """
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        if long_share > 0 and rng.random() < long_share:
            out.append(("event", long_text(rng)))
        else:
            kind, template = rng.choice(TEMPLATES)
            out.append((kind, template.format(**_slots(rng))))
    return out


def make_queries(n: int, users: int, seed: int = 11) -> list[tuple[str, str]]:
    """``n`` deterministic ``(user_id, query)`` pairs."""
    rng = random.Random(seed)
    return [
        (f"user-{rng.randrange(users):04d}", rng.choice(QUERY_TEMPLATES).format(**_slots(rng)))
        for _ in range(n)
    ]


# -- measurement helpers ---------------------------------------------------------------------
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
    from prism_memory import __version__
    from prism_memory.config import PrismConfig, StoreConfig
    from prism_memory.memory import Memory
    from prism_memory.records import Scope
    from prism_memory.retrieval.hybrid import hybrid_query
    from prism_memory.stores import PointData, QdrantStore

    sizes = _parse_sizes(args.sizes)
    users = max(1, int(args.users))
    progress = sys.stderr.isatty() and not args.json
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    embedder = _embedder(args)
    total = sizes[-1]
    t_all = time.perf_counter()

    def say(msg: str) -> None:
        if not args.json:
            print(msg, file=sys.stderr, flush=True)

    long_share = float(getattr(args, "long_share", 0.0))
    if not 0.0 <= long_share <= 1.0:
        from prism_memory.errors import ValidationError

        raise ValidationError(f"--long-share {long_share}: give a share between 0 and 1")
    name = getattr(args, "name", "scale") or "scale"
    data = make_texts(total, seed=args.seed, long_share=long_share)
    pool = args.pool if 0 < args.pool < total else total
    if pool < total:  # repeat the first `pool` texts so every vector is the real one of its text
        data = [data[i % pool] for i in range(total)]
    queries = make_queries(max(args.queries, 1), users, seed=args.seed + 4)
    results: dict[str, Any] = {
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
            "queries": len(queries),
            "baseline_queries_cap": args.baseline_queries,
            "baseline_budget_s": args.baseline_budget_s,
            "unique_texts_embedded": pool,
            "embedder": embedder.name,
            "limit": 10,
            "prefetch_limit": 40,
            "seed": args.seed,
            "long_share": long_share,
            "mean_chars": round(statistics.fmean(len(t) for _, t in data), 1),
        },
    }

    with tempfile.TemporaryDirectory(prefix="prism-scale-") as tmp:
        workdir = Path(tmp)
        embedder.embed_query("warm-up")
        sample = make_texts(max(1, args.ingest_sample), seed=args.seed + 1, long_share=long_share)
        say(f"ingest: {len(sample)} texts through Memory.add_many with {embedder.name}")
        results["ingest"] = _measure_ingest(embedder, sample, users, workdir)
        say(
            f"  {results['ingest']['texts_per_s']} texts/s end to end, embedding "
            f"{results['ingest']['embedding_s']} s of {results['ingest']['wall_s']} s"
        )

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

        config = PrismConfig(store=StoreConfig(optimize_after=0))
        m = Memory(path=workdir / "edge", embedder=embedder, config=config)
        base = None if args.no_baseline else QdrantStore(location=":memory:", dim=embedder.dim)
        visible = m.visible_filter()
        q_dense = [embedder.embed_query(q) for _, q in queries]
        q_sparse = [m.sparse.query(q) for _, q in queries]
        q_scopes = [Scope(user_id=u) for u, _ in queries]
        start_day = datetime(2023, 1, 1, tzinfo=timezone.utc)
        rng = random.Random(args.seed + 2)
        loaded = 0
        per_size: list[dict[str, Any]] = []
        times = [start_day + timedelta(minutes=rng.randrange(1_000_000)) for _ in range(total)]

        def points(lo: int, hi: int) -> list[Any]:
            out = []
            for i in range(lo, hi):
                kind, text = data[i]
                rec = m.build_record(
                    text,
                    Scope(user_id=f"user-{i % users:04d}"),
                    kind=kind,
                    layer=KIND_TO_LAYER[kind],
                    event_time=times[i],
                    speaker=_speaker(i % pool),
                    record_id=_point_id(i),
                )
                out.append(PointData(rec, vecs[i % pool].tolist(), m.sparse.document(text)))
            return out

        def store_query(j: int, store: Any) -> Any:
            return hybrid_query(
                store, q_scopes[j], q_dense[j], q_sparse[j], visible, limit=10, prefetch_limit=40
            )

        idx = list(range(len(queries)))
        edge_lat: dict[int, list[float]] = {}
        try:
            # Pass 1: the embedded engine alone in the process (the baseline's 100K Python
            # objects would otherwise slow every garbage collection during the timed calls).
            for size in sizes:
                row: dict[str, Any] = {"size": size}
                upsert_edge = build_s = 0.0
                with _bar(size - loaded, f"loading {size}", progress) as bar:
                    for lo in range(loaded, size, 1000):
                        hi = min(size, lo + 1000)
                        t = time.perf_counter()
                        batch = points(lo, hi)
                        build_s += time.perf_counter() - t
                        t = time.perf_counter()
                        m.store.upsert(batch)
                        upsert_edge += time.perf_counter() - t
                        bar.update(hi - lo)
                loaded = size
                m.record_store.changed(None)  # points went to the store directly: drop read caches
                t = time.perf_counter()
                m.store.optimize()  # type: ignore[attr-defined]
                optimize_s = time.perf_counter() - t
                row["load"] = {
                    "records_built_s": round(build_s, 2),
                    "edge_upsert_s": round(upsert_edge, 2),
                    "edge_optimize_s": round(optimize_s, 2),
                    "baseline_upsert_s": None,
                }
                say(
                    f"size {size}: loaded (edge upsert {upsert_edge:.1f} s, optimize {optimize_s:.1f} s)"
                )
                row["edge_points"] = m.store.info().get("points")
                # the harness's own 100K texts and timestamps are not the system under test:
                # keep them out of the garbage collector's full passes during the timed calls
                gc.collect()
                gc.freeze()
                for j in idx[:10]:  # warm caches and the HNSW graph pages
                    store_query(j, m.store)
                edge_store = _time_each(idx, lambda j: store_query(j, m.store))
                edge_lat[size] = edge_store
                row["edge_hybrid_query"] = _latency(edge_store)
                row["hits_per_query"] = round(
                    statistics.fmean(len(store_query(j, m.store)) for j in idx[:20]), 1
                )
                edge_search = _time_each(
                    idx, lambda j: m.search(queries[j][1], user_id=queries[j][0])
                )
                row["edge_memory_search"] = _latency(edge_search)
                if hasattr(m, "recall"):
                    # recall caches query vectors and results: fresh queries at every size
                    # (and after a warm-up on others), so every timed call is a cold one
                    fresh = make_queries(len(queries) + 5, users, seed=args.seed + 1000 + size)
                    for u, q in fresh[:5]:
                        m.recall(q, user_id=u)
                    recall = _time_each(fresh[5:], lambda uq: m.recall(uq[1], user_id=uq[0]))
                    row["edge_memory_recall"] = _latency(recall)
                say(
                    f"  edge hybrid p50 {row['edge_hybrid_query']['p50_ms']} ms, Memory.search p50 "
                    f"{row['edge_memory_search']['p50_ms']} ms"
                    + (
                        f", recall p50 {row['edge_memory_recall']['p50_ms']} ms"
                        if "edge_memory_recall" in row
                        else ""
                    )
                )
                row["rss_mb"] = _rss_mb()
                row["edge_disk_mb"] = _dir_mb(workdir / "edge")
                per_size.append(row)
            # Pass 2: the same points and queries on qdrant-client local mode.
            if base is not None:
                loaded = 0
                for row in per_size:
                    size = row["size"]
                    t = time.perf_counter()
                    for lo in range(loaded, size, 1000):
                        with warnings.catch_warnings():
                            warnings.simplefilter("ignore")
                            base.upsert(points(lo, min(size, lo + 1000)))
                    loaded = size
                    row["load"]["baseline_upsert_s"] = round(time.perf_counter() - t, 2)
                    cap = idx[: max(1, args.baseline_queries)]
                    store_query(cap[0], base)  # first query builds local-mode structures
                    base_lat = _time_each(
                        cap, lambda j: store_query(j, base), budget_s=args.baseline_budget_s
                    )
                    same = edge_lat[size][: len(base_lat)]
                    row["baseline_hybrid_query"] = _latency(base_lat)
                    row["edge_same_queries"] = _latency(same)
                    row["baseline_over_edge_p50"] = round(
                        percentile(base_lat, 50) / max(percentile(same, 50), 1e-9), 1
                    )
                    say(
                        f"  size {size}: qdrant-client local p50 "
                        f"{row['baseline_hybrid_query']['p50_ms']} ms "
                        f"({row['baseline_over_edge_p50']}x edge) over {len(base_lat)} queries"
                    )
        finally:
            m.close()
            if base is not None:
                base.close()
    results["sizes"] = per_size
    results["machine"]["load_avg_1m_end"] = round(os.getloadavg()[0], 2)
    results["peak_rss_mb"] = _peak_rss_mb()
    results["wall_s"] = round(time.perf_counter() - t_all, 1)
    results["targets"] = targets(results)
    (out_dir / f"{name}.json").write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    (out_dir / f"{name}.md").write_text(render_markdown(results), encoding="utf-8")
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        print(render_markdown(results))
        print(f"wrote {out_dir / f'{name}.json'} and {out_dir / f'{name}.md'}", file=sys.stderr)
    return 0


def _speaker(j: int) -> str:
    """The speaker of the ``j``-th unique text (deterministic, so its vector can be reused)."""
    return NAMES[j % len(NAMES)]


def _point_id(i: int) -> str:
    import uuid

    return str(uuid.UUID(int=(0x5CA1E << 96) | i))
