"""Bad input is refused with a PrismError that says what is wrong, and changes nothing; engine
failures surface as StoreError: writes (and updates) the engine cannot store exactly, JSONL
import lines, filters, damaged or missing store files, forget ages, naive times, intents and
tasks.

Engine-level tests run on the real embedded engine (Qdrant Edge) with the hashing fake embedder
and the rules-only poisoning screen, so every test here takes well under a second.
"""

from __future__ import annotations

import json
import math
import shutil
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from memories import open_memory

from prism_memory import (
    FakeEmbedder,
    ImportDataError,
    Intent,
    Memory,
    MemoryRecord,
    Scope,
    StoreError,
    ValidationError,
)
from prism_memory.cli import main
from prism_memory.stores.filters import Condition, RecordFilter


# -- what a write cannot store exactly is refused, and nothing is written -------------
def deep_dict(levels: int) -> dict[str, Any]:
    """A dict holding ``levels`` dicts in all (itself included)."""
    d: dict[str, Any] = {"leaf": 1}
    for _ in range(levels - 1):
        d = {"a": d}
    return d


def deep_list(levels: int) -> Any:
    value: Any = 1
    for _ in range(levels):
        value = [value]
    return value


OFFSET_YEAR_1 = datetime(1, 1, 1, tzinfo=timezone(timedelta(hours=5)))
OFFSET_YEAR_9999 = datetime(9999, 12, 31, 23, tzinfo=timezone(timedelta(hours=-5)))

BAD_WRITES: list[tuple[str, Callable[[Memory, str], Any], str]] = [
    ("surrogate text", lambda m, u: m.add("bad \ud800 text", user_id=u), "surrogate"),
    ("surrogate metadata", lambda m, u: m.add("t", user_id=u, metadata={"k": "\udc00"}), "surrogate"),
    ("surrogate metadata key", lambda m, u: m.add("t", user_id=u, metadata={"\udc00": 1}), "surrogate"),
    ("surrogate entity", lambda m, u: m.add("t", user_id=u, entities=["Zh\udc00ang"]), "surrogate"),
    ("surrogate scope", lambda m, u: m.add("t", user_id=u + "\ud800"), "surrogate"),
    ("surrogate turn", lambda m, u: m.remember("hi \udc80", user_id=u), "surrogate"),
    ("surrogate message id", lambda m, u: m.remember([{"role": "user", "content": "hi", "id": "\udc80"}], user_id=u), "surrogate"),
    ("event_time year 1 +05:00", lambda m, u: m.add("t", user_id=u, event_time=OFFSET_YEAR_1), "years 1-9999"),
    ("event_time year 9999 -05:00", lambda m, u: m.add("t", user_id=u, event_time=OFFSET_YEAR_9999), "years 1-9999"),
    ("remember event_time year 1", lambda m, u: m.remember("hi", user_id=u, event_time=OFFSET_YEAR_1), "years 1-9999"),
    ("message timestamp year 1", lambda m, u: m.remember([{"role": "user", "content": "hi", "timestamp": "0001-01-01T00:00:00+05:00"}], user_id=u), "years 1-9999"),
    ("metadata 33 dicts deep", lambda m, u: m.add("t", user_id=u, metadata=deep_dict(33)), "nested"),
    ("metadata 200 dicts deep", lambda m, u: m.add("t", user_id=u, metadata=deep_dict(200)), "nested"),
    ("metadata 40 lists deep", lambda m, u: m.add("t", user_id=u, metadata={"x": deep_list(40)}), "nested"),
    ("metadata nan", lambda m, u: m.add("t", user_id=u, metadata={"a": math.nan}), "nan"),
    ("metadata inf", lambda m, u: m.add("t", user_id=u, metadata={"a": [math.inf]}), "inf"),
    ("metadata -inf", lambda m, u: m.add("t", user_id=u, metadata={"a": {"b": -math.inf}}), "inf"),
    ("metadata 2**63", lambda m, u: m.add("t", user_id=u, metadata={"a": 2**63}), "64-bit"),
    ("metadata 2**70", lambda m, u: m.add("t", user_id=u, metadata={"a": 2**70}), "64-bit"),
    ("metadata -2**63-1", lambda m, u: m.add("t", user_id=u, metadata={"a": -(2**63) - 1}), "64-bit"),
    ("metadata set", lambda m, u: m.add("t", user_id=u, metadata={"a": {1, 2}}), "set"),
    ("metadata frozenset", lambda m, u: m.add("t", user_id=u, metadata={"a": frozenset()}), "set"),
    ("metadata object", lambda m, u: m.add("t", user_id=u, metadata={"a": object()}), "JSON"),
    ("zero-width text", lambda m, u: m.add("\u200b\u200b", user_id=u), "visible"),
    ("BOM and joiners", lambda m, u: m.add("\ufeff \u2060\u200d", user_id=u), "visible"),
    ("zero-width turn", lambda m, u: m.remember("\u200b", user_id=u), "empty"),
    ("zero-width query", lambda m, u: m.search("\u200b", user_id=u), "visible"),
    ("surrogate query", lambda m, u: m.search("q \ud800", user_id=u), "surrogate"),
    ("surrogate recall", lambda m, u: m.recall("q \ud800", user_id=u), "surrogate"),
    ("add_many nan", lambda m, u: m.add_many(["ok", {"text": "t", "metadata": {"a": math.nan}}], user_id=u), "item 1"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("call", "needle"), [pytest.param(c, n, id=name) for name, c, n in BAD_WRITES]
)
def test_unstorable_write_is_refused(
    mem: Memory, uid: str, call: Callable[[Memory, str], Any], needle: str
) -> None:
    with pytest.raises(ValidationError) as info:
        call(mem, uid)
    assert needle in str(info.value), str(info.value)
    assert mem.count(user_id=uid) == 0 and mem.count(user_id=uid, session_id="default") == 0


BAD_UPDATES: list[tuple[str, dict[str, Any], str]] = [
    ("nan", {"metadata": {"a": math.nan}}, "nan"),
    ("set", {"metadata": {"a": {"x"}}}, "set"),
    ("deep", {"metadata": deep_dict(40)}, "nested"),
    ("zero-width text", {"text": "\u200b"}, "visible"),
    ("surrogate text", {"text": "a\udfff"}, "surrogate"),
]


@pytest.mark.parametrize(
    ("change", "needle"), [pytest.param(c, n, id=name) for name, c, n in BAD_UPDATES]
)
def test_unstorable_update_is_refused(
    mem: Memory, uid: str, change: dict[str, Any], needle: str
) -> None:
    record = mem.add("I like tea", user_id=uid, metadata={"k": 1})
    with pytest.raises(ValidationError, match=needle):
        mem.update(record.id, user_id=uid, **change)
    assert mem.get(record.id, user_id=uid) == record


def test_storable_edge_values_are_kept_exactly(mem: Memory, uid: str) -> None:
    metadata = {
        "deep": deep_dict(31),  # 32 dicts with metadata itself
        "ints": [2**63 - 1, -(2**63), 0],
        "float": 1e308,
        "text": "zero\u200bwidth inside",
    }
    record = mem.add("tea \u200b with milk", user_id=uid, metadata=metadata)
    got = mem.get(record.id, user_id=uid)
    assert got.metadata == metadata and got.text == "tea \u200b with milk"
    assert mem.add("year one", user_id=uid, event_time=datetime(1, 1, 1, tzinfo=timezone.utc))


def test_cli_refuses_nan_metadata(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code = main(
        ["--path", str(tmp_path / "s"), "add", "x", "--user", "a", "--metadata", '{"a": NaN}'],
        embedder=FakeEmbedder(dim=64),
    )
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and "nan" in err, err


# -- import checks every line for what the engine checks, before the first write ------
def export_lines(uid: str, n: int = 300) -> list[str]:
    """``n`` export lines of one user, as export_jsonl writes them."""
    return [
        json.dumps(
            MemoryRecord(text=f"memory number {i}", user_id=uid, metadata={"i": i}).model_dump(
                mode="json", by_alias=True
            ),
            ensure_ascii=False,
        )
        for i in range(n)
    ]


def corrupt(line: str, **changes: Any) -> str:
    data = json.loads(line)
    for key, value in changes.items():
        data[key] = value
    return json.dumps(data)


BAD_LINES: list[tuple[str, Callable[[str], str | bytes], str]] = [
    ("id not a UUID", lambda ln: corrupt(ln, id="not-a-uuid"), "UUID"),
    ("lone surrogate in metadata", lambda ln: corrupt(ln, metadata={"k": "\udc00"}), "surrogate"),
    ("lone surrogate in an entity", lambda ln: corrupt(ln, entities=[{"name": "a\ud800"}]), "surrogate"),
    ("NaN in metadata", lambda ln: ln.replace('"metadata": {"i": 256}', '"metadata": {"i": NaN}'), "nan"),
    ("Infinity in metadata", lambda ln: corrupt(ln, metadata={"i": math.inf}), "inf"),
    ("2**70 in metadata", lambda ln: corrupt(ln, metadata={"i": 2**70}), "64-bit"),
    ("2**70 access_count", lambda ln: corrupt(ln, access_count=2**70), "64-bit"),
    ("created_at leaves year 1 in UTC", lambda ln: corrupt(ln, created_at="0001-01-01T00:00:00+05:00"), "years 1-9999"),
    # what an export can hold (a LangGraph store value's wrappers included) is importable; a
    # record deeper than any export is refused
    ("metadata 101 levels deep", lambda ln: corrupt(ln, metadata=deep_dict(101)), "nested"),
    ("JSON 100000 levels deep", lambda ln: "[" * 100_000 + "]" * 100_000, "nested too deeply"),
    ("zero-width text", lambda ln: corrupt(ln, text="\u200b"), "visible"),
    ("invalid UTF-8", lambda ln: ln.encode()[:20] + b"\xff\xfe" + ln.encode()[20:], "UTF-8"),
]  # fmt: skip


def write_lines(path: Path, lines: list[str | bytes]) -> Path:
    path.write_bytes(b"".join((x if isinstance(x, bytes) else x.encode()) + b"\n" for x in lines))
    return path


@pytest.mark.parametrize(
    ("spoil", "needle"), [pytest.param(f, n, id=name) for name, f, n in BAD_LINES]
)
def test_import_refuses_what_the_engine_would_reject(
    mem: Memory, uid: str, tmp_path: Path, spoil: Callable[[str], str | bytes], needle: str
) -> None:
    lines: list[str | bytes] = list(export_lines(uid))
    lines[256] = spoil(str(lines[256]))
    path = write_lines(tmp_path / "bad.jsonl", lines)
    with pytest.raises(ImportDataError) as info:
        mem.import_jsonl(path)
    message = str(info.value)
    assert "line 257" in message and needle in message, message
    assert mem.count(user_id=uid) == 0  # nothing was written
    report = mem.import_jsonl(path, skip_bad=True)
    assert (report.imported, report.skipped) == (299, 1)
    assert report.errors[0].startswith("line 257: ")
    assert mem.count(user_id=uid) == 299


def test_cli_import_of_a_bad_line_exits_2_with_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    lines: list[str | bytes] = list(export_lines("cli-user", 20))
    lines[7] = corrupt(str(lines[7]), id="not-a-uuid")
    lines[12] = corrupt(str(lines[12]), metadata={"k": "\udc00"})
    path = write_lines(tmp_path / "bad.jsonl", lines)
    store = str(tmp_path / "s")
    code = main(["--path", store, "import", str(path)], embedder=FakeEmbedder(dim=64))
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and "line 8" in err, err
    with Memory(path=store, embedder=FakeEmbedder(dim=64)) as m:
        assert m.count(user_id="cli-user") == 0


def test_export_to_a_missing_directory(mem: Memory, uid: str, tmp_path: Path) -> None:
    mem.add("I like tea", user_id=uid)
    target = tmp_path / "missing" / "out.jsonl"
    with pytest.raises(ValidationError, match="does not exist"):
        mem.export_jsonl(target, user_id=uid)
    assert not (tmp_path / "missing").exists()
    # a failure while writing removes the partial .tmp file
    (tmp_path / "out.jsonl").mkdir()  # os.replace onto a directory fails
    with pytest.raises(ValidationError):
        mem.export_jsonl(tmp_path / "out.jsonl", user_id=uid)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.jsonl"]


# -- filters are checked before the engine sees them; engine failures are StoreError ---
BAD_FILTERS: list[tuple[str, dict[str, Any], str]] = [
    ("NaN bound", {"importance": {"gte": math.nan}}, "finite"),
    ("inf bound", {"utility": {"lt": math.inf}}, "finite"),
    ("-inf bound", {"ts": {"gt": -math.inf}}, "finite"),
    ("10**400 bound", {"importance": {"lte": 10**400}}, "finite"),
    ("2**64 value", {"metadata.n": 2**64}, "64-bit"),
    ("2**63 value", {"metadata.n": 2**63}, "64-bit"),
    ("-2**63-1 value", {"metadata.n": -(2**63) - 1}, "64-bit"),
    ("2**64 in a list", {"metadata.n": [1, 2**64]}, "64-bit"),
    ("key metadata.", {"metadata.": 1}, "metadata path"),
    ("key metadata.*", {"metadata.*": 1}, "metadata path"),
    ("key metadata..a", {"metadata..a": 1}, "metadata path"),
    ("key metadata.a.", {"metadata.a.": 1}, "metadata path"),
    ("key with a space", {"metadata.a b": 1}, "metadata path"),
    ("key with a surrogate", {"metadata.\udc00": 1}, "metadata path"),
    ("surrogate value", {"metadata.topic": "a\ud800"}, "surrogate"),
    ("surrogate entity", {"entities": "a\ud800"}, "surrogate"),
    ("year 1 with an offset", {"event_time": {"gte": OFFSET_YEAR_1}}, "years 1-9999"),
]


@pytest.mark.parametrize("how", ["list", "search"])
@pytest.mark.parametrize(
    ("filters", "needle"), [pytest.param(f, n, id=name) for name, f, n in BAD_FILTERS]
)
def test_bad_filter_is_refused(
    mem: Memory, uid: str, how: str, filters: dict[str, Any], needle: str
) -> None:
    mem.add("I like tea", user_id=uid, metadata={"n": 1, "topic": "drinks"})
    with pytest.raises(ValidationError, match=needle):
        if how == "list":
            mem.list(user_id=uid, filters=filters)
        else:
            mem.search("tea", user_id=uid, filters=filters)


def test_edge_filters_still_work(mem: Memory, uid: str) -> None:
    meta = {"a b": 1, "l": [{"q": 2}], "big": 2**63 - 1, "日本": 3}
    record = mem.add("I like tea", user_id=uid, metadata=meta)
    for filters in (
        {'metadata."a b"': 1},
        {"metadata.l[].q": 2},
        {"metadata.big": 2**63 - 1},
        {"metadata.日本": 3},
        {"importance": {"lte": 2**70}},
    ):
        assert [r.id for r in mem.list(user_id=uid, filters=filters)] == [record.id], filters


def test_engine_panic_is_a_store_error(mem: Memory, uid: str) -> None:
    mem.add("I like tea", user_id=uid)
    nan_range = RecordFilter(must=[Condition("importance", "range", {"gte": math.nan})])
    with pytest.raises(StoreError, match="panicked"):  # not a BaseException escaping
        mem.store.scroll(Scope(user_id=uid), nan_range, limit=10)
    assert len(mem.list(user_id=uid)) == 1  # the store keeps working


def test_cli_nan_filter_exits_2_without_a_rust_traceback(
    capfd: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    store = str(tmp_path / "s")
    argv = ["--path", store, "list", "--user", "a", "--filter", 'importance={"gte": NaN}']
    code = main(argv, embedder=FakeEmbedder(dim=64))
    err = capfd.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and "finite" in err, err


def damage_payload_pages(store: Path) -> None:
    """Flip the bits of every stored payload byte (zeros, the pages' free space, are left)."""
    for page in store.glob("shard/segments/*/payload_storage/page_*.dat"):
        data = bytearray(page.read_bytes()[:65536])
        page.write_bytes(bytes(b ^ 0x5A if b else 0 for b in data))


def test_a_damaged_payload_page_is_a_store_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = tmp_path / "s"
    with open_memory(store) as m:
        m.add_many([f"memory number {i} " + "x" * 200 for i in range(20)], user_id="a")
    damage_payload_pages(store)
    with open_memory(store) as m:
        with pytest.raises(StoreError, match="damaged") as info:
            m.list(user_id="a")
        assert str(store) in str(info.value) and "backup" in str(info.value)
    code = main(["--path", str(store), "list", "--user", "a"], embedder=FakeEmbedder(dim=64))
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and "damaged" in err, err


def test_a_deleted_shard_is_a_store_error(tmp_path: Path) -> None:
    store = tmp_path / "s"
    with open_memory(store) as m:
        m.add("kept", user_id="a")
    shutil.rmtree(store / "shard")
    with pytest.raises(StoreError, match="shard/ directory is missing"):
        open_memory(store)
    assert not (store / "shard").exists()  # nothing was created in its place
    (store / "prism-store.json").unlink()  # what the message offers: start empty
    with open_memory(store) as m:
        assert m.count(user_id="a") == 0


# -- forget, recall, intents and tasks -------------------------------------------------
@pytest.mark.parametrize(
    "older_than", [math.nan, math.inf, -math.inf, 1e12, 10**400, 10**8, timedelta(days=10**8)]
)
def test_forget_refuses_an_unusable_age(mem: Memory, uid: str, older_than: Any) -> None:
    mem.add("I like tea", user_id=uid)
    with pytest.raises(ValidationError, match="older_than"):
        mem.forget(user_id=uid, older_than=older_than)
    assert mem.count(user_id=uid, include_history=False) == 1


def test_forget_of_a_large_finite_age_still_works(mem: Memory, uid: str) -> None:
    mem.add("I like tea", user_id=uid)
    assert mem.forget(user_id=uid, older_than=700_000) == 0  # nothing is that old
    assert mem.forget(user_id=uid, older_than=0) == 1


def test_recall_takes_a_naive_now_as_utc(mem: Memory, uid: str) -> None:
    mem.add("I went to Rome on 2024-05-03", user_id=uid, event_time=datetime(2024, 5, 3))
    naive = mem.recall("where did I go last week?", user_id=uid, now=datetime(2024, 5, 8, 12))
    aware = mem.recall(
        "where did I go last week?",
        user_id=uid,
        now=datetime(2024, 5, 8, 12, tzinfo=timezone.utc),
    )
    assert naive.text == aware.text and naive.records
    assert naive.trace.intent["time_range"] == aware.trace.intent["time_range"]
    with pytest.raises(ValidationError, match="now must be a datetime"):
        mem.recall("where?", user_id=uid, now="yesterday")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "fields",
    [{"kinds": ["bogus"]}, {"strictness": 2}, {"weights": {"nope": 1.0}}, {"colour": "red"}],
)
def test_intent_errors_are_prism_errors(fields: dict[str, Any]) -> None:
    with pytest.raises(ValidationError, match="invalid Intent"):
        Intent(**fields)


@pytest.mark.parametrize(
    "change",
    [{"parent_task_id": 5}, {"parent_task_id": " "}, {"status": "finished"}, {"goal": 3}],
)
def test_task_errors_are_prism_errors(mem: Memory, uid: str, change: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        mem.task("t1", user_id=uid, **change)
    assert mem.count(user_id=uid) == 0


def test_reading_a_task_writes_nothing(mem: Memory, uid: str) -> None:
    state = mem.task("trip", user_id=uid)
    assert state.task_id == "trip" and state.goal is None
    assert mem.count(user_id=uid) == 0
    mem.task("trip", user_id=uid, goal="Kyoto in May")
    before = mem.list(user_id=uid, layer="working")
    assert mem.task("trip", user_id=uid).goal == "Kyoto in May"
    assert mem.list(user_id=uid, layer="working") == before  # same record, same updated_at
