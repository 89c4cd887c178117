"""The user-facing ``filters={...}`` parser: every accepted form and every rejection."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone
from typing import Any

import pytest

from prism_memory import Kind, ValidationError
from prism_memory.stores import Condition, RecordFilter, parse_filters


def test_none_means_no_filter() -> None:
    assert parse_filters(None) is None
    assert parse_filters({}) == RecordFilter()


@pytest.mark.parametrize(
    ("filters", "condition"),
    [
        ({"layer": "semantic"}, Condition("layer", "eq", "semantic")),
        ({"kind": Kind.PREFERENCE}, Condition("kind", "eq", "preference")),
        ({"kind": ["fact", Kind.EVENT]}, Condition("kind", "any", ["fact", "event"])),
        ({"kind": ("fact",)}, Condition("kind", "any", ["fact"])),
        ({"entities": " Mr. Zhang "}, Condition("entity_keys", "eq", "mr. zhang")),
        ({"entity": ["ZHANG", "Maria"]}, Condition("entity_keys", "any", ["zhang", "maria"])),
        ({"schema_name": "Event"}, Condition("schema", "eq", "Event")),
        ({"metadata.topic": "travel"}, Condition("metadata.topic", "eq", "travel")),
        ({"metadata.n": 3}, Condition("metadata.n", "eq", 3)),
        ({"task_id": None}, Condition("task_id", "empty")),
        ({"importance": {"gte": 0.7}}, Condition("importance", "range", {"gte": 0.7})),
        ({"utility": {"gt": 0, "lt": 1}}, Condition("utility", "range", {"gt": 0.0, "lt": 1.0})),
    ],
)
def test_accepted_forms(filters: dict[str, Any], condition: Condition) -> None:
    flt = parse_filters(filters)
    assert flt is not None and flt.must == [condition] and flt.must_not == []


def test_datetime_ranges_become_utc_iso() -> None:
    cet = timezone(timedelta(hours=1))
    flt = parse_filters(
        {
            "event_time": {
                "gte": datetime(2023, 5, 1, 1, 0, tzinfo=cet),
                "lt": "2023-06-01T00:00:00Z",
            },
            "created_at": {"lte": date(2024, 1, 2)},
            "updated_at": {"gt": datetime(2023, 1, 1)},  # naive = UTC
        }
    )
    assert flt is not None
    assert flt.must == [
        Condition(
            "event_time", "range", {"gte": "2023-05-01T00:00:00Z", "lt": "2023-06-01T00:00:00Z"}
        ),
        Condition("created_at", "range", {"lte": "2024-01-02T00:00:00Z"}),
        Condition("updated_at", "range", {"gt": "2023-01-01T00:00:00Z"}),
    ]


def test_id_filter_accepts_only_record_ids() -> None:
    a, b = "0ec08139-b7af-5668-9564-ca4fe68ec4a5", "87a0cfd3-b9f5-5791-941c-54bee7706319"
    flt = parse_filters({"id": a})
    assert flt is not None and flt.must == [Condition("id", "any", [a])]
    flt = parse_filters({"id": [a, b]})
    assert flt is not None and flt.must == [Condition("id", "any", [a, b])]
    for bad in ("junk", [a, "junk"], [], 12):
        with pytest.raises(ValidationError, match="not a memory id"):
            parse_filters({"id": bad})


def test_several_keys_are_anded() -> None:
    flt = parse_filters({"kind": "fact", "layer": "semantic"})
    assert flt is not None and [c.key for c in flt.must] == ["kind", "layer"]


@pytest.mark.parametrize(
    ("filters", "message"),
    [
        ({"colour": "red"}, "unknown filter key 'colour'"),
        ({"text": "hello"}, "metadata.<field>"),
        ({"user_id": "bob"}, "user_id is a scope"),
        ({"session_id": "s"}, "pass it as a keyword"),
        ({"": 1}, "non-empty strings"),
        ({"kind": []}, "empty list"),
        ({"importance": {"above": 1}}, "gt, gte, lt, lte"),
        ({"importance": {}}, "gt, gte, lt, lte"),
        ({"importance": {"gte": "high"}}, "needs a number"),
        ({"importance": {"gte": True}}, "needs a number"),
        ({"event_time": {"gte": "last tuesday"}}, "ISO-8601"),
        ({"event_time": {"gte": 12}}, "ISO-8601"),
        ({"metadata.x": 1.5}, "strings or integers"),
        ({"metadata.ok": True}, "boolean filter values are not supported"),
        ({"metadata.ok": [1, False]}, "integer"),
        ({"kind": [object()]}, "strings or integers"),
    ],
)
def test_rejections_say_what_to_do(filters: dict[Any, Any], message: str) -> None:
    with pytest.raises(ValidationError, match=message.replace(".", r"\.").replace("<", ".")):
        parse_filters(filters)


@pytest.mark.parametrize("bad", [["kind", "fact"], "kind=fact", 3])
def test_filters_must_be_a_dict(bad: Any) -> None:
    with pytest.raises(ValidationError, match="must be a dict"):
        parse_filters(bad)


def test_record_filter_composition() -> None:
    a = RecordFilter.eq("kind", "fact")
    b = RecordFilter(must_not=[Condition("trust", "eq", "quarantined")])
    both = a & b
    assert both.must == a.must and both.must_not == b.must_not
    assert (a & None) is a
    assert RecordFilter().is_empty() and not both.is_empty()
    assert RecordFilter.any_of("id", ("x", "y")).must == [Condition("id", "any", ["x", "y"])]


@pytest.mark.parametrize(
    ("filters", "must", "must_not"),
    [
        ({"kind": {"$eq": "fact"}}, [Condition("kind", "eq", "fact")], []),
        ({"kind": {"$ne": "fact"}}, [], [Condition("kind", "eq", "fact")]),
        ({"kind": {"$in": ["fact", "event"]}}, [Condition("kind", "any", ["fact", "event"])], []),
        ({"kind": {"$nin": ["fact"]}}, [], [Condition("kind", "any", ["fact"])]),
        ({"task_id": {"$ne": None}}, [], [Condition("task_id", "empty")]),
        (
            {"importance": {"$gte": 0.5, "$lt": 0.9}},
            [Condition("importance", "range", {"gte": 0.5, "lt": 0.9})],
            [],
        ),
        (
            {"importance": {"$gt": 0, "lte": 1}},
            [Condition("importance", "range", {"gt": 0.0, "lte": 1.0})],
            [],
        ),
        (
            {"$and": [{"kind": {"$in": ["fact"]}}, {"metadata.n": {"$lte": 3}}]},
            [Condition("kind", "any", ["fact"]), Condition("metadata.n", "range", {"lte": 3.0})],
            [],
        ),
        (
            {"entities": {"$in": ["ZHANG"]}, "layer": {"$ne": "buffer"}},
            [Condition("entity_keys", "any", ["zhang"])],
            [Condition("layer", "eq", "buffer")],
        ),
    ],
)
def test_dollar_operator_dialect(
    filters: dict[str, Any], must: list[Condition], must_not: list[Condition]
) -> None:
    flt = parse_filters(filters)
    assert flt is not None and flt.must == must and flt.must_not == must_not


def test_dollar_datetime_range_and_id_sets() -> None:
    day = datetime(2024, 5, 1, tzinfo=timezone.utc)
    flt = parse_filters({"event_time": {"$gte": day}})
    assert flt is not None and flt.must == [
        Condition("event_time", "range", {"gte": "2024-05-01T00:00:00Z"})
    ]
    rid = "6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4b"
    flt = parse_filters({"id": {"$nin": [rid]}})
    assert flt is not None and flt.must_not == [Condition("id", "any", [rid])]


@pytest.mark.parametrize(
    ("filters", "message"),
    [
        ({"kind": {"$regex": "f.*"}}, r"unknown operator '\$regex'; accepted: \$eq, \$ne, \$gt"),
        ({"kind": {"$in": "fact"}}, r"\$in / \$nin need a list"),
        ({"$or": [{"kind": "fact"}, {"layer": "semantic"}]}, r"'\$or' is not supported.*\$in"),
        ({"$gt": 1}, r"only \$and is accepted"),
        ({"$and": {"kind": "fact"}}, r"'\$and' needs a non-empty list"),
        ({"id": {"$gt": "x"}}, "ids have no order"),
        ({"importance": {"gt": 1, "$gt": 2}}, "gt is given twice"),
    ],
)
def test_bad_operators_name_the_accepted_ones(filters: dict[str, Any], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        parse_filters(filters)
