"""``prism bench serve``: the memory service under load and under crashes, over real HTTP.

Design:
- One embedded store of ``--size`` synthetic memories (``bench.scale``'s texts, over
  ``--users`` users, written in-process with the real model), then four measurements against
  ``prism serve`` child processes on loopback (:class:`~prism_memory.server.process.ServiceProcess`):
  1. **Overhead**: the same recall queries in-process (``Memory.recall``) and over HTTP
     (``RemoteMemory.recall``), one after the other in the same run. Reported: both p50s, their
     difference, and the paired per-call overhead (client time, parse and rebuild included, minus
     the server's time in ``Memory.recall`` from its ``Server-Timing`` header), which a shared
     machine's noise affects less.
  2. **Throughput**: ``--clients`` threads (default 16), each with its own ``RemoteMemory``,
     calling recall for ``--seconds``: recalls per second and p50/p95.
  3. **Mixed load**: the same number of threads doing add / remember / recall / search / delete
     in a fixed mix, each in its own scope; afterwards every acknowledged write must be there
     exactly once and every acknowledged delete gone (0 lost, 0 duplicated).
  4. **Crashes** (``--kills``): writer threads add records; the server is SIGKILLed mid-writes,
     restarted on the same path, and every write it had acknowledged must be there.
- The clients run in this process (threads; the server is another process), so on a small
  machine they compete with the server for the same cores; the report says how many.
- Writes ``serve.json`` and ``serve.md`` to ``--out``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import platform
import random
import statistics
import sys
import tempfile
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from .scale import make_queries, make_texts, percentile

__all__ = ["add_arguments", "run"]

MIX = (("recall", 4), ("search", 3), ("add", 2), ("remember", 1), ("delete", 1))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--size", type=int, default=10_000, help="memories in the store (default 10000)"
    )
    parser.add_argument("--users", type=int, default=100, help="users the memories belong to")
    parser.add_argument(
        "--clients", type=int, default=16, help="concurrent HTTP clients (default 16)"
    )
    parser.add_argument("--seconds", type=float, default=20.0, help="duration of each load phase")
    parser.add_argument(
        "--queries", type=int, default=200, help="recall queries of the overhead phase"
    )
    parser.add_argument("--kills", type=int, default=3, help="SIGKILLs of the server mid-writes")
    parser.add_argument("--out", default="benchmarks/results", help="directory for serve.json/.md")
    parser.add_argument(
        "--workdir", help="where the store is built (default: a temporary directory)"
    )
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", action="store_true", help="print the results as JSON")


def _lat(samples: list[float]) -> dict[str, float]:
    ms = [s * 1000 for s in samples] or [0.0]
    return {
        "n": len(samples),
        "p50_ms": round(percentile(ms, 50), 2),
        "p95_ms": round(percentile(ms, 95), 2),
        "mean_ms": round(statistics.fmean(ms), 2),
    }


def _build_store(path: Path, size: int, users: int, seed: int, say: Callable[[str], None]) -> float:
    from prism_memory.memory import Memory

    data = make_texts(size, seed=seed)
    by_user: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for i, (kind, text) in enumerate(data):
        by_user[f"user-{i % users:04d}"].append({"text": text, "kind": kind})
    start = time.perf_counter()
    with Memory(path=path) as m:
        for n, (user, items) in enumerate(by_user.items()):
            for chunk in range(0, len(items), 250):
                m.add_many(items[chunk : chunk + 250], user_id=user)
            if n % 20 == 0:
                say(f"  built {n + 1}/{len(by_user)} users")
        optimize = getattr(m.store, "optimize", None)
        if optimize is not None:
            optimize()
    return time.perf_counter() - start


def _overhead(
    path: Path, queries: list[tuple[str, str]], say: Callable[[str], None]
) -> dict[str, Any]:
    import httpx
    import orjson

    from prism_memory import wire
    from prism_memory.memory import Memory
    from prism_memory.remote import RemoteMemory
    from prism_memory.server.process import ServiceProcess

    local_s: list[float] = []
    with Memory(path=path) as m:
        m.recall("warm up", user_id="user-0000")
        for user, q in queries:
            t = time.perf_counter()
            m.recall(q, user_id=user)
            local_s.append(time.perf_counter() - t)
    say(f"  in-process recall p50 {percentile(local_s, 50) * 1000:.1f} ms")
    http_s: list[float] = []
    paired: list[float] = []
    with ServiceProcess.start(path=path) as svc, RemoteMemory(svc.url) as r:
        r.recall("warm up", user_id="user-0000")
        for user, q in queries:
            t = time.perf_counter()
            r.recall(q, user_id=user)
            http_s.append(time.perf_counter() - t)
        # the same calls as RemoteMemory makes (request, parse, rebuild the MemoryContext),
        # paired with the server's own time for each (its Server-Timing header)
        with httpx.Client(base_url=svc.url, timeout=120) as c:
            for user, q in queries:
                t = time.perf_counter()
                resp = c.post("/v1/recall", json={"query": q, "user_id": user})
                wire.context_from_json(orjson.loads(resp.content))
                took_ms = (time.perf_counter() - t) * 1000
                server_ms = float(resp.headers["server-timing"].split("dur=")[1])
                paired.append(took_ms - server_ms)
    local, http = _lat(local_s), _lat(http_s)
    return {
        "in_process": local,
        "http": http,
        "p50_added_ms": round(http["p50_ms"] - local["p50_ms"], 2),
        "paired_overhead_ms": {
            "p50": round(percentile(paired, 50), 2),
            "p95": round(percentile(paired, 95), 2),
            "what": "per call: the client's time (request, parse, rebuild the MemoryContext) "
            "minus the server's time in Memory.recall (its Server-Timing header)",
        },
    }


def _throughput(
    url: str, clients: int, seconds: float, queries: list[tuple[str, str]]
) -> dict[str, Any]:
    from prism_memory.remote import RemoteMemory

    stop = time.monotonic() + seconds
    samples: list[list[float]] = [[] for _ in range(clients)]
    errors: list[str] = []

    def work(i: int) -> None:
        rng = random.Random(i)
        with RemoteMemory(url, timeout=120) as r:
            while time.monotonic() < stop:
                user, q = rng.choice(queries)
                t = time.perf_counter()
                try:
                    r.recall(q, user_id=user)
                except Exception as exc:
                    errors.append(f"{type(exc).__name__}: {exc}")
                    continue
                samples[i].append(time.perf_counter() - t)

    start = time.perf_counter()
    threads = [threading.Thread(target=work, args=(i,)) for i in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - start
    done = [s for per in samples for s in per]
    return {
        "clients": clients,
        "seconds": round(elapsed, 1),
        "recalls": len(done),
        "recalls_per_s": round(len(done) / elapsed, 1),
        "latency": _lat(done),
        "errors": len(errors),
        "first_errors": errors[:3],
    }


def _mixed(
    url: str, clients: int, seconds: float, queries: list[tuple[str, str]]
) -> dict[str, Any]:
    """``clients`` threads calling a weighted mix for ``seconds``; then every acknowledged add
    is looked for (lost, duplicated) and every acknowledged delete (still present)."""
    load = _MixedLoad(url, queries, time.monotonic() + seconds)
    start = time.perf_counter()
    threads = [threading.Thread(target=load.client, args=(i,)) for i in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - start
    lost, duplicated, resurrected = load.audit()
    calls = sum(len(v) for v in load.lat.values())
    return {
        "clients": clients,
        "seconds": round(elapsed, 1),
        "calls": calls,
        "calls_per_s": round(calls / elapsed, 1),
        "per_call": {op: _lat(v) for op, v in sorted(load.lat.items())},
        "acknowledged_adds": sum(len(v) for v in load.acked.values()),
        "acknowledged_deletes": sum(len(v) for v in load.deleted.values()),
        "lost_writes": lost,
        "duplicated_writes": duplicated,
        "deleted_but_present": resurrected,
        "errors": len(load.errors),
        "first_errors": load.errors[:3],
    }


class _MixedLoad:
    """The mixed workload's clients and what they saw acknowledged."""

    def __init__(self, url: str, queries: list[tuple[str, str]], stop: float) -> None:
        self.url, self.queries, self.stop = url, queries, stop
        self.lat: dict[str, list[float]] = defaultdict(list)
        self.lock = threading.Lock()
        self.acked: dict[str, dict[str, str]] = defaultdict(dict)  # scope -> id -> text
        self.deleted: dict[str, set[str]] = defaultdict(set)
        self.errors: list[str] = []
        self.ops = [name for name, weight in MIX for _ in range(weight)]

    def client(self, i: int) -> None:
        """One client's calls until the deadline, each timed when it ran."""
        from prism_memory.remote import RemoteMemory

        rng = random.Random(100 + i)
        mine: list[str] = []
        seq = itertools.count()
        with RemoteMemory(self.url, timeout=120) as r:
            while time.monotonic() < self.stop:
                op = rng.choice(self.ops)
                t = time.perf_counter()
                try:
                    ran = self._call(r, op, i, rng, mine, seq)
                except Exception as exc:
                    self.errors.append(f"{op}: {type(exc).__name__}: {exc}")
                    continue
                if not ran:
                    continue
                with self.lock:
                    self.lat[op].append(time.perf_counter() - t)

    def _call(
        self,
        r: Any,
        op: str,
        i: int,
        rng: random.Random,
        mine: list[str],
        seq: Iterator[int],
    ) -> bool:
        """Make the call ``op``; False when there was nothing to do (a delete with no add)."""
        me = f"mixed-{i:02d}"
        if op == "add":
            text = f"client {i} note {next(seq)}: {rng.choice(self.queries)[1]}"
            rec = r.add(text, user_id=me)
            mine.append(rec.id)
            self.acked[me][rec.id] = text
        elif op == "remember":
            n = next(seq)
            r.remember(
                f"client {i} turn {n}: I was at {rng.choice(self.queries)[1]}",
                user_id=me,
                session_id=f"s{n % 3}",
            )
        elif op == "recall":
            r.recall(rng.choice(self.queries)[1], user_id=me)
        elif op == "search":
            r.search(rng.choice(self.queries)[1], user_id=me, limit=5)
        elif op == "delete" and mine:
            rid = mine.pop(rng.randrange(len(mine)))
            if r.delete(rid, user_id=me):
                self.deleted[me].add(rid)
        else:
            return False
        return True

    def audit(self) -> tuple[int, int, int]:
        """(lost, duplicated, deleted but present) over every client's scope."""
        from prism_memory.remote import RemoteMemory

        lost = duplicated = resurrected = 0
        with RemoteMemory(self.url, timeout=120) as r:
            for scope, records in self.acked.items():
                texts: dict[str, int] = defaultdict(int)
                present: set[str] = set()
                cursor = None
                while True:
                    page = r.list(user_id=scope, layer="semantic", limit=500, cursor=cursor)
                    for rec in page:
                        present.add(rec.id)
                        texts[rec.text] += 1
                    cursor = page.next_cursor
                    if cursor is None:
                        break
                for rid, text in records.items():
                    if rid in self.deleted[scope]:
                        resurrected += rid in present
                    else:
                        lost += rid not in present
                        duplicated += max(0, texts[text] - 1)
        return lost, duplicated, resurrected


def _crashes(path: Path, kills: int, seed: int, say: Callable[[str], None]) -> dict[str, Any]:
    from prism_memory.remote import RemoteMemory
    from prism_memory.server.process import ServiceProcess

    rng = random.Random(seed)
    acked: dict[str, str] = {}  # id -> scope
    lock = threading.Lock()
    rounds = []
    for k in range(kills):
        svc = ServiceProcess.start(path=path)
        stop = threading.Event()
        before = len(acked)

        def writer(i: int, k: int = k, url: str = svc.url, stop: threading.Event = stop) -> None:
            with RemoteMemory(url, timeout=30) as r:
                for n in itertools.count():
                    if stop.is_set():
                        return
                    scope = f"crash-{i}"
                    try:
                        rec = r.add(f"round {k} writer {i} record {n}", user_id=scope)
                    except Exception:
                        return  # the server is gone: nothing was acknowledged
                    with lock:
                        acked[rec.id] = scope

        threads = [threading.Thread(target=writer, args=(i,)) for i in range(4)]
        for t in threads:
            t.start()
        # kill mid-writes: once writes flow (a first write on a fresh store creates its
        # indexes), at a random moment
        deadline = time.monotonic() + 60
        while len(acked) - before < 20 and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(rng.uniform(0.0, 1.5))
        svc.kill()
        stop.set()
        for t in threads:
            t.join()
        svc.stderr.close()
        rounds.append(len(acked) - before)
        say(f"  kill {k + 1}: {len(acked) - before} writes acknowledged before SIGKILL")
    lost = 0
    with ServiceProcess.start(path=path) as svc, RemoteMemory(svc.url, timeout=120) as r:
        for rid, scope in acked.items():
            try:
                r.get(rid, user_id=scope)
            except Exception:
                lost += 1
    return {
        "kills": kills,
        "acknowledged_per_round": rounds,
        "acknowledged_writes": len(acked),
        "lost_after_restart": lost,
    }


def run(args: argparse.Namespace) -> int:
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    def say(msg: str) -> None:
        if not args.json:
            print(msg, file=sys.stderr, flush=True)

    work = (
        Path(args.workdir) if args.workdir else Path(tempfile.mkdtemp(prefix="prism-bench-serve-"))
    )
    store = work / "store"
    queries = make_queries(max(args.queries, 1), args.users, seed=args.seed + 4)
    result: dict[str, Any] = {
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "load_avg_start": os.getloadavg(),
        },
        "size": args.size,
        "users": args.users,
    }
    if not (store / "collection").exists() and not any(store.glob("*")):
        say(f"building a {args.size}-memory store in {store} ...")
        result["build_s"] = round(_build_store(store, args.size, args.users, args.seed, say), 1)
    say("overhead: in-process vs HTTP recall ...")
    result["overhead"] = _overhead(store, queries, say)
    from prism_memory.server.process import ServiceProcess

    with ServiceProcess.start(path=store) as svc:
        say(f"throughput: {args.clients} clients recalling for {args.seconds:g} s ...")
        result["throughput"] = _throughput(svc.url, args.clients, args.seconds, queries)
        say(f"  {result['throughput']['recalls_per_s']} recalls/s")
        say(f"mixed load: {args.clients} clients for {args.seconds:g} s ...")
        result["mixed"] = _mixed(svc.url, args.clients, args.seconds, queries)
    say(f"crashes: {args.kills} SIGKILLs mid-writes ...")
    result["crashes"] = _crashes(work / "crash-store", args.kills, args.seed, say)
    result["machine"]["load_avg_end"] = os.getloadavg()
    result["targets"] = {
        "http_adds_at_most_5ms_p50": result["overhead"]["p50_added_ms"] <= 5.0,
        "recalls_per_s_with_16_clients_at_least_200": result["throughput"]["recalls_per_s"] >= 200,
        "no_lost_or_duplicated_writes": result["mixed"]["lost_writes"] == 0
        and result["mixed"]["duplicated_writes"] == 0
        and result["mixed"]["deleted_but_present"] == 0,
        "acknowledged_writes_survive_sigkill": result["crashes"]["lost_after_restart"] == 0,
    }
    (out / "serve.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    (out / "serve.md").write_text(render(result), encoding="utf-8")
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(render(result))
    return 0


def render(r: dict[str, Any]) -> str:
    """The markdown report of a ``serve.json`` result."""
    o, t, m, c = r["overhead"], r["throughput"], r["mixed"], r["crashes"]
    lines = [
        "# prism bench serve",
        "",
        f"Store: {r['size']} memories over {r['users']} users (embedded Qdrant Edge, real model). "
        f"Machine: {r['machine']['cpus']} CPUs, load average at start "
        f"{', '.join(f'{x:.1f}' for x in r['machine']['load_avg_start'])}, at end "
        f"{', '.join(f'{x:.1f}' for x in r['machine']['load_avg_end'])} (shared with other work). "
        "Clients are threads of the benchmark process on the same machine as the server.",
        "",
        "## Recall: in-process vs HTTP (same queries, same run)",
        "",
        "| | n | p50 ms | p95 ms |",
        "|---|---:|---:|---:|",
        f"| Memory.recall (in-process) | {o['in_process']['n']} | {o['in_process']['p50_ms']} | {o['in_process']['p95_ms']} |",
        f"| RemoteMemory.recall (HTTP) | {o['http']['n']} | {o['http']['p50_ms']} | {o['http']['p95_ms']} |",
        "",
        f"HTTP adds **{o['p50_added_ms']} ms** at p50 (target <= 5 ms). Paired per call (client time, "
        f"parse and rebuild included, minus the server's time in Memory.recall): p50 {o['paired_overhead_ms']['p50']} ms, "
        f"p95 {o['paired_overhead_ms']['p95']} ms.",
        "",
        f"## Throughput: {t['clients']} clients recalling",
        "",
        f"**{t['recalls_per_s']} recalls/s** over {t['seconds']} s ({t['recalls']} recalls, "
        f"p50 {t['latency']['p50_ms']} ms, p95 {t['latency']['p95_ms']} ms, {t['errors']} errors). "
        "Target >= 200/s on 2 cores.",
        "",
        f"## Mixed load: {m['clients']} clients, {m['calls_per_s']} calls/s",
        "",
        "| call | n | p50 ms | p95 ms |",
        "|---|---:|---:|---:|",
        *[
            f"| {op} | {v['n']} | {v['p50_ms']} | {v['p95_ms']} |"
            for op, v in m["per_call"].items()
        ],
        "",
        f"Acknowledged: {m['acknowledged_adds']} adds, {m['acknowledged_deletes']} deletes. "
        f"**Lost writes: {m['lost_writes']}, duplicated: {m['duplicated_writes']}, deleted but "
        f"present: {m['deleted_but_present']}**; errors: {m['errors']}.",
        "",
        "## SIGKILL mid-writes",
        "",
        f"{c['kills']} kills of the server while 4 writers added records "
        f"(acknowledged per round: {', '.join(map(str, c['acknowledged_per_round']))}); after a "
        f"restart **{c['lost_after_restart']} of {c['acknowledged_writes']} acknowledged writes "
        "were missing**.",
        "",
        "## Targets",
        "",
        *[f"- {name}: {'met' if ok else 'MISSED'}" for name, ok in r["targets"].items()],
        "",
    ]
    return "\n".join(lines)
