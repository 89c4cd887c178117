"""Targets and the markdown report of ``prism bench scale`` (pure functions over its JSON).

Kept apart from the measuring code so the report can be re-rendered from a saved ``scale.json``
and tested without running anything.
"""

from __future__ import annotations

from typing import Any

__all__ = ["TARGETS", "render_markdown", "targets"]

# issue 2 / DESIGN.md targets at 100K memories on a 2-core machine: (bound, direction)
TARGETS: dict[str, tuple[float, str]] = {
    "ingest_texts_per_s": (300.0, ">="),
    "search_p50_ms": (10.0, "<="),
    "search_p95_ms": (25.0, "<="),
    "recall_p50_ms": (15.0, "<="),
    "recall_p95_ms": (40.0, "<="),
}


def _check(name: str, value: float) -> dict[str, Any]:
    bound, op = TARGETS[name]
    met = value >= bound if op == ">=" else value <= bound
    return {"target": f"{op} {bound:g}", "value": value, "met": met}


def targets(results: dict[str, Any]) -> dict[str, Any]:
    """Each target with the measured value (at the largest size) and whether it is met.

    Search targets are checked twice: on the store call alone (``store_*``) and end to end
    through ``Memory.search`` (``search_*``, which adds the query embedding).
    """
    big = results["sizes"][-1] if results["sizes"] else {}
    out: dict[str, Any] = {"at_size": big.get("size")}
    out["ingest_texts_per_s"] = _check("ingest_texts_per_s", results["ingest"]["texts_per_s"])
    for label, key, target in (
        ("edge_hybrid_query", "store", "search"),
        ("edge_memory_search", "search", "search"),
        ("edge_memory_recall", "recall", "recall"),
    ):
        lat = big.get(label)
        if lat:
            out[f"{key}_p50_ms"] = _check(f"{target}_p50_ms", lat["p50_ms"])
            out[f"{key}_p95_ms"] = _check(f"{target}_p95_ms", lat["p95_ms"])
    return out


def _fmt(value: Any) -> str:
    return "-" if value is None else str(value)


def render_markdown(r: dict[str, Any]) -> str:
    """The human-readable report written next to ``scale.json``."""
    lines = _intro(r) + _ingest(r) + _vectors(r["settings"]) + _latency(r) + _load(r)
    lines += _targets(r)
    lines.append("")
    return "\n".join(lines)


def _intro(r: dict[str, Any]) -> list[str]:
    s = r["settings"]
    return [
        "# Scale benchmark",
        "",
        f"`prism bench scale --sizes {','.join(map(str, s['sizes']))} --users {s['users']}"
        + (f" --long-share {s['long_share']}" if s.get("long_share") else "")
        + f"` — "
        f"{r['date']}, {r['machine']['cpus']} CPUs, Python {r['machine']['python']}, "
        f"prism-memory {r['version']}, wall time {r['wall_s']} s.",
        "",
        f"Machine load (1-minute load average) at start / end: "
        f"{_fmt(r['machine'].get('load_avg_1m_start'))} / "
        f"{_fmt(r['machine'].get('load_avg_1m_end'))} on {r['machine']['cpus']} CPUs; other "
        "processes were sharing the machine when the load is above the CPU count, which slows "
        "every figure below.",
        "",
        (
            "Synthetic short memories (templates + random vocabulary, fixed seed)"
            if not s.get("long_share")
            else f"Synthetic memories (templates + random vocabulary, fixed seed; "
            f"{s['long_share']:.0%} of them long texts of 10-36 sentences, like long assistant "
            f"replies; mean length {s.get('mean_chars')} characters)"
        )
        + f" of {s['users']} users, each said by one of a few dozen named speakers and embedded as "
        "`speaker: text` like conversation turns (so recall pays for its speaker-only penalty); every query runs in one user's scope with the default visibility "
        "filter (active, not quarantined): a filtered hybrid query (dense + BM25 prefetch "
        f"{s['prefetch_limit']} each, RRF, top {s['limit']}).",
        "",
    ]


def _ingest(r: dict[str, Any]) -> list[str]:
    s = r["settings"]
    ing = r["ingest"]
    bulk = r["bulk_embedding"]
    return [
        "## Ingest (real embeddings)",
        "",
        f"Embedder `{s['embedder']}` (packaged offline int8 ONNX when it is the default).",
        "",
        "| path | texts | seconds | texts/s | embedding s | rest s |",
        "|---|---:|---:|---:|---:|---:|",
        f"| `Memory.add_many`, batches of {ing['batch']} (dense + BM25 + upsert) | {ing['texts']} | "
        f"{ing['wall_s']} | **{ing['texts_per_s']}** | {ing['embedding_s']} | {ing['rest_s']} |",
        f"| bulk embedding for the load below (embedder only) | {bulk['texts']} | {bulk['seconds']} "
        f"| {bulk['texts_per_s']} | {bulk['seconds']} | - |",
        "",
        f"Mean text length {ing['mean_chars']} characters. Target: >= 300 texts/s end to end.",
        "",
    ]


def _vectors(s: dict[str, Any]) -> list[str]:
    lines: list[str] = []
    largest = s["sizes"][-1]
    if s["unique_texts_embedded"] < largest:
        lines += [
            f"Vectors: the bulk load embeds {s['unique_texts_embedded']} unique texts with the real "
            f"model and repeats them to reach {largest} memories (each memory keeps its own "
            "text's real vector; repeated texts belong to different users).",
            "",
        ]
    else:
        lines += ["Vectors: every memory's text was embedded with the real model.", ""]
    return lines


def _latency(r: dict[str, Any]) -> list[str]:
    lines: list[str] = []
    lines += [
        "## Search latency",
        "",
        "`hybrid_query`: the store call with pre-computed query vectors (same call on both "
        "engines). `Memory.search`: end to end, including the query embedding (one model call) and "
        "BM25 encoding. `Memory.recall`: the intent-aware, token-budgeted read path "
        "(if installed).",
        "",
        "| size | Edge hybrid_query p50 / p95 ms | Memory.search p50 / p95 ms | Memory.recall p50 / p95 ms "
        "| qdrant-client local p50 / p95 ms (n) | local / Edge p50 | RSS MB | Edge disk MB |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in r["sizes"]:
        eh, es = row["edge_hybrid_query"], row["edge_memory_search"]
        rc = row.get("edge_memory_recall")
        bl = row.get("baseline_hybrid_query")
        lines.append(
            f"| {row['size']} | {eh['p50_ms']} / {eh['p95_ms']} | {es['p50_ms']} / {es['p95_ms']} | "
            + (f"{rc['p50_ms']} / {rc['p95_ms']}" if rc else "not installed")
            + " | "
            + (f"{bl['p50_ms']} / {bl['p95_ms']} ({bl['n']})" if bl else "skipped")
            + f" | {_fmt(row.get('baseline_over_edge_p50'))}x | {row['rss_mb']} | {row['edge_disk_mb']} |"
        )
    return lines


def _load(r: dict[str, Any]) -> list[str]:
    s = r["settings"]
    lines: list[str] = []
    lines += [
        "",
        f"Edge timings use {s['queries']} queries per size. qdrant-client local mode is a "
        "brute-force Python engine (seconds per query at 100K), so its queries are capped at "
        f"{s['baseline_queries_cap']} or {s['baseline_budget_s']} s per size; the ratio compares "
        "p50s over those same queries. The embedded engine is loaded and timed first, alone in the "
        "process; the local-mode baseline is loaded afterwards (its Python objects would slow the "
        "garbage collections of the timed Edge calls), and before the timed calls the harness's own "
        "data (texts, timestamps) is frozen out of the collector's full passes with `gc.freeze()`. RSS is the process after the Edge "
        f"measurements at that size (Edge plus the bulk vectors); peak {r['peak_rss_mb']} MB with "
        "both engines loaded.",
        "",
        "| size | records built s | Edge upsert s | Edge optimize s | local-mode upsert s |",
        "|---:|---:|---:|---:|---:|",
    ]
    for row in r["sizes"]:
        ld = row["load"]
        lines.append(
            f"| {row['size']} | {ld['records_built_s']} | {ld['edge_upsert_s']} | "
            f"{ld['edge_optimize_s']} | {_fmt(ld['baseline_upsert_s'])} |"
        )
    return lines


def _targets(r: dict[str, Any]) -> list[str]:
    lines: list[str] = []
    lines += ["", "## Targets", "", f"At {r['targets'].get('at_size')} memories:", ""]
    lines += ["| metric | target | measured | met |", "|---|---|---:|---|"]
    for key, t in r["targets"].items():
        if isinstance(t, dict):
            lines.append(
                f"| {key} | {t['target']} | {t['value']} | {'yes' if t['met'] else 'no'} |"
            )
    return lines
