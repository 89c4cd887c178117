"""``prism bench zh DIR``: evidence recall on Chinese conversations (the zh-dev protocol).

Design (the protocol of the data's README, so dev and held-out figures compare):
- ``DIR`` holds ``index.json`` and ``q/<qid>.json`` (MemDaily questions with their evidence
  messages mixed into ~160 turns of other people's Chinese chat). One fresh embedded store per
  question; every session through ``remember`` (turn ids as given, ``event_time`` = the
  session start) then ``end_session``. Ingest speed is turns per second of that loop.
- ``recall(question, budget_tokens=B, now=question_date)`` at each budget, every call timed
  (recall cache off). An evidence turn is covered when a shown item is its record or lists it
  among its source ids, or when one shown text holds at least 90% of the turn's character
  bigrams (:func:`covers`; templated messages make 50% match siblings).
- Baselines in the same run, over the same episodic turns: dense top-k with the library's
  embedder for the query (the CJK embedder when the store has its vectors, as ``recall``
  uses), BM25 over character bigrams (the store's keyword route) and their RRF (k=60), each
  packed one line per turn into the same budgets (``prism_bench/locomo.py``'s helpers).
- Reported overall and per question type; ``--store`` keeps the stores (a kept store is
  evaluated without ingesting again); ``--limit``/``--every`` take a subset while iterating.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from prism_memory.errors import ConfigError
from prism_memory.records import Layer, MemoryRecord, Scope
from prism_memory.retrieval.fusion import rrf
from prism_memory.retrieval.routes import TIE_MARGIN, RoutePlan
from prism_memory.sparse import has_cjk
from prism_memory.stores.base import RouteQuery
from prism_memory.stores.filters import RecordFilter

from ._report import write_report
from .locomo import _pct, baseline_rankings, pack_lines

__all__ = [
    "BUDGETS",
    "SYSTEMS",
    "ZhQuestion",
    "add_arguments",
    "bigrams",
    "covered",
    "covers",
    "evaluate_question",
    "load_questions",
    "markdown",
    "run",
    "summarise",
]

BUDGETS = (500, 1000, 2000)
SYSTEMS = ("prism", "dense", "bm25", "rrf")
#: share of an evidence turn's character bigrams one shown text must hold to cover it
COVER_SHARE = 0.9


@dataclass
class ZhQuestion:
    """One zh-dev question with its haystack (sessions in time order)."""

    qid: str
    qtype: str
    question: str
    date: datetime
    sessions: list[tuple[str, datetime, list[dict[str, Any]]]]
    evidence: list[str] = field(default_factory=list)
    turn_text: dict[str, str] = field(default_factory=dict)

    @property
    def turns(self) -> int:
        return sum(len(t) for _, _, t in self.sessions)


def bigrams(text: str) -> set[str]:
    """Character bigrams of ``text`` without whitespace.

    >>> sorted(bigrams("杭州 西湖"))
    ['州西', '杭州', '西湖']
    """
    s = "".join(text.split())
    return {s[i : i + 2] for i in range(len(s) - 1)} or ({s} if s else set())


def covers(shown: str, turn: str, share: float = COVER_SHARE) -> bool:
    """Whether ``shown`` holds at least ``share`` of the bigrams of ``turn``.

    >>> covers("用户：我住在杭州西湖边。", "我住在杭州西湖边"), covers("我住在上海", "我住在杭州西湖边")
    (True, False)
    """
    want = bigrams(turn)
    return bool(want) and len(want & bigrams(shown)) >= share * len(want)


def covered(items: Iterable[tuple[Sequence[str], str]], q: ZhQuestion) -> set[str]:
    """Evidence turn ids shown by ``items`` (each: the record's id and source ids, its text)."""
    out: set[str] = set()
    for ids, text in items:
        for e in q.evidence:
            if e in ids or covers(text, q.turn_text[e]):
                out.add(e)
    return out


def _parse(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def load_questions(
    directory: str | Path, limit: int | None = None, every: int = 1
) -> list[ZhQuestion]:
    """Questions of ``directory`` in ``index.json`` order, every ``every``-th, at most ``limit``."""
    root = Path(directory)
    index_path = root / "index.json"
    if not index_path.exists():
        raise ConfigError(
            f"{index_path} does not exist; pass the directory built by the zh-dev prep script "
            "(it holds index.json and q/<qid>.json)"
        )
    index = json.loads(index_path.read_text())[:: max(1, every)]
    out: list[ZhQuestion] = []
    for entry in index[:limit]:
        d = json.loads((root / "q" / f"{entry['question_id']}.json").read_text())
        sessions = [
            (str(s["session_id"]), _parse(s["start"]), list(s["turns"])) for s in d["sessions"]
        ]
        sessions.sort(key=lambda s: s[1])
        text = {str(t["id"]): str(t["content"]) for _, _, ts in sessions for t in ts}
        ev = [e for e in d["evidence"] if e in text]
        if ev:
            out.append(
                ZhQuestion(
                    str(d["question_id"]),
                    str(d["question_type"]),
                    str(d["question"]),
                    _parse(d["question_date"]),
                    sessions,
                    ev,
                    text,
                )
            )
    if not out:
        raise ConfigError(f"no question with evidence turns under {root}")
    return out


def ingest_question(m: Any, q: ZhQuestion, user_id: str) -> float:
    """Every session through ``remember`` + ``end_session``; returns the seconds taken."""
    t0 = time.perf_counter()
    for sid, when, turns in q.sessions:
        messages = [
            {"role": str(t.get("role", "user")), "id": str(t["id"]), "content": str(t["content"])}
            for t in turns
            if str(t.get("content", "")).strip()
        ]
        if messages:
            m.remember(messages, user_id=user_id, session_id=sid, event_time=when)
        m.end_session(user_id=user_id, session_id=sid)
    m.flush()
    return time.perf_counter() - t0


def rankings(m: Any, user_id: str, query: str, limit: int = 64) -> dict[str, list[Any]]:
    """Dense, BM25 and RRF rankings over the episodic turns, the dense one with the embedder
    the library uses for this query (the CJK embedder for a query holding CJK text, when the
    store has its vectors; else the main one), as ``recall`` does."""
    cjk = m.cjk_embedder
    if cjk is None or not has_cjk(query):
        return baseline_rankings(m, user_id, query, limit)
    scope = Scope(user_id=user_id)
    flt = m.visible_filter() & RecordFilter.eq("layer", Layer.EPISODIC.value)
    routes = [
        RouteQuery("dense", "dense_cjk", cjk.embed_query(query), limit + TIE_MARGIN),
        RouteQuery("bm25", "bm25", m.sparse.query(query), limit + TIE_MARGIN),
    ]
    res = RoutePlan(routes, flt).trim(m.store.query_routes(scope, routes, flt))
    parse = MemoryRecord.from_payload
    return {
        "dense": [parse(h.payload) for h in res["dense"]],
        "bm25": [parse(h.payload) for h in res["bm25"]],
        "rrf": [parse(c.payload) for c in rrf(res, k=60)],
    }


def _share(hit: set[str], q: ZhQuestion) -> float:
    return len(hit) / len(q.evidence)


def evaluate_question(
    m: Any, q: ZhQuestion, user_id: str, budgets: Sequence[int] = BUDGETS
) -> dict[str, Any]:
    """PRISM and the three baselines' evidence recall at each budget, and recall latencies."""
    cfg = m.config.retrieval.model_copy(update={"cache_size": 0})
    row: dict[str, Any] = {"id": q.qid, "type": q.qtype, "latency_ms": []}
    row.update({s: {} for s in SYSTEMS})
    for b in budgets:
        t0 = time.perf_counter()
        ctx = m.recall(q.question, user_id=user_id, budget_tokens=b, config=cfg, now=q.date)
        row["latency_ms"].append((time.perf_counter() - t0) * 1000)
        shown = [([it.record.id, *it.record.provenance.source_ids], it.shown) for it in ctx.items]
        row["prism"][str(b)] = _share(covered(shown, q), q)
    ranks = rankings(m, user_id, q.question)
    for system in ("dense", "bm25", "rrf"):
        for b in budgets:
            packed = pack_lines(ranks[system], b)
            items = [([r.id, *r.provenance.source_ids], r.text) for r in packed]
            row[system][str(b)] = _share(covered(items, q), q)
    return row


def summarise(rows: list[dict[str, Any]], budgets: Sequence[int] = BUDGETS) -> dict[str, Any]:
    """Means overall and per question type; recall latency percentiles over every call."""

    def means(sub: list[dict[str, Any]]) -> dict[str, Any]:
        return {
            "questions": len(sub),
            **{
                s: {str(b): round(statistics.fmean(r[s][str(b)] for r in sub), 4) for b in budgets}
                for s in SYSTEMS
            },
        }

    lat = [x for r in rows for x in r["latency_ms"]]
    return {
        "overall": means(rows),
        "per_type": {
            t: means([r for r in rows if r["type"] == t]) for t in sorted({r["type"] for r in rows})
        },
        "recall_latency_ms": {
            "calls": len(lat),
            "p50": round(_pct(lat, 0.5), 1),
            "p95": round(_pct(lat, 0.95), 1),
        },
    }


def markdown(report: dict[str, Any]) -> str:
    """The report as a markdown page (overall, per type, ingest and latency)."""
    budgets = [str(b) for b in report.get("budgets", BUDGETS)]
    labels = {
        "prism": "**PRISM recall()**",
        "dense": "dense top-k (the library's embedder for the query)",
        "bm25": "BM25, CJK character bigrams",
        "rrf": "RRF(dense, BM25)",
    }
    o = report["overall"]
    lines = [
        "# Chinese evidence recall (zh-dev protocol)",
        "",
        f"`{report.get('command', 'prism bench zh')}`: {o['questions']} questions; evidence "
        "turns covered at each token budget (share of a question's evidence, averaged).",
        "",
        "| system | " + " | ".join(f"@{b}" for b in budgets) + " |",
        "|---|" + "---|" * len(budgets),
    ]
    for s in SYSTEMS:
        lines.append(f"| {labels[s]} | " + " | ".join(f"{o[s][b]:.3f}" for b in budgets) + " |")
    lines += [
        "",
        "## Per question type (PRISM / RRF)",
        "",
        "| type | n | " + " | ".join(f"@{b}" for b in budgets) + " |",
        "|---|---|" + "---|" * len(budgets),
    ]
    for t, v in report["per_type"].items():
        cells = " | ".join(f"{v['prism'][b]:.3f} / {v['rrf'][b]:.3f}" for b in budgets)
        lines.append(f"| {t} | {v['questions']} | {cells} |")
    ing, lat = report["ingest"], report["recall_latency_ms"]
    lines += [
        "",
        "## Cost",
        "",
        f"- ingest: {ing['turns']} turns in {ing['seconds']} s = **{ing['turns_per_s']} turns/s**"
        + (" (kept stores: not ingested in this run)" if not ing["seconds"] else ""),
        f"- recall: p50 **{lat['p50']} ms**, p95 **{lat['p95']} ms** over {lat['calls']} calls",
        f"- embedder: `{report.get('embedder', '?')}`; load average {report.get('load_avg')}",
        "",
    ]
    return "\n".join(lines)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("directory", help="zh-dev data directory (index.json, q/<qid>.json)")
    parser.add_argument("--out", default="benchmarks/results", help="directory for the results")
    parser.add_argument("--name", default="zh-dev", help="result file stem")
    parser.add_argument("--limit", type=int, default=None, help="at most this many questions")
    parser.add_argument("--every", type=int, default=1, help="every n-th question of the index")
    parser.add_argument(
        "--cjk-model",
        dest="cjk_model",
        default="auto",
        help="PrismConfig.cjk_embedding_model for the stores: 'auto' (the default "
        "configuration), 'use-multilingual-v3', or 'none' (keyword route and main embedder only)",
    )
    parser.add_argument(
        "--json", dest="json_out", action="store_true", help="print the JSON report"
    )
    parser.add_argument(
        "--store",
        default=None,
        help="directory for the stores, kept (default: temporary); a store already there is "
        "evaluated without ingesting again",
    )


def run(args: argparse.Namespace, log: Callable[[str], None] = print) -> int:
    """Ingest and evaluate every question; write ``<name>.md`` and ``<name>.json``."""
    from prism_memory.config import PrismConfig

    questions = load_questions(args.directory, args.limit, args.every)
    cjk_model = None if args.cjk_model in ("none", "None", "") else args.cjk_model
    config = PrismConfig(cjk_embedding_model=cjk_model)
    load_start = round(os.getloadavg()[0], 2)
    tmp = None
    store_dir = args.store
    if store_dir is None:
        tmp = tempfile.TemporaryDirectory(prefix="prism-zh-")
        store_dir = tmp.name
    try:
        rows, turns, ingest_s, name = _ingest_and_evaluate(
            questions, Path(store_dir), config, getattr(args, "embedder", None), log
        )
    finally:
        if tmp is not None:
            tmp.cleanup()
    report = summarise(rows)
    report["budgets"] = list(BUDGETS)
    report["rows"] = [{k: v for k, v in r.items() if k != "latency_ms"} for r in rows]
    report["ingest"] = {
        "turns": turns,
        "seconds": round(ingest_s, 1),
        "turns_per_s": round(turns / ingest_s, 1) if ingest_s else 0.0,
    }
    report["embedder"] = name
    report["load_avg"] = {"start": load_start, "end": round(os.getloadavg()[0], 2)}
    report["command"] = _command(args)
    return write_report(args.out, args.name, report, markdown(report), as_json=args.json_out)


def _ingest_and_evaluate(
    questions: list[ZhQuestion],
    store_dir: Path,
    config: Any,
    embedder: Any,
    log: Callable[[str], None],
) -> tuple[list[dict[str, Any]], int, float, str]:
    """Each question's row, the turns ingested and their seconds, the embedders' name; a kept
    store (``--store``) is evaluated as it is."""
    from prism_memory.memory import Memory

    rows: list[dict[str, Any]] = []
    ingest_s = 0.0
    turns = 0
    name = "?"
    for n, q in enumerate(questions, 1):
        user = f"zh-{q.qid}"
        with Memory(path=store_dir / q.qid, embedder=embedder, config=config) as m:
            embedder = m.embedder  # loaded once, shared by the next stores
            cjk = m.cjk_embedder
            name = m.embedder.name + (f" + {cjk.name} (CJK texts)" if cjk else "")
            secs = 0.0
            if m.count(user_id=user) == 0:
                secs = ingest_question(m, q, user)
                ingest_s += secs
                turns += q.turns
            rows.append(evaluate_question(m, q, user))
        log(
            f"[{n}/{len(questions)}] {q.qid} ({q.qtype}): {q.turns} turns in {secs:.1f} s; "
            f"@1000 PRISM {rows[-1]['prism']['1000']:.2f}, RRF {rows[-1]['rrf']['1000']:.2f}"
        )
    return rows, turns, ingest_s, name


def _command(args: argparse.Namespace) -> str:
    subset = (
        (f" --every {args.every}" if args.every > 1 else "")
        + (f" --limit {args.limit}" if args.limit else "")
        + (f" --cjk-model {args.cjk_model}" if args.cjk_model != "auto" else "")
    )
    return f"prism bench zh {Path(args.directory).name}{subset}"
