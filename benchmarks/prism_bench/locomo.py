"""``prism bench locomo FILE...``: evidence recall on LoCoMo-format conversations.

Design:
- Each conversation is ingested once, session by session, through the public write path:
  ``remember`` (one message per turn: role ``user``, ``name`` = speaker, ``id`` = ``dia_id``,
  content = text plus the shared image's caption, ``event_time`` = the session's timestamp)
  then ``end_session``. Every system (PRISM and the baselines) is then evaluated on the same
  store, so the comparison is like for like.
- Evidence recall of a context = share of the question's evidence turns its records cover.
  A record covers its ``source_ids`` when it has one or two of them; a record made from more
  turns (a summary) covers only the source turns at least half of whose content words
  (lower-cased, 3+ letters, no stopwords) appear in its text.
- Baselines search the episodic turns only (what a plain vector store holds): dense top-k,
  BM25 top-k and their plain RRF, each rendered ``[session date] speaker: text`` one line per
  turn and packed into the same cl100k budgets. No LLM anywhere.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from prism_memory.config import RetrievalConfig
from prism_memory.errors import ConfigError, ValidationError
from prism_memory.records import Layer, MemoryRecord, Scope
from prism_memory.retrieval.fusion import rrf
from prism_memory.retrieval.render import format_day
from prism_memory.retrieval.routes import TIE_MARGIN, RoutePlan
from prism_memory.retrieval.text import STOPWORDS
from prism_memory.stores.base import RouteHit, RouteQuery
from prism_memory.stores.filters import RecordFilter
from prism_memory.tokens import count_tokens

__all__ = [
    "BUDGETS",
    "Conversation",
    "Question",
    "add_arguments",
    "covered_turns",
    "evaluate",
    "ingest",
    "load_conversations",
    "run",
]

BUDGETS = (250, 500, 1000, 2000)
# Reported beside the default: sentence compression of long turns (opt-in, see docs/recall.md).
# and the second hop along link keys (the ``graph`` route, off by default)
VARIANTS: dict[str, dict[str, Any]] = {
    "compressed": {
        "compress_sentences": True,
        "compress_min_tokens": 16,
        "compress_keep_tokens": 14,
    },
    "graph": {"routes": ["dense", "bm25", "entity", "time", "recent", "graph"]},
    # the second hop by time (records of other sessions on the best records' days, opt-in)
    "graph_time": {"routes": ["dense", "bm25", "entity", "time", "recent", "graph_time"]},
    "graph_and_time": {
        "routes": ["dense", "bm25", "entity", "time", "recent", "graph", "graph_time"]
    },
}
KS = (5, 10)
#: characters from which an evidence turn counts as long (reported per evidence length)
LONG_TURN = 600
_DIA = re.compile(r"D\d+:\d+")
_WORD = re.compile(r"[a-z]+")


@dataclass
class Question:
    text: str
    evidence: list[str]
    category: int
    answer: str = ""


@dataclass
class Conversation:
    name: str
    sessions: list[tuple[str, datetime, list[dict[str, Any]]]]  # (session id, time, turns)
    questions: list[Question]
    turn_text: dict[str, str] = field(default_factory=dict)


def parse_session_time(value: str) -> datetime:
    """``"1:56 pm on 8 May, 2023"`` -> an aware UTC datetime."""
    for fmt in ("%I:%M %p on %d %B, %Y", "%I:%M %p on %d %b, %Y", "%d %B, %Y", "%d %B %Y"):
        try:
            return datetime.strptime(value.strip(), fmt).replace(tzinfo=timezone.utc)
        except ValueError:
            continue
    raise ValidationError(f"unrecognised LoCoMo session time {value!r}")


def turn_content(turn: dict[str, Any]) -> str:
    text = str(turn.get("text", "")).strip()
    caption = turn.get("blip_caption")
    if caption:
        text = f"{text} [shares an image: {caption}]".strip()
    return text


def json_items(path: Path, label: str) -> list[Any]:
    """The items of a benchmark file holding one JSON object or a list of them."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ConfigError(f"cannot read {label} file {path}: {exc}") from None
    return data if isinstance(data, list) else [data]


def load_conversations(paths: Sequence[str | Path]) -> list[Conversation]:
    """Read LoCoMo-format files (one conversation each, or a list of them)."""
    out: list[Conversation] = []
    for p in paths:
        path = Path(p)
        items = json_items(path, "LoCoMo")
        for n, item in enumerate(items):
            conv = item.get("conversation", item)
            name = str(
                item.get("sample_id") or (path.stem if len(items) == 1 else f"{path.stem}-{n}")
            )
            sessions = []
            nums = sorted(
                int(k.split("_")[1])
                for k, v in conv.items()
                if re.fullmatch(r"session_\d+", k) and isinstance(v, list) and v
            )
            turn_text: dict[str, str] = {}
            for num in nums:
                when = parse_session_time(str(conv[f"session_{num}_date_time"]))
                turns = conv[f"session_{num}"]
                for t in turns:
                    turn_text[str(t["dia_id"])] = turn_content(t)
                sessions.append((f"session_{num}", when, turns))
            questions = []
            for qa in item.get("qa", []):
                cat = int(qa.get("category", 0))
                evidence = sorted(
                    {e for raw in qa.get("evidence", []) for e in _DIA.findall(str(raw))}
                )
                if cat in (1, 2, 3, 4) and evidence:
                    answer = str(qa.get("answer", ""))
                    questions.append(Question(str(qa["question"]), evidence, cat, answer))
            out.append(Conversation(name, sessions, questions, turn_text))
    return out


def ingest(m: Any, conv: Conversation, user_id: str) -> float:
    """Write a conversation through ``remember`` + ``end_session``; returns seconds taken."""
    if not hasattr(m, "remember") or not hasattr(m, "end_session"):
        raise ConfigError("this Memory has no remember()/end_session(): the write path is missing")
    t0 = time.perf_counter()
    for session_id, when, turns in conv.sessions:
        messages = [
            {
                "role": "user",
                "name": str(t["speaker"]),
                "id": str(t["dia_id"]),
                "content": turn_content(t),
            }
            for t in turns
            if turn_content(t)
        ]
        m.remember(messages, user_id=user_id, session_id=session_id, event_time=when)
        m.end_session(user_id=user_id, session_id=session_id)
    m.flush()
    return time.perf_counter() - t0


def _content_words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if len(w) >= 3 and w not in STOPWORDS}


def covered_turns(
    records: Iterable[MemoryRecord],
    turn_text: dict[str, str],
    words: Callable[[str], set[str]] = _content_words,
) -> set[str]:
    """Turn ids the records carry (the summary-coverage rule of the benchmark); ``words`` is
    the benchmark's notion of content words."""
    covered: set[str] = set()
    for r in records:
        sids = [s for s in r.provenance.source_ids if s in turn_text]
        if len(sids) <= 2:
            covered.update(sids)
            continue
        have = words(r.text)
        for s in sids:
            words_s = words(turn_text[s])
            if words_s and len(words_s & have) * 2 >= len(words_s):
                covered.add(s)
    return covered


def covered_turns_shown(
    items: Iterable[Any],
    turn_text: dict[str, str],
    words: Callable[[str], set[str]] = _content_words,
) -> set[str]:
    """Stricter variant: a compressed or multi-turn item covers only the source turns at least
    half of whose content words are in the text actually shown."""
    covered: set[str] = set()
    for it in items:
        sids = [s for s in it.record.provenance.source_ids if s in turn_text]
        if len(sids) <= 2 and not it.compressed:
            covered.update(sids)
            continue
        have = words(it.shown)
        for s in sids:
            words_s = words(turn_text[s])
            if words_s and len(words_s & have) * 2 >= len(words_s):
                covered.add(s)
    return covered


def answer_recall(text: str, answer: str) -> float:
    """Share of the answer's words (3+ letters or digits, no stopwords) found in ``text``:
    whether the context still carries the answer, whatever was compressed away."""
    want = {
        w
        for w in re.findall(r"[a-z0-9]+", answer.lower())
        if (len(w) >= 3 or w.isdigit()) and w not in STOPWORDS
    }
    if not want:
        return 1.0
    have = set(re.findall(r"[a-z0-9]+", text.lower()))
    return len(want & have) / len(want)


def _recall(covered: set[str], evidence: list[str]) -> float:
    return sum(e in covered for e in evidence) / len(evidence)


def _baseline_line(r: MemoryRecord) -> str:
    return f"[{format_day(r.time)}] {r.speaker or 'user'}: {r.text}"


def pack_lines(records: Sequence[MemoryRecord], budget: int) -> list[MemoryRecord]:
    """Records in rank order, one rendered line each, while the joined text fits the budget."""
    chosen: list[MemoryRecord] = []
    used = 0
    for r in records:
        cost = count_tokens(_baseline_line(r)) + (1 if chosen else 0)
        if used + cost > budget:
            continue
        chosen.append(r)
        used += cost
    return chosen


def baseline_rankings(
    m: Any, user_id: str, query: str, limit: int = 64
) -> dict[str, list[MemoryRecord]]:
    """Dense, BM25 and RRF rankings over the episodic turns (one batched store call)."""
    scope = Scope(user_id=user_id)
    flt = m.visible_filter() & RecordFilter.eq("layer", Layer.EPISODIC.value)
    routes = [
        RouteQuery("dense", "dense", m.embedder.embed_query(query), limit + TIE_MARGIN),
        RouteQuery("bm25", "bm25", m.sparse.query(query), limit + TIE_MARGIN),
    ]
    # the same tie-safe cut as recall, so baseline numbers do not move between runs
    res: dict[str, list[RouteHit]] = RoutePlan(routes, flt).trim(
        m.store.query_routes(scope, routes, flt)
    )
    parse = MemoryRecord.from_payload
    return {
        "dense": [parse(h.payload) for h in res["dense"]],
        "bm25": [parse(h.payload) for h in res["bm25"]],
        "rrf": [parse(c.payload) for c in rrf(res, k=60)],
    }


def _pct(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    s = sorted(values)
    return s[min(len(s) - 1, round(q * (len(s) - 1)))]


def evaluate(
    m: Any,
    conv: Conversation,
    user_id: str,
    *,
    config: RetrievalConfig | None = None,
    budgets: Sequence[int] = BUDGETS,
    baselines: bool = True,
) -> dict[str, Any]:
    """Per-question measurements of PRISM (and the baselines) on an ingested conversation."""
    rows: list[dict[str, Any]] = []
    cfg = (config or m.config.retrieval).model_copy(update={"cache_size": 0})
    order = sorted(budgets, key=lambda b: (b != 1000, b))  # the timed call is the first one
    for q in conv.questions:
        row: dict[str, Any] = {
            "category": q.category,
            "long_evidence": any(len(conv.turn_text.get(e, "")) >= LONG_TURN for e in q.evidence),
            "prism": {},
            "strict": {},
            "tokens": {},
        }
        for i, b in enumerate(order):
            t0 = time.perf_counter()
            ctx = m.recall(q.text, user_id=user_id, budget_tokens=b, config=cfg)
            if i == 0:
                row["latency_ms"] = (time.perf_counter() - t0) * 1000
            _measure_context(row, ctx, conv, q, b, max(budgets))
        if baselines:
            row["baselines"] = _baseline_row(m, user_id, conv, q, budgets)
        rows.append(row)
    return {"rows": rows}


def _measure_context(
    row: dict[str, Any], ctx: Any, conv: Conversation, q: Any, b: int, largest: int
) -> None:
    """One recall's figures at budget ``b`` (recall at k on the largest, routes at 1000)."""
    row["prism"][str(b)] = _recall(covered_turns(ctx.records, conv.turn_text), q.evidence)
    row["strict"][str(b)] = _recall(covered_turns_shown(ctx.items, conv.turn_text), q.evidence)
    row.setdefault("answer", {})[str(b)] = answer_recall(ctx.text, q.answer)
    row["tokens"][str(b)] = ctx.tokens
    if b == largest:
        ranked = sorted(ctx.items, key=lambda it: -it.score)
        row["at_k"] = {
            str(k): _recall(
                covered_turns([it.record for it in ranked[:k]], conv.turn_text), q.evidence
            )
            for k in KS
        }
    if b == 1000:
        row["routes"] = _route_recall(ctx, conv, q)


def _route_recall(ctx: Any, conv: Conversation, q: Any) -> dict[str, float]:
    """Evidence covered by the context records each route found."""
    routes: dict[str, set[str]] = defaultdict(set)
    by_id = {r.id: r for r in ctx.records}
    for c in ctx.trace.candidates:
        rec = by_id.get(c.id)
        if rec is None:
            continue
        for route in c.routes:
            routes[route] |= covered_turns([rec], conv.turn_text)
    return {k: _recall(v, q.evidence) for k, v in routes.items()}


def _baseline_row(
    m: Any, user_id: str, conv: Conversation, q: Any, budgets: Sequence[int]
) -> dict[str, Any]:
    ranks = baseline_rankings(m, user_id, q.text)
    return {
        name: {
            **{
                str(b): _recall(covered_turns(pack_lines(recs, b), conv.turn_text), q.evidence)
                for b in budgets
            },
            **{
                f"answer{b}": answer_recall(
                    "\n".join(_baseline_line(r) for r in pack_lines(recs, b)), q.answer
                )
                for b in budgets
            },
            **{f"k{k}": _recall(covered_turns(recs[:k], conv.turn_text), q.evidence) for k in KS},
        }
        for name, recs in ranks.items()
    }


def _mean(xs: Iterable[float]) -> float:
    xs = list(xs)
    return round(statistics.fmean(xs), 4) if xs else 0.0


def summarise(rows: list[dict[str, Any]], budgets: Sequence[int] = BUDGETS) -> dict[str, Any]:
    """Aggregate per-question rows into the report's numbers."""
    out: dict[str, Any] = {
        "questions": len(rows),
        "prism": _prism_summary(rows, budgets),
        "per_category": {},
        "per_route": {},
    }
    if rows and "baselines" in rows[0]:
        out["baselines"] = {
            name: _baseline_summary(rows, name, budgets) for name in ("dense", "bm25", "rrf")
        }
    for cat in sorted({r["category"] for r in rows}):
        out["per_category"][str(cat)] = _category(
            [r for r in rows if r["category"] == cat], budgets
        )
    out["per_evidence_length"] = _per_evidence_length(rows, budgets)
    for name in sorted({k for r in rows for k in r.get("routes", {})}):
        out["per_route"][name] = _route_summary(rows, name)
    return out


def _prism_summary(rows: list[dict[str, Any]], budgets: Sequence[int]) -> dict[str, Any]:
    lat = [r["latency_ms"] for r in rows if "latency_ms" in r]
    return {
        "recall_at_budget": {str(b): _mean(r["prism"][str(b)] for r in rows) for b in budgets},
        "recall_at_budget_strict": {
            str(b): _mean(r["strict"][str(b)] for r in rows) for b in budgets
        },
        "answer_recall_at_budget": {
            str(b): _mean(r["answer"][str(b)] for r in rows) for b in budgets
        },
        "mean_tokens": {str(b): _mean(r["tokens"][str(b)] for r in rows) for b in budgets},
        "recall_at_k": {str(k): _mean(r["at_k"][str(k)] for r in rows if "at_k" in r) for k in KS},
        "latency_ms": {"p50": round(_pct(lat, 0.5), 2), "p95": round(_pct(lat, 0.95), 2)},
    }


def _baseline_summary(
    rows: list[dict[str, Any]], name: str, budgets: Sequence[int]
) -> dict[str, Any]:
    return {
        "recall_at_budget": {
            str(b): _mean(r["baselines"][name][str(b)] for r in rows) for b in budgets
        },
        "answer_recall_at_budget": {
            str(b): _mean(r["baselines"][name][f"answer{b}"] for r in rows) for b in budgets
        },
        "recall_at_k": {str(k): _mean(r["baselines"][name][f"k{k}"] for r in rows) for k in KS},
    }


def _category(sub: list[dict[str, Any]], budgets: Sequence[int]) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "questions": len(sub),
        "prism": {str(b): _mean(r["prism"][str(b)] for r in sub) for b in budgets},
    }
    if "baselines" in sub[0]:
        for name in ("dense", "bm25", "rrf"):
            entry[name] = {
                str(b): _mean(r["baselines"][name][str(b)] for r in sub) for b in budgets
            }
    return entry


def _per_evidence_length(
    rows: list[dict[str, Any]], budgets: Sequence[int]
) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for label, long_ in (
        (f"long (>= {LONG_TURN} chars)", True),
        (f"short (< {LONG_TURN} chars)", False),
    ):
        sub = [r for r in rows if r.get("long_evidence", False) == long_]
        if not sub:
            continue
        entry: dict[str, Any] = {
            "questions": len(sub),
            "prism": {str(b): _mean(r["prism"][str(b)] for r in sub) for b in budgets},
        }
        if "baselines" in sub[0]:
            entry["dense"] = {
                str(b): _mean(r["baselines"]["dense"][str(b)] for r in sub) for b in budgets
            }
        out[label] = entry
    return out


def _route_summary(rows: list[dict[str, Any]], name: str) -> dict[str, Any]:
    fired = [r for r in rows if name in r.get("routes", {})]
    return {
        "questions_with_hits_in_context": len(fired),
        "evidence_recall_from_route_at_1000": _mean(
            r["routes"][name] for r in rows if name in r.get("routes", {})
        )
        if fired
        else 0.0,
        "share_of_all_evidence_at_1000": _mean(r.get("routes", {}).get(name, 0.0) for r in rows),
    }


def _load_text(report: dict[str, Any]) -> str:
    load = report.get("load_avg")
    if not isinstance(load, dict):
        return "not recorded"
    return f"{load.get('start')} at the start, {load.get('end')} at the end"


def markdown(report: dict[str, Any], title: str) -> str:
    """The human-readable report (same numbers as the JSON)."""
    budgets = list(report["prism"]["recall_at_budget"])
    lines = _md_intro(report, title, budgets)
    lines += _md_recall_rows(report, budgets)
    lines += _md_targets(report, budgets)
    lines += _md_answer_words(report, budgets)
    lines += _md_per_category(report, budgets)
    lines += _md_per_length(report, budgets)
    lines += _md_per_route(report)
    return "\n".join(lines) + "\n"


_BASELINE_LABELS = {"dense": "dense top-k", "bm25": "BM25 top-k", "rrf": "RRF(dense, BM25)"}


def _md_intro(report: dict[str, Any], title: str, budgets: list[str]) -> list[str]:
    head = " | ".join(f"@{b}" for b in budgets)
    return [
        f"# {title}",
        "",
        f"Command: `{report['command']}`",
        "",
        f"Conversations: {', '.join(report['conversations'])}; questions with evidence "
        f"(categories 1-4): {report['questions']}; memories written through remember + "
        f"end_session: {report['memories']}; ingest {report['ingest_s']} s. No LLM. "
        f"Load average (1 min, 2 cores shared with other work): {_load_text(report)}.",
        "",
        "## Evidence recall at token budgets (cl100k)",
        "",
        f"| system | {head} | R@5 | R@10 |",
        "|---|" + "---|" * (len(budgets) + 2),
    ]


def _md_recall_row(label: str, v: dict[str, Any], budgets: list[str], bold: bool = False) -> str:
    cells = [f"{v['recall_at_budget'][b]:.3f}" for b in budgets]
    if bold:
        cells = [f"**{c}**" for c in cells]
    k = v.get("recall_at_k", {})
    return f"| {label} | " + " | ".join(cells) + f" | {k.get('5', 0):.3f} | {k.get('10', 0):.3f} |"


def _md_recall_rows(report: dict[str, Any], budgets: list[str]) -> list[str]:
    variants: dict[str, Any] = report.get("variants", {})
    baselines: dict[str, Any] = report.get("baselines", {})
    lines = [_md_recall_row("**PRISM recall (default config)**", report["prism"], budgets, True)]
    for vname, v in variants.items():
        lines.append(
            _md_recall_row(f"PRISM, {vname} context (`{json.dumps(v['knobs'])}`)", v, budgets)
        )
    for name, label in _BASELINE_LABELS.items():
        if name in baselines:
            lines.append(_md_recall_row(label, baselines[name], budgets))
    return lines


def _md_targets(report: dict[str, Any], budgets: list[str]) -> list[str]:
    p = report["prism"]
    baselines: dict[str, Any] = report.get("baselines", {})
    r = p["recall_at_budget"]
    above = all(
        r[b] > baselines[n]["recall_at_budget"][b]
        for n in ("dense", "rrf")
        if n in baselines
        for b in budgets
    )

    def mark(ok: bool) -> str:
        return "met" if ok else "**missed**"

    return [
        "",
        "Targets (issue, default config): "
        f"@500 >= 0.68: {r.get('500', 0):.3f} {mark(r.get('500', 0) >= 0.68)}; "
        f"@1000 >= 0.78: {r.get('1000', 0):.3f} {mark(r.get('1000', 0) >= 0.78)}; "
        f"above dense and RRF at every budget: {mark(above)}.",
        "",
        "PRISM mean context tokens: "
        + ", ".join(f"@{b}: {p['mean_tokens'][b]:.0f}" for b in budgets),
        "",
        f"PRISM recall latency (first call per question, query embedding included, this "
        f"shared machine): p50 {p['latency_ms']['p50']} ms, p95 {p['latency_ms']['p95']} ms",
    ]


def _md_answer_words(report: dict[str, Any], budgets: list[str]) -> list[str]:
    p = report["prism"]
    variants: dict[str, Any] = report.get("variants", {})
    baselines: dict[str, Any] = report.get("baselines", {})
    lines = [
        "",
        "## Does the shown text still carry the answer?",
        "",
        "Answer-word recall: share of the gold answer's words (3+ letters or digits, no "
        "stopwords) present in the context text. Evidence recall counts a record whatever part "
        "of it is shown; this checks that the words survived. Strict coverage: a compressed "
        "line counts for its turn only if it keeps half of the turn's content words.",
        "",
        "| system | "
        + " | ".join(f"answer @{b}" for b in budgets)
        + " | "
        + " | ".join(f"strict @{b}" for b in budgets)
        + " |",
        "|---|" + "---|" * (2 * len(budgets)),
    ]
    for label, v in [("PRISM default", p)] + [(f"PRISM {k}", v) for k, v in variants.items()]:
        lines.append(
            f"| {label} | "
            + " | ".join(f"{v['answer_recall_at_budget'][b]:.3f}" for b in budgets)
            + " | "
            + " | ".join(f"{v['recall_at_budget_strict'][b]:.3f}" for b in budgets)
            + " |"
        )
    for name, label in _BASELINE_LABELS.items():
        if name in baselines:
            lines.append(
                f"| {label} | "
                + " | ".join(
                    f"{baselines[name]['answer_recall_at_budget'][b]:.3f}" for b in budgets
                )
                + " |" * (len(budgets) + 1)
            )
    return lines


def _md_per_category(report: dict[str, Any], budgets: list[str]) -> list[str]:
    lines = [
        "",
        "## Per category (1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop)",
        "",
        "| category | questions | "
        + " | ".join(f"PRISM @{b}" for b in budgets)
        + " | RRF @1000 | dense @1000 |",
        "|---|---|" + "---|" * (len(budgets) + 2),
    ]
    for cat, e in report["per_category"].items():
        lines.append(
            f"| {cat} | {e['questions']} | "
            + " | ".join(f"{e['prism'][b]:.3f}" for b in budgets)
            + f" | {e.get('rrf', {}).get('1000', 0):.3f} | {e.get('dense', {}).get('1000', 0):.3f} |"
        )
    return lines


def _md_per_length(report: dict[str, Any], budgets: list[str]) -> list[str]:
    lines = [
        "",
        f"## Per evidence length (a question is long when an evidence turn has {LONG_TURN}+ "
        "characters)",
        "",
        "| evidence | questions | "
        + " | ".join(f"PRISM @{b}" for b in budgets)
        + " | dense @1000 |",
        "|---|---|" + "---|" * (len(budgets) + 1),
    ]
    for label, e in report.get("per_evidence_length", {}).items():
        lines.append(
            f"| {label} | {e['questions']} | "
            + " | ".join(f"{e['prism'][b]:.3f}" for b in budgets)
            + f" | {e.get('dense', {}).get('1000', 0):.3f} |"
        )
    return lines


def _md_per_route(report: dict[str, Any]) -> list[str]:
    lines = [
        "",
        "## Per route (PRISM @1000: evidence covered by context records each route found)",
        "",
        "| route | questions with hits in context | recall among those | share of all evidence |",
        "|---|---|---|---|",
    ]
    for name, e in report["per_route"].items():
        lines.append(
            f"| {name} | {e['questions_with_hits_in_context']} | "
            f"{e['evidence_recall_from_route_at_1000']:.3f} | "
            f"{e['share_of_all_evidence_at_1000']:.3f} |"
        )
    return lines


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="+", help="LoCoMo-format JSON files")
    parser.add_argument("--out", default="benchmarks/results", help="directory for the results")
    parser.add_argument("--json", dest="json_path", default=None, help="also write JSON here")
    parser.add_argument("--name", default=None, help="result file stem (default from the data dir)")
    parser.add_argument("--store", default=None, help="directory for the stores (default: temp)")
    parser.add_argument("--no-baselines", action="store_true", help="PRISM only")
    parser.add_argument(
        "--no-variants", action="store_true", help="skip the compressed and graph variants"
    )
    parser.add_argument(
        "--variant",
        action="append",
        default=None,
        metavar="NAME=JSON",
        help="evaluate these RetrievalConfig knobs instead of the built-in variants, e.g. "
        '--variant \'week={"routes": ["dense", "bm25", "graph_time"], '
        '"graph_time_window_days": 7}\' (repeatable)',
    )


def prepare(
    files: Sequence[str], store_dir: str | None, log: Callable[[str], None] = print
) -> tuple[list[tuple[Any, Conversation, str]], float, Any]:
    """Open one embedded store per conversation and ingest it. Returns (runs, seconds, tmp)."""
    from prism_memory.embeddings import FastEmbedEmbedder
    from prism_memory.memory import Memory

    convs = load_conversations(files)
    tmp = None
    if store_dir is None:
        tmp = tempfile.TemporaryDirectory(prefix="prism-locomo-")
        store_dir = tmp.name
    embedder = FastEmbedEmbedder()
    runs = []
    total = 0.0
    for conv in convs:
        m = Memory(path=Path(store_dir) / conv.name, embedder=embedder)
        user = f"locomo-{conv.name}"
        if m.count(user_id=user) == 0:
            secs = ingest(m, conv, user)
            total += secs
            log(f"ingested {conv.name}: {len(conv.turn_text)} turns in {secs:.1f} s")
        runs.append((m, conv, user))
    return runs, total, tmp


def run(args: argparse.Namespace) -> int:
    load_start = round(os.getloadavg()[0], 2)
    runs, ingest_s, tmp = prepare(args.files, args.store)
    try:
        rows: list[dict[str, Any]] = []
        memories = 0
        for m, conv, user in runs:
            memories += m.count(user_id=user)
            rows += evaluate(m, conv, user, baselines=not args.no_baselines)["rows"]
        report = summarise(rows)
        if not args.no_variants:
            report["variants"] = {}
            for vname, knobs in _variants(getattr(args, "variant", None)).items():
                vrows: list[dict[str, Any]] = []
                for m, conv, user in runs:
                    cfg = m.config.retrieval.model_copy(update=knobs)
                    vrows += evaluate(m, conv, user, config=cfg, baselines=False)["rows"]
                report["variants"][vname] = {"knobs": knobs, **summarise(vrows)["prism"]}
        report["conversations"] = [c.name for _, c, _ in runs]
        report["memories"] = memories
        report["ingest_s"] = round(ingest_s, 1)
        report["load_avg"] = {
            "start": load_start,
            "end": round(os.getloadavg()[0], 2),
        }
        report["command"] = (
            "prism bench locomo "
            + " ".join(str(f) for f in args.files)
            + "".join(f" --variant '{v}'" for v in getattr(args, "variant", None) or [])
        )
        report["config"] = runs[0][0].config.retrieval.model_dump(mode="json") if runs else {}
    finally:
        for m, _, _ in runs:
            m.close()
        if tmp is not None:
            tmp.cleanup()
    name = args.name or _default_name(args.files)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{name}.json").write_text(json.dumps(report, indent=2))
    (out / f"{name}.md").write_text(markdown(report, f"LoCoMo evidence recall ({name})"))
    if args.json_path:
        Path(args.json_path).write_text(json.dumps(report, indent=2))
    print(markdown(report, f"LoCoMo evidence recall ({name})"))
    return 0


def _variants(given: Sequence[str] | None) -> dict[str, dict[str, Any]]:
    """The ``--variant NAME=JSON`` options as variants (none given: :data:`VARIANTS`).

    >>> _variants(['week={"graph_time_window_days": 7}'])
    {'week': {'graph_time_window_days': 7}}
    """
    if not given:
        return VARIANTS
    out: dict[str, dict[str, Any]] = {}
    for spec in given:
        name, _, knobs = spec.partition("=")
        out[name.strip()] = json.loads(knobs)
    return out


def _default_name(files: Sequence[str]) -> str:
    parent = Path(files[0]).resolve().parent.name
    return parent if parent.startswith("locomo") else "locomo"
