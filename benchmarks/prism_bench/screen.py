"""``prism bench screen``: what each poisoning-screen mode quarantines, per source, and its cost.

Design: each labelled corpus (JSON lines with ``text``, ``label`` = ``attack`` | ``benign`` and
``source``) is screened under every mode (``SafetyConfig.screen``: ``default``, ``strict``,
``rules``) in batches of ``--batch`` texts, as write calls screen them. For each mode and
source: attacks quarantined / attacks, benign quarantined / benign. Ordinary chat turns
(``--locomo FILE...``, LoCoMo format) are screened as the user's own words and as tool output:
every one quarantined there is a false positive. "The user's own words" pools the benign
user-source rows of the corpora with the LoCoMo turns; it is the figure the default screen is
held to (at most 0.5%). Writes ``screen.json`` and ``screen.md`` to ``--out``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["add_arguments", "measure", "run"]

MODES = ("default", "strict", "rules")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="+", metavar="FILE", help="labelled corpora (JSON lines)")
    parser.add_argument("--locomo", nargs="*", default=[], metavar="FILE", help="chat turns")
    parser.add_argument("--modes", default=",".join(MODES), help="modes, comma-separated")
    parser.add_argument("--batch", type=int, default=64, help="texts per screened write call")
    parser.add_argument("--out", default="benchmarks/results", help="directory for screen.json/.md")


def _rows(path: str) -> list[dict[str, Any]]:
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def _screen(items: Sequence[tuple[str, str]], mode: str, batch: int) -> tuple[list[bool], float]:
    from prism_memory.safety.poisoning import screen_batch

    start = time.perf_counter()
    out: list[bool] = []
    for i in range(0, len(items), batch):
        out += [v.quarantined for v in screen_batch(items[i : i + batch], mode=mode)]
    return out, time.perf_counter() - start


def _rate(hit: int, n: int) -> dict[str, Any]:
    return {"quarantined": hit, "n": n, "rate": round(hit / n, 4) if n else None}


def measure(
    corpora: dict[str, list[dict[str, Any]]], turns: list[str], mode: str, batch: int = 64
) -> dict[str, Any]:
    """Rates of one mode over ``corpora`` (name -> rows) and chat ``turns``."""
    rows = [r for rs in corpora.values() for r in rs]
    verdicts, seconds = _screen([(r["text"], r["source"]) for r in rows], mode, batch)
    per: dict[str, Counter[str]] = {"attack": Counter(), "benign": Counter()}
    totals: dict[str, Counter[str]] = {"attack": Counter(), "benign": Counter()}
    by_file: dict[str, dict[str, Counter[str]]] = {}
    i = 0
    for name, rs in corpora.items():
        counts = by_file.setdefault(name, {"attack": Counter(), "benign": Counter()})
        for r in rs:
            label = "attack" if r["label"] == "attack" else "benign"
            for key in ("all", f"source={r['source']}"):
                totals[label][key] += 1
                per[label][key] += int(verdicts[i])
            counts[label]["n"] += 1
            counts[label]["q"] += int(verdicts[i])
            i += 1
    out: dict[str, Any] = {
        label: {k: _rate(per[label][k], totals[label][k]) for k in sorted(totals[label])}
        for label in ("attack", "benign")
    }
    out["corpora"] = {
        name: {label: _rate(c[label]["q"], c[label]["n"]) for label in c}
        for name, c in by_file.items()
    }
    n_texts = len(rows)
    if turns:
        as_user, t_user = _screen([(t, "user") for t in turns], mode, batch)
        as_tool, t_tool = _screen([(t, "tool") for t in turns], mode, batch)
        seconds += t_user + t_tool
        n_texts += 2 * len(turns)
        out["chat_turns"] = {"as_user": _rate(sum(as_user), len(turns))}
        out["chat_turns"]["as_tool"] = _rate(sum(as_tool), len(turns))
        own = per["benign"]["source=user"] + sum(as_user)
        out["users_own_words"] = _rate(own, totals["benign"]["source=user"] + len(turns))
    out["ms_per_text"] = round(1000 * seconds / n_texts, 3) if n_texts else None
    return out


def run(args: argparse.Namespace) -> int:
    from .ingest import load_sessions

    corpora = {Path(f).stem: _rows(f) for f in args.files}
    turns = [m["content"] for f in args.locomo for _, _, ms in load_sessions(f) for m in ms]
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    result: dict[str, Any] = {
        "command": "prism bench screen "
        + " ".join(os.path.basename(f) for f in args.files)
        + (
            " --locomo " + " ".join(os.path.basename(f) for f in args.locomo) if args.locomo else ""
        ),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "batch": args.batch,
        "modes": {},
    }
    for mode in modes:
        result["modes"][mode] = measure(corpora, turns, mode, args.batch)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "screen.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    (out / "screen.md").write_text(_markdown(result), encoding="utf-8")
    print(_markdown(result))
    return 0


def _fmt(r: dict[str, Any] | None) -> str:
    if not r or not r["n"]:
        return "–"
    return f"{r['quarantined']}/{r['n']} ({100 * r['rate']:.1f}%)"


def _markdown(r: dict[str, Any]) -> str:
    lines = [
        "# Poisoning screen by mode",
        "",
        f"`{r['command']}` — {r['machine']}; {r['batch']} texts a write call.",
        "",
        "| mode | source | attacks quarantined | benign quarantined |",
        "|---|---|---|---|",
    ]
    for mode, m in r["modes"].items():
        for key in sorted(set(m["attack"]) | set(m["benign"])):
            lines.append(
                f"| {mode} | {key.removeprefix('source=')} | {_fmt(m['attack'].get(key))} "
                f"| {_fmt(m['benign'].get(key))} |"
            )
    lines += ["", "| mode | corpus | attacks | benign |", "|---|---|---|---|"]
    for mode, m in r["modes"].items():
        for name, c in m["corpora"].items():
            lines.append(f"| {mode} | {name} | {_fmt(c.get('attack'))} | {_fmt(c.get('benign'))} |")
    if any("chat_turns" in m for m in r["modes"].values()):
        lines += [
            "",
            "| mode | chat turns as user | as tool | the user's own words (benign) | ms a text |",
            "|---|---|---|---|---|",
        ]
        for mode, m in r["modes"].items():
            if "chat_turns" in m:
                lines.append(
                    f"| {mode} | {_fmt(m['chat_turns']['as_user'])} | "
                    f"{_fmt(m['chat_turns']['as_tool'])} | {_fmt(m['users_own_words'])} | "
                    f"{m['ms_per_text']} |"
                )
    return "\n".join(lines) + "\n"
