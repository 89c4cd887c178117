"""``prism bench reliability``: crash safety, concurrency, isolation and safety-screen figures.

Design:
- Every figure comes from running the real engine: a child process writing batches through
  ``Memory.add_many`` is SIGKILLed at random moments after its first acknowledgement and the store is checked after each kill
  (:func:`crash_trials`); threads hammer one store (:func:`concurrency_trial`); random
  operations across adversarial tenant ids count cross-tenant results (:func:`isolation_trial`);
  the poisoning screen is scored on the corpora its manifest lists (``--corpora``, by default
  ``research/screen/corpora/poisoning_corpora.json`` in a source checkout;
  :func:`quarantine_rates`) and the PII screen on ``tests/fixtures`` (:func:`pii_recall`).
- The tests in ``tests/reliability`` call the same functions with small sizes, so the logic
  that produces the committed numbers is the logic that is tested.
- Results: ``<out>/reliability.json`` and ``<out>/reliability.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

__all__ = [
    "ADVERSARIAL_IDS",
    "CrashReport",
    "add_arguments",
    "batch_items",
    "concurrency_trial",
    "crash_child",
    "crash_trials",
    "isolation_trial",
    "pii_recall",
    "poisoning_report",
    "quarantine_rates",
    "run",
]

CRASH_DIM = 32
CRASH_CYCLE = 150  # batch indices wrap, so retried and re-added batches are upserts
CRASH_USERS = 4

# tenant ids that break naive isolation: wildcards, prefixes, separators, look-alikes, length
ADVERSARIAL_IDS: tuple[str, ...] = (
    "_", "%", "*", "?", ".*", "\\", "/", "..", "' OR 1=1 --", "{}", "[]", "null", "None",
    "0", "00", "true", "foo", "foobar", "foo_bar", "foo-bar", "foo.bar", "FOO", "foo ",
    " foo", "john_doe", "john-doe", "john.doe", "johndoe", "John_Doe", "alice", "аlice",
    "ａｌｉｃｅ", "alicé", "alice\u0301", "alice\u200b", "ALICE", "a", "aa", "a" * 511,
    "a" * 512, "b" * 300, "user:1", "user:10", "user:1/0", "ns:foo", "🙂", "🙂🙂", "用户",
    "user\ttab", "user\nnewline", "x" * 64 + "_", "tenant|pipe", "tenant=eq", "agent_id=x",
)  # fmt: skip


def _memory(path: str | Path, *, optimize_after: int = 2000) -> Any:
    from prism_memory import FakeEmbedder, Memory, PrismConfig, StoreConfig

    cfg = PrismConfig(store=StoreConfig(optimize_after=optimize_after))
    return Memory(path=path, embedder=FakeEmbedder(dim=CRASH_DIM), config=cfg)


# -- crash safety -------------------------------------------------------------------------------
def batch_items(batch: int, size: int) -> list[str]:
    """The deterministic texts of batch ``batch`` (indices wrap every ``CRASH_CYCLE``)."""
    b = batch % CRASH_CYCLE
    return [
        f"crash fact {b}-{i}: the {i}th note of batch {b} about topic {b * 7 + i}"
        for i in range(size)
    ]


def batch_user(batch: int) -> str:
    return f"crash-user-{batch % CRASH_CYCLE % CRASH_USERS}"


def _record_id(user: str, text: str) -> str:
    from prism_memory.records import Layer, Scope, make_record_id

    return make_record_id(Scope(user_id=user), Layer.SEMANTIC, text)


def crash_child(path: str, start: int, size: int) -> None:
    """Write batches forever, printing one JSON line after each acknowledged operation.

    Operations per batch ``k``: ``add_many`` of batch ``k``; every 5th batch also deletes the
    first item of batch ``k - 2``; every 11th a ``delete_all`` of a scratch tenant, whose purge
    rebuilds the shard (so kills also land inside a purge).
    """
    m = _memory(path, optimize_after=300)
    out = sys.stdout
    k = start
    while True:
        user = batch_user(k)
        records = m.add_many(batch_items(k, size), user_id=user)
        out.write(json.dumps({"op": "add", "batch": k, "ids": [r.id for r in records]}) + "\n")
        out.flush()
        if k % 5 == 4:
            victim_user = batch_user(k - 2)
            victim = _record_id(victim_user, batch_items(k - 2, size)[0])
            m.delete(victim, user_id=victim_user)
            out.write(json.dumps({"op": "del", "batch": k, "id": victim}) + "\n")
            out.flush()
        if k % 11 == 10:
            m.add("scratch", user_id="crash-scratch")
            m.delete_all(user_id="crash-scratch")
            out.write(json.dumps({"op": "purge", "batch": k}) + "\n")
            out.flush()
        k += 1


@dataclass
class CrashReport:
    """What the kill/reopen cycles found."""

    kills: int = 0
    reopen_failures: int = 0
    acknowledged_writes: int = 0
    acknowledged_deletes: int = 0
    records_lost: int = 0
    deletes_lost: int = 0
    records_changed: int = 0
    half_written: int = 0
    duplicates: int = 0
    final_records: int = 0
    errors: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not (
            self.reopen_failures
            or self.records_lost
            or self.deletes_lost
            or self.records_changed
            or self.half_written
            or self.duplicates
        )


def _verify(
    path: Path,
    expected: dict[str, tuple[str, str] | None],
    uncertain: set[str],
    report: CrashReport,
) -> int:
    """Check the store against the acknowledged state; returns the number of records."""
    from prism_memory.records import Scope

    try:
        m = _memory(path)
    except Exception as exc:  # the store must open as is, without a repair step
        report.reopen_failures += 1
        report.errors.append(f"reopen: {type(exc).__name__}: {exc}")
        return 0
    try:
        stored: dict[str, Any] = {}
        cursor: str | None = None
        while True:
            page, cursor = m.store.scroll_all(limit=512, cursor=cursor)
            stored.update({r.id: r for r in page})
            if cursor is None:
                break
        by_user: dict[str, list[str]] = {}
        for rid, rec in stored.items():
            by_user.setdefault(rec.user_id or "", []).append(rid)
        for user, ids in by_user.items():
            vectors = m.store.get_vectors(ids, Scope(user_id=user))
            report.half_written += sum(
                1 for i in ids if i not in vectors or len(vectors[i]) != CRASH_DIM
            )
            texts = Counter(stored[i].text for i in ids)
            report.duplicates += sum(n - 1 for n in texts.values() if n > 1)
        for rid, want in expected.items():
            if rid in uncertain:
                continue
            got = stored.get(rid)
            if want is None:
                if got is not None:
                    report.deletes_lost += 1
            elif got is None:
                report.records_lost += 1
                report.errors.append(f"kill {report.kills}: acknowledged record {rid} {want} lost")
            elif (got.user_id, got.text) != want:
                report.records_changed += 1
        return len(stored)
    finally:
        m.close()


@dataclass
class ChildStep:
    """What one killed child acknowledged, and where the next child starts."""

    writes: int
    deletes: int
    next_batch: int


def apply_child_output(
    output: str,
    start: int,
    batch_size: int,
    expected: dict[str, tuple[str, str] | None],
    unresolved: set[str],
) -> ChildStep:
    """Fold a killed child's acknowledgements into ``expected`` and ``unresolved``.

    ``expected`` maps record ids to their acknowledged state (``(user, text)`` or ``None`` for
    deleted). ``unresolved`` holds ids an operation in flight at some kill may or may not have
    changed; an id leaves it only when a later acknowledged operation fixes its state, so a
    child killed before acknowledging anything does not make an earlier uncertainty certain.
    The next child redoes a batch whose delete or purge step was not acknowledged.

    >>> exp, unres = {}, set()
    >>> step = apply_child_output('{"op": "add", "batch": 4, "ids": ["a"]}', 4, 1, exp, unres)
    >>> step.next_batch, exp["a"][1].startswith("crash fact 4-0"), len(unres)  # del in flight
    (4, True, 2)
    """
    last_batch = start - 1
    last_op = "add"
    writes = deletes = 0
    for line in output.splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue  # a line cut by the kill was never acknowledged
        if event["op"] == "add":
            k = event["batch"]
            user = batch_user(k)
            for rid, text in zip(event["ids"], batch_items(k, batch_size)):
                expected[rid] = (user, text)
                unresolved.discard(rid)
            writes += len(event["ids"])
            last_batch = k
        elif event["op"] == "del":
            expected[event["id"]] = None
            unresolved.discard(event["id"])
            deletes += 1
        last_op = event["op"]
    # the operation in flight at the kill may or may not have landed: the next batch's add, or
    # the delete that follows the last acknowledged add
    k = last_batch + 1
    unresolved.update(_record_id(batch_user(k), t) for t in batch_items(k, batch_size))
    if last_op == "add" and last_batch % 5 == 4:
        victim_batch = last_batch - 2
        unresolved.add(
            _record_id(batch_user(victim_batch), batch_items(victim_batch, batch_size)[0])
        )
    # the next child retries the operation in flight (deterministic ids: upserts); a batch
    # whose delete/purge step was not acknowledged is redone from its add
    pending = (last_op == "add" and (last_batch % 5 == 4 or last_batch % 11 == 10)) or (
        last_op == "del" and last_batch % 11 == 10
    )
    next_batch = last_batch if pending and last_batch >= 0 else last_batch + 1
    return ChildStep(writes, deletes, next_batch)


def crash_trials(
    kills: int,
    *,
    path: str | Path | None = None,
    batch_size: int = 20,
    min_delay: float = 0.0,
    max_delay: float = 2.0,
    seed: int = 0,
    progress: bool = False,
) -> CrashReport:
    """SIGKILL a writing child ``kills`` times; after each kill verify every acknowledged op.

    Each child is killed ``uniform(min_delay, max_delay)`` seconds after its *first
    acknowledgement*, never after a fixed time from its start: on a loaded machine a child
    may take seconds to import and open the store, and a kill timed from the start would
    land before it wrote anything (a trial that tests nothing). Waiting for the first line
    has no time limit of its own: a child that exits without acknowledging is an error.
    """
    rnd = random.Random(seed)
    report = CrashReport()
    tmp = None
    if path is None:
        tmp = tempfile.TemporaryDirectory(prefix="prism-crash-")
        path = tmp.name
    store = Path(path) / "store"
    expected: dict[str, tuple[str, str] | None] = {}
    unresolved: set[str] = set()
    next_batch = 0
    delay = partial(rnd.uniform, min_delay, max_delay)  # drawn once the child has acknowledged
    try:
        for n in range(kills):
            out = _killed_child(store, next_batch, batch_size, delay, report)
            report.kills += 1
            step = apply_child_output(out.decode(), next_batch, batch_size, expected, unresolved)
            report.acknowledged_writes += step.writes
            report.acknowledged_deletes += step.deletes
            next_batch = step.next_batch
            report.final_records = _verify(store, expected, unresolved, report)
            if progress and (n + 1) % 10 == 0:
                print(
                    f"  {n + 1}/{kills} kills, {report.acknowledged_writes} acknowledged writes",
                    flush=True,
                )
    finally:
        if tmp is not None:
            tmp.cleanup()
    return report


_CHILD = (
    "import sys; from prism_bench.reliability import crash_child; "
    "crash_child(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))"
)


def _killed_child(
    store: Path, next_batch: int, batch_size: int, delay: Callable[[], float], report: CrashReport
) -> bytes:
    """Start a writing child, SIGKILL it ``delay()`` seconds after its first acknowledgement
    (at once if it acknowledges nothing), and return everything it printed (an unexpected exit
    goes to ``report.errors``)."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONUNBUFFERED": "1"}
    with tempfile.TemporaryFile() as err:
        child = subprocess.Popen(
            [sys.executable, "-c", _CHILD, str(store), str(next_batch), str(batch_size)],
            stdout=subprocess.PIPE,
            stderr=err,
            env=env,
        )
        assert child.stdout is not None
        first = child.stdout.readline()  # the first acknowledgement (or EOF)
        if first:
            time.sleep(delay())
        child.send_signal(signal.SIGKILL)
        rest, _ = child.communicate()
        if child.returncode != -signal.SIGKILL:
            err.seek(0)
            report.errors.append(f"child exited {child.returncode}: {err.read().decode()[-500:]}")
    return first + rest


# -- concurrency -------------------------------------------------------------------------------
def concurrency_trial(
    path: str | Path, *, threads: int = 16, per_thread: int = 500
) -> dict[str, int]:
    """``threads`` x ``per_thread`` adds in one scope, then one fact added by every thread at once."""
    m = _memory(path)
    errors: list[str] = []
    barrier = threading.Barrier(threads)

    def writer(t: int) -> None:
        barrier.wait()
        for i in range(per_thread):
            try:
                m.add(f"thread {t} wrote note number {i}", user_id="conc")
            except Exception as exc:  # counted, reported
                errors.append(f"{type(exc).__name__}: {exc}")

    def same_fact() -> None:
        barrier.wait()
        try:
            m.add("The office wifi password changes every Monday", user_id="same")
        except Exception as exc:
            errors.append(f"{type(exc).__name__}: {exc}")

    try:
        for target, args in ((writer, True), (same_fact, False)):
            pool = [
                threading.Thread(target=target, args=(t,) if args else ()) for t in range(threads)
            ]
            for th in pool:
                th.start()
            for th in pool:
                th.join()
        return {
            "threads": threads,
            "adds": threads * per_thread,
            "records": m.count(user_id="conc"),
            "same_fact_adds": threads,
            "same_fact_records": m.count(user_id="same"),
            "errors": len(errors),
        }
    finally:
        m.close()


# -- tenant isolation --------------------------------------------------------------------------
def isolation_trial(path: str | Path, *, ops: int = 2000, seed: int = 0) -> dict[str, int]:
    """Random adds/searches/gets/lists/deletes across ``ADVERSARIAL_IDS``; count foreign results."""
    from prism_memory.errors import NotFoundError

    rnd = random.Random(seed)
    m = _memory(path)
    owner: dict[str, str] = {}
    foreign = 0
    reads = 0
    words = ["coffee", "trip", "budget", "doctor", "piano", "garden", "exam", "salary"]
    try:
        for i in range(ops):
            user = rnd.choice(ADVERSARIAL_IDS)
            op = rnd.random()
            if op < 0.4:
                rec = m.add(f"{rnd.choice(words)} note {i} of {user!r}", user_id=user)
                owner[rec.id] = user
            elif op < 0.6:
                reads += 1
                hits = m.search(rnd.choice(words), user_id=user, limit=20)
                foreign += sum(1 for h in hits if h.record.user_id != user)
            elif op < 0.75:
                reads += 1
                page = m.list(user_id=user, limit=500)
                foreign += sum(1 for r in page if r.user_id != user)
            elif op < 0.9 and owner:
                reads += 1
                rid = rnd.choice(list(owner))
                try:
                    got = m.get(rid, user_id=user)
                    foreign += int(got.user_id != user)
                except NotFoundError:
                    foreign += int(owner[rid] == user)  # own record missing counts as a failure
            elif owner:
                rid = rnd.choice(list(owner))
                if m.delete(rid, user_id=user) and owner[rid] != user:
                    foreign += 1
                if owner[rid] == user:
                    owner.pop(rid)
        return {
            "tenants": len(ADVERSARIAL_IDS),
            "operations": ops,
            "reads": reads,
            "cross_tenant_results": foreign,
        }
    finally:
        m.close()


# -- safety screens ----------------------------------------------------------------------------
def _jsonl(path: str | Path) -> list[dict[str, Any]]:
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def quarantine_rates(
    path: str | Path,
    *,
    user: float = 0.8,
    external: float = 0.5,
    mode: str = "strict",
    batch: int = 64,
) -> dict[str, Any]:
    """Share of attacks and of benign memories quarantined, overall and per source/encoding,
    under the screen ``mode`` (``SafetyConfig.screen``), ``batch`` texts a write call."""
    from prism_memory.safety.poisoning import screen_batch

    rows = _jsonl(path)
    by: dict[str, Counter[str]] = {"attack": Counter(), "benign": Counter()}
    totals: dict[str, Counter[str]] = {"attack": Counter(), "benign": Counter()}
    verdicts = []
    for start in range(0, len(rows), batch):
        chunk = rows[start : start + batch]
        verdicts += screen_batch(
            [(r["text"], r["source"]) for r in chunk], mode=mode, user=user, external=external
        )
    for row, verdict in zip(rows, verdicts):
        label = row["label"]
        # the blind corpus tags rows with a "family" (e.g. base64, hard_money) instead
        encoding = row.get("encoding") or row.get("family", "plain")
        for key in ("all", f"source={row['source']}", f"encoding={encoding}"):
            totals[label][key] += 1
            by[label][key] += int(verdict.quarantined)
    out: dict[str, Any] = {"file": str(path)}
    for label in ("attack", "benign"):
        out[label] = {
            k: {
                "n": totals[label][k],
                "quarantined": by[label][k],
                "rate": round(by[label][k] / totals[label][k], 4),
            }
            for k in sorted(totals[label])
        }
    return out


def read_manifest(manifest: str | Path) -> list[dict[str, Any]]:
    """The corpora a poisoning manifest lists whose files exist (paths joined to its folder).

    The manifest is a JSON list of ``{"name", "file", "seen", "history"}`` (files relative to
    the manifest): ``seen`` says whether the rules' authors read the corpus, which decides what
    its figure can claim.
    """
    from prism_memory.errors import ConfigError

    path = Path(manifest)
    try:
        entries = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ConfigError(
            f"cannot read the poisoning corpora manifest {path}: {exc}; pass --corpora with a "
            'JSON list of {"name", "file", "seen", "history"}'
        ) from exc
    corpora = [
        {
            "name": e["name"],
            "file": os.path.normpath(path.parent / e["file"]),
            "seen": bool(e["seen"]),
            "history": e.get("history", ""),
        }
        for e in entries
        if (path.parent / e["file"]).is_file()
    ]
    if not corpora:
        raise ConfigError(f"no corpus file of {path} exists; check the paths in the manifest")
    return corpora


def poisoning_report(manifest: str | Path) -> dict[str, Any]:
    """Quarantine rates of every corpus the manifest lists (:func:`read_manifest`)."""
    return {
        "corpora": [{**c, "rates": quarantine_rates(c["file"])} for c in read_manifest(manifest)]
    }


def _corpus_lines(poisoning: dict[str, Any]) -> list[str]:
    return [
        _rate_line(
            f"**{c['name']}** (blind: never seen while writing the rules)"
            if not c["seen"]
            else f"{c['name']} (seen while revising)",
            c["rates"],
        )
        for c in poisoning["corpora"]
    ]


def pii_recall(path: str | Path) -> dict[str, Any]:
    """Share of fixture identifiers removed by redaction, and benign sentences changed."""
    from prism_memory.safety import redact

    rows = _jsonl(path)
    found = total = changed = benign = 0
    per_kind: Counter[str] = Counter()
    per_kind_total: Counter[str] = Counter()
    for row in rows:
        out = redact(row["text"])
        if not row["identifiers"]:
            benign += 1
            changed += int(out != row["text"])
        for value in row["identifiers"]:
            total += 1
            per_kind_total[row["kind"]] += 1
            if value not in out:
                found += 1
                per_kind[row["kind"]] += 1
    return {
        "identifiers": total,
        "redacted": found,
        "recall": round(found / total, 4) if total else 0.0,
        "per_kind": {k: f"{per_kind[k]}/{n}" for k, n in sorted(per_kind_total.items())},
        "benign_sentences": benign,
        "benign_changed": changed,
    }


# -- command ------------------------------------------------------------------------------------
def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Crash, concurrency, isolation and safety-screen figures."""
    parser.add_argument("--kills", type=int, default=200, help="SIGKILLs of the writing child")
    parser.add_argument("--threads", type=int, default=16)
    parser.add_argument("--per-thread", type=int, default=500)
    parser.add_argument("--isolation-ops", type=int, default=3000)
    parser.add_argument(
        "--corpora",
        default="research/screen/corpora/poisoning_corpora.json",
        help="manifest of the poisoning corpora: file, whether the rules' authors saw it, history",
    )
    parser.add_argument("--pii", default="tests/fixtures/pii_fixtures.jsonl")
    parser.add_argument("--out", default="benchmarks/results")
    parser.add_argument("--seed", type=int, default=0)


def _rate_line(name: str, block: dict[str, Any]) -> str:
    a, b = block["attack"]["all"], block["benign"]["all"]
    return (
        f"| {name} | {a['quarantined']}/{a['n']} ({a['rate']:.1%}) | "
        f"{b['quarantined']}/{b['n']} ({b['rate']:.1%}) |"
    )


def _markdown(res: dict[str, Any]) -> str:
    lines = _md_trials(res) + _md_per_source(res["poisoning"]["corpora"]) + _md_pii(res["pii"])
    return "\n".join(lines)


def _md_trials(res: dict[str, Any]) -> list[str]:
    """Crash safety, concurrency, isolation and the poisoning corpora."""
    c, k, iso = res["crash"], res["concurrency"], res["isolation"]
    return [
        "# Reliability",
        "",
        f"Command: `{res['command']}` ({res['seconds']:.0f} s).",
        "",
        "## Crash safety (SIGKILL of a child writing batches with `add_many`)",
        "",
        "| kills | acknowledged writes | acknowledged deletes | records lost | deletes lost | changed | half-written | duplicates | reopen failures |",
        "|---|---|---|---|---|---|---|---|---|",
        f"| {c['kills']} | {c['acknowledged_writes']} | {c['acknowledged_deletes']} | {c['records_lost']} | "
        f"{c['deletes_lost']} | {c['records_changed']} | {c['half_written']} | {c['duplicates']} | {c['reopen_failures']} |",
        "",
        "## Concurrency",
        "",
        f"{k['threads']} threads x {k['adds'] // k['threads']} adds -> **{k['records']}** records "
        f"(expected {k['adds']}); the same fact added by {k['same_fact_adds']} threads at once -> "
        f"**{k['same_fact_records']}** record; errors: {k['errors']}.",
        "",
        "## Tenant isolation",
        "",
        f"{iso['operations']} random operations ({iso['reads']} reads) across {iso['tenants']} adversarial "
        f"tenant ids: **{iso['cross_tenant_results']}** cross-tenant results.",
        "",
        "## Memory poisoning (screen='strict': rules at user 0.8 / tool-web 0.5, plus the "
        "learned opinion: the n-gram model averaged with the fine-tuned transformer; the default "
        "screen's figures per source are in screen.md, `prism bench screen`)",
        "",
        "| corpus | attacks quarantined | benign quarantined |",
        "|---|---|---|",
        *_corpus_lines(res["poisoning"]),
        "",
        "Only the rows marked *blind* measure the screen on text its authors never saw; every "
        "other corpus was read while writing or revising the rules, so its row overstates "
        "accuracy on unseen text. History of each corpus (from the manifest, `--corpora`):",
        "",
        *(f"- {c['name']}: {c['history']}" for c in res["poisoning"]["corpora"]),
        "",
    ]


def _md_per_source(corpora: list[dict[str, Any]]) -> list[str]:
    """Per source and family, for each blind corpus (else the first)."""
    lines: list[str] = []
    for c in [c for c in corpora if not c["seen"]] or corpora[:1]:
        lines += [
            f"Per source and family ({c['name']}):",
            "",
            "| slice | attacks quarantined | benign quarantined |",
            "|---|---|---|",
        ]
        attack, benign = c["rates"]["attack"], c["rates"]["benign"]
        for key in sorted(set(attack) | set(benign)):
            if key == "all":
                continue
            cells = [
                f"{v['quarantined']}/{v['n']} ({v['rate']:.0%})" if (v := block.get(key)) else "-"
                for block in (attack, benign)
            ]
            lines.append(f"| {key.replace('encoding=', 'family=')} | {cells[0]} | {cells[1]} |")
        lines.append("")
    return lines


def _md_pii(p: dict[str, Any]) -> list[str]:
    return [
        "## PII redaction",
        "",
        f"Structured identifiers redacted: **{p['redacted']}/{p['identifiers']}** (recall {p['recall']:.1%}); "
        f"per kind: {', '.join(f'{k} {v}' for k, v in p['per_kind'].items())}. Benign sentences with "
        f"numbers changed: {p['benign_changed']}/{p['benign_sentences']}.",
        "",
    ]


def run(args: argparse.Namespace) -> int:
    """Run every trial, write ``reliability.json`` / ``reliability.md``; exit 1 on a failure."""
    started = time.perf_counter()
    print(f"crash safety: {args.kills} kills ...", flush=True)
    crash = crash_trials(args.kills, seed=args.seed, progress=True)
    with tempfile.TemporaryDirectory(prefix="prism-rel-") as tmp:
        print("concurrency ...", flush=True)
        conc = concurrency_trial(
            Path(tmp) / "conc", threads=args.threads, per_thread=args.per_thread
        )
        print("tenant isolation ...", flush=True)
        iso = isolation_trial(Path(tmp) / "iso", ops=args.isolation_ops, seed=args.seed)
    poisoning = poisoning_report(args.corpora)
    pii = pii_recall(args.pii)
    res: dict[str, Any] = {
        "command": " ".join(["prism bench reliability", *_cli_args(args)]),
        "seconds": round(time.perf_counter() - started, 1),
        "crash": {**asdict(crash), "errors": crash.errors[:20]},
        "concurrency": conc,
        "isolation": iso,
        "poisoning": poisoning,
        "pii": pii,
    }
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "reliability.json").write_text(json.dumps(res, indent=2, ensure_ascii=False) + "\n")
    (out / "reliability.md").write_text(_markdown(res))
    print(_markdown(res))
    failed = (
        not crash.ok
        or conc["records"] != conc["adds"]
        or conc["same_fact_records"] != 1
        or iso["cross_tenant_results"] != 0
    )
    return 1 if failed else 0


def _cli_args(args: argparse.Namespace) -> Iterable[str]:
    defaults = argparse.ArgumentParser()
    add_arguments(defaults)
    base = vars(defaults.parse_args([]))
    for key, value in vars(args).items():
        if key in base and base[key] != value:
            yield f"--{key.replace('_', '-')} {value}"
