"""``prism bench footprint``: resident memory of a process that opens a store, adds and recalls.

Design: a memory library lives inside someone else's agent process, so what it costs there is
measured the way that process would see it: a fresh Python interpreter per embedder (``default``:
the packaged offline model; ``fake``: :class:`~prism_memory.FakeEmbedder`, the floor without a
model) imports ``prism_memory``, opens a new embedded store, adds one text and recalls once. The
child reports ``VmRSS`` after each step, split into anonymous memory (the process's own heap)
and file-backed pages (shared libraries and the store's memory-mapped files, which the kernel
can drop and re-read), and the peak (``VmHWM``). Then, with the default embedder, it embeds the
demo conversation's turns (made distinct) to report texts/s and the RSS after that work, and
times ``embed_query`` on short queries, so a footprint cut that slows the model shows here.
``--pythonpath DIR`` measures another checkout (e.g. a copy of the previous release) with the
same child code: before/after comparisons run back to back. Writes ``footprint.json`` and
``footprint.md`` to ``--out``. The load average at the start and the end is part of the result
(speed figures on a shared machine are only comparable back to back).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

__all__ = ["CHILD", "add_arguments", "measure", "run"]

#: the child process: only public API, so it runs against any checkout (``--pythonpath``)
CHILD = r"""
import json, os, resource, sys, tempfile, time
from importlib import resources

def mem():
    out = {}
    with open("/proc/self/status") as fh:
        for line in fh:
            key = line.split(":")[0]
            if key in ("VmRSS", "RssAnon", "RssFile", "VmHWM"):
                out[key] = round(int(line.split()[1]) / 1024, 1)
    return out

def say(step, **extra):
    print(json.dumps({"step": step, **mem(), **extra}), flush=True)

embedder_name, rounds = sys.argv[1], int(sys.argv[2])
say("start")
import prism_memory
from prism_memory import FakeEmbedder, Memory
say("import", package=os.path.basename(os.path.dirname(os.path.dirname(prism_memory.__file__))))
with tempfile.TemporaryDirectory() as path:
    embedder = FakeEmbedder() if embedder_name == "fake" else None
    memory = Memory(path=os.path.join(path, "store"), embedder=embedder)
    say("open")
    memory.add("I moved to Lisbon last spring and my sister Ana visited in May.", user_id="u")
    say("add")
    memory.recall("where did I move?", user_id="u")
    say("recall")
    if embedder_name != "fake":
        demo = json.loads(
            resources.files("prism_memory").joinpath("data/demo_conversation.json").read_text()
        )
        turns = [t["content"] for s in demo["sessions"] for t in s["turns"]]
        texts = [f"{t} ({i})" for i in range(rounds) for t in turns]
        emb = memory.embedder
        start = time.perf_counter()
        for i in range(0, len(texts), 16):
            emb.embed_documents(texts[i : i + 16])
        seconds = time.perf_counter() - start
        queries = [f"what did Maya say about {w}?" for w in turns[0].split()[:30]]
        times = []
        for q in queries:
            t0 = time.perf_counter()
            emb.embed_query(q)
            times.append((time.perf_counter() - t0) * 1000)
        times.sort()
        say(
            "embed",
            texts=len(texts),
            texts_per_s=round(len(texts) / seconds, 1),
            query_ms_p50=round(times[len(times) // 2], 2),
            query_ms_p95=round(times[int(len(times) * 0.95)], 2),
        )
    memory.close()
say("close", maxrss_mb=round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1))
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--embedders", default="default,fake", help="comma-separated: default (model), fake"
    )
    parser.add_argument(
        "--rounds", type=int, default=4, help="copies of the demo turns embedded for texts/s"
    )
    parser.add_argument(
        "--pythonpath", default=None, help="measure another checkout: its directory"
    )
    parser.add_argument("--label", default=None, help="name of this run in the report")
    parser.add_argument("--out", default="benchmarks/results", help="directory for the report")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")


def measure(embedder: str, rounds: int = 4, pythonpath: str | None = None) -> dict[str, Any]:
    """One child process's steps (``{step: {VmRSS, RssAnon, RssFile, VmHWM, ...}}``)."""
    import prism_memory

    # the child runs in a neutral directory (``-c`` puts the working directory first on the
    # path) and imports the checkout asked for, else the one this command runs from
    here = os.path.dirname(os.path.dirname(os.path.abspath(prism_memory.__file__)))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.abspath(pythonpath) if pythonpath else here
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, embedder, str(rounds)],
        env=env,
        cwd=tempfile.gettempdir(),
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"the footprint child failed ({embedder}): {proc.stderr[-2000:]}")
    steps: dict[str, Any] = {}
    for line in proc.stdout.splitlines():
        if line.startswith("{"):
            row = json.loads(line)
            steps[row.pop("step")] = row
    return steps


def _load() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:  # pragma: no cover - no load average on this platform
        return "n/a"


def _markdown(result: dict[str, Any]) -> str:
    lines = [
        f"# Footprint ({result['label']})",
        "",
        "RSS in MB of a fresh process: import, open a new embedded store, add one text, recall "
        "once (`prism bench footprint`). anon = the process's own heap; file = shared "
        "libraries and the store's memory-mapped files (reclaimable by the kernel).",
        "",
        "| embedder | step | RSS | anon | file | peak |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for name, steps in result["embedders"].items():
        for step in ("import", "open", "add", "recall", "embed"):
            if step in steps:
                s = steps[step]
                lines.append(
                    f"| {name} | {step} | {s['VmRSS']} | {s['RssAnon']} | {s['RssFile']} "
                    f"| {s['VmHWM']} |"
                )
    for name, steps in result["embedders"].items():
        if "embed" in steps:
            e = steps["embed"]
            lines += [
                "",
                f"Embedding ({name}): {e['texts']} chat turns in batches of 16, "
                f"{e['texts_per_s']} texts/s; embed_query p50 {e['query_ms_p50']} ms, "
                f"p95 {e['query_ms_p95']} ms.",
            ]
    lines += [
        "",
        f"Load average at start / end: {result['load_start']} / {result['load_end']} "
        f"({result['machine']}); speed figures are comparable only back to back.",
        "",
    ]
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    names = [n.strip() for n in args.embedders.split(",") if n.strip()]
    label = args.label or ("this checkout" if not args.pythonpath else args.pythonpath)
    result: dict[str, Any] = {
        "label": label,
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}",
        "load_start": _load(),
        "embedders": {},
    }
    started = time.perf_counter()
    for name in names:
        result["embedders"][name] = measure(name, args.rounds, args.pythonpath)
    result["seconds"] = round(time.perf_counter() - started, 1)
    result["load_end"] = _load()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    stem = "footprint" if not args.label else f"footprint-{args.label}"
    (out / f"{stem}.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    (out / f"{stem}.md").write_text(_markdown(result), encoding="utf-8")
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(_markdown(result))
    return 0
