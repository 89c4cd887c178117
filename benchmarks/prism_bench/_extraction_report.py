"""The markdown report of ``prism bench extraction`` (same numbers as its JSON).

Design: one pure function per section of the report, each from the report's JSON dict to its
lines; :func:`markdown` joins them. Nothing here measures or reads a store.
"""

from __future__ import annotations

from typing import Any

__all__ = ["markdown"]


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


def markdown(report: dict[str, Any]) -> str:
    """The human-readable report (same numbers as the JSON)."""
    s = report["score"]
    lines = _md_recall(report) + _md_precision(s) + _md_by_group(s) + _md_dates(s)
    lines += _md_cost(report["timing"], s) + _md_misses(s)
    return "\n".join(lines) + "\n"


def _md_recall(report: dict[str, Any]) -> list[str]:
    s = report["score"]
    lines = [
        f"# Extraction on {report['cases_file']} ({report['cases']} cases)",
        "",
        f"`{report['command']}` — {report['embedder']}, {report['seconds']} s, "
        f"load average {report['load_average']['start']} -> {report['load_average']['end']}.",
        "",
        "## Recall of expected items",
        "",
        "| group | found / total | strict | loose |",
        "|---|---|---|---|",
    ]
    for g, v in s["recall_strict"].items():
        lines.append(
            f"| {g} | {v['found']}/{v['total']} | {_pct(v['recall'])} | {_pct(s['recall_loose'][g])} |"
        )
    return lines


def _md_precision(s: dict[str, Any]) -> list[str]:
    p = s["precision_proxy"]
    n = s["negatives_with_a_record"]
    st = s["stale_retired"]
    u = s["update_cases_fully_right"]
    return [
        "",
        "## Precision, negatives, updates, dates",
        "",
        f"- Precision proxy: {p['matching']}/{p['records']} current records hold an expected "
        f"item's words = **{_pct(p['precision'])}** ({p['unmatched_naming_an_expected_person']} "
        f"of the others name an expected person without its values; without them "
        f"{_pct(p['precision_without_those'])}).",
        f"- Negative cases with any record: {n['cases']}/{n['total']} = **{_pct(n['rate'])}**.",
        f"- Stale values retired: {st['retired']}/{st['total']} = **{_pct(st['rate'])}** "
        f"({st['old_value_in_history']} of them extracted, then superseded: visible with "
        "`include_history=True`).",
        f"- Update cases fully right (new value found, every old one retired): "
        f"{u['right']}/{u['total']} = {_pct(u['rate'])}.",
    ]


def _md_by_group(s: dict[str, Any]) -> list[str]:
    lines: list[str] = []
    by_group = s.get("by_group") or {}
    if by_group:
        lines += [
            "",
            "| set / shape | precision | stale retired | updates fully right |",
            "|---|---|---|---|",
        ]
        for g, v in by_group.items():
            st_g, up_g = v["stale_retired"], v["updates_fully_right"]
            lines.append(
                f"| {g} | {_pct(v['precision'])} | "
                + (f"{st_g[0]}/{st_g[1]} = {_pct(v['stale_retired_rate'])}" if st_g else "–")
                + " | "
                + (f"{up_g[0]}/{up_g[1]} = {_pct(v['updates_fully_right_rate'])}" if up_g else "–")
                + " |"
            )
        lines.append("")
    return lines


def _md_dates(s: dict[str, Any]) -> list[str]:
    lines: list[str] = []
    for g, v in s["date_accuracy"].items():
        lines.append(
            f"- Date accuracy ({g}): {v['right_date']}/{v['total']} = **{_pct(v['accuracy'])}**; "
            f"when the words were found {_pct(v['accuracy_when_words_found'])}."
        )
    return lines


def _md_cost(t: dict[str, Any], s: dict[str, Any]) -> list[str]:
    return [
        "",
        "## Cost",
        "",
        f"- `extract` (sentence split, speech acts, clause rules, dates): "
        f"**{t['extract_cpu_ms_per_user_turn']} ms CPU** per user turn "
        f"({t['extract_ms_per_user_turn']} ms wall on this shared machine).",
        f"- The whole semantic step of `remember` (extraction, store lookups, reconciliation, "
        f"retirement): **{t['semantic_step_cpu_ms_per_turn']} ms CPU** per turn "
        f"({t['semantic_step_ms_per_turn']} ms wall).",
        f"- `remember` itself (embedding, screening, writing): {t['remember_ms_per_turn']} ms per "
        f"turn; extracted records written: {t['records_per_user_turn']} per user turn.",
        "",
        f"## Misses (first {len(s['misses'])})",
        "",
    ]


def _md_misses(s: dict[str, Any]) -> list[str]:
    lines: list[str] = []
    for m in s["misses"]:
        got = "; ".join(r["text"] for r in m["records"]) or "nothing"
        lines.append(
            f"- `{m['id']}` {m['expect']['type']} {m['expect']['must']} about "
            f"{m['expect'].get('about')}: {m['why']}. Turns: {' / '.join(m['turns'])} -> {got}"
        )
    lines += ["", f"## False positives (first {len(s['false_positives'])})", ""]
    for f in s["false_positives"]:
        lines.append(f"- `{f['id']}` {' / '.join(f['turns'])} -> {f['record']['text']}")
    if s["stale_not_retired"]:
        lines += ["", "## Stale values still current", ""]
        for x in s["stale_not_retired"]:
            lines.append(
                f"- `{x['id']}` {x['stale']['must']}: "
                + "; ".join(r["text"] for r in x["still_current"])
            )
    return lines
