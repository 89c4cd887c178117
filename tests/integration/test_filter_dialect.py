"""The ``$``-operator filter dialect, end to end: ``Memory.search`` / ``list``, the ``prism``
CLI and ``PrismStore`` accept it next to the plain form, with the real store and embedder."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from langchain_prism import PrismStore
from prism_memory import FastEmbedEmbedder, Memory, ValidationError
from prism_memory.cli import main


def seed(memory: Memory, user: str) -> None:
    memory.add("Kim prefers window seats", user_id=user, kind="preference", importance=0.9)
    memory.add("Kim is flying to Lisbon in May", user_id=user, kind="event", importance=0.6)
    memory.add("Kim's seat on the last flight was 14A", user_id=user, kind="fact", importance=0.3)


def test_memory_search_and_list_take_both_forms(memory: Memory, uid: Callable[[str], str]) -> None:
    user = uid("kim")
    seed(memory, user)

    def kinds(filters: dict[str, object]) -> set[str]:
        hits = memory.search("seat flight Lisbon", user_id=user, filters=filters, limit=10)
        return {h.record.kind.value for h in hits}

    assert kinds({"kind": {"$in": ["preference", "fact"]}}) == {"preference", "fact"}
    assert kinds({"kind": {"$in": ["preference", "fact"]}}) == kinds(
        {"kind": ["preference", "fact"]}
    )
    assert kinds({"kind": {"$nin": ["fact"]}}) == {"preference", "event"}
    assert kinds({"kind": {"$ne": "event"}, "importance": {"$gte": 0.5}}) == {"preference"}
    assert kinds({"importance": {"$gt": 0.5, "$lte": 0.9}}) == kinds(
        {"importance": {"gt": 0.5, "lte": 0.9}}
    )
    assert kinds({"$and": [{"kind": {"$eq": "event"}}, {"importance": {"$lt": 1}}]}) == {"event"}
    page = memory.list(user_id=user, filters={"kind": {"$in": ["event"]}})
    assert [r.kind.value for r in page] == ["event"]

    with pytest.raises(ValidationError, match=r"unknown operator '\$like'; accepted: \$eq"):
        memory.search("seat", user_id=user, filters={"kind": {"$like": "pref"}})
    with pytest.raises(ValidationError, match="words to search for") as err:
        memory.search("", user_id=user)
    assert "remember" not in str(err.value)


def test_cli_filter_takes_the_dollar_dialect(
    tmp_path: Path, real_embedder: FastEmbedEmbedder, capsys: pytest.CaptureFixture[str]
) -> None:
    path = str(tmp_path / "store")
    with Memory(path=path, embedder=real_embedder) as m:
        seed(m, "kim")
    argv = ["--path", path, "search", "seat flight", "--user", "kim", "--json"]
    code = main(
        [*argv, "--filter", 'kind={"$in": ["preference", "event"]}'], embedder=real_embedder
    )
    out, err = capsys.readouterr()
    assert code == 0, err
    assert {h["record"]["kind"] for h in json.loads(out)} == {"preference", "event"}
    code = main([*argv, "--filter", 'importance={"$lt": 0.5}'], embedder=real_embedder)
    out, err = capsys.readouterr()
    assert code == 0, err
    assert [h["record"]["kind"] for h in json.loads(out)] == ["fact"]
    code = main([*argv, "--filter", 'kind={"$foo": 1}'], embedder=real_embedder)
    out, err = capsys.readouterr()
    assert code == 2 and "accepted: $eq, $ne, $gt, $gte, $lt, $lte, $in, $nin" in err


def test_prism_store_search_takes_in_and_nin(memory: Memory, uid: Callable[[str], str]) -> None:
    store = PrismStore(memory, agent_id=uid("store"))
    ns = ("prefs", uid("kim"))
    store.put(ns, "a", {"topic": "seat", "rank": 1})
    store.put(ns, "b", {"topic": "food", "rank": 2})
    store.put(ns, "c", {"topic": "hotel", "rank": 3})
    assert sorted(i.key for i in store.search(ns, filter={"topic": {"$in": ["seat", "food"]}})) == [
        "a",
        "b",
    ]
    assert [i.key for i in store.search(ns, filter={"topic": {"$nin": ["seat", "food"]}})] == ["c"]
    assert [i.key for i in store.search(ns, filter={"rank": {"$gte": 3}})] == ["c"]
    with pytest.raises(ValueError, match=r"accepted: \$eq, \$ne"):
        store.search(ns, filter={"rank": {"$mod": 2}})
